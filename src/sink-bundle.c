/* sink-bundle.c: `cgwatch bundle`: a captured tree, the reports of a check of it, the
 * configuration and signature library it was checked with, and manifest.json, as one
 * compressed tar (zstd; gzip where libarchive has no zstd), written atomically. Every read of
 * the tree has the deadline (it may sit on a file system that does not answer); what could
 * not be read, or did not fit the caps, is listed in the manifest. */
#include "archive-lib.h"
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <getopt.h>
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

#include "cgwatch.h"

#define MIB (1024.0 * 1024.0)
#define ENTRY_COST 192                    /* bytes of manifest.json per member, about */
#define MANIFEST_RESERVE (64 * 1024)
/* of the reserve, what the notes (unreadable, left out) may take in manifest.json: past it
 * they are counted, and said in one last note, so the whole bundle stays within max_size */
#define NOTES_BUDGET (48 * 1024)
#define NOTE_COST 96                      /* bytes of manifest.json per note, besides its text */

/* ---- the tree, listed and read with the deadline ---- */

struct ent { char *name; mode_t mode; uint64_t size; time_t mtime; char *target;
             dev_t dev; ino_t ino; };
struct list_job { char *path; struct ent *v; size_t n; int err; };

static int ent_cmp(const void *a, const void *b)
{
	return strcmp(((const struct ent *)a)->name, ((const struct ent *)b)->name);
}

static void list_fn(void *p)
{
	struct list_job *j = p;
	int dfd = open(j->path, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	DIR *d = dfd < 0 ? NULL : fdopendir(dfd);
	if (!d) {
		j->err = errno;
		if (dfd >= 0)
			close(dfd);
		return;
	}
	size_t cap = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (j->n == cap) {
			struct ent *v = try_reallocarray(j->v, cap ? cap * 2 : 32, sizeof(*v));
			if (!v) {
				j->err = ENOMEM;
				break;
			}
			j->v = v;
			cap = cap ? cap * 2 : 32;
		}
		struct ent *e = &j->v[j->n];
		memset(e, 0, sizeof(*e));
		if (!(e->name = try_strdup(de->d_name))) {
			j->err = ENOMEM;
			break;
		}
		j->n++;                           /* each is looked at with its own deadline */
	}
	closedir(d);
	if (j->v)
		qsort(j->v, j->n, sizeof(*j->v), ent_cmp);
}

/* One entry looked at: lstat, and a link's target. */
struct stat_job { char *path; struct stat st; int err; char *target; };

static void stat_fn(void *p)
{
	struct stat_job *j = p;
	if (lstat(j->path, &j->st) < 0) {
		j->err = errno;
		return;
	}
	if (S_ISLNK(j->st.st_mode)) {
		char t[4096];
		ssize_t n = readlink(j->path, t, sizeof(t) - 1);
		if (n >= 0) {
			t[n] = '\0';
			j->target = try_strdup(t);
		}
	}
}

static void stat_release(void *p)
{
	struct stat_job *j = p;
	free(j->path);
	free(j->target);
	free(j);
}

/* Fill e from an lstat of path with the deadline. Returns 0 or -errno (-ETIMEDOUT). */
static int ent_stat(const char *path, struct ent *e, unsigned timeout_ms)
{
	struct stat_job *j = try_calloc(1, sizeof(*j));
	if (!j || !(j->path = try_strdup(path))) {
		free(j);
		return -ENOMEM;
	}
	int r = dl_call(stat_fn, j, stat_release, timeout_ms);
	if (r < 0)
		return r;                         /* j is the worker's, or freed */
	if (j->err) {
		r = -j->err;
	} else {
		e->mode = j->st.st_mode;
		e->size = (uint64_t)j->st.st_size;
		e->mtime = j->st.st_mtime;
		e->dev = j->st.st_dev;
		e->ino = j->st.st_ino;
		e->target = j->target;
		j->target = NULL;
	}
	stat_release(j);
	return r;
}

static void list_release(void *p)
{
	struct list_job *j = p;
	for (size_t k = 0; k < j->n; k++) {
		free(j->v[k].name);
		free(j->v[k].target);
	}
	free(j->v);
	free(j->path);
	free(j);
}

/* ---- the archive being written ---- */

struct bw {
	struct archive *a;
	struct bundle_manifest m;
	uint64_t total, budget, max_file;      /* total: member_cost of the members, summed */
	size_t max_members;
	unsigned timeout_ms;
	time_t now;
	dev_t self_dev; ino_t self_ino;        /* the file being written: never bundled */
	int err;                               /* the archive failed: the bundle is not written */
	char why[512];
	size_t files;
	uint64_t notes_total;                  /* manifest bytes the notes take, about */
	size_t more_left, more_unreadable;     /* notes past NOTES_BUDGET: counted only */
	uint64_t more_left_size;
	struct cgw_redact *red;                /* --redact: every name and content through it */
	char *cap_unreadable;                  /* tree/cgwatch/unreadable as read: the capture's */
	bool proc_listed;                      /* tree/proc is a member, listed: its tasks next */
	int *named, *chain;                    /* the findings' processes, their chains', sorted: */
	size_t nnamed, nchain;                 /* bundled first */
};

static void write_fail(struct bw *b, const char *name)
{
	if (!b->err) {
		int e = archive_errno(b->a);
		b->err = e > 0 ? e : EIO;
		snprintf(b->why, sizeof(b->why), "writing %s: %s%s%s", cesc(name),
		         archive_error_string(b->a) ? archive_error_string(b->a) : "failed",
		         e > 0 ? ": " : "", e > 0 ? strerror(e) : "");
	}
}

static void note(struct bw *b, bool left_out, const char *name, uint64_t size, const char *why);

/* What a member takes of max_size: what it costs a replay (bundle_member_cost, as the reader
 * counts it), and its entry in manifest.json. */
