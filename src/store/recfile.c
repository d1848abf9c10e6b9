#include "store/recfile.h"
#include "store/pack.h"
#include "util/fs.h"
#include "util/buf.h"
#include "util/log.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>
#include <zstd.h>

#define REC_MAGIC "MPCRREC1"
#define REC_HEADER 16
#define REC_FLUSH (1u << 20)

struct recfile_writer {
	char path[PATH_MAX];
	char tmp[PATH_MAX];
	int fd;
	ZSTD_CCtx *cctx;
	struct buf in;
	struct buf out;
	XXH64_state_t *xx;
	uint64_t count;
	int failed;
};

static enum cr_err write_full(int fd, const void *p, size_t n, const char *name)
{
	const char *c = p;

	while (n > 0) {
		ssize_t w = write(fd, c, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			log_err("store", "cannot write '%s': %s", name, strerror(errno));
			return CR_ERR_IO;
		}
		c += w;
		n -= (size_t)w;
	}
	return CR_OK;
}

enum cr_err recfile_writer_open(const char *path, enum rec_kind kind, int level,
			    struct recfile_writer **out)
{
	struct recfile_writer *w = calloc(1, sizeof(*w));
	unsigned char hdr[REC_HEADER];

	if (!w)
		return CR_ERR_NOMEM;
	if (snprintf(w->path, sizeof(w->path), "%s", path) >= (int)sizeof(w->path) ||
	    snprintf(w->tmp, sizeof(w->tmp), "%s.tmp.%d", path, (int)getpid()) >=
		    (int)sizeof(w->tmp)) {
		free(w);
		return CR_ERR_ARG;
	}
	w->fd = open(w->tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (w->fd < 0) {
		log_err("store", "cannot create '%s': %s", w->tmp, strerror(errno));
		free(w);
		return CR_ERR_IO;
	}
	w->cctx = ZSTD_createCCtx();
	w->xx = XXH64_createState();
	if (!w->cctx || !w->xx) {
		recfile_writer_abort(&w);
		return CR_ERR_NOMEM;
	}
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, level);
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1);
	/* Sort runs are read many at once (xsort.h): a small window keeps
	 * each reader's memory small. */
	if (kind == REC_KIND_SORT)
		ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_windowLog, 17);
	XXH64_reset(w->xx, 0);
	buf_init(&w->in);
	buf_init(&w->out);
	memcpy(hdr, REC_MAGIC, 8);
	hdr[8] = (unsigned char)kind;
	memset(hdr + 9, 0, 7);
	if (write_full(w->fd, hdr, sizeof(hdr), w->tmp) != CR_OK) {
		recfile_writer_abort(&w);
		return CR_ERR_IO;
	}
	*out = w;
	return CR_OK;
}

static enum cr_err writer_pump(struct recfile_writer *w, ZSTD_EndDirective mode)
{
	ZSTD_inBuffer in = { w->in.p, w->in.len, 0 };
	size_t cap = ZSTD_CStreamOutSize();

	for (;;) {
		ZSTD_outBuffer o;
		size_t rem;

		buf_reserve(&w->out, cap);
		o.dst = w->out.p;
		o.size = cap;
		o.pos = 0;
		rem = ZSTD_compressStream2(w->cctx, &o, &in, mode);
		if (ZSTD_isError(rem)) {
			log_err("store", "zstd: %s", ZSTD_getErrorName(rem));
			return CR_ERR_LIB;
		}
		if (o.pos && write_full(w->fd, o.dst, o.pos, w->tmp) != CR_OK)
			return CR_ERR_IO;
		if (mode == ZSTD_e_end ? rem == 0 : in.pos == in.size)
			break;
	}
	w->in.len = 0;
	return CR_OK;
}

enum cr_err recfile_writer_add(struct recfile_writer *w, const void *data, size_t n)
{
	size_t start = w->in.len;

	if (w->failed)
		return CR_ERR_IO;
	if (n > REC_MAX_BYTES)
		return CR_ERR_LIMIT;
	buf_put_varint(&w->in, (uint64_t)n + 1);
	buf_add(&w->in, data, n);
	XXH64_update(w->xx, w->in.p + start, w->in.len - start);
	w->count++;
	if (w->in.len >= REC_FLUSH && writer_pump(w, ZSTD_e_continue) != CR_OK) {
		w->failed = 1;
		return CR_ERR_IO;
	}
	return CR_OK;
}

