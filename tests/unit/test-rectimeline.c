/* test-rectimeline.c: the flight recorder's timeline sentences (diagnose-recorder.c), told
 * from the first blocked task's moment, on a readout built from lines as a 6.18 kernel prints
 * them (a churn burst of a private v1 hierarchy, a cpuset.mems open for writing, a hotplug
 * step, the kernel's own hung-task report, filtered work); the anchor from a report; and the
 * readout's bundle file (trace_window_format) read back the same (trace_window_parse). */
#include "unit.h"

/* anchor at 1000.0 (PID 1 blocked); read at 1040.0 */
static void churn(struct strbuf *b, int n, double from, double step)
{
	for (int i = 0; i < n; i++)
		sb_printf(b, "           rmdir-%-7d [001] d..1. %.6f: cgroup_rmdir: root=79 id=%d "
		          "level=1 path=/c%d\n", 3000 + i, from + step * i, 8 + i, i);
}

static void readout(struct cgw_recwin *w, const char *text, size_t len)
{
	memset(w, 0, sizeof(*w));
	assert_int_equal(trace_parse(text, len, -1, &w->ev), 0);
	w->read_at = 1040.0;
	w->window_s = 300;
	w->have_anchor = true;
	w->anchor_t = 1000.0;
	snprintf(w->anchor, sizeof(w->anchor), "PID 1 blocked");
}

static const struct rec_line *find(const struct rec_line *l, size_t n, const char *sub)
{
	for (size_t i = 0; i < n; i++)
		if (strstr(l[i].text, sub))
			return &l[i];
	return NULL;
}

static void test_sentences(void **state)
{
	(void)state;
	struct strbuf b = { 0 };
	sb_printf(&b, "           mkdir-2999    [000] d..1. 900.000000: cgroup_mkdir: root=79 id=7 "
	          "level=1 path=/old\n");
	churn(&b, 512, 980.0, 0.02);        /* 980.00 .. 990.22 */
	sb_printf(&b, "            bash-4242    [000] ..... 995.900000: sys_openat(dfd: "
	          "0xffffff9c, filename: 0x560be7fd4590, flags: 0x241, mode: 0x1b6)\n");
	sb_printf(&b, "            bash-4243    [000] ..... 996.000000: sys_openat(dfd: "
	          "0xffffff9c, filename: 0x560be7fd4590, flags: 0x0, mode: 0x0)\n");
	sb_printf(&b, "             cpuhp/3-27   [003] ..... 998.000000: cpuhp_enter: cpu: 0003 "
	          "target:   0 step: 151 (sched_cpu_deactivate)\n");
	sb_printf(&b, "     kworker/0:2-30887   [000] d..1. 999.000000: workqueue_queue_work: work "
	          "struct=00000000464bcdb8 function=cpuset_migrate_mm_workfn "
	          "workqueue=cpuset_migrate_mm req_cpu=256 cpu=0\n");
	sb_printf(&b, "     kworker/0:2-30887   [000] d..1. 1001.000000: workqueue_queue_work: work "
	          "struct=00000000464bcdb9 function=cpuset_migrate_mm_workfn "
	          "workqueue=cpuset_migrate_mm req_cpu=256 cpu=0\n");
	sb_printf(&b, "     kworker/0:1-15971   [000] ..... 999.500000: workqueue_execute_start: "
	          "work struct 00000000464bcdb8: function lru_add_drain_per_cpu\n");
	sb_printf(&b, "      khungtaskd-60      [001] ..... 1030.000000: sched_process_hang: "
	          "comm=systemd pid=1\n");
	assert_false(b.lost);
	struct cgw_recwin w;
	readout(&w, b.s, b.len);
	struct rec_line l[32];
	size_t n = recorder_lines(&w, l, 32);
	for (size_t i = 0; i < n; i++)
		print_message("%+8.1f %-22s %s\n", l[i].at, l[i].kind, l[i].text);
	const struct rec_line *x;
	assert_non_null(x = find(l, n, "cpuset.mems opened for writing by PID 4242 (bash) 4.1 s "
	                          "before PID 1 blocked"));
	assert_string_equal(x->kind, "recorder rec-cpuset");
	assert_near(x->at, -4.1, 1e-6);
	assert_non_null(find(l, n, "cpuset.mems opened for reading by PID 4243 (bash) 4.0 s before"));
	assert_non_null(x = find(l, n, "512 cgroup rmdirs in the 30 s before PID 1 blocked (from "
	                          "20.0 s before to 9.8 s before)"));
	assert_near(x->at, -20.0, 1e-6);
	assert_string_equal(x->kind, "recorder rec-cgroup");
	/* one mkdir, outside the burst: the window's count */
	assert_non_null(find(l, n, "1 cgroup mkdir, 100.0 s before PID 1 blocked"));
	assert_non_null(find(l, n, "CPU hotplug, cpuhp_enter cpu: 0003 target: 0 step: 151 "
	                          "(sched_cpu_deactivate): 2.0 s before PID 1 blocked"));
	assert_non_null(find(l, n, "the kernel reported PID 1 (systemd) hung, 30.0 s after PID 1 "
	                          "blocked"));
	assert_non_null(find(l, n, "2 works queued on cpuset_migrate_mm (from 1.0 s before to "
	                          "1.0 s after PID 1 blocked)"));
	assert_non_null(find(l, n, "1 work started in lru_add_drain_per_cpu, 0.5 s before PID 1"));
	/* in time order: the churn before the write before the hotplug step */
	for (size_t i = 1; i < n; i++)
		assert_true(l[i - 1].t <= l[i].t);
	assert_true(find(l, n, "512 cgroup rmdirs") < find(l, n, "opened for writing"));
	/* a cap is kept */
	assert_int_equal(recorder_lines(&w, l, 3), 3);
	recwin_free(&w);
	sb_free(&b);
}

