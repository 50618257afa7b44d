/* test-ustackname.c: naming user frames from the files a task maps (ustack_name_frames,
 * ustack_name_frame), on this test's own process (mapfile_open: test-ehframe.c). */
#include "unit.h"

#include <fcntl.h>

/* /proc/self/maps, parsed into an index of ours (freed before the next). */
static const struct maps_index *maps_text(void)
{
	static char buf[1 << 20];
	static struct maps_index ix;
	int fd = open("/proc/self/maps", O_RDONLY | O_CLOEXEC);
	assert_true(fd >= 0);
	size_t len = 0, line;
	for (ssize_t r; (r = read(fd, buf + len, sizeof(buf) - 1 - len)) > 0;)
		len += (size_t)r;
	close(fd);
	buf[len] = '\0';
	maps_index_free(&ix);
	assert_int_equal(maps_index_parse(buf, &ix, &line), 0);
	return &ix;
}

__attribute__((noinline)) int un_named_fn(int x);
__attribute__((noinline)) int un_named_fn(int x)
{
	__asm__ volatile("" ::: "memory");
	return x * 3 + 1;
}

/* A frame at pc, as the unwinder fills it from maps. */
static void frame_at(const struct maps_index *maps, unsigned long pc, struct cgw_uframe *f,
                     struct maps_ent *e)
{
	memset(f, 0, sizeof(*f));
	const struct maps_ent *m = maps_index_find(maps, pc);
	assert_non_null(m);
	*e = *m;
	f->pc = pc;
	f->offset = pc - e->start + e->off;
	snprintf(f->module, sizeof(f->module), "%.*s", (int)e->path_len, e->path);
}

/* This test's own function named from its own .symtab: the innermost frame by its pc, a
 * caller's by the call before its return address (pc - 1: at the function's end, the next
 * function's start); the stop the unwind wrote by module and offset then by name. */
static void test_name_frames(void **state)
{
	(void)state;
	const struct maps_index *maps = maps_text();
	struct cgw_uframe f[2];
	struct maps_ent e;
	unsigned long fn = (unsigned long)(uintptr_t)&un_named_fn;
	frame_at(maps, fn + 2, &f[0], &e);
	f[0].pc_exact = true;
	frame_at(maps, fn + 1, &f[1], &e);        /* a return address just past fn's start */
	struct cgw_scan s = { 0 };
	char err[320];
	snprintf(err, sizeof(err), "user stack ends at %s+0x%lx: why", f[1].module, f[1].offset);
	ustack_name_frames(&s, getpid(), maps, f, 2, err, sizeof(err), 5000);
	assert_string_equal(f[0].symbol, "un_named_fn");
	assert_int_equal(f[0].sym_off, 2);
	assert_string_equal(f[0].symbol_from, "symtab");
	assert_true(f[0].sym_exact && f[0].have_vaddr);
	assert_true(f[0].build_id[0] != '\0');
	assert_string_equal(f[1].symbol, "un_named_fn");
	assert_int_equal(f[1].sym_off, 1);     /* of pc, though looked up at pc - 1 */
	assert_int_equal(f[1].vaddr, f[0].vaddr - 1);
	assert_string_equal(err, "user stack ends at un_named_fn+0x1: why");
	assert_int_equal(s.timeouts, 0);
	assert_false(s.nomem);

	/* the scan's budget of timed-out reads spent: not looked up, said */
	frame_at(maps, fn + 2, &f[0], &e);
	s.timeouts = SCAN_MAX_TIMEOUTS;
	ustack_name_frames(&s, getpid(), maps, f, 1, NULL, 0, 5000);
	assert_string_equal(f[0].symbol, "");
	assert_null(f[0].symbol_from);
	assert_non_null(strstr(f[0].symbol_why, "budget"));
}

/* ustack_name_frame: no name is no name (why kept), a long name is cut and says so. */
static void test_name_frame(void **state)
{
	(void)state;
	struct cgw_uframe f = { 0 };
	struct elf_sym s = { .from = ELFSYM_NONE, .have_vaddr = true, .vaddr = 0x1000 };
	snprintf(s.why, sizeof(s.why), "stripped");
	snprintf(s.build_id, sizeof(s.build_id), "abcd");
	ustack_name_frame(&f, &s, 1);
	assert_string_equal(f.symbol, "");
	assert_null(f.symbol_from);
	assert_string_equal(f.symbol_why, "stripped");
	assert_string_equal(f.build_id, "abcd");
	assert_int_equal(f.vaddr, 0x1001);
	s.from = ELFSYM_DYNSYM;
	s.exact = true;
	s.off = 4;
	memset(s.name, 'a', 400);
	s.name[400] = '\0';
	ustack_name_frame(&f, &s, 0);
	assert_int_equal(strlen(f.symbol), sizeof(f.symbol) - 1);
	assert_string_equal(f.symbol + sizeof(f.symbol) - 4, "...");
	assert_string_equal(f.symbol_from, "dynsym");
	assert_int_equal(f.sym_off, 4);
	assert_string_equal(f.symbol_why, "");
	assert_false(f.sym_task_mntns);
	/* a debug file of the task's own namespace: said on the frame, and reset by the next */
	s.from = ELFSYM_DEBUG;
	s.from_task_mntns = true;
	ustack_name_frame(&f, &s, 0);
	assert_string_equal(f.symbol_from, "debug");
	assert_true(f.sym_task_mntns);
	s.from_task_mntns = false;
	ustack_name_frame(&f, &s, 0);
	assert_false(f.sym_task_mntns);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_name_frames),
		cmocka_unit_test(test_name_frame),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
