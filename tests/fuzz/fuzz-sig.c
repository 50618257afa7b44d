/* fuzz-sig.c: a signature file (sig_load_dir on a directory holding it as a.conf, as the
 * [signatures] directories are read), loaded twice (the second replaces every id of the
 * first), its journal catalog printed, and each signature matched against a stack made of
 * its own patterns. */
#include <errno.h>
#include <fcntl.h>

#include "fuzz.h"

static char dir[256], file[300];

static void cleanup(void)
{
	unlink(file);
	rmdir(dir);
}

static void setup(void)
{
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof(dir), "%s/cgwatch-fuzz-sig.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir))
		abort();
	snprintf(file, sizeof(file), "%s/a.conf", dir);
	atexit(cleanup);
}

/* A stack that s must match: its ordered groups innermost first, then its required ones,
 * each as its first alternative (a prefix pattern "x*" as "x"). */
static void own_stack(const struct cgw_sig *s)
{
	size_t n = s->norder + s->nframes, k = 0;
	struct cgw_frame *f = xcalloc(n + 1, sizeof(*f));
	char **names = xcalloc(n + 1, sizeof(*names));
	for (size_t g = 0; g < s->norder + s->nframes; g++) {
		const struct cgw_pat *p = g < s->norder ? &s->order[g] : &s->frames[g - s->norder];
		if (!p->n)
			continue;
		size_t len = strlen(p->alt[0]);
		if (len && p->alt[0][len - 1] == '*')
			len--;
		names[k] = xstrndup(p->alt[0], len);
		f[k].text = f[k].name = names[k];
		k++;
	}
	if (k == n && n > 0) {
		bool *marks = xcalloc(n + 1, sizeof(bool));
		FUZZ_CHECK(sig_match(s, f, n, marks));
		for (size_t i = 0; i < n; i++)
			FUZZ_CHECK(marks[i]);
		free(marks);
	}
	for (size_t i = 0; i < k; i++)
		free(names[i]);
	free(names);
	free(f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	if (!dir[0])
		setup();
	int fd = open(file, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0600);
	if (fd < 0 || (size && write(fd, data, size) != (ssize_t)size) || close(fd) < 0)
		abort();
	struct cgw_sigset set = { 0 };
	int r = sig_load_dir(&set, dir, fuzz_null());
	FUZZ_CHECK(r >= 0);
	FUZZ_CHECK(r > 0 ? set.n == 0 : set.n > 0);     /* a bad file is skipped whole */
	for (size_t i = 0; i < set.n; i++) {
		const struct cgw_sig *s = &set.v[i];
		FUZZ_CHECK(s->id && s->id[0] && s->title && s->title[0] && s->summary && s->summary[0]);
		FUZZ_CHECK(s->severity != SEV_NONE && s->correlator && s->file);
		FUZZ_CHECK(sig_find(&set, s->id) == s);
		own_stack(s);
	}
	size_t n = set.n;
	FUZZ_CHECK(sig_load_dir(&set, dir, fuzz_null()) == r);
	FUZZ_CHECK(set.n == n);
	for (size_t i = 0; i < set.n; i++)
		FUZZ_CHECK(set.v[i].replaced != NULL);
	catalog_print(&set, fuzz_null());
	sig_free(&set);
	return 0;
}
