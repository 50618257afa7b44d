/* fuzz-rates.c: the rates parsers on one input: a tracefs id and format file, /proc/cgroups,
 * /proc/stat's processes, cgroup.stat, /proc/uptime; what they give goes into a replay's
 * rates, printed as the report does (rates_json, rates_text). */
#include <errno.h>
#include <json-c/json.h>
#include <math.h>

#include "fuzz.h"
#include "rates.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_str(data, size);
	unsigned long long id;
	if (parse_tracepoint_id(buf, &id) == 0)
		FUZZ_CHECK(id > 0);
	struct trace_field f[4];
	int nf = parse_trace_format(buf, f, 4);
	FUZZ_CHECK(nf == -EINVAL || (nf >= 0 && nf <= 4));
	for (int i = 0; i < nf; i++) {
		FUZZ_CHECK(strlen(f[i].type) < sizeof(f[i].type) && f[i].name[0] &&
		           strlen(f[i].name) < sizeof(f[i].name));
		(void)trace_field_is_string(&f[i]);
	}

	struct cgw_rates rt;
	memset(&rt, 0, sizeof(rt));
	rt.source = RATES_SRC_PROC;
	for (int e = 0; e < RATE_NEV; e++) {
		rt.ev[e].missing = e % 2;
		snprintf(rt.ev[e].why, sizeof(rt.ev[e].why), "not counted");
		rt.ev[e].count = (uint64_t)e * (nf > 0 ? f[0].offset : 1);
	}
	int n = parse_proc_cgroups(buf, rt.ctrl, RATES_MAX_CTRL);
	FUZZ_CHECK(n == -EINVAL || n == -ERANGE || (n >= 0 && n <= RATES_MAX_CTRL));
	for (int i = 0; i < n; i++)
		FUZZ_CHECK(rt.ctrl[i].name[0] && strlen(rt.ctrl[i].name) < sizeof(rt.ctrl[i].name) &&
		           rt.ctrl[i].num_cgroups >= 0);
	rt.nctrl = n > 0 ? (size_t)n : 0;
	if (n < 0)
		snprintf(rt.cgroups_err, sizeof(rt.cgroups_err), "not a /proc/cgroups file");
	rt.have_processes = parse_proc_stat_processes(buf, &rt.processes) == 0;
	long subsys;
	if (parse_cgroup_stat_subsys(buf, "cpu", &subsys) == 0)
		FUZZ_CHECK(subsys >= 0);
	if (parse_uptime(buf, &rt.uptime_s) != 0)
		rt.uptime_s = 0;
	FUZZ_CHECK(isfinite(rt.uptime_s) && rt.uptime_s >= 0 && rt.uptime_s <= CGW_MAX_SECONDS);
	if (rt.have_processes) {
		rt.forks.count = rt.processes;
		snprintf(rt.forks_from, sizeof(rt.forks_from), "/proc/stat processes");
	}
	json_object *o = rates_json(&rt);
	FUZZ_CHECK(json_object_to_json_string(o));
	json_object_put(o);
	rates_text(&rt, fuzz_null());
	free(buf);
	return 0;
}
