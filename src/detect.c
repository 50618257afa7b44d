/* detect.c: which tasks are suspects and how long they have been stuck. A D task blocked past
 * the threshold, or an R task not run for longer than the starvation threshold, timed on the
 * clock of its own CPU (source-cpuclock.c, detect-duration.c); then the second look: every suspect read
 * again, and one that ran, left its state or is gone is dropped; a starved one only when it
 * still has not run a moment later, with the share of its CPU each runner took meanwhile. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgwatch.h"

#define FILE_BUF 8192
/* One more walk of the BPF program costs about what reading two files of a suspect costs
 * for every 32 threads it walks (a thread walked past, ~0.5 us; a D one's stack, ~3 us; two
 * files, ~20 us): it replaces the files from RELOOK_MIN suspects and 1 in 32 threads. */
#define RELOOK_MIN 64
#define RELOOK_PER_THREADS 32

/* Seconds since a task started, at CLOCK_MONOTONIC time at_mono (boot clock of the host or
 * of the replayed tree); -1 when /proc/uptime could not be read. */
double detect_age(const struct cgw_scan *s, unsigned long long start_ticks, double at_mono)
{
	double up = s->uptime_s;
	if (up > 0 && s->live)
		up += (at_mono - s->uptime_mono_ms) / 1000.0;
	return task_age(start_ticks, up, sysconf(_SC_CLK_TCK));
}

/* D blocked at least blocked_s (every D task with --all), R waiting at least starved_s. A
 * duration that is not known proves nothing. */
enum cgw_suspect detect_suspect(char state, struct cgw_dur d, const struct cgw_scan_opts *o)
{
	bool known = d.bound != BOUND_UNKNOWN;
	if (state == 'D' && ((known && d.s >= o->blocked_s) || o->all))
		return SUSPECT_BLOCKED;
	if (state == 'R' && known && d.s >= o->starved_s)
		return SUSPECT_STARVED;
	return SUSPECT_NONE;
}

/* A per-CPU kworker (kworker/N:M) runs the work queued on its CPU, which an LRU drain waits
 * for on every CPU: where the blocked threshold is the lower one (--threshold), a kworker
 * runnable past it is kept for now (drain_only), and detect_drain_kworkers keeps it only if
 * a drain in D has waited no longer than it has. The starved threshold for the others. */
static double starved_min_s(const char *comm, size_t len, const struct cgw_scan_opts *o)
{
	struct cgw_kworker k;
	if (o->blocked_s < o->starved_s && parse_kworker(comm, len, &k) == 0 && k.cpu >= 0)
		return o->blocked_s;
	return o->starved_s;
}

/* An R task under the starved threshold that starved_min_s keeps for now. */
static bool drain_candidate(char state, struct cgw_dur d, const char *comm, size_t len,
                            const struct cgw_scan_opts *o)
{
	return state == 'R' && d.bound != BOUND_UNKNOWN && d.s < o->starved_s &&
	       d.s >= starved_min_s(comm, len, o);
}

/* A D task left out because nothing shows how long it has been blocked, though it is old
 * enough to be past the threshold: counted, so that the report can say so. */
void detect_count_untimed(struct cgw_scan *s, char state, struct cgw_dur d, double age,
                          const struct cgw_scan_opts *o)
{
	if (state == 'D' && d.bound == BOUND_UNKNOWN && (age < 0 || age >= o->blocked_s))
		s->untimed++;
}

/* Drop the tasks marked gone. */
static void drop_gone(struct cgw_scan *s)
{
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (s->t[i].gone) {
			frames_free(s->t[i].frames, s->t[i].nframes);
			free(s->t[i].marks);
			free(s->t[i].wait_path);      /* read by scan_suspects before the last look */
			free(s->t[i].wait_mnt);
			free(s->t[i].uframes);
			continue;
		}
		s->t[k++] = s->t[i];
	}
	s->n = k;
}

