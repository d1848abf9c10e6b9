/*
 * warc.h - WARC 1.1 files: the fetcher's archive writer and a reader for
 * checking and re-reading archives (ours and other tools').
 *
 * The writer owns one open file at a time: a single file
 * (warc_writer_open*), or a series of files in one directory that goes on in
 * the next file once a file holds max_bytes (warc_writer_open_series), each
 * file starting with its own warcinfo. Records are compressed as gzip
 * members (.warc.gz, WARC 1.1 Annex D) or as zstd frames with content size
 * and checksum (.warc.zst, the IIPC warc-zstd proposal; an optional
 * dictionary is written as the file's first, skippable frame 0x184D2A5D and
 * every frame names its ID). Each fetch becomes a 'response' record and a
 * 'request' record (linked by WARC-Concurrent-To), each compressed as its own
 * gzip member, so any record can be read alone from the (offset, length) of
 * its member: the offset a CDX index stores. The file starts with a
 * 'warcinfo' record, which every later record names in WARC-Warcinfo-ID.
 * Digests are SHA-1 in upper-case RFC 4648 base32, the form warcio, pywb and
 * Common Crawl check. Writes go through a buffer; the file is complete only
 * after warc_writer_close.
 *
 * The reader takes a plain .warc, a .warc.gz (gzip member per record) or a
 * .warc.zst (zstd frame per record, optional dictionary frame), told apart by
 * their first bytes, not by name. It decompresses only as far as the record
 * at hand needs (a record's head is capped at WARC_HEAD_MAX, its block at
 * max_block), so a hostile or torn file costs bounded memory and gives
 * CR_ERR_FORMAT or CR_ERR_LIMIT, never an over-read.
 *
 * A gzip member (or zstd frame) that holds several records - a whole file
 * gzipped in one piece, which warcio refuses to load - is still read
 * record by record. Such records report the offset of the member that holds
 * them and the member's length (0 when the member's end lies more than
 * WARC_PEEK_MAX decompressed bytes ahead); they cannot be reached by seeking
 * to their own offset. The reader logs a warning once per file and
 * warc_reader_shared_units() tells the caller.
 *
 * Nothing here is collective; nothing touches MPI.
 */
#ifndef CR_WARC_WARC_H
#define CR_WARC_WARC_H

#include <stddef.h>
#include <stdint.h>

#include "util/error.h"
#include "util/buf.h"

/* Caps on what input controls. */
#define WARC_HEAD_MAX (256 * 1024)                 /* WARC header block bytes */
#define WARC_BLOCK_MAX_DEFAULT (64u * 1024 * 1024) /* max_block when 0 is given */
#define WARC_PEEK_MAX (1024 * 1024)                /* to find a shared unit's end */

/* ---- writer ---- */

struct warc_writer;

/*
 * Creates path (truncating) and writes a warcinfo record (software, format,
 * hostname; WARC-Date from clock_now_us()). software is borrowed for the
 * call. On success *out is a new writer the caller frees with
 * warc_writer_close.
 */
CR_WUR enum cr_err warc_writer_open(const char *path, const char *software,
				    struct warc_writer **out);
/* The same with a gzip level (1 fastest .. 9 smallest; the default is 6). */
CR_WUR enum cr_err warc_writer_open_level(const char *path, const char *software,
					  int level, struct warc_writer **out);

enum warc_compression {
	WARC_COMP_GZIP = 0,   /* one gzip member per record: .warc.gz */
	WARC_COMP_ZSTD = 1,   /* one zstd frame per record: .warc.zst */
};

struct warc_writer_opts {
	enum warc_compression comp;
	int level;            /* 0: default (gzip 6, zstd 3); gzip 1..9, zstd 1..19 */
	uint64_t max_bytes;   /* series only: rotate once a file holds this (0: never) */
	const void *zstd_dict;   /* zstd only: a zstd-format dictionary (zstd --train) */
	size_t zstd_dict_len;    /* or NULL; copied; at most 8 MiB */
	const char *zstd_dict_path;  /* or the file holding one (read at open through
					the job's inputs, inputs/inputs.h), or NULL */
	const char *info;     /* more warcinfo fields, "name: value\r\n" lines, or NULL
				 (copied at open) */
	const char *filename; /* single file: its WARC-Filename when written under
				 another name (a temporary one), or NULL: the path's
				 base name */
};

