/* test-kmsg.c: /dev/kmsg records, the kernel's report lines, their assembly, the reader, and
 * what kmsg_link adds to findings -- on real kernel text. Samples not from seed 004 are
 * quoted from public reports (LKML, bug trackers) and from the kernel's format strings. */
#include "unit.h"

#include <fcntl.h>
#include <limits.h>
#include <sys/stat.h>
#include <json-c/json.h>

#include "kmsg.h"

/* ---- building captures the way the kernel writes /dev/kmsg ---- */

struct cap { struct strbuf sb; uint64_t seq, ts_usec; };

static void cap_init(struct cap *c, uint64_t seq, uint64_t ts_usec)
{
	memset(c, 0, sizeof(*c));
	c->seq = seq;
	c->ts_usec = ts_usec;
}

/* One record of priority pri (facility << 3 | level); the message escaped as
 * msg_add_ext_text() does: \xNN for bytes < ' ', >= 127 and '\\'. */
static void cap_add(struct cap *c, unsigned pri, const char *msg)
{
	sb_printf(&c->sb, "%u,%llu,%llu,-;", pri, (unsigned long long)c->seq++,
	          (unsigned long long)c->ts_usec);
	c->ts_usec += 13;
	for (const unsigned char *p = (const unsigned char *)msg; *p; p++) {
		if (*p < ' ' || *p >= 127 || *p == '\\')
			sb_printf(&c->sb, "\\x%02x", *p);
		else
			sb_add(&c->sb, (const char *)p, 1);
	}
	sb_add(&c->sb, "\n", 1);
}

/* Several kernel lines of one level. */
static void cap_lines(struct cap *c, unsigned pri, const char *const *lines, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cap_add(c, pri, lines[i]);
}

/* One kernel record: its priority and its message. */
struct kline { unsigned pri; const char *msg; };

/* Records of several levels, in order. */
static void cap_klines(struct cap *c, const struct kline *l, size_t n)
{
	for (size_t i = 0; i < n; i++)
		cap_add(c, l[i].pri, l[i].msg);
}

/* A workqueue lockup dump of n lines: the two lockup lines at level 0, the rest at 6. */
static void cap_wq_dump(struct cap *c, const char *const *dump, size_t n)
{
	cap_lines(c, 0, dump, 2);
	cap_lines(c, 6, dump + 2, n - 2);
}

static void feed(struct cgw_kmsg *k, struct cap *c)
{
	kmsg_feed_buf(k, c->sb.s ? c->sb.s : "", c->sb.len);
}

/* The capture c in a new k. */
static void feed_new(struct cgw_kmsg *k, struct cap *c)
{
	kmsg_init(k);
	feed(k, c);
}

/* The capture c in k, as /dev/kmsg read at uptime_s seconds since boot. */
static void cap_kmsg(struct cgw_kmsg *k, struct cap *c, double uptime_s)
{
	feed_new(k, c);
	snprintf(k->source, sizeof(k->source), "/dev/kmsg");
	k->uptime_s = uptime_s;
}

/* Free a link test's scan, kmsg state and capture. */
static void link_free(struct unit_scan *u, struct cgw_kmsg *k, struct cap *c)
{
	us_free(u);
	kmsg_free(k);
	sb_free(&c->sb);
}

/* ---- records ---- */

static void test_record_parse(void **state)
{
	(void)state;
	static const struct {
		const char *what, *in;
		unsigned facility, level;
		unsigned long long seq, ts;
		const char *msg, *caller;
	} ok[] = {
		{ "kernel err", "3,1814,2212318500,-;INFO: task systemd:1 blocked for more than 122 seconds.",
		  0, 3, 1814, 2212318500, "INFO: task systemd:1 blocked for more than 122 seconds.", "" },
		{ "user.info (a process wrote it)", "14,1890,2300000000,-;hello",
		  1, 6, 1890, 2300000000, "hello", "" },
		{ "user.emerg: a process asking for <0>", "8,1,2,-;x", 1, 0, 1, 2, "x", "" },
		{ "daemon.info (systemd[1]: ...)", "30,77,1000,-;systemd[1]: Started foo.service.",
		  3, 6, 77, 1000, "systemd[1]: Started foo.service.", "" },
		{ "caller field", "4,512,1233044,-,caller=T28;foo", 0, 4, 512, 1233044, "foo", "T28" },
		{ "dictionary lines after it",
		  "6,339,5140900,-;NET: Registered protocol family 10\n SUBSYSTEM=net\n DEVICE=n1\n",
		  0, 6, 339, 5140900, "NET: Registered protocol family 10", "" },
		{ "escaped tab, newline, backslash",
		  "3,9,9,-;rcu: \\x095-...0: a\\x0ab \\x5c end", 0, 3, 9, 9, "rcu: \t5-...0: a\nb \\ end", "" },
		{ "a comm with UTF-8", "3,9,9,-;t \\xc3\\xa9", 0, 3, 9, 9, "t \xc3\xa9", "" },
		{ "\\x00 is never made a NUL", "3,9,9,-;a\\x00b", 0, 3, 9, 9, "a\\x00b", "" },
		{ "a lone backslash stays", "3,9,9,-;a\\xg", 0, 3, 9, 9, "a\\xg", "" },
		{ "console caller id in the text", "6,5,5,-;[  T28]       Tainted: G        W",
		  0, 6, 5, 5, "      Tainted: G        W", "T28" },
		{ "console CPU id", "0,5,5,-;[    C0] BUG: workqueue lockup - pool cpus=0 node=0 flags=0x0 nice=0 stuck for 59s!",
		  0, 0, 5, 5, "BUG: workqueue lockup - pool cpus=0 node=0 flags=0x0 nice=0 stuck for 59s!", "C0" },
		{ "continuation flag (older kernels)", "4,10,20,c;more", 0, 4, 10, 20, "more", "" },
		{ "empty message", "6,10,20,-;", 0, 6, 10, 20, "", "" },
	};
	struct kmsg_record r;
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		print_message("# case: %s\n", ok[i].what);
		assert_int_equal(kmsg_parse_record(ok[i].in, strlen(ok[i].in), &r), 0);
		assert_int_equal(r.facility, ok[i].facility);
		assert_int_equal(r.level, ok[i].level);
		assert_int_equal(r.seq, ok[i].seq);
		assert_int_equal(r.ts_usec, ok[i].ts);
		assert_string_equal(r.msg, ok[i].msg);
		assert_int_equal(r.msg_len, strlen(ok[i].msg));
		assert_string_equal(r.caller, ok[i].caller);
	}
	static const char *const bad[] = {
		"", "hello", "6,1,2;x", "6,1,2,-", "a,1,2,-;x", "6,,2,-;x", "6,1,2x,-;x",
		"99999999,1,2,-;x", "6,99999999999999999999999,2,-;x",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		print_message("# bad: \"%s\"\n", bad[i]);
		assert_int_equal(kmsg_parse_record(bad[i], strlen(bad[i]), &r), -EINVAL);
	}
	/* len bounds the record: no read past it */
	assert_int_equal(kmsg_parse_record("6,1,2,-;abcdef", 11, &r), 0);
	assert_string_equal(r.msg, "abc");
}

/* The numbers of a record and of the report lines, past what the kernel can print: a
 * sequence number past 2^53, a timestamp past a century of uptime, a "blocked for" past a
 * century, a nice outside -20..19, a node past 1023, flags that are not hex: not taken. */
static void test_kmsg_hostile_numbers(void **state)
{
	(void)state;
	struct kmsg_record r;
	static const char *const bad[] = {
		"6,9007199254740993,2,-;x",            /* seq past 2^53 */
		"6,1,3155760000000001,-;x",            /* ts_usec past a century */
		"6,1,18446744073709551615,-;x",
		"-6,1,2,-;x", "6,-1,2,-;x", "6,1,-2,-;x", "6,1,nan,-;x", "6,1,inf,-;x",
		"6,0x10,2,-;x", "6,1,1e3,-;x",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		print_message("# record: %s\n", bad[i]);
		assert_int_equal(kmsg_parse_record(bad[i], strlen(bad[i]), &r), -EINVAL);
	}
	assert_int_equal(kmsg_parse_record("6,9007199254740992,3155760000000000,-;x", 40, &r), 0);

	struct kmsg_task t;
	long s;
	assert_int_equal(kmsg_parse_hung("INFO: task a:1 blocked for more than 3155760001 seconds.",
	                                 &t, &s), -EINVAL);
	assert_int_equal(kmsg_parse_hung("INFO: task a:1 blocked for more than 3155760000 seconds.",
	                                 &t, &s), 0);
	struct kmsg_poolinfo pi;
	unsigned st;
	static const char *const badpool[] = {
		"BUG: workqueue lockup - pool cpus=1 node=0 flags=0x0 nice=-21 stuck for 3s!",
		"BUG: workqueue lockup - pool cpus=1 node=0 flags=0x0 nice=20 stuck for 3s!",
		"BUG: workqueue lockup - pool cpus=1 node=0 flags=0x0 nice=99999999999999999999 stuck for 3s!",
		"BUG: workqueue lockup - pool cpus=1 node=0 flags=0x0 nice=nan stuck for 3s!",
		"BUG: workqueue lockup - pool cpus=1 node=1024 flags=0x0 nice=0 stuck for 3s!",
		"BUG: workqueue lockup - pool cpus=1 node=0 flags=0x-5 nice=0 stuck for 3s!",
		"BUG: workqueue lockup - pool cpus=1 node=0 flags=0x100000000 nice=0 stuck for 3s!",
	};
	for (size_t i = 0; i < ARRAY_SIZE(badpool); i++) {
		print_message("# pool: %s\n", badpool[i]);
		assert_int_equal(kmsg_parse_wq_lockup(badpool[i], &pi, &st), -EINVAL);
	}
	assert_int_equal(kmsg_parse_wq_lockup("BUG: workqueue lockup - pool cpus=1 node=1023 "
	                                      "flags=0xffffffff nice=19 stuck for 3s!", &pi, &st), 0);
	struct kmsg_pwq pw;
	memset(&pw, 0, sizeof(pw));
	assert_int_equal(kmsg_parse_pwq("  pwq 2: cpus=0 node=0 flags=0x0 nice=0 active=99999999999 "
	                                "refcnt=4", &pw), -EINVAL);
	struct kmsg_pool pl;
	memset(&pl, 0, sizeof(pl));
	assert_int_equal(kmsg_parse_pool("pool 2: cpus=0 node=0 flags=0x0 nice=0 hung=3155760001s "
	                                 "workers=3", &pl), -EINVAL);
	assert_int_equal(kmsg_parse_pool("pool 2: cpus=0 node=0 flags=0x0 nice=0 hung=3s "
	                                 "workers=99999999999", &pl), -EINVAL);

	/* a record that does not parse is not dropped unseen: the kmsg summary counts it */
	struct cgw_kmsg k;
	kmsg_init(&k);
	const char *ring = "6,9007199254740993,2,-;x\n6,1,nan,-;y\n6,1,2,-;ok\n";
	kmsg_feed_buf(&k, ring, strlen(ring));
	assert_int_equal(k.unparsed, 2);
	struct json_object *o = kmsg_json(&k);
	struct json_object *u = json_object_object_get(o, "unparsed");
	assert_non_null(u);
	assert_int_equal(json_object_get_int64(u), 2);
	json_object_put(o);
	kmsg_free(&k);
}

/* ---- single lines ---- */

