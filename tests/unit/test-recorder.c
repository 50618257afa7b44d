/* test-recorder.c: the flight recorder's edges that need no kernel (source-recorder.c), on a
 * directory standing in for tracefs: no tracefs, a name that could leave instances/, an
 * instance directory whose control files are missing (a start that fails leaves nothing
 * behind), a stale instance that cannot be removed, and reads and stops of a recorder that
 * never started. The live behaviour is tests/live/recorder.sh. */
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
	struct recorder_opts o = { .tracefs = root, .timeout_ms = 2000 };
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
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_errors, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
