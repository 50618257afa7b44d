/* test-incident.c: incidents over scans (incidents_update, prune, lead), their state file
 * (incidents_save, incidents_load) and their report object (incident_json), against
 * docs/daemon.md. Scans are built in memory: no /proc. */
#include <json-c/json.h>
#include <sys/stat.h>

#include "unit.h"

#define T0 1796022982.0              /* 2026-11-30T07:16:22Z */
#define T0_ID "20261130T071622Z"
#define UPDATE_S 300.0

static struct cgw_sig sig_fuse, sig_cpuset, sig_frozen, sig_nfs;

static int setup_sigs(void **state)
{
	(void)state;
	sig_fuse = unit_sig("fuse-wait", "Waiting for a FUSE daemon", "stat() on FUSE", SEV_WARNING);
	sig_cpuset = unit_sig("cpuset-migrate-wait", "Waiting for cpuset migration",
	                      "cpuset.mems change", SEV_WARNING);
	sig_frozen = unit_sig("frozen", "In a frozen cgroup", "frozen", SEV_INFO);
	sig_nfs = unit_sig("nfs-server-wait", "NFS server", "nfs", SEV_CRITICAL);
	return 0;
}

/* One task of a scan: tid, tgid, blocked seconds. comm is "task-<tid>". */
struct ts { int tid, tgid; double blocked; };

/* A scan whose only finding is sig (severity sev) over tasks t[0..n-1], folded into in at
 * now. Returns the change count; the changes go to *ch (free them). */
static size_t scan1(struct cgw_incidents *in, double now, const struct cgw_sig *sig,
                    enum cgw_sev sev, const struct ts *t, size_t n, struct inc_change **ch)
{
	struct unit_scan u;
	us_init(&u);
	size_t *idx = xcalloc(n + 1, sizeof(*idx));
	for (size_t k = 0; k < n; k++) {
		char comm[32];
		int l = snprintf(comm, sizeof(comm), "task-%d", t[k].tid);
		idx[k] = us_task(&u, t[k].tid, t[k].tgid, comm, (size_t)l, t[k].blocked);
	}
	if (sig)
		us_finding(&u, sig, sev, n, idx);
	free(idx);
	ssize_t nch = incidents_update(in, &u.rep, now, UPDATE_S, ch);
	us_free(&u);
	assert_true(nch >= 0);
	return (size_t)nch;
}

/* The same, when no change is expected (the changes are checked and freed). */
static void scan1_quiet(struct cgw_incidents *in, double now, const struct cgw_sig *sig,
                        enum cgw_sev sev, const struct ts *t, size_t n)
{
	struct inc_change *ch;
	size_t nch = scan1(in, now, sig, sev, t, n, &ch);
	if (nch)
		print_error("at now=T0%+.1f: %zu unexpected change(s), the first %s\n", now - T0, nch,
		            inc_state_name(ch[0].state));
	free(ch);
	assert_int_equal(nch, 0);
}

/* A task (its own process) alone in a finding of sig at sev. */
struct tf { int tid; const char *comm; double blocked; const struct cgw_sig *sig; enum cgw_sev sev; };

/* A scan of the n findings f (a task each, in that order) folded into in at now; the change
 * count, the changes in *ch (free them). */
static ssize_t update_each(struct cgw_incidents *in, double now, const struct tf *f, size_t n,
                           struct inc_change **ch)
{
	struct unit_scan u;
	us_init(&u);
	for (size_t k = 0; k < n; k++) {
		size_t t = us_task(&u, f[k].tid, f[k].tid, f[k].comm, strlen(f[k].comm), f[k].blocked);
		us_finding(&u, f[k].sig, f[k].sev, 1, &t);
	}
	ssize_t nch = incidents_update(in, &u.rep, now, UPDATE_S, ch);
	us_free(&u);
	return nch;
}

/* A scan with nothing in it. */
static size_t scan_empty(struct cgw_incidents *in, double now, struct inc_change **ch)
{
	return scan1(in, now, NULL, SEV_NONE, NULL, 0, ch);
}

static void assert_change(const struct inc_change *c, size_t inc, enum inc_state st,
                          ssize_t finding)
{
	if (c->inc != inc || c->state != st || c->finding != finding)
		print_error("change {inc %zu, %s, finding %zd}, want {inc %zu, %s, finding %zd}\n",
		            c->inc, inc_state_name(c->state), c->finding, inc,
		            inc_state_name(st), finding);
	assert_int_equal(c->inc, inc);
	assert_int_equal(c->state, st);
	assert_int_equal(c->finding, finding);
}

/* The same, when want changes are expected (they are freed). */
static void scan1_n(struct cgw_incidents *in, double now, const struct cgw_sig *sig,
                    enum cgw_sev sev, const struct ts *t, size_t n, size_t want)
{
	struct inc_change *ch;
	size_t nch = scan1(in, now, sig, sev, t, n, &ch);
	free(ch);
	assert_int_equal(nch, want);
}

/* The same, when one change is expected: that of incident inc to st, for finding. */
static void scan1_one(struct cgw_incidents *in, double now, const struct cgw_sig *sig,
                      enum cgw_sev sev, const struct ts *t, size_t n, size_t inc,
                      enum inc_state st, ssize_t finding)
{
	struct inc_change *ch;
	size_t nch = scan1(in, now, sig, sev, t, n, &ch);
	if (nch == 1)
		assert_change(&ch[0], inc, st, finding);
	free(ch);
	assert_int_equal(nch, 1);
}

/* A new temporary directory dir (64 bytes) and the state file path in it (128 bytes). */
static void state_path(char *dir, char *path)
{
	tmpdir_make(dir, 64);
	snprintf(path, 128, "%s/incidents.json", dir);
}

/* n tasks 100, 101, ... (their own processes), blocked 30 s less step a task. */
static void fill_tasks(struct ts *t, size_t n, double step)
{
	for (size_t k = 0; k < n; k++)
		t[k] = (struct ts){ 100 + (int)k, 100 + (int)k, 30.0 - (double)k * step };
}

/* in saved to a state file of boot "b" and freed, the file loaded into got (a restart). */
static void restart(struct cgw_incidents *in, struct cgw_incidents *got)
{
	char dir[64], path[128];
	state_path(dir, path);
	assert_int_equal(incidents_save(in, path, "b"), 0);
	incidents_free(in);
	size_t dropped;
	struct errbuf e;
	assert_int_equal(incidents_load(got, path, "b", &dropped, errbuf_open(&e)), 0);
	errbuf_close(&e);
	tmpdir_remove(dir);
}

/* ---- incidents_update ---- */

/* The state file read with one allocation refused at each point in turn: an incident that
 * could not be had is said ("out of memory, ignoring the incident") and the others load;
 * serializing without memory gives NULL. */
