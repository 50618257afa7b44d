/* test-conf.c: conf_defaults and conf_read_file on temporary files. */
#include "unit.h"

#include <sys/stat.h>

struct conf_run {
	char dir[64], path[128];
	struct cgw_conf c;
	struct errbuf e;
	int r;
};

/* Write text to DIR/cgwatch.conf and load it over the defaults. */
static void load(struct conf_run *x, const char *text)
{
	tmpdir_make(x->dir, sizeof(x->dir));
	snprintf(x->path, sizeof(x->path), "%s/cgwatch.conf", x->dir);
	tmpdir_put(x->dir, "cgwatch.conf", text);
	conf_defaults(&x->c);
	x->r = conf_read_file(&x->c, x->path, errbuf_open(&x->e));
}

static void done(struct conf_run *x)
{
	errbuf_close(&x->e);
	conf_free(&x->c);
	tmpdir_remove(x->dir);
}

/* "PATH:LINE: msg" is in the output */
static void expect_msg(struct conf_run *x, int line, const char *msg)
{
	char want[512];
	snprintf(want, sizeof(want), "%s:%d: %s", x->path, line, msg);
	assert_err_has(&x->e, want);
}

static void test_conf_defaults(void **state)
{
	(void)state;
	struct cgw_conf c;
	memset(&c, 0x5a, sizeof(c));
	conf_defaults(&c);
	/* the documented defaults (cgwatch.conf(5)): scan every 5 s; warning at 20 s, critical at 60 s; starved after 10 s;
	 * a risky read gets 2 s */
	assert_near(c.scan_interval_s, 5, 0);
	assert_near(c.read_timeout_s, 2, 0);
	assert_near(c.check_timeout_s, 30, 0);
	assert_near(c.blocked_warning_s, 20, 0);
	assert_near(c.blocked_critical_s, 60, 0);
	assert_near(c.starved_s, 10, 0);
	/* the library is built in: no directory to add to it */
	assert_string_equal(c.signatures_dir, "");
#ifdef CGW_LOCAL_SIGDIR
	assert_string_equal(c.local_signatures_dir, CGW_LOCAL_SIGDIR);
#endif
	assert_non_null(c.signatures_dir);
	assert_non_null(c.local_signatures_dir);
	conf_free(&c);
	assert_null(c.signatures_dir);
	assert_null(c.local_signatures_dir);
}

static void test_conf_good_values(void **state)
{
	(void)state;
	struct conf_run x;
	load(&x,
	     "# site config\n"
	     "[scan]\n"
	     "interval = 2.5\n"
	     "read_timeout = 0.5   ; seconds\n"
	     "check_timeout = 120\n"
	     "\n"
	     "[thresholds]\n"
	     "blocked_warning = 30\n"
	     "blocked_critical = 90\n"
	     "starved = 1.5\n"
	     "\n"
	     "[signatures]\n"
	     "shipped = /opt/cgwatch/signatures.d\n"
	     "local = /srv/cgwatch/local signatures\n");
	if (x.r)
		print_error("%s", errbuf_text(&x.e));
	assert_int_equal(x.r, 0);
	assert_string_equal(errbuf_text(&x.e), "");
	assert_near(x.c.scan_interval_s, 2.5, 0);
	assert_near(x.c.read_timeout_s, 0.5, 0);
	assert_near(x.c.check_timeout_s, 120, 0);
	assert_near(x.c.blocked_warning_s, 30, 0);
	assert_near(x.c.blocked_critical_s, 90, 0);
	assert_near(x.c.starved_s, 1.5, 0);
	assert_string_equal(x.c.signatures_dir, "/opt/cgwatch/signatures.d");
	assert_string_equal(x.c.local_signatures_dir, "/srv/cgwatch/local signatures");
	done(&x);
}

