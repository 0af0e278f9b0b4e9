/* SPDX-License-Identifier: MIT */
/*
 * .eh_frame regeneration.  FDE start addresses are relocated, but the
 * advances of the CFA program are plain offsets inside the function: they
 * are re-emitted for the new layout, so that unwinding (C++ exceptions,
 * backtraces) works through instrumented frames.  (Reading it for the
 * analysis, before the layout, is ehframe_read.h's.)
 */
#ifndef PI_EHFRAME_H
#define PI_EHFRAME_H

#include "addrmap.h"
#include "cfg.h"

/* Rewrite c->o's .eh_frame for the new layout m, from the original code
 * and symbols (layout_object done, layout_finish not yet). Returns 0, or
 * -1 with a message. */
int ehframe_rewrite(struct code *c, const struct addrmap *m);

#endif
