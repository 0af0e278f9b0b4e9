/* SPDX-License-Identifier: MIT */
#include "addrmap.h"

uint64_t addrmap_lookup(const struct code *c, int ti, uint64_t off, enum map_kind kind)
{
	const struct text *t = &c->texts[ti];
	if (off >= t->size) /* the section's end (or past it, in a broken object) */
		return t->nsize + (off - t->size);
	uint32_t k = t->at[off];
	if (k != NO_INSN)
		return kind == MAP_BRANCH ? t->lab[k] : t->pre[k];
	for (size_t i = 0; i < t->nvr; i++)
		if (off >= t->vr[i].start && off < t->vr[i].end)
			return t->vr[i].nstart + (off - t->vr[i].start);
	/* inside an instruction: keep the distance from its start */
	for (uint64_t b = off; b-- > 0 && off - b < 16;)
		if (t->at[b] != NO_INSN)
			return t->pos[t->at[b]] + (off - b);
	return t->nsize;
}
