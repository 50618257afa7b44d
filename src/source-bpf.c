/* source-bpf.c: the scan as a walk of every thread inside the kernel by a BPF program, in
 * place of the /proc walk (source-tasks.c) where the kernel allows it. Two programs write the
 * same records (src/bpf/taskrec.h): the task walker (src/bpf/taskwalk.bpf.c: the open-coded
 * task iterator, kernel 6.7 on, run by BPF_PROG_TEST_RUN in slices of WALK_SLICE_NS, its
 * records through a ring buffer), and where it does not load, the task iterator
 * (src/bpf/taskiter.bpf.c: an iter/task program, its iterator read). The walker is the
 * cheaper: the iterator looks every thread up by its pid.
 *
 * The program is loaded once (the daemon keeps it between scans) and run at each scan: the
 * kernel walks every thread and writes a record only for D and R threads and for each
 * process's main thread, so a healthy host costs a few records, not a file per thread.
 * Each record is turned into what /proc/TID/stat and /proc/TID/sched would have said
 * (bpfrec_stat: the same numbers, the same doubles) and handed to the same judge, so the
 * stages after the walk see no difference. What the records do not carry is read from /proc
 * for the few tasks kept: allowed CPUs (status), and the full name of a workqueue worker
 * ("kworker/0:1-events"; the task's comm is "kworker/0:1"). The kernel stack of a kept task
 * comes with its record, read in the same walk (bpf_get_task_stack: what /proc/TID/stack
 * reads), named from /proc/kallsyms as the kernel names /proc/TID/stack's frames (%pB).
 *
 * One gap, measured on this 6.18 VM: neither program visits PID 1's thread group (every other
 * thread, kernel threads included, they do). Its kernel hides them from BPF task iteration (a
 * static task_iter_hides(task) in kernel/bpf/task_iter.c's text, called in both walks, which
 * the upstream kernel has not): PID 1's threads are read from /proc, as the /proc walk reads
 * them, whenever the walk had no record of PID 1. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <sched.h>
#include <fcntl.h>
#include <linux/types.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgwatch.h"
#include "bpf/taskrec.h"
#include "taskiter.skel.h"
#include "taskwalk.skel.h"

#define PF_WQ_WORKER 0x20
/* The longest a run of the walker walks: it holds the RCU read lock and is not preempted
 * (PREEMPT_DYNAMIC none), so this is the scheduling latency it may add on its CPU. */
#define WALK_SLICE_NS 250000ULL
/* A walk restarted this many times (the thread it was to resume at exited each time) gives
 * up: that scan reads /proc. */
#define WALK_RESTARTS 8
/* Above this many processes the iterator is read instead of the walker (where both load):
 * each run of the walker passes over the processes before the one it resumes in (0.1 us
 * each here), so its cost grows with processes times runs, and a run's time with processes.
 * Measured with 10,000 one-thread processes: the walker 8 to 13 ms of CPU a walk in runs of
 * up to 1.5 ms, the iterator 7.3 to 8.9 ms; with 3,000, runs of up to 0.4 ms. Back to the
 * walker below three quarters of it. */
#define WALK_MAX_PROCS 4000

struct kept { int tid; unsigned long long start_ticks; size_t off; };
#define STACKFILE_BUF 16384                  /* /proc/TID/stack: 64 frames of at most ~250 */
#define STACKFILE_TRIES 16                   /* stacks named by their file a scan, at most */

struct cgw_bpfscan {
	struct taskwalk *walk;               /* the walker, or NULL: */
	struct ring_buffer *rb;              /* (its records) */
	bool rb_nomem;
	bool use_iter;                       /* the iterator read instead (processes > max) */
	size_t procs;                        /* processes the last walk saw */
	bool foreign_ns;                     /* a first walk's ids were another PID namespace's */
	struct taskiter *skel;               /* the iterator */
	struct bpf_link *link;
	char *buf; size_t len, cap;          /* the last read's records */
	struct chunk { size_t end; double mono; } *chunks; size_t nchunks, chunks_cap;
	struct kept *kept; size_t nkept, kept_cap;
	struct cgw_ksyms *ksyms;             /* the stacks' addresses named (source-ksyms.c) */
	size_t kept_at;                      /* where the last look for a kept task ended */
	struct relook { int tid; size_t off; } *rl;   /* the last look's records, by tid */
	size_t nrl, rl_cap;
};

