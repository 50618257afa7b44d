/* source-cpuclock.c: "now" on the clock of each CPU.
 *
 * se.exec_start is stamped with rq_clock_task of the CPU the task last ran on. That clock
 * leaves out the time the CPU spent in interrupts and, on a VM, stolen by the hypervisor, so
 * the clocks of two CPUs drift apart over uptime (measured on this VM: CPU 1 0.30 s behind
 * CPU 0 after 78 minutes; /sys/kernel/debug/sched/debug, .clock - .clock_task). Comparing a
 * task's exec_start from one CPU with the reader's own from another is off by that drift.
 *
 * So the reader hops onto each CPU it may run on where a suspect last ran, and reads its own
 * se.exec_start there: that CPU's clock, now. CPUs it may not run on (isolated ones, for the
 * daemon pinned to the housekeeping CPUs) get only a floor (source-tasks.c): the latest exec_start of
 * a runnable task seen there, and the durations timed against it are lower bounds. */
#include <errno.h>
#include <sched.h>
#include <string.h>

#include "cgwatch.h"

size_t cpuclock_measure(const struct cgw_cpus *want, struct cgw_cpuclock *out, size_t cap)
{
	cpu_set_t *orig = CPU_ALLOC(CGW_MAX_CPUS), *one = CPU_ALLOC(CGW_MAX_CPUS);
	size_t size = CPU_ALLOC_SIZE(CGW_MAX_CPUS), n = 0;
	if (!orig || !one || sched_getaffinity(0, size, orig) < 0)
		goto out;
	for (unsigned c = 0; c < CGW_MAX_CPUS && n < cap; c++) {
		if (!cpus_test(want, c) || !CPU_ISSET_S(c, size, orig))
			continue;
		CPU_ZERO_S(size, one);
		CPU_SET_S(c, size, one);
		char buf[4096];
		struct cgw_sched sc;
		/* the call returns on CPU c: exec_start is c's clock when we were put there */
		if (sched_setaffinity(0, size, one) < 0 ||
		    read_small_file("/proc/thread-self/sched", buf, sizeof(buf)) < 0 ||
		    parse_sched_buf(buf, &sc) < 0)
			continue;
		out[n++] = (struct cgw_cpuclock){ (int)c, sc.exec_start_ms, mono_ms() };
	}
	sched_setaffinity(0, size, orig);
out:
	if (orig)
		CPU_FREE(orig);
	if (one)
		CPU_FREE(one);
	return n;
}

bool cpuclock_at(const struct cgw_cpuclock *m, size_t n, int cpu, double at_mono_ms,
                 double *out)
{
	for (size_t i = 0; i < n; i++)
		if (m[i].cpu == cpu) {
			*out = m[i].clock_ms + (at_mono_ms - m[i].mono_ms);
			return true;
		}
	return false;
}