static uint64_t member_cost(enum bm_type t, uint64_t len, const char *name, const char *target)
{
	size_t tl = target ? strlen(target) : 0;
	return bundle_member_cost(t, t == BM_SYMLINK ? tl : len, strlen(name)) + strlen(name) + tl +
	       ENTRY_COST;
}

/* Is there room for one more member (of type t, len bytes, a link's target): within
 * max_members with the manifest, and within max_size? If not, why says which. */
static bool room(struct bw *b, enum bm_type t, uint64_t len, const char *name,
                 const char *target, char *why, size_t cap)
{
	if (b->files + 2 > b->max_members) {
		snprintf(why, cap, "over max_members (%zu) for the whole bundle", b->max_members);
		return false;
	}
	if (b->total + member_cost(t, len, name, target) > b->budget) {
		snprintf(why, cap, "over max_size (%.10g MiB) for the whole bundle",
		         (b->budget + MANIFEST_RESERVE) / MIB);
		return false;
	}
	return true;
}

static void no_memory(struct bw *b, const char *what)
{
	if (!b->err) {
		b->err = ENOMEM;
		snprintf(b->why, sizeof(b->why), "no memory %s", what);
	}
}

/* One member as it is, listed in the manifest. */
static void put_member(struct bw *b, const char *name, mode_t type, const char *data,
                       size_t len, const char *target, mode_t perm, time_t mtime)
{
	if (b->err)
		return;
	enum bm_type t = type == AE_IFDIR ? BM_DIR : type == AE_IFLNK ? BM_SYMLINK : BM_FILE;
	char why[160];
	if (!room(b, t, len, name, target, why, sizeof(why))) {
		if (t != BM_DIR)                  /* as fits() */
			note(b, true, name, len, why);
		return;
	}
	struct archive_entry *e = archive_entry_new();
	if (!e) {
		b->err = ENOMEM;
		snprintf(b->why, sizeof(b->why), "no memory");
		return;
	}
	archive_entry_set_pathname(e, name);
	archive_entry_set_filetype(e, type);
	archive_entry_set_perm(e, perm);
	archive_entry_set_mtime(e, mtime, 0);
	archive_entry_set_size(e, type == AE_IFREG ? (la_int64_t)len : 0);
	if (type == AE_IFLNK)
		archive_entry_set_symlink(e, target);
	if (archive_write_header(b->a, e) != ARCHIVE_OK ||
	    (type == AE_IFREG && len && archive_write_data(b->a, data, len) != (la_ssize_t)len))
		write_fail(b, name);
	archive_entry_free(e);
	if (b->err)
		return;
	char hex[65];
	if (t == BM_SYMLINK)
		sha256_hex(target, strlen(target), hex);
	else
		sha256_hex(data ? data : "", len, hex);
	if (manifest_add(&b->m, name, t, t == BM_SYMLINK ? strlen(target) : len, hex,
	                 target) < 0) {
		b->err = ENOMEM;
		snprintf(b->why, sizeof(b->why), "no memory for the manifest");
	}
	b->total += member_cost(t, len, name, target);
	b->files++;
}

/* One member, redacted first when the bundle is: its name, its content (redact_file: a member
 * of the tree by what the kernel puts in that file, the reports' and configuration's values)
 * and a link's target. */
static void add_member(struct bw *b, const char *name, mode_t type, const char *data,
                       size_t len, const char *target, mode_t perm, time_t mtime)
{
	if (!b->red) {
		put_member(b, name, type, data, len, target, perm, mtime);
		return;
	}
	struct strbuf n = { 0 }, d = { 0 }, t = { 0 };
	char why[176];
	int e = redact_name(b->red, name, type == AE_IFDIR, &n);
	if (!e && type == AE_IFREG)
		e = redact_file(b->red, name, data ? data : "", len, &d);
	if (!e && type == AE_IFLNK)
		e = redact_path(b->red, target, strlen(target), &t);
	sb_add(&n, "", 1);
	sb_add(&t, "", 1);
	if (e || n.lost || t.lost || d.lost) {
		no_memory(b, "to redact");
	} else if (type == AE_IFREG && d.len > b->max_file) {
		snprintf(why, sizeof(why), "larger than max_file_size (%.10g MiB) once redacted",
		         b->max_file / MIB);
		note(b, true, name, d.len, why);
	} else if (!room(b, type == AE_IFDIR ? BM_DIR : type == AE_IFLNK ? BM_SYMLINK : BM_FILE,
	                 d.len, n.s, type == AE_IFLNK ? t.s : NULL, why, sizeof(why) - 16)) {
		/* tokens are longer than most of what they replace: the cap holds on what is
		 * written */
		strcat(why, " once redacted");
		if (type != AE_IFDIR)             /* as fits(): what is under it is listed */
			note(b, true, name, d.len, why);
	} else {
		put_member(b, n.s, type, d.s ? d.s : "", d.len, type == AE_IFLNK ? t.s : NULL, perm,
		           mtime);
	}
	sb_free(&n);
	sb_free(&d);
	sb_free(&t);
}

static void note(struct bw *b, bool left_out, const char *name, uint64_t size, const char *why)
{
	uint64_t cost = strlen(name) + strlen(why) + NOTE_COST;
	if (b->notes_total + cost > NOTES_BUDGET) {
		if (left_out) {
			b->more_left++;
			b->more_left_size += size;
		} else {
			b->more_unreadable++;
		}
		return;
	}
	b->notes_total += cost;
	struct strbuf n = { 0 }, w = { 0 };
	if (b->red) {
		if (redact_name(b->red, name, true, &n) < 0 ||    /* every component: a directory? */
		    redact_text(b->red, why, strlen(why), &w) < 0) {
			no_memory(b, "to redact");
			sb_free(&n);
			sb_free(&w);
			return;
		}
		sb_add(&n, "", 1);
		sb_add(&w, "", 1);
		if (n.lost || w.lost) {
			no_memory(b, "to redact");
			sb_free(&n);
			sb_free(&w);
			return;
		}
		name = n.s;
		why = w.s;
	}
	if (manifest_note(&b->m, left_out, name, size, why) < 0 && !b->err) {
		b->err = ENOMEM;
		snprintf(b->why, sizeof(b->why), "no memory for the manifest");
	}
	sb_free(&n);
	sb_free(&w);
}

