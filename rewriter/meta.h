/* SPDX-License-Identifier: MIT */
/*
 * Per-object metadata added by instrumentation: the thread-local block
 * counters, one run-time record per function (joining the function's
 * COMDAT group), the object's descriptor, and the map that describes the
 * original code (libprof/format.h).
 */
#ifndef PI_META_H
#define PI_META_H

#include "addrmap.h"
#include "cfg.h"

/* Create the sections and symbols the stubs refer to. Before layout. */
void meta_prepare(struct code *c);
/* Fill records, descriptor and map, where the layout put the code (map).
 * After layout. */
void meta_finish(struct code *c, const struct addrmap *map);

#endif
