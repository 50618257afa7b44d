/* source-recorder.c: the flight recorder. A private tracefs instance (instances/cgwatch) keeps
 * the last minutes of the kernel events behind the shipped signatures in a bounded per-CPU
 * ring; the daemon reads them out when an incident opens. Only files under the instance are
 * written: the main buffer, its settings and other instances are never touched.
 *
 * Why the text `trace` file and not the raw per-CPU pages (libtracefs/libtraceevent): reading
 * trace_pipe_raw consumes the pages, so a second incident would not see what the first read;
 * `trace` is read without consuming, and its lines are merged across CPUs in time order. The
 * ring's clock is set to mono, so its times are CLOCK_MONOTONIC seconds, comparable with the
 * daemon's own.
 *
 * Events on a 6.18 kernel (checked): cgroup:cgroup_mkdir, cgroup_rmdir, cgroup_attach_task,
 * cgroup_rstat_lock_contended; cpuhp:cpuhp_enter, cpuhp_multi_enter, cpuhp_exit;
 * sched:sched_process_hang; workqueue:workqueue_queue_work filtered by its `workqueue` string
 * field, workqueue_execute_start (which has no workqueue field there) by its work function.
 * There is no cpuset tracepoint: a write to cpuset.mems is seen as an openat of a file named
 * cpuset.mems for writing (syscalls:sys_enter_openat, filtered on the user-space name).
 * sched_switch on the isolated CPUs (or those [recorder] sched_switch lists) is filtered in the
 * kernel to them (CPU & CPUS{LIST}) and recorded in a second instance, NAME-switch: a busy
 * CPU switches 250,000 times a second and would fill its 256 KiB in 15 ms (bench/recorder.sh
 * LOOP=switch), pushing the work and cgroup events recorded on that CPU out of a shared
 * ring; in a ring of its own it pushes out only older switches, and a readout keeps the
 * newest CGW_REC_SW_KEEP of each CPU.
 * Every access to tracefs runs under a deadline (dl_call): creating an instance and enabling
 * events take cpus_read_lock and event_mutex, which the hangs watched for can hold. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgwatch.h"

#define TRACEFS_DEFAULT "/sys/kernel/tracing"

/* Work items on these queues and in these functions are the ones the signatures name
 * (kernel/cgroup/cgroup-v1.c, kernel/cgroup/cpuset.c, mm/vmstat.c, mm/swap.c). */
static const char *const wq_terms[] = {
	"workqueue == \"cgroup_pidlist_destroy\"", "workqueue == \"cpuset_migrate_mm\"",
	"workqueue == \"mm_percpu_wq\"", NULL,
};
static const char *const fn_terms[] = {
	"function.function == cgroup_pidlist_destroy_work_fn",
	"function.function == cpuset_migrate_mm_workfn", "function.function == vmstat_update",
	"function.function == lru_add_drain_per_cpu", NULL,
};
/* alternatives, first accepted wins: flags & 3 is O_WRONLY or O_RDWR */
static const char *const mems_alts[] = {
	"filename.ustring ~ \"*cpuset.mems\" && flags & 3", "filename.ustring ~ \"*cpuset.mems\"",
	NULL,
};

enum filt_mode { F_NONE, F_ANY, F_FIRST };   /* no filter; the OR of those accepted; one of */
static const struct rec_event {
	const char *sys, *name;
	enum filt_mode mode;
	const char *const *terms;
	bool cpuset_opens;                    /* only with recorder_opts.cpuset_opens */
} rec_events[] = {
	{ "cgroup", "cgroup_mkdir", F_NONE, NULL, false },
	{ "cgroup", "cgroup_rmdir", F_NONE, NULL, false },
	{ "cgroup", "cgroup_attach_task", F_NONE, NULL, false },
	{ "cgroup", "cgroup_rstat_lock_contended", F_NONE, NULL, false },
	{ "cpuhp", "cpuhp_enter", F_NONE, NULL, false },
	{ "cpuhp", "cpuhp_multi_enter", F_NONE, NULL, false },
	{ "cpuhp", "cpuhp_exit", F_NONE, NULL, false },
	{ "sched", "sched_process_hang", F_NONE, NULL, false },
	{ "workqueue", "workqueue_queue_work", F_ANY, wq_terms, false },
	{ "workqueue", "workqueue_execute_start", F_ANY, fn_terms, false },
	{ "syscalls", "sys_enter_openat", F_FIRST, mems_alts, true },
};

