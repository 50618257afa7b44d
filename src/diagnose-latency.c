/* diagnose-latency.c: latency findings. A CPU whose p99 run-queue wait over the interval
 * (r->runq, measured by its source before diagnosis) passes [latency] runq_p99_ms, or a
 * resource whose pressure crossed its threshold (r->pressure), is a finding like a group of
 * stuck tasks: signature runq-latency (cause "cpu N") or pressure-stall (cause "pressure
 * RES", or "cgroup PATH" for a findings' cgroup past the threshold on its own), folded into
 * incidents by the same key, and resolved when it falls back below (a CPU's once it has been
 * below for [latency] runq_resolve_scans full intervals in a row: the daemon keeps its
 * finding until then, so that a CPU still held does not resolve and reopen). A CPU's finding
 * that points to no known mechanism is info (no incident) until its p99 has passed for
 * [latency] page_after; once it pages it stays a warning until it resolves. Its
 * tasks are the ones that waited longest and the one that held the CPU; its evidence says what
 * held the CPU, which cgroup activity rates rose at the same time (against the last interval
 * without a latency finding: the host before the latency began), and the signature family
 * that points to, whose remedies it prints.
 * Pure but for what the lat_reader it is given reads (source-latency.c; the unit tests give
 * their own). */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"
#include "rates.h"

void latency_state_free(struct cgw_latency *st)
{
	free(st->cpu);
	st->cpu = NULL;
	st->n = 0;
}

/* The state of cpu, grown to hold it; NULL without a state or without room. */
static struct lat_cpu *lat_state(struct cgw_latency *st, int cpu)
{
	if (!st || cpu < 0)
		return NULL;
	if ((size_t)cpu >= st->n) {
		size_t n = (size_t)cpu + 1;
		struct lat_cpu *v = try_reallocarray(st->cpu, n, sizeof(*v));
		if (!v)
			return NULL;
		memset(v + st->n, 0, (n - st->n) * sizeof(*v));
		st->cpu = v;
		st->n = n;
	}
	return &st->cpu[cpu];
}

/* Why a CPU's open finding pages (a warning): */
enum { LAT_QUIET = 0,                 /* it does not: info, a report line */
       LAT_PAGED_MECH,                /* it points to a mechanism, or did since it opened */
       LAT_PAGED_LONG,                /* its p99 passed [latency] page_after in a row */
       LAT_PAGED_LOOK };              /* one look (check, no state): a person asked */

/* What this scan makes of a CPU: a finding or not, and where it stands. */
struct lat_verdict {
	bool finding, passed;
	unsigned streak;                  /* scans in a row its p99 passed */
	double passed_s;                  /* the seconds of their intervals */
	unsigned below;                   /* open, not passing: full intervals in a row below */
	bool short_iv;                    /* this interval is too short to count as below */
	bool unjudged;                    /* too few waits for a p99, one of them past it */
};

/* c's verdict for this scan (q's interval), stepping its state in st. A finding opens after
 * runq_scans passes in a row and stays open until runq_resolve_scans full intervals in a row
 * were below. Without a state (check) or room for it, one look decides. */
static struct lat_verdict lat_step(struct cgw_latency *st, const struct cgw_runq_cpu *c,
                                   const struct cgw_runq *q, const struct cgw_conf *conf)
{
	struct lat_verdict v = { .passed = latency_cpu_passes(c, conf) };
	unsigned need = st && conf->latency_runq_scans > 1 ? (unsigned)conf->latency_runq_scans : 1;
	struct lat_cpu *s = lat_state(st, c->cpu);
	if (!s) {
		v.streak = v.passed;
		v.passed_s = v.passed ? q->interval_s : 0;
		v.finding = v.streak >= need;
		return v;
	}
	if (v.passed) {
		s->streak++;
		s->passed_s += q->interval_s;
		s->below = 0;
	} else {
		s->streak = 0;
		s->passed_s = 0;
		if (s->open && conf->latency_runq_p99_ms > 0) {
			v.short_iv = q->interval_s < LAT_FULL_SHARE * conf->scan_interval_s;
			v.unjudged = (double)c->count < conf->latency_runq_min_waits &&
			             c->max_ms >= conf->latency_runq_p99_ms;
			if (!v.short_iv && !v.unjudged)
				s->below++;
			if ((double)s->below >= conf->latency_runq_resolve_scans)
				s->open = false;
		} else {
			s->open = false;              /* runq_p99_ms = 0 (a reload): no such finding */
		}
		if (!s->open) {
			s->below = 0;
			s->paged = LAT_QUIET;     /* resolved: the next one pages anew */
		}
	}
	if (s->streak >= need)
		s->open = true;
	v.finding = s->open;
	v.streak = s->streak;
	v.passed_s = s->passed_s;
	v.below = s->below;
	return v;
}

/* Does c's open finding page, and why (LAT_*)? It pages when it points to a mechanism (fam
 * not runq-latency) or its p99 has passed page_after seconds of intervals in a row, and from
 * then on until it resolves (kept in st). */
static int lat_pages(struct cgw_latency *st, const struct cgw_runq_cpu *c, const char *fam,
                     const struct lat_verdict *v, const struct cgw_conf *conf)
{
	struct lat_cpu *s = lat_state(st, c->cpu);
	if (!s)
		return LAT_PAGED_LOOK;
	if (!s->paged && strcmp(fam, "runq-latency") != 0)
		s->paged = LAT_PAGED_MECH;
	else if (!s->paged && v->passed_s >= conf->latency_page_after_s)
		s->paged = LAT_PAGED_LONG;
	return s->paged;
}

