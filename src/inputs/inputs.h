/*
 * inputs.h - the job's inputs: the user's files, read once by rank 0 and
 * handed to every rank.
 *
 * On a cluster the files a user names often exist only on the node the job
 * was started from (its private /tmp, a home directory not mounted on the
 * compute nodes). So in a job rank 0 alone opens them: it parses the
 * configuration (cli.c, config_load) and the check of each key that names a
 * file - scope.rules, hosts.rules, tls.ca_file, warc.zstd_dictionary - reads
 * that file through inputs_read, which registers its bytes here, path ->
 * bytes. The registry then goes to every rank in one buffer (inputs_share:
 * inputs_pack, a broadcast, inputs_unpack), and every consumer on every rank
 * reads through inputs_read too: it gets the bytes rank 0 read and checked,
 * whole and unchanged. A file rank 0 could not read is registered with its
 * errno, so that every rank fails alike. A path no one registered is read
 * from the file system (and registered): the single-process tools (url
 * --config) read their files so.
 *
 * hosts.rules is read again by every round (an operator steers a campaign
 * between rounds): inputs_refresh, collective, has rank 0 read it anew and
 * every rank replace its entry.
 *
 * The seeds do not travel here: a seed file may hold hundreds of MB, more
 * than every rank should hold. Rank 0 copies it into the crawl directory
 * (provenance/seeds-*.txt, which a crawl keeps anyway), and every rank reads
 * its share of lines from that copy, a line at a time: the crawl directory
 * is on a filesystem every node shares (inject/inject.h).
 *
 * Memory: every registered file, whole, each at most INPUTS_FILE_MAX bytes,
 * for the life of the process (rules files, a CA bundle, a dictionary: a
 * few MB at most).
 */
#ifndef CR_INPUTS_INPUTS_H
#define CR_INPUTS_INPUTS_H

#include <stddef.h>

#include "util/buf.h"
#include "util/error.h"

/* The largest file the registry holds; a bigger one is registered as too
 * large (every consumer's own cap is smaller). */
#define INPUTS_FILE_MAX (64u << 20)
/* The longest node name kept. */
#define INPUTS_NODE_MAX 256

struct inputs_file {
	char *path;
	int err;            /* 0: bytes is the file; else the errno of reading it
			       (EFBIG: larger than INPUTS_FILE_MAX) */
	struct buf bytes;
};

struct inputs {
	struct inputs_file *v;
	size_t n, cap;
	char node[INPUTS_NODE_MAX];   /* the host the files were read on */
};

/* An empty registry read on node (copied; cut to INPUTS_NODE_MAX - 1). */
void inputs_init(struct inputs *in, const char *node);
void inputs_release(struct inputs *in);
/* Registers path (copies) with n bytes at p (copies), or with err (errno,
 * p unused) when err is not 0; an entry of the same path is replaced. */
void inputs_put(struct inputs *in, const char *path, const void *p, size_t n, int err);
/* Reads the file at path and registers it, or how reading it failed. */
void inputs_load(struct inputs *in, const char *path);
/* The entry of path, or NULL; borrowed until in changes. */
const struct inputs_file *inputs_find(const struct inputs *in, const char *path);
/* Appends in's node and entries (only the entry of path, when only is not
 * NULL) to out as one buffer inputs_unpack reads. Pure. */
void inputs_pack(const struct inputs *in, const char *only, struct buf *out);
/* Reads a buffer of inputs_pack into in: its node, and each entry
 * replacing in's of the same path. CR_ERR_FORMAT (in unchanged) for bytes
 * that do not parse. Pure. */
CR_WUR enum cr_err inputs_unpack(struct inputs *in, const void *p, size_t n);

/* The process's registry (made empty, on this host, at first use). */
struct inputs *inputs_job(void);
/*
 * The whole file at path from the process's registry, appended to out:
 * CR_OK; CR_ERR_LIMIT when it is larger than max bytes; CR_ERR_IO with errno
 * set when it could not be read. A path not registered is read from the file
 * system first and registered (so a file is read once a process).
 */
CR_WUR enum cr_err inputs_read(const char *path, size_t max, struct buf *out);

/* inputs_read of a file the user named as a what ("rules file"): when it
 * fails, err (errcap bytes) says "cannot read WHAT 'PATH' on NODE: why". */
CR_WUR enum cr_err inputs_read_named(const char *what, const char *path, size_t max,
				     struct buf *out, char *err, size_t errcap);
/* The node the process's inputs were read on (rank 0's in a job), for
 * messages: "cannot read 'x' on NODE: why". Borrowed. */
const char *inputs_node(void);

/* Collective (share.c): rank 0's registry into every rank's. Every
 * rank gets the same result; CR_ERR_FORMAT or CR_ERR_COMM on failure. */
CR_WUR enum cr_err inputs_share(void);
/* Collective: rank 0 reads path again (the file may have changed) and
 * every rank's registry takes what it read, bytes or failure. */
CR_WUR enum cr_err inputs_refresh(const char *path);

#endif
