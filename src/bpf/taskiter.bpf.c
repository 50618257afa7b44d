/* taskiter.bpf.c: the scan inside the kernel. An iter/task program: reading its iterator walks
 * every thread once and writes a struct taskrec (taskrec.h) for each D or R thread (with the
 * kernel stack of those off their CPU), for each process's main thread in another state (the
 * process list), and one TASKREC_END record last with the count. With emit_all set, every
 * thread gets a record.
 *
 * CO-RE: the kernel structs are the few fields read, declared here with preserve_access_index
 * and relocated by libbpf against the running kernel's BTF, so the object runs on any kernel
 * with BTF; fields some kernels lack are tested with bpf_core_field_exists. The task pointer
 * is typed (BTF): its fields are read by direct loads, which the verifier makes fault-safe,
 * cheaper than a bpf_probe_read_kernel call each (the walk's cost is mostly the kernel's own
 * pid lookups; this program's share was a third of the rest with the calls). */
#include <linux/types.h>
#include <linux/bpf.h>
#include <bpf/bpf_helpers.h>
#include <bpf/bpf_core_read.h>

#include "taskrec.h"

char LICENSE[] SEC("license") = "GPL";   /* bpf_get_task_stack is GPL-only */

#define TASK_RUNNING 0x0000
#define TASK_UNINTERRUPTIBLE 0x0002
#define TASK_NOLOAD 0x0400
#define TASK_IDLE (TASK_UNINTERRUPTIBLE | TASK_NOLOAD)
#define TASK_RTLOCK_WAIT 0x1000
#define TASK_FROZEN 0x8000
#define TASK_REPORT 0x7f

struct thread_info { unsigned int cpu; } __attribute__((preserve_access_index));
struct sched_entity {
	__u64 exec_start, sum_exec_runtime, prev_sum_exec_runtime;
} __attribute__((preserve_access_index));
struct sched_info {
	unsigned long pcount;
	unsigned long long run_delay, last_arrival, last_queued;
} __attribute__((preserve_access_index));
/* the locks task->blocker points at (CONFIG_DETECT_HUNG_TASK_BLOCKER, 6.16 on) */
typedef struct { long counter; } atomic_long_t;
struct mutex { atomic_long_t owner; } __attribute__((preserve_access_index));
struct semaphore { unsigned long last_holder; } __attribute__((preserve_access_index));
struct rw_semaphore { atomic_long_t owner; } __attribute__((preserve_access_index));
#define BLOCKER_TYPE_MASK 0x3UL         /* include/linux/hung_task.h: mutex 0, semaphore 1, */
#define OWNER_FLAGS_MASK 0x7UL          /* rw-semaphore reader 2, writer 3; flags in owners */
#define RWSEM_READER_OWNED 0x1UL

struct task_struct {
	struct thread_info thread_info;
	unsigned int __state;
	long state;                           /* before 5.14 */
	unsigned int cpu;                     /* where thread_info has none */
	unsigned int flags;
	int on_cpu;
	int prio;
	unsigned int rt_priority, policy;
	struct sched_entity se;
	struct sched_info sched_info;
	int exit_state;
	int pid, tgid;
	struct task_struct *real_parent;
	unsigned long nvcsw, nivcsw;
	__u64 start_boottime;
	char comm[16];
	unsigned long blocker;
} __attribute__((preserve_access_index));

struct seq_file;
struct bpf_iter_meta { struct seq_file *seq; __u64 session_id, seq_num; }
	__attribute__((preserve_access_index));
struct bpf_iter__task { struct bpf_iter_meta *meta; struct task_struct *task; }
	__attribute__((preserve_access_index));

/* set by the reader: a record for every thread; the reader's own process, left out (neither
 * counted nor written, as the /proc walk skips it) */
__u32 emit_all = 0;
__s32 skip_tgid = 0;

struct scratch {
	struct taskrec r;
	__u64 frames[TASKREC_MAX_FRAMES];
};
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} buf SEC(".maps");

