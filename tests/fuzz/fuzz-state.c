/* fuzz-state.c: the daemon's state file (incidents_load, from its path), then what the daemon
 * does after a restart: each incident as a report's "incident" object and a journal line, a
 * scan that finds the first one's signature again (merged, escalated or updated), a scan that
 * finds nothing (all resolved), the messages of every change. */
#include <json-c/json.h>

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
		FUZZ_CHECK(i->id[0] && i->sig[0] && strlen(i->id) < sizeof(i->id));
		FUZZ_CHECK(i->ntasks <= INC_MAX_TASKS && i->ntimeline <= INC_MAX_TIMELINE);
		char msg[1024];
		incident_message(i, INC_OPENED, msg, sizeof(msg));
		json_object *o = incident_json(i, INC_UPDATED);
		FUZZ_CHECK(json_object_to_json_string(o));
		json_object_put(o);
		(void)incident_stuck(i);
	}

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
