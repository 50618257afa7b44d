/* test-util.c: strbuf, read_small_file, read_whole_file, now_usec, xstrndup. */
#include "unit.h"

#include <fcntl.h>
#include <math.h>
#include <signal.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include <time.h>
#include <unistd.h>

/* The ASan build: an allocation it cannot make returns NULL, as malloc does, instead of
 * stopping the test that asks for one on purpose. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

static void test_strbuf_grows_and_terminates(void **state)
{
	(void)state;
	struct strbuf b = { 0 };
	sb_printf(&b, "%s:%d", "pid", 1765);
	assert_string_equal(b.s, "pid:1765");
	assert_int_equal(b.len, 8);
	for (int i = 0; i < 100; i++)
		sb_printf(&b, ",%03d", i);
	assert_int_equal(b.len, 8 + 100 * 4);
	assert_int_equal(strlen(b.s), b.len);
	assert_true(b.cap > b.len);
	assert_memory_equal(b.s + b.len - 8, ",098,099", 8);
	/* sb_add takes n bytes, NULs included */
	sb_add(&b, "x\0y", 3);
	assert_int_equal(b.len, 8 + 400 + 3);
	assert_memory_equal(b.s + b.len - 3, "x\0y", 4);
	sb_free(&b);
	assert_null(b.s);
	assert_int_equal(b.len, 0);
	assert_int_equal(b.cap, 0);
	/* usable again after free */
	sb_add(&b, "", 0);
	assert_string_equal(b.s, "");
	sb_printf(&b, "%s", "");
	assert_int_equal(b.len, 0);
	sb_free(&b);
}

static void test_read_small_file(void **state)
{
	(void)state;
	char path[] = "/tmp/cgw-unit-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	static const char text[] = "0-17,96-107,179-191\n";
	assert_int_equal(write(fd, text, sizeof(text) - 1), sizeof(text) - 1);
	close(fd);

	char buf[64];
	assert_int_equal(read_small_file(path, buf, sizeof(buf)), sizeof(text) - 1);
	assert_string_equal(buf, text);
	/* at most cap-1 bytes, NUL-terminated */
	memset(buf, 'X', sizeof(buf));
	assert_int_equal(read_small_file(path, buf, 5), 4);
	assert_string_equal(buf, "0-17");
	assert_int_equal(buf[5], 'X');
	assert_int_equal(read_small_file(path, buf, 1), 0);
	assert_string_equal(buf, "");
	unlink(path);

	assert_int_equal(read_small_file(path, buf, sizeof(buf)), -ENOENT);
	assert_int_equal(read_small_file("/tmp", buf, sizeof(buf)), -EISDIR);
}

/* read_whole_file: grows past its first 64 KiB; a file that fills max is -EFBIG */
static void test_read_whole_file(void **state)
{
	(void)state;
	char path[] = "/tmp/cgw-unit-XXXXXX";
	int fd = mkstemp(path);
	assert_true(fd >= 0);
	size_t big = (200u << 10) + 7;
	char *text = xmalloc(big);
	for (size_t i = 0; i < big; i++)
		text[i] = (char)('a' + i % 26);
	assert_int_equal(write(fd, text, big), (ssize_t)big);
	close(fd);

	size_t len = 0;
	int err = 1;
	char *b = read_whole_file(path, 1u << 20, &len, &err);
	assert_non_null(b);
	assert_int_equal(err, 0);
	assert_int_equal(len, big);
	assert_memory_equal(b, text, big);
	assert_int_equal(b[len], '\0');
	free(b);
	/* 256 KiB is room for 256 KiB - 1 bytes: enough; 128 KiB is not */
	b = read_whole_file(path, 256u << 10, &len, &err);
	assert_non_null(b);
	free(b);
	assert_null(read_whole_file(path, 128u << 10, &len, &err));
	assert_int_equal(err, -EFBIG);
	/* no memory to grow: -ENOMEM, nothing left allocated */
	cgw_fail_alloc_after = 1;
	assert_null(read_whole_file(path, 1u << 20, &len, &err));
	assert_int_equal(err, -ENOMEM);
	cgw_fail_alloc_after = -1;
	/* empty */
	assert_int_equal(truncate(path, 0), 0);
	b = read_whole_file(path, 1u << 20, &len, &err);
	assert_non_null(b);
	assert_int_equal(len, 0);
	assert_string_equal(b, "");
	free(b);
	unlink(path);
	free(text);

	assert_null(read_whole_file(path, 1u << 20, &len, &err));
	assert_int_equal(err, -ENOENT);
	assert_null(read_whole_file("/tmp", 1u << 20, &len, &err));
	assert_int_equal(err, -EISDIR);
	/* a /proc file (its size 0 until read) */
	b = read_whole_file("/proc/self/maps", 8u << 20, &len, &err);
	assert_non_null(b);
	assert_true(len > 0 && strlen(b) == len);
	free(b);
	/* no memory for the first buffer */
	cgw_fail_alloc_after = 0;
	assert_null(read_whole_file("/proc/self/maps", 8u << 20, &len, &err));
	assert_int_equal(err, -ENOMEM);
	cgw_fail_alloc_after = -1;
}

