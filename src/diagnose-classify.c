/* diagnose-classify.c: give each suspect its signature and severity, and group them into findings. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

/* The vfork parent waits for its newest child process (CLONE_VFORK shares the mm, so nothing
 * in /proc links them more precisely without CONFIG_PROC_CHILDREN). */
static int vfork_child_of(const struct cgw_scan *s, const struct cgw_task *t)
{
	int best = 0;
	unsigned long long best_start = 0;
	for (size_t i = 0; i < s->nprocs; i++) {
		const struct cgw_proc *p = &s->procs[i];
		if (p->ppid == t->tgid && p->start_ticks >= t->start_ticks &&
		    (best == 0 || p->start_ticks >= best_start)) {
			best = p->pid;
			best_start = p->start_ticks;
		}
	}
	return best;
}

/* Is t waiting for another task's lookup of the same name in the same directory? fs/dcache.c:
 * d_alloc_parallel finds the name's dentry in lookup and d_wait_lookup sleeps until that lookup
 * ends; one of them is the innermost wait (a frame deeper than that is another wait). */
static bool lookup_waiter(const struct cgw_task *t)
{
	for (size_t i = 0; i < t->nframes && i < 2; i++)
		if (strcmp(t->frames[i].name, "d_alloc_parallel") == 0 ||
		    strcmp(t->frames[i].name, "d_wait_lookup") == 0)
			return true;
	return false;
}

/* A task of no signature that waits for another task's lookup (lookup_waiter) on a mount
 * waits for what that lookup waits for: it takes the signature of the task blocked longest on
 * the same mount (the same device, the same mount point) in a signature keyed by mount
 * (fuse-wait, nfs-wait), which started its wait first. Its frames of the lookup wait are marked. */
static void lookup_join(struct cgw_scan *s, const struct cgw_sig *unknown)
{
	const struct cgw_task *memo_t = NULL, *memo_u = NULL;   /* the last answer, per mount */
	for (size_t i = 0; i < s->n; i++) {
		struct cgw_task *t = &s->t[i];
		if (t->sig != unknown || t->state != 'D' || !t->wait_mnt || !lookup_waiter(t))
			continue;
		const struct cgw_task *u = NULL;
		if (memo_t && strcmp(memo_t->wait_dev, t->wait_dev) == 0 &&
		    strcmp(memo_t->wait_mnt, t->wait_mnt) == 0) {
			u = memo_u;
		} else {
			for (size_t k = 0; k < s->n; k++) {
				const struct cgw_task *c = &s->t[k];
				if (k != i && c->sig && c->sig->cause_mount && c->wait_mnt &&
				    !c->lookup_behind && strcmp(c->wait_dev, t->wait_dev) == 0 &&
				    strcmp(c->wait_mnt, t->wait_mnt) == 0 &&
				    (!u || c->blocked_s > u->blocked_s))
					u = c;
			}
			memo_t = t;
			memo_u = u;
		}
		if (!u)
			continue;
		t->sig = u->sig;
		t->lookup_behind = u->tid;
		t->lookup_behind_tgid = u->tgid;
		for (size_t k = 0; t->marks && k < t->nframes && k < 2; k++)
			t->marks[k] = strcmp(t->frames[k].name, "d_alloc_parallel") == 0 ||
			              strcmp(t->frames[k].name, "d_wait_lookup") == 0;
	}
}

/* The signature's severity, raised to warning, and to critical for a task proven blocked
 * blocked_critical or longer (an exact time, or a lower bound: both are proven). */
static enum cgw_sev task_severity(const struct cgw_task *t, const struct cgw_conf *c)
{
	if (t->sig->severity == SEV_INFO)
		return SEV_INFO;
	enum cgw_sev sev = t->sig->severity;
	if (t->suspect == SUSPECT_BLOCKED && t->bound != BOUND_UNKNOWN &&
	    t->blocked_s >= c->blocked_critical_s)
		sev = SEV_CRITICAL;
	else if (sev < SEV_WARNING)
		sev = SEV_WARNING;
	return sev;
}

