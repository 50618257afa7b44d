/* record.c: the capture's recorder, shared by every reader. While on, each read of a file
 * under /proc, /sys or /dev/kmsg made through the shared read functions (util.c, deadline.c)
 * or named by a source (a link, a memory string, the kernel ring) is kept in memory, keyed by
 * its path in the captured tree ("proc/12/task/12/stat"): the bytes as read, or the error.
 * A later read of the same path replaces the earlier one: the tree holds the last read the
 * findings were made from. It calls no stage: source-capture.c prunes and writes it. */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "cgwatch.h"

#define REC_BUCKETS 4096

static pthread_mutex_t rec_lock = PTHREAD_MUTEX_INITIALIZER;
static struct rec_entry *rec_head[REC_BUCKETS];
static atomic_bool rec_on;
static _Thread_local bool rec_muted;
static void (*rec_redirect)(const char *tree_path, enum rec_kind kind, const char *data,
                            ssize_t r, void *ctx);
static void *rec_redirect_ctx;

static unsigned rec_hash(const char *s)
{
	unsigned h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h % REC_BUCKETS;
}

bool record_tree_path(const char *path, char *out, size_t cap)
{
	static const char *const roots[] = { "/proc/", "/sys/" };
	if (!path || cap == 0)
		return false;
	if (strcmp(path, "/dev/kmsg") == 0)
		return (size_t)snprintf(out, cap, "dev/kmsg") < cap;
	for (size_t i = 0; i < 2; i++)
		if (strncmp(path, roots[i], strlen(roots[i])) == 0) {
			if (strncmp(path, "/proc/thread-self/", 18) == 0)
				return false;         /* the clock hops: DIR/cgwatch/clocks holds them */
			return (size_t)snprintf(out, cap, "%s", path + 1) < cap;
		}
	return false;
}

void record_start(void)
{
	pthread_mutex_lock(&rec_lock);
	rec_on = true;
	pthread_mutex_unlock(&rec_lock);
}

void record_stop(void)
{
	pthread_mutex_lock(&rec_lock);
	rec_on = false;
	pthread_mutex_unlock(&rec_lock);
}

bool record_active(void)
{
	return rec_on && !rec_muted;          /* a hint: record_put checks again, locked */
}

void record_mute(bool mute)
{
	rec_muted = mute;
}

static void entry_free(struct rec_entry *e)
{
	free(e->path);
	free(e->data);
	free(e);
}

void record_redirect(void (*fn)(const char *tree_path, enum rec_kind kind, const char *data,
                                ssize_t r, void *ctx), void *ctx)
{
	pthread_mutex_init(&rec_lock, NULL);   /* a forked child: no other thread holds it */
	rec_redirect = fn;
	rec_redirect_ctx = ctx;
}

void record_put(const char *tree_path, enum rec_kind kind, const char *data, ssize_t r)
{
	if (rec_muted)
		return;
	if (rec_redirect) {
		pthread_mutex_lock(&rec_lock);
		if (rec_on)
			rec_redirect(tree_path, kind, data, r, rec_redirect_ctx);
		pthread_mutex_unlock(&rec_lock);
		return;
	}
	struct rec_entry *e = calloc(1, sizeof(*e));
	if (!e)
		return;
	e->kind = kind;
	e->err = r < 0 ? (int)-r : 0;
	e->len = r > 0 ? (size_t)r : 0;
	e->path = strdup(tree_path);
	e->data = malloc(e->len + 1);
	if (!e->path || !e->data) {
		entry_free(e);
		return;
	}
	if (e->len)
		memcpy(e->data, data, e->len);
	e->data[e->len] = '\0';
	unsigned h = rec_hash(tree_path);
	pthread_mutex_lock(&rec_lock);
	if (!rec_on) {
		pthread_mutex_unlock(&rec_lock);
		entry_free(e);
		return;
	}
	for (struct rec_entry **p = &rec_head[h]; *p; p = &(*p)->next)
		if (strcmp((*p)->path, tree_path) == 0) {
			struct rec_entry *old = *p;
			e->next = old->next;
			*p = e;
			entry_free(old);
			pthread_mutex_unlock(&rec_lock);
			return;
		}
	e->next = rec_head[h];
	rec_head[h] = e;
	pthread_mutex_unlock(&rec_lock);
}

void record_read(const char *path, const char *data, ssize_t r)
{
	char tp[4096];
	if (record_active() && record_tree_path(path, tp, sizeof(tp)))
		record_put(tp, REC_FILE, data, r);
}

void record_read_at(int dirfd, const char *name, const char *data, ssize_t r)
{
	if (!record_active())
		return;
	if (dirfd == AT_FDCWD || name[0] == '/') {
		record_read(name, data, r);
		return;
	}
	char link[64], dir[4096], full[4096 + 256];
	snprintf(link, sizeof(link), "/proc/self/fd/%d", dirfd);
	ssize_t n = readlink(link, dir, sizeof(dir) - 1);
	if (n <= 0)
		return;
	dir[n] = '\0';
	snprintf(full, sizeof(full), "%s/%s", dir, name);
	record_read(full, data, r);
}

void record_link(const char *path, const char *target, ssize_t r)
{
	char tp[4096];
	if (record_active() && record_tree_path(path, tp, sizeof(tp)))
		record_put(tp, REC_LINK, target, r);
}

bool record_has(const char *tree_path)
{
	bool found = false;
	unsigned h = rec_hash(tree_path);
	pthread_mutex_lock(&rec_lock);
	for (struct rec_entry *e = rec_head[h]; e && !found; e = e->next)
		found = strcmp(e->path, tree_path) == 0;
	pthread_mutex_unlock(&rec_lock);
	return found;
}

void record_forget(const char *path)
{
	char tp[4096];
	if (!record_active() || !record_tree_path(path, tp, sizeof(tp)))
		return;
	unsigned h = rec_hash(tp);
	pthread_mutex_lock(&rec_lock);
	for (struct rec_entry **p = &rec_head[h]; *p; p = &(*p)->next)
		if (strcmp((*p)->path, tp) == 0) {
			struct rec_entry *old = *p;
			*p = old->next;
			entry_free(old);
			break;
		}
	pthread_mutex_unlock(&rec_lock);
}

struct rec_entry *record_take(void)
{
	struct rec_entry *list = NULL;
	pthread_mutex_lock(&rec_lock);
	rec_on = false;
	for (size_t h = 0; h < REC_BUCKETS; h++) {
		while (rec_head[h]) {
			struct rec_entry *e = rec_head[h];
			rec_head[h] = e->next;
			e->next = list;
			list = e;
		}
	}
	pthread_mutex_unlock(&rec_lock);
	return list;
}

void record_free(struct rec_entry *list)
{
	while (list) {
		struct rec_entry *n = list->next;
		entry_free(list);
		list = n;
	}
}
