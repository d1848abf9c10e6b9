#include "util/stop.h"
#include "util/clock.h"
#include "util/lock.h"

#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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

static char watch_path[PATH_MAX];
static int64_t watch_next;

int stop_file_names(const char *text, long pid, const char *host)
{
	struct lock_holder h;

	lock_holder_parse(text, &h);   /* the lock's own lines name the job */
	return pid > 0 && h.pid == pid && !strcmp(h.host, host);
}

void stop_watch_file(const char *path)
{
	snprintf(watch_path, sizeof(watch_path), "%s", path);
	watch_next = 0;
}

/* The control file, looked at once a second at most. */
static void look_for_file(void)
{
	char text[1024], host[256] = "";
	int64_t now = clock_mono_us();
	size_t n;
	FILE *fp;

	if (!watch_path[0] || now < watch_next)
		return;
	watch_next = now + 1000000;
	if (!(fp = fopen(watch_path, "r")))
		return;
	n = fread(text, 1, sizeof(text) - 1, fp);
	fclose(fp);
	text[n] = '\0';
	if (gethostname(host, sizeof(host) - 1) == 0 && stop_file_names(text, (long)getpid(), host))
		stop_request(SIGUSR1);
}

int stop_requested(void)
{
	if (!stop_sig)
		look_for_file();
	return (int)stop_sig;
}

void stop_request(int sig)
{
	if (!stop_sig)
		stop_sig = sig;
}
