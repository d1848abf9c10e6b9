#include "crawldb/layout.h"
#include "util/minhash.h"
#include "util/buf.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/log.h"
#include "url/url.h"

#include <dirent.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/random.h>
#include <time.h>
#include <libpsl.h>
#include <xxhash.h>

static enum cr_err meta_value(const char *text, const char *key, char *out, size_t cap)
{
	size_t kl = strlen(key);
	const char *p = text;

	while (p && *p) {
		if (!strncmp(p, key, kl) && (p[kl] == ' ' || p[kl] == '=')) {
			const char *v = p + kl;
			size_t n;

			while (*v == ' ' || *v == '=')
				v++;
			n = strcspn(v, "\n");
			if (n >= cap)
				return CR_ERR_FORMAT;
			memcpy(out, v, n);
			out[n] = '\0';
			return CR_OK;
		}
		p = strchr(p, '\n');
		if (p)
			p++;
	}
	return CR_ERR_FORMAT;
}

/* The committed CrawlDb has the parts crawl.meta says: the last one, and
 * none after it (a crawl.meta of another crawl would hide parts). */
static enum cr_err parts_agree(const struct crawl_dir *d)
{
	char path[PATH_MAX];
	int ver;

	if (layout_crawldb_current(d, &ver) != CR_OK || ver == 0)
		return CR_OK;   /* a damaged CURRENT is reported where it is read */
	layout_crawldb_part(d, ver, d->partitions - 1, path, sizeof(path));
	if (fs_exists(path)) {
		layout_crawldb_part(d, ver, d->partitions, path, sizeof(path));
		if (!fs_exists(path))
			return CR_OK;
	}
	log_user("'%s': crawl.meta says %u partitions, but CrawlDb version %d does not "
		 "have them: crawl.meta belongs to another crawl; restore this crawl's",
		 d->root, d->partitions, ver);
	return CR_ERR_STATE;
}

/* A new crawl goes into a new or empty directory - or one that a creation
 * cut short left (its lock, scratch and provenance): 1, said, if root
 * holds anything else (a mistyped --dir, the user's own files). */
static int foreign_entry(const char *root)
{
	static const char *const ours[] = { "lock", "tmp", "provenance" };
	DIR *dir = opendir(root);
	struct dirent *de;
	int found = 0;

	while (dir && !found && (de = readdir(dir)) != NULL) {
		size_t i;

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") ||
		    !strncmp(de->d_name, "crawl.meta.tmp.", 15))
			continue;
		for (i = 0; i < sizeof(ours) / sizeof(ours[0]) && strcmp(de->d_name, ours[i]); i++)
			;
		if (i == sizeof(ours) / sizeof(ours[0])) {
			log_user("'%s' holds no crawl (no crawl.meta) but is not empty ('%s'): "
				 "start a crawl in a new or empty directory", root, de->d_name);
			found = 1;
		}
	}
	if (dir)
		closedir(dir);
	return found;
}

/* A crawl directory made now: never over a CrawlDb (another partition
 * count would hide most of it), nor among other files; its layout from
 * cfg. Nothing is written yet (layout_write_meta). */
static enum cr_err open_new(const char *root, const struct config *cfg, struct crawl_dir *d)
{
	char path[PATH_MAX];

	layout_top(root, "crawldb", path, sizeof(path));
	if (fs_exists(path)) {
		log_user("'%s' has a CrawlDb but no crawl.meta: refusing to start a new "
			 "crawl over it (restore crawl.meta, or crawl into an empty "
			 "directory)", root);
		return CR_ERR_STATE;
	}
	if (foreign_entry(root))
		return CR_ERR_ARG;
	d->partitions = (uint32_t)cfg->partitions;
	d->partition_by = cfg->partition_by;
	if (cfg->warc_prefix[0])
		snprintf(d->warc_prefix, sizeof(d->warc_prefix), "%s", cfg->warc_prefix);
	else
		layout_make_prefix(clock_now_us(), d->warc_prefix, sizeof(d->warc_prefix));
	return CR_OK;
}

/* The keys a crawl directory fixes when it is made: a config that sets
 * another value is refused; one that does not takes the directory's. */
