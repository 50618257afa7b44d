/* test-textgroup.c: one entry for many alike tasks and evidence lines (sink-textgroup.c,
 * sink-text.c), on the lines cgwatch writes for the seed 004 host and the other fixtures. */
#include "unit.h"

static void assert_grouped(const char *in, const char *want)
{
	char *got = lines_group(in);
	if (strcmp(got, want) != 0)
		print_error("got:\n%s\nwant:\n%s\n", got, want);
	assert_string_equal(got, want);
	free(got);
}

/* The seed 004 evidence of a 64-CPU host, four CPUs of it: the starved kworkers and the
 * spinners become one line each; the other lines stay, in their order. */
static void test_seed004_evidence(void **state)
{
	(void)state;
	assert_grouped(
		"PID 1 (systemd) has waited 122.4 s on its way back from a cpuset change "
		"(flush_migrate_mm_task_workfn) for the cpuset_migrate_mm workqueue\n"
		"PID 1183 (kworker/4:1-mm_percpu_wq), bound to CPU 4, is runnable but has not run "
		"for 122.7 s: the drain work queued there cannot run\n"
		"PID 1190 (kworker/5:1-mm_percpu_wq), bound to CPU 5, is runnable but has not run "
		"for 122.6 s: the drain work queued there cannot run\n"
		"PID 1197 (kworker/6:1-mm_percpu_wq), bound to CPU 6, is runnable but has not run "
		"for 122.5 s: the drain work queued there cannot run\n"
		"PID 1302 (kworker/36:1-mm_percpu_wq), bound to CPU 36, is runnable but has not run "
		"for 122.5 s: the drain work queued there cannot run\n"
		"CPU 4: 5031 (repro_worker) SCHED_FIFO/80 is runnable there (last ran 0.0 s ago): a "
		"real-time task keeps lower-priority tasks off this CPU\n"
		"CPU 5: 5032 (repro_worker) SCHED_FIFO/80 is runnable there (last ran 0.0 s ago): a "
		"real-time task keeps lower-priority tasks off this CPU\n"
		"CPU 6: 5033 (repro_worker) SCHED_FIFO/80 is runnable there (last ran 0.1 s ago): a "
		"real-time task keeps lower-priority tasks off this CPU\n"
		"CPU 36: 5063 (repro_worker) SCHED_FIFO/80 is runnable there (last ran 0.0 s ago): a "
		"real-time task keeps lower-priority tasks off this CPU\n"
		"CPUs 4-6,36 are isolated (not housekeeping: isolcpus=, nohz_full= or an isolated "
		"cpuset partition): nothing moves their work elsewhere\n",

		"PID 1 (systemd) has waited 122.4 s on its way back from a cpuset change "
		"(flush_migrate_mm_task_workfn) for the cpuset_migrate_mm workqueue\n"
		"x4 PIDs 1183,1190,1197,1302 (kworker/N:1-mm_percpu_wq), bound to CPUs 4-6,36, is "
		"runnable but has not run for 122.5-122.7 s: the drain work queued there cannot run\n"
		"x4 CPUs 4-6,36: 5031-5033,5063 (repro_worker) SCHED_FIFO/80 is runnable there (last "
		"ran 0.0-0.1 s ago): a real-time task keeps lower-priority tasks off this CPU\n"
		"CPUs 4-6,36 are isolated (not housekeeping: isolcpus=, nohz_full= or an isolated "
		"cpuset partition): nothing moves their work elsewhere\n");
}

/* 149 starved kworkers of the 192-CPU host (isolated 18-95,108-178): one line whatever the
 * count, the ids cut to a count. */
static void test_many_lines_one(void **state)
{
	(void)state;
	struct strbuf in = { 0 };
	for (int cpu = 0; cpu < 192; cpu++) {
		if (cpu < 18 || (cpu > 95 && cpu < 108) || cpu > 178)
			continue;
		sb_printf(&in, "PID %d (kworker/%d:1-mm_percpu_wq), bound to CPU %d, is runnable but "
		          "has not run for %.1f s: the drain work queued there cannot run\n",
		          1100 + 7 * cpu, cpu, cpu, 122.5 + (cpu % 3) * 0.1);
	}
	assert_grouped(in.s,
		"x149 PIDs 1226,1233,1240,1247,1254,1261,1268,1275 and 141 more "
		"(kworker/N:1-mm_percpu_wq), bound to CPUs 18-95,108-178, is runnable but has not "
		"run for 122.5-122.7 s: the drain work queued there cannot run\n");
	sb_free(&in);
}

