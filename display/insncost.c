/* SPDX-License-Identifier: MIT */
#include "insncost.h"

#include "decode.h"

/* Share i (of n) of total, so that the n shares add up to total. */
static uint64_t share(uint64_t total, uint32_t i, uint32_t n)
{
	unsigned __int128 t = total;
	return (uint64_t)(t * (i + 1) / n - t * i / n);
}

void pv_insn_costs(const struct profile *p, uint32_t g, void (*fn)(void *ctx, const struct insn_cost *c),
		   void *ctx)
{
	const struct prof_obj *o = &p->objs[p->funcs[g].obj];
	const struct pi_map_func *f = &o->funcs[p->funcs[g].func];
	uint64_t units = o->map->units ? o->map->units : 1;
	for (uint32_t b = f->first_block; b < f->first_block + f->nblocks; b++) {
		const struct pi_map_block *bl = &o->blocks[b];
		const uint8_t *code = o->code + bl->code;
		uint64_t count = o->counts[b];
		uint64_t fixed = count * bl->cost / units;
		uint64_t miss = o->mispredicts ? o->mispredicts[b] : 0;
		uint64_t waited = o->mem_waits ? o->mem_waits[b] / units : 0;
		/* the block's instructions, and those that access memory */
		uint32_t n = 0, nmem = 0;
		for (uint32_t off = 0; off < bl->size;) {
			struct insn in;
			if (!insn_decode(code + off, bl->size - off, bl->offset + off, &in))
				break;
			n++;
			nmem += in.mem_read || in.mem_write;
			off += in.len;
		}
		uint32_t i = 0, imem = 0;
		for (uint32_t off = 0; i < n; i++) {
			struct insn in;
			insn_decode(code + off, bl->size - off, bl->offset + off, &in);
			bool mem = in.mem_read || in.mem_write;
			struct insn_cost c = {
				.block = b,
				.offset = bl->offset + off,
				.line = prof_line(o, bl->section, bl->offset + off),
				.executions = count,
				.fixed = share(fixed, i, n),
				.jcc = in.kind == INSN_JCC,
				.first = i == 0,
			};
			if (c.jcc) {
				c.mispredicts = miss;
				c.mispredicted = miss * o->map->mispredict / units;
			}
			if (nmem ? mem : i == 0)
				c.waited = share(waited, nmem ? imem : 0, nmem ? nmem : 1);
			imem += mem;
			fn(ctx, &c);
			off += in.len;
		}
	}
}