/* Is the task at or above the reporting threshold (not only listed by --all)? */
static bool task_reportable(const struct cgw_task *t, const struct cgw_report *r)
{
	return t->suspect == SUSPECT_STARVED || t->blocked_s >= r->threshold_s;
}

/* Where a task's time comes from, for its evidence line (detect-duration.c): se.exec_start against
 * its CPU's clock read there, or against a floor of it; one the kernel has since reset; a
 * lower bound from an earlier scan; or nothing. */
static const char *time_source(const struct cgw_task *t, char *buf, size_t cap)
{
	const struct cgw_seen *w = &t->seen;
	struct strbuf b = { 0 };
	if (t->sched_error[0])
		sb_printf(&b, "its sched file cannot be parsed: %s", t->sched_error);
	else if (t->exec_start_ms == 0 && w->exec_start_ms > 0)
		sb_printf(&b, "se.exec_start reads 0, reset when the kernel moved the task; it read "
		          "%.3f ms at an earlier scan and the task has not run since", w->exec_start_ms);
	else if (w->exec_start_ms > 0)
		sb_printf(&b, "se.exec_start %.3f ms", w->exec_start_ms);
	else
		sb_printf(&b, "se.exec_start reads 0, reset when the kernel moved the task");
	if (w->exec_start_ms > 0 && t->now.bound == BOUND_EXACT)
		sb_printf(&b, ", now %.3f ms on CPU %d's clock%s", t->now.ms, w->clock_cpu,
		          t->bound == BOUND_EXACT ? "" : ": beyond the task's age, not its clock");
	else if (w->exec_start_ms > 0 && t->now.bound == BOUND_LOWER)
		sb_printf(&b, ", now at least %.3f ms on CPU %d's clock (cgwatch cannot run there; a "
		          "runnable task there ran then)", t->now.ms, w->clock_cpu);
	else if (w->exec_start_ms > 0)
		sb_printf(&b, ", on the clock of CPU %d, which cgwatch cannot read", w->clock_cpu);
	if (t->bound == BOUND_EXACT)
		;
	else if (t->bound == BOUND_LOWER && t->blocked_s > 0 &&
	         (w->exec_start_ms == 0 || t->now.bound != BOUND_LOWER))
		sb_printf(&b, "; an earlier scan saw it %s and it has not run since",
		          t->state == 'D' ? "in D" : "runnable");
	else if (t->bound == BOUND_UNKNOWN && t->age_s >= 0)
		sb_printf(&b, "; at most %.1f s, its age", t->age_s);
	snprintf(buf, cap, "%s", b.s);
	sb_free(&b);
	return buf;
}

