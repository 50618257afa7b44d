/* test-autobundle.c: the daemon's automatic bundles (sink-autobundle.c) on fake incidents: when
 * one is due (critical, opened or escalated, once per incident, host-wide at most every
 * min_interval: a storm of 200 incidents makes a few), which tree is too big, which files are
 * its bundles and which of them [bundle] keep removes; the bundles lane of the writer runs one
 * job at a time and says when its directory does not answer. */
#include <pthread.h>
#include <unistd.h>

#include "unit.h"

#define T0 1796022982.0              /* 2026-11-30T07:16:22Z */

static struct cgw_conf conf(void)
{
	struct cgw_conf c;
	conf_defaults(&c);
	return c;
}

static struct incident fake(enum cgw_sev sev)
{
	struct incident i;
	memset(&i, 0, sizeof(i));
	snprintf(i.id, sizeof(i.id), "20261130T071622Z-fuse-wait");
	snprintf(i.sig, sizeof(i.sig), "fuse-wait");
	i.severity = sev;
	return i;
}

static void test_due(void **state)
{
	(void)state;
	struct cgw_conf c = conf();
	assert_true(c.bundle_auto);              /* on by default */
	struct incident crit = fake(SEV_CRITICAL), warn = fake(SEV_WARNING);
	assert_true(autobundle_due(&c, 0, &crit, INC_OPENED, T0));
	assert_true(autobundle_due(&c, 0, &crit, INC_ESCALATED, T0));
	assert_false(autobundle_due(&c, 0, &crit, INC_UPDATED, T0));
	assert_false(autobundle_due(&c, 0, &crit, INC_RESOLVED, T0));
	assert_false(autobundle_due(&c, 0, &warn, INC_OPENED, T0));   /* warning: none */
	crit.bundled = true;                     /* one per incident */
	assert_false(autobundle_due(&c, 0, &crit, INC_ESCALATED, T0));
	crit.bundled = false;
	/* host-wide: not within min_interval (600 s) of the last */
	assert_false(autobundle_due(&c, T0 - 599, &crit, INC_ESCALATED, T0));
	assert_true(autobundle_due(&c, T0 - 600, &crit, INC_ESCALATED, T0));
	assert_true(autobundle_due(&c, T0 + 3600, &crit, INC_ESCALATED, T0));  /* clock set back */
	c.bundle_min_interval_s = 0;
	assert_true(autobundle_due(&c, T0, &crit, INC_ESCALATED, T0));
	c.bundle_auto = false;
	assert_false(autobundle_due(&c, 0, &crit, INC_ESCALATED, T0));
	conf_free(&c);
}

/* 200 incidents escalating one a scan (every 5 s), as the daemon decides them: 1,000 s make
 * two bundles with the default min_interval. */
static void test_storm(void **state)
{
	(void)state;
	struct cgw_conf c = conf();
	double last = 0;
	int made = 0;
	for (int k = 0; k < 200; k++) {
		struct incident i = fake(SEV_CRITICAL);
		double now = T0 + 5.0 * k;
		if (autobundle_due(&c, last, &i, INC_ESCALATED, now)) {
			i.bundled = true;
			last = now;
			made++;
		}
		assert_false(autobundle_due(&c, last, &i, INC_ESCALATED, now));
	}
	assert_int_equal(made, 2);
	conf_free(&c);
}

static void test_too_big(void **state)
{
	(void)state;
	struct cgw_conf c = conf();
	c.bundle_max_mib = 1;
	assert_false(autobundle_too_big(&c, 1024 * 1024));
	assert_true(autobundle_too_big(&c, 1024 * 1024 + 1));
	conf_free(&c);
}

static void test_names(void **state)
{
	(void)state;
	struct cgw_conf c = conf();
	char name[4200];
	autobundle_name(&c, "20261130T071622Z-fuse-wait", name, sizeof(name));
	char want[4200];
	snprintf(want, sizeof(want), "%s/cgwatch-bundle-20261130T071622Z-fuse-wait.tar.%s",
	         c.bundle_dir, autobundle_ext());
	assert_string_equal(name, want);
	assert_true(autobundle_is_bundle("cgwatch-bundle-20261130T071622Z-fuse-wait.tar.zst"));
	assert_true(autobundle_is_bundle("cgwatch-bundle-x.tar.gz"));
	assert_false(autobundle_is_bundle("cgwatch-bundle-x.tar.zst.tmp"));
	assert_false(autobundle_is_bundle(".cgwatch-bundle-x.tar.zst.AbC123"));  /* being written */
	assert_false(autobundle_is_bundle("incidents.json"));
	assert_false(autobundle_is_bundle("cgwatch-bundle-.tar"));
	assert_false(autobundle_is_bundle("my-bundle.tar.zst"));
	conf_free(&c);
}

