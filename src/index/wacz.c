/*
 * wacz.c - a crawl packed as one WACZ file; see wacz.h.
 */
#include "index/wacz.h"
#include "store/xsort.h"
#include "util/buf.h"
#include "util/fs.h"
#include "util/hmap.h"
#include "util/json.h"
#include "util/log.h"
#include "util/sha256.h"

#include <errno.h>
#include <sys/stat.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <zip.h>

#define WACZ_SORT_BUDGET (64u << 20)
#define WACZ_SOFTWARE "mpicrawl/0.1"

/* A crawl and its segments to pack (pick_segments). */
struct crawl_segs {
	const struct crawl_dir *d;
	int *v;
	size_t n;
};

struct pack {
	struct crawl_segs *c;
	size_t nc;
	zip_t *z;
	char tmp[PATH_MAX];         /* the package being written */
	char work[PATH_MAX - 64];   /* a directory for the index, pages and sort runs */
	struct buf resources;       /* datapackage.json's "resources" members */
	struct buf meta, digest;    /* kept until zip_close reads them */
	struct hmap packed;         /* the WARC files' names in archive/ */
	struct wacz_counts *n;
};

/* The sha256 of a file (its name, sha256.h), and its size. */
static enum cr_err sha256_file(const char *path, char out[SHA256_NAME_MAX], uint64_t *size)
{
	unsigned char chunk[1 << 16];
	FILE *f = fopen(path, "rb");
	struct sha256 s;
	size_t got;
	int ok = f != NULL;

	*size = 0;
	sha256_start(&s);
	while (ok && (got = fread(chunk, 1, sizeof(chunk), f)) > 0) {
		sha256_add(&s, chunk, got);
		*size += got;
	}
	ok = ok && !ferror(f);
	if (f)
		fclose(f);
	if (sha256_end(&s, out) != CR_OK || !ok) {
		log_err("wacz", "cannot read '%s'", path);
		return CR_ERR_IO;
	}
	return CR_OK;
}

/* Adds zip entry name (stored) from src; logs libzip's reason. */
static enum cr_err add_entry(struct pack *k, const char *name, zip_source_t *src)
{
	zip_int64_t i;

	if (!src) {
		log_err("wacz", "%s: %s", name, zip_strerror(k->z));
		return CR_ERR_LIB;
	}
	i = zip_file_add(k->z, name, src, ZIP_FL_ENC_UTF_8);
	if (i < 0) {
		zip_source_free(src);
		if (zip_error_code_zip(zip_get_error(k->z)) == ZIP_ER_EXISTS) {
			log_user("two WARC files are named '%s': their crawls cannot share a "
				 "package (made before warc.prefix, or given the same one)",
				 strrchr(name, '/') + 1);
			return CR_ERR_ARG;
		}
		log_err("wacz", "%s: %s", name, zip_strerror(k->z));
		return CR_ERR_LIB;
	}
	if (zip_set_file_compression(k->z, (zip_uint64_t)i, ZIP_CM_STORE, 0) < 0) {
		log_err("wacz", "%s: %s", name, zip_strerror(k->z));
		return CR_ERR_LIB;
	}
	return CR_OK;
}

/* Adds a file on disk as entry name and lists it in datapackage.json. */
static enum cr_err add_file(struct pack *k, const char *name, const char *path)
{
	char hash[SHA256_NAME_MAX];
	uint64_t size;
	enum cr_err e = sha256_file(path, hash, &size);

	if (!e)
		e = add_entry(k, name, zip_source_file(k->z, path, 0, -1));
	if (e)
		return e;
	buf_adds(&k->resources, k->resources.len ? ",\n  {\"name\":" : "\n  {\"name\":");
	json_str(&k->resources, strrchr(name, '/') + 1, strlen(strrchr(name, '/') + 1));
	buf_adds(&k->resources, ",\"path\":");
	json_str(&k->resources, name, strlen(name));
	buf_addf(&k->resources, ",\"hash\":\"%s\",\"bytes\":%llu}", hash,
		 (unsigned long long)size);
	k->n->bytes += size;
	return CR_OK;
}

/* The WARC files of segment seg of crawl d into archive/. */
static enum cr_err add_warcs(struct pack *k, const struct crawl_dir *d, int seg)
{
	char dir[PATH_MAX], path[PATH_MAX + 264], name[300];
	static const char *const kinds[] = { ".warc.gz", ".warc.zst", ".warc" };
	enum cr_err e = CR_OK;
	size_t i, n, t;

