/* test-kfeat.c: what the kernel allowed (kfeat.c), as the daemon's log lines, check's
 * scan.kernel and a bundle manifest's kernel_features say it; and a manifest carries it. */
#include <json-c/json.h>

#include "unit.h"

static void test_sources(void **state)
{
	(void)state;
	struct cgw_kernel k = { 0 };
	assert_string_equal(kf_scan_source(&k), "proc");
	assert_string_equal(kf_runq_source(&k), "none");
	kf_set(&k, KF_TASK_ITERATOR, KFS_USED, "the iter/task program");
	assert_string_equal(kf_scan_source(&k), "task-iterator");
	kf_set(&k, KF_TASK_WALKER, KFS_REFUSED, "the kernel refused the %s (%s)", "task walker",
	       "Invalid argument");
	assert_string_equal(kf_scan_source(&k), "task-iterator");
	kf_set(&k, KF_TASK_WALKER, KFS_USED, "the open-coded task iterator");
	kf_set(&k, KF_TASK_ITERATOR, KFS_AVAILABLE, "read in the walker's place");
	assert_string_equal(kf_scan_source(&k), "task-walker");
	snprintf(k.runq_source, sizeof(k.runq_source), "schedstat");
	assert_string_equal(kf_runq_source(&k), "schedstat");
	kf_set_scan(&k, KFS_OFF, "[scan] source = proc");  /* both programs, one reason */
	assert_string_equal(kf_scan_source(&k), "proc");
	assert_int_equal(k.f[KF_TASK_ITERATOR].state, KFS_OFF);
	assert_string_equal(k.f[KF_TASK_WALKER].why, "[scan] source = proc");
	kf_set(NULL, KF_COUNTERS, KFS_USED, "x");          /* no record: nothing, no crash */
	kf_set_scan(NULL, KFS_OFF, "x");
}

static void test_lines(void **state)
{
	(void)state;
	struct cgw_kernel k = { 0 };
	char line[400];
	kf_line(&k, KF_COUNTERS, line, sizeof(line));
	assert_string_equal(line, "tracepoint-counters not-tried");
	kf_set(&k, KF_TASK_WALKER, KFS_REFUSED, "the kernel refused the task walker (Invalid "
	       "argument: sleepable helper in rcu_read_lock region)");
	kf_line(&k, KF_TASK_WALKER, line, sizeof(line));
	assert_string_equal(line, "task-walker refused (the kernel refused the task walker "
	                    "(Invalid argument: sleepable helper in rcu_read_lock region))");
	kf_set(&k, KF_RUNQ_PROGRAM, KFS_OFF, "[latency] runq = no");
	kf_line(&k, KF_RUNQ_PROGRAM, line, sizeof(line));
	assert_string_equal(line, "runq-program off ([latency] runq = no)");
	/* a why longer than the record keeps is cut, never overrun */
	char big[1000];
	memset(big, 'x', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	kf_set(&k, KF_TASK_ITERATOR, KFS_REFUSED, "%s", big);
	assert_int_equal(strlen(k.f[KF_TASK_ITERATOR].why), sizeof(k.f[0].why) - 1);
}

static void test_json(void **state)
{
	(void)state;
	struct cgw_kernel k = { 0 };
	kf_set(&k, KF_TASK_WALKER, KFS_REFUSED, "verifier: \"quoted\"\nline");
	kf_set(&k, KF_TASK_ITERATOR, KFS_USED, "the iter/task program");
	kf_set(&k, KF_RUNQ_PROGRAM, KFS_USED, "tp_btf/sched_switch");
	snprintf(k.runq_source, sizeof(k.runq_source), "runq-program");
	json_object *o = kf_json(&k, "6.1.0-28-amd64");
	const char *t = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
	                                                JSON_C_TO_STRING_NOSLASHESCAPE);
	assert_string_equal(t, "{\"release\":\"6.1.0-28-amd64\",\"scan_source\":\"task-iterator\","
	                    "\"runq_source\":\"runq-program\",\"features\":["
	                    "{\"name\":\"task-walker\",\"state\":\"refused\","
	                    "\"why\":\"verifier: \\\"quoted\\\"\\nline\"},"
	                    "{\"name\":\"task-iterator\",\"state\":\"used\",\"why\":\"the iter/task program\"},"
	                    "{\"name\":\"runq-program\",\"state\":\"used\",\"why\":\"tp_btf/sched_switch\"},"
	                    "{\"name\":\"tracepoint-counters\",\"state\":\"not-tried\",\"why\":\"\"}]}");
	/* a manifest carries it as kernel_features; text that is not an object is left out */
	struct bundle_manifest m = { 0 };
	m.kfeat = strdup(t);
	json_object_put(o);
	size_t len;
	char *text = manifest_json(&m, &len);
	json_object *mj = json_tokener_parse(text);
	json_object *kf, *src;
	assert_true(json_object_object_get_ex(mj, "kernel_features", &kf));
	assert_true(json_object_object_get_ex(kf, "scan_source", &src));
	assert_string_equal(json_object_get_string(src), "task-iterator");
	json_object_put(mj);
	free(text);
	free(m.kfeat);
	m.kfeat = strdup("[1, 2]");
	text = manifest_json(&m, &len);
	mj = json_tokener_parse(text);
	assert_false(json_object_object_get_ex(mj, "kernel_features", NULL));
	json_object_put(mj);
	free(text);
	free(m.kfeat);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sources),
		cmocka_unit_test(test_lines),
		cmocka_unit_test(test_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
