/* source-ehframe.c: the unwind tables of the files other processes map, found for libunwind's
 * remote unwinder (its find_proc_info), and cached by binary.
 *
 * A frame's unwind info is in its file's .eh_frame, indexed by .eh_frame_hdr (PT_GNU_EH_FRAME).
 * The file is the one mapped, opened through /proc/TGID/map_files (source-mapfile.c): the
 * process's own, even in another mount namespace or deleted since, never another at the same
 * path. Its headers are parsed once per binary (parse-elf.c, parse-ehframe.c), and the bytes
 * from the header to the end of its segment (.eh_frame_hdr, .eh_frame) copied: libunwind
 * then searches the table and reads FDEs and CIEs from that copy (ehtab_mem, through the
 * unwinder's access_mem) instead of the target's memory, whose every page read waits on the
 * target's mmap lock. A table too large to copy is read from the target's memory instead.
 *
 * The cache is keyed by build-id and size (the same build mapped from another path, in a
 * container, is the same entry), else device, inode, mtime and size; bounded in files and
 * bytes, least recently used dropped first; shared by every unwind and every scan. Entries
 * are immutable once made and counted: the cache holds one reference, each process's list of
 * mappings found (struct ehtab_proc) one per mapping. The unwinds run in the deadline's
 * helper threads, one of which may be left waiting past its deadline: everything shared is
 * under one lock, and a process's list is used by one unwind at a time. */
#include <errno.h>
#include <libunwind.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgwatch.h"

/* libunwind's search of a table (dwarf/Gfind_proc_info-lsb.c), exported by the generic
 * (remote) library under this name, not declared in its headers */
extern int _Ux86_64_dwarf_search_unwind_table(unw_addr_space_t as, unw_word_t ip,
                                              unw_dyn_info_t *di, unw_proc_info_t *pi,
                                              int need_unwind_info, void *arg);

#ifndef EHTAB_COPY_MAX
#define EHTAB_COPY_MAX (EHTAB_CACHE_BYTES / 4)   /* a file's table copied, at most */
#endif
#define HDR_MAX (16u << 20)                      /* an .eh_frame_hdr read, at most */
#define KEYS_MAX 4
#define PROC_MAPS 32                             /* mappings a process's list keeps */

struct key { dev_t dev; ino_t ino; int64_t mtime_ns; uint64_t size; };

struct ehent {
	unsigned refs;
	struct key keys[KEYS_MAX];
	size_t nkeys;
	uint8_t build_id[ELF_BUILD_ID_MAX];
	size_t build_id_len;
	struct elf_load load[ELF_MAX_LOAD];
	size_t nload;
	uint64_t lo, hi;                  /* link-time addresses its segments span */
	bool have_tab;                    /* else why says why there is no table */
	uint64_t hdr_vaddr;
	struct eh_frame_hdr hdr;
	uint8_t *data;                    /* the file's bytes at data_vaddr (NULL: not copied) */
	uint64_t data_vaddr, data_len;
	char why[160];
	uint64_t used;
	size_t bytes;
};

struct ehtab_proc {
	int tgid;
	bool here;                        /* a replay's: the files at the maps paths here */
	struct pmap {
		unsigned long start, end;
		struct ehent *e;              /* referenced; NULL: its file could not be had */
		uint64_t bias;                /* runtime - link-time address */
		char why[200];
	} m[PROC_MAPS];
	size_t n, next, last;
};

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static struct ehent *cache[EHTAB_CACHE_FILES];
static size_t ncache, cache_bytes;
static uint64_t tick;
static struct ehtab_stats st;

static void ent_unref_locked(struct ehent *e)
{
	if (e && --e->refs == 0) {
		free(e->data);
		free(e);
	}
}

static void drop_locked(size_t i)
{
	struct ehent *e = cache[i];
	cache[i] = cache[--ncache];
	cache_bytes -= e->bytes;
	ent_unref_locked(e);
}

static bool key_eq(const struct key *a, const struct key *b)
{
	return a->dev == b->dev && a->ino == b->ino && a->mtime_ns == b->mtime_ns &&
	       a->size == b->size;
}

