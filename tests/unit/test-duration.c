/* test-duration.c: durations as facts or bounds (detect-duration.c, detect-history.c), on /proc text read
 * from this kernel (6.18) while `stat` children were blocked on an uninitialised FUSE mount
 * under two CPU hogs and moved with taskset. Later lines of the sched files are elided. */
#include "unit.h"

#include <math.h>

/* One task: blocked in D (fuse_get_req), read just after it blocked... */
static const char d_before[] =
	"stat (25548, #threads: 1)\n"
	"-------------------------------------------------------------------\n"
	"se.exec_start                                :        670423.536600\n"
	"se.vruntime                                  :         53697.162533\n"
	"se.sum_exec_runtime                          :             1.332560\n"
	"se.nr_migrations                             :                    0\n"
	"nr_switches                                  :                    1\n"
	"nr_voluntary_switches                        :                    1\n"
	"nr_involuntary_switches                      :                    0\n";
/* ...and after `taskset -p -c 1 25548`: still queued (delayed dequeue), moved, exec_start 0 */
static const char d_moved[] =
	"stat (25548, #threads: 1)\n"
	"-------------------------------------------------------------------\n"
	"se.exec_start                                :             0.000000\n"
	"se.vruntime                                  :         75530.961006\n"
	"se.sum_exec_runtime                          :             1.332560\n"
	"se.nr_migrations                             :                    1\n"
	"nr_switches                                  :                    1\n"
	"nr_voluntary_switches                        :                    1\n"
	"nr_involuntary_switches                      :                    0\n";
static const char d_stat[] =
	"25548 (stat) D 25220 25215 1210 0 -1 4194304 143 0 0 0 0 0 0 0 20 0 1 0 67090 3866624 491 "
	"18446744073709551615 94236657774592 94236657836953 140725647279312 0 0 0 0 0 0 1 0 0 17 0 0 "
	"0 0 0 0 94236657863696 94236657865568 94236800708608 140725647280781 140725647280799 "
	"140725647280799 140725647282154 0\n";
/* the same task after the FUSE server answered: it ran and sleeps in S */
static const char d_left[] =
	"25548 (stat) S 25220 25215 1210 0 -1 4194304 143 0 0 0 0 0 0 0 20 0 1 0 67090 3866624 491 "
	"18446744073709551615 94236657774592 94236657836953 140725647279312 0 0 0 0 0 0 1 0 0 17 0 0 "
	"0 0 0 0 94236657863696 94236657865568 94236800708608 140725647280781 140725647280799 "
	"140725647280799 140725647282154 0\n";
/* another task first seen with 0: blocked, moved before it was ever read */
static const char d_zero[] =
	"stat (22402, #threads: 1)\n"
	"-------------------------------------------------------------------\n"
	"se.exec_start                                :             0.000000\n"
	"se.vruntime                                  :         53386.399746\n"
	"se.sum_exec_runtime                          :             1.060997\n"
	"se.nr_migrations                             :                    1\n"
	"nr_switches                                  :                    1\n"
	"nr_voluntary_switches                        :                    1\n"
	"nr_involuntary_switches                      :                    0\n";
/* a `yes` runnable behind another hog on CPU 0, moved to CPU 1 before it ran there */
static const char r_moved[] =
	"yes (24507, #threads: 1)\n"
	"-------------------------------------------------------------------\n"
	"se.exec_start                                :             0.000000\n"
	"se.vruntime                                  :         74932.834006\n"
	"se.sum_exec_runtime                          :           256.481615\n"
	"se.nr_migrations                             :                   12\n"
	"nr_switches                                  :                   80\n"
	"nr_voluntary_switches                        :                    0\n"
	"nr_involuntary_switches                      :                   80\n";
static const char r_stat[] =
	"24507 (yes) R 24009 24004 1210 0 -1 4194304 128 0 0 0 7 18 0 0 20 0 1 0 66255 2990080 417 "
	"18446744073709551615 94257607897088 94257607914057 140722535529152 0 0 0 0 6 0 0 0 0 17 1 0 "
	"0 0 0 0 94257607929104 94257607930336 94257729081344 140722535537308 140722535537312 "
	"140722535537312 140722535538667 0\n";

/* "now" read on the task's CPU: exact */
static struct cgw_now at(double ms)
{
	return (struct cgw_now){ ms, BOUND_EXACT };
}

static struct cgw_sched sched_of(const char *text)
{
	struct cgw_sched sc;
	assert_int_equal(parse_sched_buf(text, &sc), 0);
	return sc;
}

