/* test-elf.c: naming user-space frames from ELF files (parse-elf.c, source-elf.c), on binaries
 * compiled here at test time (tests/unit/elf/prog.c and libx.c, -O2 -g): the program as built
 * (.symtab), stripped (nothing but module + offset), stripped with its debug file found by
 * .gnu_debuglink (beside it, in .debug/, under the debug root) and by build-id, with no
 * build-id (the debuglink CRC), with a debug file of another build (refused); the shared
 * library stripped (.dynsym only: the static function between two exported ones is not named
 * after either); truncated and corrupted images; the cache. Each function's file offset is
 * what the program itself printed from /proc/self/maps, as the unwinder will give it. */
#include <elf.h>
#include <fcntl.h>
#include <inttypes.h>
#include <limits.h>
#include <sys/stat.h>
#include <sys/wait.h>

#include "unit.h"

static char dir[64];                     /* the binaries */
static char root[300];                   /* the debug root */
static bool built;

/* the offsets prog printed: file, name, offset */
struct fn { char file[32], name[32]; uint64_t off; };
static struct fn fns[16];
static size_t nfns;

static int run(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static int run(const char *fmt, ...)
{
	char cmd[4096];
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(cmd, sizeof(cmd), fmt, ap);
	va_end(ap);
	int rc = system(cmd);
	if (rc != 0)
		fprintf(stderr, "# failed (%d): %s\n", rc, cmd);
	return rc;
}

static uint64_t fn_off(const char *name)
{
	for (size_t i = 0; i < nfns; i++)
		if (strcmp(fns[i].name, name) == 0)
			return fns[i].off;
	fail_msg("no offset printed for %s", name);
	return 0;
}

static int setup(void **state)
{
	(void)state;
	char rel[512], src[PATH_MAX], lib[PATH_MAX];
	if (!unit_srcpath("tests/unit/elf/prog.c", rel, sizeof(rel)) || !realpath(rel, src) ||
	    !unit_srcpath("tests/unit/elf/libx.c", rel, sizeof(rel)) || !realpath(rel, lib))
		return 0;
	if (run("command -v cc >/dev/null && command -v strip >/dev/null && "
	        "command -v objcopy >/dev/null") != 0)
		return 0;
	snprintf(dir, sizeof(dir), "/tmp/cgw-unit-XXXXXX");
	if (!mkdtemp(dir))
		return -1;
	struct unit_tmpdirs *t = unit_tmpdirs();
	snprintf(t->path[t->n++], sizeof(t->path[0]), "%s", dir);
	snprintf(root, sizeof(root), "%s/debugroot", dir);
	/* the library, then the program linked to it; non-PIE, so its file offsets and
	 * addresses differ (0x401000 is at offset 0x1000) */
	if (run("cd %s && mkdir debugroot && "
	        "cc -O2 -g -fPIC -shared -fno-toplevel-reorder -o libx.so %s && "
	        "cc -O2 -g -no-pie -o prog %s -L. -lx -Wl,-rpath,%s && "
	        "./prog > offsets && "
	        "cc -O2 -g -no-pie -Wl,--build-id=none -o prognb %s -L. -lx -Wl,-rpath,%s && "
	        "cc -O2 -g -no-pie -DOTHER=1 -o other %s -L. -lx -Wl,-rpath,%s -Wl,--build-id=sha1 && "
	        "strip -o libx.stripped.so libx.so && "
	        "strip -o prog.stripped prog && "
	        "objcopy --only-keep-debug prog prog.debug && "
	        "objcopy --only-keep-debug other other.debug && "
	        "objcopy --only-keep-debug prognb prognb.debug && "
	        "mkdir link dot dot/.debug rootlink wrong && "
	        "strip -o link/prog prog && cp prog.debug link/ && "
	        "objcopy --add-gnu-debuglink=prog.debug link/prog && "
	        "cp link/prog dot/prog && cp prog.debug dot/.debug/ && "
	        "cp link/prog rootlink/prog && mkdir -p debugroot%s/rootlink && "
	        "cp prog.debug debugroot%s/rootlink/ && "
	        "strip -o nb.stripped prognb && objcopy --add-gnu-debuglink=prognb.debug nb.stripped && "
	        "cp other.debug wrong/prognb.debug && cp nb.stripped wrong/",
	        dir, lib, src, dir, src, dir, src, dir, dir, dir) != 0)
		return 0;
	char p[512];
	snprintf(p, sizeof(p), "%s/offsets", dir);
	FILE *f = fopen(p, "r");
	if (!f)
		return -1;
	struct fn x;
	while (nfns < ARRAY_SIZE(fns) &&
	       fscanf(f, "%31s %31s %" SCNx64, x.file, x.name, &x.off) == 3)
		fns[nfns++] = x;
	fclose(f);
	built = nfns == 7;
	return 0;
}

static int teardown(void **state)
{
	(void)state;
	elfsym_cache_clear();
	elfsym_set_debug_root(NULL);
	dl_reset();                            /* the deadline worker exits: valgrind sees no thread */
	usleep(100000);
	return tmpdir_cleanup_all(0);
}

#define NEED_BUILT() do { if (!built) skip(); } while (0)

/* Look up name's offset + delta in file (under dir) and check the answer. */
static void expect(const char *file, const char *name, uint64_t delta, enum elfsym_from from,
                   const char *want)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, file);
	struct elf_sym s;
	int r = elfsym_name(p, fn_off(name) + delta, &s, 5000);
	if (r != 0)
		fail_msg("%s %s+%" PRIu64 ": %d (%s)", file, name, delta, r, s.why);
	if (s.from != from || strcmp(s.name, want) != 0)
		fail_msg("%s %s+%" PRIu64 ": got %s \"%s\" (%s), want %s \"%s\"", file, name, delta,
		         elfsym_from_name(s.from), s.name, s.why, elfsym_from_name(from), want);
	if (from != ELFSYM_NONE) {
		assert_int_equal(s.off, delta);
		assert_true(s.exact);
		assert_true(s.size > delta);
	} else {
		assert_true(s.why[0] != '\0');
	}
	assert_true(s.have_vaddr);
}

