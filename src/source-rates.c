/* source-rates.c: cgroup activity as counts and rates, and the correlators that use them.
 *
 * Counting: a perf event per tracepoint and online CPU (PERF_TYPE_TRACEPOINT, config = the id
 * in tracefs events/<sys>/<name>/id, pid -1, counting mode: no sampling, no ring buffer), the
 * events of one CPU in one group so that a sample is one read() per CPU. Work queued on the
 * three workqueues that matter is counted with a tracepoint filter on the `workqueue` string
 * field of workqueue_queue_work (PERF_EVENT_IOC_SET_FILTER), one event per workqueue. Where
 * perf or tracefs is not available (no permission, a seccomp filter, a kernel without them),
 * /proc/cgroups sampled at both ends of the window gives the net change of cgroups per
 * hierarchy and /proc/stat `processes` the forks; the report says which source it used.
 *
 * Measured on this 2-CPU 6.18.44 VM (11 events x 2 CPUs): opening 4.7 ms; one sample (a group
 * read per CPU, each an IPI to that CPU when the event is active there) 60 us; closing 0.3 s,
 * because the kernel waits for RCU grace periods when the last perf event of a tracepoint
 * goes (perf_trace_event_unreg -> tracepoint_synchronize_unregister, ~40 ms per tracepoint,
 * serialised under event_mutex: closing in parallel does not help).
 *
 * Everything that can block on the hang being diagnosed runs with the read deadline:
 * registering a tracepoint takes cpus_read_lock() (static keys), which a stuck CPU hotplug
 * or partition change holds; /proc/cgroups took cgroup_mutex before 5.16; closing waits for
 * RCU. A perf step that passes its deadline hands its fds to the abandoned helper thread
 * (deadline.c) and the counting goes on from /proc, with that fact in the notes. */
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <linux/perf_event.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <sys/mount.h>
#include <sys/syscall.h>
#include <time.h>
#include <unistd.h>

#include "cgwatch.h"
#include "rates.h"

/* each event's tracepoint (its name as reported: rates_ev_name, parse-rates.c) */
static const struct rates_def {
	const char *sys, *event;   /* tracefs events/<sys>/<event> */
	const char *wq;            /* filter on the workqueue name, or NULL */
} defs[RATE_NEV] = {
	[RATE_MKDIR] = { "cgroup", "cgroup_mkdir", NULL },
	[RATE_RMDIR] = { "cgroup", "cgroup_rmdir", NULL },
	[RATE_ATTACH] = { "cgroup", "cgroup_attach_task", NULL },
	[RATE_RSTAT_CONTENDED] = { "cgroup", "cgroup_rstat_lock_contended", NULL },
	[RATE_CPUHP_ENTER] = { "cpuhp", "cpuhp_enter", NULL },
	[RATE_WQ_ALL] = { "workqueue", "workqueue_queue_work", NULL },
	/* workqueue names as alloc_workqueue() gives them (kernel/cgroup/cgroup-v1.c,
	 * kernel/cgroup/cpuset.c, mm/backing-dev.c); they are also what kworker comms show */
	[RATE_WQ_PIDLIST] = { "workqueue", "workqueue_queue_work", "cgroup_pidlist_destroy" },
	[RATE_WQ_MIGRATE] = { "workqueue", "workqueue_queue_work", "cpuset_migrate_mm" },
	[RATE_WQ_PERCPU] = { "workqueue", "workqueue_queue_work", "mm_percpu_wq" },
	[RATE_HANG] = { "sched", "sched_process_hang", NULL },
	[RATE_FORK] = { "sched", "sched_process_fork", NULL },
};

/* ---------------------------------------------------------------------------------------
 * perf: the events, opened and read in the deadline's helper thread */

#define TRACEFS "/sys/kernel/tracing"
#define TRACEFS_DEBUG "/sys/kernel/debug/tracing"   /* older layout; debugfs automounts it */

