/* SPDX-License-Identifier: MIT */
/*
 * The new layout and the unwind tables carried through it, on objects
 * made at test time (the files given: C++ with exceptions, a cold part):
 * each is rewritten in-process as profinst rewrites it (analysis, layout,
 * metadata), written out as ELF and read back, and then
 *   - layout_map takes every function's start to where its entry stub
 *     begins (the piece's new start) and its end to the piece's new end;
 *   - every FDE of the output describes, at the mapped place, the new
 *     extent of the code the input's FDE described, each instruction of
 *     it inside;
 *   - every LSDA's call-site table, rebuilt, has the same entries and
 *     actions, each new range holding the instructions the old one held,
 *     each landing pad where the pad's code, its resync stub first, now
 *     begins.
 * The FDEs and LSDAs are read here from the relocations of .eh_frame
 * (gcc's and clang's encodings: pc-relative sdata4 addresses, uleb128 or
 * udata4 call sites), not by ehframe.c or lsda.c.
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "addrmap.h"
#include "instrument.h"
#include "tap.h"
#include "unit_obj.h"

#define FAIL(...) tap_fail(__VA_ARGS__)

struct fde {
	const char *sec;   /* the code's section, by name */
	uint64_t off, size;
	int64_t lsda;      /* offset in .gcc_except_table, or -1 */
	const char *lsec;  /* that section's name */
};

static const char *sec_name(const struct object *o, uint32_t shndx)
{
	return shndx && shndx < o->nsecs ? o->secs[shndx].name : "";
}

/* o's FDEs, from .eh_frame's relocations in order: an FDE's pc_begin
 * names code (its pc_range follows it), the LSDA pointer of its
 * augmentation names .gcc_except_table; the CIEs' personality pointers
 * name neither. */
static size_t read_fdes(const struct object *o, struct fde **out)
{
	struct fde *v = NULL;
	size_t n = 0, cap = 0;
	for (size_t si = 1; si < o->nsecs; si++) {
		const struct section *eh = &o->secs[si];
		if (strcmp(eh->name, ".eh_frame") || !eh->rela)
			continue;
		const struct section *rs = &o->secs[eh->rela];
		for (size_t i = 0; i < rs->nrelas; i++) {
			const struct rela *r = &rs->relas[i];
			const struct symbol *s = &o->syms[r->sym];
			const char *name = sec_name(o, s->shndx);
			uint64_t at = s->value + (uint64_t)r->addend;
			if (s->shndx < o->nsecs && (o->secs[s->shndx].flags & 0x4 /* SHF_EXECINSTR */)) {
				uint32_t size;
				memcpy(&size, eh->data + r->off + 4, 4);
				grow(&v, &cap, ++n, sizeof *v);
				v[n - 1] = (struct fde){name, at, size, -1, NULL};
			} else if (!strncmp(name, ".gcc_except_table", 17) && n) {
				v[n - 1].lsda = (int64_t)at;
				v[n - 1].lsec = name;
			}
		}
	}
	*out = v;
	return n;
}

static int sec_by_name(const struct object *o, const char *name)
{
	for (size_t i = 1; i < o->nsecs; i++)
		if (!strcmp(o->secs[i].name, name))
			return (int)i;
	return -1;
}

static uint64_t uleb(const uint8_t **p)
{
	uint64_t v = 0;
	for (unsigned sh = 0;; sh += 7) {
		uint8_t b = *(*p)++;
		v |= (uint64_t)(b & 0x7f) << sh;
		if (!(b & 0x80))
			return v;
	}
}

struct call_site {
	uint64_t start, len, lp, action;
};

/* The call-site table of the LSDA at p: its entries in *out, how many. */
static size_t read_lsda(const uint8_t *p, struct call_site **out)
{
	if (*p++ != 0xff) /* lpstart: the function's start, as compilers leave it */
		return 0;
	if (*p++ != 0xff)
		uleb(&p); /* the type table's offset */
	uint8_t enc = *p++;
	uint64_t len = uleb(&p);
	const uint8_t *end = p + len;
	struct call_site *v = NULL;
	size_t n = 0, cap = 0;
	while (p < end) {
		grow(&v, &cap, ++n, sizeof *v);
		uint64_t f[3];
		for (int i = 0; i < 3; i++) {
			if ((enc & 0x0f) == 0x01) {
				f[i] = uleb(&p);
			} else {
				uint32_t w;
				memcpy(&w, p, 4);
				p += 4;
				f[i] = w;
			}
		}
		v[n - 1] = (struct call_site){f[0], f[1], f[2], uleb(&p)};
	}
	*out = v;
	return n;
}

