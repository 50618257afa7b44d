/* source-elf.c: the name of the code at an offset of a mapped ELF file, from its symbol
 * tables or a separate debug file, with the read deadline, and a cache of what was parsed.
 *
 * Files are read with pread into memory of our own, never mapped: a mapping of a binary on a
 * stuck NFS or FUSE mount would hang whichever thread touched it (here only the deadline
 * worker touches the file), a file truncated under a mapping raises SIGBUS, and under the
 * daemon's mlockall(MCL_FUTURE) every new mapping is read in whole and locked (a 300 MiB
 * debug file). What is kept is only the function symbols, compact (elf_func: 16 bytes and
 * the name), at most ELFSYM_CACHE_BYTES in all.
 *
 * Every open and read runs in the deadline worker (dl_call_path): a lookup that times out
 * leaves the worker to finish, whose result still lands in the cache for the next lookup.
 * Entries are immutable once parsed and counted: the cache holds one reference, each lookup
 * one while it reads the entry.
 *
 * A debug file found only under a task's own root (/proc/TGID/root: its mount namespace, or a
 * root of its own, when either is neither cgwatch's nor the host's) is what that namespace's
 * users put there: a user namespace can mount its own /usr/lib/debug, with any names in it
 * for any build-id. Its names are marked as the task's (elf_sym.from_task_mntns), and an
 * entry whose names depend on where its debug file was looked for serves only lookups from
 * that same place: a host task of the same build is never named from a container's debug
 * file, nor a container's task denied its own because the host has none. */
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgwatch.h"

#define DEBUG_ROOT "/usr/lib/debug"
#define CRC_MAX (1ull << 30)           /* a debug file checked by its CRC: at most 1 GiB */
#define KEYS_MAX 4                     /* files (copies, containers) known per entry */

struct key { dev_t dev; ino_t ino; int64_t mtime_ns; uint64_t size; };

/* Where a lookup looks for debug files besides cgwatch's own roots: foreign when the task's
 * mount namespace or root is neither cgwatch's nor the host's (those identify which: its
 * root's), else nowhere that differs from them. */
struct place { bool foreign; dev_t ns_dev, root_dev; ino_t ns_ino, root_ino; };

