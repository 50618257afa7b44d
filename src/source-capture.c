/* source-capture.c: check --capture DIR. While a live check runs, record.c keeps every file
 * it reads as it read it (the walk forgets the threads it does not keep); after diagnosis
 * this writes into DIR the tree a replay (--root DIR) reads: the host files and the files of
 * the tasks the findings name (their tasks and chains, the runners on their CPUs, a vfork
 * parent's child), the fd and cwd links the wait-file lookup followed, the memory strings it
 * read (DIR/cgwatch/mem/TID-ADDR), the time references (DIR/cgwatch/clocks: the reader's clock
 * and each CPU's offset from it, at the end of the scan) and what could not be read, and why
 * (DIR/cgwatch/unreadable). DIR is made 0700, files 0600, every step relative to an open
 * directory, never following a symlink. A replay reads the clocks back (capture_replay_load). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgwatch.h"
#include "kmsg.h"
#include "rates.h"

struct cgw_capture {
	char *dir;
	int dfd;
	struct cap_clocks *clocks;        /* the time references, set by capture_mark */
	unsigned timeout_ms;
};

int capture_open(const char *dir, unsigned timeout_ms, struct cgw_capture **out, char *msg,
                 size_t cap)
{
	*out = NULL;
	if (mkdir(dir, 0700) < 0 && errno != EEXIST) {
		snprintf(msg, cap, "--capture %s: cannot create it: %s", cesc(dir), strerror(errno));
		return -errno;
	}
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		int e = errno;
		snprintf(msg, cap, "--capture %s: %s", cesc(dir), e == ELOOP || e == ENOTDIR ?
		         "not a directory (a symlink is not followed)" : strerror(e));
		return -e;
	}
	int dup_fd = dup(dfd);
	DIR *d = dup_fd >= 0 ? fdopendir(dup_fd) : NULL;
	if (!d) {
		int e = errno;
		if (dup_fd >= 0)
			close(dup_fd);
		close(dfd);
		snprintf(msg, cap, "--capture %s: %s", cesc(dir), strerror(e));
		return -e;
	}
	struct dirent *de;
	bool empty = true;
	while (empty && (de = readdir(d)))
		empty = strcmp(de->d_name, ".") == 0 || strcmp(de->d_name, "..") == 0;
	closedir(d);
	if (!empty) {
		close(dfd);
		snprintf(msg, cap, "--capture %s: not empty: a capture goes into a new or empty "
		         "directory", cesc(dir));
		return -EEXIST;
	}
	struct stat st;
	if (fstat(dfd, &st) == 0 && st.st_uid != geteuid()) {
		close(dfd);
		snprintf(msg, cap, "--capture %s: owned by uid %u, not by us: another user could read "
		         "the capture", cesc(dir), (unsigned)st.st_uid);
		return -EPERM;
	}
	if (fchmod(dfd, 0700) < 0) {
		int e = errno;
		close(dfd);
		snprintf(msg, cap, "--capture %s: %s", cesc(dir), strerror(e));
		return -e;
	}
	struct cgw_capture *c = try_calloc(1, sizeof(*c));
	if (!c || !(c->dir = try_strdup(dir)) || !(c->clocks = try_calloc(1, sizeof(*c->clocks)))) {
		if (c)
			free(c->dir);
		free(c);
		close(dfd);
		snprintf(msg, cap, "--capture %s: %s", cesc(dir), strerror(ENOMEM));
		return -ENOMEM;
	}
	c->dfd = dfd;
	c->timeout_ms = timeout_ms;
	*out = c;
	record_start();
	return 0;
}

