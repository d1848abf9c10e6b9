#include "generate/generate.h"
#include "test.h"
#include "update/merge.h"

int main(void)
{
	struct crawl_record r;
	struct config cfg;
	struct fetch_record f;
	struct crawl_record old, out;

	CHECK(generate_feasible(0, 1000) == INT64_MAX, "no time limit, no bound");
	CHECK(generate_feasible(600, 0) == INT64_MAX, "no delay, no bound");
	CHECK(generate_feasible(600, 1000) == 601, "10 min at 1 s: %lld",
	      (long long)generate_feasible(600, 1000));
	CHECK(generate_feasible(60, 5000) == 13, "1 min at 5 s: %lld",
	      (long long)generate_feasible(60, 5000));
	CHECK(generate_feasible(1, 30000) == 1, "a delay longer than the phase: one URL");

	memset(&r, 0, sizeof(r));
	r.next_fetch = 100;
	CHECK(!generate_due(&r, 99, 0) && generate_due(&r, 100, 0), "due at next_fetch");
	r.depth = 4;
	CHECK(!generate_due(&r, 1000, 3) && generate_due(&r, 1000, 4), "max_depth");

	/* A deferred URL (Crawl-delay above the cap) comes back after the retry
	 * interval, keeps its retry count and digest. */
	config_defaults(&cfg);
	memset(&old, 0, sizeof(old));
	old.url = "http://a.test/";
	old.url_len = strlen(old.url);
	old.retries = 2;
	old.digest = 77;
	memset(&f, 0, sizeof(f));
	f.rec = old;
	f.rec.status = ST_DEFERRED;
	f.rec.fetched_at = 1000000;
	f.rec.digest = 0;
	merge_apply(&old, &f, &cfg, &out);
	CHECK(out.status == ST_DEFERRED && out.retries == 2 && out.digest == 77 &&
	      out.next_fetch == 1000000 + cfg.retry_interval_s * 1000000LL,
	      "deferred: retries %u digest %llu next %lld", out.retries,
	      (unsigned long long)out.digest, (long long)out.next_fetch);
	CHECK_STR(crawl_record_status_name(ST_DEFERRED), "deferred");
	TEST_DONE();
}