/* The entry of file k, or of the build bid (len bytes, 0: none) of k's size; referenced. */
static struct ehent *find_locked(const struct key *k, const uint8_t *bid, size_t len)
{
	for (size_t i = 0; i < ncache; i++) {
		struct ehent *e = cache[i];
		bool hit = false;
		for (size_t j = 0; j < e->nkeys && !hit; j++)
			hit = key_eq(&e->keys[j], k);
		if (!hit && len && e->build_id_len == len && !memcmp(e->build_id, bid, len) &&
		    e->keys[0].size == k->size) {
			hit = true;
			e->keys[e->nkeys < KEYS_MAX ? e->nkeys++ : (size_t)(tick % KEYS_MAX)] = *k;
		}
		if (!hit)
			continue;
		e->refs++;
		e->used = ++tick;
		st.hits++;
		return e;
	}
	return NULL;
}

/* Keep e (referenced by the caller), the least recently used dropped past the caps. */
static void insert_locked(struct ehent *e)
{
	st.parses++;
	if (e->bytes > EHTAB_CACHE_BYTES)
		return;
	while (ncache && (ncache == EHTAB_CACHE_FILES || cache_bytes + e->bytes > EHTAB_CACHE_BYTES)) {
		size_t old = 0;
		for (size_t i = 1; i < ncache; i++)
			if (cache[i]->used < cache[old]->used)
				old = i;
		drop_locked(old);
	}
	e->refs++;
	e->used = ++tick;
	cache[ncache++] = e;
	cache_bytes += e->bytes;
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
			return -EIO;
		done += (size_t)r;
	}
	return 0;
}

/* Parse the file at fd (key k) into a new entry (referenced; NULL: no memory), or find the
 * same build in the cache. Its table, or why it has none, in the entry. */
static struct ehent *ent_make(int fd, const struct key *k)
{
	struct elf_info *in = try_calloc(1, sizeof(*in));
	struct ehent *e = try_calloc(1, sizeof(*e));
	if (!in || !e) {
		free(in);
		free(e);
		return NULL;
	}
	e->keys[e->nkeys++] = *k;
	int r = elf_parse_head(fd_read, &fd, k->size, in);
	if (r == 0 && in->build_id_len) {           /* the same build by another path? */
		pthread_mutex_lock(&lock);
		struct ehent *o = find_locked(k, in->build_id, in->build_id_len);
		pthread_mutex_unlock(&lock);
		if (o) {
			free(in);
			free(e);
			return o;
		}
	}
	uint8_t *hb = NULL;
	bool keep = r == 0 || r == -ENOEXEC || r == -EINVAL || r == -E2BIG;
	if (r < 0)
		snprintf(e->why, sizeof(e->why), "its file is not read: %.120s", in->why);
	else if (!in->have_eh_hdr)
		snprintf(e->why, sizeof(e->why), "its file has no unwind table (.eh_frame_hdr)");
	else if (in->eh_hdr.filesz > HDR_MAX || in->eh_hdr.off > k->size ||
	         in->eh_hdr.filesz > k->size - in->eh_hdr.off)
		snprintf(e->why, sizeof(e->why), "its unwind table (.eh_frame_hdr of %llu bytes at "
		         "%#llx) is not in the file or too large", (unsigned long long)in->eh_hdr.filesz,
		         (unsigned long long)in->eh_hdr.off);
	else if (!(hb = try_malloc(in->eh_hdr.filesz ? in->eh_hdr.filesz : 1)) ||
	         (r = fd_read(&fd, in->eh_hdr.off, hb, in->eh_hdr.filesz)) < 0)
		keep = !snprintf(e->why, sizeof(e->why), "its unwind table is not read: %s",
		                 hb ? strerror(-r) : "no memory");
	else if ((r = parse_eh_frame_hdr(hb, in->eh_hdr.filesz, in->eh_hdr.vaddr, &e->hdr)) < 0)
		snprintf(e->why, sizeof(e->why), "its unwind table (.eh_frame_hdr) is %s",
		         r == -ENOTSUP ? "of a kind libunwind does not search" : "malformed");
	else {
		e->have_tab = true;
		e->hdr_vaddr = in->eh_hdr.vaddr;
		uint64_t off, vaddr, len;
		if (eh_frame_span(in, &e->hdr, &off, &vaddr, &len) == 0 && len <= EHTAB_COPY_MAX &&
		    len <= k->size && off <= k->size - len && (e->data = try_malloc(len ? len : 1))) {
			if (fd_read(&fd, off, e->data, len) == 0) {
				e->data_vaddr = vaddr;
				e->data_len = len;
			} else {
				free(e->data);
				e->data = NULL;
			}
		}
	}
	free(hb);
	if (r == 0 || in->nload) {
		memcpy(e->build_id, in->build_id, in->build_id_len);
		e->build_id_len = in->build_id_len;
		memcpy(e->load, in->load, in->nload * sizeof(*in->load));
		e->nload = in->nload;
		e->lo = UINT64_MAX;
		for (size_t i = 0; i < e->nload; i++) {
			if (e->load[i].vaddr < e->lo)
				e->lo = e->load[i].vaddr;
			if (e->load[i].vaddr + e->load[i].memsz > e->hi)
				e->hi = e->load[i].vaddr + e->load[i].memsz;
		}
	}
	elf_info_free(in);
	free(in);
	e->bytes = sizeof(*e) + (size_t)e->data_len;
	e->refs = 1;
	pthread_mutex_lock(&lock);
	if (keep)                                    /* else looked at again next time */
		insert_locked(e);
	pthread_mutex_unlock(&lock);
	return e;
}

