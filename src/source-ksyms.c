/* source-ksyms.c: kernel addresses named, for the stacks the task iterator reads as addresses
 * (source-bpf.c). Two ways, the cheaper first:
 *  - the kernel's own names: /proc/TID/stack of one task per distinct stack, which the kernel
 *    prints with %pB. The file is read after the iterator's record, so it shows the same stack
 *    only if the task did not run in between: its schedstat (CPU time and times it got a CPU)
 *    read after the file must equal the record's, else the names are not taken from it;
 *  - /proc/kallsyms, read whole (200,000 lines the kernel formats: most of a check's fixed
 *    cost) only for addresses the first way did not name, and kept while new ones come.
 * Names are cached by address for the life of the daemon. */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgwatch.h"

struct ksym_cached { uint64_t addr; char *text; char *name; };
struct klock { uint64_t addr; char name[64]; };   /* a lock's address named ("": no symbol) */
/* Locks named, at most (then forgotten, all at once) */
#define KLOCKS_MAX 256
struct kline { uint64_t addr; size_t off; };   /* a /proc/kallsyms line, by address */

struct cgw_ksyms {
	struct ksym_cached *syms; size_t nsyms, syms_cap;   /* addresses named, kept sorted */
	struct klock *locks; size_t nlocks;  /* lock addresses named */
	char *ktext; size_t klen;            /* /proc/kallsyms, while new addresses come */
	struct kline *kl; size_t nk;
	bool ktab_used;                      /* this scan named an address the caches did not hold */
	size_t from_stackfile, from_kallsyms;   /* addresses named each way (tests, --verbose) */
};

struct cgw_ksyms *ksyms_new(void)
{
	return calloc(1, sizeof(struct cgw_ksyms));
}

static void ktab_free(struct cgw_ksyms *b);

void ksyms_free(struct cgw_ksyms *b)
{
	if (!b)
		return;
	for (size_t i = 0; i < b->nsyms; i++) {
		free(b->syms[i].text);
		free(b->syms[i].name);
	}
	free(b->syms);
	free(b->locks);
	ktab_free(b);
	free(b);
}

static int sym_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct ksym_cached *)a)->addr, y = ((const struct ksym_cached *)b)->addr;
	return x < y ? -1 : x > y;
}

static const struct ksym_cached *sym_find(const struct cgw_ksyms *b, uint64_t addr)
{
	struct ksym_cached key = { addr, NULL, NULL };
	return b->nsyms ? (const struct ksym_cached *)bsearch(&key, b->syms, b->nsyms, sizeof(*b->syms), sym_cmp) : NULL;
}

static int addr_cmp(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = *(const uint64_t *)b;
	return x < y ? -1 : x > y;
}

/* Add addr named by text (the kernel's %pB form) to the cache, unsorted: the caller sorts. */
static bool sym_add(struct cgw_ksyms *b, uint64_t addr, const char *text)
{
	if (grow((void **)&b->syms, &b->syms_cap, b->nsyms, 64, sizeof(*b->syms)) < 0)
		return false;
	char name[128];
	b->syms[b->nsyms].addr = addr;
	b->syms[b->nsyms].text = xstrdup(text);
	b->syms[b->nsyms].name = xstrdup(frame_name(text, name, sizeof(name)));
	b->nsyms++;
	return true;
}

static int kline_cmp(const void *a, const void *b)
{
	uint64_t x = ((const struct kline *)a)->addr, y = ((const struct kline *)b)->addr;
	return x < y ? -1 : x > y;
}

static void ktab_free(struct cgw_ksyms *b)
{
	free(b->ktext);
	free(b->kl);
	b->ktext = NULL;
	b->kl = NULL;
	b->klen = b->nk = 0;
}

/* /proc/kallsyms read once, its lines indexed by address. 0, or -1 when it holds no address
 * (or memory ran out): nothing loaded. */
