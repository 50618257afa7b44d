/* source-procdetail.c: what ps would show about a suspect's process (user, systemd unit, start),
 * through libproc2. libproc2 reads only the real /proc: a replay sees the captured tree
 * through the private mount namespace set up by source-root.c. */
#include <errno.h>
#include <libproc2/pids.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "cgwatch.h"

enum { D_PID, D_EUSER, D_UNIT, D_ELAPSED };
static enum pids_item detail_items[] = { PIDS_ID_PID, PIDS_ID_EUSER, PIDS_SD_UNIT,
                                         PIDS_TIME_ELAPSED };

struct detail_job {
	unsigned *pids; int n;
	struct { int pid; char user[64], unit[128]; double elapsed; } *out;
	int nout;
	int err;
};

static void detail_fn(void *p)
{
	struct detail_job *j = p;
	struct pids_info *info = NULL;
	if (procps_pids_new(&info, detail_items, 4) < 0) {
		j->err = -ENOMEM;
		return;
	}
	struct pids_fetch *f = procps_pids_select(info, j->pids, j->n, PIDS_SELECT_PID);
	if (!f) {
		j->err = -errno ? -errno : -EIO;
		procps_pids_unref(&info);
		return;
	}
	int total = f->counts->total;
	j->out = calloc((size_t)(total > 0 ? total : 1), sizeof(*j->out));
	if (!j->out) {
		j->err = -ENOMEM;
		procps_pids_unref(&info);
		return;
	}
	for (int i = 0; i < total; i++) {
		struct pids_stack *st = f->stacks[i];
		j->out[i].pid = PIDS_VAL(D_PID, s_int, st, info);
		const char *u = PIDS_VAL(D_EUSER, str, st, info);
		const char *unit = PIDS_VAL(D_UNIT, str, st, info);
		snprintf(j->out[i].user, sizeof(j->out[i].user), "%s", u ? u : "");
		snprintf(j->out[i].unit, sizeof(j->out[i].unit), "%s",
		         unit && strcmp(unit, "-") ? unit : "");
		j->out[i].elapsed = PIDS_VAL(D_ELAPSED, real, st, info);
	}
	j->nout = total;
	procps_pids_unref(&info);
}

static void detail_release(void *p)
{
	struct detail_job *j = p;
	free(j->pids);
	free(j->out);
	free(j);
}

int procdetail_fill(struct cgw_scan *s, unsigned timeout_ms)
{
	if (s->n == 0)
		return 0;
	struct detail_job *j = calloc(1, sizeof(*j));
	if (!j || !(j->pids = calloc(s->n, sizeof(unsigned)))) {
		free(j);
		return -ENOMEM;
	}
	for (size_t i = 0; i < s->n; i++) {
		bool seen = false;
		for (int k = 0; k < j->n && !seen; k++)
			seen = j->pids[k] == (unsigned)s->t[i].tgid;
		if (!seen)
			j->pids[j->n++] = (unsigned)s->t[i].tgid;
	}
	int e = dl_call(detail_fn, j, detail_release, timeout_ms);
	if (e == -ETIMEDOUT)
		warn_set_say(s->warns, "process details (libproc2) timed out after %g s, skipping",
		             timeout_ms / 1000.0);
	if (e < 0)
		return e;
	int err = j->err;
	time_t now = time(NULL);
	for (size_t i = 0; i < s->n; i++)
		for (int k = 0; k < j->nout; k++)
			if (j->out[k].pid == s->t[i].tgid) {
				struct cgw_task *t = &s->t[i];
				snprintf(t->user, sizeof(t->user), "%s", j->out[k].user);
				if (!t->unit[0])      /* the cgroup path is the same on a replay */
					snprintf(t->unit, sizeof(t->unit), "%s", j->out[k].unit);
				/* libproc2's own reading of uptime and the start time: a time only when
				 * it is one */
				double el = j->out[k].elapsed;
				if (isfinite(el) && el >= 0 && el <= CGW_MAX_SECONDS)
					t->started_at = (double)now - el;
			}
	detail_release(j);
	return err;
}