void capture_mark(struct cgw_capture *c, const struct cgw_scan *s)
{
	double ref = mono_ms();
	struct cap_clocks *k = c->clocks;
	k->reader_ms = s->now_ms + (ref - s->now_mono_ms);
	if (s->uptime_s > 0) {
		k->have_uptime = true;
		k->uptime_s = s->uptime_s + (ref - s->uptime_mono_ms) / 1000.0;
	}
	k->n = 0;
	for (size_t i = 0; i < s->nclocks && k->n < CAP_MAX_CLOCKS; i++) {
		double ms;
		if (cpuclock_at(s->clocks, s->nclocks, s->clocks[i].cpu, ref, &ms))
			k->cpu[k->n++] = (struct cap_clock){ s->clocks[i].cpu, ms - k->reader_ms,
			                                     BOUND_EXACT };
	}
	/* the live verdict of the second look, which a snapshot cannot repeat */
	k->have_suspects = s->n <= CAP_MAX_SUSPECTS;
	k->nsus = 0;
	for (size_t i = 0; k->have_suspects && i < s->n; i++)
		k->sus[k->nsus++] = (struct cap_suspect){ s->t[i].tid, s->t[i].start_ticks };
	/* CPUs it could not hop onto: the floor a runnable task there gave (a lower bound) */
	for (int cpu = 0; s->rq_latest && cpu < CGW_MAX_CPUS && k->n < CAP_MAX_CLOCKS; cpu++) {
		const struct cgw_rq_floor *f = &s->rq_latest[cpu];
		double ms;
		if (f->exec_start_ms <= 0 || cpuclock_at(s->clocks, s->nclocks, cpu, ref, &ms))
			continue;
		k->cpu[k->n++] = (struct cap_clock){ cpu, f->exec_start_ms - k->reader_ms, BOUND_LOWER };
	}
}

/* ---- which threads the findings need ---- */

struct keep { int tgid, tid; };
struct keepset { struct keep *v; size_t n, cap; bool nomem; };

static void keep_add(struct keepset *k, int tgid, int tid)
{
	for (size_t i = 0; i < k->n; i++)
		if (k->v[i].tid == tid && k->v[i].tgid == tgid)
			return;
	if (grow((void **)&k->v, &k->cap, k->n, 16, sizeof(*k->v)) < 0) {
		k->nomem = true;
		return;
	}
	k->v[k->n++] = (struct keep){ tgid, tid };
}

static void keep_task(struct keepset *k, const struct cgw_scan *s, size_t idx)
{
	if (idx >= s->n)
		return;
	const struct cgw_task *t = &s->t[idx];
	keep_add(k, t->tgid, t->tid);
	if (t->vfork_child > 0)
		keep_add(k, t->vfork_child, t->vfork_child);   /* a process: its own leader */
}

static void keep_findings(struct keepset *k, const struct cgw_report *r)
{
	const struct cgw_scan *s = r->scan;
	for (size_t f = 0; f < r->nf; f++) {
		const struct cgw_finding *fd = &r->f[f];
		struct cgw_cpus cpus = fd->cpus;
		for (size_t i = 0; i < fd->ntasks; i++) {
			keep_task(k, s, fd->tasks[i]);
			if (fd->tasks[i] < s->n && s->t[fd->tasks[i]].cpu >= 0 &&
			    s->t[fd->tasks[i]].cpu < CGW_MAX_CPUS)
				cpus_set(&cpus, (unsigned)s->t[fd->tasks[i]].cpu);
		}
		for (size_t i = 0; i < fd->nchain; i++)
			keep_task(k, s, fd->chain[i]);
		/* the runners starvation evidence names: those on the finding's CPUs */
		for (size_t i = 0; i < s->nrunners; i++)
			if (s->runners[i].cpu >= 0 && s->runners[i].cpu < CGW_MAX_CPUS &&
			    cpus_test(&cpus, (unsigned)s->runners[i].cpu))
				keep_add(k, s->runners[i].tgid, s->runners[i].tid);
	}
}

/* "proc/TGID/task/TID/..." -> both; "proc/TGID/..." -> tgid, tid -1; else false. */
static bool proc_ids(const char *p, int *tgid, int *tid)
{
	if (strncmp(p, "proc/", 5) != 0 || p[5] < '0' || p[5] > '9')
		return false;
	char *end;
	*tgid = (int)strtol(p + 5, &end, 10);
	*tid = -1;
	if (strncmp(end, "/task/", 6) == 0 && end[6] >= '0' && end[6] <= '9')
		*tid = (int)strtol(end + 6, &end, 10);
	return true;
}

static bool mem_tid(const char *p, int *tid)
{
	if (strncmp(p, "cgwatch/mem/", 12) != 0)
		return false;
	*tid = atoi(p + 12);
	return true;
}

/* cgwatch/detail/TGID: what libproc2 said of a process (source-procdetail.c). */
static bool detail_tgid(const char *p, int *tgid)
{
	if (strncmp(p, "cgwatch/detail/", 15) != 0)
		return false;
	*tgid = atoi(p + 15);
	return true;
}

