/*
 * config.h - the job configuration: every key with its type, default and
 * meaning in one table (config.c), mirrored in docs/CONFIG.md.
 *
 * A job file (a .conf file in jobs/) holds "key = value" lines, '#' comments; the
 * command line's --set key=value overrides it. An unknown key or a bad value
 * is a one-line error naming the key (CR_ERR_ARG).
 */
#ifndef CR_CONFIG_CONFIG_H
#define CR_CONFIG_CONFIG_H

#include <stddef.h>

#include "util/error.h"

enum partition_by { PARTITION_BY_HOST = 0, PARTITION_BY_DOMAIN = 1 };
enum politeness_by { POLITE_BY_HOST = 0, POLITE_BY_DOMAIN = 1, POLITE_BY_IP = 2 };

struct config {
	long delay_ms;
	long max_in_flight;
	int politeness_by;
	long max_crawl_delay_ms;
	long max_host_failures;
	long backoff_max_ms;
	int allow_private;
	long max_connections;
	long connect_timeout_s;
	long timeout_s;
	long low_speed_bytes;
	long low_speed_time_s;
	long max_body_bytes;
	long max_decoded_bytes;
	long max_header_bytes;
	long max_redirects;
	char allow_addresses[512];
	int fetch_parse;
	long time_limit_s;
	long follow_max;
	int fetch_embeds;           /* fetch.embeds: page requisites */
	long max_embeds;            /* fetch.max_embeds, per page */
	long stop_grace_s;          /* fetch.stop_grace_s: SIGTERM/SIGUSR1 */
	long comm_timeout_s;        /* comm.timeout_s: a rank silent this long ends the job */
	long sync_interval_ms;      /* fetch.sync_interval_ms: journal batches */
	long max_hold_s;            /* fetch.max_hold_s: longer holds leave the round */
	char dns_servers[512];
	int dns_family;             /* dns.family: enum dns_family (fetch/dns.h) */
	long dns_timeout_ms;
	long dns_cache_ttl_s;
	long dns_negative_ttl_s;
	char robots_agent[64];
	long robots_ttl_s;
	long robots_max_bytes;
	long robots_early_max;
	char user_agent[256];
	char from[256];             /* http.from: "" none */
	char warc_operator[256];    /* warc.operator, warc.is_part_of, warc.description, */
	char warc_is_part_of[256];  /* warc.publisher: warcinfo fields ("" none) */
	char warc_description[512];
	char warc_publisher[256];
	char warc_prefix[72];       /* warc.prefix: "" = made when the crawl is created */
	char accept_encoding[128];
	int http_version;           /* http.version: enum http_version (fetch/http.h) */
	int tls_verify;             /* tls.verify */
	char tls_ca_file[512];      /* tls.ca_file */
	int url_drop_fragment;      /* url.*: the dedup rules of url_canon */
	int url_drop_userinfo;
	int url_default_port;
	int url_drop_trailing_dot;
	int url_dot_segments;
	int url_normalize_escapes;
	int url_drop_empty_query;
	int url_strip_session_ids;
	int url_sort_query;
	long url_max_length;
	char url_strip_params[512];
	long max_depth;
	long max_rounds;
	long refetch_interval_s;
	long retry_interval_s;
	long max_retries;
	long max_per_host;
	long top_n;                 /* generate.top_n: URLs in a round, all ranks; 0: all */
	int generate_order;         /* generate.order: enum score_order (score/score.h) */
	double score_seed_cash;     /* score.*: score/score.h */
	double score_sitemap_weight;
	double score_depth_decay;
	double rank_tolerance;      /* rank.*: rank/rank.h */
	long rank_max_iterations;
	long rank_every_rounds;
	int recrawl_policy;         /* recrawl.policy: enum refresh_policy (generate/refresh.h) */
	long recrawl_min_s;
	long recrawl_max_s;
	double recrawl_share;       /* recrawl.share: generate/budget.h */
	long round_s;               /* generate.round_s; -1: auto (round/length.h) */
	long partitions;
	int partition_by;
	long memory_budget_mb;
	long zstd_level;
	long warc_gzip_level;
	int warc_compression;       /* 0 gzip, 1 zstd (enum warc_compression) */
	long warc_zstd_level;
	char warc_zstd_dict[512];
	long warc_max_bytes;
	int warc_revisits;
	int warc_metadata;
	int warc_split;            /* warc.split: diagnostics and sitemaps apart */
	int index_enabled;          /* CDXJ, text and link graph after update */
	int index_wat;              /* WAT files with the index (index/wat.h) */
	int text_format;            /* 0 wet, 1 jsonl, 2 none */
	int text_boilerplate;       /* 0 keep, 1 mark, 2 drop (parse/boiler.h) */
	long max_links;
	int parse_pdf;               /* parse.pdf: PDFs read by the PDF worker */
	long pdf_max_bytes;         /* parse.pdf_max_bytes */
	long pdf_max_pages;         /* parse.pdf_max_pages */
	long pdf_timeout_s;         /* parse.pdf_timeout_s */
	int scope_mode;             /* enum scope_mode (scope/scope.h) */
	int scope_embeds;           /* scope.embeds: enum scope_embeds (scope/scope.h) */
	char scope_rules[512];      /* scope.rules: a rules file, or "" */
	int log_decisions;          /* log.decisions: segments/N/decisions/ */
	int sitemaps_enabled;       /* sitemaps.enabled */
	int sitemaps_probe;         /* sitemaps.probe: /sitemap.xml of every origin */
	long sitemaps_refetch_s;    /* sitemaps.refetch_interval_s */
	char hosts_rules[512];      /* hosts.rules: the operator's host rules, or "" */
	long trap_max_segments;
	long trap_max_repeats;
	long trap_max_query_variants;
	long max_urls_per_host;
	long demote_min_pages;
	double demote_share;
	long demoted_per_round;
	int seen_enabled;
	long seen_expected_urls;
	double seen_fp_rate;
	int dedup_enabled;
	long dedup_shingle;
	long dedup_hashes;
	int dedup_signature;  /* enum minhash_scheme */
	long dedup_bands;
	double dedup_threshold;
	long dedup_max_cand;
	long dedup_max_runs;
	long exchange_batch_kb;
	long progress_ms;
	long metrics_interval_s;   /* metrics.interval_s: DIR/metrics.prom; 0: none */
	char metrics_path[512];    /* metrics.path: where instead; "": DIR/metrics.prom */
	char tmp_dir[512];         /* storage.tmp_dir: node-local scratch; "": the
				      environment's (job.h) */
	int storage_pack;          /* storage.pack: per-partition files packed per rank */
	int partitions_set;   /* partition.count was given explicitly */
	int dedup_signature_set;   /* dedup.signature was given explicitly */
	int partition_by_set;      /* partition.by was given explicitly */
};

