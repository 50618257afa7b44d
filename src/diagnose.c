/* diagnose.c: the diagnosis stage, the one step check and the daemon call on a scan:
 * signatures and their correlators (diagnose-classify.c, diagnose-correlate.c), then the evidence of kernel
 * messages (diagnose-kmsg.c) and of cgroup activity counts (diagnose-rates.c), in that order,
 * after the latency findings (diagnose-latency.c), which need the counts;
 * a replay's flight recorder readout is told from its first finding (diagnose-recorder.c). */
#include <errno.h>

#include "cgwatch.h"
#include "kmsg.h"
#include "rates.h"

/* The evidence after the findings: the counts are asked for once the findings are known
 * (check opens its counting window only when one needs them). A replay of a capture that
 * holds the live run's counts (cgwatch/rates) reports those. */
static int evidence(struct cgw_report *r, const struct cgw_sigset *sigs, cgw_rates_fn rates,
                    void *ctx)
{
	if (r->scan && r->scan->replay_rates) {
		r->rates = r->scan->replay_rates;
		r->rates_skipped = false;
	} else if (rates) {
		rates(r, ctx);
	}
	/* latency findings need the rates: they say which rose with the latency */
	unsigned timeout_ms = r->conf ? (unsigned)(r->conf->read_timeout_s * 1000) : 2000;
	struct lat_reader rd = latency_proc_reader;
	rd.ctx = &timeout_ms;
	if (latency_diagnose(r, sigs, &rd) < 0)
		return -ENOMEM;
	lock_link(r);                     /* out of memory: the lines are missing, nothing else */
	kmsg_link(r, r->kmsg);
	rates_link(r, r->rates);
	if (r->scan && r->scan->replay_recorder) {   /* a bundle's flight recorder readout */
		recorder_anchor(r->scan->replay_recorder, r, -1);
		r->recorder = r->scan->replay_recorder;
	}
	return 0;
}

int diagnose(struct cgw_report *r, const struct cgw_sigset *sigs, cgw_rates_fn rates, void *ctx)
{
	if (classify(r, sigs) < 0)
		return -ENOMEM;
	return evidence(r, sigs, rates, ctx);
}

int check_diagnose(struct cgw_report *r, const struct cgw_sigset *sigs, cgw_rates_fn rates,
                   void *ctx)
{
	int rc = check_classify(r, sigs);
	if (rc == 0 && evidence(r, sigs, rates, ctx) < 0) {
		log_warnx("cannot add the latency findings: out of memory");
		rc = EXIT_UNREADABLE;
	}
	return rc;
}
