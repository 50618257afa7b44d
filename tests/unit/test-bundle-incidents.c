/* test-bundle-incidents.c: which report files a bundle takes of the daemon's open incidents
 * (bundle_incident_files, pure: from the parsed state file), and how it reads one
 * (bundle_read_regular: a regular file only, never through a symlink, within a cap). */
#include <fcntl.h>
#include <sys/stat.h>

#include "unit.h"

#define T0_ID "20261130T071622Z"
#define INC(id, sig, report) "{\"id\": \"" id "\", \"signature\": \"" sig "\", \"severity\": 2," \
	" \"opened_at\": 1796022982.0, \"last_event_at\": 1796022982.0, \"reports\": 2," \
	" \"report\": \"" report "\"}"

static void parse(struct cgw_incidents *in, const char *incidents)
{
	char txt[8192];
	snprintf(txt, sizeof(txt), "{\"schema\": \"cgwatch.state/1\", \"boot_id\": \"b\", "
	         "\"incidents\": [%s]}", incidents);
	size_t dropped = 0;
	struct errbuf e;
	assert_int_equal(incidents_parse(in, txt, strlen(txt), "incidents.json", "b", &dropped,
	                                 errbuf_open(&e)), 0);
	assert_string_equal(errbuf_text(&e), "");
	errbuf_close(&e);
}

/* Does out hold the note of path, its why holding what? */
static bool has_note(const struct bundle_incidents *b, const char *path, const char *what)
{
	for (size_t k = 0; k < b->nnotes; k++)
		if (!strcmp(b->notes[k].path, path) && strstr(b->notes[k].why, what))
			return true;
	return false;
}

/* Every open incident's newest report, .json and .txt, and its page, as incidents/<name>; the reports
 * directory matched with or without a trailing slash. */
static void test_files(void **state)
{
	(void)state;
	struct cgw_incidents in = { 0 };
	parse(&in, INC(T0_ID "-fuse-wait", "fuse-wait",
	               "/var/log/cgwatch/" T0_ID "-fuse-wait-02-escalated.json") ", "
	           INC(T0_ID "-fuse-wait-2", "fuse-wait",
	               "/var/log/cgwatch//" T0_ID "-fuse-wait-2-13-updated.json"));
	struct bundle_incidents b = { 0 };
	assert_int_equal(bundle_incident_files(&in, "/var/log/cgwatch/", &b), 0);
	assert_int_equal(b.nnotes, 0);
	assert_int_equal(b.n, 6);
	assert_string_equal(b.v[0].path, "/var/log/cgwatch/" T0_ID "-fuse-wait-02-escalated.json");
	assert_string_equal(b.v[0].name, "incidents/" T0_ID "-fuse-wait-02-escalated.json");
	assert_string_equal(b.v[1].path, "/var/log/cgwatch/" T0_ID "-fuse-wait-02-escalated.txt");
	assert_string_equal(b.v[1].name, "incidents/" T0_ID "-fuse-wait-02-escalated.txt");
	/* and its page, <id>.html beside them */
	assert_string_equal(b.v[2].path, "/var/log/cgwatch/" T0_ID "-fuse-wait.html");
	assert_string_equal(b.v[2].name, "incidents/" T0_ID "-fuse-wait.html");
	assert_string_equal(b.v[3].path, "/var/log/cgwatch//" T0_ID "-fuse-wait-2-13-updated.json");
	assert_string_equal(b.v[4].name, "incidents/" T0_ID "-fuse-wait-2-13-updated.txt");
	assert_string_equal(b.v[5].name, "incidents/" T0_ID "-fuse-wait-2.html");
	bundle_incidents_free(&b);
	assert_int_equal(b.n, 0);
	assert_null(b.v);
	incidents_free(&in);
}

/* A resolved incident is not open: nothing of it. Reports a daemon did not write there, or
 * that are not the incident's own, are notes, never files to read. */
