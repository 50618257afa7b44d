/* test-tlowner.c: timerlat's global settings (source-timerlat.c) on a directory standing in
 * for tracefs (timerlat_paths): one run on the host at a time, and what it changes put back
 * even when it is SIGKILLed. A child starts a run and is stopped in the middle of it, after
 * osnoise/cpus was changed and before print_stack was (print_stack is a FIFO there, which its
 * read blocks on): a second start meanwhile is refused naming the child's PID and changes
 * nothing; the child SIGKILLed, the next start puts osnoise/cpus back to what it was before
 * the child, from the restore file, and its own failed start leaves it so, with no file left
 * behind; a setting someone changed after the kill is left as they set it. The live behaviour, on a kernel with timerlat, is tests/vm/timerlat.guest.sh. */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "unit.h"

static char root[256], tfs[300], run[300];

static void put(const char *rel, const char *text)
{
	char p[600];
	snprintf(p, sizeof(p), "%s/%s", tfs, rel);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	fclose(f);
}

static const char *got(const char *rel)
{
	static char buf[256];
	char p[600];
	snprintf(p, sizeof(p), "%s/%s", tfs, rel);
	ssize_t n = read_small_file(p, buf, sizeof(buf));
	if (n < 0)
		snprintf(buf, sizeof(buf), "(%s)", strerror((int)-n));
	buf[strcspn(buf, "\n")] = 0;
	return buf;
}

static int setup(void **state)
{
	(void)state;
	snprintf(root, sizeof(root), "%s/cgw-tlown.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	if (!mkdtemp(root) || chmod(root, 0755) < 0)
		return -1;
	snprintf(tfs, sizeof(tfs), "%s/tracing", root);
	snprintf(run, sizeof(run), "%s/run", root);
	char p[600];
	snprintf(p, sizeof(p), "%s/osnoise", tfs);
	if (mkdir(tfs, 0755) < 0 || mkdir(p, 0755) < 0)
		return -1;
	snprintf(p, sizeof(p), "%s/instances", tfs);
	if (mkdir(p, 0755) < 0)
		return -1;
	timerlat_paths(tfs, run);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	timerlat_paths(NULL, NULL);
	dl_reset();
	usleep(100000);
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", root);
	return system(cmd) == 0 ? 0 : -1;
}

static void test_killed_run_put_back(void **state)
{
	(void)state;
	put("available_tracers", "timerlat osnoise nop\n");
	put("current_tracer", "nop\n");
	put("osnoise/cpus", "0-3\n");
	char fifo[600], p[700];
	snprintf(fifo, sizeof(fifo), "%s/osnoise/print_stack", tfs);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	struct cgw_cpus one;
	assert_int_equal(cpulist_parse("1", &one), 0);
	pid_t c = fork();
	assert_true(c >= 0);
	if (c == 0) {                     /* blocks in the print_stack read until killed */
		char why[400];
		timerlat_start(&one, 1000, 30000, why, sizeof(why));
		_exit(0);
	}
	/* the child mid-run: osnoise/cpus changed, and on disk what to put back */
	snprintf(p, sizeof(p), "%s/timerlat.restore", run);
	for (int i = 0; i < 500 && (strcmp(got("osnoise/cpus"), "1") || access(p, F_OK)); i++)
		usleep(10000);
	assert_string_equal(got("osnoise/cpus"), "1");
	char text[256];
	assert_true(read_small_file(p, text, sizeof(text)) > 0);
	assert_non_null(strstr(text, "\ncpus=0-3\ncpus_set=1\n"));
	/* a second run meanwhile: refused, naming the child, nothing changed */
	char why[400], want[100];
	assert_null(timerlat_start(&one, 1000, 5000, why, sizeof(why)));
	snprintf(want, sizeof(want), "another cgwatch runs it: held by cgwatch PID %d (", (int)c);
	if (!strstr(why, want))
		fail_msg("why: %s", why);
	assert_string_equal(got("osnoise/cpus"), "1");
	/* SIGKILL: nothing of the child's put back */
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	assert_string_equal(got("osnoise/cpus"), "1");
	assert_int_equal(unlink(fifo), 0);
	put("osnoise/print_stack", "0\n");
	/* the next start puts it back first; its own start then fails here (no current_tracer
	 * in the instance it makes) and puts back what it found: the value before the child */
	assert_null(timerlat_start(&one, 1000, 5000, why, sizeof(why)));
	assert_non_null(strstr(why, "timerlat in instances/cgwtl-"));
	assert_string_equal(got("osnoise/cpus"), "0-3");
	assert_string_equal(got("osnoise/print_stack"), "0");
	assert_int_equal(access(p, F_OK), -1);                  /* nothing left to put back */
	snprintf(p, sizeof(p), "%s/timerlat.lock", run);
	assert_int_equal(access(p, F_OK), -1);                  /* nor an owner */
}

/* A killed run's setting that someone changed since is theirs: left as they set it. */
static void test_changed_since_left(void **state)
{
	(void)state;
	put("available_tracers", "timerlat nop\n");
	put("current_tracer", "nop\n");
	put("osnoise/cpus", "3\n");                     /* set by someone after the kill */
	put("osnoise/print_stack", "1000\n");           /* still what the killed run set */
	char p[600];
	assert_int_equal(mkdir(run, 0755), 0);
	snprintf(p, sizeof(p), "%s/timerlat.restore", run);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs("# cgwatch timerlat, PID 99999999: osnoise settings to put back\n"
	      "cpus=0-3\ncpus_set=0-1\nprint_stack=0\nprint_stack_set=1000\n", f);
	fclose(f);
	struct cgw_cpus one;
	assert_int_equal(cpulist_parse("1", &one), 0);
	char why[400];
	assert_null(timerlat_start(&one, 0, 5000, why, sizeof(why)));
	assert_string_equal(got("osnoise/cpus"), "3");
	assert_string_equal(got("osnoise/print_stack"), "0");
	assert_int_equal(access(p, F_OK), -1);
}

/* A restore file that is not one (a value that is no CPU list) is not written to tracefs. */
static void test_bad_restore_file(void **state)
{
	(void)state;
	put("available_tracers", "timerlat nop\n");
	put("current_tracer", "nop\n");
	put("osnoise/cpus", "0-3\n");
	put("osnoise/print_stack", "0\n");
	char p[600];
	assert_int_equal(mkdir(run, 0755), 0);
	snprintf(p, sizeof(p), "%s/timerlat.restore", run);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs("cpus=all\n", f);
	fclose(f);
	struct cgw_cpus one;
	assert_int_equal(cpulist_parse("1", &one), 0);
	char why[400];
	assert_null(timerlat_start(&one, 0, 5000, why, sizeof(why)));
	assert_string_equal(got("osnoise/cpus"), "0-3");
	assert_int_equal(access(p, F_OK), -1);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_killed_run_put_back, setup, teardown),
		cmocka_unit_test_setup_teardown(test_changed_since_left, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bad_restore_file, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