/* Bursts: the 30 s before the moment counted, the rest of the window named; more than 8
 * single events of a kind: the newest 8 and one line for those before them; no anchor: told
 * from the readout. */
static void test_bursts(void **state)
{
	(void)state;
	struct strbuf b = { 0 };
	churn(&b, 10, 900.0, 1.0);         /* outside the burst */
	churn(&b, 5, 990.0, 1.0);          /* 990..994: inside */
	for (int i = 0; i < 11; i++)
		sb_printf(&b, "            bash-%d    [000] ..... %d.000000: sys_openat(dfd: 0x1, "
		          "filename: 0x2, flags: 0x1, mode: 0x0)\n", 5000 + i, 960 + i);
	struct cgw_recwin w;
	readout(&w, b.s, b.len);
	struct rec_line l[32];
	size_t n = recorder_lines(&w, l, 32);
	for (size_t i = 0; i < n; i++)
		print_message("%+8.1f %s\n", l[i].at, l[i].text);
	assert_non_null(find(l, n, "5 cgroup rmdirs in the 30 s before PID 1 blocked (from 10.0 s "
	                          "before to 6.0 s before); 15 in the 300 s read"));
	assert_non_null(find(l, n, "3 more opens of cpuset.mems before those, the first 40.0 s "
	                          "before PID 1 blocked"));
	size_t opens = 0;
	for (size_t i = 0; i < n; i++)
		opens += strstr(l[i].text, "opened for writing by PID") != NULL;
	assert_int_equal(opens, 8);
	assert_null(find(l, n, "PID 5000 "));          /* the oldest: counted, not named */
	assert_non_null(find(l, n, "PID 5010 (bash) 30.0 s before"));
	w.have_anchor = false;
	n = recorder_lines(&w, l, 32);
	assert_non_null(find(l, n, "by PID 5010 (bash) 70.0 s before the readout"));
	assert_non_null(find(l, n, "15 cgroup rmdirs, from 140.0 s before to 46.0 s before the "
	                          "readout"));
	recwin_free(&w);
	sb_free(&b);
}