/* Does k hold tree path's task (a host file is always kept)? */
static bool capture_keeps(const struct keepset *k, const char *path)
{
	int tgid, tid;
	if (mem_tid(path, &tid)) {
		for (size_t i = 0; i < k->n; i++)
			if (k->v[i].tid == tid)
				return true;
		return false;
	}
	if (detail_tgid(path, &tgid)) {
		for (size_t i = 0; i < k->n; i++)
			if (k->v[i].tgid == tgid)
				return true;
		return false;
	}
	if (!proc_ids(path, &tgid, &tid))
		return true;                  /* a host file */
	for (size_t i = 0; i < k->n; i++)
		if (k->v[i].tgid == tgid && (tid < 0 || k->v[i].tid == tid))
			return true;
	return false;
}

/* ---- the tree ---- */

/* A safe tree path: relative, its components neither empty, "." nor "..", under one of the
 * tree's top directories. */
static bool tree_path_ok(const char *p)
{
	static const char *const tops[] = { "proc/", "sys/", "dev/", "cgwatch/" };
	bool top = false;
	for (size_t i = 0; i < 4 && !top; i++)
		top = strncmp(p, tops[i], strlen(tops[i])) == 0;
	if (!top)
		return false;
	for (const char *c = p; *c;) {
		size_t n = strcspn(c, "/");
		if (n == 0 || (n == 1 && c[0] == '.') || (n == 2 && c[0] == '.' && c[1] == '.'))
			return false;
		c += n;
		if (*c == '/' && *++c == '\0')
			return false;
	}
	return true;
}

/* The directory holding path (created 0700 as needed, never through a symlink), opened; its
 * last component in *name. Returns the fd or -errno. */
