/* source-runq.c: run-queue latency, per CPU, over the interval between two samples.
 *
 * Two sources. Where BPF tracing is allowed, a tp_btf program on sched_switch
 * (src/bpf/runqlat.bpf.c) measures every wait in the kernel (enqueue to switch-in: the growth
 * of the task's sched_info.run_delay over one arrival) into a per-CPU histogram with the
 * longest waits and the task that ran longest without a switch; read and reset once per
 * sample. Otherwise the scheduler's own per-task accounting: time run, time waited and
 * slices (sched_info's run_delay and pcount as the scan's task iterator read them;
 * /proc/TID/schedstat for a /proc scan) of the runnable and blocked threads the scan read,
 * whose deltas between two samples give each task's mean wait per slice on its CPU; a
 * coarser measure (a mean, not each wait, and only of the tasks the scan saw in both
 * samples), said so in `source`. */
#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <errno.h>
#include <linux/types.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgwatch.h"
#include "bpf/runqrec.h"
#include "runqlat.skel.h"

#define SRC_TRACEPOINT "sched_switch"
#define SRC_SCHEDSTAT "schedstat: the mean wait per slice of the threads each scan reads " \
	"(their sched_info run_delay and pcount deltas), coarser than each wait"

struct prev_task { int tid; char comm[16]; struct cgw_schedstat st; bool seen; };

struct cgw_runq_src {
	struct runqlat *skel;
	struct bpf_link *link, *link_new;    /* sched_switch, sched_wakeup_new */
	int ncpu;                        /* possible CPUs: the per-CPU map's values */
	struct runqrec *vals, *zero;
	double last_ms;                  /* CLOCK_MONOTONIC of the last sample */
	struct prev_task *prev; size_t nprev;   /* schedstat: the last sample's tasks */
	struct cgw_runq_total total[RUNQ_NGROUPS];
	char missing[256];
	char why[320];
	struct cgw_tlrun *tl;            /* timerlat over the interval in progress, or NULL */
	struct cgw_cpus tl_cpus;         /* where it runs */
	char tl_why[200];                /* where it runs, or why it could not start */
	unsigned tl_timeout_ms;
};

static char runq_libbpf[256];

static int runq_libbpf_print(enum libbpf_print_level level, const char *fmt, va_list ap)
{
	if (level == LIBBPF_WARN) {
		char line[256];
		vsnprintf(line, sizeof(line), fmt, ap);
		line[strcspn(line, "\n")] = '\0';
		if (line[0])
			snprintf(runq_libbpf, sizeof(runq_libbpf), "%s", line);
	}
	return 0;
}

/* The tracefs latency tracers this kernel lacks, as a sentence; "" when it has them all. */
static void runq_missing(char *out, size_t cap)
{
	static const char *const want[][2] = {
		{ "osnoise", "OS noise (osnoise)" },
		{ "timerlat", "timer latency (timerlat)" },
		{ "irqsoff", "interrupts-off spans (irqsoff)" },
	};
	char buf[4096];
	ssize_t n = read_small_file("/sys/kernel/tracing/available_tracers", buf, sizeof(buf));
	if (n < 0) {
		snprintf(out, cap, "interrupts-off spans, OS noise and timer latency: tracefs "
		         "available_tracers not readable (%s)", strerror((int)-n));
		return;
	}
	struct strbuf b = { 0 };
	for (size_t i = 0; i < sizeof(want) / sizeof(want[0]); i++) {
		bool have = false;
		for (char *p = buf; *p && !have; ) {
			size_t l = strcspn(p, " \n");
			have = l == strlen(want[i][0]) && strncmp(p, want[i][0], l) == 0;
			p += l;
			p += strspn(p, " \n");
		}
		if (!have)
			sb_printf(&b, "%s%s", b.len ? ", " : "", want[i][1]);
	}
	if (b.len)
		snprintf(out, cap, "%s: not among this kernel's tracers", b.s);
	else
		out[0] = '\0';
	sb_free(&b);
}

