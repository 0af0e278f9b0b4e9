/* SPDX-License-Identifier: MIT */
#include "cfg.h"

#include "unnamed.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

/* ----- relocations, as the analysis reads them */

uint64_t data_pcrel_base(const struct code *c, int sec, uint64_t field)
{
	uint64_t best = field;
	bool found = false;
	for (size_t i = 0; i < c->nbases; i++)
		if (c->bases[i].sec == sec && c->bases[i].off <= field &&
		    (!found || c->bases[i].off > best))
			best = c->bases[i].off, found = true;
	return best;
}

bool code_rel_target(const struct code *c, int sec, const struct rela *r, uint64_t insn_end,
		     int *tsec, uint64_t *toff)
{
	uint64_t pc = 0;
	if (rel_is_pcrel(r->type))
		pc = is_text(c, sec) ? insn_end : data_pcrel_base(c, sec, r->off);
	return reloc_place(c->o, r, pc, tsec, toff);
}

/* ----- functions and pieces */

static bool is_debug(const char *n)
{
	return !strncmp(n, ".debug", 6) || !strncmp(n, ".zdebug", 7) || !strncmp(n, ".gnu.debuglto", 13);
}

static bool cold_base(const char *name, char *base, size_t n)
{
	const char *p = strstr(name, ".cold");
	if (!p || p == name)
		return false;
	const char *q = p + 5;
	if (*q == '.') {
		q++;
		if (!*q)
			return false;
		while (*q >= '0' && *q <= '9')
			q++;
	}
	if (*q)
		return false;
	size_t len = (size_t)(p - name);
	if (len >= n)
		return false;
	memcpy(base, name, len);
	base[len] = 0;
	return true;
}

struct fsym {
	int sym;
	int sec;
	uint64_t value, size;
};

static int cmp_fsym(const void *a, const void *b)
{
	const struct fsym *x = a, *y = b;
	if (x->sec != y->sec)
		return x->sec - y->sec;
	if (x->value != y->value)
		return x->value < y->value ? -1 : 1;
	return x->sym - y->sym;
}

static bool better_primary(const struct object *o, int a, int b)
{
	/* prefer global names, then names without a '.' suffix */
	bool ga = ELF64_ST_BIND(o->syms[a].info) != STB_LOCAL;
	bool gb = ELF64_ST_BIND(o->syms[b].info) != STB_LOCAL;
	if (ga != gb)
		return ga;
	return strchr(o->syms[b].name, '.') && !strchr(o->syms[a].name, '.');
}

/* A global symbol in code with no type and no size: an entry point of
 * hand-written assembly without .type and .size (a local one is a label
 * inside some function). */
static bool untyped_entry(const struct symbol *s)
{
	return ELF64_ST_TYPE(s->info) == STT_NOTYPE && ELF64_ST_BIND(s->info) != STB_LOCAL && !s->size &&
	       s->name[0] && s->shndx != SHN_UNDEF && s->shndx < SHN_LORESERVE;
}

/* A symbol profinst gave to code that had none (code_find_unnamed). */
static bool unnamed_code(const struct symbol *s)
{
	return ELF64_ST_BIND(s->info) == STB_LOCAL && !strncmp(s->name, UNNAMED_PREFIX, strlen(UNNAMED_PREFIX));
}

void code_find_functions(struct code *c)
{
	struct object *o = c->o;
	struct fsym *fs = NULL;
	size_t nfs = 0, fscap = 0;
	for (size_t i = 1; i < o->nsyms; i++) {
		const struct symbol *s = &o->syms[i];
		int t = ELF64_ST_TYPE(s->info);
		if ((t != STT_FUNC && t != STT_GNU_IFUNC && !untyped_entry(s)) || !is_text(c, (int)s->shndx))
			continue;
		if (s->value >= o->secs[s->shndx].size)
			continue;
		struct fsym *f = VEC_PUSH(fs, nfs, fscap);
		f->sym = (int)i, f->sec = (int)s->shndx, f->value = s->value, f->size = s->size;
	}
	if (nfs)
		qsort(fs, nfs, sizeof(*fs), cmp_fsym);
	c->func_of_sym = xcalloc(o->nsyms + 1, sizeof(*c->func_of_sym));
	for (size_t i = 0; i < o->nsyms; i++)
		c->func_of_sym[i] = -1;
	/* One function per distinct start; aliases share it. */
	for (size_t i = 0; i < nfs;) {
		size_t j = i;
		int prim = fs[i].sym;
		uint64_t size = fs[i].size;
		while (j < nfs && fs[j].sec == fs[i].sec && fs[j].value == fs[i].value) {
			if (better_primary(o, fs[j].sym, prim))
				prim = fs[j].sym;
			if (fs[j].size > size)
				size = fs[j].size;
			j++;
		}
		uint64_t end = o->secs[fs[i].sec].size;
		if (j < nfs && fs[j].sec == fs[i].sec)
			end = fs[j].value;
		if (size && fs[i].value + size < end)
			end = fs[i].value + size;
		struct func *f = VEC_PUSH(c->funcs, c->nfuncs, c->funccap);
		memset(f, 0, sizeof(*f));
		f->name = xstrdup(o->syms[prim].name);
		f->sym = prim;
		f->npieces = 1;
		f->pieces[0].ts = c->text_of_sec[fs[i].sec];
		f->pieces[0].start = fs[i].value;
		f->pieces[0].end = end;
		f->instrument = true;
		f->inferred = untyped_entry(&o->syms[prim]) || (unnamed_code(&o->syms[prim]) && !size);
		f->group = o->secs[fs[i].sec].group;
		for (size_t k = i; k < j; k++)
			c->func_of_sym[fs[k].sym] = (int32_t)(c->nfuncs - 1);
		i = j;
	}
	free(fs);
	/* foo.cold pieces join foo. */
	for (size_t i = 0; i < c->nfuncs; i++) {
		char base[512];
		struct func *f = &c->funcs[i];
		if (!cold_base(f->name, base, sizeof(base)))
			continue;
		for (size_t k = 0; k < c->nfuncs; k++) {
			struct func *g = &c->funcs[k];
			if (k == i || strcmp(g->name, base) || g->npieces >= PI_MAX_PIECES || !g->instrument)
				continue;
			g->pieces[g->npieces++] = f->pieces[0];
			for (size_t s = 0; s < o->nsyms; s++)
				if (c->func_of_sym[s] == (int32_t)i)
					c->func_of_sym[s] = (int32_t)k;
			f->npieces = 0; /* merged: removed below */
			break;
		}
	}
	size_t n = 0;
	int32_t *remap = xcalloc(c->nfuncs, sizeof(*remap));
	for (size_t i = 0; i < c->nfuncs; i++) {
		if (!c->funcs[i].npieces) {
			free(c->funcs[i].name);
			remap[i] = -1;
			continue;
		}
		remap[i] = (int32_t)n;
		c->funcs[n++] = c->funcs[i];
	}
	for (size_t s = 0; s < o->nsyms; s++)
		if (c->func_of_sym[s] >= 0)
			c->func_of_sym[s] = remap[c->func_of_sym[s]];
	/* merged cold pieces had their symbols remapped to the owner before */
	c->nfuncs = n;
	free(remap);
}

