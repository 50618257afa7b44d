/* test-latency.c: latency findings (diagnose-latency.c) from constructed run-queue and
 * pressure measurements: which open and when, the family each points to, the evidence
 * sentences, and the way they flow on: the incident keyed by cause, its state file, the
 * JSON and text reports. */
#include "unit.h"
#include "rates.h"
#include <json-c/json.h>

static struct cgw_conf conf;
static struct cgw_sigset sigs;

static int setup(void **state)
{
	(void)state;
	conf_defaults(&conf);
	memset(&sigs, 0, sizeof(sigs));
	assert_int_equal(sig_load_builtin(&sigs, stderr), 0);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	sig_free(&sigs);
	conf_free(&conf);
	return 0;
}

/* The fake host: what reading a task's stat gives, and which tids have an rstat flush on
 * their kernel stack. */
static int reads_task, reads_stack;
static int fake_task(struct cgw_task *t, void *ctx)
{
	(void)ctx;
	reads_task++;
	if (t->tid == 999)
		return -ESRCH;                /* exited */
	t->state = 'R';
	t->start_ticks = 5000 + (unsigned long long)t->tid;
	snprintf(t->cgroup, sizeof(t->cgroup), "/user.slice");
	return 0;
}
static int fake_stack(int tgid, int tid, struct cgw_frame **f, void *ctx)
{
	(void)tgid;
	(void)ctx;
	reads_stack++;
	const char *text = tid == 301 || tid == 302 ?
		"[<0>] css_rstat_flush+0x9a/0x1e0\n[<0>] mem_cgroup_flush_stats+0x3a/0x60\n"
		"[<0>] memory_stat_format+0x44/0x2c0\n[<0>] memcg1_stat_format+0x22/0x400\n"
		"[<0>] seq_read_iter+0x11c/0x4b0\n[<0>] vfs_read+0x2c1/0x370\n" :
		"[<0>] do_nanosleep+0x6b/0x170\n[<0>] hrtimer_nanosleep+0xb2/0x1a0\n";
	return parse_stack_buf(text, f);
}
static int pauses;
static void fake_pause(void *ctx)
{
	(void)ctx;
	pauses++;
}
static const struct lat_reader fake = { fake_task, fake_stack, fake_pause, NULL };

static struct cgw_runq_task rqt(int tid, const char *comm, unsigned policy, unsigned prio,
                                double ms)
{
	struct cgw_runq_task q = { .tid = tid, .tgid = tid, .policy = policy,
	                           .rt_priority = prio, .ms = ms };
	snprintf(q.comm, sizeof(q.comm), "%s", comm);
	return q;
}

/* Two CPUs over a 5 s interval: CPU 0 quiet, CPU 1 as the spinner test makes it (a
 * SCHED_FIFO/50 task runs 49 ms of every 50, a SCHED_OTHER task waits behind it). */
static struct cgw_runq_cpu cpus[2];
static struct cgw_runq runq;
static void runq_spinner(double p99_ms, unsigned long long count)
{
	memset(cpus, 0, sizeof(cpus));
	cpus[0] = (struct cgw_runq_cpu){ .cpu = 0, .count = 4000, .p50_ms = 0.02, .p99_ms = 1.9,
	                                 .max_ms = 4.1, .nwaited = 1 };
	cpus[0].waited[0] = rqt(77, "bash", 0, 0, 4.1);
	cpus[0].held = rqt(78, "cc1", 0, 0, 3100);
	cpus[1] = (struct cgw_runq_cpu){ .cpu = 1, .count = count, .p50_ms = 24, .p99_ms = p99_ms,
	                                 .max_ms = 49.2, .nwaited = 3 };
	cpus[1].held = rqt(4242, "spinner", 1, 50, 49.1);
	cpus[1].waited[0] = rqt(4243, "sleeper", 0, 0, 49.2);
	cpus[1].waited[1] = rqt(999, "gone", 0, 0, 12.5);
	cpus[1].waited[2] = rqt(4243, "sleeper", 0, 0, 11);   /* its second-longest wait */
	runq = (struct cgw_runq){ .source = "sched_switch", .interval_s = 5, .cpu = cpus,
	                          .ncpu = 2, .exact = true };
	snprintf(runq.missing, sizeof(runq.missing), "interrupts-off spans (no irqsoff tracer)");
}

static void us_latency(struct unit_scan *u)
{
	us_init(u);
	u->rep.conf = &conf;
	u->rep.runq = &runq;
	/* a runnable task the scan read, on CPU 1 */
	size_t k = us_task(u, 4243, 4243, "sleeper", 7, 0);
	u->scan.t[k].state = 'R';
	u->scan.t[k].suspect = SUSPECT_NONE;
	u->scan.t[k].cpu = 1;
}

static const struct cgw_finding *finding(const struct cgw_report *r, const char *id,
                                         const char *cause)
{
	for (size_t k = 0; k < r->nf; k++)
		if (!strcmp(r->f[k].sig->id, id) && (!cause || !strcmp(r->f[k].cause, cause)))
			return &r->f[k];
	return NULL;
}

static bool has_line(const struct cgw_finding *f, const char *needle)
{
	if (f->evidence.s && strstr(f->evidence.s, needle))
		return true;
	print_message("no \"%s\" in:\n%s\n", needle, f->evidence.s ? f->evidence.s : "");
	return false;
}

/* One look (no streak state, as check and a replay): CPU 1's p99 past 50 ms opens
 * runq-latency on "cpu 1"; the quiet CPU 0 does not; the holder and the waiters are its
 * tasks; RT starvation is its family, with starved's remedies. */
