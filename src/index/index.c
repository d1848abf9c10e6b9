/*
 * index.c - the index step of a segment (index.h): partition by partition,
 * each WARC file's records from what the fetcher staged or read back, its
 * CDXJ lines sorted and written (cdxj.c), each page's text, links and
 * pages/ line (text.c), its WAT (wat.c); and what an earlier index left
 * that no WARC file makes any more, removed.
 */
#include "index/index.h"
#include "index/part.h"
#include "crawldb/parse_record.h"
#include "index/sniff.h"
#include "index/wat.h"
#include "store/recfile.h"
#include "util/fs.h"
#include "util/json.h"
#include "util/log.h"

#include <dirent.h>
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

const char *const index_counter_names[IX_COUNT_] = {
	"warc_files", "cdxj_lines", "text_docs", "text_duplicates", "text_language",
	"links", "parse_failed", "staged_files", "wat_records",
};

static int cmp_str(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* ---- one partition ---- */

/* The duplicates partition p of CrawlDb version x->ver names, into x->dups. */
static enum cr_err load_dups(struct part_ix *x, uint32_t p)
{
	char path[PATH_MAX];
	struct recfile_reader *r;
	const void *d;
	size_t n;
	enum cr_err e;

	layout_crawldb_part(&x->j->dir, x->ver, p, path, sizeof(path));
	if ((e = recfile_reader_open(path, REC_KIND_CRAWLDB, &r)) != CR_OK) {
		log_err("index", "cannot read CrawlDb part '%s': the duplicates it names would "
			"be lost", path);
		return e;
	}
	while ((e = recfile_reader_next(r, &d, &n)) == CR_OK) {
		struct crawl_record cr;
		void **slot;

		if (crawl_record_unpack(d, n, &cr) != CR_OK) {
			e = CR_ERR_FORMAT;
			break;
		}
		if (cr.status != ST_DUPLICATE || !cr.dup_of_len)
			continue;
		slot = hmap_put(&x->dups, cr.url, cr.url_len);
		if (slot && !*slot)
			*slot = strndup(cr.dup_of, cr.dup_of_len);
	}
	recfile_reader_free(&r);
	return e == CR_EOF ? CR_OK : e;
}

enum cr_err index_dup_of(struct part_ix *x, const char *url, const char **rep)
{
	uint32_t p;
	enum cr_err e;

	*rep = NULL;
	if (x->ver <= 0)
		return CR_OK;
	p = layout_partition(&x->j->dir, url, strlen(url));
	if (!x->dups_loaded[p]) {
		if ((e = load_dups(x, p)) != CR_OK)
			return e;
		x->dups_loaded[p] = 1;
	}
	*rep = hmap_get(&x->dups, url, strlen(url));
	return CR_OK;
}

static int cmp_place(const void *a, const void *b)
{
	uint64_t x = *(const uint64_t *)a, y = ((const struct wat_place *)b)->warc_offset;

	return (x > y) - (x < y);
}

/* Where the record of a CDXJ line went in the WAT file (index.wat): its
 * place found by the line's offset, as "wat-filename", "wat-offset",
 * "wat-length". */
static enum cr_err cdxj_wat(struct part_ix *x, char **line)
{
	const char *at = strstr(*line, ",\"offset\":\"");
	const struct wat_place *pl;
	uint64_t off;
	size_t n = strlen(*line);
	char *grown;

	if (!x->wat.len || !at || !n || (*line)[n - 1] != '}')
		return CR_OK;
	off = strtoull(at + 11, NULL, 10);
	pl = bsearch(&off, x->wat.p, x->wat.len / sizeof(*pl), sizeof(*pl), cmp_place);
	if (!pl)
		return CR_OK;
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "segments/%05d/wat/%s", x->seg, x->wat_name);
	x->fields.len = 0;
	buf_adds(&x->fields, ",\"wat-filename\":");
	json_str(&x->fields, path, strlen(path));
	buf_addf(&x->fields, ",\"wat-offset\":\"%llu\",\"wat-length\":\"%llu\"}",
		 (unsigned long long)pl->wat_offset, (unsigned long long)pl->wat_length);
	if (!(grown = realloc(*line, n + x->fields.len)))
		return CR_ERR_NOMEM;
	memcpy(grown + n - 1, x->fields.p, x->fields.len);
	grown[n - 1 + x->fields.len] = '\0';
	*line = grown;
	return CR_OK;
}

