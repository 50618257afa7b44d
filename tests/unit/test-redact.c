/* test-redact.c: redaction tokens: stable, on name boundaries, longest first, kernel symbols
 * kept; paths under home directories one token per component, so paths still nest; the
 * member rules (what of a /proc file is the kernel's own); member names; which users, homes
 * and host names count; and the map for the host. */
#include "unit.h"

/* f(r, in, n, out) as a NUL-terminated string (freed by the caller). */
static char *red(struct cgw_redact *r, const char *in, size_t n)
{
	struct strbuf b = { 0 };
	assert_int_equal(redact_text(r, in, n, &b), 0);
	sb_add(&b, "", 0);
	return b.s ? b.s : xstrdup("");
}

static void expect(const char *what, char *got, const char *want)
{
	if (strcmp(got, want) != 0)
		fail_msg("%s: got \"%s\", want \"%s\"", what, got, want);
	free(got);
}

static struct cgw_redact *alice_map(void)
{
	struct cgw_redact *r = redact_new();
	assert_non_null(r);
	assert_string_equal(redact_add(r, "host", "web-01", 6), "REDACTED-host-1");
	assert_string_equal(redact_add(r, "host", "web-01.example.com", 18), "REDACTED-host-2");
	assert_string_equal(redact_add(r, "user", "alice", 5), "REDACTED-user-1");
	assert_int_equal(redact_prefix(r, "/home/"), 0);
	assert_int_equal(redact_prefix(r, "/root/"), 0);
	return r;
}

static void test_tokens(void **state)
{
	(void)state;
	static const struct { const char *in, *want; } cases[] = {
		{ "host web-01 said", "host REDACTED-host-1 said" },
		{ "web-01.example.com", "REDACTED-host-2" },           /* the longer value wins */
		{ "user alice, not malice or alice2 or alice_x",
		  "user REDACTED-user-1, not malice or alice2 or alice_x" },
		{ "app-alice.scope", "app-REDACTED-user-1.scope" },    /* '-' and '.' separate */
		{ "/home/alice/src/db.sqlite x",
		  "/home/REDACTED-user-1/REDACTED-path-1/REDACTED-path-2 x" },
		{ "cwd=/home/alice/src", "cwd=/home/REDACTED-user-1/REDACTED-path-1" },
		{ "/home/ alone, /root alone", "/home/ alone, /root alone" },
		{ "/root/.ssh/id", "/root/REDACTED-path-3/REDACTED-path-4" },
		{ "/homework/alice", "/homework/REDACTED-user-1" },
		{ "/tmp/home/x", "/tmp/home/x" },                      /* not under /home */
		{ "__flush_workqueue+0x14e/0x430", "__flush_workqueue+0x14e/0x430" },
		{ " alice+0x10/0x20 [alice]", " alice+0x10/0x20 [REDACTED-user-1]" },  /* a symbol */
		{ "0-3,8-11", "0-3,8-11" },
		{ "/home/alice/./../x", "/home/REDACTED-user-1/./../REDACTED-path-5" },
		{ "(on /home/alice/src/db.sqlite, or /home/alice/src.)",
		  "(on /home/REDACTED-user-1/REDACTED-path-1/REDACTED-path-2, or "
		  "/home/REDACTED-user-1/REDACTED-path-1.)" },     /* the sentence's punctuation */
	};
	struct cgw_redact *r = alice_map();
	assert_string_equal(redact_add(r, "user", "alice", 5), "REDACTED-user-1");  /* stable */
	assert_null(redact_add(r, "user", "", 0));
	assert_int_equal(redact_prefix(r, ""), -EINVAL);
	assert_int_equal(redact_prefix(r, "/"), -EINVAL);
	assert_int_equal(redact_prefix(r, "home/"), -EINVAL);
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		expect(cases[i].in, red(r, cases[i].in, strlen(cases[i].in)), cases[i].want);
	/* NUL-separated text (a cmdline) and a second path get their own tokens */
	static const char cmd[] = "prog\0/home/bob/x\0web-01";
	char *got = red(r, cmd, sizeof(cmd) - 1);
	assert_memory_equal(got, "prog\0/home/REDACTED-path-6/REDACTED-path-5\0REDACTED-host-1",
	                    57);                  /* "x" is the same component as above */
	free(got);
	/* the map: every token and its value, escaped, for the host only */
	struct strbuf m = { 0 };
	redact_map_text(r, &m);
	assert_non_null(strstr(m.s, "REDACTED-user-1\talice\n"));
	assert_non_null(strstr(m.s, "REDACTED-path-2\tdb.sqlite\n"));
	assert_non_null(strstr(m.s, "REDACTED-path-6\tbob\n"));
	sb_free(&m);
	redact_free(r);
}