/* Read cpu's scheduler clock, live, if this scan has not tried yet (a hop onto it). */
void detect_want_clock(struct cgw_scan *s, int cpu)
{
	if (!s->live || cpu < 0 || cpu >= CGW_MAX_CPUS || cpus_test(&s->clock_tried, (unsigned)cpu))
		return;
	cpus_set(&s->clock_tried, (unsigned)cpu);
	if (grow((void **)&s->clocks, &s->clocks_cap, s->nclocks, 16, sizeof(*s->clocks)) < 0) {
		s->nomem = true;
		return;
	}
	struct cgw_cpus one;
	memset(&one, 0, sizeof(one));
	cpus_set(&one, (unsigned)cpu);
	s->nclocks += cpuclock_measure(&one, &s->clocks[s->nclocks], 1);
}

struct cgw_now scan_cpu_now(const struct cgw_scan *s, int cpu, double at_mono_ms)
{
	const struct cgw_rq_floor *f = cpu >= 0 && cpu < CGW_MAX_CPUS && s->rq_latest &&
	                               s->rq_latest[cpu].exec_start_ms > 0 ? &s->rq_latest[cpu] : NULL;
	struct cgw_now cap;
	if (!s->live && s->replay_clocks)  /* a capture's: that CPU's clock as the live run had */
		return clocks_cpu(s->replay_clocks, cpu, &cap) ? cap :
		       (struct cgw_now){ 0, BOUND_UNKNOWN };   /* it, or did not */
	if (!s->live)                     /* a replay: the capture's clock */
		return (struct cgw_now){ f && f->exec_start_ms > s->now_ms ? f->exec_start_ms :
		                         s->now_ms, BOUND_EXACT };
	double ms;
	if (cpuclock_at(s->clocks, s->nclocks, cpu, at_mono_ms, &ms))
		return (struct cgw_now){ ms, BOUND_EXACT };
	/* a runnable task there last ran at f->exec_start_ms on that clock, read at f->mono_ms;
	 * the clock leaves out IRQ and steal time, so it moves no faster than CLOCK_MONOTONIC */
	if (f)
		return (struct cgw_now){ f->exec_start_ms - (f->mono_ms > at_mono_ms ?
		                         f->mono_ms - at_mono_ms : 0), BOUND_LOWER };
	return (struct cgw_now){ 0, BOUND_UNKNOWN };
}

/* The candidates' times against the clock of the CPU their exec_start is on, at their own
 * read (source-cpuclock.c). A time that is not known, or not past its threshold, drops the task. */
void detect_clocks(struct cgw_scan *s, const struct cgw_scan_opts *o)
{
	for (size_t i = 0; i < s->n; i++) {
		struct cgw_task *t = &s->t[i];
		if (t->sched_error[0])
			continue;                 /* no time to correct: kept, with the reason */
		if (t->seen.exec_start_ms > 0) {
			detect_want_clock(s, t->seen.clock_cpu);
			struct cgw_now now = scan_cpu_now(s, t->seen.clock_cpu, t->read_mono_ms);
			struct cgw_dur d = seen_duration(&t->seen, now, t->read_mono_ms, t->age_s);
			t->now = now;
			t->blocked_s = d.s;
			t->bound = d.bound;
		}
		if (detect_suspect(t->state, task_dur(t), o) != SUSPECT_NONE)
			t->drain_only = false;    /* past the starved threshold on its own clock */
		else if (!(t->drain_only &&
		           drain_candidate(t->state, task_dur(t), t->comm, t->comm_len, o))) {
			detect_count_untimed(s, t->state, task_dur(t), t->age_s, o);
			t->gone = true;
		}
	}
	drop_gone(s);
}