static char last_libbpf[256];

static int bpfscan_read(struct cgw_bpfscan *b);

/* The verifier's last word in its load log: its last line but the statistics after it. */
static void verifier_reason(const char *log)
{
	const char *end = log + strlen(log), *e = end;
	while (e > log) {
		while (e > log && (e[-1] == '\n' || e[-1] == ' '))
			e--;
		const char *b = e;
		while (b > log && b[-1] != '\n')
			b--;
		int n = (int)(e - b);
		if (n > 0 && strncmp(b, "processed ", 10) && strncmp(b, "verification time", 17) &&
		    strncmp(b, "stack depth", 11)) {
			snprintf(last_libbpf, sizeof(last_libbpf), "verifier: %.*s", n, b);
			return;
		}
		e = b;
	}
}

/* libbpf's messages, none printed: the reason for a refusal kept, libbpf's own (an extern the
 * kernel lacks) or the verifier's last word from the load log; the summaries that follow it
 * ("failed to load object", "... BPF skeleton", "... program") do not replace it */
static int libbpf_quiet(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (log_verbose) {
		va_list aq;
		va_copy(aq, ap);
		vfprintf(stderr, fmt, aq);
		va_end(aq);
	}
	if (level != LIBBPF_WARN)
		return 0;
	if (strstr(fmt, "-- BEGIN PROG LOAD LOG --\n%s")) {   /* its arguments: the name, the log */
		va_list aq;
		va_copy(aq, ap);
		(void)va_arg(aq, const char *);
		const char *log = va_arg(aq, const char *);
		va_end(aq);
		if (log)
			verifier_reason(log);
		return 0;
	}
	char line[256];
	vsnprintf(line, sizeof(line), fmt, ap);
	line[strcspn(line, "\n")] = '\0';
	if (!line[0] || (last_libbpf[0] && (strstr(line, "failed to load object") ||
	                                     strstr(line, "failed to load BPF skeleton") ||
	                                     strstr(line, "failed to load program"))))
		return 0;
	snprintf(last_libbpf, sizeof(last_libbpf), "%s", line);
	return 0;
}

/* Does this process hold what loading the iterator takes: CAP_BPF and CAP_PERFMON, or
 * CAP_SYS_ADMIN (its effective set, /proc/self/status CapEff)? */
static bool may_load_bpf(void)
{
	char buf[4096];
	if (read_small_file("/proc/self/status", buf, sizeof(buf)) < 0)
		return false;
	const char *p = strstr(buf, "\nCapEff:");
	if (!p)
		return false;
	unsigned long long eff = strtoull(p + 8, NULL, 16);
	return (eff >> 21 & 1) || ((eff >> 38 & 1) && (eff >> 39 & 1));
}

/* why, for a load refused with error e (positive) */
static void load_refused(int e, const char *what, char *why, size_t cap)
{
	if ((e == EPERM || e == EACCES) && !may_load_bpf())
		snprintf(why, cap, "no CAP_BPF and CAP_PERFMON (nor CAP_SYS_ADMIN): loading the "
		         "%s was refused (%s)", what, strerror(e));
	else if (e == EPERM || e == EACCES)
		snprintf(why, cap, "loading the %s was refused (%s) though cgwatch holds CAP_BPF and "
		         "CAP_PERFMON: a seccomp filter, or a locked-down kernel", what, strerror(e));
	else
		snprintf(why, cap, "the kernel refused the %s (%s%s%.160s)", what, strerror(e),
		         last_libbpf[0] ? ": " : "", last_libbpf);
}

/* a record of the walker's ring buffer, appended to b->buf */
static int walk_record(void *ctx, void *data, size_t size)
{
	struct cgw_bpfscan *b = ctx;
	if (b->cap - b->len < size) {
		size_t nc = b->cap ? b->cap * 2 : 262144;
		while (nc - b->len < size)
			nc *= 2;
		char *nb = realloc(b->buf, nc);
		if (!nb) {
			b->rb_nomem = true;
			return -ENOMEM;
		}
		b->buf = nb;
		b->cap = nc;
	}
	memcpy(b->buf + b->len, data, size);
	b->len += size;
	return 0;
}

