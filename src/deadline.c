/* deadline.c: reads that can block on the hang being diagnosed run in a helper thread with a
 * deadline. When the deadline passes, the caller goes on and the thread is abandoned: it owns
 * its job and frees it whenever the kernel lets the read return (most of these waits are
 * killable, so process exit ends them). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cgwatch.h"

/* One worker thread serves every call of a caller thread in turn, so what libraries keep per thread (libproc2's
 * read buffers live in thread-local storage) is allocated once, not once per call. A worker
 * whose job passed its deadline is abandoned: it finishes the job whenever the kernel lets
 * it, releases it, and exits; the next call starts a fresh worker. */
struct dl_job {
	void (*fn)(void *);
	void *arg;
	void (*release)(void *);
	bool done;
};

struct dl_worker {
	pthread_mutex_t lock;
	pthread_cond_t cv;               /* job posted, or job done */
	struct dl_job *job;
	bool abandoned;
	bool retire;                     /* exit when idle: dl_reset() */
};

/* the healthy worker of this caller thread: the daemon's scan and its bundle writer each
 * have their own, so neither posts a job into the other's */
static _Thread_local struct dl_worker *dl_current;
static atomic_uint dl_stuck_count;
/* Reads still stuck, by path: a file that did not answer last time is not asked again
 * (and does not cost another thread) until the stuck read returns. */
static pthread_mutex_t stuck_lock = PTHREAD_MUTEX_INITIALIZER;

unsigned dl_stuck(void)
{
	return atomic_load(&dl_stuck_count);
}

static void *dl_thread(void *p)
{
	struct dl_worker *w = p;
	struct dl_job *j;
	crash_thread_init();
	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!w->job && !w->retire)
			pthread_cond_wait(&w->cv, &w->lock);
		if (!w->job) {                 /* retired while idle */
			pthread_mutex_unlock(&w->lock);
			pthread_mutex_destroy(&w->lock);
			pthread_cond_destroy(&w->cv);
			free(w);
			return NULL;
		}
		j = w->job;
		pthread_mutex_unlock(&w->lock);
		j->fn(j->arg);
		pthread_mutex_lock(&w->lock);
		j->done = true;
		w->job = NULL;
		if (w->abandoned)
			break;
		pthread_cond_broadcast(&w->cv);
	}
	/* abandoned: the caller left; the job, its argument and the worker are ours to free */
	pthread_mutex_unlock(&w->lock);
	if (j->release)
		j->release(j->arg);
	free(j);
	pthread_mutex_destroy(&w->lock);
	pthread_cond_destroy(&w->cv);
	free(w);
	atomic_fetch_sub(&dl_stuck_count, 1);
	return NULL;
}

static struct dl_worker *dl_worker_get(void)
{
	if (dl_current)
		return dl_current;
	struct dl_worker *w = calloc(1, sizeof(*w));
	if (!w)
		return NULL;
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->cv, &ca);
	pthread_condattr_destroy(&ca);
	pthread_mutex_init(&w->lock, NULL);
	pthread_attr_t attr;
	pthread_attr_init(&attr);
	pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
	pthread_attr_setstacksize(&attr, 256 * 1024);
	pthread_t t;
	int r = pthread_create(&t, &attr, dl_thread, w);
	pthread_attr_destroy(&attr);
	if (r != 0) {
		pthread_mutex_destroy(&w->lock);
		pthread_cond_destroy(&w->cv);
		free(w);
		return NULL;
	}
	return dl_current = w;
}

void dl_reset(void)
{
	struct dl_worker *w = dl_current;
	if (!w)
		return;
	dl_current = NULL;
	pthread_mutex_lock(&w->lock);
	w->retire = true;
	pthread_cond_broadcast(&w->cv);
	pthread_mutex_unlock(&w->lock);
}

void dl_forked(void)
{
	dl_current = NULL;                     /* its thread is the parent's */
	atomic_store(&dl_stuck_count, 0);
	pthread_mutex_init(&stuck_lock, NULL);
}

int dl_call(void (*fn)(void *), void *arg, void (*release)(void *), unsigned timeout_ms)
{
	if (cgw_stop_pending() || dl_stuck() >= DL_MAX_STUCK) {
		/* stopping, or too many threads already stuck: start nothing that may block */
		bool stop = cgw_stop_pending();
		if (release)
			release(arg);
		return stop ? -ECANCELED : -EBUSY;
	}
	struct dl_worker *w = dl_worker_get();
	if (!w) {                              /* no thread: run inline rather than not at all */
		fn(arg);
		return 0;
	}
	struct dl_job *j = calloc(1, sizeof(*j));
	if (!j) {
		if (release)
			release(arg);
		return -ENOMEM;
	}
	j->fn = fn;
	j->arg = arg;
	j->release = release;

	struct timespec until = mono_after(timeout_ms);
	pthread_mutex_lock(&w->lock);
	w->job = j;
	pthread_cond_broadcast(&w->cv);
	/* wait in slices of 100 ms: a daemon told to stop does not sit out the whole deadline */
	while (!j->done) {
		struct timespec slice = mono_after(100);
		bool last = slice.tv_sec > until.tv_sec ||
		            (slice.tv_sec == until.tv_sec && slice.tv_nsec >= until.tv_nsec);
		int r = pthread_cond_timedwait(&w->cv, &w->lock, last ? &until : &slice);
		if (j->done)
			break;
		bool stop = cgw_stop_pending();
		if ((r == ETIMEDOUT && last) || stop) {
			w->abandoned = true;
			dl_current = NULL;
			atomic_fetch_add(&dl_stuck_count, 1);
			pthread_mutex_unlock(&w->lock);
			return stop ? -ECANCELED : -ETIMEDOUT;  /* j and arg now belong to the worker */
		}
	}
	pthread_mutex_unlock(&w->lock);
	free(j);
	return 0;
}

