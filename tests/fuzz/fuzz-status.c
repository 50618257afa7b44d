/* fuzz-status.c: /proc/TID/status (parse_status_buf), then its Cpus_allowed_list as a CPU
 * set, printed back. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_str(data, size);
	struct cgw_status s;
	if (parse_status_buf(buf, &s) == 0) {
		FUZZ_CHECK(strnlen(s.cpus_allowed, sizeof(s.cpus_allowed)) < sizeof(s.cpus_allowed));
		struct cgw_cpus c, again;
		if (cpulist_parse(s.cpus_allowed, &c) == 0) {
			static char out[CGW_MAX_CPUS * 6];
			cpulist_format(&c, out, sizeof(out));
			FUZZ_CHECK(cpulist_parse(out, &again) == 0);
			FUZZ_CHECK(memcmp(&c, &again, sizeof(c)) == 0);
		}
	}
	free(buf);
	return 0;
}
