#include "status/prom.h"

#include <math.h>
#include <string.h>

int prom_name_ok(const char *name, int metric)
{
	const char *s = name;

	if (!*s || (*s >= '0' && *s <= '9'))
		return 0;
	for (; *s; s++)
		if (!((*s >= 'a' && *s <= 'z') || (*s >= 'A' && *s <= 'Z') ||
		      (*s >= '0' && *s <= '9') || *s == '_' || (metric && *s == ':')))
			return 0;
	return 1;
}

/* HELP text: backslash and newline escaped. Label values: the double
 * quote too. */
static void escaped(struct buf *out, const char *s, int quote)
{
	for (; *s; s++) {
		if (*s == '\\')
			buf_adds(out, "\\\\");
		else if (*s == '\n')
			buf_adds(out, "\\n");
		else if (quote && *s == '"')
			buf_adds(out, "\\\"");
		else
			buf_addc(out, *s);
	}
}

void prom_family(struct buf *out, const char *name, enum prom_type t, const char *help)
{
	buf_addf(out, "# HELP %s ", name);
	escaped(out, help, 0);
	buf_addf(out, "\n# TYPE %s %s\n", name, t == PROM_COUNTER ? "counter" : "gauge");
}

static void value(struct buf *out, double v)
{
	if (isnan(v))
		buf_adds(out, "NaN");
	else if (isinf(v))
		buf_adds(out, v > 0 ? "+Inf" : "-Inf");
	else if (v == floor(v) && fabs(v) < 9007199254740992.0)
		buf_addf(out, "%.0f", v);
	else
		buf_addf(out, "%.17g", v);
}

void prom_sample(struct buf *out, const char *name, const char *const *labels, double v)
{
	size_t i;

	buf_adds(out, name);
	for (i = 0; labels && labels[i] && labels[i + 1]; i += 2) {
		buf_addf(out, "%c%s=\"", i ? ',' : '{', labels[i]);
		escaped(out, labels[i + 1], 1);
		buf_addc(out, '"');
	}
	if (i)
		buf_addc(out, '}');
	buf_addc(out, ' ');
	value(out, v);
	buf_addc(out, '\n');
}
