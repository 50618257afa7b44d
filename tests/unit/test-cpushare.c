/* test-cpushare.c: a thread's share of its CPU between two reads (cpushare.c), where the
 * kernel's accounting stands still (a lone SCHED_FIFO thread on a nohz_full CPU) and where it
 * does not. The numbers are the 6.1 VM's: schedstat read every 0.1 s gave 724 ms seven
 * times, then 1752 ms nine times (the residual 1 Hz tick). */
#include <math.h>

#include "unit.h"

#define EXEC0 2210437.518903     /* se.exec_start at the last accounting, ms on CPU 1's clock */

/* The spinner on CPU 1 at monotonic time t (ms): accounted at EXEC0 (724 ms) until the tick
 * at t = 700, which adds the 1028 ms since. */
static struct share_read spinner_at(double t)
{
	bool ticked = t >= 700;
	return (struct share_read){ .mono_ms = t, .sum_exec_ms = ticked ? 1752 : 724,
	                            .exec_start_ms = ticked ? EXEC0 + 1028 : EXEC0,
	                            .nr_switches = 3, .have_switches = true, .state = 'R', .cpu = 1,
	                            .policy = 1, .rt_priority = 50 };
}

/* The windows of the issue: 0.1 s between reads, none or one with the tick in it. The
 * accounted time reads 0 % (what the audit and check said); the CPU ran it throughout. */
static void test_nohz_full_spinner(void **state)
{
	(void)state;
	enum share_how how;
	struct share_read a = spinner_at(100), b = spinner_at(200);
	double old = (b.sum_exec_ms - a.sum_exec_ms) / (b.mono_ms - a.mono_ms);
	assert_true(old == 0);                               /* the bug: 0 % for a spinner */
	assert_true(share_on_cpu(&b, 1, 0));
	assert_true(cpu_share(&a, &b, true, &how) == 1);
	assert_int_equal(how, SHARE_RAN_THROUGHOUT);
	/* the tick inside the window: both grew by 1028 ms, it still ran throughout */
	a = spinner_at(650), b = spinner_at(750);
	assert_true(cpu_share(&a, &b, true, &how) == 1);
	assert_int_equal(how, SHARE_RAN_THROUGHOUT);
	/* a 0.25 s window (the audit's), and a whole second */
	a = spinner_at(0), b = spinner_at(250);
	assert_true(cpu_share(&a, &b, true, &how) == 1);
	a = spinner_at(0), b = spinner_at(1000);
	assert_true(cpu_share(&a, &b, true, &how) == 1);
	/* not the one its CPU runs: the accounted time, 0 */
	a = spinner_at(100), b = spinner_at(200);
	assert_true(cpu_share(&a, &b, false, &how) == 0);
	assert_int_equal(how, SHARE_ACCOUNTED);
	/* b not after a */
	assert_true(cpu_share(&b, &a, true, &how) == -1);
	assert_true(cpu_share(&a, &a, true, &how) == -1);
}

