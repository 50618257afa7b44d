/* diagnose-correlate.c: from signatures to causes. A signature says which wait a task is in; here
 * findings are linked into wait chains and the cause at the end is named, with evidence.
 * Which correlator runs on a finding is its signature's `correlator =` key, looked up in the
 * table at the end of this file (the cgroup activity ones are in diagnose-rates.c).
 *
 * lru-drain: a cpuset memory migration (seed 004). Waiters flush the cpuset_migrate_mm
 * workqueue (cpuset-migrate-wait: `workqueue = cpuset_migrate_mm`); the finding's workers wait
 * in __lru_add_drain_all for per-CPU drain work (lru-drain-isolated); that work runs in
 * per-CPU kworkers (kworker/N:M, bound to CPU N) which are runnable but starved where
 * SCHED_FIFO/RR tasks spin (the finding whose correlator is starvation). One finding, one
 * chain.
 *
 * workqueue: flushers linked to the workers of the workqueue their signature names.
 *
 * starvation: for every starved task, what runs on its CPU, with policy, priority and share. */
#include <errno.h>
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

static bool corr_is(const struct cgw_finding *f, const char *name)
{
	return f->sig->correlator && strcmp(f->sig->correlator, name) == 0;
}

/* The first finding whose signature has correlator name. */
static struct cgw_finding *finding_corr(struct cgw_report *r, const char *name)
{
	for (size_t k = 0; k < r->nf; k++)
		if (corr_is(&r->f[k], name))
			return &r->f[k];
	return NULL;
}

/* The first finding of the signature id. */
static struct cgw_finding *finding_id(struct cgw_report *r, const char *id)
{
	for (size_t k = 0; k < r->nf; k++)
		if (strcmp(r->f[k].sig->id, id) == 0)
			return &r->f[k];
	return NULL;
}

/* The first finding whose signature names workqueue wq (the tasks that flush it). */
static struct cgw_finding *finding_wq(struct cgw_report *r, const char *wq)
{
	for (size_t k = 0; k < r->nf; k++)
		if (r->f[k].sig->workqueue && strcmp(r->f[k].sig->workqueue, wq) == 0)
			return &r->f[k];
	return NULL;
}

/* "kworker/18:1-mm_percpu_wq" -> 18; -1 for unbound (u), rescuer (R-) or other tasks. */
static int percpu_kworker_cpu(const struct cgw_task *t)
{
	struct cgw_kworker k;
	return parse_kworker(t->comm, t->comm_len, &k) == 0 ? k.cpu : -1;
}

static bool is_starved(const struct cgw_scan *s, int tid)
{
	for (size_t i = 0; i < s->n; i++)
		if (s->t[i].tid == tid && s->t[i].suspect == SUSPECT_STARVED)
			return true;
	return false;
}

/* Evidence lines: who runs on cpu, the real-time ones first. Returns how many were named. */
static int runners_on(struct cgw_report *r, struct strbuf *ev, int cpu, int except_tid)
{
	const struct cgw_scan *s = r->scan;
	int named = 0;
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < s->nrunners; i++) {
			const struct cgw_runner *u = &s->runners[i];
			bool rt = u->policy == 1 || u->policy == 2;
			if (u->cpu != cpu || u->tid == except_tid || rt != (pass == 0) ||
			    is_starved(s, u->tid))
				continue;
			char comm[CGW_COMM_MAX * 4], share[96] = "";
			if (u->share >= 0)
				snprintf(share, sizeof(share), ", %.0f %% of the CPU over the last %.1f s%s",
				         u->share > 1 ? 100.0 : u->share * 100, u->share_window_s,
				         u->share_throughout ? ", running throughout" : "");
			char last[48] = "last ran: not known";   /* exec_start 0: moved since */
			struct cgw_now now = scan_cpu_now(s, cpu, u->read_mono_ms);
			if (u->exec_start_ms > 0 && now.bound != BOUND_UNKNOWN) {
				double ago = (now.ms - u->exec_start_ms) / 1000.0;
				snprintf(last, sizeof(last), "last ran %s%.1f s ago",
				         now.bound == BOUND_LOWER && ago > 0 ? "at least " : "",
				         ago < 0 ? 0 : ago);
			}
			sb_printf(ev, "CPU %d: %d (%s) %s/%u is runnable there (%s%s)%s\n",
			          cpu, u->tid, cescape(u->comm, u->comm_len, comm, sizeof(comm)),
			          policy_name(u->policy), u->rt_priority, last, share,
			          rt ? ": a real-time task keeps lower-priority tasks off this CPU" : "");
			named++;
		}
	return named;
}

