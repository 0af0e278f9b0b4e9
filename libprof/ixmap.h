/* SPDX-License-Identifier: MIT */
/*
 * A hash map from a pair of numbers to an index (in an array its user
 * keeps), for the views that gather figures by key -- a caller's arc to a
 * callee, a call site -- so that each addition is O(1) however many keys
 * there are.  Nothing is ever removed.
 */
#ifndef PI_IXMAP_H
#define PI_IXMAP_H

#include <stdint.h>
#include <stdlib.h>
#include <string.h>

struct ix_map {
	uint64_t (*keys)[2];
	uint32_t *vals; /* UINT32_MAX: a free slot */
	size_t cap, n;  /* cap: 0 or a power of two, at least twice n */
};

static inline size_t ix_map_slot(const struct ix_map *m, uint64_t a, uint64_t b)
{
	/* both numbers mixed into the low bits the slot takes */
	uint64_t h = (a ^ (b * 0x9e3779b97f4a7c15ull)) * 0xff51afd7ed558ccdull;
	size_t i = (size_t)(h ^ h >> 32) & (m->cap - 1);
	while (m->vals[i] != UINT32_MAX && (m->keys[i][0] != a || m->keys[i][1] != b))
		i = (i + 1) & (m->cap - 1);
	return i;
}

/* The index kept for (a, b), or UINT32_MAX. */
static inline uint32_t ix_map_get(const struct ix_map *m, uint64_t a, uint64_t b)
{
	return m->cap ? m->vals[ix_map_slot(m, a, b)] : UINT32_MAX;
}

/* Keeps index v (not UINT32_MAX) for (a, b), replacing any kept.  0, or -1
 * out of memory (m unchanged). */
static inline int ix_map_put(struct ix_map *m, uint64_t a, uint64_t b, uint32_t v)
{
	if (2 * (m->n + 1) > m->cap) {
		struct ix_map nm = {.cap = m->cap ? 2 * m->cap : 1024, .n = m->n};
		nm.keys = malloc(nm.cap * sizeof(*nm.keys));
		nm.vals = malloc(nm.cap * sizeof(*nm.vals));
		if (!nm.keys || !nm.vals) {
			free(nm.keys), free(nm.vals);
			return -1;
		}
		memset(nm.vals, 0xff, nm.cap * sizeof(*nm.vals));
		for (size_t i = 0; i < m->cap; i++)
			if (m->vals[i] != UINT32_MAX) {
				size_t k = ix_map_slot(&nm, m->keys[i][0], m->keys[i][1]);
				memcpy(nm.keys[k], m->keys[i], sizeof(nm.keys[k]));
				nm.vals[k] = m->vals[i];
			}
		free(m->keys), free(m->vals);
		*m = nm;
	}
	size_t i = ix_map_slot(m, a, b);
	if (m->vals[i] == UINT32_MAX) {
		m->keys[i][0] = a;
		m->keys[i][1] = b;
		m->n++;
	}
	m->vals[i] = v;
	return 0;
}

static inline void ix_map_free(struct ix_map *m)
{
	free(m->keys), free(m->vals);
	memset(m, 0, sizeof(*m));
}

#endif
