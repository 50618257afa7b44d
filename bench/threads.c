/* threads: start N sleeping threads and wait; the load for bench/scan.sh. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>

static void *idle_thread(void *arg)
{
	(void)arg;
	pause();
	return NULL;
}

int main(int argc, char **argv)
{
	int n = argc > 1 ? atoi(argv[1]) : 1000;
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setstacksize(&attr, 64 * 1024);
	for (int i = 0; i < n; i++) {
		pthread_t t;
		if (pthread_create(&t, &attr, idle_thread, NULL) != 0) {
			perror("pthread_create");
			return 1;
		}
	}
	printf("ready\n");
	fflush(stdout);
	pause();
	return 0;
}
