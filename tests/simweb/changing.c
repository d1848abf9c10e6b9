/*
 * changing.c - the changing web of --changing and its freshness; see
 * changing.h.
 */
#include "changing.h"

#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define CHANGING_RATE_MIN (1.0 / (365.0 * 86400.0))   /* yearly */
#define CHANGING_RATE_MAX (1.0 / 3600.0)              /* hourly */
#define CHANGING_WORDS 150u
#define CHANGING_GAMMA 0x9e3779b97f4a7c15ULL          /* splitmix64's increment */
#define CHANGING_TAG 0x6368616e67696e67ULL            /* "changing" */
#define CHANGING_DECADES 5u

/* The rate decades of --freshness, in changes per day. */
static const double changing_decade[CHANGING_DECADES + 1] = { 1e-3, 1e-2, 1e-1, 1, 10, 100 };

/* splitmix64's output function. */
static uint64_t changing_mix(uint64_t z)
{
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
	return z ^ (z >> 31);
}

/* perm(g): a bijection of the pages, a 4-round Feistel network on the
 * smallest even power of two >= N, walked until it lands below N. */
static uint64_t changing_perm(const struct web *w, uint64_t g)
{
	uint64_t n = (uint64_t)w->hosts * w->pages, x = g, mask;
	unsigned half = 1;

	while ((1ULL << (2 * half)) < n)
		half++;
	mask = (1ULL << half) - 1;
	do {
		uint64_t l = x >> half, r = x & mask;

		for (uint64_t i = 0; i < 4; i++) {
			uint64_t t = l ^ (changing_mix(w->seed ^ changing_mix(r | i << 32 |
									 CHANGING_TAG << 40)) & mask);

			l = r;
			r = t;
		}
		x = l << half | r;
	} while (x >= n);
	return x;
}

double changing_rate(const struct web *w, unsigned g)
{
	double lo = log(CHANGING_RATE_MIN), hi = log(CHANGING_RATE_MAX);
	double n = (double)w->hosts * w->pages;

	return exp(lo + (hi - lo) * ((double)changing_perm(w, g) + 0.5) / n);
}

/* The changes of one page, walked forward in time (seconds after E). */
struct changing_proc {
	uint64_t state;          /* splitmix64 */
	double rate;
	double last;             /* the latest change counted; before the first,
				    the last change before E (negative) */
	double next;             /* the next change */
	unsigned long version;   /* changes counted */
};

static void changing_draw(struct changing_proc *p)
{
	uint64_t z = changing_mix(p->state += CHANGING_GAMMA);
	double u = (double)((z >> 11) + 1) * 0x1.0p-53;   /* (0, 1] */

	p->next += -log(u) / p->rate;
}

static void changing_start(const struct web *w, unsigned g, struct changing_proc *p)
{
	p->state = changing_mix(w->seed ^ CHANGING_TAG) ^ changing_mix((uint64_t)g + 1);
	p->rate = changing_rate(w, g);
	p->version = 0;
	/* The page changed before E too: memoryless, the time back to its
	 * last change before E is drawn like a gap (version 0's
	 * Last-Modified), so that an old page's header says it is old. */
	p->next = 0;
	changing_draw(p);
	p->last = -p->next;
	p->next = 0;
	changing_draw(p);
}

/* Counts the changes at or before x. */
static void changing_advance(struct changing_proc *p, double x)
{
	while (p->next <= x) {
		p->last = p->next;
		p->version++;
		changing_draw(p);
	}
}

/* t_us (unix µs) as seconds after the epoch: exact below 2^53 µs. */
static double changing_since(const struct web *w, long long t_us)
{
	return (double)(t_us - w->epoch * 1000000) / 1e6;
}

/* /c/K.html, K in [0, M), plain decimal: 0 and *k, else -1. */
static int changing_page(const struct web *w, const char *path, unsigned *k)
{
	const char *p = path + 3;
	unsigned long v = 0;

	if (strncmp(path, "/c/", 3) || *p < '0' || *p > '9' || (*p == '0' && p[1] != '.'))
		return -1;
	for (; *p >= '0' && *p <= '9'; p++) {
		v = v * 10 + (unsigned long)(*p - '0');
		if (v >= w->pages)
			return -1;
	}
	if (strcmp(p, ".html"))
		return -1;
	*k = (unsigned)v;
	return 0;
}

