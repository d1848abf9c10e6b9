#include "parse/parse.h"
#include "crawldb/crawl_record.h"
#include "crawldb/fetch_record.h"
#include "crawldb/parse_record.h"
#include "util/minhash.h"
#include "http/head.h"
#include "parse/css.h"
#include "parse/decode.h"
#include "parse/doc.h"
#include "parse/html.h"
#include "parse/pdfworker.h"
#include "parse/sitemap_page.h"
#include "score/score.h"
#include "store/recfile.h"
#include "url/url.h"
#include "util/hmap.h"
#include "util/fs.h"
#include "util/log.h"
#include "warc/warc.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *const parse_counter_names[PC_COUNT_] = {
	"pages", "failed", "skipped", "redirects", "links", "dropped", "nofollow", "noindex",
	"decoded", "decode_capped", "undecodable", "sitemaps", "sitemap_entries",
	"sitemap_dropped", "sitemap_invalid", "sitemap_malformed", "embeds", "stylesheets",
	"pdfs", "pdf_failed", "texts",
};

/* 1 if f's Content-Type is one of types[0..n) (case as the fetch wrote it). */
static int type_in(const struct fetch_record *f, const char *const *types, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (f->content_type_len == strlen(types[i]) &&
		    !strncasecmp(f->content_type, types[i], f->content_type_len))
			return 1;
	return 0;
}

static int is_html(const struct fetch_record *f)
{
	static const char *const types[] = { "text/html", "application/xhtml+xml", "" };

	return type_in(f, types, sizeof(types) / sizeof(types[0]));
}

/* A type whose body may be a PDF or plain text (parse/doc.h). */
static int is_doc(const struct fetch_record *f)
{
	static const char *const types[] = { "application/pdf", "text/plain",
					     "application/octet-stream" };

	return type_in(f, types, sizeof(types) / sizeof(types[0]));
}

static int is_css(const struct fetch_record *f)
{
	return f->content_type_len == 8 && !memcmp(f->content_type, "text/css", 8);
}

static void str0(char *dst, size_t cap, const char *s, size_t n)
{
	if (n >= cap)
		n = cap - 1;
	memcpy(dst, s, n);
	dst[n] = '\0';
}

int parse_wants_body(const struct fetch_record *f)
{
	return (f->rec.status == ST_FETCHED || f->rec.status == ST_TRUNCATED ||
		f->rec.status == ST_TOO_LARGE) &&
	       (is_html(f) || is_doc(f) || f->rec.meta.kind == CRAWL_SITEMAP ||
		(f->rec.meta.kind == CRAWL_EMBED && is_css(f)));
}

/* 1 if word (a directive) is in the comma/blank separated list s[0..n). */
static int has_directive(const char *s, size_t n, const char *word)
{
	size_t wl = strlen(word), i = 0;

	while (i < n) {
		size_t k;

		while (i < n && (s[i] == ' ' || s[i] == '\t' || s[i] == ','))
			i++;
		for (k = i; k < n && s[k] != ' ' && s[k] != '\t' && s[k] != ','; k++)
			;
		if (k - i == wl && !strncasecmp(s + i, word, wl))
			return 1;
		i = k;
	}
	return 0;
}

/*
 * X-Robots-Tag response headers: "noindex, nofollow", or "agent: nofollow"
 * which applies only when agent is ours. Adds PARSE_* flags.
 */
