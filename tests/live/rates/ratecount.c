/* ratecount: count cgroup activity with cgwatch's rates module around a command.
 *
 *   ratecount [-n] [-w WINDOW_MS] [-t TIMEOUT_MS] [-- CMD ARGS...]
 *
 * -n: first install a seccomp filter that fails perf_event_open with EPERM, as the
 *     daemon's systemd unit does (SystemCallFilter=@system-service): the /proc fallback.
 *
 * Opens the counters (rates_open, live), runs CMD and waits for it, waits until WINDOW_MS
 * (default 0) have passed since the open, samples, closes, and prints one JSON object:
 * {"rates": <rates_json>, "cmd_exit": N, "open_ms", "sample_ms", "close_ms"}. Exit 0, or 1
 * when the sample failed; 2 on usage errors.
 *
 * Built by tests/live/churn.sh against the objects in build/obj (not by tests/live/build.sh, which
 * compiles each C file of tests/live on its own: hence this subdirectory). */
#include <errno.h>
#include <json-c/json.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "cgwatch.h"
#include "rates.h"
#include "../helper.h"

/* perf_event_open fails with EPERM from here on (this process and its children). */
static int deny_perf(void)
{
#ifdef CGW_AUDIT_ARCH
	struct sock_filter f[PERF_FILTER_LEN];
	perf_filter(f, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA));
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0)
		return -errno;
	return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0 ? -errno : 0;
#else
	return -ENOSYS;
#endif
}

static char msbuf[4][32];
static unsigned msk;
static const char *fmt_ms(uint64_t a, uint64_t b)
{
	char *s = msbuf[msk++ % 4];
	snprintf(s, 32, "%.3f", (double)(b - a) / 1000.0);
	return s;
}

int main(int argc, char **argv)
{
	unsigned window_ms = 0, timeout_ms = 2000;
	int o;
	while ((o = getopt(argc, argv, "nw:t:")) != -1) {
		if (o == 'n') {
			if (deny_perf() < 0) {
				perror("ratecount: seccomp");
				return 2;
			}
		} else if (o == 'w')
			window_ms = (unsigned)atoi(optarg);
		else if (o == 't')
			timeout_ms = (unsigned)atoi(optarg);
		else
			return 2;
	}
	uint64_t t0 = now_usec();
#define MS(a, b) json_object_new_double_s((double)((b) - (a)) / 1000.0, fmt_ms(a, b))
	struct cgw_rates_src *src = rates_open(true, timeout_ms);
	uint64_t t1 = now_usec();
	int cmd_exit = -1;
	if (optind < argc) {
		pid_t pid = fork();
		if (pid == 0) {
			execvp(argv[optind], argv + optind);
			_exit(127);
		}
		int st;
		if (pid > 0 && waitpid(pid, &st, 0) == pid)
			cmd_exit = WIFEXITED(st) ? WEXITSTATUS(st) : 128 + WTERMSIG(st);
	}
	rates_wait(src, window_ms);
	struct cgw_rates rt;
	uint64_t t2 = now_usec();
	int r = rates_sample(src, &rt);
	uint64_t t3 = now_usec();
	rates_close(src);
	uint64_t t4 = now_usec();
	json_object *j = json_object_new_object();
	json_object_object_add(j, "rates", rates_json(&rt));
	json_object_object_add(j, "sample_rc", json_object_new_int(r));
	json_object_object_add(j, "cmd_exit", json_object_new_int(cmd_exit));
	json_object_object_add(j, "open_ms", MS(t0, t1));
	json_object_object_add(j, "sample_ms", MS(t2, t3));
	json_object_object_add(j, "close_ms", MS(t3, t4));
	puts(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PRETTY |
	                                       JSON_C_TO_STRING_NOSLASHESCAPE));
	json_object_put(j);
	return r < 0;
}
