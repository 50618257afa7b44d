/* secrethold: a process whose stack holds secrets, blocked in stat(PATH), for
 * tests/live/bundlesecrets.sh.
 *
 *   secrethold PATH [ARG...]
 *
 * main -> outer -> hold(PATH): hold keeps "TOPSECRET-PID" in a local char array and stat()s
 * PATH (on a FUSE mount that never answers: it blocks in D). The ARGs are not used: they are
 * a command line that holds a secret (--password=...), as the environment may. The three are
 * frame-pointer code (CFA = rbp + 16), so the user-stack unwind stops at hold for want of
 * rbp and scans the stack above it for hold's frame record (linked to outer's, and outer's
 * to main's: a chain the scan can trust): the array, the callers' frames and the strings at
 * the stack's top (the arguments and the environment) are all in that scan's view. Prints
 * "blocked TID\n" before the call. Dies with its parent (PR_SET_PDEATHSIG). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <unistd.h>

#include "helper.h"

#define FP __attribute__((noinline, optimize("no-omit-frame-pointer")))

static FP int hold(const char *path)
{
	char secret[64];
	struct stat st;
	snprintf(secret, sizeof(secret), "TOP%s-%d", "SECRET", (int)getpid());
	say("blocked %d\n", (int)gettid());
	int r = stat(path, &st);
	__asm__ volatile("" : : "r"(secret) : "memory");   /* the array lives across the call */
	return r + secret[0];
}

static FP int outer(const char *path)
{
	int r = hold(path);
	__asm__ volatile("" : : : "memory");         /* not a tail call */
	return r;
}

FP int main(int argc, char **argv)
{
	if (prctl(PR_SET_PDEATHSIG, SIGKILL) < 0 || getppid() == 1)
		return 1;
	if (argc < 2) {
		fprintf(stderr, "usage: secrethold PATH [ARG...]\n");
		return 2;
	}
	return outer(argv[1]) == 0 ? 0 : 1;
}
