/* parse-release.c: a kernel's release string, /proc/sys/kernel/osrelease (uname -r), into its
 * version: what a fact falls back on when the kernel does not show a feature directly (the
 * fair server's settings are in debugfs, which may not be mounted or readable). Pure. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>

#include "cgwatch.h"

/* "6.12.118+deb12-amd64", "6.1.0-28-amd64", "7.0.0-1004-aws", "6.18.44": the major and minor
 * numbers lead, each a decimal, then '.', '-', '+', or the end. */
int parse_kernel_release(const char *s, int *major, int *minor)
{
	if (!s || !isdigit((unsigned char)s[0]))
		return -EINVAL;
	char *end;
	long ma = strtol(s, &end, 10);
	if (*end != '.' || !isdigit((unsigned char)end[1]) || ma > 1000)
		return -EINVAL;
	long mi = strtol(end + 1, &end, 10);
	if ((*end && *end != '.' && *end != '-' && *end != '+') || mi > 1000)
		return -EINVAL;
	*major = (int)ma;
	*minor = (int)mi;
	return 0;
}

int kernel_release_at_least(const char *s, int major, int minor)
{
	int ma, mi;
	if (parse_kernel_release(s, &ma, &mi) < 0)
		return -EINVAL;
	return ma > major || (ma == major && mi >= minor);
}
