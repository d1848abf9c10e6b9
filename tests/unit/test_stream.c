/*
 * test_stream.c - comm_stream (comm/comm.h, src/comm/stream.c), the one
 * bounded fill / exchange / take loop, on 1 to 4 ranks of the simulated
 * comm (comm_sim.h). Each rank posts a table-given number of records, each
 * to a rank and of a length drawn from (case, sender, sequence number), so
 * that the receiver can tell what it should have got. Checked: every record
 * arrives once, whole, at the rank it was posted to, with the batch it was
 * posted in, in the order of the sending ranks; fill is never called once
 * the batch is full, nor stopped before it is, so a batch out holds at most
 * batch_bytes plus the last post; the loop ends in the round the last rank
 * runs out, also with one rank empty and one with many, records of zero
 * bytes, near and over the batch size, batch_bytes 0. Then errors: of fill
 * or take on one rank (or two), and of the exchange itself, end the loop on
 * every rank at once - the error on its rank, CR_ERR_COMM on the others.
 */
#include "comm_sim.h"
#include "test.h"

#include <signal.h>
#include <stdlib.h>
#include <sys/wait.h>

#define RANKS 4
#define RECS_MAX 2000

enum fill_mode {
	FILL_ONE,      /* one record a call; CR_EOF on the call after the last */
	FILL_GREEDY,   /* until comm_stream_full; CR_EOF with the last record */
	FILL_IDLE,     /* as FILL_ONE, but every third call posts nothing */
};

struct stream_case {
	const char *name;
	int nranks;
	size_t batch;
	int nrecs[RANKS];
	size_t len_max;            /* payload bytes: 0 .. len_max */
	int big;                   /* some records near and over the batch size */
	enum fill_mode mode;
	int fill_fail_at[RANKS];   /* the call of fill that fails (1, 2, ...; 0 none) */
	enum cr_err fill_err[RANKS];
	int take_fail_at[RANKS];   /* the record of take that fails */
	enum cr_err take_err[RANKS];
	size_t limit;              /* comm_sim_set_exchange_limit (0: none) */
};

/* What one rank saw; written by its thread only, read after the run. */
struct rank_seen {
	enum cr_err ret;
	int posted, fills, takes;
	uint64_t round;           /* exchanges before the current round's posts */
	size_t round_bytes;       /* framed bytes posted in it */
	int eof;
	uint64_t eof_exchanges;   /* exchanges before the round it ran out in */
	uint64_t last_fill_exchanges;
	uint64_t to_others;       /* framed bytes posted to other ranks */
	uint64_t exchanges, bytes_sent;
	/* the last record taken, to check the order within a batch */
	uint64_t last_batch;
	int last_src, last_seq;
	int fill_when_full, short_batch, bad_record, misrouted, late, out_of_order;
	int fail_exchanges;       /* exchanges when its fill or take failed; -1 */
};

static const struct stream_case *cur;
static struct rank_seen seen[RANKS];
static unsigned char got[RANKS][RANKS][RECS_MAX];    /* [dst][src][seq] */
static uint64_t posted_in[RANKS][RECS_MAX];           /* exchanges before */

static uint64_t mix(uint64_t x)
{
	x += 0x9e3779b97f4a7c15ULL;
	x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
	x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
	return x ^ (x >> 31);
}

/* Record seq of rank src: to which rank, and how many payload bytes after
 * its three-byte head (src, seq). */
static int rec_dst(int src, int seq)
{
	return (int)(mix(((uint64_t)src << 32) ^ (uint64_t)seq ^ 0xd57) % (uint64_t)cur->nranks);
}

static size_t rec_len(int src, int seq)
{
	uint64_t h = mix(((uint64_t)src << 40) ^ (uint64_t)seq);
	size_t b = cur->batch ? cur->batch : 1;

	if (cur->big && seq % 13 == 5)
		return b + (h % 5) - (b > 6 ? 5 : 0);   /* about the batch size */
	if (cur->big && seq % 29 == 7)
		return 3 * b;
	return h % (cur->len_max + 1);
}

static unsigned char rec_byte(int src, int seq, size_t i)
{
	return (unsigned char)(src * 31 + seq * 7 + (int)i);
}

static size_t framed(size_t n)
{
	size_t v = 1;

	while (n >= 128) {
		n >>= 7;
		v++;
	}
	return v;
}

