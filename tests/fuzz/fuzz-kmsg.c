/* fuzz-kmsg.c: a /dev/kmsg capture through the assembler (kmsg_feed_buf): hung-task reports
 * with their blocker lines and traces, workqueue lockup dumps, soft lockups, RCU stalls.
 * Then what the report takes from it (kmsg_json, kmsg_hung_for, kmsg_suppressed), and the
 * same capture fed in two reads cut at a line, as the daemon's polls get it: the same result;
 * and what kmsg_link adds to a finding holding the tasks it names: escaped lines. */
#include <json-c/json.h>

#include "fuzz.h"
#include "kmsg.h"

/* A finding of every task the capture names, on every CPU, linked to what the kernel said. */
static void link_all(const struct cgw_kmsg *k)
{
	size_t n = k->nhung + k->nsoft;
	struct cgw_scan scan;
	memset(&scan, 0, sizeof(scan));
	scan.t = xcalloc(n + 1, sizeof(*scan.t));
	size_t *idx = xcalloc(n + 1, sizeof(*idx));
	for (size_t i = 0; i < n; i++) {
		const struct kmsg_task *kt = i < k->nhung ? &k->hung[i].task : &k->soft[i - k->nhung].task;
		struct cgw_task *t = &scan.t[scan.n];
		t->tid = t->tgid = kt->pid;
		t->state = 'D';
		t->suspect = SUSPECT_BLOCKED;
		t->comm_len = strlen(kt->comm);
		memcpy(t->comm, kt->comm, t->comm_len);
		t->blocked_s = 600;
		idx[scan.n] = scan.n;
		scan.n++;
	}
	struct cgw_sig sig;
	memset(&sig, 0, sizeof(sig));
	sig.id = "hung";
	struct cgw_finding f;
	memset(&f, 0, sizeof(f));
	f.sig = &sig;
	f.severity = SEV_CRITICAL;
	f.tasks = idx;
	f.ntasks = scan.n;
	memset(&f.cpus, 0xff, sizeof(f.cpus));
	struct cgw_report r;
	memset(&r, 0, sizeof(r));
	r.scan = &scan;
	r.f = &f;
	r.nf = 1;
	kmsg_link(&r, k);
	for (size_t i = 0; i < f.evidence.len; i++) {    /* every line escaped */
		if (f.evidence.s[i] != '\n' && !fuzz_printable(&f.evidence.s[i], 1)) {
			size_t a = i, len = strcspn(f.evidence.s + i, "\n");
			while (a && f.evidence.s[a - 1] != '\n')
				a--;
			char line[2048];
			fprintf(stderr, "raw byte in evidence: %s\n",
			        cescape(f.evidence.s + a, len + i - a, line, sizeof(line)));
		}
		FUZZ_CHECK(f.evidence.s[i] == '\n' || fuzz_printable(&f.evidence.s[i], 1));
	}
	sb_free(&f.evidence);
	sb_free(&f.summary);
	free(idx);
	free(scan.t);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_bytes(data, size);
	struct cgw_kmsg k;
	kmsg_init(&k);
	snprintf(k.source, sizeof(k.source), "/dev/kmsg");
	kmsg_feed_buf(&k, buf, size);
	FUZZ_CHECK(k.records == k.kernel_records + k.other_records);
	FUZZ_CHECK(k.nhung <= KMSG_MAX_HUNG);
	FUZZ_CHECK(k.nwq <= KMSG_MAX_WQ && k.nsoft <= KMSG_MAX_SOFT && k.nrcu <= KMSG_MAX_RCU);
	for (size_t i = 0; i < k.nhung; i++) {
		const struct kmsg_hung *h = &k.hung[i];
		FUZZ_CHECK(strnlen(h->task.comm, KMSG_COMM) < KMSG_COMM);
		FUZZ_CHECK(h->nframes <= KMSG_MAX_FRAMES && h->nowner_frames <= KMSG_MAX_FRAMES);
		/* the scanned task it is about finds a report of its own */
		struct cgw_task t;
		memset(&t, 0, sizeof(t));
		t.tid = h->task.pid;
		t.state = 'D';
		t.comm_len = strlen(h->task.comm);
		memcpy(t.comm, h->task.comm, t.comm_len);
		t.blocked_s = h->blocked_s > 0 ? (double)h->blocked_s : 0;
		const struct kmsg_hung *got = kmsg_hung_for(&k, &t);
		FUZZ_CHECK(got && got->task.pid == t.tid);
	}
	for (size_t i = 0; i < k.nwq; i++)
		FUZZ_CHECK(k.wq[i].nstuck <= KMSG_MAX_STUCK && k.wq[i].npwq <= KMSG_MAX_PWQ &&
		           k.wq[i].npools <= KMSG_MAX_POOLS);
	(void)kmsg_suppressed(&k);
	link_all(&k);
	json_object *o = kmsg_json(&k);
	char *whole = xstrdup(json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN));
	json_object_put(o);

	/* the same records in two reads, cut after a newline */
	if (size > 1) {
		size_t cut = data[0] % size;
		const char *nl = memchr(buf + cut, '\n', size - cut);
		if (nl) {
			cut = (size_t)(nl - buf) + 1;
			struct cgw_kmsg k2;
			kmsg_init(&k2);
			snprintf(k2.source, sizeof(k2.source), "/dev/kmsg");
			kmsg_feed_buf(&k2, buf, cut);
			kmsg_feed_buf(&k2, buf + cut, size - cut);
			o = kmsg_json(&k2);
			FUZZ_CHECK(strcmp(whole, json_object_to_json_string_ext(o, JSON_C_TO_STRING_PLAIN)) == 0);
			json_object_put(o);
			kmsg_free(&k2);
		}
	}
	free(whole);
	kmsg_free(&k);
	free(buf);
	return 0;
}
