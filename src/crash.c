/* crash.c: cgwatch's own fatal signals leave a backtrace on stderr (the journal, under
 * systemd), then the process dies of the signal as it would have: same exit status, same core
 * dump, and Restart= restarts the daemon.
 *
 * The handler is async-signal-safe: it runs on the crashing thread's own signal stack (a
 * stack overflow too), allocates nothing, uses no stdio, and writes each line whole with
 * write(2). The frames come from local libunwind (its unw_init_local2, unw_step and
 * unw_get_proc_name are documented safe in a signal handler for local unwinding; its cache is
 * turned off, so no cache lock is taken, and it is used once at start so that its lazy set-up
 * is not done in the handler). The module of each frame comes from a table of
 * /proc/self/maps made at start, read again (open/read) for a frame outside it (a library
 * loaded later). One crash is reported: a fault inside the handler finds its signal blocked,
 * and the kernel then kills with the default action; a second thread that crashes meanwhile
 * waits for the first to finish. Under AddressSanitizer nothing is installed: its report is
 * the better one. */
#define UNW_LOCAL_ONLY
#include <errno.h>
#include <fcntl.h>
#include <libunwind.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdatomic.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cgwatch.h"

#if defined(__SANITIZE_ADDRESS__)
#define CRASH_UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define CRASH_UNDER_ASAN 1
#endif
#endif

void (*crash_test_hook)(void);

#ifdef CRASH_UNDER_ASAN
void crash_install(void)
{
}

void crash_thread_init(void)
{
}
#else
#define ALT_STACK (64 * 1024)         /* a thread's signal stack, after a guard page */
#define MAX_FRAMES 64
#define MAX_MODS 128
#define MOD_POOL (8 * 1024)

static const int fatal_sigs[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS };

/* executable mappings of files: [start, end), the load base of their file, its path */
struct mod { uintptr_t start, end, base; unsigned path; };
static struct mod mods[MAX_MODS];
static unsigned nmods;
static char mod_pool[MOD_POOL];
static unsigned mod_pool_len;

static _Atomic pid_t crash_owner;      /* the thread reporting a crash, 0 before */
static pthread_key_t alt_key;
static bool alt_key_ok;

/* ---- formatting without stdio ---- */

struct line { char s[1024]; size_t n; };

static void put(struct line *l, const char *s)
{
	while (*s && l->n < sizeof(l->s) - 1)
		l->s[l->n++] = *s++;
}

static void put_dec(struct line *l, unsigned long v)
{
	char b[24];
	int i = sizeof(b);
	b[--i] = '\0';
	do
		b[--i] = (char)('0' + v % 10);
	while ((v /= 10) && i > 0);
	put(l, b + i);
}

static void put_hex(struct line *l, unsigned long v, int width)
{
	char b[24];
	int i = sizeof(b);
	b[--i] = '\0';
	do {
		b[--i] = "0123456789abcdef"[v & 15];
		width--;
	} while (((v >>= 4) || width > 0) && i > 2);
	b[--i] = 'x';
	b[--i] = '0';
	put(l, b + i);
}

static bool out_gone;                  /* stderr failed or did not drain: nothing more */

/* The line and a newline, in one write. A stderr that does not take it within 2 s (a full
 * pipe nobody reads, a journald that does not answer) is given up, so that the process
 * still dies; a socket (the journal's stream) is written without blocking. */
static void emit(struct line *l)
{
	if (l->n >= sizeof(l->s) - 1)
		l->n = sizeof(l->s) - 2;
	l->s[l->n++] = '\n';
	size_t off = 0;
	bool sock = true;
	for (int tries = 0; off < l->n && !out_gone; tries++) {
		if (tries == 1000) {               /* ready, then EAGAIN, again and again */
			out_gone = true;
			break;
		}
		struct pollfd pf = { .fd = 2, .events = POLLOUT };
		int r = poll(&pf, 1, 2000);
		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0 || (pf.revents & (POLLERR | POLLNVAL))) {
			out_gone = true;
			break;
		}
		ssize_t w = -1;
		if (sock) {
			w = send(2, l->s + off, l->n - off, MSG_DONTWAIT | MSG_NOSIGNAL);
			if (w < 0 && errno == ENOTSOCK)
				sock = false;
		}
		if (!sock)
			w = write(2, l->s + off, l->n - off);
		if (w < 0 && (errno == EINTR || errno == EAGAIN || errno == ENOTSOCK))
			continue;
		if (w <= 0) {
			out_gone = true;
			break;
		}
		off += (size_t)w;
	}
	l->n = 0;
}