/* A mount point and the paths under it keep nesting: the replay finds the mount of a task's
 * file in mountinfo by its longest mount point above the path. mountinfo's \040 and a link's
 * real space are the same component. */
static void test_paths_nest(void **state)
{
	(void)state;
	struct cgw_redact *r = alice_map();
	struct strbuf a = { 0 }, b = { 0 }, c = { 0 };
	const char *mnt = "/home/alice/my\\040mnt", *file = "/home/alice/my mnt/data/f";
	assert_int_equal(redact_path(r, mnt, strlen(mnt), &a), 0);
	assert_int_equal(redact_path(r, file, strlen(file), &b), 0);
	sb_add(&a, "", 0);
	sb_add(&b, "", 0);
	assert_string_equal(a.s, "/home/REDACTED-user-1/REDACTED-path-1");
	assert_string_equal(b.s, "/home/REDACTED-user-1/REDACTED-path-1/REDACTED-path-2/"
	                         "REDACTED-path-3");
	struct mountinfo_ent me;
	char mi[512];
	snprintf(mi, sizeof(mi), "40 1 0:50 / %s rw - fuse.x x rw\n", a.s);
	assert_int_equal(mount_of_path(mi, b.s, &me), 0);
	/* a home of its own: the directory itself and what is under it */
	assert_int_equal(redact_add_home(r, "/srv/projx//"), 0);
	assert_int_equal(redact_add_home(r, "/usr"), 0);          /* does not count: nothing */
	const char *p = "/srv/projx/a /srv/projx2 /srv/projx";
	assert_int_equal(redact_text(r, p, strlen(p), &c), 0);
	sb_add(&c, "", 0);
	assert_string_equal(c.s, "/srv/REDACTED-path-4/REDACTED-path-5 /srv/projx2 "
	                         "/srv/REDACTED-path-4");
	sb_free(&a);
	sb_free(&b);
	sb_free(&c);
	redact_free(r);
}

static char *member(struct cgw_redact *r, const char *name, const char *in, size_t n)
{
	struct strbuf b = { 0 };
	assert_int_equal(redact_member(r, name, in, n, &b), 0);
	sb_add(&b, "", 0);
	return b.s ? b.s : xstrdup("");
}

