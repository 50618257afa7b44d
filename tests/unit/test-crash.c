/* test-crash.c: cgwatch's own crashes leave a backtrace (crash.c). Each test runs this
 * program again (exec, so valgrind, which does not follow an exec, watches only the parent)
 * as a child that installs the handler and crashes on purpose; the child's stderr must name
 * the signal and the function that crashed, and the child must die of that signal. */
#include <dlfcn.h>
#include <fcntl.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>

#include "unit.h"

#if defined(__SANITIZE_ADDRESS__)
#define UNDER_ASAN 1
#elif defined(__has_feature)
#if __has_feature(address_sanitizer)
#define UNDER_ASAN 1
#endif
#endif
#ifndef UNDER_ASAN
#define UNDER_ASAN 0
#endif

/* ---- the child: crashes on purpose ---- */

void cgw_test_before(void);
void cgw_test_crash_here(void);
void cgw_test_abort_here(void);
unsigned cgw_test_recurse(unsigned n);

/* Just before cgw_test_crash_here: the one symbol a stripped copy keeps (test_stripped). */
static volatile int before_calls;
__attribute__((noinline)) void cgw_test_before(void)
{
	before_calls++;
}

/* A NULL dereference the compiler cannot see (a volatile pointer): a SIGSEGV, not a trap. */
__attribute__((noinline)) void cgw_test_crash_here(void)
{
	volatile int *volatile p = NULL;
	*p = 42;
}

__attribute__((noinline)) void cgw_test_abort_here(void)
{
	abort();
}

/* Overflows the stack: the handler can run only on its own signal stack. */
static volatile unsigned recurse_limit = ~0u;
__attribute__((noinline)) unsigned cgw_test_recurse(unsigned n)
{
	volatile char pad[512];
	pad[n % sizeof(pad)] = (char)n;
	if (n == recurse_limit)
		return 0;
	return cgw_test_recurse(n + 1) + pad[(n + 1) % sizeof(pad)];
}

static void fault_in_handler(void)
{
	cgw_test_crash_here();
}

static void *crash_thread_main(void *arg)
{
	(void)arg;
	crash_thread_init();
	cgw_test_crash_here();
	return NULL;
}

__attribute__((noinline)) static int child(const char *mode)
{
	crash_install();
	if (strcmp(mode, "segv") == 0)
		cgw_test_crash_here();
	else if (strcmp(mode, "abort") == 0)
		cgw_test_abort_here();
	else if (strcmp(mode, "overflow") == 0)
		return (int)cgw_test_recurse(0);
	else if (strcmp(mode, "nested") == 0) {
		crash_test_hook = fault_in_handler;
		cgw_test_crash_here();
	} else if (strcmp(mode, "stall") == 0) {
		/* stderr a pipe that nobody reads, full: a blocking write there never returns */
		int fl = fcntl(2, F_GETFL);
		fcntl(2, F_SETFL, fl | O_NONBLOCK);
		static const char junk[4096];
		while (write(2, junk, sizeof(junk)) > 0 || errno == EINTR)
			;
		fcntl(2, F_SETFL, fl);
		cgw_test_crash_here();
	} else if (strcmp(mode, "thread") == 0) {
		pthread_t t;
		if (pthread_create(&t, NULL, crash_thread_main, NULL) != 0)
			return 3;
		pthread_join(t, NULL);
	}
	return 0;                          /* not crashed: the parent fails */
}

/* ---- the parent ---- */

struct run { char err[65536]; size_t len; int status; };

static void self_path(char *self, size_t cap)
{
	ssize_t n = readlink("/proc/self/exe", self, cap - 1);
	assert_true(n > 0);
	self[n] = '\0';
}

/* Runs prog (this program, or a copy of it) as a child in mode (no core file), its stderr
 * into r->err (20 s at most). */