/* The whole of file into *data; its size. */
static size_t slurp(const char *file, uint8_t **data)
{
	char p[512];
	snprintf(p, sizeof(p), "%s/%s", dir, file);
	int fd = open(p, O_RDONLY);
	assert_true(fd >= 0);
	struct stat st;
	assert_int_equal(fstat(fd, &st), 0);
	*data = xmalloc((size_t)st.st_size);
	assert_int_equal(read(fd, *data, (size_t)st.st_size), st.st_size);
	close(fd);
	return (size_t)st.st_size;
}

/* img's section header i. */
static Elf64_Shdr *shdr(uint8_t *img, size_t i)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	return (Elf64_Shdr *)(img + eh->e_shoff + i * sizeof(Elf64_Shdr));
}

static size_t find_sec(uint8_t *img, uint32_t type)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	for (size_t i = 0; i < eh->e_shnum; i++)
		if (shdr(img, i)->sh_type == type)
			return i;
	fail_msg("no section of type %u", type);
	return 0;
}

/* img's section called name. */
static Elf64_Shdr *sec_named(uint8_t *img, const char *name)
{
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	const char *names = (const char *)img + shdr(img, eh->e_shstrndx)->sh_offset;
	for (size_t i = 0; i < eh->e_shnum; i++)
		if (strcmp(names + shdr(img, i)->sh_name, name) == 0)
			return shdr(img, i);
	fail_msg("no section %s", name);
	return NULL;
}

static void test_symtab(void **state)
{
	(void)state;
	NEED_BUILT();
	static const char *const names[] = { "prog_outer", "prog_static", "prog_last", "main" };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++) {
		expect("prog", names[i], 0, ELFSYM_SYMTAB, names[i]);
		expect("prog", names[i], 5, ELFSYM_SYMTAB, names[i]);
	}
	/* the library as built: its static function by its own name */
	expect("libx.so", "helper_mid", 3, ELFSYM_SYMTAB, "helper_mid");
	expect("libx.so", "api_first", 1, ELFSYM_SYMTAB, "api_first");
	/* the PLT follows _init, which has no size: not named after it */
	uint8_t *img;
	slurp("prog", &img);
	uint64_t plt = sec_named(img, ".plt")->sh_offset;
	free(img);
	char p[512], txt[256];
	struct elf_sym s;
	snprintf(p, sizeof(p), "%s/prog", dir);
	for (uint64_t k = 0; k < 32; k += 4) {
		assert_int_equal(elfsym_name(p, plt + k, &s, 5000), 0);
		if (s.from != ELFSYM_NONE)
			fail_msg("PLT+%" PRIu64 " named %s", k, s.name);
	}
	/* the address is the link-time one (non-PIE: 0x400000 above the offset), and the
	 * text says so with the name */
	assert_int_equal(elfsym_name(p, fn_off("prog_static") + 2, &s, 5000), 0);
	assert_int_equal(s.vaddr, fn_off("prog_static") + 2 + 0x400000);
	assert_int_equal(strlen(s.build_id), 40);
	assert_string_equal(elfsym_format(&s, "prog", txt, sizeof(txt)), "prog_static+0x2");
}

