/* prog.c: a program for tests/unit/test-elf.c, built -O2 -g at test time. It prints, for each
 * of its functions (static and exported) and libx.so's, "FILE NAME OFFSET": the file offset of
 * the function's first byte in the mapping that holds it, from /proc/self/maps, as the remote
 * unwinder gives it. */
#include <stdio.h>
#include <string.h>

int api_first(int x);
int api_last(int x);
void *api_helper(void);
__attribute__((noinline)) int prog_outer(int x);
__attribute__((noinline)) int prog_last(int x);

__attribute__((noinline)) int prog_outer(int x)
{
	__asm__ volatile("" ::: "memory");
	return x + api_last(x);
}

__attribute__((noinline)) static int prog_static(int x)
{
	__asm__ volatile("" ::: "memory");
	return prog_outer(x) * 5;
}

__attribute__((noinline)) int prog_last(int x)
{
	__asm__ volatile("" ::: "memory");
	return prog_static(x) - 1;
}

static void show(const char *name, const void *fn)
{
	FILE *f = fopen("/proc/self/maps", "r");
	char line[4096];
	unsigned long a = (unsigned long)fn;
	while (f && fgets(line, sizeof(line), f)) {
		unsigned long s, e, off;
		char perm[8], path[4000] = "";
		if (sscanf(line, "%lx-%lx %7s %lx %*s %*s %3999s", &s, &e, perm, &off, path) >= 4 &&
		    a >= s && a < e) {
			const char *base = strrchr(path, '/');
			printf("%s %s %lx\n", base ? base + 1 : path, name, a - s + off);
			break;
		}
	}
	if (f)
		fclose(f);
}

int main(int argc, char **argv)
{
	(void)argv;
#ifdef OTHER
	puts("another build, another build-id");
#endif
	show("prog_outer", (const void *)prog_outer);
	show("prog_static", (const void *)prog_static);
	show("prog_last", (const void *)prog_last);
	show("main", (const void *)main);
	show("api_first", (const void *)api_first);
	show("helper_mid", api_helper());
	show("api_last", (const void *)api_last);
	return argc > 5 ? prog_last(argc) : 0;
}
