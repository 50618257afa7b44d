/* test-sig.c: signature matching (sig_match, sig_best) and loading (sig_load_dir), against
 * real stacks and the format of docs/signatures.md. */
#include "unit.h"

#include <sys/stat.h>

/* ---- stacks ---- */

/* seed 004: the stuck kworker's Call Trace (console format, "? " words included) */
static const char st_kworker[] =
	" __schedule+0x2b2/0x630\n"                 /* 0 */
	" schedule+0x27/0x90\n"                     /* 1 */
	" schedule_timeout+0xcf/0x110\n"            /* 2 */
	" wait_for_completion+0x7c/0x140\n"         /* 3 */
	" __flush_work+0x7d/0xd0\n"                 /* 4 */
	" ? __pfx_wq_barrier_func+0x10/0x10\n"
	" flush_work+0x10/0x20\n"                   /* 5 */
	" __lru_add_drain_all+0x19c/0x2c0\n"        /* 6 */
	" lru_cache_disable+0x1f/0x30\n"            /* 7 */
	" do_migrate_pages+0x4e/0x2b0\n"            /* 8 */
	" cpuset_migrate_mm_workfn+0x26/0x50\n"     /* 9 */
	" process_one_work+0x1a2/0x380\n"           /* 10 */
	" worker_thread+0x1b8/0x360\n"              /* 11 */
	" ? _raw_spin_lock_irqsave+0xe/0x20\n"
	" ? __pfx_worker_thread+0x10/0x10\n"
	" kthread+0xf7/0x130\n"                     /* 12 */
	" ? __pfx_kthread+0x10/0x10\n"
	" ret_from_fork+0x195/0x2a0\n"              /* 13 */
	" ? __pfx_kthread+0x10/0x10\n"
	" ? __pfx_kthread+0x10/0x10\n"
	" ret_from_fork_asm+0x1a/0x30\n";           /* 14 */

/* seed 004: systemd (PID 1) */
static const char st_systemd[] =
	" __schedule+0x2b2/0x630\n"
	" schedule+0x27/0x90\n"
	" schedule_timeout+0xcf/0x110\n"
	" wait_for_completion+0x7c/0x140\n"
	" __flush_workqueue+0x14e/0x430\n"
	" ? raw_spin_rq_unlock+0x14/0x50\n"
	" flush_migrate_mm_task_workfn+0x19/0x30\n"
	" task_work_run+0x62/0x90\n"
	" exit_to_user_mode_loop+0x14e/0x500\n"
	" do_syscall_64+0x265/0x5a0\n"
	" ? putname+0x41/0x90\n"
	" entry_SYSCALL_64_after_hwframe+0x76/0x7e\n";

/* this host: stat() under an uninitialised FUSE mount */
static const char st_fuse[] =
	"[<0>] fuse_get_req+0x1ce/0x2b0\n"
	"[<0>] __fuse_simple_request+0x3a/0x330\n"
	"[<0>] fuse_lookup_name+0xbf/0x220\n"
	"[<0>] fuse_lookup+0x75/0x1b0\n"
	"[<0>] __lookup_slow+0x87/0x150\n"
	"[<0>] walk_component+0x108/0x190\n"
	"[<0>] path_lookupat+0xa7/0x180\n"
	"[<0>] filename_lookup+0xe4/0x200\n"
	"[<0>] vfs_statx+0x66/0x160\n"
	"[<0>] vfs_fstatat+0x67/0xb0\n"
	"[<0>] __do_sys_newfstatat+0x23/0x60\n"
	"[<0>] do_syscall_64+0x71/0x280\n"
	"[<0>] entry_SYSCALL_64_after_hwframe+0x76/0x7e\n";

/* this host: a vfork parent */
static const char st_vfork[] =
	"[<0>] kernel_clone+0x1af/0x3e0\n"
	"[<0>] __do_sys_vfork+0x43/0x70\n"
	"[<0>] do_syscall_64+0x71/0x280\n"
	"[<0>] entry_SYSCALL_64_after_hwframe+0x76/0x7e\n";

/* stat() on an NFS mount whose server does not answer (a typical /proc/TID/stack of an
 * NFSv4 client, modules as modules) */
static const char st_nfs[] =
	"[<0>] rpc_wait_bit_killable+0x1e/0xa0 [sunrpc]\n"
	"[<0>] __rpc_execute+0x127/0x480 [sunrpc]\n"
	"[<0>] rpc_execute+0x7e/0xc0 [sunrpc]\n"
	"[<0>] rpc_run_task+0x13b/0x180 [sunrpc]\n"
	"[<0>] nfs4_call_sync_sequence+0x64/0xa0 [nfsv4]\n"
	"[<0>] _nfs4_proc_getattr+0x12c/0x150 [nfsv4]\n"
	"[<0>] nfs4_proc_getattr+0x6f/0x110 [nfsv4]\n"
	"[<0>] __nfs_revalidate_inode+0x128/0x310 [nfs]\n"
	"[<0>] nfs_getattr+0x26f/0x3b0 [nfs]\n"
	"[<0>] vfs_statx+0x89/0x110\n";

/* the same without the nfs_ frames: only nfs4_ and __nfs_ ones */
static const char st_nfs4_only[] =
	"[<0>] rpc_wait_bit_killable+0x1e/0xa0 [sunrpc]\n"
	"[<0>] nfs4_call_sync_sequence+0x64/0xa0 [nfsv4]\n"
	"[<0>] __nfs_revalidate_inode+0x128/0x310 [nfs]\n"
	"[<0>] nfsd_dispatch+0x1/0x2 [nfsd]\n";

/* a cgroup_mutex waiter, written in /proc format with symbols of this kernel (not captured):
 * the clone suffix goes with the name */
static const char st_mutex[] =
	"[<0>] __mutex_lock.constprop.0+0x4ec/0x9c0\n"
	"[<0>] cgroup_kn_lock_live+0x4a/0xf0\n"
	"[<0>] cgroup_mkdir+0x2c/0x1f0\n"
	"[<0>] kernfs_iop_mkdir+0x5b/0x90\n"
	"[<0>] vfs_mkdir+0x1a5/0x270\n";

struct stk { struct cgw_frame *f; size_t n; };

static struct stk stk(const char *text)
{
	struct cgw_frame *f;
	int n = parse_stack_buf(text, &f);
	assert_true(n >= 0);
	return (struct stk){ f, (size_t)n };
}

static void stk_free(struct stk *s)
{
	frames_free(s->f, s->n);
}

/* ---- in-memory signatures ---- */

#define ALTS(...) ((char *[]){ __VA_ARGS__ })
#define PAT(...) { ALTS(__VA_ARGS__), sizeof(ALTS(__VA_ARGS__)) / sizeof(char *) }
#define PATS(...) ((struct cgw_pat[]){ __VA_ARGS__ }), \
	sizeof((struct cgw_pat[]){ __VA_ARGS__ }) / sizeof(struct cgw_pat)
