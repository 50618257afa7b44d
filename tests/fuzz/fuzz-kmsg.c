/* fuzz-kmsg.c: a /dev/kmsg capture through the assembler (kmsg_feed_buf): hung-task reports
 * with their blocker lines and traces, workqueue lockup dumps, soft lockups, RCU stalls.
 * Then what the report takes from it (kmsg_json, kmsg_hung_for, kmsg_suppressed), and the
 * same capture fed in two reads cut at a line, as the daemon's polls get it: the same result. */
#include <json-c/json.h>

#include "fuzz.h"
#include "kmsg.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_bytes(data, size);
	struct cgw_kmsg k;
	kmsg_init(&k);
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
