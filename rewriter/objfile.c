/* SPDX-License-Identifier: MIT */
#include "objfile.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

#include "reloc.h"
#include "util.h"

static void elf_init_once(void)
{
	static bool done;
	if (!done) {
		elf_version(EV_CURRENT);
		done = true;
	}
}

static int bad(const char *name, const char *why)
{
	pi_error("%s: %s", name, why);
	return -1;
}

static int read_symtab(struct object *o, Elf *e, Elf_Scn *scn, GElf_Shdr *sh)
{
	const char *sn = o->secs[o->symtab].name;
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || sh->sh_entsize != sizeof(Elf64_Sym) || d->d_size % sizeof(Elf64_Sym)) {
		pi_error("%s: section %s: corrupt symbol table", o->name, sn);
		return -1;
	}
	if (!sh->sh_link || sh->sh_link >= o->nsecs || o->secs[sh->sh_link].type != SHT_STRTAB) {
		pi_error("%s: section %s: its string table (section %u) is not one", o->name, sn,
			 (unsigned)sh->sh_link);
		return -1;
	}
	size_t n = d->d_size / sizeof(Elf64_Sym);
	o->syms = xcalloc(n, sizeof(*o->syms));
	o->symcap = n;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		if (!gelf_getsym(d, (int)i, &s)) {
			pi_error("%s: section %s: corrupt symbol %zu", o->name, sn, i);
			return -1;
		}
		const char *nm = elf_strptr(e, sh->sh_link, s.st_name);
		if (!nm && s.st_name) {
			pi_error("%s: section %s: symbol %zu's name is outside its string table", o->name, sn, i);
			return -1;
		}
		o->nsyms = i + 1;
		o->syms[i].name = xstrdup(nm ? nm : "");
		o->syms[i].value = s.st_value;
		o->syms[i].size = s.st_size;
		o->syms[i].info = s.st_info;
		o->syms[i].other = s.st_other;
		o->syms[i].shndx = s.st_shndx;
		if (s.st_shndx == SHN_XINDEX) {
			pi_error("%s: section %s: symbol %s: extended section indices are not supported",
				 o->name, sn, o->syms[i].name);
			return -1;
		}
		if (s.st_shndx != SHN_UNDEF && s.st_shndx < SHN_LORESERVE && s.st_shndx >= o->nsecs) {
			pi_error("%s: section %s: symbol %s refers to section %u, of %zu", o->name, sn,
				 o->syms[i].name, (unsigned)s.st_shndx, o->nsecs);
			return -1;
		}
	}
	if (!n) {
		/* even an empty table has its null symbol: give it one */
		o->syms = xrealloc(o->syms, sizeof(*o->syms));
		memset(o->syms, 0, sizeof(*o->syms));
		o->syms[0].name = xstrdup("");
		o->nsyms = o->symcap = 1;
	}
	return 0;
}

static int read_relas(struct object *o, Elf_Scn *scn, struct section *s)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || d->d_size % sizeof(Elf64_Rela) || (s->entsize && s->entsize != sizeof(Elf64_Rela))) {
		pi_error("%s: section %s: corrupt relocation section", o->name, s->name);
		return -1;
	}
	const struct section *tgt = &o->secs[s->info];
	size_t n = d->d_size / sizeof(Elf64_Rela);
	s->relas = xcalloc(n, sizeof(*s->relas));
	s->relcap = n;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		if (!gelf_getrela(d, (int)i, &r)) {
			pi_error("%s: section %s: corrupt relocation %zu", o->name, s->name, i);
			return -1;
		}
		struct rela *x = &s->relas[i];
		x->off = r.r_offset;
		x->type = GELF_R_TYPE(r.r_info);
		x->sym = GELF_R_SYM(r.r_info);
		x->addend = r.r_addend;
		s->nrelas = i + 1;
		if (x->sym >= o->nsyms) {
			pi_error("%s: section %s: relocation at %s+0x%llx refers to symbol %u, of %zu",
				 o->name, s->name, tgt->name, (unsigned long long)x->off, x->sym, o->nsyms);
			return -1;
		}
		/* the whole field inside its section: the rewriter reads and
		 * patches it there */
		if (x->off > tgt->size || (uint64_t)rel_size(x->type) > tgt->size - x->off) {
			pi_error("%s: section %s: relocation at 0x%llx is outside %s (0x%llx bytes)",
				 o->name, s->name, (unsigned long long)x->off, tgt->name,
				 (unsigned long long)tgt->size);
			return -1;
		}
	}
	return 0;
}

