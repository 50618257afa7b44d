/* incident-state.c: the state file, /var/lib/cgwatch/incidents.json, that carries open incidents over
 * a restart. It is not trusted on load: every field is checked, and an incident with a field
 * cgwatch would not have written is dropped, saying which. Save writes only what load takes:
 * at most STATE_MAX_BYTES, the overflow lists cut to INC_MAX_OVERFLOW_SAVED. */
#include <ctype.h>
#include <errno.h>
#include <json-c/json.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

/* n bytes of s (at most CGW_CAUSE_MAX) as lowercase hex, a new JSON string. */
static json_object *hex_json(const char *s, size_t n)
{
	char hex[2 * CGW_CAUSE_MAX + 1];
	if (n > CGW_CAUSE_MAX)
		n = CGW_CAUSE_MAX;
	for (size_t c = 0; c < n; c++)
		snprintf(hex + 2 * c, 3, "%02x", (unsigned char)s[c]);
	hex[2 * n] = '\0';
	return json_object_new_string(hex);
}

/* The state file keeps raw values (comm and cause as hex: they may hold any byte). At most
 * max_over of the overflow tasks are listed; the others are counted in overflow_unlisted. */
static json_object *state_incident(const struct incident *i, size_t max_over)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "id", json_object_new_string(i->id));
	json_object_object_add(o, "signature", json_object_new_string(i->sig));
	if (i->cause[0])
		json_object_object_add(o, "cause_hex", hex_json(i->cause, strlen(i->cause)));
	json_object_object_add(o, "severity", json_object_new_int(i->severity));
	json_object_object_add(o, "escalated", json_object_new_boolean(i->escalated));
	json_object_object_add(o, "opened_at", json_object_new_double(i->opened_at));
	json_object_object_add(o, "escalated_at", json_object_new_double(i->escalated_at));
	json_object_object_add(o, "last_event_at", json_object_new_double(i->last_event_at));
	json_object_object_add(o, "tasks_total", json_object_new_int64((int64_t)i->ntasks_total));
	json_object_object_add(o, "reports", json_object_new_int64((int64_t)i->reports));
	json_object_object_add(o, "report", json_object_new_string(i->report));
	json_object *ts = json_object_new_array();
	for (size_t k = 0; k < i->ntasks; k++) {
		const struct inc_task *t = &i->tasks[k];
		json_object *to = json_object_new_object();
		json_object_object_add(to, "tid", json_object_new_int(t->tid));
		json_object_object_add(to, "tgid", json_object_new_int(t->tgid));
		json_object_object_add(to, "start_ticks", json_object_new_int64((int64_t)t->start_ticks));
		json_object_object_add(to, "comm_hex", hex_json(t->comm, t->comm_len));
		json_object_object_add(to, "unit", json_object_new_string(t->unit));
		json_object_object_add(to, "blocked_s", json_object_new_double(t->blocked_s));
		json_object_object_add(to, "blocked_bound", json_object_new_string(bound_name(t->bound)));
		json_object_object_add(to, "resolved_at", json_object_new_double(t->resolved_at));
		if (t->held)
			json_object_object_add(to, "held", json_object_new_boolean(true));
		json_object_array_add(ts, to);
	}
	json_object_object_add(o, "tasks", ts);
	size_t nover = i->noverflow < max_over ? i->noverflow : max_over;
	json_object *ov = json_object_new_array();
	for (size_t k = 0; k < nover; k++) {
		json_object *p = json_object_new_array();
		json_object_array_add(p, json_object_new_int(i->overflow[k].tid));
		json_object_array_add(p, json_object_new_int64((int64_t)i->overflow[k].start_ticks));
		json_object_array_add(ov, p);
	}
	json_object_object_add(o, "overflow", ov);
	json_object_object_add(o, "overflow_unlisted",
	                       json_object_new_int64((int64_t)(i->overflow_unlisted +
	                                                       i->noverflow - nover)));
	json_object *tl = json_object_new_array();
	for (size_t k = 0; k < i->ntimeline; k++) {
		const struct inc_event *e = &i->timeline[k];
		json_object *ev = json_object_new_object();
		json_object_object_add(ev, "time", json_object_new_double(e->time));
		json_object_object_add(ev, "state", json_object_new_string(inc_state_name(e->state)));
		json_object_object_add(ev, "severity", json_object_new_int(e->severity));
		json_object_object_add(ev, "tasks", json_object_new_int64((int64_t)e->ntasks));
		json_object_object_add(ev, "blocked_s", json_object_new_double(e->blocked_s));
		json_object_array_add(tl, ev);
	}
	json_object_object_add(o, "timeline", tl);
	return o;
}