/* Keys not in the file keep their defaults; a key given twice: the last wins. */
static void test_conf_partial_and_repeated(void **state)
{
	(void)state;
	struct conf_run x;
	load(&x, "[thresholds]\nstarved = 3\nstarved = 4\n[scan]\n");
	assert_int_equal(x.r, 0);
	assert_near(x.c.starved_s, 4, 0);
	assert_near(x.c.scan_interval_s, 5, 0);
	assert_near(x.c.blocked_warning_s, 20, 0);
	assert_near(x.c.blocked_critical_s, 60, 0);
	done(&x);
	load(&x, "");
	assert_int_equal(x.r, 0);
	assert_string_equal(errbuf_text(&x.e), "");
	assert_near(x.c.read_timeout_s, 2, 0);
	done(&x);
}

/* The range of every key: both ends accepted, just outside refused with file:line. */
static void test_conf_ranges(void **state)
{
	(void)state;
	static const struct {
		const char *section, *key, *value;
		bool ok;
		const char *msg;
	} cases[] = {
		{ "scan", "interval", "0.1", true, NULL },
		{ "scan", "interval", "3600", true, NULL },
		{ "scan", "interval", "0", false, "interval must be 0.1..3600 seconds, ignoring: 0" },
		{ "scan", "interval", "0.05", false, "interval must be 0.1..3600 seconds, ignoring: 0.05" },
		{ "scan", "interval", "3601", false, "interval must be 0.1..3600 seconds, ignoring: 3601" },
		{ "scan", "read_timeout", "0.05", true, NULL },
		{ "scan", "read_timeout", "60", true, NULL },
		{ "scan", "read_timeout", "61", false, "read_timeout must be 0.05..60 seconds, ignoring: 61" },
		{ "scan", "check_timeout", "1", true, NULL },
		{ "scan", "check_timeout", "0.5", false, "check_timeout must be 1..3600 seconds" },
		{ "thresholds", "starved", "86400", true, NULL },
		{ "thresholds", "starved", "86401", false, "starved must be 0..86400 seconds" },
		{ "thresholds", "starved", "-1", false, "starved must be 0..86400 seconds, ignoring: -1" },
		{ "thresholds", "blocked_warning", "0", true, NULL },
		{ "thresholds", "blocked_critical", "86400", true, NULL },
		{ "thresholds", "blocked_critical", "1e6", false, "blocked_critical must be 0..86400" },
		{ "bundle", "max_members", "1", true, NULL },
		{ "bundle", "max_members", "200000", true, NULL },
		{ "bundle", "max_members", "0", false,
		  "max_members must be a whole number 1..200000, ignoring: 0" },
		{ "bundle", "max_members", "200001", false, "max_members must be a whole number" },
		{ "bundle", "max_members", "1.5", false, "max_members must be a whole number" },
		/* not a number */
		{ "scan", "interval", "5s", false, "interval must be 0.1..3600 seconds, ignoring: 5s" },
		{ "scan", "interval", "five", false, "interval must be 0.1..3600 seconds, ignoring: five" },
		{ "scan", "interval", "nan", false, "interval must be 0.1..3600 seconds, ignoring: nan" },
		{ "scan", "interval", "", false, "interval must be" },
		/* paths */
		{ "signatures", "shipped", "relative/dir", false,
		  "shipped must be an absolute path (or empty: off), ignoring: relative/dir" },
		{ "signatures", "local", "signatures.d", false, "local must be an absolute path" },
		/* empty: no directory, the built-in library only */
		{ "signatures", "shipped", "", true, NULL },
		{ "signatures", "local", "", true, NULL },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char text[256];
		struct conf_run x;
		print_message("# [%s] %s = %s\n", cases[i].section, cases[i].key, cases[i].value);
		snprintf(text, sizeof(text), "# comment\n[%s]\n%s = %s\n", cases[i].section,
		         cases[i].key, cases[i].value);
		load(&x, text);
		if (cases[i].ok) {
			if (x.r)
				print_error("%s", errbuf_text(&x.e));
			assert_int_equal(x.r, 0);
			assert_string_equal(errbuf_text(&x.e), "");
		} else {
			assert_int_equal(x.r, 1);
			assert_int_equal(errbuf_lines(&x.e), 1);
			expect_msg(&x, 3, cases[i].msg);
			/* the bad value is ignored: the default stays */
			assert_near(x.c.scan_interval_s, 5, 0);
			assert_near(x.c.read_timeout_s, 2, 0);
			assert_near(x.c.check_timeout_s, 30, 0);
			assert_near(x.c.starved_s, 10, 0);
			assert_near(x.c.blocked_critical_s, 60, 0);
			assert_string_equal(x.c.local_signatures_dir, CGW_LOCAL_SIGDIR);
		}
		done(&x);
	}
}

