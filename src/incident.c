/* incident.c: findings over time. An incident opens when a finding reaches the warning
 * threshold, escalates at the critical one, is updated at most once per update interval, and
 * resolves when its tasks leave the state — recording how long each was stuck. Findings of
 * the same signature and cause (diagnose-cause.c) are one incident, whichever tasks they hold (a
 * correlator's chain is one finding, so one incident).
 * Open incidents are saved so that a restart neither loses nor repeats them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cgwatch.h"

static const char *const state_names[] = { "none", "opened", "escalated", "updated",
                                           "resolved" };

const char *inc_state_name(enum inc_state s)
{
	return (unsigned)s <= INC_RESOLVED ? state_names[s] : "none";
}

enum inc_state inc_state_parse(const char *s)
{
	for (int i = INC_OPENED; i <= INC_RESOLVED; i++)
		if (strcmp(s, state_names[i]) == 0)
			return (enum inc_state)i;
	return INC_NONE;
}

void incident_clear(struct incident *i)
{
	free(i->tasks);
	free(i->timeline);
	free(i->overflow);
	if (i->rec)
		recwin_free(i->rec);
	free(i->rec);
	memset(i, 0, sizeof(*i));
}

void incidents_free(struct cgw_incidents *in)
{
	for (size_t k = 0; k < in->n; k++)
		incident_clear(&in->v[k]);
	free(in->v);
	in->v = NULL;
	in->n = 0;
}

void incidents_prune(struct cgw_incidents *in)
{
	size_t k = 0;
	for (size_t j = 0; j < in->n; j++) {
		if (in->v[j].resolved_at > 0) {
			/* its id stays taken: a reopening in the same second gets "-2" */
			snprintf(in->recent[in->nrecent++ % 8], sizeof(in->recent[0]), "%s",
			         in->v[j].id);
			incident_clear(&in->v[j]);
		}
		else {
			in->v[k++] = in->v[j];
		}
	}
	in->n = k;
}

size_t incidents_rec_keep(const struct cgw_incidents *in)
{
	/* a storm of incidents holds a few MiB of events, not one whole readout each */
	size_t held = 0;
	for (size_t k = 0; k < in->n; k++)
		if (in->v[k].rec)
			held += in->v[k].rec->ev.n;
	if (held + CGW_REC_KEEP <= INC_REC_HELD_MAX)
		return CGW_REC_KEEP;
	return held + INC_REC_KEEP_MIN >= INC_REC_HELD_MAX ? INC_REC_KEEP_MIN
	                                                   : INC_REC_HELD_MAX - held;
}

const struct inc_task *incident_lead(const struct incident *i)
{
	const struct inc_task *lead = NULL;
	for (size_t k = 0; k < i->ntasks; k++) {
		const struct inc_task *t = &i->tasks[k];
		/* an open incident is named by a task still stuck */
		if (i->resolved_at == 0 && t->resolved_at > 0)
			continue;
		/* a latency incident by the task that held the CPU, before any that waited for it
		 * (a waiter's wait is often the longer: it is the holder's run and more) */
		if (!lead || t->held > lead->held ||
		    (t->held == lead->held && t->blocked_s > lead->blocked_s))
			lead = t;
	}
	return lead ? lead : i->ntasks ? &i->tasks[0] : NULL;
}

bool incident_latency(const struct incident *i)
{
	return strncmp(i->cause, "cpu ", 4) == 0 || strncmp(i->cause, "pressure ", 9) == 0;
}

const char *inc_task_time(const struct incident *i, const struct inc_task *t, char *buf,
                          size_t cap)
{
	if (!incident_latency(i)) {
		char d[48];
		snprintf(buf, cap, "%s %s", t->resolved_at ? "was stuck" : "stuck for",
		         dur_text(inc_task_dur(t), d, sizeof(d)));
	} else {
		snprintf(buf, cap, "%s %.1f ms", t->resolved_at ? "held or waited for the CPU" :
		         "holds or waits for the CPU", t->blocked_s * 1000);
	}
	return buf;
}

struct cgw_dur inc_task_dur(const struct inc_task *t)
{
	return (struct cgw_dur){ t->blocked_s, t->bound };
}

double incident_worst(const struct incident *i)
{
	double w = 0;
	for (size_t k = 0; k < i->ntasks; k++)
		if (i->tasks[k].blocked_s > w)
			w = i->tasks[k].blocked_s;
	return w;
}

static size_t incident_active(const struct incident *i)
{
	size_t n = 0;
	for (size_t k = 0; k < i->ntasks; k++)
		n += i->tasks[k].resolved_at == 0;
	return n;
}

