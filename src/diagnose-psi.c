/* diagnose-psi.c: pressure (PSI) against the [pressure] thresholds, and the pressure of a
 * finding's cgroups as its evidence (pure). A threshold is the kernel's trigger: a stall of
 * STALL within WINDOW. It is crossed when the trigger fired since the last scan (the daemon's)
 * or when avg10, the share of the last 10 s stalled, is at or above STALL/WINDOW (what a scan
 * without triggers, or a check, can tell). */
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
		if (p->fired[r]) {
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
