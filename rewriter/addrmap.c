/* SPDX-License-Identifier: MIT */
#include "addrmap.h"

#include <stdlib.h>
#include <string.h>

void addrmap_init(struct addrmap *m, const struct code *c)
{
	m->c = c;
	m->texts = xcalloc((size_t)c->ntexts + 1, sizeof(*m->texts));
	for (int ti = 0; ti < c->ntexts; ti++) {
		struct text_layout *tl = &m->texts[ti];
		uint32_t n = c->texts[ti].ninsns;
		tl->pre = xcalloc(n + 1, sizeof(uint32_t));
		tl->lab = xcalloc(n + 1, sizeof(uint32_t));
		tl->pos = xcalloc(n + 1, sizeof(uint32_t));
		tl->entry = xcalloc(n + 1, sizeof(uint32_t));
		tl->inner = xcalloc(n + 1, sizeof(uint32_t));
		tl->edge_at = xmalloc((n + 1) * sizeof(uint32_t));
		memset(tl->edge_at, 0xff, (n + 1) * sizeof(uint32_t));
		tl->vr_start = xcalloc(c->texts[ti].nvr + 1, sizeof(uint64_t));
	}
	m->ret_off = xcalloc(c->nsites + 1, sizeof(uint32_t));
}

void addrmap_free(struct addrmap *m)
{
	for (int ti = 0; m->texts && ti < m->c->ntexts; ti++) {
		struct text_layout *tl = &m->texts[ti];
		free(tl->pre), free(tl->lab), free(tl->pos), free(tl->entry), free(tl->inner), free(tl->vr_start);
		free(tl->edge_at);
		free(tl->cfa_rows);
		buf_free(&tl->out);
	}
	free(m->texts);
	free(m->ret_off);
	m->texts = NULL;
	m->ret_off = NULL;
}

uint64_t addrmap_lookup(const struct addrmap *m, int ti, uint64_t off, enum map_kind kind)
{
	const struct text *t = &m->c->texts[ti];
	const struct text_layout *tl = &m->texts[ti];
	if (off >= t->size) /* the section's end (or past it, in a broken object) */
		return tl->nsize + (off - t->size);
	uint32_t k = t->at[off];
	if (k != NO_INSN)
		return kind == MAP_BRANCH ? tl->lab[k] : kind == MAP_INNER ? tl->inner[k] : tl->pre[k];
	for (size_t i = 0; i < t->nvr; i++)
		if (off >= t->vr[i].start && off < t->vr[i].end)
			return tl->vr_start[i] + (off - t->vr[i].start);
	/* inside an instruction: keep the distance from its start */
	for (uint64_t b = off; b-- > 0 && off - b < 16;)
		if (t->at[b] != NO_INSN)
			return tl->pos[t->at[b]] + (off - b);
	return tl->nsize;
}
