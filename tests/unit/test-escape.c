/* test-escape.c: cescape, utf8_escape and JSON strings, parse_seconds, sev_name / sev_parse. */
#include <json-c/json.h>

#include "unit.h"

/* cescape and utf8_escape have the same contract shape. */
typedef char *escape_fn(const char *s, size_t n, char *out, size_t cap);
struct esc_case { const char *what, *in; size_t n; const char *out; };
struct cap_case { const char *in; size_t cap; const char *out; };

/* Each case escaped into a roomy buffer gives exactly its out. */
static void check_table(escape_fn *fn, const struct esc_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char out[128];
		memset(out, 'X', sizeof(out));
		print_message("# case: %s\n", c[i].what);
		assert_ptr_equal(fn(c[i].in, c[i].n, out, sizeof(out)), out);
		assert_string_equal(out, c[i].out);
	}
}

/* Each case escaped with its small cap gives exactly its out and writes nothing past cap;
 * cap 0 writes nothing at all. */
static void check_caps(escape_fn *fn, const struct cap_case *c, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		char out[16];
		memset(out, 'X', sizeof(out));
		fn(c[i].in, strlen(c[i].in), out, c[i].cap);
		assert_string_equal(out, c[i].out);
		assert_int_equal(out[c[i].cap], 'X');
	}
	char z = 'Z';
	assert_ptr_equal(fn("abc", 3, &z, 0), &z);
	assert_int_equal(z, 'Z');
}

/* Every byte of text is printable ASCII or a newline: what may reach a terminal. */
static void assert_printable(const char *text)
{
	for (const char *p = text; *p; p++) {
		if (!((*p >= 0x20 && *p < 0x7f) || *p == '\n'))
			print_error("byte 0x%02x at %td of\n%s\n", (unsigned char)*p, p - text, text);
		assert_true((*p >= 0x20 && *p < 0x7f) || *p == '\n');
	}
}

