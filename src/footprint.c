/* footprint.c: the daemon's own limits. Memory is locked (mlockall, MCL_FUTURE) only when
 * RLIMIT_MEMLOCK covers what the daemon needs: locked past the limit, any later mapping (a
 * thread's stack, a heap that grows, a large read buffer) fails. And the limits a unit asks
 * for that a container's service manager could not apply are named. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/resource.h>

#include "cgwatch.h"

/* Measured (docs/daemon.md): VmLck of a daemon with one malloc arena is 7.5 MiB on an idle
 * host, 7.7 MiB at 5,000 threads, 8.5 MiB with an incident open (the 512 KiB /proc/stat
 * buffers of the rates come and go). About three times that, and per host thread room for
 * its share of the scan's arrays, its fdcache entry and report text. */
#define NEED_BASE (24ull << 20)
#define NEED_PER_THREAD 2048ull
#define NEED_MAX (256ull << 20)

uint64_t memlock_need(uint64_t threads)
{
	if (threads > (NEED_MAX - NEED_BASE) / NEED_PER_THREAD)
		return NEED_MAX;
	return NEED_BASE + threads * NEED_PER_THREAD;
}

/* "8 MiB", "512 KiB": bytes rounded down to a unit that shows them */
static const char *bytes_text(uint64_t b, char *out, size_t cap)
{
	if (b >= (1ull << 20) && b % (1ull << 20) == 0)
		snprintf(out, cap, "%" PRIu64 " MiB", b >> 20);
	else if (b >= (16ull << 20))
		snprintf(out, cap, "%" PRIu64 " MiB", b >> 20);
	else
		snprintf(out, cap, "%" PRIu64 " KiB", b >> 10);
	return out;
}

bool memlock_decide(uint64_t limit, bool ipc_lock, uint64_t need, char *msg, size_t cap)
{
	char l[32], n[32];
	if (ipc_lock) {
		snprintf(msg, cap, "locking memory (mlockall): CAP_IPC_LOCK, RLIMIT_MEMLOCK does not "
		         "apply");
		return true;
	}
	if (limit == (uint64_t)RLIM_INFINITY) {
		snprintf(msg, cap, "locking memory (mlockall): RLIMIT_MEMLOCK unlimited");
		return true;
	}
	bytes_text(limit, l, sizeof(l));
	bytes_text(need, n, sizeof(n));
	if (limit >= need) {
		snprintf(msg, cap, "locking memory (mlockall): RLIMIT_MEMLOCK %s covers the %s the "
		         "daemon needs", l, n);
		return true;
	}
	snprintf(msg, cap, "not locking memory: RLIMIT_MEMLOCK %s is below the %s the daemon "
	         "needs (locked, its allocations would fail past the limit); under memory "
	         "pressure it may stall with the host", l, n);
	return false;
}

bool limits_check(long oom_adj, long want_oom_adj, uint64_t nofile, uint64_t want_nofile,
                  char *msg, size_t cap)
{
	msg[0] = '\0';
	size_t len = 0;
	if (oom_adj != want_oom_adj)
		len += (size_t)snprintf(msg, cap, "OOMScoreAdjust=%ld was not applied (oom_score_adj "
		                        "is %ld): the OOM killer may take the daemon with the host",
		                        want_oom_adj, oom_adj);
	if (nofile < want_nofile && len < cap)
		snprintf(msg + len, cap - len, "%sLimitNOFILE=%" PRIu64 " was not applied "
		         "(RLIMIT_NOFILE is %" PRIu64 "): past that many threads their stat files "
		         "are reopened every scan", len ? "; " : "", want_nofile, nofile);
	return msg[0] != '\0';
}
