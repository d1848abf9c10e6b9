#include "util/log.h"
#include "util/error.h"

#include <stdarg.h>
#include <string.h>
#include <stdio.h>
#include <stdlib.h>
#include <time.h>
#include <unistd.h>

static int log_rank;
static int log_debug_on = -1;

/*
 * Text from outside (a seed, a URL, a header) may hold terminal control
 * sequences: every control byte of a line but its end is written as \xNN,
 * so a log line never moves the cursor, sets a title or rings a bell.
 */
static int escape_controls(char *line, int n, int cap)
{
	char out[2048];
	int i, m = 0;

	for (i = 0; i < n && m < (int)sizeof(out) - 4; i++) {
		unsigned char ch = (unsigned char)line[i];

		if (ch < 0x20 || ch == 0x7f) {
			m += snprintf(out + m, sizeof(out) - (size_t)m, "\\x%02x", ch);
			continue;
		}
		out[m++] = (char)ch;
	}
	if (m > cap)
		m = cap;
	memcpy(line, out, (size_t)m);
	return m;
}

void log_set_rank(int rank)
{
	log_rank = rank;
}

void log_msg(char level, const char *stage, const char *fmt, ...)
{
	char line[1024];
	struct timespec ts;
	struct tm tm;
	va_list ap;
	int n, m;

	if (level == 'D') {
		if (log_debug_on < 0)
			log_debug_on = getenv("MPICRAWL_DEBUG") != NULL;
		if (!log_debug_on)
			return;
	}
	clock_gettime(CLOCK_REALTIME, &ts);
	gmtime_r(&ts.tv_sec, &tm);
	n = snprintf(line, sizeof(line),
		     "%04d-%02d-%02dT%02d:%02d:%02d.%03ldZ r%04d %s %c ",
		     tm.tm_year + 1900, tm.tm_mon + 1, tm.tm_mday, tm.tm_hour,
		     tm.tm_min, tm.tm_sec, ts.tv_nsec / 1000000, log_rank, stage,
		     level);
	va_start(ap, fmt);
	m = vsnprintf(line + n, sizeof(line) - (size_t)n - 1, fmt, ap);
	va_end(ap);
	if (m < 0)
		m = 0;
	if (m > (int)sizeof(line) - n - 2)
		m = (int)sizeof(line) - n - 2;
	n += escape_controls(line + n, m, (int)sizeof(line) - n - 2);
	if (n > (int)sizeof(line) - 2)
		n = (int)sizeof(line) - 2;
	line[n++] = '\n';
	if (write(STDERR_FILENO, line, (size_t)n) < 0)
		return;
}


int log_launcher_rank(void)
{
	static const char *const vars[] = { "OMPI_COMM_WORLD_RANK", "PMIX_RANK",
					    "PMI_RANK", "SLURM_PROCID" };
	size_t i;

	for (i = 0; i < sizeof(vars) / sizeof(vars[0]); i++) {
		const char *v = getenv(vars[i]);

		if (v)
			return (int)strtol(v, NULL, 10);
	}
	return 0;
}

void log_user(const char *fmt, ...)
{
	va_list ap;

	char line[1024];
	int n;

	if (log_launcher_rank() != 0)
		return;
	va_start(ap, fmt);
	n = vsnprintf(line, sizeof(line), fmt, ap);
	va_end(ap);
	if (n < 0)
		n = 0;
	if (n > (int)sizeof(line) - 1)
		n = (int)sizeof(line) - 1;
	n = escape_controls(line, n, (int)sizeof(line) - 1);
	fprintf(stderr, "mpicrawl: %.*s\n", n, line);
}
