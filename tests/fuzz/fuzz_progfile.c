/*
 * fuzz_progfile - a rank's progress file (status/progfile.h), as `mpicrawl
 * status`, rank 0's progress line and metrics.prom read it from the crawl
 * directory.
 *
 * Input: a whole file. What decodes must encode and decode again to the
 * same values; the slowest hosts stay sorted as a reader merges them; and
 * the file cut anywhere before its end never decodes.
 */
#include "fuzz.h"
#include "status/estimate.h"
#include "status/progfile.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	struct progfile p, q;
	struct estimate_round e;
	const char *why = NULL;
	struct buf b;
	int ok = 1;

	if (progfile_decode(data, size, &p, &why) != CR_OK) {
		if (!why)
			abort();
		return 0;
	}
	if (size && progfile_decode(data, size - 1, &q, NULL) == CR_OK)
		abort();   /* the end line ends the file */
	buf_init(&b);
	progfile_encode(&p, &b);
	if (progfile_decode(b.p, b.len, &q, &why) != CR_OK || memcmp(&p, &q, sizeof(p)))
		abort();
	buf_release(&b);
	estimate_round(&p, &ok, 1, p.ranks, 0, &e);
	if (e.done > e.total || e.ntop > PROGFILE_TOP)
		abort();
	return 0;
}