static uint32_t header_robots(const unsigned char *head, size_t len, const char *agent)
{
	const char *p = (const char *)head, *end = p + len;
	static const char name[] = "x-robots-tag:";
	uint32_t flags = 0;

	while (p < end) {
		const char *eol = memchr(p, '\n', (size_t)(end - p));
		size_t ll = eol ? (size_t)(eol - p) : (size_t)(end - p);

		if (ll > sizeof(name) - 1 && !strncasecmp(p, name, sizeof(name) - 1)) {
			const char *v = p + sizeof(name) - 1, *ve = p + ll;
			const char *colon = memchr(v, ':', (size_t)(ve - v));

			while (ve > v && (ve[-1] == '\r' || ve[-1] == ' '))
				ve--;
			if (colon) {
				/* "agent: directives": ours, or not for us. */
				const char *a = v;

				while (a < colon && *a == ' ')
					a++;
				if ((size_t)(colon - a) == strlen(agent) &&
				    !strncasecmp(a, agent, strlen(agent)))
					v = colon + 1;
				else
					v = ve;
			}
			if (has_directive(v, (size_t)(ve - v), "noindex") ||
			    has_directive(v, (size_t)(ve - v), "none"))
				flags |= PARSE_NOINDEX;
			if (has_directive(v, (size_t)(ve - v), "nofollow") ||
			    has_directive(v, (size_t)(ve - v), "none"))
				flags |= PARSE_NOFOLLOW;
		}
		p += ll + 1;
	}
	return flags;
}

/* The page's languages into its record. */
static void set_langs(const struct lang_result *l, struct parse_record *pr)
{
	unsigned i;

	pr->nlangs = (uint8_t)(l->n < PARSE_LANGS_MAX ? l->n : PARSE_LANGS_MAX);
	for (i = 0; i < pr->nlangs; i++) {
		memcpy(pr->langs[i], l->code[i], sizeof(pr->langs[i]));
		pr->lang_percent[i] = l->percent[i];
	}
	pr->lang_reliable = (uint8_t)l->reliable;
}

/* The page's MinHash signature over its title and text (util/minhash.h). */
static void sign_page(const struct job *j, const struct html_page *page,
		      struct parse_record *pr, uint32_t *sig)
{
	struct buf t;
	unsigned n = (unsigned)j->cfg.dedup_hashes;

	buf_init(&t);
	html_page_text(page, &t);
	if (minhash_sign((const char *)t.p, t.len, (unsigned)j->cfg.dedup_shingle, n,
			 (enum minhash_scheme)j->cfg.dedup_signature, sig)) {
		pr->sig = sig;
		pr->nsig = n;
	}
	buf_release(&t);
}

/* A Content-Encoding is undone, up to fetch.max_decoded_bytes (over the
 * cap, the decoded part is parsed, and *capped set if capped is not NULL):
 * *body and *blen then point into dec. 0 if the body cannot be decoded. */
static int undo_encoding(const struct job *j, const unsigned char *head, size_t hlen,
			 const unsigned char **body, size_t *blen, struct buf *dec, uint64_t *c,
			 int *capped)
{
	size_t enclen = 0;
	const char *enc = http_head_field(head, hlen, "content-encoding", &enclen);
	size_t max = (size_t)j->cfg.max_decoded_bytes;

	switch (decode_body(enc, enclen, *body, *blen, max, dec)) {
	case DECODE_IDENTITY:
		return 1;
	case DECODE_TOO_LARGE:
	case DECODE_OK:
		c[PC_DECODED]++;
		c[PC_DECODE_CAPPED] += dec->len >= max;
		if (capped)
			*capped = dec->len >= max;
		*body = dec->p;
		*blen = dec->len;
		return 1;
	case DECODE_BAD:
	case DECODE_UNSUPPORTED:
		break;
	}
	c[PC_UNDECODABLE]++;
	return 0;
}

/* A record must stay under REC_MAX_BYTES: links beyond a byte budget are
 * dropped like those beyond the count cap. */
static void keep_link_budget(struct html_page *page)
{
	size_t bytes = 0;
	uint32_t k;

	for (k = 0; k < page->nlinks; k++) {
		bytes += strlen(page->links[k]) + 4;
		if (bytes > REC_MAX_BYTES / 2)
			break;
	}
	page->dropped += page->nlinks - k;
	html_page_keep_links(page, k);
}

size_t parse_cut_tag(const unsigned char *body, size_t n)
{
	size_t i = n;

	while (i > 0 && body[i - 1] != '>' && body[i - 1] != '<')
		i--;
	return i > 0 && body[i - 1] == '<' ? i - 1 : n;
}

