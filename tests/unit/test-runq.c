/* test-runq.c: run-queue waits (parse-runq.c): log2 buckets, their quantiles, the longest
 * waits kept, group totals, and /proc/TID/schedstat. */
#include "unit.h"
#include <json-c/json.h>

static void test_bucket(void **state)
{
	(void)state;
	assert_int_equal(runq_bucket(0), 0);
	assert_int_equal(runq_bucket(1), 0);
	assert_int_equal(runq_bucket(2), 1);
	assert_int_equal(runq_bucket(3), 1);
	assert_int_equal(runq_bucket(4), 2);
	assert_int_equal(runq_bucket(1023), 9);
	assert_int_equal(runq_bucket(1024), 10);
	assert_int_equal(runq_bucket(49000), 15);         /* 49 ms: [32.8, 65.5) ms */
	assert_int_equal(runq_bucket(UINT64_MAX), RUNQ_BUCKETS - 1);
}

/* one bucket: the quantile moves linearly across its span */
static void test_quantile_one_bucket(void **state)
{
	(void)state;
	unsigned long long b[RUNQ_BUCKETS] = { 0 };
	assert_true(runq_quantile(b, 0.5, 0) == 0);       /* empty */
	b[10] = 100;                                      /* [1024, 2048) us */
	assert_float_equal(runq_quantile(b, 0.5, 0), 1.536, 1e-9);
	assert_float_equal(runq_quantile(b, 1.0, 0), 2.048, 1e-9);
	assert_float_equal(runq_quantile(b, 0.99, 0), 1.024 + 0.99 * 1.024, 1e-9);
	/* capped by the measured maximum */
	assert_float_equal(runq_quantile(b, 0.99, 1.2), 1.2, 1e-9);
	memset(b, 0, sizeof(b));
	b[0] = 4;                                         /* [0, 2) us */
	assert_float_equal(runq_quantile(b, 0.5, 0), 0.001, 1e-12);
}

/* 99 short waits and one long one: p50 among the short, p99 at the edge, and a
 * thousand with ten long: p99 in the long bucket */
static void test_quantile_tail(void **state)
{
	(void)state;
	unsigned long long b[RUNQ_BUCKETS] = { 0 };
	b[3] = 990;                                       /* [8, 16) us */
	b[15] = 10;                                       /* [32.8, 65.5) ms */
	double p50 = runq_quantile(b, 0.5, 49.0), p99 = runq_quantile(b, 0.99, 49.0);
	assert_true(p50 >= 0.008 && p50 < 0.016);
	assert_float_equal(p99, 0.016, 1e-9);             /* the 990th: the short bucket's top */
	double p999 = runq_quantile(b, 0.999, 49.0);
	assert_true(p999 >= 32.768 && p999 <= 49.0);
	b[15] = 20;
	p99 = runq_quantile(b, 0.99, 49.0);
	assert_true(p99 >= 32.768 && p99 <= 49.0);
}

static void test_summarize(void **state)
{
	(void)state;
	struct cgw_runq_cpu c = { 0 };
	c.buckets[2] = 3;
	c.buckets[12] = 1;
	c.max_ms = 5.0;
	runq_summarize(&c);
	assert_int_equal(c.count, 4);
	assert_true(c.p50_ms >= 0.004 && c.p50_ms < 0.008);
	assert_true(c.p99_ms >= 4.096 && c.p99_ms <= 5.0);
	struct cgw_runq_total t = { 0 };
	c.sum_ms = 5.02;
	runq_total_add(&t, &c);
	runq_total_add(&t, &c);
	assert_int_equal(t.count, 8);
	assert_int_equal(t.buckets[12], 2);
	assert_float_equal(t.sum_ms, 10.04, 1e-9);
}

/* The waits of tasks that asked for less CPU (low_buckets) apart: low_count counts them, and
 * full_p99_ms is the others' p99, capped by their longest; without any, the p99 itself. */
static void test_summarize_low(void **state)
{
	(void)state;
	struct cgw_runq_cpu c = { 0 };
	c.buckets[3] = 990;                       /* 8-16 us */
	c.buckets[15] = 20;                       /* 32-65 ms: a niced task's waits */
	c.low_buckets[15] = 20;
	c.low_buckets[3] = 5;
	c.max_ms = 55;
	c.full_max_ms = 0.015;
	runq_summarize(&c);
	assert_int_equal(c.count, 1010);
	assert_int_equal(c.low_count, 25);
	assert_true(c.p99_ms >= 32.768 && c.p99_ms <= 55);
	assert_true(c.full_p99_ms >= 0.008 && c.full_p99_ms <= 0.015);
	c.low_buckets[15] = 30;                   /* more than the bucket: capped by it */
	runq_summarize(&c);
	assert_int_equal(c.low_count, 25);
	memset(c.low_buckets, 0, sizeof(c.low_buckets));
	runq_summarize(&c);
	assert_int_equal(c.low_count, 0);
	assert_float_equal(c.full_p99_ms, c.p99_ms, 1e-12);
	assert_float_equal(c.full_max_ms, 55, 1e-12);
}