	layout_segment_sub(d, seg, "warc", dir, sizeof(dir));
	for (t = 0; t < 3 && !e; t++) {
		char **v = fs_list(dir, "", kinds[t], &n);

		for (i = 0; i < n && !e; i++) {
			struct stat st;

			snprintf(path, sizeof(path), "%s/%s", dir, v[i]);
			snprintf(name, sizeof(name), "archive/%s", v[i]);
			/* Every WARC file begins with its warcinfo record. */
			if (stat(path, &st) == 0 && st.st_size == 0) {
				log_err("wacz", "WARC file '%s' is empty: its captures are lost "
					"(`mpicrawl check` says what to do)", path);
				e = CR_ERR_FORMAT;
				break;
			}
			e = add_file(k, name, path);
			if (!e)
				*hmap_put(&k->packed, v[i], strlen(v[i])) = k;
			k->n->warcs += !e;
		}
		fs_list_free(v, n);
	}
	return e;
}

static int cmp_line(const void *a, size_t an, const void *b, size_t bn)
{
	int c = memcmp(a, b, an < bn ? an : bn);

	return c ? c : (an > bn) - (an < bn);
}

/* Reads each line of path into x (add) or, into out after skipping a
 * pages list's header line (x NULL). */
static enum cr_err read_lines(const char *path, struct xsort *x, FILE *out, uint64_t *count)
{
	FILE *f = fopen(path, "rb");
	char *line = NULL;
	size_t cap = 0;
	ssize_t len;
	enum cr_err e = CR_OK;

	if (!f) {
		log_err("wacz", "cannot read '%s'", path);
		return CR_ERR_IO;
	}
	while (!e && (len = getline(&line, &cap, f)) > 0) {
		if (line[len - 1] == '\n')
			len--;
		if (!len || (!x && strstr(line, "\"format\":\"json-pages-")))
			continue;
		if (x)
			e = xsort_add(x, line, (size_t)len);
		else if (fwrite(line, 1, (size_t)len, out) != (size_t)len ||
			 fputc('\n', out) == EOF)
			e = CR_ERR_IO;
		*count += !e;
	}
	free(line);
	fclose(f);
	return e;
}

/* The lines of every file of subdir sub (ending in suffix) of the crawls'
 * segments. */
static enum cr_err each_file(struct pack *k, const char *sub, const char *suffix,
			     struct xsort *x, FILE *out, uint64_t *count)
{
	char dir[PATH_MAX], path[PATH_MAX + 264];
	enum cr_err e = CR_OK;
	size_t c, s, i, n;

	for (c = 0; c < k->nc; c++) {
		for (s = 0; s < k->c[c].n && !e; s++) {
			char **v;

			layout_segment_sub(k->c[c].d, k->c[c].v[s], sub, dir, sizeof(dir));
			v = fs_list(dir, "", suffix, &n);
			for (i = 0; i < n && !e; i++) {
				snprintf(path, sizeof(path), "%s/%s", dir, v[i]);
				e = read_lines(path, x, out, count);
			}
			fs_list_free(v, n);
		}
	}
	return e;
}

/* One CDXJ line of the package: its "filename" the WARC file's name in
 * archive/ (the crawl's lines name it from the crawl directory), which
 * must be one packed - else its captures would not replay. */
static enum cr_err write_index_line(struct pack *k, FILE *f, const char *line, size_t n)
{
	static const char key[] = "\"filename\":\"";
	const char *at = memmem(line, n, key, sizeof(key) - 1), *v, *end, *slash;

	if (at) {
		v = at + sizeof(key) - 1;
		end = memchr(v, '"', n - (size_t)(v - line));
		for (slash = NULL; end && v < end; v++)
			if (*v == '/')
				slash = v;
		v = slash ? slash + 1 : at + sizeof(key) - 1;
		if (end && !hmap_get(&k->packed, v, (size_t)(end - v))) {
			log_err("wacz", "the index names WARC file '%.*s', which is not there: "
				"its captures are lost (`mpicrawl check` says what to do)",
				(int)(end - v), v);
			return CR_ERR_FORMAT;
		}
		if (slash) {
			size_t head = (size_t)(at - line) + sizeof(key) - 1;

			if (fwrite(line, 1, head, f) != head)
				return CR_ERR_IO;
			n -= (size_t)(slash + 1 - line);
			line = slash + 1;
		}
	}
	return fwrite(line, 1, n, f) == n && fputc('\n', f) != EOF ? CR_OK : CR_ERR_IO;
}