char *incidents_serialize(const struct cgw_incidents *in, const char *boot_id, size_t *len,
                          size_t *left_out)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "schema", json_object_new_string("cgwatch.state/1"));
	json_object_object_add(o, "boot_id", json_object_new_string(boot_id));
	json_object *a = json_object_new_array();
	size_t used = 256 + strlen(boot_id) * 6, skipped = 0;
	for (size_t k = 0; k < in->n; k++) {
		if (in->v[k].resolved_at != 0)
			continue;
		/* what load accepts: the overflow list cut to its cap, or left out; an incident
		 * that still does not fit is not saved */
		json_object *x = NULL;
		size_t n = 0;
		for (int pass = 0; pass < 2; pass++) {
			json_object_put(x);
			x = state_incident(&in->v[k], pass ? 0 : INC_MAX_OVERFLOW_SAVED);
			n = strlen(json_object_to_json_string_ext(x, JSON_C_TO_STRING_PLAIN)) + 1;
			if (used + n <= STATE_MAX_BYTES)
				break;
		}
		if (used + n > STATE_MAX_BYTES) {
			json_object_put(x);
			skipped++;
			continue;
		}
		used += n;
		json_object_array_add(a, x);
	}
	json_object_object_add(o, "incidents", a);
	const char *txt = json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN);
	char *out = txt ? try_strdup(txt) : NULL;      /* up to STATE_MAX_BYTES */
	*len = out ? strlen(out) : 0;
	json_object_put(o);
	if (left_out)
		*left_out = skipped;
	return out;
}

int incidents_save(const struct cgw_incidents *in, const char *path, const char *boot_id)
{
	size_t len, left_out;
	char *txt = incidents_serialize(in, boot_id, &len, &left_out);
	int r = txt ? atomic_write(path, txt, len, 0600) : -ENOMEM;
	free(txt);
	return r < 0 ? r : left_out ? -EFBIG : 0;
}

/* ---- loading: every field checked ---- */

#define STATE_TIME_MIN 946684800.0          /* 2000-01-01: a time before is not ours */
#define STATE_TIME_MAX 4102444800.0         /* 2100-01-01 */
#define STATE_PID_MAX 4194304               /* PID_MAX_LIMIT */
#define STATE_COUNT_MAX 100000000           /* tasks of one incident */
#define STATE_REPORTS_MAX 1000000
#define STATE_SECONDS_MAX 1e9

/* What is wrong with an incident: the field, and why. */
struct lerr { char field[64]; char why[256]; };

static bool bad(struct lerr *e, const char *field, const char *fmt, ...)
	__attribute__((format(printf, 3, 4)));
static bool bad(struct lerr *e, const char *field, const char *fmt, ...)
{
	snprintf(e->field, sizeof(e->field), "%s", field);
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->why, sizeof(e->why), fmt, ap);
	va_end(ap);
	return false;
}

/* An integer in [min, max]; def when absent. */
static bool lget_int(json_object *o, const char *k, int64_t min, int64_t max, int64_t def,
                     int64_t *out, const char *field, struct lerr *e)
{
	json_object *v;
	*out = def;
	if (!json_object_object_get_ex(o, k, &v))
		return true;
	if (!json_object_is_type(v, json_type_int))
		return bad(e, field, "not an integer");
	errno = 0;
	int64_t x = json_object_get_int64(v);
	if (errno || x < min || x > max)
		return bad(e, field, "%s out of range %lld..%lld", json_object_to_json_string(v),
		           (long long)min, (long long)max);
	*out = x;
	return true;
}