static void test_cpu_finding(void **state)
{
	(void)state;
	struct unit_scan u;
	runq_spinner(62, 300);
	us_latency(&u);
	reads_task = reads_stack = 0;
	assert_int_equal(latency_diagnose(&u.rep, &sigs, &fake), 0);
	assert_int_equal(u.rep.nf, 1);
	assert_true(latency_any(&u.rep));
	const struct cgw_finding *f = finding(&u.rep, "runq-latency", "cpu 1");
	assert_non_null(f);
	assert_true(cause_ok(f->cause));
	assert_int_equal(f->severity, SEV_WARNING);
	assert_non_null(f->family);
	assert_string_equal(f->family->id, "starved");
	assert_true(cpus_test(&f->cpus, 1));
	assert_false(cpus_test(&f->cpus, 0));
	/* the holder (new entry, read), the sleeper (the scan's own), the exited one */
	assert_int_equal(f->ntasks, 3);
	const struct cgw_task *h = &u.scan.t[f->tasks[0]];
	assert_int_equal(h->tid, 4242);
	assert_int_equal(h->lat_role, LAT_HELD);
	assert_int_equal(h->suspect, SUSPECT_LATENCY);
	assert_int_equal(h->policy, 1);
	assert_int_equal(h->start_ticks, 9242);
	assert_near(h->blocked_s, 0.0491, 1e-9);
	assert_ptr_equal(h->sig, f->sig);
	const struct cgw_task *w = &u.scan.t[f->tasks[1]];
	assert_int_equal(w->tid, 4243);
	assert_int_equal(f->tasks[1], 0);          /* the scan's entry, not a copy */
	assert_int_equal(w->lat_role, LAT_WAITED);
	assert_near(w->lat_ms, 49.2, 1e-9);
	assert_int_equal(reads_task, 2);           /* 4242 and 999: 4243 was in the scan */
	assert_int_equal(reads_stack, 0);          /* stacks only for rstat-flush */
	assert_true(has_line(f, "CPU 1: run-queue wait p50 24.00 ms, p99 62.00 ms, max 49.20 ms "
	                        "over 5.0 s (300 waits, from sched_switch); threshold p99 50 ms\n"));
	assert_true(has_line(f, "held: CPU 1 ran PID 4242 (spinner) SCHED_FIFO/50 for 49.1 ms "
	                        "without a switch, the longest run there in the 5.0 s\n"));
	assert_true(has_line(f, "waited: PID 4243 (sleeper) SCHED_OTHER waited 49.20 ms for "
	                        "CPU 1\n"));
	assert_true(has_line(f, "points to RT starvation (signature starved): CPU 1 was held by "
	                        "PID 4242 (spinner) SCHED_FIFO/50 for 49.1 ms without a switch, and no fair task "
	                        "preempts it\n"));
	assert_null(strstr(f->evidence.s, "waited 11.00 ms"));   /* one line a task */
	assert_true(has_line(f, "cgroup activity rates: not counted at this scan\n"));
	assert_true(has_line(f, "not measured on this kernel: interrupts-off spans (no irqsoff "
	                        "tracer)\n"));
	us_free(&u);
}

/* timerlat's interval on CPU 1 in the evidence (the holder, the IRQ's task, the stack, a
 * hostile name escaped) and in the runq JSON; a run that could not start says why; the CPUs
 * [latency] timerlat asks for. */
static void test_timerlat(void **state)
{
	(void)state;
	struct unit_scan u;
	runq_spinner(62, 300);
	struct cgw_timerlat *t = &cpus[1].tl;
	*t = (struct cgw_timerlat){ .measured = true, .samples = 212, .irq_max_us = 568.46,
	                            .irq_pid = 4242, .thread_max_us = 20502.97, .thr_pid = 4242,
	                            .thr_noise_us = 19663.385 };
	snprintf(t->irq_comm, sizeof(t->irq_comm), "spin\nner");
	snprintf(t->thr_comm, sizeof(t->thr_comm), "spinner");
	snprintf(t->stack, sizeof(t->stack), "read_hpet <- ktime_get_ts64");
	snprintf(runq.timerlat, sizeof(runq.timerlat), "CPUs 1");
	us_latency(&u);
	assert_int_equal(latency_diagnose(&u.rep, &sigs, &fake), 0);
	const struct cgw_finding *f = finding(&u.rep, "runq-latency", "cpu 1");
	assert_non_null(f);
	assert_true(has_line(f, "timerlat: CPU 1 over 5.0 s, 212 activations: thread latency max "
	                        "20.503 ms, PID 4242 (spinner) held the CPU for 19.663 ms of it; "
	                        "timer IRQ latency max 0.568 ms (interrupts off, or the IRQ held, "
	                        "that long), in PID 4242 (spin\\nner)\n"));
	assert_true(has_line(f, "timerlat: kernel stack at the IRQ of the worst thread latency: "
	                        "read_hpet <- ktime_get_ts64\n"));
	json_object *j = runq_json(&runq, NULL);
	json_object *c1 = json_object_array_get_idx(json_object_object_get(j, "cpus"), 1);
	json_object *tj = json_object_object_get(c1, "timerlat");
	assert_non_null(tj);
	assert_int_equal(json_object_get_int(json_object_object_get(tj, "samples")), 212);
	assert_true(json_object_get_double(json_object_object_get(tj, "thread_max_us")) == 20502.97);
	assert_int_equal(json_object_get_int(json_object_object_get(
	                 json_object_object_get(tj, "thread_held_by"), "pid")), 4242);
	assert_string_equal(json_object_get_string(json_object_object_get(tj, "stack")),
	                    "read_hpet <- ktime_get_ts64");
	assert_null(json_object_object_get(json_object_array_get_idx(
	            json_object_object_get(j, "cpus"), 0), "timerlat"));
	assert_string_equal(json_object_get_string(json_object_object_get(j, "timerlat")), "CPUs 1");
	json_object_put(j);
	us_free(&u);

	/* not run: why, once */
	runq_spinner(62, 300);
	snprintf(runq.timerlat, sizeof(runq.timerlat), "cannot make tracefs instances/cgwtl-7: "
	         "Read-only file system");
	us_latency(&u);
	assert_int_equal(latency_diagnose(&u.rep, &sigs, &fake), 0);
	f = finding(&u.rep, "runq-latency", "cpu 1");
	assert_true(has_line(f, "timerlat: not run (cannot make tracefs instances/cgwtl-7: "
	                        "Read-only file system)\n"));
	us_free(&u);

	/* which CPUs: auto, those past the threshold; always, all; no, none */
	struct cgw_cpus c;
	conf.latency_timerlat = TL_MODE_AUTO;
	latency_timerlat_cpus(&runq, &conf, &c);
	assert_true(cpus_test(&c, 1) && !cpus_test(&c, 0));
	latency_timerlat_cpus(NULL, &conf, &c);
	assert_true(cpus_empty(&c));
	conf.latency_timerlat = TL_MODE_ALWAYS;
	latency_timerlat_cpus(&runq, &conf, &c);
	assert_true(cpus_test(&c, 1) && cpus_test(&c, 0));
	conf.latency_timerlat = TL_MODE_NO;
	latency_timerlat_cpus(&runq, &conf, &c);
	assert_true(cpus_empty(&c));
	conf.latency_timerlat = TL_MODE_AUTO;
}

/* Below the threshold, or past it on too few waits, nothing opens; 0 turns it off. */
static void test_quiet(void **state)
{
	(void)state;
	struct unit_scan u;
	runq_spinner(49.9, 300);
	us_latency(&u);
	assert_int_equal(latency_diagnose(&u.rep, &sigs, &fake), 0);
	assert_int_equal(u.rep.nf, 0);
	assert_false(latency_any(&u.rep));
	assert_int_equal(u.scan.n, 1);            /* no task added */
	us_free(&u);

	runq_spinner(62, 19);                     /* runq_min_waits is 20 */
	us_latency(&u);
	assert_int_equal(latency_diagnose(&u.rep, &sigs, &fake), 0);
	assert_int_equal(u.rep.nf, 0);
	us_free(&u);

	runq_spinner(62, 300);
	us_latency(&u);
	conf.latency_runq_p99_ms = 0;
	assert_int_equal(latency_diagnose(&u.rep, &sigs, &fake), 0);
	conf.latency_runq_p99_ms = 50;
	assert_int_equal(u.rep.nf, 0);
	us_free(&u);
}

