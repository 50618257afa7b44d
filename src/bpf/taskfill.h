/* taskfill.h: what the two task walkers (taskiter.bpf.c, an iter/task program; taskwalk.bpf.c,
 * a syscall program with the open-coded task iterator) read of a thread, shared so both write
 * the same struct taskrec (taskrec.h) for the same thread. BPF side only.
 *
 * CO-RE: the kernel structs are the few fields read, declared here with preserve_access_index
 * and relocated by libbpf against the running kernel's BTF, so the objects run on any kernel
 * with BTF; fields some kernels lack are tested with bpf_core_field_exists. The task pointer
 * is typed (BTF): its fields are read by direct loads, which the verifier makes fault-safe,
 * cheaper than a bpf_probe_read_kernel call each. */
#ifndef CGW_TASKFILL_H
#define CGW_TASKFILL_H

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

struct signal_struct { int nr_threads; } __attribute__((preserve_access_index));
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
	struct signal_struct *signal;
	struct css_set *cgroups;
} __attribute__((preserve_access_index));

struct scratch {
	struct taskrec r;
	__u64 frames[TASKREC_MAX_FRAMES];
};

/* one record and its stack, per CPU: too big for the BPF stack (each program its own copy) */
struct {
	__uint(type, BPF_MAP_TYPE_PERCPU_ARRAY);
	__uint(max_entries, 1);
	__type(key, __u32);
	__type(value, struct scratch);
} buf SEC(".maps");

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

/* task_fill's answer for a thread whose record needs its kernel stack, where the caller may
 * not read it now (stack_ok false): nothing written, the caller reads it later */
#define TASKFILL_DEFER 0x100

/* The record of thread t into s->r (its stack into s->frames): TASKREC_TASK for a D or R
 * thread (any, with all), TASKREC_LEADER for a process's main thread in another state, 0 for
 * a thread that gets none; TASKFILL_DEFER where the record needs the stack (a D thread, or an
 * R one off its CPU) and stack_ok is false. leader: 1 or 0 where the caller knows whether t
 * is its process's main thread, -1 where not (then read from its ids). The state is read
 * first, and the ids only where needed: a thread that gets no record costs the cache lines of
 * its state and exit_state (as /proc, a task past exit_notify is Z whatever its state), not
 * its ids'. stack_ok: bpf_get_task_stack may be called here (since 6.18 it is a sleepable
 * helper in a sleepable program, which the verifier refuses inside bpf_rcu_read_lock()). */
static __always_inline int task_fill(struct task_struct *t, struct scratch *s, bool all,
                                     int leader, bool stack_ok)
{
	struct taskrec *r = &s->r;
	unsigned int st = task_state(t);
	int exit_state = t->exit_state;
	char c = state_letter(st, exit_state);
	int kind;
	if (c == 'D' || c == 'R' || all)
		kind = TASKREC_TASK;
	else if (leader == 1 || (leader < 0 && t->pid == t->tgid))
		kind = TASKREC_LEADER;
	else
		return 0;
	int on_cpu = t->on_cpu;
	bool want_stack = kind == TASKREC_TASK && (c == 'D' || (c == 'R' && !on_cpu));
	if (want_stack && !stack_ok)
		return TASKFILL_DEFER;
	int tid = t->pid, tgid = t->tgid;
	__builtin_memset(r, 0, sizeof(*r));
	r->magic = TASKREC_MAGIC;
	r->version = TASKREC_VERSION;
	r->kind = kind;
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
	/* the pointer's value read as a number, never followed: an identity */
	bpf_core_read(&r->cgroups, sizeof(r->cgroups), &t->cgroups);
	__builtin_memcpy(r->comm, t->comm, sizeof(r->comm));
	if (on_cpu)
		r->rflags |= TASKREC_ON_CPU;
	if (want_stack) {
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
	return kind;
}

/* The end record into r: the threads walked, the reader as the kernel numbers it, and "now"
 * on the rq clock (what sched_info.last_arrival is stamped with): the reader is running,
 * since its own last_arrival, for the CPU time accounted since (to its last tick). The
 * kernel's runqueues cannot be named here: without CONFIG_KALLSYMS_ALL the verifier finds no
 * address for it. */
static __always_inline void end_fill(struct taskrec *r, __u32 threads)
{
	__builtin_memset(r, 0, sizeof(*r));
	r->magic = TASKREC_MAGIC;
	r->version = TASKREC_VERSION;
	r->kind = TASKREC_END;
	r->threads = threads;
	r->tgid = (__s32)(bpf_get_current_pid_tgid() >> 32);
	struct task_struct *cur = bpf_get_current_task_btf();
	r->cpu = (__s32)bpf_get_smp_processor_id();
	if (bpf_core_field_exists(cur->sched_info.last_arrival))
		r->last_arrival = cur->sched_info.last_arrival +
		                  (cur->se.sum_exec_runtime - cur->se.prev_sum_exec_runtime);
}

#endif
