/* SPDX-License-Identifier: MIT */
/*
 * Code without a symbol.
 *
 * Code between the functions the symbols name, that something enters: a
 * static function whose symbol strip -x removed (calls to it are resolved
 * by the assembler, or go through the section's symbol), or its cold part.
 * Left in a gap it would run as it was, counted nowhere, and its
 * relocation-free branches would go astray when the code around it moves.
 * Each such entry gets a local symbol, "<static>@0x40" (in .text; else
 * "<static>@.text.name+0x40"), named as Sun's analyzer names such code, and
 * is then a function like any other (its extent from its FDE, or inferred
 * as for assembly without .size); code only one function jumps to, and
 * that jumps back into it, is that function's cold part ("name.cold"), a
 * piece of it. */
#include "unnamed.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "ehframe_read.h"

enum { U_FDE = 1, U_CALL = 2, U_JUMP = 4, U_ADDR = 8 };

struct unnamed {
	int sec;
	uint64_t off, size; /* size: from its FDE, or 0 */
	unsigned how;       /* U_*: what names it */
	int32_t from;       /* the function jumping to it: -1 none, -2 several */
};

struct unnamed_set {
	struct code *c;
	struct unnamed *u;
	size_t n, cap;
	bool *has_fde;      /* per section: an FDE describes code there */
};

/* Is off of text t between functions (a gap)?  Its end in *end. */
static bool gap_at(const struct text *t, uint64_t off, uint64_t *end)
{
	/* the ranges are in order (decode_text): the last starting at or
	 * before off */
	size_t lo = 0, hi = t->nvr;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (t->vr[mid].start <= off)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo || !t->vr[lo - 1].gap || off >= t->vr[lo - 1].end)
		return false;
	*end = t->vr[lo - 1].end;
	return true;
}

static void unnamed_add(struct unnamed_set *us, int sec, uint64_t off, uint64_t size, unsigned how, int32_t from)
{
	struct code *c = us->c;
	uint64_t end;
	if (!is_text(c, sec) || !gap_at(&c->texts[text_index(c, sec)], off, &end))
		return;
	/* padding is not an entry (a reference to the end of something) */
	const struct section *s = &c->o->secs[sec];
	struct insn in;
	if (!insn_decode(&c->dx, s->data + off, s->size - off, off, &in) || in.kind == INSN_BAD || insn_is_padding(&in))
		return;
	if (size > end - off)
		size = end - off;
	for (size_t i = 0; i < us->n; i++) {
		struct unnamed *u = &us->u[i];
		if (u->sec != sec || u->off != off)
			continue;
		u->how |= how;
		if (size)
			u->size = size;
		if (how & U_JUMP)
			u->from = u->from == -1 || u->from == from ? from : -2;
		return;
	}
	struct unnamed *u = VEC_PUSH(us->u, us->n, us->cap);
	*u = (struct unnamed){sec, off, size, how, (how & U_JUMP) ? from : -1};
}

static void unnamed_fde(void *arg, int sec, uint64_t off, uint64_t size)
{
	struct unnamed_set *us = arg;
	if (sec > 0 && (size_t)sec < us->c->o->nsecs)
		us->has_fde[sec] = true;
	unnamed_add(us, sec, off, size, U_FDE, -1);
}

/* An address code takes (not a branch's, not memory it reads or writes),
 * at instruction k of t. */
static void unnamed_addr(struct unnamed_set *us, const struct text *t, uint32_t k, int tsec, uint64_t toff)
{
	if (!code_used_as_base(us->c, t, k))
		unnamed_add(us, tsec, toff, 0, U_ADDR, -1);
}

static void unnamed_data_address(void *arg, int tsec, uint64_t toff)
{
	unnamed_add(arg, tsec, toff, 0, U_ADDR, -1);
}

static void unnamed_find(struct unnamed_set *us)
{
	struct code *c = us->c;
	struct object *o = c->o;
	ehframe_code_ranges(c, unnamed_fde, us);
	for (int ti = 0; ti < c->ntexts; ti++) {
		const struct text *t = &c->texts[ti];
		const struct section *s = &o->secs[t->sec];
		for (uint32_t k = 0; k < t->ninsns; k++) {
			const struct insn *in = &t->insns[k];
			int tsec;
			uint64_t toff;
			if (t->fn[k] < 0)
				continue;
			if ((in->kind == INSN_JMP || in->kind == INSN_JCC || in->kind == INSN_LOOP ||
			     in->kind == INSN_CALL) && code_branch_target(c, t, k, &tsec, &toff))
				unnamed_add(us, tsec, toff, 0, in->kind == INSN_CALL ? U_CALL : U_JUMP, t->fn[k]);
			else if (in->rip_rel && !in->mem_read && !in->mem_write &&
				 !reloc_find(c->o, t->sec, in->off + in->disp_off))
				unnamed_addr(us, t, k, t->sec,
					     in->off + in->len + (uint64_t)(int64_t)(int32_t)rd32(s->data + in->off + in->disp_off));
		}
		if (!s->rela)
			continue;
		const struct section *rs = &o->secs[s->rela];
		for (size_t i = 0; i < rs->nrelas; i++) {
			const struct rela *rl = &rs->relas[i];
			uint32_t k = text_insn_containing(t, rl->off);
			if (k == NO_INSN || t->fn[k] < 0 || !insn_rel_on_field(&t->insns[k], rl))
				continue;
			const struct insn *in = &t->insns[k];
			int tsec;
			uint64_t toff;
			bool branch = in->rel_size && rl->off == in->off + in->rel_off;
			bool mem = in->rip_rel && rl->off == in->off + in->disp_off && (in->mem_read || in->mem_write);
			if (!branch && !mem && code_rel_target(c, t->sec, rl, in->off + in->len, &tsec, &toff))
				unnamed_addr(us, t, k, tsec, toff);
		}
	}
	/* addresses in data: function pointers, tables of them; absolute
	 * addresses only: a relative one is a table's entry, relative to a
	 * base this round may not know */
	code_each_data_address(c, false, unnamed_data_address, us);
}

