/* ini.c: inih with line numbers. Debian's libinih is built without INI_HANDLER_LINENO, so
 * the reader counts lines itself, and checks the syntax inih would silently skip. */
#include <ctype.h>
#include <errno.h>
#include <ini.h>
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
			fprintf(c->err, "%s:%d: malformed section header\n", c->path, c->line);
			c->errors++;
		}
		return;
	}
	const char *eq = strpbrk(p, "=:");
	if (!eq || eq == p) {
		fprintf(c->err, "%s:%d: expected \"key = value\"\n", c->path, c->line);
		c->errors++;
	}
}

static char *ini_reader_fn(char *str, int num, void *stream)
{
	struct ini_ctx *c = stream;
	if (!fgets(str, num, c->f))
		return NULL;
	c->line++;
	c->cont = false;
	size_t n = strlen(str);
	if (n == (size_t)num - 1 && str[n - 1] != '\n' && !feof(c->f)) {
		fprintf(c->err, "%s:%d: line longer than %d bytes\n", c->path, c->line, num - 2);
		c->errors++;
		int ch;
		while ((ch = fgetc(c->f)) != EOF && ch != '\n')
			;
		str[0] = '\0';                 /* hand inih an empty line */
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
	FILE *f = fopen(path, "re");
	if (!f)
		return -errno;
	struct stat st;
	if (fstat(fileno(f), &st) == 0 && S_ISDIR(st.st_mode)) {
		fclose(f);
		return -EISDIR;
	}
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
