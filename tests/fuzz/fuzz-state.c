/* fuzz-state.c: the daemon's state file (incidents_load, from its path): every field of what
 * it keeps in range, and saving it again (incidents_serialize) gives a file that loads to the
 * same; then what the daemon does after a restart: each incident as a report's "incident" object and a journal line, a
 * scan that finds the first one's signature again (merged, escalated or updated), a scan that
 * finds nothing (all resolved), the messages of every change. And what a bundle takes of them
 * (bundle_incident_files): only files directly in the reports directory, each an incident's
 * own report name, as members incidents/NAME a bundle may hold. */
#include <json-c/json.h>
#include <math.h>

#include "fuzz.h"

#define BOOT "0f5a3c2e6b1d4a7f8e9c0b1a2d3e4f50"

static void say(const struct cgw_incidents *in, const struct inc_change *ch, size_t n)
{
	for (size_t k = 0; k < n; k++) {
		FUZZ_CHECK(ch[k].inc < in->n);
		const struct incident *i = &in->v[ch[k].inc];
		char msg[1024];
		incident_message(i, ch[k].state, msg, sizeof(msg));
		FUZZ_CHECK(strlen(msg) < sizeof(msg));
		json_object_put(incident_json(i, ch[k].state));
	}
}

static bool time_ok(double t)
{
	return isfinite(t) && t >= 0 && t < 1e12;
}

/* What load keeps is what cgwatch writes: ids that name no other path, finite times. */
static void check_loaded(const struct incident *i)
{
	FUZZ_CHECK(i->id[0] && i->sig[0] && strlen(i->id) < sizeof(i->id));
	FUZZ_CHECK(!strchr(i->id, '/') && !strstr(i->id, "..") && !strchr(i->sig, '/'));
	FUZZ_CHECK(i->ntasks <= INC_MAX_TASKS && i->ntimeline <= INC_MAX_TIMELINE);
	FUZZ_CHECK(i->ntasks_total >= i->ntasks);
	FUZZ_CHECK(time_ok(i->opened_at) && time_ok(i->escalated_at) && time_ok(i->last_event_at));
	FUZZ_CHECK(i->resolved_at == 0);
	for (size_t k = 0; k < i->ntasks; k++)
		FUZZ_CHECK(i->tasks[k].tid > 0 && time_ok(i->tasks[k].blocked_s) &&
		           time_ok(i->tasks[k].resolved_at));
	for (size_t k = 0; k < i->ntimeline; k++)
		FUZZ_CHECK(time_ok(i->timeline[k].time) && time_ok(i->timeline[k].blocked_s));
}

/* The reports a bundle takes of the loaded incidents: a .json, its .txt and the incident's
 * page <id>.html each, directly in the reports directory, the reports named <id>-NN-<state>,
 * as member names that are safe to extract. */
static void bundle_files(const struct cgw_incidents *in)
{
	static const char dir[] = "/var/log/cgwatch";
	struct bundle_incidents b;
	memset(&b, 0, sizeof(b));
	FUZZ_CHECK(bundle_incident_files(in, dir, &b) == 0);
	FUZZ_CHECK(b.n % 3 == 0 && b.n / 3 + b.nnotes == in->n);
	for (size_t k = 0; k < b.n; k++) {
		const char *p = b.v[k].path, *n = b.v[k].name, *base = strrchr(p, '/') + 1;
		FUZZ_CHECK(strncmp(p, dir, sizeof(dir) - 1) == 0 && p[sizeof(dir) - 1] == '/');
		FUZZ_CHECK(strncmp(n, "incidents/", 10) == 0 && strcmp(n + 10, base) == 0);
		FUZZ_CHECK(!strchr(n + 10, '/') && strcmp(n + 10, "..") && strcmp(n + 10, "."));
		FUZZ_CHECK(member_name_check(n, strlen(n), NULL, 0) == 0);
		size_t l = strlen(n);
		if (k % 3 == 0)
			FUZZ_CHECK(l > 5 && !strcmp(n + l - 5, ".json"));
		else if (k % 3 == 1)
			FUZZ_CHECK(l > 4 && !strcmp(n + l - 4, ".txt"));
		else
			FUZZ_CHECK(l > 5 && !strcmp(n + l - 5, ".html") &&
			           strncmp(n + 10, b.v[k - 2].name + 10, l - 15) == 0);
	}
	for (size_t k = 0; k < b.nnotes; k++)
		FUZZ_CHECK(member_name_check(b.notes[k].path, strlen(b.notes[k].path), NULL, 0) == 0);
	bundle_incidents_free(&b);
}

