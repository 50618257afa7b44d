/* detect-duration.c: how long a task has been off the CPU: a fact or a bound, never a guess.
 *
 * se.exec_start in /proc/TID/sched is when a task last left the CPU, on the scheduler clock of
 * that CPU; "now" on the same clock minus it is how long a D task has been blocked, or an R
 * task has waited. Two kernel facts bound what that value can say (checked on 6.18):
 *
 *  - Moving a task that is still queued resets its se.exec_start to 0 until it next runs.
 *    Under EEVDF's delayed dequeue a task that has just blocked is still queued, so an
 *    affinity change or the load balancer can leave a D task with 0 for as long as it sleeps
 *    (seen here: 18 of 60 tasks blocked on FUSE while two CPU hogs ran and `taskset` moved
 *    them, each with nr_migrations 1 and nr_switches 1). A task forked but not yet run has 0
 *    too. So 0 means "unknown", never a time.
 *  - nr_switches counts the times a task left the CPU, and se.sum_exec_runtime grows while it
 *    runs: both unchanged between two reads, the task has not run in between (the kernel's
 *    hung-task detector's own test). So an exec_start remembered from an earlier read still
 *    holds after the kernel reset it, and a task seen in the same state at an earlier read has
 *    been in it at least since then: a lower bound.
 *
 * Every duration is capped by the task's age (its start time against the boot clock). A value
 * beyond the age by more than the clocks' slack cannot be the task's own: it is not used. */
#include <math.h>
#include <stdio.h>
#include <string.h>

#include "cgwatch.h"

/* /proc/uptime and the stat start time are in 10 ms steps; the per-CPU scheduler clocks drift
 * apart by a fraction of a second over hours (source-cpuclock.c corrects what it can reach). */
#define AGE_SLACK_S 0.1

void seen_update(struct cgw_seen *next, const struct cgw_seen *prev, char state,
                 const struct cgw_sched *sc, int cpu, double read_mono_ms)
{
	bool still = prev && sc->have_switches && prev->nr_switches == sc->nr_switches &&
	             prev->sum_exec_ms == sc->sum_exec_ms;
	next->state = state;
	next->nr_switches = sc->nr_switches;
	next->sum_exec_ms = sc->sum_exec_ms;
	if (sc->exec_start_ms > 0) {
		next->exec_start_ms = sc->exec_start_ms;
		next->clock_cpu = cpu;
	} else if (still && prev->exec_start_ms > 0) {
		next->exec_start_ms = prev->exec_start_ms;   /* reset since, but it has not run */
		next->clock_cpu = prev->clock_cpu;
	} else {
		next->exec_start_ms = 0;
		next->clock_cpu = cpu;
	}
	next->since_mono_ms = still && prev->state == state ? prev->since_mono_ms : read_mono_ms;
}

struct cgw_dur seen_duration(const struct cgw_seen *w, struct cgw_now now, double read_mono_ms,
                             double age_s)
{
	struct cgw_dur best = { 0, BOUND_UNKNOWN };
	/* only finite numbers are times (the parsers let no other through; this holds even so) */
	if (w->exec_start_ms > 0 && now.bound != BOUND_UNKNOWN && isfinite(w->exec_start_ms) &&
	    isfinite(now.ms)) {
		double s = (now.ms - w->exec_start_ms) / 1000.0;
		if (s < 0)
			s = 0;                  /* it ran after "now" was read */
		if (age_s < 0 || s <= age_s + AGE_SLACK_S) {
			if (age_s >= 0 && s > age_s)
				s = age_s;
			if (now.bound == BOUND_EXACT)
				return (struct cgw_dur){ s, BOUND_EXACT };
			best = (struct cgw_dur){ s, BOUND_LOWER };
		}
	}
	double lo = (read_mono_ms - w->since_mono_ms) / 1000.0;
	if (age_s >= 0 && lo > age_s)
		lo = age_s;
	if (isfinite(lo) && lo > 0 && lo > best.s)
		best = (struct cgw_dur){ lo, BOUND_LOWER };
	return best;
}

bool seen_still(const struct cgw_seen *w, const struct cgw_stat *st, const struct cgw_sched *sc)
{
	return st->state == w->state && st->start_ticks == w->start_ticks &&
	       sc->nr_switches == w->nr_switches && sc->sum_exec_ms == w->sum_exec_ms &&
	       (sc->exec_start_ms == 0 || sc->exec_start_ms == w->exec_start_ms);
}

double task_age(unsigned long long start_ticks, double uptime_s, long clk_tck)
{
	if (!(uptime_s > 0) || !isfinite(uptime_s) || clk_tck <= 0)
		return -1;
	double age = uptime_s - (double)start_ticks / (double)clk_tck;
	return age < 0 ? 0 : age;
}

const char *dur_text(struct cgw_dur d, char *buf, size_t cap)
{
	if (d.bound == BOUND_UNKNOWN)
		snprintf(buf, cap, "an unknown time");
	else
		snprintf(buf, cap, "%s%.1f s", d.bound == BOUND_LOWER ? "at least " : "", d.s);
	return buf;
}

const char *bound_name(enum cgw_bound b)
{
	return b == BOUND_LOWER ? "lower" : b == BOUND_UNKNOWN ? "unknown" : "exact";
}

enum cgw_bound bound_parse(const char *s)
{
	return strcmp(s, "lower") == 0 ? BOUND_LOWER : strcmp(s, "unknown") == 0 ? BOUND_UNKNOWN :
	       BOUND_EXACT;
}
