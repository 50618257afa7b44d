/* test-diagnose.c: diagnose() on fake scans with the shipped library and a site's own
 * signatures: the correlators that run are the ones each signature's `correlator =` names. */
#include "unit.h"
#include "rates.h"
#include <json-c/json.h>
#include <sys/syscall.h>

static struct cgw_conf conf;

/* A D task with the stack given as frame names, innermost first. */
static size_t task_stack(struct unit_scan *u, int tid, const char *comm, double blocked_s,
                         const char *const *frames)
{
	size_t k = us_task(u, tid, tid, comm, strlen(comm), blocked_s);
	struct strbuf b = { 0 };
	for (; *frames; frames++)
		sb_printf(&b, "[<0>] %s+0x10/0x20\n", *frames);
	struct cgw_task *t = &u->scan.t[k];
	int n = parse_stack_buf(b.s, &t->frames);
	assert_true(n > 0);
	t->nframes = (size_t)n;
	sb_free(&b);
	return k;
}

/* A runnable task on cpu that has not run for starved_s. */
static size_t task_starved(struct unit_scan *u, int tid, const char *comm, int cpu,
                           double starved_s)
{
	size_t k = us_task(u, tid, tid, comm, strlen(comm), starved_s);
	struct cgw_task *t = &u->scan.t[k];
	t->state = 'R';
	t->suspect = SUSPECT_STARVED;
	t->cpu = cpu;
	return k;
}

/* The shipped library, then site files (name, text pairs, NULL-terminated) in a directory. */
static void load_sigs(struct cgw_sigset *set, const char *const *site)
{
	memset(set, 0, sizeof(*set));
	assert_int_equal(sig_load_builtin(set, stderr), 0);
	if (!site || !*site)
		return;
	char dir[64];
	tmpdir_make(dir, sizeof(dir));
	for (; *site; site += 2)
		tmpdir_put(dir, site[0], site[1]);
	assert_int_equal(sig_load_dir(set, dir, stderr), 0);
	tmpdir_remove(dir);
}

static const struct cgw_finding *finding(const struct unit_scan *u, const char *id)
{
	for (size_t k = 0; k < u->rep.nf; k++)
		if (strcmp(u->rep.f[k].sig->id, id) == 0)
			return &u->rep.f[k];
	return NULL;
}

static const char *const mig_stack[] = { "__flush_work", "flush_migrate_mm_task_workfn",
                                         "task_work_run", NULL };
static const char *const drain_stack[] = { "__flush_work", "__lru_add_drain_all",
                                           "cpuset_migrate_mm_workfn", "process_one_work", NULL };

/* A SCHED_FIFO/99 task, TID 70 "spin", runnable on CPU 3. */
static void spinner(struct unit_scan *u)
{
	struct cgw_scan *s = &u->scan;
	s->runners = xcalloc(1, sizeof(*s->runners));
	s->nrunners = 1;
	s->runners[0] = (struct cgw_runner){ .tid = 70, .cpu = 3, .policy = 1, .rt_priority = 99,
	                                     .share = -1 };
	snprintf(s->runners[0].comm, sizeof(s->runners[0].comm), "spin");
	s->runners[0].comm_len = 4;
}

/* Seed 004: a task waiting for the cpuset migration, its worker in the LRU drain, and a
 * per-CPU kworker starved on CPU 3 by a SCHED_FIFO spinner. */
static void seed004(struct unit_scan *u)
{
	us_init(u);
	u->rep.conf = &conf;
	task_stack(u, 1, "systemd", 120, mig_stack);
	task_stack(u, 50, "kworker/u8:1+cpuset_migrate_mm", 119, drain_stack);
	task_starved(u, 60, "kworker/3:1", 3, 118);
	spinner(u);
}

static const char *const site_drain[] = { "site.conf",
	"[signature]\nid = site-drain\nseverity = critical\npriority = 95\ntitle = T\nsummary = S\n"
	"correlator = lru-drain\n[match]\nframe = __lru_add_drain_all\n", NULL };
static const char *const site_drain_nokey[] = { "site.conf",
	"[signature]\nid = site-drain\nseverity = critical\npriority = 95\ntitle = T\nsummary = S\n"
	"[match]\nframe = __lru_add_drain_all\n", NULL };

/* The shipped lru-drain-isolated (correlator = lru-drain) links the seed 004 chain; a site's
 * own signature with the same key gets the same chain, tasks and summary; without the key,
 * none: its finding keeps its own task, the waiter and the kworker stay in theirs. */