/* Unknown keys and sections: one message each, naming the line; parsing goes on. */
static void test_conf_unknown_keys(void **state)
{
	(void)state;
	struct conf_run x;
	load(&x,
	     "[scan]\n"                              /* 1 */
	     "interval = 7\n"                        /* 2 */
	     "hung_threshold = 30\n"                 /* 3 */
	     "[thresholds]\n"                        /* 4 */
	     "interval = 8\n"                        /* 5: right key, wrong section */
	     "[colours]\n"                           /* 6 */
	     "red = 1\n"                             /* 7 */
	     "[thresholds]\n"                        /* 8 */
	     "starved = 9\n");                       /* 9 */
	assert_int_equal(x.r, 3);
	assert_int_equal(errbuf_lines(&x.e), 3);
	expect_msg(&x, 3, "unknown key \"hung_threshold\" in section [scan], ignoring");
	expect_msg(&x, 5, "unknown key \"interval\" in section [thresholds], ignoring");
	expect_msg(&x, 7, "unknown key \"red\" in section [colours], ignoring");
	assert_near(x.c.scan_interval_s, 7, 0);
	assert_near(x.c.starved_s, 9, 0);
	done(&x);
	/* a key before any section */
	load(&x, "interval = 3\n");
	assert_int_equal(x.r, 1);
	expect_msg(&x, 1, "unknown key \"interval\"");
	assert_near(x.c.scan_interval_s, 5, 0);
	done(&x);
}

/* Several errors in one file: each on its own line, in file order, all counted. */
static void test_conf_many_errors(void **state)
{
	(void)state;
	struct conf_run x;
	load(&x,
	     "[scan]\n"                              /* 1 */
	     "interval = 0\n"                        /* 2 */
	     "read_timeout 2\n"                      /* 3: no '=' */
	     "check_timeout = 10\n"                  /* 4: fine */
	     "[thresholds\n"                         /* 5: malformed */
	     "[thresholds]\n"                        /* 6 */
	     "starved = forever\n"                   /* 7 */
	     "[signatures]\n"                        /* 8 */
	     "shipped = signatures.d\n");            /* 9 */
	const char *t = errbuf_text(&x.e);
	int want_lines[] = { 2, 3, 5, 7, 9 };
	assert_int_equal(x.r, 5);
	assert_int_equal(errbuf_lines(&x.e), 5);
	const char *p = t;
	for (size_t i = 0; i < ARRAY_SIZE(want_lines); i++) {
		char pre[160];
		snprintf(pre, sizeof(pre), "%s:%d: ", x.path, want_lines[i]);
		assert_int_equal(strncmp(p, pre, strlen(pre)), 0);
		p = strchr(p, '\n') + 1;
	}
	expect_msg(&x, 3, "expected \"key = value\"");
	expect_msg(&x, 5, "malformed section header");
	assert_near(x.c.check_timeout_s, 10, 0);
	done(&x);
}

/* blocked_critical must not be below blocked_warning; the message names a line of the file. */
static void test_conf_critical_below_warning(void **state)
{
	(void)state;
	struct conf_run x;
	load(&x, "[thresholds]\nblocked_warning = 30\nblocked_critical = 10\n");
	assert_int_equal(x.r, 1);
	expect_msg(&x, 3, "blocked_critical (10 s) is below blocked_warning (30 s)");
	done(&x);
	load(&x, "[thresholds]\nblocked_critical = 30\nblocked_warning = 30\n");
	assert_int_equal(x.r, 0);                   /* equal is fine */
	done(&x);
}

