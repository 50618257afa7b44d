/* test-html.c: the HTML pages (sink-html*.c) — every host string escaped for text and
 * attributes, control bytes and broken UTF-8 C-escaped; the page one file with a policy that
 * allows its own style sheet (by hash) and no script; the incident page's chain, CPU map,
 * stacks and timeline; the audit's page. */
#include <json-c/json.h>

#include "unit.h"

#define HOSTILE "<script>alert(1)</script>\"'&"

static char *esc_of(const char *s, size_t n)
{
	struct strbuf b = { 0 };
	html_esc(&b, s, n);
	char *r = strdup(b.s ? b.s : "");
	sb_free(&b);
	return r;
}

static void test_escape(void **state)
{
	(void)state;
	char *e = esc_of(HOSTILE, strlen(HOSTILE));
	assert_string_equal(e, "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;");
	free(e);
	/* control bytes as the other sinks write them, broken UTF-8 and NUL as \xNN */
	static const char ctl[] = "a\nb\tc\rd\x1b[2Je\xff\xc3(f\0g\x7f";
	e = esc_of(ctl, sizeof(ctl) - 1);
	assert_string_equal(e, "a\\nb\\tc\\rd\\x1b[2Je\\xff\\xc3(f\\x00g\\x7f");
	free(e);
	/* valid UTF-8 kept; a C1 control (U+0085) is not text */
	e = esc_of("caf\xc3\xa9 \xc2\x85", 8);
	assert_string_equal(e, "caf\xc3\xa9 \\xc2\\x85");
	free(e);
	e = esc_of("", 0);
	assert_string_equal(e, "");
	free(e);
}

/* Count of needle in hay. */
static size_t count(const char *hay, const char *needle)
{
	size_t n = 0;
	for (const char *p = hay; (p = strstr(p, needle)); p += strlen(needle))
		n++;
	return n;
}

static const char b64[] = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";

/* The page is one file: a policy forbidding everything but its one style sheet, whose hash
 * matches; no script, no style attribute, nothing fetched. */
static void assert_self_contained(const char *page)
{
	assert_true(!strncmp(page, "<!DOCTYPE html>\n", 16));
	assert_int_equal(count(page, "<style>"), 1);
	assert_int_equal(count(page, "</style>"), 1);
	const char *a = strstr(page, "<style>") + 7, *z = strstr(page, "</style>");
	char hex[65], want[64];
	sha256_hex(a, (size_t)(z - a), hex);
	unsigned char d[33] = { 0 };
	for (int i = 0; i < 32; i++) {
		unsigned v;
		sscanf(hex + 2 * i, "%2x", &v);
		d[i] = (unsigned char)v;
	}
	size_t k = 0;
	for (int i = 0; i < 33; i += 3) {
		unsigned v = (unsigned)d[i] << 16 | (unsigned)d[i + 1] << 8 | (i + 2 < 33 ? d[i + 2] : 0);
		want[k++] = b64[v >> 18 & 63];
		want[k++] = b64[v >> 12 & 63];
		want[k++] = b64[v >> 6 & 63];
		want[k++] = b64[v & 63];
	}
	want[43] = '=';
	want[44] = '\0';
	char csp[512];
	snprintf(csp, sizeof(csp), "<meta http-equiv=\"Content-Security-Policy\" content=\""
	         "default-src 'none'; style-src 'sha256-%s'; script-src 'none';", want);
	if (!strstr(page, csp))
		print_error("no policy line %s\n", csp);
	assert_non_null(strstr(page, csp));
	assert_non_null(strstr(page, "@media print"));
	for (const char *p = page; *p; p++) {
		assert_false(!strncasecmp(p, "<script", 7));
		assert_false(!strncasecmp(p, " style=", 7));
		assert_false(!strncasecmp(p, " on", 3) && strchr("abcdefghijklmnopqrstuvwxyz", p[3]) &&
		             strcspn(p + 3, "=> ") < 12 && p[3 + strcspn(p + 3, "=> ")] == '=');
		assert_false(!strncasecmp(p, "<img", 4) || !strncasecmp(p, "<iframe", 7) ||
		             !strncasecmp(p, "<link", 5) || !strncasecmp(p, "<object", 7) ||
		             !strncasecmp(p, "<embed", 6) || !strncasecmp(p, "<image", 6) ||
		             !strncasecmp(p, "<foreignobject", 14));
		assert_false(!strncasecmp(p, "http://", 7) && strncmp(p, "http://www.w3.org/2000/svg", 26));
	}
	assert_int_equal(count(page, "<section"), count(page, "</section>"));
	assert_int_equal(count(page, "<svg"), count(page, "</svg>"));
	assert_non_null(strstr(page, "</html>\n"));
}

static char *frame_text[] = { "[<0>] __flush_work+0x7d/0xd0", "[<0>] lru_add_drain_all+0x11/0x20",
                              "[<0>] cpuset_migrate_mm_workfn+0x3a/0x60" };

