/* test-trace.c: the flight recorder's parser of a tracefs `trace` text (parse-trace.c), on
 * lines captured on a 6.18 kernel (an instance with trace_clock mono: cgroup events of a
 * private v1 hierarchy, filtered workqueue events, the openat of a cpuset.mems write, a
 * marker, and the same with record-tgid), then the edges: LOST lines, comms with '-', ' [' and
 * spaces, no irq-info flags, lines that are not events, a window, no memory. */
#include "unit.h"

static const char captured[] =
	"# tracer: nop\n"
	"#\n"
	"# entries-in-buffer/entries-written: 71/71   #P:2\n"
	"#\n"
	"#                                _-----=> irqs-off/BH-disabled\n"
	"#                               / _----=> need-resched\n"
	"#                              | / _---=> hardirq/softirq\n"
	"#                              || / _--=> preempt-depth\n"
	"#                              ||| / _-=> migrate-disable\n"
	"#                              |||| /     delay\n"
	"#           TASK-PID     CPU#  |||||  TIMESTAMP  FUNCTION\n"
	"#              | |         |   |||||     |         |\n"
	"           mount-29305   [001] ..... 41688.757690: cgroup_setup_root: root=79 ss_mask=0x0 name=cgwcap10368\n"
	"           mkdir-29312   [000] d..1. 41688.787666: cgroup_mkdir: root=79 id=8 level=1 path=/c0\n"
	"              sh-29314   [000] d..1. 41688.791318: cgroup_attach_task: dst_root=79 dst_id=8 dst_level=1 dst_path=/c0 pid=29314 comm=sh\n"
	"           rmdir-29315   [000] d..1. 41688.793286: cgroup_rmdir: root=79 id=8 level=1 path=/c0\n"
	"            bash-29301   [000] ..... 41688.812963: sys_openat(dfd: 0xffffff9c, filename: 0x560be7fd4590, flags: 0x241, mode: 0x1b6)\n"
	"     kworker/0:2-30887   [000] d..1. 41688.824230: cgroup_rstat_locked: root=79 id=8 level=1 cpu=0 lock contended:0\n"
	"     kworker/0:2-30887   [000] d..1. 41688.844119: workqueue_queue_work: work struct=00000000464bcdb8 function=cgroup_pidlist_destroy_work_fn workqueue=cgroup_pidlist_destroy req_cpu=256 cpu=0\n"
	"     kworker/0:1-15971   [000] ..... 41688.844879: workqueue_execute_start: work struct 00000000464bcdb8: function cgroup_pidlist_destroy_work_fn\n"
	"          <idle>-0       [001] d.s2. 41689.108077: workqueue_queue_work: work struct=00000000d0245879 function=vmstat_update workqueue=mm_percpu_wq req_cpu=1 cpu=1\n"
	"            bash-29301   [000] ...1. 41690.019192: tracing_mark_write: cgw test marker\n"
	"           mkdir-29410   (  29410) [000] d..1. 41690.026017: cgroup_mkdir: root=79 id=23 level=1 path=/tg\n";

static void test_captured(void **state)
{
	(void)state;
	struct cgw_trace_events ev = { 0 };
	assert_int_equal(trace_parse(captured, strlen(captured), -1, &ev), 0);
	assert_int_equal(ev.n, 11);
	assert_int_equal(ev.bad, 0);
	assert_int_equal(ev.lost, 0);
	const struct cgw_trace_event *e = &ev.v[1];
	assert_string_equal(e->comm, "mkdir");
	assert_int_equal(e->pid, 29312);
	assert_int_equal(e->cpu, 0);
	assert_near(e->t, 41688.787666, 1e-7);
	assert_string_equal(e->name, "cgroup_mkdir");
	assert_string_equal(e->fields, "root=79 id=8 level=1 path=/c0");
	assert_string_equal(ev.v[0].name, "cgroup_setup_root");
	assert_int_equal(ev.v[0].cpu, 1);
	/* a syscall prints NAME(FIELDS) */
	e = &ev.v[4];
	assert_string_equal(e->name, "sys_openat");
	assert_string_equal(e->comm, "bash");
	assert_string_equal(e->fields, "dfd: 0xffffff9c, filename: 0x560be7fd4590, flags: 0x241, mode: 0x1b6");
	/* comms with '/' and ':', the idle task */
	assert_string_equal(ev.v[5].comm, "kworker/0:2");
	assert_int_equal(ev.v[5].pid, 30887);
	assert_string_equal(ev.v[5].fields, "root=79 id=8 level=1 cpu=0 lock contended:0");
	assert_string_equal(ev.v[7].name, "workqueue_execute_start");
	assert_string_equal(ev.v[7].fields, "work struct 00000000464bcdb8: function cgroup_pidlist_destroy_work_fn");
	assert_string_equal(ev.v[8].comm, "<idle>");
	assert_int_equal(ev.v[8].pid, 0);
	assert_string_equal(ev.v[9].fields, "cgw test marker");
	/* record-tgid: " (  TGID)" after the PID */
	e = &ev.v[10];
	assert_string_equal(e->comm, "mkdir");
	assert_int_equal(e->pid, 29410);
	assert_string_equal(e->fields, "root=79 id=23 level=1 path=/tg");
	for (size_t i = 1; i < ev.n; i++)
		assert_true(ev.v[i].t >= ev.v[i - 1].t);
	trace_events_free(&ev);
	assert_null(ev.v);
	assert_int_equal(ev.n, 0);
}

