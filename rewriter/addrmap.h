/* SPDX-License-Identifier: MIT */
/*
 * Where the new layout put each original offset of code: the one question
 * the passes after the layout ask of its positions (the layout itself, the
 * unwind tables, the map).  Apart from layout.c, which runs before them.
 */
#ifndef PI_ADDRMAP_H
#define PI_ADDRMAP_H

#include <stdint.h>

#include "cfg.h"

enum map_kind {
	MAP_PLACE,  /* a place: function entry (with its entry stub), label, CFI row */
	MAP_BRANCH, /* a branch inside the same function: skips the entry stub */
};

/* New offset of original offset off in text section index ti, as the
 * layout placed it (layout_object): an instruction's (for MAP_BRANCH, where
 * a branch from its own function lands), a byte copied as it was, past the
 * end the same distance past the new end. */
uint64_t addrmap_lookup(const struct code *c, int ti, uint64_t off, enum map_kind kind);

#endif
