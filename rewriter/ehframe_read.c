/* SPDX-License-Identifier: MIT */
#include "ehframe_read.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "lsda.h"

int eh_enc_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case 0x00: return 8; /* absptr */
	case DW_EH_PE_udata2: case DW_EH_PE_sdata2: return 2;
	case DW_EH_PE_udata4: case DW_EH_PE_sdata4: return 4;
	case DW_EH_PE_udata8: case DW_EH_PE_sdata8: return 8;
	default: return -1; /* leb128: not used for pointers here */
	}
}

bool eh_parse_cie(uint64_t off, const uint8_t *p, const uint8_t *end, struct cie *ci)
{
	struct cursor c = {NULL, p, end, false};
	memset(ci, 0, sizeof(*ci));
	ci->off = off;
	ci->fde_enc = 0; /* absptr */
	ci->lsda_enc = DW_EH_PE_omit;
	uint8_t ver = (uint8_t)cur_fixed(&c, 1);
	const char *aug = (const char *)c.p;
	while (c.p < c.end && *c.p)
		c.p++;
	if (c.p >= c.end)
		return false;
	c.p++;
	ci->code_align = cur_uleb(&c);
	cur_sleb(&c);
	if (ver == 1)
		cur_fixed(&c, 1);
	else
		cur_uleb(&c);
	if (aug[0] == 'z') {
		ci->aug_z = true;
		uint64_t alen = cur_uleb(&c);
		const uint8_t *aend = c.p + alen;
		for (const char *a = aug + 1; *a && !c.bad; a++) {
			if (*a == 'R') {
				ci->fde_enc = (uint8_t)cur_fixed(&c, 1);
			} else if (*a == 'L') {
				ci->lsda_enc = (uint8_t)cur_fixed(&c, 1);
			} else if (*a == 'P') {
				uint8_t enc = (uint8_t)cur_fixed(&c, 1);
				int n = eh_enc_size(enc);
				if (n < 0)
					return false;
				cur_fixed(&c, n);
			} else if (*a == 'S' || *a == 'B') {
				continue;
			} else {
				return false;
			}
		}
		c.p = aend;
	}
	if (c.bad || !ci->code_align)
		return false;
	/* def_cfa rsp+8; offset rip at cfa-8 */
	static const uint8_t std[] = {0x0c, 0x07, 0x08, 0x90, 0x01};
	ci->std_initial = end - c.p >= (long)sizeof(std) && !memcmp(c.p, std, sizeof(std));
	return true;
}

bool eh_skip_cfa_operands(struct cursor *c, uint8_t op)
{
	switch (op >> 6) {
	case 2: cur_uleb(c); return !c->bad; /* offset */
	case 3: return true;                 /* restore */
	}
	switch (op) {
	case 0x00: case 0x0a: case 0x0b: return true;
	case 0x05: case 0x09: case 0x0c: case 0x14: case 0x2f:
		cur_uleb(c), cur_uleb(c); break;
	case 0x06: case 0x07: case 0x08: case 0x0d: case 0x0e: case 0x2e:
		cur_uleb(c); break;
	case 0x11: case 0x12: case 0x15:
		cur_uleb(c), cur_sleb(c); break;
	case 0x13:
		cur_sleb(c); break;
	case 0x0f: {
		uint64_t n = cur_uleb(c);
		if ((uint64_t)(c->end - c->p) < n)
			return false;
		c->p += n;
		break;
	}
	case 0x10: case 0x16: {
		cur_uleb(c);
		uint64_t n = cur_uleb(c);
		if ((uint64_t)(c->end - c->p) < n)
			return false;
		c->p += n;
		break;
	}
	default:
		return false;
	}
	return !c->bad;
}

bool eh_cfa_advance(struct cursor *c, uint8_t op, uint64_t *delta)
{
	*delta = 0;
	if ((op >> 6) == 1)
		*delta = op & 0x3f;
	else if (op == 0x02)
		*delta = cur_fixed(c, 1);
	else if (op == 0x03)
		*delta = cur_fixed(c, 2);
	else if (op == 0x04)
		*delta = cur_fixed(c, 4);
	else
		return false;
	return true;
}

