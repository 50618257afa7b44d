/* test-writer.c: the daemon's writer threads (sink-writer.c). Files queued are written; a failure
 * is said once per streak, with the reason, counted, cleared with its count by a success, and
 * said again after it; the last of many
 * queued writes is what stays; a report pair goes through report_files_write; a bundle job that
 * waits for the reports lane finds the reports queued before it written. */
#include <fcntl.h>
#include <sys/stat.h>

#include "unit.h"

#define T0 1796022982.0              /* 2026-11-30T07:16:22Z */
#define T0_ID "20261130T071622Z"

static struct cgw_sig sig_fuse;
static struct cgw_writer *writer;     /* freed by writer_stop in teardown */

static int setup(void **state)
{
	(void)state;
	umask(022);
	sig_fuse = unit_sig("fuse-wait", "Waiting for a FUSE daemon", "stat() on FUSE",
	                    SEV_WARNING);
	writer = writer_new(5000);
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	return writer_stop(writer, 2000) ? 0 : -1;   /* every lane thread gone, the writer freed */
}

/* One state write through the writer, waited for and polled. */
static void state_write(const char *path, const char *text)
{
	assert_int_equal(writer_file(writer, WR_STATE, path, xstrdup(text), strlen(text), 0600), 0);
	assert_true(writer_wait(writer, 5000));
	writer_poll(writer, 5000);
}

/* A refused directory: "cannot save open incidents to ..." with the reason, once for three
 * failed saves; a success ends the streak ("...: again 2 times; now cleared"), and the next
 * failure is said again. */
