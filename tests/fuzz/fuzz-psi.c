/* fuzz-psi.c: a pressure file (psi_parse) as the scan reads /proc/pressure/RES or a cgroup's
 * RES.pressure, then its evidence line (pressure_cgroup_line) and the thresholds decided on it
 * (pressure_decide); and the input's first line as a [pressure] value (psi_trigger_parse),
 * formatted and parsed back. */
#include <errno.h>
#include <math.h>

#include "fuzz.h"

static void check_avg(const struct cgw_psi_avg *a)
{
	if (!a->have)
		return;
	FUZZ_CHECK(isfinite(a->avg10) && a->avg10 >= 0 && a->avg10 <= 100);
	FUZZ_CHECK(isfinite(a->avg60) && a->avg60 >= 0 && a->avg60 <= 100);
	FUZZ_CHECK(isfinite(a->avg300) && a->avg300 >= 0 && a->avg300 <= 100);
	FUZZ_CHECK(a->total_us <= (unsigned long long)(CGW_MAX_SECONDS * 1e6));
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_str(data, size);
	struct cgw_pressure p;
	memset(&p, 0, sizeof(p));
	char err[256];
	int r = psi_parse(buf, &p.sys[PSI_CPU], err, sizeof(err));
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	const struct cgw_psi *x = &p.sys[PSI_CPU];
	if (r == 0) {
		FUZZ_CHECK(x->have && x->some.have);
		check_avg(&x->some);
		check_avg(&x->full);
	} else {
		/* nothing half-parsed; the error names the line or says it is empty, one line */
		FUZZ_CHECK(!x->have && !x->some.have && !x->full.have);
		FUZZ_CHECK(strncmp(err, "line ", 5) == 0 || strncmp(err, "empty", 5) == 0);
		FUZZ_CHECK(!strchr(err, '\n') && strlen(err) < sizeof(err));
	}
	/* as a cgroup's: the evidence line, its path from the input (escaped, never cut raw) */
	struct cgw_psi_cgroup cg;
	memset(&cg, 0, sizeof(cg));
	snprintf(cg.path, sizeof(cg.path), "%s", buf);
	cg.res[PSI_IO] = *x;
	char line[1400];
	pressure_cgroup_line(&cg, line, sizeof(line));
	FUZZ_CHECK(strlen(line) < sizeof(line) && !strchr(line, '\n'));
	FUZZ_CHECK(!line[0] || (r == 0 && x->some.avg10 >= PSI_FLOOR_PCT));

	/* the first line as a [pressure] value */
	char first[128];
	snprintf(first, sizeof(first), "%.*s", (int)strcspn(buf, "\n"), buf);
	struct cgw_psi_trigger t = { true, true, 7, 8 }, back;
	r = psi_trigger_parse(first, &t, err, sizeof(err));
	FUZZ_CHECK(r == 0 || r == -EINVAL);
	if (r == 0 && t.on) {
		FUZZ_CHECK(t.window_us >= PSI_WINDOW_MIN_US && t.window_us <= PSI_WINDOW_MAX_US);
		FUZZ_CHECK(t.stall_us > 0 && t.stall_us <= t.window_us);
	}
	if (r < 0)                            /* a refused value leaves the setting as it was */
		FUZZ_CHECK(t.on && t.full && t.stall_us == 7 && t.window_us == 8);
	if (r == 0) {
		char v[64];
		FUZZ_CHECK(psi_trigger_parse(psi_trigger_format(&t, v, sizeof(v)), &back, err,
		                             sizeof(err)) == 0);
		FUZZ_CHECK(back.on == t.on && (!t.on || (back.full == t.full &&
		           back.stall_us == t.stall_us && back.window_us == t.window_us)));
		/* decided against what was parsed: a sentence when crossed, none otherwise */
		p.trig[PSI_CPU] = t;
		p.fired[PSI_CPU] = size & 1;
		pressure_decide(&p);
		FUZZ_CHECK(p.crossed[PSI_CPU] == (p.why[PSI_CPU][0] != '\0'));
		FUZZ_CHECK(!p.crossed[PSI_CPU] || t.on);
		FUZZ_CHECK(strlen(p.why[PSI_CPU]) < sizeof(p.why[PSI_CPU]));
	}
	free(buf);
	return 0;
}
