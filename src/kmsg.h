/* kmsg.h: the kernel's own reports, read from /dev/kmsg (or a capture of it), assembled
 * into hung-task reports (with their blocker lines), workqueue lockup dumps, soft lockups
 * and RCU stalls, and linked to the tasks of a scan.
 *
 * Only records of facility 0 (kernel) are ever parsed: anything written to /dev/kmsg from
 * user space carries facility 1 (user) or the one it asked for, never 0 (devkmsg_write()
 * refuses facility 0), so whoever can write there cannot forge a diagnosis.
 *
 * A capture (a fixture's DIR/dev/kmsg, or what kmsg_read() collects) is the records as
 * read(2) returns them, one after another: "PRI,SEQ,TS_USEC,FLAGS[,...];MESSAGE\n" followed
 * by dictionary lines that start with a space (" SUBSYSTEM=pci\n"). */
#ifndef CGW_KMSG_H
#define CGW_KMSG_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cgwatch.h"

#define KMSG_PATH "/dev/kmsg"
#define KMSG_MAX_MSG 2048         /* one record's text, decoded (the kernel's limit is 1024) */
#define KMSG_COMM 64              /* a comm as the kernel prints it: 15 bytes, escapes undone */
#define KMSG_MAX_HUNG 64          /* hung-task reports kept, the newest; older only counted */
#define KMSG_MAX_WQ 16            /* workqueue dumps kept */
#define KMSG_MAX_SOFT 64          /* soft lockups kept */
#define KMSG_MAX_RCU 64           /* RCU stall reports kept */
#define KMSG_MAX_FRAMES 64        /* frames kept per stack */
#define KMSG_MAX_PWQ 64           /* busy pool workqueues kept per dump */
#define KMSG_MAX_POOLS 64         /* worker pools kept per dump */
#define KMSG_MAX_STUCK 16         /* "BUG: workqueue lockup" lines kept per dump */
#define KMSG_MAX_PIDS 16          /* BAR(pid)s and in-flight workers kept per pwq */
#define KMSG_TEXT 256             /* a quoted kernel line kept for evidence */
#define KMSG_READ_MAX (64u << 20) /* bytes read from the ring at most (it is 16 MiB at most
                                     with log_buf_len's usual settings) */
#define KMSG_POLL_MAX (4u << 20)  /* bytes one kmsg_poll() takes; the rest waits a scan */

/* ---- one record ---- */

/* 6,1830,2212318532,-;INFO: task systemd:1 blocked for more than 122 seconds.
 * 14,1890,2300000000,-;INFO: task systemd:1 blocked for more than 999 seconds.   (user.info:
 *                                                                     written by a process)
 * 4,512,1233044,-,caller=T28;foo\x0abar       (CONFIG_PRINTK_CALLER; \x0a is a '\n') */
struct kmsg_record {
	unsigned facility, level;         /* PRI >> 3, PRI & 7 */
	uint64_t seq, ts_usec;            /* sequence number; local_clock() at printk, in us */
	char flags;                       /* '-', or 'c' (a continuation, older kernels) */
	char caller[16];                  /* "T28", "C0", or "" */
	char msg[KMSG_MAX_MSG];           /* \xNN undone, a leading "[  T28] " dropped */
	size_t msg_len;
};
/* Parse one record (its first line; dictionary lines after it are ignored). \xNN escapes
 * are undone (never into a NUL); a caller id "[    C0] " / "[  T28] " at the start of the
 * message is moved to caller. Returns 0 or -EINVAL. */
int kmsg_parse_record(const char *buf, size_t len, struct kmsg_record *out);

/* ---- one line of a kernel report (the message of a kernel record) ---- */

struct kmsg_task { char comm[KMSG_COMM]; int pid; };   /* comm: raw bytes, NUL-terminated */

/* "INFO: task kworker/u768:1:1765 blocked for more than 122 seconds."
 * The comm may hold spaces and ':': anchored on the LAST ":<pid> blocked for more than".
 * Returns 0 or -EINVAL. */
int kmsg_parse_hung(const char *msg, struct kmsg_task *t, long *blocked_s);

enum kmsg_lock { KMSG_LOCK_NONE = 0, KMSG_LOCK_MUTEX, KMSG_LOCK_SEM, KMSG_LOCK_RWSEM };
struct kmsg_blocker {
	enum kmsg_lock lock;
	struct kmsg_task task;            /* the hung task */
	bool owner_found;
	struct kmsg_task owner;           /* the likely owner (last holder of a semaphore) */
	char task_as[8], owner_as[8];     /* rw-semaphore: "reader" or "writer"; else "" */
};
/* The blocker lines of kernel/hung_task.c (6.16+):
 * "INFO: task a:10 is blocked on a mutex likely owned by task b:11."
 * "INFO: task a:10 blocked on a semaphore likely last held by task b:11"
 * "INFO: task cat:28631 <reader> blocked on an rw-semaphore likely owned by task cat:28630 <writer>"
 * "INFO: task worker:488783 is blocked on an rw-semaphore, but the owner is not found."
 * (and the mutex / "semaphore, but the last holder is not found." forms). Returns 0 or -EINVAL. */
