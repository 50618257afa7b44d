/* elfname: elfsym_name (source-elf.c) from the command line, for tests/live/elfstuck.sh.
 *   elfname [--debug-root DIR] PATH OFFSET TIMEOUT_MS...
 * names OFFSET (hex) of PATH once per TIMEOUT_MS given, then its own main, and prints one
 * line a call: "rc=N ms=T from=F name=NAME why=WHY". */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

static int call(const char *path, unsigned long long off, unsigned ms)
{
	struct elf_sym s;
	double t0 = mono_ms();
	int r = elfsym_name(path, off, &s, ms);
	printf("rc=%d ms=%.0f from=%s name=%s why=%s\n", r, mono_ms() - t0, elfsym_from_name(s.from),
	       s.name[0] ? s.name : "-", s.why[0] ? s.why : "-");
	fflush(stdout);
	return r;
}

int main(int argc, char **argv)
{
	int a = 1;
	if (argc > 2 && strcmp(argv[1], "--debug-root") == 0) {
		elfsym_set_debug_root(argv[2]);
		a = 3;
	}
	if (argc - a < 3)
		return 2;
	for (int i = a + 2; i < argc; i++)
		call(argv[a], strtoull(argv[a + 1], NULL, 16), (unsigned)atoi(argv[i]));
	/* its own main, from the mapping that holds it: the caller still names frames */
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096], path[4000];
	unsigned long s, e, off, p = (unsigned long)main;
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "%lx-%lx %*s %lx %*s %*s %3999s", &s, &e, &off, path) == 4 && p >= s &&
		    p < e)
			return call(path, p - s + off, 5000) == 0 ? 0 : 1;
	return 1;
}