/* Can a relocation section apply to a section of this type? Not to one
 * without bytes, nor to the tables the writer rebuilds. */
static bool relocatable_type(uint32_t type)
{
	switch (type) {
	case SHT_NULL: case SHT_NOBITS: case SHT_RELA: case SHT_REL: case SHT_SYMTAB:
	case SHT_STRTAB: case SHT_GROUP: case SHT_SYMTAB_SHNDX: case SHT_DYNSYM:
		return false;
	default:
		return true;
	}
}

/* Every index the object's tables hold, checked against what exists: the
 * rest of the rewriter follows them without looking. */
static int check_links(struct object *o, Elf *e)
{
	size_t nsec = o->nsecs;
	for (size_t i = 1; i < nsec; i++) {
		struct section *s = &o->secs[i];
		if ((s->flags & SHF_LINK_ORDER) && (!s->link || s->link >= nsec)) {
			pi_error("%s: section %s: linked to section %u, of %zu", o->name, s->name,
				 (unsigned)s->link, nsec);
			return -1;
		}
		if ((s->flags & SHF_INFO_LINK) && s->type != SHT_RELA && (!s->info || s->info >= nsec)) {
			pi_error("%s: section %s: refers to section %u, of %zu", o->name, s->name,
				 (unsigned)s->info, nsec);
			return -1;
		}
		if (s->type == SHT_RELA) {
			if (!o->symtab || s->link != (uint32_t)o->symtab) {
				pi_error("%s: section %s: its symbol table (section %u) is not the object's",
					 o->name, s->name, (unsigned)s->link);
				return -1;
			}
			if (!s->info || s->info >= nsec || s->info == i ||
			    !relocatable_type(o->secs[s->info].type)) {
				pi_error("%s: section %s: applies to section %u, which cannot be relocated",
					 o->name, s->name, (unsigned)s->info);
				return -1;
			}
			struct section *t = &o->secs[s->info];
			if (t->rela) {
				pi_error("%s: section %s: a second relocation section for %s", o->name,
					 s->name, t->name);
				return -1;
			}
			if (read_relas(o, elf_getscn(e, i), s))
				return -1;
			t->rela = (int)i;
		}
	}
	for (size_t i = 1; i < nsec; i++) {
		struct section *s = &o->secs[i];
		if (s->type != SHT_GROUP)
			continue;
		if (!o->symtab || s->link != (uint32_t)o->symtab) {
			pi_error("%s: section %s: its symbol table (section %u) is not the object's",
				 o->name, s->name, (unsigned)s->link);
			return -1;
		}
		if (!s->info || s->info >= o->nsyms) {
			pi_error("%s: section %s: its signature, symbol %u, is not in the symbol table (%zu)",
				 o->name, s->name, (unsigned)s->info, o->nsyms);
			return -1;
		}
		if (s->size < 4 || s->size % 4 || !s->data) {
			pi_error("%s: section %s: corrupt group (0x%llx bytes)", o->name, s->name,
				 (unsigned long long)s->size);
			return -1;
		}
		for (uint64_t k = 4; k < s->size; k += 4) {
			uint32_t m = rd32(s->data + k);
			if (!m || m >= nsec || m == i || o->secs[m].type == SHT_GROUP) {
				pi_error("%s: section %s: group member %u is not a section", o->name,
					 s->name, m);
				return -1;
			}
			if (o->secs[m].group) {
				pi_error("%s: section %s: section %s is in two groups", o->name, s->name,
					 o->secs[m].name);
				return -1;
			}
			o->secs[m].group = (int)i;
		}
	}
	for (size_t i = 0; i < o->nsyms; i++)
		if (ELF64_ST_TYPE(o->syms[i].info) == STT_SECTION && o->syms[i].shndx &&
		    o->syms[i].shndx < nsec && !o->secs[o->syms[i].shndx].secsym)
			o->secs[o->syms[i].shndx].secsym = (int)i;
	return 0;
}

bool obj_is_bitcode(const void *image, size_t size)
{
	/* raw bitcode, or bitcode in its wrapper (Darwin's, also made elsewhere) */
	return size >= 4 && (!memcmp(image, "BC\xc0\xde", 4) || !memcmp(image, "\xde\xc0\x17\x0b", 4));
}

