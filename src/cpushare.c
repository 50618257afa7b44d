/* cpushare.c: a thread's share of its CPU between two reads of its scheduler times, right
 * where nohz_full stops the tick.
 *
 * se.sum_exec_runtime (also schedstat's and stat's CPU time) grows only when the kernel
 * accounts the running thread: at a context switch, at the scheduler tick, when the thread is
 * read by some paths. A SCHED_FIFO thread alone on a nohz_full CPU has no switch and its tick
 * is stopped but for a residual 1 Hz one, so its accounted time stands still for up to a
 * second (seen on 6.1: schedstat read every 0.1 s gave 724 seven times, then 1752 nine
 * times). A 0.1 s window then reads 0 % for a 100 % spinner.
 *
 * Each accounting (update_curr) adds now - se.exec_start to sum_exec_runtime and sets
 * se.exec_start to now, so both grow by the same amount while the thread keeps the CPU; a
 * thread given the CPU gets se.exec_start = now and no time; a thread taken off it is
 * accounted, and counted in nr_switches. So a thread its CPU runs at the second read, not
 * switched out in between (nr_switches the same) and whose sum_exec_runtime grew exactly as
 * its exec_start (0 and 0 where nothing was accounted) held its CPU the whole window: 100 %.
 * Which thread the CPU runs: of the runnable threads read there, the one of the highest
 * class (deadline, then real-time by priority, then the rest), and of those the one given
 * the CPU last (the latest exec_start: only the running thread's moves). Otherwise the share
 * is the accounted time over the window, as before. Reading /proc/TID/stat of a thread running
 * on a nohz_full CPU accounts it on some kernels (Debian's 6.1 in the VM: task_cputime_adjusted
 * calls task_sched_runtime), so callers read stat before sched; schedstat alone stays stale.
 * Pure. */
#include <math.h>
#include <stddef.h>

#include "cgwatch.h"

/* sum_exec_runtime and exec_start print as ms with 6 decimals; a year of uptime in ms has
 * 17 digits, past a double's: equal within this */
#define SAME_GROWTH_MS 0.5

/* The scheduling class a thread runs in, as an order: SCHED_DEADLINE (6) first, then
 * SCHED_FIFO (1) and SCHED_RR (2) by priority, then everything else. */
static int share_rank(const struct share_read *r)
{
	if (r->policy == 6)
		return 200;
	if (r->policy == 1 || r->policy == 2)
		return 100 + (int)r->rt_priority;
	return 0;
}

bool share_on_cpu(const struct share_read *v, size_t n, size_t i)
{
	const struct share_read *me = &v[i];
	if (me->state != 'R' || me->cpu < 0 || me->exec_start_ms <= 0)
		return false;
	for (size_t j = 0; j < n; j++) {
		const struct share_read *o = &v[j];
		if (j == i || o->state != 'R' || o->cpu != me->cpu)
			continue;
		int ro = share_rank(o), rm = share_rank(me);
		if (ro > rm || (ro == rm && o->exec_start_ms > me->exec_start_ms))
			return false;
	}
	return true;
}

double cpu_share(const struct share_read *a, const struct share_read *b, bool on_cpu_at_b,
                 enum share_how *how)
{
	*how = SHARE_ACCOUNTED;
	double dt = b->mono_ms - a->mono_ms;
	if (!(dt > 0))
		return -1;
	if (on_cpu_at_b && a->state == 'R' && b->state == 'R' && a->cpu == b->cpu &&
	    a->have_switches && b->have_switches && a->nr_switches == b->nr_switches &&
	    a->exec_start_ms > 0 && b->exec_start_ms >= a->exec_start_ms &&
	    fabs((b->sum_exec_ms - a->sum_exec_ms) - (b->exec_start_ms - a->exec_start_ms)) <=
	    SAME_GROWTH_MS) {
		*how = SHARE_RAN_THROUGHOUT;
		return 1;
	}
	double d = b->sum_exec_ms - a->sum_exec_ms;
	return d > 0 ? d / dt : 0;
}
