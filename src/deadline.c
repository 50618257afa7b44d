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
	/* the caller leaves (-ETIMEDOUT, -ECANCELED): it may take what the job finished, in its
	 * own thread, holding the worker's lock, before the job becomes the worker's */
	void (*salvage)(void *arg, int why);
	bool done;
};

struct dl_worker {
	pthread_mutex_t lock;
	pthread_cond_t cv;               /* job posted, or job done */
	struct dl_job *job;
	bool abandoned;
	bool retire;                     /* exit when idle: dl_reset() */
	/* a job of several reads (dl_step): each after the first has a deadline of its own,
	 * from when it began */
	unsigned timeout_ms;             /* the current job's, per step */
	unsigned steps;                  /* dl_step()s of the current job (the worker's) */
	struct timespec step_until;      /* the latest step's deadline, when stepped */
	bool stepped;                    /* step_until is newer than the caller's deadline */
};

/* the healthy worker of this caller thread: the daemon's scan and its bundle writer each
 * have their own, so neither posts a job into the other's */
static _Thread_local struct dl_worker *dl_current;
/* in a worker thread: its own (dl_step, dl_abandoned) */
static _Thread_local struct dl_worker *dl_self;
static atomic_uint dl_stuck_count;
static atomic_ulong dl_handoff_count;
/* Reads still stuck, by path: a file that did not answer last time is not asked again
 * (and does not cost another thread) until the stuck read returns. */
static pthread_mutex_t stuck_lock = PTHREAD_MUTEX_INITIALIZER;

unsigned dl_stuck(void)
{
	return atomic_load(&dl_stuck_count);
}

unsigned long dl_handoffs(void)
{
	return atomic_load(&dl_handoff_count);
}

void dl_step(void)
{
	struct dl_worker *w = dl_self;
	if (!w || w->steps++ == 0)       /* run inline, or the first: the call's own deadline */
		return;
	pthread_mutex_lock(&w->lock);
	w->step_until = mono_after(w->timeout_ms);
	w->stepped = true;
	pthread_mutex_unlock(&w->lock);
}

bool dl_abandoned(void)
{
	struct dl_worker *w = dl_self;
	if (!w)
		return false;
	pthread_mutex_lock(&w->lock);
	bool a = w->abandoned;
	pthread_mutex_unlock(&w->lock);
	return a;
}

