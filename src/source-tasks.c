/* source-tasks.c: the task walk, one pass over every thread under /proc, after the host snapshot
 * (source-host.c); detect.c decides which threads are suspects and for how long.
 *
 * Per thread the scan reads only task/TID/stat (state, comm, cpu, policy). D and R threads
 * then get task/TID/sched (se.exec_start and the switch counts: how long since they last ran,
 * detect-duration.c) and task/TID/status (allowed CPUs). Only suspects (D past the threshold, R not
 * run for longer than the starvation threshold) get the reads that can block on the hang
 * itself (stack, wchan, cgroup, freezer state), each with a deadline. Those take time, and
 * tasks move on meanwhile: at the end every suspect's stat and sched are read again (or, for
 * many, the BPF program's records: detect.c), and one that is gone, reused, out of its state or
 * that ran since is dropped (its wait is over). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
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

struct cgw_task *scan_push(struct cgw_scan *s)
{
	if (grow((void **)&s->t, &s->cap, s->n, 64, sizeof(*s->t)) < 0) {
		s->nomem = true;
		return NULL;
	}
	struct cgw_task *t = &s->t[s->n++];
	memset(t, 0, sizeof(*t));
	return t;
}

void scan_proc_push(struct cgw_scan *s, int pid, int ppid, unsigned long long start)
{
	if (grow((void **)&s->procs, &s->procs_cap, s->nprocs, 256, sizeof(*s->procs)) < 0) {
		s->nomem = true;
		return;
	}
	s->procs[s->nprocs++] = (struct cgw_proc){ pid, ppid, start };
}

void scan_runner_push(struct cgw_scan *s, const struct cgw_stat *st, const struct cgw_sched *sc,
                      int tgid)
{
	if (grow((void **)&s->runners, &s->runners_cap, s->nrunners, 64, sizeof(*s->runners)) < 0) {
		s->nomem = true;
		return;
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
	r->nr_switches = sc->nr_switches;
	r->have_switches = sc->have_switches;
	r->have_delay = sc->have_delay;
	r->run_delay_ns = sc->run_delay_ns;
	r->pcount = sc->pcount;
	r->read_mono_ms = mono_ms();
	r->share = -1;
}

/* One thread: stat always; sched for D and R, which judge (the detector) then times and keeps
 * as a task or not; status for the tasks kept. A stat that cannot be parsed, or that names
 * another tid than its directory, is not used: the thread is skipped and the file named. A
 * sched that cannot be parsed is named, and judge is told why. */
static void scan_thread(struct cgw_scan *s, const struct cgw_scan_opts *o, int taskfd, int tgid,
                        const char *tidname, cgw_judge_fn judge)
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
		record_read(where, buf, r);   /* the daemon's pread, as a capture must keep it */
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
			scan_proc_push(s, tgid, st.ppid, st.start_ticks);
	}
	if (st.state != 'D' && st.state != 'R') {
		if (st.tid != tgid)           /* a capture keeps only what it may need */
			record_forget(where);
		return;
	}

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
	double mono = mono_ms();
	if (st.state == 'R' && !s->relook) {   /* every runnable thread: who gets the CPUs */
		if (st.cpu >= 0 && st.cpu < CGW_MAX_CPUS &&
		    sc.exec_start_ms > s->rq_latest[st.cpu].exec_start_ms)
			s->rq_latest[st.cpu] = (struct cgw_rq_floor){ sc.exec_start_ms, mono };
		scan_runner_push(s, &st, &sc, tgid);
	}
	struct cgw_sighting g = { &st, &sc, tgid, mono, why, false, 0, false, 0 };
	struct cgw_task *t = judge(s, o, &g);
	if (!t) {
		if (st.state == 'D' && st.tid != tgid) {    /* R ones stay: runners */
			snprintf(where, sizeof(where), "/proc/%d/task/%.20s/stat", tgid, tidname);
			record_forget(where);
			snprintf(where, sizeof(where), "/proc/%d/task/%.20s/sched", tgid, tidname);
			record_forget(where);
		}
		return;
	}

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

