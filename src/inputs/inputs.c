/*
 * inputs.c - the registry of the user's files; see inputs.h.
 */
#include "inputs/inputs.h"
#include "util/fs.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* What a packed registry starts with; its version follows. */
static const char inputs_magic[4] = { 'M', 'C', 'I', 'N' };
#define INPUTS_VERSION 1

void inputs_init(struct inputs *in, const char *node)
{
	memset(in, 0, sizeof(*in));
	snprintf(in->node, sizeof(in->node), "%s", node ? node : "");
}

static void file_release(struct inputs_file *f)
{
	free(f->path);
	buf_release(&f->bytes);
}

void inputs_release(struct inputs *in)
{
	size_t i;

	for (i = 0; i < in->n; i++)
		file_release(&in->v[i]);
	free(in->v);
	in->v = NULL;
	in->n = in->cap = 0;
}

const struct inputs_file *inputs_find(const struct inputs *in, const char *path)
{
	size_t i;

	for (i = 0; i < in->n; i++)
		if (!strcmp(in->v[i].path, path))
			return &in->v[i];
	return NULL;
}

void inputs_put(struct inputs *in, const char *path, const void *p, size_t n, int err)
{
	struct inputs_file *f = (struct inputs_file *)inputs_find(in, path);

	if (f) {
		buf_reset(&f->bytes);
	} else {
		/* A handful of files: a list, grown as the buffers grow
		 * (an allocation failure ends the process, as buf.h's do). */
		if (in->n == in->cap) {
			size_t cap = in->cap ? in->cap * 2 : 8;
			struct inputs_file *v = realloc(in->v, cap * sizeof(*v));

			if (!v)
				abort();
			in->v = v;
			in->cap = cap;
		}
		f = &in->v[in->n++];
		buf_init(&f->bytes);
		f->path = strdup(path);
		if (!f->path)
			abort();
	}
	f->err = err;
	if (!err)
		buf_add(&f->bytes, p, n);
}

void inputs_load(struct inputs *in, const char *path)
{
	struct buf b;
	enum cr_err e;

	buf_init(&b);
	errno = 0;
	e = fs_read_all(path, INPUTS_FILE_MAX, &b);
	if (e == CR_ERR_LIMIT)
		inputs_put(in, path, NULL, 0, EFBIG);
	else if (e)
		inputs_put(in, path, NULL, 0, errno ? errno : EIO);
	else
		inputs_put(in, path, b.p, b.len, 0);
	buf_release(&b);
}

/*
 * The packed registry:
 *   "MCIN" version(1) node(str) count(varint)
 *   count x { path(str) err(varint) bytes(str) }
 * str: a varint length, then the bytes (buf_put_str).
 */
void inputs_pack(const struct inputs *in, const char *only, struct buf *out)
{
	size_t i, count = 0;

	for (i = 0; i < in->n; i++)
		count += !only || !strcmp(in->v[i].path, only);
	buf_add(out, inputs_magic, sizeof(inputs_magic));
	buf_put_u8(out, INPUTS_VERSION);
	buf_put_str(out, in->node, strlen(in->node));
	buf_put_varint(out, count);
	for (i = 0; i < in->n; i++) {
		const struct inputs_file *f = &in->v[i];

		if (only && strcmp(f->path, only))
			continue;
		buf_put_str(out, f->path, strlen(f->path));
		buf_put_varint(out, (uint64_t)f->err);
		buf_put_str(out, (const char *)f->bytes.p, f->bytes.len);
	}
}

/* One packed entry into tmp; CR_ERR_FORMAT for bad bytes. */
static enum cr_err unpack_file(struct buf_reader *rd, struct inputs *tmp)
{
	const char *path, *bytes;
	size_t plen, blen;
	uint64_t err;
	char *name;

	if (buf_get_str(rd, &path, &plen) || buf_get_varint(rd, &err) ||
	    buf_get_str(rd, &bytes, &blen) || plen == 0 || memchr(path, '\0', plen) ||
	    err > INT32_MAX || (err && blen) || blen > INPUTS_FILE_MAX)
		return CR_ERR_FORMAT;
	name = strndup(path, plen);
	if (!name)
		abort();
	inputs_put(tmp, name, bytes, blen, (int)err);
	free(name);
	return CR_OK;
}

enum cr_err inputs_unpack(struct inputs *in, const void *p, size_t n)
{
	struct buf_reader rd;
	struct inputs tmp;
	const char *node;
	size_t nlen, i;
	uint64_t count, k;
	uint8_t version;
	enum cr_err e = CR_OK;

	buf_reader_init(&rd, p, n);
	if (n < sizeof(inputs_magic) || memcmp(p, inputs_magic, sizeof(inputs_magic)))
		return CR_ERR_FORMAT;
	rd.off = sizeof(inputs_magic);
	if (buf_get_u8(&rd, &version) || version != INPUTS_VERSION ||
	    buf_get_str(&rd, &node, &nlen) || nlen >= INPUTS_NODE_MAX ||
	    memchr(node, '\0', nlen) || buf_get_varint(&rd, &count) || count > n)
		return CR_ERR_FORMAT;
	inputs_init(&tmp, "");
	memcpy(tmp.node, node, nlen);
	tmp.node[nlen] = '\0';
	for (k = 0; !e && k < count; k++)
		e = unpack_file(&rd, &tmp);
	if (!e && rd.off != rd.len)
		e = CR_ERR_FORMAT;
	if (!e) {
		memcpy(in->node, tmp.node, sizeof(in->node));
		for (i = 0; i < tmp.n; i++)
			inputs_put(in, tmp.v[i].path, tmp.v[i].bytes.p, tmp.v[i].bytes.len,
				   tmp.v[i].err);
	}
	inputs_release(&tmp);
	return e;
}

struct inputs *inputs_job(void)
{
	static struct inputs job;
	static int ready;

	if (!ready) {
		char host[INPUTS_NODE_MAX] = "";

		if (gethostname(host, sizeof(host) - 1) != 0 || !host[0])
			snprintf(host, sizeof(host), "localhost");
		inputs_init(&job, host);
		ready = 1;
	}
	return &job;
}

enum cr_err inputs_read(const char *path, size_t max, struct buf *out)
{
	struct inputs *in = inputs_job();
	const struct inputs_file *f = inputs_find(in, path);

	if (!f) {
		inputs_load(in, path);
		f = inputs_find(in, path);
	}
	if (f->err == EFBIG || (!f->err && f->bytes.len > max))
		return CR_ERR_LIMIT;
	if (f->err) {
		errno = f->err;
		return CR_ERR_IO;
	}
	buf_add(out, f->bytes.p, f->bytes.len);
	return CR_OK;
}

enum cr_err inputs_read_named(const char *what, const char *path, size_t max,
			      struct buf *out, char *err, size_t errcap)
{
	enum cr_err e = inputs_read(path, max, out);
	char limit[48];

	if (!e)
		return CR_OK;
	snprintf(limit, sizeof(limit), "larger than %zu MiB", max >> 20);
	snprintf(err, errcap, "cannot read %s '%s' on %s: %s", what, path, inputs_node(),
		 e == CR_ERR_LIMIT ? limit : strerror(errno));
	return e;
}

const char *inputs_node(void)
{
	return inputs_job()->node;
}