/* An FDE of an object's .eh_frame, as the walkers below see it: its CIE
 * (parsed, or NULL), where it lies, and the relocation of its pc_begin. */
struct fde_view {
	const struct section *eh; /* the .eh_frame it is in */
	int ehsec;                /* that section's index */
	const struct cie *ci;
	uint64_t off, eoff;    /* its length field, and its end */
	const struct rela *pr; /* at pc_begin, or NULL */
};

/* Call fn for each FDE of every .eh_frame section of c's object, in order,
 * CIEs parsed as they come. */
static void each_fde(struct code *c, void (*fn)(void *arg, const struct fde_view *v), void *arg)
{
	struct object *o = c->o;
	for (size_t si = 1; si < o->nsecs; si++) {
		struct section *eh = &o->secs[si];
		if (strcmp(eh->name, ".eh_frame") || eh->type == SHT_NOBITS || !eh->rela)
			continue;
		struct cie *cies = NULL;
		size_t ncies = 0, ciecap = 0;
		const uint8_t *d = eh->data;
		for (uint64_t off = 0; off + 8 <= eh->size;) {
			uint32_t len = rd32(d + off);
			if (len == 0 || len == 0xffffffff || off + 4 + len > eh->size)
				break;
			uint64_t eoff = off + 4 + len;
			uint32_t id = rd32(d + off + 4);
			if (id == 0) {
				struct cie *ci = VEC_PUSH(cies, ncies, ciecap);
				if (!eh_parse_cie(off, d + off + 8, d + eoff, ci))
					ncies--;
				off = eoff;
				continue;
			}
			struct fde_view v = {eh, (int)si, NULL, off, eoff, reloc_find(o, (int)si, off + 8)};
			for (size_t i = 0; i < ncies; i++)
				if (cies[i].off == off + 4 - id)
					v.ci = &cies[i];
			fn(arg, &v);
			off = eoff;
		}
		free(cies);
	}
}

static void mark_landing_pads(void *arg, const struct fde_view *v)
{
	struct code *c = arg;
	struct object *o = c->o;
	const struct cie *ci = v->ci;
	const uint8_t *d = v->eh->data;
	if (!ci || !ci->aug_z || ci->lsda_enc == DW_EH_PE_omit || eh_enc_size(ci->fde_enc) != 4 || !v->pr)
		return;
	const struct symbol *ps = &o->syms[v->pr->sym];
	int ti = ps->shndx < SHN_LORESERVE ? text_index(c, (int)ps->shndx) : -1;
	struct cursor cu = {NULL, d + v->off + 16, d + v->eoff, false};
	cur_uleb(&cu);
	const struct rela *lr = reloc_find(o, v->ehsec, (uint64_t)(cu.p - d));
	if (ti >= 0 && lr && !cu.bad) {
		const struct symbol *ls = &o->syms[lr->sym];
		if (ls->shndx && ls->shndx < o->nsecs)
			lsda_mark_landing_pads(c, (int)ls->shndx, ls->value + (uint64_t)lr->addend, ti,
					       ps->value + (uint64_t)v->pr->addend);
	}
}

/* Landing pads, found before layout: every FDE of code with an LSDA. */
void ehframe_mark_landing_pads(struct code *c)
{
	each_fde(c, mark_landing_pads, c);
}

struct ranges {
	struct object *o;
	void (*fn)(void *arg, int sec, uint64_t off, uint64_t size);
	void *arg;
};

static void code_range(void *arg, const struct fde_view *v)
{
	struct ranges *r = arg;
	const uint8_t *d = v->eh->data;
	if (!v->ci || eh_enc_size(v->ci->fde_enc) != 4 || !v->pr || v->eoff < v->off + 16)
		return;
	/* pc_begin is pcrel to the field itself: S + A names the code */
	const struct symbol *ps = &r->o->syms[v->pr->sym];
	if (ps->shndx && ps->shndx < r->o->nsecs && rel_is_address(v->pr->type))
		r->fn(r->arg, (int)ps->shndx, ps->value + (uint64_t)v->pr->addend, rd32(d + v->off + 12));
}

void ehframe_code_ranges(struct code *c, void (*fn)(void *arg, int sec, uint64_t off, uint64_t size),
			 void *arg)
{
	struct ranges r = {c->o, fn, arg};
	each_fde(c, code_range, &r);
}