/* The walker loaded into b: 0, or -1 with why. */
static int walk_open(struct cgw_bpfscan *b, int skip_tgid, char *why, size_t cap)
{
	last_libbpf[0] = '\0';
	b->walk = taskwalk__open();
	if (!b->walk) {
		snprintf(why, cap, "the task walker could not be opened: %s", strerror(errno));
		return -1;
	}
	b->walk->bss->skip_tgid = skip_tgid;
	b->walk->bss->budget_ns = WALK_SLICE_NS;
	int e = taskwalk__load(b->walk);
	if (e) {
		load_refused(e < 0 ? -e : e, "task walker", why, cap);
		return -1;
	}
	b->rb = ring_buffer__new(bpf_map__fd(b->walk->maps.out), walk_record, b, NULL);
	if (!b->rb) {
		snprintf(why, cap, "the task walker's ring buffer could not be mapped (%s)",
		         strerror(errno));
		return -1;
	}
	return 0;
}

static void walk_close(struct cgw_bpfscan *b)
{
	ring_buffer__free(b->rb);
	taskwalk__destroy(b->walk);
	b->rb = NULL;
	b->walk = NULL;
}

/* The iterator loaded and attached into b: 0, or -1 with why. */
static int iter_open(struct cgw_bpfscan *b, int skip_tgid, char *why, size_t cap)
{
	last_libbpf[0] = '\0';
	b->skel = taskiter__open();
	if (!b->skel) {
		snprintf(why, cap, "the task iterator could not be opened: %s", strerror(errno));
		return -1;
	}
	b->skel->bss->skip_tgid = skip_tgid;
	int e = taskiter__load(b->skel);
	if (e) {
		load_refused(e < 0 ? -e : e, "task iterator", why, cap);
		return -1;
	}
	b->link = bpf_program__attach_iter(b->skel->progs.cgw_tasks, NULL);
	if (!b->link) {
		e = errno;
		snprintf(why, cap, "the task iterator could not be attached (%s)", strerror(e));
		return -1;
	}
	return 0;
}

static void iter_close(struct cgw_bpfscan *b)
{
	bpf_link__destroy(b->link);
	taskiter__destroy(b->skel);
	b->link = NULL;
	b->skel = NULL;
}

/* A first walk: 0 where its output ends in its end record naming this process; else -1
 * with why (the records carry the kernel's ids, the initial PID namespace's: in a namespace
 * of its own, /proc shows others). */
static int first_walk(struct cgw_bpfscan *b, const char *what, char *why, size_t cap)
{
	int e = bpfscan_read(b);
	size_t off = 0, procs = 0;
	struct cgw_bpfrec r = { 0 };
	while (e == 0 && bpfrec_next(b->buf, b->len, &off, &r) == 1 && r.kind != TASKREC_END)
		procs += r.tid == r.tgid;
	if (e == 0 && r.kind == TASKREC_END && r.tgid == getpid()) {
		b->procs = procs;
		return 0;
	}
	if (e < 0)
		snprintf(why, cap, "the %s could not be %s (%s)", what,
		         b->walk && !b->use_iter ? "run" : "read", strerror(-e));
	else if (r.kind != TASKREC_END)
		snprintf(why, cap, "the %s's output is not its records", what);
	else {
		b->foreign_ns = true;
		snprintf(why, cap, "in a PID namespace of its own: the %s's ids are the host's, not "
		         "those /proc shows here", what);
	}
	return -1;
}

/* Is this process in a PID namespace below the initial one (its NSpid line has more than one
 * id)? False when that cannot be read: the first walk's end record then tells. */
static bool pidns_nested(void)
{
	char buf[4096];
	ssize_t n = read_small_file("/proc/self/status", buf, sizeof(buf));
	const char *l = n > 0 ? strstr(buf, "\nNSpid:") : NULL;
	if (!l)
		return false;
	l += 7;
	const char *e = strchr(l, '\n');
	int ids = 0;
	for (bool in = false; *l && l != e; l++) {
		bool digit = *l >= '0' && *l <= '9';
		ids += digit && !in;
		in = digit;
	}
	return ids > 1;
}

/* why, and both programs' state in k: not loaded, for that reason */
static void neither(struct cgw_kernel *k, enum cgw_kf_state st, char *why, size_t cap,
                    const char *fmt, ...) __attribute__((format(printf, 5, 6)));
static void neither(struct cgw_kernel *k, enum cgw_kf_state st, char *why, size_t cap,
                    const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, cap, fmt, ap);
	va_end(ap);
	kf_set_scan(k, st, why);
}