/* Does a member of size bytes fit the caps? If not, it is left out, listed (a directory is
 * not: what is under it is, each file with its size). */
static bool fits(struct bw *b, const char *name, uint64_t size, bool dir)
{
	char why[200];
	if (size > b->max_file) {
		snprintf(why, sizeof(why), "larger than max_file_size (%.10g MiB)", b->max_file / MIB);
		note(b, true, name, size, why);
		return false;
	}
	if (!room(b, dir ? BM_DIR : BM_FILE, size, name, NULL, why, sizeof(why))) {
		if (!dir)
			note(b, true, name, size, why);
		return false;
	}
	return true;
}

/* One regular file of the tree: read with the deadline, within the caps. */
static void tree_file(struct bw *b, const char *path, const char *name, const struct ent *e)
{
	char why[160];
	if (!fits(b, name, e->size, false))
		return;
	size_t cap = (size_t)e->size + 2;      /* one byte more shows a file that grew */
	char *buf = try_malloc(cap);
	if (!buf) {
		note(b, false, name, 0, "no memory to read it");
		return;
	}
	ssize_t r = dl_read_file(path, buf, cap, b->timeout_ms);
	if (r == -ETIMEDOUT)
		snprintf(why, sizeof(why), "timed out after %g s", b->timeout_ms / 1000.0);
	else if (r == -EBUSY)
		snprintf(why, sizeof(why), "not read: too many reads of the tree are stuck already");
	else if (r < 0)
		snprintf(why, sizeof(why), "%s", strerror((int)-r));
	else if ((uint64_t)r > e->size && (uint64_t)r > b->max_file)
		snprintf(why, sizeof(why), "grew past max_file_size while read");
	if (r < 0 || ((uint64_t)r > e->size && (uint64_t)r > b->max_file)) {
		note(b, false, name, 0, why);
	} else {
		add_member(b, name, AE_IFREG, buf, (size_t)r, NULL, e->mode & 0755, e->mtime);
		if (strcmp(name, "tree/cgwatch/unreadable") == 0 && !b->cap_unreadable) {
			b->cap_unreadable = buf;          /* NUL-terminated: cap is r + 2 at least */
			buf[r] = '\0';
			buf = NULL;
		}
	}
	free(buf);
}

/* What the capture could not read (its cgwatch/unreadable, as bundled), in the manifest's
 * "unreadable" too: "captured as REASON: DETAIL". Not a host file this kernel does not have
 * (absent): nothing is missing there. A line that does not parse is left to the member. */
static void capture_notes(struct bw *b)
{
	char reason[16], path[4096], name[4200], why[320];
	for (const char *l = b->cap_unreadable; l && *l;) {
		size_t len = strcspn(l, "\n");
		char *line = try_malloc(len + 1);
		const char *detail;
		if (!line) {
			note(b, false, "tree/cgwatch/unreadable", 0, "no memory to list its lines");
			return;
		}
		memcpy(line, l, len);
		line[len] = '\0';
		if (parse_unreadable_line(line, reason, sizeof(reason), path, sizeof(path),
		                          &detail) == 0 && strcmp(reason, "absent") != 0) {
			snprintf(name, sizeof(name), "tree/%s", path);
			snprintf(why, sizeof(why), "captured as %s: %.256s", reason, detail);
			note(b, false, name, 0, why);
		}
		free(line);
		l += len + (l[len] == '\n');
	}
}

/* The newest reports of the daemon's open incidents, incidents/NAME: each a regular file,
 * never read through a symlink, read with the deadline and within the caps as the tree's files
 * are; what could not be listed or read is noted. */
static void add_incidents(struct bw *b, const struct bundle_incidents *inc)
{
	for (size_t k = 0; k < inc->nnotes && !b->err; k++)
		note(b, false, inc->notes[k].path, 0, inc->notes[k].why);
	for (size_t k = 0; k < inc->n && !b->err; k++) {
		const char *name = inc->v[k].name;
		char why[4600];
		char *data = NULL;
		size_t len = 0;
		uint64_t size = 0;
		int r = bundle_read_regular(inc->v[k].path, b->max_file, b->timeout_ms, &data, &len,
		                            &size, why, sizeof(why));
		if (r == -EFBIG) {
			snprintf(why, sizeof(why), "larger than max_file_size (%.10g MiB)",
			         b->max_file / MIB);
			note(b, true, name, size, why);
		} else if (r < 0) {
			note(b, false, name, 0, why);
		} else if (!room(b, BM_FILE, len, name, NULL, why, sizeof(why))) {
			note(b, true, name, len, why);
		} else {
			add_member(b, name, AE_IFREG, data, len, NULL, 0640, b->now);
		}
		free(data);
	}
}

/* Does the name fit the manifest as it lists it (utf8_escape'd, 4095 bytes)? */
static bool name_listable(const char *n)
{
	static char esc[4 * 4096 + 1];
	size_t len = strlen(n);
	return len <= 4095 && strlen(utf8_escape(n, len, esc, sizeof(esc))) <= 4095 &&
	       member_name_check(n, len, NULL, 0) == 0;
}