/* The extent of a function that has no size (untyped_entry): what its
 * entry reaches (code_reach_extent, cfg.h). */
static int infer_extent(struct code *c, struct func *f, const char **why)
{
	uint64_t last;
	if (code_reach_extent(c, f->pieces[0].ts, f->pieces[0].start, f->pieces[0].end, &last, why, NULL, NULL, NULL))
		return -1;
	f->pieces[0].end = last;
	return 0;
}

static bool in_func(const struct code *c, const struct func *f, int sec, uint64_t off);

int code_reach_extent(struct code *c, int ts, uint64_t start, uint64_t end, uint64_t *lastp, const char **why,
		      const struct func *owner, bool *back, bool *fell)
{
	const struct text *t = &c->texts[ts];
	const struct section *s = &c->o->secs[t->sec];
	uint64_t n = end - start;
	uint8_t *st = xcalloc(n + 1, 1); /* 1: an instruction starts, 2: inside one */
	uint64_t *work = NULL;
	size_t nwork = 0, cap = 0;
	uint64_t last = start;
	int rc = 0;
	*VEC_PUSH(work, nwork, cap) = start;
	while (nwork && !rc) {
		uint64_t off = work[--nwork];
		while (off < end) {
			if (st[off - start] == 1)
				break;
			if (st[off - start] == 2) {
				*why = "a jump into the middle of an instruction";
				rc = -1;
				break;
			}
			struct insn in;
			if (!insn_decode(&c->dx, s->data + off, end - off, off, &in) || in.kind == INSN_BAD) {
				*why = "bytes on its path that do not decode";
				rc = -1;
				break;
			}
			for (uint64_t b = off; b < off + in.len; b++)
				if (st[b - start]) {
					*why = "instructions that overlap";
					rc = -1;
					break;
				}
			if (rc)
				break;
			st[off - start] = 1;
			memset(st + (off - start) + 1, 2, in.len - 1u);
			if (off + in.len > last)
				last = off + in.len;
			if (in.kind == INSN_JMP_IND) {
				*why = "an indirect jump";
				rc = -1;
				break;
			}
			/* a direct branch's target, where its field has no
			 * relocation (one with a relocation leaves the section) */
			const struct rela *rl = NULL;
			if ((in.kind == INSN_JMP || in.kind == INSN_JCC || in.kind == INSN_LOOP) &&
			    !(rl = reloc_find(c->o, t->sec, off + in.rel_off)) && in.target >= start && in.target < end)
				*VEC_PUSH(work, nwork, cap) = in.target;
			else if (owner && (in.kind == INSN_JMP || in.kind == INSN_JCC)) {
				int tsec = t->sec;
				uint64_t toff = in.target;
				if ((!rl || code_rel_target(c, t->sec, rl, off + in.len, &tsec, &toff)) &&
				    in_func(c, owner, tsec, toff))
					*back = true;
			}
			if (in.kind == INSN_JMP || in.kind == INSN_RET || in.kind == INSN_TRAP)
				break;
			off += in.len;
			if (off >= end && fell)
				*fell = true;
		}
	}
	/* between its pieces of code, padding only */
	for (uint64_t off = start; off < last && !rc;) {
		if (st[off - start]) {
			off++;
			continue;
		}
		struct insn in;
		if (!insn_decode(&c->dx, s->data + off, last - off, off, &in) || in.cls != ICLS_NOP) {
			*why = "bytes between its code that no path reaches";
			rc = -1;
			break;
		}
		off += in.len;
	}
	if (!rc)
		*lastp = last;
	free(st);
	free(work);
	return rc;
}

/* ----- decoding */

static void add_vrange(struct text *t, uint64_t start, uint64_t end, bool gap)
{
	struct vrange *v = VEC_PUSH(t->vr, t->nvr, t->vrcap);
	v->start = start, v->end = end, v->gap = gap;
}

struct region {
	uint64_t start, end;
	int32_t fn;
};

static int cmp_region(const void *a, const void *b)
{
	const struct region *x = a, *y = b;
	return x->start < y->start ? -1 : x->start > y->start;
}

static void func_warn(struct code *c, struct func *f, const char *fmt, uint64_t off, const char *why)
{
	if (f->warned)
		return;
	f->warned = true;
	c->nwarn++;
	char *msg = xasprintf(fmt, f->name, (unsigned long long)off, why);
	pi_warn("%s: %s: %s", c->o->name, c->o->secs[c->texts[f->pieces[0].ts].sec].name, msg);
	free(msg);
}

/* Decode [start,end) of a text, numbering each instruction's description
 * in descs (and decoding only what descs does not know); false if it is
 * not all instructions. */
static bool decode_range(struct insn_descs *descs, const struct x86_decoder *dx, const uint8_t *data, uint64_t start,
			 uint64_t end, struct insn **ins, size_t *nins, size_t *cap, uint64_t *badoff)
{
	for (uint64_t off = start; off < end;) {
		struct insn in;
		if (!insn_descs_find(descs, data + off, end - off, off, &in)) {
			struct x86_decoded z;
			if (!insn_decode_kept(dx, data + off, end - off, off, &in, &z) || in.kind == INSN_BAD) {
				*badoff = off;
				return false;
			}
			in.desc = insn_descs_add(descs, data + off, &in, &z);
		}
		*VEC_PUSH(*ins, *nins, *cap) = in;
		off += in.len;
	}
	return true;
}