static bool name_ok(const char *n)
{
	if (!*n || strlen(n) > 63 || !strcmp(n, ".") || !strcmp(n, ".."))
		return false;
	for (const char *p = n; *p; p++)
		if (!((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		      (*p >= '0' && *p <= '9') || *p == '_' || *p == '-' || *p == '.'))
			return false;
	return true;
}

static void add_word(char *buf, size_t cap, const char *sep, const char *fmt, const char *a,
                     const char *b, const char *c)
{
	size_t l = strlen(buf);
	if (l >= cap)
		return;
	snprintf(buf + l, cap - l, "%s", l ? sep : "");
	l = strlen(buf);
	snprintf(buf + l, cap - l, fmt, a, b, c);
}

/* The filter of e written to path; 0, or -errno of the last refusal. */
static int set_filter(const struct rec_event *e, const char *path)
{
	char f[1024] = "";
	int r = -EINVAL;
	if (e->mode == F_FIRST) {
		for (size_t i = 0; e->terms[i]; i++)
			if ((r = write_small_file(path, e->terms[i])) == 0)
				return 0;
		return r;
	}
	for (size_t i = 0; e->terms[i]; i++)
		add_word(f, sizeof(f), " || ", "%s%s%s", e->terms[i], "", "");
	if ((r = write_small_file(path, f)) == 0)
		return 0;
	/* one term refused (a function this kernel does not have): those accepted alone */
	f[0] = 0;
	for (size_t i = 0; e->terms[i]; i++) {
		int t = write_small_file(path, e->terms[i]);
		if (t == 0)
			add_word(f, sizeof(f), " || ", "%s%s%s", e->terms[i], "", "");
		else
			r = t;
	}
	return f[0] ? write_small_file(path, f) : r;
}

struct start_job {
	char tracefs[256], name[64], sw[256];
	unsigned buffer_kb;
	bool cpuset_opens;
	struct cgw_recorder r;
	int rc;
};

static void sw_missing(struct cgw_recorder *r, const char *why)
{
	add_word(r->missing, sizeof(r->missing), "; ", "%s:%s (%s)", "sched", "sched_switch", why);
}

/* sched_switch in instances/NAME-switch, filtered to the CPUs j->sw names; or none, and one
 * left by an earlier run removed. Said in r->enabled or r->missing. */
static void sw_start(struct start_job *j, struct cgw_recorder *r)
{
	char sw[600], p[700], why[160] = "";
	struct cgw_cpus c;
	memset(&c, 0, sizeof(c));
	snprintf(sw, sizeof(sw), "%s-switch", r->dir);
	if (!j->sw[0] || strcmp(j->sw, "no") == 0)
		snprintf(why, sizeof(why), "off: [recorder] sched_switch = no");
	else if (strcmp(j->sw, "auto") == 0) {
		if (topology_isolated_cpus(&c) < 0 || cpus_empty(&c))
			snprintf(why, sizeof(why), "off: no isolated or nohz_full CPUs");
	} else if (cpulist_parse(j->sw, &c) < 0 || cpus_empty(&c))
		snprintf(why, sizeof(why), "off: not a CPU list");
	if (why[0] || strlen(sw) >= sizeof(r->sw_dir)) {
		sw_missing(r, why[0] ? why : "instance name too long");
		rmdir(sw);                    /* one left by an earlier run */
		return;
	}
	cpulist_format(&c, r->sw_cpus, sizeof(r->sw_cpus));
	if (mkdir(sw, 0700) < 0 && (errno != EEXIST || rmdir(sw) < 0 || mkdir(sw, 0700) < 0)) {
		snprintf(why, sizeof(why), "instances/%s-switch: %s", j->name, strerror(errno));
		sw_missing(r, why);
		r->sw_cpus[0] = 0;
		return;
	}
	char num[32], filt[300];
	snprintf(num, sizeof(num), "%u", j->buffer_kb);
	snprintf(filt, sizeof(filt), "CPU & CPUS{%s}", r->sw_cpus);
	static const char *const steps[][2] = {
		{ "tracing_on", "0" }, { "buffer_size_kb", NULL }, { "trace_clock", "mono" },
		{ "events/sched/sched_switch/filter", NULL }, { "events/sched/sched_switch/enable", "1" },
		{ "tracing_on", "1" },
	};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		snprintf(p, sizeof(p), "%s/%s", sw, steps[i][0]);
		const char *v = steps[i][1] ? steps[i][1] : i == 1 ? num : filt;
		int e = write_small_file(p, v);
		if (e < 0) {
			snprintf(why, sizeof(why), "%s: %s", steps[i][0], e == -ENOENT ?
			         "not in this kernel" : strerror(-e));
			sw_missing(r, why);
			rmdir(sw);
			r->sw_cpus[0] = 0;
			return;
		}
	}
	memcpy(r->sw_dir, sw, strlen(sw) + 1);       /* fits: checked above */
	add_word(r->enabled, sizeof(r->enabled), " ", "%s:%s%s", "sched", "sched_switch", "");
}