/* What is not "ran throughout": a switch, a move, sleep, or the CPU given in the window. */
static void test_not_throughout(void **state)
{
	(void)state;
	enum share_how how;
	struct share_read a = spinner_at(100), b = spinner_at(300);
	/* taken off the CPU once (the fair server ran the kworker): accounted, 150 ms of 200 */
	b.nr_switches++;
	b.sum_exec_ms = a.sum_exec_ms + 150;
	b.exec_start_ms = a.exec_start_ms + 200;
	assert_true(fabs(cpu_share(&a, &b, true, &how) - 0.75) < 1e-9);
	assert_int_equal(how, SHARE_ACCOUNTED);
	/* given the CPU in the window (exec_start moved, no time accounted): not throughout */
	b = spinner_at(300);
	b.exec_start_ms += 120;
	assert_true(cpu_share(&a, &b, true, &how) == 0);
	assert_int_equal(how, SHARE_ACCOUNTED);
	/* moved to another CPU, asleep at the second read, switches unknown */
	b = spinner_at(300);
	b.cpu = 0;
	assert_true(cpu_share(&a, &b, true, &how) == 0 && how == SHARE_ACCOUNTED);
	b = spinner_at(300);
	b.state = 'S';
	assert_true(cpu_share(&a, &b, true, &how) == 0 && how == SHARE_ACCOUNTED);
	b = spinner_at(300);
	b.have_switches = false;
	assert_true(cpu_share(&a, &b, true, &how) == 0 && how == SHARE_ACCOUNTED);
	/* exec_start 0: moved while queued (the kernel resets it) */
	a.exec_start_ms = 0;
	b = spinner_at(300);
	assert_true(cpu_share(&a, &b, true, &how) == 0 && how == SHARE_ACCOUNTED);
	/* a busy thread with its tick: accounted as it runs, 180 of 200 ms */
	a = spinner_at(100), b = spinner_at(300);
	b.nr_switches += 4;
	b.sum_exec_ms = a.sum_exec_ms + 180;
	b.exec_start_ms = a.exec_start_ms + 195;
	assert_true(fabs(cpu_share(&a, &b, true, &how) - 0.9) < 1e-9);
	/* sum_exec_runtime and exec_start in ms of 6 decimals, a year up: equal within 0.5 ms */
	a = spinner_at(100), b = spinner_at(300);
	a.exec_start_ms = 31536000000.123456;
	b.exec_start_ms = a.exec_start_ms + 10.000001;
	b.sum_exec_ms = a.sum_exec_ms + 10;
	assert_true(cpu_share(&a, &b, true, &how) == 1 && how == SHARE_RAN_THROUGHOUT);
}

/* Which thread the CPU runs, of those read there: the highest class, then the latest
 * exec_start; threads on other CPUs or not runnable do not count. */
static void test_on_cpu(void **state)
{
	(void)state;
	struct share_read v[6] = {
		spinner_at(200),                                      /* FIFO/50 on CPU 1 */
		spinner_at(200), spinner_at(200), spinner_at(200), spinner_at(200), spinner_at(200),
	};
	v[1].rt_priority = 10;                   /* a FIFO/10 below it, queued, accounted later */
	v[1].exec_start_ms = EXEC0 + 5000;
	v[2].policy = 0, v[2].rt_priority = 0;   /* a kworker starved there */
	v[2].exec_start_ms = EXEC0 - 9000;
	v[3].cpu = 0;                            /* elsewhere: a FIFO/90 on CPU 0 */
	v[3].rt_priority = 90;
	v[4].state = 'S';                        /* a FIFO/99 asleep on CPU 1 */
	v[4].rt_priority = 99;
	v[5].cpu = -1;                           /* unknown CPU */
	assert_true(share_on_cpu(v, 5, 0));
	assert_false(share_on_cpu(v, 5, 1));
	assert_false(share_on_cpu(v, 5, 2));
	assert_true(share_on_cpu(v, 5, 3));
	assert_false(share_on_cpu(v, 5, 4));
	assert_false(share_on_cpu(v, 6, 5));
	/* the same priority: the one given the CPU last runs */
	v[1].rt_priority = 50;
	assert_false(share_on_cpu(v, 5, 0));
	assert_true(share_on_cpu(v, 5, 1));
	/* a deadline task there (the fair server is not a task) outranks every real-time one */
	v[2].policy = 6;
	assert_true(share_on_cpu(v, 5, 2));
	assert_false(share_on_cpu(v, 5, 1));
	/* a runnable thread with exec_start 0 (moved while queued) never ran here */
	v[2].exec_start_ms = 0;
	assert_false(share_on_cpu(v, 5, 2));
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_nohz_full_spinner),
		cmocka_unit_test(test_not_throughout),
		cmocka_unit_test(test_on_cpu),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
