#include "crawldb/job.h"
#include "util/fs.h"
#include "util/log.h"

#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <xxhash.h>

/* Node-local scratch as the job's settings or the node say it ("": none). */
static const char *scratch_base(const struct config *c)
{
	const char *v = c->tmp_dir[0] ? c->tmp_dir : getenv("SLURM_TMPDIR");

	if (!v || !*v)
		v = getenv("TMPDIR");
	return v && *v ? v : "";
}

/* BASE/mpicrawl-HASH/rNNNN: HASH of the crawl directory's real path, so
 * that two crawls on one node never share a folder. */
static enum cr_err node_scratch(struct job *j, const char *base)
{
	char real[PATH_MAX];
	const char *root = realpath(j->dir.root, real) ? real : j->dir.root;
	unsigned long long h = (unsigned long long)XXH3_64bits(root, strlen(root));
	int n = snprintf(j->tmpdir, sizeof(j->tmpdir), "%s/mpicrawl-%016llx/r%04d", base, h,
			 j->rank);
	enum cr_err e;

	if (n < 0 || (size_t)n >= sizeof(j->tmpdir)) {
		log_err("job", "scratch directory name too long under '%s'", base);
		return CR_ERR_ARG;
	}
	e = fs_remove_tree(j->tmpdir);   /* an earlier job's, killed */
	if (!e)
		e = fs_mkdirs(j->tmpdir);
	if (e)
		log_err("job", "cannot make scratch directory '%s': %s", j->tmpdir,
			strerror(errno));
	return e;
}

void job_tmpdir_remove(const char *tmpdir)
{
	char parent[PATH_MAX];
	char *slash;

	if (!tmpdir[0] || fs_remove_tree(tmpdir) != CR_OK)
		return;
	snprintf(parent, sizeof(parent), "%s", tmpdir);
	slash = strrchr(parent, '/');
	if (slash && !strncmp(slash + 1, "r", 1)) {
		*slash = '\0';
		rmdir(parent);   /* the crawl's folder, once no rank's is in it */
	}
}

enum cr_err job_tmpdir(struct job *j)
{
	const char *base = scratch_base(&j->cfg);
	enum cr_err e;

	if (*base)
		return node_scratch(j, base);
	layout_tmp(&j->dir, j->rank, j->tmpdir, sizeof(j->tmpdir));
	e = fs_remove_tree(j->tmpdir);
	if (e)
		return e;
	if (j->rank == 0) {
		/* A job before this one may have had more ranks: their
		 * scratch is nobody's now. */
		char dir[PATH_MAX], path[PATH_MAX + 300];
		DIR *d;
		struct dirent *de;

		layout_top(j->dir.root, "tmp", dir, sizeof(dir));
		d = opendir(dir);
		while (d && (de = readdir(d)) != NULL) {
			char *end;
			long r;

			if (de->d_name[0] != 'r')
				continue;
			r = strtol(de->d_name + 1, &end, 10);
			if (*end || end == de->d_name + 1 || r < j->nranks)
				continue;
			snprintf(path, sizeof(path), "%s/%s", dir, de->d_name);
			if (fs_remove_tree(path) != CR_OK)
				log_warn("job", "cannot remove old scratch '%s'", path);
		}
		if (d)
			closedir(d);
	}
	return fs_mkdirs(j->tmpdir);
}

int64_t job_round_span_ms(const struct job *j)
{
	int64_t limit = (int64_t)j->cfg.time_limit_s * 1000;

	if (limit > 0 && (j->round_ms <= 0 || limit < j->round_ms))
		return limit;
	return j->round_ms > 0 ? j->round_ms : 0;
}
