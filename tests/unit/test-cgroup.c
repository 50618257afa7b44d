/* test-cgroup.c: parse_cgroup_buf and parse_mountinfo_cgroup on real /proc text. */
#include "unit.h"

/* /proc/PID/cgroup on this host (v1 hierarchies + v2), the task in a v1 freezer cgroup */
#define CG_BELOW_FREEZER \
	"5:devices:/\n" \
	"4:memory:/process_api/073733058da78d7ccbfc5eeaf20bc0aa\n" \
	"3:cpuset:/\n" \
	"2:cpuacct:/\n" \
	"1:cpu:/\n" \
	"0::/\n"
static const char cg_host[] =
	"9:name=systemd:/\n"
	"8:pids:/\n"
	"7:blkio:/\n"
	"6:freezer:/cgwatch-unit\n"
	CG_BELOW_FREEZER;

/* the same host with a named hierarchy (mount -t cgroup -o none,name=cgwunit) and the task
 * in a cgroup named "a:b c" */
static const char cg_named[] =
	"10:name=cgwunit:/a:b c\n"
	"9:name=systemd:/\n"
	"8:pids:/\n"
	"7:blkio:/\n"
	"6:freezer:/\n"
	CG_BELOW_FREEZER;

/* a login shell on a systemd host booted with the hybrid hierarchy, as Ubuntu 20.04 lays it
 * out (not captured here: this host mounts every controller alone): combined "cpu,cpuacct"
 * and "net_cls,net_prio" */
static const char cg_hybrid[] =
	"12:cpuset:/\n"
	"11:hugetlb:/\n"
	"10:devices:/user.slice\n"
	"9:freezer:/\n"
	"8:memory:/user.slice/user-1000.slice/session-3.scope\n"
	"7:pids:/user.slice/user-1000.slice/session-3.scope\n"
	"6:rdma:/\n"
	"5:perf_event:/\n"
	"4:net_cls,net_prio:/\n"
	"3:blkio:/user.slice\n"
	"2:cpu,cpuacct:/user.slice\n"
	"1:name=systemd:/user.slice/user-1000.slice/session-3.scope\n"
	"0::/user.slice/user-1000.slice/session-3.scope\n";

/* a pure cgroup2 host (typical systemd unit, not captured here) */
static const char cg_v2[] = "0::/system.slice/cron.service\n";

struct cg_case {
	const char *what, *buf, *controller;
	int ret;
	const char *v1, *v2;
};

