/*
 * provenance.c - a crawl's configuration, seeds and warcinfo fields; see
 * provenance.h.
 */
#include "crawldb/provenance.h"
#include "config/config.h"
#include "crawldb/layout.h"
#include "util/fs.h"
#include "util/log.h"
#include "util/sha256.h"

#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#ifndef MPICRAWL_REVISION
#define MPICRAWL_REVISION "unknown"
#endif
#define CONFIG_TEXT_MAX (64u << 10)
/* Seed lines in the record of a run's provenance, at most (bytes). */
#define PROVENANCE_SEED_BYTES (1u << 20)

const char *provenance_software(void)
{
	return "mpicrawl/0.1 (git " MPICRAWL_REVISION ")";
}

static void provenance_dir(const struct job *j, char *out, size_t cap)
{
	snprintf(out, cap, "%s/provenance", j->dir.root);
}

enum cr_err provenance_record(const struct job *j, const char *seeds, char *copy, size_t cap)
{
	char dir[PATH_MAX], path[PATH_MAX + 64], stamp[32], *text = malloc(CONFIG_TEXT_MAX);
	time_t now = time(NULL);
	struct tm tm;
	enum cr_err e;

	if (!text)
		return CR_ERR_NOMEM;
	gmtime_r(&now, &tm);
	strftime(stamp, sizeof(stamp), "%Y%m%dT%H%M%SZ", &tm);
	provenance_dir(j, dir, sizeof(dir));
	config_write(&j->cfg, text, CONFIG_TEXT_MAX);
	snprintf(path, sizeof(path), "%s/config-%s.txt", dir, stamp);
	e = fs_mkdirs(dir);
	if (!e)
		e = fs_write_atomic(path, text, strlen(text));
	free(text);
	if (!e && seeds && seeds[0]) {
		/* copied a chunk at a time: a seed file may be gigabytes */
		snprintf(path, sizeof(path), "%s/seeds-%s.txt", dir, stamp);
		e = fs_copy_atomic(seeds, path);
	}
	if (e)
		log_err("provenance", "cannot write '%s'", path);
	else if ((size_t)snprintf(copy, cap, "%s", seeds && seeds[0] ? path : "") >= cap)
		e = CR_ERR_LIMIT;
	return e;
}

static char **listed(const struct job *j, const char *prefix, size_t *n);

/* The sha256 of every provenance seed file, in name order; 0 if none. */
static int seeds_digest(const struct job *j, char out[SHA256_NAME_MAX])
{
	char path[PATH_MAX + 300], **v;
	size_t n, i;
	struct sha256 s;

	v = listed(j, "seeds-", &n);
	sha256_start(&s);
	for (i = 0; i < n; i++) {
		FILE *fp;
		char chunk[65536];
		size_t k;

		snprintf(path, sizeof(path), "%s/provenance/%s", j->dir.root, v[i]);
		if (!(fp = fopen(path, "rb")))
			continue;
		while ((k = fread(chunk, 1, sizeof(chunk), fp)) > 0)
			sha256_add(&s, chunk, k);
		if (ferror(fp))
			log_warn("provenance", "cannot read '%s': the seeds digest is partial",
				 path);
		fclose(fp);
	}
	fs_list_free(v, n);
	return sha256_end(&s, out) == CR_OK && n > 0;
}

/* One "name: value" line, when value is set. */
static void field(struct buf *out, const char *name, const char *value)
{
	if (value && value[0])
		buf_addf(out, "%s: %s\r\n", name, value);
}

void provenance_fields(const struct job *j, struct buf *out)
{
	/* The seed files change only when a run starts, before its first
	 * fetch: their digest is read once a process, not once a phase. */
	static char seeds[SHA256_NAME_MAX], seeds_root[LAYOUT_ROOT_MAX];
	static int have_seeds;
	const struct config *cfg = &j->cfg;
	char *text = malloc(CONFIG_TEXT_MAX), digest[SHA256_NAME_MAX], robots[128];

	field(out, "operator", cfg->warc_operator);
	field(out, "isPartOf", cfg->warc_is_part_of);
	field(out, "description", cfg->warc_description);
	field(out, "publisher", cfg->warc_publisher);
	snprintf(robots, sizeof(robots), "obey; agent=%s", cfg->robots_agent);
	field(out, "robots", robots);
	field(out, "http-header-user-agent", cfg->user_agent);
	field(out, "http-header-from", cfg->from);
	if (text) {
		config_write(cfg, text, CONFIG_TEXT_MAX);
		sha256_name(text, strlen(text), digest);
		field(out, "config-digest", digest);
		free(text);
	}
	if (strcmp(seeds_root, j->dir.root)) {
		snprintf(seeds_root, sizeof(seeds_root), "%s", j->dir.root);
		have_seeds = seeds_digest(j, seeds);
	}
	if (have_seeds)
		field(out, "seeds-digest", seeds);
}

