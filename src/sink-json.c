/* sink-json.c: the cgwatch.report/1 document (schema: README section 3). Every string that comes
 * from a task or the host is the real string: well-formed UTF-8 as it is, other bytes as the
 * text \xNN (utf8_escape), so the document is always valid JSON. */
#include <errno.h>
#include <json-c/json.h>
#include <string.h>
#include <time.h>

#include "cgwatch.h"
#include "kmsg.h"
#include "rates.h"

static json_object *jcpus(const struct cgw_cpus *c)
{
	char buf[8192];
	return json_object_new_string(cpulist_format(c, buf, sizeof(buf)));
}

/* Add v under key, a string literal that o does not hold yet: json-c neither looks it up
 * nor copies it (a report of 2,000 threads adds 170,000 keys). */
static void jadd(json_object *o, const char *key, json_object *v)
{
	json_object_object_add_ex(o, key, v, JSON_C_OBJECT_ADD_KEY_IS_NEW |
	                          JSON_C_OBJECT_KEY_IS_CONSTANT);
}

/* The user stack of t, its frames innermost first. */
static json_object *ustack_json(const struct cgw_task *t)
{
	json_object *us = json_object_new_array();
	for (size_t i = 0; i < t->nuframes; i++) {
		const struct cgw_uframe *f = &t->uframes[i];
		json_object *fo = json_object_new_object();
		char hex[24];
		snprintf(hex, sizeof(hex), "0x%lx", f->pc);
		jadd(fo, "pc", json_object_new_string(hex));
		jadd(fo, "module", jstr(f->module));
		snprintf(hex, sizeof(hex), "0x%lx", f->offset);
		jadd(fo, "offset", json_object_new_string(hex));
		jadd(fo, "symbol", f->symbol[0] ? jstr(f->symbol) : NULL);
		jadd(fo, "symbol_offset", f->symbol[0] ?
		     json_object_new_int64((int64_t)f->sym_off) : NULL);
		jadd(fo, "symbol_from", f->symbol_from ? json_object_new_string(f->symbol_from) :
		     NULL);
		jadd(fo, "symbol_exact", f->symbol[0] ? json_object_new_boolean(f->sym_exact) : NULL);
		jadd(fo, "symbol_why", !f->symbol[0] && f->symbol_why[0] ? jstr(f->symbol_why) : NULL);
		jadd(fo, "build_id", f->build_id[0] ? json_object_new_string(f->build_id) : NULL);
		snprintf(hex, sizeof(hex), "0x%lx", f->vaddr);
		jadd(fo, "vaddr", f->have_vaddr ? json_object_new_string(hex) : NULL);
		if (f->fp_recovered)          /* reached through a frame pointer a stack scan found */
			jadd(fo, "fp_recovered", json_object_new_boolean(1));
		if (f->sym_task_mntns)        /* named from the task's namespace's debug file */
			jadd(fo, "symbol_from_task_mntns", json_object_new_boolean(1));
		json_object_array_add(us, fo);
	}
	return us;
}

/* The last ustack array built and the frames it was built from: threads that share an
 * unwind (2,000 of one process blocked alike) share one array, built once, formatted once,
 * printed under each; their kernel stacks alike. */
struct ustack_memo {
	const struct cgw_uframe *f; size_t n; json_object *us;
	const struct cgw_task *kt; json_object *ks;   /* and the last kernel stack, alike */
};

/* Has b the same kernel stack as a (every frame's text)? */
static bool same_kstack(const struct cgw_task *a, const struct cgw_task *b)
{
	if (a->nframes != b->nframes)
		return false;
	for (size_t i = 0; i < a->nframes; i++)
		if (strcmp(a->frames[i].text, b->frames[i].text) != 0)
			return false;
	return true;
}

