/* fuzz-maps.c: /proc/TID/maps text (parse_maps_line on the first line, maps_find over all of
 * it): what is accepted is a mapping with start < end, and a path within the line. */
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
	r = maps_find(buf, addr, &e);
	FUZZ_CHECK(r == 0 || r == -ENOENT || r == -EINVAL);
	if (r == 0)
		FUZZ_CHECK(addr >= e.start && addr < e.end);
	free(buf);
	return 0;
}