static void set_task(struct cgw_task *t, int tid, const char *comm, size_t len, char state,
                     int cpu, double blocked)
{
	memset(t, 0, sizeof(*t));
	t->tid = t->tgid = tid;
	memcpy(t->comm, comm, len);
	t->comm_len = len;
	t->state = state;
	t->cpu = cpu;
	t->blocked_s = blocked;
	t->bound = BOUND_EXACT;
	t->suspect = state == 'D' ? SUSPECT_BLOCKED : SUSPECT_STARVED;
	snprintf(t->cgroup, sizeof(t->cgroup), "/");
}

static char *render_check(struct cgw_report *r)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	report_html(r, f);
	fclose(f);
	char *page = strdup(s);
	free(s);
	return page;
}

/* The seed 004 shape: PID 1 waits for the migration worker, which waits for the drain on CPUs
 * 4-5, where a kworker each is starved by a SCHED_FIFO spinner named to break the page. */
static void test_check_page(void **state)
{
	(void)state;
	struct cgw_sig sig = unit_sig("lru-drain-isolated", "LRU drain starved <on> isolated CPUs",
	                              "A & B", SEV_CRITICAL);
	char *rem[] = { "Move the spinner" };
	char *refs[] = { "https://example.org/a?b=1&c=2", "seed 004 <thread>" };
	sig.remedies = rem;
	sig.nremedies = 1;
	sig.references = refs;
	sig.nreferences = 2;
	struct cgw_task t[4];
	set_task(&t[0], 1, "systemd", 7, 'D', 0, 122.4);
	set_task(&t[1], 1765, HOSTILE, strlen(HOSTILE), 'D', 1, 122.3);
	set_task(&t[2], 2028, "kworker/4:1-mm_percpu_wq", 24, 'R', 4, 122.6);
	set_task(&t[3], 2035, "kworker/5:1-mm_percpu_wq", 24, 'R', 5, 122.5);
	struct cgw_frame fr[3];
	bool marks[3] = { true, true, false };
	for (int i = 0; i < 3; i++)
		fr[i] = (struct cgw_frame){ frame_text[i], NULL };
	for (int i = 0; i < 4; i++) {
		t[i].frames = fr;
		t[i].nframes = 3;
		t[i].marks = i == 1 ? marks : NULL;
		t[i].sig = &sig;
	}
	struct cgw_uframe uf = { 0 };
	snprintf(uf.module, sizeof(uf.module), "/usr/lib/libc.so.6");
	snprintf(uf.symbol, sizeof(uf.symbol), "write");
	uf.offset = 0x1234;
	t[0].uframes = &uf;
	t[0].nuframes = 1;
	struct cgw_runner run[2];
	memset(run, 0, sizeof(run));
	for (int i = 0; i < 2; i++) {
		run[i].tid = run[i].tgid = 5031 + i;
		run[i].cpu = 4 + i;
		run[i].policy = 1;
		run[i].rt_priority = 80;
		memcpy(run[i].comm, "<b>spin\"", 8);
		run[i].comm_len = 8;
		run[i].share = -1;
	}
	struct cgw_scan scan = { 0 };
	scan.t = t;
	scan.n = 4;
	scan.runners = run;
	scan.nrunners = 2;
	scan.threads = 99;
	snprintf(scan.host, sizeof(scan.host), "host<1>");
	snprintf(scan.kernel, sizeof(scan.kernel), "6.18.0");
	cpulist_parse("0-7", &scan.topo.online);
	cpulist_parse("4-7", &scan.topo.isolated);
	cpulist_parse("4-7", &scan.topo.nohz_full);
	size_t tasks[] = { 0, 1, 2, 3 }, chain[] = { 0, 1 };
	struct cgw_finding f;
	memset(&f, 0, sizeof(f));
	f.sig = &sig;
	f.severity = SEV_CRITICAL;
	f.tasks = tasks;
	f.ntasks = 4;
	f.chain = chain;
	f.nchain = 2;
	cpulist_parse("4-5", &f.cpus);
	sb_printf(&f.evidence, "CPU 4: 5031 (<b>spin\") SCHED_FIFO/80 is runnable there\n");
	struct cgw_report r = { .scan = &scan, .f = &f, .nf = 1, .threshold_s = 120 };
	char *page = render_check(&r);
	assert_self_contained(page);
	/* hostile names only as text */
	assert_non_null(strstr(page, "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;"));
	assert_null(strstr(page, "<b>spin"));
	assert_non_null(strstr(page, "&lt;b&gt;spin&quot;"));
	assert_null(strstr(page, "host<1>"));
	assert_null(strstr(page, "<on>"));
	/* the verdict and the sentence */
	assert_non_null(strstr(page, "<div class=\"verdict critical\" id=\"verdict\">CRITICAL: 1 "
	                             "finding</div>"));
	assert_non_null(strstr(page, "A &amp; B"));
	/* the chain: both waiters, the starved CPUs, the spinners */
	const char *svg = strstr(page, "<svg class=\"chain\"");
	assert_non_null(svg);
	const char *end = strstr(svg, "</svg>");
	char *chain_svg = strndup(svg, (size_t)(end - svg));
	assert_non_null(strstr(chain_svg, ">PID 1</text>"));
	assert_non_null(strstr(chain_svg, ">PID 1765</text>"));
	assert_non_null(strstr(chain_svg, ">CPUs 4-5</text>"));
	assert_non_null(strstr(chain_svg, ">2 starved tasks</text>"));
	assert_non_null(strstr(chain_svg, ">PIDs 5031-5032</text>"));
	assert_non_null(strstr(chain_svg, ">2x &lt;b&gt;spin&quot;</text>"));
	assert_non_null(strstr(chain_svg, ">SCHED_FIFO/80</text>"));
	assert_int_equal(count(chain_svg, "<g class=\"chain-node\">"), 4);
	free(chain_svg);
	/* the CPU map: isolated nohz_full CPUs, 4 and 5 starved with their spinner's PID */
	assert_non_null(strstr(page, "<div class=\"cpu iso nohz starved\" id=\"cpu4\""));
	assert_non_null(strstr(page, "<div class=\"cpu iso nohz starved\" id=\"cpu5\""));
	assert_non_null(strstr(page, "<div class=\"cpu iso nohz\" id=\"cpu6\""));
	assert_non_null(strstr(page, "<div class=\"cpu\" id=\"cpu0\""));
	assert_non_null(strstr(page, "<span class=\"pid\">5031</span>"));
	assert_null(strstr(page, "id=\"cpu8\""));
	/* stacks: the two kworkers one entry with a count, marked frames highlighted */
	assert_non_null(strstr(page, "<span class=\"count\">x2</span> PIDs 2028,2035 (<code "
	                             "class=\"comm\">kworker/N:1-mm_percpu_wq</code>)"));
	assert_non_null(strstr(page, "Online 0-7; isolated 4-7; nohz_full 4-7; work starved on 4-5."));
	assert_int_equal(count(page, "<li class=\"hit\""), 2);
	assert_non_null(strstr(page, "<h4>User stack</h4>"));
	assert_non_null(strstr(page, "write+0x0 (/usr/lib/libc.so.6+0x1234)"));
	/* evidence escaped, references: https a link (attribute escaped), the rest text */
	assert_non_null(strstr(page, "<li>CPU 4: 5031 (&lt;b&gt;spin&quot;) SCHED_FIFO/80"));
	assert_non_null(strstr(page, "<a href=\"https://example.org/a?b=1&amp;c=2\">"));
	assert_non_null(strstr(page, "<li>seed 004 &lt;thread&gt;</li>"));
	/* the timeline, and the flight recorder's place */
	assert_non_null(strstr(page, "<svg class=\"timeline\""));
	assert_non_null(strstr(page, "PID 1 (systemd) blocked (-122.4 s)"));
	assert_non_null(strstr(page, "this check (+0.0 s)"));
	assert_non_null(strstr(page, "<section id=\"recorder-events\">"));
	free(page);
	sb_free(&f.evidence);
}

