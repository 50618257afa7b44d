/* diagnose-lock.c: the owner of the lock a blocked task waits on, as the scan's task iterator
 * read it from the kernel (task->blocker, CONFIG_DETECT_HUNG_TASK_BLOCKER: a mutex, a
 * semaphore's last holder, an rw-semaphore's writer or last reader; source-bpf.c). Each such
 * task's finding gets a line naming the lock's kind and its owner, and where the owner is:
 * blocked itself (with the frame it waits in, and its finding), or not stuck in this scan.
 * A finding without a correlator's chain gets the wait chain: the waiter, its lock's owner,
 * that one's owner, ... as far as the owners are tasks of this scan. Where the kernel's own
 * hung-task report of the waiter has a blocker line ("blocked on a mutex likely owned by
 * task b:11", kmsg.h), the line says whether it agrees; diagnose-kmsg.c then leaves it out. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"
#include "kmsg.h"

#define MAX_HOPS 16

static const char *const kinds[] = { "", "a mutex", "a semaphore", "an rw-semaphore (to read)",
                                     "an rw-semaphore (to write)" };

const char *lock_kind_name(int kind)
{
	return kind >= 1 && kind <= 4 ? kinds[kind] : "a lock";
}

/* The index in s->t of the task tid, or -1. */
static ssize_t task_index(const struct cgw_scan *s, int tid)
{
	for (size_t i = 0; tid > 0 && i < s->n; i++)
		if (s->t[i].tid == tid)
			return (ssize_t)i;
	return -1;
}

/* Does the kernel's lock class (mutex, semaphore, rw-semaphore) match a TASKREC_LOCK_* kind? */
static bool same_class(enum kmsg_lock l, int kind)
{
	return l == KMSG_LOCK_MUTEX ? kind == 1 : l == KMSG_LOCK_SEM ? kind == 2 :
	       l == KMSG_LOCK_RWSEM && (kind == 3 || kind == 4);
}

bool lock_kmsg_confirms(const struct cgw_task *t)
{
	return t->lock_kind && t->owner_tid;
}

/* What the kernel's hung-task report of t (when it has a blocker line) says of the owner the
 * iterator read: "; the kernel's hung-task report agrees (...)", names another, found none;
 * with no owner from the iterator, that the report names one (its lines follow). */
static void kmsg_word(const struct cgw_kmsg *k, const struct cgw_task *t, char *buf, size_t cap)
{
	buf[0] = '\0';
	const struct kmsg_hung *h = k ? kmsg_hung_for(k, t) : NULL;
	if (!h || !h->have_blocker)
		return;
	const struct kmsg_blocker *b = &h->blocker;
	unsigned long long seq = (unsigned long long)h->blocker_seq;
	if (!t->owner_tid) {                  /* the kernel's line is the source: kept below */
		if (b->owner_found)
			snprintf(buf, cap, "; the kernel's hung-task report names one (%s seq %llu, "
			         "below)", k->source, seq);
		return;
	}
	if (!b->owner_found) {
		snprintf(buf, cap, "; the kernel's hung-task report did not find the %s (%s seq %llu)",
		         b->lock == KMSG_LOCK_SEM ? "last holder" : "owner", k->source, seq);
		return;
	}
	if (same_class(b->lock, t->lock_kind) && b->owner.pid == t->owner_tid &&
	    kmsg_comm_match(b->owner.comm, t->owner_comm, strlen(t->owner_comm))) {
		snprintf(buf, cap, "; the kernel's hung-task report agrees (%s seq %llu)", k->source,
		         seq);
		return;
	}
	char oc[KMSG_COMM * 4];
	cescape(b->owner.comm, strlen(b->owner.comm), oc, sizeof(oc));
	snprintf(buf, cap, "; the kernel's hung-task report names another %s (%s seq %llu: task "
	         "%s:%d%s%s%s%s)", b->lock == KMSG_LOCK_SEM ? "last holder" : "owner", k->source,
	         seq, oc, b->owner.pid, b->owner_as[0] ? " <" : "", b->owner_as,
	         b->owner_as[0] ? ">" : "", same_class(b->lock, t->lock_kind) ? "" :
	         b->lock == KMSG_LOCK_MUTEX ? ", of a mutex" : b->lock == KMSG_LOCK_SEM ?
	         ", of a semaphore" : ", of an rw-semaphore");
}

