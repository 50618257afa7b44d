/* test-history.c: the daemon's sightings of D and R tasks, scan to scan. Also run under ASan
 * and UBSan (make asan-unit): a scan with no D or R task commits an empty array. */
#include "unit.h"

/* A healthy host: scans with no D or R task commit nothing (qsort of a NULL array of 0: UBSan
 * finds "null pointer passed as argument 1" when it is called), and find finds nothing. */
static void test_history_empty_scans(void **state)
{
	(void)state;
	struct cgw_history *h = history_new();
	for (int scan = 0; scan < 3; scan++) {
		history_begin(h);
		history_commit(h);
		assert_null(history_find(h, 1, 0));
	}
	history_free(h);
}

/* Sightings of one scan are found after its commit by (tid, start time), not before; a tid
 * reused with another start time is another task; the next scan's commit forgets them. */
static void test_history_find(void **state)
{
	(void)state;
	struct cgw_history *h = history_new();
	history_begin(h);
	for (int tid = 300; tid > 0; tid -= 3) {
		struct cgw_seen w = { .tid = tid, .start_ticks = 1000u + (unsigned)tid, .state = 'D' };
		history_add(h, &w);
	}
	assert_null(history_find(h, 3, 1003));
	history_commit(h);
	const struct cgw_seen *w = history_find(h, 3, 1003);
	assert_non_null(w);
	assert_int_equal(w->tid, 3);
	assert_int_equal(w->state, 'D');
	assert_non_null(history_find(h, 300, 1300));
	assert_null(history_find(h, 3, 1004));
	assert_null(history_find(h, 4, 1004));
	history_begin(h);
	history_commit(h);
	assert_null(history_find(h, 3, 1003));
	history_free(h);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_history_empty_scans),
		cmocka_unit_test(test_history_find),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