/* t still as it was, looked at again at mono: its durations move on to that look. */
static void recheck_times(struct cgw_task *t, double mono)
{
	double dt = mono - t->read_mono_ms;
	if (t->bound != BOUND_UNKNOWN)
		t->blocked_s += dt / 1000.0;
	if (t->age_s >= 0)
		t->age_s += dt / 1000.0;
	if (t->queued_s >= 0)
		t->queued_s += dt / 1000.0;
	t->now.ms += dt;
	t->read_mono_ms = mono;
}

/* Read stat and sched of the suspects of kind `which` (SUSPECT_NONE: all of them) again. One
 * that is gone, whose tid now names another task, that left its state, or that ran since
 * (switch count, CPU time or exec_start moved) is dropped: its wait is over, and what was
 * read of it since may describe something else. The others have not run in between: their
 * durations move on to this read. */
void detect_recheck(struct cgw_scan *s, enum cgw_suspect which, const struct cgw_bpfscan *relook)
{
	for (size_t i = 0; i < s->n; i++) {
		struct cgw_task *t = &s->t[i];
		if (which != SUSPECT_NONE && t->suspect != which)
			continue;
		char path[96], buf[FILE_BUF];
		struct cgw_stat st;
		struct cgw_sched sc;
		double mono;
		if (relook && !t->sched_error[0]) {        /* the program's second walk */
			if (!bpfscan_relooked(relook, t->tid, &st, &sc, &mono) ||
			    st.tid != t->tid || !seen_still(&t->seen, &st, &sc))
				t->gone = true;
			else
				recheck_times(t, mono);
			continue;
		}
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", t->tgid, t->tid);
		ssize_t r = read_small_file(path, buf, sizeof(buf));
		mono = mono_ms();
		if (r < 0 || parse_stat_buf(buf, (size_t)r, &st) < 0 || st.tid != t->tid) {
			t->gone = true;
			continue;
		}
		snprintf(path, sizeof(path), "/proc/%d/task/%d/sched", t->tgid, t->tid);
		r = read_small_file(path, buf, sizeof(buf));
		bool parsed = r >= 0 && parse_sched_buf(buf, &sc) == 0;
		if (t->sched_error[0]) {
			/* its time is unknown, named already: kept while it is the same task in the
			 * same state */
			if (st.state != t->state || st.start_ticks != t->start_ticks) {
				t->gone = true;
				continue;
			}
		} else {
			if (!parsed && r >= 0) {
				char why[128];
				scan_unreadable(s, path, "%s at the last look; the task is left out",
				                sched_why(buf, r, &sc, why, sizeof(why)));
			}
			if (!parsed || !seen_still(&t->seen, &st, &sc)) {
				t->gone = true;
				continue;
			}
		}
		if (s->live)                      /* a replay's files stand still */
			recheck_times(t, mono);
	}
	drop_gone(s);
}

/* A runner's first read, as cpushare.c takes it. */
static struct share_read runner_read(const struct cgw_runner *r)
{
	return (struct share_read){ .mono_ms = r->read_mono_ms, .sum_exec_ms = r->sum_exec_ms,
	                            .exec_start_ms = r->exec_start_ms, .nr_switches = r->nr_switches,
	                            .have_switches = r->have_switches, .state = 'R', .cpu = r->cpu,
	                            .policy = r->policy, .rt_priority = r->rt_priority };
}

/* At the second look, how much of its CPU each runnable task on a starved task's CPU took:
 * the spinner is the one near 100 %. A task its CPU ran throughout the window is 100 %
 * whatever the kernel accounted (a lone SCHED_FIFO task on a nohz_full CPU is accounted
 * about once a second: cpushare.c). The daemon measures over the whole interval since its
 * previous scan when that scan saw the same thread. Only live: a replay's files stand still. */
