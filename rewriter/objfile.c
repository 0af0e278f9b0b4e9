/* SPDX-License-Identifier: MIT */
#include "objfile.h"

#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

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
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || sh->sh_entsize != sizeof(Elf64_Sym) || d->d_size % sizeof(Elf64_Sym))
		return bad(o->name, "corrupt symbol table");
	size_t n = d->d_size / sizeof(Elf64_Sym);
	o->syms = xcalloc(n, sizeof(*o->syms));
	o->symcap = n;
	o->nsyms = n;
	for (size_t i = 0; i < n; i++) {
		GElf_Sym s;
		if (!gelf_getsym(d, (int)i, &s))
			return bad(o->name, "corrupt symbol table");
		const char *nm = elf_strptr(e, sh->sh_link, s.st_name);
		if (!nm && s.st_name)
			return bad(o->name, "corrupt symbol string table");
		o->syms[i].name = xstrdup(nm ? nm : "");
		o->syms[i].value = s.st_value;
		o->syms[i].size = s.st_size;
		o->syms[i].info = s.st_info;
		o->syms[i].other = s.st_other;
		o->syms[i].shndx = s.st_shndx;
		if (s.st_shndx == SHN_XINDEX)
			return bad(o->name, "extended section indices are not supported");
		if (s.st_shndx != SHN_UNDEF && s.st_shndx < SHN_LORESERVE &&
		    s.st_shndx >= o->nsecs)
			return bad(o->name, "symbol refers to a missing section");
	}
	return 0;
}

static int read_relas(struct object *o, Elf_Scn *scn, struct section *s)
{
	Elf_Data *d = elf_getdata(scn, NULL);
	if (!d || d->d_size % sizeof(Elf64_Rela))
		return bad(o->name, "corrupt relocation section");
	size_t n = d->d_size / sizeof(Elf64_Rela);
	s->relas = xcalloc(n, sizeof(*s->relas));
	s->nrelas = s->relcap = n;
	for (size_t i = 0; i < n; i++) {
		GElf_Rela r;
		if (!gelf_getrela(d, (int)i, &r))
			return bad(o->name, "corrupt relocation section");
		s->relas[i].off = r.r_offset;
		s->relas[i].type = GELF_R_TYPE(r.r_info);
		s->relas[i].sym = GELF_R_SYM(r.r_info);
		s->relas[i].addend = r.r_addend;
		if (s->relas[i].sym >= o->nsyms)
			return bad(o->name, "relocation refers to a missing symbol");
	}
	return 0;
}

int obj_read(struct object *o, const char *name, const void *image, size_t size)
{
	memset(o, 0, sizeof(*o));
	o->name = xstrdup(name);
	elf_init_once();
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
	if (eh.e_shoff > size || eh.e_shnum * (uint64_t)sizeof(Elf64_Shdr) > size - eh.e_shoff) {
		bad(name, "truncated or corrupt section header table");
		goto out;
	}
	o->e_machine = eh.e_machine;
	o->e_flags = eh.e_flags;
	o->osabi = eh.e_ident[EI_OSABI];
	size_t nsec, shstrndx;
	if (elf_getshdrnum(e, &nsec) || elf_getshdrstrndx(e, &shstrndx) ||
	    (nsec && shstrndx >= nsec)) {
		bad(name, "corrupt section header table");
		goto out;
	}
	if (nsec >= SHN_LORESERVE) {
		bad(name, "too many sections (extended section indices are not supported)");
		goto out;
	}
	o->secs = xcalloc(nsec + 1, sizeof(*o->secs));
	o->seccap = nsec + 1;
	o->nsecs = nsec ? nsec : 1; /* entry 0 exists even with no sections */
	o->secs[0].name = xstrdup("");
	o->shstrndx = (int)shstrndx;
	Elf_Scn *symscn = NULL;
	GElf_Shdr symsh = {0};
	for (size_t i = 1; i < nsec; i++) {
		Elf_Scn *scn = elf_getscn(e, i);
		GElf_Shdr sh;
		if (!scn || !gelf_getshdr(scn, &sh)) {
			bad(name, "corrupt section header");
			goto out;
		}
		struct section *s = &o->secs[i];
		const char *nm = elf_strptr(e, shstrndx, sh.sh_name);
		if (!nm) {
			bad(name, "corrupt section name table");
			goto out;
		}
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
			symscn = scn;
			symsh = sh;
			o->symtab = (int)i;
		}
		if (sh.sh_type == SHT_SYMTAB_SHNDX) {
			bad(name, "extended section indices are not supported");
			goto out;
		}
		if (sh.sh_type == SHT_REL) {
			bad(name, "REL relocations are not supported on x86-64");
			goto out;
		}
	}
	if (symscn && read_symtab(o, e, symscn, &symsh))
		goto out;
	for (size_t i = 1; i < nsec; i++) {
		struct section *s = &o->secs[i];
		if (s->type == SHT_RELA) {
			if (s->link != (uint32_t)o->symtab || !s->info || s->info >= nsec) {
				pi_error("%s: relocation section %s is corrupt", name, s->name);
				goto out;
			}
			if (read_relas(o, elf_getscn(e, i), s))
				goto out;
			for (size_t k = 0; k < s->nrelas; k++)
				if (s->relas[k].off >= o->secs[s->info].size) {
					pi_error("%s: relocation in %s points outside %s", name,
						 s->name, o->secs[s->info].name);
					goto out;
				}
			o->secs[s->info].rela = (int)i;
		}
		if (s->type == SHT_GROUP) {
			if (s->size % 4 || !s->data) {
				pi_error("%s: group section %s is corrupt", name, s->name);
				goto out;
			}
			for (uint64_t k = 4; k < s->size; k += 4) {
				uint32_t m = rd32(s->data + k);
				if (m >= nsec) {
					pi_error("%s: group section %s is corrupt", name, s->name);
					goto out;
				}
				o->secs[m].group = (int)i;
			}
		}
	}
	for (size_t i = 0; i < o->nsyms; i++)
		if (ELF64_ST_TYPE(o->syms[i].info) == STT_SECTION &&
		    o->syms[i].shndx < o->nsecs && !o->secs[o->syms[i].shndx].secsym)
			o->secs[o->syms[i].shndx].secsym = (int)i;
	rc = 0;
out:
	if (e)
		elf_end(e);
	free(copy);
	return rc;
}

bool obj_is_lto(const struct object *o)
{
	bool lto = false, code = false;
	for (size_t i = 1; i < o->nsecs; i++) {
		if (!strncmp(o->secs[i].name, ".gnu.lto_", 9) ||
		    !strcmp(o->secs[i].name, ".llvm.lto") ||
		    !strcmp(o->secs[i].name, ".llvmbc"))
			lto = true;
		if ((o->secs[i].flags & SHF_EXECINSTR) && o->secs[i].size)
			code = true;
	}
	return lto && !code;
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

int obj_write(struct object *o, const char *path)
{
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

	int fd = open(path, O_WRONLY | O_CREAT | O_TRUNC, 0644);
	if (fd < 0) {
		pi_error("%s: cannot create: %s", path, strerror(errno));
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
fail_names:
	free(names);
fail:
	if (rc)
		pi_error("%s: cannot write ELF: %s", path, elf_errmsg(-1));
	if (e)
		elf_end(e);
	if (close(fd) && !rc) {
		pi_error("%s: %s", path, strerror(errno));
		rc = -1;
	}
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
