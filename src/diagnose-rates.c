/* diagnose-rates.c: the cgroup activity counts and rates as evidence for the cgroup findings. */
#include <errno.h>
#include <fcntl.h>
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

/* ---------------------------------------------------------------------------------------
 * correlators: evidence for the cgroup findings.
 *
 * A replay has no perf and no window: every line there is a count read from the captured
 * tree (/proc/cgroups, /proc/stat, /proc/uptime, mountinfo, the scanned tasks), so a fixture
 * gives the same evidence on every run. Live, the same lines carry the counts and rates of
 * the window, and say which source they come from. */

static bool has_any(const struct cgw_task *t, const char *const *names)
{
	for (; *names; names++)
		if (task_has_frame(t, *names))
			return true;
	return false;
}

static bool perf_counted(const struct cgw_rates *rt, enum rates_ev e)
{
	return rt && rt->source == RATES_SRC_PERF && !rt->ev[e].missing;
}

/* "12 (12.0/s)" or, without a window, "12". */
static const char *count_str(const struct cgw_rates *rt, const struct rates_count *c,
                             char *buf, size_t cap)
{
	if (rates_has_rate(rt))
		snprintf(buf, cap, "%llu (%.1f/s)", (unsigned long long)c->count, c->per_s);
	else
		snprintf(buf, cap, "%llu", (unsigned long long)c->count);
	return buf;
}

/* Why tracepoints were not counted, once per finding. */
static void no_tracepoints(struct strbuf *ev, const struct cgw_rates *rt)
{
	if (!rt)
		sb_printf(ev, "cgroup activity was not measured in this run\n");
	else if (rt->source != RATES_SRC_PERF)
		sb_printf(ev, "no tracepoint counts: %s\n", rt->ev[RATE_MKDIR].why);
}

/* The controllers of /proc/cgroups grouped by v1 hierarchy: "cpu,cpuacct". */
struct hgroup { int hierarchy; char names[128]; long num, change; };

static size_t v1_groups(const struct cgw_rates *rt, struct hgroup *g, size_t cap)
{
	size_t n = 0;
	for (size_t i = 0; i < rt->nctrl; i++) {
		const struct rates_ctrl *c = &rt->ctrl[i];
		if (c->hierarchy == 0 || !c->enabled)
			continue;
		size_t k = 0;
		while (k < n && g[k].hierarchy != c->hierarchy)
			k++;
		if (k == n) {
			if (n == cap)
				continue;
			memset(&g[n], 0, sizeof(g[n]));
			g[n].hierarchy = c->hierarchy;
			g[n].num = c->num_cgroups;
			g[n].change = c->change;
			n++;
		}
		size_t l = strlen(g[k].names);
		snprintf(g[k].names + l, sizeof(g[k].names) - l, "%s%s", l ? "," : "", c->name);
	}
	return n;
}

