#include "fetch/hosts.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Hosts that share one politeness budget (politeness.by = domain or ip). */
struct host_group {
	struct sched_host gate;   /* timing of the group's requests (not in the heap) */
	struct host **members;
	size_t n, cap;
};

static void *xcalloc(size_t n, size_t size)
{
	void *p = calloc(n, size);

	if (!p) {
		fputs("mpicrawl: out of memory\n", stderr);
		abort();
	}
	return p;
}

static void *xrealloc(void *p, size_t size)
{
	p = realloc(p, size);
	if (!p) {
		fputs("mpicrawl: out of memory\n", stderr);
		abort();
	}
	return p;
}

static char *xstrndup(const char *s, size_t n)
{
	char *p = xcalloc(1, n + 1);

	return memcpy(p, s, n);
}

static char *xstrdup(const char *s)
{
	return xstrndup(s, strlen(s));
}

void hosts_init(struct host_table *t, const struct sched_policy *pol)
{
	memset(t, 0, sizeof(*t));
	hmap_init(&t->hosts);
	hmap_init(&t->groups);
	sched_heap_init(&t->heap);
	t->pol = *pol;
}

void hosts_release(struct host_table *t)
{
	struct hmap_slot *s;
	size_t i = 0, k;

	while ((s = hmap_next(&t->hosts, &i)) != NULL) {
		struct host *h = s->val;

		for (k = 0; k < h->n; k++) {
			free(h->items[k]->url);
			free(h->items[k]->etag);
			free(h->items[k]->from_bands);
			free(h->items[k]);
		}
		free(h->items);
		free(h->name);
		free(h);
	}
	hmap_release(&t->hosts);
	i = 0;
	while ((s = hmap_next(&t->groups, &i)) != NULL) {
		struct host_group *g = s->val;

		free(g->members);
		free(g);
	}
	hmap_release(&t->groups);
	sched_heap_release(&t->heap);
}

struct host *hosts_get(struct host_table *t, const char *name)
{
	struct host **slot = (struct host **)hmap_put(&t->hosts, name, strlen(name));
	struct host *h = *slot;

	if (h)
		return h;
	h = xcalloc(1, sizeof(*h));
	sched_host_init(&h->s);
	h->gate = &h->s;
	h->pol = t->pol;
	h->name = xstrdup(name);
	h->state = HOST_NEW;
	*slot = h;
	t->left++;
	/* Hosts start in name order, spread by the heap from there. */
	sched_heap_set(&t->heap, &h->s, 0);
	return h;
}

void hosts_mark_early(struct host_table *t, struct host *h)
{
	if (!h->early && h->state != HOST_DONE) {
		h->early = 1;
		t->early_left++;
	}
}

void hosts_claim(struct host_table *t, struct host *h)
{
	if (h->early && h->state != HOST_DONE)
		t->early_left--;
	h->early = 0;
}

struct host_item *hosts_add(struct host *h, const char *url, const struct crawl_record *rec,
			    uint32_t part, struct origin *origin)
{
	struct host_item *it = xcalloc(1, sizeof(*it));

	if (h->n == h->cap) {
		h->cap = h->cap ? h->cap * 2 : 8;
		h->items = xrealloc(h->items, h->cap * sizeof(*h->items));
	}
	it->url = xstrdup(url);
	it->rec = *rec;
	it->rec.url = it->url;
	it->rec.url_len = strlen(it->url);
	/* the other strings were borrowed: "" but the ETag, copied (If-None-Match) */
	it->rec.reason = it->rec.dup_of = "";
	it->rec.reason_len = it->rec.dup_of_len = 0;
	it->etag = rec->etag_len ? xstrndup(rec->etag, rec->etag_len) : NULL;
	it->rec.etag = it->etag ? it->etag : "";
	it->rec.etag_len = it->etag ? rec->etag_len : 0;
	it->part = part;
	it->origin = origin;
	h->items[h->n++] = it;
	return it;
}

struct host_item *hosts_add_next(struct host *h, const char *url,
				 const struct crawl_record *rec, uint32_t part,
				 struct origin *origin)
{
	struct host_item *it = hosts_add(h, url, rec, part, origin);
	size_t at = h->next, last = h->n - 1;

	while (at < last && (h->items[at]->early || h->items[at]->ahead))
		at++;
	memmove(h->items + at + 1, h->items + at, (last - at) * sizeof(*h->items));
	h->items[at] = it;
	it->ahead = 1;
	return it;
}

void hosts_join(struct host_table *t, struct host *h, const char *key)
{
	struct host_group **slot = (struct host_group **)hmap_put(&t->groups, key, strlen(key));
	struct host_group *g = *slot;

	if (!g) {
		g = xcalloc(1, sizeof(*g));
		sched_host_init(&g->gate);
		*slot = g;
	}
	if (g->n == g->cap) {
		g->cap = g->cap ? g->cap * 2 : 4;
		g->members = xrealloc(g->members, g->cap * sizeof(*g->members));
	}
	g->members[g->n++] = h;
	/* What the host carried from the previous phase binds the group too. */
	sched_gate_join(&g->gate, &h->s);
	h->group = g;
	h->gate = &g->gate;
}

void hosts_join_addr(struct host_table *t, struct host *h, const char *addrs)
{
	char first[64];

	snprintf(first, sizeof(first), "%.*s", (int)strcspn(addrs, ","), addrs);
	hosts_join(t, h, first);
}