static void test_stripped(void **state)
{
	(void)state;
	NEED_BUILT();
	static const char *const names[] = { "prog_outer", "prog_static", "prog_last", "main" };
	for (size_t i = 0; i < ARRAY_SIZE(names); i++)
		expect("prog.stripped", names[i], 1, ELFSYM_NONE, "");
	char p[512], txt[256], want[64];
	struct elf_sym s;
	snprintf(p, sizeof(p), "%s/prog.stripped", dir);
	assert_int_equal(elfsym_name(p, fn_off("prog_outer"), &s, 5000), 0);
	snprintf(want, sizeof(want), "prog+0x%" PRIx64, fn_off("prog_outer") + 0x400000);
	assert_string_equal(elfsym_format(&s, "prog", txt, sizeof(txt)), want);
	assert_non_null(strstr(s.why, "no symbol table"));
}

static void test_debuglink(void **state)
{
	(void)state;
	NEED_BUILT();
	/* beside the binary, in its .debug/, and under the debug root by its directory */
	elfsym_set_debug_root(root);
	expect("link/prog", "prog_static", 4, ELFSYM_DEBUG, "prog_static");
	expect("dot/prog", "prog_static", 4, ELFSYM_DEBUG, "prog_static");
	expect("rootlink/prog", "prog_last", 0, ELFSYM_DEBUG, "prog_last");
	/* a path relative to the working directory: its debug file beside it */
	char cwd[PATH_MAX], here[600];
	assert_non_null(getcwd(cwd, sizeof(cwd)));
	snprintf(here, sizeof(here), "%s/link", dir);
	assert_int_equal(chdir(here), 0);
	elfsym_cache_clear();
	struct elf_sym s;
	int r = elfsym_name("prog", fn_off("prog_static") + 1, &s, 5000);
	assert_int_equal(chdir(cwd), 0);
	assert_int_equal(r, 0);
	assert_int_equal(s.from, ELFSYM_DEBUG);
	assert_string_equal(s.name, "prog_static");
	/* no build-id: the debuglink's CRC matches */
	expect("nb.stripped", "prog_outer", 2, ELFSYM_DEBUG, "prog_outer");
	/* a debug file of another build by the same name: its CRC does not match */
	expect("wrong/nb.stripped", "prog_outer", 2, ELFSYM_NONE, "");
	elfsym_set_debug_root(NULL);
}

static void test_build_id(void **state)
{
	(void)state;
	NEED_BUILT();
	char p[512], hex[2 * ELF_BUILD_ID_MAX + 1];
	struct elf_sym s;
	snprintf(p, sizeof(p), "%s/prog.stripped", dir);
	assert_int_equal(elfsym_name(p, fn_off("prog_outer"), &s, 5000), 0);
	assert_int_equal(s.from, ELFSYM_NONE);
	snprintf(hex, sizeof(hex), "%s", s.build_id);
	assert_int_equal(strlen(hex), 40);
	elfsym_set_debug_root(root);
	/* another build's debug file at this build-id's path is refused */
	assert_int_equal(run("mkdir -p %s/.build-id/%.2s && cp %s/other.debug %s/.build-id/%.2s/%s.debug",
	                     root, hex, dir, root, hex, hex + 2), 0);
	elfsym_cache_clear();
	expect("prog.stripped", "prog_outer", 1, ELFSYM_NONE, "");
	assert_int_equal(run("cp %s/prog.debug %s/.build-id/%.2s/%s.debug", dir, root, hex, hex + 2), 0);
	elfsym_cache_clear();
	expect("prog.stripped", "prog_outer", 1, ELFSYM_DEBUG, "prog_outer");
	expect("prog.stripped", "prog_static", 7, ELFSYM_DEBUG, "prog_static");
	expect("prog.stripped", "main", 0, ELFSYM_DEBUG, "main");
	assert_int_equal(run("rm -r %s/.build-id", root), 0);
	elfsym_set_debug_root(NULL);
	elfsym_cache_clear();
}