static void post_one(struct comm_stream *s, struct rank_seen *st, int me)
{
	int seq = st->posted++, dst = rec_dst(me, seq);
	size_t n = rec_len(me, seq), i;
	unsigned char *rec = malloc(3 + n);

	rec[0] = (unsigned char)me;
	rec[1] = (unsigned char)seq;
	rec[2] = (unsigned char)(seq >> 8);
	for (i = 0; i < n; i++)
		rec[3 + i] = rec_byte(me, seq, i);
	posted_in[me][seq] = comm_sim_exchanges();
	comm_stream_post(s, dst, rec, 3 + n);
	free(rec);
	st->round_bytes += framed(3 + n) + 3 + n;
	if (dst != me)
		st->to_others += framed(3 + n) + 3 + n;
}

static enum cr_err fill(void *arg, struct comm_stream *s)
{
	int me = comm_rank();
	struct rank_seen *st = &seen[me];
	size_t batch = cur->batch ? cur->batch : 1;

	(void)arg;
	st->fills++;
	st->last_fill_exchanges = comm_sim_exchanges();
	if (comm_sim_exchanges() != st->round) {
		/* A new round: the last one ended full (fill returns at EOF). */
		st->short_batch += st->round_bytes < batch;
		st->round = comm_sim_exchanges();
		st->round_bytes = 0;
	}
	st->fill_when_full += st->round_bytes >= batch || st->eof;
	if (cur->fill_fail_at[me] && st->fills == cur->fill_fail_at[me]) {
		st->fail_exchanges = (int)comm_sim_exchanges();
		return cur->fill_err[me];
	}
	switch (cur->mode) {
	case FILL_GREEDY:
		while (st->posted < cur->nrecs[me] && !comm_stream_full(s))
			post_one(s, st, me);
		break;
	case FILL_IDLE:
		if (st->fills % 3 == 0)
			return CR_OK;
		/* fall through */
	case FILL_ONE:
		if (st->posted < cur->nrecs[me]) {
			post_one(s, st, me);
			return CR_OK;
		}
		break;
	}
	if (st->posted < cur->nrecs[me])
		return CR_OK;
	st->eof = 1;
	st->eof_exchanges = comm_sim_exchanges();
	return CR_EOF;
}

static enum cr_err take(void *arg, const void *p, size_t n)
{
	const unsigned char *rec = p;
	int me = comm_rank(), src, seq;
	struct rank_seen *st = &seen[me];
	uint64_t batch = comm_sim_exchanges();
	size_t i;

	(void)arg;
	st->takes++;
	if (cur->take_fail_at[me] && st->takes == cur->take_fail_at[me]) {
		st->fail_exchanges = (int)batch;
		return cur->take_err[me];
	}
	if (n < 3 || rec[0] >= cur->nranks || (rec[1] | rec[2] << 8) >= RECS_MAX) {
		st->bad_record++;
		return CR_OK;
	}
	src = rec[0];
	seq = rec[1] | rec[2] << 8;
	if (n != 3 + rec_len(src, seq)) {
		st->bad_record++;
		return CR_OK;
	}
	for (i = 3; i < n; i++)
		if (rec[i] != rec_byte(src, seq, i - 3)) {
			st->bad_record++;
			return CR_OK;
		}
	st->misrouted += rec_dst(src, seq) != me;
	st->late += posted_in[src][seq] + 1 != batch;
	if (st->last_batch == batch)
		st->out_of_order += src < st->last_src ||
				    (src == st->last_src && seq <= st->last_seq);
	st->last_batch = batch;
	st->last_src = src;
	st->last_seq = seq;
	if (got[me][src][seq] < 255)
		got[me][src][seq]++;
	return CR_OK;
}

static void rank_main(void *arg)
{
	struct rank_seen *st = &seen[comm_rank()];

	(void)arg;
	st->ret = comm_stream(cur->batch, fill, take, NULL);
	st->exchanges = comm_sim_exchanges();
	st->bytes_sent = comm_bytes_sent();
}

static void start(const struct stream_case *c)
{
	int r;

	cur = c;
	memset(seen, 0, sizeof(seen));
	memset(got, 0, sizeof(got));
	for (r = 0; r < RANKS; r++) {
		seen[r].fail_exchanges = -1;
		seen[r].last_batch = UINT64_MAX;
	}
	comm_sim_set_exchange_limit(c->limit);
	CHECK(comm_sim_run(c->nranks, rank_main, NULL) == 0, "%s: run", c->name);
	comm_sim_set_exchange_limit(0);
}

/* A case without errors: everything arrived, once, where and when it
 * should, in batches as bounded as the contract says. */
