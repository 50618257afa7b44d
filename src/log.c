/* log.c: messages to stderr; parsers never log, their callers do, once. Every message is
 * escaped here, at the boundary: a file name, a config value or a kernel command line holding
 * an escape sequence reaches the terminal or the journal as text. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

int log_verbose;

/* prefix, the message escaped, a newline: one write. */
static void vline(FILE *out, const char *prefix, const char *fmt, va_list ap)
{
	char *msg = NULL;
	int n = vasprintf(&msg, fmt, ap);
	struct strbuf b = { 0 };
	sb_add(&b, prefix, strlen(prefix));
	if (n >= 0)
		sb_add_term(&b, msg, (size_t)n, false);
	sb_add(&b, "\n", 1);
	fwrite(b.s, 1, b.len, out);
	sb_free(&b);
	free(msg);
}

void log_warnx(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vline(stderr, "cgwatch: ", fmt, ap);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	if (!log_verbose)
		return;
	va_list ap;
	va_start(ap, fmt);
	vline(stderr, "cgwatch: debug: ", fmt, ap);
	va_end(ap);
}

void errorf(FILE *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vline(err, "", fmt, ap);
	va_end(ap);
}