static void decode_text(struct code *c, int ti, const bool *verbatim)
{
	struct text *t = &c->texts[ti];
	struct section *s = &c->o->secs[t->sec];
	t->size = s->size;
	struct region *rg = NULL;
	size_t nrg = 0, rgcap = 0;
	for (size_t f = 0; f < c->nfuncs; f++)
		for (int p = 0; p < c->funcs[f].npieces; p++)
			if (c->funcs[f].pieces[p].ts == ti) {
				struct region *r = VEC_PUSH(rg, nrg, rgcap);
				r->start = c->funcs[f].pieces[p].start;
				r->end = c->funcs[f].pieces[p].end;
				r->fn = (int32_t)f;
			}
	if (nrg)
		qsort(rg, nrg, sizeof(*rg), cmp_region);
	/* gaps between functions: padding, or code without symbols */
	size_t nfunc_rg = nrg;
	uint64_t cur = 0;
	for (size_t i = 0; i <= nfunc_rg; i++) {
		uint64_t next = i < nfunc_rg ? rg[i].start : s->size;
		if (next > cur) {
			struct region *r = VEC_PUSH(rg, nrg, rgcap);
			r->start = cur, r->end = next, r->fn = -1;
		}
		if (i < nfunc_rg && rg[i].end > cur)
			cur = rg[i].end;
	}
	if (nrg)
		qsort(rg, nrg, sizeof(*rg), cmp_region);

	t->at = xmalloc((s->size + 1) * sizeof(*t->at));
	for (uint64_t k = 0; k <= s->size; k++)
		t->at[k] = NO_INSN;
	struct insn *ins = NULL;
	size_t nins = 0, cap = 0;
	int32_t *fnof = NULL;
	size_t nfn = 0, fncap = 0;
	for (size_t i = 0; i < nrg; i++) {
		size_t before = nins;
		uint64_t bad;
		if (rg[i].fn < 0) {
			/* Not a function: padding, or data that could decode as
			 * anything. Never re-encode it. */
			add_vrange(t, rg[i].start, rg[i].end, true);
			continue;
		}
		if (verbatim[c->funcs[rg[i].fn].sym] || !c->funcs[rg[i].fn].instrument) {
			/* holds data (said when it was found): as it was */
			add_vrange(t, rg[i].start, rg[i].end, false);
			c->funcs[rg[i].fn].instrument = false;
			c->funcs[rg[i].fn].warned = true;
			continue;
		}
		if (!decode_range(c->descs, &c->dx, s->data, rg[i].start, rg[i].end, &ins, &nins, &cap, &bad)) {
			nins = before;
			add_vrange(t, rg[i].start, rg[i].end, false);
			if (rg[i].fn >= 0) {
				struct func *f = &c->funcs[rg[i].fn];
				f->instrument = false;
				func_warn(c, f, "%s+0x%llx: %s; function left uninstrumented",
					  bad - rg[i].start, "cannot decode instruction");
			}
			continue;
		}
		for (size_t k = before; k < nins; k++)
			*VEC_PUSH(fnof, nfn, fncap) = rg[i].fn;
	}
	free(rg);
	t->insns = ins;
	t->ninsns = (uint32_t)nins;
	t->fn = fnof;
	for (uint32_t k = 0; k < t->ninsns; k++)
		t->at[t->insns[k].off] = k;
	t->mark = xcalloc(nins + 1, sizeof(*t->mark));
	t->rel_at = xcalloc(nins + 1, sizeof(bool));
	t->block = xcalloc(nins + 1, sizeof(uint32_t));
}

/* The instruction at offset off of text t, or NO_INSN. */
static uint32_t insn_at(const struct text *t, const struct section *s, uint64_t off)
{
	return off <= s->size ? t->at[off] : NO_INSN;
}

uint32_t text_insn_containing(const struct text *t, uint64_t off)
{
	if (off >= t->size)
		return NO_INSN;
	for (uint64_t b = off, n = 0; n < 16; b--, n++) {
		uint32_t k = t->at[b];
		if (k != NO_INSN)
			return off < t->insns[k].off + t->insns[k].len ? k : NO_INSN;
		if (b == 0)
			break;
	}
	return NO_INSN;
}

static uint32_t insn_at_off(const struct code *c, int sec, uint64_t off)
{
	const struct text *t = &c->texts[text_index(c, sec)];
	return off <= c->o->secs[sec].size ? t->at[off] : NO_INSN;
}

/* Function fn holds data at off of text ts: the first such place found
 * is what its warning names. */
static void data_in(struct code *c, int32_t fn, int ts, uint64_t off, const char *why)
{
	struct func *f = &c->funcs[fn];
	if (!f->instrument || f->data_why)
		return;
	f->data_why = why;
	f->data_ts = ts;
	f->data_off = off;
}

static void mark(struct code *c, int sec, uint64_t off, uint16_t m)
{
	if (!is_text(c, sec))
		return;
	struct text *t = &c->texts[text_index(c, sec)];
	uint32_t i = insn_at(t, &c->o->secs[sec], off);
	if (i != NO_INSN) {
		t->mark[i] |= m;
		return;
	}
	/* a place inside what was decoded as one instruction of a function:
	 * the bytes there are something else (a table after the code) */
	i = text_insn_containing(t, off);
	if (i != NO_INSN && t->fn[i] >= 0)
		data_in(c, t->fn[i], text_index(c, sec), off, "a reference into the middle of an instruction");
}

static bool in_func(const struct code *c, const struct func *f, int sec, uint64_t off)
{
	if (!is_text(c, sec))
		return false;
	int ts = c->text_of_sec[sec];
	for (int p = 0; p < f->npieces; p++)
		if (f->pieces[p].ts == ts && off >= f->pieces[p].start && off < f->pieces[p].end)
			return true;
	return false;
}

/* Relocation on instruction k of text t, if any, covering the branch field. */
static const struct rela *branch_rela(const struct code *c, const struct text *t, uint32_t k)
{
	return reloc_find(c->o, t->sec, t->insns[k].off + t->insns[k].rel_off);
}

bool code_branch_target(const struct code *c, const struct text *t, uint32_t k, int *tsec, uint64_t *toff)
{
	const struct insn *in = &t->insns[k];
	const struct rela *r = branch_rela(c, t, k);
	if (r)
		return code_rel_target(c, t->sec, r, in->off + in->len, tsec, toff);
	*tsec = t->sec;
	*toff = in->target;
	return true;
}

void code_each_data_address(struct code *c, bool pcrel, void (*fn)(void *arg, int tsec, uint64_t toff),
			    void *arg)
{
	struct object *o = c->o;
	for (size_t si = 1; si < o->nsecs; si++) {
		const struct section *rs = &o->secs[si];
		if (rs->type != SHT_RELA || is_text(c, (int)rs->info))
			continue;
		const struct section *tgt = &o->secs[rs->info];
		if (!(tgt->flags & SHF_ALLOC) || is_debug(tgt->name) || !strcmp(tgt->name, ".eh_frame"))
			continue;
		for (size_t i = 0; i < rs->nrelas; i++) {
			int tsec;
			uint64_t toff;
			if ((pcrel || !rel_is_pcrel(rs->relas[i].type)) &&
			    code_rel_target(c, (int)rs->info, &rs->relas[i], 0, &tsec, &toff))
				fn(arg, tsec, toff);
		}
	}
}

static void mark_data_address(void *arg, int tsec, uint64_t toff)
{
	mark(arg, tsec, toff, MARK_LEADER | MARK_ADDR);
}

