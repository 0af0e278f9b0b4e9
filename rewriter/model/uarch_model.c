/* SPDX-License-Identifier: MIT */
/*
 * The analytical block model (fixed cycles per basic block,
 * stalls included): a block's cost is its steady-state throughput, as
 * measured in a loop of itself (bench/blocks.py), the largest of
 *   - the front end: fused micro-ops over the machine's issue width, and
 *     the least a block ending in a taken jump, call or return costs;
 *   - the ports: the busiest port once the work a form may put on any port
 *     of a class is placed as a scheduler would (port_bound);
 *   - the first-level cache: loads per 8-byte bank, stores committed two a
 *     cycle only to one line (where the core is known to work so);
 *   - for a block that repeats (a loop of a few blocks: loops.h), the
 *     dependency chain it carries from one run to the next, through
 *     registers and through memory (load-use latency as the tables give it
 *     for memory forms, stores forwarded or renamed to later loads of the
 *     same address, loads partly in a store waiting for its commit); the
 *     latency of a chain it does not carry, and of every chain of a block
 *     in flow between other blocks, overlaps with the blocks around it;
 * after what the renamer resolves without executing (zeroing idioms,
 * eliminated moves, constants added to 64-bit registers where the core
 * folds them) and compare-and-branch macro-fusion.  Per-form data come from
 * the generated tables, or from measurements where the core differs; a form
 * missing from them falls back to its category.
 */
#include <stdlib.h>
#include <string.h>

#include "insndesc.h"
#include "uarch_model.h"
#include "util.h"

static int cmp_form(const void *key, const void *elem)
{
	return strcmp(key, ((const struct form_cost *)elem)->form);
}

/* An instruction of the block being costed: its form's cost, adjusted for
 * idioms and fusion, and what insn_describe says of it. */
struct slot {
	struct form_cost c;
	const struct insn_detail *d;
	bool vec_result; /* writes a vector register */
	bool fusible;    /* may fuse with a jcc after it (fusible_first) */
};

/* What the model makes of one description, whatever the block, kept in
 * the run's table of descriptions by its number (insndesc.h): a block is
 * costed several times (in flow, repeated, in each loop it is part of)
 * and the same instructions recur across a library. */
struct uarch_slot {
	struct form_cost c;
	bool vec_result, fusible;
	bool known;  /* in the tables (not a fallback) */
	bool filled; /* made yet */
};

