/* test-capture.c: the recorder (record.c), the capture's files (parse-capture.c) and the tree
 * writer (source-capture.c). */
#include <fcntl.h>
#include <sys/stat.h>

#include "unit.h"

static void test_clocks_roundtrip(void **state)
{
	(void)state;
	struct cap_clocks *a = xcalloc(1, sizeof(*a)), *b = xcalloc(1, sizeof(*b));
	a->reader_ms = 16330344.954474;
	a->have_uptime = true;
	a->uptime_s = 16365.852698;
	a->cpu[a->n++] = (struct cap_clock){ 1, 2568.556525, BOUND_EXACT };
	a->cpu[a->n++] = (struct cap_clock){ 0, -313.720166, BOUND_LOWER };
	struct strbuf sb = { 0 };
	clocks_format(a, &sb);
	assert_int_equal(parse_clocks(sb.s, b), 0);
	assert_near(b->reader_ms, a->reader_ms, 1e-6);
	assert_true(b->have_uptime);
	assert_near(b->uptime_s, a->uptime_s, 1e-6);
	assert_int_equal(b->n, 2);
	struct cgw_now now;
	assert_true(clocks_cpu(b, 1, &now));
	assert_near(now.ms, 16330344.954474 + 2568.556525, 1e-6);
	assert_int_equal(now.bound, BOUND_EXACT);
	assert_true(clocks_cpu(b, 0, &now));
	assert_int_equal(now.bound, BOUND_LOWER);
	assert_near(now.ms, 16330344.954474 - 313.720166, 1e-6);
	assert_false(clocks_cpu(b, 2, &now));
	sb_free(&sb);
	free(a);
	free(b);
}

static void test_clocks_bad(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"",
		"cgwatch-clocks 2\nreader 5\n",
		"cgwatch-clocks 1\n",                                  /* no reader */
		"cgwatch-clocks 1\nreader nan\n",
		"cgwatch-clocks 1\nreader -5\n",
		"cgwatch-clocks 1\nreader 1e3\n",
		"cgwatch-clocks 1\nreader 5\nreader 6\n",
		"cgwatch-clocks 1\nreader 5 x\n",
		"cgwatch-clocks 1\nreader 5\ncpu 1 3 exact\ncpu 1 4 exact\n",   /* twice */
		"cgwatch-clocks 1\nreader 5\ncpu 8192 3 exact\n",
		"cgwatch-clocks 1\nreader 5\ncpu 1 3 maybe\n",
		"cgwatch-clocks 1\nreader 5\ncpu 1 inf exact\n",
		"cgwatch-clocks 1\nreader 5\ncpu -1 3 exact\n",
		"cgwatch-clocks 1\nreader 5\nuptime 1\nuptime 2\n",
		"cgwatch-clocks 1\nreader 5\nwhat 1\n",
		"cgwatch-clocks 1\nreader 5\nsuspect 7 100\n",                 /* no count */
		"cgwatch-clocks 1\nreader 5\nsuspects 2\nsuspect 7 100\n",     /* one short */
		"cgwatch-clocks 1\nreader 5\nsuspects 1\nsuspect 7 100\nsuspect 8 1\n",
		"cgwatch-clocks 1\nreader 5\nsuspects 1\nsuspects 1\nsuspect 7 100\n",
		"cgwatch-clocks 1\nreader 5\nsuspects 1\nsuspect 0 100\n",
		"cgwatch-clocks 1\nreader 5\nsuspects 1\nsuspect 7\n",
		"cgwatch-clocks 1\nreader 5\nsuspects 1\nsuspect 7 -1\n",
		"cgwatch-clocks 1\nreader 5\nsuspects 4097\n",
	};
	struct cap_clocks *c = xcalloc(1, sizeof(*c));
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (parse_clocks(bad[i], c) == 0)
			print_error("accepted: %s\n", esc(bad[i]));
		assert_int_not_equal(parse_clocks(bad[i], c), 0);
	}
	assert_int_equal(parse_clocks("cgwatch-clocks 1\n# note\n\nreader 5.5\ncpu 3 -0 lower\n", c), 0);
	assert_near(c->reader_ms, 5.5, 1e-9);
	assert_int_equal(c->n, 1);
	assert_false(c->have_uptime);
	free(c);
}