static void test_refused(void **state)
{
	(void)state;
	struct cgw_incidents in = { 0 };
	parse(&in,
	      INC(T0_ID "-a", "a", "/var/log/cgwatch/" T0_ID "-a-01-opened.json") ", "
	      INC(T0_ID "-b", "b", "") ", "
	      INC(T0_ID "-c", "c", "/etc/" T0_ID "-c-01-opened.json") ", "
	      INC(T0_ID "-d", "d", "/var/log/cgwatch/../../../etc/shadow") ", "
	      INC(T0_ID "-e", "e", "/var/log/cgwatch/" T0_ID "-a-01-opened.json") ", "
	      INC(T0_ID "-f", "f", "/var/log/cgwatch/" T0_ID "-f-01-opened.txt") ", "
	      INC(T0_ID "-g", "g", "/var/log/cgwatch/" T0_ID "-g-1-opened.json") ", "
	      INC(T0_ID "-h", "h", "/var/log/cgwatch/" T0_ID "-h-01-closed.json") ", "
	      INC(T0_ID "-i", "i", "/var/log/cgwatch/sub/" T0_ID "-i-01-opened.json") ", "
	      INC(T0_ID "-j", "j", "relative/" T0_ID "-j-01-opened.json") ", "
	      INC(T0_ID "-k", "k", "/var/log/cgwatch/" T0_ID "-k-01-opened.json"));
	in.v[0].resolved_at = 1796023000.0;          /* resolved: not open */
	struct bundle_incidents b = { 0 };
	assert_int_equal(bundle_incident_files(&in, "/var/log/cgwatch", &b), 0);
	assert_int_equal(b.n, 3);
	assert_string_equal(b.v[0].name, "incidents/" T0_ID "-k-01-opened.json");
	assert_string_equal(b.v[1].name, "incidents/" T0_ID "-k-01-opened.txt");
	assert_string_equal(b.v[2].name, "incidents/" T0_ID "-k.html");
	assert_false(has_note(&b, "incidents/" T0_ID "-a", ""));
	assert_true(has_note(&b, "incidents/" T0_ID "-b", "no report"));
	const char *others[] = { "c", "d", "e", "f", "g", "h", "i", "j" };
	for (size_t k = 0; k < ARRAY_SIZE(others); k++) {
		char p[64];
		snprintf(p, sizeof(p), "incidents/" T0_ID "-%s", others[k]);
		if (!has_note(&b, p, "not read"))
			fail_msg("incident %s: no note", others[k]);
	}
	assert_int_equal(b.nnotes, 9);
	bundle_incidents_free(&b);
	incidents_free(&in);
}

/* No incident: nothing, no note. */
static void test_none(void **state)
{
	(void)state;
	struct cgw_incidents in = { 0 };
	struct bundle_incidents b = { 0 };
	assert_int_equal(bundle_incident_files(&in, "/var/log/cgwatch", &b), 0);
	assert_int_equal(b.n + b.nnotes, 0);
	bundle_incidents_free(&b);
}

/* A regular file is read; a symlink (even to a regular file), a FIFO (never waited on) and a
 * directory are not; a file over the cap says its size. */
static void test_read_regular(void **state)
{
	(void)state;
	char dir[64], p[128], q[128], why[512];
	tmpdir_make(dir, sizeof(dir));
	tmpdir_put(dir, "r.json", "{\"a\": 1}\n");
	snprintf(p, sizeof(p), "%s/r.json", dir);
	char *data = NULL;
	size_t len = 0;
	uint64_t size = 0;
	assert_int_equal(bundle_read_regular(p, 1024, 2000, &data, &len, &size, why, sizeof(why)), 0);
	assert_int_equal(len, 9);
	assert_string_equal(data, "{\"a\": 1}\n");
	free(data);
	data = NULL;
	assert_int_equal(bundle_read_regular(p, 4, 2000, &data, &len, &size, why, sizeof(why)),
	                 -EFBIG);
	assert_int_equal(size, 9);
	assert_null(data);
	snprintf(q, sizeof(q), "%s/link.json", dir);
	assert_int_equal(symlink(p, q), 0);
	assert_int_equal(bundle_read_regular(q, 1024, 2000, &data, &len, &size, why, sizeof(why)),
	                 -ELOOP);
	assert_non_null(strstr(why, q));
	assert_null(data);
	snprintf(q, sizeof(q), "%s/fifo.json", dir);
	assert_int_equal(mkfifo(q, 0600), 0);
	assert_int_equal(bundle_read_regular(q, 1024, 2000, &data, &len, &size, why, sizeof(why)),
	                 -ENODEV);
	assert_null(data);
	assert_int_equal(bundle_read_regular(dir, 1024, 2000, &data, &len, &size, why, sizeof(why)),
	                 -ENODEV);
	snprintf(q, sizeof(q), "%s/none.json", dir);
	assert_int_equal(bundle_read_regular(q, 1024, 2000, &data, &len, &size, why, sizeof(why)),
	                 -ENOENT);
	assert_null(data);
}