struct ehtab_proc *ehtab_proc_new(int tgid, bool here)
{
	struct ehtab_proc *p = try_calloc(1, sizeof(*p));
	if (p) {
		p->tgid = tgid;
		p->here = here;
	}
	return p;
}

/* A replay's file: the one at the maps path here (its caller checked it is the recorded
 * build). An fd, or -errno with why. */
static int open_here(const struct maps_ent *me, struct stat *s, char *why, size_t cap)
{
	char path[4096];
	int fd = -ENAMETOOLONG;
	if (me->path_len < sizeof(path)) {
		memcpy(path, me->path, me->path_len);
		path[me->path_len] = '\0';
		fd = open_regular(path);
	}
	if (fd >= 0 && fstat(fd, s) < 0) {
		close(fd);
		fd = -errno;
	}
	if (fd < 0)
		snprintf(why, cap, "its file cannot be opened here (%s)", cgw_strerror(-fd));
	return fd;
}

void ehtab_proc_free(struct ehtab_proc *p)
{
	if (!p)
		return;
	pthread_mutex_lock(&lock);
	for (size_t i = 0; i < p->n; i++)
		ent_unref_locked(p->m[i].e);
	pthread_mutex_unlock(&lock);
	free(p);
}

/* The link-time address of file offset off in e's segments (an executable one first). */
static bool vaddr_of(const struct ehent *e, uint64_t off, uint64_t *v)
{
	for (int pass = 0; pass < 2; pass++)
		for (size_t i = 0; i < e->nload; i++) {
			const struct elf_load *l = &e->load[i];
			if ((pass == 0) != ((l->flags & 1) != 0))   /* PF_X */
				continue;
			if (off >= l->off && off - l->off < l->filesz) {
				*v = l->vaddr + (off - l->off);
				return true;
			}
		}
	return false;
}

