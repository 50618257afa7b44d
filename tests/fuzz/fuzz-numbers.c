/* fuzz-numbers.c: the number parsers every /proc parser uses: parse_count, parse_decimal (the
 * kernel's decimals: no exponent, hex, nan or inf), parse_seconds (configuration values). */
#include <errno.h>
#include <math.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_str(data, size);
	static const uint64_t maxes[] = { 0, 99, 0x7fffffff, CGW_MAX_COUNT, UINT64_MAX };
	for (size_t i = 0; i < sizeof(maxes) / sizeof(maxes[0]); i++) {
		const char *p = buf;
		uint64_t v = 12345;
		int r = parse_count(&p, maxes[i], &v);
		FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
		if (r == 0)
			FUZZ_CHECK(v <= maxes[i] && p > buf && p <= buf + size);
	}
	static const double lim[][2] = { { 0, CGW_MAX_SECONDS }, { 0, CGW_MAX_SECONDS * 1000.0 },
	                                 { -1e6, 1e6 }, { 0, 0 } };
	for (size_t i = 0; i < sizeof(lim) / sizeof(lim[0]); i++) {
		const char *p = buf;
		double d;
		int r = parse_decimal(&p, lim[i][0], lim[i][1], &d);
		FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
		if (r == 0) {
			FUZZ_CHECK(isfinite(d) && d >= lim[i][0] && d <= lim[i][1] && !signbit(d) == (d >= 0));
			FUZZ_CHECK(!(d == 0 && signbit(d)));            /* "-0" is +0 */
			FUZZ_CHECK(p > buf && p <= buf + size);
		}
		r = parse_seconds(buf, lim[i][0], lim[i][1], &d);
		if (r == 0)
			FUZZ_CHECK(isfinite(d) && d >= lim[i][0] && d <= lim[i][1]);
	}
	free(buf);
	return 0;
}