struct entry {
	unsigned refs;
	struct key keys[KEYS_MAX];        /* the files that are this binary */
	size_t nkeys;
	struct elf_info bin;              /* segments, build-id; .symtab or .dynsym */
	struct elf_info dbg;              /* the debug file's .symtab (have_dbg) */
	bool have_dbg;
	bool dbg_foreign;                 /* dbg found under the task's root, foreign place */
	struct place place;               /* where the lookup that made it looked */
	char dbg_why[160];                /* why no debug file was taken ("" none looked for) */
	double made_ms;
	uint64_t used;
	size_t bytes;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct entry *cache[ELFSYM_CACHE_FILES];
static size_t ncache, cache_bytes, cap_bytes = ELFSYM_CACHE_BYTES;
static uint64_t tick;
static struct elfsym_stats st;
static char *debug_root;               /* NULL: DEBUG_ROOT */

static void entry_free(struct entry *e)
{
	elf_info_free(&e->bin);
	elf_info_free(&e->dbg);
	free(e);
}

/* Drop a reference (lock held). */
static void unref_locked(struct entry *e)
{
	if (e && --e->refs == 0)
		entry_free(e);
}

static void unref(struct entry *e)
{
	pthread_mutex_lock(&lock);
	unref_locked(e);
	pthread_mutex_unlock(&lock);
}

/* Take cache[i] out of the cache (lock held). */
static void drop_locked(size_t i)
{
	struct entry *e = cache[i];
	cache[i] = cache[--ncache];
	cache_bytes -= e->bytes;
	unref_locked(e);
}

/* A binary with no name to give beyond .dynsym and no debug file, parsed a while ago: look
 * again (a debug package may have been installed since). */
static bool stale(const struct entry *e)
{
	return !e->bin.symtab.present && !e->have_dbg &&
	       mono_ms() - e->made_ms > ELFSYM_RECHECK_S * 1000.0;
}

static bool key_eq(const struct key *a, const struct key *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->mtime_ns == b->mtime_ns &&
	       a->size == b->size;
}

static bool place_eq(const struct place *a, const struct place *b)
{
	return a->foreign == b->foreign && a->ns_dev == b->ns_dev && a->ns_ino == b->ns_ino &&
	       a->root_dev == b->root_dev && a->root_ino == b->root_ino;
}

/* Are e's names the same wherever its debug file is looked for: the binary's own symbols,
 * or a debug file of cgwatch's roots (found first from anywhere)? */
static bool placeless(const struct entry *e)
{
	return e->bin.symtab.present || (e->have_dbg && !e->dbg_foreign);
}

/* The cached entry of file k, or of build-id (bin, when it has one), for a lookup at p;
 * referenced. */
static struct entry *find_locked(const struct key *k, const struct elf_info *bin,
                                 const struct place *p)
{
	for (size_t i = 0; i < ncache; i++) {
		struct entry *e = cache[i];
		if (!placeless(e) && !place_eq(&e->place, p))
			continue;                  /* another place's debug file, or none found there */
		bool hit = false;
		for (size_t j = 0; j < e->nkeys && !hit; j++)
			hit = key_eq(&e->keys[j], k);
		/* a copy of the same build (a container's): the same build-id and size (a
		 * stripped file of that build is not its copy: it has not its symbols) */
		if (!hit && bin && bin->build_id_len && e->bin.build_id_len == bin->build_id_len &&
		    memcmp(e->bin.build_id, bin->build_id, bin->build_id_len) == 0 &&
		    e->keys[0].size == k->size) {
			hit = true;            /* known by this file too from now on */
			e->keys[e->nkeys < KEYS_MAX ? e->nkeys++ : (size_t)(tick % KEYS_MAX)] = *k;
		}
		if (!hit)
			continue;
		if (stale(e))
			return NULL;
		e->refs++;
		e->used = ++tick;
		st.hits++;
		return e;
	}
	return NULL;
}

/* Drop the least recently used files until room more bytes and one more file fit. */
static void evict_locked(size_t room)
{
	while (ncache && (ncache == ELFSYM_CACHE_FILES || cache_bytes + room > cap_bytes)) {
		size_t old = 0;
		for (size_t i = 1; i < ncache; i++)
			if (cache[i]->used < cache[old]->used)
				old = i;
		drop_locked(old);
	}
}

/* Keep e (referenced by the caller), replacing an older entry of the same file or build
 * that served the same lookups, evicting the least recently used past the caps. A file
 * larger than the cap alone is used for its lookup and not kept. */
static void insert_locked(struct entry *e)
{
	for (size_t i = 0; i < ncache;) {
		struct entry *o = cache[i];
		bool same = e->bin.build_id_len ?
		            o->bin.build_id_len == e->bin.build_id_len &&
		            memcmp(o->bin.build_id, e->bin.build_id, e->bin.build_id_len) == 0 &&
		            o->keys[0].size == e->keys[0].size :
		            key_eq(&o->keys[0], &e->keys[0]);
		same = same && (placeless(e) || place_eq(&o->place, &e->place));
		if (same)
			drop_locked(i);
		else
			i++;
	}
	st.parses++;
	if (e->bytes > cap_bytes)
		return;
	evict_locked(e->bytes);
	e->refs++;
	e->used = ++tick;
	cache[ncache++] = e;
	cache_bytes += e->bytes;
}

/* vsnprintf into out (cap bytes): false when cut (a path cut is not a path to try). */
static bool fmt(char *out, size_t cap, const char *f, ...) __attribute__((format(printf, 3, 4)));
static bool fmt(char *out, size_t cap, const char *f, ...)
{
	va_list ap;
	va_start(ap, f);
	int n = vsnprintf(out, cap, f, ap);
	va_end(ap);
	return n >= 0 && (size_t)n < cap;
}

static int fd_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	int fd = *(int *)ctx;
	for (size_t done = 0; done < len;) {
		ssize_t r = pread(fd, (char *)buf + done, len - done, (off_t)(off + done));
		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0)
			return -errno;
		if (r == 0)
			return -EIO;       /* shorter than when it was looked at: changed under us */
		done += (size_t)r;
	}
	return 0;
}

static struct key key_of(const struct stat *s)
{
	return (struct key){ s->st_dev, s->st_ino,
	                     (int64_t)s->st_mtim.tv_sec * 1000000000 + s->st_mtim.tv_nsec,
	                     (uint64_t)s->st_size };
}

/* What the deadline worker does for one lookup, and what it leaves for the caller. */
struct job {
	char *path, *root;                /* root: the debug root, NULL for the default */
	int tgid;                         /* > 0: path is a mapping's in this task's maps */
	struct place place;               /* the task's root, when foreign (place_of) */
	struct maps_ent map;              /* that mapping (map.path is path) */
	size_t max_bytes;                 /* per symbol table */
	int err;
	char why[256];
	struct entry *e;                  /* referenced */
};

