/* source-topology.c: the CPU isolation layout — online, isolated (sysfs and isolcpus=), nohz_full,
 * and the housekeeping CPUs left for everything else. */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

static void read_cpus(struct cgw_scan *s, const char *path, struct cgw_cpus *out)
{
	char buf[4096];
	memset(out, 0, sizeof(*out));
	ssize_t r = read_small_file(path, buf, sizeof(buf));
	/* nohz_full reads "(null)" on kernels with off-stack cpumasks and no nohz_full= */
	if (r < 0 || strncmp(buf, "(null)", 6) == 0)
		return;
	if (cpulist_parse(buf, out) < 0) {
		scan_unreadable(s, path, "not a CPU list (or a CPU past %d), ignoring",
		                CGW_MAX_CPUS - 1);
		memset(out, 0, sizeof(*out));
	}
}

/* A cpumask in hex words ("ffffffff,00000003"), as /sys/devices/virtual/workqueue/cpumask
 * prints it. Returns 0, -EINVAL, or -ERANGE when it sets a CPU past CGW_MAX_CPUS. */
int parse_cpumask_hex(const char *s, struct cgw_cpus *out)
{
	memset(out, 0, sizeof(*out));
	size_t n = strcspn(s, "\n"), bit = 0;
	if (n == 0)
		return -EINVAL;
	for (size_t i = n; i-- > 0;) {
		char c = s[i];
		if (c == ',')
			continue;
		int v = c >= '0' && c <= '9' ? c - '0' : c >= 'a' && c <= 'f' ? c - 'a' + 10 :
		        c >= 'A' && c <= 'F' ? c - 'A' + 10 : -1;
		if (v < 0)
			return -EINVAL;
		for (int b = 0; b < 4; b++, bit++)
			if (v >> b & 1) {
				if (bit >= CGW_MAX_CPUS)
					return -ERANGE;
				cpus_set(out, (unsigned)bit);
			}
	}
	return 0;
}

static void cmdline_cpus(struct cgw_scan *s, const char *cmdline, const char *key, struct cgw_cpus *out)
{
	char val[1024];
	memset(out, 0, sizeof(*out));
	if (cmdline_get(cmdline, key, val, sizeof(val)) && cpulist_parse(val, out) < 0) {
		warn_set_say(s->warns, "/proc/cmdline: %s=%s not understood, ignoring", key,
		             cesc(val));
		memset(out, 0, sizeof(*out));
	}
}

void topology_read(struct cgw_scan *s)
{
	struct cgw_topology *t = &s->topo;
	const char *cgroup2_mnt = s->cgroup2_mnt;
	memset(t, 0, sizeof(*t));
	read_cpus(s, "/sys/devices/system/cpu/online", &t->online);
	read_cpus(s, "/sys/devices/system/cpu/isolated", &t->isolated);
	read_cpus(s, "/sys/devices/system/cpu/nohz_full", &t->nohz_full);

	char cmdline[4096], val[1024], buf[4096];
	if (read_small_file("/proc/cmdline", cmdline, sizeof(cmdline)) >= 0) {
		struct cgw_cpus c;
		if (cmdline_get(cmdline, "isolcpus", val, sizeof(val))) {
			if (parse_isolcpus(val, &t->isol_flags, &t->isolcpus) == 0)
				cpus_or(&t->isolated, &t->isolcpus);
			else
				warn_set_say(s->warns, "/proc/cmdline: isolcpus=%s not understood, "
				             "ignoring", cesc(val));
		}
		cmdline_cpus(s, cmdline, "nohz_full", &c);
		cpus_or(&t->nohz_full, &c);
		cmdline_cpus(s, cmdline, "rcu_nocbs", &t->rcu_nocbs);
		cmdline_cpus(s, cmdline, "irqaffinity", &t->irqaffinity);
	}
	if (cgroup2_mnt && cgroup2_mnt[0]) {
		/* CPUs of isolated cpuset partitions (cgroup v2, 6.x): the root lists them all */
		char path[512];
		snprintf(path, sizeof(path), "%s/cpuset.cpus.isolated", cgroup2_mnt);
		read_cpus(s, path, &t->partitions);
		cpus_or(&t->isolated, &t->partitions);
	}
	if (read_small_file("/sys/devices/virtual/workqueue/cpumask", buf, sizeof(buf)) > 0 &&
	    parse_cpumask_hex(buf, &t->wq_unbound) < 0) {
		scan_unreadable(s, "/sys/devices/virtual/workqueue/cpumask", "not a cpumask (or a CPU "
		                "past %d), ignoring", CGW_MAX_CPUS - 1);
		memset(&t->wq_unbound, 0, sizeof(t->wq_unbound));
	}
	t->housekeeping = t->online;
	cpus_andnot(&t->housekeeping, &t->isolated);
	cpus_andnot(&t->housekeeping, &t->nohz_full);
	if (cpus_empty(&t->housekeeping))
		t->housekeeping = t->online;
}

bool topology_runtime_changed(const struct cgw_topology *a, const struct cgw_topology *b)
{
	return memcmp(&a->online, &b->online, sizeof(a->online)) ||
	       memcmp(&a->isolated, &b->isolated, sizeof(a->isolated)) ||
	       memcmp(&a->partitions, &b->partitions, sizeof(a->partitions)) ||
	       memcmp(&a->housekeeping, &b->housekeeping, sizeof(a->housekeeping)) ||
	       memcmp(&a->wq_unbound, &b->wq_unbound, sizeof(a->wq_unbound));
}

int topology_isolated_cpus(struct cgw_cpus *out)
{
	memset(out, 0, sizeof(*out));
	struct cgw_scan *s = calloc(1, sizeof(*s));
	if (!s)
		return -ENOMEM;
	snprintf(s->cgroup2_mnt, sizeof(s->cgroup2_mnt), "/sys/fs/cgroup");
	topology_read(s);
	*out = s->topo.isolated;
	cpus_or(out, &s->topo.nohz_full);
	free(s->unreadable);                  /* all topology_read allocates */
	free(s);
	return 0;
}
