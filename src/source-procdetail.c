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

/* The live run that records: what it says of each process (user, unit, start), as
 * cgwatch/detail/TGID, so that a replay elsewhere says the same (libproc2 would name users
 * from that machine's /etc/passwd and time starts by its clock). */
static void detail_record(const struct cgw_scan *s)
{
	for (size_t i = 0; i < s->n; i++) {
		const struct cgw_task *t = &s->t[i];
		bool first = true;
		for (size_t k = 0; k < i && first; k++)
			first = s->t[k].tgid != t->tgid;
		if (!first || (!t->user[0] && !t->unit[0] && t->started_at <= 0))
			continue;
		struct cap_detail d = { .have_started = t->started_at > 0,
		                        .started_at = t->started_at };
		snprintf(d.user, sizeof(d.user), "%s", t->user);
		snprintf(d.unit, sizeof(d.unit), "%s", t->unit);
		struct strbuf b = { 0 };
		detail_format(&d, &b);
		char tp[64];
		snprintf(tp, sizeof(tp), "cgwatch/detail/%d", t->tgid);
		if (!b.lost)
			record_put(tp, REC_FILE, b.s, (ssize_t)b.len);
		sb_free(&b);
	}
}

/* A replay of a capture: its cgwatch/detail/TGID files, where it has them, in place of what
 * libproc2 says here; one that is not a detail file is named and left alone. */
static void detail_replay(struct cgw_scan *s, unsigned timeout_ms)
{
	char path[4200], buf[1024];
	for (size_t i = 0; i < s->n; i++) {
		bool first = true;
		for (size_t k = 0; k < i && first; k++)
			first = s->t[k].tgid != s->t[i].tgid;
		if (!first)
			continue;
		int tgid = s->t[i].tgid;
		snprintf(path, sizeof(path), "%s/cgwatch/detail/%d", s->replay_root, tgid);
		ssize_t n = dl_read_file(path, buf, sizeof(buf), timeout_ms);
		struct cap_detail d;
		if (n == -ENOENT)
			continue;
		if (n < 0 || parse_detail(buf, &d) < 0) {
			char tp[64];
			snprintf(tp, sizeof(tp), "cgwatch/detail/%d", tgid);
			scan_unreadable(s, tp, "%s; user, unit and start as this machine's libproc2 "
			                "says", n < 0 ? strerror((int)-n) : "not a detail file");
			continue;
		}
		for (size_t k = i; k < s->n; k++) {
			struct cgw_task *t = &s->t[k];
			if (t->tgid != tgid)
				continue;
			snprintf(t->user, sizeof(t->user), "%s", d.user);
			if (d.unit[0])
				snprintf(t->unit, sizeof(t->unit), "%s", d.unit);
			t->started_at = d.have_started ? d.started_at : 0;
		}
	}
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
	if (e < 0) {
		if (s->replay_root)           /* what the capture says needs no libproc2 */
			detail_replay(s, timeout_ms);
		return e;
	}
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
	if (s->replay_root)
		detail_replay(s, timeout_ms);
	else if (record_active())
		detail_record(s);
	return err;
}
