/* test-deadline.c: reads with a deadline, on a FIFO — opening one for reading blocks until a
 * writer comes, which is how a file on a stuck FUSE mount behaves, without the mount. */
#include <fcntl.h>
#include <pthread.h>
#include <sys/stat.h>
#include <time.h>

#include "unit.h"

/* The ASan build: an allocation it cannot make returns NULL, as malloc does, instead of
 * stopping the test that asks for one on purpose. */
const char *__asan_default_options(void);
const char *__asan_default_options(void)
{
	return "allocator_may_return_null=1";
}

static double now_s(void)
{
	return (double)now_usec() / 1e6;
}

/* Open the FIFO for writing and close it: the stuck reader's open returns, its read sees EOF. */
static void release_fifo(const char *path)
{
	int fd = open(path, O_WRONLY | O_NONBLOCK);
	assert_true(fd >= 0);
	close(fd);
}

/* Wait until no reader thread is stuck (bounded). */
static void wait_unstuck(void)
{
	for (int i = 0; i < 200 && dl_stuck() > 0; i++)
		usleep(10000);
	assert_int_equal(dl_stuck(), 0);
}

static void test_read_ok(void **state)
{
	(void)state;
	char dir[64], path[300], buf[64];
	tmpdir_make(dir, sizeof(dir));
	tmpdir_put(dir, "f", "hello\n");
	snprintf(path, sizeof(path), "%s/f", dir);
	assert_int_equal(dl_read_file(path, buf, sizeof(buf), 1000), 6);
	assert_string_equal(buf, "hello\n");
	snprintf(path, sizeof(path), "%s/missing", dir);
	assert_int_equal(dl_read_file(path, buf, sizeof(buf), 1000), -ENOENT);
}

static void test_timeout_then_not_asked_again(void **state)
{
	(void)state;
	char dir[64], path[300], buf[64];
	tmpdir_make(dir, sizeof(dir));
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);

	double t0 = now_s();
	assert_int_equal(dl_read_file(path, buf, sizeof(buf), 200), -ETIMEDOUT);
	double took = now_s() - t0;
	assert_true(took >= 0.19 && took < 1.0);
	assert_int_equal(dl_stuck(), 1);

	/* the same path, still stuck: answered at once, and no second thread */
	t0 = now_s();
	assert_int_equal(dl_read_file(path, buf, sizeof(buf), 200), -ETIMEDOUT);
	assert_true(now_s() - t0 < 0.05);
	assert_int_equal(dl_stuck(), 1);

	/* another file works meanwhile, on a new worker */
	char ok[300];
	tmpdir_put(dir, "ok", "x");
	snprintf(ok, sizeof(ok), "%s/ok", dir);
	assert_int_equal(dl_read_file(ok, buf, sizeof(buf), 1000), 1);

	/* once the stuck read returns, its thread is gone and the path is asked again */
	release_fifo(path);
	wait_unstuck();
	t0 = now_s();
	assert_int_equal(dl_read_file(path, buf, sizeof(buf), 200), -ETIMEDOUT);
	assert_true(now_s() - t0 >= 0.19);
	release_fifo(path);
	wait_unstuck();
}

static void test_stuck_threads_bounded(void **state)
{
	(void)state;
	char dir[64], path[DL_MAX_STUCK + 1][300], buf[16];
	tmpdir_make(dir, sizeof(dir));
	for (int i = 0; i <= DL_MAX_STUCK; i++) {
		snprintf(path[i], sizeof(path[i]), "%s/fifo%d", dir, i);
		assert_int_equal(mkfifo(path[i], 0600), 0);
	}
	for (int i = 0; i < DL_MAX_STUCK; i++)
		assert_int_equal(dl_read_file(path[i], buf, sizeof(buf), 50), -ETIMEDOUT);
	assert_int_equal(dl_stuck(), DL_MAX_STUCK);
	/* no more threads: refused before starting, at once */
	double t0 = now_s();
	assert_int_equal(dl_read_file(path[DL_MAX_STUCK], buf, sizeof(buf), 50), -EBUSY);
	assert_true(now_s() - t0 < 0.05);
	for (int i = 0; i < DL_MAX_STUCK; i++)
		release_fifo(path[i]);
	wait_unstuck();
	/* and usable again */
	tmpdir_put(dir, "ok", "y");
	char ok[300];
	snprintf(ok, sizeof(ok), "%s/ok", dir);
	assert_int_equal(dl_read_file(ok, buf, sizeof(buf), 1000), 1);
}

