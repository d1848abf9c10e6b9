/*
 * rescope.c - the pages whose links a scope refused; see rescope.h.
 */
#include "generate/rescope.h"
#include "scope/decisions.h"
#include "url/url.h"
#include "util/json.h"
#include "util/log.h"
#include "util/mem.h"

#include <string.h>

/* 1 if s holds a control byte: no canonical URL does. */
static int has_control(const char *s)
{
	for (; *s; s++)
		if ((unsigned char)*s < 0x20)
			return 1;
	return 0;
}

int rescope_refused_from(const char *line, size_t n, char *from, size_t cap)
{
	char reason[32];

	return json_get_str(line, n, "reason", reason, sizeof(reason)) == CR_OK &&
	       !strncmp(reason, "scope:", 6) && json_get_str(line, n, "from", from, cap) == CR_OK &&
	       from[0] && !has_control(from);
}

/* Bytes a page of the set costs at most, as counted against the budget:
 * its URL and the map's slot. */
#define RESCOPE_ENTRY 64u

struct loading {
	struct hmap *pages;
	size_t bytes, cap;   /* what the set costs, and may */
	int over;
};

static void note_line(void *arg, const char *line, size_t n)
{
	struct loading *l = arg;
	char from[URL_MAX_LEN + 1];
	size_t k;

	if (l->over || !rescope_refused_from(line, n, from, sizeof(from)))
		return;
	k = strlen(from);
	if (l->bytes + k + RESCOPE_ENTRY > l->cap) {
		l->over = 1;
		return;
	}
	if (!hmap_get(l->pages, from, k))
		l->bytes += k + RESCOPE_ENTRY;
	*hmap_put(l->pages, from, k) = (void *)1;
}

enum cr_err rescope_load(const struct job *j, int last, uint32_t p, struct hmap *pages)
{
	/* an eighth of the rank's budget: generate holds robots rules and
	 * per-host counts beside it */
	struct loading l = { pages, 0, mem_budget(j->cfg.memory_budget_mb) / 8, 0 };
	int seg;

	for (seg = 1; seg <= last && !l.over; seg++)
		if (decisions_scan(&j->dir, seg, "update", p, note_line, &l) == CR_ERR_NOMEM)
			return CR_ERR_NOMEM;
	if (l.over)
		log_warn("generate", "partition %u: more pages with links a scope refused than an "
			 "eighth of memory.budget_mb holds: the rest are judged again when "
			 "they are fetched again", (unsigned)p);
	return CR_OK;
}