/* Free i's .dynsym, which its .symtab (or its debug file's) holds too. */
static void drop_dynsym(struct elf_info *i)
{
	i->bytes -= i->dynsym.n * sizeof(struct elf_func) + i->dynsym.names_len;
	free(i->dynsym.f);
	free(i->dynsym.names);
	i->dynsym = (struct elf_table){ 0 };
}

/* The file of CRC crc? Read whole (at most CRC_MAX). */
static bool crc_matches(int fd, uint64_t size, uint32_t crc)
{
	static const size_t chunk = 64 << 10;
	if (size > CRC_MAX)
		return false;
	char *buf = try_malloc(chunk);
	if (!buf)
		return false;
	uint32_t c = 0;
	bool ok = true;
	for (uint64_t off = 0; off < size && ok; off += chunk) {
		size_t n = size - off > chunk ? chunk : (size_t)(size - off);
		ok = fd_read(&fd, off, buf, n) == 0;
		c = elf_crc32(c, buf, n);
	}
	free(buf);
	return ok && c == crc;
}

/* Is the file at cand the debug file of bin (found by build-id, or by_link: by its
 * debuglink)? Then its symbols into *dbg (true). Else false, and why when it was there. */
static bool try_debug(const char *cand, const struct elf_info *bin, const struct stat *bst,
                      bool by_link, size_t max_bytes, struct elf_info *dbg, char *why, size_t cap)
{
	int fd = open_regular(cand);
	if (fd < 0)
		return false;                  /* not there: the usual case */
	struct stat s;
	bool ok = fstat(fd, &s) == 0 && !(s.st_dev == bst->st_dev && s.st_ino == bst->st_ino);
	if (ok && elf_parse_head(fd_read, &fd, (uint64_t)s.st_size, dbg) < 0) {
		fmt(why, cap, "debug file %s: %s", cand, dbg->why);
		ok = false;
	}
	if (ok) {
		bool ids = bin->build_id_len && dbg->build_id_len;
		ok = ids ? dbg->build_id_len == bin->build_id_len &&
		           memcmp(dbg->build_id, bin->build_id, bin->build_id_len) == 0
		         : by_link && crc_matches(fd, (uint64_t)s.st_size, bin->debuglink_crc);
		if (!ok)
			fmt(why, cap, "debug file %s is of another build (its %s differs)", cand,
			    ids ? "build-id" : "CRC");
	}
	if (ok && elf_parse_syms(fd_read, &fd, max_bytes, dbg) < 0) {
		fmt(why, cap, "debug file %s: %s", cand, dbg->why);
		ok = false;
	}
	if (ok && !dbg->symtab.present) {
		fmt(why, cap, "debug file %s has no symbol table%s", cand,
		    dbg->symtab.too_big ? " kept: over the memory allowed" : "");
		ok = false;
	}
	if (ok)
		drop_dynsym(dbg);
	else
		elf_info_free(dbg);
	close(fd);
	return ok;
}

/* path = PREFIX INNER, PREFIX being /proc/N/root of a task (its mount namespace), else "";
 * false for a /proc/N/map_files/ path (no directory of its own to look in). */
static bool split_root(const char *path, char *prefix, size_t cap, const char **inner)
{
	*inner = path;
	prefix[0] = '\0';
	if (strncmp(path, "/proc/", 6) != 0)
		return true;
	const char *p = path + 6;
	size_t d = strspn(p, "0123456789");
	if (d == 0)
		return true;
	if (strncmp(p + d, "/map_files/", 11) == 0)
		return false;
	if (strncmp(p + d, "/root/", 6) != 0)
		return true;
	size_t n = (size_t)(p + d + 5 - path);
	if (n >= cap)
		return true;
	memcpy(prefix, path, n);
	prefix[n] = '\0';
	*inner = path + n;
	return true;
}

/* e's debug file is the one at path: the task's own when it is under the task's root
 * (prefix) and that root is foreign. */
static void debug_taken(const struct job *j, struct entry *e, const char *prefix,
                        const char *path)
{
	e->have_dbg = true;
	e->dbg_foreign = j->place.foreign && prefix[0] && !strncmp(path, prefix, strlen(prefix));
}

/* Find bin's debug file: by build-id under each debug root, then by its debuglink beside it,
 * in its .debug/ and under each root by its directory. */
