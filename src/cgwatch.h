/* cgwatch: shared types and prototypes, under a heading per file, in the order data flows:
 * shared files, parsers, the task model, sources, detection, diagnosis, incidents, sinks. */
#ifndef CGWATCH_H
#define CGWATCH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <sys/types.h>

#define CGW_MAX_CPUS 8192           /* cpu ids we can represent in a cpuset */
#define CGW_COMM_MAX 64             /* kernel proc_task_name() buffer: comm + "+workqueue" */

/* check exit codes (public: README section 1, cgwatch(8)) */
enum { EXIT_NOTHING = 0, EXIT_FINDINGS = 1, EXIT_USAGE = 2, EXIT_UNREADABLE = 3 };

enum cgw_sev { SEV_NONE = 0, SEV_INFO, SEV_WARNING, SEV_CRITICAL };

/* the structs that flow through the stages, defined under the heading of their stage */
struct cgw_task; struct cgw_scan; struct cgw_scan_opts; struct cgw_sig; struct cgw_report;
struct json_object;

/* ---- util.c ---- */

/* Allocation that aborts on failure: for small fixed sizes only. Anything sized by the host
 * (its tasks, files, CPUs) or that a limit can refuse uses malloc or try_reallocarray and
 * fails softly: it costs a scan, never the process. */
void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
char *xstrdup(const char *s);
char *xstrndup(const char *s, size_t n);

/* realloc of n elements of size each; NULL (p untouched) on overflow or failure. */
void *try_reallocarray(void *p, size_t n, size_t size);
/* Room in *v (n elements used of *cap, each size bytes) for one more: doubles *cap (first when
 * 0) when full; 0, or -ENOMEM with *v and *cap as they were. */
int grow(void **v, size_t *cap, size_t n, size_t first, size_t size);
/* Remove the directory dir and everything under it, fd-relative: dir opened O_NOFOLLOW (a
 * symlink there is refused), each name below unlinked or opened O_DIRECTORY|O_NOFOLLOW and
 * emptied through its descriptor, so a symlink planted or swapped in anywhere is removed,
 * never followed; no other file system entered; at most 128 levels and 4 Mi names. 0 or
 * -errno (the first failure; the rest is still tried). */
int remove_tree(const char *dir);
/* Swaps two growable arrays and their capacities (a double buffer's turn). */
void swap_arrays(void **a, size_t *acap, void **b, size_t *bcap);
/* malloc, calloc, strndup, strdup that return NULL on failure (n 0 gives a 1-byte block). */
void *try_malloc(size_t n);
void *try_calloc(size_t n, size_t size);
char *try_strndup(const char *s, size_t n);
char *try_strdup(const char *s);
/* Tests only: when >= 0, the try_ functions and strbuf appends of this thread succeed this
 * many more times, then one fails (and it is -1 again). */
extern _Thread_local long cgw_fail_alloc_after;

