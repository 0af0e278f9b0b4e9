/* SPDX-License-Identifier: MIT */
/*
 * The maps a profile leaves in its executable (PI_REC_IMAGE, PI_REC_OBJREF):
 * the executable's profinst_map section, read once it is known to be the
 * one that wrote the profile (same GNU build id).
 */
#ifndef PI_IMAGE_H
#define PI_IMAGE_H

#include <stddef.h>
#include <stdint.h>

#include "format.h"

/* Read path's profinst_map section into *maps (malloc'd, *size bytes),
 * after checking that path is a regular ELF file whose build id is the
 * id's (n bytes).  what: "executable" or "shared object", for messages.
 * Returns 0, or -1 with a one-line message in err saying what to do. */
int image_read_maps(const char *path, const char *what, const uint8_t *id, uint32_t n, uint8_t **maps,
		    uint64_t *size, char *err, size_t errsz);

#endif