static void test_prune(void **state)
{
	(void)state;
	struct ab_file v[] = {
		{ "cgwatch-bundle-c.tar.zst", 300, false },
		{ "notes.txt", 1, false },                       /* never removed */
		{ "cgwatch-bundle-a.tar.zst", 100, false },
		{ "cgwatch-bundle-b.tar.gz", 200, false },
		{ "cgwatch-bundle-d.tar.zst", 300, false },      /* same time as c: by name */
		{ ".cgwatch-bundle-e.tar.zst.XyZ123", 50, false },
	};
	size_t n = sizeof(v) / sizeof(v[0]);
	assert_int_equal(autobundle_prune(v, n, 2), 2);
	for (size_t k = 0; k < n; k++) {
		bool want = strcmp(v[k].name, "cgwatch-bundle-a.tar.zst") == 0 ||
		            strcmp(v[k].name, "cgwatch-bundle-b.tar.gz") == 0;
		assert_int_equal(v[k].remove, want);
	}
	assert_int_equal(autobundle_prune(v, n, 4), 0);
	assert_int_equal(autobundle_prune(v, n, 1), 3);
	for (size_t k = 0; k < n; k++)
		if (v[k].remove)
			assert_string_not_equal(v[k].name, "cgwatch-bundle-d.tar.zst");
	assert_int_equal(autobundle_prune(NULL, 0, 1), 0);
}

static void test_conf(void **state)
{
	(void)state;
	struct cgw_conf c = conf(), d;
	assert_string_equal(c.bundle_dir, CGW_STATEDIR "/bundles");
	assert_int_equal((int)c.bundle_keep, 10);
	assert_int_equal((int)c.bundle_min_interval_s, 600);
	assert_int_equal(conf_copy(&d, &c), 0);
	assert_ptr_not_equal(d.bundle_dir, c.bundle_dir);
	assert_string_equal(d.bundle_dir, c.bundle_dir);
	conf_free(&c);                           /* the copy owns its strings */
	assert_string_equal(d.bundle_dir, CGW_STATEDIR "/bundles");
	conf_free(&d);
}

/* ---- the bundles lane ---- */

struct gate { pthread_mutex_t m; pthread_cond_t c; bool open; int ran, released; };
static struct gate gate = { PTHREAD_MUTEX_INITIALIZER, PTHREAD_COND_INITIALIZER, false, 0, 0 };

static int job_wait(void *ctx, char *why, size_t cap)
{
	struct gate *g = ctx;
	pthread_mutex_lock(&g->m);
	g->ran++;
	while (!g->open)
		pthread_cond_wait(&g->c, &g->m);
	pthread_mutex_unlock(&g->m);
	snprintf(why, cap, "unused");
	return 0;
}

static void job_release(void *ctx)
{
	struct gate *g = ctx;
	pthread_mutex_lock(&g->m);
	g->released++;
	pthread_mutex_unlock(&g->m);
}

static int ran(void)
{
	pthread_mutex_lock(&gate.m);
	int r = gate.ran;
	pthread_mutex_unlock(&gate.m);
	return r;
}

/* A job that does not return (a bundle dir that does not answer): one more may queue, a third
 * is refused (-EAGAIN) and released; past the deadline the lane is not ok and the poll says
 * "bundle directory D does not answer" once; when it returns, "answers again". */
static struct cgw_writer *w;          /* freed by writer_stop at the end */

static void test_lane(void **state)
{
	(void)state;
	w = writer_new(200);
	assert_true(writer_ok(w, WR_BUNDLES));
	assert_int_equal(writer_job(w, "/b/x.tar.zst", job_wait, job_release, &gate), 0);
	for (int k = 0; k < 200 && ran() == 0; k++)
		usleep(10000);
	assert_int_equal(ran(), 1);
	assert_int_equal(writer_job(w, "/b/y.tar.zst", job_wait, job_release, &gate), 0);
	assert_int_equal(writer_job(w, "/b/z.tar.zst", job_wait, job_release, &gate), -EAGAIN);
	assert_int_equal(gate.released, 1);      /* the refused one, at once */
	usleep(300000);
	assert_false(writer_ok(w, WR_BUNDLES));
	char log[4096];
	struct capture c;
	capture_begin(&c);
	writer_poll(w, 200);
	writer_poll(w, 200);
	capture_end(&c, log, sizeof(log));
	assert_non_null(strstr(log, "cgwatch: bundle directory /b does not answer: bundles are not "
	                       "being written\n"));
	assert_null(strstr(strstr(log, "does not answer") + 1, "does not answer"));
	pthread_mutex_lock(&gate.m);
	gate.open = true;
	pthread_cond_broadcast(&gate.c);
	pthread_mutex_unlock(&gate.m);
	for (int k = 0; k < 500; k++) {         /* a stuck lane is not waited for: poll */
		pthread_mutex_lock(&gate.m);
		bool done = gate.released == 2;
		pthread_mutex_unlock(&gate.m);
		if (done)
			break;
		usleep(10000);
	}
	capture_begin(&c);
	writer_poll(w, 200);
	capture_end(&c, log, sizeof(log));
	assert_non_null(strstr(log, "bundle directory /b answers again"));
	assert_int_equal(ran(), 2);
	assert_true(writer_ok(w, WR_BUNDLES));
	assert_true(writer_stop(w, 1000));      /* its threads gone: the writer freed */
	pthread_mutex_lock(&gate.m);
	assert_int_equal(gate.released, 3);
	pthread_mutex_unlock(&gate.m);
}

int main(void)
{
	const struct CMUnitTest tests[] = {
		cmocka_unit_test(test_due),
		cmocka_unit_test(test_storm),
		cmocka_unit_test(test_too_big),
		cmocka_unit_test(test_names),
		cmocka_unit_test(test_prune),
		cmocka_unit_test(test_conf),
		cmocka_unit_test(test_lane),
	};
	return cmocka_run_group_tests(tests, NULL, NULL);
}
