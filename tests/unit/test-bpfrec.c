/* test-bpfrec.c: the task iterator's records (bpfrec_next, bpfrec_stat) and /proc/kallsyms
 * lines (kallsyms_line). */
#include "unit.h"
#include <linux/types.h>
#include "bpf/taskrec.h"

static struct taskrec rec(char state, int tid)
{
	struct taskrec r;
	memset(&r, 0, sizeof(r));
	r.magic = TASKREC_MAGIC;
	r.version = TASKREC_VERSION;
	r.kind = TASKREC_TASK;
	r.state = state;
	r.tid = tid;
	r.tgid = tid;
	r.ppid = 1;
	r.cpu = 1;
	r.policy = 1;
	r.rt_priority = 50;
	r.start_boottime = 44898ull * 10000000ull + 1234567ull;   /* 448.98 s after boot */
	r.exec_start = 99786458684ull;                             /* 99786.458684 ms */
	r.sum_exec_runtime = 12345678ull;
	r.nvcsw = 3;
	r.nivcsw = 4;
	memcpy(r.comm, "cgw_vf", 6);
	return r;
}

/* a D task with two frames, a leader in S, the end record: read in order, then the end */
static void test_sequence(void **state)
{
	(void)state;
	unsigned char buf[3 * TASKREC_SIZE + 16];
	struct taskrec d = rec('D', 5501), l = rec('S', 5500), e;
	d.rflags = TASKREC_HAVE_STACK;
	d.nframes = 2;
	d.cgroups = 0xffff888012345600ull;     /* its css_set: an identity, handed on as is */
	l.kind = TASKREC_LEADER;
	memset(&e, 0, sizeof(e));
	e.magic = TASKREC_MAGIC;
	e.version = TASKREC_VERSION;
	e.kind = TASKREC_END;
	e.threads = 7;
	e.tgid = 4242;                    /* the reader, as the kernel numbers it */
	uint64_t fr[2] = { 0xffffffff81234567ull, 0xffffffffc0001000ull };
	size_t n = 0;
	memcpy(buf + n, &d, sizeof(d)); n += sizeof(d);
	memcpy(buf + n, fr, sizeof(fr)); n += sizeof(fr);
	memcpy(buf + n, &l, sizeof(l)); n += sizeof(l);
	memcpy(buf + n, &e, sizeof(e)); n += sizeof(e);

	size_t off = 0;
	struct cgw_bpfrec r;
	assert_int_equal(bpfrec_next(buf, n, &off, &r), 1);
	assert_int_equal(r.kind, TASKREC_TASK);
	assert_int_equal(r.state, 'D');
	assert_int_equal(r.tid, 5501);
	assert_string_equal(r.comm, "cgw_vf");
	assert_int_equal(r.nframes, 2);
	assert_true(bpfrec_frame(&r, 0) == fr[0]);
	assert_true(r.cgroups == 0xffff888012345600ull);
	assert_true(bpfrec_frame(&r, 1) == fr[1]);
	assert_true(bpfrec_frame(&r, 2) == 0);
	assert_int_equal(bpfrec_next(buf, n, &off, &r), 1);
	assert_int_equal(r.kind, TASKREC_LEADER);
	assert_int_equal(r.state, 'S');
	assert_int_equal(bpfrec_next(buf, n, &off, &r), 1);
	assert_int_equal(r.kind, TASKREC_END);
	assert_int_equal(r.threads, 7);
	assert_int_equal(r.tgid, 4242);
	assert_int_equal(bpfrec_next(buf, n, &off, &r), 0);
	assert_int_equal(off, n);
}

/* a record cut short, or its frames cut short, is torn: refused, never read past the end */
static void test_torn(void **state)
{
	(void)state;
	struct taskrec d = rec('D', 9);
	d.rflags = TASKREC_HAVE_STACK;
	d.nframes = 3;
	unsigned char buf[TASKREC_SIZE + 16];
	memcpy(buf, &d, sizeof(d));
	memset(buf + TASKREC_SIZE, 0, 16);
	struct cgw_bpfrec r;
	size_t off = 0;
	assert_int_equal(bpfrec_next(buf, sizeof(buf), &off, &r), -EINVAL);   /* 2 of 3 frames */
	off = 0;
	assert_int_equal(bpfrec_next(buf, TASKREC_SIZE - 1, &off, &r), -EINVAL);
	assert_int_equal(off, 0);
}

