/* test-sinks.c: where incidents go — the journal message and its MESSAGE_ID, the catalog,
 * report files and their rotation, atomic writes, the metrics file (docs/daemon.md). */
#include <ctype.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <sys/stat.h>
#include <time.h>

#include "unit.h"

#define T0 1796022982.0              /* 2026-11-30T07:16:22Z */
#define T0_ID "20261130T071622Z"

static struct cgw_sig sig_fuse, sig_cpuset, sig_nfs;

static int setup(void **state)
{
	(void)state;
	/* the resolved message gives a local time of day: make it UTC for fixed strings */
	setenv("TZ", "UTC", 1);
	tzset();
	umask(022);                          /* file modes are checked */
	sig_fuse = unit_sig("fuse-wait", "Waiting for a FUSE daemon",
	                    "A task is in stat() on a FUSE mount whose daemon does not answer.",
	                    SEV_WARNING);
	sig_cpuset = unit_sig("cpuset-migrate-wait", "Waiting for a cpuset migration",
	                      "Writing cpuset.mems waits for page migration.", SEV_WARNING);
	sig_nfs = unit_sig("nfs-server-wait", "NFS server not responding", "RPC to the server.",
	                   SEV_CRITICAL);
	return 0;
}

/* ---- incident_message ---- */

/* An incident of sig with n tasks (the first is the lead), none recovered. */
static void fixed_incident(struct incident *i, struct inc_task *t, size_t n, const char *sig,
                           enum cgw_sev sev)
{
	memset(i, 0, sizeof(*i));
	snprintf(i->sig, sizeof(i->sig), "%s", sig);
	snprintf(i->id, sizeof(i->id), T0_ID "-%s", sig);
	i->severity = sev;
	i->opened_at = i->last_event_at = T0;
	i->tasks = t;
	i->ntasks = i->ntasks_total = n;
}

static void set_task(struct inc_task *t, int tid, int tgid, const char *comm, size_t len,
                     double blocked)
{
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->tgid = tgid;
	t->start_ticks = 1000 + (unsigned long long)tid;
	memcpy(t->comm, comm, len);
	t->comm_len = len;
	t->blocked_s = blocked;
	snprintf(t->unit, sizeof(t->unit), "init.scope");
}

static void assert_message(const struct incident *i, enum inc_state st, const char *want)
{
	char out[1024];
	assert_ptr_equal(incident_message(i, st, out, sizeof(out)), out);
	if (strcmp(out, want) != 0)
		print_error("got  %s\nwant %s\n", out, want);
	assert_string_equal(out, want);
}

/* The open states, as docs/daemon.md spells them: lead task, blocked time, signature,
 * "(and N more tasks)", incident id, state, severity. */
static void test_message_open_states(void **state)
{
	(void)state;
	struct inc_task t[3];
	set_task(&t[0], 1765, 1765, "kworker/u768:1+cpuset_migrate_mm", 32, 20.1);
	set_task(&t[1], 1, 1, "systemd", 7, 21.3);
	set_task(&t[2], 2001, 2000, "x", 1, 20.0);
	struct incident i;
	fixed_incident(&i, t, 3, "cpuset-migrate-wait", SEV_WARNING);
	assert_message(&i, INC_OPENED,
	               "PID 1 (systemd) blocked 21.3 s in cpuset-migrate-wait (and 2 more tasks): "
	               "incident 20261130T071622Z-cpuset-migrate-wait opened, warning");
	i.severity = SEV_CRITICAL;
	t[1].blocked_s = 61.04;
	assert_message(&i, INC_ESCALATED,
	               "PID 1 (systemd) blocked 61.0 s in cpuset-migrate-wait (and 2 more tasks): "
	               "incident 20261130T071622Z-cpuset-migrate-wait escalated, critical");
	/* one task: no "(and ...)" */
	t[1].blocked_s = 21.3;
	i.ntasks = i.ntasks_total = 1;
	i.tasks = &t[1];
	assert_message(&i, INC_UPDATED,
	               "PID 1 (systemd) blocked 21.3 s in cpuset-migrate-wait: "
	               "incident 20261130T071622Z-cpuset-migrate-wait updated, critical");
	/* two: singular */
	i.tasks = t;
	i.ntasks = i.ntasks_total = 2;
	assert_message(&i, INC_OPENED,
	               "PID 1 (systemd) blocked 21.3 s in cpuset-migrate-wait (and 1 more task): "
	               "incident 20261130T071622Z-cpuset-migrate-wait opened, critical");
	/* a lower bound says so (the kernel reset se.exec_start; detect-duration.c) */
	t[1].bound = BOUND_LOWER;
	assert_message(&i, INC_OPENED,
	               "PID 1 (systemd) blocked at least 21.3 s in cpuset-migrate-wait (and 1 more "
	               "task): incident 20261130T071622Z-cpuset-migrate-wait opened, critical");
	t[1].resolved_at = T0 + 30;
	i.resolved_at = T0 + 30;
	assert_message(&i, INC_RESOLVED,
	               "PID 1 (systemd) was blocked at least 21.3 s in cpuset-migrate-wait (and 1 "
	               "more task); resolved at 07:16:52 (incident "
	               "20261130T071622Z-cpuset-migrate-wait)");
	t[1].bound = BOUND_EXACT;
	t[1].resolved_at = 0;
	i.resolved_at = 0;
	/* the lead is the longest still stuck: systemd recovered, the kworker leads */
	t[1].resolved_at = T0 + 300;
	char out[1024];
	incident_message(&i, INC_UPDATED, out, sizeof(out));
	static const char lead[] = "PID 1765 (kworker/u768:1+cpuset_migrate_mm) blocked 20.1 s in "
	                           "cpuset-migrate-wait";
	if (strncmp(out, lead, strlen(lead)) != 0)
		print_error("got  %s\nwant %s...\n", out, lead);
	assert_int_equal(strncmp(out, lead, strlen(lead)), 0);
}

/* A thread is "TID x of PID y"; its comm is C-escaped. */
static void test_message_thread(void **state)
{
	(void)state;
	struct inc_task t[2];
	set_task(&t[0], 4242, 4200, "a\nb\xff", 4, 33.3);
	set_task(&t[1], 4243, 4200, "worker", 6, 30.0);
	struct incident i;
	fixed_incident(&i, t, 2, "fuse-wait", SEV_WARNING);
	assert_message(&i, INC_OPENED,
	               "TID 4242 of PID 4200 (a\\nb\\xff) blocked 33.3 s in fuse-wait "
	               "(and 1 more task): incident 20261130T071622Z-fuse-wait opened, warning");
}

/* Resolved: "was blocked at least", the longest of all, the time of day it resolved. The last
 * scan that saw it blocked measured it: it went on until some time before the scan that saw it
 * no more, so the figure is a lower bound. */
static void test_message_resolved(void **state)
{
	(void)state;
	struct inc_task t[3];
	set_task(&t[0], 1, 1, "systemd", 7, 183.4);
	set_task(&t[1], 50, 50, "ls", 2, 190.0);
	set_task(&t[2], 51, 51, "df", 2, 30.0);
	struct incident i;
	fixed_incident(&i, t, 1, "fuse-wait", SEV_WARNING);
	i.resolved_at = 1796026447.6;            /* 2026-11-30T08:14:07Z */
	t[0].resolved_at = i.resolved_at;
	assert_message(&i, INC_RESOLVED,
	               "PID 1 (systemd) was blocked at least 183.4 s in fuse-wait; resolved at 08:14:07 "
	               "(incident 20261130T071622Z-fuse-wait)");
	/* the lead of a resolved incident is the longest, even if it recovered first */
	i.ntasks = i.ntasks_total = 3;
	t[1].resolved_at = T0 + 100;
	t[2].resolved_at = i.resolved_at;
	i.severity = SEV_CRITICAL;
	char out[1024];
	incident_message(&i, INC_RESOLVED, out, sizeof(out));
	static const char head[] = "PID 50 (ls) was blocked at least 190.0 s in fuse-wait";
	static const char tail[] = "; resolved at 08:14:07 (incident 20261130T071622Z-fuse-wait)";
	if (strncmp(out, head, strlen(head)) != 0 || strlen(out) < strlen(tail) ||
	    strcmp(out + strlen(out) - strlen(tail), tail) != 0)
		print_error("got %s\nwant %s ... %s\n", out, head, tail);
	assert_int_equal(strncmp(out, head, strlen(head)), 0);
	assert_true(strlen(out) >= strlen(tail));
	assert_string_equal(out + strlen(out) - strlen(tail), tail);
}

