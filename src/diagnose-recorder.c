/* diagnose-recorder.c: the flight recorder's events as the sentences of a timeline, told from
 * the moment the first task of a finding blocked (pure: events and numbers in, sentences out).
 *
 *   cpuset.mems opened for writing by PID 4242 (bash) 4.1 s before PID 1 blocked
 *   512 cgroup rmdirs in the 30 s before PID 77 blocked (from 12.0 to 8.1 s before)
 *   CPU hotplug, cpuhp_enter cpu: 0003 target: 0 step: 151 (...): 2.0 s before PID 1 blocked
 *   the kernel reported PID 77 (kworker/0:1) hung, 100.2 s after PID 1 blocked
 *   96 works queued on cpuset_migrate_mm (from 3.1 s before to 0.1 s after PID 1 blocked)
 *   CPU 3: PID 4242 (spin) ran without a switch for the 32.4 s to the readout, from 30.2 s
 *     before PID 1 blocked (switched in from PID 17 (kworker/3:1), which left I); 12
 *     switches on CPU 3 in the window
 *
 * Counted events (cgroup churn, rstat contention, work) are one sentence per kind: how many in
 * the REC_BURST_S seconds before the moment, and how many in the whole window when there are
 * more. Single events (cpuset.mems opens, hotplug steps, hung-task reports) are one sentence
 * each, the newest REC_SINGLE_MAX of a kind, then one saying how many more. */
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

#define REC_BURST_S 30.0
#define REC_SINGLE_MAX 8

void recorder_anchor(struct cgw_recwin *w, const struct cgw_report *r, ssize_t finding)
{
	w->have_anchor = false;
	w->anchor[0] = '\0';
	if (!r || !r->nf || w->read_at <= 0)
		return;
	size_t k = finding >= 0 && (size_t)finding < r->nf ? (size_t)finding : 0;
	const struct cgw_finding *f = &r->f[k];
	if (!f->ntasks)
		return;
	const struct cgw_task *t = &r->scan->t[f->tasks[0]];
	if (t->blocked_s <= 0)
		return;
	w->anchor_t = w->read_at - t->blocked_s;
	w->anchor_tid = t->tid;
	snprintf(w->anchor, sizeof(w->anchor), "%s %d %s", t->tid == t->tgid ? "PID" : "TID",
	         t->tid, t->state == 'D' ? "blocked" : "last ran");
	w->have_anchor = true;
}

/* "4.1 s before PID 1 blocked" */
static void rel(const struct cgw_recwin *w, double t, char *out, size_t cap)
{
	double a = w->have_anchor ? w->anchor_t : w->read_at, d = t - a;
	const char *who = w->have_anchor ? w->anchor : "the readout";
	if (fabs(d) < 0.05)
		snprintf(out, cap, "as %s", who);
	else
		snprintf(out, cap, "%.1f s %s %s", fabs(d), d < 0 ? "before" : "after", who);
}

/* the same, without the moment's name: "4.1 s before" */
static void rel_short(const struct cgw_recwin *w, double t, char *out, size_t cap)
{
	double d = t - (w->have_anchor ? w->anchor_t : w->read_at);
	snprintf(out, cap, "%.1f s %s", fabs(d), d < 0 ? "before" : "after");
}

static struct rec_line *next_line(struct rec_line *out, size_t cap, size_t *n, double t,
                                  const char *kind)
{
	if (*n >= cap)
		return NULL;
	struct rec_line *l = &out[(*n)++];
	memset(l, 0, sizeof(*l));
	l->t = t;
	l->kind = kind;
	return l;
}

/* fields with runs of blanks as one space, at most cap - 1 bytes */
static void squeeze(const char *f, char *out, size_t cap)
{
	size_t o = 0;
	bool sp = true;
	for (const char *p = f ? f : ""; *p && o + 1 < cap; p++) {
		bool blank = *p == ' ' || *p == '\t';
		if (blank && sp)
			continue;
		out[o++] = blank ? ' ' : *p;
		sp = blank;
	}
	while (o && out[o - 1] == ' ')
		o--;
	out[o] = '\0';
}