static void test_check_page_empty(void **state)
{
	(void)state;
	struct cgw_scan scan = { 0 };
	struct cgw_report r = { .scan = &scan, .threshold_s = 120 };
	char *page = render_check(&r);
	assert_self_contained(page);
	assert_non_null(strstr(page, "Nothing found"));
	assert_non_null(strstr(page, "The CPU layout was not read."));
	free(page);
}

/* A finding of blocked tasks alone (a FUSE wait) names the CPUs they are on: none of them is
 * starved. Its chain ends at what its tasks wait on. */
static void test_check_page_blocked(void **state)
{
	(void)state;
	struct cgw_sig sig = unit_sig("fuse-wait", "FUSE", "Waits.", SEV_WARNING);
	struct cgw_task t;
	set_task(&t, 42, "stat", 4, 'D', 1, 30);
	t.sig = &sig;
	struct cgw_runner run = { .tid = 7, .tgid = 7, .cpu = 1, .comm = "cc1", .comm_len = 3 };
	struct cgw_scan scan = { .t = &t, .n = 1, .runners = &run, .nrunners = 1 };
	cpulist_parse("0-1", &scan.topo.online);
	size_t tasks[] = { 0 };
	struct cgw_finding f;
	memset(&f, 0, sizeof(f));
	f.sig = &sig;
	f.severity = SEV_WARNING;
	f.tasks = tasks;
	f.ntasks = 1;
	cpulist_parse("1", &f.cpus);
	snprintf(f.cause, sizeof(f.cause), "mount /mnt/<x>");
	struct cgw_report r = { .scan = &scan, .f = &f, .nf = 1, .threshold_s = 1 };
	char *page = render_check(&r);
	assert_self_contained(page);
	assert_non_null(strstr(page, ">PID 42</text>"));
	assert_non_null(strstr(page, "<rect class=\"node cause\""));
	assert_non_null(strstr(page, ">mount</text><text x=\"282\" y=\"52\">/mnt/&lt;x&gt;</text>"));
	assert_null(strstr(page, "node cpus"));
	assert_null(strstr(page, "node spin"));
	assert_null(strstr(page, "cc1"));
	assert_null(strstr(page, "<div class=\"cpu starved\""));
	assert_non_null(strstr(page, "<div class=\"cpu\" id=\"cpu1\""));
	free(page);
}

