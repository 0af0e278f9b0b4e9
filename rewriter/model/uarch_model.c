/* SPDX-License-Identifier: MIT */
/*
 * The analytical block model (seed 003: fixed cycles per basic block,
 * stalls included): a block's cost is the largest of
 *   - the front end: fused micro-ops over the machine's issue width;
 *   - the ports: the busiest execution port's pressure;
 *   - the dependency chain a repeated block carries from one run to the
 *     next (load-use latency included, as the tables give it for memory
 *     forms): a block's cost is its steady-state throughput, as measured
 *     in a loop of itself (bench/blocks.py); the latency of a chain it
 *     does not carry overlaps with the blocks around it;
 * after what the renamer resolves without executing (zeroing idioms,
 * eliminated moves, immediate adds folded at rename where the core does)
 * and compare-and-branch macro-fusion.  Per-form data come from the
 * generated tables; a form missing from them falls back to its category.
 */
#include <stdlib.h>
#include <string.h>

#include "uarch_model.h"

static int cmp_form(const void *key, const void *elem)
{
	return strcmp(key, ((const struct form_cost *)elem)->form);
}

static const struct form_cost *lookup(const struct uarch *u, const char *form)
{
	return bsearch(form, u->forms, u->nforms, sizeof(*u->forms), cmp_form);
}

/* The fallback by category, with a port mask over the first ports (ALU
 * ports are the first 4 of each table's list, loads the next). */
static void fallback(const struct uarch *u, const struct insn *in, const struct insn_detail *d,
		     struct form_cost *out)
{
	memset(out, 0, sizeof(*out));
	out->uops = 1;
	out->lat = 1;
	switch (in->cls) {
	case ICLS_MUL: out->lat = 3; break;
	case ICLS_DIV: out->lat = 20; out->uops = 4; break;
	case ICLS_FP: out->lat = 4; break;
	case ICLS_VEC: out->lat = 3; break;
	case ICLS_STRING: out->lat = 4; out->uops = 3; break;
	case ICLS_SYSTEM: out->lat = 20; out->uops = 10; break;
	case ICLS_NOP: out->lat = 0; break;
	default: break;
	}
	if (d->load)
		out->lat += u->load_lat, out->uops++;
	if (d->store)
		out->uops++;
	/* spread one cycle over the ALU ports */
	for (unsigned p = 0; p < u->nalu && p < UARCH_MAX_PORTS; p++)
		out->press[u->alu[p]] = (uint16_t)(100 / u->nalu);
}

/* Ice Lake's ports 0-9 as LLVM 14 names them: ALU on 0, 1, 5, 6; loads on
 * 2, 3; store data on 4; store addresses on 7 (8 and 9 unused).  Golden
 * Cove adds an ALU (10), a load port (11), store data on 9 and store
 * addresses on 8: the same work spreads over more ports. */
static void widen_to_golden_cove(struct form_cost *c)
{
	uint16_t *p = c->press;
	if (p[0] && p[0] == p[1] && p[1] == p[5] && p[5] == p[6]) {
		unsigned per = p[0] * 4u / 5u;
		p[0] = p[1] = p[5] = p[6] = (uint16_t)per;
	}
	p[2] = (uint16_t)(p[2] * 2u / 3u);
	p[3] = (uint16_t)(p[3] * 2u / 3u);
	p[9] = (uint16_t)(p[9] + p[4] / 2u);
	p[4] = (uint16_t)(p[4] - p[4] / 2u);
	p[8] = (uint16_t)(p[8] + p[7] / 2u);
	p[7] = (uint16_t)(p[7] - p[7] / 2u);
}

static bool fusible_first(const struct insn_detail *d)
{
	/* cmp/test/add/sub/and/inc/dec with a register or memory operand
	 * and no immediate+memory pair (not fused on Intel) */
	const char *f = d->form;
	bool k = !strncmp(f, "cmp ", 4) || !strncmp(f, "test ", 5) || !strncmp(f, "add ", 4) ||
		 !strncmp(f, "sub ", 4) || !strncmp(f, "and ", 4) || !strncmp(f, "inc ", 4) ||
		 !strncmp(f, "dec ", 4);
	if (!k)
		return false;
	return !(strstr(f, ",i") && strchr(f, 'm') && strstr(f, " m"));
}

#define MAXREG 64
#define ITERS 3