uint64_t recfile_writer_count(const struct recfile_writer *w)
{
	return w->count;
}

enum cr_err recfile_writer_commit(struct recfile_writer **wp)
{
	struct recfile_writer *w = *wp;
	uint64_t sum;
	enum cr_err e = CR_OK;

	if (w->failed)
		e = CR_ERR_IO;
	if (!e) {
		sum = XXH64_digest(w->xx);
		buf_put_varint(&w->in, 0);
		buf_put_u64le(&w->in, w->count);
		buf_put_u64le(&w->in, sum);
		e = writer_pump(w, ZSTD_e_end);
	}
	if (!e && fsync(w->fd) != 0) {
		log_err("store", "cannot sync '%s': %s", w->tmp, strerror(errno));
		e = CR_ERR_IO;
	}
	if (close(w->fd) != 0 && !e)
		e = CR_ERR_IO;
	w->fd = -1;
	if (!e && rename(w->tmp, w->path) != 0) {
		log_err("store", "cannot rename '%s': %s", w->tmp, strerror(errno));
		e = CR_ERR_IO;
	}
	if (e)
		unlink(w->tmp);
	recfile_writer_abort(wp);
	return e;
}

void recfile_writer_abort(struct recfile_writer **wp)
{
	struct recfile_writer *w = wp ? *wp : NULL;

	if (!w)
		return;
	if (w->fd >= 0) {
		close(w->fd);
		unlink(w->tmp);
	}
	ZSTD_freeCCtx(w->cctx);
	XXH64_freeState(w->xx);
	buf_release(&w->in);
	buf_release(&w->out);
	free(w);
	*wp = NULL;
}

struct recfile_reader {
	char path[PATH_MAX];
	int fd;
	ZSTD_DCtx *dctx;
	unsigned char *zin;
	size_t zin_cap, zin_len, zin_pos;
	int zeof;          /* the file is read to its end */
	uint64_t left;     /* bytes of the file (or pack member) not read yet */
	size_t frame_rem;  /* ZSTD says the frame is done when this is 0 */
	struct buf win;    /* decompressed bytes not yet consumed */
	size_t win_pos;
	XXH64_state_t *xx;
	uint64_t count;
	int done;
};

/* Opens the bytes [off, off + len) of path as a record file; name is what
 * messages call it. */
static enum cr_err open_range(const char *path, const char *name, uint64_t off, uint64_t len,
			      enum rec_kind kind, struct recfile_reader **out)
{
	struct recfile_reader *r;
	unsigned char hdr[REC_HEADER];
	ssize_t n;

	r = calloc(1, sizeof(*r));
	if (!r)
		return CR_ERR_NOMEM;
	snprintf(r->path, sizeof(r->path), "%s", name);
	r->fd = open(path, O_RDONLY | O_CLOEXEC);
	if (r->fd < 0) {
		free(r);
		return CR_ERR_IO;
	}
	n = len >= sizeof(hdr) ? fs_pread(r->fd, hdr, sizeof(hdr), off) : 0;
	if (n != (ssize_t)sizeof(hdr) || memcmp(hdr, REC_MAGIC, 8) != 0 ||
	    hdr[8] != (unsigned char)kind ||
	    lseek(r->fd, (off_t)(off + sizeof(hdr)), SEEK_SET) < 0) {
		log_err("store", "damaged file '%s': bad header", name);
		close(r->fd);
		free(r);
		return CR_ERR_FORMAT;
	}
	r->left = len - sizeof(hdr);
	r->dctx = ZSTD_createDCtx();
	r->xx = XXH64_createState();
	r->zin_cap = ZSTD_DStreamInSize();
	r->zin = malloc(r->zin_cap);
	if (!r->dctx || !r->xx || !r->zin) {
		recfile_reader_free(&r);
		return CR_ERR_NOMEM;
	}
	XXH64_reset(r->xx, 0);
	buf_init(&r->win);
	/* The window is needed anyway; allocated now, win.p is never NULL
	 * when a record is looked for (NULL + 0 is undefined). */
	buf_reserve(&r->win, ZSTD_DStreamOutSize());
	r->frame_rem = 1;
	*out = r;
	return CR_OK;
}

/* Where the member a missing loose path names lives (pack.h): CR_OK,
 * CR_ERR_IO when no pack holds it either. */
static enum cr_err find_packed(const char *path, struct pack_member *m, char *name, size_t cap)
{
	char dir[PATH_MAX], stem[128];
	uint32_t id;
	enum cr_err e;