static void churn_lines(struct strbuf *ev, const struct cgw_rates *rt)
{
	char a[64], b[64];
	if (!rt)
		return;
	if (rt->source == RATES_SRC_PERF) {
		if (!rt->ev[RATE_MKDIR].missing && !rt->ev[RATE_RMDIR].missing)
			sb_printf(ev, "tracepoints cgroup:cgroup_mkdir and cgroup:cgroup_rmdir over the "
			          "last %.1f s: %s cgroups created, %s removed\n", rt->window_s,
			          count_str(rt, &rt->ev[RATE_MKDIR], a, sizeof(a)),
			          count_str(rt, &rt->ev[RATE_RMDIR], b, sizeof(b)));
		for (int e = RATE_MKDIR; e <= RATE_RMDIR; e++)
			if (rt->ev[e].missing)
				sb_printf(ev, "%s not counted: %s\n", rates_ev_name(e), rt->ev[e].why);
		return;
	}
	if (rt->cgroups_err[0]) {
		sb_printf(ev, "%s\n", rt->cgroups_err);
		return;
	}
	struct hgroup g[RATES_MAX_CTRL];
	size_t n = v1_groups(rt, g, RATES_MAX_CTRL);
	struct strbuf l = { 0 };
	if (rates_windowed(rt)) {           /* live, or a live run's counts as captured */
		size_t changed = 0;
		for (size_t k = 0; k < n; k++)
			if (g[k].change) {
				sb_printf(&l, "%s%s %+ld", changed++ ? ", " : "", g[k].names, g[k].change);
			}
		sb_printf(ev, "/proc/cgroups over the last %.1f s: net change of cgroups per v1 "
		          "hierarchy: %s (creations and removals within the window cancel out; "
		          "named hierarchies without controllers are not listed there)\n",
		          rt->window_s, n == 0 ? "no controller is on a v1 hierarchy" :
		          changed ? l.s : "none");
	} else {
		for (size_t k = 0; k < n; k++)
			sb_printf(&l, "%s%s %ld", k ? ", " : "", g[k].names, g[k].num);
		sb_printf(ev, "/proc/cgroups: cgroups per v1 hierarchy: %s (named hierarchies without "
		          "controllers are not listed there; a replay has counts, not rates)\n",
		          n ? l.s : "no controller is on a v1 hierarchy");
	}
	sb_free(&l);
}

static void link_pidlist(struct cgw_report *r, struct cgw_finding *f, const struct cgw_rates *rt,
                         const struct rates_host *h)
{
	struct strbuf *ev = &f->evidence;
	char a[CGW_COMM_MAX * 4 + 64], c1[64];

	/* which v1 hierarchies are mounted: named ones first, where private churn usually is */
	if (!h->mountinfo) {
		sb_printf(ev, "/proc/self/mountinfo: not read (%s)\n",
		          h->mountinfo_err ? h->mountinfo_err : "unknown error");
	} else {
		struct v1_hier hv[64];
		int nh = parse_mountinfo_v1(h->mountinfo, hv, 64);
		if (nh == 0) {
			sb_printf(ev, "/proc/self/mountinfo: no cgroup v1 hierarchy is mounted (the "
			          "pidlist cache exists only on v1)\n");
		} else {
			struct strbuf l = { 0 };
			int k = 0;
			for (int pass = 0; pass < 2; pass++)
				for (int i = 0; i < nh; i++) {
					if (hv[i].named != (pass == 0))
						continue;
					char o[512], m[1024];
					sb_printf(&l, "%s%s at %s", k++ ? ", " : "",
					          cescape(hv[i].opts, strlen(hv[i].opts), o, sizeof(o)),
					          cescape(hv[i].mnt, strlen(hv[i].mnt), m, sizeof(m)));
				}
			sb_printf(ev, "/proc/self/mountinfo: %d cgroup v1 hierarch%s mounted: %s\n", nh,
			          nh == 1 ? "y" : "ies", l.s);
			sb_free(&l);
		}
	}

	/* churn, and the work queued on the shared destroy workqueue */
	no_tracepoints(ev, rt);
	churn_lines(ev, rt);
	if (perf_counted(rt, RATE_WQ_PIDLIST))
		sb_printf(ev, "tracepoint workqueue:workqueue_queue_work with workqueue == "
		          "\"cgroup_pidlist_destroy\": %s work items queued in %.1f s\n",
		          count_str(rt, &rt->ev[RATE_WQ_PIDLIST], c1, sizeof(c1)), rt->window_s);
	else if (rt && rt->source == RATES_SRC_PERF)
		sb_printf(ev, "work queued on cgroup_pidlist_destroy not counted: %s\n",
		          rt->ev[RATE_WQ_PIDLIST].why);

	/* the kworkers running (+) or last running (-) pidlist destroy work */
	const struct cgw_scan *s = r->scan;
	size_t nk = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct cgw_task *t = &s->t[i];
		const char *wq = strncmp(t->comm, "kworker/", 8) == 0 ?
		                 strstr(t->comm, "cgroup_pidlist_destroy") : NULL;
		if (!wq || wq == t->comm || (wq[-1] != '+' && wq[-1] != '-') || wq[22] != '\0')
			continue;
		char st[80], d[48];
		if (t->state == 'D')
			snprintf(st, sizeof(st), "blocked (D) for %s", dur_text(task_dur(t), d, sizeof(d)));
		else if (t->state == 'R')
			snprintf(st, sizeof(st), "runnable (R), waiting %s",
			         dur_text(task_dur(t), d, sizeof(d)));
		else
			snprintf(st, sizeof(st), "state %c", t->state);
		sb_printf(ev, "/proc/%d/task/%d/stat: %s %s cgroup_pidlist_destroy work, %s on CPU %d\n",
		          t->tgid, t->tid, task_name(t, a, sizeof(a)),
		          wq[-1] == '+' ? "is running" : "last ran", st, t->cpu);
		nk++;
	}
	if (!nk)
		sb_printf(ev, "no kworker with cgroup_pidlist_destroy in its name among the %zu blocked "
		          "or runnable threads of this scan (/proc/TID/stat)\n", s->n);
}

