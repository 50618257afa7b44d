/* test-parse-stack.c: parse_stack_buf and frame_name on real kernel stacks. */
#include "unit.h"

/* cat /proc/self/stack (Linux 6.18) */
static const char stack_self[] =
	"[<0>] proc_pid_stack+0xb1/0x150\n"
	"[<0>] proc_single_show+0x51/0xe0\n"
	"[<0>] seq_read_iter+0x12f/0x490\n"
	"[<0>] seq_read+0xfb/0x140\n"
	"[<0>] vfs_read+0xbb/0x360\n"
	"[<0>] ksys_read+0x66/0xe0\n"
	"[<0>] do_syscall_64+0x71/0x280\n"
	"[<0>] entry_SYSCALL_64_after_hwframe+0x76/0x7e\n";

/* a vfork parent waiting for its child */
static const char stack_vfork[] =
	"[<0>] kernel_clone+0x1af/0x3e0\n"
	"[<0>] __do_sys_vfork+0x43/0x70\n"
	"[<0>] do_syscall_64+0x71/0x280\n"
	"[<0>] entry_SYSCALL_64_after_hwframe+0x76/0x7e\n";

/* stat() under an uninitialised FUSE mount (tests/live/bin/fusehold --child), with the
 * " [fuse]" suffix the kernel prints when fuse is a module (it is built in on this host) */
static const char stack_fuse[] =
	"[<0>] fuse_get_req+0x1ce/0x2b0 [fuse]\n"
	"[<0>] __fuse_simple_request+0x3a/0x330 [fuse]\n"
	"[<0>] fuse_lookup_name+0xbf/0x220 [fuse]\n"
	"[<0>] fuse_lookup+0x75/0x1b0 [fuse]\n"
	"[<0>] __lookup_slow+0x87/0x150\n"
	"[<0>] walk_component+0x108/0x190\n"
	"[<0>] path_lookupat+0xa7/0x180\n"
	"[<0>] filename_lookup+0xe4/0x200\n"
	"[<0>] vfs_statx+0x66/0x160\n"
	"[<0>] vfs_fstatat+0x67/0xb0\n"
	"[<0>] __do_sys_newfstatat+0x23/0x60\n"
	"[<0>] do_syscall_64+0x71/0x280\n"
	"[<0>] entry_SYSCALL_64_after_hwframe+0x76/0x7e\n";

/* seed 004: the Call Trace of the stuck kworker, as the console prints it between <TASK>
 * and </TASK> (the journal's "kernel: " prefix removed) */
static const char splat_kworker[] =
	" __schedule+0x2b2/0x630\n"
	" schedule+0x27/0x90\n"
	" schedule_timeout+0xcf/0x110\n"
	" wait_for_completion+0x7c/0x140\n"
	" __flush_work+0x7d/0xd0\n"
	" ? __pfx_wq_barrier_func+0x10/0x10\n"
	" flush_work+0x10/0x20\n"
	" __lru_add_drain_all+0x19c/0x2c0\n"
	" lru_cache_disable+0x1f/0x30\n"
	" do_migrate_pages+0x4e/0x2b0\n"
	" cpuset_migrate_mm_workfn+0x26/0x50\n"
	" process_one_work+0x1a2/0x380\n"
	" worker_thread+0x1b8/0x360\n"
	" ? _raw_spin_lock_irqsave+0xe/0x20\n"
	" ? __pfx_worker_thread+0x10/0x10\n"
	" kthread+0xf7/0x130\n"
	" ? __pfx_kthread+0x10/0x10\n"
	" ret_from_fork+0x195/0x2a0\n"
	" ? __pfx_kthread+0x10/0x10\n"
	" ? __pfx_kthread+0x10/0x10\n"
	" ret_from_fork_asm+0x1a/0x30\n";