static const char *sig_name(int sig)
{
	switch (sig) {
	case SIGSEGV: return "SIGSEGV";
	case SIGBUS: return "SIGBUS";
	case SIGFPE: return "SIGFPE";
	case SIGILL: return "SIGILL";
	case SIGABRT: return "SIGABRT";
	case SIGSYS: return "SIGSYS";
	}
	return "signal";
}

static const char *code_name(int sig, int code)
{
	if (sig == SIGSEGV) {
		switch (code) {
		case SEGV_MAPERR: return "SEGV_MAPERR";
		case SEGV_ACCERR: return "SEGV_ACCERR";
#ifdef SEGV_PKUERR
		case SEGV_PKUERR: return "SEGV_PKUERR";
#endif
		}
	} else if (sig == SIGBUS) {
		switch (code) {
		case BUS_ADRALN: return "BUS_ADRALN";
		case BUS_ADRERR: return "BUS_ADRERR";
		case BUS_OBJERR: return "BUS_OBJERR";
		}
	} else if (sig == SIGFPE) {
		switch (code) {
		case FPE_INTDIV: return "FPE_INTDIV";
		case FPE_INTOVF: return "FPE_INTOVF";
		case FPE_FLTDIV: return "FPE_FLTDIV";
		case FPE_FLTINV: return "FPE_FLTINV";
		}
	} else if (sig == SIGILL) {
		switch (code) {
		case ILL_ILLOPC: return "ILL_ILLOPC";
		case ILL_ILLOPN: return "ILL_ILLOPN";
		case ILL_PRVOPC: return "ILL_PRVOPC";
		}
	}
	return NULL;
}

/* ---- the module table, from /proc/self/maps (open and read only: safe in the handler) ---- */

static uintptr_t parse_hex(const char **p, const char *end)
{
	uintptr_t v = 0;
	for (; *p < end; (*p)++) {
		char c = **p;
		unsigned d;
		if (c >= '0' && c <= '9')
			d = (unsigned)(c - '0');
		else if (c >= 'a' && c <= 'f')
			d = (unsigned)(c - 'a' + 10);
		else
			break;
		v = v << 4 | d;
	}
	return v;
}

/* The file at path (len bytes) is an ELF ET_EXEC executable (e_type, at offset 16, is 2).
 * Read from the file, not from its mapping: what is mapped may not be readable. */