static void test_lru_drain_by_key(void **state)
{
	(void)state;
	struct cgw_sigset shipped, site, nokey;
	load_sigs(&shipped, NULL);
	load_sigs(&site, site_drain);
	load_sigs(&nokey, site_drain_nokey);
	struct unit_scan a, b, c;
	seed004(&a);
	seed004(&b);
	seed004(&c);
	assert_int_equal(diagnose(&a.rep, &shipped, NULL, NULL), 0);
	assert_int_equal(diagnose(&b.rep, &site, NULL, NULL), 0);
	assert_int_equal(diagnose(&c.rep, &nokey, NULL, NULL), 0);

	const struct cgw_finding *fa = finding(&a, "lru-drain-isolated");
	const struct cgw_finding *fb = finding(&b, "site-drain");
	assert_non_null(fa);
	assert_non_null(fb);
	assert_null(finding(&b, "lru-drain-isolated"));
	assert_int_equal(a.rep.nf, 1);               /* the waiter and the kworker joined it */
	assert_int_equal(b.rep.nf, 1);
	assert_int_equal(fa->nchain, 2);
	assert_int_equal(fb->nchain, fa->nchain);
	assert_memory_equal(fb->chain, fa->chain, fa->nchain * sizeof(size_t));
	assert_int_equal(fb->ntasks, 3);
	assert_memory_equal(fb->tasks, fa->tasks, fa->ntasks * sizeof(size_t));
	assert_string_equal(fb->summary.s, fa->summary.s);
	assert_non_null(strstr(fa->summary.s, "LRU drain cannot run on CPU 3"));

	const struct cgw_finding *fc = finding(&c, "site-drain");
	assert_non_null(fc);
	assert_int_equal(fc->nchain, 0);
	assert_int_equal(fc->ntasks, 1);
	assert_null(fc->summary.s);
	assert_non_null(finding(&c, "cpuset-migrate-wait"));
	assert_non_null(finding(&c, "starved"));
	us_free(&a);
	us_free(&b);
	us_free(&c);
	sig_free(&shipped);
	sig_free(&site);
	sig_free(&nokey);
}

static const char *const wq_stack[] = { "__flush_workqueue", "my_driver_sync", NULL };
static const char *const site_wq[] = { "site.conf",
	"[signature]\nid = my-flush\nseverity = warning\npriority = 95\ntitle = T\nsummary = S\n"
	"correlator = workqueue\nworkqueue = my_wq\n[match]\nframe = my_driver_sync\n", NULL };

/* A site signature naming its workqueue (correlator = workqueue) links its flusher to the
 * kworker running that workqueue's work. */
static void test_workqueue_by_key(void **state)
{
	(void)state;
	struct cgw_sigset set;
	load_sigs(&set, site_wq);
	struct unit_scan u;
	us_init(&u);
	u.rep.conf = &conf;
	size_t w = task_stack(&u, 10, "mydaemon", 100, wq_stack);
	size_t k = task_starved(&u, 20, "kworker/2:0+my_wq", 2, 90);
	assert_int_equal(diagnose(&u.rep, &set, NULL, NULL), 0);
	const struct cgw_finding *f = finding(&u, "my-flush");
	assert_non_null(f);
	assert_int_equal(f->nchain, 2);
	assert_int_equal(f->chain[0], w);
	assert_int_equal(f->chain[1], k);
	assert_non_null(strstr(f->evidence.s, "flushes workqueue my_wq"));
	us_free(&u);
	sig_free(&set);
}

static const char *const site_starved[] = { "site.conf",
	"[signature]\nid = starved\nseverity = warning\nstates = R\ntitle = T\nsummary = S\n", NULL };

/* The shipped starved (correlator = starvation) names what runs on the starved task's CPU; a
 * site's starved without the key does not. */
static void test_starvation_by_key(void **state)
{
	(void)state;
	struct cgw_sigset shipped, site;
	load_sigs(&shipped, NULL);
	load_sigs(&site, site_starved);
	for (int round = 0; round < 2; round++) {
		struct unit_scan u;
		us_init(&u);
		u.rep.conf = &conf;
		task_starved(&u, 61, "app", 3, 30);
		spinner(&u);
		assert_int_equal(diagnose(&u.rep, round ? &site : &shipped, NULL, NULL), 0);
		const struct cgw_finding *f = finding(&u, "starved");
		assert_non_null(f);
		bool named = strstr(f->evidence.s, "CPU 3: 70 (spin) SCHED_FIFO/99 is runnable there");
		assert_int_equal(named, round == 0);
		us_free(&u);
	}
	sig_free(&shipped);
	sig_free(&site);
}

