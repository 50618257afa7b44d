/* sink-kmsg.c: what the kernel said (struct cgw_kmsg) as the report's JSON "kmsg" object. */
#include <json-c/json.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"
#include "kmsg.h"

static struct json_object *jpids(const int *v, size_t n)
{
	struct json_object *a = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_int(v[i]));
	return a;
}

static struct json_object *event_head(const char *kind, uint64_t seq, double ts)
{
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "kind", json_object_new_string(kind));
	json_object_object_add(o, "seq", json_object_new_int64((int64_t)seq));
	json_object_object_add(o, "time_s", jround(ts, 6));
	return o;
}

static struct json_object *hung_json(const struct kmsg_hung *h)
{
	struct json_object *o = event_head("hung-task", h->seq, h->ts_s);
	json_object_object_add(o, "comm", jstr(h->task.comm));
	json_object_object_add(o, "pid", json_object_new_int(h->task.pid));
	json_object_object_add(o, "blocked_s", h->blocked_s >= 0 ?
	                       json_object_new_int64(h->blocked_s) : NULL);
	if (h->state) {
		char st[2] = { h->state, 0 };
		json_object_object_add(o, "state", json_object_new_string(st));
	}
	if (h->workqueue[0]) {
		json_object_object_add(o, "workqueue", jstr(h->workqueue));
		json_object_object_add(o, "work", jstr(h->work_fn));
	}
	struct json_object *st = json_object_new_array();
	for (size_t i = 0; i < h->nframes; i++)
		json_object_array_add(st, jstr(h->frames[i].text));
	json_object_object_add(o, "stack", st);
	if (h->have_blocker) {
		const struct kmsg_blocker *b = &h->blocker;
		struct json_object *bo = json_object_new_object();
		json_object_object_add(bo, "seq", json_object_new_int64((int64_t)h->blocker_seq));
		json_object_object_add(bo, "lock", json_object_new_string(kmsg_lock_name(b->lock)));
		if (b->task_as[0])
			json_object_object_add(bo, "as", json_object_new_string(b->task_as));
		if (b->owner_found) {
			json_object_object_add(bo, "owner_comm", jstr(b->owner.comm));
			json_object_object_add(bo, "owner_pid", json_object_new_int(b->owner.pid));
			if (b->owner_as[0])
				json_object_object_add(bo, "owner_as", json_object_new_string(b->owner_as));
			if (h->owner_state) {
				char os[2] = { h->owner_state, 0 };
				json_object_object_add(bo, "owner_state", json_object_new_string(os));
			}
		} else {
			json_object_object_add(bo, "owner_pid", NULL);
		}
		json_object_object_add(o, "blocker", bo);
	}
	return o;
}

static struct json_object *wq_json(const struct kmsg_wq_dump *d)
{
	struct json_object *o = event_head(d->lockups ? "workqueue-lockup" : "workqueue-dump",
	                                   d->seq, d->ts_s);
	struct json_object *st = json_object_new_array(), *busy = json_object_new_array(),
	                   *pools = json_object_new_array();
	for (size_t i = 0; i < d->nstuck; i++) {
		struct json_object *p = json_object_new_object();
		json_object_object_add(p, "cpus", jstr(d->stuck[i].info.cpus));
		json_object_object_add(p, "node", json_object_new_int(d->stuck[i].info.node));
		json_object_object_add(p, "nice", json_object_new_int(d->stuck[i].info.nice));
		json_object_object_add(p, "stuck_s", json_object_new_int64(d->stuck[i].stuck_s));
		json_object_array_add(st, p);
	}
	for (size_t i = 0; i < d->npwq; i++) {
		const struct kmsg_pwq *pw = &d->pwq[i];
		struct json_object *p = json_object_new_object();
		json_object_object_add(p, "workqueue", jstr(pw->wq));
		json_object_object_add(p, "pool", json_object_new_int(pw->pool));
		json_object_object_add(p, "cpus", jstr(pw->info.cpus));
		json_object_object_add(p, "in_flight", jstr(pw->in_flight));
		json_object_object_add(p, "pending", jstr(pw->pending));
		json_object_object_add(p, "workers", jpids(pw->workers, pw->nworkers));
		json_object_object_add(p, "barriers", jpids(pw->bars, pw->nbars));
		json_object_array_add(busy, p);
	}
	for (size_t i = 0; i < d->npools; i++) {
		struct json_object *p = json_object_new_object();
		json_object_object_add(p, "pool", json_object_new_int(d->pools[i].id));
		json_object_object_add(p, "cpus", jstr(d->pools[i].info.cpus));
		json_object_object_add(p, "hung_s", json_object_new_int64((int64_t)d->pools[i].hung_s));
		json_object_object_add(p, "workers", json_object_new_int(d->pools[i].workers));
		json_object_array_add(pools, p);
	}
	json_object_object_add(o, "stuck", st);
	json_object_object_add(o, "busy", busy);
	json_object_object_add(o, "pools", pools);
	return o;
}