struct cgw_bpfscan *bpfscan_open(int skip_tgid, bool once, struct cgw_kernel *k, char *why,
                                 size_t cap)
{
	struct stat sb;
	if (stat("/sys/kernel/btf/vmlinux", &sb) < 0) {
		neither(k, KFS_REFUSED, why, cap, "no kernel BTF (/sys/kernel/btf/vmlinux: %s)",
		        strerror(errno));
		return NULL;
	}
	if (pidns_nested()) {                /* what first_walk would find, without the loads */
		neither(k, KFS_NOT_TRIED, why, cap, "in a PID namespace of its own: the BPF "
		        "programs' ids are the host's, not those /proc shows here");
		return NULL;
	}
	libbpf_set_print(libbpf_quiet);
	struct cgw_bpfscan *b = calloc(1, sizeof(*b));
	if (b && !(b->ksyms = ksyms_new())) {
		free(b);
		b = NULL;
	}
	if (!b) {
		snprintf(why, cap, "out of memory");
		return NULL;
	}
	/* the iterator first: cheap to load, and its first walk tells a PID namespace of its own
	 * (where /proc is this namespace's, NSpid cannot) before the walker's verification, 0.4 s
	 * of CPU; then the walker, read where it runs (6.7 on), the iterator above WALK_MAX_PROCS */
	char iter_why[256];
	bool iter_ok = iter_open(b, skip_tgid, iter_why, sizeof(iter_why)) == 0 &&
	               first_walk(b, "task iterator", iter_why, sizeof(iter_why)) == 0;
	if (!iter_ok) {
		iter_close(b);
		if (b->foreign_ns) {
			neither(k, KFS_NOT_TRIED, why, cap, "%s", iter_why);
			bpfscan_free(b);
			return NULL;
		}
	}
	char walk_why[256] = "one scan: the task walker's verification would cost it more than it saves";
	if (!once && walk_open(b, skip_tgid, walk_why, sizeof(walk_why)) == 0 &&
	    first_walk(b, "task walker", walk_why, sizeof(walk_why)) == 0) {
		snprintf(why, cap, "task walker loaded (the open-coded task iterator)");
		kf_set(k, KF_TASK_WALKER, KFS_USED, "the open-coded task iterator");
		if (iter_ok)
			kf_set(k, KF_TASK_ITERATOR, KFS_AVAILABLE, "read in the walker's place above "
			       "%d processes", WALK_MAX_PROCS);
		else
			kf_set(k, KF_TASK_ITERATOR, KFS_REFUSED, "%s", iter_why);
		b->use_iter = iter_ok && b->procs > WALK_MAX_PROCS;
		return b;
	}
	walk_close(b);
	kf_set(k, KF_TASK_WALKER, once ? KFS_NOT_TRIED : KFS_REFUSED, "%s", walk_why);
	if (!iter_ok) {
		snprintf(why, cap, "%s", iter_why);
		kf_set(k, KF_TASK_ITERATOR, KFS_REFUSED, "%s", iter_why);
		bpfscan_free(b);
		return NULL;
	}
	snprintf(why, cap, "task iterator loaded; %s", walk_why);
	kf_set(k, KF_TASK_ITERATOR, KFS_USED, "the iter/task program");
	return b;
}

void bpfscan_free(struct cgw_bpfscan *b)
{
	if (!b)
		return;
	walk_close(b);
	iter_close(b);
	ksyms_free(b->ksyms);
	free(b->rl);
	free(b->buf);
	free(b->chunks);
	free(b->kept);
	free(b);
}

/* One walk of the walker into b->buf: 0 or -errno (-ESTALE: restarted WALK_RESTARTS times).
 * Each run's records are a chunk, timed when it returned. */