/* The same with options (opts NULL: gzip level 6); max_bytes is ignored. */
CR_WUR enum cr_err warc_writer_open_opts(const char *path, const char *software,
					 const struct warc_writer_opts *opts,
					 struct warc_writer **out);

/*
 * A series of files in dir named PREFIX-SSSSS SUFFIX.warc.gz (or .warc.zst),
 * SSSSS counting from 00000: before a record is written to a file that holds
 * opts->max_bytes or more, that file is closed (fsync) and the next one
 * started, so a file exceeds max_bytes by at most one exchange. Strings are
 * copied. CR_ERR_FORMAT for a dictionary that is not one.
 */
CR_WUR enum cr_err warc_writer_open_series(const char *dir, const char *prefix,
					   const char *suffix, const char *software,
					   const struct warc_writer_opts *opts,
					   struct warc_writer **out);

/* Base name of the file the last record went to (the current file): the
 * pointer is borrowed for the writer's life and its text follows rotations,
 * so read it after a write to name the file that write went to. */
const char *warc_writer_name(const struct warc_writer *w);

struct warc_exchange {
	const char *target_uri;   /* the URL fetched */
	int64_t date_us;          /* when the request was sent, µs since epoch */
	const char *ip;           /* WARC-IP-Address or NULL */
	/* HTTP request head as sent */
	const void *request; size_t request_len;
	/* response status line + headers + CRLF CRLF, as received */
	const void *resp_head; size_t resp_head_len;
	/* response body, de-chunked by the caller, otherwise as received */
	const void *body; size_t body_len;
	/* NULL, or the WARC-Truncated reason: "length", "time", "disconnect",
	 * "unspecified" */
	const char *truncated;
	/* A revisit record instead of the response: WARC_PROFILE_IDENTICAL
	 * (the body equals that of an earlier capture: only the head is stored,
	 * the payload digest is the body's) or WARC_PROFILE_NOT_MODIFIED (a
	 * 304); refers_to_uri and refers_to_date_us (0: none) name the earlier
	 * capture. NULL: a response record. */
	const char *revisit_profile;
	const char *refers_to_uri;
	int64_t refers_to_date_us;
	/* WARC-Protocol fields, as the WARC-Protocol proposal names them:
	 * the HTTP version ("http/1.1", "h2") and the TLS version ("tls/1.3"),
	 * each NULL or "" when unknown (plain http: no TLS field), and
	 * WARC-Cipher-Suite (IANA name), on the response and the request. An
	 * HTTP version other than 1.0 and 1.1 in the request or status line
	 * is stored as HTTP/1.1, as readers expect (docs/OUTPUTS.md). */
	const char *protocol;
	const char *tls;
	const char *cipher;
};

#define WARC_PROFILE_IDENTICAL \
	"http://netpreserve.org/warc/1.1/revisit/identical-payload-digest"
#define WARC_PROFILE_NOT_MODIFIED \
	"http://netpreserve.org/warc/1.1/revisit/server-not-modified"

/*
 * Writes a response record and then a request record, linked by
 * WARC-Concurrent-To (on the request), each as its own gzip member. Both
 * carry the same WARC-Date (microseconds). A "Transfer-Encoding: ...chunked"
 * line of the response head is stored as "X-Crawler-Transfer-Encoding:"
 * because the body is stored de-chunked; an h2 status line is stored as
 * "HTTP/1.1 200 " (so is the request line): nothing else in the head changes.
 * Control characters and spaces in target_uri are %-encoded; an ip or
 * truncated value that is not a plain token is left out.
 * *resp_offset / *resp_length: byte offset and length of the response
 * record's gzip member in the file (what warc_reader_seek takes).
 * The exchange's bytes are borrowed for the call only.
 * CR_ERR_IO on a write error (logged once; the writer then refuses further
 * writes with CR_ERR_IO), CR_ERR_ARG on a missing target_uri or buffer.
 */