/* The message of an incident fed by scans (incidents_update) at its last change. */
static void scan_message(struct cgw_incidents *in, double now, int ntasks, int first_tid,
                         enum inc_state want, char *out, size_t cap)
{
	struct unit_scan u;
	us_init(&u);
	size_t idx[128];
	assert_true(ntasks <= (int)ARRAY_SIZE(idx));
	for (int k = 0; k < ntasks; k++) {
		char comm[16];
		int l = snprintf(comm, sizeof(comm), "t%d", first_tid + k);
		idx[k] = us_task(&u, first_tid + k, first_tid + k, comm, (size_t)l, 40.0 - k * 0.1);
	}
	us_finding(&u, &sig_fuse, SEV_WARNING, (size_t)ntasks, idx);
	struct inc_change *ch;
	size_t n = incidents_update(in, &u.rep, now, 300, &ch);
	us_free(&u);
	enum inc_state got = n ? ch[0].state : INC_NONE;
	free(ch);
	assert_int_equal(got, want);
	incident_message(&in->v[0], want, out, cap);
}

/* Past INC_MAX_TASKS: "(and N more tasks)" counts every task once, scan after scan. */
static void test_message_more_tasks_past_cap(void **state)
{
	(void)state;
	struct cgw_incidents in = { 0 };
	char out[1024];
	scan_message(&in, T0, INC_MAX_TASKS + 2, 100, INC_OPENED, out, sizeof(out));
	assert_non_null(strstr(out, "PID 100 (t100) blocked 40.0 s in fuse-wait (and 65 more "
	                            "tasks): incident"));
	scan_message(&in, T0 + 300, INC_MAX_TASKS + 2, 100, INC_UPDATED, out, sizeof(out));
	assert_non_null(strstr(out, " (and 65 more tasks): incident"));
	scan_message(&in, T0 + 600, INC_MAX_TASKS + 2, 100, INC_UPDATED, out, sizeof(out));
	incidents_free(&in);
	if (!strstr(out, " (and 65 more tasks): incident"))
		print_error("third scan of the same 66 tasks: %s\n", out);
	assert_non_null(strstr(out, " (and 65 more tasks): incident"));
}

/* docs/daemon.md: "(and N more tasks)" counts the other tasks past the threshold at that
 * scan, so tasks that recovered are not in it. */
static void test_message_more_tasks_stuck_only(void **state)
{
	(void)state;
	struct cgw_incidents in = { 0 };
	char out[1024];
	scan_message(&in, T0, 3, 1, INC_OPENED, out, sizeof(out));
	assert_non_null(strstr(out, "PID 1 (t1) blocked 40.0 s in fuse-wait (and 2 more tasks): "));
	/* tasks 2 and 3 recovered; task 1 still stuck at the update */
	scan_message(&in, T0 + 300, 1, 1, INC_UPDATED, out, sizeof(out));
	incidents_free(&in);
	static const char want[] = "PID 1 (t1) blocked 40.0 s in fuse-wait: incident " T0_ID
	                           "-fuse-wait updated, warning";
	if (strcmp(out, want) != 0)
		print_error("got  %s\nwant %s\n", out, want);
	assert_string_equal(out, want);
}

/* No task remembered, and a buffer too small: still a NUL-terminated prefix. */
static void test_message_edges(void **state)
{
	(void)state;
	struct incident i;
	fixed_incident(&i, NULL, 0, "fuse-wait", SEV_WARNING);
	assert_message(&i, INC_OPENED,
	               "a task blocked 0.0 s in fuse-wait: incident 20261130T071622Z-fuse-wait "
	               "opened, warning");
	struct inc_task t;
	set_task(&t, 1, 1, "systemd", 7, 21.3);
	i.tasks = &t;
	i.ntasks = i.ntasks_total = 1;
	char small[16];
	memset(small, 'X', sizeof(small));
	incident_message(&i, INC_OPENED, small, sizeof(small));
	assert_string_equal(small, "PID 1 (systemd)");
}

/* A latency incident (cause "pressure RES" or "cpu N") names its tasks only when it has some:
 * never "a task and 0 more tasks". */
static void test_message_latency_tasks(void **state)
{
	(void)state;
	struct incident i;
	fixed_incident(&i, NULL, 0, "pressure-stall", SEV_WARNING);
	snprintf(i.cause, sizeof(i.cause), "pressure cpu");
	i.resolved_at = 1796026447.6;            /* 2026-11-30T08:14:07Z */
	assert_message(&i, INC_RESOLVED,
	               "pressure-stall on pressure cpu; resolved at 08:14:07 (incident "
	               "20261130T071622Z-pressure-stall)");
	struct inc_task t[3];
	set_task(&t[0], 1, 1, "systemd", 7, 0.05);
	set_task(&t[1], 7, 7, "ls", 2, 0.01);
	set_task(&t[2], 8, 8, "df", 2, 0.01);
	i.tasks = t;
	i.ntasks = i.ntasks_total = 1;
	assert_message(&i, INC_RESOLVED,
	               "pressure-stall on pressure cpu, which named PID 1 (systemd); resolved at "
	               "08:14:07 (incident 20261130T071622Z-pressure-stall)");
	i.ntasks = i.ntasks_total = 3;
	assert_message(&i, INC_RESOLVED,
	               "pressure-stall on pressure cpu, which named PID 1 (systemd) and 2 more tasks; "
	               "resolved at 08:14:07 (incident 20261130T071622Z-pressure-stall)");
	i.resolved_at = 0;
	i.ntasks = i.ntasks_total = 1;
	assert_message(&i, INC_UPDATED,
	               "pressure-stall on pressure cpu, naming PID 1 (systemd): incident "
	               "20261130T071622Z-pressure-stall updated, warning");
}

/* ---- sink_journal without journald ---- */

/* What sink_journal(i, st) prints on stderr (fd 2 into a file meanwhile); its return in *rc. */
static void journal_line(const struct incident *i, enum inc_state st, int *rc, char *out,
                         size_t cap)
{
	char dir[64];
	tmpdir_make(dir, sizeof(dir));
	char p[128];
	snprintf(p, sizeof(p), "%s/stderr", dir);
	fflush(stderr);
	int saved = dup(2);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(saved >= 0 && fd >= 0);
	dup2(fd, 2);
	close(fd);
	*rc = sink_journal(i, st);
	fflush(stderr);
	dup2(saved, 2);
	close(saved);
	assert_true(tmpdir_get(dir, "stderr", out, cap) >= 0);
	tmpdir_remove(dir);
}

/* No journald socket: the message and its fields on one stderr line; PRIORITY as documented
 * (critical 2, warning 4, resolved 5); returns 1. */