/* The second look's verdict: listed in the clocks file, and a replay keeps only those. */
static void test_replay_verdict(void **state)
{
	(void)state;
	struct cap_clocks *a = xcalloc(1, sizeof(*a)), *b = xcalloc(1, sizeof(*b));
	a->reader_ms = 5000;
	a->have_suspects = true;
	a->sus[a->nsus++] = (struct cap_suspect){ 21104, 77 };
	struct strbuf sb = { 0 };
	clocks_format(a, &sb);
	assert_int_equal(parse_clocks(sb.s, b), 0);
	assert_true(clocks_suspect(b, 21104, 77));
	assert_false(clocks_suspect(b, 21104, 78));          /* a reused tid is another task */
	assert_false(clocks_suspect(b, 20091, 77));
	sb_free(&sb);
	/* a replay of that capture: the runner the live second look dropped stays dropped */
	struct unit_scan u;
	us_init(&u);
	us_task(&u, 21104, 21104, "kworker/1:1", 11, 30);
	us_task(&u, 20091, 20091, "fuzz", 4, 30);
	u.scan.t[0].start_ticks = u.scan.t[1].start_ticks = 77;
	u.scan.replay_clocks = b;
	detect_replay_verdict(&u.scan);
	assert_int_equal(u.scan.n, 1);
	assert_int_equal(u.scan.t[0].tid, 21104);
	/* a live scan, or a replay without a verdict, keeps them all */
	us_task(&u, 20091, 20091, "fuzz", 4, 30);
	b->have_suspects = false;
	detect_replay_verdict(&u.scan);
	assert_int_equal(u.scan.n, 2);
	u.scan.replay_clocks = NULL;
	us_free(&u);
	free(a);
	free(b);
}

static void test_unreadable_lines(void **state)
{
	(void)state;
	static const struct { const char *path; int err; const char *reason; } cases[] = {
		{ "proc/1/task/1/stack", EACCES, "permission" },
		{ "proc/7/task/7/stack", ETIMEDOUT, "timed-out" },
		{ "proc/7/task/7/wchan", ENOENT, "vanished" },
		{ "proc/pressure/irq", ENOENT, "absent" },
		{ "sys/fs/cgroup/a b\n\\x/freezer.state", EIO, "failed" },
		{ "proc/7/task/7/cgroup", ETIME, "skipped" },
	};
	struct strbuf b = { 0 };
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		unreadable_format(cases[i].path, cases[i].err, strerror(cases[i].err), &b);
	const char *l = b.s;
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char reason[32], path[256];
		const char *detail;
		assert_non_null(l);
		assert_int_equal(parse_unreadable_line(l, reason, sizeof(reason), path, sizeof(path),
		                                       &detail), 0);
		assert_string_equal(reason, cases[i].reason);
		assert_string_equal(path, cases[i].path);
		assert_memory_equal(detail, strerror(cases[i].err), strlen(strerror(cases[i].err)));
		l = strchr(l, '\n');
		l = l ? l + 1 : NULL;
	}
	assert_string_equal(l, "");
	sb_free(&b);
	char r[32], p[8];
	const char *d;
	assert_int_equal(parse_unreadable_line("bogus proc/1 x", r, sizeof(r), p, sizeof(p), &d), -EINVAL);
	assert_int_equal(parse_unreadable_line("failed \\x00 x", r, sizeof(r), p, sizeof(p), &d), -EINVAL);
	assert_int_equal(parse_unreadable_line("failed \\x4 x", r, sizeof(r), p, sizeof(p), &d), -EINVAL);
	assert_int_equal(parse_unreadable_line("failed  x", r, sizeof(r), p, sizeof(p), &d), -EINVAL);
	assert_int_equal(parse_unreadable_line("failed proc/12345678 x", r, sizeof(r), p, sizeof(p),
	                                       &d), -ENAMETOOLONG);
}

