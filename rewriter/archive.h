/* SPDX-License-Identifier: MIT */
/* Reading static archives (libelf) and writing them back (GNU format with a
 * symbol index, so that the linker pulls members exactly as before). */
#ifndef PI_ARCHIVE_H
#define PI_ARCHIVE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

struct ar_member {
	char *name;
	uint8_t *data;
	size_t size;
};

struct archive {
	struct ar_member *m;
	size_t n, cap;
};

bool is_archive(const void *image, size_t size);
/* Read all members of the archive image. 0 or -1 (message names path). */
int archive_read(struct archive *a, const char *path, const void *image, size_t size);
/* The archive as a file: the bytes of (*parts)[0..*nparts) one after the
 * other (free *parts), which are the headers and the index, in head (its
 * bytes replaced), and the members' own bytes, not copied: valid while a
 * and head are.  0, or -1 after a message naming path. */
struct buf;
struct iovec;
int archive_image(const struct archive *a, const char *path, struct buf *head, struct iovec **parts,
		  size_t *nparts);
void archive_free(struct archive *a);

/* Global symbols an ELF object defines, for the archive index. */
void elf_defined_globals(const uint8_t *image, size_t size,
			 void (*cb)(const char *name, void *arg), void *arg);

#endif