static void run_prog(const char *self, const char *mode, struct run *r)
{
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit nocore = { 0, 0 };
		setrlimit(RLIMIT_CORE, &nocore);
		/* under ASan+UBSan: UBSan's note on the NULL store, then ASan's SEGV report */
		setenv("UBSAN_OPTIONS", "halt_on_error=0", 1);
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		execl(self, self, "--child", mode, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	r->len = 0;
	struct timespec t0;
	clock_gettime(CLOCK_MONOTONIC, &t0);
	for (;;) {
		struct timespec t;
		clock_gettime(CLOCK_MONOTONIC, &t);
		long left = 20000 - ((t.tv_sec - t0.tv_sec) * 1000 + (t.tv_nsec - t0.tv_nsec) / 1000000);
		struct pollfd pf = { .fd = p[0], .events = POLLIN };
		if (left <= 0 || poll(&pf, 1, (int)left) <= 0) {
			kill(pid, SIGKILL);
			print_error("child %s: no end of its stderr within 20 s (killed)\n", mode);
			break;
		}
		ssize_t k = read(p[0], r->err + r->len, sizeof(r->err) - 1 - r->len);
		if (k <= 0)
			break;
		r->len += (size_t)k;
		if (r->len == sizeof(r->err) - 1)
			break;
	}
	r->err[r->len] = '\0';
	close(p[0]);
	assert_int_equal(waitpid(pid, &r->status, 0), pid);
	/* (cmocka cuts a long message: its first lines only, whole) */
	size_t show = r->len;
	if (show > 900) {
		show = 900;
		while (show > 0 && r->err[show - 1] != '\n')
			show--;
	}
	if (UNDER_ASAN)                    /* the suite reads sanitizer reports as failures */
		print_message("child %s: status 0x%x, stderr %zu bytes (not shown under ASan)\n",
		              mode, r->status, r->len);
	else
		print_message("child %s: status 0x%x, stderr (%zu bytes):\n%.*s%s", mode, r->status,
		              r->len, (int)show, r->err, show < r->len ? "...\n" : "");
}

static void run_child(const char *mode, struct run *r)
{
	char self[4096];
	self_path(self, sizeof(self));
	run_prog(self, mode, r);
}

/* Runs this program in mode with its stderr a pipe whose read end is closed at once
 * (closed) or is not read until the child is gone; its wait status, or -1 if it is still
 * there after 10 s (then killed). */
static int run_unread(const char *mode, bool closed)
{
	char self[4096];
	self_path(self, sizeof(self));
	int p[2];
	assert_int_equal(pipe(p), 0);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		struct rlimit nocore = { 0, 0 };
		setrlimit(RLIMIT_CORE, &nocore);
		signal(SIGPIPE, SIG_DFL);
		dup2(p[1], 2);
		close(p[0]);
		close(p[1]);
		execl(self, self, "--child", mode, (char *)NULL);
		_exit(127);
	}
	close(p[1]);
	if (closed)
		close(p[0]);
	int status = -1;
	for (int i = 0; i < 1000; i++) {
		if (waitpid(pid, &status, WNOHANG) == pid)
			break;
		status = -1;
		usleep(10000);
	}
	if (status == -1) {
		kill(pid, SIGKILL);
		waitpid(pid, NULL, 0);
	}
	if (!closed)
		close(p[0]);
	print_message("child %s (stderr %s): status 0x%x\n", mode,
	              closed ? "closed" : "not read", (unsigned)status);
	return status;
}

static void assert_died_of(const struct run *r, int sig)
{
	assert_true(WIFSIGNALED(r->status));
	assert_int_equal(WTERMSIG(r->status), sig);
}

static void assert_has(const struct run *r, const char *s)
{
	if (!strstr(r->err, s)) {
		print_error("stderr lacks \"%s\"\n", s);
		fail();
	}
}

/* a frame line "#N 0x... NAME+0x..." naming fn; the frame number, or -1 */
static int frame_of(const struct run *r, const char *fn)
{
	char want[256];
	snprintf(want, sizeof(want), " %s+0x", fn);
	for (const char *l = r->err; l && *l; l = strchr(l, '\n') ? strchr(l, '\n') + 1 : NULL) {
		const char *e = strchr(l, '\n');
		size_t len = e ? (size_t)(e - l) : strlen(l);
		char line[1024];
		snprintf(line, sizeof(line), "%.*s", (int)len, l);
		const char *h = strstr(line, "#");
		if (h && strstr(line, want) && strstr(line, " 0x") && strstr(line, "test-crash+0x"))
			return atoi(h + 1);
	}
	return -1;
}

