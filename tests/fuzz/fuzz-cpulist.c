/* fuzz-cpulist.c: CPU lists (cpulist_parse, "0-3,8,10-11", "0-15:2/4") and hex cpumasks
 * (parse_cpumask_hex, "ffffffff,00000003"), each printed back (cpulist_format) and parsed
 * again to the same set. */
#include "fuzz.h"

static void roundtrip(const struct cgw_cpus *c)
{
	static char out[CGW_MAX_CPUS * 6];
	struct cgw_cpus again;
	cpulist_format(c, out, sizeof(out));
	FUZZ_CHECK(cpulist_parse(out, &again) == 0 && memcmp(c, &again, sizeof(again)) == 0);
	char small[16];                  /* cut between entries, never overrun */
	cpulist_format(c, small, sizeof(small));
	FUZZ_CHECK(strlen(small) < sizeof(small) && strncmp(small, out, strlen(small)) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_str(data, size);
	struct cgw_cpus c;
	if (cpulist_parse(buf, &c) == 0)
		roundtrip(&c);
	if (parse_cpumask_hex(buf, &c) == 0)
		roundtrip(&c);
	free(buf);
	return 0;
}
