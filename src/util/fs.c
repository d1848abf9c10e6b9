#include "util/fs.h"
#include "util/log.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

enum cr_err fs_mkdirs(const char *path)
{
	char tmp[PATH_MAX];
	size_t n = strlen(path);
	size_t i;

	if (n == 0 || n >= sizeof(tmp))
		return CR_ERR_ARG;
	memcpy(tmp, path, n + 1);
	for (i = 1; i <= n; i++) {
		if (tmp[i] != '/' && tmp[i] != '\0')
			continue;
		tmp[i] = '\0';
		if (mkdir(tmp, 0777) != 0 && errno != EEXIST) {
			log_err("fs", "cannot create directory '%s': %s", tmp,
				strerror(errno));
			return CR_ERR_IO;
		}
		if (i < n)
			tmp[i] = '/';
	}
	return CR_OK;
}

ssize_t fs_getline_max(char **line, size_t *cap, size_t max, FILE *fp)
{
	size_t n = 0;
	int c;

	for (;;) {
		if (n + 2 > *cap) {
			size_t want = *cap ? *cap * 2 : 256;
			char *p = realloc(*line, want);

			if (!p)
				return -1;
			*line = p;
			*cap = want;
		}
		if (n == max) {
			(*line)[n] = '\0';
			return FS_LINE_TOO_LONG;
		}
		if ((c = getc(fp)) == EOF)
			break;
		(*line)[n++] = (char)c;
		if (c == '\n')
			break;
	}
	if (n == 0)
		return -1;   /* the end, or an error (ferror tells) */
	(*line)[n] = '\0';
	return (ssize_t)n;
}

void fs_skip_line(FILE *fp)
{
	int c;

	while ((c = getc(fp)) != EOF && c != '\n')
		;
}

int fs_not_regular(const char *path)
{
	struct stat st;

	if (stat(path, &st) != 0 || S_ISREG(st.st_mode))
		return 0;
	log_user("'%s' exists and is not a regular file: it is not replaced", path);
	return 1;
}

void fs_sync_dir(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY);

	if (fd < 0)
		return;
	(void)fsync(fd);
	close(fd);
}

/* Makes a rename into path's directory durable. */
static void sync_parent(const char *path)
{
	char dir[PATH_MAX], *slash;

	snprintf(dir, sizeof(dir), "%s", path);
	slash = strrchr(dir, '/');
	if (slash) {
		*slash = '\0';
		fs_sync_dir(dir[0] ? dir : "/");
	}
}

static enum cr_err write_renamed(const char *path, const void *data, size_t n, int durable)
{
	char tmp[PATH_MAX];
	const char *p = data;
	int fd;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid()) >=
	    (int)sizeof(tmp))
		return CR_ERR_ARG;
	if (fs_not_regular(path))
		return CR_ERR_ARG;
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0) {
		log_err("fs", "cannot create '%s': %s", tmp, strerror(errno));
		return CR_ERR_IO;
	}
	while (n > 0) {
		ssize_t w = write(fd, p, n);

		if (w < 0 && errno == EINTR)
			continue;
		if (w <= 0) {
			log_err("fs", "cannot write '%s': %s", tmp, strerror(errno));
			close(fd);
			unlink(tmp);
			return CR_ERR_IO;
		}
		p += w;
		n -= (size_t)w;
	}
	if ((durable && fsync(fd) != 0) || close(fd) != 0) {
		log_err("fs", "cannot sync '%s': %s", tmp, strerror(errno));
		unlink(tmp);
		return CR_ERR_IO;
	}
	if (rename(tmp, path) != 0) {
		log_err("fs", "cannot rename '%s': %s", tmp, strerror(errno));
		unlink(tmp);
		return CR_ERR_IO;
	}
	if (durable)
		sync_parent(path);
	return CR_OK;
}

enum cr_err fs_write_atomic(const char *path, const void *data, size_t n)
{
	return write_renamed(path, data, n, 1);
}

enum cr_err fs_write_replace(const char *path, const void *data, size_t n)
{
	return write_renamed(path, data, n, 0);
}

enum cr_err fs_read_all(const char *path, size_t max, struct buf *out)
{
	char chunk[65536];
	size_t total = 0;
	struct stat st;
	/* Non-blocking, so that a FIFO with no writer does not hold us. */
	int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);

	if (fd < 0)
		return CR_ERR_IO;
	if (fstat(fd, &st) == 0 && (S_ISFIFO(st.st_mode) || S_ISSOCK(st.st_mode))) {
		close(fd);
		errno = EINVAL;   /* a file is read whole, maybe twice: not a pipe */
		return CR_ERR_IO;
	}
	fcntl(fd, F_SETFL, fcntl(fd, F_GETFL) & ~O_NONBLOCK);
	for (;;) {
		ssize_t r = read(fd, chunk, sizeof(chunk));

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			close(fd);
			return CR_ERR_IO;
		}
		if (r == 0)
			break;
		total += (size_t)r;
		if (total > max) {
			close(fd);
			return CR_ERR_LIMIT;
		}
		buf_add(out, chunk, (size_t)r);
	}
	close(fd);
	return CR_OK;
}