static struct run the_run;

static void test_segv(void **state)
{
	(void)state;
	struct run *r = &the_run;
	run_child("segv", r);
	if (UNDER_ASAN) {                  /* ASan's own report, not ours */
		assert_has(r, "ERROR: AddressSanitizer: SEGV on unknown address");
		assert_null(strstr(r->err, "fatal signal"));
		return;
	}
	assert_died_of(r, SIGSEGV);
	assert_has(r, "cgwatch: fatal signal SIGSEGV (address 0x0, SEGV_MAPERR) in thread ");
	assert_int_equal(frame_of(r, "cgw_test_crash_here"), 0);   /* the faulting frame first */
	assert_int_equal(frame_of(r, "child"), 1);
	/* the module offset is the one addr2line takes: the function's address in the file
	 * (the same program here, as the parent sees it) plus the offset in the function */
	const char *f0 = strstr(r->err, " cgw_test_crash_here+0x");
	assert_non_null(f0);
	unsigned long in_fn = strtoul(f0 + strlen(" cgw_test_crash_here+0x"), NULL, 16);
	const char *mo = strstr(f0, "test-crash+0x");
	assert_non_null(mo);
	unsigned long in_mod = strtoul(mo + strlen("test-crash+0x"), NULL, 16);
	Dl_info di;
	assert_true(dladdr((void *)cgw_test_crash_here, &di) != 0);
	assert_int_equal(in_mod - in_fn, (uintptr_t)cgw_test_crash_here - (uintptr_t)di.dli_fbase);
	assert_has(r, "cgwatch: end of backtrace; dying of SIGSEGV\n");
}

static void test_abort(void **state)
{
	(void)state;
	if (UNDER_ASAN)
		skip();
	struct run *r = &the_run;
	run_child("abort", r);
	assert_died_of(r, SIGABRT);
	assert_has(r, "cgwatch: fatal signal SIGABRT (sent by this process) in thread ");
	assert_true(frame_of(r, "cgw_test_abort_here") > 0);
	assert_has(r, "cgwatch: end of backtrace; dying of SIGABRT\n");
}

/* Stripped of its symbols but one, cgw_test_before, just before the function that crashes:
 * module and offset (the same as unstripped), and the name of the symbol before, said to be
 * only the nearest, never given as the crashing function's own. */
static void test_stripped(void **state)
{
	(void)state;
	if (UNDER_ASAN)
		skip();
	if ((uintptr_t)cgw_test_before > (uintptr_t)cgw_test_crash_here)
		skip();                        /* laid out otherwise by this compiler */
	char self[4096], dir[] = "/tmp/test-crash.XXXXXX", copy[4200];
	self_path(self, sizeof(self));
	assert_non_null(mkdtemp(dir));
	snprintf(copy, sizeof(copy), "%s/stripped", dir);
	pid_t pid = fork();
	assert_true(pid >= 0);
	if (pid == 0) {
		execlp("strip", "strip", "-K", "cgw_test_before", "-o", copy, self, (char *)NULL);
		_exit(127);
	}
	int st;
	assert_int_equal(waitpid(pid, &st, 0), pid);
	if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
		rmdir(dir);
		skip();                        /* no strip(1) here */
	}
	struct run *r = &the_run;
	run_prog(copy, "segv", r);
	unlink(copy);
	rmdir(dir);
	assert_died_of(r, SIGSEGV);
	assert_null(strstr(r->err, "cgw_test_crash_here"));
	assert_null(strstr(r->err, " child+"));
	/* frame #0: "? (nearest symbol cgw_test_before+0xN) (COPY+0xOFF)", OFF the function's
	 * offset in the file plus a few bytes */
	assert_has(r, "#0 0x");
	assert_non_null(strstr(strstr(r->err, "#0 0x"), " ? (nearest symbol cgw_test_before+0x"));
	char want[4300];
	snprintf(want, sizeof(want), ") (%s+0x", copy);
	const char *f0 = strstr(r->err, "#0 0x");
	assert_non_null(f0);
	const char *m = strstr(f0, want);
	assert_non_null(m);
	assert_true(m < strchr(f0, '\n'));
	unsigned long off = strtoul(m + strlen(want), NULL, 16);
	Dl_info di;
	assert_true(dladdr((void *)cgw_test_crash_here, &di) != 0);
	unsigned long fn = (uintptr_t)cgw_test_crash_here - (uintptr_t)di.dli_fbase;
	assert_true(off > fn && off < fn + 64);
}