static void debug_find(struct job *j, const struct stat *bst, struct entry *e)
{
	char prefix[64], roots[2][PATH_MAX], cand[PATH_MAX];
	const char *inner;
	bool has_dir = split_root(j->path, prefix, sizeof(prefix), &inner);
	size_t nroots = 1;
	if (!fmt(roots[0], sizeof(roots[0]), "%s", j->root ? j->root : DEBUG_ROOT))
		return;
	if (prefix[0] && !j->root)             /* the task's own, in its mount namespace */
		nroots += fmt(roots[nroots], sizeof(roots[0]), "%s%s", prefix, DEBUG_ROOT);
	char hex[2 * ELF_BUILD_ID_MAX + 1];
	elf_build_id_hex(&e->bin, hex, sizeof(hex));
	e->dbg_why[0] = '\0';
	for (size_t r = 0; r < nroots && hex[0] && hex[1] && hex[2]; r++) {
		if (!fmt(cand, sizeof(cand), "%s/.build-id/%.2s/%s.debug", roots[r], hex, hex + 2))
			continue;
		if (try_debug(cand, &e->bin, bst, false, j->max_bytes, &e->dbg, e->dbg_why,
		              sizeof(e->dbg_why)))
			return debug_taken(j, e, prefix, cand);
	}
	if (!e->bin.have_debuglink || !has_dir)
		return;
	/* its directory: "." for a name in the working directory; only an absolute one is
	 * also looked for under the roots */
	const char *slash = strrchr(inner, '/'), *dir = slash ? inner : ".";
	int dlen = slash ? (int)(slash - inner) : 1;
	const char *name = e->bin.debuglink;
	char tries[2 + 2][PATH_MAX];
	size_t n = 0;
	n += fmt(tries[n], PATH_MAX, "%s%.*s/%s", prefix, dlen, dir, name);
	n += fmt(tries[n], PATH_MAX, "%s%.*s/.debug/%s", prefix, dlen, dir, name);
	for (size_t r = 0; r < nroots && inner[0] == '/'; r++)
		n += fmt(tries[n], PATH_MAX, "%s%.*s/%s", roots[r], dlen, inner, name);
	for (size_t i = 0; i < n; i++)
		if (try_debug(tries[i], &e->bin, bst, true, j->max_bytes, &e->dbg, e->dbg_why,
		              sizeof(e->dbg_why)))
			return debug_taken(j, e, prefix, tries[i]);
}

/* Open j's file: its path, or the file task j->tgid has mapped (j->path then becomes its path
 * under /proc/TGID/root, where its debug file is looked for: the task's mount namespace). */
static int job_open(struct job *j)
{
	if (j->tgid <= 0) {
		int fd = open_regular(j->path);
		if (fd < 0)
			snprintf(j->why, sizeof(j->why), "cannot open it: %s", cgw_strerror(-fd));
		return fd;
	}
	static const char del[] = " (deleted)";
	size_t len = j->map.path_len, dl = sizeof(del) - 1;
	if (len > dl && !memcmp(j->map.path + len - dl, del, dl))
		len -= dl;                     /* its directory may still hold its debug file */
	char used[PATH_MAX + 64];
	struct stat mst;
	int fd = mapfile_open(j->tgid, &j->map, &mst, j->why, sizeof(j->why));
	int n = snprintf(used, sizeof(used), "/proc/%d/root%.*s", j->tgid, (int)len, j->map.path);
	char *np = fd >= 0 && n > 0 && (size_t)n < sizeof(used) ? try_strdup(used) : NULL;
	if (fd >= 0 && !np) {
		close(fd);
		snprintf(j->why, sizeof(j->why), "no memory");
		return -ENOMEM;
	}
	if (np) {
		free(j->path);
		j->path = np;
	}
	return fd;
}

static bool same_inode(const struct stat *a, const struct stat *b)
{
	return a->st_dev == b->st_dev && a->st_ino == b->st_ino;
}

/* Where task tgid's debug files are looked for besides cgwatch's roots (tgid <= 0, a path
 * here: nowhere else): foreign unless its mount namespace and root are cgwatch's, or the
 * host's (the daemon's unit gives cgwatch a namespace of its own): PID 1's, or kthreadd's
 * (PID 2: a kernel thread has the initial ones; some hosts' PID 1 refuses us its ns link).
 * What cannot be told is foreign: its names are then marked. */