static void start_fn(void *arg)
{
	struct start_job *j = arg;
	struct cgw_recorder *r = &j->r;
	char inst[400], p[600];
	struct stat st;
	snprintf(inst, sizeof(inst), "%s/instances", j->tracefs);
	if (stat(inst, &st) < 0) {
		j->rc = -errno;
		return;
	}
	snprintf(r->dir, sizeof(r->dir), "%s/%s", inst, j->name);
	if (mkdir(r->dir, 0700) < 0) {
		if (errno != EEXIST) {
			j->rc = -errno;
			r->dir[0] = 0;
			return;
		}
		/* left by a daemon that did not stop: its ring is stale, start afresh */
		if (rmdir(r->dir) < 0 || mkdir(r->dir, 0700) < 0) {
			j->rc = -errno;
			r->dir[0] = 0;
			return;
		}
	}
	int e;
	snprintf(p, sizeof(p), "%s/tracing_on", r->dir);
	if ((e = write_small_file(p, "0")) < 0)
		goto fail;
	char num[32];
	snprintf(num, sizeof(num), "%u", j->buffer_kb);
	snprintf(p, sizeof(p), "%s/buffer_size_kb", r->dir);
	if ((e = write_small_file(p, num)) < 0)
		goto fail;
	if (read_small_file(p, num, sizeof(num)) > 0)
		r->buffer_kb = (unsigned)strtoul(num, NULL, 10);
	snprintf(p, sizeof(p), "%s/trace_clock", r->dir);
	if ((e = write_small_file(p, "mono")) < 0)
		goto fail;
	for (size_t i = 0; i < sizeof(rec_events) / sizeof(rec_events[0]); i++) {
		const struct rec_event *ev = &rec_events[i];
		if (ev->cpuset_opens && !j->cpuset_opens) {
			add_word(r->missing, sizeof(r->missing), "; ", "%s:%s (%s)", ev->sys, ev->name,
			         "off: [recorder] cpuset_opens = no");
			continue;
		}
		snprintf(p, sizeof(p), "%s/events/%s/%s", r->dir, ev->sys, ev->name);
		if (stat(p, &st) < 0) {
			add_word(r->missing, sizeof(r->missing), "; ", "%s:%s (%s)", ev->sys,
			         ev->name, errno == ENOENT ? "not in this kernel" : strerror(errno));
			continue;
		}
		if (ev->mode != F_NONE) {
			snprintf(p, sizeof(p), "%s/events/%s/%s/filter", r->dir, ev->sys, ev->name);
			if ((e = set_filter(ev, p)) < 0) {
				char why[96];
				snprintf(why, sizeof(why), "filter refused: %s", strerror(-e));
				add_word(r->missing, sizeof(r->missing), "; ", "%s:%s (%s)", ev->sys,
				         ev->name, why);
				continue;
			}
		}
		snprintf(p, sizeof(p), "%s/events/%s/%s/enable", r->dir, ev->sys, ev->name);
		if ((e = write_small_file(p, "1")) < 0) {
			add_word(r->missing, sizeof(r->missing), "; ", "%s:%s (%s)", ev->sys, ev->name,
			         strerror(-e));
			continue;
		}
		add_word(r->enabled, sizeof(r->enabled), " ", "%s:%s%s", ev->sys, ev->name, "");
	}
	sw_start(j, r);
	snprintf(p, sizeof(p), "%s/tracing_on", r->dir);
	if ((e = write_small_file(p, "1")) < 0)
		goto fail;
	j->rc = 0;
	return;
fail:
	j->rc = e;
	snprintf(p, sizeof(p), "%s-switch", r->dir);
	if (rmdir(p) == 0 || errno == ENOENT)   /* ours, or one left behind */
		r->sw_dir[0] = 0;
	if (rmdir(r->dir) == 0)
		r->dir[0] = 0;
}

/* The instance's tracefs and name from o (their defaults when NULL) into a job's fields.
 * Returns 0, or -EINVAL: a name that is not one, a tracefs path too long. */
