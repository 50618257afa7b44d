/* source-archive.c: a bundle read back through libarchive, for `check --root FILE` and
 * `bundle --verify FILE`. The file may sit on a file system that does not answer: it is
 * opened and read with the deadline, chunk by chunk. Every member is checked from its header
 * before a byte of it is read (its name; its type and size: a member that is no regular file
 * carries no data, a 10 GB sparse member is refused, never expanded; the members' count and
 * what they cost a replay against the caps), and the whole against manifest.json. What
 * libarchive expands without showing it (the data of a member it skips, its own headers) is
 * capped as it is read, and so is the time. A replay extracts only tree/, into the directory
 * it is given (root.c: a tmpfs in a private mount namespace), every component opened without
 * following a symlink. */
#include "archive-lib.h"
#include <errno.h>
#include <fcntl.h>
#include <nettle/sha2.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgwatch.h"

#define MIB (1024.0 * 1024.0)
#define CHUNK (64 * 1024)
/* handed to libarchive at a time, so the caps are checked that often: zstd expands 8 KiB of
 * RLE blocks (4 bytes for 128 KiB) to 256 MiB, in 20 ms */
#define SLICE (8 * 1024)
/* what the archive may expand to, in max_size: a member's tar headers and the padding of its
 * data to 512 bytes take less than what it costs beside its data (BUNDLE_INODE, its name) */
#define EXPANSION 2

struct bundle_caps archive_read_caps = { 16ull << 20, 256ull << 20, BUNDLE_MAX_MEMBERS, 15000 };
struct bundle_caps bundle_caps_of(const struct cgw_conf *c)
{
	struct bundle_caps k = { (uint64_t)(c->bundle_max_file_mib * MIB),
	                         (uint64_t)(c->bundle_max_mib * MIB),
	                         (size_t)c->bundle_max_members,
	                         (unsigned)(c->check_timeout_s * 1000) };
	return k;
}

struct bundle_caps bundle_replay_caps(const struct cgw_conf *c)
{
	struct bundle_caps k = bundle_caps_of(c);
	k.deadline_ms /= 2;
	return k;
}

/* ---- the file, opened and read with the deadline ---- */

struct open_job { char *path; int fd, err; struct stat st; };

static void open_fn(void *p)
{
	struct open_job *j = p;
	j->fd = open_regular(j->path);    /* a FIFO or a device is refused unopened */
	if (j->fd < 0)
		j->err = j->fd == -CGW_ENOTREG || j->fd == -EISDIR ? ENOTDIR : -j->fd;
	else if (fstat(j->fd, &j->st) < 0)
		j->err = errno;
}

static void open_release(void *p)
{
	struct open_job *j = p;
	if (j->fd >= 0)
		close(j->fd);
	free(j->path);
	free(j);
}

/* The file's fd (a regular file) or -errno: -ENOTDIR when it is no regular file. */
static int open_deadline(const char *path, unsigned timeout_ms)
{
	struct open_job *j = try_calloc(1, sizeof(*j));
	if (!j || !(j->path = try_strdup(path))) {
		free(j);
		return -ENOMEM;
	}
	j->fd = -1;
	int e = dl_call(open_fn, j, open_release, timeout_ms);
	if (e < 0)
		return e;                         /* j is the worker's, or freed */
	int fd = -1;
	if (j->err)
		e = -j->err;
	else {
		fd = j->fd;
		j->fd = -1;
	}
	open_release(j);
	return fd >= 0 ? fd : e;
}

struct read_job { int fd; off_t off; char *buf; ssize_t r; };

static void read_fn(void *p)
{
	struct read_job *j = p;
	do
		j->r = pread(j->fd, j->buf, CHUNK, j->off);
	while (j->r < 0 && errno == EINTR);
	if (j->r < 0)
		j->r = -errno;
}

static void read_release(void *p)
{
	struct read_job *j = p;
	free(j->buf);
	free(j);
}

struct src {
	int fd;
	off_t off;                            /* of the next read of the file */
	unsigned timeout_ms;
	int err;                              /* the read that failed: -errno, -ETIMEDOUT */
	const struct bundle_caps *caps;
	double start_ms;                      /* when the reading began (mono_ms) */
	char limit[200];                      /* a cap or the deadline ended the reading: why */
	size_t next, have;                    /* buf[next, have) not handed to libarchive yet */
	char buf[CHUNK];
};

/* Has the reading passed a cap: the archive expanded (what libarchive took of it, read or
 * skipped) to more than EXPANSION times max_size, or the deadline? Then s->limit says which. */
