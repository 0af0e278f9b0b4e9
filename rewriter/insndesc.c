/* SPDX-License-Identifier: MIT */
#include "insndesc.h"

#include <stdlib.h>
#include <string.h>

#include "util.h"

static uint64_t hash_bytes(const uint8_t *bytes, unsigned len)
{
	uint64_t h = 0xcbf29ce484222325ull;
	for (unsigned k = 0; k < len; k++)
		h = (h ^ bytes[k]) * 0x100000001b3ull;
	return h ^ (h >> 29);
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

uint32_t insn_descs_add(struct insn_descs *t, const uint8_t *bytes, unsigned len, const struct x86_decoded *z)
{
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
	memset(t, 0, sizeof(*t));
}