static void test_dynsym_only(void **state)
{
	(void)state;
	NEED_BUILT();
	/* the order the library was built in holds: first < helper < last */
	assert_true(fn_off("api_first") < fn_off("helper_mid"));
	assert_true(fn_off("helper_mid") < fn_off("api_last"));
	expect("libx.stripped.so", "api_first", 0, ELFSYM_DYNSYM, "api_first");
	expect("libx.stripped.so", "api_first", 3, ELFSYM_DYNSYM, "api_first");
	expect("libx.stripped.so", "api_last", 2, ELFSYM_DYNSYM, "api_last");
	/* the static function between them: not api_first, whose size does not cover it */
	expect("libx.stripped.so", "helper_mid", 0, ELFSYM_NONE, "");
	expect("libx.stripped.so", "helper_mid", 4, ELFSYM_NONE, "");
	char p[512], txt[256];
	struct elf_sym s;
	snprintf(p, sizeof(p), "%s/libx.stripped.so", dir);
	assert_int_equal(elfsym_name(p, fn_off("api_last") + 1, &s, 5000), 0);
	assert_string_equal(elfsym_format(&s, "libx.so", txt, sizeof(txt)),
	                    "api_last+0x1 (nearest exported symbol)");
	assert_int_equal(elfsym_name(p, fn_off("helper_mid") + 1, &s, 5000), 0);
	assert_non_null(strstr(s.why, "exported"));
}

static void test_truncated(void **state)
{
	(void)state;
	NEED_BUILT();
	uint8_t *img;
	size_t n = slurp("prog", &img);
	struct elf_info e;
	/* every prefix of the headers, then every 61st length: an error or a parse whose
	 * tables are what fits, never a read past the end (valgrind, ASan) */
	for (size_t len = 0; len < n; len += len < 256 ? 1 : 61) {
		uint8_t *cut = xmalloc(len ? len : 1);
		memcpy(cut, img, len);
		int r = elf_parse_mem(cut, len, 1 << 20, &e);
		if (len < 4)
			assert_int_equal(r, -ENOEXEC);
		else if (len < 64)
			assert_int_equal(r, -EINVAL);
		if (r < 0)
			assert_true(e.why[0] != '\0');
		else
			assert_true(e.nload > 0);
		elf_info_free(&e);
		free(cut);
	}
	/* cut before its section headers (at the end of the file): refused, and why */
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	assert_int_equal(elf_parse_mem(img, (size_t)eh->e_shoff + 10, 1 << 20, &e), -EINVAL);
	assert_non_null(strstr(e.why, "section header"));
	elf_info_free(&e);
	/* the same through a file on disk */
	char p[512];
	snprintf(p, sizeof(p), "%s/cut", dir);
	int fd = open(p, O_WRONLY | O_CREAT | O_TRUNC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, img, 200), 200);
	close(fd);
	struct elf_sym s;
	assert_int_equal(elfsym_name(p, 0x1000, &s, 5000), -EINVAL);
	assert_true(s.why[0] != '\0');
	free(img);
}

