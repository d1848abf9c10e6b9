#include "status/progfile.h"

#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <xxhash.h>

#define MAGIC "mpicrawl-progress"

const char *const progfile_fail_names[PF_COUNT_] = {
	"error", "timeout", "dns", "tls", "gone", "denied", "blocked", "deferred",
	"too_large", "truncated",
};

/* A host name as one word: bytes outside printable ASCII, and blanks, as '?'. */
static void put_word(struct buf *out, const char *s)
{
	for (; *s; s++)
		buf_addc(out, *s > ' ' && *s < 0x7f ? *s : '?');
}

void progfile_encode(const struct progfile *p, struct buf *out)
{
	size_t start = out->len;
	int i;

	buf_addf(out, MAGIC " %d\nrank %d %d\nsegment %d\nphase %s %s\n", PROGFILE_VERSION,
		 p->rank, p->ranks, p->seg, p->phase, p->final ? "done" : "running");
	buf_addf(out, "time_us %" PRId64 "\nelapsed_us %" PRId64 "\n", p->time_us, p->elapsed_us);
	buf_addf(out, "urls %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", p->done, p->urls,
		 p->fetchlist);
	buf_addf(out, "kept %" PRIu64 "\n", p->kept);
	buf_addf(out, "requests %" PRIu64 "\nbytes %" PRIu64 "\nrecent %" PRIu64 " %" PRId64 "\n",
		 p->requests, p->bytes, p->recent_requests, p->recent_us);
	buf_addf(out, "hosts %" PRIu64 " %" PRIu64 " %" PRIu64 "\n", p->hosts_active,
		 p->hosts_parked, p->hosts_held);
	for (i = 0; i < PF_COUNT_; i++)
		buf_addf(out, "fail %s %" PRIu64 "\n", progfile_fail_names[i], p->fail[i]);
	for (i = 0; i < p->ntop && i < PROGFILE_TOP; i++) {
		buf_adds(out, "host ");
		put_word(out, p->top[i].name);
		buf_addf(out, " %" PRIu64 " %" PRId64 "\n", p->top[i].queue, p->top[i].need_ms);
	}
	buf_addf(out, "end %016" PRIx64 "\n",
		 (uint64_t)XXH64(out->p + start, out->len - start, 0));
}

/* The next line of [*s, e) into a NUL-ended copy of at most cap bytes;
 * 0 at the end or for a line too long. */
static int next_line(const char **s, const char *e, char *line, size_t cap)
{
	const char *nl = memchr(*s, '\n', (size_t)(e - *s));
	size_t n;

	if (!nl || (n = (size_t)(nl - *s)) >= cap)
		return 0;
	memcpy(line, *s, n);
	line[n] = '\0';
	*s = nl + 1;
	return 1;
}

/* The numbers after a line's key: n of them, each in full. */
static int nums(const char *s, int n, int64_t *v)
{
	int i;

	for (i = 0; i < n; i++) {
		char *end;

		while (*s == ' ')
			s++;
		if (!(*s >= '0' && *s <= '9') && *s != '-')
			return 0;
		v[i] = strtoll(s, &end, 10);
		if (end == s || (*end && *end != ' '))
			return 0;
		s = end;
	}
	return 1;
}

static int fail_line(const char *s, struct progfile *p)
{
	int64_t v;
	int i;

	for (i = 0; i < PF_COUNT_; i++) {
		size_t k = strlen(progfile_fail_names[i]);

		if (!strncmp(s, progfile_fail_names[i], k) && s[k] == ' ') {
			if (!nums(s + k, 1, &v) || v < 0)
				return 0;
			p->fail[i] = (uint64_t)v;
		}
	}
	return 1;   /* a class this version does not know: skipped */
}

static int host_line(const char *s, struct progfile *p)
{
	const char *sp = strchr(s, ' ');
	struct progfile_host *h;
	int64_t v[2];
	const char *c;

	if (!sp || sp == s || (size_t)(sp - s) >= PROGFILE_HOST_MAX || !nums(sp, 2, v) ||
	    v[0] < 0)
		return 0;
	for (c = s; c < sp; c++)   /* one word of printable ASCII, as written */
		if (*c <= ' ' || *c >= 0x7f)
			return 0;
	if (p->ntop >= PROGFILE_TOP)
		return 1;
	h = &p->top[p->ntop++];
	memcpy(h->name, s, (size_t)(sp - s));
	h->name[sp - s] = '\0';
	h->queue = (uint64_t)v[0];
	h->need_ms = v[1];
	return 1;
}

static int phase_line(const char *s, struct progfile *p)
{
	const char *sp = strchr(s, ' '), *c;

	if (!sp || sp == s || (size_t)(sp - s) >= sizeof(p->phase))
		return 0;
	for (c = s; c < sp; c++)
		if (*c < 'a' || *c > 'z')
			return 0;
	memcpy(p->phase, s, (size_t)(sp - s));
	p->phase[sp - s] = '\0';
	if (!strcmp(sp + 1, "done"))
		p->final = 1;
	else if (strcmp(sp + 1, "running"))
		return 0;
	return 1;
}