struct perf_set {
	size_t ncpu;
	int *cpus;                  /* [ncpu] */
	int *fd;                    /* [ncpu * RATE_NEV], -1: not open */
	uint64_t *id;               /* perf id of each fd (PERF_EVENT_IOC_ID) */
	uint64_t *base;             /* value at the previous read */
	uint64_t delta[RATE_NEV];   /* the last read, summed over CPUs */
	unsigned long long tp[RATE_NEV];   /* tracepoint ids; 0: the event is missing */
	char why[RATE_NEV][256];           /* why an event is missing */
	char tracefs[64];
	char msg[256];              /* why perf is not usable, when err < 0 */
	int err;
	bool mounted;               /* we mounted tracefs */
	pthread_t caller;           /* the thread that owns the set while it is not abandoned */
};

static void perf_set_release(void *p)
{
	struct perf_set *ps = p;
	if (!ps)
		return;
	for (size_t i = 0; ps->fd && i < ps->ncpu * RATE_NEV; i++)
		if (ps->fd[i] >= 0)
			close(ps->fd[i]);
	free(ps->cpus);
	free(ps->fd);
	free(ps->id);
	free(ps->base);
	free(ps);
}

/* The release given to dl_call(). It runs in the caller's thread when dl_call() refuses to
 * start (too many stuck helpers, or stopping): the caller keeps the set then. In the helper
 * thread it runs only after the caller gave up waiting: the set is the helper's to free. */
static void perf_set_abandoned(void *p)
{
	struct perf_set *ps = p;
	if (!pthread_equal(pthread_self(), ps->caller))
		perf_set_release(ps);
}

static int perf_open_event(unsigned long long config, int cpu, int group)
{
	struct perf_event_attr a;
	memset(&a, 0, sizeof(a));
	a.size = sizeof(a);
	a.type = PERF_TYPE_TRACEPOINT;
	a.config = config;
	a.read_format = PERF_FORMAT_GROUP | PERF_FORMAT_ID;
	/* counting mode: no sample_period, no ring buffer; kernel events are what we count */
	long fd = syscall(SYS_perf_event_open, &a, -1, cpu, group, PERF_FLAG_FD_CLOEXEC);
	return fd < 0 ? -errno : (int)fd;
}

/* Find tracefs, mounting it at /sys/kernel/tracing when it is nowhere. Leaving it mounted is
 * the normal state of a host (systemd mounts it at boot, sys-kernel-tracing.mount), and
 * another tool may start using it at any time: cgwatch never unmounts it. */
/* Can we read dir/events? Opened, not probed: the kernel decides with our effective ids and
 * capabilities (access(2) would use the real uid and none: a DynamicUser with
 * CAP_DAC_READ_SEARCH is refused the 0700 tracefs by access, not by open). 0 or -errno. */
static int events_open(const char *dir)
{
	char path[160];
	snprintf(path, sizeof(path), "%s/events", dir);
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return -errno;
	close(fd);
	return 0;
}

static int tracefs_find(struct perf_set *ps)
{
	int e = -events_open(TRACEFS);
	if (e == 0) {
		snprintf(ps->tracefs, sizeof(ps->tracefs), "%s", TRACEFS);
		return 0;
	}
	if (events_open(TRACEFS_DEBUG) == 0) {
		snprintf(ps->tracefs, sizeof(ps->tracefs), "%s", TRACEFS_DEBUG);
		return 0;
	}
	if (e != ENOENT) {            /* mounted, but not for us (tracefs is 0700 root) */
		snprintf(ps->msg, sizeof(ps->msg), TRACEFS "/events: %s", strerror(e));
		return -e;
	}
	if (mount("tracefs", TRACEFS, "tracefs", MS_NOSUID | MS_NODEV | MS_NOEXEC | MS_RELATIME,
	          NULL) < 0) {
		e = errno;
		snprintf(ps->msg, sizeof(ps->msg), "tracefs is not mounted and mounting it at "
		         TRACEFS " failed: %s", strerror(e));
		return -e;
	}
	ps->mounted = true;
	snprintf(ps->tracefs, sizeof(ps->tracefs), "%s", TRACEFS);
	if ((e = -events_open(TRACEFS)) != 0) {
		snprintf(ps->msg, sizeof(ps->msg), "tracefs mounted at " TRACEFS " has no events "
		         "directory: %s", strerror(e));
		return -e;
	}
	return 0;
}

