/* manythreads: start N threads that sleep until killed, print "ready", and wait; a process
 * the scan walks in many runs (tests/live/walkslices.sh).
 *
 *   manythreads N */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *idle_thread(void *arg)
{
	(void)arg;
	for (;;)
		pause();
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 0;
	if (n <= 0) {
		fprintf(stderr, "usage: manythreads N\n");
		return 2;
	}
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, &attr, idle_thread, NULL) != 0) {
			fprintf(stderr, "manythreads: thread %d of %d: could not start\n", i, n);
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	for (;;)
		pause();
}