int kmsg_parse_blocker(const char *msg, struct kmsg_blocker *b);

struct kmsg_header {
	char comm[KMSG_COMM];
	char state;                       /* 'D', 'R', 'S', ... */
	int pid, tgid, ppid;              /* tgid -1 when not printed (before 6.5) */
	bool running;                     /* "  running task    " */
};
/* sched_show_task()'s first line:
 * "task:systemd         state:D stack:0     pid:1     tgid:1     ppid:0      task_flags:0x400100 flags:0x00080000"
 * "task:kworker/0:1     state:D stack:26640 pid: 1872 ppid:     2 flags:0x00000428"   (5.10)
 * "kworker/0:1     D    0  1872      2 0x80000000"     (before 5.8: legacy = true only)
 * Returns 0 or -EINVAL. */
int kmsg_parse_task_header(const char *msg, bool legacy, struct kmsg_header *h);

/* A pool as pr_cont_pool_info() prints it: " cpus=18 node=0 flags=0x0 nice=0". */
struct kmsg_poolinfo {
	char cpus[KMSG_TEXT];             /* kernel CPU list syntax */
	int node;                         /* -1 when not printed (unbound pools) */
	unsigned flags;
	int nice;
	bool bh;                          /* a BH pool ("bh" or "bh-hi" instead of nice=) */
};
/* "BUG: workqueue lockup - pool cpus=20 node=1 flags=0x0 nice=0 stuck for 3608s!"
 * "BUG: workqueue lockup - pool cpus=0-95 flags=0x4 nice=0 stuck for 31s!"   (unbound: no node)
 * Returns 0 or -EINVAL. */
int kmsg_parse_wq_lockup(const char *msg, struct kmsg_poolinfo *p, unsigned *stuck_s);

struct kmsg_pwq {
	uint64_t seq;                     /* of the pwq line */
	char wq[KMSG_COMM];               /* the workqueue ("mm_percpu_wq") */
	int pool;                         /* pool id */
	struct kmsg_poolinfo info;
	int active, refcnt;               /* -1 when not printed */
	char in_flight[KMSG_TEXT], pending[KMSG_TEXT], inactive[KMSG_TEXT];  /* as printed */
	int workers[KMSG_MAX_PIDS]; size_t nworkers;   /* in-flight: "1765:cpuset_migrate_mm_workfn" */
	int bars[KMSG_MAX_PIDS]; size_t nbars;         /* BAR(pid): a flush barrier of task pid */
};
/* show_pwq()'s lines, into the pwq being listed:
 * "  pwq 36: cpus=18 node=0 flags=0x0 nice=0 active=2 refcnt=3"    (older: "active=2/256")
 * "    in-flight: 1274779:slab_caches_to_rcu_destroy_workfn slab_caches_to_rcu_destroy_workfn"
 * "    pending: flush_backlog BAR(8), 3*vmstat_update"
 * "    inactive: ..." ("delayed:" before 5.19)
 * kmsg_parse_pwq fills p from the "pwq" line (wq is left alone). kmsg_parse_works adds an
 * in-flight/pending/inactive line to p. Each returns 0 or -EINVAL. */
int kmsg_parse_pwq(const char *msg, struct kmsg_pwq *p);
int kmsg_parse_works(const char *msg, struct kmsg_pwq *p);

struct kmsg_pool {
	uint64_t seq;
	int id;
	struct kmsg_poolinfo info;
	unsigned long hung_s;
	int workers;                      /* -1 when not printed */
};
/* "pool 2: cpus=1 node=0 flags=0x0 nice=0 hung=30s workers=2 idle: 34"
 * Returns 0 or -EINVAL (also for the bare "pool 2:" of the stalled-pools backtraces). */
int kmsg_parse_pool(const char *msg, struct kmsg_pool *p);

/* "watchdog: BUG: soft lockup - CPU#19 stuck for 22s! [jbd2/pmem0-8:1002]"
 * "NMI watchdog: BUG: soft lockup - CPU#0 stuck for 24s! [dd:8103]"       (before 4.15)
 * The comm is anchored on the last ":<pid>]"; t->pid is -1 when no "[comm:pid]" follows.
 * Returns 0 or -EINVAL. */
int kmsg_parse_soft_lockup(const char *msg, int *cpu, unsigned *stuck_s, struct kmsg_task *t);

