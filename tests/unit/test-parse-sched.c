/* test-parse-sched.c: parse_sched_buf and parse_status_buf on real /proc text (Linux 6.18). */
#include "unit.h"

#include <math.h>

/* /proc/self/sched of `cat` (never switched yet) */
static const char sched_cat[] =
	"cat (4750, #threads: 1)\n"
	"-------------------------------------------------------------------\n"
	"se.exec_start                                :        375039.178852\n"
	"se.vruntime                                  :           147.043881\n"
	"se.sum_exec_runtime                          :             0.000000\n"
	"se.nr_migrations                             :                    0\n"
	"nr_switches                                  :                    0\n"
	"nr_voluntary_switches                        :                    0\n"
	"nr_involuntary_switches                      :                    0\n"
	"se.load.weight                               :              1048576\n"
	"se.avg.load_sum                              :                46956\n"
	"se.avg.runnable_sum                          :             13049391\n"
	"se.avg.util_sum                              :             12991023\n"
	"se.avg.load_avg                              :                 1024\n"
	"se.avg.runnable_avg                          :                  277\n"
	"se.avg.util_avg                              :                  277\n"
	"se.avg.last_update_time                      :         375039178752\n"
	"se.avg.util_est                              :                    0\n"
	"policy                                       :                    0\n"
	"prio                                         :                  120\n"
	"se.slice                                     :              1400000\n"
	"clock-delta                                  :                   60\n"
	"mm->numa_scan_seq                            :                    0\n"
	"numa_pages_migrated                          :                    0\n"
	"numa_preferred_nid                           :                   -1\n"
	"total_numa_faults                            :                    0\n"
	"current_node=0, numa_group_id=0\n"
	"numa_faults node=0 task_private=0 task_shared=0 group_private=0 group_shared=0\n";

/* /proc/PID/sched of a shell running as nobody */
static const char sched_sh[] =
	"sh (7445, #threads: 1)\n"
	"-------------------------------------------------------------------\n"
	"se.exec_start                                :        519852.038332\n"
	"se.vruntime                                  :           948.663593\n"
	"se.sum_exec_runtime                          :             3.600891\n"
	"se.nr_migrations                             :                    1\n"
	"nr_switches                                  :                    9\n"
	"nr_voluntary_switches                        :                    9\n"
	"nr_involuntary_switches                      :                    0\n"
	"se.load.weight                               :              1048576\n"
	"policy                                       :                    0\n"
	"prio                                         :                  120\n";

/* two CPU hogs on CPU 0: involuntary switches differ from voluntary ones (other lines elided) */
static const char sched_hog[] =
	"sh (7539, #threads: 1)\n"
	"-------------------------------------------------------------------\n"
	"se.exec_start                                :        523616.754917\n"
	"nr_switches                                  :                   77\n"
	"nr_voluntary_switches                        :                    2\n"
	"nr_involuntary_switches                      :                   75\n";

/* a vfork parent in D (other lines elided) */
static const char sched_vfork[] =
	"cgw_vf (5501, #threads: 1)\n"
	"-------------------------------------------------------------------\n"
	"se.exec_start                                :        445073.741683\n"
	"nr_switches                                  :                    1\n";

