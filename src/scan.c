/* scan.c: one pass over every thread under /proc.
 *
 * Per thread the scan reads only task/TID/stat (state, comm, cpu, policy). D and R threads
 * then get task/TID/sched (se.exec_start and the switch counts: how long since they last ran,
 * duration.c) and task/TID/status (allowed CPUs). Only suspects (D past the threshold, R not
 * run for longer than the starvation threshold) get the reads that can block on the hang
 * itself (stack, wchan, cgroup, freezer state), each with a deadline. Those take time, and
 * tasks move on meanwhile: at the end every suspect's stat and sched are read again, and one
 * that is gone, reused, out of its state or that ran since is dropped (its wait is over). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgwatch.h"

#define STAT_BUF 1024
#define FILE_BUF 8192
#define STACK_BUF 16384

/* Read dirfd-relative file; -errno on failure. */
static ssize_t read_at(int dirfd, const char *name, char *buf, size_t cap)
{
	return read_once_at(dirfd, name, -1, buf, cap);
}

static bool vanished(ssize_t r)
{
	return r == -ENOENT || r == -ESRCH;
}

void scan_unreadable(struct cgw_scan *s, const char *path, const char *fmt, ...)
{
	char why[sizeof(s->unreadable[0].why)];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	warn_set_say(s->warns, "%s: %s", path, why);
	s->errors++;
	if (s->nunreadable >= SCAN_MAX_NAMED)
		return;
	if (!s->unreadable && !(s->unreadable = calloc(SCAN_MAX_NAMED, sizeof(*s->unreadable))))
		return;                       /* counted, not named */
	struct cgw_unreadable *u = &s->unreadable[s->nunreadable++];
	snprintf(u->path, sizeof(u->path), "%s", path);
	snprintf(u->why, sizeof(u->why), "%s", why);
}

/* Why a sched file (buf, r bytes read or -errno) gave no time: the bad value, C-escaped. */
static const char *sched_why(const char *buf, ssize_t r, const struct cgw_sched *sc, char *out,
                             size_t cap)
{
	if (r < 0) {
		snprintf(out, cap, "%s", strerror((int)-r));
		return out;
	}
	if (!sc->bad) {
		snprintf(out, cap, "no se.exec_start");
		return out;
	}
	/* the value of the last line of that key, as parse_sched_buf read it */
	const char *val = "";
	size_t vlen = 0, klen = strlen(sc->bad);
	for (const char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		const char *colon = strchr(l, ':'), *nl = strchr(l, '\n');
		if (!colon || (nl && colon > nl))
			continue;
		size_t k = (size_t)(colon - l);
		while (k && l[k - 1] == ' ')
			k--;
		if (k == klen && strncmp(l, sc->bad, k) == 0) {
			val = colon + 1 + strspn(colon + 1, " \t");
			vlen = nl ? (size_t)(nl - val) : strlen(val);
		}
	}
	char v[48];
	cescape(val, vlen > 24 ? 24 : vlen, v, sizeof(v));
	snprintf(out, cap, "%s is not a %s (%s%s)", sc->bad,
	         strcmp(sc->bad, "nr_switches") ? "time within a century" : "count within 2^53", v,
	         vlen > 24 ? "..." : "");
	return out;
}

static struct cgw_task *scan_push(struct cgw_scan *s)
{
	if (s->n == s->cap) {
		size_t cap = s->cap ? s->cap * 2 : 64;
		struct cgw_task *n = try_reallocarray(s->t, cap, sizeof(*s->t));
		if (!n) {
			s->nomem = true;
			return NULL;
		}
		s->t = n;
		s->cap = cap;
	}
	struct cgw_task *t = &s->t[s->n++];
	memset(t, 0, sizeof(*t));
	return t;
}

static void proc_push(struct cgw_scan *s, int pid, int ppid, unsigned long long start)
{
	if (s->nprocs == s->procs_cap) {
		size_t cap = s->procs_cap ? s->procs_cap * 2 : 256;
		struct cgw_proc *n = try_reallocarray(s->procs, cap, sizeof(*s->procs));
		if (!n) {
			s->nomem = true;
			return;
		}
		s->procs = n;
		s->procs_cap = cap;
	}
	s->procs[s->nprocs++] = (struct cgw_proc){ pid, ppid, start };
}

