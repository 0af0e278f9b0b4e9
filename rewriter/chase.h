/* SPDX-License-Identifier: MIT */
/*
 * Loads that wait for loads, for --cache-sim.  A core hides most of what a
 * cache miss costs behind other work: its prefetchers follow streams, and
 * independent loads miss in parallel.  What it cannot hide is a load whose
 * address comes from another load's result (a pointer followed, an index
 * read from a table): it cannot start before that load is done, so that
 * load's miss is on the critical path.  The block costs assume first-level
 * hits; under --cache-sim the runtime simulates the data caches on these
 * loads and makes each wait for the load it depends on (runtime/dcache.c).
 *
 * A store, or a load that no followed load waits for, at an address
 * computed from a load is followed too, for its own miss: it holds its
 * place in the core until its line comes, and the core keeps only so many
 * such misses in flight (runtime/dcache.c).
 *
 * The dependence is found by a forward data flow over each function's
 * general-purpose registers: a register holds the value of a set of loads
 * (the loads whose results it was computed from), kept as classes of a
 * union-find, so that a value reaching a load by several paths makes it
 * wait for all of them; except that in a loop, a value of a load of the
 * loop and of one read before it keeps the loop's class only (the one read
 * before is long done, and one class of both would make each step wait
 * for the step before).  Loads from the stack and from RIP-relative
 * addresses are not followed: they hit the first level.  A value stored to
 * memory and loaded again is not followed either, nor through a call.
 */
#ifndef PI_CHASE_H
#define PI_CHASE_H

#include <stdint.h>

#include "cfg.h"

/* Fills each text's chase[k] (allocated here, NULL where a text has no such
 * load): 0, or the word of the stub that goes before load k, naming the
 * class of loads it waits for (bits 16-31, 0: none) and the class whose
 * time its own result sets (bits 0-15, 0: no load waits for it). */
void chase_find(struct code *c);

#endif