/* Saved again, it loads to the same incidents, and saves to the same text. */
static void roundtrip(const struct cgw_incidents *in)
{
	size_t len, left = 0, dropped;
	char *text = incidents_serialize(in, BOOT, &len, &left);
	FUZZ_CHECK(text && len <= STATE_MAX_BYTES && left <= in->n);
	struct cgw_incidents again;
	memset(&again, 0, sizeof(again));
	FUZZ_CHECK(incidents_parse(&again, text, len, "again", BOOT, &dropped, fuzz_null()) == 0);
	FUZZ_CHECK(again.n == in->n - left && dropped == 0);
	size_t len2;
	char *text2 = incidents_serialize(&again, BOOT, &len2, NULL);
	FUZZ_CHECK(len2 == len && memcmp(text, text2, len) == 0);
	free(text2);
	free(text);
	incidents_free(&again);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	struct cgw_incidents in;
	memset(&in, 0, sizeof(in));
	size_t dropped;
	int r = incidents_load(&in, path, BOOT, &dropped, fuzz_null());
	FUZZ_CHECK(r == 0 || (r < 0 && in.n == 0));
	for (size_t k = 0; k < in.n; k++) {
		const struct incident *i = &in.v[k];
		check_loaded(i);
		char msg[1024];
		incident_message(i, INC_OPENED, msg, sizeof(msg));
		json_object *o = incident_json(i, INC_UPDATED);
		FUZZ_CHECK(json_object_to_json_string(o));
		json_object_put(o);
		(void)incident_stuck(i);
	}

	roundtrip(&in);
	bundle_files(&in);

	/* the next scan: one task, blocked, in the first incident's signature */
	struct cgw_sig sig;
	memset(&sig, 0, sizeof(sig));
	sig.id = in.n ? in.v[0].sig : "fuse-wait";
	struct cgw_task task;
	memset(&task, 0, sizeof(task));
	task.tid = task.tgid = in.n && in.v[0].ntasks ? in.v[0].tasks[0].tid : 4242;
	task.start_ticks = in.n && in.v[0].ntasks ? in.v[0].tasks[0].start_ticks : 77;
	task.state = 'D';
	memcpy(task.comm, "fusecat", 7);
	task.comm_len = 7;
	task.blocked_s = 95;
	struct cgw_scan scan;
	memset(&scan, 0, sizeof(scan));
	scan.t = &task;
	scan.n = 1;
	size_t idx = 0;
	struct cgw_finding f;
	memset(&f, 0, sizeof(f));
	f.sig = &sig;
	f.severity = SEV_CRITICAL;
	f.tasks = &idx;
	f.ntasks = 1;
	struct cgw_report rep;
	memset(&rep, 0, sizeof(rep));
	rep.scan = &scan;
	rep.f = &f;
	rep.nf = 1;
	double now = 1764500000;
	struct inc_change *ch;
	size_t n = incidents_update(&in, &rep, now, 300, &ch);
	say(&in, ch, n);
	free(ch);
	incidents_prune(&in);

	rep.nf = 0;                       /* and then it is over */
	n = incidents_update(&in, &rep, now + 5, 300, &ch);
	FUZZ_CHECK(n == in.n);
	say(&in, ch, n);
	free(ch);
	incidents_prune(&in);
	FUZZ_CHECK(in.n == 0);
	incidents_free(&in);
	return 0;
}
