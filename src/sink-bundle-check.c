/* sink-bundle-check.c: the check a bundle carries, run in process on the captured tree with the
 * stages `check --root DIR` runs (root_enter, scan_run, kmsg_read, check_diagnose, the text
 * and JSON reports), rendered into memory. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"
#include "kmsg.h"
#include "rates.h"

/* A replay's counts are the captured ones: counted as check --root counts them. */
struct replay_rates { unsigned timeout_ms; struct cgw_rates_src *src; struct cgw_rates rates; };

static void replay_rates(struct cgw_report *r, void *ctx)
{
	struct replay_rates *c = ctx;
	c->src = rates_open(false, c->timeout_ms);
	rates_wait(c->src, RATES_CHECK_WINDOW_MS);
	rates_sample(c->src, &c->rates);
	r->rates = &c->rates;
}

/* Render one report into a malloc'd string. */
static char *render(const struct cgw_report *rep, bool json, size_t *len)
{
	char *s = NULL;
	size_t n = 0;
	FILE *f = open_memstream(&s, &n);
	if (!f)
		return NULL;
	if (json)
		report_json(rep, f);
	else
		report_text(rep, f);
	if (fclose(f) != 0) {
		free(s);
		return NULL;
	}
	*len = n;
	return s;
}

int bundle_check_tree(const char *dir, const struct cgw_conf *conf,
                      const struct cgw_sigset *sigs, struct bundle_reports *out, char *msg,
                      size_t cap)
{
	memset(out, 0, sizeof(*out));
	unsigned timeout_ms = (unsigned)(conf->read_timeout_s * 1000);
	if (root_enter(dir, timeout_ms, msg, cap) < 0)
		return EXIT_UNREADABLE;
	out->entered = true;
	out->exit = EXIT_UNREADABLE;
	struct cgw_scan scan = { 0 };
	struct cgw_scan_opts so = {
		.blocked_s = conf->blocked_warning_s,
		.starved_s = conf->starved_s,
		.read_timeout_ms = timeout_ms,
		.root = dir,                  /* a capture's clocks and verdict */
	};
	int r = scan_run(&scan, &so);
	if (r < 0) {
		if (scan.fatal[0])
			snprintf(msg, cap, "%s%s", dir, scan.fatal);
		else
			snprintf(msg, cap, "cannot read %s/proc: %s", cesc(dir), strerror(-r));
		scan_free(&scan);
		return EXIT_UNREADABLE;
	}
	struct cgw_kmsg km;
	char kpath[4096];
	snprintf(kpath, sizeof(kpath), "%s%s", dir, KMSG_PATH);
	if (kmsg_read(kpath, &km, timeout_ms) < 0)
		log_debug("cannot read %s; kernel reports are not linked", cesc(kpath));
	struct cgw_report rep = { .scan = &scan, .conf = conf, .threshold_s = conf->blocked_warning_s,
	                          .kmsg = &km };
	struct replay_rates rr = { .timeout_ms = timeout_ms };
	int rc = check_diagnose(&rep, sigs, replay_rates, &rr);
	if (rc == 0) {
		out->text = render(&rep, false, &out->text_len);
		out->json = render(&rep, true, &out->json_len);
		if (!out->text || !out->json) {
			snprintf(msg, cap, "no memory for the reports");
			rc = EXIT_UNREADABLE;
		}
		out->exit = report_max_severity(&rep) >= SEV_WARNING ? EXIT_FINDINGS : EXIT_NOTHING;
		snprintf(out->host, sizeof(out->host), "%s", scan.host);
		snprintf(out->kernel, sizeof(out->kernel), "%s", scan.kernel);
	} else {
		snprintf(msg, cap, "the diagnosis ran out of memory");
	}
	rates_close(rr.src);
	report_free(&rep);
	kmsg_free(&km);
	scan_free(&scan);
	if (rc) {
		bundle_reports_free(out);
		out->exit = EXIT_UNREADABLE;
	}
	return rc;
}

void bundle_reports_free(struct bundle_reports *r)
{
	free(r->text);
	free(r->json);
	r->text = r->json = NULL;
}