/* indexes/index.cdxj: the segments' CDXJ lines, sorted bytewise. */
static enum cr_err add_index(struct pack *k)
{
	char path[PATH_MAX];
	struct xsort *x = NULL;
	const void *rec;
	size_t n;
	FILE *f;
	enum cr_err e = xsort_new(k->work, WACZ_SORT_BUDGET, cmp_line, &x);

	if (!e)
		e = each_file(k, "cdxj", ".cdxj", x, NULL, &k->n->cdxj_lines);
	if (!e)
		e = xsort_finish(x);
	snprintf(path, sizeof(path), "%s/index.cdxj", k->work);
	if (!e && !(f = fopen(path, "wb")))
		e = CR_ERR_IO;
	if (!e) {
		enum cr_err r;

		while ((r = xsort_next(x, &rec, &n)) == CR_OK)
			if ((r = write_index_line(k, f, rec, n)) != CR_OK)
				break;
		if (fclose(f) != 0 || (r != CR_EOF && r != CR_OK))
			e = r != CR_EOF && r != CR_OK ? r : CR_ERR_IO;
	}
	xsort_free(&x);
	return e ? e : add_file(k, "indexes/index.cdxj", path);
}

/* pages/pages.jsonl: the segments' pages lists under one header line. */
static enum cr_err add_pages(struct pack *k, const char *title)
{
	char path[PATH_MAX];
	FILE *f;
	enum cr_err e;

	snprintf(path, sizeof(path), "%s/pages.jsonl", k->work);
	if (!(f = fopen(path, "wb")))
		return CR_ERR_IO;
	fputs("{\"format\":\"json-pages-1.0\",\"id\":\"pages\",\"title\":", f);
	k->meta.len = 0;
	json_str(&k->meta, title, strlen(title));
	fwrite(k->meta.p, 1, k->meta.len, f);
	fputs("}\n", f);
	e = each_file(k, "pages", ".jsonl", NULL, f, &k->n->pages);
	if (fclose(f) != 0 && !e)
		e = CR_ERR_IO;
	return e ? e : add_file(k, "pages/pages.jsonl", path);
}

/* datapackage.json and datapackage-digest.json, from buffers kept until
 * the package is closed. */
static enum cr_err add_package_files(struct pack *k, const char *title)
{
	char when[32], hash[SHA256_NAME_MAX];
	time_t now = time(NULL);
	struct tm tm;
	enum cr_err e;

	gmtime_r(&now, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	k->meta.len = 0;
	buf_adds(&k->meta, "{\"profile\":\"data-package\",\"wacz_version\":\"1.1.1\",\"title\":");
	json_str(&k->meta, title, strlen(title));
	buf_addf(&k->meta, ",\"software\":\"%s\",\"created\":\"%s\",\"resources\":[",
		 WACZ_SOFTWARE, when);
	buf_add(&k->meta, k->resources.p, k->resources.len);
	buf_adds(&k->meta, "\n]}\n");
	e = add_entry(k, "datapackage.json",
		      zip_source_buffer(k->z, k->meta.p, k->meta.len, 0));
	if (e)
		return e;
	sha256_name(k->meta.p, k->meta.len, hash);
	buf_addf(&k->digest, "{\"path\":\"datapackage.json\",\"hash\":\"%s\"}\n", hash);
	return add_entry(k, "datapackage-digest.json",
			 zip_source_buffer(k->z, k->digest.p, k->digest.len, 0));
}

/* The indexed segments: those given (each must be), or every one. */
static int *pick_segments(const struct crawl_dir *d, const int *segs, size_t ns, size_t *out)
{
	int last = layout_segment_last(d), s, *v = malloc(((size_t)(last > 0 ? last : 0) + ns + 1) *
							  sizeof(int));
	size_t i;

	if (!v)
		abort();
	*out = 0;
	for (i = 0; segs && i < ns; i++) {
		if (segs[i] <= 0 || !layout_phase_done(d, segs[i], "index")) {
			log_user("segment %d of '%s' has not been indexed", segs[i], d->root);
			free(v);
			return NULL;
		}
		v[(*out)++] = segs[i];
	}
	for (s = 1; !segs && s <= last; s++)
		if (layout_phase_done(d, s, "index"))
			v[(*out)++] = s;
	return v;
}

static enum cr_err pack_all(struct pack *k, const char *title)
{
	enum cr_err e = CR_OK;
	size_t c, i;

