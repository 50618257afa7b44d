/* fuzz-stat.c: /proc/TID/stat (parse_stat_buf), then the task's name as reports print it
 * (C-escaped text, JSON) and as a kworker's. */
#include <errno.h>
#include <json-c/json.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_str(data, size);
	struct cgw_stat st;
	int r = parse_stat_buf(buf, size, &st);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
	if (r == 0) {
		/* every field read is in its range */
		FUZZ_CHECK(st.tid > 0 && st.ppid >= 0 && st.start_ticks <= CGW_MAX_COUNT);
		FUZZ_CHECK(st.cpu >= 0 && st.cpu < CGW_MAX_CPUS && st.rt_priority <= 99);
		FUZZ_CHECK(st.comm_len < sizeof(st.comm) && st.comm[st.comm_len] == '\0');
		FUZZ_CHECK(st.state != '\0' && st.state != ' ' && st.state != '\n');

		struct cgw_task t;
		memset(&t, 0, sizeof(t));
		t.tid = st.tid;
		t.tgid = st.tid;
		t.state = st.state;
		memcpy(t.comm, st.comm, sizeof(t.comm));
		t.comm_len = st.comm_len;
		char name[CGW_COMM_MAX * 4 + 32];
		task_name(&t, name, sizeof(name));
		FUZZ_CHECK(fuzz_printable(name, strlen(name)));

		json_object *o = jstr_untrusted(st.comm, st.comm_len);
		const char *js = json_object_to_json_string(o);
		FUZZ_CHECK(js != NULL);
		for (const char *p = js; *p; p++)        /* no raw control character in JSON */
			FUZZ_CHECK((unsigned char)*p >= 0x20 && (unsigned char)*p != 0x7f);
		json_object_put(o);

		struct cgw_kworker k;
		if (parse_kworker(st.comm, st.comm_len, &k) == 0)
			FUZZ_CHECK(strlen(k.wq) < sizeof(k.wq));
	}
	free(buf);
	return 0;
}
