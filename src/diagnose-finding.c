/* diagnose-finding.c: the findings of a report: which holds a task, the highest severity, freeing. */
#include <stdlib.h>

#include "cgwatch.h"

ssize_t report_finding_of(const struct cgw_report *r, size_t idx)
{
	for (size_t k = 0; k < r->nf; k++)
		for (size_t j = 0; j < r->f[k].ntasks; j++)
			if (r->f[k].tasks[j] == idx)
				return (ssize_t)k;
	return -1;
}

enum cgw_sev report_max_severity(const struct cgw_report *r)
{
	enum cgw_sev m = SEV_NONE;
	for (size_t k = 0; k < r->nf; k++)
		if (r->f[k].severity > m)
			m = r->f[k].severity;
	return m;
}

void report_free(struct cgw_report *r)
{
	for (size_t k = 0; k < r->nf; k++) {
		free(r->f[k].tasks);
		free(r->f[k].chain);
		sb_free(&r->f[k].summary);
		sb_free(&r->f[k].evidence);
	}
	free(r->f);
	r->f = NULL;
	r->nf = 0;
}
