/* parse-elf.c: ELF64 little-endian executables and shared objects, as far as naming code
 * needs: the PT_LOAD segments (file offset -> link-time address), the function symbols of
 * .symtab and .dynsym, the build-id note and .gnu_debuglink. Pure: the bytes come through the
 * caller's read function, each range checked against the file's size first; every offset,
 * size and count read from the file is checked before it is used (a hostile or truncated
 * file is refused with why, or loses only the table that is wrong). */
#include <elf.h>
#include <errno.h>
#include <pthread.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

#define SYM_CHUNK 2048                 /* symbols read at a time (48 KiB) */
#define NOTE_MAX (64u << 10)           /* a note section or segment read, at most */
#define NOTES_MAX 16                   /* note sections or segments looked at */
#define SHSTR_MAX (1u << 20)           /* the section name table, at most */
#define DEBUGLINK_MAX 4096             /* a .gnu_debuglink section, at most */

static void why(struct elf_info *e, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void why(struct elf_info *e, const char *fmt, ...)
{
	if (e->why[0])                      /* the first reason stays */
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->why, sizeof(e->why), fmt, ap);
	va_end(ap);
}

/* Is [off, off+len) inside a file of size bytes (no overflow)? */
static bool in_file(uint64_t off, uint64_t len, uint64_t size)
{
	return off <= size && len <= size - off;
}

static uint16_t le16(const uint8_t *p) { return (uint16_t)(p[0] | p[1] << 8); }
static uint32_t le32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static uint64_t le64(const uint8_t *p) { return le32(p) | (uint64_t)le32(p + 4) << 32; }

struct sect { uint32_t name, type, link; uint64_t flags, addr, off, size, entsize; };

static struct sect sect_at(const uint8_t *p)
{
	struct sect s = { le32(p), le32(p + 4), le32(p + 40), le64(p + 8), le64(p + 16),
	                  le64(p + 24), le64(p + 32), le64(p + 56) };
	return s;
}

/* Read [off, off+len) into a new buffer (NULL: no memory, or rd failed: *err). */
static uint8_t *read_new(elf_read_fn rd, void *ctx, uint64_t off, size_t len, int *err)
{
	uint8_t *b = try_malloc(len ? len : 1);
	if (!b) {
		*err = -ENOMEM;
		return NULL;
	}
	int r = len ? rd(ctx, off, b, len) : 0;
	if (r < 0) {
		free(b);
		*err = r;
		return NULL;
	}
	return b;
}

/* The notes in buf (n bytes, entries aligned to align): the GNU build-id into e. */
static void notes_scan(const uint8_t *buf, size_t n, size_t align, struct elf_info *e)
{
	size_t p = 0;
	while (n - p >= 12) {
		uint32_t namesz = le32(buf + p), descsz = le32(buf + p + 4), type = le32(buf + p + 8);
		size_t name = p + 12;
		uint64_t nend = (uint64_t)name + namesz;
		uint64_t desc = (nend + align - 1) / align * align;
		uint64_t dend = desc + descsz;
		if (nend > n || desc > n || dend > n) {
			why(e, "a note runs past its section (%u name and %u data bytes)", namesz, descsz);
			return;
		}
		if (type == NT_GNU_BUILD_ID && namesz == 4 && memcmp(buf + name, "GNU", 4) == 0) {
			if (descsz == 0 || descsz > ELF_BUILD_ID_MAX) {
				why(e, "build-id note of %u bytes", descsz);
				return;
			}
			memcpy(e->build_id, buf + desc, descsz);
			e->build_id_len = descsz;
			return;
		}
		uint64_t next = (dend + align - 1) / align * align;
		if (next <= p || next > n)
			return;
		p = (size_t)next;
	}
}

/* One note section or segment at [off, off+size): its build-id, if it has one. */
static int notes_read(elf_read_fn rd, void *ctx, uint64_t off, uint64_t size, uint64_t align,
                      struct elf_info *e)
{
	if (e->build_id_len || size < 12)
		return 0;
	if (!in_file(off, size, e->file_size)) {
		why(e, "a note at %#llx past the end of the file", (unsigned long long)off);
		return 0;
	}
	size_t n = size > NOTE_MAX ? NOTE_MAX : (size_t)size;
	int err = 0;
	uint8_t *b = read_new(rd, ctx, off, n, &err);
	if (!b)
		return err;
	notes_scan(b, n, align == 8 ? 8 : 4, e);
	free(b);
	return 0;
}