static enum cr_err fixed_keys(const struct crawl_dir *d, struct config *cfg, int sig)
{
	if (cfg->partition_by_set && cfg->partition_by != d->partition_by) {
		log_err("layout", "partition.by is %s in '%s' and cannot change",
			d->partition_by == PARTITION_BY_DOMAIN ? "domain" : "host", d->root);
		return CR_ERR_ARG;
	}
	if (cfg->warc_prefix[0] && strcmp(cfg->warc_prefix, d->warc_prefix)) {
		log_err("layout", "warc.prefix is '%s' in '%s' and cannot change (asked '%s')",
			d->warc_prefix, d->root, cfg->warc_prefix);
		return CR_ERR_ARG;
	}
	if (cfg->dedup_signature_set && cfg->dedup_signature != sig) {
		log_err("layout", "dedup.signature is %s in '%s' and cannot change",
			sig == MINHASH_OPH ? "oph" : "minhash", d->root);
		return CR_ERR_ARG;
	}
	if (cfg->partitions_set && cfg->partitions != (long)d->partitions) {
		log_err("layout", "partition.count is %ld in '%s' and cannot change (asked %ld)",
			(long)d->partitions, d->root, cfg->partitions);
		return CR_ERR_ARG;
	}
	cfg->dedup_signature = sig;
	cfg->partitions = (long)d->partitions;
	cfg->partition_by = d->partition_by;
	return CR_OK;
}

enum cr_err layout_open(const char *root, struct config *cfg, int create,
			struct crawl_dir *d)
{
	char path[PATH_MAX], v[64];
	struct buf b;
	long P, format;
	int sig;
	const char *bad;

	if (strlen(root) >= sizeof(d->root)) {
		log_err("layout", "crawl directory name too long");
		return CR_ERR_ARG;
	}
	snprintf(d->root, sizeof(d->root), "%s", root);
	layout_top(root, "crawl.meta", path, sizeof(path));
	buf_init(&b);
	if (fs_read_all(path, 1 << 20, &b) != CR_OK) {
		buf_release(&b);
		if (!create) {
			log_err("layout", "'%s' is not a crawl directory (no crawl.meta)", root);
			return CR_ERR_STATE;
		}
		return open_new(root, cfg, d);
	}
	buf_cstr(&b);
	format = meta_value((const char *)b.p, "format", v, sizeof(v)) == CR_OK ?
		 strtol(v, NULL, 10) : -1;
	if (format > LAYOUT_FORMAT) {
		log_err("layout", "'%s' says format %ld: made by a newer mpicrawl (this one "
			"reads format %d)", path, format, LAYOUT_FORMAT);
		buf_release(&b);
		return CR_ERR_FORMAT;
	}
	if (format != LAYOUT_FORMAT ||
	    meta_value((const char *)b.p, "partition.count", v, sizeof(v)) ||
	    (P = strtol(v, NULL, 10)) < 1 || P > 65536) {
		log_err("layout", "damaged file '%s': no format or partition.count", path);
		buf_release(&b);
		return CR_ERR_FORMAT;
	}
	d->partitions = (uint32_t)P;
	d->partition_by = PARTITION_BY_HOST;
	if (meta_value((const char *)b.p, "partition.by", v, sizeof(v)) == CR_OK &&
	    !strcmp(v, "domain"))
		d->partition_by = PARTITION_BY_DOMAIN;
	/* Crawls made before the key existed sign with n hash functions. */
	sig = meta_value((const char *)b.p, "dedup.signature", v, sizeof(v)) == CR_OK &&
	      !strcmp(v, "oph") ? MINHASH_OPH : MINHASH_FUNCTIONS;
	/* Crawls made before the key named their WARC files mpicrawl-... */
	if (meta_value((const char *)b.p, "warc.prefix", d->warc_prefix,
		       sizeof(d->warc_prefix)) != CR_OK || !d->warc_prefix[0])
		snprintf(d->warc_prefix, sizeof(d->warc_prefix), "mpicrawl");
	buf_release(&b);
	/* It names files: one that could name them elsewhere is damage. */
	if ((bad = config_prefix_problem(d->warc_prefix)) != NULL) {
		log_err("layout", "damaged file '%s': warc.prefix '%s' %s", path, d->warc_prefix,
			bad);
		return CR_ERR_FORMAT;
	}
	if (fixed_keys(d, cfg, sig) != CR_OK)
		return CR_ERR_ARG;
	return parts_agree(d);
}

enum cr_err layout_write_meta(const struct crawl_dir *d, const struct config *cfg)
{
	char path[PATH_MAX];
	static char cfgtext[16384];
	struct buf b;
	enum cr_err e;