size_t incident_stuck(const struct incident *i)
{
	return i->resolved_at > 0 ? 0 : incident_active(i) + i->noverflow;
}

/* v, holding n elements of size, grown to hold more of them (at most max); NULL when memory
 * ran out, and v is then as it was. */
static void *reserve(void *v, size_t n, size_t more, size_t max, size_t size)
{
	return try_reallocarray(v, n + more < max ? n + more : max, size);
}

/* Room in i->timeline for the events one update can add; -ENOMEM with the incident as it was. */
static int timeline_reserve(struct incident *i, size_t more)
{
	struct inc_event *v = reserve(i->timeline, i->ntimeline, more, INC_MAX_TIMELINE, sizeof(*v));
	if (!v)
		return -ENOMEM;
	i->timeline = v;
	return 0;
}

/* Add an event: timeline_reserve() made room for it. */
static void incident_event(struct incident *i, enum inc_state st, double now)
{
	i->last_event_at = now;
	if (i->ntimeline == INC_MAX_TIMELINE) {     /* keep the first and the latest */
		memmove(&i->timeline[1], &i->timeline[2],
		        (INC_MAX_TIMELINE - 2) * sizeof(*i->timeline));
		i->ntimeline--;
	}
	i->timeline[i->ntimeline++] = (struct inc_event){ now, st, i->severity,
	                                                  incident_active(i), incident_worst(i) };
}

/* Room in i->tasks for more tasks (at most INC_MAX_TASKS); -ENOMEM with the incident as it was. */
static int tasks_reserve(struct incident *i, size_t more)
{
	struct inc_task *v = reserve(i->tasks, i->ntasks, more, INC_MAX_TASKS, sizeof(*v));
	if (!v)
		return -ENOMEM;
	i->tasks = v;
	return 0;
}

int inc_key_cmp(const void *a, const void *b)
{
	const struct inc_key *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->start_ticks < y->start_ticks ? -1 : x->start_ticks > y->start_ticks;
}

/* Merge the finding's tasks into the incident; those no longer in it have recovered.
 * tasks_reserve() made room for them; seen has INC_MAX_TASKS entries. */
static void incident_merge(struct incident *i, const struct cgw_report *r,
                           const struct cgw_finding *f, double now, bool *seen)
{
	memset(seen, 0, INC_MAX_TASKS * sizeof(*seen));
	struct inc_key *over = NULL;
	size_t nover = 0, over_cap = 0;
	bool over_lost = false;               /* no memory for the list: the old one stays */
	for (size_t j = 0; j < f->ntasks; j++) {
		const struct cgw_task *t = &r->scan->t[f->tasks[j]];
		size_t k;
		for (k = 0; k < i->ntasks; k++)
			if (i->tasks[k].tid == t->tid && i->tasks[k].start_ticks == t->start_ticks)
				break;
		if (k == i->ntasks && i->ntasks == INC_MAX_TASKS) {
			/* not remembered in detail; counted once while it stays stuck (the list is
			 * sorted; tasks counted before a restart but not saved are not counted again) */
			struct inc_key key = { t->tid, t->start_ticks };
			bool known = i->noverflow &&
			             bsearch(&key, i->overflow, i->noverflow, sizeof(key), inc_key_cmp);
			if (!known && i->overflow_unlisted > 0)
				i->overflow_unlisted--;
			else
				i->ntasks_total += !known;
			if (nover == over_cap && !over_lost) {
				size_t cap = over_cap ? 2 * over_cap : 64;
				struct inc_key *n = try_reallocarray(over, cap, sizeof(*over));
				if (n) {
					over = n;
					over_cap = cap;
				} else {
					over_lost = true;
				}
			}
			if (!over_lost)
				over[nover++] = key;
			continue;
		}
		if (k == i->ntasks) {
			i->ntasks_total++;
			struct inc_task *it = &i->tasks[i->ntasks++];
			memset(it, 0, sizeof(*it));
			it->tid = t->tid;
			it->tgid = t->tgid;
			it->start_ticks = t->start_ticks;
			memcpy(it->comm, t->comm, sizeof(it->comm));
			it->comm_len = t->comm_len;
			snprintf(it->unit, sizeof(it->unit), "%s", t->unit);
		}
		struct inc_task *it = &i->tasks[k];
		seen[k] = true;
		if (t->nuframes)              /* the latest unwound; kept when a scan did not unwind */
			ustack_top(t, it->ustack_top, sizeof(it->ustack_top));
		if (it->resolved_at > 0)      /* stuck again after a recovery: a new wait */
			it->blocked_s = 0;
		it->resolved_at = 0;
		it->held = t->suspect == SUSPECT_LATENCY && t->lat_role == LAT_HELD;
		if (t->blocked_s > it->blocked_s || it->blocked_s == 0) {
			it->blocked_s = t->blocked_s;
			it->bound = t->bound;
		}
	}
	for (size_t k = 0; k < i->ntasks; k++)
		if (!seen[k] && i->tasks[k].resolved_at == 0)
			i->tasks[k].resolved_at = now;
	if (over_lost) {                      /* counted, not listed: tasks the old list knew */
		free(over);                       /* are not counted twice */
		return;
	}
	free(i->overflow);
	if (nover)
		qsort(over, nover, sizeof(*over), inc_key_cmp);
	i->overflow = over;
	i->noverflow = nover;
	i->overflow_unlisted = 0;             /* the list is whole again */
}