/* What pages (latency_cpu_passes, runq_p99_ms 50, runq_min_waits 20), at its boundaries:
 *  - the waits of tasks that asked for less CPU (nice > 0, SCHED_BATCH, SCHED_IDLE: low_count
 *    of them) are not counted: the others' p99 (full_p99_ms) and count decide; but where a
 *    real-time task held the CPU for half the p99 (or of the threshold) every wait counts:
 *    nice orders fair tasks among themselves, an RT task holds them all off alike;
 *  - one wait 4 times the threshold (200 ms) or more, behind a SCHED_FIFO/RR task that ran
 *    half that long without a switch, passes with fewer waits than runq_min_waits: a fair task
 *    beside a FIFO hog gets the fair server's 50 ms a second and waits ~950 ms, once. */
static void test_passes(void **state)
{
	(void)state;
	enum { O = 0, F = 1, R = 2, B = 3 };      /* SCHED_OTHER, _FIFO, _RR, _BATCH */
	static const struct {
		const char *name;
		unsigned long long count, low;
		double p99, full_p99, max, full_max;
		unsigned holder; double held_ms;
		bool want;
	} cases[] = {
		{ "FIFO hog, one fair wait of 950 ms", 1, 0, 950, 0, 950, 0, F, 950, true },
		{ "FIFO hog, 3 waits, the longest 200 ms, held 100 ms", 3, 0, 200, 0, 200, 0, F, 100, true },
		{ "FIFO hog, the longest 199.9 ms", 3, 0, 199.9, 0, 199.9, 0, F, 199.9, false },
		{ "the longest 200 ms, held 99.9 ms: the hog does not explain it", 3, 0, 200, 0, 200, 0, F, 99.9, false },
		{ "SCHED_RR holder, 950 ms", 2, 0, 950, 0, 950, 0, R, 950, true },
		{ "a fair holder, one wait of 950 ms: too few waits", 1, 0, 950, 0, 950, 0, O, 950, false },
		{ "19 waits, p99 62 behind FIFO: too few, not long", 19, 0, 62, 0, 62, 0, F, 49, false },
		{ "the longest 950 ms of a niced task behind a FIFO hog", 1, 1, 950, 0, 950, 0, F, 950, true },
		{ "no niced waits: p99 50", 300, 0, 50, 0, 50, 0, O, 30, true },
		{ "no niced waits: p99 49.9", 300, 0, 49.9, 0, 55, 0, O, 30, false },
		{ "niced waits past it, the others' p99 8 ms", 2000, 300, 55, 8, 56, 12, O, 33, false },
		{ "niced waits past it, the others' p99 50 ms", 2000, 300, 55, 50, 56, 52, O, 33, true },
		{ "every wait niced", 2000, 2000, 55, 0, 56, 0, O, 33, false },
		{ "the others 19 waits, p99 60: too few", 30, 11, 60, 60, 60, 60, O, 30, false },
		{ "the others 20 waits, p99 60", 30, 10, 60, 60, 60, 60, O, 30, true },
		{ "niced waits past it behind FIFO/50 held 49 ms: every wait counts", 300, 280, 55, 2, 56, 3, F, 49, true },
		{ "SCHED_BATCH holder is fair: niced waits do not count", 300, 280, 55, 2, 56, 3, B, 49, false },
	};
	size_t bad = 0;
	for (size_t k = 0; k < ARRAY_SIZE(cases); k++) {
		struct cgw_runq_cpu c = { .cpu = 1, .count = cases[k].count, .low_count = cases[k].low,
		                          .p99_ms = cases[k].p99, .max_ms = cases[k].max,
		                          .full_p99_ms = cases[k].full_p99,
		                          .full_max_ms = cases[k].full_max };
		c.held = rqt(4242, "hog", cases[k].holder, cases[k].holder == F ||
		             cases[k].holder == R ? 99 : 0, cases[k].held_ms);
		if (latency_cpu_passes(&c, &conf) != cases[k].want) {
			print_message("%s: %s\n", cases[k].name, cases[k].want ? "not passed, want passed" :
			              "passed, want not");
			bad++;
		}
	}
	assert_int_equal(bad, 0);
}

/* The evidence says why a CPU passed: one long wait behind the RT holder with too few waits
 * for a p99; the niced waits, counted or not, and the others' p99; a waiter's nice. */
static void test_passes_evidence(void **state)
{
	(void)state;
	struct unit_scan u;
	runq_spinner(950, 1);
	cpus[1].max_ms = 950;
	cpus[1].held.ms = 950;
	us_latency(&u);
	assert_int_equal(latency_diagnose(&u.rep, &sigs, &fake), 0);
	const struct cgw_finding *f = finding(&u.rep, "runq-latency", "cpu 1");
	assert_non_null(f);
	assert_true(has_line(f, "(1 waits, from sched_switch); threshold p99 50 ms; too few waits "
	                        "for a p99, but the longest 950.00 ms, 4 times the threshold or "
	                        "more, behind a real-time task\n"));
	assert_true(has_line(f, "points to RT starvation (signature starved)"));
	us_free(&u);

	runq_spinner(55, 2000);                   /* niced waits past it, an RT holder */
	cpus[1].low_count = 300;
	cpus[1].full_p99_ms = 8;
	cpus[1].full_max_ms = 12;
	cpus[1].waited[0].nice = 10;
	us_latency(&u);
	assert_int_equal(latency_diagnose(&u.rep, &sigs, &fake), 0);
	f = finding(&u.rep, "runq-latency", "cpu 1");
	assert_non_null(f);
	assert_true(has_line(f, "; 300 of them by tasks that asked for less CPU (nice > 0, "
	                        "SCHED_BATCH, SCHED_IDLE), counted (a real-time task held the CPU): "
	                        "the others' p99 8.00 ms, max 12.00 ms\n"));
	assert_true(has_line(f, "waited: PID 4243 (sleeper) SCHED_OTHER nice 10 waited 49.20 ms"));
	us_free(&u);

	runq_spinner(55, 2000);                   /* the same behind a fair holder: none */
	cpus[1].low_count = 300;
	cpus[1].full_p99_ms = 8;
	cpus[1].held = rqt(4244, "hdd", 0, 0, 33);
	us_latency(&u);
	assert_int_equal(latency_diagnose(&u.rep, &sigs, &fake), 0);
	assert_null(finding(&u.rep, "runq-latency", "cpu 1"));
	us_free(&u);
}

