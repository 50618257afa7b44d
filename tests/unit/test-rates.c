/* test-rates.c: the parsers of source-rates.c on real text from this machine (6.18.44 x86_64, cgroup
 * v1 controllers each mounted alone, a cgroup2 at /sys/fs/cgroup/unified), the correlators
 * on scans built in memory, and the "rates" JSON object. */
#include <json-c/json.h>

#include "unit.h"
#include "rates.h"

/* The fields every trace event format file here starts with. */
#define COMMON_FIELDS \
	"\tfield:unsigned short common_type;\toffset:0;\tsize:2;\tsigned:0;\n" \
	"\tfield:unsigned char common_flags;\toffset:2;\tsize:1;\tsigned:0;\n" \
	"\tfield:unsigned char common_preempt_count;\toffset:3;\tsize:1;\tsigned:0;\n" \
	"\tfield:int common_pid;\toffset:4;\tsize:4;\tsigned:1;\n" \
	"\n"

/* events/workqueue/workqueue_queue_work/format, captured here */
static const char fmt_wq[] =
	"name: workqueue_queue_work\n"
	"ID: 337\n"
	"format:\n"
	COMMON_FIELDS
	"\tfield:void * work;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:void * function;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:__data_loc char[] workqueue;\toffset:24;\tsize:4;\tsigned:0;\n"
	"\tfield:int req_cpu;\toffset:28;\tsize:4;\tsigned:1;\n"
	"\tfield:int cpu;\toffset:32;\tsize:4;\tsigned:1;\n"
	"\n"
	"print fmt: \"work struct=%p function=%ps workqueue=%s req_cpu=%d cpu=%d\", REC->work, "
	"REC->function, __get_str(workqueue), REC->req_cpu, REC->cpu\n";

/* events/cgroup/cgroup_rstat_lock_contended/format, captured here */
static const char fmt_rstat[] =
	"name: cgroup_rstat_lock_contended\n"
	"ID: 534\n"
	"format:\n"
	COMMON_FIELDS
	"\tfield:int root;\toffset:8;\tsize:4;\tsigned:1;\n"
	"\tfield:int level;\toffset:12;\tsize:4;\tsigned:1;\n"
	"\tfield:u64 id;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:int cpu;\toffset:24;\tsize:4;\tsigned:1;\n"
	"\tfield:bool contended;\toffset:28;\tsize:1;\tsigned:0;\n"
	"\n"
	"print fmt: \"root=%d id=%llu level=%d cpu=%d lock contended:%d\", REC->root, REC->id, "
	"REC->level, REC->cpu, REC->contended\n";

/* The same event before the workqueue name was recorded (4.x-5.x: `__field(void *,
 * workqueue)`), written in the format-file layout from that TP_STRUCT__entry: not captured
 * here, no such kernel at hand. */
static const char fmt_wq_old[] =
	"name: workqueue_queue_work\n"
	"ID: 301\n"
	"format:\n"
	COMMON_FIELDS
	"\tfield:void * work;\toffset:8;\tsize:8;\tsigned:0;\n"
	"\tfield:void * function;\toffset:16;\tsize:8;\tsigned:0;\n"
	"\tfield:void * workqueue;\toffset:24;\tsize:8;\tsigned:0;\n"
	"\tfield:unsigned int req_cpu;\toffset:32;\tsize:4;\tsigned:0;\n"
	"\tfield:unsigned int cpu;\toffset:36;\tsize:4;\tsigned:0;\n"
	"\n"
	"print fmt: \"work struct=%p function=%ps workqueue=%p req_cpu=%u cpu=%u\", REC->work, "
	"REC->function, REC->workqueue, REC->req_cpu, REC->cpu\n";

/* /proc/cgroups, captured here */
static const char proc_cgroups[] =
	"#subsys_name\thierarchy\tnum_cgroups\tenabled\n"
	"cpuset\t3\t1\t1\n"
	"cpu\t1\t1\t1\n"
	"cpuacct\t2\t1\t1\n"
	"blkio\t7\t1\t1\n"
	"memory\t4\t32\t1\n"
	"devices\t5\t1\t1\n"
	"freezer\t6\t2\t1\n"
	"net_cls\t0\t1\t1\n"
	"perf_event\t0\t1\t1\n"
	"net_prio\t0\t1\t1\n"
	"hugetlb\t0\t1\t1\n"
	"pids\t8\t1\t1\n";

/* the part of /proc/stat after the intr line, captured here */
static const char proc_stat[] =
	"ctxt 4351155\n"
	"btime 1796021210\n"
	"processes 402490\n"
	"procs_running 2\n"
	"procs_blocked 0\n"
	"softirq 1270113 0 236431 1 39183 0 0 2043 512049 0 480406\n";

/* /proc/self/mountinfo here, with a private named hierarchy at "/tmp/cgw rates" and a bind
 * mount of it (mount -t cgroup -o none,name=cgwrates; mount --bind) */
static const char mountinfo[] =
	"27 1 254:0 / / rw,relatime - ext4 /dev/vda rw,discard\n"
	HOST_CGROUP_MOUNTS
	"43 23 0:13 / /sys/kernel/tracing rw,relatime - tracefs nodev rw\n"
	"44 27 0:40 / /tmp/cgw\\040rates rw,relatime - cgroup cgroup rw,name=cgwrates\n"
	"45 27 0:40 / /tmp/cgwrates-bind rw,relatime - cgroup cgroup rw,name=cgwrates\n";

/* systemd's name=systemd and a combined hierarchy as an Ubuntu 20.04 hybrid host mounts them
 * (layout of cgroup1_show_options(); not captured here) */
static const char mountinfo_hybrid[] =
	"33 25 0:29 / /sys/fs/cgroup/systemd rw,nosuid,nodev,noexec,relatime shared:11 - cgroup "
	"cgroup rw,xattr,release_agent=/lib/systemd/systemd-cgroups-agent,name=systemd\n"
	"36 25 0:32 / /sys/fs/cgroup/cpu,cpuacct rw,nosuid,nodev,noexec,relatime shared:15 - "
	"cgroup cgroup rw,cpu,cpuacct\n"
	"37 25 0:33 / /sys/fs/cgroup/cpuset rw,nosuid,nodev,noexec,relatime shared:16 - cgroup "
	"cgroup rw,cpuset,clone_children\n";

static void test_tracepoint_id(void **state)
{
	(void)state;
	unsigned long long id = 0;
	assert_int_equal(parse_tracepoint_id("544\n", &id), 0);   /* cgroup_mkdir here */
	assert_int_equal(id, 544);
	assert_int_equal(parse_tracepoint_id("210", &id), 0);
	assert_int_equal(id, 210);
	assert_int_equal(parse_tracepoint_id("", &id), -EINVAL);
	assert_int_equal(parse_tracepoint_id("0\n", &id), -EINVAL);
	assert_int_equal(parse_tracepoint_id("-3\n", &id), -EINVAL);
	assert_int_equal(parse_tracepoint_id("12abc\n", &id), -EINVAL);
	assert_int_equal(parse_tracepoint_id("99999999999999999999999\n", &id), -EINVAL);
}

