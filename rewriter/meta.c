/* SPDX-License-Identifier: MIT */
#include "meta.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "external.h"
#include "reloc.h"
#include "stub_abi.h"

#define FUNCREC_SIZE sizeof(struct pi_funcrec)

/* The runtime's: in the program, bound at link time; a shared object's
 * stubs find the program's at load (-shared), which a hidden reference in
 * the program would make local to it.  A shared object calls a helper
 * NAME by NAME.so, which jumps through its GOT (runtime/image_so_calls.S:
 * bound at load, not lazily). */
static int undef(struct code *c, const char *name, int type)
{
	if (c->opts->pic && type == STT_NOTYPE) {
		char *thunk = xasprintf("%s.so", name);
		int s = obj_add_symbol(c->o, thunk, 0, 0, ELF64_ST_INFO(STB_GLOBAL, type), STV_HIDDEN, SHN_UNDEF);
		free(thunk);
		return s;
	}
	return obj_add_symbol(c->o, name, 0, 0, ELF64_ST_INFO(STB_GLOBAL, type), STV_DEFAULT, SHN_UNDEF);
}

/* --counts: NAME.pi_inner, past the entry stub of each instrumented
 * function NAME other objects may call, where their calls and tail jumps
 * to it go after finding its node themselves (layout.c, emit_cinner);
 * and the ones this object's calls and tail jumps go to. */
static void inner_symbols(struct code *c)
{
	struct object *o = c->o;
	size_t n = o->nsyms;
	c->inner_first = n;
	for (size_t i = 0; i < n; i++) {
		const struct symbol *s = &o->syms[i];
		uint8_t bind = ELF64_ST_BIND(s->info), type = ELF64_ST_TYPE(s->info);
		if ((bind != STB_GLOBAL && bind != STB_WEAK) || (type != STT_FUNC && type != STT_NOTYPE) ||
		    s->shndx == SHN_UNDEF || s->shndx >= SHN_LORESERVE || !s->name || !*s->name ||
		    strchr(s->name, '@'))
			continue; /* (a versioned name stays as it is) */
		int32_t fi = c->func_of_sym ? c->func_of_sym[i] : -1;
		if (fi < 0 || !c->funcs[fi].instrument || c->funcs[fi].pieces[0].start != s->value ||
		    c->texts[c->funcs[fi].pieces[0].ts].sec != (int)s->shndx)
			continue;
		char *name = xasprintf("%s.pi_inner", s->name);
		obj_add_symbol(o, name, s->value, 0, ELF64_ST_INFO(bind, STT_FUNC), STV_HIDDEN, s->shndx);
		free(name);
	}
	c->inner_end = o->nsyms;
	for (int ti = 0; ti < c->ntexts; ti++) {
		struct text *t = &c->texts[ti];
		t->inner_sym = xmalloc((t->ninsns + 1) * sizeof(*t->inner_sym));
		for (uint32_t k = 0; k <= t->ninsns; k++)
			t->inner_sym[k] = -1;
		for (uint32_t k = 0; k < t->ninsns; k++) {
			enum insn_kind kind = t->insns[k].kind;
			bool tail = (kind == INSN_JMP || kind == INSN_JCC) && (t->mark[k] & MARK_TAIL);
			if ((kind != INSN_CALL && !tail) || t->fn[k] < 0 || !c->funcs[t->fn[k]].instrument ||
			    !calls_instrumented(c, t, k))
				continue;
			const struct rela *r = reloc_find(o, t->sec, t->insns[k].off + t->insns[k].rel_off);
			if (!r || r->sym >= n || o->syms[r->sym].shndx != SHN_UNDEF ||
			    ELF64_ST_BIND(o->syms[r->sym].info) == STB_LOCAL || strchr(o->syms[r->sym].name, '@'))
				continue;
			char *name = xasprintf("%s.pi_inner", o->syms[r->sym].name);
			int sym = -1;
			for (size_t j = c->inner_end; j < o->nsyms && sym < 0; j++)
				if (!strcmp(o->syms[j].name, name))
					sym = (int)j;
			if (sym < 0)
				sym = obj_add_symbol(o, name, 0, 0, ELF64_ST_INFO(STB_GLOBAL, STT_NOTYPE), STV_DEFAULT,
						     SHN_UNDEF);
			free(name);
			t->inner_sym[k] = sym;
		}
	}
}