static const char *const site_churn[] = { "site.conf",
	"[signature]\nid = my-pidlist\nseverity = warning\npriority = 95\ntitle = T\nsummary = S\n"
	"correlator = cgroup1-pidlist\n[match]\nframe = my_pidlist_wait\n", NULL };
static const char *const churn_stack[] = { "my_pidlist_wait", NULL };

/* A cgroup activity correlator is chosen by the key too: the counts are needed, and the
 * finding gets that correlator's evidence. */
static void test_rates_by_key(void **state)
{
	(void)state;
	struct cgw_sigset set;
	load_sigs(&set, site_churn);
	struct unit_scan u;
	us_init(&u);
	u.rep.conf = &conf;
	task_stack(&u, 10, "lister", 100, churn_stack);
	assert_int_equal(classify(&u.rep, &set), 0);
	assert_true(rates_needed(&u.rep));
	struct rates_host h = { .possible_cpus = -1, .mountinfo_err = "not read here" };
	rates_link_host(&u.rep, NULL, &h);
	const struct cgw_finding *f = finding(&u, "my-pidlist");
	assert_non_null(f);
	assert_non_null(strstr(f->evidence.s, "/proc/self/mountinfo"));
	us_free(&u);
	sig_free(&set);
}

static const char *const site_alike[] = { "alike.conf",
	"[signature]\nid = my-wait\nseverity = warning\npriority = 95\ntitle = T\nsummary = S\n"
	"[match]\nframe = my_wait\n", NULL };

/* Tasks with the same stack in the same state get the same signature and marks, however many
 * in a row (classify matches a run of them once); a task alike in its frames but not in its
 * state, or in its state but not every frame, is matched on its own. */
static void test_alike_stacks_classified_alike(void **state)
{
	(void)state;
	struct cgw_sigset set;
	load_sigs(&set, site_alike);
	struct unit_scan u;
	us_init(&u);
	u.rep.conf = &conf;
	static const char *const waits[] = { "my_wait", "vfs_read", NULL };
	static const char *const other[] = { "other_wait", "vfs_read", NULL };
	static const char *const longer[] = { "my_wait", "vfs_read", "ksys_read", NULL };
	static const char *const renamed[] = { "my_waitx", "vfs_read", NULL };
	size_t k[8];
	k[0] = task_stack(&u, 10, "a", 100, waits);
	k[1] = task_stack(&u, 11, "a", 100, waits);
	k[2] = task_stack(&u, 12, "a", 100, waits);
	u.scan.t[k[2]].state = 'R';                /* the same frames, not D */
	u.scan.t[k[2]].suspect = SUSPECT_STARVED;
	k[3] = task_stack(&u, 13, "a", 100, waits);
	k[4] = task_stack(&u, 14, "a", 100, other);
	k[5] = task_stack(&u, 15, "a", 100, longer);
	k[6] = task_stack(&u, 16, "a", 100, renamed);
	k[7] = task_stack(&u, 17, "a", 100, waits);
	assert_int_equal(classify(&u.rep, &set), 0);
	static const char *const want[] = { "my-wait", "my-wait", "starved", "my-wait", "unknown",
	                                    "my-wait", "unknown", "my-wait" };
	for (size_t i = 0; i < 8; i++) {
		const struct cgw_task *t = &u.scan.t[k[i]];
		print_message("# task %d\n", t->tid);
		assert_string_equal(t->sig->id, want[i]);
		assert_non_null(t->marks);
		bool mine = strcmp(want[i], "my-wait") == 0;
		assert_int_equal(t->marks[0], mine);
		for (size_t f = 1; f < t->nframes; f++)
			assert_false(t->marks[f]);
	}
	us_free(&u);
	sig_free(&set);
}

/* The findings of signature id, in report order. */
static size_t findings_of(const struct unit_scan *u, const char *id,
                          const struct cgw_finding **out, size_t cap)
{
	size_t n = 0;
	for (size_t k = 0; k < u->rep.nf; k++)
		if (strcmp(u->rep.f[k].sig->id, id) == 0 && n < cap)
			out[n++] = &u->rep.f[k];
	return n;
}