/* The .gnu_debuglink section at [off, off+size): a file name, padding to 4, a CRC-32. */
static int debuglink_read(elf_read_fn rd, void *ctx, uint64_t off, uint64_t size,
                          struct elf_info *e)
{
	if (size < 8 || size > DEBUGLINK_MAX || !in_file(off, size, e->file_size)) {
		why(e, ".gnu_debuglink of %llu bytes at %#llx: not taken", (unsigned long long)size,
		    (unsigned long long)off);
		return 0;
	}
	int err = 0;
	uint8_t *b = read_new(rd, ctx, off, (size_t)size, &err);
	if (!b)
		return err;
	const uint8_t *nul = memchr(b, 0, (size_t)size);
	size_t len = nul ? (size_t)(nul - b) : 0;
	size_t crc = (len + 1 + 3) / 4 * 4;
	const char *name = (const char *)b;
	if (!nul || len == 0 || len >= sizeof(e->debuglink) || crc + 4 > size ||
	    memchr(b, '/', len) || strcmp(name, ".") == 0 || strcmp(name, "..") == 0 ||
	    text_bad(name, len) != len)
		why(e, ".gnu_debuglink names no plain file name: not taken");
	else {
		memcpy(e->debuglink, b, len + 1);
		e->debuglink_crc = le32(b + crc);
		e->have_debuglink = true;
	}
	free(b);
	return 0;
}

/* The section headers: where the tables are, notes, .gnu_debuglink. */
static int sections_read(elf_read_fn rd, void *ctx, uint64_t shoff, size_t shnum,
                         size_t shstrndx, struct elf_info *e)
{
	int err = 0;
	uint8_t *sh = read_new(rd, ctx, shoff, shnum * 64, &err);
	if (!sh)
		return err;
	uint8_t *names = NULL;
	size_t names_len = 0;
	if (shstrndx != SHN_UNDEF) {
		struct sect s = sect_at(sh + shstrndx * 64);
		if (s.type != SHT_STRTAB || s.size > SHSTR_MAX || !in_file(s.off, s.size, e->file_size)) {
			why(e, "the section name table (section %zu) is not a string table in the file",
			    shstrndx);
			free(sh);
			return -EINVAL;
		}
		names_len = (size_t)s.size;
		if (!(names = read_new(rd, ctx, s.off, names_len, &err))) {
			free(sh);
			return err;
		}
	}
	size_t nnotes = 0;
	for (size_t i = 1; i < shnum && err == 0; i++) {
		struct sect s = sect_at(sh + i * 64);
		if ((s.flags & SHF_EXECINSTR) && (s.flags & SHF_ALLOC) && s.size &&
		    s.addr <= UINT64_MAX - s.size && e->nxsect < ELF_MAX_XSECT)
			e->xsect[e->nxsect++] = (struct elf_xsect){ s.addr, s.size, (uint32_t)i };
		struct elf_sect *t = s.type == SHT_SYMTAB ? &e->symtab_sec :
		                     s.type == SHT_DYNSYM ? &e->dynsym_sec : NULL;
		const char *tname = s.type == SHT_SYMTAB ? "symtab" : "dynsym";
		if (t && t->size == 0) {
			struct elf_table *tab = s.type == SHT_SYMTAB ? &e->symtab : &e->dynsym;
			struct sect str = s.link < shnum && s.link != i ? sect_at(sh + s.link * 64)
			                                                : (struct sect){ 0 };
			if (s.entsize != 24 || s.size % 24 != 0 || !in_file(s.off, s.size, e->file_size))
				why(e, "%s of %llu bytes at %#llx (entries of %llu): not in the file or "
				    "not symbols; left out", tname, (unsigned long long)s.size,
				    (unsigned long long)s.off, (unsigned long long)s.entsize);
			else if (str.type != SHT_STRTAB || !in_file(str.off, str.size, e->file_size) ||
			         str.size == 0)
				why(e, "%s links section %u, not a string table in the file; left out",
				    tname, s.link);
			else if (str.size > ELF_MAX_STRTAB) {
				why(e, "%s's string table of %llu bytes is over %u MiB; left out", tname,
				    (unsigned long long)str.size, ELF_MAX_STRTAB >> 20);
				tab->too_big = true;
			} else if (s.size >= 24) {
				*t = (struct elf_sect){ s.off, s.size, str.off, str.size };
			}
			continue;
		}
		if (s.type == SHT_NOTE && nnotes < NOTES_MAX) {
			nnotes++;
			err = notes_read(rd, ctx, s.off, s.size, s.entsize == 8 ? 8 : 4, e);
			continue;
		}
		if (s.type == SHT_PROGBITS && names && s.name < names_len &&
		    strncmp((const char *)names + s.name, ".gnu_debuglink", names_len - s.name) == 0 &&
		    memchr(names + s.name, 0, names_len - s.name))
			err = debuglink_read(rd, ctx, s.off, s.size, e);
	}
	free(names);
	free(sh);
	return err;
}