void meta_prepare(struct code *c)
{
	struct object *o = c->o;
	c->sym_tls = obj_add_symbol(o, STUB_TLS_SYMBOL, 0, 0, ELF64_ST_INFO(STB_GLOBAL, STT_TLS),
				    STV_DEFAULT, SHN_UNDEF);
	c->sym_enter = undef(c, STUB_ENTER_SYMBOL, STT_NOTYPE);
	c->sym_enter_flags = undef(c, STUB_ENTER_FLAGS_SYMBOL, STT_NOTYPE);
	c->sym_exit = undef(c, STUB_EXIT_SYMBOL, STT_NOTYPE);
	c->sym_tailexit = undef(c, STUB_TAILEXIT_SYMBOL, STT_NOTYPE);
	c->sym_rep = undef(c, STUB_REP_SYMBOL, STT_NOTYPE);
	c->sym_resync = undef(c, STUB_RESYNC_SYMBOL, STT_NOTYPE);
	c->sym_flush = undef(c, STUB_FLUSH_SYMBOL, STT_NOTYPE);
	c->sym_branch = undef(c, STUB_BRANCH_SYMBOL, STT_NOTYPE);
	c->sym_load = undef(c, STUB_LOAD_SYMBOL, STT_NOTYPE);
	c->sym_ext_enter = undef(c, STUB_EXT_ENTER_SYMBOL, STT_NOTYPE);
	c->sym_ext_exit = undef(c, STUB_EXT_EXIT_SYMBOL, STT_NOTYPE);
	c->sym_ext_exit_fixed = undef(c, STUB_EXT_EXIT_FIXED_SYMBOL, STT_NOTYPE);
	c->sym_sys_enter = undef(c, STUB_SYS_ENTER_SYMBOL, STT_NOTYPE);
	c->sym_sys_exit = undef(c, STUB_SYS_EXIT_SYMBOL, STT_NOTYPE);
	c->sym_icall = undef(c, STUB_ICALL_SYMBOL, STT_NOTYPE);
	if (c->opts->counting) {
		c->sym_centry = undef(c, STUB_CENTRY_SYMBOL, STT_NOTYPE);
		c->sym_cextnew = undef(c, STUB_CEXTNEW_SYMBOL, STT_NOTYPE);
		c->sym_cptr = undef(c, STUB_CPTR_SYMBOL, STT_NOTYPE);
		c->sym_cptr_tail = undef(c, STUB_CPTR_TAIL_SYMBOL, STT_NOTYPE);
		c->sym_locale = undef(c, STUB_LOCALE_SET_SYMBOL, STT_OBJECT);
		c->sym_solo = undef(c, STUB_SOLO_WORD_SYMBOL, STT_OBJECT);
		c->sym_centry_flags = undef(c, STUB_CENTRY_FLAGS_SYMBOL, STT_NOTYPE);
		if (c->opts->pic)
			c->sym_pentry = undef(c, STUB_PENTRY_SYMBOL, STT_NOTYPE);
		c->sym_cresync = undef(c, STUB_CRESYNC_SYMBOL, STT_NOTYPE);
		c->sym_cmeas_start = undef(c, STUB_CMEAS_START_SYMBOL, STT_NOTYPE);
		c->sym_cmeas_stop = undef(c, STUB_CMEAS_STOP_SYMBOL, STT_NOTYPE);
		c->sym_cpark = undef(c, STUB_CPARK_SYMBOL, STT_NOTYPE);
		c->sym_cunpark = undef(c, STUB_CUNPARK_SYMBOL, STT_NOTYPE);
		c->sym_frames = undef(c, STUB_FRAMES_SYMBOL, STT_OBJECT);
		c->sym_cframe = undef(c, STUB_CFRAME_SYMBOL, STT_NOTYPE);
		if (!c->opts->pic) /* (a shared object's would be exported) */
			inner_symbols(c);
	}
	/* each block's executions and, under a simulation, its
	 * mispredictions and memory waits (format.h, pi_counters); under
	 * --counts they are in the nodes, and a word holds the section's
	 * place (the C library clears a thread's TLS when it starts: a
	 * megabyte of counters a thread for a large program) */
	size_t per_block = c->opts->branch_sim || c->opts->cache_sim ? 3 : 1;
	/* (a shared object's: no TLS of its own, which a dlopen could not
	 * always give it) */
	c->counts_sec = obj_add_section(o, c->opts->pic ? ".bss.profinst" : ".tbss.profinst", SHT_NOBITS,
					SHF_ALLOC | SHF_WRITE | (c->opts->pic ? 0 : SHF_TLS), 8, NULL,
					c->opts->counting ? 8 : 8 * per_block * (c->nblocks ? c->nblocks : 1));
	obj_section_symbol(o, c->counts_sec);
	c->desc_sec = obj_add_section(o, "profinst_objs", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 8,
				      NULL, sizeof(struct pi_objdesc));
	obj_section_symbol(o, c->desc_sec);
	c->map_sec = obj_add_section(o, "profinst_map", SHT_PROGBITS, SHF_ALLOC, 8, NULL, 0);
	obj_section_symbol(o, c->map_sec);

	/* one record section per COMDAT group, one for the rest */
	int *sec_of_group = xcalloc(o->nsecs + 1, sizeof(int));
	size_t ngroups = o->nsecs;
	int plain = 0;
	for (size_t fi = 0; fi < c->nfuncs; fi++) {
		struct func *f = &c->funcs[fi];
		if (!f->instrument)
			continue;
		int *slot = f->group && (size_t)f->group < ngroups ? &sec_of_group[f->group] : &plain;
		if (!*slot) {
			*slot = obj_add_section(o, "profinst_funcs", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE,
						8, NULL, 0);
			if (f->group)
				obj_group_add(o, f->group, *slot);
			obj_section_symbol(o, *slot);
		}
		struct section *s = &o->secs[*slot];
		f->rec_sec = *slot;
		f->rec_off = s->size;
		s->data = xrealloc(s->data, s->size + FUNCREC_SIZE);
		memset(s->data + s->size, 0, FUNCREC_SIZE);
		s->size += FUNCREC_SIZE;
	}
	for (size_t i = 0; i < c->nexts; i++) {
		if (!plain) {
			plain = obj_add_section(o, "profinst_funcs", SHT_PROGBITS, SHF_ALLOC | SHF_WRITE, 8,
						NULL, 0);
			obj_section_symbol(o, plain);
		}
		if (!c->extnames_sec) {
			/* strings the linker merges: one copy of each name in
			 * the program, in a section of few pages, where the
			 * runtime reads them (runtime/external.c) */
			c->extnames_sec = obj_add_section(o, "profinst_extnames", SHT_PROGBITS,
							  SHF_ALLOC | SHF_MERGE | SHF_STRINGS, 1, NULL, 0);
			o->secs[c->extnames_sec].entsize = 1;
			obj_section_symbol(o, c->extnames_sec);
		}
		if (!c->shared_sec) {
			/* zero in the file: the runtime writes the record an
			 * external's name shares here, not in the record, whose
			 * page then stays the file's */
			c->shared_sec = obj_add_section(o, "profinst_shared", SHT_NOBITS, SHF_ALLOC | SHF_WRITE, 8,
							NULL, 8 * c->nexts);
			obj_section_symbol(o, c->shared_sec);
		}
		struct section *ns = &o->secs[c->extnames_sec];
		size_t len = strlen(c->exts[i].name) + 1;
		c->exts[i].name_off = ns->size;
		ns->data = xrealloc(ns->data, ns->size + len);
		memcpy(ns->data + ns->size, c->exts[i].name, len);
		ns->size += len;
		struct section *s = &o->secs[plain];
		c->exts[i].rec_sec = plain;
		c->exts[i].rec_off = s->size;
		s->data = xrealloc(s->data, s->size + FUNCREC_SIZE);
		memset(s->data + s->size, 0, FUNCREC_SIZE);
		s->size += FUNCREC_SIZE;
	}
	free(sec_of_group);
}