static void page_robots(const struct job *j, const unsigned char *head, size_t hlen,
			struct html_page *page, uint32_t *flags);

int parse_html(const struct job *j, const char *url, const char *charset,
	       const unsigned char *head, size_t hlen, const unsigned char *body, size_t blen,
	       int cut, struct html_page *page, uint32_t *flags, uint64_t *c,
	       struct htmlmeta *meta)
{
	struct buf dec;
	enum cr_err e;
	int capped = 0;

	buf_init(&dec);
	if (!undo_encoding(j, head, hlen, &body, &blen, &dec, c, &capped)) {
		buf_release(&dec);
		return 0;
	}
	if (cut || capped)   /* cut short by the fetch, or by the decoding's cap */
		blen = parse_cut_tag(body, blen);
	e = html_extract_meta(body, blen, charset, url, j->cfg.robots_agent,
			      (size_t)j->cfg.max_links, page, meta);
	buf_release(&dec);
	if (e != CR_OK) {
		c[PC_FAILED]++;
		return 0;
	}
	page_robots(j, head, hlen, page, flags);
	return 1;
}

/* X-Robots-Tag and meta robots into *flags; nofollow keeps no link; the
 * links cut to what a record holds. */
static void page_robots(const struct job *j, const unsigned char *head, size_t hlen,
			struct html_page *page, uint32_t *flags)
{
	*flags = header_robots(head, hlen, j->cfg.robots_agent);
	if (page->meta_noindex)
		*flags |= PARSE_NOINDEX;
	if (page->meta_nofollow)
		*flags |= PARSE_NOFOLLOW;
	if (*flags & PARSE_NOFOLLOW) {
		/* X-Robots-Tag nofollow: no link of the page is followed. */
		page->nofollow += page->nlinks;
		html_page_keep_links(page, 0);
	}
	keep_link_budget(page);
}

/* A PDF read by the worker into page; its fate into pdf. */
/* The worker asked for a PDF's body (its Content-Encoding undone), unless
 * pdf was read already (parse_pdf_read). */
static void ask_worker(const struct job *j, const unsigned char *body, size_t blen,
		       struct pdf_doc *pdf)
{
	struct pdfworker_opts o;

	if (pdf->read)
		return;
	memset(&o, 0, sizeof(o));
	o.lim.max_pages = (uint32_t)j->cfg.pdf_max_pages;
	o.lim.max_text = (size_t)j->cfg.max_decoded_bytes;
	o.lim.max_links = (uint32_t)j->cfg.max_links;
	o.timeout_s = (uint32_t)j->cfg.pdf_timeout_s;
	o.max_bytes = (uint64_t)j->cfg.pdf_max_bytes;
	pdfworker_parse(&o, body, blen, pdf);
	pdf->read = 1;
}

static int parse_pdf(const struct job *j, const char *url, const unsigned char *body,
		     size_t blen, struct html_page *page, uint64_t *c, struct pdf_doc *pdf)
{
	c[PC_PDFS]++;
	ask_worker(j, body, blen, pdf);
	if (pdf->fate != PDF_OK) {
		c[PC_PDF_FAILED]++;
		log_debug("parse", "%s: %s", url, pdf_fate_reason(pdf->fate));
		return 0;
	}
	doc_pdf_page(pdf, url, (size_t)j->cfg.max_links, page);
	return 1;
}

int parse_doc(const struct job *j, const char *url, const char *mime, const char *charset,
	      const unsigned char *head, size_t hlen, const unsigned char *body, size_t blen,
	      int cut, struct html_page *page, uint32_t *flags, uint64_t *c,
	      struct htmlmeta *meta, struct pdf_doc *pdf)
{
	enum doc_kind k = doc_kind(mime, body, blen);
	struct pdf_doc own;
	struct buf dec;
	int ok;

