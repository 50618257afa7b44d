/* sink-writer.c: the daemon's files (reports, the state file, the metrics) are written off the main
 * loop, so that a disk that does not answer never holds up a scan or an alert. Each kind has
 * its own thread (a lane): a stuck reports directory does not hold up the metrics. The main
 * loop queues and never waits: a newer state or metrics file replaces one still queued,
 * reports queue up to WR_MAX_REPORTS. writer_poll(), from the main loop, logs what each lane's
 * warn_once said (the first failure of a streak; a new failure with the count of the old;
 * "again N times; now cleared" when a write succeeds again) and, once, a lane whose write
 * has not returned within the deadline.
 * A thread stuck in the kernel is never joined: the process exits around it; when a reload
 * points a stuck lane somewhere else, a new thread takes over and the stuck one is left.
 * writer_stop frees the writer once every lane thread has exited, and only then. */
#include <errno.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

#define WR_MAX_REPORTS 32

struct wr_job {
	struct wr_job *next;
	struct report_files rf;               /* WR_REPORTS */
	char inc_id[176];
	char *path, *data;                    /* WR_STATE, WR_METRICS; WR_BUNDLES: path */
	size_t len;
	mode_t mode;
	writer_job_fn run;                    /* WR_BUNDLES: the job, and ctx's release */
	void (*release)(void *ctx);
	void *ctx;
};

struct wr_lane {
	struct cgw_writer *w;
	int kind;
	bool started;
	struct wr_job *head, *tail;
	size_t queued;
	char target[4096];                    /* what the running (or last) job writes to */
	uint64_t busy_since;                  /* now_usec() at its start; 0 when idle */
	bool failing;                         /* the last job failed: a streak goes on */
	struct warn_once warn;                /* failures: said once, counted, cleared */
	char pending[2][3200];                /* what warn said since the last poll, to log */
	unsigned npending;
	bool answered;                        /* a job returned since the last poll */
	size_t dropped;                       /* reports not queued: the queue was full */
	bool abandoned;                       /* replaced while stuck: exit after the job */
	bool stuck_warned;                    /* main loop only */
	size_t dropped_said;                  /* main loop only: dropped already logged */
	size_t nomem, nomem_said;             /* jobs dropped for want of memory; logged */
};

struct cgw_writer {
	pthread_mutex_t lock;
	pthread_cond_t work, done;
	struct wr_lane *lane[WR_NLANES];
	unsigned timeout_ms;
	unsigned threads;                     /* lane threads alive, abandoned ones too */
	bool quit;
};

static const char *const lane_what[WR_NLANES] = {
	"reports directory %s does not answer: reports are not being written",
	"state directory %s does not answer: open incidents are not being saved",
	"metrics file %s does not answer: metrics are not being written",
	"bundle directory %s does not answer: bundles are not being written",
};

static const char *const lane_jobs[WR_NLANES] = { "report", "state save", "metrics write",
                                                   "bundle" };

/* A job that could not be queued for want of memory: dropped, counted, said at the next poll. */
static int job_lost(struct cgw_writer *w, int k)
{
	pthread_mutex_lock(&w->lock);
	w->lane[k]->nomem++;
	pthread_mutex_unlock(&w->lock);
	return -ENOMEM;
}
static const char *const lane_back[WR_NLANES] = {
	"reports directory %s answers again", "state directory %s answers again",
	"metrics file %s answers again", "bundle directory %s answers again",
};

static void job_free(struct wr_job *j)
{
	report_files_free(&j->rf);
	if (j->release)
		j->release(j->ctx);
	free(j->path);
	free(j->data);
	free(j);
}

/* The directory a file is in, into out. */
static void dir_of(const char *path, char *out, size_t cap)
{
	const char *slash = strrchr(path, '/');
	if (!slash)
		snprintf(out, cap, ".");
	else
		snprintf(out, cap, "%.*s", slash == path ? 1 : (int)(slash - path), path);
}

/* Where job j of lane kind k writes: the directory, or the metrics file. */
static void job_target(const struct wr_job *j, int k, char *out, size_t cap)
{
	if (k == WR_REPORTS)
		snprintf(out, cap, "%s", j->rf.dir);
	else if (k == WR_STATE || k == WR_BUNDLES)
		dir_of(j->path, out, cap);
	else
		snprintf(out, cap, "%s", j->path);
}

