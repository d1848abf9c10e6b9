/*
 * budget.c - the eligible URLs' keys on file, the budget's split and the
 * agreed top_n of each side; see budget.h.
 */
#include "generate/budget.h"
#include "util/log.h"

#include <errno.h>
#include <math.h>
#include <string.h>
#include <unistd.h>

void budget_split(uint64_t n, double share, uint64_t fresh, uint64_t refetch,
		  uint64_t quota[BUDGET_SIDES])
{
	double want = floor((share > 0 ? share < 1 ? share : 1 : 0) * (double)n + 0.5);
	uint64_t r = want >= (double)n ? n : (uint64_t)want;

	if (fresh < n - r)
		r = n - fresh;   /* new URLs leave part of theirs */
	if (r > refetch)
		r = refetch;     /* refetches leave part of theirs */
	quota[BUDGET_REFETCH] = r;
	quota[BUDGET_NEW] = fresh < n - r ? fresh : n - r;
}

enum cr_err budget_open(struct budget *b, const char *tmpdir)
{
	int s;

	memset(b, 0, sizeof(*b));
	for (s = 0; s < BUDGET_SIDES; s++) {
		snprintf(b->side[s].path, sizeof(b->side[s].path), "%s/generate-keys-%d", tmpdir,
			 s);
		b->side[s].keys = fopen(b->side[s].path, "w+b");
		if (!b->side[s].keys) {
			log_err("generate", "cannot create '%s': %s", b->side[s].path,
				strerror(errno));
			budget_close(b);
			return CR_ERR_IO;
		}
	}
	return CR_OK;
}

enum cr_err budget_add(struct budget *b, enum budget_side side, struct topn_key k)
{
	if (fwrite(&k, sizeof(k), 1, b->side[side].keys) != 1) {
		log_err("generate", "cannot write '%s': %s", b->side[side].path,
			strerror(errno));
		return CR_ERR_IO;
	}
	b->side[side].n++;
	return CR_OK;
}

/* This rank's part of a step: side s's keys counted by their next byte. */
static enum cr_err count_keys(struct budget *b, int s, uint64_t counts[256])
{
	struct topn_key k[4096];
	uint64_t left = b->side[s].n;

	if (fflush(b->side[s].keys) || fseek(b->side[s].keys, 0, SEEK_SET))
		return CR_ERR_IO;
	while (left) {
		size_t want = left < 4096 ? (size_t)left : 4096;

		if (fread(k, sizeof(k[0]), want, b->side[s].keys) != want)
			return CR_ERR_IO;
		topn_count(&b->side[s].sel, k, want, counts);
		left -= want;
	}
	return CR_OK;
}

/* Collective: side s's radix select of its quota; *e set (and logged)
 * when this rank cannot read its keys - it then counts none. */
static void select_side(struct budget *b, int s, const struct seedcap_comm *mpi,
			enum cr_err *e)
{
	topn_init(&b->side[s].sel, b->quota[s]);
	/* Every rank takes the same steps: done follows from the sums. */
	while (!b->side[s].sel.done) {
		uint64_t counts[256] = { 0 };

		if (!*e && (*e = count_keys(b, s, counts)) != CR_OK) {
			log_err("generate", "cannot read '%s'", b->side[s].path);
			memset(counts, 0, sizeof(counts));
		}
		mpi->sum(counts, 256);
		topn_step(&b->side[s].sel, counts);
	}
}

enum cr_err budget_agree(struct budget *b, uint64_t top_n, double share, int ok,
			 const struct seedcap_comm *mpi)
{
	uint64_t waiting[BUDGET_SIDES] = { b->side[BUDGET_NEW].n, b->side[BUDGET_REFETCH].n };
	enum cr_err e = CR_OK;
	int s;

	if (!mpi->agree(ok))
		return CR_ERR_COMM;
	mpi->sum(waiting, BUDGET_SIDES);
	budget_split(top_n, share, waiting[BUDGET_NEW], waiting[BUDGET_REFETCH], b->quota);
	for (s = 0; s < BUDGET_SIDES; s++)
		select_side(b, s, mpi, &e);
	if (!mpi->agree(e == CR_OK))
		return e ? e : CR_ERR_COMM;
	b->agreed = 1;
	return CR_OK;
}

int budget_takes(const struct budget *b, enum budget_side side, struct topn_key k)
{
	return b->agreed && topn_selected(&b->side[side].sel, k);
}

void budget_close(struct budget *b)
{
	int s;

	for (s = 0; s < BUDGET_SIDES; s++) {
		if (b->side[s].keys) {
			fclose(b->side[s].keys);
			unlink(b->side[s].path);
		}
		b->side[s].keys = NULL;
	}
}