static void test_journal_stderr(void **state)
{
	(void)state;
	struct stat st;
	if (stat("/run/systemd/journal/socket", &st) == 0) {
		print_message("# skip: journald is running here; the message would go to it\n");
		skip();
	}
	struct inc_task t[2];
	set_task(&t[0], 1, 1, "systemd", 7, 21.3);
	set_task(&t[1], 7, 7, "ls", 2, 20.0);
	struct incident i;
	fixed_incident(&i, t, 2, "fuse-wait", SEV_WARNING);
	snprintf(i.report, sizeof(i.report), "/var/log/cgwatch/" T0_ID "-fuse-wait-01-opened.json");
	char out[2048], want[2048], msg[512], id[33];
	int rc;
	journal_line(&i, INC_OPENED, &rc, out, sizeof(out));
	assert_int_equal(rc, 1);
	if (!strstr(out, "CGWATCH_COMM=systemd"))
		print_error("%s", out);
	snprintf(want, sizeof(want), "cgwatch: %s [CGWATCH_STATE=opened CGWATCH_INCIDENT=" T0_ID
	         "-fuse-wait CGWATCH_SIGNATURE=fuse-wait CGWATCH_SEVERITY=warning CGWATCH_PID=1 "
	         "CGWATCH_COMM=systemd CGWATCH_UNIT=init.scope CGWATCH_BLOCKED_SEC=21.3 "
	         "CGWATCH_BLOCKED_BOUND=exact CGWATCH_TASKS=2 CGWATCH_REPORT=/var/log/cgwatch/" T0_ID
	         "-fuse-wait-01-opened.json CGWATCH_BUNDLE= CGWATCH_USTACK= MESSAGE_ID=%s "
	         "PRIORITY=4]\n",
	         incident_message(&i, INC_OPENED, msg, sizeof(msg)), sig_message_id("fuse-wait", id));
	assert_string_equal(out, want);
	i.severity = SEV_CRITICAL;
	journal_line(&i, INC_ESCALATED, &rc, out, sizeof(out));
	assert_non_null(strstr(out, "CGWATCH_STATE=escalated "));
	assert_non_null(strstr(out, " PRIORITY=2]\n"));
	i.resolved_at = T0 + 60;
	t[0].resolved_at = t[1].resolved_at = T0 + 60;
	journal_line(&i, INC_RESOLVED, &rc, out, sizeof(out));
	assert_non_null(strstr(out, "CGWATCH_STATE=resolved "));
	assert_non_null(strstr(out, " PRIORITY=5]\n"));
	static const char rhead[] = "cgwatch: PID 1 (systemd) was blocked at least 21.3 s in fuse-wait";
	assert_int_equal(strncmp(out, rhead, strlen(rhead)), 0);
	assert_non_null(strstr(out, " CGWATCH_BLOCKED_SEC=21.3 CGWATCH_BLOCKED_BOUND=lower "));
	/* a comm that could forge a field or a line is C-escaped */
	set_task(&t[0], 9, 9, "x] PRIORITY=0\n", 14, 30.0);
	i.resolved_at = 0;
	t[0].resolved_at = t[1].resolved_at = 0;
	journal_line(&i, INC_OPENED, &rc, out, sizeof(out));
	assert_non_null(strstr(out, "CGWATCH_COMM=x] PRIORITY=0\\n CGWATCH_UNIT="));
	assert_int_equal(strchr(out, '\n') - out, (long)strlen(out) - 1);
	assert_null(strstr(out, "CGWATCH_CAUSE="));         /* none without a cause */
	/* a cause, C-escaped as the names are, after the other CGWATCH_ fields */
	snprintf(i.cause, sizeof(i.cause), "mount /mnt/a b\n] PRIORITY=0");
	journal_line(&i, INC_OPENED, &rc, out, sizeof(out));
	assert_non_null(strstr(out, " CGWATCH_BUNDLE= CGWATCH_USTACK= CGWATCH_CAUSE=mount /mnt/a b\\n] "
	                       "PRIORITY=0 MESSAGE_ID="));
	assert_int_equal(strchr(out, '\n') - out, (long)strlen(out) - 1);
	/* the lead task's top user frame, C-escaped */
	snprintf(t[0].ustack_top, sizeof(t[0].ustack_top), "middle+0x58 (/opt/a b\n+0x1548)");
	journal_line(&i, INC_OPENED, &rc, out, sizeof(out));
	assert_non_null(strstr(out, " CGWATCH_USTACK=middle+0x58 (/opt/a b\\n+0x1548) CGWATCH_CAUSE="));
}

/* ---- ustack_top: a task's innermost user frame, as the journal names it ---- */

static void test_ustack_top(void **state)
{
	(void)state;
	struct cgw_task t = { 0 };
	struct cgw_uframe f[2] = {
		{ .pc = 0x7f0000d43b8, .offset = 0xd43b8, .sym_off = 8, .module = "/lib/libc.so.6",
		  .symbol = "__vfork", .symbol_from = "symtab", .sym_exact = true },
		{ .pc = 0x55000001548, .offset = 0x1548, .module = "/opt/p" },
	};
	char b[400];
	assert_string_equal(ustack_top(&t, b, sizeof(b)), "");
	t.uframes = f;
	t.nuframes = 2;
	assert_string_equal(ustack_top(&t, b, sizeof(b)), "__vfork+0x8 (/lib/libc.so.6+0xd43b8)");
	f[0].symbol_from = "dynsym";       /* what the name is, said as in the text report */
	assert_string_equal(ustack_top(&t, b, sizeof(b)),
	                    "__vfork+0x8 (/lib/libc.so.6+0xd43b8; nearest exported symbol)");
	f[0].symbol_from = "symtab";
	f[0].sym_exact = false;
	assert_string_equal(ustack_top(&t, b, sizeof(b)),
	                    "__vfork+0x8 (/lib/libc.so.6+0xd43b8; size unknown)");
	t.uframes = &f[1];                 /* unnamed: module and offset only */
	assert_string_equal(ustack_top(&t, b, sizeof(b)), "/opt/p+0x1548");
	f[1].module[0] = '\0';
	assert_string_equal(ustack_top(&t, b, sizeof(b)), "[anonymous]+0x1548");
}

/* ---- sig_message_id ---- */

static bool is_lower_hex(const char *s, size_t n)
{
	for (size_t k = 0; k < n; k++)
		if (!isxdigit((unsigned char)s[k]) || isupper((unsigned char)s[k]))
			return false;
	return s[n] == '\0';
}

/* 32 lowercase hex digits, the same on every call and release, different per id, and a
 * valid v4 / RFC 4122 variant id as systemd-id128 makes. */
static void test_message_id(void **state)
{
	(void)state;
	static const char *const ids[] = {
		"fuse-wait", "cpuset-migrate-wait", "lru-drain-isolated", "nfs-server-wait",
		"frozen", "vfork-wait", "a", "", "fuse-wait2", "Fuse-wait",
	};
	char first[ARRAY_SIZE(ids)][33];
	for (size_t k = 0; k < ARRAY_SIZE(ids); k++) {
		char again[33];
		assert_ptr_equal(sig_message_id(ids[k], first[k]), first[k]);
		assert_int_equal(strlen(first[k]), 32);
		assert_true(is_lower_hex(first[k], 32));
		assert_int_equal(first[k][12], '4');                     /* version 4 */
		assert_non_null(strchr("89ab", first[k][16]));           /* variant 10xx */
		sig_message_id(ids[k], again);
		assert_string_equal(again, first[k]);
		for (size_t j = 0; j < k; j++)
			assert_string_not_equal(first[j], first[k]);
	}
	/* fixed forever: journal catalogs and alert rules installed on hosts use these */
	assert_string_equal(first[0], "804997286abd47c4bd343dbfa9534677");
	assert_string_equal(first[1], "5f764257c5c241819588dd280b2a6ca2");
}

/* ---- catalog_print ---- */

/* Every signature gets "-- <its MESSAGE_ID>", then Subject: and Defined-By: cgwatch; nothing
 * else starts an entry. */
static void check_catalog(const struct cgw_sigset *set)
{
	struct errbuf e;
	catalog_print(set, errbuf_open(&e));
	const char *txt = errbuf_text(&e);
	size_t headers = 0;
	for (const char *l = txt; *l; l = strchr(l, '\n') + 1) {
		if (!strchr(l, '\n')) {
			print_error("catalog does not end with a newline\n");
			fail();
		}
		if (strncmp(l, "--", 2) != 0)
			continue;
		if (headers == set->n) {          /* last, the hazard messages' entry */
			static const char want[] = "-- " HAZARD_MESSAGE_ID "\nSubject: cgwatch hazard "
				"@CGWATCH_HAZARD@ @CGWATCH_HAZARD_STATE@\nDefined-By: cgwatch\n"
				"Support: man:cgwatch(8)\n\n@MESSAGE@\n";
			if (strncmp(l, want, strlen(want)) != 0)
				print_error("hazard entry:\n%.300s\nwant:\n%s", l, want);
			assert_int_equal(strncmp(l, want, strlen(want)), 0);
			assert_non_null(strstr(l, "@CGWATCH_EVIDENCE@"));
			for (size_t k = 0; k < set->n; k++) {
				char id[33];
				assert_string_not_equal(sig_message_id(set->v[k].id, id), HAZARD_MESSAGE_ID);
			}
			headers++;
			continue;
		}
		assert_true(headers < set->n);
		const struct cgw_sig *s = &set->v[headers++];
		char want[64], id[33];
		snprintf(want, sizeof(want), "-- %s\n", sig_message_id(s->id, id));
		if (strncmp(l, want, strlen(want)) != 0)
			print_error("header of %s: %.40s, want %s", s->id, l, want);
		assert_int_equal(strncmp(l, want, strlen(want)), 0);
		const char *subject = l + strlen(want);
		char wsub[512];
		snprintf(wsub, sizeof(wsub), "Subject: cgwatch incident @CGWATCH_STATE@: %s\n"
		         "Defined-By: cgwatch\n", s->title);
		if (strncmp(subject, wsub, strlen(wsub)) != 0)
			print_error("entry of %s:\n%.200s\nwant:\n%s", s->id, subject, wsub);
		assert_int_equal(strncmp(subject, wsub, strlen(wsub)), 0);
		/* the severity is the message's own (an incident escalates past its signature's):
		 * journalctl fills it in; the fixed text never states one */
		char sigline[256];
		snprintf(sigline, sizeof(sigline), "Signature %s (severity @CGWATCH_SEVERITY@).",
		         s->id);
		const char *next = strstr(subject, "\n-- ");
		const char *found = strstr(subject, sigline);
		if (!found || (next && found > next))
			print_error("entry of %s has no \"%s\":\n%.300s\n", s->id, sigline, subject);
		assert_non_null(found);
		assert_true(!next || found < next);
		for (int v = SEV_INFO; v <= SEV_CRITICAL; v++) {
			char fixed[64];
			snprintf(fixed, sizeof(fixed), "(severity %s)", sev_name((enum cgw_sev)v));
			const char *bad = strstr(subject, fixed);
			assert_true(!bad || (next && bad > next));
		}
	}
	assert_int_equal(headers, set->n + 1);   /* the signatures', then the hazards' */
	errbuf_close(&e);
}