/* A buffer that cannot be allocated costs the read (-ENOMEM), never the process (it was
 * xmalloc: abort()). */
static void test_read_nomem(void **state)
{
	(void)state;
	char buf[16];
	assert_int_equal(dl_read_file("/proc/self/stat", buf, (size_t)1 << 46, 1000), -ENOMEM);
	assert_true(dl_read_file("/proc/self/stat", buf, sizeof(buf), 1000) > 0);
}

/* Two threads reading with deadlines at once (the daemon's scan and its bundle writer): each
 * gets its own file's bytes, every time, and neither waits on the other's job. */
struct reader_arg { const char *path, *want; int bad; };

static void *reader(void *p)
{
	struct reader_arg *a = p;
	char buf[64];
	for (int i = 0; i < 2000; i++) {
		ssize_t n = dl_read_file(a->path, buf, sizeof(buf), 2000);
		if (n < 0 || strcmp(buf, a->want) != 0)
			a->bad++;
	}
	return NULL;
}

static void test_two_caller_threads(void **state)
{
	(void)state;
	char dir[64], pa[128], pb[128];
	tmpdir_make(dir, sizeof(dir));
	tmpdir_put(dir, "a", "alpha");
	tmpdir_put(dir, "b", "bravo");
	snprintf(pa, sizeof(pa), "%s/a", dir);
	snprintf(pb, sizeof(pb), "%s/b", dir);
	struct reader_arg a = { pa, "alpha", 0 }, b = { pb, "bravo", 0 };
	pthread_t ta, tb;
	assert_int_equal(pthread_create(&ta, NULL, reader, &a), 0);
	assert_int_equal(pthread_create(&tb, NULL, reader, &b), 0);
	pthread_join(ta, NULL);
	pthread_join(tb, NULL);
	assert_int_equal(a.bad, 0);
	assert_int_equal(b.bad, 0);
	tmpdir_remove(dir);
}

/* A batch: the paths of ctx, one after another (a name "@X": the path is the text of the
 * answer before, the way a planner reads what an earlier read said). */
struct plan { const char *dir; const char *name[4]; size_t n; };

static bool plan_next(const struct dl_item *done, size_t n, void *ctx, char *path, size_t cap,
                      off_t *off, size_t *bufcap)
{
	struct plan *p = ctx;
	if (n >= p->n)
		return false;
	if (p->name[n][0] == '@') {          /* the path the answer before holds */
		if (n == 0 || done[n - 1].r <= 0)
			return false;
		snprintf(path, cap, "%s/%s", p->dir, done[n - 1].buf);
	} else {
		snprintf(path, cap, "%s/%s", p->dir, p->name[n]);
	}
	*off = -1;
	*bufcap = 64;
	return true;
}

static void test_batch_one_handoff(void **state)
{
	(void)state;
	char dir[64], path[300], buf[64];
	ssize_t r;
	tmpdir_make(dir, sizeof(dir));
	tmpdir_put(dir, "a", "b");
	tmpdir_put(dir, "b", "bravo");
	tmpdir_put(dir, "c", "charlie");
	struct plan p = { dir, { "a", "@", "c", "missing" }, 4 };
	unsigned long h0 = dl_handoffs();
	struct dl_batch *b = dl_read_batch(plan_next, &p, sizeof(p), 1000);
	assert_non_null(b);
	assert_int_equal(dl_handoffs() - h0, 1);     /* four reads, one hand-off */
	assert_int_equal(b->n, 4);
	snprintf(path, sizeof(path), "%s/b", dir);
	assert_false(dl_batch_take(b, path, -1, buf, 32, &r));      /* another buffer: not it */
	assert_false(dl_batch_take(b, path, 0, buf, 64, &r));       /* a pread: not it */
	assert_true(dl_batch_take(b, path, -1, buf, 64, &r));
	assert_int_equal(r, 5);
	assert_string_equal(buf, "bravo");
	assert_false(dl_batch_take(b, path, -1, buf, 64, &r));      /* taken once */
	snprintf(path, sizeof(path), "%s/missing", dir);
	assert_true(dl_batch_take(b, path, -1, buf, 64, &r));
	assert_int_equal(r, -ENOENT);
	dl_batch_free(b);
	tmpdir_remove(dir);
}

