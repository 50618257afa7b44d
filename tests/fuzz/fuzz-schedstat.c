/* fuzz-schedstat.c: /proc/TID/schedstat (parse_schedstat), and the log2 histogram the waits
 * go into: the input's bytes as bucket counts, whose quantiles must be ordered, within the
 * histogram's span and never past the maximum given. */
#include <errno.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_str(data, size);
	struct cgw_schedstat s;
	int r = parse_schedstat(buf, &s);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
	if (r == 0)
		FUZZ_CHECK(s.run_ns <= CGW_MAX_COUNT && s.wait_ns <= CGW_MAX_COUNT &&
		           s.slices <= CGW_MAX_COUNT);
	struct cgw_runq_cpu c = { 0 };
	for (size_t i = 0; i < size && i < RUNQ_BUCKETS; i++)
		c.buckets[i] = data[i];
	c.max_ms = size > RUNQ_BUCKETS ? data[RUNQ_BUCKETS] : 0;
	runq_summarize(&c);
	FUZZ_CHECK(c.p50_ms >= 0 && c.p50_ms <= c.p99_ms);
	FUZZ_CHECK(c.p99_ms <= (double)(1ull << RUNQ_BUCKETS) / 1000.0);
	FUZZ_CHECK(c.max_ms <= 0 || c.p99_ms <= c.max_ms);
	FUZZ_CHECK(c.count == 0 ? c.p99_ms == 0 : 1);
	struct cgw_runq_task t = { .ms = (double)size };
	runq_waited_add(&c, &t);
	FUZZ_CHECK(c.nwaited == 1);
	free(buf);
	return 0;
}