/* Sorts a WARC file's CDXJ lines and writes them to its .cdxj file. */
static enum cr_err write_cdxj(struct part_ix *x, const char *name, char **lines, size_t n)
{
	char out[PATH_MAX], tmp[PATH_MAX + 32], cdxj[300];
	enum cr_err e;
	size_t i;
	FILE *f;

	for (i = 0; i < n; i++)
		if ((e = cdxj_wat(x, &lines[i])) != CR_OK)
			return e;
	qsort(lines, n, sizeof(*lines), cmp_str);
	snprintf(cdxj, sizeof(cdxj), "%s.cdxj", name);
	layout_segment_file(&x->j->dir, x->seg, "cdxj", cdxj, out, sizeof(out));
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", out, (int)getpid());
	f = fopen(tmp, "w");
	e = f ? CR_OK : CR_ERR_IO;
	for (i = 0; f && i < n; i++)
		if (fputs(lines[i], f) == EOF || fputc('\n', f) == EOF)
			e = CR_ERR_IO;
	if (f && (fflush(f) != 0 || fsync(fileno(f)) != 0))
		e = CR_ERR_IO;
	if (f && fclose(f) != 0)
		e = CR_ERR_IO;
	if (e == CR_OK && rename(tmp, out) != 0)
		e = CR_ERR_IO;
	if (e != CR_OK) {
		log_err("index", "cannot write '%s': %s", out, strerror(errno));
		unlink(tmp);
	}
	x->c[IX_WARC_FILES]++;
	x->c[IX_CDXJ_LINES] += n;
	return e;
}

static enum cr_err lines_add(struct lines *l, const char *s, size_t n)
{
	if (l->n == l->cap) {
		char **g = realloc(l->v, (l->cap = l->cap ? 2 * l->cap : 256) * sizeof(*g));
		if (!g)
			return CR_ERR_NOMEM;
		l->v = g;
	}
	if (!(l->v[l->n] = strndup(s, n)))
		return CR_ERR_NOMEM;
	l->n++;
	return CR_OK;
}

static void lines_release(struct lines *l)
{
	size_t i;

	for (i = 0; i < l->n; i++)
		free(l->v[i]);
	free(l->v);
	memset(l, 0, sizeof(*l));
}

/* One record of a WARC file read back: its CDXJ line, and its text and
 * links when it has them. */
static enum cr_err one_record(struct part_ix *x, const char *name,
			      const struct warc_record *rec, struct lines *l)
{
	char type[32], uri[INDEX_URI_MAX], date[64], digest[128], ct[128], mime[128];
	char trunc[32], fname[300];
	struct index_cdxj_extra ex;
	int status;
	size_t head;
	enum cr_err e;

	warc_record_field(rec, "WARC-Type", type, sizeof(type));
	if (strcmp(type, "response") && strcmp(type, "revisit") &&
	    strcmp(type, "resource") && strcmp(type, "metadata"))
		return CR_OK;
	warc_record_field(rec, "Content-Type", ct, sizeof(ct));
	if ((!strcmp(type, "metadata") || !strcmp(type, "resource")) &&
	    !strcasecmp(ct, "application/warc-fields"))
		return CR_OK;
	warc_record_field(rec, "WARC-Target-URI", uri, sizeof(uri));
	warc_record_field(rec, "WARC-Date", date, sizeof(date));
	warc_record_field(rec, "WARC-Payload-Digest", digest, sizeof(digest));
	index_record_facts(type, ct, rec->block, rec->block_len, mime, sizeof(mime), &status,
			   &head);
	warc_record_field(rec, "WARC-Truncated", trunc, sizeof(trunc));
	if (head)
		index_cdxj_extras(uri, rec->block, head, status, trunc[0] ? trunc : NULL, &ex);
	if (head && !strcmp(type, "response"))
		sniff_mime(rec->block, head, rec->block + head, rec->block_len - head,
			   ex.mime_detected, sizeof(ex.mime_detected));
	index_cdxj_filename(x->seg, name, fname, sizeof(fname));
	x->line.len = 0;
	index_cdxj_line(&x->line, uri, date, mime, status, digest, rec->length, rec->offset,
			fname, head ? &ex : NULL);
	if ((e = lines_add(l, (const char *)x->line.p, x->line.len)) != CR_OK)
		return e;
	if (!index_wants_text(name, !strcmp(type, "response"), status,
			      index_text_mime(mime, head && !strcmp(type, "response") ?
						    ex.mime_detected : "",
					      (int)x->j->cfg.parse_pdf)))
		return CR_OK;
	return text_page_from_warc(x, rec, uri, date, head);
}

