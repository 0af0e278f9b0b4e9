/* SPDX-License-Identifier: MIT */
/*
 * New layout of the executable sections with stubs inserted: positions of
 * every instruction, the new bytes and relocations, and the remapping of
 * every other reference into code (data, symbols).  In two halves, between
 * which the unwind tables are rewritten (ehframe.h): from the original
 * code and symbols, and the new positions (addrmap.h).
 */
#ifndef PI_LAYOUT_H
#define PI_LAYOUT_H

#include "addrmap.h"
#include "cfg.h"

/* What the first half leaves for the second. */
struct layout {
	struct addrmap map; /* the new positions and bytes */
	struct emit *es;    /* per text: its new relocations */
	uint64_t *newval;   /* per symbol: its new value */
};

/* Lay out and emit all executable sections of c->o (into l->map), with the
 * positions of every instruction and call site; the object itself is not
 * changed yet. */
void layout_object(struct code *c, struct layout *l);

/* Put the new code in place: remap every relocation of data and every
 * symbol that names code, replace the sections' bytes and relocations.
 * Releases what l holds but its map (addrmap_free). */
void layout_finish(struct code *c, struct layout *l);

#endif