int obj_read(struct object *o, const char *name, const void *image, size_t size)
{
	memset(o, 0, sizeof(*o));
	o->name = xstrdup(name);
	elf_init_once();
	if (obj_is_bitcode(image, size))
		return bad(name, "LLVM bitcode (an LTO object of clang -flto) holds no machine code "
				 "(build without -flto)");
	if (size < EI_NIDENT || memcmp(image, ELFMAG, SELFMAG))
		return bad(name, "not an ELF file");
	const uint8_t *id = image;
	if (id[EI_CLASS] != ELFCLASS64 || id[EI_DATA] != ELFDATA2LSB)
		return bad(name, "not a 64-bit little-endian ELF object (not x86-64)");
	if (size < sizeof(Elf64_Ehdr))
		return bad(name, "truncated ELF header");
	/* libelf may write into the image it is given: give it a copy. */
	char *copy = xmalloc(size);
	memcpy(copy, image, size);
	Elf *e = elf_memory(copy, size);
	int rc = -1;
	GElf_Ehdr eh;
	if (!e || !gelf_getehdr(e, &eh)) {
		bad(name, "corrupt ELF header");
		goto out;
	}
	if (eh.e_machine != EM_X86_64) {
		bad(name, "not an x86-64 object");
		goto out;
	}
	if (eh.e_type != ET_REL) {
		bad(name, "not a relocatable object (profinst instruments .o and .a files)");
		goto out;
	}
	if (eh.e_shoff > size || eh.e_shnum * (uint64_t)sizeof(Elf64_Shdr) > size - eh.e_shoff ||
	    (eh.e_shnum && eh.e_shentsize != sizeof(Elf64_Shdr))) {
		bad(name, "truncated or corrupt section header table");
		goto out;
	}
	o->e_machine = eh.e_machine;
	o->e_flags = eh.e_flags;
	o->osabi = eh.e_ident[EI_OSABI];
	size_t nsec, shstrndx;
	if (elf_getshdrnum(e, &nsec) || elf_getshdrstrndx(e, &shstrndx) ||
	    (nsec && shstrndx >= nsec) || (nsec > 1 && !shstrndx)) {
		bad(name, "corrupt section header table");
		goto out;
	}
	if (nsec >= SHN_LORESERVE) {
		bad(name, "too many sections (extended section indices are not supported)");
		goto out;
	}
	/* the section headers themselves inside the file (with extended
	 * numbering, e_shnum is 0 and says nothing) */
	if (nsec * (uint64_t)sizeof(Elf64_Shdr) > size - eh.e_shoff) {
		bad(name, "truncated or corrupt section header table");
		goto out;
	}
	o->secs = xcalloc(nsec + 1, sizeof(*o->secs));
	o->seccap = nsec + 1;
	o->nsecs = nsec ? nsec : 1; /* entry 0 exists even with no sections */
	o->secs[0].name = xstrdup("");
	for (size_t i = 1; i < o->nsecs; i++)
		o->secs[i].name = xstrdup(""); /* until read: obj_free frees them */
	o->shstrndx = (int)shstrndx;
	Elf_Scn *symscn = NULL;
	GElf_Shdr symsh = {0};
	for (size_t i = 1; i < nsec; i++) {
		Elf_Scn *scn = elf_getscn(e, i);
		GElf_Shdr sh;
		if (!scn || !gelf_getshdr(scn, &sh)) {
			pi_error("%s: section %zu: corrupt section header", name, i);
			goto out;
		}
		struct section *s = &o->secs[i];
		const char *nm = elf_strptr(e, shstrndx, sh.sh_name);
		if (!nm) {
			pi_error("%s: section %zu: its name is outside the section name table", name, i);
			goto out;
		}
		free(s->name);
		s->name = xstrdup(nm);
		/* an alignment that is not a power of two, or absurd, would have
		 * libelf pad the output without bound */
		if ((sh.sh_addralign & (sh.sh_addralign - 1)) || sh.sh_addralign > (1u << 16)) {
			pi_error("%s: section %s has a corrupt alignment (%llu)", name, nm,
				 (unsigned long long)sh.sh_addralign);
			goto out;
		}
		s->type = sh.sh_type;
		s->flags = sh.sh_flags;
		s->addralign = sh.sh_addralign;
		s->entsize = sh.sh_entsize;
		s->link = sh.sh_link;
		s->info = sh.sh_info;
		s->size = sh.sh_size;
		if (sh.sh_type != SHT_NOBITS && sh.sh_size) {
			if (sh.sh_offset > size || sh.sh_size > size - sh.sh_offset) {
				pi_error("%s: section %s extends past the end of the file", name, nm);
				goto out;
			}
			Elf_Data *d = elf_rawdata(scn, NULL);
			if (!d || d->d_size != sh.sh_size) {
				pi_error("%s: cannot read section %s", name, nm);
				goto out;
			}
			s->data = xmalloc(sh.sh_size);
			memcpy(s->data, d->d_buf, sh.sh_size);
		}
		if (sh.sh_type == SHT_SYMTAB) {
			if (symscn) {
				pi_error("%s: section %s: a second symbol table", name, nm);
				goto out;
			}
			symscn = scn;
			symsh = sh;
			o->symtab = (int)i;
		}
		if (sh.sh_type == SHT_SYMTAB_SHNDX) {
			pi_error("%s: section %s: extended section indices are not supported", name, nm);
			goto out;
		}
		if (sh.sh_type == SHT_REL) {
			pi_error("%s: section %s: REL relocations are not supported on x86-64", name, nm);
			goto out;
		}
	}
	if (symscn && read_symtab(o, e, symscn, &symsh))
		goto out;
	if (check_links(o, e))
		goto out;
	rc = 0;
out:
	if (e)
		elf_end(e);
	free(copy);
	return rc;
}