static struct cgw_stat stat_of(const char *text)
{
	struct cgw_stat st;
	assert_int_equal(parse_stat_buf(text, strlen(text), &st), 0);
	return st;
}

/* A sighting of `sched` in `state` at read_mono, after prev (or none). */
static struct cgw_seen see(const struct cgw_seen *prev, char state, const char *sched, int cpu,
                           double read_mono)
{
	struct cgw_sched sc = sched_of(sched);
	struct cgw_seen w = { .tid = 25548, .start_ticks = 67090 };
	seen_update(&w, prev, state, &sc, cpu, read_mono);
	return w;
}

/* The kernel's own value: exact, now - exec_start. */
static void test_exact(void **state)
{
	(void)state;
	struct cgw_seen w = see(NULL, 'D', d_before, 0, 1000);
	struct cgw_dur d = seen_duration(&w, at(670423.5366 + 3500), 1000, 30);
	assert_int_equal(d.bound, BOUND_EXACT);
	assert_near(d.s, 3.5, 1e-6);
	char buf[48];
	assert_string_equal(dur_text(d, buf, sizeof(buf)), "3.5 s");
}

/* exec_start 0 in D, one snapshot (check): not a time. now - 0 would be ~670 s here. */
static void test_zero_in_d_unknown(void **state)
{
	(void)state;
	struct cgw_seen w = see(NULL, 'D', d_moved, 1, 1000);
	assert_near(w.exec_start_ms, 0, 0);
	struct cgw_dur d = seen_duration(&w, at(674000), 1000, 4.0);
	assert_int_equal(d.bound, BOUND_UNKNOWN);
	assert_near(d.s, 0, 0);
	char buf[48];
	assert_string_equal(dur_text(d, buf, sizeof(buf)), "an unknown time");
}

/* exec_start read at one scan, reset by a move before the next, switches unchanged: the
 * remembered value still holds, on the clock of the CPU it was read on. */
static void test_zero_after_remembered_exact(void **state)
{
	(void)state;
	struct cgw_seen w1 = see(NULL, 'D', d_before, 0, 1000);
	struct cgw_seen w2 = see(&w1, 'D', d_moved, 1, 6000);
	assert_near(w2.exec_start_ms, 670423.5366, 1e-6);
	assert_int_equal(w2.clock_cpu, 0);
	struct cgw_dur d = seen_duration(&w2, at(670423.5366 + 5200), 6000, 60);
	assert_int_equal(d.bound, BOUND_EXACT);
	assert_near(d.s, 5.2, 1e-6);
}

/* First seen with 0 (no earlier exec_start): the scans that saw it in D without it running
 * give a lower bound that grows scan by scan. */
static void test_zero_first_seen_lower_bound(void **state)
{
	(void)state;
	struct cgw_seen w1 = see(NULL, 'D', d_zero, 1, 1000);
	assert_int_equal(seen_duration(&w1, at(0), 1000, 100).bound, BOUND_UNKNOWN);
	struct cgw_seen w2 = see(&w1, 'D', d_zero, 1, 6000);
	struct cgw_dur d = seen_duration(&w2, at(0), 6000, 100);
	assert_int_equal(d.bound, BOUND_LOWER);
	assert_near(d.s, 5.0, 1e-9);
	char buf[48];
	assert_string_equal(dur_text(d, buf, sizeof(buf)), "at least 5.0 s");
	struct cgw_seen w3 = see(&w2, 'D', d_zero, 0, 11000);
	assert_near(seen_duration(&w3, at(0), 11000, 100).s, 10.0, 1e-9);
	/* the bound never exceeds the task's age */
	assert_near(seen_duration(&w3, at(0), 11000, 7.5).s, 7.5, 1e-9);
}

/* It ran in between (switch count moved): nothing earlier holds. */
static void test_ran_in_between_resets(void **state)
{
	(void)state;
	struct cgw_seen w1 = see(NULL, 'D', d_before, 0, 1000);
	w1.nr_switches = 0;                  /* the earlier read: one switch fewer */
	struct cgw_seen w2 = see(&w1, 'D', d_moved, 1, 6000);
	assert_near(w2.exec_start_ms, 0, 0);
	assert_near(w2.since_mono_ms, 6000, 0);
	assert_int_equal(seen_duration(&w2, at(0), 6000, 100).bound, BOUND_UNKNOWN);
	/* the same with CPU time moved (running now, not yet switched out) */
	w1 = see(NULL, 'D', d_before, 0, 1000);
	w1.sum_exec_ms -= 0.5;
	w2 = see(&w1, 'D', d_moved, 1, 6000);
	assert_int_equal(seen_duration(&w2, at(0), 6000, 100).bound, BOUND_UNKNOWN);
}