static void remove_task(struct cgw_finding *f, size_t idx)
{
	size_t k = 0;
	for (size_t j = 0; j < f->ntasks; j++)
		if (f->tasks[j] != idx)
			f->tasks[k++] = f->tasks[j];
	f->ntasks = k;
}

static _Thread_local bool push_lost;   /* a push had no memory: correlate() fails */

static void push(size_t **v, size_t *n, size_t x)
{
	size_t *p = try_reallocarray(*v, *n + 1, sizeof(**v));
	if (!p) {
		push_lost = true;
		return;
	}
	*v = p;
	(*v)[(*n)++] = x;
}

/* A task queued on the drain's mutex: __lru_add_drain_all (or its inlined callers) is its
 * first frame, for /proc/TID/stack hides mutex_lock; no flush_work below it. */
static bool on_drain_mutex(const struct cgw_task *t)
{
	if (t->nframes == 0)
		return false;
	const char *f0 = t->frames[0].name;
	return !strcmp(f0, "__lru_add_drain_all") || !strcmp(f0, "lru_add_drain_all") ||
	       !strcmp(f0, "lru_cache_disable");
}

static void correlate_lru_drain(struct cgw_report *r, struct cgw_finding *lru)
{
	struct cgw_scan *s = r->scan;
	if (lru->ntasks == 0)
		return;
	struct cgw_finding *mig = finding_wq(r, "cpuset_migrate_mm");
	struct cgw_finding *sta = finding_corr(r, "starvation");
	struct strbuf ev = { 0 };
	char a[CGW_COMM_MAX * 4 + 32], list[4096], d[48];

	/* the chain: migration waiters, longest first, then the drain's workers; tasks queued on
	 * the drain's mutex wait for the same drain but are no link of the chain (when a
	 * worker flushes it) */
	free(lru->chain);
	lru->chain = NULL;
	lru->nchain = 0;
	size_t nwait = 0, nflush = 0;
	if (mig)
		for (size_t j = 0; j < mig->ntasks; j++, nwait++)
			push(&lru->chain, &lru->nchain, mig->tasks[j]);
	for (size_t j = 0; j < lru->ntasks; j++)
		nflush += !on_drain_mutex(&s->t[lru->tasks[j]]);
	for (size_t j = 0; j < lru->ntasks; j++)
		if (!nflush || !on_drain_mutex(&s->t[lru->tasks[j]]))
			push(&lru->chain, &lru->nchain, lru->tasks[j]);
	for (size_t j = 0; nflush && j < lru->ntasks; j++)
		if (on_drain_mutex(&s->t[lru->tasks[j]]))
			push(&lru->chain, &lru->nchain, lru->tasks[j]);   /* not a link: cut below */
	if (push_lost)
		return;

	for (size_t j = 0; j < nwait; j++) {
		const struct cgw_task *t = &s->t[lru->chain[j]];
		const char *where = task_has_frame(t, "flush_migrate_mm_task_workfn") ?
			"on its way back from a cpuset change (flush_migrate_mm_task_workfn)" :
			"in the cpuset write itself";
		sb_printf(&ev, "%s has waited %s %s for the cpuset_migrate_mm workqueue\n",
		          task_name(t, a, sizeof(a)), dur_text(task_dur(t), d, sizeof(d)), where);
	}
	for (size_t j = 0; j < lru->ntasks; j++) {
		const struct cgw_task *t = &s->t[lru->chain[nwait + j]];
		if (on_drain_mutex(t))
			sb_printf(&ev, "%s has waited %s for the LRU drain's mutex (%s): it waits "
			          "for the drain %s\n", task_name(t, a, sizeof(a)),
			          dur_text(task_dur(t), d, sizeof(d)), t->frames[0].text,
			          nflush ? "above to finish, then drains again" : "of another task");
		else
			sb_printf(&ev, "%s has waited %s in __lru_add_drain_all for per-CPU drain "
			          "work%s\n", task_name(t, a, sizeof(a)),
			          dur_text(task_dur(t), d, sizeof(d)),
			          task_has_frame(t, "cpuset_migrate_mm_workfn") ? ", migrating a "
			          "cpuset's memory (cpuset_migrate_mm_workfn)" : "");
	}
	/* when the drain was queued: its flushers blocked right after queueing it */
	struct cgw_dur drain = { 0, BOUND_UNKNOWN };
	for (size_t j = 0; j < lru->ntasks; j++) {
		const struct cgw_task *t = &s->t[lru->tasks[j]];
		struct cgw_dur x = task_dur(t);
		if (!on_drain_mutex(t) && x.bound != BOUND_UNKNOWN &&
		    (drain.bound == BOUND_UNKNOWN || x.s < drain.s))
			drain = x;
	}
	size_t nmutex = nflush ? lru->ntasks - nflush : 0;
	lru->nchain -= nmutex;                 /* the mutex's waiters: tasks, not links */
	size_t nchain_tasks = lru->nchain + nmutex;

	/* the cause: per-CPU kworkers that cannot run, and what runs on their CPUs */
	struct cgw_cpus starved_cpus;
	memset(&starved_cpus, 0, sizeof(starved_cpus));
	size_t nkw = 0;
	for (size_t i = 0; sta && i < sta->ntasks;) {
		size_t idx = sta->tasks[i];
		const struct cgw_task *t = &s->t[idx];
		int cpu = percpu_kworker_cpu(t);
		if (cpu < 0) {
			i++;
			continue;
		}
		cpus_set(&starved_cpus, (unsigned)cpu);
		push(&lru->tasks, &lru->ntasks, idx);
		/* the time since it last ran overstates its wait when it last ran before it was
		 * woken: the kernel's last_queued where the scan had it, else the drain's time */
		char q[48];
		struct cgw_dur kw = task_dur(t);
		if (t->queued_s >= 0)
			sb_printf(&ev, "%s, bound to CPU %d, has been runnable for %s without running "
			          "(sched_info.last_queued; it last ran %s ago): the drain work queued "
			          "there cannot run\n", task_name(t, a, sizeof(a)), cpu,
			          dur_text((struct cgw_dur){ t->queued_s, BOUND_EXACT }, q, sizeof(q)),
			          dur_text(kw, d, sizeof(d)));
		else if (drain.bound != BOUND_UNKNOWN && kw.bound != BOUND_UNKNOWN &&
		         kw.s > drain.s + 1.0)
			sb_printf(&ev, "%s, bound to CPU %d, is runnable and has not run since the "
			          "drain was queued %s ago (it last ran %s ago: it has waited to run at "
			          "most that long): the drain work queued there cannot run\n",
			          task_name(t, a, sizeof(a)), cpu, dur_text(drain, q, sizeof(q)),
			          dur_text(kw, d, sizeof(d)));
		else
			sb_printf(&ev, "%s, bound to CPU %d, is runnable but has not run for %s: the "
			          "drain work queued there cannot run\n", task_name(t, a, sizeof(a)),
			          cpu, dur_text(kw, d, sizeof(d)));
		remove_task(sta, idx);
		nkw++;
	}
	/* the same spinners' other victims: tasks starved on those CPUs too (ktimers/N, rcuc/N
	 * on PREEMPT_RT), and kernel threads made for them and never started (their creator is
	 * the starved kworker of a pool making a new worker); in the finding, not the chain */
	for (size_t i = 0; nkw && sta && i < sta->ntasks;) {
		size_t idx = sta->tasks[i];
		const struct cgw_task *t = &s->t[idx];
		if (t->cpu < 0 || !cpus_test(&starved_cpus, (unsigned)t->cpu)) {
			i++;
			continue;
		}
		push(&lru->tasks, &lru->ntasks, idx);
		sb_printf(&ev, "%s %s/%u is starved on CPU %d too: runnable, not run for %s, behind "
		          "the same tasks\n", task_name(t, a, sizeof(a)), policy_name(t->policy),
		          t->rt_priority, t->cpu, dur_text(task_dur(t), d, sizeof(d)));
		remove_task(sta, idx);
	}
	struct cgw_finding *kt = finding_id(r, "kthread-unstarted");
	for (size_t i = 0; nkw && kt && i < kt->ntasks; i++) {
		const struct cgw_task *t = &s->t[kt->tasks[i]];
		push(&lru->tasks, &lru->ntasks, kt->tasks[i]);
		sb_printf(&ev, "%s is a kernel thread created and not started for %s (in kthread(), "
		          "not named yet): its creator, most likely a kworker of CPU%s %s making a new "
		          "worker for its pool, has not run since\n", task_name(t, a, sizeof(a)),
		          dur_text(task_dur(t), d, sizeof(d)), nkw > 1 ? "s" : "",
		          cpulist_format(&starved_cpus, list, sizeof(list)));
	}
	if (nkw && kt) {
		sb_add(&ev, kt->evidence.s ? kt->evidence.s : "", kt->evidence.len);
		kt->ntasks = 0;
	}
	int spinners = 0;
	for (unsigned c = 0; c < CGW_MAX_CPUS; c++)
		if (cpus_test(&starved_cpus, c))
			spinners += runners_on(r, &ev, (int)c, -1);
	if (nkw) {
		struct cgw_cpus iso = starved_cpus;
		cpus_andnot(&iso, &s->topo.housekeeping);
		cpulist_format(&starved_cpus, list, sizeof(list));
		if (!cpus_empty(&iso)) {
			char l2[4096];
			sb_printf(&ev, "CPUs %s are isolated (not housekeeping: isolcpus=, nohz_full= or an "
			          "isolated cpuset partition): nothing moves their work elsewhere\n",
			          cpulist_format(&iso, l2, sizeof(l2)));
		}
		lru->cpus = starved_cpus;
	} else {
		sb_printf(&ev, "no starved per-CPU kworker seen in this scan: the drain may be slow "
		          "rather than stuck, or its kworkers ran just now\n");
	}
	if (nwait)
		sb_printf(&ev, "trigger: a change of cpuset.mems (systemd AllowedMemoryNodes=) or a move "
		          "of tasks into a cpuset with other memory nodes, with memory to migrate\n");

	/* the finding's tasks: the chain (waiters, then the drain's workers), then the starved
	 * kworkers; the waiters leave their own finding */
	size_t *tasks = NULL, ntasks = 0;
	for (size_t j = 0; j < nchain_tasks; j++)
		push(&tasks, &ntasks, lru->chain[j]);
	for (size_t j = nchain_tasks - nwait; j < lru->ntasks; j++)
		push(&tasks, &ntasks, lru->tasks[j]);
	if (push_lost) {
		free(tasks);
		sb_free(&ev);
		return;
	}
	free(lru->tasks);
	lru->tasks = tasks;
	lru->ntasks = ntasks;
	for (size_t j = 0; mig && j < nwait; j++)
		remove_task(mig, lru->chain[j]);
	lru->severity = SEV_NONE;              /* what its tasks prove (diagnose-classify.c) */
	for (size_t j = 0; j < lru->ntasks; j++)
		if (s->t[lru->tasks[j]].severity > lru->severity)
			lru->severity = s->t[lru->tasks[j]].severity;
	if (mig && mig->ntasks == 0)          /* what was read of the waiters, where */
		sb_add(&ev, mig->evidence.s ? mig->evidence.s : "", mig->evidence.len);
	sb_add(&ev, lru->evidence.s ? lru->evidence.s : "", lru->evidence.len);
	sb_free(&lru->evidence);
	lru->evidence = ev;

	const struct cgw_task *outer = &s->t[lru->chain[0]];
	sb_free(&lru->summary);
	if (nkw)
		sb_printf(&lru->summary, "%s has been blocked %s behind a memory migration whose "
		          "LRU drain cannot run on CPU%s %s, where %s: give those CPUs' kworkers a "
		          "moment of CPU.", task_name(outer, a, sizeof(a)),
		          dur_text(task_dur(outer), d, sizeof(d)),
		          nkw > 1 ? "s" : "", list,
		          spinners ? "other tasks (real-time first, below) keep them off" :
		          "they are starved");
	else
		sb_printf(&lru->summary, "%s has been blocked %s behind a memory migration stuck "
		          "in its LRU drain.", task_name(outer, a, sizeof(a)),
		          dur_text(task_dur(outer), d, sizeof(d)));
}

