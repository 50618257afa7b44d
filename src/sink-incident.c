/* sink-incident.c: an incident as the "incident" object of its report. */
#include <json-c/json.h>
#include <string.h>

#include "cgwatch.h"

static json_object *jtime(double epoch)
{
	char ts[32];
	return epoch > 0 ? json_object_new_string(iso_time(epoch, ts, sizeof(ts))) : NULL;
}

json_object *incident_json(const struct incident *i, enum inc_state state)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "id", json_object_new_string(i->id));
	json_object_object_add(o, "state", json_object_new_string(inc_state_name(state)));
	json_object_object_add(o, "severity", json_object_new_string(sev_name(i->severity)));
	json_object_object_add(o, "signature", json_object_new_string(i->sig));
	if (i->cause[0])
		json_object_object_add(o, "cause", jstr_untrusted(i->cause, strlen(i->cause)));
	json_object_object_add(o, "opened", jtime(i->opened_at));
	json_object_object_add(o, "escalated", jtime(i->escalated_at));
	json_object_object_add(o, "resolved", jtime(i->resolved_at));
	json_object_object_add(o, "duration_s", jseconds(incident_worst(i)));
	json_object_object_add(o, "bundle", i->bundle[0] ? json_object_new_string(i->bundle) :
	                                                   NULL);
	json_object_object_add(o, "tasks_total", json_object_new_int64((int64_t)i->ntasks_total));
	json_object *tl = json_object_new_array();
	for (size_t k = 0; k < i->ntimeline; k++) {
		const struct inc_event *e = &i->timeline[k];
		json_object *ev = json_object_new_object();
		json_object_object_add(ev, "time", jtime(e->time));
		json_object_object_add(ev, "state", json_object_new_string(inc_state_name(e->state)));
		json_object_object_add(ev, "severity", json_object_new_string(sev_name(e->severity)));
		json_object_object_add(ev, "tasks", json_object_new_int64((int64_t)e->ntasks));
		json_object_object_add(ev, "blocked_s", jseconds(e->blocked_s));
		json_object_array_add(tl, ev);
	}
	json_object_object_add(o, "timeline", tl);
	json_object *ts = json_object_new_array();
	for (size_t k = 0; k < i->ntasks; k++) {
		const struct inc_task *t = &i->tasks[k];
		json_object *to = json_object_new_object();
		json_object_object_add(to, "pid", json_object_new_int(t->tgid));
		json_object_object_add(to, "tid", json_object_new_int(t->tid));
		json_object_object_add(to, "comm", jstr_untrusted(t->comm, t->comm_len));
		json_object_object_add(to, "unit", jstr_untrusted(t->unit, strlen(t->unit)));
		json_object_object_add(to, "blocked_s", jseconds(t->blocked_s));
		json_object_object_add(to, "blocked_bound", json_object_new_string(bound_name(t->bound)));
		json_object_object_add(to, "resolved", jtime(t->resolved_at));
		json_object_array_add(ts, to);
	}
	json_object_object_add(o, "tasks", ts);
	return o;
}

