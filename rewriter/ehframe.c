/* SPDX-License-Identifier: MIT */
#include "ehframe.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "addrmap.h"
#include "lsda.h"

#define DW_EH_PE_omit 0xff
#define DW_EH_PE_uleb128 0x01
#define DW_EH_PE_udata2 0x02
#define DW_EH_PE_udata4 0x03
#define DW_EH_PE_udata8 0x04
#define DW_EH_PE_sleb128 0x09
#define DW_EH_PE_sdata2 0x0a
#define DW_EH_PE_sdata4 0x0b
#define DW_EH_PE_sdata8 0x0c

static int enc_size(uint8_t enc)
{
	switch (enc & 0x0f) {
	case 0x00: return 8; /* absptr */
	case DW_EH_PE_udata2: case DW_EH_PE_sdata2: return 2;
	case DW_EH_PE_udata4: case DW_EH_PE_sdata4: return 4;
	case DW_EH_PE_udata8: case DW_EH_PE_sdata8: return 8;
	default: return -1; /* leb128: not used for pointers here */
	}
}

struct cie {
	uint64_t off, noff;
	uint64_t code_align;
	uint8_t fde_enc, lsda_enc;
	bool aug_z;
	bool std_initial; /* CFA = rsp+8 at entry */
};

/* Advance the new location to nloc from *last. */
static void put_advance(struct buf *b, uint64_t *last, uint64_t nloc, uint64_t code_align)
{
	if (nloc <= *last)
		return;
	uint64_t d = (nloc - *last) / code_align;
	if (d < 0x40) {
		buf_u8(b, (uint8_t)(0x40 | d));
	} else if (d < 0x100) {
		buf_u8(b, 0x02), buf_u8(b, (uint8_t)d);
	} else if (d < 0x10000) {
		buf_u8(b, 0x03), buf_u8(b, (uint8_t)d), buf_u8(b, (uint8_t)(d >> 8));
	} else {
		buf_u8(b, 0x04), buf_u32(b, (uint32_t)d);
	}
	*last = nloc;
}

/* Operand bytes of a CFA instruction (not advance), for copying. */
static bool skip_cfa_operands(struct cursor *c, uint8_t op)
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

struct ehctx {
	struct code *c;
	const struct addrmap *m; /* the new layout (rewriting only) */
	struct section *eh;
	const struct section *rs;
	struct buf out;
	struct rela *relas;
	size_t nrelas, cap;
	struct cie *cies;
	size_t ncies, ciecap;
};

static void move_relocs(struct ehctx *x, uint64_t from, uint64_t to, uint64_t nfrom)
{
	if (!x->rs)
		return;
	for (size_t i = rela_lower_bound(x->rs, from); i < x->rs->nrelas && x->rs->relas[i].off < to; i++) {
		struct rela *r = VEC_PUSH(x->relas, x->nrelas, x->cap);
		*r = x->rs->relas[i];
		r->off = nfrom + (r->off - from);
	}
}

static const struct rela *reloc_at(const struct ehctx *x, uint64_t off)
{
	return reloc_find(x->c->o, (int)(x->eh - x->c->o->secs), off);
}

static bool parse_cie(struct ehctx *x, uint64_t off, const uint8_t *p, const uint8_t *end, struct cie *ci)
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
				int n = enc_size(enc);
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
	(void)x;
	return true;
}

/* The LSDA pointer at the start of the augmentation data (now at naug in
 * the new section): point it at a copy rebuilt for the new layout. */
