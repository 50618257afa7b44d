/* test-hazard.c: hazard rule files (parse-hazard.c) and their evaluation on facts
 * (diagnose-hazard.c): what parses, the file:line of each error, the built-in rules, and which
 * rules hold, are undecided or stay quiet on a set of facts. */
#include "unit.h"

/* Parse text as file "t.conf"; the errors printed, in *errs (malloc'd). */
static int parse(struct cgw_hazset *set, const char *text, char **errs)
{
	size_t n;
	FILE *err = open_memstream(errs, &n);
	int r = hazard_parse(set, "t.conf", text, strlen(text), err);
	fclose(err);
	return r;
}

static const char *const good =
	"[hazard]\n"
	"id = spin\n"
	"severity = critical\n"
	"title = Spinners\n"
	"summary = A spinner owns its CPU\n"
	"  and nothing else runs.\n"
	"signature = lru-drain-isolated\n"
	"seed = seed 004\n"
	"when = rt.spinners >= 1\n"
	"when = kernel.sched_rt_runtime_us == -1\n"
	"[remedies]\n"
	"remedy = first\n"
	"remedy = second\n"
	"[references]\n"
	"reference = https://example\n"
	"[hazard]\n"
	"id = off\n"
	"severity = warning\n"
	"title = Off\n"
	"summary = Off.\n"
	"seed = all\n"
	"when = kernel.hung_task_timeout_secs==0\n"
	"evidence = kernel.hung_task_timeout_secs, kernel.hung_task_warnings\n"
	"[remedies]\n"
	"remedy = on\n";

static void test_parse_good(void **state)
{
	(void)state;
	struct cgw_hazset set = { 0 };
	char *errs = NULL;
	assert_int_equal(parse(&set, good, &errs), 0);
	assert_string_equal(errs, "");
	assert_int_equal(set.n, 2);
	const struct cgw_hazard *h = &set.v[0];
	assert_string_equal(h->id, "spin");
	assert_int_equal(h->severity, SEV_CRITICAL);
	assert_string_equal(h->summary, "A spinner owns its CPU and nothing else runs.");
	assert_string_equal(h->signature, "lru-drain-isolated");
	assert_int_equal(h->nwhen, 2);
	assert_int_equal(h->when[0].fact, HF_RT_SPINNERS);
	assert_int_equal(h->when[0].op, HOP_GE);
	assert_true(h->when[1].value == -1);
	/* evidence defaults to the facts its conditions test */
	assert_int_equal(h->nevidence, 2);
	assert_int_equal(h->evidence[1], HF_RT_RUNTIME);
	assert_int_equal(h->nremedies, 2);
	assert_string_equal(h->remedies[1], "second");
	assert_int_equal(h->line, 2);
	assert_int_equal(set.v[1].when[0].op, HOP_EQ);
	assert_int_equal(set.v[1].nevidence, 2);
	assert_int_equal(set.v[1].evidence[1], HF_HUNG_WARNINGS);
	hazset_free(&set);
	free(errs);
}

