/* incident-hazard.c: the hazards that hold, from one of the daemon's audits to the next: what
 * changed is said once (found, cleared), nothing while the set stays the same. Pure. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

static struct haz_tracked *tracked(const struct cgw_hazstate *st, const char *id)
{
	for (size_t i = 0; i < st->n; i++)
		if (strcmp(st->v[i].id, id) == 0)
			return &st->v[i];
	return NULL;
}

static bool in_items(const struct haz_items *it, const char *id)
{
	for (size_t i = 0; i < it->n; i++)
		if (strcmp(it->v[i].id, id) == 0)
			return true;
	return false;
}

static void tracked_clear(struct haz_tracked *t)
{
	free(t->id);
	free(t->title);
	free(t->signature);
	memset(t, 0, sizeof(*t));
}

/* Append an event with copies of its strings; false when out of memory. */
static bool event_add(struct haz_event **ev, size_t *n, enum haz_change what, const char *id,
                      const char *title, const char *sig, const char *evidence,
                      enum cgw_sev sev)
{
	struct haz_event *v = realloc(*ev, (*n + 1) * sizeof(**ev));
	if (!v)
		return false;
	*ev = v;
	struct haz_event *e = &v[*n];
	*e = (struct haz_event){ what, try_strdup(id), try_strdup(title), try_strdup(sig ? sig : ""),
	                         try_strdup(evidence ? evidence : ""), sev };
	(*n)++;
	return e->id && e->title && e->signature && e->evidence;
}

ssize_t hazstate_update(struct cgw_hazstate *st, const struct haz_items *now,
                        struct haz_event **ev)
{
	*ev = NULL;
	size_t nev = 0;
	/* the new state is built aside: on failure st is as it was */
	struct haz_tracked *nv = calloc(now->n + st->n + 1, sizeof(*nv));
	size_t nn = 0;
	if (!nv)
		return -ENOMEM;
	for (size_t i = 0; i < now->n; i++) {
		const struct haz_item *it = &now->v[i];
		const struct haz_tracked *old = tracked(st, it->id);
		if (it->verdict == HV_UNDECIDED && !old)
			continue;                     /* never decided: not tracked, no event */
		bool holds = it->verdict == HV_UNDECIDED ? old->holds : it->verdict == HV_HOLDS;
		bool was = old && old->holds;
		if (holds != was && !event_add(ev, &nev, holds ? HAZ_FOUND : HAZ_CLEARED, it->id,
		                               it->title, it->signature,
		                               holds ? it->evidence : "", it->severity))
			goto nomem;
		struct haz_tracked *t = &nv[nn++];
		*t = (struct haz_tracked){ try_strdup(it->id), try_strdup(it->title),
		                           try_strdup(it->signature ? it->signature : ""),
		                           it->severity, holds };
		if (!t->id || !t->title || !t->signature)
			goto nomem;
	}
	for (size_t i = 0; i < st->n; i++) {   /* held, and its rule is gone: cleared */
		const struct haz_tracked *o = &st->v[i];
		if (in_items(now, o->id))
			continue;
		if (now->partial) {              /* not read this time: kept as it was */
			struct haz_tracked *t = &nv[nn++];
			*t = (struct haz_tracked){ try_strdup(o->id), try_strdup(o->title),
			                           try_strdup(o->signature), o->severity, o->holds };
			if (!t->id || !t->title || !t->signature)
				goto nomem;
		} else if (o->holds && !event_add(ev, &nev, HAZ_CLEARED, o->id, o->title,
		                                  o->signature, "", o->severity)) {
			goto nomem;
		}
	}
	for (size_t i = 0; i < st->n; i++)
		tracked_clear(&st->v[i]);
	free(st->v);
	st->v = nv;
	st->n = nn;
	st->audits++;
	return (ssize_t)nev;
nomem:
	for (size_t i = 0; i < nn; i++)
		tracked_clear(&nv[i]);
	free(nv);
	haz_events_free(*ev, nev);
	*ev = NULL;
	return -ENOMEM;
}

void haz_events_free(struct haz_event *ev, size_t n)
{
	for (size_t i = 0; ev && i < n; i++) {
		free(ev[i].id);
		free(ev[i].title);
		free(ev[i].signature);
		free(ev[i].evidence);
	}
	free(ev);
}

void hazstate_free(struct cgw_hazstate *st)
{
	for (size_t i = 0; i < st->n; i++)
		tracked_clear(&st->v[i]);
	free(st->v);
	memset(st, 0, sizeof(*st));
}