/* CDXJ of one WARC file, text and links of its pages, read back from it. */
static enum cr_err one_warc(struct part_ix *x, const char *name)
{
	char path[PATH_MAX];
	struct warc_reader *r;
	struct warc_record rec;
	struct lines l = { 0 };
	enum cr_err e;

	layout_segment_file(&x->j->dir, x->seg, "warc", name, path, sizeof(path));
	if ((e = warc_reader_open(path, config_warc_block_max(&x->j->cfg), &r)) != CR_OK)
		return e;
	x->cdxj = &l;
	while ((e = warc_reader_next(r, &rec)) == CR_OK)
		if ((e = one_record(x, name, &rec, &l)) != CR_OK)
			break;
	x->cdxj = NULL;
	warc_reader_free(&r);
	if (e == CR_EOF)
		e = write_cdxj(x, name, l.v, l.n);
	lines_release(&l);
	return e;
}

/* ---- staged by the fetcher ---- */

/* A staged file of one WARC series, read in step with the series' files. */
struct stream {
	char key[256];
	struct recfile_reader *r;   /* NULL: none, or read to its end */
	char next[256];             /* the next WARC file it holds, or "" */
};

static struct stream *stream_for(struct part_ix *x, const char *key)
{
	char name[300], path[PATH_MAX];
	struct stream *st;
	struct index_stage_rec sr;
	const void *d;
	size_t i, n;

	for (i = 0; i < x->nstreams; i++)
		if (!strcmp(x->streams[i].key, key))
			return &x->streams[i];
	if (x->nstreams == INDEX_STREAMS_MAX)
		return NULL;
	st = &x->streams[x->nstreams++];
	memset(st, 0, sizeof(*st));
	snprintf(st->key, sizeof(st->key), "%s", key);
	snprintf(name, sizeof(name), "%s.zst", key);
	layout_segment_file(&x->j->dir, x->seg, "staged", name, path, sizeof(path));
	if (!fs_exists(path) || recfile_reader_open(path, REC_KIND_STAGE, &st->r) != CR_OK)
		return st;
	if (recfile_reader_next(st->r, &d, &n) != CR_OK ||
	    index_stage_unpack(d, n, &sr) != CR_OK || sr.kind != STAGE_FILE) {
		recfile_reader_free(&st->r);   /* empty or damaged: read back */
		return st;
	}
	snprintf(st->next, sizeof(st->next), "%.*s", (int)sr.n, sr.s);
	return st;
}

/* The CDXJ, text and links of WARC file name from its staged records, up to
 * the stream's next file. CR_ERR_FORMAT (x->stage_bad set) if the staged
 * file is damaged: the caller reads the partition back instead. */
static enum cr_err staged_warc(struct part_ix *x, struct stream *st, const char *name)
{
	struct index_stage_rec sr;
	struct lines l = { 0 };
	const void *d;
	size_t n;
	enum cr_err e;

	st->next[0] = '\0';
	x->cdxj = &l;
	while ((e = recfile_reader_next(st->r, &d, &n)) == CR_OK) {
		if ((e = index_stage_unpack(d, n, &sr)) != CR_OK)
			break;
		if (sr.kind == STAGE_FILE) {
			snprintf(st->next, sizeof(st->next), "%.*s", (int)sr.n, sr.s);
			break;
		}
		if (sr.kind == STAGE_CDXJ)
			e = lines_add(&l, sr.s, sr.n);
		else if (sr.kind == STAGE_PAGE)
			e = text_page_out(x, &sr.page);
		else
			x->c[IX_PARSE_FAILED]++;
		if (e)
			break;
	}
	x->cdxj = NULL;
	if (e == CR_EOF)
		recfile_reader_free(&st->r);
	if (e == CR_OK || e == CR_EOF)
		e = write_cdxj(x, name, l.v, l.n);
	else if (e == CR_ERR_FORMAT)
		x->stage_bad = 1;
	lines_release(&l);
	return e;
}

/* One WARC file of the partition: from what the fetcher staged for it when
 * there is such a thing, else read back. */
static enum cr_err index_warc(struct part_ix *x, const char *name)
{
	char key[256];
	struct stream *st;
	uint64_t n;
	enum cr_err e;