	if (k == DOC_HTML)
		return parse_html(j, url, charset, head, hlen, body, blen, cut, page, flags, c,
				  meta);
	/* A PDF without bytes (a 304's, a HEAD's) has nothing to read. */
	if (k == DOC_OTHER || (k == DOC_PDF && (!j->cfg.parse_pdf || blen == 0))) {
		c[PC_SKIPPED]++;
		return 0;
	}
	buf_init(&dec);
	if (!undo_encoding(j, head, hlen, &body, &blen, &dec, c, NULL)) {
		buf_release(&dec);
		return 0;
	}
	if (k == DOC_PDF) {
		if (!pdf)
			pdf_doc_init(pdf = &own);
		ok = parse_pdf(j, url, body, blen, page, c, pdf);
		if (pdf == &own)
			pdf_doc_release(&own);
	} else {
		doc_text_page(body, blen, (size_t)j->cfg.max_decoded_bytes, page);
		c[PC_TEXTS]++;
		ok = 1;
	}
	buf_release(&dec);
	if (ok)
		page_robots(j, head, hlen, page, flags);
	return ok;
}

int parse_wants_pdf(const struct job *j, const struct fetch_record *f,
		    const unsigned char *body, size_t blen)
{
	char mime[128];

	if (!j->cfg.parse_pdf || !blen || !parse_wants_body(f) ||
	    f->rec.meta.kind == CRAWL_SITEMAP || (f->rec.meta.kind == CRAWL_EMBED && is_css(f)))
		return 0;
	str0(mime, sizeof(mime), f->content_type, f->content_type_len);
	return doc_kind(mime, body, blen) == DOC_PDF;
}

void parse_pdf_read(const struct job *j, const unsigned char *head, size_t hlen,
		    const unsigned char *body, size_t blen, struct pdf_doc *out)
{
	uint64_t c[PC_COUNT_] = { 0 };   /* parse_page_read counts it */
	struct buf dec;

	buf_init(&dec);
	if (undo_encoding(j, head, hlen, &body, &blen, &dec, c, NULL))
		ask_worker(j, body, blen, out);
	buf_release(&dec);
}

void parse_kept_release(struct parse_kept *k)
{
	html_page_release(&k->page);
	pdf_doc_release(&k->pdf);
}

/* Stylesheets read for requisites in a chain from a page, at most. */
#define EMBED_HOPS_MAX 2
/* A record holds at most this many bytes of requisites. */
#define EMBED_BYTES_MAX (REC_MAX_BYTES / 4)

/* A stylesheet's requisites as css.h finds them, canonical, each once. */
struct sheet {
	const char *base;
	char **urls;
	uint32_t n, cap, max;
	size_t bytes;
	struct hmap seen;
};

static void on_sheet_url(void *arg, const char *raw)
{
	struct sheet *sh = arg;
	char u[URL_MAX_LEN + 1];
	const char *why;
	void **slot;

	if (sh->n >= sh->max || url_canon(sh->base, raw, u, sizeof(u), &why) != CR_OK ||
	    sh->bytes + strlen(u) > EMBED_BYTES_MAX)
		return;
	slot = hmap_put(&sh->seen, u, strlen(u));
	if (*slot)
		return;
	*slot = sh;
	if (sh->n == sh->cap) {
		sh->cap = sh->cap ? sh->cap * 2 : 16;
		sh->urls = realloc(sh->urls, sh->cap * sizeof(*sh->urls));
		if (!sh->urls)
			abort();
	}
	if (!(sh->urls[sh->n++] = strdup(u)))
		abort();
	sh->bytes += strlen(u) + 4;
}

/* A stylesheet fetched as a requisite: a record of its own requisites
 * (@import, url()) alone. A sheet reached through EMBED_HOPS_MAX sheets
 * already (its hops) keeps none: a chain of @imports ends there. */
