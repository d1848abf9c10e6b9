/*
 * shared.h - what the files of src/warc/ share, private to the folder:
 * digest.c (SHA-1 in base32, labelled digests), record.c (a record's
 * fields, its HTTP block, dates), writer.c and reader.c. The public
 * interface is warc.h.
 */
#ifndef CR_WARC_SHARED_H
#define CR_WARC_SHARED_H

#include <stddef.h>
#include <stdint.h>

#define WARC_DICT_MAX (8 * 1024 * 1024) /* zstd dictionary, as warc-zstd requires */
#define ZSTD_FRAME_MAGIC 0xFD2FB528u
#define ZSTD_DICT_MAGIC 0x184D2A5Du
#define ZSTD_SKIP_MASK 0xFFFFFFF0u
#define ZSTD_SKIP_MAGIC 0x184D2A50u
#define ZSTD_DICTIONARY_MAGIC 0xEC30A437u /* 37 A4 30 EC: a zstd dictionary */

static inline int warc_lower(int c)
{
	return (c >= 'A' && c <= 'Z') ? c + ('a' - 'A') : c;
}

/* 1 if a[0..n) and b[0..n) are equal, ASCII case aside. */
static inline int warc_ieq(const char *a, const char *b, size_t n)
{
	size_t i;

	for (i = 0; i < n; i++)
		if (warc_lower((unsigned char)a[i]) != warc_lower((unsigned char)b[i]))
			return 0;
	return 1;
}

static inline int warc_is_ws(int c)
{
	return c == ' ' || c == '\t';
}

/* Bytes gathered from several places, digested or written as one. */
struct warc_part {
	const void *p;
	size_t n;
};

/* SHA-1 of the parts in upper-case base32 (32 characters and a NUL); 0 if
 * OpenSSL failed. */
int warc_sha1_parts(const struct warc_part *parts, size_t n, char out[33]);

/* The value of the field called name (case-insensitive) in a WARC head
 * h[0..n), folded lines joined, into out (cut to cap - 1 bytes): 1 if
 * found, 0 if not. */
int warc_head_field(const char *h, size_t n, const char *name, char *out, size_t cap);

#endif