#define NOPATS NULL, 0

static struct cgw_sig mksig(const char *id, int prio, const char *states,
                            struct cgw_pat *frames, size_t nframes,
                            struct cgw_pat *order, size_t norder,
                            struct cgw_pat *optional, size_t noptional)
{
	struct cgw_sig s;
	memset(&s, 0, sizeof(s));
	s.id = (char *)id;
	s.severity = SEV_WARNING;
	s.priority = prio;
	snprintf(s.states, sizeof(s.states), "%s", states);
	s.frames = frames;
	s.nframes = nframes;
	s.order = order;
	s.norder = norder;
	s.optional = optional;
	s.noptional = noptional;
	return s;
}

struct match_case {
	const char *what;
	const struct cgw_sig *sig;
	const char *stack;
	bool want;
};

static void check_matches(const struct match_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		struct stk s = stk(c[i].stack);
		print_message("# case: %s\n", c[i].what);
		assert_int_equal(sig_match(c[i].sig, s.f, s.n, NULL), c[i].want);
		stk_free(&s);
	}
}

/* Every frame group must appear, in any order; names compare whole. */
static void test_match_required_groups(void **state)
{
	(void)state;
	struct cgw_sig lru = mksig("lru", 50, "D",
		PATS(PAT("__lru_add_drain_all", "lru_add_drain_all", "lru_cache_disable")),
		NOPATS, NOPATS);
	struct cgw_sig cpuset = mksig("cpuset", 50, "D",
		PATS(PAT("__flush_workqueue", "flush_workqueue", "__flush_work", "flush_work"),
		     PAT("flush_migrate_mm_task_workfn", "cpuset_post_attach")),
		NOPATS, NOPATS);
	struct cgw_sig reversed = mksig("reversed", 50, "D",
		PATS(PAT("cpuset_migrate_mm_workfn"), PAT("__flush_work")), NOPATS, NOPATS);
	struct cgw_sig mixed = mksig("mixed", 50, "D",
		PATS(PAT("__flush_work"), PAT("flush_migrate_mm_task_workfn")), NOPATS, NOPATS);
	struct cgw_sig flush_work = mksig("flush_work", 50, "D", PATS(PAT("flush_work")),
		NOPATS, NOPATS);
	struct cgw_sig vfork = mksig("vfork", 50, "D", PATS(PAT("kernel_clone")), NOPATS, NOPATS);
	struct cgw_sig none = mksig("frozen", 50, "D", NOPATS, NOPATS, NOPATS);
	struct cgw_sig only_optional = mksig("opt", 50, "D", NOPATS, NOPATS,
		PATS(PAT("kernel_clone")));
	const struct match_case cases[] = {
		{ "lru on kworker", &lru, st_kworker, true },
		{ "lru on systemd", &lru, st_systemd, false },
		{ "cpuset on systemd", &cpuset, st_systemd, true },
		{ "cpuset on kworker (no flush_migrate_mm_task_workfn)", &cpuset, st_kworker, false },
		{ "groups in any order", &reversed, st_kworker, true },
		{ "one group of two missing (kworker)", &mixed, st_kworker, false },
		{ "one group of two missing (systemd)", &mixed, st_systemd, false },
		{ "flush_work is not __flush_work or __flush_workqueue", &flush_work, st_systemd, false },
		{ "flush_work on kworker", &flush_work, st_kworker, true },
		{ "vfork", &vfork, st_vfork, true },
		{ "vfork on fuse", &vfork, st_fuse, false },
		{ "no frame, no order: never by stack", &none, st_kworker, false },
		{ "optional alone never matches", &only_optional, st_vfork, false },
		{ "empty stack", &lru, "", false },
	};
	check_matches(cases, ARRAY_SIZE(cases));
}

/* `order` groups appear in this order, innermost first, not necessarily adjacent. */
static void test_match_order(void **state)
{
	(void)state;
	struct cgw_sig lru = mksig("lru", 50, "D", NOPATS,
		PATS(PAT("__flush_work", "flush_work", "__lru_add_drain_all"),
		     PAT("__lru_add_drain_all", "lru_add_drain_all", "lru_cache_disable")), NOPATS);
	struct cgw_sig backwards = mksig("backwards", 50, "D", NOPATS,
		PATS(PAT("__lru_add_drain_all"), PAT("__flush_work")), NOPATS);
	struct cgw_sig spread = mksig("spread", 50, "D", NOPATS,
		PATS(PAT("__flush_work"), PAT("cpuset_migrate_mm_workfn"), PAT("kthread")), NOPATS);
	struct cgw_sig sd = mksig("sd", 50, "D", NOPATS,
		PATS(PAT("wait_for_completion"), PAT("__flush_workqueue"), PAT("task_work_run")),
		NOPATS);
	/* two groups need two frames: there is one "schedule" */
	struct cgw_sig twice = mksig("twice", 50, "D", NOPATS,
		PATS(PAT("schedule"), PAT("schedule")), NOPATS);
	struct cgw_sig twice_alt = mksig("twice_alt", 50, "D", NOPATS,
		PATS(PAT("__schedule", "schedule"), PAT("__schedule", "schedule")), NOPATS);
	/* frames and order together: both must hold */
	struct cgw_sig both = mksig("both", 50, "D", PATS(PAT("do_migrate_pages")),
		PATS(PAT("__flush_work"), PAT("lru_cache_disable")), NOPATS);
	struct cgw_sig both_bad = mksig("both_bad", 50, "D", PATS(PAT("fuse_get_req")),
		PATS(PAT("__flush_work"), PAT("lru_cache_disable")), NOPATS);
	const struct match_case cases[] = {
		{ "lru order", &lru, st_kworker, true },
		{ "wrong order", &backwards, st_kworker, false },
		{ "three groups, far apart", &spread, st_kworker, true },
		{ "systemd chain", &sd, st_systemd, true },
		{ "systemd chain on kworker", &sd, st_kworker, false },
		{ "one frame cannot fill two groups", &twice, st_kworker, false },
		{ "two frames for two groups", &twice_alt, st_kworker, true },
		{ "frames and order", &both, st_kworker, true },
		{ "order holds, a frame group does not", &both_bad, st_kworker, false },
	};
	check_matches(cases, ARRAY_SIZE(cases));
}