static int walk_read(struct cgw_bpfscan *b)
{
	struct taskwalk__bss *v = b->walk->bss;
	int fd = bpf_program__fd(b->walk->progs.cgw_walk), restarts = 0, full = 0;
	v->emit_all = 0;
	v->resume_tgid = 0;
	v->counted = 0;
	v->end_pending = 0;
	v->defer_n = v->defer_next = 0;
	b->len = 0;
	b->nchunks = 0;
	b->rb_nomem = false;
	double longest = 0;
	for (int runs = 1;; runs++) {
		LIBBPF_OPTS(bpf_test_run_opts, opts);
		v->took_ns = 0;
		if (bpf_prog_test_run_opts(fd, &opts) < 0)
			return -errno;
		double took = v->took_ns / 1e6;   /* the run's walk, timed by itself */
		longest = took > longest ? took : longest;
		if (opts.retval)
			return -ENOMEM;               /* no scratch record (a per-CPU map) */
		int n = ring_buffer__consume(b->rb);
		if (b->rb_nomem)
			return -ENOMEM;
		if (n < 0)
			return n;
		if (grow((void **)&b->chunks, &b->chunks_cap, b->nchunks, 16,
		         sizeof(*b->chunks)) < 0)
			return -ENOMEM;
		b->chunks[b->nchunks++] = (struct chunk){ b->len, mono_ms() };
		if (v->done) {
			log_debug("task walk: %u threads in %d runs (%d restarts, %d on a full ring "
			          "buffer), the longest %.3f ms", v->counted, runs, restarts, full,
			          longest);
			return 0;
		}
		if (v->lost) {                    /* the thread to resume at exited: again */
			if (++restarts >= WALK_RESTARTS)
				return -ESTALE;
			v->resume_tgid = 0;
			v->counted = 0;
			b->len = 0;
			b->nchunks = 0;
		} else if (v->full) {
			full++;
		}
	}
}

/* One read of the iterator into b->buf: 0 or -errno. */
static int iter_read(struct cgw_bpfscan *b)
{
	int fd = bpf_iter_create(bpf_link__fd(b->link));
	if (fd < 0)
		return -errno;
	b->len = 0;
	b->nchunks = 0;
	for (;;) {
		if (b->cap - b->len < 65536) {
			size_t nc = b->cap ? b->cap * 2 : 262144;
			char *nb = realloc(b->buf, nc);
			if (!nb) {
				close(fd);
				return -ENOMEM;
			}
			b->buf = nb;
			b->cap = nc;
		}
		ssize_t r = read(fd, b->buf + b->len, b->cap - b->len);
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			int e = errno;
			close(fd);
			return -e;
		}
		if (r == 0)
			break;
		b->len += (size_t)r;
		if (grow((void **)&b->chunks, &b->chunks_cap, b->nchunks, 16,
		         sizeof(*b->chunks)) < 0) {
			close(fd);
			return -ENOMEM;
		}
		b->chunks[b->nchunks++] = (struct chunk){ b->len, mono_ms() };
	}
	close(fd);
	return 0;
}

/* One walk into b->buf, by the walker or the iterator: 0 or -errno. */
static int bpfscan_read(struct cgw_bpfscan *b)
{
	return b->walk && !b->use_iter ? walk_read(b) : iter_read(b);
}

/* When the record at off was written: the end of the read that returned it. */
static double chunk_mono(const struct cgw_bpfscan *b, size_t off)
{
	for (size_t i = 0; i < b->nchunks; i++)
		if (off < b->chunks[i].end)
			return b->chunks[i].mono;
	return b->nchunks ? b->chunks[b->nchunks - 1].mono : mono_ms();
}

/* A workqueue worker's name as /proc prints it ("kworker/0:1-events"), when its stat is
 * still the same task's. */
static void full_comm(int tgid, struct cgw_stat *st)
{
	if (!(st->flags & PF_WQ_WORKER))
		return;
	char path[64], buf[1024];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", tgid, st->tid);
	ssize_t r = read_small_file(path, buf, sizeof(buf));
	struct cgw_stat p;
	if (r > 0 && parse_stat_buf(buf, (size_t)r, &p) == 0 && p.tid == st->tid &&
	    p.start_ticks == st->start_ticks) {
		memcpy(st->comm, p.comm, sizeof(st->comm));
		st->comm_len = p.comm_len;
	}
}

/* The last affinity formatted: the threads of a process mostly share theirs. */
struct affinity_memo { bool have; cpu_set_t set; char list[256]; };

/* The CPUs tid may run on, in kernel list syntax, into out: sched_getaffinity (its mask as
 * the kernel keeps it, less CPUs not active: none it could wait for), a system call where
 * task/TID/status is 2 to 3 reads and a page of text the kernel formats; that file where the
 * call fails (more CPUs than a cpu_set_t holds). */
