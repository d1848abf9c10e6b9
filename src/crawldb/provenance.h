/*
 * provenance.h - what a reproducible crawl records of how it was made: the
 * exact configuration and seeds of each run under DIR/provenance/, and in
 * every WARC file's warcinfo record the fields a reader needs to know who
 * made it and how - operator, collection, description, publisher, the
 * robots policy and agent token, the User-Agent and From headers sent, the
 * software and its revision, and sha256 digests of the configuration and
 * of the seed lists.
 *
 *   provenance/config-YYYYMMDDTHHMMSSZ.txt   the effective configuration of
 *                                          a run (every key, "key = value",
 *                                          as --config reads it back)
 *   provenance/seeds-YYYYMMDDTHHMMSSZ.txt    the seed file a run injected, as
 *                                          given
 *
 * config-digest is the sha256 of the configuration text the fields are
 * made from (the running job's, identical to its provenance file);
 * seeds-digest that of every provenance seed file, concatenated in name
 * (time) order: the seeds of the whole crawl up to now.
 */
#ifndef CR_CRAWLDB_PROVENANCE_H
#define CR_CRAWLDB_PROVENANCE_H

#include "crawldb/job.h"
#include "util/buf.h"
#include "util/error.h"

/* The software and revision, as warcinfo names it: "mpicrawl/0.1 (git REV)". */
const char *provenance_software(void);

/* Rank 0 at the start of a run: writes the run's configuration (and a copy
 * of its seed file, when seeds is not NULL) into DIR/provenance/. copy
 * (cap bytes) gets the copy's path, "" without seeds: the job reads its
 * seeds from there, on every rank (inject/inject.h). */
CR_WUR enum cr_err provenance_record(const struct job *j, const char *seeds, char *copy,
				     size_t cap);

/* Appends the warcinfo fields of j ("name: value\r\n" lines) to out. */
void provenance_fields(const struct job *j, struct buf *out);

/* The body of the run's provenance metadata record (application/warc-fields):
 * one "config: KEY = VALUE" field per key of the newest provenance
 * configuration and one "seed: LINE" per line of the seed files, into out
 * (at most 1 MiB of seed lines a file: past it, "seed-lines-omitted: N" -
 * the files are whole in provenance/ and their digest is in the warcinfo);
 * 0 when DIR/provenance/ has no configuration. */
int provenance_record_body(const struct job *j, struct buf *out);

/*
 * Rank 0 at the start of a job, the lock held: *since gets when the job's
 * configuration took effect (job.h config_since_us), *rescope whether the
 * links a scope refused are still to be judged under it (job.h rescope).
 * DIR/config.since holds "DIGEST SINCE_US [rescoped]" of the last job: the
 * same config-digest keeps its time; another (or none) makes it now,
 * written atomically.
 */
CR_WUR enum cr_err provenance_config_since(const struct job *j, int64_t now, int64_t *since,
					   int *rescope);

/* Rank 0, after a generate judged the scope's refusals again: config.since
 * says so ("rescoped"), so that later jobs of the configuration do not. */
CR_WUR enum cr_err provenance_config_rescoped(const struct job *j);

/* The newest provenance configuration of the crawl in d (the last run's),
 * its path into out; 0 if there is none. */
int provenance_last_config(const struct crawl_dir *d, char *out, size_t cap);

#endif