static void *lane_thread(void *p)
{
	struct wr_lane *l = p;
	struct cgw_writer *w = l->w;
	crash_thread_init();
	pthread_mutex_lock(&w->lock);
	for (;;) {
		while (!l->head && !w->quit && !l->abandoned)
			pthread_cond_wait(&w->work, &w->lock);
		if (!l->head)
			break;
		struct wr_job *j = l->head;
		l->head = j->next;
		if (!l->head)
			l->tail = NULL;
		l->queued--;
		l->busy_since = now_usec();
		job_target(j, l->kind, l->target, sizeof(l->target));
		pthread_mutex_unlock(&w->lock);

		char why[1024] = "";
		int e = l->kind == WR_REPORTS ? report_files_write(&j->rf, why, sizeof(why))
		        : l->kind == WR_BUNDLES ? j->run(j->ctx, why, sizeof(why))
		        : atomic_write_why(j->path, j->data, j->len, j->mode, why, sizeof(why));

		pthread_mutex_lock(&w->lock);
		l->busy_since = 0;
		l->answered = true;
		char msg[1536], line[3200];
		if (e < 0 && l->kind == WR_REPORTS)
			snprintf(msg, sizeof(msg), "cannot write the report of incident %s under %s: %s; "
			         "the journal still gets it", j->inc_id, j->rf.dir, why);
		else if (e < 0 && l->kind == WR_BUNDLES)
			snprintf(msg, sizeof(msg), "cannot write the bundle %s: %s", j->path, why);
		else if (e < 0)
			snprintf(msg, sizeof(msg), "cannot %s %s: %s",
			         l->kind == WR_STATE ? "save open incidents to" : "write metrics to",
			         j->path, why);
		/* a full disk stays full: said once, counted, and said again when it changes or
		 * clears; the newest line replaces the last one not yet polled */
		if (warn_step(&l->warn, e < 0 ? msg : NULL, line, sizeof(line))) {
			unsigned k = l->npending < 2 ? l->npending++ : 1;
			snprintf(l->pending[k], sizeof(l->pending[k]), "%s", line);
		}
		l->failing = e < 0;
		pthread_cond_broadcast(&w->done);
		pthread_mutex_unlock(&w->lock);
		job_free(j);
		pthread_mutex_lock(&w->lock);
	}
	bool abandoned = l->abandoned;        /* then nothing points to l any more */
	w->threads--;                         /* writer_stop may free w, and l, once unlocked */
	pthread_cond_broadcast(&w->done);
	pthread_mutex_unlock(&w->lock);
	if (abandoned)
		free(l);
	return NULL;
}

static struct wr_lane *lane_new(struct cgw_writer *w, int kind)
{
	struct wr_lane *l = xcalloc(1, sizeof(*l));
	l->w = w;
	l->kind = kind;
	return l;
}

struct cgw_writer *writer_new(unsigned timeout_ms)
{
	struct cgw_writer *w = xcalloc(1, sizeof(*w));
	pthread_mutex_init(&w->lock, NULL);
	pthread_cond_init(&w->work, NULL);
	pthread_condattr_t ca;
	pthread_condattr_init(&ca);
	pthread_condattr_setclock(&ca, CLOCK_MONOTONIC);
	pthread_cond_init(&w->done, &ca);
	pthread_condattr_destroy(&ca);
	for (int k = 0; k < WR_NLANES; k++)
		w->lane[k] = lane_new(w, k);
	w->timeout_ms = timeout_ms;
	return w;
}

static bool lane_stuck(const struct cgw_writer *w, const struct wr_lane *l, uint64_t now)
{
	return l->busy_since && now - l->busy_since > (uint64_t)w->timeout_ms * 1000;
}

/* Queue j on lane k (lock held); start the lane's thread the first time. A job for another
 * place than the one a stuck lane hangs on gets a new lane. Returns false when j was dropped
 * (no thread, or the reports queue is full). */
