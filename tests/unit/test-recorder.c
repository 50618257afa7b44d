/* test-recorder.c: the flight recorder's edges that need no kernel (source-recorder.c), on a
 * directory standing in for tracefs: no tracefs, a name that could leave instances/, an
 * instance directory whose control files are missing (a start that fails leaves nothing
 * behind), a stale instance that cannot be removed, and reads and stops of a recorder that
 * never started; a readout larger than a read's chunk, whole or its newest kept; an instance
 * made elsewhere, used; one owner per instance. The live behaviour is tests/live/recorder.sh
 * and tests/daemon/recowner.sh. */
#include <sys/stat.h>

#include "unit.h"

static char root[256];

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "%s/cgw-rec.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(root) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	dl_reset();                            /* the deadline worker exits: valgrind sees no thread */
	usleep(100000);
	return remove_tree(root);
}

static void test_errors(void **state)
{
	(void)state;
	struct cgw_recorder r;
	struct recorder_opts o = { .tracefs = root, .run_dir = root, .timeout_ms = 2000 };
	/* no instances/ directory: not a tracefs */
	assert_int_equal(recorder_start(&o, &r), -ENOENT);
	assert_string_equal(r.dir, "");
	char p[512];
	snprintf(p, sizeof(p), "%s/instances", root);
	assert_int_equal(mkdir(p, 0700), 0);
	/* names that are not one path component */
	const char *bad[] = { "", ".", "..", "../x", "a/b", "a b", "x\n" };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		o.name = bad[i];
		assert_int_equal(recorder_start(&o, &r), -EINVAL);
	}
	/* a directory that is no instance: tracing_on missing, the start fails and removes it */
	o.name = "t1";
	assert_int_equal(recorder_start(&o, &r), -ENOENT);
	assert_string_equal(r.dir, "");
	snprintf(p, sizeof(p), "%s/instances/t1", root);
	assert_int_equal(access(p, F_OK), -1);
	/* a stale instance that cannot be removed: said, not replaced */
	assert_int_equal(mkdir(p, 0700), 0);
	char f[600];
	snprintf(f, sizeof(f), "%s/keep", p);
	FILE *fp = fopen(f, "w");
	assert_non_null(fp);
	fclose(fp);
	assert_int_equal(recorder_start(&o, &r), -ENOTEMPTY);
	assert_int_equal(access(f, F_OK), 0);
	/* never started */
	struct cgw_trace_events ev = { 0 };
	memset(&r, 0, sizeof(r));
	assert_int_equal(recorder_read(&r, 60, &ev), -ENOENT);
	assert_int_equal(ev.n, 0);
	assert_int_equal(recorder_stop(&r), 0);
	/* a stop removes NAME-switch with NAME (`cgwatch recorder stop` after a daemon that
	 * recorded sched_switch) */
	char d2[400], d3[400];
	snprintf(d2, sizeof(d2), "%s/instances/t2", root);
	snprintf(d3, sizeof(d3), "%s/instances/t2-switch", root);
	assert_int_equal(mkdir(d2, 0700), 0);
	assert_int_equal(mkdir(d3, 0700), 0);
	snprintf(r.dir, sizeof(r.dir), "%s", d2);
	r.timeout_ms = 2000;
	assert_int_equal(recorder_stop(&r), 0);
	assert_int_equal(access(d3, F_OK), -1);
	assert_int_equal(access(d2, F_OK), -1);
	/* a start with sched_switch off removes a NAME-switch left behind, even when the main
	 * instance fails (this one has no control files) */
	assert_int_equal(mkdir(d3, 0700), 0);
	o.name = "t2";
	o.sched_switch = "no";
	assert_int_equal(recorder_start(&o, &r), -ENOENT);
	assert_int_equal(access(d3, F_OK), -1);
}

/* A readout of a `trace` text larger than the 1 MiB read at a time (lines cut across the
 * chunks): every event parsed once; with keep, only the newest kept and the rest counted;
 * an instance another process made, used (attach): its events' enable files read. */
