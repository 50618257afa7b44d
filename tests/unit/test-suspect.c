/* test-suspect.c: what the scan reads of a suspect (source-tasks.c scan_suspects), on a thread
 * of this process blocked in an open of a FIFO, taken for a blocked task: its wchan, cgroup,
 * syscall line and the path in its memory, read through the deadline's worker in one
 * hand-off for them all, and the same answers as each read on its own. */
#include <fcntl.h>
#include <pthread.h>
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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_suspect_reads),
	};
	return tmpdir_cleanup_all(cmocka_run_group_tests(tests, NULL, NULL));
}
