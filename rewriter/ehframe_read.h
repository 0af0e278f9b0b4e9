/* SPDX-License-Identifier: MIT */
/*
 * Reading an object's .eh_frame for the analysis, before any layout: the
 * code each FDE describes, and the landing pads its LSDA names; and the
 * reading of a CIE and of the pointer encodings, which the rewriting for
 * the new layout (ehframe.h) shares.
 */
#ifndef PI_EHFRAME_READ_H
#define PI_EHFRAME_READ_H

#include <stdbool.h>
#include <stdint.h>

#include "cfg.h"

/* DWARF pointer encodings (DW_EH_PE_*), their low nibble */
#define DW_EH_PE_omit 0xff
#define DW_EH_PE_uleb128 0x01
#define DW_EH_PE_udata2 0x02
#define DW_EH_PE_udata4 0x03
#define DW_EH_PE_udata8 0x04
#define DW_EH_PE_sleb128 0x09
#define DW_EH_PE_sdata2 0x0a
#define DW_EH_PE_sdata4 0x0b
#define DW_EH_PE_sdata8 0x0c

/* What an FDE needs of its CIE. */
struct cie {
	uint64_t off;       /* its length field's offset in the section */
	uint64_t noff;      /* its offset in the rewritten section (ehframe.c's) */
	uint64_t code_align;
	uint8_t fde_enc, lsda_enc;
	bool aug_z;
	bool std_initial; /* CFA = rsp+8 at entry */
};

/* The bytes of a pointer of encoding enc: 2, 4 or 8, or -1 for a LEB128
 * (not used for pointers here). */
int eh_enc_size(uint8_t enc);

/* Read the CIE whose length field is at offset off, its body (after its id)
 * p[0..end), into ci.  False if it is not one this rewriter understands
 * (an augmentation other than z, R, L, P, S, B; a zero code alignment). */
bool eh_parse_cie(uint64_t off, const uint8_t *p, const uint8_t *end, struct cie *ci);

struct cursor;
/* Step the cursor past the operands of CFA instruction op (not an
 * advance); false if op is unknown or its operands run past the end. */
bool eh_skip_cfa_operands(struct cursor *c, uint8_t op);

/* Whether CFA instruction op is an advance (advance_loc, _loc1, _loc2,
 * _loc4); its delta, in code alignment units, read into *delta. */
bool eh_cfa_advance(struct cursor *c, uint8_t op, uint64_t *delta);

/* Mark exception landing pads as blocks where the shadow stack resyncs:
 * those of the LSDA of every FDE of code.  Before blocks are built. */
void ehframe_mark_landing_pads(struct code *c);

/* --counts: where each call site's and direct tail jump's frame has its
 * CFA (text.cfa), by the CFA rules of the FDE that covers it.  After the
 * sites are numbered (code_find_sites). */
void ehframe_call_cfa(struct code *c);

/* The code every FDE of c->o describes: its section, offset and size,
 * each through fn.  Needs only the object (before decoding). */
void ehframe_code_ranges(struct code *c, void (*fn)(void *arg, int sec, uint64_t off, uint64_t size),
			 void *arg);

#endif
