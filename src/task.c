/* task.c: what every stage says about a task: its name, whether its stack holds a frame,
 * how long it has been stuck, its scheduling policy's name. */
#include <stdio.h>
#include <string.h>

#include "cgwatch.h"

const char *task_name(const struct cgw_task *t, char *buf, size_t cap)
{
	char comm[CGW_COMM_MAX * 4];
	cescape(t->comm, t->comm_len, comm, sizeof(comm));
	snprintf(buf, cap, "%s %d (%s)", t->tid == t->tgid ? "PID" : "TID", t->tid, comm);
	return buf;
}

const char *ustack_sym_note(const struct cgw_uframe *f)
{
	if (!f->symbol_from)
		return "";
	if (!strcmp(f->symbol_from, "dynsym"))
		return "; nearest exported symbol";
	if (f->sym_task_mntns)             /* a debug file's: the task's namespace chose them */
		return f->sym_exact ? "; symbols from the task's mount namespace" :
		       "; size unknown; symbols from the task's mount namespace";
	return f->sym_exact ? "" : "; size unknown";
}

const char *ustack_top(const struct cgw_task *t, char *buf, size_t cap)
{
	buf[0] = '\0';
	if (!t->nuframes)
		return buf;
	const struct cgw_uframe *f = &t->uframes[0];
	const char *m = f->module[0] ? f->module : "[anonymous]";
	if (f->symbol[0])
		snprintf(buf, cap, "%s+0x%lx (%s+0x%lx%s)", f->symbol, f->sym_off, m, f->offset,
		         ustack_sym_note(f));
	else
		snprintf(buf, cap, "%s+0x%lx", m, f->offset);
	return buf;
}

bool task_has_frame(const struct cgw_task *t, const char *name)
{
	size_t n = strlen(name);
	bool prefix = n && name[n - 1] == '*';
	for (size_t i = 0; i < t->nframes; i++)
		if (prefix ? strncmp(t->frames[i].name, name, n - 1) == 0
		           : strcmp(t->frames[i].name, name) == 0)
			return true;
	return false;
}

struct cgw_dur task_dur(const struct cgw_task *t)
{
	return (struct cgw_dur){ t->blocked_s, t->bound };
}

static const char *const policy_names[] = {
	"SCHED_OTHER", "SCHED_FIFO", "SCHED_RR", "SCHED_BATCH", "SCHED_ISO", "SCHED_IDLE",
	"SCHED_DEADLINE", "SCHED_EXT"
};

const char *policy_name(unsigned p)
{
	return p < sizeof(policy_names) / sizeof(policy_names[0]) ? policy_names[p] : "SCHED_?";
}