static void fill_funcrecs(struct code *c, const struct addrmap *m)
{
	struct object *o = c->o;
	for (size_t fi = 0; fi < c->nfuncs; fi++) {
		struct func *f = &c->funcs[fi];
		if (!f->instrument)
			continue;
		uint8_t *r = o->secs[f->rec_sec].data + f->rec_off;
		obj_add_rela(o, f->rec_sec, f->rec_off + offsetof(struct pi_funcrec, obj), R_X86_64_PC64,
			     (uint32_t)o->secs[c->desc_sec].secsym, 0);
		wr32(r + offsetof(struct pi_funcrec, index), (uint32_t)fi);
		wr16(r + offsetof(struct pi_funcrec, npieces), (uint16_t)f->npieces);
		wr16(r + offsetof(struct pi_funcrec, nslots), (uint16_t)f->nslots_counting);
		for (int p = 0; p < f->npieces; p++) {
			const struct piece *pc = &f->pieces[p];
			int tsec = c->texts[pc->ts].sec;
			uint64_t nstart = addrmap_lookup(m, pc->ts, pc->start, MAP_PLACE);
			uint64_t nend = addrmap_lookup(m, pc->ts, pc->end, MAP_PLACE);
			obj_add_rela(o, f->rec_sec, f->rec_off + offsetof(struct pi_funcrec, addr) + 8 * (size_t)p,
				     R_X86_64_PC64, (uint32_t)obj_section_symbol(o, tsec), (int64_t)nstart);
			wr32(r + offsetof(struct pi_funcrec, size) + 4 * (size_t)p, (uint32_t)(nend - nstart));
		}
	}
	for (size_t i = 0; i < c->nexts; i++) {
		const struct external *x = &c->exts[i];
		uint8_t *r = o->secs[x->rec_sec].data + x->rec_off;
		obj_add_rela(o, x->rec_sec, x->rec_off + offsetof(struct pi_funcrec, obj), R_X86_64_PC64,
			     (uint32_t)o->secs[c->desc_sec].secsym, 0);
		obj_add_rela(o, x->rec_sec, x->rec_off + offsetof(struct pi_funcrec, addr), R_X86_64_PC64,
			     (uint32_t)o->secs[c->shared_sec].secsym, (int64_t)(8 * i));
		obj_add_rela(o, x->rec_sec, x->rec_off + offsetof(struct pi_funcrec, addr) + 8 * PI_EXT_NAME_AT,
			     R_X86_64_PC64, (uint32_t)o->secs[c->extnames_sec].secsym, (int64_t)x->name_off);
		wr32(r + offsetof(struct pi_funcrec, index), x->map_index);
		wr32(r + offsetof(struct pi_funcrec, size), x->flags);
		wr32(r + offsetof(struct pi_funcrec, size) + 4, x->cost.units);
		wr32(r + offsetof(struct pi_funcrec, size) + 8, x->cost.per_byte_q8);
		wr32(r + offsetof(struct pi_funcrec, size) + 12, x->cost.arg | x->cost.null_units << 8);
	}
}