	x->wat.len = 0;
	if (x->j->cfg.index_wat) {
		if ((e = wat_write_file(x->j, x->seg, name, &n, &x->wat)) != CR_OK)
			return e;
		x->c[IX_WAT_RECORDS] += n;
		wat_name(name, x->wat_name, sizeof(x->wat_name));
	}

	if (x->use_staged && index_stage_key(name, key, sizeof(key)) &&
	    (st = stream_for(x, key)) != NULL && st->r && !strcmp(st->next, name)) {
		x->c[IX_STAGED_FILES]++;
		return staged_warc(x, st, name);
	}
	return one_warc(x, name);
}

/* 1 if name is a WARC file of segment seg of x's unit. */
static int of_unit(const struct part_ix *x, const char *name)
{
	uint32_t unit;
	int by_rank, attempt;

	return layout_warc_unit(&x->j->dir, name, x->seg, &unit, &by_rank, &attempt) &&
	       unit == x->unit && by_rank == x->by_rank;
}

static int is_warc_name(const char *n)
{
	size_t l = strlen(n);

	return (l > 8 && !strcmp(n + l - 8, ".warc.gz")) ||
	       (l > 9 && !strcmp(n + l - 9, ".warc.zst"));
}

static enum cr_err do_partition(struct part_ix *x, char **names, size_t nn)
{
	char path[PATH_MAX], old[PATH_MAX];
	enum cr_err e = CR_OK, e2;
	size_t i;

	layout_segment_sub(&x->j->dir, x->seg, "links", path, sizeof(path));
	if (fs_mkdirs(path) != CR_OK)
		return CR_ERR_IO;
	text_part_path(x, "links", "links.tsv.zst", path, sizeof(path), old, sizeof(old));
	unlink(old);   /* an older crawl's name, written again under the new one */
	if ((e = zw_open(&x->links, path)) != CR_OK)
		return e;
	x->pages.len = 0;
	for (i = 0; i < nn && e == CR_OK; i++)
		if (of_unit(x, names[i]))
			e = index_warc(x, names[i]);
	e2 = zw_close(&x->links, e == CR_OK);
	if (e == CR_OK)
		e = e2;
	if (e == CR_OK)
		e = text_pages_write(x);
	return text_close(x, e);
}

int index_output_stale(const char *sub, const char *file, char *const *names, size_t n,
		       int wat_on)
{
	char out[320];
	int wat = !strcmp(sub, "wat");
	size_t i;

	if (strstr(file, ".tmp.") || (!wat && strcmp(sub, "cdxj")))
		return 0;
	if (wat && !wat_on)
		return 1;
	for (i = 0; i < n; i++) {
		if (wat)
			wat_name(names[i], out, sizeof(out));
		else
			snprintf(out, sizeof(out), "%s.cdxj", names[i]);
		if (!strcmp(out, file))
			return 0;
	}
	return 1;
}

/* A partition without WARC files (all of them gone) keeps no text, links
 * or pages an earlier index made of them (under either name, part_file). */
static void drop_partition(const struct job *j, int seg, uint32_t p)
{
	static const char *const outs[][2] = { { "text", "warc.wet.gz" }, { "text", "jsonl.gz" },
					       { "links", "links.tsv.zst" },
					       { "pages", "pages.jsonl" } };
	char path[2][PATH_MAX];
	struct part_ix x;
	size_t k;
	int n;

	memset(&x, 0, sizeof(x));
	x.j = j;
	x.seg = seg;
	x.unit = p;
	for (k = 0; k < sizeof(outs) / sizeof(outs[0]); k++) {
		text_part_path(&x, outs[k][0], outs[k][1], path[0], PATH_MAX, path[1], PATH_MAX);
		for (n = 0; n < 2; n++)
			if (unlink(path[n]) != 0 && errno != ENOENT)
				log_warn("index", "cannot remove '%s': %s", path[n],
					 strerror(errno));
	}
}

/* The CDXJ and WAT files of unit (by_rank: a rank's, else a partition's;
 * UINT32_MAX: every rank unit this rank indexes) that an earlier index left
 * and no WARC file of names now makes (index_output_stale) are removed. */
