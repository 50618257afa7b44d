/* sink-autobundle.c: the bundles the daemon leaves by itself. When an incident opens or
 * escalates at critical severity, the journal message goes out first, naming the bundle to
 * come; the next scan runs with the recorder on (daemon.c), and what it read is taken into
 * memory (capture_take). The tree and the archive are written here, on the writer's bundles
 * lane, never by the main loop: the kernel's ring read whole into the tree (the scan only
 * followed it), the tree into a private directory under $TMPDIR (the unit's
 * PrivateTmp), the bundle into [bundle] dir, the tree removed, the oldest bundles past
 * [bundle] keep removed. The decisions (when, which to remove) are pure. */
#include "archive-lib.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgwatch.h"

#define BUNDLE_PREFIX "cgwatch-bundle-"

bool autobundle_due(const struct cgw_conf *c, double last, const struct incident *i,
                    enum inc_state st, double now)
{
	if (!c->bundle_auto || i->bundled || i->severity < SEV_CRITICAL)
		return false;
	if (st != INC_OPENED && st != INC_ESCALATED)
		return false;
	/* host-wide: a storm of incidents makes a few bundles (a clock set back does not
	 * stop them for good) */
	return last <= 0 || now < last || now - last >= c->bundle_min_interval_s;
}

bool autobundle_too_big(const struct cgw_conf *c, uint64_t tree_bytes)
{
	return (double)tree_bytes > c->bundle_max_mib * 1024.0 * 1024.0;
}

const char *autobundle_ext(void)
{
	/* zstd, always: knowing whether libarchive has it would load libarchive (and ICU) into
	 * the daemon at start; a libarchive without it fails the bundle, said (Debian's has it) */
	return "zst";
}

void autobundle_name(const struct cgw_conf *c, const char *inc_id, char *out, size_t cap)
{
	snprintf(out, cap, "%s/" BUNDLE_PREFIX "%s.tar.%s", c->bundle_dir, inc_id,
	         autobundle_ext());
}

bool autobundle_is_bundle(const char *name)
{
	size_t l = strlen(name), p = strlen(BUNDLE_PREFIX);
	if (strncmp(name, BUNDLE_PREFIX, p) != 0 || strchr(name, '/'))
		return false;
	return (l > p + 8 && strcmp(name + l - 8, ".tar.zst") == 0) ||
	       (l > p + 7 && strcmp(name + l - 7, ".tar.gz") == 0);     /* an id, then the suffix */
}

static int abf_cmp(const void *a, const void *b)
{
	const struct ab_file *x = a, *y = b;
	if (x->mtime_ns != y->mtime_ns)
		return x->mtime_ns < y->mtime_ns ? -1 : 1;
	return strcmp(x->name, y->name);
}

size_t autobundle_prune(struct ab_file *v, size_t n, size_t keep)
{
	size_t bundles = 0, removed = 0;
	if (n)
		qsort(v, n, sizeof(*v), abf_cmp);
	for (size_t k = 0; k < n; k++) {
		v[k].remove = false;
		bundles += autobundle_is_bundle(v[k].name);
	}
	for (size_t k = 0; k < n && bundles - removed > keep; k++)   /* oldest first */
		if (autobundle_is_bundle(v[k].name)) {
			v[k].remove = true;
			removed++;
		}
	return removed;
}

/* Remove the oldest bundles of dir past keep (only files named as the daemon names them), each
 * with its redaction map NAME.map. */
static void rotate(const char *dir, size_t keep)
{
	DIR *d = opendir(dir);
	if (!d)
		return;
	struct ab_file *v = NULL;
	size_t n = 0, cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		struct stat st;
		if (!autobundle_is_bundle(de->d_name) ||
		    fstatat(dirfd(d), de->d_name, &st, AT_SYMLINK_NOFOLLOW) < 0 || !S_ISREG(st.st_mode))
			continue;
		if (grow((void **)&v, &cap, n, 16, sizeof(*v)) < 0)
			break;
		if (!(v[n].name = try_strdup(de->d_name)))
			break;
		v[n++].mtime_ns = (int64_t)st.st_mtim.tv_sec * 1000000000 + st.st_mtim.tv_nsec;
	}
	autobundle_prune(v, n, keep);
	for (size_t k = 0; k < n; k++) {
		if (v[k].remove && unlinkat(dirfd(d), v[k].name, 0) == 0) {
			char map[512];                     /* its redaction map goes with it */
			if ((size_t)snprintf(map, sizeof(map), "%s.map", v[k].name) < sizeof(map))
				unlinkat(dirfd(d), map, 0);
			log_debug("bundle %s/%s removed: [bundle] keep = %zu", cesc(dir), cesc(v[k].name),
			          keep);
		}
		free(v[k].name);
	}
	free(v);
	closedir(d);
}