	if (errno != ENOENT ||
	    !pack_member_name(path, dir, sizeof(dir), stem, sizeof(stem), &id, NULL))
		return CR_ERR_IO;
	e = pack_find(dir, stem, id, m);
	if (e == CR_EOF)
		return CR_ERR_IO;
	if (!e)
		snprintf(name, cap, "%s (in %s)", path, m->path);
	return e;
}

enum cr_err recfile_reader_open(const char *path, enum rec_kind kind,
			    struct recfile_reader **out)
{
	struct pack_member m;
	char name[2 * PATH_MAX + 8];
	struct stat st;
	enum cr_err e;

	if (stat(path, &st) == 0) {
		e = open_range(path, path, 0, (uint64_t)st.st_size, kind, out);
		/* gone meanwhile: gathered into a pack (pack_gather commits the
		 * pack before it removes the file) */
		if (e != CR_ERR_IO || errno != ENOENT)
			return e;
	}
	e = find_packed(path, &m, name, sizeof(name));
	if (e)
		return e;
	return open_range(m.path, name, m.off, m.len, kind, out);
}

int recfile_exists(const char *path)
{
	struct pack_member m;
	char name[2 * PATH_MAX + 8];

	enum cr_err e;

	if (access(path, F_OK) == 0)
		return 1;
	/* A damaged pack that may hold it: there, so that reading it fails
	 * and says so, not taken for an absence. */
	e = find_packed(path, &m, name, sizeof(name));
	return e == CR_OK || e == CR_ERR_FORMAT;
}

/* Decompress more bytes into the window. CR_EOF when nothing is left. */
static enum cr_err reader_fill(struct recfile_reader *r)
{
	size_t cap = ZSTD_DStreamOutSize();

	if (r->win_pos > 0 && r->win_pos == r->win.len) {
		r->win.len = 0;
		r->win_pos = 0;
	} else if (r->win_pos > (64u << 10)) {
		memmove(r->win.p, r->win.p + r->win_pos, r->win.len - r->win_pos);
		r->win.len -= r->win_pos;
		r->win_pos = 0;
	}
	for (;;) {
		ZSTD_inBuffer in;
		ZSTD_outBuffer o;

		if (r->zin_pos == r->zin_len && !r->zeof) {
			ssize_t n = read(r->fd, r->zin,
					 r->left < r->zin_cap ? (size_t)r->left : r->zin_cap);

			if (n < 0 && errno == EINTR)
				continue;
			if (n < 0)
				return CR_ERR_IO;
			r->zin_len = (size_t)n;
			r->zin_pos = 0;
			r->left -= (uint64_t)n;
			if (n == 0)
				r->zeof = 1;
		}
		if (r->frame_rem == 0 || (r->zeof && r->zin_pos == r->zin_len))
			return CR_EOF;
		buf_reserve(&r->win, cap);
		in.src = r->zin;
		in.size = r->zin_len;
		in.pos = r->zin_pos;
		o.dst = r->win.p + r->win.len;
		o.size = cap;
		o.pos = 0;
		r->frame_rem = ZSTD_decompressStream(r->dctx, &o, &in);
		r->zin_pos = in.pos;
		if (ZSTD_isError(r->frame_rem))
			return CR_ERR_FORMAT;
		r->win.len += o.pos;
		if (o.pos > 0)
			return CR_OK;
	}
}

/*
 * After the trailer: the zstd frame must end with it (zstd checks its content
 * checksum as it does) and the file with the frame. Else a file cut inside
 * the frame's checksum, or with bytes after it, would read as whole.
 */
static const char *reader_end(struct recfile_reader *r)
{
	unsigned char c;
	ssize_t n;
	enum cr_err e = reader_fill(r);

	if (e == CR_OK)
		return "bytes after the trailer";
	if (e != CR_EOF)
		return "corrupt compressed data";
	if (r->frame_rem != 0)
		return "truncated";
	if (r->zin_pos != r->zin_len)
		return "bytes after the end";
	do
		n = r->zeof || r->left == 0 ? 0 : read(r->fd, &c, 1);
	while (n < 0 && errno == EINTR);
	if (n != 0)
		return "bytes after the end";
	return NULL;
}

static enum cr_err damaged(struct recfile_reader *r, const char *why)
{
	log_err("store", "damaged file '%s': %s", r->path, why);
	r->done = 1;
	return CR_ERR_FORMAT;
}

