/*
 * prom.h - Prometheus's text exposition format (version 0.0.4), as
 * node_exporter's textfile collector reads it: each metric family once,
 * its "# HELP" and "# TYPE" lines, then its samples, one a line,
 * "name{label="value",...} value". No timestamps (the collector refuses
 * them). Appends to a struct buf; pure.
 */
#ifndef CR_STATUS_PROM_H
#define CR_STATUS_PROM_H

#include "util/buf.h"

enum prom_type { PROM_COUNTER, PROM_GAUGE };

/* Starts family name (a valid metric name: [a-zA-Z_:][a-zA-Z0-9_:]*) of
 * type t: its HELP (escaped) and TYPE lines. Its samples follow. */
void prom_family(struct buf *out, const char *name, enum prom_type t, const char *help);
/*
 * One sample of the family just started. labels: NULL, or pairs of label
 * name and value ending with NULL ({ "rank", "3", NULL }); values are
 * escaped (backslash, double quote, newline). The value is printed as
 * Prometheus reads a float: integers exactly, NaN and infinities by name.
 */
void prom_sample(struct buf *out, const char *name, const char *const *labels, double v);
/* 1 if name is a valid metric or label name (colons only for metrics). */
int prom_name_ok(const char *name, int metric);

#endif