static void test_load_out_of_memory(void **state)
{
	(void)state;
	struct cgw_incidents in = { 0 };
	struct inc_change *ch;
	assert_int_equal(update_each(&in, T0, (struct tf[]){
		{ 1, "task-1", 25, &sig_fuse, SEV_WARNING },
		{ 2, "task-2", 25, &sig_cpuset, SEV_WARNING } }, 2, &ch), 2);
	free(ch);
	assert_int_equal(in.n, 2);
	size_t len;
	cgw_fail_alloc_after = 0;
	assert_null(incidents_serialize(&in, "boot", &len, NULL));
	char *txt = incidents_serialize(&in, "boot", &len, NULL);
	assert_non_null(txt);
	incidents_free(&in);
	int short_loads = 0;
	for (long k = 0; k < 100; k++) {
		struct cgw_incidents got = { 0 };
		struct errbuf e;
		size_t dropped;
		cgw_fail_alloc_after = k;
		int r = incidents_parse(&got, txt, len, "state", "boot", &dropped, errbuf_open(&e));
		bool refused = cgw_fail_alloc_after < 0;
		cgw_fail_alloc_after = -1;
		assert_int_equal(r, 0);
		assert_int_equal(got.n, refused ? 1 : 2);
		if (refused) {
			assert_err_has(&e, "out of memory, ignoring the incident");
			short_loads++;
		}
		errbuf_close(&e);
		incidents_free(&got);
		if (!refused)
			break;
	}
	assert_true(short_loads >= 4);           /* each of its arrays, and the incident list */
	free(txt);
}

/* Out of memory at any allocation of an update: -ENOMEM, no changes, and the incidents as they
 * were (their state file the same, byte for byte); with memory, the same update then does all
 * of it. The scan escalates one incident, adds tasks to it and opens two more. */
static void test_update_out_of_memory(void **state)
{
	(void)state;
	struct cgw_incidents in = { 0 };
	struct ts t1[] = { { 1, 1, 20 }, { 2, 2, 21 } };
	struct inc_change *ch;
	scan1_n(&in, T0, &sig_fuse, SEV_WARNING, t1, 2, 1);
	size_t len0;
	char *before = incidents_serialize(&in, "boot", &len0, NULL);
	assert_non_null(before);

	struct unit_scan u;
	us_init(&u);
	size_t a[3] = { us_task(&u, 1, 1, "a", 1, 30), us_task(&u, 3, 3, "c", 1, 31),
	                us_task(&u, 4, 4, "d", 1, 32) };
	us_finding(&u, &sig_fuse, SEV_CRITICAL, 3, a);
	us_finding(&u, &sig_cpuset, SEV_WARNING, 1, &a[1]);
	us_finding(&u, &sig_nfs, SEV_CRITICAL, 1, &a[2]);
	ssize_t n = -ENOMEM;
	long k;
	for (k = 0; k < 100 && n < 0; k++) {
		cgw_fail_alloc_after = k;
		ch = (void *)1;
		n = incidents_update(&in, &u.rep, T0 + 10, UPDATE_S, &ch);
		cgw_fail_alloc_after = -1;
		if (n >= 0)
			break;
		assert_int_equal(n, -ENOMEM);
		assert_null(ch);
		size_t len;
		char *now = incidents_serialize(&in, "boot", &len, NULL);
		assert_int_equal(len, len0);
		assert_memory_equal(now, before, len0);
		free(now);
	}
	assert_true(k >= 3);                   /* it did fail, more than once */
	assert_int_equal(n, 3);
	assert_change(&ch[0], 0, INC_ESCALATED, 0);
	assert_change(&ch[1], 1, INC_OPENED, 1);
	assert_change(&ch[2], 2, INC_OPENED, 2);
	free(ch);
	assert_int_equal(in.n, 3);
	assert_int_equal(in.v[0].ntasks, 4);
	assert_int_equal(in.v[0].ntimeline, 2);
	assert_string_equal(in.v[2].sig, "nfs-server-wait");
	us_free(&u);
	free(before);
	incidents_free(&in);
}

/* A warning finding opens one incident: one "opened" change naming that finding; the info
 * finding before it (index 0) does not count. */
static void test_warning_opens(void **state)
{
	(void)state;
	struct cgw_incidents in = { 0 };
	struct inc_change *ch;
	size_t n = update_each(&in, T0, (struct tf[]){
		{ 300, "frozen-app", 500.0, &sig_frozen, SEV_INFO },
		{ 1, "systemd", 21.3, &sig_fuse, SEV_WARNING } }, 2, &ch);
	assert_int_equal(n, 1);
	assert_change(&ch[0], 0, INC_OPENED, 1);
	free(ch);

	assert_int_equal(in.n, 1);
	const struct incident *i = &in.v[0];
	assert_string_equal(i->id, T0_ID "-fuse-wait");
	assert_string_equal(i->sig, "fuse-wait");
	assert_int_equal(i->severity, SEV_WARNING);
	assert_false(i->escalated);
	assert_near(i->opened_at, T0, 1e-6);
	assert_near(i->escalated_at, 0, 0);
	assert_near(i->resolved_at, 0, 0);
	assert_near(i->last_event_at, T0, 1e-6);
	assert_int_equal(i->ntasks, 1);
	assert_int_equal(i->ntasks_total, 1);
	assert_int_equal(i->tasks[0].tid, 1);
	assert_int_equal(i->tasks[0].tgid, 1);
	assert_int_equal(i->tasks[0].start_ticks, 1001);
	assert_int_equal(i->tasks[0].comm_len, 7);
	assert_bytes_equal(i->tasks[0].comm, "systemd", 7);
	assert_string_equal(i->tasks[0].unit, "unit-1.service");
	assert_near(i->tasks[0].blocked_s, 21.3, 1e-9);
	assert_near(i->tasks[0].resolved_at, 0, 0);
	assert_int_equal(i->ntimeline, 1);
	assert_near(i->timeline[0].time, T0, 1e-6);
	assert_int_equal(i->timeline[0].state, INC_OPENED);
	assert_int_equal(i->timeline[0].severity, SEV_WARNING);
	assert_int_equal(i->timeline[0].ntasks, 1);
	assert_near(i->timeline[0].blocked_s, 21.3, 1e-9);
	assert_int_equal(i->reports, 0);
	incidents_free(&in);
	assert_int_equal(in.n, 0);
}

/* The same finding again, with no time passed (or less than update_s): no change, but the
 * task's longest blocked time grows. */
static void test_same_finding_no_change(void **state)
{
	(void)state;
	struct cgw_incidents in = { 0 };
	scan1_n(&in, T0, &sig_fuse, SEV_WARNING, (struct ts[]){ { 1, 1, 21.3 } }, 1, 1);
	scan1_quiet(&in, T0, &sig_fuse, SEV_WARNING, (struct ts[]){ { 1, 1, 21.3 } }, 1);
	scan1_quiet(&in, T0 + 5, &sig_fuse, SEV_WARNING, (struct ts[]){ { 1, 1, 26.3 } }, 1);
	assert_int_equal(in.n, 1);
	assert_near(in.v[0].tasks[0].blocked_s, 26.3, 1e-9);
	assert_int_equal(in.v[0].ntimeline, 1);
	assert_near(in.v[0].last_event_at, T0, 1e-6);
	assert_near(in.v[0].resolved_at, 0, 0);
	incidents_free(&in);
}

/* Past the critical threshold (the finding turns critical): one "escalated", never again,
 * later changes are "updated". */