/* not a record, or a value out of its range: refused */
static void test_refused(void **state)
{
	(void)state;
	struct { const char *what; struct taskrec r; int want; } c[13];
	size_t k = 0;
	c[k].what = "magic"; c[k].r = rec('D', 1); c[k].r.magic = 0; c[k++].want = -EINVAL;
	c[k].what = "version"; c[k].r = rec('D', 1); c[k].r.version = TASKREC_VERSION + 1; c[k++].want = -EINVAL;
	c[k].what = "kind"; c[k].r = rec('D', 1); c[k].r.kind = 9; c[k++].want = -EINVAL;
	c[k].what = "state"; c[k].r = rec('Q', 1); c[k++].want = -EINVAL;
	c[k].what = "tid 0"; c[k].r = rec('D', 0); c[k++].want = -ERANGE;
	c[k].what = "cpu"; c[k].r = rec('D', 1); c[k].r.cpu = CGW_MAX_CPUS; c[k++].want = -ERANGE;
	c[k].what = "rt_priority"; c[k].r = rec('D', 1); c[k].r.rt_priority = 100; c[k++].want = -ERANGE;
	c[k].what = "exec_start"; c[k].r = rec('D', 1); c[k].r.exec_start = ~0ull; c[k++].want = -ERANGE;
	c[k].what = "switches"; c[k].r = rec('D', 1); c[k].r.nvcsw = 1ull << 60; c[k++].want = -ERANGE;
	c[k].what = "frames"; c[k].r = rec('D', 1); c[k].r.rflags = TASKREC_HAVE_STACK;
	c[k].r.nframes = TASKREC_MAX_FRAMES + 1; c[k++].want = -EINVAL;
	c[k].what = "frames without stack"; c[k].r = rec('D', 1); c[k].r.nframes = 0;
	c[k].r.stack_err = -2; c[k++].want = -EINVAL;
	c[k].what = "ppid"; c[k].r = rec('D', 1); c[k].r.ppid = -1; c[k++].want = -ERANGE;
	c[k].what = "prev_sum"; c[k].r = rec('D', 1); c[k].r.prev_sum_exec_runtime = ~0ull >> 8;
	c[k++].want = -ERANGE;
	for (size_t i = 0; i < k; i++) {
		unsigned char buf[TASKREC_SIZE + TASKREC_MAX_FRAMES * 8 + 8];
		memset(buf, 0, sizeof(buf));
		memcpy(buf, &c[i].r, sizeof(c[i].r));
		size_t off = 0;
		struct cgw_bpfrec r;
		int got = bpfrec_next(buf, sizeof(buf), &off, &r);
		if (got != c[i].want)
			print_error("%s: got %d, want %d\n", c[i].what, got, c[i].want);
		assert_int_equal(got, c[i].want);
	}
}

/* the record as the /proc files give it: the same start ticks, and the same doubles as the
 * text parsers read from /proc/TID/sched */
static void test_as_proc(void **state)
{
	(void)state;
	struct taskrec d = rec('D', 5501);
	struct cgw_bpfrec r;
	size_t off = 0;
	assert_int_equal(bpfrec_next(&d, sizeof(d), &off, &r), 1);
	struct cgw_stat st;
	struct cgw_sched sc, text;
	bpfrec_stat(&r, 100, &st, &sc);
	assert_int_equal(st.tid, 5501);
	assert_int_equal(st.ppid, 1);
	assert_int_equal(st.state, 'D');
	assert_true(st.start_ticks == 44898);
	assert_int_equal(st.cpu, 1);
	assert_int_equal(st.rt_priority, 50);
	assert_int_equal(st.policy, 1);
	assert_string_equal(st.comm, "cgw_vf");
	assert_int_equal(parse_sched_buf("se.exec_start : 99786.458684\n"
	                                 "se.sum_exec_runtime : 12.345678\n"
	                                 "nr_switches : 7\n", &text), 0);
	assert_true(sc.exec_start_ms == text.exec_start_ms);
	assert_true(sc.sum_exec_ms == text.sum_exec_ms);
	assert_true(sc.nr_switches == text.nr_switches);
	assert_true(sc.have_exec_start && sc.have_switches);
	assert_false(sc.have_delay);              /* no sched_info in the record */
	/* with sched_info: run_delay and pcount, as /proc/TID/schedstat's wait and slices */
	d.rflags = TASKREC_HAVE_SCHED_INFO;
	d.run_delay = 54321;
	d.pcount = 12;
	off = 0;
	assert_int_equal(bpfrec_next(&d, sizeof(d), &off, &r), 1);
	bpfrec_stat(&r, 100, &st, &sc);
	assert_true(sc.have_delay && sc.run_delay_ns == 54321 && sc.pcount == 12);
	d.pcount = CGW_MAX_COUNT + 1;             /* past a count: refused */
	off = 0;
	assert_int_equal(bpfrec_next(&d, sizeof(d), &off, &r), -ERANGE);
}

