/*
 * fs.h - files of the crawl directory: create directories, write a whole file
 * atomically (temporary name, fsync, rename), read a small file whole.
 * Committed files are never edited in place; a phase writes new names and
 * commits by rename.
 */
#ifndef CR_UTIL_FS_H
#define CR_UTIL_FS_H

#include <stddef.h>
#include <stdio.h>
#include <sys/types.h>

#include "util/buf.h"
#include "util/error.h"

/* mkdir -p; existing directories are fine. */
CR_WUR enum cr_err fs_mkdirs(const char *path);
/* Writes data to path.tmp.<pid>, fsyncs, renames to path, fsyncs the directory. */
CR_WUR enum cr_err fs_write_atomic(const char *path, const void *data, size_t n);
/* As fs_write_atomic without the fsyncs: for files that only report
 * (progress counters), where losing the last write in a crash is fine. */
CR_WUR enum cr_err fs_write_replace(const char *path, const void *data, size_t n);
/* Reads the whole file (at most max bytes, else CR_ERR_LIMIT) into out (appended). */
/* pread(2) of up to n bytes at off, again when a signal interrupts it: the
 * bytes read, 0 at the end of the file, -1 (errno set) on failure. */
ssize_t fs_pread(int fd, void *p, size_t n, uint64_t off);
CR_WUR enum cr_err fs_read_all(const char *path, size_t max, struct buf *out);
/* 1 if path exists. */
int fs_exists(const char *path);
/* Removes a directory tree (used only on our own temporary/uncommitted output). */
CR_WUR enum cr_err fs_remove_tree(const char *path);
/* Copies src to dst through a temporary name and a rename, a chunk at a
 * time (memory does not grow with the file), synced. */
CR_WUR enum cr_err fs_copy_atomic(const char *src, const char *dst);
/* dst becomes a hard link to src, or a copy where links are not possible
 * (another filesystem); dst appears whole or not at all. */
CR_WUR enum cr_err fs_link_or_copy(const char *src, const char *dst);
/* A line of fp into *line (grown as getline grows it; '\n' kept, NUL
 * ended): its length, or -1 at the end of the file or an error - or
 * FS_LINE_TOO_LONG for a line of more than max bytes, of which no more than
 * max are held (the rest is left unread: the caller stops, or skips it with
 * fs_skip_line). */
#define FS_LINE_TOO_LONG (-2)
ssize_t fs_getline_max(char **line, size_t *cap, size_t max, FILE *fp);
/* Reads fp up to and with the next '\n' (or the end), holding nothing. */
void fs_skip_line(FILE *fp);
/* 1 (said in one line) if path exists and is not a regular file - a
 * device, a fifo, a directory: what is written by rename would replace it,
 * so fs_write_atomic and fs_write_replace refuse it (CR_ERR_ARG). */
int fs_not_regular(const char *path);
/* fsync a directory so a rename in it is durable. */
void fs_sync_dir(const char *dir);
/* The names in dir that start with prefix and end with suffix (either ""),
 * no hidden or temporary (".tmp") one, sorted bytewise; *n of them. A
 * missing dir has none. Free with fs_list_free. */
char **fs_list(const char *dir, const char *prefix, const char *suffix, size_t *n);
void fs_list_free(char **v, size_t n);

#endif