/* The daemon's streak: runq_scans (2) scans in a row open it; one scan below resets it. */
static void test_streak(void **state)
{
	(void)state;
	conf.latency_runq_resolve_scans = 1;      /* the first full interval below resolves */
	struct cgw_latency st = { 0 };
	double p99[] = { 62, 62, 62, 10, 62, 62 };
	size_t want[] = { 0, 1, 1, 0, 0, 1 };
	for (size_t k = 0; k < ARRAY_SIZE(p99); k++) {
		struct unit_scan u;
		runq_spinner(p99[k], 300);
		us_latency(&u);
		u.rep.latency = &st;
		assert_int_equal(latency_diagnose(&u.rep, &sigs, &fake), 0);
		print_message("scan %zu: p99 %g -> %zu findings\n", k, p99[k], u.rep.nf);
		assert_int_equal(u.rep.nf, want[k]);
		if (want[k] && k == 2)
			assert_true(has_line(&u.rep.f[0], "passed 3 scans in a row"));
		us_free(&u);
	}
	latency_state_free(&st);
	conf.latency_runq_resolve_scans = 3;
}

/* Hysteresis: once open (runq_scans 2), CPU 1's finding stays until its p99 has been below the
 * threshold runq_resolve_scans (3) full intervals in a row, so its incident resolves then and
 * not while the CPU is still held. A full interval is at least 90 % of [scan] interval (5 s):
 * a scan sooner (a pressure trigger's) does not count as below, nor does an interval with too
 * few waits to judge a p99 whose longest wait still passed the threshold (a hog that lets a
 * fair task run 50 ms a second makes few waits, each long). */
struct lat_step { double p99_ms, interval_s; unsigned long long count; double max_ms; };
#define P  { 62, 5, 300, 80 }                 /* passes */
#define B  { 10, 5, 300, 30 }                 /* below, a full interval */
#define S  { 10, 4.49, 300, 30 }              /* below, just short of full (4.5 s) */
#define F  { 10, 4.5, 300, 30 }               /* below, just full */
#define W  { 10, 5, 12, 950 }                 /* too few waits, one past the threshold */
#define Q  { 10, 5, 12, 4 }                   /* too few waits, all short: below */
static void test_resolve(void **state)
{
	(void)state;
	static const struct {
		const char *name;
		struct lat_step step[8]; size_t n;
		const char *want;                 /* per step: 1 CPU 1's finding, 0 none */
	} cases[] = {
		{ "below 2 (one short of 3): still open", { P, P, B, B }, 4, "0111" },
		{ "below 3: resolved", { P, P, B, B, B }, 5, "01110" },
		{ "below 4: stays resolved", { P, P, B, B, B, B }, 6, "011100" },
		{ "a short interval is not counted", { P, P, B, S, B, B }, 6, "011110" },
		{ "an interval of 90 %: counted", { P, P, B, F, B }, 5, "01110" },
		{ "a pass starts the count again", { P, P, B, B, P, B, B, B }, 8, "01111110" },
		{ "too few waits, one past it: not below", { P, P, B, W, B, B }, 6, "011110" },
		{ "too few waits, all short: below", { P, P, B, Q, B }, 5, "01110" },
		{ "never open: nothing to hold", { B, W, B }, 3, "000" },
		{ "resolved: runq_scans again to reopen", { P, P, B, B, B, P, P }, 7, "0111001" },
	};
	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		struct cgw_latency st = { 0 };
		for (size_t k = 0; k < cases[c].n; k++) {
			const struct lat_step *x = &cases[c].step[k];
			struct unit_scan u;
			runq_spinner(x->p99_ms, x->count);
			cpus[1].max_ms = x->max_ms;
			runq.interval_s = x->interval_s;
			us_latency(&u);
			u.rep.latency = &st;
			assert_int_equal(latency_diagnose(&u.rep, &sigs, &fake), 0);
			const struct cgw_finding *f = finding(&u.rep, "runq-latency", "cpu 1");
			bool want = cases[c].want[k] == '1';
			if ((f != NULL) != want)
				fail_msg("%s: step %zu: %s, want %s", cases[c].name, k,
				         f ? "a finding" : "none", want ? "one" : "none");
			/* held open: it says so, and how far it is */
			if (c == 3 && k == 3)
				assert_true(has_line(f, "; below it 1 full interval in a row of the 3 that "
				                        "resolve it (this one 4.49 s of 5 s: too short to "
				                        "count)\n"));
			if (c == 0 && k == 3)
				assert_true(has_line(f, "; below it 2 full intervals in a row of the 3 that "
				                        "resolve it\n"));
			if (c == 6 && k == 3)
				assert_true(has_line(f, "; below it 1 full interval in a row of the 3 that "
				                        "resolve it (this one: 12 waits, too few for a p99, "
				                        "the longest 950.00 ms: not counted)\n"));
			us_free(&u);
		}
		latency_state_free(&st);
	}
}
#undef P
#undef B
#undef S
#undef F
#undef W
#undef Q

static struct cgw_rates rates_with(double rstat, double cpuhp, double forks)
{
	struct cgw_rates rt;
	memset(&rt, 0, sizeof(rt));
	rt.live = true;
	rt.window_s = 5;
	rt.ev[RATE_RSTAT_CONTENDED] = (struct rates_count){ .count = (uint64_t)(rstat * 5),
	                                                    .per_s = rstat };
	rt.ev[RATE_CPUHP_ENTER] = (struct rates_count){ .count = (uint64_t)(cpuhp * 5),
	                                                .per_s = cpuhp };
	rt.forks = (struct rates_count){ .count = (uint64_t)(forks * 5), .per_s = forks };
	snprintf(rt.forks_from, sizeof(rt.forks_from), "sched:sched_process_fork");
	return rt;
}

/* The family, in order: an RT holder, rstat contention that rose, hotplug steps, a fork storm,
 * else runq-latency itself. A rate that did not rise against before the latency points
 * nowhere. */
