/* SPDX-License-Identifier: MIT */
#include "reloc.h"

#include <elf.h>
#include <stdlib.h>

int rel_size(uint32_t t)
{
	switch (t) {
	case R_X86_64_64: case R_X86_64_PC64: case R_X86_64_DTPOFF64:
	case R_X86_64_TPOFF64: case R_X86_64_GOTOFF64: case R_X86_64_GOTPC64:
	case R_X86_64_SIZE64: case R_X86_64_GOT64: case R_X86_64_GOTPCREL64:
	case R_X86_64_GOTPLT64: case R_X86_64_PLTOFF64:
		return 8;
	case R_X86_64_16: case R_X86_64_PC16:
		return 2;
	case R_X86_64_8: case R_X86_64_PC8:
		return 1;
	case R_X86_64_TLSDESC_CALL: case R_X86_64_NONE:
		return 0;
	default:
		return 4;
	}
}

bool rel_is_pcrel(uint32_t t)
{
	return t == R_X86_64_PC32 || t == R_X86_64_PLT32 || t == R_X86_64_PC16 ||
	       t == R_X86_64_PC8 || t == R_X86_64_PC64;
}

bool rel_is_address(uint32_t t)
{
	return rel_is_pcrel(t) || t == R_X86_64_64 || t == R_X86_64_32 ||
	       t == R_X86_64_32S || t == R_X86_64_16 || t == R_X86_64_8;
}

static int cmp_rela(const void *a, const void *b)
{
	const struct rela *x = a, *y = b;
	return x->off < y->off ? -1 : x->off > y->off;
}

void reloc_sort(struct object *o)
{
	for (size_t i = 1; i < o->nsecs; i++)
		if (o->secs[i].type == SHT_RELA && o->secs[i].nrelas)
			qsort(o->secs[i].relas, o->secs[i].nrelas, sizeof(struct rela), cmp_rela);
}

bool reloc_place(const struct object *o, const struct rela *r, uint64_t pc, int *tsec, uint64_t *toff)
{
	const struct symbol *s = &o->syms[r->sym];
	if (!rel_is_address(r->type) || s->shndx == SHN_UNDEF || s->shndx >= SHN_LORESERVE)
		return false;
	*tsec = (int)s->shndx;
	uint64_t t = s->value + (uint64_t)r->addend;
	/* addresses wrap, as they do for the linker: unsigned arithmetic */
	if (rel_is_pcrel(r->type))
		t += pc - r->off;
	*toff = t;
	return true;
}
