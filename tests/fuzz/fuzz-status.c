/* fuzz-status.c: /proc/TID/status (parse_status_buf): every field in range, and its
 * Cpus_allowed_list a CPU set, printed back. */
#include <errno.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_str(data, size);
	struct cgw_status s;
	int r = parse_status_buf(buf, &s);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
	if (r == 0) {
		FUZZ_CHECK(s.tgid > 0 && s.ppid >= 0 && s.uid < UINT32_MAX);
		FUZZ_CHECK(s.vol_switches <= CGW_MAX_COUNT && s.nonvol_switches <= CGW_MAX_COUNT);
		FUZZ_CHECK(strnlen(s.cpus_allowed, sizeof(s.cpus_allowed)) < sizeof(s.cpus_allowed));
		struct cgw_cpus c, again;
		/* a CPU list; one longer than the field is cut to it (a prefix, not parsed again) */
		if (strlen(s.cpus_allowed) < sizeof(s.cpus_allowed) - 1) {
			FUZZ_CHECK(cpulist_parse(s.cpus_allowed, &c) == 0);
			static char out[CGW_MAX_CPUS * 6];
			cpulist_format(&c, out, sizeof(out));
			FUZZ_CHECK(cpulist_parse(out, &again) == 0);
			FUZZ_CHECK(memcmp(&c, &again, sizeof(c)) == 0);
		}
	}
	free(buf);
	return 0;
}