/* The flight recorder's sentences on the page: a mark of its kind each on the timeline and
 * a list in recorder-events, a writer's name escaped (C, then HTML), the page still
 * self-contained; its text report and JSON object say the same. */
static void test_check_page_recorder(void **state)
{
	(void)state;
	struct cgw_sig sig = unit_sig("fuse-wait", "FUSE", "Waits.", SEV_WARNING);
	struct cgw_task t;
	set_task(&t, 42, "stat", 4, 'D', 1, 30);
	t.sig = &sig;
	struct cgw_scan scan = { .t = &t, .n = 1 };
	cpulist_parse("0-1", &scan.topo.online);
	size_t tasks[] = { 0 };
	struct cgw_finding f;
	memset(&f, 0, sizeof(f));
	f.sig = &sig;
	f.severity = SEV_WARNING;
	f.tasks = tasks;
	f.ntasks = 1;
	static const char trace[] =
		"           rmdir-300     [001] ..... 960.000000: cgroup_rmdir: root=9 id=8 level=1 path=/c0\n"
		"           rmdir-301     [001] ..... 961.000000: cgroup_rmdir: root=9 id=9 level=1 path=/c1\n"
		"  <script>\"'&x-4242    [000] ..... 965.900000: sys_openat(dfd: 0xffffff9c, filename: 0x5, flags: 0x241, mode: 0x1b6)\n"
		"     rcu_preempt-15      [001] d..2. 966.000000: sched_switch: prev_comm=rcu_preempt prev_pid=15 prev_prio=120 prev_state=I ==> next_comm=<spin> next_pid=4243 next_prio=49\n";
	struct cgw_recwin w;
	memset(&w, 0, sizeof(w));
	assert_int_equal(trace_parse(trace, strlen(trace), -1, &w.ev), 0);
	assert_int_equal(w.ev.n, 4);
	w.read_at = 1000;
	w.window_s = 300;
	snprintf(w.missing, sizeof(w.missing), "cpuhp:cpuhp_enter (not in this kernel)");
	struct cgw_report r = { .scan = &scan, .f = &f, .nf = 1, .threshold_s = 1, .recorder = &w };
	recorder_anchor(&w, &r, -1);
	assert_true(w.have_anchor);
	assert_near(w.anchor_t, 970, 1e-9);
	char *page = render_check(&r);
	assert_self_contained(page);
	assert_non_null(strstr(page, "<g class=\"mark recorder rec-cpuset\">"));
	assert_non_null(strstr(page, "<g class=\"mark recorder rec-cgroup\">"));
	/* the last switch on CPU 1: a mark of its own, the comm escaped */
	assert_non_null(strstr(page, "<g class=\"mark recorder rec-switch\">"));
	assert_non_null(strstr(page, "CPU 1: PID 4243 (&lt;spin&gt;) ran without a switch for the "
	                       "34.0 s to the readout"));
	assert_non_null(strstr(page, "<li class=\"recorder rec-cpuset\"><b>-4.1 s</b> cpuset.mems "
	                             "opened for writing by PID 4242 (&lt;script&gt;\\&quot;&#39;&amp;x) "
	                             "4.1 s before PID 42 blocked</li>"));
	assert_non_null(strstr(page, "2 cgroup rmdirs in the 30 s before PID 42 blocked"));
	assert_non_null(strstr(page, "Not recorded: cpuhp:cpuhp_enter (not in this kernel)"));
	assert_null(strstr(page, "<script>"));
	assert_null(strstr(page, "a one-off check keeps no flight recorder"));
	assert_non_null(strstr(page, "4.1 s before PID 42 blocked (-34.1 s)</text>"));
	free(page);
	/* a later page of the incident: its task blocked 60 s now, the marks move with it */
	t.blocked_s = 60;
	page = render_check(&r);
	assert_non_null(strstr(page, "4.1 s before PID 42 blocked (-64.1 s)</text>"));
	free(page);
	t.blocked_s = 30;
	char *txt = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&txt, &n);
	report_text(&r, out);
	fclose(out);
	assert_non_null(strstr(txt, "Kernel events before the hang (flight recorder, the last 300 s, "
	                            "read 30.0 s after PID 42 blocked; times from that moment):\n"
	                            "     -10.0 s  2 cgroup rmdirs in the 30 s before PID 42 blocked"));
	assert_non_null(strstr(txt, "      -4.1 s  cpuset.mems opened for writing by PID 4242 "
	                            "(<script>\\\"'&x) 4.1 s before PID 42 blocked\n"));
	assert_non_null(strstr(txt, "  not recorded: cpuhp:cpuhp_enter (not in this kernel)\n"));
	free(txt);
	struct json_object *o = report_json_build(&r, -1), *rec, *v;
	assert_true(json_object_object_get_ex(o, "recorder", &rec));
	assert_true(json_object_object_get_ex(rec, "events", &v));
	assert_int_equal(json_object_array_length(v), 4);
	assert_true(json_object_object_get_ex(rec, "timeline", &v));
	assert_int_equal(json_object_array_length(v), 3);
	struct json_object *k;
	assert_true(json_object_object_get_ex(json_object_array_get_idx(v, 2), "kind", &k));
	assert_string_equal(json_object_get_string(k), "switch");
	assert_true(json_object_object_get_ex(json_object_array_get_idx(v, 1), "kind", &v));
	assert_string_equal(json_object_get_string(v), "cpuset");
	assert_true(json_object_object_get_ex(rec, "events_cut", &v));
	assert_int_equal(json_object_get_int(v), 0);
	json_object_put(o);
	/* not recorded: why, in each */
	struct cgw_recwin off;
	memset(&off, 0, sizeof(off));
	snprintf(off.why, sizeof(off.why), "the flight recorder is off ([recorder] enabled = no)");
	r.recorder = &off;
	page = render_check(&r);
	assert_non_null(strstr(page, "Not recorded: the flight recorder is off ([recorder] enabled = no)"));
	assert_null(strstr(page, "mark recorder"));
	free(page);
	recwin_free(&w);
}