static void allowed_cpus(struct affinity_memo *m, struct cgw_scan *s, int tgid, int tid,
                         char *out, size_t cap)
{
	cpu_set_t set;
	if (sched_getaffinity(tid, sizeof(set), &set) == 0) {
		if (!m->have || !CPU_EQUAL(&set, &m->set)) {
			struct cgw_cpus c = { { 0 } };
			for (unsigned i = 0; i < CPU_SETSIZE && i < CGW_MAX_CPUS; i++)
				if (CPU_ISSET(i, &set))
					cpus_set(&c, i);
			cpulist_format(&c, m->list, sizeof(m->list));
			m->set = set;
			m->have = true;
		}
		snprintf(out, cap, "%s", m->list);
		return;
	}
	char path[64], fbuf[8192];
	struct cgw_status stt;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/status", tgid, tid);
	if (read_small_file(path, fbuf, sizeof(fbuf)) >= 0) {
		if (parse_status_buf(fbuf, &stt) == 0)
			snprintf(out, cap, "%s", stt.cpus_allowed);
		else
			scan_unreadable(s, path, "cannot parse; its allowed CPUs are unknown");
	}
}

int bpfscan_walk(struct cgw_bpfscan *b, struct cgw_scan *s, const struct cgw_scan_opts *o,
                 cgw_judge_fn judge)
{
	struct affinity_memo aff = { .have = false };
	if (b->skel)
		b->skel->bss->emit_all = 0;
	bool iter_now = b->walk && b->use_iter;
	int e = bpfscan_read(b);
	if (e == -ESTALE) {
		snprintf(s->fatal, sizeof(s->fatal), "the task walker was restarted %d times (the "
		         "thread it was to resume at exited each time)", WALK_RESTARTS);
		return -EIO;
	}
	if (e < 0)
		return e;
	b->nkept = 0;
	long clk = sysconf(_SC_CLK_TCK);
	/* the end record first: "now" on the rq clock, for the tasks whose se.exec_start reads 0 */
	struct cgw_bpfrec end;
	size_t eoff = b->len >= TASKREC_SIZE ? b->len - TASKREC_SIZE : 0;
	bool have_end = bpfrec_next(b->buf, b->len, &eoff, &end) == 1 && end.kind == TASKREC_END;
	double end_mono = chunk_mono(b, b->len ? b->len - 1 : 0);
	size_t off = 0, at;
	struct cgw_bpfrec r;
	bool ended = false, saw_init = false;
	size_t procs = 0, nrec = 0;
	int rc;
	while (at = off, (rc = bpfrec_next(b->buf, b->len, &off, &r)) == 1) {
		if ((++nrec & 255) == 0 && cgw_stop_pending())
			return -ECANCELED;
		if (r.kind == TASKREC_END) {
			s->threads = r.threads;
			ended = true;
			break;
		}
		if (o->self_tgid && r.tgid == o->self_tgid)
			continue;
		saw_init |= r.tgid == 1;
		struct cgw_stat st;
		struct cgw_sched sc;
		bpfrec_stat(&r, clk, &st, &sc);
		if (st.tid == r.tgid) {
			scan_proc_push(s, r.tgid, st.ppid, st.start_ticks);
			procs++;
		}
		if (st.state != 'D' && st.state != 'R')
			continue;
		double mono = chunk_mono(b, at);
		if (st.state == 'R') {
			full_comm(r.tgid, &st);
			if (st.cpu >= 0 && st.cpu < CGW_MAX_CPUS &&
			    sc.exec_start_ms > s->rq_latest[st.cpu].exec_start_ms)
				s->rq_latest[st.cpu] = (struct cgw_rq_floor){ sc.exec_start_ms, mono };
			scan_runner_push(s, &st, &sc, r.tgid);
		}
		struct cgw_sighting g = { &st, &sc, r.tgid, mono, "", false, 0, false, 0 };
		double away = have_end && r.exec_start == 0 ? bpfrec_off_cpu_s(&r, &end) : -1;
		if (away >= 0) {          /* as of the end record: moved back to this record's read */
			away -= (end_mono - mono) / 1000.0;
			g.have_alt = true;
			g.alt_s = away > 0 ? away : 0;
		}
		double queued = have_end ? bpfrec_queued_s(&r, &end) : -1;
		if (queued >= 0) {        /* the same, for the time it has waited to run */
			queued -= (end_mono - mono) / 1000.0;
			g.have_queued = true;
			g.queued_s = queued > 0 ? queued : 0;
		}
		struct cgw_task *t = judge(s, o, &g);
		if (!t)
			continue;
		if (st.state == 'D') {
			full_comm(r.tgid, &st);
			memcpy(t->comm, st.comm, sizeof(t->comm));
			t->comm_len = st.comm_len;
			t->lock_kind = r.lock_kind;
			t->owner_likely = r.owner_readers || r.lock_kind == TASKREC_LOCK_SEM;
			t->owner_tid = r.owner_tid;
			t->owner_tgid = r.owner_tgid;
			memcpy(t->owner_comm, r.owner_comm, sizeof(t->owner_comm));
		}
		t->cgroups = r.cgroups;
		allowed_cpus(&aff, s, r.tgid, st.tid, t->cpus_allowed, sizeof(t->cpus_allowed));
		if (grow((void **)&b->kept, &b->kept_cap, b->nkept, 16, sizeof(*b->kept)) < 0) {
			s->nomem = true;
			continue;
		}
		b->kept[b->nkept++] = (struct kept){ st.tid, st.start_ticks, at };
	}
	if (rc < 0 || !ended) {
		snprintf(s->fatal, sizeof(s->fatal), "the task iterator's output is not its records "
		         "(%s at byte %zu of %zu)", rc < 0 ? strerror(-rc) : "no end record", off,
		         b->len);
		return -EIO;
	}
	if (!saw_init && o->self_tgid != 1)
		scan_walk_pid(s, o, 1, judge);        /* counted there, as the /proc walk counts */
	if (iter_now)
		snprintf(s->source_why, sizeof(s->source_why), "task iterator read: %zu processes at "
		         "the walk before, more than %d, where the task walker's runs pass over those "
		         "before where each resumes", b->procs, WALK_MAX_PROCS);
	b->procs = procs;                     /* which reads the next walk */
	if (b->walk && b->skel)
		b->use_iter = procs > (b->use_iter ? WALK_MAX_PROCS * 3 / 4 : WALK_MAX_PROCS);
	return 0;
}

