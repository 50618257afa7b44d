/* helper.h: what the test helpers share (the C files of tests/live, tests/live/rates and
 * tests/daemon): one printing function and one seccomp program. tests/live/build.sh
 * rebuilds every helper when this file changes. */
#ifndef CGW_TEST_HELPER_H
#define CGW_TEST_HELPER_H

#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stdarg.h>
#include <stddef.h>
#include <stdio.h>
#include <sys/syscall.h>
#include <unistd.h>

/* printf to stdout in one write(2), unbuffered (a parent reads it while we run); exit 111
 * when stdout is gone. */
__attribute__((format(printf, 1, 2), unused))
static void say(const char *fmt, ...)
{
	char buf[256];
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(buf, sizeof buf, fmt, ap);
	va_end(ap);
	if (n > 0 && write(STDOUT_FILENO, buf, (size_t)n) < 0)
		_exit(111);
}

#if defined(__x86_64__)
#define CGW_AUDIT_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define CGW_AUDIT_ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef CGW_AUDIT_ARCH
/* The seccomp program, in f, that ends perf_event_open with action and lets every other
 * call of this architecture through. */
enum { PERF_FILTER_LEN = 7 };
__attribute__((unused))
static void perf_filter(struct sock_filter f[PERF_FILTER_LEN], unsigned action)
{
	const struct sock_filter p[PERF_FILTER_LEN] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, CGW_AUDIT_ARCH, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, action),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	for (size_t i = 0; i < PERF_FILTER_LEN; i++)
		f[i] = p[i];
}
#endif

#endif