/* A report's pressure: the system-wide averages per resource, which crossed its threshold and
 * why, the findings' cgroups' own pressure, hostile cgroup paths and error texts as text. */
static void set_psi(struct cgw_psi_avg *a, double avg10, double avg60)
{
	a->have = true;
	a->avg10 = avg10;
	a->avg60 = avg60;
	a->avg300 = avg60 / 2;
	a->total_us = 1000;
}

static void pressure_fill(struct cgw_pressure *p)
{
	memset(p, 0, sizeof(*p));
	p->sys[PSI_CPU].have = true;
	set_psi(&p->sys[PSI_CPU].some, 62.37, 40.1);
	set_psi(&p->sys[PSI_CPU].full, 0, 0);
	snprintf(p->error[PSI_MEMORY], sizeof(p->error[0]), "cannot open /proc/pressure/<memory>");
	p->sys[PSI_IO].have = true;
	set_psi(&p->sys[PSI_IO].some, 30.5, 20);
	set_psi(&p->sys[PSI_IO].full, 27.85, 12.5);
	char err[128];
	assert_int_equal(psi_trigger_parse("some 1500ms 2s", &p->trig[PSI_CPU], err, sizeof(err)), 0);
	assert_int_equal(psi_trigger_parse("no", &p->trig[PSI_MEMORY], err, sizeof(err)), 0);
	assert_int_equal(psi_trigger_parse("full 500ms 2s", &p->trig[PSI_IO], err, sizeof(err)), 0);
	pressure_decide(p);
	assert_true(p->crossed[PSI_IO]);
	assert_false(p->crossed[PSI_CPU]);
}

