/*
 * main.c - simweb's command line: serve the web (and with --hostile its
 * hostile quarter), or print its truth, seeds, host list or near-duplicate
 * pairs; or serve one of the other webs, --graph (graph.h) and --changing
 * (changing.h), or print their truths: PageRank, change rates, and the
 * freshness a crawler kept, read from the server's request log.
 *
 * --clock-file puts the server, in any mode, on a simulated clock
 * (server.h): the pages of --changing change by it, and --freshness reads
 * the log's times as times of that clock.
 *
 * Usage errors exit 2 with one line on stderr, as the tests expect a clear
 * refusal rather than a server on a half-understood configuration.
 */
#include <errno.h>
#include <getopt.h>
#include <stdlib.h>
#include <string.h>

#include "changing.h"
#include "graph.h"
#include "hostile.h"
#include "server.h"
#include "web.h"

static const char simweb_usage[] =
	"usage: simweb --hosts N --pages M [--seed S] [--domain D] [--port P] [--bind ADDR]\n"
	"              [--port-file FILE] [--log FILE] [--agent A] [--latency-ms L]\n"
	"              [--politeness [--max-crawl-delay-ms C]] [--dupes F] [--hostile]\n"
	"              [--retry-after S] [--sites K] [--sitemaps] [--page-bytes B] [--blocks]\n"
	"              [--multilingual] [--clock-file FILE]\n"
	"       simweb --graph --hosts N --pages M [--seed S] [--domain D] [--port P] ...\n"
	"       simweb --graph (--seeds | --pagerank | --links) --hosts N --pages M [--seed S] [--domain D]\n"
	"              --port P\n"
	"       simweb --changing --epoch E --hosts N --pages M [--seed S] [--domain D] [--port P]\n"
	"              [--clock-file FILE] ...\n"
	"       simweb --changing (--seeds | --rates) --hosts N --pages M [--seed S] [--domain D]\n"
	"              --port P\n"
	"       simweb --changing --freshness LOG --from T1 --to T2 --epoch E --hosts N --pages M\n"
	"              [--seed S] [--domain D]\n"
	"       simweb --truth --hosts N --pages M [--seed S] [--domain D] --port P [--agent A]\n"
	"              [--politeness [--max-crawl-delay-ms C]] [--dupes F]\n"
	"              [--hostile [--max-redirects R]] [--sites K] [--scope-hosts FILE]\n"
	"              [--sitemaps]\n"
	"       simweb --seeds --hosts N --pages M [--domain D] --port P\n"
	"       simweb --hostinfo --hosts N --pages M [--domain D] [--politeness]\n"
	"       simweb --lines --hosts N --pages M [--seed S] [--domain D] --port P [--sites K]\n"
	"              [--page-bytes B] [--blocks] [--multilingual]\n"
	"       simweb --languages --hosts N --pages M [--domain D] [--sites K] [--multilingual]\n"
	"       simweb --pairs --hosts N --pages M --dupes F [--seed S] [--domain D] --port P\n"
	"              [--agent A] [--politeness [--max-crawl-delay-ms C]]\n";

static int simweb_fail(const char *msg, const char *arg)
{
	fprintf(stderr, "simweb: %s%s%s%s (try --help)\n", msg, arg ? " '" : "", arg ? arg : "",
		arg ? "'" : "");
	return 2;
}

/* Parses a whole unsigned decimal no larger than max. */
static int simweb_number(const char *s, unsigned long long max, unsigned long long *out)
{
	char *end;
	unsigned long long v;

	if (*s < '0' || *s > '9')
		return -1;
	errno = 0;
	v = strtoull(s, &end, 10);
	if (errno || *end || v > max)
		return -1;
	*out = v;
	return 0;
}

/* Reads --scope-hosts: one host name a line, each a host of the web. */
static int simweb_scope(struct web *w, const char *path, char *err, size_t errlen)
{
	static unsigned char in[WEB_HOSTS_MAX];
	FILE *fp = fopen(path, "r");
	char line[WEB_HOSTNAME_MAX + 2];
	unsigned h;

	if (!fp) {
		snprintf(err, errlen, "cannot read --scope-hosts file");
		return -1;
	}
	while (fgets(line, sizeof(line), fp)) {
		line[strcspn(line, "\r\n")] = '\0';
		if (!line[0])
			continue;
		if (web_find_host(w, line, &h) < 0) {
			snprintf(err, errlen, "--scope-hosts: not a host of the web: %.60s", line);
			fclose(fp);
			return -1;
		}
		in[h] = 1;
	}
	fclose(fp);
	w->in_scope = in;
	return 0;
}