void code_find_leaders(struct code *c)
{
	struct object *o = c->o;
	for (size_t f = 0; f < c->nfuncs; f++)
		for (int p = 0; p < c->funcs[f].npieces; p++) {
			struct piece *pc = &c->funcs[f].pieces[p];
			int sec = c->texts[pc->ts].sec;
			mark(c, sec, pc->start, MARK_LEADER | MARK_PSTART | (p == 0 ? MARK_FSTART : 0));
		}
	/* relocations: jump table bases first (code taking a data address) */
	for (int ti = 0; ti < c->ntexts; ti++) {
		struct text *t = &c->texts[ti];
		struct section *s = &o->secs[t->sec];
		if (!s->rela)
			continue;
		struct section *rs = &o->secs[s->rela];
		for (size_t r = 0; r < rs->nrelas; r++) {
			uint32_t k = text_insn_containing(t, rs->relas[r].off);
			if (k == NO_INSN)
				continue;
			t->rel_at[k] = true;
			int tsec;
			uint64_t toff;
			const struct insn *in = &t->insns[k];
			if (!code_rel_target(c, t->sec, &rs->relas[r], in->off + in->len, &tsec, &toff))
				continue;
			/* data, in a data section or between functions: a table base */
			if (!is_text(c, tsec) || insn_at_off(c, tsec, toff) == NO_INSN) {
				struct base *b = VEC_PUSH(c->bases, c->nbases, c->basecap);
				b->sec = tsec, b->off = toff;
				if (!is_text(c, tsec))
					continue;
			}
			bool is_branch_field = in->rel_size && rs->relas[r].off == in->off + in->rel_off;
			mark(c, tsec, toff, MARK_LEADER | (is_branch_field ? 0 : MARK_ADDR | MARK_CODEADDR));
		}
	}
	/* data relocations naming code: jump tables, function pointers, labels */
	code_each_data_address(c, true, mark_data_address, c);
	/* branches, and what follows a control transfer */
	for (int ti = 0; ti < c->ntexts; ti++) {
		struct text *t = &c->texts[ti];
		struct section *s = &o->secs[t->sec];
		for (uint32_t k = 0; k < t->ninsns; k++) {
			struct insn *in = &t->insns[k];
			if (in->rip_rel && !t->rel_at[k]) {
				int32_t disp = (int32_t)rd32(s->data + in->off + in->disp_off);
				mark(c, t->sec, in->off + in->len + (int64_t)disp, MARK_LEADER | MARK_ADDR | MARK_CODEADDR);
			}
			switch (in->kind) {
			case INSN_JMP: case INSN_JCC: case INSN_LOOP: case INSN_CALL: {
				int tsec;
				uint64_t toff;
				if (code_branch_target(c, t, k, &tsec, &toff))
					mark(c, tsec, toff, MARK_LEADER);
			}
				/* fallthrough */
			case INSN_RET: case INSN_JMP_IND: case INSN_CALL_IND: case INSN_TRAP:
				if (k + 1 < t->ninsns)
					t->mark[k + 1] |= MARK_LEADER;
				break;
			default:
				break;
			}
		}
	}
	/* functions holding indirect-jump targets dispatch inside themselves */
	for (int ti = 0; ti < c->ntexts; ti++) {
		struct text *t = &c->texts[ti];
		for (uint32_t k = 0; k < t->ninsns; k++)
			if ((t->mark[k] & MARK_ADDR) && !(t->mark[k] & MARK_PSTART) && t->fn[k] >= 0)
				c->funcs[t->fn[k]].has_ind_targets = true;
	}
	/* tail calls */
	for (int ti = 0; ti < c->ntexts; ti++) {
		struct text *t = &c->texts[ti];
		for (uint32_t k = 0; k < t->ninsns; k++) {
			if (t->fn[k] < 0)
				continue;
			struct func *f = &c->funcs[t->fn[k]];
			struct insn *in = &t->insns[k];
			if (in->kind == INSN_JMP || in->kind == INSN_JCC) {
				int tsec;
				uint64_t toff;
				/* a jump to its own entry is a self tail call: it calls
				 * (callgrind counts it so), it does not loop */
				bool known = code_branch_target(c, t, k, &tsec, &toff);
				if (!known || !in_func(c, f, tsec, toff) ||
				    (tsec == c->texts[f->pieces[0].ts].sec && toff == f->pieces[0].start))
					t->mark[k] |= MARK_TAIL;
				if (known && !in_func(c, f, tsec, toff) && is_text(c, tsec)) {
					/* into another function, past its entry: that
					 * block has a way in its function does not see */
					struct text *tt = &c->texts[text_index(c, tsec)];
					uint32_t ti2 = insn_at(tt, &c->o->secs[tsec], toff);
					if (ti2 != NO_INSN && !(tt->mark[ti2] & MARK_FSTART))
						tt->mark[ti2] |= MARK_ENTERED;
				}
			} else if (in->kind == INSN_JMP_IND && !f->has_ind_targets) {
				t->mark[k] |= MARK_TAIL;
			}
		}
	}
}

bool returns_twice(const char *n)
{
	static const char *names[] = {"setjmp", "_setjmp", "__sigsetjmp", "sigsetjmp", "savectx",
				      "vfork", "getcontext", "__builtin_setjmp", NULL};
	for (const char **p = names; *p; p++)
		if (!strcmp(n, *p))
			return true;
	return false;
}

bool ends_image(const char *n)
{
	static const char *names[] = {"_exit", "_Exit", "quick_exit", "execve", "execv", "execvp",
				      "execvpe", "execl", "execle", "execlp", "fexecve", "execveat", NULL};
	for (const char **p = names; *p; p++)
		if (!strcmp(n, *p))
			return true;
	return false;
}

/* Where a setjmp returns the second time, the shadow stack must catch up;
 * before _exit or exec, the profile must be written. */
void code_find_resync_points(struct code *c)
{
	for (int ti = 0; ti < c->ntexts; ti++) {
		struct text *t = &c->texts[ti];
		for (uint32_t k = 0; k < t->ninsns; k++) {
			if (t->insns[k].kind != INSN_CALL && t->insns[k].kind != INSN_JMP)
				continue;
			const struct rela *r = branch_rela(c, t, k);
			if (!r)
				continue;
			const char *name = c->o->syms[r->sym].name;
			if (t->insns[k].kind == INSN_CALL && k + 1 < t->ninsns && returns_twice(name))
				t->mark[k + 1] |= MARK_RESYNC | MARK_LEADER;
			if (ends_image(name))
				t->mark[k] |= MARK_FLUSH;
		}
	}
}

/* In an executable the linker turns the local-dynamic TLS pair
 * `lea x@tlsld(%rip),%rdi; call __tls_get_addr` into one instruction
 * (mov %fs:0,%rax): its call never executes, so it costs nothing. */
void code_find_vanishing_calls(struct code *c)
{
	for (int ti = 0; ti < c->ntexts; ti++) {
		struct text *t = &c->texts[ti];
		const struct section *s = &c->o->secs[t->sec];
		if (!s->rela)
			continue;
		const struct section *rs = &c->o->secs[s->rela];
		for (size_t r = 0; r < rs->nrelas; r++) {
			if (rs->relas[r].type != R_X86_64_TLSLD)
				continue;
			uint32_t k = text_insn_containing(t, rs->relas[r].off);
			if (k != NO_INSN && k + 1 < t->ninsns &&
			    (t->insns[k + 1].kind == INSN_CALL || t->insns[k + 1].kind == INSN_CALL_IND))
				t->mark[k + 1] |= MARK_NOCOST;
		}
	}
}

/* ----- data inside functions */

bool insn_rel_on_field(const struct insn *in, const struct rela *r)
{
	uint64_t at = r->off - in->off;
	int n = rel_size(r->type);
	if (!n)
		return true;
	return (in->disp_len && at == in->disp_at && n <= in->disp_len) ||
	       (in->imm_len && at == in->imm_at && n <= in->imm_len) ||
	       (in->imm2_len && at == in->imm2_at && n <= in->imm2_len);
}

bool insn_is_padding(const struct insn *in)
{
	return in->cls == ICLS_NOP || in->kind == INSN_TRAP;
}

struct reach {
	const struct code *c;
	uint32_t *first;   /* per text: index of its first instruction in seen */
	bool *seen;
	struct reach_item { int ti; uint32_t k; } *work;
	size_t nwork, cap;
};

