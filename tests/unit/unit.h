/* unit.h: what every cmocka unit test includes. */
#ifndef CGW_UNIT_H
#define CGW_UNIT_H

#include <stdarg.h>
#include <stddef.h>
#include <stdint.h>
#include <setjmp.h>
#include <cmocka.h>

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <dirent.h>
#include <unistd.h>

#include "cgwatch.h"

#define ARRAY_SIZE(a) (sizeof(a) / sizeof((a)[0]))

/* The cgroup mounts of /proc/self/mountinfo on the host the tests were captured on (every v1
 * controller alone, name=systemd, a cgroup2 at /sys/fs/cgroup/unified). */
#define HOST_CGROUP_MOUNTS \
	"31 23 0:28 / /sys/fs/cgroup rw,relatime - tmpfs tmpfs rw,mode=755\n" \
	"32 31 0:29 / /sys/fs/cgroup/cpu rw,relatime - cgroup cgroup rw,cpu\n" \
	"33 31 0:30 / /sys/fs/cgroup/cpuacct rw,relatime - cgroup cgroup rw,cpuacct\n" \
	"34 31 0:31 / /sys/fs/cgroup/cpuset rw,relatime - cgroup cgroup rw,cpuset\n" \
	"35 31 0:32 / /sys/fs/cgroup/memory rw,relatime - cgroup cgroup rw,memory\n" \
	"36 31 0:33 / /sys/fs/cgroup/devices rw,relatime - cgroup cgroup rw,devices\n" \
	"37 31 0:34 / /sys/fs/cgroup/freezer rw,relatime - cgroup cgroup rw,freezer\n" \
	"38 31 0:35 / /sys/fs/cgroup/blkio rw,relatime - cgroup cgroup rw,blkio\n" \
	"39 31 0:36 / /sys/fs/cgroup/pids rw,relatime - cgroup cgroup rw,pids\n" \
	"40 31 0:37 / /sys/fs/cgroup/systemd rw,relatime - cgroup cgroup rw,name=systemd\n" \
	"41 31 0:38 / /sys/fs/cgroup/unified rw,relatime - cgroup2 cgroup2 rw\n"

/* Compare n bytes and print both sides escaped when they differ. */
#define assert_bytes_equal(got, want, n) do { \
	const char *g_ = (got), *w_ = (want); size_t n_ = (n); \
	if (memcmp(g_, w_, n_) != 0) { \
		char eg_[512], ew_[512]; \
		print_error("got  \"%s\"\nwant \"%s\"\n", cescape(g_, n_, eg_, sizeof(eg_)), \
		            cescape(w_, n_, ew_, sizeof(ew_))); \
		fail(); \
	} \
} while (0)

/* s escaped for a TAP comment line (static buffer: one use per call). */
static inline const char *esc(const char *s)
{
	static char buf[4][512];
	static unsigned k;
	k = (k + 1) % 4;
	return cescape(s, strlen(s), buf[k], sizeof(buf[k]));
}

/* |got - want| <= eps (cmocka 1.1 has no assert_double_equal). */
#define assert_near(got, want, eps) do { \
	double g_ = (got), w_ = (want); \
	if (!(g_ - w_ <= (eps) && w_ - g_ <= (eps))) { \
		print_error("%.9f != %.9f\n", g_, w_); \
		fail(); \
	} \
} while (0)

/* Numbers no /proc field holds: not finite, signed, hex, with an exponent, past 2^64. A
 * parser must refuse each in every numeric field it reads ("-0" is a zero: tested apart). */
__attribute__((unused)) static const char *const hostile_nums[] = {
	"nan", "NaN", "-nan", "inf", "-inf", "infinity", "INF", "1e308", "1e3", "-5", "+5",
	"0x10", "0X1f", "18446744073709551616", "18446744073709551615999",
	"340282366920938463463374607431768211456", "1.5.5", "--1", "-", ".", "5x",
};

/* A FILE* collecting what the code under test prints (open_memstream). */
struct errbuf { FILE *f; char *s; size_t n; };
static inline FILE *errbuf_open(struct errbuf *e)
{
	e->s = NULL;
	e->n = 0;
	e->f = open_memstream(&e->s, &e->n);
	assert_non_null(e->f);
	return e->f;
}
static inline const char *errbuf_text(struct errbuf *e)
{
	fflush(e->f);
	return e->s ? e->s : "";
}
static inline int errbuf_lines(struct errbuf *e)
{
	int n = 0;
	for (const char *p = errbuf_text(e); *p; p++)
		n += *p == '\n';
	return n;
}
static inline void errbuf_close(struct errbuf *e)
{
	fclose(e->f);
	free(e->s);
	e->s = NULL;
}
/* The collected text holds want; print both when it does not. */
#define assert_err_has(e, want) do { \
	const char *t_ = errbuf_text(e), *w_ = (want); \
	if (!strstr(t_, w_)) { \
		print_error("error output:\n%s\nlacks:\n%s\n", t_, w_); \
		fail(); \
	} \
} while (0)