int elf_parse_head(elf_read_fn rd, void *ctx, uint64_t file_size, struct elf_info *e)
{
	memset(e, 0, sizeof(*e));
	e->file_size = file_size;
	uint8_t h[64];
	if (file_size < 4) {
		why(e, "not an ELF file: %llu bytes", (unsigned long long)file_size);
		return -ENOEXEC;
	}
	int r = rd(ctx, 0, h, file_size < 64 ? (size_t)file_size : 64);
	if (r < 0) {
		why(e, "reading its header: %s", strerror(-r));
		return r;
	}
	if (memcmp(h, ELFMAG, SELFMAG) != 0) {
		why(e, "not an ELF file");
		return -ENOEXEC;
	}
	if (file_size < 64) {
		why(e, "truncated: %llu bytes, shorter than an ELF header", (unsigned long long)file_size);
		return -EINVAL;
	}
	if (h[EI_CLASS] != ELFCLASS64) {
		why(e, "not a 64-bit ELF file (class %u)", h[EI_CLASS]);
		return -ENOEXEC;
	}
	if (h[EI_DATA] != ELFDATA2LSB) {
		why(e, "not a little-endian ELF file (data %u)", h[EI_DATA]);
		return -ENOEXEC;
	}
	e->type = le16(h + 16);
	e->machine = le16(h + 18);
	if (h[EI_VERSION] != EV_CURRENT || (e->type != ET_EXEC && e->type != ET_DYN)) {
		why(e, "ELF type %u version %u: not an executable or shared object", e->type,
		    h[EI_VERSION]);
		return -ENOEXEC;
	}
	uint64_t phoff = le64(h + 32), shoff = le64(h + 40);
	size_t phentsize = le16(h + 54), phnum = le16(h + 56);
	size_t shentsize = le16(h + 58), shnum = le16(h + 60), shstrndx = le16(h + 62);

	/* extended numbering: the real counts are in section header 0 */
	if (shoff && (shnum == 0 || phnum == PN_XNUM || shstrndx == SHN_XINDEX)) {
		uint8_t s0[64];
		if (shentsize != 64 || !in_file(shoff, 64, file_size)) {
			why(e, "section header table at %#llx past the end of the file (truncated?)",
			    (unsigned long long)shoff);
			return -EINVAL;
		}
		if ((r = rd(ctx, shoff, s0, 64)) < 0)
			return r;
		uint64_t n = le64(s0 + 32);
		if (shnum == 0)
			shnum = n > ELF_MAX_SECTIONS ? ELF_MAX_SECTIONS + 1 : (size_t)n;
		if (phnum == PN_XNUM)
			phnum = le32(s0 + 44);
		if (shstrndx == SHN_XINDEX)
			shstrndx = le32(s0 + 40);
	}

	if (phnum && (phentsize != 56 || !in_file(phoff, (uint64_t)phnum * 56, file_size))) {
		why(e, "program header table (%zu of %zu bytes at %#llx) past the end of the file or "
		    "malformed", phnum, phentsize, (unsigned long long)phoff);
		return -EINVAL;
	}
	if (shoff && shnum && (shentsize != 64 || shnum > ELF_MAX_SECTIONS ||
	                       !in_file(shoff, (uint64_t)shnum * 64, file_size))) {
		why(e, "section header table (%zu of %zu bytes at %#llx) past the end of the file "
		    "(truncated?) or malformed", shnum, shentsize, (unsigned long long)shoff);
		return shnum > ELF_MAX_SECTIONS ? -E2BIG : -EINVAL;
	}
	if (shoff && shnum && shstrndx != SHN_UNDEF && shstrndx >= shnum) {
		why(e, "section name table %zu of %zu sections", shstrndx, shnum);
		return -EINVAL;
	}

	/* PT_LOAD, PT_NOTE and PT_GNU_EH_FRAME */
	uint64_t notes[NOTES_MAX][3];
	size_t nnotes = 0;
	if (phnum) {
		int err = 0;
		uint8_t *ph = read_new(rd, ctx, phoff, phnum * 56, &err);
		if (!ph) {
			why(e, "reading its program headers: %s", strerror(-err));
			return err;
		}
		for (size_t i = 0; i < phnum; i++) {
			const uint8_t *p = ph + i * 56;
			uint32_t type = le32(p);
			uint64_t off = le64(p + 8), vaddr = le64(p + 16), filesz = le64(p + 32);
			if (type == PT_GNU_EH_FRAME && !e->have_eh_hdr) {
				e->eh_hdr = (struct elf_load){ off, vaddr, filesz, le64(p + 40), le32(p + 4) };
				e->have_eh_hdr = true;
			}
			if (type == PT_NOTE && nnotes < NOTES_MAX) {
				notes[nnotes][0] = off;
				notes[nnotes][1] = filesz;
				notes[nnotes++][2] = le64(p + 48);
			}
			if (type != PT_LOAD)
				continue;
			if (e->nload == ELF_MAX_LOAD) {
				free(ph);
				why(e, "more than %d loadable segments", ELF_MAX_LOAD);
				return -E2BIG;
			}
			if (off > UINT64_MAX - filesz || vaddr > UINT64_MAX - filesz) {
				free(ph);
				why(e, "loadable segment %zu wraps around (offset %#llx, %#llx bytes)", i,
				    (unsigned long long)off, (unsigned long long)filesz);
				return -EINVAL;
			}
			e->load[e->nload++] = (struct elf_load){ off, vaddr, filesz, le64(p + 40),
			                                         le32(p + 4) };
		}
		free(ph);
	}
	if (e->nload == 0) {
		why(e, "no loadable segment");
		return -EINVAL;
	}

	if (shoff && shnum) {
		r = sections_read(rd, ctx, shoff, shnum, shstrndx, e);
		if (r < 0)
			return r;
	}
	/* no note section (section headers stripped): the note segments */
	for (size_t i = 0; i < nnotes && !e->build_id_len; i++)
		if ((r = notes_read(rd, ctx, notes[i][0], notes[i][1], notes[i][2], e)) < 0)
			return r;
	return 0;
}