/* Ids in /proc paths become PID and TID, the list goes to the end; numbers that are not
 * ids or CPUs: decimals as a range, whole numbers as N. */
static void test_proc_paths(void **state)
{
	(void)state;
	assert_grouped(
		"/proc/96532/task/96540: stat_reader is runnable (R) on CPU 77 but has not run for "
		"13.8 s (se.exec_start 5201003.118 ms, now 5214803.118 ms); allowed CPUs 0-447\n"
		"/proc/96532/task/96540/stack: css_rstat_flush <- memcg1_stat_format <- memory_stat_show\n"
		"/proc/96532/task/96541: stat_reader is runnable (R) on CPU 300 but has not run for "
		"12.6 s (se.exec_start 5202203.118 ms, now 5214803.118 ms); allowed CPUs 0-447\n"
		"/proc/96532/task/96541/stack: css_rstat_flush <- memcg1_stat_format <- memory_stat_show\n"
		"/proc/5187/task/5187/stack: percpu_rwsem_wait <- cgroup_can_fork <- copy_process\n"
		"/proc/5190/task/5190/stack: percpu_rwsem_wait <- cgroup_can_fork <- copy_process\n",

		"x2 /proc/96532/task/TID: stat_reader is runnable (R) on CPUs 77,300 but has not run "
		"for 12.6-13.8 s (se.exec_start 5201003.118-5202203.118 ms, now 5214803.118 ms); "
		"allowed CPUs 0-447 (TIDs 96540-96541)\n"
		"x2 /proc/96532/task/TID/stack: css_rstat_flush <- memcg1_stat_format <- "
		"memory_stat_show (TIDs 96540-96541)\n"
		"x2 /proc/PID/task/TID/stack: percpu_rwsem_wait <- cgroup_can_fork <- copy_process "
		"(TIDs 5187,5190)\n");
}

/* The kernel's own lines: "task COMM:PID" (a kworker's name holds ':' too), sequence numbers
 * as N, pools as N, their cpus= lists merged. */
static void test_kmsg_lines(void **state)
{
	(void)state;
	assert_grouped(
		"/dev/kmsg seq 1843: kernel: INFO: task kworker/u768:1:1765 blocked for more than 122 "
		"seconds (at 2212.3 s since boot)\n"
		"/dev/kmsg seq 1851: kernel: INFO: task kworker/u768:2:1766 blocked for more than 122 "
		"seconds (at 2212.4 s since boot)\n"
		"/dev/kmsg seq 1900: kernel: workqueue mm_percpu_wq, pool 36 (cpus=18): pending: "
		"lru_add_drain_per_cpu\n"
		"/dev/kmsg seq 1901: kernel: workqueue mm_percpu_wq, pool 38 (cpus=19): pending: "
		"lru_add_drain_per_cpu\n"
		"BAR(1765) on workqueue cpuset_migrate_mm, pool 0 (cpus=0-17): a flush barrier\n",

		"x2 /dev/kmsg seq N: kernel: INFO: task kworker/u768:N:1765-1766 blocked for more "
		"than 122 seconds (at 2212.3-2212.4 s since boot)\n"
		"x2 /dev/kmsg seq N: kernel: workqueue mm_percpu_wq, pool N (cpus=18-19): pending: "
		"lru_add_drain_per_cpu\n"
		"BAR(1765) on workqueue cpuset_migrate_mm, pool 0 (cpus=0-17): a flush barrier\n");
}

/* Lines that differ in their words stay apart; the same line twice is one with x2; a single
 * line is left exactly as it was (and an empty text gives an empty text). */
static void test_not_alike(void **state)
{
	(void)state;
	assert_grouped(
		"/proc/21877/task/21877: kworker/3:2+cgroup_free has been in D for 45.0 s\n"
		"/proc/412/task/412: kworker/5:1+cgroup_pidlist_destroy has been in D for 30.0 s\n"
		"trigger: a change of cpuset.mems\n"
		"trigger: a change of cpuset.mems\n"
		"CPU 3: no other runnable task seen there in this scan\n",

		"/proc/21877/task/21877: kworker/3:2+cgroup_free has been in D for 45.0 s\n"
		"/proc/412/task/412: kworker/5:1+cgroup_pidlist_destroy has been in D for 30.0 s\n"
		"x2 trigger: a change of cpuset.mems\n"
		"CPU 3: no other runnable task seen there in this scan\n");
	assert_grouped("", "");
	assert_grouped("a line without its newline", "a line without its newline\n");
	/* a priority that differs is a whole number: N, not a list */
	assert_grouped(
		"CPU 4: 5031 (spin) SCHED_FIFO/80 is runnable there\n"
		"CPU 5: 5032 (spin) SCHED_FIFO/50 is runnable there\n",
		"x2 CPUs 4-5: 5031-5032 (spin) SCHED_FIFO/N is runnable there\n");
	/* one CPU twice stays "CPU" */
	assert_grouped(
		"CPU 4: 5031 (spin) SCHED_FIFO/80 is runnable there\n"
		"CPU 4: 5040 (spin) SCHED_FIFO/80 is runnable there\n",
		"x2 CPU 4: 5031,5040 (spin) SCHED_FIFO/80 is runnable there\n");
}