static bool is_rt(unsigned policy)
{
	return policy == 1 || policy == 2;   /* SCHED_FIFO, SCHED_RR */
}

/* Did an RT task, which no fair task preempts, hold c for half its p99 wait (the histogram's
 * buckets are powers of two) or half threshold_ms: a wait behind it alone is that long, and a
 * fair task that waits behind it twice, longer. */
static bool rt_held(const struct cgw_runq_cpu *c, double threshold_ms)
{
	return c && c->held.tid > 0 && is_rt(c->held.policy) &&
	       (2 * c->held.ms >= c->p99_ms || (threshold_ms > 0 && 2 * c->held.ms >= threshold_ms));
}

/* One wait LAT_LONE_FACTOR times threshold_ms or more, behind an RT task that ran half as
 * long without a switch: the CPU held, measured, whatever the number of waits. */
static bool rt_lone_wait(const struct cgw_runq_cpu *c, double threshold_ms)
{
	return threshold_ms > 0 && c->max_ms >= LAT_LONE_FACTOR * threshold_ms &&
	       c->held.tid > 0 && is_rt(c->held.policy) && 2 * c->held.ms >= c->max_ms;
}

/* Does c's p99 pass, over runq_min_waits waits or more: the waits of tasks that asked for less
 * CPU left out (what they asked for, among fair tasks), unless an RT task held the CPU (it
 * holds them off as it does the others: then every wait counts). */
static bool p99_passes(const struct cgw_runq_cpu *c, const struct cgw_conf *conf)
{
	double thr = conf->latency_runq_p99_ms;
	bool all = c->low_count == 0 || rt_held(c, thr);
	unsigned long long n = all ? c->count : c->count - c->low_count;
	double p99 = all ? c->p99_ms : c->full_p99_ms;
	return thr > 0 && n > 0 && (double)n >= conf->latency_runq_min_waits && p99 >= thr;
}

bool latency_cpu_passes(const struct cgw_runq_cpu *c, const struct cgw_conf *conf)
{
	return conf->latency_runq_p99_ms > 0 && c->count > 0 &&
	       (p99_passes(c, conf) || rt_lone_wait(c, conf->latency_runq_p99_ms));
}

/* A rate now against the same count before the latency: per second when both windows allow
 * it, else the counts. */
static double rate_of(const struct rates_count *c, const struct cgw_rates *rt)
{
	return rates_has_rate(rt) ? c->per_s : (double)c->count;
}

/* Did event e rise: at least floor now, and (with an earlier sample) at least twice it. */
static bool rose(const struct cgw_rates *rt, const struct cgw_rates *prev, enum rates_ev e,
                 double floor)
{
	if (!rt || rt->ev[e].missing)
		return false;
	double now = rate_of(&rt->ev[e], rt);
	if (now < floor)
		return false;
	if (!prev || prev->ev[e].missing)
		return true;
	return now >= 2 * rate_of(&prev->ev[e], prev);
}

static bool forks_rose(const struct cgw_rates *rt, const struct cgw_rates *prev)
{
	if (!rt || rt->forks.missing || !rates_has_rate(rt) || rt->forks.per_s < LAT_FORK_FLOOR)
		return false;
	if (!prev || prev->forks.missing || !rates_has_rate(prev))
		return true;
	return rt->forks.per_s >= 2 * prev->forks.per_s;
}

const char *latency_family(const struct cgw_runq_cpu *c, const struct cgw_rates *rt,
                           const struct cgw_rates *prev, double threshold_ms)
{
	if (rt_held(c, threshold_ms) || (c && rt_lone_wait(c, threshold_ms)))
		return "starved";
	if (rose(rt, prev, RATE_RSTAT_CONTENDED, LAT_RSTAT_FLOOR))
		return "rstat-flush";
	if (rose(rt, prev, RATE_CPUHP_ENTER, LAT_CPUHP_FLOOR))
		return "sched-domain-rebuild";
	if (forks_rose(rt, prev))
		return "cgroup-fork-lock";
	return "runq-latency";
}

/* The sentence saying why the family was chosen. */
static void family_evidence(struct strbuf *ev, const char *fam, const struct cgw_runq_cpu *c,
                            const struct cgw_sig *s)
{
	if (strcmp(fam, "starved") == 0)
		sb_printf(ev, "points to RT starvation (signature starved): CPU %d was held by "
		          "PID %d (%s) %s/%u for %.1f ms without a switch, and no fair task preempts it\n", c->cpu,
		          c->held.tgid > 0 ? c->held.tgid : c->held.tid, cesc(c->held.comm),
		          policy_name(c->held.policy), c->held.rt_priority, c->held.ms);
	else if (strcmp(fam, "rstat-flush") == 0)
		sb_printf(ev, "points to rstat-flush: the cgroup rstat lock was contended more "
		          "than before while the CPU's tasks waited\n");
	else if (strcmp(fam, "sched-domain-rebuild") == 0)
		sb_printf(ev, "points to sched-domain-rebuild: CPU hotplug steps ran while the "
		          "CPU's tasks waited\n");
	else if (strcmp(fam, "cgroup-fork-lock") == 0)
		sb_printf(ev, "points to cgroup-fork-lock: forks rose to a storm while the CPU's "
		          "tasks waited\n");
	else
		sb_printf(ev, "points to no known mechanism: no real-time task held the CPU and "
		          "no counted rate rose (signature runq-latency)\n");
	if (!s)
		sb_printf(ev, "signature %s is not in the library: its remedies are not shown\n", fam);
}

