/* detect-history.c: the daemon's memory of the D and R tasks of its last scan, keyed by (tid, start
 * time), so that a duration the kernel no longer shows is still known (detect-duration.c). Only D
 * and R tasks are kept: a few on a healthy host, bounded by the thread count on any host. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

struct cgw_history {
	struct cgw_seen *old; size_t nold, capold;    /* the last scan's, sorted by key */
	struct cgw_seen *cur; size_t ncur, capcur;    /* this scan's */
};

struct cgw_history *history_new(void)
{
	return xcalloc(1, sizeof(struct cgw_history));
}

void history_free(struct cgw_history *h)
{
	if (!h)
		return;
	free(h->old);
	free(h->cur);
	free(h);
}

static int cmp_key(const void *a, const void *b)
{
	const struct cgw_seen *x = a, *y = b;
	if (x->tid != y->tid)
		return x->tid < y->tid ? -1 : 1;
	return x->start_ticks < y->start_ticks ? -1 : x->start_ticks > y->start_ticks;
}

void history_begin(struct cgw_history *h)
{
	h->ncur = 0;
}

const struct cgw_seen *history_find(const struct cgw_history *h, int tid,
                                    unsigned long long start_ticks)
{
	struct cgw_seen key = { .tid = tid, .start_ticks = start_ticks };
	return h->nold ? bsearch(&key, h->old, h->nold, sizeof(key), cmp_key) : NULL;
}

int history_add(struct cgw_history *h, const struct cgw_seen *w)
{
	if (grow((void **)&h->cur, &h->capcur, h->ncur, 64, sizeof(*h->cur)) < 0)
		return -ENOMEM;
	h->cur[h->ncur++] = *w;
	return 0;
}

void history_commit(struct cgw_history *h)
{
	if (h->ncur > 1)                  /* no D or R task yet: cur is NULL, and qsort(NULL, 0)
	                                     is undefined (UBSan) */
		qsort(h->cur, h->ncur, sizeof(*h->cur), cmp_key);
	swap_arrays((void **)&h->old, &h->capold, (void **)&h->cur, &h->capcur);
	h->nold = h->ncur;
	h->ncur = 0;
}