static json_object *task_json(const struct cgw_task *t, struct ustack_memo *memo)
{
	json_object *o = json_object_new_object();
	jadd(o, "pid", json_object_new_int(t->tgid));
	jadd(o, "tid", json_object_new_int(t->tid));
	jadd(o, "comm", jstr_untrusted(t->comm, t->comm_len));
	char st[2] = { t->state, 0 };
	jadd(o, "state", json_object_new_string(st));
	jadd(o, "blocked_s", jseconds(t->blocked_s));
	jadd(o, "blocked_bound", json_object_new_string(bound_name(t->bound)));
	if (t->duration_from[0])
		jadd(o, "duration_from", json_object_new_string(t->duration_from));
	if (t->lock_kind) {
		static const char *const kinds[] = { "", "mutex", "semaphore", "rw-semaphore-read",
		                                     "rw-semaphore-write" };
		json_object *l = json_object_new_object();
		jadd(l, "kind", json_object_new_string(t->lock_kind >= 1 && t->lock_kind <= 4 ?
		                                       kinds[t->lock_kind] : "?"));
		if (t->lock_name[0])
			jadd(l, "name", json_object_new_string(t->lock_name));
		if (t->owner_tid) {
			jadd(l, "owner_tid", json_object_new_int(t->owner_tid));
			jadd(l, "owner_pid", json_object_new_int(t->owner_tgid));
			jadd(l, "owner_comm", jstr_untrusted(t->owner_comm, strlen(t->owner_comm)));
			jadd(l, "owner_likely", json_object_new_boolean(t->owner_likely));
		}
		jadd(o, "lock", l);
	}
	if (!strcmp(t->duration_from, "sched_info.last_arrival"))   /* what /proc showed */
		jadd(o, "exec_start_reset", json_object_new_boolean(true));
	if (t->age_s >= 0)
		jadd(o, "age_s", jseconds(t->age_s));
	jadd(o, "frozen", json_object_new_boolean(t->frozen));
	jadd(o, "policy", json_object_new_string(policy_name(t->policy)));
	jadd(o, "rt_priority", json_object_new_int((int)t->rt_priority));
	jadd(o, "cpu", json_object_new_int(t->cpu));
	jadd(o, "cpus_allowed", jstr(t->cpus_allowed));
	jadd(o, "cgroup", jstr(t->cgroup));
	jadd(o, "unit", jstr(t->unit));
	jadd(o, "user", jstr(t->user));
	jadd(o, "ppid", json_object_new_int(t->ppid));
	if (t->started_at > 0) {
		char ts[32];
		jadd(o, "started", json_object_new_string(iso_time(t->started_at, ts, sizeof(ts))));
	}
	jadd(o, "wchan", jstr(t->wchan));
	json_object *stack;
	if (memo && memo->ks && t->nframes && same_kstack(memo->kt, t)) {
		if (json_object_get_userdata(memo->ks) == NULL)
			jshared(memo->ks);        /* printed under each: formatted once */
		stack = json_object_get(memo->ks);
	} else {
		stack = json_object_new_array();
		for (size_t i = 0; i < t->nframes; i++)
			json_object_array_add(stack, jstr(t->frames[i].text));
		if (memo) {
			memo->kt = t;
			memo->ks = stack;
		}
	}
	jadd(o, "stack", stack);
	if (t->marks) {                   /* the frames its signature matched, innermost first */
		json_object *m = json_object_new_array();
		for (size_t i = 0; i < t->nframes; i++)
			if (t->marks[i])
				json_object_array_add(m, jstr(t->frames[i].name));
		jadd(o, "matched_frames", m);
	}
	if (t->stack_error[0])
		jadd(o, "stack_error", jstr(t->stack_error));
	if (t->nuframes || t->ustack_error[0]) {   /* the user stack: tasks in findings only */
		json_object *us;
		if (memo && memo->us && t->nuframes && memo->n == t->nuframes &&
		    memcmp(memo->f, t->uframes, t->nuframes * sizeof(*t->uframes)) == 0) {
			if (json_object_get_userdata(memo->us) == NULL)
				jshared(memo->us);   /* printed under each: formatted once */
			us = json_object_get(memo->us);   /* the frames of an unwind it shares */
		} else {
			us = ustack_json(t);
			if (memo) {
				memo->f = t->uframes;
				memo->n = t->nuframes;
				memo->us = us;
			}
		}
		jadd(o, "ustack", us);
		if (t->ustack_error[0])
			jadd(o, "ustack_error", jstr(t->ustack_error));
		if (t->ustack_same_as)
			jadd(o, "ustack_same_as", json_object_new_int(t->ustack_same_as));
	}
	if (t->sched_error[0])
		jadd(o, "sched_error", jstr(t->sched_error));
	jadd(o, "signature", json_object_new_string(t->sig ? t->sig->id : ""));
	jadd(o, "severity", json_object_new_string(sev_name(t->severity)));
	if (t->vfork_child)
		jadd(o, "vfork_child", json_object_new_int(t->vfork_child));
	return o;
}