/* Which entries of a directory a walk takes: all; all but the task directories of tree/proc
 * (proc/PID); those of the processes in the findings' chains; of the findings' other
 * processes; the other processes'. Under the caps the host files go first, so that a bundle
 * the caps cut still replays (the reader's clock, the CPU layout, the capture's clocks), then
 * the chains, then the findings' tasks, then the others that fit. */
enum walk { WALK_ALL, WALK_HOST, WALK_CHAIN, WALK_NAMED, WALK_OTHERS };

static int int_cmp(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return (x > y) - (x < y);
}

static bool walk_takes(const struct bw *b, enum walk walk, const char *name, const char *entry)
{
	if (walk == WALK_ALL)
		return true;
	bool task = strcmp(name, "tree/proc") == 0 && *entry &&
	            entry[strspn(entry, "0123456789")] == '\0' && strlen(entry) < 11;
	if (walk == WALK_HOST || !task)
		return walk == WALK_HOST && !task;
	int pid = atoi(entry);
	bool chain = b->chain && bsearch(&pid, b->chain, b->nchain, sizeof(int), int_cmp);
	bool named = b->named && bsearch(&pid, b->named, b->nnamed, sizeof(int), int_cmp);
	return walk == (chain ? WALK_CHAIN : named ? WALK_NAMED : WALK_OTHERS);
}

/* The processes the findings of a report.json name, sorted: those of their chains into
 * b->chain, of their tasks into b->named; none when the JSON is not a check's report. */
static void named_pids(struct bw *b, const char *json, size_t len)
{
	struct json_tokener *tok = json_tokener_new_ex(64);
	json_object *root = tok ? json_tokener_parse_ex(tok, json, (int)len) : NULL;
	json_object *tasks, *findings;
	if (tok)
		json_tokener_free(tok);
	if (!root || !json_object_object_get_ex(root, "tasks", &tasks) ||
	    !json_object_object_get_ex(root, "findings", &findings) ||
	    !json_object_is_type(tasks, json_type_array) ||
	    !json_object_is_type(findings, json_type_array)) {
		json_object_put(root);
		return;
	}
	/* every task's (tid, pid), sorted by tid: each finding's tid looked up in it */
	size_t nt = json_object_array_length(tasks), cap[2] = { 0, 0 }, n = 0;
	int (*ids)[2] = try_reallocarray(NULL, nt ? nt : 1, sizeof(*ids));
	for (size_t t = 0; ids && t < nt; t++) {
		json_object *o = json_object_array_get_idx(tasks, t), *tid, *pid;
		if (json_object_object_get_ex(o, "tid", &tid) && json_object_object_get_ex(o, "pid", &pid))
			ids[n][0] = json_object_get_int(tid), ids[n++][1] = json_object_get_int(pid);
	}
	if (ids)
		qsort(ids, n, sizeof(*ids), int_cmp);     /* by the first int: the tid */
	for (size_t f = 0; ids && f < json_object_array_length(findings); f++) {
		json_object *fd = json_object_array_get_idx(findings, f);
		for (int k = 0; k < 2; k++) {
			json_object *tids;
			if (!json_object_object_get_ex(fd, k ? "chain" : "tasks", &tids) ||
			    !json_object_is_type(tids, json_type_array))
				continue;
			for (size_t i = 0; i < json_object_array_length(tids); i++) {
				int tid = json_object_get_int(json_object_array_get_idx(tids, i));
				int (*hit)[2] = bsearch(&tid, ids, n, sizeof(*ids), int_cmp);
				int **v = k ? &b->chain : &b->named;
				size_t *nv = k ? &b->nchain : &b->nnamed;
				if (hit && grow((void **)v, &cap[k], *nv, 64, sizeof(int)) == 0)
					(*v)[(*nv)++] = (*hit)[1];
			}
		}
	}
	free(ids);
	json_object_put(root);
	if (b->named)
		qsort(b->named, b->nnamed, sizeof(int), int_cmp);
	if (b->chain)
		qsort(b->chain, b->nchain, sizeof(int), int_cmp);
}

/* Directory path (archive name name) and everything under it (what walk takes of it), in
 * name order. */
