/* SPDX-License-Identifier: MIT */
#include "instrument.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "chase.h"
#include "cost.h"
#include "dwarfinfo.h"
#include "dwarfline.h"
#include "ehframe.h"
#include "derive.h"
#include "ehframe_read.h"
#include "external.h"
#include "layout.h"
#include "meta.h"
#include "reglive.h"
#include "unnamed.h"

/*
 * One round of the analysis: functions, instructions and the marks on
 * them.  Each pass needs what the ones before it found:
 *  - functions come from the symbols, those a round before gave to code
 *    without one included;
 *  - a function without a size gets its extent before decoding, which
 *    decodes each function's extent;
 *  - leaders need the instructions (a place named inside one is data),
 *    and find the tables' bases, which every later reading of a
 *    PC-relative relocation in data needs (data_pcrel_base), and the tail
 *    calls;
 *  - the external calls need the tail calls (a tail jump to external code
 *    becomes a call);
 *  - the search for data inside functions starts from the ways into a
 *    function: piece starts (leaders), setjmp's returns and landing pads,
 *    all marked before it.
 */
static void analyse_round(struct code *c, struct object *o, const struct rewrite_opts *opts, const bool *verbatim)
{
	code_init(c, o, opts);
	code_find_functions(c);
	code_infer_extents(c, verbatim);
	code_decode(c, verbatim);
	code_find_leaders(c);
	code_find_resync_points(c);
	find_external_calls(c);
	code_find_vanishing_calls(c);
	ehframe_mark_landing_pads(c);
	code_find_data_in_functions(c);
}

/* Say each function found to hold data, once, and mark it (and each
 * function left as it was) in verbatim; how many were found. */
static size_t said_data(struct code *c, bool *verbatim)
{
	struct object *o = c->o;
	size_t found = 0;
	for (size_t fi = 0; fi < c->nfuncs; fi++) {
		struct func *f = &c->funcs[fi];
		if (!f->instrument)
			verbatim[f->sym] = true; /* said already: not again */
		if (!f->data_why)
			continue;
		/* named by the piece that holds the place, in its section */
		int p = 0;
		for (int q = 0; q < f->npieces; q++)
			if (f->pieces[q].ts == f->data_ts && f->data_off >= f->pieces[q].start &&
			    f->data_off < f->pieces[q].end)
				p = q;
		const struct piece *pc = &f->pieces[p];
		pi_warn("%s: %s: %s%s+0x%llx: %s; function left uninstrumented", o->name,
			o->secs[c->texts[pc->ts].sec].name, f->name, p ? " (its cold part)" : "",
			(unsigned long long)(f->data_off - pc->start), f->data_why);
		verbatim[f->sym] = true;
		found++;
	}
	return found;
}

/*
 * The pass driver.  Rounds of analysis until nothing new is found:
 * functions found to hold data are said once and analysed again, copied
 * as they were (which may leave code elsewhere that only they reached),
 * and code without a symbol that something enters gets one, and is a
 * function of the next round.  Then, on the last round's functions:
 *  - blocks are cut at the leaders, all of them found by then;
 *  - costing needs the blocks and their successors (loops.h), and the
 *    calls that cost nothing (MARK_NOCOST);
 *  - the loads --cache-sim follows need the blocks' successors;
 *  - liveness needs the blocks and the tail calls;
 *  - call sites need the blocks and the external calls;
 *  - the line tables and the blocks' bytes are kept for the map before
 *    the layout rewrites the sections.
 */
#define UNNAMED_ROUNDS 64

int code_analyse(struct code *c, struct object *o, const struct rewrite_opts *opts)
{
	/* every relocation query looks relocations up by offset */
	reloc_sort(o);
	bool *verbatim = xcalloc(o->nsyms + 1, sizeof(bool));
	for (unsigned round = 0;; round++) {
		analyse_round(c, o, opts, verbatim);
		size_t found = said_data(c, verbatim);
		size_t nsyms = o->nsyms;
		/* each round's functions may show code without a symbol that
		 * the next takes for a function; a malformed object can go on
		 * so for ever (a fuzzed one gave 37 000 symbols, a round
		 * each): after UNNAMED_ROUNDS, what is left stays as it was,
		 * with a warning */
		if (round < UNNAMED_ROUNDS)
			found += code_find_unnamed(c, false);
		if (!found) {
			code_find_unnamed(c, true);
			break;
		}
		if (o->nsyms > nsyms) {
			verbatim = xrealloc(verbatim, o->nsyms + 1);
			memset(verbatim + nsyms + 1, 0, o->nsyms - nsyms);
		}
		code_free(c);
	}
	free(verbatim);
	code_build_blocks(c);
	cost_blocks(c);
	if (opts->cache_sim)
		chase_find(c);
	code_liveness(c);
	if (opts->counting) {
		reg_liveness(c);
		code_count_preds(c);
		code_find_no_calls(c);
		code_derive_counts(c);
	}
	code_find_sites(c);
	if (opts->counting)
		ehframe_call_cfa(c);
	line_table_read(&c->lines, o);
	/* after the line table: an inlined call's file is one of its unit's */
	if (!inline_table_read(&c->inlines, o, &c->lines))
		pi_warn("%s: .debug_info: malformed; no inline frames for its code", o->name);
	code_keep_blocks(c);
	return 0;
}

int code_rewrite(struct code *c, struct addrmap *map)
{
	/* the sections and symbols the stubs refer to, before the layout
	 * emits the stubs; the unwind tables from the original code and
	 * symbols and the new positions, so before the layout puts the new
	 * code and symbols in place; the records and the map from the new
	 * positions, after */
	meta_prepare(c);
	struct layout l;
	layout_object(c, &l);
	int rc = ehframe_rewrite(c, &l.map);
	layout_finish(c, &l);
	if (!rc)
		meta_finish(c, &l.map);
	*map = l.map;
	return rc;
}

int instrument_object(struct object *o, const struct rewrite_opts *opts, struct istats *st)
{
	const char *what;
	if (obj_is_instrumented(o, &what)) {
		/* its stubs would be counted as code, its functions twice */
		pi_error("%s: already instrumented by profinst (it has %s); give the original object",
			 o->name, what);
		return -1;
	}
	if (obj_is_lto(o)) {
		pi_error("%s: LTO object holds no machine code (build without -flto, or with -ffat-lto-objects)",
			 o->name);
		return -1;
	}
	if (obj_drop_lto(o))
		return -1;
	struct code c;
	struct rewrite_opts ro = *opts;
	ro.mstats = st ? &st->model : NULL;
	if (code_analyse(&c, o, &ro)) {
		code_free(&c);
		return -1;
	}
	if (!c.nfuncs) {
		/* data only, or code without symbols: nothing to count */
		code_free(&c);
		return 0;
	}
	struct addrmap map;
	int rc = code_rewrite(&c, &map);
	addrmap_free(&map);
	if (st) {
		st->objects++;
		st->functions += c.nfuncs;
		st->blocks += c.nblocks;
		for (size_t i = 0; i < c.nfuncs; i++) {
			st->insns += c.funcs[i].ninsns;
			st->uninstrumented += !c.funcs[i].instrument;
			const struct symbol *s = c.funcs[i].sym >= 0 ? &o->syms[c.funcs[i].sym] : NULL;
			if (st->left && !c.funcs[i].instrument && s && s->name &&
			    ELF64_ST_BIND(s->info) != STB_LOCAL)
				nameset_add(st->left, s->name);
		}
		st->externals += c.nexts;
	}
	code_free(&c);
	return rc;
}