/* The kept record of t, or NULL: looked for from where the last look ended (the tasks come in
 * the order they were kept). */
static const struct kept *kept_of(struct cgw_bpfscan *b, const struct cgw_task *t)
{
	for (size_t k = 0; k < b->nkept; k++) {
		size_t j = (b->kept_at + k) % b->nkept;
		if (b->kept[j].tid == t->tid && b->kept[j].start_ticks == t->start_ticks) {
			b->kept_at = j + 1;
			return &b->kept[j];
		}
	}
	return NULL;
}

/* Name r's addresses from the kernel's own text of t's stack (source-ksyms.c): true when
 * named so. */
static bool named_by_stackfile(struct cgw_bpfscan *b, struct cgw_scan *s, const struct cgw_task *t,
                               const struct cgw_bpfrec *r, const uint64_t *addrs,
                               unsigned timeout_ms)
{
	if (!(r->rflags & TASKREC_HAVE_SCHED_INFO))
		return false;
	char path[96], *stack = malloc(STACKFILE_BUF), ss[128];
	if (!stack)
		return false;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stack", t->tgid, t->tid);
	ssize_t n = scan_read(s, path, stack, STACKFILE_BUF, timeout_ms);
	ssize_t m = -1;
	if (n > 0) {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", t->tgid, t->tid);
		m = scan_read(s, path, ss, sizeof(ss), timeout_ms);
	}
	bool ok = ksyms_from_stackfile(b->ksyms, addrs, r->nframes, stack, n, ss, m,
	                               r->sum_exec_runtime, r->pcount);
	free(stack);
	return ok;
}