static void finding_evidence(struct cgw_finding *f, const struct cgw_task *t)
{
	char comm[CGW_COMM_MAX * 4], d[48], src[320];
	cescape(t->comm, t->comm_len, comm, sizeof(comm));
	dur_text(task_dur(t), d, sizeof(d));
	time_source(t, src, sizeof(src));
	if (t->suspect == SUSPECT_STARVED)
		sb_printf(&f->evidence, "/proc/%d/task/%d: %s is runnable (R) on CPU %d but has not "
		          "run for %s (%s); allowed CPUs %s\n", t->tgid, t->tid, comm, t->cpu, d, src,
		          t->cpus_allowed[0] ? t->cpus_allowed : "?");
	else
		sb_printf(&f->evidence, "/proc/%d/task/%d: %s has been in D for %s (%s)\n", t->tgid,
		          t->tid, comm, d, src);
	if (t->stack_error[0])
		sb_printf(&f->evidence, "/proc/%d/task/%d/stack: %s\n", t->tgid, t->tid,
		          t->stack_error);
	else if (t->nframes && t->marks && !memchr(t->marks, true, t->nframes))
		sb_printf(&f->evidence, "/proc/%d/task/%d/stack: matches no signature in the "
		          "library\n", t->tgid, t->tid);
	/* the frames a signature matched are marked ">>" in the text report and listed as the
	 * task's matched_frames in JSON */
	/* "PID N": the text report lists the ids when it groups alike lines (sink-textgroup.c) */
	const char *kind = t->tid == t->tgid ? "PID" : "TID";
	if (t->frozen && t->frozen_v1) {
		char cg[sizeof(t->frozen_cg) * 4]; /* a cgroup name may hold any byte but '\n' */
		sb_printf(&f->evidence, "freezer cgroup %s (v1) of %s %d is frozen: freezer.state "
		          "FROZEN\n", cescape(t->frozen_cg, strlen(t->frozen_cg), cg, sizeof(cg)),
		          kind, t->tid);
	} else if (t->frozen) {
		char cg[sizeof(t->cgroup) * 4];    /* a cgroup name may hold any byte but '\n' */
		sb_printf(&f->evidence, "cgroup %s of %s %d is frozen by the cgroup freezer\n",
		          t->cgroup[0] ? cescape(t->cgroup, strlen(t->cgroup), cg, sizeof(cg)) : "?",
		          kind, t->tid);
	}
	if (t->lookup_behind)
		sb_printf(&f->evidence, "%s %d waits for another task's lookup of the same name "
		          "(d_alloc_parallel) on the mount %s, where %s %d waits in %s\n", kind, t->tid,
		          cesc(t->wait_mnt), t->lookup_behind == t->lookup_behind_tgid ? "PID" : "TID",
		          t->lookup_behind, t->sig->id);
	cause_evidence(&f->evidence, t);
	if (t->vfork_child)
		sb_printf(&f->evidence, "%s %d waits for its vfork child, PID %d, to exec or exit\n",
		          kind, t->tid, t->vfork_child);
}

/* Longest blocked first; ties by tid, so that the order never depends on the order a
 * directory was read in (a replay of the same tree on another file system). */
static int cmp_blocked(const void *a, const void *b, void *ctx)
{
	const struct cgw_task *x = &((const struct cgw_task *)ctx)[*(const size_t *)a];
	const struct cgw_task *y = &((const struct cgw_task *)ctx)[*(const size_t *)b];
	if (x->blocked_s != y->blocked_s)
		return x->blocked_s < y->blocked_s ? 1 : -1;
	return (x->tid > y->tid) - (x->tid < y->tid);
}

static int cmp_finding(const void *a, const void *b, void *ctx)
{
	const struct cgw_finding *x = a, *y = b;
	const struct cgw_task *t = ctx;
	if (x->severity != y->severity)
		return x->severity < y->severity ? 1 : -1;
	double bx = t[x->tasks[0]].blocked_s, by = t[y->tasks[0]].blocked_s;
	if (bx != by)
		return bx < by ? 1 : -1;
	int c = strcmp(x->sig->id, y->sig->id);
	return c ? c : strcmp(x->cause, y->cause);
}

/* Do a and b match the library alike: the same state and the same frame names, in order? */
static bool stacks_alike(const struct cgw_task *a, const struct cgw_task *b)
{
	if (a->state != b->state || a->nframes != b->nframes)
		return false;
	for (size_t i = 0; i < a->nframes; i++)
		if (strcmp(a->frames[i].name, b->frames[i].name) != 0)
			return false;
	return true;
}

/* A kernel thread created and not started: in D in kthread() itself, with the name it
 * inherited from kthreadd (its creator names it once it has run again). */
static bool kthread_unstarted(const struct cgw_task *t)
{
	return t->state == 'D' && t->tid != 2 && t->nframes > 0 &&
	       strcmp(t->frames[0].name, "kthread") == 0 &&
	       t->comm_len == 8 && memcmp(t->comm, "kthreadd", 8) == 0;
}