/* a /proc file read whole: its text parses */
static void test_read_small_file_proc(void **state)
{
	(void)state;
	char buf[1024];
	ssize_t n = read_small_file("/proc/self/stat", buf, sizeof(buf));
	assert_true(n > 50);
	struct cgw_stat st;
	assert_int_equal(parse_stat_buf(buf, (size_t)n, &st), 0);
	assert_int_equal(st.tid, getpid());
	assert_int_equal(st.ppid, getppid());
	assert_int_equal(st.state, 'R');
}

static void test_now_usec_monotonic(void **state)
{
	(void)state;
	uint64_t a = now_usec();
	struct timespec ts = { 0, 20 * 1000 * 1000 };
	nanosleep(&ts, NULL);
	uint64_t b = now_usec();
	assert_true(b >= a + 20000);
	assert_true(b < a + 5 * 1000000);
	struct timespec mono;
	clock_gettime(CLOCK_MONOTONIC, &mono);
	uint64_t c = (uint64_t)mono.tv_sec * 1000000u + (uint64_t)mono.tv_nsec / 1000u;
	assert_true(c >= b && c - b < 1000000);
}

static void test_xstrndup(void **state)
{
	(void)state;
	char *s = xstrndup("kworker/u768:1+cpuset_migrate_mm", 14);
	assert_string_equal(s, "kworker/u768:1");
	free(s);
	s = xstrdup("");
	assert_string_equal(s, "");
	free(s);
	void *p = xcalloc(4, 16);
	static const char zero[64];
	assert_memory_equal(p, zero, 64);
	free(p);
}

/* What could drive a terminal becomes text: C0 (newline kept only when asked), DEL, C1 and
 * bytes that are not UTF-8 as \xNN; UTF-8 text, backslashes and quotes as they are. */
static void test_term_escape(void **state)
{
	(void)state;
	const char in[] = "a\033[31mb\n\tc\x7f\xc2\x9b\xc3\xa9\xff\xed\xa0\x80\\\"\xf0\x9f\x98\x80";
	struct strbuf b = { 0 };
	sb_add_term(&b, in, sizeof(in) - 1, true);
	assert_string_equal(b.s, "a\\x1b[31mb\n\\x09c\\x7f\\xc2\\x9b\xc3\xa9\\xff\\xed\\xa0\\x80"
	                         "\\\"\xf0\x9f\x98\x80");
	sb_free(&b);
	sb_add_term(&b, "x\ny\0z", 5, false);
	assert_string_equal(b.s, "x\\x0ay\\x00z");
	sb_free(&b);
	/* text_bad: the first byte that is not text; tabs and UTF-8 are text */
	assert_int_equal(text_bad("a\tb\xc3\xa9", 5), 5);
	assert_int_equal(text_bad("ab\033", 3), 2);
	assert_int_equal(text_bad("a\xc2\x85", 3), 1);
	assert_int_equal(text_bad("a\xc3", 2), 1);          /* cut sequence */
	assert_int_equal(text_bad("a\0b", 3), 1);
}

/* errorf: one line, escaped as a whole, whatever the arguments hold; cesc: C-escaped and cut
 * with "..." when longer than its buffer. */