static void test_sched_real(void **state)
{
	(void)state;
	static const struct {
		const char *what, *buf;
		double exec_start;
		unsigned long long switches;
	} cases[] = {
		{ "cat", sched_cat, 375039.178852, 0 },
		{ "sh", sched_sh, 519852.038332, 9 },
		{ "hog", sched_hog, 523616.754917, 77 },
		{ "vfork", sched_vfork, 445073.741683, 1 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct cgw_sched s;
		print_message("# case: %s\n", cases[i].what);
		assert_int_equal(parse_sched_buf(cases[i].buf, &s), 0);
		assert_true(s.have_exec_start);
		assert_true(s.have_switches);
		assert_near(s.exec_start_ms, cases[i].exec_start, 1e-6);
		assert_int_equal(s.nr_switches, cases[i].switches);
	}
}

/* nr_voluntary_switches and friends are not nr_switches; se.exec_start is not a prefix match */
static void test_sched_key_exact(void **state)
{
	(void)state;
	struct cgw_sched s;
	const char *buf =
		"x (1, #threads: 1)\n"
		"se.exec_start_x                              :               1.5\n"
		"se.exec_start                                :             42.25\n"
		"nr_voluntary_switches                        :                    5\n"
		"nr_involuntary_switches                      :                    6\n";
	assert_int_equal(parse_sched_buf(buf, &s), 0);
	assert_near(s.exec_start_ms, 42.25, 1e-9);
	assert_false(s.have_switches);
	assert_int_equal(s.nr_switches, 0);
}

static void test_sched_missing_exec_start_einval(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"",
		/* the header alone: "#threads: 1" has a ':' but is no key */
		"cat (4750, #threads: 1)\n"
		"-------------------------------------------------------------------\n",
		/* switches without exec_start */
		"cat (4750, #threads: 1)\n"
		"-------------------------------------------------------------------\n"
		"se.vruntime                                  :           147.043881\n"
		"nr_switches                                  :                    3\n",
		/* exec_start without a number */
		"se.exec_start                                :\n"
		"nr_switches                                  :                    3\n",
		/* exec_start cut before its colon */
		"cat (4750, #threads: 1)\nse.exec_start",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct cgw_sched s;
		print_message("# bad[%zu]\n", i);
		assert_int_equal(parse_sched_buf(bad[i], &s), -EINVAL);
		assert_false(s.have_exec_start);
	}
	/* what was found is still reported */
	struct cgw_sched s;
	assert_int_equal(parse_sched_buf(bad[2], &s), -EINVAL);
	assert_true(s.have_switches);
	assert_int_equal(s.nr_switches, 3);
}

/* se.exec_start, se.sum_exec_runtime and nr_switches holding a number the kernel never prints
 * (it prints "%Ld.%06ld" and "%Ld"): the file does not parse, and bad names the field. Before,
 * strtod took "nan" and "inf" as times (a task blocked "for inf s", or one that vanished from
 * the report) and strtoull "-5" as 2^64-5. */
static void test_sched_hostile_numbers(void **state)
{
	(void)state;
	static const char *const keys[] = { "se.exec_start", "se.sum_exec_runtime", "nr_switches" };
	for (size_t k = 0; k < ARRAY_SIZE(keys); k++)
		for (size_t h = 0; h < ARRAY_SIZE(hostile_nums) + 2; h++) {
			const char *v = h < ARRAY_SIZE(hostile_nums) ? hostile_nums[h] :
			                h == ARRAY_SIZE(hostile_nums) ? "" : NULL;
			struct strbuf b = { 0 };
			char big[420];
			if (!v) {            /* 1e400 without an exponent: past any time */
				memset(big, '9', 400);
				big[400] = '\0';
				v = big;
			}
			sb_printf(&b, "x (1, #threads: 1)\n---\n");
			for (size_t j = 0; j < ARRAY_SIZE(keys); j++)
				sb_printf(&b, "%-45s:%21s\n", keys[j], j == k ? v : j == 2 ? "7" : "1.5");
			struct cgw_sched s;
			print_message("# %s = \"%s\"\n", keys[k], esc(v));
			assert_true(parse_sched_buf(b.s, &s) < 0);
			assert_non_null(s.bad);
			assert_string_equal(s.bad, keys[k]);
			sb_free(&b);
		}
}

/* Times are finite, >= 0 and within a century of boot (3.16e12 ms); counts within 2^53. "-0"
 * and "-0.000000" are zero (exec_start 0: reset by the kernel, an unknown time). A forged
 * line in the header (a comm may hold '\n') is overridden by the kernel's own, later line. */