static bool lane_push(struct cgw_writer *w, int k, struct wr_job *j)
{
	struct wr_lane *l = w->lane[k];
	char target[4096];
	job_target(j, k, target, sizeof(target));
	if (lane_stuck(w, l, now_usec()) && strcmp(target, l->target) != 0) {
		/* a new place (a reload changed it) while the old one hangs: a new thread for it;
		 * the stuck one exits whenever its job returns. What was queued was for the old
		 * place, which was said not to answer: dropped. */
		struct wr_lane *nl = try_calloc(1, sizeof(*nl));   /* 10 KiB, mid-run */
		if (!nl) {
			job_free(j);
			l->nomem++;
			return false;
		}
		nl->w = w;
		nl->kind = k;
		while (l->head) {
			struct wr_job *q = l->head;
			l->head = q->next;
			job_free(q);
		}
		l->tail = NULL;
		l->queued = 0;
		l->abandoned = true;
		pthread_cond_broadcast(&w->work);
		w->lane[k] = l = nl;
	}
	if (!l->started) {
		pthread_attr_t attr;
		pthread_attr_init(&attr);
		pthread_attr_setdetachstate(&attr, PTHREAD_CREATE_DETACHED);
		pthread_attr_setstacksize(&attr, 256 * 1024);
		pthread_t t;
		l->started = pthread_create(&t, &attr, lane_thread, l) == 0;
		w->threads += l->started;
		pthread_attr_destroy(&attr);
		if (!l->started) {
			job_free(j);
			l->dropped++;
			return false;
		}
	}
	if (k == WR_BUNDLES && l->head) {        /* one at a time: a bundle is not queued */
		job_free(j);
		l->dropped++;
		return false;
	}
	if (k != WR_REPORTS && l->head) {        /* the newer state replaces the queued one */
		job_free(l->head);
		l->head = l->tail = NULL;
		l->queued = 0;
	}
	if (k == WR_REPORTS && l->queued >= WR_MAX_REPORTS) {
		job_free(j);
		l->dropped++;
		return false;
	}
	if (l->tail)
		l->tail->next = j;
	else
		l->head = j;
	l->tail = j;
	l->queued++;
	pthread_cond_broadcast(&w->work);
	return true;
}

/* Queue j on lane k: 0, or -EAGAIN when lane_push dropped it. */
static int submit(struct cgw_writer *w, enum wr_kind k, struct wr_job *j)
{
	pthread_mutex_lock(&w->lock);
	bool ok = lane_push(w, k, j);
	pthread_mutex_unlock(&w->lock);
	return ok ? 0 : -EAGAIN;
}

int writer_report(struct cgw_writer *w, struct report_files *f, const char *inc_id)
{
	struct wr_job *j = try_calloc(1, sizeof(*j));
	if (!j) {
		report_files_free(f);
		memset(f, 0, sizeof(*f));
		return job_lost(w, WR_REPORTS);
	}
	j->rf = *f;
	memset(f, 0, sizeof(*f));
	snprintf(j->inc_id, sizeof(j->inc_id), "%s", inc_id);
	return submit(w, WR_REPORTS, j);
}

int writer_file(struct cgw_writer *w, enum wr_kind k, const char *path, char *data, size_t len,
                mode_t mode)
{
	struct wr_job *j = try_calloc(1, sizeof(*j));
	char *p = j ? try_strdup(path) : NULL;
	if (!p) {
		free(j);
		free(data);
		return job_lost(w, k);
	}
	j->path = p;
	j->data = data;
	j->len = len;
	j->mode = mode;
	return submit(w, k, j);
}

int writer_job(struct cgw_writer *w, const char *path, writer_job_fn run,
               void (*release)(void *ctx), void *ctx)
{
	struct wr_job *j = try_calloc(1, sizeof(*j));
	char *p = j ? try_strdup(path) : NULL;
	if (!p) {
		free(j);
		release(ctx);
		return job_lost(w, WR_BUNDLES);
	}
	j->path = p;
	j->run = run;
	j->release = release;
	j->ctx = ctx;
	return submit(w, WR_BUNDLES, j);
}

bool writer_ok(struct cgw_writer *w, enum wr_kind k)
{
	pthread_mutex_lock(&w->lock);
	const struct wr_lane *l = w->lane[k];
	bool ok = !l->failing && !l->stuck_warned && !lane_stuck(w, l, now_usec());
	pthread_mutex_unlock(&w->lock);
	return ok;
}

bool writer_answers(struct cgw_writer *w, enum wr_kind k)
{
	pthread_mutex_lock(&w->lock);
	const struct wr_lane *l = w->lane[k];
	bool ok = !l->stuck_warned && !lane_stuck(w, l, now_usec());
	pthread_mutex_unlock(&w->lock);
	return ok;
}

