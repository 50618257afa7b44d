/* ini.c: inih with line numbers. Debian's libinih is built without INI_HANDLER_LINENO, so
 * the reader counts lines itself, and checks the syntax inih would silently skip. */
#include <ctype.h>
#include <errno.h>
#include <ini.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

#include "cgwatch.h"

struct ini_ctx {
	FILE *f, *err;
	const char *path;
	int line, errors;
	bool cont;                     /* the current line continues the previous key */
	ini_line_handler h;
	void *user;
};

static void ini_syntax(struct ini_ctx *c, const char *line)
{
	const char *p = line;
	while (*p == ' ' || *p == '\t')
		p++;
	if (*p == '\0' || *p == '\n' || *p == '\r' || *p == '#' || *p == ';')
		return;
	if (p != line) {
		c->cont = true;                /* a continuation line */
		return;
	}
	if (*p == '[') {
		const char *rb = strchr(p, ']');
		if (!rb || rb == p + 1) {
			errorf(c->err, "%s:%d: malformed section header", cesc(c->path), c->line);
			c->errors++;
		}
		return;
	}
	const char *eq = strpbrk(p, "=:");
	if (!eq || eq == p) {
		errorf(c->err, "%s:%d: expected \"key = value\"", cesc(c->path), c->line);
		c->errors++;
	}
}

/* A line is UTF-8 text and tabs: a control character (C0 but tab and the line's end, DEL,
 * C1) or a byte that is not UTF-8 is an error, naming the first. Returns true when clean. */
static bool ini_text(struct ini_ctx *c, const char *s, size_t n)
{
	if (n && s[n - 1] == '\n')
		n--;
	if (n && s[n - 1] == '\r')
		n--;
	size_t i = text_bad(s, n);
	if (i == n)
		return true;
	const unsigned char *u = (const unsigned char *)s + i;
	bool c1 = u[0] == 0xc2 && i + 1 < n && u[1] < 0xa0;
	char what[16];
	if (c1)
		snprintf(what, sizeof(what), "\\xc2\\x%02x", u[1]);
	else
		snprintf(what, sizeof(what), "\\x%02x", u[0]);
	if (u[0] < 0x80 || c1)
		errorf(c->err, "%s:%d: control character %s: a line holds text and tabs only",
		       cesc(c->path), c->line, what);
	else
		errorf(c->err, "%s:%d: byte %s is not UTF-8 text", cesc(c->path), c->line, what);
	c->errors++;
	return false;
}

static char *ini_reader_fn(char *str, int num, void *stream)
{
	struct ini_ctx *c = stream;
	size_t n = 0, max = (size_t)num - 1;
	int ch = EOF;
	while (n < max && (ch = getc(c->f)) != EOF) {
		str[n++] = (char)ch;
		if (ch == '\n')
			break;
	}
	if (n == 0)
		return NULL;
	str[n] = '\0';
	c->line++;
	c->cont = false;
	if (n == max && str[n - 1] != '\n' && (ch = getc(c->f)) != EOF) {
		errorf(c->err, "%s:%d: line longer than %d bytes", cesc(c->path), c->line, num - 2);
		c->errors++;
		while (ch != EOF && ch != '\n')
			ch = getc(c->f);
		str[0] = '\0';                 /* hand inih an empty line */
		return str;
	}
	if (c->line == 1 && n >= 3 && memcmp(str, "\xef\xbb\xbf", 3) == 0) {
		memmove(str, str + 3, n - 2);  /* a UTF-8 byte order mark (Windows editors) */
		n -= 3;
	}
	if (!ini_text(c, str, n)) {
		str[0] = '\0';
		return str;
	}
	ini_syntax(c, str);
	return str;
}

static int ini_handler_fn(void *user, const char *section, const char *name, const char *value)
{
	struct ini_ctx *c = user;
	if (!name)
		return 1;                      /* section start (INI_CALL_HANDLER_ON_NEW_SECTION) */
	if (!c->h(c->user, section, name, value, c->line, c->cont))
		c->errors++;
	return 1;
}

/* Parse the open stream f, named name in messages; closes f. */
static int ini_load_stream(FILE *f, const char *name, ini_line_handler h, void *user, FILE *err)
{
	struct ini_ctx c = { .f = f, .err = err, .path = name, .h = h, .user = user };
	ini_parse_stream(ini_reader_fn, &c, ini_handler_fn, &c);
	fclose(f);
	return c.errors;
}

int ini_load(const char *path, ini_line_handler h, void *user, FILE *err)
{
	int e;
	FILE *f = fopen_regular(path, &e);    /* a FIFO or a device: an error, never a wait */
	if (!f)
		return -e;
	return ini_load_stream(f, path, h, user, err);
}

int ini_load_text(const char *name, const char *text, size_t len, ini_line_handler h,
                  void *user, FILE *err)
{
	FILE *f = fmemopen((void *)text, len, "r");
	if (!f)
		return -errno;
	return ini_load_stream(f, name, h, user, err);
}

void ini_text_append(char **field, const char *more)
{
	size_t a = strlen(*field), b = strlen(more);
	*field = xrealloc(*field, a + b + 2);
	if (a)
		(*field)[a++] = ' ';
	memcpy(*field + a, more, b + 1);
}

char **ini_text_set(const char *key, const char *value, const char *const *names,
                    char **const *fields)
{
	for (size_t i = 0; names[i]; i++)
		if (strcmp(key, names[i]) == 0) {
			free(*fields[i]);
			*fields[i] = xstrdup(value);
			return fields[i];
		}
	return NULL;
}

void ini_strv_push(char ***v, size_t *n, const char *s)
{
	*v = xrealloc(*v, (*n + 1) * sizeof(**v));
	(*v)[(*n)++] = xstrdup(s);
}

void ini_strv_free(char **v, size_t n)
{
	for (size_t i = 0; i < n; i++)
		free(v[i]);
	free(v);
}

bool ini_id_ok(const char *value, const char *path, int line, FILE *err)
{
	if (!isalpha((unsigned char)value[0])) {
		errorf(err, "%s:%d: bad id \"%s\": it must start with a letter", cesc(path), line,
		       cesc(value));
		return false;
	}
	if (strlen(value) > 64) {
		errorf(err, "%s:%d: id \"%.20s...\" is longer than 64 characters", cesc(path), line,
		       cesc(value));
		return false;
	}
	for (const char *p = value; *p; p++)
		if (!(isalnum((unsigned char)*p) || *p == '-' || *p == '_')) {
			errorf(err, "%s:%d: bad id \"%s\": use letters, digits and '-'", cesc(path),
			       line, cesc(value));
			return false;
		}
	return true;
}
