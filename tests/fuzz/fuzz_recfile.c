/*
 * fuzz_recfile - the record file reader (store/recfile.h) on a file of any
 * bytes: header, zstd frame, record lengths, trailer.
 *
 * Input: the whole file. It is opened as the kind its header names (as
 * crawl records when that byte is no kind), read to its end or its first
 * error, and each record unpacked as that kind's reader would. Once done,
 * the reader must stay done.
 */
#include "crawldb/crawl_record.h"
#include "crawldb/fetch_record.h"
#include "crawldb/link_record.h"
#include "crawldb/parse_record.h"
#include "dedup/runs.h"
#include "fuzz.h"
#include "index/stage.h"
#include "rank/record.h"
#include "robots/cache.h"
#include "scope/seeds.h"
#include "store/recfile.h"

/* CR_OK if the record unpacks as kind says. */
static enum cr_err unpack(enum rec_kind kind, const void *p, size_t n)
{
	union {
		struct crawl_record c;
		struct fetch_record f;
		struct parse_record p;
		struct link_record l;
		struct index_stage_rec s;
		struct dedup_run d;
		struct rank_record k;
	} u;
	char key[600];
	int64_t at;
	int st;
	const char *body;
	size_t blen;
	struct robots_cache_times t;

	switch (kind) {
	case REC_KIND_CRAWLDB:
	case REC_KIND_FETCHLIST:
		return crawl_record_unpack(p, n, &u.c);
	case REC_KIND_FETCH:
		return fetch_record_unpack(p, n, &u.f);
	case REC_KIND_PARSE:
		return parse_record_unpack(p, n, &u.p);
	case REC_KIND_LINK:
	case REC_KIND_SORT:
		return link_record_unpack(p, n, &u.l);
	case REC_KIND_ROBOTS:
		return robots_cache_unpack(p, n, key, sizeof(key), &at, &st, &body, &blen, &t);
	case REC_KIND_SEEDS:
		return seeds_record_unpack(p, n, &body, &blen, &u.c.url,
					   &u.c.url_len);
	case REC_KIND_STAGE:
		return index_stage_unpack(p, n, &u.s);
	case REC_KIND_RUNS:
		return dedup_runs_unpack(p, n, &u.d);
	case REC_KIND_RANK:
		return rank_record_unpack(p, n, &u.k);
	}
	return CR_ERR_ARG;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	enum rec_kind kind = size > 8 && data[8] >= 1 && data[8] <= 11 ? (enum rec_kind)data[8]
								       : REC_KIND_CRAWLDB;
	const char *path = fuzz_file(data, size);
	struct recfile_reader *r = NULL;
	const void *p;
	size_t n;
	enum cr_err e;

	if (recfile_reader_open(path, kind, &r) != CR_OK)
		return 0;
	while ((e = recfile_reader_next(r, &p, &n)) == CR_OK) {
		if (n > REC_MAX_BYTES)
			abort();
		unpack(kind, p, n);
	}
	if (e != CR_EOF && e != CR_ERR_FORMAT && e != CR_ERR_IO)
		abort();
	if (recfile_reader_next(r, &p, &n) != CR_EOF)
		abort();
	recfile_reader_free(&r);
	return 0;
}
