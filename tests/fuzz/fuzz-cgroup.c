/* fuzz-cgroup.c: /proc/TID/cgroup (parse_cgroup_buf) as the scan reads it, freezer and
 * name=systemd hierarchies, then the unit of the path (cgroup_unit). */
#include <errno.h>

#include "fuzz.h"

static void unit_of(const char *path)
{
	char unit[128];
	cgroup_unit(path, unit, sizeof(unit));
	FUZZ_CHECK(strlen(unit) < sizeof(unit));
	FUZZ_CHECK(!strchr(unit, '/'));
	if (unit[0] && strlen(unit) < sizeof(unit) - 1)
		FUZZ_CHECK(strstr(path, unit) != NULL);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_str(data, size);
	char v1[256], v2[256], sd[256];
	int r = parse_cgroup_buf(buf, "freezer", v1, sizeof(v1), v2, sizeof(v2));
	FUZZ_CHECK(r == 0 || r == -ENOENT || r == -EINVAL);
	if (r == 0) {
		FUZZ_CHECK(strlen(v1) < sizeof(v1) && strlen(v2) < sizeof(v2));
		unit_of(v2);
	} else {
		/* nothing half-parsed may mark a task frozen */
		FUZZ_CHECK(v1[0] == '\0' && v2[0] == '\0');
	}
	r = parse_cgroup_buf(buf, "name=systemd", sd, sizeof(sd), NULL, 0);
	FUZZ_CHECK(r == 0 || r == -ENOENT || r == -EINVAL);
	if (r == 0)
		unit_of(sd);
	else
		FUZZ_CHECK(sd[0] == '\0');
	/* small buffers: cut, never overrun */
	char s1[4], s2[1];
	(void)parse_cgroup_buf(buf, "cpu", s1, sizeof(s1), s2, sizeof(s2));
	FUZZ_CHECK(strlen(s1) < sizeof(s1) && s2[0] == '\0');
	free(buf);
	return 0;
}