static void test_check_page_pressure(void **state)
{
	(void)state;
	struct cgw_sig sig = unit_sig("fuse-wait", "FUSE", "Waits.", SEV_WARNING);
	struct cgw_task t[2];
	set_task(&t[0], 42, "stat", 4, 'D', 1, 30);
	set_task(&t[1], 43, "ls", 2, 'D', 0, 25);
	snprintf(t[0].cgroup, sizeof(t[0].cgroup), "/evil<script>x</script>.service");
	snprintf(t[1].cgroup, sizeof(t[1].cgroup), "/user.slice");
	t[0].sig = t[1].sig = &sig;
	struct cgw_scan scan = { .t = t, .n = 2 };
	cpulist_parse("0-1", &scan.topo.online);
	size_t tasks[] = { 0, 1 };
	struct cgw_finding f;
	memset(&f, 0, sizeof(f));
	f.sig = &sig;
	f.severity = SEV_WARNING;
	f.tasks = tasks;
	f.ntasks = 2;
	struct cgw_pressure p;
	pressure_fill(&p);
	struct cgw_psi_cgroup cg[2];
	memset(cg, 0, sizeof(cg));
	snprintf(cg[0].path, sizeof(cg[0].path), "/evil<script>x</script>.service");
	cg[0].res[PSI_CPU].have = true;
	set_psi(&cg[0].res[PSI_CPU].some, 42, 30);
	cg[0].res[PSI_IO].have = true;
	set_psi(&cg[0].res[PSI_IO].some, 12, 6);
	set_psi(&cg[0].res[PSI_IO].full, 8, 4);
	snprintf(cg[1].path, sizeof(cg[1].path), "/user.slice");
	cg[1].res[PSI_CPU].have = true;
	set_psi(&cg[1].res[PSI_CPU].some, 2, 1);
	p.cg = cg;
	p.ncg = 2;
	struct cgw_report r = { .scan = &scan, .f = &f, .nf = 1, .threshold_s = 1, .pressure = &p,
	                        .runq_why = "a single snapshot has no <interval>" };
	char *page = render_check(&r);
	assert_self_contained(page);
	assert_null(strstr(page, "<script>"));
	assert_non_null(strstr(page, "<section id=\"pressure\"><h2>Pressure (PSI)</h2>"));
	assert_non_null(strstr(page, "<tr id=\"pressure-cpu\"><td>cpu</td><td>62.37 %</td>"
	                             "<td>40.10 %</td><td>0.00 %</td><td>0.00 %</td>"
	                             "<td>some 1500ms 2s</td><td>no</td></tr>"));
	assert_non_null(strstr(page, "<tr id=\"pressure-memory\"><td>memory</td><td colspan=\"4\">"
	                             "not read: cannot open /proc/pressure/&lt;memory&gt;</td>"
	                             "<td>no</td><td>off</td></tr>"));
	assert_non_null(strstr(page, "<tr id=\"pressure-io\" class=\"crossed\"><td>io</td>"
	                             "<td>30.50 %</td><td>20.00 %</td><td>27.85 %</td><td>12.50 %</td>"
	                             "<td>full 500ms 2s</td><td>yes: io full avg10 28 % (threshold "
	                             "500 ms in 2 s, 25 %)</td></tr>"));
	/* the findings' cgroups, their paths as text */
	assert_non_null(strstr(page, "<table id=\"pressure-cgroups\">"));
	assert_non_null(strstr(page, "<tr><td><code>/evil&lt;script&gt;x&lt;/script&gt;.service</code>"
	                             "</td><td>some 42.00 %</td><td>-</td>"
	                             "<td>some 12.00 %, full 8.00 %</td></tr>"));
	assert_non_null(strstr(page, "<tr><td><code>/user.slice</code></td><td>some 2.00 %</td>"
	                             "<td>-</td><td>-</td></tr>"));
	/* no run-queue measurement in a check: said, with why */
	assert_non_null(strstr(page, "<section id=\"runq\"><h2>Run-queue latency</h2>\n<p>Not "
	                             "measured: a single snapshot has no &lt;interval&gt;</p>"));
	assert_null(strstr(page, "<table id=\"runq-cpus\">"));
	free(page);
	/* triggers registered (the daemon's): said */
	p.triggers = true;
	p.fired[PSI_CPU] = true;
	pressure_decide(&p);
	page = render_check(&r);
	assert_non_null(strstr(page, "The kernel's triggers are registered: a scan runs when one "
	                             "fires."));
	assert_non_null(strstr(page, "<tr id=\"pressure-cpu\" class=\"crossed\">"));
	assert_non_null(strstr(page, "<td>yes: cpu some stalled 1.5 s or more in 2 s (the kernel&#39;s "
	                             "trigger); avg10 62 %</td>"));
	free(page);
	/* no pressure read: no section */
	r.pressure = NULL;
	r.runq_why = NULL;
	page = render_check(&r);
	assert_null(strstr(page, "id=\"pressure\""));
	assert_null(strstr(page, "id=\"runq\""));
	free(page);
}

static char *render_incident(struct cgw_report *r, struct incident *i, ssize_t finding)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	incident_html(r, i, INC_OPENED, finding, f);
	fclose(f);
	char *page = strdup(s);
	free(s);
	return page;
}

/* The page of a runq-latency incident: its CPU's waits (p50, p99, max), what held it and the
 * longest waiters, named as text; the highest other CPUs beside it; the pressure, with the
 * cgroups of its own finding's tasks only. */