static void test_cescape_table(void **state)
{
	(void)state;
	static const struct esc_case cases[] = {
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
	check_table(cescape, cases, ARRAY_SIZE(cases));
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
	static const struct cap_case cases[] = {
		{ "abc\n", 5, "abc" }, { "abc\n", 6, "abc\\n" },
		{ "\x1b", 4, "" }, { "\x1b", 5, "\\x1b" },
		{ "ab", 1, "" }, { "ab", 2, "a" }, { "ab", 3, "ab" },
	};
	check_caps(cescape, cases, ARRAY_SIZE(cases));
}

/* utf8_escape: well-formed UTF-8 kept, every other byte as \xNN. */
static void test_utf8_escape_table(void **state)
{
	(void)state;
	static const struct esc_case cases[] = {
		{ "plain", "systemd", 7, "systemd" },
		/* tests/live/bin/fusehold --hostile: JSON's own escapes are json-c's business */
		{ "hostile comm", "f\nb\"c\\\x1b[31m", 11, "f\nb\"c\\\x1b[31m" },
		{ "tab, CR, other C0", "\t\r\x01\x1f", 4, "\t\r\x01\x1f" },
		{ "DEL", "a\x7f", 2, "a\x7f" },
		{ "a literal backslash-x stays (same text as an escaped byte)", "\\xff", 4, "\\xff" },
		{ "é (2 bytes)", "caf\xc3\xa9", 5, "caf\xc3\xa9" },
		{ "日本 (3 bytes each)", "\xe6\x97\xa5\xe6\x9c\xac", 6, "\xe6\x97\xa5\xe6\x9c\xac" },
		{ "emoji U+1F600 (4 bytes)", "\xf0\x9f\x98\x80!", 5, "\xf0\x9f\x98\x80!" },
		{ "C1 U+0085 is well-formed", "\xc2\x85", 2, "\xc2\x85" },
		{ "U+0080, U+07FF", "\xc2\x80\xdf\xbf", 4, "\xc2\x80\xdf\xbf" },
		{ "U+0800, U+FFFF", "\xe0\xa0\x80\xef\xbf\xbf", 6, "\xe0\xa0\x80\xef\xbf\xbf" },
		{ "U+D7FF, U+E000 (around the surrogates)", "\xed\x9f\xbf\xee\x80\x80", 6,
		  "\xed\x9f\xbf\xee\x80\x80" },
		{ "U+10000, U+10FFFF", "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf", 8,
		  "\xf0\x90\x80\x80\xf4\x8f\xbf\xbf" },
		/* invalid: each byte of it becomes \xNN */
		{ "lone continuation bytes", "a\x80\xbf", 3, "a\\x80\\xbf" },
		{ "Latin-1 é", "caf\xe9", 4, "caf\\xe9" },
		{ "overlong 2-byte '/' (C0 AF)", "\xc0\xaf", 2, "\\xc0\\xaf" },
		{ "overlong 2-byte (C1 BF)", "\xc1\xbf", 2, "\\xc1\\xbf" },
		{ "overlong 3-byte (E0 80 AF)", "\xe0\x80\xaf", 3, "\\xe0\\x80\\xaf" },
		{ "overlong 3-byte U+07FF (E0 9F BF)", "\xe0\x9f\xbf", 3, "\\xe0\\x9f\\xbf" },
		{ "overlong 4-byte (F0 80 80 AF)", "\xf0\x80\x80\xaf", 4, "\\xf0\\x80\\x80\\xaf" },
		{ "overlong 4-byte U+FFFF (F0 8F BF BF)", "\xf0\x8f\xbf\xbf", 4,
		  "\\xf0\\x8f\\xbf\\xbf" },
		{ "surrogate U+D800", "\xed\xa0\x80", 3, "\\xed\\xa0\\x80" },
		{ "surrogate U+DFFF", "\xed\xbf\xbf", 3, "\\xed\\xbf\\xbf" },
		{ "above U+10FFFF (F4 90 80 80)", "\xf4\x90\x80\x80", 4, "\\xf4\\x90\\x80\\x80" },
		{ "F5..FF never start a sequence", "\xf5\x80\x80\x80\xfe\xff", 6,
		  "\\xf5\\x80\\x80\\x80\\xfe\\xff" },
		{ "truncated at the end", "ab\xe6\x97", 4, "ab\\xe6\\x97" },
		{ "truncated 4-byte at the end", "\xf0\x9f\x98", 3, "\\xf0\\x9f\\x98" },
		{ "truncated, then ASCII", "\xe6\x97" "A", 3, "\\xe6\\x97A" },
		{ "lead, then a new lead", "\xc3\xc3\xa9", 3, "\\xc3\xc3\xa9" },
		{ "NUL inside n", "a\0b", 3, "a\\x00b" },
		{ "mixed, as a 15-byte comm", "u\xc3\xa9\xff\xed\xa0\x80z", 8,
		  "u\xc3\xa9\\xff\\xed\\xa0\\x80z" },
		{ "n stops early", "abcdef", 3, "abc" },
		{ "empty", "", 0, "" },
	};
	check_table(utf8_escape, cases, ARRAY_SIZE(cases));
	/* every single byte: 01..7F are themselves, the rest (NUL too) \xNN */
	for (int c = 0; c < 256; c++) {
		char in = (char)c, out[8], want[8];
		if (c >= 1 && c <= 0x7f)
			snprintf(want, sizeof(want), "%c", c);
		else
			snprintf(want, sizeof(want), "\\x%02x", c);
		assert_string_equal(utf8_escape(&in, 1, out, sizeof(out)), want);
	}
}

/* A decoder written apart from utf8_escape: the code point of the sequence at s and its
 * length, or 0 when it is not well-formed (shortest form, no surrogate, <= U+10FFFF). */
static size_t decode_cp(const unsigned char *s, size_t n, unsigned *cp)
{
	size_t k = s[0] < 0x80 ? 1 : (s[0] & 0xe0) == 0xc0 ? 2 : (s[0] & 0xf0) == 0xe0 ? 3 :
	           (s[0] & 0xf8) == 0xf0 ? 4 : 0;
	static const unsigned min[] = { 0, 0, 0x80, 0x800, 0x10000 };
	if (k == 0 || k > n)
		return 0;
	unsigned v = k == 1 ? s[0] : s[0] & (0x7fu >> k);
	for (size_t i = 1; i < k; i++) {
		if ((s[i] & 0xc0) != 0x80)
			return 0;
		v = v << 6 | (s[i] & 0x3fu);
	}
	if (v < min[k] || (v >= 0xd800 && v <= 0xdfff) || v > 0x10ffff)
		return 0;
	*cp = v;
	return k;
}

/* Arbitrary NUL-free bytes, as a comm can hold (no backslash, so that \xNN is unambiguous):
 * the output is well-formed UTF-8 without NUL, and undoing \xNN gives the input back. */
static void test_utf8_escape_arbitrary_bytes(void **state)
{
	(void)state;
	unsigned seed = 7;
	for (int round = 0; round < 20000; round++) {
		unsigned char in[15];
		size_t n = (size_t)(round % 16);
		for (size_t i = 0; i < n; i++) {
			do {
				seed = seed * 1103515245u + 12345u;
				/* half of the rounds: bytes that often form sequences */
				in[i] = (unsigned char)(round & 1 ? seed >> 16 : 0x80 | (seed >> 16 & 0x7f));
				if (round & 2 && i % 3 == 0)
					in[i] = (unsigned char)(0xc2 + (seed >> 20) % 0x33);
			} while (in[i] == 0 || in[i] == '\\');
		}
		char out[15 * 4 + 1], back[16];
		utf8_escape((const char *)in, n, out, sizeof(out));
		size_t len = strlen(out), m = 0;
		for (size_t i = 0; i < len;) {
			unsigned cp;
			size_t k = decode_cp((const unsigned char *)out + i, len - i, &cp);
			assert_true(k > 0);                               /* well-formed */
			if (out[i] == '\\') {
				unsigned v;
				assert_int_equal(out[i + 1], 'x');
				assert_int_equal(sscanf(out + i + 2, "%2x", &v), 1);
				back[m++] = (char)v;
				i += 4;
			} else {
				memcpy(back + m, out + i, k);
				m += k;
				i += k;
			}
		}
		assert_int_equal(m, n);
		assert_bytes_equal(back, (const char *)in, n);
	}
}

/* Truncation keeps whole units (a sequence or a \xNN), never writes past cap, always
 * NUL-terminates, and is greedy. */
static void test_utf8_escape_truncation(void **state)
{
	(void)state;
	/* 日 é \xff 😀 ! */
	static const char in[] = "\xe6\x97\xa5\xc3\xa9\xff\xf0\x9f\x98\x80!";
	static const size_t ends[] = { 0, 3, 5, 9, 13, 14 };     /* unit boundaries of full */
	const size_t n = sizeof(in) - 1;
	char full[64];
	utf8_escape(in, n, full, sizeof(full));
	assert_string_equal(full, "\xe6\x97\xa5\xc3\xa9\\xff\xf0\x9f\x98\x80!");
	for (size_t cap = 1; cap <= strlen(full) + 2; cap++) {
		char out[64];
		memset(out, 'X', sizeof(out));
		print_message("# cap %zu\n", cap);
		utf8_escape(in, n, out, cap);
		size_t len = strnlen(out, cap), want = 0;
		for (size_t k = 0; k < ARRAY_SIZE(ends); k++)
			if (ends[k] < cap)
				want = ends[k];                           /* the longest that fits */
		assert_int_equal(len, want);
		assert_int_equal(out[cap], 'X');
		assert_memory_equal(out, full, len);
	}
	static const struct cap_case cases[] = {
		{ "\xe6\x97\xa5\xe6\x9c\xac", 4, "\xe6\x97\xa5" },
		{ "\xe6\x97\xa5\xe6\x9c\xac", 6, "\xe6\x97\xa5" },
		{ "\xe6\x97\xa5\xe6\x9c\xac", 7, "\xe6\x97\xa5\xe6\x9c\xac" },
		{ "\xf0\x9f\x98\x80", 4, "" }, { "\xf0\x9f\x98\x80", 5, "\xf0\x9f\x98\x80" },
		{ "\xff", 4, "" }, { "\xff", 5, "\\xff" },
		{ "a\xc3\xa9", 3, "a" }, { "ab", 1, "" },
	};
	check_caps(utf8_escape, cases, ARRAY_SIZE(cases));
}

/* The byte-at-a-time writers these were (util.c utf8_escape, json.c jstr_serialize) before
 * they copied runs: what the faster ones must write, byte for byte. */
static size_t ref_utf8_seq(const unsigned char *s, size_t n)
{
	unsigned c = s[0];
	size_t k = c >= 0x01 && c <= 0x7f ? 1 : c >= 0xc2 && c <= 0xdf ? 2 :
	           c >= 0xe0 && c <= 0xef ? 3 : c >= 0xf0 && c <= 0xf4 ? 4 : 0;
	unsigned lo = c == 0xe0 ? 0xa0 : c == 0xf0 ? 0x90 : 0x80;
	unsigned hi = c == 0xed ? 0x9f : c == 0xf4 ? 0x8f : 0xbf;
	if (k > n)
		return 0;
	for (size_t i = 1; i < k; i++, lo = 0x80, hi = 0xbf)
		if (s[i] < lo || s[i] > hi)
			return 0;
	return k;
}

static void ref_utf8_escape(const unsigned char *u, size_t n, char *out, size_t cap)
{
	static const char hex[] = "0123456789abcdef";
	size_t o = 0;
	for (size_t i = 0; i < n;) {
		size_t k = ref_utf8_seq(u + i, n - i);
		if (o + (k ? k : 4) + 1 > cap)
			break;
		if (k) {
			memcpy(out + o, u + i, k);
			o += k;
			i += k;
		} else {
			out[o++] = '\\';
			out[o++] = 'x';
			out[o++] = hex[u[i] >> 4];
			out[o++] = hex[u[i++] & 15];
		}
	}
	out[o] = '\0';
}

static void ref_jstr(const unsigned char *s, size_t n, bool noslash, char *out)
{
	static const char from[] = "\"\\/\b\f\n\r\t", to[] = "\"\\/bfnrt";
	char *p = out;
	*p++ = '"';
	for (size_t i = 0; i < n; i++) {
		unsigned c = s[i];
		bool c1 = c == 0xc2 && i + 1 < n && s[i + 1] >= 0x80 && s[i + 1] <= 0x9f;
		const char *f = c ? strchr(from, (int)c) : NULL;
		if (c1)
			c = s[++i];
		if (f && (c != '/' || !noslash)) {
			*p++ = '\\';
			*p++ = to[f - from];
		} else if (c < 0x20 || c == 0x7f || c1) {
			p += sprintf(p, "\\u%04x", c);
		} else {
			*p++ = (char)s[i];
		}
	}
	*p++ = '"';
	*p = '\0';
}

/* One input through both: utf8_escape at every cap up to its whole length, and the JSON
 * string of it with and without '/' escaped. */
static void same_as_bytewise(const unsigned char *in, size_t n)
{
	char got[256], want[256], esc[160];
	for (size_t cap = 1; cap <= 4 * n + 1; cap++) {
		utf8_escape((const char *)in, n, got, cap);
		ref_utf8_escape(in, n, want, cap);
		if (strcmp(got, want) != 0) {
			print_error("utf8_escape of \"%s\" cap %zu: \"%s\", want \"%s\"\n",
			            cescape((const char *)in, n, esc, sizeof(esc)), cap, got, want);
			fail();
		}
	}
	utf8_escape((const char *)in, n, esc, sizeof(esc));
	for (int noslash = 0; noslash < 2; noslash++) {
		json_object *o = jstr_untrusted((const char *)in, n);
		const char *txt = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
		                  (noslash ? JSON_C_TO_STRING_NOSLASHESCAPE : 0));
		ref_jstr((const unsigned char *)esc, strlen(esc), noslash, want);
		if (strcmp(txt, want) != 0) {
			print_error("JSON of \"%s\": %s, want %s\n", esc, txt, want);
			fail();
		}
		json_object_put(o);
	}
}