void writer_poll(struct cgw_writer *w, unsigned timeout_ms)
{
	char msg[WR_NLANES][2][3200], target[WR_NLANES][4096];
	unsigned nmsg[WR_NLANES];
	bool stuck[WR_NLANES], answered[WR_NLANES];
	size_t dropped[WR_NLANES], nomem[WR_NLANES];
	pthread_mutex_lock(&w->lock);
	w->timeout_ms = timeout_ms;
	uint64_t now = now_usec();
	for (int k = 0; k < WR_NLANES; k++) {
		struct wr_lane *l = w->lane[k];
		nmsg[k] = l->npending;
		for (unsigned m = 0; m < l->npending; m++)
			snprintf(msg[k][m], sizeof(msg[k][m]), "%s", l->pending[m]);
		l->npending = 0;
		snprintf(target[k], sizeof(target[k]), "%s", l->target);
		stuck[k] = lane_stuck(w, l, now);
		answered[k] = l->answered && !l->busy_since;
		l->answered = false;
		dropped[k] = l->dropped;
		nomem[k] = l->nomem;
	}
	pthread_mutex_unlock(&w->lock);
	for (int k = 0; k < WR_NLANES; k++) {
		struct wr_lane *l = w->lane[k];        /* replaced only by this thread */
		if (l->stuck_warned && answered[k]) {
			log_warnx(lane_back[k], target[k]);
			l->stuck_warned = false;
		}
		if (dropped[k] > l->dropped_said && !l->stuck_warned) {   /* queue full: counted */
			log_warnx("%zu %s%s dropped: the queue for %s was full", dropped[k] -
			          l->dropped_said, lane_jobs[k], dropped[k] - l->dropped_said == 1 ? "" :
			          "s", target[k]);
			l->dropped_said = dropped[k];
		}
		if (nomem[k] > l->nomem_said) {
			size_t n = nomem[k] - l->nomem_said;
			log_warnx("%zu %s%s dropped: out of memory", n, lane_jobs[k], n == 1 ? "" : "s");
			l->nomem_said = nomem[k];
		}
		for (unsigned m = 0; m < nmsg[k]; m++)
			log_warnx("%s", msg[k][m]);
		if (stuck[k] && !l->stuck_warned) {
			log_warnx(lane_what[k], target[k]);
			l->stuck_warned = true;
		}
	}
}

void writer_mark_stuck(struct cgw_writer *w, enum wr_kind k, const char *target)
{
	struct wr_lane *l = w->lane[k];
	log_warnx(lane_what[k], target);
	pthread_mutex_lock(&w->lock);
	snprintf(l->target, sizeof(l->target), "%s", target);
	pthread_mutex_unlock(&w->lock);
	l->stuck_warned = true;
}

bool writer_wait(struct cgw_writer *w, unsigned wait_ms)
{
	struct timespec until = mono_after(wait_ms);
	pthread_mutex_lock(&w->lock);
	bool busy;
	for (;;) {
		busy = false;
		uint64_t now = now_usec();
		for (int k = 0; k < WR_NLANES; k++) {
			const struct wr_lane *l = w->lane[k];
			/* a lane that does not answer is not waited for */
			busy |= !l->stuck_warned && !lane_stuck(w, l, now) &&
			        (l->head || l->busy_since);
		}
		if (!busy || pthread_cond_timedwait(&w->done, &w->lock, &until) == ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&w->lock);
	return !busy;
}

bool writer_lane_wait(struct cgw_writer *w, enum wr_kind k, unsigned wait_ms)
{
	struct timespec until = mono_after(wait_ms);
	pthread_mutex_lock(&w->lock);
	bool busy;
	for (;;) {
		const struct wr_lane *l = w->lane[k];
		busy = !lane_stuck(w, l, now_usec()) && (l->head || l->busy_since);
		if (!busy || pthread_cond_timedwait(&w->done, &w->lock, &until) == ETIMEDOUT)
			break;
	}
	pthread_mutex_unlock(&w->lock);
	return !busy;
}

bool writer_stop(struct cgw_writer *w, unsigned wait_ms)
{
	writer_wait(w, wait_ms);
	pthread_mutex_lock(&w->lock);
	w->quit = true;                       /* idle threads exit; busy ones after their job */
	pthread_cond_broadcast(&w->work);
	bool idle = true;
	for (int k = 0; k < WR_NLANES; k++)
		idle &= !w->lane[k]->busy_since;
	/* the idle threads exit at once; one still in a job (or an abandoned one stuck in the
	 * kernel) holds w until the process exits: then w stays allocated */
	struct timespec until = mono_after(idle ? 500 : 0);
	while (w->threads && pthread_cond_timedwait(&w->done, &w->lock, &until) != ETIMEDOUT)
		;
	idle = !w->threads;
	pthread_mutex_unlock(&w->lock);
	if (!idle)
		return false;
	for (int k = 0; k < WR_NLANES; k++) {
		struct wr_lane *l = w->lane[k];
		while (l->head) {                 /* a lane whose thread never started */
			struct wr_job *q = l->head;
			l->head = q->next;
			job_free(q);
		}
		free(l);
	}
	pthread_cond_destroy(&w->work);
	pthread_cond_destroy(&w->done);
	pthread_mutex_destroy(&w->lock);
	free(w);
	return true;
}