/* Only the warning set, above the default critical (60 s): the conflict comes from line 3,
 * and the message must point at a line of the file, not at line 0. */
static void test_conf_critical_conflict_names_a_line(void **state)
{
	(void)state;
	struct conf_run x;
	load(&x, "[thresholds]\n# raise it\nblocked_warning = 90\n");
	assert_int_equal(x.r, 1);
	assert_err_has(&x.e, "is below blocked_warning (90 s)");
	char bad[160];
	snprintf(bad, sizeof(bad), "%s:0:", x.path);
	if (strstr(errbuf_text(&x.e), bad))
		print_error("%s", errbuf_text(&x.e));
	assert_null(strstr(errbuf_text(&x.e), bad));
	expect_msg(&x, 3, "blocked_critical (60 s) is below blocked_warning (90 s)");
	done(&x);
}

static void test_conf_long_line(void **state)
{
	(void)state;
	char text[600];
	snprintf(text, sizeof(text), "[signatures]\nshipped = /%0300d\n[scan]\ninterval = 4\n", 0);
	struct conf_run x;
	load(&x, text);
	assert_true(x.r >= 1);
	expect_msg(&x, 2, "line longer than");
	assert_near(x.c.scan_interval_s, 4, 0);     /* the next lines still parse */
	assert_string_equal(x.c.signatures_dir, "");
	done(&x);
}

static void test_conf_missing_file(void **state)
{
	(void)state;
	struct cgw_conf c;
	struct errbuf e;
	conf_defaults(&c);
	assert_int_equal(conf_read_file(&c, "/nonexistent/cgwatch.conf", errbuf_open(&e)), -ENOENT);
	assert_near(c.scan_interval_s, 5, 0);
	assert_string_equal(errbuf_text(&e), "");
	errbuf_close(&e);
	conf_free(&c);
}

/* A directory given as the config file is no configuration: fopen() takes it, read fails
 * with EISDIR. It must not pass as an empty, valid file ("configuration OK"). */
static void test_conf_directory_is_an_error(void **state)
{
	(void)state;
	struct cgw_conf c;
	struct errbuf e;
	conf_defaults(&c);
	int r = conf_read_file(&c, "/tmp", errbuf_open(&e));
	if (r == 0)
		print_error("conf_read_file(\"/tmp\") returned 0 with no message\n");
	assert_int_equal(r, -EISDIR);
	errbuf_close(&e);
	conf_free(&c);
}

/* A file saved with a UTF-8 byte order mark (Windows editors) is the same configuration;
 * a BOM anywhere but at the start is not text of the file. */
static void test_conf_bom(void **state)
{
	(void)state;
	struct conf_run x;
	load(&x, "\xef\xbb\xbf# saved with a BOM\n[scan]\ninterval = 3\n");
	if (x.r)
		print_error("%s", errbuf_text(&x.e));
	assert_int_equal(x.r, 0);
	assert_near(x.c.scan_interval_s, 3, 0);
	done(&x);
	load(&x, "\xef\xbb\xbf[scan]\ninterval = 4\n");
	assert_int_equal(x.r, 0);
	assert_near(x.c.scan_interval_s, 4, 0);
	done(&x);
	load(&x, "[scan]\n\xef\xbb\xbfinterval = 4\n");
	assert_int_equal(x.r, 1);
	done(&x);
}

/* A control character anywhere in a line (an escape sequence in a value, a key, a section;
 * DEL; a C1 control; NUL in tests/conf/8.in) is an error naming the byte as \xNN, and no message holds the raw
 * byte; the line is not used. A tab is text. */