#define SUSPECT_GROUP 16               /* suspects whose reads are made in one batch */

/* The suspect before t in the scan is a thread of the same process with the same css_set
 * (the BPF scan's identity of a set of cgroups: see struct taskrec): t's cgroup file would
 * say what that one's said. done: and that one's was read (its answer is t's). */
static bool cgroup_as_before(const struct cgw_scan *s, const struct cgw_task *t, bool done)
{
	if (!s->live || !t->cgroups || t == s->t)
		return false;
	const struct cgw_task *p = t - 1;
	return p->cgroups == t->cgroups && p->tgid == t->tgid && (!done || p->cgroup_ok);
}

/* A blocked task's wchan is its kernel stack's first frame, the BPF program's read this scan:
 * the kernel finds both alike, the first return address outside the scheduler and locking
 * functions (__get_wchan; stack_trace_save_tsk skips those for a task not current). The file
 * is read where the stack is not the program's (a replay's wchan stands as it was written),
 * and for a runnable task (its wchan is 0). */
static bool wchan_from_stack(const struct cgw_scan *s, const struct cgw_task *t)
{
	return s->live && t->state == 'D' && t->stack_given && t->nframes > 0 && t->frames[0].name &&
	       strcmp(t->frames[0].name, "?") != 0;
}

/* What suspect_read reads of a task, planned ahead for a batch (dl_read_batch): the same
 * files in the same order, each decided as suspect_read, cgroup_frozen and waitfile_read
 * decide it from what the ones before said. A read they make that was not planned is made
 * on its own; one planned that they do not make costs its read only. */
struct suspect_plan {
	int tgid, tid;
	bool stack, wchan, cgroup, waitfile;
	bool v1_read;                     /* freezer.state was planned: the read before events */
	unsigned stage;
	char v2[256];                     /* the v2 cgroup its cgroup line names */
};

/* The suspects of one batch, one after another; and what they share: the freezer files of
 * their cgroups are read once (s->frz_memo), so one known to the scan or planned in this
 * batch already is not planned again. */
struct group_plan {
	struct suspect_plan one[SUSPECT_GROUP];
	size_t n, cur;
	bool live;
	char freezer_mnt[256], cgroup2_mnt[256];
	char known[2][FREEZER_PATH_MAX];
	bool known_v1_frozen;             /* known[0] from the memo says FROZEN */
	long known_v1_item;               /* known[0] planned in this batch: its item; -1 */
};