static void test_escalates_once(void **state)
{
	(void)state;
	struct cgw_incidents in = { 0 };
	scan1_n(&in, T0, &sig_fuse, SEV_WARNING, (struct ts[]){ { 1, 1, 21.3 } }, 1, 1);
	scan1_quiet(&in, T0 + 20, &sig_fuse, SEV_WARNING, (struct ts[]){ { 1, 1, 41.3 } }, 1);
	scan1_one(&in, T0 + 40, &sig_fuse, SEV_CRITICAL, (struct ts[]){ { 1, 1, 61.3 } }, 1, 0,
	          INC_ESCALATED, 0);
	const struct incident *i = &in.v[0];
	assert_true(i->escalated);
	assert_near(i->escalated_at, T0 + 40, 1e-6);
	assert_int_equal(i->severity, SEV_CRITICAL);
	assert_int_equal(i->ntimeline, 2);
	assert_int_equal(i->timeline[1].state, INC_ESCALATED);
	assert_int_equal(i->timeline[1].severity, SEV_CRITICAL);
	assert_near(i->timeline[1].blocked_s, 61.3, 1e-9);

	/* still critical: nothing until the update interval, then "updated", not "escalated" */
	for (double t = 45; t < 40 + UPDATE_S; t += 5)
		scan1_quiet(&in, T0 + t, &sig_fuse, SEV_CRITICAL,
		            (struct ts[]){ { 1, 1, 21.3 + t } }, 1);
	scan1_one(&in, T0 + 40 + UPDATE_S, &sig_fuse, SEV_CRITICAL,
	          (struct ts[]){ { 1, 1, 361.3 } }, 1, 0, INC_UPDATED, 0);
	assert_near(in.v[0].escalated_at, T0 + 40, 1e-6);
	assert_int_equal(in.v[0].severity, SEV_CRITICAL);
	/* a critical finding falling back to warning does not lower it, nor escalate again */
	scan1_quiet(&in, T0 + 40 + UPDATE_S + 5, &sig_fuse, SEV_WARNING,
	            (struct ts[]){ { 1, 1, 366.3 } }, 1);
	assert_int_equal(in.v[0].severity, SEV_CRITICAL);
	size_t escalations = 0;
	for (size_t k = 0; k < in.v[0].ntimeline; k++)
		escalations += in.v[0].timeline[k].state == INC_ESCALATED;
	assert_int_equal(escalations, 1);
	incidents_free(&in);
}

/* "updated" at most once per update_s, measured from the last change. */
static void test_update_interval(void **state)
{
	(void)state;
	struct cgw_incidents in = { 0 };
	struct inc_change *ch;
	scan1_n(&in, T0, &sig_fuse, SEV_WARNING, (struct ts[]){ { 1, 1, 21.0 } }, 1, 1);
	size_t updates = 0;
	double when[4];
	for (double t = 5; t <= 900; t += 5) {
		size_t n = scan1(&in, T0 + t, &sig_fuse, SEV_WARNING,
		                 (struct ts[]){ { 1, 1, 21.0 + t } }, 1, &ch);
		assert_true(n <= 1);
		if (n) {
			assert_change(&ch[0], 0, INC_UPDATED, 0);
			assert_true(updates < ARRAY_SIZE(when));
			when[updates++] = t;
		}
		free(ch);
	}
	assert_int_equal(updates, 3);
	assert_near(when[0], 300, 1e-9);
	assert_near(when[1], 600, 1e-9);
	assert_near(when[2], 900, 1e-9);
	const struct incident *i = &in.v[0];
	assert_int_equal(i->ntimeline, 4);
	assert_int_equal(i->timeline[3].state, INC_UPDATED);
	assert_near(i->timeline[3].time, T0 + 900, 1e-6);
	assert_near(i->timeline[3].blocked_s, 921.0, 1e-9);
	assert_near(i->last_event_at, T0 + 900, 1e-6);
	assert_false(i->escalated);
	incidents_free(&in);
}

/* A finding critical from the start opens escalated, with one change only, and is never
 * escalated again. */
static void test_opens_critical(void **state)
{
	(void)state;
	struct cgw_incidents in = { 0 };
	scan1_one(&in, T0, &sig_nfs, SEV_CRITICAL, (struct ts[]){ { 7, 7, 65.0 } }, 1, 0,
	          INC_OPENED, 0);
	const struct incident *i = &in.v[0];
	assert_true(i->escalated);
	assert_near(i->escalated_at, T0, 1e-6);
	assert_int_equal(i->severity, SEV_CRITICAL);
	assert_int_equal(i->ntimeline, 1);
	assert_int_equal(i->timeline[0].state, INC_OPENED);
	assert_int_equal(i->timeline[0].severity, SEV_CRITICAL);
	for (double t = 5; t < UPDATE_S; t += 5)
		scan1_quiet(&in, T0 + t, &sig_nfs, SEV_CRITICAL, (struct ts[]){ { 7, 7, 65.0 + t } }, 1);
	incidents_free(&in);
}

/* The finding gone: "resolved" (no finding), every task resolved at now, durations the
 * longest seen; once only. */
static void test_resolves(void **state)
{
	(void)state;
	struct cgw_incidents in = { 0 };
	struct inc_change *ch;
	scan1_n(&in, T0, &sig_fuse, SEV_WARNING, (struct ts[]){ { 1, 1, 30.0 }, { 2, 2, 25.0 } }, 2,
	        1);
	scan1_quiet(&in, T0 + 10, &sig_fuse, SEV_WARNING,
	            (struct ts[]){ { 1, 1, 40.0 }, { 2, 2, 35.0 } }, 2);
	/* task 1 ran for a moment between scans and is blocked again: its longest stays */
	scan1_quiet(&in, T0 + 12, &sig_fuse, SEV_WARNING,
	            (struct ts[]){ { 1, 1, 21.0 }, { 2, 2, 37.0 } }, 2);
	assert_near(in.v[0].tasks[0].blocked_s, 40.0, 1e-9);
	assert_int_equal(scan_empty(&in, T0 + 15, &ch), 1);
	assert_change(&ch[0], 0, INC_RESOLVED, -1);
	free(ch);
	const struct incident *i = &in.v[0];
	assert_near(i->resolved_at, T0 + 15, 1e-6);
	assert_int_equal(i->ntasks, 2);
	assert_near(i->tasks[0].resolved_at, T0 + 15, 1e-6);
	assert_near(i->tasks[1].resolved_at, T0 + 15, 1e-6);
	assert_near(i->tasks[0].blocked_s, 40.0, 1e-9);
	assert_near(i->tasks[1].blocked_s, 37.0, 1e-9);
	assert_int_equal(i->ntimeline, 2);
	assert_int_equal(i->timeline[1].state, INC_RESOLVED);
	assert_int_equal(i->timeline[1].ntasks, 0);
	assert_near(i->timeline[1].blocked_s, 40.0, 1e-9);
	/* resolved once: a second empty scan before pruning changes nothing */
	scan1_n(&in, T0 + 20, NULL, SEV_NONE, NULL, 0, 0);
	assert_near(in.v[0].resolved_at, T0 + 15, 1e-6);
	incidents_prune(&in);
	assert_int_equal(in.n, 0);
	incidents_free(&in);
}

/* Info findings (frozen, vfork-wait) never open an incident, however long. */
static void test_info_never_opens(void **state)
{
	(void)state;
	struct cgw_incidents in = { 0 };
	for (double t = 0; t <= 2 * UPDATE_S; t += 60)
		scan1_quiet(&in, T0 + t, &sig_frozen, SEV_INFO, (struct ts[]){ { 9, 9, 600 + t } }, 1);
	assert_int_equal(in.n, 0);
	incidents_free(&in);
}

/* Two signatures are two incidents, each with its own finding index and id; one resolving
 * leaves the other open. */
