#include "util/error.h"

const char *error_str(enum cr_err e)
{
	switch (e) {
	case CR_OK: return "ok";
	case CR_AGAIN: return "again";
	case CR_EOF: return "eof";
	case CR_ERR_IO: return "io";
	case CR_ERR_FORMAT: return "format";
	case CR_ERR_LIMIT: return "limit";
	case CR_ERR_NOMEM: return "nomem";
	case CR_ERR_ARG: return "arg";
	case CR_ERR_LIB: return "lib";
	case CR_ERR_COMM: return "comm";
	case CR_ERR_STATE: return "state";
	}
	return "unknown";
}
