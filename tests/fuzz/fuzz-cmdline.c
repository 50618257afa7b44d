/* fuzz-cmdline.c: /proc/cmdline as topology_read takes it: isolcpus= (cmdline_get,
 * parse_isolcpus), nohz_full=, rcu_nocbs=, irqaffinity= as CPU lists, printed back. */
#include "fuzz.h"

static void roundtrip(const struct cgw_cpus *c)
{
	static char out[CGW_MAX_CPUS * 6];
	struct cgw_cpus again;
	cpulist_format(c, out, sizeof(out));
	FUZZ_CHECK(cpulist_parse(out, &again) == 0 && memcmp(c, &again, sizeof(again)) == 0);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_str(data, size);
	char val[1024], small[8];
	struct cgw_cpus c;
	if (cmdline_get(buf, "isolcpus", val, sizeof(val))) {
		FUZZ_CHECK(strlen(val) < sizeof(val));
		unsigned flags;
		if (parse_isolcpus(val, &flags, &c) == 0) {
			FUZZ_CHECK(flags && !(flags & ~(unsigned)(ISOL_DOMAIN | ISOL_NOHZ | ISOL_MANAGED_IRQ)));
			roundtrip(&c);
		}
	}
	static const char *const keys[] = { "nohz_full", "rcu_nocbs", "irqaffinity" };
	for (size_t i = 0; i < sizeof(keys) / sizeof(keys[0]); i++)
		if (cmdline_get(buf, keys[i], val, sizeof(val)) && cpulist_parse(val, &c) == 0)
			roundtrip(&c);
	if (cmdline_get(buf, "isolcpus", small, sizeof(small)))
		FUZZ_CHECK(strlen(small) < sizeof(small));
	free(buf);
	return 0;
}