static void runner_push(struct cgw_scan *s, const struct cgw_stat *st,
                        const struct cgw_sched *sc, int tgid)
{
	if (s->nrunners == s->runners_cap) {
		size_t cap = s->runners_cap ? s->runners_cap * 2 : 64;
		struct cgw_runner *n = try_reallocarray(s->runners, cap, sizeof(*s->runners));
		if (!n) {
			s->nomem = true;
			return;
		}
		s->runners = n;
		s->runners_cap = cap;
	}
	struct cgw_runner *r = &s->runners[s->nrunners++];
	memset(r, 0, sizeof(*r));
	r->tid = st->tid;
	r->tgid = tgid;
	r->cpu = st->cpu;
	r->policy = st->policy;
	r->rt_priority = st->rt_priority;
	memcpy(r->comm, st->comm, sizeof(r->comm));
	r->comm_len = st->comm_len;
	r->exec_start_ms = sc->exec_start_ms;
	r->sum_exec_ms = sc->sum_exec_ms;
	r->read_mono_ms = mono_ms();
	r->share = -1;
}

/* Seconds since a task started, at CLOCK_MONOTONIC time at_mono (boot clock of the host or
 * of the replayed tree); -1 when /proc/uptime could not be read. */
static double scan_age(const struct cgw_scan *s, unsigned long long start_ticks, double at_mono)
{
	double up = s->uptime_s;
	if (up > 0 && s->live)
		up += (at_mono - s->uptime_mono_ms) / 1000.0;
	return task_age(start_ticks, up, sysconf(_SC_CLK_TCK));
}

/* D blocked at least blocked_s (every D task with --all), R waiting at least starved_s. A
 * duration that is not known proves nothing. */
static enum cgw_suspect suspect_of(char state, struct cgw_dur d, const struct cgw_scan_opts *o)
{
	bool known = d.bound != BOUND_UNKNOWN;
	if (state == 'D' && ((known && d.s >= o->blocked_s) || o->all))
		return SUSPECT_BLOCKED;
	if (state == 'R' && known && d.s >= o->starved_s)
		return SUSPECT_STARVED;
	return SUSPECT_NONE;
}

/* A D task left out because nothing shows how long it has been blocked, though it is old
 * enough to be past the threshold: counted, so that the report can say so. */
static void count_untimed(struct cgw_scan *s, char state, struct cgw_dur d, double age,
                          const struct cgw_scan_opts *o)
{
	if (state == 'D' && d.bound == BOUND_UNKNOWN && (age < 0 || age >= o->blocked_s))
		s->untimed++;
}

/* Drop the tasks marked gone. */
static void drop_gone(struct cgw_scan *s)
{
	size_t k = 0;
	for (size_t i = 0; i < s->n; i++) {
		if (s->t[i].gone) {
			frames_free(s->t[i].frames, s->t[i].nframes);
			free(s->t[i].marks);
			continue;
		}
		s->t[k++] = s->t[i];
	}
	s->n = k;
}

/* Read cpu's scheduler clock, live, if this scan has not tried yet (a hop onto it). */
static void scan_want_clock(struct cgw_scan *s, int cpu)
{
	if (!s->live || cpu < 0 || cpu >= CGW_MAX_CPUS || cpus_test(&s->clock_tried, (unsigned)cpu))
		return;
	cpus_set(&s->clock_tried, (unsigned)cpu);
	if (s->nclocks == s->clocks_cap) {
		size_t cap = s->clocks_cap ? s->clocks_cap * 2 : 16;
		struct cgw_cpuclock *n = try_reallocarray(s->clocks, cap, sizeof(*s->clocks));
		if (!n) {
			s->nomem = true;
			return;
		}
		s->clocks = n;
		s->clocks_cap = cap;
	}
	struct cgw_cpus one;
	memset(&one, 0, sizeof(one));
	cpus_set(&one, (unsigned)cpu);
	s->nclocks += cpuclock_measure(&one, &s->clocks[s->nclocks], 1);
}