/* threads walked, per read session (two readers may walk at once) */
struct {
	__uint(type, BPF_MAP_TYPE_LRU_HASH);
	__uint(max_entries, 64);
	__type(key, __u64);
	__type(value, __u64);
} walked SEC(".maps");

static __always_inline unsigned int task_state(struct task_struct *t)
{
	if (bpf_core_field_exists(t->__state))
		return t->__state;
	return (unsigned int)t->state;
}

/* The letter /proc prints (__task_state_index, include/linux/sched.h): TASK_IDLE (an idle
 * kworker: TASK_UNINTERRUPTIBLE with TASK_NOLOAD) is 'I'; a task waiting for an rtmutex-based
 * lock, or frozen (the cgroup v1 freezer, suspend), 'D'. */
static __always_inline char state_letter(unsigned int st, int exit_state)
{
	unsigned int rep = (st | (unsigned int)exit_state) & TASK_REPORT;
	if ((st & TASK_IDLE) == TASK_IDLE)
		return 'I';
	if ((st & TASK_RTLOCK_WAIT) || (st & TASK_FROZEN))
		rep = TASK_UNINTERRUPTIBLE;
	int i = 0;
	for (int b = 0; b < 7; b++)
		if (rep & (1u << b))
			i = b + 1;
	switch (i) {
	case 0: return 'R';
	case 1: return 'S';
	case 2: return 'D';
	case 3: return 'T';
	case 4: return 't';
	case 5: return 'X';
	case 6: return 'Z';
	default: return 'P';
	}
}

/* The lock t is blocked on, and its owner: a mutex's owner (its low bits are flags), a
 * semaphore's last holder, an rw-semaphore's owner (a writer, or the last reader). */
static __always_inline void read_blocker(struct task_struct *t, struct taskrec *r)
{
	unsigned long b = t->blocker, lock = b & ~BLOCKER_TYPE_MASK, owner = 0;
	if (!lock)
		return;
	unsigned long type = b & BLOCKER_TYPE_MASK;
	r->lock = lock;
	if (type == 0) {
		r->lock_kind = TASKREC_LOCK_MUTEX;
		owner = (unsigned long)BPF_CORE_READ((struct mutex *)lock, owner.counter);
		owner &= ~OWNER_FLAGS_MASK;
	} else if (type == 1) {
		r->lock_kind = TASKREC_LOCK_SEM;
		if (bpf_core_field_exists(((struct semaphore *)0)->last_holder))
			owner = BPF_CORE_READ((struct semaphore *)lock, last_holder);
	} else {
		r->lock_kind = type == 2 ? TASKREC_LOCK_RWSEM_READ : TASKREC_LOCK_RWSEM_WRITE;
		owner = (unsigned long)BPF_CORE_READ((struct rw_semaphore *)lock, owner.counter);
		if (owner & RWSEM_READER_OWNED)
			r->lock_flags |= TASKREC_OWNER_READERS;
		owner &= ~OWNER_FLAGS_MASK;
	}
	if (!owner)
		return;
	struct task_struct *o = (struct task_struct *)owner;
	r->owner_tid = BPF_CORE_READ(o, pid);
	r->owner_tgid = BPF_CORE_READ(o, tgid);
	bpf_probe_read_kernel(r->owner_comm, sizeof(r->owner_comm), &o->comm);
}

