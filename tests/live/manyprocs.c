/* manyprocs: fork N children that sleep until this process dies (PR_SET_PDEATHSIG), print
 * "ready", and wait; a host of many processes (tests/live/walkslices.sh).
 *
 *   manyprocs N */
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	if (n <= 0) {
		fprintf(stderr, "usage: manyprocs N\n");
		return 2;
	}
	pid_t parent = getpid();
	for (int i = 0; i < n; i++) {
		pid_t p = fork();
		if (p < 0) {
			fprintf(stderr, "manyprocs: child %d of %d: could not fork\n", i, n);
			return 1;
		}
		if (p == 0) {
			prctl(PR_SET_PDEATHSIG, SIGKILL);
			if (getppid() != parent)
				_exit(0);
			for (;;)
				pause();
		}
	}
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