static void link_rstat(struct cgw_report *r, struct cgw_finding *f, const struct cgw_rates *rt,
                       const struct rates_host *h)
{
	static const char *const flush[] = { "cgroup_rstat_flush*", "css_rstat_flush*",
	                                     "mem_cgroup_flush_stats", "do_flush_stats", NULL };
	static const char *const reader[] = { "memory_stat_show", "memory_stat_format",
	                                      "memcg1_stat_format", NULL };
	static const char *const periodic[] = { "flush_memcg_stats_dwork", NULL };
	struct strbuf *ev = &f->evidence;
	char c1[64];

	if (perf_counted(rt, RATE_RSTAT_CONTENDED)) {
		sb_printf(ev, "tracepoint cgroup:cgroup_rstat_lock_contended: %s contended "
		          "acquisitions of the rstat lock in %.1f s%s\n",
		          count_str(rt, &rt->ev[RATE_RSTAT_CONTENDED], c1, sizeof(c1)), rt->window_s,
		          rt->ev[RATE_RSTAT_CONTENDED].count ? "" : ": no contention while measured");
	} else if (rt && rt->source == RATES_SRC_PERF) {
		sb_printf(ev, "rstat lock contention not counted: %s\n",
		          rt->ev[RATE_RSTAT_CONTENDED].why);
	} else {
		no_tracepoints(ev, rt);
	}

	/* who flushes: memory.stat readers, grouped by process */
	const struct cgw_scan *s = r->scan;
	size_t nflush = 0, nread = 0, nper = 0;
	struct proc { int tgid; size_t idx, threads; } pr[8];
	size_t npr = 0, more = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct cgw_task *t = &s->t[i];
		bool rd = has_any(t, reader);
		if (!rd && !has_any(t, flush))
			continue;
		nflush++;
		if (has_any(t, periodic))
			nper++;
		if (!rd)
			continue;
		nread++;
		size_t k = 0;
		while (k < npr && pr[k].tgid != t->tgid)
			k++;
		if (k < npr) {
			pr[k].threads++;
		} else if (npr < 8) {
			pr[npr++] = (struct proc){ t->tgid, i, 1 };
		} else {
			bool seen = false;
			for (size_t j = 0; j < i && !seen; j++)
				seen = s->t[j].tgid == t->tgid && has_any(&s->t[j], reader);
			more += !seen;
		}
	}
	if (!nflush) {
		sb_printf(ev, "no task of this scan has an rstat flush on its stack (/proc/TID/stack; "
		          "a task spinning on the lock is running, and a running task's stack reads "
		          "empty)\n");
	} else {
		sb_printf(ev, "/proc/TID/stack: %zu task%s of this scan %s in the cgroup rstat flush: "
		          "%zu reading memory.stat, %zu in the periodic stats flush worker, %zu other\n",
		          nflush, nflush == 1 ? "" : "s", nflush == 1 ? "is" : "are", nread, nper,
		          nflush - nread - nper);
	}
	if (npr) {
		struct strbuf l = { 0 };
		for (size_t k = 0; k < npr; k++) {
			const struct cgw_task *t = &s->t[pr[k].idx];
			char comm[CGW_COMM_MAX * 4], unit[512];
			cescape(t->comm, t->comm_len, comm, sizeof(comm));
			cescape(t->unit, strlen(t->unit), unit, sizeof(unit));
			sb_printf(&l, "%s%s PID %d (%zu thread%s%s%s)", k ? ", " : "", comm, t->tgid,
			          pr[k].threads, pr[k].threads == 1 ? "" : "s", unit[0] ? ", " : "", unit);
		}
		if (more)
			sb_printf(&l, " and %zu more process%s", more, more == 1 ? "" : "es");
		sb_printf(ev, "memory.stat readers (memory_stat_show on the stack): %s\n", l.s);
		sb_free(&l);
	}
	if (h->possible_cpus > 0)
		sb_printf(ev, "/sys/devices/system/cpu/possible: %d possible CPUs: every flush walks "
		          "each of them under the rstat lock\n", h->possible_cpus);
}

