/* SPDX-License-Identifier: MIT */
/*
 * C++ exception tables (.gcc_except_table).  Call-site ranges and landing
 * pads are plain offsets from the function's start, so the table of every
 * rewritten function is rebuilt for the new layout; landing pads become
 * blocks where the shadow stack catches up with the real one.
 */
#ifndef PI_LSDA_H
#define PI_LSDA_H

#include "addrmap.h"
#include "cfg.h"

/* Mark the landing pads named by the LSDA at (sec, off) for the function
 * piece starting at fstart of text ti. */
void lsda_mark_landing_pads(struct code *c, int sec, uint64_t off, int ti, uint64_t fstart);

/* Append to section sec a copy of the LSDA at off rebuilt for the new
 * layout m of the piece that started at fstart (now at nfstart); its
 * offset goes to *noff. Returns false if the table is not understood. */
bool lsda_rewrite(struct code *c, const struct addrmap *m, int sec, uint64_t off, int ti, uint64_t fstart,
		  uint64_t nfstart, uint64_t *noff);

#endif