static void check_delivered(const struct stream_case *c)
{
	uint64_t last = 0;
	int r, q, seq, missing = 0, twice = 0, addressed[RANKS] = { 0 };

	start(c);
	for (r = 0; r < c->nranks; r++) {
		const struct rank_seen *st = &seen[r];

		CHECK(st->ret == CR_OK, "%s: rank %d returned %s", c->name, r, error_str(st->ret));
		CHECK(st->posted == c->nrecs[r] && st->eof, "%s: rank %d posted %d of %d", c->name,
		      r, st->posted, c->nrecs[r]);
		CHECK(!st->fill_when_full, "%s: rank %d: fill called %d times with a full batch "
		      "or after its end", c->name, r, st->fill_when_full);
		CHECK(!st->short_batch, "%s: rank %d: %d batches went out short before its end",
		      c->name, r, st->short_batch);
		CHECK(!st->bad_record && !st->misrouted && !st->late && !st->out_of_order,
		      "%s: rank %d took %d damaged, %d misrouted, %d late, %d out of order",
		      c->name, r, st->bad_record, st->misrouted, st->late, st->out_of_order);
		CHECK(st->exchanges == seen[0].exchanges, "%s: rank %d made %llu exchanges, "
		      "rank 0 %llu", c->name, r, (unsigned long long)st->exchanges,
		      (unsigned long long)seen[0].exchanges);
		CHECK(st->bytes_sent == st->to_others, "%s: rank %d sent %llu bytes, posted %llu "
		      "to others", c->name, r, (unsigned long long)st->bytes_sent,
		      (unsigned long long)st->to_others);
		if (st->eof_exchanges + 1 > last)
			last = st->eof_exchanges + 1;
		for (seq = 0; seq < c->nrecs[r]; seq++) {
			int n = 0;

			for (q = 0; q < c->nranks; q++)
				n += got[q][r][seq];
			missing += n == 0;
			twice += n > 1;
			addressed[rec_dst(r, seq)]++;
		}
	}
	CHECK(!missing && !twice, "%s: %d records never arrived, %d more than once", c->name,
	      missing, twice);
	for (r = 0; r < c->nranks; r++)
		CHECK(seen[r].takes == addressed[r], "%s: rank %d took %d records, %d were posted "
		      "to it", c->name, r, seen[r].takes, addressed[r]);
	CHECK(seen[0].exchanges == last, "%s: %llu exchanges, the last rank ran out in round "
	      "%llu", c->name, (unsigned long long)seen[0].exchanges, (unsigned long long)last);
}

static void test_delivery(void)
{
	static const size_t batches[] = { 0, 16, 200, 4096 };
	struct stream_case c;
	char name[64];
	size_t b;
	int n;

	for (n = 1; n <= RANKS; n++)
		for (b = 0; b < sizeof(batches) / sizeof(batches[0]); b++) {
			memset(&c, 0, sizeof(c));
			snprintf(name, sizeof(name), "%d ranks, batch %zu", n, batches[b]);
			c.name = name;
			c.nranks = n;
			c.batch = batches[b];
			c.nrecs[0] = c.nrecs[1] = c.nrecs[2] = c.nrecs[3] = 80;
			c.len_max = 40;
			check_delivered(&c);
		}
}