static void test_family(void **state)
{
	(void)state;
	runq_spinner(62, 300);
	struct cgw_runq_cpu other = cpus[1];
	other.held = rqt(500, "java", 0, 0, 4000);
	struct cgw_rates quiet = rates_with(0.4, 0, 20), rstat = rates_with(300, 0, 20),
	                 hp = rates_with(0.4, 4, 20), storm = rates_with(0.4, 0, 3000);
	assert_string_equal(latency_family(&cpus[1], &rstat, &quiet, 50), "starved");
	assert_string_equal(latency_family(&other, &rstat, &quiet, 50), "rstat-flush");
	assert_string_equal(latency_family(&other, &rstat, NULL, 50), "rstat-flush");
	assert_string_equal(latency_family(&other, &rstat, &rstat, 50), "runq-latency");
	assert_string_equal(latency_family(&other, &hp, &quiet, 50), "sched-domain-rebuild");
	assert_string_equal(latency_family(&other, &storm, &quiet, 50), "cgroup-fork-lock");
	assert_string_equal(latency_family(&other, &storm, &storm, 50), "runq-latency");
	assert_string_equal(latency_family(&other, &quiet, &quiet, 50), "runq-latency");
	assert_string_equal(latency_family(&other, NULL, NULL, 50), "runq-latency");
	assert_string_equal(latency_family(NULL, &hp, NULL, 50), "sched-domain-rebuild");
	/* an RT holder that ran less than half the p99 wait and half the threshold does not
	 * explain it; half the threshold does */
	other.held = rqt(501, "rtkick", 1, 10, 24.9);
	assert_string_equal(latency_family(&other, &quiet, &quiet, 50), "runq-latency");
	other.p99_ms = 99.3;
	other.held.ms = 25;
	assert_string_equal(latency_family(&other, &quiet, &quiet, 50), "starved");
	assert_string_equal(latency_family(&other, &quiet, &quiet, 0), "runq-latency");
	other.held = rqt(500, "java", 0, 0, 4000);
	struct rates_count miss = { .missing = true };
	snprintf(miss.why, sizeof(miss.why), "perf_event_open: Permission denied");
	rstat.ev[RATE_RSTAT_CONTENDED] = miss;
	assert_string_equal(latency_family(&other, &rstat, &quiet, 50), "runq-latency");
}

/* rstat contention rose while CPU 1 waited, held by a fair task: the finding points to
 * rstat-flush with its remedies, says the rate against the one before, and names the readers:
 * the runnable tasks of CPU 1 with the flush on their stacks (read only then). */
static void test_rstat_readers(void **state)
{
	(void)state;
	struct unit_scan u;
	runq_spinner(62, 300);
	cpus[1].held = rqt(600, "stress", 0, 0, 2500);
	us_latency(&u);
	for (int tid = 301; tid <= 303; tid++) {  /* two readers and a sleeper, R on CPU 1 */
		size_t k = us_task(&u, tid, 300, "cat", 3, 0);
		u.scan.t[k].state = 'R';
		u.scan.t[k].suspect = SUSPECT_NONE;
		u.scan.t[k].cpu = 1;
	}
	size_t k = us_task(&u, 310, 310, "cat", 3, 0);   /* on CPU 0: not read */
	u.scan.t[k].state = 'R';
	u.scan.t[k].suspect = SUSPECT_NONE;
	u.scan.t[k].cpu = 0;
	struct cgw_rates now = rates_with(850.4, 0, 20), before = rates_with(3, 0, 21);
	u.rep.rates = &now;
	u.rep.rates_prev = &before;
	reads_stack = 0;
	assert_int_equal(latency_diagnose(&u.rep, &sigs, &fake), 0);
	const struct cgw_finding *f = finding(&u.rep, "runq-latency", "cpu 1");
	assert_non_null(f);
	assert_non_null(f->family);
	assert_string_equal(f->family->id, "rstat-flush");
	assert_true(has_line(f, "tracepoint cgroup:cgroup_rstat_lock_contended: 850.4/s over "
	                        "5.0 s, up from 3.0/s before the latency\n"));
	assert_true(has_line(f, "tracepoint cpuhp:cpuhp_enter: 0.0/s over 5.0 s, as 0.0/s before "
	                        "the latency\n"));
	assert_true(has_line(f, "points to rstat-flush"));
	assert_true(has_line(f, "rstat reader: TID 301 (cat), runnable on CPU 1, has "
	                        "css_rstat_flush on its kernel stack\n"));
	assert_true(has_line(f, "rstat reader: TID 302 (cat), runnable"));
	assert_null(strstr(f->evidence.s, "TID 303"));
	assert_null(strstr(f->evidence.s, "310"));
	/* CPU 1's R tasks: the sleeper 4243, 301-303, and the finding's own (600, 999) */
	assert_int_equal(reads_stack, 6);
	bool r301 = false;
	for (size_t j = 0; j < f->ntasks; j++)
		r301 |= u.scan.t[f->tasks[j]].tid == 301;
	assert_true(r301);
	us_free(&u);

	/* schedstat's waits are means per slice, and its holder's time its CPU time */
	runq_spinner(62, 300);
	runq.exact = false;
	runq.source = "schedstat";
	us_latency(&u);
	assert_int_equal(latency_diagnose(&u.rep, &sigs, &fake), 0);
	f = finding(&u.rep, "runq-latency", "cpu 1");
	assert_non_null(f);
	assert_true(has_line(f, "waited: PID 4243 (sleeper) SCHED_OTHER waited 49.20 ms a slice, "
	                        "on average, for CPU 1\n"));
	assert_true(has_line(f, "held: CPU 1 ran PID 4242 (spinner) SCHED_FIFO/50 for 49.1 ms of "
	                        "the 5.0 s (1 %), the most of the tasks read there\n"));
	us_free(&u);

	/* the same contention as before the latency: no readers looked for */
	runq_spinner(62, 300);
	cpus[1].held = rqt(600, "stress", 0, 0, 2500);
	us_latency(&u);
	u.rep.rates = &now;
	u.rep.rates_prev = &now;
	reads_stack = 0;
	assert_int_equal(latency_diagnose(&u.rep, &sigs, &fake), 0);
	f = finding(&u.rep, "runq-latency", "cpu 1");
	assert_non_null(f);
	assert_null(f->family);                   /* runq-latency's own remedies */
	assert_int_equal(reads_stack, 0);
	assert_true(has_line(f, "points to no known mechanism"));
	us_free(&u);

	/* rose, but no reader in the flush when read: said, each read LAT_STACK_PASSES times */
	pauses = 0;
	runq_spinner(62, 300);
	cpus[1].held = rqt(600, "stress", 0, 0, 2500);
	us_latency(&u);
	u.rep.rates = &now;
	u.rep.rates_prev = &before;
	reads_stack = 0;
	assert_int_equal(latency_diagnose(&u.rep, &sigs, &fake), 0);
	f = finding(&u.rep, "runq-latency", "cpu 1");
	assert_non_null(f);
	assert_true(has_line(f, "rstat readers on CPU 1: none of its 3 runnable tasks had an rstat "
	                        "flush on its kernel stack, read 16 times 3 ms apart"));
	assert_int_equal(reads_stack, 3 * 16);
	assert_int_equal(pauses, 15);
	us_free(&u);
}

/* Pressure (the daemon's only): each resource that crossed is a finding keyed "pressure RES",
 * saying why, with
 * the findings' cgroups that have pressure of their own, most first; memory's family is
 * reclaim, its tasks the D tasks; cpu's tasks each CPU's holder and longest waiter. */