/* Sort order of function symbols: address, then the name a person knows the function by
 * (global before weak before local; fewer leading underscores; shorter; then bytes). */
static int func_cmp(const void *a, const void *b, void *arg)
{
	const struct elf_func *x = a, *y = b;
	const char *names = arg;
	if (x->addr != y->addr)
		return x->addr < y->addr ? -1 : 1;
	if (x->pref != y->pref)
		return x->pref > y->pref ? -1 : 1;
	const char *nx = names + x->name, *ny = names + y->name;
	size_t ux = strspn(nx, "_"), uy = strspn(ny, "_");
	if (ux != uy)
		return ux < uy ? -1 : 1;
	size_t lx = strlen(nx), ly = strlen(ny);
	if (lx != ly)
		return lx < ly ? -1 : 1;
	return strcmp(nx, ny);
}

/* One table: its function symbols, in at most max_bytes. 0, or -ENOMEM or rd's error; a
 * table that does not fit is left out (too_big), said in e->why. */
/* The size of an unsized symbol at addr in section shndx: up to the section's end; 0 when
 * that section is not a known executable one. */
static uint64_t to_section_end(const struct elf_info *e, uint16_t shndx, uint64_t addr)
{
	for (size_t i = 0; i < e->nxsect; i++) {
		const struct elf_xsect *x = &e->xsect[i];
		if (x->index == shndx)
			return addr >= x->addr && addr - x->addr < x->size ? x->size - (addr - x->addr) : 0;
	}
	return 0;
}

