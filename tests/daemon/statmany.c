/* statmany: block many tasks at once on one path.
 *
 *   statmany PATH N [--name NAME] [--spin MS] [--shuffle SEC]
 *
 * Prints "start SEC.NSEC" (CLOCK_REALTIME, before the first fork), forks N
 * children that each stat() PATH, with a "%d" in PATH replaced by the child's
 * index 0..N-1, prints
 * "child PID" for each and "forked N" when all are made.
 *
 * Under an uninitialised FUSE mount made by tests/live/fusehold: a stat() of
 * the mount point itself sends a GETATTR, so N children stat()ing it all wait
 * in fuse_get_req. stat()s of names under it (DIR/x%d) do not: before INIT
 * there are no parallel directory operations, so one child waits in
 * fuse_get_req from fuse_lookup and the others in fuse_lock_inode, for the
 * directory's lookup lock it holds. With --name the
 * children rename themselves (PR_SET_NAME) first.
 *
 * It then reaps them; when all have returned it prints
 * "released N OK=a ENOTCONN=b OTHER=c" and exits 0. Closing the FUSE fd
 * (killing fusehold) releases them all with ENOTCONN.
 *
 * statmany and its children die with their parent (PR_SET_PDEATHSIG, SIGKILL;
 * a task waiting in fuse_get_req is killable), so a killed test script leaves
 * nothing behind. If a fork fails, the children made so far are killed and
 * it exits 1.
 *
 * Durations the kernel forgets:
 *
 *   --spin MS       each child first burns MS ms of its own CPU time, then
 *                   stat()s. Having used more than its fair share, it blocks
 *                   with negative lag, and EEVDF delays its dequeue: it stays
 *                   queued for a while after it went to sleep.
 *   --shuffle SEC   a shuffler process moves every child from CPU to CPU
 *                   (sched_setaffinity, what taskset does), round the CPUs
 *                   statmany may use, from the first fork until SEC seconds
 *                   after the last; then prints "shuffled MOVES". Moving a
 *                   task that is still queued resets its se.exec_start to 0
 *                   (set_task_cpu -> migrate_task_rq_fair), so a child moved
 *                   in that window sleeps in D with se.exec_start 0.000000 and
 *                   se.nr_migrations >= 1 until it runs again. Measured here
 *                   (6.18, 2 CPUs, 200 children, 2 busy loops): --spin 2
 *                   --shuffle 0.3 left 58-144 such children a run (20 runs);
 *                   shuffling without --spin 0-17, the load balancer alone
 *                   (no --shuffle) 0-30.
 */
#define _GNU_SOURCE
#include <errno.h>
#include <sched.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "../live/helper.h"


static double cpu_ms(clockid_t clk)
{
	struct timespec ts;
	clock_gettime(clk, &ts);
	return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec / 1e6;
}

/* Shared with the shuffler: the children forked so far, and whether all are. */
struct shared {
	long nkids;
	int done;
	pid_t kids[];
};

/* The shuffler: moves each child to the next allowed CPU, round and round, until
 * `after` seconds past the last fork (or its parent dies). */
static void shuffle(struct shared *sh, double after)
{
	cpu_set_t allowed;
	int cpus[CPU_SETSIZE], ncpus = 0;
	if (sched_getaffinity(0, sizeof(allowed), &allowed) < 0)
		_exit(5);
	for (int c = 0; c < CPU_SETSIZE; c++)
		if (CPU_ISSET(c, &allowed))
			cpus[ncpus++] = c;
	long moves = 0;
	double end = 0;
	for (unsigned round = 0;; round++) {
		if (!end && __atomic_load_n(&sh->done, __ATOMIC_ACQUIRE))
			end = cpu_ms(CLOCK_MONOTONIC) + after * 1e3;
		if (end && cpu_ms(CLOCK_MONOTONIC) >= end)
			break;
		long k = __atomic_load_n(&sh->nkids, __ATOMIC_ACQUIRE);
		for (long i = 0; i < k && ncpus > 1; i++) {
			cpu_set_t one;
			CPU_ZERO(&one);
			CPU_SET(cpus[(round + (unsigned long)i) % (unsigned)ncpus], &one);
			if (sched_setaffinity(sh->kids[i], sizeof(one), &one) == 0)
				moves++;
		}
		if (ncpus < 2 || k == 0)
			usleep(1000);
	}
	say("shuffled %ld\n", moves);
	_exit(0);
}

