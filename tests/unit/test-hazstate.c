/* test-hazstate.c: the daemon's hazards from one audit to the next (incident-hazard.c): which
 * are found, which cleared, nothing repeated while the set stays the same, undecided rules kept
 * as they were, gone rules cleared; the verdicts of an audit (audit_items); the metrics lines. */
#include "unit.h"

static struct haz_item item(const char *id, enum haz_verdict v)
{
	return (struct haz_item){ .id = (char *)id, .title = (char *)"T", .signature = (char *)"",
	                          .evidence = (char *)(v == HV_HOLDS ? "ev line\n" : ""),
	                          .severity = SEV_WARNING, .verdict = v };
}

/* Fold verdicts (id:v pairs) into st; the events as "found a,cleared b" in *out. */
static ssize_t step(struct cgw_hazstate *st, const struct haz_item *v, size_t n, char *out,
                    size_t cap)
{
	struct haz_items it = { (struct haz_item *)v, n, false };
	struct haz_event *ev = NULL;
	ssize_t k = hazstate_update(st, &it, &ev);
	out[0] = '\0';
	for (ssize_t i = 0; i < k; i++)
		snprintf(out + strlen(out), cap - strlen(out), "%s%s %s", i ? "," : "",
		         ev[i].what == HAZ_FOUND ? "found" : "cleared", ev[i].id);
	haz_events_free(ev, k < 0 ? 0 : (size_t)k);
	return k;
}

static void test_first_audit_found_once(void **state)
{
	(void)state;
	struct cgw_hazstate st = { 0 };
	char got[256];
	struct haz_item a[] = { item("a", HV_HOLDS), item("b", HV_CLEAR), item("c", HV_HOLDS) };
	assert_int_equal(step(&st, a, 3, got, sizeof(got)), 2);
	assert_string_equal(got, "found a,found c");
	assert_int_equal(st.audits, 1);
	/* the same set again, many times: nothing */
	for (int i = 0; i < 5; i++) {
		assert_int_equal(step(&st, a, 3, got, sizeof(got)), 0);
		assert_string_equal(got, "");
	}
	hazstate_free(&st);
}

static void test_found_and_cleared(void **state)
{
	(void)state;
	struct cgw_hazstate st = { 0 };
	char got[256];
	struct haz_item a[] = { item("a", HV_HOLDS), item("b", HV_CLEAR) };
	struct haz_item b[] = { item("a", HV_CLEAR), item("b", HV_HOLDS) };
	assert_int_equal(step(&st, a, 2, got, sizeof(got)), 1);
	assert_string_equal(got, "found a");
	assert_int_equal(step(&st, b, 2, got, sizeof(got)), 2);
	assert_string_equal(got, "cleared a,found b");
	assert_int_equal(step(&st, b, 2, got, sizeof(got)), 0);
	assert_int_equal(step(&st, a, 2, got, sizeof(got)), 2);
	assert_string_equal(got, "found a,cleared b");
	hazstate_free(&st);
}

static void test_undecided_keeps(void **state)
{
	(void)state;
	struct cgw_hazstate st = { 0 };
	char got[256];
	struct haz_item a[] = { item("a", HV_HOLDS), item("b", HV_UNDECIDED) };
	struct haz_item u[] = { item("a", HV_UNDECIDED), item("b", HV_UNDECIDED) };
	struct haz_item c[] = { item("a", HV_CLEAR), item("b", HV_CLEAR) };
	assert_int_equal(step(&st, a, 2, got, sizeof(got)), 1);
	assert_string_equal(got, "found a");
	/* a unknown now: still held, not cleared; b never decided: nothing */
	assert_int_equal(step(&st, u, 2, got, sizeof(got)), 0);
	assert_int_equal(step(&st, a, 2, got, sizeof(got)), 0);
	assert_int_equal(step(&st, c, 2, got, sizeof(got)), 1);
	assert_string_equal(got, "cleared a");
	hazstate_free(&st);
}