static const struct trace_field *field(const struct trace_field *f, int n, const char *name)
{
	for (int i = 0; i < n; i++)
		if (strcmp(f[i].name, name) == 0)
			return &f[i];
	return NULL;
}

static void test_trace_format(void **state)
{
	(void)state;
	struct trace_field f[16];
	int n = parse_trace_format(fmt_wq, f, 16);
	assert_int_equal(n, 9);
	assert_string_equal(f[0].name, "common_type");
	assert_string_equal(f[0].type, "unsigned short");
	assert_int_equal(f[0].size, 2);
	const struct trace_field *wq = field(f, n, "workqueue");
	assert_non_null(wq);
	assert_string_equal(wq->type, "__data_loc char[]");
	assert_int_equal(wq->offset, 24);
	assert_int_equal(wq->size, 4);
	assert_false(wq->is_signed);
	assert_true(trace_field_is_string(wq));
	const struct trace_field *fn = field(f, n, "function");
	assert_non_null(fn);
	assert_string_equal(fn->type, "void *");
	assert_false(trace_field_is_string(fn));
	const struct trace_field *cpu = field(f, n, "cpu");
	assert_non_null(cpu);
	assert_true(cpu->is_signed);
	assert_int_equal(cpu->offset, 32);

	n = parse_trace_format(fmt_rstat, f, 16);
	assert_int_equal(n, 9);
	assert_non_null(field(f, n, "contended"));
	assert_string_equal(field(f, n, "contended")->type, "bool");
	assert_string_equal(field(f, n, "id")->type, "u64");

	/* before the name was recorded: a pointer, nothing to filter on */
	n = parse_trace_format(fmt_wq_old, f, 16);
	assert_int_equal(n, 9);
	assert_string_equal(field(f, n, "workqueue")->type, "void *");
	assert_false(trace_field_is_string(field(f, n, "workqueue")));

	/* capacity: the first fields only; not a format file */
	assert_int_equal(parse_trace_format(fmt_wq, f, 3), 3);
	assert_int_equal(parse_trace_format("544\n", f, 16), -EINVAL);
	assert_int_equal(parse_trace_format("format:\n", f, 16), -EINVAL);
}

static void test_trace_field_types(void **state)
{
	(void)state;
	/* fixed arrays (sched_switch's prev_comm) and char pointers compare as strings */
	const char *fmt = "format:\n"
		"\tfield:char prev_comm[16];\toffset:8;\tsize:16;\tsigned:0;\n"
		"\tfield:const char * name;\toffset:24;\tsize:8;\tsigned:0;\n"
		"\tfield:__rel_loc char[] x;\toffset:32;\tsize:4;\tsigned:0;\n"
		"\tfield:unsigned long y[4];\toffset:40;\tsize:32;\tsigned:0;\n";
	struct trace_field f[8];
	int n = parse_trace_format(fmt, f, 8);
	assert_int_equal(n, 4);
	assert_string_equal(f[0].name, "prev_comm");
	assert_string_equal(f[0].type, "char[16]");
	assert_true(trace_field_is_string(&f[0]));
	assert_string_equal(f[1].name, "name");
	assert_string_equal(f[1].type, "const char *");
	assert_true(trace_field_is_string(&f[1]));
	assert_true(trace_field_is_string(&f[2]));
	assert_string_equal(f[3].type, "unsigned long[4]");
	assert_false(trace_field_is_string(&f[3]));
}

static void test_proc_cgroups(void **state)
{
	(void)state;
	struct rates_ctrl c[RATES_MAX_CTRL];
	int n = parse_proc_cgroups(proc_cgroups, c, RATES_MAX_CTRL);
	assert_int_equal(n, 12);
	assert_string_equal(c[1].name, "cpu");
	assert_int_equal(c[1].hierarchy, 1);
	assert_int_equal(c[1].num_cgroups, 1);
	assert_true(c[1].enabled);
	assert_string_equal(c[4].name, "memory");
	assert_int_equal(c[4].num_cgroups, 32);
	assert_string_equal(c[7].name, "net_cls");
	assert_int_equal(c[7].hierarchy, 0);
	/* a cgroup2 host with 4012 cpu cgroups; a disabled controller (cgroup_disable=) */
	n = parse_proc_cgroups("#subsys_name\thierarchy\tnum_cgroups\tenabled\n"
	                       "cpu\t0\t4012\t1\nrdma\t0\t1\t0\n", c, RATES_MAX_CTRL);
	assert_int_equal(n, 2);
	assert_int_equal(c[0].num_cgroups, 4012);
	assert_false(c[1].enabled);
	/* capacity, garbage */
	assert_int_equal(parse_proc_cgroups(proc_cgroups, c, 2), 2);
	assert_int_equal(parse_proc_cgroups("#subsys_name\thierarchy\tnum_cgroups\tenabled\n", c,
	                                    4), -EINVAL);
	assert_int_equal(parse_proc_cgroups("cpu x y z\n", c, 4), -EINVAL);
	/* a replayed file with a name that is no kernel identifier: that line is not taken */
	n = parse_proc_cgroups("cpu\t0\t4\t1\n\x1b[2Jx\t0\t1\t1\nm\xc3\xa9m\t0\t1\t1\n", c, 4);
	assert_int_equal(n, 1);
	assert_string_equal(c[0].name, "cpu");
}

static void test_proc_stat_uptime(void **state)
{
	(void)state;
	unsigned long long p = 0;
	assert_int_equal(parse_proc_stat_processes(proc_stat, &p), 0);
	assert_int_equal(p, 402490);
	assert_int_equal(parse_proc_stat_processes("ctxt 1\nprocs_running 2\n", &p), -ENOENT);
	/* "processes" must start a line */
	assert_int_equal(parse_proc_stat_processes("xprocesses 5\n", &p), -ENOENT);
	double up = 0;
	assert_int_equal(parse_uptime("6046.14 8405.33\n", &up), 0);   /* here */
	assert_near(up, 6046.14, 1e-9);
	assert_int_equal(parse_uptime("x\n", &up), -EINVAL);
}

/* /proc/cgroups, /proc/stat `processes`, /proc/uptime and cgroup.stat with numbers the kernel
 * never writes: not taken (before, sscanf and strtoull took "-5" and "+5", strtod "inf" as an
 * uptime, and a controller line with a bad count was dropped as if absent). */
