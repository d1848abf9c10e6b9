/*
 * kill.c - the crash tests' hook (tests/e2e/resume.sh), linked only into
 * build/bin/mpicrawl-test, never into bin/mpicrawl.
 *
 * MPICRAWL_TEST_KILL="PHASE SEG MS RANK SIG" makes rank RANK (-1: every
 * rank) send itself signal SIG (9: SIGKILL, 15: SIGTERM, ...) MS ms after
 * phase PHASE (inject, generate, fetch, parse, update) of segment SEG (0
 * for inject) starts in `crawl` (round/round.h's round_phase_hook).
 */
#include "round/round.h"

#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

static int kill_sig;
static long kill_ms;

static void *kill_later(void *arg)
{
	struct timespec ts = { kill_ms / 1000, (kill_ms % 1000) * 1000000 };

	(void)arg;
	nanosleep(&ts, NULL);
	kill(getpid(), kill_sig);
	return NULL;
}

static void kill_arm(const struct job *j, const char *phase, int seg)
{
	const char *spec = getenv("MPICRAWL_TEST_KILL");
	char ph[16];
	int sseg, rank, sig;
	long ms;
	pthread_t t;

	if (!spec || kill_sig ||
	    sscanf(spec, "%15s %d %ld %d %d", ph, &sseg, &ms, &rank, &sig) != 5)
		return;
	if (strcmp(ph, phase) || sseg != seg || (rank >= 0 && rank != j->rank) || ms < 0 ||
	    sig <= 0)
		return;
	kill_sig = sig;
	kill_ms = ms;
	if (pthread_create(&t, NULL, kill_later, NULL) == 0)
		pthread_detach(t);
}

__attribute__((constructor)) static void install(void)
{
	round_phase_hook = kill_arm;
}
