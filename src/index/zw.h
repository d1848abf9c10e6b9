/*
 * zw.h - a zstd stream written to path.tmp.PID and renamed to path when
 * committed: the index's link graph. Life: zw_open, zw_push..., zw_close
 * (commit or not; the temporary is removed either way).
 */
#ifndef CR_INDEX_ZW_H
#define CR_INDEX_ZW_H

#include <limits.h>
#include <stdio.h>
#include <zstd.h>

#include "util/error.h"

struct zw {
	FILE *f;
	ZSTD_CCtx *cc;
	char path[PATH_MAX], tmp[PATH_MAX + 32];
	unsigned char out[1 << 16];
	int failed;
};

CR_WUR enum cr_err zw_open(struct zw *z, const char *path);
/* Compresses p[0..n) (mode: ZSTD_e_continue, or ZSTD_e_end to finish);
 * a failure is kept in z->failed for zw_close. */
void zw_push(struct zw *z, const void *p, size_t n, ZSTD_EndDirective mode);
/* Finishes (commit: the frame ended, synced, renamed to path) or drops the
 * stream. CR_ERR_IO if a commit failed. */
enum cr_err zw_close(struct zw *z, int commit);

#endif