static bool rewrite_lsda_ptr(struct ehctx *x, size_t first, uint64_t naug, int ti, uint64_t fstart,
			     uint64_t nfstart)
{
	struct code *c = x->c;
	for (size_t i = first; i < x->nrelas; i++) {
		struct rela *r = &x->relas[i];
		if (r->off != naug)
			continue;
		const struct symbol *s = &c->o->syms[r->sym];
		/* pcrel to the field itself (PIC) or absolute: S + A either way */
		if (s->shndx == SHN_UNDEF || s->shndx >= c->o->nsecs || rel_size(r->type) != 4 ||
		    !rel_is_address(r->type))
			return false;
		uint64_t noff;
		if (!lsda_rewrite(c, x->m, (int)s->shndx, s->value + (uint64_t)r->addend, ti, fstart, nfstart, &noff))
			return false;
		r->addend = (int64_t)(noff - s->value); /* wraps like the linker's arithmetic */
		return true;
	}
	return true; /* no LSDA for this FDE */
}

/* Emit one FDE for new code. Returns false if it cannot be understood. */
static bool rewrite_fde(struct ehctx *x, uint64_t off, const uint8_t *body, const uint8_t *end,
			const struct cie *ci)
{
	struct code *c = x->c;
	/* body points after the CIE pointer */
	uint64_t pcb_off = off + 8;
	const struct rela *pr = reloc_at(x, pcb_off);
	int n = enc_size(ci->fde_enc);
	if (n != 4 || !pr)
		return false;
	int tsec;
	uint64_t toff;
	if (!reloc_place(c->o, pr, pr->off, &tsec, &toff))
		return false;
	/* pc_begin is pcrel to the field itself, so S + A names the code */
	toff = c->o->syms[pr->sym].value + (uint64_t)pr->addend;
	if (tsec < 0 || text_index(c, (int)(tsec)) < 0)
		return false;
	int ti = text_index(c, (int)(tsec));
	struct cursor cu = {NULL, body, end, false};
	cur_fixed(&cu, 4); /* pc_begin: from the relocation */
	uint64_t range = cur_fixed(&cu, 4);
	const uint8_t *aug = cu.p;
	uint64_t auglen = 0;
	if (ci->aug_z) {
		auglen = cur_uleb(&cu);
		aug = cu.p;
		if ((uint64_t)(cu.end - cu.p) < auglen)
			return false;
		cu.p += auglen;
	}
	if (cu.bad)
		return false;
	uint64_t nbegin = addrmap_lookup(x->m, ti, toff, MAP_PLACE);
	uint64_t nend = addrmap_lookup(x->m, ti, toff + range, MAP_PLACE);

	struct buf *b = &x->out;
	uint64_t start = b->len;
	buf_u32(b, 0); /* length, patched */
	buf_u32(b, 0); /* CIE pointer, patched by the caller */
	struct rela *r = VEC_PUSH(x->relas, x->nrelas, x->cap);
	*r = *pr;
	r->off = b->len;
	r->addend = (int64_t)(nbegin - c->o->syms[pr->sym].value);
	if (ELF64_ST_TYPE(c->o->syms[pr->sym].info) != STT_SECTION)
		r->addend = (int64_t)(nbegin - addrmap_lookup(x->m, ti, c->o->syms[pr->sym].value, MAP_PLACE));
	buf_u32(b, 0);
	buf_u32(b, (uint32_t)(nend - nbegin));
	if (ci->aug_z) {
		buf_uleb(b, auglen);
		uint64_t aoff = (uint64_t)(aug - x->eh->data);
		size_t first = x->nrelas;
		move_relocs(x, aoff, aoff + auglen, b->len);
		buf_put(b, aug, auglen);
		if (ci->lsda_enc != DW_EH_PE_omit && !rewrite_lsda_ptr(x, first, b->len - auglen, ti, toff, nbegin))
			return false;
	}
	/* The entry stub pushes %r11 around its call: say so, where the CFA
	 * is still the standard one at a function entry. */
	struct text *t = &c->texts[ti];
	const struct text_layout *tl = &x->m->texts[ti];
	uint32_t k = toff < c->o->secs[tsec].size ? t->at[toff] : NO_INSN;
	uint64_t last = nbegin, oloc = toff;
	if (k != NO_INSN && (t->mark[k] & MARK_FSTART) && ci->std_initial && t->fn[k] >= 0 &&
	    c->funcs[t->fn[k]].instrument) {
		uint64_t stub = tl->entry[k] + (t->insns[k].endbr ? t->insns[k].len : 0);
		put_advance(b, &last, stub + 2, ci->code_align);
		buf_u8(b, 0x0e), buf_uleb(b, 16);
		put_advance(b, &last, stub + 16, ci->code_align);
		buf_u8(b, 0x0e), buf_uleb(b, 8);
	}
	/* rows for code the layout inserted that moves %rsp (external tail
	 * calls): they fall strictly between original instructions, so
	 * they go in before the advance past them */
	size_t ri = 0;
	while (ri < tl->ncfa_rows && tl->cfa_rows[ri].pos < nbegin)
		ri++;
#define INSERTED_ROWS(upto)                                                              \
	for (; ri < tl->ncfa_rows && tl->cfa_rows[ri].pos < (upto); ri++) {                  \
		put_advance(b, &last, tl->cfa_rows[ri].pos, ci->code_align);                \
		buf_u8(b, 0x0e), buf_uleb(b, tl->cfa_rows[ri].cfa_off);                      \
	}
	while (cu.p < cu.end) {
		uint8_t op = *cu.p++;
		uint64_t delta = 0;
		bool adv = true;
		if ((op >> 6) == 1)
			delta = op & 0x3f;
		else if (op == 0x02)
			delta = cur_fixed(&cu, 1);
		else if (op == 0x03)
			delta = cur_fixed(&cu, 2);
		else if (op == 0x04)
			delta = cur_fixed(&cu, 4);
		else if (op == 0x01)
			return false; /* set_loc: not emitted by gcc or clang */
		else
			adv = false;
		if (cu.bad)
			return false;
		if (adv) {
			oloc += delta * ci->code_align;
			uint64_t to = addrmap_lookup(x->m, ti, oloc, MAP_PLACE);
			INSERTED_ROWS(to)
			put_advance(b, &last, to, ci->code_align);
			continue;
		}
		const uint8_t *opstart = cu.p - 1;
		if (!skip_cfa_operands(&cu, op))
			return false;
		buf_put(b, opstart, (size_t)(cu.p - opstart));
	}
	INSERTED_ROWS(nend)
#undef INSERTED_ROWS
	while ((b->len - start) % 8)
		buf_u8(b, 0);
	wr32(b->p + start, (uint32_t)(b->len - start - 4));
	return true;
}

