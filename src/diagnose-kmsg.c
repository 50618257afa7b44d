/* diagnose-kmsg.c: what the kernel said about the scanned tasks, as evidence. */
#include <ctype.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgwatch.h"
#include "kmsg.h"
#include "kmsg-int.h"

/* ---- linking to the scan ---- */

static const char *esc_comm(const char *s, char *buf, size_t cap)
{
	return cescape(s, strlen(s), buf, cap);
}

/* The kernel line without its final '.' or ':', escaped. */
static const char *esc_line(const char *s, char *buf, size_t cap)
{
	size_t n = strlen(s);
	if (n && (s[n - 1] == '.' || s[n - 1] == ':'))
		n--;
	return cescape(s, n, buf, cap);
}

const char *kmsg_lock_name(enum kmsg_lock l)
{
	return l == KMSG_LOCK_MUTEX ? "mutex" : l == KMSG_LOCK_SEM ? "semaphore" :
	       l == KMSG_LOCK_RWSEM ? "rw-semaphore" : "lock";
}

/* The scanned task with this tid (and, when comm is given, that comm), or -1. */
static ssize_t scanned(const struct cgw_scan *s, int tid, const char *comm)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->t[i].tid == tid && (!comm || kmsg_comm_match(comm, s->t[i].comm,
		                                                   s->t[i].comm_len)))
			return (ssize_t)i;
	return -1;
}

/* Where a task the kernel named (comm NULL: any) is in this report: name gets "PID 5 (x)"
 * or "task 5 (x)", where "in finding X", "in this finding", ... Returns whether it was
 * scanned. */
static bool where_is(const struct cgw_report *r, size_t self, int pid, const char *comm,
                     char *name, size_t ncap, char *where, size_t wcap)
{
	const struct cgw_scan *s = r->scan;
	char c[KMSG_COMM * 4];
	ssize_t i = scanned(s, pid, comm);
	if (i < 0) {
		if (comm)
			snprintf(name, ncap, "task %d (%s)", pid, esc_comm(comm, c, sizeof(c)));
		else
			snprintf(name, ncap, "task %d", pid);
		snprintf(where, wcap, "neither blocked nor waiting to run in this scan");
		return false;
	}
	const struct cgw_task *t = &s->t[i];
	task_name(t, name, ncap);
	ssize_t f = report_finding_of(r, (size_t)i);
	if (f == (ssize_t)self)
		snprintf(where, wcap, "in this finding");
	else if (f >= 0)
		snprintf(where, wcap, "in finding %s", r->f[f].sig->id);
	else {
		char d[48];
		snprintf(where, wcap, "%s for %s in this scan, below the report threshold",
		         t->state == 'D' ? "blocked (D)" : t->state == 'R' ? "waiting to run (R)" :
		         "scanned", dur_text(task_dur(t), d, sizeof(d)));
	}
	return true;
}

static void link_blocker(struct cgw_report *r, const struct cgw_kmsg *k, size_t fi,
                         const struct kmsg_hung *h)
{
	struct cgw_finding *f = &r->f[fi];
	const struct kmsg_blocker *b = &h->blocker;
	char tc[KMSG_COMM * 4], oc[KMSG_COMM * 4];
	esc_comm(b->task.comm, tc, sizeof(tc));
	sb_printf(&f->evidence, "%s seq %llu: kernel: INFO: task %s:%d ", k->source,
	          (unsigned long long)h->blocker_seq, tc, b->task.pid);
	if (!b->owner_found) {
		sb_printf(&f->evidence, "is blocked on a%s %s, but the %s is not found\n",
		          b->lock == KMSG_LOCK_RWSEM ? "n" : "", kmsg_lock_name(b->lock),
		          b->lock == KMSG_LOCK_SEM ? "last holder" : "owner");
		return;
	}
	esc_comm(b->owner.comm, oc, sizeof(oc));
	if (b->lock == KMSG_LOCK_MUTEX)
		sb_printf(&f->evidence, "is blocked on a mutex likely owned by task %s:%d\n", oc,
		          b->owner.pid);
	else if (b->lock == KMSG_LOCK_SEM)
		sb_printf(&f->evidence, "blocked on a semaphore likely last held by task %s:%d\n", oc,
		          b->owner.pid);
	else
		sb_printf(&f->evidence, "<%s> blocked on an rw-semaphore likely owned by task %s:%d "
		          "<%s>\n", b->task_as, oc, b->owner.pid, b->owner_as);
	char name[CGW_COMM_MAX * 4 + 32], where[256], st[64] = "";
	where_is(r, fi, b->owner.pid, b->owner.comm, name, sizeof(name), where, sizeof(where));
	if (h->owner_state && scanned(r->scan, b->owner.pid, b->owner.comm) < 0)
		snprintf(st, sizeof(st), " (the kernel showed it in state %c)", h->owner_state);
	sb_printf(&f->evidence, "the likely %s of the %s, %s, is %s%s\n",
	          b->lock == KMSG_LOCK_SEM ? "last holder" : "owner", kmsg_lock_name(b->lock), name,
	          where, st);
}

