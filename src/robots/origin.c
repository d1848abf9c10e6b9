#include "robots/origin.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Every change of state goes through here. */
static void set_state(struct origin *o, enum origin_state s)
{
	o->state = s;
}

void origin_init(struct origin *o, const char *key, uint32_t part)
{
	memset(o, 0, sizeof(*o));
	o->key = strdup(key);
	if (!o->key) {
		fputs("mpicrawl: out of memory\n", stderr);
		abort();
	}
	o->part = part;
	buf_init(&o->body);
	set_state(o, ORIGIN_UNKNOWN);
}

void origin_release(struct origin *o)
{
	robots_free(&o->rules);
	buf_release(&o->body);
	free(o->robots_url);
	free(o->key);
	memset(o, 0, sizeof(*o));
}

/* The rules an answer gives (RFC 9309 2.3.1): 2xx its own; 4xx, and
 * redirects that were not followed further, "unavailable" - everything may
 * be crawled; 5xx, 429 or none, "unreachable" - nothing for now. */
static void apply_answer(struct origin *o, const struct origin_policy *pol)
{
	int st = o->http_status;

	robots_free(&o->rules);
	if (st >= 200 && st < 300) {
		if (robots_parse_with(o->body.p, o->body.len, pol->agent, ROBOTS_ESCAPES_DECODED,
				      &o->rules) != CR_OK)
			o->rules = robots_new_allow_all();
		set_state(o, ORIGIN_READY);
	} else if ((st >= 400 && st < 500 && st != 429) || (st >= 300 && st < 400)) {
		o->rules = robots_new_allow_all();
		set_state(o, ORIGIN_READY);
	} else {
		set_state(o, ORIGIN_UNAVAILABLE);
	}
}

static void keep_body(struct origin *o, const struct origin_policy *pol, const void *body,
		      size_t len)
{
	size_t keep = pol->max_bytes + 1;

	o->body.len = 0;
	buf_add(&o->body, body, len < keep ? len : keep);
}

/* Without an answer the body is why (origin_on_failure): failure and
 * refused point into it. */
static void set_why(struct origin *o)
{
	o->failure = o->refused = NULL;
	if (o->http_status || !o->body.len)
		return;
	o->failure = buf_cstr(&o->body);
	if (!strncmp(o->failure, "tls:", 4))
		o->refused = o->failure;
}

void origin_on_failure(struct origin *o, const char *why)
{
	o->body.len = 0;
	if (why)
		buf_adds(&o->body, why);
	set_why(o);
}

void origin_on_cache(struct origin *o, const struct origin_policy *pol, int64_t at,
		     int status, const void *body, size_t len, int64_t now)
{
	o->fetched_at = at;
	o->http_status = status;
	o->body.len = 0;
	buf_add(&o->body, body, len);
	set_why(o);
	if (now - at >= pol->ttl_us) {
		set_state(o, ORIGIN_UNKNOWN);   /* expired: asked again when needed */
		return;
	}
	apply_answer(o, pol);
	/* A failed robots.txt is asked again after the retry interval, or
	 * when it failed under another configuration (dns.servers,
	 * tls.ca_file...): the URLs it held are judged again under this one
	 * (generate_rejudged), and must not be held by the old answer - whose
	 * time their outcome would carry - round after round. */
	if (o->state == ORIGIN_UNAVAILABLE && (now - at >= pol->retry_us || at < pol->since_us))
		set_state(o, ORIGIN_UNKNOWN);
}

enum origin_action origin_on_need(struct origin *o)
{
	switch (o->state) {
	case ORIGIN_UNKNOWN:
		set_state(o, ORIGIN_FETCHING);
		return ORIGIN_ASK;
	case ORIGIN_FETCHING:
		return ORIGIN_WAIT;
	case ORIGIN_READY:
		return ORIGIN_APPLY;
	case ORIGIN_UNAVAILABLE:
		break;
	}
	return ORIGIN_HOLD;
}

void origin_on_answer(struct origin *o, const struct origin_policy *pol, int64_t at,
		      int status, const void *body, size_t len, const char *location)
{
	o->fetched_at = at;
	o->http_status = status;
	o->answered = 1;
	keep_body(o, pol, body, len);
	set_why(o);
	if (status >= 300 && status < 400 && o->hops < ORIGIN_MAX_HOPS && location &&
	    location[0]) {
		/* RFC 9309 2.3.1.2: a hop is a request of its own, which waits
		 * its turn like any other. */
		char *next = strdup(location);

		if (next) {
			free(o->robots_url);
			o->robots_url = next;
			o->hops++;
			set_state(o, ORIGIN_UNKNOWN);
			return;
		}
	}
	apply_answer(o, pol);
}

void origin_robots_url(const struct origin *o, char *out, size_t cap)
{
	if (o->robots_url)
		snprintf(out, cap, "%s", o->robots_url);
	else
		snprintf(out, cap, "%s/robots.txt", o->key);
}

const char *origin_state_name(enum origin_state s)
{
	switch (s) {
	case ORIGIN_UNKNOWN: return "unknown";
	case ORIGIN_FETCHING: return "fetching";
	case ORIGIN_READY: return "ready";
	case ORIGIN_UNAVAILABLE: return "unavailable";
	}
	return "?";
}
