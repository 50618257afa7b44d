/* test-timerlat.c: the timerlat tracer's trace text (timerlat_parse) on real output: a
 * tracefs instance of Debian 12's 6.1.0-57-rt-amd64 kernel in a VM (timerlat on CPU 1,
 * osnoise events on, print_stack 5000), a SCHED_FIFO/99 task "spin" (PID 128) spinning 20 ms
 * and sleeping 1 ms on CPU 1; then hand-made lines for what that run did not show (a task in
 * the IRQ's worst latency, hostile names, other CPUs, lines cut short). */
#include "unit.h"

/* the trace's header and 3 activations (#106..#108), the stack saved with #108, #109's IRQ */
static const char real[] =
	"# tracer: timerlat\n"
	"#\n"
	"#                                _-------=> irqs-off\n"
	"#                               / _------=> need-resched\n"
	"#                              | / _-----=> need-resched-lazy\n"
	"#                              || / _----=> hardirq/softirq\n"
	"#                              ||| / _---=> preempt-depth\n"
	"#                              |||| / _--=> preempt-lazy-depth\n"
	"#                              ||||| / _-=> migrate-disable\n"
	"#                              |||||| /\n"
	"#                              |||||||             ACTIVATION\n"
	"#           TASK-PID      CPU# |||||||   TIMESTAMP    ID            CONTEXT                LATENCY\n"
	"#              | |         |   |||||||      |         |                  |                       |\n"
	"      timerlat/1-127     [001] .......    10.086753: #106   context thread timer_latency    279540 ns\n"
	"          <idle>-0       [001] dn.h2..    10.087081: irq_noise: local_timer:236 start 10.086947043 duration 128271 ns\n"
	"            spin-128     [001] d..h...    10.087583: #107   context    irq timer_latency    106400 ns\n"
	"            spin-128     [001] d..h1..    10.087669: irq_noise: local_timer:236 start 10.087570333 duration 93490 ns\n"
	"            spin-128     [001] d..h1..    10.091328: irq_noise: local_timer:236 start 10.091185797 duration 135412 ns\n"
	"            spin-128     [001] d..h1..    10.095243: irq_noise: local_timer:236 start 10.095116732 duration 115312 ns\n"
	"            spin-128     [001] d..h1..    10.099211: irq_noise: local_timer:236 start 10.099075237 duration 125297 ns\n"
	"            spin-128     [001] d..h1..    10.103526: irq_noise: local_timer:236 start 10.103366199 duration 147460 ns\n"
	"            spin-128     [001] d..h1..    10.107359: irq_noise: local_timer:236 start 10.107167210 duration 180649 ns\n"
	"            spin-128     [001] d...3..    10.107522: thread_noise:     spin:128 start 10.087578986 duration 19148979 ns\n"
	"      timerlat/1-127     [001] .......    10.107576: #107   context thread timer_latency  20098270 ns\n"
	"      timerlat/1-127     [001] ....1..    10.107589: <stack trace>\n"
	" => timerlat_irq\n"
	" => __hrtimer_run_queues\n"
	" => hrtimer_interrupt\n"
	" => __sysvec_apic_timer_interrupt\n"
	" => sysvec_apic_timer_interrupt\n"
	" => asm_sysvec_apic_timer_interrupt\n"
	" => read_hpet\n"
	" => ktime_get_ts64\n"
	" => posix_get_monotonic_timespec\n"
	" => __x64_sys_clock_gettime\n"
	" => do_syscall_64\n"
	" => entry_SYSCALL_64_after_hwframe\n"
	" => 0\n"
	" => 0\n"
	" => 0\n"
	" => 0\n"
	" => 0\n"
	" => 0\n"
	" => 0\n"
	" => 0\n"
	"          <idle>-0       [001] dn.h1..    10.108629: #108   context    irq timer_latency    149450 ns\n"
	"          <idle>-0       [001] dn.h2..    10.108692: irq_noise: local_timer:236 start 10.108585026 duration 102072 ns\n"
	"          <idle>-0       [001] d...3..    10.108720: thread_noise: swapper/1:0 start 10.108622682 duration 30676 ns\n"
	"            spin-128     [001] d..h1..    10.111163: irq_noise: local_timer:236 start 10.110995261 duration 162833 ns\n"
	"            spin-128     [001] d..h1..    10.115102: irq_noise: local_timer:236 start 10.114990412 duration 88733 ns\n"
	"            spin-128     [001] d..h1..    10.119124: irq_noise: local_timer:236 start 10.118983329 duration 128872 ns\n"
	"            spin-128     [001] d..h1..    10.123348: irq_noise: local_timer:236 start 10.123199019 duration 139639 ns\n"
	"            spin-128     [001] d...3..    10.128915: thread_noise:     spin:128 start 10.108720488 duration 19663385 ns\n"
	"      timerlat/1-127     [001] .......    10.128980: #108   context thread timer_latency  20502970 ns\n"
	"      timerlat/1-127     [001] ....1..    10.128994: <stack trace>\n"
	" => timerlat_irq\n"
	" => __hrtimer_run_queues\n"
	" => hrtimer_interrupt\n"
	" => __sysvec_apic_timer_interrupt\n"
	" => sysvec_apic_timer_interrupt\n"
	" => asm_sysvec_apic_timer_interrupt\n"
	" => native_safe_halt\n"
	" => amd_e400_idle\n"
	" => default_idle_call\n"
	" => do_idle\n"
	" => cpu_startup_entry\n"
	" => start_secondary\n"
	" => secondary_startup_64_no_verify\n"
	" => 0\n"
	" => 0\n"
	" => 0\n"
	" => 0\n"
	" => 0\n"
	" => 0\n"
	" => 0\n"
	" => 0\n"
	"          <idle>-0       [001] d..h1..    10.130047: #109   context    irq timer_latency    568460 ns\n"
	"          <idle>-0       [001] dn.h2..    10.130172: irq_noise: local_timer:236 start 10.129973405 duration 188201 ns\n"
	"          <idle>-0       [001] d...3..    10.130222: thread_noise: swapper/1:0 start 10.130041898 duration 57516 ns\n"
	"            spin-128     [001] d..h1..    10.131901: irq_noise: local_timer:236 start 10.131310040 duration 567917 ns\n";