static bool plan_one(struct group_plan *g, struct suspect_plan *p, const struct dl_item *done,
                     size_t n, char *path, size_t cap, off_t *off, size_t *bufcap)
{
	const struct dl_item *last = n ? &done[n - 1] : NULL;
	unsigned long addr;
	size_t fcap = cap < FREEZER_PATH_MAX ? cap : FREEZER_PATH_MAX;
	*off = -1;
	for (;;) {
		switch (p->stage++) {
		case 0:                       /* the kernel stack, unless the walk gave it */
			if (!p->stack)
				continue;
			snprintf(path, cap, "/proc/%d/task/%d/stack", p->tgid, p->tid);
			*bufcap = STACK_BUF;
			return true;
		case 1:
			if (!p->wchan)
				continue;
			snprintf(path, cap, "/proc/%d/task/%d/wchan", p->tgid, p->tid);
			*bufcap = 128;
			return true;
		case 2:
			if (!p->cgroup) {
				p->stage = 5;         /* nor its freezer files */
				continue;
			}
			snprintf(path, cap, "/proc/%d/task/%d/cgroup", p->tgid, p->tid);
			*bufcap = STACK_BUF;
			return true;
		case 3: {                     /* its freezer state (v1), then its events (v2) */
			char v1[256], sd[256];
			if (last->r < 0 ||
			    parse_cgroup_buf(last->buf, "freezer", v1, sizeof(v1), p->v2,
			                     sizeof(p->v2)) == -EINVAL ||
			    parse_cgroup_buf(last->buf, "name=systemd", sd, sizeof(sd), NULL, 0) ==
			    -EINVAL) {
				p->stage = 5;
				continue;
			}
			if (!freezer_file(g->freezer_mnt, v1, "freezer.state", path, fcap))
				continue;
			if (strcmp(path, g->known[0]) == 0) {
				const struct dl_item *k = g->known_v1_item >= 0 &&
				                          (size_t)g->known_v1_item < n ?
				                          &done[g->known_v1_item] : NULL;
				if (k ? freezer_state_frozen(k->buf, k->r) : g->known_v1_frozen)
					p->stage = 5;     /* frozen (v1): its events are not asked for */
				continue;
			}
			snprintf(g->known[0], sizeof(g->known[0]), "%s", path);
			g->known_v1_item = (long)n;
			p->v1_read = true;
			*bufcap = FREEZER_BUF;
			return true;
		}
		case 4:
			if ((p->v1_read && freezer_state_frozen(last->buf, last->r)) ||
			    !freezer_file(g->cgroup2_mnt, p->v2, "cgroup.events", path, fcap) ||
			    strcmp(path, g->known[1]) == 0)
				continue;
			snprintf(g->known[1], sizeof(g->known[1]), "%s", path);
			*bufcap = FREEZER_BUF;
			return true;
		case 5:                       /* the file it waits on: its syscall line */
			if (!p->waitfile)
				return false;
			snprintf(path, cap, "/proc/%d/task/%d/syscall", p->tgid, p->tid);
			*bufcap = WAITFILE_LINE;
			return true;
		case 6:                       /* and the path in its memory */
			if (!g->live || !waitfile_mem_addr(last->buf, last->r, &addr))
				return false;
			snprintf(path, cap, "/proc/%d/task/%d/mem", p->tgid, p->tid);
			*off = (off_t)addr;
			*bufcap = PATH_MAX;
			return true;
		default:
			return false;
		}
	}
}

static bool group_next(const struct dl_item *done, size_t n, void *ctx, char *path,
                       size_t cap, off_t *off, size_t *bufcap)
{
	struct group_plan *g = ctx;
	for (; g->cur < g->n; g->cur++)
		if (plan_one(g, &g->one[g->cur], done, n, path, cap, off, bufcap))
			return true;
	return false;
}

static void suspect_read(struct cgw_scan *s, struct cgw_task *t, unsigned timeout_ms);

/* The suspects' reads that can block on the hang: those of SUSPECT_GROUP suspects at a time
 * made ahead in one job of the deadline's worker (2,000 blocked threads made 12,000
 * hand-offs, one a file), each read with its own deadline, then taken by suspect_read as
 * it asks for them. */
static void scan_group(struct cgw_scan *s, size_t first, size_t n, unsigned timeout_ms)
{
	if (s->timeouts >= SCAN_MAX_TIMEOUTS)        /* each read is skipped (-ETIME) */
		return;
	struct group_plan *g = calloc(1, sizeof(*g));
	if (!g)
		return;                                /* each read made on its own */
	for (size_t i = 0; i < n; i++) {
		const struct cgw_task *t = &s->t[first + i];
		g->one[i] = (struct suspect_plan){ .tgid = t->tgid, .tid = t->tid,
		                                   .stack = !t->stack_given,
		                                   .wchan = !wchan_from_stack(s, t),
		                                   .cgroup = !cgroup_as_before(s, t, false),
		                                   .waitfile = waitfile_wanted(t) };
	}
	g->n = n;
	g->live = s->live;
	snprintf(g->freezer_mnt, sizeof(g->freezer_mnt), "%s", s->freezer_mnt);
	snprintf(g->cgroup2_mnt, sizeof(g->cgroup2_mnt), "%s", s->cgroup2_mnt);
	for (int k = 0; k < 2 && s->frz_memo; k++)
		snprintf(g->known[k], sizeof(g->known[k]), "%s", s->frz_memo[k].path);
	g->known_v1_frozen = s->frz_memo &&
	                     freezer_state_frozen(s->frz_memo[0].buf, s->frz_memo[0].r);
	g->known_v1_item = -1;
	s->prefetch = dl_read_batch(group_next, g, sizeof(*g), timeout_ms);
	free(g);
}