/* One line per cgroup activity rate, now against before the latency. */
static void rates_evidence(struct strbuf *ev, const struct cgw_rates *rt,
                           const struct cgw_rates *prev)
{
	static const enum rates_ev shown[] = { RATE_RSTAT_CONTENDED, RATE_CPUHP_ENTER,
	                                       RATE_MKDIR, RATE_RMDIR };
	if (!rt) {
		sb_printf(ev, "cgroup activity rates: not counted at this scan\n");
		return;
	}
	bool per_s = rates_has_rate(rt);
	for (size_t k = 0; k < sizeof(shown) / sizeof(shown[0]); k++) {
		enum rates_ev e = shown[k];
		const struct rates_count *c = &rt->ev[e];
		if (c->missing) {
			sb_printf(ev, "tracepoint %s: not counted (%s)\n", rates_ev_name(e), c->why);
			continue;
		}
		sb_printf(ev, "tracepoint %s: ", rates_ev_name(e));
		if (per_s)
			sb_printf(ev, "%.1f/s over %.1f s", c->per_s, rt->window_s);
		else
			sb_printf(ev, "%llu", (unsigned long long)c->count);
		if (!prev || prev->ev[e].missing)
			sb_printf(ev, " (no interval before the latency to compare with)\n");
		else {
			double a = rate_of(c, rt), b = rate_of(&prev->ev[e], prev);
			sb_printf(ev, ", %s %.1f%s before the latency\n", a >= 2 * b && a > b ?
			          "up from" : a * 2 <= b && a < b ? "down from" : "as", b,
			          rates_has_rate(prev) ? "/s" : "");
		}
	}
	if (!rt->forks.missing && per_s) {
		sb_printf(ev, "forks (%s): %.1f/s over %.1f s", rt->forks_from, rt->forks.per_s,
		          rt->window_s);
		if (prev && !prev->forks.missing && rates_has_rate(prev))
			sb_printf(ev, ", %s %.1f/s before the latency\n",
			          rt->forks.per_s >= 2 * prev->forks.per_s &&
			          rt->forks.per_s > prev->forks.per_s ? "up from" : "against",
			          prev->forks.per_s);
		else
			sb_printf(ev, " (no interval before the latency to compare with)\n");
	}
}

/* The scan task with tid, or -1. */
static ssize_t task_index(const struct cgw_scan *s, int tid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->t[i].tid == tid && !s->t[i].gone)
			return (ssize_t)i;
	return -1;
}

/* The index of a runq task in the scan: the scan's own entry when it has one (a runnable task
 * it read), else a new entry read through rd. Its part: role on cpu for ms in finding f (its
 * signature and severity, unless another finding has it). -1 out of memory. */
static ssize_t lat_task(struct cgw_report *r, const struct cgw_runq_task *q, int role, int cpu,
                        const struct cgw_finding *f, const struct lat_reader *rd)
{
	struct cgw_scan *s = r->scan;
	ssize_t i = task_index(s, q->tid);
	struct cgw_task *t;
	if (i < 0) {
		if (s->n >= s->cap) {             /* cap may lag n where t grew by n alone */
			size_t cap = s->n + 16;
			struct cgw_task *v = try_reallocarray(s->t, cap, sizeof(*v));
			if (!v)
				return -1;
			s->t = v;
			s->cap = cap;
		}
		i = (ssize_t)s->n++;
		t = &s->t[i];
		memset(t, 0, sizeof(*t));
		t->tid = q->tid;
		t->tgid = q->tgid > 0 ? q->tgid : q->tid;
		t->comm_len = strnlen(q->comm, sizeof(q->comm) - 1);
		memcpy(t->comm, q->comm, t->comm_len);
		t->policy = q->policy;
		t->rt_priority = q->rt_priority;
		t->cpu = cpu;
		t->state = '?';                    /* not known unless read */
		t->age_s = -1;
		if (rd && rd->task && rd->task(t, rd->ctx) < 0)
			snprintf(t->stack_error, sizeof(t->stack_error), "not read: it has exited");
	} else {
		t = &s->t[i];
	}
	if (t->suspect == SUSPECT_NONE) {      /* not a finding's of its own: this one's */
		t->suspect = SUSPECT_LATENCY;
		t->sig = f->sig;
		t->severity = f->severity;
		t->blocked_s = q->ms / 1000;
		t->bound = BOUND_EXACT;
	}
	if (t->lat_role == LAT_NONE) {
		t->lat_role = role;
		t->lat_cpu = cpu;
		t->lat_ms = q->ms;
	}
	return i;
}

/* A new finding of sig and cause, its severity sig's but at least warning, at most cap;
 * placed before the first less severe one. NULL: no memory. */
