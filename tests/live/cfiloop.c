/* cfiloop: a task blocked in D under a function whose unwind info never terminates, for
 * tests/live/cfiloop.sh.
 *
 *   cfiloop loop PATH    main -> loop_stat -> stat(PATH); PATH is on a FUSE mount whose
 *                        server never answers, so the stat blocks in D in fuse_get_req
 *   cfiloop plain PATH   the same through plain_stat, its twin with sound unwind info (a
 *                        control: what an unwind of such a process costs)
 *   cfiloop fpe PATH     the same through fpe_stat, whose CFA expression divides INT64_MIN
 *                        by -1: an unwinder that evaluates it dies of SIGFPE
 *
 * loop_stat (x86-64 assembly) describes its frame with the CFA expression
 * DW_CFA_def_cfa_expression { DW_OP_skip -3 }: a skip back onto itself. An unwinder that
 * reaches loop_stat's frame (the return address of stat's call) evaluates that expression
 * without end and reads no memory while it does. plain_stat says CFA = rsp + 16 there.
 * Prints "blocked PID\n" before the call. Dies with its parent (PR_SET_PDEATHSIG). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helper.h"

#if defined(__x86_64__)
int loop_stat(const char *path, struct stat *st);
int plain_stat(const char *path, struct stat *st);
int fpe_stat(const char *path, struct stat *st);
/* entry: rsp = 8 mod 16; 8 more aligns the call. loop_stat's only rule after the sub is the
 * looping CFA expression (0x0f: def_cfa_expression, 3 bytes: 0x2f skip, -3 as s16) */
#define STAT_FN(name, cfa_rule)                                                             \
	__asm__(".text\n"                                                                   \
	        ".globl " #name "\n"                                                        \
	        ".type " #name ", @function\n" #name ":\n"                                  \
	        ".cfi_startproc\n"                                                          \
	        "\tsubq $8, %rsp\n" cfa_rule "\n"                                           \
	        "\tcall stat@PLT\n"                                                         \
	        "\taddq $8, %rsp\n"                                                         \
	        ".cfi_def_cfa_offset 8\n"                                                   \
	        "\tret\n"                                                                   \
	        ".cfi_endproc\n"                                                            \
	        ".size " #name ", .-" #name "\n");
STAT_FN(loop_stat, ".cfi_escape 0x0f, 0x03, 0x2f, 0xfd, 0xff")
STAT_FN(plain_stat, ".cfi_def_cfa_offset 16")
/* lit0 not lit1 shr not lit0 not div: INT64_MIN / -1, which traps (SIGFPE) in an unwinder
 * that divides as the CPU does (libunwind 1.6) */
STAT_FN(fpe_stat, ".cfi_escape 0x0f, 0x08, 0x30, 0x20, 0x31, 0x25, 0x20, 0x30, 0x20, 0x1b")
#endif

int main(int argc, char **argv)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() == 1)
		return 1;
	int loop = argc == 3 && !strcmp(argv[1], "loop"), fpe = argc == 3 && !strcmp(argv[1], "fpe");
	if (argc != 3 || (!loop && !fpe && strcmp(argv[1], "plain"))) {
		fprintf(stderr, "usage: cfiloop loop|fpe|plain PATH\n");
		return 2;
	}
#if defined(__x86_64__)
	struct stat st;
	say("blocked %ld\n", (long)getpid());
	return (loop ? loop_stat : fpe ? fpe_stat : plain_stat)(argv[2], &st) == 0 ? 0 : 3;
#else
	fprintf(stderr, "cfiloop: x86-64 only\n");
	return 4;
#endif
}