static bool is_lto_section(const char *name)
{
	return !strncmp(name, ".gnu.lto_", 9) || !strcmp(name, ".llvm.lto");
}

/* Symbols that mark an object as GCC's LTO IR for the linker. */
static bool is_lto_symbol(const char *name)
{
	return !strcmp(name, "__gnu_lto_slim") || !strcmp(name, "__gnu_lto_v1");
}

bool obj_is_lto(const struct object *o)
{
	bool lto = false, content = false;
	for (size_t i = 1; i < o->nsecs; i++) {
		if (is_lto_section(o->secs[i].name) || !strcmp(o->secs[i].name, ".llvmbc"))
			lto = true;
		/* a fat object holds what the compiler made of its code and data
		 * besides the IR; a slim one holds nothing allocated */
		if ((o->secs[i].flags & SHF_ALLOC) && o->secs[i].size)
			content = true;
	}
	for (size_t i = 0; i < o->nsyms; i++)
		if (!strcmp(o->syms[i].name, "__gnu_lto_slim"))
			return true;
	return lto && !content;
}

int obj_drop_lto(struct object *o)
{
	size_t nsec = o->nsecs;
	bool *drop = xcalloc(nsec + 1, sizeof(bool));
	bool any = false;
	for (size_t i = 1; i < nsec; i++)
		if (is_lto_section(o->secs[i].name))
			drop[i] = any = true;
	for (size_t i = 0; i < o->nsyms; i++)
		if (is_lto_symbol(o->syms[i].name))
			any = true;
	if (!any) {
		free(drop);
		return 0;
	}
	/* their relocations go with them; a group goes when all it held has */
	for (size_t i = 1; i < nsec; i++)
		if (o->secs[i].type == SHT_RELA && drop[o->secs[i].info])
			drop[i] = true;
	for (size_t i = 1; i < nsec; i++) {
		struct section *g = &o->secs[i];
		if (g->type != SHT_GROUP)
			continue;
		bool kept = false;
		for (uint64_t k = 4; k < g->size; k += 4)
			kept |= !drop[rd32(g->data + k)];
		if (!kept)
			drop[i] = true;
	}
	/* symbols: those defined in what goes, and the LTO markers */
	int rc = -1;
	uint32_t *secmap = xcalloc(nsec + 1, sizeof(uint32_t));
	uint32_t *symmap = xcalloc(o->nsyms + 1, sizeof(uint32_t));
	bool *symdrop = xcalloc(o->nsyms + 1, sizeof(bool));
	for (size_t i = 1; i < o->nsyms; i++) {
		const struct symbol *y = &o->syms[i];
		symdrop[i] = is_lto_symbol(y->name) ||
			     (y->shndx && y->shndx < SHN_LORESERVE && drop[y->shndx]);
	}
	for (size_t i = 1; i < nsec; i++) {
		struct section *s = &o->secs[i];
		if (drop[i])
			continue;
		if (s->type == SHT_GROUP && symdrop[s->info]) {
			pi_error("%s: section %s: its signature %s is in an LTO section", o->name, s->name,
				 o->syms[s->info].name);
			goto out;
		}
		if (s->type != SHT_RELA)
			continue;
		for (size_t k = 0; k < s->nrelas; k++)
			if (symdrop[s->relas[k].sym]) {
				pi_error("%s: section %s: the relocation at 0x%llx refers to %s, of the LTO IR",
					 o->name, s->name, (unsigned long long)s->relas[k].off,
					 o->syms[s->relas[k].sym].name);
				goto out;
			}
	}
	for (size_t i = 1; i < nsec; i++)
		if (!drop[i] && (o->secs[i].flags & SHF_LINK_ORDER) && drop[o->secs[i].link]) {
			pi_error("%s: section %s: linked to LTO section %s", o->name, o->secs[i].name,
				 o->secs[o->secs[i].link].name);
			goto out;
		}
	size_t n = 1;
	for (size_t i = 1; i < nsec; i++)
		secmap[i] = drop[i] ? 0 : (uint32_t)n++;
	size_t m = 1;
	for (size_t i = 1; i < o->nsyms; i++)
		symmap[i] = symdrop[i] ? 0 : (uint32_t)m++;
	/* renumber what refers to sections and symbols, then compact */
	for (size_t i = 1; i < nsec; i++) {
		struct section *s = &o->secs[i];
		if (drop[i])
			continue;
		if (s->type == SHT_SYMTAB)
			s->link = secmap[s->link];
		if (s->type == SHT_RELA) {
			s->link = secmap[s->link];
			s->info = secmap[s->info];
			for (size_t k = 0; k < s->nrelas; k++)
				s->relas[k].sym = symmap[s->relas[k].sym];
		}
		if (s->type == SHT_GROUP) {
			s->link = secmap[s->link];
			s->info = symmap[s->info];
			uint64_t w = 4;
			for (uint64_t k = 4; k < s->size; k += 4)
				if (!drop[rd32(s->data + k)])
					wr32(s->data + w, secmap[rd32(s->data + k)]), w += 4;
			s->size = w;
		}
		if ((s->flags & SHF_LINK_ORDER) && s->link < nsec)
			s->link = secmap[s->link];
		if ((s->flags & SHF_INFO_LINK) && s->type != SHT_RELA && s->info < nsec)
			s->info = secmap[s->info];
		s->rela = s->rela && !drop[s->rela] ? (int)secmap[s->rela] : 0;
		s->group = s->group && !drop[s->group] ? (int)secmap[s->group] : 0;
		s->secsym = s->secsym && !symdrop[s->secsym] ? (int)symmap[s->secsym] : 0;
	}
	for (size_t i = 1; i < o->nsyms; i++) {
		struct symbol *y = &o->syms[i];
		if (symdrop[i]) {
			free(y->name);
			continue;
		}
		if (y->shndx && y->shndx < SHN_LORESERVE)
			y->shndx = secmap[y->shndx];
		o->syms[symmap[i]] = *y;
	}
	o->nsyms = o->nsyms ? m : 0;
	for (size_t i = 1; i < nsec; i++) {
		struct section *s = &o->secs[i];
		if (drop[i]) {
			free(s->name), free(s->data), free(s->relas);
			continue;
		}
		o->secs[secmap[i]] = *s;
	}
	o->nsecs = n;
	o->symtab = (int)secmap[o->symtab];
	o->shstrndx = (int)secmap[o->shstrndx];
	rc = 0;
out:
	free(drop);
	free(secmap);
	free(symmap);
	free(symdrop);
	return rc;
}

