/* test-sig-library.c: the built-in signature library, and the directories that add to it. */
#include "unit.h"

static size_t builtin_count(void)
{
	size_t n = 0;
	while (sig_builtin_files[n].name)
		n++;
	return n;
}

/* Signatures in the built-in library (a file may hold more than one). */
static size_t builtin_sigs(void)
{
	struct cgw_sigset set = { 0 };
	assert_int_equal(sig_load_builtin(&set, stderr), 0);
	size_t n = set.n;
	sig_free(&set);
	return n;
}

/* Every built-in file loads clean, named as in the source tree, and the ids the code
 * assigns itself are there. */
static void test_builtin_loads_clean(void **state)
{
	(void)state;
	struct cgw_sigset set = { 0 };
	struct errbuf e;
	assert_int_equal(sig_load_builtin(&set, errbuf_open(&e)), 0);
	assert_string_equal(errbuf_text(&e), "");
	assert_true(builtin_count() >= 3);
	assert_true(set.n >= builtin_count());
	for (size_t i = 0; i < set.n; i++) {
		const struct cgw_sig *s = &set.v[i];
		assert_true(s->builtin);
		assert_null(s->replaced);
		assert_string_equal(sig_source(s), "built in");
		assert_int_equal(strncmp(s->file, "conf/signatures.d/", 18), 0);
		assert_non_null(sig_builtin_file(s->file));
	}
	for (const char *const *id = (const char *const[]){ "frozen", "unknown", "starved", NULL };
	     *id; id++)
		assert_non_null(sig_find(&set, *id));
	assert_null(sig_builtin_file("conf/signatures.d/no-such.conf"));
	errbuf_close(&e);
	sig_free(&set);
}

/* The binary holds exactly the files of conf/signatures.d, byte for byte: a stale build (a
 * .conf changed, added or removed without regenerating) fails here. */
static void test_builtin_matches_source_tree(void **state)
{
	(void)state;
	char dir[4096];
	if (!unit_srcpath("conf/signatures.d", dir, sizeof(dir))) {
		print_message("# skip: no conf/signatures.d in the source tree (set CGW_SRCDIR)\n");
		skip();
	}
	DIR *d = opendir(dir);
	assert_non_null(d);
	size_t on_disk = 0;
	struct dirent *de;
	while ((de = readdir(d))) {
		size_t n = strlen(de->d_name);
		if (de->d_name[0] == '.' || n <= 5 || strcmp(de->d_name + n - 5, ".conf"))
			continue;
		on_disk++;
		char name[512], text[65536];
		snprintf(name, sizeof(name), "conf/signatures.d/%s", de->d_name);
		const struct cgw_sigfile *f = sig_builtin_file(name);
		if (!f)
			print_error("%s is not built in: rebuild\n", name);
		assert_non_null(f);
		char path[8192];
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		ssize_t len = read_small_file(path, text, sizeof(text));
		assert_true(len >= 0 && (size_t)len < sizeof(text) - 1);
		if ((size_t)len != f->len || memcmp(text, f->text, f->len))
			print_error("%s differs from its built-in copy: rebuild\n", name);
		assert_int_equal((size_t)len, f->len);
		assert_memory_equal(text, f->text, f->len);
	}
	closedir(d);
	assert_int_equal(on_disk, builtin_count());
}

static int reject_bad(void *user, const char *section, const char *key, const char *value,
                      int line, bool cont)
{
	(void)section;
	(void)value;
	(void)cont;
	if (strcmp(key, "bad") == 0)
		fprintf(user, "%s:%d: bad key\n", "X", line);
	return strcmp(key, "bad") != 0;
}

/* Text in memory goes through the same reader as a file: the same errors, the same lines,
 * under the name it is given. */