/* Find rel (e.g. "conf/signatures.d") in the source tree: $CGW_SRCDIR, the current directory,
 * or up from the test binary (BUILD/tests/test-x or BUILD/asan/tests/test-x). */
static inline bool unit_srcpath(const char *rel, char *out, size_t cap)
{
	const char *env = getenv("CGW_SRCDIR");
	if (env) {
		return snprintf(out, cap, "%s/%s", env, rel) < (int)cap && access(out, R_OK) == 0;
	}
	snprintf(out, cap, "%s", rel);
	if (access(out, R_OK) == 0)
		return true;
	char exe[4096];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof(exe) - 1);
	if (n <= 0)
		return false;
	exe[n] = '\0';
	for (int up = 0; up < 5; up++) {
		char *slash = strrchr(exe, '/');
		if (!slash)
			return false;
		*slash = '\0';
		if (snprintf(out, cap, "%s/%s", exe, rel) >= (int)cap)
			return false;
		if (access(out, R_OK) == 0)
			return true;
	}
	return false;
}

/* Temporary directories made so far, so that main() can remove those a failed test left. */
struct unit_tmpdirs { char path[256][64]; int n; };
static inline struct unit_tmpdirs *unit_tmpdirs(void)
{
	static struct unit_tmpdirs t;
	return &t;
}

/* A private temporary directory of small files, removed afterwards. */
static inline void tmpdir_make(char *path, size_t cap)
{
	snprintf(path, cap, "/tmp/cgw-unit-XXXXXX");
	assert_non_null(mkdtemp(path));
	struct unit_tmpdirs *t = unit_tmpdirs();
	if (t->n < 256)
		snprintf(t->path[t->n++], sizeof(t->path[0]), "%s", path);
}
static inline void tmpdir_put(const char *dir, const char *name, const char *text)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	FILE *f = fopen(p, "w");
	assert_non_null(f);
	fputs(text, f);
	assert_int_equal(fclose(f), 0);
}
/* Remove dir and what it holds, directories included (a failed test may leave any). */
static inline void tmpdir_remove(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct dirent *e;
	char p[512];
	while ((e = readdir(d))) {
		if (strcmp(e->d_name, ".") == 0 || strcmp(e->d_name, "..") == 0)
			continue;
		if (snprintf(p, sizeof(p), "%s/%s", dir, e->d_name) >= (int)sizeof(p))
			continue;
		if (unlink(p) < 0 && errno == EISDIR)
			tmpdir_remove(p);
	}
	closedir(d);
	rmdir(dir);
}

/* Remove every directory tmpdir_make() made; returns the tests' result unchanged. */
static inline int tmpdir_cleanup_all(int result)
{
	struct unit_tmpdirs *t = unit_tmpdirs();
	for (int i = 0; i < t->n; i++)
		tmpdir_remove(t->path[i]);
	t->n = 0;
	return result;
}

/* The content of dir/name into buf (cap bytes, NUL-terminated); returns its length or
 * -errno. */
static inline ssize_t tmpdir_get(const char *dir, const char *name, char *buf, size_t cap)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return read_small_file(p, buf, cap);
}

/* Does dir/name exist? */
static inline bool tmpdir_has(const char *dir, const char *name)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, name);
	return access(p, F_OK) == 0;
}

/* Number of entries of dir besides "." and "..", -1 when it cannot be read. */
static inline int tmpdir_count(const char *dir)
{
	DIR *d = opendir(dir);
	if (!d)
		return -1;
	int n = 0;
	struct dirent *e;
	while ((e = readdir(d)))
		n += strcmp(e->d_name, ".") != 0 && strcmp(e->d_name, "..") != 0;
	closedir(d);
	return n;
}

/* ---- a scan and its report built in memory, no /proc: tasks, then findings over them ---- */

struct unit_scan { struct cgw_scan scan; struct cgw_report rep; };

static inline void us_init(struct unit_scan *u)
{
	memset(u, 0, sizeof(*u));
	u->rep.scan = &u->scan;
	u->rep.threshold_s = 20;
	snprintf(u->scan.host, sizeof(u->scan.host), "testhost");
	snprintf(u->scan.kernel, sizeof(u->scan.kernel), "6.99.0-test");
}

/* A D task (suspect) blocked blocked_s; start_ticks derives from tid, so the same tid is the
 * same task in every scan. comm is comm_len bytes (may hold any byte). Returns its index. */
static inline size_t us_task(struct unit_scan *u, int tid, int tgid, const char *comm,
                             size_t comm_len, double blocked_s)
{
	struct cgw_scan *s = &u->scan;
	s->t = xrealloc(s->t, (s->n + 1) * sizeof(*s->t));
	struct cgw_task *t = &s->t[s->n];
	memset(t, 0, sizeof(*t));
	t->tid = tid;
	t->tgid = tgid;
	t->ppid = 1;
	t->start_ticks = 1000 + (unsigned long long)tid;
	t->state = 'D';
	if (comm_len > sizeof(t->comm) - 1)
		comm_len = sizeof(t->comm) - 1;
	memcpy(t->comm, comm, comm_len);
	t->comm_len = comm_len;
	t->blocked_s = blocked_s;
	t->suspect = SUSPECT_BLOCKED;
	t->severity = SEV_WARNING;
	snprintf(t->unit, sizeof(t->unit), "unit-%d.service", tgid);
	snprintf(t->cgroup, sizeof(t->cgroup), "/system.slice/unit-%d.service", tgid);
	snprintf(t->cpus_allowed, sizeof(t->cpus_allowed), "0-3");
	s->threads++;
	return s->n++;
}

