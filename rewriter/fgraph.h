/* SPDX-License-Identifier: MIT */
/*
 * --counts: one function's blocks as a graph (its edges both ways, which
 * blocks stop a region, which are entered other than by its edges), and
 * what the passes that place counters ask of it: reverse postorder,
 * dominators, natural loops.
 */
#ifndef PI_FGRAPH_H
#define PI_FGRAPH_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "cfg.h"

/* Blocks are numbered from the function's first (0: its entry). */
struct fgraph {
	const struct code *c;
	const struct func *f;
	uint32_t n;
	uint32_t **out; /* per block, its successors in the function */
	size_t *outn, *outcap;
	uint32_t **in;  /* and its predecessors */
	size_t *inn, *incap;
	bool *stops; /* leaves the function, traps, calls or jumps unknown
			(a call of a C library function the model costs,
			which returns and calls nothing back, does not:
			ext_transparent) */
	bool *special; /* entered other than by its function's edges */
	bool *live;    /* reached from the entry or a special block (not
			  padding between functions' parts) */
};

/* g for f's blocks (g.c, g.f, g.n set by the caller: f's code, f, its
 * block count); fgraph_free releases it. */
void fgraph_build(struct fgraph *g);
void fgraph_free(struct fgraph *g);
/* Reverse postorder from the entry (rpo[0..*count)), and each block's
 * place in it (UINT32_MAX: not reached). */
uint32_t *fgraph_rpo(const struct fgraph *g, uint32_t *place, uint32_t *count);
/* Immediate dominators by places in reverse postorder; idom[entry] =
 * entry, UINT32_MAX where not reached. */
uint32_t *fgraph_idom(const struct fgraph *g, const uint32_t *rpo, const uint32_t *place, uint32_t count);
/* The one live block that goes to block b, or UINT32_MAX where none or
 * more do. */
uint32_t fgraph_only_pred(const struct fgraph *g, uint32_t b);

/* The natural loops of a function: per loop (by header), its blocks */
struct loops_of {
	uint32_t n, words;
	uint64_t *bits; /* n rows of words */
};

/* Whether block b is in the loop whose row this is */
bool fgraph_in_loop(const uint64_t *row, uint32_t b);
/* f's natural loops, one per header (its back edges' bodies together),
 * into l; free(l->bits) releases them. */
void fgraph_loops(const struct fgraph *g, const uint32_t *idom, struct loops_of *l);

#endif
