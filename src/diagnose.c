/* diagnose.c: the diagnosis stage, the one step check and the daemon call on a scan:
 * signatures and their correlators (diagnose-classify.c, diagnose-correlate.c), then the evidence of kernel
 * messages (diagnose-kmsg.c) and of cgroup activity counts (diagnose-rates.c), in that order;
 * a replay's flight recorder readout is told from its first finding (diagnose-recorder.c). */
#include <errno.h>

#include "cgwatch.h"
#include "kmsg.h"
#include "rates.h"

/* The evidence after the findings: the counts are asked for once the findings are known
 * (check opens its counting window only when one needs them). A replay of a capture that
 * holds the live run's counts (cgwatch/rates) reports those. */
static void evidence(struct cgw_report *r, cgw_rates_fn rates, void *ctx)
{
	if (r->scan && r->scan->replay_rates) {
		r->rates = r->scan->replay_rates;
		r->rates_skipped = false;
	} else if (rates) {
		rates(r, ctx);
	}
	lock_link(r);                     /* out of memory: the lines are missing, nothing else */
	kmsg_link(r, r->kmsg);
	rates_link(r, r->rates);
	if (r->scan && r->scan->replay_recorder) {   /* a bundle's flight recorder readout */
		recorder_anchor(r->scan->replay_recorder, r, -1);
		r->recorder = r->scan->replay_recorder;
	}
}

int diagnose(struct cgw_report *r, const struct cgw_sigset *sigs, cgw_rates_fn rates, void *ctx)
{
	if (classify(r, sigs) < 0)
		return -ENOMEM;
	evidence(r, rates, ctx);
	return 0;
}

int check_diagnose(struct cgw_report *r, const struct cgw_sigset *sigs, cgw_rates_fn rates,
                   void *ctx)
{
	int rc = check_classify(r, sigs);
	if (rc == 0)
		evidence(r, rates, ctx);
	return rc;
}