static int opts_names(const struct recorder_opts *o, char *tracefs, size_t tcap, char *name,
                      size_t ncap)
{
	const char *n = o->name ? o->name : CGW_RECORDER_NAME;
	const char *t = o->tracefs ? o->tracefs : TRACEFS_DEFAULT;
	if (!name_ok(n) || strlen(t) >= tcap)
		return -EINVAL;
	snprintf(tracefs, tcap, "%s", t);
	snprintf(name, ncap, "%s", n);
	return 0;
}

struct recorder_opts recorder_opts_of(const struct cgw_conf *c)
{
	return (struct recorder_opts){ .name = c->recorder_instance,
	                               .buffer_kb = (unsigned)c->recorder_buffer_kb,
	                               .cpuset_opens = c->recorder_cpuset_opens,
	                               .sched_switch = c->recorder_sched_switch,
	                               .timeout_ms = (unsigned)(c->read_timeout_s * 1000) };
}

int recorder_own(const struct recorder_opts *o, struct cgw_recorder *r)
{
	char tracefs[256], name[64], lock[80];
	memset(r, 0, sizeof(*r));
	r->own.fd = r->own.dfd = -1;
	if (opts_names(o, tracefs, sizeof(tracefs), name, sizeof(name)) < 0) {
		snprintf(r->own.why, sizeof(r->own.why), "not an instance name");
		return -EINVAL;
	}
	snprintf(lock, sizeof(lock), "recorder-%s", name);
	int e = owner_take(o->run_dir, lock, &r->own);
	if (e < 0)
		return e;
	snprintf(r->dir, sizeof(r->dir), "%s/instances/%s", tracefs, name);
	r->timeout_ms = o->timeout_ms;
	return 0;
}

void recorder_disown(struct cgw_recorder *r)
{
	owner_release(&r->own);
}

int recorder_start(const struct recorder_opts *o, struct cgw_recorder *r)
{
	memset(r, 0, sizeof(*r));
	struct start_job *j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	if (opts_names(o, j->tracefs, sizeof(j->tracefs), j->name, sizeof(j->name)) < 0) {
		free(j);
		return -EINVAL;
	}
	int rc = recorder_own(o, r);
	if (rc < 0) {
		r->dir[0] = 0;
		free(j);
		return rc;
	}
	struct cgw_owner own = r->own;
	j->buffer_kb = o->buffer_kb ? o->buffer_kb : 256;
	j->cpuset_opens = o->cpuset_opens;
	snprintf(j->sw, sizeof(j->sw), "%s", o->sched_switch ? o->sched_switch : "");
	rc = dl_call(start_fn, j, free, o->timeout_ms);
	if (rc < 0) {                      /* the job may still make it: unowned, then replaced */
		r->dir[0] = 0;
		owner_release(&own);
		r->own = own;
		return rc;
	}
	*r = j->r;
	r->own = own;
	r->timeout_ms = o->timeout_ms;
	rc = j->rc;
	free(j);
	if (rc < 0)                        /* not running: not owned (a reload takes it again) */
		owner_release(&r->own);
	return rc;
}

struct attach_job {
	char tracefs[256], name[64];
	struct cgw_recorder r;
	int rc;
};

