/* test-removetree.c: remove_tree (util.c), which root runs on capture directories under a
 * TMPDIR that a user may own: a symlink planted anywhere in the tree is removed, never
 * followed, and neither is one swapped in for a directory while the walk is inside it (the
 * swap made at the moment the walk opens that directory, through a fanotify permission
 * event: needs root, skipped without); the walk's depth and entry count are bounded. */
#include <fcntl.h>
#include <pthread.h>
#include <sys/fanotify.h>
#include <sys/stat.h>

#include "unit.h"

static char base[256];           /* the test's own directory: tree/ and victim/ in it */

static int setup(void **state)
{
	(void)state;
	snprintf(base, sizeof(base), "%s/cgw-rmtree.XXXXXX", getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp");
	return mkdtemp(base) ? 0 : -1;
}

static int teardown(void **state)
{
	(void)state;
	char cmd[400];
	snprintf(cmd, sizeof(cmd), "rm -rf '%s'", base);
	return system(cmd) == 0 ? 0 : -1;
}

static void put(const char *path)
{
	int fd = open(path, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, 0600);
	assert_true(fd >= 0);
	assert_int_equal(write(fd, "x", 1), 1);
	close(fd);
}

static void mk(const char *fmt, const char *a)
{
	char p[600];
	snprintf(p, sizeof(p), fmt, base, a);
	assert_int_equal(mkdir(p, 0700), 0);
}

static bool there(const char *rel)
{
	char p[600];
	struct stat st;
	snprintf(p, sizeof(p), "%s/%s", base, rel);
	return lstat(p, &st) == 0;
}

/* victim/ with two files, which nothing in the tree may reach */
static void victim(void)
{
	char p[600];
	mk("%s/%s", "victim");
	snprintf(p, sizeof(p), "%s/victim/v1", base);
	put(p);
	snprintf(p, sizeof(p), "%s/victim/v2", base);
	put(p);
}

static void test_symlinks_removed_not_followed(void **state)
{
	(void)state;
	char p[600], t[600];
	victim();
	mk("%s/%s", "tree");
	mk("%s/%s", "tree/a");
	mk("%s/%s", "tree/a/b");
	snprintf(p, sizeof(p), "%s/tree/a/b/f", base);
	put(p);
	snprintf(t, sizeof(t), "%s/victim", base);
	snprintf(p, sizeof(p), "%s/tree/dirlink", base);          /* at the top */
	assert_int_equal(symlink(t, p), 0);
	snprintf(p, sizeof(p), "%s/tree/a/b/deep", base);         /* deep down */
	assert_int_equal(symlink(t, p), 0);
	snprintf(t, sizeof(t), "%s/victim/v1", base);
	snprintf(p, sizeof(p), "%s/tree/a/filelink", base);       /* to a file */
	assert_int_equal(symlink(t, p), 0);
	snprintf(p, sizeof(p), "%s/tree", base);
	assert_int_equal(remove_tree(p), 0);
	assert_false(there("tree"));
	assert_true(there("victim/v1"));
	assert_true(there("victim/v2"));
	/* the top itself a symlink: refused, the link and its target left */
	snprintf(t, sizeof(t), "%s/victim", base);
	snprintf(p, sizeof(p), "%s/toplink", base);
	assert_int_equal(symlink(t, p), 0);
	assert_true(remove_tree(p) < 0);
	assert_true(there("toplink"));
	assert_true(there("victim/v1"));
	assert_true(there("victim/v2"));
	/* a path that is not there */
	snprintf(p, sizeof(p), "%s/none", base);
	assert_int_equal(remove_tree(p), -ENOENT);
}

struct swap {
	int fan;
	char dir[600], to[600], target[600];
	int seen;
};

/* At the first open of the directory: it is moved away and a symlink to the victim takes its
 * name, then the open goes on (on the directory it had resolved to). */
static void *swapper(void *arg)
{
	struct swap *s = arg;
	char buf[4096] __attribute__((aligned(__alignof__(struct fanotify_event_metadata))));
	for (;;) {
		ssize_t n = read(s->fan, buf, sizeof(buf));
		if (n <= 0)
			return NULL;
		for (struct fanotify_event_metadata *m = (void *)buf; FAN_EVENT_OK(m, n);
		     m = FAN_EVENT_NEXT(m, n)) {
			if ((m->mask & FAN_OPEN_PERM) && !s->seen++) {
				if (rename(s->dir, s->to) < 0 || symlink(s->target, s->dir) < 0)
					s->seen = -1000;
			}
			struct fanotify_response r = { .fd = m->fd, .response = FAN_ALLOW };
			if (write(s->fan, &r, sizeof(r)) < 0)
				s->seen = -1000;
			if (m->fd >= 0)
				close(m->fd);
			if (s->seen)
				return NULL;
		}
	}
}

static void test_swap_mid_walk_not_followed(void **state)
{
	(void)state;
	int fan = fanotify_init(FAN_CLASS_CONTENT | FAN_CLOEXEC, O_RDONLY | O_CLOEXEC);
	if (fan < 0) {
		print_message("# SKIP no fanotify permission events here (%s): needs root and "
		              "CONFIG_FANOTIFY_ACCESS_PERMISSIONS\n", strerror(errno));
		skip();
	}
	char p[600];
	victim();
	mk("%s/%s", "tree");
	mk("%s/%s", "tree/a");
	snprintf(p, sizeof(p), "%s/tree/a/v1", base);            /* the victim's names */
	put(p);
	snprintf(p, sizeof(p), "%s/tree/a/v2", base);
	put(p);
	struct swap s = { .fan = fan };
	snprintf(s.dir, sizeof(s.dir), "%s/tree/a", base);
	snprintf(s.to, sizeof(s.to), "%s/moved", base);            /* out of the tree */
	snprintf(s.target, sizeof(s.target), "%s/victim", base);
	assert_int_equal(fanotify_mark(fan, FAN_MARK_ADD, FAN_OPEN_PERM | FAN_ONDIR, AT_FDCWD,
	                               s.dir), 0);
	pthread_t t;
	assert_int_equal(pthread_create(&t, NULL, swapper, &s), 0);
	snprintf(p, sizeof(p), "%s/tree", base);
	int rc = remove_tree(p);
	if (!s.seen) {                   /* the walk never opened it: let the thread go */
		fanotify_mark(fan, FAN_MARK_REMOVE, FAN_OPEN_PERM | FAN_ONDIR, AT_FDCWD, s.dir);
		close(fan);
		fan = -1;
	}
	pthread_join(t, NULL);
	if (fan >= 0)
		close(fan);
	assert_int_equal(s.seen, 1);
	print_message("# remove_tree returned %d (%s)\n", rc, rc < 0 ? strerror(-rc) : "ok");
	assert_true(there("victim/v1"));
	assert_true(there("victim/v2"));
	/* what was removed was the directory the walk had opened */
	assert_false(there("moved/v1"));
	assert_false(there("moved/v2"));
}

static void test_bounded_depth(void **state)
{
	(void)state;
	char p[8192];
	size_t l = (size_t)snprintf(p, sizeof(p), "%s/tree", base);
	assert_int_equal(mkdir(p, 0700), 0);
	for (int i = 0; i < 300; i++) {                  /* deeper than the walk goes */
		l += (size_t)snprintf(p + l, sizeof(p) - l, "/d");
		assert_int_equal(mkdir(p, 0700), 0);
	}
	snprintf(p, sizeof(p), "%s/tree", base);
	int rc = remove_tree(p);
	assert_true(rc < 0);
	print_message("# 300 levels: %s\n", strerror(-rc));
	assert_true(there("tree"));                     /* what is below the bound is left */
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test_setup_teardown(test_symlinks_removed_not_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_swap_mid_walk_not_followed, setup, teardown),
		cmocka_unit_test_setup_teardown(test_bounded_depth, setup, teardown),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
