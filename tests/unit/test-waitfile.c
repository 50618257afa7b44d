/* test-waitfile.c: the pure parts of "which file a blocked task waits on": the syscall line,
 * the syscall table, paths made absolute, the mount holding a path; and the cause keys. */
#include "unit.h"
#include <sys/syscall.h>

static void test_syscall_line(void **state)
{
	(void)state;
	struct cgw_syscall sc;
	assert_int_equal(parse_syscall_line("332 0xffffff9c 0x7ffd1000 0x100 0xfff 0x7ffd2000 0x0 "
	                                    "0x7ffd0f00 0x7f1234567890\n", &sc), 1);
	assert_int_equal(sc.nr, 332);
	assert_int_equal((int)sc.arg[0], -100);      /* AT_FDCWD */
	assert_true(sc.arg[1] == 0x7ffd1000ul);
	assert_true(sc.arg[4] == 0x7ffd2000ul);
	/* running, or not in a syscall: not known */
	assert_int_equal(parse_syscall_line("running\n", &sc), 0);
	assert_int_equal(parse_syscall_line("running", &sc), 0);
	assert_int_equal(parse_syscall_line("-1 0x7ffd0f00 0x7f1234567890\n", &sc), 0);
	assert_int_equal(sc.nr, -1);
	static const char *const bad[] = {
		"", "\n", "x", "-2 0x1 0x2\n", "-1 0x1\n", "0 0x1 0x2 0x3\n",
		"0 0x1 0x2 0x3 0x4 0x5 0x6 0x7 0x8 0x9\n",
		"0 0x1 0x2 0x3 0x4 0x5 0x6 0x7 0xg\n", "0 1 0x2 0x3 0x4 0x5 0x6 0x7 0x8\n",
		"0 0x 0x2 0x3 0x4 0x5 0x6 0x7 0x8\n", "0 0x11111111111111111 0x2 0x3 0x4 0x5 0x6 0x7 0x8\n",
		"0 0x1 0x2 0x3 0x4 0x5 0x6 0x7 0x8\nx", "0  0x1 0x2 0x3 0x4 0x5 0x6 0x7 0x8\n",
		"99999999999 0x1 0x2 0x3 0x4 0x5 0x6 0x7 0x8\n", "+1 0x1 0x2 0x3 0x4 0x5 0x6 0x7 0x8\n",
		"running\nrunning\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (parse_syscall_line(bad[i], &sc) != -EINVAL) {
			print_error("accepted \"%s\"\n", esc(bad[i]));
			fail();
		}
	}
}

static void test_syscall_table(void **state)
{
	(void)state;
	struct sys_info si = syscall_info(SYS_statx);
	assert_string_equal(si.name, "statx");
	assert_int_equal(si.kind, SYSF_AT);
	assert_int_equal(syscall_info(SYS_read).kind, SYSF_FD);
	assert_int_equal(syscall_info(SYS_getdents64).kind, SYSF_FD);
#ifdef SYS_stat
	assert_int_equal(syscall_info(SYS_stat).kind, SYSF_PATH);
#endif
	assert_null(syscall_info(SYS_nanosleep).name);
	assert_null(syscall_info(-1).name);
}

static void test_path_join(void **state)
{
	(void)state;
	static const char *const cases[][3] = {
		{ "/", "mnt/a", "/mnt/a" },
		{ "/home/u", "../x/./y//z", "/home/x/y/z" },
		{ "/a", "/abs/../b", "/b" },
		{ "/a", "../../..", "/" },
		{ NULL, "/mnt/with space", "/mnt/with space" },
		{ "/mnt/a", "", "/mnt/a" },
	};
	char out[256];
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(path_join(cases[i][0], cases[i][1], out, sizeof(out)), 0);
		assert_string_equal(out, cases[i][2]);
	}
	assert_int_equal(path_join(NULL, "rel", out, sizeof(out)), -EINVAL);
	assert_int_equal(path_join("rel", "x", out, sizeof(out)), -EINVAL);
	assert_int_equal(path_join("/", "abcdefgh", out, 5), -ENAMETOOLONG);
}

static const char mountinfo[] =
	"22 1 8:1 / / rw,relatime shared:1 - ext4 /dev/sda1 rw\n"
	"30 22 0:53 / /mnt/a rw,nosuid,nodev,relatime shared:5 - fuse.hold hold rw,user_id=0\n"
	"31 22 0:54 / /mnt/ab rw,relatime shared:6 - fuse.hold hold rw,user_id=0\n"
	"32 22 0:55 / /mnt/with\\040space rw,relatime shared:7 - fuse hold rw,user_id=0\n"
	"33 30 0:56 / /mnt/a/sub rw,relatime shared:8 - nfs4 srv:/x rw\n"
	"34 30 0:57 / /mnt/a/sub rw,relatime shared:9 - tmpfs tmpfs rw\n"
	"not a mountinfo line\n";

static void test_mount_of_path(void **state)
{
	(void)state;
	struct mountinfo_ent e;
	static const char *const cases[][3] = {
		{ "/mnt/a", "/mnt/a", "0:53" },             /* the mount point itself */
		{ "/mnt/a/f", "/mnt/a", "0:53" },
		{ "/mnt/ab/f", "/mnt/ab", "0:54" },         /* not /mnt/a: not a directory above */
		{ "/mnt/abc", "/", "8:1" },
		{ "/mnt/with space/f", "/mnt/with space", "0:55" },
		{ "/mnt/a/sub/x", "/mnt/a/sub", "0:57" },   /* the last of two: on top */
		{ "/etc/passwd", "/", "8:1" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		assert_int_equal(mount_of_path(mountinfo, cases[i][0], &e), 0);
		assert_string_equal(e.mnt, cases[i][1]);
		assert_string_equal(e.dev, cases[i][2]);
	}
	assert_int_equal(mount_of_path(mountinfo, "/mnt/a", &e), 0);
	assert_string_equal(e.fstype, "fuse.hold");
	/* no root mount: a path under none; a relative path is under none */
	const char *noroot = "30 22 0:53 / /mnt/a rw - fuse.hold hold rw\n";
	assert_int_equal(mount_of_path(noroot, "/etc/passwd", &e), -ENOENT);
	assert_int_equal(mount_of_path(mountinfo, "mnt/a", &e), -ENOENT);
	assert_int_equal(mount_of_path("", "/", &e), -ENOENT);
}

static void test_cause_ok(void **state)
{
	(void)state;
	static const char *const good[] = { "mount /", "mount /mnt/a b", "cgroup /x.slice",
	                                    "workqueue events", "flush by my_sync" };
	static const char *const bad[] = { "", "mount", "mount x", "cgroup", "workqueue ",
	                                   "flush by ", "tid 5", "Mount /" };
	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		assert_true(cause_ok(good[i]));
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_false(cause_ok(bad[i]));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_syscall_line),
		cmocka_unit_test(test_syscall_table),
		cmocka_unit_test(test_path_join),
		cmocka_unit_test(test_mount_of_path),
		cmocka_unit_test(test_cause_ok),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
