/*
 * share.c - the registry of the user's files from rank 0 to every
 * rank; see inputs.h. Apart from inputs.c so that the pure registry links
 * without MPI (the unit tests).
 */
#include "comm/comm.h"
#include "inputs/inputs.h"

/* Rank 0 packs (only: one path, or NULL for all), every rank gets the
 * bytes, the others unpack; every rank learns whether all could. */
static enum cr_err share(const char *only)
{
	struct buf b;
	enum cr_err e = CR_OK;

	buf_init(&b);
	if (comm_rank() == 0)
		inputs_pack(inputs_job(), only, &b);
	comm_bcast_buf(&b, 0);
	if (comm_rank() != 0)
		e = inputs_unpack(inputs_job(), b.p, b.len);
	buf_release(&b);
	if (!comm_agree(e == CR_OK))
		return e ? e : CR_ERR_COMM;
	return CR_OK;
}

enum cr_err inputs_share(void)
{
	return share(NULL);
}

enum cr_err inputs_refresh(const char *path)
{
	if (comm_rank() == 0)
		inputs_load(inputs_job(), path);
	return share(path);
}