static void test_window(void **state)
{
	(void)state;
	struct cgw_trace_events ev = { 0 };
	assert_int_equal(trace_parse(captured, strlen(captured), 41688.844119, &ev), 0);
	assert_int_equal(ev.n, 5);                    /* from the pidlist work on */
	assert_int_equal(ev.older, 6);
	assert_string_equal(ev.v[0].name, "workqueue_queue_work");
	trace_events_free(&ev);
	/* a second text appends */
	assert_int_equal(trace_parse(captured, strlen(captured), 41690, &ev), 0);
	assert_int_equal(trace_parse(captured, strlen(captured), 41690, &ev), 0);
	assert_int_equal(ev.n, 4);
	trace_events_free(&ev);
}

static void test_edges(void **state)
{
	(void)state;
	static const char text[] =
		"CPU:1 [LOST 17 EVENTS]\n"
		"CPU:0 [LOST 3 EVENTS]\n"
		"##### CPU 1 buffer started ####\n"
		"\n"
		"   a [1] b-12    [001] ..... 5.000001: x: y=1\n"     /* comm "a [1] b" */
		"foo-bar-77 [002] ..... 5.000002: cgroup_rmdir: path=/a b\n"
		"mkdir-1 [000] 5.000003: cgroup_mkdir: \n"          /* no irq-info flags */
		"mkdir-1 [000] ..... 5: cgroup_mkdir: x\n"          /* no decimal time */
		"mkdir-x [000] ..... 5.1: cgroup_mkdir: x\n"        /* no PID */
		"mkdir-1 [000] ..... 5.1 cgroup_mkdir: x\n"         /* no ':' after the time */
		"mkdir-1 [000] ..... 5.1: cgroup mkdir: x\n"        /* not a name */
		"mkdir-1 [000] ..... 5.1: sys_openat(dfd: 0x1\n"    /* no ')' */
		"CPU:1 [LOST x EVENTS]\n"
		"garbage";
	struct cgw_trace_events ev = { 0 };
	assert_int_equal(trace_parse(text, strlen(text), -1, &ev), 0);
	assert_int_equal(ev.lost, 20);
	assert_int_equal(ev.n, 3);
	assert_int_equal(ev.bad, 7);
	assert_string_equal(ev.v[0].comm, "a [1] b");
	assert_int_equal(ev.v[0].pid, 12);
	assert_int_equal(ev.v[0].cpu, 1);
	assert_string_equal(ev.v[1].comm, "foo-bar");
	assert_int_equal(ev.v[1].pid, 77);
	assert_string_equal(ev.v[1].fields, "path=/a b");
	assert_string_equal(ev.v[2].name, "cgroup_mkdir");
	assert_string_equal(ev.v[2].fields, "");
	trace_events_free(&ev);
}

static void test_field(void **state)
{
	(void)state;
	size_t n;
	const char *f = "dst_root=79 dst_id=8 dst_level=1 dst_path=/c0 pid=29314 comm=sh";
	const char *v = trace_field(f, "pid", &n);
	assert_non_null(v);
	assert_int_equal(n, 5);
	assert_memory_equal(v, "29314", 5);
	assert_null(trace_field(f, "path", &n));          /* dst_path is another key */
	v = trace_field(f, "comm", &n);
	assert_int_equal(n, 2);
	v = trace_field("root=3 path=/a b c", "path", &n);
	assert_int_equal(n, 6);
	assert_memory_equal(v, "/a b c", 6 + 1);
	f = "work struct=00000000464bcdb8 function=cgroup_pidlist_destroy_work_fn workqueue=cgroup_pidlist_destroy req_cpu=256 cpu=0";
	v = trace_field(f, "workqueue", &n);
	assert_int_equal(n, strlen("cgroup_pidlist_destroy"));
	assert_memory_equal(v, "cgroup_pidlist_destroy", n);
	v = trace_field(f, "cpu", &n);
	assert_memory_equal(v, "0", 2);
	assert_null(trace_field(NULL, "x", &n));
	assert_null(trace_field(f, "", &n));
}

static void test_nomem(void **state)
{
	(void)state;
	struct cgw_trace_events ev = { 0 };
	cgw_fail_alloc_after = 3;
	int r = trace_parse(captured, strlen(captured), -1, &ev);
	cgw_fail_alloc_after = -1;
	assert_int_equal(r, -ENOMEM);
	assert_true(ev.n < 11);
	for (size_t i = 0; i < ev.n; i++)
		assert_non_null(ev.v[i].fields);
	trace_events_free(&ev);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_captured),
		cmocka_unit_test(test_window),
		cmocka_unit_test(test_edges),
		cmocka_unit_test(test_field),
		cmocka_unit_test(test_nomem),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