static struct cgw_finding *finding_new_cap(struct cgw_report *r, const struct cgw_sig *sig,
                                           const char *cause, enum cgw_sev cap)
{
	struct cgw_finding *v = try_reallocarray(r->f, r->nf + 1, sizeof(*r->f));
	if (!v)
		return NULL;
	r->f = v;
	enum cgw_sev sev = sig->severity == SEV_INFO ? SEV_INFO :
	                   sig->severity > SEV_WARNING ? sig->severity : SEV_WARNING;
	if (sev > cap)
		sev = cap;
	size_t at = 0;
	while (at < r->nf && r->f[at].severity >= sev)
		at++;
	memmove(&r->f[at + 1], &r->f[at], (r->nf - at) * sizeof(*r->f));
	r->nf++;
	struct cgw_finding *f = &r->f[at];
	memset(f, 0, sizeof(*f));
	f->sig = sig;
	f->severity = sev;
	snprintf(f->cause, sizeof(f->cause), "%s", cause);
	return f;
}

static struct cgw_finding *finding_new(struct cgw_report *r, const struct cgw_sig *sig,
                                       const char *cause)
{
	return finding_new_cap(r, sig, cause, SEV_CRITICAL);
}

static int finding_add_task(struct cgw_finding *f, ssize_t idx)
{
	if (idx < 0)
		return -1;
	for (size_t j = 0; j < f->ntasks; j++)
		if (f->tasks[j] == (size_t)idx)
			return 0;
	size_t *v = try_reallocarray(f->tasks, f->ntasks + 1, sizeof(*v));
	if (!v)
		return -1;
	f->tasks = v;
	f->tasks[f->ntasks++] = (size_t)idx;
	return 0;
}

/* "PID 7 (x)" of a runq task. */
static const char *rq_name(const struct cgw_runq_task *q, char *buf, size_t cap)
{
	char comm[CGW_COMM_MAX * 4];
	cescape(q->comm, strnlen(q->comm, sizeof(q->comm)), comm, sizeof(comm));
	if (q->tgid > 0 && q->tgid != q->tid)
		snprintf(buf, cap, "TID %d (%s) of PID %d", q->tid, comm, q->tgid);
	else
		snprintf(buf, cap, "PID %d (%s)", q->tid, comm);
	return buf;
}

/* "PID N (comm)" of a task the trace named, comm escaped; "" for none */
static const char *tl_who(int pid, const char *comm, char *buf, size_t cap)
{
	struct cgw_runq_task t = { .tid = pid, .tgid = pid };
	snprintf(t.comm, sizeof(t.comm), "%s", comm);
	return pid > 0 ? rq_name(&t, buf, cap) : "";
}

/* What timerlat measured on the CPU over the interval, or why it did not run. */
static void timerlat_evidence(struct strbuf *ev, const struct cgw_runq *q,
                              const struct cgw_runq_cpu *c)
{
	char who[CGW_COMM_MAX * 4 + 64];
	const struct cgw_timerlat *t = &c->tl;
	if (!t->measured) {
		if (q->timerlat[0] && strncmp(q->timerlat, "CPUs ", 5))
			sb_printf(ev, "timerlat: not run (%s)\n", q->timerlat);
		return;
	}
	sb_printf(ev, "timerlat: CPU %d over %.1f s, %llu activations: thread latency max %.3f ms",
	          c->cpu, q->interval_s, t->samples, t->thread_max_us / 1000);
	if (t->thr_pid > 0) {
		sb_printf(ev, ", %s held the CPU", tl_who(t->thr_pid, t->thr_comm, who, sizeof(who)));
		if (t->thr_noise_us > 0)
			sb_printf(ev, " for %.3f ms of it", t->thr_noise_us / 1000);
	}
	sb_printf(ev, "; timer IRQ latency max %.3f ms (interrupts off, or the IRQ held, that long)",
	          t->irq_max_us / 1000);
	if (t->irq_pid > 0)
		sb_printf(ev, ", in %s", tl_who(t->irq_pid, t->irq_comm, who, sizeof(who)));
	sb_add(ev, "\n", 1);
	if (t->stack[0])
		sb_printf(ev, "timerlat: kernel stack at the IRQ of the worst thread latency: %s\n",
		          t->stack);
}

/* The first frame of f that is one of names (a trailing '*' a prefix), or NULL. */
static const char *frame_in(const struct cgw_frame *f, size_t n, const char *const *names)
{
	for (size_t i = 0; i < n; i++)
		for (const char *const *p = names; *p; p++) {
			size_t l = strlen(*p);
			bool prefix = (*p)[l - 1] == '*';
			if (prefix ? strncmp(f[i].name, *p, l - 1) == 0 : strcmp(f[i].name, *p) == 0)
				return f[i].name;
		}
	return NULL;
}

/* The rstat readers: runnable tasks of the finding's CPU (the scan's R tasks there, and the
 * finding's own) whose kernel stack is in the rstat flush. A task running at the moment of the
 * read shows an empty stack, and one preempted shows where it was: the candidates are read
 * up to LAT_STACK_PASSES times, until a pass finds one. */
