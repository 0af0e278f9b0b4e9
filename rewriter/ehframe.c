/* SPDX-License-Identifier: MIT */
#include "ehframe.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "cursor.h"
#include "addrmap.h"
#include "ehframe_read.h"
#include "lsda.h"


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

struct ehctx {
	struct code *c;
	const struct addrmap *m; /* the new layout */
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
	int n = eh_enc_size(ci->fde_enc);
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
	    c->funcs[t->fn[k]].instrument && !c->opts->counting) { /* (the counting stub's: cfa_rows) */
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
		uint64_t delta;
		bool adv = eh_cfa_advance(&cu, op, &delta);
		if (op == 0x01)
			return false; /* set_loc: not emitted by gcc or clang */
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
		if (!eh_skip_cfa_operands(&cu, op))
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
			if (!eh_parse_cie(off, d + off + 8, d + eoff, ci)) {
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