static void test_members(void **state)
{
	(void)state;
	struct cgw_redact *r = alice_map();
	assert_non_null(redact_add(r, "user", "schedule", 8));   /* a user named like a symbol */
	assert_non_null(redact_add(r, "user", "cpu", 3));
#define M(name, in, want) expect(name, member(r, name, in, strlen(in)), want)
	M("proc/12/stat", "12 (alice) S 1 12 12 0 -1 4194560 alice",
	  "12 (REDACTED-user-1) S 1 12 12 0 -1 4194560 alice");
	M("proc/12/task/13/status", "Name:\talice\nUid:\t1000\t1000\t1000\t1000\nState:\tD\n",
	  "Name:\tREDACTED-user-1\nUid:\t1000\t1000\t1000\t1000\nState:\tD\n");
	M("proc/self/sched", "alice (12, #threads: 1)\nse.exec_start : 1.0\ncpu 3\n",
	  "REDACTED-user-1 (12, #threads: 1)\nse.exec_start : 1.0\ncpu 3\n");
	M("proc/12/stack", "[<0>] schedule+0x27/0x80\n[<0>] cpu\n",
	  "[<0>] schedule+0x27/0x80\n[<0>] cpu\n");
	M("proc/12/wchan", "schedule", "schedule");
	M("proc/stat", "cpu  1 2 3\ncpu0 1 2 3\n", "cpu  1 2 3\ncpu0 1 2 3\n");
	M("cgwatch/clocks", "cgwatch-clocks 1\ncpu 1 2.0 exact\n", "cgwatch-clocks 1\ncpu 1 2.0 exact\n");
	/* the counts: controller and event names stay, whoever is named like them */
	M("cgwatch/rates", "cgwatch-rates 1\nsource perf\ncgroup cpu 0 3 0 1\n",
	  "cgwatch-rates 1\nsource perf\ncgroup cpu 0 3 0 1\n");
	M("sys/fs/cgroup/alice/cpuset.cpus", "0-3\n", "0-3\n");
	M("sys/devices/system/cpu/isolated", "2-3\n", "2-3\n");
	M("proc/12/cgroup", "0::/user.slice/app-alice.scope\n2:cpu,cpuacct:/home/alice\n",
	  "0::/user.slice/app-REDACTED-user-1.scope\n2:cpu,cpuacct:/home/REDACTED-user-1\n");
	M("proc/12/mountinfo",
	  "50 40 0:51 / /home/alice/m\\040x rw,nosuid - fuse.sshfs alice@web-01:/srv rw,user_id=0\n",
	  "50 40 0:51 / /home/REDACTED-user-1/REDACTED-path-1 rw,nosuid - fuse.sshfs "
	  "REDACTED-user-1@REDACTED-host-1:/srv rw,user_id=0\n");
	M("proc/12/mountinfo", "24 1 0:22 / /sys/fs/cgroup/cpu rw shared:9 - cgroup cpu rw,cpu\n",
	  "24 1 0:22 / /sys/fs/cgroup/REDACTED-user-3 rw shared:9 - cgroup cpu rw,cpu\n");
	M("proc/12/mountinfo", "25 1 0:23 / /mnt rw - nfs cpu:/x rw,addr=cpu\n",
	  "25 1 0:23 / /mnt rw - nfs REDACTED-user-3:/x rw,addr=REDACTED-user-3\n");
	M("dev/kmsg", "3,1,2,-;INFO: task alice:12 blocked on web-01\n schedule+0x27/0x80\n",
	  "3,1,2,-;INFO: task REDACTED-user-1:12 blocked on REDACTED-host-1\n schedule+0x27/0x80\n");
	/* a path read from memory: up to its NUL, nothing after; no NUL, no path */
	static const char mem[] = "/home/alice/my mnt/f\0--password=hunter2\0SECRET=x";
	static const char want[] = "/home/REDACTED-user-1/REDACTED-path-2/REDACTED-path-3";
	struct strbuf mb = { 0 };
	assert_int_equal(redact_member(r, "cgwatch/mem/12-7ffd", mem, sizeof(mem) - 1, &mb), 0);
	assert_int_equal(mb.len, sizeof(want));                  /* the path and its NUL */
	assert_memory_equal(mb.s, want, sizeof(want));
	sb_free(&mb);
	M("cgwatch/mem/12-7ffd", "/home/alice/my mnt/f", "");
	M("proc/sys/kernel/hostname", "web-01\n", "REDACTED-host-1\n");
#undef M
	/* a command line is one token, the same for the same bytes */
	static const char cmd[] = "ssh\0alice@web-01\0";
	char *a = member(r, "proc/12/cmdline", cmd, sizeof(cmd) - 1);
	char *b = member(r, "proc/13/task/13/cmdline", cmd, sizeof(cmd) - 1);
	assert_string_equal(a, "REDACTED-cmdline-1");
	assert_string_equal(b, "REDACTED-cmdline-1");
	free(a);
	free(b);
	expect("empty cmdline", member(r, "proc/2/cmdline", "", 0), "");
	/* a command line is no value looked for in text: "/" stays a slash elsewhere */
	expect("slash cmdline", member(r, "proc/3/cmdline", "/", 1), "REDACTED-cmdline-2");
	expect("slash", member(r, "proc/sys/kernel/x", "/ a/b", 5), "/ a/b");
	redact_free(r);
}

