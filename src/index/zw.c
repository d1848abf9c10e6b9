#include "index/zw.h"
#include "util/log.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

enum cr_err zw_open(struct zw *z, const char *path)
{
	memset(z, 0, sizeof(*z));
	snprintf(z->path, sizeof(z->path), "%s", path);
	snprintf(z->tmp, sizeof(z->tmp), "%s.tmp.%d", path, (int)getpid());
	z->f = fopen(z->tmp, "wb");
	z->cc = ZSTD_createCCtx();
	if (!z->f || !z->cc) {
		log_err("index", "cannot write '%s': %s", z->tmp, strerror(errno));
		if (z->f)
			fclose(z->f);
		ZSTD_freeCCtx(z->cc);
		z->f = NULL;
		return CR_ERR_IO;
	}
	ZSTD_CCtx_setParameter(z->cc, ZSTD_c_checksumFlag, 1);
	return CR_OK;
}

void zw_push(struct zw *z, const void *p, size_t n, ZSTD_EndDirective mode)
{
	ZSTD_inBuffer in = { p, n, 0 };
	size_t r;

	do {
		ZSTD_outBuffer o = { z->out, sizeof(z->out), 0 };

		r = ZSTD_compressStream2(z->cc, &o, &in, mode);
		if (ZSTD_isError(r) || fwrite(z->out, 1, o.pos, z->f) != o.pos) {
			z->failed = 1;
			return;
		}
	} while (mode == ZSTD_e_end ? r != 0 : in.pos < in.size);
}

enum cr_err zw_close(struct zw *z, int commit)
{
	int bad;

	if (!z->f)
		return CR_OK;
	if (commit)
		zw_push(z, "", 0, ZSTD_e_end);
	bad = z->failed || fflush(z->f) != 0 || fsync(fileno(z->f)) != 0;
	bad |= fclose(z->f) != 0;
	z->f = NULL;
	ZSTD_freeCCtx(z->cc);
	if (commit && !bad && rename(z->tmp, z->path) == 0)
		return CR_OK;
	unlink(z->tmp);
	if (commit)
		log_err("index", "cannot write '%s'", z->path);
	return commit ? CR_ERR_IO : CR_OK;
}
