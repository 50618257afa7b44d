/* fuzz-bpfrec.c: the task iterator's records (bpfrec_next, bpfrec_stat, bpfrec_frame) as the
 * BPF source reads a buffer of them, and /proc/kallsyms lines (kallsyms_line). The first byte
 * chooses: even, records; odd, kallsyms lines. */
#include <errno.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (size == 0)
		return 0;
	char *buf = fuzz_bytes(data + 1, size - 1);
	size_t len = size - 1;
	if ((data[0] & 1) == 0) {
		size_t off = 0;
		struct cgw_bpfrec r;
		int rc;
		while ((rc = bpfrec_next(buf, len, &off, &r)) == 1) {
			FUZZ_CHECK(off <= len);
			if (r.kind == 3)
				continue;
			FUZZ_CHECK(r.tid > 0 && r.tgid > 0 && r.ppid >= 0);
			FUZZ_CHECK(r.cpu >= 0 && r.cpu < CGW_MAX_CPUS && r.rt_priority <= 99);
			FUZZ_CHECK(r.comm_len <= 16 && r.comm[r.comm_len] == '\0');
			FUZZ_CHECK(r.nframes <= 64);
			uint64_t sum = 0;
			for (size_t i = 0; i < r.nframes; i++)
				sum += bpfrec_frame(&r, i);
			(void)sum;
			struct cgw_stat st;
			struct cgw_sched sc;
			bpfrec_stat(&r, 100, &st, &sc);
			FUZZ_CHECK(st.start_ticks <= CGW_MAX_COUNT);
			FUZZ_CHECK(sc.exec_start_ms >= 0 && sc.exec_start_ms <= CGW_MAX_SECONDS * 1e3);
			FUZZ_CHECK(sc.nr_switches <= CGW_MAX_COUNT);
		}
		FUZZ_CHECK(rc == 0 || rc == -EINVAL || rc == -ERANGE);
	} else {
		size_t i = 0;
		while (i < len) {
			const char *nl = memchr(buf + i, '\n', len - i);
			size_t n = nl ? (size_t)(nl - (buf + i)) + 1 : len - i;
			struct cgw_ksym k;
			if (kallsyms_line(buf + i, n, &k) == 0) {
				FUZZ_CHECK(k.name >= buf + i && k.name + k.name_len <= buf + i + n);
				FUZZ_CHECK(k.name_len > 0);
				FUZZ_CHECK(!k.mod || (k.mod >= buf + i && k.mod + k.mod_len <= buf + i + n));
			}
			i += n;
		}
	}
	free(buf);
	return 0;
}
