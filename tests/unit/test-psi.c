/* test-psi.c: pressure files (psi_parse) on this host's real text, the [pressure] setting
 * (psi_trigger_parse, psi_trigger_format), thresholds crossed and why (pressure_decide), a
 * cgroup's evidence line (pressure_cgroup_line, pressure_link), the report's pressure in the
 * metrics (metrics_pressure) and in the text report. */
#include <json-c/json.h>

#include "unit.h"

/* /proc/pressure/cpu on this host (6.18, under other sessions' load) */
static const char proc_cpu[] =
	"some avg10=51.91 avg60=58.94 avg300=32.80 total=14436187768\n"
	"full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n";
/* /proc/pressure/io */
static const char proc_io[] =
	"some avg10=23.57 avg60=10.09 avg300=4.68 total=1504545282\n"
	"full avg10=12.74 avg60=4.28 avg300=2.36 total=997939339\n";
/* a v2 cgroup's cpu.pressure (/sys/fs/cgroup/unified/cgwpsi-unit, two busy loops in it for
 * 3 s on this loaded 2-CPU host) */
static const char cg_cpu[] =
	"some avg10=10.86 avg60=1.96 avg300=0.41 total=2084979\n"
	"full avg10=9.96 avg60=1.79 avg300=0.37 total=1743237\n";
/* a kernel before 5.13: /proc/pressure/cpu has only the "some" line (psi_show's format then) */
static const char old_cpu[] = "some avg10=0.12 avg60=0.05 avg300=0.01 total=4531\n";

static void test_psi_parse_real(void **state)
{
	(void)state;
	struct cgw_psi p;
	char err[256] = "";
	assert_int_equal(psi_parse(proc_cpu, &p, err, sizeof(err)), 0);
	assert_true(p.have && p.some.have && p.full.have);
	assert_true(p.some.avg10 == 51.91 && p.some.avg60 == 58.94 && p.some.avg300 == 32.80);
	assert_true(p.some.total_us == 14436187768ull);
	assert_true(p.full.avg10 == 0 && p.full.total_us == 0);
	assert_int_equal(psi_parse(proc_io, &p, err, sizeof(err)), 0);
	assert_true(p.full.avg10 == 12.74 && p.full.total_us == 997939339ull);
	assert_int_equal(psi_parse(cg_cpu, &p, err, sizeof(err)), 0);
	assert_true(p.some.avg10 == 10.86 && p.full.avg300 == 0.37 && p.some.total_us == 2084979);
	/* no "full" line: some only */
	assert_int_equal(psi_parse(old_cpu, &p, err, sizeof(err)), 0);
	assert_true(p.have && p.some.have && !p.full.have && p.some.total_us == 4531);
	/* no final newline (a read cut at the end) is the same text */
	assert_int_equal(psi_parse("some avg10=1.00 avg60=2.00 avg300=3.00 total=7", &p, err,
	                           sizeof(err)), 0);
	assert_true(p.some.avg300 == 3.0 && p.some.total_us == 7);
}