static void test_hung_line(void **state)
{
	(void)state;
	static const struct { const char *in, *comm; int pid; long s; } ok[] = {
		/* seed 004 */
		{ "INFO: task systemd:1 blocked for more than 122 seconds.", "systemd", 1, 122 },
		{ "INFO: task kworker/u768:1:1765 blocked for more than 122 seconds.",
		  "kworker/u768:1", 1765, 122 },
		/* a Proxmox host (khugepaged, a KVM vCPU thread: a space and a '/') */
		{ "INFO: task CPU 0/KVM:1499 blocked for more than 122 seconds.", "CPU 0/KVM", 1499, 122 },
		{ "INFO: task (udev-worker):569 blocked for more than 122 seconds.", "(udev-worker)", 569, 122 },
		/* comm with ':' and spaces, and one that spells the marker itself */
		{ "INFO: task my: weird task:77 blocked for more than 245 seconds.", "my: weird task", 77, 245 },
		{ "INFO: task a blocked for more than 9:5 blocked for more than 10 seconds.",
		  "a blocked for more than 9", 5, 10 },
		{ "INFO: task x:42 blocked for more than 368 seconds", "x", 42, 368 },
		{ "INFO: task :42 blocked for more than 368 seconds.", "", 42, 368 },
	};
	struct kmsg_task t;
	long s;
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		print_message("# case: %s\n", ok[i].in);
		assert_int_equal(kmsg_parse_hung(ok[i].in, &t, &s), 0);
		assert_string_equal(t.comm, ok[i].comm);
		assert_int_equal(t.pid, ok[i].pid);
		assert_int_equal(s, ok[i].s);
	}
	static const char *const bad[] = {
		"INFO: task systemd blocked for more than 122 seconds.",
		"INFO: task systemd:x blocked for more than 122 seconds.",
		"INFO: task systemd:1 blocked for more than  seconds.",
		"INFO: task systemd:1 blocked for more than 122 seconds. and more",
		"INFO: task systemd:1 is blocked on a mutex likely owned by task b:2.",
		"task systemd:1 blocked for more than 122 seconds.",
		"systemd[1]: INFO: task systemd:1 blocked for more than 122 seconds.",
		"INFO: task systemd:-1 blocked for more than 122 seconds.",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		print_message("# bad: %s\n", bad[i]);
		assert_int_equal(kmsg_parse_hung(bad[i], &t, &s), -EINVAL);
	}
}

static void test_blocker_lines(void **state)
{
	(void)state;
	static const struct {
		const char *in;
		enum kmsg_lock lock;
		const char *comm; int pid;
		bool found;
		const char *ocomm; int opid;
		const char *as, *oas;
	} ok[] = {
		/* the format strings of kernel/hung_task.c, filled in */
		{ "INFO: task a:10 is blocked on a mutex likely owned by task b:11.",
		  KMSG_LOCK_MUTEX, "a", 10, true, "b", 11, "", "" },
		{ "INFO: task a:10 blocked on a semaphore likely last held by task b:11",
		  KMSG_LOCK_SEM, "a", 10, true, "b", 11, "", "" },
		/* a 6.16 kernel (rw_sem test module, LKML) */
		{ "INFO: task cat:28631 <reader> blocked on an rw-semaphore likely owned by task cat:28630 <writer>",
		  KMSG_LOCK_RWSEM, "cat", 28631, true, "cat", 28630, "reader", "writer" },
		{ "INFO: task rw_sem_thread2:36526 <writer> blocked on an rw-semaphore likely owned by task rw_sem_thread1:36525 <writer>",
		  KMSG_LOCK_RWSEM, "rw_sem_thread2", 36526, true, "rw_sem_thread1", 36525, "writer", "writer" },
		/* NVIDIA RM lock (a desktop's journal): the owner a kworker with ':' */
		{ "INFO: task nvidia-smi:1639 <writer> blocked on an rw-semaphore likely owned by task kworker/15:0:110 <writer>",
		  KMSG_LOCK_RWSEM, "nvidia-smi", 1639, true, "kworker/15:0", 110, "writer", "writer" },
		/* Proxmox vzdump to NFS */
		{ "INFO: task worker:488783 is blocked on an rw-semaphore, but the owner is not found.",
		  KMSG_LOCK_RWSEM, "worker", 488783, false, "", 0, "", "" },
		{ "INFO: task a:10 is blocked on a mutex, but the owner is not found.",
		  KMSG_LOCK_MUTEX, "a", 10, false, "", 0, "", "" },
		{ "INFO: task a:10 is blocked on a semaphore, but the last holder is not found.",
		  KMSG_LOCK_SEM, "a", 10, false, "", 0, "", "" },
		/* comms with spaces and ':' on both sides */
		{ "INFO: task CPU 0/KVM:1499 is blocked on a mutex likely owned by task qemu: io:1500.",
		  KMSG_LOCK_MUTEX, "CPU 0/KVM", 1499, true, "qemu: io", 1500, "", "" },
	};
	struct kmsg_blocker b;
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		print_message("# case: %s\n", ok[i].in);
		assert_int_equal(kmsg_parse_blocker(ok[i].in, &b), 0);
		assert_int_equal(b.lock, ok[i].lock);
		assert_string_equal(b.task.comm, ok[i].comm);
		assert_int_equal(b.task.pid, ok[i].pid);
		assert_int_equal(b.owner_found, ok[i].found);
		assert_string_equal(b.owner.comm, ok[i].ocomm);
		assert_int_equal(b.owner.pid, ok[i].opid);
		assert_string_equal(b.task_as, ok[i].as);
		assert_string_equal(b.owner_as, ok[i].oas);
	}
	static const char *const bad[] = {
		"INFO: task systemd:1 blocked for more than 122 seconds.",
		"INFO: task a:10 is blocked on a mutex likely owned by task b.",
		"INFO: task a is blocked on a mutex likely owned by task b:11.",
		"INFO: task a:10 is blocked on a mutex, but the owner is not found. x",
		"INFO: task a:10 blocked on an rw-semaphore likely owned by task b:11",
		"INFO: task a:10 is blocked on a spinlock likely owned by task b:11.",
		/* the journal's digest, not a kernel line */
		"Both <writer> blocked on an rw-semaphore likely owned by task kworker/1:2:317",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		print_message("# bad: %s\n", bad[i]);
		assert_int_equal(kmsg_parse_blocker(bad[i], &b), -EINVAL);
	}
}

static void test_task_header(void **state)
{
	(void)state;
	static const struct {
		const char *in; bool legacy;
		const char *comm; char st; int pid, tgid, ppid; bool running;
	} ok[] = {
		/* seed 004 (7.0, as the report quotes it) */
		{ "task:systemd         state:D stack:0     pid:1     tgid:1     ppid:0      task_flags:0x40     0100 flags:0x00080000",
		  false, "systemd", 'D', 1, 1, 0, false },
		{ "task:kworker/u768:1  state:D stack:0     pid:1765  tgid:1765  ppid:2      task_flags:0x42     08060 flags:0x00080000",
		  false, "kworker/u768:1", 'D', 1765, 1765, 2, false },
		/* 6.16 (LKML) */
		{ "task:cat             state:S stack:0     pid:28630 tgid:28630 ppid:28501  task_flags:0x400000 flags:0x00004000",
		  false, "cat", 'S', 28630, 28630, 28501, false },
		/* 5.10 arm64 (LKML): pid:%5d */
		{ "task:kworker/0:1     state:D stack:26640 pid: 1872 ppid:     2 flags:0x00000428",
		  false, "kworker/0:1", 'D', 1872, -1, 2, false },
		{ "task:kworker/1:0     state:R  running task     stack:0     pid:77    tgid:77    ppid:2      task_flags:0x4208060 flags:0x00004000",
		  false, "kworker/1:0", 'R', 77, 77, 2, true },
		{ "task:CPU 0/KVM       state:D stack:0     pid:1499  tgid:1421  ppid:1      task_flags:0x400040 flags:0x00004002",
		  false, "CPU 0/KVM", 'D', 1499, 1421, 1, false },
		/* before 5.8 */
		{ "kworker/0:1     D    0  1872      2 0x80000000", true, "kworker/0:1", 'D', 1872, -1, 2, false },
		{ "bash            R  running task        0  4711   4700 0x00000000", true, "bash", 'R', 4711, -1, 4700, true },
	};
	struct kmsg_header h;
	for (size_t i = 0; i < ARRAY_SIZE(ok); i++) {
		print_message("# case: %s\n", ok[i].in);
		assert_int_equal(kmsg_parse_task_header(ok[i].in, ok[i].legacy, &h), 0);
		assert_string_equal(h.comm, ok[i].comm);
		assert_int_equal(h.state, ok[i].st);
		assert_int_equal(h.pid, ok[i].pid);
		assert_int_equal(h.tgid, ok[i].tgid);
		assert_int_equal(h.ppid, ok[i].ppid);
		assert_int_equal(h.running, ok[i].running);
	}
	/* the legacy form is only taken where a header is due */
	assert_int_equal(kmsg_parse_task_header("kworker/0:1     D    0  1872      2 0x80000000", false, &h),
	                 -EINVAL);
	assert_int_equal(kmsg_parse_task_header("task:x state:D stack:0", false, &h), -EINVAL);
	assert_int_equal(kmsg_parse_task_header("Call Trace:", true, &h), -EINVAL);
}

/* NO: a field a case does not check */
#define NO INT_MIN

static void test_workqueue_lines(void **state)
{
	(void)state;
	static const struct {
		const char *in; int rc;
		const char *cpus; int node, nice, flags, s;   /* NULL, NO: not checked */
	} lockup[] = {
		/* an arm64 server under kmemleak (LKML) */
		{ "BUG: workqueue lockup - pool cpus=20 node=1 flags=0x0 nice=0 stuck for 3608s!",
		  0, "20", 1, 0, NO, 3608 },
		/* a highpri pool (rtnl deadlock report) */
		{ "BUG: workqueue lockup - pool cpus=70 node=0 flags=0x0 nice=-20 stuck for 3719s!",
		  0, NULL, NO, -20, NO, 3719 },
		/* an unbound pool: no node= */
		{ "BUG: workqueue lockup - pool cpus=0-95 flags=0x4 nice=0 stuck for 31s!",
		  0, "0-95", -1, NO, 4, NO },
		{ "BUG: workqueue lockup - pool cpus=1 node=0 flags=0x0 nice=0 stuck for 37s",
		  -EINVAL, NULL, NO, NO, NO, NO },
		{ "BUG: soft lockup - CPU#1 stuck for 22s! [a:1]", -EINVAL, NULL, NO, NO, NO, NO },
	};
	for (size_t i = 0; i < ARRAY_SIZE(lockup); i++) {
		struct kmsg_poolinfo pi;
		unsigned s;
		print_message("# lockup: %s\n", lockup[i].in);
		assert_int_equal(kmsg_parse_wq_lockup(lockup[i].in, &pi, &s), lockup[i].rc);
		if (lockup[i].cpus)
			assert_string_equal(pi.cpus, lockup[i].cpus);
		if (lockup[i].node != NO)
			assert_int_equal(pi.node, lockup[i].node);
		if (lockup[i].nice != NO)
			assert_int_equal(pi.nice, lockup[i].nice);
		if (lockup[i].flags != NO)
			assert_int_equal(pi.flags, lockup[i].flags);
		if (lockup[i].s != NO)
			assert_int_equal(s, lockup[i].s);
	}

	/* pwq lines, then the work lines under them; a case with fresh set starts from zero */
	static const struct {
		const char *in; bool fresh, works; int rc;
		int pool; const char *cpus; int active, refcnt;       /* NO, NULL: not checked */
		const char *in_flight, *pending, *inactive;
		int nworkers, w0, w1, w2, nbars, bar0;
	} pwq[] = {
		{ "  pwq 40: cpus=20 node=1 flags=0x0 nice=0 active=2/256", true, false, 0,
		  40, "20", 2, -1, NULL, NULL, NULL, NO, NO, NO, NO, NO, NO },
		{ "  pwq 2: cpus=0 node=0 flags=0x0 nice=0 active=3 refcnt=4", false, false, 0,
		  NO, NULL, 3, 4, NULL, NULL, NULL, NO, NO, NO, NO, NO, NO },
		{ "  pwq 193: cpus=0-23,48-71 node=0 flags=0x4 nice=0 active=1/256", false, false, 0,
		  NO, "0-23,48-71", NO, NO, NULL, NULL, NULL, NO, NO, NO, NO, NO, NO },
		{ "    pending: vmstat_update", false, false, -EINVAL,
		  NO, NULL, NO, NO, NULL, NULL, NULL, NO, NO, NO, NO, NO, NO },
		{ "    in-flight: 1274779:slab_caches_to_rcu_destroy_workfn slab_caches_to_rcu_destroy_workfn",
		  true, true, 0, NO, NULL, NO, NO,
		  "1274779:slab_caches_to_rcu_destroy_workfn slab_caches_to_rcu_destroy_workfn", NULL, NULL,
		  1, 1274779, NO, NO, NO, NO },
		{ "    pending: flush_backlog BAR(8)", false, true, 0, NO, NULL, NO, NO,
		  NULL, "flush_backlog BAR(8)", NULL, NO, NO, NO, NO, 1, 8 },
		{ "    delayed: cleanup_net", false, true, 0, NO, NULL, NO, NO,
		  NULL, NULL, "cleanup_net", NO, NO, NO, NO, NO, NO },
		/* several workers, a rescuer, durations (7.0 prints "for Ns") */
		{ "    in-flight: 12:pm_runtime_work for 56s ,174:pm_runtime_work for 56s ,9(RESCUER):blk_mq_run_work_fn BAR(300)",
		  true, true, 0, NO, NULL, NO, NO, NULL, NULL, NULL, 3, 12, 174, 9, 1, 300 },
		{ "    pending: 9*psi_avgs_work, pogo_watch_work", true, true, 0, NO, NULL, NO, NO,
		  NULL, NULL, NULL, 0, NO, NO, NO, 0, NO },
	};
	struct kmsg_pwq pw;
	memset(&pw, 0, sizeof(pw));
	for (size_t i = 0; i < ARRAY_SIZE(pwq); i++) {
		print_message("# pwq: %s\n", pwq[i].in);
		if (pwq[i].fresh)
			memset(&pw, 0, sizeof(pw));
		assert_int_equal(pwq[i].works ? kmsg_parse_works(pwq[i].in, &pw)
		                              : kmsg_parse_pwq(pwq[i].in, &pw), pwq[i].rc);
		if (pwq[i].pool != NO)
			assert_int_equal(pw.pool, pwq[i].pool);
		if (pwq[i].cpus)
			assert_string_equal(pw.info.cpus, pwq[i].cpus);
		if (pwq[i].active != NO)
			assert_int_equal(pw.active, pwq[i].active);
		if (pwq[i].refcnt != NO)
			assert_int_equal(pw.refcnt, pwq[i].refcnt);
		if (pwq[i].in_flight)
			assert_string_equal(pw.in_flight, pwq[i].in_flight);
		if (pwq[i].pending)
			assert_string_equal(pw.pending, pwq[i].pending);
		if (pwq[i].inactive)
			assert_string_equal(pw.inactive, pwq[i].inactive);
		if (pwq[i].nworkers != NO)
			assert_int_equal(pw.nworkers, pwq[i].nworkers);
		const int w[] = { pwq[i].w0, pwq[i].w1, pwq[i].w2 };
		for (size_t k = 0; k < ARRAY_SIZE(w); k++)
			if (w[k] != NO)
				assert_int_equal(pw.workers[k], w[k]);
		if (pwq[i].nbars != NO)
			assert_int_equal(pw.nbars, pwq[i].nbars);
		if (pwq[i].bar0 != NO)
			assert_int_equal(pw.bars[0], pwq[i].bar0);
	}

	struct kmsg_pool pl;
	memset(&pl, 0, sizeof(pl));
	/* a Xen domU under qemu 9.1 (xen-devel) */
	assert_int_equal(kmsg_parse_pool("pool 2: cpus=1 node=0 flags=0x0 nice=0 hung=30s workers=2 idle: 34", &pl), 0);
	assert_int_equal(pl.id, 2);
	assert_string_equal(pl.info.cpus, "1");
	assert_int_equal(pl.hung_s, 30);
	assert_int_equal(pl.workers, 2);
	assert_int_equal(kmsg_parse_pool("pool 36: cpus=18 node=0 flags=0x0 nice=0 hung=41s workers=3 manager: 1190 idle: 1184", &pl), 0);
	assert_int_equal(pl.workers, 3);
	/* the bare header of the stalled-pool backtraces */
	assert_int_equal(kmsg_parse_pool("pool 2:", &pl), -EINVAL);
}

