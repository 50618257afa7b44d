/* fuzz-unit.c: a systemd unit file or drop-in (parse_unit_cpus, as the audit reads
 * cgwatch.service), applied twice. Guarantees: the count of ignored values is the same both
 * times and never negative, and a second application changes nothing: repeated assignments
 * merge (the same values again add none) and a reset clears what came before it either way. */
#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *text = fuzz_bytes(data, size);
	struct unit_cpus *u = xcalloc(1, sizeof(*u)), *v = xcalloc(1, sizeof(*v));
	int a = parse_unit_cpus(text, size, u);
	*v = *u;
	int b = parse_unit_cpus(text, size, v);
	FUZZ_CHECK(a >= 0 && a == b);
	FUZZ_CHECK(u->affinity_set == v->affinity_set && u->allowed_set == v->allowed_set);
	char x[4096], y[4096];
	FUZZ_CHECK(strcmp(cpulist_format(&u->affinity, x, sizeof(x)),
	                  cpulist_format(&v->affinity, y, sizeof(y))) == 0);
	FUZZ_CHECK(strcmp(cpulist_format(&u->allowed, x, sizeof(x)),
	                  cpulist_format(&v->allowed, y, sizeof(y))) == 0);
	free(u);
	free(v);
	free(text);
	return 0;
}