static void tree_dir(struct bw *b, const char *path, const char *name, int depth, enum walk walk)
{
	struct list_job *j = try_calloc(1, sizeof(*j));
	if (!j || !(j->path = try_strdup(path))) {
		free(j);
		note(b, false, name, 0, "no memory to list it");
		return;
	}
	int e = dl_call(list_fn, j, list_release, b->timeout_ms);
	char why[160];
	if (e < 0 || j->err) {
		int err = e < 0 ? -e : j->err;
		if (err == ETIMEDOUT)
			snprintf(why, sizeof(why), "listing it timed out after %g s",
			         b->timeout_ms / 1000.0);
		else
			snprintf(why, sizeof(why), "cannot list it: %s", strerror(err));
		note(b, false, name, 0, why);
		if (e < 0)
			return;                       /* j is the worker's now */
		if (!j->n) {
			list_release(j);
			return;
		}
	}
	if (walk == WALK_HOST && e == 0 && !j->err && strcmp(name, "tree/proc") == 0)
		b->proc_listed = true;            /* its tasks are walked next */
	for (size_t k = 0; k < j->n && !b->err; k++) {
		struct ent *en = &j->v[k];
		if (!walk_takes(b, walk, name, en->name))
			continue;
		char *p = NULL, *n = NULL;
		if (asprintf(&p, "%s/%s", path, en->name) < 0 ||
		    asprintf(&n, "%s/%s", name, en->name) < 0) {
			free(p);
			note(b, false, name, 0, "no memory");
			break;
		}
		int se = name_listable(n) ? ent_stat(p, en, b->timeout_ms) : 0;
		if (se == -ETIMEDOUT) {
			snprintf(why, sizeof(why), "timed out after %g s", b->timeout_ms / 1000.0);
			note(b, false, n, 0, why);
		} else if (se == -EBUSY) {
			note(b, false, n, 0, "not read: too many reads of the tree are stuck already");
		} else if (se == 0 && en->dev == b->self_dev && en->ino == b->self_ino) {
			;                             /* the bundle itself, written inside the tree */
		} else if (se < 0) {
			note(b, false, n, 0, se == -ENOENT ? "vanished while listed" : strerror(-se));
		} else if (!name_listable(n)) {
			note(b, true, n, en->size, "a name too long to list (4095 bytes, a byte that "
			     "is not UTF-8 counting four)");
		} else if (en->mode == 0) {
			note(b, false, n, 0, "vanished while listed");
		} else if (S_ISDIR(en->mode)) {
			if (depth > 64) {
				note(b, true, n, 0, "deeper than 64 directories");
			} else {
				/* one that does not fit is no member (thousands of empty directories
				 * took a capped bundle's room), and nothing under it fits: its files
				 * are listed, left out */
				if (fits(b, n, 0, true))
					add_member(b, n, AE_IFDIR, NULL, 0, NULL, en->mode & 0755, en->mtime);
				tree_dir(b, p, n, depth + 1, walk == WALK_HOST ? walk : WALK_ALL);
			}
		} else if (S_ISREG(en->mode)) {
			tree_file(b, p, n, en);
		} else if (S_ISLNK(en->mode)) {
			if (!en->target)
				note(b, false, n, 0, "cannot read the link");
			else if (member_link_check(n, en->target, why, sizeof(why)) < 0)
				note(b, true, n, 0, why);
			else
				add_member(b, n, AE_IFLNK, NULL, 0, en->target, 0777, en->mtime);
		} else {
			note(b, true, n, 0, S_ISFIFO(en->mode) ? "a FIFO: not read" :
			     S_ISSOCK(en->mode) ? "a socket: not read" : "a device: not read");
		}
		free(p);
		free(n);
	}
	list_release(j);
}

/* ---- what the tree was checked with ---- */

static void add_text(struct bw *b, const char *name, const char *text, size_t len)
{
	if (fits(b, name, len, false))    /* a report of thousands of tasks can be over a cap */
		add_member(b, name, AE_IFREG, text, len, NULL, 0644, b->now);
}

static const char *base_name(const char *p)
{
	const char *s = strrchr(p, '/');
	return s ? s + 1 : p;
}

/* The signature library: every file a loaded signature came from, built in or a site's, and
 * signatures/index.txt naming each signature's member. */
static void add_signatures(struct bw *b, const struct cgw_sigset *sigs)
{
	struct strbuf idx = { 0 };
	const char **done = try_calloc(sigs->n + 1, sizeof(*done));
	char **names = try_calloc(sigs->n + 1, sizeof(*names));
	size_t nd = 0;
	for (size_t k = 0; done && names && k < sigs->n; k++) {
		const struct cgw_sig *s = &sigs->v[k];
		size_t d;
		for (d = 0; d < nd && strcmp(done[d], s->file); d++)
			;
		if (d == nd) {
			char name[512];
			if (s->builtin)
				snprintf(name, sizeof(name), "signatures/built-in/%s", base_name(s->file));
			else
				snprintf(name, sizeof(name), "signatures/site/%zu-%s", nd,
				         base_name(s->file));
			const struct cgw_sigfile *f = s->builtin ? sig_builtin_file(s->file) : NULL;
			if (f) {
				add_text(b, name, f->text, f->len);
			} else {
				char *buf = try_malloc(1 << 20);
				ssize_t r = buf ? dl_read_file(s->file, buf, 1 << 20, b->timeout_ms) : -ENOMEM;
				if (r >= 0)
					add_text(b, name, buf, (size_t)r);
				else
					note(b, false, name, 0, strerror((int)-r));
				free(buf);
			}
			done[nd] = s->file;
			names[nd++] = xstrdup(name);
		}
		sb_printf(&idx, "%s\t%s\t%s\n", s->id, names[d], sig_source(s));
	}
	if (!done || !names || idx.lost)
		note(b, false, "signatures/index.txt", 0, "no memory");
	else
		add_text(b, "signatures/index.txt", idx.s ? idx.s : "", idx.len);
	for (size_t d = 0; names && d < nd; d++)
		free(names[d]);
	free(names);
	free(done);
	sb_free(&idx);
}

/* ---- the file ---- */

static const char *utc_stamp(time_t t, char *out, size_t cap)
{
	struct tm tm;
	gmtime_r(&t, &tm);
	strftime(out, cap, "%Y%m%dT%H%M%SZ", &tm);
	return out;
}

