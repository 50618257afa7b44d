/* fuzz-conf.c: cgwatch.conf (conf_read_file, from a file as --config names it), then the
 * documented ranges of what it accepted. */
#include "fuzz.h"

static bool path_ok(const char *p, bool may_be_empty)
{
	return p && (p[0] == '/' || (may_be_empty && p[0] == '\0'));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	const char *path = fuzz_file(data, size);
	struct cgw_conf c;
	conf_defaults(&c);
	int r = conf_read_file(&c, path, fuzz_null());
	FUZZ_CHECK(r >= 0);
	/* what is taken is within its range, errors or not (a bad value is ignored) */
	FUZZ_CHECK(c.scan_interval_s >= 0.1 && c.scan_interval_s <= 3600);
	FUZZ_CHECK(c.read_timeout_s >= 0.05 && c.read_timeout_s <= 60);
	FUZZ_CHECK(c.check_timeout_s >= 1 && c.check_timeout_s <= 3600);
	FUZZ_CHECK(c.blocked_warning_s >= 0 && c.blocked_warning_s <= 86400);
	FUZZ_CHECK(c.blocked_critical_s >= 0 && c.blocked_critical_s <= 86400);
	FUZZ_CHECK(c.starved_s >= 0 && c.starved_s <= 86400);
	FUZZ_CHECK(c.update_interval_s >= 1 && c.update_interval_s <= 86400);
	FUZZ_CHECK(c.report_keep >= 2 && c.report_keep <= 100000 && c.report_keep == (long)c.report_keep);
	FUZZ_CHECK(c.report_max_mib >= 1 && c.report_max_mib <= 1048576);
	FUZZ_CHECK(c.nice >= -20 && c.nice <= 19 && c.nice == (long)c.nice);
	FUZZ_CHECK(c.io_class == 0 || c.io_class == 2 || c.io_class == 3);
	FUZZ_CHECK(path_ok(c.signatures_dir, true) && path_ok(c.local_signatures_dir, true));
	FUZZ_CHECK(path_ok(c.state_dir, false) && path_ok(c.report_dir, false));
	FUZZ_CHECK(path_ok(c.metrics_file, true));
	for (int k = 0; k < 3; k++)           /* [pressure]: off, or a trigger the kernel takes */
		FUZZ_CHECK(!c.pressure[k].on ||
		           (c.pressure[k].window_us >= PSI_WINDOW_MIN_US &&
		            c.pressure[k].window_us <= PSI_WINDOW_MAX_US &&
		            c.pressure[k].stall_us > 0 && c.pressure[k].stall_us <= c.pressure[k].window_us));
	if (r == 0)
		FUZZ_CHECK(c.blocked_critical_s >= c.blocked_warning_s);
	conf_free(&c);
	return 0;
}