static void reach_seed(struct reach *r, int ti, uint32_t k)
{
	if (k == NO_INSN || r->seen[r->first[ti] + k])
		return;
	r->seen[r->first[ti] + k] = true;
	*VEC_PUSH(r->work, r->nwork, r->cap) = (struct reach_item){ti, k};
}

/* Follow the seeds through fall-through and direct branches and calls. */
static void reach_run(struct reach *r)
{
	const struct code *c = r->c;
	while (r->nwork) {
		struct reach_item it = r->work[--r->nwork];
		const struct text *t = &c->texts[it.ti];
		const struct insn *in = &t->insns[it.k];
		int tsec;
		uint64_t toff;
		if ((in->kind == INSN_JMP || in->kind == INSN_JCC || in->kind == INSN_LOOP ||
		     in->kind == INSN_CALL) && code_branch_target(c, t, it.k, &tsec, &toff) && is_text(c, tsec)) {
			int tti = text_index(c, tsec);
			reach_seed(r, tti, insn_at(&c->texts[tti], &c->o->secs[tsec], toff));
		}
		bool falls = in->kind != INSN_JMP && in->kind != INSN_JMP_IND && in->kind != INSN_RET &&
			     in->kind != INSN_TRAP;
		if (falls && it.k + 1 < t->ninsns && t->insns[it.k + 1].off == in->off + in->len)
			reach_seed(r, it.ti, it.k + 1);
	}
}

bool code_used_as_base(const struct code *c, const struct text *t, uint32_t k)
{
	uint64_t regs = code_detail(c, &t->insns[k])->wr & 0xffff; /* the general registers it writes */
	for (uint32_t j = k + 1; j < t->ninsns && j < k + 32 && regs; j++) {
		const struct insn *in = &t->insns[j];
		if (in->off != t->insns[j - 1].off + t->insns[j - 1].len)
			break;
		const struct insn_detail *d = code_detail(c, in);
		if ((d->load || d->store) && ((d->mem.base >= 0 && d->mem.base < 16 && (regs >> d->mem.base & 1)) ||
					      (d->mem.index >= 0 && d->mem.index < 16 && (regs >> d->mem.index & 1))))
			return true;
		regs &= ~d->wr;
		if (in->kind != INSN_OTHER)
			break;
	}
	return false;
}

/* Instruction k of t takes the address tsec+toff (a lea, an immediate):
 * the instruction there is one code names (by_code); if k's result is then
 * read through, what lies there is data. */
static void address_taken(struct code *c, const struct reach *r, bool *by_code, const struct text *t, uint32_t k,
			  int tsec, uint64_t toff)
{
	int tti = text_index(c, tsec);
	const struct text *tt = &c->texts[tti];
	uint32_t x = insn_at(tt, &c->o->secs[tsec], toff);
	if (x == NO_INSN)
		return;
	by_code[r->first[tti] + x] = true;
	if (tt->fn[x] >= 0 && code_used_as_base(c, t, k))
		data_in(c, tt->fn[x], tti, toff, "the code reads memory at this address (data)");
}

/* The instructions at addresses data names (code_each_data_address). */
struct by_data {
	const struct code *c;
	const uint32_t *first; /* per text: index of its first instruction in seen */
	bool *seen;
};

static void taken_by_data(void *arg, int tsec, uint64_t toff)
{
	struct by_data *bd = arg;
	const struct code *c = bd->c;
	if (!is_text(c, tsec))
		return;
	int tti = text_index(c, tsec);
	uint32_t x = insn_at(&c->texts[tti], &c->o->secs[tsec], toff);
	if (x != NO_INSN)
		bd->seen[bd->first[tti] + x] = true;
}

/*
 * Bytes inside a function's extent that are data, not code: decoded as
 * instructions they would be rewritten, moved and split by stubs, and
 * the program would read garbage or run into it.  Found where
 *  - a relocation is not on an instruction's field (a .quad table of
 *    addresses);
 *  - code reads or writes memory inside a function (a constant kept in
 *    the code);
 *  - something refers to the middle of an instruction (mark());
 *  - code takes an address there and reads memory through it (a table
 *    of offsets: `lea .Ltab(%rip),%rdx; movslq (%rdx,%rdi,4),%rax`);
 *  - code takes the address of bytes (lea) that no path reaches from a
 *    way in (the entry, a cold piece, a landing pad or setjmp's return,
 *    an address in data such as a jump table), in a function without an
 *    indirect jump that could go there: a string or a table after the
 *    code;
 *  - in a function with an indirect jump, instructions other than
 *    padding that no path reaches, not even from an address its code
 *    takes: what the jump goes to through a table of offsets that no
 *    relocation names, which would not follow the code when it moves.
 * (Unreached code in a function without an indirect jump is dead, and
 * harmless: a compiler leaves `hlt; jmp .-1` after a call that does not
 * return.)  Such functions are copied as they were (code_analyse).
 */