static void test_soft_rcu_lines(void **state)
{
	(void)state;
	static const struct {
		const char *in; int rc;
		int cpu, s; const char *comm; int pid;      /* NO, NULL: not checked */
	} soft[] = {
		{ "watchdog: BUG: soft lockup - CPU#18 stuck for 26s! [repro_worker:5031]",
		  0, 18, 26, "repro_worker", 5031 },
		/* ext4 on pmem (LKML), a 4.x host's syslog, a VM's idle task (a bug report) */
		{ "watchdog: BUG: soft lockup - CPU#19 stuck for 22s! [jbd2/pmem0-8:1002]",
		  0, NO, NO, "jbd2/pmem0-8", 1002 },
		{ "NMI watchdog: BUG: soft lockup - CPU#0 stuck for 24s! [dd:8103]", 0, 0, NO, "dd", NO },
		{ "BUG: soft lockup - CPU#2 stuck for 98s! [swapper/2:0]", 0, NO, NO, "swapper/2", 0 },
		/* a comm with "]" and ":", and text after the bracket */
		{ "watchdog: BUG: soft lockup - CPU#7 stuck for 22s! [a]:b:253305] Sample time: 4000897528 ns",
		  0, NO, NO, "a]:b", 253305 },
		{ "watchdog: BUG: soft lockup - CPU#11 stuck for 94s!", 0, 11, NO, NULL, -1 },
		{ "watchdog: BUG: soft lockup - CPU#3 stuck for 23s! [CPU 1/KVM:2210]",
		  0, NO, NO, "CPU 1/KVM", NO },
		{ "watchdog: BUG: soft lockup - CPU#3 stuck for 23s! [a]", -EINVAL, NO, NO, NULL, NO },
		{ "watchdog: BUG: soft lockup - CPU#3 stuck for 23s!x", -EINVAL, NO, NO, NULL, NO },
		{ "watchdog: Watchdog detected hard LOCKUP on cpu 3", -EINVAL, NO, NO, NULL, NO },
	};
	for (size_t i = 0; i < ARRAY_SIZE(soft); i++) {
		int cpu;
		unsigned s;
		struct kmsg_task t;
		print_message("# soft: %s\n", soft[i].in);
		assert_int_equal(kmsg_parse_soft_lockup(soft[i].in, &cpu, &s, &t), soft[i].rc);
		if (soft[i].cpu != NO)
			assert_int_equal(cpu, soft[i].cpu);
		if (soft[i].s != NO)
			assert_int_equal(s, soft[i].s);
		if (soft[i].comm)
			assert_string_equal(t.comm, soft[i].comm);
		if (soft[i].pid != NO)
			assert_int_equal(t.pid, soft[i].pid);
	}

	static const struct {
		const char *in; int rc;
		int kind; const char *fl; long j;             /* NO, NULL: not checked */
	} rcu[] = {
		{ "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
		  0, KMSG_RCU_STALL, "rcu_preempt", -1 },
		{ "rcu: INFO: rcu_sched self-detected stall on CPU", 0, KMSG_RCU_SELF, "rcu_sched", NO },
		{ "INFO: rcu_sched detected stalls on CPUs/tasks:", 0, KMSG_RCU_STALL, NULL, NO },
		{ "rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: { 3-... } 21002 jiffies s: 193 root: 0x1/.",
		  0, KMSG_RCU_EXPEDITED, NULL, NO },
		/* a Snapdragon laptop's hung boot (its own bug report) */
		{ "rcu: rcu_preempt kthread starved for 2495 jiffies! g21033 f0x0 RCU_GP_WAIT_FQS(5) ->state=0x0 ->cpu=7",
		  0, KMSG_RCU_STARVED, NULL, 2495 },
		{ "rcu: Hierarchical RCU implementation.", -EINVAL, NO, NULL, NO },
		{ "INFO: task rcu_x:1 blocked for more than 1 seconds.", -EINVAL, NO, NULL, NO },
	};
	for (size_t i = 0; i < ARRAY_SIZE(rcu); i++) {
		enum kmsg_rcu_kind kind;
		char fl[32];
		long j;
		print_message("# rcu: %s\n", rcu[i].in);
		assert_int_equal(kmsg_parse_rcu(rcu[i].in, &kind, fl, sizeof(fl), &j), rcu[i].rc);
		if (rcu[i].kind != NO)
			assert_int_equal(kind, rcu[i].kind);
		if (rcu[i].fl)
			assert_string_equal(fl, rcu[i].fl);
		if (rcu[i].j != NO)
			assert_int_equal(j, rcu[i].j);
	}
}

static void test_comm_match(void **state)
{
	(void)state;
	static const struct { const char *k, *scan; bool match; } c[] = {
		{ "systemd", "systemd", true },
		{ "kworker/u768:1", "kworker/u768:1+cpuset_migrate_mm", true },
		{ "kworker/18:1", "kworker/18:1-mm_percpu_wq", true },
		{ "kworker/18:1", "kworker/18:10-events", false },
		{ "bash", "bash+x", false },
		{ "systemd", "systemd-journal", false },
		/* a kthread's full name (6.x /proc), cut to 15 in the kernel's reports */
		{ "ext4-rsv-conver", "ext4-rsv-conversion", true },
		{ "", "x", false },
	};
	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		print_message("# case: %s / %s\n", c[i].k, c[i].scan);
		assert_int_equal(kmsg_comm_match(c[i].k, c[i].scan, strlen(c[i].scan)), c[i].match);
	}
}

/* ---- assembly ---- */

static const char *const seed004_names_systemd[] = {
	"__schedule", "schedule", "schedule_timeout", "wait_for_completion", "__flush_workqueue",
	"flush_migrate_mm_task_workfn", "task_work_run", "exit_to_user_mode_loop", "do_syscall_64",
	"entry_SYSCALL_64_after_hwframe",
};
static const char *const seed004_names_kworker[] = {
	"__schedule", "schedule", "schedule_timeout", "wait_for_completion", "__flush_work",
	"flush_work", "__lru_add_drain_all", "lru_cache_disable", "do_migrate_pages",
	"cpuset_migrate_mm_workfn", "process_one_work", "worker_thread", "kthread",
	"ret_from_fork", "ret_from_fork_asm",
};

static void fixture_path(char *out, size_t cap)
{
	assert_true(unit_srcpath("tests/fixtures/seed004-kmsg/dev/kmsg", out, cap));
}

/* seed 004's two splats and the suppression line, as kernel records, read by kmsg_read from
 * the fixture's capture; before them the same hung-task line and a blocker line written by
 * a process (facility user), which must change nothing. */
static void test_seed004_capture(void **state)
{
	(void)state;
	char path[4096];
	fixture_path(path, sizeof(path));
	struct cgw_kmsg k;
	assert_int_equal(kmsg_read(path, &k, 2000), 0);
	assert_string_equal(k.source, path);
	assert_int_equal(k.error, 0);
	assert_int_equal(k.records, 61);
	assert_int_equal(k.other_records, 2);
	assert_int_equal(k.kernel_records, 59);
	assert_int_equal(k.unparsed, 0);
	assert_int_equal(k.lost, 0);
	assert_int_equal(k.first_seq, 1812);
	assert_int_equal(k.last_seq, 1872);
	assert_int_equal(k.hung_total, 2);
	assert_int_equal(k.blockers_total, 0);
	assert_int_equal(k.nhung, 2);

	const struct kmsg_hung *h = &k.hung[0];
	assert_string_equal(h->task.comm, "systemd");
	assert_int_equal(h->task.pid, 1);
	assert_int_equal(h->blocked_s, 122);
	assert_int_equal(h->seq, 1814);
	assert_near(h->ts_s, 2212.3185, 1e-6);
	assert_int_equal(h->state, 'D');
	assert_int_equal(h->tgid, 1);
	assert_string_equal(h->workqueue, "");
	assert_false(h->have_blocker);
	assert_int_equal(h->nframes, ARRAY_SIZE(seed004_names_systemd));
	for (size_t i = 0; i < h->nframes; i++)
		assert_string_equal(h->frames[i].name, seed004_names_systemd[i]);
	assert_string_equal(h->frames[4].text, "__flush_workqueue+0x14e/0x430");

	h = &k.hung[1];
	assert_string_equal(h->task.comm, "kworker/u768:1");
	assert_int_equal(h->task.pid, 1765);
	assert_int_equal(h->state, 'D');
	assert_int_equal(h->tgid, 1765);
	assert_string_equal(h->workqueue, "cpuset_migrate_mm");
	assert_string_equal(h->work_fn, "cpuset_migrate_mm_workfn");
	assert_int_equal(h->nframes, ARRAY_SIZE(seed004_names_kworker));
	for (size_t i = 0; i < h->nframes; i++)
		assert_string_equal(h->frames[i].name, seed004_names_kworker[i]);

	assert_true(k.suppressed_seen);
	assert_int_equal(k.suppressed_seq, 1872);
	k.warnings = -2;                           /* the message alone */
	assert_true(kmsg_suppressed(&k));
	kmsg_free(&k);
}

/* The same capture with one allocation refused at each point in turn: never an abort; the
 * reports are counted, and kept when there was memory for them (valgrind: nothing leaks). */