/* sched_switch on the recorded CPUs, lines as this 6.18 kernel printed them (a FIFO spinner,
 * sh, on CPU 1, preempted by rcu_preempt and a kworker; captured with the filter
 * CPU & CPUS{1}): the last switch on each CPU, the one that ran longest without one first. */
static const char switch_cpu1[] =
	"              sh-14367   [001] d..2. 49977.836068: sched_switch: prev_comm=sh prev_pid=14367 prev_prio=49 prev_state=R ==> next_comm=rcu_preempt next_pid=15 next_prio=120\n"
	"     rcu_preempt-15      [001] d..2. 49977.836087: sched_switch: prev_comm=rcu_preempt prev_pid=15 prev_prio=120 prev_state=I ==> next_comm=sh next_pid=14367 next_prio=49\n"
	"              sh-14367   [001] d..2. 49977.836480: sched_switch: prev_comm=sh prev_pid=14367 prev_prio=49 prev_state=R ==> next_comm=memfd:sealed-91 next_pid=32095 next_prio=120\n"
	" memfd:sealed-91-32095   [001] d..2. 49977.836520: sched_switch: prev_comm=memfd:sealed-91 prev_pid=32095 prev_prio=120 prev_state=S ==> next_comm=sh next_pid=14367 next_prio=49\n"
	"              sh-14367   [001] d..2. 49977.840096: sched_switch: prev_comm=sh prev_pid=14367 prev_prio=49 prev_state=R ==> next_comm=kworker/1:1 next_pid=1797 next_prio=120\n"
	"     kworker/1:1-1797    [001] d..2. 49977.840124: sched_switch: prev_comm=kworker/1:1 prev_pid=1797 prev_prio=120 prev_state=I ==> next_comm=sh next_pid=14367 next_prio=49\n"
	"              sh-14367   [001] d..2. 49977.844053: sched_switch: prev_comm=sh prev_pid=14367 prev_prio=49 prev_state=R ==> next_comm=rcu_preempt next_pid=15 next_prio=120\n"
	"     rcu_preempt-15      [001] d..2. 49977.844064: sched_switch: prev_comm=rcu_preempt prev_pid=15 prev_prio=120 prev_state=I ==> next_comm=sh next_pid=14367 next_prio=49\n"
	"              sh-14367   [001] d..2. 49977.852060: sched_switch: prev_comm=sh prev_pid=14367 prev_prio=49 prev_state=R ==> next_comm=rcu_preempt next_pid=15 next_prio=120\n"
	"     rcu_preempt-15      [001] d..2. 49977.852081: sched_switch: prev_comm=rcu_preempt prev_pid=15 prev_prio=120 prev_state=I ==> next_comm=sh next_pid=14367 next_prio=49\n";