int classify(struct cgw_report *r, const struct cgw_sigset *sigs)
{
	struct cgw_scan *s = r->scan;
	const struct cgw_sig *frozen = sig_find(sigs, "frozen");
	const struct cgw_sig *unknown = sig_find(sigs, "unknown");
	const struct cgw_sig *starved = sig_find(sigs, "starved");
	const struct cgw_sig *unstarted = sig_find(sigs, "kthread-unstarted");

	/* the last task matched against the library: one with the same stack in the same state
	 * matches the same (2,000 threads of one process blocked alike: once, not 2,000 times) */
	const struct cgw_task *prev = NULL;
	const struct cgw_sig *prev_best = NULL;
	for (size_t i = 0; i < s->n; i++) {
		struct cgw_task *t = &s->t[i];
		const struct cgw_sig *sig;
		const struct cgw_task *like = NULL;   /* prev, when t's stack and state are its */
		if (t->frozen) {
			sig = frozen;
		} else {
			like = prev && stacks_alike(prev, t) ? prev : NULL;
			const struct cgw_sig *best = like ? prev_best :
			                             sig_best(sigs, t->state, t->frames, t->nframes);
			prev = t;
			prev_best = best;
			sig = best ? best : t->suspect == SUSPECT_STARVED ? starved :
			      unstarted && kthread_unstarted(t) ? unstarted : unknown;
		}
		t->sig = sig;
		if (t->nframes && (t->marks = calloc(t->nframes, sizeof(bool)))) {
			if (like && like->sig == sig && like->marks)   /* the same frames marked */
				memcpy(t->marks, like->marks, t->nframes * sizeof(bool));
			else
				sig_match(sig, t->frames, t->nframes, t->marks);   /* else: no ">>" marks */
			if (sig == unstarted)
				t->marks[0] = true;             /* kthread, what the code matched */
		}
		if (strcmp(sig->id, "vfork-wait") == 0)
			t->vfork_child = vfork_child_of(s, t);
	}
	lookup_join(s, unknown);
	for (size_t i = 0; i < s->n; i++)
		s->t[i].severity = task_severity(&s->t[i], r->conf);

	/* one finding per signature and cause (diagnose-cause.c): correlators link chains across them */
	for (size_t i = 0; i < s->n; i++) {
		struct cgw_task *t = &s->t[i];
		if (!task_reportable(t, r))
			continue;
		char cause[CGW_CAUSE_MAX];
		task_cause(t, cause, sizeof(cause));
		struct cgw_finding *f = NULL;
		for (size_t k = 0; k < r->nf && !f; k++)
			if (r->f[k].sig == t->sig && strcmp(r->f[k].cause, cause) == 0)
				f = &r->f[k];
		if (!f) {
			struct cgw_finding *nf = try_reallocarray(r->f, r->nf + 1, sizeof(*r->f));
			if (!nf)
				return -ENOMEM;
			r->f = nf;
			f = &r->f[r->nf++];
			memset(f, 0, sizeof(*f));
			f->sig = t->sig;
			memcpy(f->cause, cause, sizeof(cause));
		}
		size_t *nt = try_reallocarray(f->tasks, f->ntasks + 1, sizeof(size_t));
		if (!nt)
			return -ENOMEM;
		f->tasks = nt;
		f->tasks[f->ntasks++] = i;
		if (t->severity > f->severity)
			f->severity = t->severity;
		if (t->cpu >= 0)
			cpus_set(&f->cpus, (unsigned)t->cpu);
	}
	for (size_t k = 0; k < r->nf; k++) {
		struct cgw_finding *f = &r->f[k];
		if (f->ntasks > 1)            /* qsort_r(NULL, 0, ...) is undefined */
			qsort_r(f->tasks, f->ntasks, sizeof(size_t), cmp_blocked, s->t);
		for (size_t j = 0; j < f->ntasks; j++)
			finding_evidence(f, &s->t[f->tasks[j]]);
	}
	if (correlate(r) < 0)
		return -ENOMEM;
	if (r->nf)
		qsort_r(r->f, r->nf, sizeof(*r->f), cmp_finding, s->t);
	return 0;
}

int check_classify(struct cgw_report *r, const struct cgw_sigset *sigs)
{
	if (classify(r, sigs) == 0)
		return 0;
	log_warnx("cannot classify the %zu tasks of the scan: out of memory", r->scan->n);
	return EXIT_UNREADABLE;
}