static void runner_shares(struct cgw_scan *s, const struct cgw_scan_opts *o)
{
	if (!s->live || s->nrunners == 0)
		return;
	struct share_read *bs = try_calloc(s->nrunners, sizeof(*bs));
	size_t *at = try_calloc(s->nrunners, sizeof(*at));   /* runner i's read: bs[at[i] - 1] */
	if (!bs || !at) {
		free(bs);
		free(at);
		return;
	}
	size_t nb = 0;
	for (size_t i = 0; i < s->nrunners; i++) {
		struct cgw_runner *r = &s->runners[i];
		bool wanted = false;
		for (size_t j = 0; j < s->n && !wanted; j++)
			wanted = s->t[j].suspect == SUSPECT_STARVED && s->t[j].cpu == r->cpu &&
			         s->t[j].tid != r->tid;
		if (!wanted)
			continue;
		char path[96], buf[FILE_BUF];
		struct cgw_sched sc;
		struct cgw_stat st;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", r->tgid, r->tid);
		ssize_t n = read_small_file(path, buf, sizeof(buf));
		if (n < 0 || parse_stat_buf(buf, (size_t)n, &st) < 0 || st.tid != r->tid)
			continue;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/sched", r->tgid, r->tid);
		n = read_small_file(path, buf, sizeof(buf));
		if (n < 0)
			continue;
		if (parse_sched_buf(buf, &sc) < 0) {
			char why[128];
			scan_unreadable(s, path, "%s; its share of the CPU is unknown",
			                sched_why(buf, n, &sc, why, sizeof(why)));
			continue;
		}
		bs[nb] = (struct share_read){ .mono_ms = mono_ms(), .sum_exec_ms = sc.sum_exec_ms,
		                              .exec_start_ms = sc.exec_start_ms,
		                              .nr_switches = sc.nr_switches,
		                              .have_switches = sc.have_switches, .state = st.state,
		                              .cpu = st.cpu, .policy = st.policy,
		                              .rt_priority = st.rt_priority };
		at[i] = ++nb;
	}
	for (size_t i = 0; i < s->nrunners; i++) {
		struct cgw_runner *r = &s->runners[i];
		if (!at[i])
			continue;
		const struct share_read *b = &bs[at[i] - 1];
		bool on = share_on_cpu(bs, nb, at[i] - 1);
		struct share_read a = runner_read(r);
		enum share_how how;
		double share = cpu_share(&a, b, on, &how);
		if (share >= 0) {
			r->share = share;
			r->share_window_s = (b->mono_ms - a.mono_ms) / 1000.0;
			r->share_throughout = how == SHARE_RAN_THROUGHOUT;
		}
		for (size_t p = 0; p < o->nprev_runners; p++) {
			const struct cgw_runner *q = &o->prev_runners[p];
			if (q->tid != r->tid || q->cpu != r->cpu || b->sum_exec_ms < q->sum_exec_ms)
				continue;
			struct share_read qa = runner_read(q);
			enum share_how qhow;
			double w = b->mono_ms - qa.mono_ms, qs = cpu_share(&qa, b, on, &qhow);
			/* the longer window, but not an accounted share over a ran-throughout one */
			if (w / 1000.0 > r->share_window_s && qs >= 0 &&
			    (qhow == SHARE_RAN_THROUGHOUT || !r->share_throughout)) {
				r->share = qs;
				r->share_window_s = w / 1000.0;
				r->share_throughout = qhow == SHARE_RAN_THROUGHOUT;
			}
			break;
		}
	}
	free(bs);
	free(at);
}

/* se.exec_start is when a task last ran. A task woken a moment ago from a long sleep is R
 * with an old exec_start, yet it is not starved: it will run within milliseconds. So an R
 * suspect is looked at again after STARVE_CONFIRM_MS and kept only if it is still runnable
 * and has not run since (the hung-task detector's own test, over a short window). */
#define STARVE_CONFIRM_MS 100

void detect_confirm_starved(struct cgw_scan *s, const struct cgw_scan_opts *o)
{
	bool any = false;
	for (size_t i = 0; i < s->n && !any; i++)
		any = s->t[i].suspect == SUSPECT_STARVED;
	if (!any)
		return;
	if (s->live)
		usleep(STARVE_CONFIRM_MS * 1000);
	runner_shares(s, o);
	detect_recheck(s, SUSPECT_STARVED, NULL);
}