/* seed 004: systemd (PID 1), with the journal's double space */
static const char splat_systemd[] =
	"  __schedule+0x2b2/0x630\n"
	"  schedule+0x27/0x90\n"
	"  schedule_timeout+0xcf/0x110\n"
	"  wait_for_completion+0x7c/0x140\n"
	"  __flush_workqueue+0x14e/0x430\n"
	"  ? raw_spin_rq_unlock+0x14/0x50\n"
	"  flush_migrate_mm_task_workfn+0x19/0x30\n"
	"  task_work_run+0x62/0x90\n"
	"  exit_to_user_mode_loop+0x14e/0x500\n"
	"  do_syscall_64+0x265/0x5a0\n"
	"  ? putname+0x41/0x90\n"
	"  ? do_sys_openat2+0x99/0xe0\n"
	"  ? __x64_sys_openat+0x5f/0xa0\n"
	"  ? __ct_user_enter+0x2c/0x110\n"
	"  ? do_syscall_64+0x21b/0x5a0\n"
	"  ? __ct_user_enter+0x2c/0x110\n"
	"  ? __ct_user_enter+0x2c/0x110\n"
	"  ? do_syscall_64+0x21b/0x5a0\n"
	"  ? __ct_user_enter+0x2c/0x110\n"
	"  ? irqentry_exit+0x17f/0x5a0\n"
	"  ? exc_page_fault+0x94/0x1e0\n"
	"  entry_SYSCALL_64_after_hwframe+0x76/0x7e\n";

struct stack_case {
	const char *what, *buf;
	int n;
	const char *const *names;
	const char *const *texts;     /* NULL: not checked */
};

static void check_stack(const struct stack_case *c)
{
	struct cgw_frame *f = (struct cgw_frame *)1;
	print_message("# case: %s\n", c->what);
	int n = parse_stack_buf(c->buf, &f);
	assert_int_equal(n, c->n);
	for (int i = 0; i < n; i++) {
		assert_string_equal(f[i].name, c->names[i]);
		if (c->texts)
			assert_string_equal(f[i].text, c->texts[i]);
	}
	frames_free(f, (size_t)n);
}

