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
/* The first relocation of relocation section rs at offset >= off.  Inline,
 * as reloc_find is: the passes ask for every instruction. */
static inline size_t rela_lower_bound(const struct section *rs, uint64_t off)
{
	size_t lo = 0, hi = rs->nrelas;
	while (lo < hi) {
		size_t mid = (lo + hi) / 2;
		if (rs->relas[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo;
}

/* The relocation of section sec (not a relocation section) whose field
 * starts at off, or NULL. */
static inline const struct rela *reloc_find(const struct object *o, int sec, uint64_t off)
{
	const struct section *s = &o->secs[sec];
	if (!s->rela)
		return NULL;
	const struct section *rs = &o->secs[s->rela];
	size_t r = rela_lower_bound(rs, off);
	return r < rs->nrelas && rs->relas[r].off == off ? &rs->relas[r] : NULL;
}

/* The place (section, offset) relocation r names: S + A, and for a
 * PC-relative type, relative to pc instead of to the field (in code, the
 * end of the instruction holding the field; in a table of offsets, the
 * table's base).  False if r names no place in a section of o (an
 * undefined or absolute symbol, a GOT or TLS slot). */
bool reloc_place(const struct object *o, const struct rela *r, uint64_t pc, int *tsec, uint64_t *toff);

#endif