/* One D or R thread as the walk read it: timed, and kept as a task when it is a suspect.
 * A sched that could not be used leaves its time unknown: a D thread old enough to be past
 * the threshold is still kept, with the reason. */
struct cgw_task *detect_thread(struct cgw_scan *s, const struct cgw_scan_opts *o,
                               const struct cgw_sighting *g)
{
	const struct cgw_stat *st = g->st;
	const struct cgw_sched *sc = g->sc;
	int tgid = g->tgid;
	double mono = g->mono_ms;
	const char *why = g->sched_error;
	bool bad = why[0] != '\0';
	struct cgw_seen w = { .tid = st->tid, .start_ticks = st->start_ticks };
	seen_update(&w, o->history && !bad ? history_find(o->history, st->tid, st->start_ticks) : NULL,
	            st->state, sc, st->cpu, mono);
	if (o->history && !bad && !s->relook)
		s->nomem |= history_add(o->history, &w) < 0;
	double age = detect_age(s, st->start_ticks, mono);
	struct cgw_now now = { s->live ? s->now_ms + (mono - s->now_mono_ms) : s->now_ms,
	                       BOUND_EXACT };        /* the reader's own clock at this read */
	struct cgw_dur d;
	if (st->state == 'D' && w.exec_start_ms > 0 && (o->all || age < 0 || age >= o->blocked_s)) {
		/* D tasks are few: timed on their own CPU's clock at once, for the CPU clocks drift
		 * apart (source-cpuclock.c) and a first look on the reader's would be off by that much */
		detect_want_clock(s, w.clock_cpu);
		d = seen_duration(&w, scan_cpu_now(s, w.clock_cpu, mono), mono, age);
	} else {
		/* R tasks are many: a first look on the reader's clock, without the age test that
		 * the drift could fail; the candidates' own clocks are read after the walk */
		d = seen_duration(&w, now, mono, w.exec_start_ms > 0 ? -1 : age);
		if (s->relook || s->replay_clocks) {   /* its own CPU's clock knows better */
			struct cgw_dur f = seen_duration(&w, scan_cpu_now(s, st->cpu, mono), mono, -1);
			if (f.bound != BOUND_UNKNOWN && f.s > d.s)
				d = f;
		}
	}
	/* se.exec_start reset to 0 (moved while still queued) and nothing remembered of it: the
	 * iterator's rq-clock time cannot be reset so, and is trusted, within the task's age */
	bool from_alt = false;
	if (st->state == 'D' && !bad && w.exec_start_ms <= 0 && g->have_alt && g->alt_s >= 0 &&
	    (age < 0 || g->alt_s <= age + 0.1)) {
		d = (struct cgw_dur){ age >= 0 && g->alt_s > age ? age : g->alt_s, BOUND_EXACT };
		from_alt = true;
	}
	enum cgw_suspect sus = detect_suspect(st->state, d, o);
	bool drain_only = sus == SUSPECT_NONE && !bad &&
	                  drain_candidate(st->state, d, st->comm, st->comm_len, o);
	if (drain_only)
		sus = SUSPECT_STARVED;
	/* a D task whose CPU's clock was not read (a hop that did not get onto that CPU within
	 * the deadline: a CPU saturated, or not in cgwatch's cpuset) and that no runnable task
	 * there gave a floor for yet, the walk not having reached one: kept, for detect_clocks
	 * times it after the walk, with every floor the walk found */
	if (sus == SUSPECT_NONE && !bad && st->state == 'D' && w.exec_start_ms > 0 &&
	    d.bound == BOUND_UNKNOWN && (age < 0 || age >= o->blocked_s))
		sus = SUSPECT_BLOCKED;
	if (bad) {
		/* counted as untimed, and reported (not as a finding) when it may be past the
		 * threshold: a file that cannot be read makes no task vanish */
		detect_count_untimed(s, st->state, d, age, o);
		if (st->state == 'D' && (age < 0 || age >= o->blocked_s))
			sus = SUSPECT_BLOCKED;
	}
	if (sus == SUSPECT_NONE) {
		if (!bad)
			detect_count_untimed(s, st->state, d, age, o);
		return NULL;
	}

	struct cgw_task *t = scan_push(s);
	if (!t)
		return NULL;
	t->tid = st->tid;
	t->tgid = tgid;
	t->ppid = st->ppid;
	t->start_ticks = st->start_ticks;
	t->state = st->state;
	memcpy(t->comm, st->comm, sizeof(t->comm));
	t->comm_len = st->comm_len;
	t->flags = st->flags;
	t->cpu = st->cpu;
	t->policy = st->policy;
	t->rt_priority = st->rt_priority;
	t->exec_start_ms = sc->exec_start_ms;
	t->have_delay = sc->have_delay;
	t->run_delay_ns = sc->run_delay_ns;
	t->pcount = sc->pcount;
	t->seen = w;
	t->read_mono_ms = mono;
	t->now = now;
	t->age_s = age;
	t->blocked_s = d.s;
	t->bound = d.bound;
	t->suspect = sus;
	t->drain_only = drain_only;
	t->queued_s = st->state == 'R' && g->have_queued ? g->queued_s : -1;
	snprintf(t->sched_error, sizeof(t->sched_error), "%s", why);
	snprintf(t->duration_from, sizeof(t->duration_from), "%s",
	         from_alt ? "sched_info.last_arrival" :
	         w.exec_start_ms > 0 && d.bound == BOUND_EXACT ? "se.exec_start" : "");
	return t;
}

