/* fuzz-ustack.c: a capture's cgwatch/ustack/TGID (parse-ustack.c). When the input parses:
 * its modules have a path without a newline and a build-id of lowercase hex or "-", its notes
 * are one line, its memory is within USTACK_FILE_MAX_MEM; what ustack_format writes of it
 * parses back to the same threads, notes, modules, scans and bytes, and is written again the
 * same; and with its memory dropped (a redacted bundle) it parses, marked redacted, with
 * none. Whatever the input, dropping its memory leaves no "mem" line and no NUL. */
#include <errno.h>

#include "fuzz.h"

static void same(const struct ustack_file *a, const struct ustack_file *b)
{
	FUZZ_CHECK(a->nmods == b->nmods && a->nnotes == b->nnotes && a->nunwound == b->nunwound);
	FUZZ_CHECK(a->cut == b->cut && a->redacted == b->redacted && a->nscans == b->nscans);
	for (size_t i = 0; i < a->nscans; i++) {
		const struct ustack_scan *sc = ustack_scan_at(b, a->scans[i].addr);
		FUZZ_CHECK(sc && sc->len == a->scans[i].len && sc->len <= USTACK_SCAN_MAX);
	}
	for (size_t i = 0; i < a->nmods; i++) {
		const struct ustack_mod *m = ustack_module(b, a->mods[i].path);
		FUZZ_CHECK(m && strcmp(m->build_id, a->mods[i].build_id) == 0);
	}
	for (size_t i = 0; i < a->nnotes; i++) {
		const char *n = ustack_note(b, a->notes[i].tid);
		FUZZ_CHECK(n && strcmp(n, a->notes[i].text) == 0);
	}
	for (size_t i = 0; i < a->nunwound; i++)
		FUZZ_CHECK(ustack_was_unwound(b, a->unwound[i]));
	FUZZ_CHECK(a->mem.bytes == b->mem.bytes);
	for (size_t i = 0; i < a->mem.cap; i++) {
		const struct ustack_word *w = &a->mem.w[i];
		for (unsigned k = 0; k < 8; k++) {
			uint8_t v;
			if (w->valid & (1u << k))
				FUZZ_CHECK(umem_get(&b->mem, w->addr + k, &v, 1) && v == w->b[k]);
		}
	}
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_bytes(data, size);
	struct ustack_file a, b;
	size_t line = 0;
	struct strbuf raw = { 0 };          /* whatever the file, redacted it holds no memory */
	FUZZ_CHECK(ustack_drop_mem(buf, size, &raw) == 0);
	for (const char *l = raw.s, *e = raw.s ? raw.s + raw.len : NULL; l && l < e;) {
		const char *nl = memchr(l, '\n', (size_t)(e - l));
		size_t n = nl ? (size_t)(nl - l) : (size_t)(e - l);
		FUZZ_CHECK(!(n >= 4 && !memcmp(l, "mem ", 4)) && !memchr(l, '\0', n));
		l += n + 1;
	}
	sb_free(&raw);
	int r = ustack_parse(buf, size, &a, &line);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENOMEM);
	if (r == -EINVAL)
		FUZZ_CHECK(line >= 1);
	if (r != 0) {
		FUZZ_CHECK(a.nmods == 0 && a.mem.w == NULL);
		free(buf);
		return 0;
	}
	FUZZ_CHECK(a.mem.bytes <= USTACK_FILE_MAX_MEM);
	for (size_t i = 0; i < a.nmods; i++) {
		const char *p = a.mods[i].path, *id = a.mods[i].build_id;
		FUZZ_CHECK(p[0] && !strchr(p, '\n'));
		FUZZ_CHECK(!strcmp(id, "-") || (strlen(id) % 2 == 0 && strlen(id) > 0 &&
		                                strspn(id, "0123456789abcdef") == strlen(id)));
	}
	for (size_t i = 0; i < a.nnotes; i++)
		FUZZ_CHECK(a.notes[i].tid > 0 && a.notes[i].text[0] && !strchr(a.notes[i].text, '\n'));
	struct strbuf t = { 0 }, t2 = { 0 }, d = { 0 };
	ustack_format(&a, &t);
	FUZZ_CHECK(!t.lost);
	FUZZ_CHECK(ustack_parse(t.s, t.len, &b, &line) == 0);
	same(&a, &b);
	ustack_format(&b, &t2);
	FUZZ_CHECK(!t2.lost && t2.len == t.len && memcmp(t2.s, t.s, t.len) == 0);
	ustack_file_free(&b);
	FUZZ_CHECK(ustack_drop_mem(t.s, t.len, &d) == 0);
	FUZZ_CHECK(ustack_parse(d.s, d.len, &b, &line) == 0);
	FUZZ_CHECK(b.redacted && b.mem.bytes == 0 && b.nmods == a.nmods && b.nnotes == a.nnotes &&
	           b.nscans == a.nscans);
	ustack_file_free(&b);
	sb_free(&t);
	sb_free(&t2);
	sb_free(&d);
	ustack_file_free(&a);
	free(buf);
	return 0;
}
