/* test-atomic.c: no file the daemon writes can be turned against it. A symlink or a file
 * someone else made at the temporary name (metrics, state file, reports, through their real
 * write functions) is never followed or kept; a directory that someone other than us or root
 * could change is refused, saying why; a report pair is written whole or not at all. */
#include <fcntl.h>
#include <pwd.h>
#include <sys/stat.h>

#include "unit.h"

#define T0 1796022982.0              /* 2026-11-30T07:16:22Z */
#define T0_ID "20261130T071622Z"
#define VICTIM "the victim's own content\n"

static struct cgw_sig sig_fuse;

static int setup(void **state)
{
	(void)state;
	umask(022);
	sig_fuse = unit_sig("fuse-wait", "Waiting for a FUSE daemon", "stat() on FUSE",
	                    SEV_WARNING);
	return 0;
}

/* A scan with one fuse-wait task, folded into in: one incident opened. */
static void one_incident(struct unit_scan *u, struct cgw_incidents *in, struct inc_change **ch)
{
	unit_one_incident(u, &sig_fuse, T0, in, ch);
}

static struct stat lstat_of(const char *dir, const char *name)
{
	char p[512];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	assert_int_equal(lstat(p, &st), 0);
	return st;
}

/* dir/name is a symlink to victim (a file in another directory that holds VICTIM). */
static void plant_symlink(const char *dir, const char *name, const char *victim)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	assert_int_equal(symlink(victim, p), 0);
}

/* The victim still holds its own content; dir/name is a regular file of ours, mode want. */
static void assert_not_redirected(const char *victim, const char *dir, const char *name,
                                  unsigned want)
{
	char buf[256];
	ssize_t n = read_small_file(victim, buf, sizeof(buf));
	if (n < 0 || strcmp(buf, VICTIM) != 0)
		print_error("the victim %s now holds: %.200s\n", victim, esc(n < 0 ? "?" : buf));
	assert_string_equal(buf, VICTIM);
	struct stat st = lstat_of(dir, name);
	assert_true(S_ISREG(st.st_mode));
	assert_int_equal(st.st_uid, geteuid());
	assert_int_equal(st.st_mode & 07777, want);
}

/* The user nobody, for files and directories someone else owns; the test is skipped, saying
 * why, without root or such a user. */
static const struct passwd *nobody_or_skip(void)
{
	const struct passwd *pw = getpwnam("nobody");
	if (geteuid() != 0 || !pw) {
		print_message("# SKIP: needs root and a user nobody\n");
		skip();
	}
	return pw;
}

static void make_victim(char *vdir, size_t cap, char *victim, size_t vcap)
{
	tmpdir_make(vdir, cap);
	tmpdir_put(vdir, "victim", VICTIM);
	snprintf(victim, vcap, "%s/victim", vdir);
}

/* cgwatch.prom.tmp -> victim: the metrics go to cgwatch.prom, the victim is untouched. */
static void test_metrics_symlink(void **state)
{
	(void)state;
	char dir[64], vdir[64], victim[128], p[128], buf[8192];
	tmpdir_make(dir, sizeof(dir));
	make_victim(vdir, sizeof(vdir), victim, sizeof(victim));
	plant_symlink(dir, "cgwatch.prom.tmp", victim);
	struct cgw_incidents in = { 0 };
	struct unit_scan u;
	us_init(&u);
	snprintf(p, sizeof(p), "%s/cgwatch.prom", dir);
	assert_int_equal(metrics_write(p, &u.rep, &in, 3), 0);
	us_free(&u);
	assert_not_redirected(victim, dir, "cgwatch.prom", 0644);
	assert_true(tmpdir_get(dir, "cgwatch.prom", buf, sizeof(buf)) > 0);
	assert_non_null(strstr(buf, "cgwatch_scans_total 3\n"));
	assert_false(tmpdir_has(dir, "cgwatch.prom.tmp"));
	tmpdir_remove(dir);
	tmpdir_remove(vdir);
}