bool obj_is_instrumented(const struct object *o, const char **what)
{
	for (size_t i = 1; i < o->nsecs; i++)
		if (!strcmp(o->secs[i].name, "profinst_map") || !strcmp(o->secs[i].name, "profinst_objs") ||
		    !strcmp(o->secs[i].name, "profinst_funcs") || !strcmp(o->secs[i].name, ".tbss.profinst")) {
			*what = o->secs[i].name;
			return true;
		}
	for (size_t i = 0; i < o->nsyms; i++)
		if (!strcmp(o->syms[i].name, "__profinst_tls")) { /* stub_abi.h's STUB_TLS_SYMBOL */
			*what = o->syms[i].name;
			return true;
		}
	return false;
}

void obj_free(struct object *o)
{
	for (size_t i = 0; i < o->nsecs; i++) {
		free(o->secs[i].name);
		free(o->secs[i].data);
		free(o->secs[i].relas);
	}
	for (size_t i = 0; i < o->nsyms; i++)
		free(o->syms[i].name);
	free(o->secs);
	free(o->syms);
	free(o->name);
	memset(o, 0, sizeof(*o));
}

int obj_add_section(struct object *o, const char *name, uint32_t type,
		    uint64_t flags, uint64_t align, const void *data, uint64_t size)
{
	struct section *s = VEC_PUSH(o->secs, o->nsecs, o->seccap);
	memset(s, 0, sizeof(*s));
	s->name = xstrdup(name);
	s->type = type;
	s->flags = flags;
	s->addralign = align;
	s->size = size;
	if (type != SHT_NOBITS && size) {
		s->data = xmalloc(size);
		if (data)
			memcpy(s->data, data, size);
		else
			memset(s->data, 0, size);
	}
	return (int)(o->nsecs - 1);
}