static void test_escape_runs_same_as_bytewise(void **state)
{
	(void)state;
	static const unsigned char alpha[] = { 0x00, 0x01, 0x08, '\t', '\n', 0x1f, ' ', '"', '/',
		'\\', 'a', 0x7f, 0x80, 0x9b, 0x9f, 0xa0, 0xbf, 0xc2, 0xc3, 0xe0, 0xe6, 0xed, 0xf0,
		0xf4, 0xff };
	size_t na = sizeof(alpha);
	unsigned char in[16];
	for (size_t a = 0; a < na; a++)            /* every string of up to 3 of them */
		for (size_t b = 0; b <= na; b++)
			for (size_t c = 0; c <= na; c++) {
				size_t n = 0;
				in[n++] = alpha[a];
				if (b < na)
					in[n++] = alpha[b];
				if (b < na && c < na)
					in[n++] = alpha[c];
				same_as_bytewise(in, n);
			}
	unsigned long x = 12345;                   /* and longer ones, mostly plain */
	for (int k = 0; k < 3000; k++) {
		size_t n = 4 + k % 12;
		for (size_t i = 0; i < n; i++) {
			x = x * 6364136223846793005ul + 1442695040888963407ul;
			unsigned r = (unsigned)(x >> 33);
			in[i] = r % 3 ? (unsigned char)('a' + r % 26) : alpha[r % na];
		}
		same_as_bytewise(in, n);
	}
}