static void test_idlist(void **state)
{
	(void)state;
	char out[256];
	long a[] = { 5033, 5031, 5032, 5063, 5031, 1 };
	assert_string_equal(idlist_format(a, ARRAY_SIZE(a), out, sizeof(out)),
	                    "1,5031-5033,5063");
	long b[] = { 4194304 };
	assert_string_equal(idlist_format(b, 1, out, sizeof(out)), "4194304");
	long c[20];
	for (size_t i = 0; i < ARRAY_SIZE(c); i++)
		c[i] = 100000 + 2 * (long)i;
	assert_string_equal(idlist_format(c, ARRAY_SIZE(c), out, sizeof(out)),
	                    "100000,100002,100004,100006,100008 and 15 more");
	assert_string_equal(idlist_format(NULL, 0, out, sizeof(out)), "");
}

/* Task names: digits that differ are N, the rest stays. */
static void test_names(void **state)
{
	(void)state;
	const char *k[] = { "kworker/18:1-mm_percpu_wq", "kworker/19:1-mm_percpu_wq",
	                    "kworker/108:1-mm_percpu_wq" };
	size_t len[] = { strlen(k[0]), strlen(k[1]), strlen(k[2]) };
	char *m = text_merge(k, len, 3, true);
	assert_string_equal(m, "kworker/N:1-mm_percpu_wq");
	free(m);
	assert_true(text_alike(k[0], len[0], k[2], len[2], true));
	assert_false(text_alike("kworker/18:1-mm_percpu_wq", 25, "kworker/108:1-events", 20, true));
	assert_false(text_alike("python3", 7, "python", 6, true));
	/* names mode: "CPU 5" in a name is not a CPU */
	const char *c[] = { "CPU 5 worker", "CPU 6 worker" };
	size_t clen[] = { 12, 12 };
	m = text_merge(c, clen, 2, true);
	assert_string_equal(m, "CPU N worker");
	free(m);
	const char *d[] = { "systemd", "sshd" };
	size_t dlen[] = { 7, 4 };
	m = text_merge(d, dlen, 2, true);
	assert_string_equal(m, "");              /* not alike */
	free(m);
}

/* ---- task entries of the text report ---- */

static const char KWORKER_STACK[] = "[<0>] worker_thread+0xa9/0x360\n[<0>] kthread+0xf7/0x130\n"
                                    "[<0>] ret_from_fork+0x195/0x2a0\n"
                                    "[<0>] ret_from_fork_asm+0x1a/0x30\n";

static size_t kworker(struct unit_scan *u, int pid, int cpu, double waited, const char *wq)
{
	char comm[64];
	int n = snprintf(comm, sizeof(comm), "kworker/%d:1-%s", cpu, wq);
	size_t i = us_task(u, pid, pid, comm, (size_t)n, waited);
	struct cgw_task *t = &u->scan.t[i];
	t->state = 'R';
	t->suspect = SUSPECT_STARVED;
	t->cpu = cpu;
	t->cgroup[0] = t->unit[0] = '\0';
	int nf = parse_stack_buf(KWORKER_STACK, &t->frames);
	assert_int_equal(nf, 4);
	t->nframes = (size_t)nf;
	t->marks = xcalloc(t->nframes, sizeof(bool));
	return i;
}