static void test_rates_hostile_numbers(void **state)
{
	(void)state;
	struct rates_ctrl c[4];
	for (size_t h = 0; h < ARRAY_SIZE(hostile_nums); h++) {
		const char *v = hostile_nums[h];
		char buf[256];
		unsigned long long p;
		double up;
		long n;
		print_message("# \"%s\"\n", v);
		for (int col = 0; col < 3; col++) {
			snprintf(buf, sizeof(buf), "#subsys_name\thierarchy\tnum_cgroups\tenabled\n"
			         "cpu\t1\t4\t1\nmemory\t%s\t%s\t%s\n", col == 0 ? v : "2",
			         col == 1 ? v : "32", col == 2 ? v : "1");
			assert_true(parse_proc_cgroups(buf, c, 4) < 0);
		}
		snprintf(buf, sizeof(buf), "ctxt 5\nprocesses %s\nprocs_running 1\n", v);
		assert_true(parse_proc_stat_processes(buf, &p) < 0);
		snprintf(buf, sizeof(buf), "%s 8405.33\n", v);
		assert_true(parse_uptime(buf, &up) < 0);
		snprintf(buf, sizeof(buf), "nr_descendants 1\nnr_subsys_cpu %s\n", v);
		assert_true(parse_cgroup_stat_subsys(buf, "cpu", &n) < 0);
	}
	/* in range; "-0" is 0 */
	unsigned long long p = 1;
	double up = 1;
	long n = 1;
	assert_int_equal(parse_proc_cgroups("cpu\t-0\t-0\t-0\n", c, 4), 1);
	assert_int_equal(c[0].hierarchy, 0);
	assert_int_equal(c[0].num_cgroups, 0);
	assert_false(c[0].enabled);
	assert_true(parse_proc_cgroups("cpu\t0\t4\t2\n", c, 4) < 0);       /* enabled is 0 or 1 */
	assert_int_equal(parse_proc_stat_processes("processes -0\n", &p), 0);
	assert_int_equal(p, 0);
	assert_true(parse_proc_stat_processes("processes 9007199254740993\n", &p) < 0);
	assert_int_equal(parse_uptime("-0 0\n", &up), 0);
	assert_near(up, 0, 0);
	assert_int_equal(parse_uptime("3155760000.00 0\n", &up), 0);
	assert_true(parse_uptime("3155760001.00 0\n", &up) < 0);
	assert_int_equal(parse_cgroup_stat_subsys("nr_subsys_cpu -0\n", "cpu", &n), 0);
	assert_int_equal(n, 0);
	/* a trace format field whose offset or size is no count */
	struct trace_field f[2];
	assert_true(parse_trace_format("format:\n\tfield:int x;\toffset:-5;\tsize:4;\tsigned:1;\n",
	                               f, 2) < 0);
	assert_true(parse_trace_format("format:\n\tfield:int x;\toffset:8;\tsize:nan;\tsigned:1;\n",
	                               f, 2) < 0);
	assert_int_equal(parse_trace_format("format:\n\tfield:int x;\toffset:8;\tsize:4;\tsigned:1;\n",
	                                    f, 2), 1);
}

static void test_mountinfo_v1(void **state)
{
	(void)state;
	struct v1_hier h[16];
	int n = parse_mountinfo_v1(mountinfo, h, 16);
	/* 8 controllers alone, name=systemd, name=cgwrates once (the bind mount is the same
	 * hierarchy); not cgroup2, tmpfs or tracefs */
	assert_int_equal(n, 10);
	assert_string_equal(h[0].opts, "cpu");
	assert_string_equal(h[0].mnt, "/sys/fs/cgroup/cpu");
	assert_false(h[0].named);
	assert_string_equal(h[8].opts, "name=systemd");
	assert_true(h[8].named);
	assert_string_equal(h[9].opts, "name=cgwrates");
	assert_string_equal(h[9].mnt, "/tmp/cgw rates");
	assert_true(h[9].named);

	n = parse_mountinfo_v1(mountinfo_hybrid, h, 16);
	assert_int_equal(n, 3);
	assert_string_equal(h[0].opts, "name=systemd");          /* xattr, release_agent dropped */
	assert_string_equal(h[1].opts, "cpu,cpuacct");
	assert_string_equal(h[1].mnt, "/sys/fs/cgroup/cpu,cpuacct");
	assert_string_equal(h[2].opts, "cpuset");                /* clone_children dropped */

	assert_int_equal(parse_mountinfo_v1(mountinfo, h, 2), 2);
	assert_int_equal(parse_mountinfo_v1("41 31 0:38 / /sys/fs/cgroup rw - cgroup2 cgroup2 rw\n",
	                                    h, 16), 0);
	assert_int_equal(parse_mountinfo_v1("", h, 16), 0);
}

/* cgroup.stat of the cgroup2 root here, with one child cgroup (hugetlb enabled at the root) */
static const char cgroup_stat[] =
	"nr_descendants 1\n"
	"nr_subsys_perf_event 2\n"
	"nr_subsys_hugetlb 1\n"
	"nr_dying_descendants 0\n"
	"nr_dying_subsys_perf_event 0\n"
	"nr_dying_subsys_hugetlb 0\n";

static void test_cgroup_stat(void **state)
{
	(void)state;
	long n = -1;
	assert_int_equal(parse_cgroup_stat_subsys(cgroup_stat, "perf_event", &n), 0);
	assert_int_equal(n, 2);
	assert_int_equal(parse_cgroup_stat_subsys(cgroup_stat, "hugetlb", &n), 0);
	assert_int_equal(n, 1);
	/* not "nr_dying_subsys_cpu", not a prefix of another controller */
	assert_int_equal(parse_cgroup_stat_subsys("nr_dying_subsys_cpu 3\nnr_subsys_cpuset 7\n",
	                                          "cpu", &n), -ENOENT);
	assert_int_equal(parse_cgroup_stat_subsys(cgroup_stat, "cpu", &n), -ENOENT);
	/* before 6.9: no per-controller lines */
	assert_int_equal(parse_cgroup_stat_subsys("nr_descendants 4107\nnr_dying_descendants 3\n",
	                                          "cpu", &n), -ENOENT);
}

static void test_event_names(void **state)
{
	(void)state;
	assert_string_equal(rates_ev_name(RATE_MKDIR), "cgroup:cgroup_mkdir");
	assert_string_equal(rates_ev_name(RATE_WQ_PIDLIST),
	                    "workqueue:workqueue_queue_work/cgroup_pidlist_destroy");
	assert_string_equal(rates_ev_name(RATE_HANG), "sched:sched_process_hang");
	assert_string_equal(rates_ev_name(RATE_NEV), "?");
	assert_string_equal(rates_source_name(RATES_SRC_PERF), "perf");
	assert_string_equal(rates_source_name(RATES_SRC_PROC), "proc-cgroups");
}

/* ---- correlators on scans in memory ---- */

static struct cgw_frame *frames_of(const char *const *names, size_t n)
{
	struct cgw_frame *f = xcalloc(n, sizeof(*f));
	for (size_t i = 0; i < n; i++) {
		f[i].text = xstrdup(names[i]);
		char nm[128];
		f[i].name = xstrdup(frame_name(names[i], nm, sizeof(nm)));
	}
	return f;
}