static bool is_sched_frame(const char *name)
{
	static const char *const skip[] = { "__schedule", "schedule", "schedule_timeout",
	                                    "schedule_preempt_disabled", "io_schedule",
	                                    "io_schedule_timeout" };
	for (size_t i = 0; i < sizeof(skip) / sizeof(skip[0]); i++)
		if (strcmp(name, skip[i]) == 0)
			return true;
	return false;
}

static void link_task(struct cgw_report *r, const struct cgw_kmsg *k, size_t fi,
                      const struct cgw_task *t)
{
	struct cgw_finding *f = &r->f[fi];
	const struct kmsg_hung *h = kmsg_hung_for(k, t);
	if (!h)
		return;
	char line[KMSG_TEXT * 4], kc[KMSG_COMM * 4];
	esc_comm(h->task.comm, kc, sizeof(kc));
	if (h->blocked_s >= 0) {
		sb_printf(&f->evidence, "%s seq %llu: kernel: %s (at %.1f s since boot)\n", k->source,
		          (unsigned long long)h->seq, esc_line(h->text, line, sizeof(line)), h->ts_s);
		size_t times = 0;
		const struct kmsg_hung *first = h;
		for (size_t i = 0; i < k->nhung; i++) {
			const struct kmsg_hung *o = &k->hung[i];
			if (o->blocked_s >= 0 && o->task.pid == h->task.pid &&
			    strcmp(o->task.comm, h->task.comm) == 0 &&
			    kmsg_same_episode(k, t, o->ts_s, o->blocked_s)) {
				times++;
				if (o->seq < first->seq)
					first = o;
			}
		}
		if (times > 1)
			sb_printf(&f->evidence, "%s: the kernel reported %s:%d hung %zu times in this "
			          "wait, first at seq %llu (%.1f s since boot, blocked for more than "
			          "%ld seconds)\n", k->source, kc, h->task.pid, times,
			          (unsigned long long)first->seq, first->ts_s, first->blocked_s);
	}
	if (h->workqueue[0]) {
		char wq[KMSG_COMM * 4], fn[512];
		sb_printf(&f->evidence, "%s seq %llu: kernel: Workqueue: %s %s: the work %s:%d was "
		          "running\n", k->source, (unsigned long long)h->wq_seq,
		          esc_comm(h->workqueue, wq, sizeof(wq)), esc_comm(h->work_fn, fn, sizeof(fn)),
		          kc, h->task.pid);
	}
	if (!t->nframes && h->nframes) {       /* /proc could not give the stack: the kernel did */
		sb_printf(&f->evidence, "%s seq %llu: kernel stack of %s:%d in the report:",
		          k->source, (unsigned long long)h->seq, kc, h->task.pid);
		int shown = 0;
		for (size_t i = 0; i < h->nframes && shown < 8; i++)
			if (!is_sched_frame(h->frames[i].name))
				sb_printf(&f->evidence, "%s%s", shown++ ? " <- " : " ",
				          esc_comm(h->frames[i].name, line, sizeof(line)));
		sb_printf(&f->evidence, "\n");
	}
	if (h->have_blocker && !lock_kmsg_confirms(t))   /* else on lock_link's line */
		link_blocker(r, k, fi, h);
}

static bool cpus_intersect(const struct cgw_cpus *a, const struct cgw_cpus *b)
{
	for (size_t i = 0; i < CGW_MAX_CPUS / 64; i++)
		if (a->bits[i] & b->bits[i])
			return true;
	return false;
}

static bool finding_has_tid(const struct cgw_report *r, const struct cgw_finding *f, int tid)
{
	for (size_t j = 0; j < f->ntasks; j++)
		if (r->scan->t[f->tasks[j]].tid == tid)
			return true;
	return false;
}