/* One thread: stat always; sched and status for D and R. A stat that cannot be parsed, or
 * that names another tid than its directory, is not used: the thread is skipped and the file
 * named. A sched that cannot be parsed leaves the thread's time unknown: it is still counted,
 * and a D thread old enough to be past the threshold is still reported, with the reason. */
static void scan_thread(struct cgw_scan *s, const struct cgw_scan_opts *o, int taskfd, int tgid,
                        const char *tidname)
{
	char path[320], buf[STAT_BUF], where[128];
	ssize_t r;
	char *tend;
	long tid = strtol(tidname, &tend, 10);
	if (*tend || tid <= 0 || tid > 0x7fffffff)
		return;                       /* not a thread's directory */
	snprintf(where, sizeof(where), "/proc/%d/task/%.20s/stat", tgid, tidname);
	if (o->fdcache) {
		r = fdcache_read_stat(o->fdcache, taskfd, tgid, (int)tid, tidname, buf, sizeof(buf));
	} else {
		snprintf(path, sizeof(path), "%s/stat", tidname);
		r = read_at(taskfd, path, buf, sizeof(buf));
	}
	if (r < 0) {
		if (!vanished(r))
			scan_unreadable(s, where, "%s, skipping task", strerror((int)-r));
		return;
	}
	struct cgw_stat st;
	if (parse_stat_buf(buf, (size_t)r, &st) < 0) {
		scan_unreadable(s, where, "cannot parse, skipping task");
		return;
	}
	if (st.tid != tid) {
		/* the kernel prints the tid of the directory's task: this line is not its own, and
		 * which of the two is right cannot be known */
		scan_unreadable(s, where, "names tid %d, not %ld: not this task's line, skipping it",
		                st.tid, tid);
		return;
	}
	if (!s->relook) {                 /* counted, listed and remembered once */
		s->threads++;
		if (st.tid == tgid)
			proc_push(s, tgid, st.ppid, st.start_ticks);
	}
	if (st.state != 'D' && st.state != 'R')
		return;

	char fbuf[FILE_BUF], why[128] = "";
	snprintf(path, sizeof(path), "%s/sched", tidname);
	r = read_at(taskfd, path, fbuf, sizeof(fbuf));
	struct cgw_sched sc;
	if (r < 0 && vanished(r))
		return;                       /* exited */
	if (r < 0 || parse_sched_buf(fbuf, &sc) < 0) {
		sched_why(fbuf, r, &sc, why, sizeof(why));
		snprintf(where, sizeof(where), "/proc/%d/task/%.20s/sched", tgid, tidname);
		scan_unreadable(s, where, "%s; its time is unknown", why);
		memset(&sc, 0, sizeof(sc));   /* nothing of it is used */
	}
	bool bad = why[0] != '\0';
	double mono = mono_ms();
	struct cgw_seen w = { .tid = st.tid, .start_ticks = st.start_ticks };
	seen_update(&w, o->history && !bad ? history_find(o->history, st.tid, st.start_ticks) : NULL,
	            st.state, &sc, st.cpu, mono);
	if (o->history && !bad && !s->relook)
		s->nomem |= history_add(o->history, &w) < 0;
	if (st.state == 'R' && !s->relook) {
		if (st.cpu >= 0 && st.cpu < CGW_MAX_CPUS &&
		    sc.exec_start_ms > s->rq_latest[st.cpu].exec_start_ms)
			s->rq_latest[st.cpu] = (struct cgw_rq_floor){ sc.exec_start_ms, mono };
		runner_push(s, &st, &sc, tgid);
	}
	double age = scan_age(s, st.start_ticks, mono);
	struct cgw_now now = { s->live ? s->now_ms + (mono - s->now_mono_ms) : s->now_ms,
	                       BOUND_EXACT };        /* the reader's own clock at this read */
	struct cgw_dur d;
	if (st.state == 'D' && w.exec_start_ms > 0 && (o->all || age < 0 || age >= o->blocked_s)) {
		/* D tasks are few: timed on their own CPU's clock at once, for the CPU clocks drift
		 * apart (cpuclock.c) and a first look on the reader's would be off by that much */
		scan_want_clock(s, w.clock_cpu);
		d = seen_duration(&w, scan_cpu_now(s, w.clock_cpu, mono), mono, age);
	} else {
		/* R tasks are many: a first look on the reader's clock, without the age test that
		 * the drift could fail; the candidates' own clocks are read after the walk */
		d = seen_duration(&w, now, mono, w.exec_start_ms > 0 ? -1 : age);
		if (s->relook) {          /* the floor of its own CPU's clock knows better */
			struct cgw_dur f = seen_duration(&w, scan_cpu_now(s, st.cpu, mono), mono, -1);
			if (f.bound != BOUND_UNKNOWN && f.s > d.s)
				d = f;
		}
	}
	enum cgw_suspect sus = suspect_of(st.state, d, o);
	if (bad) {
		/* counted as untimed, and reported (not as a finding) when it may be past the
		 * threshold: a file that cannot be read makes no task vanish */
		count_untimed(s, st.state, d, age, o);
		if (st.state == 'D' && (age < 0 || age >= o->blocked_s))
			sus = SUSPECT_BLOCKED;
	}
	if (sus == SUSPECT_NONE) {
		if (!bad)
			count_untimed(s, st.state, d, age, o);
		return;
	}

	struct cgw_task *t = scan_push(s);
	if (!t)
		return;
	t->tid = st.tid;
	t->tgid = tgid;
	t->ppid = st.ppid;
	t->start_ticks = st.start_ticks;
	t->state = st.state;
	memcpy(t->comm, st.comm, sizeof(t->comm));
	t->comm_len = st.comm_len;
	t->flags = st.flags;
	t->cpu = st.cpu;
	t->policy = st.policy;
	t->rt_priority = st.rt_priority;
	t->exec_start_ms = sc.exec_start_ms;
	t->seen = w;
	t->read_mono_ms = mono;
	t->now = now;
	t->age_s = age;
	t->blocked_s = d.s;
	t->bound = d.bound;
	t->suspect = sus;
	snprintf(t->sched_error, sizeof(t->sched_error), "%s", why);

	snprintf(path, sizeof(path), "%s/status", tidname);
	struct cgw_status stt;
	if (read_at(taskfd, path, fbuf, sizeof(fbuf)) >= 0) {
		if (parse_status_buf(fbuf, &stt) == 0) {
			memcpy(t->cpus_allowed, stt.cpus_allowed, sizeof(t->cpus_allowed));
		} else {
			snprintf(where, sizeof(where), "/proc/%d/task/%.20s/status", tgid, tidname);
			scan_unreadable(s, where, "cannot parse; its allowed CPUs are unknown");
		}
	}
}