/* Tracepoint ids, and whether workqueue_queue_work can be filtered by workqueue name. */
static void tracepoints_read(struct perf_set *ps)
{
	char path[160], buf[8192];
	for (int e = 0; e < RATE_NEV; e++) {
		snprintf(path, sizeof(path), "%s/events/%s/%s/id", ps->tracefs, defs[e].sys,
		         defs[e].event);
		ssize_t r = read_small_file(path, buf, sizeof(buf));
		if (r == -ENOENT)
			snprintf(ps->why[e], sizeof(ps->why[e]), "no tracepoint %s:%s on this kernel "
			         "(no %s)", defs[e].sys, defs[e].event, path);
		else if (r < 0)
			snprintf(ps->why[e], sizeof(ps->why[e]), "%s: %s", path, strerror((int)-r));
		else if (parse_tracepoint_id(buf, &ps->tp[e]) < 0)
			snprintf(ps->why[e], sizeof(ps->why[e]), "%s: not a tracepoint id", path);
	}
	if (!ps->tp[RATE_WQ_ALL])
		return;
	snprintf(path, sizeof(path), "%s/events/workqueue/workqueue_queue_work/format",
	         ps->tracefs);
	const char *why = NULL;
	char whybuf[256];
	struct trace_field f[16];
	ssize_t r = read_small_file(path, buf, sizeof(buf));
	int nf = r < 0 ? (int)r : parse_trace_format(buf, f, 16);
	int k = 0;
	while (k < nf && strcmp(f[k].name, "workqueue") != 0)
		k++;
	if (r < 0) {
		snprintf(whybuf, sizeof(whybuf), "%s: %s", path, strerror((int)-r));
		why = whybuf;
	} else if (nf < 0 || k == nf) {
		snprintf(whybuf, sizeof(whybuf), "%s has no `workqueue` field to filter on", path);
		why = whybuf;
	} else if (!trace_field_is_string(&f[k])) {
		snprintf(whybuf, sizeof(whybuf), "the `workqueue` field of workqueue_queue_work "
		         "is `%s`, not the workqueue's name", f[k].type);
		why = whybuf;
	}
	for (int e = RATE_WQ_PIDLIST; why && e <= RATE_WQ_PERCPU; e++) {
		ps->tp[e] = 0;
		snprintf(ps->why[e], sizeof(ps->why[e]), "%s", why);
	}
}

static void event_drop(struct perf_set *ps, int e, const char *fmt, int cpu, int err)
{
	ps->tp[e] = 0;
	snprintf(ps->why[e], sizeof(ps->why[e]), fmt, cpu, strerror(err));
	for (size_t c = 0; c < ps->ncpu; c++) {
		int *fd = &ps->fd[c * RATE_NEV + (size_t)e];
		if (*fd >= 0)
			close(*fd);
		*fd = -1;
	}
}

static int group_leader(const struct perf_set *ps, size_t c)
{
	for (int e = 0; e < RATE_NEV; e++)
		if (ps->fd[c * RATE_NEV + (size_t)e] >= 0)
			return ps->fd[c * RATE_NEV + (size_t)e];
	return -1;
}

/* Open every counted event on CPU slot c (its group). Returns 0, or -errno when perf itself
 * refuses (permission, seccomp, no perf): then nothing can be counted. */