static void test_stack_proc_format(void **state)
{
	(void)state;
	static const char *const self_names[] = {
		"proc_pid_stack", "proc_single_show", "seq_read_iter", "seq_read", "vfs_read",
		"ksys_read", "do_syscall_64", "entry_SYSCALL_64_after_hwframe",
	};
	static const char *const self_texts[] = {
		"proc_pid_stack+0xb1/0x150", "proc_single_show+0x51/0xe0", "seq_read_iter+0x12f/0x490",
		"seq_read+0xfb/0x140", "vfs_read+0xbb/0x360", "ksys_read+0x66/0xe0",
		"do_syscall_64+0x71/0x280", "entry_SYSCALL_64_after_hwframe+0x76/0x7e",
	};
	static const char *const vfork_names[] = {
		"kernel_clone", "__do_sys_vfork", "do_syscall_64", "entry_SYSCALL_64_after_hwframe",
	};
	static const struct stack_case cases[] = {
		{ "self", stack_self, 8, self_names, self_texts },
		{ "vfork", stack_vfork, 4, vfork_names, NULL },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		check_stack(&cases[i]);
}

/* The module suffix stays in the text and leaves the name. */
static void test_stack_module_suffix(void **state)
{
	(void)state;
	static const char *const names[] = {
		"fuse_get_req", "__fuse_simple_request", "fuse_lookup_name", "fuse_lookup",
		"__lookup_slow", "walk_component", "path_lookupat", "filename_lookup", "vfs_statx",
		"vfs_fstatat", "__do_sys_newfstatat", "do_syscall_64", "entry_SYSCALL_64_after_hwframe",
	};
	static const char *const texts[] = {
		"fuse_get_req+0x1ce/0x2b0 [fuse]", "__fuse_simple_request+0x3a/0x330 [fuse]",
		"fuse_lookup_name+0xbf/0x220 [fuse]", "fuse_lookup+0x75/0x1b0 [fuse]",
		"__lookup_slow+0x87/0x150", "walk_component+0x108/0x190", "path_lookupat+0xa7/0x180",
		"filename_lookup+0xe4/0x200", "vfs_statx+0x66/0x160", "vfs_fstatat+0x67/0xb0",
		"__do_sys_newfstatat+0x23/0x60", "do_syscall_64+0x71/0x280",
		"entry_SYSCALL_64_after_hwframe+0x76/0x7e",
	};
	const struct stack_case c = { "fuse", stack_fuse, 13, names, texts };
	check_stack(&c);
}

/* Console splats: leading spaces, "? " frames (stale words found by the unwinder) dropped. */
static void test_stack_console_splat(void **state)
{
	(void)state;
	static const char *const kw[] = {
		"__schedule", "schedule", "schedule_timeout", "wait_for_completion", "__flush_work",
		"flush_work", "__lru_add_drain_all", "lru_cache_disable", "do_migrate_pages",
		"cpuset_migrate_mm_workfn", "process_one_work", "worker_thread", "kthread",
		"ret_from_fork", "ret_from_fork_asm",
	};
	static const char *const kw_texts[] = {
		"__schedule+0x2b2/0x630", "schedule+0x27/0x90", "schedule_timeout+0xcf/0x110",
		"wait_for_completion+0x7c/0x140", "__flush_work+0x7d/0xd0", "flush_work+0x10/0x20",
		"__lru_add_drain_all+0x19c/0x2c0", "lru_cache_disable+0x1f/0x30",
		"do_migrate_pages+0x4e/0x2b0", "cpuset_migrate_mm_workfn+0x26/0x50",
		"process_one_work+0x1a2/0x380", "worker_thread+0x1b8/0x360", "kthread+0xf7/0x130",
		"ret_from_fork+0x195/0x2a0", "ret_from_fork_asm+0x1a/0x30",
	};
	static const char *const sd[] = {
		"__schedule", "schedule", "schedule_timeout", "wait_for_completion",
		"__flush_workqueue", "flush_migrate_mm_task_workfn", "task_work_run",
		"exit_to_user_mode_loop", "do_syscall_64", "entry_SYSCALL_64_after_hwframe",
	};
	static const struct stack_case cases[] = {
		{ "seed 004 kworker", splat_kworker, 15, kw, kw_texts },
		{ "seed 004 systemd", splat_systemd, 10, sd, NULL },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		check_stack(&cases[i]);
}

/* A splat pasted whole has the <TASK> / </TASK> markers the x86 unwinder prints around
 * every Call Trace (since 5.16); they are not frames. */
static void test_stack_console_splat_task_markers(void **state)
{
	(void)state;
	static const char buf[] =
		" <TASK>\n"
		" __schedule+0x2b2/0x630\n"
		" schedule+0x27/0x90\n"
		" ? raw_spin_rq_unlock+0x14/0x50\n"
		" wait_for_completion+0x7c/0x140\n"
		" </TASK>\n";
	static const char *const names[] = { "__schedule", "schedule", "wait_for_completion" };
	const struct stack_case c = { "markers", buf, 3, names, NULL };
	check_stack(&c);
}

/* Older kernels print the address; CRLF and trailing blanks are tolerated. */
static void test_stack_variants(void **state)
{
	(void)state;
	static const char *const names[] = { "__flush_work", "flush_work", "__lru_add_drain_all" };
	static const char *const texts[] = {
		"__flush_work+0x7d/0xd0", "flush_work+0x10/0x20", "__lru_add_drain_all+0x19c/0x2c0",
	};
	static const struct stack_case cases[] = {
		{ "addresses", "[<ffffffff8137ecc0>] __flush_work+0x7d/0xd0\n"
		  "[<ffffffff8137f0d0>] flush_work+0x10/0x20\n"
		  "[<ffffffff81588a00>] __lru_add_drain_all+0x19c/0x2c0\n", 3, names, texts },
		{ "crlf and blanks", "[<0>] __flush_work+0x7d/0xd0\r\n"
		  "[<0>] flush_work+0x10/0x20  \r\n"
		  "\n"
		  "[<0>] __lru_add_drain_all+0x19c/0x2c0", 3, names, texts },
		{ "tabs", "\t__flush_work+0x7d/0xd0\n\tflush_work+0x10/0x20\n"
		  "\t? x+0x1/0x2\n\t__lru_add_drain_all+0x19c/0x2c0\n", 3, names, texts },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		check_stack(&cases[i]);
}

static void test_stack_empty_zero_frames(void **state)
{
	(void)state;
	static const char *const empty[] = { "", "\n", "\n\n", "   \n" };
	for (size_t i = 0; i < ARRAY_SIZE(empty); i++) {
		struct cgw_frame *f = (struct cgw_frame *)1;
		print_message("# empty[%zu]\n", i);
		assert_int_equal(parse_stack_buf(empty[i], &f), 0);
		assert_null(f);
		frames_free(f, 0);
	}
}

static void test_stack_garbage_einval(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"0xffffffff81234567\n",
		"[<0> __flush_work+0x7d/0xd0\n",                 /* no ']' */
		"[<0>] +0x7d/0xd0\n",                            /* no name */
		"[<0>] 123abc+0x1/0x2\n",
		"\x7f" "ELF\x02\x01\x01\n",
		"{\"stack\": []}\n",
		/* garbage after good frames: the good ones are freed, not returned */
		"[<0>] kernel_clone+0x1af/0x3e0\n[<0>] __do_sys_vfork+0x43/0x70\n-- cut --\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct cgw_frame *f = (struct cgw_frame *)1;
		print_message("# bad[%zu]\n", i);
		assert_int_equal(parse_stack_buf(bad[i], &f), -EINVAL);
		assert_null(f);
	}
}

/* Text that starts like an identifier but is no frame (an error message saved where a
 * stack was expected, a splat's header) must not become frames named "cat:" or "Call". */
static void test_stack_words_are_not_frames(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"cat: /proc/1/stack: Permission denied\n",
		"Call Trace:\n __schedule+0x2b2/0x630\n",
		"kernel:  __schedule+0x2b2/0x630\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct cgw_frame *f = NULL;
		print_message("# bad[%zu]\n", i);
		int n = parse_stack_buf(bad[i], &f);
		if (n > 0)
			print_error("frame 0: text \"%s\" name \"%s\"\n", f[0].text, f[0].name);
		if (n >= 0)
			frames_free(f, (size_t)n);
		assert_int_equal(n, -EINVAL);
	}
}

static void test_frame_name(void **state)
{
	(void)state;
	/* clone-suffixed names are real symbols of this kernel (/proc/kallsyms) */
	static const struct { const char *text, *name; } cases[] = {
		{ "__flush_work+0x7d/0xd0", "__flush_work" },
		{ "fuse_get_req+0x1ce/0x2b0 [fuse]", "fuse_get_req" },
		{ "__mutex_lock.constprop.0+0x4ec/0x9c0", "__mutex_lock" },
		{ "do_sigtimedwait.isra.0+0x51/0x1b0", "do_sigtimedwait" },
		{ "check_flush_dependency.part.0+0x12/0x90", "check_flush_dependency" },
		{ "cgroup_attach_lock.cold+0x5/0xf", "cgroup_attach_lock" },
		{ "trace_event_get_offsets_cgroup_migrate.isra.0.cold+0x5/0x22",
		  "trace_event_get_offsets_cgroup_migrate" },
		{ "nfs_wait_bit_killable.constprop.0+0x2a/0x90 [nfs]", "nfs_wait_bit_killable" },
		{ "schedule", "schedule" },
		{ "entry_SYSCALL_64_after_hwframe+0x76/0x7e", "entry_SYSCALL_64_after_hwframe" },
		{ "", "" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char out[128];
		memset(out, 'X', sizeof(out));
		print_message("# %s\n", esc(cases[i].text));
		assert_ptr_equal(frame_name(cases[i].text, out, sizeof(out)), out);
		assert_string_equal(out, cases[i].name);
	}
}

/* The result is cut to cap-1 bytes and NUL-terminated. */
static void test_frame_name_truncates(void **state)
{
	(void)state;
	char out[16];
	memset(out, 'X', sizeof(out));
	frame_name("__flush_work+0x7d/0xd0", out, 6);
	assert_string_equal(out, "__flu");
	assert_int_equal(out[6], 'X');
	frame_name("__flush_work+0x7d/0xd0", out, 1);
	assert_string_equal(out, "");
	frame_name("kthread+0xf7/0x130", out, 8);
	assert_string_equal(out, "kthread");
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_stack_proc_format),
		cmocka_unit_test(test_stack_module_suffix),
		cmocka_unit_test(test_stack_console_splat),
		cmocka_unit_test(test_stack_console_splat_task_markers),
		cmocka_unit_test(test_stack_variants),
		cmocka_unit_test(test_stack_empty_zero_frames),
		cmocka_unit_test(test_stack_garbage_einval),
		cmocka_unit_test(test_stack_words_are_not_frames),
		cmocka_unit_test(test_frame_name),
		cmocka_unit_test(test_frame_name_truncates),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
