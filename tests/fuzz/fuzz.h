/* fuzz.h: what the libFuzzer harnesses share. Each harness (tests/fuzz/fuzz-NAME.c) feeds its
 * input to one parser, as the program would, then uses the result as callers do, and aborts
 * when a documented guarantee does not hold. Built and run by tests/fuzz/run.sh. */
#ifndef CGW_FUZZ_H
#define CGW_FUZZ_H

#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
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

/* The input as a file the loaders open by path: DIR/input, a regular file in a directory of
 * TMPDIR made at the first call and removed at exit (one file, rewritten for every input). */
static char fuzz_dir[256], fuzz_path[300];

static inline void fuzz_cleanup(void)
{
	unlink(fuzz_path);
	rmdir(fuzz_dir);
}

static inline const char *fuzz_file(const uint8_t *data, size_t size)
{
	if (!fuzz_dir[0]) {
		const char *tmp = getenv("TMPDIR");
		snprintf(fuzz_dir, sizeof(fuzz_dir), "%s/cgwatch-fuzz.XXXXXX", tmp && *tmp ? tmp : "/tmp");
		if (!mkdtemp(fuzz_dir))
			abort();
		snprintf(fuzz_path, sizeof(fuzz_path), "%s/input", fuzz_dir);
		atexit(fuzz_cleanup);
	}
	int fd = open(fuzz_path, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0)
		abort();
	for (size_t off = 0; off < size;) {
		ssize_t w = write(fd, data + off, size - off);
		if (w <= 0)
			abort();
		off += (size_t)w;
	}
	if (close(fd) < 0)
		abort();
	return fuzz_path;
}

#endif
