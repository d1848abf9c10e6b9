/*
 * sniff.c - media types from a payload's bytes; see sniff.h. The one file
 * that speaks to libmagic.
 */
#include "index/sniff.h"
#include "http/head.h"
#include "parse/decode.h"
#include "util/buf.h"
#include "util/log.h"

#include <stdio.h>
#include <string.h>
#include <strings.h>
#include <magic.h>

/* ---- the WHATWG table ---- */

/* A signature: pattern bytes under a mask (0xff: must equal; 0xdf: either
 * case of an ASCII letter; 0x00: any byte). */
struct sig {
	const char *pattern, *mask;
	unsigned len;
	const char *type;
};

#define ANY4 "\x00\x00\x00\x00"
#define ALL4 "\xff\xff\xff\xff"
/* The image, audio/video, font and archive signatures ("matching an image
 * type pattern" and its siblings), then those of the unknown-type table
 * that are not HTML. */
static const struct sig sigs[] = {
	{ "%PDF-", ALL4 "\xff", 5, "application/pdf" },
	{ "%!PS-Adobe-", ALL4 ALL4 "\xff\xff\xff", 11, "application/postscript" },
	{ "\xfe\xff", "\xff\xff", 2, "text/plain" },
	{ "\xff\xfe", "\xff\xff", 2, "text/plain" },
	{ "\xef\xbb\xbf", "\xff\xff\xff", 3, "text/plain" },
	{ "\x00\x00\x01\x00", ALL4, 4, "image/x-icon" },
	{ "\x00\x00\x02\x00", ALL4, 4, "image/x-icon" },
	{ "BM", "\xff\xff", 2, "image/bmp" },
	{ "GIF87a", ALL4 "\xff\xff", 6, "image/gif" },
	{ "GIF89a", ALL4 "\xff\xff", 6, "image/gif" },
	{ "RIFF" ANY4 "WEBPVP", ALL4 ANY4 ALL4 "\xff\xff", 14, "image/webp" },
	{ "\x89PNG\r\n\x1a\n", ALL4 ALL4, 8, "image/png" },
	{ "\xff\xd8\xff", "\xff\xff\xff", 3, "image/jpeg" },
	{ "FORM" ANY4 "AIFF", ALL4 ANY4 ALL4, 12, "audio/aiff" },
	{ "ID3", "\xff\xff\xff", 3, "audio/mpeg" },
	{ "OggS\x00", ALL4 "\xff", 5, "application/ogg" },
	{ "MThd\x00\x00\x00\x06", ALL4 ALL4, 8, "audio/midi" },
	{ "RIFF" ANY4 "AVI ", ALL4 ANY4 ALL4, 12, "video/avi" },
	{ "RIFF" ANY4 "WAVE", ALL4 ANY4 ALL4, 12, "audio/wave" },
	{ "wOFF", ALL4, 4, "font/woff" },
	{ "wOF2", ALL4, 4, "font/woff2" },
	{ "OTTO", ALL4, 4, "font/otf" },
	{ "\x00\x01\x00\x00", ALL4, 4, "font/ttf" },
	{ "ttcf", ALL4, 4, "font/collection" },
	{ "\x1f\x8b\x08", "\xff\xff\xff", 3, "application/x-gzip" },
	{ "PK\x03\x04", ALL4, 4, "application/zip" },
	{ "Rar \x1a\x07\x00", ALL4 "\xff\xff\xff", 7, "application/x-rar-compressed" },
};

/* The HTML table: a tag (compared without case) and then a space or '>'. */
static const char *const html_tags[] = {
	"<!DOCTYPE HTML", "<HTML", "<HEAD", "<SCRIPT", "<IFRAME", "<H1", "<DIV", "<FONT",
	"<TABLE", "<A", "<STYLE", "<TITLE", "<B", "<BODY", "<BR", "<P", "<!--",
};