/* A finite number in [min, max]; zero_ok: 0 is also accepted (no time), and so is an absent
 * one, as 0; else absent is missing (saved as 0, it would not load again). */
static bool lget_num(json_object *o, const char *k, double min, double max, bool zero_ok,
                     double *out, const char *field, struct lerr *e)
{
	json_object *v;
	*out = 0;
	if (!json_object_object_get_ex(o, k, &v))
		return zero_ok ? true : bad(e, field, "missing");
	if (!json_object_is_type(v, json_type_double) && !json_object_is_type(v, json_type_int))
		return bad(e, field, "not a number");
	double x = json_object_get_double(v);
	if (!isfinite(x))
		return bad(e, field, "not a finite number");
	if (!(zero_ok && x == 0) && (x < min || x > max))
		return bad(e, field, "%g out of range %g..%g", x, min, max);
	*out = x;
	return true;
}

/* A string shorter than cap bytes, no NUL, no control byte unless any_byte; "" when absent. */
static bool lget_str(json_object *o, const char *k, char *out, size_t cap, bool any_byte,
                     const char *field, struct lerr *e)
{
	json_object *v;
	out[0] = '\0';
	if (!json_object_object_get_ex(o, k, &v))
		return true;
	if (!json_object_is_type(v, json_type_string))
		return bad(e, field, "not a string");
	const char *s = json_object_get_string(v);
	size_t n = (size_t)json_object_get_string_len(v);
	if (n >= cap || strlen(s) != n)
		return bad(e, field, "longer than %zu bytes, or holds a NUL", cap - 1);
	for (size_t c = 0; c < n && !any_byte; c++)
		if ((unsigned char)s[c] < 0x20 || s[c] == 0x7f)
			return bad(e, field, "holds a control character");
	memcpy(out, s, n + 1);
	return true;
}

static bool sig_id_ok(const char *s)
{
	if (!isalpha((unsigned char)s[0]))
		return false;
	for (; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '-' && *s != '_')
			return false;
	return true;
}

/* What incident_new_id makes: "YYYYMMDDTHHMMSSZ-<sig>", or with "-N" after it. */
static bool incident_id_ok(const char *id, const char *sig)
{
	for (int k = 0; k < 16; k++) {
		bool want_digit = k != 8 && k != 15;
		if (want_digit ? !isdigit((unsigned char)id[k])
		               : id[k] != (k == 8 ? 'T' : 'Z'))
			return false;
	}
	size_t sl = strlen(sig);
	if (id[16] != '-' || strncmp(id + 17, sig, sl) != 0)
		return false;
	const char *p = id + 17 + sl;
	if (!*p)
		return true;
	if (*p++ != '-' || !*p || *p == '0' || strlen(p) > 6)
		return false;
	for (; *p; p++)
		if (!isdigit((unsigned char)*p))
			return false;
	return true;
}

/* The array k of o (absent: NULL), at most max entries. */
static bool lget_array(json_object *o, const char *k, size_t max, json_object **out,
                       struct lerr *e)
{
	*out = NULL;
	if (!json_object_object_get_ex(o, k, out))
		return true;
	if (!json_object_is_type(*out, json_type_array))
		return bad(e, k, "not an array");
	size_t n = json_object_array_length(*out);
	if (n > max)
		return bad(e, k, "%zu entries, at most %zu", n, max);
	return true;
}

/* Hex text into out (room for half its length): false when it is not pairs of hex digits. */
static bool hex_bytes(const char *hex, char *out, size_t *len)
{
	size_t hl = strlen(hex);
	if (hl % 2 || strspn(hex, "0123456789abcdefABCDEF") != hl)
		return false;
	for (size_t c = 0; c < hl / 2; c++) {
		unsigned b;
		sscanf(hex + 2 * c, "%2x", &b);
		out[c] = (char)b;
	}
	*len = hl / 2;
	return true;
}

