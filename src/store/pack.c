/*
 * pack.c - many record files of a folder in one (pack.h).
 */
#include "store/pack.h"

#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <xxhash.h>

#include "util/buf.h"
#include "util/fs.h"
#include "util/log.h"

#define PACK_MAGIC "MPCRPAK1"
#define PACK_TRAILER 32
#define PACK_ENTRY 24
/* zstd's first skippable frame magic */
#define PACK_SKIPPABLE 0x184D2A50u
/* More members than partitions can be (2^20) is a damaged index. */
#define PACK_MEMBERS_MAX (1u << 20)

struct entry {
	uint32_t id;
	uint64_t off, len;
};

/* The stamp, rank and rank count of a pack of stem named name: 1, or 0 when
 * name is not one. */
static int pack_name(const char *name, const char *stem, uint64_t *stamp, int *rank,
		     int *nranks)
{
	size_t sl = strlen(stem);
	unsigned long long t;
	int r, n, end = 0;

	if (strncmp(name, stem, sl) != 0 || name[sl] != '.')
		return 0;
	if (sscanf(name + sl + 1, "%16llx-r%d-n%d.pack%n", &t, &r, &n, &end) != 3 ||
	    name[sl + 1 + (size_t)end] != '\0' || n < 1 || r < 0 || r >= n)
		return 0;
	*stamp = t;
	*rank = r;
	*nranks = n;
	return 1;
}

int pack_member_name(const char *path, char *dir, size_t dcap, char *stem, size_t scap,
		     uint32_t *id, const char **suffix)
{
	const char *slash = strrchr(path, '/'), *base = slash ? slash + 1 : path;
	const char *dash = strrchr(base, '-');
	unsigned long v;
	char *end;

	if (!dash || dash == base || dash[1] < '0' || dash[1] > '9')
		return 0;
	errno = 0;
	v = strtoul(dash + 1, &end, 10);
	if (errno || v > UINT32_MAX ||
	    (strcmp(end, ".zst") != 0 && strcmp(end, ".jsonl.zst") != 0) ||
	    (size_t)(dash - base) >= scap || (size_t)(base - path) >= dcap)
		return 0;
	if (slash)
		snprintf(dir, dcap, "%.*s", (int)(slash - path), path);
	else
		snprintf(dir, dcap, ".");
	snprintf(stem, scap, "%.*s", (int)(dash - base), base);
	*id = (uint32_t)v;
	if (suffix)
		*suffix = end;
	return 1;
}

/* Reads the index of the pack at path into *out (*n entries, malloc'd). */
static enum cr_err read_index(const char *path, struct entry **out, size_t *n,
			      const char **why)
{
	unsigned char tr[PACK_TRAILER], *raw = NULL;
	struct entry *v = NULL;
	struct stat st;
	uint64_t count, ioff, sum, i;
	int fd = open(path, O_RDONLY | O_CLOEXEC);

	*why = "missing";
	if (fd < 0)
		return CR_ERR_IO;
	*why = "no trailer";
	if (fstat(fd, &st) != 0 || st.st_size < PACK_TRAILER ||
	    fs_pread(fd, tr, PACK_TRAILER, (uint64_t)st.st_size - PACK_TRAILER) != PACK_TRAILER ||
	    memcmp(tr, PACK_MAGIC, 8) != 0)
		goto bad;
	count = buf_load_u64le(tr + 8);
	ioff = buf_load_u64le(tr + 16);
	sum = buf_load_u64le(tr + 24);
	*why = "bad index";
	if (count > PACK_MEMBERS_MAX || ioff < 8 ||
	    ioff + count * PACK_ENTRY + PACK_TRAILER != (uint64_t)st.st_size)
		goto bad;
	raw = malloc(count * PACK_ENTRY + 1);
	v = malloc((count ? count : 1) * sizeof(*v));
	if (!raw || !v) {
		free(raw);
		free(v);
		close(fd);
		return CR_ERR_NOMEM;
	}
	if (fs_pread(fd, raw, count * PACK_ENTRY, ioff) != (ssize_t)(count * PACK_ENTRY) ||
	    XXH64(raw, count * PACK_ENTRY, 0) != sum)
		goto bad;
	for (i = 0; i < count; i++) {
		const unsigned char *e = raw + i * PACK_ENTRY;

		v[i].id = buf_load_u32le(e);
		v[i].off = buf_load_u64le(e + 8);
		v[i].len = buf_load_u64le(e + 16);
		if (buf_load_u32le(e + 4) != 0 || v[i].off + v[i].len > ioff - 8 ||
		    v[i].off + v[i].len < v[i].off ||
		    (i && v[i].id <= v[i - 1].id))
			goto bad;
	}
	free(raw);
	close(fd);
	*out = v;
	*n = (size_t)count;
	*why = NULL;
	return CR_OK;
bad:
	free(raw);
	free(v);
	close(fd);
	return CR_ERR_FORMAT;
}