/* Add a change: *ch has room for every change one update can make. */
static void change_push(struct inc_change **ch, size_t *n, size_t inc, enum inc_state st,
                        ssize_t finding)
{
	(*ch)[(*n)++] = (struct inc_change){ inc, st, finding };
}

static void incident_new_id(const struct cgw_incidents *in, struct incident *i, double now)
{
	char ts[32];
	time_t t = (time_t)now;
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(ts, sizeof(ts), "%Y%m%dT%H%M%SZ", &tm);
	for (int n = 1;; n++) {
		if (n == 1)
			snprintf(i->id, sizeof(i->id), "%s-%s", ts, i->sig);
		else
			snprintf(i->id, sizeof(i->id), "%s-%s-%d", ts, i->sig, n);
		bool taken = false;
		for (size_t k = 0; k < in->n && !taken; k++)
			taken = &in->v[k] != i && strcmp(in->v[k].id, i->id) == 0;
		for (size_t k = 0; k < 8 && !taken; k++)
			taken = strcmp(in->recent[k], i->id) == 0;
		if (!taken)
			return;
	}
}

/* Whether a finding makes or feeds an incident (frozen, vfork-wait do not). */
static bool finding_counts(const struct cgw_finding *f)
{
	return f->severity >= SEV_WARNING;
}

/* Is i the incident of finding f: the same signature and cause? */
static bool incident_is(const struct incident *i, const struct cgw_finding *f)
{
	return strcmp(i->sig, f->sig->id) == 0 && strcmp(i->cause, f->cause) == 0;
}

/* Is i, open, of f's signature, and does it hold one of f's tasks, still unresolved? */
static bool incident_holds(const struct incident *i, const struct cgw_report *r,
                           const struct cgw_finding *f)
{
	if (i->resolved_at > 0 || strcmp(i->sig, f->sig->id) != 0)
		return false;
	for (size_t j = 0; j < f->ntasks; j++) {
		const struct cgw_task *t = &r->scan->t[f->tasks[j]];
		for (size_t k = 0; k < i->ntasks; k++)
			if (i->tasks[k].resolved_at == 0 && i->tasks[k].tid == t->tid &&
			    i->tasks[k].start_ticks == t->start_ticks)
				return true;
	}
	return false;
}

/* Everything an update can need, taken before it changes anything: the incident each finding
 * goes to (fx, an index past in->n for a new one), room in in->v and in the arrays of every
 * incident, the new incidents' arrays (nv), the changes, and merge's scratch. */
struct inc_prep {
	size_t *fx, nnew;
	struct incident *nv;
	bool *matched, *seen;
};

static void prep_free(struct inc_prep *p, bool keep_new)
{
	for (size_t j = 0; p->nv && j < p->nnew && !keep_new; j++)
		incident_clear(&p->nv[j]);
	free(p->nv);
	free(p->fx);
	free(p->matched);
	free(p->seen);
}