enum { GRAPH_SERVE = 0, GRAPH_SEEDS = 1, GRAPH_PAGERANK = 2, GRAPH_LINKS = 3, GRAPH_OTHER = -1 };

/* --graph: serve it, or print its seeds, PageRank or links (mode); other
 * modes and the options that change pages do not go with it. */
static int simweb_graph(struct web *w, struct srv_opts *so, int mode, int other)
{
	if (other)
		return simweb_fail("--graph does not go with --politeness, --dupes, --hostile, "
				   "--sitemaps, --page-bytes, --blocks or --multilingual", NULL);
	if (mode == GRAPH_SEEDS) {
		graph_seeds(w, stdout);
		return fflush(stdout) == 0 ? 0 : 1;
	}
	if (mode == GRAPH_PAGERANK) {
		if (graph_pagerank(w, stdout) < 0 || fflush(stdout) != 0) {
			fprintf(stderr, "simweb: --pagerank failed: out of memory or output error\n");
			return 1;
		}
		return 0;
	}
	if (mode == GRAPH_LINKS) {
		if (graph_print_links(w, stdout) < 0 || fflush(stdout) != 0) {
			fprintf(stderr, "simweb: --links failed: output error\n");
			return 1;
		}
		return 0;
	}
	if (mode)
		return simweb_fail("--graph goes with --seeds, --pagerank, --links or nothing", NULL);
	return srv_run(w, so) == 0 ? 0 : 1;
}

enum { CHANGING_SERVE = 0, CHANGING_SEEDS, CHANGING_RATES, CHANGING_FRESHNESS,
       CHANGING_OTHER = -1 };

#define SIMWEB_TIME_MAX (1ULL << 40)   /* --epoch, --from, --to: unix seconds */

/* --freshness's log and window, and which of the options were given. */
struct simweb_window {
	const char *log;
	unsigned long long from, to;
	int have_from, have_to, have_epoch;
};

/* --changing --freshness: the freshness over [--from, --to] from the log. */
static int simweb_freshness(const struct web *w, const struct simweb_window *win)
{
	FILE *in;
	int rc;

	if (!win->have_from || !win->have_to || !win->have_epoch)
		return simweb_fail("--freshness needs --from, --to and --epoch", NULL);
	if (win->from >= win->to)
		return simweb_fail("--from must be before --to", NULL);
	in = fopen(win->log, "r");
	if (!in) {
		fprintf(stderr, "simweb: cannot read --freshness log '%s': %s\n", win->log,
			strerror(errno));
		return 1;
	}
	rc = changing_freshness(w, in, (long long)win->from, (long long)win->to, stdout);
	fclose(in);
	return rc == 0 && fflush(stdout) == 0 ? 0 : 1;
}

/* --changing: serve it, print its seeds or rates (mode), or the freshness
 * of a crawl of it; other modes and the options that change pages do not
 * go with it. */
static int simweb_changing(struct web *w, struct srv_opts *so, int mode, int other,
			   const struct simweb_window *win)
{
	if (other)
		return simweb_fail("--changing does not go with --graph, --politeness, --dupes, "
				   "--hostile, --sitemaps, --page-bytes, --blocks, --multilingual "
				   "or --scope-hosts", NULL);
	if (mode == CHANGING_OTHER)
		return simweb_fail("--changing goes with --seeds, --rates, --freshness or nothing",
				   NULL);
	if ((win->have_from || win->have_to) && mode != CHANGING_FRESHNESS)
		return simweb_fail("--from and --to go with --freshness", NULL);
	if (mode == CHANGING_SEEDS || mode == CHANGING_RATES) {
		if ((mode == CHANGING_SEEDS ? changing_seeds(w, stdout) :
		     changing_rates(w, stdout)) < 0 || fflush(stdout) != 0) {
			fprintf(stderr, "simweb: output error\n");
			return 1;
		}
		return 0;
	}
	if (mode == CHANGING_FRESHNESS)
		return simweb_freshness(w, win);
	if (!win->have_epoch)
		return simweb_fail("serving --changing needs --epoch", NULL);
	return srv_run(w, so) == 0 ? 0 : 1;
}

