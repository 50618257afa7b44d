/* memhold: anonymous memory a test makes itself, for memory migration (tests/vm/seed004.sh).
 *
 *   memhold MB SECONDS
 *
 * Maps MB MiB of private anonymous memory, writes every page (so each is allocated, on the
 * nodes its cpuset allows now), prints "holding PID" and sleeps until SECONDS have passed
 * (CLOCK_MONOTONIC), then exits; at once when its parent dies (PR_SET_PDEATHSIG). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <time.h>
#include <unistd.h>

#include "helper.h"

int main(int argc, char **argv)
{
	if (argc != 3 || atoi(argv[1]) < 1 || atoi(argv[1]) > 4096 || atoi(argv[2]) < 1 ||
	    atoi(argv[2]) > 600) {
		fprintf(stderr, "usage: memhold MB SECONDS  (1 <= MB <= 4096, 1 <= SECONDS <= 600)\n");
		return 2;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	size_t len = (size_t)atoi(argv[1]) << 20;
	long page = sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (p == MAP_FAILED) {
		perror("mmap");
		return 1;
	}
	for (size_t off = 0; off < len; off += (size_t)page)
		p[off] = 1;
	say("holding %d\n", (int)getpid());
	struct timespec end;
	clock_gettime(CLOCK_MONOTONIC, &end);
	end.tv_sec += atoi(argv[2]);
	while (clock_nanosleep(CLOCK_MONOTONIC, TIMER_ABSTIME, &end, NULL) != 0)
		;
	return 0;
}