static void test_shapes(void)
{
	static const struct stream_case rows[] = {
		{ .name = "one rank empty, one with many", .nranks = 4, .batch = 64,
		  .nrecs = { 0, 1500, 3, 40 }, .len_max = 30 },
		{ .name = "only the last rank has records", .nranks = 3, .batch = 100,
		  .nrecs = { 0, 0, 700 }, .len_max = 60 },
		{ .name = "nothing anywhere", .nranks = 4, .batch = 64 },
		{ .name = "nothing on one rank", .nranks = 1, .batch = 64 },
		{ .name = "records of zero bytes only", .nranks = 3, .batch = 8,
		  .nrecs = { 50, 50, 50 }, .len_max = 0 },
		{ .name = "records near and over the batch size", .nranks = 3, .batch = 64,
		  .nrecs = { 300, 120, 300 }, .len_max = 20, .big = 1 },
		{ .name = "records over a batch of 1", .nranks = 2, .batch = 1,
		  .nrecs = { 100, 100 }, .len_max = 300, .big = 1 },
		{ .name = "fill posts until full, CR_EOF with its last", .nranks = 4, .batch = 128,
		  .nrecs = { 400, 0, 90, 1000 }, .len_max = 50, .mode = FILL_GREEDY },
		{ .name = "... and records over the batch", .nranks = 3, .batch = 32,
		  .nrecs = { 200, 200, 1 }, .len_max = 50, .big = 1, .mode = FILL_GREEDY },
		{ .name = "fill sometimes posts nothing", .nranks = 3, .batch = 50,
		  .nrecs = { 100, 0, 300 }, .len_max = 30, .mode = FILL_IDLE },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		check_delivered(&rows[i]);
}

/* A case with errors: want[r] is what rank r returns. The loop ended at
 * once: no exchange after the failing round, no fill after the failure,
 * the failing take not called again. */
static void check_failed(const struct stream_case *c, const enum cr_err *want)
{
	int r, at = -1, took_fail = 0;

	start(c);
	for (r = 0; r < c->nranks; r++) {
		const struct rank_seen *st = &seen[r];

		CHECK(st->ret == want[r], "%s: rank %d returned %s, want %s", c->name, r,
		      error_str(st->ret), error_str(want[r]));
		if (st->fail_exchanges >= 0)
			at = st->fail_exchanges;
		if (c->fill_fail_at[r] && st->fail_exchanges >= 0)
			CHECK(st->fills == c->fill_fail_at[r], "%s: rank %d: fill called again "
			      "after it failed (%d calls)", c->name, r, st->fills);
		if (c->take_fail_at[r] && st->fail_exchanges >= 0)
			CHECK(st->takes == c->take_fail_at[r], "%s: rank %d: take called again "
			      "after it failed (%d calls)", c->name, r, st->takes);
	}
	if (at < 0) {
		/* the exchange failed: no take of the batch it would have moved */
		for (r = 0; r < c->nranks; r++)
			CHECK(seen[r].takes == 0 && seen[r].exchanges == 1, "%s: rank %d took %d "
			      "records in %llu exchanges", c->name, r, seen[r].takes,
			      (unsigned long long)seen[r].exchanges);
		return;
	}
	for (r = 0; r < c->nranks; r++)
		took_fail |= c->take_fail_at[r] != 0;
	for (r = 0; r < c->nranks; r++) {
		CHECK(seen[r].exchanges == (uint64_t)at, "%s: rank %d made %llu exchanges, the "
		      "failure was after %d", c->name, r, (unsigned long long)seen[r].exchanges, at);
		if (took_fail)
			CHECK(seen[r].last_fill_exchanges < (uint64_t)at, "%s: rank %d: fill "
			      "called after a take failed", c->name, r);
	}
}

static void test_errors(void)
{
	static const struct {
		struct stream_case c;
		enum cr_err want[RANKS];
	} rows[] = {
		{ { .name = "fill fails on the last of 2", .nranks = 2, .batch = 16,
		    .nrecs = { 200, 200 }, .len_max = 10, .fill_fail_at = { 0, 20 },
		    .fill_err = { 0, CR_ERR_IO } }, { CR_ERR_COMM, CR_ERR_IO } },
		{ { .name = "fill fails on rank 0 of 4 at once", .nranks = 4, .batch = 16,
		    .nrecs = { 20, 20, 20, 20 }, .len_max = 10, .fill_fail_at = { 1 },
		    .fill_err = { CR_ERR_FORMAT } },
		  { CR_ERR_FORMAT, CR_ERR_COMM, CR_ERR_COMM, CR_ERR_COMM } },
		{ { .name = "fill fails on a rank already at its end elsewhere", .nranks = 3,
		    .batch = 16, .nrecs = { 0, 300, 0 }, .len_max = 10,
		    .fill_fail_at = { 0, 40 }, .fill_err = { 0, CR_ERR_LIMIT } },
		  { CR_ERR_COMM, CR_ERR_LIMIT, CR_ERR_COMM } },
		{ { .name = "fill fails on two ranks in one round", .nranks = 3, .batch = 16,
		    .nrecs = { 50, 50, 50 }, .len_max = 10, .fill_fail_at = { 1, 0, 1 },
		    .fill_err = { CR_ERR_IO, 0, CR_ERR_NOMEM } },
		  { CR_ERR_IO, CR_ERR_COMM, CR_ERR_NOMEM } },
		{ { .name = "take fails on rank 1 of 3", .nranks = 3, .batch = 40,
		    .nrecs = { 100, 100, 100 }, .len_max = 20, .take_fail_at = { 0, 10 },
		    .take_err = { 0, CR_ERR_FORMAT } },
		  { CR_ERR_COMM, CR_ERR_FORMAT, CR_ERR_COMM } },
		{ { .name = "take fails on its first record, 4 ranks", .nranks = 4, .batch = 40,
		    .nrecs = { 100, 100, 100, 100 }, .len_max = 20, .take_fail_at = { 0, 0, 0, 1 },
		    .take_err = { 0, 0, 0, CR_ERR_IO } },
		  { CR_ERR_COMM, CR_ERR_COMM, CR_ERR_COMM, CR_ERR_IO } },
		{ { .name = "one rank's batch over what an exchange carries", .nranks = 3,
		    .batch = 100000, .nrecs = { 5, 400, 5 }, .len_max = 20, .limit = 2000 },
		  { CR_ERR_COMM, CR_ERR_LIMIT, CR_ERR_COMM } },
	};
	size_t i;

	for (i = 0; i < sizeof(rows) / sizeof(rows[0]); i++)
		check_failed(&rows[i].c, rows[i].want);
}

/* The simulated comm itself, as the callers of comm.h see it. */
static void sim_main(void *arg)
{
	int64_t *out = arg, me = comm_rank(), all[RANKS], mx = me * 10 - 15;
	uint64_t sum[2] = { (uint64_t)me + 1, 100 };
	char word[8] = "", *w = me == 2 ? "hello" : "";
	struct buf b;

	comm_sum_u64(sum, 2);
	comm_max_i64(&mx, 1);
	comm_allgather(&me, sizeof(me), all);
	if (me == 2)
		snprintf(word, sizeof(word), "%s", w);
	comm_bcast(word, sizeof(word), 2);
	buf_init(&b);
	buf_adds(&b, me == 1 ? "from one" : "mine");
	comm_bcast_buf(&b, 1);
	comm_barrier();
	out[me * 8 + 0] = (int64_t)sum[0];
	out[me * 8 + 1] = (int64_t)sum[1];
	out[me * 8 + 2] = mx;
	out[me * 8 + 3] = all[0] * 1000 + all[1] * 100 + all[2] * 10 + all[3];
	out[me * 8 + 4] = !strcmp(word, "hello");
	out[me * 8 + 5] = b.len == 8 && !memcmp(b.p, "from one", 8);
	out[me * 8 + 6] = comm_agree(me != 3);
	out[me * 8 + 7] = comm_agree(1) + 10 * comm_size();
	buf_release(&b);
}

/* Ranks that disagree on the collective they are in. */
static void astray_main(void *arg)
{
	(void)arg;
	if (comm_rank() == 1)
		comm_barrier();
	else
		(void)comm_agree(1);
}

/* Ranks of which one leaves while the others wait in a collective. */
static void early_main(void *arg)
{
	(void)arg;
	if (comm_rank() != 2)
		comm_barrier();
}

/* fn on n ranks in a child: 1 if the simulated comm ended it (abort). */
static int sim_aborts(int n, void (*fn)(void *arg))
{
	pid_t pid;
	int st = 0;

	fflush(NULL);
	pid = fork();
	if (pid == 0) {
		int null = open("/dev/null", O_WRONLY);

		dup2(null, 2);
		comm_sim_run(n, fn, NULL);
		_exit(0);
	}
	return pid > 0 && waitpid(pid, &st, 0) == pid && WIFSIGNALED(st) &&
	       WTERMSIG(st) == SIGABRT;
}

static void test_sim(void)
{
	int64_t out[RANKS * 8];
	int r;

	memset(out, 0, sizeof(out));
	CHECK(comm_sim_run(RANKS, sim_main, out) == 0, "run");
	for (r = 0; r < RANKS; r++) {
		const int64_t *o = out + r * 8;

		CHECK(o[0] == 10 && o[1] == 400 && o[2] == 15, "rank %d: sums %lld %lld, max %lld",
		      r, (long long)o[0], (long long)o[1], (long long)o[2]);
		CHECK(o[3] == 123 && o[4] && o[5], "rank %d: gathered %lld, bcast %lld %lld", r,
		      (long long)o[3], (long long)o[4], (long long)o[5]);
		CHECK(o[6] == 0 && o[7] == 41, "rank %d: agree %lld %lld", r, (long long)o[6],
		      (long long)o[7]);
	}
	CHECK(comm_rank() == 0 && comm_size() == 1 && comm_agree(1) && !comm_agree(0),
	      "outside a run: one rank");
	CHECK(comm_sim_run(0, sim_main, out) == -1, "no ranks: refused");
	CHECK(sim_aborts(2, astray_main), "collectives out of order end the program");
	CHECK(sim_aborts(3, early_main), "a rank that leaves a collective ends the program");
}

int main(void)
{
	/* A loop that never ends (a batch never full, an end never agreed)
	 * fails the program instead of hanging the suite. */
	alarm(30);
	test_sim();
	test_delivery();
	test_shapes();
	test_errors();
	TEST_DONE();
}