/* stderr closed at the other end: the report's writes fail (EPIPE), and the child still
 * dies of SIGSEGV, not of the SIGPIPE they would raise. */
static void test_stderr_closed(void **state)
{
	(void)state;
	if (UNDER_ASAN)
		skip();
	int st = run_unread("segv", true);
	assert_true(st != -1 && WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSEGV);
}

/* stderr full and never read (a journald that does not answer): the report gives up and the
 * child dies of SIGSEGV within seconds, not hung in write(2). */
static void test_stderr_stalled(void **state)
{
	(void)state;
	if (UNDER_ASAN)
		skip();
	int st = run_unread("stall", false);
	assert_true(st != -1);
	assert_true(WIFSIGNALED(st));
	assert_int_equal(WTERMSIG(st), SIGSEGV);
}

/* A crash in a second thread: that thread's stack, and its id, not the process's. */
static void test_thread(void **state)
{
	(void)state;
	if (UNDER_ASAN)
		skip();
	struct run *r = &the_run;
	run_child("thread", r);
	assert_died_of(r, SIGSEGV);
	assert_int_equal(frame_of(r, "cgw_test_crash_here"), 0);
	assert_true(frame_of(r, "crash_thread_main") > 0);
	assert_int_equal(frame_of(r, "main"), -1);        /* not the main thread's stack */
	const char *t = strstr(r->err, " in thread ");
	const char *p = strstr(r->err, " of process ");
	assert_non_null(t);
	assert_non_null(p);
	assert_true(atol(t + 11) > 0);
	assert_true(atol(p + 12) > 0);
	assert_true(atol(t + 11) != atol(p + 12));
}

/* A stack overflow: the handler runs on its signal stack and names the recursing function. */
static void test_overflow(void **state)
{
	(void)state;
	if (UNDER_ASAN)
		skip();
	struct run *r = &the_run;
	run_child("overflow", r);
	assert_died_of(r, SIGSEGV);
	assert_has(r, "cgwatch: fatal signal SIGSEGV (address 0x");
	assert_int_equal(frame_of(r, "cgw_test_recurse"), 0);
	assert_has(r, "more frames not shown");
}

/* A fault inside the handler: no loop, the process dies of the signal. */
static void test_nested(void **state)
{
	(void)state;
	if (UNDER_ASAN)
		skip();
	struct run *r = &the_run;
	run_child("nested", r);
	assert_died_of(r, SIGSEGV);
	assert_has(r, "cgwatch: fatal signal SIGSEGV");
	assert_null(strstr(r->err, "end of backtrace"));
	/* said once: the second fault did not enter the handler again */
	const char *first = strstr(r->err, "fatal signal");
	assert_null(strstr(first + 1, "fatal signal"));
}

int main(int argc, char **argv)
{
	if (argc == 3 && strcmp(argv[1], "--child") == 0)
		return child(argv[2]);
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_segv),
		cmocka_unit_test(test_abort),
		cmocka_unit_test(test_thread),
		cmocka_unit_test(test_stripped),
		cmocka_unit_test(test_overflow),
		cmocka_unit_test(test_nested),
		cmocka_unit_test(test_stderr_closed),
		cmocka_unit_test(test_stderr_stalled),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
