#include "util/stop.h"

#include <signal.h>
#include <string.h>

static volatile sig_atomic_t stop_sig;
static int stop_installed;

static void on_stop(int sig)
{
	if (!stop_sig)
		stop_sig = sig;
}

void stop_install(void)
{
	struct sigaction sa;

	if (stop_installed)
		return;
	stop_installed = 1;
	memset(&sa, 0, sizeof(sa));
	sa.sa_handler = on_stop;
	sigemptyset(&sa.sa_mask);
	/* System calls resume: the event loop polls with a short timeout and
	 * reads the flag on its next turn. */
	sa.sa_flags = SA_RESTART;
	sigaction(SIGTERM, &sa, NULL);
	sigaction(SIGUSR1, &sa, NULL);
	/* Ctrl-C on a process in a terminal: the first stops soon, the second
	 * (the default action, restored) at once. */
	sa.sa_flags = SA_RESTART | SA_RESETHAND;
	sigaction(SIGINT, &sa, NULL);
}

int stop_requested(void)
{
	return (int)stop_sig;
}

void stop_request(int sig)
{
	if (!stop_sig)
		stop_sig = sig;
}
