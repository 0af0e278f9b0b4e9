/* SPDX-License-Identifier: MIT */
#ifndef PI_INSTRUMENT_H
#define PI_INSTRUMENT_H

#include "cfg.h"
#include "model.h"
#include "objfile.h"

struct istats {
	size_t objects, functions, uninstrumented, blocks, insns, externals;
	struct model_stats model;
	/* --counts: the global functions left as they were, which calls
	 * from other objects must treat as external (or NULL) */
	struct nameset *left;
};

/* Analyse o for its rewrite: functions, instructions, blocks and their
 * costs, liveness, call sites (cfg.h, cost.h); c is then released by
 * code_free.  0 or -1 (message printed). */
int code_analyse(struct code *c, struct object *o, const struct rewrite_opts *opts);

/* Rewrite the analysed c's object in place (its stubs, records and map,
 * its unwind tables): the layout's map is left in *map for the caller to
 * read and release (addrmap_free).  0, or -1 after one message. */
struct addrmap;
int code_rewrite(struct code *c, struct addrmap *map);

/* Instrument every function of o in place. 0, or -1 after one message. */
int instrument_object(struct object *o, const struct rewrite_opts *opts, struct istats *st);

#endif