static void test_catalog(void **state)
{
	(void)state;
	char *rem[] = { "Restart the FUSE daemon.", "Unmount it lazily: umount -l MOUNT" };
	struct cgw_sig v[3] = { sig_fuse, sig_cpuset, sig_nfs };
	v[0].explanation = "Every stat() under the mount waits for the daemon.";
	v[0].remedies = rem;
	v[0].nremedies = 2;
	struct cgw_sigset set = { v, 3 };
	check_catalog(&set);
	/* the remedies are numbered */
	struct errbuf e;
	catalog_print(&set, errbuf_open(&e));
	assert_err_has(&e, "What to do, safest first:\n  1. Restart the FUSE daemon.\n"
	               "  2. Unmount it lazily: umount -l MOUNT\n");
	assert_err_has(&e, "Every stat() under the mount waits for the daemon.\n");
	errbuf_close(&e);
	struct cgw_sigset none = { NULL, 0 };
	check_catalog(&none);
}

/* The shipped (built-in) library: every signature has its entry, and no two share a
 * MESSAGE_ID. */
static void test_catalog_shipped(void **state)
{
	(void)state;
	struct cgw_sigset set = { 0 };
	struct errbuf e;
	assert_int_equal(sig_load_builtin(&set, errbuf_open(&e)), 0);
	errbuf_close(&e);
	assert_true(set.n >= 2);
	check_catalog(&set);
	for (size_t k = 0; k < set.n; k++)
		for (size_t j = 0; j < k; j++) {
			char a[33], b[33];
			assert_string_not_equal(sig_message_id(set.v[k].id, a),
			                        sig_message_id(set.v[j].id, b));
		}
	sig_free(&set);
}

/* ---- reports_rotate ---- */

/* Permission bits of dir/name. */
static unsigned file_mode(const char *dir, const char *name)
{
	char p[512];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	assert_int_equal(stat(p, &st), 0);
	return st.st_mode & 07777;
}

/* dir/name with size bytes, last modified at mtime. */
static void put_file(const char *dir, const char *name, size_t size, double mtime)
{
	char *text = xmalloc(size + 1);
	memset(text, 'r', size);
	text[size] = '\0';
	tmpdir_put(dir, name, text);
	free(text);
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	struct timespec ts[2] = { { (time_t)mtime, 0 }, { (time_t)mtime, 0 } };
	assert_int_equal(utimensat(AT_FDCWD, p, ts, 0), 0);
}

/* Three reports (a change's .txt and .json each, a second apart per file) of two incidents,
 * and each incident's page, written with its newest report. */
static const char *const reports[] = {
	"20261130T071622Z-fuse-wait-01-opened.txt",
	"20261130T071622Z-fuse-wait-01-opened.json",
	"20261130T071622Z-fuse-wait-02-escalated.txt",
	"20261130T071622Z-fuse-wait-02-escalated.json",
	"20261130T080000Z-cpuset-migrate-wait-01-opened.txt",
	"20261130T080000Z-cpuset-migrate-wait-01-opened.json",
};
static const char *const pages[] = {
	"20261130T071622Z-fuse-wait.html", "20261130T080000Z-cpuset-migrate-wait.html",
};
/* not reports: never deleted, never counted */
static const char *const others[] = {
	"notes.txt", "incidents.json", "2026-notes.txt", "20261130T071622Z-x-01-opened.json.tmp",
	"20261130T071622Z-x-01-opened.log", "incidents-backup-20261130.json",
	"README-for-the-operators.txt", "x0261130T071622Z-x-01-opened.json",
	"20261130T071622Z-fuse-wait.html.tmp", "index.html",
};

static void rotate_dir(char *dir, size_t cap)
{
	tmpdir_make(dir, cap);
	for (size_t k = 0; k < ARRAY_SIZE(reports); k++)
		put_file(dir, reports[k], 100, T0 + (double)k);
	put_file(dir, pages[0], 100, T0 + 3);
	put_file(dir, pages[1], 100, T0 + 5);
	for (size_t k = 0; k < ARRAY_SIZE(others); k++)
		put_file(dir, others[k], 5000, T0 - 1000);
}

/* The report files from first_kept on are there, the others gone; pages[k] there as pk. */
static void assert_left(const char *dir, size_t first_kept, bool p0, bool p1)
{
	for (size_t k = 0; k < ARRAY_SIZE(reports); k++) {
		if (tmpdir_has(dir, reports[k]) != (k >= first_kept))
			print_error("%s: %s\n", reports[k], k >= first_kept ? "deleted" : "kept");
		assert_int_equal(tmpdir_has(dir, reports[k]), k >= first_kept);
	}
	assert_int_equal(tmpdir_has(dir, pages[0]), p0);
	assert_int_equal(tmpdir_has(dir, pages[1]), p1);
	for (size_t k = 0; k < ARRAY_SIZE(others); k++)
		assert_true(tmpdir_has(dir, others[k]));
}

/* keep counts reports, not files: the newest `keep` stay, each whole (its .txt and .json), and
 * an incident's page goes with its last report; the count of deleted files is returned. */
static void test_rotate_keep(void **state)
{
	(void)state;
	char dir[64];
	rotate_dir(dir, sizeof(dir));
	assert_int_equal(reports_rotate(dir, 100, UINT64_MAX), 0);
	assert_left(dir, 0, true, true);
	assert_int_equal(reports_rotate(dir, 3, UINT64_MAX), 0);
	assert_left(dir, 0, true, true);
	assert_int_equal(reports_rotate(dir, 2, UINT64_MAX), 2);   /* one report: both files */
	assert_left(dir, 2, true, true);                           /* fuse-wait has one left */
	assert_int_equal(reports_rotate(dir, 1, UINT64_MAX), 3);   /* its last, and its page */
	assert_left(dir, 4, false, true);
	assert_int_equal(reports_rotate(dir, 1, UINT64_MAX), 0);
	assert_left(dir, 4, false, true);
	assert_int_equal(tmpdir_count(dir), 3 + (int)ARRAY_SIZE(others));
	tmpdir_remove(dir);
}

/* Oldest report first until the reports and pages (only they) fit in max_bytes; a page's
 * bytes are freed with its incident's last report. */
static void test_rotate_size(void **state)
{
	(void)state;
	char dir[64];
	rotate_dir(dir, sizeof(dir));
	/* 800 bytes: 600 of reports, 200 of pages (the 50000 of other files do not count) */
	assert_int_equal(reports_rotate(dir, 100, 800), 0);
	assert_left(dir, 0, true, true);
	assert_int_equal(reports_rotate(dir, 100, 799), 2);
	assert_left(dir, 2, true, true);
	/* 600 left: fuse-wait's last report frees 300 with its page */
	assert_int_equal(reports_rotate(dir, 100, 300), 3);
	assert_left(dir, 4, false, true);
	/* both limits: keep 0 is the stricter */
	assert_int_equal(reports_rotate(dir, 0, 1000), 3);
	assert_left(dir, 6, false, false);
	tmpdir_remove(dir);
}