static void attach_fn(void *arg)
{
	struct attach_job *j = arg;
	struct cgw_recorder *r = &j->r;
	char p[600], buf[64];
	snprintf(r->dir, sizeof(r->dir), "%s/instances/%s", j->tracefs, j->name);
	snprintf(p, sizeof(p), "%s/trace", r->dir);
	/* as open would check it: with this process's capabilities (access(2) drops them for a
	 * uid other than 0, and CAP_DAC_READ_SEARCH is what the unit gives) */
	if (faccessat(AT_FDCWD, p, R_OK, AT_EACCESS) < 0) {
		j->rc = -errno;
		r->dir[0] = 0;
		return;
	}
	snprintf(p, sizeof(p), "%s/buffer_size_kb", r->dir);
	if (read_small_file(p, buf, sizeof(buf)) > 0)
		r->buffer_kb = (unsigned)strtoul(buf, NULL, 10);
	for (size_t i = 0; i < sizeof(rec_events) / sizeof(rec_events[0]); i++) {
		const struct rec_event *ev = &rec_events[i];
		snprintf(p, sizeof(p), "%s/events/%s/%s/enable", r->dir, ev->sys, ev->name);
		ssize_t n = read_small_file(p, buf, sizeof(buf));
		if (n > 0 && buf[0] == '1')
			add_word(r->enabled, sizeof(r->enabled), " ", "%s:%s%s", ev->sys, ev->name, "");
		else
			add_word(r->missing, sizeof(r->missing), "; ", "%s:%s (%s)", ev->sys, ev->name,
			         n == -ENOENT ? "not in this kernel" : n < 0 ? strerror((int)-n) :
			         "not enabled in the instance");
	}
	char sw[520], f[320];
	snprintf(sw, sizeof(sw), "%s-switch", r->dir);
	snprintf(p, sizeof(p), "%s/trace", sw);
	if (strlen(sw) < sizeof(r->sw_dir) && faccessat(AT_FDCWD, p, R_OK, AT_EACCESS) == 0) {
		snprintf(p, sizeof(p), "%s/events/sched/sched_switch/filter", sw);
		ssize_t n = read_small_file(p, f, sizeof(f));
		const char *b = n > 0 ? strstr(f, "CPUS{") : NULL;
		memcpy(r->sw_dir, sw, strlen(sw) + 1);   /* fits: checked above */
		if (b)
			snprintf(r->sw_cpus, sizeof(r->sw_cpus), "%.*s", (int)strcspn(b + 5, "}"), b + 5);
		add_word(r->enabled, sizeof(r->enabled), " ", "%s:%s%s", "sched", "sched_switch", "");
	}
	j->rc = 0;
}

int recorder_attach(const struct recorder_opts *o, struct cgw_recorder *r)
{
	memset(r, 0, sizeof(*r));
	struct attach_job *j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	if (opts_names(o, j->tracefs, sizeof(j->tracefs), j->name, sizeof(j->name)) < 0) {
		free(j);
		return -EINVAL;
	}
	int rc = o->own ? recorder_own(o, r) : 0;
	if (rc < 0) {
		r->dir[0] = 0;
		free(j);
		return rc;
	}
	struct cgw_owner own = r->own;
	rc = dl_call(attach_fn, j, free, o->timeout_ms);
	if (rc == 0) {
		*r = j->r;
		rc = j->rc;
		free(j);
	} else {
		r->dir[0] = 0;
	}
	r->own = own;
	r->timeout_ms = o->timeout_ms;
	if (rc < 0)
		owner_release(&r->own);
	return rc;
}

#define REC_CHUNK (1u << 20)            /* the `trace` text is read and parsed this much at a time */

struct read_job {
	char path[700];
	double since;
	size_t keep;
	bool per_cpu;                      /* keep is per CPU */
	struct cgw_trace_events ev;
	uint64_t dropped;
	int err;
};

/* The text read a chunk at a time, each chunk's whole lines parsed and the events past keep
 * dropped (the oldest: the text is in time order) before the next is read: what is held is
 * bounded by the chunk and the events kept, not by the ring's size times the CPUs. */
static void read_fn(void *arg)
{
	struct read_job *j = arg;
	int fd = open(j->path, O_RDONLY | O_CLOEXEC);
	if (fd < 0) {
		j->err = -errno;
		return;
	}
	char *buf = malloc(REC_CHUNK);
	size_t have = 0;
	if (!buf) {
		j->err = -ENOMEM;
		close(fd);
		return;
	}
	for (;;) {
		ssize_t n = read(fd, buf + have, REC_CHUNK - have);
		if (n < 0 && errno == EINTR)
			continue;
		if (n < 0) {
			j->err = -errno;
			break;
		}
		have += (size_t)n;
		size_t upto = have;
		if (n > 0) {
			const char *nl = memrchr(buf, '\n', have);
			if (!nl) {
				if (have == REC_CHUNK) {      /* a line longer than a chunk: not an event */
					j->ev.bad++;
					have = 0;
				}
				continue;
			}
			upto = (size_t)(nl - buf) + 1;
		}
		if (trace_parse(buf, upto, j->since, &j->ev) < 0) {
			j->err = -ENOMEM;
			break;
		}
		if (j->keep)
			j->dropped += j->per_cpu ? trace_events_keep_last_per_cpu(&j->ev, j->keep) :
			              trace_events_keep_last(&j->ev, j->keep);
		memmove(buf, buf + upto, have - upto);
		have -= upto;
		if (n == 0)
			break;
	}
	free(buf);
	close(fd);
}

static void read_release(void *arg)
{
	struct read_job *j = arg;
	trace_events_free(&j->ev);
	free(j);
}