static void test_incident_page_latency(void **state)
{
	(void)state;
	struct cgw_sig sig = unit_sig("runq-latency", "Runnable tasks wait too long", "Waits.",
	                              SEV_WARNING);
	struct cgw_sig fam = unit_sig("starved", "Runnable task that gets no CPU time", "S",
	                              SEV_WARNING);
	struct cgw_sig fsig = unit_sig("fuse-wait", "FUSE", "Waits.", SEV_WARNING);
	struct cgw_task t[2];
	set_task(&t[0], 4242, "<b>spin", 7, 'R', 1, 0.05);
	snprintf(t[0].cgroup, sizeof(t[0].cgroup), "/user.slice");
	t[0].policy = 1;
	t[0].rt_priority = 50;
	set_task(&t[1], 77, "stat", 4, 'D', 0, 30);
	snprintf(t[1].cgroup, sizeof(t[1].cgroup), "/other.slice");
	t[0].sig = &sig;
	t[1].sig = &fsig;
	struct cgw_scan scan = { .t = t, .n = 2 };
	cpulist_parse("0-3", &scan.topo.online);
	size_t t0[] = { 0 }, t1[] = { 1 };
	struct cgw_finding f[2];
	memset(f, 0, sizeof(f));
	f[0].sig = &sig;
	f[0].family = &fam;
	f[0].severity = SEV_WARNING;
	f[0].tasks = t0;
	f[0].ntasks = 1;
	snprintf(f[0].cause, sizeof(f[0].cause), "cpu 1");
	f[1].sig = &fsig;
	f[1].severity = SEV_WARNING;
	f[1].tasks = t1;
	f[1].ntasks = 1;
	struct cgw_runq_cpu c[4];
	memset(c, 0, sizeof(c));
	for (int k = 0; k < 4; k++) {
		c[k].cpu = k;
		c[k].count = 100 + (unsigned)k;
		c[k].p50_ms = 0.01 * k;
		c[k].p99_ms = k == 1 ? 46.7 : 0.5 * k;
		c[k].max_ms = k == 1 ? 99 : k;
	}
	c[1].count = 1980;
	c[1].p50_ms = 0.012;
	c[1].held = (struct cgw_runq_task){ .tid = 4242, .tgid = 4242, .comm = "<b>spin",
	                                    .policy = 1, .rt_priority = 50, .ms = 49.1 };
	c[1].waited[0] = (struct cgw_runq_task){ .tid = 4244, .tgid = 4243, .comm = "sleeper&",
	                                         .policy = 0, .ms = 49.2 };
	c[1].waited[1] = (struct cgw_runq_task){ .tid = 4245, .tgid = 4245, .comm = "other",
	                                         .policy = 0, .ms = 12.5 };
	c[1].nwaited = 2;
	struct cgw_runq rq = { .source = "sched_switch", .interval_s = 5, .cpu = c, .ncpu = 4,
	                       .exact = true };
	snprintf(rq.missing, sizeof(rq.missing), "irqsoff: not among this kernel's tracers");
	struct cgw_pressure p;
	pressure_fill(&p);
	struct cgw_psi_cgroup cg[2];
	memset(cg, 0, sizeof(cg));
	snprintf(cg[0].path, sizeof(cg[0].path), "/user.slice");
	cg[0].res[PSI_CPU].have = true;
	set_psi(&cg[0].res[PSI_CPU].some, 80, 60);
	snprintf(cg[1].path, sizeof(cg[1].path), "/other.slice");
	cg[1].res[PSI_IO].have = true;
	set_psi(&cg[1].res[PSI_IO].some, 50, 40);
	p.cg = cg;
	p.ncg = 2;
	struct cgw_report r = { .scan = &scan, .f = f, .nf = 2, .threshold_s = 20, .pressure = &p,
	                        .runq = &rq };
	struct incident inc;
	memset(&inc, 0, sizeof(inc));
	snprintf(inc.id, sizeof(inc.id), "20261202T071502Z-runq-latency");
	snprintf(inc.sig, sizeof(inc.sig), "runq-latency");
	snprintf(inc.cause, sizeof(inc.cause), "cpu 1");
	inc.severity = SEV_WARNING;
	inc.opened_at = inc.last_event_at = 1.7e9;
	char *page = render_incident(&r, &inc, 0);
	assert_self_contained(page);
	assert_null(strstr(page, "<b>spin"));
	assert_non_null(strstr(page, "<section id=\"runq\"><h2>Run-queue latency</h2>"));
	assert_non_null(strstr(page, "over the last 5.0 s, from sched_switch"));
	assert_non_null(strstr(page, "<tr id=\"runq-cpu1\" class=\"cause\"><td>1</td><td>1980</td>"
	                             "<td>0.01 ms</td><td>46.70 ms</td><td>99.00 ms</td>"
	                             "<td>PID 4242 (&lt;b&gt;spin) SCHED_FIFO/50, 49.1 ms</td>"
	                             "<td>TID 4244 of PID 4243 (sleeper&amp;) SCHED_OTHER, 49.20 ms"
	                             "<br>PID 4245 (other) SCHED_OTHER, 12.50 ms</td></tr>"));
	/* the highest others beside it, highest p99 first; four rows in all */
	const char *c3 = strstr(page, "<tr id=\"runq-cpu3\">"), *c2 = strstr(page, "<tr id=\"runq-cpu2\">");
	assert_non_null(c3);
	assert_non_null(c2);
	assert_true(c3 < c2);
	assert_true(strstr(page, "<tr id=\"runq-cpu1\"") < c3);
	assert_non_null(strstr(page, "<tr id=\"runq-cpu0\"><td>0</td><td>100</td><td>0.00 ms</td>"
	                             "<td>0.00 ms</td><td>0.00 ms</td><td>-</td><td>-</td></tr>"));
	assert_non_null(strstr(page, "Not measured on this kernel: irqsoff: not among this "
	                             "kernel&#39;s tracers"));
	/* pressure: the system's, and the cgroup of the incident's own finding's task only */
	assert_non_null(strstr(page, "<tr id=\"pressure-io\" class=\"crossed\">"));
	assert_non_null(strstr(page, "<tr><td><code>/user.slice</code></td><td>some 80.00 %</td>"));
	assert_null(strstr(page, "/other.slice"));
	free(page);
	/* the other finding's page: its own cgroup, no cause CPU (the four highest) */
	page = render_incident(&r, &inc, 1);
	assert_non_null(strstr(page, "<tr><td><code>/other.slice</code></td><td>-</td><td>-</td>"
	                             "<td>some 50.00 %</td></tr>"));
	assert_null(strstr(page, "<code>/user.slice</code>"));
	assert_non_null(strstr(page, "<tr id=\"runq-cpu1\"><td>1</td>"));
	free(page);
	/* timerlat on CPU 1: under its holder, the names and the stack escaped */
	c[1].tl = (struct cgw_timerlat){ .measured = true, .samples = 212, .irq_max_us = 568.46,
	                                 .thread_max_us = 20502.97, .thr_pid = 128,
	                                 .thr_comm = "<i>spin" };
	snprintf(c[1].tl.stack, sizeof(c[1].tl.stack), "a\"<b> <- b");
	page = render_incident(&r, &inc, 0);
	assert_self_contained(page);
	assert_non_null(strstr(page, "SCHED_FIFO/50, 49.1 ms<br><span class=\"timerlat\" "
	                             "title=\"kernel stack at the IRQ: a&quot;&lt;b&gt; &lt;- b\">"
	                             "timerlat: thread 20.50 ms late, held by PID 128 (&lt;i&gt;spin)"
	                             "; IRQ 0.57 ms late</span></td>"));
	assert_null(strstr(page, "<i>spin"));
	free(page);
	memset(&c[1].tl, 0, sizeof(c[1].tl));
	/* a schedstat source: the holder's time is its CPU time, the waits a mean per slice */
	rq.source = "schedstat";
	rq.exact = false;
	page = render_incident(&r, &inc, 0);
	assert_non_null(strstr(page, "from schedstat (a mean wait per slice of each task read"));
	free(page);
}

