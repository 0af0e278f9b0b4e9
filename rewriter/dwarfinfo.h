/* SPDX-License-Identifier: MIT */
/*
 * The inlined calls of an object (.debug_info's DW_TAG_inlined_subroutine,
 * DWARF 2 to 5 as gcc and clang write them), read before it is rewritten,
 * so that profview can show code inlined into a function as inline frames.
 * Our own reader for the reason dwarfline.c is ours: in a relocatable
 * object an address, and every offset into another debug section, means
 * nothing without the relocation on its field, which names its section.
 * Only what inline frames need is read: names (through
 * DW_AT_abstract_origin and DW_AT_specification), address ranges
 * (low_pc/high_pc, DW_AT_ranges in .debug_ranges or .debug_rnglists,
 * indexed forms through .debug_addr and .debug_str_offsets), the call's
 * file and line, and nesting.  Not split DWARF (.dwo) nor type units.
 */
#ifndef PI_DWARFINFO_H
#define PI_DWARFINFO_H

#include <stdbool.h>

#include "dwarfline.h"
#include "objfile.h"

/* One inlined call: a DW_TAG_inlined_subroutine. */
struct inline_frame {
	char *name;            /* the inlined function's (its linkage name where it has one), owned */
	const char *call_file; /* where it was called, or NULL; the line table's */
	uint32_t call_line;
	int32_t parent;        /* the frame it was inlined into, or -1: into the function */
};

/* A range of code of a frame (and of its parents). */
struct inline_range {
	int sec;
	uint64_t start, end;
	uint32_t frame;
};

/* Which frame the code is in, from off to the next row of the same
 * section: the innermost one, or none. */
struct inline_row {
	int sec;
	uint64_t off;
	int32_t frame; /* -1: the function's own code */
};

struct inline_table {
	struct inline_frame *frames; /* a frame's parent comes before it */
	size_t nframes, framecap;
	struct inline_range *ranges;
	size_t nranges, rangecap;
	struct inline_row *rows; /* sorted by (section, offset) */
	size_t nrows, rowcap;
};

/* Read o's inlined calls, their files from lt (o's line table).  Returns
 * false, with t empty, if the object's DWARF is malformed; true otherwise
 * (t empty too where there is none). */
bool inline_table_read(struct inline_table *t, const struct object *o, const struct line_table *lt);
void inline_table_free(struct inline_table *t);

#endif
