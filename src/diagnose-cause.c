/* diagnose-cause.c: the cause key of a suspect, what its wait is on, stable for the life of one hang:
 * the mount a file wait is on, the workqueue flushed (or who flushes), the frozen cgroup.
 * Findings are one per signature and cause (diagnose-classify.c), incidents keyed by both (incident.c).
 * Never a task id, nor anything that changes while the hang goes on: another task joining or
 * taking over the wait keeps the cause. */
#include <errno.h>
#include <string.h>

#include "cgwatch.h"

/* Frames of the flush family, the generic workqueue-flush's and their wrappers: the first
 * frame outside them is the caller that names the workqueue. */
static const char *const flush_frames[] = {
	"__flush_workqueue", "flush_workqueue", "drain_workqueue", "__flush_work", "flush_work",
	"__cancel_work_sync", "__cancel_work_timer", "__cancel_work", "cancel_work_sync",
	"cancel_delayed_work_sync", "flush_delayed_work", "flush_rcu_work",
};

static bool is_flush(const char *name)
{
	for (size_t i = 0; i < sizeof(flush_frames) / sizeof(flush_frames[0]); i++)
		if (strcmp(name, flush_frames[i]) == 0)
			return true;
	return false;
}

const char *flush_caller(const struct cgw_task *t)
{
	size_t i = 0;
	while (i < t->nframes && !is_flush(t->frames[i].name))
		i++;
	while (i < t->nframes && is_flush(t->frames[i].name))
		i++;
	return i < t->nframes && t->frames[i].name[0] ? t->frames[i].name : NULL;
}

char *task_cause(const struct cgw_task *t, char *out, size_t cap)
{
	const struct cgw_sig *s = t->sig;
	const char *caller;
	out[0] = '\0';
	if (t->frozen && t->frozen_cg[0] == '/')
		snprintf(out, cap, "cgroup %s", t->frozen_cg);
	else if (t->frozen && t->cgroup[0] && t->cgroup[0] != '?')
		snprintf(out, cap, "cgroup %s", t->cgroup);
	else if (!s)
		;
	else if (s->workqueue)
		snprintf(out, cap, "workqueue %s", s->workqueue);
	else if (s->correlator && strcmp(s->correlator, "workqueue") == 0 &&
	         (caller = flush_caller(t)))
		snprintf(out, cap, "flush by %s", caller);
	else if (t->wait_mnt && s->cause_mount)
		snprintf(out, cap, "mount %s", t->wait_mnt);
	return out;
}

bool cause_ok(const char *c)
{
	/* a mount point or cgroup is a path ("/" itself too); the names are not empty */
	static const char *const kinds[] = { "mount /", "cgroup /", "workqueue ?", "flush by ?",
	                                     "cpu ?", "pressure ?" };
	for (size_t i = 0; i < sizeof(kinds) / sizeof(kinds[0]); i++) {
		size_t n = strlen(kinds[i]);
		bool any = kinds[i][n - 1] == '?';
		if (strncmp(c, kinds[i], n - any) == 0 && (!any || c[n - 1] != '\0'))
			return true;
	}
	return false;
}

void cause_evidence(struct strbuf *ev, const struct cgw_task *t)
{
	struct sys_info si = syscall_info(t->sys_nr);
	if (!t->sys_known || !si.name)
		return;
	const char *kind = t->tid == t->tgid ? "PID" : "TID";
	if (!t->wait_path && !t->wait_mnt && t->wait_err == -ETIMEDOUT) {
		/* /proc/TID/mem waits for the task's mmap lock: held, or waited for by a writer */
		sb_printf(ev, "%s %d waits in %s on a path not read: reading it from its memory "
		          "timed out after %g s (its mmap lock is held or waited for)\n", kind, t->tid,
		          si.name, t->wait_err_s);
		return;
	}
	if (!t->wait_path && !t->wait_mnt)
		return;
	sb_printf(ev, "%s %d waits in %s on %s", kind, t->tid, si.name,
	          t->wait_path ? cesc(t->wait_path) : "a path not read");
	if (t->wait_mnt) {
		bool fuse = strncmp(t->wait_fstype, "fuse", 4) == 0;
		sb_printf(ev, ", on the %s mount %s (%s %s)", cesc(t->wait_fstype), cesc(t->wait_mnt),
		          fuse ? "connection" : "device", cesc(t->wait_dev));
	}
	sb_add(ev, "\n", 1);
}