void code_find_data_in_functions(struct code *c)
{
	struct object *o = c->o;
	uint32_t total = 0;
	struct reach r = {.c = c};
	r.first = xcalloc((size_t)c->ntexts + 1, sizeof(uint32_t));
	for (int ti = 0; ti < c->ntexts; ti++)
		r.first[ti] = total, total += c->texts[ti].ninsns;
	r.seen = xcalloc((size_t)total + 1, sizeof(bool));
	bool *by_code = xcalloc((size_t)total + 1, sizeof(bool)); /* address taken by code */
	bool *by_data = xcalloc((size_t)total + 1, sizeof(bool)); /* ... by data */
	bool *ijmp = xcalloc(c->nfuncs + 1, sizeof(bool));        /* has an indirect jump */
	for (int ti = 0; ti < c->ntexts; ti++) {
		struct text *t = &c->texts[ti];
		const struct section *s = &o->secs[t->sec];
		if (s->rela) {
			const struct section *rs = &o->secs[s->rela];
			for (size_t i = 0; i < rs->nrelas; i++) {
				const struct rela *rl = &rs->relas[i];
				uint32_t k = text_insn_containing(t, rl->off);
				if (k == NO_INSN || t->fn[k] < 0)
					continue;
				const struct insn *in = &t->insns[k];
				if (!insn_rel_on_field(in, rl)) {
					data_in(c, t->fn[k], ti, rl->off, "a relocation that is not an instruction's (data)");
					continue;
				}
				/* an address as an immediate or a lea's displacement */
				int tsec;
				uint64_t toff;
				bool branch = in->rel_size && rl->off == in->off + in->rel_off;
				bool mem = in->rip_rel && rl->off == in->off + in->disp_off && (in->mem_read || in->mem_write);
				if (!branch && !mem && code_rel_target(c, t->sec, rl, in->off + in->len, &tsec, &toff) &&
				    is_text(c, tsec))
					address_taken(c, &r, by_code, t, k, tsec, toff);
			}
		}
		for (uint32_t k = 0; k < t->ninsns; k++) {
			const struct insn *in = &t->insns[k];
			if (in->kind == INSN_JMP_IND && t->fn[k] >= 0)
				ijmp[t->fn[k]] = true;
			if (!in->rip_rel)
				continue;
			int tsec = t->sec;
			uint64_t toff = in->off + in->len + (uint64_t)(int64_t)(int32_t)rd32(s->data + in->off + in->disp_off);
			const struct rela *rl = reloc_find(c->o, t->sec, in->off + in->disp_off);
			if (rl && !code_rel_target(c, t->sec, rl, in->off + in->len, &tsec, &toff))
				continue;
			if (!is_text(c, tsec))
				continue;
			int tti = text_index(c, tsec);
			const struct text *tt = &c->texts[tti];
			if (in->mem_read || in->mem_write) {
				uint32_t x = text_insn_containing(tt, toff);
				if (x != NO_INSN && tt->fn[x] >= 0)
					data_in(c, tt->fn[x], tti, toff, "memory read or written there (data)");
			} else if (!rl) {
				address_taken(c, &r, by_code, t, k, tsec, toff);
			}
		}
	}
	/* a function whose extent was inferred, entered in its middle by a
	 * call, or by a jump from elsewhere: what was taken for its extent
	 * holds another function's entry (hand-written assembly shares tails
	 * between functions of known extent too; those are left as they are
	 * handled) */
	for (int ti = 0; ti < c->ntexts; ti++) {
		const struct text *t = &c->texts[ti];
		for (uint32_t k = 0; k < t->ninsns; k++) {
			const struct insn *in = &t->insns[k];
			int tsec;
			uint64_t toff;
			if ((in->kind != INSN_JMP && in->kind != INSN_JCC && in->kind != INSN_LOOP &&
			     in->kind != INSN_CALL) || !code_branch_target(c, t, k, &tsec, &toff) || !is_text(c, tsec))
				continue;
			int tti = text_index(c, tsec);
			const struct text *tt = &c->texts[tti];
			uint32_t x = insn_at(tt, &o->secs[tsec], toff);
			if (x == NO_INSN || tt->fn[x] < 0 || !c->funcs[tt->fn[x]].inferred || (tt->mark[x] & MARK_PSTART) ||
			    (in->kind != INSN_CALL && tt->fn[x] == t->fn[k]))
				continue;
			data_in(c, tt->fn[x], tti, toff, in->kind == INSN_CALL ? "a call into the middle of the function"
						: "a jump into the middle of the function from elsewhere");
		}
	}
	/* addresses in data sections: jump tables, function pointers */
	struct by_data bd = {c, r.first, by_data};
	code_each_data_address(c, true, taken_by_data, &bd);
	/* what control reaches from the ways in */
	for (int ti = 0; ti < c->ntexts; ti++) {
		const struct text *t = &c->texts[ti];
		for (uint32_t k = 0; k < t->ninsns; k++)
			if ((t->mark[k] & (MARK_PSTART | MARK_RESYNC)) || by_data[r.first[ti] + k])
				reach_seed(&r, ti, k);
	}
	reach_run(&r);
	/* addresses code takes: labels an indirect jump of their function
	 * may go to (computed goto), else data */
	for (int ti = 0; ti < c->ntexts; ti++) {
		const struct text *t = &c->texts[ti];
		for (uint32_t k = 0; k < t->ninsns; k++) {
			if (!by_code[r.first[ti] + k] || r.seen[r.first[ti] + k] || t->fn[k] < 0)
				continue;
			if (ijmp[t->fn[k]])
				reach_seed(&r, ti, k);
			else
				data_in(c, t->fn[k], ti, t->insns[k].off,
					"its address is taken, no path reaches it (data)");
		}
	}
	reach_run(&r);
	for (int ti = 0; ti < c->ntexts; ti++) {
		const struct text *t = &c->texts[ti];
		for (uint32_t k = 0; k < t->ninsns; k++)
			if (!r.seen[r.first[ti] + k] && t->fn[k] >= 0 && ijmp[t->fn[k]] &&
			    !insn_is_padding(&t->insns[k]))
				data_in(c, t->fn[k], ti, t->insns[k].off,
					"bytes no path reaches, in a function with an indirect jump (a table?)");
	}
	free(r.work);
	free(r.seen);
	free(r.first);
	free(by_code);
	free(by_data);
	free(ijmp);
}

/* ----- blocks */

void code_build_blocks(struct code *c)
{
	for (size_t fi = 0; fi < c->nfuncs; fi++) {
		struct func *f = &c->funcs[fi];
		if (!f->instrument)
			continue;
		f->first_block = (uint32_t)c->nblocks;
		for (int p = 0; p < f->npieces; p++) {
			struct text *t = &c->texts[f->pieces[p].ts];
			struct section *s = &c->o->secs[t->sec];
			uint32_t k = insn_at(t, s, f->pieces[p].start);
			struct block *cur = NULL;
			for (; k != NO_INSN && k < t->ninsns && t->insns[k].off < f->pieces[p].end; k++) {
				if (!cur || (t->mark[k] & MARK_LEADER)) {
					cur = VEC_PUSH(c->blocks, c->nblocks, c->blockcap);
					memset(cur, 0, sizeof(*cur));
					cur->fn = (uint32_t)fi;
					cur->ts = f->pieces[p].ts;
					cur->first = k;
					t->mark[k] |= MARK_LEADER;
				}
				cur->n++;
				t->block[k] = (uint32_t)(c->nblocks - 1);
				f->ninsns++;
			}
		}
		f->nblocks = (uint32_t)c->nblocks - f->first_block;
	}
}

unsigned code_block_succs(const struct code *c, uint32_t b, uint32_t out[2])
{
	const struct block *bl = &c->blocks[b];
	const struct text *t = &c->texts[bl->ts];
	uint32_t k = bl->first + bl->n - 1;
	const struct insn *last = &t->insns[k];
	unsigned n = 0;
	int tsec;
	uint64_t toff;
	bool falls = last->kind != INSN_JMP && last->kind != INSN_JMP_IND && last->kind != INSN_RET &&
		     last->kind != INSN_TRAP;
	/* (a jump back to the function's start, which the profile counts as a
	 * call, still runs the block again) */
	if ((last->kind == INSN_JMP || last->kind == INSN_JCC || last->kind == INSN_LOOP) &&
	    code_branch_target(c, t, k, &tsec, &toff) && is_text(c, tsec)) {
		const struct text *tt = &c->texts[text_index(c, tsec)];
		uint32_t ti = insn_at(tt, &c->o->secs[tsec], toff);
		if (ti != NO_INSN && tt->fn[ti] == (int32_t)bl->fn)
			out[n++] = tt->block[ti];
	}
	uint32_t nk = k + 1;
	if (falls && nk < t->ninsns && t->fn[nk] == t->fn[k] && t->fn[nk] >= 0 &&
	    t->insns[nk].off == last->off + last->len && (n == 0 || out[0] != t->block[nk]))
		out[n++] = t->block[nk];
	return n;
}