static void test_two_signatures(void **state)
{
	(void)state;
	struct cgw_incidents in = { 0 };
	struct inc_change *ch;
	assert_int_equal(update_each(&in, T0, (struct tf[]){
		{ 20, "systemd", 70.0, &sig_cpuset, SEV_CRITICAL },
		{ 10, "ls", 21.0, &sig_fuse, SEV_WARNING } }, 2, &ch), 2);
	assert_change(&ch[0], 0, INC_OPENED, 0);
	assert_change(&ch[1], 1, INC_OPENED, 1);
	free(ch);
	assert_int_equal(in.n, 2);
	assert_string_equal(in.v[0].id, T0_ID "-cpuset-migrate-wait");
	assert_string_equal(in.v[1].id, T0_ID "-fuse-wait");
	assert_int_equal(in.v[0].severity, SEV_CRITICAL);
	assert_int_equal(in.v[1].severity, SEV_WARNING);
	assert_int_equal(in.v[0].tasks[0].tid, 20);
	assert_int_equal(in.v[1].tasks[0].tid, 10);

	/* only fuse-wait left: cpuset resolves (incident 0), fuse-wait stays open */
	scan1_one(&in, T0 + 5, &sig_fuse, SEV_WARNING, (struct ts[]){ { 10, 10, 26.0 } }, 1, 0,
	          INC_RESOLVED, -1);
	assert_true(in.v[0].resolved_at > 0);
	assert_near(in.v[1].resolved_at, 0, 0);
	incidents_prune(&in);
	assert_int_equal(in.n, 1);
	assert_string_equal(in.v[0].id, T0_ID "-fuse-wait");
	incidents_free(&in);
}

/* A task recovering while others stay: the incident stays open, that task gets resolved_at
 * (once, not moved by later scans), the others do not. */
static void test_task_recovers(void **state)
{
	(void)state;
	struct cgw_incidents in = { 0 };
	struct inc_change *ch;
	scan1_n(&in, T0, &sig_fuse, SEV_WARNING, (struct ts[]){ { 1, 1, 40.0 }, { 2, 2, 21.0 } }, 2,
	        1);
	scan1_quiet(&in, T0 + 10, &sig_fuse, SEV_WARNING, (struct ts[]){ { 2, 2, 31.0 } }, 1);
	const struct incident *i = &in.v[0];
	assert_near(i->resolved_at, 0, 0);
	assert_int_equal(i->ntasks, 2);
	assert_int_equal(i->tasks[0].tid, 1);
	assert_near(i->tasks[0].resolved_at, T0 + 10, 1e-6);
	assert_near(i->tasks[0].blocked_s, 40.0, 1e-9);
	assert_near(i->tasks[1].resolved_at, 0, 0);
	assert_int_equal(incident_lead(i)->tid, 2);
	scan1_quiet(&in, T0 + 20, &sig_fuse, SEV_WARNING, (struct ts[]){ { 2, 2, 41.0 } }, 1);
	assert_near(in.v[0].tasks[0].resolved_at, T0 + 10, 1e-6);
	/* the same tid with other start ticks is another task (tids are reused) */
	struct unit_scan u;
	us_init(&u);
	size_t idx[2];
	idx[0] = us_task(&u, 2, 2, "task-2", 6, 51.0);
	idx[1] = us_task(&u, 1, 1, "reused", 6, 22.0);
	u.scan.t[idx[1]].start_ticks = 99999;
	us_finding(&u, &sig_fuse, SEV_WARNING, 2, idx);
	assert_int_equal(incidents_update(&in, &u.rep, T0 + 30, UPDATE_S, &ch), 0);
	free(ch);
	us_free(&u);
	assert_int_equal(in.v[0].ntasks, 3);
	assert_int_equal(in.v[0].ntasks_total, 3);
	assert_near(in.v[0].tasks[0].resolved_at, T0 + 10, 1e-6);
	assert_int_equal(in.v[0].tasks[2].start_ticks, 99999);
	/* resolving stamps only those still stuck */
	scan1_n(&in, T0 + 40, NULL, SEV_NONE, NULL, 0, 1);
	assert_near(in.v[0].tasks[0].resolved_at, T0 + 10, 1e-6);
	assert_near(in.v[0].tasks[1].resolved_at, T0 + 40, 1e-6);
	assert_near(in.v[0].tasks[2].resolved_at, T0 + 40, 1e-6);
	incidents_free(&in);
}

/* More than INC_MAX_TASKS tasks: INC_MAX_TASKS remembered (the first ones), all counted. */
static void test_task_cap(void **state)
{
	(void)state;
	enum { N = INC_MAX_TASKS + 2 };
	struct ts t[N];
	fill_tasks(t, N, 0.1);
	struct cgw_incidents in = { 0 };
	scan1_n(&in, T0, &sig_fuse, SEV_WARNING, t, N, 1);
	size_t remembered = in.v[0].ntasks, total = in.v[0].ntasks_total;
	int last_tid = in.v[0].tasks[remembered - 1].tid;
	incidents_free(&in);
	assert_int_equal(remembered, INC_MAX_TASKS);
	assert_int_equal(total, N);
	assert_int_equal(last_tid, 100 + INC_MAX_TASKS - 1);
}

/* The tasks past INC_MAX_TASKS are counted once, however many scans see them; a new one
 * is one more. */
static void test_task_cap_rescan(void **state)
{
	(void)state;
	enum { N = INC_MAX_TASKS + 2 };
	struct ts t[N + 1];
	fill_tasks(t, N + 1, 0.1);
	struct cgw_incidents in = { 0 };
	scan1_n(&in, T0, &sig_fuse, SEV_WARNING, t, N, 1);
	/* checked after freeing: a failure here must not also leak */
	scan1_quiet(&in, T0 + 5, &sig_fuse, SEV_WARNING, t, N);
	scan1_quiet(&in, T0 + 10, &sig_fuse, SEV_WARNING, t, N);
	size_t remembered = in.v[0].ntasks, total = in.v[0].ntasks_total;
	scan1_quiet(&in, T0 + 15, &sig_fuse, SEV_WARNING, t, N + 1);
	size_t total_plus = in.v[0].ntasks_total;
	incidents_free(&in);
	assert_int_equal(remembered, INC_MAX_TASKS);
	if (total != N)
		print_error("ntasks_total %zu after 3 scans of the same %d tasks\n", total, N);
	assert_int_equal(total, N);
	assert_int_equal(total_plus, N + 1);
}

/* The same past the cap across a restart (incidents_save, incidents_load): the tasks not
 * remembered in detail are not counted a second time. */
static void test_task_cap_after_restart(void **state)
{
	(void)state;
	enum { N = INC_MAX_TASKS + 2 };
	struct ts t[N];
	fill_tasks(t, N, 0.1);
	struct cgw_incidents in = { 0 }, got = { 0 };
	scan1_n(&in, T0, &sig_fuse, SEV_WARNING, t, N, 1);
	restart(&in, &got);
	assert_int_equal(got.n, 1);
	scan1_quiet(&got, T0 + 5, &sig_fuse, SEV_WARNING, t, N);
	size_t total = got.v[0].ntasks_total;
	incidents_free(&got);
	if (total != N)
		print_error("ntasks_total %zu after a restart, %d tasks\n", total, N);
	assert_int_equal(total, N);
}

/* The same with more tasks past the cap than the state file lists (INC_MAX_OVERFLOW_SAVED):
 * those counted but not listed are not counted again after the restart either. */