static void drop_stale(const struct job *j, int seg, uint32_t unit, int by_rank,
		       char *const *names, size_t nn)
{
	static const char *const subs[] = { "cdxj", "wat" };
	char dir[PATH_MAX], path[PATH_MAX + 300], base[300];
	size_t k, i, n;
	char **v;

	for (k = 0; k < 2; k++) {
		layout_segment_sub(&j->dir, seg, subs[k], dir, sizeof(dir));
		v = fs_list(dir, "", "", &n);
		for (i = 0; i < n; i++) {
			uint32_t u;
			int r, a;
			/* the WARC file's name: WARC.cdxj, or STEM.warc.wat.gz */
			size_t bl = strlen(v[i]);

			if (k == 0 && bl > 5 && !strcmp(v[i] + bl - 5, ".cdxj"))
				snprintf(base, sizeof(base), "%.*s", (int)(bl - 5), v[i]);
			else if (k == 1 && bl > 12 && !strcmp(v[i] + bl - 12, ".warc.wat.gz"))
				snprintf(base, sizeof(base), "%.*s.warc.gz", (int)(bl - 12), v[i]);
			else
				continue;
			if (!layout_warc_unit(&j->dir, base, seg, &u, &r, &a) || r != by_rank ||
			    (unit == UINT32_MAX ? (int)(u % (uint32_t)j->nranks) != j->rank
						: u != unit) ||
			    !index_output_stale(subs[k], v[i], names, nn, j->cfg.index_wat))
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, v[i]);
			if (unlink(path) != 0 && errno != ENOENT)
				log_warn("index", "cannot remove '%s': %s", path, strerror(errno));
		}
		fs_list_free(v, n);
	}
}

static void streams_close(struct part_ix *x)
{
	size_t i;

	for (i = 0; i < x->nstreams; i++)
		recfile_reader_free(&x->streams[i].r);
	x->nstreams = 0;
}

static void dups_release(struct hmap *dups)
{
	size_t k = 0;
	struct hmap_slot *s;

	while ((s = hmap_next(dups, &k)) != NULL)
		free(s->val);
	hmap_release(dups);
}

/* Unit x->unit: from the staged records where it can, and all of it read
 * back when a staged file turns out damaged. */
static enum cr_err index_unit(struct part_ix *x, char **names, size_t nn, int use_staged)
{
	uint64_t before[IX_COUNT_];
	enum cr_err e;

	hmap_init(&x->dups);
	memset(x->dups_loaded, 0, x->j->dir.partitions);
	memcpy(before, x->c, sizeof(before));
	x->use_staged = use_staged;
	x->stage_bad = 0;
	e = do_partition(x, names, nn);
	streams_close(x);
	if (e != CR_OK && x->stage_bad) {
		log_warn("index", "segment %d %s %u: a staged file is damaged; reading its WARC "
			 "files back", x->seg, x->by_rank ? "rank" : "partition", x->unit);
		memcpy(x->c, before, sizeof(before));
		x->use_staged = 0;
		e = do_partition(x, names, nn);
	}
	dups_release(&x->dups);
	return e;
}

/* The WARC files of an open folder, sorted by name (strdup'd; as many as
 * were read when memory ran out). */
static enum cr_err warc_names(DIR *d, char ***names, size_t *nn)
{
	struct dirent *de;
	size_t cap = 0;
	enum cr_err e = CR_OK;

	while ((de = readdir(d)) != NULL) {
		if (!is_warc_name(de->d_name))
			continue;
		if (*nn == cap) {
			char **g = realloc(*names, (cap = cap ? 2 * cap : 64) * sizeof(*g));
			if (!g) {
				e = CR_ERR_NOMEM;
				break;
			}
			*names = g;
		}
		if (!((*names)[*nn] = strdup(de->d_name))) {
			e = CR_ERR_NOMEM;
			break;
		}
		(*nn)++;
	}
	if (*nn)
		qsort(*names, *nn, sizeof(**names), cmp_str);
	return e;
}

/* 1 if a WARC file of names is of x's unit. */
static int any_of_unit(const struct part_ix *x, char **names, size_t nn)
{
	size_t k;

	for (k = 0; k < nn; k++)
		if (of_unit(x, names[k]))
			return 1;
	return 0;
}

static int cmp_u32(const void *a, const void *b)
{
	uint32_t x = *(const uint32_t *)a, y = *(const uint32_t *)b;

	return x < y ? -1 : x > y;
}

/* The ranks whose WARC files names holds, each once, sorted (*n of them;
 * malloc'd, NULL when memory runs out). */