/* jstr_untrusted: jq and json-c read back exactly utf8_escape's text, and the printed JSON
 * holds no raw control character: C0 as json-c writes it, DEL and C1 as \u00NN. */
static void test_jstr_untrusted(void **state)
{
	(void)state;
	static const struct { const char *what, *in, *printed, *value; } cases[] = {
		{ "hostile comm", "f\nb\"c\\\x1b[31m", "\"f\\nb\\\"c\\\\\\u001b[31m\"",
		  "f\nb\"c\\\x1b[31m" },
		{ "slash kept (NOSLASHESCAPE)", "/system.slice/a.service", "\"/system.slice/a.service\"",
		  "/system.slice/a.service" },
		{ "other C0", "\b\f\r\t\x01", "\"\\b\\f\\r\\t\\u0001\"", "\b\f\r\t\x01" },
		{ "DEL", "a\x7f", "\"a\\u007f\"", "a\x7f" },
		{ "C1 U+009B (CSI)", "\xc2\x9b" "31m", "\"\\u009b31m\"", "\xc2\x9b" "31m" },
		{ "C1 U+0080, then U+00A0 (not C1)", "\xc2\x80\xc2\xa0", "\"\\u0080\xc2\xa0\"",
		  "\xc2\x80\xc2\xa0" },
		{ "日本 and emoji as they are", "\xe6\x97\xa5\xe6\x9c\xac\xf0\x9f\x98\x80",
		  "\"\xe6\x97\xa5\xe6\x9c\xac\xf0\x9f\x98\x80\"",
		  "\xe6\x97\xa5\xe6\x9c\xac\xf0\x9f\x98\x80" },
		{ "invalid bytes as text", "a\xff\x9b", "\"a\\\\xff\\\\x9b\"", "a\\xff\\x9b" },
	};
	for (size_t i = 0; i < ARRAY_SIZE(cases); i++) {
		print_message("# case: %s\n", cases[i].what);
		json_object *o = json_object_new_object();
		json_object_object_add(o, "s", jstr_untrusted(cases[i].in, strlen(cases[i].in)));
		const char *txt = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
		                                                    JSON_C_TO_STRING_NOSLASHESCAPE);
		char want[128];
		snprintf(want, sizeof(want), "{\"s\":%s}", cases[i].printed);
		assert_string_equal(txt, want);
		json_object *back = json_tokener_parse(txt);
		assert_non_null(back);
		assert_string_equal(json_object_get_string(json_object_object_get(back, "s")),
		                    cases[i].value);
		json_object_put(back);
		json_object_put(o);
	}
	/* without NOSLASHESCAPE, '/' is escaped as json-c does */
	json_object *o = jstr_untrusted("a/b", 3);
	assert_string_equal(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN), "\"a\\/b\"");
	json_object_put(o);
}

/* Threads that share an unwind (the same frames) share one ustack array in the document,
 * built once and printed under each; a thread with other frames has its own. Kernel stacks
 * alike. */