static void test_task_cap_after_restart_unlisted(void **state)
{
	(void)state;
	enum { N = INC_MAX_TASKS + INC_MAX_OVERFLOW_SAVED + 300 };
	struct ts *t = xcalloc(N, sizeof(*t));
	fill_tasks(t, N, 0.001);
	struct cgw_incidents in = { 0 }, got = { 0 };
	scan1_n(&in, T0, &sig_fuse, SEV_WARNING, t, N, 1);
	assert_int_equal(in.v[0].ntasks_total, N);
	restart(&in, &got);
	assert_int_equal(got.n, 1);
	assert_int_equal(got.v[0].noverflow, INC_MAX_OVERFLOW_SAVED);
	scan1_quiet(&got, T0 + 5, &sig_fuse, SEV_WARNING, t, N);
	size_t total = got.v[0].ntasks_total;
	/* and the scan after: the list is whole again, one new task counts once */
	t[N - 1].tid = t[N - 1].tgid = 100 + N;
	scan1_quiet(&got, T0 + 10, &sig_fuse, SEV_WARNING, t, N);
	size_t total2 = got.v[0].ntasks_total;
	incidents_free(&got);
	free(t);
	if (total != N)
		print_error("ntasks_total %zu after a restart, %d tasks\n", total, N);
	assert_int_equal(total, N);
	assert_int_equal(total2, N + 1);
}

/* The timeline keeps INC_MAX_TIMELINE events: the first ("opened") and the latest. */
static void test_timeline_cap(void **state)
{
	(void)state;
	struct cgw_incidents in = { 0 };
	scan1_n(&in, T0, &sig_fuse, SEV_WARNING, (struct ts[]){ { 1, 1, 21 } }, 1, 1);
	int events = INC_MAX_TIMELINE + 5;
	for (int k = 1; k < events; k++) {
		double t = k * UPDATE_S;
		scan1_n(&in, T0 + t, &sig_fuse, SEV_WARNING, (struct ts[]){ { 1, 1, 21 + t } }, 1,
		        1);
	}
	const struct incident *i = &in.v[0];
	assert_int_equal(i->ntimeline, INC_MAX_TIMELINE);
	assert_int_equal(i->timeline[0].state, INC_OPENED);
	assert_near(i->timeline[0].time, T0, 1e-6);
	/* then the latest INC_MAX_TIMELINE - 1 updates, in order */
	for (size_t k = 1; k < INC_MAX_TIMELINE; k++) {
		double want = (double)(events - INC_MAX_TIMELINE + (int)k) * UPDATE_S;
		assert_int_equal(i->timeline[k].state, INC_UPDATED);
		assert_near(i->timeline[k].time, T0 + want, 1e-6);
		assert_near(i->timeline[k].blocked_s, 21 + want, 1e-6);
	}
	incidents_free(&in);
}

/* Ids: the UTC second of opening, then the signature id. */
static void test_id_format(void **state)
{
	(void)state;
	const struct { double now; const struct cgw_sig *sig; const char *id; } c[] = {
		/* fractions of a second are cut, not rounded */
		{ T0 + 0.9, &sig_fuse, "20261130T071622Z-fuse-wait" },
		{ 1798859045.5 /* 2027-01-02T03:04:05Z */, &sig_cpuset,
		  "20270102T030405Z-cpuset-migrate-wait" },
	};
	for (size_t k = 0; k < ARRAY_SIZE(c); k++) {
		struct cgw_incidents in = { 0 };
		scan1_n(&in, c[k].now, c[k].sig, SEV_WARNING, (struct ts[]){ { 1, 1, 21 } }, 1, 1);
		assert_int_equal(in.n, 1);
		assert_string_equal(in.v[0].id, c[k].id);
		incidents_free(&in);
	}
}

/* An id already taken gets "-2", then "-3". */
static void test_id_suffix_when_taken(void **state)
{
	(void)state;
	struct cgw_incidents in = { 0 };
	/* two open incidents (of other signatures, e.g. carried over from the state file) hold
	 * the id fuse-wait would get this second, and its "-2" */
	in.v = xcalloc(2, sizeof(*in.v));
	in.n = 2;
	snprintf(in.v[0].id, sizeof(in.v[0].id), T0_ID "-fuse-wait");
	snprintf(in.v[0].sig, sizeof(in.v[0].sig), "other");
	snprintf(in.v[1].id, sizeof(in.v[1].id), T0_ID "-fuse-wait-2");
	snprintf(in.v[1].sig, sizeof(in.v[1].sig), "other-2");
	in.v[0].opened_at = in.v[1].opened_at = in.v[0].last_event_at = in.v[1].last_event_at = T0;

	struct unit_scan u;
	us_init(&u);
	size_t a = us_task(&u, 1, 1, "x", 1, 21);
	size_t b = us_task(&u, 2, 2, "y", 1, 21);
	size_t c = us_task(&u, 3, 3, "z", 1, 21);
	us_finding(&u, &sig_fuse, SEV_WARNING, 1, &a);
	us_finding(&u, &sig_frozen, SEV_INFO, 1, &b);
	struct cgw_sig other = unit_sig("other", "o", "o", SEV_WARNING);
	struct cgw_sig other2 = unit_sig("other-2", "o", "o", SEV_WARNING);
	us_finding(&u, &other, SEV_WARNING, 1, &c);
	us_finding(&u, &other2, SEV_WARNING, 1, &c);
	struct inc_change *ch;
	size_t n = incidents_update(&in, &u.rep, T0 + 0.5, UPDATE_S, &ch);
	us_free(&u);
	assert_int_equal(n, 1);
	assert_change(&ch[0], 2, INC_OPENED, 0);
	free(ch);
	assert_int_equal(in.n, 3);
	assert_string_equal(in.v[2].id, T0_ID "-fuse-wait-3");
	/* the others keep theirs */
	assert_string_equal(in.v[0].id, T0_ID "-fuse-wait");
	assert_string_equal(in.v[1].id, T0_ID "-fuse-wait-2");
	incidents_free(&in);
}

/* A signature id longer than incident.sig (the library sets no limit on ids): still one
 * incident over many scans, not a new one each scan. */
static void test_long_signature_id(void **state)
{
	(void)state;
	char id[100];
	memset(id, 'x', 80);
	memcpy(id, "local-", 6);
	id[80] = '\0';
	struct cgw_sig sig = unit_sig(id, "Long", "A long id", SEV_WARNING);
	struct cgw_incidents in = { 0 };
	struct inc_change *ch;
	scan1_n(&in, T0, &sig, SEV_WARNING, (struct ts[]){ { 1, 1, 21 } }, 1, 1);
	size_t n5 = scan1(&in, T0 + 5, &sig, SEV_WARNING, (struct ts[]){ { 1, 1, 26 } }, 1, &ch);
	enum inc_state first = n5 ? ch[0].state : INC_NONE;
	free(ch);
	size_t incidents = in.n;
	incidents_free(&in);
	if (n5)
		print_error("the same finding 5 s later gave %zu change(s), the first \"%s\"; "
		            "%zu incidents\n", n5, inc_state_name(first), incidents);
	assert_int_equal(n5, 0);
	assert_int_equal(incidents, 1);
}

