/*
 * cmd_index.c - `mpicrawl index --dir DIR [--segment N]`: the index step of
 * a round (CDXJ, extracted text, link graph; src/index/) run again for a
 * segment, e.g. with another text.format.
 */
#include "cli/cmds.h"
#include "cli/cli.h"
#include "round/round.h"
#include "util/log.h"
#include "comm/comm.h"

#include <stdio.h>

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
		if (layout_crawldb_current(&j.dir, &v[1]) != CR_OK || v[1] <= 0)
			v[1] = -1;
		if (v[0] > 0 && !layout_phase_done(&j.dir, v[0], "fetch"))
			v[0] = -v[0];
	}
	comm_bcast(v, sizeof(v), 0);
	if (v[0] == 0) {
		log_user("no segment to index in '%s'", j.dir.root);
		return cli_job_end(1);
	}
	if (v[0] < 0) {
		log_user("segment %d has not been fetched", -v[0]);
		return cli_job_end(1);
	}
	/* Its texts' duplicate marks come from the CrawlDb: without it the
	 * outputs written again would lose them. */
	if (v[1] < 0) {
		log_user("the CrawlDb of '%s' cannot be read (crawldb/CURRENT): its outputs "
			 "are left as they are", j.dir.root);
		return cli_job_end(1);
	}
	return cli_job_end(round_index(&j, v[0], v[1], 0));
}
