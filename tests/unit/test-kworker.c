/* test-kworker.c: kworker names as /proc/TID/comm shows them (real ones from this machine
 * and from the seed 004 host). */
#include "unit.h"

static void test_kworker_names(void **state)
{
	(void)state;
	static const struct {
		const char *comm;
		int cpu, pool;
		bool unbound, rescuer, highpri, running;
		const char *wq;
	} ok[] = {
		{ "kworker/18:1-mm_percpu_wq", 18, 18, false, false, false, false, "mm_percpu_wq" },
		{ "kworker/0:0H-events_highpri", 0, 0, false, false, true, false, "events_highpri" },
		{ "kworker/0:1-virtio_vsock", 0, 0, false, false, false, false, "virtio_vsock" },
		{ "kworker/u768:1+cpuset_migrate_mm", -1, 768, true, false, false, true,
		  "cpuset_migrate_mm" },
		{ "kworker/u8:0-kvfree_rcu_reclaim", -1, 8, true, false, false, false,
		  "kvfree_rcu_reclaim" },
		{ "kworker/R-mm_percpu_wq", -1, -1, false, true, false, false, "mm_percpu_wq" },
		{ "kworker/0:2", 0, 0, false, false, false, false, "" },
		{ "kworker/5:1+cgroup_pidlist_destroy", 5, 5, false, false, false, true,
		  "cgroup_pidlist_destroy" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		struct cgw_kworker k;
		assert_int_equal(parse_kworker(ok[i].comm, strlen(ok[i].comm), &k), 0);
		assert_int_equal(k.cpu, ok[i].cpu);
		assert_int_equal(k.pool, ok[i].pool);
		assert_int_equal(k.unbound, ok[i].unbound);
		assert_int_equal(k.rescuer, ok[i].rescuer);
		assert_int_equal(k.highpri, ok[i].highpri);
		assert_int_equal(k.running, ok[i].running);
		assert_string_equal(k.wq, ok[i].wq);
	}
}

static void test_not_kworkers(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"systemd", "kworker", "kworker/", "kworker/x:1", "kworker/12", "kworker/12:",
		"kworker/1:1*events", "kworker/1:1+", "kworker/R-", "kworker/R", "kworkerd/1:1",
		"kworker/u:1-events",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct cgw_kworker k;
		if (parse_kworker(bad[i], strlen(bad[i]), &k) != -EINVAL) {
			print_error("\"%s\" taken as a kworker\n", bad[i]);
			fail();
		}
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_kworker_names),
		cmocka_unit_test(test_not_kworkers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
