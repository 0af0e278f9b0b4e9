/* SPDX-License-Identifier: MIT */
#include "util.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char *pi_progname = "profinst";
bool pi_quiet;
bool pi_silent;

static void oom(void)
{
	fprintf(stderr, "%s: out of memory\n", pi_progname);
	abort();
}

void *xmalloc(size_t n)
{
	void *p = malloc(n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xcalloc(size_t n, size_t m)
{
	void *p = calloc(n ? n : 1, m ? m : 1);
	if (!p)
		oom();
	return p;
}

void *xrealloc(void *p, size_t n)
{
	p = realloc(p, n ? n : 1);
	if (!p)
		oom();
	return p;
}

void *xaligned(size_t align, size_t n)
{
	void *p;
	if (posix_memalign(&p, align, n ? n : 1))
		oom();
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	return memcpy(xmalloc(n), s, n);
}

char *xasprintf(const char *fmt, ...)
{
	va_list ap;
	char *s;
	va_start(ap, fmt);
	if (vasprintf(&s, fmt, ap) < 0)
		oom();
	va_end(ap);
	return s;
}

void grow_more(void *pp, size_t *cap, size_t n, size_t sz)
{
	void **p = pp;
	if (n <= *cap)
		return;
	size_t c = *cap ? *cap * 2 : 16;
	while (c < n)
		c *= 2;
	*p = xrealloc(*p, c * sz);
	memset((char *)*p + *cap * sz, 0, (c - *cap) * sz);
	*cap = c;
}

/* Unlike grow, the new room is not zeroed: a
 * buffer's bytes are only read up to len, and an archive's or a large
 * object's image would be written twice over. */
void buf_room_more(struct buf *b, size_t n)
{
	if (b->len + n <= b->cap)
		return;
	size_t c = b->cap ? b->cap * 2 : 16;
	while (c < b->len + n)
		c *= 2;
	b->p = xrealloc(b->p, c);
	b->cap = c;
}


void buf_zero(struct buf *b, size_t n)
{
	buf_room(b, n);
	memset(b->p + b->len, 0, n);
	b->len += n;
}

void buf_align(struct buf *b, size_t a)
{
	if (a > 1 && b->len % a)
		buf_zero(b, a - b->len % a);
}

void buf_uleb(struct buf *b, uint64_t v)
{
	do {
		uint8_t c = v & 0x7f;
		v >>= 7;
		buf_u8(b, c | (v ? 0x80 : 0));
	} while (v);
}

void buf_sleb(struct buf *b, int64_t v)
{
	for (;;) {
		uint8_t c = v & 0x7f;
		v >>= 7;
		bool done = (v == 0 && !(c & 0x40)) || (v == -1 && (c & 0x40));
		buf_u8(b, c | (done ? 0 : 0x80));
		if (done)
			return;
	}
}

void buf_free(struct buf *b)
{
	free(b->p);
	b->p = NULL;
	b->len = b->cap = 0;
}

/* Open-addressing hash of string offsets. */
struct strtab_ent {
	uint32_t off;
	uint32_t used;
};

uint32_t str_hash(const char *s)
{
	uint32_t h = 2166136261u;
	while (*s)
		h = (h ^ (uint8_t)*s++) * 16777619u;
	return h;
}

void strtab_init(struct strtab *t)
{
	memset(t, 0, sizeof(*t));
	buf_u8(&t->b, 0);
}

static void strtab_rehash(struct strtab *t)
{
	size_t ncap = t->cap ? t->cap * 2 : 256;
	struct strtab_ent *n = xcalloc(ncap, sizeof(*n));
	for (size_t i = 0; i < t->cap; i++) {
		if (!t->ents[i].used)
			continue;
		uint32_t h = str_hash((char *)t->b.p + t->ents[i].off) & (ncap - 1);
		while (n[h].used)
			h = (h + 1) & (ncap - 1);
		n[h] = t->ents[i];
	}
	free(t->ents);
	t->ents = n;
	t->cap = ncap;
}

uint32_t strtab_add(struct strtab *t, const char *s)
{
	if (!*s)
		return 0;
	if (t->nents * 2 >= t->cap)
		strtab_rehash(t);
	uint32_t h = str_hash(s) & (t->cap - 1);
	while (t->ents[h].used) {
		if (!strcmp((char *)t->b.p + t->ents[h].off, s))
			return t->ents[h].off;
		h = (h + 1) & (t->cap - 1);
	}
	uint32_t off = (uint32_t)t->b.len;
	buf_put(&t->b, s, strlen(s) + 1);
	t->ents[h].off = off;
	t->ents[h].used = 1;
	t->nents++;
	return off;
}

void strtab_free(struct strtab *t)
{
	buf_free(&t->b);
	free(t->ents);
	memset(t, 0, sizeof(*t));
}

static void vmsg(const char *kind, const char *fmt, va_list ap)
{
	if (pi_silent)
		return;
	fprintf(stderr, "%s: %s", pi_progname, kind);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
}

void pi_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vmsg("error: ", fmt, ap);
	va_end(ap);
}

void pi_warn(const char *fmt, ...)
{
	va_list ap;
	if (pi_quiet)
		return;
	va_start(ap, fmt);
	vmsg("warning: ", fmt, ap);
	va_end(ap);
}
