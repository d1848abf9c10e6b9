/*
 * charset.c - which encoding a page is handed to libxml2 in (charset.h):
 * HTTP's, a <meta>'s, or sniffed from the bytes as the HTML standard does.
 */
#include "parse/charset.h"
#include "util/utf8.h"

#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include <strings.h>

/*
 * The WHATWG Encoding standard's labels of windows-1252: browsers decode a
 * page that says ISO-8859-1 (or latin1, or US-ASCII) as windows-1252, whose
 * bytes 0x80-0x9f are curly quotes, dashes, the euro sign where ISO-8859-1
 * has C1 controls. libxml2 takes the label literally: such a page is handed
 * to it as windows-1252 (iconv decodes), its <meta> then ignored.
 */
int charset_is_latin1(const char *l)
{
	static const char *const labels[] = {
		"iso-8859-1", "iso8859-1", "iso_8859-1", "iso88591", "iso_8859-1:1987", "latin1",
		"l1", "cp819", "ibm819", "iso-ir-100", "csisolatin1", "us-ascii", "ascii",
		"ansi_x3.4-1968", "cp1252", "x-cp1252", "windows-1252",
	};
	size_t i;

	for (i = 0; l && i < sizeof(labels) / sizeof(labels[0]); i++)
		if (!strcasecmp(l, labels[i]))
			return 1;
	return 0;
}

/* The charset the first <meta> that names one names ("" if none): the
 * label after "charset", of <meta charset=X> and of http-equiv's content.
 * The whole body is read: a late <meta> libxml2 still obeys, as the HTML
 * standard does. */
static void meta_charset(const char *b, size_t n, char *out, size_t cap)
{
	size_t k, end;
	const char *lt = b;

	out[0] = '\0';
	for (; (lt = memchr(lt, '<', n - (size_t)(lt - b))) != NULL; lt++) {
		size_t i = (size_t)(lt - b);

		if (i + 5 >= n)
			return;
		if (strncasecmp(lt, "<meta", 5))
			continue;
		for (end = i; end < n && b[end] != '>'; end++)
			;
		for (k = i + 5; k + 7 <= end; k++) {
			size_t o = 0;

			if (strncasecmp(b + k, "charset", 7))
				continue;
			for (k += 7; k < end && (b[k] == ' ' || b[k] == '=' || b[k] == '"' ||
						 b[k] == '\''); k++)
				;
			while (k < end && o + 1 < cap && (isalnum((unsigned char)b[k]) ||
							  (b[k] && strchr("._:-", b[k]))))
				out[o++] = b[k++];
			out[o] = '\0';
			return;
		}
	}
}

/* 1 if b starts with a UTF-16 byte order mark (either order). */
static int utf16_bom(const unsigned char *b, size_t len)
{
	return len >= 2 && ((b[0] == 0xfe && b[1] == 0xff) || (b[0] == 0xff && b[1] == 0xfe));
}

/*
 * The encoding of a page that declares none - no charset from HTTP, no
 * <meta> anywhere (a late one libxml2 still obeys, as the HTML standard
 * does), no byte order mark: UTF-8 when the body is well-formed UTF-8
 * (pure ASCII is too; a character cut at the end, by fetch.max_body_bytes,
 * is left out of *len), else windows-1252, the HTML standard's default for
 * most locales (encoding sniffing, 13.2.3.2). NULL for a BOM, which libxml2
 * reads itself. Left to libxml2, such a page was read as ISO-8859-1
 * whatever it held: UTF-8 text came out as mojibake and windows-1252's
 * quotes and euro sign as C1 control characters.
 */
static const char *undeclared_charset(const unsigned char *b, size_t *len)
{
	if (utf16_bom(b, *len))
		return NULL;
	if (*len >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf)
		return NULL;
	if (!utf8_valid(b, *len, 1))
		return "WINDOWS-1252";
	*len = utf8_whole(b, *len);
	return "UTF-8";
}

/* The charset the page is handed to libxml2 in: HTTP's, else a latin1
 * <meta>'s (into label), else NULL for another <meta> (libxml2 obeys it),
 * else undeclared_charset's; *len may lose a character cut at the end. */
const char *charset_for_parser(const char *charset, const void *body, size_t *len,
				char *label, size_t cap)
{
	if (charset && charset[0])
		return charset;
	meta_charset(body, *len, label, cap);
	if (charset_is_latin1(label))
		return label;
	return label[0] ? NULL : undeclared_charset(body, len);
}

/* The charset the page is read in (struct html_page's charset), from what
 * charset_for_parser returned (read) and the <meta> label it found. */
void charset_read_in(const char *read, const char *label, const unsigned char *b, size_t len,
		    char *out, size_t cap)
{
	const char *name = read && read[0] ? read : label;

	if (!name[0] && len >= 3 && b[0] == 0xef && b[1] == 0xbb && b[2] == 0xbf)
		name = "UTF-8";
	else if (!name[0] && utf16_bom(b, len))
		name = b[0] == 0xff ? "UTF-16LE" : "UTF-16BE";
	else if (!strcmp(name, "WINDOWS-1252"))
		name = "windows-1252";
	snprintf(out, cap, "%s", name);
}

/* 1 if the body may be in a wide encoding (UTF-16, UTF-32), where NUL
 * bytes are part of characters: its charset says so, or a BOM does. */
static int maybe_wide(const unsigned char *b, size_t len, const char *charset)
{
	if (charset && (strcasestr(charset, "utf-16") || strcasestr(charset, "utf-32") ||
			strcasestr(charset, "utf16") || strcasestr(charset, "utf32") ||
			strcasestr(charset, "ucs")))
		return 1;
	return utf16_bom(b, len);
}

/*
 * A NUL byte inside a tag makes libxml2 stop reading the page there: the
 * rest of its links and text are lost (a browser reads on, with U+FFFD in
 * its place). So the NUL bytes of a body in an ASCII-compatible encoding
 * are left out (into clean): *body and *len then point there. A NUL in
 * text was dropped already; in an attribute, "/x\0y" reads as "/xy".
 */
void charset_drop_nuls(const void **body, size_t *len, const char *charset, struct buf *clean)
{
	const unsigned char *b = *body, *end, *z;

	if (!*len || !(z = memchr(b, 0, *len)) || maybe_wide(b, *len, charset))
		return;
	end = b + *len;
	buf_reserve(clean, *len);
	for (; z; b = z + 1, z = memchr(b, 0, (size_t)(end - b)))
		buf_add(clean, b, (size_t)(z - b));
	buf_add(clean, b, (size_t)(end - b));
	*body = clean->p;
	*len = clean->len;
}
