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
 *   ustackhold decoy SECONDS      the vfork parent as above, through middle_decoy in place of
 *                                 middle: a frame whose locals hold frame records that are
 *                                 not in its chain (stack addresses beside return addresses:
 *                                 its own, one into outer after another call, a record
 *                                 ending in 0), to tempt a frame-pointer scan
 *   ustackhold decoya SECONDS     the same, middle_decoy first taking 1 KiB with alloca: its
 *                                 sp lies that much below the frame its prologue makes, so
 *                                 the records in its locals are above where the prologue says
 *                                 its own record must be at the least
 *   ustackhold direct SECONDS     the vfork parent, main -> middle -> vfork: middle called by
 *                                 main itself, whose frame record is the outermost one (its
 *                                 saved rbp is libc's, which keeps no frame pointer)
 *   ustackhold self SECONDS       the vfork parent, main -> vfork: main stopped itself, called
 *                                 from libc through a pointer
 *   ustackhold spawn FIFO         the process's only thread calls outer -> middle_spawn ->
 *                                 posix_spawn of /bin/true whose file action opens FIFO for
 *                                 reading: glibc's child (CLONE_VFORK) waits in that open
 *                                 until a writer comes, its parent in D in clone (or clone3)
 *   ustackhold mmaphold SECONDS   the vfork parent as above, and two threads that take the
 *                                 process's mmap lock for writing in turn (mprotect of a
 *                                 4 GiB mapping of small pages each, each call a hold of
 *                                 about 0.1 s; one writer queued while the other holds)
 *
 * Prints "chain RA_OUTER RA_MAIN RA_START\n" first in the vfork, spawn, decoy and stat modes: the
 * return addresses into outer, outer's caller (main, or the thread function) and main's
 * caller, so a test can tell frames of the real call chain from wrong ones; in the direct
 * mode "chain RA_MAIN RA_START 0\n" (into main, and main's caller), in the self mode
 * "chain RA_START 0 0\n". Prints "blocked TID\n" for the thread that blocks (before the call). Dies with its parent
 * (PR_SET_PDEATHSIG); the vfork child too. */
#define _GNU_SOURCE
#include <pthread.h>
#include <spawn.h>
#include <fcntl.h>
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
static void *ra_main, *ra_start, *ra_note;

/* the return address of a call from outer that is not the call of middle: a decoy's */
__attribute__((noinline)) static void note_ra(void)
{
	ra_note = __builtin_return_address(0);
	__asm__ volatile("" ::: "memory");
}

static void say_tid(void)
{
	char b[64];
	int n = snprintf(b, sizeof(b), "blocked %ld\n", (long)syscall(SYS_gettid));
	if (write(STDOUT_FILENO, b, (size_t)n) < 0)
		_exit(111);
}

static void say_chain(void *ra_outer)
{
	char b[128];
	int n = snprintf(b, sizeof(b), "chain %p %p %p\n", ra_outer, ra_main, ra_start);
	if (write(STDOUT_FILENO, b, (size_t)n) < 0)
		_exit(111);
}

/* middle, with frame records in its locals that a scan meets before its own (locals lie
 * below the frame pointer): [0] links to [2] beside the real return address into outer;
 * [2] links to outer's frame beside a return address into outer after note_ra's call (a
 * call of another function); [4] is 0 beside the return address into main (a chain's end).
 * Each is a well-formed record; none is this frame's. */
__attribute__((noinline, noclone)) static int middle_decoy(int how)
{
	volatile unsigned long rec[6];
	if (how == 'a') {
		volatile char *blk = __builtin_alloca(1024);
		blk[0] = 1;
		sink += blk[0];
	}
	rec[0] = (unsigned long)&rec[2];
	rec[1] = (unsigned long)__builtin_return_address(0);
	rec[2] = *(unsigned long *)__builtin_frame_address(0);   /* outer's frame */
	rec[3] = (unsigned long)ra_note;
	rec[4] = 0;
	rec[5] = (unsigned long)ra_main;
	say_chain(__builtin_return_address(0));
	say_tid();
	pid_t p = vfork();
	if (p == 0) {
		struct timespec ts = { .tv_sec = secs, .tv_nsec = 0 };
		prctl(PR_SET_PDEATHSIG, SIGKILL);
		syscall(SYS_nanosleep, &ts, NULL);
		_exit(0);
	}
	sink += p + (int)rec[1];
	return p < 0;
}

extern char **environ;

/* middle's place in the spawn mode (middle itself stays as the other modes' tests know it) */
__attribute__((noinline)) static int middle_spawn(void)
{
	posix_spawn_file_actions_t fa;
	char *argv[] = { "true", NULL };
	pid_t p;
	say_chain(__builtin_return_address(0));
	say_tid();
	if (posix_spawn_file_actions_init(&fa) ||
	    posix_spawn_file_actions_addopen(&fa, 0, path, O_RDONLY, 0))
		return 1;
	int r = posix_spawn(&p, "/bin/true", &fa, NULL, argv, environ);
	sink += r;
	return r != 0;
}

__attribute__((noinline)) static int middle(int how)
{
	if (how == 'v' || how == 's' || how == 'r')
		say_chain(__builtin_return_address(0));
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
	ra_main = __builtin_return_address(0);
	if (how == 'd' || how == 'a')
		note_ra();
	int r = how == 'd' || how == 'a' ? middle_decoy(how) : how == 'p' ? middle_spawn() :
	        middle(how);
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
	ra_start = __builtin_return_address(0);
	if (argc == 3 && !strcmp(argv[1], "vfork") && (secs = (unsigned)atoi(argv[2])) > 0)
		return outer('v') == 1 ? 0 : 1;
	if (argc == 3 && !strcmp(argv[1], "decoy") && (secs = (unsigned)atoi(argv[2])) > 0)
		return outer('d') == 1 ? 0 : 1;
	if (argc == 3 && !strcmp(argv[1], "decoya") && (secs = (unsigned)atoi(argv[2])) > 0)
		return outer('a') == 1 ? 0 : 1;
	if (argc == 3 && !strcmp(argv[1], "direct") && (secs = (unsigned)atoi(argv[2])) > 0) {
		ra_main = ra_start;
		ra_start = NULL;
		int r = middle(argv[1][2]);     /* 'r' at run time: no clone of middle for a constant */
		sink += r;                      /* not a tail call */
		return r;
	}
	if (argc == 3 && !strcmp(argv[1], "self") && (secs = (unsigned)atoi(argv[2])) > 0) {
		ra_main = ra_start = NULL;
		say_chain(__builtin_return_address(0));
		say_tid();
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
	if (argc == 3 && !strcmp(argv[1], "mmaphold") && (secs = (unsigned)atoi(argv[2])) > 0) {
		pthread_t t;
		for (int i = 0; i < 2; i++)     /* two: one always waits while the other holds */
			if (pthread_create(&t, NULL, mmap_writer, NULL))
				return 1;
		while (__atomic_load_n(&writers_ready, __ATOMIC_SEQ_CST) < 2)   /* pages touched */
			usleep(10000);
		return outer('v') == 1 ? 0 : 1;
	}
	if (argc == 3 && !strcmp(argv[1], "spawn")) {
		path = argv[2];
		return outer('p') == 1 ? 0 : 1;
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
	fprintf(stderr, "usage: ustackhold vfork|decoy|decoya|direct|self SECONDS | stat PATH THREADS | statn PATH THREADS | "
	        "spawn FIFO | mmaphold SECONDS\n");
	return 2;
}