static void test_task_groups(void **state)
{
	(void)state;
	struct unit_scan u;
	us_init(&u);
	size_t idx[8];
	idx[0] = us_task(&u, 1, 1, "systemd", 7, 122.4);
	idx[1] = kworker(&u, 1183, 18, 122.7, "mm_percpu_wq");
	idx[2] = kworker(&u, 1190, 19, 122.6, "mm_percpu_wq");
	idx[3] = kworker(&u, 1302, 108, 122.5, "events");       /* another name: apart */
	idx[4] = kworker(&u, 1310, 109, 122.5, "mm_percpu_wq");
	u.scan.t[idx[4]].policy = 1;                             /* another policy: apart */
	idx[5] = kworker(&u, 1320, 110, 122.5, "mm_percpu_wq");
	idx[6] = us_task(&u, 7001, 7000, "java", 4, 30);         /* threads of two processes */
	idx[7] = us_task(&u, 8001, 8000, "java", 4, 30);
	struct cgw_task *a = &u.scan.t[idx[6]], *b = &u.scan.t[idx[7]];
	memcpy(b->unit, a->unit, sizeof(b->unit));        /* only the process differs */
	memcpy(b->cgroup, a->cgroup, sizeof(b->cgroup));
	size_t group[8];
	assert_int_equal(task_groups(u.scan.t, idx, 8, group), 6);
	size_t want[8] = { 0, 1, 1, 2, 3, 1, 4, 5 };
	for (size_t i = 0; i < 8; i++)
		assert_int_equal(group[i], want[i]);
	/* the same stack but one frame marked differently: apart */
	u.scan.t[idx[5]].marks[0] = true;
	assert_int_equal(task_groups(u.scan.t, idx, 8, group), 7);
	us_free(&u);
}

/* A finding of 56 starved kworkers prints one entry and one stack; --verbose all of them. */
static void test_report_entries(void **state)
{
	(void)state;
	struct cgw_sig sig = unit_sig("starved", "Runnable but not running",
	                              "The task is runnable but has not run.", SEV_WARNING);
	struct unit_scan u;
	us_init(&u);
	size_t idx[56], n = 0;
	for (int cpu = 4; cpu < 64; cpu++)
		if (cpu < 32 || cpu >= 36)
			idx[n++] = kworker(&u, 1000 + 7 * cpu, cpu, 211.9 - 0.1 * (cpu % 2),
			                   "mm_percpu_wq");
	assert_int_equal(n, 56);
	size_t k = us_finding(&u, &sig, SEV_WARNING, n, idx);
	struct cgw_finding *f = &u.rep.f[k];
	for (size_t i = 0; i < n; i++) {
		const struct cgw_task *t = &u.scan.t[idx[i]];
		sb_printf(&f->evidence, "PID %d (kworker/%d:1-mm_percpu_wq), bound to CPU %d, is "
		          "runnable but has not run for %.1f s\n", t->tid, t->cpu, t->cpu,
		          t->blocked_s);
	}
	struct errbuf e;
	report_text_finding(&u.rep, k, errbuf_open(&e));
	assert_err_has(&e, "\n  x56 PIDs 1028,1035,1042,1049,1056,1063,1070,1077 and 48 more "
	               "(kworker/N:1-mm_percpu_wq): runnable (R), not run for 211.8-211.9 s, "
	               "CPUs 4-31,36-63, SCHED_OTHER\n"
	               "       worker_thread+0xa9/0x360\n");
	assert_err_has(&e, "    - x56 PIDs 1028,1035,1042,1049,1056,1063,1070,1077 and 48 more "
	               "(kworker/N:1-mm_percpu_wq), bound to CPUs 4-31,36-63, is runnable but has "
	               "not run for 211.8-211.9 s\n");
	assert_int_equal(errbuf_lines(&e), 10);
	errbuf_close(&e);

	u.rep.verbose = true;
	report_text_finding(&u.rep, k, errbuf_open(&e));
	assert_err_has(&e, "\n  PID 1028 (kworker/4:1-mm_percpu_wq): runnable (R), not run "
	               "for 211.9 s, CPU 4, SCHED_OTHER\n");
	assert_err_has(&e, "    - PID 1441 (kworker/63:1-mm_percpu_wq), bound to CPU 63, is "
	               "runnable but has not run for 211.8 s\n");
	assert_int_equal(errbuf_lines(&e), 2 + 56 * 5 + 1 + 56 + 1);
	errbuf_close(&e);
	us_free(&u);
}

/* Times that are bounds stay bounds: exact and lower-bound tasks are separate entries, a
 * range of lower bounds reads "at least", unknown times give the oldest age. */
