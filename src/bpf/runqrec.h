/* runqrec.h: what the run-queue latency program (runqlat.bpf.c) keeps per CPU, read by
 * source-runq.c. Shared by the BPF program and user space: fixed-width fields only. */
#ifndef CGW_RUNQREC_H
#define CGW_RUNQREC_H

#define RUNQREC_BUCKETS 32             /* log2 buckets of waits in us (RUNQ_BUCKETS) */
#define RUNQREC_WAITED 4               /* the longest waits kept */

struct runqrec_task {
	__s32 tid, tgid;
	__u32 policy, rt_priority;
	__s32 nice, pad;                   /* static_prio - 120 */
	__u64 ns;                          /* the wait, or the time on the CPU */
	char comm[16];
};

struct runqrec {                           /* one CPU over one interval */
	__u64 count, sum_ns, max_ns, pad;
	__u64 buckets[RUNQREC_BUCKETS];
	/* of those, the waits of tasks that asked for less CPU (SCHED_OTHER at nice > 0,
	 * SCHED_BATCH, SCHED_IDLE); and the longest of the others */
	__u64 low_count, full_max_ns;
	__u64 low_buckets[RUNQREC_BUCKETS];
	struct runqrec_task waited[RUNQREC_WAITED];   /* longest first */
	struct runqrec_task held;          /* the longest time a task ran without a switch */
};

#endif