static bool runq_bpf_open(struct cgw_runq_src *s)
{
	struct stat sb;
	if (stat("/sys/kernel/btf/vmlinux", &sb) < 0) {
		snprintf(s->why, sizeof(s->why), "no kernel BTF (/sys/kernel/btf/vmlinux: %s)",
		         strerror(errno));
		return false;
	}
	libbpf_print_fn_t old = libbpf_set_print(runq_libbpf_print);
	runq_libbpf[0] = '\0';
	int e = 0;
	s->skel = runqlat__open();
	if (!s->skel)
		e = errno;
	else if ((e = runqlat__load(s->skel)) != 0)
		e = e < 0 ? -e : e;
	else if (!(s->link_new = bpf_program__attach(s->skel->progs.cgw_wakeup_new)) ||
	         !(s->link = bpf_program__attach(s->skel->progs.cgw_switch)))
		e = errno ? errno : EINVAL;
	libbpf_set_print(old);
	if (e) {
		snprintf(s->why, sizeof(s->why), "the sched_switch program could not be loaded "
		         "(%s%s%s)", strerror(e), runq_libbpf[0] ? ": " : "", runq_libbpf);
		bpf_link__destroy(s->link);
		bpf_link__destroy(s->link_new);
		s->link = s->link_new = NULL;
		runqlat__destroy(s->skel);
		s->skel = NULL;
		return false;
	}
	s->ncpu = libbpf_num_possible_cpus();
	if (s->ncpu <= 0 || s->ncpu > CGW_MAX_CPUS ||
	    !(s->vals = calloc((size_t)s->ncpu, sizeof(*s->vals))) ||
	    !(s->zero = calloc((size_t)s->ncpu, sizeof(*s->zero)))) {
		snprintf(s->why, sizeof(s->why), "%s", s->ncpu <= 0 || s->ncpu > CGW_MAX_CPUS ?
		         "the possible CPUs could not be counted" : "out of memory");
		bpf_link__destroy(s->link);
		bpf_link__destroy(s->link_new);
		s->link = s->link_new = NULL;
		runqlat__destroy(s->skel);
		s->skel = NULL;
		return false;
	}
	snprintf(s->why, sizeof(s->why), "sched_switch program loaded");
	return true;
}

struct cgw_runq_src *runq_open(int mode, struct cgw_kernel *k, char *why, size_t cap)
{
	struct cgw_runq_src *s = calloc(1, sizeof(*s));
	if (!s) {
		snprintf(why, cap, "out of memory");
		kf_set(k, KF_RUNQ_PROGRAM, KFS_NOT_TRIED, "out of memory");
		return NULL;
	}
	runq_missing(s->missing, sizeof(s->missing));
	if (mode == RUNQ_MODE_SCHEDSTAT) {
		snprintf(s->why, sizeof(s->why), "[latency] runq = schedstat");
		kf_set(k, KF_RUNQ_PROGRAM, KFS_OFF, "%s", s->why);
	} else if (runq_bpf_open(s)) {
		kf_set(k, KF_RUNQ_PROGRAM, KFS_USED, "tp_btf/sched_switch");
	} else {
		kf_set(k, KF_RUNQ_PROGRAM, KFS_REFUSED, "%s", s->why);
	}
	if (k)
		snprintf(k->runq_source, sizeof(k->runq_source), "%s",
		         s->skel ? "runq-program" : "schedstat");
	s->last_ms = mono_ms();
	snprintf(why, cap, "%s (%s)", s->skel ? SRC_TRACEPOINT : "schedstat", s->why);
	return s;
}

void runq_src_free(struct cgw_runq_src *s)
{
	if (!s)
		return;
	timerlat_stop(s->tl, s->tl_timeout_ms);
	bpf_link__destroy(s->link);
	bpf_link__destroy(s->link_new);
	runqlat__destroy(s->skel);
	free(s->vals);
	free(s->zero);
	free(s->prev);
	free(s);
}

void runq_free(struct cgw_runq *r)
{
	free(r->cpu);
	r->cpu = NULL;
	r->ncpu = 0;
}

static void task_of(struct cgw_runq_task *d, const struct runqrec_task *t)
{
	d->tid = t->tid;
	d->tgid = t->tgid;
	d->policy = t->policy;
	d->rt_priority = t->rt_priority;
	d->nice = t->nice;
	d->ms = (double)t->ns / 1e6;
	size_t l = strnlen(t->comm, sizeof(t->comm));
	memcpy(d->comm, t->comm, l);
	d->comm[l] = '\0';
}