/* The cpu task groups every scheduler-domain rebuild visits; returns the visits, or -1. */
static long task_group_visits(struct cgw_report *r, struct cgw_finding *f,
                              const struct cgw_rates *rt, const struct rates_host *h)
{
	struct strbuf *ev = &f->evidence;
	int ncpu = 0;
	for (unsigned c = 0; c < CGW_MAX_CPUS; c++)
		ncpu += cpus_test(&r->scan->topo.online, c);
	const struct rates_ctrl *cpu = NULL;
	for (size_t i = 0; rt && i < rt->nctrl && !cpu; i++)
		if (strcmp(rt->ctrl[i].name, "cpu") == 0)
			cpu = &rt->ctrl[i];
	/* Cpu task groups from one small file, not a walk of thousands of cgroup directories:
	 * on v1, /proc/cgroups counts the cgroups of the cpu hierarchy (each has a task group);
	 * on cgroup2 it counts every cgroup of the hierarchy (checked on 6.18.44: a child without
	 * hugetlb still counts for hugetlb), so the root's cgroup.stat nr_subsys_cpu (6.9 and
	 * later) is the exact number, /proc/cgroups only an upper bound without it. */
	long groups = -1;
	char what[600];
	if (!rt) {
		sb_printf(ev, "cpu task groups not counted: cgroup activity was not measured\n");
	} else if (rt->cgroups_err[0]) {
		sb_printf(ev, "cpu task groups not counted: %s\n", rt->cgroups_err);
	} else if (!cpu || !cpu->enabled) {
		sb_printf(ev, "/proc/cgroups: the cpu controller is %s: no cpu task groups\n",
		          cpu ? "disabled" : "not listed");
	} else if (cpu->hierarchy) {
		groups = cpu->num_cgroups;
		snprintf(what, sizeof(what), "/proc/cgroups: %ld cgroups in the cpu hierarchy (v1 "
		         "hierarchy %d)", groups, cpu->hierarchy);
	} else {
		long n;
		char path[512];
		cescape(h->cgroup2_stat_path ? h->cgroup2_stat_path : "cgroup.stat",
		        strlen(h->cgroup2_stat_path ? h->cgroup2_stat_path : "cgroup.stat"), path,
		        sizeof(path));
		if (h->cgroup2_stat && parse_cgroup_stat_subsys(h->cgroup2_stat, "cpu", &n) == 0) {
			groups = n;
			snprintf(what, sizeof(what), "%s: %ld cgroups with the cpu controller "
			         "(nr_subsys_cpu)", path, groups);
		} else {
			groups = cpu->num_cgroups;
			snprintf(what, sizeof(what), "/proc/cgroups: %ld cgroups in the cgroup2 "
			         "hierarchy, an upper bound for those with the cpu controller (%s)", groups,
			         h->cgroup2_stat ? "cgroup.stat has no nr_subsys_cpu" :
			         "the cgroup2 root's cgroup.stat was not read");
		}
	}
	if (groups < 0)
		return -1;
	long visits = groups * ncpu;
	sb_printf(ev, "%s x %d online CPUs (/sys/devices/system/cpu/online) = %ld task-group visits "
	          "in every scheduler-domain rebuild, each CPU's with interrupts off\n", what, ncpu,
	          visits);
	return visits;
}

