/* fuzz-manifest.c: a bundle's manifest.json (manifest_parse): what it accepts holds only safe
 * member names, 64-hex hashes, symlinks with targets; written again (manifest_json) it reads
 * back to the same and, after that once, to the same text; compared with its own members it
 * finds a problem only where a name is listed twice. */
#include <errno.h>

#include "fuzz.h"

static bool hex64(const char *s)
{
	if (strlen(s) != 64)
		return false;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return false;
	return true;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_bytes(data, size);
	struct bundle_manifest m;
	char why[256];
	int r = manifest_parse(text, size, &m, why, sizeof(why));
	FUZZ_CHECK(r == 0 || (r == -EINVAL && m.n == 0 && why[0]));
	free(text);
	if (r < 0)
		return 0;
	FUZZ_CHECK(m.n <= BUNDLE_MAX_MEMBERS);
	for (size_t k = 0; k < m.n; k++) {
		const struct bundle_member *b = &m.m[k];
		FUZZ_CHECK(manifest_name_check(b->path, why, sizeof(why)) == 0);
		FUZZ_CHECK(b->path[0] != '/' && hex64(b->sha256));
		FUZZ_CHECK((b->type == BM_SYMLINK) == (b->target != NULL));
		FUZZ_CHECK(b->size <= CGW_MAX_COUNT);
		if (b->target)
			(void)member_link_check(b->path, b->target, why, sizeof(why));
	}
	struct strbuf out = { 0 };
	size_t dup = 0;
	for (size_t i = 0; i < m.n; i++)
		for (size_t j = 0; j < i && !dup; j++)
			dup += strcmp(m.m[i].path, m.m[j].path) == 0;
	size_t problems = manifest_compare(&m, m.m, m.n, &out);
	FUZZ_CHECK(dup ? problems > 0 : problems == 0);
	sb_free(&out);

	size_t len1, len2;
	char *t1 = manifest_json(&m, &len1);
	FUZZ_CHECK(t1);
	struct bundle_manifest a, b;
	FUZZ_CHECK(manifest_parse(t1, len1, &a, why, sizeof(why)) == 0);
	FUZZ_CHECK(a.n == m.n && a.nunreadable == m.nunreadable && a.nleft_out == m.nleft_out);
	char *t2 = manifest_json(&a, &len2);
	FUZZ_CHECK(t2);
	FUZZ_CHECK(manifest_parse(t2, len2, &b, why, sizeof(why)) == 0);
	size_t len3;
	char *t3 = manifest_json(&b, &len3);
	FUZZ_CHECK(t3 && len3 == len2 && memcmp(t2, t3, len2) == 0);
	free(t1);
	free(t2);
	free(t3);
	manifest_free(&a);
	manifest_free(&b);
	manifest_free(&m);
	return 0;
}