/* 1 if a ready host's next start lies beyond the hold limit. */
static int held_too_long(const struct host_table *t, const struct host *h)
{
	int64_t at;

	if (t->max_hold_us <= 0 || h->state != HOST_READY || h->next >= h->n || h->early)
		return 0;
	at = sched_next_start(h->gate, &h->pol);
	return at != INT64_MAX && at > t->now + t->max_hold_us;
}

/* The state h belongs in now: the one pure decision of a host's life
 * (*release: it leaves the round for a long hold). */
static enum host_state settled(const struct host_table *t, const struct host *h,
			       int stopping, int *release)
{
	*release = 0;
	if (h->state == HOST_DONE)
		return HOST_DONE;
	if (h->next >= h->n || stopping || (*release = held_too_long(t, h)))
		return h->s.in_flight > 0 ? HOST_DRAINING : HOST_DONE;
	if (h->state == HOST_DRAINING)
		return HOST_READY;
	return h->state;
}

/* Every change of a host's state goes through here: the heap follows. */
static void set_state(struct host_table *t, struct host *h, enum host_state s)
{
	int64_t at;

	if (h->state != HOST_DONE && s == HOST_DONE) {
		t->left--;
		t->early_left -= h->early != 0;
	}
	h->state = s;
	switch (s) {
	case HOST_NEW:
		sched_heap_set(&t->heap, &h->s, 0);
		break;
	case HOST_READY:
		at = sched_next_start(h->gate, &h->pol);
		if (at == INT64_MAX)
			sched_heap_remove(&t->heap, &h->s);   /* back when a request ends */
		else
			sched_heap_set(&t->heap, &h->s, at);
		break;
	default:
		sched_heap_remove(&t->heap, &h->s);
		break;
	}
}

/* A host whose next start is too far ahead leaves the round: its
 * remaining URLs stay due, and its gate holds until that start, which the
 * robots cache carries to the next phases. */
static void release(struct host_table *t, struct host *h)
{
	sched_hold(h->gate, sched_next_start(h->gate, &h->pol));
	t->released++;
	t->released_urls += h->n - h->next;
	h->next = h->n;
	h->released = 1;
}

void hosts_settle(struct host_table *t, struct host *h, int stopping)
{
	int rel;
	enum host_state s = settled(t, h, stopping, &rel);

	if (rel)
		release(t, h);
	set_state(t, h, s);
}

void hosts_set(struct host_table *t, struct host *h, enum host_state s)
{
	if (h->state == HOST_DONE)
		return;
	h->state = s;
	hosts_settle(t, h, 0);
}

void hosts_settle_group(struct host_table *t, struct host *h, int stopping)
{
	size_t k;

	hosts_settle(t, h, stopping);
	/* A request of the group ended: members waiting for room may go. */
	for (k = 0; h->group && k < h->group->n; k++)
		if (h->group->members[k] != h)
			hosts_settle(t, h->group->members[k], stopping);
}

int hosts_closed(const struct host *h)
{
	return h->released || h->parked;
}

void hosts_reopen(struct host_table *t, struct host *h)
{
	if (h->state == HOST_DONE) {
		t->left++;
		t->early_left += h->early != 0;
		h->state = h->addr[0] ? HOST_READY : HOST_NEW;
	}
	hosts_settle(t, h, 0);
}

uint64_t hosts_leave_rest(struct host_table *t, int stopping)
{
	struct hmap_slot *s;
	size_t i = 0;
	uint64_t n = 0;

	while ((s = hmap_next(&t->hosts, &i)) != NULL) {
		struct host *h = s->val;

		for (; h->next < h->n; h->next++)
			n += !h->items[h->next]->early;
		hosts_settle(t, h, stopping);
	}
	return n;
}

void hosts_tick(struct host_table *t, int64_t now)
{
	t->now = now;
}

struct host *hosts_due(struct host_table *t, int64_t now)
{
	struct sched_host *top = sched_heap_top(&t->heap);

	return top && top->heap_key <= now ? (struct host *)top : NULL;
}

int64_t hosts_next_time(const struct host_table *t)
{
	struct sched_host *top = sched_heap_top(&t->heap);

	return top ? top->heap_key : INT64_MAX;
}

void hosts_override(struct host *h, const struct host_settings *s)
{
	if (!s->line)
		return;
	h->rule = s->line;
	h->blocked |= s->block;
	if (s->delay_ms >= 0)
		h->pol.delay_us = (int64_t)s->delay_ms * 1000;
	if (s->max_in_flight > 0)
		h->pol.max_in_flight = (int)s->max_in_flight;
}

const char *hosts_address_verdict(struct host *h, const char *addrs, int allow_private,
				  const struct addr_list *allow, const struct host_rules *rules)
{
	struct host_settings s;
	char a[64];
	int first = 1;

	/* Every address of the answer: libcurl may connect to any of them. */
	while (*addrs) {
		size_t n = strcspn(addrs, ",");

		snprintf(a, sizeof(a), "%.*s", (int)n, addrs);
		addrs += n + (addrs[n] == ',');
		if (!allow_private && !addr_is_public_str(a) && !addr_list_has_str(allow, a))
			return "non-public address";
		if (host_rules_by_addr(rules, a, &s)) {
			if (s.block)
				return "operator";
			/* A name rule, when one matched, says more than an address
			 * rule; the first address's rule sets the pace. */
			if (h && !h->rule && first)
				hosts_override(h, &s);
		}
		first = 0;
	}
	return NULL;
}

const char *hosts_state_name(enum host_state s)
{
	static const char *const names[] = { "new", "resolving", "ready", "robots", "draining",
					     "done" };

	return s <= HOST_DONE ? names[s] : "?";
}