enum cr_err pack_probe(const char *path, const char **why)
{
	struct entry *v = NULL;
	size_t n = 0;
	enum cr_err e = read_index(path, &v, &n, why);

	free(v);
	return e;
}

static const struct entry *lookup(const struct entry *v, size_t n, uint32_t id)
{
	size_t lo = 0, hi = n;

	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;

		if (v[mid].id == id)
			return &v[mid];
		if (v[mid].id < id)
			lo = mid + 1;
		else
			hi = mid;
	}
	return NULL;
}

enum cr_err pack_find(const char *dir, const char *stem, uint32_t id, struct pack_member *m)
{
	char prefix[256];
	size_t n, i;
	char **names;
	enum cr_err e = CR_EOF;

	snprintf(prefix, sizeof(prefix), "%s.", stem);
	names = fs_list(dir, prefix, ".pack", &n);
	/* Stamps are fixed-width: the last name is the newest pack. */
	for (i = n; i-- > 0 && e == CR_EOF;) {
		uint64_t stamp;
		int r, nr;
		struct entry *v = NULL;
		const struct entry *hit;
		size_t cnt = 0;
		const char *why;

		if (!pack_name(names[i], stem, &stamp, &r, &nr) || id % (uint32_t)nr != (uint32_t)r)
			continue;
		snprintf(m->path, sizeof(m->path), "%s/%s", dir, names[i]);
		e = read_index(m->path, &v, &cnt, &why);
		if (e == CR_ERR_FORMAT)
			log_err("store", "damaged pack '%s': %s", m->path, why);
		if (e == CR_ERR_IO && errno == ENOENT)
			e = CR_EOF;   /* pruned while we looked */
		if (e)
			continue;
		hit = lookup(v, cnt, id);
		if (hit) {
			m->off = hit->off;
			m->len = hit->len;
		} else {
			e = CR_EOF;
		}
		free(v);
	}
	fs_list_free(names, n);
	return e;
}

/* Appends the file at path to fd; *len gets its size. */
static enum cr_err copy_in(int fd, const char *path, uint64_t *len)
{
	char chunk[1 << 16];
	int in = open(path, O_RDONLY | O_CLOEXEC);
	enum cr_err e = CR_OK;
	ssize_t r;

	*len = 0;
	if (in < 0) {
		log_err("store", "cannot read '%s': %s", path, strerror(errno));
		return CR_ERR_IO;
	}
	while (!e && (r = read(in, chunk, sizeof(chunk))) != 0) {
		ssize_t off = 0;

		if (r < 0 && errno == EINTR)
			continue;
		if (r < 0) {
			log_err("store", "cannot read '%s': %s", path, strerror(errno));
			e = CR_ERR_IO;
			break;
		}
		while (!e && off < r) {
			ssize_t w = write(fd, chunk + off, (size_t)(r - off));

			if (w < 0 && errno == EINTR)
				continue;
			if (w <= 0)
				e = CR_ERR_IO;
			else
				off += w;
		}
		*len += (uint64_t)r;
	}
	close(in);
	return e;
}