/* A runnable thread's first look is on the reader's clock, and CPU clocks drift apart: after a
 * stall of the host (steal time, a soft lockup) by seconds, with the reader's behind. So a
 * runner that the first look found fresh is looked at again when its own CPU's floor (the
 * latest exec_start of a runnable task there, complete once the walk is done: same clock, a
 * lower bound of now) shows it waiting past the threshold. */
static void relook_runners(struct cgw_scan *s, const struct cgw_scan_opts *o)
{
	if (!s->live)
		return;                   /* a replay has one clock, the capture's */
	size_t n = s->nrunners;       /* a second look pushes no runner */
	for (size_t i = 0; i < n; i++) {
		const struct cgw_runner *r = &s->runners[i];
		if (r->cpu < 0 || r->cpu >= CGW_MAX_CPUS || r->exec_start_ms <= 0 ||
		    s->rq_latest[r->cpu].exec_start_ms - r->exec_start_ms <
		    starved_min_s(r->comm, r->comm_len, o) * 1000)
			continue;
		bool listed = false;
		for (size_t k = 0; k < s->n && !listed; k++)
			listed = s->t[k].tid == r->tid;
		if (listed)
			continue;
		scan_thread_again(s, o, r->tgid, r->tid, detect_thread);
	}
}

/* Is t a task in D that waits for an LRU drain's per-CPU work (flush_work in the drain)? */
static bool drains(const struct cgw_task *t)
{
	return t->state == 'D' && t->bound != BOUND_UNKNOWN &&
	       (task_has_frame(t, "__lru_add_drain_all") || task_has_frame(t, "lru_add_drain_all") ||
	        task_has_frame(t, "lru_cache_disable")) &&
	       (task_has_frame(t, "__flush_work") || task_has_frame(t, "flush_work"));
}

/* The drain queued its work on every CPU a moment before it blocked, so a kworker that has
 * not run since has waited at least as long as the drain has; DRAIN_SLACK_S allows for a
 * nohz_full CPU's clock, read only as a floor from its last tick (about a second behind). */
#define DRAIN_SLACK_S 1.0