	e = fs_mkdirs(d->root);
	if (e)
		return e;
	layout_top(d->root, "crawl.meta", path, sizeof(path));
	config_write(cfg, cfgtext, sizeof(cfgtext));
	buf_init(&b);
	buf_addf(&b, "# mpicrawl crawl directory; do not edit\nformat = %d\n", LAYOUT_FORMAT);
	buf_addf(&b, "partition.count = %u\npartition.by = %s\n", d->partitions,
		 d->partition_by == PARTITION_BY_DOMAIN ? "domain" : "host");
	buf_addf(&b, "dedup.signature = %s\n",
		 cfg->dedup_signature == MINHASH_OPH ? "oph" : "minhash");
	buf_addf(&b, "warc.prefix = %s\n", d->warc_prefix);
	buf_adds(&b, "# configuration at creation:\n");
	{
		const char *line = cfgtext;

		while (*line) {
			size_t n = strcspn(line, "\n");

			buf_adds(&b, "#   ");
			buf_add(&b, line, n);
			buf_addc(&b, '\n');
			line += n + (line[n] == '\n');
		}
	}
	e = fs_write_atomic(path, b.p, b.len);
	buf_release(&b);
	return e;
}

void layout_make_prefix(int64_t now_us, char *out, size_t cap)
{
	time_t t = (time_t)(now_us / 1000000);
	unsigned char r[3] = { 0 };
	struct tm tm;

	if (getrandom(r, sizeof(r), 0) != (ssize_t)sizeof(r))
		memcpy(r, &now_us, sizeof(r));   /* no entropy: the microseconds */
	gmtime_r(&t, &tm);
	snprintf(out, cap, "mpicrawl-%04d%02d%02d%02d%02d%02d-%02x%02x%02x", tm.tm_year + 1900,
		 tm.tm_mon + 1, tm.tm_mday, tm.tm_hour, tm.tm_min, tm.tm_sec, r[0], r[1], r[2]);
}

void layout_top(const char *root, const char *name, char *out, size_t cap)
{
	snprintf(out, cap, "%s/%s", root, name);
}

void layout_seeds(const struct crawl_dir *d, int version, char *out, size_t cap)
{
	if (version > 0)
		snprintf(out, cap, "%s/seeds/%05d.zst", d->root, version);
	else
		snprintf(out, cap, "%s/seeds", d->root);
}

uint32_t layout_partition(const struct crawl_dir *d, const char *url, size_t len)
{
	char u[URL_MAX_LEN + 1], host[URL_HOST_MAX];
	const char *key = host;

	if (len > URL_MAX_LEN)
		len = URL_MAX_LEN;
	memcpy(u, url, len);
	u[len] = '\0';
	if (url_host(u, host, sizeof(host)) != CR_OK)
		return 0;
	if (d->partition_by == PARTITION_BY_DOMAIN) {
		const char *reg = psl_registrable_domain(psl_builtin(), host);

		if (reg)
			key = reg;
	}
	return (uint32_t)(XXH3_64bits(key, strlen(key)) % d->partitions);
}

int layout_owner(uint32_t p, int nranks)
{
	return (int)(p % (uint32_t)nranks);
}

int layout_owns(uint32_t p, int rank, int nranks)
{
	return layout_owner(p, nranks) == rank;
}

/* No CURRENT: a crawl not begun, or one whose first inject was cut off
 * (its crawldb/00001 uncommitted) - unless a later version or a segment
 * shows that a CURRENT was there: then it was lost, and a crawl started
 * afresh would write over the CrawlDb it named. */
static int last_number(const char *dir);

static enum cr_err current_missing(const struct crawl_dir *d, const char *path)
{
	static int said;
	char dir[PATH_MAX];
	int newest;

	snprintf(dir, sizeof(dir), "%s/crawldb", d->root);
	newest = last_number(dir);
	if (newest < 2 && layout_segment_last(d) == 0)
		return CR_OK;
	if (!said++)
		log_user("damaged crawl directory: '%s' is missing, but CrawlDb versions up to "
			 "%d are there: 'mpicrawl check --dir %s --repair' writes the newest whole "
			 "one's number into it", path, newest, d->root);
	return CR_ERR_FORMAT;
}