static struct place place_of(int tgid)
{
	struct place p = { 0 };
	if (tgid <= 0)
		return p;
	char path[64];
	struct stat tn, tr, on, orr;
	snprintf(path, sizeof(path), "/proc/%d/ns/mnt", tgid);
	bool ns = stat(path, &tn) == 0;
	snprintf(path, sizeof(path), "/proc/%d/root/", tgid);
	bool root = stat(path, &tr) == 0;
	static const char *const sys[][2] = {
		{ "/proc/thread-self/ns/mnt", "/" }, { "/proc/1/ns/mnt", "/proc/1/root/" },
		{ "/proc/2/ns/mnt", "/proc/2/root/" },
	};
	for (size_t i = 0; i < sizeof(sys) / sizeof(sys[0]) && ns && root; i++)
		if (stat(sys[i][0], &on) == 0 && stat(sys[i][1], &orr) == 0 && same_inode(&tn, &on) &&
		    same_inode(&tr, &orr))
			return p;                  /* the system's: its /usr/lib/debug is the host's */
	p.foreign = true;
	if (ns) {
		p.ns_dev = tn.st_dev;
		p.ns_ino = tn.st_ino;
	}
	if (root) {
		p.root_dev = tr.st_dev;
		p.root_ino = tr.st_ino;
	}
	return p;
}

static void job_fn(void *arg)
{
	struct job *j = arg;
	j->place = place_of(j->tgid);
	int fd = job_open(j);
	if (fd < 0) {
		j->err = fd;
		return;
	}
	struct stat s;
	if (fstat(fd, &s) < 0) {
		j->err = -errno;
		snprintf(j->why, sizeof(j->why), "fstat: %s", strerror(errno));
		close(fd);
		return;
	}
	struct key k = key_of(&s);
	pthread_mutex_lock(&lock);
	j->e = find_locked(&k, NULL, &j->place);
	pthread_mutex_unlock(&lock);
	if (j->e) {
		close(fd);
		return;
	}
	struct entry *e = try_calloc(1, sizeof(*e));
	if (!e) {
		j->err = -ENOMEM;
		snprintf(j->why, sizeof(j->why), "no memory");
		close(fd);
		return;
	}
	e->keys[e->nkeys++] = k;
	e->place = j->place;
	int r = elf_parse_head(fd_read, &fd, (uint64_t)s.st_size, &e->bin);
	if (r == 0 && e->bin.build_id_len) {   /* the same build by another path? */
		pthread_mutex_lock(&lock);
		j->e = find_locked(&k, &e->bin, &j->place);
		pthread_mutex_unlock(&lock);
		if (j->e) {
			entry_free(e);
			close(fd);
			return;
		}
	}
	if (r == 0)
		r = elf_parse_syms(fd_read, &fd, j->max_bytes, &e->bin);
	close(fd);
	if (r < 0) {
		j->err = r;
		snprintf(j->why, sizeof(j->why), "%s", e->bin.why);
		entry_free(e);
		return;
	}
	if (!e->bin.symtab.present)
		debug_find(j, &s, e);
	if (e->bin.symtab.present || e->have_dbg)    /* .dynsym is a part of .symtab */
		drop_dynsym(&e->bin);
	e->bytes = sizeof(*e) + e->bin.bytes + e->dbg.bytes;
	e->made_ms = mono_ms();
	e->refs = 1;                           /* the job's */
	pthread_mutex_lock(&lock);
	insert_locked(e);
	pthread_mutex_unlock(&lock);
	j->e = e;
}

static void job_free(struct job *j)
{
	if (j->e)
		unref(j->e);
	free(j->path);
	free(j->root);
	free(j);
}

static void job_release(void *arg)
{
	job_free(arg);
}

/* One offset of entry e into out (filled but for why's prefix). -ERANGE or 0. */
static int name_one(const struct entry *e, uint64_t file_off, struct elf_sym *out)
{
	elf_build_id_hex(&e->bin, out->build_id, sizeof(out->build_id));
	if (elf_vaddr_of(&e->bin, file_off, &out->vaddr) < 0) {
		snprintf(out->why, sizeof(out->why), "offset %#llx is in no loadable segment",
		         (unsigned long long)file_off);
		return -ERANGE;
	}
	out->have_vaddr = true;
	elf_symbolize(&e->bin, e->have_dbg ? &e->dbg : NULL, out->vaddr, out);
	out->from_task_mntns = out->from == ELFSYM_DEBUG && e->dbg_foreign;
	if ((out->from == ELFSYM_NONE || out->from == ELFSYM_DYNSYM) && e->dbg_why[0]) {
		size_t n = strlen(out->why);
		snprintf(out->why + n, sizeof(out->why) - n, "%s%s", n ? "; " : "", e->dbg_why);
	}
	return 0;
}