static void test_seed004_out_of_memory(void **state)
{
	(void)state;
	char path[4096];
	fixture_path(path, sizeof(path));
	int short_of_reports = 0, short_of_frames = 0, whole = 0;
	for (long n = 0; n < 300; n++) {
		struct cgw_kmsg k;
		cgw_fail_alloc_after = n;
		int r = kmsg_read(path, &k, 2000);
		bool refused = cgw_fail_alloc_after < 0;
		cgw_fail_alloc_after = -1;
		if (r == 0) {
			assert_int_equal(k.hung_total, 2);
			assert_true(k.nhung <= 2);
			short_of_reports += k.nhung < 2;
			size_t frames = 0;
			for (size_t i = 0; i < k.nhung; i++)
				frames += k.hung[i].nframes;
			short_of_frames += k.nhung == 2 && frames < ARRAY_SIZE(seed004_names_systemd) +
			                   ARRAY_SIZE(seed004_names_kworker);
			whole += !refused;
		}
		kmsg_free(&k);
		if (!refused)
			break;
	}
	assert_true(short_of_reports > 0);
	assert_true(short_of_frames > 0);
	assert_int_equal(whole, 1);
}

/* Every record of the same capture turned into facility user (PRI | 8): nothing at all. */
static void test_seed004_as_user_facility(void **state)
{
	(void)state;
	char path[4096], buf[65536];
	fixture_path(path, sizeof(path));
	ssize_t n = read_small_file(path, buf, sizeof(buf));
	assert_true(n > 0);
	struct strbuf sb = { 0 };
	for (const char *l = buf; *l;) {
		size_t len = strcspn(l, "\n");
		char *end;
		unsigned long pri = strtoul(l, &end, 10);
		sb_printf(&sb, "%lu", pri | 8);
		sb_add(&sb, end, (size_t)(l + len - end));
		sb_add(&sb, "\n", 1);
		l += len + (l[len] == '\n');
	}
	struct cgw_kmsg k;
	kmsg_init(&k);
	kmsg_feed_buf(&k, sb.s, sb.len);
	assert_int_equal(k.records, 61);
	assert_int_equal(k.other_records, 61);
	assert_int_equal(k.kernel_records, 0);
	assert_int_equal(k.hung_total, 0);
	assert_int_equal(k.nhung, 0);
	assert_false(k.suppressed_seen);
	assert_false(kmsg_suppressed(&k));
	kmsg_free(&k);
	sb_free(&sb);
}

/* Each kind of report, written as user.info (PRI 14), user.emerg (8, a "<0>" prefix) and
 * user.warning (12): counted, never parsed. */
static void test_user_facility_ignored(void **state)
{
	(void)state;
	static const char *const forged[] = {
		"INFO: task systemd:1 blocked for more than 122 seconds.",
		"INFO: task systemd:1 is blocked on a mutex likely owned by task sshd:5012.",
		"Future hung task reports are suppressed, see sysctl kernel.hung_task_warnings",
		"BUG: workqueue lockup - pool cpus=18 node=0 flags=0x0 nice=0 stuck for 41s!",
		"watchdog: BUG: soft lockup - CPU#18 stuck for 26s! [repro_worker:5031]",
		"rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:",
	};
	static const unsigned pri[] = { 14, 8, 12 };
	struct cap c;
	cap_init(&c, 100, 5000000);
	for (size_t p = 0; p < ARRAY_SIZE(pri); p++)
		cap_lines(&c, pri[p], forged, ARRAY_SIZE(forged));
	struct cgw_kmsg k;
	feed_new(&k, &c);
	assert_int_equal(k.records, 18);
	assert_int_equal(k.other_records, 18);
	assert_int_equal(k.hung_total + k.blockers_total + k.wq_total + k.soft_total + k.rcu_total, 0);
	assert_false(k.suppressed_seen);
	kmsg_free(&k);
	sb_free(&c.sb);

	/* a forged blocker line in the middle of a real report is no part of it, nor does it
	 * end it */
	cap_init(&c, 200, 6000000);
	static const struct kline mixed[] = {
		{ 3, "INFO: task nfsd:812 blocked for more than 120 seconds." },
		{ 3, "      Not tainted 6.18.44 #1" },
		{ 14, "INFO: task nfsd:812 is blocked on a mutex likely owned by task evil:666." },
		{ 3, "\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message." },
		{ 6, "task:nfsd            state:D stack:0     pid:812   tgid:812   ppid:2      task_flags:0x288040 flags:0x00004000" },
		{ 6, "Call Trace:" },
		{ 6, " <TASK>" },
		{ 6, " __schedule+0x2b2/0x630" },
		{ 14, " evil_frame+0x1/0x2" },
		{ 6, " schedule+0x27/0x90" },
		{ 6, " nfsd4_shutdown_callback+0x5d/0x120 [nfsd]" },
		{ 6, " </TASK>" },
	};
	cap_klines(&c, mixed, ARRAY_SIZE(mixed));
	feed_new(&k, &c);
	assert_int_equal(k.nhung, 1);
	assert_false(k.hung[0].have_blocker);
	assert_int_equal(k.hung[0].state, 'D');
	assert_int_equal(k.hung[0].nframes, 3);
	assert_string_equal(k.hung[0].frames[2].text, "nfsd4_shutdown_callback+0x5d/0x120 [nfsd]");
	assert_int_equal(k.blockers_total, 0);
	kmsg_free(&k);
	sb_free(&c.sb);
}

/* 6.16's rw-semaphore report (LKML, rw_sem test module): the hung task, its blocker line,
 * then the owner's dump, then a second report; and a blocker line alone. */
static void test_blocker_assembly(void **state)
{
	(void)state;
	static const char *const report[] = {
		"INFO: task cat:28631 blocked for more than 122 seconds.",
		"      Not tainted 6.16.0-rc1 #1",
		"\"echo 0 > /proc/sys/kernel/hung_task_timeout_secs\" disables this message.",
	};
	static const char *const dump[] = {
		"task:cat             state:D stack:0     pid:28631 tgid:28631 ppid:28502  task_flags:0x400000 flags:0x00004002",
		"Call Trace:",
		" <TASK>",
		" __schedule+0x7c7/0x1930",
		" ? __pfx___schedule+0x10/0x10",
		" schedule+0x6a/0x180",
		" schedule_preempt_disabled+0x15/0x30",
		" rwsem_down_read_slowpath+0x55e/0xbc0",
		" down_read+0xe3/0x1a0",
		" rw_sem_read+0x1d/0x40 [rw_sem_test]",
		" vfs_read+0x17b/0xaa0",
		" </TASK>",
	};
	static const char *const owner[] = {
		"task:cat             state:S stack:0     pid:28630 tgid:28630 ppid:28501  task_flags:0x400000 flags:0x00004000",
		"Call Trace:",
		" <TASK>",
		" __schedule+0x7c7/0x1930",
		" schedule+0x6a/0x180",
		" schedule_timeout+0xfb/0x230",
		" msleep_interruptible+0x85/0xd0",
		" rw_sem_write+0x31/0x50 [rw_sem_test]",
		" </TASK>",
	};
	struct cap c;
	cap_init(&c, 4000, 7000000000ULL);
	cap_lines(&c, 3, report, ARRAY_SIZE(report));
	cap_lines(&c, 6, dump, ARRAY_SIZE(dump));
	cap_add(&c, 3, "INFO: task cat:28631 <reader> blocked on an rw-semaphore likely owned by task cat:28630 <writer>");
	cap_lines(&c, 6, owner, ARRAY_SIZE(owner));
	static const struct kline rest[] = {
		{ 3, "INFO: task kworker/3:2:412 blocked for more than 122 seconds." },
		{ 3, "      Not tainted 6.16.0-rc1 #1" },
		{ 6, "task:kworker/3:2     state:D stack:0     pid:412   tgid:412   ppid:2      task_flags:0x4208060 flags:0x00004000" },
		{ 6, "Workqueue: events_freezable_pwr_efficient disk_events_workfn" },
		{ 6, "Call Trace:" },
		{ 6, " <TASK>" },
		{ 6, " __schedule+0x7c7/0x1930" },
		{ 6, " </TASK>" },
		{ 3, "INFO: task kworker/3:2:412 is blocked on a mutex, but the owner is not found." },
		/* a blocker line with no report before it (the ring lost the head) */
		{ 6, "loop0: detected capacity change from 0 to 8" },
		{ 3, "INFO: task jbd2/sda1-8:301 blocked on a semaphore likely last held by task kworker/u8:3:97" },
		{ 6, "task:kworker/u8:3    state:R  running task     stack:0     pid:97    tgid:97    ppid:2      task_flags:0x4208060 flags:0x00004000" },
		{ 6, "Future hung task reports are suppressed, see sysctl kernel.hung_task_warnings" },
	};
	cap_klines(&c, rest, ARRAY_SIZE(rest));

	struct cgw_kmsg k;
	feed_new(&k, &c);
	assert_int_equal(k.hung_total, 2);
	assert_int_equal(k.blockers_total, 3);
	assert_int_equal(k.nhung, 3);
	const struct kmsg_hung *h = &k.hung[0];
	assert_string_equal(h->task.comm, "cat");
	assert_int_equal(h->task.pid, 28631);
	assert_int_equal(h->state, 'D');
	assert_int_equal(h->nframes, 7);
	assert_string_equal(h->frames[5].text, "rw_sem_read+0x1d/0x40 [rw_sem_test]");
	assert_true(h->have_blocker);
	assert_int_equal(h->blocker.lock, KMSG_LOCK_RWSEM);
	assert_int_equal(h->blocker.owner.pid, 28630);
	assert_string_equal(h->blocker.task_as, "reader");
	assert_string_equal(h->blocker.owner_as, "writer");
	assert_int_equal(h->blocker_seq, 4000 + 3 + 12);
	assert_int_equal(h->owner_state, 'S');
	assert_int_equal(h->nowner_frames, 5);
	assert_string_equal(h->owner_frames[4].name, "rw_sem_write");

	h = &k.hung[1];
	assert_string_equal(h->task.comm, "kworker/3:2");
	assert_string_equal(h->workqueue, "events_freezable_pwr_efficient");
	assert_string_equal(h->work_fn, "disk_events_workfn");
	assert_true(h->have_blocker);
	assert_false(h->blocker.owner_found);
	assert_int_equal(h->blocker.lock, KMSG_LOCK_MUTEX);

	h = &k.hung[2];
	assert_string_equal(h->task.comm, "jbd2/sda1-8");
	assert_int_equal(h->blocked_s, -1);
	assert_int_equal(h->state, 0);
	assert_true(h->have_blocker);
	assert_int_equal(h->blocker.lock, KMSG_LOCK_SEM);
	assert_string_equal(h->blocker.owner.comm, "kworker/u8:3");
	assert_int_equal(h->owner_state, 'R');
	assert_true(k.suppressed_seen);
	kmsg_free(&k);
	sb_free(&c.sb);
}

/* A workqueue lockup dump: seed 004 as the watchdog would print it on this host (the pools
 * of isolated CPUs 18 and 19 stuck behind the spinners, the drain work pending there with
 * the migration worker's flush barrier behind it: reconstructed, in 7.0's format), then the
 * rtnl deadlock dump of a 4.x host (LKML) after it. */
static const char *const seed004_wq_dump[] = {
	"BUG: workqueue lockup - pool cpus=18 node=0 flags=0x0 nice=0 stuck for 41s!",
	"BUG: workqueue lockup - pool cpus=19 node=0 flags=0x0 nice=0 stuck for 41s!",
	"Showing busy workqueues and worker pools:",
	"workqueue events: flags=0x0",
	"  pwq 74: cpus=18 node=0 flags=0x0 nice=0 active=1 refcnt=2",
	"    pending: vmstat_shepherd",
	"workqueue mm_percpu_wq: flags=0x8",
	"  pwq 74: cpus=18 node=0 flags=0x0 nice=0 active=2 refcnt=4",
	"    pending: lru_add_drain_per_cpu BAR(1765), vmstat_update",
	"  pwq 78: cpus=19 node=0 flags=0x0 nice=0 active=2 refcnt=4",
	"    pending: lru_add_drain_per_cpu BAR(1765), vmstat_update",
	"workqueue cpuset_migrate_mm: flags=0xa0002",
	"  pwq 772: cpus=0-17,96-107,179-191 flags=0x4 nice=0 active=1 refcnt=2",
	"    in-flight: 1765:cpuset_migrate_mm_workfn for 122s",
	"pool 74: cpus=18 node=0 flags=0x0 nice=0 hung=41s workers=2 idle: 1184",
	"pool 78: cpus=19 node=0 flags=0x0 nice=0 hung=41s workers=2 idle: 1191",
	"pool 772: cpus=0-17,96-107,179-191 flags=0x4 nice=0 hung=0s workers=4 idle: 1766 1770 90",
	"Showing backtraces of running workers in stalled CPU-bound worker pools:",
};
static const char *const rtnl_wq_dump[] = {
	"BUG: workqueue lockup - pool cpus=70 node=0 flags=0x0 nice=0 stuck for 3720s!",
	"BUG: workqueue lockup - pool cpus=70 node=0 flags=0x0 nice=-20 stuck for 3719s!",
	"Showing busy workqueues and worker pools:",
	"workqueue events: flags=0x0",
	"  pwq 32: cpus=16 node=0 flags=0x0 nice=0 active=2/256",
	"    in-flight: 1274779:slab_caches_to_rcu_destroy_workfn slab_caches_to_rcu_destroy_workfn",
	"workqueue events_highpri: flags=0x10",
	"  pwq 141: cpus=70 node=0 flags=0x0 nice=-20 active=1/256",
	"    pending: flush_backlog BAR(8)",
	"workqueue netns: flags=0xe000a",
	"  pwq 192: cpus=0-95 flags=0x4 nice=0 active=1/1",
	"    in-flight: 8:cleanup_net",
	"    delayed: cleanup_net",
};