/* The names in DIR/provenance/ that start with prefix, sorted; *n of them. */
static char **listed(const struct job *j, const char *prefix, size_t *n)
{
	char dir[PATH_MAX];

	provenance_dir(j, dir, sizeof(dir));
	return fs_list(dir, prefix, ".txt", n);
}

int provenance_last_config(const struct crawl_dir *d, char *out, size_t cap)
{
	struct job j;
	char dir[PATH_MAX], **v;
	size_t n;
	int found;

	memset(&j, 0, sizeof(j));
	j.dir = *d;
	provenance_dir(&j, dir, sizeof(dir));
	v = listed(&j, "config-", &n);
	found = n > 0;
	if (found)
		snprintf(out, cap, "%s/%s", dir, v[n - 1]);
	fs_list_free(v, n);
	return found;
}

/* Each line of file name of DIR/provenance/ as a field "field: LINE",
 * read a line at a time; past cap bytes of fields, the lines left are
 * counted in one "FIELD-lines-omitted: N" field (the file itself is whole
 * in provenance/, its digest in the warcinfo). */
static void lines_as_fields(const struct job *j, const char *name, const char *field,
			    size_t cap, struct buf *out)
{
	char path[PATH_MAX + 300], chunk[4096];
	size_t start = out->len;
	uint64_t omitted = 0;
	int in_line = 0, cut = 0;   /* inside a line; that line is cut */
	FILE *fp;

	snprintf(path, sizeof(path), "%s/provenance/%s", j->dir.root, name);
	if (!(fp = fopen(path, "rb")))
		return;
	/* a piece at a time: a line may be longer than memory should hold */
	while (fgets(chunk, sizeof(chunk), fp)) {
		size_t n = strlen(chunk), k;
		int ends = n && chunk[n - 1] == '\n';

		if (!in_line) {
			cut = out->len - start >= cap;
			omitted += cut;
			if (!cut)
				buf_addf(out, "%s: ", field);
		}
		for (k = 0; !cut && k < n - ends; k++) {
			if (out->len - start >= cap && out->len - start - cap >= 4096) {
				cut = 1;   /* a field value is cut where the cap is far past */
				break;
			}
			buf_addc(out, (unsigned char)chunk[k] < 0x20 ? ' ' : chunk[k]);
		}
		in_line = !ends;
		if (!in_line && !cut)
			buf_adds(out, "\r\n");
		else if (!in_line && out->len > start && out->p[out->len - 1] != '\n')
			buf_adds(out, "\r\n");   /* a cut value still ends its field */
	}
	if (in_line && out->len > start && out->p[out->len - 1] != '\n')
		buf_adds(out, "\r\n");
	if (omitted)
		buf_addf(out, "%s-lines-omitted: %llu\r\n", field, (unsigned long long)omitted);
	fclose(fp);
}

int provenance_record_body(const struct job *j, struct buf *out)
{
	size_t nc, ns, i;
	char **c = listed(j, "config-", &nc), **s = listed(j, "seeds-", &ns);

	if (nc)
		lines_as_fields(j, c[nc - 1], "config", SIZE_MAX, out);
	for (i = 0; nc && i < ns; i++)
		lines_as_fields(j, s[i], "seed", PROVENANCE_SEED_BYTES, out);
	fs_list_free(c, nc);
	fs_list_free(s, ns);
	return nc > 0;
}

/* The keys whose values decide what becomes of a URL without its server
 * having a say: its scope, the addresses and names it may resolve to, the
 * TLS it must pass, the operator's rules, the robots.txt group it obeys, a
 * Crawl-delay taken. Another value of one of them is another configuration
 * (config.since); scope.* alone decides whether refused links are judged
 * again (rescope). */
