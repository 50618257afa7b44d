/* test-util.c: strbuf, read_small_file, now_usec, xstrndup. */
#include "unit.h"

#include <time.h>
#include <unistd.h>

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

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_strbuf_grows_and_terminates),
		cmocka_unit_test(test_read_small_file),
		cmocka_unit_test(test_read_small_file_proc),
		cmocka_unit_test(test_now_usec_monotonic),
		cmocka_unit_test(test_xstrndup),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
