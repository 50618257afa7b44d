/* fuzz-mountinfo.c: /proc/self/mountinfo: every entry (mountinfo_next), the freezer and
 * cgroup2 mount points (parse_mountinfo_cgroup), the v1 hierarchies (parse_mountinfo_v1). */
#include <errno.h>

#include "fuzz.h"
#include "rates.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_str(data, size);
	struct mountinfo_ent e;
	const char *p = buf, *prev = NULL;
	while (mountinfo_next(&p, &e) > 0) {
		FUZZ_CHECK(p > prev && p <= buf + size);    /* moves on, stays inside */
		prev = p;
		FUZZ_CHECK(strlen(e.mnt) < sizeof(e.mnt) && strlen(e.dev) < sizeof(e.dev) &&
		           strlen(e.fstype) < sizeof(e.fstype) &&
		           strlen(e.sopts) < sizeof(e.sopts));
	}
	char mnt[256];
	if (parse_mountinfo_cgroup(buf, "freezer", mnt, sizeof(mnt)) == 0)
		FUZZ_CHECK(strlen(mnt) < sizeof(mnt));
	if (parse_mountinfo_cgroup(buf, NULL, mnt, sizeof(mnt)) == 0)
		FUZZ_CHECK(strlen(mnt) < sizeof(mnt));
	struct v1_hier h[8];
	int n = parse_mountinfo_v1(buf, h, 8);
	FUZZ_CHECK(n >= 0 && n <= 8);
	for (int i = 0; i < n; i++) {
		FUZZ_CHECK(strlen(h[i].opts) < sizeof(h[i].opts) && strlen(h[i].mnt) < sizeof(h[i].mnt));
		for (int j = 0; j < i; j++)                /* each hierarchy once */
			FUZZ_CHECK(strcmp(h[i].opts, h[j].opts) != 0);
	}
	free(buf);
	return 0;
}
