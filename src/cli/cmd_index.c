/*
 * cmd_index.c - the index step of a round (CDXJ, extracted text, link
 * graph; src/index/) and `mpicrawl index --dir DIR [--segment N]`, which
 * writes them for a segment again (e.g. with another text.format).
 *
 * run_index is collective: each rank indexes its partitions, the ranks
 * agree, counters are summed and rank 0 writes segments/N/_SUCCESS.index and
 * stats.json.
 */
#include "cli/cmds.h"
#include "cli/runner.h"
#include "comm/comm.h"
#include "index/index.h"
#include "util/clock.h"
#include "util/log.h"

#include <stdio.h>

int run_index(struct job *j, int seg, int crawldb_version)
{
	uint64_t c[IX_COUNT_] = { 0 };
	struct counter cs[IX_COUNT_];
	int64_t t0 = clock_mono_us();
	struct buf json;
	enum cr_err e;
	size_t i;

	e = index_segment(j, seg, crawldb_version, c);
	if (!comm_agree(e == CR_OK)) {
		cli_error("index of segment %d failed", seg);
		return 1;
	}
	comm_sum_u64(c, IX_COUNT_);
	if (j->rank != 0)
		return comm_agree(1) ? 0 : 1;
	for (i = 0; i < IX_COUNT_; i++) {
		cs[i].name = index_counter_names[i];
		cs[i].value = c[i];
	}
	buf_init(&json);
	buf_addf(&json, "{\"seconds\":%.3f,\"ranks\":%d,\"counters\":",
		 (double)(clock_mono_us() - t0) / 1e6, j->nranks);
	counters_json(cs, IX_COUNT_, &json);
	buf_adds(&json, "}\n");
	e = layout_phase_mark(&j->dir, seg, "index", buf_cstr(&json));
	buf_release(&json);
	if (e == CR_OK) {
		cli_write_stats(j, seg);
		log_info("index", "segment %d: %llu WARC files, %llu CDXJ lines, %llu texts "
			 "(%llu duplicates), %llu links", seg,
			 (unsigned long long)c[IX_WARC_FILES], (unsigned long long)c[IX_CDXJ_LINES],
			 (unsigned long long)c[IX_TEXT_DOCS],
			 (unsigned long long)c[IX_TEXT_DUPLICATES],
			 (unsigned long long)c[IX_LINKS]);
	}
	return comm_agree(e == CR_OK) ? 0 : 1;
}

int cmd_index(int argc, char **argv)
{
	static const char usage[] =
		"mpicrawl index --dir DIR [--segment N] [--config FILE] [--set KEY=VALUE]...";
	struct cli_opts o;
	struct job j;
	int rc, v[2] = { 0, 0 };

	cli_parse(argc, argv, "index", "dcSg", usage, &o);
	rc = cli_job_start(&j, &o, 0);
	if (rc)
		return cli_job_end(rc);
	if (j.rank == 0) {
		v[0] = o.segment ? o.segment : layout_segment_last(&j.dir);
		if (layout_crawldb_current(&j.dir, &v[1]) != CR_OK)
			v[1] = 0;
		if (v[0] > 0 && !layout_phase_done(&j.dir, v[0], "fetch"))
			v[0] = -v[0];
	}
	comm_bcast(v, sizeof(v), 0);
	if (v[0] == 0) {
		cli_error("no segment to index in '%s'", j.dir.root);
		return cli_job_end(1);
	}
	if (v[0] < 0) {
		cli_error("segment %d has not been fetched", -v[0]);
		return cli_job_end(1);
	}
	return cli_job_end(run_index(&j, v[0], v[1]));
}
