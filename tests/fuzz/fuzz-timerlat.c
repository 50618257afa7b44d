/* fuzz-timerlat.c: the timerlat tracer's trace text (timerlat_parse) into four CPUs: every
 * number in range, a culprit only with a pid, names and the stack NUL-terminated within their
 * arrays, no CPU past the four touched. */
#include <math.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct cgw_timerlat tl[5];
	memset(tl, 0, sizeof(tl));
	size_t bad;
	FUZZ_CHECK(timerlat_parse((const char *)data, size, tl, 4, &bad) == 0);
	FUZZ_CHECK(!tl[4].measured && tl[4].samples == 0 && !tl[4].stack[0]);
	for (int c = 0; c < 4; c++) {
		const struct cgw_timerlat *t = &tl[c];
		FUZZ_CHECK(t->measured || (t->samples == 0 && t->irq_max_us == 0 &&
		                           t->thread_max_us == 0));
		FUZZ_CHECK(isfinite(t->irq_max_us) && t->irq_max_us >= 0 &&
		           t->irq_max_us <= CGW_MAX_SECONDS * 1e6);
		FUZZ_CHECK(isfinite(t->thread_max_us) && t->thread_max_us >= 0 &&
		           t->thread_max_us <= CGW_MAX_SECONDS * 1e6);
		FUZZ_CHECK(t->thr_noise_us >= 0 && t->thr_noise_us <= CGW_MAX_SECONDS * 1e6);
		FUZZ_CHECK(t->irq_pid >= 0 && t->thr_pid >= 0);
		FUZZ_CHECK(strnlen(t->irq_comm, sizeof(t->irq_comm)) < sizeof(t->irq_comm));
		FUZZ_CHECK(strnlen(t->thr_comm, sizeof(t->thr_comm)) < sizeof(t->thr_comm));
		FUZZ_CHECK(strnlen(t->stack, sizeof(t->stack)) < sizeof(t->stack));
		FUZZ_CHECK(t->irq_pid > 0 || !t->irq_comm[0]);
		FUZZ_CHECK(t->thr_noise_us == 0 || t->thr_pid > 0);
		for (const char *p = t->stack; *p; p++)     /* printable symbols only */
			FUZZ_CHECK(*p >= ' ' && *p < 0x7f);
	}
	return 0;
}