static void test_failure_once_per_streak(void **state)
{
	(void)state;
	char dir[64], path[128], log[4096], want[512], buf[64];
	tmpdir_make(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/incidents.json", dir);
	assert_int_equal(chmod(dir, 0777), 0);
	struct capture c;
	capture_begin(&c);
	for (int k = 0; k < 3; k++)
		state_write(path, "one");
	bool ok = writer_ok(writer, WR_STATE);
	int lines = capture_end(&c, log, sizeof(log));
	snprintf(want, sizeof(want), "cgwatch: cannot save open incidents to %s: %s is writable by "
	         "group and others (mode 0777): refusing to write there\n", path, dir);
	assert_string_equal(log, want);
	assert_int_equal(lines, 1);
	assert_false(ok);
	assert_int_equal(tmpdir_count(dir), 0);

	/* a success clears it, said with the count of the failures not said */
	assert_int_equal(chmod(dir, 0700), 0);
	capture_begin(&c);
	state_write(path, "two");
	ok = writer_ok(writer, WR_STATE);
	lines = capture_end(&c, log, sizeof(log));
	char cleared[600];
	snprintf(cleared, sizeof(cleared), "%.*s: again 2 times; now cleared\n",
	         (int)strlen(want) - 1, want);
	assert_string_equal(log, cleared);
	assert_int_equal(lines, 1);
	assert_true(ok);
	assert_int_equal(tmpdir_get(dir, "incidents.json", buf, sizeof(buf)), 3);
	assert_string_equal(buf, "two");

	assert_int_equal(chmod(dir, 0777), 0);
	capture_begin(&c);
	state_write(path, "three");
	state_write(path, "four");
	lines = capture_end(&c, log, sizeof(log));
	assert_int_equal(lines, 1);
	assert_string_equal(log, want);
	assert_int_equal(chmod(dir, 0700), 0);
	tmpdir_remove(dir);
}

/* Many metrics writes queued at once: the newest is the file's content in the end. */
static void test_newest_wins(void **state)
{
	(void)state;
	char dir[64], path[128], buf[64], txt[32];
	tmpdir_make(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/cgwatch.prom", dir);
	for (int k = 0; k < 200; k++) {
		int n = snprintf(txt, sizeof(txt), "scan %d\n", k);
		assert_int_equal(writer_file(writer, WR_METRICS, path, xstrdup(txt), (size_t)n, 0644), 0);
	}
	assert_true(writer_wait(writer, 5000));
	assert_true(tmpdir_get(dir, "cgwatch.prom", buf, sizeof(buf)) > 0);
	assert_string_equal(buf, "scan 199\n");
	assert_int_equal(tmpdir_count(dir), 1);
	tmpdir_remove(dir);
}

/* A report pair through the writer: both files; into a missing parent: the report message
 * naming the incident and the directory. */
static void test_reports(void **state)
{
	(void)state;
	char dir[64], rdir[128], log[4096], want[512];
	tmpdir_make(dir, sizeof(dir));
	snprintf(rdir, sizeof(rdir), "%s/reports", dir);
	struct cgw_conf conf = unit_report_conf(rdir);
	struct cgw_incidents in = { 0 };
	struct unit_scan u;
	struct inc_change *ch;
	unit_one_incident(&u, &sig_fuse, T0, &in, &ch);
	struct report_files f;
	assert_int_equal(report_prepare(&conf, &u.rep, &in.v[0], ch[0].state, ch[0].finding, &f), 0);
	assert_string_equal(f.json_name, T0_ID "-fuse-wait-01-opened.json");
	assert_int_equal(writer_report(writer, &f, in.v[0].id), 0);
	assert_null(f.text);                  /* taken over */
	assert_true(writer_wait(writer, 5000));
	assert_true(tmpdir_has(rdir, T0_ID "-fuse-wait-01-opened.txt"));
	assert_true(tmpdir_has(rdir, T0_ID "-fuse-wait-01-opened.json"));
	assert_true(tmpdir_has(rdir, T0_ID "-fuse-wait.html"));
	assert_int_equal(tmpdir_count(rdir), 3);

	snprintf(rdir, sizeof(rdir), "%s/missing/reports", dir);
	assert_int_equal(report_prepare(&conf, &u.rep, &in.v[0], ch[0].state, ch[0].finding, &f), 0);
	struct capture c;
	capture_begin(&c);
	assert_int_equal(writer_report(writer, &f, in.v[0].id), 0);
	assert_true(writer_wait(writer, 5000));
	writer_poll(writer, 5000);
	bool ok = writer_ok(writer, WR_REPORTS);
	int lines = capture_end(&c, log, sizeof(log));
	snprintf(want, sizeof(want), "cgwatch: cannot write the report of incident " T0_ID
	         "-fuse-wait under %s: %s; the journal still gets it\n", rdir, strerror(ENOENT));
	assert_string_equal(log, want);
	assert_int_equal(lines, 1);
	assert_false(ok);
	free(ch);
	us_free(&u);
	incidents_free(&in);
	tmpdir_remove(dir);
}

/* No memory to queue a job: -ENOMEM, the data freed (valgrind), the file not written, and the
 * next poll says how many were dropped, once; the next job goes through. */
static void test_job_out_of_memory(void **state)
{
	(void)state;
	char dir[64], path[128], log[4096], buf[64];
	tmpdir_make(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/incidents.json", dir);
	struct capture c;
	capture_begin(&c);
	for (long k = 0; k < 2; k++) {        /* the job, then its path */
		cgw_fail_alloc_after = k;
		int r = writer_file(writer, WR_STATE, path, strdup("lost"), 4, 0600);
		cgw_fail_alloc_after = -1;
		assert_int_equal(r, -ENOMEM);
	}
	writer_poll(writer, 5000);
	writer_poll(writer, 5000);
	int lines = capture_end(&c, log, sizeof(log));
	assert_string_equal(log, "cgwatch: 2 state saves dropped: out of memory\n");
	assert_int_equal(lines, 1);
	assert_int_equal(tmpdir_count(dir), 0);
	state_write(path, "kept");
	assert_int_equal(tmpdir_get(dir, "incidents.json", buf, sizeof(buf)), 4);
	tmpdir_remove(dir);
}

/* A report pair prepared with one allocation refused at each point in turn: -ENOMEM and
 * nothing held (valgrind), until it has enough; rotation without memory deletes nothing. */
static void test_report_out_of_memory(void **state)
{
	(void)state;
	char dir[64];
	tmpdir_make(dir, sizeof(dir));
	struct cgw_conf conf = unit_report_conf(dir);
	struct cgw_incidents in = { 0 };
	struct unit_scan u;
	struct inc_change *ch;
	unit_one_incident(&u, &sig_fuse, T0, &in, &ch);
	int failed = 0, r = -1;
	struct report_files f;
	for (long k = 0; k < 500; k++) {
		cgw_fail_alloc_after = k;
		r = report_prepare(&conf, &u.rep, &in.v[0], ch[0].state, ch[0].finding, &f);
		bool refused = cgw_fail_alloc_after < 0;
		cgw_fail_alloc_after = -1;
		if (r != 0) {
			assert_int_equal(r, -ENOMEM);
			assert_null(f.dir);
			failed++;
		}
		if (!refused)
			break;
		if (r == 0)                       /* made without that one: the text says so */
			report_files_free(&f);
	}
	assert_int_equal(r, 0);
	assert_true(failed >= 3);
	char why[256];
	assert_int_equal(report_files_write(&f, why, sizeof(why)), 0);
	report_files_free(&f);
	assert_int_equal(tmpdir_count(dir), 3);
	cgw_fail_alloc_after = 0;
	assert_int_equal(reports_rotate(dir, 0, 0), -ENOMEM);
	assert_int_equal(tmpdir_count(dir), 3);
	assert_int_equal(reports_rotate(dir, 0, 0), 3);
	free(ch);
	us_free(&u);
	incidents_free(&in);
	tmpdir_remove(dir);
}

/* A bundles-lane job that waits for the reports lane (writer_lane_wait), then counts the
 * report files it would take. */
struct lane_job { const char *dir; bool wait; size_t seen; bool done; };

static int lane_job_run(void *ctx, char *why, size_t cap)
{
	(void)why;
	(void)cap;
	struct lane_job *j = ctx;
	if (j->wait)
		writer_lane_wait(writer, WR_REPORTS, 5000);
	j->seen = tmpdir_count(j->dir);
	return 0;
}

static void lane_job_release(void *ctx)
{
	__atomic_store_n(&((struct lane_job *)ctx)->done, true, __ATOMIC_RELEASE);
}

/* Reports queued before a bundle job are on disk when the job, having waited for the
 * reports lane, reads them: 24 pairs, each fsync'd, then the job. */
static void test_lane_wait(void **state)
{
	(void)state;
	char dir[64], rdir[128];
	tmpdir_make(dir, sizeof(dir));
	snprintf(rdir, sizeof(rdir), "%s/reports", dir);
	struct cgw_conf conf = unit_report_conf(rdir);
	conf.report_keep = 1000;
	struct cgw_incidents in = { 0 };
	struct unit_scan u;
	struct inc_change *ch;
	unit_one_incident(&u, &sig_fuse, T0, &in, &ch);
	for (int k = 0; k < 24; k++) {
		struct report_files f;
		assert_int_equal(report_prepare(&conf, &u.rep, &in.v[0], ch[0].state, ch[0].finding,
		                                 &f), 0);
		in.v[0].reports++;
		assert_int_equal(writer_report(writer, &f, in.v[0].id), 0);
	}
	struct lane_job j = { .dir = rdir, .wait = true };
	assert_int_equal(writer_job(writer, "bundle", lane_job_run, lane_job_release, &j), 0);
	assert_true(writer_wait(writer, 10000));
	for (int k = 0; k < 500 && !__atomic_load_n(&j.done, __ATOMIC_ACQUIRE); k++)
		usleep(10000);                    /* released just after the lane went idle */
	assert_true(__atomic_load_n(&j.done, __ATOMIC_ACQUIRE));
	assert_int_equal(j.seen, 49);              /* and the incident's page */
	/* a lane with nothing queued: no wait */
	uint64_t t0 = now_usec();
	assert_true(writer_lane_wait(writer, WR_REPORTS, 5000));
	assert_true(now_usec() - t0 < 1000000);
	free(ch);
	us_free(&u);
	incidents_free(&in);
	tmpdir_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_failure_once_per_streak),
		cmocka_unit_test(test_newest_wins),
		cmocka_unit_test(test_reports),
		cmocka_unit_test(test_job_out_of_memory),
		cmocka_unit_test(test_report_out_of_memory),
		cmocka_unit_test(test_lane_wait),
	};
	return tmpdir_cleanup_all(cmocka_run_group_tests(tests, setup, teardown));
}