/* bundle_incidents_load: no state file is nothing; a malformed one, or one the daemon would
 * not have written, is one note; a good one lists its incidents' reports. */
static void test_load(void **state)
{
	(void)state;
	char dir[64], sdir[128], rdir[128];
	tmpdir_make(dir, sizeof(dir));
	snprintf(sdir, sizeof(sdir), "%s/state", dir);
	snprintf(rdir, sizeof(rdir), "%s/reports", dir);
	struct cgw_conf c;
	memset(&c, 0, sizeof(c));
	c.state_dir = sdir;
	c.report_dir = rdir;
	struct bundle_incidents b = { 0 };
	assert_int_equal(bundle_incidents_load(&c, 2000, &b), 0);   /* no directory even */
	assert_int_equal(b.n + b.nnotes, 0);
	assert_int_equal(mkdir(sdir, 0700), 0);
	assert_int_equal(bundle_incidents_load(&c, 2000, &b), 0);
	assert_int_equal(b.n + b.nnotes, 0);
	tmpdir_put(sdir, "incidents.json", "{not json");
	assert_int_equal(bundle_incidents_load(&c, 2000, &b), 0);
	assert_int_equal(b.n, 0);
	assert_int_equal(b.nnotes, 1);
	assert_string_equal(b.notes[0].path, "incidents");
	assert_non_null(strstr(b.notes[0].why, "not a cgwatch state file"));
	bundle_incidents_free(&b);
	char boot[64], txt[4096];
	assert_true(read_small_file("/proc/sys/kernel/random/boot_id", boot, sizeof(boot)) > 0);
	boot[strcspn(boot, "\n")] = '\0';
	snprintf(txt, sizeof(txt), "{\"schema\": \"cgwatch.state/1\", \"boot_id\": \"%s\", "
	         "\"incidents\": [" INC(T0_ID "-x", "x", "%s/" T0_ID "-x-03-updated.json") ", "
	         "{\"id\": \"../x\"}]}", boot, rdir);
	tmpdir_put(sdir, "incidents.json", txt);
	assert_int_equal(bundle_incidents_load(&c, 2000, &b), 0);
	assert_int_equal(b.n, 3);
	assert_string_equal(b.v[0].name, "incidents/" T0_ID "-x-03-updated.json");
	assert_int_equal(b.nnotes, 1);                /* the incident dropped */
	assert_non_null(strstr(b.notes[0].why, "incident 1"));
	bundle_incidents_free(&b);
	/* another boot's incidents are not open */
	snprintf(txt, sizeof(txt), "{\"schema\": \"cgwatch.state/1\", \"boot_id\": \"other\", "
	         "\"incidents\": [" INC(T0_ID "-x", "x", "%s/" T0_ID "-x-03-updated.json") "]}",
	         rdir);
	tmpdir_put(sdir, "incidents.json", txt);
	assert_int_equal(bundle_incidents_load(&c, 2000, &b), 0);
	assert_int_equal(b.n + b.nnotes, 0);
	/* a state file that is a symlink is not followed */
	char p[256], q[256];
	snprintf(p, sizeof(p), "%s/incidents.json", sdir);
	snprintf(q, sizeof(q), "%s/elsewhere.json", dir);
	assert_int_equal(rename(p, q), 0);
	assert_int_equal(symlink(q, p), 0);
	assert_int_equal(bundle_incidents_load(&c, 2000, &b), 0);
	assert_int_equal(b.n, 0);
	assert_int_equal(b.nnotes, 1);
	assert_non_null(strstr(b.notes[0].why, "symlink"));
	bundle_incidents_free(&b);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_refused),
		cmocka_unit_test(test_none),
		cmocka_unit_test(test_read_regular),
		cmocka_unit_test(test_load),
	};
	return tmpdir_cleanup_all(cmocka_run_group_tests(tests, NULL, NULL));
}