static int parse_sheet(const struct job *j, struct parse_record *pr,
		       const unsigned char *head, size_t hlen, const unsigned char *body,
		       size_t blen, struct buf *out, uint64_t *c)
{
	struct sheet sh = { pr->url, NULL, 0, 0, (uint32_t)j->cfg.max_embeds, 0, { 0 } };
	struct buf dec;
	uint32_t i;

	buf_init(&dec);
	if (!undo_encoding(j, head, hlen, &body, &blen, &dec, c, NULL)) {
		buf_release(&dec);
		return 0;
	}
	hmap_init(&sh.seen);
	if (pr->hops < EMBED_HOPS_MAX)
		css_urls((const char *)body, blen, (size_t)j->cfg.max_embeds * 4, on_sheet_url,
			 &sh);
	pr->flags |= PARSE_SHEET;
	pr->nembeds = sh.n;
	pr->embed_urls = (const char *const *)sh.urls;
	parse_record_pack(pr, NULL, 0, out);
	c[PC_STYLESHEETS]++;
	c[PC_EMBEDS] += sh.n;
	for (i = 0; i < sh.n; i++)
		free(sh.urls[i]);
	free(sh.urls);
	hmap_release(&sh.seen);
	buf_release(&dec);
	return 1;
}

/* The page's requisites its record keeps: fetch.max_embeds, and a byte
 * budget. */
static void keep_embeds(const struct job *j, const struct html_page *page,
			struct parse_record *pr, uint64_t *c)
{
	size_t bytes = 0;
	uint32_t k;

	if (!j->cfg.fetch_embeds)
		return;
	for (k = 0; k < page->nembeds && k < (uint64_t)j->cfg.max_embeds; k++) {
		bytes += strlen(page->embeds[k]) + 4;
		if (bytes > EMBED_BYTES_MAX)
			break;
	}
	pr->nembeds = k;
	pr->embed_urls = (const char *const *)page->embeds;
	c[PC_EMBEDS] += k;
}

/* The redirect's parse record: its one link is the target. */
static void pack_redirect(const struct fetch_record *f, struct parse_record *pr,
			  struct buf *out, uint64_t *c)
{
	char loc[URL_MAX_LEN + 1];
	const char *links[1] = { loc };

	str0(loc, sizeof(loc), f->location, f->location_len);
	pr->flags = PARSE_REDIRECT;
	if (f->rec.meta.kind == CRAWL_SITEMAP) {
		/* A sitemap moved: its target is the sitemap. */
		struct parse_entry to = { .meta = { .kind = CRAWL_SITEMAP } };

		to.meta.vouched = f->rec.meta.vouched && sitemap_page_owns(pr->url, loc, 1);
		parse_record_pack_sitemap(pr, links, &to, 1, out);
	} else {
		parse_record_pack(pr, links, 1, out);
	}
	c[PC_REDIRECTS]++;
	c[PC_LINKS]++;
}

/* A PDF's metadata and fate into keep (NULL: released). */
static void keep_pdf(struct parse_kept *keep, struct pdf_doc *pdf, const char *mime,
		     const unsigned char *body, size_t blen)
{
	if (keep && doc_kind(mime, body, blen) == DOC_PDF) {
		keep->is_pdf = 1;
		keep->pdf = *pdf;
	} else {
		pdf_doc_release(pdf);
	}
}

/* A fetched sitemap's record (its Content-Encoding undone), counted. */
static int parse_sitemap(const struct job *j, const struct fetch_record *f,
			 struct parse_record *pr, const unsigned char *head, size_t hlen,
			 const unsigned char *body, size_t blen, struct buf *out, uint64_t *c)
{
	struct sitemap_page_counts n;
	struct buf dec;
	int ok;

	buf_init(&dec);
	ok = undo_encoding(j, head, hlen, &body, &blen, &dec, c, NULL);
	if (ok) {
		sitemap_page_parse(pr, f->rec.meta.vouched, body, blen, out, &n);
		c[PC_SITEMAPS]++;
		c[PC_SITEMAP_ENTRIES] += n.entries;
		c[PC_SITEMAP_DROPPED] += n.dropped;
		c[PC_SITEMAP_INVALID] += n.invalid;
		c[PC_SITEMAP_MALFORMED] += (uint64_t)n.malformed;
	}
	buf_release(&dec);
	return ok;
}

