/*
 * cli.c - what every command that works on a crawl directory shares: its
 * options, and starting and ending the job (configuration, MPI, the
 * directory and its lock). The phases themselves are the round engine's
 * (round/round.h).
 */
#include "cli/cli.h"
#include "comm/comm.h"
#include "crawldb/provenance.h"
#include "round/round.h"
#include "inject/inject.h"
#include "inputs/inputs.h"
#include "url/url.h"
#include "util/clock.h"
#include "util/fs.h"
#include "util/lock.h"
#include "util/log.h"
#include "util/mem.h"
#include "util/stop.h"
#include "status/metrics.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <time.h>
#include <unistd.h>

static void bad_usage(const char *usage, const char *fmt, ...)
	__attribute__((format(printf, 2, 3), noreturn));

static void bad_usage(const char *usage, const char *fmt, ...)
{
	va_list ap;

	if (log_launcher_rank() == 0) {
		fputs("mpicrawl: ", stderr);
		va_start(ap, fmt);
		vfprintf(stderr, fmt, ap);
		va_end(ap);
		fprintf(stderr, "\nusage: %s\n", usage);
	}
	exit(2);
}

static long parse_long(const char *usage, const char *opt, const char *v, long min, long max)
{
	char *end;
	long x = strtol(v, &end, 10);

	if (end == v || *end || x < min || x > max)
		bad_usage(usage, "%s: bad value '%s' (%ld to %ld)", opt, v, min, max);
	return x;
}

/* --help: the usage, the options this command takes, exit codes, and the
 * keys a first crawl most often needs. */
static void help(const char *usage, const char *allowed)
{
	static const struct {
		char letter;
		const char *text;
	} opts[] = {
		{ 'd', "--dir DIR        the crawl directory (created by crawl and inject)" },
		{ 's', "--seeds FILE     seed URLs, one per line (# comments); on a crawl that\n"
		       "                   goes on, added before its next round" },
		{ 'r', "--rounds N       at most N rounds (default: until nothing is due,\n"
		       "                   at most crawl.max_rounds)" },
		{ 'g', "--segment N      the segment to work on (default: the last)" },
		{ 'c', "--config FILE    configuration file: 'key = value' lines" },
		{ 'S', "--set KEY=VALUE  one configuration key, after the file (repeatable)" },
	};
	size_t i;

	if (log_launcher_rank() != 0)
		return;
	printf("usage: %s\n\noptions:\n", usage);
	for (i = 0; i < sizeof(opts) / sizeof(opts[0]); i++)
		if (strchr(allowed, opts[i].letter))
			printf("  %s\n", opts[i].text);
	printf("  --help           this text\n\n"
	       "exit codes: 0 done; 1 failed (the reason is logged); 2 bad usage, bad\n"
	       "configuration or bad seeds (nothing was changed); 75 stopped on a signal\n"
	       "(SIGTERM, SIGUSR1): what was done is kept, run the same command again;\n"
	       "69 a node or its network was lost: what was done is kept, run again on\n"
	       "nodes that work\n\n"
	       "keys most often needed (docs/CONFIG.md lists them all):\n"
	       "  politeness.delay_ms=1000     ms between requests to one host\n"
	       "  dns.servers=IP[:PORT],...    DNS servers (default: /etc/resolv.conf)\n"
	       "  fetch.allow_private=false    true to crawl loopback or a private network\n"
	       "  generate.round_s=auto        seconds of each host's time a round plans for\n"
	       "  fetch.time_limit_s=0         end each fetch phase after this long\n"
	       "  robots.agent=mpicrawl        the token robots.txt rules are read for\n"
	       "  http.user_agent=mpicrawl/0.1 the User-Agent header\n"
	       "  partition.count=16           fixed when the crawl directory is created\n");
}

