/* SPDX-License-Identifier: MIT */
/*
 * Relocation queries on an object's model (objfile.h): what a relocation
 * type patches and means, which relocation patches a place, and what place
 * a relocation names.  Every pass asks here; none of it needs to know the
 * code (which sections are code, where a table of offsets has its base):
 * the passes that know pass it in.  The lookups need each section's
 * relocations sorted by offset (reloc_sort).
 */
#ifndef PI_RELOC_H
#define PI_RELOC_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "objfile.h"

/* The bytes a relocation of this type patches (0: none). */
int rel_size(uint32_t type);
bool rel_is_pcrel(uint32_t type);
/* S + A (+ pc) names a place, not a GOT or TLS slot. */
bool rel_is_address(uint32_t type);

/* Sort every relocation section of o by offset. */
void reloc_sort(struct object *o);
/* The first relocation of relocation section rs at offset >= off. */
size_t rela_lower_bound(const struct section *rs, uint64_t off);
/* The relocation of section sec (not a relocation section) whose field
 * starts at off, or NULL. */
const struct rela *reloc_find(const struct object *o, int sec, uint64_t off);

/* The place (section, offset) relocation r names: S + A, and for a
 * PC-relative type, relative to pc instead of to the field (in code, the
 * end of the instruction holding the field; in a table of offsets, the
 * table's base).  False if r names no place in a section of o (an
 * undefined or absolute symbol, a GOT or TLS slot). */
bool reloc_place(const struct object *o, const struct rela *r, uint64_t pc, int *tsec, uint64_t *toff);

#endif
