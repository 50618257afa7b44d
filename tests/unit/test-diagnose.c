/* test-diagnose.c: diagnose() on fake scans with the shipped library and a site's own
 * signatures: the correlators that run are the ones each signature's `correlator =` names. */
#include "unit.h"
#include "rates.h"

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_lru_drain_by_key),
		cmocka_unit_test(test_workqueue_by_key),
		cmocka_unit_test(test_starvation_by_key),
		cmocka_unit_test(test_rates_by_key),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