/* The finding of id whose cause is cause, or NULL. */
static const struct cgw_finding *finding_cause(const struct unit_scan *u, const char *id,
                                               const char *cause)
{
	for (size_t k = 0; k < u->rep.nf; k++)
		if (strcmp(u->rep.f[k].sig->id, id) == 0 && strcmp(u->rep.f[k].cause, cause) == 0)
			return &u->rep.f[k];
	return NULL;
}

static const char *const flush_a[] = { "wait_for_completion", "__flush_work", "flush_work",
                                       "caller_a", "process_one_work", NULL };
static const char *const flush_b[] = { "__flush_workqueue", "caller_b", "ksys_ioctl", NULL };
static const char *const fuse_stack[] = { "fuse_get_req", "__fuse_simple_request",
                                          "fuse_do_getattr", "vfs_statx", NULL };

/* A fuse-wait task blocked in statx on path under the fuse mount mnt (connection dev). */
static size_t fuse_task(struct unit_scan *u, int tid, double blocked_s, const char *path,
                        const char *mnt, const char *dev)
{
	size_t k = task_stack(u, tid, "stat", blocked_s, fuse_stack);
	struct cgw_task *t = &u->scan.t[k];
	t->sys_known = true;
	t->sys_nr = SYS_statx;
	t->wait_path = xstrdup(path);
	t->wait_mnt = xstrdup(mnt);
	snprintf(t->wait_fstype, sizeof(t->wait_fstype), "fuse.hold");
	snprintf(t->wait_dev, sizeof(t->wait_dev), "%s", dev);
	return k;
}

/* Folds u's report into in at now: the number of changes, each of them opened. */
static ssize_t fold(struct cgw_incidents *in, struct unit_scan *u, double now, size_t *opened)
{
	struct inc_change *ch;
	ssize_t n = incidents_update(in, &u->rep, now, 3600, &ch);
	*opened = 0;
	for (ssize_t c = 0; c < n; c++)
		*opened += ch[c].state == INC_OPENED;
	free(ch);
	return n;
}

/* An empty scan u to diagnose with the shipped library set; scan_done frees both. */
static void shipped_scan(struct cgw_sigset *set, struct unit_scan *u)
{
	load_sigs(set, NULL);
	us_init(u);
	u->rep.conf = &conf;
}

static void scan_done(struct cgw_sigset *set, struct unit_scan *u)
{
	us_free(u);
	sig_free(set);
}

/* Diagnose u: two findings of signature id, with causes ca (na tasks, into *fa) and cb (nb
 * tasks, into *fb); folded into incidents, two open with two ids and their causes. */
static void two_hangs(struct unit_scan *u, const struct cgw_sigset *set, const char *id,
                      const char *ca, size_t na, const char *cb, size_t nb,
                      const struct cgw_finding **fa, const struct cgw_finding **fb)
{
	assert_int_equal(diagnose(&u->rep, set, NULL, NULL), 0);
	const struct cgw_finding *f[4];
	assert_int_equal(findings_of(u, id, f, 4), 2);
	*fa = finding_cause(u, id, ca);
	*fb = finding_cause(u, id, cb);
	assert_non_null(*fa);
	assert_non_null(*fb);
	assert_int_equal((*fa)->ntasks, na);
	assert_int_equal((*fb)->ntasks, nb);
	struct cgw_incidents in = { 0 };
	size_t opened;
	assert_int_equal(fold(&in, u, 1796022982.0, &opened), 2);
	assert_int_equal(opened, 2);
	assert_int_equal(in.n, 2);
	assert_string_not_equal(in.v[0].id, in.v[1].id);
	assert_true(strcmp(in.v[0].cause, ca) == 0 || strcmp(in.v[1].cause, ca) == 0);
	assert_true(strcmp(in.v[0].cause, cb) == 0 || strcmp(in.v[1].cause, cb) == 0);
	incidents_free(&in);
}

/* Two tasks flushing from two callers: two workqueue-flush findings, each with its caller as
 * its cause, and two incidents with two ids. */
static void test_two_flush_callers(void **state)
{
	(void)state;
	struct cgw_sigset set;
	struct unit_scan u;
	shipped_scan(&set, &u);
	size_t a = task_stack(&u, 10, "drv-a", 100, flush_a);
	size_t b = task_stack(&u, 11, "drv-b", 90, flush_b);
	const struct cgw_finding *fa, *fb;
	two_hangs(&u, &set, "workqueue-flush", "flush by caller_a", 1, "flush by caller_b", 1,
	          &fa, &fb);
	assert_int_equal(fa->tasks[0], a);
	assert_int_equal(fb->tasks[0], b);
	scan_done(&set, &u);
}