static void set_stack(struct unit_scan *u, size_t idx, const char *const *names, size_t n)
{
	u->scan.t[idx].frames = frames_of(names, n);
	u->scan.t[idx].nframes = n;
}

static bool has_line(const struct cgw_finding *f, const char *want)
{
	return f->evidence.s && strstr(f->evidence.s, want);
}
#define assert_evidence(f, want) do { \
	if (!has_line(f, want)) { \
		print_error("evidence:\n%s\nlacks:\n%s\n", (f)->evidence.s ? (f)->evidence.s : "", \
		            want); \
		fail(); \
	} \
} while (0)

/* A perf sample of one second. */
static void perf_rates(struct cgw_rates *rt)
{
	memset(rt, 0, sizeof(*rt));
	rt->source = RATES_SRC_PERF;
	rt->live = true;
	rt->window_s = 1.0;
	uint64_t counts[RATE_NEV] = { [RATE_MKDIR] = 200, [RATE_RMDIR] = 199, [RATE_ATTACH] = 12,
	                              [RATE_RSTAT_CONTENDED] = 5230, [RATE_WQ_PIDLIST] = 200,
	                              [RATE_FORK] = 604 };
	for (int e = 0; e < RATE_NEV; e++) {
		rt->ev[e].count = counts[e];
		rt->ev[e].per_s = (double)counts[e];
	}
	rt->ev[RATE_CPUHP_ENTER].missing = true;
	snprintf(rt->ev[RATE_CPUHP_ENTER].why, sizeof(rt->ev[0].why),
	         "no tracepoint cpuhp:cpuhp_enter on this kernel");
	rt->forks = rt->ev[RATE_FORK];
	snprintf(rt->forks_from, sizeof(rt->forks_from), "sched:sched_process_fork");
	rt->nctrl = (size_t)parse_proc_cgroups(proc_cgroups, rt->ctrl, RATES_MAX_CTRL);
}

/* One task of a fake scan: ids, name, time blocked and, when stk is set, its kernel stack. */
struct tspec { int tid, tgid; const char *comm; double s; const char *const *stk; size_t nstk; };

/* The tasks of spec[] in u, and a finding of sig over all of them: its index. */
static size_t finding_over(struct unit_scan *u, struct cgw_sig *sig, const struct tspec *spec,
                           size_t n)
{
	size_t t[8];
	assert_true(n <= ARRAY_SIZE(t));
	for (size_t i = 0; i < n; i++) {
		t[i] = us_task(u, spec[i].tid, spec[i].tgid, spec[i].comm, strlen(spec[i].comm),
		               spec[i].s);
		if (spec[i].stk)
			set_stack(u, t[i], spec[i].stk, spec[i].nstk);
	}
	return us_finding(u, sig, SEV_WARNING, n, t);
}

/* Counts from /proc only (a replay, or perf refused): every tracepoint count missing, for why. */
static void proc_rates(struct cgw_rates *rt, bool live, double window_s, const char *why)
{
	memset(rt, 0, sizeof(*rt));
	rt->source = RATES_SRC_PROC;
	rt->live = live;
	rt->window_s = window_s;
	for (int e = 0; e < RATE_NEV; e++) {
		rt->ev[e].missing = true;
		snprintf(rt->ev[e].why, sizeof(rt->ev[e].why), "%s", why);
	}
}

/* A cgroup v1 pidlist reader, blocked 25 s: the one task of a finding. */
static const struct tspec cadvisor = { 2315, 2301, "cadvisor", 25.0, NULL, 0 };

/* u a new scan whose one finding, of sig, is over the tasks spec[], linked to rt and h: the
 * finding's index. */
static size_t link_over(struct unit_scan *u, struct cgw_sig *sig, const struct tspec *spec,
                        size_t n, const struct cgw_rates *rt, const struct rates_host *h)
{
	us_init(u);
	size_t k = finding_over(u, sig, spec, n);
	rates_link_host(&u->rep, rt, h);
	return k;
}

/* Every line of want[] is in f's evidence. */
static void assert_evidence_all(const struct cgw_finding *f, const char *const *want, size_t n)
{
	for (size_t i = 0; i < n; i++)
		assert_evidence(f, want[i]);
}

static void test_link_pidlist(void **state)
{
	(void)state;
	struct unit_scan u;
	us_init(&u);
	struct cgw_sig sig = unit_sig("cgroup1-pidlist-flush", "t", "s", SEV_WARNING);
	const char *kw = "kworker/5:1+cgroup_pidlist_destroy";
	size_t t[3];
	t[0] = us_task(&u, 412, 412, kw, strlen(kw), 30.0);
	t[1] = us_task(&u, 2315, 2301, "cadvisor", 8, 25.0);
	/* not a destroy worker: the name only contains the string */
	const char *other = "kworker/1:0-cgroup_pidlist_destroyer";
	us_task(&u, 77, 77, other, strlen(other), 1.0);
	u.scan.t[0].cpu = 5;
	size_t k = us_finding(&u, &sig, SEV_WARNING, 2, t);

	struct cgw_rates rt;
	perf_rates(&rt);
	struct rates_host h = { .mountinfo = mountinfo, .possible_cpus = -1 };
	rates_link_host(&u.rep, &rt, &h);
	const struct cgw_finding *f = &u.rep.f[k];
	assert_evidence(f, "/proc/self/mountinfo: 10 cgroup v1 hierarchies mounted: name=systemd at "
	                "/sys/fs/cgroup/systemd, name=cgwrates at /tmp/cgw rates, cpu at "
	                "/sys/fs/cgroup/cpu,");
	assert_evidence(f, "tracepoints cgroup:cgroup_mkdir and cgroup:cgroup_rmdir over the last "
	                "1.0 s: 200 (200.0/s) cgroups created, 199 (199.0/s) removed\n");
	assert_evidence(f, "\"cgroup_pidlist_destroy\": 200 (200.0/s) work items queued in 1.0 s\n");
	assert_evidence(f, "/proc/412/task/412/stat: PID 412 (kworker/5:1+cgroup_pidlist_destroy) is "
	                "running cgroup_pidlist_destroy work, blocked (D) for 30.0 s on CPU 5\n");
	assert_false(has_line(f, "cgroup_pidlist_destroyer"));
	assert_evidence(f, "fix: \"cgroup: avoid flushing global workqueue");
	us_free(&u);
}