/* Parse text into n CPUs (cleared first): the lines not understood must number want_bad. */
static void parse(const char *text, struct cgw_timerlat *tl, size_t n, size_t want_bad)
{
	memset(tl, 0, n * sizeof(*tl));
	size_t bad = 99;
	assert_int_equal(timerlat_parse(text, strlen(text), tl, n, &bad), 0);
	assert_int_equal(bad, want_bad);
}

static void test_timerlat_real(void **state)
{
	(void)state;
	struct cgw_timerlat tl[2];
	parse(real, tl, 2, 0);
	assert_false(tl[0].measured);
	const struct cgw_timerlat *t = &tl[1];
	assert_true(t->measured);
	assert_int_equal(t->samples, 3);                 /* #106, #107, #108 */
	assert_true(t->thread_max_us == 20502.97);        /* #108 */
	/* #108's IRQ came while CPU 1 was idle; then spin ran 19.66 ms before timerlat/1 did */
	assert_int_equal(t->thr_pid, 128);
	assert_string_equal(t->thr_comm, "spin");
	assert_true(t->thr_noise_us == 19663.385);
	/* the worst IRQ latency: #109's, 568.46 us, idle */
	assert_true(t->irq_max_us == 568.46);
	assert_int_equal(t->irq_pid, 0);
	/* the stack saved at #108's IRQ: what it interrupted (the tracer's frames, the IRQ entry
	 * and the empty slots left out) */
	assert_string_equal(t->stack, "native_safe_halt <- amd_e400_idle <- default_idle_call <- "
	                    "do_idle <- cpu_startup_entry <- start_secondary <- "
	                    "secondary_startup_64_no_verify");
}

/* The first run of that VM: thread_noise names the spinner by the name it had when it began
 * ("sh", before exec), the IRQ line by its current one: the current one is kept. */
static const char renamed[] =
	"            spin-117     [001] d..h...     6.069934: #40    context    irq timer_latency    271390 ns\n"
	"            spin-117     [001] dn.h1..     6.071319: irq_noise: local_timer:236 start 6.069510613 duration 1591765 ns\n"
	"            spin-117     [001] d...3..     6.071850: thread_noise:       sh:117 start 6.069632895 duration 635998 ns\n"
	"      timerlat/1-115     [001] .......     6.072473: #40    context thread timer_latency   2539130 ns\n";

static void test_timerlat_names(void **state)
{
	(void)state;
	struct cgw_timerlat tl[4];
	parse(renamed, tl, 4, 0);
	assert_int_equal(tl[1].samples, 1);
	assert_int_equal(tl[1].thr_pid, 117);
	assert_string_equal(tl[1].thr_comm, "spin");
	assert_int_equal(tl[1].irq_pid, 117);             /* the worst IRQ interrupted it */
	assert_string_equal(tl[1].irq_comm, "spin");
	assert_true(tl[1].irq_max_us == 271.39);
	assert_string_equal(tl[1].stack, "");
}

