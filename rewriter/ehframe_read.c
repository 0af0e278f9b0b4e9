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