static void test_text_errors_like_file(void **state)
{
	(void)state;
	static const char text[] =
		"[signature]\n"            /* 1 */
		"id = x\n"                 /* 2 */
		"this has no equals\n"     /* 3 */
		"[broken\n"                /* 4 */
		"bad = 1\n"                /* 5 */
		"title = a\n"              /* 6 */
		"  continued\n";           /* 7 */
	char dir[64], path[128];
	tmpdir_make(dir, sizeof(dir));
	tmpdir_put(dir, "x.conf", text);
	snprintf(path, sizeof(path), "%s/x.conf", dir);

	struct errbuf from_file, from_text;
	FILE *ef = errbuf_open(&from_file), *et = errbuf_open(&from_text);
	assert_int_equal(ini_load(path, reject_bad, ef, ef), 3);
	assert_int_equal(ini_load_text("conf/signatures.d/x.conf", text, strlen(text), reject_bad,
	                               et, et), 3);
	assert_string_equal(errbuf_text(&from_text),
	                    "conf/signatures.d/x.conf:3: expected \"key = value\"\n"
	                    "conf/signatures.d/x.conf:4: malformed section header\n"
	                    "X:5: bad key\n");
	/* the file's messages are the same with its path in place of the name */
	char want[1024];
	snprintf(want, sizeof(want),
	         "%s:3: expected \"key = value\"\n%s:4: malformed section header\nX:5: bad key\n",
	         path, path);
	assert_string_equal(errbuf_text(&from_file), want);
	/* empty text: no error, no key */
	assert_int_equal(ini_load_text("empty.conf", "", 0, reject_bad, et, et), 0);
	errbuf_close(&from_file);
	errbuf_close(&from_text);
	tmpdir_remove(dir);
}

/* Defaults, with these [signatures] directories. */
static void conf_with_dirs(struct cgw_conf *c, const char *shipped, const char *local)
{
	conf_defaults(c);
	free(c->signatures_dir);
	free(c->local_signatures_dir);
	c->signatures_dir = xstrdup(shipped);
	c->local_signatures_dir = xstrdup(local);
}

static const char sig_fmt[] =
	"[signature]\nid = %s\nseverity = warning\npriority = 50\ntitle = %s\nsummary = S\n"
	"[match]\nframe = fuse_*\n";

static void put_sig(const char *dir, const char *file, const char *id, const char *title)
{
	char text[512];
	snprintf(text, sizeof(text), sig_fmt, id, title);
	tmpdir_put(dir, file, text);
}

/* Built in, then [signatures] shipped, then local: each replaces by id, and every signature
 * says where it came from and what it replaced. */
static void test_layers_replace_by_id(void **state)
{
	(void)state;
	char shipped[64], local[64], path[128];
	tmpdir_make(shipped, sizeof(shipped));
	tmpdir_make(local, sizeof(local));
	put_sig(shipped, "fuse.conf", "fuse-wait", "shipped fuse");
	put_sig(shipped, "site.conf", "site-x", "shipped site");
	put_sig(local, "fuse.conf", "fuse-wait", "local fuse");
	put_sig(local, "io.conf", "io-wait", "local io");

	struct cgw_conf c;
	conf_with_dirs(&c, shipped, local);
	struct cgw_sigset set = { 0 };
	assert_int_equal(signatures_load(&set, &c), 0);
	assert_int_equal(set.n, builtin_sigs() + 1);

	const struct cgw_sig *fuse = sig_find(&set, "fuse-wait");
	assert_string_equal(fuse->title, "local fuse");
	assert_false(fuse->builtin);
	snprintf(path, sizeof(path), "%s/fuse.conf", local);
	assert_string_equal(sig_source(fuse), path);
	snprintf(path, sizeof(path), "%s/fuse.conf", shipped);
	assert_string_equal(fuse->replaced, path);      /* the shipped one it replaced */

	const struct cgw_sig *io = sig_find(&set, "io-wait");
	assert_string_equal(io->title, "local io");
	assert_string_equal(io->replaced, "built in");

	const struct cgw_sig *site = sig_find(&set, "site-x");
	assert_string_equal(site->title, "shipped site");
	assert_null(site->replaced);                     /* added, not replacing */

	assert_true(sig_find(&set, "frozen")->builtin);
	sig_free(&set);
	conf_free(&c);
	tmpdir_remove(shipped);
	tmpdir_remove(local);
}

/* A directory that is not there, or none configured, is not an error: the built-in library
 * alone. */
static void test_missing_dirs_builtin_only(void **state)
{
	(void)state;
	static const char *const dirs[][2] = {
		{ "", "" },
		{ "/nonexistent/cgwatch/shipped", "/nonexistent/cgwatch/local" },
		{ "", "/proc/self/stat" },               /* not a directory: a warning, skipped */
	};
	for (size_t i = 0; i < ARRAY_SIZE(dirs); i++) {
		struct cgw_conf c;
		conf_with_dirs(&c, dirs[i][0], dirs[i][1]);
		struct cgw_sigset set = { 0 };
		assert_int_equal(signatures_load(&set, &c), 0);
		assert_int_equal(set.n, builtin_sigs());
		for (size_t k = 0; k < set.n; k++)
			assert_true(set.v[k].builtin);
		sig_free(&set);
		conf_free(&c);
	}
}