static void rstat_readers(struct cgw_report *r, struct cgw_finding *f, int cpu,
                          const struct lat_reader *rd)
{
	static const char *const flush[] = { "cgroup_rstat_flush*", "css_rstat_flush*",
	                                     "mem_cgroup_flush_stats*", "do_flush_stats",
	                                     "__cgroup_rstat_lock", "__css_rstat_lock", NULL };
	struct cgw_scan *s = r->scan;
	if (!rd || !rd->stack) {
		sb_printf(&f->evidence, "rstat readers on CPU %d: stacks not read here\n", cpu);
		return;
	}
	size_t cand[LAT_MAX_STACKS], nc = 0, found = 0;
	bool done[LAT_MAX_STACKS] = { false };
	for (size_t i = 0; i < s->n && nc < LAT_MAX_STACKS; i++) {
		const struct cgw_task *t = &s->t[i];
		bool mine = false;
		for (size_t j = 0; j < f->ntasks && !mine; j++)
			mine = f->tasks[j] == i;
		if (!t->gone && t->cpu == cpu && (t->state == 'R' || mine))
			cand[nc++] = i;
	}
	unsigned pass;
	for (pass = 0; pass < LAT_STACK_PASSES && !found; pass++) {
		if (pass && rd->pause)
			rd->pause(rd->ctx);
		for (size_t c = 0; c < nc; c++) {
			if (done[c])
				continue;
			struct cgw_task *t = &s->t[cand[c]];
			struct cgw_frame *fr = NULL;
			int n = rd->stack(t->tgid, t->tid, &fr, rd->ctx);
			if (n < 0)
				done[c] = true;           /* gone, or refused: not read again */
			const char *top = n > 0 ? frame_in(fr, (size_t)n, flush) : NULL;
			if (top) {
				char nm[CGW_COMM_MAX * 4 + 64];
				sb_printf(&f->evidence, "rstat reader: %s, %s on CPU %d, has %s on its "
				          "kernel stack\n", task_name(t, nm, sizeof(nm)),
				          t->state == 'R' ? "runnable" : "seen", cpu, top);
				done[c] = true;
				found++;
				if (t->lat_role == LAT_NONE && found <= LAT_MAX_READERS) {
					(void)finding_add_task(f, (ssize_t)cand[c]);
					if (t->suspect == SUSPECT_NONE) {
						t->suspect = SUSPECT_LATENCY;
						t->sig = f->sig;
						t->severity = f->severity;
						t->bound = BOUND_EXACT;
					}
					t->lat_role = LAT_WAITED;
					t->lat_cpu = cpu;
				}
			}
			if (n > 0)
				frames_free(fr, (size_t)n);
		}
	}
	if (!found)
		sb_printf(&f->evidence, "rstat readers on CPU %d: none of its %zu runnable task%s had "
		          "an rstat flush on its kernel stack, read %u times %d ms apart (a task running "
		          "at that moment shows none)\n", cpu, nc, nc == 1 ? "" : "s", pass, LAT_STACK_GAP_MS);
}