static struct rec_entry *find(struct rec_entry *l, const char *path)
{
	for (; l; l = l->next)
		if (strcmp(l->path, path) == 0)
			return l;
	return NULL;
}

/* What libproc2 said of a process, written and read back; malformed files refused. */
static void test_detail(void **state)
{
	(void)state;
	struct cap_detail d = { .user = "alice", .unit = "db.service", .have_started = true,
	                        .started_at = 1764620000.25 }, e;
	struct strbuf b = { 0 };
	detail_format(&d, &b);
	assert_false(b.lost);
	assert_int_equal(parse_detail(b.s, &e), 0);
	assert_string_equal(e.user, "alice");
	assert_string_equal(e.unit, "db.service");
	assert_true(e.have_started);
	assert_true(e.started_at == 1764620000.25);
	sb_free(&b);
	/* a name that is not text is left out, never written across lines */
	struct cap_detail bad = { .user = "ev\nil", .unit = "" };
	bad.user[2] = '\n';
	detail_format(&bad, &b);
	assert_null(strstr(b.s, "user"));
	assert_int_equal(parse_detail(b.s, &e), 0);
	assert_string_equal(e.user, "");
	assert_false(e.have_started);
	sb_free(&b);
	assert_int_equal(parse_detail("cgwatch-detail 1\n# a comment\n\nuser root\n", &e), 0);
	assert_string_equal(e.user, "root");
	static const char *const refused[] = {
		"", "cgwatch-detail 2\nuser a\n", "user a\n", "cgwatch-detail 1\nuser \n",
		"cgwatch-detail 1\nuser a\nuser b\n", "cgwatch-detail 1\nshell /bin/sh\n",
		"cgwatch-detail 1\nstarted_at -1\n", "cgwatch-detail 1\nstarted_at nan\n",
		"cgwatch-detail 1\nstarted_at 1e9\n", "cgwatch-detail 1\nstarted_at 12 x\n",
		"cgwatch-detail 1\nunit \x01x\n",
	};
	for (size_t i = 0; i < sizeof(refused) / sizeof(refused[0]); i++)
		assert_int_equal(parse_detail(refused[i], &e), -EINVAL);
	char longname[300];
	memset(longname, 'u', sizeof(longname));
	memcpy(longname, "cgwatch-detail 1\nuser ", 22);
	longname[sizeof(longname) - 1] = '\0';
	assert_int_equal(parse_detail(longname, &e), -EINVAL);    /* longer than a user name */
}

static void test_recorder(void **state)
{
	(void)state;
	char buf[4096];
	read_small_file("/proc/self/stat", buf, sizeof(buf));   /* not recording: not kept */
	record_start();
	ssize_t n = read_small_file("/proc/self/stat", buf, sizeof(buf));
	assert_true(n > 0);
	assert_true(record_has("proc/self/stat"));
	assert_int_equal(read_small_file("/proc/cgwatch-no-such-file", buf, sizeof(buf)), -ENOENT);
	assert_true(read_small_file("/etc/hostname", buf, sizeof(buf)) != 0 || true);
	assert_false(record_has("etc/hostname"));
	/* a deadline read: recorded once, by the caller, as it saw it */
	n = dl_read_file("/proc/self/status", buf, sizeof(buf), 2000);
	assert_true(n > 0);
	/* relative to a directory fd */
	int dfd = open("/proc/self/task", O_RDONLY | O_DIRECTORY);
	char name[32];
	snprintf(name, sizeof(name), "%d/sched", (int)gettid());
	assert_true(read_once_at(dfd, name, -1, buf, sizeof(buf)) > 0);
	close(dfd);
	char tp[128];
	snprintf(tp, sizeof(tp), "proc/%d/task/%d/sched", (int)getpid(), (int)gettid());
	assert_true(record_has(tp));
	/* the last read wins; forget drops */
	record_put("proc/uptime", REC_FILE, "1.00 2.00\n", 10);
	record_put("proc/uptime", REC_FILE, "3.00 4.00\n", 10);
	record_put("proc/1/task/1/stat", REC_FILE, "x", 1);
	record_forget("/proc/1/task/1/stat");
	record_link("/proc/5/task/5/fd/3", "/mnt/a/x", 8);
	struct rec_entry *all = record_take();
	assert_false(record_active());
	struct rec_entry *e = find(all, "proc/uptime");
	assert_non_null(e);
	assert_string_equal(e->data, "3.00 4.00\n");
	assert_null(find(all, "proc/1/task/1/stat"));
	assert_null(find(all, "etc/hostname"));
	e = find(all, "proc/cgwatch-no-such-file");
	assert_non_null(e);
	assert_int_equal(e->err, ENOENT);
	e = find(all, "proc/self/status");
	assert_non_null(e);
	assert_int_equal(e->err, 0);
	assert_true(e->len > 0 && strstr(e->data, "Tgid:"));
	e = find(all, "proc/5/task/5/fd/3");
	assert_non_null(e);
	assert_int_equal(e->kind, REC_LINK);
	assert_string_equal(e->data, "/mnt/a/x");
	record_free(all);
	/* stopped: nothing more is kept */
	read_small_file("/proc/self/stat", buf, sizeof(buf));
	record_start();
	assert_false(record_has("proc/self/stat"));
	record_free(record_take());
}

