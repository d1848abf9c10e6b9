#include "util/mem.h"
#include "util/log.h"

#include <stdio.h>
#include <unistd.h>

static size_t base;

size_t mem_rss(void)
{
	unsigned long long size, resident;
	FILE *f = fopen("/proc/self/statm", "r");
	int n;

	if (!f)
		return 0;
	n = fscanf(f, "%llu %llu", &size, &resident);
	fclose(f);
	if (n != 2)
		return 0;
	return (size_t)resident * (size_t)sysconf(_SC_PAGESIZE);
}

size_t mem_note_base(void)
{
	return base = mem_rss();
}

size_t mem_left(size_t total, size_t held)
{
	return held <= total / 2 ? total - held : total / 2;
}

size_t mem_budget(long budget_mb)
{
	static int said;
	size_t total = (size_t)budget_mb << 20;

	if (base > total / 2 && !said++)
		log_warn("job", "the process holds %zu MiB before any phase starts, more than "
			 "half of memory.budget_mb (%ld MiB): phases take half the budget, and "
			 "the rank will go over it", base >> 20, budget_mb);
	return mem_left(total, base);
}