/* The finding of one CPU whose p99 passed. -1 out of memory. */
static int cpu_finding(struct cgw_report *r, const struct cgw_sigset *sigs,
                       const struct cgw_sig *sig, const struct cgw_runq_cpu *c,
                       const struct lat_verdict *v, const struct lat_reader *rd)
{
	const struct cgw_runq *q = r->runq;
	char cause[32], nm[CGW_COMM_MAX * 4 + 64];
	snprintf(cause, sizeof(cause), "cpu %d", c->cpu);
	const char *fam = latency_family(c, r->rates, r->rates_prev, r->conf->latency_runq_p99_ms);
	int pages = lat_pages(r->latency, c, fam, v, r->conf);
	struct cgw_finding *f = finding_new_cap(r, sig, cause, pages ? SEV_CRITICAL : SEV_INFO);
	if (!f)
		return -1;
	cpus_set(&f->cpus, (unsigned)c->cpu);
	struct strbuf *ev = &f->evidence;
	sb_printf(ev, "CPU %d%s: run-queue wait p50 %.2f ms, p99 %.2f ms, max %.2f ms over %.1f s "
	          "(%llu waits, from %s); threshold p99 %g ms", c->cpu,
	          c->isolated ? " (isolated)" : "", c->p50_ms, c->p99_ms, c->max_ms, q->interval_s,
	          c->count, q->source ? q->source : "?", r->conf->latency_runq_p99_ms);
	if (c->low_count)
		sb_printf(ev, "; %llu of them by tasks that asked for less CPU (nice > 0, SCHED_BATCH, "
		          "SCHED_IDLE), %s: the others' p99 %.2f ms, max %.2f ms", c->low_count,
		          rt_held(c, r->conf->latency_runq_p99_ms) ? "counted (a real-time task held "
		          "the CPU)" : "not counted", c->full_p99_ms, c->full_max_ms);
	if (v->passed && !p99_passes(c, r->conf))
		sb_printf(ev, "; too few waits for a p99, but the longest %.2f ms, %g times the "
		          "threshold or more, behind a real-time task", c->max_ms, LAT_LONE_FACTOR);
	if (v->passed && v->streak > 1)
		sb_printf(ev, ", passed %u scans in a row", v->streak);
	if (!v->passed) {                 /* held open: how far it is from resolving */
		double need = r->conf->latency_runq_resolve_scans;
		sb_printf(ev, "; below it %u full interval%s in a row of the %g that resolve it",
		          v->below, v->below == 1 ? "" : "s", need);
		if (v->short_iv)
			sb_printf(ev, " (this one %.2f s of %g s: too short to count)", q->interval_s,
			          r->conf->scan_interval_s);
		else if (v->unjudged)
			sb_printf(ev, " (this one: %llu waits, too few for a p99, the longest %.2f ms: "
			          "not counted)", c->count, c->max_ms);
	}
	sb_add(ev, "\n", 1);
	if (c->held.tid > 0) {
		sb_printf(ev, "held: CPU %d ran %s %s", c->cpu, rq_name(&c->held, nm, sizeof(nm)),
		          policy_name(c->held.policy));
		if (c->held.rt_priority)
			sb_printf(ev, "/%u", c->held.rt_priority);
		/* each switch measured: the longest run without one; else its run time in the
		 * interval, the most of the tasks read there */
		if (q->exact)
			sb_printf(ev, " for %.1f ms without a switch, the longest run there in the "
			          "%.1f s", c->held.ms, q->interval_s);
		else if (q->interval_s > 0)
			sb_printf(ev, " for %.1f ms of the %.1f s (%.0f %%), the most of the tasks read "
			          "there", c->held.ms, q->interval_s,
			          100 * c->held.ms / (q->interval_s * 1000));
		else
			sb_printf(ev, " for %.1f ms", c->held.ms);
		sb_add(ev, "\n", 1);
		if (finding_add_task(f, lat_task(r, &c->held, LAT_HELD, c->cpu, f, rd)) < 0)
			return -1;
	} else {
		sb_printf(ev, "held: the task that held CPU %d is not known\n", c->cpu);
	}
	for (size_t k = 0; k < c->nwaited && k < sizeof(c->waited) / sizeof(c->waited[0]); k++) {
		const struct cgw_runq_task *w = &c->waited[k];
		bool again = false;               /* a task's longest wait only */
		for (size_t j = 0; j < k && !again; j++)
			again = c->waited[j].tid == w->tid;
		if (w->tid <= 0 || again)
			continue;
		sb_printf(ev, "waited: %s %s", rq_name(w, nm, sizeof(nm)), policy_name(w->policy));
		if (w->rt_priority)
			sb_printf(ev, "/%u", w->rt_priority);
		if (w->nice)
			sb_printf(ev, " nice %d", w->nice);
		if (q->exact)
			sb_printf(ev, " waited %.2f ms for CPU %d\n", w->ms, c->cpu);
		else                              /* schedstat: a mean over its slices */
			sb_printf(ev, " waited %.2f ms a slice, on average, for CPU %d\n", w->ms, c->cpu);
		if (finding_add_task(f, lat_task(r, w, LAT_WAITED, c->cpu, f, rd)) < 0)
			return -1;
	}
	timerlat_evidence(ev, q, c);
	rates_evidence(ev, r->rates, r->rates_prev);
	const struct cgw_sig *fs = sig_find(sigs, fam);
	family_evidence(ev, fam, c, fs);
	double page_after = r->conf->latency_page_after_s;
	if (!pages)
		sb_printf(ev, "not paged: it points to no known mechanism; it pages once its p99 has "
		          "passed %g s of intervals in a row ([latency] page_after): %.1f s so far\n",
		          page_after, v->passed_s);
	else if (pages == LAT_PAGED_LONG && page_after > 0)
		sb_printf(ev, "paged: it points to no known mechanism, but its p99 passed %g s of "
		          "intervals in a row ([latency] page_after); it stays paged until it "
		          "resolves\n", page_after);
	else if (pages == LAT_PAGED_MECH && strcmp(fam, "runq-latency") == 0)
		sb_printf(ev, "paged: it pointed to a mechanism when it paged; it stays paged until "
		          "it resolves\n");
	f->family = fs && fs != sig ? fs : NULL;
	if (strcmp(fam, "rstat-flush") == 0)
		rstat_readers(r, f, c->cpu, rd);
	if (q->missing[0])
		sb_printf(ev, "not measured on this kernel: %s\n", q->missing);
	return 0;
}

static const char *const res_names[PSI_NRES] = { "cpu", "memory", "io" };

static void psi_line(struct strbuf *ev, const char *what, const char *res,
                     const struct cgw_psi *p)
{
	if (!p->have)
		return;
	sb_printf(ev, "%s: %s", what, res);
	if (p->some.have)
		sb_printf(ev, " some avg10 %.2f %% avg60 %.2f %% avg300 %.2f %%", p->some.avg10,
		          p->some.avg60, p->some.avg300);
	if (p->full.have)
		sb_printf(ev, "%s full avg10 %.2f %% avg60 %.2f %% avg300 %.2f %%",
		          p->some.have ? ";" : "", p->full.avg10, p->full.avg60, p->full.avg300);
	sb_add(ev, "\n", 1);
}

static int cmp_cg(const void *a, const void *b, void *ctx)
{
	size_t res = *(const size_t *)ctx;
	const struct cgw_psi_cgroup *x = *(const struct cgw_psi_cgroup *const *)a;
	const struct cgw_psi_cgroup *y = *(const struct cgw_psi_cgroup *const *)b;
	double u = x->res[res].some.avg10, v = y->res[res].some.avg10;
	return u < v ? 1 : u > v ? -1 : strcmp(x->path, y->path);
}

/* The CPU with the highest p99, or NULL. */
static const struct cgw_runq_cpu *worst_cpu(const struct cgw_runq *q)
{
	const struct cgw_runq_cpu *w = NULL;
	for (size_t k = 0; q && k < q->ncpu; k++)
		if (q->cpu[k].count && (!w || q->cpu[k].p99_ms > w->p99_ms))
			w = &q->cpu[k];
	return w;
}

static int cmp_d(const void *a, const void *b, void *ctx)
{
	const struct cgw_task *t = ctx;
	double x = t[*(const size_t *)a].blocked_s, y = t[*(const size_t *)b].blocked_s;
	return x < y ? 1 : x > y ? -1 : 0;
}

