/* SPDX-License-Identifier: MIT */
/*
 * Where the new layout put each original offset of code: the positions
 * the layout records (layout.c), apart from what the analysis found
 * (cfg.h), and the one question the passes after the layout ask of them
 * (the layout itself, the unwind tables).
 */
#ifndef PI_ADDRMAP_H
#define PI_ADDRMAP_H

#include <stdint.h>

#include "cfg.h"

enum map_kind {
	MAP_PLACE,  /* a place: function entry (with its entry stub), label, CFI row */
	MAP_BRANCH, /* a branch inside the same function: skips the entry stub */
	MAP_INNER,  /* --counts: a call that found the callee's node itself
		       (NAME.pi_inner): skips the entry stub, not the store of
		       the frame's node after it (layout.c) */
};

/* One text's new layout. */
struct text_layout {
	/* per instruction: where what is emitted for it starts, where a
	 * branch of its own function lands (after an entry stub), where the
	 * instruction itself is, where its function's entry is if one starts
	 * there */
	uint32_t *pre, *lab, *pos, *entry;
	uint32_t *inner; /* per instruction: MAP_INNER's (a function's start:
			    its frame's store, else lab) */
	uint32_t *edge_at; /* --counts, per instruction: where a conditional
			      jump whose edge has a counter (block.eto) lands,
			      on that counter, before its target's label;
			      UINT32_MAX for the others (layout.c) */
	uint64_t *vr_start;  /* per verbatim range (text.vr): where it starts */
	uint64_t nsize;      /* the new size */
	struct buf out;      /* the new bytes */
	/* CFA offsets (from %rsp) that inserted code changes, by new offset:
	 * the unwind rows ehframe.c adds (external tail calls) */
	struct cfa_row { uint64_t pos; uint32_t cfa_off; } *cfa_rows;
	size_t ncfa_rows, cfa_cap;
};

/* The new layout of every text of an analysed object. */
struct addrmap {
	const struct code *c;
	struct text_layout *texts; /* [c->ntexts] */
	uint32_t *ret_off;         /* [c->nsites]: where each call returns, from
				      its piece's new start */
};

/* A map of c's texts with nothing placed yet (for layout.c to fill);
 * addrmap_free releases it. */
void addrmap_init(struct addrmap *m, const struct code *c);
void addrmap_free(struct addrmap *m);

/* New offset of original offset off in text section index ti, as the
 * layout placed it: an instruction's (for MAP_BRANCH, where a branch from
 * its own function lands), a byte copied as it was; past the end, the
 * same distance past the new end. */
uint64_t addrmap_lookup(const struct addrmap *m, int ti, uint64_t off, enum map_kind kind);

#endif