/*
 * What a module says of a value of one of its string keys: NULL if it is
 * good, else what is wrong (a string that lives on). config.c knows a key's
 * type and size; the module knows what its value means (a rules file that
 * parses), and registers its check before any value is set - at start-up,
 * from one thread (scope_register_checks). Copies nothing: key and fn must
 * live on.
 */
typedef const char *(*config_check_fn)(const char *v);
void config_register_check(const char *key, config_check_fn fn);

/* The words of scope.mode, in the order of enum scope_mode (scope/scope.h). */
extern const char *const config_scope_modes[];

/* The largest WARC record block a crawl with c writes, and so what every
 * reader of its WARC files (parse, index, WAT, repair) accepts: what the
 * fetcher may store (fetch.max_body_bytes and max_header_bytes, the request
 * beside), at least 64 MiB. */
size_t config_warc_block_max(const struct config *c);

/* Sets every key to its default. */
void config_defaults(struct config *c);
/* Applies one "key=value" (or key and value apart). */
CR_WUR enum cr_err config_set(struct config *c, const char *key, const char *value);
CR_WUR enum cr_err config_set_kv(struct config *c, const char *kv);
/* Once every file and --set is applied: the rules between keys (a
 * minimum no greater than its maximum). One line naming the keys. */
CR_WUR enum cr_err config_check(const struct config *c);
/* What is wrong with v as a warc.prefix (NULL: nothing) - also for the one a
 * crawl directory's crawl.meta holds. */
const char *config_prefix_problem(const char *v);
/* Reads a job file. Errors name the file and line. */
CR_WUR enum cr_err config_load(struct config *c, const char *path);
/* Writes every key as "key = value" lines (for crawl.meta and --print-config). */
void config_write(const struct config *c, char *out, size_t cap);
/* Iterates the key table: name, default, doc. NULL name ends it. */
void config_key(size_t i, const char **name, const char **def, const char **doc);

#endif
