/* fuzz-stack.c: /proc/TID/stack and console traces (parse_stack_buf), the frames matched
 * against the built-in signature library as classify does, and wchan (frame_name). */
#include <errno.h>

#include "fuzz.h"

static struct cgw_sigset sigs;

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!sigs.n && sig_load_builtin(&sigs, fuzz_null()) != 0)
		abort();
	char *buf = fuzz_str(data, size);
	struct cgw_frame *f;
	int n = parse_stack_buf(buf, &f);
	FUZZ_CHECK(n >= 0 || n == -EINVAL);
	if (n >= 0) {
		for (int i = 0; i < n; i++) {
			FUZZ_CHECK(f[i].text && f[i].name && f[i].text[0]);
			FUZZ_CHECK(!strchr(f[i].text, '\n') && strlen(f[i].name) <= strlen(f[i].text));
			FUZZ_CHECK(strncmp(f[i].text, f[i].name, strlen(f[i].name)) == 0);
		}
		for (const char *st = "DR"; *st; st++) {
			const struct cgw_sig *s = sig_best(&sigs, *st, f, (size_t)n);
			if (s) {
				bool *marks = xcalloc((size_t)n + 1, sizeof(bool));
				FUZZ_CHECK(sig_match(s, f, (size_t)n, marks));
				bool any = false;
				for (int i = 0; i < n; i++)
					any |= marks[i];
				FUZZ_CHECK(any);
				free(marks);
			}
		}
		frames_free(f, (size_t)n);
	} else {
		FUZZ_CHECK(f == NULL);
	}
	char wchan[64];
	frame_name(buf, wchan, sizeof(wchan));
	FUZZ_CHECK(strlen(wchan) < sizeof(wchan));
	free(buf);
	return 0;
}
