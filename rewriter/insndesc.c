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

static struct insn_key *key_of(const struct insn_descs *t, uint32_t d)
{
	return &t->chunk[d >> INSN_DESC_CHUNK_BITS]->key[d & (INSN_DESC_CHUNK - 1)];
}

/* Room for one more number, and an index at most half full. */
static void make_room(struct insn_descs *t)
{
	size_t next = t->n + 1;
	if (next >> INSN_DESC_CHUNK_BITS >= t->nchunks) {
		t->chunk = xrealloc(t->chunk, (t->nchunks + 1) * sizeof(*t->chunk));
		t->chunk[t->nchunks++] = xmalloc(sizeof(**t->chunk));
	}
	if (2 * next <= t->index_mask)
		return;
	size_t size = t->index_mask ? 2 * (t->index_mask + 1) : 8192;
	uint32_t *index = xcalloc(size, sizeof(*index));
	for (uint32_t d = 1; d <= t->n; d++) {
		const struct insn_key *k = key_of(t, d);
		size_t i = hash_bytes(k->bytes, k->len) & (size - 1);
		while (index[i])
			i = (i + 1) & (size - 1);
		index[i] = d;
	}
	free(t->index);
	t->index = index;
	t->index_mask = size - 1;
}

bool insn_descs_find(const struct insn_descs *t, const uint8_t *bytes, size_t avail, uint64_t off,
		     struct insn *out)
{
	if (!t->index)
		return false;
	uint64_t h = HASH_START;
	for (unsigned len = 1; len <= 15 && len <= avail; len++) {
		h = hash_step(h, bytes[len - 1]);
		for (size_t i = hash_end(h) & t->index_mask; t->index[i]; i = (i + 1) & t->index_mask) {
			uint32_t d = t->index[i];
			const struct insn_key *k = key_of(t, d);
			if (k->len != len || memcmp(k->bytes, bytes, len))
				continue;
			*out = t->chunk[d >> INSN_DESC_CHUNK_BITS]->insn[d & (INSN_DESC_CHUNK - 1)];
			out->off = off;
			if (out->rel_size)
				out->target += off;
			out->desc = d;
			return true;
		}
	}
	return false;
}

uint32_t insn_descs_add(struct insn_descs *t, const uint8_t *bytes, const struct insn *in,
			const struct x86_decoded *z)
{
	unsigned len = in->len;
	make_room(t);
	size_t i = hash_bytes(bytes, len) & t->index_mask;
	for (; t->index[i]; i = (i + 1) & t->index_mask) {
		const struct insn_key *k = key_of(t, t->index[i]);
		if (k->len == len && !memcmp(k->bytes, bytes, len))
			return t->index[i];
	}
	uint32_t d = (uint32_t)++t->n;
	t->index[i] = d;
	struct insn_key *k = key_of(t, d);
	memset(k, 0, sizeof(*k));
	k->len = (uint8_t)len;
	memcpy(k->bytes, bytes, len);
	struct insn_desc_chunk *ch = t->chunk[d >> INSN_DESC_CHUNK_BITS];
	insn_describe_decoded(z, &ch->detail[d & (INSN_DESC_CHUNK - 1)]);
	/* as at offset 0: its branch target relative to its start */
	struct insn *at0 = &ch->insn[d & (INSN_DESC_CHUNK - 1)];
	*at0 = *in;
	at0->off = 0;
	if (at0->rel_size)
		at0->target -= in->off;
	at0->desc = d;
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
	memset(t, 0, sizeof(*t));
}