static int prep(struct cgw_incidents *in, const struct cgw_report *r, struct inc_prep *p,
                struct inc_change **ch)
{
	size_t nf = r->nf;
	memset(p, 0, sizeof(*p));
	p->fx = try_calloc(nf + 1, sizeof(*p->fx));
	p->nv = try_calloc(nf + 1, sizeof(*p->nv));
	p->matched = try_calloc(in->n + nf + 1, sizeof(bool));
	p->seen = try_calloc(INC_MAX_TASKS, sizeof(bool));
	*ch = try_calloc(in->n + 2 * nf + 1, sizeof(**ch));   /* one per finding, one per resolve */
	if (!p->fx || !p->nv || !p->matched || !p->seen || !*ch)
		goto fail;
	/* first the findings whose signature and cause name an open incident; then the others
	 * go to an open incident of their signature that none of those took and that holds one
	 * of their tasks: a cause not read this time (a memory read timed out), or read
	 * otherwise, is no new hang of a task still stuck */
	for (size_t x = 0; x < in->n; x++)
		p->matched[x] = false;
	for (size_t k = 0; k < nf; k++) {
		p->fx[k] = SIZE_MAX;
		if (!finding_counts(&r->f[k]))
			continue;
		for (size_t x = 0; x < in->n; x++)
			if (incident_is(&in->v[x], &r->f[k])) {
				p->fx[k] = x;
				p->matched[x] = true;
				break;
			}
	}
	for (size_t k = 0; k < nf; k++) {
		if (p->fx[k] != SIZE_MAX || !finding_counts(&r->f[k]))
			continue;
		for (size_t x = 0; x < in->n; x++)
			if (!p->matched[x] && incident_holds(&in->v[x], r, &r->f[k])) {
				p->fx[k] = x;
				p->matched[x] = true;
				break;
			}
	}
	for (size_t k = 0; k < nf; k++) {
		const struct cgw_finding *f = &r->f[k];
		if (!finding_counts(f))
			continue;
		size_t x = p->fx[k];
		if (x == SIZE_MAX)
			for (x = in->n; x < in->n + p->nnew; x++)
				if (incident_is(&p->nv[x - in->n], f))
					break;
		if (x == in->n + p->nnew) {
			struct incident *i = &p->nv[p->nnew++];
			snprintf(i->sig, sizeof(i->sig), "%s", f->sig->id);
			memcpy(i->cause, f->cause, sizeof(i->cause));
		}
		p->fx[k] = x;
		struct incident *i = x < in->n ? &in->v[x] : &p->nv[x - in->n];
		if (tasks_reserve(i, f->ntasks) < 0)
			goto fail;
	}
	for (size_t x = 0; x < in->n + p->nnew; x++) {   /* at most one event per finding */
		struct incident *i = x < in->n ? &in->v[x] : &p->nv[x - in->n];
		if (timeline_reserve(i, nf + 1) < 0)
			goto fail;
	}
	if (p->nnew) {
		struct incident *v = try_reallocarray(in->v, in->n + p->nnew, sizeof(*v));
		if (!v)
			goto fail;
		in->v = v;
	}
	return 0;
fail:                                 /* the incidents hold only more room than before */
	prep_free(p, false);
	free(*ch);
	*ch = NULL;
	return -ENOMEM;
}

ssize_t incidents_update(struct cgw_incidents *in, const struct cgw_report *r, double now,
                         double update_s, struct inc_change **ch)
{
	size_t nch = 0;
	struct inc_prep p;
	if (prep(in, r, &p, ch) < 0)
		return -ENOMEM;
	size_t nnew = 0;
	for (size_t k = 0; k < r->nf; k++) {
		const struct cgw_finding *f = &r->f[k];
		if (!finding_counts(f))
			continue;
		size_t x = p.fx[k];
		if (x == in->n) {                 /* the next new one: prep's order is this order */
			struct incident *i = &in->v[in->n++];
			*i = p.nv[nnew++];
			incident_new_id(in, i, now);
			i->opened_at = now;
			i->severity = f->severity;
			i->escalated = f->severity >= SEV_CRITICAL;
			if (i->escalated)
				i->escalated_at = now;
			incident_merge(i, r, f, now, p.seen);
			incident_event(i, INC_OPENED, now);
			change_push(ch, &nch, x, INC_OPENED, (ssize_t)k);
			p.matched[x] = true;
			continue;
		}
		struct incident *i = &in->v[x];
		p.matched[x] = true;
		incident_merge(i, r, f, now, p.seen);
		if (f->severity > i->severity)
			i->severity = f->severity;
		if (!i->escalated && i->severity >= SEV_CRITICAL) {
			i->escalated = true;
			i->escalated_at = now;
			incident_event(i, INC_ESCALATED, now);
			change_push(ch, &nch, x, INC_ESCALATED, (ssize_t)k);
		} else if (now - i->last_event_at >= update_s) {
			incident_event(i, INC_UPDATED, now);
			change_push(ch, &nch, x, INC_UPDATED, (ssize_t)k);
		}
	}
	for (size_t x = 0; x < in->n; x++) {
		struct incident *i = &in->v[x];
		if (p.matched[x] || i->resolved_at > 0)
			continue;
		for (size_t k = 0; k < i->ntasks; k++)
			if (i->tasks[k].resolved_at == 0)
				i->tasks[k].resolved_at = now;
		i->resolved_at = now;
		incident_event(i, INC_RESOLVED, now);
		change_push(ch, &nch, x, INC_RESOLVED, -1);
	}
	prep_free(&p, true);
	return (ssize_t)nch;
}
