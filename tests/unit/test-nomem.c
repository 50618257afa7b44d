/* test-nomem.c: what check and the diagnosis do when memory runs out (the test countdown
 * cgw_fail_alloc_after refuses one allocation): classify and correlate fail with -ENOMEM,
 * check_classify says so and gives exit 3, and nothing leaks (valgrind). */
#include "unit.h"

static struct cgw_sig sig_unknown, sig_starved, sig_frozen, sig_lru, sig_mig;

static int setup(void **state)
{
	(void)state;
	sig_unknown = unit_sig("unknown", "Unknown", "unknown", SEV_WARNING);
	sig_starved = unit_sig("starved", "Starved", "starved", SEV_WARNING);
	sig_frozen = unit_sig("frozen", "Frozen", "frozen", SEV_INFO);
	sig_lru = unit_sig("lru-drain-isolated", "LRU drain", "lru", SEV_CRITICAL);
	sig_mig = unit_sig("cpuset-migrate-wait", "Migration", "mig", SEV_WARNING);
	return 0;
}

/* stderr into a file, then back; what was said into buf. */
static void said(int (*fn)(void *), void *arg, int *ret, char *buf, size_t cap)
{
	struct capture c;
	capture_begin(&c);
	*ret = fn(arg);
	capture_end(&c, buf, cap);
}

struct cc { struct unit_scan *u; struct cgw_sigset *set; long fail; };

static int run_check_classify(void *arg)
{
	struct cc *c = arg;
	cgw_fail_alloc_after = c->fail;
	int r = check_classify(&c->u->rep, c->set);
	cgw_fail_alloc_after = -1;
	return r;
}

/* check's classification under no memory at each allocation in turn: exit 3 with "out of
 * memory" said, until there is enough; then 0 and the findings. */
static void test_check_classify_out_of_memory(void **state)
{
	(void)state;
	struct cgw_sig sigs[] = { sig_unknown, sig_starved, sig_frozen };
	struct cgw_sigset set = { sigs, 3 };
	struct cgw_conf conf;
	conf_defaults(&conf);
	int failed = 0, r = -1;
	for (long k = 0; k < 50 && r != 0; k++) {
		struct unit_scan u;
		us_init(&u);
		u.rep.conf = &conf;
		us_task(&u, 10, 10, "a", 1, 30);
		us_task(&u, 11, 11, "b", 1, 31);
		struct cc c = { &u, &set, k };
		char log[1024];
		said(run_check_classify, &c, &r, log, sizeof(log));
		if (r != 0) {
			assert_int_equal(r, EXIT_UNREADABLE);
			assert_string_equal(log, "cgwatch: cannot classify the 2 tasks of the scan: out of "
			                    "memory\n");
			failed++;
		} else {
			assert_int_equal(u.rep.nf, 1);
			assert_int_equal(u.rep.f[0].ntasks, 2);
		}
		us_free(&u);
	}
	conf_free(&conf);
	assert_int_equal(r, 0);
	assert_true(failed >= 2);
}

/* correlate() under no memory at each allocation in turn: -ENOMEM, then 0 with the chain. */
static void test_correlate_out_of_memory(void **state)
{
	(void)state;
	int failed = 0, r = -1;
	for (long k = 0; k < 200 && r != 0; k++) {
		struct unit_scan u;
		us_init(&u);
		size_t w = us_task(&u, 1, 1, "systemd", 7, 120);
		size_t d = us_task(&u, 50, 50, "kworker/u8:1+cpuset_migrate_mm", 30, 119);
		us_finding(&u, &sig_mig, SEV_WARNING, 1, &w);
		us_finding(&u, &sig_lru, SEV_CRITICAL, 1, &d);
		cgw_fail_alloc_after = k;
		r = correlate(&u.rep);
		cgw_fail_alloc_after = -1;
		if (r != 0)
			assert_int_equal(r, -ENOMEM);
		failed += r != 0;
		if (r == 0) {
			struct cgw_finding *lru = NULL;
			for (size_t j = 0; j < u.rep.nf; j++)
				if (u.rep.f[j].sig == &sig_lru)
					lru = &u.rep.f[j];
			assert_non_null(lru);
			assert_int_equal(lru->nchain, 2);
		}
		us_free(&u);
	}
	assert_int_equal(r, 0);
	assert_true(failed >= 2);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_check_classify_out_of_memory),
		cmocka_unit_test(test_correlate_out_of_memory),
	};
	return cmocka_run_group_tests(tests, setup, NULL);
}
