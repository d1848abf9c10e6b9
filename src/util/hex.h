/*
 * hex.h - the value of a hexadecimal digit, for the readers of
 * percent-encoding (URLs) and hex digests (WARC).
 */
#ifndef CR_UTIL_HEX_H
#define CR_UTIL_HEX_H

/* The value of hex digit c (either case), or -1. */
static inline int hex_value(int c)
{
	if (c >= '0' && c <= '9')
		return c - '0';
	if (c >= 'a' && c <= 'f')
		return c - 'a' + 10;
	if (c >= 'A' && c <= 'F')
		return c - 'A' + 10;
	return -1;
}

#endif
