/* kmsg-int.h: what the kmsg files (parse-kmsg*.c, source-kmsg.c, diagnose-kmsg.c) share and
 * nobody else needs. */
#ifndef CGW_KMSG_INT_H
#define CGW_KMSG_INT_H

#include <ctype.h>
#include <limits.h>
#include <stdbool.h>
#include <string.h>

#define KMSG_READ_CHUNK 16384     /* > CONSOLE_EXT_LOG_MAX (8192): a record always fits */
#define KMSG_MAX_EPIPE 4096       /* overwritten-while-reading events before giving up */
#define KMSG_STRAY_LINES 200      /* unrelated lines a soft lockup / RCU report may hold */

enum {
	KS_IDLE = 0,
	KS_HUNG,                  /* after "INFO: task ... blocked for more than" */
	KS_HUNG_TRACE,            /* its Call Trace */
	KS_OWNER,                 /* the owner's dump after a blocker line */
	KS_OWNER_TRACE,
	KS_WQ,                    /* a workqueue lockup dump */
	KS_WQ_HOGS,               /* "Showing backtraces of running workers ..." */
	KS_SOFT,                  /* after a soft lockup line: registers, trace */
	KS_RCU,                   /* after an RCU stall line */
};

static inline bool starts(const char *s, const char *prefix)
{
	return strncmp(s, prefix, strlen(prefix)) == 0;
}

static inline const char *skip_ws(const char *p)
{
	while (*p == ' ' || *p == '\t')
		p++;
	return p;
}

static inline void copy_text(char *dst, size_t cap, const char *src, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, src, n);
	dst[n] = '\0';
}

/* A decimal at p (no sign, no spaces); *end after it. Returns -1 when there is none. */
static inline long read_num(const char *p, const char **end)
{
	long v = 0;
	const char *q = p;
	while (isdigit((unsigned char)*q)) {
		if (v > (LONG_MAX - 9) / 10)
			return -1;
		v = v * 10 + (*q - '0');
		q++;
	}
	if (end)
		*end = q;
	return q == p ? -1 : v;
}

struct cgw_kmsg;
struct cgw_task;
/* Is a report stamped ts_s seconds after boot, saying "blocked for more than blocked_s",
 * about the task's current wait (and not an earlier one, or a reused pid)? */
bool kmsg_same_episode(const struct cgw_kmsg *k, const struct cgw_task *t, double ts_s,
                       long blocked_s);

#endif