static uint32_t *rank_units(const struct crawl_dir *d, int seg, char **names, size_t nn,
			    size_t *n)
{
	uint32_t *v = malloc((nn ? nn : 1) * sizeof(*v));
	size_t i, k = 0;

	*n = 0;
	if (!v)
		return NULL;
	for (i = 0; i < nn; i++) {
		uint32_t u;
		int r, a;

		if (layout_warc_unit(d, names[i], seg, &u, &r, &a) && r)
			v[k++] = u;
	}
	qsort(v, k, sizeof(*v), cmp_u32);
	for (i = 0; i < k; i++)
		if (!*n || v[*n - 1] != v[i])
			v[(*n)++] = v[i];
	return v;
}

/* An older crawl's partitions: each by the rank that owns it; those without
 * WARC files keep nothing an earlier index made of them. */
static enum cr_err index_partitions(struct part_ix *x, char **names, size_t nn,
				    int use_staged)
{
	const struct job *j = x->j;
	enum cr_err e = CR_OK;
	uint32_t p;

	for (p = 0; e == CR_OK && p < j->dir.partitions; p++) {
		if (!layout_owns(p, j->rank, j->nranks))
			continue;
		x->unit = p;
		x->by_rank = 0;
		if (any_of_unit(x, names, nn))
			e = index_unit(x, names, nn, use_staged);
		else
			drop_partition(j, x->seg, p);
		if (e == CR_OK)
			drop_stale(j, x->seg, p, 0, names, nn);
	}
	return e;
}

/* The fetch's ranks' files: rank R's by rank R % nranks. */
static enum cr_err index_ranks(struct part_ix *x, char **names, size_t nn, int use_staged)
{
	const struct job *j = x->j;
	size_t nr = 0, i;
	uint32_t *ranks = rank_units(&j->dir, x->seg, names, nn, &nr);
	enum cr_err e = ranks ? CR_OK : CR_ERR_NOMEM;

	for (i = 0; e == CR_OK && i < nr; i++) {
		if ((int)(ranks[i] % (uint32_t)j->nranks) != j->rank)
			continue;
		x->unit = ranks[i];
		x->by_rank = 1;
		e = index_unit(x, names, nn, use_staged);
	}
	/* and those of this rank's units whose WARC files are all gone */
	if (e == CR_OK)
		drop_stale(j, x->seg, UINT32_MAX, 1, names, nn);
	free(ranks);
	return e;
}

enum cr_err index_segment(const struct job *j, int seg, int crawldb_version, int use_staged,
			  uint64_t *c)
{
	struct part_ix x;
	char dir[PATH_MAX];
	char **names = NULL;
	size_t nn = 0, i;
	DIR *d;
	enum cr_err e = CR_OK;

	memset(&x, 0, sizeof(x));
	x.j = j;
	x.seg = seg;
	x.c = c;
	layout_segment_sub(&j->dir, seg, "cdxj", dir, sizeof(dir));
	if (fs_mkdirs(dir) != CR_OK)
		return CR_ERR_IO;
	layout_segment_sub(&j->dir, seg, "warc", dir, sizeof(dir));
	d = opendir(dir);
	if (!d)
		return CR_OK;   /* nothing was fetched */
	e = warc_names(d, &names, &nn);
	closedir(d);
	x.streams = calloc(INDEX_STREAMS_MAX, sizeof(*x.streams));
	if (!x.streams)
		e = CR_ERR_NOMEM;
	buf_init(&x.packed);
	buf_init(&x.line);
	buf_init(&x.pages);
	buf_init(&x.body);
	buf_init(&x.marks);
	buf_init(&x.text);
	buf_init(&x.fields);
	buf_init(&x.wat);
	x.ver = crawldb_version;
	x.dups_loaded = calloc(j->dir.partitions ? j->dir.partitions : 1, 1);
	if (!x.dups_loaded)
		e = CR_ERR_NOMEM;
	if (e == CR_OK)
		e = index_partitions(&x, names, nn, use_staged);
	if (e == CR_OK)
		e = index_ranks(&x, names, nn, use_staged);
	free(x.dups_loaded);
	free(x.streams);
	buf_release(&x.packed);
	buf_release(&x.line);
	buf_release(&x.pages);
	buf_release(&x.body);
	buf_release(&x.marks);
	buf_release(&x.text);
	buf_release(&x.fields);
	buf_release(&x.wat);
	for (i = 0; i < nn; i++)
		free(names[i]);
	free(names);
	return e;
}