/* incidents_prune drops the resolved incidents and keeps the order of the others. */
static void test_prune(void **state)
{
	(void)state;
	struct cgw_incidents in = { 0 };
	struct inc_change *ch;
	assert_int_equal(update_each(&in, T0, (struct tf[]){
		{ 1, "a", 21, &sig_fuse, SEV_WARNING },
		{ 2, "b", 21, &sig_cpuset, SEV_WARNING },
		{ 3, "c", 21, &sig_nfs, SEV_CRITICAL } }, 3, &ch), 3);
	free(ch);
	incidents_prune(&in);                     /* none resolved: nothing to do */
	assert_int_equal(in.n, 3);
	/* cpuset gone */
	assert_int_equal(update_each(&in, T0 + 5, (struct tf[]){
		{ 1, "a", 26, &sig_fuse, SEV_WARNING },
		{ 3, "c", 26, &sig_nfs, SEV_CRITICAL } }, 2, &ch), 1);
	assert_change(&ch[0], 1, INC_RESOLVED, -1);
	free(ch);
	incidents_prune(&in);
	assert_int_equal(in.n, 2);
	assert_string_equal(in.v[0].sig, "fuse-wait");
	assert_string_equal(in.v[1].sig, "nfs-server-wait");
	assert_int_equal(in.v[1].tasks[0].tid, 3);
	scan1_n(&in, T0 + 10, NULL, SEV_NONE, NULL, 0, 2);
	incidents_prune(&in);
	assert_int_equal(in.n, 0);
	incidents_free(&in);
}

/* incident_lead: the longest-blocked task still stuck while the incident is open; the
 * longest of all once it is resolved. */
static void test_lead(void **state)
{
	(void)state;
	struct inc_task t[4];
	memset(t, 0, sizeof(t));
	t[0] = (struct inc_task){ .tid = 10, .tgid = 10, .blocked_s = 50 };
	t[1] = (struct inc_task){ .tid = 11, .tgid = 11, .blocked_s = 100, .resolved_at = T0 };
	t[2] = (struct inc_task){ .tid = 12, .tgid = 12, .blocked_s = 70 };
	t[3] = (struct inc_task){ .tid = 13, .tgid = 13, .blocked_s = 60 };
	struct incident i;
	memset(&i, 0, sizeof(i));
	i.tasks = t;
	i.ntasks = 4;
	assert_int_equal(incident_lead(&i)->tid, 12);
	i.resolved_at = T0 + 5;
	assert_int_equal(incident_lead(&i)->tid, 11);
	/* open, every remembered task recovered (the stuck ones were past the cap): the first */
	i.resolved_at = 0;
	for (int k = 0; k < 4; k++)
		t[k].resolved_at = T0;
	assert_ptr_equal(incident_lead(&i), &t[0]);
	i.ntasks = 0;
	assert_null(incident_lead(&i));
}

/* ---- the state file ---- */

/* Open incidents with a thread, a comm holding '\n' and 0xff, an escalation and a recovered
 * task; a third one resolved (never saved). */
static void make_incidents(struct cgw_incidents *in)
{
	struct unit_scan u;
	us_init(&u);
	size_t idx[3];
	idx[0] = us_task(&u, 4242, 4200, "a\nb\xff" "c", 5, 21.5);
	idx[1] = us_task(&u, 1, 1, "systemd", 7, 25.3);
	idx[2] = us_task(&u, 77, 77, "gone", 4, 30);
	us_finding(&u, &sig_fuse, SEV_WARNING, 2, idx);
	us_finding(&u, &sig_cpuset, SEV_WARNING, 1, &idx[1]);
	us_finding(&u, &sig_nfs, SEV_CRITICAL, 1, &idx[2]);
	struct inc_change *ch;
	assert_int_equal(incidents_update(in, &u.rep, T0 + 0.25, UPDATE_S, &ch), 3);
	free(ch);
	us_free(&u);
	/* fuse-wait escalates with task 4242 only (systemd recovered), nfs resolves */
	us_init(&u);
	idx[0] = us_task(&u, 4242, 4200, "a\nb\xff" "c", 5, 61.8);
	idx[1] = us_task(&u, 1, 1, "systemd", 7, 30.3);
	us_finding(&u, &sig_fuse, SEV_CRITICAL, 1, &idx[0]);
	us_finding(&u, &sig_cpuset, SEV_WARNING, 1, &idx[1]);
	assert_int_equal(incidents_update(in, &u.rep, T0 + 40.5, UPDATE_S, &ch), 2);
	assert_change(&ch[0], 0, INC_ESCALATED, 0);
	assert_change(&ch[1], 2, INC_RESOLVED, -1);
	free(ch);
	us_free(&u);
	in->v[0].reports = 3;
	snprintf(in->v[0].report, sizeof(in->v[0].report), "/var/log/cgwatch/%s-02-escalated.json",
	         in->v[0].id);
	in->v[0].ntasks_total = 5;               /* as if three were past the cap */
}

/* make_incidents, saved for boot "boot-1" to the state file path in a new directory dir. */
static void saved_incidents(struct cgw_incidents *in, char *dir, char *path)
{
	state_path(dir, path);
	make_incidents(in);
	assert_int_equal(incidents_save(in, path, "boot-1"), 0);
}

static void assert_incident_equal(const struct incident *a, const struct incident *b)
{
	assert_string_equal(a->id, b->id);
	assert_string_equal(a->sig, b->sig);
	assert_int_equal(a->severity, b->severity);
	assert_int_equal(a->escalated, b->escalated);
	assert_near(a->opened_at, b->opened_at, 1e-6);
	assert_near(a->escalated_at, b->escalated_at, 1e-6);
	assert_near(a->resolved_at, b->resolved_at, 0);
	assert_near(a->last_event_at, b->last_event_at, 1e-6);
	assert_int_equal(a->ntasks_total, b->ntasks_total);
	assert_int_equal(a->reports, b->reports);
	assert_string_equal(a->report, b->report);
	assert_int_equal(a->ntasks, b->ntasks);
	for (size_t k = 0; k < a->ntasks; k++) {
		const struct inc_task *x = &a->tasks[k], *y = &b->tasks[k];
		assert_int_equal(x->tid, y->tid);
		assert_int_equal(x->tgid, y->tgid);
		assert_int_equal(x->start_ticks, y->start_ticks);
		assert_int_equal(x->comm_len, y->comm_len);
		assert_bytes_equal(x->comm, y->comm, x->comm_len);
		assert_string_equal(x->unit, y->unit);
		assert_near(x->blocked_s, y->blocked_s, 1e-9);
		assert_near(x->resolved_at, y->resolved_at, 1e-6);
	}
	assert_int_equal(a->ntimeline, b->ntimeline);
	for (size_t k = 0; k < a->ntimeline; k++) {
		const struct inc_event *x = &a->timeline[k], *y = &b->timeline[k];
		assert_near(x->time, y->time, 1e-6);
		assert_int_equal(x->state, y->state);
		assert_int_equal(x->severity, y->severity);
		assert_int_equal(x->ntasks, y->ntasks);
		assert_near(x->blocked_s, y->blocked_s, 1e-9);
	}
}

/* Save and load give back the open incidents, byte for byte; the resolved one is not saved;
 * after the load, the same findings change nothing (no second "opened"). */