static void test_report_json_shared_ustack(void **state)
{
	(void)state;
	struct unit_scan u;
	us_init(&u);
	size_t idx[3];
	for (int i = 0; i < 3; i++) {
		idx[i] = us_task(&u, 500 + i, 500, "app", 3, 30);
		struct cgw_task *t = &u.scan.t[idx[i]];
		t->uframes = xcalloc(2, sizeof(*t->uframes));
		t->nuframes = 2;
		for (int k = 0; k < 2; k++) {
			struct cgw_uframe *f = &t->uframes[k];
			f->pc = 0x401000ul + (unsigned long)k * 0x10 + (i == 2 ? 4 : 0);
			f->offset = f->pc - 0x400000ul;
			snprintf(f->module, sizeof(f->module), "/usr/bin/app");
			snprintf(f->symbol, sizeof(f->symbol), "fn%d", k);
		}
		if (i == 1)
			t->ustack_same_as = 500;
		/* kernel stacks: the first two alike, the third's second frame another */
		t->frames = xcalloc(2, sizeof(*t->frames));
		t->nframes = 2;
		t->frames[0].text = xstrdup("fuse_get_req+0x1fb/0x2e0");
		t->frames[0].name = xstrdup("fuse_get_req");
		t->frames[1].text = xstrdup(i == 2 ? "fuse_lookup+0x1/0x2" : "fuse_lookup+0xb2/0x1e0");
		t->frames[1].name = xstrdup("fuse_lookup");
	}
	struct cgw_sig sig = unit_sig("unknown", "Blocked", "s", SEV_WARNING);
	us_finding(&u, &sig, SEV_WARNING, 3, idx);
	json_object *o = report_json_build(&u.rep, -1);
	json_object *tasks = json_object_object_get(o, "tasks");
	assert_int_equal(json_object_array_length(tasks), 3);
	json_object *us[3];
	for (int i = 0; i < 3; i++)
		us[i] = json_object_object_get(json_object_array_get_idx(tasks, (size_t)i), "ustack");
	assert_ptr_equal(us[0], us[1]);
	assert_ptr_not_equal(us[1], us[2]);
	char a[512], b[512];
	snprintf(a, sizeof(a), "%s", json_object_to_json_string_ext(us[0], JSON_C_TO_STRING_PLAIN));
	snprintf(b, sizeof(b), "%s", json_object_to_json_string_ext(us[2], JSON_C_TO_STRING_PLAIN));
	assert_non_null(strstr(a, "\"pc\":\"0x401010\""));
	assert_non_null(strstr(b, "\"pc\":\"0x401014\""));
	json_object *ks[3];
	for (int i = 0; i < 3; i++)
		ks[i] = json_object_object_get(json_object_array_get_idx(tasks, (size_t)i), "stack");
	assert_ptr_equal(ks[0], ks[1]);
	assert_ptr_not_equal(ks[1], ks[2]);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(ks[1], 1)),
	                    "fuse_lookup+0xb2/0x1e0");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(ks[2], 1)),
	                    "fuse_lookup+0x1/0x2");
	json_object_put(o);                   /* the shared arrays freed once, with their last holder */
	us_free(&u);
}

/* Every task and host string of a report is the real string in JSON (and stays C-escaped in
 * the text report); evidence is prose and keeps the text report's C-escaped names. */
static void test_report_json_real_strings(void **state)
{
	(void)state;
	static const char comm[] = "ev\"l\nx\\\x1b[31m\xff\xc3\xa9";       /* 15 bytes */
	struct unit_scan u;
	us_init(&u);
	snprintf(u.scan.host, sizeof(u.scan.host), "h\xc3\xb6st\n\x1b]0;x\x07");
	snprintf(u.scan.kernel, sizeof(u.scan.kernel), "6.99\xfe");
	size_t k = us_task(&u, 4242, 4200, comm, sizeof(comm) - 1, 30);
	struct cgw_task *t = &u.scan.t[k];
	snprintf(t->cgroup, sizeof(t->cgroup), "/x.slice/\x1b[2J\xe6\x97\xa5.scope");
	snprintf(t->unit, sizeof(t->unit), "\xe6\x97\xa5\xed\xa0\x80.service");
	snprintf(t->user, sizeof(t->user), "j\xc3\xb8rn\x7f");
	snprintf(t->wchan, sizeof(t->wchan), "w\x9b");
	snprintf(t->stack_error, sizeof(t->stack_error), "stack unreadable: \xc2\x9b" "2J");
	assert_int_equal(parse_stack_buf("[<0>] fuse_lookup+0x1/0x2 [f\"u\\s\xff" "e]\n", &t->frames), 1);
	t->nframes = 1;
	struct cgw_sig sig = unit_sig("fuse-wait", "Waiting for a FUSE daemon", "s", SEV_WARNING);
	size_t fi = us_finding(&u, &sig, SEV_WARNING, 1, &k);
	char esc[64];
	sb_printf(&u.rep.f[fi].evidence, "PID %d (%s) waits\n", t->tid,
	          cescape(t->comm, t->comm_len, esc, sizeof(esc)));

	json_object *o = report_json_build(&u.rep, -1);
	const char *txt = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PRETTY |
	                                                    JSON_C_TO_STRING_NOSLASHESCAPE);
	/* no raw control character in the printed JSON: C0, DEL, C1 (C2 80..C2 9F) */
	for (const unsigned char *p = (const unsigned char *)txt; *p; p++) {
		if ((*p < 0x20 && *p != '\n') || *p == 0x7f || (p[0] == 0xc2 && p[1] >= 0x80 &&
		                                                 p[1] <= 0x9f))
			print_error("raw control byte 0x%02x at %td of\n%s\n", *p,
			            p - (const unsigned char *)txt, txt);
		assert_false((*p < 0x20 && *p != '\n') || *p == 0x7f ||
		             (p[0] == 0xc2 && p[1] >= 0x80 && p[1] <= 0x9f));
	}
	json_object *back = json_tokener_parse(txt);
	assert_non_null(back);
	json_object *bt = json_object_array_get_idx(json_object_object_get(back, "tasks"), 0);
