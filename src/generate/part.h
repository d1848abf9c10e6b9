/*
 * part.h - generate's state for one partition, shared by generate.c (the
 * URL-order stream) and ranked.c (priority order and the round's budget).
 * Private to src/generate/.
 */
#ifndef CR_GENERATE_PART_H
#define CR_GENERATE_PART_H

#include "generate/budget.h"
#include "generate/select.h"
#include "generate/refresh.h"
#include "rank/record.h"
#include "scope/decisions.h"
#include "score/score.h"
#include "store/recfile.h"
#include "util/hmap.h"

/* The robots.txt bodies (and GEN_RULES_ENTRY bytes an origin) whose rules
 * a partition's generate keeps at most: past them it keeps none - which
 * ones fit would depend on the cache file's order, which depends on the
 * rank count - and a denied URL is selected and counts as a request, as
 * without them (the fetch denies it). */
#define GEN_RULES_BYTES (16u << 20)
#define GEN_RULES_ENTRY 256u

/* An origin's cached robots.txt rules (owned) and when they were answered. */
struct gen_rules {
	struct robots *rules;
	int64_t answered_at;
};

struct gen_part {
	struct job *j;
	struct generate_rules rules;
	struct score_rules score;
	struct refresh_rules refresh;
	int64_t now;
	int seg;
	uint32_t p;
	uint64_t *c;
	struct hmap per_host;     /* host -> URLs selected (uintptr_t): those that make a
				     request, and those robots.txt denies << 32 */
	struct hmap delays;       /* origin -> cached Crawl-delay ms (uintptr_t) */
	struct hmap holds;        /* origin -> hold until, µs (uintptr_t), when ahead */
	struct hmap robots;       /* origin -> its cached robots.txt rules (struct gen_rules *,
				     owned) when 2xx: a URL they deny makes no request;
				     none past GEN_RULES_BYTES */
	size_t robots_bytes;      /* what those kept cost (GEN_RULES_BYTES) */
	int robots_over;          /* the partition's were past GEN_RULES_BYTES */
	struct hmap dups;         /* host -> pages | duplicates << 32 (count_duplicates) */
	struct hmap rescope;      /* pages whose links a scope refused, when the job's
				     configuration is new (rescope.h); else empty */
	const struct host_rules *hr;   /* hosts.rules, or NULL */
	const struct seedcap *cap;     /* the seeds' max_pages, or NULL */
	struct decisions *dlog;        /* with seeds' max_pages and log.decisions */
	struct recfile_writer *denied; /* segments/N/denied/part-P.zst, opened at the
					  first URL generate finds denied */
	enum cr_err failed;            /* a decision-log write failed */
	struct budget *budget;         /* generate.top_n, or NULL */
	struct recfile_reader *ranks;  /* rank/part-P.zst (orders pagerank, hostrank) */
	struct rank_record rank_cur;   /* its current record, when rank_live */
	int rank_live;
};

/* Reads the next rank record into g->rank_cur (rank_live 0 at the end or
 * on damage, which is logged: the URLs after it go unranked). */
void generate_next_rank(struct gen_part *g);

/* A record's verdict, given what the partition knows of its host so far;
 * host (URL_HOST_MAX bytes) is "" when the URL has none. -1 if damaged. */
int generate_judge(struct gen_part *g, const void *data, size_t n, struct crawl_record *rec,
		   char *host, struct generate_host *h, enum generate_verdict *v);
/* 1 if the verdict does not depend on what else of its host is taken. */
int generate_settled(enum generate_verdict v);
/* Counts verdict v of rec (of host, h as judged); 1 if selected. */
int generate_account(struct gen_part *g, const struct crawl_record *rec, const char *host,
		     const struct generate_host *h, enum generate_verdict v);

/*
 * Priority order (ranked.c): the part's due URLs sorted by host, then
 * priority (score_priority), best first; the hosts' caps applied in that
 * order. Without a budget the selected go to w, the fetch list; with one
 * (g->budget) w is the part's temporary file of candidates and their keys
 * go to the budget; ranked_write then writes the fetch list.
 * CR_EOF at the end, else the error.
 */
CR_WUR enum cr_err ranked_select(struct gen_part *g, struct recfile_reader *r, const char *in,
				 struct recfile_writer *w);
/* The temporary file of partition p's candidates (ranked_select). */
void ranked_tmp_path(const struct job *j, uint32_t p, char *out, size_t cap);
/* Once the budget is agreed: partition p's fetch list from its
 * candidates, those within the budget; removes the temporary file. */
CR_WUR enum cr_err ranked_write(struct job *j, int seg, uint32_t p, const struct budget *b,
				uint64_t *c);

#endif