/* The finding of one resource whose pressure crossed. -1 out of memory. */
static int pressure_finding(struct cgw_report *r, const struct cgw_sigset *sigs,
                            const struct cgw_sig *sig, size_t res, const struct lat_reader *rd)
{
	const struct cgw_pressure *p = r->pressure;
	char cause[32];
	snprintf(cause, sizeof(cause), "pressure %s", res_names[res]);
	const struct cgw_runq_cpu *w = worst_cpu(r->runq);
	/* cpu pressure points where its worst CPU does; memory's and io's are their own */
	const char *fam = res == PSI_MEMORY ? "reclaim" : res == PSI_IO ? "io-wait" :
	                  latency_family(w, r->rates, r->rates_prev,
	                                 r->conf ? r->conf->latency_runq_p99_ms : 0);
	/* no known mechanism (a busy host's queue): a report line and a metric, not a page,
	 * until it lasts */
	double page_after = r->conf ? r->conf->pressure_page_after_s : 0;
	bool quiet = strcmp(fam, "runq-latency") == 0 && p->crossed_s[res] < page_after;
	struct cgw_finding *f = finding_new_cap(r, sig, cause, quiet ? SEV_INFO : SEV_CRITICAL);
	if (!f)
		return -1;
	struct strbuf *ev = &f->evidence;
	sb_printf(ev, "%s pressure crossed its threshold: %s\n", res_names[res],
	          p->why[res][0] ? p->why[res] : "(no reason given)");
	char what[32];
	snprintf(what, sizeof(what), "/proc/pressure/%s", res_names[res]);
	psi_line(ev, what, res_names[res], &p->sys[res]);
	/* the findings' cgroups with pressure of their own, the most first */
	const struct cgw_psi_cgroup **cg = p->ncg ? try_calloc(p->ncg, sizeof(*cg)) : NULL;
	size_t ncg = 0;
	for (size_t k = 0; cg && k < p->ncg; k++)
		if (p->cg[k].res[res].have && p->cg[k].res[res].some.have &&
		    p->cg[k].res[res].some.avg10 >= LAT_CG_FLOOR)
			cg[ncg++] = &p->cg[k];
	if (ncg > 1)
		qsort_r(cg, ncg, sizeof(*cg), cmp_cg, &res);
	for (size_t k = 0; k < ncg && k < LAT_MAX_CGROUPS; k++)
		sb_printf(ev, "%s: %s some avg10 %.2f %%\n", cesc(cg[k]->path), res_names[res],
		          cg[k]->res[res].some.avg10);
	free(cg);
	if (res == PSI_CPU) {
		if (w && w->held.tid > 0) {
			char nm[CGW_COMM_MAX * 4 + 64];
			sb_printf(ev, "held: CPU %d (p99 wait %.2f ms, the highest) ran %s %s/%u for "
			          "%.1f ms\n", w->cpu, w->p99_ms, rq_name(&w->held, nm, sizeof(nm)),
			          policy_name(w->held.policy), w->held.rt_priority, w->held.ms);
		}
		/* the tasks of the CPUs that waited most (LAT_MAX_CPUS of them, highest p99
		 * first): each CPU's holder and longest waiter */
		const struct cgw_runq_cpu *picked[LAT_MAX_CPUS];
		size_t np = 0;
		for (size_t k = 0; r->runq && k < r->runq->ncpu; k++) {
			const struct cgw_runq_cpu *c = &r->runq->cpu[k];
			if (!c->count)
				continue;
			size_t at = np;
			while (at > 0 && picked[at - 1]->p99_ms < c->p99_ms)
				at--;
			if (at >= LAT_MAX_CPUS)
				continue;
			if (np < LAT_MAX_CPUS)
				np++;
			memmove(&picked[at + 1], &picked[at], (np - 1 - at) * sizeof(*picked));
			picked[at] = c;
		}
		for (size_t k = 0; k < np; k++) {
			const struct cgw_runq_cpu *c = picked[k];
			if (c->held.tid > 0 && finding_add_task(f, lat_task(r, &c->held, LAT_HELD, c->cpu,
			                                                    f, rd)) < 0)
				return -1;
			if (c->nwaited && c->waited[0].tid > 0 &&
			    finding_add_task(f, lat_task(r, &c->waited[0], LAT_WAITED, c->cpu, f,
			                                 rd)) < 0)
				return -1;
			cpus_set(&f->cpus, (unsigned)c->cpu);
		}
		rates_evidence(ev, r->rates, r->rates_prev);
		if (!r->runq)
			sb_printf(ev, "run-queue latency: not measured at this scan\n");
	} else {
		/* the tasks in D now, longest first: those the stall is made of */
		size_t *d = try_calloc(r->scan->n + 1, sizeof(*d)), nd = 0;
		for (size_t i = 0; d && i < r->scan->n; i++)
			if (r->scan->t[i].state == 'D' && !r->scan->t[i].gone)
				d[nd++] = i;
		if (nd > 1)
			qsort_r(d, nd, sizeof(*d), cmp_d, r->scan->t);
		for (size_t k = 0; k < nd && k < LAT_MAX_DTASKS; k++)
			if (finding_add_task(f, (ssize_t)d[k]) < 0) {
				free(d);
				return -1;
			}
		sb_printf(ev, "%zu task%s in D at this scan\n", nd, nd == 1 ? "" : "s");
		free(d);
	}
	const struct cgw_sig *fs = sig_find(sigs, fam);
	if (res == PSI_CPU)
		family_evidence(ev, fam, w, fs);
	else
		sb_printf(ev, "points to %s: %s pressure is time lost to %s\n", fam, res_names[res],
		          res == PSI_MEMORY ? "reclaim and refaults" : "waiting on I/O");
	if (quiet)
		sb_printf(ev, "not paged: it points to no known mechanism; it pages once crossed %g s "
		          "in a row ([pressure] page_after)\n", page_after);
	f->family = fs && fs != sig ? fs : NULL;
	return 0;
}