static char *file(struct cgw_redact *r, const char *name, const char *in)
{
	struct strbuf b = { 0 };
	assert_int_equal(redact_file(r, name, in, strlen(in), &b), 0);
	sb_add(&b, "", 0);
	return b.s ? b.s : xstrdup("");
}

/* The reports and the configuration keep their structure: a user named like a key. */
static void test_files(void **state)
{
	(void)state;
	struct cgw_redact *r = alice_map();
	assert_non_null(redact_add(r, "user", "tasks", 5));
	assert_non_null(redact_add(r, "user", "dir", 3));
	expect("json", file(r, "report.json",
	                    "{\"tasks\" : [{\"user\": \"tasks\", \"cmd\": \"a \\\"alice\\\" b\"}], \"n\": 1}"),
	       "{\"tasks\" : [{\"user\": \"REDACTED-user-2\", \"cmd\": \"a \\\"REDACTED-user-1\\\" b\"}], "
	       "\"n\": 1}");
	expect("conf", file(r, "config/cgwatch.conf", "[reports]\ndir = /home/alice/r\n# dir alice\n"),
	       "[reports]\ndir = /home/REDACTED-user-1/REDACTED-path-1\n# REDACTED-user-3 REDACTED-user-1\n");
	expect("blank", file(r, "config/cgwatch.conf", "\n  \n[run]\nalice\n"), "\n  \n[run]\nREDACTED-user-1\n");
	expect("sig", file(r, "signatures/site/0-x.conf", "[tasks]\ntitle = tasks of alice\n"),
	       "[tasks]\ntitle = REDACTED-user-2 of REDACTED-user-1\n");
	expect("text", file(r, "report.txt", "tasks of alice"), "REDACTED-user-2 of REDACTED-user-1");
	expect("tree", file(r, "tree/proc/1/stack", "tasks\n"), "tasks\n");
	/* an incident's page: its text and titles redacted with their entities read (the path
	 * "it's" is "it&#39;s" there; redacted as the JSON report has it), the markup (a class
	 * named like a user), the policy and the style sheet (its hash is in the policy) as they
	 * are */
	expect("html", file(r, "incidents/20261130T071622Z-fuse-wait.html",
	                    "<!DOCTYPE html>\n<meta http-equiv=\"x\" content=\"dir tasks\">"
	                    "<style>\n.tasks{color:red}</style>\n<h1 class=\"tasks\">tasks of "
	                    "/home/alice/it&#39;s m&amp;n &lt;alice&gt;</h1>\n<div title=\"CPU 1: "
	                    "alice\"><b>1</b></div><a href=\"https://x/alice\">x</a>"),
	       "<!DOCTYPE html>\n<meta http-equiv=\"x\" content=\"dir tasks\">"
	       "<style>\n.tasks{color:red}</style>\n<h1 class=\"tasks\">REDACTED-user-2 of "
	       "/home/REDACTED-user-1/REDACTED-path-2&#39;s m&amp;n &lt;REDACTED-user-1&gt;</h1>\n"
	       "<div title=\"CPU 1: REDACTED-user-1\"><b>1</b></div>"
	       "<a href=\"https://x/REDACTED-user-1\">x</a>");
	redact_free(r);
}

static char *name_of(struct cgw_redact *r, const char *name, bool dir)
{
	struct strbuf b = { 0 };
	assert_int_equal(redact_name(r, name, dir, &b), 0);
	sb_add(&b, "", 0);
	return b.s;
}