/* Each broken file: nothing added, and the message with its line. */
static void test_parse_errors(void **state)
{
	(void)state;
	static const struct { const char *text, *want; } cases[] = {
		{ "[hazard]\nid = a\nseverity = warning\ntitle = t\nsummary = s\nseed = x\n"
		  "when = rt.spinerz >= 1\n[remedies]\nremedy = r\n",
		  "t.conf:7: when: unknown fact \"rt.spinerz\"" },
		{ "[hazard]\nid = a\nseverity = warning\ntitle = t\nsummary = s\nseed = x\n"
		  "when = rt.spinners => 1\n[remedies]\nremedy = r\n",
		  "t.conf:7: when: expected one of == != <= >= < > after rt.spinners" },
		{ "[hazard]\nid = a\nseverity = warning\ntitle = t\nsummary = s\nseed = x\n"
		  "when = rt.spinners >= many\n[remedies]\nremedy = r\n",
		  "t.conf:7: when: \"many\" is not a number" },
		{ "[hazard]\nid = a\nseverity = warning\ntitle = t\nsummary = s\nseed = x\n"
		  "when = rt.spinners >= nan\n[remedies]\nremedy = r\n",
		  "t.conf:7: when: \"nan\" is not a number" },
		{ "[hazard]\nid = a\nseverity = bad\n", "t.conf:3: severity must be" },
		{ "[hazard]\nid = a\nseverity = warning\ntitle = t\nsummary = s\nseed = x\n"
		  "[remedies]\nremedy = r\n", "t.conf:2: hazard a: no \"when\"" },
		{ "[hazard]\nid = a\nseverity = warning\ntitle = t\nsummary = s\nseed = x\n"
		  "when = rt.spinners >= 1\n", "t.conf:2: hazard a: no [remedies] remedy" },
		{ "[hazard]\nid = a\nseverity = warning\ntitle = t\nsummary = s\n"
		  "when = rt.spinners >= 1\n[remedies]\nremedy = r\n", "t.conf:2: hazard a: missing seed" },
		{ "[hazard]\ntitle = t\n", "t.conf:2: \"title\" before \"id\"" },
		{ "[hazard]\nid = a\n[hazard]\nid = a\n", "t.conf:4: duplicate id a (also at line 2)" },
		{ "[hazard]\nid = a\n[match]\nframe = x\n", "t.conf:4: unknown section [match]" },
		{ "[hazard]\nid = a\nstates = D\n", "t.conf:3: unknown key \"states\" in [hazard]" },
		{ "[hazard]\nid = a\nevidence = rt.spinners, rt.spinners\n",
		  "t.conf:3: evidence: rt.spinners named twice" },
		{ "[hazard]\nid = 1a\n", "t.conf:2: bad id \"1a\"" },
		{ "[hazard]\nid = a\nsignature = a b\n", "t.conf:3: signature \"a b\" is not" },
		{ "# nothing\n", "t.conf:1: no [hazard] with an id" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct cgw_hazset set = { 0 };
		char *errs = NULL;
		int r = parse(&set, cases[i].text, &errs);
		if (r == 0 || !strstr(errs, cases[i].want))
			print_error("case %zu: r=%d errs=%s\n", i, r, esc(errs));
		assert_true(r > 0);
		assert_non_null(strstr(errs, cases[i].want));
		assert_int_equal(set.n, 0);
		hazset_free(&set);
		free(errs);
	}
}

/* The shipped rules load without an error, each with a seed and remedies. */
static void test_builtin(void **state)
{
	(void)state;
	struct cgw_hazset set = { 0 };
	char *errs = NULL;
	size_t n;
	FILE *err = open_memstream(&errs, &n);
	assert_int_equal(hazard_load_builtin(&set, err), 0);
	fclose(err);
	assert_string_equal(errs, "");
	assert_true(set.n >= 8);
	for (size_t i = 0; i < set.n; i++) {
		assert_true(set.v[i].builtin);
		assert_true(set.v[i].nremedies > 0);
		assert_non_null(set.v[i].seed);
	}
	assert_non_null(hazard_find(&set, "hung-task-warnings-used-up"));
	assert_non_null(hazard_find(&set, "rt-spinner-unthrottled"));
	assert_non_null(hazard_find(&set, "rt-spinner"));
	assert_non_null(hazard_find(&set, "rt-spinner-fair-server"));
	hazset_free(&set);
	free(errs);
}

static void test_eval(void **state)
{
	(void)state;
	struct cgw_hazset set = { 0 };
	char *errs = NULL;
	assert_int_equal(parse(&set, good, &errs), 0);
	struct cgw_facts *f = xcalloc(1, sizeof(*f));
	struct cgw_audit a;

	/* nothing known: "off" cannot be decided, "spin" neither */
	assert_int_equal(hazard_eval(&set, f, &a), 0);
	assert_int_equal(a.nhits, 0);
	assert_int_equal(a.nopen, 2);
	assert_int_equal(a.open[0].fact, HF_RT_SPINNERS);
	audit_free(&a);

	/* a spinner, throttling on: spin does not hold; timeout 120: off does not hold */
	f->known[HF_RT_SPINNERS] = f->known[HF_RT_RUNTIME] = f->known[HF_HUNG_TIMEOUT] = true;
	f->v[HF_RT_SPINNERS] = 2;
	f->v[HF_RT_RUNTIME] = 950000;
	f->v[HF_HUNG_TIMEOUT] = 120;
	sb_printf(&f->ev[HF_RT_SPINNERS], "CPU 1: 10 (spin)\n");
	assert_int_equal(hazard_eval(&set, f, &a), 0);
	assert_int_equal(a.nhits, 0);
	assert_int_equal(a.nopen, 0);
	audit_free(&a);

	/* throttling off and reports off: both, the critical first, with their evidence */
	f->v[HF_RT_RUNTIME] = -1;
	f->v[HF_HUNG_TIMEOUT] = 0;
	assert_int_equal(hazard_eval(&set, f, &a), 0);
	assert_int_equal(a.nhits, 2);
	assert_string_equal(a.hits[0].h->id, "spin");
	assert_string_equal(a.hits[0].evidence,
	                    "CPU 1: 10 (spin)\nkernel.sched_rt_runtime_us = -1\n");
	assert_string_equal(a.hits[1].h->id, "off");
	assert_int_equal(audit_max_severity(&a), SEV_CRITICAL);
	audit_free(&a);

	/* a known condition that fails decides, even with another unknown */
	f->known[HF_RT_RUNTIME] = false;
	f->v[HF_RT_SPINNERS] = 0;
	assert_int_equal(hazard_eval(&set, f, &a), 0);
	assert_int_equal(a.nopen, 0);
	assert_int_equal(a.nhits, 1);
	audit_free(&a);
	facts_free(f);
	free(f);
	hazset_free(&set);
	free(errs);
}

/* A directory on top of the built-in rules replaces by id; a bad file is skipped. */
static void test_load_dir(void **state)
{
	(void)state;
	char dir[] = "/tmp/cgwatch-test-hazard.XXXXXX";
	assert_non_null(mkdtemp(dir));
	char p1[128], p2[128];
	snprintf(p1, sizeof(p1), "%s/a.conf", dir);
	snprintf(p2, sizeof(p2), "%s/b.conf", dir);
	FILE *o = fopen(p1, "w");
	fputs("[hazard]\nid = rt-spinner\nseverity = info\ntitle = t\nsummary = s\nseed = x\n"
	      "when = rt.spinners >= 5\n[remedies]\nremedy = r\n", o);
	fclose(o);
	o = fopen(p2, "w");
	fputs("[hazard]\nid = b\nseverity = info\n", o);
	fclose(o);
	struct cgw_hazset set = { 0 };
	char *errs = NULL;
	size_t n;
	FILE *err = open_memstream(&errs, &n);
	assert_int_equal(hazard_load_builtin(&set, err), 0);
	size_t before = set.n;
	assert_true(hazard_load_dir(&set, dir, err) > 0);
	fclose(err);
	assert_non_null(strstr(errs, "b.conf:2: hazard b: missing title"));
	assert_int_equal(set.n, before);
	const struct cgw_hazard *h = hazard_find(&set, "rt-spinner");
	assert_int_equal(h->severity, SEV_INFO);
	assert_false(h->builtin);
	assert_string_equal(h->replaced, "built in");
	hazset_free(&set);
	free(errs);
	unlink(p1);
	unlink(p2);
	rmdir(dir);
}

/* kernel.fair_server falls back on the release where debugfs is unreadable: 6.12 brought it. */
static void test_kernel_release(void **state)
{
	(void)state;
	static const struct { const char *rel; int at612; int major, minor; } cases[] = {
		{ "6.12.118+deb12-amd64", 1, 6, 12 },   /* Debian 12 backports */
		{ "6.12.118+deb12-rt-amd64", 1, 6, 12 },
		{ "6.1.0-28-amd64", 0, 6, 1 },          /* Debian 12 */
		{ "6.11", 0, 6, 11 },
		{ "7.0.0-1004-aws", 1, 7, 0 },          /* seed 004's host */
		{ "5.15.0-91-generic", 0, 5, 15 },
		{ "6.18.44", 1, 6, 18 },
		{ "", -EINVAL, 0, 0 }, { "linux", -EINVAL, 0, 0 }, { "6", -EINVAL, 0, 0 },
		{ "6.", -EINVAL, 0, 0 }, { "6.x", -EINVAL, 0, 0 }, { "6.12abc", -EINVAL, 0, 0 },
		{ "-6.12", -EINVAL, 0, 0 }, { "99999999999999999999.1", -EINVAL, 0, 0 },
	};
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		int ma = -1, mi = -1;
		int r = parse_kernel_release(cases[i].rel, &ma, &mi);
		assert_int_equal(kernel_release_at_least(cases[i].rel, 6, 12), cases[i].at612);
		if (cases[i].at612 < 0) {
			assert_int_equal(r, -EINVAL);
			continue;
		}
		assert_int_equal(r, 0);
		assert_int_equal(ma, cases[i].major);
		assert_int_equal(mi, cases[i].minor);
	}
	assert_int_equal(parse_kernel_release(NULL, &(int){ 0 }, &(int){ 0 }), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_parse_good),
		cmocka_unit_test(test_parse_errors),
		cmocka_unit_test(test_builtin),
		cmocka_unit_test(test_eval),
		cmocka_unit_test(test_load_dir),
		cmocka_unit_test(test_kernel_release),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