#define JS(obj, key) json_object_get_string(json_object_object_get((obj), (key)))
	assert_string_equal(JS(back, "host"), "h\xc3\xb6st\n\x1b]0;x\x07");
	assert_string_equal(JS(back, "kernel"), "6.99\\xfe");
	assert_string_equal(JS(bt, "comm"), "ev\"l\nx\\\x1b[31m\\xff\xc3\xa9");
	assert_string_equal(JS(bt, "cgroup"), "/x.slice/\x1b[2J\xe6\x97\xa5.scope");
	assert_string_equal(JS(bt, "unit"), "\xe6\x97\xa5\\xed\\xa0\\x80.service");
	assert_string_equal(JS(bt, "user"), "j\xc3\xb8rn\x7f");
	assert_string_equal(JS(bt, "wchan"), "w\\x9b");
	assert_string_equal(JS(bt, "stack_error"), "stack unreadable: \xc2\x9b" "2J");
	assert_string_equal(json_object_get_string(json_object_array_get_idx(
		json_object_object_get(bt, "stack"), 0)), "fuse_lookup+0x1/0x2 [f\"u\\s\\xffe]");
	json_object *f = json_object_array_get_idx(json_object_object_get(back, "findings"), 0);
	assert_string_equal(json_object_get_string(json_object_array_get_idx(
		json_object_object_get(f, "evidence"), 0)),
		"PID 4242 (ev\\\"l\\nx\\\\\\x1b[31m\\xff\\xc3\\xa9) waits");
#undef JS
	json_object_put(back);
	json_object_put(o);

	/* the text report: the task's strings C-escaped, no control byte but newline (the
	 * kernel release and stack_error are printed as they are: cgwatch's or the kernel's) */
	snprintf(u.scan.kernel, sizeof(u.scan.kernel), "6.99");
	t->stack_error[0] = '\0';
	struct errbuf e;
	report_text(&u.rep, errbuf_open(&e));
	const char *text = errbuf_text(&e);
	assert_printable(text);
	assert_non_null(strstr(text, "ev\\\"l\\nx\\\\\\x1b[31m\\xff\\xc3\\xa9"));
	assert_non_null(strstr(text, "[f\\\"u\\\\s\\xffe]"));
	errbuf_close(&e);
	us_free(&u);
}

/* A user stack in JSON (ustack: pc, offset and vaddr as hex strings, build_id; a frame not
 * named has null symbol, symbol_offset, symbol_from and symbol_exact, and its symbol_why;
 * ustack_error) and in the text report, under the kernel stack, its module paths and why
 * C-escaped: a name from .dynsym said to be the nearest exported symbol, an unnamed frame's
 * why once per file. */