static int sig_match(const struct sig *s, const unsigned char *p, size_t n)
{
	unsigned i;

	if (n < s->len)
		return 0;
	for (i = 0; i < s->len; i++)
		if ((p[i] & (unsigned char)s->mask[i]) != (unsigned char)s->pattern[i])
			return 0;
	return 1;
}

static int is_ws(unsigned char c)
{
	return c == 0x09 || c == 0x0a || c == 0x0c || c == 0x0d || c == 0x20;
}

/* A tag of the HTML table at p (blanks skipped before it). */
static int html_match(const unsigned char *p, size_t n)
{
	size_t i, k, tl;

	for (i = 0; i < n && is_ws(p[i]); i++)
		;
	for (k = 0; k < sizeof(html_tags) / sizeof(html_tags[0]); k++) {
		tl = strlen(html_tags[k]);
		if (n - i > tl && !strncasecmp((const char *)p + i, html_tags[k], tl) &&
		    (p[i + tl] == ' ' || p[i + tl] == '>'))
			return 1;
	}
	return 0;
}

static int is_binary(unsigned char c)
{
	return c <= 0x08 || c == 0x0b || (c >= 0x0e && c <= 0x1a) || (c >= 0x1c && c <= 0x1f);
}

const char *sniff_table(const unsigned char *p, size_t n)
{
	size_t i, k;

	if (!n)
		return "";
	if (n > SNIFF_BYTES)
		n = SNIFF_BYTES;
	if (html_match(p, n))
		return "text/html";
	for (i = 0; i < n && is_ws(p[i]); i++)
		;
	if (n - i >= 5 && !memcmp(p + i, "<?xml", 5))
		return "text/xml";
	for (k = 0; k < sizeof(sigs) / sizeof(sigs[0]); k++)
		if (sig_match(&sigs[k], p, n))
			return sigs[k].type;
	for (i = 0; i < n; i++)
		if (is_binary(p[i]))
			return "application/octet-stream";
	return "text/plain";
}

/* ---- libmagic, for the binary the table does not name ---- */

static magic_t cookie;
static int failed;

static magic_t database(void)
{
	if (cookie || failed)
		return cookie;
	cookie = magic_open(MAGIC_MIME_TYPE | MAGIC_NO_CHECK_COMPRESS | MAGIC_NO_CHECK_ELF |
			    MAGIC_ERROR);
	if (cookie && magic_load(cookie, NULL) != 0) {
		log_warn("index", "libmagic: %s: mime-detected from the WHATWG table alone",
			 magic_error(cookie));
		magic_close(cookie);
		cookie = NULL;
	}
	failed = cookie == NULL;
	return cookie;
}

void sniff_mime(const void *head, size_t hlen, const void *body, size_t blen, char *out,
		size_t cap)
{
	size_t enclen = 0;
	const char *enc = http_head_field(head, hlen, "content-encoding", &enclen), *t;
	const unsigned char *p = body;
	size_t n = blen < SNIFF_BYTES ? blen : SNIFF_BYTES;
	struct buf dec;
	magic_t m;

	out[0] = '\0';
	if (!blen)
		return;
	buf_init(&dec);
	switch (decode_body(enc, enclen, body, blen, SNIFF_BYTES, &dec)) {
	case DECODE_IDENTITY:
		break;
	case DECODE_OK:
	case DECODE_TOO_LARGE:
	case DECODE_BAD:        /* what decoded before the damage */
		p = dec.p;
		n = dec.len < SNIFF_BYTES ? dec.len : SNIFF_BYTES;
		break;
	case DECODE_UNSUPPORTED:
		n = 0;
		break;
	}
	t = sniff_table(p, n);
	if ((!strcmp(t, "application/octet-stream") || !strcmp(t, "application/zip")) &&
	    (m = database()) != NULL) {
		const char *mt = magic_buffer(m, p, n);

		if (mt && strcmp(mt, "application/octet-stream"))
			t = mt;
	}
	snprintf(out, cap, "%s", t);
	buf_release(&dec);
}
