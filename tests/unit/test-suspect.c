/* test-suspect.c: what the scan reads of a suspect (source-tasks.c scan_suspects), on a thread
 * of this process blocked in an open of a FIFO, taken for a blocked task: its wchan, cgroup,
 * syscall line and the path in its memory, read through the deadline's worker in one
 * hand-off for them all, and the same answers as each read on its own. */
#include <fcntl.h>
#include <pthread.h>
#include <sys/inotify.h>
#include <sys/stat.h>
#include <sys/syscall.h>

#include "unit.h"

struct opener { char path[300]; pid_t tid; int fd; };

static void *open_fifo(void *p)
{
	struct opener *o = p;
	__atomic_store_n(&o->tid, (pid_t)syscall(SYS_gettid), __ATOMIC_SEQ_CST);
	o->fd = open(o->path, O_RDONLY);        /* blocks until the test opens it for writing */
	return NULL;
}

/* /proc/self/task/TID/syscall names openat: the thread sits in it. */
static bool in_open(pid_t tid)
{
	char p[96], line[256];
	snprintf(p, sizeof(p), "/proc/self/task/%d/syscall", tid);
	struct cgw_syscall sc;
	return read_small_file(p, line, sizeof(line)) > 0 && parse_syscall_line(line, &sc) == 1 &&
	       sc.nr == SYS_openat;
}

/* One suspect as the scan reads it, on a fresh scan state. */
static void scan_one(struct cgw_scan *s, pid_t tid, char *mountinfo)
{
	memset(s, 0, sizeof(*s));
	s->live = true;
	s->mountinfo = mountinfo;
	parse_mountinfo_cgroup(mountinfo, "freezer", s->freezer_mnt, sizeof(s->freezer_mnt));
	parse_mountinfo_cgroup(mountinfo, NULL, s->cgroup2_mnt, sizeof(s->cgroup2_mnt));
	ssize_t n = readlink("/proc/self/ns/mnt", s->mntns_self, sizeof(s->mntns_self) - 1);
	assert_true(n > 0);
	struct cgw_task *t = scan_push(s);
	assert_non_null(t);
	t->tgid = getpid();
	t->tid = tid;
	t->state = 'D';                       /* taken for a blocked task: its wait file is read */
	t->suspect = SUSPECT_BLOCKED;
	struct cgw_scan_opts o = { .read_timeout_ms = 2000, .self_tgid = getpid() };
	assert_int_equal(scan_suspects(s, &o), 0);
}

static void test_suspect_reads(void **state)
{
	(void)state;
	char dir[64];
	tmpdir_make(dir, sizeof(dir));
	struct opener o = { .fd = -1 };
	snprintf(o.path, sizeof(o.path), "%s/fifo", dir);
	assert_int_equal(mkfifo(o.path, 0600), 0);
	pthread_t th;
	assert_int_equal(pthread_create(&th, NULL, open_fifo, &o), 0);
	for (int i = 0; i < 500 && !(__atomic_load_n(&o.tid, __ATOMIC_SEQ_CST) &&
	                             in_open(o.tid)); i++)
		usleep(10000);
	assert_true(in_open(o.tid));
	char *mi = malloc(1 << 20);
	assert_non_null(mi);
	assert_true(read_small_file("/proc/self/mountinfo", mi, 1 << 20) > 0);

	struct cgw_scan s;
	unsigned long h0 = dl_handoffs();
	scan_one(&s, o.tid, mi);
	/* the suspect's reads in one hand-off, and one for the process details (libproc2) */
	assert_int_equal(dl_handoffs() - h0, 2);
	const struct cgw_task *t = &s.t[0];
	assert_true(t->sys_known);
	assert_int_equal(t->sys_nr, SYS_openat);
	assert_non_null(t->wait_path);
	assert_string_equal(t->wait_path, o.path);
	assert_true(t->cgroup[0] != '\0');
	assert_int_equal(s.timeouts, 0);
	s.mountinfo = NULL;                   /* the test's */
	scan_free(&s);

	int fd = open(o.path, O_WRONLY);      /* the opener returns */
	assert_true(fd >= 0);
	pthread_join(th, NULL);
	close(fd);
	if (o.fd >= 0)
		close(o.fd);
	free(mi);
	tmpdir_remove(dir);
}

/* Opens of path since its watch was added (inotify, fd non-blocking). */
static int opens(int fd)
{
	char buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
	int n = 0;
	ssize_t r;
	while ((r = read(fd, buf, sizeof(buf))) > 0)
		for (char *p = buf; p < buf + r; p += sizeof(struct inotify_event) +
		                                  ((struct inotify_event *)p)->len)
			n += (((struct inotify_event *)p)->mask & IN_OPEN) != 0;
	return n;
}

/* Threads of one cgroup: its freezer files are read once in the scan, for the first of them;
 * the others are answered the same; and the reads of many suspects are made a batch of them
 * at a time. The hierarchies are this test's own directories with the files at the paths
 * this process's cgroup file names. */