static void test_gone_rule_cleared(void **state)
{
	(void)state;
	struct cgw_hazstate st = { 0 };
	char got[256];
	struct haz_item a[] = { item("a", HV_HOLDS), item("b", HV_HOLDS), item("c", HV_CLEAR) };
	struct haz_item b[] = { item("b", HV_HOLDS) };
	assert_int_equal(step(&st, a, 3, got, sizeof(got)), 2);
	/* a held and its rule is gone: cleared; c was clear and is gone: nothing */
	assert_int_equal(step(&st, b, 1, got, sizeof(got)), 1);
	assert_string_equal(got, "cleared a");
	assert_int_equal(st.n, 1);
	assert_int_equal(step(&st, b, 1, got, sizeof(got)), 0);
	hazstate_free(&st);
}

/* A partial audit (a rule directory that did not answer): the rules it lacks are kept. */
static void test_partial_keeps_missing(void **state)
{
	(void)state;
	struct cgw_hazstate st = { 0 };
	struct haz_item a[] = { item("a", HV_HOLDS), item("b", HV_HOLDS) };
	struct haz_item b[] = { item("b", HV_HOLDS) };
	struct haz_items all = { a, 2, false }, part = { b, 1, true };
	struct haz_event *ev;
	assert_int_equal(hazstate_update(&st, &all, &ev), 2);
	haz_events_free(ev, 2);
	assert_int_equal(hazstate_update(&st, &part, &ev), 0);
	haz_events_free(ev, 0);
	assert_int_equal(st.n, 2);
	assert_int_equal(hazstate_update(&st, &all, &ev), 0);   /* back: nothing to say */
	haz_events_free(ev, 0);
	part.partial = false;                                   /* a is gone for good */
	assert_int_equal(hazstate_update(&st, &part, &ev), 1);
	assert_int_equal(ev[0].what, HAZ_CLEARED);
	assert_string_equal(ev[0].id, "a");
	haz_events_free(ev, 1);
	hazstate_free(&st);
}

static void test_event_fields(void **state)
{
	(void)state;
	struct cgw_hazstate st = { 0 };
	struct haz_item a = { .id = (char *)"x", .title = (char *)"Title", .signature = (char *)"sig",
	                      .evidence = (char *)"one\ntwo\n", .severity = SEV_CRITICAL,
	                      .verdict = HV_HOLDS };
	struct haz_items it = { &a, 1, false };
	struct haz_event *ev = NULL;
	assert_int_equal(hazstate_update(&st, &it, &ev), 1);
	assert_int_equal(ev[0].what, HAZ_FOUND);
	assert_string_equal(ev[0].title, "Title");
	assert_string_equal(ev[0].signature, "sig");
	assert_string_equal(ev[0].evidence, "one\ntwo\n");
	assert_int_equal(ev[0].severity, SEV_CRITICAL);
	haz_events_free(ev, 1);
	a.verdict = HV_CLEAR;
	a.title = (char *)"Other";
	assert_int_equal(hazstate_update(&st, &it, &ev), 1);
	assert_int_equal(ev[0].what, HAZ_CLEARED);
	assert_string_equal(ev[0].id, "x");
	assert_string_equal(ev[0].evidence, "");
	assert_int_equal(ev[0].severity, SEV_CRITICAL);
	haz_events_free(ev, 1);
	hazstate_free(&st);
}

static void test_metrics(void **state)
{
	(void)state;
	struct cgw_hazstate st = { 0 };
	struct strbuf b = { 0 };
	metrics_hazards(&b, &st);
	assert_null(b.s);                    /* before the first audit: nothing */
	char got[64];
	struct haz_item a[] = { item("a", HV_HOLDS), item("b", HV_CLEAR), item("c", HV_UNDECIDED) };
	step(&st, a, 3, got, sizeof(got));
	st.last_epoch = 1700000000.5;
	st.last_s = 0.75;
	metrics_hazards(&b, &st);
	assert_non_null(strstr(b.s, "\ncgwatch_hazard{id=\"a\"} 1\n"));
	assert_non_null(strstr(b.s, "\ncgwatch_hazard{id=\"b\"} 0\n"));
	assert_null(strstr(b.s, "id=\"c\""));
	assert_non_null(strstr(b.s, "\ncgwatch_audit_timestamp_seconds 1700000000.5"));
	assert_non_null(strstr(b.s, "\ncgwatch_audit_duration_seconds 0.75"));
	assert_non_null(strstr(b.s, "# TYPE cgwatch_hazard gauge\n"));
	sb_free(&b);
	hazstate_free(&st);
}

