/* diagnose-psi.c: pressure (PSI) against the [pressure] thresholds, and the pressure of a
 * finding's cgroups as its evidence (pure). A threshold is the kernel's trigger: a stall of
 * STALL within WINDOW. The daemon decides it by the stall total (psi_hist_crosses): crossed
 * when the total grew by STALL or more over a WINDOW, read at the trigger's events and at each
 * scan; an event alone is not enough (the kernel fires a new trigger once or twice at
 * registration with next to no stall). A check, with one look, counts it crossed when avg10,
 * the share of the last 10 s stalled, is at or above STALL/WINDOW. */
#include <limits.h>
#include <stdio.h>
#include <string.h>

#include "cgwatch.h"

void pressure_decide(struct cgw_pressure *p)
{
	for (int r = 0; r < PSI_NRES; r++) {
		const struct cgw_psi_trigger *t = &p->trig[r];
		const struct cgw_psi_avg *a = t->full ? &p->sys[r].full : &p->sys[r].some;
		const char *kind = t->full ? "full" : "some";
		char stall[24], win[24];
		p->crossed[r] = false;
		p->why[r][0] = '\0';
		if (!t->on || t->window_us == 0)
			continue;
		psi_us_text(t->stall_us, stall, sizeof(stall));
		psi_us_text(t->window_us, win, sizeof(win));
		double pct = 100.0 * t->stall_us / t->window_us;
		if (p->measured[r]) {         /* the daemon's: the stall total decides */
			char grew[24];
			unsigned long long g = (p->growth_us[r] + 500) / 1000 * 1000;
			p->crossed[r] = p->growth_us[r] >= t->stall_us;
			if (!p->crossed[r])
				continue;
			psi_us_text(g > UINT_MAX ? UINT_MAX : (unsigned)g, grew, sizeof(grew));
			int n = snprintf(p->why[r], sizeof(p->why[r]), "%s %s stalled %s of the last %s "
			                 "(the stall total's growth; threshold %s)", psi_res_name(r), kind,
			                 grew, win, stall);
			if (a->have && n > 0 && (size_t)n < sizeof(p->why[r]))
				snprintf(p->why[r] + n, sizeof(p->why[r]) - (size_t)n, "; avg10 %.0f %%",
				         a->avg10);
		} else if (p->fired[r]) {
			p->crossed[r] = true;
			if (a->have)
				snprintf(p->why[r], sizeof(p->why[r]), "%s %s stalled %s or more in %s (the "
				         "kernel's trigger); avg10 %.0f %%", psi_res_name(r), kind, stall, win,
				         a->avg10);
			else
				snprintf(p->why[r], sizeof(p->why[r]), "%s %s stalled %s or more in %s (the "
				         "kernel's trigger)", psi_res_name(r), kind, stall, win);
		} else if (a->have && a->avg10 >= pct) {
			p->crossed[r] = true;
			snprintf(p->why[r], sizeof(p->why[r]), "%s %s avg10 %.0f %% (threshold %s in %s, "
			         "%.0f %%)", psi_res_name(r), kind, a->avg10, stall, win, pct);
		}
	}
}

const char *pressure_cgroup_line(const struct cgw_psi_cgroup *c, char *buf, size_t cap)
{
	struct strbuf b = { 0 };
	for (int r = 0; r < PSI_NRES; r++) {
		const struct cgw_psi *x = &c->res[r];
		if (!x->have || !x->some.have || x->some.avg10 < PSI_FLOOR_PCT)
			continue;
		sb_printf(&b, "%s%s some avg10 %.0f %%", b.len ? ", " : "", psi_res_name(r),
		          x->some.avg10);
		if (x->full.have && x->full.avg10 >= PSI_FLOOR_PCT)
			sb_printf(&b, " (full %.0f %%)", x->full.avg10);
	}
	if (b.len && !b.lost) {
		char path[sizeof(c->path) * 4];
		snprintf(buf, cap, "%s: %s", cescape(c->path, strlen(c->path), path, sizeof(path)),
		         b.s);
	} else {
		buf[0] = '\0';
	}
	sb_free(&b);
	return buf;
}

void pressure_link(struct cgw_report *r, const struct cgw_pressure *p)
{
	if (!p || !r->scan)
		return;
	char line[1400];
	for (size_t i = 0; i < r->nf; i++) {
		struct cgw_finding *f = &r->f[i];
		for (size_t k = 0; k < p->ncg; k++) {
			bool mine = false;
			for (size_t j = 0; j < f->ntasks && !mine; j++)
				mine = strcmp(r->scan->t[f->tasks[j]].cgroup, p->cg[k].path) == 0;
			if (mine && pressure_cgroup_line(&p->cg[k], line, sizeof(line))[0])
				sb_printf(&f->evidence, "%s\n", line);
		}
	}
}

void psi_hist_add(struct psi_hist *h, uint64_t t_us, unsigned long long total_us)
{
	if (h->n && t_us <= h->s[h->n - 1].t_us)
		return;
	/* the samples before the one the longest window starts at or after are not needed */
	size_t drop = 0;
	while (drop + 1 < h->n && h->s[drop + 1].t_us + PSI_WINDOW_MAX_US <= t_us)
		drop++;
	if (h->n - drop == PSI_HIST_MAX)
		drop++;
	if (drop) {
		memmove(h->s, h->s + drop, (h->n - drop) * sizeof(h->s[0]));
		h->n -= drop;
	}
	h->s[h->n++] = (struct psi_sample){ t_us, total_us };
}

bool psi_hist_crosses(const struct psi_hist *h, const struct cgw_psi_trigger *t,
                      unsigned long long *growth_us)
{
	*growth_us = 0;
	if (h->n < 2)
		return false;
	const struct psi_sample *now = &h->s[h->n - 1];
	uint64_t start = now->t_us > t->window_us ? now->t_us - t->window_us : 0;
	unsigned long long base = h->s[0].total_us;   /* less than a window: from the oldest */
	for (size_t k = h->n - 1; k-- > 0;) {
		if (h->s[k].t_us > start)
			continue;
		const struct psi_sample *a = &h->s[k], *b = &h->s[k + 1];
		base = a->total_us;
		if (b->total_us > a->total_us && start > a->t_us) {
			/* the stall of [a, start] as if spread evenly over [a, b], rounded up */
			unsigned __int128 x = (unsigned __int128)(b->total_us - a->total_us) *
			                      (start - a->t_us);
			uint64_t span = b->t_us - a->t_us;
			base += (unsigned long long)((x + span - 1) / span);
		}
		break;
	}
	*growth_us = now->total_us > base ? now->total_us - base : 0;
	return t->on && *growth_us >= t->stall_us;
}