/* elfsym_names of path, or (tgid > 0) of the file tgid maps at *map, its path path; key: the
 * file's name for dl_call_path (one reader per file). */
static int names(const char *path, int tgid, const struct maps_ent *map, const char *key,
                 const uint64_t *file_off, size_t n, struct elf_sym *out, unsigned timeout_ms)
{
	memset(out, 0, n * sizeof(*out));
	struct job *j = try_calloc(1, sizeof(*j));
	if (j) {
		j->path = try_strdup(path);
		j->tgid = tgid;
		if (map && j->path) {
			j->map = *map;
			j->map.path = j->path;
			j->map.path_len = strlen(j->path);
		}
	}
	pthread_mutex_lock(&lock);
	st.lookups += n;
	if (j) {
		j->root = debug_root ? try_strdup(debug_root) : NULL;
		j->max_bytes = cap_bytes / 2;
	}
	bool nomem = !j || !j->path || (debug_root && !j->root);
	pthread_mutex_unlock(&lock);
	char why[sizeof(out->why)];
	int r = nomem ? -ENOMEM : dl_call_path(key, job_fn, j, job_release, timeout_ms);
	if (nomem) {
		if (j)
			job_free(j);
		snprintf(why, sizeof(why), "no memory");
	} else if (r < 0) {                    /* j is the worker's now, or released */
		if (r == -ETIMEDOUT)
			snprintf(why, sizeof(why), "reading it timed out after %u ms", timeout_ms);
		else if (r == -EBUSY)
			snprintf(why, sizeof(why), "not read: too many reads are stuck");
		else
			snprintf(why, sizeof(why), "not read: %s", strerror(-r));
	} else if (j->err < 0) {
		r = j->err;
		snprintf(why, sizeof(why), "%s", j->why);
		job_free(j);
	}
	if (r < 0) {
		for (size_t i = 0; i < n; i++)
			memcpy(out[i].why, why, sizeof(why));
		return r;
	}
	for (size_t i = 0; i < n; i++)
		name_one(j->e, file_off[i], &out[i]);
	job_free(j);
	return 0;
}

int elfsym_names(const char *path, const uint64_t *file_off, size_t n, struct elf_sym *out,
                 unsigned timeout_ms)
{
	return names(path, 0, NULL, path, file_off, n, out, timeout_ms);
}

int elfsym_names_mapped(int tgid, const struct maps_ent *e, const uint64_t *file_off, size_t n,
                        struct elf_sym *out, unsigned timeout_ms)
{
	/* the file by its identity: the same binary in every process that maps it, so one
	 * that does not answer is read by one thread, not one per process */
	char path[PATH_MAX], key[64];
	size_t len = e->path_len < sizeof(path) - 1 ? e->path_len : sizeof(path) - 1;
	memcpy(path, e->path, len);
	path[len] = '\0';
	snprintf(key, sizeof(key), "mapped %u:%u %lu", e->dev_major, e->dev_minor, e->inode);
	return names(path, tgid, e, key, file_off, n, out, timeout_ms);
}

int elfsym_name(const char *path, uint64_t file_off, struct elf_sym *out, unsigned timeout_ms)
{
	int r = elfsym_names(path, &file_off, 1, out, timeout_ms);
	return r < 0 ? r : out->have_vaddr ? 0 : -ERANGE;
}

void elfsym_stats(struct elfsym_stats *out)
{
	pthread_mutex_lock(&lock);
	*out = st;
	out->files = ncache;
	out->bytes = cache_bytes;
	pthread_mutex_unlock(&lock);
}

void elfsym_cache_clear(void)
{
	pthread_mutex_lock(&lock);
	while (ncache)
		drop_locked(ncache - 1);
	pthread_mutex_unlock(&lock);
}

void elfsym_set_debug_root(const char *root)
{
	char *copy = root ? xstrdup(root) : NULL;
	pthread_mutex_lock(&lock);
	free(debug_root);
	debug_root = copy;
	while (ncache)
		drop_locked(ncache - 1);
	pthread_mutex_unlock(&lock);
}

void elfsym_set_cache_bytes(size_t bytes)
{
	pthread_mutex_lock(&lock);
	cap_bytes = bytes ? bytes : ELFSYM_CACHE_BYTES;
	while (ncache && cache_bytes > cap_bytes)
		evict_locked(0);
	pthread_mutex_unlock(&lock);
}
