/* SPDX-License-Identifier: MIT */
/*
 * Looking at inputs without rewriting them: the blocks a model costs and the
 * instruction forms the inputs hold.  These feed the timing model's tables
 * (rewriter/model/gen_tables.py) and its validation (bench/blocks.py).
 */
#ifndef PI_INSPECT_H
#define PI_INSPECT_H

#include <stdio.h>

#include "model.h"
#include "objfile.h"

struct inspect {
	const struct cpu_model *model;
	struct model_stats ms;
	FILE *blocks;      /* --dump-blocks: one line per block, or NULL */
	bool forms;        /* --dump-forms: count forms, print them at the end */
	struct form_seen {
		char form[48];
		char example[96];
		uint8_t bytes[16];
		uint8_t len;
		uint64_t n;
	} *seen;
	size_t nseen, cap; /* open-addressed: cap is a power of two */
};

/* Analyse one object (functions, blocks, costs) and record what was asked. */
int inspect_object(struct inspect *in, struct object *o);
/* Print the forms (most frequent first) and free what inspect holds. */
void inspect_finish(struct inspect *in, FILE *out);

#endif
