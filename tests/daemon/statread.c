/* statread: read cgroup statistics files in a tight loop, as a monitoring agent that polls
 * too often does, for a bounded time.
 *
 *   statread SECONDS NAME FILE...
 *
 * Renames itself NAME (PR_SET_NAME), prints "reading PID\n", then reads each FILE whole
 * (open, read, close: each read of memory.stat makes the kernel flush the cgroup statistics,
 * an rstat flush) over and over until SECONDS have passed (CLOCK_MONOTONIC), and exits 0.
 * Prints the number of reads at the end. Dies with its parent (PR_SET_PDEATHSIG). */
#define _GNU_SOURCE
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

static double now(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc < 4) {
		fprintf(stderr, "usage: statread SECONDS NAME FILE...\n");
		return 2;
	}
	double secs = atof(argv[1]);
	if (secs <= 0 || secs > 600) {
		fprintf(stderr, "statread: SECONDS 0..600\n");
		return 2;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	prctl(PR_SET_NAME, argv[2]);
	printf("reading %d\n", (int)getpid());
	fflush(stdout);
	static char buf[65536];
	unsigned long n = 0;
	for (double end = now() + secs; now() < end;)
		for (int i = 3; i < argc; i++) {
			int fd = open(argv[i], O_RDONLY);
			if (fd < 0) {
				perror(argv[i]);
				return 1;
			}
			while (read(fd, buf, sizeof(buf)) > 0)
				;
			close(fd);
			n++;
		}
	printf("reads %lu\n", n);
	return 0;
}