static void link_task_groups(struct cgw_report *r, struct cgw_finding *f, const struct cgw_rates *rt,
                             const struct rates_host *h)
{
	task_group_visits(r, f, rt, h);
}

static void link_sched(struct cgw_report *r, struct cgw_finding *f, const struct cgw_rates *rt,
                       const struct rates_host *h)
{
	struct strbuf *ev = &f->evidence;
	char c1[64];
	long visits = task_group_visits(r, f, rt, h);
	if (visits >= 0)
		sb_printf(ev, "that is %.2f times the 4000 x 32 = 128000 of the measurements below: the "
		          "cost grows linearly with both\n", (double)visits / 128000.0);
	if (perf_counted(rt, RATE_CPUHP_ENTER))
		sb_printf(ev, "tracepoint cpuhp:cpuhp_enter: %s CPU hotplug steps in %.1f s%s\n",
		          count_str(rt, &rt->ev[RATE_CPUHP_ENTER], c1, sizeof(c1)), rt->window_s,
		          rt->ev[RATE_CPUHP_ENTER].count ? ": a CPU is going offline or online" :
		          ": no hotplug step while measured");
	else if (rt && rt->source == RATES_SRC_PERF)
		sb_printf(ev, "CPU hotplug steps not counted: %s\n", rt->ev[RATE_CPUHP_ENTER].why);
	else
		no_tracepoints(ev, rt);
	sb_printf(ev, "yardstick (Qiliang Yuan, \"sched/fair: Cut per-group work from sched domain "
	          "rebuilds\", 2026-11-12): with 4000 cpu cgroups on a 32-CPU VM, medians of 13.3 ms "
	          "to switch a cpuset partition, 45.0 ms to take a CPU offline, 36.8 ms to bring it "
	          "online, and up to 0.94 ms with interrupts off in one rq_attach_root(); 1.2, 13.4 "
	          "and 12.8 ms with both patches\n");
}