static void test_wq_dump_assembly(void **state)
{
	(void)state;
	struct cap c;
	cap_init(&c, 9000, 2253000000ULL);
	cap_wq_dump(&c, seed004_wq_dump, ARRAY_SIZE(seed004_wq_dump));
	cap_add(&c, 6, "pool 74:");                 /* a running worker's dump: none here, ... */
	cap_add(&c, 6, "EXT4-fs (nvme0n1p1): mounted filesystem with ordered data mode.");
	cap_wq_dump(&c, rtnl_wq_dump, ARRAY_SIZE(rtnl_wq_dump));
	struct cgw_kmsg k;
	feed_new(&k, &c);
	assert_int_equal(k.wq_total, 2);
	assert_int_equal(k.wq_lockups_total, 4);
	assert_int_equal(k.nwq, 2);
	const struct kmsg_wq_dump *d = &k.wq[0];
	assert_int_equal(d->seq, 9000);
	assert_int_equal(d->nstuck, 2);
	assert_string_equal(d->stuck[1].info.cpus, "19");
	assert_int_equal(d->stuck[1].stuck_s, 41);
	assert_int_equal(d->npwq, 4);
	assert_string_equal(d->pwq[0].wq, "events");
	assert_string_equal(d->pwq[1].wq, "mm_percpu_wq");
	assert_int_equal(d->pwq[1].pool, 74);
	assert_int_equal(d->pwq[1].seq, 9007);
	assert_string_equal(d->pwq[1].pending, "lru_add_drain_per_cpu BAR(1765), vmstat_update");
	assert_int_equal(d->pwq[1].nbars, 1);
	assert_int_equal(d->pwq[1].bars[0], 1765);
	assert_string_equal(d->pwq[3].wq, "cpuset_migrate_mm");
	assert_string_equal(d->pwq[3].info.cpus, "0-17,96-107,179-191");
	assert_int_equal(d->pwq[3].nworkers, 1);
	assert_int_equal(d->pwq[3].workers[0], 1765);
	assert_int_equal(d->npools, 3);
	assert_int_equal(d->pools[1].id, 78);
	assert_int_equal(d->pools[1].hung_s, 41);

	d = &k.wq[1];
	assert_int_equal(d->nstuck, 2);
	assert_int_equal(d->stuck[1].info.nice, -20);
	assert_int_equal(d->npwq, 3);
	assert_string_equal(d->pwq[1].wq, "events_highpri");
	assert_int_equal(d->pwq[1].bars[0], 8);
	assert_string_equal(d->pwq[2].inactive, "cleanup_net");
	assert_int_equal(d->pwq[2].workers[0], 8);
	kmsg_free(&k);
	sb_free(&c.sb);
}

/* A dump of busy workqueues printed on request (sysrq-t or sysrq-w on 6.1: show_all_workqueues,
 * no "BUG: workqueue lockup" line before it), as the seed 004 VM showed: kept as a dump, not
 * a lockup, in the counts and in the JSON event's kind. */
static void test_wq_dump_on_request(void **state)
{
	(void)state;
	static const char *const dump[] = {
		"Showing busy workqueues and worker pools:",
		"workqueue mm_percpu_wq: flags=0x8",
		"  pwq 6: cpus=1 node=0 flags=0x0 nice=0 active=2/256 refcnt=4",
		"    pending: lru_add_drain_per_cpu BAR(57), vmstat_update",
	};
	struct cap c;
	cap_init(&c, 500, 95000000ULL);
	cap_lines(&c, 6, dump, ARRAY_SIZE(dump));
	struct cgw_kmsg k;
	feed_new(&k, &c);
	assert_int_equal(k.nwq, 1);
	assert_int_equal(k.wq_lockups_total, 0);
	assert_int_equal(k.wq[0].npwq, 1);
	struct json_object *o = kmsg_json(&k);
	assert_int_equal(json_object_get_int(json_object_object_get(o, "workqueue_lockups")), 0);
	struct json_object *ev = json_object_object_get(o, "events");
	assert_int_equal(json_object_array_length(ev), 1);
	assert_string_equal(json_object_get_string(json_object_object_get(
		json_object_array_get_idx(ev, 0), "kind")), "workqueue-dump");
	json_object_put(o);
	kmsg_free(&k);
	sb_free(&c.sb);
}

static void test_soft_lockup_assembly(void **state)
{
	(void)state;
	static const char *const soft[] = {
		"watchdog: BUG: soft lockup - CPU#18 stuck for 26s! [repro_worker:5031]",
		"Modules linked in: nls_iso8859_1 ena",
		"CPU: 18 UID: 0 PID: 5031 Comm: repro_worker Tainted: G           OE       7.0.0-1004-aws #4-Ubuntu",
		"Hardware name: Amazon EC2 c8a.metal-48xl/Not Specified, BIOS 1.0 10/16/2017",
		"RIP: 0010:clear_page_erms+0xb/0x20",
		"Code: 48 89 f7 ...",
		"Call Trace:",
		" <TASK>",
		" clear_huge_page+0x9a/0x1f0",
		" </TASK>",
	};
	struct cap c;
	cap_init(&c, 300, 9000000);
	cap_lines(&c, 0, soft, 1);
	cap_lines(&c, 4, soft + 1, ARRAY_SIZE(soft) - 1);
	cap_add(&c, 0, "watchdog: BUG: soft lockup - CPU#3 stuck for 23s! [CPU 1/KVM:2210]");
	struct cgw_kmsg k;
	feed_new(&k, &c);
	assert_int_equal(k.soft_total, 2);
	assert_int_equal(k.soft[0].cpu, 18);
	assert_int_equal(k.soft[0].stuck_s, 26);
	assert_string_equal(k.soft[0].task.comm, "repro_worker");
	assert_string_equal(k.soft[0].rip, "clear_page_erms+0xb/0x20");
	assert_string_equal(k.soft[1].task.comm, "CPU 1/KVM");
	assert_string_equal(k.soft[1].rip, "");
	kmsg_free(&k);
	sb_free(&c.sb);
}

static void test_rcu_assembly(void **state)
{
	(void)state;
	struct cap c;
	cap_init(&c, 50, 36340021);
	/* the Snapdragon laptop's boot; tabs as the kernel writes them (\x09) */
	static const struct kline stalls[] = {
		{ 3, "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:" },
		{ 3, "rcu: \t5-...0: (0 ticks this GP) idle=1a4c/1/0x4000000000000000 softirq=696/696 fqs=1058" },
		{ 3, "rcu: \t(detected by 2, t=5255 jiffies, g=1613, q=211 ncpus=8)" },
		{ 6, "Sending NMI from CPU 2 to CPUs 5:" },
		{ 4, "After 10 seconds, these CPUS still haven't responded to the NMI: 5" },
		{ 3, "rcu: rcu_preempt kthread starved for 2495 jiffies! g1613 f0x0 RCU_GP_WAIT_FQS(5) ->state=0x0 ->cpu=7" },
		{ 3, "rcu: INFO: rcu_sched self-detected stall on CPU" },
		{ 3, "rcu: \t3-....: (5249 ticks this GP) idle=8a6/1/0x4000000000000002 softirq=2262/2262 fqs=2620" },
		{ 3, "rcu: \t(t=5250 jiffies g=4517 q=3 ncpus=4)" },
		{ 3, "rcu: INFO: rcu_preempt detected expedited stalls on CPUs/tasks: { 3-... 12-.... } 21002 jiffies s: 193 root: 0x1/." },
	};
	cap_klines(&c, stalls, ARRAY_SIZE(stalls));
	struct cgw_kmsg k;
	feed_new(&k, &c);
	assert_int_equal(k.rcu_total, 3);
	assert_int_equal(k.nrcu, 3);
	const struct kmsg_rcu *r = &k.rcu[0];
	assert_int_equal(r->kind, KMSG_RCU_STALL);
	assert_string_equal(r->flavor, "rcu_preempt");
	assert_non_null(r->cpus);
	assert_true(cpus_test(r->cpus, 5));
	assert_false(cpus_test(r->cpus, 2));
	assert_int_equal(r->detected_by, 2);
	assert_int_equal(r->starved_jiffies, 2495);
	r = &k.rcu[1];
	assert_int_equal(r->kind, KMSG_RCU_SELF);
	assert_true(cpus_test(r->cpus, 3));
	assert_int_equal(r->starved_jiffies, -1);
	r = &k.rcu[2];
	assert_int_equal(r->kind, KMSG_RCU_EXPEDITED);
	assert_true(cpus_test(r->cpus, 3) && cpus_test(r->cpus, 12));
	kmsg_free(&k);
	sb_free(&c.sb);
}

/* "Future hung task reports are suppressed": suppressed until a report follows it; the
 * sysctl, when it was read, decides. */
static void test_suppression(void **state)
{
	(void)state;
	struct cap c;
	cap_init(&c, 10, 1000000);
	cap_add(&c, 3, "INFO: task a:10 blocked for more than 122 seconds.");
	cap_add(&c, 6, "Future hung task reports are suppressed, see sysctl kernel.hung_task_warnings");
	struct cgw_kmsg k;
	feed_new(&k, &c);
	assert_true(kmsg_suppressed(&k));
	k.warnings = 0;
	assert_true(kmsg_suppressed(&k));
	k.warnings = 10;                          /* raised again by the admin */
	assert_false(kmsg_suppressed(&k));
	k.warnings = -1;                          /* unlimited */
	assert_false(kmsg_suppressed(&k));
	k.warnings = -2;
	cap_add(&c, 3, "INFO: task b:11 blocked for more than 122 seconds.");
	kmsg_free(&k);
	feed(&k, &c);
	assert_true(k.suppressed_seen);
	assert_false(kmsg_suppressed(&k));        /* reporting again */
	kmsg_free(&k);
	kmsg_init(&k);
	k.warnings = 0;                           /* the message long gone from the ring */
	assert_true(kmsg_suppressed(&k));
	kmsg_free(&k);
	sb_free(&c.sb);
}

/* At most KMSG_MAX_HUNG reports kept, the newest; the rest counted; no leak (valgrind). */
static void test_bounded(void **state)
{
	(void)state;
	struct cap c;
	cap_init(&c, 1, 1000000);
	char line[128];
	for (int i = 0; i < 100; i++) {
		snprintf(line, sizeof(line), "INFO: task t%d:%d blocked for more than 122 seconds.", i, 1000 + i);
		cap_add(&c, 3, line);
		cap_add(&c, 6, "Call Trace:");
		cap_add(&c, 6, " __schedule+0x2b2/0x630");
		snprintf(line, sizeof(line), "watchdog: BUG: soft lockup - CPU#%d stuck for 22s! [x:1]", i);
		cap_add(&c, 0, line);
		snprintf(line, sizeof(line), "BUG: workqueue lockup - pool cpus=%d node=0 flags=0x0 nice=0 stuck for 31s!", i);
		cap_add(&c, 0, line);
		cap_add(&c, 3, "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:");
		cap_add(&c, 3, "rcu: \t5-...0: (0 ticks this GP)");
	}
	struct cgw_kmsg k;
	feed_new(&k, &c);
	assert_int_equal(k.hung_total, 100);
	assert_int_equal(k.nhung, KMSG_MAX_HUNG);
	assert_string_equal(k.hung[0].task.comm, "t36");
	assert_string_equal(k.hung[KMSG_MAX_HUNG - 1].task.comm, "t99");
	assert_int_equal(k.hung[KMSG_MAX_HUNG - 1].nframes, 1);
	assert_int_equal(k.soft_total, 100);
	assert_int_equal(k.nsoft, KMSG_MAX_SOFT);
	assert_int_equal(k.wq_total, 100);
	assert_int_equal(k.nwq, KMSG_MAX_WQ);
	assert_int_equal(k.rcu_total, 100);
	assert_int_equal(k.nrcu, KMSG_MAX_RCU);
	/* records lost in between: a gap in the sequence numbers */
	assert_int_equal(k.lost, 0);
	kmsg_feed_buf(&k, "6,100000,1,-;x\n", 15);
	assert_int_equal(k.lost, 100000 - 700 - 1);
	kmsg_free(&k);
	sb_free(&c.sb);
}

