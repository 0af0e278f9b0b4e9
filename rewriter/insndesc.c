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

/* Room for one more number, and an index at most half full. */
static void make_room(struct insn_descs *t)
{
	if (t->n + 1 >= t->cap) {
		size_t cap = t->cap ? t->cap * 2 : 4096;
		t->key = xrealloc(t->key, cap * sizeof(*t->key));
		t->detail = xrealloc(t->detail, cap * sizeof(*t->detail));
		t->cap = cap;
	}
	if (2 * (t->n + 1) <= t->index_mask)
		return;
	size_t size = t->index_mask ? 2 * (t->index_mask + 1) : 8192;
	uint32_t *index = xcalloc(size, sizeof(*index));
	for (uint32_t d = 1; d <= t->n; d++) {
		size_t i = hash_bytes(t->key[d].bytes, t->key[d].len) & (size - 1);
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
		const struct insn_key *k = &t->key[t->index[i]];
		if (k->len == len && !memcmp(k->bytes, bytes, len))
			return t->index[i];
	}
	uint32_t d = (uint32_t)++t->n;
	t->index[i] = d;
	memset(&t->key[d], 0, sizeof(t->key[d]));
	t->key[d].len = (uint8_t)len;
	memcpy(t->key[d].bytes, bytes, len);
	insn_describe_decoded(z, &t->detail[d]);
	return d;
}

void insn_descs_free(struct insn_descs *t)
{
	free(t->key);
	free(t->detail);
	free(t->index);
	free(t->costs);
	memset(t, 0, sizeof(*t));
}