static int parent_dir(int root, const char *path, const char **name)
{
	int fd = dup(root);
	if (fd < 0)
		return -errno;
	const char *c = path;
	for (;;) {
		const char *slash = strchr(c, '/');
		if (!slash) {
			*name = c;
			return fd;
		}
		char comp[256];
		size_t n = (size_t)(slash - c);
		if (n >= sizeof(comp)) {
			close(fd);
			return -ENAMETOOLONG;
		}
		memcpy(comp, c, n);
		comp[n] = '\0';
		if (mkdirat(fd, comp, 0700) < 0 && errno != EEXIST) {
			int e = errno;
			close(fd);
			return -e;
		}
		int next = openat(fd, comp, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int e = errno;
		close(fd);
		if (next < 0)
			return -e;
		fd = next;
		c = slash + 1;
	}
}

static int write_all(int fd, const char *data, size_t len)
{
	while (len) {
		ssize_t w = write(fd, data, len);
		if (w < 0) {
			if (errno == EINTR)
				continue;
			return -errno;
		}
		data += w;
		len -= (size_t)w;
	}
	return 0;
}

int capture_put_file(int root, const char *path, const char *data, size_t len, bool link)
{
	if (!tree_path_ok(path))
		return -EINVAL;
	const char *name;
	int dfd = parent_dir(root, path, &name);
	if (dfd < 0)
		return dfd;
	int r = 0;
	if (link) {
		if (symlinkat(data, dfd, name) < 0)
			r = -errno;
	} else {
		int fd = openat(dfd, name, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
		if (fd < 0)
			r = -errno;
		else {
			r = write_all(fd, data, len);
			if (close(fd) < 0 && r == 0)
				r = -errno;
		}
	}
	close(dfd);
	return r;
}

/* Read path with the deadline when nothing recorded it yet: what the capture adds for the
 * support engineer (load, pressure, the processes' files libproc2 reads), recorded as read. */
static void context_read(const char *path, unsigned timeout_ms, int *timeouts)
{
	char tp[4096];
	if (*timeouts >= SCAN_MAX_TIMEOUTS || !record_tree_path(path, tp, sizeof(tp)) ||
	    record_has(tp))
		return;
	char *buf = try_malloc(1 << 20);
	if (buf && dl_read_file(path, buf, 1 << 20, timeout_ms) == -ETIMEDOUT)
		++*timeouts;                  /* recorded by dl_read_file, timeouts too */
	free(buf);
}

static void context_reads(const struct keepset *k, unsigned timeout_ms)
{
	int timeouts = 0;                 /* a budget, as the scan's: then the rest is left out */
	static const char *const host[] = { "/proc/loadavg", "/proc/stat", "/proc/cgroups",
		"/proc/meminfo", "/proc/pressure/cpu", "/proc/pressure/io", "/proc/pressure/memory",
		"/proc/pressure/irq", "/proc/self/stat", "/proc/self/status", "/proc/self/cgroup",
		"/sys/devices/system/cpu/present" };
	for (size_t i = 0; i < sizeof(host) / sizeof(host[0]); i++)
		context_read(host[i], timeout_ms, &timeouts);
	static const char *const proc[] = { "stat", "status", "cgroup", "comm" };
	char p[128];
	for (size_t i = 0; i < k->n; i++) {
		for (size_t j = 0; j < sizeof(proc) / sizeof(proc[0]); j++) {
			snprintf(p, sizeof(p), "/proc/%d/%s", k->v[i].tgid, proc[j]);
			context_read(p, timeout_ms, &timeouts);
		}
		snprintf(p, sizeof(p), "/proc/%d/task/%d/comm", k->v[i].tgid, k->v[i].tid);
		context_read(p, timeout_ms, &timeouts);
	}
}

static int entry_cmp(const void *a, const void *b)
{
	return strcmp((*(struct rec_entry *const *)a)->path, (*(struct rec_entry *const *)b)->path);
}

/* The list sorted by path (the unreadable lines in a stable order); unsorted without memory. */
static struct rec_entry *entries_sorted(struct rec_entry *list)
{
	size_t n = 0;
	for (struct rec_entry *e = list; e; e = e->next)
		n++;
	struct rec_entry **v = n ? try_reallocarray(NULL, n, sizeof(*v)) : NULL;
	if (!v)
		return list;
	n = 0;
	for (struct rec_entry *e = list; e; e = e->next)
		v[n++] = e;
	qsort(v, n, sizeof(*v), entry_cmp);
	for (size_t i = 0; i < n; i++)
		v[i]->next = i + 1 < n ? v[i + 1] : NULL;
	list = v[0];
	free(v);
	return list;
}

/* What a capture keeps, taken from the recorder: the findings' files in path order, the
 * clocks and unreadable files as text; written by capture_snap_write, in any thread. */
struct cap_snap {
	struct rec_entry *files;          /* kept, readable: to write */
	struct strbuf clocks, unreadable;
	struct strbuf rates;              /* cgwatch/rates, empty when nothing was counted */
	uint64_t bytes;
};

static int snap_put(struct cap_snap *sn, const char *path, const char *data, size_t len,
                    struct strbuf *b);

/* What the capturing process's kernel allowed (r->kfeat), as cgwatch/kernel: the JSON of
 * check's scan.kernel, which a bundle's manifest carries as kernel_features. */
static int kernel_put(struct cap_snap *sn, const struct cgw_report *r)
{
	json_object *o = kf_json(r->kfeat, r->scan->kernel);
	const char *t = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
	                                                JSON_C_TO_STRING_NOSLASHESCAPE);
	int e = t ? snap_put(sn, "cgwatch/kernel", t, strlen(t), NULL) : -ENOMEM;
	json_object_put(o);
	return e;
}

struct cap_snap *capture_take(struct cgw_capture *c, const struct cgw_report *r)
{
	struct keepset k = { 0 };
	keep_findings(&k, r);
	context_reads(&k, c->timeout_ms);
	struct rec_entry *all = entries_sorted(record_take());
	struct cap_snap *sn = try_calloc(1, sizeof(*sn));
	if (!sn || k.nomem) {
		free(sn);
		record_free(all);
		free(k.v);
		return NULL;
	}
	struct rec_entry **tail = &sn->files;
	while (all) {
		struct rec_entry *e = all;
		all = e->next;
		e->next = NULL;
		if (!capture_keeps(&k, e->path)) {
			record_free(e);
			continue;
		}
		if (e->err) {
			char why[64];
			if (e->err == ETIMEDOUT)  /* every read the capture keeps has that deadline */
				snprintf(why, sizeof(why), "timed out after %g s", c->timeout_ms / 1000.0);
			unreadable_format(e->path, e->err, e->err == ETIMEDOUT ? why : strerror(e->err),
			                  &sn->unreadable);
			record_free(e);
			continue;
		}
		sn->bytes += e->len + strlen(e->path);
		*tail = e;
		tail = &e->next;
	}
	clocks_format(c->clocks, &sn->clocks);
	if (r->rates && r->rates->live)   /* what the live run counted, which a tree cannot show */
		rates_format(r->rates, &sn->rates);
	sn->bytes += sn->clocks.len + sn->unreadable.len + sn->rates.len;
	free(k.v);
	if (sn->clocks.lost || sn->unreadable.lost || sn->rates.lost ||
	    (r->kfeat && kernel_put(sn, r) < 0)) {
		capture_snap_free(sn);
		return NULL;
	}
	return sn;
}

uint64_t capture_snap_bytes(const struct cap_snap *sn)
{
	return sn->bytes;
}

/* Write sn into the open directory dfd (named dir in messages). */
static int snap_write_fd(struct cap_snap *sn, int dfd, const char *dir, char *msg, size_t cap)
{
	int err = 0;
	size_t files = 0;
	for (struct rec_entry *e = sn->files; e; e = e->next) {
		int w = capture_put_file(dfd, e->path, e->data, e->len, e->kind == REC_LINK);
		if (w == -EEXIST || w == -EINVAL || w == -ENAMETOOLONG || w == -ENOTDIR) {
			unreadable_format(e->path, -w, "not written into the tree", &sn->unreadable);
			continue;
		}
		if (w < 0) {
			err = w;
			snprintf(msg, cap, "--capture %s: writing %s: %s", cesc(dir), cesc(e->path),
			         strerror(-w));
			break;
		}
		files++;
	}
	if (!err) {
		if (sn->unreadable.lost)
			err = -ENOMEM;
		else if ((err = capture_put_file(dfd, "cgwatch/clocks", sn->clocks.s,
		                                 sn->clocks.len, false)) == 0)
			err = capture_put_file(dfd, "cgwatch/unreadable",
			                       sn->unreadable.s ? sn->unreadable.s : "",
			                       sn->unreadable.len, false);
		if (!err && sn->rates.len)
			err = capture_put_file(dfd, "cgwatch/rates", sn->rates.s, sn->rates.len, false);
		if (err)
			snprintf(msg, cap, "--capture %s: %s", cesc(dir), strerror(-err));
	}
	if (!err && fsync(dfd) < 0) {
		err = -errno;
		snprintf(msg, cap, "--capture %s: %s", cesc(dir), strerror(-err));
	}
	if (!err)
		log_debug("capture %s: %zu files", cesc(dir), files);
	return err;
}

int capture_snap_write(struct cap_snap *sn, const char *dir, char *msg, size_t cap)
{
	if (mkdir(dir, 0700) < 0) {
		int e = -errno;
		snprintf(msg, cap, "cannot create %s: %s", cesc(dir), strerror(-e));
		return e;
	}
	int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (dfd < 0) {
		int e = -errno;
		snprintf(msg, cap, "%s: %s", cesc(dir), strerror(-e));
		return e;
	}
	int r = snap_write_fd(sn, dfd, dir, msg, cap);
	close(dfd);
	return r;
}

/* Does sn hold tree path, as a file or as an unreadable line? */
static bool snap_has(const struct cap_snap *sn, const char *path)
{
	for (const struct rec_entry *e = sn->files; e; e = e->next)
		if (strcmp(e->path, path) == 0)
			return true;
	if (!sn->unreadable.s)
		return false;
	char pat[256];                    /* "REASON PATH DETAIL": the path between spaces */
	snprintf(pat, sizeof(pat), " %s ", path);
	return strstr(sn->unreadable.s, pat) != NULL;
}

/* The file at tree path of sn, after its other files: data (len bytes), or b's text taken
 * over (b emptied) when b is not NULL. 0 or -ENOMEM. */
static int snap_put(struct cap_snap *sn, const char *path, const char *data, size_t len,
                    struct strbuf *b)
{
	struct rec_entry *e = try_calloc(1, sizeof(*e));
	if (!e || !(e->path = try_strdup(path)) ||
	    !(e->data = b && b->s ? b->s : try_malloc(len + 1))) {
		if (e)
			free(e->path);
		free(e);
		return -ENOMEM;
	}
	if (b && b->s) {                  /* NUL-terminated already */
		len = b->len;
		*b = (struct strbuf){ 0 };
	} else {
		memcpy(e->data, data, len);
		e->data[len] = '\0';
	}
	e->len = len;
	e->kind = REC_FILE;
	struct rec_entry **tail = &sn->files;
	while (*tail)
		tail = &(*tail)->next;
	*tail = e;
	sn->bytes += len + strlen(path);
	return 0;
}

int capture_snap_kmsg(struct cap_snap *sn, unsigned timeout_ms)
{
	static const char *const sysctls[] = { "/proc/sys/kernel/hung_task_detect_count",
		"/proc/sys/kernel/hung_task_warnings", "/proc/uptime" };
	record_mute(true);                /* read for sn, not for a recording of this process */
	int r = 0;
	struct kmsg_raw raw;
	int e = kmsg_read_raw(KMSG_PATH, &raw, timeout_ms);
	if (!snap_has(sn, "dev/kmsg")) {
		if (raw.ran && !raw.buf.lost)  /* what was read, as check keeps it */
			r = snap_put(sn, "dev/kmsg", "", 0, &raw.buf);   /* not copied */
		else
			unreadable_format("dev/kmsg", raw.buf.lost ? ENOMEM : -e,
			                  strerror(raw.buf.lost ? ENOMEM : -e), &sn->unreadable);
	}
	sb_free(&raw.buf);
	char tp[128], buf[256];
	for (size_t i = 0; i < sizeof(sysctls) / sizeof(sysctls[0]) && r == 0; i++) {
		if (!record_tree_path(sysctls[i], tp, sizeof(tp)) || snap_has(sn, tp))
			continue;                 /* the scan's own read of it stays */
		ssize_t n = read_small_file(sysctls[i], buf, sizeof(buf));
		if (n >= 0)
			r = snap_put(sn, tp, buf, (size_t)n, NULL);
		else
			unreadable_format(tp, (int)-n, strerror((int)-n), &sn->unreadable);
	}
	record_mute(false);
	return r < 0 ? r : sn->unreadable.lost ? -ENOMEM : 0;
}

int capture_snap_recorder(struct cap_snap *sn, const struct cgw_recwin *w)
{
	struct strbuf b = { 0 };
	trace_window_format(w, &b);
	if (b.lost) {
		sb_free(&b);
		return -ENOMEM;
	}
	int r = snap_put(sn, "cgwatch/recorder/trace", "", 0, &b);
	sb_free(&b);
	return r;
}

void capture_snap_free(struct cap_snap *sn)
{
	if (!sn)
		return;
	record_free(sn->files);
	sb_free(&sn->clocks);
	sb_free(&sn->unreadable);
	sb_free(&sn->rates);
	free(sn);
}

int capture_write(struct cgw_capture *c, const struct cgw_report *r, char *msg, size_t cap)
{
	struct cap_snap *sn = capture_take(c, r);
	if (!sn || (r->recorder && capture_snap_recorder(sn, r->recorder) < 0)) {
		capture_snap_free(sn);
		snprintf(msg, cap, "--capture %s: %s", cesc(c->dir), strerror(ENOMEM));
		return -ENOMEM;
	}
	int err = snap_write_fd(sn, c->dfd, c->dir, msg, cap);
	capture_snap_free(sn);
	return err;
}

struct cgw_capture *capture_recording(unsigned timeout_ms)
{
	struct cgw_capture *c = try_calloc(1, sizeof(*c));
	if (!c || !(c->clocks = try_calloc(1, sizeof(*c->clocks)))) {
		free(c);
		return NULL;
	}
	c->dfd = -1;
	c->timeout_ms = timeout_ms;
	record_start();
	return c;
}

void capture_free(struct cgw_capture *c)
{
	if (!c)
		return;
	record_free(record_take());
	if (c->dfd >= 0)
		close(c->dfd);
	free(c->dir);
	free(c->clocks);
	free(c);
}

/* The live run's counts, root/cgwatch/rates, into s->replay_rates; a note first says how they
 * were counted. Unreadable (but absent) or unparsable: named with its line, and the replay
 * counts from the tree's /proc files as it would without it. */
static void rates_load(struct cgw_scan *s, const char *root, unsigned timeout_ms)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/cgwatch/rates", root);
	char *buf = try_malloc(64 * 1024);
	struct cgw_rates *rt = try_calloc(1, sizeof(*rt));
	if (!buf || !rt) {
		free(buf);
		free(rt);
		return;
	}
	ssize_t n = dl_read_file(path, buf, 64 * 1024, timeout_ms);
	size_t line = 0;
	const char *why = "";
	int pe = n < 0 ? (int)n : parse_rates_file(buf, rt, &line, &why);
	if (pe == 0) {
		char note[sizeof(rt->notes)];
		if (rt->source == RATES_SRC_PERF)
			snprintf(note, sizeof(note), "counted on the host with perf over %.1f s "
			         "(captured)", rt->window_s);
		else
			snprintf(note, sizeof(note), "counted on the host from /proc/cgroups and "
			         "/proc/stat over %.1f s (captured)", rt->window_s);
		size_t nl = strlen(note), have = strlen(rt->notes);
		if (have && nl + 1 < sizeof(note)) {   /* the captured notes after it, as fit */
			note[nl++] = '\n';
			size_t take = have < sizeof(note) - nl - 1 ? have : sizeof(note) - nl - 1;
			memcpy(note + nl, rt->notes, take);
			note[nl + take] = '\0';
		}
		memcpy(rt->notes, note, sizeof(note));
		s->replay_rates = rt;
		rt = NULL;
	} else if (pe == -ENOENT) {
		/* a tree without it: counted from its /proc files */
	} else if (n < 0) {
		scan_unreadable(s, "cgwatch/rates", "%s; the replay counts from the captured /proc "
		                "files instead", strerror((int)-n));
	} else {
		scan_unreadable(s, "cgwatch/rates", "line %zu: %s; the replay counts from the "
		                "captured /proc files instead", line, why);
	}
	free(buf);
	free(rt);
}