/* An alternative ending in '*' is a prefix: nfs_* matches nfs_getattr, not nfs4_... */
static void test_match_prefix(void **state)
{
	(void)state;
	struct cgw_sig nfs = mksig("nfs", 50, "D", PATS(PAT("nfs_*")), NOPATS, NOPATS);
	struct cgw_sig fuse = mksig("fuse", 50, "D", PATS(PAT("fuse_*")), NOPATS, NOPATS);
	struct cgw_sig ufuse = mksig("__fuse", 50, "D", PATS(PAT("__fuse_*")), NOPATS, NOPATS);
	struct cgw_sig longer = mksig("longer", 50, "D", PATS(PAT("fuse_get_req_*")), NOPATS, NOPATS);
	struct cgw_sig rpc = mksig("rpc", 50, "D", PATS(PAT("nfs_*", "rpc_wait_bit_killable")),
		NOPATS, NOPATS);
	struct cgw_sig ord = mksig("ord", 50, "D", NOPATS, PATS(PAT("fuse_*"), PAT("vfs_*")), NOPATS);
	struct cgw_sig exact = mksig("exact", 50, "D", PATS(PAT("fuse_get")), NOPATS, NOPATS);
	const struct match_case cases[] = {
		{ "nfs_* on nfs", &nfs, st_nfs, true },
		{ "nfs_* on nfs4_/__nfs_/nfsd_ only", &nfs, st_nfs4_only, false },
		{ "nfs_* on fuse", &nfs, st_fuse, false },
		{ "fuse_* on fuse", &fuse, st_fuse, true },
		{ "fuse_* on kworker", &fuse, st_kworker, false },
		{ "__fuse_* on fuse", &ufuse, st_fuse, true },
		{ "a prefix longer than the name", &longer, st_fuse, false },
		{ "prefix or exact alternative", &rpc, st_nfs4_only, true },
		{ "prefixes in order", &ord, st_fuse, true },
		{ "no '*': no prefix", &exact, st_fuse, false },
	};
	check_matches(cases, ARRAY_SIZE(cases));
}

/* Frames compare by function name: offsets and clone suffixes are gone. */
static void test_match_by_name_not_text(void **state)
{
	(void)state;
	struct cgw_sig mutex = mksig("mutex", 50, "D",
		PATS(PAT("__mutex_lock", "mutex_lock"), PAT("cgroup_kn_lock_live")), NOPATS, NOPATS);
	struct cgw_sig text = mksig("text", 50, "D", PATS(PAT("__mutex_lock.constprop.0+0x4ec/0x9c0")),
		NOPATS, NOPATS);
	struct cgw_sig sunrpc = mksig("mod", 50, "D", PATS(PAT("sunrpc")), NOPATS, NOPATS);
	const struct match_case cases[] = {
		{ "__mutex_lock.constprop.0", &mutex, st_mutex, true },
		{ "the frame text is not the name", &text, st_mutex, false },
		{ "the module is not a frame", &sunrpc, st_nfs, false },
	};
	check_matches(cases, ARRAY_SIZE(cases));
}

/* marks: frames matched by required, ordered or optional groups. */
static void test_match_marks(void **state)
{
	(void)state;
	struct cgw_sig lru = mksig("lru", 90, "D",
		PATS(PAT("__lru_add_drain_all", "lru_add_drain_all", "lru_cache_disable")),
		PATS(PAT("__flush_work", "flush_work", "__lru_add_drain_all"),
		     PAT("__lru_add_drain_all", "lru_add_drain_all", "lru_cache_disable")),
		PATS(PAT("do_migrate_pages", "cpuset_migrate_mm_workfn", "offline_pages")));
	struct stk s = stk(st_kworker);
	assert_int_equal(s.n, 15);
	bool marks[15];
	memset(marks, 0x55, sizeof(marks));
	assert_true(sig_match(&lru, s.f, s.n, marks));
	static const bool want[15] = {
		false, false, false, false,          /* __schedule .. wait_for_completion */
		true, true, true, true,              /* __flush_work .. lru_cache_disable */
		true, true,                          /* optional: do_migrate_pages, cpuset_... */
		false, false, false, false, false,   /* process_one_work .. ret_from_fork_asm */
	};
	for (size_t i = 0; i < s.n; i++) {
		print_message("# %zu %s\n", i, s.f[i].name);
		assert_int_equal(marks[i], want[i]);
	}
	assert_true(sig_match(&lru, s.f, s.n, NULL));
	stk_free(&s);

	struct cgw_sig vf = mksig("vfork", 50, "D", PATS(PAT("kernel_clone")), NOPATS,
		PATS(PAT("__do_sys_vfork")));
	s = stk(st_vfork);
	bool m2[4];
	assert_true(sig_match(&vf, s.f, s.n, m2));
	assert_true(m2[0]);
	assert_true(m2[1]);
	assert_false(m2[2]);
	assert_false(m2[3]);
	stk_free(&s);
}

/* ---- sig_best ---- */

static const char *best_id(const struct cgw_sig *v, size_t n, char state, const char *stack)
{
	struct cgw_sigset set = { (struct cgw_sig *)v, n };
	struct stk s = stk(stack);
	const struct cgw_sig *b = sig_best(&set, state, s.f, s.n);
	stk_free(&s);
	return b ? b->id : "(none)";
}

/* The highest priority wins, wherever it sits in the set. */
static void test_best_priority(void **state)
{
	(void)state;
	struct cgw_sig wq = mksig("workqueue-flush", 50, "D",
		PATS(PAT("__flush_work", "flush_work", "__flush_workqueue")), NOPATS, NOPATS);
	struct cgw_sig lru = mksig("lru-drain-isolated", 90, "D",
		PATS(PAT("__lru_add_drain_all")), NOPATS, NOPATS);
	struct cgw_sig cpuset = mksig("cpuset-migrate-wait", 85, "D",
		PATS(PAT("__flush_workqueue"), PAT("flush_migrate_mm_task_workfn")), NOPATS, NOPATS);
	struct cgw_sig a[] = { wq, lru, cpuset }, b[] = { cpuset, lru, wq }, c[] = { lru, wq };
	assert_string_equal(best_id(a, 3, 'D', st_kworker), "lru-drain-isolated");
	assert_string_equal(best_id(b, 3, 'D', st_kworker), "lru-drain-isolated");
	assert_string_equal(best_id(a, 3, 'D', st_systemd), "cpuset-migrate-wait");
	assert_string_equal(best_id(b, 3, 'D', st_systemd), "cpuset-migrate-wait");
	assert_string_equal(best_id(c, 2, 'D', st_systemd), "workqueue-flush");
	assert_string_equal(best_id(c, 2, 'D', st_fuse), "(none)");
	assert_string_equal(best_id(c, 0, 'D', st_kworker), "(none)");
}