static void link_fork(struct cgw_report *r, struct cgw_finding *f, const struct cgw_rates *rt)
{
	static const char *const forkp[] = { "cgroup_can_fork", "cgroup_css_set_fork",
	                                     "cgroup_post_fork", NULL };
	static const char *const exitp[] = { "exit_signals", NULL };
	static const char *const mover[] = { "cgroup_procs_write_start", "cgroup_attach_lock",
	                                     NULL };
	struct strbuf *ev = &f->evidence;
	char c1[64], a[CGW_COMM_MAX * 4 + 64];

	if (!rt) {
		sb_printf(ev, "fork rate not measured in this run\n");
	} else if (!rt->forks.missing && rt->forks_from[0]) {
		sb_printf(ev, "%s%s: %s forks in %.1f s\n",
		          rt->source == RATES_SRC_PERF && strcmp(rt->forks_from, "/proc/stat processes") ?
		          "tracepoint " : "", rt->forks_from, count_str(rt, &rt->forks, c1, sizeof(c1)),
		          rt->window_s);
	} else if (!rates_windowed(rt) && rt->have_processes && rt->uptime_s > 0) {
		sb_printf(ev, "/proc/stat: %llu processes forked since boot, in %.0f s of uptime "
		          "(/proc/uptime): %.1f forks/s on average (a replay has no window)\n",
		          rt->processes, rt->uptime_s, (double)rt->processes / rt->uptime_s);
	} else {
		sb_printf(ev, "forks not counted: %s\n", rt->forks.why);
	}
	if (perf_counted(rt, RATE_ATTACH))
		sb_printf(ev, "tracepoint cgroup:cgroup_attach_task: %s tasks moved between cgroups in "
		          "%.1f s; each move takes the thread-group lock exclusively\n",
		          count_str(rt, &rt->ev[RATE_ATTACH], c1, sizeof(c1)), rt->window_s);

	const struct cgw_scan *s = r->scan;
	size_t nf = 0, ne = 0, nm = 0;
	for (size_t i = 0; i < s->n; i++) {
		const struct cgw_task *t = &s->t[i];
		nf += has_any(t, forkp);
		ne += has_any(t, exitp);
		if (!has_any(t, mover))
			continue;
		if (nm++ < 4)
			sb_printf(ev, "/proc/%d/task/%d/stack: %s is moving tasks between cgroups (%s): "
			          "it takes the thread-group lock exclusively, and while it waits for it "
			          "or holds it every fork and exit on the host waits\n", t->tgid,
			          t->tid, task_name(t, a, sizeof(a)), task_has_frame(t, "cgroup_attach_lock") ?
			          "cgroup_attach_lock" : "cgroup_procs_write_start");
	}
	sb_printf(ev, "/proc/TID/stack: in this scan %zu task%s wait%s in the fork path "
	          "(cgroup_can_fork, cgroup_css_set_fork, cgroup_post_fork), %zu in exit "
	          "(exit_signals), %zu move%s tasks between cgroups\n", nf, nf == 1 ? "" : "s",
	          nf == 1 ? "s" : "", ne, nm, nm == 1 ? "s" : "");
}

/* The fork-lock correlator: the churn of forks and moves (and the state of a kernel fix). */
static void link_fork_lock(struct cgw_report *r, struct cgw_finding *f, const struct cgw_rates *rt,
                           const struct rates_host *h)
{
	(void)h;
	link_fork(r, f, rt);
}

/* A user's signature with the general cgroup-churn correlator. */
static void link_churn(struct cgw_report *r, struct cgw_finding *f, const struct cgw_rates *rt,
                       const struct rates_host *h)
{
	(void)h;
	no_tracepoints(&f->evidence, rt);
	churn_lines(&f->evidence, rt);
	link_fork(r, f, rt);
}

/* What the kernel's developers measured or changed, said after a correlator's evidence. */
static const char pidlist_fix[] =
	"fix: \"cgroup: avoid flushing global workqueue in "
	"cgroup1_pidlist_destroy_all\" (Junnan Zhang, v3, "
	"https://lore.kernel.org/all/20260915124010.18927-1-zhangjn_dev@163.com/): in its "
	"reproducer (64 CPUs, 1000 churners) a destroy took 1.0-1.3 ms on average and up "
	"to 253 ms unpatched, at most 0.2 ms patched\n";
static const char rstat_fix[] =
	"yardstick (\"cgroup/rstat: avoid disabling irqs for O(num_cpu)\", Eric Dumazet "
	"and Greg Thelen, 2025): on a 400+ CPU machine with 400 memory.stat reader threads "
	"the flush kept interrupts off for 45 ms; with the fix (Linux 6.15) the longest "
	"irq-off section found was 4 ms\n";