/* The workqueue a kworker's comm names: "kworker/18:1-mm_percpu_wq" -> "mm_percpu_wq". */
static bool finding_has_wq(const struct cgw_report *r, const struct cgw_finding *f,
                           const char *wq)
{
	size_t n = strlen(wq);
	for (size_t j = 0; j < f->ntasks && n; j++) {
		const struct cgw_task *t = &r->scan->t[f->tasks[j]];
		if (!starts(t->comm, "kworker/"))
			continue;
		const char *p = t->comm + strcspn(t->comm, "+-");
		if (*p && strlen(p + 1) == n && memcmp(p + 1, wq, n) == 0)
			return true;
	}
	return false;
}

/* Is this pwq part of what a finding waits for? */
static bool pwq_related(const struct cgw_report *r, const struct cgw_finding *f,
                        const struct kmsg_wq_dump *d, const struct kmsg_pwq *pw)
{
	for (size_t i = 0; i < pw->nbars; i++)
		if (finding_has_tid(r, f, pw->bars[i]))
			return true;
	for (size_t i = 0; i < pw->nworkers; i++)
		if (finding_has_tid(r, f, pw->workers[i]))
			return true;
	if ((pw->in_flight[0] || pw->pending[0]) && finding_has_wq(r, f, pw->wq))
		return true;
	for (size_t i = 0; i < d->nstuck; i++)
		if (strcmp(d->stuck[i].info.cpus, pw->info.cpus) == 0 &&
		    d->stuck[i].info.nice == pw->info.nice) {
			struct cgw_cpus c;
			if (cpulist_parse(pw->info.cpus, &c) == 0 && cpus_intersect(&c, &f->cpus))
				return true;
		}
	return false;
}

static void link_wq(struct cgw_report *r, const struct cgw_kmsg *k, size_t fi,
                    const struct kmsg_wq_dump *d)
{
	struct cgw_finding *f = &r->f[fi];
	bool any = false;
	for (size_t i = 0; i < d->npwq && !any; i++)
		any = pwq_related(r, f, d, &d->pwq[i]);
	for (size_t i = 0; i < d->nstuck && !any; i++) {
		struct cgw_cpus c;
		any = cpulist_parse(d->stuck[i].info.cpus, &c) == 0 && cpus_intersect(&c, &f->cpus);
	}
	if (!any)
		return;
	char line[KMSG_TEXT * 4], a[KMSG_TEXT * 4], b[KMSG_TEXT * 4], wq[KMSG_COMM * 4];
	for (size_t i = 0; i < d->nstuck; i++)
		sb_printf(&f->evidence, "%s seq %llu: kernel: %s (at %.1f s since boot)\n", k->source,
		          (unsigned long long)d->stuck[i].seq,
		          esc_line(d->stuck[i].text, line, sizeof(line)), d->stuck[i].ts_s);
	for (size_t i = 0; i < d->npwq; i++) {
		const struct kmsg_pwq *pw = &d->pwq[i];
		if (!pwq_related(r, f, d, pw))
			continue;
		esc_comm(pw->wq, wq, sizeof(wq));
		sb_printf(&f->evidence, "%s seq %llu: kernel: workqueue %s, pool %d (cpus=%s)%s%s%s%s"
		          "%s%s\n", k->source, (unsigned long long)pw->seq, wq, pw->pool,
		          pw->info.cpus,
		          pw->in_flight[0] ? ": in-flight: " : "",
		          pw->in_flight[0] ? esc_comm(pw->in_flight, a, sizeof(a)) : "",
		          pw->pending[0] ? (pw->in_flight[0] ? "; pending: " : ": pending: ") : "",
		          pw->pending[0] ? esc_comm(pw->pending, b, sizeof(b)) : "",
		          pw->inactive[0] ? "; inactive: " : "",
		          pw->inactive[0] ? esc_comm(pw->inactive, line, sizeof(line)) : "");
		for (size_t j = 0; j < pw->nbars; j++) {
			char name[CGW_COMM_MAX * 4 + 32], where[256];
			bool sc = where_is(r, fi, pw->bars[j], NULL, name, sizeof(name), where,
			                   sizeof(where));
			sb_printf(&f->evidence, "BAR(%d) on workqueue %s, pool %d (cpus=%s): a flush "
			          "barrier, queued behind this work by %s, which waits for it: %s%s\n",
			          pw->bars[j], wq, pw->pool, pw->info.cpus, name,
			          sc ? "a scanned waiter, " : "", where);
		}
	}
	for (size_t i = 0; i < d->npools; i++) {
		const struct kmsg_pool *pl = &d->pools[i];
		bool stuck = false;
		for (size_t j = 0; j < d->nstuck && !stuck; j++)
			stuck = strcmp(d->stuck[j].info.cpus, pl->info.cpus) == 0 &&
			        d->stuck[j].info.nice == pl->info.nice;
		if (!stuck)
			continue;
		sb_printf(&f->evidence, "%s seq %llu: kernel: pool %d (cpus=%s nice=%d) has made no "
		          "progress for %lu s; workers: %d\n", k->source, (unsigned long long)pl->seq,
		          pl->id, pl->info.cpus, pl->info.nice, pl->hung_s, pl->workers);
	}
}