static void test_read_chunks(void **state)
{
	(void)state;
	char p[512], f[700];
	snprintf(p, sizeof(p), "%s/instances", root);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(p, sizeof(p), "%s/instances/big", root);
	assert_int_equal(mkdir(p, 0700), 0);
	snprintf(f, sizeof(f), "%s/trace", p);
	FILE *fp = fopen(f, "w");
	assert_non_null(fp);
	fprintf(fp, "# tracer: nop\n#\n");
	const int n = 30000;                   /* about 2.6 MiB */
	for (int i = 0; i < n; i++)
		fprintf(fp, "           rmdir-%-7d [001] d..1. %.6f: cgroup_rmdir: root=9 id=%d level=1 "
		        "path=/c%d\n", 1000 + i, 1.0 + i * 0.001, i, i);
	fprintf(fp, "CPU:1 [LOST 5 EVENTS]\n");
	fclose(fp);
	struct cgw_recorder r;
	memset(&r, 0, sizeof(r));
	snprintf(r.dir, sizeof(r.dir), "%s", p);
	r.timeout_ms = 5000;
	struct cgw_trace_events ev = { 0 };
	assert_int_equal(recorder_read(&r, -1, &ev), 0);
	assert_int_equal(ev.n, (size_t)n);
	assert_int_equal(ev.bad, 0);
	assert_int_equal(ev.lost, 5);
	for (int i = 0; i < n; i++)
		assert_int_equal(ev.v[i].pid, 1000 + i);
	trace_events_free(&ev);
	uint64_t dropped = 0;
	assert_int_equal(recorder_read_keep(&r, -1, 100, &ev, &dropped), 0);
	assert_int_equal(ev.n, 100);
	assert_int_equal(dropped, (uint64_t)n - 100);
	assert_int_equal(ev.v[0].pid, 1000 + n - 100);
	assert_int_equal(ev.v[99].pid, 1000 + n - 1);
	/* appended after what out holds */
	assert_int_equal(recorder_read_keep(&r, -1, 10, &ev, NULL), 0);
	assert_int_equal(ev.n, 110);
	assert_int_equal(ev.v[100].pid, 1000 + n - 10);
	trace_events_free(&ev);
	/* attach: the instance as made elsewhere */
	snprintf(f, sizeof(f), "%s/events/cgroup/cgroup_rmdir", p);
	char cmd[1500];
	snprintf(cmd, sizeof(cmd), "mkdir -p %s && echo 1 > %s/enable", f, f);
	assert_int_equal(system(cmd), 0);
	struct recorder_opts o = { .tracefs = root, .run_dir = root, .name = "big",
	                           .timeout_ms = 2000 };
	assert_int_equal(recorder_attach(&o, &r), 0);
	assert_string_equal(r.dir, p);
	assert_string_equal(r.enabled, "cgroup:cgroup_rmdir");
	assert_non_null(strstr(r.missing, "cgroup:cgroup_mkdir (not in this kernel)"));
	o.name = "none";
	assert_int_equal(recorder_attach(&o, &r), -ENOENT);
	assert_string_equal(r.dir, "");
}

/* One owner per instance: the daemon's attach (o.own) holds RUN_DIR/recorder-NAME.lock; a
 * second owner, by attach or start, is refused naming the holder's PID and the instance is
 * left as it was; given up, it can be owned again; check's attach (no own) only reads. */
static void test_one_owner(void **state)
{
	(void)state;
	char p[512], f[700], lock[600];
	snprintf(p, sizeof(p), "%s/instances/mine/events", root);
	char cmd[1200];
	snprintf(cmd, sizeof(cmd), "mkdir -p %s && touch %s/../trace", p, p);
	assert_int_equal(system(cmd), 0);
	snprintf(f, sizeof(f), "%s/instances/mine/trace", root);
	snprintf(lock, sizeof(lock), "%s/recorder-mine.lock", root);
	struct recorder_opts o = { .tracefs = root, .run_dir = root, .name = "mine",
	                           .timeout_ms = 2000, .own = true };
	struct cgw_recorder a, b;
	assert_int_equal(recorder_attach(&o, &a), 0);
	assert_true(a.own.held);
	char pid[32], want[32];
	assert_true(read_small_file(lock, pid, sizeof(pid)) > 0);
	snprintf(want, sizeof(want), "%d\n", (int)getpid());
	assert_string_equal(pid, want);
	/* another owner: refused, naming the PID (a second open file: flock says held) */
	assert_int_equal(recorder_attach(&o, &b), -EBUSY);
	assert_int_equal(b.own.holder, getpid());
	assert_string_equal(b.dir, "");
	snprintf(want, sizeof(want), "held by cgwatch PID %d (", (int)getpid());
	assert_non_null(strstr(b.own.why, want));
	assert_int_equal(recorder_start(&o, &b), -EBUSY);
	assert_int_equal(b.own.holder, getpid());
	assert_int_equal(access(f, F_OK), 0);            /* not replaced */
	/* a reader does not need it */
	struct recorder_opts ro = o;
	ro.own = false;
	assert_int_equal(recorder_attach(&ro, &b), 0);
	assert_false(b.own.held);
	/* given up: the file goes, and a new owner takes it */
	recorder_disown(&a);
	assert_int_equal(access(lock, F_OK), -1);
	assert_int_equal(recorder_attach(&o, &b), 0);
	assert_true(b.own.held);
	recorder_disown(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
		cmocka_unit_test_setup_teardown(test_read_chunks, setup, teardown),
		cmocka_unit_test_setup_teardown(test_one_owner, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
