/* source-ustackbox.c: a report's user-stack unwinds (source-ustack.c) in a child process, the
 * way systemd-coredump parses a crashed process's ELF files: what they parse is shaped by
 * whoever owns the tasks (their memory, their files' unwind tables and symbols) or by whoever
 * sent a bundle, and a bug there must cost nothing but the child.
 *
 * One child per report, forked when the findings have tasks to unwind. Before it reads
 * anything it drops what it does not need: every file descriptor but stderr and its pipe,
 * every capability but the three that read another process's memory (CAP_SYS_PTRACE), its
 * mapped files (CAP_CHECKPOINT_RESTORE, or CAP_SYS_ADMIN before 5.9) and files whatever
 * their mode (CAP_DAC_READ_SEARCH); it sets no_new_privs, RLIMIT_CPU and RLIMIT_AS, and a
 * seccomp allow-list: reads, files opened read-only, memory never mapped executable, threads
 * (the read deadline's), writes to stderr and the pipe only; no socket, exec, signal to
 * another process, or mount. It dies with its parent.
 *
 * It sends each task's answer as it has it (frames, or why none), and what a capture records;
 * the parent checks each before taking it (a task of this scan, a bounded frame count, every
 * string ended) and waits for the next under a deadline: a child silent past it is killed,
 * and its task says so. An unwind that does not terminate (libunwind evaluating an
 * expression that loops reads nothing: no accessor's deadline stops it) is found by its
 * thread still on the CPU at the read deadline; the child then ends, which ends the loop,
 * and the parent starts another for the tasks left, that process's excepted for a while.
 * A child whose unwind still waits for a task's memory (its mmap lock held) lives on until
 * that read returns, as a stuck thread did in the daemon: the process is not tried again
 * meanwhile, and the next report reaps it. */
#include <errno.h>
#include <fcntl.h>
#include <linux/capability.h>
#include <poll.h>
#include <sched.h>
#include <seccomp.h>
#include <signal.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#if __has_include(<valgrind/valgrind.h>)
#include <valgrind/valgrind.h>
#else
#define RUNNING_ON_VALGRIND 0
#endif

#include "cgwatch.h"

#define MSG_MAX (32u << 20)               /* a record of maps (8 MiB) with room */
#define PENDING_MAX 8                     /* children left waiting for a task's memory */
#define AS_MARGIN (512ull << 20)          /* address space a child may add to the parent's */

enum { MSG_BEGIN = 1, MSG_DONE, MSG_RECORD, MSG_END };

struct msg_head { uint32_t type, len; };
#define OUT_BUF 65536                     /* the child's messages gathered for one write */
struct msg_done {
	uint32_t task, how, nframes, timeouts;
	/* the frames are those of task frames_of - 1, sent before (none follow: an unwind
	 * shared by 2,000 threads is sent once); 0: they follow */
	uint32_t frames_of;
	int32_t tid, same_as;
	uint8_t nomem;
	char error[sizeof(((struct cgw_task *)0)->ustack_error)];
};
struct msg_record { int32_t kind; int64_t r; uint32_t pathlen, datalen; };
struct msg_end { uint32_t left; int32_t rc; uint32_t unfiltered; };

/* The child's filter could not be loaded and a child said so: the next ones say nothing. */
static bool unfiltered_said;

/* ---- the child ---- */

static int box_fd = -1;                   /* the child's end of the pipe */

static void send_all(const void *buf, size_t n)
{
	const char *p = buf;
	while (n) {
		ssize_t w = write(box_fd, p, n);
		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0)
			_exit(3);                   /* the parent is gone or stopped listening */
		p += w;
		n -= (size_t)w;
	}
}

/* Messages gathered for one write: 2,000 threads that share one unwind were 8,000 writes,
 * and as many reads by the parent. Written out before each unwind begins (the parent knows
 * which task it is, should the child then go silent), at the end, or when full. */
static char out_buf[OUT_BUF];
static size_t out_len;

static void out_flush(void)
{
	send_all(out_buf, out_len);
	out_len = 0;
}

static void out_add(const void *p, size_t n)
{
	if (out_len + n > sizeof(out_buf))
		out_flush();
	if (n > sizeof(out_buf)) {
		send_all(p, n);
		return;
	}
	memcpy(out_buf + out_len, p, n);
	out_len += n;
}