/* On a priority tie, the signature whose matched frames sit closest to the top wins. */
static void test_best_priority_tie_innermost(void **state)
{
	(void)state;
	struct cgw_sig outer = mksig("outer", 50, "D", PATS(PAT("cpuset_migrate_mm_workfn")),
		NOPATS, NOPATS);                                          /* frame 9 */
	struct cgw_sig inner = mksig("inner", 50, "D", PATS(PAT("__flush_work")),
		NOPATS, NOPATS);                                          /* frame 4 */
	struct cgw_sig ordered = mksig("ordered", 50, "D", NOPATS,
		PATS(PAT("__lru_add_drain_all"), PAT("lru_cache_disable")), NOPATS);  /* frame 6 */
	/* its innermost group is frame 3, even if listed second */
	struct cgw_sig multi = mksig("multi", 50, "D",
		PATS(PAT("kthread"), PAT("wait_for_completion")), NOPATS, NOPATS);
	struct cgw_sig a[] = { outer, inner }, b[] = { inner, outer };
	assert_string_equal(best_id(a, 2, 'D', st_kworker), "inner");
	assert_string_equal(best_id(b, 2, 'D', st_kworker), "inner");
	struct cgw_sig c[] = { outer, ordered }, d[] = { ordered, outer };
	assert_string_equal(best_id(c, 2, 'D', st_kworker), "ordered");
	assert_string_equal(best_id(d, 2, 'D', st_kworker), "ordered");
	struct cgw_sig e[] = { inner, ordered, multi }, f[] = { multi, ordered, inner };
	assert_string_equal(best_id(e, 3, 'D', st_kworker), "multi");
	assert_string_equal(best_id(f, 3, 'D', st_kworker), "multi");
	/* priority still beats position */
	struct cgw_sig outer_hi = mksig("outer_hi", 51, "D", PATS(PAT("ret_from_fork_asm")),
		NOPATS, NOPATS);
	struct cgw_sig g[] = { multi, inner, outer_hi };
	assert_string_equal(best_id(g, 3, 'D', st_kworker), "outer_hi");
}

/* Only signatures for the task's state are tried. */
static void test_best_states(void **state)
{
	(void)state;
	struct cgw_sig r = mksig("r-only", 99, "R", PATS(PAT("__flush_work")), NOPATS, NOPATS);
	struct cgw_sig d = mksig("d-only", 10, "D", PATS(PAT("__flush_work")), NOPATS, NOPATS);
	struct cgw_sig dr = mksig("d-and-r", 5, "DR", PATS(PAT("kthread")), NOPATS, NOPATS);
	struct cgw_sig v[] = { r, d, dr };
	assert_string_equal(best_id(v, 3, 'D', st_kworker), "d-only");
	assert_string_equal(best_id(v, 3, 'R', st_kworker), "r-only");
	assert_string_equal(best_id(v, 2, 'S', st_kworker), "(none)");
	assert_string_equal(best_id(v + 2, 1, 'R', st_kworker), "d-and-r");
	assert_string_equal(best_id(v + 2, 1, 'D', st_kworker), "d-and-r");
}

/* ---- sig_load_dir ---- */

static const char fuse_conf[] =
	"# conf/signatures.d/fuse.conf\n"                                          /* 1 */
	"[signature]\n"                                                            /* 2 */
	"id        = fuse-wait\n"                                                  /* 3 */
	"severity  = warning            ; info | warning | critical\n"             /* 4 */
	"priority  = 50\n"                                                         /* 5 */
	"states    = D R\n"                                                        /* 6 */
	"title     = Waiting for a FUSE server that does not answer\n"             /* 7 */
	"summary   = The task waits for a FUSE file system daemon to answer a request.\n"
	"explanation = The kernel passed a request to the user-space daemon serving a FUSE mount\n"
	"  and waits for the answer.\n"                                            /* 10 */
	"  Nothing else wakes it.\n"
	"correlator = kmsg\n"
	"\n"
	"[match]\n"
	"frame    = fuse_get_req|request_wait_answer|__fuse_simple_request|fuse_simple_request\n"
	"frame    = fuse_*\n"
	"order    = fuse_get_req|request_wait_answer, fuse_lookup_name|fuse_do_getattr\n"
	"optional = fuse_lookup|fuse_do_getattr\n"
	"optional = vfs_statx\n"
	"\n"                                                                       /* 20 */
	"[remedies]\n"
	"remedy = Find the process serving the mount.\n"
	"remedy = Abort the connection: echo 1 > /sys/fs/fuse/connections/N/abort\n"
	"  (N is the device minor of the mount).\n"
	"\n"
	"[references]\n"
	"reference = https://docs.kernel.org/filesystems/fuse.html\n";

static void check_pat(const struct cgw_pat *p, const char *const *alts, size_t n)
{
	assert_int_equal(p->n, n);
	for (size_t i = 0; i < n; i++)
		assert_string_equal(p->alt[i], alts[i]);
}

static void test_load_good_file(void **state)
{
	(void)state;
	char dir[64], path[128];
	tmpdir_make(dir, sizeof(dir));
	tmpdir_put(dir, "fuse.conf", fuse_conf);
	snprintf(path, sizeof(path), "%s/fuse.conf", dir);

	struct cgw_sigset set = { 0 };
	struct errbuf e;
	FILE *err = errbuf_open(&e);
	assert_int_equal(sig_load_dir(&set, dir, err), 0);
	assert_string_equal(errbuf_text(&e), "");
	assert_int_equal(set.n, 1);
	const struct cgw_sig *s = sig_find(&set, "fuse-wait");
	assert_non_null(s);
	assert_null(sig_find(&set, "fuse"));
	assert_string_equal(s->id, "fuse-wait");
	assert_int_equal(s->severity, SEV_WARNING);
	assert_int_equal(s->priority, 50);
	assert_string_equal(s->states, "DR");
	assert_string_equal(s->title, "Waiting for a FUSE server that does not answer");
	assert_string_equal(s->summary,
		"The task waits for a FUSE file system daemon to answer a request.");
	assert_string_equal(s->explanation, "The kernel passed a request to the user-space daemon "
		"serving a FUSE mount and waits for the answer. Nothing else wakes it.");
	assert_string_equal(s->correlator, "kmsg");
	assert_int_equal(s->nframes, 2);
	check_pat(&s->frames[0], (const char *[]){ "fuse_get_req", "request_wait_answer",
		"__fuse_simple_request", "fuse_simple_request" }, 4);
	check_pat(&s->frames[1], (const char *[]){ "fuse_*" }, 1);
	assert_int_equal(s->norder, 2);
	check_pat(&s->order[0], (const char *[]){ "fuse_get_req", "request_wait_answer" }, 2);
	check_pat(&s->order[1], (const char *[]){ "fuse_lookup_name", "fuse_do_getattr" }, 2);
	assert_int_equal(s->noptional, 2);
	check_pat(&s->optional[0], (const char *[]){ "fuse_lookup", "fuse_do_getattr" }, 2);
	check_pat(&s->optional[1], (const char *[]){ "vfs_statx" }, 1);
	assert_int_equal(s->nremedies, 2);
	assert_string_equal(s->remedies[0], "Find the process serving the mount.");
	assert_string_equal(s->remedies[1], "Abort the connection: echo 1 > "
		"/sys/fs/fuse/connections/N/abort (N is the device minor of the mount).");
	assert_int_equal(s->nreferences, 1);
	assert_string_equal(s->references[0], "https://docs.kernel.org/filesystems/fuse.html");
	assert_string_equal(s->file, path);
	assert_int_equal(s->line, 3);

	/* and it matches the real FUSE stack of this host, in D and in R, not in S */
	struct stk st = stk(st_fuse);
	bool marks[13];
	assert_true(sig_match(s, st.f, st.n, marks));
	assert_true(marks[0] && marks[1] && marks[2] && marks[3] && marks[8]);
	assert_false(marks[4] || marks[9] || marks[12]);
	assert_ptr_equal(sig_best(&set, 'D', st.f, st.n), s);
	assert_ptr_equal(sig_best(&set, 'R', st.f, st.n), s);
	assert_null(sig_best(&set, 'S', st.f, st.n));
	stk_free(&st);

	errbuf_close(&e);
	sig_free(&set);
	assert_int_equal(set.n, 0);
	tmpdir_remove(dir);
}