static void test_pressure(void **state)
{
	(void)state;
	struct unit_scan u;
	runq_spinner(10, 300);                     /* no CPU past its threshold */
	us_latency(&u);
	size_t d = us_task(&u, 40, 40, "kswapd-victim", 13, 3.5);
	u.scan.t[d].suspect = SUSPECT_NONE;       /* in D below the threshold */
	struct cgw_psi_cgroup cg[3];
	memset(cg, 0, sizeof(cg));
	const char *paths[] = { "/system.slice/a.service", "/system.slice/db.service",
	                        "/user.slice" };
	double avg[] = { 0.5, 42, 7.25 };
	for (int k = 0; k < 3; k++) {
		snprintf(cg[k].path, sizeof(cg[k].path), "%s", paths[k]);
		cg[k].res[PSI_CPU].have = cg[k].res[PSI_CPU].some.have = true;
		cg[k].res[PSI_CPU].some.avg10 = avg[k];
	}
	struct cgw_pressure p;
	memset(&p, 0, sizeof(p));
	p.sys[PSI_CPU].have = p.sys[PSI_CPU].some.have = true;
	p.sys[PSI_CPU].some.avg10 = 61.5;
	p.cg = cg;
	p.ncg = 3;
	p.crossed[PSI_CPU] = p.crossed[PSI_MEMORY] = true;
	snprintf(p.why[PSI_CPU], sizeof(p.why[0]), "cpu some 62 %% over 1 s (threshold 500 ms in 1 s)");
	u.rep.pressure = &p;
	assert_int_equal(latency_diagnose(&u.rep, &sigs, &fake), 0);
	assert_int_equal(u.rep.nf, 0);            /* check: none, its exit code is about tasks */
	struct cgw_latency st = { 0 };
	u.rep.latency = &st;                      /* the daemon */
	assert_int_equal(latency_diagnose(&u.rep, &sigs, &fake), 0);
	latency_state_free(&st);
	assert_int_equal(u.rep.nf, 2);
	const struct cgw_finding *f = finding(&u.rep, "pressure-stall", "pressure cpu");
	assert_non_null(f);
	assert_true(cause_ok(f->cause));
	assert_true(has_line(f, "cpu pressure crossed its threshold: cpu some 62 % over 1 s "
	                        "(threshold 500 ms in 1 s)\n"));
	assert_true(has_line(f, "/proc/pressure/cpu: cpu some avg10 61.50 %"));
	assert_true(has_line(f, "/system.slice/db.service: cpu some avg10 42.00 %\n"
	                        "/user.slice: cpu some avg10 7.25 %\n"));
	assert_null(strstr(f->evidence.s, "a.service"));   /* below the floor */
	assert_int_equal(f->ntasks, 4);           /* per CPU: its holder, its longest waiter */
	assert_non_null(f->family);
	assert_string_equal(f->family->id, "starved");
	const struct cgw_finding *m = finding(&u.rep, "pressure-stall", "pressure memory");
	assert_non_null(m);
	assert_non_null(m->family);
	assert_string_equal(m->family->id, "reclaim");
	assert_int_equal(m->ntasks, 1);
	assert_int_equal(u.scan.t[m->tasks[0]].tid, 40);
	assert_true(has_line(m, "memory pressure crossed its threshold: (no reason given)\n"));
	assert_null(finding(&u.rep, "pressure-stall", "pressure io"));

	/* a cgroup past the threshold (75 % of some stall in 2 s): "cgroup PATH", its tasks the
	 * findings' tasks in it; below it, and the root, none */
	p.trig[PSI_CPU] = (struct cgw_psi_trigger){ true, false, 1500000, 2000000 };
	p.trig[PSI_MEMORY] = (struct cgw_psi_trigger){ false, false, 0, 0 };
	cg[1].res[PSI_CPU].some.avg10 = 80;       /* db.service */
	cg[2].res[PSI_CPU].some.avg10 = 74.9;     /* user.slice */
	snprintf(cg[0].path, sizeof(cg[0].path), "/");
	cg[0].res[PSI_CPU].some.avg10 = 99;
	snprintf(u.scan.t[d].cgroup, sizeof(u.scan.t[d].cgroup), "/system.slice/db.service");
	u.rep.latency = NULL;
	assert_int_equal(latency_cgroups(&u.rep, &sigs), 0);    /* not the daemon's: none */
	assert_int_equal(u.rep.nf, 2);
	u.rep.latency = &st;
	assert_int_equal(latency_cgroups(&u.rep, &sigs), 0);
	u.rep.latency = NULL;
	assert_int_equal(u.rep.nf, 3);
	const struct cgw_finding *c = finding(&u.rep, "pressure-stall", "cgroup /system.slice/db.service");
	assert_non_null(c);
	assert_true(cause_ok(c->cause));
	assert_true(has_line(c, "cgroup /system.slice/db.service: cpu some avg10 80.00 %, past the "
	                        "threshold's 75 % (some 1500ms 2s)\n"));
	assert_int_equal(c->ntasks, 1);
	assert_int_equal(u.scan.t[c->tasks[0]].tid, 40);
	assert_non_null(c->family);
	assert_string_equal(c->family->id, "starved");
	assert_null(finding(&u.rep, "pressure-stall", "cgroup /user.slice"));
	/* an incident of pressure with no task yet names none */
	struct incident pi;
	memset(&pi, 0, sizeof(pi));
	snprintf(pi.id, sizeof(pi.id), "20261202T070000Z-pressure-stall");
	snprintf(pi.sig, sizeof(pi.sig), "pressure-stall");
	snprintf(pi.cause, sizeof(pi.cause), "pressure cpu");
	pi.severity = SEV_WARNING;
	char pm[512];
	assert_string_equal(incident_message(&pi, INC_OPENED, pm, sizeof(pm)),
	                    "pressure-stall on pressure cpu: incident 20261202T070000Z-pressure-stall "
	                    "opened, warning");
	assert_null(finding(&u.rep, "pressure-stall", "cgroup /"));
	us_free(&u);
}

/* A pressure crossing that points to no known mechanism (cpu, no real-time holder, no rate
 * risen: a busy healthy host) is an info finding, which opens no incident, until it has lasted
 * [pressure] page_after; one that points somewhere (an RT holder, memory's reclaim) pages at
 * once. */