static void test_report_bounds(void **state)
{
	(void)state;
	struct cgw_sig sig = unit_sig("fuse-wait", "Waiting for a FUSE server", "s", SEV_WARNING);
	struct unit_scan u;
	us_init(&u);
	size_t idx[7];
	for (int i = 0; i < 7; i++) {
		idx[i] = us_task(&u, 4100 + i, 4100 + i, "stat", 4, 20.0 + i);
		struct cgw_task *t = &u.scan.t[idx[i]];
		if (i) {                             /* one service: only the process differs */
			memcpy(t->unit, u.scan.t[idx[0]].unit, sizeof(t->unit));
			memcpy(t->cgroup, u.scan.t[idx[0]].cgroup, sizeof(t->cgroup));
		}
		t->cpu = i % 2;
		t->age_s = 30.0 + i;
		t->bound = i < 3 ? BOUND_EXACT : i < 5 ? BOUND_LOWER : BOUND_UNKNOWN;
		if (t->bound == BOUND_UNKNOWN)
			t->blocked_s = 0;
	}
	size_t k = us_finding(&u, &sig, SEV_WARNING, 7, idx);
	struct errbuf e;
	report_text_finding(&u.rep, k, errbuf_open(&e));
	assert_err_has(&e, "\n  x3 PIDs 4100-4102 (stat): blocked (D) for 20.0-22.0 s, CPUs 0-1, "
	               "SCHED_OTHER, cgroup /system.slice/unit-4100.service, unit unit-4100.service\n");
	assert_err_has(&e, "\n  x2 PIDs 4103-4104 (stat): blocked (D) for at least 23.0-24.0 s, "
	               "CPUs 0-1, SCHED_OTHER,");
	assert_err_has(&e, "\n  x2 PIDs 4105-4106 (stat): blocked (D) for an unknown time (at most "
	               "36.0 s, their age), CPUs 0-1, SCHED_OTHER,");
	errbuf_close(&e);
	us_free(&u);
}


/* No memory at any point of grouping: lines_group and text_merge return NULL (nothing leaks),
 * idlist_format says the ids are not listed; with memory they group again. The text report
 * then shows the evidence ungrouped and the tasks as they are, never aborts. */
static void test_out_of_memory(void **state)
{
	(void)state;
	const char *in = "PID 1183 (kworker/4:1) is runnable on CPU 4\n"
	                 "PID 1190 (kworker/5:1) is runnable on CPU 5\n";
	const char *names[] = { "kworker/4:1", "kworker/5:1" };
	size_t lens[] = { 11, 11 };
	long ids[] = { 5, 3 };
	char out[64];
	cgw_fail_alloc_after = 0;
	assert_null(lines_group(in));
	cgw_fail_alloc_after = 0;
	assert_null(text_merge(names, lens, 2, true));
	cgw_fail_alloc_after = 0;
	assert_string_equal(idlist_format(ids, 2, out, sizeof(out)), "(2, not listed: out of memory)");
	int failed = 0;
	for (long k = 1; k < 40; k++) {
		cgw_fail_alloc_after = k;
		char *g = lines_group(in), *m = text_merge(names, lens, 2, true);
		cgw_fail_alloc_after = -1;
		failed += !g + !m;
		free(g);
		free(m);
	}
	assert_true(failed > 2);                  /* failures past the first allocation too */
	char *g = lines_group(in);
	assert_string_equal(g, "x2 PIDs 1183,1190 (kworker/N:1) is runnable on CPUs 4-5\n");
	free(g);

	struct cgw_sig sig = unit_sig("starved", "Runnable but not running", "Not run.", SEV_WARNING);
	struct unit_scan u;
	us_init(&u);
	size_t idx[2] = { kworker(&u, 1183, 4, 20.5, "mm_percpu_wq"),
	                  kworker(&u, 1190, 5, 20.4, "mm_percpu_wq") };
	size_t fk = us_finding(&u, &sig, SEV_WARNING, 2, idx);
	sb_printf(&u.rep.f[fk].evidence, "%s", in);
	int ungrouped = 0, grouped = 0;
	for (long k = 0; k < 80; k++) {
		struct errbuf e;
		FILE *f = errbuf_open(&e);
		cgw_fail_alloc_after = k;
		report_text_finding(&u.rep, fk, f);
		cgw_fail_alloc_after = -1;
		const char *t = errbuf_text(&e);
		if (!strstr(t, "out of memory"))
			assert_err_has(&e, "is runnable on CPU");
		ungrouped += strstr(t, "    - PID 1183 (kworker/4:1) is runnable on CPU 4\n") != NULL;
		grouped += strstr(t, "    - x2 PIDs 1183,1190") != NULL;
		errbuf_close(&e);
	}
	assert_true(ungrouped > 0);               /* the evidence as it is, not grouped */
	assert_true(grouped > 0);                 /* and with memory enough, grouped */
	us_free(&u);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_seed004_evidence),
		cmocka_unit_test(test_many_lines_one),
		cmocka_unit_test(test_proc_paths),
		cmocka_unit_test(test_kmsg_lines),
		cmocka_unit_test(test_not_alike),
		cmocka_unit_test(test_idlist),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_task_groups),
		cmocka_unit_test(test_report_entries),
		cmocka_unit_test(test_report_bounds),
		cmocka_unit_test(test_out_of_memory),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
