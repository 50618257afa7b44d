/* statmany: block many tasks at once on one path.
 *
 *   statmany PATH N [--name NAME]
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
 */
#define _GNU_SOURCE
#include <errno.h>
#include <signal.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static void say(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void say(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n > 0 && write(STDOUT_FILENO, buf, (size_t)n) < 0)
		_exit(111);
}

int main(int argc, char **argv)
{
	const char *path = NULL, *name = NULL;
	long n = -1;
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--name") && i + 1 < argc)
			name = argv[++i];
		else if (!path)
			path = argv[i];
		else if (n < 0)
			n = strtol(argv[i], NULL, 10);
		else
			n = -2;
	}
	if (!path || n < 1 || n > 10000) {
		fprintf(stderr, "usage: statmany PATH N [--name NAME]  (1 <= N <= 10000)\n");
		return 2;
	}
	pid_t parent = getppid();
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		return 1; /* cannot die with the parent, or it is already gone */

	pid_t *kids = calloc((size_t)n, sizeof *kids);
	if (!kids)
		return 1;
	struct timespec ts;
	clock_gettime(CLOCK_REALTIME, &ts);
	say("start %lld.%09ld\n", (long long)ts.tv_sec, ts.tv_nsec);
	pid_t me = getpid();
	for (long i = 0; i < n; i++) {
		pid_t pid = fork();
		if (pid < 0) {
			say("forkfail %ld %s\n", i, strerrorname_np(errno));
			for (long j = 0; j < i; j++)
				kill(kids[j], SIGKILL);
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
			if (stat(p, &st) == 0)
				_exit(0);
			_exit(errno == ENOTCONN ? 1 : 2);
		}
		kids[i] = pid;
		say("child %d\n", (int)pid);
	}
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
		left--;
		if (WIFEXITED(status) && WEXITSTATUS(status) == 0)
			ok++;
		else if (WIFEXITED(status) && WEXITSTATUS(status) == 1)
			enotconn++;
		else
			other++;
	}
	say("released %ld OK=%ld ENOTCONN=%ld OTHER=%ld\n", n - left, ok, enotconn, other);
	return 0;
}