int fs_exists(const char *path)
{
	struct stat st;

	return stat(path, &st) == 0;
}

enum cr_err fs_remove_tree(const char *path)
{
	struct stat st;
	DIR *d;
	struct dirent *de;
	enum cr_err e = CR_OK;

	if (lstat(path, &st) != 0)
		return errno == ENOENT ? CR_OK : CR_ERR_IO;
	if (!S_ISDIR(st.st_mode))
		return unlink(path) == 0 ? CR_OK : CR_ERR_IO;
	d = opendir(path);
	if (!d)
		return CR_ERR_IO;
	while ((de = readdir(d)) != NULL) {
		char sub[PATH_MAX];

		if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, ".."))
			continue;
		if (snprintf(sub, sizeof(sub), "%s/%s", path, de->d_name) >=
		    (int)sizeof(sub)) {
			e = CR_ERR_ARG;
			continue;
		}
		if (fs_remove_tree(sub) != CR_OK)
			e = CR_ERR_IO;
	}
	closedir(d);
	if (rmdir(path) != 0)
		e = CR_ERR_IO;
	return e;
}

/* Copies the open file in to the open file out, 64 KiB at a time. */
static enum cr_err copy_fd(int in, int out)
{
	char chunk[65536];

	for (;;) {
		ssize_t r = read(in, chunk, sizeof(chunk)), off = 0;

		if (r < 0 && errno == EINTR)
			continue;
		if (r <= 0)
			return r < 0 ? CR_ERR_IO : CR_OK;
		while (off < r) {
			ssize_t w = write(out, chunk + off, (size_t)(r - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w == 0)
				errno = ENOSPC;
			if (w <= 0)
				return CR_ERR_IO;
			off += w;
		}
	}
}

enum cr_err fs_copy_atomic(const char *src, const char *dst)
{
	char tmp[PATH_MAX];
	int in, out, err = 0;
	enum cr_err e;

	if (snprintf(tmp, sizeof(tmp), "%s.tmp.%d", dst, (int)getpid()) >= (int)sizeof(tmp))
		return CR_ERR_ARG;
	in = open(src, O_RDONLY | O_CLOEXEC);
	if (in < 0) {
		log_err("fs", "cannot read '%s': %s", src, strerror(errno));
		return CR_ERR_IO;
	}
	out = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (out < 0) {
		log_err("fs", "cannot create '%s': %s", tmp, strerror(errno));
		close(in);
		return CR_ERR_IO;
	}
	e = copy_fd(in, out);
	if (e)
		err = errno ? errno : EIO;
	close(in);
	if (!e && fsync(out) != 0) {
		e = CR_ERR_IO;
		err = errno;
	}
	if (close(out) != 0 && !e) {
		e = CR_ERR_IO;
		err = errno;
	}
	if (!e && rename(tmp, dst) != 0) {
		e = CR_ERR_IO;
		err = errno;
	}
	if (e) {
		log_err("fs", "cannot copy '%s' to '%s': %s", src, dst, strerror(err));
		unlink(tmp);
		return e;
	}
	sync_parent(dst);
	return CR_OK;
}

enum cr_err fs_link_or_copy(const char *src, const char *dst)
{
	if (link(src, dst) == 0)
		return CR_OK;
	if (errno != EXDEV && errno != EPERM && errno != EMLINK)
		return CR_ERR_IO;
	return fs_copy_atomic(src, dst);
}

static int cmp_names(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

char **fs_list(const char *dir, const char *prefix, const char *suffix, size_t *n)
{
	DIR *d = opendir(dir);
	struct dirent *de;
	char **v = NULL;
	size_t cap = 0, pl = strlen(prefix), sl = strlen(suffix);

	*n = 0;
	while (d && (de = readdir(d)) != NULL) {
		size_t l = strlen(de->d_name);

		if (de->d_name[0] == '.' || l < pl + sl || strncmp(de->d_name, prefix, pl) ||
		    strcmp(de->d_name + l - sl, suffix) || strstr(de->d_name, ".tmp"))
			continue;
		if (*n == cap && !(v = realloc(v, (cap = cap ? 2 * cap : 32) * sizeof(*v))))
			abort();
		if (!(v[(*n)++] = strdup(de->d_name)))
			abort();
	}
	if (d)
		closedir(d);
	if (*n)
		qsort(v, *n, sizeof(*v), cmp_names);
	return v;
}

void fs_list_free(char **v, size_t n)
{
	while (n)
		free(v[--n]);
	free(v);
}

ssize_t fs_pread(int fd, void *p, size_t n, uint64_t off)
{
	ssize_t r;

	do
		r = pread(fd, p, n, (off_t)off);
	while (r < 0 && errno == EINTR);
	return r;
}