/* The mapping holding ip in p's list, found (its file opened and its entry had) if new. */
static struct pmap *pmap_of(struct ehtab_proc *p, const struct maps_index *maps, uint64_t ip)
{
	for (size_t i = 0; i < p->n; i++)
		if (ip >= p->m[i].start && ip < p->m[i].end)
			return &p->m[i];
	const struct maps_ent *mp = maps_index_find(maps, ip);
	if (!mp || !mp->x)
		return NULL;
	const struct maps_ent me = *mp;
	size_t i = p->n < PROC_MAPS ? p->n++ : p->next++ % PROC_MAPS;
	struct pmap *m = &p->m[i];
	pthread_mutex_lock(&lock);
	ent_unref_locked(m->e);                      /* a slot reused: its old mapping's */
	st.lookups++;
	pthread_mutex_unlock(&lock);
	memset(m, 0, sizeof(*m));
	m->start = me.start;
	m->end = me.end;
	if (me.path_len == 0 || me.path[0] != '/') {
		snprintf(m->why, sizeof(m->why), "it is in no file (%.*s)",
		         (int)(me.path_len < 40 ? me.path_len : 40), me.path);
		return m;
	}
	struct stat s;
	int fd = p->here ? open_here(&me, &s, m->why, sizeof(m->why)) :
	         mapfile_open(p->tgid, &me, &s, m->why, sizeof(m->why));
	if (fd < 0)
		return m;
	struct key k = { s.st_dev, s.st_ino,
	                 (int64_t)s.st_mtim.tv_sec * 1000000000 + s.st_mtim.tv_nsec,
	                 (uint64_t)s.st_size };
	pthread_mutex_lock(&lock);
	m->e = find_locked(&k, NULL, 0);
	pthread_mutex_unlock(&lock);
	if (!m->e && !(m->e = ent_make(fd, &k)))
		snprintf(m->why, sizeof(m->why), "no memory for its unwind table");
	close(fd);
	uint64_t v;
	if (m->e && m->e->have_tab && !vaddr_of(m->e, ip - me.start + me.off, &v)) {
		snprintf(m->why, sizeof(m->why), "its pc is in no loadable segment of its file");
		pthread_mutex_lock(&lock);
		ent_unref_locked(m->e);
		pthread_mutex_unlock(&lock);
		m->e = NULL;
	} else if (m->e && m->e->have_tab)
		m->bias = ip - v;
	return m;
}

int ehtab_find_proc_info(struct ehtab_proc *p, const struct maps_index *maps,
                         struct unw_addr_space *as, uint64_t ip, struct unw_proc_info *pi,
                         int need_unwind_info, void *arg, char *why, size_t cap)
{
	struct pmap *m = pmap_of(p, maps, ip);
	if (!m) {
		snprintf(why, cap, "its pc is in no executable mapping");
		return -UNW_ENOINFO;
	}
	const struct ehent *e = m->e;
	if (!e || !e->have_tab) {
		snprintf(why, cap, "%s", e ? e->why : m->why);
		return -UNW_ENOINFO;
	}
	unw_dyn_info_t di;
	memset(&di, 0, sizeof(di));
	di.start_ip = m->bias + e->lo;
	di.end_ip = m->bias + e->hi;
	if (ip < di.start_ip || ip >= di.end_ip) {
		snprintf(why, cap, "its pc is outside its file's segments");
		return -UNW_ENOINFO;
	}
	di.format = UNW_INFO_FORMAT_REMOTE_TABLE;
	di.u.rti.segbase = m->bias + e->hdr_vaddr;
	di.u.rti.table_data = m->bias + e->hdr.table;
	di.u.rti.table_len = e->hdr.fde_count * 8 / sizeof(unw_word_t);
	memset(pi, 0, sizeof(*pi));
	/* no entry (code without CFI, as _start in some files): why stays empty, and libunwind
	 * tries what it does without unwind info */
	return _Ux86_64_dwarf_search_unwind_table(as, ip, &di, pi, need_unwind_info, arg);
}

bool ehtab_mem(struct ehtab_proc *p, uint64_t addr, uint64_t *val)
{
	for (size_t k = 0; k < p->n; k++) {
		size_t i = (p->last + k) % p->n;
		const struct ehent *e = p->m[i].e;
		if (!e || !e->data)
			continue;
		uint64_t lo = p->m[i].bias + e->data_vaddr;
		if (addr < lo || addr - lo > e->data_len || e->data_len - (addr - lo) < sizeof(*val))
			continue;
		memcpy(val, e->data + (addr - lo), sizeof(*val));
		p->last = i;
		return true;
	}
	return false;
}

void ehtab_stats(struct ehtab_stats *out)
{
	pthread_mutex_lock(&lock);
	*out = st;
	out->files = ncache;
	out->bytes = cache_bytes;
	pthread_mutex_unlock(&lock);
}

void ehtab_cache_clear(void)
{
	pthread_mutex_lock(&lock);
	while (ncache)
		drop_locked(ncache - 1);
	pthread_mutex_unlock(&lock);
}
