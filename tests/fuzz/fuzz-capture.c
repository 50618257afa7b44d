/* fuzz-capture.c: a capture's own files (parse-capture.c). The input as a clocks file: when it
 * parses, every number is in its range, each CPU listed once, and what clocks_format writes of
 * it parses back to the same; then each of its lines as an unreadable line: when one parses,
 * the path is not empty and holds no NUL, and unreadable_format of it parses back to it; and
 * as a detail file: when it parses, its names are text and detail_format of it parses back to
 * the same. */
#include <errno.h>
#include <math.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_str(data, size);
	struct cap_clocks *a = xcalloc(1, sizeof(*a)), *b = xcalloc(1, sizeof(*b));
	int r = parse_clocks(buf, a);
	FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ERANGE);
	if (r == 0) {
		FUZZ_CHECK(isfinite(a->reader_ms) && a->reader_ms >= 0);
		FUZZ_CHECK(!a->have_uptime || (a->uptime_s >= 0 && a->uptime_s <= CGW_MAX_SECONDS));
		FUZZ_CHECK(a->n <= CAP_MAX_CLOCKS);
		for (size_t i = 0; i < a->n; i++) {
			FUZZ_CHECK(a->cpu[i].cpu >= 0 && a->cpu[i].cpu < CGW_MAX_CPUS);
			FUZZ_CHECK(isfinite(a->cpu[i].offset_ms));
			FUZZ_CHECK(a->cpu[i].bound == BOUND_EXACT || a->cpu[i].bound == BOUND_LOWER);
			for (size_t j = 0; j < i; j++)
				FUZZ_CHECK(a->cpu[j].cpu != a->cpu[i].cpu);
			struct cgw_now now;
			FUZZ_CHECK(clocks_cpu(a, a->cpu[i].cpu, &now) && now.bound == a->cpu[i].bound);
		}
		struct strbuf sb = { 0 };
		clocks_format(a, &sb);
		FUZZ_CHECK(!sb.lost && parse_clocks(sb.s, b) == 0);
		FUZZ_CHECK(b->n == a->n && b->have_uptime == a->have_uptime);
		FUZZ_CHECK(fabs(b->reader_ms - a->reader_ms) <= 1e-6 * (1 + a->reader_ms));
		for (size_t i = 0; i < a->n; i++)
			FUZZ_CHECK(b->cpu[i].cpu == a->cpu[i].cpu && b->cpu[i].bound == a->cpu[i].bound);
		sb_free(&sb);
	}
	for (char *l = buf; l && *l; l = strchr(l, '\n'), l = l ? l + 1 : NULL) {
		char reason[32], path[512], again[512];
		const char *detail;
		r = parse_unreadable_line(l, reason, sizeof(reason), path, sizeof(path), &detail);
		FUZZ_CHECK(r == 0 || r == -EINVAL || r == -ENAMETOOLONG);
		if (r != 0)
			continue;
		FUZZ_CHECK(path[0] != '\0' && strlen(path) < sizeof(path));
		FUZZ_CHECK(detail >= l && detail <= l + strlen(l));
		struct strbuf sb = { 0 };
		unreadable_format(path, EIO, "x", &sb);
		FUZZ_CHECK(!sb.lost && strchr(sb.s, '\n') == sb.s + sb.len - 1);
		FUZZ_CHECK(parse_unreadable_line(sb.s, reason, sizeof(reason), again, sizeof(again),
		                                 &detail) == 0);
		FUZZ_CHECK(strcmp(again, path) == 0 && strcmp(reason, "failed") == 0);
		sb_free(&sb);
	}
	struct cap_detail d, e;
	if (parse_detail(buf, &d) == 0) {
		FUZZ_CHECK(text_bad(d.user, strlen(d.user)) == strlen(d.user));
		FUZZ_CHECK(text_bad(d.unit, strlen(d.unit)) == strlen(d.unit));
		FUZZ_CHECK(!d.have_started || (d.started_at >= 0 && d.started_at <= CGW_MAX_SECONDS));
		struct strbuf sb = { 0 };
		detail_format(&d, &sb);
		FUZZ_CHECK(!sb.lost && parse_detail(sb.s, &e) == 0);
		FUZZ_CHECK(strcmp(d.user, e.user) == 0 && strcmp(d.unit, e.unit) == 0);
		FUZZ_CHECK(d.have_started == e.have_started &&
		           (!d.have_started || fabs(d.started_at - e.started_at) <= 1e-6 * (1 + d.started_at)));
		sb_free(&sb);
	}
	free(a);
	free(b);
	free(buf);
	return 0;
}
