/* fuzz-elf.c: ELF images (parse-elf.c). The input as a whole file: the parse returns one of
 * its documented errors, with why said, or a result whose every part holds what the parser
 * promises (segments counted, build-id and debuglink in bounds, each table sorted by address
 * with every name a NUL-terminated string inside it, the memory counted); then each segment's
 * first, middle and last byte is named as a lookup would name it, with the image as its own
 * debug file too: a name only from a symbol at or below the address, exactly what the
 * symbol's size covers when the name is exact or from .dynsym, and a printable line. The
 * same once more under a budget of 64 bytes per table (tables left out, never overrun). */
#include <errno.h>

#include "fuzz.h"

static void check_table(const struct elf_table *t, bool full)
{
	if (!t->present) {
		FUZZ_CHECK(t->n == 0 && !t->f && !t->names);
		return;
	}
	for (size_t i = 0; i < t->n; i++) {
		FUZZ_CHECK(i == 0 || t->f[i - 1].addr <= t->f[i].addr);
		FUZZ_CHECK(t->f[i].name < t->names_len);
		const char *nm = t->names + t->f[i].name;
		FUZZ_CHECK(*nm && memchr(nm, 0, t->names_len - t->f[i].name));
		FUZZ_CHECK(t->f[i].addr != 0 && t->f[i].pref <= 2);
		FUZZ_CHECK(full || !t->f[i].unsized);       /* .dynsym: a size or nothing */
	}
}

static void check_name(const struct elf_info *e, const struct elf_info *dbg, uint64_t vaddr)
{
	struct elf_sym s;
	memset(&s, 0xa5, sizeof(s));
	elf_symbolize(e, dbg, vaddr, &s);
	FUZZ_CHECK(memchr(s.name, 0, sizeof(s.name)) && memchr(s.why, 0, sizeof(s.why)));
	if (s.from == ELFSYM_NONE) {
		FUZZ_CHECK(s.name[0] == '\0' && s.why[0] != '\0');
	} else {
		FUZZ_CHECK(s.name[0] != '\0' && s.off <= vaddr);
		FUZZ_CHECK(s.exact ? s.off < s.size : s.size == 0);
		FUZZ_CHECK(s.from != ELFSYM_DYNSYM || s.exact);
		FUZZ_CHECK(s.from != ELFSYM_DEBUG || (dbg && !e->symtab.present));
	}
	s.have_vaddr = true;
	s.vaddr = vaddr;
	char out[1200];
	elfsym_format(&s, "mod\n", out, sizeof(out));
	FUZZ_CHECK(fuzz_printable(out, strlen(out)));
}

static void one(const char *buf, size_t size, size_t max_bytes)
{
	struct elf_info e;
	int r = elf_parse_mem(buf, size, max_bytes, &e);
	FUZZ_CHECK(r == 0 || r == -ENOEXEC || r == -EINVAL || r == -E2BIG || r == -ENOMEM);
	FUZZ_CHECK(memchr(e.why, 0, sizeof(e.why)));
	if (r < 0) {
		FUZZ_CHECK(e.why[0] != '\0' || r == -ENOMEM);
		elf_info_free(&e);
		return;
	}
	FUZZ_CHECK(e.type == 2 || e.type == 3);          /* ET_EXEC, ET_DYN */
	FUZZ_CHECK(e.nload >= 1 && e.nload <= ELF_MAX_LOAD);
	FUZZ_CHECK(e.build_id_len <= ELF_BUILD_ID_MAX);
	if (e.have_debuglink) {
		size_t n = strnlen(e.debuglink, sizeof(e.debuglink));
		FUZZ_CHECK(n > 0 && n < sizeof(e.debuglink) && !strchr(e.debuglink, '/'));
	}
	check_table(&e.symtab, true);
	check_table(&e.dynsym, false);
	FUZZ_CHECK(e.bytes == e.symtab.n * sizeof(struct elf_func) + e.symtab.names_len +
	                      e.dynsym.n * sizeof(struct elf_func) + e.dynsym.names_len);
	FUZZ_CHECK(!e.symtab.too_big || !e.symtab.present);
	char hex[2 * ELF_BUILD_ID_MAX + 1];
	FUZZ_CHECK(strlen(elf_build_id_hex(&e, hex, sizeof(hex))) == 2 * e.build_id_len);
	for (size_t i = 0; i < e.nload; i++) {
		const struct elf_load *l = &e.load[i];
		uint64_t offs[3] = { l->off, l->off + l->filesz / 2, l->off + l->filesz - 1 };
		for (size_t k = 0; k < 3 && l->filesz; k++) {
			uint64_t va;
			FUZZ_CHECK(elf_vaddr_of(&e, offs[k], &va) == 0);
			check_name(&e, NULL, va);
			check_name(&e, &e, va);
		}
	}
	elf_info_free(&e);
	FUZZ_CHECK(e.symtab.n == 0 && e.dynsym.n == 0 && e.bytes == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_bytes(data, size);
	one(buf, size, 1 << 20);
	one(buf, size, 64);
	free(buf);
	return 0;
}