static int read_one(const struct cgw_recorder *r, const char *dir, double window_s, size_t keep,
                    bool per_cpu, struct cgw_trace_events *out, uint64_t *dropped)
{
	struct read_job *j = calloc(1, sizeof(*j));
	if (!j)
		return -ENOMEM;
	snprintf(j->path, sizeof(j->path), "%s/trace", dir);
	j->since = window_s < 0 ? -1 : now_usec() / 1e6 - window_s;
	j->keep = keep;
	j->per_cpu = per_cpu;
	int rc = dl_call(read_fn, j, read_release, r->timeout_ms);
	if (rc < 0)
		return rc;
	if (j->err) {
		rc = j->err;
		read_release(j);
		return rc;
	}
	/* the events move to out, after what it holds */
	if (!out->n) {
		free(out->v);
		out->v = j->ev.v;
		out->cap = j->ev.cap;
		out->n = j->ev.n;
		j->ev.v = NULL;
	} else if (j->ev.n) {
		if (out->cap < out->n + j->ev.n) {
			void *nv = try_reallocarray(out->v, out->n + j->ev.n, sizeof(*out->v));
			if (!nv) {
				read_release(j);
				return -ENOMEM;
			}
			out->v = nv;
			out->cap = out->n + j->ev.n;
		}
		memcpy(out->v + out->n, j->ev.v, j->ev.n * sizeof(*out->v));
		out->n += j->ev.n;
	}
	out->lost += j->ev.lost;
	out->bad += j->ev.bad;
	out->older += j->ev.older;
	if (dropped)
		*dropped = j->dropped;
	free(j->ev.v);
	free(j);
	return 0;
}

int recorder_read_keep(const struct cgw_recorder *r, double window_s, size_t keep,
                       struct cgw_trace_events *out, uint64_t *dropped)
{
	if (dropped)
		*dropped = 0;
	if (!r->dir[0])
		return -ENOENT;
	size_t base = out->n;
	int rc = read_one(r, r->dir, window_s, keep, false, out, dropped);
	if (rc < 0 || !r->sw_dir[0])
		return rc;
	size_t mid = out->n;
	uint64_t swd = 0;
	if ((rc = read_one(r, r->sw_dir, window_s, CGW_REC_SW_KEEP, true, out, &swd)) < 0)
		return rc;
	if (dropped)
		*dropped += swd;
	/* the two runs, each in time order, merged */
	size_t n = out->n - base;
	struct cgw_trace_event *m = n ? try_reallocarray(NULL, n, sizeof(*m)) : NULL;
	if (n && !m)
		return -ENOMEM;
	for (size_t a = base, b = mid, o = 0; o < n; o++)
		m[o] = b >= out->n || (a < mid && out->v[a].t <= out->v[b].t) ? out->v[a++] :
		       out->v[b++];
	if (n)
		memcpy(out->v + base, m, n * sizeof(*m));
	free(m);
	return 0;
}

int recorder_read(const struct cgw_recorder *r, double window_s, struct cgw_trace_events *out)
{
	return recorder_read_keep(r, window_s, 0, out, NULL);
}

struct stop_job {
	char dir[512];
	int rc;
};

static void stop_fn(void *arg)
{
	struct stop_job *j = arg;
	char p[600];
	snprintf(p, sizeof(p), "%s-switch", j->dir);
	if (rmdir(p) < 0 && errno != ENOENT) {
		snprintf(p, sizeof(p), "%s-switch/tracing_on", j->dir);
		write_small_file(p, "0");
	}
	if (rmdir(j->dir) == 0) {
		j->rc = 0;
		return;
	}
	j->rc = -errno;
	/* held open by a reader: at least stop recording until it is removed */
	snprintf(p, sizeof(p), "%s/tracing_on", j->dir);
	write_small_file(p, "0");
}

int recorder_stop(struct cgw_recorder *r)
{
	if (!r->dir[0]) {
		owner_release(&r->own);
		return 0;
	}
	struct stop_job *j = calloc(1, sizeof(*j));
	if (!j) {
		owner_release(&r->own);
		return -ENOMEM;
	}
	snprintf(j->dir, sizeof(j->dir), "%s", r->dir);
	int rc = dl_call(stop_fn, j, free, r->timeout_ms);
	if (rc == 0) {
		rc = j->rc;
		free(j);
	}
	if (rc == 0 || rc == -ENOENT)
		r->dir[0] = 0;
	owner_release(&r->own);
	return rc == -ENOENT ? 0 : rc;
}
