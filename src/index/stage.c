/*
 * stage.c - the records the fetcher stages for the index step; see stage.h.
 */
#include "index/stage.h"
#include "store/recfile.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>

void index_stage_pack_file(struct buf *out, const char *name)
{
	buf_put_u8(out, STAGE_FILE);
	buf_put_str(out, name, strlen(name));
}

void index_stage_pack_cdxj(struct buf *out, const char *line, size_t n)
{
	buf_put_u8(out, STAGE_CDXJ);
	buf_put_str(out, line, n);
}

void index_stage_pack_failed(struct buf *out)
{
	buf_put_u8(out, STAGE_FAILED);
}

void index_stage_pack_page(struct buf *out, const struct index_stage_page *pg)
{
	size_t room = REC_MAX_BYTES - 64, used, text = pg->text_len;
	uint32_t i;

	used = pg->uri_len + pg->id_len + pg->title_len + 64;
	for (i = 0; i < pg->nlinks; i++)
		used += strlen(pg->links[i]) + strlen(pg->anchors[i]) + 20;
	if (used >= room)
		text = 0;
	else if (text > room - used)
		text = room - used;
	buf_put_u8(out, STAGE_PAGE);
	buf_put_str(out, pg->uri, pg->uri_len);
	buf_put_svarint(out, pg->date_us);
	buf_put_str(out, pg->id, pg->id_len);
	buf_put_u8(out, pg->noindex ? 1 : 0);
	buf_put_u8(out, (uint8_t)((pg->lang.n < LANG_MAX ? pg->lang.n : LANG_MAX) |
				  (pg->lang.reliable ? 0x80 : 0)));
	for (i = 0; i < pg->lang.n && i < LANG_MAX; i++) {
		buf_put_str(out, pg->lang.code[i], strnlen(pg->lang.code[i], LANG_CODE_MAX - 1));
		buf_put_u8(out, pg->lang.percent[i]);
	}
	buf_put_str(out, pg->title, pg->title_len);
	buf_put_str(out, pg->text, text);
	buf_put_varint(out, pg->nlinks);
	for (i = 0; i < pg->nlinks; i++) {
		buf_put_str(out, pg->links[i], strlen(pg->links[i]));
		buf_put_str(out, pg->anchors[i], strlen(pg->anchors[i]));
	}
	/* The lines' flags, as far as the text was kept. */
	buf_put_str(out, (const char *)pg->boiler, text < pg->text_len ? 0 : pg->nboiler);
	buf_put_str(out, pg->charset ? pg->charset : "", pg->charset ? pg->charset_len : 0);
}

/* A page's languages: a count (the reliable flag in its top bit), then
 * code and percent of each. */
static int unpack_langs(struct buf_reader *rd, struct lang_result *l)
{
	uint8_t b, i;
	const char *c;
	size_t cl;

	memset(l, 0, sizeof(*l));
	if (buf_get_u8(rd, &b) || (b & 0x7f) > LANG_MAX)
		return -1;
	for (i = 0; i < (b & 0x7f); i++) {
		if (buf_get_str(rd, &c, &cl) || !cl || cl >= LANG_CODE_MAX ||
		    buf_get_u8(rd, &l->percent[i]))
			return -1;
		memcpy(l->code[i], c, cl);
	}
	l->n = b & 0x7f;
	l->reliable = b >> 7;
	return 0;
}

static enum cr_err unpack_page(struct buf_reader *rd, struct index_stage_page *pg)
{
	uint8_t ni;
	uint64_t nl, k;
	size_t start, bn;
	const char *bs;

	if (buf_get_str(rd, &pg->uri, &pg->uri_len) || buf_get_svarint(rd, &pg->date_us) ||
	    buf_get_str(rd, &pg->id, &pg->id_len) || buf_get_u8(rd, &ni) || ni > 1 ||
	    unpack_langs(rd, &pg->lang) || buf_get_str(rd, &pg->title, &pg->title_len) ||
	    buf_get_str(rd, &pg->text, &pg->text_len) || buf_get_varint(rd, &nl) ||
	    nl > UINT32_MAX)
		return CR_ERR_FORMAT;
	pg->noindex = ni;
	pg->nlinks = (uint32_t)nl;
	start = rd->off;
	for (k = 0; k < 2 * nl; k++) {
		const char *s;
		size_t n;

		if (buf_get_str(rd, &s, &n))
			return CR_ERR_FORMAT;
	}
	pg->packed_links = rd->p + start;
	pg->packed_len = rd->off - start;
	if (buf_get_str(rd, &bs, &bn) || bn > UINT32_MAX)
		return CR_ERR_FORMAT;
	pg->boiler = (const uint8_t *)bs;
	pg->nboiler = (uint32_t)bn;
	/* The charset: not in pages staged before it was. */
	if (rd->off < rd->len && buf_get_str(rd, &pg->charset, &pg->charset_len))
		return CR_ERR_FORMAT;
	return CR_OK;
}