/* A growable string. An append that cannot get memory is dropped and sets lost. */
struct strbuf { char *s; size_t len, cap; bool lost; };
/* Append formatted text; the buffer stays NUL-terminated. */
void sb_printf(struct strbuf *b, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* Append n bytes. */
void sb_add(struct strbuf *b, const char *s, size_t n);
/* Release the buffer and reset it to empty. */
void sb_free(struct strbuf *b);

/* Read a whole (small) file into buf (NUL-terminated, at most cap-1 bytes).
 * Returns bytes read or -errno. Not for files that can block: see deadline.c. */
ssize_t read_small_file(const char *path, char *buf, size_t cap);
/* Write s to the existing file at path (truncated, one write: a /proc, /sys or tracefs
 * setting). 0, or -errno (-EIO for a short write). */
int write_small_file(const char *path, const char *s);
/* Read the whole of path (a plain blocking read, not recorded: for a dl_call job) into a
 * malloc'd NUL-terminated buffer, from 64 KiB doubled while below max; its length in *len.
 * NULL with *err -errno: -EFBIG when it fills max, -ENOMEM (*err 0 on success). */
char *read_whole_file(const char *path, size_t max, size_t *len, int *err);
/* One read (off < 0) or one pread at off of name, relative to dirfd (AT_FDCWD), into buf
 * (cap-1 bytes at most, NUL-terminated). Returns bytes read or -errno. */
ssize_t read_once_at(int dirfd, const char *name, off_t off, char *buf, size_t cap);

/* Write s into out (capacity cap) C-escaped: \n \t \r \" \\ and \xNN for other control
 * and non-ASCII bytes, so the result is printable ASCII. Truncates safely. Returns out. */
char *cescape(const char *s, size_t n, char *out, size_t cap);

/* s into out (cap bytes): valid UTF-8 kept, other bytes (NUL too) as \xNN, cut between units. */
char *utf8_escape(const char *s, size_t n, char *out, size_t cap);

/* Append s (n bytes) with every byte that could control a terminal as \xNN: C0 controls
 * (newlines kept when keep_newlines), DEL, C1 (U+0080..U+009F) and bytes that are not valid
 * UTF-8 (NUL too). Valid UTF-8 text, backslashes and quotes are kept. */
void sb_add_term(struct strbuf *b, const char *s, size_t n, bool keep_newlines);
/* Offset of the first byte of s (n bytes) that is not text: a control character (C0 but tab,
 * DEL, C1) or a byte that is not valid UTF-8 (NUL too); n when all of it is text. */
size_t text_bad(const char *s, size_t n);
/* Write s (n bytes) to out as sb_add_term escapes it; a line saying it was not printed when
 * there is no memory to escape it. */
void term_write(FILE *out, const char *s, size_t n, bool keep_newlines);
/* s C-escaped (cescape) in one of four thread-local buffers, cut with "..." past 2 KiB: for
 * the arguments of one message. Valid until the fourth next call in this thread. */
const char *cesc(const char *s);

#define CGW_ENOTREG 1000              /* an errno of our own: "not a regular file" */
/* strerror(e), and "not a regular file" for CGW_ENOTREG. */
const char *cgw_strerror(int e);
/* Open a file a user or a bundle can name for reading, only if it is a regular file: its type
 * is read from an O_PATH handle first, and only a regular file is opened (through
 * /proc/self/fd: the same inode), so a FIFO or a device is never opened. Returns the fd, or
 * -errno, -EISDIR for a directory, -CGW_ENOTREG for anything else that is not a regular file
 * (-ELOOP for a symlink with O_NOFOLLOW). oflags: 0 or O_NOFOLLOW. */
int open_regular_flags(const char *path, int oflags);
/* open_regular_flags(path, 0): symlinks followed, to a regular file only. */
int open_regular(const char *path);
/* Keep the real /proc open for open_regular, before a replay covers /proc (source-root.c). */
void open_regular_keep_proc(void);
/* The fd open_regular_keep_proc kept (-1: none): a forked child that closes its fds keeps it. */
int open_regular_proc_fd(void);
/* open_regular() as a stdio stream; NULL with the (positive) errno in *err. */
FILE *fopen_regular(const char *path, int *err);

/* Parse a decimal double in [min,max] from s (whole string). Returns 0 or -EINVAL/-ERANGE. */
int parse_seconds(const char *s, double min, double max, double *out);

/* Bounds of numbers read from the host: no time is longer than a century, no count is past
 * 2^53 (a double holds it exactly). A number beyond them makes its file unparsable. */
#define CGW_MAX_SECONDS 3155760000.0
#define CGW_MAX_COUNT (1ull << 53)
/* A decimal count at *p, digits only ("-0" is 0; no sign, hex, exponent or other text
 * after it), at most max; *p moves past it. Returns 0, -EINVAL (not a count) or -ERANGE. */
int parse_count(const char **p, uint64_t max, uint64_t *out);
/* A decimal as the kernel prints times ("99786.458684", "-1.5"; no exponent, hex, nan or
 * inf), finite and in [min,max]; "-0" is +0; *p moves past it. 0, -EINVAL or -ERANGE. */
int parse_decimal(const char **p, double min, double max, double *out);

/* Monotonic clock in microseconds. */
uint64_t now_usec(void);
/* Monotonic clock in milliseconds. */
double mono_ms(void);
/* CLOCK_MONOTONIC ms milliseconds from now: a deadline for pthread_cond_timedwait on a
 * condition variable set to that clock. */
struct timespec mono_after(unsigned ms);
/* Wall clock, seconds since the epoch. */
double now_epoch(void);
/* "2026-11-30T07:16:22Z" for an epoch time, into out (cap bytes); returns out. */
char *iso_time(double epoch, char *out, size_t cap);
/* Is SIGTERM or SIGINT pending (blocked, as under sd-event)? Long waits give up then. */
bool cgw_stop_pending(void);

/* Name of a severity ("info", "warning", "critical") and back (-1 when unknown). */
const char *sev_name(enum cgw_sev s);
int sev_parse(const char *s);

/* ---- cpulist.c ---- */

struct cgw_cpus { uint64_t bits[CGW_MAX_CPUS / 64]; };

/* Parse a kernel CPU list ("0-3,8,10-11", "", "0-7:2/4" groups) into out.
 * Returns 0 or -EINVAL (out is then undefined). */
int cpulist_parse(const char *s, struct cgw_cpus *out);
/* Format a set in kernel syntax ("0-3,8"); "" when empty. Returns out. */
char *cpulist_format(const struct cgw_cpus *c, char *out, size_t cap);
void cpus_set(struct cgw_cpus *c, unsigned cpu);
bool cpus_test(const struct cgw_cpus *c, unsigned cpu);
bool cpus_empty(const struct cgw_cpus *c);
void cpus_or(struct cgw_cpus *dst, const struct cgw_cpus *src);
void cpus_andnot(struct cgw_cpus *dst, const struct cgw_cpus *src);

/* ---- log.c ---- */
/* Messages to stderr, one line each, escaped as sb_add_term (newlines too): whatever a
 * message names, nothing in it can move the cursor or forge a line. */
void log_warnx(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void log_debug(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
extern int log_verbose;
/* One message line to err ("file:line: ..."), escaped as log_warnx escapes. */
void errorf(FILE *err, const char *fmt, ...) __attribute__((format(printf, 2, 3)));

/* ---- crash.c: cgwatch's own fatal signals ---- */
/* Once, first thing in main(): a fatal signal (SEGV, BUS, FPE, ILL, ABRT, SYS) in any thread
 * writes that thread's backtrace to stderr (async-signal-safe: local libunwind, write(2)),
 * then dies of the signal by its default action, as before. Nothing under ASan (its own). */
void crash_install(void);
/* At the start of every thread that can crash: its own signal stack (unmapped at its exit). */
void crash_thread_init(void);
/* Tests only: called inside the handler after its first line (a fault there must not loop). */
extern void (*crash_test_hook)(void);

/* ---- deadline.c: reads that can block on what they watch ---- */

#define DL_MAX_STUCK 16               /* abandoned reader threads at most (256 KiB each) */

/* Read path into buf (cap, NUL-terminated) in a helper thread; give up after timeout_ms.
 * Returns bytes read, -errno, -ETIMEDOUT (the thread is abandoned, and finishes and frees
 * its own state whenever the kernel lets it; until then the same path times out at once),
 * -ECANCELED (SIGTERM/SIGINT pending), -EBUSY (DL_MAX_STUCK threads already stuck) or
 * -ENOMEM (no memory for its buffer: cap bytes more). */
ssize_t dl_read_file(const char *path, char *buf, size_t cap, unsigned timeout_ms);
/* dl_read_file, but one pread of at most cap-1 bytes at offset off (off < 0: the whole file,
 * as dl_read_file). For /proc/PID/mem, whose reads can wait on the task's mmap lock. */
ssize_t dl_pread_file(const char *path, off_t off, char *buf, size_t cap, unsigned timeout_ms);
/* Run fn(arg) on the worker thread with a deadline. Returns 0; or -ETIMEDOUT (-ECANCELED
 * when SIGTERM/SIGINT is pending): the worker is abandoned, owns arg and calls release(arg)
 * when fn returns; or -ECANCELED/-EBUSY/-ENOMEM before starting, arg released. Each caller
 * thread has a worker of its own. */
int dl_call(void (*fn)(void *), void *arg, void (*release)(void *), unsigned timeout_ms);
/* dl_call for a job that reads path: while an earlier job on path is still running (stuck past
 * its deadline, or in another thread), -ETIMEDOUT at once, arg released, rather than one more
 * thread stuck on it. Otherwise as dl_call. */
int dl_call_path(const char *path, void (*fn)(void *), void *arg, void (*release)(void *),
                 unsigned timeout_ms);
/* Retire this thread's idle worker; its next call starts a new one. Threads keep the mount
 * namespace they were born in, so source-root.c calls this after entering a new one. */
void dl_reset(void);
/* In a child just forked: no worker (its thread stayed in the parent), none stuck, the
 * locks free; call first, from the child's only thread. */
void dl_forked(void);
/* Number of helper threads abandoned and still stuck. */
unsigned dl_stuck(void);
/* Jobs handed to a worker thread so far, by every caller (what a job of several reads saves). */
unsigned long dl_handoffs(void);
/* In a job: the next of its several reads begins, with a deadline of its own from now (the
 * first has the call's). No-op outside a worker. */
void dl_step(void);
/* In a job: has its caller left (the deadline passed)? Then it should start nothing more. */
bool dl_abandoned(void);

#define DL_BATCH_MAX 128              /* reads in one batch */
#define DL_PATH_MAX 4352              /* a read's path in a batch, NUL included */
/* One read of a batch and its answer. */
struct dl_item {
	char *path;
	off_t off;                        /* one pread there; -1: the whole file */
	size_t cap;
	char *buf;                        /* NUL-terminated when r >= 0 */
	ssize_t r;                        /* bytes, or -errno */
	bool deadline;                    /* r is the deadline's (-ETIMEDOUT, -ECANCELED) */
	bool taken;
};
/* What a batch answered, in order. */
struct dl_batch {
	struct dl_item item[DL_BATCH_MAX];
	size_t n;
	size_t next;                      /* after the last taken: where dl_batch_take looks first */
};
/* The read after the n answered (done[0..n)) of a batch, into path (cap pathcap), *off
 * (-1: the whole file) and *cap (its buffer); false: no more. Runs in the worker: pure, on
 * what it is given and ctx (the batch's own copy, its to change). */
typedef bool (*dl_next_fn)(const struct dl_item *done, size_t n, void *ctx, char *path,
                           size_t pathcap, off_t *off, size_t *cap);
/* Reads that follow one another (each may depend on the ones before: next), made in one job
 * of the worker, one hand-off for them all; each with the deadline of one dl_pread_file,
 * from when it begins, and a path still stuck answered at once, as there. When one passes its
 * deadline the worker is abandoned: that read is answered -ETIMEDOUT, the ones before it
 * are kept, the ones after are not made. NULL (no memory) or the batch (maybe empty: refused
 * as dl_call refuses), for dl_batch_take and then dl_batch_free. */
struct dl_batch *dl_read_batch(dl_next_fn next, const void *ctx, size_t ctx_size,
                               unsigned timeout_ms);
/* The answer of b to a read of (path, off, cap) not taken yet, as dl_pread_file would have
 * given it (into buf, and recorded): true and *r; false when b has none (read it then). */
bool dl_batch_take(struct dl_batch *b, const char *path, off_t off, char *buf, size_t cap,
                   ssize_t *r);
void dl_batch_free(struct dl_batch *b);

/* ---- record.c: what a capture read, in memory (shared; source-capture.c writes it) ---- */

enum rec_kind { REC_FILE = 0, REC_LINK };
/* One read: its path in the captured tree, the bytes read (a link's target) or the error. */
struct rec_entry { char *path; enum rec_kind kind; char *data; size_t len; int err;
                   struct rec_entry *next; };
/* The tree path of a host path ("/proc/1/stat" -> "proc/1/stat"; /proc, /sys and /dev/kmsg
 * only, /proc/thread-self left out) into out (cap bytes). False when it has none. */
bool record_tree_path(const char *path, char *out, size_t cap);
/* Start and stop recording (off by default). */
void record_start(void);
void record_stop(void);
/* Is recording on for this thread? */
bool record_active(void);
/* Mute (or unmute) recording in this thread: the deadline worker's reads are recorded by
 * the caller, as the caller saw them. */
void record_mute(bool mute);
/* Keep data (r bytes; or -errno) as tree_path's last read, replacing an earlier one. */
void record_put(const char *tree_path, enum rec_kind kind, const char *data, ssize_t r);
/* In a forked child: every record_put made while recording is handed to fn instead of kept
 * (the sandbox sends it to its parent). Call first, from the child's only thread. */
void record_redirect(void (*fn)(const char *tree_path, enum rec_kind kind, const char *data,
                                ssize_t r, void *ctx), void *ctx);
/* A read of host path (absolute; or name relative to dirfd) when recording: data r bytes or
 * -errno. Paths outside the tree are not kept. */
void record_read(const char *path, const char *data, ssize_t r);
void record_read_at(int dirfd, const char *name, const char *data, ssize_t r);
/* A readlink of path: target (r bytes) or -errno. */
void record_link(const char *path, const char *target, ssize_t r);
/* Has tree_path been recorded? */
bool record_has(const char *tree_path);
/* Drop what was recorded of path (a thread the scan no longer needs). */
void record_forget(const char *path);
/* Stop recording and take every entry (a list; free with record_free). */
struct rec_entry *record_take(void);
void record_free(struct rec_entry *list);

/* ---- conf.c ---- */

/* A [pressure] setting: the kernel's PSI trigger (Documentation/accounting/psi.rst): "some"
 * or "full" stall of stall_us within window_us; on false: "no". */
struct cgw_psi_trigger { bool on, full; unsigned stall_us, window_us; };
#define PSI_WINDOW_MIN_US 500000u         /* the windows the kernel takes: 500 ms .. 10 s */
#define PSI_WINDOW_MAX_US 10000000u
/* Parse a [pressure] value: "no", or "some|full STALL WINDOW" with durations such as 500ms,
 * 1s, 1.5s, 250000us (stall > 0 and <= window, window 500 ms..10 s, whole microseconds).
 * 0, or -EINVAL with why in err (cap bytes). Pure. */
int psi_trigger_parse(const char *s, struct cgw_psi_trigger *t, char *err, size_t cap);
/* t as a [pressure] value ("some 500ms 1s", "no") into buf; returns buf. */
const char *psi_trigger_format(const struct cgw_psi_trigger *t, char *buf, size_t cap);
/* A duration in microseconds as a person reads it: "500 ms", "1 s", "1.5 s", "250 us". */
const char *psi_us_text(unsigned us, char *buf, size_t cap);

/* [scan] source: the task iterator where the kernel allows it, else /proc; or /proc always */
enum cgw_scan_source { SCAN_SOURCE_AUTO = 0, SCAN_SOURCE_PROC, SCAN_SOURCE_WALKER };

struct cgw_conf {
	double scan_interval_s;        /* [scan] interval */
	double read_timeout_s;         /* [scan] read_timeout */
	double check_timeout_s;        /* [scan] check_timeout */
	double ustack_max;             /* [scan] ustack_max: user stacks unwound per scan, 0 off */
	double symbol_cache_mib;       /* [scan] symbol_cache: the ELF symbol cache's cap, MiB */
	int scan_source;               /* [scan] source: enum cgw_scan_source */
	double blocked_warning_s;      /* [thresholds] blocked_warning */
	double blocked_critical_s;     /* [thresholds] blocked_critical */
	double starved_s;              /* [thresholds] starved */
	double update_interval_s;      /* [incidents] update_interval */
	double audit_interval_s;       /* [audit] interval: the daemon's audits, 0 none */
	char *signatures_dir;          /* [signatures] shipped, "" = none */
	char *local_signatures_dir;    /* [signatures] local, "" = none */
	char *local_hazards_dir;       /* [hazards] local, "" = none */
	char *state_dir;               /* [run] state_dir */
	char *report_dir;              /* [reports] dir */
	double report_keep;            /* [reports] keep: files, both formats counted */
	double report_max_mib;         /* [reports] max_size: MiB of all reports */
	char *metrics_file;            /* [run] metrics_file, "" = off */
	double nice;                   /* [run] nice */
	int io_class;                  /* [run] io_class: IOPRIO_CLASS_* (0 = leave as is) */
	bool lock_memory;              /* [run] lock_memory */
	bool pin_housekeeping;         /* [run] pin_housekeeping */
	double bundle_max_file_mib;    /* [bundle] max_file_size: MiB of one member */
	double bundle_max_mib;         /* [bundle] max_size: MiB all members cost a replay */
	double bundle_max_members;     /* [bundle] max_members, the manifest included */
	bool bundle_auto;              /* [bundle] auto: the daemon bundles critical incidents */
	char *bundle_dir;              /* [bundle] dir: where the daemon leaves them */
	double bundle_keep;            /* [bundle] keep: the newest kept */
	double bundle_min_interval_s;  /* [bundle] min_interval: host-wide, between two */
	bool bundle_redact;            /* [bundle] redact: bundles are redacted (default no) */
	bool recorder_enabled;         /* [recorder] enabled: the daemon's flight recorder */
	double recorder_buffer_kb;     /* [recorder] buffer_kb: its ring per CPU, KiB */
	double recorder_window_s;      /* [recorder] window: seconds read out for an incident */
	bool recorder_cpuset_opens;    /* [recorder] cpuset_opens: record cpuset.mems opens */
	char *recorder_instance;       /* [recorder] instance: instances/NAME of tracefs */
	char *recorder_sched_switch;   /* [recorder] sched_switch: auto, no or a CPU list */
	double latency_runq_p99_ms;    /* [latency] runq_p99_ms: a CPU's p99 run-queue wait that
	                                  opens a latency finding, 0 off */
	double latency_runq_scans;     /* [latency] runq_scans: consecutive scans past it (daemon) */
	double latency_runq_resolve_scans;  /* [latency] runq_resolve_scans: consecutive full
	                                  intervals without it before its incident resolves */
	double latency_runq_min_waits; /* [latency] runq_min_waits: waits a p99 needs to count */
	double latency_page_after_s;   /* [latency] page_after: how long a CPU's p99 that points to
	                                  no known mechanism passes before it pages */
	int latency_runq;              /* [latency] runq: RUNQ_MODE_AUTO, _SCHEDSTAT or _OFF */
	int latency_timerlat;          /* [latency] timerlat: TL_MODE_AUTO, _ALWAYS or _NO */
	struct cgw_psi_trigger pressure[3];  /* [pressure] cpu, memory, io (enum cgw_psi_res) */
	double pressure_page_after_s;     /* [pressure] page_after: how long a crossing that points
	                                     to no known mechanism lasts before it pages */
};
/* Fill c with built-in defaults. */
void conf_defaults(struct cgw_conf *c);
/* Parse path into c (on top of defaults). Errors go to err as "file:line: msg".
 * Returns the error count, or -errno when the file cannot be opened. */
int conf_read_file(struct cgw_conf *c, const char *path, FILE *err);
/* Defaults, then path (NULL: the default file, which may be absent), then
 * CGWATCH_SIGNATURES_DIR. Returns 0, or EXIT_USAGE after printing the errors; either way the
 * caller frees c with conf_free(). */
int config_load(struct cgw_conf *c, const char *path);
/* The effective configuration as cgwatch.conf text, every key (malloc'd, *len bytes). */
char *conf_dump(const struct cgw_conf *c, size_t *len);
/* dst as a copy of src that owns its strings. 0, or -ENOMEM (dst then holds nothing). */
int conf_copy(struct cgw_conf *dst, const struct cgw_conf *src);
/* Free what conf_read_file and config_load allocated in c. */
void conf_free(struct cgw_conf *c);

/* ---- ini.c: line-counting wrapper around inih ---- */

/* Handler gets the line number of the key, and cont=true when the value is a continuation
 * line of the previous key; it returns 0 to record an error (already printed). */
typedef int (*ini_line_handler)(void *user, const char *section, const char *key,
                                const char *value, int line, bool cont);
/* Parse path with inih. Lines too long for inih are errors. Returns the number of errors
 * reported by handler plus syntax errors (printed to err as "file:line: msg"), or -errno. */
int ini_load(const char *path, ini_line_handler h, void *user, FILE *err);
/* The same for text held in memory (len bytes), named name in messages. */
int ini_load_text(const char *name, const char *text, size_t len, ini_line_handler h,
                  void *user, FILE *err);
/* Append a continuation line to the text field *field, one space between (xrealloc). */
void ini_text_append(char **field, const char *more);
/* When key is one of names (NULL-terminated), replace the matching field (*fields[i]) by a
 * copy of value and return it (the field a continuation line extends); else NULL. */
char **ini_text_set(const char *key, const char *value, const char *const *names,
                    char **const *fields);
/* Append a copy of s to the string list *v of *n entries (xrealloc, xstrdup). */
void ini_strv_push(char ***v, size_t *n, const char *s);
/* Free a string list of n entries and its array. */
void ini_strv_free(char **v, size_t n);
/* Is value an id: a letter, then letters, digits, '-' and '_', at most 64 in all? When not,
 * says why to err as "path:line: ..." and returns false. */
bool ini_id_ok(const char *value, const char *path, int line, FILE *err);

/* ---- kfeat.c: the kernel features used, and those the kernel refused ---- */

enum cgw_kf { KF_TASK_WALKER, KF_TASK_ITERATOR, KF_RUNQ_PROGRAM, KF_COUNTERS, KF_N };
enum cgw_kf_state {
	KFS_NOT_TRIED,                     /* this command does not use it (why says so) */
	KFS_USED,
	KFS_AVAILABLE,                     /* loaded, kept as a fallback or for some cases */
	KFS_REFUSED,                       /* the kernel or a sandbox refused it: why */
	KFS_OFF,                           /* turned off by the configuration */
};
struct cgw_kernel {
	struct { enum cgw_kf_state state; char why[288]; } f[KF_N];
	char runq_source[16];              /* "runq-program", "schedstat", or "" (none) */
};

/* Feature f's name as the log, JSON and manifest say it ("task-walker", ...). */
const char *kf_name(enum cgw_kf f);
/* State s as they say it ("used", "refused", ...). */
const char *kf_state_name(enum cgw_kf_state s);
/* Feature f of k is in state s, for the reason fmt (printf); no-op when k is NULL. */
void kf_set(struct cgw_kernel *k, enum cgw_kf f, enum cgw_kf_state s, const char *fmt, ...)
	__attribute__((format(printf, 4, 5)));
/* Both scan programs (walker, iterator) in state s, for the same reason; no-op when k is NULL. */
void kf_set_scan(struct cgw_kernel *k, enum cgw_kf_state s, const char *why);
/* What the scan reads: "task-walker", "task-iterator" or "proc". */
const char *kf_scan_source(const struct cgw_kernel *k);
/* What run-queue latency is measured with: "runq-program", "schedstat" or "none". */
const char *kf_runq_source(const struct cgw_kernel *k);
/* "NAME STATE (why)" of feature f into buf: the daemon's log line. */
void kf_line(const struct cgw_kernel *k, enum cgw_kf f, char *buf, size_t cap);
struct json_object;
/* k as JSON: {"release", "scan_source", "runq_source", "features": [{"name", "state",
 * "why"}]}: check's scan.kernel, a bundle manifest's kernel_features. */
struct json_object *kf_json(const struct cgw_kernel *k, const char *release);

/* ---- cpushare.c: a thread's share of its CPU between two reads, nohz_full or not (pure) ---- */

/* One read of a thread's scheduler times (/proc/TID/sched with its stat, or the BPF walker's
 * record of it). */
struct share_read {
	double mono_ms;                   /* CLOCK_MONOTONIC of the read */
	double sum_exec_ms, exec_start_ms;    /* se.sum_exec_runtime, se.exec_start */
	unsigned long long nr_switches;
	bool have_switches;
	char state;                       /* stat's letter */
	int cpu;                          /* the CPU it last ran on */
	unsigned policy, rt_priority;
};
enum share_how {
	SHARE_ACCOUNTED,                  /* its accounted CPU time over the window */
	SHARE_RAN_THROUGHOUT,             /* its CPU ran it the whole window, accounted or not */
};
/* Is v[i] the thread its CPU runs, of the n reads v (any CPUs)? It is runnable, and no other
 * runnable thread read on that CPU is of a higher class (deadline, real-time by priority,
 * the rest) or of the same and was given the CPU later (a later se.exec_start). */
bool share_on_cpu(const struct share_read *v, size_t n, size_t i);
/* The share of its CPU, 0.., the thread of reads a then b used in between: 1 when its CPU ran
 * it throughout (on_cpu_at_b: share_on_cpu at b; runnable on the same CPU at both, no switch,
 * sum_exec_runtime grown as exec_start), whatever the kernel accounted (nohz_full stops the
 * tick that would); else its accounted time over the window. *how says which; -1 when b is
 * not after a. */
double cpu_share(const struct share_read *a, const struct share_read *b, bool on_cpu_at_b,
                 enum share_how *how);

/* ---- warnonce.c: a repeated warning said once, counted, said again when it changes ---- */

struct warn_once { char last[1536]; uint64_t hash; unsigned long repeats; bool active; };
/* The next state of a warning: msg (NULL: it cleared). Returns true with the line to say in
 * out (cap bytes): msg when new; "<last>: again N times; now: <msg>" when it changed after
 * repeats; "<last>: again N times; now cleared" (or "<last>: now cleared") when it cleared.
 * Returns false (out "") for a repeat, counted, or a clear with nothing active. */
bool warn_step(struct warn_once *w, const char *msg, char *out, size_t cap);
/* warn_step with a formatted message, the line to log_warnx. */
void warn_once(struct warn_once *w, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* warn_step(NULL): the failure is over; said when one was active. */
void warn_clear(struct warn_once *w);
/* Many warnings of one pass (a scan), each followed on its own (at most 64; more are said
 * every time): said the first pass, counted while each pass says it again, and said cleared,
 * with the count, at the end of the first pass without it. NULL from warn_set_new (no
 * memory) or given as ws: every warning is said. */
struct warn_set;
struct warn_set *warn_set_new(void);
void warn_set_free(struct warn_set *ws);
/* A warning of this pass (log_warnx when ws is NULL). */
void warn_set_say(struct warn_set *ws, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
/* The pass is over: warnings it did not say are cleared. */
void warn_set_end(struct warn_set *ws);

/* ---- footprint.c: the daemon's own limits ---- */

/* Bytes of locked memory the daemon needs on a host with this many threads (base, and a
 * share per thread, capped): what RLIMIT_MEMLOCK must allow before mlockall(MCL_FUTURE). */
uint64_t memlock_need(uint64_t threads);
/* Lock memory under RLIMIT_MEMLOCK limit (RLIM_INFINITY: none; ignored with CAP_IPC_LOCK
 * effective, ipc_lock) when the daemon needs need bytes? The sentence for the log in msg:
 * locking and why, or not and why not. */
bool memlock_decide(uint64_t limit, bool ipc_lock, uint64_t need, char *msg, size_t cap);
/* Did the service manager apply the unit's OOMScoreAdjust and LimitNOFILE (a container may
 * silently not)? Returns true with the sentence naming each that differs in msg. A NOFILE
 * above the one asked for is fine. */
bool limits_check(long oom_adj, long want_oom_adj, uint64_t nofile, uint64_t want_nofile,
                  char *msg, size_t cap);

/* ---- atomic.c ---- */

/* Write data to path atomically, created with mode: path.tmp made afresh (O_EXCL|O_NOFOLLOW)
 * in the directory (opened O_NOFOLLOW, atomic_dir_check'd), fchmod, fsync, rename, fsync of
 * the directory. Returns 0 or -errno (the temporary file is removed). */
int atomic_write(const char *path, const char *data, size_t len, mode_t mode);
/* The same, with a sentence for the user in why (cap bytes) on failure: strerror, or why the
 * directory was refused (-EPERM). */
int atomic_write_why(const char *path, const char *data, size_t len, mode_t mode, char *why,
                     size_t cap);
/* One file of a set: its name in the directory (no '/'), its content. */
struct atomic_file { const char *name; const char *data; size_t len; };
/* Write n files into dir, all or none: every temporary file first, then the renames; on any
 * failure nothing new is left (the ones renamed are removed). Returns 0 or -errno, with why. */
int atomic_write_set(const char *dir, const struct atomic_file *f, size_t n, mode_t mode,
                     char *why, size_t cap);
/* Is the directory open at dfd (named dir) one only we or root can change: owned by us or
 * root, not writable by group or others? Returns 0, or -EPERM with the reason in why. */
int atomic_dir_check(int dfd, const char *dir, char *why, size_t cap);
/* Write data to path atomically, created with mode, for a directory others may share (the
 * one a bundle is written to, /tmp say): a temporary file of a name of its own (mkostemp,
 * O_EXCL), fchmod, fsync, renamed over path, fsync of the directory. 0 or -errno, why said. */
int atomic_write_new(const char *path, const char *data, size_t len, mode_t mode, char *why,
                     size_t cap);

/* ---- owner.c: one owner per shared thing (a tracefs instance, timerlat's settings) ---- */

#define CGW_RUN_DIR "/run/cgwatch"      /* the owner files and what to put back */
struct cgw_owner {
	bool held;                        /* the lock is ours: fd and dfd are open */
	int fd, dfd;                      /* DIR/NAME.lock, flock'd; DIR */
	pid_t holder;                     /* on -EBUSY: the PID the holder wrote, 0 none */
	char dir[128], name[80];          /* DIR; NAME.lock */
	char path[256];                   /* DIR/NAME.lock, for messages */
	char why[320];                    /* on failure: why, naming the file (and holder) */
};
/* Take DIR/NAME.lock (dir NULL: CGW_RUN_DIR, made 0755 when missing; refused when a symlink or
 * writable by others) with flock, this PID written in it; a file whose lock is free (its
 * holder gone) is taken over. 0 held; -EBUSY held by o->holder; else -errno; o->why says. */
int owner_take(const char *dir, const char *name, struct cgw_owner *o);
/* Give it up: the file removed (when still ours), the lock dropped. Nothing when not held. */
void owner_release(struct cgw_owner *o);
/* DIR/NAME.SUFFIX, for whoever owns NAME next, written atomically (a temporary file synced
 * and renamed over it) by the holder. 0 or -errno. */
int owner_save(const struct cgw_owner *o, const char *suffix, const char *text);
/* DIR/NAME.SUFFIX (a regular file) into buf (cap bytes, NUL-terminated): its length, or
 * -errno (-ENOENT: none). For the holder only. */
ssize_t owner_load(const struct cgw_owner *o, const char *suffix, char *buf, size_t cap);
/* Remove DIR/NAME.SUFFIX; 0 (none there too) or -errno. */
int owner_forget(const struct cgw_owner *o, const char *suffix);

/* ---- json.c: JSON values every JSON writer shares ---- */

struct json_object;
/* Print o pretty to out. Returns 0, -ENOMEM or -EIO. */
int json_write(struct json_object *o, FILE *out);
/* Seconds as a JSON number printed with one decimal. */
struct json_object *jseconds(double s);
/* A number printed with `decimals` digits (0.1 s is what a person reads). */
struct json_object *jround(double v, int decimals);
/* arr, printed as json-c prints it but formatted once for each level and flags it is printed
 * at: an array shared by many parents (2,000 threads' user stack) is not formatted again under
 * each. arr must not change after it is printed. Returns arr. */
struct json_object *jshared(struct json_object *arr);
/* A string from a task or the host as a JSON string: the real string (utf8_escape), with no
 * raw control character (DEL and C1 included) in the printed JSON. */
struct json_object *jstr_untrusted(const char *s, size_t n);
/* jstr_untrusted of a NUL-terminated string (NULL: ""). */
struct json_object *jstr(const char *s);

/* ---- parse-proc.c: pure parsers of /proc text ---- */

/* /proc/TID/stat, e.g.
 * 1765 (kworker/u768:1+cpuset_migrate_mm) D 2 0 0 0 -1 69238880 0 0 0 0 ... */
struct cgw_stat {
	int tid, ppid;
	char state;
	char comm[CGW_COMM_MAX];
	size_t comm_len;               /* comm may hold NUL-free arbitrary bytes, even '\n' */
	unsigned long flags;
	unsigned long long start_ticks;
	int cpu;
	unsigned rt_priority, policy;
};
/* Parse a stat line; comm is taken between the first '(' and the LAST ')'. Every field read
 * must be a count in its range (tid 1..INT_MAX, ppid, flags, start time within CGW_MAX_COUNT,
 * cpu below CGW_MAX_CPUS, rt_priority 0..99, policy). Returns 0, -EINVAL or -ERANGE. */
int parse_stat_buf(const char *buf, size_t len, struct cgw_stat *out);

/* /proc/TID/sched: "se.exec_start : 99786.458684", "nr_switches : 1", "policy : 0" */
struct cgw_sched {
	double exec_start_ms;
	double sum_exec_ms;               /* se.sum_exec_runtime: CPU time used, ms */
	unsigned long long nr_switches;
	bool have_exec_start, have_switches;
	const char *bad;                  /* the key whose value is no time or count, or NULL */
	bool have_delay;                  /* the scan's iterator: sched_info's run_delay (ns waited
	                                     on a run queue) and pcount (times it got a CPU) */
	uint64_t run_delay_ns, pcount;
};
/* Returns 0 when se.exec_start was found and every value read (se.exec_start,
 * se.sum_exec_runtime, nr_switches; the last line of each) is a finite time within
 * CGW_MAX_SECONDS or a count within CGW_MAX_COUNT; else -EINVAL or -ERANGE, bad naming the
 * key when it was a value. */
int parse_sched_buf(const char *buf, struct cgw_sched *out);

/* /proc/TID/status: the fields cgwatch uses. */
struct cgw_status {
	int tgid, ppid;
	unsigned uid;
	char cpus_allowed[256];        /* Cpus_allowed_list, kernel syntax */
	unsigned long long vol_switches, nonvol_switches;
};
/* Returns 0 when Tgid was found and every field read is in range (Tgid 1..INT_MAX, PPid,
 * the real uid below 2^32-1, counts within CGW_MAX_COUNT, Cpus_allowed_list a CPU list);
 * -EINVAL or -ERANGE otherwise. */
int parse_status_buf(const char *buf, struct cgw_status *out);

/* /proc/uptime ("5702.63 11160.30"): the first number, a time within CGW_MAX_SECONDS.
 * Returns 0 or -EINVAL/-ERANGE. */
int parse_uptime(const char *buf, double *out);

/* One kernel stack frame: "__flush_work+0x7d/0xd0" as text, "__flush_work" as name. */
struct cgw_frame { char *text; char *name; };
/* Parse /proc/TID/stack ("[<0>] __flush_work+0x7d/0xd0") into a new array.
 * Returns the frame count (>= 0) or -EINVAL; free with frames_free(). */
int parse_stack_buf(const char *buf, struct cgw_frame **out);
void frames_free(struct cgw_frame *f, size_t n);
/* Function name of a frame text: drops "+off/len", " [module]" and ".constprop.0"-style
 * clone suffixes. Writes into out (cap bytes) and returns out. */
char *frame_name(const char *text, char *out, size_t cap);

/* The value of the last "key=value" on a kernel command line (before a lone "--"),
 * or NULL when absent. "key" alone gives "". Writes into out (cap bytes). */
const char *cmdline_get(const char *cmdline, const char *key, char *out, size_t cap);

enum { ISOL_DOMAIN = 1, ISOL_NOHZ = 2, ISOL_MANAGED_IRQ = 4 };
/* Parse an isolcpus= value ("nohz,domain,18-95" or "1-3"): flags ISOL_*, CPUs.
 * Returns 0 or -EINVAL. With no flag the kernel means "domain". */
int parse_isolcpus(const char *val, unsigned *flags, struct cgw_cpus *cpus);

/* /proc/TID/cgroup: the path in the v2 hierarchy ("0::/x") and in the v1 hierarchy holding
 * `controller` (e.g. "freezer"). Each out may be NULL. Returns 0, -ENOENT, or -EINVAL when
 * a wanted hierarchy appears twice (a cgroup name with a newline forging a line). */
int parse_cgroup_buf(const char *buf, const char *controller, char *v1, size_t v1cap,
                     char *v2, size_t v2cap);

/* A kworker's name, taken apart. */
struct cgw_kworker {
	int cpu;                          /* per-CPU pool: its CPU; -1 unbound or rescuer */
	int pool;                         /* pool number (the CPU, or the unbound pool id) */
	bool unbound, rescuer, highpri;
	bool running;                     /* '+': running wq's work now; '-': ran it last */
	char wq[64];                      /* "" when it has run no work yet */
};
/* Parse "kworker/18:1-mm_percpu_wq", "kworker/u768:1+cpuset_migrate_mm", "kworker/0:0H",
 * "kworker/R-mm_percpu_wq". Returns 0, or -EINVAL when comm is not a kworker's name. */
int parse_kworker(const char *comm, size_t len, struct cgw_kworker *out);

/* The systemd unit a cgroup path belongs to ("/system.slice/sshd.service" -> "sshd.service"),
 * "" when none. Writes into out (cap bytes) and returns out. */
char *cgroup_unit(const char *path, char *out, size_t cap);

/* One line of /proc/PID/mountinfo: mount point (unescaped), its device (major:minor), file
 * system type, super options. */
struct mountinfo_ent { char mnt[1024]; char dev[32]; char fstype[64]; char sopts[1024]; };
/* The next mount of the mountinfo text at *pos (advanced past it). Returns 1, or 0 at the end.
 * Lines that are not mountinfo lines are skipped. */
int mountinfo_next(const char **pos, struct mountinfo_ent *out);
/* /proc/self/mountinfo: mount point of the v1 hierarchy with `controller` in its super
 * options (or "name=x"), or of cgroup2 when controller is NULL. Returns 0 or -ENOENT. */
int parse_mountinfo_cgroup(const char *buf, const char *controller, char *out, size_t cap);

/* ---- parse-bpfrec.c: the task iterator's records, /proc/kallsyms lines (pure) ---- */

/* One record of the task iterator (src/bpf/taskrec.h), its values checked. */
struct cgw_bpfrec {
	int kind;                         /* TASKREC_TASK, _LEADER or _END */
	unsigned threads;                 /* _END: the threads the walk counted, and (tgid) the
	                                     reader's process as the kernel numbers it */
	char state;                       /* the letter /proc prints */
	unsigned rflags;                  /* TASKREC_HAVE_STACK, _ON_CPU, _HAVE_SCHED_INFO */
	int tid, tgid, ppid, cpu;
	unsigned long flags;
	unsigned policy, rt_priority;
	int prio, stack_err;              /* stack_err: bpf_get_task_stack's -errno, or 0 */
	uint64_t start_boottime, exec_start, sum_exec_runtime, prev_sum_exec_runtime;
	uint64_t last_arrival, last_queued;   /* _END: last_arrival is "now" on the rq clock
	                                         of its cpu, at the end of the walk */
	uint64_t run_delay, pcount;       /* sched_info: ns waited runnable, times it got a CPU */
	uint64_t cgroups;                 /* its css_set, an identity: same cgroups (0 unknown) */
	unsigned long long nvcsw, nivcsw;
	char comm[17]; size_t comm_len;
	const unsigned char *frames; size_t nframes;   /* into the buffer: bpfrec_frame() */
	uint64_t lock;                    /* the lock a D task is blocked on (task->blocker), 0 */
	int lock_kind;                    /* TASKREC_LOCK_*: mutex, semaphore, rwsem read/write */
	bool owner_readers;               /* an rwsem held for reading: owner is the last reader */
	int owner_tid, owner_tgid;        /* its owner (a semaphore's last holder), 0 none */
	char owner_comm[17]; size_t owner_comm_len;
};
/* The record at buf + *off (len bytes in all): 1 with *off past it, 0 at the end, -EINVAL
 * (torn, not a record, an unknown kind or state) or -ERANGE (tid 1..INT_MAX, ppid >= 0, cpu
 * below CGW_MAX_CPUS, rt_priority 0..99, times within CGW_MAX_SECONDS, counts within
 * CGW_MAX_COUNT). */
int bpfrec_next(const void *buf, size_t len, size_t *off, struct cgw_bpfrec *out);
/* How long the blocked (not R) task of r has been off the CPU at the end of the walk, in
 * seconds, by the rq clock (not reset when a queued task is moved, as se.exec_start is): it
 * left when its last slice ended, sched_info.last_arrival plus the CPU time of that slice,
 * against end's "now" on that clock (one clock across CPUs where sched_clock is stable). -1
 * when r has no such times (no CONFIG_SCHED_INFO, never ran, runnable). */
double bpfrec_off_cpu_s(const struct cgw_bpfrec *r, const struct cgw_bpfrec *end);
/* How long the runnable task of r has waited on a run queue at the end of the walk, in
 * seconds: since sched_info.last_queued (stamped when it was queued or preempted, cleared
 * when it is picked), against end's "now" on the rq clock. -1 when r is not waiting so (not
 * R, on a CPU, no CONFIG_SCHED_INFO). */
double bpfrec_queued_s(const struct cgw_bpfrec *r, const struct cgw_bpfrec *end);
/* The i-th kernel address of r's stack (0 past the end). */
uint64_t bpfrec_frame(const struct cgw_bpfrec *r, size_t i);
/* r as /proc/TID/stat and /proc/TID/sched would have shown it (start time in clk_tck ticks,
 * times in ms: the same doubles the text parses to). */
void bpfrec_stat(const struct cgw_bpfrec *r, long clk_tck, struct cgw_stat *st,
                 struct cgw_sched *sc);
/* One /proc/kallsyms line, "ffffffff81000000 T _stext" or "... t name\t[module]": name and
 * mod point into line (mod NULL for the kernel's own). 0 or -EINVAL. */
struct cgw_ksym { uint64_t addr; char type; const char *name; size_t name_len;
                  const char *mod; size_t mod_len; };
int kallsyms_line(const char *line, size_t len, struct cgw_ksym *out);

/* ---- parse-syscall.c: which file a blocked task waits on (pure) ---- */

/* /proc/TID/syscall: the syscall number and its six arguments. */
struct cgw_syscall { long nr; unsigned long arg[6], sp, pc; };
/* Parse "257 0xffffff9c 0x7ffd1000 0x0 0x0 0x0 0x0 0x7ffd0f00 0x7f12..." (nr, six arguments,
 * stack and program counter). Returns 1 when the task is in a syscall, 0 when that is not
 * known ("running", or "-1 sp pc": not in a syscall; nr is then -1), -EINVAL otherwise. */
int parse_syscall_line(const char *buf, struct cgw_syscall *out);
/* How a syscall names the file it works on: not at all, an fd in argument 0, a path in
 * argument 0, or a directory fd in argument 0 and a path (relative to it) in argument 1. */
enum sys_file { SYSF_NONE = 0, SYSF_FD, SYSF_PATH, SYSF_AT };
struct sys_info { const char *name; enum sys_file kind; };
/* The name ("statx") and kind of syscall nr on this architecture; name NULL when the syscall
 * names no file cgwatch follows. */
struct sys_info syscall_info(long nr);
/* path made absolute (relative to base, an absolute path, when it is relative) and cleaned
 * lexically ("//", "." and ".." components) into out (cap bytes). Returns 0, -EINVAL (no
 * absolute base) or -ENAMETOOLONG. */
int path_join(const char *base, const char *path, char *out, size_t cap);
/* The mount holding the absolute path in mountinfo text: the longest mount point that is
 * path or a directory above it (of equal ones the last listed, which is on top). Returns 0
 * with *out, or -ENOENT. */
int mount_of_path(const char *mountinfo, const char *path, struct mountinfo_ent *out);

/* ---- parse-maps.c: /proc/TID/maps lines, for the user-stack unwinder (pure) ---- */

/* One mapping: [start, end), permissions, file offset, device, inode, and the path (a pointer
 * into the parsed text, path_len bytes, not NUL-terminated; "" for an anonymous mapping;
 * "[stack]", "[vdso]", ... as the kernel names them; a deleted file ends in " (deleted)"). */
struct maps_ent {
	unsigned long start, end, off, inode;
	bool r, w, x, shared;
	unsigned dev_major, dev_minor;
	const char *path; size_t path_len;
};
/* Parse one line of /proc/TID/maps (len bytes, no newline): "START-END PERMS OFF MAJ:MIN
 * INODE [PATH]", hex addresses and offset, start < end. Returns 0 or -EINVAL. */
int parse_maps_line(const char *line, size_t len, struct maps_ent *e);
/* A process's maps text parsed once: its mappings in ascending address order, none
 * overlapping, for lookups by address in O(log n). The entries' paths point into the text,
 * which must outlive the index. */
struct maps_index { struct maps_ent *e; size_t n; };
/* Parse maps text (NUL-terminated, lines ending in '\n') into ix: 0; -EINVAL with *line (from
 * 1) the first line that does not parse or starts below the previous one's end (the kernel
 * writes them ascending, never overlapping: nothing of other text is trusted, ix is left
 * empty); -ENOMEM. */
int maps_index_parse(const char *text, struct maps_index *ix, size_t *line);
/* The mapping of ix holding addr (start <= addr < end), or NULL. */
const struct maps_ent *maps_index_find(const struct maps_index *ix, unsigned long addr);
/* Free ix's entries (not its text) and empty it; an empty one: nothing. */
void maps_index_free(struct maps_index *ix);

/* ---- parse-fpchain.c: a frame pointer found by scanning stack bytes (pure) ---- */

struct fpc_range { unsigned long start, end; };
/* What a scan is given: len bytes of the stack read at base; the stopped frame's sp (the scan
 * starts there), its pc and its function [fn_start, fn_end) (0s: unknown); the stack mapping
 * [stack_lo, stack_hi); the executable mappings, sorted and apart; read(ctx, addr, buf, n):
 * memory the window does not hold (code, links past it), 0 or -1. */
struct fpc_in {
	const unsigned char *win; size_t len; unsigned long base;
	unsigned long sp, pc, fn_start, fn_end, stack_lo, stack_hi;
	const struct fpc_range *exec; size_t nexec;
	int (*read)(void *ctx, unsigned long addr, void *buf, size_t n);
	void *ctx;
};
#define FPC_BY_CALL 1                  /* its return address follows a call of the function */
#define FPC_BY_BOUND 2                 /* it lies exactly where the function's prologue puts it */
#define FPC_BY_CHAIN 3                 /* an indirect call's, and every other record in its chain */
/* What came of it: the frame record (rbp its address, ra the return address at rbp+8) and
 * how it was told apart (FPC_BY_*); bound: no record is looked for below it (sp plus the
 * frame the prologue makes), bound_exact when the prologue decoded whole; ncand: records
 * well-formed above bound; why: when none is trusted (a static string). */
struct fpc_out {
	unsigned long rbp, ra, bound;
	bool bound_exact;
	int how;
	unsigned ncand;
	const char *why;
};
/* The rbp of the stopped frame (a frame-pointer function whose unwind needs it): the one
 * frame record above sp that must be its (file comment of parse-fpchain.c). Returns 0 with
 * out->rbp, -ENOENT (none) or -EAGAIN (more than one could be: none trusted), out->why said. */
int fpchain_find(const struct fpc_in *in, struct fpc_out *out);
/* A scan reads the stack only as frame records: does its answer depend on the stack word w
 * at addr, the word above it (addr + 8) being up? Yes when w points into an executable
 * mapping (a return address), or when up does and w is 0 or could be its record's link
 * (aligned, above the record, in the stack). Any other word reads as "no record here",
 * whatever it holds: a copy of the stack may leave it out and give FPC_UNKEPT in its place
 * (in->exec and in->stack_hi are what this reads of in). */
bool fpchain_word_counts(const struct fpc_in *in, unsigned long addr, unsigned long w,
                         unsigned long up);
#define FPC_UNKEPT (~0ul)              /* a word left out: in no mapping, never a link */

/* ---- parse-manifest.c: a bundle's manifest.json and its member names (pure) ---- */

#define BUNDLE_SCHEMA "cgwatch.bundle/1"
#define BUNDLE_MAX_MEMBERS 200000     /* members of one bundle, at most ([bundle] max_members) */
#define BUNDLE_PAGE 4096              /* a tmpfs keeps a file's data in whole pages */
#define BUNDLE_INODE 1024             /* and an inode and dentry for each member (752 + 192) */

enum bm_type { BM_FILE = 0, BM_SYMLINK, BM_DIR };
/* What a member of type t costs the tmpfs of a replay, as [bundle] max_size counts it: a file
 * its size (a symlink its target's length, size) in whole pages, every member BUNDLE_INODE and
 * its name's namelen bytes. 100,000 one-byte files in a tmpfs took 522 MB here (5.2 KiB each),
 * where their bytes add up to 100 KB. */
uint64_t bundle_member_cost(enum bm_type t, uint64_t size, size_t namelen);
/* One member: its name in the archive (utf8_escape'd as JSON holds it), type, size (a
 * symlink: its target's length), sha256 of its content (a symlink: of its target) in hex. */
struct bundle_member {
	char *path;
	enum bm_type type;
	uint64_t size;
	char sha256[65];
	char *target;                     /* a symlink's target, else NULL */
};
/* A file the capture could not read, or left out (a cap), and why. */
struct bundle_note { char *path; char *why; uint64_t size; };
struct bundle_manifest {
	char *version, *host, *kernel, *root, *start, *end;
	char *kfeat;                      /* kernel_features as JSON text (kf_json), or NULL */
	double max_file_mib, max_mib;     /* the caps it was made with */
	int check_exit;                   /* the exit code of the check its reports are */
	bool redacted;                    /* made with --redact */
	struct bundle_member *m; size_t n, cap;
	struct bundle_note *unreadable; size_t nunreadable, unreadable_cap;
	struct bundle_note *left_out; size_t nleft_out, left_out_cap;
};
/* Is name (len bytes) safe to extract under a private directory: relative, no "", "." or ".."
 * component, no NUL, at most 4095 bytes and 255 per component (one trailing '/' allowed)?
 * Returns 0, or -EINVAL with the reason in why. */
int member_name_check(const char *name, size_t len, char *why, size_t cap);
/* The same for a name as manifest.json lists it: utf8_escape'd (at most 4095 bytes in all, a
 * byte that is not UTF-8 four), so a component may be 4 * 255 bytes. */
int manifest_name_check(const char *name, char *why, size_t cap);
/* May the member name be a symlink: a task's fd/N, cwd, root or exe link under
 * tree/proc/PID/ or tree/proc/PID/task/TID/ (whose target is a name the replay reads,
 * never follows)? */
bool member_link_allowed(const char *name);
/* Is a symlink member name -> target acceptable? Returns 0, or -EINVAL with why: a target
 * that is absolute or holds ".." points outside the tree; anywhere but a link position
 * (member_link_allowed) a symlink is refused. */
int member_link_check(const char *name, const char *target, char *why, size_t cap);
/* sha256 of len bytes at p as 64 lowercase hex digits into out. */
void sha256_hex(const void *p, size_t len, char out[65]);
/* Add a member (path and target copied) / a note. Return 0 or -ENOMEM. */
int manifest_add(struct bundle_manifest *m, const char *path, enum bm_type type, uint64_t size,
                 const char *sha256, const char *target);
int manifest_note(struct bundle_manifest *m, bool left_out, const char *path, uint64_t size,
                  const char *why);
/* The manifest as cgwatch.bundle/1 JSON (malloc'd, *len bytes), or NULL without memory. */
char *manifest_json(const struct bundle_manifest *m, size_t *len);
/* Parse manifest text (len bytes): every field checked (schema, member names
 * manifest_name_check'd, sizes, 64-hex sha256). Returns 0, or -EINVAL with why (m then empty). */
int manifest_parse(const char *text, size_t len, struct bundle_manifest *m, char *why,
                   size_t cap);
/* Compare the members an archive holds (seen, n; names utf8_escape'd) with the manifest:
 * one line per problem appended to out ("missing: P", "extra: P", "size: P: ...",
 * "sha256: P: ...", "duplicate: P", "type: P: ..."). Returns the number of problems. */
size_t manifest_compare(const struct bundle_manifest *m, const struct bundle_member *seen,
                        size_t n, struct strbuf *out);
void manifest_free(struct bundle_manifest *m);


/* ---- task.c: what every stage says about a task ---- */

struct cgw_sig;
enum cgw_bound { BOUND_EXACT = 0, BOUND_LOWER, BOUND_UNKNOWN };

/* A D or R task as one read saw it, and what its duration is computed from. */
struct cgw_seen {
	int tid;
	unsigned long long start_ticks;   /* with tid, the key: tids are reused */
	char state;
	unsigned long long nr_switches;
	double sum_exec_ms;
	double exec_start_ms;             /* when it last ran, on clock_cpu's clock; 0 unknown */
	int clock_cpu;
	double since_mono_ms;             /* in this state without running at least since then */
};
struct cgw_dur { double s; enum cgw_bound bound; };
/* "Now" on the clock of a CPU: read there (exact), only a floor (it is at least ms), or not
 * known. */
struct cgw_now { double ms; enum cgw_bound bound; };

enum cgw_suspect { SUSPECT_NONE = 0, SUSPECT_BLOCKED, SUSPECT_STARVED,
                   SUSPECT_LATENCY };   /* a latency finding's waiter or holder (diagnose-latency.c) */

struct cgw_task {
	int tid, tgid, ppid;
	unsigned long long start_ticks;   /* with tid, the key: tids are reused */
	char state;
	char comm[CGW_COMM_MAX]; size_t comm_len;
	unsigned long flags;
	int cpu;
	unsigned policy, rt_priority;
	double exec_start_ms;             /* se.exec_start as read; 0: reset by the kernel */
	struct cgw_seen seen;             /* what its duration comes from (detect-duration.c) */
	double read_mono_ms;              /* when stat and sched were last read (CLOCK_MONOTONIC) */
	struct cgw_now now;               /* seen.clock_cpu's clock then: read, a floor, unknown */
	double age_s;                     /* since it started, at that read; -1 unknown */
	double blocked_s;                 /* how long blocked (D) or waiting (R), exactly or at */
	enum cgw_bound bound;             /* least; 0 when unknown */
	bool gone;                        /* exited while it was being read: dropped */
	char sched_error[160];            /* why its sched could not be used (its time is then
	                                     unknown), "" when it was read */
	/* the lock it is blocked on, where the kernel tracks it (the scan's iterator): its kind
	 * (lock_kind_name), owner (a semaphore's last holder; an rw-semaphore held for reading:
	 * the last reader, owner_likely), 0 when none is known */
	int lock_kind;
	char lock_name[64];               /* its kernel symbol (a static lock: cgroup_mutex), from
	                                     /proc/kallsyms where it lists data; "" unknown */
	bool owner_likely;
	int owner_tid, owner_tgid;
	char owner_comm[17];
	char duration_from[32];           /* the field its time comes from: "se.exec_start", or
	                                     "sched_info.last_arrival" where se.exec_start read 0
	                                     (the scan's iterator); "" a bound or unknown */
	bool have_delay;                  /* run_delay and pcount read with it (the iterator) */
	uint64_t run_delay_ns, pcount;
	char cpus_allowed[256];
	enum cgw_suspect suspect;
	double queued_s;                  /* R: waiting on a run queue since, seconds (the scan's
	                                     iterator: sched_info.last_queued); -1 unknown */
	bool drain_only;                  /* a per-CPU kworker under the starved threshold, kept
	                                     only for an LRU drain that waits for it (detect.c) */
	/* read only for suspects */
	struct cgw_frame *frames; size_t nframes;
	char stack_error[128];            /* why the stack is missing, "" when read */
	bool stack_given;                 /* frames or stack_error came with the scan's own
	                                     read (source-bpf.c): /proc/TID/stack is not read */
	char wchan[64];
	char cgroup[256], unit[128], user[64];
	uint64_t cgroups;                 /* its css_set as the BPF scan read it, an identity (0:
	                                     unknown): the same as another thread's, the same
	                                     cgroups and freezer state */
	bool cgroup_ok;                   /* cgroup, unit and the freezer state were read */
	double started_at;                /* seconds since the epoch, from libproc2 */
	bool frozen;
	bool frozen_v1;                   /* by the v1 freezer: frozen_cg is its path there */
	char frozen_cg[256];              /* the cgroup that is frozen (an ancestor's path: the
	                                   * v2 freezer freezes descendants, said as the task's) */
	int vfork_child;                  /* tid of the child a vfork parent waits for */
	int lookup_behind, lookup_behind_tgid;   /* the task whose signature it took: it waits for
	                                   * a lookup of the same name on its mount (diagnose-classify.c) */
	const struct cgw_sig *sig;
	enum cgw_sev severity;
	bool *marks;                      /* per frame: matched the signature */
	/* the file a D suspect waits on (source-waitfile.c): its syscall, the path (malloc'd, NULL when
	 * not known) and the mount holding it (mount point malloc'd, NULL when not known);
	 * sys_pc and sys_sp when sys_regs: the pc and sp its syscall line gave */
	bool sys_known; long sys_nr;
	bool sys_regs; unsigned long sys_pc, sys_sp;
	char *wait_path, *wait_mnt;
	int wait_err; double wait_err_s;  /* -ETIMEDOUT: its memory was not read within that */
	char wait_dev[32], wait_fstype[64];
	/* its user stack (source-ustack.c), only for tasks in findings: frames innermost first
	 * (malloc'd), or why there are none; ustack_same_as: the thread whose unwind it shares */
	struct cgw_uframe *uframes; size_t nuframes;
	char ustack_error[320];
	int ustack_same_as;
	/* its part in a latency finding (diagnose-latency.c): LAT_WAITED on lat_cpu for lat_ms
	 * (its longest wait in the interval), or LAT_HELD it for lat_ms (its run time there);
	 * LAT_NONE for every other task */
	enum { LAT_NONE = 0, LAT_WAITED, LAT_HELD } lat_role;
	int lat_cpu;
	double lat_ms;
};

/* "PID 1 (systemd)", or "TID 7 (x)" for a thread, comm C-escaped, into buf; returns buf. */
const char *task_name(const struct cgw_task *t, char *buf, size_t cap);
/* Does t's stack hold a frame named name (a trailing '*' matches a prefix)? */
bool task_has_frame(const struct cgw_task *t, const char *name);
/* A task's duration as one value and its bound. */
struct cgw_dur task_dur(const struct cgw_task *t);
/* What a user frame's name is, to print after its MODULE+0xOFFSET: "; nearest exported
 * symbol" (from .dynsym), "; size unknown" (a symbol of unknown size), "; symbols from the
 * task's mount namespace" (sym_task_mntns, after the size's note), else "". */
const char *ustack_sym_note(const struct cgw_uframe *f);
/* t's innermost user frame as "SYMBOL+0xOFF (MODULE+0xOFFSET[NOTE])" (ustack_sym_note) or
 * "MODULE+0xOFFSET", raw bytes (escape on output), into buf; "" when its user stack was not
 * unwound. Returns buf. */
const char *ustack_top(const struct cgw_task *t, char *buf, size_t cap);
/* Name of a scheduling policy number ("SCHED_FIFO"), "SCHED_?" when unknown. */
const char *policy_name(unsigned p);

/* ---- parse-capture.c: a capture's own files, DIR/cgwatch/{clocks,unreadable,detail/} (pure) ---- */

#define CAP_MAX_CLOCKS 1024           /* CPUs a clocks file lists at most */
#define CAP_MAX_SUSPECTS 4096         /* suspects it lists at most (more: none listed) */
struct cap_clock { int cpu; double offset_ms; enum cgw_bound bound; };
struct cap_suspect { int tid; unsigned long long start_ticks; };
/* What a live run measured that a snapshot cannot show: the reader's clock at the capture's
 * reference moment, the uptime then, each CPU's clock as an offset from the reader's (exact
 * or a floor), and the threads still stuck at its second look (a snapshot cannot look twice:
 * a thread that ran between the looks would replay as stuck). */
struct cap_clocks {
	double reader_ms;
	bool have_uptime; double uptime_s;
	struct cap_clock cpu[CAP_MAX_CLOCKS]; size_t n;
	bool have_suspects;               /* the list below is the live verdict */
	struct cap_suspect sus[CAP_MAX_SUSPECTS]; size_t nsus;
};
/* Parse a clocks file (header "cgwatch-clocks 1", one reader line, at most one uptime line,
 * cpu lines each CPU once, at most one "suspects N" line followed by N "suspect TID START"
 * lines; '#' lines and blank lines skipped; numbers as parse_decimal reads them, within a
 * century). Returns 0, -EINVAL or -ERANGE (more than CAP_MAX_CLOCKS CPUs or
 * CAP_MAX_SUSPECTS suspects). */
int parse_clocks(const char *text, struct cap_clocks *out);
/* cpu's clock ("now") from c into *now; false when c does not list cpu. */
bool clocks_cpu(const struct cap_clocks *c, int cpu, struct cgw_now *now);
/* Was (tid, start_ticks) still stuck at the live run's second look? True when c lists no
 * verdict. */
bool clocks_suspect(const struct cap_clocks *c, int tid, unsigned long long start_ticks);
/* Append c as a clocks file parse_clocks reads back. */
void clocks_format(const struct cap_clocks *c, struct strbuf *b);
/* What libproc2 said of one process in the live run (DIR/cgwatch/detail/TGID): user name,
 * systemd unit, start (seconds since the epoch); "" and !have_started when not said. */
struct cap_detail { char user[64], unit[128]; bool have_started; double started_at; };
/* Parse a detail file (header "cgwatch-detail 1", then at most one each of "user NAME",
 * "unit NAME", "started_at SECONDS"; '#' and blank lines skipped; a name is the rest of its
 * line, text only). Returns 0 or -EINVAL (out then unspecified). */
int parse_detail(const char *text, struct cap_detail *out);
/* Append d as a detail file parse_detail reads back (a name that is not text is left out). */
void detail_format(const struct cap_detail *d, struct strbuf *b);
/* The REASON of an unreadable line for an errno and tree path: permission, timed-out,
 * vanished (a task's file), absent (another file), skipped (not tried: the scan's timeout
 * budget, stuck readers, a stop), failed. */
const char *unreadable_reason(int err, const char *path);
/* Append one unreadable line for tree path (escaped: one token) and err, detail one line. */
void unreadable_format(const char *path, int err, const char *detail, struct strbuf *b);
/* Parse one unreadable line: reason (rcap), path unescaped (pcap; no NUL, not empty), *detail
 * the rest of the line. Returns 0, -EINVAL or -ENAMETOOLONG. */
int parse_unreadable_line(const char *line, char *reason, size_t rcap, char *path, size_t pcap,
                          const char **detail);

/* ---- parse-passwd.c: who a host's users are, for redaction (pure) ---- */

struct passwd_ent { char *name; unsigned uid, gid; char *home; };
struct passwd_list { struct passwd_ent *v; size_t n; };
/* Parse /etc/passwd text (n bytes): lines "name:password:uid:gid:gecos:home:shell". Blank
 * lines and comments are skipped; a line that is not seven fields, has an empty name, a NIS
 * "+"/"-" entry, a uid that is not a number below 2^32-1, or a NUL, is counted in *bad (may
 * be NULL) and skipped; a gid that is not a number is 0xffffffff. 0, or -ENOMEM (out
 * empty). Free out with passwd_free. */
int passwd_parse(const char *text, size_t n, struct passwd_list *out, size_t *bad);
void passwd_free(struct passwd_list *l);
/* A uid or gid as /etc/passwd and /etc/group write it: decimal digits only, below 2^32-1
 * ((uid_t)-1 is no id); s is n bytes. */
bool etc_id(const char *s, size_t n, unsigned *out);
/* Each line of text (n bytes) that is not blank or a '#' comment, without its newline or
 * '\r', through fn; fn's -ENOMEM stops it (returned), any other error counts in *bad. */
int etc_each_line(const char *text, size_t n, size_t *bad, void *ctx,
                  int (*fn)(void *ctx, const char *line, size_t len));
/* The uids of a /proc status file's "Uid:" line (real, effective, saved, filesystem), in
 * order: how many were read (0..4), stopping at the first that is not a uid. */
int status_uids(const char *buf, size_t n, unsigned out[4]);

/* ---- parse-group.c: a host's groups and its names in /etc/hosts, for redaction (pure) ---- */

struct group_ent { char *name; unsigned gid; };
struct group_list { struct group_ent *v; size_t n; };
/* Parse /etc/group text (n bytes): lines "name:password:gid:members". Blank lines and
 * comments are skipped; a line that is not four fields, has an empty name, a NIS "+"/"-"
 * entry, a gid that is not a number below 2^32-1, or a NUL, is counted in *bad (may be NULL)
 * and skipped. 0, or -ENOMEM (out empty). Free out with group_free. */
int group_parse(const char *text, size_t n, struct group_list *out, size_t *bad);
void group_free(struct group_list *l);
struct hosts_list { char **names; size_t nnames; char **addrs; size_t naddrs; };
/* The /etc/hosts lines (text, n bytes; "ADDRESS NAME ALIAS... # comment") that name host
 * (its part before the first dot, compared without case: a name equal to it or beginning
 * with it and a dot): their names, but localhost's, and their addresses, but loopback's
 * (127.*, ::1), each once. 0, or -ENOMEM (out empty). Free out with hosts_free. */
int hosts_parse(const char *text, size_t n, const char *host, struct hosts_list *out);
void hosts_free(struct hosts_list *l);

/* ---- parse-elf.c: ELF64 little-endian images: segments, function symbols, build-id (pure) ---- */

/* The parser does no I/O: it asks its caller for the bytes it needs, through rd, which fills
 * buf with the len bytes at off (a range the parser has checked against the file's size)
 * and returns 0 or -errno. Every offset, size and count of the file is checked before use. */
typedef int (*elf_read_fn)(void *ctx, uint64_t off, void *buf, size_t len);

#define ELF_MAX_LOAD 64               /* PT_LOAD segments; a file with more is refused */
#define ELF_BUILD_ID_MAX 64           /* bytes of an NT_GNU_BUILD_ID note (GNU ld: 20) */
#define ELF_MAX_SECTIONS 65536        /* section headers read at most (4 MiB) */
#define ELF_MAX_STRTAB (64u << 20)    /* a symbol string table is read whole, up to this */

struct elf_load { uint64_t off, vaddr, filesz, memsz; uint32_t flags; };
/* One function symbol: its address, size (clamped to 4 GiB), its name at names + name
 * (NUL-terminated) and how it binds (2 global, 1 weak, 0 local). unsized: the file gave no
 * size (hand-written assembly, crt files); size is then up to the end of its section, and
 * the symbol names only what no sized symbol covers (elf_symbolize: not exact). In .dynsym
 * such a symbol keeps size 0 and names nothing. */
struct elf_func { uint64_t addr; uint32_t size; uint32_t name : 29, pref : 2, unsized : 1; };
/* A symbol table's function symbols (STT_FUNC, STT_GNU_IFUNC, defined, named), sorted by
 * address (aliases: global first, then weak, local; then fewer leading '_', shorter).
 * present: the file has the table and it was read; too_big: it has one, left out because it
 * would have taken more memory than allowed. */
struct elf_table { struct elf_func *f; size_t n; char *names; size_t names_len;
                   bool present, too_big; };
/* Where a table and its string table are in the file (size 0: none). */
struct elf_sect { uint64_t off, size, str_off, str_size; };
#define ELF_MAX_XSECT 32              /* executable sections whose bounds are kept */
/* An executable section: its index and link-time addresses (the bound of unsized symbols). */
struct elf_xsect { uint64_t addr, size; uint32_t index; };
struct elf_info {
	uint16_t type, machine;           /* ET_EXEC or ET_DYN; EM_* */
	uint64_t file_size;
	struct elf_load load[ELF_MAX_LOAD];
	size_t nload;
	uint8_t build_id[ELF_BUILD_ID_MAX];
	size_t build_id_len;              /* 0: no build-id note */
	char debuglink[256];              /* .gnu_debuglink's file name: no '/', not . or .. */
	uint32_t debuglink_crc;
	bool have_debuglink;
	struct elf_sect symtab_sec, dynsym_sec;
	struct elf_xsect xsect[ELF_MAX_XSECT];
	size_t nxsect;
	struct elf_table symtab, dynsym;
	struct elf_load eh_hdr;           /* PT_GNU_EH_FRAME: .eh_frame_hdr (have_eh_hdr) */
	bool have_eh_hdr;
	size_t bytes;                     /* memory held by the tables */
	char why[160];                    /* why it was refused; or a table left out, and why */
};
/* The headers of an ELF64 little-endian ET_EXEC or ET_DYN file of file_size bytes: its
 * PT_LOAD segments, PT_GNU_EH_FRAME (unchecked: parse_eh_frame_hdr checks what it names),
 * build-id, .gnu_debuglink and where its .symtab and .dynsym are. 0, or
 * -ENOEXEC (not such a file), -EINVAL (malformed or truncated: out->why says what),
 * -E2BIG (more segments or sections than kept), -ENOMEM, or rd's error. */
int elf_parse_head(elf_read_fn rd, void *ctx, uint64_t file_size, struct elf_info *out);
/* Then its function symbols (e from elf_parse_head on the same file), each table in at most
 * max_bytes of memory (else left out, too_big, said in why; so is a table that is
 * malformed). 0, -ENOMEM or rd's error (e's tables then empty). */
int elf_parse_syms(elf_read_fn rd, void *ctx, size_t max_bytes, struct elf_info *e);
/* Both, on a whole image in memory (size bytes). As elf_parse_head. */
int elf_parse_mem(const void *data, size_t size, size_t max_bytes, struct elf_info *out);
/* Release e's tables (e may be parsed in part, or zeroed). */
void elf_info_free(struct elf_info *e);
/* The link-time address of file offset off: in which PT_LOAD's file bytes it lies (an
 * executable one first, where segments share bytes). 0, or -ERANGE (in none). */
int elf_vaddr_of(const struct elf_info *e, uint64_t off, uint64_t *vaddr);
/* The CRC-32 .gnu_debuglink uses (zlib's), continued from crc over n bytes. */
uint32_t elf_crc32(uint32_t crc, const void *buf, size_t n);
/* e's build-id as lowercase hex into out (at least 2*ELF_BUILD_ID_MAX+1 bytes); "" if none. */
char *elf_build_id_hex(const struct elf_info *e, char *out, size_t cap);

/* Where a frame's name came from: the binary's full symbol table (exact), a separate debug
 * file's (exact), only the exported symbols (.dynsym: named only when the exported
 * function's size covers the address), or nowhere (module + offset, never a guess). */
enum elfsym_from { ELFSYM_NONE = 0, ELFSYM_SYMTAB, ELFSYM_DEBUG, ELFSYM_DYNSYM };
struct elf_sym {
	char name[512];                   /* the symbol's bytes as in the file (escape them to
	                                   * print); "" when from is ELFSYM_NONE */
	bool name_cut;                    /* longer than name: cut */
	uint64_t off;                     /* address - the symbol's start */
	uint64_t size;                    /* the symbol's size; 0: unknown */
	bool exact;                       /* size covers the address (false: a symbol of
	                                   * unknown size, the nearest before it, full table) */
	uint64_t vaddr;                   /* the link-time address: what addr2line -e takes */
	bool have_vaddr;
	enum elfsym_from from;
	bool from_task_mntns;             /* from a debug file found only under the task's own
	                                   * root (its mount namespace, or a root of its own,
	                                   * neither cgwatch's nor the host's): names that
	                                   * namespace's users chose */
	char build_id[2 * ELF_BUILD_ID_MAX + 1];  /* the binary's, hex; "" if none */
	char why[256];                    /* ELFSYM_NONE or an error: why there is no name */
};
/* Name link-time address vaddr of binary bin from its tables, or from dbg's (its separate
 * debug file's, already matched to it; may be NULL): bin's .symtab, else dbg's, else bin's
 * .dynsym under the rule above. Fills out (from, name, off, size, exact; why when none). */
void elf_symbolize(const struct elf_info *bin, const struct elf_info *dbg, uint64_t vaddr,
                   struct elf_sym *out);
/* "symtab", "debug", "dynsym", "none". */
const char *elfsym_from_name(enum elfsym_from f);
/* A frame as a person reads it, into out (cap bytes; names C-escaped): "NAME+0xOFF",
 * "NAME+0xOFF (nearest exported symbol)", "NAME+0xOFF (size unknown)", or with no name
 * "MODULE+0xVADDR" (the address addr2line -e MODULE takes). Returns out. */
char *elfsym_format(const struct elf_sym *s, const char *module, char *out, size_t cap);

/* ---- parse-ustack.c: a capture's cgwatch/ustack/TGID, the inputs of user-stack unwinds (pure) ---- */

#define USTACK_LINE_MAX 4096          /* bytes of memory on one "mem" line read */
#define USTACK_FILE_MAX_MEM (1u << 20)  /* bytes of memory in one file */
#define USTACK_FILE_MAX_MODS 256
#define USTACK_FILE_MAX_TASKS 4096
/* Bytes of a process's memory by address: 8-byte words (addr a multiple of 8), each with a
 * mask of the bytes known; an open-addressing table of cap slots (a power of two), n used,
 * bytes known in all. */
struct ustack_word { uint64_t addr; uint8_t b[8]; uint8_t valid; };
struct ustack_mem { struct ustack_word *w; size_t n, cap, bytes; };
/* Keep n bytes at addr (b). 0, -EINVAL (past the end of the address space) or -ENOMEM. */
int umem_put(struct ustack_mem *m, uint64_t addr, const void *b, size_t n);
/* The n bytes at addr into b: true when every one of them is known. */
bool umem_get(const struct ustack_mem *m, uint64_t addr, void *b, size_t n);
void umem_free(struct ustack_mem *m);
/* A file the unwinds used: its path as maps names it, its build-id (hex, "-" none known). */
struct ustack_mod { char *path; char build_id[2 * ELF_BUILD_ID_MAX + 1]; };
struct ustack_note { int tid; char *text; };
/* A frame-pointer scan's view of the stack: len bytes read at addr (of which the memory
 * keeps only the words that count: fpchain_word_counts). */
struct ustack_scan { uint64_t addr; uint32_t len; };
#define USTACK_SCAN_MAX 65536u        /* bytes one scan line may say were read */
/* One process's file: the threads unwound from its memory, those not unwound and why, the
 * files used, the memory read, the stack scans; cut: more was read than kept; redacted:
 * memory dropped. */
struct ustack_file {
	struct ustack_mem mem;
	struct ustack_mod *mods; size_t nmods;
	struct ustack_note *notes; size_t nnotes;
	int *unwound; size_t nunwound;
	struct ustack_scan *scans; size_t nscans;
	bool cut, redacted;
};
/* Parse text (len bytes). 0 with out filled; -EINVAL (*line: the first bad line; a line not
 * understood, a number out of range, more than the USTACK_FILE_MAX_* limits) or -ENOMEM,
 * out empty. Free out with ustack_file_free. */
int ustack_parse(const char *text, size_t len, struct ustack_file *out, size_t *line);
/* f as the file's text (what ustack_parse reads back to the same). */
void ustack_format(const struct ustack_file *f, struct strbuf *b);
void ustack_file_free(struct ustack_file *f);
/* The module of path, or NULL. */
const struct ustack_mod *ustack_module(const struct ustack_file *f, const char *path);
/* Add a module (a path already there keeps its first build-id). 0, -EINVAL (an empty path,
 * a newline in it, a build-id that is not lowercase hex of whole bytes or "-"), -E2BIG, -ENOMEM. */
int ustack_add_module(struct ustack_file *f, const char *path, const char *build_id);
/* tid's note, or NULL. */
const char *ustack_note(const struct ustack_file *f, int tid);
/* Note tid with text (n bytes; newlines become spaces; a tid's first note stays). 0,
 * -EINVAL (tid not positive, empty text), -E2BIG or -ENOMEM. */
int ustack_add_note(struct ustack_file *f, int tid, const char *text, size_t n);
bool ustack_was_unwound(const struct ustack_file *f, int tid);
/* The scan at addr, or NULL. */
const struct ustack_scan *ustack_scan_at(const struct ustack_file *f, uint64_t addr);
/* Add a scan of len bytes at addr (an address already there keeps its first). 0, -EINVAL
 * (len over USTACK_SCAN_MAX, past the end of the address space), -E2BIG or -ENOMEM. */
int ustack_add_scan(struct ustack_file *f, uint64_t addr, uint64_t len);
/* Mark tid unwound. 0, -EINVAL, -E2BIG or -ENOMEM. */
int ustack_add_unwound(struct ustack_file *f, int tid);
/* from's modules, scans and memory into into (memory past USTACK_FILE_MAX_MEM left out:
 * into->cut). 0 or an error of ustack_add_module/ustack_add_scan/umem_put. */
int ustack_merge(struct ustack_file *into, const struct ustack_file *from);
/* A file's text (n bytes) without its memory lines or any line ustack_parse would not take
 * (a first line that is not the header), and marked "redacted", for a redacted bundle. 0 or
 * -ENOMEM. */
int ustack_drop_mem(const char *in, size_t n, struct strbuf *out);
/* ---- parse-ehframe.c: .eh_frame_hdr, the index of a binary's unwind info (pure) ---- */

/* Where .eh_frame and the header's search table are (link-time addresses), and how many
 * pairs (initial location, FDE), each two int32 relative to the header, the table holds. */
struct eh_frame_hdr { uint64_t eh_frame, table, fde_count; };
/* The n bytes b of .eh_frame_hdr, at link-time address vaddr: version 1, eh_frame_ptr and
 * fde_count in a fixed-size encoding (absolute, pc- or header-relative), a table of
 * (datarel, sdata4) pairs wholly in the n bytes. 0; -EINVAL (cut short, the table past the
 * end), -ENOTSUP (another version or encoding, no table: what libunwind cannot search). */
int parse_eh_frame_hdr(const uint8_t *b, size_t n, uint64_t vaddr, struct eh_frame_hdr *out);
/* The file bytes to keep of e's unwind info (e->have_eh_hdr, h parsed from it): from the
 * header (or .eh_frame, when it comes first) to the end of the PT_LOAD holding both, as a file
 * offset, link-time address and length. 0, or -ERANGE (not in one loadable segment). */
int eh_frame_span(const struct elf_info *e, const struct eh_frame_hdr *h, uint64_t *off,
                  uint64_t *vaddr, uint64_t *len);

/* ---- parse-hazard.c: hazard rule files, conf/hazards.d (pure) ---- */

/* The facts of a host a hazard rule may test (source-audit.c gathers them). */
enum haz_fact {
	HF_HUNG_TIMEOUT, HF_HUNG_WARNINGS, HF_HUNG_PANIC, HF_SOFTLOCKUP_PANIC, HF_WATCHDOG,
	HF_SOFT_WATCHDOG, HF_WQ_WATCHDOG, HF_RT_RUNTIME, HF_RT_SPINNERS, HF_RT_SPINNERS_ISOLATED,
	HF_SELF_HOUSEKEEPING, HF_SELF_STACKS, HF_SELF_KMSG, HF_SELF_PERF, HF_V1_HIERARCHIES,
	HF_CGROUP_CHURN, HF_V1_PROCS_OPEN, HF_CPU_GROUPS, HF_POSSIBLE_CPUS, HF_GROUPS_X_CPUS,
	HF_CPUS_OFFLINE, HF_PARTITIONS, HF_RSTAT_READERS, HF_RSTAT_CONTENDED, HF_SELF_UNSPUN,
	HF_FAIR_SERVER, HF_NFACT
};
enum haz_op { HOP_EQ, HOP_NE, HOP_LE, HOP_GE, HOP_LT, HOP_GT };
#define HAZ_MAX_WHEN 16
struct haz_cond { enum haz_fact fact; enum haz_op op; double value; };
struct cgw_hazard {
	char *id, *title, *summary, *explanation;
	char *signature;                /* the signature id the hang it leads to matches, or NULL */
	char *seed;                     /* where the hang was seen (seed, thread) */
	enum cgw_sev severity;
	struct haz_cond *when; size_t nwhen;        /* all must hold */
	enum haz_fact *evidence; size_t nevidence;  /* facts whose evidence lines it shows */
	char **remedies; size_t nremedies;          /* safest first */
	char **references; size_t nreferences;
	char *file; int line;           /* where it was defined */
	bool builtin;                   /* file is one of hazard_builtin_files */
	char *replaced;                 /* the source it replaced by id, or NULL */
};
struct cgw_hazset { struct cgw_hazard *v; size_t n; };

/* A fact's name as rules write it ("rt.spinners"), and what it means. */
const char *hazard_fact_name(enum haz_fact f);
const char *hazard_fact_meaning(enum haz_fact f);
/* The fact named by name[0..n-1], or -1. */
int hazard_fact_index(const char *name, size_t n);
/* "==", "<=", ... */
const char *hazard_op_name(enum haz_op op);
/* Does condition c hold for the value v of its fact? */
bool hazard_cond_holds(const struct haz_cond *c, double v);
/* Parse one rule file (text, len bytes, named name in messages) and append its rules to out;
 * errors go to err as "name:line: message" and a file with any error adds nothing. Returns
 * the error count. */
int hazard_parse(struct cgw_hazset *out, const char *name, const char *text, size_t len,
                 FILE *err);
/* Free one rule's fields (zeroed), and a whole set. */
void hazard_clear(struct cgw_hazard *h);
void hazset_free(struct cgw_hazset *set);

/* ---- parse-unit.c: a systemd unit's CPU settings, for the daemon's placement (pure) ---- */

struct unit_cpus {
	struct cgw_cpus affinity, allowed;   /* CPUAffinity=, AllowedCPUs= of [Service] */
	bool affinity_set, allowed_set;
};
/* Apply one unit file or drop-in (text, len bytes) on top of u, as systemd does: repeated
 * assignments merge, an empty one resets. Returns the number of values it could not use
 * ("numa", a bad list: systemd ignores those lines too). */
int parse_unit_cpus(const char *text, size_t len, struct unit_cpus *u);

/* ---- parse-release.c: a kernel release string (uname -r) into its version (pure) ---- */

/* The major and minor numbers of release s ("6.12.118+deb12-amd64": 6 and 12). 0, or -EINVAL
 * when s does not start "N.N" followed by '.', '-', '+' or its end. */
int parse_kernel_release(const char *s, int *major, int *minor);
/* Is release s major.minor or later? 1 or 0, or -EINVAL when it does not parse. */
int kernel_release_at_least(const char *s, int major, int minor);

/* ---- parse-psi.c: pressure files, /proc/pressure/FILE and a cgroup v2 directory's RES.pressure (pure) ---- */

struct cgw_psi;
/* A pressure file's text (NUL-terminated) into p: its "some" line and its "full" line (not
 * there on kernels before 5.13 for cpu, and on older ones: p->full.have false). 0; or -EINVAL
 * with why in err, naming the line ("line 2: ..."), p then all false. */
int psi_parse(const char *buf, struct cgw_psi *p, char *err, size_t cap);
/* "cpu", "memory", "io" for enum cgw_psi_res; "?" otherwise. */
const char *psi_res_name(int res);

/* ---- parse-timerlat.c: the timerlat tracer's `trace` text, per CPU (pure) ---- */
struct cgw_timerlat;
/* Lines as the kernel prints them: "TASK-PID [CPU] FLAGS TIME: #SEQ context irq
 * timer_latency N ns" (TASK: what the timer IRQ interrupted), the same with "thread" (printed
 * by timerlat/CPU itself), osnoise's "thread_noise: COMM:PID start T duration N ns", and
 * print_stack's "<stack trace>" with " => FUNC" lines after a thread sample. */
/* Fold the text (len bytes) into tl[cpu] for each CPU below ncpu: samples, the worst IRQ and
 * thread latencies, what interrupted or held each, the stack saved with the worst thread
 * sample. Other CPUs' lines, headers and other events are skipped; *bad counts lines that are
 * none of those. Sets tl[c].measured for a CPU with a sample. 0 always. */
int timerlat_parse(const char *text, size_t len, struct cgw_timerlat *tl, size_t ncpu,
                   size_t *bad);
/* The osnoise settings a timerlat run changed, to put back (CGW_RUN_DIR/timerlat.restore):
 * what was there (cpus, print_stack) and what the run set (cpus_set, print_stack_set), which
 * tells whether someone changed it since:
 *   # cgwatch timerlat, PID 4242: osnoise settings to put back
 *   cpus=0-3
 *   cpus_set=1
 *   print_stack=0
 *   print_stack_set=1000
 * Each line only when that setting is changed; "" for one not there. */
struct tl_saved { char cpus[256], cpus_set[256]; char print_stack[32], print_stack_set[32]; };
/* Parse the restore file's text: "#" lines skipped; cpus and cpus_set CPU lists ([0-9,-]),
 * print_stack and print_stack_set digits, each once. 0, or -EINVAL for anything else
 * (nothing from such a file is written). */
int tlsave_parse(const char *text, struct tl_saved *out);

/* ---- parse-trace.c: a tracefs instance's text `trace` file, the flight recorder's events (pure) ---- */
/* One event line, as the kernel prints it (trace_clock mono: seconds of CLOCK_MONOTONIC):
 *            mkdir-4242    [001] .....  5123.456789: cgroup_mkdir: root=14 id=2 level=1 path=/c0
 * A syscall event prints "sys_openat(dfd: 0xffffff9c, ..., mode: 0x1b6)": its fields are what
 * the parentheses hold. "CPU:1 [LOST 17 EVENTS]" lines count lost events; '#' lines and blank
 * ones are headers. */
#define CGW_TRACE_NAME_MAX 64
struct cgw_trace_event {
	double t;                         /* seconds, the instance's trace clock */
	int cpu, pid;
	char comm[CGW_COMM_MAX];          /* as printed ("<idle>", "<...>" when unknown) */
	char name[CGW_TRACE_NAME_MAX];    /* the event's name without its system: "cgroup_rmdir" */
	bool call;                        /* printed as a syscall: NAME(FIELDS) */
	char *fields;                     /* the rest of the line as printed (malloc'd; may be "") */
};
struct cgw_trace_events {
	struct cgw_trace_event *v;
	size_t n, cap;
	uint64_t lost;                    /* events the ring dropped, from its LOST lines */
	size_t bad;                       /* lines that are neither headers nor events */
	size_t older;                     /* events before the window asked for, not kept */
};
/* Parse one line (len bytes, no newline) into *e (e->fields left NULL; *fields_at and
 * *fields_len say where they are in line). Returns 1 for an event, 0 for a header or blank
 * line, 2 for a LOST line (*lost its count), -EINVAL for anything else. */
int trace_parse_line(const char *line, size_t len, struct cgw_trace_event *e,
                     size_t *fields_at, size_t *fields_len, uint64_t *lost);
/* The head of an event line (len bytes, no newline): COMM-PID [CPU] FLAGS TIME ": " into *e
 * (name and fields left empty). Where the rest of the line starts; 0 (e cleared) for a header,
 * a blank line or anything else. For tracers' own lines ("#12 context irq timer_latency ..."). */
size_t trace_parse_head(const char *line, size_t len, struct cgw_trace_event *e);
/* Parse a whole `trace` text (len bytes) and append its events at or after since (seconds;
 * -1: all) to out, in the file's order (oldest first). Returns 0, or -ENOMEM (out keeps the
 * events parsed before). */
int trace_parse(const char *text, size_t len, double since, struct cgw_trace_events *out);
/* The value of key in an event's fields ("path" in "root=1 id=2 path=/a b"): up to the next
 * " word=" or the end. Returns a pointer into fields and its length in *len, or NULL. */
const char *trace_field(const char *fields, const char *key, size_t *len);
/* Free every event's fields and the array; out is empty again. */
void trace_events_free(struct cgw_trace_events *out);
/* Keep only the newest max events of e (oldest first still). Returns how many were dropped. */
size_t trace_events_keep_last(struct cgw_trace_events *e, size_t max);
/* Keep only the newest max events of each CPU (order kept). Returns how many were dropped. */
size_t trace_events_keep_last_per_cpu(struct cgw_trace_events *e, size_t max);

/* A flight recorder's readout: the events of a window, what it could not record, and the
 * moment the timeline is told from (the first blocked task's, set by recorder_anchor). */
#define CGW_REC_KEEP 20000                /* events of one readout kept, the newest */
#define CGW_REC_SW_KEEP 64                /* sched_switch events of each CPU kept, the newest */
struct cgw_recwin {
	struct cgw_trace_events ev;       /* oldest first; t in CLOCK_MONOTONIC seconds */
	double read_at;                   /* CLOCK_MONOTONIC seconds it was read (0: unknown) */
	double window_s;                  /* seconds asked for */
	uint64_t dropped;                 /* older events of the window not kept (past
	                                     CGW_REC_KEEP, or fewer where the daemon holds many) */
	char enabled[1024];               /* "sys:event" recorded, space-separated */
	char missing[1024];               /* "sys:event (why)" not recorded, "; "-separated */
	char why[640];                    /* not read: why ("" when ev is the window) */
	bool have_anchor;                 /* anchor_t and anchor are known */
	double anchor_t;                  /* CLOCK_MONOTONIC seconds the first task blocked */
	char anchor[64];                  /* "PID 1 blocked", "PID 77 last ran" */
	int anchor_tid;                   /* that task's */
};
/* The readout as the text of a bundle's cgwatch/recorder/trace: header lines "# cgwatch-recorder
 * 1", "# read_at S", "# window S", "# dropped N", "# enabled ...", "# missing ...",
 * "# not_recorded WHY" (only when w->why says why there are no events), a LOST line
 * when the ring lost events, then each event as the kernel prints it (flags "....."). */
void trace_window_format(const struct cgw_recwin *w, struct strbuf *b);
/* Back from that text (len bytes) into w (zeroed first; its anchor left unset). Returns 0,
 * -EINVAL (not such a file: no "# cgwatch-recorder 1" first line, or no read_at) or -ENOMEM;
 * free w with recwin_free either way. */
int trace_window_parse(const char *text, size_t len, struct cgw_recwin *w);
/* Free w's events; w is empty. */
void recwin_free(struct cgw_recwin *w);

/* ---- source-root.c ---- */

/* Make DIR/proc and DIR/sys appear at /proc and /sys for this process, in a private mount
 * namespace. Every access to DIR runs with a deadline. DIR may be a bundle file: its tree is
 * extracted into a tmpfs there (source-archive.c) and entered. Returns 0 or -errno, with a
 * message for the user in msg. */
int root_enter(const char *dir, unsigned timeout_ms, char *msg, size_t cap);
/* --root root replays this directory: the private tree of a bundle (a FILE: its tree/ in a
 * tmpfs of the private mount namespace), else root itself. */
const char *root_tree(const char *root);

/* ---- source-archive.c: reading a bundle (check --root FILE, bundle --verify) ---- */

/* The caps a bundle is read with (cgwatch.conf [bundle]; the deadline [scan] check_timeout):
 * max_total counts bundle_member_cost, and what the archive expands to (headers, and data
 * skipped) may be twice it. */
struct bundle_caps { uint64_t max_file, max_total; size_t max_members; unsigned deadline_ms; };
/* The caps of c (bundle --verify: the deadline is check_timeout). */
struct bundle_caps bundle_caps_of(const struct cgw_conf *c);
/* The caps of c for a replay (check --root FILE): half check_timeout to read the bundle, the
 * other half left to the check of its tree before check's own watchdog. */
struct bundle_caps bundle_replay_caps(const struct cgw_conf *c);
/* Read every member of the bundle at path (each read of the file with the deadline) and
 * compare with its manifest; without memory to spare for a tree, hashes only. Problems (a
 * hostile member, a cap, a corrupt archive, a manifest that does not match) are lines in
 * out. Returns the number of problems, or -errno when path cannot be read at all (why). */
long bundle_verify(const char *path, const struct bundle_caps *caps, unsigned timeout_ms,
                   struct strbuf *out, char *why, size_t cap);
/* Open the bundle at path with the deadline: the fd, -ENOTDIR when it is no regular file,
 * -ETIMEDOUT or -errno. */
int archive_open(const char *path, unsigned timeout_ms);
/* Extract the tree/ of the bundle open at fd (named path) into the directory treefd, each
 * member checked (refused at the first hostile one: nothing more is written), then every
 * member against the manifest, within archive_read_caps. Returns 0, or -errno with msg
 * naming the file, the member and why. */
int archive_extract(int fd, const char *path, int treefd, unsigned timeout_ms, char *msg,
                    size_t cap);
/* The caps archive_extract reads with (check sets them from its configuration). */
extern struct bundle_caps archive_read_caps;


/* ---- source-host.c: the host snapshot ---- */

/* Read what every stage knows of the host, once per scan: s->host, s->kernel, s->mountinfo
 * (whole; or s->mountinfo_err), the freezer and cgroup2 mount points, s->possible_cpus, and
 * the CPU layout s->topo. Reads that can block have timeout_ms. */
void host_read(struct cgw_scan *s, unsigned timeout_ms);

/* ---- source-topology.c: the CPU layout (isolated, nohz_full, housekeeping) ---- */

/* A hex cpumask ("ffffffff,00000003", as sysfs prints cpumasks). Returns 0, -EINVAL, or
 * -ERANGE when a CPU past CGW_MAX_CPUS is set. */
int parse_cpumask_hex(const char *s, struct cgw_cpus *out);
/* Read the CPU layout into s->topo: /sys, /proc/cmdline, and the isolated cpuset partitions
 * of the cgroup2 hierarchy at s->cgroup2_mnt ("" when none). Missing files leave sets empty;
 * unparsable ones too, and they are named (scan_unreadable). */
void topology_read(struct cgw_scan *s);
struct cgw_topology;
/* Do a and b differ in what can change at run time: CPUs online, isolated cpuset partitions,
 * and the isolated, housekeeping and unbound-workqueue CPUs that follow them? (isolcpus=,
 * nohz_full=, rcu_nocbs= and irqaffinity= are the boot's.) */
bool topology_runtime_changed(const struct cgw_topology *a, const struct cgw_topology *b);
/* The host's isolated and nohz_full CPUs now (topology_read with the cgroup2 hierarchy at
 * /sys/fs/cgroup) into *out. Returns 0 or -ENOMEM. */
int topology_isolated_cpus(struct cgw_cpus *out);

/* ---- source-audit.c: the facts of a host (or a replayed tree) that hazard rules test ---- */

struct cgw_facts {
	double v[HF_NFACT];
	bool known[HF_NFACT];             /* false: not measured here (why[] says why) */
	char why[HF_NFACT][128];
	struct strbuf ev[HF_NFACT];       /* evidence lines of each fact, '\n'-ended */
	char host[128], kernel[128];
	bool live;                        /* the host itself, not a replayed tree */
	double window_s;                  /* the sampling window of rt.spinners; 0 one snapshot */
	size_t threads;                   /* threads read */
	uint64_t usec;                    /* time the gathering took */
	struct cgw_cpus online, isolated, nohz_full;   /* the CPU layout (source-topology.c) */
	struct audit_spinner {            /* the spinners rt.spinners counts, CPU by CPU */
		int cpu, tid; unsigned policy, prio; char comm[CGW_COMM_MAX];
	} *spin; size_t nspin;
};
struct audit_opts {
	unsigned window_ms;               /* live: the two samples of RT threads this far apart */
	unsigned timeout_ms;              /* each risky read */
	const char *tree;                 /* a replay's tree (its cgwatch/ files), or NULL */
	bool pin_housekeeping;            /* [run] pin_housekeeping: the daemon leaves isolated CPUs */
};
/* Read every fact from /proc and /sys (a replay's, once root_enter ran): sysctls, the CPU
 * layout, RT threads and their share of the CPU over the window (live; one snapshot in a
 * replay: those running there), cgwatch's own CPUs and rights, cgroup hierarchies. Read-only.
 * Returns 0, or -errno when /proc cannot be read at all. */
int audit_gather(struct cgw_facts *f, const struct audit_opts *o);
/* Free the evidence lines and spinners of f. */
void facts_free(struct cgw_facts *f);

/* ---- source-cpuclock.c: "now" on each CPU's scheduler clock ---- */

struct cgw_cpuclock { int cpu; double clock_ms, mono_ms; };
/* Hop onto every CPU of want that this thread may run on and read its scheduler clock there
 * (our own se.exec_start). Restores the affinity. Returns the number of CPUs measured. */
size_t cpuclock_measure(const struct cgw_cpus *want, struct cgw_cpuclock *out, size_t cap);
/* cpu's clock, in ms, at CLOCK_MONOTONIC time at_mono_ms into *out, when it was measured.
 * Returns false when it was not. */
bool cpuclock_at(const struct cgw_cpuclock *m, size_t n, int cpu, double at_mono_ms,
                 double *out);

/* ---- source-tasks.c: the task walk ---- */

struct cgw_topology {
	struct cgw_cpus online, isolated, nohz_full, housekeeping;
	struct cgw_cpus isolcpus;         /* isolcpus= on the command line, with isol_flags */
	struct cgw_cpus rcu_nocbs, irqaffinity;   /* command line; irqaffinity empty = default */
	struct cgw_cpus partitions;       /* isolated cpuset partitions (cgroup v2) */
	struct cgw_cpus wq_unbound;       /* /sys/devices/virtual/workqueue/cpumask */
	unsigned isol_flags;
};

struct cgw_proc { int pid, ppid; unsigned long long start_ticks; };  /* every process */

/* Every runnable thread of a scan: who gets the CPUs that starved tasks wait for. */
struct cgw_runner {
	int tid, tgid, cpu;
	unsigned policy, rt_priority;
	char comm[CGW_COMM_MAX]; size_t comm_len;
	double exec_start_ms, sum_exec_ms, read_mono_ms;
	unsigned long long nr_switches;
	bool have_switches;
	bool have_delay;                  /* run_delay and pcount read with it (the iterator) */
	uint64_t run_delay_ns, pcount;
	double share;                     /* of its CPU over share_window_s, 0..1; <0 unknown */
	double share_window_s;            /* since the previous scan (daemon), or the second look */
	bool share_throughout;            /* its CPU ran it the whole window (cpushare.c), whatever
	                                     the kernel had accounted (nohz_full) */
};

#define SCAN_MAX_NAMED 64             /* files a report names as unreadable; more are counted */
struct cgw_unreadable { char path[128]; char why[160]; };

struct cgw_scan {
	struct cgw_task *t; size_t n, cap;   /* D and R threads only */
	struct cgw_proc *procs; size_t nprocs, procs_cap;
	struct cgw_runner *runners; size_t nrunners, runners_cap;
	double now_ms;                    /* se.exec_start of the reader: "now" on the rq clock */
	double now_mono_ms;               /* CLOCK_MONOTONIC when now_ms was read */
	double uptime_s, uptime_mono_ms;  /* /proc/uptime (boot clock), and when it was read */
	struct cgw_rq_floor { double exec_start_ms, mono_ms; } *rq_latest;
	                                  /* per CPU: latest exec_start of an R task (a floor) */
	size_t untimed;                   /* D tasks not listed: their time is unknown (detect-duration.c) */
	bool live;                        /* the host itself, not a replayed tree */
	bool relook;                      /* source-tasks.c: a runnable thread read a second time */
	struct cgw_cpuclock *clocks; size_t nclocks, clocks_cap;   /* CPU clocks read (source-cpuclock.c) */
	struct cgw_cpus clock_tried;      /* CPUs whose clock this scan tried to read */
	size_t threads;                   /* threads seen */
	uint64_t scan_usec;
	char host[128], kernel[128];
	struct cgw_topology topo;
	int errors;                       /* files that could not be read or parsed, besides
	                                     vanished tasks */
	struct cgw_unreadable *unreadable; size_t nunreadable;   /* the first SCAN_MAX_NAMED */
	char fatal[320];                  /* why scan_run failed, when it says more than errno */
	int timeouts;                     /* deadline reads that timed out in this scan */
	struct warn_set *warns;           /* the daemon's: warnings said once, counted, cleared
	                                     (warnonce.c); NULL: each said (check) */
	bool nomem;                       /* an allocation failed: the scan is incomplete, and
	                                     scan_run returns -ENOMEM */
	/* the host snapshot (source-host.c) */
	char *mountinfo;                  /* /proc/self/mountinfo, or NULL: */
	char mountinfo_err[96];           /* why it was not read */
	char mntns_self[64];              /* cgwatch's mount namespace ("mnt:[N]"); "" replay */
	char freezer_mnt[256], cgroup2_mnt[256];  /* "" when not mounted */
	int possible_cpus;                /* /sys/devices/system/cpu/possible; -1 unknown */
	/* the mountinfo of each mount namespace a suspect needed a mount in (source-waitfile.c), read
	 * once per scan: key the ns/mnt link ("" in a replay: the tree's proc/self/mountinfo),
	 * text NULL when unreadable */
	struct cgw_mntns { char ns[64]; char *text; } *mntns; size_t nmntns;
	/* the last mount looked up for a suspect's path (source-waitfile.c): the threads of one
	 * process blocked alike wait on one path, whose mount is found once; NULL none yet */
	struct cgw_mntmemo { const char *mi; char *path; struct mountinfo_ent e; bool found; }
		*mnt_memo;
	/* the reads of the suspect being read, made ahead in one batch (source-tasks.c), for
	 * scan_read to take; NULL none */
	struct dl_batch *prefetch;
	/* the freezer files (v1's freezer.state, v2's cgroup.events) last read, and what they
	 * said (source-cgroup.c): the threads of a process share a cgroup, read once a scan;
	 * NULL none yet */
	struct cgw_frzmemo { char path[1024]; char buf[256]; ssize_t r; } *frz_memo;
	/* a replay of a capture (source-capture.c): its time references, NULL when it has none,
	 * the live run's cgroup activity counts (rates.h; NULL when it has none: the replay
	 * counts from the tree's /proc files), and the tree's directory (its cgwatch/ files) */
	struct cap_clocks *replay_clocks;
	struct cgw_rates *replay_rates;
	struct cgw_recwin *replay_recorder; /* its cgwatch/recorder/trace, or NULL */
	char *replay_root;
	char source[8];                   /* what the walk read: "bpf" or "proc" */
	char source_why[320];             /* and why */
};

struct cgw_scan_opts {
	double blocked_s;                 /* D tasks blocked at least this long are suspects */
	double starved_s;                 /* R tasks waiting at least this long are suspects */
	unsigned read_timeout_ms;
	bool all;                         /* read details for every D task */
	int self_tgid;                    /* our own process, skipped; 0 in a replay */
	struct cgw_fdcache *fdcache;      /* the daemon's open stat fds; NULL: open each time */
	const struct cgw_runner *prev_runners;   /* the daemon's last scan: shares over the */
	size_t nprev_runners;                    /* whole interval, not only the second look */
	struct cgw_history *history;      /* the daemon's sightings; NULL: one snapshot (check) */
	const char *root;                 /* a replay's tree (--root), or NULL */
	struct cgw_bpfscan *bpf;          /* the task iterator (source-bpf.c); NULL: /proc */
	const char *source_why;           /* why that source (the report's scan.source_why) */
};

/* A D or R thread as the walk read it, handed to the detector. */
struct cgw_sighting {
	const struct cgw_stat *st;
	const struct cgw_sched *sc;       /* zeroed when it could not be used: */
	int tgid;
	double mono_ms;                   /* CLOCK_MONOTONIC when sched was read */
	const char *sched_error;          /* why, or "" */
	bool have_alt;                    /* off the CPU alt_s seconds at mono_ms by the rq clock */
	double alt_s;                     /* (source-bpf.c: sched_info.last_arrival), which moving
	                                     a queued task does not reset as it does se.exec_start */
	bool have_queued;                 /* runnable, waiting queued_s seconds at mono_ms */
	double queued_s;                  /* (source-bpf.c: sched_info.last_queued) */
};
/* Decide about a sighting: the task kept (pushed with scan_push), or NULL. */
typedef struct cgw_task *(*cgw_judge_fn)(struct cgw_scan *s, const struct cgw_scan_opts *o,
                                         const struct cgw_sighting *g);
/* Start a scan: the reader's own clock (/proc/self/sched), uptime, the host snapshot.
 * Returns 0, -errno, -EINVAL (s->fatal says why) or -ENOMEM. */
int scan_begin(struct cgw_scan *s, const struct cgw_scan_opts *o);
/* Walk every thread under /proc: stat of each (counted, processes listed), sched of D and R
 * ones, handed to judge; status of those judge keeps. Returns 0, -errno (no /proc) or
 * -ECANCELED (SIGTERM/SIGINT pending). */
int scan_walk(struct cgw_scan *s, const struct cgw_scan_opts *o, cgw_judge_fn judge);
/* The walk of one process's threads (pid's task directory), as scan_walk does for each. */
void scan_walk_pid(struct cgw_scan *s, const struct cgw_scan_opts *o, int pid, cgw_judge_fn judge);
/* Read thread tid of tgid once more as the walk does (s->relook set meanwhile). */
void scan_thread_again(struct cgw_scan *s, const struct cgw_scan_opts *o, int tgid, int tid,
                       cgw_judge_fn judge);
/* The reads of the kept tasks that can block on the hang (stack, wchan, cgroup, freezer
 * state), each with the deadline, then user, unit and start time. 0 or -ECANCELED. */
int scan_suspects(struct cgw_scan *s, const struct cgw_scan_opts *o);
/* A new zeroed task at the end of s->t, or NULL with s->nomem set. */
struct cgw_task *scan_push(struct cgw_scan *s);
/* A process (its main thread's stat) into s->procs; s->nomem when it cannot grow. */
void scan_proc_push(struct cgw_scan *s, int pid, int ppid, unsigned long long start);
/* A runnable thread into s->runners, its share not measured yet; s->nomem as above. */
void scan_runner_push(struct cgw_scan *s, const struct cgw_stat *st, const struct cgw_sched *sc,
                      int tgid);
/* Forget what a walk found (tasks, processes, runners, counts) to walk again. */
void scan_discard_walk(struct cgw_scan *s);
void scan_free(struct cgw_scan *s);

/* ---- source-ksyms.c: kernel addresses named (the kernel's own stack text, /proc/kallsyms) ---- */
struct cgw_ksyms;
/* An empty cache of names, or NULL (out of memory). */
struct cgw_ksyms *ksyms_new(void);
/* Free k and all it holds; NULL is a no-op. */
void ksyms_free(struct cgw_ksyms *k);
/* A scan starts: nothing read for it yet. */
void ksyms_begin(struct cgw_ksyms *k);
/* A scan ends: /proc/kallsyms is let go unless this scan needed it. */
void ksyms_end(struct cgw_ksyms *k);
/* Every one of addrs[0..n) already named? */
bool ksyms_named(const struct cgw_ksyms *k, const uint64_t *addrs, size_t n);
/* The name of addr ("name+0xOFF/0xSIZE [module]" and "name"), "?" for both when not named
 * (then false). The strings live as long as k. */
bool ksyms_lookup(const struct cgw_ksyms *k, uint64_t addr, const char **text, const char **name);
/* Name addrs[0..n), a task's stack as its record holds it, from stack (the text of its
 * /proc/TID/stack, stack_len bytes or -errno) when schedstat (its /proc/TID/schedstat, read
 * after it) still shows the record's CPU time run_ns and CPU arrivals slices: the task did not
 * run in between, so the file shows the same stack. True when named so (same frame count). */
bool ksyms_from_stackfile(struct cgw_ksyms *k, const uint64_t *addrs, size_t n,
                          const char *stack, ssize_t stack_len, const char *schedstat,
                          ssize_t schedstat_len, uint64_t run_ns, uint64_t slices);
/* Name those of want[0..n) not named yet from /proc/kallsyms, as the kernel's %pB does: the
 * symbol holding addr - 1 (a return address may be past the end of a call to a function that
 * does not return), "name+0xOFF/0xSIZE [module]" with the offset of addr itself; an address no
 * symbol holds by its value. The file is read once and kept while new addresses come. False
 * when it shows no addresses (kernel.kptr_restrict, or no CAP_SYSLOG): nothing is named. */
bool ksyms_resolve(struct cgw_ksyms *k, const uint64_t *want, size_t n);
/* The data symbol at exactly addr (a static lock) into out, "" when none (a lock inside a
 * structure, or kallsyms without data); kept, either answer, so a lock waited on scan after
 * scan is looked up once. */
void ksyms_lock(struct cgw_ksyms *k, uint64_t addr, char *out, size_t cap);
/* How many addresses were named from stack files and from /proc/kallsyms so far. */
void ksyms_counts(const struct cgw_ksyms *k, size_t *stackfile, size_t *kallsyms);

/* ---- source-bpf.c: the scan as a walk by a BPF program (the task walker, or the task
 * iterator) ---- */

struct cgw_bpfscan;
/* Load the task walker once (and the task iterator, read where the walker does not load or
 * run, or above WALK_MAX_PROCS processes), leaving skip_tgid (the reader's process; 0 none)
 * out of every walk; with once (a single scan, which cannot repay the walker's verification),
 * the task iterator only. NULL when neither can be used, why (cap bytes) saying so: in a PID
 * namespace below the initial one, no BTF, not permitted, refused by the verifier; else why
 * says which loaded. */
struct cgw_bpfscan *bpfscan_open(int skip_tgid, bool once, struct cgw_kernel *k, char *why,
                                 size_t cap);
void bpfscan_free(struct cgw_bpfscan *b);
/* The walk of scan_walk through the walker's runs or one read of the iterator: threads
 * counted, processes listed, every D and R thread handed to judge as /proc would show it;
 * status (and a workqueue worker's full name) read from /proc for the tasks kept. 0,
 * -ECANCELED, -ENOMEM or -errno of the run or read; -EIO when the output is not whole
 * records, or the walker restarted too often (s->fatal says why). */
int bpfscan_walk(struct cgw_bpfscan *b, struct cgw_scan *s, const struct cgw_scan_opts *o,
                 cgw_judge_fn judge);
/* The kernel stacks of the tasks still kept, from their records of the last walk, named by
 * source-ksyms.c (a stack's own /proc/TID/stack when its task did not run since, reads within
 * timeout_ms; else /proc/kallsyms); stack_given set on each. A task on its CPU when read has
 * none, and /proc/kallsyms without addresses names none: for those /proc/TID/stack is read
 * as before. */
void bpfscan_stacks(struct cgw_bpfscan *b, struct cgw_scan *s, unsigned timeout_ms);
/* Walk again, for the last look at many suspects at once (one read of the program's records
 * in place of two files a suspect): 0, or -errno (nothing to look up then). The records of the
 * walk before are gone: call after bpfscan_stacks. */
int bpfscan_relook(struct cgw_bpfscan *b);
/* The last look's record of tid as its stat and sched (bpfrec_stat) and when it was read:
 * false when it has none (gone, or neither D nor R: out of its state). */
bool bpfscan_relooked(const struct cgw_bpfscan *b, int tid, struct cgw_stat *st,
                      struct cgw_sched *sc, double *mono);

/* ---- source-runq.c: run-queue latency over the interval between two samples ---- */

enum { RUNQ_MODE_AUTO, RUNQ_MODE_SCHEDSTAT, RUNQ_MODE_OFF };   /* [latency] runq */
enum { TL_MODE_AUTO, TL_MODE_ALWAYS, TL_MODE_NO };             /* [latency] timerlat */
struct cgw_runq_src;
struct cgw_runq;
/* Start measuring: RUNQ_MODE_AUTO loads the sched_switch program (src/bpf/runqlat.bpf.c)
 * where BPF tracing is allowed, else (or RUNQ_MODE_SCHEDSTAT) the /proc/TID/schedstat
 * deltas of the threads each scan reads. why (cap bytes) names the source and why it was
 * chosen. NULL only out of memory. */
struct cgw_runq_src *runq_open(int mode, struct cgw_kernel *k, char *why, size_t cap);
void runq_src_free(struct cgw_runq_src *s);
/* The waits per online CPU since the last sample (or runq_open) into out (out->cpu
 * allocated: runq_free), the per-group totals since runq_open with them; scan gives the
 * topology and, for schedstat, its threads (the first sample of a thread has no delta).
 * 0, -ENOMEM, or -errno of the map read. */
int runq_sample(struct cgw_runq_src *s, const struct cgw_scan *scan, struct cgw_runq *out);
void runq_free(struct cgw_runq *r);
#define TL_PRINT_STACK_US 1000            /* timerlat saves the IRQ's stack past 1 ms */
/* Run timerlat (source-timerlat.c) on cpus from now on: each runq_sample puts each CPU's
 * interval in its tl and where it ran (or why not) in the runq's timerlat. A run on the same
 * CPUs goes on; other CPUs restart it; empty cpus stop it (runq_src_free too). */
void runq_timerlat(struct cgw_runq_src *s, const struct cgw_cpus *cpus, unsigned timeout_ms);

/* ---- source-timerlat.c: the timerlat tracer over an interval, in a tracefs instance ---- */
struct cgw_tlrun;
struct cgw_timerlat;
/* Start timerlat on cpus in tracefs instance cgwtl-PID (osnoise/cpus set to them and
 * osnoise/print_stack to print_stack_us when not 0, both put back at the stop), with
 * timeout_ms for the whole start. One run on the host at a time: its owner holds
 * CGW_RUN_DIR/timerlat.lock, and writes what it changes to timerlat.restore beside it before
 * changing it; a start after a run that did not stop (SIGKILL) puts that back first. NULL
 * with why (not in this kernel, another cgwatch's run (its PID), someone else's osnoise or
 * timerlat running, no permission, no owner file) in why; else the run, why "CPUs LIST". */
struct cgw_tlrun *timerlat_start(const struct cgw_cpus *cpus, unsigned print_stack_us,
                                 unsigned timeout_ms, char *why, size_t cap);
/* Tests only: tracefs and the owner files' directory (NULL: /sys/kernel/tracing, CGW_RUN_DIR)
 * for the runs started from now on. */
void timerlat_paths(const char *tracefs, const char *run_dir);
/* Read r's trace since the start or the last read (then cleared; r keeps running) and fold it
 * into tl[ncpu] (timerlat_parse), with timeout_ms but 5 s at least (megabytes of text). 0 with
 * "CPUs LIST" in why; or -errno with why. */
int timerlat_read(struct cgw_tlrun *r, struct cgw_timerlat *tl, size_t ncpu,
                  unsigned timeout_ms, char *why, size_t cap);
/* Stop r (the instance removed, the settings put back) and free it; NULL: nothing. */
void timerlat_stop(struct cgw_tlrun *r, unsigned timeout_ms);

/* ---- source-read.c: the scan's reads that can fail ---- */

/* Deadline reads that time out in one scan before the rest of its risky reads are skipped:
 * each costs read_timeout, and the daemon's loop must come round well within WatchdogSec. */
#define SCAN_MAX_TIMEOUTS 3
/* A read that can block on the hang, with the deadline; once SCAN_MAX_TIMEOUTS reads timed
 * out in this scan it is skipped (-ETIME). Otherwise as dl_read_file(). */
ssize_t scan_read(struct cgw_scan *s, const char *path, char *buf, size_t cap,
                  unsigned timeout_ms);
/* Name path as a file that could not be read or parsed (why: printf format): logged (through
 * s->warns: once while it stays so), counted in errors, and kept for the report while fewer
 * than SCAN_MAX_NAMED are. */
void scan_unreadable(struct cgw_scan *s, const char *path, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
/* Why a sched file (buf, r bytes read or -errno, parsed into sc) gave no time, into out:
 * the error, or the bad key and its value C-escaped. Returns out. */
const char *sched_why(const char *buf, ssize_t r, const struct cgw_sched *sc, char *out,
                      size_t cap);

/* ---- source-fdcache.c: stat fds kept open between the daemon's scans ---- */

struct cgw_fdcache;
struct cgw_fdcache *fdcache_new(void);
void fdcache_free(struct cgw_fdcache *c);
/* Start and end one scan: fds of threads not seen in between are closed. */
void fdcache_begin(struct cgw_fdcache *c);
void fdcache_end(struct cgw_fdcache *c);
/* Read task/TID/stat of (tgid, tid), relative to the process's task dir fd, through the
 * cache; call in /proc's order. Returns bytes read or -errno. */
ssize_t fdcache_read_stat(struct cgw_fdcache *c, int taskfd, int tgid, int tid,
                          const char *tidname, char *buf, size_t cap);

/* ---- source-procdetail.c ---- */

/* Fill user, unit and started_at of the suspects through libproc2, with a deadline.
 * Returns 0, -ETIMEDOUT or -ENOMEM; fields stay empty when it fails. */
int procdetail_fill(struct cgw_scan *s, unsigned timeout_ms);

/* ---- source-cgroup.c ---- */

#define FREEZER_PATH_MAX 1024         /* a freezer file's path (longer ones are cut) */
#define FREEZER_BUF 256               /* what of a freezer file is read */
/* The path of file name of cgroup cg (its v1 freezer or its v2 path) in the hierarchy
 * mounted at mnt, into out: false when there is none to read (not mounted, no cgroup, a
 * path with "..": users name cgroups). Pure. */
bool freezer_file(const char *mnt, const char *cg, const char *name, char *out, size_t cap);
/* Does a read of freezer.state (buf, r bytes or -errno) say FROZEN? Pure. */
bool freezer_state_frozen(const char *buf, ssize_t r);
/* Does a read of cgroup.events (buf, r bytes or -errno) say "frozen 1"? Pure. */
bool cgroup_events_frozen(const char *buf, ssize_t r);
/* What s->frz_memo keeps of freezer file k (0: v1's freezer.state, 1: v2's cgroup.events)
 * at path: true with *r and its text in buf (FREEZER_BUF); false when it has nothing. */
bool freezer_memo(const struct cgw_scan *s, int k, const char *path, char *buf, ssize_t *r);

/* Is a task in these cgroups (v1 freezer path, v2 path; either may be "") frozen? v1 when
 * its freezer.state is FROZEN, else v2 when its cgroup.events says "frozen 1", else NULL;
 * files read with a deadline, each once a scan while it is the last asked for (s->frz_memo):
 * a read that did not answer (timed out, refused) is not kept. */
const char *cgroup_frozen(struct cgw_scan *s, const char *v1, const char *v2,
                          unsigned timeout_ms);

/* ---- source-latency.c: what a latency finding reads of its tasks ---- */

/* What the latency findings read of the host (source-latency.c; the unit tests give their
 * own): a task's stat and cgroup, t->tid and tgid set (0, or -errno: gone), a task's kernel
 * stack (the frame count into *f, malloc'd, or -errno), and a pause. NULL members: not read
 * (no pause). */
struct lat_reader {
	int (*task)(struct cgw_task *t, void *ctx);
	int (*stack)(int tgid, int tid, struct cgw_frame **f, void *ctx);
	void (*pause)(void *ctx);         /* between two passes over the stacks: LAT_STACK_GAP_MS */
	void *ctx;
};
/* The reader latency_diagnose is given on a host or a replayed tree: /proc/TID/stat and
 * cgroup, /proc/TID/stack, each with the deadline ctx points at (unsigned ms). */
extern const struct lat_reader latency_proc_reader;
/* ---- source-psi.c: pressure (PSI) read from the host, and the kernel's triggers ---- */

struct cgw_psi_src;
struct cgw_pressure;
struct cgw_psi_trigger;
struct cgw_report;
/* /proc/pressure/{cpu,memory,io} opened for reading, kept open (a file that cannot be opened
 * is said by each psi_read_sys). NULL without memory. */
struct cgw_psi_src *psi_src_open(void);
void psi_src_free(struct cgw_psi_src *s);
/* One pread of each system file into p->sys (recorded when a capture records), why one was
 * not read or parsed into p->error. Returns the number read. */
int psi_read_sys(struct cgw_psi_src *src, struct cgw_pressure *p);
/* The stall total (microseconds) of /proc/pressure/RES's some line, or its full line, read
 * now from src's open file: 0, or -errno (-ENODATA: no such line). */
int psi_read_total(struct cgw_psi_src *src, int res, bool full, unsigned long long *total_us);
/* Register t as the kernel's trigger on /proc/pressure/RES: the fd (O_RDWR, O_NONBLOCK) to poll
 * for POLLPRI, or -errno with why in out (cap bytes). */
int psi_trigger_open(int res, const struct cgw_psi_trigger *t, char *why, size_t cap);
/* The pressure files of the v2 cgroups of r's findings' tasks into p->cg (at most 64
 * cgroups; scan_read, the deadline; what cannot be read is named with scan_unreadable).
 * 0, or -ENOMEM (p->cg is then partial). */
int psi_read_cgroups(struct cgw_report *r, struct cgw_pressure *p, unsigned timeout_ms);

/* ---- source-waitfile.c: the file a blocked suspect waits on ---- */

/* For a D suspect (not a kernel thread): its syscall (/proc/TID/syscall), the path it names
 * (the fd's link, or the string in its memory: live only, with the deadline), and the mount
 * holding it in the task's own mount namespace (s->mntns) into t's sys_ and wait_ fields. */
void waitfile_read(struct cgw_scan *s, struct cgw_task *t, unsigned timeout_ms);
#define WAITFILE_LINE 256             /* what of /proc/TID/syscall is read */
/* Does waitfile_read read anything of t (a D suspect, not a kernel thread)? */
bool waitfile_wanted(const struct cgw_task *t);
/* The read of the task's memory waitfile_read makes after the syscall line it read (line, r
 * bytes or -errno), live: true with the address of the path; false when it makes none. Pure:
 * for a batch planned ahead (source-tasks.c). */
bool waitfile_mem_addr(const char *line, ssize_t r, unsigned long *addr);

/* ---- source-elf.c: naming user-space frames from ELF files, with the deadline ---- */

/* Name the code at file_off of the ELF file at path (as /proc/TID/maps names it, opened as
 * /proc/TGID/root/PATH or /proc/TGID/map_files/START-END; for a return address pass the offset
 * of the call, i.e. minus one), from its symbol tables or a separate debug file
 * (ROOT/.build-id/xx/rest.debug, or its .gnu_debuglink name in its directory, its .debug/ and
 * ROOT/DIR; ROOT is /usr/lib/debug and, under /proc/TGID/root, the task's own too; names from
 * one found only under a task's root that is not cgwatch's are marked from_task_mntns), every
 * open and read with the deadline. 0 with *out filled (out->from ELFSYM_NONE: no honest name,
 * out->why says why); or -errno with out->why: -ETIMEDOUT (the file or a debug file did not
 * answer within timeout_ms; the same path then times out at once until that read returns),
 * -ENOEXEC, -EINVAL, -E2BIG (elf_parse_head), -ERANGE (file_off in no loadable segment),
 * -ENOMEM, -ECANCELED, -EBUSY (dl_call), or open's error. Thread-safe, but a path another
 * thread's lookup is reading times out at once (dl_call_path): one reader per file. */
int elfsym_name(const char *path, uint64_t file_off, struct elf_sym *out, unsigned timeout_ms);
/* elfsym_name of n offsets in one file, with one deadline: each frame of a stack in that file
 * named in one read. 0 with out[0..n-1] filled (an offset in no loadable segment: from
 * ELFSYM_NONE, have_vaddr false, why says so), or elfsym_name's error for the file (every
 * out[i].why says it). */
int elfsym_names(const char *path, const uint64_t *file_off, size_t n, struct elf_sym *out,
                 unsigned timeout_ms);
/* elfsym_names of the file mapped at e in task tgid, opened with mapfile_open (the mapped
 * file or none: -ESTALE, why says so); its debug file looked for as for the path under
 * /proc/TGID/root (the task's mount namespace). */
int elfsym_names_mapped(int tgid, const struct maps_ent *e, const uint64_t *file_off, size_t n,
                        struct elf_sym *out, unsigned timeout_ms);

/* The cache of parsed files, keyed by build-id and size (a copy of the binary elsewhere, in
 * a container, is the same entry; its stripped copy is not), else device, inode, mtime and
 * size, holds at most ELFSYM_CACHE_BYTES of symbol tables and ELFSYM_CACHE_FILES files, the
 * least recently used dropped first; a file with no symbols and no debug file found is
 * looked at again after ELFSYM_RECHECK_S (a debug package installed meanwhile). A file being
 * parsed takes up to half of ELFSYM_CACHE_BYTES more for its string table, meanwhile. */
#define ELFSYM_CACHE_BYTES (8u << 20)
#define ELFSYM_CACHE_FILES 256
#define ELFSYM_RECHECK_S 300
struct elfsym_stats { uint64_t lookups, hits, parses; size_t files, bytes; };
void elfsym_stats(struct elfsym_stats *st);
/* Drop every cached file (those in use are freed when their lookup ends). */
void elfsym_cache_clear(void);
/* Look for debug files under root in place of /usr/lib/debug (NULL: the default; tests).
 * Empties the cache: what was found under the old root is not kept. */
void elfsym_set_debug_root(const char *root);
/* Cap the cache at bytes (0: ELFSYM_CACHE_BYTES), evicting down to it: [scan] symbol_cache. */
void elfsym_set_cache_bytes(size_t bytes);

/* ---- source-mapfile.c: the file a mapping of another process maps, opened from here ---- */

/* Open the file mapped at e (a line of /proc/TGID/maps): /proc/TGID/map_files/START-END, else
 * /proc/TGID/root/PATH if it is still the mapped device and inode. An fd (read-only, regular
 * file) with *st its fstat, or -errno (-ESTALE: another file at the path) with why saying it. */
struct stat;
int mapfile_open(int tgid, const struct maps_ent *e, struct stat *st, char *why, size_t cap);

/* ---- source-ehframe.c: unwind tables of mapped files for libunwind, cached by binary ---- */

/* The mappings of one process whose tables were looked for (opaque; one unwind at a time). */
struct ehtab_proc;
/* A new, empty list for process tgid (here: a replay's, whose files are those at the maps
 * paths here, already checked to be the recorded builds); NULL: no memory. */
struct ehtab_proc *ehtab_proc_new(int tgid, bool here);
/* Release p and its references to cached tables (NULL: nothing). */
void ehtab_proc_free(struct ehtab_proc *p);
/* libunwind's find_proc_info for pc ip of process p, whose /proc/TGID/maps is maps: the
 * mapped file (mapfile_open) parsed once per binary, its .eh_frame_hdr searched with libunwind's
 * dwarf_search_unwind_table (as, pi, need_unwind_info, arg as libunwind passes them). 0, or
 * libunwind's -UNW_E*: -UNW_ENOINFO with why set when its file or table could not be had
 * (why left as it was when the table has no entry for ip). */
struct unw_addr_space;
struct unw_proc_info;
int ehtab_find_proc_info(struct ehtab_proc *p, const struct maps_index *maps,
                         struct unw_addr_space *as, uint64_t ip, struct unw_proc_info *pi,
                         int need_unwind_info, void *arg, char *why, size_t cap);
/* The 8 bytes at addr of p's memory, when they are in a copy of a table found for p (true):
 * the unwinder's access_mem asks here before it reads the target's memory. */
bool ehtab_mem(struct ehtab_proc *p, uint64_t addr, uint64_t *val);
/* The cache: at most EHTAB_CACHE_FILES binaries and EHTAB_CACHE_BYTES (a table larger than a
 * quarter of that is not copied: read from the target's memory), least recently used first
 * out; lookups (a process's mapping looked for), hits (found cached), parses (files read). */
#define EHTAB_CACHE_BYTES (4u << 20)
#define EHTAB_CACHE_FILES 256
struct ehtab_stats { uint64_t lookups, hits, parses; size_t files, bytes; };
void ehtab_stats(struct ehtab_stats *out);
/* Drop every cached binary (those a process's list holds are freed with it). */
void ehtab_cache_clear(void);

/* ---- source-ustack.c: user-space stacks of blocked tasks, without stopping them ---- */

#define USTACK_MAX_FRAMES 48
/* One user frame: pc, the file mapped there (maps path, "" anonymous) and pc's offset in
 * that file; pc_exact: pc is where the code is (the innermost frame, or one a signal
 * interrupted), else a return address (the call is at pc - 1); fp_recovered: reached through
 * a frame pointer found by a stack scan (parse-fpchain.c), not given by the task's registers.
 * Its name (source-ustackname.c): the symbol ("" when none; a cut name ends in "..."), pc's
 * offset from it, where it came from ("symtab", "debug", "dynsym": a static string, NULL
 * when not named), whether the symbol's size covers it (sym_exact), the module's build-id
 * (hex, "" unknown), pc's link-time address in the module (vaddr, have_vaddr: what
 * addr2line -e takes) and, when not named, why (symbol_why, "" when nothing to say);
 * sym_task_mntns: the name is from a debug file of the task's own mount namespace (or root),
 * neither cgwatch's nor the host's (elf_sym.from_task_mntns). */
/* (The sandbox's parent checks every field of a frame its child sends: source-ustackbox.c
 * frames_check. A new field is checked there too.) */
struct cgw_uframe {
	unsigned long pc, offset, sym_off, vaddr;
	bool pc_exact, sym_exact, have_vaddr, sym_task_mntns;
	char module[200];
	char symbol[256];
	const char *symbol_from;
	bool fp_recovered;
	char build_id[2 * ELF_BUILD_ID_MAX + 1];
	char symbol_why[256];
};
/* What a report's unwinds tell whoever runs them (the sandbox, source-ustackbox.c): a task's
 * unwind begins; it is done (uframes or ustack_error filled), how: USTACK_TIMED_OUT (waited
 * past the deadline: its thread still waits for the memory), USTACK_LOOPED (did not
 * terminate: its thread still computes, and only ending the process ends it),
 * USTACK_UNENDING (its unwind info loops: a step passed its cap of reads, and ended). */
#define USTACK_TIMED_OUT 1u
#define USTACK_LOOPED 2u
#define USTACK_UNENDING 4u
struct cgw_task;
struct ustack_hooks {
	void (*begin)(void *ctx, const struct cgw_task *t);
	void (*done)(void *ctx, const struct cgw_task *t, unsigned how);
	void *ctx;
};
/* Unwind the user stacks of the tasks the findings of r list (chains first) that have no
 * answer yet, while *left (of max) unwinds remain, each under the read deadline, off the
 * calling thread, with libunwind's remote API over /proc/TID/syscall (pc, sp, argument
 * registers) and /proc/TID/mem: never ptrace, never stopped. Threads of one process with the
 * same pc and depth on the same stack layout share one unwind (ustack_same_as). Fills
 * uframes or ustack_error. 0 when every task was tried, 1 when it stopped after one whose
 * unwind did not terminate (USTACK_LOOPED: the caller must end this process). Runs hostile
 * input (the tasks' memory, their files' unwind info and symbols): ustack_report runs it in
 * a sandboxed child, never in the daemon. */
struct cgw_report;
int ustack_unwind_all(struct cgw_report *r, unsigned max, unsigned *left, unsigned timeout_ms,
                      const struct ustack_hooks *h);
/* Whether r's findings have a task ustack_unwind_all would try. */
bool ustack_any_wanted(const struct cgw_report *r);
/* Every task of r's findings ustack_unwind_all would still try gets why as its ustack_error. */
void ustack_unanswered(struct cgw_report *r, const char *why);
/* Mark (add) or unmark process tgid as having an unwind still waiting for its memory: its
 * unwinds are not tried meanwhile. False when the list is full (add) or tgid not in it. */
bool ustack_flight(int tgid, bool add);
/* Process tgid (started at start_ticks) is not unwound for USTACK_HOLD_S: an unwind of it
 * what ("did not terminate (its unwind info loops)", "ended the unwinder process: ..."). */
#define USTACK_HOLD_S 600
void ustack_hold(int tgid, unsigned long long start_ticks, const char *what);
/* Whether a hold set at since_s is over at now_s (CLOCK_MONOTONIC s): USTACK_HOLD_S after it
 * is set, exactly, the process is tried again. */
bool ustack_hold_over(double now_s, double since_s);
/* Reads of memory one step of an unwind may make: a frame's table lookup and CFI take a few
 * hundred; a CFA expression that jumps back on itself (DW_OP_skip, DW_OP_bra) reads its own
 * bytes for ever, and this is where it ends, in milliseconds. */
#define STEP_READS_MAX 200000ul
/* Whether one more read fits a budget of cap reads (0: no bound), *made counting those made:
 * the cap-th read fits, the one after it (and every later one) does not. */
bool ustack_read_budget(unsigned long *made, unsigned long cap);

/* ---- source-ustackbox.c: the user-stack unwinds in a sandboxed child ---- */

/* ustack_unwind_all for r in a child process: forked per report, holding no file
 * descriptor but its result pipe and stderr, with only the capabilities that read another
 * process's memory and mapped files, no new privileges, a seccomp allow-list (reads, no
 * file written, no socket, no exec), RLIMIT_CPU and RLIMIT_AS; killed when it passes the
 * deadline or an unwind did not terminate, and started again for the tasks left. Its answers
 * (frames, errors, what a capture records) are checked before they are taken. */
void ustack_report(struct cgw_report *r, unsigned max, unsigned timeout_ms);
/* Children one report may start: each after one ended in an unwind that did not terminate. */
#define BOX_TRIES 8
/* Whether another child may start after forked (of this report) have. */
bool box_may_fork(unsigned forked);
/* How long the parent waits for each message of the child (its header, then its body), in
 * ms: a task's unwind is its syscall file, the unwind and the names, each under the read
 * deadline (timeout_ms), so a child silent for longer is stuck where no deadline reaches. */
double box_silence_ms(unsigned timeout_ms);
/* Whether a child the parent has waited on since since_ms is silent for too long at now_ms
 * (CLOCK_MONOTONIC ms): at box_silence_ms exactly, it is killed. */
bool box_silence_expired(double now_ms, double since_ms, unsigned timeout_ms);
/* Where an unwind starts: pc, sp and the argument registers (when args); at most max_reads
 * words read (0: no bound), past which every read fails, as libunwind's loops then end. */
struct ustack_start { unsigned long pc, sp, arg[6]; bool args; unsigned long max_reads; };
/* One unwind of a replayed process as a replay's report runs it, here in the calling thread
 * and without a deadline (tests/fuzz/fuzz-unwind.c): its memory and files from cap (a
 * replay's, ucap_replay_of; freed here), its mappings from maps. Its frames into f (room for
 * USTACK_MAX_FRAMES; unnamed), their number into *n, why it ends there into err ("": at the
 * outermost frame). */
struct ucap;
void ustack_unwind_replay(struct ucap *cap, const char *maps, const struct ustack_start *in,
                          struct cgw_uframe *f, size_t *n, char *err, size_t errcap);

/* ---- source-ustackname.c: naming an unwound user stack's frames from the mapped files ---- */

/* Fill f's name fields from s, the name of the address adj bytes before f's pc (1 for a
 * return address: its call; 0 when pc_exact): sym_off and vaddr are pc's. */
void ustack_name_frame(struct cgw_uframe *f, const struct elf_sym *s, unsigned long adj);
/* Name frames f[0..n-1] of task tgid (its maps, as the unwind read them): one elfsym
 * lookup per file mapped, opened as the task sees it (elfsym_names_mapped; tgid 0, a replay:
 * the files at the frames' module paths here, elfsym_names), each under
 * timeout_ms; a timed-out lookup counts in s->timeouts, and once SCAN_MAX_TIMEOUTS are
 * spent no more are tried (symbol_why says so). err (errcap bytes; NULL: none), the
 * unwind's "user stack ends at MODULE+0xOFF: ..." of the last frame, then names it by its
 * symbol when it has one. Sets s->nomem on no memory. */
void ustack_name_frames(struct cgw_scan *s, int tgid, const struct maps_index *maps,
                        struct cgw_uframe *f, size_t n, char *err, size_t errcap,
                        unsigned timeout_ms);

/* ---- source-ustackcap.c: what a capture keeps of the user-stack unwinds; a replay's ---- */

struct ucap_set;                      /* one report's: what is recorded, or replayed */
struct ucap;                          /* one process's unwinds (a worker may hold it) */
/* A report's set: recording when s is live and a capture records (record_active), replaying
 * when s replays a tree holding cgwatch/ustack/; NULL otherwise (nothing to do) or without
 * memory. */
struct ucap_set *ucap_begin(const struct cgw_scan *s, unsigned timeout_ms);
/* Replay: whether t is left as captured (1: its process was not tried live, nothing said; or
 * err filled: not unwound live and why, the file not usable, memory redacted away), or is
 * unwound from the file (0). Always 0 when recording. */
int ucap_replay_task(struct ucap_set *u, struct cgw_scan *s, const struct cgw_task *t,
                     char *err, size_t cap);
/* Is t's turn in round (0, then 1) of a report's unwinds? Live, round 0 only; a replay takes
 * the threads its capture unwound in round 0, the others (which share them, or say why not)
 * in round 1. */
bool ucap_in_round(struct ucap_set *u, struct cgw_scan *s, const struct cgw_task *t, int round);
/* A new state for the unwinds of process tgid (empty; a replay's: its file). NULL: no memory. */
struct ucap *ucap_for(struct ucap_set *u, int tgid);
void ucap_free(struct ucap *c);
/* A replay's state made from f, a process's file as parsed (moved in: f is left empty); NULL:
 * no memory (f is freed). */
struct ucap *ucap_replay_of(struct ustack_file *f);
/* Does c replay (memory from the file, files checked by build-id)? */
bool ucap_replaying(const struct ucap *c);
/* Replay: the n bytes at addr from the file into v: 0, or -1 (not held; said by ucap_explain). */
int ucap_mem(struct ucap *c, unsigned long addr, void *v, size_t n);
/* Recording: n bytes read at addr (v), kept up to 64 KiB per unwind. */
void ucap_saw(struct ucap *c, unsigned long addr, const void *v, size_t n);
/* Replay: the n bytes at addr from the file into v, true when held (a miss is not noted:
 * a frame-pointer scan reads the words a capture left out as FPC_UNKEPT). */
bool ucap_peek(const struct ucap *c, unsigned long addr, void *v, size_t n);
/* Recording: a frame-pointer scan read len bytes of the stack at addr (its words kept are
 * those ucap_saw was given). */
void ucap_scan(struct ucap *c, unsigned long addr, size_t len);
/* Replay: the bytes a scan at addr read, into len: 0, or -ENOENT (no such scan: a capture of
 * an older cgwatch, which kept the whole view). */
int ucap_scan_len(const struct ucap *c, unsigned long addr, size_t *len);
/* Replay: append to err (an unwind's stop, cap bytes) that a read missed the file. */
void ucap_explain(const struct ucap *c, char *err, size_t cap);
/* Replay: may the file at path here be used for the unwind (its build-id the recorded one)?
 * 0, or -1 with why ("replay: PATH build-id X not on this machine (...)"). Opens the file:
 * call under the deadline. */
int ucap_module(struct ucap *c, const char *path, char *why, size_t cap);
/* Recording, in the unwind's thread once it finished: the build-ids of the files of frames
 * f[0..n) (the mapped files, /proc/TGID/map_files, found in maps: the unwind's, NULL none)
 * and /proc/TGID/maps, as read. */
void ucap_unwound(struct ucap *c, int tgid, const struct maps_index *maps,
                  const struct cgw_uframe *f, size_t n);
/* Recording, once tid's unwind returned: c's reads and files kept for tgid, tid unwound. */
void ucap_done(struct ucap_set *u, int tgid, int tid, struct ucap *c);
/* Recording: t, not unwound from memory of its own nor sharing, keeps its ustack_error. */
void ucap_note(struct ucap_set *u, const struct cgw_task *t);
/* Recording: cgwatch/ustack/TGID and proc/TGID/maps of each process recorded. Frees u. */
void ucap_end(struct ucap_set *u);

/* ---- source-capture.c: check --capture DIR, the tree a replay reads ---- */

struct cgw_capture;
/* Make DIR (0700; an existing one must be an empty directory of ours, not a symlink) and
 * start recording (record.c). Returns 0 with *out, or -errno (-EEXIST not empty, -ELOOP or
 * -ENOTDIR not a directory, -EPERM another user's) with a message for the user in msg. */
int capture_open(const char *dir, unsigned timeout_ms, struct cgw_capture **out, char *msg,
                 size_t cap);
/* The capture's reference moment, right after the scan: the reader's clock, the uptime and
 * every CPU's clock measured (exact) or floored (lower) then, as offsets. */
void capture_mark(struct cgw_capture *c, const struct cgw_scan *s);
/* After diagnosis: write the tree of what the findings need (host files; the files of their
 * tasks, chains, runners on their CPUs, vfork children), cgwatch/clocks, cgwatch/unreadable
 * and, when r->rates is a live sample, cgwatch/rates into DIR. Stops recording. Returns 0 or
 * -errno (msg says why). */
int capture_write(struct cgw_capture *c, const struct cgw_report *r, char *msg, size_t cap);
/* Stop recording and free c (DIR stays as written). NULL is fine. */
void capture_free(struct cgw_capture *c);
/* A capture with no directory (the daemon's): start recording. NULL without memory. */
struct cgw_capture *capture_recording(unsigned timeout_ms);
struct cap_snap;
/* After diagnosis: what capture_write would write, taken into memory (stops recording), to
 * write later in any thread. NULL without memory. */
struct cap_snap *capture_take(struct cgw_capture *c, const struct cgw_report *r);
/* The bytes of the files (and their paths) a snapshot holds. */
uint64_t capture_snap_bytes(const struct cap_snap *sn);
/* Write the tree of sn into dir, which must not exist (made 0700). May block on the disk: not
 * for the main loop. Returns 0 or -errno (msg says why). */
int capture_snap_write(struct cap_snap *sn, const char *dir, char *msg, size_t cap);
void capture_snap_free(struct cap_snap *sn);
/* The flight recorder's readout w into sn as cgwatch/recorder/trace (trace_window_format), which
 * a replay reads back. 0 or -ENOMEM. */
int capture_snap_recorder(struct cap_snap *sn, const struct cgw_recwin *w);
/* The kernel's ring now, for a snapshot of a scan that followed it (the daemon's): read whole
 * as check reads it (kmsg_read_raw, non-blocking, within timeout_ms) into sn as dev/kmsg, with
 * the hung-task sysctls and uptime a replay reads it with where sn has none; what cannot be
 * read is an unreadable line. Not recorded: this thread's recording is muted meanwhile.
 * Returns 0 or -ENOMEM (sn then lacks some of it). */
int capture_snap_kmsg(struct cap_snap *sn, unsigned timeout_ms);
/* Write data (len bytes; a link's target when link) at the relative tree path under the
 * directory open at root: parents made 0700, the file 0600 and new, no symlink followed;
 * paths outside proc/, sys/, dev/, cgwatch/ or with "", ".", ".." components refused
 * (-EINVAL). Returns 0 or -errno. */
int capture_put_file(int root, const char *path, const char *data, size_t len, bool link);
/* A replay of root: its cgwatch/clocks (when there) into s->replay_clocks, with s->now_ms and
 * s->uptime_s from it, its cgwatch/rates into s->replay_rates (a note first saying how
 * they were counted, "(captured)") and its cgwatch/recorder/trace into s->replay_recorder;
 * an unreadable or unparsable one named (scan_unreadable,
 * with the line), and the replay goes on without it. */
void capture_replay_load(struct cgw_scan *s, const char *root, unsigned timeout_ms);

/* ---- source-recorder.c: the flight recorder, a private tracefs instance ---- */

#define CGW_RECORDER_NAME "cgwatch"    /* instances/cgwatch: the daemon's own ring */
struct recorder_opts {
	const char *tracefs;              /* NULL: /sys/kernel/tracing */
	const char *name;                 /* the instance's name; NULL: CGW_RECORDER_NAME */
	unsigned buffer_kb;               /* the ring's size per CPU (buffer_size_kb) */
	bool cpuset_opens;                /* record opens of cpuset.mems for writing (a syscall
	                                   * tracepoint: every openat pays for its filter) */
	const char *sched_switch;         /* sched_switch on these CPUs, in instances/NAME-switch:
	                                   * "auto" (the isolated and nohz_full ones), a CPU list,
	                                   * NULL or "no" (none) */
	unsigned timeout_ms;              /* each step's deadline (dl_call) */
	const char *run_dir;              /* where the owner file is; NULL: CGW_RUN_DIR */
	bool own;                         /* recorder_attach takes the instance's ownership (the
	                                   * daemon's use), not only reads it (check's) */
};
struct cgw_recorder {
	char dir[512];                    /* TRACEFS/instances/NAME; "" when not started */
	char enabled[1024];               /* "sys:event" of the events it records, space-separated */
	char missing[1024];               /* "sys:event (why)" of those it does not, "; "-separated */
	unsigned buffer_kb;               /* as the kernel took it */
	unsigned timeout_ms;
	char sw_dir[512];                 /* TRACEFS/instances/NAME-switch; "" when none */
	char sw_cpus[256];                /* the CPUs its sched_switch records, a CPU list */
	struct cgw_owner own;             /* RUN_DIR/recorder-NAME.lock, for NAME and NAME-switch;
	                                   * on a refusal, own.why says whose it is */
};
/* Take the ownership of o's instance (RUN_DIR/recorder-NAME.lock) into r, r->dir naming the
 * instance, nothing written to tracefs. 0; -EBUSY: another live process owns it (its PID in
 * r->own.holder); other -errno: no owner file could be kept; r->own.why says either. */
int recorder_own(const struct recorder_opts *o, struct cgw_recorder *r);
/* Give up the ownership of r's instance, leaving the instance (`recorder start`'s, made for
 * the daemon that comes next). */
void recorder_disown(struct cgw_recorder *r);
/* Create instances/NAME (one left by a crash is removed first: only that instance, never the
 * main buffer or another one), size its ring, set its clock to mono, set the kernel-side
 * filters (workqueue names, work functions, cpuset.mems opens) and enable the events this
 * kernel has; those it lacks are named in r->missing. With o->sched_switch, sched_switch
 * filtered in the kernel to those CPUs (CPU & CPUS{LIST}) in instances/NAME-switch, a ring
 * of its own that a busy CPU's switches cannot empty of the other events; none there (no
 * such CPUs, "no"): NAME-switch removed when one was left. Owned first (recorder_own): an
 * instance another live cgwatch owns is never touched. Returns 0, or -errno (-ENOENT: no
 * tracefs; -EBUSY: owned by another (r->own.why set), or the old instance is held open;
 * -ETIMEDOUT): then nothing is left behind when it can be removed, and nothing owned. */
int recorder_start(const struct recorder_opts *o, struct cgw_recorder *r);
/* The options [recorder] of c gives, each step bounded by its read_timeout. */
struct recorder_opts recorder_opts_of(const struct cgw_conf *c);
/* Use instances/NAME (and NAME-switch, when there) as another process (`cgwatch recorder
 * start`, as root) made them: nothing is written; r->enabled and r->missing from their
 * events' enable files. With o->own, owned first as recorder_start does. Returns 0, or -errno
 * (-ENOENT: no such instance; -EACCES: its trace file may not be read; -EBUSY with
 * r->own.why: another owns it). */
int recorder_attach(const struct recorder_opts *o, struct cgw_recorder *r);
/* The events of the last window_s seconds (CLOCK_MONOTONIC, as the ring's clock) from the
 * instance's `trace` file (a read that does not consume them), appended to out, with the
 * newest 64 switches of each CPU of NAME-switch merged in time order. The text is read and
 * parsed 1 MiB at a time. Returns 0 or -errno (-ETIMEDOUT, -ENOMEM). */
int recorder_read(const struct cgw_recorder *r, double window_s, struct cgw_trace_events *out);
/* recorder_read keeping only the newest keep events of the window (0: all), the older ones
 * dropped as the text is read (never all held at once); how many in *dropped (may be NULL). */
int recorder_read_keep(const struct cgw_recorder *r, double window_s, size_t keep,
                       struct cgw_trace_events *out, uint64_t *dropped);
/* Remove the instance and NAME-switch (their rings and events with them), then give up its
 * ownership. Returns 0 or -errno; r->dir is "" after. */
int recorder_stop(struct cgw_recorder *r);

/* ---- detect-duration.c: a task's time off the CPU, a fact or a bound ---- */

/* Fill next (state, switches, exec_start, since) from one read of a task at read_mono_ms and
 * the previous sighting of the same task (NULL when none); the caller sets tid and start. */
void seen_update(struct cgw_seen *next, const struct cgw_seen *prev, char state,
                 const struct cgw_sched *sc, int cpu, double read_mono_ms);
/* What a sighting proves at read_mono_ms: now is its clock_cpu's clock then, age_s the
 * task's age (< 0 unknown). Exact from exec_start and an exact now; else the larger lower
 * bound of exec_start against a floor of now, and of since; else unknown. Never more than
 * the age; an exec_start that would make it more is not the task's clock and is not used. */
struct cgw_dur seen_duration(const struct cgw_seen *w, struct cgw_now now, double read_mono_ms,
                             double age_s);
/* Read again (stat st, sched sc), is the task still in the wait w saw: the same task (start
 * time), the same state, and not run since (switches, CPU time and exec_start unchanged; an
 * exec_start reset to 0 is not a run)? */
bool seen_still(const struct cgw_seen *w, const struct cgw_stat *st, const struct cgw_sched *sc);
/* Seconds since a task with this stat start time started, at uptime_s; -1 when unknown. */
double task_age(unsigned long long start_ticks, double uptime_s, long clk_tck);
/* "12.3 s", "at least 12.3 s" or "an unknown time", into buf; returns buf. */
const char *dur_text(struct cgw_dur d, char *buf, size_t cap);
/* "exact", "lower" or "unknown", and back (anything else: exact, as files before bounds). */
const char *bound_name(enum cgw_bound b);
enum cgw_bound bound_parse(const char *s);

/* ---- detect-history.c: the daemon's sightings of D and R tasks, scan to scan ---- */

struct cgw_history;
struct cgw_history *history_new(void);
void history_free(struct cgw_history *h);
/* Start a scan: forget sightings added since the last commit. */
void history_begin(struct cgw_history *h);
/* The last committed scan's sighting of (tid, start_ticks), or NULL. */
const struct cgw_seen *history_find(const struct cgw_history *h, int tid,
                                    unsigned long long start_ticks);
/* Remember a sighting of this scan. Returns 0 or -ENOMEM (not remembered). */
int history_add(struct cgw_history *h, const struct cgw_seen *w);
/* End a scan: its sightings are what the next scan finds. */
void history_commit(struct cgw_history *h);

/* ---- detect.c: suspects and how long they have been stuck ---- */

/* Seconds since a task started, at CLOCK_MONOTONIC time at_mono; -1 when unknown. */
double detect_age(const struct cgw_scan *s, unsigned long long start_ticks, double at_mono);
/* D blocked at least o->blocked_s (every D task with o->all), R waiting at least
 * o->starved_s; a duration that is not known proves nothing. */
enum cgw_suspect detect_suspect(char state, struct cgw_dur d, const struct cgw_scan_opts *o);
/* Count a D task left out because its time is unknown though its age may pass the
 * threshold (s->untimed). */
void detect_count_untimed(struct cgw_scan *s, char state, struct cgw_dur d, double age,
                          const struct cgw_scan_opts *o);
/* Read cpu's scheduler clock, live, if this scan has not tried yet (a hop onto it). */
void detect_want_clock(struct cgw_scan *s, int cpu);
/* The whole of path with the deadline (scan_read), in a buffer grown until it fits (16 MiB
 * at most): malloc'd text, or NULL with *err -errno (-EFBIG: larger; -ENOMEM: s->nomem). */
char *scan_read_whole(struct cgw_scan *s, const char *path, unsigned timeout_ms, int *err);
/* scan_read of one pread at offset off (dl_pread_file). */
ssize_t scan_pread(struct cgw_scan *s, const char *path, off_t off, char *buf, size_t cap,
                   unsigned timeout_ms);
/* The scheduler clock of cpu (se.exec_start's clock there) at CLOCK_MONOTONIC time
 * at_mono_ms: exact where the reader could run and read it, else a floor from the runnable
 * tasks seen there, else unknown. A replay of a capture takes each CPU's from its clocks file
 * (one it does not list: unknown, as it was live); a tree without one, the captured reader's
 * clock as every CPU's. */
struct cgw_now scan_cpu_now(const struct cgw_scan *s, int cpu, double at_mono_ms);
/* Time every suspect on its own CPU's clock; drop those not past their threshold. */
void detect_clocks(struct cgw_scan *s, const struct cgw_scan_opts *o);
/* The second look: read the suspects of kind which (SUSPECT_NONE: all) again (their records
 * in relook, bpfscan_relook, when not NULL; else their stat and sched); drop those gone,
 * reused, out of their state or that ran since; move the others' times on. */
void detect_recheck(struct cgw_scan *s, enum cgw_suspect which, const struct cgw_bpfscan *relook);
/* Keep a starved suspect only if it still has not run a moment later, and measure the share
 * of its CPU every runner there took (live only). */
void detect_confirm_starved(struct cgw_scan *s, const struct cgw_scan_opts *o);
/* Drop the per-CPU kworkers kept under the starved threshold (drain_only) unless an LRU
 * drain in D has waited no longer than they have: not run since it queued its work. */
void detect_drain_kworkers(struct cgw_scan *s);
/* A replay of a capture: drop the suspects the live run's second look did not keep (its
 * clocks file lists them); nothing without such a list. */
void detect_replay_verdict(struct cgw_scan *s);
/* The judge of the walk: time a D or R thread and keep it as a task when it is a suspect. */
struct cgw_task *detect_thread(struct cgw_scan *s, const struct cgw_scan_opts *o,
                               const struct cgw_sighting *g);
/* Scan every thread under /proc. Returns 0, or -errno when /proc cannot be read or the
 * reader's own clock (/proc/self/sched) is unparsable (s->fatal then says why), or -ENOMEM
 * when memory ran out on the way (the scan is incomplete: not to be used; the daemon's
 * history is not committed). */
int scan_run(struct cgw_scan *s, const struct cgw_scan_opts *o);

/* ---- sigs-builtin.c: generated from conf/signatures.d by src/sigs-builtin.sh ---- */

struct cgw_sigfile { const char *name, *text; size_t len; };   /* text NULL: read name */
/* The shipped library's files, sorted by name; the last entry has name NULL. */
extern const struct cgw_sigfile sig_builtin_files[];

/* ---- diagnose-sig.c: the signature library ---- */

struct cgw_pat { char **alt; size_t n; };           /* one group: any alternative */
struct cgw_sig {
	char *id, *title, *summary, *explanation, *correlator;
	char *workqueue;                /* the workqueue its waiters flush, or NULL */
	bool cause_mount;               /* cause = mount: findings split by the mount waited on */
	enum cgw_sev severity;
	int priority;
	char states[8];                 /* task states it applies to, e.g. "D" */
	struct cgw_pat *frames; size_t nframes;     /* all required, any order */
	struct cgw_pat *order; size_t norder;       /* required in this order, innermost first */
	struct cgw_pat *optional; size_t noptional; /* marked, never required */
	char **remedies; size_t nremedies;
	char **references; size_t nreferences;
	char *file; int line;           /* where it was defined */
	bool builtin;                   /* file is one of sig_builtin_files */
	char *replaced;                 /* the source it replaced by id (sig_source), or NULL */
};
struct cgw_sigset { struct cgw_sig *v; size_t n; };

/* Load every *.conf of dir (sorted); a later load replaces signatures by id.
 * Errors go to err as "file:line: msg"; a bad file is skipped whole.
 * Returns the error count, or -errno when dir cannot be read. */
int sig_load_dir(struct cgw_sigset *set, const char *dir, FILE *err);
/* The *.conf files of dir (no dotfiles), sorted, as a malloc'd list of n+1 entries (paths
 * "dir/NAME", text NULL, the last name NULL) in *out: n, or -errno when dir cannot be read. */
int sigfile_list_dir(const char *dir, struct cgw_sigfile **out);
/* Free a sigfile_list_dir list of n files. */
void sigfile_list_free(struct cgw_sigfile *files, int n);
/* Load the built-in library (sig_builtin_files) as sig_load_dir loads a directory, errors
 * naming its files as conf/signatures.d/NAME.conf. Returns the error count. */
int sig_load_builtin(struct cgw_sigset *set, FILE *err);
/* Where s came from: "built in", or the path of its file. */
const char *sig_source(const struct cgw_sig *s);
/* The text of the built-in file name (conf/signatures.d/NAME.conf), or NULL. */
const struct cgw_sigfile *sig_builtin_file(const char *name);
void sig_free(struct cgw_sigset *set);
/* A deep copy of src into dst (empty): nothing shared, so either may be freed while the other
 * is in use on another thread. 0, or -ENOMEM (dst empty). */
int sig_copy(struct cgw_sigset *dst, const struct cgw_sigset *src);
const struct cgw_sig *sig_find(const struct cgw_sigset *set, const char *id);
/* Does s match the frames? When it does and marks is not NULL, marks[i] is set for every
 * frame that matched a required, ordered or optional pattern. Returns true on a match. */
bool sig_match(const struct cgw_sig *s, const struct cgw_frame *f, size_t n, bool *marks);
/* Best matching signature for a task in `state` with these frames, or NULL. */
const struct cgw_sig *sig_best(const struct cgw_sigset *set, char state,
                               const struct cgw_frame *f, size_t n);

/* Built-in library, then the [signatures] shipped and local directories (empty or absent:
 * skipped), each replacing by id; bad files reported and skipped. Returns 0, or EXIT_USAGE
 * when the library lacks a built-in id. */
int signatures_load(struct cgw_sigset *set, const struct cgw_conf *c);

/* ---- hazards-builtin.c: generated from conf/hazards.d by src/sigs-builtin.sh ---- */

/* The shipped hazard rules' files, sorted by name; the last entry has name NULL. */
extern const struct cgw_sigfile hazard_builtin_files[];

/* ---- diagnose-hazard.c: the hazard library, and the rules evaluated on a host's facts ---- */

/* Load every *.conf of dir (sorted), each rule replacing a loaded one by id. Errors go to err
 * as "file:line: message"; a bad file is skipped whole. Returns the error count, or -errno
 * when dir cannot be read. */
int hazard_load_dir(struct cgw_hazset *set, const char *dir, FILE *err);
/* The built-in rules, as hazard_load_dir loads a directory. Returns the error count. */
int hazard_load_builtin(struct cgw_hazset *set, FILE *err);
/* Built in, then [hazards] local (absent: skipped; bad files reported and skipped). 0. */
int hazards_load(struct cgw_hazset *set, const struct cgw_conf *c);
/* Where h came from: "built in" or its file. */
const char *hazard_source(const struct cgw_hazard *h);
/* The text of the built-in file name (conf/hazards.d/NAME.conf), or NULL. */
const struct cgw_sigfile *hazard_builtin_file(const char *name);
const struct cgw_hazard *hazard_find(const struct cgw_hazset *set, const char *id);

/* One rule that holds on a host: the rule and the evidence lines of its facts. */
struct cgw_hazard_hit { const struct cgw_hazard *h; char *evidence; };
/* One rule that could not be decided: a fact it tests is unknown here. */
struct cgw_hazard_open { const struct cgw_hazard *h; enum haz_fact fact; };
/* An audit's result: what the daemon diffs between two audits is the ids of hits. */
struct cgw_audit {
	struct cgw_hazard_hit *hits; size_t nhits;      /* most severe first, then by id */
	struct cgw_hazard_open *open; size_t nopen;
	const struct cgw_facts *facts;
};
/* Evaluate every rule of set on f into out (which points at f). 0 or -ENOMEM. */
int hazard_eval(const struct cgw_hazset *set, const struct cgw_facts *f, struct cgw_audit *out);
/* The highest severity of out's hits (SEV_NONE when none). */
enum cgw_sev audit_max_severity(const struct cgw_audit *a);
void audit_free(struct cgw_audit *a);
/* One rule's verdict in one audit, with copies of what a message about it says (no pointer
 * into the rule set: the daemon's audits run off its loop, each with its own rules). */
enum haz_verdict { HV_CLEAR, HV_HOLDS, HV_UNDECIDED };
struct haz_item {
	char *id, *title, *signature;   /* signature "" when none */
	char *evidence;                 /* '\n'-ended lines; "" unless it holds */
	enum cgw_sev severity;
	enum haz_verdict verdict;
};
struct haz_items {
	struct haz_item *v; size_t n;
	bool partial;                   /* some rules could not be read: a rule missing is not gone */
};
/* The verdict on every rule of set from its audit a (hazard_eval of set), in set's order.
 * 0, or -ENOMEM (out emptied). */
int audit_items(const struct cgw_hazset *set, const struct cgw_audit *a, struct haz_items *out);
void haz_items_free(struct haz_items *it);

/* ---- diagnose-classify.c ---- */

#define CGW_CAUSE_MAX 1056            /* "mount " and a mount point, with room to spare */
struct cgw_finding {
	const struct cgw_sig *sig;
	char cause[CGW_CAUSE_MAX];        /* what its tasks wait on (task_cause), "" when unknown */
	enum cgw_sev severity;
	size_t *tasks; size_t ntasks;     /* indexes into scan->t, longest-blocked first */
	size_t *chain; size_t nchain;     /* waiters, outermost first (a correlator's); else tasks */
	struct strbuf summary;            /* a correlator's own sentence; else the signature's */
	struct strbuf evidence;           /* lines separated by '\n' */
	struct cgw_cpus cpus;
	const struct cgw_sig *family;     /* a latency finding's: the signature family its
	                                     evidence points to, whose remedies it prints; NULL:
	                                     sig's own */
};
/* ---- the latency half: pressure (PSI) and run-queue latency, measured by the daemon ----
 * Filled by their sources before diagnosis; NULL in a report when not measured. */
enum cgw_psi_res { PSI_CPU, PSI_MEMORY, PSI_IO, PSI_NRES };
struct cgw_psi_avg { bool have; double avg10, avg60, avg300; unsigned long long total_us; };
struct cgw_psi { bool have; struct cgw_psi_avg some, full; };   /* one pressure file */
struct cgw_psi_cgroup {                   /* a cgroup v2 directory's cpu/memory/io.pressure */
	char path[256];                   /* as /proc/PID/cgroup's 0:: line names it */
	struct cgw_psi res[PSI_NRES];
};
struct cgw_pressure {
	struct cgw_psi sys[PSI_NRES];     /* /proc/pressure/{cpu,memory,io} */
	struct cgw_psi_cgroup *cg; size_t ncg;   /* the v2 cgroups of the findings' tasks */
	bool crossed[PSI_NRES];           /* past its [pressure] threshold, or its trigger fired
	                                     since the last scan */
	char why[PSI_NRES][160];          /* what crossed, as a sentence; "" when not */
	/* added by the PSI source (source-psi.c, diagnose-psi.c) */
	struct cgw_psi_trigger trig[PSI_NRES];  /* the thresholds decided against ([pressure]) */
	bool fired[PSI_NRES];             /* the kernel's trigger fired since the last scan */
	/* the daemon's: the growth of the stall total over the trigger's window, the largest it
	 * measured since the last scan (at the trigger's events and at this scan), which decides
	 * instead of fired and avg10 when measured */
	bool measured[PSI_NRES];
	unsigned long long growth_us[PSI_NRES];
	double crossed_s[PSI_NRES];       /* how long it has been crossed, scan after scan, before
	                                     this one (0: it crossed first now) */
	bool triggers;                    /* the kernel's triggers are registered (the daemon) */
	char error[PSI_NRES][256];        /* why a system file was not read, "" when it was */
};
/* avg10 (percent) at or above this is worth a line: an evidence line of a finding's cgroup,
 * the text report's system-wide line */
#define PSI_FLOOR_PCT 5.0

#define RUNQ_BUCKETS 32                   /* log2 buckets of waits in microseconds: bucket k
                                             counts waits in [2^k, 2^(k+1)) us, 0 also < 1 us */
struct cgw_runq_task {                    /* a task, its policy, and a time in the interval */
	int tid, tgid;
	char comm[CGW_COMM_MAX];
	unsigned policy, rt_priority;
	int nice;                         /* its nice (the sched_switch program; 0 unknown) */
	double ms;
};
#define TL_STACK_MAX 400                  /* a saved kernel stack, "a <- b <- c", bytes */
struct cgw_timerlat {                     /* timerlat's samples on one CPU over an interval */
	bool measured;                    /* timerlat ran on this CPU over the interval */
	unsigned long long samples;       /* activations of its thread seen */
	double irq_max_us, thread_max_us; /* the worst timer latency at the IRQ, at the thread */
	int irq_pid;                      /* the task the worst-latency IRQ interrupted, 0 idle */
	char irq_comm[CGW_COMM_MAX];      /* its comm as the trace printed it ("<...>" unknown) */
	int thr_pid;                      /* what ran while the worst thread latency grew: the
	                                     longest thread_noise, else the task the IRQ
	                                     interrupted; 0 none (idle, or unknown) */
	char thr_comm[CGW_COMM_MAX];
	double thr_noise_us;              /* that thread_noise's duration; 0 without one */
	char stack[TL_STACK_MAX];         /* the kernel stack saved at that IRQ (print_stack),
	                                     innermost first, "" none */
};
struct cgw_runq_cpu {
	int cpu;
	bool isolated;                    /* isolcpus or nohz_full (the topology) */
	unsigned long long count;         /* waits measured over the interval */
	unsigned long long buckets[RUNQ_BUCKETS];
	double sum_ms, p50_ms, p99_ms, max_ms;
	unsigned long long low_count;     /* of count: the waits of tasks that asked for less CPU
	                                     (SCHED_OTHER at nice > 0, SCHED_BATCH, SCHED_IDLE;
	                                     the sched_switch program only) */
	unsigned long long low_buckets[RUNQ_BUCKETS];
	double full_p99_ms, full_max_ms;  /* the p99 and longest of the other waits (count -
	                                     low_count): what pages. With low_count 0, p99_ms and
	                                     max_ms are theirs */
	struct cgw_runq_task waited[4];   /* the longest waits, longest first (schedstat: the
	                                     highest mean waits per slice) */
	size_t nwaited;
	struct cgw_runq_task held;        /* the task that ran longest on the CPU (ms: its run
	                                     time in the interval: sched_switch, its longest run
	                                     without a switch; schedstat, its CPU time); tid 0
	                                     when unknown */
	struct cgw_timerlat tl;           /* timerlat over the interval, where it ran */
};
enum { RUNQ_HOUSEKEEPING, RUNQ_ISOLATED, RUNQ_NGROUPS };
struct cgw_runq_total {                   /* a CPU group's waits since the daemon started */
	unsigned long long count;
	unsigned long long buckets[RUNQ_BUCKETS];
	double sum_ms;
};
struct cgw_runq {
	const char *source;               /* where the waits come from, e.g. "sched_switch" */
	double interval_s;                /* the window the counts cover */
	struct cgw_runq_cpu *cpu; size_t ncpu;
	char missing[256];                /* measurements this kernel could not make, "" none */
	char timerlat[200];               /* where timerlat ran over the interval ("CPUs 1,3"),
	                                     or why not; "" not asked for */
	bool exact;                       /* each wait measured (the tracepoint); else a mean
	                                     wait per slice (schedstat): coarser */
	struct cgw_runq_total total[RUNQ_NGROUPS];   /* cumulative: the metrics' histograms */
};

/* ---- parse-runq.c: run-queue waits, pure (histograms, /proc/TID/schedstat) ---- */

/* /proc/TID/schedstat, "RUN_NS WAIT_NS SLICES\n" (sched_info: time on the CPU, time
 * runnable waiting on a run queue, times it got a CPU). 0, or -EINVAL / -ERANGE. */
struct cgw_schedstat { uint64_t run_ns, wait_ns, slices; };
int parse_schedstat(const char *buf, struct cgw_schedstat *out);
/* The log2 bucket of a wait of us microseconds: k with 2^k <= us < 2^(k+1), 0 below 2,
 * RUNQ_BUCKETS - 1 at most. */
unsigned runq_bucket(uint64_t us);
/* The q-quantile (0 < q <= 1) of a RUNQ_BUCKETS histogram, in ms: the bucket holding it,
 * interpolated linearly across the bucket's span (so within a factor of 2 of the true wait:
 * the resolution of log2 buckets), at most max_ms when max_ms > 0; 0 for an empty one. */
double runq_quantile(const unsigned long long *buckets, double q, double max_ms);
/* c's count, sum_ms, p50_ms and p99_ms from its buckets (max_ms kept: the quantiles are
 * capped by it when it is known); low_count from low_buckets, and full_p99_ms from the other
 * waits (capped by full_max_ms; with no low waits, p99_ms and max_ms). */
void runq_summarize(struct cgw_runq_cpu *c);
/* Keep t among c's longest waits (c->waited, longest first, at most 4). */
void runq_waited_add(struct cgw_runq_cpu *c, const struct cgw_runq_task *t);
/* Add c's counts to the running total of its group. */
void runq_total_add(struct cgw_runq_total *tot, const struct cgw_runq_cpu *c);

struct cgw_rates;
struct cgw_report {
	struct cgw_scan *scan;
	struct cgw_finding *f; size_t nf;
	const struct cgw_conf *conf;
	bool all;
	bool verbose;                     /* text: every task and evidence line, not grouped */
	double threshold_s;
	const struct cgw_kmsg *kmsg;      /* what the kernel said (kmsg.h), or NULL */
	const struct cgw_rates *rates;    /* cgroup activity over the window (rates.h), or NULL */
	bool rates_skipped;               /* a live check that needed no counts: not measured */
	const struct cgw_recwin *recorder; /* the flight recorder's readout (its timeline), or NULL */
	const struct cgw_pressure *pressure; /* PSI at this scan, or NULL (not measured) */
	const struct cgw_runq *runq;      /* run-queue latency over the interval, or NULL */
	const struct cgw_rates *rates_prev; /* the daemon's counts of its last interval without a
	                                     latency finding (the host before the latency), or
	                                     NULL: what a latency finding's rates are compared with */
	struct cgw_latency *latency;      /* the daemon's latency state across scans, or NULL: one
	                                     look decides (diagnose-latency.c) */
	const char *runq_why;             /* why runq is NULL (not measured), or NULL */
	const struct cgw_kernel *kfeat;   /* the kernel features this process used, or NULL (a
	                                     replay: they were another host's) */
};

/* Give every suspect its signature and severity, then group findings by signature,
 * most severe first. Returns 0, or -ENOMEM (the findings are incomplete: free them with
 * report_free and do not use them). */
int classify(struct cgw_report *r, const struct cgw_sigset *sigs);
/* classify() for check: 0, or EXIT_UNREADABLE with the reason logged (out of memory). */
int check_classify(struct cgw_report *r, const struct cgw_sigset *sigs);

/* ---- diagnose-latency.c: latency findings from run-queue latency and pressure ---- */

#define LAT_RSTAT_FLOOR 1.0       /* rstat lock contentions a second that can "rise" (as the
                                     audit's rstat-contended) */
#define LAT_CPUHP_FLOOR 1.0       /* hotplug steps in the window (or a second) that can */
#define LAT_FORK_FLOOR 500.0      /* forks a second: a clone storm */
#define LAT_CG_FLOOR 1.0          /* a cgroup's avg10 (%) worth naming in evidence */
#define LAT_MAX_CGROUPS 5         /* cgroups named per pressure finding */
#define LAT_MAX_CPUS 4            /* CPUs whose tasks a cpu pressure finding holds */
#define LAT_MAX_DTASKS 8          /* D tasks a memory or io pressure finding holds */
#define LAT_MAX_STACKS 32         /* tasks per CPU whose kernel stacks show rstat readers */
#define LAT_STACK_PASSES 16       /* times each is read, until a pass finds one: a reader */
#define LAT_STACK_GAP_MS 3        /* preempted in the flush shows it until it runs again (here
                                     1 look in 20 caught one), so the passes are ms apart: at
                                     most 48 ms, only when rstat contention rose */
#define LAT_MAX_READERS 8         /* rstat readers made tasks of the finding */
#define LAT_LONE_FACTOR 4.0       /* one wait this many times runq_p99_ms behind an RT task
                                     that ran half as long passes below runq_min_waits */
#define LAT_FULL_SHARE 0.9        /* an interval of at least this share of [scan] interval is
                                     full: one that counts toward resolving (the runq sample
                                     follows the scan's own work, which varies by ms to a few
                                     100 ms; a pressure trigger's early scan is shorter) */
/* The daemon's latency state per CPU: the consecutive scans its p99 passed, whether its finding
 * is open (made at the last scan), and the consecutive full intervals below since. */
/* A CPU's latency across scans: the passes in a row and the seconds of their intervals, the
 * full intervals below since, whether its finding is open and why it has paged (a warning)
 * since it opened: LAT_PAGED_*, 0 not (diagnose-latency.c). */
struct lat_cpu { unsigned streak, below; double passed_s; bool open; int paged; };
struct cgw_latency { struct lat_cpu *cpu; size_t n; };
void latency_state_free(struct cgw_latency *st);
/* Does c pass [latency] runq_p99_ms: the p99 of its waits, over at least runq_min_waits of
 * them, those of tasks that asked for less CPU (low_count) left out unless an RT task held the
 * CPU; or one wait LAT_LONE_FACTOR times the threshold behind an RT task that ran half as long? */
bool latency_cpu_passes(const struct cgw_runq_cpu *c, const struct cgw_conf *conf);
/* The signature family a latency points to: "starved" (c held by a SCHED_FIFO/RR task, without
 * a switch, for at least half its p99 wait, the histogram's resolution, or half threshold_ms), "rstat-flush" (rstat lock contention rose against prev), then
 * "sched-domain-rebuild" (hotplug steps), "cgroup-fork-lock" (forks rose to a storm), else
 * "runq-latency". c, rt, prev may be NULL. */
const char *latency_family(const struct cgw_runq_cpu *c, const struct cgw_rates *rt,
                           const struct cgw_rates *prev, double threshold_ms);
/* With r->latency (the daemon), once r->pressure->cg holds the pressure of the findings'
 * tasks' v2 cgroups (psi_read_cgroups): one pressure-stall finding, cause "cgroup PATH", per
 * cgroup but the root whose avg10 of a resource passes that resource's [pressure] threshold
 * (stall/window), its tasks the findings' tasks in it, its family as "pressure RES"'s.
 * 0, or -ENOMEM. */
int latency_cgroups(struct cgw_report *r, const struct cgw_sigset *sigs);
/* The CPUs of r that [latency] timerlat asks to measure over the next interval into out:
 * TL_MODE_ALWAYS all of them, TL_MODE_AUTO those whose p99 passed (latency_cpu_passes; r NULL:
 * none), TL_MODE_NO none. */
void latency_timerlat_cpus(const struct cgw_runq *r, const struct cgw_conf *conf,
                        struct cgw_cpus *out);
/* Is the signature id a latency one (runq-latency, pressure-stall)? */
bool latency_sig(const char *id);
/* Has r a latency finding (runq-latency, pressure-stall)? */
bool latency_any(const struct cgw_report *r);
/* Add r's latency findings (r->rates, r->rates_prev set): one runq-latency finding, cause
 * "cpu N", per CPU of r->runq whose p99 passed (r->latency: on runq_scans scans in a row;
 * NULL: this one), its tasks the CPU's holder and longest waiters (the scan's entries, else
 * new ones read through rd); with r->latency (the daemon), one pressure-stall finding, cause
 * "pressure RES", per resource r->pressure says crossed. Evidence: the wait, what held the CPU, the cgroup activity rates
 * against r->rates_prev (before the latency), the family (f->family), the rstat readers when it is
 * rstat-flush, what this kernel could not measure. 0, or -ENOMEM. */
int latency_diagnose(struct cgw_report *r, const struct cgw_sigset *sigs,
                     const struct lat_reader *rd);
/* ---- diagnose-psi.c: pressure against its thresholds, and as evidence (pure) ---- */

/* p->crossed and p->why of each resource from p->sys, p->trig, p->fired and p->growth_us:
 * measured (the daemon), crossed when the growth is at or past the stall; else when its
 * trigger fired since the last scan, or its avg10 is at or above stall/window; off ("no")
 * resources never cross. */
void pressure_decide(struct cgw_pressure *p);
/* A pressure file's stall total (some or full, microseconds) read at a time (CLOCK_MONOTONIC
 * us): the daemon's samples of a resource, oldest first, at most PSI_HIST_MAX (the oldest
 * go first). */
struct psi_sample { uint64_t t_us; unsigned long long total_us; };
#define PSI_HIST_MAX 64
struct psi_hist { struct psi_sample s[PSI_HIST_MAX]; size_t n; };
/* Append a sample (one no newer than the newest replaces nothing: it is dropped); samples
 * no later sample needs to reach back a window of 10 s go first. */
void psi_hist_add(struct psi_hist *h, uint64_t t_us, unsigned long long total_us);
/* Does the stall total of h grow by t's stall or more over t's window ending at its newest
 * sample (the kernel's own test, growth >= threshold)? The total at the window's start is
 * interpolated between the samples either side of it (rounded so that the growth rounds
 * down); with less than a window of samples, the growth over what h holds. *growth_us: the
 * growth (0 with fewer than two samples, or a total that went back). */
bool psi_hist_crosses(const struct psi_hist *h, const struct cgw_psi_trigger *t,
                      unsigned long long *growth_us);
/* The pressure of cgroup c at or above PSI_FLOOR_PCT as one line ("/system.slice/db.service:
 * cpu some avg10 42 %, io some avg10 12 % (full 8 %)") into buf; "" when none. Returns buf. */
const char *pressure_cgroup_line(const struct cgw_psi_cgroup *c, char *buf, size_t cap);
/* An evidence line on each finding for each cgroup of its tasks (p->cg) with pressure at or
 * above the floor. */
void pressure_link(struct cgw_report *r, const struct cgw_pressure *p);

/* ---- diagnose-lock.c: the owner of the lock a blocked task waits on (the scan's iterator) ---- */

/* "a mutex", "a semaphore", "an rw-semaphore (to read)", ... of a TASKREC_LOCK_* kind. */
const char *lock_kind_name(int kind);
/* Every finding task blocked on a lock whose owner the kernel records gets an evidence line
 * naming the lock's kind, the owner and where it is (blocked itself: where, how long, its
 * finding); a finding without a correlator's chain gets waiter -> owner -> ... while the
 * owners are this scan's tasks (a cycle ends it). 0, or -1 out of memory. */
int lock_link(struct cgw_report *r);
/* Did the iterator read the owner of the lock t waits on? Then lock_link's line says whether
 * the kernel's hung-task report (r->kmsg's blocker line of t) agrees, names another owner or
 * found none, and kmsg_link leaves that blocker line out; else the kernel's line is the
 * source. */
bool lock_kmsg_confirms(const struct cgw_task *t);

/* ---- diagnose-cause.c: what a suspect's wait is on, the key of its finding and incident ---- */

/* The cause of t (its signature set): "cgroup PATH" when frozen, "workqueue NAME" for a
 * signature naming its workqueue, "flush by CALLER" for a workqueue correlator's flusher (the
 * frame below the flush frames), "mount MOUNTPOINT" for a file system wait whose mount is
 * known; else "". Raw bytes (a path may hold any): escape on output. Returns out. */
char *task_cause(const struct cgw_task *t, char *out, size_t cap);
/* The first frame outside the flush frames above the innermost one, or NULL. */
const char *flush_caller(const struct cgw_task *t);
/* Is c a cause task_cause could make (a known kind, then a path or a name)? */
bool cause_ok(const char *c);
/* Append "PID N waits in statx on PATH, on the fuse mount MNT (connection 0:53)\n" when t's
 * syscall and its path or mount are known; nothing otherwise. */
void cause_evidence(struct strbuf *ev, const struct cgw_task *t);

/* ---- diagnose-recorder.c: the flight recorder's events as timeline sentences (pure) ---- */

/* w's anchor: read_at less the blocked time of finding's first task (the longest blocked;
 * finding < 0 or past the end: the first finding's), named "PID 1 blocked" ("last ran" for a
 * starved task). No anchor when r has no finding, the task's time is unknown or read_at is. */
void recorder_anchor(struct cgw_recwin *w, const struct cgw_report *r, ssize_t finding);
/* One sentence of the timeline: at seconds from the anchor (from the readout without one),
 * t its CLOCK_MONOTONIC time, kind the class of its mark ("recorder rec-cgroup", ...). */
struct rec_line { double at, t; const char *kind; char text[1024]; };
/* The sentences of w's events, oldest first, at most cap: each open of cpuset.mems, CPU
 * hotplug step and hung-task report (the newest 8 of a kind, then one for the rest); cgroup
 * mkdirs, rmdirs, moves and rstat contentions counted in the 30 s before the anchor (and in
 * the window); work queued per workqueue and started per function, counted; per CPU with
 * sched_switch events, its last switch ("recorder rec-switch": the task switched in ran
 * without a switch since; the 8 CPUs that went longest first, one line for the others).
 * Names C-escaped. Returns how many. */
size_t recorder_lines(const struct cgw_recwin *w, struct rec_line *out, size_t cap);

/* ---- diagnose-correlate.c ---- */

/* Link findings into wait chains and name causes, running on each finding the correlator its
 * signature's `correlator =` names (lru-drain: the waiters of a cpuset migration, its worker
 * in the LRU drain, the starved per-CPU kworkers; workqueue; starvation: what runs on a
 * starved task's CPU). Returns 0, or -ENOMEM when links could not be stored (the report is then only to free). */
int correlate(struct cgw_report *r);

/* ---- diagnose-finding.c: the findings of a report ---- */

/* The finding holding scan task index idx, or -1. */
ssize_t report_finding_of(const struct cgw_report *r, size_t idx);
/* Highest finding severity (SEV_NONE when there are none). */
enum cgw_sev report_max_severity(const struct cgw_report *r);
/* Free the findings of r (not its scan). */
void report_free(struct cgw_report *r);

/* ---- diagnose.c: the diagnosis stage ---- */

/* Called by diagnose() once the findings are known, to set r->rates (and r->rates_skipped)
 * from ctx: check opens its counting window only when a finding needs the counts. */
typedef void (*cgw_rates_fn)(struct cgw_report *r, void *ctx);
/* The one diagnosis step of check and the daemon, on r->scan: signatures and correlators
 * (classify), then rates(r, ctx) when not NULL (a replay whose scan has the captured counts,
 * r->scan->replay_rates, takes those instead), then evidence from r->kmsg (kmsg_link) and
 * r->rates (rates_link). Returns 0, or -ENOMEM (the report is then only to free). */
int diagnose(struct cgw_report *r, const struct cgw_sigset *sigs, cgw_rates_fn rates, void *ctx);
/* diagnose() for check: 0, or EXIT_UNREADABLE with the reason logged (out of memory). */
int check_diagnose(struct cgw_report *r, const struct cgw_sigset *sigs, cgw_rates_fn rates,
                   void *ctx);

/* ---- incident.c ---- */

#define INC_MAX_TASKS 64          /* tasks remembered per incident; more are only counted */
#define INC_MAX_TIMELINE 64       /* state changes remembered per incident */
#define INC_MAX_OVERFLOW_SAVED 1024   /* overflow tasks listed in the state file; more counted */
#define STATE_MAX_BYTES ((1 << 20) - 1)  /* the largest state file saved or loaded */
#define INC_REC_HELD_MAX 60000    /* flight recorder events all incidents' readouts keep */
#define INC_REC_KEEP_MIN 1000     /* ... and one more readout at least */

enum inc_state { INC_NONE = 0, INC_OPENED, INC_ESCALATED, INC_UPDATED, INC_RESOLVED };

struct inc_task {
	int tid, tgid;
	unsigned long long start_ticks;
	char comm[CGW_COMM_MAX]; size_t comm_len;
	char unit[128];
	char ustack_top[400];             /* its innermost user frame (ustack_top), "" unknown */
	double blocked_s;                 /* longest seen blocked or waiting, */
	enum cgw_bound bound;             /* exactly or at least */
	double resolved_at;               /* epoch; 0 while still blocked */
	bool held;                        /* a latency incident's: it held the CPU (LAT_HELD) at
	                                     its last finding, rather than waited */
};
struct inc_event { double time; enum inc_state state; enum cgw_sev severity; size_t ntasks;
                   double blocked_s; };
struct incident {
	char id[176], sig[128];            /* ids of the library are at most 64 characters */
	char cause[CGW_CAUSE_MAX];         /* with sig, the key: its findings' cause, "" none */
	enum cgw_sev severity;
	bool escalated;
	double opened_at, escalated_at, resolved_at, last_event_at;   /* epoch */
	struct inc_task *tasks; size_t ntasks; size_t ntasks_total;
	struct inc_key { int tid; unsigned long long start_ticks; } *overflow;
	size_t noverflow;                 /* tasks past INC_MAX_TASKS in the last scan: counted once;
	                                     sorted by (tid, start_ticks) */
	size_t overflow_unlisted;         /* of those, counted before a restart but not saved */
	struct inc_event *timeline; size_t ntimeline;
	struct cgw_recwin *rec;           /* the flight recorder's readout at its opening, or NULL
	                                     (not saved across a restart) */
	unsigned reports;                 /* report files written for it */
	char report[4096];                /* the last JSON report */
	bool bundled;                     /* the daemon decided its bundle (not saved) */
	char bundle[4096];                /* that bundle's file, named in its messages; "" none */
};
struct cgw_incidents {
	struct incident *v; size_t n;
	char recent[8][176]; unsigned nrecent;   /* ids of incidents already pruned */
};
struct inc_change { size_t inc; enum inc_state state; ssize_t finding; };

/* Name of a state ("opened", ...), and back (INC_NONE when unknown). */
const char *inc_state_name(enum inc_state s);
enum inc_state inc_state_parse(const char *s);
/* Free what an incident holds and zero it. */
void incident_clear(struct incident *i);
/* Order of struct inc_key (tid, then start_ticks), for qsort and bsearch. */
int inc_key_cmp(const void *a, const void *b);
/* Fold one scan's findings (warning and above) into the open incidents at time now (epoch):
 * open, escalate, update at most every update_s, resolve. Returns the number of changes,
 * stored in a new array *ch (free it). -ENOMEM (*ch NULL) when memory for the update could not
 * be had: the incidents are then as they were (their arrays may have grown). */
ssize_t incidents_update(struct cgw_incidents *in, const struct cgw_report *r, double now,
                         double update_s, struct inc_change **ch);
/* Drop resolved incidents (after their changes were emitted). */
void incidents_prune(struct cgw_incidents *in);
/* How many recorder events one more readout may keep: CGW_REC_KEEP, less what the readouts of
 * in's incidents hold past INC_REC_HELD_MAX, never under INC_REC_KEEP_MIN. */
size_t incidents_rec_keep(const struct cgw_incidents *in);
void incidents_free(struct cgw_incidents *in);
/* Tasks of incident i stuck now (remembered and counted ones). */
size_t incident_stuck(const struct incident *i);
/* The longest time any of its tasks has been stuck, in seconds. */
double incident_worst(const struct incident *i);
/* The task a message names: of those still stuck (any, once resolved), the one that held the
 * CPU for a latency incident, else the one blocked longest. */
const struct inc_task *incident_lead(const struct incident *i);
/* Is i a latency incident (diagnose-latency.c: cause "cpu N" or "pressure RES")? */
bool incident_latency(const struct incident *i);
/* How long t of i was in it, for the reports: "stuck for 21.3 s" ("was stuck" once recovered);
 * of a latency incident, its longest wait for the CPU or run on it, "holds or waits for the
 * CPU 49.0 ms" ("held or waited"). Returns buf. */
const char *inc_task_time(const struct incident *i, const struct inc_task *t, char *buf,
                          size_t cap);
/* An incident task's duration as one value and its bound. */
struct cgw_dur inc_task_dur(const struct inc_task *t);

/* ---- incident-hazard.c: the hazards that hold, from one audit to the next (pure) ---- */

/* A rule the daemon has decided on (held or not), with what a message about it says. */
struct haz_tracked {
	char *id, *title, *signature;
	enum cgw_sev severity;
	bool holds;
};
struct cgw_hazstate {
	struct haz_tracked *v; size_t n;
	uint64_t audits;                  /* audits folded in */
	double last_epoch, last_s;        /* when the last one ended, how long it took */
};
enum haz_change { HAZ_FOUND, HAZ_CLEARED };
struct haz_event {
	enum haz_change what;
	char *id, *title, *signature, *evidence;   /* evidence "" for a cleared one */
	enum cgw_sev severity;
};
/* Fold one audit's verdicts into st: a rule that holds now and did not (or was never decided)
 * is FOUND, one that held and is now clear, or whose rule is gone (now not partial), is
 * CLEARED; an undecided rule, or one missing from a partial audit, keeps what it was. The first audit's hazards are each FOUND. The events
 * (malloc'd, in items' order, cleared ones of gone rules last) go to *ev. Returns their count,
 * or -ENOMEM (st as it was). */
ssize_t hazstate_update(struct cgw_hazstate *st, const struct haz_items *now,
                        struct haz_event **ev);
void haz_events_free(struct haz_event *ev, size_t n);
void hazstate_free(struct cgw_hazstate *st);

/* ---- incident-state.c: the state file of the open incidents ---- */

/* The state file of the open incidents (malloc'd, *len bytes), at most STATE_MAX_BYTES: the
 * overflow lists cut to INC_MAX_OVERFLOW_SAVED (or left out) so that it fits; an incident that
 * still does not fit is left out and counted in *left_out (may be NULL). */
char *incidents_serialize(const struct cgw_incidents *in, const char *boot_id, size_t *len,
                          size_t *left_out);
/* Save the open incidents to path atomically, with this boot's id. Returns 0, -errno, or
 * -EFBIG when some did not fit (the others are saved). */
int incidents_save(const struct cgw_incidents *in, const char *path, const char *boot_id);
/* Parse a state file's text (len bytes, named name in messages): every field is checked, and
 * an incident with a bad one is dropped with "name: incident K: field: why" to err. Those of
 * another boot are dropped (counted in *dropped). Returns 0 or -EINVAL (not a state file). */
int incidents_parse(struct cgw_incidents *in, const char *text, size_t len, const char *name,
                    const char *boot_id, size_t *dropped, FILE *err);
/* Read path and incidents_parse it. Returns 0, -ENOENT when there is no file, -errno, or
 * -EINVAL (message to err). Reads without a deadline: the daemon uses dl_read_file. */
int incidents_load(struct cgw_incidents *in, const char *path, const char *boot_id,
                   size_t *dropped, FILE *err);

/* ---- sink-textgroup.c: many alike lines as one, for the text report ---- */

/* Lines of the same shape: the same text, with numbers in the same places (a CPU list after
 * "CPU ", a task id after "PID ", "/proc/", ..., decimals, other numbers). With names, every
 * number is a plain number (task names). */
bool text_alike(const char *a, size_t alen, const char *b, size_t blen, bool names);
/* One line (malloc'd) for n lines s[i] (len[i] bytes) of the same shape: CPU lists merged,
 * task ids listed, decimals as a range "min-max", other numbers that differ as N; "" when
 * they are not alike; NULL when there was no memory for it. */
char *text_merge(const char *const *s, const size_t *len, size_t n, bool names);
/* The lines of text ('\n'-separated) with alike lines grouped: one line per group, at the
 * place of its first line, as it was when alone, else "xN " and the merged line. Returns a
 * malloc'd string, every line ending in '\n'; NULL when there was no memory for it. */
char *lines_group(const char *text);
/* Ids sorted, runs as ranges ("5031-5086,5100"), cut with " and N more" past 40 characters.
 * Returns out; "(N, not listed: out of memory)" when there was no memory to sort them. */
char *idlist_format(const long *ids, size_t n, char *out, size_t cap);

/* ---- sink-text.c / sink-json.c ---- */

/* Write the report for a person. Alike tasks and evidence lines are one entry each, unless
 * r->verbose. */
void report_text(const struct cgw_report *r, FILE *out);
/* The entries of the text report for the scan tasks idx[0..n-1] of t: alike tasks (all the
 * task line shows is the same but the id, CPU, duration and the digits of the name; the same
 * stack) share one. group[i] gets the entry of idx[i], entries numbered in the order of their
 * first task. Returns the number of entries. */
size_t task_groups(const struct cgw_task *t, const size_t *idx, size_t n, size_t *group);
/* Write the report as cgwatch.report/1 JSON. Returns 0, -ENOMEM or -EIO. */
int report_json(const struct cgw_report *r, FILE *out);
struct json_object;
/* The cgwatch.report/1 object, with only finding `only` and its tasks when only >= 0. */
struct json_object *report_json_build(const struct cgw_report *r, ssize_t only);
/* A "not read: WHAT: WHY: what it costs" line for each source the report lacks: /dev/kmsg
 * (live, or a replay's capture that is there and unreadable), the perf counters (live),
 * /proc/cgroups, the kernel stacks of suspects. Nothing when everything was read. */
void report_text_sources(const struct cgw_report *r, FILE *out);
/* The text report of finding k alone, after a header line of the caller's. */
void report_text_finding(const struct cgw_report *r, size_t k, FILE *out);

/* ---- sink-psi.c: pressure (PSI) in the reports and the metrics ---- */

/* The report's "pressure" object: system (per resource: some, full, threshold, crossed, why,
 * trigger_fired, error), triggers, cgroups (path and each resource's some and full). */
struct json_object *pressure_json(const struct cgw_pressure *p);
/* "Pressure (PSI, avg10): cpu some 42 %, ..." when a resource is at or above the floor, then
 * a line for each that crossed its threshold. Nothing when r->pressure is NULL. */
void report_text_pressure(const struct cgw_report *r, FILE *out);
/* The metrics of p appended to b: cgwatch_pressure_avg{10,60,300}_ratio{resource,kind},
 * cgwatch_pressure_stall_seconds_total{resource,kind}, cgwatch_pressure_crossed{resource}. */
void metrics_pressure(struct strbuf *b, const struct cgw_pressure *p);

/* ---- sink-recorder.c: the flight recorder's readout in a report ---- */

/* Read rec's last window_s seconds into w (the newest keep events), told from finding's first
 * task of r (recorder_anchor). 0, or -errno with w->why saying what failed (w->ev empty). */
int recwin_read(struct cgw_recwin *w, const struct cgw_recorder *rec, double window_s,
                size_t keep, const struct cgw_report *r, ssize_t finding);
/* The timeline sentences of w (at most 64; malloc'd, *n of them; NULL without memory). */
struct rec_line *recorder_report_lines(const struct cgw_recwin *w, size_t *n);
/* "Kernel events before the hang (flight recorder, ...):" and the sentences of r->recorder,
 * seconds from the first blocked task's moment; what the ring lost, events not kept, events
 * not recorded; or why nothing was recorded. Nothing when r->recorder is NULL. */
void report_text_recorder(const struct cgw_report *r, FILE *out);
/* The report's "recorder" object: read_at, window_s, anchor, anchor_at, enabled, missing, lost,
 * dropped, events_total, events (the newest 1000: at, rel_s, cpu, pid, comm, event, fields),
 * events_cut (and events_cut_why), timeline (rel_s, kind, text); {"error": why} when not read. */
struct json_object *recorder_json(const struct cgw_recwin *w);

/* ---- sink-incident.c ---- */

struct json_object;
/* The incident as the "incident" object of a report. */
struct json_object *incident_json(const struct incident *i, enum inc_state state);

/* ---- sink-runq.c: run-queue latency out ---- */

/* The report's `runq` object: source, interval, per CPU count, p50/p99/max, the longest
 * waits and the task that held the CPU; for r NULL, source null and why (not measured). */
struct json_object *runq_json(const struct cgw_runq *r, const char *why);
/* The Prometheus histogram cgwatch_runq_latency_seconds per CPU group (cumulative: r's
 * totals) and the gauge cgwatch_runq_latency_p99_seconds per CPU, appended to b. */
void metrics_runq(struct strbuf *b, const struct cgw_runq *r);

/* ---- sink-report.c, sink-journal.c, sink-metrics.c: where incidents go ---- */

/* One line for a person: "PID 1 (systemd) blocked 21.3 s in fuse-wait: incident ... opened,
 * warning", or at the end "... was blocked at least 183.4 s in fuse-wait; resolved at 08:14:07". */
char *incident_message(const struct incident *i, enum inc_state st, char *out, size_t cap);
/* Write the text and JSON reports of one incident change under c->report_dir, atomically,
 * then rotate. The JSON path goes to i->report. Returns 0 or -errno (nothing logged). */
int sink_report(const struct cgw_conf *c, const struct cgw_report *r, struct incident *i,
                enum inc_state st, ssize_t finding);
/* One report pair, rendered and ready to write: dir/<id>-NN-<state>.{txt,json}. */
struct report_files {
	char *dir, *txt_name, *json_name, *html_name;   /* html_name: <id>.html, the incident's page */
	char *text, *json, *html; size_t text_len, json_len, html_len;
	size_t keep; uint64_t max_bytes;      /* rotation, from [reports] */
};
/* Render the reports of one incident change in memory (no file touched), numbered
 * i->reports + 1; i is not changed. Returns 0 or -ENOMEM. Free with report_files_free. */
int report_prepare(const struct cgw_conf *c, const struct cgw_report *r,
                   const struct incident *i, enum inc_state st, ssize_t finding,
                   struct report_files *out);
/* Make the directory (0750) when missing, write the three files (text, JSON, the incident's
 * page) or none, rotate. Returns 0 or -errno with a sentence in why (cap bytes). May block on
 * the disk: not for the main loop. */
int report_files_write(const struct report_files *f, char *why, size_t cap);
void report_files_free(struct report_files *f);
/* Delete the oldest reports of dir (a report: one change's .txt and .json, both together;
 * an incident's <id>.html goes with its last report) until at most keep reports and max_bytes
 * of their files remain. Returns the number of files deleted, or -errno. */
int reports_rotate(const char *dir, size_t keep, uint64_t max_bytes);
/* The fixed 128-bit journal MESSAGE_ID of a signature id, as 32 hex digits. */
char *sig_message_id(const char *sig_id, char out[33]);
/* Send one incident change to journald, or to stderr when there is no journald.
 * Returns 0 when journald took it, 1 when it went to stderr. */
int sink_journal(const struct incident *i, enum inc_state st);
/* Print the journal catalog of every signature (journalctl --update-catalog format). */
void catalog_print(const struct cgw_sigset *set, FILE *out);
/* The MESSAGE_ID of every hazard message (found and cleared: CGWATCH_HAZARD_STATE says). */
#define HAZARD_MESSAGE_ID "6b2f4e0d9c8a4f53a1e7d2c35b90f61e"
/* One hazard found or cleared, to the journal (fields: docs/daemon.md), or stderr as
 * sink_journal. Returns 0 (journal) or 1 (stderr). */
int sink_journal_hazard(const struct haz_event *e);
/* The Prometheus text of the last scan (malloc'd, *len bytes). */
char *metrics_text(const struct cgw_report *r, const struct cgw_incidents *in, uint64_t scans,
                   size_t *len);
/* Rewrite the Prometheus text file path atomically. Returns 0 or -errno. */
int metrics_write(const char *path, const struct cgw_report *r, const struct cgw_incidents *in,
                  uint64_t scans);
/* The daemon's hazard metrics appended to b: cgwatch_hazard{id} 1 or 0 for every rule decided
 * (an undecided one as it last was), and the last audit's time and duration; nothing before
 * the first audit. */
void metrics_hazards(struct strbuf *b, const struct cgw_hazstate *st);

/* ---- sink-writer.c: the daemon's files, written off the main loop ---- */

enum wr_kind { WR_REPORTS, WR_STATE, WR_METRICS, WR_BUNDLES, WR_NLANES };
struct cgw_writer;
/* A writer with one thread per kind, started at its first job; a write that has not returned
 * within timeout_ms is "stuck". Main loop only; freed by writer_stop when it can be. */
struct cgw_writer *writer_new(unsigned timeout_ms);
/* Queue a report pair for report_files_write; takes f over (f is emptied). Never waits.
 * Returns 0, -EAGAIN when the queue is full, or -ENOMEM (the pair is dropped; counted and said
 * at the next writer_poll). */
int writer_report(struct cgw_writer *w, struct report_files *f, const char *inc_id);
/* Queue data (malloc'd, taken over) for atomic_write of path with mode on lane k (WR_STATE or
 * WR_METRICS); it replaces a write of that lane still queued. Never waits. Returns 0, -EAGAIN,
 * or -ENOMEM (data freed, the write dropped, counted and said at the next writer_poll). */
int writer_file(struct cgw_writer *w, enum wr_kind k, const char *path, char *data, size_t len,
                mode_t mode);
/* A job of the bundles lane: 0, or -errno with a sentence in why. May block on the disk. */
typedef int (*writer_job_fn)(void *ctx, char *why, size_t cap);
/* Run run(ctx) on the bundles lane (path: the file it writes, named in its warnings), then
 * release(ctx). One at a time: -EAGAIN (released, counted) when one is still queued. Returns
 * 0, -EAGAIN or -ENOMEM; never waits. */
int writer_job(struct cgw_writer *w, const char *path, writer_job_fn run,
               void (*release)(void *ctx), void *ctx);
/* Is lane k writing: not failing, not stuck? */
bool writer_ok(struct cgw_writer *w, enum wr_kind k);
/* Does lane k answer: no write of it stuck past the deadline (it may have failed)? */
bool writer_answers(struct cgw_writer *w, enum wr_kind k);
/* Log what the lanes did since the last call: the first failure of a streak, a write stuck
 * past timeout_ms (once, "reports directory D does not answer: ..."), and its return. */
void writer_poll(struct cgw_writer *w, unsigned timeout_ms);
/* Say now that lane k's target does not answer (a startup read timed out), once. */
void writer_mark_stuck(struct cgw_writer *w, enum wr_kind k, const char *target);
/* Wait at most wait_ms for the lanes that answer to finish their queues. Returns true when
 * they did. */
bool writer_wait(struct cgw_writer *w, unsigned wait_ms);
/* Wait at most wait_ms for lane k to finish its queue (not when it is stuck). From another
 * lane's job too: the bundles lane waits so for the reports it names. True when it did. */
bool writer_lane_wait(struct cgw_writer *w, enum wr_kind k, unsigned wait_ms);
/* Let the lanes that answer finish their queue, for at most wait_ms, then tell every thread
 * to exit when idle and wait (briefly) until they have: then w is freed and true returned.
 * Never joins a thread stuck in the kernel: it ends with the process; false when one is still
 * running (w stays allocated): end the process with _exit, not exit, or the exit-time
 * destructors of the libraries the job is in run under it. */
bool writer_stop(struct cgw_writer *w, unsigned wait_ms);

/* ---- sink-redact.c: stable tokens for what a bundle must not carry off the host ---- */

struct cgw_redact;
/* An empty map, or NULL (no memory). */
struct cgw_redact *redact_new(void);
void redact_free(struct cgw_redact *r);
/* The token of a secret value (n bytes) of kind ("host", "user", ...): the same value always
 * gets the same token, "REDACTED-KIND-N"; NULL for an empty value or kind, or no memory. */
const char *redact_add(struct cgw_redact *r, const char *kind, const char *value, size_t n);
/* The token of a value (n bytes) that is replaced only where it is a whole file (a command
 * line), never matched in text: as redact_add otherwise. */
const char *redact_add_whole(struct cgw_redact *r, const char *kind, const char *value, size_t n);
/* Paths under prefix are redacted: "/home/" (ends in '/'): every path below it; a home
 * "/srv/projx": that directory and every path below it. Each component after the directory
 * above becomes a token of kind "path" (the token of a value when it is one), so paths under
 * one another still are. 0, -EINVAL (not absolute, or "/") or -ENOMEM. */
int redact_prefix(struct cgw_redact *r, const char *prefix);
/* Append in (n bytes) to out with every path under a prefix (running to white space, a quote
 * or a control byte) and every value replaced by its token: the longest value that starts and
 * ends on a name boundary (not inside a longer word: "alice" stays in "malice" and "alice2",
 * '-' and '.' are boundaries) and is not followed by "+0x" (a kernel symbol). 0, or -ENOMEM
 * (out incomplete). */
int redact_text(struct cgw_redact *r, const char *in, size_t n, struct strbuf *out);
/* The same for in as one path (a link's target, a mount point): it runs to the end, spaces
 * and all. */
int redact_path(struct cgw_redact *r, const char *in, size_t n, struct strbuf *out);
/* The map as lines "TOKEN<TAB>VALUE" (the value escaped as sb_add_term), for the host. */
void redact_map_text(const struct cgw_redact *r, struct strbuf *out);
/* How many tokens the map holds. */
size_t redact_count(const struct cgw_redact *r);
/* Is uid a person's, whose name is redacted: 1000 and above, but not nobody (65534, 65535)?
 * root and the system accounts (1..999) are the same on every host ("root", "daemon") and
 * their names are words of the kernel's and systemd's own ("root" in mountinfo). */
bool redact_uid_personal(unsigned uid);
/* Can name be a user's, to be matched in text: 1..256 bytes, no white space, control byte,
 * '/' or ':' (a passwd line that says otherwise is not a user's name to look for)? */
bool redact_user_name_ok(const char *name);
/* Are paths under home (a passwd home) redacted: absolute, not "/", not a system directory
 * itself (/usr, /var, /bin, /nonexistent, ...), not under /proc, /sys or /dev (the tree a
 * replay reads)? */
bool redact_home_counts(const char *home);
/* Paths of the home directory home (that directory and below) redacted, when it counts
 * (redact_home_counts; trailing slashes ignored). 0 or -ENOMEM. */
int redact_add_home(struct cgw_redact *r, const char *home);
/* The host names, from hostname ("web-01" or "web-01.example.com") and domain (the NIS
 * domainname; "(none)" or "" is none): the short name and the FQDN as kind "host", the
 * domain as "domain". A name of letters only ("vm", "lan") may be a word, of the kernel's
 * ("vm.dirty_ratio", "__access_remote_vm") or a sentence's: it is replaced only where it
 * names the host (a whole line or span, user@NAME, NAME:/path, a path not under /proc/ or
 * /sys/ but for /sys/fs/cgroup/, a unit's name, first in a message before a space); any
 * other name wherever it stands alone. 0 or -ENOMEM. */
int redact_add_host(struct cgw_redact *r, const char *hostname, const char *domain);
/* An address of the host in its text form (inet_ntop's: "192.0.2.7", "2001:db8::7") as kind
 * "addr", replaced where it is all of one address (not in "192.0.2.71" or "2001:db8::7:1").
 * 0, -EINVAL (not an address's characters) or -ENOMEM. */
int redact_add_addr(struct cgw_redact *r, const char *addr);
/* The content of the bundle member tree/NAME (name without "tree/") redacted into out, by
 * what the kernel puts there: a task's cmdline and environ whole as one token; of stat the
 * comm, of status the Name line, of sched its first line, of cgroup the paths, of mountinfo
 * root, mount point, source and super options; stack, wchan, syscall, the host's counters,
 * cgroup controller files, CPU lists and cgwatch/clocks as they are; cgwatch/mem/ files as
 * one path; anything else as text. 0 or -ENOMEM. */
int redact_member(struct cgw_redact *r, const char *name, const char *in, size_t n,
                  struct strbuf *out);
/* The content of any bundle member name redacted into out: tree/ as redact_member, of
 * report.json and incidents/NAME.json the string values (not the keys), of report.txt and
 * incidents/NAME.txt the host in the first line too, of config/cgwatch.conf and the signature
 * files the values and comments (not the keys and sections), anything else as text. 0 or
 * -ENOMEM. */
int redact_file(struct cgw_redact *r, const char *name, const char *in, size_t n,
                struct strbuf *out);
/* A member's name redacted into out: the kernel's names (tree/proc/..., tree/sys/... but
 * cgroups, tree/dev/, tree/cgwatch/) and cgwatch's own (report.txt, ...) stay; a cgroup's
 * path below tree/sys/fs/cgroup (a file keeps its controller file's name) and any other path
 * of the tree are redacted as paths, a site signature's file name as text. 0 or -ENOMEM. */
int redact_name(struct cgw_redact *r, const char *name, bool dir, struct strbuf *out);

/* ---- sink-bundle-redact.c: the secrets of a redacted bundle, and its map ---- */

/* The redaction map for a bundle of the tree dir, before anything is written (and before the
 * tree's check enters its mount namespace): this host's host names and the tree's
 * (proc/sys/kernel/hostname, domainname), the name in /etc/hostname, the names and address
 * of the /etc/hosts lines naming either host (hosts_parse), this host's interface addresses
 * but loopback's (getifaddrs; no DNS), the personal users (redact_uid_personal) of
 * /etc/passwd, read once, and of every uid in the tree's status files (the name service for
 * those passwd lacks), their homes (redact_add_home), root's home, /home/ and /root/, and
 * the groups of /etc/group that are such a user's primary group or have a personal gid.
 * Reads have the deadline; after one read of the tree times out, its status files are not
 * read. NULL with msg only without memory. */
struct cgw_redact *bundle_redact_map(const char *dir, unsigned timeout_ms, char *msg,
                                     size_t cap);
/* Write the map of r to path, mode 0600, atomically (atomic_write_new). 0 or -errno, why. */
int bundle_redact_write_map(const struct cgw_redact *r, const char *path, char *why, size_t cap);

/* ---- sink-audit.c: the audit's reports ---- */

/* The text report of a: each hazard with its evidence, remedies and seed; a summary last. */
void audit_text(const struct cgw_audit *a, FILE *out);
/* The cgwatch.audit/1 JSON document of a. 0, or -ENOMEM / -EIO. */
int audit_json(const struct cgw_audit *a, FILE *out);

/* ---- sink-html.c: the parts of every HTML page: escaping, the head with its policy, the CPU
 * map, the time axis ---- */

/* Append s (n bytes) for HTML text or a quoted attribute value: & < > " ' as entities, tab,
 * newline and carriage return as \t \n \r, other control bytes and bytes that are not valid
 * UTF-8 (NUL too) as \xNN, as the other sinks escape them; valid UTF-8 kept. */
void html_esc(struct strbuf *b, const char *s, size_t n);
/* html_esc of a NUL-terminated s ("" for NULL). */
void html_s(struct strbuf *b, const char *s);
/* The page's Content-Security-Policy into out: nothing allowed but its own inline style sheet
 * (by its sha256), no script. Returns out. */
const char *html_csp(char *out, size_t cap);
/* Start a page: doctype, the policy, the style sheet (print rules too), title (escaped). */
void html_open(struct strbuf *b, const char *title);
/* End a page: the footer with when it was written. */
void html_close(struct strbuf *b);
/* Write the page b to out; a page saying it was lost when b ran out of memory. */
void html_write(struct strbuf *b, FILE *out);
/* "critical", "warning", "info", "none": the page's class for a severity. */
const char *html_sev_class(enum cgw_sev s);
/* The '\n'-separated lines of text as a list (alike lines as one when group: lines_group). */
void html_lines(struct strbuf *b, const char *text, bool group);
/* A heading and the numbered list of items (remedies, safest first). Nothing when n is 0. */
void html_numbered(struct strbuf *b, const char *heading, char *const *items, size_t n);
/* A "References" list: https addresses as links, the rest as text. Nothing when n is 0. */
void html_references(struct strbuf *b, char *const *refs, size_t n);
/* A CPU map: every CPU up to the highest known, housekeeping, isolated, nohz_full, offline,
 * starved (when starved is not NULL) told apart; a mark's PID on its CPU, its label (raw
 * bytes, escaped here) in the CPU's title. */
struct html_cpu_mark { int cpu, pid; char label[96]; };
struct html_cpumap {
	const struct cgw_cpus *online, *isolated, *nohz_full, *starved;
	const struct html_cpu_mark *marks; size_t nmarks;
};
void html_cpumap(struct strbuf *b, const struct html_cpumap *m);
/* One time axis (SVG) of the marks, sorted here by time: at_s seconds relative to the page's
 * moment (negative before it), label raw bytes (escaped here), kind a class ("blocked",
 * "starved", "now"; the flight recorder's events come in as more marks of their own kind). */
struct html_tl_mark { double at_s; const char *label; size_t label_len; const char *kind; };
void html_timeline(struct strbuf *b, struct html_tl_mark *m, size_t n);

/* ---- sink-html-check.c: the incident page of a check ---- */

/* The page of r (`check --format html`): verdict and each finding's sentence, its wait chain
 * as a graph, the CPU map with starved CPUs and their spinners, the timeline, the stacks
 * (alike tasks as one entry, matched frames marked, user stacks beside), evidence, remedies,
 * references. One self-contained file: see sink-html.c. */
void report_html(const struct cgw_report *r, FILE *out);
/* What the page of one of the daemon's incidents puts in place of the check's: its title, its
 * header (markup, every host string escaped by its maker), the one finding it shows (-1:
 * none), more marks for the time axis (seconds before now_label's moment) and the axis's
 * caption. */
struct html_page {
	const char *title, *header, *now_label, *axis_note;
	ssize_t finding;
	struct html_tl_mark *marks; size_t nmarks;
};
/* report_html, with what p says in place of the check's header, findings and axis (NULL: the
 * check's page). */
void report_html_page(const struct cgw_report *r, const struct html_page *p, FILE *out);

/* ---- sink-html-psi.c: pressure and run-queue latency on the HTML pages ---- */

/* The page's pressure section when r->pressure (per resource: some/full avg10 and avg60, its
 * threshold, crossed and why; the cgroups of the tasks of the findings on the page: every one
 * when all, else finding only, none when only is -1) and its run-queue latency section when
 * r->runq (the CPUs those findings name, "cpu N", then the highest p99s, 4 rows in all
 * unless more are named: waits, p50, p99, max, holder, longest waits) or r->runq_why (why
 * not measured). */
void html_latency(struct strbuf *b, const struct cgw_report *r, bool all, ssize_t only);

/* ---- sink-html-incident.c: the page of one of the daemon's incidents ---- */

/* The page of incident i at change st (<id>.html beside its reports): its state, severity,
 * message, times, bundle and tasks (recovered ones with when), the finding of r it reports
 * (finding, -1 none: a resolved incident's), and a time axis with its states (the scans that
 * opened, escalated, updated and resolved it) and its tasks' recoveries, this report's scan
 * at 0. */
void incident_html(const struct cgw_report *r, const struct incident *i, enum inc_state st,
                   ssize_t finding, FILE *out);

/* ---- sink-html-audit.c: the audit's page ---- */

/* The page of a (`audit --format html`): the verdict, each hazard with its evidence, what it
 * leads to and its remedies, the CPU map with the spinners, the facts table. */
void audit_html(const struct cgw_audit *a, FILE *out);

/* ---- sink-check.c: one check, as `cgwatch check` and a bundle's check of its tree run it ---- */

/* What one check is asked for. */
struct check_spec {
	const char *root;                 /* --root DIR|FILE, entered here; NULL: this host */
	const char *capdir;               /* --capture DIR (this host only), or NULL */
	bool all, verbose;                /* --all, --verbose */
	bool rates;                       /* --rates: count even when no finding needs it (a
	                                     replay reads the captured counts always) */
	FILE *text, *json, *html;         /* where each report goes, when not NULL */
};
/* What it saw. */
struct check_outcome {
	bool entered;                     /* root entered (or this host): the scan was tried */
	char host[128], kernel[128];      /* as the reports name them, once they are made */
};
/* root_enter (this process stays in the private mount namespace), capture_open, scan_run,
 * kmsg_read, check_diagnose with the cgroup activity window, capture_write, the reports to
 * s->text and s->json, the counters closed after them; with conf's thresholds and sigs.
 * Returns check's exit code: 0 or 1 (the reports made); 2 (--capture DIR refused) or 3 with
 * the reason in msg ("" when it was said already: no memory for the diagnosis); 3 after the
 * reports when the capture could not be written (said with log_warnx). */
int check_once(const struct cgw_conf *conf, const struct cgw_sigset *sigs,
               const struct check_spec *s, struct check_outcome *out, char *msg, size_t cap);

/* ---- sink-bundle-check.c: the check of a captured tree, in process, for a bundle ---- */

/* What a check of a tree says: its reports (malloc'd) and what they name. */
struct bundle_reports {
	char *text, *json; size_t text_len, json_len;
	char host[128], kernel[128];
	int exit;                         /* check's exit code */
	bool entered;                     /* the tree was entered (its scan may still fail) */
};
/* Replay dir as `check --root dir` does (root_enter: this process stays in the private
 * mount namespace), with conf and sigs, and render both reports. Returns 0, or
 * EXIT_UNREADABLE with the reason in msg (out->entered: the tree was entered, but check
 * would exit 3 on it). */
int bundle_check_tree(const char *dir, const struct cgw_conf *conf,
                      const struct cgw_sigset *sigs, struct bundle_reports *out, char *msg,
                      size_t cap);
void bundle_reports_free(struct bundle_reports *r);

/* ---- sink-bundle-incidents.c: the daemon's open incidents, whose reports a bundle holds ---- */

/* A report file (or the page) of an open incident: its path on the host and its member,
 * incidents/BASE. */
struct bundle_inc_file { char *path, *name; };
/* What a bundle holds of the open incidents: their newest report files and pages, and what
 * could not be listed (the state file unreadable or malformed, an incident dropped, a report
 * named outside the reports directory), each a note for the manifest's "unreadable" (path and
 * why). */
struct bundle_incidents {
	struct bundle_inc_file *v; size_t n;
	struct bundle_note *notes; size_t nnotes;
};
/* The newest reports of every open (not resolved) incident of in, named by its report field:
 * a file directly in report_dir named <incident id>-NN-<state>.json, the .txt beside it and
 * the incident's page <incident id>.html, as incidents/<name>. An incident with no report, or another one, is a note instead. Pure.
 * 0, or -ENOMEM (out then holds what was listed). */
int bundle_incident_files(const struct cgw_incidents *in, const char *report_dir,
                          struct bundle_incidents *out);
/* The daemon's open incidents of this boot from c's state file (run.state_dir/incidents.json:
 * a regular file, not followed, read with the deadline), then bundle_incident_files with c's
 * reports directory. No state file (no daemon): nothing. One that cannot be read or parsed,
 * and each incident dropped from it: a note. 0, or -ENOMEM. */
int bundle_incidents_load(const struct cgw_conf *c, unsigned timeout_ms,
                          struct bundle_incidents *out);
void bundle_incidents_free(struct bundle_incidents *b);
/* Read path, a regular file (a symlink is not followed, a FIFO or device not opened for
 * reading), at most max bytes, opened and read with the deadline: *data (malloc'd,
 * NUL-terminated, *len bytes). Returns 0; -EFBIG when it is larger than max (*size its size);
 * or -errno (-ETIMEDOUT, -ELOOP a symlink, -ENODEV not a regular file), with a sentence in why
 * naming path. */
int bundle_read_regular(const char *path, uint64_t max, unsigned timeout_ms, char **data,
                        size_t *len, uint64_t *size, char *why, size_t cap);

/* ---- sink-bundle.c: cgwatch bundle ---- */

/* Capture this host into the empty directory dir (a live check with --capture dir, with the
 * configuration file config or the default): 0, or check's exit code. */
typedef int (*cgw_capture_fn)(const char *dir, const char *config);
/* cgwatch bundle [--root DIR] [-o FILE] [--config FILE] | --verify FILE. Without --root, this
 * host: capture() into a private directory, bundled, then removed. Returns the exit code: 0
 * written or intact, 2 usage, 3 unreadable, hostile or not intact. */
int cmd_bundle(int argc, char **argv, cgw_capture_fn capture);
/* A bundle of the captured tree dir into out (NULL: cgwatch-bundle-HOST-TIME.tar.zst in the
 * current directory), atomically: reports, configuration, signatures, tree/ within the caps
 * of conf, the open incidents' reports of inc (NULL: none) as incidents/, manifest.json.
 * Returns 0 with the file's name in written, or an exit code with msg. */
int bundle_write_tree(const char *dir, const char *out, const struct cgw_conf *conf,
                      const struct cgw_sigset *sigs, const struct bundle_incidents *inc,
                      char *written, size_t wcap, char *msg, size_t cap);
/* bundle_write_tree with the reports given (the daemon's, of the scan it captured) in place of
 * a check of the tree (which needs a mount namespace). */
int bundle_write_reports(const char *dir, const char *out, const struct cgw_conf *conf,
                         const struct cgw_sigset *sigs, const struct bundle_reports *rep,
                         const struct bundle_incidents *inc, char *written, size_t wcap,
                         char *msg, size_t cap);


/* ---- sink-autobundle.c: the bundles the daemon leaves by itself ---- */

/* Is incident i, at change st and time now (epoch), to be bundled: [bundle] auto, opened or
 * escalated at critical, not bundled yet, and the last bundle of the host (at last, epoch;
 * 0 none) at least [bundle] min_interval ago? Pure. */
bool autobundle_due(const struct cgw_conf *c, double last, const struct incident *i,
                    enum inc_state st, double now);
/* Is a captured tree of tree_bytes over [bundle] max_size (then no bundle is written)? Pure. */
bool autobundle_too_big(const struct cgw_conf *c, uint64_t tree_bytes);
/* "zst", or "gz" where libarchive has no zstd. */
const char *autobundle_ext(void);
/* The bundle file of incident inc_id: [bundle] dir/cgwatch-bundle-<id>.tar.<ext>. */
void autobundle_name(const struct cgw_conf *c, const char *inc_id, char *out, size_t cap);
/* Is name (a directory entry) one the daemon names its bundles by? Pure. */
bool autobundle_is_bundle(const char *name);
struct ab_file { char *name; int64_t mtime_ns; bool remove; };
/* Sort v oldest first and mark remove on the oldest of the bundles (autobundle_is_bundle)
 * past keep; other names are never marked. Returns how many are marked. Pure. */
size_t autobundle_prune(struct ab_file *v, size_t n, size_t keep);
/* Queue the bundle of snap (taken over) with the reports of r and the newest reports of the
 * open incidents of in (bundle_incident_files, read once the reports queued before are
 * written) into file, on the writer's bundles lane (conf c and library sigs copied: a reload
 * frees the daemon's). Returns 0, -EAGAIN (one still pending) or -ENOMEM. */
int autobundle_queue(struct cgw_writer *w, const struct cgw_conf *c,
                     const struct cgw_sigset *sigs,
                     const struct cgw_incidents *in, struct cap_snap *snap,
                     const struct cgw_report *r, const char *file);
/* ---- daemon.c ---- */

/* cgwatch run: scan, keep incidents, report, until SIGTERM/SIGINT. Returns the exit code. */
int daemon_run(const char *config_path);

#endif