/* --counts: the bytes of f's entry stub, where a call through a pointer
 * may go past it (PI_FUNC_INNER_SHIFT); 0 where it may not: a function
 * that reads flags at its entry (the site's work changes them). */
static uint32_t inner_bytes(const struct code *c, const struct addrmap *m, const struct func *f)
{
	if (!c->opts->counting || !f->instrument || !f->nblocks ||
	    (c->blocks[f->first_block].live_in & FLAGS_STATUS))
		return 0;
	const struct piece *pc = &f->pieces[0];
	uint64_t n = addrmap_lookup(m, pc->ts, pc->start, MAP_BRANCH) - addrmap_lookup(m, pc->ts, pc->start, MAP_PLACE);
	return n < 0x10000 ? (uint32_t)n : 0;
}

static void build_map(struct code *c, const struct addrmap *m, struct buf *b)
{
	struct object *o = c->o;
	struct strtab st;
	strtab_init(&st);
	struct pi_map_hdr h = {
		.magic = PI_MAP_MAGIC,
		.version = PI_MAP_VERSION,
		.object = strtab_add(&st, o->name),
		.nfuncs = (uint32_t)(c->nfuncs + c->nexts),
		.nblocks = (uint32_t)c->nblocks,
		.nsites = (uint32_t)c->nsites,
		.cpu = strtab_add(&st, c->model->name),
		.units = c->model->units,
		.mispredict = c->opts->branch_sim ? c->model->mispredict : 0,
		.reserved = (c->model->charges_os ? PI_MAP_CHARGE_OS : 0) |
			    (c->opts->charge_waits ? PI_MAP_CHARGE_WAITS : 0) |
			    (c->opts->branch_sim ? PI_MAP_BRANCH_SIM : 0) |
			    (c->opts->cache_sim ? PI_MAP_CACHE_SIM : 0) |
			    (c->opts->counting ? PI_MAP_COUNTING : 0),
	};
	struct buf body = {0};
	h.funcs_off = sizeof(h);
	for (size_t fi = 0; fi < c->nfuncs; fi++) {
		const struct func *f = &c->funcs[fi];
		const struct symbol *sym = &o->syms[f->sym];
		struct pi_map_func mf = {
			.name = strtab_add(&st, f->name),
			.section = strtab_add(&st, o->secs[c->texts[f->pieces[0].ts].sec].name),
			.offset = (uint32_t)f->pieces[0].start,
			.size = (uint32_t)(f->pieces[0].end - f->pieces[0].start),
			.first_block = f->first_block,
			.nblocks = f->instrument ? f->nblocks : 0,
			.first_site = f->first_site,
			.nsites = f->instrument ? f->nsites : 0,
			.flags = (f->group ? PI_FUNC_COMDAT : 0) | (f->instrument ? 0 : PI_FUNC_UNINSTRUMENTED) |
				 (ELF64_ST_BIND(sym->info) != STB_LOCAL ? PI_FUNC_GLOBAL : 0) |
				 (code_entry_by_calls(c, f) ? PI_FUNC_ENTRY_CALLS : 0) |
				 inner_bytes(c, m, f) << PI_FUNC_INNER_SHIFT,
			.ninsns = f->ninsns,
		};
		buf_put(&body, &mf, sizeof(mf));
	}
	for (size_t i = 0; i < c->nexts; i++) {
		struct pi_map_func mf = {
			.name = strtab_add(&st, c->exts[i].name),
			.section = strtab_add(&st, ""),
			.first_block = (uint32_t)c->nblocks,
			.first_site = (uint32_t)c->nsites,
			.flags = PI_FUNC_EXTERNAL | PI_FUNC_GLOBAL |
				 ((c->exts[i].flags & PI_EXT_WAIT) ? PI_FUNC_WAIT : 0),
		};
		buf_put(&body, &mf, sizeof(mf));
	}
	h.blocks_off = (uint32_t)(sizeof(h) + body.len);
	for (size_t bi = 0; bi < c->nblocks; bi++) {
		const struct block *bl = &c->blocks[bi];
		const struct text *t = &c->texts[bl->ts];
		const struct insn *first = &t->insns[bl->first], *last = &t->insns[bl->first + bl->n - 1];
		struct pi_map_block mb = {
			.func = bl->fn,
			.section = strtab_add(&st, o->secs[t->sec].name),
			.offset = (uint32_t)first->off,
			.size = (uint32_t)(last->off + last->len - first->off),
			.ninsns = bl->n,
			.cost = bl->cost,
			.code = c->block_code[bi],
		};
		buf_put(&body, &mb, sizeof(mb));
	}
	h.sites_off = (uint32_t)(sizeof(h) + body.len);
	for (size_t si = 0; si < c->nsites; si++) {
		const struct site *s = &c->sites[si];
		struct pi_map_site ms = {
			.func = s->fn,
			.piece = s->piece,
			.ret_off = m->ret_off[si],
			.section = strtab_add(&st, o->secs[c->texts[s->ts].sec].name),
			.offset = (uint32_t)s->orig_off,
			.block = s->block,
		};
		buf_put(&body, &ms, sizeof(ms));
	}
	/* line rows of the instrumented functions' code */
	h.lines_off = (uint32_t)(sizeof(h) + body.len);
	for (size_t i = 0; i < c->lines.n; i++) {
		const struct line_row *r = &c->lines.rows[i];
		if (text_index(c, r->sec) < 0)
			continue;
		struct pi_map_line ml = {
			.section = strtab_add(&st, o->secs[r->sec].name),
			.offset = (uint32_t)r->off,
			.file = strtab_add(&st, r->file),
			.line = r->line,
		};
		buf_put(&body, &ml, sizeof(ml));
		h.nlines++;
	}
	/* the blocks' relocations (PI_MAP_RELOCS) */
	h.reserved |= PI_MAP_RELOCS;
	h.relocs_off = (uint32_t)(sizeof(h) + body.len);
	for (size_t i = 0; i < c->nkept; i++) {
		const struct kept_rela *k = &c->kept_relas[i];
		struct pi_map_reloc mr = {
			.section = strtab_add(&st, o->secs[k->sec].name),
			.offset = (uint32_t)k->off,
			.symbol = strtab_add(&st, k->symbol),
			.type = k->type | (k->secsym ? PI_RELOC_SECTION : 0),
			.addend = (int32_t)k->addend,
		};
		buf_put(&body, &mr, sizeof(mr));
		h.nrelocs++;
	}
	/* the inlined calls, and which code each holds (PI_MAP_INLINES) */
	h.reserved |= PI_MAP_INLINES;
	h.inlines_off = (uint32_t)(sizeof(h) + body.len);
	h.ninlines = (uint32_t)c->inlines.nframes;
	for (size_t i = 0; i < c->inlines.nframes; i++) {
		const struct inline_frame *f = &c->inlines.frames[i];
		struct pi_map_inline mi = {
			.name = strtab_add(&st, f->name),
			.call_file = strtab_add(&st, f->call_file ? f->call_file : ""),
			.call_line = f->call_line,
			.parent = (uint32_t)(f->parent + 1),
		};
		buf_put(&body, &mi, sizeof(mi));
	}
	h.inrows_off = (uint32_t)(sizeof(h) + body.len);
	for (size_t i = 0; i < c->inlines.nrows; i++) {
		const struct inline_row *r = &c->inlines.rows[i];
		if (text_index(c, r->sec) < 0)
			continue;
		struct pi_map_inrow mr = {
			.section = strtab_add(&st, o->secs[r->sec].name),
			.offset = (uint32_t)r->off,
			.frame = (uint32_t)(r->frame + 1),
		};
		buf_put(&body, &mr, sizeof(mr));
		h.ninrows++;
	}
	/* the blocks counted as another (PI_MAP_SAME: --counts) */
	h.reserved |= PI_MAP_SAME;
	h.same_off = (uint32_t)(sizeof(h) + body.len);
	if (c->opts->counting) {
		h.nsame = (uint32_t)c->nblocks;
		for (size_t i = 0; i < c->nblocks; i++)
			buf_u32(&body, c->blocks[i].same);
		h.reserved |= PI_MAP_DIFF; /* (the differences follow) */
		for (size_t i = 0; i < c->nblocks; i++) {
			const struct block *b = &c->blocks[i];
			buf_u32(&body, b->plus);
			buf_u32(&body, b->sum ? b->sum : b->minus); /* (0, group + 1): a sum */
		}
		for (size_t i = 0; i < c->nblocks; i++)
			if (c->blocks[i].eto)
				h.reserved |= PI_MAP_EDGES; /* (a block counts an edge) */
		if (c->nsums) {
			h.reserved |= PI_MAP_SUM;
			buf_u32(&body, (uint32_t)c->nsums);
			for (size_t i = 0; i < c->nsums; i++)
				buf_u32(&body, c->sums[i]);
			for (size_t i = 0; i < c->nblocks; i++)
				if (c->blocks[i].sum && (c->sums[c->blocks[i].sum - 1] & PI_LIN_GROUP))
					h.reserved |= PI_MAP_LIN; /* (a signed sum: the flow into a join) */
		}
	}
	h.code_off = (uint32_t)(sizeof(h) + body.len);
	h.code_size = (uint32_t)c->code.len;
	buf_put(&body, c->code.p, c->code.len);
	buf_align(&body, 4);
	h.str_off = (uint32_t)(sizeof(h) + body.len);
	h.str_size = (uint32_t)st.b.len;
	h.size = (uint32_t)(h.str_off + st.b.len);
	buf_put(b, &h, sizeof(h));
	buf_put(b, body.p, body.len);
	buf_put(b, st.b.p, st.b.len);
	buf_align(b, 8);
	buf_free(&body);
	strtab_free(&st);
}

