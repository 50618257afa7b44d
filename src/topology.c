/* topology.c: the CPU isolation layout — online, isolated (sysfs and isolcpus=), nohz_full,
 * and the housekeeping CPUs left for everything else. */
#include <string.h>

#include "cgwatch.h"

static void read_cpus(const char *path, struct cgw_cpus *out)
{
	char buf[4096];
	memset(out, 0, sizeof(*out));
	ssize_t r = read_small_file(path, buf, sizeof(buf));
	/* nohz_full reads "(null)" on kernels with off-stack cpumasks and no nohz_full= */
	if (r < 0 || strncmp(buf, "(null)", 6) == 0)
		return;
	if (cpulist_parse(buf, out) < 0) {
		log_warnx("%s: not a CPU list, ignoring", path);
		memset(out, 0, sizeof(*out));
	}
}

void topology_read(struct cgw_topology *t, const char *cgroup2_mnt)
{
	memset(t, 0, sizeof(*t));
	read_cpus("/sys/devices/system/cpu/online", &t->online);
	read_cpus("/sys/devices/system/cpu/isolated", &t->isolated);
	read_cpus("/sys/devices/system/cpu/nohz_full", &t->nohz_full);

	char cmdline[4096], val[1024];
	if (read_small_file("/proc/cmdline", cmdline, sizeof(cmdline)) >= 0) {
		struct cgw_cpus c;
		if (cmdline_get(cmdline, "isolcpus", val, sizeof(val))) {
			if (parse_isolcpus(val, &t->isol_flags, &c) == 0)
				cpus_or(&t->isolated, &c);
			else
				log_warnx("/proc/cmdline: isolcpus=%s not understood, ignoring", val);
		}
		if (cmdline_get(cmdline, "nohz_full", val, sizeof(val)) &&
		    cpulist_parse(val, &c) == 0)
			cpus_or(&t->nohz_full, &c);
	}
	if (cgroup2_mnt && cgroup2_mnt[0]) {
		/* CPUs of isolated cpuset partitions (cgroup v2, 6.x): the root lists them all */
		char path[512];
		struct cgw_cpus c;
		snprintf(path, sizeof(path), "%s/cpuset.cpus.isolated", cgroup2_mnt);
		read_cpus(path, &c);
		cpus_or(&t->isolated, &c);
	}
	t->housekeeping = t->online;
	cpus_andnot(&t->housekeeping, &t->isolated);
	cpus_andnot(&t->housekeeping, &t->nohz_full);
	if (cpus_empty(&t->housekeeping))
		t->housekeeping = t->online;
}