/* Two tasks waiting on two FUSE mounts: two fuse-wait findings keyed by mount, each with its
 * evidence line, two incidents; two tasks on one mount stay one finding. */
static void test_two_fuse_mounts(void **state)
{
	(void)state;
	struct cgw_sigset set;
	struct unit_scan u;
	shipped_scan(&set, &u);
	fuse_task(&u, 20, 100, "/mnt/a/f", "/mnt/a", "0:53");
	fuse_task(&u, 21, 80, "/mnt/a", "/mnt/a", "0:53");
	fuse_task(&u, 22, 90, "/mnt/b c/g", "/mnt/b c", "0:54");
	const struct cgw_finding *fa, *fb;
	two_hangs(&u, &set, "fuse-wait", "mount /mnt/a", 2, "mount /mnt/b c", 1, &fa, &fb);
	assert_non_null(strstr(fb->evidence.s, "PID 22 waits in statx on /mnt/b c/g, on the "
	                       "fuse.hold mount /mnt/b c (connection 0:54)"));
	assert_null(strstr(fb->evidence.s, "/mnt/a"));
	/* the cause in JSON (each finding) and in the text report (under the header line) */
	struct json_object *o = report_json_build(&u.rep, -1), *fs, *c;
	assert_true(json_object_object_get_ex(o, "findings", &fs));
	size_t with_cause = 0;
	for (size_t k = 0; k < json_object_array_length(fs); k++)
		if (json_object_object_get_ex(json_object_array_get_idx(fs, k), "cause", &c))
			with_cause += strcmp(json_object_get_string(c), "mount /mnt/b c") == 0 ||
			              strcmp(json_object_get_string(c), "mount /mnt/a") == 0;
	assert_int_equal(with_cause, 2);
	json_object_put(o);
	struct errbuf tx;
	report_text(&u.rep, errbuf_open(&tx));
	assert_non_null(strstr(errbuf_text(&tx), "fuse-wait: Waiting for a FUSE file system "
	                       "server\n  Cause: mount /mnt/b c\n"));
	errbuf_close(&tx);

	scan_done(&set, &u);
}

/* One hang whose tasks change from scan to scan (another worker takes over the flush,
 * another client joins the FUSE wait) keeps its incidents: nothing opens or resolves. */
static void test_cause_stable(void **state)
{
	(void)state;
	struct cgw_sigset set;
	load_sigs(&set, NULL);
	struct cgw_incidents in = { 0 };
	double t0 = 1796022982.0;
	for (int scan = 0; scan < 3; scan++) {
		struct unit_scan u;
		us_init(&u);
		u.rep.conf = &conf;
		task_stack(&u, 100 + scan, "drv", 100, flush_b);
		fuse_task(&u, 200 + scan, 100, "/mnt/a/f", "/mnt/a", "0:53");
		if (scan == 2)
			fuse_task(&u, 300, 50, "/mnt/a/g", "/mnt/a", "0:53");
		assert_int_equal(diagnose(&u.rep, &set, NULL, NULL), 0);
		size_t opened;
		ssize_t n = fold(&in, &u, t0 + scan, &opened);
		assert_int_equal(opened, scan == 0 ? 2 : 0);
		assert_int_equal(n, scan == 0 ? 2 : 0);
		assert_int_equal(in.n, 2);
		for (size_t x = 0; x < in.n; x++)
			assert_int_equal(in.v[x].resolved_at, 0);
		us_free(&u);
	}
	incidents_free(&in);
	sig_free(&set);
}

static int setup(void **state)
{
	(void)state;
	conf_defaults(&conf);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	conf_free(&conf);
	return tmpdir_cleanup_all(0);
}

/* The cause kind is data too: a site signature with its own id and `cause = mount` splits its
 * findings by mount as fuse-wait does; the same signature without the key keeps one. */