void meta_finish(struct code *c, const struct addrmap *map)
{
	struct object *o = c->o;
	fill_funcrecs(c, map);
	struct section *d = &o->secs[c->desc_sec];
	wr64(d->data + offsetof(struct pi_objdesc, magic), PI_OBJDESC_MAGIC);
	wr32(d->data + offsetof(struct pi_objdesc, nblocks), (uint32_t)c->nblocks);
	wr32(d->data + offsetof(struct pi_objdesc, nfuncs), (uint32_t)(c->nfuncs + c->nexts));
	struct frontend_costs fe = model_frontend(c->model);
	wr32(d->data + offsetof(struct pi_objdesc, call_bubble), fe.call);
	wr32(d->data + offsetof(struct pi_objdesc, ret_bubble), fe.ret);
	wr32(d->data + offsetof(struct pi_objdesc, fe_window), fe.window);
	uint32_t heap[PI_HC_COUNT];
	if (model_heap(c->model, heap))
		for (int i = 0; i < PI_HC_COUNT; i++)
			wr32(d->data + offsetof(struct pi_objdesc, heap) + 4 * (size_t)i, heap[i]);
	if (!c->opts->no_page_faults)
		wr32(d->data + offsetof(struct pi_objdesc, page_fault), model_page_fault(c->model));
	if (c->opts->cache_sim) {
		struct cache_costs cc = model_cache(c->model);
		for (int i = 0; i < 3; i++) {
			wr32(d->data + offsetof(struct pi_objdesc, cache_lines) + 4 * i, cc.lines[i]);
			wr32(d->data + offsetof(struct pi_objdesc, cache_latency) + 4 * i, cc.latency[i]);
		}
		for (int i = 0; i < 2; i++) {
			wr32(d->data + offsetof(struct pi_objdesc, tlb_entries) + 4 * i, cc.tlb_entries[i]);
			wr32(d->data + offsetof(struct pi_objdesc, tlb_latency) + 4 * i, cc.tlb_latency[i]);
		}
		wr32(d->data + offsetof(struct pi_objdesc, cache_window), cc.window);
		wr32(d->data + offsetof(struct pi_objdesc, cache_mlp), cc.mlp);
		for (int i = 0; i < 3; i++)
			wr32(d->data + offsetof(struct pi_objdesc, cache_overlap) + 4 * i, cc.overlap[i]);
	}
	obj_add_rela(o, c->desc_sec, offsetof(struct pi_objdesc, map), R_X86_64_PC64,
		     (uint32_t)o->secs[c->map_sec].secsym, 0);
	if (!c->opts->pic) /* (a shared object's stubs keep no counter in TLS: counts_tpoff 0) */
		obj_add_rela(o, c->desc_sec, offsetof(struct pi_objdesc, counts_tpoff), R_X86_64_TPOFF32,
			     (uint32_t)o->secs[c->counts_sec].secsym, 0);
	struct buf m = {0};
	build_map(c, map, &m);
	const struct pi_map_hdr *h = (const struct pi_map_hdr *)(const void *)m.p;
	wr32(d->data + offsetof(struct pi_objdesc, map_size), h->size);
	wr32(d->data + offsetof(struct pi_objdesc, map_flags), h->reserved);
	wr32(d->data + offsetof(struct pi_objdesc, map_units), h->units);
	uint32_t words = 0;
	for (size_t fi = 0; fi < c->nfuncs; fi++) {
		const struct func *f = &c->funcs[fi];
		if (f->instrument && f->nblocks + f->nslots_counting > words)
			words = f->nblocks + f->nslots_counting;
	}
	wr32(d->data + offsetof(struct pi_objdesc, node_words), words);
	/* (each function's, in a section of their own: read at every node
	 * made, and dense) */
	size_t nshapes = c->nfuncs + c->nexts ? c->nfuncs + c->nexts : 1; /* (an external's: 0, 0) */
	struct pi_func_shape *shape = xcalloc(nshapes, sizeof(*shape));
	for (size_t fi = 0; fi < c->nfuncs; fi++) {
		const struct func *f = &c->funcs[fi];
		wr32((uint8_t *)&shape[fi].nblocks, f->instrument ? (uint32_t)f->nblocks : 0);
		wr32((uint8_t *)&shape[fi].nsites, f->instrument ? (uint32_t)f->nsites : 0);
	}
	int shapes_sec = obj_add_section(o, "profinst_shapes", SHT_PROGBITS, SHF_ALLOC, 4, shape,
					 nshapes * sizeof(*shape));
	obj_add_rela(o, c->desc_sec, offsetof(struct pi_objdesc, shapes), R_X86_64_PC64,
		     (uint32_t)obj_section_symbol(o, shapes_sec), 0);
	free(shape);
	struct section *ms = &o->secs[c->map_sec];
	free(ms->data);
	ms->data = m.p;
	ms->size = m.len;
}
