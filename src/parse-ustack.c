/* parse-ustack.c: DIR/cgwatch/ustack/TGID, what a capture kept of one process's user-stack
 * unwinds so that a replay can unwind them again (pure: text in, structs out, and their text
 * out; and the store of memory words both use).
 *
 *     cgwatch-ustack 1
 *     unwound 812                  a thread whose unwind read the memory below
 *     note 813 TEXT                a thread not unwound live, and why (its ustack_error)
 *     module BUILDID PATH          a file the unwind used: its build-id (hex; "-": none
 *                                  known), PATH as /proc/TGID/maps names it (to the end)
 *     scan 7ffd2a3c1e00 8192       a frame-pointer scan read that many bytes of the stack at
 *                                  that address (hex), keeping only the words that count
 *     mem 7ffd2a3c1f08 1d2f...     bytes of its memory at that address, as read, in hex
 *     cut                          more memory was read than kept (MEM_MAX per unwind)
 *     redacted                     bundle --redact dropped the memory lines
 *
 * Only the bytes the unwind read are kept (the words of return addresses and saved
 * registers, of the unwind tables it looked up), never whole pages; of the stack a
 * frame-pointer scan looked through, only the words that could be a frame record's
 * (fpchain_word_counts), never its locals or the strings above them. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

#define LINE_BYTES 256                /* bytes per mem line written */

static size_t slot_of(uint64_t key, size_t cap)
{
	return (size_t)((key >> 3) * 0x9e3779b97f4a7c15ull >> 17) & (cap - 1);
}

static struct ustack_word *word_find(const struct ustack_mem *m, uint64_t key)
{
	if (!m->cap)
		return NULL;
	for (size_t i = slot_of(key, m->cap);; i = (i + 1) & (m->cap - 1)) {
		struct ustack_word *w = &m->w[i];
		if (!w->valid || w->addr == key)
			return w;
	}
}

static int mem_grow(struct ustack_mem *m)
{
	size_t ncap = m->cap ? m->cap * 2 : 64;
	struct ustack_word *nw = try_calloc(ncap, sizeof(*nw));
	if (!nw)
		return -ENOMEM;
	struct ustack_mem n = { nw, 0, ncap, m->bytes };
	for (size_t i = 0; i < m->cap; i++)
		if (m->w[i].valid) {
			*word_find(&n, m->w[i].addr) = m->w[i];
			n.n++;
		}
	free(m->w);
	*m = n;
	return 0;
}

int umem_put(struct ustack_mem *m, uint64_t addr, const void *b, size_t n)
{
	const uint8_t *p = b;
	if (n == 0)
		return 0;
	if (addr + n < addr)
		return -EINVAL;
	for (size_t i = 0; i < n; i++) {
		uint64_t a = addr + i, key = a & ~7ull;
		if ((m->n + 1) * 2 > m->cap && mem_grow(m) < 0)
			return -ENOMEM;
		struct ustack_word *w = word_find(m, key);
		if (!w->valid) {
			w->addr = key;
			m->n++;
		}
		uint8_t bit = (uint8_t)(1u << (a & 7));
		if (!(w->valid & bit))
			m->bytes++;
		w->valid |= bit;
		w->b[a & 7] = p[i];
	}
	return 0;
}

bool umem_get(const struct ustack_mem *m, uint64_t addr, void *b, size_t n)
{
	uint8_t *p = b;
	if (addr + n < addr)
		return false;
	for (size_t i = 0; i < n; i++) {
		uint64_t a = addr + i;
		const struct ustack_word *w = word_find(m, a & ~7ull);
		if (!w || !(w->valid & (1u << (a & 7))))
			return false;
		p[i] = w->b[a & 7];
	}
	return true;
}

void umem_free(struct ustack_mem *m)
{
	free(m->w);
	memset(m, 0, sizeof(*m));
}

void ustack_file_free(struct ustack_file *f)
{
	umem_free(&f->mem);
	for (size_t i = 0; i < f->nmods; i++)
		free(f->mods[i].path);
	for (size_t i = 0; i < f->nnotes; i++)
		free(f->notes[i].text);
	free(f->mods);
	free(f->notes);
	free(f->unwound);
	free(f->scans);
	memset(f, 0, sizeof(*f));
}

static bool build_id_ok(const char *s, size_t n)
{
	if (n == 1 && s[0] == '-')
		return true;
	if (n == 0 || n % 2 || n > 2 * ELF_BUILD_ID_MAX)
		return false;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return false;
	return true;
}