static void test_site_cause_mount(void **state)
{
	(void)state;
	static const char *const frames = "frame = my_fs_wait_reply\n";
	for (int with = 0; with < 2; with++) {
		char text[512];
		snprintf(text, sizeof(text), "[signature]\nid = myfs-wait\nseverity = warning\n"
		         "priority = 90\nstates = D\ntitle = t\nsummary = s\nexplanation = e\n%s"
		         "[match]\n%s[remedies]\nremedy = r\n", with ? "cause = mount\n" : "", frames);
		const char *const site[] = { "myfs.conf", text, NULL };
		struct cgw_sigset set;
		struct unit_scan u;
		load_sigs(&set, site);
		us_init(&u);
		u.rep.conf = &conf;
		static const char *const stack[] = { "my_fs_wait_reply", "vfs_statx", NULL };
		static const char *const mnt[] = { "/srv/a", "/srv/b" };
		for (int i = 0; i < 2; i++) {
			size_t k = task_stack(&u, 40 + i, "stat", 100, stack);
			struct cgw_task *t = &u.scan.t[k];
			t->sys_known = true;
			t->sys_nr = SYS_statx;
			t->wait_path = xstrdup(mnt[i]);
			t->wait_mnt = xstrdup(mnt[i]);
		}
		assert_int_equal(diagnose(&u.rep, &set, NULL, NULL), 0);
		const struct cgw_finding *f[4];
		assert_int_equal(findings_of(&u, "myfs-wait", f, 4), with ? 2 : 1);
		if (with) {
			assert_non_null(finding_cause(&u, "myfs-wait", "mount /srv/a"));
			assert_non_null(finding_cause(&u, "myfs-wait", "mount /srv/b"));
		}
		scan_done(&set, &u);
	}
}

/* Tasks blocked equally long are listed by tid, whatever order the scan read them in (a
 * replay of a tree on another file system reads directories in another order). */
static void test_ties_by_tid(void **state)
{
	(void)state;
	struct cgw_sigset set;
	struct unit_scan u;
	shipped_scan(&set, &u);
	fuse_task(&u, 90, 40, "/mnt/a/f", "/mnt/a", "0:53");
	fuse_task(&u, 50, 40, "/mnt/a/g", "/mnt/a", "0:53");
	fuse_task(&u, 70, 60, "/mnt/a/h", "/mnt/a", "0:53");
	assert_int_equal(diagnose(&u.rep, &set, NULL, NULL), 0);
	const struct cgw_finding *f = finding(&u, "fuse-wait");
	assert_non_null(f);
	assert_int_equal(f->ntasks, 3);
	int got[3];
	for (size_t j = 0; j < 3; j++)
		got[j] = u.scan.t[f->tasks[j]].tid;
	assert_int_equal(got[0], 70);
	assert_int_equal(got[1], 50);
	assert_int_equal(got[2], 90);
	scan_done(&set, &u);
}

/* A cause that cannot be read at one scan (a memory read timed out, a task's mount table not
 * readable) does not open a second incident for the same stuck task, nor resolve the first. */
static void test_cause_lost(void **state)
{
	(void)state;
	struct cgw_sigset set;
	load_sigs(&set, NULL);
	struct cgw_incidents in = { 0 };
	double t0 = 1796022982.0;
	for (int scan = 0; scan < 4; scan++) {
		struct unit_scan u;
		us_init(&u);
		u.rep.conf = &conf;
		size_t k = fuse_task(&u, 200, 100 + scan, "/mnt/a/f", "/mnt/a", "0:53");
		u.scan.t[k].start_ticks = 4242;
		if (scan == 1 || scan == 3) {         /* the path could not be read this time */
			free(u.scan.t[k].wait_mnt);
			u.scan.t[k].wait_mnt = NULL;
		}
		assert_int_equal(diagnose(&u.rep, &set, NULL, NULL), 0);
		assert_string_equal(u.rep.f[0].cause, scan == 1 || scan == 3 ? "" : "mount /mnt/a");
		size_t opened;
		fold(&in, &u, t0 + scan, &opened);
		assert_int_equal(opened, scan == 0 ? 1 : 0);
		assert_int_equal(in.n, 1);
		assert_int_equal(in.v[0].resolved_at, 0);
		assert_string_equal(in.v[0].cause, "mount /mnt/a");
		us_free(&u);
	}
	incidents_free(&in);
	sig_free(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lru_drain_by_key),
		cmocka_unit_test(test_workqueue_by_key),
		cmocka_unit_test(test_starvation_by_key),
		cmocka_unit_test(test_rates_by_key),
		cmocka_unit_test(test_alike_stacks_classified_alike),
		cmocka_unit_test(test_two_flush_callers),
		cmocka_unit_test(test_two_fuse_mounts),
		cmocka_unit_test(test_cause_stable),
		cmocka_unit_test(test_site_cause_mount),
		cmocka_unit_test(test_ties_by_tid),
		cmocka_unit_test(test_cause_lost),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