enum cr_err layout_crawldb_current(const struct crawl_dir *d, int *version)
{
	char path[PATH_MAX];
	struct buf b;
	char *end;
	long v;

	snprintf(path, sizeof(path), "%s/crawldb/CURRENT", d->root);
	if (!fs_exists(path)) {
		*version = 0;
		return current_missing(d, path);
	}
	buf_init(&b);
	if (fs_read_all(path, 64, &b) != CR_OK) {
		buf_release(&b);
		log_err("layout", "cannot read '%s'", path);
		return CR_ERR_IO;
	}
	v = strtol(buf_cstr(&b), &end, 10);
	if (end == (char *)b.p || (*end && *end != '\n') || v < 1 || v > 99999) {
		buf_release(&b);
		log_err("layout", "damaged file '%s'", path);
		return CR_ERR_FORMAT;
	}
	buf_release(&b);
	*version = (int)v;
	return CR_OK;
}

enum cr_err layout_crawldb_commit(const struct crawl_dir *d, int version)
{
	char path[PATH_MAX], text[32];
	int n = snprintf(text, sizeof(text), "%d\n", version);

	snprintf(path, sizeof(path), "%s/crawldb/CURRENT", d->root);
	return fs_write_atomic(path, text, (size_t)n);
}

void layout_crawldb_dir(const struct crawl_dir *d, int version, char *out, size_t cap)
{
	snprintf(out, cap, "%s/crawldb/%05d", d->root, version);
}

void layout_crawldb_part(const struct crawl_dir *d, int version, uint32_t p,
			 char *out, size_t cap)
{
	snprintf(out, cap, "%s/crawldb/%05d/part-%05u.zst", d->root, version, p);
}

void layout_crawldb_file(const struct crawl_dir *d, int version, const char *name,
			 char *out, size_t cap)
{
	snprintf(out, cap, "%s/crawldb/%05d/%s", d->root, version, name);
}

void layout_crawldb_store_stem(const char *kind, uint32_t p, char *out, size_t cap)
{
	snprintf(out, cap, "%s-%05u", kind, p);
}

void layout_crawldb_store(const struct crawl_dir *d, int version, const char *kind,
			  uint32_t p, char *out, size_t cap)
{
	snprintf(out, cap, "%s/crawldb/%05d/%s-%05u.zst", d->root, version, kind, p);
}

void layout_crawldb_run(const struct crawl_dir *d, int version, const char *kind,
			uint32_t p, uint32_t seg, char *out, size_t cap)
{
	snprintf(out, cap, "%s/crawldb/%05d/%s-%05u.%05u.zst", d->root, version, kind, p, seg);
}

void layout_crawldb_runs(const struct crawl_dir *d, int version, const char *kind,
			 uint32_t p, char *out, size_t cap)
{
	snprintf(out, cap, "%s/crawldb/%05d/%s-%05u.runs", d->root, version, kind, p);
}

void layout_seen_part(const struct crawl_dir *d, int version, uint32_t p,
		      char *out, size_t cap)
{
	snprintf(out, cap, "%s/crawldb/%05d/seen-%05u.bloom", d->root, version, p);
}

static int last_number(const char *dir)
{
	DIR *dh = opendir(dir);
	struct dirent *de;
	int best = 0;

	if (!dh)
		return 0;
	while ((de = readdir(dh)) != NULL) {
		char *end;
		long v = strtol(de->d_name, &end, 10);

		if (end != de->d_name && !*end && strlen(de->d_name) == 5 && v > best)
			best = (int)v;
	}
	closedir(dh);
	return best;
}

int layout_segment_last(const struct crawl_dir *d)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/segments", d->root);
	return last_number(dir);
}

void layout_segment_dir(const struct crawl_dir *d, int seg, char *out, size_t cap)
{
	snprintf(out, cap, "%s/segments/%05d", d->root, seg);
}

void layout_segment_part(const struct crawl_dir *d, int seg, const char *kind,
			 uint32_t p, char *out, size_t cap)
{
	snprintf(out, cap, "%s/segments/%05d/%s/part-%05u.zst", d->root, seg, kind, p);
}

void layout_segment_sub(const struct crawl_dir *d, int seg, const char *name,
			char *out, size_t cap)
{
	snprintf(out, cap, "%s/segments/%05d/%s", d->root, seg, name);
}