/* the hexadecimal value after "key: " in a syscall's fields ("flags: 0x241") */
static bool call_field(const char *fields, const char *key, unsigned long *v)
{
	size_t kl = strlen(key);
	for (const char *s = fields; s && (s = strstr(s, key)); s++) {
		if ((s != fields && s[-1] != ' ') || strncmp(s + kl, ": ", 2) != 0)
			continue;
		char *end;
		*v = strtoul(s + kl + 2, &end, 16);
		return end != s + kl + 2;
	}
	return false;
}

/* Events whose name is one of names[] (NULL-ended), counted: one sentence. */
static void counted(const struct cgw_recwin *w, const char *name, const char *one,
                    const char *many, const char *kind, struct rec_line *out, size_t cap,
                    size_t *n)
{
	double a = w->have_anchor ? w->anchor_t : w->read_at;
	const char *who = w->have_anchor ? w->anchor : "the readout";
	size_t all = 0, burst = 0;
	double first = 0, last = 0, bfirst = 0, blast = 0;
	for (size_t i = 0; i < w->ev.n; i++) {
		const struct cgw_trace_event *e = &w->ev.v[i];
		if (strcmp(e->name, name) != 0)
			continue;
		if (!all++)
			first = e->t;
		last = e->t;
		if (e->t >= a - REC_BURST_S && e->t <= a) {
			if (!burst++)
				bfirst = e->t;
			blast = e->t;
		}
	}
	if (!all)
		return;
	char r1[96], r2[96];
	struct rec_line *l;
	if (burst) {
		if (!(l = next_line(out, cap, n, bfirst, kind)))
			return;
		rel_short(w, bfirst, r1, sizeof(r1));
		rel_short(w, blast, r2, sizeof(r2));
		size_t o = (size_t)snprintf(l->text, sizeof(l->text), "%zu %s in the %.0f s before %s",
		                            burst, burst == 1 ? one : many, REC_BURST_S, who);
		if (o < sizeof(l->text))
			o += (size_t)snprintf(l->text + o, sizeof(l->text) - o, burst == 1 ? " (%s)" :
			                      " (from %s to %s)", r1, r2);
		if (all > burst && o < sizeof(l->text))
			snprintf(l->text + o, sizeof(l->text) - o, "; %zu in the %.0f s read", all,
			         w->window_s);
		return;
	}
	if (!(l = next_line(out, cap, n, first, kind)))
		return;
	rel_short(w, first, r1, sizeof(r1));
	rel(w, last, r2, sizeof(r2));
	snprintf(l->text, sizeof(l->text), all == 1 ? "%zu %s, %s%.0s" :
	         "%zu %s, from %s to %s", all, all == 1 ? one : many, all == 1 ? r2 : r1, r2);
}

/* Work queued (or started) per workqueue (or function): one counted sentence each. */
static void work(const struct cgw_recwin *w, const char *name, const char *key,
                 const char *verb, struct rec_line *out, size_t cap, size_t *n)
{
	enum { NAMES = 8 };
	struct { char v[64]; size_t c; double first, last; } seen[NAMES];
	size_t ns = 0;
	for (size_t i = 0; i < w->ev.n; i++) {
		const struct cgw_trace_event *e = &w->ev.v[i];
		if (strcmp(e->name, name) != 0)
			continue;
		size_t vl = 0;
		const char *v = trace_field(e->fields, key, &vl);
		if (!v && e->fields && (v = strstr(e->fields, "function "))) {
			v += 9;                   /* execute_start: "work struct X: function NAME" */
			vl = strcspn(v, " ");
		}
		char val[64];
		snprintf(val, sizeof(val), "%.*s", v ? (int)(vl < 63 ? vl : 63) : 1, v ? v : "?");
		size_t k;
		for (k = 0; k < ns && strcmp(seen[k].v, val) != 0; k++)
			;
		if (k == ns) {
			if (ns == NAMES)
				continue;
			snprintf(seen[ns].v, sizeof(seen[ns].v), "%s", val);
			seen[ns].c = 0;
			seen[ns].first = e->t;
			ns++;
		}
		seen[k].c++;
		seen[k].last = e->t;
	}
	for (size_t k = 0; k < ns; k++) {
		struct rec_line *l = next_line(out, cap, n, seen[k].first, "recorder rec-work");
		if (!l)
			return;
		char r1[96], r2[96];
		rel_short(w, seen[k].first, r1, sizeof(r1));
		rel(w, seen[k].last, r2, sizeof(r2));
		if (seen[k].c == 1)
			snprintf(l->text, sizeof(l->text), "1 work %s %s, %s", verb, seen[k].v, r2);
		else
			snprintf(l->text, sizeof(l->text), "%zu works %s %s (from %s to %s)", seen[k].c,
			         verb, seen[k].v, r1, r2);
	}
}