static int32_t cfa_rule(uint64_t reg, uint64_t off, bool known)
{
	if (!known || off == 0 || off >= (1u << 24))
		return 0;
	return reg == 7 ? (int32_t)off : reg == 6 ? -(int32_t)off : 0;
}

static void cfa_assign(struct text *t, uint64_t from, uint64_t to, int32_t rule)
{
	if (to > t->size)
		to = t->size;
	for (uint64_t o = from; o < to; o++) {
		uint32_t k = t->at[o];
		if (k != NO_INSN && t->cslot[k] != UINT32_MAX)
			t->cfa[k] = rule;
	}
}

/* The CFA rule each call site of one FDE's code runs under (t->cfa). */
static void call_cfa(void *arg, const struct fde_view *v)
{
	struct code *c = arg;
	const struct cie *ci = v->ci;
	const uint8_t *d = v->eh->data;
	if (!ci || eh_enc_size(ci->fde_enc) != 4 || !v->pr || v->eoff < v->off + 16 ||
	    !rel_is_address(v->pr->type))
		return;
	const struct symbol *ps = &c->o->syms[v->pr->sym];
	int ti = ps->shndx && ps->shndx < SHN_LORESERVE ? text_index(c, (int)ps->shndx) : -1;
	if (ti < 0 || !c->texts[ti].cfa)
		return;
	struct text *t = &c->texts[ti];
	uint64_t loc = ps->value + (uint64_t)v->pr->addend;
	uint64_t end = loc + rd32(d + v->off + 12);
	struct cursor cu = {NULL, d + v->off + 16, d + v->eoff, false};
	if (ci->aug_z) {
		uint64_t n = cur_uleb(&cu);
		if ((uint64_t)(cu.end - cu.p) < n)
			return;
		cu.p += n;
	}
	/* the rule: CFA = reg + off, while known; remember_state's stack */
	uint64_t reg = 7, off = 8;
	bool known = ci->std_initial;
	enum { DEPTH = 8 };
	struct { uint64_t reg, off; bool known; } saved[DEPTH];
	int nsaved = 0;
	while (cu.p < cu.end && loc < end) {
		uint8_t op = *cu.p++;
		uint64_t delta;
		bool adv = eh_cfa_advance(&cu, op, &delta);
		if (cu.bad)
			return;
		if (adv) {
			uint64_t nloc = loc + delta * ci->code_align;
			cfa_assign(t, loc, nloc, cfa_rule(reg, off, known));
			loc = nloc;
			continue;
		}
		const uint8_t *ops = cu.p;
		switch (op) {
		case 0x0c: /* def_cfa reg, off */
			reg = cur_uleb(&cu), off = cur_uleb(&cu), known = true;
			break;
		case 0x0d: /* def_cfa_register */
			reg = cur_uleb(&cu);
			break;
		case 0x0e: /* def_cfa_offset */
			off = cur_uleb(&cu);
			break;
		case 0x0f: case 0x12: case 0x13: /* expression; factored (_sf) forms */
			known = false;
			cu.p = ops;
			if (!eh_skip_cfa_operands(&cu, op))
				return;
			break;
		case 0x0a: /* remember_state */
			if (nsaved == DEPTH)
				return;
			saved[nsaved].reg = reg, saved[nsaved].off = off, saved[nsaved].known = known;
			nsaved++;
			break;
		case 0x0b: /* restore_state */
			if (!nsaved)
				return;
			nsaved--;
			reg = saved[nsaved].reg, off = saved[nsaved].off, known = saved[nsaved].known;
			break;
		case 0x01: /* set_loc: not emitted by gcc or clang */
			return;
		default:
			if (!eh_skip_cfa_operands(&cu, op))
				return;
		}
		if (cu.bad)
			return;
	}
	cfa_assign(t, loc, end, cfa_rule(reg, off, known));
}

void ehframe_call_cfa(struct code *c)
{
	for (int ti = 0; ti < c->ntexts; ti++)
		if (c->texts[ti].cslot)
			c->texts[ti].cfa = xcalloc(c->texts[ti].ninsns + 1, sizeof(int32_t));
	each_fde(c, call_cfa, c);
}