static struct json_object *soft_json(const struct kmsg_soft *s)
{
	struct json_object *o = event_head("soft-lockup", s->seq, s->ts_s);
	json_object_object_add(o, "cpu", json_object_new_int(s->cpu));
	json_object_object_add(o, "stuck_s", json_object_new_int64(s->stuck_s));
	json_object_object_add(o, "comm", jstr(s->task.comm));
	json_object_object_add(o, "pid", json_object_new_int(s->task.pid));
	if (s->rip[0])
		json_object_object_add(o, "rip", jstr(s->rip));
	return o;
}

static struct json_object *rcu_json(const struct kmsg_rcu *c)
{
	static const char *const kinds[] = { "stall", "self-detected", "expedited",
	                                     "kthread-starved" };
	struct json_object *o = event_head("rcu-stall", c->seq, c->ts_s);
	json_object_object_add(o, "flavor", jstr(c->flavor));
	json_object_object_add(o, "type", json_object_new_string(kinds[c->kind]));
	char list[4096] = "";
	if (c->cpus)
		cpulist_format(c->cpus, list, sizeof(list));
	json_object_object_add(o, "cpus", json_object_new_string(list));
	if (c->starved_jiffies >= 0)
		json_object_object_add(o, "starved_jiffies", json_object_new_int64(c->starved_jiffies));
	return o;
}

struct seq_obj { uint64_t seq; struct json_object *o; };

static int cmp_seq(const void *a, const void *b)
{
	uint64_t x = ((const struct seq_obj *)a)->seq, y = ((const struct seq_obj *)b)->seq;
	return x < y ? -1 : x > y;
}

struct json_object *kmsg_json(const struct cgw_kmsg *k)
{
	struct json_object *o = json_object_new_object();
	json_object_object_add(o, "source", jstr(k->source));
	if (k->error)
		json_object_object_add(o, "error", json_object_new_string(strerror(-k->error)));
	json_object_object_add(o, "records", json_object_new_int64((int64_t)k->records));
	json_object_object_add(o, "kernel_records", json_object_new_int64((int64_t)k->kernel_records));
	json_object_object_add(o, "not_kernel", json_object_new_int64((int64_t)k->other_records));
	json_object_object_add(o, "lost", json_object_new_int64((int64_t)k->lost));
	if (k->unparsed)                  /* lines that were no record, or held numbers out of range */
		json_object_object_add(o, "unparsed", json_object_new_int64((int64_t)k->unparsed));
	if (k->truncated)
		json_object_object_add(o, "truncated", json_object_new_boolean(true));
	json_object_object_add(o, "hung_task_reports", json_object_new_int64((int64_t)k->hung_total));
	json_object_object_add(o, "blocker_lines", json_object_new_int64((int64_t)k->blockers_total));
	json_object_object_add(o, "workqueue_lockups",
	                       json_object_new_int64((int64_t)k->wq_lockups_total));
	json_object_object_add(o, "soft_lockups", json_object_new_int64((int64_t)k->soft_total));
	json_object_object_add(o, "rcu_stalls", json_object_new_int64((int64_t)k->rcu_total));
	json_object_object_add(o, "suppressed", json_object_new_boolean(kmsg_suppressed(k)));
	json_object_object_add(o, "detect_count", k->detect_count >= 0 ?
	                       json_object_new_int64(k->detect_count) : NULL);
	json_object_object_add(o, "hung_task_warnings", k->warnings >= -1 ?
	                       json_object_new_int64(k->warnings) : NULL);

	size_t n = k->nhung + k->nwq + k->nsoft + k->nrcu, m = 0;
	struct seq_obj *v = xcalloc(n + 1, sizeof(*v));   /* at most 208 (the KMSG_MAX_* rings) */
	for (size_t i = 0; i < k->nhung; i++)
		v[m++] = (struct seq_obj){ k->hung[i].seq, hung_json(&k->hung[i]) };
	for (size_t i = 0; i < k->nwq; i++)
		v[m++] = (struct seq_obj){ k->wq[i].seq, wq_json(&k->wq[i]) };
	for (size_t i = 0; i < k->nsoft; i++)
		v[m++] = (struct seq_obj){ k->soft[i].seq, soft_json(&k->soft[i]) };
	for (size_t i = 0; i < k->nrcu; i++)
		v[m++] = (struct seq_obj){ k->rcu[i].seq, rcu_json(&k->rcu[i]) };
	qsort(v, m, sizeof(*v), cmp_seq);
	struct json_object *ev = json_object_new_array();
	for (size_t i = 0; i < m; i++)
		json_object_array_add(ev, v[i].o);
	free(v);
	json_object_object_add(o, "events", ev);
	return o;
}