static void send_msg(uint32_t type, const void *a, size_t alen, const void *b, size_t blen,
                     const void *c, size_t clen)
{
	struct msg_head h = { type, (uint32_t)(alen + blen + clen) };
	out_add(&h, sizeof(h));
	if (alen)
		out_add(a, alen);
	if (blen)
		out_add(b, blen);
	if (clen)
		out_add(c, clen);
	if (type == MSG_BEGIN || type == MSG_END)
		out_flush();
}

static void child_record(const char *path, enum rec_kind kind, const char *data, ssize_t r,
                         void *ctx)
{
	(void)ctx;
	size_t dl = r > 0 ? (size_t)r : 0, pl = strlen(path);
	if (dl > MSG_MAX / 2 || pl > 4096)
		return;
	struct msg_record m = { (int32_t)kind, r, (uint32_t)pl, (uint32_t)dl };
	send_msg(MSG_RECORD, &m, sizeof(m), path, pl, data, dl);
}

static struct cgw_scan *child_scan;

static void child_begin(void *ctx, const struct cgw_task *t)
{
	(void)ctx;
	uint32_t i = (uint32_t)(t - child_scan->t);
	send_msg(MSG_BEGIN, &i, sizeof(i), NULL, 0, NULL, 0);
}

/* The task whose unwind t shares (the one unwound, answered before t), by index; -1 none.
 * The last found is looked at first: the threads that share one come one after another. */
static long shared_from(const struct cgw_task *t)
{
	static long last = -1;
	const struct cgw_scan *s = child_scan;
	if (!t->ustack_same_as)
		return -1;
	if (last >= 0 && (size_t)last < s->n && s->t[last].tid == t->ustack_same_as)
		return last;
	for (size_t i = 0; i < s->n; i++)
		if (s->t[i].tid == t->ustack_same_as)
			return last = (long)i;
	return -1;
}

static void child_done(void *ctx, const struct cgw_task *t, unsigned how)
{
	(void)ctx;
	struct msg_done m = { .task = (uint32_t)(t - child_scan->t), .how = how,
	                      .nframes = (uint32_t)t->nuframes, .timeouts = child_scan->timeouts,
	                      .tid = t->tid, .same_as = t->ustack_same_as,
	                      .nomem = child_scan->nomem };
	snprintf(m.error, sizeof(m.error), "%s", t->ustack_error);
	long o = shared_from(t);
	if (o >= 0 && child_scan->t[o].nuframes == t->nuframes) {
		m.frames_of = (uint32_t)o + 1;  /* the parent has them: that task's answer */
		send_msg(MSG_DONE, &m, sizeof(m), NULL, 0, NULL, 0);
		return;
	}
	send_msg(MSG_DONE, &m, sizeof(m), t->uframes, t->nuframes * sizeof(*t->uframes), NULL, 0);
}