unsigned code_block_flow(const struct code *c, const struct func *f, const struct block *b,
			 void (*each)(void *ctx, const struct block *succ), void *ctx)
{
	const struct text *t = &c->texts[b->ts];
	uint32_t k = b->first + b->n - 1;
	const struct insn *last = &t->insns[k];
	unsigned ends = 0;
	bool falls = true;
	int tsec;
	uint64_t toff;
	switch (last->kind) {
	case INSN_RET:
		return FLOW_RET;
	case INSN_TRAP:
		return 0;
	case INSN_JMP_IND:
		if (t->mark[k] & MARK_TAIL)
			return FLOW_TAIL;
		/* any address-taken block of the function */
		for (uint32_t i = f->first_block; i < f->first_block + f->nblocks; i++) {
			const struct block *x = &c->blocks[i];
			if (c->texts[x->ts].mark[x->first] & MARK_ADDR)
				each(ctx, x);
		}
		return 0;
	case INSN_JMP:
		falls = false;
		/* fallthrough */
	case INSN_JCC: case INSN_LOOP:
		if (t->mark[k] & MARK_TAIL)
			ends |= FLOW_TAIL;
		else if (code_branch_target(c, t, k, &tsec, &toff) && is_text(c, tsec)) {
			const struct text *tt = &c->texts[text_index(c, tsec)];
			uint32_t ti = insn_at(tt, &c->o->secs[tsec], toff);
			if (ti != NO_INSN && tt->fn[ti] >= 0 && c->funcs[tt->fn[ti]].instrument)
				each(ctx, &c->blocks[tt->block[ti]]);
			else
				ends |= FLOW_OUT;
		} else
			ends |= FLOW_UNSEEN;
		break;
	default:
		break;
	}
	if (falls) {
		uint32_t nk = k + 1;
		if (nk < t->ninsns && t->fn[nk] == t->fn[k] && t->fn[nk] >= 0 &&
		    t->insns[nk].off == last->off + last->len)
			each(ctx, &c->blocks[t->block[nk]]);
		else
			ends |= last->kind == INSN_CALL || last->kind == INSN_CALL_IND ? FLOW_OUT_AFTER_CALL : FLOW_OUT;
	}
	return ends;
}

static void add_pred(void *ctx, const struct block *succ)
{
	struct block *b = (struct block *)ctx + (succ - (const struct block *)ctx);
	if (b->preds < 2)
		b->preds++;
	b->edges = b->preds;
}

void code_count_preds(struct code *c)
{
	for (size_t fi = 0; fi < c->nfuncs; fi++) {
		const struct func *f = &c->funcs[fi];
		if (!f->instrument)
			continue;
		bool unknown = false;
		for (uint32_t b = f->first_block; b < f->first_block + f->nblocks; b++) {
			const struct block *bl = &c->blocks[b];
			const struct text *t = &c->texts[bl->ts];
			uint32_t last = bl->first + bl->n - 1;
			if ((code_block_flow(c, f, bl, add_pred, c->blocks) & FLOW_UNSEEN) ||
			    (t->insns[last].kind == INSN_JMP_IND && !(t->mark[last] & MARK_TAIL)))
				unknown = true;
		}
		for (uint32_t b = f->first_block; b < f->first_block + f->nblocks; b++) {
			struct block *bl = &c->blocks[b];
			uint16_t m = c->texts[bl->ts].mark[bl->first];
			if (unknown || (m & (MARK_RESYNC | MARK_ENTERED)) || ((m & MARK_ADDR) && b != f->first_block))
				bl->preds = 2;
		}
	}
}

void code_find_no_calls(struct code *c)
{
	for (size_t fi = 0; fi < c->nfuncs; fi++) {
		struct func *f = &c->funcs[fi];
		if (!f->instrument || !f->nblocks)
			continue;
		bool calls = false;
		for (uint32_t b = f->first_block; b < f->first_block + f->nblocks && !calls; b++) {
			const struct block *bl = &c->blocks[b];
			const struct text *t = &c->texts[bl->ts];
			for (uint32_t k = bl->first; k < bl->first + bl->n && !calls; k++)
				calls = t->insns[k].kind == INSN_CALL || t->insns[k].kind == INSN_CALL_IND;
		}
		f->no_calls = !calls;
	}
}

bool code_entry_by_calls(const struct code *c, const struct func *f)
{
	return c->opts->counting && f->instrument && f->nblocks && c->blocks[f->first_block].preds == 0;
}

static void or_flags(void *ctx, const struct block *succ)
{
	*(uint16_t *)ctx |= succ->live_in & FLAGS_STATUS;
}

/* Backward liveness of the status flags, per function, to a fixed point:
 * dead where the function returns or jumps to another (the ABI), live
 * where control goes where the analysis does not see (but after a call,
 * which clobbers them). */
static uint16_t block_live_out(struct code *c, const struct func *f, const struct block *b)
{
	uint16_t out = 0;
	if (code_block_flow(c, f, b, or_flags, &out) & FLOW_OUT)
		out |= FLAGS_STATUS;
	return out;
}

void code_backward_fixpoint(struct code *c, const struct func *f,
			    bool (*visit)(struct code *c, const struct func *f, struct block *b, void *ctx), void *ctx)
{
	bool changed = true;
	while (changed) {
		changed = false;
		for (uint32_t b = f->first_block + f->nblocks; b-- > f->first_block;)
			changed |= visit(c, f, &c->blocks[b], ctx);
	}
}

static bool flags_visit(struct code *c, const struct func *f, struct block *bl, void *ctx)
{
	(void)ctx;
	const struct text *t = &c->texts[bl->ts];
	uint16_t live = block_live_out(c, f, bl);
	for (uint32_t k = bl->first + bl->n; k-- > bl->first;) {
		const struct insn *in = &t->insns[k];
		if (in->kind == INSN_CALL || in->kind == INSN_CALL_IND)
			live = 0; /* the callee clobbers all status flags */
		live = (uint16_t)((live & ~in->flags_written) | in->flags_read);
	}
	if (live == bl->live_in)
		return false;
	bl->live_in |= live;
	return true;
}

void code_liveness(struct code *c)
{
	for (size_t fi = 0; fi < c->nfuncs; fi++)
		if (c->funcs[fi].instrument)
			code_backward_fixpoint(c, &c->funcs[fi], flags_visit, NULL);
}