/* Defaults of a minimal signature: states D, priority 0, correlator none. A builtin id
 * (frozen, unknown, starved) needs no [match]. */
static void test_load_minimal_and_builtin(void **state)
{
	(void)state;
	char dir[64];
	tmpdir_make(dir, sizeof(dir));
	tmpdir_put(dir, "min.conf",
		"[signature]\nid = io-wait\nseverity = info\ntitle = T\nsummary = S\n"
		"[match]\nframe = io_schedule|folio_wait_bit_common\n"
		"[signature]\nid = frozen\nseverity = info\ntitle = Frozen\nsummary = By a freezer.\n");
	struct cgw_sigset set = { 0 };
	struct errbuf e;
	assert_int_equal(sig_load_dir(&set, dir, errbuf_open(&e)), 0);
	assert_string_equal(errbuf_text(&e), "");
	assert_int_equal(set.n, 2);
	const struct cgw_sig *s = sig_find(&set, "io-wait");
	assert_non_null(s);
	assert_string_equal(s->states, "D");
	assert_int_equal(s->priority, 0);
	assert_int_equal(s->severity, SEV_INFO);
	assert_string_equal(s->correlator, "none");
	assert_int_equal(s->norder, 0);
	assert_int_equal(s->noptional, 0);
	assert_int_equal(s->nremedies, 0);
	const struct cgw_sig *fz = sig_find(&set, "frozen");
	assert_non_null(fz);
	assert_int_equal(fz->line, 9);
	assert_int_equal(fz->nframes, 0);
	/* a signature without frames never matches by stack */
	struct stk st = stk(st_kworker);
	assert_false(sig_match(fz, st.f, st.n, NULL));
	stk_free(&st);
	errbuf_close(&e);
	sig_free(&set);
	tmpdir_remove(dir);
}

/* Only *.conf files, sorted; a later directory replaces signatures by id. */
static void test_load_sorted_and_replace(void **state)
{
	(void)state;
	char shipped[64], local[64];
	tmpdir_make(shipped, sizeof(shipped));
	tmpdir_make(local, sizeof(local));
	static const char sig_fmt[] =
		"[signature]\nid = %s\nseverity = %s\npriority = %d\ntitle = %s\nsummary = S\n"
		"[match]\nframe = %s\n";
	char text[512];
	snprintf(text, sizeof(text), sig_fmt, "workqueue-flush", "warning", 50, "shipped wq",
	         "__flush_work|__flush_workqueue");
	tmpdir_put(shipped, "50-workqueue.conf", text);
	snprintf(text, sizeof(text), sig_fmt, "fuse-wait", "warning", 50, "shipped fuse", "fuse_*");
	tmpdir_put(shipped, "10-fuse.conf", text);
	/* not *.conf, or hidden: never read, however broken */
	tmpdir_put(shipped, "README", "this is not ini\n");
	tmpdir_put(shipped, "fuse.conf.bak", "[signature]\nid = 1\n");
	tmpdir_put(shipped, ".hidden.conf", "garbage\n");
	tmpdir_put(shipped, "conf", "garbage\n");
	tmpdir_put(shipped, ".conf", "garbage\n");

	snprintf(text, sizeof(text), sig_fmt, "workqueue-flush", "critical", 60, "local wq",
	         "flush_work");
	tmpdir_put(local, "wq.conf", text);
	snprintf(text, sizeof(text), sig_fmt, "site-nfs", "warning", 40, "local nfs", "nfs_*");
	tmpdir_put(local, "nfs.conf", text);

	struct cgw_sigset set = { 0 };
	struct errbuf e;
	FILE *err = errbuf_open(&e);
	assert_int_equal(sig_load_dir(&set, shipped, err), 0);
	assert_string_equal(errbuf_text(&e), "");
	assert_int_equal(set.n, 2);
	assert_string_equal(sig_find(&set, "workqueue-flush")->title, "shipped wq");
	/* read in name order: 10-fuse.conf before 50-workqueue.conf (written the other way) */
	assert_string_equal(set.v[0].id, "fuse-wait");
	assert_string_equal(set.v[1].id, "workqueue-flush");

	assert_int_equal(sig_load_dir(&set, local, err), 0);
	assert_string_equal(errbuf_text(&e), "");
	assert_int_equal(set.n, 3);
	const struct cgw_sig *wq = sig_find(&set, "workqueue-flush");
	assert_string_equal(wq->title, "local wq");
	assert_int_equal(wq->severity, SEV_CRITICAL);
	assert_int_equal(wq->priority, 60);
	assert_int_equal(wq->nframes, 1);
	check_pat(&wq->frames[0], (const char *[]){ "flush_work" }, 1);
	char path[128];
	snprintf(path, sizeof(path), "%s/wq.conf", local);
	assert_string_equal(wq->file, path);
	assert_string_equal(sig_find(&set, "fuse-wait")->title, "shipped fuse");
	assert_string_equal(sig_find(&set, "site-nfs")->title, "local nfs");

	/* the replacement is what matches now: flush_work, not __flush_workqueue */
	struct stk st = stk(st_systemd);
	assert_null(sig_best(&set, 'D', st.f, st.n));
	stk_free(&st);
	st = stk(st_nfs);
	assert_string_equal(sig_best(&set, 'D', st.f, st.n)->id, "site-nfs");
	stk_free(&st);

	errbuf_close(&e);
	sig_free(&set);
	tmpdir_remove(shipped);
	tmpdir_remove(local);
}