void cli_parse(int argc, char **argv, const char *cmd, const char *allowed,
	       const char *usage, struct cli_opts *o)
{
	static const struct option longs[] = {
		{ "dir", required_argument, NULL, 'd' },
		{ "seeds", required_argument, NULL, 's' },
		{ "config", required_argument, NULL, 'c' },
		{ "set", required_argument, NULL, 'S' },
		{ "rounds", required_argument, NULL, 'r' },
		{ "segment", required_argument, NULL, 'g' },
		{ "help", no_argument, NULL, 'h' },
		{ NULL, 0, NULL, 0 },
	};
	int c;

	(void)cmd;
	memset(o, 0, sizeof(*o));
	o->judges = !strcmp(cmd, "crawl") || !strcmp(cmd, "inject") || !strcmp(cmd, "generate") ||
		    !strcmp(cmd, "fetch") || !strcmp(cmd, "update");
	opterr = 0;
	optind = 1;
	while ((c = getopt_long(argc, argv, ":", longs, NULL)) != -1) {
		if (c == 'h') {
			help(usage, allowed);
			exit(0);
		}
		if (c == '?')
			bad_usage(usage, "unknown option '%s'", argv[optind - 1]);
		if (c == ':')
			bad_usage(usage, "option '%s' needs a value", argv[optind - 1]);
		if (!strchr(allowed, c))
			bad_usage(usage, "option '%s' does not apply here", argv[optind - 2]);
		switch (c) {
		case 'd':
			if (!*optarg)
				bad_usage(usage, "--dir is empty");
			o->dir = optarg;
			break;
		case 's': o->seeds = optarg; break;
		case 'c': o->config = optarg; break;
		case 'r': o->rounds = parse_long(usage, "--rounds", optarg, 1, 1000000); break;
		case 'g': o->segment = (int)parse_long(usage, "--segment", optarg, 1, 99999); break;
		case 'S':
			if (o->nsets >= (int)(sizeof(o->sets) / sizeof(o->sets[0])))
				bad_usage(usage, "too many --set options");
			o->sets[o->nsets++] = optarg;
			break;
		}
	}
	if (optind < argc)
		bad_usage(usage, "unexpected argument '%s'", argv[optind]);
	if (strchr(allowed, 'd') && !o->dir)
		bad_usage(usage, "--dir is required");
}

/* The crawl directory's lock, held by rank 0 from cli_job_start to cli_job_end. */
static struct dir_lock job_lock = { .fd = -1 };
/* DIR/stop, the control file `mpicrawl stop` writes (util/stop.h): rank 0. */
static char stop_path[PATH_MAX];
/* The crawl directory, once rank 0 holds it: DIR/last_job is written there. */
static char job_dir[PATH_MAX];
/* Started by a launcher (mpirun, srun): a clean stop exits 0 (see
 * cli_job_end). */
static int launched;
/* This rank's scratch directory (job_tmpdir), removed at the job's end. */
static char scratch[PATH_MAX];

/* Rank 0 takes DIR/lock (ranks may run on several hosts: one holder per
 * job); every rank learns whether it got it. */
static int take_lock(struct job *j, const char *dir)
{
	enum cr_err e = CR_OK;
	struct lock_holder h;

	if (j->rank == 0) {
		char path[PATH_MAX];

		layout_top(dir, "lock", path, sizeof(path));
		e = fs_mkdirs(dir);
		if (!e)
			e = lock_acquire(path, &job_lock, &h);
		if (e == CR_ERR_STATE) {
			char who[512];

			lock_holder_str(&h, who, sizeof(who));
			log_user("crawl directory '%s' is in use by %s; if that job is gone, "
				  "run 'mpicrawl unlock --dir %s'", dir, who, dir);
		}
		if (e == CR_OK) {
			snprintf(job_dir, sizeof(job_dir), "%s", dir);
			/* one left by a job that ended before it looked is not ours */
			layout_top(dir, "stop", stop_path, sizeof(stop_path));
			unlink(stop_path);
			stop_watch_file(stop_path);
		}
	}
	return comm_agree(e == CR_OK);
}

/* A seed file that cannot be read is bad input: said before anything is
 * created in the crawl directory. So is a pipe (`--seeds <(...)`): rank 0
 * reads the seeds twice - here, then its copy into provenance/ - and a pipe
 * gives its lines to the first reader only. */
static int seeds_readable(const char *path)
{
	struct stat st;
	FILE *fp;

	/* Asked first: opening a FIFO would wait for a writer. */
	if (stat(path, &st) == 0 && !S_ISREG(st.st_mode)) {
		log_user("seed file '%s' is not a regular file (the seeds are read more than "
			 "once, a pipe only once): save them to a file first", path);
		return 0;
	}
	fp = fopen(path, "r");
	if (!fp) {
		log_user("cannot read seed file '%s' on %s: %s", path, inputs_node(),
			 strerror(errno));
		return 0;
	}
	fclose(fp);
	return 1;
}

/* A seed file without one valid seed is bad input too (rank 0). Returns an
 * exit code. */