static bool load_task(struct inc_task *t, json_object *to, size_t k, struct lerr *e)
{
	char f[64];
#define F(name) (snprintf(f, sizeof(f), "tasks[%zu]" name, k), f)
	if (!json_object_is_type(to, json_type_object))
		return bad(e, F(""), "not an object");
	int64_t x;
	if (!lget_int(to, "tid", 1, STATE_PID_MAX, 0, &x, F(".tid"), e))
		return false;
	if (x == 0)
		return bad(e, F(".tid"), "missing");
	t->tid = (int)x;
	if (!lget_int(to, "tgid", 1, STATE_PID_MAX, t->tid, &x, F(".tgid"), e))
		return false;
	t->tgid = (int)x;
	if (!lget_int(to, "start_ticks", 0, INT64_MAX, 0, &x, F(".start_ticks"), e))
		return false;
	t->start_ticks = (unsigned long long)x;
	char hex[CGW_COMM_MAX * 2 + 2];
	if (!lget_str(to, "comm_hex", hex, sizeof(hex) - 2, false, F(".comm_hex"), e))
		return false;
	if (!hex_bytes(hex, t->comm, &t->comm_len))
		return bad(e, F(".comm_hex"), "not hexadecimal bytes");
	if (!lget_str(to, "unit", t->unit, sizeof(t->unit), true, F(".unit"), e) ||
	    !lget_num(to, "blocked_s", 0, STATE_SECONDS_MAX, true, &t->blocked_s, F(".blocked_s"),
	              e) ||
	    !lget_num(to, "resolved_at", STATE_TIME_MIN, STATE_TIME_MAX, true, &t->resolved_at,
	              F(".resolved_at"), e))
		return false;
	char b[16];
	if (!lget_str(to, "blocked_bound", b, sizeof(b), false, F(".blocked_bound"), e))
		return false;
	if (b[0] && strcmp(bound_name(bound_parse(b)), b) != 0)
		return bad(e, F(".blocked_bound"), "not exact, lower or unknown");
	t->bound = bound_parse(b);
	json_object *v;
	if (json_object_object_get_ex(to, "held", &v)) {   /* absent: false (older state files) */
		if (!json_object_is_type(v, json_type_boolean))
			return bad(e, F(".held"), "not true or false");
		t->held = json_object_get_boolean(v);
	}
#undef F
	return true;
}

static bool load_event(struct inc_event *ev, json_object *eo, size_t k, struct lerr *e)
{
	char f[64];
#define F(name) (snprintf(f, sizeof(f), "timeline[%zu]" name, k), f)
	if (!json_object_is_type(eo, json_type_object))
		return bad(e, F(""), "not an object");
	int64_t x;
	char st[16];
	if (!lget_num(eo, "time", STATE_TIME_MIN, STATE_TIME_MAX, false, &ev->time, F(".time"), e) ||
	    !lget_str(eo, "state", st, sizeof(st), false, F(".state"), e))
		return false;
	ev->state = inc_state_parse(st);
	if (ev->state == INC_NONE)
		return bad(e, F(".state"), "not a state");
	if (!lget_int(eo, "severity", SEV_INFO, SEV_CRITICAL, SEV_WARNING, &x, F(".severity"), e))
		return false;
	ev->severity = (enum cgw_sev)x;
	if (!lget_int(eo, "tasks", 0, STATE_COUNT_MAX, 0, &x, F(".tasks"), e))
		return false;
	ev->ntasks = (size_t)x;
	return lget_num(eo, "blocked_s", 0, STATE_SECONDS_MAX, true, &ev->blocked_s,
	                F(".blocked_s"), e);
#undef F
}