static const struct form_cost *lookup(const struct uarch *u, const char *form)
{
	const struct form_cost *c = NULL;
	if (u->nmeasured)
		c = bsearch(form, u->measured, u->nmeasured, sizeof(*u->measured), cmp_form);
	return c ? c : bsearch(form, u->forms, u->nforms, sizeof(*u->forms), cmp_form);
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
 * Cove adds an ALU and a load port (GC_ALU5, GC_LOAD3), store data on 9
 * and store addresses on 8: the same work spreads over more ports. */
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

/* A floating-point add or subtract (scalar or packed, SSE or VEX): the
 * forms whose latency a core with faster adders than its table's has. */
static bool fp_add(const char *form)
{
	static const char *const m[] = {"addsd", "addss", "addpd", "addps", "subsd", "subss", "subpd", "subps"};
	if (*form == 'v')
		form++;
	for (size_t i = 0; i < sizeof(m) / sizeof(m[0]); i++)
		if (!strncmp(form, m[i], 5) && form[5] == ' ')
			return true;
	return false;
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

/* What the block has done to the general registers so far: each one's
 * value as the how-many-th the pass gave it (ver), plus the constants
 * added to it since (off: folded adds, the stack engine's moves). */
struct regval {
	uint16_t ver[16];
	int64_t off[16];
};

/* An address as the block computes it.  kind: 0 none, 1 from registers,
 * 2 RIP-relative (a place of each instruction's own), 3 another segment. */
struct addr {
	uint8_t kind;
	int8_t base, index;
	uint8_t scale;
	uint16_t vb, vi;
	int64_t disp;
};

static struct addr addr_of(const struct insn_detail *d, const struct regval *rv, size_t i)
{
	struct addr a;
	memset(&a, 0, sizeof(a));
	if (!d->load && !d->store)
		return a;
	if (d->mem.rip) {
		a.kind = 2, a.disp = (int64_t)i * 4096 + d->mem.disp;
		return a;
	}
	a.kind = d->mem.other_seg ? 3 : 1;
	a.base = d->mem.base, a.index = d->mem.index, a.scale = d->mem.scale;
	a.disp = d->mem.disp;
	if (a.base >= 0 && a.base < 16)
		a.vb = rv->ver[a.base], a.disp += rv->off[a.base];
	if (a.index >= 0 && a.index < 16)
		a.vi = rv->ver[a.index], a.disp += rv->off[a.index] * a.scale;
	return a;
}

static bool addr_regs_same(const struct addr *x, const struct addr *y)
{
	return x->kind == y->kind && x->base == y->base && x->index == y->index && x->scale == y->scale &&
	       x->vb == y->vb && x->vi == y->vi;
}

static bool addr_same(const struct addr *x, const struct addr *y)
{
	return addr_regs_same(x, y) && x->disp == y->disp;
}

/* The same 64-byte line, as far as the block can tell: the same
 * registers (taken as aligned) and displacements in one line. */
static bool addr_line_same(const struct addr *x, const struct addr *y)
{
	return addr_regs_same(x, y) && (x->disp >> 6) == (y->disp >> 6);
}

/* Whether a load of [lo, hi) must be matched with a store of [slo, shi)
 * (the registers being the same): where their bytes meet, and on a core
 * that compares aligned 4-byte chunks (fwd_dword), where their chunks
 * do. */
static bool forwards_from(const struct uarch *u, bool zext, int64_t lo, int64_t hi, int64_t slo, int64_t shi)
{
	if (u->fwd_dword && !zext) {
		lo &= ~(int64_t)3, slo &= ~(int64_t)3;
		hi = (hi + 3) & ~(int64_t)3, shi = (shi + 3) & ~(int64_t)3;
	}
	return hi > slo && lo < shi;
}

/* Whether the store can hand a load inside it the load's bytes: any of
 * them, except on a fwd_dword core, which forwards only from the store's
 * first byte or from its fifth on in a store of 8 bytes or more (bench/
 * probes/zen5.s: a byte loaded from a 4-byte store's second byte takes
 * 14-18 cycles, from an 8-byte store's sixth under 1), or into a movzx
 * from any byte. */
static bool forward_shift(const struct uarch *u, bool zext, int64_t lo, int64_t slo, int64_t shi)
{
	return !u->fwd_dword || zext || lo == slo || (shi - slo >= 8 && lo - slo >= 4);
}

static void regval_update(struct regval *rv, const struct insn_detail *d)
{
	if (d->rsp_move && !d->imm_add)
		rv->off[4] += d->rsp_move; /* push, pop, call, ret */
	/* (the written general registers' bits only: this runs for every
	 * instruction of every pass over every block costed) */
	for (uint64_t w = d->wr & 0xffff; w; w &= w - 1) {
		unsigned r = (unsigned)__builtin_ctzll(w);
		if (d->imm_add && ((d->rd >> r) & 1 || (d->addr >> r) & 1)) {
			rv->off[r] += d->imm; /* r plus a constant */
		} else {
			rv->ver[r]++;
			rv->off[r] = 0;
		}
	}
}

/* Golden Cove's extra ports do the same work as Ice Lake's of their class:
 * a fifth ALU (GC_ALU5), a third load port (GC_LOAD3), a second store-data
 * (9) and store-address (8) port. */
static uint32_t golden_cove_mask(uint32_t m)
{
	if ((m & 0x63) == 0x63)
		m |= 1u << GC_ALU5;
	if ((m & 0xc) == 0xc)
		m |= 1u << GC_LOAD3;
	if (m & (1u << 4))
		m |= 1u << 9;
	if (m & (1u << 7))
		m |= 1u << 8;
	return m;
}

/* The busiest port under the best assignment of flexible work, in
 * hundredths: the largest, over sets S of ports, of the work that can only
 * go to S over |S| (by max-flow duality, what an ideal scheduler reaches);
 * without plain stores' work if no_stores. */
static uint64_t port_bound(const struct uarch *u, const struct slot *v, size_t n, bool no_stores)
{
	const uint8_t *cls = u->port_class;
	uint32_t fixed[UARCH_MAX_PORTS] = {0};
	struct { uint32_t mask, work; } jobs[64];
	unsigned njobs = 0;
	for (size_t i = 0; i < n; i++) {
		const struct form_cost *c = &v[i].c;
		if (no_stores && v[i].d->store && !v[i].d->load)
			continue;
		/* per class: equal shares are a job, anything else is fixed
		 * (the ports with work as bits: an instruction uses a few of
		 * the 16, and this runs for each of each block costed) */
		uint32_t busy = 0;
		for (unsigned p = 0; p < u->nports; p++)
			if (c->press[p])
				busy |= 1u << p;
		for (uint32_t left = busy; left;) {
			unsigned p = (unsigned)__builtin_ctz(left);
			uint32_t mask = 0, work = 0;
			bool even = true;
			for (uint32_t qs = busy & ~((1u << p) - 1); qs; qs &= qs - 1) {
				unsigned q = (unsigned)__builtin_ctz(qs);
				if (cls && cls[q] != cls[p])
					continue;
				mask |= 1u << q, work += c->press[q];
				if (c->press[q] + 2 < c->press[p] || c->press[q] > c->press[p] + 2)
					even = false;
			}
			left &= ~mask;
			bool several = (mask & (mask - 1)) != 0;
			if (even && several && njobs < 64) {
				jobs[njobs].mask = u->golden_cove_ports ? golden_cove_mask(mask) : mask;
				jobs[njobs++].work = work;
			} else if (even && !several && u->golden_cove_ports &&
				   golden_cove_mask(mask) != mask && njobs < 64) {
				jobs[njobs].mask = golden_cove_mask(mask);
				jobs[njobs++].work = work;
			} else {
				struct form_cost f;
				memset(&f, 0, sizeof(f));
				for (unsigned q = 0; q < u->nports; q++)
					if ((mask >> q) & 1)
						f.press[q] = c->press[q];
				if (u->golden_cove_ports)
					widen_to_golden_cove(&f);
				for (unsigned q = 0; q < u->nports; q++)
					fixed[q] += f.press[q];
			}
		}
	}
	/* the bound within each class of ports (jobs never span classes, so a
	 * set spanning classes is never the busiest) */
	uint32_t active = 0;
	for (unsigned q = 0; q < u->nports; q++)
		if (fixed[q])
			active |= 1u << q;
	for (unsigned j = 0; j < njobs; j++)
		active |= jobs[j].mask;
	uint64_t best = 0;
	while (active) {
		unsigned first = (unsigned)__builtin_ctz(active);
		uint32_t cmask = 0;
		for (unsigned q = first; q < u->nports; q++)
			if ((active >> q) & 1 && (!cls || cls[q] == cls[first]))
				cmask |= 1u << q;
		active &= ~cmask;
		/* compress the class's active ports to bits 0..k-1 */
		unsigned idx[UARCH_MAX_PORTS], port_of[UARCH_MAX_PORTS], k = 0;
		for (unsigned q = 0; q < UARCH_MAX_PORTS; q++)
			idx[q] = (cmask >> q) & 1 ? (port_of[k] = q, k++) : UARCH_MAX_PORTS;
		if (k > 12)
			k = 12; /* (no table has a class this wide) */
		/* the busiest set S of the class's ports: the most work
		 * confined to it (its ports' fixed work, the jobs whose ports
		 * it holds all of, and the jobs confined to no port of the
		 * class, w0) over |S|.  S holds the union M of the jobs it
		 * takes in whole, and other ports for their fixed work alone:
		 * for each union M of the jobs' masks, the ports outside it
		 * with the most fixed work, while each raises the average (the
		 * next, with less, no longer can).  A block has a few distinct
		 * masks, so their unions are far fewer than the class's 2^k
		 * sets, which a union of single ports with fixed work would
		 * otherwise run through. */
		uint32_t atom[64], awork[64], w0 = 0;
		unsigned natoms = 0;
		for (unsigned j = 0; j < njobs; j++) {
			if (!(jobs[j].mask & cmask))
				continue;
			uint32_t cm = 0;
			for (uint32_t qs = jobs[j].mask; qs; qs &= qs - 1) {
				unsigned q = (unsigned)__builtin_ctz(qs);
				if (q < u->nports && idx[q] < k)
					cm |= 1u << idx[q];
			}
			if (!cm) {
				w0 += jobs[j].work;
				continue;
			}
			unsigned a = 0;
			while (a < natoms && atom[a] != cm)
				a++;
			if (a == natoms)
				atom[natoms] = cm, awork[natoms++] = 0;
			awork[a] += jobs[j].work;
		}
		uint32_t fixed_c[12];
		unsigned order[12]; /* the ports by fixed work, the most first */
		for (unsigned i = 0; i < k; i++) {
			fixed_c[i] = fixed[port_of[i]];
			unsigned o = i;
			for (; o > 0 && fixed_c[order[o - 1]] < fixed_c[i]; o--)
				order[o] = order[o - 1];
			order[o] = i;
		}
		uint64_t seen_set[(1u << 12) / 64] = {1};
		uint16_t stack[1u << 12];
		unsigned nstack = 0;
		stack[nstack++] = 0; /* no job whole */
		while (nstack) {
			uint32_t M = stack[--nstack];
			uint64_t load = w0;
			unsigned size = 0;
			for (uint32_t b = M; b; b &= b - 1, size++)
				load += fixed_c[__builtin_ctz(b)];
			for (unsigned a = 0; a < natoms; a++)
				if (!(atom[a] & ~M))
					load += awork[a];
			if (size && load / size > best)
				best = load / size;
			for (unsigned o = 0; o < k; o++) {
				unsigned i = order[o];
				if ((M >> i) & 1)
					continue;
				if (size && (uint64_t)fixed_c[i] * size <= load)
					break;
				load += fixed_c[i], size++;
				if (load / size > best)
					best = load / size;
			}
			for (unsigned a = 0; a < natoms; a++) {
				uint32_t T = M | atom[a];
				if (!((seen_set[T / 64] >> (T % 64)) & 1)) {
					seen_set[T / 64] |= 1ull << (T % 64);
					stack[nstack++] = (uint16_t)T;
				}
			}
		}
	}
	return best;
}

/* An instruction's slot before the block around it counts (macro-fusion
 * does): its form's cost for description s->d, adjusted for the core.
 * Returns false if the form fell back to its category. */
static bool cost_slot(const struct uarch *u, const struct insn *in, struct slot *s)
{
	const struct form_cost *fc = NULL;
	if (s->d->lea_rip && u->nmeasured) /* the measured cost, where the core differs */
		fc = bsearch("lea rip", u->measured, u->nmeasured, sizeof(*u->measured), cmp_form);
	if (!fc)
		fc = lookup(u, s->d->form);
	if (fc) {
		s->c = *fc;
	} else {
		fallback(u, in, s->d, &s->c);
	}
	if (fc && u->alu_cap && s->c.uops) {
		/* a micro-op occupies one ALU for a cycle, not all of them */
		uint16_t *pr = s->c.press, first = pr[u->alu[0]];
		unsigned sum = 0;
		bool even = first != 0;
		for (unsigned a = 0; a < u->nalu; a++)
			even = even && pr[u->alu[a]] == first, sum += pr[u->alu[a]];
		if (even && sum > 100u * s->c.uops)
			for (unsigned a = 0; a < u->nalu; a++)
				pr[u->alu[a]] = (uint16_t)(100u * s->c.uops / u->nalu);
	}
	/* (the forms measured on the core are its own ports' already) */
	bool measured = fc && u->nmeasured && fc >= u->measured && fc < u->measured + u->nmeasured;
	for (unsigned p = 0; fc && !measured && p < u->nports; p++) {
		unsigned pct = s->d->store && u->store_press_pct[p] ? u->store_press_pct[p] : u->press_pct[p];
		if (pct)
			s->c.press[p] = (uint16_t)((s->c.press[p] * pct + 50) / 100);
	}
	if (fc && s->d->lea3 && u->lea3_lat) {
		/* two a cycle: a cycle's work on half the ALUs each */
		s->c.lat = (uint16_t)u->lea3_lat;
		for (unsigned a = 0; a < u->nalu; a++)
			s->c.press[u->alu[a]] = (uint16_t)(200 / u->nalu);
	} else if (fc && !measured && u->lea_alu && !strncmp(s->d->form, "lea ", 4)) {
		/* an ALU operation, as an add's share of the ALUs */
		memset(s->c.press, 0, sizeof(s->c.press));
		for (unsigned a = 0; a < u->nalu; a++) {
			unsigned pct = u->press_pct[u->alu[a]] ? u->press_pct[u->alu[a]] : 100;
			s->c.press[u->alu[a]] = (uint16_t)((100 / u->nalu * pct + 50) / 100);
		}
	}
	s->vec_result = (s->d->wr >> REGN_VEC) & 0xffffffffull;
	if (fc && s->d->load && !(s->vec_result && u->fp_load_lat) && u->table_load_lat > u->load_lat &&
	    s->c.lat >= u->table_load_lat)
		s->c.lat -= (uint16_t)(u->table_load_lat - u->load_lat);
	if (fc && !measured && u->vec_int_lat && s->vec_result && !s->d->load && s->c.lat == 1 &&
	    (s->d->form[0] == 'p' || (s->d->form[0] == 'v' && s->d->form[1] == 'p')))
		s->c.lat = (uint16_t)u->vec_int_lat;
	if (fc && u->fadd_lat && u->fadd_lat < u->table_fadd_lat && fp_add(s->d->form) &&
	    s->c.lat >= u->table_fadd_lat)
		s->c.lat -= (uint16_t)(u->table_fadd_lat - u->fadd_lat);
	if (fc) {
		/* the issue width counts fused micro-ops: a load's
		 * address and its operation, as a store's address and
		 * data, issue as one; the tables count push and pop
		 * with an ALU micro-op moving rsp, which the stack
		 * engine does at decode instead */
		bool push_pop = s->d->rsp_move && !s->d->imm_add && in->kind != INSN_CALL &&
				in->kind != INSN_CALL_IND && in->kind != INSN_RET;
		if (push_pop && s->c.uops >= 2) {
			s->c.uops--;
			for (unsigned a = 0; a < u->nalu; a++)
				s->c.press[u->alu[a]] = 0;
		} else if (s->d->load && s->c.uops >= 2) {
			s->c.uops--;
		}
	}
	if (s->d->zero_idiom || (s->d->move_reg && u->move_elim) || (s->d->imm_add && u->imm_add_folded)) {
		/* resolved at rename: a micro-op issued, nothing executed */
		s->c.lat = 0;
		memset(s->c.press, 0, sizeof(s->c.press));
		s->c.uops = 1;
	}
	s->fusible = fusible_first(s->d);
	return fc != NULL;
}

/* The slot of in, of the block's code at bytes: its description and what
 * the model makes of it from descs (by in->desc), made there once; else
 * (no table, or no number) described into *scratch.  Returns false if its
 * form fell back to its category. */
static bool slot_of(const struct uarch *u, struct insn_descs *descs, const struct x86_decoder *dx,
		    const uint8_t *bytes, const struct insn *in, struct slot *s, struct insn_detail *scratch)
{
	if (!descs || !in->desc) {
		if (!insn_describe(dx, bytes, in->len, scratch)) {
			memset(scratch, 0, sizeof(*scratch));
			snprintf(scratch->form, sizeof(scratch->form), "(bad)");
		}
		s->d = scratch;
		return cost_slot(u, in, s);
	}
	if (descs->costs_of != u) { /* (a table serves one core at a time) */
		for (size_t c = 0; c < descs->ncosts; c++)
			if (descs->costs[c])
				memset(descs->costs[c], 0, INSN_DESC_CHUNK * sizeof(*descs->costs[c]));
		descs->costs_of = u;
	}
	size_t chunk = in->desc >> INSN_DESC_CHUNK_BITS;
	if (chunk >= descs->ncosts) {
		descs->costs = xrealloc(descs->costs, (chunk + 1) * sizeof(*descs->costs));
		memset(descs->costs + descs->ncosts, 0, (chunk + 1 - descs->ncosts) * sizeof(*descs->costs));
		descs->ncosts = chunk + 1;
	}
	if (!descs->costs[chunk])
		descs->costs[chunk] = xcalloc(INSN_DESC_CHUNK, sizeof(*descs->costs[chunk]));
	struct uarch_slot *k = &descs->costs[chunk][in->desc & (INSN_DESC_CHUNK - 1)];
	s->d = insn_descs_get(descs, in->desc);
	if (!k->filled) {
		k->known = cost_slot(u, in, s);
		k->c = s->c, k->vec_result = s->vec_result, k->fusible = s->fusible;
		k->filled = true;
		return k->known;
	}
	s->c = k->c, s->vec_result = k->vec_result, s->fusible = k->fusible;
	return k->known;
}

#define MAXREG 64

/* When the last of the registers in set is ready (set's bits only: a
 * block is costed many times over, and most instructions name two or
 * three registers of the 64). */
static inline uint32_t latest(const uint32_t *ready, uint64_t set)
{
	uint32_t t = 0;
	for (; set; set &= set - 1)
		if (ready[__builtin_ctzll(set)] > t)
			t = ready[__builtin_ctzll(set)];
	return t;
}
/* passes over the block for its carried chains: enough that a chain
 * closing every second pass (bench/programs/loops.c's int_mix: 7 cycles
 * over two) averages out, which three passes measured did not (4 cycles,
 * for the 3.5 measured) */
#define ITERS 10

uint32_t uarch_block_cost(const struct cpu_model *m, struct insn_descs *descs, const struct x86_decoder *dx,
			  const uint8_t *code, const struct insn *insns, size_t n, unsigned ctx,
			  struct model_stats *st)
{
	const struct uarch *u = m->uarch;
	if (!n)
		return 0;
	struct slot tmp[32], *v = tmp;
	if (n > 32)
		v = xmalloc(n * sizeof(*v));
	/* instructions without a description in a table are described
	 * here, into the block's own */
	bool own = !descs;
	for (size_t i = 0; i < n && !own; i++)
		own = !insns[i].desc;
	struct insn_detail *scratch = own ? xmalloc(n * sizeof(*scratch)) : NULL;
	uint32_t uops = 0;
	bool any_load = false, any_store = false;
	for (size_t i = 0; i < n; i++) {
		struct slot *s = &v[i];
		bool known = slot_of(u, descs, dx, code + insns[i].off, &insns[i], s, scratch ? &scratch[i] : NULL);
		any_load |= s->d->load;
		any_store |= s->d->store;
		if (st) {
			st->insns++;
			if (!known) {
				st->fallback++;
				model_stats_missing(st, s->d->form);
			}
		}
		if (insns[i].kind == INSN_JCC && i > 0 && v[i - 1].fusible && !v[i - 1].d->store) {
			/* one fused micro-op, executed on a branch port: the
			 * compare's ALU work goes, its load (if any) stays */
			struct slot *cmp = &v[i - 1];
			s->c.uops = 0;
			s->c.lat = 0;
			for (unsigned a = 0; a < u->nalu; a++)
				cmp->c.press[u->alu[a]] = 0;
		}
		uops += s->c.uops;
	}
	/* the front end and the ports, in hundredths */
	uint64_t fe = ((uint64_t)uops * 100 + u->width / 2) / u->width;
	/* a block that ends in a taken branch (jmp, call, ret, and a jcc back
	 * to an earlier instruction, taken as a loop's branch mostly is) ends
	 * its fetch group there: on a core that takes one such branch a cycle,
	 * its micro-ops issue in whole cycles, a cycle at least (on one that
	 * takes more, taken_floor at least); calls and returns cost more where
	 * the core takes longer over them (the return stack) */
	const struct insn *lst = &insns[n - 1];
	enum insn_kind last = (enum insn_kind)lst->kind;
	unsigned taken = u->taken_floor ? u->taken_floor : 100;
	uint64_t floor = 0;
	if (last == INSN_JMP || last == INSN_JMP_IND || (last == INSN_JCC && lst->target <= lst->off))
		floor = taken;
	else if ((last == INSN_CALL || last == INSN_CALL_IND || last == INSN_RET) && u->fe_window)
		floor = 0; /* the runtime charges the bubble (model_frontend) */
	else if (last == INSN_CALL || last == INSN_CALL_IND)
		floor = u->call_floor > taken ? u->call_floor : taken;
	else if (last == INSN_RET)
		floor = u->ret_floor > taken && !(ctx & BLOCK_RET_AT_CALLER) ? u->ret_floor : taken;
	if (floor && !u->taken_floor && fe % 100)
		fe += 100 - fe % 100;
	if (fe < floor)
		fe = floor;
	/* in flow, a store the block need not wait for (no load of its own)
	 * waits in the store queue for a store port, which the work of the
	 * blocks around it leaves free: its ports bind only a loop */
	uint64_t port = port_bound(u, v, n, u->flow_stores_queued && (ctx & BLOCK_IN_FLOW));
	/* dependency chains: run the block ITERS times from registers ready
	 * at 0; what it carries from one pass to the next.  Alongside, the
	 * address each memory access uses (addr_of), for forwarding and for
	 * the cache lines loads and stores touch. */
	uint32_t ready[MAXREG] = {0};
	struct regval rv = {{0}, {0}};
	/* memory written in the block: a load of it waits for the store (a
	 * renamed one only for the stored value) */
	struct { struct addr a; uint32_t ready, commit; unsigned size; bool slow; } mem[16];
	uint32_t retired = 0; /* all before the current instruction is done */
	uint32_t first_retired = 0; /* retired after the second pass */
	/* the longest wait of a load for a store's commit in the first pass
	 * (everything ready at its start): what the block waits in flow */
	uint32_t fail_wait = 0;
	unsigned nmem = 0, nst = 0, bank[8] = {0};
	/* the stores' addresses, on a core that commits them by pairs */
	struct addr stores_tmp[128], *stores = NULL;
	if (u->store_pairs)
		stores = ITERS * n > 128 ? xmalloc(ITERS * n * sizeof(*stores)) : stores_tmp;
	/* in flow, the passes after the first count for the addresses alone
	 * (below): the loads' on a core with load banks, the stores' on one
	 * with store pairs */
	bool flow_addrs = (u->load_bank && any_load) || (u->store_pairs && any_store);
	int iters = (ctx & BLOCK_IN_FLOW) && !flow_addrs ? 1 : ITERS;
	/* what each register and each stored place holds is ready when, after
	 * the second pass (the first one's are early: the pass began with
	 * everything ready): a chain the block carries makes it later by the
	 * chain's length every pass (the latest result of a pass does not tell:
	 * a long latency the block does not carry, such as a load from a
	 * register it never writes, can hide a shorter chain it does) */
	uint32_t first_ready[MAXREG], first_mem[16];
	unsigned nmem0 = 0;
	bool stack_moved = false; /* %rsp moved by the stack engine since named */
	for (int it = 0; it < iters; it++) {
		memset(rv.ver, 0, sizeof(rv.ver)); /* the pass's first, second... values again */
		if (it && (ctx & BLOCK_IN_FLOW)) {
			/* in flow, the passes after the first count for the
			 * addresses alone (the banks, the stores' lines): the
			 * chains they carry are not charged, and a load waits
			 * for a store's commit (fail_wait) in the first */
			for (size_t i = 0; i < n; i++) {
				const struct slot *s = &v[i];
				bool bank_load = s->d->load && it == ITERS - 1 && u->load_bank;
				bool kept_store = s->d->store && stores;
				if (bank_load || kept_store) {
					struct addr a = addr_of(s->d, &rv, i);
					if (bank_load && (a.kind == 1 || a.kind == 3))
						bank[(a.disp >> 3) & 7]++;
					if (kept_store && a.kind)
						stores[nst++] = a;
				}
				if ((s->d->wr & 0xffff) || s->d->rsp_move)
					regval_update(&rv, s->d);
			}
			continue;
		}
		for (size_t i = 0; i < n; i++) {
			const struct slot *s = &v[i];
			struct addr a = addr_of(s->d, &rv, i);
			bool stack_op = s->d->rsp_move && !s->d->imm_add; /* push, pop, call, ret */
			if (stack_op) {
				stack_moved = true;
			} else if (((s->d->rd | s->d->addr | s->d->wr) >> 4) & 1 && stack_moved) {
				/* the stack engine's offset is added to %rsp first */
				ready[4] += u->stack_sync;
				stack_moved = false;
			}
			bool rmw = s->d->load && s->d->store && !stack_op;
			bool reg_rmw = rmw && (s->d->rd & ~(1ull << REGN_FLAGS));
			/* a load starts when its address is ready; the data
			 * operands of a load-op only join after the load; a
			 * partial write's merge waits one cycle on the old value */
			uint32_t ta = latest(ready, s->d->addr), td = latest(ready, s->d->rd);
			uint32_t tm = latest(ready, s->d->merge);
			uint32_t done;
			if (s->d->load) {
				unsigned ll = s->vec_result && u->fp_load_lat ? u->fp_load_lat : u->load_lat;
				uint32_t after = s->c.lat > ll ? s->c.lat - ll : 1;
				done = ta + s->c.lat;
				if (td + after > done)
					done = td + after;
				for (unsigned k = 0; k < nmem; k++) {
					if (!addr_regs_same(&mem[k].a, &a))
						continue;
					int64_t lo = a.disp, hi = a.disp + (s->d->mem.size ? s->d->mem.size : 8);
					int64_t slo = mem[k].a.disp, shi = mem[k].a.disp + mem[k].size;
					if (!forwards_from(u, s->d->zext_load, lo, hi, slo, shi))
						continue; /* apart */
					if (lo < slo || hi > shi || !forward_shift(u, s->d->zext_load, lo, slo, shi)) {
						/* partly in the store: not forwarded, the load
						 * waits for the store to be written to the cache */
						if (mem[k].commit + u->fwd_fail > done) {
							if (it == 0 && mem[k].commit + u->fwd_fail - done > fail_wait)
								fail_wait = mem[k].commit + u->fwd_fail - done;
							done = mem[k].commit + u->fwd_fail;
						}
						continue;
					}
					bool slow = mem[k].slow || reg_rmw || stack_op || lo != slo;
					unsigned fl = slow && u->fwd_lat_slow > u->fwd_lat ? u->fwd_lat_slow : u->fwd_lat;
					/* a renamed plain load is the stored value itself;
					 * a renamed read-modify-write costs its operation */
					unsigned af = fl ? after : s->d->plain_move || stack_op ? 0 : rmw ? 1 : after;
					if (mem[k].ready + fl + af > done)
						done = mem[k].ready + fl + af;
				}
				if (it == ITERS - 1 && (a.kind == 1 || a.kind == 3))
					bank[(a.disp >> 3) & 7]++;
			} else {
				done = (ta > td ? ta : td) + s->c.lat;
			}
			if (s->d->merge && tm + 1 > done)
				done = tm + 1;
			uint32_t flags_in = ready[REGN_FLAGS];
			for (uint64_t w = s->d->wr; w; w &= w - 1)
				ready[__builtin_ctzll(w)] = done;
			if (s->d->flags_merge && flags_in + 1 > ready[REGN_FLAGS])
				ready[REGN_FLAGS] = flags_in + 1;
			if (s->d->store && a.kind) {
				/* the stored value is ready when its inputs are
				 * (a plain store) or when the operation is (a
				 * read-modify-write) */
				uint32_t t = s->d->load ? done : (ta > td ? ta : td);
				unsigned k = 0;
				while (k < nmem && !addr_same(&mem[k].a, &a))
					k++;
				if (k == nmem && nmem < 16)
					mem[nmem++].a = a;
				if (k < 16) {
					mem[k].ready = t;
					mem[k].commit = retired > t ? retired : t;
					mem[k].size = s->d->mem.size ? s->d->mem.size : 8;
					mem[k].slow = reg_rmw || stack_op;
				}
				if (stores)
					stores[nst++] = a;
			}
			regval_update(&rv, s->d);
			if (done > retired)
				retired = done;
		}
		if (it == 1) {
			first_retired = retired;
			memcpy(first_ready, ready, sizeof(first_ready));
			for (unsigned k = 0; k < nmem; k++)
				first_mem[k] = mem[k].ready;
			nmem0 = nmem;
		}
	}
	uint32_t grew = 0;
	for (unsigned r = 0; r < MAXREG && !(ctx & BLOCK_IN_FLOW); r++)
		if (ready[r] > first_ready[r] && ready[r] - first_ready[r] > grew)
			grew = ready[r] - first_ready[r];
	for (unsigned k = 0; k < nmem0; k++) /* (places stored in every pass) */
		if (mem[k].ready > first_mem[k] && mem[k].ready - first_mem[k] > grew)
			grew = mem[k].ready - first_mem[k];
	/* a load that waits for a store's commit waits for all before it: a
	 * chain through retirement, whatever reads the load's result */
	if (!(ctx & BLOCK_IN_FLOW) && retired - first_retired > grew)
		grew = retired - first_retired;
	/* the first level cache: loads of one 8-byte bank (address bits 5:3)
	 * are served load_bank a cycle, wherever their lines; stores commit in
	 * order, two a cycle when the second is to the first's line */
	uint64_t lines = 0;
	for (unsigned b = 0; b < 8 && u->load_bank; b++)
		if ((uint64_t)bank[b] * 100 / u->load_bank > lines)
			lines = (uint64_t)bank[b] * 100 / u->load_bank;
	if (u->store_pairs && nst) {
		unsigned commits = 0;
		for (unsigned k = 0; k < nst; k++, commits++)
			if (k + 1 < nst && addr_line_same(&stores[k], &stores[k + 1]))
				k++;
		if ((uint64_t)commits * 100 / ITERS > lines)
			lines = (uint64_t)commits * 100 / ITERS;
	}
	if (stores != stores_tmp)
		free(stores);
	uint64_t carried = (uint64_t)grew * 100 / (ITERS - 2);
	/* in flow, the chain the block carries continues into other blocks'
	 * work, which the core overlaps with it: only a loop repeats it */
	if (ctx & BLOCK_IN_FLOW)
		carried = 0;
	uint64_t cost = fe;
	if (port > cost)
		cost = port;
	if (carried > cost)
		cost = carried;
	if (lines > cost)
		cost = lines;
	/* but a load that waits for a store to reach the cache holds
	 * retirement up until it does, in flow as well */
	if (ctx & BLOCK_IN_FLOW)
		cost += (uint64_t)fail_wait * 100;
	if (v != tmp)
		free(v);
	free(scratch);
	/* hundredths to the model's units */
	uint32_t c = (uint32_t)((cost * UARCH_UNITS + 50) / 100);
	return c ? c : 1;
}