static void test_cgroup_paths(void **state)
{
	(void)state;
	static const struct cg_case cases[] = {
		{ "host freezer", cg_host, "freezer", 0, "/cgwatch-unit", "/" },
		{ "host memory", cg_host, "memory", 0, "/process_api/073733058da78d7ccbfc5eeaf20bc0aa", "/" },
		{ "host name=systemd", cg_host, "name=systemd", 0, "/", "/" },
		{ "host cpu", cg_host, "cpu", 0, "/", "/" },
		{ "named, path with ':' and ' '", cg_named, "name=cgwunit", 0, "/a:b c", "/" },
		{ "hybrid cpu", cg_hybrid, "cpu", 0, "/user.slice",
		  "/user.slice/user-1000.slice/session-3.scope" },
		{ "hybrid cpuacct", cg_hybrid, "cpuacct", 0, "/user.slice",
		  "/user.slice/user-1000.slice/session-3.scope" },
		{ "hybrid net_prio", cg_hybrid, "net_prio", 0, "/",
		  "/user.slice/user-1000.slice/session-3.scope" },
		{ "hybrid name=systemd", cg_hybrid, "name=systemd", 0,
		  "/user.slice/user-1000.slice/session-3.scope",
		  "/user.slice/user-1000.slice/session-3.scope" },
		{ "hybrid devices", cg_hybrid, "devices", 0, "/user.slice",
		  "/user.slice/user-1000.slice/session-3.scope" },
		/* "systemd" is not "name=systemd"; v2 is still found */
		{ "hybrid systemd", cg_hybrid, "systemd", 0, "", "/user.slice/user-1000.slice/session-3.scope" },
		{ "v2 only, freezer", cg_v2, "freezer", 0, "", "/system.slice/cron.service" },
		{ "v2, no controller", cg_v2, NULL, 0, "", "/system.slice/cron.service" },
		{ "empty", "", "freezer", -ENOENT, "", "" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char v1[256], v2[256];
		memset(v1, 'X', sizeof(v1));
		memset(v2, 'X', sizeof(v2));
		print_message("# case: %s\n", cases[i].what);
		assert_int_equal(parse_cgroup_buf(cases[i].buf, cases[i].controller, v1, sizeof(v1),
		                                  v2, sizeof(v2)), cases[i].ret);
		assert_string_equal(v1, cases[i].v1);
		assert_string_equal(v2, cases[i].v2);
	}
}

/* A controller name matches a whole item of the list, never a prefix of another. */
static void test_cgroup_controller_exact(void **state)
{
	(void)state;
	const char *buf = "5:cpu:/c\n4:cpuset:/iso\n3:cpuacct:/acct\n2:net_cls,net_prio:/net\n";
	static const struct { const char *ctl, *v1; int ret; } cases[] = {
		{ "cpu", "/c", 0 }, { "cpuset", "/iso", 0 }, { "cpuacct", "/acct", 0 },
		{ "net_cls", "/net", 0 }, { "net_prio", "/net", 0 },
		{ "net", "", -ENOENT }, { "cpus", "", -ENOENT }, { "prio", "", -ENOENT },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char v1[64];
		print_message("# %s\n", cases[i].ctl);
		assert_int_equal(parse_cgroup_buf(buf, cases[i].ctl, v1, sizeof(v1), NULL, 0),
		                 cases[i].ret);
		assert_string_equal(v1, cases[i].v1);
	}
	/* cpu listed after cpuset: cpuset is still not cpu */
	char v1[64];
	assert_int_equal(parse_cgroup_buf("4:cpuset:/iso\n3:cpuacct:/acct\n", "cpu", v1, sizeof(v1),
	                                  NULL, 0), -ENOENT);
}

/* Each out may be NULL; the result says whether a requested one was found. */
static void test_cgroup_null_outputs(void **state)
{
	(void)state;
	char v1[64], v2[64];
	assert_int_equal(parse_cgroup_buf(cg_host, "freezer", v1, sizeof(v1), NULL, 0), 0);
	assert_string_equal(v1, "/cgwatch-unit");
	assert_int_equal(parse_cgroup_buf(cg_host, NULL, NULL, 0, v2, sizeof(v2)), 0);
	assert_string_equal(v2, "/");
	/* freezer wanted, only v2 there, v2 not asked for */
	assert_int_equal(parse_cgroup_buf(cg_v2, "freezer", v1, sizeof(v1), NULL, 0), -ENOENT);
	assert_string_equal(v1, "");
	/* v2 wanted on a (hypothetical) v1-only host */
	assert_int_equal(parse_cgroup_buf("6:freezer:/x\n", "freezer", NULL, 0, v2, sizeof(v2)),
	                 -ENOENT);
	assert_string_equal(v2, "");
}

static void test_cgroup_truncates(void **state)
{
	(void)state;
	char v1[8], v2[3];
	memset(v1, 'X', sizeof(v1));
	assert_int_equal(parse_cgroup_buf(cg_host, "memory", v1, 8, v2, sizeof(v2)), 0);
	assert_string_equal(v1, "/proces");
	assert_string_equal(v2, "/");
	assert_int_equal(parse_cgroup_buf(cg_hybrid, "cpu", v1, sizeof(v1), v2, sizeof(v2)), 0);
	assert_string_equal(v1, "/user.s");
	assert_string_equal(v2, "/u");
}

/* ---- mountinfo ---- */

/* /proc/self/mountinfo of this host, with the named hierarchy mounted on "/tmp/cgw unit" */
static const char mi_host[] =
	"22 27 0:21 / /proc rw,relatime - proc proc rw\n"
	"23 27 0:22 / /sys rw,relatime - sysfs sysfs rw\n"
	"24 27 0:6 / /dev rw,relatime - devtmpfs devtmpfs rw,size=12334524k,nr_inodes=3083631,mode=755\n"
	"25 24 0:23 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24684096k\n"
	"26 24 0:24 / /dev/pts rw,relatime - devpts devpts rw,mode=600,ptmxmode=000\n"
	"27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard,resv_strict,resuid=65534,resgid=65534\n"
	"28 27 0:25 / /mnt/sandboxing/model_tools_env/v1/python ro,nosuid,nodev,relatime - tmpfs "
	"model_tools_unavailable ro,size=4k,mode=755\n"
	"29 26 0:26 / /dev/pts rw,relatime - devpts devpts rw,mode=600,ptmxmode=000\n"
	"30 25 0:27 / /dev/shm rw,relatime - tmpfs tmpfs rw,size=24684096k\n"
	HOST_CGROUP_MOUNTS
	"42 27 0:39 / /tmp/tmp.jQE67KJQgM/m rw,nosuid,nodev,relatime - fuse.x x rw,user_id=0,group_id=0\n"
	"43 27 0:40 / /tmp/cgw\\040unit rw,relatime - cgroup cgroup rw,name=cgwunit\n";

/* a systemd hybrid-hierarchy host (Ubuntu 20.04 layout, not captured here): optional fields
 * ("shared:N") before the " - " */
static const char mi_hybrid[] =
	"25 31 0:23 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
	"33 25 0:29 / /sys/fs/cgroup ro,nosuid,nodev,noexec shared:9 - tmpfs tmpfs ro,mode=755\n"
	"34 33 0:30 / /sys/fs/cgroup/unified rw,nosuid,nodev,noexec,relatime shared:10 - cgroup2 "
	"cgroup2 rw,nsdelegate\n"
	"35 33 0:31 / /sys/fs/cgroup/systemd rw,nosuid,nodev,noexec,relatime shared:11 - cgroup "
	"cgroup rw,xattr,name=systemd\n"
	"38 33 0:34 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime shared:15 - cgroup "
	"cgroup rw,cpu,cpuacct\n"
	"39 33 0:35 / /sys/fs/cgroup/freezer rw,nosuid,nodev,noexec,relatime shared:16 - cgroup "
	"cgroup rw,freezer\n"
	"40 33 0:36 / /sys/fs/cgroup/cpuset rw,nosuid,nodev,noexec,relatime shared:17 - cgroup "
	"cgroup rw,cpuset,clone_children\n";

/* a pure cgroup2 host (typical, not captured here) */
static const char mi_v2[] =
	"23 29 0:22 / /sys rw,nosuid,nodev,noexec,relatime shared:7 - sysfs sysfs rw\n"
	"35 23 0:30 / /sys/fs/cgroup rw,nosuid,nodev,noexec,relatime shared:9 - cgroup2 cgroup2 "
	"rw,nsdelegate,memory_recursiveprot\n";

/* A cgroup name may hold a newline; /proc/PID/cgroup prints it raw, so a task could add a
 * line of its own ("6:freezer:/frozen") and pass for frozen. A hierarchy listed twice is
 * refused, and neither path is returned. */
static void test_cgroup_forged_line(void **state)
{
	(void)state;
	static const char forged_v1[] =
		"6:freezer:/\n"
		"0::/user.slice/evil\n6:freezer:/frozen-by-someone\n";
	char v1[64] = "x", v2[64] = "x";
	assert_int_equal(parse_cgroup_buf(forged_v1, "freezer", v1, sizeof(v1), v2, sizeof(v2)),
	                 -EINVAL);
	assert_string_equal(v1, "");
	assert_string_equal(v2, "");

	static const char forged_v2[] = "0::/a\n0::/app.slice/frozen.scope\n";
	assert_int_equal(parse_cgroup_buf(forged_v2, NULL, NULL, 0, v2, sizeof(v2)), -EINVAL);
	assert_string_equal(v2, "");

	/* the same hierarchy twice matters only when it is asked for */
	char sd[64];
	assert_int_equal(parse_cgroup_buf(forged_v2, "name=systemd", sd, sizeof(sd), NULL, 0),
	                 -ENOENT);
}

static void test_mountinfo_cgroup(void **state)
{
	(void)state;
	static const struct {
		const char *what, *buf, *controller;
		int ret;
		const char *path;
	} cases[] = {
		{ "host freezer", mi_host, "freezer", 0, "/sys/fs/cgroup/freezer" },
		{ "host cpu", mi_host, "cpu", 0, "/sys/fs/cgroup/cpu" },
		{ "host cpuacct", mi_host, "cpuacct", 0, "/sys/fs/cgroup/cpuacct" },
		{ "host name=systemd", mi_host, "name=systemd", 0, "/sys/fs/cgroup/systemd" },
		{ "host cgroup2", mi_host, NULL, 0, "/sys/fs/cgroup/unified" },
		{ "host name=cgwunit (\\040)", mi_host, "name=cgwunit", 0, "/tmp/cgw unit" },
		{ "host hugetlb", mi_host, "hugetlb", -ENOENT, "" },
		{ "host name=cgw", mi_host, "name=cgw", -ENOENT, "" },
		{ "hybrid cpu", mi_hybrid, "cpu", 0, "/sys/fs/cgroup/cpu,cpuacct" },
		{ "hybrid cpuacct", mi_hybrid, "cpuacct", 0, "/sys/fs/cgroup/cpu,cpuacct" },
		{ "hybrid cpuset", mi_hybrid, "cpuset", 0, "/sys/fs/cgroup/cpuset" },
		{ "hybrid freezer", mi_hybrid, "freezer", 0, "/sys/fs/cgroup/freezer" },
		{ "hybrid name=systemd", mi_hybrid, "name=systemd", 0, "/sys/fs/cgroup/systemd" },
		{ "hybrid cgroup2", mi_hybrid, NULL, 0, "/sys/fs/cgroup/unified" },
		{ "v2 freezer", mi_v2, "freezer", -ENOENT, "" },
		{ "v2 cgroup2", mi_v2, NULL, 0, "/sys/fs/cgroup" },
		{ "empty", "", NULL, -ENOENT, "" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char out[256] = "";
		print_message("# case: %s\n", cases[i].what);
		assert_int_equal(parse_mountinfo_cgroup(cases[i].buf, cases[i].controller, out,
		                                        sizeof(out)), cases[i].ret);
		assert_string_equal(out, cases[i].path);
	}
}

/* Exact controller names: "cpu" is neither "cpuacct" nor "cpuset". */
static void test_mountinfo_controller_exact(void **state)
{
	(void)state;
	const char *buf =
		"34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n"
		"33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n"
		"36 31 0:33 / /tmp/x rw,relatime - tmpfs cpu rw,cpu\n";       /* not a cgroup fs */
	char out[64] = "";
	assert_int_equal(parse_mountinfo_cgroup(buf, "cpu", out, sizeof(out)), -ENOENT);
	assert_int_equal(parse_mountinfo_cgroup(buf, "cpuacct", out, sizeof(out)), 0);
	assert_string_equal(out, "/sys/fs/cgroup/cpuacct");
	/* cgroup2 is wanted only as cgroup2, v1 mounts are not it */
	assert_int_equal(parse_mountinfo_cgroup(buf, NULL, out, sizeof(out)), -ENOENT);
}

/* Mount points escape space, tab, newline and backslash as \ooo: a real line for
 * mkdir $'/tmp/cgw a\\b\tc\nd - e'; mount -t cgroup -o none,name=cgwunit2 cgroup "$_" */
static void test_mountinfo_unescape(void **state)
{
	(void)state;
	const char *buf =
		"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"
		"44 27 0:40 / /tmp/cgw\\040a\\134b\\011c\\012d\\040-\\040e rw,relatime - cgroup cgroup "
		"rw,name=cgwunit2\n";
	char out[64];
	assert_int_equal(parse_mountinfo_cgroup(buf, "name=cgwunit2", out, sizeof(out)), 0);
	assert_string_equal(out, "/tmp/cgw a\\b\tc\nd - e");
	/* a backslash not followed by three octal digits is kept */
	const char *odd = "45 27 0:41 / /tmp/a\\9b\\04 rw - cgroup cgroup rw,name=odd\n";
	assert_int_equal(parse_mountinfo_cgroup(odd, "name=odd", out, sizeof(out)), 0);
	assert_string_equal(out, "/tmp/a\\9b\\04");
	/* cut to the buffer, NUL-terminated */
	char small[10];                   /* 10 bytes: ASan found the 9 the test claimed were 10 */
	assert_int_equal(parse_mountinfo_cgroup(buf, "name=cgwunit2", small, 9), 0);
	assert_string_equal(small, "/tmp/cgw");
	assert_int_equal(parse_mountinfo_cgroup(mi_host, "name=cgwunit", small, 10), 0);
	assert_string_equal(small, "/tmp/cgw ");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cgroup_paths),
		cmocka_unit_test(test_cgroup_forged_line),
		cmocka_unit_test(test_cgroup_controller_exact),
		cmocka_unit_test(test_cgroup_null_outputs),
		cmocka_unit_test(test_cgroup_truncates),
		cmocka_unit_test(test_mountinfo_cgroup),
		cmocka_unit_test(test_mountinfo_controller_exact),
		cmocka_unit_test(test_mountinfo_unescape),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