static char *stuck_paths[DL_MAX_STUCK];

static bool stuck_has(const char *path)
{
	bool found = false;
	pthread_mutex_lock(&stuck_lock);
	for (size_t i = 0; i < DL_MAX_STUCK && !found; i++)
		found = stuck_paths[i] && strcmp(stuck_paths[i], path) == 0;
	pthread_mutex_unlock(&stuck_lock);
	return found;
}

/* Remember (add) or forget (!add) a stuck path; the pointer is the job's own copy. */
static void stuck_set(char *path, bool add)
{
	pthread_mutex_lock(&stuck_lock);
	for (size_t i = 0; i < DL_MAX_STUCK; i++) {
		if (add && !stuck_paths[i]) {
			stuck_paths[i] = path;
			break;
		}
		if (!add && stuck_paths[i] == path)
			stuck_paths[i] = NULL;
	}
	pthread_mutex_unlock(&stuck_lock);
}

struct dl_pathjob {
	char *path;                            /* the job's own copy, in stuck_paths meanwhile */
	void (*fn)(void *);
	void *arg;
	void (*release)(void *);
};

static void dl_pathjob_fn(void *p)
{
	struct dl_pathjob *j = p;
	j->fn(j->arg);
}

static void dl_pathjob_release(void *p)
{
	struct dl_pathjob *j = p;
	stuck_set(j->path, false);
	free(j->path);
	if (j->release)
		j->release(j->arg);
	free(j);
}

int dl_call_path(const char *path, void (*fn)(void *), void *arg, void (*release)(void *),
                 unsigned timeout_ms)
{
	struct dl_pathjob *j = NULL;
	int e = stuck_has(path) ? -ETIMEDOUT : 0;  /* still stuck since an earlier call */
	if (!e && (!(j = calloc(1, sizeof(*j))) || !(j->path = strdup(path))))
		e = -ENOMEM;
	if (e) {
		if (j)
			free(j);
		if (release)
			release(arg);
		return e;
	}
	j->fn = fn;
	j->arg = arg;
	j->release = release;
	/* registered before the call: once abandoned, the worker may release j any time */
	stuck_set(j->path, true);
	e = dl_call(dl_pathjob_fn, j, dl_pathjob_release, timeout_ms);
	if (e == 0) {                              /* done: arg is the caller's again */
		stuck_set(j->path, false);
		free(j->path);
		free(j);
	}
	return e;
}

struct dl_read {
	char *path;
	char *buf;                             /* private buffer: the caller's may be gone */
	size_t cap;
	off_t off;                             /* one pread there; -1: the whole file */
	ssize_t r;
};

static void dl_read_fn(void *p)
{
	struct dl_read *d = p;
	record_mute(true);                 /* recorded by the caller, as the caller saw it */
	d->r = d->off < 0 ? read_small_file(d->path, d->buf, d->cap)
	                  : read_once_at(AT_FDCWD, d->path, d->off, d->buf, d->cap);
	record_mute(false);
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
	return dl_pread_file(path, -1, buf, cap, timeout_ms);
}

ssize_t dl_pread_file(const char *path, off_t off, char *buf, size_t cap, unsigned timeout_ms)
{
	struct dl_read *d = calloc(1, sizeof(*d));
	if (!d)
		return -ENOMEM;
	d->path = strdup(path);
	d->buf = malloc(cap);
	d->cap = cap;
	d->off = off;
	if (!d->path || !d->buf) {
		free(d->path);
		free(d->buf);
		free(d);
		return -ENOMEM;
	}
	int e = dl_call_path(path, dl_read_fn, d, dl_read_release, timeout_ms);
	if (e < 0) {
		if (off < 0)
			record_read(path, NULL, e);
		return e;                      /* d now belongs to the worker, or is freed */
	}
	ssize_t r = d->r;
	if (r >= 0)
		memcpy(buf, d->buf, (size_t)r + 1);
	if (off < 0)
		record_read(path, d->buf, r);
	dl_read_release(d);
	return r;
}