static int perf_open_cpu(struct perf_set *ps, size_t c)
{
	int cpu = ps->cpus[c];
	for (int e = 0; e < RATE_NEV; e++) {
		if (!ps->tp[e])
			continue;
		int leader = group_leader(ps, c);
		int fd = perf_open_event(ps->tp[e], cpu, leader);
		if (fd == -EACCES || fd == -EPERM || fd == -ENOSYS || fd == -EOPNOTSUPP) {
			snprintf(ps->msg, sizeof(ps->msg), "perf_event_open(PERF_TYPE_TRACEPOINT, CPU "
			         "%d): %s", cpu, strerror(-fd));
			return fd;
		}
		if (fd < 0) {
			event_drop(ps, e, "perf_event_open on CPU %d: %s", cpu, -fd);
			continue;
		}
		ps->fd[c * RATE_NEV + (size_t)e] = fd;
		if (defs[e].wq) {
			char filt[96];
			snprintf(filt, sizeof(filt), "workqueue == \"%s\"", defs[e].wq);
			if (ioctl(fd, PERF_EVENT_IOC_SET_FILTER, filt) < 0) {
				event_drop(ps, e, "the filter on the workqueue name was refused on CPU "
				           "%d: %s", cpu, errno);
				continue;
			}
		}
		if (ioctl(fd, PERF_EVENT_IOC_ID, &ps->id[c * RATE_NEV + (size_t)e]) < 0)
			event_drop(ps, e, "PERF_EVENT_IOC_ID on CPU %d: %s", cpu, errno);
	}
	return 0;
}

/* Read the group of CPU slot c: values by perf id. Returns 0 or -errno. */
static int perf_read_cpu(struct perf_set *ps, size_t c, uint64_t *vals)
{
	int leader = group_leader(ps, c);
	if (leader < 0)
		return 0;
	uint64_t buf[1 + 2 * RATE_NEV];
	ssize_t r = read(leader, buf, sizeof(buf));
	if (r < (ssize_t)sizeof(uint64_t))
		return r < 0 ? -errno : -EIO;
	uint64_t nr = buf[0];
	if (nr > RATE_NEV || (size_t)r < (1 + 2 * nr) * sizeof(uint64_t))
		return -EIO;
	for (int e = 0; e < RATE_NEV; e++) {
		size_t i = c * RATE_NEV + (size_t)e;
		if (ps->fd[i] < 0)
			continue;
		bool found = false;
		for (uint64_t k = 0; k < nr && !found; k++)
			if (buf[2 + 2 * k] == ps->id[i]) {
				vals[i] = buf[1 + 2 * k];
				found = true;
			}
		/* not in the group: its leader was dropped, which makes the siblings standalone */
		uint64_t one[3];
		if (!found && read(ps->fd[i], one, sizeof(one)) == (ssize_t)sizeof(one) &&
		    one[0] == 1 && one[2] == ps->id[i])
			vals[i] = one[1];
	}
	return 0;
}

/* Online CPUs from sysfs, as a list of numbers. Returns the count, or -errno. */
static int online_cpus(int **out)
{
	char buf[4096];
	ssize_t r = read_small_file("/sys/devices/system/cpu/online", buf, sizeof(buf));
	if (r < 0)
		return (int)r;
	buf[strcspn(buf, "\n")] = '\0';
	struct cgw_cpus *set = try_malloc(sizeof(*set));
	if (!set)
		return -ENOMEM;
	if (cpulist_parse(buf, set) < 0) {
		free(set);
		return -EINVAL;
	}
	int n = 0;
	for (unsigned c = 0; c < CGW_MAX_CPUS; c++)
		n += cpus_test(set, c);
	*out = try_reallocarray(NULL, n ? (size_t)n : 1, sizeof(int));
	if (!*out) {
		free(set);
		return -ENOMEM;
	}
	n = 0;
	for (unsigned c = 0; c < CGW_MAX_CPUS; c++)
		if (cpus_test(set, c))
			(*out)[n++] = (int)c;
	free(set);
	return n;
}