/* every malformed text is refused with the line named; nothing half-parsed is kept */
static void test_psi_parse_malformed(void **state)
{
	(void)state;
	static const struct { const char *text, *want; } bad[] = {
		{ "", "empty" },
		{ "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n", "line 1: an unknown kind" },
		{ "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nsome avg10=0.00 avg60=0.00 "
		  "avg300=0.00 total=0\n", "line 2: an unknown kind" },
		{ "some avg10=0.00 avg60=0.00 total=0\n", "line 1: no avg300=" },
		{ "some avg10=101.00 avg60=0.00 avg300=0.00 total=0\n", "line 1: an average that is "
		  "not a percent" },
		{ "some avg10=-1.00 avg60=0.00 avg300=0.00 total=0\n", "line 1: an average" },
		{ "some avg10=nan avg60=0.00 avg300=0.00 total=0\n", "line 1: an average" },
		{ "some avg10=1e2 avg60=0.00 avg300=0.00 total=0\n", "line 1: not one space" },
		{ "some avg10=0.00 avg60=0.00 avg300=0.00 total=-5\n", "line 1: a total" },
		{ "some avg10=0.00 avg60=0.00 avg300=0.00 total=99999999999999999999\n",
		  "line 1: a total" },
		{ "some avg10=0.00 avg60=0.00 avg300=0.00 total=0 x\n", "line 1: text after total=" },
		{ "some avg10=0.00  avg60=0.00 avg300=0.00 total=0\n", "line 1: no avg60=" },
		{ "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 "
		  "avg300=0.00 total=0\nfull avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
		  "line 3: more than two lines" },
		{ "some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n\n", "line 2: an unknown kind" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct cgw_psi p;
		char err[256] = "";
		memset(&p, 0xff, sizeof(p));
		if (psi_parse(bad[i].text, &p, err, sizeof(err)) != -EINVAL ||
		    !strstr(err, bad[i].want)) {
			print_error("case %zu: %s -> \"%s\", want \"%s\"\n", i, bad[i].text, err,
			            bad[i].want);
			fail();
		}
		assert_false(p.have || p.some.have || p.full.have);
	}
	/* the line is shown escaped: a control byte in the file never reaches the log raw */
	struct cgw_psi p;
	char err[256];
	assert_int_equal(psi_parse("some\x1b[2J\n", &p, err, sizeof(err)), -EINVAL);
	assert_null(strchr(err, '\x1b'));
	assert_non_null(strstr(err, "\\x1b"));
}

static void test_psi_trigger_parse(void **state)
{
	(void)state;
	struct cgw_psi_trigger t;
	char err[160], buf[64];
	assert_int_equal(psi_trigger_parse("some 500ms 1s", &t, err, sizeof(err)), 0);
	assert_true(t.on && !t.full && t.stall_us == 500000 && t.window_us == 1000000);
	assert_string_equal(psi_trigger_format(&t, buf, sizeof(buf)), "some 500ms 1s");
	assert_int_equal(psi_trigger_parse("full  1.5s\t10s", &t, err, sizeof(err)), 0);
	assert_true(t.on && t.full && t.stall_us == 1500000 && t.window_us == 10000000);
	assert_string_equal(psi_trigger_format(&t, buf, sizeof(buf)), "full 1500ms 10s");
	assert_int_equal(psi_trigger_parse("some 150000us 500ms", &t, err, sizeof(err)), 0);
	assert_true(t.stall_us == 150000 && t.window_us == 500000);
	assert_int_equal(psi_trigger_parse("some 1us 2s", &t, err, sizeof(err)), 0);
	assert_string_equal(psi_trigger_format(&t, buf, sizeof(buf)), "some 1us 2s");
	/* a window in microseconds past a million of them (the fuzzer's: formatted as us, it
	 * must parse back) */
	assert_int_equal(psi_trigger_parse("some 5ms 9900.08ms", &t, err, sizeof(err)), 0);
	assert_string_equal(psi_trigger_format(&t, buf, sizeof(buf)), "some 5ms 9900080us");
	assert_int_equal(psi_trigger_parse(buf, &t, err, sizeof(err)), 0);
	assert_true(t.window_us == 9900080);
	assert_int_equal(psi_trigger_parse("no", &t, err, sizeof(err)), 0);
	assert_false(t.on);
	assert_string_equal(psi_trigger_format(&t, buf, sizeof(buf)), "no");
	/* what the kernel refuses, refused here: window 500 ms..10 s, 0 < stall <= window */
	static const struct { const char *v, *want; } bad[] = {
		{ "", "want no, or some|full" }, { "yes", "want no" }, { "some 500ms", "want no" },
		{ "some 500ms 1s 2s", "want no" }, { "partial 500ms 1s", "want no" },
		{ "some 500 1s", "a duration" }, { "some 500ms 1m", "a duration" },
		{ "some 0.5us 1s", "a duration" }, { "some -5ms 1s", "a duration" },
		{ "some 1e3ms 1s", "a duration" }, { "some .ms 1s", "a duration" },
		{ "some 100ms 499ms", "the window must be 500ms..10s" },
		{ "some 100ms 11s", "the window must be" }, { "some 0ms 1s", "the stall must be" },
		{ "some 2s 1s", "the stall must be" }, { "some 5000s 9999999s", "a duration" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct cgw_psi_trigger k = { true, true, 7, 8 };
		err[0] = '\0';
		if (psi_trigger_parse(bad[i].v, &k, err, sizeof(err)) != -EINVAL ||
		    !strstr(err, bad[i].want)) {
			print_error("\"%s\" -> \"%s\", want \"%s\"\n", bad[i].v, err, bad[i].want);
			fail();
		}
		/* a refused value leaves the setting as it was (the default) */
		assert_true(k.on && k.full && k.stall_us == 7 && k.window_us == 8);
	}
}

/* [pressure] in a config file: defaults, a value, "no", an error naming file, line and key */
static void test_psi_conf(void **state)
{
	(void)state;
	struct cgw_conf c;
	conf_defaults(&c);
	assert_true(c.pressure[PSI_CPU].on && c.pressure[PSI_CPU].window_us == 2000000);
	char path[] = "/tmp/cgw-test-psi-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	const char *txt = "[pressure]\ncpu = some 900ms 1s\nmemory = no\nio = full 11s 20s\n";
	assert_int_equal(write(fd, txt, strlen(txt)), (ssize_t)strlen(txt));
	close(fd);
	char *out = NULL;
	size_t len = 0;
	FILE *err = open_memstream(&out, &len);
	assert_int_equal(conf_read_file(&c, path, err), 1);
	fclose(err);
	unlink(path);
	assert_non_null(strstr(out, ":4: io: the window must be 500ms..10s"));
	free(out);
	assert_true(c.pressure[PSI_CPU].on && c.pressure[PSI_CPU].stall_us == 900000);
	assert_false(c.pressure[PSI_MEMORY].on);
	assert_true(c.pressure[PSI_IO].on && c.pressure[PSI_IO].full &&   /* the default kept */
	            c.pressure[PSI_IO].stall_us == 500000);
	char *dump = conf_dump(&c, &len);
	assert_non_null(strstr(dump, "[pressure]\ncpu = some 900ms 1s\nmemory = no\n"
	                       "io = full 500ms 2s\n"));
	free(dump);
	conf_free(&c);
}

static struct cgw_pressure *pressure_of(const char *cpu, const char *io)
{
	static struct cgw_pressure p;
	char err[256];
	memset(&p, 0, sizeof(p));
	assert_int_equal(psi_parse(cpu, &p.sys[PSI_CPU], err, sizeof(err)), 0);
	assert_int_equal(psi_parse("some avg10=0.00 avg60=0.00 avg300=0.00 total=0\n"
	                           "full avg10=0.00 avg60=0.00 avg300=0.00 total=0\n",
	                           &p.sys[PSI_MEMORY], err, sizeof(err)), 0);
	assert_int_equal(psi_parse(io, &p.sys[PSI_IO], err, sizeof(err)), 0);
	char e[160];
	assert_int_equal(psi_trigger_parse("some 500ms 1s", &p.trig[PSI_CPU], e, sizeof(e)), 0);
	assert_int_equal(psi_trigger_parse("some 150ms 1s", &p.trig[PSI_MEMORY], e, sizeof(e)), 0);
	assert_int_equal(psi_trigger_parse("full 500ms 2s", &p.trig[PSI_IO], e, sizeof(e)), 0);
	return &p;
}

static void test_pressure_decide(void **state)
{
	(void)state;
	/* cpu some avg10 51.91 >= 50 %: crossed by the average; io full 12.74 < 25 %: not */
	struct cgw_pressure *p = pressure_of(proc_cpu, proc_io);
	pressure_decide(p);
	assert_true(p->crossed[PSI_CPU]);
	assert_string_equal(p->why[PSI_CPU], "cpu some avg10 52 % (threshold 500 ms in 1 s, 50 %)");
	assert_false(p->crossed[PSI_MEMORY]);
	assert_false(p->crossed[PSI_IO]);
	assert_string_equal(p->why[PSI_IO], "");
	/* the kernel's trigger fired since the last scan: crossed, whatever avg10 says */
	p->fired[PSI_IO] = true;
	pressure_decide(p);
	assert_true(p->crossed[PSI_IO]);
	assert_string_equal(p->why[PSI_IO], "io full stalled 500 ms or more in 2 s (the kernel's "
	                    "trigger); avg10 13 %");
	/* the threshold is the kernel's: avg10 just under stall/window does not cross */
	p = pressure_of("some avg10=49.99 avg60=0.00 avg300=0.00 total=1\n", proc_io);
	pressure_decide(p);
	assert_false(p->crossed[PSI_CPU]);
	/* off ("no"): never crossed, even when its trigger is said to have fired */
	p = pressure_of(proc_cpu, proc_io);
	p->trig[PSI_CPU].on = false;
	p->fired[PSI_CPU] = true;
	pressure_decide(p);
	assert_false(p->crossed[PSI_CPU]);
	assert_string_equal(p->why[PSI_CPU], "");
	/* a "full" threshold on a file without a full line (an old kernel's cpu): not crossed by
	 * averages it does not have */
	p = pressure_of(old_cpu, proc_io);
	p->trig[PSI_CPU].full = true;
	p->trig[PSI_CPU].stall_us = 1;
	pressure_decide(p);
	assert_false(p->crossed[PSI_CPU]);
}

/* The growth of the stall total over the trigger's window, from the samples the daemon reads
 * at registration, at each event and at each scan (psi_hist_crosses): the kernel's own test,
 * growth >= threshold, at the threshold and one microsecond either side; a trigger's events
 * just after registration with no such growth (this host: a new "some 1500000 2000000" fired
 * at 0.8 s and 2.8 s while the total grew 3.5 ms) do not cross. */
static void test_psi_growth(void **state)
{
	(void)state;
	const unsigned long long T = 14436187768ull;   /* a total as this host has it */
	static const struct {
		const char *name;
		unsigned n;
		struct psi_sample s[5];       /* oldest first; the last is now */
		unsigned long long growth;    /* want */
		bool crosses;
	} cases[] = {
		/* a sample exactly one window back: the growth since it */
		{ "at the threshold", 2, { { 0, T }, { 2000000, T + 1500000 } }, 1500000, true },
		{ "one us under", 2, { { 0, T }, { 2000000, T + 1499999 } }, 1499999, false },
		{ "one us over", 2, { { 0, T }, { 2000000, T + 1500001 } }, 1500001, true },
		/* the window's start between two samples: interpolated, rounded down */
		{ "interpolated, at", 2, { { 0, 0 }, { 4000000, 3000000 } }, 1500000, true },
		{ "interpolated, under", 2, { { 0, 0 }, { 4000000, 2999999 } }, 1499999, false },
		{ "interpolated, over", 2, { { 0, 0 }, { 4000000, 3000002 } }, 1500001, true },
		/* the samples that straddle the window's start are used, not the oldest */
		{ "straddle", 5, { { 0, T }, { 1000000, T + 900000 }, { 2500000, T + 1000000 },
		                   { 3500000, T + 1200000 }, { 5000000, T + 2600000 } }, 1500000, true },
		/* registration, then the kernel's first events: the total barely grew */
		{ "registration +0.8 s", 2, { { 0, T }, { 800000, T + 1200 } }, 1200, false },
		{ "registration +2.8 s", 3, { { 0, T }, { 800000, T + 1200 }, { 2800000, T + 3500 } },
		  2300, false },
		{ "io, no growth", 2, { { 0, T }, { 800000, T } }, 0, false },
		/* less than a window of history: the growth over what it holds, which the window
		 * holds too */
		{ "short history, past", 2, { { 0, T }, { 1600000, T + 1500000 } }, 1500000, true },
		{ "short history, under", 2, { { 0, T }, { 1600000, T + 1499999 } }, 1499999, false },
		/* one sample: nothing to compare */
		{ "one sample", 1, { { 0, T } }, 0, false },
		/* a total that went back (it never does): no growth */
		{ "backwards", 2, { { 0, T }, { 2000000, T - 5 } }, 0, false },
	};
	const struct cgw_psi_trigger t = { true, false, 1500000, 2000000 };
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		struct psi_hist h = { 0 };
		for (unsigned k = 0; k < cases[i].n; k++)
			psi_hist_add(&h, cases[i].s[k].t_us, cases[i].s[k].total_us);
		unsigned long long g = 99;
		bool x = psi_hist_crosses(&h, &t, &g);
		if (x != cases[i].crosses || g != cases[i].growth) {
			print_error("%s: crosses %d growth %llu, want %d %llu\n", cases[i].name, x, g,
			            cases[i].crosses, cases[i].growth);
			fail();
		}
	}
	/* a long history keeps its newest samples (and one at or before the window) */
	struct psi_hist h = { 0 };
	for (unsigned k = 0; k <= 10 * PSI_HIST_MAX; k++)
		psi_hist_add(&h, 100000ull * k, T + 80000ull * k);    /* 80 % stalled throughout */
	unsigned long long g;
	assert_true(psi_hist_crosses(&h, &t, &g));
	assert_int_equal(g, 1600000);
	assert_true(h.n <= PSI_HIST_MAX);
}

/* The daemon's decision (p->measured): the growth crosses, not the trigger's event alone */
static void test_pressure_decide_growth(void **state)
{
	(void)state;
	struct cgw_pressure *p = pressure_of(proc_cpu, proc_io);
	p->trig[PSI_CPU] = (struct cgw_psi_trigger){ true, false, 1500000, 2000000 };
	static const struct { unsigned long long growth; bool fired, crossed; } cases[] = {
		{ 1500000, true, true }, { 1499999, true, false }, { 1500001, true, true },
		{ 3500, true, false },        /* the event after registration: ignored */
		{ 1600000, false, true },     /* measured at the scan */
		{ 0, false, false },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		p->measured[PSI_CPU] = true;
		p->growth_us[PSI_CPU] = cases[i].growth;
		p->fired[PSI_CPU] = cases[i].fired;
		pressure_decide(p);
		if (p->crossed[PSI_CPU] != cases[i].crossed) {
			print_error("growth %llu fired %d: crossed %d\n", cases[i].growth,
			            cases[i].fired, p->crossed[PSI_CPU]);
			fail();
		}
	}
	/* avg10 52 % is past 50 % of the old threshold, but the daemon measured: not crossed by it */
	p = pressure_of(proc_cpu, proc_io);
	p->measured[PSI_CPU] = true;
	p->growth_us[PSI_CPU] = 499999;
	pressure_decide(p);
	assert_false(p->crossed[PSI_CPU]);
	p->growth_us[PSI_CPU] = 500000;
	pressure_decide(p);
	assert_true(p->crossed[PSI_CPU]);
	assert_string_equal(p->why[PSI_CPU], "cpu some stalled 500 ms of the last 1 s (the stall "
	                    "total's growth; threshold 500 ms); avg10 52 %");
}

static void test_pressure_cgroup_evidence(void **state)
{
	(void)state;
	struct cgw_psi_cgroup cg[2];
	char err[256], line[512];
	memset(cg, 0, sizeof(cg));
	snprintf(cg[0].path, sizeof(cg[0].path), "/system.slice/db.service");
	assert_int_equal(psi_parse(proc_cpu, &cg[0].res[PSI_CPU], err, sizeof(err)), 0);
	assert_int_equal(psi_parse(proc_io, &cg[0].res[PSI_IO], err, sizeof(err)), 0);
	assert_string_equal(pressure_cgroup_line(&cg[0], line, sizeof(line)),
	                    "/system.slice/db.service: cpu some avg10 52 %, io some avg10 24 % "
	                    "(full 13 %)");
	/* under the floor (5 %): no line */
	snprintf(cg[1].path, sizeof(cg[1].path), "/quiet\n.slice");
	assert_int_equal(psi_parse(old_cpu, &cg[1].res[PSI_CPU], err, sizeof(err)), 0);
	assert_string_equal(pressure_cgroup_line(&cg[1], line, sizeof(line)), "");
	/* a name with a newline is escaped: it cannot forge a line of evidence */
	assert_int_equal(psi_parse(cg_cpu, &cg[1].res[PSI_CPU], err, sizeof(err)), 0);
	assert_string_equal(pressure_cgroup_line(&cg[1], line, sizeof(line)),
	                    "/quiet\\n.slice: cpu some avg10 11 % (full 10 %)");

	/* pressure_link: the line goes on the finding whose task is in that cgroup, only */
	struct cgw_scan scan = { 0 };
	struct cgw_task t[2];
	memset(t, 0, sizeof(t));
	snprintf(t[0].cgroup, sizeof(t[0].cgroup), "/system.slice/db.service");
	snprintf(t[1].cgroup, sizeof(t[1].cgroup), "/other");
	scan.t = t;
	scan.n = 2;
	size_t i0 = 0, i1 = 1;
	struct cgw_finding f[2];
	memset(f, 0, sizeof(f));
	f[0].tasks = &i0;
	f[0].ntasks = 1;
	f[1].tasks = &i1;
	f[1].ntasks = 1;
	struct cgw_report r = { .scan = &scan, .f = f, .nf = 2 };
	struct cgw_pressure p = { .cg = cg, .ncg = 2 };
	pressure_link(&r, &p);
	assert_non_null(f[0].evidence.s);
	assert_string_equal(f[0].evidence.s, "/system.slice/db.service: cpu some avg10 52 %, io "
	                    "some avg10 24 % (full 13 %)\n");
	assert_null(f[1].evidence.s);
	sb_free(&f[0].evidence);
}

static void test_pressure_metrics_text(void **state)
{
	(void)state;
	struct cgw_pressure *p = pressure_of(proc_cpu, proc_io);
	p->trig[PSI_MEMORY].on = false;
	pressure_decide(p);
	struct strbuf b = { 0 };
	metrics_pressure(&b, p);
	assert_non_null(b.s);
	static const char *const want[] = {
		"# TYPE cgwatch_pressure_avg10_ratio gauge\n",
		"\ncgwatch_pressure_avg10_ratio{resource=\"cpu\",kind=\"some\"} 0.5191\n",
		"\ncgwatch_pressure_avg10_ratio{resource=\"io\",kind=\"full\"} 0.1274\n",
		"\ncgwatch_pressure_avg300_ratio{resource=\"cpu\",kind=\"some\"} 0.3280\n",
		"# TYPE cgwatch_pressure_stall_seconds_total counter\n",
		"\ncgwatch_pressure_stall_seconds_total{resource=\"cpu\",kind=\"some\"} 14436.187768\n",
		"\ncgwatch_pressure_stall_seconds_total{resource=\"io\",kind=\"full\"} 997.939339\n",
		"\ncgwatch_pressure_crossed{resource=\"cpu\"} 1\n",
		"\ncgwatch_pressure_crossed{resource=\"io\"} 0\n",
	};
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		if (!strstr(b.s, want[i])) {
			print_error("missing %s in:\n%s", want[i], b.s);
			fail();
		}
	/* memory's threshold is off: no crossed sample for it; each series once */
	assert_null(strstr(b.s, "cgwatch_pressure_crossed{resource=\"memory\"}"));
	const char *x = strstr(b.s, "cgwatch_pressure_avg10_ratio{resource=\"cpu\",kind=\"some\"}");
	assert_null(strstr(x + 1, "cgwatch_pressure_avg10_ratio{resource=\"cpu\",kind=\"some\"}"));
	/* every sample line is NAME{LABELS} NUMBER (Prometheus text format) */
	for (char *l = b.s; *l; l = strchr(l, '\n') + 1) {
		if (*l == '#')
			continue;
		double v;
		char name[128];
		assert_int_equal(sscanf(l, "%127[a-z0-9_]{%*[^}]} %lf", name, &v), 2);
		assert_true(v >= 0);
	}
	sb_free(&b);

	/* the text report: the system-wide line and the threshold crossed */
	struct cgw_report r = { .pressure = p };
	char *out = NULL;
	size_t len;
	FILE *f = open_memstream(&out, &len);
	report_text_pressure(&r, f);
	fclose(f);
	assert_string_equal(out, "Pressure (PSI, avg10): cpu some 52 %, memory some 0 %, io some "
	                    "24 % full 13 %\nPressure over its threshold: cpu some avg10 52 % "
	                    "(threshold 500 ms in 1 s, 50 %)\n");
	free(out);
	/* all under the floor, nothing crossed: nothing said */
	p = pressure_of(old_cpu, old_cpu);
	pressure_decide(p);
	f = open_memstream(&out, &len);
	report_text_pressure(&r, f);
	fclose(f);
	assert_string_equal(out, "");
	free(out);
}

/* the report's "pressure" object: the keys section 3 of the README promises */
static void test_pressure_json(void **state)
{
	(void)state;
	struct cgw_pressure *p = pressure_of(proc_cpu, old_cpu);
	p->fired[PSI_IO] = true;
	p->triggers = true;
	snprintf(p->error[PSI_MEMORY], sizeof(p->error[PSI_MEMORY]), "/proc/pressure/memory: x");
	p->sys[PSI_MEMORY].have = p->sys[PSI_MEMORY].some.have = p->sys[PSI_MEMORY].full.have = false;
	struct cgw_psi_cgroup cg = { .path = "/a\nb" };
	char err[256];
	assert_int_equal(psi_parse(cg_cpu, &cg.res[PSI_CPU], err, sizeof(err)), 0);
	p->cg = &cg;
	p->ncg = 1;
	pressure_decide(p);
	struct json_object *o = pressure_json(p);
	const char *txt = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN | JSON_C_TO_STRING_NOSLASHESCAPE);
	static const char *const want[] = {
		"\"system\":{\"cpu\":{\"some\":{\"avg10\":51.91,\"avg60\":58.94,\"avg300\":32.80,"
		"\"total_us\":14436187768},\"full\":{\"avg10\":0.00,",
		"\"threshold\":\"some 500ms 1s\",\"crossed\":true,\"why\":\"cpu some avg10 52 %",
		"\"memory\":{\"error\":\"/proc/pressure/memory: x\",\"threshold\":\"some 150ms 1s\","
		"\"crossed\":false,\"trigger_fired\":false}",
		/* an old kernel's file: no "full" key */
		"\"io\":{\"some\":{\"avg10\":0.12,\"avg60\":0.05,\"avg300\":0.01,\"total_us\":4531},"
		"\"threshold\":\"full 500ms 2s\",\"crossed\":true,",
		"\"trigger_fired\":true}},\"triggers\":true,\"cgroups\":[{\"path\":\"/a\\nb\",\"cpu\":"
		"{\"some\":{\"avg10\":10.86,",
	};
	for (size_t i = 0; i < ARRAY_SIZE(want); i++)
		if (!strstr(txt, want[i])) {
			print_error("missing %s in:\n%s\n", want[i], txt);
			fail();
		}
	json_object_put(o);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_psi_parse_real),
		cmocka_unit_test(test_psi_parse_malformed),
		cmocka_unit_test(test_psi_trigger_parse),
		cmocka_unit_test(test_psi_conf),
		cmocka_unit_test(test_pressure_decide),
		cmocka_unit_test(test_psi_growth),
		cmocka_unit_test(test_pressure_decide_growth),
		cmocka_unit_test(test_pressure_cgroup_evidence),
		cmocka_unit_test(test_pressure_metrics_text),
		cmocka_unit_test(test_pressure_json),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
