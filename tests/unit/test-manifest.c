/* test-manifest.c: a bundle's member names (a table of hostile ones), its links, and
 * manifest.json written, read back, refused when wrong and compared with what an archive
 * holds; the effective configuration dumped and read back. */
#include "unit.h"

static void test_member_names(void **state)
{
	(void)state;
	static const char *const good[] = {
		"tree", "tree/", "tree/proc/1/stat", "manifest.json", "tree/proc/1/task/1/comm",
		"tree/sys/fs/cgroup/a b/cgroup.events", "tree/..x", "tree/x..", "tree/.hidden",
		"tree/...", "tree/a\\b", "tree/\xff\xfe", "tree/a\nb",
	};
	static const char *const bad[] = {
		"", "/", "/etc/passwd", "/tree/proc", "..", "../x", "tree/..", "tree/../x",
		"tree/proc/../../x", "tree/./x", ".", "./tree", "tree//x", "tree/x//", "//x",
		"tree/x/.", "tree/x/..", "tree/../../../../../../etc/cron.d/x",
	};
	char why[160];
	for (size_t i = 0; i < ARRAY_SIZE(good); i++)
		if (member_name_check(good[i], strlen(good[i]), why, sizeof(why)) != 0) {
			print_error("refused \"%s\": %s\n", esc(good[i]), why);
			fail();
		}
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++)
		if (member_name_check(bad[i], strlen(bad[i]), why, sizeof(why)) != -EINVAL) {
			print_error("accepted \"%s\"\n", esc(bad[i]));
			fail();
		}
	assert_int_equal(member_name_check("/etc/passwd", 11, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "absolute"));
	assert_int_equal(member_name_check("tree/../x", 9, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "\"..\""));
	/* a NUL inside the name, a name past 4095 bytes, a component past 255 */
	assert_int_equal(member_name_check("tree/a\0b", 8, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "NUL"));
	char *longname = xmalloc(5000);
	memset(longname, 'a', 4999);
	longname[4999] = '\0';
	for (size_t k = 100; k < 4999; k += 100)
		longname[k] = '/';
	assert_int_equal(member_name_check(longname, 4999, why, sizeof(why)), -EINVAL);
	longname[300] = '\0';
	assert_int_equal(member_name_check(longname, 300, why, sizeof(why)), 0);
	memset(longname, 'b', 256);
	longname[256] = '\0';
	assert_int_equal(member_name_check(longname, 256, why, sizeof(why)), -EINVAL);
	free(longname);
}

static void test_member_links(void **state)
{
	(void)state;
	static const char *const allowed[] = {
		"tree/proc/1/fd/0", "tree/proc/4100/fd/3", "tree/proc/1/task/7/fd/12",
		"tree/proc/1/cwd", "tree/proc/1/root", "tree/proc/1/exe", "tree/proc/5/task/5/cwd",
	};
	static const char *const not_allowed[] = {
		"tree/proc/1/stat", "tree/proc/self/fd/1", "tree/proc/1/fd/x", "tree/proc/1/fd/",
		"tree/proc/1/fd/1/x", "tree/proc/x1/fd/1", "tree/sys/fd/1", "proc/1/fd/1",
		"tree/proc/1/task/fd/1", "tree/proc/1/cwdx", "tree/proc//fd/1", "tree/proc/1/fd",
		"tree/proc/1/task/2/task/3/fd/1", "tree/dev/kmsg",
	};
	for (size_t i = 0; i < ARRAY_SIZE(allowed); i++)
		if (!member_link_allowed(allowed[i])) {
			print_error("not allowed: %s\n", allowed[i]);
			fail();
		}
	for (size_t i = 0; i < ARRAY_SIZE(not_allowed); i++)
		if (member_link_allowed(not_allowed[i])) {
			print_error("allowed: %s\n", not_allowed[i]);
			fail();
		}
	char why[256];
	/* at a link position the target is a name: absolute, anything */
	assert_int_equal(member_link_check("tree/proc/1/fd/3", "/home/u/x", why, sizeof(why)), 0);
	assert_int_equal(member_link_check("tree/proc/1/fd/3", "pipe:[5]", why, sizeof(why)), 0);
	assert_int_equal(member_link_check("tree/proc/1/fd/3", "", why, sizeof(why)), -EINVAL);
	/* elsewhere: never, and out of the tree said so */
	assert_int_equal(member_link_check("tree/proc/1/stat", "/etc/passwd", why, sizeof(why)),
	                 -EINVAL);
	assert_non_null(strstr(why, "outside the tree (absolute)"));
	assert_int_equal(member_link_check("tree/x", "a/../../..", why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "outside the tree (..)"));
	assert_int_equal(member_link_check("tree/x", "..", why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "outside the tree (..)"));
	assert_int_equal(member_link_check("tree/x", "proc/1", why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "only as a task's"));
	assert_int_equal(member_link_check("tree/x", NULL, why, sizeof(why)), -EINVAL);
}