static char tmpdir[64];

static void mk_tmp(void)
{
	snprintf(tmpdir, sizeof(tmpdir), "/tmp/cgw-test-capture.XXXXXX");
	assert_non_null(mkdtemp(tmpdir));
}

static void rm_tmp(void)
{
	char cmd[128];
	snprintf(cmd, sizeof(cmd), "rm -rf %s", tmpdir);
	assert_int_equal(system(cmd), 0);
}

static void test_put_file(void **state)
{
	(void)state;
	mk_tmp();
	int root = open(tmpdir, O_RDONLY | O_DIRECTORY);
	assert_int_equal(capture_put_file(root, "proc/5/task/5/stat", "abc", 3, false), 0);
	assert_int_equal(capture_put_file(root, "proc/5/task/5/stat", "abc", 3, false), -EEXIST);
	assert_int_equal(capture_put_file(root, "proc/5/fd/3", "/mnt/a/x", 8, true), 0);
	static const char *const bad[] = { "../x", "proc/../x", "/proc/x", "etc/x", "proc//x",
	                                   "proc/./x", "proc/x/", "proc/.." };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(capture_put_file(root, bad[i], "", 0, false), -EINVAL);
	/* a symlink in the tree is never followed */
	char p[256], out[128];
	snprintf(out, sizeof(out), "%s-outside", tmpdir);
	assert_int_equal(mkdir(out, 0700), 0);
	snprintf(p, sizeof(p), "%s/sys", tmpdir);
	assert_int_equal(symlink(out, p), 0);
	int r = capture_put_file(root, "sys/escape", "x", 1, false);
	snprintf(p, sizeof(p), "%s/escape", out);
	bool escaped = access(p, F_OK) == 0;
	unlink(p);
	rmdir(out);
	assert_true(r == -ELOOP || r == -ENOTDIR);
	assert_false(escaped);
	struct stat st;
	snprintf(p, sizeof(p), "%s/proc/5/task/5/stat", tmpdir);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0600);
	snprintf(p, sizeof(p), "%s/proc/5/task", tmpdir);
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	char t[64] = "";
	snprintf(p, sizeof(p), "%s/proc/5/fd/3", tmpdir);
	assert_int_equal(readlink(p, t, sizeof(t) - 1), 8);
	assert_string_equal(t, "/mnt/a/x");
	close(root);
	rm_tmp();
}