static void test_corrupt(void **state)
{
	(void)state;
	NEED_BUILT();
	uint8_t *img, *c;
	size_t n = slurp("prog", &img);
	c = xmalloc(n);
	struct elf_info e;
	Elf64_Ehdr *eh = (Elf64_Ehdr *)c;

	/* intact: both tables, a build-id, four or more segments */
	assert_int_equal(elf_parse_mem(img, n, 1 << 20, &e), 0);
	assert_true(e.symtab.present && e.dynsym.present && e.build_id_len == 20);
	assert_true(e.nload >= 2);
	elf_info_free(&e);

#define CORRUPT(stmt, want, text) do { \
		memcpy(c, img, n); \
		stmt; \
		assert_int_equal(elf_parse_mem(c, n, 1 << 20, &e), want); \
		if (!strstr(e.why, text)) \
			fail_msg("why \"%s\" lacks \"%s\"", e.why, text); \
		elf_info_free(&e); \
	} while (0)

	CORRUPT(c[EI_CLASS] = ELFCLASS32, -ENOEXEC, "64");
	CORRUPT(c[EI_DATA] = ELFDATA2MSB, -ENOEXEC, "little-endian");
	CORRUPT(c[0] = 'X', -ENOEXEC, "not an ELF");
	CORRUPT(eh->e_type = ET_REL, -ENOEXEC, "type");
	CORRUPT(eh->e_phoff = (uint64_t)-8, -EINVAL, "program header");
	CORRUPT(eh->e_phnum = 0xfff0, -EINVAL, "program header");
	CORRUPT(eh->e_phentsize = 12, -EINVAL, "program header");
	CORRUPT(eh->e_shoff = n - 3, -EINVAL, "section header");
	CORRUPT(eh->e_shentsize = 7, -EINVAL, "section header");
	CORRUPT(eh->e_shstrndx = 0xfff0, -EINVAL, "section name");
	/* a table that points outside the file, or at no string table: that table left out,
	 * the rest kept */
	size_t st = find_sec(img, SHT_SYMTAB);
	CORRUPT(shdr(c, st)->sh_offset = (uint64_t)-100, 0, "symtab");
	CORRUPT(shdr(c, st)->sh_size = n * 4, 0, "symtab");
	CORRUPT(shdr(c, st)->sh_link = 0xffff, 0, "symtab");
	CORRUPT(shdr(c, st)->sh_link = st, 0, "symtab");
	CORRUPT(shdr(c, st)->sh_entsize = 16, 0, "symtab");
	memcpy(c, img, n);
	shdr(c, st)->sh_offset = (uint64_t)-100;
	assert_int_equal(elf_parse_mem(c, n, 1 << 20, &e), 0);
	assert_false(e.symtab.present);
	assert_true(e.dynsym.present);
	elf_info_free(&e);
	/* a string table without its final NUL: names that run to its end are not taken */
	size_t str = shdr(img, st)->sh_link;
	memcpy(c, img, n);
	c[shdr(c, str)->sh_offset + shdr(c, str)->sh_size - 1] = 'x';
	assert_int_equal(elf_parse_mem(c, n, 1 << 20, &e), 0);
	for (size_t i = 0; i < e.symtab.n; i++)
		assert_true(e.symtab.f[i].name < e.symtab.names_len &&
		            memchr(e.symtab.names + e.symtab.f[i].name, 0,
		                   e.symtab.names_len - e.symtab.f[i].name));
	elf_info_free(&e);
	/* a build-id note claiming more bytes than the note holds */
	size_t k;
	for (k = 0; k < eh->e_shnum; k++) {
		memcpy(c, img, n);
		if (shdr(c, k)->sh_type == SHT_NOTE && c[shdr(c, k)->sh_offset + 8] == NT_GNU_BUILD_ID)
			break;
	}
	assert_true(k < eh->e_shnum);
	CORRUPT(*(uint32_t *)(c + shdr(c, k)->sh_offset + 4) = 0x7fffffff, 0, "");
	memcpy(c, img, n);
	*(uint32_t *)(c + shdr(c, k)->sh_offset + 4) = 0x7fffffff;
	assert_int_equal(elf_parse_mem(c, n, 1 << 20, &e), 0);
	assert_int_equal(e.build_id_len, 0);
	elf_info_free(&e);
	/* a table over the memory allowed: left out, said so */
	assert_int_equal(elf_parse_mem(img, n, 64, &e), 0);
	assert_true(e.symtab.too_big && !e.symtab.present);
	assert_non_null(strstr(e.why, "memory"));
	elf_info_free(&e);
	free(c);
	free(img);
}

