/*
 * budget.c - the eligible URLs' keys on file and the agreed top_n; see
 * budget.h.
 */
#include "generate/budget.h"
#include "util/log.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

enum cr_err budget_open(struct budget *b, const char *tmpdir)
{
	memset(b, 0, sizeof(*b));
	snprintf(b->path, sizeof(b->path), "%s/generate-keys", tmpdir);
	b->keys = fopen(b->path, "w+b");
	if (!b->keys) {
		log_err("generate", "cannot create '%s': %s", b->path, strerror(errno));
		return CR_ERR_IO;
	}
	return CR_OK;
}

enum cr_err budget_add(struct budget *b, struct topn_key k)
{
	if (fwrite(&k, sizeof(k), 1, b->keys) != 1) {
		log_err("generate", "cannot write '%s': %s", b->path, strerror(errno));
		return CR_ERR_IO;
	}
	b->n++;
	return CR_OK;
}

/* This rank's part of a step: its keys counted by their next byte. */
static enum cr_err count_keys(struct budget *b, uint64_t counts[256])
{
	struct topn_key k[4096];
	uint64_t left = b->n;

	if (fflush(b->keys) || fseek(b->keys, 0, SEEK_SET))
		return CR_ERR_IO;
	while (left) {
		size_t want = left < 4096 ? (size_t)left : 4096;

		if (fread(k, sizeof(k[0]), want, b->keys) != want)
			return CR_ERR_IO;
		topn_count(&b->sel, k, want, counts);
		left -= want;
	}
	return CR_OK;
}

enum cr_err budget_agree(struct budget *b, uint64_t top_n, int ok,
			 const struct seedcap_comm *mpi)
{
	enum cr_err e = CR_OK;

	if (!mpi->agree(ok))
		return CR_ERR_COMM;
	topn_init(&b->sel, top_n);
	/* Every rank takes the same steps: done follows from the sums. A
	 * rank that cannot read its keys counts none and says so at the end. */
	while (!b->sel.done) {
		uint64_t counts[256] = { 0 };

		if (!e && (e = count_keys(b, counts)) != CR_OK) {
			log_err("generate", "cannot read '%s'", b->path);
			memset(counts, 0, sizeof(counts));
		}
		mpi->sum(counts, 256);
		topn_step(&b->sel, counts);
	}
	if (!mpi->agree(e == CR_OK))
		return e ? e : CR_ERR_COMM;
	b->agreed = 1;
	return CR_OK;
}

int budget_takes(const struct budget *b, struct topn_key k)
{
	return b->agreed && topn_selected(&b->sel, k);
}

void budget_close(struct budget *b)
{
	if (b->keys) {
		fclose(b->keys);
		unlink(b->path);
	}
	b->keys = NULL;
}