/* One saved incident, every field checked. Returns false with e set. */
static bool load_incident(struct incident *i, json_object *o, struct lerr *e)
{
	memset(i, 0, sizeof(*i));
	if (!json_object_is_type(o, json_type_object))
		return bad(e, "incident", "not an object");
	char id[sizeof(i->id)];
	if (!lget_str(o, "id", id, sizeof(id), false, "id", e) ||
	    !lget_str(o, "signature", i->sig, sizeof(i->sig), false, "signature", e))
		return false;
	if (!id[0] || !i->sig[0])
		return bad(e, !id[0] ? "id" : "signature", "missing");
	if (!sig_id_ok(i->sig))
		return bad(e, "signature", "not a signature id");
	if (!incident_id_ok(id, i->sig))
		return bad(e, "id", "not an incident id of signature %s", i->sig);
	memcpy(i->id, id, sizeof(id));
	char hex[2 * sizeof(i->cause)];
	size_t clen = 0;
	if (!lget_str(o, "cause_hex", hex, sizeof(hex) - 1, false, "cause", e))
		return false;
	if (hex[0] && !hex_bytes(hex, i->cause, &clen))
		return bad(e, "cause", "not hexadecimal bytes");
	i->cause[clen] = '\0';
	if (clen && (strlen(i->cause) != clen || !cause_ok(i->cause)))
		return bad(e, "cause", "not a cause cgwatch makes (mount, cgroup, workqueue, flush by)");
	int64_t x;
	if (!lget_int(o, "severity", SEV_INFO, SEV_CRITICAL, SEV_WARNING, &x, "severity", e))
		return false;
	i->severity = (enum cgw_sev)x;
	json_object *v;
	if (json_object_object_get_ex(o, "escalated", &v)) {
		if (!json_object_is_type(v, json_type_boolean))
			return bad(e, "escalated", "not true or false");
		i->escalated = json_object_get_boolean(v);
	}
	if (!lget_num(o, "opened_at", STATE_TIME_MIN, STATE_TIME_MAX, true, &i->opened_at,
	              "opened_at", e) ||
	    !lget_num(o, "escalated_at", STATE_TIME_MIN, STATE_TIME_MAX, true, &i->escalated_at,
	              "escalated_at", e) ||
	    !lget_num(o, "last_event_at", STATE_TIME_MIN, STATE_TIME_MAX, true, &i->last_event_at,
	              "last_event_at", e))
		return false;
	int64_t total, unlisted;
	if (!lget_int(o, "tasks_total", 0, STATE_COUNT_MAX, -1, &total, "tasks_total", e) ||
	    !lget_int(o, "overflow_unlisted", 0, STATE_COUNT_MAX, 0, &unlisted,
	              "overflow_unlisted", e) ||
	    !lget_int(o, "reports", 0, STATE_REPORTS_MAX, 0, &x, "reports", e) ||
	    !lget_str(o, "report", i->report, sizeof(i->report), false, "report", e))
		return false;
	i->reports = (unsigned)x;
	json_object *a;
	if (!lget_array(o, "tasks", INC_MAX_TASKS, &a, e))
		return false;
	size_t n = a ? json_object_array_length(a) : 0;
	if (!(i->tasks = try_calloc(n + 1, sizeof(*i->tasks))))
		return bad(e, "tasks", "out of memory");
	for (; i->ntasks < n; i->ntasks++)
		if (!load_task(&i->tasks[i->ntasks], json_object_array_get_idx(a, i->ntasks),
		               i->ntasks, e))
			return false;
	if (total >= 0 && (size_t)total < i->ntasks)
		return bad(e, "tasks_total", "%lld, fewer than the %zu tasks listed",
		           (long long)total, i->ntasks);
	i->ntasks_total = total >= 0 ? (size_t)total : i->ntasks;
	if ((size_t)unlisted > i->ntasks_total)
		return bad(e, "overflow_unlisted", "more than tasks_total");
	i->overflow_unlisted = (size_t)unlisted;
	if (!lget_array(o, "overflow", INC_MAX_OVERFLOW_SAVED, &a, e))
		return false;
	n = a ? json_object_array_length(a) : 0;
	if (!(i->overflow = try_calloc(n + 1, sizeof(*i->overflow))))
		return bad(e, "overflow", "out of memory");
	for (; i->noverflow < n; i->noverflow++) {
		json_object *p = json_object_array_get_idx(a, i->noverflow);
		json_object *p0 = json_object_array_get_idx(p, 0), *p1 = json_object_array_get_idx(p, 1);
		char f[64];
		snprintf(f, sizeof(f), "overflow[%zu]", i->noverflow);
		if (!json_object_is_type(p, json_type_array) || json_object_array_length(p) != 2 ||
		    !json_object_is_type(p0, json_type_int) || !json_object_is_type(p1, json_type_int))
			return bad(e, f, "not a [tid, start_ticks] pair");
		int64_t tid = json_object_get_int64(p0), st = json_object_get_int64(p1);
		if (tid < 1 || tid > STATE_PID_MAX || st < 0)
			return bad(e, f, "tid or start out of range");
		i->overflow[i->noverflow] = (struct inc_key){ (int)tid, (unsigned long long)st };
	}
	if (i->noverflow)
		qsort(i->overflow, i->noverflow, sizeof(*i->overflow), inc_key_cmp);
	if (!lget_array(o, "timeline", INC_MAX_TIMELINE, &a, e))
		return false;
	n = a ? json_object_array_length(a) : 0;
	if (!(i->timeline = try_calloc(n + 1, sizeof(*i->timeline))))
		return bad(e, "timeline", "out of memory");
	for (; i->ntimeline < n; i->ntimeline++)
		if (!load_event(&i->timeline[i->ntimeline], json_object_array_get_idx(a, i->ntimeline),
		                i->ntimeline, e))
			return false;
	return true;
}