/* ---- readers ---- */

static void test_read_errors_and_sysctls(void **state)
{
	(void)state;
	char dir[64], path[128];
	tmpdir_make(dir, sizeof(dir));
	struct cgw_kmsg k;
	snprintf(path, sizeof(path), "%s/none", dir);
	assert_int_equal(kmsg_read(path, &k, 2000), -ENOENT);
	assert_int_equal(k.error, -ENOENT);
	assert_int_equal(k.records, 0);
	struct json_object *o = kmsg_json(&k);
	assert_string_equal(json_object_get_string(json_object_object_get(o, "error")),
	                    "No such file or directory");
	json_object_put(o);
	/* the sysctls under a tree's proc */
	snprintf(path, sizeof(path), "%s/sys", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	snprintf(path, sizeof(path), "%s/sys/kernel", dir);
	assert_int_equal(mkdir(path, 0700), 0);
	tmpdir_put(path, "hung_task_detect_count", "7\n");
	tmpdir_put(path, "hung_task_warnings", "-1\n");
	tmpdir_put(dir, "uptime", "2212.61 71820.14\n");
	snprintf(k.proc, sizeof(k.proc), "%s", dir);
	kmsg_read_sysctls(&k);
	assert_int_equal(k.detect_count, 7);
	assert_int_equal(k.warnings, -1);
	assert_near(k.uptime_s, 2212.61, 1e-9);
	snprintf(path, sizeof(path), "%s/sys/kernel/hung_task_detect_count", dir);
	unlink(path);
	kmsg_read_sysctls(&k);
	assert_int_equal(k.detect_count, -1);
	/* numbers the kernel never writes are not taken: absent, as an unreadable file */
	snprintf(path, sizeof(path), "%s/sys/kernel", dir);
	tmpdir_put(path, "hung_task_detect_count", "5x\n");
	tmpdir_put(path, "hung_task_warnings", "+3\n");
	tmpdir_put(dir, "uptime", "inf 1.0\n");
	kmsg_read_sysctls(&k);
	assert_int_equal(k.detect_count, -1);
	assert_int_equal(k.warnings, -2);
	assert_near(k.uptime_s, 0, 0);
	kmsg_free(&k);
	tmpdir_remove(dir);
}

/* Follow a plain file as the daemon follows /dev/kmsg: only what is appended after the
 * open, whole lines only. */
static void test_follow(void **state)
{
	(void)state;
	char dir[64], path[128];
	tmpdir_make(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/kmsg", dir);
	tmpdir_put(dir, "kmsg", "3,1,100,-;INFO: task old:5 blocked for more than 122 seconds.\n");
	struct cgw_kmsg k;
	assert_int_equal(kmsg_open_follow(&k, path), 0);
	assert_int_equal(kmsg_poll(&k), 0);
	FILE *f = fopen(path, "a");
	assert_non_null(f);
	fputs("3,2,200,-;INFO: task new:6 blocked for more than 122 seconds.\n"
	      "6,3,210,-;task:new             state:D stack:0     pid:6     tgid:6     ppid:1      task_f", f);
	fflush(f);
	assert_int_equal(kmsg_poll(&k), 1);
	assert_int_equal(k.nhung, 1);
	assert_string_equal(k.hung[0].task.comm, "new");
	assert_int_equal(k.hung[0].state, 0);
	fputs("lags:0x400000 flags:0x00004000\n SUBSYSTEM=x\n14,4,220,-;INFO: task new:6 is blocked on a mutex likely owned by task evil:1.\n", f);
	fclose(f);
	assert_int_equal(kmsg_poll(&k), 2);
	assert_int_equal(k.hung[0].state, 'D');
	assert_false(k.hung[0].have_blocker);
	assert_int_equal(k.records, 3);
	assert_int_equal(k.other_records, 1);
	kmsg_free(&k);
	assert_int_equal(kmsg_open_follow(&k, "/nonexistent/kmsg"), -ENOENT);
	assert_int_equal(k.error, -ENOENT);
	assert_int_equal(kmsg_poll(&k), -EBADF);
	kmsg_free(&k);
	tmpdir_remove(dir);
}

/* ---- linking ---- */

static bool has_line(const struct cgw_finding *f, const char *want)
{
	for (const char *l = f->evidence.s; l && *l;) {
		size_t n = strcspn(l, "\n");
		if (n == strlen(want) && memcmp(l, want, n) == 0)
			return true;
		l += n + (l[n] == '\n');
	}
	return false;
}

static int count_lines(const struct cgw_finding *f, const char *sub)
{
	int c = 0;
	for (const char *l = f->evidence.s; l && *l;) {
		size_t n = strcspn(l, "\n");
		char *line = xstrndup(l, n);
		c += strstr(line, sub) != NULL;
		free(line);
		l += n + (l[n] == '\n');
	}
	return c;
}

/* Nothing but printable ASCII and newlines in f's evidence. */
static void assert_printable(const struct cgw_finding *f)
{
	for (size_t i = 0; i < f->evidence.len; i++)
		if (f->evidence.s[i] != '\n' && (f->evidence.s[i] < 0x20 || f->evidence.s[i] > 0x7e))
			fail_msg("raw byte 0x%02x in: %s", (unsigned char)f->evidence.s[i],
			         esc(f->evidence.s));
}

#define assert_line(f, want) do { \
	if (!has_line((f), (want))) { \
		print_error("evidence:\n%s\nlacks the line:\n%s\n", (f)->evidence.s ? (f)->evidence.s : "", (want)); \
		fail(); \
	} \
} while (0)

/* seed 004 as the scan sees it (systemd blocked 122.4 s, the worker 122.3 s at uptime
 * 2212.61) with the fixture's kernel records. */
static void seed004_scan(struct unit_scan *u, const struct cgw_sig *sig)
{
	us_init(u);
	size_t idx[2];
	idx[0] = us_task(u, 1, 1, "systemd", 7, 122.4);
	idx[1] = us_task(u, 1765, 1765, "kworker/u768:1+cpuset_migrate_mm", 32, 122.3);
	size_t f = us_finding(u, sig, SEV_CRITICAL, 2, idx);
	cpus_set(&u->rep.f[f].cpus, 18);
	cpus_set(&u->rep.f[f].cpus, 19);
	cpus_set(&u->rep.f[f].cpus, 108);
}

/* seed004_scan linked to k, both tasks blocked for blocked_s (< 0: as seed004_scan has them);
 * the finding. */
static const struct cgw_finding *seed004_link(struct unit_scan *u, const struct cgw_sig *sig,
                                              struct cgw_kmsg *k, double blocked_s)
{
	seed004_scan(u, sig);
	if (blocked_s >= 0) {
		u->scan.t[0].blocked_s = blocked_s;
		u->scan.t[1].blocked_s = blocked_s;
	}
	kmsg_link(&u->rep, k);
	return &u->rep.f[0];
}

static void read_seed004(struct cgw_kmsg *k, char *path, size_t cap)
{
	fixture_path(path, cap);
	assert_int_equal(kmsg_read(path, k, 2000), 0);
	k->uptime_s = 2212.61;
	k->detect_count = 2;
	k->warnings = 0;
	snprintf(k->proc, sizeof(k->proc), "/proc");
}

static void test_link_seed004(void **state)
{
	(void)state;
	struct cgw_sig sig = unit_sig("lru-drain-isolated", "t", "s", SEV_CRITICAL);
	struct unit_scan u;
	seed004_scan(&u, &sig);
	struct cgw_kmsg k;
	char path[4096], want[8192];
	read_seed004(&k, path, sizeof(path));
	/* /proc gave both stacks */
	for (size_t i = 0; i < 2; i++)
		u.scan.t[i].nframes = (size_t)parse_stack_buf("[<0>] __flush_work+0x7d/0xd0\n",
		                                              &u.scan.t[i].frames);
	kmsg_link(&u.rep, &k);
	const struct cgw_finding *f = &u.rep.f[0];
	snprintf(want, sizeof(want), "%s seq 1814: kernel: INFO: task systemd:1 blocked for more than "
	         "122 seconds (at 2212.3 s since boot)", path);
	assert_line(f, want);
	snprintf(want, sizeof(want), "%s seq 1843: kernel: INFO: task kworker/u768:1:1765 blocked for "
	         "more than 122 seconds (at 2212.3 s since boot)", path);
	assert_line(f, want);
	snprintf(want, sizeof(want), "%s seq 1847: kernel: Workqueue: cpuset_migrate_mm "
	         "cpuset_migrate_mm_workfn: the work kworker/u768:1:1765 was running", path);
	assert_line(f, want);
	snprintf(want, sizeof(want), "%s seq 1872 (at 2212.3 s since boot): the kernel has stopped "
	         "reporting hung tasks (kernel.hung_task_warnings ran out): cgwatch is the only "
	         "report left", path);
	assert_line(f, want);
	assert_line(f, "/proc/sys/kernel/hung_task_detect_count: the kernel has detected a hung task "
	            "2 times since boot (it counts on after the reports stop)");
	/* the forged lines (facility user) are nowhere */
	assert_int_equal(count_lines(f, "blocked for more than"), 2);
	assert_int_equal(count_lines(f, "likely owned"), 0);
	assert_int_equal(count_lines(f, "sshd"), 0);
	/* /proc gave both stacks: the report's are not repeated */
	assert_int_equal(count_lines(f, "kernel stack of"), 0);
	us_free(&u);

	/* PID 1's stack is EPERM (as on most hosts): the report's stack stands in */
	seed004_scan(&u, &sig);
	kmsg_link(&u.rep, &k);
	snprintf(want, sizeof(want), "%s seq 1814: kernel stack of systemd:1 in the report: "
	         "wait_for_completion <- __flush_workqueue <- flush_migrate_mm_task_workfn <- "
	         "task_work_run <- exit_to_user_mode_loop <- do_syscall_64 <- "
	         "entry_SYSCALL_64_after_hwframe", path);
	assert_line(&u.rep.f[0], want);
	us_free(&u);
	kmsg_free(&k);
}

/* A report is linked only to the task it names, in the wait it is in now. */
static void test_link_only_same_task_and_wait(void **state)
{
	(void)state;
	struct cgw_sig sig = unit_sig("unknown", "t", "s", SEV_WARNING);
	struct cgw_kmsg k;
	char path[4096];
	read_seed004(&k, path, sizeof(path));
	k.warnings = -1;                          /* reporting: no suppression line */
	k.detect_count = 0;
	static const struct { const char *what, *comm; int tid; double blocked; char state; } c[] = {
		{ "pid 1765 reused by bash", "bash", 1765, 122.3, 'D' },
		{ "the same worker, blocked again since 10 s (an earlier wait was reported)",
		  "kworker/u768:1+cpuset_migrate_mm", 1765, 10, 'D' },
		{ "the same worker, runnable now", "kworker/u768:1+cpuset_migrate_mm", 1765, 122.3, 'R' },
		{ "another kworker", "kworker/u768:2+cpuset_migrate_mm", 1765, 122.3, 'D' },
	};
	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		print_message("# case: %s\n", c[i].what);
		struct unit_scan u;
		us_init(&u);
		size_t idx = us_task(&u, c[i].tid, c[i].tid, c[i].comm, strlen(c[i].comm), c[i].blocked);
		u.scan.t[idx].state = c[i].state;
		us_finding(&u, &sig, SEV_WARNING, 1, &idx);
		kmsg_link(&u.rep, &k);
		assert_int_equal(u.rep.f[0].evidence.len, 0);
		us_free(&u);
	}
	kmsg_free(&k);
}

/* A comm with a newline: escaped by the kernel (\x0a), undone by the parser, matched to
 * the scanned comm byte for byte, escaped again in the evidence. */