int parse_page(const struct job *j, const struct fetch_record *f,
	       const unsigned char *head, size_t hlen, const unsigned char *body, size_t blen,
	       struct buf *out, uint64_t *c, struct parse_kept *keep)
{
	return parse_page_read(j, f, head, hlen, body, blen, out, c, keep, NULL);
}

int parse_page_read(const struct job *j, const struct fetch_record *f,
		    const unsigned char *head, size_t hlen, const unsigned char *body, size_t blen,
		    struct buf *out, uint64_t *c, struct parse_kept *keep, struct pdf_doc *read)
{
	struct parse_record pr;
	char url[URL_MAX_LEN + 1], charset[64], mime[128];
	struct html_page page;
	struct pdf_doc pdf;
	uint32_t sig[MINHASH_MAX], flags = 0;

	if (keep)
		memset(keep, 0, sizeof(*keep));
	str0(url, sizeof(url), f->rec.url, f->rec.url_len);
	memset(&pr, 0, sizeof(pr));
	pr.url = url;
	pr.url_len = strlen(url);
	pr.depth = f->rec.depth;
	pr.hops = f->rec.hops;
	pr.seed = f->rec.seed;
	pr.cash = score_spends(&f->rec) ? f->rec.cash : 0;
	pr.title = "";
	if (f->rec.status == ST_REDIRECT && f->location_len) {
		pack_redirect(f, &pr, out, c);
		return 1;
	}
	if (!parse_wants_body(f)) {
		if (f->rec.status == ST_FETCHED)
			c[PC_SKIPPED]++;
		return 0;
	}
	if (f->rec.meta.kind == CRAWL_SITEMAP)
		return parse_sitemap(j, f, &pr, head, hlen, body, blen, out, c);
	if (f->rec.meta.kind == CRAWL_EMBED && is_css(f))
		return j->cfg.fetch_embeds && parse_sheet(j, &pr, head, hlen, body, blen, out, c);
	str0(charset, sizeof(charset), f->charset, f->charset_len);
	str0(mime, sizeof(mime), f->content_type, f->content_type_len);
	pdf_doc_init(&pdf);
	if (read) {   /* taken over */
		pdf = *read;
		pdf_doc_init(read);
	}
	if (!parse_doc(j, url, mime, charset, head, hlen, body, blen,
		       f->rec.status == ST_TRUNCATED, &page, &flags, c, NULL, &pdf)) {
		keep_pdf(keep, &pdf, mime, body, blen);
		return 0;
	}
	pr.flags = flags;
	c[PC_NOINDEX] += (pr.flags & PARSE_NOINDEX) != 0;
	if (j->cfg.dedup_enabled)
		sign_page(j, &page, &pr, sig);
	pr.title = (const char *)buf_cstr(&page.title);
	pr.title_len = page.title.len;
	pr.nrefused = page.nrefused;   /* html_refusal and parse_refusal agree */
	pr.refused_urls = (const char *const *)page.refused;
	pr.refused_why = page.refused_why;
	pr.text_digest = page.text_digest;
	set_langs(&page.lang, &pr);
	keep_embeds(j, &page, &pr, c);
	parse_record_pack(&pr, (const char *const *)page.links, page.nlinks, out);
	c[PC_PAGES]++;
	c[PC_LINKS] += page.nlinks;
	c[PC_DROPPED] += page.dropped;
	c[PC_NOFOLLOW] += page.nofollow;
	if (keep) {
		keep->html = 1;
		keep->flags = pr.flags;
		keep->page = page;
	} else {
		html_page_release(&page);
	}
	keep_pdf(keep, &pdf, mime, body, blen);
	return 1;
}

struct parse_ctx {
	struct job *j;
	int seg;
	struct warc_reader *wr;
	char wr_name[256];
	struct buf out;
	uint64_t *c;
};


