/* SPDX-License-Identifier: MIT */
/*
 * New layout of the executable sections with stubs inserted: positions of
 * every instruction, the new bytes and relocations, and the remapping of
 * every other reference into code (data, symbols).
 */
#ifndef PI_LAYOUT_H
#define PI_LAYOUT_H

#include "cfg.h"

enum map_kind {
	MAP_PLACE,  /* a place: function entry (with its entry stub), label, CFI row */
	MAP_BRANCH, /* a branch inside the same function: skips the entry stub */
};

/* Lay out and emit all executable sections of c->o, and remap every
 * relocation and symbol that names code. Returns 0 or -1. */
int layout_object(struct code *c);

/* New offset of original offset off in text section index ti. */
uint64_t layout_map(const struct code *c, int ti, uint64_t off, enum map_kind kind);

#endif