static void test_sha256(void **state)
{
	(void)state;
	char h[65];
	sha256_hex("", 0, h);
	assert_string_equal(h, "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
	sha256_hex("abc", 3, h);
	assert_string_equal(h, "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

static void fill(struct bundle_manifest *m)
{
	memset(m, 0, sizeof(*m));
	m->version = xstrdup("0.1.0");
	m->host = xstrdup("web-03\n\xff");
	m->kernel = xstrdup("6.18.44");
	m->root = xstrdup("/srv/capture");
	m->start = xstrdup("2026-12-01T10:00:00Z");
	m->end = xstrdup("2026-12-01T10:00:01Z");
	m->check_exit = 1;
	m->max_file_mib = 16;
	m->max_mib = 256;
	char h[65];
	sha256_hex("x", 1, h);
	assert_int_equal(manifest_add(m, "tree", BM_DIR, 0, h, NULL), 0);
	assert_int_equal(manifest_add(m, "tree/proc/1/stat", BM_FILE, 1, h, NULL), 0);
	assert_int_equal(manifest_add(m, "tree/proc/1/fd/3", BM_SYMLINK, 9, h, "/home/u/x"), 0);
	assert_int_equal(manifest_note(m, false, "tree/proc/1/stack", 0, "timed out after 2 s"), 0);
	assert_int_equal(manifest_note(m, true, "tree/proc/big", 1 << 30, "larger than max"), 0);
}

/* What a member costs a replay's tmpfs: a file's data in whole pages, an inode and its name
 * for every member (100,000 one-byte files: 522 MB, not 100 KB). */
static void test_member_cost(void **state)
{
	(void)state;
	static const struct {
		enum bm_type t;
		uint64_t size;
		size_t namelen;
		uint64_t cost;
	} c[] = {
		{ BM_FILE, 0, 10, 1024 + 10 },
		{ BM_FILE, 1, 10, 4096 + 1024 + 10 },
		{ BM_FILE, 4096, 0, 4096 + 1024 },
		{ BM_FILE, 4097, 0, 8192 + 1024 },
		{ BM_FILE, 16u << 20, 0, (16u << 20) + 1024 },
		{ BM_SYMLINK, 11, 20, 11 + 1024 + 20 },
		{ BM_DIR, 0, 9, 1024 + 9 },
		{ BM_DIR, 123, 9, 1024 + 9 },    /* a directory's data, if any, is never kept */
	};
	for (size_t i = 0; i < sizeof(c) / sizeof(c[0]); i++)
		assert_int_equal(bundle_member_cost(c[i].t, c[i].size, c[i].namelen), c[i].cost);
	/* 100,000 one-byte files cost a replay more than 256 MiB, their bytes 100 KB */
	assert_true(100000 * bundle_member_cost(BM_FILE, 1, 16) > (256u << 20));
}

static void test_manifest_roundtrip(void **state)
{
	(void)state;
	struct bundle_manifest m, back;
	fill(&m);
	size_t len;
	char *text = manifest_json(&m, &len);
	assert_non_null(text);
	assert_int_equal(strlen(text), len);
	assert_null(strchr(text, '\xff'));          /* printed JSON holds no raw stray byte */
	char why[256] = "";
	if (manifest_parse(text, len, &back, why, sizeof(why)) != 0) {
		print_error("%s\n", why);
		fail();
	}
	assert_string_equal(back.version, "0.1.0");
	assert_string_equal(back.host, "web-03\n\\xff");
	assert_string_equal(back.start, "2026-12-01T10:00:00Z");
	assert_string_equal(back.end, "2026-12-01T10:00:01Z");
	assert_int_equal(back.check_exit, 1);
	assert_near(back.max_mib, 256, 0);
	assert_int_equal(back.n, 3);
	assert_int_equal(back.m[0].type, BM_DIR);
	assert_string_equal(back.m[1].path, "tree/proc/1/stat");
	assert_int_equal(back.m[1].size, 1);
	assert_string_equal(back.m[1].sha256, m.m[1].sha256);
	assert_int_equal(back.m[2].type, BM_SYMLINK);
	assert_string_equal(back.m[2].target, "/home/u/x");
	assert_int_equal(back.nunreadable, 1);
	assert_string_equal(back.unreadable[0].why, "timed out after 2 s");
	assert_int_equal(back.nleft_out, 1);
	assert_int_equal(back.left_out[0].size, 1 << 30);
	/* what an archive holding exactly these members is: no problem */
	struct strbuf out = { 0 };
	assert_int_equal(manifest_compare(&back, m.m, m.n, &out), 0);
	sb_free(&out);
	manifest_free(&back);
	manifest_free(&m);
	free(text);
}

/* Found by fuzz-manifest: a name whose component is 200 bytes that are not UTF-8 is listed as
 * 800 characters (\xNN each), and must read back; raw bytes that are not UTF-8 in the text
 * are no name cgwatch lists, and are refused. */
static void test_manifest_escaped_names(void **state)
{
	(void)state;
	struct bundle_manifest m, back;
	memset(&m, 0, sizeof(m));
	char name[256] = "tree/";
	memset(name + 5, '\xff', 200);
	name[205] = '\0';
	char h[65];
	sha256_hex("", 0, h);
	assert_int_equal(manifest_add(&m, name, BM_FILE, 0, h, NULL), 0);
	size_t len;
	char *text = manifest_json(&m, &len);
	char why[256] = "";
	if (manifest_parse(text, len, &back, why, sizeof(why)) != 0) {
		print_error("%s\n", why);
		fail();
	}
	assert_int_equal(strlen(back.m[0].path), 5 + 4 * 200);
	assert_int_equal(strncmp(back.m[0].path, "tree/\\xff\\xff", 13), 0);
	manifest_free(&back);
	free(text);
	manifest_free(&m);
	static const char raw[] = "{\"schema\":\"cgwatch.bundle/1\",\"members\":[{\"path\":\"tree/\xff\","
	                          "\"size\":0,\"sha256\":\"e3b0c44298fc1c149afbf4c8996fb92427ae41e46"
	                          "49b934ca495991b7852b855\"}]}";
	assert_int_equal(manifest_parse(raw, strlen(raw), &back, why, sizeof(why)), -EINVAL);
	assert_non_null(strstr(why, "not UTF-8"));
}

static void test_manifest_refused(void **state)
{
	(void)state;
	static const char *const bad[] = {
		"", "{", "[]", "null", "{}", "{\"schema\":\"cgwatch.bundle/2\",\"members\":[]}",
		"{\"schema\":\"cgwatch.bundle/1\"}",
		"{\"schema\":\"cgwatch.bundle/1\",\"members\":{}}",
		"{\"schema\":\"cgwatch.bundle/1\",\"members\":[1]}",
		"{\"schema\":\"cgwatch.bundle/1\",\"members\":[{\"size\":1,\"sha256\":\"" "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"}]}",
		"{\"schema\":\"cgwatch.bundle/1\",\"members\":[{\"path\":\"../x\",\"size\":1,\"sha256\":\"" "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"}]}",
		"{\"schema\":\"cgwatch.bundle/1\",\"members\":[{\"path\":\"/x\",\"size\":1,\"sha256\":\"" "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"}]}",
		"{\"schema\":\"cgwatch.bundle/1\",\"members\":[{\"path\":\"x\",\"size\":-1,\"sha256\":\"" "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"}]}",
		"{\"schema\":\"cgwatch.bundle/1\",\"members\":[{\"path\":\"x\",\"size\":1.5,\"sha256\":\"" "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"}]}",
		"{\"schema\":\"cgwatch.bundle/1\",\"members\":[{\"path\":\"x\",\"size\":\"1\",\"sha256\":\"" "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"}]}",
		"{\"schema\":\"cgwatch.bundle/1\",\"members\":[{\"path\":\"x\",\"size\":1,\"sha256\":\"" "E3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"}]}",
		"{\"schema\":\"cgwatch.bundle/1\",\"members\":[{\"path\":\"x\",\"size\":1,\"sha256\":\"" "e3b0\"}]}",
		"{\"schema\":\"cgwatch.bundle/1\",\"members\":[{\"path\":\"x\",\"size\":1,\"type\":\"fifo\",\"sha256\":\"" "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"}]}",
		"{\"schema\":\"cgwatch.bundle/1\",\"members\":[{\"path\":\"x\",\"size\":1,\"type\":\"symlink\",\"sha256\":\"" "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"}]}",
		"{\"schema\":\"cgwatch.bundle/1\",\"members\":[{\"path\":\"x\",\"size\":1,\"target\":\"y\",\"sha256\":\"" "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855\"}]}",
		"{\"schema\":\"cgwatch.bundle/1\",\"members\":[],\"unreadable\":[{\"path\":1}]}",
		"{\"schema\":\"cgwatch.bundle/1\",\"members\":[],\"left_out\":[{\"path\":\"x\",\"why\":\"y\",\"size\":-2}]}",
		"{\"schema\":\"cgwatch.bundle/1\",\"members\":[]} x",
		"{\"schema\":\"cgwatch.bundle/1\",\"members\":[],\"x\":" "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]]}",
	};
	for (size_t i = 0; i < ARRAY_SIZE(bad); i++) {
		struct bundle_manifest m;
		char why[256] = "";
		if (manifest_parse(bad[i], strlen(bad[i]), &m, why, sizeof(why)) != -EINVAL) {
			print_error("accepted \"%s\"\n", esc(bad[i]));
			manifest_free(&m);
			fail();
		}
		assert_true(why[0] != '\0');
		assert_int_equal(m.n, 0);
	}
}

