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

#if defined(__x86_64__)
#define AUDIT_ARCH_HERE AUDIT_ARCH_X86_64
#elif defined(__aarch64__)
#define AUDIT_ARCH_HERE AUDIT_ARCH_AARCH64
#endif

int main(int argc, char **argv)
{
	if (argc < 3) {
		fprintf(stderr, "usage: syscount FILE CMD [ARGS...]\n");
		return 2;
	}
#ifndef AUDIT_ARCH_HERE
	fprintf(stderr, "syscount: unknown architecture\n");
	return 125;
#else
	struct sock_filter f[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_HERE, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_perf_event_open, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_USER_NOTIF),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
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