int lock_link(struct cgw_report *r)
{
	const struct cgw_scan *s = r->scan;
	if (!s)
		return 0;
	for (size_t fi = 0; fi < r->nf; fi++) {
		struct cgw_finding *f = &r->f[fi];
		size_t hops[MAX_HOPS], nh = 0;
		for (size_t j = 0; j < f->ntasks; j++) {
			const struct cgw_task *t = &s->t[f->tasks[j]];
			if (!t->lock_kind)
				continue;
			char wn[CGW_COMM_MAX * 4 + 32], on[64];
			task_name(t, wn, sizeof(wn));
			char kw[KMSG_COMM * 4 + 1024];
			kmsg_word(r->kmsg, t, kw, sizeof(kw));
			if (!t->owner_tid) {
				sb_printf(&f->evidence, "%s is blocked on %s%s%s whose %s the kernel does "
				          "not record%s\n", wn, t->lock_name[0] ? t->lock_name : "",
				          t->lock_name[0] ? ", " : "", lock_kind_name(t->lock_kind),
				          t->lock_kind == 2 ? "last holder" : "owner", kw);
				continue;
			}
			char oc[sizeof(t->owner_comm) * 4];
			snprintf(on, sizeof(on), "PID %d (%s)", t->owner_tid,
			         cescape(t->owner_comm, strlen(t->owner_comm), oc, sizeof(oc)));
			ssize_t oi = task_index(s, t->owner_tid);
			char where[1400];
			if (oi >= 0) {
				const struct cgw_task *o = &s->t[oi];
				char d[48];
				ssize_t of = report_finding_of(r, (size_t)oi);
				int w = snprintf(where, sizeof(where), "itself %s for %s%s%s",
				                 o->state == 'D' ? "blocked (D)" : "waiting to run (R)",
				                 dur_text(task_dur(o), d, sizeof(d)),
				                 o->nframes ? " in " : "", o->nframes ? o->frames[0].name : "");
				if (of >= 0 && w > 0 && (size_t)w < sizeof(where))
					snprintf(where + w, sizeof(where) - (size_t)w, " (finding %s%s%s)",
					         r->f[of].sig->id, r->f[of].cause[0] ? ", " : "",
					         r->f[of].cause);
			} else {
				snprintf(where, sizeof(where), "not blocked past the threshold in this scan");
			}
			sb_printf(&f->evidence, "%s is blocked on %s%s%s %s %s, %s%s\n", wn,
			          t->lock_name[0] ? t->lock_name : "", t->lock_name[0] ? ", " : "",
			          lock_kind_name(t->lock_kind),
			          t->lock_kind == 2 ? "last held by" :
			          t->owner_likely ? "held for reading, its last reader" : "held by",
			          on, where, kw);
			if (nh || f->nchain > 1 || oi < 0)
				continue;
			/* the chain from this waiter, owner to owner, while they are this scan's */
			hops[nh++] = f->tasks[j];
			for (ssize_t k = oi; k >= 0 && nh < MAX_HOPS; k = task_index(s, s->t[k].owner_tid)) {
				bool seen = false;
				for (size_t h = 0; h < nh && !seen; h++)
					seen = hops[h] == (size_t)k;
				if (seen)
					break;            /* a cycle: a deadlock, each waiting on the next */
				hops[nh++] = (size_t)k;
				if (!s->t[k].lock_kind)
					break;
			}
		}
		if (nh > 1) {
			size_t *c = try_reallocarray(NULL, nh, sizeof(*c));
			if (!c)
				return -1;
			memcpy(c, hops, nh * sizeof(*c));
			free(f->chain);
			f->chain = c;
			f->nchain = nh;
		}
	}
	return 0;
}