static void test_switches(void **state)
{
	(void)state;
	struct strbuf b = { 0 };
	sb_printf(&b, "%s", switch_cpu1);
	/* CPU 3: the same kernel's lines, the CPU and times changed: it switched later */
	sb_printf(&b, "              sh-14367   [003] d..2. 50005.000000: sched_switch: prev_comm=sh "
	          "prev_pid=14367 prev_prio=49 prev_state=R ==> next_comm=memfd:sealed-91 "
	          "next_pid=32095 next_prio=120\n");
	struct cgw_recwin w;
	readout(&w, b.s, b.len);
	/* PID 1 blocked at 49980.0, read 30 s after CPU 1's last switch */
	w.anchor_t = 49980.0;
	w.read_at = 50007.852081;
	struct rec_line l[32];
	size_t n = recorder_lines(&w, l, 32);
	for (size_t i = 0; i < n; i++)
		print_message("%+8.1f %-22s %s\n", l[i].at, l[i].kind, l[i].text);
	const struct rec_line *x, *y;
	assert_non_null(x = find(l, n, "CPU 1: PID 14367 (sh) ran without a switch for the 30.0 s "
	                          "to the readout, from 2.1 s before PID 1 blocked (switched in "
	                          "from PID 15 (rcu_preempt), which left I); 10 switches on CPU 1 "
	                          "in the window"));
	assert_string_equal(x->kind, "recorder rec-switch");
	assert_near(x->at, 49977.852081 - 49980.0, 1e-6);
	assert_non_null(y = find(l, n, "CPU 3: PID 32095 (memfd:sealed-91) ran without a switch "
	                          "for the 2.9 s to the readout, from 25.0 s after PID 1 blocked "
	                          "(switched in from PID 14367 (sh), which left R); 1 switch on "
	                          "CPU 3 in the window"));
	assert_true(x < y);
	/* the older switches are counted, not told one by one */
	assert_null(find(l, n, "PID 1797"));
	/* a busy CPU's switches bounded per CPU: CPU 1 keeps its newest 3, CPU 3 its one */
	assert_int_equal(trace_events_keep_last_per_cpu(&w.ev, 3), 7);
	assert_int_equal(w.ev.n, 4);
	assert_int_equal(w.ev.v[0].cpu, 1);
	assert_near(w.ev.v[0].t, 49977.844064, 1e-6);
	assert_near(w.ev.v[2].t, 49977.852081, 1e-6);
	assert_int_equal(w.ev.v[3].cpu, 3);
	assert_int_equal(trace_events_keep_last_per_cpu(&w.ev, 3), 0);
	recwin_free(&w);
	sb_free(&b);

	/* 12 CPUs: the 8 that ran longest without a switch, then one for the others */
	struct strbuf c = { 0 };
	for (int cpu = 0; cpu < 12; cpu++)
		sb_printf(&c, "            spin-%d    [%03d] d..2. %d.500000: sched_switch: "
		          "prev_comm=swapper/%d prev_pid=0 prev_prio=120 prev_state=R ==> "
		          "next_comm=spin next_pid=%d next_prio=120\n", 900 + cpu, cpu, 990 + cpu,
		          cpu, 900 + cpu);
	readout(&w, c.s, c.len);
	n = recorder_lines(&w, l, 32);
	size_t told = 0;
	for (size_t i = 0; i < n; i++)
		told += strstr(l[i].text, "ran without a switch") != NULL;
	assert_int_equal(told, 8);
	assert_non_null(find(l, n, "CPU 0: PID 900 (spin) ran without a switch for the 49.5 s"));
	assert_null(find(l, n, "CPU 11: PID 911"));
	assert_non_null(x = find(l, n, "4 more CPUs switched later, the last of them 1.5 s "
	                          "after PID 1 blocked"));
	assert_string_equal(x->kind, "recorder rec-switch");
	recwin_free(&w);
	sb_free(&c);
}

/* The anchor: the first finding's longest-blocked task, read_at less its time. */
static void test_anchor(void **state)
{
	(void)state;
	struct cgw_task t[2] = { 0 };
	t[0].tid = t[0].tgid = 77;
	t[0].state = 'D';
	t[0].blocked_s = 42.5;
	t[1].tid = 78;
	t[1].tgid = 77;
	t[1].state = 'R';
	t[1].blocked_s = 12;
	struct cgw_scan s = { 0 };
	s.t = t;
	s.n = 2;
	size_t idx0[] = { 0 }, idx1[] = { 1 };
	struct cgw_finding f[2] = { 0 };
	f[0].tasks = idx0;
	f[0].ntasks = 1;
	f[1].tasks = idx1;
	f[1].ntasks = 1;
	struct cgw_report r = { .scan = &s, .f = f, .nf = 2 };
	struct cgw_recwin w = { .read_at = 1000 };
	recorder_anchor(&w, &r, -1);
	assert_true(w.have_anchor);
	assert_near(w.anchor_t, 957.5, 1e-9);
	assert_string_equal(w.anchor, "PID 77 blocked");
	recorder_anchor(&w, &r, 1);
	assert_string_equal(w.anchor, "TID 78 last ran");
	assert_near(w.anchor_t, 988, 1e-9);
	r.nf = 0;
	recorder_anchor(&w, &r, -1);
	assert_false(w.have_anchor);
}