static void *dl_thread(void *p)
{
	struct dl_worker *w = p;
	struct dl_job *j;
	crash_thread_init();
	dl_self = w;
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

static bool ts_before(struct timespec a, struct timespec b)
{
	return a.tv_sec < b.tv_sec || (a.tv_sec == b.tv_sec && a.tv_nsec < b.tv_nsec);
}

/* dl_call, and for a job that calls salvage when its caller leaves */
static int dl_call_ex(void (*fn)(void *), void *arg, void (*release)(void *),
                      void (*salvage)(void *, int), unsigned timeout_ms)
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
	j->salvage = salvage;

	struct timespec until = mono_after(timeout_ms);
	pthread_mutex_lock(&w->lock);
	w->timeout_ms = timeout_ms;
	w->steps = 0;
	w->stepped = false;
	w->job = j;
	atomic_fetch_add(&dl_handoff_count, 1);
	pthread_cond_broadcast(&w->cv);
	/* wait in slices of 100 ms: a daemon told to stop does not sit out the whole deadline */
	while (!j->done) {
		if (w->stepped) {                  /* a further step began: its deadline from then */
			until = w->step_until;
			w->stepped = false;
		}
		struct timespec slice = mono_after(100);
		bool last = !ts_before(slice, until);
		int r = pthread_cond_timedwait(&w->cv, &w->lock, last ? &until : &slice);
		if (j->done)
			break;
		bool stop = cgw_stop_pending();
		if ((r == ETIMEDOUT && last && !w->stepped) || stop) {
			if (salvage)
				salvage(arg, stop ? -ECANCELED : -ETIMEDOUT);
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

int dl_call(void (*fn)(void *), void *arg, void (*release)(void *), unsigned timeout_ms)
{
	return dl_call_ex(fn, arg, release, NULL, timeout_ms);
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

/* ---- batches: several reads, one hand-off ---- */

struct dl_bjob {
	struct dl_item item[DL_BATCH_MAX];
	atomic_size_t done;                    /* items answered, in order */
	atomic_size_t begun;                   /* items whose read began */
	dl_next_fn next;
	void *ctx;                             /* the job's copy */
	struct dl_batch *out;                  /* the caller's, for salvage only */
};

static void item_free(struct dl_item *it)
{
	free(it->path);
	free(it->buf);
	memset(it, 0, sizeof(*it));
}

static void batch_fn(void *p)
{
	struct dl_bjob *j = p;
	char path[DL_PATH_MAX];
	size_t n = 0;
	record_mute(true);                     /* recorded by the caller, as the caller saw it */
	for (; n < DL_BATCH_MAX; n++) {
		off_t off = -1;
		size_t cap = 0;
		/* what dl_call would refuse to start, a batch does not start either */
		if (dl_abandoned() || cgw_stop_pending() || dl_stuck() >= DL_MAX_STUCK ||
		    !j->next(j->item, n, j->ctx, path, sizeof(path), &off, &cap) || cap == 0)
			break;
		struct dl_item *it = &j->item[n];
		it->off = off;
		it->cap = cap;
		if (!(it->path = strdup(path)) || !(it->buf = malloc(cap))) {
			item_free(it);                 /* not answered: the caller reads it itself */
			break;
		}
		dl_step();
		atomic_store_explicit(&j->begun, n + 1, memory_order_release);
		if (stuck_has(it->path)) {         /* still stuck since an earlier call */
			it->r = -ETIMEDOUT;
			it->deadline = true;
		} else {
			stuck_set(it->path, true);
			it->r = off < 0 ? read_small_file(it->path, it->buf, cap)
			                : read_once_at(AT_FDCWD, it->path, off, it->buf, cap);
			stuck_set(it->path, false);
		}
		atomic_store_explicit(&j->done, n + 1, memory_order_release);
	}
	record_mute(false);
}

static void batch_release(void *p)
{
	struct dl_bjob *j = p;
	for (size_t i = 0; i < DL_BATCH_MAX; i++)
		item_free(&j->item[i]);
	free(j->ctx);
	free(j);
}

/* The items answered, moved from the job into the caller's batch. */
static void batch_take_done(struct dl_bjob *j)
{
	size_t n = atomic_load_explicit(&j->done, memory_order_acquire);
	for (size_t i = 0; i < n; i++) {
		j->out->item[i] = j->item[i];
		memset(&j->item[i], 0, sizeof(j->item[i]));
	}
	j->out->n = n;
}

/* The caller leaves: what is answered is its own, and the read under way is answered
 * with why (its path is copied: the worker still reads it). */
static void batch_salvage(void *p, int why)
{
	struct dl_bjob *j = p;
	batch_take_done(j);
	size_t n = j->out->n;
	if (n < DL_BATCH_MAX && atomic_load_explicit(&j->begun, memory_order_acquire) == n + 1) {
		struct dl_item *it = &j->out->item[n];
		if ((it->path = strdup(j->item[n].path))) {
			it->off = j->item[n].off;
			it->cap = j->item[n].cap;
			it->r = why;
			it->deadline = true;
			j->out->n = n + 1;
		}
	}
}

struct dl_batch *dl_read_batch(dl_next_fn next, const void *ctx, size_t ctx_size,
                               unsigned timeout_ms)
{
	struct dl_batch *b = calloc(1, sizeof(*b));
	struct dl_bjob *j = calloc(1, sizeof(*j));
	void *c = malloc(ctx_size ? ctx_size : 1);
	if (!b || !j || !c) {
		free(b);
		free(j);
		free(c);
		return NULL;
	}
	memcpy(c, ctx, ctx_size);
	j->next = next;
	j->ctx = c;
	j->out = b;
	/* refused before starting (stopping, too many stuck, no memory): nothing answered, and
	 * each read asked again on its own is refused the same way */
	if (dl_call_ex(batch_fn, j, batch_release, batch_salvage, timeout_ms) == 0) {
		batch_take_done(j);
		batch_release(j);
	}
	return b;
}

bool dl_batch_take(struct dl_batch *b, const char *path, off_t off, char *buf, size_t cap,
                   ssize_t *r)
{
	/* from the one after the last taken: they are mostly asked for in the order read */
	for (size_t k = 0; b && k < b->n; k++) {
		size_t i = (b->next + k) % b->n;
		struct dl_item *it = &b->item[i];
		if (it->taken || it->off != off || it->cap != cap || strcmp(it->path, path) != 0)
			continue;
		it->taken = true;
		b->next = i + 1;
		*r = it->r;
		/* as dl_pread_file would have answered and recorded it */
		if (it->deadline) {
			if (off < 0)
				record_read(path, NULL, it->r);
			return true;
		}
		if (it->r >= 0)
			memcpy(buf, it->buf, (size_t)it->r + 1);
		if (off < 0)
			record_read(path, it->buf, it->r);
		return true;
	}
	return false;
}

void dl_batch_free(struct dl_batch *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->n; i++)
		item_free(&b->item[i]);
	free(b);
}