static int table_read(elf_read_fn rd, void *ctx, const struct elf_sect *s, const char *tname,
                      size_t max_bytes, struct elf_info *e, struct elf_table *t)
{
	bool full = t == &e->symtab;           /* unsized symbols bounded by their section */
	int err = 0;
	if (s->size == 0)
		return 0;
	if (s->str_size > max_bytes) {
		t->too_big = true;
		why(e, "%s left out: its %llu bytes of names are over the memory allowed (%zu)",
		    tname, (unsigned long long)s->str_size, max_bytes);
		return 0;
	}
	uint8_t *str = read_new(rd, ctx, s->str_off, (size_t)s->str_size, &err);
	uint8_t *chunk = str ? try_malloc(SYM_CHUNK * 24) : NULL;
	if (!str || !chunk) {
		free(str);
		return err ? err : -ENOMEM;
	}
	size_t cap = 0, names_cap = 0, bytes = 0;
	uint64_t nsyms = s->size / 24;
	for (uint64_t i = 0; i < nsyms && err == 0 && !t->too_big; i += SYM_CHUNK) {
		size_t k = nsyms - i > SYM_CHUNK ? SYM_CHUNK : (size_t)(nsyms - i);
		if ((err = rd(ctx, s->off + i * 24, chunk, k * 24)) < 0)
			break;
		for (size_t j = 0; j < k; j++) {
			const uint8_t *p = chunk + j * 24;
			uint32_t name = le32(p);
			uint8_t info = p[4], type = ELF64_ST_TYPE(info), bind = ELF64_ST_BIND(info);
			uint16_t shndx = le16(p + 6);
			uint64_t addr = le64(p + 8), size = le64(p + 16);
			if ((type != STT_FUNC && type != STT_GNU_IFUNC) || shndx == SHN_UNDEF ||
			    shndx == SHN_ABS || addr == 0 || name == 0 || name >= s->str_size)
				continue;
			const char *nm = (const char *)str + name;
			const char *end = memchr(nm, 0, (size_t)(s->str_size - name));
			if (!end || end == nm)
				continue;          /* no NUL before the table's end: not a name */
			size_t len = (size_t)(end - nm) + 1;
			bytes += sizeof(struct elf_func) + len;
			if (bytes > max_bytes || t->names_len + len >= (1u << 29)) {
				t->too_big = true;
				why(e, "%s left out: its function symbols take more than the memory "
				    "allowed (%zu bytes)", tname, max_bytes);
				break;
			}
			if (grow((void **)&t->f, &cap, t->n, 256, sizeof(*t->f)) < 0) {
				err = -ENOMEM;
				break;
			}
			if (t->names_len + len > names_cap) {
				size_t want = names_cap * 2 > 4096 ? names_cap * 2 : 4096;
				if (want < t->names_len + len)
					want = t->names_len + len;
				char *more = try_reallocarray(t->names, want, 1);
				if (!more) {
					err = -ENOMEM;
					break;
				}
				t->names = more;
				names_cap = want;
			}
			memcpy(t->names + t->names_len, nm, len);
			uint8_t pref = bind == STB_GLOBAL ? 2 : bind == STB_WEAK ? 1 : 0;
			bool unsized = size == 0 && full;
			if (unsized)
				size = to_section_end(e, shndx, addr);
			t->f[t->n++] = (struct elf_func){ addr,
			                                  size > UINT32_MAX ? UINT32_MAX : (uint32_t)size,
			                                  (uint32_t)t->names_len, pref, unsized };
			t->names_len += len;
		}
	}
	free(chunk);
	free(str);
	if (err < 0 || t->too_big) {
		free(t->f);
		free(t->names);
		t->f = NULL;
		t->names = NULL;
		t->n = t->names_len = 0;
		return err < 0 ? err : 0;
	}
	if (t->n) {
		qsort_r(t->f, t->n, sizeof(*t->f), func_cmp, t->names);
		struct elf_func *fit = try_reallocarray(t->f, t->n, sizeof(*t->f));
		char *nfit = try_reallocarray(t->names, t->names_len, 1);
		t->f = fit ? fit : t->f;
		t->names = nfit ? nfit : t->names;
	}
	t->present = true;
	e->bytes += t->n * sizeof(*t->f) + t->names_len;
	return 0;
}

