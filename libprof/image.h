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
 * after checking that path is a regular ELF file whose build id is im's.
 * Returns 0, or -1 with a one-line message in err saying what to do. */
int image_read_maps(const char *path, const struct pi_prof_image *im, uint8_t **maps, uint64_t *size,
		    char *err, size_t errsz);

#endif