static void test_open_refuses(void **state)
{
	(void)state;
	mk_tmp();
	char p[256], msg[512];
	struct cgw_capture *c;
	snprintf(p, sizeof(p), "%s/f", tmpdir);
	assert_int_equal(close(open(p, O_CREAT | O_WRONLY, 0600)), 0);
	assert_int_equal(capture_open(tmpdir, 1000, &c, msg, sizeof(msg)), -EEXIST);   /* not empty */
	assert_null(c);
	assert_non_null(strstr(msg, "not empty"));
	snprintf(p, sizeof(p), "%s/link", tmpdir);
	assert_int_equal(symlink("/tmp", p), 0);
	assert_true(capture_open(p, 1000, &c, msg, sizeof(msg)) < 0);          /* a symlink */
	snprintf(p, sizeof(p), "%s/theirs", tmpdir);        /* empty, but another user's */
	assert_int_equal(mkdir(p, 0755), 0);
	if (geteuid() == 0) {
		assert_int_equal(chown(p, 65534, 65534), 0);
		assert_int_equal(capture_open(p, 1000, &c, msg, sizeof(msg)), -EPERM);
		assert_null(c);
	}
	snprintf(p, sizeof(p), "%s/new", tmpdir);
	assert_int_equal(capture_open(p, 1000, &c, msg, sizeof(msg)), 0);
	struct stat st;
	assert_int_equal(stat(p, &st), 0);
	assert_int_equal(st.st_mode & 07777, 0700);
	capture_free(c);
	rm_tmp();
}

/* A capture whose task's stack could not be read (permission): the line in
 * cgwatch/unreadable, the rest of the tree written; a task no finding names is left out. */
static void test_write_unreadable(void **state)
{
	(void)state;
	mk_tmp();
	char dir[128], msg[512], p[256], buf[4096];
	snprintf(dir, sizeof(dir), "%s/cap", tmpdir);
	struct cgw_capture *c;
	assert_int_equal(capture_open(dir, 1000, &c, msg, sizeof(msg)), 0);
	/* tids no host has: the capture's own reads of their files find nothing */
	record_put("proc/2000000001/task/2000000001/stat", REC_FILE, "stat of the task", 16);
	record_put("proc/2000000001/task/2000000001/stack", REC_FILE, NULL, -EACCES);
	record_put("proc/2000000002/task/2000000002/stat", REC_FILE, "not named", 9);
	record_put("proc/uptime", REC_FILE, "5.00 6.00\n", 10);
	struct cgw_task t = { .tid = 2000000001, .tgid = 2000000001, .cpu = 0 };
	struct cgw_scan s = { .t = &t, .n = 1, .now_ms = 1000, .now_mono_ms = mono_ms() };
	size_t idx = 0;
	struct cgw_finding f = { .tasks = &idx, .ntasks = 1 };
	struct cgw_report r = { .scan = &s, .f = &f, .nf = 1 };
	capture_mark(c, &s);
	assert_int_equal(capture_write(c, &r, msg, sizeof(msg)), 0);
	capture_free(c);
	snprintf(p, sizeof(p), "%s/proc/2000000001/task/2000000001/stat", dir);
	assert_int_equal(read_small_file(p, buf, sizeof(buf)), 16);
	snprintf(p, sizeof(p), "%s/proc/2000000002", dir);
	assert_int_not_equal(access(p, F_OK), 0);
	snprintf(p, sizeof(p), "%s/proc/uptime", dir);
	assert_int_equal(read_small_file(p, buf, sizeof(buf)), 10);
	snprintf(p, sizeof(p), "%s/cgwatch/unreadable", dir);
	assert_true(read_small_file(p, buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "permission proc/2000000001/task/2000000001/stack "));
	snprintf(p, sizeof(p), "%s/cgwatch/clocks", dir);
	assert_true(read_small_file(p, buf, sizeof(buf)) > 0);
	struct cap_clocks *k = xcalloc(1, sizeof(*k));
	assert_int_equal(parse_clocks(buf, k), 0);
	assert_true(k->reader_ms >= 1000 && k->reader_ms < 1000 + 5000);
	free(k);
	rm_tmp();
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_clocks_roundtrip),
		cmocka_unit_test(test_clocks_bad),
		cmocka_unit_test(test_replay_verdict),
		cmocka_unit_test(test_unreadable_lines),
		cmocka_unit_test(test_detail),
		cmocka_unit_test(test_recorder),
		cmocka_unit_test(test_put_file),
		cmocka_unit_test(test_open_refuses),
		cmocka_unit_test(test_write_unreadable),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