int elf_parse_syms(elf_read_fn rd, void *ctx, size_t max_bytes, struct elf_info *e)
{
	int r = table_read(rd, ctx, &e->symtab_sec, "symtab", max_bytes, e, &e->symtab);
	if (r == 0)
		r = table_read(rd, ctx, &e->dynsym_sec, "dynsym", max_bytes, e, &e->dynsym);
	if (r < 0) {
		elf_info_free(e);
		why(e, "reading its symbols: %s", strerror(-r));
	}
	return r;
}

struct mem { const uint8_t *data; size_t size; };

static int mem_read(void *ctx, uint64_t off, void *buf, size_t len)
{
	const struct mem *m = ctx;
	if (!in_file(off, len, m->size))
		return -EFAULT;                /* the parser checks first: never happens */
	memcpy(buf, m->data + off, len);
	return 0;
}

int elf_parse_mem(const void *data, size_t size, size_t max_bytes, struct elf_info *out)
{
	struct mem m = { data, size };
	int r = elf_parse_head(mem_read, &m, size, out);
	if (r == 0)
		r = elf_parse_syms(mem_read, &m, max_bytes, out);
	return r;
}

void elf_info_free(struct elf_info *e)
{
	free(e->symtab.f);
	free(e->symtab.names);
	free(e->dynsym.f);
	free(e->dynsym.names);
	e->symtab = (struct elf_table){ .too_big = e->symtab.too_big };
	e->dynsym = (struct elf_table){ .too_big = e->dynsym.too_big };
	e->bytes = 0;
}

int elf_vaddr_of(const struct elf_info *e, uint64_t off, uint64_t *vaddr)
{
	/* segments may share file bytes: code is named, so an executable one goes first */
	const struct elf_load *hit = NULL;
	for (size_t i = 0; i < e->nload; i++) {
		const struct elf_load *l = &e->load[i];
		if (off >= l->off && off - l->off < l->filesz && (!hit || (l->flags & PF_X)))
			hit = !hit || !(hit->flags & PF_X) ? l : hit;
	}
	if (!hit)
		return -ERANGE;
	*vaddr = hit->vaddr + (off - hit->off);
	return 0;
}

static uint32_t crc_table[256];

static void crc_table_make(void)
{
	for (uint32_t i = 0; i < 256; i++) {
		uint32_t c = i;
		for (int k = 0; k < 8; k++)
			c = c & 1 ? 0xedb88320u ^ (c >> 1) : c >> 1;
		crc_table[i] = c;
	}
}

uint32_t elf_crc32(uint32_t crc, const void *buf, size_t n)
{
	static pthread_once_t once = PTHREAD_ONCE_INIT;
	pthread_once(&once, crc_table_make);
	const uint8_t *p = buf;
	crc = ~crc;
	while (n--)
		crc = crc_table[(crc ^ *p++) & 0xff] ^ (crc >> 8);
	return ~crc;
}

char *elf_build_id_hex(const struct elf_info *e, char *out, size_t cap)
{
	size_t n = 0;
	out[0] = '\0';
	for (size_t i = 0; i < e->build_id_len && n + 3 <= cap; i++)
		n += (size_t)snprintf(out + n, cap - n, "%02x", e->build_id[i]);
	return out;
}

/* The symbol of t that names addr: the last at or below it whose size covers it (a few
 * before are tried: a function may hold a nested symbol); else the nearest before it when
 * its size is unknown, within its section. NULL when none does. */