static void test_manifest_compare(void **state)
{
	(void)state;
	struct bundle_manifest m;
	fill(&m);
	struct bundle_member seen[5];
	memcpy(seen, m.m, 3 * sizeof(*seen));
	char other[65];
	sha256_hex("y", 1, other);
	/* the stat changed (same size), the fd link lost, an extra member and one twice */
	struct bundle_member st = seen[1];
	memcpy(st.sha256, other, sizeof(other));
	seen[1] = st;
	seen[2] = (struct bundle_member){ .path = "tree/proc/extra", .type = BM_FILE, .size = 1 };
	memcpy(seen[2].sha256, other, sizeof(other));
	seen[3] = seen[2];
	struct strbuf out = { 0 };
	size_t n = manifest_compare(&m, seen, 4, &out);
	const char *t = out.s ? out.s : "";
	if (n != 4 || !strstr(t, "sha256: tree/proc/1/stat:") ||
	    !strstr(t, "missing: tree/proc/1/fd/3:") || !strstr(t, "extra: tree/proc/extra:") ||
	    !strstr(t, "duplicate: tree/proc/extra:")) {
		print_error("%zu problems:\n%s", n, t);
		fail();
	}
	sb_free(&out);
	/* a size and a type differ */
	memcpy(seen, m.m, 3 * sizeof(*seen));
	seen[1].size = 2;
	seen[0].type = BM_FILE;
	n = manifest_compare(&m, seen, 3, &out);
	t = out.s ? out.s : "";
	if (n != 2 || !strstr(t, "size: tree/proc/1/stat: 1 bytes in the manifest, 2 in the archive") ||
	    !strstr(t, "type: tree: a directory in the manifest, a file in the archive")) {
		print_error("%zu problems:\n%s", n, t);
		fail();
	}
	sb_free(&out);
	/* a link's target */
	memcpy(seen, m.m, 3 * sizeof(*seen));
	seen[2].target = "/elsewhere";
	assert_int_equal(manifest_compare(&m, seen, 3, &out), 1);
	assert_non_null(strstr(out.s, "target: tree/proc/1/fd/3"));
	sb_free(&out);
	manifest_free(&m);
}