/* incidents.json.tmp -> victim: the state goes to incidents.json, 0600. */
static void test_state_symlink(void **state)
{
	(void)state;
	char dir[64], vdir[64], victim[128], p[128];
	tmpdir_make(dir, sizeof(dir));
	make_victim(vdir, sizeof(vdir), victim, sizeof(victim));
	plant_symlink(dir, "incidents.json.tmp", victim);
	struct cgw_incidents in = { 0 };
	struct unit_scan u;
	struct inc_change *ch;
	one_incident(&u, &in, &ch);
	free(ch);
	us_free(&u);
	snprintf(p, sizeof(p), "%s/incidents.json", dir);
	assert_int_equal(incidents_save(&in, p, "boot"), 0);
	incidents_free(&in);
	assert_not_redirected(victim, dir, "incidents.json", 0600);
	assert_false(tmpdir_has(dir, "incidents.json.tmp"));
	tmpdir_remove(dir);
	tmpdir_remove(vdir);
}

/* One incident's first report written to dir by sink_report: its result; *reports (when
 * set) the incident's report count after. */
static int report_one(char *dir, unsigned *reports)
{
	struct cgw_conf c = unit_report_roomy(dir);
	struct cgw_incidents in = { 0 };
	struct unit_scan u;
	struct inc_change *ch;
	one_incident(&u, &in, &ch);
	int r = sink_report(&c, &u.rep, &in.v[0], ch[0].state, ch[0].finding);
	if (reports)
		*reports = in.v[0].reports;
	free(ch);
	us_free(&u);
	incidents_free(&in);
	return r;
}

/* A report's .txt.tmp (and .json.tmp, the page's .html.tmp) -> victim: the report is
 * written, the victim untouched. */
static void test_report_symlink(void **state)
{
	(void)state;
	char dir[64], vdir[64], victim[128];
	tmpdir_make(dir, sizeof(dir));
	make_victim(vdir, sizeof(vdir), victim, sizeof(victim));
	plant_symlink(dir, T0_ID "-fuse-wait-01-opened.txt.tmp", victim);
	plant_symlink(dir, T0_ID "-fuse-wait-01-opened.json.tmp", victim);
	plant_symlink(dir, T0_ID "-fuse-wait.html.tmp", victim);
	assert_int_equal(report_one(dir, NULL), 0);
	assert_not_redirected(victim, dir, T0_ID "-fuse-wait-01-opened.txt", 0640);
	assert_not_redirected(victim, dir, T0_ID "-fuse-wait-01-opened.json", 0640);
	assert_not_redirected(victim, dir, T0_ID "-fuse-wait.html", 0640);
	assert_int_equal(tmpdir_count(dir), 3);
	tmpdir_remove(dir);
	tmpdir_remove(vdir);
}

/* A .json.tmp made beforehand by nobody, mode 0666: the final report is ours, 0640, and
 * holds the report, not what nobody wrote. */
static void test_report_precreated(void **state)
{
	(void)state;
	const struct passwd *pw = nobody_or_skip();
	char dir[64], p[256], buf[65536];
	tmpdir_make(dir, sizeof(dir));
	const char *tmp = T0_ID "-fuse-wait-01-opened.json.tmp";
	tmpdir_put(dir, tmp, "{\"planted\": true}");
	snprintf(p, sizeof(p), "%s/%s", dir, tmp);
	assert_int_equal(chown(p, pw->pw_uid, pw->pw_gid), 0);
	assert_int_equal(chmod(p, 0666), 0);
	assert_int_equal(report_one(dir, NULL), 0);
	struct stat st = lstat_of(dir, T0_ID "-fuse-wait-01-opened.json");
	if (st.st_uid != geteuid() || (st.st_mode & 07777) != 0640)
		print_error("the report is owned by uid %u, mode %04o\n", (unsigned)st.st_uid,
		            (unsigned)(st.st_mode & 07777));
	assert_int_equal(st.st_uid, geteuid());
	assert_int_equal(st.st_mode & 07777, 0640);
	assert_true(tmpdir_get(dir, T0_ID "-fuse-wait-01-opened.json", buf, sizeof(buf)) > 0);
	assert_null(strstr(buf, "planted"));
	assert_non_null(strstr(buf, "cgwatch.report/1"));
	assert_false(tmpdir_has(dir, tmp));
	tmpdir_remove(dir);
}