/* The instructions of text t in [from, to) of the original: each one's
 * new place in [nfrom, nto)? */
static void check_insns_inside(const char *what, const struct text *t, const struct text_layout *tl,
			       uint64_t from, uint64_t to, uint64_t nfrom, uint64_t nto)
{
	for (uint64_t off = from; off < to && off < t->size; off++) {
		uint32_t k = t->at[off];
		if (k == NO_INSN)
			continue;
		if (tl->pos[k] < nfrom || tl->pos[k] >= nto)
			FAIL("%s: the instruction at %#llx is now at %#llx, outside [%#llx, %#llx)", what,
			     (unsigned long long)off, (unsigned long long)tl->pos[k], (unsigned long long)nfrom,
			     (unsigned long long)nto);
	}
}

/* The LSDA of old against new's: how many call sites were checked. */
static size_t check_lsda(const char *src, const struct text *t, const struct text_layout *tl, const struct object *out,
		       const struct fde *old, const struct fde *new)
{
	int ls = sec_by_name(out, old->lsec), nls = sec_by_name(out, new->lsec);
	if (ls < 0 || nls < 0) {
		FAIL("%s: %s+%#llx: its LSDA's section is gone", src, old->sec, (unsigned long long)old->off);
		return 0;
	}
	/* the new table is appended; the old one stays where it was */
	struct call_site *a, *b;
	size_t na = read_lsda(out->secs[ls].data + old->lsda, &a);
	size_t nb = read_lsda(out->secs[nls].data + new->lsda, &b);
	if (na != nb)
		FAIL("%s: %s+%#llx: %zu call sites, %zu after the rewrite", src, old->sec,
		     (unsigned long long)old->off, na, nb);
	for (size_t i = 0; i < na && i < nb; i++) {
		char what[160];
		snprintf(what, sizeof what, "%s: %s+%#llx: call site %zu", src, old->sec,
			 (unsigned long long)old->off, i);
		if (a[i].action != b[i].action)
			FAIL("%s: action %llu, then %llu", what, (unsigned long long)a[i].action,
			     (unsigned long long)b[i].action);
		check_insns_inside(what, t, tl, old->off + a[i].start, old->off + a[i].start + a[i].len,
				   new->off + b[i].start, new->off + b[i].start + b[i].len);
		if (!a[i].lp != !b[i].lp) {
			FAIL("%s: landing pad %#llx, then %#llx", what, (unsigned long long)a[i].lp,
			     (unsigned long long)b[i].lp);
		} else if (a[i].lp) {
			uint32_t k = t->at[old->off + a[i].lp];
			if (k == NO_INSN || !(t->mark[k] & MARK_LEADER) || tl->pre[k] != new->off + b[i].lp)
				FAIL("%s: landing pad now at +%#llx, its code begins at %#llx", what,
				     (unsigned long long)b[i].lp,
				     (unsigned long long)(k == NO_INSN ? 0 : tl->pre[k] - new->off));
		}
	}
	free(a);
	free(b);
	return na;
}