/* cgwatch-bundle-HOST-TIME.tar.EXT, HOST reduced to [A-Za-z0-9._-]. */
static void default_name(const char *host, const char *ext, time_t t, char *out, size_t cap)
{
	char h[64], ts[32];
	size_t n = 0;
	for (const char *p = host; *p && n < sizeof(h) - 1; p++)
		h[n++] = (*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') ||
		         (*p >= '0' && *p <= '9') || *p == '.' || *p == '-' ? *p : '_';
	h[n] = '\0';
	snprintf(out, cap, "cgwatch-bundle-%s-%s.tar.%s", n ? h : "unknown", utc_stamp(t, ts,
	         sizeof(ts)), ext);
}

/* s redacted by r (or as it is without r) into out. */
static void redacted_copy(struct cgw_redact *r, const char *s, char *out, size_t cap)
{
	struct strbuf b = { 0 };
	if (r && redact_text(r, s, strlen(s), &b) == 0 && !b.lost)
		snprintf(out, cap, "%.*s", (int)b.len, b.s ? b.s : "");
	else
		snprintf(out, cap, "%s", r ? "REDACTED" : s);
	sb_free(&b);
}

/* The tree's cgwatch/kernel (what the capturing host's kernel allowed: source-capture.c), for
 * the manifest's kernel_features; NULL when the tree has none (a tree captured before, or of
 * a replay), or it is not what a capture writes. */
static char *kernel_features(const char *dir, unsigned timeout_ms)
{
	char path[4096], why[256], *data = NULL;
	size_t len;
	uint64_t size;
	snprintf(path, sizeof(path), "%s/cgwatch/kernel", dir);
	if (bundle_read_regular(path, 8192, timeout_ms, &data, &len, &size, why, sizeof(why)) < 0)
		return NULL;
	return data;
}

static int write_bundle(const char *dir, const char *out, const struct cgw_conf *conf,
                        const struct cgw_sigset *sigs, const struct bundle_reports *given,
                        const struct bundle_incidents *inc, char *written, size_t wcap,
                        char *msg, size_t cap);

int bundle_write_reports(const char *dir, const char *out, const struct cgw_conf *conf,
                         const struct cgw_sigset *sigs, const struct bundle_reports *rep,
                         const struct bundle_incidents *inc, char *written, size_t wcap,
                         char *msg, size_t cap)
{
	return write_bundle(dir, out, conf, sigs, rep, inc, written, wcap, msg, cap);
}

int bundle_write_tree(const char *dir, const char *out, const struct cgw_conf *conf,
                      const struct cgw_sigset *sigs, const struct bundle_incidents *inc,
                      char *written, size_t wcap, char *msg, size_t cap)
{
	return write_bundle(dir, out, conf, sigs, NULL, inc, written, wcap, msg, cap);
}

/* The bundle of dir, with the reports given, or (NULL) those of a check of dir, and the open
 * incidents' reports of inc (may be NULL). */
static int write_bundle(const char *dir, const char *out, const struct cgw_conf *conf,
                        const struct cgw_sigset *sigs, const struct bundle_reports *given,
                        const struct bundle_incidents *inc, char *written, size_t wcap,
                        char *msg, size_t cap)
{
	struct bw b = { .timeout_ms = (unsigned)(conf->read_timeout_s * 1000),
	                .max_file = (uint64_t)(conf->bundle_max_file_mib * MIB),
	                .max_members = (size_t)conf->bundle_max_members };
	uint64_t max_total = (uint64_t)(conf->bundle_max_mib * MIB);
	b.budget = max_total > MANIFEST_RESERVE ? max_total - MANIFEST_RESERVE : 0;
	char start[32], end[32];
	iso_time(now_epoch(), start, sizeof(start));
	b.now = time(NULL);

	struct ent top = { 0 };
	int te = ent_stat(dir, &top, b.timeout_ms);
	free(top.target);
	if (te < 0 || !S_ISDIR(top.mode)) {
		snprintf(msg, cap, "bundle --root %s: %s", dir, te == -ETIMEDOUT ? "timed out: the "
		         "file system holding it does not answer" : te < 0 ? strerror(-te) :
		         "not a directory (a bundle is replayed with check --root FILE)");
		return EXIT_UNREADABLE;
	}
	/* what must not leave the host, gathered before the check enters the tree's mount
	 * namespace (this host's /proc is its own until then) and before anything is written */
	if (conf->bundle_redact && !(b.red = bundle_redact_map(dir, b.timeout_ms, msg, cap)))
		return EXIT_UNREADABLE;
	/* a tree check would exit 3 on (its own clock unreadable, say) is still bundled, with
	 * why in place of the reports */
	struct bundle_reports rep = { 0 };
	int rc = 0;
	if (given) {                           /* the daemon's own: a copy, freed as ours */
		rep = *given;
		rep.text = try_malloc(given->text_len + 1);
		rep.json = try_malloc(given->json_len + 1);
		if (!rep.text || !rep.json) {
			bundle_reports_free(&rep);
			redact_free(b.red);
			snprintf(msg, cap, "no memory for the reports");
			return EXIT_UNREADABLE;
		}
		memcpy(rep.text, given->text, given->text_len);
		memcpy(rep.json, given->json, given->json_len);
	} else if ((rc = bundle_check_tree(dir, conf, sigs, &rep, msg, cap)) && !rep.entered) {
		redact_free(b.red);
		return rc;
	}
	char check_error[1024] = "";
	if (rc)
		snprintf(check_error, sizeof(check_error), "%s", msg);
	rc = 0;

	char lib[256];
	if (!archive_lib_load(lib, sizeof(lib))) {
		redact_free(b.red);
		bundle_reports_free(&rep);
		snprintf(msg, cap, "cannot write a bundle: %s", lib);
		return EXIT_UNREADABLE;
	}
	/* the host as the manifest and the default name say it, and the tree's path */
	char host[256], root[4096];
	redacted_copy(b.red, rep.host, host, sizeof(host));
	redacted_copy(b.red, dir, root, sizeof(root));
	b.a = archive_write_new();
	if (!b.a) {
		redact_free(b.red);
		bundle_reports_free(&rep);
		snprintf(msg, cap, "no memory for the archive");
		return EXIT_UNREADABLE;
	}
	const char *ext = "zst";
	if (archive_write_add_filter_zstd(b.a) != ARCHIVE_OK) {
		ext = "gz";                        /* libarchive without zstd */
		archive_write_add_filter_gzip(b.a);
	}
	size_t ol = out ? strlen(out) : 0;
	if (ext[0] == 'g' && ol > 8 && strcmp(out + ol - 8, ".tar.zst") == 0) {
		archive_write_free(b.a);         /* a name that promises zstd */
		redact_free(b.red);
		bundle_reports_free(&rep);
		snprintf(msg, cap, "cannot write %s: this libarchive has no zstd", cesc(out));
		return EXIT_UNREADABLE;
	}
	archive_write_set_format_pax_restricted(b.a);
	char name[4096], tmp[4200];
	if (out)
		snprintf(name, sizeof(name), "%s", out);
	else
		default_name(host, ext, b.now, name, sizeof(name));
	const char *slash = strrchr(name, '/');
	if (slash)
		snprintf(tmp, sizeof(tmp), "%.*s/.%s.XXXXXX", (int)(slash - name), name, slash + 1);
	else
		snprintf(tmp, sizeof(tmp), ".%s.XXXXXX", name);
	int fd = mkostemp(tmp, O_CLOEXEC);
	if (fd < 0) {
		snprintf(msg, cap, "cannot write %s: %s", cesc(name), strerror(errno));
		archive_write_free(b.a);
		redact_free(b.red);
		bundle_reports_free(&rep);
		return EXIT_UNREADABLE;
	}
	struct stat self;
	if (fstat(fd, &self) == 0) {
		b.self_dev = self.st_dev;
		b.self_ino = self.st_ino;
	}
	if (archive_write_open_fd(b.a, fd) != ARCHIVE_OK)
		write_fail(&b, name);

	if (check_error[0]) {
		note(&b, false, "report.txt", 0, check_error);
		note(&b, false, "report.json", 0, check_error);
	} else {
		add_text(&b, "report.txt", rep.text, rep.text_len);
		add_text(&b, "report.json", rep.json, rep.json_len);
	}
	size_t clen;
	char *ctext = conf_dump(conf, &clen);
	if (ctext)
		add_text(&b, "config/cgwatch.conf", ctext, clen);
	else
		note(&b, false, "config/cgwatch.conf", 0, "no memory");
	free(ctext);
	add_signatures(&b, sigs);
	if (inc)                               /* reports too: before the tree under the caps */
		add_incidents(&b, inc);
	add_member(&b, "tree", AE_IFDIR, NULL, 0, NULL, 0755, b.now);
	tree_dir(&b, dir, "tree", 0, WALK_HOST);
	char *procdir = NULL;
	if (!b.err && b.proc_listed && asprintf(&procdir, "%s/proc", dir) >= 0) {
		if (rep.json)
			named_pids(&b, rep.json, rep.json_len);
		for (enum walk w = WALK_CHAIN; w <= WALK_OTHERS; w++)
			tree_dir(&b, procdir, "tree/proc", 1, w);
	}
	free(procdir);
	free(b.named);
	free(b.chain);
	capture_notes(&b);
	iso_time(now_epoch(), end, sizeof(end));
	char more[160];
	if (b.more_left) {
		snprintf(more, sizeof(more), "and %zu more members left out by the caps, not listed one "
		         "by one", b.more_left);
		b.notes_total = 0;                 /* the summary's own room was kept */
		note(&b, true, "tree", b.more_left_size, more);
	}
	if (b.more_unreadable) {
		snprintf(more, sizeof(more), "and %zu more members that could not be read, not listed "
		         "one by one", b.more_unreadable);
		b.notes_total = 0;
		note(&b, false, "tree", 0, more);
	}

	b.m.version = xstrdup(CGW_VERSION);
	b.m.host = xstrdup(host);
	b.m.kernel = xstrdup(rep.kernel);
	b.m.kfeat = kernel_features(dir, (unsigned)(conf->read_timeout_s * 1000));
	b.m.root = xstrdup(root);
	b.m.redacted = b.red != NULL;
	b.m.start = xstrdup(start);
	b.m.end = xstrdup(end);
	b.m.check_exit = rep.exit;
	b.m.max_file_mib = conf->bundle_max_file_mib;
	b.m.max_mib = conf->bundle_max_mib;
	size_t mlen = 0;
	char *mtext = b.err ? NULL : manifest_json(&b.m, &mlen);
	if (!b.err && !mtext) {
		b.err = ENOMEM;
		snprintf(b.why, sizeof(b.why), "no memory for the manifest");
	}
	if (!b.err) {
		struct archive_entry *e = archive_entry_new();
		archive_entry_set_pathname(e, "manifest.json");
		archive_entry_set_filetype(e, AE_IFREG);
		archive_entry_set_perm(e, 0644);
		archive_entry_set_mtime(e, b.now, 0);
		archive_entry_set_size(e, (la_int64_t)mlen);
		if (archive_write_header(b.a, e) != ARCHIVE_OK ||
		    archive_write_data(b.a, mtext, mlen) != (la_ssize_t)mlen)
			write_fail(&b, "manifest.json");
		archive_entry_free(e);
	}
	free(mtext);
	if (archive_write_close(b.a) != ARCHIVE_OK)
		write_fail(&b, name);
	archive_write_free(b.a);
	if (!b.err && (fsync(fd) < 0 || close(fd) < 0)) {
		b.err = errno;
		snprintf(b.why, sizeof(b.why), "%s", strerror(errno));
		fd = -1;
	} else if (!b.err) {
		fd = -1;
	}
	if (fd >= 0)
		close(fd);
	/* the map first: a redacted bundle is never there without it */
	char map[4200] = "";
	if (!b.err && b.red) {
		snprintf(map, sizeof(map), "%s.map", name);
		char why[512];
		if (bundle_redact_write_map(b.red, map, why, sizeof(why)) < 0) {
			b.err = EIO;
			snprintf(b.why, sizeof(b.why), "the redaction map %.200s: %.280s", cesc(map), why);
			map[0] = '\0';
		}
	}
	if (!b.err && rename(tmp, name) < 0) {
		b.err = errno;
		snprintf(b.why, sizeof(b.why), "%s", strerror(errno));
		if (map[0])
			unlink(map);
	}
	if (b.err) {
		unlink(tmp);
		snprintf(msg, cap, "cannot write %s: %s", cesc(name), b.why);
		rc = EXIT_UNREADABLE;
	} else {
		char d[4096];
		snprintf(d, sizeof(d), "%.*s", slash ? (int)(slash - name) : 1, slash ? name : ".");
		int dfd = open(d[0] ? d : "/", O_RDONLY | O_DIRECTORY | O_CLOEXEC);
		if (dfd >= 0) {
			fsync(dfd);                    /* the rename itself, durable */
			close(dfd);
		}
		/* the notes past the budget are one summary note each, standing for them all */
		snprintf(written, wcap, "%s: %zu members, %zu left out, %zu unreadable%s%s%s", name,
		         b.files + 1, b.m.nleft_out + (b.more_left ? b.more_left - 1 : 0),
		         b.m.nunreadable + (b.more_unreadable ? b.more_unreadable - 1 : 0),
		         b.red ? ", redacted\n" : "", map,
		         b.red ? ": the redaction map (token, value): keep it on this host" : "");
	}
	redact_free(b.red);
	free(b.cap_unreadable);
	manifest_free(&b.m);
	bundle_reports_free(&rep);
	return rc;
}

static void bundle_usage(FILE *out)
{
	fputs("usage: cgwatch bundle [--root DIR] [-o FILE] [--redact|--no-redact] [--config FILE]\n"
	      "       cgwatch bundle --verify FILE [--config FILE]\n", out);
}

static int verify(const char *file, const struct cgw_conf *conf)
{
	struct bundle_caps caps = bundle_caps_of(conf);
	struct strbuf out = { 0 };
	char why[1024];
	long n = bundle_verify(file, &caps, (unsigned)(conf->read_timeout_s * 1000), &out, why,
	                       sizeof(why));
	if (n < 0) {
		log_warnx("%s", why);
		sb_free(&out);
		return EXIT_UNREADABLE;
	}
	for (char *p = out.s, *nl; p && *p; p = nl + 1) {
		nl = strchr(p, '\n');
		if (!nl)
			break;
		*nl = '\0';
		log_warnx("%s: %s", cesc(file), p);
	}
	sb_free(&out);
	if (n) {
		log_warnx("%s: %ld problem%s: the bundle is not intact", cesc(file), n,
		          n == 1 ? "" : "s");
		return EXIT_UNREADABLE;
	}
	printf("%s: intact: every member matches the manifest\n", cesc(file));
	return 0;
}

/* A new private directory for the capture of this host, under $TMPDIR or /tmp (the unit's
 * PrivateTmp). 0, or EXIT_UNREADABLE said. */
static int capture_dir(char *dir, size_t cap)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, cap, "%s/cgwatch-capture-XXXXXX", tmp && tmp[0] == '/' ? tmp : "/tmp");
	if (mkdtemp(dir))
		return 0;
	log_warnx("bundle: cannot make a directory for the capture (%s): %s", cesc(dir),
	          strerror(errno));
	dir[0] = '\0';
	return EXIT_UNREADABLE;
}