/* Version v of page g: its words are a function of (seed, g, v). */
static void changing_render(const struct web *w, unsigned g, unsigned long v, struct web_sb *sb)
{
	web_sb_printf(sb, "<!DOCTYPE html>\n<html><head><title>Page %u</title></head>\n"
		      "<body><h1>Page %u</h1>\n<p>Version %lu of page %u.", g, g, v, g);
	for (unsigned i = 0; i < CHANGING_WORDS; i++) {
		uint64_t key[3] = { g, v, i };

		web_sb_printf(sb, " %s%s", web_word(XXH3_64bits_withSeed(key, sizeof(key),
									 w->seed ^ CHANGING_TAG)),
			      i % 12 == 11 || i + 1 == CHANGING_WORDS ? "." : "");
	}
	web_sb_printf(sb, "</p>\n</body></html>\n");
}

void changing_respond(const struct web *w, const char *host, const char *path, long long t_us,
		      struct web_response *r)
{
	struct web_sb sb = { r->body, 0, sizeof(r->body) };
	struct changing_proc p;
	unsigned h, k, g;

	r->status = 200;
	r->type = "text/html; charset=utf-8";
	r->location[0] = '\0';
	r->retry_after = 0;
	r->latency_ms = w->latency_ms;
	r->big = NULL;
	r->last_modified = -1;
	if (web_find_host(w, host, &h) < 0 || changing_page(w, path, &k) < 0) {
		r->status = 404;
		web_sb_printf(&sb, "<!DOCTYPE html>\n<html><head><title>Not Found</title>"
			      "</head><body><p>Not found.</p></body></html>\n");
		r->len = sb.len;
		return;
	}
	g = h * w->pages + k;
	changing_start(w, g, &p);
	changing_advance(&p, changing_since(w, t_us));
	r->last_modified = w->epoch + (long long)p.last;
	if (r->last_modified < 0)
		r->last_modified = 0;
	changing_render(w, g, p.version, &sb);
	r->len = sb.len;
}

int changing_seeds(const struct web *w, FILE *out)
{
	for (unsigned h = 0; h < w->hosts; h++)
		for (unsigned k = 0; k < w->pages; k++)
			fprintf(out, "http://%s:%u/c/%u.html\n", WEB_HN(w, h), w->port, k);
	return ferror(out) ? -1 : 0;
}

int changing_rates(const struct web *w, FILE *out)
{
	for (unsigned h = 0; h < w->hosts; h++)
		for (unsigned k = 0; k < w->pages; k++)
			fprintf(out, "http://%s:%u/c/%u.html\t%.9g\n", WEB_HN(w, h), w->port, k,
				changing_rate(w, h * w->pages + k));
	return ferror(out) ? -1 : 0;
}

/* A fetch of the log: page g at t_us. */
struct changing_fetch {
	long long t_us;
	unsigned g;
};

static int changing_by_page(const void *a, const void *b)
{
	const struct changing_fetch *x = a, *y = b;

	if (x->g != y->g)
		return x->g < y->g ? -1 : 1;
	return (x->t_us > y->t_us) - (x->t_us < y->t_us);
}

/* One log line: 1 a fetch into *f, 0 a page's answer other than 200, -1
 * a line that does not parse, -2 a host or path not of the web. */
static int changing_parse(const struct web *w, char *line, struct changing_fetch *f)
{
	char *field[7], *end, *p = line;
	unsigned n = 0, h, k;
	long long t;
	long status;

	line[strcspn(line, "\r\n")] = '\0';
	while (n < 7) {
		field[n++] = p;
		if (!(p = strchr(p, '\t')))
			break;
		*p++ = '\0';
	}
	if (n < 5)
		return -1;
	errno = 0;
	t = strtoll(field[0], &end, 10);
	if (errno || end == field[0] || *end || t < 0 || t > (1LL << 62))
		return -1;
	status = strtol(field[4], &end, 10);
	if (end == field[4] || *end)
		return -1;
	field[2][strcspn(field[2], ":")] = '\0';
	for (p = field[2]; *p; p++)
		if (*p >= 'A' && *p <= 'Z')
			*p = (char)(*p - 'A' + 'a');
	if (web_find_host(w, field[2], &h) < 0 || changing_page(w, field[3], &k) < 0)
		return -2;
	if (status != 200)
		return 0;
	f->t_us = t;
	f->g = h * w->pages + k;
	return 1;
}

struct changing_log {
	struct changing_fetch *f;
	size_t n, cap;
	unsigned long bad, foreign, not200;
};

