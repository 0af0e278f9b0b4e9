/* SPDX-License-Identifier: MIT */
#include "writer.h"

#include <errno.h>
#include <string.h>
#include <unistd.h>

#include "format.h"

void pw_init(struct pw *w, int fd)
{
	w->fd = fd;
	w->err = 0;
	w->len = 0;
}

static void drain(struct pw *w)
{
	size_t off = 0;
	while (off < w->len && !w->err) {
		ssize_t n = write(w->fd, w->buf + off, w->len - off);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			w->err = 1;
		else
			off += (size_t)n;
	}
	w->len = 0;
}

void pw_put(struct pw *w, const void *p, size_t n)
{
	const uint8_t *s = p;
	while (n) {
		if (w->len == sizeof(w->buf))
			drain(w);
		size_t k = sizeof(w->buf) - w->len;
		if (k > n)
			k = n;
		/* (no memcpy: a program may bring its own, instrumented) */
		uint8_t *d = w->buf + w->len;
		size_t c = k;
		__asm__ volatile("rep movsb" : "+D"(d), "+S"(s), "+c"(c) : : "memory");
		w->len += k;
		n -= k;
	}
}

void pw_rec(struct pw *w, uint32_t tag, uint64_t size)
{
	struct pi_prof_rec r = {.tag = tag, .size = size};
	pw_put(w, &r, sizeof(r));
}

void pw_pad(struct pw *w, uint64_t size)
{
	static const uint8_t zero[8];
	if (size % 8)
		pw_put(w, zero, 8 - size % 8);
}

int pw_flush(struct pw *w)
{
	drain(w);
	return w->err ? -1 : 0;
}