int obj_add_symbol(struct object *o, const char *name, uint64_t value,
		   uint64_t size, uint8_t info, uint8_t other, uint32_t shndx)
{
	if (!o->nsyms) {
		/* An object with no symbol table yet: entry 0 is the null symbol. */
		struct symbol *z = VEC_PUSH(o->syms, o->nsyms, o->symcap);
		memset(z, 0, sizeof(*z));
		z->name = xstrdup("");
	}
	struct symbol *s = VEC_PUSH(o->syms, o->nsyms, o->symcap);
	s->name = xstrdup(name);
	s->value = value;
	s->size = size;
	s->info = info;
	s->other = other;
	s->shndx = shndx;
	return (int)(o->nsyms - 1);
}

int obj_section_symbol(struct object *o, int sec)
{
	if (!o->secs[sec].secsym)
		o->secs[sec].secsym = obj_add_symbol(
			o, "", 0, 0, ELF64_ST_INFO(STB_LOCAL, STT_SECTION), 0, (uint32_t)sec);
	return o->secs[sec].secsym;
}

int obj_rela_section(struct object *o, int sec)
{
	if (o->secs[sec].rela)
		return o->secs[sec].rela;
	char *nm = xasprintf(".rela%s", o->secs[sec].name);
	int r = obj_add_section(o, nm, SHT_RELA, SHF_INFO_LINK, 8, NULL, 0);
	free(nm);
	o->secs[r].entsize = sizeof(Elf64_Rela);
	o->secs[r].info = (uint32_t)sec;
	o->secs[r].link = (uint32_t)o->symtab;
	o->secs[sec].rela = r;
	if (o->secs[sec].group) {
		o->secs[r].flags |= SHF_GROUP;
		obj_group_add(o, o->secs[sec].group, r);
	}
	return r;
}

void obj_add_rela(struct object *o, int sec, uint64_t off, uint32_t type,
		  uint32_t sym, int64_t addend)
{
	int ri = obj_rela_section(o, sec); /* may move o->secs: index first */
	struct section *r = &o->secs[ri];
	struct rela *x = VEC_PUSH(r->relas, r->nrelas, r->relcap);
	x->off = off;
	x->type = type;
	x->sym = sym;
	x->addend = addend;
}

void obj_group_add(struct object *o, int grp, int sec)
{
	struct section *g = &o->secs[grp];
	g->data = xrealloc(g->data, g->size + 4);
	wr32(g->data + g->size, (uint32_t)sec);
	g->size += 4;
	o->secs[sec].group = grp;
	o->secs[sec].flags |= SHF_GROUP;
}

/* ----- writing */

static bool sym_is_local(const struct symbol *s)
{
	return ELF64_ST_BIND(s->info) == STB_LOCAL;
}

/* A file that is only ever memory, for libelf to write into: no name
 * anyone could plant something at, nothing to remove. */
static int anonymous_file(void)
{
	int fd = memfd_create("profinst-object", MFD_CLOEXEC);
	if (fd < 0) {
		/* a kernel without memfd: an unnamed file in the temporary
		 * directory */
		const char *dir = getenv("TMPDIR");
		fd = open(dir && *dir ? dir : "/tmp", O_TMPFILE | O_RDWR | O_CLOEXEC, 0600);
	}
	return fd;
}

static int read_back(int fd, struct buf *out)
{
	off_t end = lseek(fd, 0, SEEK_END);
	if (end < 0)
		return -1;
	out->len = 0;
	buf_zero(out, (size_t)end);
	for (size_t got = 0; got < (size_t)end;) {
		ssize_t n = pread(fd, out->p + got, (size_t)end - got, (off_t)got);
		if (n < 0 && errno == EINTR)
			continue;
		if (n <= 0)
			return -1;
		got += (size_t)n;
	}
	return 0;
}