int ehframe_rewrite(struct code *c, const struct addrmap *m)
{
	struct object *o = c->o;
	int ehs = 0;
	for (size_t i = 1; i < o->nsecs; i++)
		if (!strcmp(o->secs[i].name, ".eh_frame") && o->secs[i].type != SHT_NOBITS)
			ehs = (int)i;
	if (!ehs || !o->secs[ehs].size)
		return 0;
	struct ehctx x = {.c = c, .m = m, .eh = &o->secs[ehs]};
	if (x.eh->rela)
		x.rs = &o->secs[x.eh->rela];
	const uint8_t *d = x.eh->data;
	uint64_t size = x.eh->size, off = 0;
	int rc = 0;
	while (off + 4 <= size) {
		uint32_t len = rd32(d + off);
		if (len == 0) { /* terminator */
			buf_u32(&x.out, 0);
			off += 4;
			continue;
		}
		if (len == 0xffffffff || off + 4 + len > size || len < 4) {
			pi_error("%s: .eh_frame+0x%llx: unsupported or corrupt entry", o->name,
				 (unsigned long long)off);
			rc = -1;
			break;
		}
		uint64_t eoff = off + 4 + len;
		uint32_t id = rd32(d + off + 4);
		uint64_t noff = x.out.len;
		if (id == 0) {
			struct cie *ci = VEC_PUSH(x.cies, x.ncies, x.ciecap);
			if (!parse_cie(&x, off, d + off + 8, d + eoff, ci)) {
				pi_error("%s: .eh_frame+0x%llx: unsupported CIE", o->name, (unsigned long long)off);
				rc = -1;
				break;
			}
			ci->noff = noff;
			move_relocs(&x, off, eoff, noff);
			buf_put(&x.out, d + off, eoff - off);
			off = eoff;
			continue;
		}
		uint64_t cie_off = off + 4 - id;
		struct cie *ci = NULL;
		for (size_t i = 0; i < x.ncies; i++)
			if (x.cies[i].off == cie_off)
				ci = &x.cies[i];
		if (!ci) {
			pi_error("%s: .eh_frame+0x%llx: FDE without its CIE", o->name, (unsigned long long)off);
			rc = -1;
			break;
		}
		size_t saved = x.nrelas;
		if (!rewrite_fde(&x, off, d + off + 8, d + eoff, ci)) {
			/* not about rewritten code (or not understood): keep it */
			x.out.len = noff;
			x.nrelas = saved;
			move_relocs(&x, off, eoff, noff);
			buf_put(&x.out, d + off, eoff - off);
		}
		wr32(x.out.p + noff + 4, (uint32_t)(noff + 4 - ci->noff));
		off = eoff;
	}
	if (rc == 0) {
		free(x.eh->data);
		x.eh->data = x.out.p;
		x.eh->size = x.out.len;
		x.out.p = NULL;
		if (x.eh->rela) {
			struct section *rs = &o->secs[x.eh->rela];
			free(rs->relas);
			rs->relas = x.relas;
			rs->nrelas = x.nrelas;
			rs->relcap = x.cap;
			x.relas = NULL;
		}
	}
	buf_free(&x.out);
	free(x.relas);
	free(x.cies);
	return rc;
}

