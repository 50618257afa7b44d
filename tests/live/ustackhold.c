/* ustackhold: a task blocked in D with a known user call chain, main -> outer -> middle ->
 * the blocking call (each noinline), for the user-stack unwinder's live tests
 * (tests/live/ustack.sh). tests/live/build.sh builds it three times: bin/ustackhold-O2
 * (-O2 -g), bin/ustackhold-O0 (-O0 -g) and bin/ustackhold-fp (-O2 -g
 * -fno-omit-frame-pointer); bin/ustackhold-strip is the -O2 one stripped.
 *
 *   ustackhold vfork SECONDS      the process's only thread is a vfork parent (D) while its
 *                                 child sleeps SECONDS
 *   ustackhold stat PATH THREADS  THREADS threads sleep in nanosleep; then one more thread
 *                                 calls outer -> middle -> stat(PATH) (a stuck FUSE mount)
 *   ustackhold statn PATH THREADS THREADS threads each call outer -> middle -> stat(PATH)
 *                                 (identical stacks: one unwind for all of them)
 *   ustackhold mmaphold SECONDS   the vfork parent as above, and two threads that take the
 *                                 process's mmap lock for writing in turn (mprotect of a
 *                                 4 GiB mapping of small pages each, each call a hold of
 *                                 about 0.1 s; one writer queued while the other holds)
 *
 * Prints "blocked TID\n" for the thread that blocks (before the call). Dies with its parent
 * (PR_SET_PDEATHSIG); the vfork child too. */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

static unsigned secs;
static const char *path;
static volatile int sink;
static int writers_ready;

static void say_tid(void)
{
	char b[64];
	int n = snprintf(b, sizeof(b), "blocked %ld\n", (long)syscall(SYS_gettid));
	if (write(STDOUT_FILENO, b, (size_t)n) < 0)
		_exit(111);
}

__attribute__((noinline)) static int middle(int how)
{
	say_tid();
	if (how == 's') {
		struct stat st;
		int r = stat(path, &st);
		sink += r;
		return r;
	}
	pid_t p = vfork();
	if (p == 0) {
		struct timespec ts = { .tv_sec = secs, .tv_nsec = 0 };
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		syscall(SYS_nanosleep, &ts, NULL);
		_exit(0);
	}
	sink += p;
	return p < 0;
}

__attribute__((noinline)) static int outer(int how)
{
	int r = middle(how);
	sink += r;                          /* not a tail call */
	return r + 1;
}

static void *sleeper(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

static void *stater(void *arg)
{
	(void)arg;
	outer('s');
	return NULL;
}

static void *mmap_writer(void *arg)
{
	/* 4 GiB of small pages, touched so each mprotect has page tables to walk while it holds
	 * the mmap lock for writing */
	size_t len = (size_t)4 << 30;
	char *m = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	(void)arg;
	if (m == MAP_FAILED) {
		perror("mmap 4 GiB");
		_exit(3);
	}
	madvise(m, len, MADV_NOHUGEPAGE);
	for (size_t i = 0; i < len; i += 4096)
		m[i] = 1;
	if (write(STDOUT_FILENO, "writer ready\n", 13) < 0)
		_exit(111);
	__atomic_add_fetch(&writers_ready, 1, __ATOMIC_SEQ_CST);
	while (__atomic_load_n(&writers_ready, __ATOMIC_SEQ_CST) < 2)
		usleep(10000);                  /* the other's faults would wait behind our holds */
	for (int k = 0;; k++)
		mprotect(m, len, k & 1 ? PROT_READ | PROT_WRITE : PROT_READ);
	return NULL;
}

int main(int argc, char **argv)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() == 1)
		return 1;
	if (argc == 3 && !strcmp(argv[1], "vfork") && (secs = (unsigned)atoi(argv[2])) > 0)
		return outer('v') == 1 ? 0 : 1;
	if (argc == 3 && !strcmp(argv[1], "mmaphold") && (secs = (unsigned)atoi(argv[2])) > 0) {
		pthread_t t;
		for (int i = 0; i < 2; i++)     /* two: one always waits while the other holds */
			if (pthread_create(&t, NULL, mmap_writer, NULL))
				return 1;
		while (__atomic_load_n(&writers_ready, __ATOMIC_SEQ_CST) < 2)   /* pages touched */
			usleep(10000);
		return outer('v') == 1 ? 0 : 1;
	}
	if (argc == 4 && !strcmp(argv[1], "statn")) {
		path = argv[2];
		int n = atoi(argv[3]);
		pthread_t t;
		for (int i = 0; i < n; i++)
			if (pthread_create(&t, NULL, stater, NULL))
				return 1;
		pthread_join(t, NULL);
		return 0;
	}
	if (argc == 4 && !strcmp(argv[1], "stat")) {
		path = argv[2];
		int n = atoi(argv[3]);
		pthread_t t;
		for (int i = 0; i < n; i++)
			if (pthread_create(&t, NULL, sleeper, NULL))
				return 1;
		if (pthread_create(&t, NULL, stater, NULL))
			return 1;
		pthread_join(t, NULL);
		return 0;
	}
	fprintf(stderr, "usage: ustackhold vfork SECONDS | stat PATH THREADS | statn PATH THREADS | "
	        "mmaphold SECONDS\n");
	return 2;
}