static void test_report_ustack(void **state)
{
	(void)state;
	struct unit_scan u;
	us_init(&u);
	size_t k = us_task(&u, 77, 77, "app", 3, 30);
	struct cgw_task *t = &u.scan.t[k];
	assert_int_equal(parse_stack_buf("[<0>] kernel_clone+0x1af/0x3e0\n", &t->frames), 1);
	t->nframes = 1;
	t->uframes = calloc(3, sizeof(*t->uframes));
	assert_non_null(t->uframes);
	t->nuframes = 3;
	t->uframes[0] = (struct cgw_uframe){ .pc = 0x7f00000d43b8, .offset = 0xd43b8, .sym_off = 8,
	                                     .module = "/lib/libc.so.6", .symbol = "__vfork",
	                                     .symbol_from = "dynsym", .sym_exact = true,
	                                     .build_id = "93ac", .vaddr = 0xd43b8,
	                                     .have_vaddr = true, .pc_exact = true };
	t->uframes[1] = (struct cgw_uframe){ .pc = 0x555500001548, .offset = 0x1548,
	                                     .module = "/opt/\x1b[2Jp\xff", .vaddr = 0x2548,
	                                     .have_vaddr = true,
	                                     .symbol_why = "stripped: \x1b" };
	t->uframes[2] = t->uframes[1];
	t->uframes[2].offset = 0x1600;
	snprintf(t->ustack_error, sizeof(t->ustack_error), "user stack ends at /opt/p+0x1548: x");
	struct cgw_sig sig = unit_sig("vfork-wait", "vfork", "s", SEV_INFO);
	us_finding(&u, &sig, SEV_INFO, 1, &k);

	json_object *o = report_json_build(&u.rep, -1);
	const char *txt = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN |
	                                                    JSON_C_TO_STRING_NOSLASHESCAPE);
	assert_non_null(strstr(txt, "\"ustack\":[{\"pc\":\"0x7f00000d43b8\",\"module\":"
	                        "\"/lib/libc.so.6\",\"offset\":\"0xd43b8\",\"symbol\":\"__vfork\","
	                        "\"symbol_offset\":8,\"symbol_from\":\"dynsym\",\"symbol_exact\":"
	                        "true,\"symbol_why\":null,\"build_id\":\"93ac\",\"vaddr\":"
	                        "\"0xd43b8\"},{\"pc\":"
	                        "\"0x555500001548\",\"module\":\"/opt/\\u001b[2Jp\\\\xff\",\"offset\":"
	                        "\"0x1548\",\"symbol\":null,\"symbol_offset\":null,\"symbol_from\":"
	                        "null,\"symbol_exact\":null,\"symbol_why\":\"stripped: \\u001b\","
	                        "\"build_id\":null,\"vaddr\":\"0x2548\"},"));
	assert_non_null(strstr(txt, "}],\"ustack_error\":\"user stack ends at /opt/p+0x1548: x\""));
	json_object_put(o);

	struct errbuf e;
	report_text(&u.rep, errbuf_open(&e));
	const char *text = errbuf_text(&e);
	assert_printable(text);
	const char *ks = strstr(text, "kernel_clone+0x1af/0x3e0\n");
	assert_non_null(ks);
	const char *us = strstr(text, "    user stack (read without stopping it):\n"
	                              "        #0 __vfork+0x8 (/lib/libc.so.6+0xd43b8; nearest "
	                              "exported symbol)\n"
	                              "        #1 /opt/\\x1b[2Jp\\xff+0x1548 (no name: stripped: "
	                              "\\x1b)\n"
	                              "        #2 /opt/\\x1b[2Jp\\xff+0x1600\n"
	                              "      user stack ends at /opt/p+0x1548: x\n");
	if (!us)
		print_error("%s", text);
	assert_true(us && us > ks);
	errbuf_close(&e);
	us_free(&u);
}

/* Frames reached through a frame pointer found by a stack scan: "fp_recovered": true on
 * each in JSON (absent on the others), and one line before the first of them in text. */
static void test_report_ustack_fp_recovered(void **state)
{
	(void)state;
	struct unit_scan u;
	us_init(&u);
	size_t k = us_task(&u, 78, 78, "app", 3, 30);
	struct cgw_task *t = &u.scan.t[k];
	t->uframes = calloc(4, sizeof(*t->uframes));
	assert_non_null(t->uframes);
	t->nuframes = 4;
	static const char *const sym[] = { "__vfork", "middle", "outer", "main" };
	for (size_t i = 0; i < 4; i++) {
		t->uframes[i] = (struct cgw_uframe){ .pc = 0x1000 + i, .offset = 0x100 + i,
		                                     .sym_off = i, .module = "/opt/p",
		                                     .symbol_from = "symtab", .sym_exact = true,
		                                     .fp_recovered = i >= 2 };
		snprintf(t->uframes[i].symbol, sizeof(t->uframes[i].symbol), "%s", sym[i]);
	}
	struct cgw_sig sig = unit_sig("vfork-wait", "vfork", "s", SEV_INFO);
	us_finding(&u, &sig, SEV_INFO, 1, &k);

	json_object *o = report_json_build(&u.rep, -1);
	json_object *us = json_object_object_get(json_object_array_get_idx(
		json_object_object_get(o, "tasks"), 0), "ustack");
	assert_int_equal(json_object_array_length(us), 4);
	for (size_t i = 0; i < 4; i++) {
		json_object *fr = json_object_array_get_idx(us, i), *v = NULL;
		bool has = json_object_object_get_ex(fr, "fp_recovered", &v);
		assert_int_equal(has, i >= 2);
		if (has)
			assert_true(json_object_is_type(v, json_type_boolean) &&
			            json_object_get_boolean(v));
	}
	json_object_put(o);

	struct errbuf e;
	report_text(&u.rep, errbuf_open(&e));
	const char *text = errbuf_text(&e);
	const char *want = "        #1 middle+0x1 (/opt/p+0x101)\n"
	                   "        (frame pointer recovered by stack scan: the frames from here on "
	                   "rest on it)\n"
	                   "        #2 outer+0x2 (/opt/p+0x102)\n"
	                   "        #3 main+0x3 (/opt/p+0x103)\n";
	if (!strstr(text, want))
		print_error("%s", text);
	assert_non_null(strstr(text, want));
	const char *first = strstr(text, "(frame pointer recovered");       /* said once */
	assert_true(first && first < strstr(text, want) + strlen(want));
	assert_null(strstr(first + 1, "(frame pointer recovered"));
	errbuf_close(&e);
	us_free(&u);
}

/* Names from a debug file of the task's own mount namespace: "symbol_from_task_mntns": true on
 * those frames in JSON (absent on the others), and said after the module in text and HTML. */