SEC("iter/task")
int cgw_tasks(struct bpf_iter__task *ctx)
{
	struct seq_file *seq = ctx->meta->seq;
	struct task_struct *t = ctx->task;
	__u32 zero = 0;
	__u64 session = ctx->meta->session_id, one = 1;
	struct scratch *s = bpf_map_lookup_elem(&buf, &zero);
	if (!s)
		return 0;
	__u64 *n = bpf_map_lookup_elem(&walked, &session);
	struct taskrec *r = &s->r;
	__builtin_memset(r, 0, sizeof(*r));
	r->magic = TASKREC_MAGIC;
	r->version = TASKREC_VERSION;
	if (!t) {                             /* the end of the walk */
		r->kind = TASKREC_END;
		r->threads = n ? (__u32)*n : 0;
		r->tgid = (__s32)(bpf_get_current_pid_tgid() >> 32);   /* the reader, as the
		                                                          * kernel numbers it */
		/* "now" on the rq clock (what sched_info.last_arrival is stamped with): the reader
		 * is running, since its own last_arrival, for the CPU time accounted since (to its
		 * last tick). The kernel's runqueues cannot be named here: without
		 * CONFIG_KALLSYMS_ALL the verifier finds no address for it. */
		struct task_struct *cur = bpf_get_current_task_btf();
		r->cpu = (__s32)bpf_get_smp_processor_id();
		if (bpf_core_field_exists(cur->sched_info.last_arrival))
			r->last_arrival = cur->sched_info.last_arrival +
			                  (cur->se.sum_exec_runtime - cur->se.prev_sum_exec_runtime);
		bpf_seq_write(seq, r, sizeof(*r));
		bpf_map_delete_elem(&walked, &session);
		return 0;
	}
	if (skip_tgid && t->tgid == skip_tgid)
		return 0;
	if (n)
		__sync_fetch_and_add(n, 1);
	else
		bpf_map_update_elem(&walked, &session, &one, BPF_NOEXIST);

	unsigned int st = task_state(t);
	int exit_state = t->exit_state;
	char c = state_letter(st, exit_state);
	int tid = t->pid, tgid = t->tgid;
	if (c == 'D' || c == 'R' || emit_all)
		r->kind = TASKREC_TASK;
	else if (tid == tgid)
		r->kind = TASKREC_LEADER;
	else
		return 0;
	r->state = c;
	r->tid = tid;
	r->tgid = tgid;
	r->ppid = t->real_parent->tgid;
	if (bpf_core_field_exists(t->thread_info.cpu))
		r->cpu = (__s32)t->thread_info.cpu;
	else
		r->cpu = (__s32)t->cpu;
	r->flags = t->flags;
	r->policy = t->policy;
	r->rt_priority = t->rt_priority;
	r->prio = t->prio;
	r->start_boottime = t->start_boottime;
	r->exec_start = t->se.exec_start;
	r->sum_exec_runtime = t->se.sum_exec_runtime;
	r->prev_sum_exec_runtime = t->se.prev_sum_exec_runtime;
	if (bpf_core_field_exists(t->sched_info.last_arrival)) {
		r->last_arrival = t->sched_info.last_arrival;
		r->last_queued = t->sched_info.last_queued;
		r->run_delay = t->sched_info.run_delay;
		r->pcount = t->sched_info.pcount;
		r->rflags |= TASKREC_HAVE_SCHED_INFO;
	}
	r->nvcsw = t->nvcsw;
	r->nivcsw = t->nivcsw;
	__builtin_memcpy(r->comm, t->comm, sizeof(r->comm));
	int on_cpu = t->on_cpu;
	if (on_cpu)
		r->rflags |= TASKREC_ON_CPU;
	if (r->kind == TASKREC_TASK && (c == 'D' || (c == 'R' && !on_cpu))) {
		long got = bpf_get_task_stack(t, s->frames, sizeof(s->frames), 0);
		r->rflags |= TASKREC_HAVE_STACK;
		if (got < 0) {
			r->stack_err = (__s32)got;
		} else {
			__u32 nf = (__u32)got / 8;
			if (nf > TASKREC_MAX_FRAMES)
				nf = TASKREC_MAX_FRAMES;
			r->nframes = (__u16)nf;
		}
	}
	if (c == 'D' && bpf_core_field_exists(t->blocker))
		read_blocker(t, r);
	bpf_seq_write(seq, r, sizeof(*r));
	if (r->nframes) {
		__u32 len = (__u32)r->nframes * 8;
		if (len > sizeof(s->frames))
			len = sizeof(s->frames);
		bpf_seq_write(seq, s->frames, len);
	}
	return 0;
}