/* The dump of the effective configuration is a configuration: read back, the same values. */
static void test_conf_dump(void **state)
{
	(void)state;
	struct cgw_conf c, back;
	conf_defaults(&c);
	c.bundle_max_file_mib = 3;
	c.bundle_max_mib = 77;
	c.read_timeout_s = 0.5;
	free(c.metrics_file);
	c.metrics_file = xstrdup("/run/x.prom");
	size_t len;
	char *text = conf_dump(&c, &len);
	assert_non_null(text);
	assert_non_null(strstr(text, "[bundle]\nmax_file_size = 3\nmax_size = 77\n"
	                             "max_members = 200000\n"));
	char dir[64];
	tmpdir_make(dir, sizeof(dir));
	tmpdir_put(dir, "dump.conf", text);
	char p[128];
	snprintf(p, sizeof(p), "%s/dump.conf", dir);
	conf_defaults(&back);
	struct errbuf e;
	assert_int_equal(conf_read_file(&back, p, errbuf_open(&e)), 0);
	assert_string_equal(errbuf_text(&e), "");
	errbuf_close(&e);
	assert_near(back.bundle_max_file_mib, 3, 0);
	assert_near(back.bundle_max_mib, 77, 0);
	assert_near(back.read_timeout_s, 0.5, 0);
	assert_string_equal(back.metrics_file, "/run/x.prom");
	assert_int_equal(back.io_class, c.io_class);
	assert_int_equal(back.lock_memory, c.lock_memory);
	free(text);
	conf_free(&c);
	conf_free(&back);
	tmpdir_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_member_names),
		cmocka_unit_test(test_member_links),
		cmocka_unit_test(test_sha256),
		cmocka_unit_test(test_member_cost),
		cmocka_unit_test(test_manifest_roundtrip),
		cmocka_unit_test(test_manifest_escaped_names),
		cmocka_unit_test(test_manifest_refused),
		cmocka_unit_test(test_manifest_compare),
		cmocka_unit_test(test_conf_dump),
	};
	return tmpdir_cleanup_all(cmocka_run_group_tests(tests, NULL, NULL));
}