/* Segments whose file bytes overlap: code is at the executable one's address. */
static void test_overlap(void **state)
{
	(void)state;
	NEED_BUILT();
	uint8_t *img;
	size_t n = slurp("libx.so", &img);
	Elf64_Ehdr *eh = (Elf64_Ehdr *)img;
	Elf64_Phdr *ph = (Elf64_Phdr *)(img + eh->e_phoff), *x = NULL, *w = NULL;
	for (size_t i = 0; i < eh->e_phnum; i++) {
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_X))
			x = &ph[i];
		if (ph[i].p_type == PT_LOAD && (ph[i].p_flags & PF_W))
			w = &ph[i];
	}
	assert_non_null(x);
	assert_non_null(w);
	/* the writable segment listed first and stretched over the code's file bytes, at
	 * another address */
	Elf64_Phdr wx = *w;
	wx.p_offset = x->p_offset;
	wx.p_filesz = x->p_filesz + 64;
	wx.p_vaddr = x->p_vaddr + 0x100000;
	*w = ph[0];
	ph[0] = wx;
	struct elf_info e;
	uint64_t va;
	assert_int_equal(elf_parse_mem(img, n, 1 << 20, &e), 0);
	assert_int_equal(elf_vaddr_of(&e, fn_off("api_first") + 2, &va), 0);
	assert_int_equal(va, x->p_vaddr + (fn_off("api_first") + 2 - x->p_offset));
	elf_info_free(&e);
	free(img);
}

static void test_debuglink_name(void **state)
{
	(void)state;
	NEED_BUILT();
	uint8_t *img;
	size_t n = slurp("link/prog", &img);
	struct elf_info e;
	assert_int_equal(elf_parse_mem(img, n, 1 << 20, &e), 0);
	assert_true(e.have_debuglink);
	assert_string_equal(e.debuglink, "prog.debug");
	elf_info_free(&e);
	/* a name with a '/' (a path out of the debug directories) is not taken */
	uint8_t *p = memmem(img, n, "prog.debug", 11);
	assert_non_null(p);
	memcpy(p, "../../etc/x", 11);
	assert_int_equal(elf_parse_mem(img, n, 1 << 20, &e), 0);
	assert_false(e.have_debuglink);
	assert_non_null(strstr(e.why, "debuglink"));
	elf_info_free(&e);
	free(img);
}

static void test_files(void **state)
{
	(void)state;
	char d[64], p[300];
	struct elf_sym s;
	tmpdir_make(d, sizeof(d));
	assert_int_equal(elfsym_name(d, 0, &s, 1000), -EISDIR);
	snprintf(p, sizeof(p), "%s/fifo", d);
	assert_int_equal(mkfifo(p, 0600), 0);
	assert_int_equal(elfsym_name(p, 0, &s, 1000), -CGW_ENOTREG);   /* not opened, not waited */
	snprintf(p, sizeof(p), "%s/missing", d);
	assert_int_equal(elfsym_name(p, 0, &s, 1000), -ENOENT);
	assert_true(s.why[0] != '\0');
	tmpdir_put(d, "text", "#!/bin/sh\necho not an ELF file at all, but long enough to read\n");
	snprintf(p, sizeof(p), "%s/text", d);
	assert_int_equal(elfsym_name(p, 0, &s, 1000), -ENOEXEC);
	/* an offset in no loadable segment */
	if (built) {
		snprintf(p, sizeof(p), "%s/prog", dir);
		assert_int_equal(elfsym_name(p, 1ull << 40, &s, 1000), -ERANGE);
		assert_true(s.why[0] != '\0');
	}
}

