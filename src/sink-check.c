/* sink-check.c: one check, the sequence `cgwatch check` runs and a bundle runs on the tree it
 * holds: the tree entered (a replay), the capture opened (--capture), scan_run, the kernel
 * messages, the diagnosis with the cgroup activity window, the capture written, the reports,
 * and the counters closed after them. The caller loads the configuration and the library. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgwatch.h"
#include "kmsg.h"
#include "rates.h"

/* cgroup activity for check: a replay reads the captured counts (no window); live, the
 * counters are opened only when a finding takes evidence from them, or on --rates, and count
 * over RATES_CHECK_WINDOW_MS from here. A healthy host needs none: no wait, and no perf
 * events to close (closing waits for RCU, ~0.3 s). */
struct check_rates {
	bool live, want;                  /* live: not a replay; want: --rates or a replay */
	unsigned timeout_ms;
	struct cgw_rates_src *src;        /* to close after the output, or NULL */
	struct cgw_rates rates;
};

static void check_rates(struct cgw_report *r, void *ctx)
{
	struct check_rates *c = ctx;
	if (c->want || rates_needed(r)) {
		c->src = rates_open(c->live, c->timeout_ms);
		rates_wait(c->src, RATES_CHECK_WINDOW_MS);
		rates_sample(c->src, &c->rates);
		r->rates = &c->rates;
	} else {
		r->rates_skipped = true;
	}
}

/* What this host's kernel allows, for a capture (which reads /proc itself): the scan's
 * programs and the run-queue program loaded (the walker's verification: 0.4 s of CPU) and
 * let go, each one's state into k: "available" where it loaded. */
static void kernel_probe(const struct cgw_conf *conf, struct cgw_kernel *k)
{
	char why[400];
	if (conf->scan_source == SCAN_SOURCE_PROC) {
		kf_set_scan(k, KFS_OFF, "[scan] source = proc");
	} else {
		bpfscan_free(bpfscan_open(getpid(), false, k, why, sizeof(why)));
	}
	if (conf->latency_runq == RUNQ_MODE_OFF)
		kf_set(k, KF_RUNQ_PROGRAM, KFS_OFF, "[latency] runq = no");
	else
		runq_src_free(runq_open(conf->latency_runq, k, why, sizeof(why)));
	for (int f = 0; f < KF_N; f++)     /* loaded, not used: the capture reads /proc */
		if (k->f[f].state == KFS_USED)
			k->f[f].state = KFS_AVAILABLE;
	k->runq_source[0] = '\0';
}

/* The window of the daemon's flight recorder, when its instance runs ([recorder] of conf),
 * told from r's first finding; NULL when there is none (nothing made, nothing said). */
static struct cgw_recwin *check_recorder(const struct cgw_conf *conf, const struct cgw_report *r)
{
	if (!conf->recorder_enabled)
		return NULL;
	struct recorder_opts o = recorder_opts_of(conf);
	struct cgw_recorder rec;
	int e = recorder_attach(&o, &rec);
	if (e < 0) {
		log_debug("no flight recorder window: instances/%s: %s", conf->recorder_instance,
		          strerror(-e));
		return NULL;
	}
	struct cgw_recwin *w = try_calloc(1, sizeof(*w));
	if (w && recwin_read(w, &rec, conf->recorder_window_s, CGW_REC_KEEP, r, -1) < 0)
		log_warnx("flight recorder: %s", w->why);
	return w;
}