/* R with 0: moved before it ran. Not starved from one look; two looks without it running
 * prove it has waited at least the time between them. */
static void test_zero_in_r(void **state)
{
	(void)state;
	struct cgw_stat st = stat_of(r_stat);
	assert_int_equal(st.state, 'R');
	struct cgw_sched sc = sched_of(r_moved);
	struct cgw_seen w1 = { .tid = st.tid, .start_ticks = st.start_ticks };
	seen_update(&w1, NULL, 'R', &sc, st.cpu, 1000);
	assert_int_equal(seen_duration(&w1, at(1e6), 1000, 600).bound, BOUND_UNKNOWN);
	struct cgw_seen w2 = w1;
	seen_update(&w2, &w1, 'R', &sc, st.cpu, 13000);
	struct cgw_dur d = seen_duration(&w2, at(1e6), 13000, 600);
	assert_int_equal(d.bound, BOUND_LOWER);
	assert_near(d.s, 12.0, 1e-9);
	/* D before, R now with the same switches: woken, not yet run; the R wait is not since
	 * the earlier read */
	struct cgw_seen w3 = w1;
	w3.state = 'D';
	seen_update(&w2, &w3, 'R', &sc, st.cpu, 13000);
	assert_int_equal(seen_duration(&w2, at(1e6), 13000, 600).bound, BOUND_UNKNOWN);
}

/* A value beyond the task's age is not the task's own: a 3.5 s old task is not blocked
 * 1767.8 s. A task older than its duration keeps the duration. */
static void test_age_bounds(void **state)
{
	(void)state;
	struct cgw_stat st = stat_of(d_stat);
	double age = task_age(st.start_ticks, 674.40, 100);     /* /proc/uptime 674.40 */
	assert_near(age, 674.40 - 670.90, 1e-9);
	struct cgw_seen w = see(NULL, 'D', d_before, 0, 1000);
	w.exec_start_ms = 1.0;              /* as if from a clock 670 s off */
	assert_int_equal(seen_duration(&w, at(670423.5366), 1000, age).bound, BOUND_UNKNOWN);
	w = see(NULL, 'D', d_before, 0, 1000);
	struct cgw_dur d = seen_duration(&w, at(670423.5366 + 3000), 1000, age);
	assert_int_equal(d.bound, BOUND_EXACT);
	assert_near(d.s, 3.0, 1e-6);
	/* within the clocks' slack of the age: cut to the age, still exact */
	d = seen_duration(&w, at(670423.5366 + 3550), 1000, age);
	assert_int_equal(d.bound, BOUND_EXACT);
	assert_near(d.s, age, 1e-9);
	assert_near(task_age(1000, 0, 100), -1, 0);          /* no uptime: unknown */
	assert_near(task_age(99999, 5.0, 100), 0, 0);        /* clock steps: never < 0 */
}

/* The daemon's memory is keyed by (tid, start time): a reused tid is another task. */
static void test_history_reused_tid(void **state)
{
	(void)state;
	struct cgw_history *h = history_new();
	struct cgw_seen w = see(NULL, 'D', d_before, 0, 1000);
	history_begin(h);
	history_add(h, &w);
	struct cgw_seen other = w;
	other.tid = 7;
	history_add(h, &other);
	assert_null(history_find(h, 25548, 67090));     /* not before the commit */
	history_commit(h);
	assert_non_null(history_find(h, 25548, 67090));
	assert_null(history_find(h, 25548, 67091));     /* same tid, another task */
	const struct cgw_seen *prev = history_find(h, 25548, 99999);
	struct cgw_seen w2 = see(prev, 'D', d_moved, 1, 6000);
	assert_int_equal(seen_duration(&w2, at(0), 6000, 100).bound, BOUND_UNKNOWN);
	/* a scan that sees neither: both forgotten */
	history_begin(h);
	history_commit(h);
	assert_null(history_find(h, 25548, 67090));
	assert_null(history_find(h, 7, 67090));
	history_free(h);
}

/* A CPU the reader cannot run on: only a floor of its clock (a runnable task there last ran
 * then), so only a lower bound; nothing at all, and only history helps. */