/* off the CPU by the rq clock: it left when its last slice ended (last_arrival plus the CPU
 * time since it was picked), against the end record's now; nothing for a task that never
 * ran, a runnable one, or without sched_info */
static void test_off_cpu(void **state)
{
	(void)state;
	struct cgw_bpfrec r, end;
	memset(&r, 0, sizeof(r));
	memset(&end, 0, sizeof(end));
	r.state = 'D';
	r.rflags = TASKREC_HAVE_SCHED_INFO;
	r.last_arrival = 100000000000ull;           /* 100 s */
	r.prev_sum_exec_runtime = 5000000ull;
	r.sum_exec_runtime = 7000000ull;            /* ran 2 ms, left at 100.002 s */
	r.nvcsw = 1;
	end.last_arrival = 103502000000ull;         /* now 103.502 s */
	assert_near(bpfrec_off_cpu_s(&r, &end), 3.5, 1e-9);
	end.last_arrival = 100001000000ull;         /* before it left: 0, not negative */
	assert_near(bpfrec_off_cpu_s(&r, &end), 0, 1e-9);
	end.last_arrival = 103502000000ull;
	struct cgw_bpfrec x = r;
	x.state = 'R';
	assert_true(bpfrec_off_cpu_s(&x, &end) < 0);
	x = r;
	x.nvcsw = 0;
	assert_true(bpfrec_off_cpu_s(&x, &end) < 0);
	x = r;
	x.rflags = 0;
	assert_true(bpfrec_off_cpu_s(&x, &end) < 0);
	x = r;
	x.last_arrival = 0;
	assert_true(bpfrec_off_cpu_s(&x, &end) < 0);
}

/* runnable since: sched_info.last_queued (set when it was queued, cleared when it is picked)
 * against the end record's now; nothing for a task not runnable, running (0) or without
 * sched_info */
static void test_queued(void **state)
{
	(void)state;
	struct cgw_bpfrec r, end;
	memset(&r, 0, sizeof(r));
	memset(&end, 0, sizeof(end));
	r.state = 'R';
	r.rflags = TASKREC_HAVE_SCHED_INFO;
	r.last_arrival = 90000000000ull;            /* last ran at 90 s */
	r.last_queued = 99000000000ull;             /* queued at 99 s */
	end.last_arrival = 107600000000ull;         /* now 107.6 s */
	assert_near(bpfrec_queued_s(&r, &end), 8.6, 1e-9);
	end.last_arrival = 98000000000ull;          /* before it was queued: 0, not negative */
	assert_near(bpfrec_queued_s(&r, &end), 0, 1e-9);
	end.last_arrival = 107600000000ull;
	struct cgw_bpfrec x = r;
	x.state = 'D';
	assert_true(bpfrec_queued_s(&x, &end) < 0);
	x = r;
	x.last_queued = 0;                          /* on a CPU: not waiting */
	assert_true(bpfrec_queued_s(&x, &end) < 0);
	x = r;
	x.rflags = 0;
	assert_true(bpfrec_queued_s(&x, &end) < 0);
	struct cgw_bpfrec e = end;
	e.last_arrival = 0;
	assert_true(bpfrec_queued_s(&r, &e) < 0);
}

static void test_kallsyms(void **state)
{
	(void)state;
	struct cgw_ksym k;
	const char *l1 = "ffffffff81000000 T _stext\n";
	assert_int_equal(kallsyms_line(l1, strlen(l1), &k), 0);
	assert_true(k.addr == 0xffffffff81000000ull);
	assert_int_equal(k.type, 'T');
	assert_int_equal(k.name_len, 6);
	assert_memory_equal(k.name, "_stext", 6);
	assert_null(k.mod);
	const char *l2 = "ffffffffc0a01230 t fuse_dev_do_read\t[fuse]";
	assert_int_equal(kallsyms_line(l2, strlen(l2), &k), 0);
	assert_memory_equal(k.name, "fuse_dev_do_read", k.name_len);
	assert_int_equal(k.mod_len, 4);
	assert_memory_equal(k.mod, "fuse", 4);
	const char *bad[] = { "", "ffff", "zz T x\n", "ffffffff81000000 T\n",
	                      "ffffffff81000000 T x\t[fuse\n", "ffffffff81000000 T x\t[]\n",
	                      "11111111111111111 T x\n", "ffffffff81000000 T x junk\n" };
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		assert_int_equal(kallsyms_line(bad[i], strlen(bad[i]), &k), -EINVAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sequence),
		cmocka_unit_test(test_torn),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_as_proc),
		cmocka_unit_test(test_off_cpu),
		cmocka_unit_test(test_queued),
		cmocka_unit_test(test_kallsyms),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
