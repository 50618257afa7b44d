/* source-host.c: the host snapshot, read once per scan before the task walk: name, kernel release,
 * the mount table and where the cgroup hierarchies are, the possible CPUs, the CPU layout
 * (source-topology.c). Every later stage takes these from the scan, never from the files. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgwatch.h"

static void read_line(const char *path, char *out, size_t cap)
{
	if (read_small_file(path, out, cap) >= 0)
		out[strcspn(out, "\n")] = '\0';
	else
		out[0] = '\0';
}

static int possible_cpus(void)
{
	char buf[4096];
	struct cgw_cpus *set = try_malloc(sizeof(*set));
	int n = -1;
	if (set && read_small_file("/sys/devices/system/cpu/possible", buf, sizeof(buf)) > 0) {
		buf[strcspn(buf, "\n")] = '\0';
		if (cpulist_parse(buf, set) == 0) {
			n = 0;
			for (unsigned c = 0; c < CGW_MAX_CPUS; c++)
				n += cpus_test(set, c);
		}
	}
	free(set);
	return n;
}

void host_read(struct cgw_scan *s, unsigned timeout_ms)
{
	read_line("/proc/sys/kernel/hostname", s->host, sizeof(s->host));
	read_line("/proc/sys/kernel/osrelease", s->kernel, sizeof(s->kernel));
	s->freezer_mnt[0] = s->cgroup2_mnt[0] = '\0';
	int err = 0;
	s->mountinfo = scan_read_whole(s, "/proc/self/mountinfo", timeout_ms, &err);
	if (!s->mountinfo)
		snprintf(s->mountinfo_err, sizeof(s->mountinfo_err), "%s",
		         err == -EFBIG ? "larger than 16 MiB" : strerror(-err));
	ssize_t n = s->live ? readlink("/proc/self/ns/mnt", s->mntns_self,
	                               sizeof(s->mntns_self) - 1) : -1;
	s->mntns_self[n > 0 ? n : 0] = '\0';
	if (s->mountinfo) {
		parse_mountinfo_cgroup(s->mountinfo, "freezer", s->freezer_mnt, sizeof(s->freezer_mnt));
		parse_mountinfo_cgroup(s->mountinfo, NULL, s->cgroup2_mnt, sizeof(s->cgroup2_mnt));
	}
	s->possible_cpus = possible_cpus();
	topology_read(s);
}
