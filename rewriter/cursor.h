/* SPDX-License-Identifier: MIT */
/*
 * A bounds-checked reader of little-endian bytes and LEB128, for the
 * rewriter's parsers of outside input (.eh_frame, LSDAs, .debug_line).
 * Reading past the end sets bad and yields zeros: a parser checks bad once
 * where it matters, instead of after every field.
 */
#ifndef PI_CURSOR_H
#define PI_CURSOR_H

#include <stdbool.h>
#include <stdint.h>
#include <string.h>

struct cursor {
	const uint8_t *base; /* start of the section, for offsets */
	const uint8_t *p, *end;
	bool bad;
};

static inline uint64_t cur_fixed(struct cursor *c, int n)
{
	if (c->end - c->p < n) {
		c->bad = true;
		c->p = c->end;
		return 0;
	}
	uint64_t v = 0;
	for (int i = 0; i < n; i++)
		v |= (uint64_t)c->p[i] << (8 * i);
	c->p += n;
	return v;
}

static inline uint64_t cur_uleb(struct cursor *c)
{
	uint64_t v = 0;
	for (int sh = 0; c->p < c->end; sh += 7) {
		uint8_t b = *c->p++;
		if (sh < 64)
			v |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80))
			return v;
	}
	c->bad = true;
	return 0;
}

static inline int64_t cur_sleb(struct cursor *c)
{
	uint64_t v = 0; /* unsigned: shifts into the sign bit are not UB */
	for (int sh = 0; c->p < c->end; sh += 7) {
		uint8_t b = *c->p++;
		if (sh < 64)
			v |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80)) {
			if (sh + 7 < 64 && (b & 0x40))
				v |= ~(uint64_t)0 << (sh + 7);
			return (int64_t)v;
		}
	}
	c->bad = true;
	return 0;
}

/* A NUL-terminated string in place ("" and bad if unterminated). */
static inline const char *cur_str(struct cursor *c)
{
	const char *s = (const char *)c->p;
	const uint8_t *z = memchr(c->p, 0, (size_t)(c->end - c->p));
	if (!z) {
		c->bad = true;
		c->p = c->end;
		return "";
	}
	c->p = z + 1;
	return s;
}

/* Skip n bytes; false (and bad) if they are not there. */
static inline bool cur_skip(struct cursor *c, uint64_t n)
{
	if ((uint64_t)(c->end - c->p) < n) {
		c->bad = true;
		c->p = c->end;
		return false;
	}
	c->p += n;
	return true;
}

#endif
