#include "scope/decisions.h"
#include "store/pack.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"

#include <dirent.h>
#include <sys/stat.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <zstd.h>

#define DECISIONS_FLUSH (256u << 10)
/* decisions_scan holds a file's lines at once: one compressed past this is
 * not read (its lines may be 10 times as many bytes). */
#define DECISIONS_SCAN_MAX (32u << 20)

struct decisions {
	char path[PATH_MAX], tmp[PATH_MAX + 8];
	FILE *fp;
	ZSTD_CCtx *cctx;
	struct buf in, out;
	uint64_t count;
};

void decisions_abort(struct decisions **wp)
{
	struct decisions *w = *wp;

	if (!w)
		return;
	if (w->fp) {
		fclose(w->fp);
		unlink(w->tmp);
	}
	ZSTD_freeCCtx(w->cctx);
	buf_release(&w->in);
	buf_release(&w->out);
	free(w);
	*wp = NULL;
}

/* Moves the files of src named "generate" + rest (loose: "-PPPPP.jsonl.zst",
 * packed: ".T-rR-nN.pack") to dst as "held" + rest; how many moved. */
static size_t move_held(const char *src, const char *dst, const char *prefix,
			const char *suffix)
{
	char a[PATH_MAX + 64], b[PATH_MAX + 64];
	size_t n, i, todo, moved = 0;
	char **v = fs_list(src, prefix, suffix, &n);

	todo = n && fs_mkdirs(dst) == CR_OK ? n : 0;
	for (i = 0; i < todo; i++) {
		snprintf(a, sizeof(a), "%s/%s", src, v[i]);
		snprintf(b, sizeof(b), "%s/held%s", dst, v[i] + strlen("generate"));
		if (rename(a, b) == 0)
			moved++;
		else
			log_warn("decisions", "cannot move '%s' to '%s': %s", a, b,
				 strerror(errno));
	}
	fs_list_free(v, n);
	return moved;
}

size_t decisions_keep_held(const struct crawl_dir *d, int from, int to)
{
	char src[PATH_MAX], dst[PATH_MAX];

	layout_segment_sub(d, from, "decisions", src, sizeof(src));
	layout_segment_sub(d, to, "decisions", dst, sizeof(dst));
	return move_held(src, dst, "generate-", ".jsonl.zst") +
	       move_held(src, dst, "generate.", ".pack");
}

enum cr_err decisions_open(const struct crawl_dir *d, int seg, const char *phase, uint32_t p,
			   int level, struct decisions **out)
{
	struct decisions *w = calloc(1, sizeof(*w));
	char dir[PATH_MAX], name[64];

	*out = NULL;
	if (!w)
		return CR_ERR_NOMEM;
	buf_init(&w->in);
	buf_init(&w->out);
	layout_segment_sub(d, seg, "decisions", dir, sizeof(dir));
	snprintf(name, sizeof(name), "%s-%05u.jsonl.zst", phase, (unsigned)p);
	layout_segment_file(d, seg, "decisions", name, w->path, sizeof(w->path));
	snprintf(w->tmp, sizeof(w->tmp), "%s.tmp", w->path);
	w->cctx = ZSTD_createCCtx();
	if (!w->cctx || fs_mkdirs(dir) != CR_OK || !(w->fp = fopen(w->tmp, "wb"))) {
		log_err("decisions", "cannot write '%s': %s", w->tmp, strerror(errno));
		decisions_abort(&w);
		return CR_ERR_IO;
	}
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_compressionLevel, level);
	ZSTD_CCtx_setParameter(w->cctx, ZSTD_c_checksumFlag, 1);
	*out = w;
	return CR_OK;
}

/* Compresses what in holds (to the frame's end with end set) into the file. */
static enum cr_err pump(struct decisions *w, ZSTD_EndDirective mode)
{
	ZSTD_inBuffer in = { w->in.p, w->in.len, 0 };
	size_t rem;

	do {
		ZSTD_outBuffer o;

		buf_reserve(&w->out, ZSTD_CStreamOutSize());
		o.dst = w->out.p;
		o.size = w->out.cap;
		o.pos = 0;
		rem = ZSTD_compressStream2(w->cctx, &o, &in, mode);
		if (ZSTD_isError(rem)) {
			log_err("decisions", "zstd: %s", ZSTD_getErrorName(rem));
			return CR_ERR_IO;
		}
		if (o.pos && fwrite(o.dst, 1, o.pos, w->fp) != o.pos) {
			log_err("decisions", "cannot write '%s': %s", w->tmp, strerror(errno));
			return CR_ERR_IO;
		}
	} while (mode == ZSTD_e_end ? rem != 0 : in.pos < in.size);
	w->in.len = 0;
	return CR_OK;
}

