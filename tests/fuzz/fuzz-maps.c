/* fuzz-maps.c: /proc/TID/maps text (parse_maps_line on the first line, maps_index_parse over
 * all of it): what is accepted is a mapping with start < end, and a path within the line;
 * an index is ascending and never overlapping, and its lookup finds what a scan finds. */
#include <errno.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_str(data, size);
	size_t n = strcspn(buf, "\n");
	struct maps_ent e;
	int r = parse_maps_line(buf, n, &e);
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	if (r == 0) {
		FUZZ_CHECK(e.start < e.end);
		FUZZ_CHECK(e.path_len == 0 || (e.path >= buf && e.path + e.path_len == buf + n));
	}
	unsigned long addr = size >= 8 ? *(const unsigned long *)(const void *)data : 0x400000;
	struct maps_index ix;
	size_t line;
	r = maps_index_parse(buf, &ix, &line);
	FUZZ_CHECK(r == 0 || r == -ENOMEM || (r == -EINVAL && line >= 1 && ix.n == 0));
	const struct maps_ent *found = NULL;
	for (size_t i = 0; i < ix.n; i++) {
		FUZZ_CHECK(ix.e[i].start < ix.e[i].end);
		FUZZ_CHECK(i == 0 || ix.e[i].start >= ix.e[i - 1].end);
		if (addr >= ix.e[i].start && addr < ix.e[i].end)
			found = &ix.e[i];
	}
	FUZZ_CHECK(maps_index_find(&ix, addr) == found);
	maps_index_free(&ix);
	free(buf);
	return 0;
}
