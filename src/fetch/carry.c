/*
 * carry.c - what fetch phases hand each other through the robots cache; see
 * carry.h.
 */
#include "fetch/carry.h"
#include "fetch/hosts.h"
#include "fetch/sched.h"
#include "robots/robots.h"

#include <stdlib.h>
#include <string.h>

struct carry {
	struct dns *dns;
	int64_t wall, mono, since;
	uint64_t cached;
};

static void one_in(void *arg, struct origin *o)
{
	struct carry *c = arg;
	struct host *h = o->host;

	c->cached += o->state == ORIGIN_READY;
	if (!h)
		return;
	sched_carry_in(h->gate, o->last_end, o->hold_until, c->wall, c->mono);
	if (o->dns.expires > c->wall && o->dns.at >= c->since)
		dns_seed(c->dns, h->name, (enum dns_result)o->dns.result, o->dns.addr,
			 c->mono + (o->dns.expires - c->wall));
	if (o->state == ORIGIN_READY)
		sched_crawl_delay(&h->pol, robots_crawl_delay_ms(o->rules));
}

uint64_t carry_in(struct origin_table *t, struct dns *d, int64_t wall, int64_t mono,
		  int64_t since)
{
	struct carry c = { d, wall, mono, since, 0 };

	origins_each(t, one_in, &c);
	return c.cached;
}

enum cr_err carry_in_late(struct origin_table *t, struct dns *d, int64_t wall, int64_t mono,
			  int64_t since)
{
	struct carry c = { d, wall, mono, since, 0 };

	return origins_load_late(t, wall, one_in, &c);
}

static void one_out(void *arg, struct origin *o)
{
	struct carry *c = arg;
	struct host *h = o->host;
	enum dns_result r;
	char addr[sizeof(o->dns.addr)];
	int64_t exp;

	if (!h)
		return;
	sched_carry_out(h->gate, c->wall, c->mono, &o->last_end, &o->hold_until);
	if (dns_peek(c->dns, h->name, &r, addr, sizeof(addr), &exp) && exp > c->mono) {
		int64_t expires = c->wall + (exp - c->mono);

		/* an answer the resolver had afresh ends at another time than
		 * the one seeded from the cache (mono and wall round apart by
		 * a microsecond or two): it was had in this phase */
		if (llabs(expires - o->dns.expires) > 1000)
			o->dns.at = c->wall;
		o->dns.result = (int)r;
		o->dns.expires = expires;
		memcpy(o->dns.addr, addr, sizeof(addr));
	}
}

void carry_out(struct origin_table *t, struct dns *d, int64_t wall, int64_t mono)
{
	struct carry c = { d, wall, mono, 0, 0 };

	origins_each(t, one_out, &c);
}