void bpfscan_stacks(struct cgw_bpfscan *b, struct cgw_scan *s, unsigned timeout_ms)
{
	uint64_t *want = NULL, addrs[TASKREC_MAX_FRAMES];
	size_t nw = 0, wcap = 0, tries = 0, sf0, ks0, sf1, ks1;
	const char *only = getenv("CGWATCH_TEST_KSYMS");   /* tests/live/ksymsstack.sh */
	size_t max_tries = only && !strcmp(only, "kallsyms") ? 0 : STACKFILE_TRIES;
	ksyms_counts(b->ksyms, &sf0, &ks0);
	ksyms_begin(b->ksyms);
	b->kept_at = 0;
	for (int pass = 0; pass < 2; pass++) {
		for (size_t i = 0; i < s->n; i++) {
			struct cgw_task *t = &s->t[i];
			const struct kept *k = kept_of(b, t);
			if (!k)
				continue;
			size_t off = k->off;
			struct cgw_bpfrec r;
			if (bpfrec_next(b->buf, b->len, &off, &r) != 1 || !(r.rflags & TASKREC_HAVE_STACK))
				continue;             /* on its CPU when read: /proc reads it */
			size_t nf = r.nframes < TASKREC_MAX_FRAMES ? r.nframes : TASKREC_MAX_FRAMES;
			for (size_t f = 0; f < nf; f++)
				addrs[f] = bpfrec_frame(&r, f);
			if (pass == 0) {
				/* a stack not named yet: by the kernel's text of this task's, a few
				 * times a scan, else from /proc/kallsyms */
				if (ksyms_named(b->ksyms, addrs, nf))
					continue;
				if (tries < max_tries) {
					tries++;
					if (named_by_stackfile(b, s, t, &r, addrs, timeout_ms))
						continue;
				}
				for (size_t f = 0; f < nf; f++) {
					if (grow((void **)&want, &wcap, nw, 64, sizeof(*want)) < 0)
						break;
					want[nw++] = addrs[f];
				}
				continue;
			}
			t->stack_given = true;
			if (r.lock)
				ksyms_lock(b->ksyms, r.lock, t->lock_name, sizeof(t->lock_name));
			if (r.stack_err) {
				snprintf(t->stack_error, sizeof(t->stack_error), "stack unreadable: %s",
				         strerror(-r.stack_err));
				continue;
			}
			if (nf == 0) {
				snprintf(t->stack_error, sizeof(t->stack_error), "stack empty");
				continue;
			}
			t->frames = xmalloc(nf * sizeof(*t->frames));
			for (size_t f = 0; f < nf; f++) {
				const char *text, *name;
				ksyms_lookup(b->ksyms, addrs[f], &text, &name);
				t->frames[f].text = xstrdup(text);
				t->frames[f].name = xstrdup(name);
			}
			t->nframes = nf;
		}
		if (pass == 0 && nw && !ksyms_resolve(b->ksyms, want, nw))
			break;                    /* no addresses to name them by: /proc's stacks */
	}
	ksyms_end(b->ksyms);
	free(want);
	ksyms_counts(b->ksyms, &sf1, &ks1);
	if (sf1 > sf0 || ks1 > ks0)
		log_debug("kernel stacks: %zu addresses named from their tasks' stack files (%zu "
		          "read), %zu from /proc/kallsyms", sf1 - sf0, tries, ks1 - ks0);
}

static int relook_cmp(const void *a, const void *b)
{
	int x = ((const struct relook *)a)->tid, y = ((const struct relook *)b)->tid;
	return (x > y) - (x < y);
}

int bpfscan_relook(struct cgw_bpfscan *b)
{
	b->nrl = 0;
	int e = bpfscan_read(b);
	if (e < 0)
		return e == -ESTALE ? -EIO : e;
	size_t off = 0, at;
	struct cgw_bpfrec r;
	int rc;
	while (at = off, (rc = bpfrec_next(b->buf, b->len, &off, &r)) == 1 && r.kind != TASKREC_END) {
		if (grow((void **)&b->rl, &b->rl_cap, b->nrl, 256, sizeof(*b->rl)) < 0)
			return -ENOMEM;
		b->rl[b->nrl++] = (struct relook){ r.tid, at };
	}
	if (rc != 1) {                    /* torn, or no end record */
		b->nrl = 0;
		return -EIO;
	}
	qsort(b->rl, b->nrl, sizeof(*b->rl), relook_cmp);
	return 0;
}

bool bpfscan_relooked(const struct cgw_bpfscan *b, int tid, struct cgw_stat *st,
                      struct cgw_sched *sc, double *mono)
{
	struct relook key = { tid, 0 };
	const struct relook *k = b->nrl ? bsearch(&key, b->rl, b->nrl, sizeof(*b->rl), relook_cmp)
	                                : NULL;
	if (!k)
		return false;
	size_t off = k->off;
	struct cgw_bpfrec r;
	if (bpfrec_next(b->buf, b->len, &off, &r) != 1)
		return false;
	bpfrec_stat(&r, sysconf(_SC_CLK_TCK), st, sc);
	*mono = chunk_mono(b, k->off);
	return true;
}