static void test_errorf_and_cesc(void **state)
{
	(void)state;
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	assert_non_null(f);
	errorf(f, "%s:%d: %s", "a\033]0;t\a.conf", 3, "x\ny");
	errorf(f, "%s", cesc("q\"\\\033"));
	fclose(f);
	assert_string_equal(s, "a\\x1b]0;t\\x07.conf:3: x\\x0ay\nq\\\"\\\\\\x1b\n");
	free(s);
	char big[3000];
	memset(big, 'a', sizeof(big) - 1);
	big[sizeof(big) - 1] = '\0';
	const char *c = cesc(big);
	assert_int_equal(strlen(c), 2047);
	assert_string_equal(c + 2044, "...");
	memset(big, '\033', sizeof(big) - 1);       /* cut after a whole \x1b, never inside */
	c = cesc(big);
	assert_int_equal(strlen(c), 2044 / 4 * 4 + 3);
	assert_string_equal(c + strlen(c) - 7, "\\x1b...");
	assert_string_equal(cesc("plain"), "plain");
}

/* The two readers of numbers from the host: a count (digits; "-0" is 0) and a decimal as the
 * kernel prints times (no exponent, hex, nan or inf); each refuses what follows a number when
 * it continues it ("5x", "1e3", "0x10"), and stops before a separator. */
