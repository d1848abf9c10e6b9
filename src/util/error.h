/*
 * error.h - the one error enum of mpicrawl.
 *
 * A function that can fail returns enum cr_err and writes its out-params only
 * on success. The values are numbered and never renumbered: they appear in
 * logs and exit paths. A page's fate (404, timeout, robots denial) is never an
 * error; it is a status stored in the page's record. CR_ERR_* means the stage
 * itself is in trouble.
 */
#ifndef CR_UTIL_ERROR_H
#define CR_UTIL_ERROR_H

#define CR_WUR __attribute__((warn_unused_result))

enum cr_err {
	CR_OK = 0,
	CR_AGAIN = 1,        /* nothing now; call again later */
	CR_EOF = 2,          /* end of a stream, not an error */
	CR_ERR_IO = 10,      /* a system call on a file or socket failed */
	CR_ERR_FORMAT = 11,  /* bytes do not parse: bad magic, bad record, bad checksum */
	CR_ERR_LIMIT = 12,   /* a named cap was hit */
	CR_ERR_NOMEM = 13,   /* allocation failed */
	CR_ERR_ARG = 14,     /* bad argument or configuration value */
	CR_ERR_LIB = 15,     /* a third-party library reported failure */
	CR_ERR_COMM = 16,    /* another rank failed; all ranks stop the stage */
	CR_ERR_STATE = 17,   /* the crawl directory is not in a state this step can use */
};

/* A short constant name for an error ("io", "format", ...). */
const char *error_str(enum cr_err e);

#endif