uint32_t uarch_block_cost(const struct cpu_model *m, const uint8_t *code, const struct insn *insns,
			  size_t n, struct model_stats *st)
{
	const struct uarch *u = m->uarch;
	if (!n)
		return 0;
	struct slot {
		struct form_cost c;
		struct insn_detail d;
	} tmp[32], *v = tmp;
	if (n > 32)
		v = malloc(n * sizeof(*v));
	if (!v)
		return (uint32_t)n;
	uint32_t uops = 0;
	uint32_t press[UARCH_MAX_PORTS] = {0};
	for (size_t i = 0; i < n; i++) {
		struct slot *s = &v[i];
		if (!insn_describe(code + insns[i].off, insns[i].len, &s->d)) {
			memset(&s->d, 0, sizeof(s->d));
			snprintf(s->d.form, sizeof(s->d.form), "(bad)");
		}
		const struct form_cost *fc = lookup(u, s->d.form);
		if (st)
			st->insns++;
		if (fc) {
			s->c = *fc;
		} else {
			fallback(u, &insns[i], &s->d, &s->c);
			if (st) {
				st->fallback++;
				model_stats_missing(st, s->d.form);
			}
		}
		if (u->golden_cove_ports)
			widen_to_golden_cove(&s->c);
		if (s->d.zero_idiom || (s->d.move_reg && u->move_elim) || (s->d.imm_add && u->imm_add_folded)) {
			/* resolved at rename: a micro-op issued, nothing executed */
			s->c.lat = 0;
			memset(s->c.press, 0, sizeof(s->c.press));
			s->c.uops = 1;
		}
		if (insns[i].kind == INSN_JCC && i > 0 && fusible_first(&v[i - 1].d) && !v[i - 1].d.store) {
			/* one fused micro-op, executed on a branch port: the
			 * compare's ALU work goes, its load (if any) stays */
			struct slot *cmp = &v[i - 1];
			s->c.uops = 0;
			s->c.lat = 0;
			for (unsigned a = 0; a < u->nalu; a++) {
				press[u->alu[a]] -= cmp->c.press[u->alu[a]];
				cmp->c.press[u->alu[a]] = 0;
			}
		}
		uops += s->c.uops;
		for (unsigned p = 0; p < u->nports; p++)
			press[p] += s->c.press[p];
	}
	/* the front end and the ports, in hundredths */
	uint64_t fe = (uint64_t)uops * 100 / u->width;
	/* a block that always ends in a taken branch (jmp, call, ret) costs
	 * the front end a fetch redirect: a cycle at least */
	enum insn_kind last = (enum insn_kind)insns[n - 1].kind;
	if ((last == INSN_JMP || last == INSN_JMP_IND || last == INSN_CALL || last == INSN_CALL_IND ||
	     last == INSN_RET) && fe < 100)
		fe = 100;
	uint64_t port = 0;
	for (unsigned p = 0; p < u->nports; p++)
		if (press[p] > port)
			port = press[p];
	/* dependency chains: run the block ITERS times from registers ready
	 * at 0; what it carries from one pass to the next */
	uint32_t ready[MAXREG] = {0};
	/* memory written in the block, by address as written: a load of it
	 * waits for the store, plus the forwarding latency */
	struct { uint64_t key, regs; uint32_t ready; } mem[16];
	unsigned nmem = 0;
	uint32_t pass_end[ITERS] = {0};
	for (int it = 0; it < ITERS; it++) {
		uint32_t end = 0;
		for (size_t i = 0; i < n; i++) {
			const struct slot *s = &v[i];
			/* a load starts when its address is ready; the data
			 * operands of a load-op only join after the load; a
			 * partial write's merge waits one cycle on the old value */
			uint32_t ta = 0, td = 0, tm = 0;
			for (unsigned r = 0; r < MAXREG; r++) {
				if ((s->d.addr >> r) & 1 && ready[r] > ta)
					ta = ready[r];
				if ((s->d.rd >> r) & 1 && ready[r] > td)
					td = ready[r];
				if ((s->d.merge >> r) & 1 && ready[r] > tm)
					tm = ready[r];
			}
			uint32_t done;
			if (s->d.load) {
				uint32_t after = s->c.lat > u->load_lat ? s->c.lat - u->load_lat : 1;
				done = ta + s->c.lat;
				if (td + after > done)
					done = td + after;
				for (unsigned k = 0; k < nmem; k++)
					if (mem[k].key == s->d.mem_key && mem[k].ready + u->fwd_lat + after > done)
						done = mem[k].ready + u->fwd_lat + after;
			} else {
				done = (ta > td ? ta : td) + s->c.lat;
			}
			if (s->d.merge && tm + 1 > done)
				done = tm + 1;
			for (unsigned r = 0; r < MAXREG; r++)
				if ((s->d.wr >> r) & 1)
					ready[r] = done;
			if (s->d.store && s->d.mem_key) {
				/* the stored value is ready when its inputs are
				 * (a plain store) or when the operation is (a
				 * read-modify-write) */
				uint32_t t = s->d.load ? done : (ta > td ? ta : td);
				unsigned k = 0;
				while (k < nmem && mem[k].key != s->d.mem_key)
					k++;
				if (k == nmem && nmem < 16)
					mem[nmem++].key = s->d.mem_key;
				if (k < 16) {
					mem[k].ready = t;
					mem[k].regs = s->d.addr;
				}
			}
			/* a register an address is made of changes: what was
			 * written there is at another address now */
			for (unsigned k = 0; k < nmem; k++)
				if (mem[k].regs & s->d.wr)
					mem[k].key = 0;
			if (done > end)
				end = done;
		}
		pass_end[it] = end;
	}
	uint64_t carried = (uint64_t)(pass_end[ITERS - 1] - pass_end[0]) * 100 / (ITERS - 1);
	uint64_t cost = fe;
	if (port > cost)
		cost = port;
	if (carried > cost)
		cost = carried;
	if (v != tmp)
		free(v);
	/* hundredths to the model's units */
	uint32_t c = (uint32_t)((cost * UARCH_UNITS + 50) / 100);
	return c ? c : 1;
}