static void test_waited(void **state)
{
	(void)state;
	struct cgw_runq_cpu c = { 0 };
	double ms[] = { 3, 9, 1, 7, 5, 8 };
	for (size_t i = 0; i < ARRAY_SIZE(ms); i++) {
		struct cgw_runq_task t = { .tid = (int)i + 100, .ms = ms[i] };
		runq_waited_add(&c, &t);
	}
	assert_int_equal(c.nwaited, 4);
	assert_float_equal(c.waited[0].ms, 9, 0);
	assert_int_equal(c.waited[0].tid, 101);
	assert_float_equal(c.waited[1].ms, 8, 0);
	assert_float_equal(c.waited[2].ms, 7, 0);
	assert_float_equal(c.waited[3].ms, 5, 0);
}

static void test_schedstat(void **state)
{
	(void)state;
	struct cgw_schedstat s;
	assert_int_equal(parse_schedstat("1848513 54321 12\n", &s), 0);
	assert_true(s.run_ns == 1848513 && s.wait_ns == 54321 && s.slices == 12);
	assert_int_equal(parse_schedstat("0 0 0", &s), 0);
	assert_int_equal(parse_schedstat("", &s), -EINVAL);
	assert_int_equal(parse_schedstat("1 2\n", &s), -EINVAL);
	assert_int_equal(parse_schedstat("1 2 3 4\n", &s), -EINVAL);
	assert_int_equal(parse_schedstat("1 -2 3\n", &s), -EINVAL);
	assert_int_equal(parse_schedstat("1 0x2 3\n", &s), -EINVAL);
	assert_int_equal(parse_schedstat("1 2 3x\n", &s), -EINVAL);
	assert_int_equal(parse_schedstat("1 99999999999999999999 3\n", &s), -ERANGE);
}

/* the metrics: per group, cumulative buckets ending in +Inf equal to _count, one p99 gauge
 * per CPU; a group with no CPU left out */
static void test_metrics(void **state)
{
	(void)state;
	struct cgw_runq_cpu cpus[2] = { { .cpu = 0 }, { .cpu = 1 } };
	cpus[0].p99_ms = 0.5;
	cpus[1].p99_ms = 46.7;
	struct cgw_runq r = { .source = "sched_switch", .exact = true, .cpu = cpus, .ncpu = 2 };
	r.total[RUNQ_HOUSEKEEPING].buckets[0] = 5;
	r.total[RUNQ_HOUSEKEEPING].buckets[3] = 7;
	r.total[RUNQ_HOUSEKEEPING].buckets[15] = 2;
	r.total[RUNQ_HOUSEKEEPING].count = 14;
	r.total[RUNQ_HOUSEKEEPING].sum_ms = 98.5;
	struct strbuf b = { 0 };
	metrics_runq(&b, &r);
	assert_non_null(b.s);
	assert_non_null(strstr(b.s, "# TYPE cgwatch_runq_latency_seconds histogram\n"));
	assert_non_null(strstr(b.s, "cgwatch_runq_latency_seconds_bucket{cpus=\"housekeeping\",le=\"2e-06\"} 5\n"));
	assert_non_null(strstr(b.s, "cgwatch_runq_latency_seconds_bucket{cpus=\"housekeeping\",le=\"1.6e-05\"} 12\n"));
	assert_non_null(strstr(b.s, "cgwatch_runq_latency_seconds_bucket{cpus=\"housekeeping\",le=\"0.065536\"} 14\n"));
	assert_non_null(strstr(b.s, "cgwatch_runq_latency_seconds_bucket{cpus=\"housekeeping\",le=\"+Inf\"} 14\n"));
	assert_non_null(strstr(b.s, "cgwatch_runq_latency_seconds_sum{cpus=\"housekeeping\"} 0.098500\n"));
	assert_non_null(strstr(b.s, "cgwatch_runq_latency_seconds_count{cpus=\"housekeeping\"} 14\n"));
	assert_null(strstr(b.s, "cpus=\"isolated\""));
	assert_non_null(strstr(b.s, "cgwatch_runq_latency_p99_seconds{cpu=\"1\"} 0.046700\n"));
	/* cumulative: each bucket at least the one before */
	unsigned long long last = 0;
	for (const char *p = b.s; (p = strstr(p, "_bucket{")); p++) {
		unsigned long long v = strtoull(strchr(strchr(p, '}'), ' ') + 1, NULL, 10);
		assert_true(v >= last);
		last = v;
	}
	sb_free(&b);
	struct json_object *j = runq_json(NULL, "a single snapshot has no interval");
	assert_string_equal(json_object_to_json_string_ext(j, JSON_C_TO_STRING_PLAIN),
	                    "{\"source\":null,\"why\":\"a single snapshot has no interval\"}");
	json_object_put(j);
	j = runq_json(&r, NULL);
	struct json_object *c, *v;
	assert_true(json_object_object_get_ex(j, "cpus", &c) && json_object_array_length(c) == 2);
	assert_true(json_object_object_get_ex(json_object_array_get_idx(c, 1), "p99_ms", &v));
	assert_float_equal(json_object_get_double(v), 46.7, 1e-9);
	json_object_put(j);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_bucket),
		cmocka_unit_test(test_quantile_one_bucket),
		cmocka_unit_test(test_quantile_tail),
		cmocka_unit_test(test_summarize),
		cmocka_unit_test(test_summarize_low),
		cmocka_unit_test(test_waited),
		cmocka_unit_test(test_schedstat),
		cmocka_unit_test(test_metrics),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
