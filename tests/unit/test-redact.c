/* test-redact.c: redaction tokens: stable, on name boundaries, longest first, paths under
 * home directories whole, and the map for the host. */
#include "unit.h"

/* redact_text of in, as a NUL-terminated string (freed by the caller). */
static char *red(struct cgw_redact *r, const char *in, size_t n)
{
	struct strbuf b = { 0 };
	assert_int_equal(redact_text(r, in, n, &b), 0);
	sb_add(&b, "", 0);
	return b.s ? b.s : xstrdup("");
}

static void test_tokens(void **state)
{
	(void)state;
	static const struct { const char *in, *want; } cases[] = {
		{ "host web-01 said", "host REDACTED-host-1 said" },
		{ "web-01.example.com", "REDACTED-host-2" },           /* the longer value wins */
		{ "user alice, not malice or alice2", "user REDACTED-user-1, not malice or alice2" },
		{ "/home/alice/src/db.sqlite x", "REDACTED-path-1 x" },
		{ "cwd=/home/alice/src/db.sqlite", "cwd=REDACTED-path-1" },
		{ "/home/ alone", "/home/ alone" },
		{ "/homework/alice", "/homework/REDACTED-user-1" },
		{ "__flush_workqueue+0x14e/0x430", "__flush_workqueue+0x14e/0x430" },
		{ "0-3,8-11", "0-3,8-11" },
	};
	struct cgw_redact *r = redact_new();
	assert_non_null(r);
	assert_string_equal(redact_add(r, "host", "web-01", 6), "REDACTED-host-1");
	assert_string_equal(redact_add(r, "host", "web-01.example.com", 18), "REDACTED-host-2");
	assert_string_equal(redact_add(r, "user", "alice", 5), "REDACTED-user-1");
	assert_string_equal(redact_add(r, "user", "alice", 5), "REDACTED-user-1");  /* stable */
	assert_null(redact_add(r, "user", "", 0));
	assert_int_equal(redact_prefix(r, "/home/"), 0);
	assert_int_equal(redact_prefix(r, ""), -EINVAL);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		char *got = red(r, cases[i].in, strlen(cases[i].in));
		if (strcmp(got, cases[i].want) != 0)
			fail_msg("case %zu: \"%s\" -> \"%s\", want \"%s\"", i, cases[i].in, got,
			         cases[i].want);
		free(got);
	}
	/* NUL-separated text (a cmdline) and a second path get their own tokens */
	static const char cmd[] = "prog\0/home/bob/x\0web-01";
	char *got = red(r, cmd, sizeof(cmd) - 1);
	assert_memory_equal(got, "prog\0REDACTED-path-2\0REDACTED-host-1", 36);
	free(got);
	/* the map: every token and its value, escaped, for the host only */
	struct strbuf m = { 0 };
	redact_map_text(r, &m);
	assert_non_null(strstr(m.s, "REDACTED-user-1\talice\n"));
	assert_non_null(strstr(m.s, "REDACTED-path-2\t/home/bob/x\n"));
	sb_free(&m);
	redact_free(r);
}

/* A value holding a control byte is escaped in the map, never written raw. */
static void test_map_escaped(void **state)
{
	(void)state;
	struct cgw_redact *r = redact_new();
	assert_non_null(redact_add(r, "host", "a\nb\x1b", 4));
	struct strbuf m = { 0 };
	redact_map_text(r, &m);
	assert_string_equal(m.s, "REDACTED-host-1\ta\\x0ab\\x1b\n");
	sb_free(&m);
	redact_free(r);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_tokens),
		cmocka_unit_test(test_map_escaped),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