int cmd_bundle(int argc, char **argv, cgw_capture_fn capture)
{
	static const struct option opts[] = {
		{ "root", required_argument, NULL, 'r' },
		{ "output", required_argument, NULL, 'o' },
		{ "config", required_argument, NULL, 'c' },
		{ "verify", required_argument, NULL, 'V' },
		{ "redact", no_argument, NULL, 'R' },
		{ "no-redact", no_argument, NULL, 'N' },
		{ "help", no_argument, NULL, 'h' },
		{ 0 }
	};
	const char *root = NULL, *out = NULL, *config = NULL, *check = NULL;
	int o, redact = -1;
	while ((o = getopt_long(argc, argv, "r:o:c:h", opts, NULL)) != -1) {
		switch (o) {
		case 'r': root = optarg; break;
		case 'o': out = optarg; break;
		case 'c': config = optarg; break;
		case 'V': check = optarg; break;
		case 'R': redact = 1; break;
		case 'N': redact = 0; break;
		case 'h': bundle_usage(stdout); return 0;
		default: bundle_usage(stderr); return EXIT_USAGE;
		}
	}
	if (optind < argc || (check && (root || out || redact >= 0))) {
		bundle_usage(stderr);
		return EXIT_USAGE;
	}
	struct cgw_conf conf;
	int rc = config_load(&conf, config);
	if (redact >= 0)
		conf.bundle_redact = redact;      /* the option over [bundle] redact */
	struct cgw_sigset sigs = { 0 };
	struct bundle_incidents inc = { 0 };
	char live[4096] = "";
	if (rc == 0 && check)
		rc = verify(check, &conf);
	else if (rc == 0 && (rc = signatures_load(&sigs, &conf)) == 0 && !root) {
		if ((rc = capture_dir(live, sizeof(live))) == 0 && (rc = capture(live, config)) == 0)
			root = live;              /* this host, as a check read it */
		/* the daemon's incidents open now: their newest reports */
		if (rc == 0 && bundle_incidents_load(&conf, (unsigned)(conf.read_timeout_s * 1000),
		                                     &inc) < 0) {
			log_warnx("bundle: no memory for the open incidents' reports");
			rc = EXIT_UNREADABLE;
		}
	}
	if (rc == 0 && !check) {
		char msg[8192], written[4400];
		rc = bundle_write_tree(root, out, &conf, &sigs, live[0] ? &inc : NULL, written,
		                       sizeof(written), msg, sizeof(msg));
		if (rc)
			log_warnx("%s", msg);
		else
			printf("%s\n", written);
	}
	if (live[0]) {
		int e = remove_tree(live);
		if (e < 0)
			log_warnx("bundle: cannot remove the capture %s: %s", cesc(live), strerror(-e));
	}
	bundle_incidents_free(&inc);
	sig_free(&sigs);
	conf_free(&conf);
	return rc;
}