/* The tracepoint's counts since the last sample, per CPU into out->cpu (ncpu of them). */
static int runq_bpf_sample(struct cgw_runq_src *s, struct cgw_runq *out)
{
	__u32 old = s->skel->bss->epoch;
	__atomic_store_n(&s->skel->bss->epoch, old + 1, __ATOMIC_SEQ_CST);
	__u32 key = old & 1;
	int fd = bpf_map__fd(s->skel->maps.stats);
	if (bpf_map_lookup_elem(fd, &key, s->vals) < 0)
		return -errno;
	bpf_map_update_elem(fd, &key, s->zero, BPF_ANY);
	for (int c = 0; c < s->ncpu && (size_t)c < out->ncpu; c++) {
		const struct runqrec *v = &s->vals[c];
		struct cgw_runq_cpu *d = &out->cpu[c];
		for (unsigned k = 0; k < RUNQ_BUCKETS && k < RUNQREC_BUCKETS; k++) {
			d->buckets[k] = v->buckets[k];
			d->low_buckets[k] = v->low_buckets[k] < v->buckets[k] ? v->low_buckets[k] :
			                    v->buckets[k];
		}
		d->full_max_ms = (double)v->full_max_ns / 1e6;
		d->sum_ms = (double)v->sum_ns / 1e6;
		d->max_ms = (double)v->max_ns / 1e6;
		for (unsigned i = 0; i < RUNQREC_WAITED; i++)
			if (v->waited[i].tid) {
				struct cgw_runq_task t;
				task_of(&t, &v->waited[i]);
				runq_waited_add(d, &t);
			}
		if (v->held.tid)
			task_of(&d->held, &v->held);
	}
	return 0;
}

/* One thread's schedstat since the last sample into its CPU's counts; its reading kept in
 * next. given: what the scan's iterator read of it (the same three numbers), else NULL:
 * /proc/TID/schedstat is read. */
static void runq_task(struct cgw_runq_src *s, struct cgw_runq *out, int tid, int tgid,
                      const char *comm, int cpu, unsigned policy, unsigned prio,
                      const struct cgw_schedstat *given,
                      struct prev_task *next, size_t *nnext, size_t cap)
{
	for (size_t i = 0; i < *nnext; i++)
		if (next[i].tid == tid)
			return;                       /* a runner is also a task */
	char path[96], buf[128];
	struct cgw_schedstat st;
	if (given) {
		st = *given;
	} else {
		snprintf(path, sizeof(path), "/proc/%d/task/%d/schedstat", tgid, tid);
		if (read_small_file(path, buf, sizeof(buf)) < 0 || parse_schedstat(buf, &st) < 0)
			return;                       /* gone, or not CONFIG_SCHED_INFO */
	}
	if (*nnext < cap) {
		struct prev_task *p = &next[(*nnext)++];
		p->tid = tid;
		snprintf(p->comm, sizeof(p->comm), "%s", comm);
		p->st = st;
	}
	const struct prev_task *pv = NULL;
	for (size_t i = 0; i < s->nprev && !pv; i++)
		if (s->prev[i].tid == tid && strncmp(s->prev[i].comm, comm, 15) == 0)
			pv = &s->prev[i];
	if (!pv || cpu < 0 || (size_t)cpu >= out->ncpu || st.slices < pv->st.slices ||
	    st.wait_ns < pv->st.wait_ns || st.run_ns < pv->st.run_ns)
		return;
	uint64_t dsl = st.slices - pv->st.slices, dw = st.wait_ns - pv->st.wait_ns;
	uint64_t dr = st.run_ns - pv->st.run_ns;
	struct cgw_runq_cpu *c = &out->cpu[cpu];
	struct cgw_runq_task t = { .tid = tid, .tgid = tgid, .policy = policy,
	                           .rt_priority = prio };
	snprintf(t.comm, sizeof(t.comm), "%s", comm);
	if (dr > 0 && (double)dr / 1e6 > c->held.ms) {
		c->held = t;
		c->held.ms = (double)dr / 1e6;
	}
	if (dsl == 0)
		return;
	double mean_ns = (double)dw / (double)dsl;
	c->buckets[runq_bucket((uint64_t)(mean_ns / 1000))] += dsl;
	c->sum_ms += (double)dw / 1e6;
	if (mean_ns / 1e6 > c->max_ms)
		c->max_ms = mean_ns / 1e6;
	t.ms = mean_ns / 1e6;
	runq_waited_add(c, &t);
}