int obj_write_image(struct object *o, struct buf *out)
{
	const char *path = o->name;
	elf_init_once();
	if (!o->symtab) {
		/* Stubs need symbols: give the object a symbol table. */
		int st = obj_add_section(o, ".strtab", SHT_STRTAB, 0, 1, NULL, 0);
		o->symtab = obj_add_section(o, ".symtab", SHT_SYMTAB, 0, 8, NULL, 0);
		o->secs[o->symtab].link = (uint32_t)st;
		o->secs[o->symtab].entsize = sizeof(Elf64_Sym);
		for (size_t i = 1; i < o->nsecs; i++)
			if (o->secs[i].type == SHT_RELA)
				o->secs[i].link = (uint32_t)o->symtab;
	}
	if (!o->nsyms) {
		struct symbol *z = VEC_PUSH(o->syms, o->nsyms, o->symcap);
		memset(z, 0, sizeof(*z));
		z->name = xstrdup("");
	}
	if ((int)o->secs[o->symtab].link == o->shstrndx) {
		/* LLVM shares one table for section and symbol names: split it. */
		free(o->secs[o->shstrndx].name);
		o->secs[o->shstrndx].name = xstrdup(".shstrtab");
		int st = obj_add_section(o, ".strtab", SHT_STRTAB, 0, 1, NULL, 0);
		o->secs[o->symtab].link = (uint32_t)st;
	}
	/* Order symbols: null, locals, globals; remember the permutation. */
	uint32_t *perm = xcalloc(o->nsyms, sizeof(*perm));
	uint32_t *order = xcalloc(o->nsyms, sizeof(*order));
	size_t n = 0;
	order[n++] = 0;
	for (size_t i = 1; i < o->nsyms; i++)
		if (sym_is_local(&o->syms[i]))
			perm[i] = (uint32_t)n, order[n++] = (uint32_t)i;
	size_t first_global = n;
	for (size_t i = 1; i < o->nsyms; i++)
		if (!sym_is_local(&o->syms[i]))
			perm[i] = (uint32_t)n, order[n++] = (uint32_t)i;

	struct strtab str, shstr;
	strtab_init(&str);
	strtab_init(&shstr);
	struct buf symb = {0};
	for (size_t k = 0; k < n; k++) {
		const struct symbol *s = &o->syms[order[k]];
		Elf64_Sym es = {
			.st_name = strtab_add(&str, s->name),
			.st_info = s->info,
			.st_other = s->other,
			.st_shndx = (uint16_t)s->shndx,
			.st_value = s->value,
			.st_size = s->size,
		};
		buf_put(&symb, &es, sizeof(es));
	}
	int strsec = (int)o->secs[o->symtab].link;

	int fd = anonymous_file();
	if (fd < 0) {
		pi_error("%s: cannot create a file in memory: %s", path, strerror(errno));
		free(perm), free(order), strtab_free(&str), strtab_free(&shstr), buf_free(&symb);
		return -1;
	}
	Elf *e = elf_begin(fd, ELF_C_WRITE, NULL);
	int rc = -1;
	struct buf *bufs = xcalloc(o->nsecs, sizeof(*bufs));
	GElf_Ehdr eh;
	if (!e || !gelf_newehdr(e, ELFCLASS64))
		goto fail;
	gelf_getehdr(e, &eh);
	eh.e_ident[EI_DATA] = ELFDATA2LSB;
	eh.e_ident[EI_OSABI] = o->osabi;
	eh.e_type = ET_REL;
	eh.e_machine = EM_X86_64;
	eh.e_version = EV_CURRENT;
	eh.e_flags = o->e_flags;
	/* Section names: collect first, the table is the last section. */
	uint32_t *names = xcalloc(o->nsecs + 1, sizeof(*names));
	for (size_t i = 1; i < o->nsecs; i++)
		names[i] = strtab_add(&shstr, o->secs[i].name);
	uint32_t shstrname = strtab_add(&shstr, ".shstrtab");
	for (size_t i = 1; i < o->nsecs; i++) {
		struct section *s = &o->secs[i];
		Elf_Scn *scn = elf_newscn(e);
		if (!scn || elf_ndxscn(scn) != i)
			goto fail_names;
		GElf_Shdr sh;
		gelf_getshdr(scn, &sh);
		sh.sh_name = names[i];
		sh.sh_type = s->type;
		sh.sh_flags = s->flags;
		sh.sh_addralign = s->addralign;
		sh.sh_entsize = s->entsize;
		sh.sh_link = s->link;
		sh.sh_info = s->info;
		const void *data = s->data;
		uint64_t size = s->size;
		struct buf *b = &bufs[i];
		if (s->type == SHT_SYMTAB) {
			data = symb.p, size = symb.len;
			sh.sh_info = (uint32_t)first_global;
			sh.sh_entsize = sizeof(Elf64_Sym);
		} else if ((int)i == o->shstrndx) {
			data = shstr.b.p, size = shstr.b.len;
		} else if ((int)i == strsec) {
			data = str.b.p, size = str.b.len;
		} else if (s->type == SHT_RELA) {
			for (size_t k = 0; k < s->nrelas; k++) {
				Elf64_Rela r = {
					.r_offset = s->relas[k].off,
					.r_info = ELF64_R_INFO(perm[s->relas[k].sym], s->relas[k].type),
					.r_addend = s->relas[k].addend,
				};
				buf_put(b, &r, sizeof(r));
			}
			data = b->p, size = b->len;
			sh.sh_entsize = sizeof(Elf64_Rela);
		} else if (s->type == SHT_GROUP) {
			sh.sh_info = perm[s->info];
		}
		sh.sh_size = size;
		if (!gelf_update_shdr(scn, &sh))
			goto fail_names;
		if (s->type != SHT_NOBITS) {
			Elf_Data *d = elf_newdata(scn);
			if (!d)
				goto fail_names;
			d->d_buf = (void *)data;
			d->d_size = size;
			d->d_type = ELF_T_BYTE;
			d->d_align = s->addralign ? s->addralign : 1;
		} else {
			Elf_Data *d = elf_newdata(scn);
			d->d_buf = NULL;
			d->d_size = size;
			d->d_type = ELF_T_BYTE;
			d->d_align = s->addralign ? s->addralign : 1;
		}
	}
	if (!o->shstrndx) {
		Elf_Scn *shs = elf_newscn(e);
		GElf_Shdr sh;
		gelf_getshdr(shs, &sh);
		sh.sh_name = shstrname;
		sh.sh_type = SHT_STRTAB;
		sh.sh_addralign = 1;
		sh.sh_size = shstr.b.len;
		gelf_update_shdr(shs, &sh);
		Elf_Data *d = elf_newdata(shs);
		d->d_buf = shstr.b.p;
		d->d_size = shstr.b.len;
		d->d_type = ELF_T_BYTE;
		d->d_align = 1;
		eh.e_shstrndx = (uint16_t)elf_ndxscn(shs);
	} else {
		eh.e_shstrndx = (uint16_t)o->shstrndx;
	}
	if (!gelf_update_ehdr(e, &eh))
		goto fail_names;
	if (elf_update(e, ELF_C_WRITE) < 0)
		goto fail_names;
	rc = 0;
	if (read_back(fd, out)) {
		pi_error("%s: cannot read the rewritten object back: %s", path, strerror(errno));
		rc = 1;
	}
fail_names:
	free(names);
fail:
	if (rc < 0)
		pi_error("%s: cannot write ELF: %s", path, elf_errmsg(-1));
	if (e)
		elf_end(e);
	close(fd);
	rc = rc ? -1 : 0;
	for (size_t i = 0; i < o->nsecs; i++)
		buf_free(&bufs[i]);
	free(bufs);
	free(perm);
	free(order);
	strtab_free(&str);
	strtab_free(&shstr);
	buf_free(&symb);
	return rc;
}

