/* kfeat.c: the kernel features cgwatch uses where the kernel allows them (the BPF task walker
 * and task iterator, the run-queue program, the tracepoint counters), each with what became
 * of it here: used, loaded and kept as a fallback, refused (with the kernel's reason), not
 * tried, or turned off. One record per process, filled by the sources as they open; the
 * daemon's log, check's JSON (scan.kernel) and a bundle's manifest say it, so that support
 * reading a report knows what that host's kernel allowed. */
#include <stdarg.h>
#include <stdio.h>
#include <json-c/json.h>
#include <string.h>

#include "cgwatch.h"

static const char *const names[KF_N] = {
	[KF_TASK_WALKER] = "task-walker",
	[KF_TASK_ITERATOR] = "task-iterator",
	[KF_RUNQ_PROGRAM] = "runq-program",
	[KF_COUNTERS] = "tracepoint-counters",
};

static const char *const states[] = {
	[KFS_NOT_TRIED] = "not-tried",
	[KFS_USED] = "used",
	[KFS_AVAILABLE] = "available",
	[KFS_REFUSED] = "refused",
	[KFS_OFF] = "off",
};

const char *kf_name(enum cgw_kf f)
{
	return (unsigned)f < KF_N ? names[f] : "?";
}

const char *kf_state_name(enum cgw_kf_state s)
{
	return (unsigned)s < sizeof(states) / sizeof(states[0]) ? states[s] : "?";
}

void kf_set(struct cgw_kernel *k, enum cgw_kf f, enum cgw_kf_state s, const char *fmt, ...)
{
	if (!k || (unsigned)f >= KF_N)
		return;
	va_list ap;
	va_start(ap, fmt);
	k->f[f].state = s;
	vsnprintf(k->f[f].why, sizeof(k->f[f].why), fmt, ap);
	va_end(ap);
}

void kf_set_scan(struct cgw_kernel *k, enum cgw_kf_state s, const char *why)
{
	kf_set(k, KF_TASK_WALKER, s, "%s", why);
	kf_set(k, KF_TASK_ITERATOR, s, "%s", why);
}

const char *kf_scan_source(const struct cgw_kernel *k)
{
	if (k->f[KF_TASK_WALKER].state == KFS_USED)
		return "task-walker";
	if (k->f[KF_TASK_ITERATOR].state == KFS_USED)
		return "task-iterator";
	return "proc";
}

const char *kf_runq_source(const struct cgw_kernel *k)
{
	return k->runq_source[0] ? k->runq_source : "none";
}

void kf_line(const struct cgw_kernel *k, enum cgw_kf f, char *buf, size_t cap)
{
	snprintf(buf, cap, "%s %s%s%s%s", kf_name(f), kf_state_name(k->f[f].state),
	         k->f[f].why[0] ? " (" : "", k->f[f].why, k->f[f].why[0] ? ")" : "");
}

struct json_object *kf_json(const struct cgw_kernel *k, const char *release)
{
	json_object *o = json_object_new_object();
	json_object_object_add(o, "release", jstr(release));
	json_object_object_add(o, "scan_source", json_object_new_string(kf_scan_source(k)));
	json_object_object_add(o, "runq_source", json_object_new_string(kf_runq_source(k)));
	json_object *a = json_object_new_array();
	for (int f = 0; f < KF_N; f++) {
		json_object *e = json_object_new_object();
		json_object_object_add(e, "name", json_object_new_string(kf_name(f)));
		json_object_object_add(e, "state", json_object_new_string(kf_state_name(k->f[f].state)));
		json_object_object_add(e, "why", jstr(k->f[f].why));
		json_object_array_add(a, e);
	}
	json_object_object_add(o, "features", a);
	return o;
}