static json_object *strv_json(char *const *v, size_t n)
{
	json_object *a = json_object_new_array();
	for (size_t i = 0; i < n; i++)
		json_object_array_add(a, json_object_new_string(v[i]));
	return a;
}

static json_object *finding_json(const struct cgw_report *r, const struct cgw_finding *f)
{
	json_object *o = json_object_new_object();
	const struct cgw_sig *s = f->sig;
	json_object_object_add(o, "id", json_object_new_string(s->id));
	if (f->cause[0])
		json_object_object_add(o, "cause", jstr_untrusted(f->cause, strlen(f->cause)));
	json_object_object_add(o, "severity", json_object_new_string(sev_name(f->severity)));
	json_object_object_add(o, "title", json_object_new_string(s->title));
	json_object_object_add(o, "summary", json_object_new_string(f->summary.len ? f->summary.s :
	                                                            s->summary));
	if (s->explanation)
		json_object_object_add(o, "explanation", json_object_new_string(s->explanation));
	json_object *tasks = json_object_new_array(), *chain = json_object_new_array();
	for (size_t i = 0; i < f->ntasks; i++)
		json_object_array_add(tasks, json_object_new_int(r->scan->t[f->tasks[i]].tid));
	const size_t *c = f->nchain ? f->chain : f->tasks;
	for (size_t i = 0; i < (f->nchain ? f->nchain : f->ntasks); i++)
		json_object_array_add(chain, json_object_new_int(r->scan->t[c[i]].tid));
	json_object_object_add(o, "tasks", tasks);
	json_object_object_add(o, "chain", chain);
	json_object_object_add(o, "cpus", jcpus(&f->cpus));
	json_object *ev = json_object_new_array();
	for (const char *l = f->evidence.s; l && *l;) {
		size_t n = strcspn(l, "\n");
		json_object_array_add(ev, json_object_new_string_len(l, (int)n));
		l += n + (l[n] == '\n');
	}
	json_object_object_add(o, "evidence", ev);
	const struct cgw_sig *rs = f->family ? f->family : s;   /* a latency finding's family */
	if (f->family)
		json_object_object_add(o, "family", json_object_new_string(f->family->id));
	json_object_object_add(o, "remedies", strv_json(rs->remedies, rs->nremedies));
	json_object_object_add(o, "references", strv_json(s->references, s->nreferences));
	return o;
}