static void test_names(void **state)
{
	(void)state;
	struct cgw_redact *r = alice_map();
	assert_non_null(redact_add(r, "user", "cpu", 3));
	expect("proc", name_of(r, "tree/proc/12/task/12/stat", false), "tree/proc/12/task/12/stat");
	expect("kmsg", name_of(r, "tree/dev/kmsg", false), "tree/dev/kmsg");
	expect("cpu", name_of(r, "tree/sys/devices/system/cpu/online", false),
	       "tree/sys/devices/system/cpu/online");
	expect("tree", name_of(r, "tree", true), "tree");
	expect("report", name_of(r, "report.txt", false), "report.txt");
	expect("cgroup dir", name_of(r, "tree/sys/fs/cgroup/user.slice/app-alice.scope", true),
	       "tree/sys/fs/cgroup/user.slice/app-REDACTED-user-1.scope");
	expect("cgroup file", name_of(r, "tree/sys/fs/cgroup/app-alice.scope/cpu.max", false),
	       "tree/sys/fs/cgroup/app-REDACTED-user-1.scope/cpu.max");
	expect("cgroup top file", name_of(r, "tree/sys/fs/cgroup/cgroup.procs", false),
	       "tree/sys/fs/cgroup/cgroup.procs");
	expect("v1 hierarchy", name_of(r, "tree/sys/fs/cgroup/cpu/tasks", false),
	       "tree/sys/fs/cgroup/REDACTED-user-2/tasks");
	expect("home", name_of(r, "tree/home/alice/mnt/f", false),
	       "tree/home/REDACTED-user-1/REDACTED-path-1/REDACTED-path-2");
	expect("site sig", name_of(r, "signatures/site/0-alice.conf", false),
	       "signatures/site/0-REDACTED-user-1.conf");
	redact_free(r);
}

static void test_who_counts(void **state)
{
	(void)state;
	assert_false(redact_uid_personal(0));
	assert_false(redact_uid_personal(1));
	assert_false(redact_uid_personal(999));
	assert_true(redact_uid_personal(1000));
	assert_true(redact_uid_personal(60000));
	assert_false(redact_uid_personal(65534));
	assert_false(redact_uid_personal(65535));
	assert_true(redact_uid_personal(100000));
	assert_true(redact_user_name_ok("alice"));
	assert_true(redact_user_name_ok("www-data"));
	assert_false(redact_user_name_ok(""));
	assert_false(redact_user_name_ok("a/b"));
	assert_false(redact_user_name_ok("a b"));
	assert_false(redact_user_name_ok("a\nb"));
	assert_true(redact_home_counts("/home/alice"));
	assert_true(redact_home_counts("/srv/projx/"));
	assert_true(redact_home_counts("/root"));
	assert_false(redact_home_counts("/"));
	assert_false(redact_home_counts("//"));
	assert_false(redact_home_counts(""));
	assert_false(redact_home_counts(NULL));
	assert_false(redact_home_counts("relative"));
	assert_false(redact_home_counts("/nonexistent"));
	assert_false(redact_home_counts("/usr/"));
	assert_false(redact_home_counts("/var"));
	assert_false(redact_home_counts("/dev"));
	assert_false(redact_home_counts("/proc/1"));
	assert_false(redact_home_counts("/sys/fs"));
	assert_false(redact_home_counts("/home/../etc"));
	assert_false(redact_home_counts("/srv/.."));
	assert_false(redact_home_counts("/srv/./"));
	assert_true(redact_home_counts("/var/lib/alice"));
}

static void test_host(void **state)
{
	(void)state;
	struct cgw_redact *r = redact_new();
	assert_int_equal(redact_add_host(r, "web-01.example.com\n", "(none)\n"), 0);
	assert_int_equal(redact_add_host(r, "web-01", "corp.example\n"), 0);
	assert_int_equal(redact_add_host(r, "(none)", ""), 0);
	assert_int_equal(redact_add_host(r, "", NULL), 0);
	struct strbuf m = { 0 };
	redact_map_text(r, &m);
	sb_add(&m, "", 0);
	assert_string_equal(m.s, "REDACTED-host-1\tweb-01\n"
	                         "REDACTED-host-2\tweb-01.example.com\n"
	                         "REDACTED-domain-1\texample.com\n"
	                         "REDACTED-domain-2\tcorp.example\n"
	                         "REDACTED-host-3\tweb-01.corp.example\n");
	assert_int_equal(redact_count(r), 5);
	sb_free(&m);
	redact_free(r);
}