/* Hand-made: a task with blanks, '-' and a fake CPU field in its name; a thread sample with no
 * IRQ sample of the same activation (its IRQ was in the ring before the trace began: no
 * culprit); another CPU; CPUs past ncpu; malformed lines counted, not taken. */
static const char hostile[] =
	"# tracer: timerlat\n"
	"  a-1 [003] x-9     [002] d..h1..   100.000100: #5     context    irq timer_latency     900000 ns\n"
	"      timerlat/2-70      [002] .......   100.001000: #5     context thread timer_latency    950000 ns\n"
	"      timerlat/0-68      [000] .......   100.002000: #9     context thread timer_latency   3000000 ns\n"
	"      timerlat/7-75      [007] .......   100.003000: #1     context thread timer_latency   9000000 ns\n"
	"      timerlat/2-70      [002] .......   100.004000: #6     context thread timer_latency 12345678901234567890 ns\n"
	"      timerlat/2-70      [002] .......   100.005000: #7     context thread timer_latency\n"
	"      timerlat/2-70      [002] .......   100.006000: #8     context   soft timer_latency 5 ns\n"
	"garbage with no fields\n"
	" => orphan_frame\n"
	"CPU:2 [LOST 12 EVENTS]\n";

static void test_timerlat_hostile(void **state)
{
	(void)state;
	struct cgw_timerlat tl[3];
	parse(hostile, tl, 3, 1);                         /* "garbage ..." */
	/* CPU 2: the task is "a-1 [003] x" PID 9 */
	assert_true(tl[2].measured);
	assert_int_equal(tl[2].samples, 1);               /* #6 out of range, #7 cut, #8 no context */
	assert_int_equal(tl[2].irq_pid, 9);
	assert_string_equal(tl[2].irq_comm, "a-1 [003] x");
	assert_true(tl[2].thread_max_us == 950);
	assert_int_equal(tl[2].thr_pid, 9);
	/* CPU 0: a thread sample without its IRQ: no one named */
	assert_int_equal(tl[0].samples, 1);
	assert_true(tl[0].thread_max_us == 3000);
	assert_int_equal(tl[0].thr_pid, 0);
	assert_string_equal(tl[0].thr_comm, "");
	assert_string_equal(tl[0].stack, "");
	assert_false(tl[1].measured);
	/* nothing at all */
	parse("", tl, 3, 0);
	assert_false(tl[0].measured || tl[1].measured || tl[2].measured);
}

/* The restore file a timerlat run leaves for the next owner: only CPU lists and numbers are
 * taken (they are written to tracefs as root), each once. */
static void test_tlsave_parse(void **state)
{
	(void)state;
	struct tl_saved s;
	assert_int_equal(tlsave_parse("# cgwatch timerlat, PID 7: osnoise settings to put back\n"
	                              "cpus=0-3,5\ncpus_set=1\nprint_stack=0\n"
	                              "print_stack_set=1000\n", &s), 0);
	assert_string_equal(s.cpus, "0-3,5");
	assert_string_equal(s.cpus_set, "1");
	assert_string_equal(s.print_stack, "0");
	assert_string_equal(s.print_stack_set, "1000");
	assert_int_equal(tlsave_parse("cpus=1", &s), 0);            /* no newline, one of them */
	assert_string_equal(s.cpus, "1");
	assert_string_equal(s.print_stack, "");
	assert_int_equal(tlsave_parse("", &s), 0);
	assert_string_equal(s.cpus, "");
	static const char *const bad[] = {
		"cpus=\n", "cpus=0-1 \n", "cpus=all\n", "cpus=1\ncpus=2\n", "print_stack=-1\n",
		"print_stack=1,2\n", "tracing_on=1\n", "cpus\n", "cpus=0;reboot\n", "=1\n",
		"print_stack=123456789012345678901234567890123\n", "cpus_set=x\n",
		"print_stack_set=1\nprint_stack_set=2\n", "cpus_set\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		if (tlsave_parse(bad[i], &s) != -EINVAL)
			fail_msg("taken: \"%s\"", esc(bad[i]));
	}
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_timerlat_real),
		cmocka_unit_test(test_timerlat_names),
		cmocka_unit_test(test_timerlat_hostile),
		cmocka_unit_test(test_tlsave_parse),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
