/* SPDX-License-Identifier: MIT */
/* Small helpers shared by the rewriter: allocation, growable buffers and
 * error reporting.  The rewriter is a command-line tool: running out of
 * memory is fatal there (and only there). */
#ifndef PI_UTIL_H
#define PI_UTIL_H

#include <stdarg.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <string.h>

void *xmalloc(size_t n);
void *xcalloc(size_t n, size_t m);
void *xrealloc(void *p, size_t n);
/* n bytes aligned to align (a power of 2, a multiple of sizeof(void *)). */
void *xaligned(size_t align, size_t n);
char *xstrdup(const char *s);
/* FNV-1a of a string, for the hash tables of names. */
uint32_t str_hash(const char *s);
char *xasprintf(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* Grow *p (of *cap elements of size sz) so that it holds at least n: its
 * capacity doubled, as often as it takes, the new room zeroed (grow_more,
 * when it has not the room; grow, inline, is on every push). */
void grow_more(void *pp, size_t *cap, size_t n, size_t sz);
static inline void grow(void *pp, size_t *cap, size_t n, size_t sz)
{
	if (n > *cap)
		grow_more(pp, cap, n, sz);
}
#define VEC_PUSH(arr, len, cap) \
	(grow(&(arr), &(cap), (len) + 1, sizeof(*(arr))), &(arr)[(len)++])

struct buf {
	uint8_t *p;
	size_t len, cap;
};
/* Room for n more bytes (not zeroed), the capacity doubled as often as it
 * takes: buf_room (inline below: the layout puts instructions a few bytes
 * at a time) when it is not there. */
void buf_room_more(struct buf *b, size_t n);
void buf_zero(struct buf *b, size_t n);
void buf_align(struct buf *b, size_t a);
void buf_uleb(struct buf *b, uint64_t v);
void buf_sleb(struct buf *b, int64_t v);
void buf_free(struct buf *b);

/* A string table that deduplicates. Offset 0 is the empty string. */
struct strtab {
	struct buf b;
	struct strtab_ent *ents;
	size_t nents, cap;
};
void strtab_init(struct strtab *t);
uint32_t strtab_add(struct strtab *t, const char *s);
void strtab_free(struct strtab *t);

/* Messages go to stderr prefixed with "profinst: ". */
extern const char *pi_progname;
extern bool pi_quiet;  /* no warnings */
extern bool pi_silent; /* no messages at all (fuzzing) */
void pi_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
void pi_warn(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

static inline uint32_t rd32(const uint8_t *p)
{
	return (uint32_t)p[0] | (uint32_t)p[1] << 8 | (uint32_t)p[2] << 16 | (uint32_t)p[3] << 24;
}
static inline uint64_t rd64(const uint8_t *p)
{
	return rd32(p) | (uint64_t)rd32(p + 4) << 32;
}
static inline void wr32(uint8_t *p, uint32_t v)
{
	p[0] = v, p[1] = v >> 8, p[2] = v >> 16, p[3] = v >> 24;
}
static inline void wr16(uint8_t *p, uint16_t v)
{
	p[0] = (uint8_t)v, p[1] = (uint8_t)(v >> 8);
}
static inline void wr64(uint8_t *p, uint64_t v)
{
	wr32(p, (uint32_t)v), wr32(p + 4, (uint32_t)(v >> 32));
}

/* Make room for n more bytes at once (not zeroed): a writer that knows
 * its size spares the buffer's doublings and their copies. */
static inline void buf_room(struct buf *b, size_t n)
{
	if (b->len + n > b->cap)
		buf_room_more(b, n);
}

static inline void buf_put(struct buf *b, const void *d, size_t n)
{
	buf_room(b, n);
	if (n)
		memcpy(b->p + b->len, d, n);
	b->len += n;
}

static inline void buf_u8(struct buf *b, uint8_t v)
{
	buf_room(b, 1);
	b->p[b->len++] = v;
}

static inline void buf_u32(struct buf *b, uint32_t v)
{
	buf_room(b, 4);
	wr32(b->p + b->len, v);
	b->len += 4;
}

static inline void buf_u64(struct buf *b, uint64_t v)
{
	buf_room(b, 8);
	wr64(b->p + b->len, v);
	b->len += 8;
}

#endif