int obj_shared_functions(const char *path, void (*each)(const char *name, void *arg), void *arg)
{
	elf_init_once();
	int fd = open(path, O_RDONLY | O_NONBLOCK | O_NOCTTY | O_CLOEXEC);
	if (fd < 0) {
		pi_error("%s: %s", path, strerror(errno));
		return -1;
	}
	Elf *e = elf_begin(fd, ELF_C_READ, NULL);
	GElf_Ehdr eh;
	size_t shstrndx;
	int rc = 0;
	if (!e || elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh) || eh.e_type != ET_DYN ||
	    elf_getshdrstrndx(e, &shstrndx))
		goto out;
	Elf_Scn *dynsym = NULL, *scn = NULL;
	bool ours = false;
	GElf_Shdr sh, dsh = {0};
	while ((scn = elf_nextscn(e, scn))) {
		if (!gelf_getshdr(scn, &sh))
			continue;
		const char *name = elf_strptr(e, shstrndx, sh.sh_name);
		if (name && !strcmp(name, "profinst_map"))
			ours = true;
		if (sh.sh_type == SHT_DYNSYM) {
			dynsym = scn;
			dsh = sh;
		}
	}
	if (!ours || !dynsym)
		goto out;
	Elf_Data *d = elf_getdata(dynsym, NULL);
	size_t n = d && dsh.sh_entsize ? d->d_size / dsh.sh_entsize : 0;
	for (size_t i = 1; i < n; i++) {
		GElf_Sym sym;
		if (!gelf_getsym(d, (int)i, &sym) || sym.st_shndx == SHN_UNDEF ||
		    GELF_ST_TYPE(sym.st_info) != STT_FUNC)
			continue;
		const char *name = elf_strptr(e, dsh.sh_link, sym.st_name);
		if (name && *name)
			each(name, arg);
	}
	rc = 1;
out:
	if (e)
		elf_end(e);
	close(fd);
	return rc;
}