static bool is_et_exec(const char *path, size_t len)
{
	char name[512];
	unsigned char h[18];
	if (len >= sizeof(name))
		return false;
	memcpy(name, path, len);
	name[len] = '\0';
	int fd = open(name, O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return false;
	bool exec = pread(fd, h, sizeof(h), 0) == (ssize_t)sizeof(h) &&
	            memcmp(h, "\177ELF", 4) == 0 && (h[16] | h[17] << 8) == 2;
	close(fd);
	return exec;
}

/* One line "start-end perms offset dev inode path": an executable mapping of a file is kept,
 * with the base its file was loaded at (the start of its mapping at offset 0; 0 for an
 * ET_EXEC executable, whose addresses are absolute). */
static void maps_line(const char *p, const char *end, uintptr_t *base0, const char **path0,
                      size_t *path0len)
{
	uintptr_t start = parse_hex(&p, end);
	if (p >= end || *p++ != '-')
		return;
	uintptr_t stop = parse_hex(&p, end);
	if (end - p < 6 || *p++ != ' ')
		return;
	bool r = p[0] == 'r', x = p[2] == 'x';
	p += 5;
	uintptr_t off = parse_hex(&p, end);
	for (int field = 0; field < 2; field++) {             /* dev, inode */
		while (p < end && *p == ' ')
			p++;
		while (p < end && *p != ' ')
			p++;
	}
	while (p < end && *p == ' ')
		p++;
	if (p >= end || *p != '/')
		return;
	size_t len = (size_t)(end - p);
	if (off == 0) {
		*base0 = start;
		if (r && is_et_exec(p, len))
			*base0 = 0;
		*path0 = p;
		*path0len = len;
	}
	if (!x || nmods >= MAX_MODS || mod_pool_len + len + 1 > MOD_POOL)
		return;
	struct mod *m = &mods[nmods++];
	m->start = start;
	m->end = stop;
	m->base = (*path0 && *path0len == len && memcmp(*path0, p, len) == 0) ? *base0
	          : start - off;
	m->path = mod_pool_len;
	memcpy(mod_pool + mod_pool_len, p, len);
	mod_pool_len += (unsigned)len;
	mod_pool[mod_pool_len++] = '\0';
}

static void maps_read(void)
{
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	if (fd < 0)
		return;
	nmods = 0;
	mod_pool_len = 0;
	char buf[4096];
	char path0[512];
	size_t have = 0, path0len = 0;
	uintptr_t base0 = 0;
	const char *p0 = NULL;
	for (;;) {
		ssize_t n = read(fd, buf + have, sizeof(buf) - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			break;
		have += (size_t)n;
		char *s = buf, *nl;
		while ((nl = memchr(s, '\n', have - (size_t)(s - buf)))) {
			maps_line(s, nl, &base0, &p0, &path0len);
			if (p0 && p0 >= s && p0 < nl) {      /* keep the offset-0 path past this buffer */
				if (path0len >= sizeof(path0))
					path0len = sizeof(path0) - 1;
				memcpy(path0, p0, path0len);
				p0 = path0;
			}
			s = nl + 1;
		}
		have -= (size_t)(s - buf);
		memmove(buf, s, have);
		if (have == sizeof(buf))                  /* a line longer than the buffer */
			have = 0;
	}
	close(fd);
}

static const struct mod *mod_of(uintptr_t pc)
{
	for (unsigned i = 0; i < nmods; i++)
		if (pc >= mods[i].start && pc < mods[i].end)
			return &mods[i];
	return NULL;
}

/* ---- the handler ---- */

static void die_of(int sig)
{
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = SIG_DFL;
	sigemptyset(&sa.sa_mask);
	sigaction(sig, &sa, NULL);
	/* pending until the handler returns and the mask is restored; a fault not sent by
	 * anyone would also fault again on return */
	syscall(SYS_tgkill, getpid(), (pid_t)syscall(SYS_gettid), sig);
}

static void frame_line(struct line *l, unsigned n, unw_cursor_t *c, bool *remapped)
{
	unw_word_t ip = 0, off = 0;
	unw_get_reg(c, UNW_REG_IP, &ip);
	put(l, "cgwatch:   #");
	put_dec(l, n);
	put(l, " ");
	put_hex(l, ip, 16);
	char name[256];
	int r = unw_get_proc_name(c, name, sizeof(name), &off);
	if (r == 0 || r == -UNW_ENOMEM) {
		/* the name is the function's own when its symbol starts where the function's
		 * unwind info does; else it is only the nearest symbol before (a stripped binary
		 * or library keeps its exported symbols only), and said so */
		unw_proc_info_t pi;
		bool own = unw_get_proc_info(c, &pi) == 0 && pi.start_ip == ip - off;
		name[sizeof(name) - 1] = '\0';
		put(l, own ? " " : " ? (nearest symbol ");
		put(l, name);
		put(l, "+");
		put_hex(l, off, 0);
		if (!own)
			put(l, ")");
	} else {
		put(l, " ?");
	}
	/* a return address points past its call: its module is the one of the call */
	uintptr_t at = n > 0 && ip > 0 ? ip - 1 : ip;
	const struct mod *m = mod_of(at);
	if (!m && !*remapped) {
		*remapped = true;
		maps_read();
		m = mod_of(at);
	}
	if (m) {
		put(l, " (");
		put(l, mod_pool + m->path);
		put(l, "+");
		put_hex(l, ip - m->base, 0);
		put(l, ")");
	} else {
		put(l, " (module unknown)");
	}
}

static void on_fatal(int sig, siginfo_t *si, void *ucv)
{
	pid_t tid = (pid_t)syscall(SYS_gettid);
	pid_t prev = 0;
	if (!atomic_compare_exchange_strong(&crash_owner, &prev, tid)) {
		if (prev != tid) {
			/* another thread is reporting: give it time to finish and kill us all */
			struct timespec ts = { 0, 100 * 1000 * 1000 };
			for (int i = 0; i < 100; i++)
				nanosleep(&ts, NULL);
		}
		die_of(sig);
		return;
	}
	/* a stderr closed at the other end fails the writes (EPIPE) instead of killing the
	 * process with SIGPIPE before it dies of its own signal */
	struct sigaction ign;
	memset(&ign, 0, sizeof(ign));
	ign.sa_handler = SIG_IGN;
	sigemptyset(&ign.sa_mask);
	sigaction(SIGPIPE, &ign, NULL);
	struct line l = { .n = 0 };
	put(&l, "cgwatch: fatal signal ");
	put(&l, sig_name(sig));
	put(&l, " (");
	if (si->si_code <= 0) {               /* sent: kill, tgkill (abort), sigqueue */
		if (si->si_pid == getpid()) {
			put(&l, "sent by this process");
		} else {
			put(&l, "sent by process ");
			put_dec(&l, (unsigned long)si->si_pid);
			put(&l, ", uid ");
			put_dec(&l, (unsigned long)si->si_uid);
		}
	} else {
		put(&l, "address ");
		put_hex(&l, (unsigned long)(uintptr_t)si->si_addr, 0);
		const char *code = code_name(sig, si->si_code);
		put(&l, ", ");
		if (code) {
			put(&l, code);
		} else {
			put(&l, "code ");
			put_dec(&l, (unsigned long)si->si_code);
		}
	}
	char comm[17] = "";
	prctl(PR_GET_NAME, comm, 0, 0, 0);
	comm[16] = '\0';
	put(&l, ") in thread ");
	put_dec(&l, (unsigned long)tid);
	put(&l, " \"");
	put(&l, comm);
	put(&l, "\" of process ");
	put_dec(&l, (unsigned long)getpid());
	put(&l, "; backtrace:");
	emit(&l);
	if (crash_test_hook)
		crash_test_hook();

	unw_cursor_t c;
	unsigned n = 0;
	bool remapped = false;
	if (unw_init_local2(&c, (unw_context_t *)ucv, UNW_INIT_SIGNAL_FRAME) == 0) {
		for (;;) {
			frame_line(&l, n, &c, &remapped);
			emit(&l);
			n++;
			if (unw_step(&c) <= 0)
				break;
			if (n == MAX_FRAMES) {
				put(&l, "cgwatch:   (more frames not shown)");
				emit(&l);
				break;
			}
		}
	} else {
		put(&l, "cgwatch:   (no backtrace: libunwind cannot start from the signal's context)");
		emit(&l);
	}
	put(&l, "cgwatch: end of backtrace; dying of ");
	put(&l, sig_name(sig));
	emit(&l);
	die_of(sig);
}

/* ---- set-up ---- */

static void alt_free(void *p)
{
	stack_t off = { .ss_flags = SS_DISABLE };
	sigaltstack(&off, NULL);
	munmap(p, ALT_STACK + (size_t)sysconf(_SC_PAGESIZE));
}

void crash_thread_init(void)
{
	stack_t cur;
	if (sigaltstack(NULL, &cur) == 0 && !(cur.ss_flags & SS_DISABLE))
		return;                        /* has one */
	size_t page = (size_t)sysconf(_SC_PAGESIZE);
	char *p = mmap(NULL, ALT_STACK + page, PROT_READ | PROT_WRITE,
	               MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE, -1, 0);
	if (p == MAP_FAILED)
		return;                        /* the backtrace of a stack overflow is lost */
	mprotect(p, page, PROT_NONE);      /* the guard below it */
	stack_t ss = { .ss_sp = p + page, .ss_size = ALT_STACK, .ss_flags = 0 };
	if (sigaltstack(&ss, NULL) < 0) {
		munmap(p, ALT_STACK + page);
		return;
	}
	if (alt_key_ok)
		pthread_setspecific(alt_key, p);
}

/* libunwind's lazy set-up (and the PLT entries of what the handler calls) done now */
static void warm_up(void)
{
	unw_context_t uc;
	unw_cursor_t c;
	unw_word_t off;
	char name[64];
	if (unw_getcontext(&uc) == 0 && unw_init_local(&c, &uc) == 0) {
		unw_get_proc_name(&c, name, sizeof(name), &off);
		unw_step(&c);
	}
}

void crash_install(void)
{
	unw_set_caching_policy(unw_local_addr_space, UNW_CACHE_NONE);
	warm_up();
	maps_read();
	alt_key_ok = pthread_key_create(&alt_key, alt_free) == 0;
	crash_thread_init();
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sa.sa_sigaction = on_fatal;
	sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(fatal_sigs) / sizeof(fatal_sigs[0]); i++)
		sigaddset(&sa.sa_mask, fatal_sigs[i]);
	for (size_t i = 0; i < sizeof(fatal_sigs) / sizeof(fatal_sigs[0]); i++)
		sigaction(fatal_sigs[i], &sa, NULL);
}
#endif
