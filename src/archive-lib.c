/* archive-lib.c: libarchive through dlopen (archive-lib.h says why). */
#define CGW_ARCHIVE_LIB_IMPL
#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

#include "archive-lib.h"

struct cgw_archive_lib cgw_archive;

static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;
static bool loaded;
static char failed[256];

/* The library's functions into cgw_archive; false with failed set when one is missing. */
static bool resolve(void *h)
{
#define CGW_ARCHIVE_SYM(f) \
	if (!(cgw_archive.f = (__typeof__(f) *)dlsym(h, #f))) { \
		snprintf(failed, sizeof(failed), "libarchive.so.13 has no %s", #f); \
		return false; \
	}
	CGW_ARCHIVE_FNS(CGW_ARCHIVE_SYM)
#undef CGW_ARCHIVE_SYM
	return true;
}

bool archive_lib_load(char *why, size_t cap)
{
	pthread_mutex_lock(&lock);
	if (!loaded && !failed[0]) {
		void *h = dlopen("libarchive.so.13", RTLD_NOW | RTLD_LOCAL);
		if (!h)
			snprintf(failed, sizeof(failed), "cannot load libarchive (libarchive13): %s",
			         dlerror());
		else if (resolve(h))
			loaded = true;
		else
			dlclose(h);
	}
	bool ok = loaded;
	if (!ok && why)
		snprintf(why, cap, "%s", failed);
	pthread_mutex_unlock(&lock);
	return ok;
}
