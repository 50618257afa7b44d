/* fuzz-sched.c: /proc/TID/sched (parse_sched_buf), then a task's time off the CPU from it,
 * as the scan computes and prints it. */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_str(data, size);
	struct cgw_sched sc;
	int r = parse_sched_buf(buf, &sc);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
	if (r == 0) {
		/* finite times within a century, counts within 2^53 */
		FUZZ_CHECK(sc.have_exec_start && !sc.bad);
		FUZZ_CHECK(isfinite(sc.exec_start_ms) && sc.exec_start_ms >= 0 &&
		           sc.exec_start_ms <= CGW_MAX_SECONDS * 1000.0);
		FUZZ_CHECK(isfinite(sc.sum_exec_ms) && sc.sum_exec_ms >= 0 &&
		           sc.sum_exec_ms <= CGW_MAX_SECONDS * 1000.0);
		FUZZ_CHECK(sc.nr_switches <= CGW_MAX_COUNT);
		/* a first sighting, then the same task read again a second later */
		struct cgw_seen w = { .tid = 1, .start_ticks = 100 }, w2 = w;
		seen_update(&w, NULL, 'D', &sc, 0, 1000.0);
		seen_update(&w2, &w, 'D', &sc, 0, 2000.0);
		struct cgw_stat st = { .tid = 1, .state = 'D', .start_ticks = 100 };
		(void)seen_still(&w2, &st, &sc);
		struct cgw_now now = { sc.exec_start_ms + 30000.0, BOUND_EXACT };
		for (int b = BOUND_EXACT; b <= BOUND_UNKNOWN; b++) {
			now.bound = (enum cgw_bound)b;
			struct cgw_dur d = seen_duration(&w2, now, 2000.0, 60.0);
			char text[64];
			dur_text(d, text, sizeof(text));
			FUZZ_CHECK(strlen(text) < sizeof(text));
			json_object_put(jseconds(d.s));
		}
	}
	free(buf);
	return 0;
}