/* A field of a sched_switch event, C-escaped into out ("S ==>" of prev_state cut at the blank). */
static void sw_field(const struct cgw_trace_event *e, const char *key, char *out, size_t cap)
{
	size_t l = 0;
	const char *v = trace_field(e->fields, key, &l);
	if (!v) {
		snprintf(out, cap, "?");
		return;
	}
	if (strcmp(key, "prev_state") == 0)
		l = strcspn(v, " ") < l ? strcspn(v, " ") : l;
	cescape(v, l, out, cap);
}

struct sw_cpu { int cpu; size_t last, count; };

static int sw_cmp(const void *a, const void *b)
{
	const struct sw_cpu *x = a, *y = b;
	return x->last < y->last ? -1 : x->last > y->last;
}

/* sched_switch on the recorded CPUs: the last switch of each CPU, the CPUs that went longest
 * without one first (the newest REC_SINGLE_MAX, then one sentence for the rest). */
static void switches(const struct cgw_recwin *w, struct rec_line *out, size_t cap, size_t *n)
{
	struct sw_cpu *c = NULL;
	size_t nc = 0, cc = 0;
	for (size_t i = 0; i < w->ev.n; i++) {
		const struct cgw_trace_event *e = &w->ev.v[i];
		if (strcmp(e->name, "sched_switch") != 0)
			continue;
		size_t k;
		for (k = 0; k < nc && c[k].cpu != e->cpu; k++)
			;
		if (k == nc) {
			if (nc == cc) {
				size_t ncap = cc ? cc * 2 : 16;
				struct sw_cpu *nv = try_reallocarray(c, ncap, sizeof(*c));
				if (!nv)
					break;
				c = nv;
				cc = ncap;
			}
			c[nc].cpu = e->cpu;
			c[nc].count = 0;
			nc++;
		}
		c[k].last = i;                /* events are oldest first: a later index is newer */
		c[k].count++;
	}
	if (!nc) {
		free(c);
		return;
	}
	qsort(c, nc, sizeof(*c), sw_cmp);
	char r[128], pc[CGW_COMM_MAX * 4], nc_[CGW_COMM_MAX * 4], pp[16], np[16], st[16];
	for (size_t k = 0; k < nc && k < REC_SINGLE_MAX; k++) {
		const struct cgw_trace_event *e = &w->ev.v[c[k].last];
		struct rec_line *l = next_line(out, cap, n, e->t, "recorder rec-switch");
		if (!l)
			break;
		rel(w, e->t, r, sizeof(r));
		sw_field(e, "prev_comm", pc, sizeof(pc));
		sw_field(e, "next_comm", nc_, sizeof(nc_));
		sw_field(e, "prev_pid", pp, sizeof(pp));
		sw_field(e, "next_pid", np, sizeof(np));
		sw_field(e, "prev_state", st, sizeof(st));
		snprintf(l->text, sizeof(l->text), "CPU %d: PID %s (%s) ran without a switch for the "
		         "%.1f s to the readout, from %s (switched in from PID %s (%s), which left %s); "
		         "%s%zu switch%s on CPU %d in the window", e->cpu, np, nc_,
		         w->read_at > e->t ? w->read_at - e->t : 0.0, r, pp, pc, st,
		         c[k].count >= CGW_REC_SW_KEEP ? "at least " : "", c[k].count,
		         c[k].count == 1 ? "" : "es", e->cpu);
	}
	if (nc > REC_SINGLE_MAX) {
		const struct cgw_trace_event *e = &w->ev.v[c[nc - 1].last];
		struct rec_line *l = next_line(out, cap, n, e->t, "recorder rec-switch");
		if (l) {
			rel(w, e->t, r, sizeof(r));
			snprintf(l->text, sizeof(l->text), "%zu more CPUs switched later, the last of "
			         "them %s", nc - REC_SINGLE_MAX, r);
		}
	}
	free(c);
}

static int line_cmp(const void *a, const void *b)
{
	const struct rec_line *x = a, *y = b;
	return x->t < y->t ? -1 : x->t > y->t;
}