struct ab_job {
	struct cap_snap *snap;
	struct cgw_conf conf;                 /* copies: a reload frees the daemon's */
	struct cgw_sigset sigs;
	struct bundle_reports rep;
	struct bundle_incidents inc;          /* the open incidents' newest reports */
	struct cgw_writer *w;                 /* whose reports lane writes them */
	char file[4096];
};

static void job_release(void *p)
{
	struct ab_job *j = p;
	capture_snap_free(j->snap);
	conf_free(&j->conf);
	sig_free(&j->sigs);
	bundle_reports_free(&j->rep);
	bundle_incidents_free(&j->inc);
	free(j);
}

/* The bundles lane: the directory (made 0700, checked as the reports' is), the tree into a
 * private directory, the archive, the tree removed, the oldest bundles past keep removed. */
static int job_run(void *p, char *why, size_t cap)
{
	struct ab_job *j = p;
	const char *dir = j->conf.bundle_dir;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		int e = -errno;
		snprintf(why, cap, "cannot create %s: %s", cesc(dir), strerror(-e));
		return e;
	}
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
	if (dfd < 0) {
		int e = -errno;
		snprintf(why, cap, "%s: %s", cesc(dir), strerror(-e));
		return e;
	}
	int e = atomic_dir_check(dfd, dir, why, cap);
	close(dfd);
	if (e < 0)
		return e;
	const char *tmp = getenv("TMPDIR");
	char top[4096], tree[4200];
	snprintf(top, sizeof(top), "%s/cgwatch-autobundle-XXXXXX", tmp && tmp[0] == '/' ? tmp :
	         "/tmp");
	if (!mkdtemp(top)) {
		e = -errno;
		snprintf(why, cap, "cannot make a directory for its tree (%s): %s", cesc(top),
		         strerror(-e));
		return e;
	}
	snprintf(tree, sizeof(tree), "%s/tree", top);
	char msg[8192], written[4400];
	/* the incidents' reports this scan queued, written first (a reports directory that does
	 * not answer is not waited for past the deadline: those reports are then noted) */
	writer_lane_wait(j->w, WR_REPORTS, (unsigned)(j->conf.read_timeout_s * 1000));
	/* the scan followed the ring from start-up; a replay reads it whole, as check does */
	if (capture_snap_kmsg(j->snap, (unsigned)(j->conf.read_timeout_s * 1000)) < 0)
		log_warnx("bundle %s: the kernel's ring is not (all) in its tree: out of memory",
		          cesc(j->file));
	if ((e = capture_snap_write(j->snap, tree, msg, sizeof(msg))) < 0) {
		snprintf(why, cap, "%s", msg);
	} else if (bundle_write_reports(tree, j->file, &j->conf, &j->sigs, &j->rep, &j->inc,
	                                written, sizeof(written), msg, sizeof(msg)) != 0) {
		e = -EIO;
		snprintf(why, cap, "%s", msg);
	} else {
		for (char *nl = written; (nl = strchr(nl, '\n'));)
			*nl = ' ';                         /* the map's line, on the same log line */
		log_warnx("bundle %s", written);
		rotate(dir, (size_t)j->conf.bundle_keep);
	}
	int re = remove_tree(top);
	if (re < 0)
		log_warnx("cannot remove the bundle's tree %s: %s", cesc(top), strerror(-re));
	return e;
}

/* The reports of the captured scan, as a check of its tree renders them. */
static int report_render(const struct cgw_report *r, struct bundle_reports *out)
{
	FILE *f = open_memstream(&out->text, &out->text_len);
	if (!f)
		return -ENOMEM;
	report_text(r, f);
	if (fclose(f) != 0)
		return -ENOMEM;
	if (!(f = open_memstream(&out->json, &out->json_len)))
		return -ENOMEM;
	report_json(r, f);
	if (fclose(f) != 0)
		return -ENOMEM;
	snprintf(out->host, sizeof(out->host), "%s", r->scan->host);
	snprintf(out->kernel, sizeof(out->kernel), "%s", r->scan->kernel);
	out->exit = report_max_severity(r) >= SEV_WARNING ? EXIT_FINDINGS : EXIT_NOTHING;
	return 0;
}

int autobundle_queue(struct cgw_writer *w, const struct cgw_conf *c,
                     const struct cgw_sigset *sigs,
                     const struct cgw_incidents *in, struct cap_snap *snap,
                     const struct cgw_report *r, const char *file)
{
	struct ab_job *j = try_calloc(1, sizeof(*j));
	if (!j) {
		capture_snap_free(snap);
		return -ENOMEM;
	}
	j->snap = snap;
	j->w = w;
	snprintf(j->file, sizeof(j->file), "%s", file);
	if (conf_copy(&j->conf, c) < 0 || sig_copy(&j->sigs, sigs) < 0 ||
	    bundle_incident_files(in, c->report_dir, &j->inc) < 0 || report_render(r, &j->rep) < 0) {
		job_release(j);
		return -ENOMEM;
	}
	return writer_job(w, file, job_run, job_release, j);
}
