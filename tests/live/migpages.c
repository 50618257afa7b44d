/* migpages: migrate_pages(2) of a process's memory from one NUMA node to another
 * (tests/vm/seed004.sh: the syscall's own LRU drain, lru_cache_disable in do_migrate_pages).
 *
 *   migpages PID FROM TO
 *
 * Prints "migrating PID" before the call and "left N" (pages not moved) after it; exit 1 when
 * the call fails. Dies with its parent (PR_SET_PDEATHSIG). */
#define _GNU_SOURCE
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include "helper.h"

int main(int argc, char **argv)
{
	if (argc != 4 || atoi(argv[1]) < 1 || atoi(argv[2]) < 0 || atoi(argv[2]) > 63 ||
	    atoi(argv[3]) < 0 || atoi(argv[3]) > 63) {
		fprintf(stderr, "usage: migpages PID FROM TO  (nodes 0..63)\n");
		return 2;
	}
	prctl(PR_SET_PDEATHSIG, SIGKILL);
	unsigned long from = 1UL << atoi(argv[2]), to = 1UL << atoi(argv[3]);
	say("migrating %d\n", atoi(argv[1]));
	long left = syscall(SYS_migrate_pages, atoi(argv[1]), 64UL, &from, &to);
	if (left < 0) {
		perror("migrate_pages");
		return 1;
	}
	say("left %ld\n", left);
	return 0;
}