/* Files are read in name order (alphasort), whatever order readdir() gives. */
static void test_load_reads_in_name_order(void **state)
{
	(void)state;
	static const char *const names[] = {
		"00-first", "05-x", "10-fuse", "20-nfs", "50-workqueue", "80-mm", "99-local", "zz",
	};
	const size_t n = ARRAY_SIZE(names);
	char dir[64];
	tmpdir_make(dir, sizeof(dir));
	for (size_t i = n; i-- > 0;) {             /* written last to first */
		char file[64], text[256];
		snprintf(file, sizeof(file), "%s.conf", names[i]);
		snprintf(text, sizeof(text), "[signature]\nid = s%zu\nseverity = info\ntitle = T\n"
		         "summary = S\n[match]\nframe = kthread\n", i);
		tmpdir_put(dir, file, text);
	}
	struct cgw_sigset set = { 0 };
	struct errbuf e;
	assert_int_equal(sig_load_dir(&set, dir, errbuf_open(&e)), 0);
	assert_int_equal(set.n, n);
	for (size_t i = 0; i < n; i++) {
		char id[8];
		snprintf(id, sizeof(id), "s%zu", i);
		print_message("# %zu: %s from %s\n", i, set.v[i].id, set.v[i].file);
		assert_string_equal(set.v[i].id, id);
	}
	errbuf_close(&e);
	sig_free(&set);
	tmpdir_remove(dir);
}

/* One id twice in a directory: the file that sorts later is the error, named with both
 * places; the first definition stays. */
static void test_load_duplicate_id_across_files(void **state)
{
	(void)state;
	char dir[64], want[512];
	tmpdir_make(dir, sizeof(dir));
	tmpdir_put(dir, "20-b.conf",
		"[signature]\nid = c-sig\nseverity = info\ntitle = C\nsummary = S\n"
		"[match]\nframe = kthread\n"
		"\n"
		"[signature]\nid = dup\nseverity = info\ntitle = second\nsummary = S\n"
		"[match]\nframe = kthread\n");
	tmpdir_put(dir, "10-a.conf",
		"# first\n[signature]\nid = dup\nseverity = info\ntitle = first\nsummary = S\n"
		"[match]\nframe = kthread\n");
	struct cgw_sigset set = { 0 };
	struct errbuf e;
	int r = sig_load_dir(&set, dir, errbuf_open(&e));
	assert_int_equal(r, 1);
	assert_int_equal(errbuf_lines(&e), 1);
	snprintf(want, sizeof(want), "%s/20-b.conf:10: ", dir);
	assert_err_has(&e, want);
	snprintf(want, sizeof(want), "%s/10-a.conf:3", dir);
	assert_err_has(&e, want);
	assert_string_equal(sig_find(&set, "dup")->title, "first");
	errbuf_close(&e);
	sig_free(&set);
	tmpdir_remove(dir);
}

/* docs/signatures.md: "a duplicate id within one directory [is an error] ... A bad file is
 * skipped whole; the other files still load." */
static void test_load_duplicate_id_skips_whole_file(void **state)
{
	(void)state;
	char dir[64];
	tmpdir_make(dir, sizeof(dir));
	tmpdir_put(dir, "10-a.conf", "[signature]\nid = dup\nseverity = info\ntitle = first\n"
		"summary = S\n[match]\nframe = kthread\n");
	tmpdir_put(dir, "20-b.conf", "[signature]\nid = c-sig\nseverity = info\ntitle = C\n"
		"summary = S\n[match]\nframe = kthread\n"
		"[signature]\nid = dup\nseverity = info\ntitle = second\nsummary = S\n"
		"[match]\nframe = kthread\n");
	struct cgw_sigset set = { 0 };
	struct errbuf e;
	assert_int_equal(sig_load_dir(&set, dir, errbuf_open(&e)), 1);
	assert_string_equal(sig_find(&set, "dup")->title, "first");
	if (sig_find(&set, "c-sig"))
		print_error("c-sig of the bad file 20-b.conf was loaded\n");
	assert_null(sig_find(&set, "c-sig"));
	assert_int_equal(set.n, 1);
	errbuf_close(&e);
	sig_free(&set);
	tmpdir_remove(dir);
}

struct bad_case {
	const char *what;
	const char *text;
	int line;                 /* of the first message */
	const char *msg;          /* its text after "file:line: " (a prefix) */
	int errors;               /* returned count (== lines printed) */
};

#define HEAD "[signature]\nid = bad-one\nseverity = warning\ntitle = T\nsummary = S\n"
/*           1            2              3                  4          5 */

/* Each broken file: its errors as "file:line: message" on err, the file skipped whole,
 * the good file next to it still loaded. */
