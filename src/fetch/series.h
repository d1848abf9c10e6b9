/*
 * series.h - the WARC series a rank's partition writes (segout.h): the
 * pages, the robots.txt files, the diagnostics (what a failure brought
 * back), the sitemaps; each a file series of its own, named with its
 * suffix.
 */
#ifndef CR_FETCH_SERIES_H
#define CR_FETCH_SERIES_H

enum segout_series { SEGOUT_NONE = -1, SEGOUT_PAGES, SEGOUT_ROBOTS, SEGOUT_DIAGNOSTICS,
		     SEGOUT_SITEMAPS, SEGOUT_SERIES_ };

#endif