static void correlate_starvation(struct cgw_report *r, struct cgw_finding *sta)
{
	struct cgw_cpus done;
	memset(&done, 0, sizeof(done));
	for (size_t j = 0; j < sta->ntasks; j++) {
		const struct cgw_task *t = &r->scan->t[sta->tasks[j]];
		if (t->cpu < 0 || cpus_test(&done, (unsigned)t->cpu))
			continue;
		cpus_set(&done, (unsigned)t->cpu);
		if (runners_on(r, &sta->evidence, t->cpu, t->tid) == 0)
			sb_printf(&sta->evidence, "CPU %d: no other runnable task seen there in this scan\n",
			          t->cpu);
	}
}

static bool flushes(const struct cgw_task *t)
{
	static const char *const flush[] = { "__flush_workqueue", "flush_workqueue",
	                                     "drain_workqueue", "__flush_work", "flush_work" };
	for (size_t i = 0; i < sizeof(flush) / sizeof(flush[0]); i++)
		if (task_has_frame(t, flush[i]))
			return true;
	return false;
}

/* "kworker/5:1+cgroup_pidlist_destroy": running a work item of that workqueue now. */
static bool runs_workqueue(const struct cgw_task *t, const char *wq)
{
	struct cgw_kworker k;
	return parse_kworker(t->comm, t->comm_len, &k) == 0 && k.running && strcmp(k.wq, wq) == 0;
}

