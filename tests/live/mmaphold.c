/* mmaphold: a process whose mmap_lock is held by a thread waiting on a FUSE server that
 * never answers, so that every reader of its memory map (/proc/PID/cmdline, environ, maps,
 * mem) blocks.
 *
 *   mmaphold DIR
 *
 * Mounts a FUSE file system on DIR (fstype fuse.mmaphold) and serves it itself: one regular
 * file, DIR/f (64 KiB), whose READ requests are never answered; a LOOKUP of any other name
 * is never answered either. Then it forks the victim, which
 *   - primes the connection: a stat of DIR/prime interrupted by a signal, whose INTERRUPT the
 *     server answers ENOSYS, so the kernel waits for every later answer killable (state D)
 *     instead of interruptible (state S);
 *   - maps DIR/f and starts a "holder" thread that reads the mapping through /proc/self/mem:
 *     get_user_pages faults on the page under the mmap_lock, read-held, and waits for the
 *     READ (D, in fuse);
 *   - starts a "waiter" thread that stats DIR/hang (D, in fuse; a path syscall, whose path a
 *     diagnosing tool reads from this process's memory);
 *   - starts a "writer" thread that unmaps the mapping: it waits for the mmap_lock exclusive
 *     (D, mmap-lock), and from then on every new reader of the lock queues behind it.
 * It prints "victim PID", "holder TID", "waiter TID", "writer TID" as each is in place, then
 * "ready". The victim dies with the server (PR_SET_PDEATHSIG); the server's death (SIGKILL)
 * closes /dev/fuse, which aborts the connection and releases every waiter: kill the server
 * first, then unmount DIR. Killing only the victim leaves the holder in D until the server
 * dies (its READ was already handed to the server).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <linux/fuse.h>
#include <pthread.h>
#include <signal.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/mount.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "helper.h"

#define FILE_SIZE 65536
#define BUF_SIZE (256 * 1024)

static int fuse_fd = -1;

static void reply(uint64_t unique, int error, const void *body, size_t len)
{
	char buf[sizeof(struct fuse_out_header) + 256];
	struct fuse_out_header oh = { .len = (uint32_t)(sizeof(oh) + len), .error = error,
	                              .unique = unique };
	memcpy(buf, &oh, sizeof(oh));
	if (len)
		memcpy(buf + sizeof(oh), body, len);
	if (write(fuse_fd, buf, oh.len) < 0 && errno != ENOENT)   /* ENOENT: interrupted */
		fprintf(stderr, "mmaphold: reply to %llu: %s\n", (unsigned long long)unique,
		        strerror(errno));
}

static void attr_of(uint64_t node, struct fuse_attr *a)
{
	memset(a, 0, sizeof(*a));
	a->ino = node;
	a->blksize = 4096;
	if (node == FUSE_ROOT_ID) {
		a->mode = S_IFDIR | 0755;
		a->nlink = 2;
	} else {
		a->mode = S_IFREG | 0644;
		a->nlink = 1;
		a->size = FILE_SIZE;
		a->blocks = FILE_SIZE / 512;
	}
}

/* The server: answers INIT, GETATTR, LOOKUP of "f", OPEN, FLUSH, RELEASE; never READ, nor a
 * LOOKUP of another name but "prime", which it answers ENOENT once its INTERRUPT came. */