static void test_freezer_read_once(void **state)
{
	(void)state;
	char line[4096], v1[256], v2[256], dir[64], p[1024];
	assert_true(read_small_file("/proc/self/cgroup", line, sizeof(line)) > 0);
	assert_int_equal(parse_cgroup_buf(line, "freezer", v1, sizeof(v1), v2, sizeof(v2)) == -EINVAL,
	                 0);
	if (!v1[0] && !v2[0])
		skip();                           /* neither hierarchy: no freezer file is read */
	tmpdir_make(dir, sizeof(dir));
	struct { const char *cg, *sub, *name, *text; } h[2] = {
		{ v1, "v1", "freezer.state", "THAWED\n" },
		{ v2, "v2", "cgroup.events", "populated 1\nfrozen 0\n" },
	};
	int ino = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);
	assert_true(ino >= 0);
	char mnt[2][200];
	for (int k = 0; k < 2; k++) {
		snprintf(mnt[k], sizeof(mnt[k]), "%s/%s", dir, h[k].sub);
		if (!h[k].cg[0])
			continue;
		snprintf(p, sizeof(p), "mkdir -p '%s%s'", mnt[k], h[k].cg);
		assert_int_equal(system(p), 0);
		snprintf(p, sizeof(p), "%s%s/%s", mnt[k], strcmp(h[k].cg, "/") ? h[k].cg : "",
		         h[k].name);
		FILE *f = fopen(p, "w");
		assert_non_null(f);
		fputs(h[k].text, f);
		fclose(f);
		assert_true(inotify_add_watch(ino, p, IN_OPEN) >= 0);
	}
	struct cgw_scan s;
	memset(&s, 0, sizeof(s));
	s.live = true;
	if (v1[0])
		snprintf(s.freezer_mnt, sizeof(s.freezer_mnt), "%s", mnt[0]);
	if (v2[0])
		snprintf(s.cgroup2_mnt, sizeof(s.cgroup2_mnt), "%s", mnt[1]);
	for (int i = 0; i < 20; i++) {        /* this thread, 20 times: one cgroup */
		struct cgw_task *t = scan_push(&s);
		assert_non_null(t);
		t->tgid = getpid();
		t->tid = (int)syscall(SYS_gettid);
		t->state = 'S';
	}
	struct cgw_scan_opts o = { .read_timeout_ms = 2000, .self_tgid = getpid() };
	unsigned long h0 = dl_handoffs();
	assert_int_equal(scan_suspects(&s, &o), 0);
	assert_int_equal(opens(ino), !!v1[0] + !!v2[0]);   /* each file once, not 20 times */
	/* the reads of 16 suspects a hand-off, and one for the process details (libproc2) */
	assert_int_equal(dl_handoffs() - h0, 3);
	for (int i = 0; i < 20; i++)
		assert_false(s.t[i].frozen);
	assert_int_equal(s.timeouts, 0);
	scan_free(&s);
	close(ino);
	tmpdir_remove(dir);
}

/* A freezer file that never answers (a FIFO): the first suspect's read of it times out, the
 * next two are answered at once that it is still stuck, and with the scan's budget of
 * timed-out reads spent, every read of the suspects after them is skipped: as when each
 * read was made on its own. */
static void test_stuck_file_budget(void **state)
{
	(void)state;
	char line[4096], v1[256], v2[256], dir[64], p[1024], fifo[1024] = "";
	assert_true(read_small_file("/proc/self/cgroup", line, sizeof(line)) > 0);
	assert_int_equal(parse_cgroup_buf(line, "freezer", v1, sizeof(v1), v2, sizeof(v2)) == -EINVAL,
	                 0);
	if (!v1[0] && !v2[0])
		skip();
	tmpdir_make(dir, sizeof(dir));
	struct cgw_scan s;
	memset(&s, 0, sizeof(s));
	s.live = true;
	const char *cg = v1[0] ? v1 : v2;
	char *mnt = v1[0] ? s.freezer_mnt : s.cgroup2_mnt;
	snprintf(mnt, 200, "%s/h", dir);
	snprintf(p, sizeof(p), "mkdir -p '%s%s'", mnt, cg);
	assert_int_equal(system(p), 0);
	snprintf(fifo, sizeof(fifo), "%s%s/%s", mnt, strcmp(cg, "/") ? cg : "",
	         v1[0] ? "freezer.state" : "cgroup.events");
	assert_int_equal(mkfifo(fifo, 0600), 0);
	for (int i = 0; i < 20; i++) {
		struct cgw_task *t = scan_push(&s);
		assert_non_null(t);
		t->tgid = getpid();
		t->tid = (int)syscall(SYS_gettid);
		t->state = 'S';
	}
	struct cgw_scan_opts o = { .read_timeout_ms = 300, .self_tgid = getpid() };
	assert_int_equal(scan_suspects(&s, &o), 0);
	assert_int_equal(s.timeouts, SCAN_MAX_TIMEOUTS);
	for (int i = 0; i < 20; i++) {
		print_message("# suspect %d: cgroup '%s' wchan '%s'\n", i, s.t[i].cgroup, s.t[i].wchan);
		assert_int_equal(s.t[i].cgroup[0] != '\0', i < SCAN_MAX_TIMEOUTS);
		assert_false(s.t[i].frozen);
	}
	scan_free(&s);
	int fd = open(fifo, O_WRONLY | O_NONBLOCK);   /* the stuck reader's open returns */
	if (fd >= 0)
		close(fd);
	for (int i = 0; i < 200 && dl_stuck() > 0; i++)
		usleep(10000);
	assert_int_equal(dl_stuck(), 0);
	tmpdir_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		/* first: its stuck read abandons the worker, which then exits; one that ran
		 * libproc2 (the process details) would leave its thread-local buffers lost */
		cmocka_unit_test(test_stuck_file_budget),
		cmocka_unit_test(test_suspect_reads),
		cmocka_unit_test(test_freezer_read_once),
	};
	return tmpdir_cleanup_all(cmocka_run_group_tests(tests, NULL, NULL));
}
