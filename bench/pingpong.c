/* bench/pingpong.c: a context-switch storm. Two threads pinned to one CPU hand a byte back and
 * forth over two pipes N times (2 N switches on that CPU, each a sched_switch event). Prints
 * "cpu_s WALL_S" and "cpu_s CPU_S" (the process's user + system time, both threads).
 * usage: pingpong CPU N */
#define _GNU_SOURCE
#include <pthread.h>
#include <sched.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/resource.h>
#include <time.h>
#include <unistd.h>

static int ab[2], ba[2];
static long n;

static void pin(int cpu)
{
	cpu_set_t s;
	CPU_ZERO(&s);
	CPU_SET(cpu, &s);
	if (sched_setaffinity(0, sizeof(s), &s) < 0) {
		perror("sched_setaffinity");
		exit(1);
	}
}

static int cpu;
static void *echo(void *arg)
{
	(void)arg;
	pin(cpu);
	char c;
	for (long i = 0; i < n; i++)
		if (read(ab[0], &c, 1) != 1 || write(ba[1], &c, 1) != 1)
			exit(1);
	return NULL;
}

int main(int argc, char **argv)
{
	if (argc != 3)
		return 2;
	cpu = atoi(argv[1]);
	n = atol(argv[2]);
	if (pipe(ab) < 0 || pipe(ba) < 0)
		return 1;
	pin(cpu);
	struct timespec t0, t1;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	pthread_t th;
	if (pthread_create(&th, NULL, echo, NULL))
		return 1;
	char c = 'x';
	for (long i = 0; i < n; i++)
		if (write(ab[1], &c, 1) != 1 || read(ba[0], &c, 1) != 1)
			return 1;
	pthread_join(th, NULL);
	clock_gettime(CLOCK_MONOTONIC, &t1);
	struct rusage ru;
	getrusage(RUSAGE_SELF, &ru);
	printf("wall_s %.6f\ncpu_s %.6f\n", (t1.tv_sec - t0.tv_sec) + (t1.tv_nsec - t0.tv_nsec) / 1e9,
	       ru.ru_utime.tv_sec + ru.ru_stime.tv_sec +
	               (ru.ru_utime.tv_usec + ru.ru_stime.tv_usec) / 1e6);
	return 0;
}