/* A page whose incident has no report left goes; one whose incident has goes nowhere, however
 * old; a report missing one of its files is still one report. */
static void test_rotate_pages(void **state)
{
	(void)state;
	char dir[64];
	tmpdir_make(dir, sizeof(dir));
	put_file(dir, "20261130T000000Z-gone.html", 10, T0 - 50);
	put_file(dir, "20261130T000000Z-old-01-opened.json", 10, T0);       /* no .txt */
	put_file(dir, "20261130T000000Z-old.html", 10, T0 - 100);            /* older than it */
	put_file(dir, "20261130T000000Z-new-01-opened.txt", 10, T0 + 1);
	put_file(dir, "20261130T000000Z-new-01-opened.json", 10, T0 + 1);
	put_file(dir, "20261130T000000Z-new-02-updated.txt", 10, T0 + 2);
	put_file(dir, "20261130T000000Z-new-02-updated.json", 10, T0 + 2);
	put_file(dir, "20261130T000000Z-new.html", 10, T0 + 2);
	assert_int_equal(reports_rotate(dir, 3, UINT64_MAX), 1);
	assert_false(tmpdir_has(dir, "20261130T000000Z-gone.html"));
	assert_int_equal(tmpdir_count(dir), 7);
	assert_int_equal(reports_rotate(dir, 2, UINT64_MAX), 2);            /* old, and its page */
	assert_false(tmpdir_has(dir, "20261130T000000Z-old-01-opened.json"));
	assert_false(tmpdir_has(dir, "20261130T000000Z-old.html"));
	assert_true(tmpdir_has(dir, "20261130T000000Z-new.html"));
	assert_int_equal(reports_rotate(dir, 1, UINT64_MAX), 2);            /* new's first */
	assert_true(tmpdir_has(dir, "20261130T000000Z-new.html"));
	assert_true(tmpdir_has(dir, "20261130T000000Z-new-02-updated.json"));
	assert_int_equal(tmpdir_count(dir), 3);
	tmpdir_remove(dir);
}

/* A directory named like a report is not a report; same mtimes go by name; no directory is
 * an error. */
static void test_rotate_edges(void **state)
{
	(void)state;
	char dir[64], sub[128];
	tmpdir_make(dir, sizeof(dir));
	snprintf(sub, sizeof(sub), "%s/20261130T000000Z-dir-01-opened.json", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	put_file(dir, "20261130T071622Z-b-01-opened.json", 10, T0);
	put_file(dir, "20261130T071622Z-a-01-opened.json", 10, T0);
	assert_int_equal(reports_rotate(dir, 1, UINT64_MAX), 1);
	assert_false(tmpdir_has(dir, "20261130T071622Z-a-01-opened.json"));
	assert_true(tmpdir_has(dir, "20261130T071622Z-b-01-opened.json"));
	assert_int_equal(reports_rotate(dir, 0, 0), 1);
	assert_int_equal(access(sub, F_OK), 0);
	assert_int_equal(rmdir(sub), 0);
	char missing[128];
	snprintf(missing, sizeof(missing), "%s/missing", dir);
	assert_int_equal(reports_rotate(missing, 1, 1), -ENOENT);
	tmpdir_remove(dir);
}

/* ---- sink_report ---- */

/* A scan with fuse-wait (systemd and a thread) and cpuset-migrate-wait (a kworker),
 * folded into in at now with blocked times +extra. */
static void sink_scan(struct unit_scan *u, double extra, enum cgw_sev fuse_sev)
{
	us_init(u);
	size_t idx[3];
	idx[0] = us_task(u, 1, 1, "systemd", 7, 21.3 + extra);
	idx[1] = us_task(u, 4242, 4200, "a\nb", 3, 20.5 + extra);
	idx[2] = us_task(u, 1765, 1765, "kworker/u8:1", 12, 30.0 + extra);
	us_finding(u, &sig_cpuset, SEV_WARNING, 1, &idx[2]);
	us_finding(u, &sig_fuse, fuse_sev, 2, idx);
	u->scan.threads = 2314;
}

static json_object *jget(json_object *o, const char *k)
{
	json_object *v = NULL;
	if (!json_object_object_get_ex(o, k, &v)) {
		print_error("no \"%s\" in %.300s\n", k, json_object_to_json_string(o));
		fail();
	}
	return v;
}

static const char *jgets(json_object *o, const char *k)
{
	return json_object_get_string(jget(o, k));
}

/* Read <dir>/<name> as JSON and check it is this incident's report in state st. */
static json_object *load_report(const char *dir, const char *name, const struct incident *i,
                                const char *st)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	json_object *o = json_object_from_file(p);
	if (!o)
		print_error("%s: %s\n", p, json_util_get_last_err());
	assert_non_null(o);
	assert_string_equal(jgets(o, "schema"), "cgwatch.report/1");
	assert_string_equal(jgets(o, "host"), "testhost");
	json_object *inc = jget(o, "incident");
	assert_true(json_object_is_type(inc, json_type_object));
	assert_string_equal(jgets(inc, "id"), i->id);
	assert_string_equal(jgets(inc, "state"), st);
	assert_string_equal(jgets(inc, "signature"), i->sig);
	assert_string_equal(jgets(inc, "severity"), sev_name(i->severity));
	assert_string_equal(jgets(inc, "opened"), "2026-11-30T07:16:22Z");
	return o;
}

/* Both files with the documented names, the JSON the incident's finding and tasks only plus
 * "incident"; i->report is the JSON, i->reports counts; NN goes on. */
/* page holds want (said which it lacks when not). */
static void assert_page(const char *page, const char *want)
{
	if (!strstr(page, want))
		print_error("the page lacks: %s\n", want);
	assert_non_null(strstr(page, want));
}