static void test_link_pidlist_replay(void **state)
{
	(void)state;
	struct cgw_sig sig = unit_sig("cgroup1-pidlist-flush", "t", "s", SEV_WARNING);
	struct cgw_rates rt;
	proc_rates(&rt, false, 0, "a replayed tree has no tracepoint counts");
	rt.nctrl = (size_t)parse_proc_cgroups(
		"#subsys_name\thierarchy\tnum_cgroups\tenabled\n"
		"cpuset\t6\t214\t1\ncpu\t2\t351\t1\ncpuacct\t2\t351\t1\nmemory\t4\t1187\t1\n"
		"net_cls\t9\t214\t1\nnet_prio\t9\t214\t1\nrdma\t0\t1\t1\n", rt.ctrl, RATES_MAX_CTRL);
	struct rates_host h = { .mountinfo = mountinfo_hybrid, .possible_cpus = -1 };
	struct unit_scan u;
	size_t k = link_over(&u, &sig, &cadvisor, 1, &rt, &h);
	const struct cgw_finding *f = &u.rep.f[k];
	assert_evidence(f, "/proc/self/mountinfo: 3 cgroup v1 hierarchies mounted: name=systemd at "
	                "/sys/fs/cgroup/systemd, cpu,cpuacct at /sys/fs/cgroup/cpu,cpuacct, cpuset at "
	                "/sys/fs/cgroup/cpuset\n");
	assert_evidence(f, "no tracepoint counts: a replayed tree has no tracepoint counts\n");
	assert_evidence(f, "/proc/cgroups: cgroups per v1 hierarchy: cpuset 214, cpu,cpuacct 351, "
	                "memory 1187, net_cls,net_prio 214 (");
	assert_evidence(f, "no kworker with cgroup_pidlist_destroy in its name among the 1 blocked");
	us_free(&u);
}

static void test_link_pidlist_live_proc(void **state)
{
	(void)state;
	struct cgw_sig sig = unit_sig("cgroup1-pidlist-flush", "t", "s", SEV_WARNING);
	struct cgw_rates rt;
	proc_rates(&rt, true, 2.0, "perf_event_open: Operation not permitted");
	rt.nctrl = (size_t)parse_proc_cgroups(proc_cgroups, rt.ctrl, RATES_MAX_CTRL);
	rt.ctrl[4].change = 3;      /* memory */
	rt.ctrl[6].change = -1;     /* freezer */
	struct rates_host h = { .mountinfo_err = "Permission denied", .possible_cpus = -1 };
	struct unit_scan u;
	size_t k = link_over(&u, &sig, &cadvisor, 1, &rt, &h);
	const struct cgw_finding *f = &u.rep.f[k];
	assert_evidence(f, "/proc/self/mountinfo: not read (Permission denied)\n");
	assert_evidence(f, "no tracepoint counts: perf_event_open: Operation not permitted\n");
	assert_evidence(f, "/proc/cgroups over the last 2.0 s: net change of cgroups per v1 "
	                "hierarchy: memory +3, freezer -1 (");
	us_free(&u);
}

/* Real 6.18.44 stacks (cgroup:cgroup_rstat_locked stacktrace trigger, memory.stat reads). */
static const char *const stk_reader[] = {
	"css_rstat_flush+0x71/0x4c0", "memcg1_stat_format+0x1a/0x250", "memory_stat_show+0xc3/0xe0",
	"seq_read_iter+0x12f/0x490", "vfs_read+0x23a/0x360", "ksys_read+0x66/0xe0",
	"do_syscall_64+0x71/0x280", "entry_SYSCALL_64_after_hwframe+0x76/0x7e" };
static const char *const stk_dwork[] = {
	"css_rstat_flush+0x71/0x4c0", "flush_memcg_stats_dwork+0x16/0x40",
	"process_one_work+0x18c/0x350", "worker_thread+0x192/0x310", "kthread+0xf8/0x220",
	"ret_from_fork+0x151/0x170", "ret_from_fork_asm+0x1a/0x30" };

static void test_link_rstat(void **state)
{
	(void)state;
	static const struct tspec tasks[] = {
		{ 96540, 96532, "stat_reader", 14.0, stk_reader, ARRAY_SIZE(stk_reader) },
		{ 96541, 96532, "stat_reader", 13.0, stk_reader, ARRAY_SIZE(stk_reader) },
		{ 3110, 3110, "node_exporter", 12.0, stk_reader, ARRAY_SIZE(stk_reader) },
		{ 611, 611, "kworker/u898:2+events_unbound", 11.0, stk_dwork, ARRAY_SIZE(stk_dwork) },
	};
	static const char *const want[] = {
		"tracepoint cgroup:cgroup_rstat_lock_contended: 5230 (5230.0/s) contended "
		"acquisitions of the rstat lock in 1.0 s\n",
		"/proc/TID/stack: 4 tasks of this scan are in the cgroup rstat flush: 3 reading "
		"memory.stat, 1 in the periodic stats flush worker, 0 other\n",
		"memory.stat readers (memory_stat_show on the stack): stat_reader PID 96532 (2 threads, "
		"unit-96532.service), node_exporter PID 3110 (1 thread, unit-3110.service)\n",
		"/sys/devices/system/cpu/possible: 448 possible CPUs",
	};
	struct cgw_sig sig = unit_sig("rstat-flush", "t", "s", SEV_WARNING);
	struct cgw_rates rt;
	perf_rates(&rt);
	struct rates_host h = { .possible_cpus = 448 };
	struct unit_scan u;
	size_t k = link_over(&u, &sig, tasks, ARRAY_SIZE(tasks), &rt, &h);
	assert_evidence_all(&u.rep.f[k], want, ARRAY_SIZE(want));
	us_free(&u);
}

static void test_link_sched(void **state)
{
	(void)state;
	struct unit_scan u;
	us_init(&u);
	for (unsigned c = 0; c < 32; c++)
		cpus_set(&u.scan.topo.online, c);
	struct cgw_sig sig = unit_sig("sched-domain-rebuild", "t", "s", SEV_WARNING);
	size_t t = us_task(&u, 7001, 7001, "kubelet", 7, 25.0);
	size_t k = us_finding(&u, &sig, SEV_WARNING, 1, &t);
	struct cgw_rates rt;
	perf_rates(&rt);
	rt.nctrl = (size_t)parse_proc_cgroups("#subsys_name\thierarchy\tnum_cgroups\tenabled\n"
	                                      "cpuset\t0\t40\t1\ncpu\t0\t4012\t1\n", rt.ctrl,
	                                      RATES_MAX_CTRL);
	struct rates_host h = { .possible_cpus = -1,
	                        .cgroup2_stat = "nr_descendants 4107\nnr_subsys_cpuset 40\n"
	                                        "nr_subsys_cpu 4012\nnr_dying_descendants 0\n",
	                        .cgroup2_stat_path = "/sys/fs/cgroup/cgroup.stat" };
	rates_link_host(&u.rep, &rt, &h);
	const struct cgw_finding *f = &u.rep.f[k];
	assert_evidence(f, "/sys/fs/cgroup/cgroup.stat: 4012 cgroups with the cpu controller "
	                "(nr_subsys_cpu) x 32 online CPUs (/sys/devices/system/cpu/online) = 128384 "
	                "task-group visits");
	assert_evidence(f, "that is 1.00 times the 4000 x 32 = 128000");
	assert_evidence(f, "CPU hotplug steps not counted: no tracepoint cpuhp:cpuhp_enter on this "
	                "kernel\n");
	assert_evidence(f, "yardstick (Qiliang Yuan");

	/* without nr_subsys_cpu: /proc/cgroups, an upper bound on cgroup2 */
	sb_free(&u.rep.f[k].evidence);
	h.cgroup2_stat = "nr_descendants 4107\nnr_dying_descendants 0\n";
	rates_link_host(&u.rep, &rt, &h);
	assert_evidence(f, "/proc/cgroups: 4012 cgroups in the cgroup2 hierarchy, an upper bound for "
	                "those with the cpu controller (cgroup.stat has no nr_subsys_cpu) x 32 online");

	/* cpu on a v1 hierarchy: exact from /proc/cgroups */
	sb_free(&u.rep.f[k].evidence);
	rt.nctrl = (size_t)parse_proc_cgroups(proc_cgroups, rt.ctrl, RATES_MAX_CTRL);
	rates_link_host(&u.rep, &rt, &h);
	assert_evidence(f, "/proc/cgroups: 1 cgroups in the cpu hierarchy (v1 hierarchy 1) x 32 "
	                "online CPUs (/sys/devices/system/cpu/online) = 32 task-group visits");
	us_free(&u);
}