static void test_save_load_roundtrip(void **state)
{
	(void)state;
	char dir[64], path[128];
	struct cgw_incidents in = { 0 };
	saved_incidents(&in, dir, path);
	assert_false(tmpdir_has(dir, "incidents.json.tmp"));
	struct stat st;
	assert_int_equal(stat(path, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);          /* it quotes comms and units */

	struct cgw_incidents got = { 0 };
	unit_load_clean(&got, path, "boot-1");
	assert_int_equal(got.n, 2);
	assert_incident_equal(&got.v[0], &in.v[0]);
	assert_incident_equal(&got.v[1], &in.v[1]);
	/* the pieces that matter, spelled out */
	assert_string_equal(got.v[0].id, T0_ID "-fuse-wait");
	assert_int_equal(got.v[0].tasks[0].comm_len, 5);
	assert_bytes_equal(got.v[0].tasks[0].comm, "a\nb\xff" "c", 5);
	assert_int_equal(got.v[0].tasks[0].tgid, 4200);
	assert_near(got.v[0].tasks[1].resolved_at, T0 + 40.5, 1e-6);
	assert_int_equal(got.v[0].ntimeline, 2);
	assert_int_equal(got.v[0].timeline[1].state, INC_ESCALATED);
	assert_true(got.v[0].escalated);
	assert_int_equal(got.v[0].ntasks_total, 5);

	/* a restart: the same findings a moment later change nothing */
	struct unit_scan u;
	us_init(&u);
	size_t idx[2];
	idx[0] = us_task(&u, 4242, 4200, "a\nb\xff" "c", 5, 66.8);
	idx[1] = us_task(&u, 1, 1, "systemd", 7, 35.3);
	us_finding(&u, &sig_fuse, SEV_CRITICAL, 1, &idx[0]);
	us_finding(&u, &sig_cpuset, SEV_WARNING, 1, &idx[1]);
	struct inc_change *ch;
	assert_int_equal(incidents_update(&got, &u.rep, T0 + 45.5, UPDATE_S, &ch), 0);
	free(ch);
	us_free(&u);
	assert_int_equal(got.n, 2);
	/* one that ended while we were down resolves at the first scan */
	us_init(&u);
	idx[0] = us_task(&u, 4242, 4200, "a\nb\xff" "c", 5, 71.8);
	us_finding(&u, &sig_fuse, SEV_CRITICAL, 1, &idx[0]);
	assert_int_equal(incidents_update(&got, &u.rep, T0 + 50.5, UPDATE_S, &ch), 1);
	assert_change(&ch[0], 1, INC_RESOLVED, -1);
	free(ch);
	us_free(&u);
	incidents_free(&got);
	incidents_free(&in);
	tmpdir_remove(dir);
}

/* Incidents of another boot are dropped and counted. */
static void test_load_other_boot(void **state)
{
	(void)state;
	char dir[64], path[128];
	struct cgw_incidents in = { 0 };
	saved_incidents(&in, dir, path);
	struct cgw_incidents got = { 0 };
	size_t dropped = 0;
	struct errbuf e;
	assert_int_equal(incidents_load(&got, path, "boot-2", &dropped, errbuf_open(&e)), 0);
	errbuf_close(&e);
	assert_int_equal(got.n, 0);
	assert_int_equal(dropped, 2);
	incidents_free(&got);
	incidents_free(&in);
	tmpdir_remove(dir);
}

/* Not a state file: -EINVAL and a message naming the path; nothing loaded. */
static void test_load_garbage(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"this is not json {",
		"",
		"[1, 2, 3]",
		"{\"schema\": \"cgwatch.report/1\", \"incidents\": []}",
		"{\"schema\": \"cgwatch.state/1\", \"incidents\": {}}",
		"{\"schema\": \"cgwatch.state/1\"}",
	};
	char dir[64], path[128], want[256];
	state_path(dir, path);
	snprintf(want, sizeof(want), "%s: not a cgwatch state file", path);
	for (size_t k = 0; k < ARRAY_SIZE(bad); k++) {
		print_message("# case: %s\n", esc(bad[k]));
		tmpdir_put(dir, "incidents.json", bad[k]);
		struct cgw_incidents got = { 0 };
		size_t dropped = 7;
		struct errbuf e;
		assert_int_equal(incidents_load(&got, path, "boot-1", &dropped, errbuf_open(&e)),
		                 -EINVAL);
		assert_err_has(&e, want);
		assert_int_equal(errbuf_lines(&e), 1);
		errbuf_close(&e);
		assert_int_equal(got.n, 0);
		assert_int_equal(dropped, 0);
	}
	tmpdir_remove(dir);
}

/* No file: -ENOENT, silently. */
static void test_load_missing(void **state)
{
	(void)state;
	char dir[64], path[128];
	state_path(dir, path);
	struct cgw_incidents got = { 0 };
	size_t dropped = 7;
	struct errbuf e;
	assert_int_equal(incidents_load(&got, path, "boot-1", &dropped, errbuf_open(&e)), -ENOENT);
	assert_string_equal(errbuf_text(&e), "");
	errbuf_close(&e);
	assert_int_equal(got.n, 0);
	assert_int_equal(dropped, 0);
	tmpdir_remove(dir);
}

/* An incident without an id is skipped with a message; the others load. */
static void test_load_incomplete_incident(void **state)
{
	(void)state;
	char dir[64], path[128], want[256];
	state_path(dir, path);
	tmpdir_put(dir, "incidents.json",
	           "{\"schema\": \"cgwatch.state/1\", \"boot_id\": \"b\", \"incidents\": ["
	           "{\"signature\": \"fuse-wait\"},"
	           "{\"id\": \"" T0_ID "-x\", \"signature\": \"x\", \"severity\": 2,"
	           " \"opened_at\": 1796022982, \"last_event_at\": 1796022982,"
	           " \"tasks\": [{\"tid\": 5, \"tgid\": 5, \"comm_hex\": \"6869\"}]}]}");
	struct cgw_incidents got = { 0 };
	size_t dropped = 0;
	struct errbuf e;
	assert_int_equal(incidents_load(&got, path, "b", &dropped, errbuf_open(&e)), 0);
	snprintf(want, sizeof(want), "%s: incident 0 is incomplete", path);
	assert_err_has(&e, want);
	errbuf_close(&e);
	assert_int_equal(got.n, 1);
	assert_string_equal(got.v[0].id, T0_ID "-x");
	assert_int_equal(got.v[0].severity, SEV_WARNING);
	assert_int_equal(got.v[0].ntasks, 1);
	assert_int_equal(got.v[0].tasks[0].comm_len, 2);
	assert_bytes_equal(got.v[0].tasks[0].comm, "hi", 2);
	incidents_free(&got);
	tmpdir_remove(dir);
}

/* ---- incident_json ---- */

static const char *jfield(json_object *o, const char *k)
{
	json_object *v;
	if (!json_object_object_get_ex(o, k, &v)) {
		print_error("no \"%s\" in %s\n", k, json_object_to_json_string(o));
		fail();
	}
	return v ? json_object_to_json_string_ext(v, JSON_C_TO_STRING_PLAIN |
	                                             JSON_C_TO_STRING_NOSLASHESCAPE) : "null";
}

/* Each key kv[k][0] of o is the JSON text kv[k][1]. */
static void jstrs_are(json_object *o, const char *const (*kv)[2], size_t n)
{
	for (size_t k = 0; k < n; k++)
		assert_string_equal(jfield(o, kv[k][0]), kv[k][1]);
}
#define assert_jstrs(o, ...) jstrs_are((o), (const char *const[][2]){ __VA_ARGS__ }, \
	ARRAY_SIZE(((const char *const[][2]){ __VA_ARGS__ })))

static json_object *jget(json_object *o, const char *k)
{
	json_object *v = NULL;
	assert_true(json_object_object_get_ex(o, k, &v));
	return v;
}