static const char fork_fix[] =
	"no kernel fix to wait for: the proposed removal of css_set_lock from the "
	"fork path (\"cgroup: avoid css_set_lock in cgroup_css_set_fork()\", v2, 2026) "
	"measured no gain: Michal Koutny's clone_processes runs on 40 CPUs / 80 "
	"threads gave 2.938e5 +- 1.1e3 iterations on 6.18.8 and 2.915e5 +- 1.1e3 "
	"with the patch\n";

/* The correlators that take evidence from the cgroup activity counts, by the name a
 * signature's `correlator =` gives, whether each reads the cgroup2 root's cgroup.stat
 * (the mount table and the possible CPUs come from the host snapshot), and the kernel fix
 * said after its evidence (NULL: none). */
enum { HOST_CGROUP2_STAT = 1 };
static const struct {
	const char *name;
	void (*fn)(struct cgw_report *r, struct cgw_finding *f, const struct cgw_rates *rt,
	           const struct rates_host *h);
	unsigned host;
	const char *fix;
} rates_correlators[] = {
	{ "cgroup1-pidlist", link_pidlist, 0, pidlist_fix },
	{ "rstat", link_rstat, 0, rstat_fix },
	{ "sched-domains", link_sched, HOST_CGROUP2_STAT, NULL },
	{ "cgroup-fork", link_fork_lock, 0, fork_fix },
	{ "cgroup-churn", link_churn, 0, NULL },
	{ "task-groups", link_task_groups, HOST_CGROUP2_STAT, NULL },
};
#define NRATES_CORR (sizeof(rates_correlators) / sizeof(rates_correlators[0]))

/* The entry of f's correlator, or -1 when it takes nothing from the counts. */
static ssize_t rates_corr_of(const struct cgw_finding *f)
{
	for (size_t c = 0; f->sig->correlator && c < NRATES_CORR; c++)
		if (strcmp(f->sig->correlator, rates_correlators[c].name) == 0)
			return (ssize_t)c;
	return -1;
}

void rates_link_host(struct cgw_report *r, const struct cgw_rates *rt, const struct rates_host *h)
{
	for (size_t k = 0; k < r->nf; k++) {
		ssize_t c = rates_corr_of(&r->f[k]);
		if (c < 0)
			continue;
		rates_correlators[c].fn(r, &r->f[k], rt, h);
		if (rates_correlators[c].fix)
			sb_printf(&r->f[k].evidence, "%s", rates_correlators[c].fix);
	}
}

/* The host files the findings' correlators read. */
static unsigned needs(const struct cgw_report *r)
{
	unsigned host = 0;
	for (size_t k = 0; k < r->nf; k++) {
		ssize_t c = rates_corr_of(&r->f[k]);
		if (c >= 0)
			host |= rates_correlators[c].host;
	}
	return host;
}

bool rates_needed(const struct cgw_report *r)
{
	for (size_t k = 0; k < r->nf; k++)
		if (rates_corr_of(&r->f[k]) >= 0)
			return true;
	return false;
}

void rates_link(struct cgw_report *r, const struct cgw_rates *rt)
{
	const struct cgw_scan *s = r->scan;
	struct rates_host h = { .possible_cpus = s->possible_cpus,
	                        .mountinfo = s->mountinfo,
	                        .mountinfo_err = s->mountinfo_err[0] ? s->mountinfo_err : NULL };
	unsigned timeout_ms = r->conf ? (unsigned)(r->conf->read_timeout_s * 1000) : 2000;
	unsigned host = needs(r);
	char *cst = NULL, cpath[300];
	if ((host & HOST_CGROUP2_STAT) &&
	    r->scan->cgroup2_mnt[0]) {
		snprintf(cpath, sizeof(cpath), "%s/cgroup.stat", r->scan->cgroup2_mnt);
		cst = try_malloc(4096);
		if (cst && dl_read_file(cpath, cst, 4096, timeout_ms) >= 0) {
			h.cgroup2_stat = cst;
			h.cgroup2_stat_path = cpath;
		}
	}
	rates_link_host(r, rt, &h);
	free(cst);
}