size_t recorder_lines(const struct cgw_recwin *w, struct rec_line *out, size_t cap)
{
	size_t n = 0;
	char r[128], comm[CGW_COMM_MAX * 4], f[200];
	/* single events, the newest REC_SINGLE_MAX of each kind */
	static const struct { const char *prefix, *kind; } singles[] = {
		{ "sys_openat", "recorder rec-cpuset" }, { "cpuhp_", "recorder rec-hotplug" },
		{ "sched_process_hang", "recorder rec-hang" },
	};
	for (size_t s = 0; s < sizeof(singles) / sizeof(singles[0]); s++) {
		size_t total = 0, shown = 0, pl = strlen(singles[s].prefix);
		for (size_t i = 0; i < w->ev.n; i++)
			total += strncmp(w->ev.v[i].name, singles[s].prefix, pl) == 0;
		for (size_t i = 0; i < w->ev.n; i++) {
			const struct cgw_trace_event *e = &w->ev.v[i];
			if (strncmp(e->name, singles[s].prefix, pl) != 0)
				continue;
			if (total - shown++ > REC_SINGLE_MAX)
				continue;             /* an older one: counted below */
			struct rec_line *l = next_line(out, cap, &n, e->t, singles[s].kind);
			if (!l)
				goto sort;
			rel(w, e->t, r, sizeof(r));
			cescape(e->comm, strlen(e->comm), comm, sizeof(comm));
			if (s == 0) {
				unsigned long fl;
				bool known = call_field(e->fields, "flags", &fl);
				snprintf(l->text, sizeof(l->text), "cpuset.mems opened%s by PID %d (%s) %s",
				         known && (fl & 3) ? " for writing" : known ? " for reading" : "",
				         e->pid, comm, r);
			} else if (s == 1) {
				squeeze(e->fields, f, sizeof(f));
				snprintf(l->text, sizeof(l->text), "CPU hotplug, %s %s: %s", e->name, f, r);
			} else {
				size_t cl = 0, pl2 = 0;
				const char *c = trace_field(e->fields, "comm", &cl);
				const char *p = trace_field(e->fields, "pid", &pl2);
				char hc[CGW_COMM_MAX * 4] = "?";
				if (c)
					cescape(c, cl, hc, sizeof(hc));
				snprintf(l->text, sizeof(l->text), "the kernel reported PID %.*s (%s) hung, %s",
				         p ? (int)(pl2 < 12 ? pl2 : 12) : 1, p ? p : "?", hc, r);
			}
		}
		if (total > REC_SINGLE_MAX) {
			struct rec_line *l = NULL;
			for (size_t i = 0; i < w->ev.n && !l; i++)
				if (strncmp(w->ev.v[i].name, singles[s].prefix, pl) == 0) {
					if (!(l = next_line(out, cap, &n, w->ev.v[i].t, singles[s].kind)))
						goto sort;
					rel(w, w->ev.v[i].t, r, sizeof(r));
				}
			snprintf(l->text, sizeof(l->text), "%zu more %s before those, the first %s",
			         total - REC_SINGLE_MAX, s == 0 ? "opens of cpuset.mems" : s == 1 ?
			         "CPU hotplug steps" : "hung-task reports", r);
		}
	}
	counted(w, "cgroup_mkdir", "cgroup mkdir", "cgroup mkdirs", "recorder rec-cgroup", out,
	        cap, &n);
	counted(w, "cgroup_rmdir", "cgroup rmdir", "cgroup rmdirs", "recorder rec-cgroup", out,
	        cap, &n);
	counted(w, "cgroup_attach_task", "task moved between cgroups",
	        "tasks moved between cgroups", "recorder rec-cgroup", out, cap, &n);
	counted(w, "cgroup_rstat_lock_contended", "contention of the cgroup rstat lock",
	        "contentions of the cgroup rstat lock", "recorder rec-rstat", out, cap, &n);
	work(w, "workqueue_queue_work", "workqueue", "queued on", out, cap, &n);
	work(w, "workqueue_execute_start", "function", "started in", out, cap, &n);
	switches(w, out, cap, &n);
sort:
	if (n)
		qsort(out, n, sizeof(*out), line_cmp);
	for (size_t i = 0; i < n; i++)
		out[i].at = out[i].t - (w->have_anchor ? w->anchor_t : w->read_at);
	return n;
}