static const struct elf_func *table_find(const struct elf_table *t, uint64_t addr, bool *exact)
{
	size_t lo = 0, hi = t->n;              /* first with f.addr > addr */
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->f[mid].addr <= addr)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo == 0)
		return NULL;
	size_t last = lo - 1;
	size_t first = last;                   /* the aliases at that address: preferred first */
	while (first > 0 && t->f[first - 1].addr == t->f[last].addr)
		first--;
	for (size_t i = first; i <= last; i++)
		if (!t->f[i].unsized && addr - t->f[i].addr < t->f[i].size) {
			*exact = true;
			return &t->f[i];
		}
	for (size_t i = first, tries = 0; i > 0 && tries < 16; i--, tries++)
		if (!t->f[i - 1].unsized && addr - t->f[i - 1].addr < t->f[i - 1].size) {
			*exact = true;
			return &t->f[i - 1];
		}
	for (size_t i = first; i <= last; i++)
		if (t->f[i].unsized && addr - t->f[i].addr < t->f[i].size) {
			*exact = false;
			return &t->f[i];
		}
	return NULL;
}

void elf_symbolize(const struct elf_info *bin, const struct elf_info *dbg, uint64_t vaddr,
                   struct elf_sym *out)
{
	out->from = ELFSYM_NONE;
	out->name[0] = '\0';
	out->name_cut = false;
	out->off = out->size = 0;
	out->exact = false;
	out->why[0] = '\0';
	const struct elf_table *t = NULL;
	enum elfsym_from from = ELFSYM_NONE;
	if (bin->symtab.present) {
		t = &bin->symtab;
		from = ELFSYM_SYMTAB;
	} else if (dbg && dbg->symtab.present) {
		t = &dbg->symtab;
		from = ELFSYM_DEBUG;
	} else if (bin->dynsym.present && bin->dynsym.n) {
		t = &bin->dynsym;
		from = ELFSYM_DYNSYM;
	}
	bool exact = false;
	const struct elf_func *f = t ? table_find(t, vaddr, &exact) : NULL;
	if (!f) {
		const char *nosym = bin->symtab.too_big || (dbg && dbg->symtab.too_big) ?
		                    "its symbol table left out, over the memory allowed" :
		                    "no symbol table, no debug file found";
		if (from == ELFSYM_DYNSYM)
			snprintf(out->why, sizeof(out->why), "not inside any exported function (only "
			         ".dynsym: %s)", nosym);
		else if (t)
			snprintf(out->why, sizeof(out->why), "in no function of its %s",
			         from == ELFSYM_DEBUG ? "debug file's symbol table" : "symbol table");
		else
			snprintf(out->why, sizeof(out->why), "stripped: %s, no exported function",
			         nosym);
		return;
	}
	const char *name = t->names + f->name;
	size_t len = strlen(name);
	out->name_cut = len >= sizeof(out->name);
	if (out->name_cut)
		len = sizeof(out->name) - 1;
	memcpy(out->name, name, len);
	out->name[len] = '\0';
	out->from = from;
	out->off = vaddr - f->addr;
	out->size = exact ? f->size : 0;
	out->exact = exact;
}

const char *elfsym_from_name(enum elfsym_from f)
{
	switch (f) {
	case ELFSYM_SYMTAB: return "symtab";
	case ELFSYM_DEBUG: return "debug";
	case ELFSYM_DYNSYM: return "dynsym";
	case ELFSYM_NONE: break;
	}
	return "none";
}

char *elfsym_format(const struct elf_sym *s, const char *module, char *out, size_t cap)
{
	char esc[1100];
	if (s->from == ELFSYM_NONE) {
		cescape(module, strlen(module), esc, sizeof(esc));
		if (s->have_vaddr)
			snprintf(out, cap, "%s+0x%llx", esc, (unsigned long long)s->vaddr);
		else
			snprintf(out, cap, "%s", esc);
		return out;
	}
	cescape(s->name, strlen(s->name), esc, sizeof(esc));
	snprintf(out, cap, "%s%s+0x%llx%s", esc, s->name_cut ? "..." : "",
	         (unsigned long long)s->off,
	         s->from == ELFSYM_DYNSYM ? " (nearest exported symbol)" :
	         !s->exact ? " (size unknown)" : "");
	return out;
}
