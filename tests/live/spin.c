/* spin: busy-loop on one CPU under SCHED_FIFO for a bounded time.
 *
 *   spin CPU PRIO SECONDS
 *
 * Pins itself to CPU, takes SCHED_FIFO priority PRIO, prints "spinning TID\n" and spins until
 * SECONDS have passed (CLOCK_MONOTONIC), then exits. Dies with its parent (PR_SET_PDEATHSIG),
 * so a killed test never leaves a real-time spinner behind. */
#define _GNU_SOURCE
#include <sched.h>
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
	if (argc != 4) {
		fprintf(stderr, "usage: spin CPU PRIO SECONDS\n");
		return 2;
	}
	int cpu = atoi(argv[1]), prio = atoi(argv[2]);
	double secs = atof(argv[3]);
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		perror("sched_setaffinity");
		return 1;
	}
	struct sched_param sp = { .sched_priority = prio };
	if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
		perror("sched_setscheduler");
		return 1;
	}
	printf("spinning %d\n", (int)getpid());
	fflush(stdout);
	double end = now() + secs;
	volatile unsigned long n = 0;
	while (now() < end)
		n++;
	return 0;
}
