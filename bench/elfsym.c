/* bench/elfsym.c: the cost of naming frames with elfsym_name (source-elf.c). For FILE, N
 * offsets spread over its executable segment: the first lookup (the file parsed, its debug
 * file found), each further lookup (the cache), and all N in one elfsym_names call, as a
 * median of rounds; what the names
 * came from; the cache's size. Writes the link-time addresses to ADDRS (one per line, hex)
 * for addr2line to name the same ones, and the names given to ADDRS.names ("??" for none). Built and run by bench/elfsym.sh.
 * usage: elfsym FILE N ADDRS */
#include <elf.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include "cgwatch.h"

static int cmp(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return x < y ? -1 : x > y;
}

int main(int argc, char **argv)
{
	if (argc != 4)
		return 2;
	const char *path = argv[1];
	size_t n = (size_t)atoi(argv[2]);
	/* the executable segment, from the headers alone */
	int fd = open(path, O_RDONLY);
	struct stat s;
	if (fd < 0 || fstat(fd, &s) < 0)
		return 1;
	char *img = malloc((size_t)s.st_size);
	if (!img || read(fd, img, (size_t)s.st_size) != s.st_size)
		return 1;
	close(fd);
	struct elf_info e;
	if (elf_parse_mem(img, (size_t)s.st_size, 0, &e) < 0)
		return 1;
	free(img);
	const struct elf_load *x = NULL;
	for (size_t i = 0; i < e.nload && !x; i++)
		if (e.load[i].flags & PF_X)
			x = &e.load[i];
	if (!x)
		return 1;
	uint64_t *off = calloc(n, sizeof(*off));
	FILE *out = fopen(argv[3], "w");
	for (size_t i = 0; i < n; i++) {
		off[i] = x->off + x->filesz / (n + 1) * (i + 1);
		uint64_t va;
		elf_vaddr_of(&e, off[i], &va);
		fprintf(out, "%llx\n", (unsigned long long)va);
	}
	fclose(out);
	elf_info_free(&e);

	enum { ROUNDS = 5 };
	double cold[ROUNDS], warm[ROUNDS], batch[ROUNDS];
	struct elf_sym *syms = calloc(n, sizeof(*syms));
	size_t from[4] = { 0 };
	struct elf_sym sym;
	for (int r = 0; r < ROUNDS; r++) {
		elfsym_cache_clear();
		double t0 = mono_ms();
		if (elfsym_name(path, off[0], &sym, 10000) < 0) {
			fprintf(stderr, "%s: %s\n", path, sym.why);
			return 1;
		}
		double t1 = mono_ms();
		for (size_t i = 0; i < n; i++) {
			if (elfsym_name(path, off[i], &sym, 10000) < 0)
				return 1;
			if (r == 0)
				from[sym.from]++;
		}
		double t2 = mono_ms();
		if (elfsym_names(path, off, n, syms, 10000) < 0)
			return 1;
		double t3 = mono_ms();
		cold[r] = (t1 - t0) * 1000;
		warm[r] = (t2 - t1) * 1000 / (double)n;
		batch[r] = (t3 - t2) * 1000 / (double)n;
	}
	qsort(cold, ROUNDS, sizeof(double), cmp);
	qsort(warm, ROUNDS, sizeof(double), cmp);
	qsort(batch, ROUNDS, sizeof(double), cmp);
	struct elfsym_stats st;
	elfsym_stats(&st);
	printf("first %.0f us, then %.1f us each, %.2f us each in one elfsym_names of %zu;\n"
	       "                       names: %zu symtab, %zu debug, %zu dynsym, %zu none; "
	       "cache %zu KiB\n", cold[ROUNDS / 2], warm[ROUNDS / 2], batch[ROUNDS / 2], n,
	       from[ELFSYM_SYMTAB], from[ELFSYM_DEBUG], from[ELFSYM_DYNSYM], from[ELFSYM_NONE],
	       st.bytes >> 10);
	/* the names, one per line beside the addresses, for the script to compare */
	char npath[4096];
	snprintf(npath, sizeof(npath), "%s.names", argv[3]);
	FILE *nf = fopen(npath, "w");
	for (size_t i = 0; nf && i < n; i++)
		fprintf(nf, "%s\n", syms[i].from == ELFSYM_NONE ? "??" : syms[i].name);
	if (nf)
		fclose(nf);
	free(syms);
	free(off);
	return 0;
}