enum cr_err decisions_add(struct decisions *w, const char *reason, const char *url, size_t len,
			  const char *from, size_t from_len)
{
	buf_adds(&w->in, "{\"url\":");
	json_str(&w->in, url, len);
	buf_adds(&w->in, ",\"reason\":");
	json_str(&w->in, reason, strlen(reason));
	buf_adds(&w->in, ",\"from\":");
	json_str(&w->in, from ? from : "", from ? from_len : 0);
	buf_adds(&w->in, "}\n");
	w->count++;
	return w->in.len >= DECISIONS_FLUSH ? pump(w, ZSTD_e_continue) : CR_OK;
}

uint64_t decisions_count(const struct decisions *w)
{
	return w ? w->count : 0;
}

enum cr_err decisions_commit(struct decisions **wp)
{
	struct decisions *w = *wp;
	enum cr_err e;

	if (!w)
		return CR_OK;
	e = pump(w, ZSTD_e_end);
	if (!e && (fflush(w->fp) || fsync(fileno(w->fp)))) {
		log_err("decisions", "cannot write '%s': %s", w->tmp, strerror(errno));
		e = CR_ERR_IO;
	}
	if (!e && rename(w->tmp, w->path)) {
		log_err("decisions", "cannot commit '%s': %s", w->path, strerror(errno));
		e = CR_ERR_IO;
	}
	if (e) {
		decisions_abort(wp);
		return e;
	}
	fclose(w->fp);
	w->fp = NULL;
	decisions_abort(wp);
	return CR_OK;
}

enum cr_err decisions_open_owned(const struct crawl_dir *d, int seg, const char *phase,
				 int rank, int nranks, int level, struct decisions ***out)
{
	struct decisions **ws = calloc(d->partitions, sizeof(*ws));
	enum cr_err e = ws ? CR_OK : CR_ERR_NOMEM;
	uint32_t p;

	for (p = 0; !e && p < d->partitions; p++)
		if (layout_owns(p, rank, nranks))
			e = decisions_open(d, seg, phase, p, level, &ws[p]);
	if (e)
		decisions_abort_owned(d, &ws);
	*out = ws;
	return e;
}

enum cr_err decisions_commit_owned(const struct crawl_dir *d, struct decisions ***ws)
{
	enum cr_err e = CR_OK;
	uint32_t p;

	if (!*ws)
		return CR_OK;
	for (p = 0; p < d->partitions; p++) {
		if (!e)
			e = decisions_commit(&(*ws)[p]);
		else
			decisions_abort(&(*ws)[p]);
	}
	free(*ws);
	*ws = NULL;
	return e;
}

void decisions_abort_owned(const struct crawl_dir *d, struct decisions ***ws)
{
	uint32_t p;

	if (!*ws)
		return;
	for (p = 0; p < d->partitions; p++)
		decisions_abort(&(*ws)[p]);
	free(*ws);
	*ws = NULL;
}

/* Decompresses the bytes [off, off + len) of path (len UINT64_MAX: to its
 * end) to out, counting its lines; name is what messages call it. */
static enum cr_err print_range(const char *path, const char *name, uint64_t off,
			       uint64_t len, FILE *out, uint64_t *lines)
{
	FILE *fp = fopen(path, "rb");
	ZSTD_DCtx *dctx = ZSTD_createDCtx();
	size_t icap = ZSTD_DStreamInSize(), ocap = ZSTD_DStreamOutSize(), n, rem = 1;
	char *ib = malloc(icap), *ob = malloc(ocap);
	enum cr_err e = fp && dctx && ib && ob ? CR_OK : CR_ERR_IO;

	if (!e && fseeko(fp, (off_t)off, SEEK_SET) != 0)
		e = CR_ERR_IO;
	while (!e && len > 0 && (n = fread(ib, 1, len < icap ? (size_t)len : icap, fp)) > 0) {
		ZSTD_inBuffer in = { ib, n, 0 };

		len -= n;
		while (!e && in.pos < in.size) {
			ZSTD_outBuffer o = { ob, ocap, 0 };
			size_t k;

			rem = ZSTD_decompressStream(dctx, &o, &in);
			if (ZSTD_isError(rem))
				e = CR_ERR_FORMAT;
			for (k = 0; !e && k < o.pos; k++)
				*lines += ob[k] == '\n';
			if (!e && fwrite(ob, 1, o.pos, out) != o.pos)
				e = CR_ERR_IO;
		}
	}
	if (!e && (rem != 0 || (fp && ferror(fp)) || (len > 0 && len != UINT64_MAX)))
		e = CR_ERR_FORMAT;   /* cut short */
	if (e == CR_ERR_FORMAT)
		log_err("decisions", "damaged decision log '%s'", name);
	else if (e)
		log_err("decisions", "cannot read '%s'", name);
	if (fp)
		fclose(fp);
	ZSTD_freeDCtx(dctx);
	free(ib);
	free(ob);
	return e;
}