static void test_clock_floor_and_none(void **state)
{
	(void)state;
	struct cgw_seen w = see(NULL, 'D', d_before, 1, 1000);
	struct cgw_dur d = seen_duration(&w, (struct cgw_now){ 670423.5366 + 2500, BOUND_LOWER },
	                                 1000, 30);
	assert_int_equal(d.bound, BOUND_LOWER);
	assert_near(d.s, 2.5, 1e-6);
	char buf[48];
	assert_string_equal(dur_text(d, buf, sizeof(buf)), "at least 2.5 s");
	d = seen_duration(&w, (struct cgw_now){ 0, BOUND_UNKNOWN }, 1000, 30);
	assert_int_equal(d.bound, BOUND_UNKNOWN);
	/* the next scan: the floor is older than what the earlier scan proves; the larger wins */
	struct cgw_seen w2 = see(&w, 'D', d_before, 1, 9000);
	d = seen_duration(&w2, (struct cgw_now){ 670423.5366 + 2500, BOUND_LOWER }, 9000, 30);
	assert_int_equal(d.bound, BOUND_LOWER);
	assert_near(d.s, 8.0, 1e-9);
	d = seen_duration(&w2, (struct cgw_now){ 0, BOUND_UNKNOWN }, 9000, 30);
	assert_int_equal(d.bound, BOUND_LOWER);
	assert_near(d.s, 8.0, 1e-9);
	/* a floor beyond the age is no floor of this task's clock */
	d = seen_duration(&w, (struct cgw_now){ 670423.5366 + 99000, BOUND_LOWER }, 1000, 30);
	assert_int_equal(d.bound, BOUND_UNKNOWN);
}

/* A finding is as severe as what its tasks prove: a lower bound past blocked_critical is
 * critical; 199 tasks at 10 s and one whose time is unknown are a warning, whatever number
 * the unknown one carries: a 200-task finding is never critical because of one nobody
 * proved. */
static void test_severity_from_proven(void **state)
{
	(void)state;
	struct cgw_conf conf;
	conf_defaults(&conf);                /* warning 20 s, critical 60 s */
	struct cgw_sig unknown = unit_sig("unknown", "Unknown wait", "No signature.", SEV_WARNING);
	struct cgw_sigset set = { &unknown, 1 };
	for (int round = 0; round < 3; round++) {
		struct unit_scan u;
		us_init(&u);
		u.rep.conf = &conf;
		u.rep.threshold_s = 0;           /* --threshold 0: the unknown one is listed too */
		for (int i = 0; i < 199; i++)
			us_task(&u, 100 + i, 100 + i, "cgw-storm", 9, 10.0);
		/* round 0: a number with nothing behind it (now - 0 would be the uptime) */
		size_t k = us_task(&u, 99, 99, "cgw-storm", 9, 1767.8);
		struct cgw_task *t = &u.scan.t[k];
		t->bound = BOUND_UNKNOWN;
		if (round == 1) {                /* at least 65 s: proven critical */
			t->blocked_s = 65;
			t->bound = BOUND_LOWER;
		} else if (round == 2) {         /* exactly 59.9 s: not yet */
			t->blocked_s = 59.9;
			t->bound = BOUND_EXACT;
		}
		assert_int_equal(classify(&u.rep, &set), 0);
		assert_int_equal(u.rep.nf, 1);
		assert_int_equal(u.rep.f[0].ntasks, 200);
		assert_int_equal(u.rep.f[0].severity, round == 1 ? SEV_CRITICAL : SEV_WARNING);
		us_free(&u);
	}
	conf_free(&conf);
}

/* The evidence says where a time comes from: a floor of a CPU cgwatch cannot run on is not a
 * reset exec_start nor a clock beyond the age. */