static void suspect_read(struct cgw_scan *s, struct cgw_task *t, unsigned timeout_ms)
{
	char path[128], *buf = malloc(STACK_BUF);
	if (!buf && t->stack_given) {
		s->nomem = true;
		return;
	}
	if (!buf) {
		snprintf(t->stack_error, sizeof(t->stack_error), "stack not read: out of memory");
		s->nomem = true;
		return;
	}
	snprintf(path, sizeof(path), "/proc/%d/task/%d/stack", t->tgid, t->tid);
	/* the scan's own read of it (source-bpf.c) */
	ssize_t r = t->stack_given ? 0 : scan_read(s, path, buf, STACK_BUF, timeout_ms);
	if (t->stack_given)
		;
	else if (r == -ETIMEDOUT)
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
	r = wchan_from_stack(s, t) ? 0 : scan_read(s, path, buf, 128, timeout_ms);
	if (wchan_from_stack(s, t))
		snprintf(t->wchan, sizeof(t->wchan), "%s", t->frames[0].name);
	else if (r > 0) {
		char clean[64];
		snprintf(t->wchan, sizeof(t->wchan), "%s", frame_name(buf, clean, sizeof(clean)));
		if (strcmp(t->wchan, "0") == 0)
			t->wchan[0] = '\0';
	}

	if (cgroup_as_before(s, t, true)) {     /* the thread before's answer */
		const struct cgw_task *p = t - 1;
		memcpy(t->cgroup, p->cgroup, sizeof(t->cgroup));
		memcpy(t->unit, p->unit, sizeof(t->unit));
		memcpy(t->frozen_cg, p->frozen_cg, sizeof(t->frozen_cg));
		t->frozen = p->frozen;
		t->frozen_v1 = p->frozen_v1;
		t->cgroup_ok = true;
		free(buf);
		waitfile_read(s, t, timeout_ms);
		return;
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
			const char *fz = cgroup_frozen(s, v1, v2, timeout_ms);
			t->frozen = fz != NULL;
			t->frozen_v1 = fz == v1;
			snprintf(t->frozen_cg, sizeof(t->frozen_cg), "%s", fz ? fz : "");
			t->cgroup_ok = true;
		}
	}
	free(buf);
	waitfile_read(s, t, timeout_ms);
}

int scan_begin(struct cgw_scan *s, const struct cgw_scan_opts *o)
{
	char buf[FILE_BUF];
	s->live = o->self_tgid != 0;
	snprintf(s->source, sizeof(s->source), "%s", o->bpf ? "bpf" : "proc");
	snprintf(s->source_why, sizeof(s->source_why), "%s", o->source_why ? o->source_why : "");
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
	if (!s->live && o->root)
		capture_replay_load(s, o->root, o->read_timeout_ms);   /* a capture's clocks */
	if (!(s->rq_latest = calloc(CGW_MAX_CPUS, sizeof(*s->rq_latest)))) {
		snprintf(s->fatal, sizeof(s->fatal), "out of memory: the scan was not started");
		return -ENOMEM;
	}
	host_read(s, o->read_timeout_ms);
	return 0;
}