/* Grow the set to CPUs that came online since it was opened (their counts start now). */
static int perf_add_cpus(struct perf_set *ps, const int *cpus, int n)
{
	for (int k = 0; k < n; k++) {
		bool have = false;
		for (size_t c = 0; c < ps->ncpu && !have; c++)
			have = ps->cpus[c] == cpus[k];
		if (have)
			continue;
		size_t c = ps->ncpu;          /* each array grown first: one that is not leaves
		                               * the set as it was (the others only larger) */
		int *cp = try_reallocarray(ps->cpus, c + 1, sizeof(int));
		if (cp)
			ps->cpus = cp;
		int *fd = cp ? try_reallocarray(ps->fd, (c + 1) * RATE_NEV, sizeof(int)) : NULL;
		if (fd)
			ps->fd = fd;
		uint64_t *id = fd ? try_reallocarray(ps->id, (c + 1) * RATE_NEV, sizeof(uint64_t)) : NULL;
		if (id)
			ps->id = id;
		uint64_t *base = id ? try_reallocarray(ps->base, (c + 1) * RATE_NEV,
		                                       sizeof(uint64_t)) : NULL;
		if (!base) {
			snprintf(ps->msg, sizeof(ps->msg), "opening the counters of CPU %d: out of memory",
			         cpus[k]);
			return -ENOMEM;
		}
		ps->base = base;
		ps->ncpu++;
		ps->cpus[c] = cpus[k];
		for (int e = 0; e < RATE_NEV; e++) {
			ps->fd[c * RATE_NEV + (size_t)e] = -1;
			ps->id[c * RATE_NEV + (size_t)e] = 0;
			ps->base[c * RATE_NEV + (size_t)e] = 0;
		}
		int err = perf_open_cpu(ps, c);
		if (err < 0)
			return err;
		if (perf_read_cpu(ps, c, ps->base) < 0)   /* the baseline: counting starts here */
			for (int e = 0; e < RATE_NEV; e++)
				ps->base[c * RATE_NEV + (size_t)e] = 0;
	}
	return 0;
}

/* Job (helper thread): tracefs, ids, one group per online CPU, the baseline. */
static void job_open(void *p)
{
	struct perf_set *ps = p;
	int err = tracefs_find(ps);
	if (err < 0) {
		ps->err = err;
		return;
	}
	tracepoints_read(ps);
	bool any = false;
	for (int e = 0; e < RATE_NEV; e++)
		any |= ps->tp[e] != 0;
	if (!any) {
		/* one reason for all: usually "Permission denied" (the files are 0440 root) */
		snprintf(ps->msg, sizeof(ps->msg), "no tracepoint id could be read: %.200s",
		         ps->why[0]);
		ps->err = -ENOENT;
		return;
	}
	int *cpus;
	int n = online_cpus(&cpus);
	if (n <= 0) {
		snprintf(ps->msg, sizeof(ps->msg), "/sys/devices/system/cpu/online: %s",
		         n < 0 ? strerror(-n) : "no CPU");
		ps->err = n < 0 ? n : -ENOENT;
		return;
	}
	ps->err = perf_add_cpus(ps, cpus, n);
	free(cpus);
}

/* Job: read every group, the change since the previous read; open CPUs that came online. */
static void job_read(void *p)
{
	struct perf_set *ps = p;
	size_t total = ps->ncpu * RATE_NEV;
	uint64_t *vals = calloc(total ? total : 1, sizeof(uint64_t));
	if (!vals) {
		snprintf(ps->msg, sizeof(ps->msg), "reading the counters: out of memory");
		ps->err = -ENOMEM;
		return;
	}
	memcpy(vals, ps->base, total * sizeof(uint64_t));
	memset(ps->delta, 0, sizeof(ps->delta));
	ps->err = 0;
	for (size_t c = 0; c < ps->ncpu; c++) {
		int e = perf_read_cpu(ps, c, vals);
		if (e < 0) {
			snprintf(ps->msg, sizeof(ps->msg), "reading the counters of CPU %d: %s",
			         ps->cpus[c], strerror(-e));
			ps->err = e;
		}
	}
	for (size_t i = 0; i < total; i++)
		if (ps->fd[i] >= 0) {
			ps->delta[i % RATE_NEV] += vals[i] - ps->base[i];
			ps->base[i] = vals[i];
		}
	free(vals);
	int *cpus;
	int n = online_cpus(&cpus);
	if (n > 0) {
		if ((size_t)n != ps->ncpu || memcmp(cpus, ps->cpus, (size_t)n * sizeof(int)) != 0) {
			int e = perf_add_cpus(ps, cpus, n);
			if (e < 0 && ps->err == 0)
				ps->err = e;
		}
		free(cpus);
	}
}