static void test_evidence_time_source(void **state)
{
	(void)state;
	struct cgw_conf conf;
	conf_defaults(&conf);
	struct cgw_sig unknown = unit_sig("unknown", "Unknown wait", "No signature.", SEV_WARNING);
	struct cgw_sigset set = { &unknown, 1 };
	static const struct { double exec_start, seen_exec; enum cgw_bound now, bound; const char *want; }
	cases[] = {
		{ 5000, 5000, BOUND_EXACT, BOUND_EXACT,
		  "(se.exec_start 5000.000 ms, now 35000.000 ms on CPU 3's clock)" },
		{ 0, 5000, BOUND_EXACT, BOUND_EXACT, "se.exec_start reads 0, reset when the kernel moved "
		  "the task; it read 5000.000 ms at an earlier scan and the task has not run since, now" },
		{ 5000, 5000, BOUND_LOWER, BOUND_LOWER, "(se.exec_start 5000.000 ms, now at least "
		  "35000.000 ms on CPU 3's clock (cgwatch cannot run there; a runnable task there ran "
		  "then))" },
		{ 5000, 5000, BOUND_UNKNOWN, BOUND_LOWER, "on the clock of CPU 3, which cgwatch cannot "
		  "read; an earlier scan saw it in D and it has not run since)" },
		{ 0, 0, BOUND_EXACT, BOUND_LOWER, "reset when the kernel moved the task; an earlier scan" },
		{ 5000, 5000, BOUND_EXACT, BOUND_LOWER, "on CPU 3's clock: beyond the task's age, not its "
		  "clock; an earlier scan saw it in D" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct unit_scan u;
		us_init(&u);
		u.rep.conf = &conf;
		size_t k = us_task(&u, 7, 7, "x", 1, 30.0);
		struct cgw_task *t = &u.scan.t[k];
		t->exec_start_ms = cases[i].exec_start;
		t->seen.exec_start_ms = cases[i].seen_exec;
		t->seen.clock_cpu = 3;
		t->now = (struct cgw_now){ 35000, cases[i].now };
		t->bound = cases[i].bound;
		t->age_s = 100;
		assert_int_equal(classify(&u.rep, &set), 0);
		const char *ev = u.rep.f[0].evidence.s;
		print_message("# %s\n", ev);
		assert_non_null(strstr(ev, cases[i].want));
		if (cases[i].now == BOUND_LOWER)
			assert_null(strstr(ev, "reset"));
		us_free(&u);
	}
	conf_free(&conf);
}

/* Read again after the risky reads: still waiting, or not (left D, ran, tid reused). */
static void test_still(void **state)
{
	(void)state;
	struct cgw_seen w = see(NULL, 'D', d_before, 0, 1000);
	struct cgw_stat st = stat_of(d_stat);
	struct cgw_sched sc = sched_of(d_moved);
	assert_true(seen_still(&w, &st, &sc));             /* moved, not run: still */
	struct cgw_stat left = stat_of(d_left);
	assert_false(seen_still(&w, &left, &sc));          /* left D */
	struct cgw_stat reused = st;
	reused.start_ticks++;
	assert_false(seen_still(&w, &reused, &sc));        /* another task with the tid */
	struct cgw_sched ran = sc;
	ran.nr_switches++;
	assert_false(seen_still(&w, &st, &ran));           /* ran and blocked again */
	ran = sc;
	ran.exec_start_ms = 680000;
	assert_false(seen_still(&w, &st, &ran));           /* running now */
}

/* Durations come only from finite numbers: a clock or an exec_start that is nan or infinite
 * (which no parser lets through any more) proves nothing, and no duration is ever infinite
 * (before, a "now" of inf with the age unknown gave an exact "inf s"). */
static void test_nonfinite_proves_nothing(void **state)
{
	(void)state;
	static const double bad[] = { NAN, INFINITY, -INFINITY };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		for (int which = 0; which < 2; which++) {
			struct cgw_seen w = { .tid = 1, .state = 'D', .exec_start_ms = 1000,
			                      .since_mono_ms = 5000 };
			struct cgw_now now = { 61000, BOUND_EXACT };
			if (which)
				now.ms = bad[i];
			else
				w.exec_start_ms = bad[i];
			print_message("# %s = %f\n", which ? "now" : "exec_start", bad[i]);
			struct cgw_dur d = seen_duration(&w, now, 5000, -1);
			assert_true(isfinite(d.s));
			assert_int_equal(d.bound, BOUND_UNKNOWN);
			char buf[64];
			assert_null(strstr(dur_text(d, buf, sizeof(buf)), "inf"));
		}
	assert_true(task_age(1, NAN, 100) < 0);
	assert_true(task_age(1, INFINITY, 100) < 0);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_exact),
		cmocka_unit_test(test_zero_in_d_unknown),
		cmocka_unit_test(test_zero_after_remembered_exact),
		cmocka_unit_test(test_zero_first_seen_lower_bound),
		cmocka_unit_test(test_ran_in_between_resets),
		cmocka_unit_test(test_zero_in_r),
		cmocka_unit_test(test_age_bounds),
		cmocka_unit_test(test_history_reused_tid),
		cmocka_unit_test(test_clock_floor_and_none),
		cmocka_unit_test(test_severity_from_proven),
		cmocka_unit_test(test_evidence_time_source),
		cmocka_unit_test(test_still),
		cmocka_unit_test(test_nonfinite_proves_nothing),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
