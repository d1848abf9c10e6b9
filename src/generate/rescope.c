/*
 * rescope.c - the pages whose links a scope refused; see rescope.h.
 */
#include "generate/rescope.h"
#include "scope/decisions.h"
#include "url/url.h"

#include <string.h>

int rescope_refused_from(const char *line, size_t n, char *from, size_t cap)
{
	char reason[32];

	return decisions_field(line, n, "reason", reason, sizeof(reason)) &&
	       !strncmp(reason, "scope:", 6) && decisions_field(line, n, "from", from, cap) &&
	       from[0];
}

static void note_line(void *arg, const char *line, size_t n)
{
	char from[URL_MAX_LEN + 1];

	if (rescope_refused_from(line, n, from, sizeof(from)))
		*hmap_put(arg, from, strlen(from)) = (void *)1;
}

enum cr_err rescope_load(const struct job *j, int last, uint32_t p, struct hmap *pages)
{
	int seg;

	for (seg = 1; seg <= last; seg++)
		if (decisions_scan(&j->dir, seg, "update", p, note_line, pages) == CR_ERR_NOMEM)
			return CR_ERR_NOMEM;
	return CR_OK;
}