/* Job: close the events (the last one of each tracepoint waits for RCU grace periods). */
static void job_close(void *p)
{
	struct perf_set *ps = p;
	for (size_t i = 0; i < ps->ncpu * RATE_NEV; i++)
		if (ps->fd[i] >= 0) {
			close(ps->fd[i]);
			ps->fd[i] = -1;
		}
}

/* ---------------------------------------------------------------------------------------
 * the source */

struct cgw_rates_src {
	bool live;
	unsigned timeout_ms;
	struct perf_set *ps;          /* NULL: not counting with perf */
	char notes[1024];
	char perf_why[256];           /* why events are not counted with perf */
	uint64_t last_usec;           /* the previous sample, or the open */
	struct rates_ctrl ctrl[RATES_MAX_CTRL];
	size_t nctrl;
	bool have_ctrl;
	unsigned long long processes;
	bool have_processes;
};

static void note(struct cgw_rates_src *s, const char *fmt, ...)
	__attribute__((format(printf, 2, 3)));
static void note(struct cgw_rates_src *s, const char *fmt, ...)
{
	size_t len = strlen(s->notes);
	if (len + 2 >= sizeof(s->notes))
		return;
	if (len)
		s->notes[len++] = '\n';
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(s->notes + len, sizeof(s->notes) - len, fmt, ap);
	va_end(ap);
}

/* Stop counting with perf (the set is gone: freed, or owned by a stuck helper thread). */
static void perf_lost(struct cgw_rates_src *s, const char *why)
{
	s->ps = NULL;
	snprintf(s->perf_why, sizeof(s->perf_why), "%s", why);
	note(s, "%s: counting from /proc/cgroups and /proc/stat instead", why);
}

static int dl_status(int e, char *buf, size_t cap, const char *what, const char *hint,
                     unsigned timeout_ms)
{
	if (e == -ETIMEDOUT)
		snprintf(buf, cap, "%s did not return within %u ms%s", what, timeout_ms, hint);
	else if (e == -ECANCELED)
		snprintf(buf, cap, "%s: cancelled (stopping)", what);
	else
		snprintf(buf, cap, "%s: not started, %u helper threads are stuck on earlier reads",
		         what, dl_stuck());
	return e;
}

static void proc_read(struct cgw_rates_src *s, struct cgw_rates *out, bool first);

/* Close a set with the deadline; on a deadline the helper thread finishes and frees it. */
static void perf_close(struct perf_set *ps, unsigned timeout_ms)
{
	int e = dl_call(job_close, ps, perf_set_abandoned, timeout_ms);
	if (e != -ETIMEDOUT)          /* closed, or not started (stopping): close here */
		perf_set_release(ps);
}

void rates_kernel(const struct cgw_rates_src *s, struct cgw_kernel *k)
{
	if (!s->live)
		kf_set(k, KF_COUNTERS, KFS_NOT_TRIED, "%s", s->perf_why);
	else if (s->ps)
		kf_set(k, KF_COUNTERS, KFS_USED, "perf_event_open on %zu tracepoints' counts",
		        (size_t)RATE_NEV);
	else
		kf_set(k, KF_COUNTERS, KFS_REFUSED, "%s: counting from /proc/cgroups and /proc/stat",
		       s->perf_why);
}

