/* json.c: the JSON values every JSON writer shares: strings from tasks and the host, numbers
 * rounded for people, and pretty printing. */
#include <errno.h>
#include <json-c/json.h>
#include <json-c/printbuf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

/* Is s[i] written as it is (neither one of JSON's escapes nor a control character)? */
static bool jplain(const unsigned char *s, size_t i, size_t n, int flags)
{
	unsigned c = s[i];
	if (c < 0x20 || c == '"' || c == '\\' || c == 0x7f)
		return false;
	if (c == '/')
		return flags & JSON_C_TO_STRING_NOSLASHESCAPE;
	return !(c == 0xc2 && i + 1 < n && s[i + 1] >= 0x80 && s[i + 1] <= 0x9f);
}

/* A string as JSON, like json-c's own writer, but json-c writes DEL and the C1 controls
 * U+0080..U+009F raw, and a terminal may act on C1 (xterm takes U+009B as CSI): these are
 * escaped as \u00NN too, so printed JSON holds no raw control character. */
static int jstr_serialize(json_object *o, struct printbuf *pb, int level, int flags)
{
	static const char from[] = "\"\\/\b\f\n\r\t", to[] = "\"\\/bfnrt";
	const unsigned char *s = (const unsigned char *)json_object_get_string(o);
	size_t n = (size_t)json_object_get_string_len(o);
	(void)level;
	printbuf_strappend(pb, "\"");
	for (size_t i = 0; i < n; i++) {
		size_t j = i;                  /* a run written as it is: appended at once */
		while (j < n && jplain(s, j, n, flags))
			j++;
		if (j > i) {
			printbuf_memappend(pb, (const char *)s + i, (int)(j - i));
			i = j - 1;
			continue;
		}
		unsigned c = s[i];
		bool c1 = c == 0xc2 && i + 1 < n && s[i + 1] >= 0x80 && s[i + 1] <= 0x9f;
		const char *f = c ? strchr(from, (int)c) : NULL;
		char e[8];
		if (c1)
			c = s[++i];             /* U+0080..U+009F is C2 80..C2 9F */
		if (f && (c != '/' || !(flags & JSON_C_TO_STRING_NOSLASHESCAPE))) {
			e[0] = '\\';
			e[1] = to[f - from];
			printbuf_memappend(pb, e, 2);
		} else if (c < 0x20 || c == 0x7f || c1) {
			snprintf(e, sizeof(e), "\\u%04x", c);
			printbuf_memappend(pb, e, 6);
		} else {
			printbuf_memappend(pb, (const char *)s + i, 1);
		}
	}
	printbuf_strappend(pb, "\"");
	return 0;
}

/* The text of a shared array, kept for the level and flags it was made for. */
struct jshared { int level, flags; char *text; size_t len; };

static void jshared_free(json_object *o, void *ud)
{
	struct jshared *c = ud;
	(void)o;
	if (c)
		free(c->text);
	free(c);
}

/* json-c's own text of o at level 0 (a twin array of the same elements, which keep their own
 * writers), indented for level: in json-c's pretty text every newline is followed by the
 * indentation of the level it leads to, so one more unit per level after each is the text at
 * that level. */
static int jshared_serialize(json_object *o, struct printbuf *pb, int level, int flags)
{
	struct jshared *c = json_object_get_userdata(o);
	if (!c->text || c->level != level || c->flags != flags) {
		size_t n = json_object_array_length(o), len0, nl = 0;
		json_object *twin = json_object_new_array_ext((int)n);
		if (!twin)
			return -1;
		for (size_t i = 0; i < n; i++)
			json_object_array_add(twin, json_object_get(json_object_array_get_idx(o, i)));
		const char *t0 = json_object_to_json_string_length(twin, flags, &len0);
		size_t unit = !(flags & JSON_C_TO_STRING_PRETTY) ? 0 :
		              (flags & JSON_C_TO_STRING_PRETTY_TAB) ? (size_t)level : 2 * (size_t)level;
		char fill = flags & JSON_C_TO_STRING_PRETTY_TAB ? '\t' : ' ';
		for (size_t i = 0; t0 && i < len0; i++)
			nl += t0[i] == '\n';
		char *text = t0 ? malloc(len0 + nl * unit + 1) : NULL;
		if (!text) {
			json_object_put(twin);
			return -1;
		}
		size_t k = 0;
		for (size_t i = 0; i < len0; i++) {
			text[k++] = t0[i];
			if (t0[i] == '\n') {
				memset(text + k, fill, unit);
				k += unit;
			}
		}
		json_object_put(twin);
		free(c->text);
		*c = (struct jshared){ level, flags, text, k };
	}
	return printbuf_memappend(pb, c->text, (int)c->len) < 0 ? -1 : 0;
}

json_object *jshared(json_object *arr)
{
	struct jshared *c = calloc(1, sizeof(*c));
	if (c && json_object_is_type(arr, json_type_array))
		json_object_set_serializer(arr, jshared_serialize, c, jshared_free);
	else
		free(c);
	return arr;
}

json_object *jstr_untrusted(const char *s, size_t n)
{
	char buf[4096];
	json_object *o = json_object_new_string(utf8_escape(s, n, buf, sizeof(buf)));
	json_object_set_serializer(o, jstr_serialize, NULL, NULL);
	return o;
}

json_object *jround(double v, int decimals)
{
	char buf[48];
	snprintf(buf, sizeof(buf), "%.*f", decimals, v);
	return json_object_new_double_s(v, buf);
}

json_object *jseconds(double s)
{
	return jround(s, 1);
}

int json_write(json_object *o, FILE *out)
{
	size_t len;
	const char *txt = json_object_to_json_string_length(o, JSON_C_TO_STRING_PRETTY |
	                                                       JSON_C_TO_STRING_NOSLASHESCAPE, &len);
	if (!txt)
		return -ENOMEM;
	/* in one write, not through the stream's buffer: a report of 2,000 threads is 7 MB */
	fwrite(txt, 1, len, out);
	fputc('\n', out);
	return ferror(out) ? -EIO : 0;
}

json_object *jstr(const char *s)
{
	return jstr_untrusted(s ? s : "", s ? strlen(s) : 0);
}