/* Two patterns the same, alternative by alternative. */
static void assert_pats_equal(const struct cgw_pat *a, const struct cgw_pat *b, size_t n)
{
	for (size_t i = 0; i < n; i++) {
		assert_int_equal(a[i].n, b[i].n);
		for (size_t j = 0; j < a[i].n; j++) {
			assert_ptr_not_equal(a[i].alt[j], b[i].alt[j]);
			assert_string_equal(a[i].alt[j], b[i].alt[j]);
		}
	}
}

static void assert_str_copy(const char *a, const char *b)
{
	if (!a || !b) {
		assert_ptr_equal(a, b);
		return;
	}
	assert_ptr_not_equal(a, b);
	assert_string_equal(a, b);
}

/* sig_copy: a library of its own (the daemon's bundle thread keeps one while a reload frees
 * the daemon's): every field the same, nothing shared, and it outlives the original. */
static void test_copy(void **state)
{
	(void)state;
	char shipped[64];
	tmpdir_make(shipped, sizeof(shipped));
	put_sig(shipped, "fuse.conf", "fuse-wait", "shipped fuse");
	put_sig(shipped, "site.conf", "site-x", "shipped site");
	struct cgw_conf c;
	conf_with_dirs(&c, shipped, "");
	struct cgw_sigset set = { 0 }, copy = { 0 };
	assert_int_equal(signatures_load(&set, &c), 0);
	assert_int_equal(sig_copy(&copy, &set), 0);
	assert_int_equal(copy.n, set.n);
	for (size_t k = 0; k < set.n; k++) {
		const struct cgw_sig *a = &set.v[k], *b = &copy.v[k];
		assert_str_copy(a->id, b->id);
		assert_str_copy(a->title, b->title);
		assert_str_copy(a->summary, b->summary);
		assert_str_copy(a->explanation, b->explanation);
		assert_str_copy(a->correlator, b->correlator);
		assert_str_copy(a->workqueue, b->workqueue);
		assert_str_copy(a->file, b->file);
		assert_str_copy(a->replaced, b->replaced);
		assert_int_equal(a->cause_mount, b->cause_mount);
		assert_int_equal(a->severity, b->severity);
		assert_int_equal(a->priority, b->priority);
		assert_string_equal(a->states, b->states);
		assert_int_equal(a->line, b->line);
		assert_int_equal(a->builtin, b->builtin);
		assert_int_equal(a->nframes, b->nframes);
		assert_int_equal(a->norder, b->norder);
		assert_int_equal(a->noptional, b->noptional);
		assert_pats_equal(a->frames, b->frames, a->nframes);
		assert_pats_equal(a->order, b->order, a->norder);
		assert_pats_equal(a->optional, b->optional, a->noptional);
		assert_int_equal(a->nremedies, b->nremedies);
		for (size_t j = 0; j < a->nremedies; j++)
			assert_str_copy(a->remedies[j], b->remedies[j]);
		assert_int_equal(a->nreferences, b->nreferences);
		for (size_t j = 0; j < a->nreferences; j++)
			assert_str_copy(a->references[j], b->references[j]);
	}
	sig_free(&set);                            /* a reload: the copy stands alone */
	assert_string_equal(sig_find(&copy, "fuse-wait")->title, "shipped fuse");
	assert_string_equal(sig_source(sig_find(&copy, "site-x")), sig_find(&copy, "site-x")->file);
	sig_free(&copy);
	struct cgw_sigset empty = { 0 };
	assert_int_equal(sig_copy(&copy, &empty), 0);
	assert_int_equal(copy.n, 0);
	sig_free(&copy);
	conf_free(&c);
	tmpdir_remove(shipped);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_builtin_loads_clean),
		cmocka_unit_test(test_builtin_matches_source_tree),
		cmocka_unit_test(test_text_errors_like_file),
		cmocka_unit_test(test_layers_replace_by_id),
		cmocka_unit_test(test_missing_dirs_builtin_only),
		cmocka_unit_test(test_copy),
	};
	return tmpdir_cleanup_all(cmocka_run_group_tests(tests, NULL, NULL));
}