	for (c = 0; c < k->nc; c++)
		for (i = 0; i < k->c[c].n && !e; i++)
			e = add_warcs(k, k->c[c].d, k->c[c].v[i]);
	if (!e)
		e = add_index(k);
	if (!e)
		e = add_pages(k, title);
	if (!e)
		e = add_package_files(k, title);
	return e;
}

/* Each crawl's segments into k->c; a default title (the directories'
 * names, joined by " + ") into names. CR_ERR_ARG (told) if a crawl has
 * none to pack. */
static enum cr_err pick_all(struct pack *k, const struct wacz_crawl *crawls, size_t nc,
			    struct buf *names)
{
	size_t c;

	if (!(k->c = calloc(nc, sizeof(*k->c))))
		abort();
	k->nc = nc;
	for (c = 0; c < nc; c++) {
		const struct crawl_dir *d = crawls[c].d;
		const char *base = strrchr(d->root, '/');

		k->c[c].d = d;
		k->c[c].v = pick_segments(d, crawls[c].segs, crawls[c].nsegs, &k->c[c].n);
		if (!k->c[c].v)
			return CR_ERR_ARG;
		if (!k->c[c].n) {
			log_user("'%s' has no indexed segment to pack", d->root);
			return CR_ERR_ARG;
		}
		k->n->segments += k->c[c].n;
		buf_adds(names, c ? " + " : "");
		buf_adds(names, base && base[1] ? base + 1 : d->root);
	}
	return CR_OK;
}

enum cr_err wacz_write(const struct wacz_crawl *crawls, size_t ncrawls, const char *title,
		       const char *out, struct wacz_counts *n)
{
	struct pack k;
	struct buf names;
	int zerr = 0;
	size_t c;
	enum cr_err e;

	memset(n, 0, sizeof(*n));
	memset(&k, 0, sizeof(k));
	k.n = n;
	buf_init(&names);
	buf_init(&k.resources);
	buf_init(&k.meta);
	buf_init(&k.digest);
	hmap_init(&k.packed);
	e = fs_not_regular(out) ? CR_ERR_ARG : pick_all(&k, crawls, ncrawls, &names);
	if (e)
		goto done;
	snprintf(k.tmp, sizeof(k.tmp), "%s.tmp.%d", out, (int)getpid());
	snprintf(k.work, sizeof(k.work), "%s.work.%d", out, (int)getpid());
	if (!title)
		title = buf_cstr(&names);
	/* Beside the output, whose directory must exist. */
	e = mkdir(k.work, 0700) == 0 ? CR_OK : CR_ERR_IO;
	if (e)
		log_user("cannot write beside '%s': %s", out, strerror(errno));
	if (!e && !(k.z = zip_open(k.tmp, ZIP_CREATE | ZIP_TRUNCATE, &zerr))) {
		log_err("wacz", "cannot write '%s'", k.tmp);
		e = CR_ERR_IO;
	}
	if (!e)
		e = pack_all(&k, title);
	if (k.z && !e && zip_close(k.z) < 0) {
		log_err("wacz", "cannot write '%s': %s", k.tmp, zip_strerror(k.z));
		e = CR_ERR_IO;
	}
	if (k.z && e)
		zip_discard(k.z);
	if (!e && rename(k.tmp, out) != 0) {
		log_err("wacz", "cannot write '%s'", out);
		e = CR_ERR_IO;
	}
	if (e)
		unlink(k.tmp);
	if (fs_exists(k.work) && fs_remove_tree(k.work) != CR_OK)
		log_warn("wacz", "cannot remove '%s'", k.work);
done:
	for (c = 0; c < k.nc; c++)
		free(k.c[c].v);
	free(k.c);
	buf_release(&names);
	buf_release(&k.resources);
	buf_release(&k.meta);
	buf_release(&k.digest);
	hmap_release(&k.packed);
	return e;
}