/* Where PHASE-PPPPP's log of segment seg is: loose (path, off 0, its
 * length) or in a pack: 1; 0 when nowhere; -1 when a pack that may hold it
 * is damaged (logged). name gets what to call it. */
static int locate(const struct crawl_dir *d, int seg, const char *phase, uint32_t p,
		  struct pack_member *m, char *name, size_t cap)
{
	char file[64], dir[PATH_MAX];
	struct stat st;

	snprintf(file, sizeof(file), "%s-%05u.jsonl.zst", phase, (unsigned)p);
	layout_segment_file(d, seg, "decisions", file, m->path, sizeof(m->path));
	snprintf(name, cap, "%s", m->path);
	if (stat(m->path, &st) == 0) {
		m->off = 0;
		m->len = (uint64_t)st.st_size;
		return 1;
	}
	layout_segment_sub(d, seg, "decisions", dir, sizeof(dir));
	switch (pack_find(dir, phase, p, m)) {
	case CR_OK:
		break;
	case CR_EOF:
		return 0;
	default:
		return -1;
	}
	snprintf(name + strlen(name), cap - strlen(name), " (in %s)", m->path);
	return 1;
}

enum cr_err decisions_scan(const struct crawl_dir *d, int seg, const char *phase,
			   uint32_t p, decisions_line_fn fn, void *arg)
{
	char name[2 * PATH_MAX + 8], *mem = NULL;
	struct pack_member m;
	size_t len = 0, at = 0;
	uint64_t lines = 0;
	enum cr_err e;
	FILE *mf;

	switch (locate(d, seg, phase, p, &m, name, sizeof(name))) {
	case 0:
		return CR_OK;
	case -1:
		return CR_ERR_FORMAT;
	}
	if (m.len > DECISIONS_SCAN_MAX) {
		log_warn("decisions", "'%s' is over %u MiB: not read", name,
			 DECISIONS_SCAN_MAX >> 20);
		return CR_OK;
	}
	if (!(mf = open_memstream(&mem, &len)))
		return CR_ERR_NOMEM;
	e = print_range(m.path, name, m.off, m.len, mf, &lines);
	if (fclose(mf) != 0 && !e)
		e = CR_ERR_NOMEM;
	while (!e && at < len) {
		const char *nl = memchr(mem + at, '\n', len - at);
		size_t k = nl ? (size_t)(nl - (mem + at)) : len - at;

		fn(arg, mem + at, k);
		at += k + 1;
	}
	free(mem);
	return e;
}

/* The phases whose logs the folder holds (loose or packed), sorted and
 * without repeats: *n of them. */
static char **logged_phases(const char *dir, size_t *n)
{
	size_t cnt, i, k = 0;
	char **v = fs_list(dir, "", "", &cnt);

	for (i = 0; i < cnt; i++) {
		size_t len = strcspn(v[i], "-.");
		int is_log = strstr(v[i], ".jsonl.zst") || strstr(v[i], ".pack");

		if (!is_log || len == 0 || (k && strlen(v[k - 1]) == len &&
					    !strncmp(v[k - 1], v[i], len))) {
			free(v[i]);
			continue;
		}
		v[i][len] = '\0';
		v[k++] = v[i];
	}
	*n = k;
	return v;
}

/* 1 if phase is one of kinds ("generate-", ...; NULL: any). */
static int of_kinds(const char *phase, const char *const *kinds)
{
	size_t i, n = strlen(phase);

	for (i = 0; kinds && kinds[i]; i++)
		if (!strncmp(phase, kinds[i], n) && kinds[i][n] == '-' && !kinds[i][n + 1])
			return 1;
	return !kinds;
}

enum cr_err decisions_print(const struct crawl_dir *d, int seg, const char *const *kinds,
			    FILE *out, uint64_t *lines)
{
	char dir[PATH_MAX], name[2 * PATH_MAX + 8];
	struct pack_member m;
	size_t n, i;
	char **phases;
	uint32_t p;
	enum cr_err e = CR_OK;

	*lines = 0;
	layout_segment_sub(d, seg, "decisions", dir, sizeof(dir));
	if (!fs_exists(dir))
		return CR_EOF;
	phases = logged_phases(dir, &n);
	/* By phase, then partition: the order of the loose files' names. */
	for (i = 0; !e && i < n; i++)
		for (p = 0; !e && of_kinds(phases[i], kinds) && p < d->partitions; p++)
			switch (locate(d, seg, phases[i], p, &m, name, sizeof(name))) {
			case 1:
				e = print_range(m.path, name, m.off, m.len, out, lines);
				break;
			case -1:
				e = CR_ERR_FORMAT;
				break;
			}
	fs_list_free(phases, n);
	return e;
}
