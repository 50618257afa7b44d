/* fuzz-syscall.c: /proc/TID/syscall (parse_syscall_line), the syscall table, and what the path
 * a syscall names becomes: made absolute (path_join) and looked up in the input read as
 * mountinfo text (mount_of_path). */
#include <errno.h>

#include "fuzz.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char *buf = fuzz_str(data, size);
	struct cgw_syscall sc;
	int r = parse_syscall_line(buf, &sc);
	FUZZ_CHECK(r == 1 || r == 0 || r == -EINVAL);
	FUZZ_CHECK(r == 1 ? sc.nr >= 0 && sc.nr <= 100000 : sc.nr == -1);
	if (r == 1) {
		struct sys_info si = syscall_info(sc.nr);
		FUZZ_CHECK(!si.name ? si.kind == SYSF_NONE : si.kind != SYSF_NONE);
	}
	/* the input's first line as a path, relative to a directory */
	char path[4096], out[256];
	size_t n = strcspn(buf, "\n");
	snprintf(path, sizeof(path), "%.*s", (int)(n < sizeof(path) ? n : sizeof(path) - 1), buf);
	if (path_join("/base/dir", path, out, sizeof(out)) == 0) {
		FUZZ_CHECK(out[0] == '/' && strlen(out) < sizeof(out));
		FUZZ_CHECK(!strstr(out, "//") && !strstr(out, "/./") && !strstr(out, "/../"));
		size_t l = strlen(out);
		FUZZ_CHECK(l == 1 || out[l - 1] != '/');
		struct mountinfo_ent e;
		if (mount_of_path(buf, out, &e) == 0) {
			size_t m = strlen(e.mnt);
			FUZZ_CHECK(strcmp(e.mnt, "/") == 0 ||
			           (strncmp(out, e.mnt, m) == 0 && (out[m] == '/' || out[m] == '\0')));
		}
	}
	free(buf);
	return 0;
}
