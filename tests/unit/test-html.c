/* test-html.c: the HTML pages (sink-html*.c) — every host string escaped for text and
 * attributes, control bytes and broken UTF-8 C-escaped. */
#include "unit.h"

#define HOSTILE "<script>alert(1)</script>\"'&"

static char *esc_of(const char *s, size_t n)
{
	struct strbuf b = { 0 };
	html_esc(&b, s, n);
	char *r = strdup(b.s ? b.s : "");
	sb_free(&b);
	return r;
}

static void test_escape(void **state)
{
	(void)state;
	char *e = esc_of(HOSTILE, strlen(HOSTILE));
	assert_string_equal(e, "&lt;script&gt;alert(1)&lt;/script&gt;&quot;&#39;&amp;");
	free(e);
	/* control bytes as the other sinks write them, broken UTF-8 and NUL as \xNN */
	static const char ctl[] = "a\nb\tc\rd\x1b[2Je\xff\xc3(f\0g\x7f";
	e = esc_of(ctl, sizeof(ctl) - 1);
	assert_string_equal(e, "a\\nb\\tc\\rd\\x1b[2Je\\xff\\xc3(f\\x00g\\x7f");
	free(e);
	/* valid UTF-8 kept; a C1 control (U+0085) is not text */
	e = esc_of("caf\xc3\xa9 \xc2\x85", 8);
	assert_string_equal(e, "caf\xc3\xa9 \\xc2\\x85");
	free(e);
	e = esc_of("", 0);
	assert_string_equal(e, "");
	free(e);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_escape),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