enum cr_err index_stage_unpack(const void *p, size_t n, struct index_stage_rec *r)
{
	struct buf_reader rd;
	uint8_t kind;

	memset(r, 0, sizeof(*r));
	buf_reader_init(&rd, p, n);
	if (buf_get_u8(&rd, &kind))
		return CR_ERR_FORMAT;
	r->kind = (enum index_stage_kind)kind;
	switch (kind) {
	case STAGE_FILE:
	case STAGE_CDXJ:
		if (buf_get_str(&rd, &r->s, &r->n) || !r->n)
			return CR_ERR_FORMAT;
		break;
	case STAGE_PAGE:
		if (unpack_page(&rd, &r->page))
			return CR_ERR_FORMAT;
		break;
	case STAGE_FAILED:
		break;
	default:
		return CR_ERR_FORMAT;
	}
	return rd.off == rd.len ? CR_OK : CR_ERR_FORMAT;
}

enum cr_err index_stage_link(const struct index_stage_page *pg, size_t *pos, const char **url,
			     size_t *ulen, const char **anchor, size_t *alen)
{
	struct buf_reader rd;

	if (*pos >= pg->packed_len)
		return CR_EOF;
	buf_reader_init(&rd, pg->packed_links, pg->packed_len);
	rd.off = *pos;
	if (buf_get_str(&rd, url, ulen) || buf_get_str(&rd, anchor, alen))
		return CR_ERR_FORMAT;
	*pos = rd.off;
	return CR_OK;
}

/* The series suffixes of segout.c, longest match first. */
static const char *const series_suffixes[] = { "-robots", "-diagnostics", "-sitemaps" };

/* Whether name[0..n) ends in "-" and five digits. */
static int is_serial(const char *name, size_t n)
{
	size_t k;

	if (n < 7 || name[n - 6] != '-')
		return 0;
	for (k = n - 5; k < n; k++)
		if (name[k] < '0' || name[k] > '9')
			return 0;
	return 1;
}

/* The length of a WARC file name without its extension, and its series'
 * suffix ("" for pages; *n shortened past it); 0 if it is no WARC file. */
static size_t name_parts(const char *name, const char **suffix)
{
	static const char *const exts[] = { ".warc.gz", ".warc.zst", ".warc" };
	size_t n = strlen(name), i;

	*suffix = "";
	for (i = 0; i < sizeof(exts) / sizeof(exts[0]); i++) {
		size_t el = strlen(exts[i]);

		if (n > el && !strcmp(name + n - el, exts[i])) {
			n -= el;
			break;
		}
	}
	if (i == sizeof(exts) / sizeof(exts[0]))
		return 0;
	for (i = 0; i < sizeof(series_suffixes) / sizeof(series_suffixes[0]); i++) {
		size_t sl = strlen(series_suffixes[i]);

		if (n > sl && !strncmp(name + n - sl, series_suffixes[i], sl)) {
			*suffix = series_suffixes[i];
			return n - sl;
		}
	}
	return n;
}

int index_stage_key(const char *name, char *out, size_t cap)
{
	const char *suffix;
	size_t n = name_parts(name, &suffix);

	/* "-HOST" after the serial (not in names of crawls made before it) */
	if (!is_serial(name, n)) {
		while (n && name[n - 1] != '-')
			n--;
		n -= n > 0;
	}
	/* "-SSSSS": the serial */
	if (!is_serial(name, n))
		return 0;
	n -= 6;
	return snprintf(out, cap, "%.*s%s", (int)n, name, suffix) < (int)cap;
}

int index_wants_text(const char *warc_name, int is_response, int status, const char *mime)
{
	const char *suffix;

	if (!is_response || status < 200 || status > 299)
		return 0;
	if (strcasecmp(mime, "text/html") && strcasecmp(mime, "application/xhtml+xml") &&
	    strcasecmp(mime, "application/pdf") && strcasecmp(mime, "text/plain"))
		return 0;
	/* the pages series: its names end in no suffix */
	return name_parts(warc_name, &suffix) && !suffix[0];
}

const char *index_text_mime(const char *mime, const char *detected, int pdf)
{
	const char *m = !strcmp(detected, "application/pdf") ? detected : mime;

	return !pdf && !strcasecmp(m, "application/pdf") ? "" : m;
}