static void test_pressure_page_after(void **state)
{
	(void)state;
	assert_true(conf.pressure_page_after_s == 60);      /* the default */
	static const struct {
		const char *name;
		bool rt;                      /* the holder is SCHED_FIFO */
		int res;
		double crossed_s;             /* crossed in a row before this scan */
		enum cgw_sev want;
	} cases[] = {
		{ "fair, just crossed", false, PSI_CPU, 0, SEV_INFO },
		{ "fair, 59.9 s", false, PSI_CPU, 59.9, SEV_INFO },
		{ "fair, page_after", false, PSI_CPU, 60, SEV_WARNING },
		{ "fair, longer", false, PSI_CPU, 300, SEV_WARNING },
		{ "rt holder", true, PSI_CPU, 0, SEV_WARNING },
		{ "memory: reclaim", false, PSI_MEMORY, 0, SEV_WARNING },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct unit_scan u;
		runq_spinner(10, 300);
		if (!cases[i].rt)
			cpus[1].held = rqt(600, "stress", 0, 0, 2500);
		us_latency(&u);
		struct cgw_pressure p;
		memset(&p, 0, sizeof(p));
		int r = cases[i].res;
		p.sys[r].have = p.sys[r].some.have = true;
		p.sys[r].some.avg10 = 80;
		p.trig[r] = (struct cgw_psi_trigger){ true, false, 1500000, 2000000 };
		p.crossed[r] = true;
		p.crossed_s[r] = cases[i].crossed_s;
		snprintf(p.why[r], sizeof(p.why[0]), "test");
		u.rep.pressure = &p;
		struct cgw_latency st = { 0 };
		u.rep.latency = &st;
		assert_int_equal(latency_diagnose(&u.rep, &sigs, &fake), 0);
		latency_state_free(&st);
		char cause[32];
		snprintf(cause, sizeof(cause), "pressure %s", psi_res_name(r));
		const struct cgw_finding *f = finding(&u.rep, "pressure-stall", cause);
		assert_non_null(f);
		if (f->severity != cases[i].want) {
			print_error("%s: severity %s, want %s\n%s", cases[i].name, sev_name(f->severity),
			            sev_name(cases[i].want), f->evidence.s);
			fail();
		}
		if (cases[i].want == SEV_INFO)
			assert_true(has_line(f, "not paged: it points to no known mechanism; it pages once "
			                        "crossed 60 s in a row ([pressure] page_after)\n"));
		else
			assert_null(strstr(f->evidence.s, "not paged"));
		/* most severe first, as finding_new keeps them */
		for (size_t k = 1; k < u.rep.nf; k++)
			assert_true(u.rep.f[k - 1].severity >= u.rep.f[k].severity);
		/* info opens no incident; warning does */
		struct cgw_incidents in = { 0 };
		struct inc_change *ch = NULL;
		ssize_t n = incidents_update(&in, &u.rep, 1.7e9, 300, &ch);
		size_t opened = 0;
		for (size_t k = 0; k < in.n; k++)
			opened += !strcmp(in.v[k].sig, "pressure-stall");
		assert_true(n >= 0);
		assert_int_equal(opened, cases[i].want == SEV_INFO ? 0 : 1);
		free(ch);
		incidents_free(&in);
		us_free(&u);
	}
}

/* A CPU whose p99 passes and points to no known mechanism (a fair holder, no rate risen: a
 * busy host's queue) is an info finding, which opens no incident, until its p99 has passed
 * [latency] page_after (60 s) of intervals in a row; one that points to a mechanism (an RT
 * holder) pages at once; once paged it stays a warning, its incident open, until it resolves
 * by runq_resolve_scans (3), whatever it points to meanwhile. runq_scans 2. Steps:
 * P a fair holder, p99 past the threshold, over 5 s; Q the same over 4.9 s, S 5.1 s, T 1 s (a
 * scan a pressure trigger moved); R an RT holder over 5 s; B below over 5 s. Want per step:
 * - no finding, i info, w warning (and its incident open). */
static void test_page_after(void **state)
{
	(void)state;
	assert_true(conf.latency_page_after_s == 60);      /* the default */
	static const struct {
		const char *name, *steps, *want;
		double page_after;
	} cases[] = {
		{ "fair, 59.9 s in a row: info", "PPPPPPPPPPPQ", "-iiiiiiiiiii", 60 },
		{ "fair, 60 s: pages", "PPPPPPPPPPPP", "-iiiiiiiiiiw", 60 },
		{ "fair, 60.1 s: pages", "PPPPPPPPPPPS", "-iiiiiiiiiiw", 60 },
		{ "the intervals count, not the scans", "PPPPPPPPPPPTT", "-iiiiiiiiiiiw", 56.9 },
		{ "an RT holder pages at once", "RR", "-w", 60 },
		{ "paged, it stays a warning until it resolves", "PPPPPPPPPPPPPBBBPP",
		  "-iiiiiiiiiiwwww--i", 60 },
		{ "an RT holder, then none: stays a warning", "PRPBBB", "-wwww-", 60 },
		{ "a scan below starts the count again", "PPPPPPPBPPPPPPPPPPPP",
		  "-iiiiiiiiiiiiiiiiiiw", 60 },
		{ "page_after 0: at once", "PP", "-w", 0 },
	};
	for (size_t c = 0; c < ARRAY_SIZE(cases); c++) {
		struct cgw_latency st = { 0 };
		struct cgw_incidents in = { 0 };
		double now = 1.7e9;
		conf.latency_page_after_s = cases[c].page_after;
		for (size_t k = 0; cases[c].steps[k]; k++) {
			char x = cases[c].steps[k], want = cases[c].want[k];
			struct unit_scan u;
			runq_spinner(x == 'B' ? 10 : 62, 300);
			if (x != 'R')
				cpus[1].held = rqt(600, "stress", 0, 0, 2500);
			runq.interval_s = x == 'Q' ? 4.9 : x == 'S' ? 5.1 : x == 'T' ? 1 : 5;
			now += runq.interval_s;
			us_latency(&u);
			u.rep.latency = &st;
			assert_int_equal(latency_diagnose(&u.rep, &sigs, &fake), 0);
			const struct cgw_finding *f = finding(&u.rep, "runq-latency", "cpu 1");
			char got = !f ? '-' : f->severity == SEV_INFO ? 'i' :
			           f->severity == SEV_WARNING ? 'w' : '?';
			struct inc_change *ch = NULL;
			assert_true(incidents_update(&in, &u.rep, now, 300, &ch) >= 0);
			free(ch);
			size_t open = 0;
			for (size_t j = 0; j < in.n; j++)
				open += in.v[j].resolved_at == 0;
			if (got != want || open != (want == 'w'))
				fail_msg("%s: step %zu (%c): %c with %zu incidents open, want %c\n%s",
				         cases[c].name, k, x, got, open, want, f ? f->evidence.s : "");
			if (want == 'i')
				assert_true(has_line(f, "not paged: it points to no known mechanism; it pages "
				                        "once its p99 has passed"));
			else if (want == 'w')
				assert_null(strstr(f->evidence.s, "not paged"));
			if (c == 0 && k == 11) {      /* the metrics say it crossed, for CPU 1 alone */
				size_t len;
				char *m = metrics_text(&u.rep, &in, 12, &len);
				assert_non_null(m);
				assert_non_null(strstr(m, "cgwatch_runq_latency_crossed{cpu=\"0\"} 0\n"
				                          "cgwatch_runq_latency_crossed{cpu=\"1\"} 1\n"));
				free(m);
			}
			if (c == 0 && k == 11)        /* how long so far, of how long */
				assert_true(has_line(f, "not paged: it points to no known mechanism; it pages "
				                        "once its p99 has passed 60 s of intervals in a row "
				                        "([latency] page_after): 59.9 s so far\n"));
			if (c == 1 && k == 11)        /* why one that points nowhere pages */
				assert_true(has_line(f, "paged: it points to no known mechanism, but its p99 "
				                        "passed 60 s of intervals in a row ([latency] "
				                        "page_after); it stays paged until it resolves\n"));
			if (c == 6 && k == 2)         /* paged by the RT holder, fair now */
				assert_true(has_line(f, "paged: it pointed to a mechanism when it paged; it "
				                        "stays paged until it resolves\n"));
			us_free(&u);
		}
		incidents_free(&in);
		latency_state_free(&st);
	}
	conf.latency_page_after_s = 60;
	/* one look (check: no state) is a person asking: it is a warning at once */
	struct unit_scan u;
	runq_spinner(62, 300);
	cpus[1].held = rqt(600, "stress", 0, 0, 2500);
	us_latency(&u);
	assert_int_equal(latency_diagnose(&u.rep, &sigs, &fake), 0);
	const struct cgw_finding *f = finding(&u.rep, "runq-latency", "cpu 1");
	assert_non_null(f);
	assert_int_equal(f->severity, SEV_WARNING);
	us_free(&u);
}