#define REC_FILE_MAX (64u << 20)          /* a readout's file read at most */

/* The flight recorder's readout, root/cgwatch/recorder/trace, into s->replay_recorder (its
 * anchor set once the findings are known). Absent: none; unreadable or not such a file:
 * named, and the replay goes on without it. */
static void recorder_load(struct cgw_scan *s, const char *root, unsigned timeout_ms)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/cgwatch/recorder/trace", root);
	char *buf = try_malloc(REC_FILE_MAX);
	struct cgw_recwin *w = try_calloc(1, sizeof(*w));
	if (!buf || !w) {
		free(buf);
		free(w);
		return;
	}
	ssize_t n = dl_read_file(path, buf, REC_FILE_MAX, timeout_ms);
	int pe = n < 0 ? (int)n : trace_window_parse(buf, (size_t)n, w);
	if (pe == 0) {
		s->replay_recorder = w;
		w = NULL;
	} else if (pe != -ENOENT) {
		scan_unreadable(s, "cgwatch/recorder/trace", "%s; the replay has no flight recorder "
		                "events", n < 0 ? strerror((int)-n) : pe == -EINVAL ?
		                "not a flight recorder readout" : strerror(-pe));
	}
	if (w) {
		recwin_free(w);
		free(w);
	}
	free(buf);
}

void capture_replay_load(struct cgw_scan *s, const char *root, unsigned timeout_ms)
{
	char path[4096];
	snprintf(path, sizeof(path), "%s/cgwatch/clocks", root);
	char *buf = try_malloc(256 * 1024);
	struct cap_clocks *k = try_calloc(1, sizeof(*k));
	if (!buf || !k) {
		free(buf);
		free(k);
		return;
	}
	ssize_t n = dl_read_file(path, buf, 256 * 1024, timeout_ms);
	int pe = n < 0 ? (int)n : parse_clocks(buf, k);
	if (pe == 0) {
		s->replay_clocks = k;
		s->now_ms = k->reader_ms;     /* the reader's clock at the capture's reference */
		if (k->have_uptime)
			s->uptime_s = k->uptime_s;
		k = NULL;
	} else if (pe != -ENOENT) {
		scan_unreadable(s, "cgwatch/clocks", "%s; the replay times every CPU on one clock",
		                n < 0 ? strerror((int)-n) : "not a clocks file");
	}
	free(buf);
	free(k);
	rates_load(s, root, timeout_ms);
	recorder_load(s, root, timeout_ms);
	free(s->replay_root);
	s->replay_root = try_strdup(root);
}