/* workqueue: a signature that names the workqueue its waiters flush (`workqueue =` in its
 * file) links each flusher to the kworkers running that workqueue's work now, whose names
 * end in "+<workqueue>": the chain goes from the flushers to the workers they wait for. */
static void correlate_workqueue(struct cgw_report *r, struct cgw_finding *f)
{
	const struct cgw_scan *s = r->scan;
	char a[CGW_COMM_MAX * 4 + 32], d[48];
	size_t k = (size_t)(f - r->f);
	const char *wq = f->sig->workqueue;
	if (!wq || f->nchain)
		return;
	size_t nflush = 0;
	for (size_t j = 0; j < f->ntasks; j++)
		if (flushes(&s->t[f->tasks[j]])) {
			push(&f->chain, &f->nchain, f->tasks[j]);
			sb_printf(&f->evidence, "%s flushes workqueue %s: it waits until every "
			          "work item queued there has run\n",
			          task_name(&s->t[f->tasks[j]], a, sizeof(a)), wq);
			nflush++;
		}
	if (!nflush)
		return;
	size_t nworkers = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct cgw_task *t = &s->t[i];
		if (!runs_workqueue(t, wq))
			continue;
		bool in_chain = false;
		for (size_t c = 0; c < f->nchain && !in_chain; c++)
			in_chain = f->chain[c] == i;
		if (!in_chain)
			push(&f->chain, &f->nchain, i);
		ssize_t home = report_finding_of(r, i);
		sb_printf(&f->evidence, "%s runs %s work now (its name ends in +%s) and has been "
		          "%s for %s%s%s\n", task_name(t, a, sizeof(a)), wq, wq,
		          t->state == 'D' ? "blocked (D)" : "waiting to run (R)",
		          dur_text(task_dur(t), d, sizeof(d)),
		          home >= 0 && (size_t)home != k ? ": see finding " : "",
		          home >= 0 && (size_t)home != k ? r->f[home].sig->id : "");
		nworkers++;
	}
	if (!nworkers)
		sb_printf(&f->evidence, "no kworker running %s work is blocked or waiting: the "
		          "flush waits behind the number of queued work items, not one stuck "
		          "worker\n", wq);
}