/* A finding of sig with severity sev over the tasks idx[0..n-1]. Returns its index. */
static inline size_t us_finding(struct unit_scan *u, const struct cgw_sig *sig, enum cgw_sev sev,
                                size_t n, const size_t *idx)
{
	struct cgw_report *r = &u->rep;
	r->f = xrealloc(r->f, (r->nf + 1) * sizeof(*r->f));
	struct cgw_finding *f = &r->f[r->nf];
	memset(f, 0, sizeof(*f));
	f->sig = sig;
	f->severity = sev;
	f->tasks = xcalloc(n + 1, sizeof(size_t));
	memcpy(f->tasks, idx, n * sizeof(size_t));
	f->ntasks = n;
	for (size_t k = 0; k < n; k++) {
		u->scan.t[idx[k]].sig = sig;
		u->scan.t[idx[k]].severity = sev;
	}
	return r->nf++;
}

static inline void us_free(struct unit_scan *u)
{
	report_free(&u->rep);
	scan_free(&u->scan);
}

/* A signature with the fields reports and messages use (the strings are not owned); for a
 * shipped id, also the shipped signature's correlator, workqueue and cause kind (they decide
 * which correlators run on its findings, and what splits them). */
static inline struct cgw_sig unit_sig(const char *id, const char *title, const char *summary,
                                      enum cgw_sev sev)
{
	struct cgw_sig s;
	memset(&s, 0, sizeof(s));
	s.id = (char *)id;
	s.title = (char *)title;
	s.summary = (char *)summary;
	s.severity = sev;
	s.priority = 50;
	snprintf(s.states, sizeof(s.states), "D");
	static struct cgw_sigset shipped;
	if (!shipped.n)
		sig_load_builtin(&shipped, stderr);
	const struct cgw_sig *b = sig_find(&shipped, id);
	if (b) {
		s.correlator = b->correlator;
		s.workqueue = b->workqueue;
		s.cause_mount = b->cause_mount;
	}
	return s;
}

/* A report configuration writing into dir, keeping 100 files and 10 MiB. */
static inline struct cgw_conf unit_report_conf(char *dir)
{
	struct cgw_conf c;
	memset(&c, 0, sizeof(c));
	c.report_dir = dir;
	c.report_keep = 100;
	c.report_max_mib = 10;
	return c;
}

/* The same with room for many reports: 200 kept, 64 MiB. */
static inline struct cgw_conf unit_report_roomy(char *dir)
{
	struct cgw_conf c = unit_report_conf(dir);
	c.report_keep = 200;
	c.report_max_mib = 64;
	return c;
}

/* A scan with one task (PID 1, systemd, blocked 21.3 s) in a finding of sig, folded into in
 * at time t0: one incident opened, its change in *ch. */
static inline void unit_one_incident(struct unit_scan *u, struct cgw_sig *sig, double t0,
                                     struct cgw_incidents *in, struct inc_change **ch)
{
	us_init(u);
	size_t idx = us_task(u, 1, 1, "systemd", 7, 21.3);
	us_finding(u, sig, SEV_WARNING, 1, &idx);
	assert_int_equal(incidents_update(in, &u->rep, t0, 300, ch), 1);
}

/* Load the state file path for boot into got: it must load whole, with nothing said and
 * nothing dropped. */
static inline void unit_load_clean(struct cgw_incidents *got, const char *path, const char *boot)
{
	size_t dropped = 99;
	struct errbuf e;
	assert_int_equal(incidents_load(got, path, boot, &dropped, errbuf_open(&e)), 0);
	assert_string_equal(errbuf_text(&e), "");
	errbuf_close(&e);
	assert_int_equal(dropped, 0);
}

/* stderr into a temporary file while a test runs code that logs; capture_end puts it back,
 * copies what was said into buf and returns its number of lines. */
struct capture { int saved; char path[64]; };

static inline void capture_begin(struct capture *c)
{
	fflush(stderr);
	snprintf(c->path, sizeof(c->path), "/tmp/cgw-unit-log-XXXXXX");
	int fd = mkstemp(c->path);
	assert_true(fd >= 0);
	c->saved = dup(2);
	assert_int_equal(dup2(fd, 2), 2);
	close(fd);
}

static inline int capture_end(struct capture *c, char *buf, size_t cap)
{
	fflush(stderr);
	assert_int_equal(dup2(c->saved, 2), 2);
	close(c->saved);
	ssize_t n = read_small_file(c->path, buf, cap);
	unlink(c->path);
	assert_true(n >= 0);
	int lines = 0;
	for (const char *p = buf; *p; p++)
		lines += *p == '\n';
	return lines;
}

#endif