void layout_segment_file(const struct crawl_dir *d, int seg, const char *sub,
			 const char *name, char *out, size_t cap)
{
	snprintf(out, cap, "%s/segments/%05d/%s/%s", d->root, seg, sub, name);
}

void layout_journal(const struct crawl_dir *d, int seg, uint32_t p, char *out, size_t cap)
{
	snprintf(out, cap, "%s/segments/%05d/fetch/part-%05u.journal", d->root, seg, p);
}

void layout_warc_prefix(const struct crawl_dir *d, int seg, int rank, int attempt,
			char *out, size_t cap)
{
	if (attempt > 0)
		snprintf(out, cap, "%s-%05d-r%04d-a%d", d->warc_prefix, seg, rank, attempt);
	else
		snprintf(out, cap, "%s-%05d-r%04d", d->warc_prefix, seg, rank);
}

void layout_warc_part_prefix(const struct crawl_dir *d, int seg, uint32_t p, char *out,
			     size_t cap)
{
	snprintf(out, cap, "%s-%05d-%05u", d->warc_prefix, seg, p);
}

int layout_warc_unit(const struct crawl_dir *d, const char *name, int seg, uint32_t *unit,
		     int *by_rank, int *attempt)
{
	char pre[LAYOUT_PREFIX_MAX + 16];
	const char *s, *x;
	char *end;
	unsigned long v;
	size_t n = strlen(name);

	snprintf(pre, sizeof(pre), "%s-%05d-", d->warc_prefix, seg);
	if (strncmp(name, pre, strlen(pre)) ||
	    !((n > 8 && !strcmp(name + n - 8, ".warc.gz")) ||
	      (n > 9 && !strcmp(name + n - 9, ".warc.zst"))))
		return 0;
	s = name + strlen(pre);
	*by_rank = *s == 'r';
	x = s + *by_rank;
	if (*x < '0' || *x > '9')
		return 0;
	v = strtoul(x, &end, 10);
	if (v > UINT32_MAX || (*end != '-' && *end != '.'))
		return 0;
	*unit = (uint32_t)v;
	*attempt = 0;
	/* -aK after a rank, -rK after a partition */
	if (end[0] == '-' && end[1] == (*by_rank ? 'a' : 'r') && end[2] >= '0' && end[2] <= '9') {
		long k = strtol(end + 2, &end, 10);

		if (*end != '-' && *end != '.')
			return 0;
		*attempt = (int)k;
	}
	return 1;
}

void layout_warc_marks(const struct crawl_dir *d, int seg, int rank, int attempt,
		       char *out, size_t cap)
{
	snprintf(out, cap, "%s/segments/%05d/fetch/marks-r%04d-a%d.journal", d->root, seg, rank,
		 attempt);
}

void layout_progress(const struct crawl_dir *d, int seg, int rank, char *out, size_t cap)
{
	snprintf(out, cap, "%s/segments/%05d/progress/r%04d", d->root, seg, rank);
}

int layout_phase_done(const struct crawl_dir *d, int seg, const char *phase)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/segments/%05d/_SUCCESS.%s", d->root, seg, phase);
	return fs_exists(path);
}

enum cr_err layout_phase_mark(const struct crawl_dir *d, int seg, const char *phase,
			      const char *json)
{
	char path[PATH_MAX];

	snprintf(path, sizeof(path), "%s/segments/%05d/_SUCCESS.%s", d->root, seg, phase);
	return fs_write_atomic(path, json, strlen(json));
}

int layout_robots_last(const struct crawl_dir *d)
{
	char dir[PATH_MAX];

	snprintf(dir, sizeof(dir), "%s/robots", d->root);
	return last_number(dir);
}

void layout_robots_part(const struct crawl_dir *d, int version, uint32_t p,
			char *out, size_t cap)
{
	snprintf(out, cap, "%s/robots/%05d/part-%05u.zst", d->root, version, p);
}

void layout_robots_early(const struct crawl_dir *d, int version, uint32_t p,
			 char *out, size_t cap)
{
	snprintf(out, cap, "%s/robots/%05d/early-%05u.zst", d->root, version, p);
}

void layout_robots_dir(const struct crawl_dir *d, int version, char *out, size_t cap)
{
	snprintf(out, cap, "%s/robots/%05d", d->root, version);
}

void layout_tmp(const struct crawl_dir *d, int rank, char *out, size_t cap)
{
	snprintf(out, cap, "%s/tmp/r%04d", d->root, rank);
}
