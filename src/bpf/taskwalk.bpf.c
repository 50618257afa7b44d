/* taskwalk.bpf.c: the scan inside the kernel, as a syscall program run by BPF_PROG_TEST_RUN
 * that walks the task list with the open-coded task iterator (bpf_iter_task_new, kernel 6.7
 * on): each process in list order, then its threads, with no pid lookup per thread (the cost
 * of the iter/task program, taskiter.bpf.c). It writes the same struct taskrec records
 * (taskrec.h, taskfill.h) into a ring buffer: one for each D or R thread, each process's
 * main thread, and a TASKREC_END record when the walk is done.
 *
 * A run holds the RCU read lock for its whole walk, and the kernel does not preempt it
 * (PREEMPT_DYNAMIC none): so a run stops after budget_ns of walking (checked every 16
 * threads: a D thread's stack takes microseconds), and the reader runs it again, from where
 * it stopped, until `done`. A run resumes at the process it stopped in, found by its pid and
 * start time (one read per process before it, not counted in the budget: no thread is
 * passed over), and inside it at the thread it stopped at (bpf_task_from_pid): no thread is
 * walked twice. Where that thread or process has exited in between, the run stops at once
 * with `lost` and the reader starts the walk over. A full ring buffer is a stop as well.
 *
 * The kernel stacks are read after the RCU section, not in it: since 6.18 the verifier
 * refuses bpf_get_task_stack (a sleepable helper in this sleepable program) between
 * bpf_rcu_read_lock() and bpf_rcu_read_unlock(). The walk notes each thread whose record
 * needs its stack (a D thread, an R one off its CPU: few) by tid and start time, up to
 * WALK_DEFER a run (a full list is a stop too); after the unlock each is taken again by
 * its tid (bpf_task_from_pid, a held reference), and if it is still the same task its
 * record is written then, stack and all, as it is at that moment. One that exited in between
 * gets none. What the ring buffer had no room for is written first at the next run. */
#include <linux/types.h>
#include <linux/bpf.h>
#include <stdbool.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "taskrec.h"
#include "taskfill.h"

char LICENSE[] SEC("license") = "GPL";   /* bpf_get_task_stack is GPL-only */

struct bpf_iter_task { __u64 __opaque[3]; } __attribute__((aligned(8)));
#define BPF_TASK_ITER_ALL_PROCS 0
#define BPF_TASK_ITER_PROC_THREADS 2
extern int bpf_iter_task_new(struct bpf_iter_task *it, struct task_struct *task,
                             unsigned int flags) __ksym;
extern struct task_struct *bpf_iter_task_next(struct bpf_iter_task *it) __ksym;
extern void bpf_iter_task_destroy(struct bpf_iter_task *it) __ksym;
extern struct task_struct *bpf_task_from_pid(__s32 pid) __ksym;
extern struct task_struct *bpf_task_acquire(struct task_struct *p) __ksym;
extern void bpf_task_release(struct task_struct *p) __ksym;
extern void bpf_rcu_read_lock(void) __ksym;
extern void bpf_rcu_read_unlock(void) __ksym;
struct bpf_iter_num { __u64 __opaque[1]; } __attribute__((aligned(8)));
extern int bpf_iter_num_new(struct bpf_iter_num *it, int start, int end) __ksym;
extern int *bpf_iter_num_next(struct bpf_iter_num *it) __ksym;
extern void bpf_iter_num_destroy(struct bpf_iter_num *it) __ksym;

/* threads whose records wait for their stacks, a run at most (a full list stops the walk) */
#define WALK_DEFER 128

/* set by the reader before a run */
__u32 emit_all = 0;
__s32 skip_tgid = 0;                    /* the reader's own process: neither counted nor written */
__u64 budget_ns = 0;                    /* a run's walk stops after this long */
__s32 resume_tgid = 0;                  /* 0: a new walk; else the process to resume in, */
__u64 resume_start = 0;                 /* its start_boottime, */
__s32 resume_tid = 0;                   /* and the thread to resume at (its first: the leader) */
/* set by the run */
__u32 counted = 0;                      /* threads walked, this walk (the reader zeroes it) */
__u32 done = 0;                         /* 1: the walk is over, its end record written */
__u32 lost = 0;                         /* 1: the thread to resume at has exited: walk again */
__u32 full = 0;                         /* 1: stopped on a full ring buffer */
__u32 end_pending = 0;                  /* 1: walked to the end, the end record not written */
__u64 took_ns = 0;                      /* how long this run held the RCU read lock */
/* the threads noted for their stacks (the reader zeroes defer_n at a new walk): tid, start
 * time, 1 for a process's main thread; those before defer_next are written */
__u32 defer_n = 0, defer_next = 0;
__s32 defer_tid[WALK_DEFER];
__u64 defer_start[WALK_DEFER];
__u8 defer_leader[WALK_DEFER];
/* 0, read from memory: the loops' counters start unknown to the verifier, which then sees
 * every turn of a loop as the same state (from known constants it would follow each turn) */
__u32 origin = 0;

struct {
	__uint(type, BPF_MAP_TYPE_RINGBUF);
	__uint(max_entries, 256 << 10);  /* about 1,400 records: a run stops when it is full */
} out SEC(".maps");

/* s's record into the ring buffer: 0, or -1 where it is full */
static __always_inline int put(struct scratch *s)
{
	__u32 len = TASKREC_SIZE + (__u32)s->r.nframes * 8;
	if (len > sizeof(*s))
		len = sizeof(*s);
	return bpf_ringbuf_output(&out, s, len, 0) ? -1 : 0;
}