/* Writes the index and trailer of v to fd. */
static enum cr_err write_index(int fd, const struct entry *v, size_t n, uint64_t ioff)
{
	struct buf b, hdr;
	size_t i;
	uint64_t sum;
	enum cr_err e = CR_OK;

	buf_init(&b);
	buf_init(&hdr);
	for (i = 0; i < n; i++) {
		buf_put_u32le(&b, v[i].id);
		buf_put_u32le(&b, 0);
		buf_put_u64le(&b, v[i].off);
		buf_put_u64le(&b, v[i].len);
	}
	sum = XXH64(b.p, b.len, 0);
	/* The index and trailer in a zstd skippable frame: a pack of
	 * zstd streams (decision logs) is itself one that zstdcat reads. */
	buf_put_u32le(&hdr, PACK_SKIPPABLE);
	buf_put_u32le(&hdr, (uint32_t)(b.len + PACK_TRAILER));
	if (write(fd, hdr.p, hdr.len) != (ssize_t)hdr.len)
		e = CR_ERR_IO;
	buf_add(&b, PACK_MAGIC, 8);
	buf_put_u64le(&b, n);
	buf_put_u64le(&b, ioff);
	buf_put_u64le(&b, sum);
	if (!e && write(fd, b.p, b.len) != (ssize_t)b.len)
		e = CR_ERR_IO;
	buf_release(&b);
	buf_release(&hdr);
	return e;
}

/* The loose members of stem in dir that rank gathers, by id: *n of them. */
static struct entry *owned_loose(const char *dir, const char *stem, const char *suffix,
				 int rank, int nranks, size_t *n)
{
	char prefix[256], path[PATH_MAX + 256], d[8], s[256];
	size_t cnt, i;
	char **names;
	struct entry *v;

	snprintf(prefix, sizeof(prefix), "%s-", stem);
	names = fs_list(dir, prefix, suffix, &cnt);
	v = calloc(cnt ? cnt : 1, sizeof(*v));
	*n = 0;
	for (i = 0; v && i < cnt; i++) {
		const char *suf;
		uint32_t id;

		snprintf(path, sizeof(path), "x/%s", names[i]);
		if (pack_member_name(path, d, sizeof(d), s, sizeof(s), &id, &suf) &&
		    strcmp(s, stem) == 0 && strcmp(suf, suffix) == 0 &&
		    id % (uint32_t)nranks == (uint32_t)rank)
			v[(*n)++].id = id;
	}
	fs_list_free(names, cnt);
	return v;
}

static int by_id(const void *a, const void *b)
{
	const struct entry *x = a, *y = b;

	return x->id < y->id ? -1 : x->id > y->id;
}

/* Writes the members v of stem in dir into the open fd; offsets set. */
static enum cr_err fill(int fd, const char *dir, const char *stem, const char *suffix,
			struct entry *v, size_t n, uint64_t *end)
{
	char path[PATH_MAX + 256];
	enum cr_err e = CR_OK;
	size_t i;

	*end = 0;
	for (i = 0; !e && i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s-%05" PRIu32 "%s", dir, stem, v[i].id, suffix);
		v[i].off = *end;
		e = copy_in(fd, path, &v[i].len);
		*end += v[i].len;
	}
	return e;
}

