/* SPDX-License-Identifier: MIT */
/* Counting trees (PI_REC_CTHREAD) to calling-context trees: the reader's. */
#ifndef PROFINST_CTREE_H
#define PROFINST_CTREE_H

#include <stddef.h>
#include <stdint.h>

#include "reader.h"

/* What a counting tree became, in memory the caller frees with ctree_free */
struct ctree_out {
	uint8_t *thread;  /* a THREAD record's payload (pt points into it) */
	uint8_t **counts; /* COUNTS records, header included, by object */
	uint64_t ncounts;
};

/* The counting tree of a PI_REC_CTHREAD record's payload (pl, size
 * bytes) as the THREAD record and COUNTS records the timed runtime would
 * have written: pt's header, nodes and edges point into out.  p's
 * objects, functions and function records must be read already.  0, or
 * -1 with a message in err (a tree that does not fit the maps). */
int ctree_convert(const struct profile *p, const uint8_t *pl, uint64_t size, struct prof_thread *pt,
		  struct ctree_out *out, char *err, size_t errsz);
void ctree_free(struct ctree_out *out);

#endif