static int u64s(const char *s, int n, uint64_t *out[])
{
	int64_t v[3];
	int i;

	if (!nums(s, n, v))
		return 0;
	for (i = 0; i < n; i++) {
		if (v[i] < 0)
			return 0;
		*out[i] = (uint64_t)v[i];
	}
	return 1;
}

/* One line "key rest" into p: 0 if it is bad. */
static int take_line(const char *key, const char *s, struct progfile *p)
{
	int64_t v[2];

	if (!strcmp(key, "rank") && nums(s, 2, v) && v[0] >= 0 && v[0] < v[1] && v[1] < 1 << 24) {
		p->rank = (int)v[0];
		p->ranks = (int)v[1];
		return 1;
	}
	if (!strcmp(key, "segment") && nums(s, 1, v) && v[0] > 0 && v[0] < 1000000) {
		p->seg = (int)v[0];
		return 1;
	}
	if (!strcmp(key, "time_us"))
		return nums(s, 1, &p->time_us);
	if (!strcmp(key, "elapsed_us"))
		return nums(s, 1, &p->elapsed_us);
	if (!strcmp(key, "urls"))
		return u64s(s, 3, (uint64_t *[]){ &p->done, &p->urls, &p->fetchlist });
	if (!strcmp(key, "kept"))
		return u64s(s, 1, (uint64_t *[]){ &p->kept });
	if (!strcmp(key, "requests"))
		return u64s(s, 1, (uint64_t *[]){ &p->requests });
	if (!strcmp(key, "bytes"))
		return u64s(s, 1, (uint64_t *[]){ &p->bytes });
	if (!strcmp(key, "recent") && nums(s, 2, v) && v[0] >= 0 && v[1] >= 0) {
		p->recent_requests = (uint64_t)v[0];
		p->recent_us = v[1];
		return 1;
	}
	if (!strcmp(key, "hosts"))
		return u64s(s, 3, (uint64_t *[]){ &p->hosts_active, &p->hosts_parked,
						    &p->hosts_held });
	if (!strcmp(key, "phase"))
		return phase_line(s, p);
	if (!strcmp(key, "fail"))
		return fail_line(s, p);
	if (!strcmp(key, "host"))
		return host_line(s, p);
	return !strcmp(key, "rank") || !strcmp(key, "segment") || !strcmp(key, "recent") ?
	       0 : 1;   /* a key this version does not know: skipped */
}

/* The checksum line: "end" and the XXH64 of every byte before it. */
static int end_ok(const char *data, const char *line_start, const char *line)
{
	char want[32];

	snprintf(want, sizeof(want), "end %016" PRIx64,
		 (uint64_t)XXH64(data, (size_t)(line_start - data), 0));
	return !strcmp(line, want);
}

enum cr_err progfile_decode(const void *data, size_t n, struct progfile *p,
			    const char **why)
{
	const char *s = data, *e = s + n, *start;
	char line[PROGFILE_HOST_MAX + 64], *sp;
	const char *bad = NULL;

	memset(p, 0, sizeof(*p));
	if (n > PROGFILE_BYTES_MAX)
		bad = "too large";
	else if (!next_line(&s, e, line, sizeof(line)) ||
		 strcmp(line, MAGIC " 1"))
		bad = "not a progress file";
	while (!bad) {
		start = s;
		if (!next_line(&s, e, line, sizeof(line))) {
			bad = "cut short";
			break;
		}
		if (!strncmp(line, "end ", 4)) {
			if (s != e)
				bad = "bytes after its end";
			else if (!end_ok(data, start, line))
				bad = "checksum mismatch";
			break;
		}
		sp = strchr(line, ' ');
		if (!sp || (*sp = '\0', !take_line(line, sp + 1, p)))
			bad = "bad line";
	}
	if (!bad && (!p->ranks || !p->seg || !p->phase[0]))
		bad = "rank, segment or phase missing";
	if (why)
		*why = bad;
	return bad ? CR_ERR_FORMAT : CR_OK;
}

static int slower(const struct progfile_host *a, uint64_t queue, int64_t need_ms,
		  const char *name)
{
	if (need_ms != a->need_ms)
		return need_ms > a->need_ms;
	if (queue != a->queue)
		return queue > a->queue;
	return strcmp(name, a->name) < 0;
}

void progfile_top_add(struct progfile_host *top, int *ntop, int k, const char *name,
		      uint64_t queue, int64_t need_ms)
{
	int i = *ntop;

	if (k > PROGFILE_TOP)
		k = PROGFILE_TOP;
	if (k <= 0 || (i == k && !slower(&top[k - 1], queue, need_ms, name)))
		return;
	if (i == k)
		i--;
	for (; i > 0 && slower(&top[i - 1], queue, need_ms, name); i--)
		top[i] = top[i - 1];
	snprintf(top[i].name, sizeof(top[i].name), "%s", name);
	top[i].queue = queue;
	top[i].need_ms = need_ms;
	if (*ntop < k)
		(*ntop)++;
}