/* Real 6.18.44 stacks: a fork waiting for cgroup_threadgroup_rwsem while tasks are moved
 * (sampled from /proc/PID/stack), and the mover. */
static const char *const stk_fork[] = {
	"percpu_rwsem_wait+0x15f/0x1d0", "cgroup_can_fork+0x494/0x5b0", "copy_process+0x136c/0x1c70",
	"kernel_clone+0x94/0x3e0", "__do_sys_clone+0x65/0xa0", "do_syscall_64+0x71/0x280",
	"entry_SYSCALL_64_after_hwframe+0x76/0x7e" };
static const char *const stk_mover[] = {
	"cgroup_procs_write_start+0x1f8/0x270", "__cgroup1_procs_write.isra.0+0x53/0x150",
	"kernfs_fop_write_iter+0x155/0x210", "vfs_write+0x22f/0x450", "ksys_write+0x66/0xe0",
	"do_syscall_64+0x71/0x280", "entry_SYSCALL_64_after_hwframe+0x76/0x7e" };

static void test_link_fork(void **state)
{
	(void)state;
	static const struct tspec tasks[] = {
		{ 5101, 5101, "forker", 25.0, stk_fork, ARRAY_SIZE(stk_fork) },
		{ 5102, 5102, "forker", 24.0, stk_fork, ARRAY_SIZE(stk_fork) },
		{ 4990, 4990, "runc", 26.0, stk_mover, ARRAY_SIZE(stk_mover) },
	};
	static const char *const want_perf[] = {
		"tracepoint sched:sched_process_fork: 604 (604.0/s) forks in 1.0 s\n",
		"tracepoint cgroup:cgroup_attach_task: 12 (12.0/s) tasks moved",
		"/proc/4990/task/4990/stack: PID 4990 (runc) is moving tasks between cgroups "
		"(cgroup_procs_write_start)",
		"in this scan 2 tasks wait in the fork path (cgroup_can_fork, cgroup_css_set_fork, "
		"cgroup_post_fork), 0 in exit (exit_signals), 1 moves",
		"measured no gain",
	};
	struct cgw_sig sig = unit_sig("cgroup-fork-lock", "t", "s", SEV_WARNING);

	/* perf */
	struct cgw_rates rt;
	perf_rates(&rt);
	struct rates_host h = { .possible_cpus = -1 };
	struct unit_scan u;
	size_t k = link_over(&u, &sig, tasks, ARRAY_SIZE(tasks), &rt, &h);
	const struct cgw_finding *f = &u.rep.f[k];
	assert_evidence_all(f, want_perf, ARRAY_SIZE(want_perf));

	/* a replay: the average since boot */
	sb_free(&u.rep.f[k].evidence);
	memset(&rt, 0, sizeof(rt));
	rt.source = RATES_SRC_PROC;
	rt.have_processes = true;
	rt.processes = 91234567;
	rt.uptime_s = 86400.25;
	rt.forks.missing = true;
	rates_link_host(&u.rep, &rt, &h);
	assert_evidence(f, "/proc/stat: 91234567 processes forked since boot, in 86400 s of uptime "
	                "(/proc/uptime): 1056.0 forks/s on average");

	/* live, from /proc/stat */
	sb_free(&u.rep.f[k].evidence);
	rt.live = true;
	rt.window_s = 1.0;
	rt.forks.missing = false;
	rt.forks.count = 50;
	rt.forks.per_s = 50;
	snprintf(rt.forks_from, sizeof(rt.forks_from), "/proc/stat processes");
	rates_link_host(&u.rep, &rt, &h);
	assert_evidence(f, "/proc/stat processes: 50 (50.0/s) forks in 1.0 s\n");

	/* not measured */
	sb_free(&u.rep.f[k].evidence);
	rates_link_host(&u.rep, NULL, &h);
	assert_evidence(f, "fork rate not measured in this run\n");
	us_free(&u);
}

/* Strings from the host are escaped: a comm with a newline cannot start a line. */
static void test_link_escapes(void **state)
{
	(void)state;
	struct unit_scan u;
	us_init(&u);
	struct cgw_sig sig = unit_sig("cgroup1-pidlist-flush", "t", "s", SEV_WARNING);
	const char kw[] = "kworker/0:1\nfix: forged+cgroup_pidlist_destroy";
	size_t t = us_task(&u, 9, 9, kw, sizeof(kw) - 1, 30.0);
	size_t k = us_finding(&u, &sig, SEV_WARNING, 1, &t);
	const char *mi = "44 27 0:40 / /tmp/a\\012b rw - cgroup cgroup rw,name=x\\012y\n";
	struct rates_host h = { .mountinfo = mi, .possible_cpus = -1 };
	rates_link_host(&u.rep, NULL, &h);
	const struct cgw_finding *f = &u.rep.f[k];
	assert_evidence(f, "kworker/0:1\\nfix: forged+cgroup_pidlist_destroy");
	assert_evidence(f, "at /tmp/a\\nb\n");
	/* every line starts with text cgwatch wrote */
	for (const char *l = f->evidence.s; *l; l = strchr(l, '\n') + 1)
		assert_true(strncmp(l, "fix: forged", 11) != 0);
	us_free(&u);
}