static const char *const judging_keys[] = {
	"scope.", "fetch.allow_", "dns.servers", "dns.family", "tls.", "hosts.rules",
	"robots.agent", "politeness.max_crawl_delay_ms", NULL,
};
static const char *const scope_keys[] = { "scope.", NULL };

/* The sha256 name of the lines of j's configuration text ("key = value")
 * whose key starts with one of keys. */
static enum cr_err keys_digest(const struct job *j, const char *const *keys,
			       char digest[SHA256_NAME_MAX])
{
	char *text = malloc(CONFIG_TEXT_MAX), *line, *save = NULL;
	struct sha256 h;
	size_t k;

	if (!text)
		return CR_ERR_NOMEM;
	config_write(&j->cfg, text, CONFIG_TEXT_MAX);
	sha256_start(&h);
	for (line = strtok_r(text, "\n", &save); line; line = strtok_r(NULL, "\n", &save))
		for (k = 0; keys[k]; k++)
			if (!strncmp(line, keys[k], strlen(keys[k]))) {
				sha256_add(&h, line, strlen(line));
				sha256_add(&h, "\n", 1);
				break;
			}
	free(text);
	return sha256_end(&h, digest);
}

/* Writes DIR/config.since: the two digests, since and, once done,
 * "rescoped". */
static enum cr_err since_write(const struct job *j, const char *judging, const char *scope,
			       int64_t since, int rescoped)
{
	char path[PATH_MAX], line[256];
	enum cr_err e;

	layout_top(j->dir.root, "config.since", path, sizeof(path));
	snprintf(line, sizeof(line), "%s %s %lld%s\n", judging, scope, (long long)since,
		 rescoped ? " rescoped" : "");
	e = fs_write_atomic(path, line, strlen(line));
	if (e)
		log_err("provenance", "cannot write '%s'", path);
	return e;
}

/* The fields of DIR/config.since: 1 if it holds both digests and a time. */
static int since_read(const struct job *j, char judging[SHA256_NAME_MAX],
		      char scope[SHA256_NAME_MAX], long long *t, int *rescoped)
{
	char path[PATH_MAX], line[256], done[16] = "";
	struct buf old;
	int ok = 0;

	layout_top(j->dir.root, "config.since", path, sizeof(path));
	buf_init(&old);
	*rescoped = 0;
	if (fs_read_all(path, 4096, &old) == CR_OK && old.len < sizeof(line)) {
		memcpy(line, old.p, old.len);
		line[old.len] = '\0';
		ok = sscanf(line, "%71s %71s %lld %15s", judging, scope, t, done) >= 3 && *t > 0;
		*rescoped = !strcmp(done, "rescoped");
	}
	buf_release(&old);
	return ok;
}

enum cr_err provenance_config_since(const struct job *j, int64_t now, int64_t *since,
				    int *rescope)
{
	char judging[SHA256_NAME_MAX], scope[SHA256_NAME_MAX];
	char was_j[SHA256_NAME_MAX], was_s[SHA256_NAME_MAX];
	long long t;
	int done = 0, known;
	enum cr_err e = keys_digest(j, judging_keys, judging);

	if (!e)
		e = keys_digest(j, scope_keys, scope);
	if (e)
		return e;
	known = since_read(j, was_j, was_s, &t, &done);
	if (known && !strcmp(was_j, judging) && t <= now) {
		*since = t;
		*rescope = !done;
		return CR_OK;
	}
	/* another configuration (or none known): from now; the scope's
	 * refusals judged again when the scope is what changed */
	*since = now;
	*rescope = !known || strcmp(was_s, scope) != 0;
	return since_write(j, judging, scope, now, !*rescope);
}

enum cr_err provenance_config_rescoped(const struct job *j)
{
	char judging[SHA256_NAME_MAX], scope[SHA256_NAME_MAX];
	enum cr_err e = keys_digest(j, judging_keys, judging);

	if (!e)
		e = keys_digest(j, scope_keys, scope);
	return e ? e : since_write(j, judging, scope, j->config_since_us, 1);
}
