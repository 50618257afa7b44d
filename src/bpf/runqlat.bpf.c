/* runqlat.bpf.c: run-queue latency inside the kernel. One tp_btf program on sched_switch,
 * built on the scheduler's own accounting (CONFIG_SCHED_INFO, what /proc/TID/schedstat
 * shows): sched_info.run_delay, the time a task has waited runnable on a run queue, from
 * every enqueue (a wakeup, a new task, a preempted task left runnable) to when it got the
 * CPU, and sched_info.pcount, the times it got one. When a task leaves the CPU it has
 * arrived once since it last left: the growth of its run_delay since then is that one wait,
 * exactly as the kernel measured it. So sched_switch does what runqlat's three tracepoints
 * do (sched_wakeup, sched_wakeup_new, and sched_switch with the prev task's state), and the
 * only per-task state is the two counters at its last switch-out, in task-local storage
 * (no map keyed by pid, no lock on the lookup). The wait is counted on the CPU it ran on.
 * A task first seen at a switch-out has no counters to compare with: that switch-out only
 * starts its count. A new task would lose its first wait that way (wake_up_new_task to its
 * first run: under a fork storm, a third of all waits), so a second program on
 * sched_wakeup_new gives every task created since the load its counters at creation. The
 * sched_info wait runs from the enqueue, kept across a wakeup while queued and across a
 * migration, to the switch-in: a preempted task waits from its preemption.
 *
 * Per CPU (a per-CPU array: no lock, no shared cache line) and per interval: a log2
 * histogram of waits in us, their count, sum and maximum, the same histogram of the waits of
 * tasks that asked for less CPU (nice > 0, SCHED_BATCH, SCHED_IDLE) and the longest of the
 * others, the 4 longest with the task, and
 * the task that ran longest without a switch (prev's time since it was switched in). Two
 * slots, chosen by epoch: the reader flips epoch, then reads and zeroes the other slot.
 *
 * CO-RE, as taskiter.bpf.c: the few kernel fields read are declared with
 * preserve_access_index and relocated against the running kernel's BTF. */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "runqrec.h"

char LICENSE[] SEC("license") = "GPL";

struct sched_info {
	unsigned long pcount;
	unsigned long long run_delay;
} __attribute__((preserve_access_index));
struct task_struct {
	int pid, tgid;
	int static_prio;
	unsigned int rt_priority, policy;
	struct sched_info sched_info;
	char comm[16];
} __attribute__((preserve_access_index));

__u32 epoch = 0;                        /* the slot written: epoch & 1 (the reader flips it) */

struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 2);
	__type(key, __u32);
	__type(value, struct runqrec);
} stats SEC(".maps");

struct seen {                          /* a task's counters at its last switch-out */
	__u64 run_delay, pcount;
	__u32 known, pad;              /* 1: they are its (else first seen: nothing to compare) */
};
struct {
	__uint(type, BPF_MAP_TYPE_TASK_STORAGE);
	__uint(map_flags, BPF_F_NO_PREALLOC);
	__type(key, int);
	__type(value, struct seen);
} seen SEC(".maps");

struct running { __u64 since; __s32 tid; __u32 pad; };
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct running);
} running SEC(".maps");

static __always_inline void fill(struct runqrec_task *r, struct task_struct *t, __u64 ns)
{
	r->tid = t->pid;
	r->tgid = t->tgid;
	r->policy = t->policy;
	r->rt_priority = t->rt_priority;
	r->nice = t->static_prio - 120;   /* MAX_RT_PRIO + NICE_WIDTH / 2 */
	r->ns = ns;
	__builtin_memcpy(r->comm, t->comm, sizeof(r->comm));
}

/* Did t ask for less CPU than a fair task at nice 0: SCHED_OTHER at nice > 0, SCHED_BATCH,
 * SCHED_IDLE. */
static __always_inline int low_share(struct task_struct *t)
{
	__u32 p = t->policy;
	return p == 3 || p == 5 || (p == 0 && t->static_prio > 120);
}

static __always_inline __u32 log2_u64(__u64 v)
{
	__u32 r = 0;
#pragma unroll
	for (int i = 5; i >= 0; i--) {
		__u32 sh = 1u << i;
		if (v >> sh) {
			v >>= sh;
			r += sh;
		}
	}
	return r;
}

SEC("tp_btf/sched_switch")
int cgw_switch(__u64 *ctx)
{
	/* sched_switch(bool preempt, struct task_struct *prev, struct task_struct *next, ...) */
	struct task_struct *prev = (struct task_struct *)ctx[1];
	struct task_struct *next = (struct task_struct *)ctx[2];
	__u64 now = bpf_ktime_get_ns();
	__u32 k = epoch & 1, z = 0;
	struct runqrec *s = bpf_map_lookup_elem(&stats, &k);
	struct running *c = bpf_map_lookup_elem(&running, &z);
	if (!s || !c)
		return 0;
	int ptid = prev->pid;
	if (ptid && c->tid == ptid && c->since && now > c->since) {
		__u64 ran = now - c->since;
		if (ran > s->held.ns)
			fill(&s->held, prev, ran);
	}
	c->since = now;
	c->tid = next->pid;
	if (!ptid)
		return 0;                     /* the idle task */
	struct seen *st = bpf_task_storage_get(&seen, prev, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!st)
		return 0;
	__u64 rd = prev->sched_info.run_delay, pc = prev->sched_info.pcount;
	__u64 last_rd = st->run_delay, last_pc = st->pcount;
	__u32 known = st->known;
	st->run_delay = rd;
	st->pcount = pc;
	st->known = 1;
	if (!known || pc != last_pc + 1 || rd < last_rd)
		return 0;                     /* first seen, or switches missed */
	__u64 d = rd - last_rd;
	s->count++;
	s->sum_ns += d;
	if (d > s->max_ns)
		s->max_ns = d;
	__u32 b = log2_u64(d / 1000);
	if (b > RUNQREC_BUCKETS - 1)
		b = RUNQREC_BUCKETS - 1;
	s->buckets[b & (RUNQREC_BUCKETS - 1)]++;
	if (low_share(prev)) {
		s->low_count++;
		s->low_buckets[b & (RUNQREC_BUCKETS - 1)]++;
	} else if (d > s->full_max_ns) {
		s->full_max_ns = d;
	}
	if (d <= s->waited[RUNQREC_WAITED - 1].ns)
		return 0;
#pragma unroll
	for (int i = RUNQREC_WAITED - 1; i > 0; i--) {
		if (d <= s->waited[i - 1].ns) {
			fill(&s->waited[i], prev, d);
			return 0;
		}
		s->waited[i] = s->waited[i - 1];
	}
	fill(&s->waited[0], prev, d);
	return 0;
}

/* A new task, queued for its first run: its counters as they start (zero), so that its first
 * switch-out counts that first wait. */
SEC("tp_btf/sched_wakeup_new")
int cgw_wakeup_new(__u64 *ctx)
{
	/* sched_wakeup_new(struct task_struct *p) */
	struct task_struct *p = (struct task_struct *)ctx[0];
	struct seen *st = bpf_task_storage_get(&seen, p, 0, BPF_LOCAL_STORAGE_GET_F_CREATE);
	if (!st)
		return 0;
	st->run_delay = p->sched_info.run_delay;
	st->pcount = p->sched_info.pcount;
	st->known = 1;
	return 0;
}
