/* syscount: count the perf_event_open calls of a command, letting each one through.
 *
 *   syscount FILE CMD [ARGS...]
 *
 * Runs CMD (with every thread and child it makes) under a seccomp filter that hands each
 * perf_event_open to this process (SECCOMP_RET_USER_NOTIF), which counts it and lets it go
 * on unchanged (SECCOMP_USER_NOTIF_FLAG_CONTINUE, Linux 5.5): CMD behaves as it would
 * without the filter. When CMD exits, writes the count ("3\n") to FILE and exits with CMD's
 * status (128+N when a signal N ended it). Exits 125, writing nothing, when the filter
 * cannot be installed here (an old kernel, an unknown architecture).
 */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <poll.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#include "helper.h"

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: syscount FILE CMD [ARGS...]\n");
		return 2;
	}
#ifndef CGW_AUDIT_ARCH
	fprintf(stderr, "syscount: unknown architecture\n");
	return 125;
#else
	struct sock_filter f[PERF_FILTER_LEN];
	perf_filter(f, SECCOMP_RET_USER_NOTIF);
	struct sock_fprog prog = { .len = sizeof(f) / sizeof(f[0]), .filter = f };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0) {
		perror("syscount: PR_SET_NO_NEW_PRIVS");
		return 125;
	}
	/* this process is filtered too: it never calls perf_event_open itself */
	int listener = (int)syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER,
	                            SECCOMP_FILTER_FLAG_NEW_LISTENER, &prog);
	if (listener < 0) {
		perror("syscount: seccomp user notification");
		return 125;
	}
	pid_t pid = fork();
	if (pid < 0) {
		perror("syscount: fork");
		return 125;
	}
	if (pid == 0) {
		close(listener);
		execvp(argv[2], argv + 2);
		perror("syscount: exec");
		_exit(127);
	}
	unsigned long count = 0;
	int status = 0;
	for (;;) {
		struct pollfd p = { .fd = listener, .events = POLLIN };
		if (poll(&p, 1, 50) > 0 && (p.revents & POLLIN)) {
			struct seccomp_notif req;
			memset(&req, 0, sizeof(req));
			if (ioctl(listener, SECCOMP_IOCTL_NOTIF_RECV, &req) == 0) {
				count++;
				struct seccomp_notif_resp resp;
				memset(&resp, 0, sizeof(resp));
				resp.id = req.id;
				resp.flags = SECCOMP_USER_NOTIF_FLAG_CONTINUE;
				/* ENOENT: the caller is gone (killed while it waited) */
				if (ioctl(listener, SECCOMP_IOCTL_NOTIF_SEND, &resp) < 0 && errno != ENOENT)
					perror("syscount: SECCOMP_IOCTL_NOTIF_SEND");
			}
			continue;
		}
		pid_t w = waitpid(pid, &status, WNOHANG);
		if (w == pid)
			break;
		if (w < 0 && errno != EINTR) {
			perror("syscount: waitpid");
			return 125;
		}
	}
	FILE *out = fopen(argv[1], "w");
	if (!out || fprintf(out, "%lu\n", count) < 0 || fclose(out) != 0) {
		perror(argv[1]);
		return 125;
	}
	return WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
#endif
}