static void test_sink_report(void **state)
{
	(void)state;
	char dir[64], name[256], want[512], text[16384];
	static char page[1 << 17];
	tmpdir_make(dir, sizeof(dir));
	struct cgw_conf c = unit_report_roomy(dir);
	struct cgw_incidents in = { 0 };
	struct unit_scan u;
	struct inc_change *ch;

	sink_scan(&u, 0, SEV_WARNING);
	assert_int_equal(incidents_update(&in, &u.rep, T0, 300, &ch), 2);
	assert_int_equal(ch[1].inc, 1);
	assert_int_equal(ch[1].finding, 1);
	struct incident *i = &in.v[1];
	assert_string_equal(i->id, T0_ID "-fuse-wait");
	assert_int_equal(sink_report(&c, &u.rep, i, ch[1].state, ch[1].finding), 0);
	free(ch);
	assert_int_equal(i->reports, 1);
	snprintf(want, sizeof(want), "%s/" T0_ID "-fuse-wait-01-opened.json", dir);
	assert_string_equal(i->report, want);
	assert_true(tmpdir_has(dir, T0_ID "-fuse-wait-01-opened.txt"));
	assert_true(tmpdir_has(dir, T0_ID "-fuse-wait-01-opened.json"));
	assert_true(tmpdir_has(dir, T0_ID "-fuse-wait.html"));    /* the incident's page */
	assert_int_equal(tmpdir_count(dir), 3);          /* no .tmp left */
	/* they quote kernel stacks: not for every user */
	assert_int_equal(file_mode(dir, T0_ID "-fuse-wait-01-opened.txt"), 0640);
	assert_int_equal(file_mode(dir, T0_ID "-fuse-wait-01-opened.json"), 0640);
	assert_int_equal(file_mode(dir, T0_ID "-fuse-wait.html"), 0640);
	/* the page: the incident, its finding only, its tasks, its state on the axis */
	assert_true(tmpdir_get(dir, T0_ID "-fuse-wait.html", page, sizeof(page)) > 0);
	assert_page(page, "<h1>cgwatch incident " T0_ID "-fuse-wait</h1>");
	assert_page(page, "<div class=\"verdict warning\" id=\"verdict\">WARNING, opened at "
	            "2026-11-30T07:16:22Z: PID 1 (systemd) blocked 21.3 s in fuse-wait");
	assert_page(page, "<td>TID 4242</td><td><code class=\"comm\">a\\nb</code>");
	assert_page(page, "<section class=\"finding\" id=\"finding-1\">");
	assert_null(strstr(page, "id=\"finding-0\""));           /* the other incident's */
	assert_null(strstr(page, "kworker"));
	assert_page(page, ">scan: opened (warning), 2 tasks, longest 21.3 s (+0.0 s)</text>");
	assert_page(page, ">this report (opened) (+0.0 s)</text>");
	assert_page(page, ">PID 1 (systemd) blocked (-21.3 s)</text>");

	json_object *o = load_report(dir, T0_ID "-fuse-wait-01-opened.json", i, "opened");
	json_object *fs = jget(o, "findings");
	assert_int_equal(json_object_array_length(fs), 1);
	assert_string_equal(jgets(json_object_array_get_idx(fs, 0), "id"), "fuse-wait");
	json_object *ts = jget(o, "tasks");
	assert_int_equal(json_object_array_length(ts), 2);
	assert_int_equal(json_object_get_int(jget(json_object_array_get_idx(ts, 0), "tid")), 1);
	assert_int_equal(json_object_get_int(jget(json_object_array_get_idx(ts, 1), "tid")), 4242);
	/* the real name, in the report's tasks and in the incident's */
	assert_string_equal(jgets(json_object_array_get_idx(ts, 1), "comm"), "a\nb");
	json_object *its = jget(jget(o, "incident"), "tasks");
	assert_int_equal(json_object_array_length(its), 2);
	assert_string_equal(jgets(json_object_array_get_idx(its, 1), "comm"), "a\nb");
	json_object_put(o);

	/* the text: a header line, the journal message, tasks, timeline, the finding */
	assert_true(tmpdir_get(dir, T0_ID "-fuse-wait-01-opened.txt", text, sizeof(text)) > 0);
	char msg[512];
	snprintf(want, sizeof(want), "cgwatch incident " T0_ID "-fuse-wait: opened (warning) at "
	         "2026-11-30T07:16:22Z\n%s\n\nTasks:\n  PID 1 (systemd): stuck for 21.3 s\n"
	         "  TID 4242 (a\\nb): stuck for 20.5 s\n\nTimeline:\n"
	         "  2026-11-30T07:16:22Z  opened    warning  2 tasks, longest 21.3 s\n\n"
	         "WARNING  fuse-wait: Waiting for a FUSE daemon\n",
	         incident_message(i, INC_OPENED, msg, sizeof(msg)));
	if (strncmp(text, want, strlen(want)) != 0)
		print_error("text report:\n%s\nwant it to start with:\n%s", text, want);
	assert_int_equal(strncmp(text, want, strlen(want)), 0);
	assert_null(strstr(text, "kworker"));
	us_free(&u);

	/* escalated: the next number */
	sink_scan(&u, 40, SEV_CRITICAL);
	assert_int_equal(incidents_update(&in, &u.rep, T0 + 40, 300, &ch), 1);
	assert_int_equal(ch[0].state, INC_ESCALATED);
	assert_int_equal(sink_report(&c, &u.rep, &in.v[ch[0].inc], ch[0].state, ch[0].finding), 0);
	free(ch);
	us_free(&u);
	i = &in.v[1];
	assert_int_equal(i->reports, 2);
	assert_true(tmpdir_get(dir, T0_ID "-fuse-wait-02-escalated.txt", text, sizeof(text)) > 0);
	assert_non_null(strstr(text, "\nTimeline:\n"
		"  2026-11-30T07:16:22Z  opened    warning  2 tasks, longest 21.3 s\n"
		"  2026-11-30T07:17:02Z  escalated critical 2 tasks, longest 61.3 s\n"));
	assert_null(strstr(text, "more tasks"));
	snprintf(name, sizeof(name), T0_ID "-fuse-wait-02-escalated.json");
	snprintf(want, sizeof(want), "%s/%s", dir, name);
	assert_string_equal(i->report, want);
	assert_true(tmpdir_has(dir, T0_ID "-fuse-wait-02-escalated.txt"));
	o = load_report(dir, name, i, "escalated");
	assert_string_equal(jgets(jget(o, "incident"), "escalated"), "2026-11-30T07:17:02Z");
	json_object_put(o);
	/* the page is the incident's newest: both states on its axis */
	assert_true(tmpdir_get(dir, T0_ID "-fuse-wait.html", page, sizeof(page)) > 0);
	assert_page(page, ">scan: opened (warning), 2 tasks, longest 21.3 s (-40.0 s)</text>");
	assert_page(page, ">scan: escalated (critical), 2 tasks, longest 61.3 s (+0.0 s)</text>");
	assert_page(page, ">this report (escalated) (+0.0 s)</text>");
	assert_page(page, "<div class=\"verdict critical\" id=\"verdict\">CRITICAL, escalated");

	/* resolved: no finding, no task of the scan, the incident object says it all */
	us_init(&u);
	assert_int_equal(incidents_update(&in, &u.rep, T0 + 50, 300, &ch), 2);
	assert_int_equal(ch[1].inc, 1);
	assert_int_equal(ch[1].state, INC_RESOLVED);
	in.v[1].ntasks_total = 5;                 /* three past the cap */
	assert_int_equal(sink_report(&c, &u.rep, &in.v[1], INC_RESOLVED, ch[1].finding), 0);
	free(ch);
	us_free(&u);
	assert_int_equal(in.v[1].reports, 3);
	o = load_report(dir, T0_ID "-fuse-wait-03-resolved.json", &in.v[1], "resolved");
	assert_int_equal(json_object_array_length(jget(o, "findings")), 0);
	assert_int_equal(json_object_array_length(jget(o, "tasks")), 0);
	assert_string_equal(jgets(jget(o, "incident"), "resolved"), "2026-11-30T07:17:12Z");
	json_object_put(o);
	assert_true(tmpdir_get(dir, T0_ID "-fuse-wait-03-resolved.txt", text, sizeof(text)) > 0);
	static const char want_resolved[] = "cgwatch incident " T0_ID "-fuse-wait: resolved "
		"(critical) at 2026-11-30T07:17:12Z\nPID 1 (systemd) was blocked at least 61.3 s in "
		"fuse-wait";
	if (strncmp(text, want_resolved, strlen(want_resolved)) != 0)
		print_error("text report:\n%s\nwant it to start with:\n%s", text, want_resolved);
	assert_int_equal(strncmp(text, want_resolved, strlen(want_resolved)), 0);
	assert_non_null(strstr(text, "; resolved at 07:17:12 (incident " T0_ID "-fuse-wait)\n\n"
	                             "Tasks:\n"));
	assert_non_null(strstr(text, "  PID 1 (systemd): was stuck 61.3 s, recovered by "
	                             "2026-11-30T07:17:12Z\n"
	                             "  TID 4242 (a\\nb): was stuck 60.5 s, recovered by "
	                             "2026-11-30T07:17:12Z\n"
	                             "  ... and 3 more tasks\n\nTimeline:\n"));
	/* resolved: no finding, the tasks' recoveries on the axis */
	assert_true(tmpdir_get(dir, T0_ID "-fuse-wait.html", page, sizeof(page)) > 0);
	assert_null(strstr(page, "<section class=\"finding\""));
	assert_page(page, "No finding of this scan is the incident's: its tasks left the state.");
	assert_page(page, ">PID 1 (systemd) recovered (+0.0 s)</text>");
	assert_page(page, ">scan: resolved (critical), 0 tasks, longest 61.3 s (+0.0 s)</text>");
	assert_page(page, "<td>was stuck 61.3 s</td><td>2026-11-30T07:17:12Z</td>");
	assert_page(page, "... and 3 more tasks");
	assert_int_equal(tmpdir_count(dir), 7);
	incidents_free(&in);
	tmpdir_remove(dir);
}