int scan_walk(struct cgw_scan *s, const struct cgw_scan_opts *o, cgw_judge_fn judge)
{
	DIR *proc = opendir("/proc");
	if (!proc)
		return -errno;
	struct dirent *de;
	unsigned seen = 0;
	while ((de = readdir(proc))) {
		if ((++seen & 255) == 0 && cgw_stop_pending()) {
			closedir(proc);
			return -ECANCELED;        /* the daemon is stopping */
		}
		char *end;
		long pid = strtol(de->d_name, &end, 10);
		if (*end || pid <= 0 || end == de->d_name)
			continue;
		if (o->self_tgid && pid == o->self_tgid)
			continue;
		scan_walk_pid(s, o, (int)pid, judge);
	}
	closedir(proc);
	return 0;
}

void scan_walk_pid(struct cgw_scan *s, const struct cgw_scan_opts *o, int pid, cgw_judge_fn judge)
{
	char path[64];
	snprintf(path, sizeof(path), "/proc/%d/task", pid);
	int taskfd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (taskfd < 0)
		return;                       /* gone */
	DIR *task = fdopendir(taskfd);
	if (!task) {
		close(taskfd);
		return;
	}
	struct dirent *te;
	while ((te = readdir(task)))
		if (te->d_name[0] >= '0' && te->d_name[0] <= '9')
			scan_thread(s, o, dirfd(task), pid, te->d_name, judge);
	closedir(task);
}

void scan_thread_again(struct cgw_scan *s, const struct cgw_scan_opts *o, int tgid, int tid,
                       cgw_judge_fn judge)
{
	char path[64], name[16];
	snprintf(path, sizeof(path), "/proc/%d/task", tgid);
	snprintf(name, sizeof(name), "%d", tid);
	int fd = open(path, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (fd < 0)
		return;                       /* gone */
	s->relook = true;
	scan_thread(s, o, fd, tgid, name, judge);
	s->relook = false;
	close(fd);
}

int scan_suspects(struct cgw_scan *s, const struct cgw_scan_opts *o)
{
	for (size_t i = 0; i < s->n; i++) {
		if (cgw_stop_pending()) {
			dl_batch_free(s->prefetch);
			s->prefetch = NULL;
			return -ECANCELED;
		}
		if (i % SUSPECT_GROUP == 0) {
			dl_batch_free(s->prefetch);
			s->prefetch = NULL;
			scan_group(s, i, s->n - i < SUSPECT_GROUP ? s->n - i : SUSPECT_GROUP,
			           o->read_timeout_ms);
		}
		suspect_read(s, &s->t[i], o->read_timeout_ms);
	}
	dl_batch_free(s->prefetch);
	s->prefetch = NULL;
	procdetail_fill(s, o->read_timeout_ms);
	return 0;
}

void scan_discard_walk(struct cgw_scan *s)
{
	for (size_t i = 0; i < s->n; i++)
		frames_free(s->t[i].frames, s->t[i].nframes);
	s->n = s->nprocs = s->nrunners = s->threads = s->untimed = 0;
	if (s->rq_latest)
		memset(s->rq_latest, 0, CGW_MAX_CPUS * sizeof(*s->rq_latest));
}

void scan_free(struct cgw_scan *s)
{
	for (size_t i = 0; i < s->n; i++) {
		frames_free(s->t[i].frames, s->t[i].nframes);
		free(s->t[i].marks);
		free(s->t[i].wait_path);
		free(s->t[i].wait_mnt);
		free(s->t[i].uframes);
	}
	free(s->t);
	free(s->procs);
	free(s->rq_latest);
	free(s->clocks);
	free(s->runners);
	free(s->unreadable);
	free(s->mountinfo);
	for (size_t i = 0; i < s->nmntns; i++)
		free(s->mntns[i].text);
	free(s->mntns);
	if (s->mnt_memo)
		free(s->mnt_memo->path);
	free(s->mnt_memo);
	free(s->frz_memo);
	free(s->replay_clocks);
	free(s->replay_rates);
	if (s->replay_recorder)
		recwin_free(s->replay_recorder);
	free(s->replay_recorder);
	free(s->replay_root);
	memset(s, 0, sizeof(*s));
}
