#include "crawldb/job.h"
#include "util/fs.h"
#include "util/log.h"

#include <dirent.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>

enum cr_err job_tmpdir(struct job *j)
{
	enum cr_err e;

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