enum kmsg_rcu_kind { KMSG_RCU_STALL = 0, KMSG_RCU_SELF, KMSG_RCU_EXPEDITED, KMSG_RCU_STARVED };
/* The first line of an RCU stall report, "rcu: " prefix optional:
 * "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:"
 * "rcu: INFO: rcu_sched self-detected stall on CPU"
 * "rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: { 3-... } 21002 jiffies s: 193 root: 0x1/."
 * "rcu: rcu_preempt kthread starved for 2495 jiffies! g21033 f0x0 RCU_GP_WAIT_FQS(5) ->state=0x0 ->cpu=7"
 * flavor gets "rcu_preempt"; *jiffies the starved jiffies (else -1). Returns 0 or -EINVAL. */
int kmsg_parse_rcu(const char *msg, enum kmsg_rcu_kind *kind, char *flavor, size_t cap,
                   long *jiffies);

/* ---- assembled reports ---- */

struct kmsg_hung {
	uint64_t seq; double ts_s;        /* of the "INFO: task ... blocked" line */
	struct kmsg_task task;
	long blocked_s;                   /* -1: only a blocker line was seen */
	char text[KMSG_TEXT];             /* the line, as the kernel wrote it */
	char state;                       /* from the task header; 0 when none was seen */
	int tgid;                         /* -1 when not printed */
	char workqueue[KMSG_COMM], work_fn[128];    /* "Workqueue: events toggle_allocation_gate" */
	uint64_t wq_seq;                  /* of the "Workqueue:" line */
	struct cgw_frame *frames; size_t nframes;   /* reliable frames ("? " ones dropped) */
	bool have_blocker;
	struct kmsg_blocker blocker;
	uint64_t blocker_seq; double blocker_ts_s;
	char owner_state;                 /* from the owner's dump after the blocker line */
	struct cgw_frame *owner_frames; size_t nowner_frames;
};

struct kmsg_wq_stuck { struct kmsg_poolinfo info; unsigned stuck_s; uint64_t seq; double ts_s;
                       char text[KMSG_TEXT]; };
struct kmsg_wq_dump {
	uint64_t seq; double ts_s;        /* first line of the dump */
	struct kmsg_wq_stuck *stuck; size_t nstuck;   /* "BUG: workqueue lockup" lines */
	unsigned lockups;                 /* those lines, kept or not: 0 for a dump printed on
	                                     request (sysrq-t, sysrq-w), which is no lockup */
	struct kmsg_pwq *pwq; size_t npwq;            /* busy pwqs, with their workqueue */
	struct kmsg_pool *pools; size_t npools;       /* pools with hung= */
};

struct kmsg_soft {
	uint64_t seq; double ts_s;
	int cpu; unsigned stuck_s;
	struct kmsg_task task;            /* what ran there */
	char text[KMSG_TEXT];
	char rip[128];                    /* "RIP: 0010:" function, "" when not seen */
};

struct kmsg_rcu {
	uint64_t seq; double ts_s;
	enum kmsg_rcu_kind kind;
	char flavor[32];
	char text[KMSG_TEXT];
	struct cgw_cpus *cpus;            /* stalled CPUs listed ("rcu: \t3-....: ...") */
	int detected_by;                  /* -1 unknown */
	long starved_jiffies;             /* -1 unknown */
};

struct cgw_kmsg {
	char source[512];                 /* the path read: "/dev/kmsg", DIR/dev/kmsg */
	char proc[256];                   /* where the sysctls are read: "/proc" */
	int error;                        /* -errno of the read, 0 */
	bool truncated;                   /* KMSG_READ_MAX reached */
	uint64_t records;                 /* records parsed, every facility */
	uint64_t kernel_records;          /* of facility 0: the only ones assembled */
	uint64_t other_records;           /* written from user space: never parsed further */
	uint64_t unparsed;                /* lines that were no record */
	uint64_t lost;                    /* records overwritten before they were read */
	bool have_seq;
	uint64_t first_seq, last_seq;

	struct kmsg_hung *hung; size_t nhung;      /* the newest KMSG_MAX_HUNG, oldest first */
	uint64_t hung_total, blockers_total;
	struct kmsg_wq_dump *wq; size_t nwq;
	uint64_t wq_total, wq_lockups_total;       /* dumps; "BUG: workqueue lockup" lines */
	struct kmsg_soft *soft; size_t nsoft;
	uint64_t soft_total;
	struct kmsg_rcu *rcu; size_t nrcu;
	uint64_t rcu_total;

	bool suppressed_seen;             /* "Future hung task reports are suppressed" */
	uint64_t suppressed_seq; double suppressed_ts_s;
	long detect_count;                /* /proc/sys/kernel/hung_task_detect_count, -1 absent */
	long warnings;                    /* /proc/sys/kernel/hung_task_warnings, -2 absent */
	double uptime_s;                  /* /proc/uptime when read, 0 unknown */