/* The read that passes its deadline: answered -ETIMEDOUT (and its path stuck, as for
 * dl_read_file), the ones before it kept, the ones after it not made. */
static void test_batch_stuck_read(void **state)
{
	(void)state;
	char dir[64], path[300], buf[64];
	ssize_t r;
	tmpdir_make(dir, sizeof(dir));
	tmpdir_put(dir, "a", "alpha");
	tmpdir_put(dir, "c", "charlie");
	snprintf(path, sizeof(path), "%s/fifo", dir);
	assert_int_equal(mkfifo(path, 0600), 0);
	struct plan p = { dir, { "a", "fifo", "c" }, 3 };
	struct dl_batch *b = dl_read_batch(plan_next, &p, sizeof(p), 200);
	assert_non_null(b);
	assert_int_equal(b->n, 2);
	assert_int_equal(dl_stuck(), 1);
	assert_true(dl_batch_take(b, path, -1, buf, 64, &r));
	assert_int_equal(r, -ETIMEDOUT);
	assert_int_equal(dl_read_file(path, buf, sizeof(buf), 200), -ETIMEDOUT);  /* still stuck */
	assert_int_equal(dl_stuck(), 1);
	snprintf(path, sizeof(path), "%s/a", dir);
	assert_true(dl_batch_take(b, path, -1, buf, 64, &r));
	assert_string_equal(buf, "alpha");
	snprintf(path, sizeof(path), "%s/c", dir);
	assert_false(dl_batch_take(b, path, -1, buf, 64, &r));     /* not made: read it then */
	assert_int_equal(dl_read_file(path, buf, sizeof(buf), 1000), 7);
	dl_batch_free(b);
	/* and a batch that meets the stuck path answers it at once, and goes on */
	struct plan q = { dir, { "fifo", "a" }, 2 };
	b = dl_read_batch(plan_next, &q, sizeof(q), 200);
	assert_non_null(b);
	assert_int_equal(b->n, 2);
	assert_int_equal(dl_stuck(), 1);
	dl_batch_free(b);
	snprintf(path, sizeof(path), "%s/fifo", dir);
	release_fifo(path);
	wait_unstuck();
	tmpdir_remove(dir);
}

/* Each read of a batch has a deadline of its own: two that each take most of it are both
 * answered, though together they take longer. */
struct slow_writer { char path[300]; unsigned ms; };

static void *slow_write(void *p)
{
	struct slow_writer *w = p;
	int fd = open(w->path, O_WRONLY);     /* until the batch's read opens it */
	if (fd >= 0) {
		usleep(w->ms * 1000);
		ssize_t n = write(fd, "x", 1);
		(void)n;
		close(fd);
	}
	return NULL;
}

static void test_batch_deadline_per_read(void **state)
{
	(void)state;
	char dir[64];
	tmpdir_make(dir, sizeof(dir));
	struct slow_writer w[2];
	pthread_t t[2];
	for (int i = 0; i < 2; i++) {
		snprintf(w[i].path, sizeof(w[i].path), "%s/fifo%d", dir, i);
		assert_int_equal(mkfifo(w[i].path, 0600), 0);
		w[i].ms = 1200;
		assert_int_equal(pthread_create(&t[i], NULL, slow_write, &w[i]), 0);
	}
	struct plan p = { dir, { "fifo0", "fifo1" }, 2 };
	struct dl_batch *b = dl_read_batch(plan_next, &p, sizeof(p), 2000);
	assert_non_null(b);
	for (int i = 0; i < 2; i++)
		pthread_join(t[i], NULL);
	assert_int_equal(b->n, 2);
	char buf[64];
	ssize_t r;
	for (int i = 0; i < 2; i++) {
		assert_true(dl_batch_take(b, w[i].path, -1, buf, 64, &r));
		assert_int_equal(r, 1);
	}
	assert_int_equal(dl_stuck(), 0);
	dl_batch_free(b);
	tmpdir_remove(dir);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_read_nomem),
		cmocka_unit_test(test_read_ok),
		cmocka_unit_test(test_timeout_then_not_asked_again),
		cmocka_unit_test(test_stuck_threads_bounded),
		cmocka_unit_test(test_two_caller_threads),
		cmocka_unit_test(test_batch_one_handoff),
		cmocka_unit_test(test_batch_stuck_read),
		cmocka_unit_test(test_batch_deadline_per_read),
	};
	return tmpdir_cleanup_all(cmocka_run_group_tests(tests, NULL, NULL));
}