/* A host name of letters only ("vm") is replaced where it names the host, and the kernel's
 * words that hold it stay: sysctl names, symbols, /proc paths, a sentence's word. A name
 * that is not a word ("zeta-web7") is replaced wherever it stands alone, but in a symbol. */
static void test_host_word(void **state)
{
	(void)state;
	static const struct { const char *in, *want; } cases[] = {
		{ "vm\n", "REDACTED-host-1\n" },                        /* the hostname file */
		{ "vm", "REDACTED-host-1" },                              /* a JSON string */
		{ "lower vm.dirty_ratio", "lower vm.dirty_ratio" },      /* a sysctl name */
		{ "/proc/sys/vm/dirty_ratio", "/proc/sys/vm/dirty_ratio" },
		{ " __access_remote_vm+0x1/0x2", " __access_remote_vm+0x1/0x2" },
		{ " vm.isra.0+0x1f/0x40", " vm.isra.0+0x1f/0x40" },      /* a symbol */
		{ "the vm subsystem", "the vm subsystem" },              /* a sentence */
		{ "vm login: bob", "REDACTED-host-1 login: bob" },       /* a message's first */
		{ "6,101,1001,-;vm kernel: x", "6,101,1001,-;REDACTED-host-1 kernel: x" },
		{ "Dec  1 12:00:01 vm kernel: x", "Dec  1 12:00:01 REDACTED-host-1 kernel: x" },
		{ "sshfs bob@vm:/srv", "sshfs bob@REDACTED-host-1:/srv" },
		{ "vm:/export on /mnt", "REDACTED-host-1:/export on /mnt" },
		{ "mounted /srv/vm-data/x.", "mounted /srv/REDACTED-host-1-data/x." },
		{ "0::/vm-batch.slice", "0::/REDACTED-host-1-batch.slice" },
		{ "unit vm-batch.service, failed", "unit REDACTED-host-1-batch.service, failed" },
		{ "vm.corp.example said", "REDACTED-host-2 said" },      /* the FQDN */
		{ "corp.example", "REDACTED-domain-1" },
		{ "zeta-web7 said", "REDACTED-host-3 said" },            /* not a word: everywhere */
		{ "zeta-web7.other", "REDACTED-host-3.other" },
		{ " zeta-web7+0x1/0x2", " zeta-web7+0x1/0x2" },
	};
	struct cgw_redact *r = redact_new();
	assert_int_equal(redact_add_host(r, "vm", "corp.example"), 0);
	assert_int_equal(redact_add_host(r, "zeta-web7", NULL), 0);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect(cases[i].in, red(r, cases[i].in, strlen(cases[i].in)), cases[i].want);
	struct strbuf o = { 0 };                     /* a path: whole */
	assert_int_equal(redact_path(r, "/vm", 3, &o), 0);
	sb_add(&o, "", 0);
	assert_string_equal(o.s, "/REDACTED-host-1");
	sb_free(&o);
	static const char rep[] = "cgwatch check on vm (kernel 6.18) at x\nvm is fine\n";
	assert_int_equal(redact_file(r, "report.txt", rep, sizeof(rep) - 1, &o), 0);
	sb_add(&o, "", 0);
	assert_string_equal(o.s, "cgwatch check on REDACTED-host-1 (kernel 6.18) at x\n"
	                         "REDACTED-host-1 is fine\n");
	sb_free(&o);
	assert_non_null(redact_add(r, "user", "vm", 2));  /* a user "vm" too: everywhere */
	expect("user vm", red(r, "the vm subsystem", 16), "the REDACTED-host-1 subsystem");
	redact_free(r);
}