/* Reads every fetch of the log into *log. */
static int changing_read(const struct web *w, FILE *in, struct changing_log *log)
{
	char *line = NULL;
	size_t len = 0;
	int rc = 0;

	while (rc == 0 && getline(&line, &len, in) >= 0) {
		struct changing_fetch f;
		int kind = changing_parse(w, line, &f);

		if (kind == -1)
			log->bad++;
		else if (kind == -2)
			log->foreign++;
		else if (kind == 0)
			log->not200++;
		if (kind != 1)
			continue;
		if (log->n == log->cap) {
			size_t cap = log->cap ? log->cap * 2 : 4096;
			struct changing_fetch *nf = realloc(log->f, cap * sizeof(*nf));

			if (!nf) {
				fprintf(stderr, "simweb: --freshness: out of memory\n");
				rc = -1;
				break;
			}
			log->f = nf;
			log->cap = cap;
		}
		log->f[log->n++] = f;
	}
	free(line);
	if (rc == 0 && ferror(in)) {
		fprintf(stderr, "simweb: --freshness: cannot read the log: %s\n", strerror(errno));
		rc = -1;
	}
	return rc;
}

/* What one rate decade (or the whole web) sums to. */
struct changing_sum {
	double fresh;            /* page seconds fresh in the window */
	unsigned long pages, fetches, fetched;
};

/*
 * Adds page g, fetched at f[0..m) (by time), to s: a copy fetched at x is
 * fresh from x until the next change after x or the next fetch, whichever
 * comes first; the window is [a, b], seconds after E.
 */
static void changing_add(const struct web *w, unsigned g, const struct changing_fetch *f,
			 size_t m, double a, double b, struct changing_sum *s)
{
	struct changing_proc p;

	changing_start(w, g, &p);
	s->pages++;
	if (m && changing_since(w, f[0].t_us) <= b)
		s->fetched++;
	for (size_t j = 0; j < m; j++) {
		double x = changing_since(w, f[j].t_us), end, from;

		if (x > b)
			break;
		if (x >= a)
			s->fetches++;
		changing_advance(&p, x);
		end = p.next;
		if (j + 1 < m && changing_since(w, f[j + 1].t_us) < end)
			end = changing_since(w, f[j + 1].t_us);
		if (end > b)
			end = b;
		from = x > a ? x : a;
		if (end > from)
			s->fresh += end - from;
	}
}

static void changing_print(FILE *out, const char *name, const struct changing_sum *s,
			   double span)
{
	fprintf(out, "%s", name);
	if (s->pages)
		fprintf(out, "%.6f", s->fresh / ((double)s->pages * span));
	else
		fprintf(out, "nan");
}

/* The report of --freshness from the sums of the decades and the web. */
static int changing_report(FILE *out, const struct changing_sum *d, const struct changing_sum *all,
			   double span)
{
	changing_print(out, "freshness ", all, span);
	fprintf(out, "\nfetches %lu\npages %lu\nfetched_pages %lu\n", all->fetches, all->pages,
		all->fetched);
	for (unsigned i = 0; i < CHANGING_DECADES; i++) {
		fprintf(out, "decade %g %g %lu ", changing_decade[i], changing_decade[i + 1],
			d[i].pages);
		changing_print(out, "", &d[i], span);
		fprintf(out, " %lu\n", d[i].fetches);
	}
	return ferror(out) ? -1 : 0;
}

int changing_freshness(const struct web *w, FILE *in, long long from, long long to, FILE *out)
{
	struct changing_log log = { 0 };
	struct changing_sum d[CHANGING_DECADES] = { { 0 } }, all = { 0 };
	double a = (double)(from - w->epoch), b = (double)(to - w->epoch);
	size_t i = 0, n = (size_t)w->hosts * w->pages;
	int rc;

	if (changing_read(w, in, &log) < 0) {
		free(log.f);
		return -1;
	}
	fprintf(stderr, "simweb: --freshness: %lu log lines skipped (%lu unparsable, %lu not a "
		"page of the web), %lu answers not 200\n", log.bad + log.foreign, log.bad,
		log.foreign, log.not200);
	if (log.n)
		qsort(log.f, log.n, sizeof(*log.f), changing_by_page);
	for (unsigned g = 0; g < n; g++) {
		double day = changing_rate(w, g) * 86400;
		size_t m = 0;
		unsigned dec = 0;

		while (dec + 1 < CHANGING_DECADES && day >= changing_decade[dec + 1])
			dec++;
		while (i + m < log.n && log.f[i + m].g == g)
			m++;
		changing_add(w, g, log.f + i, m, a, b, &d[dec]);
		i += m;
	}
	for (unsigned k = 0; k < CHANGING_DECADES; k++) {
		all.fresh += d[k].fresh;
		all.pages += d[k].pages;
		all.fetches += d[k].fetches;
		all.fetched += d[k].fetched;
	}
	rc = changing_report(out, d, &all, b - a);
	free(log.f);
	if (rc < 0)
		fprintf(stderr, "simweb: --freshness: output error\n");
	return rc;
}