static int check_seeds(const char *path)
{
	uint64_t lines, invalid;
	char first[200];
	enum cr_err e;

	if (!seeds_readable(path))
		return 2;
	e = inject_check(path, &lines, &invalid, first, sizeof(first));
	if (e == CR_OK)
		return 0;
	if (e == CR_EOF)
		log_user("no valid seed in '%s' (%llu lines, %llu invalid%s%s): nothing was done",
			 path, (unsigned long long)lines, (unsigned long long)invalid,
			 first[0] ? "; " : "", first);
	else
		log_user("cannot read seed file '%s' on %s", path, inputs_node());
	return 2;
}

/* A crawl directory not made yet needs seeds: say so before making it. */
static int seeds_given_for_new(const struct cli_opts *o)
{
	char path[PATH_MAX];
	struct stat st;

	if (o->seeds || !o->dir)
		return 1;
	snprintf(path, sizeof(path), "%s/crawl.meta", o->dir);
	if (stat(path, &st) == 0 || errno != ENOENT)
		return 1;   /* a crawl, or for the job's own checks to say */
	snprintf(path, sizeof(path), "%s/crawldb", o->dir);
	if (stat(path, &st) == 0 || errno != ENOENT)
		return 1;   /* a damaged one: the job's checks say so */
	log_user("'%s' holds no crawl yet: give --seeds to start one", o->dir);
	return 0;
}

/* Rank 0's part of the start: the configuration (defaults, file, --set and
 * their checks, which read each file a key names into the job's inputs)
 * and the seeds. Returns an exit code. */
static int read_inputs(struct job *j, const struct cli_opts *o, int create)
{
	int i;

	if (o->config && config_load(&j->cfg, o->config) != CR_OK)
		return 2;
	for (i = 0; i < o->nsets; i++)
		if (config_set_kv(&j->cfg, o->sets[i]) != CR_OK)
			return 2;
	if (config_check(&j->cfg) != CR_OK || (create && !seeds_given_for_new(o)))
		return 2;
	url_configure(&j->cfg);   /* which seeds are valid depends on it */
	return o->seeds ? check_seeds(o->seeds) : 0;
}

/*
 * The user's files may exist on rank 0's node alone: rank 0 reads them,
 * and every rank learns the outcome, then gets the configuration as rank 0
 * parsed it and the files' bytes (inputs/inputs.h). A bad input ends every
 * rank alike (one line from rank 0, exit 2), so none waits for another.
 */
static int take_inputs(struct job *j, const struct cli_opts *o, int create)
{
	int code = j->rank == 0 ? read_inputs(j, o, create) : 0;

	comm_bcast(&code, sizeof(code), 0);
	if (code)
		return code;
	/* Plain data, and every rank runs the same program: each holds the
	 * very configuration rank 0 parsed (relative names made absolute in
	 * rank 0's directory), so what is made of it - the warcinfo's
	 * config-digest - is the same on every rank. */
	comm_bcast(&j->cfg, sizeof(j->cfg), 0);
	if (inputs_share() != CR_OK) {
		log_user("cannot hand the input files to every rank");
		return 1;
	}
	return 0;
}

