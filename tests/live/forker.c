/* forker: new tasks on one CPU, at a steady rate: the first wait of a new task (from
 * wake_up_new_task to its first run) over and over (tests/live/runqpeer.sh).
 *
 *   forker CPU RATE SECONDS
 *
 * Pins itself to CPU, prints "forking PID", then forks RATE children a second (each exits at
 * once; the parent reaps it) until SECONDS have passed (CLOCK_MONOTONIC), or at once when it
 * gets SIGTERM or its parent dies (PR_SET_PDEATHSIG). */
#define _GNU_SOURCE
#include <sched.h>
#include <signal.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "helper.h"

static volatile sig_atomic_t stop;

static void on_term(int sig)
{
	(void)sig;
	stop = 1;
}

static double now_s(void)
{
	struct timespec ts;
	clock_gettime(CLOCK_MONOTONIC, &ts);
	return (double)ts.tv_sec + (double)ts.tv_nsec / 1e9;
}

int main(int argc, char **argv)
{
	if (argc != 4 || atoi(argv[2]) < 1 || atoi(argv[2]) > 100000 || atoi(argv[3]) < 1) {
		say("usage: forker CPU RATE SECONDS  (1 <= RATE <= 100000)\n");
		return 2;
	}
	int cpu = atoi(argv[1]), rate = atoi(argv[2]);
	double end = now_s() + atoi(argv[3]);
	pid_t parent = getppid();
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() != parent)
		return 1;
	cpu_set_t set;
	CPU_ZERO(&set);
	CPU_SET(cpu, &set);
	if (sched_setaffinity(0, sizeof(set), &set) < 0) {
		say("forker: cannot pin to CPU %d\n", cpu);
		return 1;
	}
	struct sigaction sa = { .sa_handler = on_term };
	sigaction(SIGTERM, &sa, NULL);
	say("forking %d\n", (int)getpid());
	double gap = 1.0 / rate, next = now_s();
	while (!stop && now_s() < end) {
		pid_t p = fork();
		if (p == 0)
			_exit(0);
		if (p > 0)
			waitpid(p, NULL, 0);
		next += gap;
		double wait = next - now_s();
		if (wait > 0) {
			struct timespec ts = { (time_t)wait, (long)((wait - (time_t)wait) * 1e9) };
			nanosleep(&ts, NULL);
		}
	}
	return 0;
}