enum cr_err pack_gather(const char *dir, const char *stem, const char *suffix, int rank,
			int nranks, int64_t now_us, unsigned *n_out)
{
	char path[PATH_MAX + 256], tmp[PATH_MAX + 300];
	struct entry *v;
	size_t n, i;
	uint64_t end = 0;
	enum cr_err e;
	int fd;

	if (n_out)
		*n_out = 0;
	v = owned_loose(dir, stem, suffix, rank, nranks, &n);
	if (!v)
		return CR_ERR_NOMEM;
	if (n == 0) {
		free(v);
		return CR_OK;
	}
	qsort(v, n, sizeof(*v), by_id);
	snprintf(path, sizeof(path), "%s/%s.%016" PRIx64 "-r%04d-n%04d.pack", dir, stem,
		 (uint64_t)now_us, rank, nranks);
	snprintf(tmp, sizeof(tmp), "%s.tmp.%ld", path, (long)getpid());
	fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0666);
	if (fd < 0) {
		log_err("store", "cannot write '%s': %s", tmp, strerror(errno));
		free(v);
		return CR_ERR_IO;
	}
	e = fill(fd, dir, stem, suffix, v, n, &end);
	if (!e)
		e = write_index(fd, v, n, end + 8);
	if (!e && fsync(fd) != 0)
		e = CR_ERR_IO;
	if (close(fd) != 0 && !e)
		e = CR_ERR_IO;
	if (!e && rename(tmp, path) != 0)
		e = CR_ERR_IO;
	if (e) {
		log_err("store", "cannot write the pack '%s'", path);
		unlink(tmp);
		free(v);
		return e;
	}
	fs_sync_dir(dir);
	for (i = 0; i < n; i++) {
		snprintf(path, sizeof(path), "%s/%s-%05" PRIu32 "%s", dir, stem, v[i].id, suffix);
		if (unlink(path) != 0 && errno != ENOENT)
			log_warn("store", "cannot remove '%s': %s", path, strerror(errno));
	}
	if (n_out)
		*n_out = (unsigned)n;
	free(v);
	return CR_OK;
}

/* 1 if a pack after the first `from` of names, or a loose file, holds id. */
static int superseded(const char *dir, const char *stem, const char *suffix, uint32_t id,
		      struct entry **idx, const size_t *cnt, size_t from, size_t n)
{
	char path[PATH_MAX + 256];
	size_t k;

	for (k = from; k < n; k++)
		if (idx[k] && lookup(idx[k], cnt[k], id))
			return 1;
	snprintf(path, sizeof(path), "%s/%s-%05" PRIu32 "%s", dir, stem, id, suffix);
	return fs_exists(path);
}

enum cr_err pack_prune(const char *dir, const char *stem, const char *suffix)
{
	char prefix[256], path[PATH_MAX + 256];
	size_t n, i, k, *cnt;
	char **names;
	struct entry **idx;
	enum cr_err e = CR_OK;

	snprintf(prefix, sizeof(prefix), "%s.", stem);
	names = fs_list(dir, prefix, ".pack", &n);
	idx = calloc(n ? n : 1, sizeof(*idx));
	cnt = calloc(n ? n : 1, sizeof(*cnt));
	if (!idx || !cnt)
		e = CR_ERR_NOMEM;
	for (i = 0; !e && i < n; i++) {
		uint64_t t;
		int r, nr;
		const char *why;

		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (pack_name(names[i], stem, &t, &r, &nr) &&
		    read_index(path, &idx[i], &cnt[i], &why) != CR_OK)
			idx[i] = NULL;   /* unread: never removed, never trusted */
	}
	for (i = 0; !e && i < n; i++) {
		int dead = idx[i] != NULL;

		for (k = 0; dead && k < cnt[i]; k++)
			dead = superseded(dir, stem, suffix, idx[i][k].id, idx, cnt, i + 1, n);
		snprintf(path, sizeof(path), "%s/%s", dir, names[i]);
		if (dead && unlink(path) != 0 && errno != ENOENT) {
			log_err("store", "cannot remove '%s': %s", path, strerror(errno));
			e = CR_ERR_IO;
		}
		if (dead) {
			free(idx[i]);
			idx[i] = NULL;
		}
	}
	for (i = 0; idx && i < n; i++)
		free(idx[i]);
	free(idx);
	free(cnt);
	fs_list_free(names, n);
	return e;
}