/* A small /proc file read as is: read_small_file would record it for a capture. */
static ssize_t read_raw(const char *path, char *buf, size_t cap)
{
	int fd = open(path, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return -1;
	ssize_t n = read(fd, buf, cap - 1);
	close(fd);
	buf[n > 0 ? n : 0] = '\0';
	return n;
}

/* Keep of the capabilities only CAP_SYS_PTRACE, CAP_DAC_READ_SEARCH and the one map_files
 * needs; drop the rest from the bounding set too. Without them (not root) nothing to do. */
static void drop_caps(void)
{
	struct __user_cap_header_struct h = { _LINUX_CAPABILITY_VERSION_3, 0 };
	struct __user_cap_data_struct d[2];
	memset(d, 0, sizeof(d));          /* valgrind knows capget fills the first only */
	if (syscall(SYS_capget, &h, d) != 0)
		return;
	int last = CAP_LAST_CAP;
	char buf[16];
	ssize_t n = read_raw("/proc/sys/kernel/cap_last_cap", buf, sizeof(buf));
	if (n > 0)
		last = atoi(buf);
	uint64_t perm = (uint64_t)d[1].permitted << 32 | d[0].permitted;
	/* map_files: CAP_CHECKPOINT_RESTORE (40, since 5.9) when held, else CAP_SYS_ADMIN (the
	 * unit's bounding set has only the latter) */
	int mapcap = last >= 40 && (perm >> 40 & 1) ? 40 : CAP_SYS_ADMIN;
	uint64_t keep = 1ull << CAP_SYS_PTRACE | 1ull << CAP_DAC_READ_SEARCH | 1ull << mapcap;
	for (int c = 0; c <= last && c < 64; c++)
		if (!(keep >> c & 1))
			prctl(PR_CAPBSET_DROP, c, 0, 0, 0);   /* fails without CAP_SETPCAP: fine */
	prctl(PR_CAP_AMBIENT, PR_CAP_AMBIENT_CLEAR_ALL, 0, 0, 0);
	perm &= keep;
	d[0].permitted = d[0].effective = (uint32_t)perm;
	d[1].permitted = d[1].effective = (uint32_t)(perm >> 32);
	d[0].inheritable = d[1].inheritable = 0;
	syscall(SYS_capset, &h, d);
}

#define ALLOW(c, name, cmp) (seccomp_rule_add(c, SCMP_ACT_ALLOW, SCMP_SYS(name), 1, cmp) == 0)

/* Argument n of a call: equal to a, or with mask a equal to b (SCMP_A0 and its kin leave a
 * field out, which clang warns of). */
static struct scmp_arg_cmp arg_eq(unsigned n, uint64_t a)
{
	return (struct scmp_arg_cmp){ .arg = n, .op = SCMP_CMP_EQ, .datum_a = a, .datum_b = 0 };
}

static struct scmp_arg_cmp arg_masked(unsigned n, uint64_t mask, uint64_t b)
{
	return (struct scmp_arg_cmp){ .arg = n, .op = SCMP_CMP_MASKED_EQ, .datum_a = mask,
	                              .datum_b = b };
}

/* The allow-list; everything else fails with EPERM (clone3 with ENOSYS: glibc then uses
 * clone, whose flags can be checked). False with why when it cannot be loaded. */
static bool load_seccomp(char *why, size_t cap)
{
	static const int plain[] = {
		SCMP_SYS(read), SCMP_SYS(pread64), SCMP_SYS(readv), SCMP_SYS(close),
		SCMP_SYS(fstat), SCMP_SYS(newfstatat), SCMP_SYS(statx), SCMP_SYS(lseek),
		SCMP_SYS(munmap), SCMP_SYS(mremap), SCMP_SYS(brk), SCMP_SYS(madvise),
		SCMP_SYS(futex), SCMP_SYS(set_robust_list), SCMP_SYS(rseq), SCMP_SYS(rt_sigprocmask),
		SCMP_SYS(rt_sigreturn), SCMP_SYS(rt_sigaction), SCMP_SYS(sigaltstack),
		SCMP_SYS(exit), SCMP_SYS(exit_group), SCMP_SYS(getpid), SCMP_SYS(gettid),
		SCMP_SYS(getppid), SCMP_SYS(clock_gettime), SCMP_SYS(clock_nanosleep),
		SCMP_SYS(nanosleep), SCMP_SYS(readlink), SCMP_SYS(readlinkat),
		SCMP_SYS(getdents64), SCMP_SYS(fcntl), SCMP_SYS(sched_yield), SCMP_SYS(getrandom),
		SCMP_SYS(restart_syscall), SCMP_SYS(set_tid_address), SCMP_SYS(access),
		SCMP_SYS(faccessat), SCMP_SYS(faccessat2), SCMP_SYS(uname), SCMP_SYS(getuid),
		SCMP_SYS(geteuid), SCMP_SYS(getgid), SCMP_SYS(getegid), SCMP_SYS(sched_getaffinity),
	};
	const uint64_t wflags = O_WRONLY | O_RDWR | O_CREAT | O_TRUNC | O_APPEND;
	scmp_filter_ctx c = seccomp_init(SCMP_ACT_ERRNO(EPERM));
	if (!c) {
		snprintf(why, cap, "seccomp_init failed");
		return false;
	}
	bool ok = true;
	for (size_t i = 0; i < sizeof(plain) / sizeof(plain[0]); i++)
		ok &= seccomp_rule_add(c, SCMP_ACT_ALLOW, plain[i], 0) == 0;
	ok &= ALLOW(c, write, arg_eq(0, 2));
	ok &= ALLOW(c, write, arg_eq(0, (uint64_t)box_fd));
	ok &= ALLOW(c, writev, arg_eq(0, 2));
	ok &= ALLOW(c, openat, arg_masked(2, wflags, 0));
	ok &= ALLOW(c, open, arg_masked(1, wflags, 0));
	ok &= ALLOW(c, mmap, arg_masked(2, PROT_EXEC, 0));
	ok &= ALLOW(c, mprotect, arg_masked(2, PROT_EXEC, 0));
	ok &= ALLOW(c, clone, arg_masked(0, CLONE_THREAD, CLONE_THREAD));
	ok &= ALLOW(c, tgkill, arg_eq(0, (uint64_t)getpid()));
	ok &= ALLOW(c, prlimit64, arg_eq(2, 0));
	ok &= seccomp_rule_add(c, SCMP_ACT_ERRNO(ENOSYS), SCMP_SYS(clone3), 0) == 0;
	int e = ok ? seccomp_load(c) : -EINVAL;
	seccomp_release(c);
	if (e < 0)
		snprintf(why, cap, "the seccomp filter not loaded: %s", strerror(-e));
	return e == 0;
}

static void set_limit(int res, rlim_t v)
{
	struct rlimit rl = { v, v };
	setrlimit(res, &rl);
}

/* Every fd from 3 up closed but a and b (b may be -1). */
static void close_except(int a, int b)
{
	int lo = b >= 0 && b < a ? b : a, hi = b > a ? b : a;
	if (lo > 3)
		close_range(3, (unsigned)lo - 1, 0);
	if (hi > lo + 1)
		close_range((unsigned)lo + 1, (unsigned)hi - 1, 0);
	close_range((unsigned)hi + 1, ~0u, 0);
}

/* Faults a test injects into the confined child (CGWATCH_TEST_UNWINDER): "spin" (silent on
 * the CPU), "crash" (SIGSEGV), "lie" (a capture's record outside the tree), "lieframes" (a
 * task's answer said to be the frames of a task whose unwind it does not share), "escape" (what a
 * parser bug turned into code would try: each attempt's result on stderr, then the unwinds as
 * usual). */
static void test_fault(const char *f)
{
	if (!f)
		return;
	if (!strcmp(f, "spin"))
		for (volatile unsigned long i = 0;; i++)
			;
	if (!strcmp(f, "crash"))
		raise(SIGSEGV);
	if (!strcmp(f, "lie")) {           /* a record outside the tree */
		struct msg_record m = { REC_FILE, 1, 14, 1 };
		send_msg(MSG_RECORD, &m, sizeof(m), "proc/../../etc", 14, "x", 1);
	}
	if (!strcmp(f, "lieframes") && child_scan->n >= 2) {  /* another task's frames, falsely */
		struct msg_done m = { .task = 0, .tid = child_scan->t[0].tid, .nframes = 1,
		                      .frames_of = 2, .same_as = child_scan->t[1].tid + 1 };
		send_msg(MSG_DONE, &m, sizeof(m), NULL, 0, NULL, 0);
	}
	if (strcmp(f, "escape"))
		return;
	char st[4096];
	if (read_raw("/proc/self/status", st, sizeof(st)) > 0)
		for (char *l = strtok(st, "\n"); l; l = strtok(NULL, "\n"))
			if (!strncmp(l, "CapEff:", 7) || !strncmp(l, "CapBnd:", 7) ||
			    !strncmp(l, "NoNewPrivs:", 11) || !strncmp(l, "Seccomp:", 8))
				log_warnx("test: %s", l);
	int fd = open("/etc/cgwatch-escape", O_WRONLY | O_CREAT, 0600);
	log_warnx("test: open for writing: %s", fd >= 0 ? "done" : strerror(errno));
	fd = socket(AF_UNIX, SOCK_STREAM, 0);
	log_warnx("test: socket: %s", fd >= 0 ? "done" : strerror(errno));
	log_warnx("test: kill of the parent: %s", kill(getppid(), 0) == 0 ? "done" : strerror(errno));
	char *argv[] = { "/bin/true", NULL };
	execv(argv[0], argv);
	log_warnx("test: exec: %s", strerror(errno));
	void *x = mmap(NULL, 4096, PROT_READ | PROT_EXEC, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	log_warnx("test: executable memory: %s", x != MAP_FAILED ? "done" : strerror(errno));
	log_warnx("test: write to stdout: %s", write(1, "x", 1) == 1 ? "done" : strerror(errno));
}

/* The child: confined, then the unwinds; its answers go to the pipe as they come. */
static _Noreturn void child_main(struct cgw_report *r, unsigned max, unsigned left,
                                 unsigned timeout_ms, int fd, pid_t parent)
{
	dl_forked();
	record_redirect(child_record, NULL);
	child_scan = r->scan;
	static const int sigs[] = { SIGTERM, SIGINT, SIGHUP, SIGPIPE, SIGSEGV, SIGBUS, SIGILL,
	                            SIGFPE, SIGABRT, SIGXCPU, SIGSYS, SIGUSR1, SIGUSR2 };
	for (size_t i = 0; i < sizeof(sigs) / sizeof(sigs[0]); i++)
		signal(sigs[i], SIG_DFL);
	sigset_t none;
	sigemptyset(&none);
	pthread_sigmask(SIG_SETMASK, &none, NULL);
	prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
	if (getppid() != parent)
		_exit(2);
	box_fd = fd;
	close(0);
	close(1);
	close_except(fd, open_regular_proc_fd());
	unsigned long pages = 0;
	char statm[128];
	if (read_raw("/proc/self/statm", statm, sizeof(statm)) > 0)
		pages = strtoul(statm, NULL, 10);
#ifndef __SANITIZE_ADDRESS__                /* ASan's shadow mappings cannot live under it */
	set_limit(RLIMIT_AS, (rlim_t)pages * 4096 + AS_MARGIN);
#else
	(void)pages;
#endif
	set_limit(RLIMIT_CPU, 10 + (rlim_t)left * timeout_ms * 2 / 1000);
	set_limit(RLIMIT_CORE, 0);
	drop_caps();
	char why[160];
	bool filtered = false;
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0)
		snprintf(why, sizeof(why), "no_new_privs not set: %s", strerror(errno));
	else
		filtered = RUNNING_ON_VALGRIND || load_seccomp(why, sizeof(why));
	if (!filtered && !unfiltered_said)
		log_warnx("user stacks: the unwinder process runs without its system call filter: %s",
		          why);
	test_fault(getenv("CGWATCH_TEST_UNWINDER"));
	struct ustack_hooks h = { child_begin, child_done, NULL };
	int rc = ustack_unwind_all(r, max, &left, timeout_ms, &h);
	struct msg_end m = { left, rc, !filtered };
	send_msg(MSG_END, &m, sizeof(m), NULL, 0, NULL, 0);
	/* an unwind that waits for a task's memory: as a stuck thread did in the daemon, this
	 * process lives on until that read returns (the parent reaps it then); one that loops
	 * or nothing: done */
	while (rc == 0 && dl_stuck() > 0 && getppid() == parent) {
		struct timespec ts = { 0, 100 * 1000 * 1000 };
		nanosleep(&ts, NULL);
	}
	_exit(0);
}

/* ---- the parent ---- */

/* Children that ended their report with an unwind still waiting for a task's memory: those
 * processes stay marked in flight until the child is gone. */
static struct { pid_t pid; int tgid[4]; } pending[PENDING_MAX];

static void pending_reap(void)
{
	for (size_t i = 0; i < PENDING_MAX; i++) {
		if (!pending[i].pid || waitpid(pending[i].pid, NULL, WNOHANG) == 0)
			continue;
		for (size_t k = 0; k < 4; k++)
			if (pending[i].tgid[k])
				ustack_flight(pending[i].tgid[k], false);
		memset(&pending[i], 0, sizeof(pending[i]));
	}
}

struct box {
	struct cgw_report *r;
	pid_t pid;
	int fd;
	unsigned timeout_ms;
	long current;                      /* the task being unwound; -1 none */
	bool ended;
	struct msg_end end;
	int waiting[4];                    /* processes with an unwind left waiting */
	char why[200];                     /* what went wrong, for the tasks left */
	double first_ms;                   /* when its first message came (mono_ms) */
	char in[OUT_BUF];                  /* read from the pipe, not taken yet: in_off..in_len */
	size_t in_off, in_len;
};

bool box_may_fork(unsigned forked)
{
	return forked < BOX_TRIES;
}

double box_silence_ms(unsigned timeout_ms)
{
	return 4.0 * timeout_ms + 2000;
}

bool box_silence_expired(double now_ms, double since_ms, unsigned timeout_ms)
{
	return now_ms - since_ms >= box_silence_ms(timeout_ms);
}

/* n bytes from the child (read ahead into b->in, as much as the pipe holds), unless it is
 * silent past box_silence_ms from now: 0, or -ETIMEDOUT, -EPIPE (it closed: exited or died),
 * -ECANCELED (we are stopping). */
static int read_full(struct box *b, void *buf, size_t n, unsigned timeout_ms)
{
	char *p = buf;
	double since = mono_ms();
	while (n) {
		if (b->in_off < b->in_len) {       /* what a read took ahead */
			size_t k = b->in_len - b->in_off < n ? b->in_len - b->in_off : n;
			memcpy(p, b->in + b->in_off, k);
			b->in_off += k;
			p += k;
			n -= k;
			continue;
		}
		double now = mono_ms(), left = since + box_silence_ms(timeout_ms) - now;
		if (cgw_stop_pending())
			return -ECANCELED;
		if (box_silence_expired(now, since, timeout_ms))
			return -ETIMEDOUT;
		struct pollfd pf = { b->fd, POLLIN, 0 };
		int r = poll(&pf, 1, left > 100 ? 100 : (int)left + 1);
		if (r < 0 && errno != EINTR)
			return -errno;
		if (r <= 0)
			continue;
		ssize_t got = read(b->fd, b->in, sizeof(b->in));
		if (got < 0 && errno == EINTR)
			continue;
		if (got <= 0)
			return -EPIPE;
		b->in_off = 0;
		b->in_len = (size_t)got;
	}
	return 0;
}

/* A string field of the child's ended within cap bytes. */
static void ended(char *s, size_t cap)
{
	s[cap - 1] = '\0';
}

static bool flag(const bool *b)
{
	return *(const unsigned char *)b != 0;
}

/* The frames as the child sent them, made safe to use: every string ended, every bool 0 or
 * 1, symbol_from one of the static names (the child's pointer is never followed). */
static void frames_check(struct cgw_uframe *f, size_t n)
{
	static const enum elfsym_from from[] = { ELFSYM_SYMTAB, ELFSYM_DEBUG, ELFSYM_DYNSYM };
	for (size_t i = 0; i < n; i++) {
		ended(f[i].module, sizeof(f[i].module));
		ended(f[i].symbol, sizeof(f[i].symbol));
		ended(f[i].build_id, sizeof(f[i].build_id));
		ended(f[i].symbol_why, sizeof(f[i].symbol_why));
		f[i].pc_exact = flag(&f[i].pc_exact);
		f[i].sym_exact = flag(&f[i].sym_exact);
		f[i].have_vaddr = flag(&f[i].have_vaddr);
		f[i].sym_task_mntns = flag(&f[i].sym_task_mntns);
		f[i].fp_recovered = flag(&f[i].fp_recovered);
		const char *sf = f[i].symbol_from;
		f[i].symbol_from = NULL;
		for (size_t k = 0; k < sizeof(from) / sizeof(from[0]); k++)
			if (sf == elfsym_from_name(from[k]))
				f[i].symbol_from = sf;
	}
}

static int take_done(struct box *b, const char *p, size_t len)
{
	struct cgw_scan *s = b->r->scan;
	struct msg_done m;
	if (len < sizeof(m))
		return -EPROTO;
	memcpy(&m, p, sizeof(m));
	/* frames that follow, or those of another task of this report that came before (its
	 * tid the one whose unwind this task says it shares), checked when they came */
	const struct cgw_task *of = m.frames_of && m.frames_of - 1 < s->n ?
	                            &s->t[m.frames_of - 1] : NULL;
	if (m.task >= s->n || s->t[m.task].tid != m.tid || m.nframes > USTACK_MAX_FRAMES ||
	    len != sizeof(m) + (m.frames_of ? 0 : m.nframes * sizeof(struct cgw_uframe)) ||
	    (m.frames_of && (!of || of->tid != m.same_as || m.frames_of - 1 == m.task)))
		return -EPROTO;
	struct cgw_task *t = &s->t[m.task];
	if (of && of->nuframes != m.nframes) {    /* not kept here (no memory): none here */
		s->nomem = true;
		m.nframes = 0;
	}
	ended(m.error, sizeof(m.error));
	free(t->uframes);
	t->uframes = NULL;
	t->nuframes = 0;
	if (m.nframes && (t->uframes = malloc(m.nframes * sizeof(*t->uframes)))) {
		memcpy(t->uframes, of ? (const void *)of->uframes : p + sizeof(m),
		       m.nframes * sizeof(*t->uframes));
		if (!of)
			frames_check(t->uframes, m.nframes);
		t->nuframes = m.nframes;
	} else if (m.nframes) {
		s->nomem = true;
	}
	memcpy(t->ustack_error, m.error, sizeof(t->ustack_error));
	t->ustack_same_as = m.same_as;
	if (m.timeouts <= SCAN_MAX_TIMEOUTS && (int)m.timeouts > s->timeouts)
		s->timeouts = (int)m.timeouts;
	if (m.nomem)
		s->nomem = true;
	if (m.how & (USTACK_LOOPED | USTACK_UNENDING))
		ustack_hold(t->tgid, t->start_ticks, "did not terminate (its unwind info loops)");
	if (m.how & USTACK_TIMED_OUT)
		for (size_t k = 0; k < 4; k++)
			if (!b->waiting[k] || b->waiting[k] == t->tgid) {
				if (!b->waiting[k] && ustack_flight(t->tgid, true))
					b->waiting[k] = t->tgid;
				break;
			}
	b->current = -1;
	return 0;
}

/* A capture's record from the child: a relative tree path without "..", as record.c makes. */
static int take_record(const char *p, size_t len)
{
	struct msg_record m;
	if (len < sizeof(m))
		return -EPROTO;
	memcpy(&m, p, sizeof(m));
	if (len != sizeof(m) + (size_t)m.pathlen + m.datalen || m.pathlen == 0 ||
	    m.pathlen > 4096 || (m.kind != REC_FILE && m.kind != REC_LINK) ||
	    (m.r >= 0 && (uint64_t)m.r != m.datalen) || (m.r < 0 && (m.datalen || m.r < -4095)))
		return -EPROTO;
	char path[4097];
	memcpy(path, p + sizeof(m), m.pathlen);
	path[m.pathlen] = '\0';
	if (strlen(path) != m.pathlen || path[0] == '/' || strstr(path, "..") ||
	    (strncmp(path, "proc/", 5) != 0 && strncmp(path, "cgwatch/", 8) != 0))
		return -EPROTO;
	record_put(path, (enum rec_kind)m.kind, p + sizeof(m) + m.pathlen, (ssize_t)m.r);
	return 0;
}

/* The child's messages until its end, or until it goes wrong (b->why says how). */
static void box_listen(struct box *b)
{
	char *buf = NULL;
	for (;;) {
		struct msg_head h;
		int e = read_full(b, &h, sizeof(h), b->timeout_ms);
		if (e == 0 && (h.len > MSG_MAX || h.type < MSG_BEGIN || h.type > MSG_END))
			e = -EPROTO;
		if (e == 0) {
			char *nb = realloc(buf, h.len + 1);
			if (nb)
				buf = nb;
			e = nb ? read_full(b, buf, h.len, b->timeout_ms) : -ENOMEM;
		}
		if (e == 0 && !b->first_ms)
			b->first_ms = mono_ms();
		if (e == 0) {
			if (h.type == MSG_BEGIN && h.len == sizeof(uint32_t)) {
				uint32_t i;
				memcpy(&i, buf, sizeof(i));
				b->current = i < b->r->scan->n ? (long)i : -1;
			} else if (h.type == MSG_DONE) {
				e = take_done(b, buf, h.len);
			} else if (h.type == MSG_RECORD) {
				e = take_record(buf, h.len);
			} else if (h.type == MSG_END && h.len == sizeof(b->end)) {
				memcpy(&b->end, buf, sizeof(b->end));
				b->ended = true;
				unfiltered_said |= b->end.unfiltered != 0;
				break;
			} else {
				e = -EPROTO;
			}
		}
		if (e == -ETIMEDOUT)
			snprintf(b->why, sizeof(b->why), "the unwinder process was silent for %.1f s "
			         "and was killed", box_silence_ms(b->timeout_ms) / 1000);
		else if (e == -EPROTO)
			snprintf(b->why, sizeof(b->why), "the unwinder process sent what it may not "
			         "send and was killed");
		else if (e == -ECANCELED)
			snprintf(b->why, sizeof(b->why), "cgwatch is stopping");
		else if (e < 0 && e != -EPIPE)
			snprintf(b->why, sizeof(b->why), "reading the unwinder process: %s",
			         strerror(-e));
		if (e < 0)
			break;
	}
	free(buf);
}

/* The child gone (killed unless it waits for a task's memory), and what became of it. */
static void box_close(struct box *b)
{
	close(b->fd);
	bool waits = b->ended && b->end.rc == 0 && b->waiting[0];
	if (!waits)
		kill(b->pid, SIGKILL);
	int st = 0;
	pid_t w = 0;
	for (int i = 0; i < 50 && !waits && (w = waitpid(b->pid, &st, WNOHANG)) == 0; i++)
		usleep(2000);
	if (w == b->pid && !b->ended && !b->why[0]) {
		if (WIFSIGNALED(st))
			snprintf(b->why, sizeof(b->why), "the unwinder process died of %s%s",
			         strsignal(WTERMSIG(st)), WTERMSIG(st) == SIGSYS ? " (a system call "
			         "outside its allow-list)" : WTERMSIG(st) == SIGXCPU ? " (its CPU limit)" :
			         "");
		else
			snprintf(b->why, sizeof(b->why), "the unwinder process exited with status %d "
			         "before its end", WEXITSTATUS(st));
	} else if (!b->ended && !b->why[0]) {
		snprintf(b->why, sizeof(b->why), "the unwinder process ended before its answer");
	}
	if (w == b->pid) {
		for (size_t k = 0; k < 4; k++)
			if (b->waiting[k])
				ustack_flight(b->waiting[k], false);
		return;
	}
	size_t slot = PENDING_MAX;
	for (size_t i = 0; i < PENDING_MAX && slot == PENDING_MAX; i++)
		if (!pending[i].pid)
			slot = i;
	if (slot == PENDING_MAX) {            /* too many waiting: the oldest goes */
		slot = 0;
		kill(pending[0].pid, SIGKILL);
		waitpid(pending[0].pid, NULL, 0);
		for (size_t k = 0; k < 4; k++)
			if (pending[0].tgid[k])
				ustack_flight(pending[0].tgid[k], false);
	}
	pending[slot].pid = b->pid;
	memcpy(pending[slot].tgid, b->waiting, sizeof(pending[slot].tgid));
}

void ustack_report(struct cgw_report *r, unsigned max, unsigned timeout_ms)
{
	struct cgw_scan *s = r->scan;
	pending_reap();
	if ((!s->live && !s->replay_root) || max == 0 || !ustack_any_wanted(r))
		return;                        /* nothing to fork for */
	unsigned left = max;
	double t0 = mono_ms(), first = 0;
	unsigned tries;
	for (tries = 0; box_may_fork(tries); tries++) {
		int p[2];
		if (pipe2(p, O_CLOEXEC) < 0) {
			ustack_unanswered(r, "user stack not read: no pipe for the unwinder process");
			return;
		}
		fflush(NULL);                  /* nothing buffered is written twice */
		pid_t parent = getpid(), pid = fork();
		if (pid == 0) {
			close(p[0]);
			child_main(r, max, left, timeout_ms, p[1], parent);
		}
		close(p[1]);
		if (pid < 0) {
			char why[160];
			snprintf(why, sizeof(why), "user stack not read: cannot start the unwinder "
			         "process: %s", strerror(errno));
			close(p[0]);
			ustack_unanswered(r, why);
			return;
		}
		struct box b = { .r = r, .pid = pid, .fd = p[0], .timeout_ms = timeout_ms,
		                 .current = -1 };
		box_listen(&b);
		if (!first)
			first = b.first_ms;
		box_close(&b);
		if (b.current >= 0 && !s->t[b.current].ustack_error[0] && !s->t[b.current].uframes)
			snprintf(s->t[b.current].ustack_error, sizeof(s->t[b.current].ustack_error),
			         "user stack not read: %s while it unwound this task", b.why);
		if (!b.ended && b.current >= 0 && !cgw_stop_pending()) {
			/* it ended in a task's unwind: that process is held out, the rest go on */
			char what[240];
			snprintf(what, sizeof(what), "stopped the unwinder (%s)", b.why);
			ustack_hold(s->t[b.current].tgid, s->t[b.current].start_ticks, what);
			continue;
		}
		if (!b.ended) {
			char why[260];
			snprintf(why, sizeof(why), "user stack not read: %s", b.why);
			ustack_unanswered(r, why);
			return;
		}
		if (b.end.rc != 1) {           /* every task tried */
			log_debug("user stacks, sandboxed: %u unwinder process%s, the first's first "
			          "answer %.2f ms after its fork, %.2f ms in all", tries + 1,
			          tries ? "es" : "", first ? first - t0 : 0, mono_ms() - t0);
			return;
		}
		left = b.end.left <= left ? b.end.left : 0;
	}
	char why[160];
	snprintf(why, sizeof(why), "user stack not read: unwinds that did not terminate ended %d "
	         "unwinder processes this report", BOX_TRIES);
	ustack_unanswered(r, why);
}
