/* source-ustackname.c: the names of an unwound user stack's frames, from the ELF files the
 * task has mapped (source-elf.c: .symtab, a separate debug file, else .dynsym), opened as the
 * task sees them (source-mapfile.c: its mount namespace; the mapped file or none). Runs in
 * the calling thread once the unwind is done, each file's lookup under its own deadline:
 * a name is never read from the unwind's memory of the task, and a binary on a stuck mount
 * costs one deadline, not the unwind. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>

#include "cgwatch.h"

void ustack_name_frame(struct cgw_uframe *f, const struct elf_sym *s, unsigned long adj)
{
	f->symbol[0] = '\0';
	f->sym_off = 0;
	f->sym_exact = false;
	f->symbol_from = NULL;
	f->sym_task_mntns = false;
	f->have_vaddr = s->have_vaddr;
	f->vaddr = s->have_vaddr ? (unsigned long)s->vaddr + adj : 0;
	snprintf(f->build_id, sizeof(f->build_id), "%s", s->build_id);
	f->symbol_why[0] = '\0';
	if (s->from == ELFSYM_NONE) {
		snprintf(f->symbol_why, sizeof(f->symbol_why), "%s", s->why);
		return;
	}
	size_t len = strlen(s->name), cap = sizeof(f->symbol) - 4;
	bool cut = s->name_cut || len > cap;
	if (len > cap)
		len = cap;
	memcpy(f->symbol, s->name, len);
	memcpy(f->symbol + len, cut ? "..." : "", cut ? 4 : 1);
	f->sym_off = (unsigned long)s->off + adj;
	f->sym_exact = s->exact;
	f->symbol_from = elfsym_from_name(s->from);
	f->sym_task_mntns = s->from_task_mntns;
}

/* Are a and b mappings of the same file (the same path, device and inode)? */
static bool same_file(const struct maps_ent *a, const struct maps_ent *b)
{
	return a->inode == b->inode && a->dev_major == b->dev_major &&
	       a->dev_minor == b->dev_minor && a->path_len == b->path_len &&
	       memcmp(a->path, b->path, a->path_len) == 0;
}

/* The unwind said where the stack ends by the last frame's module and offset (it runs before
 * the names are known): by its name, when it has one now. */
static void name_error(char *err, size_t cap, const struct cgw_uframe *last)
{
	static const char pre[] = "user stack ends at ";
	char at[256], at2[128], named[400];
	if (!last->symbol[0] || strncmp(err, pre, sizeof(pre) - 1) != 0)
		return;
	/* as source-ustack.c writes it: the frame's "MODULE+0xOFF" cut to fit 96 bytes, or
	 * the module cut to 95 bytes then "+0xOFF" */
	snprintf(at, sizeof(at), "%s+0x%lx", last->module[0] ? last->module : "?", last->offset);
	at[95] = '\0';
	snprintf(at2, sizeof(at2), "%.95s+0x%lx", last->module, last->offset);
	const char *rest = err + sizeof(pre) - 1, *tail = NULL;
	if (!strncmp(rest, at, strlen(at)))
		tail = rest + strlen(at);
	else if (!strncmp(rest, at2, strlen(at2)))
		tail = rest + strlen(at2);
	if (!tail || (*tail != ':' && *tail != '\0'))
		return;
	snprintf(named, sizeof(named), "%s%s+0x%lx%s", pre, last->symbol, last->sym_off, tail);
	snprintf(err, cap, "%s", named);
}

void ustack_name_frames(struct cgw_scan *s, int tgid, const struct maps_index *maps,
                        struct cgw_uframe *f, size_t n, char *err, size_t errcap,
                        unsigned timeout_ms)
{
	if (!n || !maps)
		return;
	bool *done = calloc(n, sizeof(*done));
	size_t *idx = calloc(n, sizeof(*idx));
	uint64_t *off = calloc(n, sizeof(*off));
	struct elf_sym *out = calloc(n, sizeof(*out));
	struct maps_ent *me = calloc(n, sizeof(*me));
	if (!done || !idx || !off || !out || !me) {
		s->nomem = true;
		goto out;
	}
	for (size_t i = 0; i < n; i++) {      /* each frame's mapping, looked up once */
		const struct maps_ent *m = maps_index_find(maps, f[i].pc);
		if (m)
			me[i] = *m;
		done[i] = f[i].module[0] != '/' || !m || !m->inode;
	}
	for (size_t i = 0; i < n; i++) {
		if (done[i])
			continue;
		const struct maps_ent e = me[i];
		/* every frame in this file, named in one lookup; a return address is named by
		 * the call before it (pc - 1), the innermost frame's pc (and one a signal
		 * interrupted) by itself */
		size_t k = 0;
		for (size_t j = i; j < n; j++)
			if (!done[j] && (j == i || same_file(&me[j], &e))) {
				done[j] = true;
				idx[k] = j;
				off[k++] = f[j].offset - !f[j].pc_exact;
			}
		if (s->timeouts >= SCAN_MAX_TIMEOUTS) {
			for (size_t q = 0; q < k; q++)
				snprintf(f[idx[q]].symbol_why, sizeof(f[idx[q]].symbol_why), "not looked "
				         "up: the scan's budget of timed-out reads is spent");
			continue;
		}
		/* live: the file the task maps, as it sees it; a replay: the file at its path here,
		 * which the caller checked is the recorded build */
		int r = tgid > 0 ? elfsym_names_mapped(tgid, &e, off, k, out, timeout_ms) :
		        elfsym_names(f[i].module, off, k, out, timeout_ms);
		if (r == -ETIMEDOUT)
			s->timeouts++;
		for (size_t q = 0; q < k; q++)
			ustack_name_frame(&f[idx[q]], &out[q], !f[idx[q]].pc_exact);
	}
	if (err)
		name_error(err, errcap, &f[n - 1]);
out:
	free(done);
	free(idx);
	free(off);
	free(out);
	free(me);
}