/* Downstream: the finding opens an incident keyed runq-latency + "cpu 1", that state file
 * round-trips, the JSON names the family with its remedies, the text the holder's line; the
 * incident resolves at the first scan without the finding. */
static void test_downstream(void **state)
{
	(void)state;
	struct unit_scan u;
	runq_spinner(62, 300);
	us_latency(&u);
	assert_int_equal(latency_diagnose(&u.rep, &sigs, &fake), 0);
	struct cgw_incidents in = { 0 };
	struct inc_change *ch = NULL;
	assert_int_equal(incidents_update(&in, &u.rep, 1.7e9, 300, &ch), 1);
	free(ch);
	assert_int_equal(in.n, 1);
	assert_string_equal(in.v[0].sig, "runq-latency");
	assert_string_equal(in.v[0].cause, "cpu 1");
	const struct inc_task *lead = incident_lead(&in.v[0]);
	assert_non_null(lead);
	/* the holder first, though its 49.1 ms without a switch is less than the sleeper's
	 * 49.2 ms wait: the task to act on is the one that held the CPU */
	assert_int_equal(lead->tid, 4242);
	assert_true(incident_latency(&in.v[0]));
	char tt[96];
	assert_string_equal(inc_task_time(&in.v[0], lead, tt, sizeof(tt)),
	                    "holds or waits for the CPU 49.1 ms");
	char msg[1024];
	incident_message(&in.v[0], INC_OPENED, msg, sizeof(msg));
	print_message("%s\n", msg);
	assert_non_null(strstr(msg, "runq-latency on cpu 1, naming PID 4242 (spinner) (and 2 more "
	                            "tasks): incident "));
	size_t len;
	char *txt = incidents_serialize(&in, "boot", &len, NULL);
	assert_non_null(txt);
	struct cgw_incidents back = { 0 };
	size_t dropped = 0;
	assert_int_equal(incidents_parse(&back, txt, len, "state", "boot", &dropped, stderr), 0);
	assert_int_equal(back.n, 1);
	assert_string_equal(back.v[0].cause, "cpu 1");
	assert_int_equal(incident_lead(&back.v[0])->tid, 4242);   /* a restart keeps the holder */
	char bm[1024];
	incident_message(&back.v[0], INC_RESOLVED, bm, sizeof(bm));
	assert_non_null(strstr(bm, "runq-latency on cpu 1, which named PID 4242 (spinner) and 2 "
	                           "more tasks; resolved at "));
	free(txt);
	incidents_free(&back);

	json_object *o = report_json_build(&u.rep, -1);
	json_object *fs = json_object_object_get(o, "findings"), *f0 = json_object_array_get_idx(fs, 0);
	assert_string_equal(json_object_get_string(json_object_object_get(f0, "id")), "runq-latency");
	assert_string_equal(json_object_get_string(json_object_object_get(f0, "cause")), "cpu 1");
	assert_string_equal(json_object_get_string(json_object_object_get(f0, "family")), "starved");
	json_object *rem = json_object_object_get(f0, "remedies");
	assert_non_null(strstr(json_object_get_string(json_object_array_get_idx(rem, 0)),
	                       "Find the hog"));
	json_object_put(o);

	char *buf = NULL;
	size_t blen = 0;
	FILE *out = open_memstream(&buf, &blen);
	report_text_finding(&u.rep, 0, out);
	fclose(out);
	print_message("%s", buf);
	assert_non_null(strstr(buf, "WARNING  runq-latency: Runnable tasks wait too long for a CPU\n"
	                            "  Cause: cpu 1\n  Points to: starved ("));
	assert_non_null(strstr(buf, "PID 4242 (spinner): held CPU 1 for 49.1 ms, "
	                            "SCHED_FIFO/50, cgroup /user.slice\n"));
	assert_non_null(strstr(buf, "PID 4243 (sleeper): waited 49.20 ms for CPU 1"));
	assert_non_null(strstr(buf, "Find the hog"));
	free(buf);
	us_free(&u);

	/* CPU 1 quiet again: the incident resolves at the third full interval below (with no
	 * latency state, as here, at the first) */
	runq_spinner(3, 300);
	us_latency(&u);
	assert_int_equal(latency_diagnose(&u.rep, &sigs, &fake), 0);
	assert_int_equal(incidents_update(&in, &u.rep, 1.7e9 + 5, 300, &ch), 1);
	assert_int_equal(ch[0].state, INC_RESOLVED);
	free(ch);
	us_free(&u);
	incidents_free(&in);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cpu_finding),
		cmocka_unit_test(test_quiet),
		cmocka_unit_test(test_passes),
		cmocka_unit_test(test_passes_evidence),
		cmocka_unit_test(test_streak),
		cmocka_unit_test(test_resolve),
		cmocka_unit_test(test_family),
		cmocka_unit_test(test_rstat_readers),
		cmocka_unit_test(test_pressure),
		cmocka_unit_test(test_pressure_page_after),
		cmocka_unit_test(test_page_after),
		cmocka_unit_test(test_downstream),
		cmocka_unit_test(test_timerlat),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