json_object *report_json_build(const struct cgw_report *r, ssize_t only)
{
	const struct cgw_scan *s = r->scan;
	json_object *o = json_object_new_object();
	json_object_object_add(o, "schema", json_object_new_string("cgwatch.report/1"));
	json_object_object_add(o, "host", jstr(s->host));
	json_object_object_add(o, "kernel", jstr(s->kernel));
	char ts[32];
	json_object_object_add(o, "time", json_object_new_string(iso_time((double)time(NULL), ts,
	                                                                  sizeof(ts))));

	json_object *topo = json_object_new_object();
	json_object_object_add(topo, "online", jcpus(&s->topo.online));
	json_object_object_add(topo, "isolated", jcpus(&s->topo.isolated));
	json_object_object_add(topo, "nohz_full", jcpus(&s->topo.nohz_full));
	json_object_object_add(topo, "housekeeping", jcpus(&s->topo.housekeeping));
	json_object_object_add(topo, "isolcpus", jcpus(&s->topo.isolcpus));
	json_object *fl = json_object_new_array();
	static const char *const flag_names[] = { "domain", "nohz", "managed_irq" };
	for (unsigned b = 0; b < 3; b++)
		if (s->topo.isol_flags & (1u << b))
			json_object_array_add(fl, json_object_new_string(flag_names[b]));
	json_object_object_add(topo, "isolcpus_flags", fl);
	json_object_object_add(topo, "rcu_nocbs", jcpus(&s->topo.rcu_nocbs));
	json_object_object_add(topo, "irqaffinity", jcpus(&s->topo.irqaffinity));
	json_object_object_add(topo, "partitions_isolated", jcpus(&s->topo.partitions));
	json_object_object_add(topo, "workqueue_unbound", jcpus(&s->topo.wq_unbound));
	json_object_object_add(o, "topology", topo);

	json_object *tasks = json_object_new_array();
	struct ustack_memo memo = { 0 };
	for (size_t i = 0; i < s->n; i++) {
		/* a task whose time cannot be read is listed, never left out unseen */
		bool listed = (r->all || s->t[i].sched_error[0]) && only < 0;
		for (size_t k = 0; k < r->nf && !listed; k++)
			for (size_t j = 0; j < r->f[k].ntasks && !listed; j++)
				listed = (only < 0 || (size_t)only == k) && r->f[k].tasks[j] == i;
		if (listed)
			json_object_array_add(tasks, task_json(&s->t[i], &memo));
	}
	json_object_object_add(o, "tasks", tasks);
	json_object *fs = json_object_new_array();
	for (size_t k = 0; k < r->nf; k++)
		if (only < 0 || (size_t)only == k)
			json_object_array_add(fs, finding_json(r, &r->f[k]));
	json_object_object_add(o, "findings", fs);

	json_object *sc = json_object_new_object();
	json_object_object_add(sc, "source", jstr(s->source[0] ? s->source : "proc"));
	json_object_object_add(sc, "source_why", jstr(s->source_why));
	if (r->kfeat)
		json_object_object_add(sc, "kernel", kf_json(r->kfeat, s->kernel));
	json_object_object_add(sc, "threads", json_object_new_int64((int64_t)s->threads));
	json_object_object_add(sc, "duration_ms", jround((double)s->scan_usec / 1000.0, 3));
	json_object_object_add(sc, "threshold_s", jround(r->threshold_s, 1));
	json_object_object_add(sc, "unreadable", json_object_new_int(s->errors));
	json_object *uf = json_object_new_array();
	for (size_t i = 0; i < s->nunreadable; i++) {
		json_object *u = json_object_new_object();
		json_object_object_add(u, "path", jstr_untrusted(s->unreadable[i].path,
		                                                 strlen(s->unreadable[i].path)));
		json_object_object_add(u, "why", jstr_untrusted(s->unreadable[i].why,
		                                                strlen(s->unreadable[i].why)));
		json_object_array_add(uf, u);
	}
	json_object_object_add(sc, "unreadable_files", uf);
	json_object_object_add(sc, "untimed", json_object_new_int64((int64_t)s->untimed));
	json_object_object_add(o, "scan", sc);
	if (r->kmsg)
		json_object_object_add(o, "kmsg", kmsg_json(r->kmsg));
	if (r->rates)
		json_object_object_add(o, "rates", rates_json(r->rates));
	if (r->recorder)
		json_object_object_add(o, "recorder", recorder_json(r->recorder));
	if (r->runq || r->runq_why)
		json_object_object_add(o, "runq", runq_json(r->runq, r->runq_why));
	if (r->pressure)
		json_object_object_add(o, "pressure", pressure_json(r->pressure));
	return o;
}

int report_json(const struct cgw_report *r, FILE *out)
{
	json_object *o = report_json_build(r, -1);
	int rc = json_write(o, out);
	json_object_put(o);
	return rc;
}