static void test_report_ustack_task_mntns(void **state)
{
	(void)state;
	struct unit_scan u;
	us_init(&u);
	size_t k = us_task(&u, 79, 79, "app", 3, 30);
	struct cgw_task *t = &u.scan.t[k];
	t->uframes = calloc(3, sizeof(*t->uframes));
	assert_non_null(t->uframes);
	t->nuframes = 3;
	t->uframes[0] = (struct cgw_uframe){ .pc = 0x1000, .offset = 0x100, .sym_off = 8,
	                                     .module = "/lib/libc.so.6", .symbol = "__vfork",
	                                     .symbol_from = "debug", .sym_exact = true };
	t->uframes[1] = (struct cgw_uframe){ .pc = 0x2001, .offset = 0x201, .sym_off = 1,
	                                     .module = "/opt/p", .symbol = "middle",
	                                     .symbol_from = "debug", .sym_exact = true,
	                                     .sym_task_mntns = true };
	t->uframes[2] = t->uframes[1];
	snprintf(t->uframes[2].symbol, sizeof(t->uframes[2].symbol), "main");
	t->uframes[2].sym_exact = false;
	struct cgw_sig sig = unit_sig("vfork-wait", "vfork", "s", SEV_INFO);
	us_finding(&u, &sig, SEV_INFO, 1, &k);

	json_object *o = report_json_build(&u.rep, -1);
	json_object *us = json_object_object_get(json_object_array_get_idx(
		json_object_object_get(o, "tasks"), 0), "ustack");
	assert_int_equal(json_object_array_length(us), 3);
	for (size_t i = 0; i < 3; i++) {
		json_object *fr = json_object_array_get_idx(us, i), *v = NULL;
		bool has = json_object_object_get_ex(fr, "symbol_from_task_mntns", &v);
		assert_int_equal(has, i >= 1);
		if (has)
			assert_true(json_object_is_type(v, json_type_boolean) &&
			            json_object_get_boolean(v));
	}
	json_object_put(o);

	struct errbuf e;
	report_text(&u.rep, errbuf_open(&e));
	const char *text = errbuf_text(&e);
	const char *want = "        #0 __vfork+0x8 (/lib/libc.so.6+0x100)\n"
	                   "        #1 middle+0x1 (/opt/p+0x201; symbols from the task's mount "
	                   "namespace)\n"
	                   "        #2 main+0x1 (/opt/p+0x201; size unknown; symbols from the task's "
	                   "mount namespace)\n";
	if (!strstr(text, want))
		print_error("%s", text);
	assert_non_null(strstr(text, want));
	errbuf_close(&e);

	char *html = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&html, &n);
	assert_non_null(f);
	report_html(&u.rep, f);
	fclose(f);
	assert_non_null(strstr(html, "__vfork+0x8 (/lib/libc.so.6+0x100)</li>"));
	assert_non_null(strstr(html, "middle+0x1 (/opt/p+0x201; symbols from the task's mount "
	                             "namespace)</li>"));
	free(html);
	us_free(&u);
}

/* Evidence is prose for the text report too: a frozen cgroup's name is C-escaped in it (a
 * cgroup name may hold ESC), and JSON carries the same line. */
static void test_evidence_cgroup_escaped(void **state)
{
	(void)state;
	struct unit_scan u;
	us_init(&u);
	size_t k = us_task(&u, 300, 300, "app", 3, 500.0);
	struct cgw_task *t = &u.scan.t[k];
	t->frozen = true;
	snprintf(t->cgroup, sizeof(t->cgroup), "/a.slice/\x1b[2J\xe6\x97\xa5");
	struct cgw_sig frozen = unit_sig("frozen", "In a frozen cgroup", "frozen", SEV_INFO);
	struct cgw_sigset set = { &frozen, 1 };
	assert_int_equal(classify(&u.rep, &set), 0);
	assert_int_equal(u.rep.nf, 1);
	const char *ev = u.rep.f[0].evidence.s;
	print_message("# %s\n", cescape(ev, strlen(ev), (char[1024]){ 0 }, 1024));
	assert_non_null(strstr(ev, "cgroup /a.slice/\\x1b[2J\\xe6\\x97\\xa5 of PID 300 is frozen"));
	assert_printable(ev);
	us_free(&u);
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
		cmocka_unit_test(test_utf8_escape_table),
		cmocka_unit_test(test_utf8_escape_arbitrary_bytes),
		cmocka_unit_test(test_utf8_escape_truncation),
		cmocka_unit_test(test_jstr_untrusted),
		cmocka_unit_test(test_escape_runs_same_as_bytewise),
		cmocka_unit_test(test_report_json_shared_ustack),
		cmocka_unit_test(test_report_json_real_strings),
		cmocka_unit_test(test_report_ustack_fp_recovered),
		cmocka_unit_test(test_report_ustack_task_mntns),
		cmocka_unit_test(test_report_ustack),
		cmocka_unit_test(test_evidence_cgroup_escaped),
		cmocka_unit_test(test_parse_seconds_ok),
		cmocka_unit_test(test_parse_seconds_errors),
		cmocka_unit_test(test_parse_seconds_decimal_only),
		cmocka_unit_test(test_sev_names),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