void detect_drain_kworkers(struct cgw_scan *s)
{
	double drain = -1;                   /* the shortest wait of a drain in D */
	for (size_t i = 0; i < s->n; i++)
		if (drains(&s->t[i]) && (drain < 0 || s->t[i].blocked_s < drain))
			drain = s->t[i].blocked_s;
	for (size_t i = 0; i < s->n; i++) {
		struct cgw_task *t = &s->t[i];
		if (t->drain_only && (drain < 0 || t->blocked_s + DRAIN_SLACK_S < drain))
			t->gone = true;
	}
	drop_gone(s);
}

void detect_replay_verdict(struct cgw_scan *s)
{
	if (s->live || !s->replay_clocks)
		return;
	for (size_t i = 0; i < s->n; i++)
		if (!clocks_suspect(s->replay_clocks, s->t[i].tid, s->t[i].start_ticks))
			s->t[i].gone = true;
	drop_gone(s);
}

int scan_run(struct cgw_scan *s, const struct cgw_scan_opts *o)
{
	uint64_t t0 = now_usec();
	int r = scan_begin(s, o);
	if (r < 0)
		return r;
	if (o->fdcache)
		fdcache_begin(o->fdcache);
	if (o->history)
		history_begin(o->history);
	r = o->bpf ? bpfscan_walk(o->bpf, s, o, detect_thread) : scan_walk(s, o, detect_thread);
	if (r == -EIO && o->bpf) {            /* not the iterator's records: /proc, this once */
		snprintf(s->source, sizeof(s->source), "proc");
		snprintf(s->source_why, sizeof(s->source_why), "%s", s->fatal);
		s->fatal[0] = '\0';
		log_warnx("%s; this scan reads /proc", s->source_why);
		scan_discard_walk(s);
		if (o->history)
			history_begin(o->history);
		r = scan_walk(s, o, detect_thread);
	}
	if (r == 0 && !s->nomem)
		relook_runners(s, o);
	if (o->fdcache)
		fdcache_end(o->fdcache);
	if (r < 0)
		return r;
	if (s->nomem) {                       /* incomplete: not a picture of the host */
		snprintf(s->fatal, sizeof(s->fatal), "out of memory after %zu threads: the scan "
		         "is incomplete and not used", s->threads);
		return -ENOMEM;
	}
	if (o->history)
		history_commit(o->history);

	detect_clocks(s, o);
	detect_confirm_starved(s, o);
	if (o->bpf && !strcmp(s->source, "bpf"))
		bpfscan_stacks(o->bpf, s, o->read_timeout_ms);
	if ((r = scan_suspects(s, o)) < 0)
		return r;
	detect_drain_kworkers(s);
	/* many suspects: one more walk of the program, in place of two files each */
	const struct cgw_bpfscan *relook = NULL;
	const char *pause = getenv("CGWATCH_TEST_LASTLOOK_PAUSE");   /* tests/live/lastlook.sh */
	if (pause && s->live) {
		log_debug("test: %s s before the last look", pause);
		usleep((useconds_t)(atof(pause) * 1e6));
	}
	if (o->bpf && !strcmp(s->source, "bpf") && s->n >= RELOOK_MIN &&
	    s->n * RELOOK_PER_THREADS >= s->threads) {
		uint64_t r0 = now_usec();
		int e = bpfscan_relook(o->bpf);
		if (e == 0)
			relook = o->bpf;
		log_debug("last look at %zu suspects: %s (%.2f ms)", s->n, e == 0 ?
		          "the program's records read again" : strerror(-e),
		          (double)(now_usec() - r0) / 1000.0);
	}
	detect_recheck(s, SUSPECT_NONE, relook);
	detect_replay_verdict(s);
	s->scan_usec = now_usec() - t0;
	if (s->nomem) {
		snprintf(s->fatal, sizeof(s->fatal), "out of memory reading the suspects: the scan "
		         "is incomplete and not used");
		return -ENOMEM;
	}
	return 0;
}
