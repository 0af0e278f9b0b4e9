/* SPDX-License-Identifier: MIT */
#include "insndesc.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

/* FNV-1a over the bytes, one at a time (so that insn_descs_find hashes
 * each prefix of its bytes in one pass), mixed at the end. */
#define HASH_START 0xcbf29ce484222325ull
static inline uint64_t hash_step(uint64_t h, uint8_t byte)
{
	return (h ^ byte) * 0x100000001b3ull;
}
static inline uint64_t hash_end(uint64_t h)
{
	return h ^ (h >> 29);
}

static uint64_t hash_bytes(const uint8_t *bytes, unsigned len)
{
	uint64_t h = HASH_START;
	for (unsigned k = 0; k < len; k++)
		h = hash_step(h, bytes[k]);
	return hash_end(h);
}

static struct insn_entry *entry_of(const struct insn_descs *t, uint32_t d)
{
	return &t->chunk[d >> INSN_DESC_CHUNK_BITS]->ent[d & (INSN_DESC_CHUNK - 1)];
}

static uint64_t index_slot(uint64_t hash, uint32_t d)
{
	return (hash >> 32) << 32 | d;
}

/* Room for one more number, and an index at most half full. */
static void make_room(struct insn_descs *t)
{
	size_t next = t->n + 1;
	if (next >> INSN_DESC_CHUNK_BITS >= t->nchunks) {
		t->chunk = xrealloc(t->chunk, (t->nchunks + 1) * sizeof(*t->chunk));
		t->chunk[t->nchunks++] = xaligned(_Alignof(struct insn_desc_chunk), sizeof(**t->chunk));
	}
	if (!t->len2)
		t->len2 = xcalloc(1u << 16, sizeof(*t->len2));
	if (2 * next <= t->index_mask)
		return;
	size_t size = t->index_mask ? 2 * (t->index_mask + 1) : 8192;
	uint64_t *index = xcalloc(size, sizeof(*index));
	for (uint32_t d = 1; d <= t->n; d++) {
		const struct insn_entry *e = entry_of(t, d);
		uint64_t h = hash_bytes(e->bytes, e->len);
		size_t i = h & (size - 1);
		while (index[i])
			i = (i + 1) & (size - 1);
		index[i] = index_slot(h, d);
	}
	free(t->index);
	t->index = index;
	t->index_mask = size - 1;
}

/* The number of bytes[0..len), hashed h, or 0. */
static uint32_t lookup(const struct insn_descs *t, const uint8_t *bytes, unsigned len, uint64_t h, size_t *slot)
{
	size_t i = h & t->index_mask;
	for (; t->index[i]; i = (i + 1) & t->index_mask) {
		if (t->index[i] >> 32 != h >> 32)
			continue;
		uint32_t d = (uint32_t)t->index[i];
		const struct insn_entry *e = entry_of(t, d);
		if (e->len == len && !memcmp(e->bytes, bytes, len))
			return d;
	}
	if (slot)
		*slot = i;
	return 0;
}

bool insn_descs_find(const struct insn_descs *t, const uint8_t *bytes, size_t avail, uint64_t off,
		     struct insn *out)
{
	if (!t->index || !avail)
		return false;
	/* the lengths an instruction known begins here with (one at most
	 * is: the encodings are prefix-free) */
	unsigned lens = t->len1[bytes[0]];
	if (avail >= 2)
		lens |= t->len2[bytes[0] | bytes[1] << 8];
	lens &= avail >= 15 ? 0xffffu : (2u << avail) - 1;
	uint64_t h = HASH_START;
	uint32_t d = 0;
	for (unsigned len = 1; lens >> len && !d; len++) {
		h = hash_step(h, bytes[len - 1]);
		if ((lens >> len) & 1)
			d = lookup(t, bytes, len, hash_end(h), NULL);
	}
	if (!d)
		return false;
	*out = entry_of(t, d)->insn;
	out->off = off;
	if (out->rel_size)
		out->target += off;
	out->desc = d;
	return true;
}

uint32_t insn_descs_add(struct insn_descs *t, const uint8_t *bytes, const struct insn *in,
			const struct x86_decoded *z)
{
	unsigned len = in->len;
	make_room(t);
	uint64_t h = hash_bytes(bytes, len);
	size_t i;
	uint32_t d = lookup(t, bytes, len, h, &i);
	if (d)
		return d;
	d = (uint32_t)++t->n;
	t->index[i] = index_slot(h, d);
	if (len == 1)
		t->len1[bytes[0]] |= 1u << 1;
	else
		t->len2[bytes[0] | bytes[1] << 8] |= (uint16_t)(1u << len);
	struct insn_entry *e = entry_of(t, d);
	memset(e, 0, sizeof(*e));
	e->len = (uint8_t)len;
	memcpy(e->bytes, bytes, len);
	/* as at offset 0: its branch target relative to its start */
	e->insn = *in;
	e->insn.off = 0;
	if (e->insn.rel_size)
		e->insn.target -= in->off;
	e->insn.desc = d;
	insn_describe_decoded(z, &t->chunk[d >> INSN_DESC_CHUNK_BITS]->detail[d & (INSN_DESC_CHUNK - 1)]);
	return d;
}

void insn_descs_free(struct insn_descs *t)
{
	for (size_t c = 0; c < t->nchunks; c++)
		free(t->chunk[c]);
	for (size_t c = 0; c < t->ncosts; c++)
		free(t->costs[c]);
	free(t->chunk);
	free(t->costs);
	free(t->index);
	free(t->len2);
	memset(t, 0, sizeof(*t));
}