static int runq_schedstat_sample(struct cgw_runq_src *s, const struct cgw_scan *scan,
                                 struct cgw_runq *out)
{
	size_t cap = (scan ? scan->n + scan->nrunners : 0) + 1;
	struct prev_task *next = calloc(cap, sizeof(*next));
	if (!next)
		return -ENOMEM;
	size_t nnext = 0;
	for (size_t i = 0; scan && i < scan->n; i++) {
		const struct cgw_task *t = &scan->t[i];
		struct cgw_schedstat g = { (uint64_t)(t->seen.sum_exec_ms * 1e6), t->run_delay_ns,
		                           t->pcount };
		if (!t->gone)
			runq_task(s, out, t->tid, t->tgid, t->comm, t->cpu, t->policy, t->rt_priority,
			          t->have_delay ? &g : NULL, next, &nnext, cap);
	}
	for (size_t i = 0; scan && i < scan->nrunners; i++) {
		const struct cgw_runner *t = &scan->runners[i];
		struct cgw_schedstat g = { (uint64_t)(t->sum_exec_ms * 1e6), t->run_delay_ns,
		                           t->pcount };
		runq_task(s, out, t->tid, t->tgid, t->comm, t->cpu, t->policy, t->rt_priority,
		          t->have_delay ? &g : NULL, next, &nnext, cap);
	}
	free(s->prev);
	s->prev = next;
	s->nprev = nnext;
	return 0;
}

int runq_sample(struct cgw_runq_src *s, const struct cgw_scan *scan, struct cgw_runq *out)
{
	memset(out, 0, sizeof(*out));
	int ncpu = s->skel ? s->ncpu : scan && scan->possible_cpus > 0 ? scan->possible_cpus : 0;
	for (unsigned c = 0; scan && c < CGW_MAX_CPUS; c++)
		if (cpus_test(&scan->topo.online, c) && (int)c + 1 > ncpu)
			ncpu = (int)c + 1;
	if (ncpu <= 0)
		ncpu = 1;
	out->cpu = calloc((size_t)ncpu, sizeof(*out->cpu));
	if (!out->cpu)
		return -ENOMEM;
	out->ncpu = (size_t)ncpu;
	for (size_t c = 0; c < out->ncpu; c++) {
		out->cpu[c].cpu = (int)c;
		out->cpu[c].isolated = scan && (cpus_test(&scan->topo.isolated, (unsigned)c) ||
		                                 cpus_test(&scan->topo.nohz_full, (unsigned)c));
	}
	double now = mono_ms();
	out->interval_s = (now - s->last_ms) / 1000.0;
	s->last_ms = now;
	out->exact = s->skel != NULL;
	out->source = s->skel ? SRC_TRACEPOINT : SRC_SCHEDSTAT;
	snprintf(out->missing, sizeof(out->missing), "%s", s->missing);
	int e = s->skel ? runq_bpf_sample(s, out) : runq_schedstat_sample(s, scan, out);
	if (s->tl) {                          /* the interval's timerlat, into each CPU's tl */
		struct cgw_timerlat *tl = calloc(out->ncpu, sizeof(*tl));
		if (!tl)
			snprintf(s->tl_why, sizeof(s->tl_why), "out of memory");
		else if (timerlat_read(s->tl, tl, out->ncpu, s->tl_timeout_ms, s->tl_why,
		                       sizeof(s->tl_why)) == 0)
			for (size_t c = 0; c < out->ncpu; c++)
				out->cpu[c].tl = tl[c];
		free(tl);
	}
	snprintf(out->timerlat, sizeof(out->timerlat), "%s", s->tl_why);
	s->tl_why[0] = 0;
	if (e < 0) {
		runq_free(out);
		return e;
	}
	/* only the online CPUs are listed */
	size_t w = 0;
	for (size_t c = 0; c < out->ncpu; c++) {
		if (scan && !cpus_test(&scan->topo.online, (unsigned)c))
			continue;
		runq_summarize(&out->cpu[c]);
		runq_total_add(&s->total[out->cpu[c].isolated ? RUNQ_ISOLATED : RUNQ_HOUSEKEEPING],
		               &out->cpu[c]);
		out->cpu[w++] = out->cpu[c];
	}
	out->ncpu = w;
	memcpy(out->total, s->total, sizeof(out->total));
	return 0;
}

void runq_timerlat(struct cgw_runq_src *s, const struct cgw_cpus *cpus, unsigned timeout_ms)
{
	if (s->tl && !memcmp(&s->tl_cpus, cpus, sizeof(*cpus)))
		return;                           /* on the same CPUs: it goes on */
	timerlat_stop(s->tl, timeout_ms);
	s->tl = NULL;
	memset(&s->tl_cpus, 0, sizeof(s->tl_cpus));
	if (cpus_empty(cpus) || strstr(s->missing, "(timerlat)"))
		return;                           /* a kernel without it: `missing` says so */
	s->tl_timeout_ms = timeout_ms;
	s->tl = timerlat_start(cpus, TL_PRINT_STACK_US, timeout_ms, s->tl_why, sizeof(s->tl_why));
	if (s->tl)
		s->tl_cpus = *cpus;
}
