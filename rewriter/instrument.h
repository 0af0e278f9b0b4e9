/* SPDX-License-Identifier: MIT */
#ifndef PI_INSTRUMENT_H
#define PI_INSTRUMENT_H

#include "cfg.h"
#include "model.h"
#include "objfile.h"

struct istats {
	size_t objects, functions, uninstrumented, blocks, insns, externals;
	struct model_stats model;
};

/* Instrument every function of o in place. 0, or -1 after one message. */
int instrument_object(struct object *o, const struct rewrite_opts *opts, struct istats *st);

#endif