static void test_parse_count_decimal(void **state)
{
	(void)state;
	static const struct { const char *in; uint64_t max; int rc; uint64_t v; size_t used; } c[] = {
		{ "0", 10, 0, 0, 1 }, { "-0", 10, 0, 0, 2 }, { "-00 x", 10, 0, 0, 3 },
		{ "10\n", 10, 0, 10, 2 }, { "11", 10, -ERANGE, 0, 0 }, { "-1", 10, -ERANGE, 0, 0 },
		{ "18446744073709551615", UINT64_MAX, 0, UINT64_MAX, 20 },
		{ "18446744073709551616", UINT64_MAX, -ERANGE, 0, 0 },
		{ "", 10, -EINVAL, 0, 0 }, { "-", 10, -EINVAL, 0, 0 }, { "+1", 10, -EINVAL, 0, 0 },
		{ " 1", 10, -EINVAL, 0, 0 }, { "1.0", 10, -EINVAL, 0, 0 }, { "0x1", 10, -EINVAL, 0, 0 },
		{ "1e1", 100, -EINVAL, 0, 0 }, { "nan", 10, -EINVAL, 0, 0 }, { "1,2", 10, 0, 1, 1 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(c); i++) {
		const char *p = c[i].in;
		uint64_t v = 77;
		print_message("# count \"%s\"\n", esc(c[i].in));
		assert_int_equal(parse_count(&p, c[i].max, &v), c[i].rc);
		if (c[i].rc == 0) {
			assert_int_equal(v, c[i].v);
			assert_int_equal(p - c[i].in, c[i].used);
		} else {
			assert_int_equal(v, 77);
			assert_ptr_equal(p, c[i].in);
		}
	}
	static const struct { const char *in; int rc; double v; } d[] = {
		{ "99.458684", 0, 99.458684 }, { "-0", 0, 0 }, { "-0.000000", 0, 0 },
		{ "-1.5", -ERANGE, 0 }, { "100.5", -ERANGE, 0 }, { "100", 0, 100 },
		{ "nan", -EINVAL, 0 }, { "-nan", -EINVAL, 0 }, { "inf", -EINVAL, 0 },
		{ "-inf", -EINVAL, 0 }, { "infinity", -EINVAL, 0 }, { "1e308", -EINVAL, 0 },
		{ "0x10", -EINVAL, 0 }, { "0x1p3", -EINVAL, 0 }, { "1.", -EINVAL, 0 },
		{ ".5", -EINVAL, 0 }, { "1.5.5", -EINVAL, 0 }, { "+1", -EINVAL, 0 },
		{ "1000000000000000000000000000000000000000000000000000000000000000000", -ERANGE, 0 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(d); i++) {
		const char *p = d[i].in;
		double v = 77;
		print_message("# decimal \"%s\"\n", d[i].in);
		assert_int_equal(parse_decimal(&p, 0, 100, &v), d[i].rc);
		if (d[i].rc == 0) {
			assert_near(v, d[i].v, 1e-9);
			assert_false(signbit(v));
			assert_int_equal(*p, '\0');
		} else {
			assert_near(v, 77, 0);
		}
	}
}

/* A growable string that cannot grow keeps what it has and says so (it was abort()). */
static void test_sb_nomem(void **state)
{
	(void)state;
	struct strbuf b = { 0 };
	sb_printf(&b, "kept");
	sb_add(&b, "x", (size_t)1 << 46);
	assert_true(b.lost);
	assert_int_equal(b.len, 4);
	assert_string_equal(b.s, "kept");
	sb_printf(&b, "+more");
	assert_string_equal(b.s, "kept+more");
	sb_free(&b);
	assert_false(b.lost);
	assert_null(try_reallocarray(NULL, (size_t)1 << 40, (size_t)1 << 30));   /* overflow */
	assert_null(try_reallocarray(NULL, (size_t)1 << 46, 1));
}

/* A FIFO's writer that blocks in open() until a reader opens it: has it been woken? */
static pid_t fifo_writer(const char *fifo)
{
	pid_t p = fork();
	if (p == 0) {
		int fd = open(fifo, O_WRONLY);    /* returns only once someone opened it to read */
		_exit(fd >= 0 ? 0 : 1);
	}
	return p;
}

static bool still_blocked(pid_t p)
{
	usleep(100 * 1000);
	return waitpid(p, NULL, WNOHANG) == 0;
}

/* open_regular never opens what is not a regular file: a FIFO's writer is never woken, under
 * its own name or through a symlink (a user's evil.debug -> FIFO); a regular file through a
 * symlink is read; with O_NOFOLLOW the symlink itself is refused; a directory is EISDIR. */
static void test_open_regular(void **state)
{
	(void)state;
	char dir[] = "/tmp/cgw-openreg-XXXXXX", fifo[64], link[64], file[64], flink[64];
	assert_non_null(mkdtemp(dir));
	snprintf(fifo, sizeof(fifo), "%s/fifo", dir);
	snprintf(link, sizeof(link), "%s/evil.debug", dir);
	snprintf(file, sizeof(file), "%s/file", dir);
	snprintf(flink, sizeof(flink), "%s/file.link", dir);
	assert_int_equal(mkfifo(fifo, 0600), 0);
	assert_int_equal(symlink("fifo", link), 0);
	FILE *f = fopen(file, "w");
	assert_non_null(f);
	fputs("elf", f);
	fclose(f);
	assert_int_equal(symlink("file", flink), 0);
	pid_t w = fifo_writer(fifo);
	assert_true(w > 0);
	assert_int_equal(open_regular(fifo), -CGW_ENOTREG);
	assert_int_equal(open_regular(link), -CGW_ENOTREG);
	assert_int_equal(open_regular_flags(link, O_NOFOLLOW), -ELOOP);
	int e;
	assert_null(fopen_regular(link, &e));
	assert_int_equal(e, CGW_ENOTREG);
	assert_true(still_blocked(w));         /* never opened: its writer still waits */
	int fd = open_regular(flink);
	assert_true(fd >= 0);
	char buf[8] = "";
	assert_int_equal(read(fd, buf, sizeof(buf)), 3);
	assert_memory_equal(buf, "elf", 3);
	assert_int_equal(fcntl(fd, F_GETFL) & (O_ACCMODE | O_NONBLOCK), O_RDONLY);
	close(fd);
	assert_int_equal(open_regular_flags(flink, O_NOFOLLOW), -ELOOP);
	assert_int_equal(open_regular(dir), -EISDIR);
	assert_int_equal(open_regular("/dev/null"), -CGW_ENOTREG);
	/* with the real /proc kept (as before a replay covers it): the same */
	open_regular_keep_proc();
	assert_int_equal(open_regular(link), -CGW_ENOTREG);
	fd = open_regular(flink);
	assert_true(fd >= 0);
	close(fd);
	assert_true(still_blocked(w));
	fd = open(fifo, O_RDONLY | O_NONBLOCK);   /* now this test opens it: the writer goes */
	assert_true(fd >= 0);
	assert_int_equal(waitpid(w, NULL, 0), w);
	close(fd);
	unlink(flink);
	unlink(file);
	unlink(link);
	unlink(fifo);
	rmdir(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_sb_nomem),
		cmocka_unit_test(test_open_regular),
		cmocka_unit_test(test_strbuf_grows_and_terminates),
		cmocka_unit_test(test_read_small_file),
		cmocka_unit_test(test_read_small_file_proc),
		cmocka_unit_test(test_read_whole_file),
		cmocka_unit_test(test_now_usec_monotonic),
		cmocka_unit_test(test_xstrndup),
		cmocka_unit_test(test_term_escape),
		cmocka_unit_test(test_errorf_and_cesc),
		cmocka_unit_test(test_parse_count_decimal),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