static void serve(pid_t victim)
{
	static char buf[BUF_SIZE];
	uint64_t prime = 0;
	for (;;) {
		ssize_t n = read(fuse_fd, buf, sizeof(buf));
		if (n < 0) {
			if (errno == EINTR || errno == ENOENT)
				continue;
			fprintf(stderr, "mmaphold: read /dev/fuse: %s\n", strerror(errno));
			exit(1);
		}
		if ((size_t)n < sizeof(struct fuse_in_header))
			continue;
		struct fuse_in_header h;
		memcpy(&h, buf, sizeof(h));
		const char *arg = buf + sizeof(h);
		switch (h.opcode) {
		case FUSE_INIT: {
			struct fuse_init_in in;
			memcpy(&in, arg, sizeof(in));
			struct fuse_init_out out = { .major = FUSE_KERNEL_VERSION,
				.minor = in.minor < FUSE_KERNEL_MINOR_VERSION ? in.minor :
				         FUSE_KERNEL_MINOR_VERSION,
				.max_readahead = 0, .flags = 0,       /* no FUSE_ASYNC_READ: reads wait */
				.max_background = 16, .congestion_threshold = 12,
				.max_write = 128 * 1024, .time_gran = 1 };
			reply(h.unique, 0, &out, sizeof(out));
			break;
		}
		case FUSE_LOOKUP:
			if (strcmp(arg, "f") == 0) {
				struct fuse_entry_out e = { .nodeid = 2, .generation = 1,
				                            .entry_valid = 3600, .attr_valid = 3600 };
				attr_of(2, &e.attr);
				reply(h.unique, 0, &e, sizeof(e));
			} else if (strcmp(arg, "prime") == 0) {
				prime = h.unique;     /* interrupt it: the kernel then asks INTERRUPT */
				syscall(SYS_tgkill, victim, (pid_t)h.pid, SIGUSR1);
			}                             /* anything else: never answered */
			break;
		case FUSE_GETATTR: {
			struct fuse_attr_out a = { .attr_valid = 3600 };
			attr_of(h.nodeid, &a.attr);
			reply(h.unique, 0, &a, sizeof(a));
			break;
		}
		case FUSE_OPEN: {
			struct fuse_open_out o = { .fh = 1 };
			reply(h.unique, 0, &o, sizeof(o));
			break;
		}
		case FUSE_INTERRUPT: {
			struct fuse_interrupt_in in;
			memcpy(&in, arg, sizeof(in));
			reply(h.unique, -ENOSYS, NULL, 0);   /* no interrupts: waits are killable */
			if (prime && in.unique == prime) {
				reply(prime, -ENOENT, NULL, 0);
				prime = 0;
			}
			break;
		}
		case FUSE_READ:
			break;                                /* never answered */
		case FUSE_FORGET:
		case FUSE_BATCH_FORGET:
			break;                                /* no reply expected */
		case FUSE_FLUSH:
		case FUSE_RELEASE:
			reply(h.unique, 0, NULL, 0);
			break;
		default:
			reply(h.unique, -ENOSYS, NULL, 0);
		}
	}
}

static const char *dir;
static char *map;
static volatile int primed;

static void on_usr1(int sig)
{
	(void)sig;
}

static void *prime_fn(void *p)
{
	char path[4096];
	struct stat st;
	(void)p;
	snprintf(path, sizeof(path), "%s/prime", dir);
	stat(path, &st);
	primed = 1;
	return NULL;
}

static void *holder_fn(void *p)
{
	char b[16];
	int fd = open("/proc/self/mem", O_RDONLY | O_CLOEXEC);
	(void)p;
	if (fd < 0 || pread(fd, b, sizeof(b), (off_t)(uintptr_t)map) < 0)
		say("holder released %s\n", strerrorname_np(errno));
	return NULL;
}

static char waiter_path[4096];

static void *waiter_fn(void *p)
{
	struct stat st;
	(void)p;
	stat(waiter_path, &st);
	return NULL;
}

static void *writer_fn(void *p)
{
	(void)p;
	munmap(map, FILE_SIZE);
	return NULL;
}

/* The state letter of thread tid of this process; no stdio, no malloc: once the writer
 * waits, anything that maps memory would wait with it. */
static char state_of(pid_t tid)
{
	char path[64], buf[512];
	snprintf(path, sizeof(path), "/proc/self/task/%d/stat", (int)tid);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return 0;
	ssize_t n = read(fd, buf, sizeof(buf) - 1);
	close(fd);
	if (n <= 0)
		return 0;
	buf[n] = '\0';
	char *rp = strrchr(buf, ')');
	return rp && rp[1] == ' ' ? rp[2] : 0;
}