static int ktab_load(struct cgw_ksyms *b)
{
	int err = 0;
	size_t len = 0, cap = 0;
	char *text = NULL;
	int fd = open("/proc/kallsyms", O_RDONLY | O_CLOEXEC);
	if (fd >= 0) {
		for (;;) {
			if (cap - len < 65536) {
				char *nt = realloc(text, cap = cap ? cap * 2 : 8 << 20);
				if (!nt) {
					err = 1;
					break;
				}
				text = nt;
			}
			ssize_t r = read(fd, text + len, cap - len);
			if (r < 0 && errno == EINTR)
				continue;
			if (r <= 0)
				break;
			len += (size_t)r;
		}
		close(fd);
	}
	struct kline *kl = NULL;
	size_t nk = 0, kcap = 0;
	for (size_t i = 0; !err && i < len;) {
		const char *nl = memchr(text + i, '\n', len - i);
		size_t l = nl ? (size_t)(nl - (text + i)) + 1 : len - i;
		struct cgw_ksym k;
		if (kallsyms_line(text + i, l, &k) == 0 && k.addr) {
			if (grow((void **)&kl, &kcap, nk, 65536, sizeof(*kl)) < 0)
				err = 1;
			else
				kl[nk++] = (struct kline){ k.addr, i };
		}
		i += l;
	}
	if (err || !nk) {
		free(kl);
		free(text);
		return -1;
	}
	qsort(kl, nk, sizeof(*kl), kline_cmp);
	b->ktext = text;
	b->klen = len;
	b->kl = kl;
	b->nk = nk;
	return 0;
}

bool ksyms_resolve(struct cgw_ksyms *b, const uint64_t *want, size_t n)
{
	size_t todo = 0;
	for (size_t i = 0; i < n; i++)
		todo += !sym_find(b, want[i]);
	if (!todo)
		return true;
	b->ktab_used = true;
	if (!b->kl && ktab_load(b) < 0)
		return false;
	uint64_t *u = malloc(n * sizeof(*u));      /* each address once */
	if (!u)
		return false;
	memcpy(u, want, n * sizeof(*u));
	qsort(u, n, sizeof(*u), addr_cmp);
	size_t nu = 0;
	for (size_t i = 0; i < n; i++)
		if (!sym_find(b, u[i]) && (nu == 0 || u[nu - 1] != u[i]))
			u[nu++] = u[i];
	want = u;
	n = nu;
	const struct kline *kl = b->kl;
	size_t nk = b->nk, len = b->klen;
	const char *text = b->ktext;
	for (size_t i = 0; i < n; i++) {
		uint64_t a = want[i], q = a - 1;
		char out[256];
		snprintf(out, sizeof(out), "0x%llx", (unsigned long long)a);
		/* the last symbol at or below q */
		size_t lo = 0, hi = nk;
		while (lo < hi) {
			size_t mid = (lo + hi) / 2;
			if (kl[mid].addr <= q)
				lo = mid + 1;
			else
				hi = mid;
		}
		if (lo > 0) {
			size_t j = lo - 1, nx = lo;
			while (nx < nk && kl[nx].addr == kl[j].addr)
				nx++;
			struct cgw_ksym k;
			const char *line = text + kl[j].off;
			const char *e = memchr(line, '\n', len - kl[j].off);
			kallsyms_line(line, e ? (size_t)(e - line) + 1 : len - kl[j].off, &k);
			unsigned long long size = nx < nk ? kl[nx].addr - k.addr : 0;
			int w = snprintf(out, sizeof(out), "%.*s+0x%llx/0x%llx", (int)k.name_len, k.name,
			                 (unsigned long long)(a - k.addr), size);
			if (k.mod && w > 0 && (size_t)w < sizeof(out))
				snprintf(out + w, sizeof(out) - (size_t)w, " [%.*s]", (int)k.mod_len, k.mod);
		}
		if (!sym_add(b, a, out))
			break;
		b->from_kallsyms++;
	}
	if (b->nsyms)
		qsort(b->syms, b->nsyms, sizeof(*b->syms), sym_cmp);
	free(u);
	return true;
}

/* The data symbol at exactly addr (a static lock), into out, from /proc/kallsyms; "" when
 * none: a lock inside a structure (an inode's, a cgroup's), or kallsyms without data (no
 * CONFIG_KALLSYMS_ALL). */