/* Every field of the "incident" object, as docs/daemon.md shows it. */
static void test_incident_json(void **state)
{
	(void)state;
	struct cgw_incidents in = { 0 };
	make_incidents(&in);
	const struct incident *i = &in.v[0];
	json_object *o = incident_json(i, INC_ESCALATED);
	assert_jstrs(o,
		{ "id", "\"" T0_ID "-fuse-wait\"" },
		{ "state", "\"escalated\"" },
		{ "severity", "\"critical\"" },
		{ "signature", "\"fuse-wait\"" },
		{ "opened", "\"2026-11-30T07:16:22Z\"" },
		{ "escalated", "\"2026-11-30T07:17:02Z\"" },
		{ "resolved", "null" },
		{ "duration_s", "61.8" },
		{ "tasks_total", "5" }
	);
	json_object *tl = jget(o, "timeline");
	assert_int_equal(json_object_array_length(tl), 2);
	assert_string_equal(json_object_to_json_string_ext(json_object_array_get_idx(tl, 0),
	                                                   JSON_C_TO_STRING_PLAIN),
	                    "{\"time\":\"2026-11-30T07:16:22Z\",\"state\":\"opened\","
	                    "\"severity\":\"warning\",\"tasks\":2,\"blocked_s\":25.3}");
	assert_string_equal(json_object_to_json_string_ext(json_object_array_get_idx(tl, 1),
	                                                   JSON_C_TO_STRING_PLAIN),
	                    "{\"time\":\"2026-11-30T07:17:02Z\",\"state\":\"escalated\","
	                    "\"severity\":\"critical\",\"tasks\":1,\"blocked_s\":61.8}");
	json_object *ts = jget(o, "tasks");
	assert_int_equal(json_object_array_length(ts), 2);
	json_object *t0 = json_object_array_get_idx(ts, 0), *t1 = json_object_array_get_idx(ts, 1);
	assert_string_equal(jfield(t0, "pid"), "4200");
	assert_string_equal(jfield(t0, "tid"), "4242");
	/* the real name: the newline as it is, the byte 0xff (not UTF-8) as the text \xff */
	assert_string_equal(json_object_get_string(jget(t0, "comm")), "a\nb\\xffc");
	assert_jstrs(t0,
		{ "comm", "\"a\\nb\\\\xffc\"" },
		{ "unit", "\"unit-4200.service\"" },
		{ "blocked_s", "61.8" },
		{ "resolved", "null" }
	);
	assert_jstrs(t1,
		{ "pid", "1" },
		{ "comm", "\"systemd\"" },
		{ "blocked_s", "25.3" },
		{ "resolved", "\"2026-11-30T07:17:02Z\"" }
	);
	json_object_put(o);

	/* the not-escalated cpuset incident: escalated null; resolved after an empty scan */
	o = incident_json(&in.v[1], INC_OPENED);
	assert_jstrs(o,
		{ "state", "\"opened\"" },
		{ "severity", "\"warning\"" },
		{ "escalated", "null" }
	);
	json_object_put(o);
	scan1_n(&in, T0 + 60, NULL, SEV_NONE, NULL, 0, 2);
	o = incident_json(&in.v[1], INC_RESOLVED);
	assert_jstrs(o,
		{ "state", "\"resolved\"" },
		{ "resolved", "\"2026-11-30T07:17:22Z\"" },
		{ "duration_s", "30.3" }
	);
	ts = jget(o, "tasks");
	assert_string_equal(jfield(json_object_array_get_idx(ts, 0), "resolved"),
	                    "\"2026-11-30T07:17:22Z\"");
	tl = jget(o, "timeline");
	assert_int_equal(json_object_array_length(tl), 2);
	assert_string_equal(jfield(json_object_array_get_idx(tl, 1), "state"), "\"resolved\"");
	assert_string_equal(jfield(json_object_array_get_idx(tl, 1), "tasks"), "0");
	json_object_put(o);
	incidents_free(&in);
}

/* inc_state_name for every state and out of range. */
static void test_state_names(void **state)
{
	(void)state;
	static const struct { enum inc_state st; const char *name; } c[] = {
		{ INC_NONE, "none" }, { INC_OPENED, "opened" }, { INC_ESCALATED, "escalated" },
		{ INC_UPDATED, "updated" }, { INC_RESOLVED, "resolved" },
		{ (enum inc_state)17, "none" },
	};
	for (size_t k = 0; k < ARRAY_SIZE(c); k++)
		assert_string_equal(inc_state_name(c[k].st), c[k].name);
}

/* The recorder events one more readout may keep: a whole readout (CGW_REC_KEEP) while the open
 * incidents hold little, what is left of INC_REC_HELD_MAX past that, and INC_REC_KEEP_MIN
 * however many are held; resolved incidents' readouts still count until pruned. */
static void test_rec_keep(void **state)
{
	(void)state;
	struct cgw_incidents in = { 0 };
	assert_int_equal(incidents_rec_keep(&in), CGW_REC_KEEP);
	struct incident v[4] = { 0 };
	struct cgw_recwin w[4] = { 0 };
	in.v = v;
	in.n = 4;
	v[0].rec = &w[0];
	w[0].ev.n = 10000;
	assert_int_equal(incidents_rec_keep(&in), CGW_REC_KEEP);   /* 30,000 in all */
	v[1].rec = &w[1];
	w[1].ev.n = 25000;                 /* 35,000 held: 25,000 left */
	assert_int_equal(incidents_rec_keep(&in), CGW_REC_KEEP);
	w[1].ev.n = 35000;                 /* 45,000 held: 15,000 left */
	assert_int_equal(incidents_rec_keep(&in), 15000);
	v[2].rec = &w[2];                  /* no readout of its own: counts nothing */
	v[3].rec = &w[3];
	w[3].ev.n = 14500;                 /* 59,500 held: the floor, not 500 */
	assert_int_equal(incidents_rec_keep(&in), INC_REC_KEEP_MIN);
	w[3].ev.n = 30000;                 /* past the cap: still the floor */
	assert_int_equal(incidents_rec_keep(&in), INC_REC_KEEP_MIN);
	v[3].rec = NULL;                   /* its readout freed: 45,000 held again */
	assert_int_equal(incidents_rec_keep(&in), 15000);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_warning_opens),
		cmocka_unit_test(test_same_finding_no_change),
		cmocka_unit_test(test_escalates_once),
		cmocka_unit_test(test_update_interval),
		cmocka_unit_test(test_opens_critical),
		cmocka_unit_test(test_resolves),
		cmocka_unit_test(test_info_never_opens),
		cmocka_unit_test(test_two_signatures),
		cmocka_unit_test(test_task_recovers),
		cmocka_unit_test(test_task_cap),
		cmocka_unit_test(test_task_cap_rescan),
		cmocka_unit_test(test_task_cap_after_restart),
		cmocka_unit_test(test_task_cap_after_restart_unlisted),
		cmocka_unit_test(test_timeline_cap),
		cmocka_unit_test(test_id_format),
		cmocka_unit_test(test_id_suffix_when_taken),
		cmocka_unit_test(test_long_signature_id),
		cmocka_unit_test(test_prune),
		cmocka_unit_test(test_lead),
		cmocka_unit_test(test_save_load_roundtrip),
		cmocka_unit_test(test_load_other_boot),
		cmocka_unit_test(test_load_garbage),
		cmocka_unit_test(test_load_missing),
		cmocka_unit_test(test_load_incomplete_incident),
		cmocka_unit_test(test_incident_json),
		cmocka_unit_test(test_update_out_of_memory),
		cmocka_unit_test(test_load_out_of_memory),
		cmocka_unit_test(test_state_names),
		cmocka_unit_test(test_rec_keep),
	};
	return tmpdir_cleanup_all(cmocka_run_group_tests(tests, setup_sigs, NULL));
}