	/* the reader and the assembler */
	int fd;                           /* kmsg_open_follow(), -1 */
	struct strbuf partial;            /* an incomplete line of a followed plain file */
	int state;
	char cur_wq[KMSG_COMM];
	unsigned idle_lines;
};

/* An empty set, reading sysctls under /proc. */
void kmsg_init(struct cgw_kmsg *k);
/* Free what k holds (and close the follow fd); k is empty afterwards. */
void kmsg_free(struct cgw_kmsg *k);

/* Feed one parsed record: counted; a kernel record goes to the assembler, any other is
 * dropped here. */
void kmsg_feed_record(struct cgw_kmsg *k, const struct kmsg_record *r);
/* Feed a capture (records separated by newlines, dictionary lines starting with a space). */
void kmsg_feed_buf(struct cgw_kmsg *k, const char *buf, size_t len);

/* Is the kernel's hung-task reporting off now? The sysctl hung_task_warnings when it was
 * read (0: off), else the "suppressed" line with no hung-task report after it. */
bool kmsg_suppressed(const struct cgw_kmsg *k);

/* The newest hung-task report of scanned task t in its current episode (the report's
 * "blocked since" agrees with t->blocked_s, given k->uptime_s), or NULL. A report names
 * t->comm as the kernel's 15-byte comm ("kworker/u768:1" for "kworker/u768:1+wq"). */
const struct kmsg_hung *kmsg_hung_for(const struct cgw_kmsg *k, const struct cgw_task *t);
/* Does a comm as the kernel printed it name the scanned comm (len bytes)? */
bool kmsg_comm_match(const char *kcomm, const char *comm, size_t len);

/* ---- readers ---- */

/* Read the whole ring at path (O_RDONLY|O_NONBLOCK, record by record until EAGAIN; EPIPE:
 * records were overwritten, counted in lost) or a capture file (to EOF), in a deadline
 * thread (timeout_ms), into out, which is initialised first (kmsg_init). Then the sysctls
 * hung_task_detect_count, hung_task_warnings and the uptime under out->proc.
 * Returns 0 or -errno (also kept in out->error; -ETIMEDOUT after the deadline). */
int kmsg_read(const char *path, struct cgw_kmsg *out, unsigned timeout_ms);
/* The ring (or a capture file) at path as kmsg_read reads it, not parsed: the records as
 * read(2) returned them, in buf (free it with sb_free), with the EPIPEs read past and whether
 * KMSG_READ_MAX was reached. ran: the read ran (buf holds what it read, also when it then
 * failed); false when the deadline passed or it could not start (buf empty). Returns 0 or
 * -errno (the read's, or the deadline's: -ETIMEDOUT, -ECANCELED, -EBUSY). */
struct kmsg_raw { struct strbuf buf; unsigned epipe; bool truncated, ran; };
int kmsg_read_raw(const char *path, struct kmsg_raw *out, unsigned timeout_ms);
/* Re-read the sysctls and /proc/uptime under k->proc (never blocks: procfs values). */
void kmsg_read_sysctls(struct cgw_kmsg *k);

/* Follow mode for the daemon: initialise k, open path non-blocking and seek to its end,
 * so that kmsg_poll() returns what arrives from now on. Returns 0 or -errno. */
int kmsg_open_follow(struct cgw_kmsg *k, const char *path);
/* Read what arrived since the last call (at most KMSG_POLL_MAX bytes), assemble it, and
 * re-read the sysctls. Never blocks. Returns the number of records read, or -errno
 * (-EBADF when kmsg_open_follow failed: the sysctls are read all the same). */
int kmsg_poll(struct cgw_kmsg *k);

/* ---- the report ---- */

/* Add to each finding of r what the kernel said about its tasks, one fact per evidence
 * line, each naming where it was read ("/dev/kmsg seq 1830: kernel: ..."): hung-task
 * reports of its tasks, blocker lines and where their owner is, workqueue lockups, soft
 * lockups and RCU stalls on its CPUs, and that the kernel stopped reporting hung tasks. */
void kmsg_link(struct cgw_report *r, const struct cgw_kmsg *k);

/* "mutex", "semaphore", "rw-semaphore" or "lock". */
const char *kmsg_lock_name(enum kmsg_lock l);

/* ---- sink-kmsg.c ---- */

struct json_object;
/* The report's "kmsg" object: source, records, hung_task_reports, workqueue_lockups,
 * soft_lockups, rcu_stalls, suppressed, detect_count, ..., and the events kept. */
struct json_object *kmsg_json(const struct cgw_kmsg *k);

#endif