int cli_job_start(struct job *j, const struct cli_opts *o, int create)
{
	size_t held;
	int rc;
	enum cr_err e = CR_OK;

	memset(j, 0, sizeof(*j));
	config_defaults(&j->cfg);
	/* read before MPI starts: a singleton's MPI_Init may set them */
	launched = getenv("OMPI_COMM_WORLD_SIZE") || getenv("PMIX_RANK") || getenv("PMI_RANK");
	if (comm_init(NULL, NULL) != CR_OK) {
		log_user("cannot start MPI");
		return 1;
	}
	j->rank = comm_rank();
	j->nranks = comm_size();
	if (!comm_agree(clock_offset_ok())) {
		if (j->rank == 0)
			log_user("MPICRAWL_CLOCK_OFFSET_S: bad value (whole seconds, at most 100 "
				 "years either way, on every rank)");
		return 2;
	}
	rc = take_inputs(j, o, create);
	if (rc)
		return rc;
	url_configure(&j->cfg);
	if (!comm_agree(comm_watch_start((double)j->cfg.comm_timeout_s) == CR_OK)) {
		log_user("cannot start the liveness watch (comm.timeout_s)");
		return 1;
	}
	stop_install();
	e = layout_open(o->dir, &j->cfg, create, &j->dir);
	if (!comm_agree(e == CR_OK))
		return e == CR_ERR_ARG ? 2 : 1;
	if (!take_lock(j, o->dir))
		return 1;
	/* A writer that cannot start is said, and the crawl goes on. */
	if (j->rank == 0 &&
	    metrics_start(o->dir, j->cfg.metrics_path, j->cfg.metrics_interval_s) != CR_OK)
		log_warn("job", "metrics.prom will not be written");
	if (create && j->rank == 0) {
		char meta[PATH_MAX];

		layout_top(o->dir, "crawl.meta", meta, sizeof(meta));
		if (!fs_exists(meta))
			e = layout_write_meta(&j->dir, &j->cfg);
	}
	if (!comm_agree(e == CR_OK))
		return 1;
	/* What rank 0 wrote, on every rank: a warc.prefix made is its own. */
	if (create && !comm_agree(layout_open(o->dir, &j->cfg, 0, &j->dir) == CR_OK))
		return 1;
	/* Outcomes an earlier configuration decided are judged again under
	 * another (generate_rejudged): from when this one took effect. */
	if (j->rank == 0 && o->judges)
		e = provenance_config_since(j, clock_now_us(), &j->config_since_us, &j->rescope);
	if (!comm_agree(e == CR_OK))
		return 1;
	comm_bcast(&j->config_since_us, sizeof(j->config_since_us), 0);
	comm_bcast(&j->rescope, sizeof(j->rescope), 0);
	if (j->rank == 0 && (uint32_t)j->nranks > j->dir.partitions)
		log_warn("job", "%d ranks but %u partitions: ranks %u and up have no work "
			 "(partition.count is fixed when the crawl directory is created)",
			 j->nranks, j->dir.partitions, j->dir.partitions);
	e = job_tmpdir(j);
	if (!comm_agree(e == CR_OK)) {
		log_err("job", "cannot create scratch directory '%s'", j->tmpdir);
		return 1;
	}
	snprintf(scratch, sizeof(scratch), "%s", j->tmpdir);
	held = mem_note_base();   /* MPI, libraries, inputs: what the phases' shares leave out */
	log_debug("job", "%zu MiB resident at the start; phases share %zu MiB of "
		  "memory.budget_mb", held >> 20, mem_budget(j->cfg.memory_budget_mb) >> 20);
	return 0;
}

/* What a job's exit code says, in a word (DIR/last_job). */
static const char *exit_word(int code)
{
	switch (code) {
	case 0: return "done";
	case 2: return "bad-input";
	case ROUND_EXIT_STOPPED: return "stopped";
	case ROUND_EXIT_LOST: return "node-lost";
	default: return "failed";
	}
}

/* Rank 0: DIR/last_job says how the job ended, for the launcher scripts
 * (a clean stop under a launcher exits 0) and for status. */
static void write_last_job(int code)
{
	char path[PATH_MAX], text[1024], host[256] = "?", when[32];
	const char *run = getenv("MPICRAWL_RUN_ID");
	time_t t = (time_t)(clock_now_us() / 1000000);
	struct tm tm;

	gethostname(host, sizeof(host) - 1);
	gmtime_r(&t, &tm);
	strftime(when, sizeof(when), "%Y-%m-%dT%H:%M:%SZ", &tm);
	snprintf(text, sizeof(text), "exit=%d\nend=%s\nrun=%s\nhost=%s\npid=%ld\nended=%s\n",
		 code, exit_word(code), run && *run ? run : "-", host, (long)getpid(), when);
	layout_top(job_dir, "last_job", path, sizeof(path));
	if (fs_write_atomic(path, text, strlen(text)) != CR_OK)
		log_warn("job", "cannot write '%s'", path);
}

int cli_job_end(int code)
{
	int quiet;

	/* Every rank (they all get here) is done with the directory first. */
	comm_barrier();
	job_tmpdir_remove(scratch);
	if (stop_path[0])
		unlink(stop_path);   /* asked of this job: done */
	if (job_dir[0])
		write_last_job(code);
	/* A clean stop is no failure: under mpirun or srun, a non-zero exit
	 * prints the launcher's abort banner, which reads as a crash. The
	 * ranks exit 0 there, and DIR/last_job keeps the 75 for the scripts
	 * (scripts/mpicrawl-run, slurm/crawl.sbatch), which return it. */
	quiet = launched && code == ROUND_EXIT_STOPPED;
	if (quiet && job_dir[0])
		log_info("job", "stopped early: exit 0 under the launcher, 75 in '%s/last_job' "
			 "(the scripts return 75); run again to continue", job_dir);
	lock_release(&job_lock);
	metrics_stop();   /* its last version: the job over */
	comm_finalize();
	return quiet ? 0 : code;
}
