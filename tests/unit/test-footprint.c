/* test-footprint.c: the daemon's own limits (footprint.c). Memory is locked only when
 * RLIMIT_MEMLOCK covers what the daemon needs, and the sentence says which and why; what it
 * needs grows with the host's threads; limits the unit asks for and did not get are named. */
#include <sys/resource.h>

#include "unit.h"

#define MiB (1024ull * 1024)

static void test_memlock_unlimited(void **state)
{
	(void)state;
	char msg[512];
	assert_true(memlock_decide(RLIM_INFINITY, false, 40 * MiB, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "locking memory"));
	assert_non_null(strstr(msg, "unlimited"));
}

static void test_memlock_covers(void **state)
{
	(void)state;
	char msg[512];
	assert_true(memlock_decide(512 * MiB, false, 40 * MiB, msg, sizeof(msg)));
	assert_string_equal(msg, "locking memory (mlockall): RLIMIT_MEMLOCK 512 MiB covers the "
	                    "40 MiB the daemon needs");
	assert_true(memlock_decide(40 * MiB, false, 40 * MiB, msg, sizeof(msg)));
}

/* The crash loop: a container clamps LimitMEMLOCK=infinity to 8 MiB; locking there makes a
 * later allocation fail. Not locked, and said why. */
static void test_memlock_clamped(void **state)
{
	(void)state;
	char msg[512];
	assert_false(memlock_decide(8 * MiB, false, 40 * MiB, msg, sizeof(msg)));
	assert_string_equal(msg, "not locking memory: RLIMIT_MEMLOCK 8 MiB is below the 40 MiB "
	                    "the daemon needs (locked, its allocations would fail past the "
	                    "limit); under memory pressure it may stall with the host");
	assert_false(memlock_decide(0, false, 40 * MiB, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "RLIMIT_MEMLOCK 0 KiB"));
	assert_false(memlock_decide(40 * MiB - 1, false, 40 * MiB, msg, sizeof(msg)));
}

/* CAP_IPC_LOCK: the kernel does not hold the daemon to the limit */
static void test_memlock_ipc_lock(void **state)
{
	(void)state;
	char msg[512];
	assert_true(memlock_decide(8 * MiB, true, 40 * MiB, msg, sizeof(msg)));
	assert_string_equal(msg, "locking memory (mlockall): CAP_IPC_LOCK, RLIMIT_MEMLOCK does "
	                    "not apply");
}

static void test_memlock_need(void **state)
{
	(void)state;
	uint64_t few = memlock_need(100), many = memlock_need(30000);
	assert_true(few >= 8 * MiB);       /* more than the default limit: measured 7.5 MiB idle */
	assert_true(many > few);
	assert_true(many <= 256 * MiB);    /* within MemoryHigh of the unit */
	assert_true(memlock_need(UINT64_MAX) <= 512 * MiB);   /* capped, no overflow */
}

static void test_limits_check(void **state)
{
	(void)state;
	char msg[512];
	assert_false(limits_check(-900, -900, 65536, 65536, msg, sizeof(msg)));
	assert_string_equal(msg, "");
	assert_false(limits_check(-900, -900, 70000, 65536, msg, sizeof(msg)));
	assert_true(limits_check(0, -900, 65536, 65536, msg, sizeof(msg)));
	assert_string_equal(msg, "OOMScoreAdjust=-900 was not applied (oom_score_adj is 0): the "
	                    "OOM killer may take the daemon with the host");
	assert_true(limits_check(-900, -900, 1024, 65536, msg, sizeof(msg)));
	assert_string_equal(msg, "LimitNOFILE=65536 was not applied (RLIMIT_NOFILE is 1024): "
	                    "past that many threads their stat files are reopened every scan");
	assert_true(limits_check(0, -900, 1024, 65536, msg, sizeof(msg)));
	assert_non_null(strstr(msg, "OOMScoreAdjust"));
	assert_non_null(strstr(msg, "; LimitNOFILE"));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_memlock_unlimited),
		cmocka_unit_test(test_memlock_covers),
		cmocka_unit_test(test_memlock_clamped),
		cmocka_unit_test(test_memlock_ipc_lock),
		cmocka_unit_test(test_memlock_need),
		cmocka_unit_test(test_limits_check),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
