/* fuzz.h: what the libFuzzer harnesses share. Each harness (tests/fuzz/fuzz-NAME.c) feeds its
 * input to one parser, as the program would, then uses the result as callers do, and aborts
 * when a documented guarantee does not hold. Built and run by tests/fuzz/run.sh. */
#ifndef CGW_FUZZ_H
#define CGW_FUZZ_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "cgwatch.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* A broken guarantee: say which, and abort (libFuzzer keeps the input as a crash). */
#define FUZZ_CHECK(cond)                                                                    \
	do {                                                                                \
		if (!(cond)) {                                                              \
			fprintf(stderr, "%s:%d: guarantee broken: %s\n", __FILE__, __LINE__, #cond); \
			abort();                                                            \
		}                                                                           \
	} while (0)

/* The input as a C string, in a block of exactly size + 1 bytes (ASan sees a read past it),
 * as the readers hand a file to the parsers: NUL-terminated, NULs inside kept. */
static inline char *fuzz_str(const uint8_t *data, size_t size)
{
	char *s = xmalloc(size + 1);
	if (size)
		memcpy(s, data, size);
	s[size] = '\0';
	return s;
}

/* The input as exactly size bytes, no NUL after them: for parsers that take (buf, len). */
static inline char *fuzz_bytes(const uint8_t *data, size_t size)
{
	char *s = xmalloc(size ? size : 1);
	if (size)
		memcpy(s, data, size);
	return s;
}

/* Is s (n bytes) printable ASCII only, as escaped text must be? */
static inline bool fuzz_printable(const char *s, size_t n)
{
	for (size_t i = 0; i < n; i++)
		if ((unsigned char)s[i] < 0x20 || (unsigned char)s[i] > 0x7e)
			return false;
	return true;
}

/* Where error messages go: nowhere (they are formatted all the same). */
static inline FILE *fuzz_null(void)
{
	static FILE *f;
	if (!f && !(f = fopen("/dev/null", "we")))
		abort();
	return f;
}

/* The input as a file the loaders open by path: a memfd, as /proc/self/fd/N (one file,
 * rewritten for every input). */
static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
	static int fd = -1;
	static char path[64];
	if (fd < 0) {
		fd = memfd_create("cgwatch-fuzz", MFD_CLOEXEC);
		if (fd < 0)
			abort();
		snprintf(path, sizeof(path), "/proc/self/fd/%d", fd);
	}
	if (ftruncate(fd, 0) < 0)
		abort();
	for (size_t off = 0; off < size;) {
		ssize_t w = pwrite(fd, data + off, size - off, (off_t)off);
		if (w <= 0)
			abort();
		off += (size_t)w;
	}
	return path;
}

#endif
