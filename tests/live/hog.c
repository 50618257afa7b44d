/* hog: CPU load a test makes itself.
 *
 *   hog N SECONDS
 *
 * Forks N busy loops (SCHED_OTHER, nice 0, not pinned: the scheduler spreads them), prints
 * "hogs PID..." and exits when SECONDS have passed (CLOCK_MONOTONIC), killing them; or at
 * once, with them, when it gets SIGTERM or its parent dies (PR_SET_PDEATHSIG). The loops die
 * with hog the same way, so a killed test never leaves a busy loop behind. */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

int main(int argc, char **argv)
{
	if (argc != 3 || atoi(argv[1]) < 1 || atoi(argv[1]) > 64) {
		fprintf(stderr, "usage: hog N SECONDS  (1 <= N <= 64)\n");
		return 2;
	}
	int n = atoi(argv[1]);
	unsigned secs = (unsigned)atoi(argv[2]);
	pid_t parent = getppid(), me = getpid(), kids[64];
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		return 1;
	struct sigaction sa = { .sa_handler = on_term };
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGALRM, &sa, NULL);
	for (int i = 0; i < n; i++) {
		kids[i] = fork();
		if (kids[i] < 0) {
			for (int j = 0; j < i; j++)
				kill(kids[j], SIGKILL);
			return 1;
		}
		if (kids[i] == 0) {
			if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != me)
				_exit(3);
			for (volatile unsigned long x = 0;; x++)
				;
		}
	}
	printf("hogs");
	for (int i = 0; i < n; i++)
		printf(" %d", (int)kids[i]);
	printf("\n");
	fflush(stdout);
	alarm(secs);
	while (!stop)
		pause();
	for (int i = 0; i < n; i++)
		kill(kids[i], SIGKILL);
	while (wait(NULL) > 0)
		;
	return 0;
}
