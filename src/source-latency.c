/* source-latency.c: what a latency finding (diagnose-latency.c) reads of the tasks the
 * run-queue measurement named: their stat and cgroup (a task the scan did not keep: not in D
 * or R when it walked), and the kernel stacks of a CPU's runnable tasks, to find the readers
 * in an rstat flush. Each read with the deadline; a replayed tree's files are read in place
 * (source-root.c mounts it on /proc). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cgwatch.h"

#define LAT_STACK_BUF 16384

static unsigned timeout_of(void *ctx)
{
	return ctx ? *(const unsigned *)ctx : 2000;
}

static int lat_read_task(struct cgw_task *t, void *ctx)
{
	char path[96], buf[4096];
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", t->tgid, t->tid);
	ssize_t n = dl_read_file(path, buf, sizeof(buf), timeout_of(ctx));
	if (n < 0)
		return (int)n;
	struct cgw_stat st;
	if (parse_stat_buf(buf, (size_t)n, &st) < 0 || st.tid != t->tid)
		return -ESRCH;
	t->state = st.state;
	t->ppid = st.ppid;
	t->start_ticks = st.start_ticks;
	t->flags = st.flags;
	t->policy = st.policy;
	t->rt_priority = st.rt_priority;
	memcpy(t->comm, st.comm, sizeof(t->comm));
	t->comm_len = st.comm_len;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/cgroup", t->tgid, t->tid);
	n = dl_read_file(path, buf, sizeof(buf), timeout_of(ctx));
	if (n > 0)
		(void)parse_cgroup_buf(buf, NULL, NULL, 0, t->cgroup, sizeof(t->cgroup));
	return 0;
}

static int lat_read_stack(int tgid, int tid, struct cgw_frame **f, void *ctx)
{
	char path[96], *buf = malloc(LAT_STACK_BUF);
	if (!buf)
		return -ENOMEM;
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stack", tgid, tid);
	ssize_t n = dl_read_file(path, buf, LAT_STACK_BUF, timeout_of(ctx));
	int r = n < 0 ? (int)n : parse_stack_buf(buf, f);
	free(buf);
	return r;
}

static void lat_pause(void *ctx)
{
	(void)ctx;
	struct timespec ts = { 0, LAT_STACK_GAP_MS * 1000000L };
	nanosleep(&ts, NULL);
}

const struct lat_reader latency_proc_reader = { lat_read_task, lat_read_stack, lat_pause, NULL };