int main(int argc, char **argv)
{
	const char *path = NULL, *name = NULL;
	long n = -1;
	double spin_ms = 0, shuffle_s = -1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--name") && i + 1 < argc)
			name = argv[++i];
		else if (!strcmp(argv[i], "--spin") && i + 1 < argc)
			spin_ms = atof(argv[++i]);
		else if (!strcmp(argv[i], "--shuffle") && i + 1 < argc)
			shuffle_s = atof(argv[++i]);
		else if (!path)
			path = argv[i];
		else if (n < 0)
			n = strtol(argv[i], NULL, 10);
		else
			n = -2;
	}
	if (!path || n < 1 || n > 10000) {
		fprintf(stderr, "usage: statmany PATH N [--name NAME] [--spin MS] [--shuffle SEC]"
		        "  (1 <= N <= 10000)\n");
		return 2;
	}
	pid_t parent = getppid();
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		return 1; /* cannot die with the parent, or it is already gone */

	struct shared *sh = mmap(NULL, sizeof(*sh) + (size_t)n * sizeof(pid_t),
	                         PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
	if (sh == MAP_FAILED)
		return 1;
	pid_t *kids = sh->kids, me = getpid(), shuffler = 0;
	if (shuffle_s >= 0) {
		shuffler = fork();
		if (shuffler < 0)
			return 1;
		if (shuffler == 0) {
			if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != me)
				_exit(3);
			shuffle(sh, shuffle_s);
		}
	}
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	say("start %lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			say("forkfail %ld %s\n", i, strerrorname_np(errno));
			for (long j = 0; j < i; j++)
				kill(kids[j], SIGKILL);
			if (shuffler > 0)
				kill(shuffler, SIGKILL);
			while (wait(NULL) > 0)
				;
			return 1;
		}
		if (pid == 0) {
			struct stat st;
			char p[4096];
			const char *pct = strstr(path, "%d");
			if (pct)
				snprintf(p, sizeof p, "%.*s%ld%s", (int)(pct - path), path, i, pct + 2);
			else
				snprintf(p, sizeof p, "%s", path);
			if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != me)
				_exit(3);
			if (name && prctl(PR_SET_NAME, name) < 0)
				_exit(4);
			if (spin_ms > 0) {
				double end = cpu_ms(CLOCK_THREAD_CPUTIME_ID) + spin_ms;
				while (cpu_ms(CLOCK_THREAD_CPUTIME_ID) < end)
					;
			}
			if (stat(p, &st) == 0)
				_exit(0);
			_exit(errno == ENOTCONN ? 1 : 2);
		}
		kids[i] = pid;
		__atomic_store_n(&sh->nkids, i + 1, __ATOMIC_RELEASE);
		say("child %d\n", (int)pid);
	}
	__atomic_store_n(&sh->done, 1, __ATOMIC_RELEASE);
	say("forked %ld\n", n);

	long ok = 0, enotconn = 0, other = 0, left = n;
	int status;
	while (left > 0) {
		pid_t pid = wait(&status);
		if (pid < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		if (pid == shuffler) {
			shuffler = 0;
			continue;
		}
		left--;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			ok++;
		else if (WIFEXITED(status) && WEXITSTATUS(status) == 1)
			enotconn++;
		else
			other++;
	}
	say("released %ld OK=%ld ENOTCONN=%ld OTHER=%ld\n", n - left, ok, enotconn, other);
	if (shuffler > 0) {
		kill(shuffler, SIGKILL);
		waitpid(shuffler, NULL, 0);
	}
	return 0;
}