int check_once(const struct cgw_conf *conf, const struct cgw_sigset *sigs,
               const struct check_spec *s, struct check_outcome *out, char *msg, size_t cap)
{
	const char *root = s->root;
	memset(out, 0, sizeof(*out));
	msg[0] = '\0';
	unsigned timeout_ms = (unsigned)(conf->read_timeout_s * 1000);
	if (root && root_enter(root, timeout_ms, msg, cap) < 0)
		return EXIT_UNREADABLE;
	out->entered = true;
	struct cgw_capture *capture = NULL;
	if (s->capdir) {
		int e = capture_open(s->capdir, timeout_ms, &capture, msg, cap);
		if (e < 0)
			return e == -EEXIST || e == -ENOTDIR || e == -ELOOP || e == -EPERM ? EXIT_USAGE :
			       EXIT_UNREADABLE;
	}
	/* the walk: one read of the task iterator where it loads, else /proc (and always for a
	 * replay, which reads files, or a capture, which keeps the files it reads) */
	char why[320];
	struct cgw_bpfscan *bpf = NULL;
	struct cgw_kernel kern = { 0 };   /* what this kernel allowed (scan.kernel; a capture's
	                                     cgwatch/kernel), for a live check */
	if (root) {
		snprintf(why, sizeof(why), "--root replays read the captured files");
	} else if (capture) {
		snprintf(why, sizeof(why), "--capture keeps the /proc files it reads");
		kernel_probe(conf, &kern);
	} else if (conf->scan_source == SCAN_SOURCE_PROC) {
		snprintf(why, sizeof(why), "[scan] source = proc");
		kf_set_scan(&kern, KFS_OFF, why);
	} else {
		bpf = bpfscan_open(getpid(), conf->scan_source != SCAN_SOURCE_WALKER, &kern, why,
		                   sizeof(why));
	}
	if (!capture)
		kf_set(&kern, KF_RUNQ_PROGRAM, KFS_NOT_TRIED, "one snapshot: run-queue latency is "
		       "measured between the daemon's scans, and by `cgwatch runq`");
	log_debug("scan source: %s (%s)", bpf ? "bpf" : "/proc", why);
	struct cgw_scan scan = { 0 };
	struct cgw_scan_opts so = {
		.bpf = bpf,
		.source_why = why,
		.blocked_s = conf->blocked_warning_s,
		.starved_s = conf->starved_s,
		.read_timeout_ms = timeout_ms,
		.all = s->all,
		.self_tgid = root ? 0 : getpid(),
		.root = root ? root_tree(root) : NULL,   /* a bundle: its private tree */
	};
	int r = scan_run(&scan, &so);
	bpfscan_free(bpf);                /* the stacks are copied out */
	if (capture && r == 0)
		capture_mark(capture, &scan);
	if (r < 0) {
		if (scan.fatal[0])
			snprintf(msg, cap, "%s%s", root ? root : "", scan.fatal);
		else
			snprintf(msg, cap, "cannot read %s/proc: %s", cesc(root ? root : ""),
			         strerror(-r));
		scan_free(&scan);
		capture_free(capture);
		return EXIT_UNREADABLE;
	}
	/* the kernel's ring: DIR/dev/kmsg in a replay */
	struct cgw_kmsg km;
	char kpath[4096];
	snprintf(kpath, sizeof(kpath), "%s%s", root ? root_tree(root) : "", KMSG_PATH);
	int kr = kmsg_read(kpath, &km, timeout_ms);
	if (root && strcmp(root_tree(root), root))   /* a bundle: name it, not its private tree */
		snprintf(km.source, sizeof(km.source), "%s:tree%s", root, KMSG_PATH);
	if (kr < 0)
		log_debug("cannot read %s: %s; kernel reports are not linked", cesc(kpath),
		          strerror(-kr));
	/* pressure: /proc/pressure (a replay's, when its tree holds them) against [pressure] */
	struct cgw_pressure pres = { 0 };
	struct cgw_psi_src *psi = psi_src_open();
	bool have_psi = psi && psi_read_sys(psi, &pres) > 0;
	psi_src_free(psi);
	if (have_psi) {
		memcpy(pres.trig, conf->pressure, sizeof(pres.trig));
		pressure_decide(&pres);
	}
	struct cgw_report rep = { .scan = &scan, .conf = conf, .all = s->all, .verbose = s->verbose,
	                          .threshold_s = conf->blocked_warning_s, .kmsg = &km,
	                          .runq_why = "a single snapshot has no interval: the daemon "
	                                      "measures run-queue latency between its scans",
	                          .pressure = have_psi ? &pres : NULL };
	struct check_rates cr = { .live = root == NULL, .want = root || s->rates,
	                          .timeout_ms = timeout_ms };
	int rc = check_diagnose(&rep, sigs, check_rates, &cr);   /* says why it failed */
	if (!root) {
		if (cr.src)
			rates_kernel(cr.src, &kern);
		else
			kf_set(&kern, KF_COUNTERS, KFS_NOT_TRIED, "no finding needed the cgroup "
			       "activity counts (--rates counts them)");
		rep.kfeat = &kern;
	}
	if (rc == 0 && have_psi && psi_read_cgroups(&rep, &pres, timeout_ms) == 0)
		pressure_link(&rep, &pres);   /* the findings' cgroups' pressure */
	if (rc == 0)                      /* the findings' user stacks, under the deadline */
		ustack_report(&rep, (unsigned)conf->ustack_max, timeout_ms);
	struct cgw_recwin *rw = NULL;     /* a capture of this host: the daemon's recorder too */
	if (rc == 0 && capture && !root && !rep.recorder)
		rep.recorder = rw = check_recorder(conf, &rep);
	if (rc == 0) {
		char m[8192];                 /* the tree of what the findings were made from */
		if (capture && capture_write(capture, &rep, m, sizeof(m)) < 0) {
			log_warnx("%s", m);       /* said now: the reports still go out */
			rc = EXIT_UNREADABLE;
		}
		if (s->json) {
			report_json(&rep, s->json);
			fflush(s->json);
		}
		if (s->text) {
			report_text(&rep, s->text);
			fflush(s->text);
		}
		if (s->html) {
			report_html(&rep, s->html);
			fflush(s->html);
		}
		snprintf(out->host, sizeof(out->host), "%s", scan.host);
		snprintf(out->kernel, sizeof(out->kernel), "%s", scan.kernel);
		if (rc == 0)
			rc = report_max_severity(&rep) >= SEV_WARNING ? EXIT_FINDINGS : EXIT_NOTHING;
	}
	cr.src = rates_close(cr.src);    /* after the output: closing waits for RCU (~0.3 s here) */
	report_free(&rep);
	if (rw)
		recwin_free(rw);
	free(rw);
	free(pres.cg);
	kmsg_free(&km);
	scan_free(&scan);
	capture_free(capture);
	return rc;
}