void kmsg_link(struct cgw_report *r, const struct cgw_kmsg *k)
{
	if (!r || !k)
		return;
	const struct cgw_scan *s = r->scan;
	bool suppressed = kmsg_suppressed(k);
	char line[KMSG_TEXT * 4];
	for (size_t fi = 0; fi < r->nf; fi++) {
		struct cgw_finding *f = &r->f[fi];
		bool blocked = false;
		double longest = 0;
		for (size_t j = 0; j < f->ntasks; j++) {
			const struct cgw_task *t = &s->t[f->tasks[j]];
			blocked |= t->state == 'D' && t->suspect == SUSPECT_BLOCKED;
			if (t->blocked_s > longest)
				longest = t->blocked_s;
			link_task(r, k, fi, t);
		}
		/* what the kernel said during the wait, on the finding's CPUs or of its tasks */
		double since = k->uptime_s > 0 ? k->uptime_s - longest - 10 - 0.02 * longest : -1;
		for (size_t i = 0; i < k->nwq; i++)
			if (k->wq[i].ts_s >= since)
				link_wq(r, k, fi, &k->wq[i]);
		for (size_t i = 0; i < k->nsoft; i++) {
			const struct kmsg_soft *sl = &k->soft[i];
			if (sl->ts_s < since || !(cpus_test(&f->cpus, (unsigned)sl->cpu) ||
			                          finding_has_tid(r, f, sl->task.pid)))
				continue;
			sb_printf(&f->evidence, "%s seq %llu: kernel: %s (at %.1f s since boot)\n",
			          k->source, (unsigned long long)sl->seq,
			          esc_line(sl->text, line, sizeof(line)), sl->ts_s);
			if (sl->rip[0])
				sb_printf(&f->evidence, "%s seq %llu: kernel: CPU %d was in %s when the "
				          "soft lockup watchdog fired\n", k->source,
				          (unsigned long long)sl->seq, sl->cpu,
				          esc_comm(sl->rip, line, sizeof(line)));
		}
		for (size_t i = 0; i < k->nrcu; i++) {
			const struct kmsg_rcu *c = &k->rcu[i];
			if (c->ts_s < since || !c->cpus || !cpus_intersect(c->cpus, &f->cpus))
				continue;
			char list[1024];
			sb_printf(&f->evidence, "%s seq %llu: kernel: %s (at %.1f s since boot): stalled "
			          "CPUs %s\n", k->source, (unsigned long long)c->seq,
			          esc_line(c->text, line, sizeof(line)), c->ts_s,
			          cpulist_format(c->cpus, list, sizeof(list)));
			if (c->starved_jiffies >= 0)
				sb_printf(&f->evidence, "%s seq %llu: kernel: the %s grace-period kthread was "
				          "starved for %ld jiffies\n", k->source, (unsigned long long)c->seq,
				          c->flavor, c->starved_jiffies);
		}
		if (!blocked || f->severity < SEV_WARNING)
			continue;
		if (suppressed && k->suppressed_seen)
			sb_printf(&f->evidence, "%s seq %llu (at %.1f s since boot): the kernel has "
			          "stopped reporting hung tasks (kernel.hung_task_warnings ran out): "
			          "cgwatch is the only report left\n", k->source,
			          (unsigned long long)k->suppressed_seq, k->suppressed_ts_s);
		else if (suppressed)
			sb_printf(&f->evidence, "%s/sys/kernel/hung_task_warnings is 0: the kernel does "
			          "not report hung tasks: cgwatch is the only report left\n", k->proc);
		if (k->detect_count > 0)
			sb_printf(&f->evidence, "%s/sys/kernel/hung_task_detect_count: the kernel has "
			          "detected a hung task %ld time%s since boot%s\n", k->proc,
			          k->detect_count, k->detect_count == 1 ? "" : "s",
			          suppressed ? " (it counts on after the reports stop)" : "");
	}
}