/* A directory writable by group or others, or owned by another user, is refused: -EPERM,
 * nothing written. Through atomic_write and the metrics. */
static void test_dir_refused(void **state)
{
	(void)state;
	static const mode_t bad[] = { 0777, 0775, 0757, 01777, 0770 };
	char dir[64], p[128];
	tmpdir_make(dir, sizeof(dir));
	snprintf(p, sizeof(p), "%s/cgwatch.prom", dir);
	for (size_t k = 0; k < ARRAY_SIZE(bad); k++) {
		print_message("# mode %04o\n", (unsigned)bad[k]);
		assert_int_equal(chmod(dir, bad[k]), 0);
		assert_int_equal(atomic_write(p, "x", 1, 0644), -EPERM);
		struct cgw_incidents in = { 0 };
		struct unit_scan u;
		us_init(&u);
		assert_int_equal(metrics_write(p, &u.rep, &in, 1), -EPERM);
		us_free(&u);
		assert_int_equal(tmpdir_count(dir), 0);
	}
	/* 0755 and 0700 are fine */
	assert_int_equal(chmod(dir, 0755), 0);
	assert_int_equal(atomic_write(p, "x", 1, 0644), 0);
	assert_int_equal(chmod(dir, 0700), 0);
	assert_int_equal(atomic_write(p, "y", 1, 0644), 0);
	struct passwd *pw = getpwnam("nobody");
	if (geteuid() == 0 && pw) {
		/* owned by someone else, even 0755 */
		assert_int_equal(chown(dir, pw->pw_uid, pw->pw_gid), 0);
		assert_int_equal(chmod(dir, 0755), 0);
		assert_int_equal(atomic_write(p, "z", 1, 0644), -EPERM);
		char buf[8];
		assert_int_equal(tmpdir_get(dir, "cgwatch.prom", buf, sizeof(buf)), 1);
		assert_string_equal(buf, "y");
		assert_int_equal(chown(dir, 0, 0), 0);
	}
	tmpdir_remove(dir);
}

/* A directory that is a symlink is followed only when root or we made the link (systemd's
 * DynamicUser= links /var/log/cgwatch into private/): a link someone else owns is refused. */
static void test_dir_symlink(void **state)
{
	(void)state;
	const struct passwd *pw = nobody_or_skip();
	char dir[64], other[64], link[128], p[192], why[512] = "";
	tmpdir_make(dir, sizeof(dir));
	tmpdir_make(other, sizeof(other));
	snprintf(link, sizeof(link), "%s/link", dir);
	assert_int_equal(symlink(other, link), 0);
	snprintf(p, sizeof(p), "%s/cgwatch.prom", link);
	assert_int_equal(atomic_write_why(p, "x", 1, 0644, why, sizeof(why)), 0);  /* ours */
	assert_int_equal(tmpdir_count(other), 1);
	assert_int_equal(unlink(p), 0);
	assert_int_equal(lchown(link, pw->pw_uid, pw->pw_gid), 0);
	assert_true(atomic_write_why(p, "x", 1, 0644, why, sizeof(why)) < 0);
	assert_non_null(strstr(why, "is a symlink owned by uid"));
	assert_int_equal(tmpdir_count(other), 0);
	tmpdir_remove(dir);
	tmpdir_remove(other);
}

/* A report pair is written whole or not at all: when the .json cannot be put in place (here a
 * directory stands at its name; on a full disk its write fails), the .txt is not left. */