/* An FDE of an object's .eh_frame, as the walkers below see it: its CIE
 * (parsed, or NULL), where it lies, and the relocation of its pc_begin. */
struct fde_view {
	struct ehctx *x;
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
		struct ehctx x = {.c = c, .eh = eh, .rs = &o->secs[eh->rela]};
		const uint8_t *d = eh->data;
		for (uint64_t off = 0; off + 8 <= eh->size;) {
			uint32_t len = rd32(d + off);
			if (len == 0 || len == 0xffffffff || off + 4 + len > eh->size)
				break;
			uint64_t eoff = off + 4 + len;
			uint32_t id = rd32(d + off + 4);
			if (id == 0) {
				struct cie *ci = VEC_PUSH(x.cies, x.ncies, x.ciecap);
				if (!parse_cie(&x, off, d + off + 8, d + eoff, ci))
					x.ncies--;
				off = eoff;
				continue;
			}
			struct fde_view v = {&x, NULL, off, eoff, reloc_at(&x, off + 8)};
			for (size_t i = 0; i < x.ncies; i++)
				if (x.cies[i].off == off + 4 - id)
					v.ci = &x.cies[i];
			fn(arg, &v);
			off = eoff;
		}
		free(x.cies);
	}
}

static void mark_landing_pads(void *arg, const struct fde_view *v)
{
	struct code *c = arg;
	struct object *o = c->o;
	const struct cie *ci = v->ci;
	const uint8_t *d = v->x->eh->data;
	if (!ci || !ci->aug_z || ci->lsda_enc == DW_EH_PE_omit || enc_size(ci->fde_enc) != 4 || !v->pr)
		return;
	const struct symbol *ps = &o->syms[v->pr->sym];
	int ti = ps->shndx < SHN_LORESERVE ? text_index(c, (int)ps->shndx) : -1;
	struct cursor cu = {NULL, d + v->off + 16, d + v->eoff, false};
	cur_uleb(&cu);
	const struct rela *lr = reloc_at(v->x, (uint64_t)(cu.p - d));
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
	const uint8_t *d = v->x->eh->data;
	if (!v->ci || enc_size(v->ci->fde_enc) != 4 || !v->pr || v->eoff < v->off + 16)
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