void code_find_sites(struct code *c)
{
	if (c->opts->counting)
		for (int ti = 0; ti < c->ntexts; ti++) {
			struct text *t = &c->texts[ti];
			t->cslot = xmalloc((t->ninsns + 1) * sizeof(*t->cslot));
			memset(t->cslot, 0xff, (t->ninsns + 1) * sizeof(*t->cslot));
		}
	for (size_t fi = 0; fi < c->nfuncs; fi++) {
		struct func *f = &c->funcs[fi];
		f->first_site = (uint32_t)c->nsites;
		if (!f->instrument)
			continue;
		for (uint32_t b = f->first_block; b < f->first_block + f->nblocks; b++) {
			struct block *bl = &c->blocks[b];
			struct text *t = &c->texts[bl->ts];
			for (uint32_t k = bl->first; k < bl->first + bl->n; k++) {
				/* calls, and tail jumps to external code (they become calls) */
				bool ext_tail = (t->mark[k] & MARK_EXT) && (t->insns[k].kind == INSN_JMP ||
									     t->insns[k].kind == INSN_JMP_IND);
				if (t->insns[k].kind != INSN_CALL && t->insns[k].kind != INSN_CALL_IND && !ext_tail)
					continue;
				if (t->cslot)
					t->cslot[k] = (uint32_t)c->nsites - f->first_site;
				struct site *s = VEC_PUSH(c->sites, c->nsites, c->sitecap);
				s->fn = (uint32_t)fi;
				s->ts = bl->ts;
				s->block = b;
				s->orig_off = t->insns[k].off;
				s->piece = 0;
				for (int p = 0; p < f->npieces; p++)
					if (f->pieces[p].ts == bl->ts && t->insns[k].off >= f->pieces[p].start &&
					    t->insns[k].off < f->pieces[p].end)
						s->piece = (uint32_t)p;
			}
		}
		f->nsites = (uint32_t)c->nsites - f->first_site;
		f->nslots_counting = f->nsites;
		if (!c->opts->counting)
			continue;
		for (uint32_t b = f->first_block; b < f->first_block + f->nblocks; b++) {
			const struct block *bl = &c->blocks[b];
			for (uint32_t k = bl->first; k < bl->first + bl->n; k++)
				if (c->texts[bl->ts].mark[k] & MARK_RESYNC)
					f->resyncs = true;
		}
		/* tail jumps, direct to instrumented code or through a pointer,
		 * take slots after the sites */
		for (uint32_t b = f->first_block; b < f->first_block + f->nblocks; b++) {
			struct block *bl = &c->blocks[b];
			struct text *t = &c->texts[bl->ts];
			for (uint32_t k = bl->first; k < bl->first + bl->n; k++)
				if ((t->mark[k] & MARK_TAIL) && !(t->mark[k] & MARK_EXT) &&
				    (t->insns[k].kind == INSN_JMP || t->insns[k].kind == INSN_JCC ||
				     t->insns[k].kind == INSN_JMP_IND))
					t->cslot[k] = f->nslots_counting++;
		}
	}
}

void code_init(struct code *c, struct object *o, const struct rewrite_opts *opts)
{
	memset(c, 0, sizeof(*c));
	c->o = o;
	x86_decoder_init(&c->dx);
	c->descs = opts->descs;
	if (!c->descs)
		c->descs = c->own_descs = xcalloc(1, sizeof(*c->own_descs));
	c->opts = opts;
	c->model = opts->model;
	c->mstats = opts->mstats;
	c->nsecs0 = o->nsecs;
	c->text_of_sec = xmalloc((o->nsecs + 1) * sizeof(int));
	for (size_t i = 0; i <= o->nsecs; i++)
		c->text_of_sec[i] = -1;
	for (size_t i = 1; i < o->nsecs; i++) {
		struct section *s = &o->secs[i];
		if (s->type == SHT_PROGBITS && (s->flags & SHF_EXECINSTR) && (s->flags & SHF_ALLOC) && s->size)
			c->text_of_sec[i] = c->ntexts++;
	}
	c->texts = xcalloc((size_t)c->ntexts + 1, sizeof(*c->texts));
	for (size_t i = 1; i < o->nsecs; i++)
		if (c->text_of_sec[i] >= 0)
			c->texts[c->text_of_sec[i]].sec = (int)i;
}

void code_infer_extents(struct code *c, const bool *verbatim)
{
	struct object *o = c->o;
	for (size_t fi = 0; fi < c->nfuncs; fi++) {
		struct func *f = &c->funcs[fi];
		const char *why = "";
		if (f->inferred && f->npieces == 1 && !verbatim[f->sym] && infer_extent(c, f, &why)) {
			/* a compiled static's switch: up to the next entry;
			 * bytes there no path reaches, not even from its jump
			 * table, are data (code_find_data_in_functions) */
			if (unnamed_code(&o->syms[f->sym]) && !strcmp(why, "an indirect jump"))
				continue;
			f->instrument = false;
			pi_warn("%s: %s: %s: %s, and its extent is not clear (%s); left uninstrumented",
				o->name, o->secs[c->texts[f->pieces[0].ts].sec].name, f->name,
				unnamed_code(&o->syms[f->sym]) ? "code without a symbol" : "no .type/.size", why);
			f->warned = true;
		}
	}
}

void code_decode(struct code *c, const bool *verbatim)
{
	for (int ti = 0; ti < c->ntexts; ti++)
		decode_text(c, ti, verbatim);
}

void code_keep_blocks(struct code *c)
{
	struct object *o = c->o;
	c->block_code = xcalloc(c->nblocks + 1, sizeof(uint32_t));
	for (size_t b = 0; b < c->nblocks; b++) {
		const struct block *bl = &c->blocks[b];
		const struct text *t = &c->texts[bl->ts];
		const struct insn *first = &t->insns[bl->first], *last = &t->insns[bl->first + bl->n - 1];
		c->block_code[b] = (uint32_t)c->code.len;
		buf_put(&c->code, o->secs[t->sec].data + first->off, last->off + last->len - first->off);
		/* and what its relocations name, for the map (profview
		 * names call and jump targets with them) */
		const struct section *s = &o->secs[t->sec];
		if (!s->rela)
			continue;
		const struct section *rs = &o->secs[s->rela];
		for (size_t r = rela_lower_bound(rs, first->off); r < rs->nrelas && rs->relas[r].off < last->off + last->len;
		     r++) {
			const struct rela *rl = &rs->relas[r];
			if (rl->sym >= o->nsyms)
				continue;
			const struct symbol *sym = &o->syms[rl->sym];
			bool secsym = ELF64_ST_TYPE(sym->info) == STT_SECTION;
			if (secsym && (sym->shndx == 0 || sym->shndx >= o->nsecs))
				continue;
			struct kept_rela *k = VEC_PUSH(c->kept_relas, c->nkept, c->keptcap);
			*k = (struct kept_rela){t->sec, rl->off, xstrdup(secsym ? o->secs[sym->shndx].name : sym->name),
						secsym, rl->type, rl->addend};
		}
	}
}

void code_free(struct code *c)
{
	for (int i = 0; i < c->ntexts; i++) {
		struct text *t = &c->texts[i];
		free(t->insns), free(t->at), free(t->fn), free(t->mark), free(t->block), free(t->cslot);
		free(t->cfa);
		free(t->live_after), free(t->set_up);
		free(t->inner_sym);
		free(t->vr), free(t->rel_at), free(t->ext), free(t->chase);
	}
	for (size_t i = 0; i < c->nfuncs; i++)
		free(c->funcs[i].name);
	for (size_t i = 0; i < c->nexts; i++)
		free(c->exts[i].name);
	free(c->exts);
	free(c->texts), free(c->text_of_sec), free(c->funcs), free(c->blocks), free(c->sums), free(c->sites);
	free(c->stepped), free(c->stepped_edges);
	free(c->func_of_sym), free(c->bases), free(c->block_code);
	for (size_t i = 0; i < c->nkept; i++)
		free(c->kept_relas[i].symbol);
	free(c->kept_relas);
	line_table_free(&c->lines);
	inline_table_free(&c->inlines);
	buf_free(&c->code);
	if (c->own_descs)
		insn_descs_free(c->own_descs);
	free(c->own_descs);
	memset(c, 0, sizeof(*c));
}