static volatile pid_t tids[3];
static volatile int go[3];

static void nap(void)
{
	struct timespec ts = { 0, 10 * 1000 * 1000 };
	nanosleep(&ts, NULL);
}

/* Every thread is made before the first one starts: making one maps its stack, which waits
 * for the mmap_lock as soon as the holder holds it. */
static void *start_fn(void *p)
{
	int i = (int)(intptr_t)p;
	tids[i] = (pid_t)syscall(SYS_gettid);
	while (!go[i])
		nap();
	void *(*fn[3])(void *) = { holder_fn, waiter_fn, writer_fn };
	return fn[i](NULL);
}

/* Let thread i go and wait (5 s at most) until it is in D. */
static int go_in_d(int i, const char *name)
{
	go[i] = 1;
	for (int k = 0; k < 500; k++) {
		if (state_of(tids[i]) == 'D') {
			say("%s %d\n", name, (int)tids[i]);
			return 0;
		}
		nap();
	}
	say("%s %d not in D (state %c)\n", name, (int)tids[i], state_of(tids[i]));
	return -1;
}

static int victim(void)
{
	struct sigaction sa = { .sa_handler = on_usr1 };      /* no SA_RESTART */
	sigaction(SIGUSR1, &sa, NULL);
	pthread_t pt;
	if (pthread_create(&pt, NULL, prime_fn, NULL) != 0)
		return 1;
	for (int k = 0; k < 500 && !primed; k++)
		nap();
	if (!primed) {
		say("not primed\n");
		return 1;
	}
	pthread_join(pt, NULL);
	char path[4096];
	snprintf(path, sizeof(path), "%s/f", dir);
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		say("open %s: %s\n", path, strerror(errno));
		return 1;
	}
	map = mmap(NULL, FILE_SIZE, PROT_READ, MAP_SHARED, fd, 0);
	if (map == MAP_FAILED) {
		say("mmap: %s\n", strerror(errno));
		return 1;
	}
	snprintf(waiter_path, sizeof(waiter_path), "%s/hang", dir);
	say("victim %d\n", (int)getpid());
	pthread_t t[3];
	for (int i = 0; i < 3; i++)
		if (pthread_create(&t[i], NULL, start_fn, (void *)(intptr_t)i) != 0)
			return 1;
	for (int k = 0; k < 500 && !(tids[0] && tids[1] && tids[2]); k++)
		nap();
	if (go_in_d(0, "holder") < 0 || go_in_d(1, "waiter") < 0 || go_in_d(2, "writer") < 0)
		return 1;
	say("ready\n");
	for (;;)
		pause();
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: mmaphold DIR\n");
		return 2;
	}
	dir = argv[1];
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() == 1)
		return 1;
	fuse_fd = open("/dev/fuse", O_RDWR | O_CLOEXEC);
	if (fuse_fd < 0) {
		fprintf(stderr, "open /dev/fuse: %s\n", strerror(errno));
		return 4;
	}
	char opts[128];
	snprintf(opts, sizeof(opts), "fd=%d,rootmode=40000,user_id=0,group_id=0", fuse_fd);
	if (mount("mmaphold", dir, "fuse.mmaphold", MS_NOSUID | MS_NODEV, opts) < 0) {
		fprintf(stderr, "mount fuse on %s: %s\n", dir, strerror(errno));
		return 5;
	}
	say("mounted\n");
	pid_t server = getpid();
	pid_t pid = fork();
	if (pid < 0) {
		perror("fork");
		return 1;
	}
	if (pid == 0) {
		close(fuse_fd);
		if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != server)
			_exit(1);
		_exit(victim());
	}
	serve(pid);
	return 0;
}