static void test_audit_page(void **state)
{
	(void)state;
	struct cgw_facts *f = calloc(1, sizeof(*f));
	snprintf(f->host, sizeof(f->host), "h");
	cpulist_parse("0-3", &f->online);
	cpulist_parse("2-3", &f->isolated);
	f->spin = calloc(1, sizeof(*f->spin));
	f->nspin = 1;
	f->spin[0] = (struct audit_spinner){ .cpu = 2, .tid = 77, .policy = 1, .prio = 80 };
	memcpy(f->spin[0].comm, "<img src=x>", 11);
	f->known[HF_RT_SPINNERS] = true;
	f->v[HF_RT_SPINNERS] = 1;
	sb_printf(&f->ev[HF_RT_SPINNERS], "CPU 2 (isolated): 77 (<img src=x>) SCHED_FIFO/80\n");
	snprintf(f->why[HF_WQ_WATCHDOG], sizeof(f->why[0]), "no <file>");
	char *rem[] = { "Turn it off" };
	struct cgw_hazard h = { .id = "rt-spinner", .title = "Spinners", .summary = "S",
	                        .signature = "lru-drain-isolated", .seed = "seed 004",
	                        .severity = SEV_WARNING, .remedies = rem, .nremedies = 1 };
	struct cgw_hazard_hit hit = { &h, "CPU 2 (isolated): 77 (<img src=x>) SCHED_FIFO/80\n" };
	struct cgw_audit a = { .hits = &hit, .nhits = 1, .facts = f };
	char *page = NULL;
	size_t n = 0;
	FILE *out = open_memstream(&page, &n);
	audit_html(&a, out);
	fclose(out);
	assert_self_contained(page);
	assert_null(strstr(page, "<img"));
	assert_non_null(strstr(page, "77 (&lt;img src=x&gt;) SCHED_FIFO/80"));
	assert_non_null(strstr(page, "<div class=\"verdict warning\" id=\"verdict\">1 hazard "
	                             "(0 critical, 1 warning)</div>"));
	assert_non_null(strstr(page, "<div class=\"cpu iso\" id=\"cpu2\" title=\"CPU 2: isolated, "
	                             "77 (&lt;img src=x&gt;) SCHED_FIFO/80: spinner\"><b>2</b>"
	                             "<span class=\"pid\">77</span></div>"));
	assert_non_null(strstr(page, "<tr id=\"fact-rt.spinners\"><td><code>rt.spinners</code></td>"
	                             "<td>1</td>"));
	assert_non_null(strstr(page, "unknown: no &lt;file&gt;"));
	assert_non_null(strstr(page, "Leads to: <code>lru-drain-isolated</code>"));
	free(page);
	facts_free(f);
	free(f);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
		cmocka_unit_test(test_check_page),
		cmocka_unit_test(test_check_page_empty),
		cmocka_unit_test(test_check_page_blocked),
		cmocka_unit_test(test_check_page_recorder),
		cmocka_unit_test(test_check_page_pressure),
		cmocka_unit_test(test_incident_page_latency),
		cmocka_unit_test(test_audit_page),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