static void lock_lookup(struct cgw_ksyms *b, uint64_t addr, char *out, size_t cap)
{
	out[0] = '\0';
	b->ktab_used = true;
	if (!b->kl && ktab_load(b) < 0)
		return;
	size_t lo = 0, hi = b->nk;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (b->kl[mid].addr < addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	for (; lo < b->nk && b->kl[lo].addr == addr; lo++) {
		struct cgw_ksym k;
		const char *line = b->ktext + b->kl[lo].off;
		const char *e = memchr(line, '\n', b->klen - b->kl[lo].off);
		if (kallsyms_line(line, e ? (size_t)(e - line) + 1 : b->klen - b->kl[lo].off, &k) == 0 &&
		    strchr("dDbBrR", k.type)) {
			snprintf(out, cap, "%.*s", (int)k.name_len, k.name);
			return;
		}
	}
}

void ksyms_lock(struct cgw_ksyms *b, uint64_t addr, char *out, size_t cap)
{
	for (size_t i = 0; i < b->nlocks; i++)
		if (b->locks[i].addr == addr) {
			snprintf(out, cap, "%s", b->locks[i].name);
			return;
		}
	if (!b->locks && !(b->locks = calloc(KLOCKS_MAX, sizeof(*b->locks)))) {
		out[0] = '\0';
		return;
	}
	if (b->nlocks == KLOCKS_MAX)
		b->nlocks = 0;
	struct klock *l = &b->locks[b->nlocks++];
	l->addr = addr;
	lock_lookup(b, addr, l->name, sizeof(l->name));
	snprintf(out, cap, "%s", l->name);
	if (!b->kl)                        /* kallsyms not read: asked again at the next scan */
		b->nlocks--;
}


bool ksyms_named(const struct cgw_ksyms *b, const uint64_t *addrs, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if (!sym_find(b, addrs[i]))
			return false;
	return true;
}

bool ksyms_lookup(const struct cgw_ksyms *b, uint64_t addr, const char **text, const char **name)
{
	const struct ksym_cached *c = sym_find(b, addr);
	*text = c ? c->text : "?";
	*name = c ? c->name : "?";
	return c != NULL;
}

void ksyms_begin(struct cgw_ksyms *b)
{
	b->ktab_used = false;
}

void ksyms_end(struct cgw_ksyms *b)
{
	/* the table (its 8 MiB of text and 2 MiB of index here, locked with the rest) not kept
	 * past a scan whose addresses and locks the caches all held: an incident open for long,
	 * its stacks the same scan after scan, costs one read of the file, not 10 MiB */
	if (!b->ktab_used)
		ktab_free(b);
}

void ksyms_counts(const struct cgw_ksyms *b, size_t *stackfile, size_t *kallsyms)
{
	*stackfile = b->from_stackfile;
	*kallsyms = b->from_kallsyms;
}

bool ksyms_from_stackfile(struct cgw_ksyms *b, const uint64_t *addrs, size_t n,
                          const char *stack, ssize_t stack_len, const char *schedstat,
                          ssize_t schedstat_len, uint64_t run_ns, uint64_t slices)
{
	struct cgw_schedstat ss;
	if (stack_len <= 0 || schedstat_len <= 0 || parse_schedstat(schedstat, &ss) < 0 ||
	    ss.run_ns != run_ns || ss.slices != slices || ss.slices == 0)
		return false;                 /* it ran since (or no schedstat to tell) */
	struct cgw_frame *f;
	int nf = parse_stack_buf(stack, &f);
	if (nf < 0)
		return false;
	/* the same stack (both hold at most 64 frames): each frame the kernel's name of the
	 * record's address at that place */
	bool same = (size_t)nf == n;
	size_t added = 0;
	for (size_t i = 0; same && i < n; i++) {
		if (sym_find(b, addrs[i]))
			continue;
		bool dup = false;             /* an address twice in one stack (recursion) */
		for (size_t j = b->nsyms - added; j < b->nsyms && !dup; j++)
			dup = b->syms[j].addr == addrs[i];
		if (!dup && sym_add(b, addrs[i], f[i].text))
			added++;
	}
	frames_free(f, nf);
	b->from_stackfile += added;
	if (added)
		qsort(b->syms, b->nsyms, sizeof(*b->syms), sym_cmp);
	return same;
}