enum cr_err recfile_reader_next(struct recfile_reader *r, const void **data, size_t *n)
{
	if (r->done)
		return CR_EOF;
	for (;;) {
		struct buf_reader rd;
		uint64_t len;
		enum cr_err e;
		const char *why = NULL;

		buf_reader_init(&rd, r->win.p + r->win_pos, r->win.len - r->win_pos);
		if (buf_get_varint(&rd, &len) == CR_OK) {
			if (len > (uint64_t)REC_MAX_BYTES + 1)
				return damaged(r, "record too large");
			if (len == 0 && rd.len - rd.off >= 16) {
				uint64_t cnt = buf_load_u64le(rd.p + rd.off);
				uint64_t sum = buf_load_u64le(rd.p + rd.off + 8);

				if (cnt != r->count || sum != XXH64_digest(r->xx))
					return damaged(r, "checksum mismatch");
				if (rd.len - rd.off != 16 || (why = reader_end(r)))
					return damaged(r, why ? why : "bytes after the trailer");
				r->done = 1;
				return CR_EOF;
			}
			if (len > 0 && rd.len - rd.off >= len - 1) {
				XXH64_update(r->xx, rd.p, rd.off + (size_t)len - 1);
				*data = rd.p + rd.off;
				*n = (size_t)len - 1;
				r->win_pos += rd.off + (size_t)len - 1;
				r->count++;
				return CR_OK;
			}
		}
		e = reader_fill(r);
		if (e == CR_EOF)
			return damaged(r, "truncated");
		if (e)
			return damaged(r, "corrupt compressed data");
	}
}

void recfile_reader_free(struct recfile_reader **rp)
{
	struct recfile_reader *r = rp ? *rp : NULL;

	if (!r)
		return;
	if (r->fd >= 0)
		close(r->fd);
	ZSTD_freeDCtx(r->dctx);
	XXH64_freeState(r->xx);
	free(r->zin);
	buf_release(&r->win);
	free(r);
	*rp = NULL;
}

/* recfile_probe of the bytes [off, off + size) of the open fd. */
static enum cr_err probe_range(int fd, uint64_t off, size_t size, enum rec_kind kind,
			       const char **why)
{
	unsigned char hdr[REC_HEADER];
	long page = sysconf(_SC_PAGESIZE);
	uint64_t base = off - off % (uint64_t)(page > 0 ? page : 4096);
	size_t frame, skip = (size_t)(off - base);
	void *map;

	*why = "bad header";
	if (size < sizeof(hdr) || fs_pread(fd, hdr, sizeof(hdr), off) != (ssize_t)sizeof(hdr) ||
	    memcmp(hdr, REC_MAGIC, 8) != 0 || hdr[8] != (unsigned char)kind)
		return CR_ERR_FORMAT;
	*why = "no compressed records";
	if (size <= REC_HEADER)
		return CR_ERR_FORMAT;
	map = mmap(NULL, size + skip, PROT_READ, MAP_PRIVATE, fd, (off_t)base);
	*why = "cannot be read";
	if (map == MAP_FAILED)
		return CR_ERR_FORMAT;
	frame = ZSTD_findFrameCompressedSize((const char *)map + skip + REC_HEADER,
					     size - REC_HEADER);
	munmap(map, size + skip);
	*why = ZSTD_isError(frame) ? "truncated or overwritten" :
	       frame != size - REC_HEADER ? "bytes after the end" : NULL;
	return *why ? CR_ERR_FORMAT : CR_OK;
}

enum cr_err recfile_probe(const char *path, enum rec_kind kind, const char **why)
{
	struct pack_member m;
	char name[2 * PATH_MAX + 8];
	struct stat st;
	uint64_t off = 0, size;
	enum cr_err e;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*why = "missing";
	if (fd < 0) {
		if (find_packed(path, &m, name, sizeof(name)) != CR_OK)
			return CR_ERR_IO;
		fd = open(m.path, O_RDONLY | O_CLOEXEC);
		if (fd < 0)
			return CR_ERR_IO;
		off = m.off;
		size = m.len;
	} else if (fstat(fd, &st) != 0) {
		close(fd);
		*why = "cannot be read";
		return CR_ERR_FORMAT;
	} else {
		size = (uint64_t)st.st_size;
	}
	e = probe_range(fd, off, (size_t)size, kind, why);
	close(fd);
	return e;
}
