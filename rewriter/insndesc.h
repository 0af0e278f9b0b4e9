/* SPDX-License-Identifier: MIT */
/*
 * The distinct instructions a run meets, each described once
 * (insn_describe) and numbered.  The objects of an archive share most of
 * their instructions (libsqlite3.a: 255,000 instructions, 47,000
 * distinct), and the timing model costs each of them over and over: in
 * every block and context it costs it in.  An instruction decoded into a
 * text carries its number (insn.desc), and is described from the same
 * decoding when its bytes are new; the timing model keeps what it makes
 * of a description by the same number (model.h).
 *
 * An instruction met again is not decoded again either: x86 encodings are
 * prefix-free (the decoder reads an instruction's bytes and no byte past
 * them), so bytes that begin with a known instruction's are that
 * instruction, and all that struct insn says of it but its place follows
 * from them.
 */
#ifndef PI_INSNDESC_H
#define PI_INSNDESC_H

#include <stddef.h>
#include <stdint.h>

#include "decode.h"

/* Descriptions are kept in chunks of this many, never moved: a table
 * grown by copying would fault in its pages twice over. */
#define INSN_DESC_CHUNK_BITS 12
#define INSN_DESC_CHUNK (1u << INSN_DESC_CHUNK_BITS)

struct uarch_slot; /* the analytical model's, uarch_model.c */

struct insn_descs {
	/* by number, from 1: the instruction's bytes and its description */
	struct insn_desc_chunk {
		/* what finding an instruction reads, in one cache line: its
		 * bytes, and it as decoded at offset 0 */
		struct insn_entry {
			_Alignas(64) struct insn insn;
			uint8_t len;
			uint8_t bytes[15];
		} ent[INSN_DESC_CHUNK];
		struct insn_detail detail[INSN_DESC_CHUNK];
	} **chunk;
	size_t n, nchunks;
	/* the numbers by the bytes' hash (open addressing), each with the
	 * hash's high half beside it, which most probes that miss tell from
	 * without reading the entry; 0: empty */
	uint64_t *index;
	size_t index_mask;
	/* the lengths of the instructions known, as bits (1 << len), by their
	 * first byte (len 1) and first two bytes: the lengths worth a probe */
	uint16_t len1[256];
	uint16_t *len2;
	/* what the analytical model made of each number, for the core
	 * costs_of (its struct uarch), by chunk as the descriptions:
	 * allocated and filled by the model, freed with the table */
	struct uarch_slot **costs;
	size_t ncosts;
	const void *costs_of;
};

/* The instruction at bytes[0..avail), at offset off of its section, if t
 * knows it: into *out (its number in out->desc), as insn_decode would
 * decode it.  False if t does not know it. */
bool insn_descs_find(const struct insn_descs *t, const uint8_t *bytes, size_t avail, uint64_t off,
		     struct insn *out);

/* The number of instruction in (insn_decode_kept decoded it into z from
 * bytes[0..in->len)), describing it (insn_describe_decoded) if it is new to
 * t.  A zeroed struct is an empty table. */
uint32_t insn_descs_add(struct insn_descs *t, const uint8_t *bytes, const struct insn *in,
			const struct x86_decoded *z);

/* The description numbered desc (insn_descs_add). */
static inline const struct insn_detail *insn_descs_get(const struct insn_descs *t, uint32_t desc)
{
	return &t->chunk[desc >> INSN_DESC_CHUNK_BITS]->detail[desc & (INSN_DESC_CHUNK - 1)];
}

void insn_descs_free(struct insn_descs *t);

#endif