CR_WUR enum cr_err warc_write_exchange(struct warc_writer *w,
				       const struct warc_exchange *x,
				       uint64_t *resp_offset,
				       uint64_t *resp_length);

/* Any other record: a conversion (WET text), metadata or resource. */
struct warc_record_out {
	const char *type;          /* "conversion", "metadata", "resource", ... */
	const char *target_uri;    /* or NULL */
	int64_t date_us;
	const char *refers_to;     /* WARC-Refers-To (a record ID "<urn:...>") or NULL */
	const char *fields;        /* more header lines, each "Name: value\r\n", or NULL */
	const char *content_type;  /* or NULL */
	const void *block;
	size_t block_len;
};

/*
 * Writes one record (own gzip member / zstd frame) with a new WARC-Record-ID,
 * WARC-Warcinfo-ID and WARC-Block-Digest; a series may rotate first. The
 * record's bytes are borrowed for the call. *off / *len as for
 * warc_write_exchange (either may be NULL). CR_ERR_ARG for a missing type or
 * a fields text that is not whole header lines.
 */
CR_WUR enum cr_err warc_write_record(struct warc_writer *w, const struct warc_record_out *r,
				     uint64_t *off, uint64_t *len);

/* The WARC-Record-ID ("<urn:uuid:...>") of the last response or revisit
 * written, for a metadata record's WARC-Concurrent-To; NULL before any. */
const char *warc_writer_last_id(const struct warc_writer *w);

/* The WARC-Payload-Digest ("sha1:...") of the last response or revisit
 * written, or "" when it had none (a 304's revisit) or before any. */
const char *warc_writer_last_payload_digest(const struct warc_writer *w);

/* A WARC-Date as the writer writes it: UTC with microseconds,
 * "2026-11-24T14:42:01.509123Z". */
#define WARC_DATE_MAX 48
void warc_format_date(int64_t us, char out[WARC_DATE_MAX]);
/* A WARC-Date read back (seconds or finer, UTC), µs since the epoch; 0 if
 * s is not one. */
int64_t warc_parse_date(const char *s);
/* A WARC-Target-URI as the writer writes it: control bytes and spaces
 * %-encoded, everything else as it is; appended to out. */
void warc_format_uri(const char *uri, struct buf *out);

/* Bytes written so far to the current file (including buffered ones): the
 * next record's offset, unless the series rotates first. */
uint64_t warc_writer_offset(const struct warc_writer *w);

/* Writes what is buffered and fsyncs the current file, which stays open:
 * the fetch journal (fetch/journal.h) names only bytes made durable so.
 * Accepts NULL. CR_ERR_IO as warc_writer_close. */
CR_WUR enum cr_err warc_writer_sync(struct warc_writer *w);

/* Writes what is buffered; *fd: the current file's descriptor (-1 if none),
 * for a caller that fsyncs it elsewhere (fetch/syncer.h) - then the
 * journal's rule holds for the bytes written before this call. Accepts
 * NULL (*fd = -1). CR_ERR_IO as warc_writer_close. */
CR_WUR enum cr_err warc_writer_flush(struct warc_writer *w, int *fd);

/*
 * Flushes, fsyncs and closes; frees the writer and sets *w to NULL, also on
 * error. Accepts NULL and *w == NULL. CR_ERR_IO if any write, the fsync or
 * the close failed.
 */
CR_WUR enum cr_err warc_writer_close(struct warc_writer **w);

/* ---- reader ---- */

struct warc_reader;

/*
 * Opens a .warc, .warc.gz or .warc.zst file (detected by magic). max_block
 * caps a record block (0: WARC_BLOCK_MAX_DEFAULT); a larger Content-Length
 * gives CR_ERR_LIMIT. CR_ERR_IO if the file cannot be opened, CR_ERR_FORMAT
 * if it starts with none of the three formats. Free with warc_reader_free.
 */
CR_WUR enum cr_err warc_reader_open(const char *path, size_t max_block,
				    struct warc_reader **out);