static void test_report_pair_all_or_none(void **state)
{
	(void)state;
	char dir[64], p[256];
	tmpdir_make(dir, sizeof(dir));
	snprintf(p, sizeof(p), "%s/" T0_ID "-fuse-wait-01-opened.json", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	unsigned reports;
	assert_true(report_one(dir, &reports) < 0);
	assert_int_equal(reports, 0);
	assert_false(tmpdir_has(dir, T0_ID "-fuse-wait-01-opened.txt"));
	assert_false(tmpdir_has(dir, T0_ID "-fuse-wait-01-opened.txt.tmp"));
	assert_false(tmpdir_has(dir, T0_ID "-fuse-wait-01-opened.json.tmp"));
	assert_int_equal(tmpdir_count(dir), 1);
	assert_int_equal(rmdir(p), 0);
	tmpdir_remove(dir);
}

/* The refusal says why, naming the directory, its mode or its owner. */
static void test_dir_refused_why(void **state)
{
	(void)state;
	char dir[64], p[128], why[512], want[256];
	tmpdir_make(dir, sizeof(dir));
	snprintf(p, sizeof(p), "%s/incidents.json", dir);
	static const struct { mode_t mode; const char *why; } c[] = {
		{ 0777, "is writable by group and others (mode 0777): refusing to write there" },
		{ 0720, "is writable by its group (mode 0720): refusing to write there" },
	};
	for (size_t k = 0; k < ARRAY_SIZE(c); k++) {
		assert_int_equal(chmod(dir, c[k].mode), 0);
		assert_int_equal(atomic_write_why(p, "x", 1, 0600, why, sizeof(why)), -EPERM);
		snprintf(want, sizeof(want), "%s %s", dir, c[k].why);
		assert_string_equal(why, want);
	}
	struct passwd *pw = getpwnam("nobody");
	if (geteuid() == 0 && pw) {
		assert_int_equal(chmod(dir, 0700), 0);
		assert_int_equal(chown(dir, pw->pw_uid, pw->pw_gid), 0);
		assert_int_equal(atomic_write_why(p, "x", 1, 0600, why, sizeof(why)), -EPERM);
		snprintf(want, sizeof(want), "%s is owned by uid %u, not by us or root: refusing to "
		         "write there", dir, (unsigned)pw->pw_uid);
		assert_string_equal(why, want);
		assert_int_equal(chown(dir, 0, 0), 0);
	}
	/* other failures: strerror */
	assert_int_equal(chmod(dir, 0700), 0);
	snprintf(p, sizeof(p), "%s/missing/incidents.json", dir);
	assert_int_equal(atomic_write_why(p, "x", 1, 0600, why, sizeof(why)), -ENOENT);
	assert_string_equal(why, strerror(ENOENT));
	assert_int_equal(tmpdir_count(dir), 0);
	tmpdir_remove(dir);
}

/* atomic_write_set: both files in place, or (the second name taken by a directory) none. */
static void test_write_set(void **state)
{
	(void)state;
	char dir[64], p[128], why[256], buf[16];
	tmpdir_make(dir, sizeof(dir));
	struct atomic_file f[2] = { { "a.txt", "aaa", 3 }, { "b.json", "bb", 2 } };
	assert_int_equal(atomic_write_set(dir, f, 2, 0640, why, sizeof(why)), 0);
	assert_int_equal(tmpdir_get(dir, "a.txt", buf, sizeof(buf)), 3);
	assert_int_equal(tmpdir_get(dir, "b.json", buf, sizeof(buf)), 2);
	assert_int_equal(tmpdir_count(dir), 2);
	snprintf(p, sizeof(p), "%s/d.json", dir);
	assert_int_equal(mkdir(p, 0755), 0);
	struct atomic_file g[2] = { { "c.txt", "c", 1 }, { "d.json", "d", 1 } };
	assert_int_equal(atomic_write_set(dir, g, 2, 0640, why, sizeof(why)), -EISDIR);
	assert_string_equal(why, strerror(EISDIR));
	assert_false(tmpdir_has(dir, "c.txt"));
	assert_int_equal(tmpdir_count(dir), 3);
	assert_int_equal(rmdir(p), 0);
	/* a name with a slash is refused */
	struct atomic_file h = { "../x", "x", 1 };
	assert_true(atomic_write_set(dir, &h, 1, 0640, why, sizeof(why)) < 0);
	tmpdir_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_metrics_symlink),
		cmocka_unit_test(test_state_symlink),
		cmocka_unit_test(test_report_symlink),
		cmocka_unit_test(test_report_precreated),
		cmocka_unit_test(test_dir_refused),
		cmocka_unit_test(test_dir_symlink),
		cmocka_unit_test(test_report_pair_all_or_none),
		cmocka_unit_test(test_dir_refused_why),
		cmocka_unit_test(test_write_set),
	};
	return tmpdir_cleanup_all(cmocka_run_group_tests(tests, setup, NULL));
}