int incidents_parse(struct cgw_incidents *in, const char *text, size_t len, const char *name,
                    const char *boot_id, size_t *dropped, FILE *err)
{
	*dropped = 0;
	json_tokener *tok = json_tokener_new();
	json_object *o = len <= STATE_MAX_BYTES ? json_tokener_parse_ex(tok, text, (int)len) : NULL;
	if (o && json_tokener_get_error(tok) != json_tokener_success) {
		json_object_put(o);
		o = NULL;
	}
	json_tokener_free(tok);
	json_object *a, *s;
	if (!o || !json_object_is_type(o, json_type_object) ||
	    !json_object_object_get_ex(o, "schema", &s) || !json_object_is_type(s, json_type_string) ||
	    strcmp(json_object_get_string(s), "cgwatch.state/1") ||
	    !json_object_object_get_ex(o, "incidents", &a) ||
	    !json_object_is_type(a, json_type_array)) {
		errorf(err, "%s: not a cgwatch state file, ignoring it", name);
		json_object_put(o);
		return -EINVAL;
	}
	bool same_boot = json_object_object_get_ex(o, "boot_id", &s) &&
	                 json_object_is_type(s, json_type_string) &&
	                 strcmp(json_object_get_string(s), boot_id) == 0;
	for (size_t k = 0; k < json_object_array_length(a); k++) {
		struct incident i;
		struct lerr e = { "", "" };
		json_object *io = json_object_array_get_idx(a, k);
		json_object *idv;
		bool has_id = json_object_is_type(io, json_type_object) &&
		              json_object_object_get_ex(io, "id", &idv);
		if (!load_incident(&i, io, &e)) {
			incident_clear(&i);
			if (!has_id)
				errorf(err, "%s: incident %zu is incomplete (no id), ignoring it", name, k);
			else
				errorf(err, "%s: incident %zu: %s: %s, ignoring the incident", name, k,
				        e.field, e.why);
			continue;
		}
		if (!same_boot) {                 /* its tasks died with the previous boot */
			incident_clear(&i);
			(*dropped)++;
			continue;
		}
		struct incident *v = try_reallocarray(in->v, in->n + 1, sizeof(*in->v));
		if (!v) {
			errorf(err, "%s: incident %zu: out of memory, ignoring the incident", name, k);
			incident_clear(&i);
			continue;
		}
		in->v = v;
		in->v[in->n++] = i;
	}
	json_object_put(o);
	return 0;
}

int incidents_load(struct cgw_incidents *in, const char *path, const char *boot_id,
                   size_t *dropped, FILE *err)
{
	*dropped = 0;
	char *buf = try_malloc(STATE_MAX_BYTES + 1);
	ssize_t r = buf ? read_small_file(path, buf, STATE_MAX_BYTES + 1) : -ENOMEM;
	if (r < 0) {
		free(buf);
		return (int)r;
	}
	int e = incidents_parse(in, buf, (size_t)r, path, boot_id, dropped, err);
	free(buf);
	return e;
}