const struct ustack_mod *ustack_module(const struct ustack_file *f, const char *path)
{
	for (size_t i = 0; i < f->nmods; i++)
		if (strcmp(f->mods[i].path, path) == 0)
			return &f->mods[i];
	return NULL;
}

int ustack_add_module(struct ustack_file *f, const char *path, const char *build_id)
{
	size_t n = strlen(path);
	if (n == 0 || memchr(path, '\n', n) || !build_id_ok(build_id, strlen(build_id)))
		return -EINVAL;
	if (ustack_module(f, path))
		return 0;                     /* the first seen stays: one file per path */
	if (f->nmods >= USTACK_FILE_MAX_MODS)
		return -E2BIG;
	struct ustack_mod *nm = realloc(f->mods, (f->nmods + 1) * sizeof(*nm));
	if (!nm)
		return -ENOMEM;
	f->mods = nm;
	if (!(nm[f->nmods].path = try_strdup(path)))
		return -ENOMEM;
	snprintf(nm[f->nmods].build_id, sizeof(nm[f->nmods].build_id), "%s", build_id);
	f->nmods++;
	return 0;
}

const char *ustack_note(const struct ustack_file *f, int tid)
{
	for (size_t i = 0; i < f->nnotes; i++)
		if (f->notes[i].tid == tid)
			return f->notes[i].text;
	return NULL;
}

int ustack_add_note(struct ustack_file *f, int tid, const char *text, size_t n)
{
	if (tid <= 0 || n == 0 || ustack_note(f, tid))
		return tid <= 0 || n == 0 ? -EINVAL : 0;
	if (f->nnotes >= USTACK_FILE_MAX_TASKS)
		return -E2BIG;
	struct ustack_note *nn = realloc(f->notes, (f->nnotes + 1) * sizeof(*nn));
	if (!nn)
		return -ENOMEM;
	f->notes = nn;
	char *t = try_strndup(text, n);
	if (!t)
		return -ENOMEM;
	for (char *c = t; *c; c++)        /* one line */
		if (*c == '\n' || *c == '\r')
			*c = ' ';
	if (!t[0]) {
		free(t);
		return -EINVAL;
	}
	nn[f->nnotes++] = (struct ustack_note){ tid, t };
	return 0;
}

bool ustack_was_unwound(const struct ustack_file *f, int tid)
{
	for (size_t i = 0; i < f->nunwound; i++)
		if (f->unwound[i] == tid)
			return true;
	return false;
}

int ustack_add_unwound(struct ustack_file *f, int tid)
{
	if (tid <= 0)
		return -EINVAL;
	if (ustack_was_unwound(f, tid))
		return 0;
	if (f->nunwound >= USTACK_FILE_MAX_TASKS)
		return -E2BIG;
	int *nu = realloc(f->unwound, (f->nunwound + 1) * sizeof(*nu));
	if (!nu)
		return -ENOMEM;
	f->unwound = nu;
	nu[f->nunwound++] = tid;
	return 0;
}

const struct ustack_scan *ustack_scan_at(const struct ustack_file *f, uint64_t addr)
{
	for (size_t i = 0; i < f->nscans; i++)
		if (f->scans[i].addr == addr)
			return &f->scans[i];
	return NULL;
}

int ustack_add_scan(struct ustack_file *f, uint64_t addr, uint64_t len)
{
	if (len > USTACK_SCAN_MAX || addr + len < addr)
		return -EINVAL;
	if (ustack_scan_at(f, addr))
		return 0;
	if (f->nscans >= USTACK_FILE_MAX_TASKS)
		return -E2BIG;
	struct ustack_scan *ns = realloc(f->scans, (f->nscans + 1) * sizeof(*ns));
	if (!ns)
		return -ENOMEM;
	f->scans = ns;
	ns[f->nscans++] = (struct ustack_scan){ addr, (uint32_t)len };
	return 0;
}

static int word_cmp(const void *a, const void *b)
{
	uint64_t x = (*(const struct ustack_word *const *)a)->addr;
	uint64_t y = (*(const struct ustack_word *const *)b)->addr;
	return x < y ? -1 : x > y;
}

