/* test-owner.c: owner.c, one owner per shared thing: a held lock file names its holder's PID
 * to the next one; a holder gone (killed) leaves a file that is taken over; a directory that
 * is a symlink or writable by others, and a lock file that is not a regular file (a FIFO,
 * which an open would block on), are refused; the state files beside it are written
 * atomically without following what stands at the temporary name. */
#include <fcntl.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "unit.h"

static char dir[256];

static int setup(void **state)
{
	(void)state;
	snprintf(dir, sizeof(dir), "%s/cgw-owner.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(dir) && chmod(dir, 0755) == 0 ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", dir);
	return system(cmd) == 0 ? 0 : -1;
}

static pid_t lock_pid(const char *name)
{
	char p[400], buf[32];
	snprintf(p, sizeof(p), "%s/%s.lock", dir, name);
	return read_small_file(p, buf, sizeof(buf)) > 0 ? (pid_t)atoi(buf) : -1;
}

/* A child that takes NAME and holds it until killed; its PID once it holds it. */
static pid_t holder(const char *name)
{
	int fds[2];
	assert_int_equal(pipe(fds), 0);
	pid_t c = fork();
	assert_true(c >= 0);
	if (c == 0) {
		struct cgw_owner o;
		char ok = owner_take(dir, name, &o) == 0 ? 'y' : 'n';
		if (write(fds[1], &ok, 1) != 1)
			_exit(1);
		for (;;)
			pause();
	}
	close(fds[1]);
	char ok = 0;
	assert_int_equal(read(fds[0], &ok, 1), 1);
	close(fds[0]);
	assert_int_equal(ok, 'y');
	return c;
}

static void test_held_then_stale(void **state)
{
	(void)state;
	struct cgw_owner o;
	pid_t c = holder("tl");
	assert_int_equal(lock_pid("tl"), c);
	assert_int_equal(owner_take(dir, "tl", &o), -EBUSY);
	assert_false(o.held);
	assert_int_equal(o.holder, c);
	char want[400];
	snprintf(want, sizeof(want), "held by cgwatch PID %d (%s/tl.lock)", (int)c, dir);
	assert_string_equal(o.why, want);
	/* killed: its lock goes with it, its file stays, and is taken over */
	kill(c, SIGKILL);
	waitpid(c, NULL, 0);
	assert_int_equal(lock_pid("tl"), c);
	assert_int_equal(owner_take(dir, "tl", &o), 0);
	assert_true(o.held);
	assert_int_equal(lock_pid("tl"), getpid());
	owner_release(&o);
	assert_int_equal(lock_pid("tl"), -1);          /* removed */
	owner_release(&o);                             /* twice: nothing */
}

static void test_refused(void **state)
{
	(void)state;
	struct cgw_owner o;
	char p[400], t[400];
	/* the directory a symlink */
	snprintf(t, sizeof(t), "%s/real", dir);
	assert_int_equal(mkdir(t, 0755), 0);
	snprintf(p, sizeof(p), "%s/link", dir);
	assert_int_equal(symlink(t, p), 0);
	assert_true(owner_take(p, "x", &o) < 0);
	assert_non_null(strstr(o.why, "not a directory"));
	/* writable by others */
	snprintf(p, sizeof(p), "%s/open", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	assert_int_equal(chmod(p, 0777), 0);
	assert_int_equal(owner_take(p, "x", &o), -EPERM);
	assert_non_null(strstr(o.why, "writable by others"));
	/* a FIFO at the lock's name: not opened (it would block), refused */
	snprintf(p, sizeof(p), "%s/fifo.lock", dir);
	assert_int_equal(mkfifo(p, 0644), 0);
	assert_int_equal(owner_take(dir, "fifo", &o), -EINVAL);
	assert_non_null(strstr(o.why, "not a regular file"));
	/* a symlink there, to a file elsewhere: not followed */
	snprintf(t, sizeof(t), "%s/real/target", dir);
	FILE *f = fopen(t, "w");
	assert_non_null(f);
	fputs("keep\n", f);
	fclose(f);
	snprintf(p, sizeof(p), "%s/sl.lock", dir);
	assert_int_equal(symlink(t, p), 0);
	assert_true(owner_take(dir, "sl", &o) < 0);
	char buf[32];
	assert_true(read_small_file(t, buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "keep\n");
	/* names that are not one */
	assert_int_equal(owner_take(dir, "a/b", &o), -EINVAL);
	assert_int_equal(owner_take(dir, ".x", &o), -EINVAL);
}

static void test_state_files(void **state)
{
	(void)state;
	struct cgw_owner o;
	char buf[128], p[400], t[400];
	assert_int_equal(owner_take(dir, "tl", &o), 0);
	assert_int_equal(owner_load(&o, "restore", buf, sizeof(buf)), -ENOENT);
	/* a symlink left at the temporary name: removed, not written through */
	snprintf(t, sizeof(t), "%s/elsewhere", dir);
	snprintf(p, sizeof(p), "%s/tl.restore.tmp", dir);
	assert_int_equal(symlink(t, p), 0);
	assert_int_equal(owner_save(&o, "restore", "cpus=0-1\nprint_stack=0\n"), 0);
	assert_int_equal(access(t, F_OK), -1);
	assert_int_equal(owner_load(&o, "restore", buf, sizeof(buf)), 23);
	assert_string_equal(buf, "cpus=0-1\nprint_stack=0\n");
	assert_int_equal(owner_save(&o, "restore", "cpus=1\n"), 0);          /* replaced */
	assert_int_equal(owner_load(&o, "restore", buf, sizeof(buf)), 7);
	assert_string_equal(buf, "cpus=1\n");
	/* it outlives the owner, for the next one */
	owner_release(&o);
	assert_int_equal(owner_take(dir, "tl", &o), 0);
	assert_int_equal(owner_load(&o, "restore", buf, sizeof(buf)), 7);
	assert_int_equal(owner_forget(&o, "restore"), 0);
	assert_int_equal(owner_forget(&o, "restore"), 0);
	assert_int_equal(owner_load(&o, "restore", buf, sizeof(buf)), -ENOENT);
	/* a FIFO there is not opened */
	snprintf(p, sizeof(p), "%s/tl.restore", dir);
	assert_int_equal(mkfifo(p, 0644), 0);
	assert_int_equal(owner_load(&o, "restore", buf, sizeof(buf)), -EINVAL);
	owner_release(&o);
	assert_int_equal(owner_save(&o, "restore", "x"), -EINVAL);      /* not held */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_held_then_stale, setup, teardown),
		cmocka_unit_test_setup_teardown(test_refused, setup, teardown),
		cmocka_unit_test_setup_teardown(test_state_files, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