static void test_link_other_findings(void **state)
{
	(void)state;
	struct unit_scan u;
	us_init(&u);
	struct cgw_sig sig = unit_sig("fuse-wait", "t", "s", SEV_WARNING);
	size_t t = us_task(&u, 9, 9, "ls", 2, 30.0);
	size_t k = us_finding(&u, &sig, SEV_WARNING, 1, &t);
	struct cgw_rates rt;
	perf_rates(&rt);
	struct rates_host h = { .possible_cpus = -1 };
	rates_link_host(&u.rep, &rt, &h);
	assert_null(u.rep.f[k].evidence.s);
	/* a user's signature with the cgroup-churn correlator gets the churn lines */
	struct cgw_sig mine = unit_sig("my-churn", "t", "s", SEV_WARNING);
	mine.correlator = (char *)"cgroup-churn";
	size_t k2 = us_finding(&u, &mine, SEV_WARNING, 1, &t);
	rates_link_host(&u.rep, &rt, &h);
	assert_evidence(&u.rep.f[k2], "cgroups created");
	assert_evidence(&u.rep.f[k2], "forks in 1.0 s");
	us_free(&u);
}

static void test_json(void **state)
{
	(void)state;
	struct cgw_rates rt;
	perf_rates(&rt);
	snprintf(rt.notes, sizeof(rt.notes), "counting tracepoints\nsecond note");
	struct json_object *o = rates_json(&rt);
	const char *s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	assert_non_null(strstr(s, "\"source\":\"perf\""));
	assert_non_null(strstr(s, "\"window_s\":1.000"));
	assert_non_null(strstr(s, "\"notes\":[\"counting tracepoints\",\"second note\"]"));
	assert_non_null(strstr(s, "\"cgroup:cgroup_mkdir\":{\"count\":200,\"per_s\":200.0}"));
	assert_non_null(strstr(s, "\"cpuhp:cpuhp_enter\":{\"missing\":true,\"why\":\"no tracepoint "
	                          "cpuhp:cpuhp_enter on this kernel\"}"));
	assert_non_null(strstr(s, "\"forks\":{\"count\":604,\"per_s\":604.0,\"from\":"
	                          "\"sched:sched_process_fork\"}"));
	assert_non_null(strstr(s, "\"memory\":{\"hierarchy\":4,\"num_cgroups\":32,\"change\":0,"
	                          "\"enabled\":true}"));
	json_object_put(o);

	/* a replay: no per_s, processes since boot */
	memset(&rt, 0, sizeof(rt));
	rt.source = RATES_SRC_PROC;
	rt.ev[RATE_MKDIR].missing = true;
	rt.have_processes = true;
	rt.processes = 7;
	rt.uptime_s = 10;
	snprintf(rt.cgroups_err, sizeof(rt.cgroups_err), "/proc/cgroups: No such file or directory");
	o = rates_json(&rt);
	s = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	assert_non_null(strstr(s, "\"source\":\"proc-cgroups\""));
	assert_non_null(strstr(s, "\"cgroup:cgroup_rmdir\":{\"count\":0}"));
	assert_non_null(strstr(s, "\"processes_since_boot\":7"));
	assert_non_null(strstr(s, "\"cgroups_error\":\"/proc/cgroups: No such file or directory\""));
	json_object_put(o);
}

/* The source on a replayed tree reads only files: point it at a fixture-like directory
 * through a private root is not possible here, so only the live-free paths: a replay
 * source never waits. */
static void test_replay_source_does_not_wait(void **state)
{
	(void)state;
	struct cgw_rates_src *s = rates_open(false, 500);
	uint64_t t0 = now_usec();
	assert_int_equal(rates_wait(s, 60000), 0);
	assert_true(now_usec() - t0 < 100000);
	struct cgw_rates rt;
	rates_sample(s, &rt);              /* reads this host's /proc as if it were a tree */
	assert_int_equal(rt.source, RATES_SRC_PROC);
	assert_false(rt.live);
	assert_true(rt.window_s == 0);
	assert_true(rt.ev[RATE_MKDIR].missing);
	assert_non_null(strstr(rt.notes, "replayed tree"));
	assert_null(rates_close(s));
}

/* A live sample written as a capture keeps it (cgwatch/rates) and read back: the same counts,
 * window, source, forks, controllers and notes; live false, captured true; the rates as
 * count / window. */
static void test_rates_file_round_trip(void **state)
{
	(void)state;
	struct cgw_rates rt, back;
	perf_rates(&rt);
	rt.window_s = 1.000213;
	for (int e = 0; e < RATE_NEV; e++)
		rt.ev[e].per_s = (double)rt.ev[e].count / rt.window_s;
	rt.forks = rt.ev[RATE_FORK];
	rt.ctrl[1].change = -3;
	rt.ctrl[2].change = 12;
	rt.have_processes = true;
	rt.processes = 91234567;
	snprintf(rt.notes, sizeof(rt.notes), "counting tracepoints with perf_event_open on 2 CPUs\n"
	         "a second\tnote, with a tab");
	struct strbuf b = { 0 };
	rates_format(&rt, &b);
	assert_non_null(b.s);
	assert_true(strncmp(b.s, "cgwatch-rates 1\n", 16) == 0);
	assert_non_null(strstr(b.s, "\nsource perf\n"));
	assert_non_null(strstr(b.s, "\nevent cgroup:cgroup_mkdir 200\n"));
	assert_non_null(strstr(b.s, "\nevent cpuhp:cpuhp_enter missing no tracepoint "
	                            "cpuhp:cpuhp_enter on this kernel\n"));
	assert_non_null(strstr(b.s, "\nforks 604 sched:sched_process_fork\n"));
	size_t line = 0;
	const char *why = NULL;
	assert_int_equal(parse_rates_file(b.s, &back, &line, &why), 0);
	assert_false(back.live);
	assert_true(back.captured);
	assert_int_equal(back.source, RATES_SRC_PERF);
	assert_true(back.window_s == rt.window_s);
	for (int e = 0; e < RATE_NEV; e++) {
		assert_int_equal(back.ev[e].missing, rt.ev[e].missing);
		assert_int_equal(back.ev[e].count, rt.ev[e].count);
		assert_true(back.ev[e].per_s == rt.ev[e].per_s);
		assert_string_equal(back.ev[e].why, rt.ev[e].why);
	}
	assert_false(back.forks.missing);
	assert_int_equal(back.forks.count, 604);
	assert_true(back.forks.per_s == rt.forks.per_s);
	assert_string_equal(back.forks_from, "sched:sched_process_fork");
	assert_int_equal(back.nctrl, rt.nctrl);
	assert_true(back.nctrl > 3);
	for (size_t i = 0; i < rt.nctrl; i++) {
		assert_string_equal(back.ctrl[i].name, rt.ctrl[i].name);
		assert_int_equal(back.ctrl[i].hierarchy, rt.ctrl[i].hierarchy);
		assert_int_equal(back.ctrl[i].num_cgroups, rt.ctrl[i].num_cgroups);
		assert_int_equal(back.ctrl[i].change, rt.ctrl[i].change);
		assert_int_equal(back.ctrl[i].enabled, rt.ctrl[i].enabled);
	}
	assert_true(back.have_processes);
	assert_int_equal(back.processes, 91234567);
	assert_string_equal(back.notes, rt.notes);
	assert_string_equal(back.cgroups_err, "");
	/* written again, the same text */
	struct strbuf b2 = { 0 };
	back.live = true;
	rates_format(&back, &b2);
	assert_string_equal(b.s, b2.s);
	/* the JSON of the replay is the live one's, but for live and captured */
	back.live = false;
	rt.captured = true;
	rt.live = false;
	struct json_object *o1 = rates_json(&rt), *o2 = rates_json(&back);
	assert_string_equal(json_object_to_json_string(o1), json_object_to_json_string(o2));
	json_object_put(o1);
	json_object_put(o2);
	sb_free(&b);
	sb_free(&b2);

	/* /proc counts: forks missing, the error of /proc/cgroups, a short window (no rates) */
	proc_rates(&rt, true, 0.1, "perf_event_open: Permission denied");
	rt.forks.missing = true;
	snprintf(rt.forks.why, sizeof(rt.forks.why), "/proc/stat: Permission denied");
	snprintf(rt.cgroups_err, sizeof(rt.cgroups_err), "/proc/cgroups: Permission denied");
	rt.nctrl = 0;
	rates_format(&rt, &b);
	assert_int_equal(parse_rates_file(b.s, &back, &line, &why), 0);
	assert_int_equal(back.source, RATES_SRC_PROC);
	assert_true(back.window_s == 0.1);
	assert_true(back.ev[RATE_MKDIR].missing);
	assert_string_equal(back.ev[RATE_MKDIR].why, "perf_event_open: Permission denied");
	assert_true(back.forks.missing);
	assert_string_equal(back.forks.why, "/proc/stat: Permission denied");
	assert_string_equal(back.cgroups_err, "/proc/cgroups: Permission denied");
	assert_int_equal(back.nctrl, 0);
	sb_free(&b);
}