static void test_cache(void **state)
{
	(void)state;
	NEED_BUILT();
	char p[512];
	struct elf_sym s;
	struct elfsym_stats a, b;
	elfsym_cache_clear();
	snprintf(p, sizeof(p), "%s/prog", dir);
	elfsym_stats(&a);
	assert_int_equal(elfsym_name(p, fn_off("prog_outer"), &s, 5000), 0);
	assert_int_equal(elfsym_name(p, fn_off("prog_last"), &s, 5000), 0);
	assert_string_equal(s.name, "prog_last");
	elfsym_stats(&b);
	assert_int_equal(b.parses - a.parses, 1);
	assert_int_equal(b.hits - a.hits, 1);
	assert_int_equal(b.files, 1);
	assert_true(b.bytes > 0 && b.bytes <= ELFSYM_CACHE_BYTES);
	/* the same binary by another path (a copy: same build-id) is not parsed again */
	assert_int_equal(run("cp %s/prog %s/prog.copy", dir, dir), 0);
	snprintf(p, sizeof(p), "%s/prog.copy", dir);
	assert_int_equal(elfsym_name(p, fn_off("prog_static"), &s, 5000), 0);
	assert_string_equal(s.name, "prog_static");
	elfsym_stats(&a);
	assert_int_equal(a.parses, b.parses);
	/* a file replaced by another build: parsed again, the new names */
	assert_int_equal(run("cp %s/libx.stripped.so %s/prog.copy", dir, dir), 0);
	assert_int_equal(elfsym_name(p, fn_off("api_first"), &s, 5000), 0);
	assert_string_equal(s.name, "api_first");
	elfsym_stats(&b);
	assert_int_equal(b.parses, a.parses + 1);
	/* a cap of a few hundred bytes keeps the newest file only */
	elfsym_set_cache_bytes(1);
	snprintf(p, sizeof(p), "%s/libx.so", dir);
	assert_int_equal(elfsym_name(p, fn_off("api_first"), &s, 5000), 0);
	elfsym_stats(&a);
	assert_true(a.files <= 1);
	/* its tables left out, and said so: no name, not "stripped" */
	assert_int_equal(s.from, ELFSYM_NONE);
	assert_non_null(strstr(s.why, "over the memory allowed"));
	elfsym_set_cache_bytes(0);
	elfsym_cache_clear();
	elfsym_stats(&a);
	assert_int_equal(a.files, 0);
	assert_int_equal(a.bytes, 0);
}

static void test_batch(void **state)
{
	(void)state;
	NEED_BUILT();
	char p[512];
	snprintf(p, sizeof(p), "%s/prog", dir);
	uint64_t offs[4] = { fn_off("prog_outer") + 1, 1ull << 40, fn_off("main"),
	                     fn_off("prog_static") + 3 };
	struct elf_sym s[4];
	assert_int_equal(elfsym_names(p, offs, 4, s, 5000), 0);
	assert_string_equal(s[0].name, "prog_outer");
	assert_int_equal(s[0].off, 1);
	assert_int_equal(s[1].from, ELFSYM_NONE);
	assert_false(s[1].have_vaddr);
	assert_non_null(strstr(s[1].why, "no loadable segment"));
	assert_string_equal(s[2].name, "main");
	assert_string_equal(s[3].name, "prog_static");
	/* an error of the file is every frame's */
	snprintf(p, sizeof(p), "%s/missing", dir);
	assert_int_equal(elfsym_names(p, offs, 4, s, 5000), -ENOENT);
	for (size_t i = 0; i < 4; i++)
		assert_non_null(strstr(s[i].why, "No such file"));
}

static void test_format(void **state)
{
	(void)state;
	struct elf_sym s;
	char out[128];
	memset(&s, 0, sizeof(s));
	s.from = ELFSYM_SYMTAB;
	snprintf(s.name, sizeof(s.name), "a\nb");
	s.off = 0x10;
	s.exact = true;
	assert_string_equal(elfsym_format(&s, "m", out, sizeof(out)), "a\\nb+0x10");
	s.exact = false;
	assert_string_equal(elfsym_format(&s, "m", out, sizeof(out)), "a\\nb+0x10 (size unknown)");
	s.from = ELFSYM_NONE;
	s.vaddr = 0x1234;
	s.have_vaddr = true;
	assert_string_equal(elfsym_format(&s, "lib\x1b.so", out, sizeof(out)), "lib\\x1b.so+0x1234");
	assert_string_equal(elfsym_from_name(ELFSYM_DEBUG), "debug");
	assert_string_equal(elfsym_from_name(ELFSYM_DYNSYM), "dynsym");
	/* a CRC-32 known value: zlib's crc32("123456789") */
	assert_int_equal(elf_crc32(0, "123456789", 9), 0xcbf43926);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_symtab),
		cmocka_unit_test(test_stripped),
		cmocka_unit_test(test_debuglink),
		cmocka_unit_test(test_build_id),
		cmocka_unit_test(test_dynsym_only),
		cmocka_unit_test(test_truncated),
		cmocka_unit_test(test_corrupt),
		cmocka_unit_test(test_overlap),
		cmocka_unit_test(test_debuglink_name),
		cmocka_unit_test(test_files),
		cmocka_unit_test(test_cache),
		cmocka_unit_test(test_batch),
		cmocka_unit_test(test_format),
	};
	return cmocka_run_group_tests(tests, setup, teardown);
}