/* Thread t of process p walked: its record written if it gets one, or t noted for its stack.
 * 0, or 1 to stop here (the budget spent, the ring buffer or the list of noted threads
 * full), the place to resume at set. */
static __always_inline int walk_one(struct task_struct *p, struct task_struct *t,
                                    struct scratch *s, __u32 *n, __u64 deadline)
{
	__u32 d = defer_n;
	int kind;
	if (((*n & 15) == 15 && bpf_ktime_get_ns() > deadline) || d >= WALK_DEFER)
		goto stop;
	kind = task_fill(t, s, emit_all, t == p, false);
	if (kind == TASKFILL_DEFER) {
		defer_tid[d] = t->pid;
		defer_start[d] = t->start_boottime;
		defer_leader[d] = t == p;
		defer_n = d + 1;
	} else if (kind && put(s)) {
		full = 1;
		goto stop;
	}
	(*n)++;
	return 0;
stop:
	resume_tgid = p->pid;
	resume_start = p->start_boottime;
	resume_tid = t->pid;
	return 1;
}

/* The records of the noted threads not yet written, with their stacks (outside the RCU
 * section): 0, or -1 where the ring buffer filled (the rest kept for the next run). */
static __always_inline int write_deferred(struct scratch *s)
{
	struct bpf_iter_num it;
	int *i, ret = 0;
	bpf_iter_num_new(&it, 0, WALK_DEFER);
	while ((i = bpf_iter_num_next(&it))) {
		__u32 k = defer_next;
		if (k >= defer_n || k >= WALK_DEFER)
			break;
		struct task_struct *t = bpf_task_from_pid(defer_tid[k]);
		if (t) {
			int kind = 0;
			if (t->start_boottime == defer_start[k])
				kind = task_fill(t, s, emit_all, defer_leader[k], true);
			bpf_task_release(t);
			if (kind && put(s)) {
				ret = -1;
				break;
			}
		}
		defer_next = k + 1;
	}
	bpf_iter_num_destroy(&it);
	return ret;
}

SEC("syscall")
int cgw_walk(void *ctx)
{
	struct bpf_iter_task procs, threads;
	struct task_struct *p, *t;
	__u32 zero = 0, n = origin;
	int stop = 0;
	struct scratch *s = bpf_map_lookup_elem(&buf, &zero);
	(void)ctx;
	if (!s)
		return 1;
	__s32 want = resume_tgid, want_tid = resume_tid;
	__u64 want_start = resume_start;
	done = lost = full = 0;
	if (write_deferred(s)) {              /* what the last run had no room for */
		full = 1;
		return 0;
	}
	defer_n = defer_next = 0;
	if (end_pending)
		goto end;
	__u64 began = bpf_ktime_get_ns(), deadline = began + budget_ns;
	bpf_rcu_read_lock();
	bpf_iter_task_new(&procs, 0, BPF_TASK_ITER_ALL_PROCS);
	while ((p = bpf_iter_task_next(&procs))) {
		int pid = p->pid;
		if (!pid)
			continue;                     /* init_task, the idle task */
		if (want) {                       /* passing over the processes walked */
			if (pid != want || p->start_boottime != want_start)
				continue;
			want = 0;
			deadline = bpf_ktime_get_ns() + budget_ns;   /* the walk's budget, from here */
			if (want_tid != pid) {        /* inside it: from that thread on */
				struct task_struct *r = bpf_task_from_pid(want_tid);
				if (!r) {
					stop = 2;
					break;
				}
				if (r->tgid != pid) {
					bpf_task_release(r);
					stop = 2;
					break;
				}
				bpf_iter_task_new(&threads, r, BPF_TASK_ITER_PROC_THREADS);
				while ((t = bpf_iter_task_next(&threads))) {
					if (skip_tgid && pid == skip_tgid)
						break;
					stop = walk_one(p, t, s, &n, deadline);
					if (stop)
						break;
				}
				bpf_iter_task_destroy(&threads);
				bpf_task_release(r);
				if (stop)
					break;
				continue;
			}
		}
		if (skip_tgid && pid == skip_tgid)
			continue;
		if (p->signal->nr_threads <= 1) { /* most processes: its one thread */
			stop = walk_one(p, p, s, &n, deadline);
			if (stop)
				break;
			continue;
		}
		struct task_struct *a = bpf_task_acquire(p);   /* the threads' iterator takes a */
		if (!a)                                        /* held task */
			continue;
		bpf_iter_task_new(&threads, a, BPF_TASK_ITER_PROC_THREADS);
		while ((t = bpf_iter_task_next(&threads))) {
			stop = walk_one(p, t, s, &n, deadline);
			if (stop)
				break;
		}
		bpf_iter_task_destroy(&threads);
		bpf_task_release(a);
		if (stop)
			break;
	}
	bpf_iter_task_destroy(&procs);
	bpf_rcu_read_unlock();
	took_ns = bpf_ktime_get_ns() - began;
	counted += n;
	if (want && !stop)
		stop = 2;                         /* the process to resume in is gone */
	if (stop == 2) {
		lost = 1;
		defer_n = 0;
		return 0;
	}
	if (write_deferred(s)) {
		full = 1;
		end_pending = !stop;              /* walked to the end: the end record next */
		return 0;
	}
	if (stop)
		return 0;
end:
	end_fill(&s->r, counted);
	if (bpf_ringbuf_output(&out, &s->r, sizeof(s->r), 0)) {
		full = 1;                         /* the end record alone, after a drain */
		end_pending = 1;
		return 0;
	}
	end_pending = 0;
	resume_tgid = 0;
	done = 1;
	return 0;
}