/* Each FDE of the input against the output's, and their LSDAs. */
static void check_unwind(const char *src, const struct code *c, const struct addrmap *m, const struct fde *in, size_t nin,
			 const struct object *out)
{
	struct fde *nv;
	size_t nn = read_fdes(out, &nv);
	tap_case("%s: as many FDEs after the rewrite", src);
	if (nn != nin)
		FAIL("%s: %zu FDEs, %zu after the rewrite", src, nin, nn);
	size_t sites = 0;
	for (size_t i = 0; i < nin; i++) {
		const struct fde *f = &in[i];
		tap_case("%s: the FDE of %s+%#llx%s, its code and LSDA where they went", src, f->sec,
			 (unsigned long long)f->off, f->lsda >= 0 ? " (with an LSDA)" : "");
		int ti = text_index(c, sec_by_name(c->o, f->sec));
		if (ti < 0) {
			FAIL("%s: %s: not a text section", src, f->sec);
			continue;
		}
		const struct text *t = &c->texts[ti];
		const struct text_layout *tl = &m->texts[ti];
		uint64_t ns = addrmap_lookup(m, ti, f->off, MAP_PLACE);
		uint64_t ne = addrmap_lookup(m, ti, f->off + f->size, MAP_PLACE);
		/* where it starts a piece of an instrumented function, the
		 * piece's new extent, its entry stub included */
		uint32_t k = t->at[f->off];
		if (k != NO_INSN && t->fn[k] >= 0 && c->funcs[t->fn[k]].instrument) {
			const struct func *fn = &c->funcs[t->fn[k]];
			for (int p = 0; p < fn->npieces; p++) {
				const struct piece *pc = &fn->pieces[p];
				if (pc->ts != ti || pc->start != f->off)
					continue;
				if (pc->end != f->off + f->size)
					FAIL("%s: %s piece %d: [%#llx, %#llx), its FDE [%#llx, %#llx)", src, fn->name,
					     p, (unsigned long long)pc->start, (unsigned long long)pc->end,
					     (unsigned long long)f->off, (unsigned long long)(f->off + f->size));
			}
		}
		const struct fde *g = NULL;
		for (size_t j = 0; j < nn; j++)
			if (!strcmp(nv[j].sec, f->sec) && nv[j].off == ns)
				g = &nv[j];
		if (!g) {
			FAIL("%s: no FDE at %s+%#llx (was +%#llx)", src, f->sec, (unsigned long long)ns,
			     (unsigned long long)f->off);
			continue;
		}
		if (g->size != ne - ns)
			FAIL("%s: FDE at %s+%#llx: size %#llx, want %#llx", src, f->sec, (unsigned long long)ns,
			     (unsigned long long)g->size, (unsigned long long)(ne - ns));
		check_insns_inside(src, t, tl, f->off, f->off + f->size, g->off, g->off + g->size);
		if ((f->lsda < 0) != (g->lsda < 0))
			FAIL("%s: FDE at %s+%#llx: an LSDA %s", src, f->sec, (unsigned long long)ns,
			     f->lsda < 0 ? "added" : "lost");
		else if (f->lsda >= 0)
			sites += check_lsda(src, t, tl, out, f, g);
	}
	if (strstr(src, ".cc")) {
		tap_case("%s: call sites of LSDAs checked", src);
		if (!sites)
			FAIL("%s: no call site of an LSDA to check", src);
	}
	free(nv);
}

static void check_file(const char *src)
{
	struct object o, out = {0};
	struct code c;
	tap_case("%s: compiled, read, analysed and rewritten", src);
	if (unit_object(src, &o)) {
		obj_free(&o);
		FAIL("%s: cannot compile or read it", src);
		return;
	}
	struct fde *in;
	size_t nin = read_fdes(&o, &in);
	/* read_fdes' names point into o, which the rewrite changes */
	for (size_t i = 0; i < nin; i++) {
		in[i].sec = xstrdup(in[i].sec);
		in[i].lsec = in[i].lsec ? xstrdup(in[i].lsec) : NULL;
	}
	if (!nin)
		FAIL("%s: no FDE", src);
	struct rewrite_opts ro = {.model = model_find("instructions")};
	struct buf img = {0};
	if (code_analyse(&c, &o, &ro)) {
		FAIL("%s: the analysis failed", src);
	} else {
		struct addrmap map;
		if (code_rewrite(&c, &map) || obj_write_image(&o, &img) || obj_read(&out, src, img.p, img.len))
			FAIL("%s: the rewrite failed", src);
		else
			check_unwind(src, &c, &map, in, nin, &out);
		addrmap_free(&map);
	}
	code_free(&c);
	for (size_t i = 0; i < nin; i++) {
		free((char *)in[i].sec);
		free((char *)in[i].lsec);
	}
	free(in);
	buf_free(&img);
	obj_free(&out);
	obj_free(&o);
	printf("# %s: %zu FDEs\n", src, nin);
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_layout SOURCE...\n");
		return 2;
	}
	for (int i = 1; i < argc; i++)
		check_file(argv[i]);
	return tap_done();
}