/* audit_items: every rule of the set, in order, with its verdict on these facts. */
static void test_audit_items(void **state)
{
	(void)state;
	struct cgw_hazset set = { 0 };
	const char *text[] = {
		"[hazard]\nid = one\nseverity = warning\ntitle = One\nsummary = s\nseed = x\n"
		"when = rt.spinners >= 1\nevidence = rt.spinners\n[remedies]\nremedy = r\n",
		"[hazard]\nid = two\nseverity = critical\ntitle = Two\nsummary = s\nseed = x\n"
		"signature = fuse-wait\nwhen = rt.spinners >= 5\n[remedies]\nremedy = r\n",
		"[hazard]\nid = three\nseverity = warning\ntitle = Three\nsummary = s\nseed = x\n"
		"when = cgroup.churn_per_s >= 1\n[remedies]\nremedy = r\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(text); i++)
		assert_int_equal(hazard_parse(&set, "t.conf", text[i], strlen(text[i]), stderr), 0);
	assert_int_equal(set.n, 3);
	struct cgw_facts *f = calloc(1, sizeof(*f));
	int sp = hazard_fact_index("rt.spinners", strlen("rt.spinners"));
	assert_true(sp >= 0);
	f->known[sp] = true;
	f->v[sp] = 2;
	sb_printf(&f->ev[sp], "PID 9 spins\n");
	struct cgw_audit a;
	assert_int_equal(hazard_eval(&set, f, &a), 0);
	struct haz_items it;
	assert_int_equal(audit_items(&set, &a, &it), 0);
	assert_int_equal(it.n, 3);
	assert_string_equal(it.v[0].id, "one");
	assert_int_equal(it.v[0].verdict, HV_HOLDS);
	assert_string_equal(it.v[0].evidence, "PID 9 spins\n");
	assert_string_equal(it.v[0].signature, "");
	assert_string_equal(it.v[1].id, "two");
	assert_int_equal(it.v[1].verdict, HV_CLEAR);
	assert_string_equal(it.v[1].signature, "fuse-wait");
	assert_int_equal(it.v[1].severity, SEV_CRITICAL);
	assert_string_equal(it.v[2].id, "three");
	assert_int_equal(it.v[2].verdict, HV_UNDECIDED);
	haz_items_free(&it);
	audit_free(&a);
	facts_free(f);
	free(f);
	hazset_free(&set);
}

/* The daemon audits again when the CPU layout changes at run time, not for what only a boot
 * changes. */
static void test_layout_trigger(void **state)
{
	(void)state;
	struct cgw_topology a = { 0 }, b;
	for (unsigned c = 0; c < 8; c++) {
		cpus_set(&a.online, c);
		cpus_set(&a.housekeeping, c);
	}
	b = a;
	assert_false(topology_runtime_changed(&a, &b));
	b.online = (struct cgw_cpus){ 0 };           /* CPU 7 offline */
	for (unsigned c = 0; c < 7; c++)
		cpus_set(&b.online, c);
	assert_true(topology_runtime_changed(&a, &b));
	b = a;
	cpus_set(&b.partitions, 3);                  /* an isolated partition */
	assert_true(topology_runtime_changed(&a, &b));
	b = a;
	cpus_set(&b.isolated, 3);
	assert_true(topology_runtime_changed(&a, &b));
	b = a;
	cpus_set(&b.wq_unbound, 3);
	assert_true(topology_runtime_changed(&a, &b));
	b = a;
	cpus_set(&b.isolcpus, 2);                    /* the command line: not at run time */
	cpus_set(&b.nohz_full, 2);
	cpus_set(&b.rcu_nocbs, 2);
	b.isol_flags = 3;
	assert_false(topology_runtime_changed(&a, &b));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_first_audit_found_once),
		cmocka_unit_test(test_found_and_cleared),
		cmocka_unit_test(test_undecided_keeps),
		cmocka_unit_test(test_gone_rule_cleared),
		cmocka_unit_test(test_partial_keeps_missing),
		cmocka_unit_test(test_event_fields),
		cmocka_unit_test(test_metrics),
		cmocka_unit_test(test_audit_items),
		cmocka_unit_test(test_layout_trigger),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