/* The body of the response record at the fetch record's WARC offset. */
static enum cr_err read_body(struct parse_ctx *x, const struct fetch_record *f,
			     struct warc_record *rec, const unsigned char **body,
			     size_t *blen, size_t *hlen)
{
	char name[256], path[PATH_MAX];
	size_t head;
	int status;
	enum cr_err e;

	str0(name, sizeof(name), f->warc, f->warc_len);
	if (strchr(name, '/'))
		return CR_ERR_FORMAT;
	if (!x->wr || strcmp(name, x->wr_name)) {
		warc_reader_free(&x->wr);
		layout_segment_file(&x->j->dir, x->seg, "warc", name, path, sizeof(path));
		e = warc_reader_open(path, config_warc_block_max(&x->j->cfg), &x->wr);
		if (e)
			return e;
		snprintf(x->wr_name, sizeof(x->wr_name), "%s", name);
	}
	e = warc_reader_seek(x->wr, f->warc_offset);
	if (!e)
		e = warc_reader_next(x->wr, rec);
	if (!e)
		e = warc_http_split(rec->block, rec->block_len, &status, &head);
	if (e)
		return e;
	*body = rec->block + head;
	*blen = rec->block_len - head;
	*hlen = head;
	return CR_OK;
}

static enum cr_err parse_partition(struct parse_ctx *x, int seg, uint32_t p)
{
	char in[PATH_MAX], outp[PATH_MAX];
	struct recfile_reader *r;
	struct recfile_writer *w;
	const void *data;
	size_t n;
	enum cr_err e;

	layout_segment_part(&x->j->dir, seg, "fetch", p, in, sizeof(in));
	layout_segment_part(&x->j->dir, seg, "parse", p, outp, sizeof(outp));
	e = recfile_reader_open(in, REC_KIND_FETCH, &r);
	if (e) {
		log_err("parse", "cannot read '%s'", in);
		return e;
	}
	e = recfile_writer_open(outp, REC_KIND_PARSE, (int)x->j->cfg.zstd_level, &w);
	if (e) {
		recfile_reader_free(&r);
		return e;
	}
	while ((e = recfile_reader_next(r, &data, &n)) == CR_OK) {
		struct fetch_record f;
		struct warc_record rec;
		const unsigned char *body = NULL;
		size_t blen = 0, hlen = 0;

		if (fetch_record_unpack(data, n, &f)) {
			e = CR_ERR_FORMAT;
			log_err("parse", "damaged record in '%s'", in);
			break;
		}
		if (parse_wants_body(&f) &&
		    read_body(x, &f, &rec, &body, &blen, &hlen) != CR_OK) {
			x->c[PC_FAILED]++;
			continue;
		}
		x->out.len = 0;
		if (!parse_page(x->j, &f, body ? body - hlen : NULL, hlen, body, blen, &x->out,
				x->c, NULL))
			continue;
		e = recfile_writer_add(w, x->out.p, x->out.len);
		if (e)
			break;
	}
	recfile_reader_free(&r);
	if (e != CR_EOF) {
		recfile_writer_abort(&w);
		return e ? e : CR_ERR_FORMAT;
	}
	return recfile_writer_commit(&w);
}

enum cr_err parse_run(struct job *j, int seg, uint64_t *counters)
{
	struct parse_ctx x;
	char dir[PATH_MAX];
	uint32_t p;
	enum cr_err e;

	memset(&x, 0, sizeof(x));
	x.j = j;
	x.c = counters;
	buf_init(&x.out);
	x.seg = seg;
	layout_segment_sub(&j->dir, seg, "parse", dir, sizeof(dir));
	e = fs_mkdirs(dir);
	for (p = 0; !e && p < j->dir.partitions; p++)
		if (layout_owns(p, j->rank, j->nranks))
			e = parse_partition(&x, seg, p);
	warc_reader_free(&x.wr);
	buf_release(&x.out);
	return e;
}