struct cgw_rates_src *rates_open(bool live, unsigned timeout_ms)
{
	struct cgw_rates_src *s = xcalloc(1, sizeof(*s));
	s->live = live;
	s->timeout_ms = timeout_ms;
	if (!live) {
		snprintf(s->perf_why, sizeof(s->perf_why), "this is a replayed tree (perf would "
		         "count the live host)");
		note(s, "replayed tree: /proc/cgroups, /proc/stat and /proc/uptime as captured; "
		     "counts, no rates");
		return s;
	}
	struct perf_set *ps = xcalloc(1, sizeof(*ps));
	ps->caller = pthread_self();
	uint64_t t0 = now_usec();
	int e = dl_call(job_open, ps, perf_set_abandoned, timeout_ms);
	if (e < 0) {
		char why[256];
		dl_status(e, why, sizeof(why), "opening the perf counters", " (registering a "
			  "tracepoint takes the CPU hotplug lock: a stuck hotplug or cpuset partition change "
			  "holds it)", timeout_ms);
		if (e != -ETIMEDOUT)          /* never started: nothing was opened, still ours */
			perf_set_release(ps);
		perf_lost(s, why);
	} else if (ps->err < 0) {
		if (ps->mounted)
			note(s, "tracefs was not mounted: mounted it at " TRACEFS " (left mounted, as "
			     "systemd does at boot)");
		perf_lost(s, ps->msg);
		perf_close(ps, timeout_ms);   /* events opened before perf refused: closing waits */
	} else {
		s->ps = ps;
		if (ps->mounted)
			note(s, "tracefs was not mounted: mounted it at " TRACEFS " (left mounted, as "
			     "systemd does at boot)");
		note(s, "counting tracepoints with perf_event_open on %zu CPUs (ids from %s/events; "
		     "opened in %.1f ms)", ps->ncpu, ps->tracefs, (double)(now_usec() - t0) / 1000.0);
	}
	struct cgw_rates tmp;
	memset(&tmp, 0, sizeof(tmp));
	proc_read(s, &tmp, true);                 /* the /proc baseline */
	s->last_usec = now_usec();
	return s;
}

int rates_wait(struct cgw_rates_src *s, unsigned window_ms)
{
	if (!s || !s->live)
		return 0;
	uint64_t until = s->last_usec + (uint64_t)window_ms * 1000u;
	for (;;) {
		if (cgw_stop_pending())
			return -ECANCELED;
		uint64_t now = now_usec();
		if (now >= until)
			return 0;
		uint64_t left = until - now;
		usleep((useconds_t)(left > 100000 ? 100000 : left));   /* a stop is seen in 0.1 s */
	}
}

/* /proc/cgroups (always), /proc/stat `processes` (when forks are not counted by perf, and
 * in a replay), /proc/uptime (a replay: the average fork rate since boot). */
static void proc_read(struct cgw_rates_src *s, struct cgw_rates *out, bool first)
{
	char *buf = malloc(512 * 1024);
	if (!buf) {                               /* this sample goes without; the next tries */
		snprintf(out->cgroups_err, sizeof(out->cgroups_err), "/proc/cgroups: %s",
		         strerror(ENOMEM));
		return;
	}
	ssize_t r = dl_read_file("/proc/cgroups", buf, 16384, s->timeout_ms);
	int n = r < 0 ? (int)r : parse_proc_cgroups(buf, out->ctrl, RATES_MAX_CTRL);
	if (n < 0) {
		snprintf(out->cgroups_err, sizeof(out->cgroups_err), "/proc/cgroups: %s",
		         r < 0 ? strerror((int)-r) : "not in the expected format");
	} else {
		out->nctrl = (size_t)n;
		for (size_t i = 0; i < out->nctrl; i++)
			for (size_t k = 0; s->have_ctrl && s->live && k < s->nctrl; k++)
				if (strcmp(s->ctrl[k].name, out->ctrl[i].name) == 0)
					out->ctrl[i].change = out->ctrl[i].num_cgroups - s->ctrl[k].num_cgroups;
		memcpy(s->ctrl, out->ctrl, out->nctrl * sizeof(out->ctrl[0]));
		s->nctrl = out->nctrl;
		s->have_ctrl = true;
	}
	bool perf_forks = s->ps && s->ps->tp[RATE_FORK];
	if (!perf_forks || !s->live) {
		/* /proc/stat is large on big hosts (the intr line): only when it is needed */
		r = dl_read_file("/proc/stat", buf, 512 * 1024, s->timeout_ms);
		unsigned long long p;
		int pe = r < 0 ? (int)r : parse_proc_stat_processes(buf, &p);
		if (pe == 0) {
			out->have_processes = true;
			out->processes = p;
			if (!first && s->live && s->have_processes) {
				out->forks.count = p >= s->processes ? p - s->processes : 0;
				snprintf(out->forks_from, sizeof(out->forks_from), "/proc/stat processes");
			}
			s->processes = p;
			s->have_processes = true;
		} else if (!first && s->live && !perf_forks) {
			out->forks.missing = true;
			snprintf(out->forks.why, sizeof(out->forks.why), "/proc/stat: %s",
			         r < 0 ? strerror((int)-r) : pe == -ENOENT ? "no processes line" :
			         "processes is not a count");
		}
		if (!first && s->live && !perf_forks && !out->forks_from[0] && !out->forks.missing) {
			/* perf stopped answering after the open: no /proc/stat baseline yet */
			out->forks.missing = true;
			snprintf(out->forks.why, sizeof(out->forks.why), "first /proc/stat reading: forks "
			         "are counted from the next sample on");
		}
	}
	if (!s->live) {
		r = dl_read_file("/proc/uptime", buf, 256, s->timeout_ms);
		if (r >= 0)
			parse_uptime(buf, &out->uptime_s);
	}
	free(buf);
}