static void test_load_broken_files(void **state)
{
	(void)state;
	char long_line[512];
	snprintf(long_line, sizeof(long_line), HEAD "explanation = %0250d\n[match]\nframe = x\n", 0);
	const struct bad_case cases[] = {
		{ "unknown key", HEAD "colour = red\n[match]\nframe = kthread\n",
		  6, "unknown key \"colour\" in [signature]", 1 },
		{ "unknown key in [match]", HEAD "[match]\nframe = kthread\nframes = x\n",
		  8, "unknown key \"frames\" in [match]", 1 },
		{ "unknown section", HEAD "[match]\nframe = kthread\n[extra]\nfoo = 1\n",
		  9, "unknown section [extra]", 1 },
		{ "bad severity", "[signature]\nid = bad-one\nseverity = severe\ntitle = T\nsummary = S\n"
		  "[match]\nframe = kthread\n",
		  3, "severity must be info, warning or critical, not \"severe\"", 1 },
		{ "severity none", "[signature]\nid = bad-one\nseverity = none\ntitle = T\nsummary = S\n"
		  "[match]\nframe = kthread\n",
		  3, "severity must be info, warning or critical", 1 },
		{ "bad state", HEAD "states = S\n[match]\nframe = kthread\n",
		  6, "states must list D and/or R, not \"S\"", 1 },
		{ "empty frame group", HEAD "[match]\nframe =\n", 7, "empty frame group", 1 },
		{ "frame group of bars", HEAD "[match]\nframe = |\n", 7, "empty frame group", 1 },
		{ "empty alternative", HEAD "[match]\nframe = a_wait||b_wait\n",
		  7, "empty alternative in \"a_wait||b_wait\"", 1 },
		{ "empty last alternative", HEAD "[match]\nframe = kthread\noptional = c_wait|\n",
		  8, "empty alternative in \"c_wait|\"", 1 },
		{ "order with an empty group", HEAD "[match]\norder = mutex_lock,,flush_work\n",
		  7, "order: empty group in \"mutex_lock,,flush_work\"", 1 },
		{ "order ending in a comma", HEAD "[match]\norder = a, b,\n",
		  7, "order: empty group in \"a, b,\"", 1 },
		{ "order starting with a comma", HEAD "[match]\norder = , a, b\n",
		  7, "order: empty group in \", a, b\"", 1 },
		{ "escape sequence in a title", "[signature]\nid = bad-one\nseverity = warning\n"
		  "title = Red \033[31mtitle\nsummary = S\n[match]\nframe = kthread\n",
		  4, "control character \\x1b: a line holds text and tabs only", 1 },
		{ "C1 control in a remedy", HEAD "[match]\nframe = kthread\n[remedies]\n"
		  "remedy = a\xc2\x9b" "2J\n", 9, "control character \\xc2\\x9b", 1 },
		{ "byte that is not UTF-8", HEAD "explanation = caf\xe9\n[match]\nframe = kthread\n",
		  6, "byte \\xe9 is not UTF-8 text", 1 },
		{ "bad frame name", HEAD "[match]\nframe = fuse-get-req\n",
		  7, "\"fuse-get-req\" is not a kernel function name", 1 },
		{ "frame with offset", HEAD "[match]\nframe = kthread|fuse_get_req+0x1/0x2\n",
		  7, "\"fuse_get_req+0x1/0x2\" is not a kernel function name", 1 },
		{ "'*' inside", HEAD "[match]\nframe = nfs_*x\n",
		  7, "\"nfs_*x\" is not a kernel function name", 1 },
		{ "bad optional", HEAD "[match]\nframe = kthread\noptional = a b\n",
		  8, "\"a b\" is not a kernel function name", 1 },
		{ "bad order group", HEAD "[match]\norder = kthread, 9lives\n",
		  7, "order: \"9lives\" is not a kernel function name", 1 },
		{ "order of one group", HEAD "[match]\norder = kthread\n",
		  7, "order needs at least two groups", 1 },
		{ "two order lines", HEAD "[match]\norder = a, b\norder = c, d\n",
		  8, "only one \"order\" line per signature", 1 },
		{ "priority too high", HEAD "priority = 1001\n[match]\nframe = kthread\n",
		  6, "priority must be 0..1000, not \"1001\"", 1 },
		{ "priority negative", HEAD "priority = -1\n[match]\nframe = kthread\n",
		  6, "priority must be 0..1000", 1 },
		{ "priority word", HEAD "priority = high\n[match]\nframe = kthread\n",
		  6, "priority must be 0..1000", 1 },
		{ "unknown correlator", HEAD "correlator = magic\n[match]\nframe = kthread\n",
		  6, "unknown correlator \"magic\"", 1 },
		{ "id with a digit first", "[signature]\nid = 9lives\nseverity = info\n",
		  2, "bad id \"9lives\"", 2 /* then "severity" before id */ },
		{ "id with a space", "[signature]\nid = bad one\ntitle = T\n",
		  2, "bad id \"bad one\"", 2 },
		{ "key before id", "[signature]\ntitle = T\nid = bad-one\nseverity = info\nsummary = S\n"
		  "[match]\nframe = kthread\n",
		  2, "\"title\" before \"id\"", 1 },
		{ "missing title", "[signature]\nid = bad-one\nseverity = warning\nsummary = S\n"
		  "[match]\nframe = kthread\n",
		  2, "signature bad-one: missing title", 1 },
		{ "missing summary", "[signature]\nid = bad-one\nseverity = warning\ntitle = T\n"
		  "[match]\nframe = kthread\n",
		  2, "signature bad-one: missing summary", 1 },
		{ "missing severity", "[signature]\nid = bad-one\ntitle = T\nsummary = S\n"
		  "[match]\nframe = kthread\n",
		  2, "signature bad-one: missing severity", 1 },
		{ "no [match]", HEAD, 2, "signature bad-one: no [match] frame or order", 1 },
		{ "three missing", "# c\n\n[signature]\nid = bad-one\n", 4,
		  "signature bad-one: missing title", 4 },
		{ "duplicate id in the file", HEAD "[match]\nframe = kthread\n"
		  "[signature]\nid = bad-one\nseverity = info\ntitle = T2\nsummary = S\n"
		  "[match]\nframe = schedule\n",
		  9, "duplicate id bad-one (also at line 2)", 1 },
		{ "not key = value", HEAD "this is not ini\n[match]\nframe = kthread\n",
		  6, "expected \"key = value\"", 1 },
		{ "malformed section", HEAD "[match\nframe = kthread\n",
		  6, "malformed section header", 2 /* and "frame" is then in [signature] */ },
		{ "line too long", long_line, 6, "line longer than", 1 },
		{ "empty file", "", 1, "no [signature] with an id", 1 },
		{ "comments only", "# nothing\n; here\n", 1, "no [signature] with an id", 1 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		const struct bad_case *c = &cases[i];
		char dir[64], want[512];
		print_message("# case: %s\n", c->what);
		tmpdir_make(dir, sizeof(dir));
		tmpdir_put(dir, "bad.conf", c->text);
		tmpdir_put(dir, "good.conf", "[signature]\nid = good\nseverity = info\ntitle = G\n"
		           "summary = S\n[match]\nframe = kthread\n");
		struct cgw_sigset set = { 0 };
		struct errbuf e;
		int r = sig_load_dir(&set, dir, errbuf_open(&e));
		snprintf(want, sizeof(want), "%s/bad.conf:%d: %s", dir, c->line, c->msg);
		assert_err_has(&e, want);
		/* the first message is this one */
		assert_int_equal(strncmp(errbuf_text(&e), want, strlen(want)), 0);
		/* every message names the file and a line */
		snprintf(want, sizeof(want), "%s/bad.conf:", dir);
		for (const char *l = errbuf_text(&e); *l; l = strchr(l, '\n') + 1) {
			assert_int_equal(strncmp(l, want, strlen(want)), 0);
			int line = atoi(l + strlen(want));
			assert_true(line >= 1);
		}
		if (r != c->errors)
			print_error("returned %d, want %d; output:\n%s", r, c->errors, errbuf_text(&e));
		assert_int_equal(r, c->errors);
		assert_int_equal(errbuf_lines(&e), r);
		assert_null(sig_find(&set, "bad-one"));
		assert_non_null(sig_find(&set, "good"));
		assert_int_equal(set.n, 1);
		errbuf_close(&e);
		sig_free(&set);
		tmpdir_remove(dir);
	}
}

/* A file saved with a UTF-8 byte order mark (as some editors do) loads; UTF-8 text and tabs
 * in values are kept. */
static void test_load_bom(void **state)
{
	(void)state;
	char dir[64];
	tmpdir_make(dir, sizeof(dir));
	tmpdir_put(dir, "bom.conf", "\xef\xbb\xbf[signature]\nid = bom\nseverity = info\n"
	           "title = Caf\xc3\xa9\tsaved with a BOM\nsummary = S\n[match]\nframe = kthread\n");
	struct cgw_sigset set = { 0 };
	struct errbuf e;
	int r = sig_load_dir(&set, dir, errbuf_open(&e));
	if (r)
		print_error("%s", errbuf_text(&e));
	assert_int_equal(r, 0);
	const struct cgw_sig *s = sig_find(&set, "bom");
	assert_non_null(s);
	assert_string_equal(s->title, "Caf\xc3\xa9\tsaved with a BOM");
	errbuf_close(&e);
	sig_free(&set);
	tmpdir_remove(dir);
}

/* A FIFO named like a signature file is "not a regular file", at once, and skipped; the
 * files next to it load. (Opened plainly, it blocks until a writer comes: alarm ends that.) */
static void test_load_fifo(void **state)
{
	(void)state;
	char dir[64], path[128], want[256];
	tmpdir_make(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/a.conf", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	tmpdir_put(dir, "b.conf", "[signature]\nid = good\nseverity = info\ntitle = G\n"
	           "summary = S\n[match]\nframe = kthread\n");
	struct cgw_sigset set = { 0 };
	struct errbuf e;
	alarm(10);
	int r = sig_load_dir(&set, dir, errbuf_open(&e));
	alarm(0);
	assert_int_equal(r, 1);
	snprintf(want, sizeof(want), "%s: not a regular file", path);
	assert_err_has(&e, want);
	assert_non_null(sig_find(&set, "good"));
	errbuf_close(&e);
	sig_free(&set);
	unlink(path);
	tmpdir_remove(dir);
}

/* Many signatures: 3,000 files in one directory and 1,000 in a second that replace every
 * third id; each id is found with the signature of its own file, replaced ones noting the
 * source they replaced, in load order. (10,000: tests/hostile.sh; the time: BENCHMARKS.md.) */
static void test_load_many(void **state)
{
	(void)state;
	char a[64], b[64], name[32], text[256];
	tmpdir_make(a, sizeof(a));
	tmpdir_make(b, sizeof(b));
	for (int i = 0; i < 3000; i++) {
		snprintf(name, sizeof(name), "s%05d.conf", i);
		snprintf(text, sizeof(text), "[signature]\nid = s%05d\nseverity = info\npriority = %d\n"
		         "title = T%d\nsummary = S\n[match]\nframe = f%d\n", i, i % 1000, i, i);
		tmpdir_put(a, name, text);
		if (i % 3 == 0) {
			snprintf(text, sizeof(text), "[signature]\nid = s%05d\nseverity = critical\n"
			         "title = R%d\nsummary = S\n[match]\nframe = g%d\n", i, i, i);
			tmpdir_put(b, name, text);
		}
	}
	struct cgw_sigset set = { 0 };
	struct errbuf e;
	assert_int_equal(sig_load_dir(&set, a, errbuf_open(&e)), 0);
	assert_int_equal(sig_load_dir(&set, b, e.f), 0);
	assert_int_equal(set.n, 3000);
	for (int i = 0; i < 3000; i++) {
		char id[16], title[16], file[128];
		snprintf(id, sizeof(id), "s%05d", i);
		snprintf(title, sizeof(title), "%c%d", i % 3 ? 'T' : 'R', i);
		snprintf(file, sizeof(file), "%s/s%05d.conf", i % 3 ? a : b, i);
		const struct cgw_sig *s = sig_find(&set, id);
		assert_non_null(s);
		assert_ptr_equal(s, &set.v[i]);                  /* load order kept */
		assert_string_equal(s->id, id);
		assert_string_equal(s->title, title);
		assert_string_equal(s->file, file);
		snprintf(title, sizeof(title), "%c%d", i % 3 ? 'f' : 'g', i);
		assert_string_equal(s->frames[0].alt[0], title);
		if (i % 3 == 0) {
			snprintf(file, sizeof(file), "%s/s%05d.conf", a, i);
			assert_non_null(s->replaced);
			assert_string_equal(s->replaced, file);
		} else {
			assert_null(s->replaced);
		}
	}
	assert_null(sig_find(&set, "s03000"));
	assert_int_equal(errbuf_lines(&e), 0);
	errbuf_close(&e);
	sig_free(&set);
	tmpdir_remove(a);
	tmpdir_remove(b);
}

static void test_load_missing_dir(void **state)
{
	(void)state;
	struct cgw_sigset set = { 0 };
	struct errbuf e;
	assert_int_equal(sig_load_dir(&set, "/nonexistent/cgwatch/signatures.d", errbuf_open(&e)),
	                 -ENOENT);
	assert_int_equal(set.n, 0);
	assert_int_equal(sig_load_dir(&set, "/proc/self/stat", e.f), -ENOTDIR);
	errbuf_close(&e);
}

/* The shipped (built-in) library loads clean and names the stacks of seed 004. */
static void test_load_shipped_library(void **state)
{
	(void)state;
	struct cgw_sigset set = { 0 };
	struct errbuf e;
	int r = sig_load_builtin(&set, errbuf_open(&e));
	if (r)
		print_error("%s", errbuf_text(&e));
	assert_int_equal(r, 0);
	assert_true(set.n >= 2);
	const struct cgw_sig *lru = sig_find(&set, "lru-drain-isolated");
	const struct cgw_sig *cpuset = sig_find(&set, "cpuset-migrate-wait");
	if (lru) {
		struct stk st = stk(st_kworker);
		assert_ptr_equal(sig_best(&set, 'D', st.f, st.n), lru);
		stk_free(&st);
	}
	if (cpuset) {
		struct stk st = stk(st_systemd);
		assert_ptr_equal(sig_best(&set, 'D', st.f, st.n), cpuset);
		stk_free(&st);
	}
	errbuf_close(&e);
	sig_free(&set);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_match_required_groups),
		cmocka_unit_test(test_match_order),
		cmocka_unit_test(test_match_prefix),
		cmocka_unit_test(test_match_by_name_not_text),
		cmocka_unit_test(test_match_marks),
		cmocka_unit_test(test_best_priority),
		cmocka_unit_test(test_best_priority_tie_innermost),
		cmocka_unit_test(test_best_states),
		cmocka_unit_test(test_load_good_file),
		cmocka_unit_test(test_load_minimal_and_builtin),
		cmocka_unit_test(test_load_sorted_and_replace),
		cmocka_unit_test(test_load_reads_in_name_order),
		cmocka_unit_test(test_load_duplicate_id_across_files),
		cmocka_unit_test(test_load_duplicate_id_skips_whole_file),
		cmocka_unit_test(test_load_broken_files),
		cmocka_unit_test(test_load_bom),
		cmocka_unit_test(test_load_fifo),
		cmocka_unit_test(test_load_many),
		cmocka_unit_test(test_load_missing_dir),
		cmocka_unit_test(test_load_shipped_library),
	};
	return tmpdir_cleanup_all(cmocka_run_group_tests(tests, NULL, NULL));
}
