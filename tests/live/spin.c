/* spin: on one CPU, a busy loop for a bounded time, or a loop that spins SPIN_MS then sleeps
 * SLEEP_MS (nanosleep), over and over.
 *
 *   spin CPU PRIO SECONDS [SPIN_MS SLEEP_MS]
 *
 * Pins itself to CPU, takes SCHED_FIFO priority PRIO (0: stays SCHED_OTHER), prints "spinning
 * TID\n" and loops until SECONDS have passed (CLOCK_MONOTONIC), checked inside the spin too: it
 * ends itself at its deadline whatever else runs (a same-priority `timeout` on its CPU might
 * never run). Without SPIN_MS it never sleeps; SPIN_MS 0 only sleeps and wakes (a task that
 * waits on the run queue at every wakeup). Dies with its parent (PR_SET_PDEATHSIG), so a
 * killed test never leaves a real-time spinner behind. */
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
	if (argc != 4 && argc != 6) {
		fprintf(stderr, "usage: spin CPU PRIO SECONDS [SPIN_MS SLEEP_MS]\n");
		return 2;
	}
	int cpu = atoi(argv[1]), prio = atoi(argv[2]);
	double secs = atof(argv[3]);
	double spin = argc == 6 ? atof(argv[4]) / 1e3 : secs, nap = argc == 6 ? atof(argv[5]) / 1e3 : 1;
	if (secs <= 0 || secs > 600 || spin < 0 || nap <= 0) {
		fprintf(stderr, "spin: SECONDS 0..600, SPIN_MS >= 0, SLEEP_MS > 0\n");
		return 2;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		perror("sched_setaffinity");
		return 1;
	}
	if (prio > 0) {
		struct sched_param sp = { .sched_priority = prio };
		if (sched_setscheduler(0, SCHED_FIFO, &sp) < 0) {
			perror("sched_setscheduler");
			return 1;
		}
	}
	printf("spinning %d\n", (int)getpid());
	fflush(stdout);
	double end = now() + secs;
	struct timespec ts = { .tv_sec = (time_t)nap,
	                       .tv_nsec = (long)((nap - (double)(time_t)nap) * 1e9) };
	volatile unsigned long n = 0;
	for (double t = now(); t < end; t = now()) {
		double stop = t + spin;
		while (now() < stop && now() < end)
			n++;
		if (now() < end)
			nanosleep(&ts, NULL);
	}
	return 0;
}
