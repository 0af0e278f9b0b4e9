/* SPDX-License-Identifier: MIT */
/*
 * The original line tables (.debug_line, DWARF 2 to 5) of an object, read
 * before it is rewritten.  Parsed here rather than through libdwarf: in a
 * relocatable object an address is only meaningful with the relocation
 * that says which section it is in (with -ffunction-sections every
 * function starts at 0), so DW_LNE_set_address is resolved through
 * .rela.debug_line.  Anything not understood yields no rows: line
 * information is optional.
 */
#ifndef PI_DWARFLINE_H
#define PI_DWARFLINE_H

#include "objfile.h"

struct line_row {
	int sec;          /* section of the code */
	uint64_t off;     /* offset in it */
	const char *file; /* owned by the table */
	uint32_t line;    /* 0: end of a sequence, or no line */
};

/* A unit's file table, by its offset in .debug_line (a compilation unit's
 * DW_AT_stmt_list): DW_AT_call_file indexes it. */
struct line_unit {
	uint64_t off;
	const char **files; /* [nfiles], the strings owned by the table */
	size_t nfiles;
};

struct line_table {
	struct line_row *rows;
	size_t n, cap;
	char **files;
	size_t nfiles, filecap;
	struct line_unit *units;
	size_t nunits, unitcap;
};

/* Rows sorted by (section, offset). */
void line_table_read(struct line_table *t, const struct object *o);
void line_table_free(struct line_table *t);

/* The file a unit's file table (the unit at offset unit of .debug_line)
 * has at index i, or NULL. */
const char *line_table_file(const struct line_table *t, uint64_t unit, uint64_t i);

#endif