static void test_link_hostile_comm(void **state)
{
	(void)state;
	struct cap c;
	cap_init(&c, 10, 1000000000);
	cap_add(&c, 3, "INFO: task a\nFINDING x:4242 blocked for more than 130 seconds.");
	struct cgw_kmsg k;
	cap_kmsg(&k, &c, 1000.5);
	assert_int_equal(k.nhung, 1);
	assert_string_equal(k.hung[0].task.comm, "a\nFINDING x");
	struct cgw_sig sig = unit_sig("unknown", "t", "s", SEV_WARNING);
	struct unit_scan u;
	us_init(&u);
	size_t idx = us_task(&u, 4242, 4242, "a\nFINDING x", 11, 130.4);
	us_finding(&u, &sig, SEV_WARNING, 1, &idx);
	kmsg_link(&u.rep, &k);
	assert_line(&u.rep.f[0], "/dev/kmsg seq 10: kernel: INFO: task a\\nFINDING x:4242 blocked "
	            "for more than 130 seconds (at 1000.0 s since boot)");
	link_free(&u, &k, &c);
}

/* Blocker lines: the owner in another finding, in this one, unscanned; not found. */
static void test_link_blocker(void **state)
{
	(void)state;
	struct cap c;
	cap_init(&c, 500, 3000000000ULL);
	static const struct kline reports[] = {
		{ 3, "INFO: task umount:900 blocked for more than 245 seconds." },
		{ 6, "task:umount          state:D stack:0     pid:900   tgid:900   ppid:1      task_flags:0x400100 flags:0x00004002" },
		{ 3, "INFO: task umount:900 is blocked on a mutex likely owned by task fuse worker:77." },
		{ 3, "INFO: task sync:901 blocked for more than 245 seconds." },
		{ 3, "INFO: task sync:901 <reader> blocked on an rw-semaphore likely owned by task umount:900 <writer>" },
		{ 3, "INFO: task df:902 blocked for more than 245 seconds." },
		{ 3, "INFO: task df:902 blocked on a semaphore likely last held by task kworker/0:3:33" },
		{ 6, "task:kworker/0:3     state:S stack:0     pid:33    tgid:33    ppid:2      task_flags:0x4208060 flags:0x00004000" },
		{ 3, "INFO: task ls:903 blocked for more than 245 seconds." },
		{ 3, "INFO: task ls:903 is blocked on a mutex, but the owner is not found." },
	};
	cap_klines(&c, reports, ARRAY_SIZE(reports));
	struct cgw_kmsg k;
	cap_kmsg(&k, &c, 3000.5);
	struct cgw_sig fuse = unit_sig("fuse-wait", "t", "s", SEV_WARNING);
	struct cgw_sig unk = unit_sig("unknown", "t", "s", SEV_WARNING);
	struct unit_scan u;
	us_init(&u);
	size_t a[4];
	a[0] = us_task(&u, 900, 900, "umount", 6, 245.6);
	a[1] = us_task(&u, 901, 901, "sync", 4, 245.6);
	a[2] = us_task(&u, 902, 902, "df", 2, 245.6);
	a[3] = us_task(&u, 903, 903, "ls", 2, 245.6);
	size_t w = us_task(&u, 77, 70, "fuse worker", 11, 300);
	us_finding(&u, &unk, SEV_WARNING, 4, a);
	us_finding(&u, &fuse, SEV_WARNING, 1, &w);
	kmsg_link(&u.rep, &k);
	const struct cgw_finding *f = &u.rep.f[0];
	assert_line(f, "/dev/kmsg seq 502: kernel: INFO: task umount:900 is blocked on a mutex likely "
	            "owned by task fuse worker:77");
	assert_line(f, "the likely owner of the mutex, TID 77 (fuse worker), is in finding fuse-wait");
	assert_line(f, "/dev/kmsg seq 504: kernel: INFO: task sync:901 <reader> blocked on an "
	            "rw-semaphore likely owned by task umount:900 <writer>");
	assert_line(f, "the likely owner of the rw-semaphore, PID 900 (umount), is in this finding");
	assert_line(f, "/dev/kmsg seq 506: kernel: INFO: task df:902 blocked on a semaphore likely "
	            "last held by task kworker/0:3:33");
	assert_line(f, "the likely last holder of the semaphore, task 33 (kworker/0:3), is neither "
	            "blocked nor waiting to run in this scan (the kernel showed it in state S)");
	assert_line(f, "/dev/kmsg seq 509: kernel: INFO: task ls:903 is blocked on a mutex, but the "
	            "owner is not found");
	/* the owner's finding gets nothing it did not report itself */
	assert_int_equal(u.rep.f[1].evidence.len, 0);
	link_free(&u, &k, &c);
}

/* The scan's task iterator named the lock's owner (lock_link): the kernel's blocker line for
 * the same waiter confirms it on the iterator's line, or, where it names another owner or
 * none, is quoted there with the iterator's; a task the iterator gave no owner for (the
 * /proc source) keeps the kernel's lines as the source. The lines: the rw_sem and semaphore
 * test modules of the hung-task blocker series (LKML), a KVM host, Proxmox vzdump to NFS. */
static void test_link_blocker_iterator(void **state)
{
	(void)state;
	struct cap c;
	cap_init(&c, 700, 3000000000ULL);
	static const struct kline reports[] = {
		{ 3, "INFO: task CPU 0/KVM:1499 blocked for more than 122 seconds." },
		{ 3, "INFO: task CPU 0/KVM:1499 is blocked on a mutex likely owned by task qemu: io:1500." },
		{ 3, "INFO: task cat:28631 blocked for more than 122 seconds." },
		{ 3, "INFO: task cat:28631 <reader> blocked on an rw-semaphore likely owned by task cat:28630 <writer>" },
		{ 3, "INFO: task worker:488783 blocked for more than 122 seconds." },
		{ 3, "INFO: task worker:488783 is blocked on an rw-semaphore, but the owner is not found." },
		{ 3, "INFO: task rw_sem_thread2:36526 blocked for more than 122 seconds." },
		{ 3, "INFO: task rw_sem_thread2:36526 <writer> blocked on an rw-semaphore likely owned by task rw_sem_thread1:36525 <writer>" },
		{ 3, "INFO: task cat:945 blocked for more than 122 seconds." },
		{ 3, "INFO: task cat:945 blocked on a semaphore likely last held by task cat:938" },
	};
	cap_klines(&c, reports, ARRAY_SIZE(reports));
	struct cgw_kmsg k;
	cap_kmsg(&k, &c, 3000.5);
	struct cgw_sig unk = unit_sig("unknown", "t", "s", SEV_WARNING);
	struct unit_scan u;
	us_init(&u);
	u.rep.kmsg = &k;
	size_t a[5];
	a[0] = us_task(&u, 1499, 1499, "CPU 0/KVM", 9, 122.5);
	a[1] = us_task(&u, 28631, 28631, "cat", 3, 122.5);
	a[2] = us_task(&u, 488783, 488783, "worker", 6, 122.5);
	a[3] = us_task(&u, 36526, 36526, "rw_sem_thread2", 14, 122.5);
	a[4] = us_task(&u, 945, 945, "cat", 3, 122.5);
	static const struct { int kind; bool likely; int owner; const char *comm; } it[] = {
		{ 1, false, 1500, "qemu: io" },       /* the same owner */
		{ 3, false, 28629, "cat" },           /* another one */
		{ 3, true, 488001, "worker" },        /* the kernel found none */
		{ 0, false, 0, "" },                  /* no iterator: /proc */
		{ 2, false, 0, "" },                  /* the iterator read no last holder */
	};
	for (size_t i = 0; i < ARRAY_SIZE(it); i++) {
		struct cgw_task *t = &u.scan.t[a[i]];
		t->lock_kind = it[i].kind;
		t->owner_likely = it[i].likely;
		t->owner_tid = t->owner_tgid = it[i].owner;
		snprintf(t->owner_comm, sizeof(t->owner_comm), "%s", it[i].comm);
	}
	us_finding(&u, &unk, SEV_WARNING, ARRAY_SIZE(a), a);
	lock_link(&u.rep);
	kmsg_link(&u.rep, &k);
	const struct cgw_finding *f = &u.rep.f[0];
	assert_line(f, "PID 1499 (CPU 0/KVM) is blocked on a mutex held by PID 1500 (qemu: io), not "
	            "blocked past the threshold in this scan; the kernel's hung-task report agrees "
	            "(/dev/kmsg seq 701)");
	assert_line(f, "PID 28631 (cat) is blocked on an rw-semaphore (to read) held by PID 28629 "
	            "(cat), not blocked past the threshold in this scan; the kernel's hung-task "
	            "report names another owner (/dev/kmsg seq 703: task cat:28630 <writer>)");
	assert_line(f, "PID 488783 (worker) is blocked on an rw-semaphore (to read) held for "
	            "reading, its last reader PID 488001 (worker), not blocked past the threshold "
	            "in this scan; the kernel's hung-task report did not find the owner (/dev/kmsg "
	            "seq 705)");
	/* the kernel's own lines for these three are not repeated */
	assert_int_equal(count_lines(f, "kernel: INFO: task CPU 0/KVM:1499 is blocked"), 0);
	assert_int_equal(count_lines(f, "kernel: INFO: task cat:28631 <reader>"), 0);
	assert_int_equal(count_lines(f, "kernel: INFO: task worker:488783 is blocked"), 0);
	/* the /proc source, and an owner the iterator did not read: the kernel's lines stay */
	assert_line(f, "/dev/kmsg seq 707: kernel: INFO: task rw_sem_thread2:36526 <writer> blocked "
	            "on an rw-semaphore likely owned by task rw_sem_thread1:36525 <writer>");
	assert_line(f, "the likely owner of the rw-semaphore, task 36525 (rw_sem_thread1), is "
	            "neither blocked nor waiting to run in this scan");
	assert_line(f, "PID 945 (cat) is blocked on a semaphore whose last holder the kernel does "
	            "not record; the kernel's hung-task report names one (/dev/kmsg seq 709, below)");
	assert_line(f, "/dev/kmsg seq 709: kernel: INFO: task cat:945 blocked on a semaphore likely "
	            "last held by task cat:938");
	assert_int_equal(count_lines(f, "the likely "), 2);
	/* the hung-task reports themselves are there */
	assert_int_equal(count_lines(f, "blocked for more than 122 seconds"), 5);
	link_free(&u, &k, &c);
}

/* The seed 004 lockup dump linked to the seed 004 finding: the pools of its CPUs, the drain
 * work pending there, the worker's flush barrier, and the pools' state. */
static void test_link_wq(void **state)
{
	(void)state;
	struct cap c;
	cap_init(&c, 1880, 2253000000ULL);
	cap_wq_dump(&c, seed004_wq_dump, ARRAY_SIZE(seed004_wq_dump));
	cap_wq_dump(&c, rtnl_wq_dump, ARRAY_SIZE(rtnl_wq_dump));    /* another host's: other CPUs */
	struct cgw_kmsg k;
	cap_kmsg(&k, &c, 2260.0);
	struct cgw_sig sig = unit_sig("lru-drain-isolated", "t", "s", SEV_CRITICAL);
	struct unit_scan u;
	const struct cgw_finding *f = seed004_link(&u, &sig, &k, 170);
	assert_line(f, "/dev/kmsg seq 1880: kernel: BUG: workqueue lockup - pool cpus=18 node=0 "
	            "flags=0x0 nice=0 stuck for 41s! (at 2253.0 s since boot)");
	assert_line(f, "/dev/kmsg seq 1881: kernel: BUG: workqueue lockup - pool cpus=19 node=0 "
	            "flags=0x0 nice=0 stuck for 41s! (at 2253.0 s since boot)");
	assert_line(f, "/dev/kmsg seq 1884: kernel: workqueue events, pool 74 (cpus=18): pending: "
	            "vmstat_shepherd");
	assert_line(f, "/dev/kmsg seq 1887: kernel: workqueue mm_percpu_wq, pool 74 (cpus=18): "
	            "pending: lru_add_drain_per_cpu BAR(1765), vmstat_update");
	assert_line(f, "BAR(1765) on workqueue mm_percpu_wq, pool 74 (cpus=18): a flush barrier, "
	            "queued behind this work by PID 1765 (kworker/u768:1+cpuset_migrate_mm), which "
	            "waits for it: a scanned waiter, in this finding");
	assert_line(f, "BAR(1765) on workqueue mm_percpu_wq, pool 78 (cpus=19): a flush barrier, "
	            "queued behind this work by PID 1765 (kworker/u768:1+cpuset_migrate_mm), which "
	            "waits for it: a scanned waiter, in this finding");
	assert_line(f, "/dev/kmsg seq 1892: kernel: workqueue cpuset_migrate_mm, pool 772 "
	            "(cpus=0-17,96-107,179-191): in-flight: 1765:cpuset_migrate_mm_workfn for 122s");
	assert_line(f, "/dev/kmsg seq 1894: kernel: pool 74 (cpus=18 nice=0) has made no progress "
	            "for 41 s; workers: 2");
	assert_int_equal(count_lines(f, "pool 772 (cpus=0-17,96-107,179-191 nice=0) has made"), 0);
	/* the other host's dump names none of this finding's CPUs or tasks */
	assert_int_equal(count_lines(f, "cpus=70"), 0);
	assert_int_equal(count_lines(f, "BAR(8)"), 0);
	us_free(&u);

	/* a dump from before the wait began belongs to something else */
	k.uptime_s = 4000;
	assert_int_equal(count_lines(seed004_link(&u, &sig, &k, 2), "workqueue"), 0);
	link_free(&u, &k, &c);
}

