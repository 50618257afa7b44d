/* nobpf: run a command where the bpf() system call fails with EPERM (a seccomp filter), as a
 * sandbox or a locked-down kernel refuses it; capabilities stay as they are. With --test-run,
 * only its BPF_PROG_TEST_RUN command fails (programs load, iterators read, but a syscall
 * program cannot be run: cgwatch's task walker, where its iter/task program still works).
 *
 *   nobpf [--test-run] COMMAND [ARG...]
 *
 * Sets no_new_privs (the filter needs it without CAP_SYS_ADMIN, and keeps it over exec). */
#define _GNU_SOURCE
#include <errno.h>
#include <linux/audit.h>
#include <linux/bpf.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <stddef.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

int main(int argc, char **argv)
{
	int test_run = argc > 1 && !strcmp(argv[1], "--test-run");
	argv += test_run;
	argc -= test_run;
	if (argc < 2) {
		fprintf(stderr, "usage: nobpf [--test-run] COMMAND [ARG...]\n");
		return 2;
	}
	struct sock_filter all[] = {
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_bpf, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_filter run[] = {          /* bpf(BPF_PROG_TEST_RUN, ...) only: its cmd, the
	                                         first argument's low 32 bits (little-endian) */
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, arch)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, AUDIT_ARCH_X86_64, 1, 0),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, __NR_bpf, 0, 3),
		BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
		BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, BPF_PROG_TEST_RUN, 0, 1),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA)),
		BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
	};
	struct sock_fprog prog = { sizeof(all) / sizeof(all[0]), all };
	if (test_run)
		prog = (struct sock_fprog){ sizeof(run) / sizeof(run[0]), run };
	if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) < 0 ||
	    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog) < 0) {
		perror("nobpf: seccomp");
		return 1;
	}
	execvp(argv[1], argv + 1);
	perror("nobpf: exec");
	return 127;
}
