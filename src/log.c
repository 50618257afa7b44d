/* log.c: messages to stderr; parsers never log, their callers do, once. */
#include <stdarg.h>
#include <stdio.h>

#include "cgwatch.h"

int log_verbose;

void log_warnx(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("cgwatch: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

void log_debug(const char *fmt, ...)
{
	if (!log_verbose)
		return;
	va_list ap;
	va_start(ap, fmt);
	fputs("cgwatch: debug: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}