int main(int argc, char **argv)
{
	enum { OPT_HOSTS = 256, OPT_PAGES, OPT_SEED, OPT_DOMAIN, OPT_PORT, OPT_BIND,
	       OPT_PORT_FILE, OPT_LOG, OPT_AGENT, OPT_TRUTH, OPT_SEEDS, OPT_HELP,
	       OPT_POLITENESS, OPT_LATENCY, OPT_MAX_DELAY, OPT_HOSTINFO, OPT_DUPES, OPT_PAGE_BYTES,
	       OPT_PAIRS, OPT_BLOCKS, OPT_LINES, OPT_MULTILINGUAL, OPT_LANGUAGES, OPT_HOSTILE, OPT_MAX_REDIRECTS, OPT_RETRY_AFTER, OPT_SITES,
	       OPT_SCOPE_HOSTS, OPT_SITEMAPS, OPT_GRAPH, OPT_PAGERANK, OPT_LINKS, OPT_CHANGING, OPT_RATES,
	       OPT_FRESHNESS, OPT_FROM, OPT_TO, OPT_EPOCH, OPT_CLOCK_FILE };
	static const struct option opts[] = {
		{ "hosts", required_argument, NULL, OPT_HOSTS },
		{ "pages", required_argument, NULL, OPT_PAGES },
		{ "seed", required_argument, NULL, OPT_SEED },
		{ "domain", required_argument, NULL, OPT_DOMAIN },
		{ "port", required_argument, NULL, OPT_PORT },
		{ "bind", required_argument, NULL, OPT_BIND },
		{ "port-file", required_argument, NULL, OPT_PORT_FILE },
		{ "log", required_argument, NULL, OPT_LOG },
		{ "agent", required_argument, NULL, OPT_AGENT },
		{ "truth", no_argument, NULL, OPT_TRUTH },
		{ "seeds", no_argument, NULL, OPT_SEEDS },
		{ "help", no_argument, NULL, OPT_HELP },
		{ "politeness", no_argument, NULL, OPT_POLITENESS },
		{ "latency-ms", required_argument, NULL, OPT_LATENCY },
		{ "max-crawl-delay-ms", required_argument, NULL, OPT_MAX_DELAY },
		{ "hostinfo", no_argument, NULL, OPT_HOSTINFO },
		{ "dupes", required_argument, NULL, OPT_DUPES },
		{ "page-bytes", required_argument, NULL, OPT_PAGE_BYTES },
		{ "pairs", no_argument, NULL, OPT_PAIRS },
		{ "blocks", no_argument, NULL, OPT_BLOCKS },
		{ "lines", no_argument, NULL, OPT_LINES },
		{ "multilingual", no_argument, NULL, OPT_MULTILINGUAL },
		{ "languages", no_argument, NULL, OPT_LANGUAGES },
		{ "hostile", no_argument, NULL, OPT_HOSTILE },
		{ "max-redirects", required_argument, NULL, OPT_MAX_REDIRECTS },
		{ "retry-after", required_argument, NULL, OPT_RETRY_AFTER },
		{ "sites", required_argument, NULL, OPT_SITES },
		{ "scope-hosts", required_argument, NULL, OPT_SCOPE_HOSTS },
		{ "sitemaps", no_argument, NULL, OPT_SITEMAPS },
		{ "graph", no_argument, NULL, OPT_GRAPH },
		{ "pagerank", no_argument, NULL, OPT_PAGERANK },
		{ "links", no_argument, NULL, OPT_LINKS },
		{ "changing", no_argument, NULL, OPT_CHANGING },
		{ "rates", no_argument, NULL, OPT_RATES },
		{ "freshness", required_argument, NULL, OPT_FRESHNESS },
		{ "from", required_argument, NULL, OPT_FROM },
		{ "to", required_argument, NULL, OPT_TO },
		{ "epoch", required_argument, NULL, OPT_EPOCH },
		{ "clock-file", required_argument, NULL, OPT_CLOCK_FILE },
		{ NULL, 0, NULL, 0 },
	};
	struct web w = { .seed = 1, .domain = "sim.test", .agent = "mpicrawl",
			 .max_crawl_delay_ms = 30000, .max_redirects = 5, .retry_after_s = 1 };
	struct srv_opts so = { .bind = "127.0.0.1" };
	struct simweb_window win = { 0 };
	unsigned long long v;
	int mode = 0, have_hosts = 0, have_pages = 0, have_port = 0, opt;
	const char *scope_hosts = NULL;
	char err[160];

	opterr = 0;
	while ((opt = getopt_long(argc, argv, ":", opts, NULL)) != -1) {
		switch (opt) {
		case OPT_HOSTS:
		case OPT_PAGES:
		case OPT_PORT:
			if (simweb_number(optarg, opt == OPT_PORT ? 65535 : WEB_PAGES_MAX, &v) < 0)
				return simweb_fail("bad number", optarg);
			if (opt == OPT_HOSTS)
				w.hosts = (unsigned)v, have_hosts = 1;
			else if (opt == OPT_PAGES)
				w.pages = (unsigned)v, have_pages = 1;
			else
				so.port = w.port = (unsigned)v, have_port = 1;
			break;
		case OPT_SEED:
			if (simweb_number(optarg, UINT64_MAX, &v) < 0)
				return simweb_fail("bad --seed", optarg);
			w.seed = v;
			break;
		case OPT_DOMAIN:
		case OPT_AGENT:
			if (strlen(optarg) > (opt == OPT_DOMAIN ? WEB_DOMAIN_MAX : WEB_AGENT_MAX))
				return simweb_fail("value too long", optarg);
			if (opt == OPT_DOMAIN)
				snprintf(w.domain, sizeof(w.domain), "%s", optarg);
			else
				snprintf(w.agent, sizeof(w.agent), "%s", optarg);
			break;
		case OPT_LATENCY:
		case OPT_MAX_DELAY:
			if (simweb_number(optarg, opt == OPT_LATENCY ? WEB_LATENCY_MAX :
					  WEB_CRAWL_DELAY_CAP_MAX, &v) < 0)
				return simweb_fail("bad number", optarg);
			if (opt == OPT_LATENCY)
				w.latency_ms = (unsigned)v;
			else
				w.max_crawl_delay_ms = (unsigned)v;
			break;
		case OPT_DUPES:
			if (simweb_number(optarg, WEB_PAGES_MAX, &v) < 0)
				return simweb_fail("bad --dupes", optarg);
			w.dupes = (unsigned)v;
			break;
		case OPT_PAGE_BYTES:
			if (simweb_number(optarg, WEB_PAGE_BYTES_MAX, &v) < 0)
				return simweb_fail("bad --page-bytes", optarg);
			w.page_bytes = (unsigned)v;
			break;
		case OPT_POLITENESS:
			w.politeness = 1;
			break;
		case OPT_HOSTILE:
			w.hostile = 1;
			break;
		case OPT_RETRY_AFTER:
			if (simweb_number(optarg, 86400, &v) < 0 || v < 1)
				return simweb_fail("bad --retry-after", optarg);
			w.retry_after_s = (unsigned)v;
			break;
		case OPT_SITES:
			if (simweb_number(optarg, WEB_SITES_MAX, &v) < 0)
				return simweb_fail("bad --sites", optarg);
			w.sites = (unsigned)v;
			break;
		case OPT_SCOPE_HOSTS:
			scope_hosts = optarg;
			break;
		case OPT_SITEMAPS:
			w.sitemaps = 1;
			break;
		case OPT_MAX_REDIRECTS:
			if (simweb_number(optarg, HOSTILE_REDIRECTS_MAX, &v) < 0 || v < 1)
				return simweb_fail("bad --max-redirects", optarg);
			w.max_redirects = (unsigned)v;
			break;
		case OPT_BIND:
			so.bind = optarg;
			break;
		case OPT_PORT_FILE:
			so.port_file = optarg;
			break;
		case OPT_LOG:
			so.log_path = optarg;
			break;
		case OPT_BLOCKS:
			w.blocks = 1;
			break;
		case OPT_GRAPH:
			w.graph = 1;
			break;
		case OPT_CHANGING:
			w.changing = 1;
			break;
		case OPT_EPOCH:
		case OPT_FROM:
		case OPT_TO:
			if (simweb_number(optarg, SIMWEB_TIME_MAX, &v) < 0)
				return simweb_fail("bad time (unix seconds)", optarg);
			if (opt == OPT_EPOCH)
				w.epoch = (long long)v, win.have_epoch = 1;
			else if (opt == OPT_FROM)
				win.from = v, win.have_from = 1;
			else
				win.to = v, win.have_to = 1;
			break;
		case OPT_CLOCK_FILE:
			so.clock_file = optarg;
			break;
		case OPT_MULTILINGUAL:
			w.multilingual = 1;
			break;
		case OPT_TRUTH:
		case OPT_SEEDS:
		case OPT_HOSTINFO:
		case OPT_PAIRS:
		case OPT_LINES:
		case OPT_LANGUAGES:
		case OPT_PAGERANK:
		case OPT_LINKS:
		case OPT_RATES:
		case OPT_FRESHNESS:
			if (mode && mode != opt)
				return simweb_fail("--truth, --seeds, --hostinfo, --pairs, --lines, "
						   "--languages, --pagerank, --links, --rates and "
						   "--freshness exclude each other", NULL);
			mode = opt;
			if (opt == OPT_FRESHNESS)
				win.log = optarg;
			break;
		case OPT_HELP:
			fputs(simweb_usage, stdout);
			return 0;
		case ':':
			return simweb_fail("option needs a value:", argv[optind - 1]);
		default:
			return simweb_fail("unknown option", argv[optind - 1]);
		}
	}
	if (optind < argc)
		return simweb_fail("unexpected argument", argv[optind]);
	if (!have_hosts || !have_pages)
		return simweb_fail("--hosts and --pages are required", NULL);
	if (mode && mode != OPT_HOSTINFO && mode != OPT_LANGUAGES && mode != OPT_FRESHNESS &&
	    (!have_port || w.port == 0))
		return simweb_fail("--truth, --seeds, --pairs, --lines and --rates need the "
				   "server's --port", NULL);
	if (web_check(&w, err, sizeof(err)) < 0)
		return simweb_fail(err, NULL);
	if (w.changing)
		return simweb_changing(&w, &so, mode == OPT_SEEDS ? CHANGING_SEEDS :
				       mode == OPT_RATES ? CHANGING_RATES :
				       mode == OPT_FRESHNESS ? CHANGING_FRESHNESS :
				       mode ? CHANGING_OTHER : CHANGING_SERVE,
				       w.graph || w.politeness || w.dupes || w.hostile || w.sitemaps ||
				       w.page_bytes || w.blocks || w.multilingual || scope_hosts,
				       &win);
	if (mode == OPT_RATES || mode == OPT_FRESHNESS || win.have_epoch || win.have_from ||
	    win.have_to)
		return simweb_fail("--rates, --freshness, --epoch, --from and --to go with "
				   "--changing", NULL);
	if (w.graph)
		return simweb_graph(&w, &so, mode == OPT_SEEDS ? GRAPH_SEEDS : mode == OPT_PAGERANK ?
				    GRAPH_PAGERANK : mode == OPT_LINKS ? GRAPH_LINKS :
				    mode ? GRAPH_OTHER : GRAPH_SERVE,
				    w.politeness || w.dupes || w.hostile || w.sitemaps ||
				    w.page_bytes || w.blocks || w.multilingual);
	if (mode == OPT_PAGERANK || mode == OPT_LINKS)
		return simweb_fail("--pagerank and --links go with --graph", NULL);
	if (mode == OPT_LANGUAGES) {
		web_host_languages(&w, stdout);
		return fflush(stdout) == 0 ? 0 : 1;
	}
	if (mode == OPT_HOSTINFO) {
		web_hostinfo(&w, stdout);
		return fflush(stdout) == 0 ? 0 : 1;
	}
	if (mode == OPT_SEEDS) {
		web_seeds(&w, stdout);
		return fflush(stdout) == 0 ? 0 : 1;
	}
	if (scope_hosts && mode != OPT_TRUTH)
		return simweb_fail("--scope-hosts goes with --truth", NULL);
	if (mode == OPT_TRUTH) {
		if (scope_hosts && simweb_scope(&w, scope_hosts, err, sizeof(err)) < 0)
			return simweb_fail(err, NULL);
		if (web_truth(&w, stdout) < 0 || fflush(stdout) != 0) {
			fprintf(stderr, "simweb: --truth failed: out of memory or output error\n");
			return 1;
		}
		return 0;
	}
	if (mode == OPT_LINES) {
		if (w.hostile)
			return simweb_fail("--lines does not go with --hostile", NULL);
		if (web_lines(&w, stdout) < 0 || fflush(stdout) != 0) {
			fprintf(stderr, "simweb: --lines failed: out of memory or output error\n");
			return 1;
		}
		return 0;
	}
	if (mode == OPT_PAIRS) {
		if (web_pairs(&w, stdout) < 0 || fflush(stdout) != 0) {
			fprintf(stderr, "simweb: --pairs failed: out of memory or output error\n");
			return 1;
		}
		return 0;
	}
	return srv_run(&w, &so) == 0 ? 0 : 1;
}