static void test_conf_control_characters(void **state)
{
	(void)state;
	struct conf_run x;
	load(&x, "[scan]\ninterval = 5\033[31m\n[run]\nstate_dir = /x\033]0;t\a\n"
	     "metrics_file = /m\xc2\x9b.prom\n[ev\033il]\nk\177 = v\nnice =\t5\n");
	assert_int_equal(x.r, 5);
	expect_msg(&x, 2, "control character \\x1b: a line holds text and tabs only");
	expect_msg(&x, 4, "control character \\x1b");
	expect_msg(&x, 5, "control character \\xc2\\x9b");
	expect_msg(&x, 6, "control character \\x1b");
	expect_msg(&x, 7, "control character \\x7f");
	assert_near(x.c.scan_interval_s, 5, 0);         /* the default: the line was not used */
	assert_string_equal(x.c.state_dir, CGW_STATEDIR);
	assert_near(x.c.nice, 5, 0);                    /* "nice =<tab>5" in [run] */
	assert_null(memchr(x.e.s, '\033', x.e.n));
	assert_null(memchr(x.e.s, '\177', x.e.n));
	done(&x);
	load(&x, "[run]\nstate_dir = /var/lib/caf\xe9\n");   /* Latin-1, not UTF-8 */
	assert_int_equal(x.r, 1);
	expect_msg(&x, 2, "byte \\xe9 is not UTF-8 text");
	done(&x);
}

/* A FIFO given as the config file is "not a regular file" at once: never a read that waits
 * for a writer (alarm ends the test if it does). So is a character device. */
static void test_conf_fifo_and_device(void **state)
{
	(void)state;
	char dir[64], path[128];
	struct cgw_conf c;
	tmpdir_make(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/fifo.conf", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	conf_defaults(&c);
	struct errbuf e;
	alarm(10);
	int r = conf_read_file(&c, path, errbuf_open(&e));
	alarm(0);
	assert_int_equal(r, -CGW_ENOTREG);
	assert_string_equal(cgw_strerror(-r), "not a regular file");
	assert_int_equal(conf_read_file(&c, "/dev/null", e.f), -CGW_ENOTREG);
	errbuf_close(&e);
	conf_free(&c);
	unlink(path);
	tmpdir_remove(dir);
}

/* The shipped cgwatch.conf (every key commented out) parses clean to the defaults. */
static void test_conf_shipped(void **state)
{
	(void)state;
	char path[4096];
	if (!unit_srcpath("cgwatch.conf", path, sizeof(path))) {
		print_message("# skip: no cgwatch.conf in the source tree (set CGW_SRCDIR)\n");
		skip();
	}
	struct cgw_conf c, d;
	struct errbuf e;
	conf_defaults(&c);
	conf_defaults(&d);
	int r = conf_read_file(&c, path, errbuf_open(&e));
	if (r)
		print_error("%s", errbuf_text(&e));
	assert_int_equal(r, 0);
	assert_near(c.scan_interval_s, d.scan_interval_s, 0);
	assert_near(c.blocked_critical_s, d.blocked_critical_s, 0);
	assert_string_equal(c.signatures_dir, d.signatures_dir);
	errbuf_close(&e);
	conf_free(&c);
	conf_free(&d);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_conf_defaults),
		cmocka_unit_test(test_conf_good_values),
		cmocka_unit_test(test_conf_partial_and_repeated),
		cmocka_unit_test(test_conf_ranges),
		cmocka_unit_test(test_conf_unknown_keys),
		cmocka_unit_test(test_conf_many_errors),
		cmocka_unit_test(test_conf_critical_below_warning),
		cmocka_unit_test(test_conf_critical_conflict_names_a_line),
		cmocka_unit_test(test_conf_long_line),
		cmocka_unit_test(test_conf_missing_file),
		cmocka_unit_test(test_conf_directory_is_an_error),
		cmocka_unit_test(test_conf_bom),
		cmocka_unit_test(test_conf_control_characters),
		cmocka_unit_test(test_conf_fifo_and_device),
		cmocka_unit_test(test_conf_shipped),
	};
	return tmpdir_cleanup_all(cmocka_run_group_tests(tests, NULL, NULL));
}