struct warc_record {
	/* Of the record: for .gz / .zst of its gzip member / zstd frame (of
	 * all of them, should a record span several); for plain files the
	 * header through the block, excluding the trailing CRLF CRLF (as
	 * warcio reports: next offset = offset + length + 4). */
	uint64_t offset, length;
	/* The WARC head, "WARC/1.x" through the blank line, and the block:
	 * borrowed until the next call on the reader. */
	const char *head; size_t head_len;
	const unsigned char *block; size_t block_len;
};

/*
 * Reads the next record. CR_OK and *rec; CR_EOF at a clean end (the end of
 * the file falls between records); CR_ERR_FORMAT for a torn or garbled
 * record, CR_ERR_LIMIT for a head or block over its cap, CR_ERR_IO for a
 * failed read - each logged once with the file and the record's offset.
 * After an error the reader keeps returning it until warc_reader_seek.
 */
CR_WUR enum cr_err warc_reader_next(struct warc_reader *r, struct warc_record *rec);

/*
 * Positions the reader at a record start offset (a writer's resp_offset, a
 * CDX offset, a warc_record.offset): the next warc_reader_next reads the
 * record there, and reading continues sequentially after it. An offset that
 * is not a record start gives CR_ERR_FORMAT from that warc_reader_next.
 */
CR_WUR enum cr_err warc_reader_seek(struct warc_reader *r, uint64_t offset);

/* Offset of the record being read or last read (for error messages). */
uint64_t warc_reader_offset(const struct warc_reader *r);

/* 1 once a gzip member or zstd frame holding more than one record was seen. */
int warc_reader_shared_units(const struct warc_reader *r);

/* Frees the reader; *r is set to NULL. Accepts NULL. */
void warc_reader_free(struct warc_reader **r);

/*
 * Value of the first WARC header field called name (case-insensitive),
 * without surrounding white space, folded lines joined by one space, copied
 * into out (NUL-terminated, truncated to cap bytes). 1 if present, else 0
 * (and out is "" when cap > 0).
 */
int warc_record_field(const struct warc_record *rec, const char *name,
		      char *out, size_t cap);

/* 1 if the record has a WARC-Truncated field (its block was cut short). */
int warc_record_truncated(const struct warc_record *rec);

/*
 * Splits an HTTP message block into head and body: *head_len includes the
 * blank line (CRLF CRLF, bare LF tolerated); *status is the response status
 * code, 0 for a request. CR_ERR_FORMAT if there is no complete head or a
 * response status line is malformed.
 */
CR_WUR enum cr_err warc_http_split(const unsigned char *block, size_t len,
				   int *status, size_t *head_len);

/*
 * The payload of a record, borrowed from rec: for a response, request or
 * revisit with Content-Type application/http the bytes after the HTTP head,
 * otherwise the whole block. CR_ERR_FORMAT if an HTTP block has no complete
 * head.
 */
CR_WUR enum cr_err warc_record_payload(const struct warc_record *rec,
				       const unsigned char **p, size_t *len);

/*
 * Verify WARC-Block-Digest / WARC-Payload-Digest of a record: 1 ok, 0
 * mismatch (or a value that decodes in no encoding), -1 absent, an
 * unsupported algorithm, or (payload) an HTTP block without a complete head.
 * Algorithms md5, sha1, sha224, sha256, sha384,
 * sha512 (label case-insensitive, "sha-1" style accepted); values in base32,
 * hex, base64 or base64url. The payload digest of a 'revisit' record names
 * the original capture's payload and is not checkable here: -1. The payload
 * of a chunked HTTP response is the body as stored (still chunked), as
 * warcio checks it.
 */
int warc_check_block_digest(const struct warc_record *rec);
int warc_check_payload_digest(const struct warc_record *rec);

/* A labelled digest ("sha1:BASE32...") against data: 1, 0, -1 as above. */
int warc_digest_check(const char *labelled, const void *data, size_t len);

/* SHA-1 of data in upper-case base32 (32 chars) + NUL: the writer's form. */
void warc_sha1_base32(const void *data, size_t len, char out[33]);

#endif
