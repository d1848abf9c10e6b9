/*
 * handoff.h - requisites of other ranks' hosts, fetched in the same round.
 *
 * Why: a page replays as it looked only with its images, stylesheets and
 * fonts, and these often live on another host (a CDN, a fonts server) that
 * another rank owns - its robots.txt rules and its politeness are that
 * rank's. Left to update, they would be fetched a round later (or never,
 * after the last round), so a snapshot would not be one. Heritrix fetches
 * such embeds (its "E" hops) right after their page; this does it at the
 * end of the fetch loop: every rank hands the requisites its pages showed
 * on hosts of other origins (frontier.h, follow_handoff) to the ranks that
 * own those hosts, which queue what their seen-sets and queues do not hold
 * (frontier_take) and run the fetch loop again. A stylesheet fetched so
 * has requisites of its own: up to HANDOFF_ROUNDS_MAX hand-offs a phase
 * (a page's, its stylesheet's, an @import's); what is left after them,
 * and what a full hand-off cannot take, waits for update as before.
 *
 * The receiver decides from its own hosts, seen-sets and queues once every
 * rank's pages are fetched, so which requisites are fetched does not
 * depend on the rank count. A requisite handed over is journaled by the
 * sender with its page (segout_handoff) and by the receiver as a followed
 * link, so a resumed fetch hands over and queues what an uninterrupted one
 * would.
 */
#ifndef CR_FETCH_HANDOFF_H
#define CR_FETCH_HANDOFF_H

#include <stdint.h>

#include "fetch/fetchlist.h"
#include "fetch/frontier.h"
#include "fetch/segout.h"
#include "util/error.h"

#define HANDOFF_ROUNDS_MAX 3

/*
 * Collective: every rank calls it as often as the others, whatever its
 * state (go = 0 when it may start nothing more: a failure, a stop, the
 * time limit; then it hands over and takes nothing, and the phase must not
 * commit on any rank - what it was sent is only in the senders' journals;
 * fr may be unused). Sums what the ranks have to hand over in this
 * hand-off (frontier_handoff_pending): none, and *more = 0 (no rank needs
 * to fetch again). Otherwise the hand-offs go out (comm_exchange), what
 * arrives is queued through l - one copy of each URL, the first in
 * frontier.h's order; frontier_take, limit: the phase's time limit,
 * monotonic µs - and *more = 1. CR_ERR_COMM if the exchange failed.
 */
CR_WUR enum cr_err handoff_exchange(struct frontier *fr, int go, struct fetchlist_load *l,
				    int64_t limit, struct segout *out, int *more);

#endif