/* The host's addresses: all of one address, never part of a longer one. */
static void test_addr(void **state)
{
	(void)state;
	static const struct { const char *in, *want; } cases[] = {
		{ "addr=192.0.2.7,clientaddr=192.0.2.7", "addr=REDACTED-addr-1,clientaddr=REDACTED-addr-1" },
		{ "192.0.2.71 10.192.0.2.7 192.0.2.7.1", "192.0.2.71 10.192.0.2.7 192.0.2.7.1" },
		{ "[2001:db8::7]:22 2001:db8::7%eth0", "[REDACTED-addr-2]:22 REDACTED-addr-2%eth0" },
		{ "2001:db8::7:1 2001:db8::71 ::ffff:192.0.2.7", "2001:db8::7:1 2001:db8::71 ::ffff:REDACTED-addr-1" },
		{ "192.0.2.7/24", "REDACTED-addr-1/24" },
	};
	struct cgw_redact *r = redact_new();
	assert_int_equal(redact_add_addr(r, "192.0.2.7"), 0);
	assert_int_equal(redact_add_addr(r, "2001:db8::7"), 0);
	assert_int_equal(redact_add_addr(r, "192.0.2.7"), 0);
	assert_int_equal(redact_add_addr(r, "not-an-address"), -EINVAL);
	assert_int_equal(redact_count(r), 2);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++)
		expect(cases[i].in, red(r, cases[i].in, strlen(cases[i].in)), cases[i].want);
	redact_free(r);
}

/* A value holding a control byte is escaped in the map, never written raw. */
static void test_map_escaped(void **state)
{
	(void)state;
	struct cgw_redact *r = redact_new();
	assert_non_null(redact_add(r, "host", "a\nb\x1b", 4));
	struct strbuf m = { 0 };
	redact_map_text(r, &m);
	assert_string_equal(m.s, "REDACTED-host-1\ta\\x0ab\\x1b\n");
	sb_free(&m);
	redact_free(r);
}

static void test_passwd(void **state)
{
	(void)state;
	static const char pw[] =
		"root:x:0:0:root:/root:/bin/bash\n"
		"# a comment\n"
		"\n"
		"daemon:x:1:1:daemon:/usr/sbin:/usr/sbin/nologin\n"
		"alice:x:1000:1000:Alice A,,,:/home/alice:/bin/bash\r\n"
		"bad:x:notanumber:1::/:/bin/sh\n"
		"short:x:1001\n"
		"+nisuser::::::\n"
		":x:1002:1002::/home/x:/bin/sh\n"
		"toolong:x:1003:1003::/home/t:/bin/sh:extra\n"
		"big:x:4294967295:1::/:/bin/sh\n"
		"bob:x:60000:60000::/srv/bob:";          /* no final newline */
	struct passwd_list l;
	size_t bad = 0;
	assert_int_equal(passwd_parse(pw, sizeof(pw) - 1, &l, &bad), 0);
	assert_int_equal(l.n, 4);
	assert_int_equal(bad, 6);
	assert_string_equal(l.v[0].name, "root");
	assert_int_equal(l.v[0].uid, 0);
	assert_string_equal(l.v[0].home, "/root");
	assert_string_equal(l.v[2].name, "alice");
	assert_int_equal(l.v[2].uid, 1000);
	assert_int_equal(l.v[2].gid, 1000);
	assert_string_equal(l.v[2].home, "/home/alice");
	assert_string_equal(l.v[3].name, "bob");
	assert_int_equal(l.v[3].uid, 60000);
	assert_int_equal(l.v[3].gid, 60000);
	assert_string_equal(l.v[3].home, "/srv/bob");
	passwd_free(&l);
	assert_int_equal(passwd_parse("", 0, &l, NULL), 0);
	assert_int_equal(l.n, 0);
	passwd_free(&l);
	static const char nul[] = "a:x:1000:1:\0:/h:/s\n";
	assert_int_equal(passwd_parse(nul, sizeof(nul) - 1, &l, &bad), 0);
	assert_int_equal(l.n, 0);
	assert_int_equal(bad, 1);
	passwd_free(&l);
}