static void test_sched_ranges(void **state)
{
	(void)state;
	static const struct { const char *exec, *sum, *sw; int ok; double exec_ms; } cases[] = {
		{ "0.000000", "0.000000", "0", 1, 0 },
		{ "-0", "-0.000000", "-0", 1, 0 },
		{ "3155760000000.000000", "1.5", "9007199254740992", 1, 3155760000000.0 },
		{ "3155760000001.000000", "1.5", "1", 0, 0 },
		{ "1.5", "3155760000001", "1", 0, 0 },
		{ "1.5", "1.5", "9007199254740993", 0, 0 },
		{ "-0.000001", "1.5", "1", 0, 0 },
		{ "1.5", "-1.5", "1", 0, 0 },
		{ "99786.458684", "3.600891", "9", 1, 99786.458684 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char buf[512];
		snprintf(buf, sizeof(buf), "x (1, #threads: 1)\n---\nse.exec_start : %s\n"
		         "se.sum_exec_runtime : %s\nnr_switches : %s\n", cases[i].exec, cases[i].sum,
		         cases[i].sw);
		struct cgw_sched s;
		print_message("# case %zu\n", i);
		int rc = parse_sched_buf(buf, &s);
		if (!cases[i].ok) {
			assert_true(rc < 0);
			continue;
		}
		assert_int_equal(rc, 0);
		assert_null(s.bad);
		assert_near(s.exec_start_ms, cases[i].exec_ms, 1e-6);
		assert_false(signbit(s.exec_start_ms));     /* -0 is printed as 0 */
		assert_false(signbit(s.sum_exec_ms));
	}
	/* "a\nnr_switches:-5" is a 15-byte comm */
	const char *forged = "a\nnr_switches:-5 (1, #threads: 1)\n---\nse.exec_start : 5.0\n"
	                     "nr_switches : 3\n";
	struct cgw_sched s;
	assert_int_equal(parse_sched_buf(forged, &s), 0);
	assert_int_equal(s.nr_switches, 3);
}

/* ---- status ---- */

/* /proc/self/status of `cat` as root */
static const char status_root[] =
	"Name:\tcat\n"
	"Umask:\t0022\n"
	"State:\tR (running)\n"
	"Tgid:\t4751\n"
	"Ngid:\t0\n"
	"Pid:\t4751\n"
	"PPid:\t4747\n"
	"TracerPid:\t0\n"
	"Uid:\t0\t0\t0\t0\n"
	"Gid:\t0\t0\t0\t0\n"
	"FDSize:\t256\n"
	"Groups:\t \n"
	"NStgid:\t4751\n"
	"NSpid:\t4751\n"
	"NSpgid:\t4747\n"
	"NSsid:\t4336\n"
	"Kthread:\t0\n"
	"VmPeak:\t    3060 kB\n"
	"VmSize:\t    3060 kB\n"
	"VmLck:\t       0 kB\n"
	"VmPin:\t       0 kB\n"
	"VmHWM:\t    1692 kB\n"
	"VmRSS:\t    1692 kB\n"
	"RssAnon:\t     112 kB\n"
	"RssFile:\t    1580 kB\n"
	"RssShmem:\t       0 kB\n"
	"VmData:\t     360 kB\n"
	"VmStk:\t     132 kB\n"
	"VmExe:\t      20 kB\n"
	"VmLib:\t    1528 kB\n"
	"VmPTE:\t      44 kB\n"
	"VmSwap:\t       0 kB\n"
	"HugetlbPages:\t       0 kB\n"
	"CoreDumping:\t0\n"
	"THP_enabled:\t1\n"
	"untag_mask:\t0xffffffffffffffff\n"
	"Threads:\t1\n"
	"SigQ:\t0/96365\n"
	"SigPnd:\t0000000000000000\n"
	"ShdPnd:\t0000000000000000\n"
	"SigBlk:\t0000000000000000\n"
	"SigIgn:\t0000000000000000\n"
	"SigCgt:\t0000000000000000\n"
	"CapInh:\t0000000000000000\n"
	"CapPrm:\t000001fffeffffff\n"
	"CapEff:\t000001fffeffffff\n"
	"CapBnd:\t000001fffeffffff\n"
	"CapAmb:\t0000000000000000\n"
	"NoNewPrivs:\t0\n"
	"Seccomp:\t0\n"
	"Seccomp_filters:\t0\n"
	"Speculation_Store_Bypass:\tvulnerable\n"
	"SpeculationIndirectBranch:\talways enabled\n"
	"Cpus_allowed:\t3\n"
	"Cpus_allowed_list:\t0-1\n"
	"Mems_allowed:\t00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,"
	"00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,"
	"00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,00000000,"
	"00000000,00000000,00000000,00000001\n"
	"Mems_allowed_list:\t0\n"
	"voluntary_ctxt_switches:\t0\n"
	"nonvoluntary_ctxt_switches:\t0\n";

/* a shell as nobody (the middle of the file elided) */
static const char status_nobody[] =
	"Name:\tsh\n"
	"Umask:\t0022\n"
	"State:\tS (sleeping)\n"
	"Tgid:\t7445\n"
	"Ngid:\t0\n"
	"Pid:\t7445\n"
	"PPid:\t7443\n"
	"TracerPid:\t0\n"
	"Uid:\t65534\t65534\t65534\t65534\n"
	"Gid:\t65534\t65534\t65534\t65534\n"
	"FDSize:\t256\n"
	"Groups:\t \n"
	"NStgid:\t7445\n"
	"NSpid:\t7445\n"
	"NSpgid:\t7443\n"
	"NSsid:\t4336\n"
	"Kthread:\t0\n"
	"Threads:\t1\n"
	"SigCgt:\t0000000000010002\n"
	"Cpus_allowed:\t3\n"
	"Cpus_allowed_list:\t0-1\n"
	"Mems_allowed_list:\t0\n"
	"voluntary_ctxt_switches:\t7\n"
	"nonvoluntary_ctxt_switches:\t0\n";

/* a CPU hog pinned to CPU 0 next to another one (the lines cgwatch reads, in file order) */
static const char status_hog[] =
	"Tgid:\t7539\n"
	"Pid:\t7539\n"
	"PPid:\t7537\n"
	"Uid:\t0\t0\t0\t0\n"
	"Cpus_allowed_list:\t0\n"
	"voluntary_ctxt_switches:\t2\n"
	"nonvoluntary_ctxt_switches:\t75\n";

static void test_status_real(void **state)
{
	(void)state;
	static const struct {
		const char *what, *buf;
		int tgid, ppid;
		unsigned uid;
		const char *cpus;
		unsigned long long vol, nonvol;
	} cases[] = {
		{ "root cat", status_root, 4751, 4747, 0, "0-1", 0, 0 },
		{ "nobody sh", status_nobody, 7445, 7443, 65534, "0-1", 7, 0 },
		{ "hog", status_hog, 7539, 7537, 0, "0", 2, 75 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct cgw_status s;
		print_message("# case: %s\n", cases[i].what);
		assert_int_equal(parse_status_buf(cases[i].buf, &s), 0);
		assert_int_equal(s.tgid, cases[i].tgid);
		assert_int_equal(s.ppid, cases[i].ppid);
		assert_int_equal(s.uid, cases[i].uid);
		assert_string_equal(s.cpus_allowed, cases[i].cpus);
		assert_int_equal(s.vol_switches, cases[i].vol);
		assert_int_equal(s.nonvol_switches, cases[i].nonvol);
	}
}

/* (Constructed) A thread of a process in a PID namespace: Tgid is not NStgid, PPid is not
 * TracerPid, the real uid is the first of four, Cpus_allowed (a hex mask) is not
 * Cpus_allowed_list. */
static void test_status_keys_exact(void **state)
{
	(void)state;
	const char *buf =
		"Name:\tworker\n"
		"NStgid:\t900\t12\n"
		"TracerPid:\t333\n"
		"Tgid:\t900\n"
		"Pid:\t905\n"
		"PPid:\t1\n"
		"Uid:\t1000\t0\t0\t0\n"
		"Cpus_allowed:\tffffffff,ffffffff,ffffffff,ffffffff,ffffffff,ffffffff\n"
		"Cpus_allowed_list:\t0-17,96-107,179-191\n"
		"voluntary_ctxt_switches:\t123456789012\n"
		"nonvoluntary_ctxt_switches:\t42\n";
	struct cgw_status s;
	assert_int_equal(parse_status_buf(buf, &s), 0);
	assert_int_equal(s.tgid, 900);
	assert_int_equal(s.ppid, 1);
	assert_int_equal(s.uid, 1000);
	assert_string_equal(s.cpus_allowed, "0-17,96-107,179-191");
	assert_int_equal(s.vol_switches, 123456789012ull);
	assert_int_equal(s.nonvol_switches, 42);
}

/* An overlong allowed list is cut to the buffer, NUL-terminated. */
static void test_status_long_cpulist_truncated(void **state)
{
	(void)state;
	struct strbuf b = { 0 };
	sb_printf(&b, "Tgid:\t1\nCpus_allowed_list:\t");
	for (int i = 0; i < 200; i += 2)
		sb_printf(&b, "%s%d", i ? "," : "", i);
	sb_printf(&b, "\nvoluntary_ctxt_switches:\t3\n");
	struct cgw_status s;
	assert_int_equal(parse_status_buf(b.s, &s), 0);
	assert_int_equal(strlen(s.cpus_allowed), sizeof(s.cpus_allowed) - 1);
	assert_memory_equal(s.cpus_allowed, "0,2,4,6,8,10,", 13);
	assert_int_equal(s.vol_switches, 3);
	sb_free(&b);
}

static void test_status_missing_tgid_einval(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"",
		"Name:\tcat\nPid:\t4751\nPPid:\t4747\n",
		"NStgid:\t4751\n",        /* not Tgid */
		"Tgid 4751\n",             /* no colon */
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct cgw_status s;
		print_message("# bad[%zu]\n", i);
		assert_int_equal(parse_status_buf(bad[i], &s), -EINVAL);
	}
}

/* Tgid, PPid, Uid, the switch counts and the allowed CPUs holding what /proc never writes:
 * the file does not parse (atoi took "nan" as 0, strtoull "-5" as 2^64-5, and any text was
 * taken as the allowed CPUs). */
static void test_status_hostile_numbers(void **state)
{
	(void)state;
	static const char *const keys[] = { "Tgid", "PPid", "Uid", "voluntary_ctxt_switches",
	                                    "nonvoluntary_ctxt_switches", "Cpus_allowed_list" };
	for (size_t k = 0; k < ARRAY_SIZE(keys); k++)
		for (size_t h = 0; h < ARRAY_SIZE(hostile_nums); h++) {
			struct strbuf b = { 0 };
			for (size_t j = 0; j < ARRAY_SIZE(keys); j++)
				sb_printf(&b, "%s:\t%s%s\n", keys[j], j == k ? hostile_nums[h] : "7",
				          j == 2 && j != k ? "\t7\t7\t7" : "");
			struct cgw_status s;
			print_message("# %s = \"%s\"\n", keys[k], hostile_nums[h]);
			assert_true(parse_status_buf(b.s, &s) < 0);
			sb_free(&b);
		}
	/* in range: Tgid 1..INT_MAX, a CPU list of CPUs below 8192, uid below 2^32-1 */
	static const char *const bad[] = {
		"Tgid:\t0\n", "Tgid:\t2147483648\n", "Tgid:\t1\nPPid:\t2147483648\n",
		"Tgid:\t1\nUid:\t4294967295\t0\t0\t0\n", "Tgid:\t1\nCpus_allowed_list:\t0-8192\n",
		"Tgid:\t1\nCpus_allowed_list:\t\x1b[2J\n",
		"Tgid:\t1\nvoluntary_ctxt_switches:\t9007199254740993\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct cgw_status s;
		print_message("# bad[%zu]\n", i);
		assert_true(parse_status_buf(bad[i], &s) < 0);
	}
	struct cgw_status s;
	assert_int_equal(parse_status_buf("Tgid:\t-0\nPPid:\t-0\nUid:\t-0\t0\t0\t0\n", &s), -EINVAL);
	assert_int_equal(parse_status_buf("Tgid:\t2147483647\nPPid:\t-0\nUid:\t-0\t0\t0\t0\n"
	                                  "voluntary_ctxt_switches:\t9007199254740992\n", &s), 0);
	assert_int_equal(s.ppid, 0);
	assert_int_equal(s.uid, 0);
	assert_int_equal(s.vol_switches, 9007199254740992ull);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sched_real),
		cmocka_unit_test(test_sched_key_exact),
		cmocka_unit_test(test_sched_missing_exec_start_einval),
		cmocka_unit_test(test_sched_hostile_numbers),
		cmocka_unit_test(test_sched_ranges),
		cmocka_unit_test(test_status_real),
		cmocka_unit_test(test_status_keys_exact),
		cmocka_unit_test(test_status_long_cpulist_truncated),
		cmocka_unit_test(test_status_missing_tgid_einval),
		cmocka_unit_test(test_status_hostile_numbers),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
