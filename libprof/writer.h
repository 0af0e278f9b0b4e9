/* SPDX-License-Identifier: MIT */
/*
 * A buffered writer of profile records to a file descriptor.  Used by the
 * runtime, so it allocates nothing and uses only write(2): it is safe in a
 * signal handler.
 */
#ifndef PI_WRITER_H
#define PI_WRITER_H

#include <stddef.h>
#include <stdint.h>

struct pw {
	int fd;
	int err;
	size_t len;
	uint8_t buf[1 << 16];
};

void pw_init(struct pw *w, int fd);
void pw_put(struct pw *w, const void *p, size_t n);
/* Start a record whose payload is size bytes; pw_end pads it to 8. */
void pw_rec(struct pw *w, uint32_t tag, uint64_t size);
void pw_pad(struct pw *w, uint64_t size);
/* Flush; returns 0 or -1 if any write failed. */
int pw_flush(struct pw *w);

#endif