/* A task named to break the page is text on it: no markup of its own. */
static void test_sink_report_page_escapes(void **state)
{
	(void)state;
	char dir[64];
	static char page[1 << 17];
	tmpdir_make(dir, sizeof(dir));
	struct cgw_conf c = unit_report_roomy(dir);
	struct cgw_incidents in = { 0 };
	struct unit_scan u;
	struct inc_change *ch;
	us_init(&u);
	size_t idx = us_task(&u, 77, 77, "<script>\"'&x", 12, 30);
	us_finding(&u, &sig_fuse, SEV_WARNING, 1, &idx);
	assert_int_equal(incidents_update(&in, &u.rep, T0, 300, &ch), 1);
	assert_int_equal(sink_report(&c, &u.rep, &in.v[0], ch[0].state, ch[0].finding), 0);
	free(ch);
	us_free(&u);
	assert_true(tmpdir_get(dir, T0_ID "-fuse-wait.html", page, sizeof(page)) > 0);
	assert_null(strstr(page, "<script"));
	assert_null(strstr(page, "\"'&x"));
	assert_page(page, "<td>PID 77</td><td><code class=\"comm\">&lt;script&gt;&quot;&#39;&amp;x"
	            "</code>");
	/* the journal's message, its name C-escaped as there ("\\\""), then for HTML */
	assert_page(page, "PID 77 (&lt;script&gt;\\&quot;&#39;&amp;x) blocked 30.0 s in fuse-wait");
	incidents_free(&in);
	tmpdir_remove(dir);
}

/* Rotation runs after each report, and leaves what is not a report alone. */
static void test_sink_report_rotates(void **state)
{
	(void)state;
	char dir[64];
	tmpdir_make(dir, sizeof(dir));
	put_file(dir, "incidents.json", 10, T0 - 100);
	put_file(dir, "notes.txt", 10, T0 - 100);
	struct cgw_conf c = unit_report_roomy(dir);
	c.report_keep = 1;
	struct cgw_incidents in = { 0 };
	struct unit_scan u;
	struct inc_change *ch;
	sink_scan(&u, 0, SEV_WARNING);
	assert_int_equal(incidents_update(&in, &u.rep, T0, 300, &ch), 2);
	assert_int_equal(sink_report(&c, &u.rep, &in.v[1], ch[1].state, ch[1].finding), 0);
	assert_int_equal(sink_report(&c, &u.rep, &in.v[1], INC_UPDATED, ch[1].finding), 0);
	free(ch);
	us_free(&u);
	assert_false(tmpdir_has(dir, T0_ID "-fuse-wait-01-opened.txt"));
	assert_false(tmpdir_has(dir, T0_ID "-fuse-wait-01-opened.json"));
	assert_true(tmpdir_has(dir, T0_ID "-fuse-wait-02-updated.txt"));
	assert_true(tmpdir_has(dir, T0_ID "-fuse-wait-02-updated.json"));
	assert_true(tmpdir_has(dir, T0_ID "-fuse-wait.html"));
	assert_true(tmpdir_has(dir, "incidents.json"));
	assert_true(tmpdir_has(dir, "notes.txt"));
	assert_int_equal(tmpdir_count(dir), 5);
	incidents_free(&in);
	tmpdir_remove(dir);
}

/* The report directory is made when missing, 0750. */
static void test_sink_report_makes_dir(void **state)
{
	(void)state;
	char dir[64], rdir[128];
	tmpdir_make(dir, sizeof(dir));
	snprintf(rdir, sizeof(rdir), "%s/reports", dir);
	struct cgw_conf c = unit_report_roomy(rdir);
	struct cgw_incidents in = { 0 };
	struct unit_scan u;
	struct inc_change *ch;
	sink_scan(&u, 0, SEV_WARNING);
	assert_int_equal(incidents_update(&in, &u.rep, T0, 300, &ch), 2);
	assert_int_equal(sink_report(&c, &u.rep, &in.v[0], ch[0].state, ch[0].finding), 0);
	free(ch);
	us_free(&u);
	assert_int_equal(file_mode(dir, "reports"), 0750);
	assert_true(tmpdir_has(rdir, T0_ID "-cpuset-migrate-wait-01-opened.json"));
	assert_int_equal(tmpdir_count(rdir), 3);
	incidents_free(&in);
	tmpdir_remove(rdir);
	tmpdir_remove(dir);
}

/* A report directory that cannot be made: -errno, the incident untouched, nothing written. */
static void test_sink_report_bad_dir(void **state)
{
	(void)state;
	char dir[64], rdir[128];
	tmpdir_make(dir, sizeof(dir));
	tmpdir_put(dir, "file", "a regular file\n");
	struct cgw_incidents in = { 0 };
	struct unit_scan u;
	struct inc_change *ch;
	sink_scan(&u, 0, SEV_WARNING);
	assert_int_equal(incidents_update(&in, &u.rep, T0, 300, &ch), 2);
	struct incident *i = &in.v[1];
	snprintf(i->report, sizeof(i->report), "/var/log/cgwatch/earlier.json");
	i->reports = 4;

	snprintf(rdir, sizeof(rdir), "%s/file/reports", dir);
	struct cgw_conf c = unit_report_roomy(rdir);
	assert_int_equal(sink_report(&c, &u.rep, i, ch[1].state, ch[1].finding), -ENOTDIR);
	snprintf(rdir, sizeof(rdir), "%s/missing/reports", dir);
	c = unit_report_roomy(rdir);
	assert_int_equal(sink_report(&c, &u.rep, i, ch[1].state, ch[1].finding), -ENOENT);
	free(ch);
	us_free(&u);
	assert_int_equal(i->reports, 4);
	assert_string_equal(i->report, "/var/log/cgwatch/earlier.json");
	assert_int_equal(tmpdir_count(dir), 1);
	incidents_free(&in);
	tmpdir_remove(dir);
}

/* ---- atomic_write ---- */

/* The content replaced whole, with the mode asked for; no temporary file left. */
static void test_atomic_write(void **state)
{
	(void)state;
	char dir[64], p[128], buf[256];
	tmpdir_make(dir, sizeof(dir));
	snprintf(p, sizeof(p), "%s/state.json", dir);
	tmpdir_put(dir, "state.json", "the old content, longer than the new one\n");
	assert_int_equal(atomic_write(p, "new\0data", 8, 0600), 0);
	assert_int_equal(tmpdir_get(dir, "state.json", buf, sizeof(buf)), 8);
	assert_bytes_equal(buf, "new\0data", 8);
	assert_int_equal(file_mode(dir, "state.json"), 0600);
	assert_int_equal(tmpdir_count(dir), 1);
	assert_false(tmpdir_has(dir, "state.json.tmp"));
	/* a new file, and an empty one */
	snprintf(p, sizeof(p), "%s/new", dir);
	assert_int_equal(atomic_write(p, "", 0, 0640), 0);
	assert_int_equal(tmpdir_get(dir, "new", buf, sizeof(buf)), 0);
	assert_int_equal(file_mode(dir, "new"), 0640);
	assert_int_equal(tmpdir_count(dir), 2);
	/* a stale temporary file of a crash is overwritten, not appended to */
	tmpdir_put(dir, "new.tmp", "stale stale stale stale\n");
	assert_int_equal(atomic_write(p, "fresh", 5, 0644), 0);
	assert_int_equal(tmpdir_get(dir, "new", buf, sizeof(buf)), 5);
	assert_string_equal(buf, "fresh");
	assert_false(tmpdir_has(dir, "new.tmp"));
	tmpdir_remove(dir);
}

/* Failures return -errno and leave no temporary file. */
static void test_atomic_write_fails_cleanly(void **state)
{
	(void)state;
	char dir[64], p[128], sub[128];
	tmpdir_make(dir, sizeof(dir));
	snprintf(p, sizeof(p), "%s/missing/state.json", dir);
	assert_int_equal(atomic_write(p, "x", 1, 0600), -ENOENT);
	assert_int_equal(tmpdir_count(dir), 0);
	/* onto a directory: written, then the rename fails */
	snprintf(sub, sizeof(sub), "%s/sub", dir);
	assert_int_equal(mkdir(sub, 0755), 0);
	assert_int_equal(atomic_write(sub, "x", 1, 0600), -EISDIR);
	assert_false(tmpdir_has(dir, "sub.tmp"));
	assert_int_equal(tmpdir_count(dir), 1);
	assert_int_equal(rmdir(sub), 0);
	/* a name with no room for ".tmp" */
	char *lng = xmalloc(4096);
	memset(lng, 'a', 4093);
	lng[0] = '/';
	lng[4093] = '\0';
	assert_int_equal(atomic_write(lng, "x", 1, 0600), -ENAMETOOLONG);
	free(lng);
	tmpdir_remove(dir);
}

