/*
 * segout_resume.c - a partition's outputs taken up where an interrupted
 * attempt left them (segout.h's segout_resume): what its journal kept is
 * written again and handed to the fetcher, what it staged is removed.
 */
#include "fetch/segout.h"
#include "fetch/segparts.h"
#include "crawldb/fetch_record.h"
#include "fetch/journal.h"
#include "util/minhash.h"
#include "util/log.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <string.h>
#include <unistd.h>

/* A link an earlier attempt followed: handed to the fetcher, and journaled
 * again (the journal is this attempt's too). */
static enum cr_err keep_followed(struct segout *s, const void *rec, size_t n,
				 const void *bands, size_t blen, int handoff)
{
	struct crawl_record cr;
	uint64_t keys[MINHASH_BANDS_MAX];
	unsigned nb = (unsigned)(blen / 8), i, round = 0;

	/* A hand-off's entry holds its round (one byte) where a link has its
	 * page's band keys. */
	if (handoff) {
		round = blen ? *(const unsigned char *)bands : 1;
		blen = nb = 0;
	}
	if (crawl_record_unpack(rec, n, &cr) != CR_OK || blen % 8 || nb > MINHASH_BANDS_MAX) {
		log_err("fetch", "a followed link in the fetch journal of partition %u of segment "
			"%d is damaged", s->resume_part, s->seg);
		return CR_ERR_FORMAT;
	}
	for (i = 0; i < nb; i++)
		keys[i] = buf_load_u64le((const unsigned char *)bands + 8 * i);
	s->keep->followed(s->keep->arg, s->resume_part, &cr, keys, nb, round);
	return CR_OK;
}

/* An outcome an earlier attempt committed: kept as it is. */
static enum cr_err keep_done(void *arg, int kind, const void *fetch, size_t fetch_len,
			     const void *parse, size_t parse_len)
{
	struct segout *s = arg;
	struct part *o = segout_part_of(s, s->resume_part);
	struct fetch_record fr;

	if (s->failed)
		return s->failed;
	if (kind == JOURNAL_FOLLOW || kind == JOURNAL_HANDOFF)
		return keep_followed(s, fetch, fetch_len, parse, parse_len,
				     kind == JOURNAL_HANDOFF);
	if (kind == JOURNAL_ROBOTS) {
		if (s->keep->robots(s->keep->arg, s->resume_part, fetch, fetch_len) == CR_OK)
			return CR_OK;
		log_err("fetch", "a robots.txt answer in the fetch journal of partition %u of "
			"segment %d is damaged", s->resume_part, s->seg);
		return CR_ERR_FORMAT;
	}
	if (fetch) {
		if (fetch_record_unpack(fetch, fetch_len, &fr) != CR_OK)
			return CR_ERR_FORMAT;
		if (recfile_writer_add(o->fetch, fetch, fetch_len) != CR_OK)
			return CR_ERR_IO;
		s->keep->kept(s->keep->arg, &fr);
	}
	if (parse && o->parse && recfile_writer_add(o->parse, parse, parse_len) != CR_OK)
		return CR_ERR_IO;
	return CR_OK;
}

/* What earlier attempts staged for partition p, committed or not, goes: the
 * index step reads their WARC files back. */
static void unstage_part(struct segout *s, uint32_t p)
{
	char dir[PATH_MAX], prefix[LAYOUT_PREFIX_MAX + 32];
	struct dirent *de;
	size_t pl;
	DIR *dh;

	layout_segment_sub(&s->j->dir, s->seg, "staged", dir, sizeof(dir));
	layout_warc_part_prefix(&s->j->dir, s->seg, p, prefix, sizeof(prefix));
	pl = strlen(prefix);
	if (!(dh = opendir(dir)))
		return;
	while ((de = readdir(dh)) != NULL) {
		char path[PATH_MAX + 512];

		if (strncmp(de->d_name, prefix, pl) ||
		    (de->d_name[pl] != '-' && de->d_name[pl] != '.'))
			continue;
		snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
		if (unlink(path) != 0)
			log_warn("fetch", "cannot remove '%s': %s", path, strerror(errno));
	}
	closedir(dh);
}

enum cr_err segout_resume(struct segout *s, uint32_t p, const struct segout_keep *k,
			  uint64_t *kept_n, uint64_t *cut)
{
	struct journal_resume r;
	enum cr_err e;

	unstage_part(s, p);

	s->resume_part = p;
	s->keep = k;
	e = journal_resume_part(s->j, s->seg, p, s->with_parse, &s->prior, keep_done, s, &r);
	s->keep = NULL;
	if (e)
		return segout_fail(s, e);
	s->parts[p].jn = r.jn;
	*kept_n += r.kept;
	*cut += r.warc_cut;
	return s->failed;
}