int latency_cgroups(struct cgw_report *r, const struct cgw_sigset *sigs)
{
	const struct cgw_sig *press = sig_find(sigs, "pressure-stall");
	const struct cgw_pressure *p = r->pressure;
	if (!press || !p || !r->latency || !r->scan)
		return 0;
	for (size_t k = 0; k < p->ncg; k++) {
		const struct cgw_psi_cgroup *c = &p->cg[k];
		if (strcmp(c->path, "/") == 0)    /* the root's is the system's: "pressure RES" */
			continue;
		struct strbuf ev = { 0 };
		const char *fam = NULL;
		for (size_t res = 0; res < PSI_NRES; res++) {
			const struct cgw_psi_trigger *t = &p->trig[res];
			const struct cgw_psi_avg *a = t->full ? &c->res[res].full : &c->res[res].some;
			if (!t->on || !t->window_us || !c->res[res].have || !a->have)
				continue;
			double pct = 100.0 * t->stall_us / t->window_us;
			if (a->avg10 < pct)
				continue;
			char tr[64];
			sb_printf(&ev, "cgroup %s: %s %s avg10 %.2f %%, past the threshold's %.0f %% (%s)\n",
			          cesc(c->path), res_names[res], t->full ? "full" : "some", a->avg10, pct,
			          psi_trigger_format(t, tr, sizeof(tr)));
			if (!fam)
				fam = res == PSI_CPU ? latency_family(worst_cpu(r->runq), r->rates,
				                                      r->rates_prev, r->conf ?
				                                      r->conf->latency_runq_p99_ms : 0) :
				      res == PSI_MEMORY ? "reclaim" : "io-wait";
		}
		if (!ev.len) {
			sb_free(&ev);
			continue;
		}
		char cause[CGW_CAUSE_MAX];
		snprintf(cause, sizeof(cause), "cgroup %s", c->path);
		struct cgw_finding *f = finding_new(r, press, cause);
		if (!f) {
			sb_free(&ev);
			return -ENOMEM;
		}
		f->evidence = ev;
		/* its tasks: those of the earlier findings in that cgroup */
		for (size_t j = 0; j < r->nf; j++) {
			const struct cgw_finding *g = &r->f[j];
			if (g == f || (!strncmp(g->cause, "cgroup ", 7) && g->sig == press))
				continue;
			for (size_t i = 0; i < g->ntasks; i++)
				if (!strcmp(r->scan->t[g->tasks[i]].cgroup, c->path) &&
				    finding_add_task(f, (ssize_t)g->tasks[i]) < 0)
					return -ENOMEM;
		}
		const struct cgw_sig *fs = sig_find(sigs, fam);
		sb_printf(&f->evidence, "points to %s\n", fam);
		f->family = fs && fs != press ? fs : NULL;
	}
	return 0;
}

void latency_timerlat_cpus(const struct cgw_runq *r, const struct cgw_conf *conf,
                           struct cgw_cpus *out)
{
	memset(out, 0, sizeof(*out));
	for (size_t i = 0; r && conf->latency_timerlat != TL_MODE_NO && i < r->ncpu; i++)
		if (r->cpu[i].cpu >= 0 && r->cpu[i].cpu < CGW_MAX_CPUS &&
		    (conf->latency_timerlat == TL_MODE_ALWAYS || latency_cpu_passes(&r->cpu[i], conf)))
			cpus_set(out, (unsigned)r->cpu[i].cpu);
}

bool latency_sig(const char *id)
{
	return !strcmp(id, "runq-latency") || !strcmp(id, "pressure-stall");
}

bool latency_any(const struct cgw_report *r)
{
	for (size_t k = 0; k < r->nf; k++)
		if (latency_sig(r->f[k].sig->id))
			return true;
	return false;
}

int latency_diagnose(struct cgw_report *r, const struct cgw_sigset *sigs,
                     const struct lat_reader *rd)
{
	const struct cgw_sig *runq = sig_find(sigs, "runq-latency");
	const struct cgw_sig *press = sig_find(sigs, "pressure-stall");
	if (!r->scan)
		return 0;
	for (size_t k = 0; runq && r->runq && r->conf && k < r->runq->ncpu; k++) {
		const struct cgw_runq_cpu *c = &r->runq->cpu[k];
		struct lat_verdict v = lat_step(r->latency, c, r->runq, r->conf);
		if (v.finding && cpu_finding(r, sigs, runq, c, &v, rd) < 0)
			return -ENOMEM;
	}
	/* pressure findings are the daemon's (r->latency): `check` reads the averages too, and its
	 * exit code stays about stuck tasks */
	for (size_t res = 0; press && r->pressure && r->latency && res < PSI_NRES; res++)
		if (r->pressure->crossed[res] && pressure_finding(r, sigs, press, res, rd) < 0)
			return -ENOMEM;
	return 0;
}