/* The chain correlators, by the name a signature's `correlator =` gives, run in this order.
 * A signature that names a workqueue (`workqueue =`) gets the workqueue chain whatever its
 * correlator: the key says its waiters flush that workqueue. */
static const struct {
	const char *name;
	void (*fn)(struct cgw_report *r, struct cgw_finding *f);
} correlators[] = {
	{ "lru-drain", correlate_lru_drain },
	{ "workqueue", correlate_workqueue },
	{ "starvation", correlate_starvation },
};

int correlate(struct cgw_report *r)
{
	push_lost = false;
	for (size_t c = 0; c < sizeof(correlators) / sizeof(correlators[0]); c++)
		for (size_t k = 0; k < r->nf; k++)
			if (corr_is(&r->f[k], correlators[c].name) ||
			    (correlators[c].fn == correlate_workqueue && r->f[k].sig->workqueue))
				correlators[c].fn(r, &r->f[k]);
	/* findings emptied by a merge go */
	size_t k = 0;
	for (size_t j = 0; j < r->nf; j++) {
		if (r->f[j].ntasks == 0) {
			free(r->f[j].tasks);
			free(r->f[j].chain);
			sb_free(&r->f[j].summary);
			sb_free(&r->f[j].evidence);
			continue;
		}
		r->f[k++] = r->f[j];
	}
	r->nf = k;
	return push_lost ? -ENOMEM : 0;
}
