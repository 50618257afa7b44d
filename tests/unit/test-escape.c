/* test-escape.c: cescape, parse_seconds, sev_name / sev_parse. */
#include "unit.h"

static void test_cescape_table(void **state)
{
	(void)state;
	static const struct { const char *what, *in; size_t n; const char *out; } cases[] = {
		{ "plain", "systemd", 7, "systemd" },
		{ "space and printable punctuation", "a b ~!@#$%^&*()", 15, "a b ~!@#$%^&*()" },
		{ "newline", "new\nline", 8, "new\\nline" },
		{ "tab, CR", "\t\r", 2, "\\t\\r" },
		{ "quote", "say \"hi\"", 8, "say \\\"hi\\\"" },
		{ "backslash", "C:\\dir", 6, "C:\\\\dir" },
		{ "ESC", "\x1b[31mred", 8, "\\x1b[31mred" },
		{ "other controls", "\x01\x07\x1f", 3, "\\x01\\x07\\x1f" },
		{ "DEL", "\x7f", 1, "\\x7f" },
		{ "UTF-8", "\xc3\xa9t\xc3\xa9", 5, "\\xc3\\xa9t\\xc3\\xa9" },
		{ "0xff", "\xff", 1, "\\xff" },
		{ "NUL inside n", "a\0b", 3, "a\\x00b" },
		{ "n stops early", "abcdef", 3, "abc" },
		{ "empty", "", 0, "" },
		/* tests/live/bin/fusehold --hostile names its child this */
		{ "fusehold --hostile", "f\nb\"c\\\x1b[31m", 11, "f\\nb\\\"c\\\\\\x1b[31m" },
		/* a comm forging a report line */
		{ "forged line", "x\nFINDING critical", 18, "x\\nFINDING critical" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char out[128];
		memset(out, 'X', sizeof(out));
		print_message("# case: %s\n", cases[i].what);
		assert_ptr_equal(cescape(cases[i].in, cases[i].n, out, sizeof(out)), out);
		assert_string_equal(out, cases[i].out);
	}
}

/* Decode what cescape wrote; -1 on a sequence it should never write. */
static int unescape(const char *s, char *out)
{
	int n = 0;
	while (*s) {
		if (*s != '\\') {
			out[n++] = *s++;
			continue;
		}
		switch (s[1]) {
		case 'n': out[n++] = '\n'; s += 2; break;
		case 't': out[n++] = '\t'; s += 2; break;
		case 'r': out[n++] = '\r'; s += 2; break;
		case '"': out[n++] = '"'; s += 2; break;
		case '\\': out[n++] = '\\'; s += 2; break;
		case 'x': {
			unsigned v;
			if (sscanf(s + 2, "%2x", &v) != 1 || !s[2] || !s[3])
				return -1;
			out[n++] = (char)v;
			s += 4;
			break;
		}
		default: return -1;
		}
	}
	return n;
}

/* Every byte comes out printable ASCII, and the escaping is reversible. */
static void test_cescape_all_bytes_printable_reversible(void **state)
{
	(void)state;
	char in[256], out[256 * 4 + 1], back[256];
	for (int i = 0; i < 256; i++)
		in[i] = (char)i;
	cescape(in, sizeof(in), out, sizeof(out));
	assert_int_equal(strlen(out), 32 * 4 - 3 * 2 /* \t \n \r */ + 95 - 2 + 2 * 2 /* " \ */ + 129 * 4);
	for (const char *p = out; *p; p++)
		assert_true(*p >= 0x20 && *p <= 0x7e);
	assert_int_equal(unescape(out, back), 256);
	assert_memory_equal(back, in, 256);
}

/* Truncation never splits an escape, never writes past cap, always NUL-terminates: for
 * every cap the result is the escaping of a prefix of the input. */
static void test_cescape_truncation(void **state)
{
	(void)state;
	static const char in[] = "f\nb\"c\\\x1b[31m\xc3\xa9!";
	const size_t n = sizeof(in) - 1;
	char full[128];
	cescape(in, n, full, sizeof(full));
	assert_string_equal(full, "f\\nb\\\"c\\\\\\x1b[31m\\xc3\\xa9!");
	for (size_t cap = 1; cap <= strlen(full) + 2; cap++) {
		char out[160], back[64];
		memset(out, 'X', sizeof(out));
		print_message("# cap %zu\n", cap);
		cescape(in, n, out, cap);
		size_t len = strnlen(out, cap);
		assert_true(len < cap);                              /* NUL inside cap */
		assert_int_equal(out[cap], 'X');                     /* nothing after it */
		assert_memory_equal(out, full, len);                 /* a prefix of the whole */
		int k = unescape(out, back);
		assert_true(k >= 0);                                 /* no split escape */
		assert_memory_equal(back, in, (size_t)k);
		/* greedy: the next escape would not have fitted */
		if (len < strlen(full)) {
			char one[8];
			cescape(in + k, 1, one, sizeof(one));
			assert_true(len + strlen(one) + 1 > cap);
		}
	}
	static const struct { const char *in; size_t cap; const char *out; } cases[] = {
		{ "abc\n", 5, "abc" }, { "abc\n", 6, "abc\\n" },
		{ "\x1b", 4, "" }, { "\x1b", 5, "\\x1b" },
		{ "ab", 1, "" }, { "ab", 2, "a" }, { "ab", 3, "ab" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		char out[16];
		memset(out, 'X', sizeof(out));
		cescape(cases[i].in, strlen(cases[i].in), out, cases[i].cap);
		assert_string_equal(out, cases[i].out);
		assert_int_equal(out[cases[i].cap], 'X');
	}
	/* cap 0: nothing is written */
	char z = 'Z';
	assert_ptr_equal(cescape("abc", 3, &z, 0), &z);
	assert_int_equal(z, 'Z');
}

static void test_parse_seconds_ok(void **state)
{
	(void)state;
	static const struct { const char *s; double min, max, want; } cases[] = {
		{ "5", 0.1, 3600, 5 },
		{ "0.5", 0.1, 10, 0.5 },
		{ "20", 1, 3600, 20 },
		{ "1", 1, 3600, 1 },              /* bounds are inclusive */
		{ "3600", 1, 3600, 3600 },
		{ "0.1", 0.1, 60, 0.1 },
		{ "2.000", 0, 60, 2 },
		{ "1e1", 0, 60, 10 },
		{ "7 ", 0, 60, 7 },               /* trailing blanks */
		{ "7\t", 0, 60, 7 },
		{ "0", 0, 60, 0 },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		double v = -123;
		print_message("# \"%s\"\n", cases[i].s);
		assert_int_equal(parse_seconds(cases[i].s, cases[i].min, cases[i].max, &v), 0);
		assert_near(v, cases[i].want, 1e-12);
	}
}

static void test_parse_seconds_errors(void **state)
{
	(void)state;
	static const struct { const char *s; double min, max; int ret; } cases[] = {
		{ "0", 1, 3600, -ERANGE },
		{ "0.99", 1, 3600, -ERANGE },
		{ "3600.001", 1, 3600, -ERANGE },
		{ "-1", 0, 60, -ERANGE },
		{ "1e5", 0, 60, -ERANGE },
		{ "", 0, 60, -EINVAL },
		{ " ", 0, 60, -EINVAL },
		{ "abc", 0, 60, -EINVAL },
		{ "5s", 0, 60, -EINVAL },
		{ "5 s", 0, 60, -EINVAL },
		{ "1,5", 0, 60, -EINVAL },
		{ "1.5.2", 0, 60, -EINVAL },
		{ "nan", 0, 60, -EINVAL },
		{ "inf", 0, 1e308, -EINVAL },
		{ "-inf", -1e308, 60, -EINVAL },
		{ "5\n", 0, 60, -EINVAL },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		double v = -123;
		print_message("# \"%s\"\n", esc(cases[i].s));
		assert_int_equal(parse_seconds(cases[i].s, cases[i].min, cases[i].max, &v),
		                 cases[i].ret);
		assert_near(v, -123, 0);          /* untouched on error */
	}
	/* overflow is an error of one kind or the other, never a value */
	double v = -123;
	int r = parse_seconds("1e999", 0, 1e308, &v);
	assert_true(r == -EINVAL || r == -ERANGE);
	assert_near(v, -123, 0);
}

/* The contract says "decimal": C99 hexadecimal floats are not (strtod takes them). */
static void test_parse_seconds_decimal_only(void **state)
{
	(void)state;
	static const char *const hex[] = { "0x10", "0X1p4", "0x1.8" };
	for (size_t i = 0; i < ARRAY_SIZE(hex); i++) {
		double v = -123;
		print_message("# \"%s\"\n", hex[i]);
		int r = parse_seconds(hex[i], 0, 60, &v);
		if (r == 0)
			print_error("\"%s\" parsed as %g\n", hex[i], v);
		assert_int_equal(r, -EINVAL);
	}
}

static void test_sev_names(void **state)
{
	(void)state;
	static const struct { enum cgw_sev s; const char *name; } cases[] = {
		{ SEV_NONE, "none" }, { SEV_INFO, "info" }, { SEV_WARNING, "warning" },
		{ SEV_CRITICAL, "critical" }, { (enum cgw_sev)4, "none" }, { (enum cgw_sev)-1, "none" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++)
		assert_string_equal(sev_name(cases[i].s), cases[i].name);
	/* and back */
	for (int s = SEV_INFO; s <= SEV_CRITICAL; s++)
		assert_int_equal(sev_parse(sev_name((enum cgw_sev)s)), s);
	static const char *const unknown[] = {
		"none", "", "Warning", "CRITICAL", "crit", "warn", "warning ", " info", "error",
	};
	for (size_t i = 0; i < ARRAY_SIZE(unknown); i++) {
		print_message("# \"%s\"\n", unknown[i]);
		assert_int_equal(sev_parse(unknown[i]), -1);
	}
	/* the order is what classify sorts by */
	assert_true(SEV_NONE < SEV_INFO && SEV_INFO < SEV_WARNING && SEV_WARNING < SEV_CRITICAL);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_cescape_table),
		cmocka_unit_test(test_cescape_all_bytes_printable_reversible),
		cmocka_unit_test(test_cescape_truncation),
		cmocka_unit_test(test_parse_seconds_ok),
		cmocka_unit_test(test_parse_seconds_errors),
		cmocka_unit_test(test_parse_seconds_decimal_only),
		cmocka_unit_test(test_sev_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