/* A rates file that is not one: refused with the line and why. */
static void test_rates_file_bad(void **state)
{
	(void)state;
	static const struct { const char *text; size_t line; } bad[] = {
		{ "", 1 },
		{ "cgwatch-rates 2\nsource perf\nwindow 1.0\n", 1 },
		{ "cgwatch-rates 1\nwindow 1.0\n", 2 },                    /* no source */
		{ "cgwatch-rates 1\nsource perf\n", 2 },                   /* no window */
		{ "cgwatch-rates 1\nsource perf\nsource perf\nwindow 1\n", 3 },
		{ "cgwatch-rates 1\nsource bpf\nwindow 1\n", 2 },
		{ "cgwatch-rates 1\nsource perf\nwindow nan\n", 3 },
		{ "cgwatch-rates 1\nsource perf\nwindow 1e3\n", 3 },
		{ "cgwatch-rates 1\nsource perf\nwindow -1\n", 3 },
		{ "cgwatch-rates 1\nsource perf\nwindow 1\nevent cgroup:cgroup_mkdir -1\n", 4 },
		{ "cgwatch-rates 1\nsource perf\nwindow 1\nevent cgroup:cgroup_mkdir 0x10\n", 4 },
		{ "cgwatch-rates 1\nsource perf\nwindow 1\nevent cgroup:cgroup_mkdir 9007199254740993\n", 4 },
		{ "cgwatch-rates 1\nsource perf\nwindow 1\nevent cgroup:cgroup_mkdir 1\n"
		  "event cgroup:cgroup_mkdir 2\n", 5 },
		{ "cgwatch-rates 1\nsource perf\nwindow 1\nevent cgroup:cgroup_mkdir missing\n", 4 },
		{ "cgwatch-rates 1\nsource perf\nwindow 1\nforks 1\n", 4 },
		{ "cgwatch-rates 1\nsource perf\nwindow 1\ncgroup cpu 2 351 0\n", 4 },
		{ "cgwatch-rates 1\nsource perf\nwindow 1\ncgroup cpu 2 351 0 2\n", 4 },
		{ "cgwatch-rates 1\nsource perf\nwindow 1\ncgroup c/u 2 351 0 1\n", 4 },
		{ "cgwatch-rates 1\nsource perf\nwindow 1\ncgroup cpu 2 351 0 1\ncgroup cpu 2 3 0 1\n", 5 },
		{ "cgwatch-rates 1\nsource perf\nwindow 1\nnote a\x1b[5mb\n", 4 },
		{ "cgwatch-rates 1\nsource perf\nwindow 1\nnote \xff\xfe\n", 4 },
		{ "cgwatch-rates 1\nsource perf\nwindow 1\nprocesses 1\nprocesses 2\n", 5 },
		{ "cgwatch-rates 1\nsource perf\nwindow 1\nwhat 1\n", 4 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct cgw_rates rt;
		size_t line = 0;
		const char *why = NULL;
		int r = parse_rates_file(bad[i].text, &rt, &line, &why);
		if (r == 0 || line != bad[i].line || !why || !why[0])
			fail_msg("case %zu: %d, line %zu, want an error on line %zu", i, r, line,
			         bad[i].line);
	}
	/* an event this version does not know is skipped; an event not listed is missing */
	struct cgw_rates rt;
	size_t line = 0;
	const char *why = NULL;
	assert_int_equal(parse_rates_file("cgwatch-rates 1\n# a comment\n\nsource proc-cgroups\n"
	                                  "window 5.0\nevent sched:sched_new 3\n"
	                                  "event cgroup:cgroup_rmdir 10\n", &rt, &line, &why), 0);
	assert_int_equal(rt.source, RATES_SRC_PROC);
	assert_false(rt.ev[RATE_RMDIR].missing);
	assert_true(rt.ev[RATE_RMDIR].per_s == 2.0);
	assert_true(rt.ev[RATE_MKDIR].missing);
	assert_non_null(strstr(rt.ev[RATE_MKDIR].why, "not in the capture"));
	assert_true(rt.forks.missing);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tracepoint_id),
		cmocka_unit_test(test_trace_format),
		cmocka_unit_test(test_trace_field_types),
		cmocka_unit_test(test_proc_cgroups),
		cmocka_unit_test(test_proc_stat_uptime),
		cmocka_unit_test(test_rates_hostile_numbers),
		cmocka_unit_test(test_mountinfo_v1),
		cmocka_unit_test(test_cgroup_stat),
		cmocka_unit_test(test_event_names),
		cmocka_unit_test(test_link_pidlist),
		cmocka_unit_test(test_link_pidlist_replay),
		cmocka_unit_test(test_link_pidlist_live_proc),
		cmocka_unit_test(test_link_rstat),
		cmocka_unit_test(test_link_sched),
		cmocka_unit_test(test_link_fork),
		cmocka_unit_test(test_link_escapes),
		cmocka_unit_test(test_link_other_findings),
		cmocka_unit_test(test_json),
		cmocka_unit_test(test_replay_source_does_not_wait),
		cmocka_unit_test(test_rates_file_round_trip),
		cmocka_unit_test(test_rates_file_bad),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