void ustack_format(const struct ustack_file *f, struct strbuf *b)
{
	sb_printf(b, "cgwatch-ustack 1\n");
	for (size_t i = 0; i < f->nunwound; i++)
		sb_printf(b, "unwound %d\n", f->unwound[i]);
	for (size_t i = 0; i < f->nnotes; i++)
		sb_printf(b, "note %d %s\n", f->notes[i].tid, f->notes[i].text);
	for (size_t i = 0; i < f->nmods; i++)
		sb_printf(b, "module %s %s\n", f->mods[i].build_id, f->mods[i].path);
	for (size_t i = 0; i < f->nscans; i++)
		sb_printf(b, "scan %llx %u\n", (unsigned long long)f->scans[i].addr, f->scans[i].len);
	if (f->cut)
		sb_printf(b, "cut\n");
	if (f->redacted)
		sb_printf(b, "redacted\n");
	const struct ustack_word **v = f->mem.n ? try_calloc(f->mem.n, sizeof(*v)) : NULL;
	if (f->mem.n && !v) {
		b->lost = true;
		return;
	}
	size_t n = 0;
	for (size_t i = 0; i < f->mem.cap; i++)
		if (f->mem.w[i].valid)
			v[n++] = &f->mem.w[i];
	if (n)                            /* qsort takes no NULL, even for nothing */
		qsort(v, n, sizeof(*v), word_cmp);
	uint64_t end = 0;                 /* the address after the run being written */
	size_t run = 0;                   /* its bytes on this line; 0: no line open */
	for (size_t i = 0; i < n; i++)
		for (unsigned k = 0; k < 8; k++) {
			if (!(v[i]->valid & (1u << k)))
				continue;
			uint64_t a = v[i]->addr + k;
			if (run && (a != end || run == LINE_BYTES)) {
				sb_add(b, "\n", 1);
				run = 0;
			}
			if (!run)
				sb_printf(b, "mem %llx ", (unsigned long long)a);
			sb_printf(b, "%02x", v[i]->b[k]);
			run++;
			end = a + 1;
		}
	if (run)
		sb_add(b, "\n", 1);
	free(v);
}

static int hexval(char c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	return -1;
}

/* "TID" then a space or the end of the line; *p moves past the digits. */
static int tid_at(const char **p, int *tid)
{
	uint64_t v;
	if (parse_count(p, 0x7fffffff, &v) < 0 || v == 0)
		return -EINVAL;
	*tid = (int)v;
	return 0;
}

/* "ADDR " (1 to 16 lowercase hex digits, then a space) at the start of the n bytes l: the
 * bytes it takes, or 0 when it is not there. */
static size_t addr_at(const char *l, size_t n, uint64_t *addr)
{
	size_t i = 0;
	*addr = 0;
	for (; i < n && i < 17 && l[i] != ' '; i++) {
		int h = hexval(l[i]);
		if (h < 0 || i == 16)
			return 0;
		*addr = *addr << 4 | (uint64_t)h;
	}
	return i == 0 || i >= n || l[i] != ' ' ? 0 : i + 1;
}

/* "ADDR LEN": a scan; an address already given is refused. */
static int scan_line(struct ustack_file *f, const char *l, size_t n)
{
	uint64_t addr, len;
	size_t i = addr_at(l, n, &addr);
	const char *q = l + i;
	if (i == 0 || parse_count(&q, USTACK_SCAN_MAX, &len) < 0 || *q || ustack_scan_at(f, addr))
		return -EINVAL;
	return ustack_add_scan(f, addr, len);
}

static int mem_line(struct ustack_file *f, const char *l, size_t n)
{
	uint64_t addr;
	size_t i = addr_at(l, n, &addr);
	if (i == 0)
		return -EINVAL;
	const char *hex = l + i;
	size_t hn = n - i;
	if (hn == 0 || hn % 2 || hn > 2 * USTACK_LINE_MAX)
		return -EINVAL;
	uint8_t buf[USTACK_LINE_MAX];
	for (size_t k = 0; k < hn / 2; k++) {
		int a = hexval(hex[2 * k]), c = hexval(hex[2 * k + 1]);
		if (a < 0 || c < 0)
			return -EINVAL;
		buf[k] = (uint8_t)(a << 4 | c);
	}
	if (addr + hn / 2 - 1 < addr)
		return -EINVAL;               /* past the end of the address space */
	if (f->mem.bytes + hn / 2 > USTACK_FILE_MAX_MEM)
		return -E2BIG;
	return umem_put(&f->mem, addr, buf, hn / 2);
}