/* A pool's CPUs are a CPU list, as the kernel prints them; a replayed capture whose "cpus="
 * holds other bytes (here an escape sequence) is not a pool line. Found by fuzz-kmsg: the
 * CPUs went raw into the evidence ("pool 78 (cpus=19\x1b[2J)") and the BAR line. */
static void test_link_pool_cpus_raw(void **state)
{
	(void)state;
	struct kmsg_poolinfo pi;
	struct kmsg_pwq pw;
	struct kmsg_pool pl;
	unsigned s;
	memset(&pw, 0, sizeof(pw));
	assert_int_equal(kmsg_parse_pwq("  pwq 78: cpus=19\x80 node=0 flags=0x0 nice=0 active=2 refcnt=4",
	                                &pw), -EINVAL);
	assert_int_equal(kmsg_parse_wq_lockup("BUG: workqueue lockup - pool cpus=19\x1b[2J node=0 "
	                                      "flags=0x0 nice=0 stuck for 41s!", &pi, &s), -EINVAL);
	assert_int_equal(kmsg_parse_pool("pool 78: cpus=1\x07 node=0 flags=0x0 nice=0 hung=41s workers=2",
	                                 &pl), -EINVAL);

	const char *dump[ARRAY_SIZE(seed004_wq_dump)];
	for (size_t i = 0; i < ARRAY_SIZE(dump); i++)
		dump[i] = strstr(seed004_wq_dump[i], "pwq 78:")
		          ? "  pwq 78: cpus=19\x1b[2J node=0 flags=0x0 nice=0 active=2 refcnt=4"
		          : seed004_wq_dump[i];
	struct cap c;
	cap_init(&c, 1880, 2253000000ULL);
	cap_wq_dump(&c, dump, ARRAY_SIZE(dump));
	struct cgw_kmsg k;
	cap_kmsg(&k, &c, 2260.0);
	struct cgw_sig sig = unit_sig("lru-drain-isolated", "t", "s", SEV_CRITICAL);
	struct unit_scan u;
	const struct cgw_finding *f = seed004_link(&u, &sig, &k, 170);
	assert_true(f->evidence.len > 0);
	assert_printable(f);
	/* the rest of the dump as before, and nothing of the line that is no pool's */
	assert_int_equal(count_lines(f, "pool 74 (cpus=18)"), 3);
	assert_int_equal(count_lines(f, "BAR(1765) on workqueue"), 1);
	assert_int_equal(count_lines(f, "pool 78"), 0);
	link_free(&u, &k, &c);
}

static void test_link_soft_rcu(void **state)
{
	(void)state;
	struct cap c;
	cap_init(&c, 70, 2200000000ULL);
	static const struct kline reports[] = {
		{ 0, "watchdog: BUG: soft lockup - CPU#18 stuck for 26s! [repro_worker:5031]" },
		{ 4, "RIP: 0010:clear_page_erms+0xb/0x20" },
		{ 0, "watchdog: BUG: soft lockup - CPU#40 stuck for 26s! [other:6000]" },
		{ 3, "rcu: INFO: rcu_preempt detected stalls on CPUs/tasks:" },
		{ 3, "rcu: \t108-...0: (0 ticks this GP) idle=1a4c/1/0x4000000000000000 softirq=696/696 fqs=1058" },
		{ 3, "rcu: rcu_preempt kthread starved for 2495 jiffies! g1613 f0x0 RCU_GP_WAIT_FQS(5) ->state=0x0 ->cpu=7" },
	};
	cap_klines(&c, reports, ARRAY_SIZE(reports));
	struct cgw_kmsg k;
	cap_kmsg(&k, &c, 2212.61);
	struct cgw_sig sig = unit_sig("lru-drain-isolated", "t", "s", SEV_CRITICAL);
	struct unit_scan u;
	const struct cgw_finding *f = seed004_link(&u, &sig, &k, -1);
	assert_line(f, "/dev/kmsg seq 70: kernel: watchdog: BUG: soft lockup - CPU#18 stuck for 26s! "
	            "[repro_worker:5031] (at 2200.0 s since boot)");
	assert_line(f, "/dev/kmsg seq 70: kernel: CPU 18 was in clear_page_erms+0xb/0x20 when the "
	            "soft lockup watchdog fired");
	assert_int_equal(count_lines(f, "CPU#40"), 0);
	assert_line(f, "/dev/kmsg seq 73: kernel: rcu: INFO: rcu_preempt detected stalls on "
	            "CPUs/tasks (at 2200.0 s since boot): stalled CPUs 108");
	assert_line(f, "/dev/kmsg seq 73: kernel: the rcu_preempt grace-period kthread was starved "
	            "for 2495 jiffies");
	link_free(&u, &k, &c);
}

/* An RCU flavor is a kernel identifier ("rcu_preempt"); a replayed capture's other bytes make
 * the line no RCU report. Found by fuzz-kmsg: "the rcu_pre\xfb...empt grace-period kthread was
 * starved" went raw into the evidence. */
static void test_link_rcu_flavor_raw(void **state)
{
	(void)state;
	enum kmsg_rcu_kind kind;
	char fl[32];
	long j;
	assert_int_equal(kmsg_parse_rcu("rcu: rcu_pre\xfb\xfb" "empt kthread starved for 2495 jiffies! g1613",
	                                &kind, fl, sizeof(fl), &j), -EINVAL);
	assert_int_equal(kmsg_parse_rcu("rcu: INFO: rcu_\x1b[2J detected stalls on CPUs/tasks:", &kind, fl,
	                                sizeof(fl), &j), -EINVAL);
	struct cap c;
	cap_init(&c, 70, 2200000000ULL);
	cap_add(&c, 3, "rcu: INFO: rcu_\x1b[2Jpreempt detected stalls on CPUs/tasks:");
	cap_add(&c, 3, "rcu: \t18-...0: (0 ticks this GP) idle=1a4c/1/0x4000000000000000 softirq=696/696 fqs=1058");
	cap_add(&c, 3, "rcu: rcu_\x1b[2Jpreempt kthread starved for 2495 jiffies! g1613 f0x0 RCU_GP_WAIT_FQS(5) ->state=0x0 ->cpu=7");
	struct cgw_kmsg k;
	cap_kmsg(&k, &c, 2212.61);
	struct cgw_sig sig = unit_sig("lru-drain-isolated", "t", "s", SEV_CRITICAL);
	struct unit_scan u;
	const struct cgw_finding *f = seed004_link(&u, &sig, &k, -1);
	assert_printable(f);
	assert_int_equal(count_lines(f, "grace-period kthread"), 0);
	link_free(&u, &k, &c);
}

static void test_json(void **state)
{
	(void)state;
	struct cgw_kmsg k;
	char path[4096];
	read_seed004(&k, path, sizeof(path));
	struct cap c;
	cap_init(&c, 1900, 2253000000ULL);
	cap_wq_dump(&c, seed004_wq_dump, ARRAY_SIZE(seed004_wq_dump));
	cap_add(&c, 0, "watchdog: BUG: soft lockup - CPU#18 stuck for 26s! [repro\nworker:5031]");
	feed(&k, &c);
	struct json_object *o = kmsg_json(&k);
	const char *txt = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	/* cmocka cuts a long message without its newline, and "ok N" would follow on that line */
	print_message("# %.200s%s\n", txt, strlen(txt) > 200 ? "..." : "");
	assert_string_equal(json_object_get_string(json_object_object_get(o, "source")), path);
	assert_int_equal(json_object_get_int(json_object_object_get(o, "records")), 61 + 19);
	assert_int_equal(json_object_get_int(json_object_object_get(o, "not_kernel")), 2);
	assert_int_equal(json_object_get_int(json_object_object_get(o, "hung_task_reports")), 2);
	assert_int_equal(json_object_get_int(json_object_object_get(o, "workqueue_lockups")), 2);
	assert_int_equal(json_object_get_int(json_object_object_get(o, "soft_lockups")), 1);
	assert_int_equal(json_object_get_int(json_object_object_get(o, "rcu_stalls")), 0);
	assert_true(json_object_get_boolean(json_object_object_get(o, "suppressed")));
	assert_int_equal(json_object_get_int(json_object_object_get(o, "detect_count")), 2);
	assert_int_equal(json_object_get_int(json_object_object_get(o, "hung_task_warnings")), 0);
	assert_null(json_object_object_get(o, "error"));
	struct json_object *ev = json_object_object_get(o, "events");
	assert_int_equal(json_object_array_length(ev), 4);
	static const char *const kinds[] = { "hung-task", "hung-task", "workqueue-lockup", "soft-lockup" };
	for (size_t i = 0; i < 4; i++)
		assert_string_equal(json_object_get_string(json_object_object_get(
			json_object_array_get_idx(ev, i), "kind")), kinds[i]);
	struct json_object *h = json_object_array_get_idx(ev, 1);
	assert_string_equal(json_object_get_string(json_object_object_get(h, "comm")), "kworker/u768:1");
	assert_int_equal(json_object_get_int(json_object_object_get(h, "blocked_s")), 122);
	assert_string_equal(json_object_get_string(json_object_object_get(h, "workqueue")), "cpuset_migrate_mm");
	assert_int_equal(json_object_array_length(json_object_object_get(h, "stack")), 15);
	struct json_object *s = json_object_array_get_idx(ev, 3);
	assert_string_equal(json_object_get_string(json_object_object_get(s, "comm")), "repro\nworker");
	assert_non_null(strstr(txt, "\"barriers\":[1765]"));
	json_object_put(o);
	kmsg_free(&k);
	sb_free(&c.sb);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_record_parse),
		cmocka_unit_test(test_kmsg_hostile_numbers),
		cmocka_unit_test(test_hung_line),
		cmocka_unit_test(test_blocker_lines),
		cmocka_unit_test(test_task_header),
		cmocka_unit_test(test_workqueue_lines),
		cmocka_unit_test(test_soft_rcu_lines),
		cmocka_unit_test(test_comm_match),
		cmocka_unit_test(test_seed004_capture),
		cmocka_unit_test(test_seed004_out_of_memory),
		cmocka_unit_test(test_seed004_as_user_facility),
		cmocka_unit_test(test_user_facility_ignored),
		cmocka_unit_test(test_blocker_assembly),
		cmocka_unit_test(test_wq_dump_assembly),
		cmocka_unit_test(test_wq_dump_on_request),
		cmocka_unit_test(test_soft_lockup_assembly),
		cmocka_unit_test(test_rcu_assembly),
		cmocka_unit_test(test_suppression),
		cmocka_unit_test(test_bounded),
		cmocka_unit_test(test_read_errors_and_sysctls),
		cmocka_unit_test(test_follow),
		cmocka_unit_test(test_link_seed004),
		cmocka_unit_test(test_link_only_same_task_and_wait),
		cmocka_unit_test(test_link_hostile_comm),
		cmocka_unit_test(test_link_blocker),
		cmocka_unit_test(test_link_blocker_iterator),
		cmocka_unit_test(test_link_wq),
		cmocka_unit_test(test_link_pool_cpus_raw),
		cmocka_unit_test(test_link_soft_rcu),
		cmocka_unit_test(test_link_rcu_flavor_raw),
		cmocka_unit_test(test_json),
	};
	return tmpdir_cleanup_all(cmocka_run_group_tests(tests, NULL, NULL));
}