/* /etc/group: name and gid of four fields; the rest counted bad. */
static void test_group(void **state)
{
	(void)state;
	static const char gr[] =
		"root:x:0:\n"
		"# a comment\n"
		"\n"
		"alice:x:1000:\r\n"
		"devs:x:5001:alice,bob\n"
		"bad:x:notanumber:\n"
		"short:x:1001\n"
		"+nisgroup:::\n"
		":x:1002:\n"
		"toolong:x:1003::extra\n"
		"big:x:4294967295:\n"
		"last:x:7:";                            /* no final newline */
	struct group_list l;
	size_t bad = 0;
	assert_int_equal(group_parse(gr, sizeof(gr) - 1, &l, &bad), 0);
	assert_int_equal(l.n, 4);
	assert_int_equal(bad, 6);
	assert_string_equal(l.v[1].name, "alice");
	assert_int_equal(l.v[1].gid, 1000);
	assert_string_equal(l.v[2].name, "devs");
	assert_int_equal(l.v[2].gid, 5001);
	assert_string_equal(l.v[3].name, "last");
	assert_int_equal(l.v[3].gid, 7);
	group_free(&l);
	static const char nul[] = "a:x:1000:\0\n";
	assert_int_equal(group_parse(nul, sizeof(nul) - 1, &l, &bad), 0);
	assert_int_equal(l.n, 0);
	assert_int_equal(bad, 1);
	group_free(&l);
}

/* /etc/hosts: the lines naming the host (short or NAME.domain, any case): their names but
 * localhost's, their addresses but loopback's, each once. */
static void test_hosts(void **state)
{
	(void)state;
	static const char hs[] =
		"127.0.0.1\tlocalhost\n"
		"127.0.1.1 web-01.corp.example web-01\n"
		"# 10.9.9.9 web-01\n"
		"10.0.0.7 WEB-01.lan.example mail  # this host\n"
		"2001:db8::7 web-01\n"
		"10.0.0.8 web-011 web-01x notweb-01\n"
		"::1 localhost ip6-localhost web-01\n"
		"lonely\n";
	struct hosts_list l;
	assert_int_equal(hosts_parse(hs, sizeof(hs) - 1, "web-01.corp.example", &l), 0);
	assert_int_equal(l.nnames, 4);
	assert_string_equal(l.names[0], "web-01.corp.example");
	assert_string_equal(l.names[1], "web-01");
	assert_string_equal(l.names[2], "WEB-01.lan.example");
	assert_string_equal(l.names[3], "mail");
	assert_int_equal(l.naddrs, 2);
	assert_string_equal(l.addrs[0], "10.0.0.7");
	assert_string_equal(l.addrs[1], "2001:db8::7");
	hosts_free(&l);
	assert_int_equal(hosts_parse(hs, sizeof(hs) - 1, "localhost", &l), 0);
	assert_int_equal(l.nnames + l.naddrs, 0);
	assert_int_equal(hosts_parse(hs, sizeof(hs) - 1, "", &l), 0);
	assert_int_equal(l.nnames + l.naddrs, 0);
	assert_int_equal(hosts_parse(hs, sizeof(hs) - 1, NULL, &l), 0);
	assert_int_equal(l.nnames + l.naddrs, 0);
}

static void test_status_uids(void **state)
{
	(void)state;
	unsigned u[4];
	const char *s = "Name:\tx\nUid:\t1000\t0\t1001\t1002\nGid:\t5\t5\t5\t5\n";
	assert_int_equal(status_uids(s, strlen(s), u), 4);
	assert_int_equal(u[0], 1000);
	assert_int_equal(u[1], 0);
	assert_int_equal(u[3], 1002);
	s = "Uid:\t7\tx\n";
	assert_int_equal(status_uids(s, strlen(s), u), 1);
	s = "Gid:\t1\n";
	assert_int_equal(status_uids(s, strlen(s), u), 0);
	s = "Uid:\t4294967295\n";
	assert_int_equal(status_uids(s, strlen(s), u), 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tokens),
		cmocka_unit_test(test_paths_nest),
		cmocka_unit_test(test_members),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_who_counts),
		cmocka_unit_test(test_host),
		cmocka_unit_test(test_host_word),
		cmocka_unit_test(test_addr),
		cmocka_unit_test(test_map_escaped),
		cmocka_unit_test(test_passwd),
		cmocka_unit_test(test_group),
		cmocka_unit_test(test_hosts),
		cmocka_unit_test(test_status_uids),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