int ustack_parse(const char *text, size_t len, struct ustack_file *out, size_t *line)
{
	memset(out, 0, sizeof(*out));
	*line = 1;
	static const char head[] = "cgwatch-ustack 1";
	size_t hl = sizeof(head) - 1;
	if (len < hl || memcmp(text, head, hl) != 0 || (len > hl && text[hl] != '\n'))
		return -EINVAL;
	const char *p = text + hl + (len > hl), *end = text + len;
	int r = 0;
	while (p < end && r == 0) {
		++*line;
		const char *nl = memchr(p, '\n', (size_t)(end - p));
		size_t n = nl ? (size_t)(nl - p) : (size_t)(end - p);
		char l[2 * USTACK_LINE_MAX + 64];
		if (n >= sizeof(l) || memchr(p, '\0', n)) {
			r = -EINVAL;
			break;
		}
		memcpy(l, p, n);
		l[n] = '\0';
		p += n + (nl ? 1 : 0);
		const char *q = l;
		int tid;
		if (n == 0) {
			continue;
		} else if (!strncmp(l, "mem ", 4)) {
			r = mem_line(out, l + 4, n - 4);
		} else if (!strncmp(l, "scan ", 5)) {
			r = scan_line(out, l + 5, n - 5);
		} else if (!strncmp(l, "unwound ", 8)) {
			q += 8;
			r = tid_at(&q, &tid) < 0 || *q ? -EINVAL : ustack_add_unwound(out, tid);
		} else if (!strncmp(l, "note ", 5)) {
			q += 5;
			if (tid_at(&q, &tid) < 0 || *q != ' ' || !q[1] || ustack_note(out, tid))
				r = -EINVAL;
			else
				r = ustack_add_note(out, tid, q + 1, strlen(q + 1));
		} else if (!strncmp(l, "module ", 7)) {
			q += 7;
			const char *sp = strchr(q, ' ');
			char bid[2 * ELF_BUILD_ID_MAX + 2];
			if (!sp || (size_t)(sp - q) >= sizeof(bid) || !sp[1])
				r = -EINVAL;
			else {
				memcpy(bid, q, (size_t)(sp - q));
				bid[sp - q] = '\0';
				r = ustack_module(out, sp + 1) ? -EINVAL : ustack_add_module(out, sp + 1, bid);
			}
		} else if (!strcmp(l, "cut")) {
			out->cut = true;
		} else if (!strcmp(l, "redacted")) {
			out->redacted = true;
		} else {
			r = -EINVAL;
		}
	}
	if (r < 0) {
		ustack_file_free(out);
		return r == -ENOMEM ? -ENOMEM : -EINVAL;
	}
	*line = 0;
	return 0;
}

int ustack_merge(struct ustack_file *into, const struct ustack_file *from)
{
	int r = 0;
	for (size_t i = 0; i < from->nmods && r == 0; i++)
		r = ustack_add_module(into, from->mods[i].path, from->mods[i].build_id);
	for (size_t i = 0; i < from->nscans && r == 0; i++)
		r = ustack_add_scan(into, from->scans[i].addr, from->scans[i].len);
	for (size_t i = 0; i < from->mem.cap && r == 0; i++) {
		const struct ustack_word *w = &from->mem.w[i];
		for (unsigned k = 0; k < 8 && r == 0; k++)
			if (w->valid & (1u << k)) {
				if (into->mem.bytes >= USTACK_FILE_MAX_MEM) {
					into->cut = true;
					return 0;
				}
				r = umem_put(&into->mem, w->addr + k, &w->b[k], 1);
			}
	}
	into->cut |= from->cut;
	return r;
}

/* Is the line l (n bytes) one a redacted file keeps: the header when first, else a line the
 * parser takes (a note's text and a module's path are then redacted as text), never a
 * memory line nor one that is not understood? */
static bool kept_line(const char *l, size_t n, bool first)
{
	static const char head[] = "cgwatch-ustack 1\n";
	if (first)
		return n == sizeof(head) - 2 && !memcmp(l, head, n);
	if (n == 0 || (n >= 4 && !memcmp(l, "mem ", 4)))
		return false;
	struct strbuf one = { 0 };
	struct ustack_file f;
	size_t line;
	sb_add(&one, head, sizeof(head) - 1);
	sb_add(&one, l, n);
	bool ok = !one.lost && ustack_parse(one.s, one.len, &f, &line) == 0;
	if (ok)
		ustack_file_free(&f);
	sb_free(&one);
	return ok;
}

int ustack_drop_mem(const char *in, size_t n, struct strbuf *out)
{
	bool first = true, marked = false;
	for (size_t i = 0; i < n;) {
		const char *nl = memchr(in + i, '\n', n - i);
		size_t len = nl ? (size_t)(nl - (in + i)) : n - i;
		bool drop = !kept_line(in + i, len, first);
		marked |= len == 8 && !memcmp(in + i, "redacted", 8);
		if (!drop) {
			sb_add(out, in + i, len);
			sb_add(out, "\n", 1);
		}
		if (first && !marked) {       /* after the header */
			sb_add(out, "redacted\n", 9);
			marked = true;
		}
		first = false;
		i += len + (nl ? 1 : 0);
	}
	return out->lost ? -ENOMEM : 0;
}