/* The bundle's file: what is written reads back as it was, syscall events included. */
static void test_window_file(void **state)
{
	(void)state;
	struct strbuf in = { 0 };
	churn(&in, 3, 990.0, 1.0);
	sb_printf(&in, "CPU:1 [LOST 17 EVENTS]\n");
	sb_printf(&in, "   my comm-x-9   [000] ..... 995.900000: sys_openat(dfd: 0xffffff9c, "
	          "filename: 0x5, flags: 0x241, mode: 0x1b6)\n");
	struct cgw_recwin w;
	readout(&w, in.s, in.len);
	w.dropped = 4;
	snprintf(w.enabled, sizeof(w.enabled), "cgroup:cgroup_mkdir cgroup:cgroup_rmdir");
	snprintf(w.missing, sizeof(w.missing), "cpuhp:cpuhp_enter (not in this kernel)");
	struct strbuf out = { 0 };
	trace_window_format(&w, &out);
	assert_false(out.lost);
	print_message("%s", out.s);
	struct cgw_recwin back;
	assert_int_equal(trace_window_parse(out.s, out.len, &back), 0);
	assert_int_equal(back.ev.n, w.ev.n);
	assert_int_equal(back.ev.lost, 17);
	assert_int_equal(back.ev.bad, 0);
	assert_int_equal(back.dropped, 4);
	assert_near(back.read_at, 1040.0, 1e-9);
	assert_near(back.window_s, 300, 1e-9);
	assert_string_equal(back.enabled, w.enabled);
	assert_string_equal(back.missing, w.missing);
	assert_false(back.have_anchor);
	for (size_t i = 0; i < w.ev.n; i++) {
		assert_string_equal(back.ev.v[i].comm, w.ev.v[i].comm);
		assert_string_equal(back.ev.v[i].name, w.ev.v[i].name);
		assert_string_equal(back.ev.v[i].fields, w.ev.v[i].fields);
		assert_int_equal(back.ev.v[i].pid, w.ev.v[i].pid);
		assert_int_equal(back.ev.v[i].call, w.ev.v[i].call);
		assert_near(back.ev.v[i].t, w.ev.v[i].t, 1e-6);
	}
	assert_true(back.ev.v[3].call);
	assert_string_equal(back.ev.v[3].comm, "my comm-x");
	recwin_free(&back);
	/* nothing recorded: why, read back */
	struct cgw_recwin off;
	memset(&off, 0, sizeof(off));
	snprintf(off.why, sizeof(off.why), "the flight recorder is off: no tracefs");
	sb_free(&out);
	trace_window_format(&off, &out);
	assert_int_equal(trace_window_parse(out.s, out.len, &back), 0);
	assert_string_equal(back.why, "the flight recorder is off: no tracefs");
	assert_int_equal(back.ev.n, 0);
	recwin_free(&back);
	/* not such a file */
	assert_int_equal(trace_window_parse("# tracer: nop\n", 14, &back), -EINVAL);
	recwin_free(&back);
	assert_int_equal(trace_window_parse("# cgwatch-recorder 1\n# window 3\n", 32, &back),
	                 -EINVAL);
	recwin_free(&back);
	/* the newest kept */
	assert_int_equal(trace_events_keep_last(&w.ev, 2), 2);
	assert_int_equal(w.ev.n, 2);
	assert_string_equal(w.ev.v[1].name, "sys_openat");
	assert_int_equal(trace_events_keep_last(&w.ev, 2), 0);
	recwin_free(&w);
	sb_free(&in);
	sb_free(&out);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sentences),
		cmocka_unit_test(test_bursts),
		cmocka_unit_test(test_switches),
		cmocka_unit_test(test_anchor),
		cmocka_unit_test(test_window_file),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
