/* source-audit.c: the facts `cgwatch audit` tests its hazard rules on, read from /proc and /sys
 * (a replayed tree's, once root_enter ran) in one pass, read-only: the kernel's safety-net
 * sysctls, the CPU layout, the real-time threads and their share of the CPU, where cgwatch runs
 * and what it may read, the cgroup hierarchies and who holds their pid lists open. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgwatch.h"
#include "rates.h"

/* A spinner: at least this share of its CPU since it started (one snapshot), or over the
 * live window. The window is shorter than RT throttling's period (1 s): a spinner that
 * throttling (sched_rt_runtime_us 950000) and the fair server (50 ms a second) each stop
 * for 50 ms once a period still runs 150 ms of any 250 ms, but may run only 60 % of one. */
#define SPIN_SHARE_LIFE 0.9
#define SPIN_SHARE_WINDOW 0.5

static void fact_set(struct cgw_facts *f, enum haz_fact k, double v)
{
	f->v[k] = v;
	f->known[k] = true;
}

static void fact_unknown(struct cgw_facts *f, enum haz_fact k, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void fact_unknown(struct cgw_facts *f, enum haz_fact k, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(f->why[k], sizeof(f->why[k]), fmt, ap);
	va_end(ap);
	f->known[k] = false;
}

#define EV(f, k, ...) sb_printf(&(f)->ev[k], __VA_ARGS__)

/* A number file (one integer, optional newline): 0 and *out, or -errno / -EINVAL. */
static int read_long(const char *path, long *out)
{
	char buf[64];
	ssize_t n = read_small_file(path, buf, sizeof(buf));
	if (n < 0)
		return (int)n;
	char *end;
	errno = 0;
	long v = strtol(buf, &end, 10);
	if (end == buf || errno || (*end && *end != '\n'))
		return -EINVAL;
	*out = v;
	return 0;
}

/* A sysctl fact from /proc/sys/<path>, with its evidence line "name = v (file): meaning". */
static void sysctl_fact(struct cgw_facts *f, enum haz_fact k, const char *path,
                        const char *meaning_of_value)
{
	long v;
	int r = read_long(path, &v);
	if (r < 0) {
		fact_unknown(f, k, "%s: %s", path, r == -EINVAL ? "not a number" : strerror(-r));
		return;
	}
	fact_set(f, k, (double)v);
	EV(f, k, "%s = %ld (%s)%s%s\n", hazard_fact_name(k), v, path,
	   meaning_of_value ? ": " : "", meaning_of_value ? meaning_of_value : "");
}

static void safety_nets(struct cgw_facts *f)
{
	long t = 0, w = 0, p = 0;
	read_long("/proc/sys/kernel/hung_task_timeout_secs", &t);
	read_long("/proc/sys/kernel/hung_task_warnings", &w);
	read_long("/proc/sys/kernel/hung_task_panic", &p);
	sysctl_fact(f, HF_HUNG_TIMEOUT, "/proc/sys/kernel/hung_task_timeout_secs",
	            t == 0 ? "the kernel never reports a task blocked in D" : NULL);
	sysctl_fact(f, HF_HUNG_WARNINGS, "/proc/sys/kernel/hung_task_warnings",
	            w == 0 ? "the kernel prints no more hung-task reports until reboot (used up, "
	                     "or set to 0)" : NULL);
	sysctl_fact(f, HF_HUNG_PANIC, "/proc/sys/kernel/hung_task_panic",
	            p ? "a task blocked past the timeout panics the host" : NULL);
	sysctl_fact(f, HF_SOFTLOCKUP_PANIC, "/proc/sys/kernel/softlockup_panic", NULL);
	sysctl_fact(f, HF_WATCHDOG, "/proc/sys/kernel/watchdog", NULL);
	sysctl_fact(f, HF_SOFT_WATCHDOG, "/proc/sys/kernel/soft_watchdog", NULL);
	sysctl_fact(f, HF_RT_RUNTIME, "/proc/sys/kernel/sched_rt_runtime_us", NULL);
	const char *wq = "/sys/module/workqueue/parameters/watchdog_thresh";
	long v;
	int r = read_long(wq, &v);
	if (r == 0) {
		fact_set(f, HF_WQ_WATCHDOG, (double)v);
		EV(f, HF_WQ_WATCHDOG, "%s = %ld (%s)%s\n", hazard_fact_name(HF_WQ_WATCHDOG), v, wq,
		   v == 0 ? ": the workqueue watchdog is off" : "");
	} else {
		fact_unknown(f, HF_WQ_WATCHDOG, "%s: %s (no CONFIG_WQ_WATCHDOG?)", wq,
		             r == -EINVAL ? "not a number" : strerror(-r));
	}
}

/* ---- real-time threads ---- */

struct rt_thread {
	int tgid, tid, cpu;
	unsigned policy, prio;
	char state;
	char comm[CGW_COMM_MAX];
	double run_ms;                    /* CPU time at the first read (schedstat or sched) */
	double read_ms;                   /* CLOCK_MONOTONIC of that read */
	double share;                     /* of its CPU: over the window, or since it started */
	bool measured;
};


static const char *rt_policy_name(unsigned p)
{
	return p == 1 ? "SCHED_FIFO" : p == 2 ? "SCHED_RR" : "?";
}

/* CPU time of a thread, ms: /proc/TGID/task/TID/schedstat's first field (ns), else
 * se.sum_exec_runtime of its sched file. -1 when neither reads. */
static double thread_runtime(int procfd, int tgid, int tid)
{
	char path[96], buf[4096];
	snprintf(path, sizeof(path), "%d/task/%d/schedstat", tgid, tid);
	if (read_once_at(procfd, path, -1, buf, sizeof(buf)) > 0) {
		char *end;
		unsigned long long ns = strtoull(buf, &end, 10);
		if (end != buf && (*end == ' ' || *end == '\n'))
			return (double)ns / 1e6;
	}
	snprintf(path, sizeof(path), "%d/task/%d/sched", tgid, tid);
	struct cgw_sched sc;
	if (read_once_at(procfd, path, -1, buf, sizeof(buf)) > 0 && parse_sched_buf(buf, &sc) == 0)
		return sc.sum_exec_ms;
	return -1;
}

/* What the walk keeps. */
struct walk {
	struct rt_thread *rt; size_t nrt, caprt;
	int daemon_pid;                   /* a running `cgwatch run`, 0 when none */
	size_t threads;
	bool nomem;
	double uptime_s;
};

static bool is_daemon(int procfd, int pid)
{
	char path[64], buf[256];
	snprintf(path, sizeof(path), "%d/cmdline", pid);
	ssize_t n = read_once_at(procfd, path, -1, buf, sizeof(buf));
	if (n <= 0)
		return false;
	const char *arg0 = buf, *base = strrchr(arg0, '/');
	base = base ? base + 1 : arg0;
	size_t l0 = strlen(arg0);
	return strcmp(base, "cgwatch") == 0 && (ssize_t)l0 + 1 < n &&
	       strcmp(buf + l0 + 1, "run") == 0;
}

/* The directory open at dirfd, listed from its start through a dup (which shares dirfd's
 * offset, so it is rewound); dirfd stays open. NULL with errno set when it cannot be listed. */
static DIR *list_dir(int dirfd)
{
	int fd = dup(dirfd);
	DIR *d = fd >= 0 ? fdopendir(fd) : NULL;
	if (!d) {
		int e = errno;
		if (fd >= 0)
			close(fd);
		errno = e;
		return NULL;
	}
	rewinddir(d);
	return d;
}

/* Each subdirectory of the directory open at dirfd, opened and given to fn(its fd, the entry's
 * name, arg), then closed: with sub NULL every entry that is a directory (by d_type, or of no
 * known type) and whose name does not start with '.', not followed when a link; with sub, the
 * directory sub of every entry named by a process id (/proc's, e.g. "PID/task"). Entries that
 * cannot be opened are skipped. 0, or -errno when dirfd cannot be listed. */
static int each_subdir(int dirfd, const char *sub, void (*fn)(int fd, const char *name, void *arg),
                       void *arg)
{
	DIR *d = list_dir(dirfd);
	if (!d)
		return -errno;
	struct dirent *de;
	char path[96];
	while ((de = readdir(d))) {
		int c;
		if (sub) {
			char *end;
			long pid = strtol(de->d_name, &end, 10);
			if (*end || pid <= 0)
				continue;
			snprintf(path, sizeof(path), "%ld/%s", pid, sub);
			c = openat(dirfd, path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		} else {
			if (de->d_name[0] == '.' || (de->d_type != DT_DIR && de->d_type != DT_UNKNOWN))
				continue;
			c = openat(dirfd, de->d_name, O_RDONLY | O_DIRECTORY | O_CLOEXEC | O_NOFOLLOW);
		}
		if (c < 0)
			continue;
		fn(c, de->d_name, arg);
		close(c);
	}
	closedir(d);
	return 0;
}

struct proc_walk { int procfd; struct walk *w; bool live; };

/* each_subdir's fn for /proc/PID/task (at tfd): every thread of process name. */
static void walk_threads(int tfd, const char *name, void *arg)
{
	const struct proc_walk *p = arg;
	struct walk *w = p->w;
	long pid = strtol(name, NULL, 10);
	DIR *td = list_dir(tfd);
	if (!td)
		return;
	struct dirent *te;
	char path[96], buf[1024];
	while ((te = readdir(td))) {
		char *end;
		long tid = strtol(te->d_name, &end, 10);
		if (*end || tid <= 0)
			continue;
		snprintf(path, sizeof(path), "%ld/stat", tid);
		ssize_t n = read_once_at(tfd, path, -1, buf, sizeof(buf));
		struct cgw_stat st;
		if (n <= 0 || parse_stat_buf(buf, (size_t)n, &st) < 0)
			continue;
		w->threads++;
		if (tid == pid && !w->daemon_pid && st.comm_len == 7 &&
		    memcmp(st.comm, "cgwatch", 7) == 0 && is_daemon(p->procfd, (int)pid) &&
		    (!p->live || pid != getpid()))
			w->daemon_pid = (int)pid;
		if (st.policy != 1 && st.policy != 2)
			continue;
		if (grow((void **)&w->rt, &w->caprt, w->nrt, 16, sizeof(*w->rt)) < 0) {
			w->nomem = true;
			continue;
		}
		struct rt_thread *r = &w->rt[w->nrt++];
		memset(r, 0, sizeof(*r));
		r->tgid = (int)pid;
		r->tid = (int)tid;
		r->cpu = st.cpu;
		r->policy = st.policy;
		r->prio = st.rt_priority;
		r->state = st.state;
		snprintf(r->comm, sizeof(r->comm), "%.*s", (int)st.comm_len, st.comm);
		r->run_ms = thread_runtime(p->procfd, (int)pid, (int)tid);
		r->read_ms = mono_ms();
		if (!p->live && r->run_ms >= 0 && w->uptime_s > 0) {
			/* one snapshot: the share since the thread started */
			double age = w->uptime_s - (double)st.start_ticks / 100.0;
			if (age > 1) {
				r->share = r->run_ms / 1000.0 / age;
				r->measured = true;
			}
		}
	}
	closedir(td);
}

static int walk_proc(int procfd, struct walk *w, bool live)
{
	struct proc_walk p = { procfd, w, live };
	return each_subdir(procfd, "task", walk_threads, &p);
}

static const char *cpu_kind(const struct cgw_topology *t, int cpu, char *out, size_t cap)
{
	bool iso = cpus_test(&t->isolated, (unsigned)cpu), nz = cpus_test(&t->nohz_full, (unsigned)cpu);
	snprintf(out, cap, "%s", iso && nz ? "isolated, nohz_full" : iso ? "isolated" :
	                         nz ? "nohz_full" : "housekeeping");
	return out;
}

/* The fair server of cpu (debugfs sched/fair_server/cpuN): one evidence line. */
static void fair_server_line(struct cgw_facts *f, int cpu)
{
	char p1[96], p2[96];
	long rt = 0, per = 0;
	snprintf(p1, sizeof(p1), "/sys/kernel/debug/sched/fair_server/cpu%d/runtime", cpu);
	snprintf(p2, sizeof(p2), "/sys/kernel/debug/sched/fair_server/cpu%d/period", cpu);
	int r = read_long(p1, &rt);
	if (r == 0)
		r = read_long(p2, &per);
	if (r == 0 && per > 0)
		EV(f, HF_RT_SPINNERS, "CPU %d: fair server %ld ns every %ld ns (%.0f %% for "
		   "SCHED_OTHER threads, %s)\n", cpu, rt, per, 100.0 * (double)rt / (double)per, p1);
	else
		EV(f, HF_RT_SPINNERS, "CPU %d: the fair server's settings are not readable here "
		   "(%s: %s)\n", cpu, p1, r == -ENOENT ? "no such file: debugfs not mounted, or a "
		   "kernel without it" : r < 0 ? strerror(-r) : "period 0");
}

/* By CPU, the highest priority first: the evidence reads CPU by CPU. */
static int rt_cmp(const void *a, const void *b)
{
	const struct rt_thread *x = a, *y = b;
	if (x->cpu != y->cpu)
		return x->cpu < y->cpu ? -1 : 1;
	if (x->prio != y->prio)
		return x->prio > y->prio ? -1 : 1;
	return x->tid < y->tid ? -1 : x->tid > y->tid;
}

static void rt_facts(struct cgw_facts *f, struct walk *w, int procfd, const struct cgw_topology *t,
                     const struct audit_opts *o)
{
	if (f->live) {
		/* The share over a short window, of the threads running (R) at the first read: a
		 * spinner runs. One asleep then is no spinner (share 0), and a host whose real-time
		 * threads all sleep (the kernel's migration/N, watchdogs) is not waited for. */
		double last = -1;
		for (size_t i = 0; i < w->nrt; i++) {
			struct rt_thread *r = &w->rt[i];
			r->measured = true;       /* share 0 unless sampled below */
			if (r->state == 'R' && r->run_ms >= 0 && r->read_ms > last)
				last = r->read_ms;
		}
		if (last >= 0) {              /* each sampled thread gets the whole window */
			double wait = last + o->window_ms - mono_ms();
			if (wait > 0) {
				struct timespec ts = { (time_t)(wait / 1000),
				                       (long)(fmod(wait, 1000) * 1e6) };
				nanosleep(&ts, NULL);
			}
			f->window_s = o->window_ms / 1000.0;
		}
		char path[96], buf[1024];
		for (size_t i = 0; i < w->nrt && last >= 0; i++) {
			struct rt_thread *r = &w->rt[i];
			if (r->state != 'R' || r->run_ms < 0)
				continue;
			double now = thread_runtime(procfd, r->tgid, r->tid);
			double dt = mono_ms() - r->read_ms;
			if (now < 0 || dt <= 0) {
				r->measured = false;
				continue;
			}
			r->share = (now - r->run_ms) / dt;
			snprintf(path, sizeof(path), "%d/task/%d/stat", r->tgid, r->tid);
			struct cgw_stat st;
			ssize_t n = read_once_at(procfd, path, -1, buf, sizeof(buf));
			if (n > 0 && parse_stat_buf(buf, (size_t)n, &st) == 0) {
				r->cpu = st.cpu;
				r->state = st.state;
			}
		}
	}
	if (w->nrt > 1)
		qsort(w->rt, w->nrt, sizeof(*w->rt), rt_cmp);
	size_t spinners = 0, isolated = 0;
	struct cgw_cpus *seen = try_calloc(1, sizeof(*seen));
	for (size_t i = 0; i < w->nrt; i++) {
		struct rt_thread *r = &w->rt[i];
		/* in one snapshot a spinner is running there (R) and has used its CPU since it
		 * started; live, it used the window */
		if (!r->measured || r->share < (f->live ? SPIN_SHARE_WINDOW : SPIN_SHARE_LIFE) ||
		    (!f->live && r->state != 'R'))
			continue;
		spinners++;
		struct audit_spinner *sp = realloc(f->spin, (f->nspin + 1) * sizeof(*sp));
		if (sp) {
			f->spin = sp;
			sp += f->nspin++;
			sp->cpu = r->cpu;
			sp->tid = r->tid;
			sp->policy = r->policy;
			sp->prio = r->prio;
			memcpy(sp->comm, r->comm, sizeof(sp->comm));
		}
		char kind[40];
		cpu_kind(t, r->cpu, kind, sizeof(kind));
		if (strcmp(kind, "housekeeping"))
			isolated++;
		if (f->live)
			EV(f, HF_RT_SPINNERS, "CPU %d (%s): %d (%s) %s/%u used %.0f %% of the CPU over "
			   "%.2f s\n", r->cpu, kind, r->tid, r->comm, rt_policy_name(r->policy), r->prio,
			   100.0 * (r->share > 1 ? 1 : r->share), f->window_s);
		else
			EV(f, HF_RT_SPINNERS, "CPU %d (%s): %d (%s) %s/%u is running there and used "
			   "%.0f %% of a CPU since it started (one snapshot: no window)\n", r->cpu, kind,
			   r->tid, r->comm, rt_policy_name(r->policy), r->prio,
			   100.0 * (r->share > 1 ? 1 : r->share));
		/* lower-priority RT threads on that CPU: nothing gives them CPU time */
		for (size_t j = 0; j < w->nrt; j++) {
			struct rt_thread *l = &w->rt[j];
			if (j != i && l->cpu == r->cpu && l->prio < r->prio && l->state == 'R')
				EV(f, HF_RT_SPINNERS, "CPU %d: %d (%s) %s/%u is runnable there below it: "
				   "neither RT throttling nor the fair server gives it CPU time\n", l->cpu,
				   l->tid, l->comm, rt_policy_name(l->policy), l->prio);
		}
		if (seen && r->cpu >= 0 && !cpus_test(seen, (unsigned)r->cpu)) {
			cpus_set(seen, (unsigned)r->cpu);
			if (spinners == 1)    /* the first spinner's CPU: the default is the same */
				fair_server_line(f, r->cpu);
		}
	}
	free(seen);
	if (w->nomem) {
		fact_unknown(f, HF_RT_SPINNERS, "no memory for the real-time threads");
		fact_unknown(f, HF_RT_SPINNERS_ISOLATED, "no memory for the real-time threads");
		return;
	}
	fact_set(f, HF_RT_SPINNERS, (double)spinners);
	fact_set(f, HF_RT_SPINNERS_ISOLATED, (double)isolated);
	if (!f->live && w->nrt && !spinners)
		EV(f, HF_RT_SPINNERS, "one snapshot: %zu real-time threads, none running with most "
		   "of a CPU since it started\n", w->nrt);
}

/* ---- cgwatch itself: the daemon's process when one runs, else its unit, else this one ---- */

static const char *const unit_dirs[] = { "/etc/systemd/system", "/run/systemd/system",
	"/usr/local/lib/systemd/system", "/lib/systemd/system", "/usr/lib/systemd/system", NULL };

static int name_cmp(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* Apply one file to u; its name to files. */
static void unit_file(const char *path, struct unit_cpus *u, struct strbuf *files)
{
	char *text = try_malloc(1 << 16);
	ssize_t n = text ? read_small_file(path, text, 1 << 16) : -ENOMEM;
	if (n >= 0) {
		parse_unit_cpus(text, (size_t)n, u);
		sb_printf(files, "%s%s", files->len ? ", " : "", path);
	}
	free(text);
}

/* cgwatch.service as systemd would read it: the first unit file of the search path, then the
 * drop-ins (*.conf of cgwatch.service.d in those directories, by name; a name in an earlier
 * directory hides the same name in a later one). Returns false when there is no unit file. */
static bool unit_read(struct unit_cpus *u, struct strbuf *files)
{
	char path[512];
	bool found = false;
	for (const char *const *d = unit_dirs; *d && !found; d++) {
		snprintf(path, sizeof(path), "%s/cgwatch.service", *d);
		if (access(path, R_OK) == 0) {
			unit_file(path, u, files);
			found = true;
		}
	}
	if (!found)
		return false;
	char *names[64], *paths[64];
	size_t n = 0;
	for (const char *const *d = unit_dirs; *d; d++) {
		snprintf(path, sizeof(path), "%s/cgwatch.service.d", *d);
		DIR *dir = opendir(path);
		if (!dir)
			continue;
		struct dirent *de;
		while ((de = readdir(dir)) && n < 64) {
			size_t l = strlen(de->d_name);
			if (de->d_name[0] == '.' || l < 6 || strcmp(de->d_name + l - 5, ".conf"))
				continue;
			bool seen = false;
			for (size_t i = 0; i < n && !seen; i++)
				seen = strcmp(names[i], de->d_name) == 0;
			if (seen)
				continue;
			char full[1024];
			snprintf(full, sizeof(full), "%s/%s", path, de->d_name);
			names[n] = xstrdup(de->d_name);
			paths[n] = xstrdup(full);
			n++;
		}
		closedir(dir);
	}
	/* by name, the path following its name */
	char *pairs[64];
	for (size_t i = 0; i < n; i++) {
		size_t l = strlen(names[i]) + strlen(paths[i]) + 2;
		pairs[i] = xmalloc(l);
		snprintf(pairs[i], l, "%s%c%s", names[i], '\x01', paths[i]);
		free(names[i]);
		free(paths[i]);
	}
	qsort(pairs, n, sizeof(*pairs), name_cmp);
	for (size_t i = 0; i < n; i++) {
		unit_file(strchr(pairs[i], '\x01') + 1, u, files);
		free(pairs[i]);
	}
	return true;
}

static int count_cpus(const struct cgw_cpus *c)
{
	int k = 0;
	for (unsigned i = 0; i < CGW_MAX_CPUS; i++)
		k += cpus_test(c, i);
	return k;
}

/* The daemon's CPUs from its unit, when no daemon runs: true when the unit sets them. */
/* Of the CPUs cgwatch may run on (cpus, whose: who says), those with no real-time spinner
 * (rt.spinners, gathered before): where none is left, the daemon (SCHED_OTHER) runs only
 * when RT throttling or the fair server lets it, late in the very hang it should report. */
static void unspun_fact(struct cgw_facts *f, const struct cgw_cpus *cpus, const char *who)
{
	if (!f->known[HF_RT_SPINNERS]) {
		fact_unknown(f, HF_SELF_UNSPUN, "rt.spinners unknown: %s", f->why[HF_RT_SPINNERS]);
		return;
	}
	int free_ = 0, all = 0;
	for (unsigned c = 0; c < CGW_MAX_CPUS; c++) {
		if (!cpus_test(cpus, c) || !cpus_test(&f->online, c))
			continue;
		all++;
		bool spun = false;
		for (size_t i = 0; i < f->nspin && !spun; i++)
			spun = f->spin[i].cpu == (int)c;
		free_ += !spun;
	}
	fact_set(f, HF_SELF_UNSPUN, free_);
	EV(f, HF_SELF_UNSPUN, "%d of the %d online CPUs %s may run on have no real-time spinner%s\n",
	   free_, all, who, free_ == 0 && all ? ": a spinner runs on each of them" : "");
}

static bool unit_housekeeping(struct cgw_facts *f, const struct cgw_topology *t)
{
	struct unit_cpus *u = try_calloc(1, sizeof(*u));
	struct cgw_cpus *eff = try_calloc(1, sizeof(*eff)), *tmp = try_calloc(1, sizeof(*tmp));
	struct strbuf files = { 0 };
	bool r = false;
	if (u && eff && tmp && unit_read(u, &files) && (u->affinity_set || u->allowed_set)) {
		*eff = u->affinity_set ? u->affinity : u->allowed;
		if (u->affinity_set && u->allowed_set) {       /* both: the intersection */
			*tmp = u->affinity;
			cpus_andnot(tmp, &u->allowed);
			cpus_andnot(eff, tmp);
		}
		*tmp = *eff;                  /* its housekeeping CPUs */
		struct cgw_cpus *not_hk = try_calloc(1, sizeof(*not_hk));
		if (not_hk) {
			*not_hk = t->online;
			cpus_andnot(not_hk, &t->housekeeping);
			cpus_andnot(tmp, not_hk);
			free(not_hk);
			int hk = count_cpus(tmp);
			char list[256];
			fact_set(f, HF_SELF_HOUSEKEEPING, hk);
			EV(f, HF_SELF_HOUSEKEEPING, "cgwatch.service (no daemon running; %s) lets it run "
			   "on CPUs %s (%s%s%s): %d of them housekeeping%s\n", files.s,
			   cpulist_format(eff, list, sizeof(list)), u->affinity_set ? "CPUAffinity=" : "",
			   u->affinity_set && u->allowed_set ? " and " : "",
			   u->allowed_set ? "AllowedCPUs=" : "", hk,
			   hk == 0 ? "; on an isolated CPU it is starved by the spinners it should report" :
			   "");
			unspun_fact(f, eff, "cgwatch.service");
			r = true;
		}
	}
	sb_free(&files);
	free(u);
	free(eff);
	free(tmp);
	return r;
}

static void self_facts(struct cgw_facts *f, int procfd, int daemon_pid,
                       const struct cgw_topology *t, const struct audit_opts *o)
{
	char path[64], buf[8192], who[64];
	if (daemon_pid)
		snprintf(who, sizeof(who), "the running daemon, PID %d", daemon_pid);
	else
		snprintf(who, sizeof(who), f->live ? "this process (no daemon running)" :
		                                     "the capturing process");
	snprintf(path, sizeof(path), "%s/status", daemon_pid ? "" : "self");
	if (daemon_pid)
		snprintf(path, sizeof(path), "%d/status", daemon_pid);
	ssize_t n = read_once_at(procfd, path, -1, buf, sizeof(buf));
	struct cgw_status st;
	if (n <= 0 || parse_status_buf(buf, &st) < 0) {
		for (int k = HF_SELF_HOUSEKEEPING; k <= HF_SELF_PERF; k++)
			fact_unknown(f, (enum haz_fact)k, "/proc/%s unreadable", path);
		fact_unknown(f, HF_SELF_UNSPUN, "/proc/%s unreadable", path);
		return;
	}
	struct cgw_cpus *allowed = try_calloc(1, sizeof(*allowed));
	if (!daemon_pid && f->live && unit_housekeeping(f, t)) {
		/* said from the unit */
	} else if (allowed && cpulist_parse(st.cpus_allowed, allowed) == 0) {
		int hk = 0, all = 0;
		for (unsigned c = 0; c < CGW_MAX_CPUS; c++)
			if (cpus_test(allowed, c)) {
				all++;
				hk += cpus_test(&t->housekeeping, c);
			}
		fact_set(f, HF_SELF_HOUSEKEEPING, hk);
		char hks[256];
		EV(f, HF_SELF_HOUSEKEEPING, "%s may run on CPUs %s: %d of them housekeeping (%s)%s\n",
		   who, st.cpus_allowed, hk, cpulist_format(&t->housekeeping, hks, sizeof(hks)),
		   hk == 0 ? "; on an isolated CPU it is starved by the spinners it should report" :
		   hk < all && o->pin_housekeeping ? "; the daemon pins itself to them "
		                                     "(pin_housekeeping)" : "");
		unspun_fact(f, allowed, who);
	} else {
		fact_unknown(f, HF_SELF_HOUSEKEEPING, "Cpus_allowed_list of %s unreadable", who);
		fact_unknown(f, HF_SELF_UNSPUN, "Cpus_allowed_list of %s unreadable", who);
	}
	free(allowed);
	const char *c = strstr(buf, "\nCapEff:\t");
	unsigned long long cap = c ? strtoull(c + 9, NULL, 16) : 0;
	bool admin = cap >> 21 & 1, syslog = cap >> 34 & 1, perfmon = cap >> 38 & 1;
	fact_set(f, HF_SELF_STACKS, admin);
	EV(f, HF_SELF_STACKS, "%s %s CAP_SYS_ADMIN (CapEff %016llx): %s\n", who,
	   admin ? "has" : "lacks", cap, admin ? "it reads /proc/TID/stack" :
	   "/proc/TID/stack reads empty, and no hang can be named by its kernel stack");
	long restrict_ = 0;
	bool rr = read_long("/proc/sys/kernel/dmesg_restrict", &restrict_) == 0;
	bool kmsg = syslog || (rr && restrict_ == 0);
	fact_set(f, HF_SELF_KMSG, kmsg);
	EV(f, HF_SELF_KMSG, "%s %s CAP_SYSLOG, kernel.dmesg_restrict = %s: %s\n", who,
	   syslog ? "has" : "lacks", rr ? (restrict_ ? "1" : "0") : "unknown",
	   kmsg ? "it reads /dev/kmsg" : "it cannot read the kernel's hung-task and lockup reports");
	long paranoid = 2;
	bool pr = read_long("/proc/sys/kernel/perf_event_paranoid", &paranoid) == 0;
	bool perf = perfmon || admin || (pr && paranoid <= -1);
	fact_set(f, HF_SELF_PERF, perf);
	EV(f, HF_SELF_PERF, "%s %s CAP_PERFMON or CAP_SYS_ADMIN, kernel.perf_event_paranoid = "
	   "%s: %s\n", who, perfmon || admin ? "has" : "lacks", pr ? (paranoid <= -1 ? "-1" :
	   paranoid == 0 ? "0" : paranoid == 1 ? "1" : ">= 2") : "unknown",
	   perf ? "it counts cgroup tracepoints with perf" :
	   "cgroup activity is counted from /proc/cgroups only (no rmdir or workqueue counts)");
}

/* ---- cgroups ---- */

static bool opt_has(const char *opts, const char *want)
{
	size_t n = strlen(want);
	for (const char *p = opts; p && *p;) {
		const char *e = strchr(p, ',');
		size_t l = e ? (size_t)(e - p) : strlen(p);
		if (l == n && memcmp(p, want, n) == 0)
			return true;
		p = e ? e + 1 : NULL;
	}
	return false;
}

static size_t count_groups(int dirfd, int depth, bool v2, bool parent_cpu, size_t *visited);

struct groups_walk { int depth; bool v2, cpu; size_t *visited, n; };

static void groups_sub(int fd, const char *name, void *arg)
{
	(void)name;
	struct groups_walk *g = arg;
	g->n += count_groups(fd, g->depth, g->v2, g->cpu, g->visited);
}

/* Directories under dirfd (itself counted), at most depth deep. v2: only those whose parent's
 * cgroup.subtree_control enables cpu (the root counts: the root task group). */
static size_t count_groups(int dirfd, int depth, bool v2, bool parent_cpu, size_t *visited)
{
	size_t n = parent_cpu || !v2 ? 1 : 0;
	if (depth <= 0 || ++*visited > 1000000)
		return n;
	bool cpu_here = !v2;
	if (v2) {
		char buf[256];
		if (read_once_at(dirfd, "cgroup.subtree_control", -1, buf, sizeof(buf)) > 0) {
			for (char *tok = strtok(buf, " \n"); tok; tok = strtok(NULL, " \n"))
				cpu_here |= strcmp(tok, "cpu") == 0;
		}
	}
	struct groups_walk g = { depth - 1, v2, cpu_here, visited, 0 };
	each_subdir(dirfd, NULL, groups_sub, &g);
	return n + g.n;
}

#define PARTITIONS_LISTED 8            /* partitions the evidence names; the rest counted */
static size_t count_partitions(int dirfd, int depth, const char *rel, struct cgw_facts *f,
                               size_t *seen);

struct partitions_walk { int depth; const char *rel; struct cgw_facts *f; size_t n, *seen; };

static void partitions_sub(int fd, const char *name, void *arg)
{
	struct partitions_walk *p = arg;
	char sub[1024];
	snprintf(sub, sizeof(sub), "%s/%s", p->rel, name);
	p->n += count_partitions(fd, p->depth, sub, p->f, p->seen);
}

/* v2 cpuset partitions: cpuset.cpus.partition other than "member", under dirfd; *seen counts
 * them over the whole walk, the first PARTITIONS_LISTED named in the evidence. */
static size_t count_partitions(int dirfd, int depth, const char *rel, struct cgw_facts *f,
                               size_t *seen)
{
	size_t n = 0;
	char buf[128];
	if (read_once_at(dirfd, "cpuset.cpus.partition", -1, buf, sizeof(buf)) > 0 &&
	    strncmp(buf, "member", 6) != 0 && *rel) {
		buf[strcspn(buf, "\n")] = '\0';
		n++;
		if (++*seen <= PARTITIONS_LISTED)
			EV(f, HF_PARTITIONS, "%s: cpuset.cpus.partition = %s\n", rel, buf);
	}
	if (depth <= 0)
		return n;
	struct partitions_walk p = { depth - 1, rel, f, 0, seen };
	each_subdir(dirfd, NULL, partitions_sub, &p);
	return n + p.n;
}

/* v1 mount points, from mountinfo; "" ends the list. */
struct v1_mounts { char mnt[32][1024]; size_t n; };

static void cgroup_facts(struct cgw_facts *f, const struct cgw_scan *s, struct v1_mounts *v1)
{
	v1->n = 0;
	if (!s->mountinfo) {
		for (int k = HF_V1_HIERARCHIES; k <= HF_CPU_GROUPS; k++)
			fact_unknown(f, (enum haz_fact)k, "mountinfo unreadable: %s", s->mountinfo_err);
		return;
	}
	const char *pos = s->mountinfo;
	struct mountinfo_ent *m = try_malloc(sizeof(*m));
	if (!m)
		return;
	size_t groups = 0, visited = 0;
	bool cpu_seen = false;
	struct strbuf names = { 0 };
	while (mountinfo_next(&pos, m)) {
		if (strcmp(m->fstype, "cgroup") == 0) {
			if (v1->n < 32)
				snprintf(v1->mnt[v1->n], sizeof(v1->mnt[0]), "%s", m->mnt);
			v1->n++;
			sb_printf(&names, "%s%s", names.len ? ", " : "", m->mnt);
			if (opt_has(m->sopts, "cpu") && !cpu_seen) {
				int fd = open(m->mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
				if (fd >= 0) {
					size_t g = count_groups(fd, 64, false, true, &visited);
					close(fd);
					groups += g;
					cpu_seen = true;
					EV(f, HF_CPU_GROUPS, "%zu cgroups in the v1 cpu hierarchy at %s\n", g,
					   m->mnt);
				}
			}
		} else if (strcmp(m->fstype, "cgroup2") == 0 && !s->cgroup2_mnt[0]) {
			/* nothing: host_read found none */
		}
	}
	free(m);
	fact_set(f, HF_V1_HIERARCHIES, (double)v1->n);
	if (v1->n)
		EV(f, HF_V1_HIERARCHIES, "%zu cgroup v1 hierarch%s mounted: %s\n", v1->n,
		   v1->n == 1 ? "y" : "ies", names.s);
	sb_free(&names);
	if (s->cgroup2_mnt[0]) {
		int fd = open(s->cgroup2_mnt, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd >= 0) {
			/* the root is the root task group, counted once: with v1's when cpu is there */
			size_t g = cpu_seen ? 0 : count_groups(fd, 64, true, true, &visited);
			if (g > 1) {
				groups += g;
				EV(f, HF_CPU_GROUPS, "%zu cgroups with the cpu controller in the cgroup2 "
				   "hierarchy at %s (its root included)\n", g, s->cgroup2_mnt);
			}
			size_t seen = 0, p = count_partitions(fd, 64, "", f, &seen);
			if (p > PARTITIONS_LISTED)
				EV(f, HF_PARTITIONS, "%zu more cpuset partitions, not listed\n",
				   p - PARTITIONS_LISTED);
			fact_set(f, HF_PARTITIONS, (double)p);
			close(fd);
		}
	}
	if (!f->known[HF_PARTITIONS])
		fact_set(f, HF_PARTITIONS, 0);
	if (groups == 0)
		groups = 1;                   /* the root task group */
	fact_set(f, HF_CPU_GROUPS, (double)groups);
	if (s->possible_cpus > 0) {
		fact_set(f, HF_POSSIBLE_CPUS, s->possible_cpus);
		fact_set(f, HF_GROUPS_X_CPUS, (double)groups * s->possible_cpus);
		EV(f, HF_GROUPS_X_CPUS, "%zu cpu task groups x %d possible CPUs = %.0f per-CPU "
		   "scheduler entities (each walked on a CPU hotplug or sched-domain rebuild)\n",
		   groups, s->possible_cpus, (double)groups * s->possible_cpus);
	} else {
		fact_unknown(f, HF_POSSIBLE_CPUS, "/sys/devices/system/cpu/possible unreadable");
		fact_unknown(f, HF_GROUPS_X_CPUS, "/sys/devices/system/cpu/possible unreadable");
	}
	char buf[4096];
	struct cgw_cpus *off = try_calloc(1, sizeof(*off));
	if (off && read_small_file("/sys/devices/system/cpu/offline", buf, sizeof(buf)) >= 0) {
		buf[strcspn(buf, "\n")] = '\0';
		if (cpulist_parse(buf, off) == 0) {
			int k = 0;
			for (unsigned c = 0; c < CGW_MAX_CPUS; c++)
				k += cpus_test(off, c);
			fact_set(f, HF_CPUS_OFFLINE, k);
			if (k)
				EV(f, HF_CPUS_OFFLINE, "CPUs %s offline (/sys/devices/system/cpu/offline)\n",
				   buf);
		}
	}
	if (!f->known[HF_CPUS_OFFLINE])
		fact_unknown(f, HF_CPUS_OFFLINE, "/sys/devices/system/cpu/offline unreadable");
	free(off);
}

/* Is path under mount point mnt? */
static bool under(const char *path, const char *mnt)
{
	size_t ml = strlen(mnt);
	return ml && strncmp(path, mnt, ml) == 0 && path[ml] == '/';
}

/* The comm of pid, for an evidence line. */
static void comm_of(int procfd, long pid, char *out, size_t cap)
{
	char path[64];
	snprintf(path, sizeof(path), "%ld/comm", pid);
	snprintf(out, cap, "?");
	if (read_once_at(procfd, path, -1, out, cap) > 0)
		out[strcspn(out, "\n")] = '\0';
}

struct readers_walk {
	struct cgw_facts *f; int procfd; const struct v1_mounts *v1; const char *cg2;
	size_t readers, rstat;
};

/* each_subdir's fn for /proc/PID/fd (at ffd): is process name a reader of either kind? */
static void fd_readers(int ffd, const char *name, void *arg)
{
	struct readers_walk *r = arg;
	struct cgw_facts *f = r->f;
	const struct v1_mounts *v1 = r->v1;
	long pid = strtol(name, NULL, 10);
	DIR *fd = list_dir(ffd);
	if (!fd)
		return;
	struct dirent *fe;
	char link[4096], comm[64];
	bool is_reader = false, is_rstat = false;
	while ((fe = readdir(fd)) && !(is_reader && is_rstat)) {
		if (fe->d_name[0] == '.')
			continue;
		ssize_t n = readlinkat(ffd, fe->d_name, link, sizeof(link) - 1);
		if (n <= 0 || link[0] != '/')
			continue;
		link[n] = '\0';
		size_t l = (size_t)n;
		bool list = (l > 13 && strcmp(link + l - 13, "/cgroup.procs") == 0) ||
		            (l > 6 && strcmp(link + l - 6, "/tasks") == 0);
		bool stat = l > 12 && strcmp(link + l - 12, "/memory.stat") == 0;
		bool in_v1 = false;
		for (size_t i = 0; i < v1->n && i < 32 && !in_v1; i++)
			in_v1 = under(link, v1->mnt[i]);
		if (list && in_v1 && !is_reader) {
			is_reader = true;
			if (++r->readers <= 16) {
				comm_of(r->procfd, pid, comm, sizeof(comm));
				EV(f, HF_V1_PROCS_OPEN, "PID %ld (%s) holds %s open (fd %s)\n", pid,
				   comm, link, fe->d_name);
			}
		}
		if (stat && (in_v1 || under(link, r->cg2)) && !is_rstat) {
			is_rstat = true;
			if (++r->rstat <= 16) {
				comm_of(r->procfd, pid, comm, sizeof(comm));
				EV(f, HF_RSTAT_READERS, "PID %ld (%s) holds %s open (fd %s): a "
				   "periodic reader (how often it reads needs tracing)\n", pid, comm,
				   link, fe->d_name);
			}
		}
	}
	closedir(fd);
}

/* Processes holding a v1 cgroup.procs or tasks open, and processes holding a memory.stat
 * open in any cgroup hierarchy (their /proc/PID/fd links): the pid-list readers of seed 000,
 * the rstat readers of seed 001. Open files only: how often each reads needs tracing. */
static void cgroup_readers(struct cgw_facts *f, int procfd, const struct v1_mounts *v1,
                           const char *cg2)
{
	if (v1->n == 0 && !*cg2) {
		fact_set(f, HF_V1_PROCS_OPEN, 0);
		fact_set(f, HF_RSTAT_READERS, 0);
		return;
	}
	struct readers_walk r = { f, procfd, v1, cg2, 0, 0 };
	if (each_subdir(procfd, "fd", fd_readers, &r) < 0) {
		fact_unknown(f, HF_V1_PROCS_OPEN, "/proc unreadable");
		fact_unknown(f, HF_RSTAT_READERS, "/proc unreadable");
		return;
	}
	fact_set(f, HF_V1_PROCS_OPEN, (double)r.readers);
	fact_set(f, HF_RSTAT_READERS, (double)r.rstat);
	if (r.readers > 16)
		EV(f, HF_V1_PROCS_OPEN, "... and %zu more processes\n", r.readers - 16);
	if (r.rstat > 16)
		EV(f, HF_RSTAT_READERS, "... and %zu more processes\n", r.rstat - 16);
}

/* The counts of source-rates.c over the window, live (src opened before the walk), or a
 * replay's: the live run's (cgwatch/rates), when its capture kept them. NULL with why when
 * there are none. */
static struct cgw_rates *audit_rates(const struct audit_opts *o, struct cgw_rates_src *src,
                                     bool live, char *why, size_t cap)
{
	struct cgw_rates *rt = try_calloc(1, sizeof(*rt));
	if (!rt) {
		snprintf(why, cap, "no memory");
		return NULL;
	}
	if (live) {                       /* its window is mostly past */
		rates_wait(src, o->window_ms < 250 ? 250 : o->window_ms);
		rates_sample(src, rt);
		return rt;
	}
	char path[4096];
	snprintf(path, sizeof(path), "%s/cgwatch/rates", o->tree ? o->tree : "");
	char *text = try_malloc(1 << 16);
	ssize_t n = text ? read_small_file(path, text, 1 << 16) : -ENOMEM;
	size_t line = 0;
	const char *pwhy = NULL;
	if (n < 0 || parse_rates_file(text, rt, &line, &pwhy) < 0) {
		snprintf(why, cap, "cgwatch/rates: %s", n < 0 ? "not in the tree (one snapshot "
		         "counts nothing)" : pwhy ? pwhy : "unparsable");
		free(rt);
		rt = NULL;
	}
	free(text);
	return rt;
}

/* cgroups created and removed per second, where a v1 pid-list sweep could meet them. */
static void churn_fact(struct cgw_facts *f, const struct v1_mounts *v1, const struct cgw_rates *rt,
                       const char *why)
{
	if (v1->n == 0) {                 /* nothing a v1 pid-list sweep could meet */
		fact_unknown(f, HF_CGROUP_CHURN, "not counted: no cgroup v1 hierarchy");
		return;
	}
	if (!rt) {
		fact_unknown(f, HF_CGROUP_CHURN, "%s", why);
		return;
	}
	const struct rates_count *mk = &rt->ev[RATE_MKDIR], *rm = &rt->ev[RATE_RMDIR];
	if (!rates_windowed(rt) || mk->missing || rm->missing || !rates_has_rate(rt)) {
		fact_unknown(f, HF_CGROUP_CHURN, "%s", mk->missing ? mk->why : rm->missing ? rm->why :
		             "no counting window (a replay without the live run's counts)");
	} else {
		fact_set(f, HF_CGROUP_CHURN, mk->per_s + rm->per_s);
		EV(f, HF_CGROUP_CHURN, "%.1f cgroup mkdir/s and %.1f rmdir/s over %.2f s (%s)\n",
		   mk->per_s, rm->per_s, rt->window_s, rates_source_name(rt->source));
	}
}

/* The rstat lock's contention per second, where memory.stat readers are: flushes that met
 * another flush (each one a CPU spinning with interrupts off for the other's length). */
static void rstat_fact(struct cgw_facts *f, const struct cgw_rates *rt, const char *why)
{
	if (!f->known[HF_RSTAT_READERS] || f->v[HF_RSTAT_READERS] < 1) {
		fact_unknown(f, HF_RSTAT_CONTENDED, "not counted: no process holds a memory.stat open");
		return;
	}
	if (!rt) {
		fact_unknown(f, HF_RSTAT_CONTENDED, "%s", why);
		return;
	}
	const struct rates_count *c = &rt->ev[RATE_RSTAT_CONTENDED];
	if (!rates_windowed(rt) || c->missing || !rates_has_rate(rt)) {
		fact_unknown(f, HF_RSTAT_CONTENDED, "%s", c->missing ? c->why :
		             "no counting window (a replay without the live run's counts)");
		return;
	}
	fact_set(f, HF_RSTAT_CONTENDED, c->per_s);
	EV(f, HF_RSTAT_CONTENDED, "%.1f rstat lock contentions/s over %.2f s (%s%s)\n", c->per_s,
	   rt->window_s, rates_source_name(rt->source), f->live ? "" : ", captured");
}

int audit_gather(struct cgw_facts *f, const struct audit_opts *o)
{
	uint64_t t0 = now_usec();
	memset(f, 0, sizeof(*f));
	f->live = o->tree == NULL;
	int procfd = open("/proc", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (procfd < 0)
		return -errno;
	struct cgw_scan *s = try_calloc(1, sizeof(*s));
	if (!s) {
		close(procfd);
		return -ENOMEM;
	}
	s->live = f->live;
	host_read(s, o->timeout_ms);
	snprintf(f->host, sizeof(f->host), "%s", s->host);
	snprintf(f->kernel, sizeof(f->kernel), "%s", s->kernel);

	safety_nets(f);
	struct v1_mounts *v1 = try_calloc(1, sizeof(*v1));
	if (!v1) {
		scan_free(s);
		free(s);
		close(procfd);
		return -ENOMEM;
	}
	cgroup_facts(f, s, v1);
	cgroup_readers(f, procfd, v1, s->cgroup2_mnt);
	/* The churn is counted only where a v1 pid list is held open, the rstat contention only
	 * where a memory.stat is (all the rules need): the counters cost ~0.1 s to open and
	 * ~0.3 s to close (RCU). They count while the threads are read, so their window is
	 * mostly past when the walk is done. */
	bool count = f->live && ((v1->n && f->known[HF_V1_PROCS_OPEN] && f->v[HF_V1_PROCS_OPEN] > 0) ||
	                         (f->known[HF_RSTAT_READERS] && f->v[HF_RSTAT_READERS] > 0));
	struct cgw_rates_src *src = count ? rates_open(true, o->timeout_ms) : NULL;
	struct walk w = { 0 };
	char buf[128];
	if (read_small_file("/proc/uptime", buf, sizeof(buf)) > 0)
		parse_uptime(buf, &w.uptime_s);
	int r = walk_proc(procfd, &w, f->live);
	if (r < 0) {
		rates_close(src);
		free(v1);
		free(w.rt);
		scan_free(s);
		free(s);
		close(procfd);
		return r;
	}
	f->threads = w.threads;
	f->online = s->topo.online;
	f->isolated = s->topo.isolated;
	f->nohz_full = s->topo.nohz_full;
	rt_facts(f, &w, procfd, &s->topo, o);
	self_facts(f, procfd, w.daemon_pid, &s->topo, o);
	char why[200] = "not counted: no process holds a cgroup v1 pid list or a memory.stat open "
	                "(counting costs ~0.5 s)";
	struct cgw_rates *rt = NULL;
	if (src || !f->live)
		rt = audit_rates(o, src, f->live, why, sizeof(why));
	else if (count)
		snprintf(why, sizeof(why), "not counted: the counters could not be opened");
	churn_fact(f, v1, rt, why);
	rstat_fact(f, rt, why);
	free(rt);
	rates_close(src);
	free(v1);
	free(w.rt);
	scan_free(s);
	free(s);
	close(procfd);
	f->usec = now_usec() - t0;
	return 0;
}

void facts_free(struct cgw_facts *f)
{
	for (int k = 0; k < HF_NFACT; k++)
		sb_free(&f->ev[k]);
	free(f->spin);
	f->spin = NULL;
	f->nspin = 0;
}