static bool over_limit(struct archive *a, struct src *s)
{
	uint64_t cap = EXPANSION * s->caps->max_total;
	la_int64_t took = s->limit[0] ? 0 : archive_filter_bytes(a, 0);
	if (!s->limit[0] && took > 0 && (uint64_t)took > cap)
		snprintf(s->limit, sizeof(s->limit), "the archive expands to more than %.10g MiB "
		         "(twice max_size): not read further", cap / MIB);
	else if (!s->limit[0] && mono_ms() - s->start_ms > s->caps->deadline_ms)
		snprintf(s->limit, sizeof(s->limit), "still not read after %g s (the deadline of "
		         "reading a bundle, from check_timeout): not read further",
		         s->caps->deadline_ms / 1000.0);
	return s->limit[0] != '\0';
}

/* The next slice of the file for libarchive: a chunk read with the deadline, handed out
 * SLICE bytes at a time, each after the caps are checked. */
static la_ssize_t src_read(struct archive *a, void *ud, const void **out)
{
	struct src *s = ud;
	if (over_limit(a, s)) {
		archive_set_error(a, EFBIG, "%s", s->limit);
		return -1;
	}
	if (s->next < s->have) {
		size_t n = s->have - s->next < SLICE ? s->have - s->next : SLICE;
		*out = s->buf + s->next;
		s->next += n;
		return (la_ssize_t)n;
	}
	struct read_job *j = try_calloc(1, sizeof(*j));
	if (!j || !(j->buf = try_malloc(CHUNK))) {
		free(j);
		archive_set_error(a, ENOMEM, "no memory to read it");
		return -1;
	}
	j->fd = s->fd;
	j->off = s->off;
	int e = dl_call(read_fn, j, read_release, s->timeout_ms);
	if (e < 0) {
		char m[160];
		s->err = e;
		if (e == -ETIMEDOUT)
			snprintf(m, sizeof(m), "a read timed out after %g s: the file system holding "
			         "it does not answer", s->timeout_ms / 1000.0);
		else
			snprintf(m, sizeof(m), "%s", strerror(-e));
		archive_set_error(a, -e, "%s", m);
		return -1;
	}
	ssize_t r = j->r;
	if (r > 0)
		memcpy(s->buf, j->buf, (size_t)r);
	read_release(j);
	if (r < 0) {
		s->err = (int)r;
		archive_set_error(a, (int)-r, "%s", strerror((int)-r));
		return -1;
	}
	s->off += r;
	s->have = (size_t)r;
	s->next = (size_t)r < SLICE ? (size_t)r : SLICE;
	*out = s->buf;
	return (la_ssize_t)s->next;
}

/* ---- the members ---- */

struct walk {
	const struct bundle_caps *caps;
	struct src *src;
	int treefd;                           /* extract tree/ here; -1: verify only */
	bool first_only;                      /* stop at the first problem (a replay) */
	struct bundle_manifest seen;          /* what the archive holds, names utf8_escape'd */
	char *manifest; size_t manifest_len;
	size_t members;                       /* headers read */
	uint64_t cost;                        /* bundle_member_cost of the members, summed */
	char last[4097];                      /* the last member's name, as its header has it */
	struct strbuf *out;
	size_t problems;
	bool fatal;                           /* the archive cannot be read on */
};

