/* deadline.c: reads that can block on the hang being diagnosed run in a helper thread with a
 * deadline. When the deadline passes, the caller goes on and the thread is abandoned: it owns
 * its job and frees it whenever the kernel lets the read return (most of these waits are
 * killable, so process exit ends them). */
#include <errno.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cgwatch.h"

struct dl_job {
	pthread_mutex_t lock;
	pthread_cond_t done_cv;
	bool done, abandoned;
	void (*fn)(void *);
	void *arg;
	void (*release)(void *);
};

static atomic_uint dl_stuck_count;

unsigned dl_stuck(void)
{
	return atomic_load(&dl_stuck_count);
}

static void *dl_thread(void *p)
{
	struct dl_job *j = p;
	j->fn(j->arg);
	pthread_mutex_lock(&j->lock);
	j->done = true;
	bool abandoned = j->abandoned;
	pthread_cond_signal(&j->done_cv);
	pthread_mutex_unlock(&j->lock);
	if (abandoned) {                       /* the caller left: clean up for it */
		if (j->release)
			j->release(j->arg);
		pthread_mutex_destroy(&j->lock);
		pthread_cond_destroy(&j->done_cv);
		free(j);
		atomic_fetch_sub(&dl_stuck_count, 1);
	}
	return NULL;
}

int dl_call(void (*fn)(void *), void *arg, void (*release)(void *), unsigned timeout_ms)
{
	struct dl_job *j = xcalloc(1, sizeof(*j));
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&j->done_cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&j->lock, NULL);
	j->fn = fn;
	j->arg = arg;
	j->release = release;

	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	pthread_t t;
	int r = pthread_create(&t, &attr, dl_thread, j);
	pthread_attr_destroy(&attr);
	if (r != 0) {                          /* no thread: run inline rather than not at all */
		fn(arg);
		j->done = true;
	}

	struct timespec until;
	clock_gettime(CLOCK_MONOTONIC, &until);
	until.tv_sec += timeout_ms / 1000;
	until.tv_nsec += (long)(timeout_ms % 1000) * 1000000L;
	if (until.tv_nsec >= 1000000000L) {
		until.tv_sec++;
		until.tv_nsec -= 1000000000L;
	}
	pthread_mutex_lock(&j->lock);
	while (!j->done) {
		if (pthread_cond_timedwait(&j->done_cv, &j->lock, &until) == ETIMEDOUT && !j->done) {
			j->abandoned = true;
			atomic_fetch_add(&dl_stuck_count, 1);
			pthread_mutex_unlock(&j->lock);
			return -ETIMEDOUT;
		}
	}
	pthread_mutex_unlock(&j->lock);
	pthread_mutex_destroy(&j->lock);
	pthread_cond_destroy(&j->done_cv);
	free(j);
	return 0;
}

struct dl_read {
	char *path;
	char *buf;                             /* private buffer: the caller's may be gone */
	size_t cap;
	ssize_t r;
};

static void dl_read_fn(void *p)
{
	struct dl_read *d = p;
	d->r = read_small_file(d->path, d->buf, d->cap);
}

static void dl_read_release(void *p)
{
	struct dl_read *d = p;
	free(d->path);
	free(d->buf);
	free(d);
}

ssize_t dl_read_file(const char *path, char *buf, size_t cap, unsigned timeout_ms)
{
	struct dl_read *d = xcalloc(1, sizeof(*d));
	d->path = xstrdup(path);
	d->buf = xmalloc(cap);
	d->cap = cap;
	if (dl_call(dl_read_fn, d, dl_read_release, timeout_ms) < 0)
		return -ETIMEDOUT;
	ssize_t r = d->r;
	if (r >= 0)
		memcpy(buf, d->buf, (size_t)r + 1);
	dl_read_release(d);
	return r;
}