static int cmp_unnamed(const void *a, const void *b)
{
	const struct unnamed *x = a, *y = b;
	if (x->sec != y->sec)
		return x->sec - y->sec;
	return x->off < y->off ? -1 : x->off > y->off;
}

/* Give a symbol to each entry of code that has none; how many were given.
 * An address only (a pointer in data, a lea) is taken for an entry only
 * when nothing better is found, in a later round: the functions found
 * first claim the jump tables' targets inside them.  warn: give none, and
 * say what stays as it was. */
size_t code_find_unnamed(struct code *c, bool warn)
{
	struct object *o = c->o;
	struct unnamed_set us = {.c = c};
	us.has_fde = xcalloc(o->nsecs + 1, sizeof(bool));
	unnamed_find(&us);
	if (us.n)
		qsort(us.u, us.n, sizeof(*us.u), cmp_unnamed);
	bool strong = false;
	for (size_t i = 0; i < us.n; i++)
		strong |= (us.u[i].how & ~U_ADDR) != 0;
	size_t added = 0;
	for (size_t i = 0; i < us.n; i++) {
		struct unnamed *u = &us.u[i];
		const char *sname = o->secs[u->sec].name;
		if (strong && !(u->how & ~U_ADDR))
			continue;
		if (!(u->how & ~U_ADDR)) {
			/* an address only: code if what it reaches decodes and
			 * ends (a return, a jump), else data, as hand-written
			 * assembly keeps between its functions (a table, a
			 * constant): left as it is, unsaid.  Where FDEs
			 * describe the section's code, each function has one:
			 * an address without is of data. */
			if (us.has_fde[u->sec])
				continue;
			const struct text *t = &c->texts[text_index(c, u->sec)];
			uint64_t end = 0, last;
			gap_at(t, u->off, &end);
			if (i + 1 < us.n && us.u[i + 1].sec == u->sec && us.u[i + 1].off < end)
				end = us.u[i + 1].off;
			const char *why = "";
			bool fell = false;
			if (code_reach_extent(c, text_index(c, u->sec), u->off, end, &last, &why, NULL, NULL, &fell) ||
			    fell)
				continue;
		}
		/* only one function jumps there: its cold part if it jumps
		 * back into it, else a function it tail-calls */
		bool cold = false;
		if ((u->how & ~U_FDE) == U_JUMP && u->from >= 0) {
			const struct text *t = &c->texts[text_index(c, u->sec)];
			uint64_t end = 0, last;
			gap_at(t, u->off, &end);
			if (i + 1 < us.n && us.u[i + 1].sec == u->sec && us.u[i + 1].off < end)
				end = us.u[i + 1].off;
			if (u->size)
				end = u->off + u->size;
			const char *why = "";
			bool back = false;
			if (code_reach_extent(c, text_index(c, u->sec), u->off, end, &last, &why, &c->funcs[u->from],
					      &back, NULL)) {
				if (warn)
					pi_warn("%s: %s: %s+0x%llx: code without a symbol that %s jumps to, and its "
						"extent is not clear (%s); left as it was", o->name, sname, sname,
						(unsigned long long)u->off, c->funcs[u->from].name, why);
				continue;
			}
			cold = back;
			if (cold && !u->size)
				u->size = last - u->off;
		}
		if (warn)
			continue;
		char *name;
		if (cold) {
			/* a cold part of its function: joins it (code_find_functions) */
			const char *base = c->funcs[u->from].name;
			name = xasprintf("%s.cold", base);
			for (unsigned k = 1; k < 100000; k++) {
				bool taken = false;
				for (size_t j = 1; j < o->nsyms && !taken; j++)
					taken = !strcmp(o->syms[j].name, name);
				if (!taken)
					break;
				free(name);
				name = xasprintf("%s.cold.%u", base, k);
			}
		} else if (!strcmp(sname, ".text")) {
			name = xasprintf(UNNAMED_PREFIX "0x%llx", (unsigned long long)u->off);
		} else {
			name = xasprintf(UNNAMED_PREFIX "%s+0x%llx", sname, (unsigned long long)u->off);
		}
		/* what the FDE says; without one, up to the next function or
		 * entry, then what the entry reaches (infer_extent) */
		obj_add_symbol(o, name, u->off, u->size, ELF64_ST_INFO(STB_LOCAL, STT_FUNC), STV_DEFAULT,
			       (uint32_t)u->sec);
		free(name);
		added++;
	}
	free(us.u);
	free(us.has_fde);
	return added;
}