int rates_sample(struct cgw_rates_src *s, struct cgw_rates *out)
{
	char unread[256] = "";                /* why the counters were not read this time */
	memset(out, 0, sizeof(*out));
	uint64_t now = now_usec();
	out->live = s->live;
	out->window_s = s->live ? (double)(now - s->last_usec) / 1e6 : 0;
	if (s->ps) {
		struct perf_set *ps = s->ps;
		int e = dl_call(job_read, ps, perf_set_abandoned, s->timeout_ms);
		if (e == -ETIMEDOUT) {            /* the helper owns the set now */
			char why[256];
			dl_status(e, why, sizeof(why), "reading the perf counters", "", s->timeout_ms);
			perf_lost(s, why);
		} else if (e < 0) {               /* not started: still ours, nothing read */
			dl_status(e, unread, sizeof(unread), "reading the perf counters", "",
			          s->timeout_ms);
		}
		if (s->ps && e == 0 && ps->err < 0 && !strstr(s->notes, ps->msg))
			/* a read failed, or a CPU that came online could not be opened: what was
			 * counted stays, and the report says what is missing (once) */
			note(s, "%s", ps->msg);
	}
	out->source = s->ps ? RATES_SRC_PERF : RATES_SRC_PROC;
	snprintf(out->notes, sizeof(out->notes), "%s", s->notes);
	for (int e = 0; e < RATE_NEV; e++) {
		struct rates_count *c = &out->ev[e];
		if (!s->ps || !s->ps->tp[e] || unread[0]) {
			c->missing = true;
			snprintf(c->why, sizeof(c->why), "%s", !s->ps ? s->perf_why :
			         unread[0] ? unread : s->ps->why[e]);
			continue;
		}
		c->count = s->ps->delta[e];
		c->per_s = rates_has_rate(out) ? (double)c->count / out->window_s : 0;
	}
	proc_read(s, out, false);
	if (s->ps && s->ps->tp[RATE_FORK] && !unread[0]) {
		out->forks = out->ev[RATE_FORK];
		snprintf(out->forks_from, sizeof(out->forks_from), "%s", rates_ev_name(RATE_FORK));
	} else if (out->forks_from[0]) {
		out->forks.per_s = rates_has_rate(out) ? (double)out->forks.count / out->window_s : 0;
	} else if (!out->forks.missing) {
		out->forks.missing = true;
		snprintf(out->forks.why, sizeof(out->forks.why), "%s", s->live ?
		         "/proc/stat processes could not be read" :
		         "a replay has no window (see processes since boot)");
	}
	s->last_usec = now;
	if (!s->ps && out->nctrl == 0 && !out->have_processes)
		return -ENOENT;
	return 0;
}

struct cgw_rates_src *rates_close(struct cgw_rates_src *s)
{
	if (!s)
		return NULL;
	if (s->ps)
		perf_close(s->ps, s->timeout_ms);
	free(s);
	return NULL;
}