/* ---- metrics_write ---- */

struct sample { char name[512]; double value; };

/* Parse Prometheus text: samples in order; every sample's metric has a # TYPE before it. */
static size_t parse_metrics(const char *txt, struct sample *out, size_t cap)
{
	size_t n = 0;
	char typed[16][64];
	size_t ntyped = 0;
	for (const char *l = txt; *l;) {
		size_t len = strcspn(l, "\n");
		assert_int_equal(l[len], '\n');
		char line[512];
		assert_true(len < sizeof(line));
		memcpy(line, l, len);
		line[len] = '\0';
		l += len + 1;
		if (strncmp(line, "# TYPE ", 7) == 0) {
			assert_true(ntyped < ARRAY_SIZE(typed));
			sscanf(line + 7, "%63s", typed[ntyped++]);
			continue;
		}
		if (line[0] == '#')
			continue;
		char *sp = strrchr(line, ' ');
		assert_non_null(sp);
		*sp = '\0';
		char *end;
		double v = strtod(sp + 1, &end);
		assert_true(end != sp + 1 && *end == '\0');
		size_t base = strcspn(line, "{");
		bool has_type = false;
		for (size_t k = 0; k < ntyped; k++)
			has_type |= strlen(typed[k]) == base && strncmp(typed[k], line, base) == 0;
		if (!has_type)
			print_error("%s has no # TYPE before it\n", line);
		assert_true(has_type);
		assert_true(n < cap);
		snprintf(out[n].name, sizeof(out[n].name), "%s", line);
		out[n++].value = v;
	}
	return n;
}

static double metric(const struct sample *s, size_t n, const char *name)
{
	size_t found = 0;
	double v = 0;
	for (size_t k = 0; k < n; k++)
		if (strcmp(s[k].name, name) == 0) {
			found++;
			v = s[k].value;
		}
	if (found != 1)
		print_error("%s appears %zu times\n", name, found);
	assert_int_equal(found, 1);
	return v;
}

/* The documented metrics with their values, one incidents_open line per signature and
 * severity with open incidents, counting them. */
static void test_metrics(void **state)
{
	(void)state;
	char dir[64], p[128], txt[8192];
	tmpdir_make(dir, sizeof(dir));
	snprintf(p, sizeof(p), "%s/cgwatch.prom", dir);

	struct unit_scan u;
	us_init(&u);
	size_t idx[4];
	idx[0] = us_task(&u, 1, 1, "systemd", 7, 21.3);
	idx[1] = us_task(&u, 2, 2, "ls", 2, 45.6);
	idx[2] = us_task(&u, 3, 3, "short", 5, 5.0);       /* a D task under the threshold */
	idx[3] = us_task(&u, 4, 4, "spin", 4, 99.0);
	u.scan.t[idx[3]].state = 'R';
	u.scan.t[idx[3]].suspect = SUSPECT_STARVED;
	u.scan.threads = 2314;
	u.scan.scan_usec = 4100;
	us_finding(&u, &sig_fuse, SEV_WARNING, 2, idx);
	us_finding(&u, &sig_nfs, SEV_CRITICAL, 1, &idx[3]);
	struct cgw_incidents in = { 0 };
	struct inc_change *ch;
	assert_int_equal(incidents_update(&in, &u.rep, T0, 300, &ch), 2);
	free(ch);
	/* and a resolved one, not yet pruned: not open */
	in.v = xrealloc(in.v, 3 * sizeof(*in.v));
	memset(&in.v[2], 0, sizeof(in.v[2]));
	snprintf(in.v[2].sig, sizeof(in.v[2].sig), "cpuset-migrate-wait");
	snprintf(in.v[2].id, sizeof(in.v[2].id), T0_ID "-cpuset-migrate-wait");
	in.v[2].severity = SEV_WARNING;
	in.v[2].resolved_at = T0;
	/* and a second open fuse-wait warning, on another mount: counted in the same sample (a
	 * series twice in one file is refused by the textfile collector) */
	in.v = xrealloc(in.v, 4 * sizeof(*in.v));
	memset(&in.v[3], 0, sizeof(in.v[3]));
	snprintf(in.v[3].sig, sizeof(in.v[3].sig), "fuse-wait");
	snprintf(in.v[3].cause, sizeof(in.v[3].cause), "mount /mnt/b");
	snprintf(in.v[3].id, sizeof(in.v[3].id), T0_ID "-fuse-wait-2");
	in.v[3].severity = SEV_WARNING;
	in.n = 4;

	assert_int_equal(metrics_write(p, &u.rep, &in, 17), 0);
	assert_true(tmpdir_get(dir, "cgwatch.prom", txt, sizeof(txt)) > 0);
	assert_int_equal(file_mode(dir, "cgwatch.prom"), 0644);   /* node_exporter reads it */
	assert_int_equal(tmpdir_count(dir), 1);
	struct sample s[32];
	size_t n = parse_metrics(txt, s, ARRAY_SIZE(s));
	assert_near(metric(s, n, "cgwatch_tasks_scanned"), 2314, 0);
	assert_near(metric(s, n, "cgwatch_tasks_blocked"), 2, 0);
	assert_near(metric(s, n, "cgwatch_tasks_starved"), 1, 0);
	assert_near(metric(s, n, "cgwatch_blocked_seconds_max"), 45.6, 1e-9);
	assert_near(metric(s, n, "cgwatch_incidents_open{signature=\"fuse-wait\","
	                         "severity=\"warning\"}"), 2, 0);
	assert_near(metric(s, n, "cgwatch_incidents_open{signature=\"nfs-server-wait\","
	                         "severity=\"critical\"}"), 1, 0);
	assert_near(metric(s, n, "cgwatch_scan_duration_seconds"), 0.0041, 1e-9);
	assert_near(metric(s, n, "cgwatch_scans_total"), 17, 0);
	size_t open_lines = 0;
	for (size_t k = 0; k < n; k++)
		open_lines += strncmp(s[k].name, "cgwatch_incidents_open", 22) == 0;
	assert_int_equal(open_lines, 2);
	assert_int_equal(n, 8);
	assert_null(strstr(txt, "cpuset-migrate-wait"));

	/* nothing open: no incidents_open sample, the rest still there */
	incidents_free(&in);
	assert_int_equal(metrics_write(p, &u.rep, &in, 18), 0);
	assert_true(tmpdir_get(dir, "cgwatch.prom", txt, sizeof(txt)) > 0);
	n = parse_metrics(txt, s, ARRAY_SIZE(s));
	assert_int_equal(n, 6);
	assert_near(metric(s, n, "cgwatch_scans_total"), 18, 0);
	assert_non_null(strstr(txt, "# TYPE cgwatch_incidents_open gauge\n"));
	us_free(&u);

	snprintf(p, sizeof(p), "%s/missing/cgwatch.prom", dir);
	us_init(&u);
	assert_int_equal(metrics_write(p, &u.rep, &in, 1), -ENOENT);
	us_free(&u);
	tmpdir_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_message_open_states),
		cmocka_unit_test(test_message_thread),
		cmocka_unit_test(test_message_resolved),
		cmocka_unit_test(test_message_more_tasks_past_cap),
		cmocka_unit_test(test_message_more_tasks_stuck_only),
		cmocka_unit_test(test_message_edges),
		cmocka_unit_test(test_message_latency_tasks),
		cmocka_unit_test(test_journal_stderr),
		cmocka_unit_test(test_ustack_top),
		cmocka_unit_test(test_message_id),
		cmocka_unit_test(test_catalog),
		cmocka_unit_test(test_catalog_shipped),
		cmocka_unit_test(test_rotate_keep),
		cmocka_unit_test(test_rotate_size),
		cmocka_unit_test(test_rotate_pages),
		cmocka_unit_test(test_rotate_edges),
		cmocka_unit_test(test_sink_report),
		cmocka_unit_test(test_sink_report_page_escapes),
		cmocka_unit_test(test_sink_report_rotates),
		cmocka_unit_test(test_sink_report_makes_dir),
		cmocka_unit_test(test_sink_report_bad_dir),
		cmocka_unit_test(test_atomic_write),
		cmocka_unit_test(test_atomic_write_fails_cleanly),
		cmocka_unit_test(test_metrics),
	};
	return tmpdir_cleanup_all(cmocka_run_group_tests(tests, setup, NULL));
}