/* The reads that can block on the hang: stack, wchan, cgroup, freezer state, the memory of
 * a task (the path its syscall names, waitfile.c). */
/* Deadline reads that time out in one scan before the rest of its risky reads are skipped:
 * each costs read_timeout, and the daemon's loop must come round well within WatchdogSec. */
#define SCAN_MAX_TIMEOUTS 3

ssize_t scan_read(struct cgw_scan *s, const char *path, char *buf, size_t cap,
                         unsigned timeout_ms)
{
	return scan_pread(s, path, -1, buf, cap, timeout_ms);
}

ssize_t scan_pread(struct cgw_scan *s, const char *path, off_t off, char *buf, size_t cap,
                   unsigned timeout_ms)
{
	if (s->timeouts >= SCAN_MAX_TIMEOUTS)
		return -ETIME;
	ssize_t r = dl_pread_file(path, off, buf, cap, timeout_ms);
	if (r == -ETIMEDOUT)
		s->timeouts++;
	return r;
}

static void scan_suspect(struct cgw_scan *s, struct cgw_task *t, unsigned timeout_ms)
{
	char path[128], *buf = malloc(STACK_BUF);
	if (!buf) {
		snprintf(t->stack_error, sizeof(t->stack_error), "stack not read: out of memory");
		s->nomem = true;
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stack", t->tgid, t->tid);
	ssize_t r = scan_read(s, path, buf, STACK_BUF, timeout_ms);
	if (r == -ETIMEDOUT)
		snprintf(t->stack_error, sizeof(t->stack_error),
		         "stack unreadable: timed out after %g s", timeout_ms / 1000.0);
	else if (r == -ETIME)
		snprintf(t->stack_error, sizeof(t->stack_error), "stack not read: %d reads already "
		         "timed out in this scan", SCAN_MAX_TIMEOUTS);
	else if (r == -EBUSY)
		snprintf(t->stack_error, sizeof(t->stack_error), "stack not read: %d earlier reads "
		         "are still stuck", DL_MAX_STUCK);
	else if (r < 0)
		snprintf(t->stack_error, sizeof(t->stack_error), "stack unreadable: %s",
		         strerror((int)-r));
	else {
		struct cgw_frame *f;
		int n = parse_stack_buf(buf, &f);
		if (n < 0)
			snprintf(t->stack_error, sizeof(t->stack_error),
			         "stack unreadable: the file does not look like a kernel stack");
		else if (n == 0)
			snprintf(t->stack_error, sizeof(t->stack_error), "stack empty");
		else {
			t->frames = f;
			t->nframes = (size_t)n;
		}
	}

	snprintf(path, sizeof(path), "/proc/%d/task/%d/wchan", t->tgid, t->tid);
	r = scan_read(s, path, buf, 128, timeout_ms);
	if (r > 0) {
		char clean[64];
		snprintf(t->wchan, sizeof(t->wchan), "%s", frame_name(buf, clean, sizeof(clean)));
		if (strcmp(t->wchan, "0") == 0)
			t->wchan[0] = '\0';
	}

	snprintf(path, sizeof(path), "/proc/%d/task/%d/cgroup", t->tgid, t->tid);
	r = scan_read(s, path, buf, STACK_BUF, timeout_ms);
	if (r >= 0) {
		char v1[256], v2[256], sd[256];
		if (parse_cgroup_buf(buf, "freezer", v1, sizeof(v1), v2, sizeof(v2)) == -EINVAL ||
		    parse_cgroup_buf(buf, "name=systemd", sd, sizeof(sd), NULL, 0) == -EINVAL) {
			/* never let a crafted cgroup name mark a hung task as frozen */
			snprintf(t->cgroup, sizeof(t->cgroup), "?");
			warn_set_say(s->warns, "%s: a hierarchy is listed twice (a cgroup name holds a "
			             "newline?); cgroup and freezer state of %d not trusted", path, t->tid);
		} else {
			snprintf(t->cgroup, sizeof(t->cgroup), "%s",
			         v2[0] && strcmp(v2, "/") ? v2 : sd[0] ? sd : v2);
			cgroup_unit(t->cgroup, t->unit, sizeof(t->unit));
			t->frozen = cgroup_frozen(s, v1, v2, timeout_ms);
		}
	}
	free(buf);
	waitfile_read(s, t, timeout_ms);
}

struct cgw_now scan_cpu_now(const struct cgw_scan *s, int cpu, double at_mono_ms)
{
	const struct cgw_rq_floor *f = cpu >= 0 && cpu < CGW_MAX_CPUS && s->rq_latest &&
	                               s->rq_latest[cpu].exec_start_ms > 0 ? &s->rq_latest[cpu] : NULL;
	if (!s->live)                     /* a replay: the capture's clock */
		return (struct cgw_now){ f && f->exec_start_ms > s->now_ms ? f->exec_start_ms :
		                         s->now_ms, BOUND_EXACT };
	double ms;
	if (cpuclock_at(s->clocks, s->nclocks, cpu, at_mono_ms, &ms))
		return (struct cgw_now){ ms, BOUND_EXACT };
	/* a runnable task there last ran at f->exec_start_ms on that clock, read at f->mono_ms;
	 * the clock leaves out IRQ and steal time, so it moves no faster than CLOCK_MONOTONIC */
	if (f)
		return (struct cgw_now){ f->exec_start_ms - (f->mono_ms > at_mono_ms ?
		                         f->mono_ms - at_mono_ms : 0), BOUND_LOWER };
	return (struct cgw_now){ 0, BOUND_UNKNOWN };
}

struct cgw_dur task_dur(const struct cgw_task *t)
{
	return (struct cgw_dur){ t->blocked_s, t->bound };
}

/* The candidates' times against the clock of the CPU their exec_start is on, at their own
 * read (cpuclock.c). A time that is not known, or not past its threshold, drops the task. */
static void correct_clocks(struct cgw_scan *s, const struct cgw_scan_opts *o)
{
	for (size_t i = 0; i < s->n; i++) {
		struct cgw_task *t = &s->t[i];
		if (t->sched_error[0])
			continue;                 /* no time to correct: kept, with the reason */
		if (t->seen.exec_start_ms > 0) {
			scan_want_clock(s, t->seen.clock_cpu);
			struct cgw_now now = scan_cpu_now(s, t->seen.clock_cpu, t->read_mono_ms);
			struct cgw_dur d = seen_duration(&t->seen, now, t->read_mono_ms, t->age_s);
			t->now = now;
			t->blocked_s = d.s;
			t->bound = d.bound;
		}
		if (suspect_of(t->state, task_dur(t), o) == SUSPECT_NONE) {
			count_untimed(s, t->state, task_dur(t), t->age_s, o);
			t->gone = true;
		}
	}
	drop_gone(s);
}

/* A runnable thread's first look is on the reader's clock, and CPU clocks drift apart: after a
 * stall of the host (steal time, a soft lockup) by seconds, with the reader's behind. So a
 * runner that the first look found fresh is looked at again when its own CPU's floor (the
 * latest exec_start of a runnable task there, complete once the walk is done: same clock, a
 * lower bound of now) shows it waiting past the threshold. */
static void relook_runners(struct cgw_scan *s, const struct cgw_scan_opts *o)
{
	if (!s->live)
		return;                   /* a replay has one clock, the capture's */
	size_t n = s->nrunners;       /* a second look pushes no runner */
	for (size_t i = 0; i < n; i++) {
		const struct cgw_runner *r = &s->runners[i];
		if (r->cpu < 0 || r->cpu >= CGW_MAX_CPUS || r->exec_start_ms <= 0 ||
		    s->rq_latest[r->cpu].exec_start_ms - r->exec_start_ms < o->starved_s * 1000)
			continue;
		bool listed = false;
		for (size_t k = 0; k < s->n && !listed; k++)
			listed = s->t[k].tid == r->tid;
		if (listed)
			continue;
		char path[64], tid[16];
		snprintf(path, sizeof(path), "/proc/%d/task", r->tgid);
		snprintf(tid, sizeof(tid), "%d", r->tid);
		int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (fd < 0)
			continue;             /* gone */
		s->relook = true;
		scan_thread(s, o, fd, r->tgid, tid);
		s->relook = false;
		close(fd);
	}
}

/* Read stat and sched of the suspects of kind `which` (SUSPECT_NONE: all of them) again. One
 * that is gone, whose tid now names another task, that left its state, or that ran since
 * (switch count, CPU time or exec_start moved) is dropped: its wait is over, and what was
 * read of it since may describe something else. The others have not run in between: their
 * durations move on to this read. */
static void recheck(struct cgw_scan *s, enum cgw_suspect which)
{
	for (size_t i = 0; i < s->n; i++) {
		struct cgw_task *t = &s->t[i];
		if (which != SUSPECT_NONE && t->suspect != which)
			continue;
		char path[96], buf[FILE_BUF];
		struct cgw_stat st;
		struct cgw_sched sc;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/stat", t->tgid, t->tid);
		ssize_t r = read_small_file(path, buf, sizeof(buf));
		double mono = mono_ms();
		if (r < 0 || parse_stat_buf(buf, (size_t)r, &st) < 0 || st.tid != t->tid) {
			t->gone = true;
			continue;
		}
		snprintf(path, sizeof(path), "/proc/%d/task/%d/sched", t->tgid, t->tid);
		r = read_small_file(path, buf, sizeof(buf));
		bool parsed = r >= 0 && parse_sched_buf(buf, &sc) == 0;
		if (t->sched_error[0]) {
			/* its time is unknown, named already: kept while it is the same task in the
			 * same state */
			if (st.state != t->state || st.start_ticks != t->start_ticks) {
				t->gone = true;
				continue;
			}
		} else {
			if (!parsed && r >= 0) {
				char why[128];
				scan_unreadable(s, path, "%s at the last look; the task is left out",
				                sched_why(buf, r, &sc, why, sizeof(why)));
			}
			if (!parsed || !seen_still(&t->seen, &st, &sc)) {
				t->gone = true;
				continue;
			}
		}
		if (!s->live)
			continue;                 /* a replay's files stand still */
		double dt = mono - t->read_mono_ms;
		if (t->bound != BOUND_UNKNOWN)
			t->blocked_s += dt / 1000.0;
		if (t->age_s >= 0)
			t->age_s += dt / 1000.0;
		t->now.ms += dt;
		t->read_mono_ms = mono;
	}
	drop_gone(s);
}

/* At the second look, how much of its CPU each runnable task on a starved task's CPU took:
 * the spinner is the one near 100 %. The daemon measures over the whole interval since its
 * previous scan when that scan saw the same thread. Only live: a replay's files stand still. */
static void runner_shares(struct cgw_scan *s, const struct cgw_scan_opts *o)
{
	if (!s->live)
		return;
	for (size_t i = 0; i < s->nrunners; i++) {
		struct cgw_runner *r = &s->runners[i];
		bool wanted = false;
		for (size_t j = 0; j < s->n && !wanted; j++)
			wanted = s->t[j].suspect == SUSPECT_STARVED && s->t[j].cpu == r->cpu &&
			         s->t[j].tid != r->tid;
		if (!wanted)
			continue;
		char path[96], buf[FILE_BUF];
		struct cgw_sched sc;
		snprintf(path, sizeof(path), "/proc/%d/task/%d/sched", r->tgid, r->tid);
		ssize_t n = read_small_file(path, buf, sizeof(buf));
		if (n < 0)
			continue;
		if (parse_sched_buf(buf, &sc) < 0) {
			char why[128];
			scan_unreadable(s, path, "%s; its share of the CPU is unknown",
			                sched_why(buf, n, &sc, why, sizeof(why)));
			continue;
		}
		double now = mono_ms(), dt = now - r->read_mono_ms;
		if (dt > 0) {
			r->share = (sc.sum_exec_ms - r->sum_exec_ms) / dt;
			r->share_window_s = dt / 1000.0;
		}
		for (size_t p = 0; p < o->nprev_runners; p++) {
			const struct cgw_runner *q = &o->prev_runners[p];
			if (q->tid != r->tid || q->cpu != r->cpu || sc.sum_exec_ms < q->sum_exec_ms)
				continue;
			double w = now - q->read_mono_ms;
			if (w > dt) {
				r->share = (sc.sum_exec_ms - q->sum_exec_ms) / w;
				r->share_window_s = w / 1000.0;
			}
			break;
		}
	}
}

/* se.exec_start is when a task last ran. A task woken a moment ago from a long sleep is R
 * with an old exec_start, yet it is not starved: it will run within milliseconds. So an R
 * suspect is looked at again after STARVE_CONFIRM_MS and kept only if it is still runnable
 * and has not run since (the hung-task detector's own test, over a short window). */
#define STARVE_CONFIRM_MS 100

static void confirm_starved(struct cgw_scan *s, const struct cgw_scan_opts *o)
{
	bool any = false;
	for (size_t i = 0; i < s->n && !any; i++)
		any = s->t[i].suspect == SUSPECT_STARVED;
	if (!any)
		return;
	if (s->live)
		usleep(STARVE_CONFIRM_MS * 1000);
	runner_shares(s, o);
	recheck(s, SUSPECT_STARVED);
}

int scan_run(struct cgw_scan *s, const struct cgw_scan_opts *o)
{
	uint64_t t0 = now_usec();
	char buf[FILE_BUF];
	s->live = o->self_tgid != 0;
	ssize_t r = read_small_file("/proc/self/sched", buf, sizeof(buf));
	struct cgw_sched self;
	if (r < 0)
		return (int)r;
	/* the reader's own se.exec_start is "now" on the clock every duration is measured on:
	 * without it no task can be timed, and a hung host would look healthy */
	if (parse_sched_buf(buf, &self) < 0 || self.exec_start_ms <= 0) {
		char why[128];
		if (self.have_exec_start)
			snprintf(why, sizeof(why), "se.exec_start is 0, not a time");
		else
			sched_why(buf, r, &self, why, sizeof(why));
		snprintf(s->fatal, sizeof(s->fatal), "/proc/self/sched: %s: cgwatch cannot time any "
		         "task without its own clock, so it cannot tell a hung host from a healthy "
		         "one", why);
		return -EINVAL;
	}
	s->now_ms = self.exec_start_ms;
	s->now_mono_ms = mono_ms();
	if ((r = read_small_file("/proc/uptime", buf, sizeof(buf))) > 0) {
		if (parse_uptime(buf, &s->uptime_s) == 0) {
			s->uptime_mono_ms = mono_ms();
		} else {
			char v[48];
			s->uptime_s = 0;
			scan_unreadable(s, "/proc/uptime", "not an uptime (%s); task ages are unknown",
			                cescape(buf, strcspn(buf, " \n") > 24 ? 24 : strcspn(buf, " \n"),
			                        v, sizeof(v)));
		}
	}
	if (!(s->rq_latest = calloc(CGW_MAX_CPUS, sizeof(*s->rq_latest)))) {
		snprintf(s->fatal, sizeof(s->fatal), "out of memory: the scan was not started");
		return -ENOMEM;
	}

	if (read_small_file("/proc/sys/kernel/hostname", s->host, sizeof(s->host)) >= 0)
		s->host[strcspn(s->host, "\n")] = '\0';
	if (read_small_file("/proc/sys/kernel/osrelease", s->kernel, sizeof(s->kernel)) >= 0)
		s->kernel[strcspn(s->kernel, "\n")] = '\0';
	cgroup_mounts_read(s);
	topology_read(s);

	DIR *proc = opendir("/proc");
	if (!proc)
		return -errno;
	if (o->fdcache)
		fdcache_begin(o->fdcache);
	if (o->history)
		history_begin(o->history);
	struct dirent *de;
	unsigned seen = 0;
	while ((de = readdir(proc))) {
		if ((++seen & 255) == 0 && cgw_stop_pending()) {
			closedir(proc);
			if (o->fdcache)
				fdcache_end(o->fdcache);
			return -ECANCELED;        /* the daemon is stopping */
		}
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0 || end == de->d_name)
			continue;
		if (o->self_tgid && pid == o->self_tgid)
			continue;
		char path[64];
		snprintf(path, sizeof(path), "/proc/%ld/task", pid);
		int taskfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (taskfd < 0)
			continue;                 /* gone */
		DIR *task = fdopendir(taskfd);
		if (!task) {
			close(taskfd);
			continue;
		}
		struct dirent *te;
		while ((te = readdir(task)))
			if (te->d_name[0] >= '0' && te->d_name[0] <= '9')
				scan_thread(s, o, dirfd(task), (int)pid, te->d_name);
		closedir(task);
	}
	closedir(proc);
	if (!s->nomem)
		relook_runners(s, o);
	if (o->fdcache)
		fdcache_end(o->fdcache);
	if (s->nomem) {                       /* incomplete: not a picture of the host */
		snprintf(s->fatal, sizeof(s->fatal), "out of memory after %zu threads: the scan "
		         "is incomplete and not used", s->threads);
		return -ENOMEM;
	}
	if (o->history)
		history_commit(o->history);

	correct_clocks(s, o);
	confirm_starved(s, o);
	for (size_t i = 0; i < s->n; i++) {
		if (cgw_stop_pending())
			return -ECANCELED;
		scan_suspect(s, &s->t[i], o->read_timeout_ms);
	}
	procdetail_fill(s, o->read_timeout_ms);
	recheck(s, SUSPECT_NONE);
	s->scan_usec = now_usec() - t0;
	if (s->nomem) {
		snprintf(s->fatal, sizeof(s->fatal), "out of memory reading the suspects: the scan "
		         "is incomplete and not used");
		return -ENOMEM;
	}
	return 0;
}

void scan_free(struct cgw_scan *s)
{
	for (size_t i = 0; i < s->n; i++) {
		frames_free(s->t[i].frames, s->t[i].nframes);
		free(s->t[i].marks);
		free(s->t[i].wait_path);
		free(s->t[i].wait_mnt);
	}
	free(s->t);
	free(s->procs);
	free(s->rq_latest);
	free(s->clocks);
	free(s->runners);
	free(s->unreadable);
	for (size_t i = 0; i < s->nmntns; i++)
		free(s->mntns[i].text);
	free(s->mntns);
	memset(s, 0, sizeof(*s));
}