static void problem(struct walk *w, const char *name, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static void problem(struct walk *w, const char *name, const char *fmt, ...)
{
	char why[1024];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(why, sizeof(why), fmt, ap);
	va_end(ap);
	if (name)
		sb_printf(w->out, "%s: %s\n", cesc(name), why);
	else
		sb_printf(w->out, "%s\n", why);
	w->problems++;
}

/* The directory that will hold tree/ member rel (relative to the tree), every component made
 * and opened without following a symlink; *last is the member's own name. fd or -errno. */
static int parent_open(int treefd, char *rel, char **last)
{
	int dfd = dup(treefd);
	char *p = rel;
	for (char *slash; dfd >= 0 && (slash = strchr(p, '/')); p = slash + 1) {
		*slash = '\0';
		if (mkdirat(dfd, p, 0755) < 0 && errno != EEXIST) {
			int e = -errno;
			close(dfd);
			return e;
		}
		int nfd = openat(dfd, p, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
		int e = -errno;
		close(dfd);
		*slash = '/';
		if (nfd < 0)
			return e == -ELOOP || e == -ENOTDIR ? -ENOTDIR : e;
		dfd = nfd;
	}
	*last = p;
	return dfd < 0 ? -errno : dfd;
}

static const char *type_name(mode_t t)
{
	return t == AE_IFDIR ? "a directory" : t == AE_IFLNK ? "a symlink" :
	       t == AE_IFCHR ? "a character device" : t == AE_IFBLK ? "a block device" :
	       t == AE_IFIFO ? "a FIFO" : t == AE_IFSOCK ? "a socket" :
	       "a member of an unknown type";
}

/* The archive cannot be read on (name: the member being read, or NULL): a cap or the
 * deadline, or what libarchive says. */
static void read_failed(struct walk *w, struct archive *a, const char *name)
{
	if (w->src->limit[0])
		problem(w, name, "%s", w->src->limit);
	else
		problem(w, name, "the archive is truncated or corrupt: %s",
		        archive_error_string(a) ? archive_error_string(a) : "read error");
	w->fatal = true;
}

/* Can a replay afford one more member (its bundle_member_cost within max_size)? If not, the
 * problem is said and the walk ends there. */
static bool afford(struct walk *w, const char *name, enum bm_type t, uint64_t size)
{
	uint64_t c = bundle_member_cost(t, size, strlen(name));
	if (w->cost + c > w->caps->max_total) {
		problem(w, name, "the members add up to more than max_size (%.10g MiB) as a replay "
		        "keeps them (a file's data in whole 4 KiB pages; 1 KiB and the name for "
		        "each member); not read", w->caps->max_total / MIB);
		w->fatal = true;
		return false;
	}
	w->cost += c;
	return true;
}

/* Read a regular member's data: hashed, into fd when >= 0, kept when keep. */
static int member_data(struct archive *a, struct walk *w, const char *name, int fd,
                       uint64_t size, char **keep, char hex[65])
{
	struct sha256_ctx c;
	sha256_init(&c);
	uint64_t got = 0;
	char *buf = try_malloc(CHUNK), *kept = NULL;
	if (!buf || (keep && !(kept = try_malloc(size + 1)))) {
		free(buf);
		free(kept);
		problem(w, name, "no memory to read it");
		return -ENOMEM;
	}
	for (;;) {
		la_ssize_t r = over_limit(a, w->src) ? -1 : archive_read_data(a, buf, CHUNK);
		if (r == 0)
			break;
		if (r < 0) {
			read_failed(w, a, name);
			free(buf);
			free(kept);
			return -EIO;
		}
		if (got + (uint64_t)r > size) {
			problem(w, name, "more data than its header says (%llu bytes)",
			        (unsigned long long)size);
			w->fatal = true;
			free(buf);
			free(kept);
			return -EIO;
		}
		sha256_update(&c, (size_t)r, (const uint8_t *)buf);
		if (kept)
			memcpy(kept + got, buf, (size_t)r);
		for (size_t off = 0; fd >= 0 && off < (size_t)r; ) {
			ssize_t n = write(fd, buf + off, (size_t)r - off);
			if (n < 0 && errno == EINTR)
				continue;
			if (n <= 0) {
				problem(w, name, "cannot write it into the private tree: %s",
				        strerror(n < 0 ? errno : ENOSPC));
				free(buf);
				free(kept);
				return -EIO;
			}
			off += (size_t)n;
		}
		got += (uint64_t)r;
	}
	free(buf);
	uint8_t d[SHA256_DIGEST_SIZE];
	sha256_digest(&c, sizeof(d), d);
	for (size_t i = 0; i < sizeof(d); i++)
		snprintf(hex + 2 * i, 3, "%02x", d[i]);
	if (keep) {
		kept[got] = '\0';
		*keep = kept;
	}
	return 0;
}

/* One member: checked from its header, then its data read (and extracted). */
static void member(struct archive *a, struct archive_entry *e, struct walk *w)
{
	const char *raw = archive_entry_pathname(e);
	char name[4097], why[512], hex[65];
	snprintf(w->last, sizeof(w->last), "%s", raw ? raw : "");
	if (++w->members > w->caps->max_members) {
		problem(w, raw, "the bundle has more than %zu members (max_members)",
		        w->caps->max_members);
		w->fatal = true;
		return;
	}
	/* data libarchive would expand only to skip it: it reports a GNU dumpdir (type D) as a
	 * directory but keeps its size, and a pax header may give any member a size */
	mode_t type = archive_entry_filetype(e);
	const char *hard = archive_entry_hardlink(e);
	la_int64_t hsize = archive_entry_size_is_set(e) ? archive_entry_size(e) : 0;
	if ((type != AE_IFREG || hard) && hsize != 0) {
		problem(w, raw, "%s whose header says %lld bytes of data follow, where it carries "
		        "none: not read, nor the rest of the archive", hard ? "a hard link" :
		        type_name(type), (long long)hsize);
		w->fatal = true;
		return;
	}
	if (!raw) {
		problem(w, NULL, "a member whose name cannot be read");
		return;
	}
	size_t len = strlen(raw);
	if (member_name_check(raw, len, why, sizeof(why)) < 0) {
		problem(w, raw, "%s", why);
		return;
	}
	snprintf(name, sizeof(name), "%.*s", (int)(len > 1 && raw[len - 1] == '/' ? len - 1 : len),
	         raw);
	static char esc[4 * 4096 + 1];
	if (strlen(utf8_escape(name, strlen(name), esc, sizeof(esc))) > 4095) {
		problem(w, name, "a name too long to list (a byte that is not UTF-8 counts four)");
		return;
	}
	if (hard) {
		problem(w, name, "a hard link (to \"%s\"): a bundle holds none", cesc(hard));
		return;
	}
	bool in_tree = strncmp(name, "tree/", 5) == 0;
	bool extract = w->treefd >= 0 && in_tree;
	char *rel = name + 5, *last;
	if (type == AE_IFDIR) {
		if (!afford(w, name, BM_DIR, 0))
			return;
		if (extract) {
			size_t n = strlen(rel);
			rel[n] = '/';                 /* the directory itself is the last component */
			rel[n + 1] = '\0';
			int dfd = parent_open(w->treefd, rel, &last);
			rel[n] = '\0';
			if (dfd < 0) {
				problem(w, name, "cannot make it in the private tree: %s",
				        dfd == -ENOTDIR ? "a component is a symlink or a file" :
				        strerror(-dfd));
				return;
			}
			close(dfd);
		}
		sha256_hex("", 0, hex);
		if (manifest_add(&w->seen, esc, BM_DIR, 0, hex, NULL) < 0)
			problem(w, name, "no memory");
		return;
	}
	if (type == AE_IFLNK) {
		const char *target = archive_entry_symlink(e);
		if (member_link_check(name, target, why, sizeof(why)) < 0) {
			problem(w, name, "%s", why);
			return;
		}
		if (!in_tree) {
			problem(w, name, "a symlink outside tree/");
			return;
		}
		if (!afford(w, name, BM_SYMLINK, strlen(target)))
			return;
		if (extract) {
			int dfd = parent_open(w->treefd, rel, &last);
			int r = dfd < 0 ? dfd : symlinkat(target, dfd, last) < 0 ? -errno : 0;
			if (dfd >= 0)
				close(dfd);
			if (r < 0) {
				problem(w, name, "cannot make it in the private tree: %s",
				        r == -EEXIST ? "it appears twice" : r == -ENOTDIR ?
				        "a component is a symlink or a file" : strerror(-r));
				return;
			}
		}
		sha256_hex(target, strlen(target), hex);
		char tesc[4096];
		utf8_escape(target, strlen(target), tesc, sizeof(tesc));
		if (manifest_add(&w->seen, esc, BM_SYMLINK, strlen(target), hex, tesc) < 0)
			problem(w, name, "no memory");
		return;
	}
	if (type != AE_IFREG) {
		problem(w, name, "%s: a bundle holds only files, directories and a task's links",
		        type_name(type));
		return;
	}
	if (!archive_entry_size_is_set(e) || archive_entry_size(e) < 0) {
		problem(w, name, "a file without a size");
		return;
	}
	uint64_t size = (uint64_t)archive_entry_size(e);
	if (size > w->caps->max_file) {
		problem(w, name, "%llu bytes: larger than max_file_size (%.10g MiB); not read",
		        (unsigned long long)size, w->caps->max_file / MIB);
		return;
	}
	if (!afford(w, name, BM_FILE, size))
		return;
	bool is_manifest = strcmp(name, "manifest.json") == 0;
	int fd = -1;
	if (extract) {
		int dfd = parent_open(w->treefd, rel, &last);
		fd = dfd < 0 ? dfd : openat(dfd, last, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW |
		                                       O_CLOEXEC, archive_entry_perm(e) & 0755);
		int err = fd < 0 ? (dfd < 0 ? dfd : -errno) : 0;
		if (dfd >= 0)
			close(dfd);
		if (fd < 0) {
			problem(w, name, "cannot make it in the private tree: %s",
			        err == -EEXIST ? "it appears twice" : err == -ENOTDIR || err == -ELOOP ?
			        "a component is a symlink or a file" : strerror(-err));
			return;
		}
	}
	if (is_manifest && w->manifest) {
		problem(w, name, "it appears twice");
		return;
	}
	int r = member_data(a, w, name, fd, size, is_manifest ? &w->manifest : NULL, hex);
	if (fd >= 0)
		close(fd);
	if (r < 0)
		return;
	if (is_manifest)
		w->manifest_len = size;
	else if (manifest_add(&w->seen, esc, BM_FILE, size, hex, NULL) < 0)
		problem(w, name, "no memory");
}

/* Every member of the archive at fd, then the comparison with its manifest. */
static void walk_archive(int fd, unsigned timeout_ms, struct walk *w)
{
	char lib[256];
	if (!archive_lib_load(lib, sizeof(lib))) {
		problem(w, NULL, "%s", lib);
		w->fatal = true;
		return;
	}
	struct archive *a = archive_read_new();
	struct src *s = try_calloc(1, sizeof(*s));
	if (!a || !s) {
		problem(w, NULL, "no memory to read the archive");
		goto out;
	}
	s->fd = fd;
	s->timeout_ms = timeout_ms;
	s->caps = w->caps;
	s->start_ms = mono_ms();
	w->src = s;
	archive_read_support_filter_zstd(a);
	archive_read_support_filter_gzip(a);
	archive_read_support_format_tar(a);
	if (archive_read_open(a, s, NULL, src_read, NULL) != ARCHIVE_OK) {
		problem(w, NULL, "the archive is truncated or corrupt, or not a bundle (a tar "
		        "archive, zstd or gzip): %s",
		        archive_error_string(a) ? archive_error_string(a) : "unreadable");
		goto out;
	}
	for (;;) {
		struct archive_entry *e;
		int r = archive_read_next_header(a, &e);
		if (r == ARCHIVE_EOF)
			break;
		if (r != ARCHIVE_OK && s->limit[0]) {
			/* in what follows that member: its data skipped, or headers libarchive
			 * reads on its own */
			read_failed(w, a, w->last[0] ? w->last : NULL);
			goto out;
		}
		if (r != ARCHIVE_OK) {
			const char *n = r == ARCHIVE_WARN ? archive_entry_pathname(e) : NULL;
			problem(w, n, "the archive is truncated or corrupt: %s",
			        archive_error_string(a) ? archive_error_string(a) : "unreadable");
			if (r != ARCHIVE_WARN)
				break;
			continue;
		}
		size_t before = w->problems;
		member(a, e, w);
		if (w->fatal || (w->first_only && w->problems > before))
			goto out;
	}
	if (!w->manifest) {
		problem(w, "manifest.json", "missing: not a cgwatch bundle");
		goto out;
	}
	struct bundle_manifest m;
	char why[512];
	if (manifest_parse(w->manifest, w->manifest_len, &m, why, sizeof(why)) < 0) {
		problem(w, "manifest.json", "%s", why);
		goto out;
	}
	w->problems += manifest_compare(&m, w->seen.m, w->seen.n, w->out);
	manifest_free(&m);
out:
	if (a)
		archive_read_free(a);
	free(s);
	w->src = NULL;
}

static void walk_free(struct walk *w)
{
	manifest_free(&w->seen);
	free(w->manifest);
}

long bundle_verify(const char *path, const struct bundle_caps *caps, unsigned timeout_ms,
                   struct strbuf *out, char *why, size_t cap)
{
	int fd = open_deadline(path, timeout_ms);
	if (fd < 0) {
		snprintf(why, cap, "%s: %s", cesc(path), fd == -ETIMEDOUT ? "opening it timed out: "
		         "the file system holding it does not answer" : fd == -ENOTDIR ?
		         "not a regular file" : strerror(-fd));
		return fd;
	}
	struct walk w = { .caps = caps, .treefd = -1, .out = out };
	walk_archive(fd, timeout_ms, &w);
	close(fd);
	walk_free(&w);
	return (long)w.problems;
}

int archive_open(const char *path, unsigned timeout_ms)
{
	return open_deadline(path, timeout_ms);
}

int archive_extract(int fd, const char *path, int treefd, unsigned timeout_ms, char *msg,
                    size_t cap)
{
	struct strbuf out = { 0 };
	struct walk w = { .caps = &archive_read_caps, .treefd = treefd, .first_only = true,
	                  .out = &out };
	walk_archive(fd, timeout_ms, &w);
	walk_free(&w);
	if (w.problems) {
		char *nl = out.s ? strchr(out.s, '\n') : NULL;
		if (nl)
			*nl = '\0';
		snprintf(msg, cap, "--root %s: refusing the bundle: %s%s", path,
		         out.s ? out.s : "no memory", w.problems > 1 ? " (and more)" : "");
		sb_free(&out);
		return -EINVAL;
	}
	sb_free(&out);
	return 0;
}
