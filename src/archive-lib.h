/* archive-lib.h: libarchive, loaded with dlopen when a bundle is written or read, never at
 * start: libarchive brings libxml2 and ICU (30 MiB of data), which the daemon would otherwise
 * map and, with memory locking, lock for its whole life. Include this instead of
 * <archive.h>; call archive_lib_load() before the first archive_* call. */
#ifndef CGW_ARCHIVE_LIB_H
#define CGW_ARCHIVE_LIB_H

#include <archive.h>
#include <archive_entry.h>
#include <stdbool.h>
#include <stddef.h>

#define CGW_ARCHIVE_FNS(X) \
	X(archive_entry_filetype) X(archive_entry_free) X(archive_entry_hardlink) \
	X(archive_entry_new) X(archive_entry_pathname) X(archive_entry_perm) \
	X(archive_entry_set_filetype) X(archive_entry_set_mtime) X(archive_entry_set_pathname) \
	X(archive_entry_set_perm) X(archive_entry_set_size) X(archive_entry_set_symlink) \
	X(archive_entry_size) X(archive_entry_size_is_set) X(archive_entry_symlink) \
	X(archive_errno) X(archive_error_string) X(archive_filter_bytes) X(archive_read_data) \
	X(archive_read_free) X(archive_read_new) X(archive_read_next_header) X(archive_read_open) \
	X(archive_read_support_filter_gzip) X(archive_read_support_filter_zstd) \
	X(archive_read_support_format_tar) X(archive_set_error) \
	X(archive_write_add_filter_gzip) X(archive_write_add_filter_zstd) X(archive_write_close) \
	X(archive_write_data) X(archive_write_free) X(archive_write_header) X(archive_write_new) \
	X(archive_write_open_fd) X(archive_write_set_format_pax_restricted)

#define CGW_ARCHIVE_FIELD(f) __typeof__(f) *f;
struct cgw_archive_lib { CGW_ARCHIVE_FNS(CGW_ARCHIVE_FIELD) };
#undef CGW_ARCHIVE_FIELD
extern struct cgw_archive_lib cgw_archive;

/* Load libarchive (once per process; thread-safe). Returns true, or false with why (the
 * library or one of its functions missing). */
bool archive_lib_load(char *why, size_t cap);

#ifndef CGW_ARCHIVE_LIB_IMPL
#include "archive-lib-names.h"
#endif

#endif
