/* taskrec.h: the record the task iterator (taskiter.bpf.c) writes for a thread, read by
 * parse-bpfrec.c. Shared by the BPF program and user space: fixed-width fields only, host
 * byte order. A record is TASKREC_SIZE bytes, followed by nframes 8-byte kernel addresses. */
#ifndef CGW_TASKREC_H
#define CGW_TASKREC_H

#define TASKREC_MAGIC 0x6377u          /* "cw" */
#define TASKREC_VERSION 2
#define TASKREC_MAX_FRAMES 64          /* as /proc/TID/stack (MAX_STACK_TRACE_DEPTH) */

enum taskrec_kind {
	TASKREC_TASK = 1,                  /* a D or R thread (or any, with emit_all) */
	TASKREC_LEADER = 2,                /* a process's main thread in another state */
	TASKREC_END = 3,                   /* last: the threads walked (in threads), the reader's
	                                      process id as the kernel numbers it (tgid: the
	                                      initial PID namespace's), and the rq clock of the
	                                      CPU it read on (cpu) then (last_arrival) */
};

#define TASKREC_HAVE_STACK 0x1         /* frames follow (nframes of them, may be 0) */
#define TASKREC_ON_CPU 0x2             /* running on its CPU when read */
#define TASKREC_HAVE_SCHED_INFO 0x4    /* last_arrival, last_queued: CONFIG_SCHED_INFO */

struct taskrec {
	__u16 magic, version;
	__u8 kind;
	char state;                        /* as /proc/TID/stat prints it */
	__u16 nframes;
	__u32 rflags;                      /* TASKREC_* */
	__s32 tid, tgid, ppid, cpu;
	__u32 flags;                       /* task->flags (PF_*) */
	__u32 policy, rt_priority;
	__s32 prio;
	__s32 stack_err;                   /* bpf_get_task_stack's error, or 0 */
	__u32 threads;                     /* TASKREC_END: the threads walked */
	__u32 pad;
	__u64 start_boottime;              /* ns since boot */
	__u64 exec_start;                  /* se.exec_start, ns on the CPU's clock_task; 0 reset */
	__u64 sum_exec_runtime;            /* se.sum_exec_runtime, ns */
	__u64 last_arrival, last_queued;   /* sched_info, ns on the CPU's rq clock */
	__u64 nvcsw, nivcsw;
	char comm[16];
	__u64 prev_sum_exec_runtime;       /* se.sum_exec_runtime when it was last picked: the
	                                      last slice ran sum_exec_runtime - this */
	/* the lock a D task is blocked on, where the kernel tracks it (task->blocker,
	 * CONFIG_DETECT_HUNG_TASK_BLOCKER): its kind, address and owner */
	__u64 lock;                        /* 0: none known */
	__u32 lock_kind;                   /* TASKREC_LOCK_* */
	__u32 lock_flags;                  /* TASKREC_OWNER_* */
	__s32 owner_tid, owner_tgid;       /* 0: no owner recorded */
	char owner_comm[16];
	__u64 run_delay, pcount;           /* sched_info (TASKREC_HAVE_SCHED_INFO): ns waited on a
	                                      run queue, times it got a CPU (/proc/TID/schedstat) */
	__u64 cgroups;                     /* task->cgroups, its css_set, as an identity only:
	                                      threads with the same one are in the same cgroup
	                                      of every hierarchy (0: not read) */
};
#define TASKREC_SIZE 200

enum taskrec_lock {
	TASKREC_LOCK_NONE = 0,
	TASKREC_LOCK_MUTEX = 1,
	TASKREC_LOCK_SEM = 2,              /* its last holder, not necessarily still holding it */
	TASKREC_LOCK_RWSEM_READ = 3,       /* waits to read */
	TASKREC_LOCK_RWSEM_WRITE = 4,      /* waits to write */
};
#define TASKREC_OWNER_READERS 0x1      /* an rw-semaphore held for reading: the owner is the
                                          last reader, likely (not surely) still among them */

#endif
