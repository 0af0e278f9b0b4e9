/* SPDX-License-Identifier: MIT */
/*
 * The analysis of code (rewriter/cfg.c) on hand-written cases: each file
 * given is assembled, analysed as profinst would (code_analyse), and its
 * `# expect:` comments checked against what the analysis found for the
 * instruction on that line.  The words of an annotation:
 *
 *   leader             the instruction starts a block
 *   tail               it is a jump that leaves its function (a tail call)
 *   resync             control reaches it without a call or a return
 *                      (setjmp's second return, a landing pad): the
 *                      shadow stack catches up there
 *   flags-live F...    the status flags F (CF PF AF ZF SF OF) are live
 *                      where its block starts: a block stub there must
 *                      keep them
 *   loop               its block lies on a small loop (loops.h): costed
 *                      as repeated
 *   follows P          under --cache-sim, a load stub before it waits for
 *                      the loads of class P (chase.h)
 *   sets Q             ... and the loads of class Q wait for it; a class
 *                      is any name, the same name the same class, two
 *                      names two classes
 *   copied             it starts a function left as it was (no blocks)
 *   regs-live R...     the general registers R (rax ... r15) may be live
 *                      where its block starts, as --counts finds them
 *                      (reglive.h): a counting stub keeps them
 *   regs-dead R...     ... and these are not: a stub may use them
 *   count-of L         its block keeps no counter: its count is that of
 *                      the block starting on line L (derive.h)
 *   count-of L minus M ... that of the block on line L less that of the
 *                      block on line M (an arm of a branch)
 *   edge-to M          ... less that of the edge from its branch's block
 *                      to the block on line M, which its own counter
 *                      counts (with count-of L minus its own line)
 *   sum-of L...        its block keeps no counter: its count is the sum
 *                      of those of the blocks starting on these lines (a
 *                      join), in any order
 *   flow-of T...       its block keeps no counter: its count is the flow
 *                      into it (PI_MAP_LIN), terms in any order, each +L
 *                      or -L: the count of the block on line L added or
 *                      taken away; +~L, -~L: that block's own counter as
 *                      it is (an edge's)
 *   stepped R B S      its block's counter is kept by its loop's register
 *                      R (rax ... r15), B bits wide, stepped by S each
 *                      turn (stepcount.h): no stub inside the loop
 *
 * Checked both ways, in every instrumented function: an instruction
 * without `leader` does not start a block, a jump without `tail` does
 * not leave its function, one without `resync` is no resync point, one
 * without `follows` or `sets` has no load stub, and a leader without
 * `flags-live` has no flag live, without `loop` is on no small loop.  Lines are the assembler's (.debug_line of `as -g`).
 */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "instrument.h"
#include "loops.h"
#include "stub_abi.h"
#include "tap.h"
#include "unit_obj.h"

static const struct {
	const char *name;
	uint16_t bit;
} flag_names[] = {{"CF", 0x1}, {"PF", 0x4}, {"AF", 0x10}, {"ZF", 0x40}, {"SF", 0x80}, {"OF", 0x800}};

#define E_LEADER 1u
#define E_TAIL 2u
#define E_COPIED 4u
#define E_RESYNC 8u
#define E_LOOP 16u

#define MAX_CLASSES 16

#define MAX_SUM 8

static int cmp_unsigned(const void *a, const void *b)
{
	unsigned x = *(const unsigned *)a, y = *(const unsigned *)b;
	return x < y ? -1 : x > y;
}

/* A term of a flow (flow-of), as one number: its line, 100000 more for
 * a counter's, negative if taken away */
static int flow_term(unsigned line, bool minus, bool raw)
{
	int v = (int)line + (raw ? 100000 : 0);
	return minus ? -v : v;
}

static const char *flow_name(int v)
{
	static char buf[4][32];
	static int at;
	char *b = buf[at++ % 4];
	int a = v < 0 ? -v : v;
	snprintf(b, 32, "%c%s%d", v < 0 ? '-' : '+', a >= 100000 ? "~" : "", a % 100000);
	return b;
}

static int cmp_int(const void *a, const void *b)
{
	int x = *(const int *)a, y = *(const int *)b;
	return x < y ? -1 : x > y;
}

struct expect {
	unsigned what;   /* E_* */
	uint16_t live;   /* flags-live */
	uint16_t regs_live, regs_dead; /* regs-live, regs-dead */
	int follows, sets; /* classes by name (an index into the names), or -1 */
	unsigned count_of; /* count-of: a line, or 0 */
	unsigned minus;    /* ... minus: a line, or 0 */
	unsigned edge_to;  /* edge-to: a line, or 0 */
	unsigned sum_of[MAX_SUM]; /* sum-of: lines, ascending; 0 after the last */
	int flow_of[PI_LIN_MAX];  /* flow-of: terms (flow_term), ascending; 0 after the last */
	int stepped_reg;  /* stepped: the register, its width (0: not stepped), its step */
	unsigned stepped_bits;
	int stepped_by;
	bool seen;       /* an instruction is on its line */
};

/* Load classes by the names annotations give them, and the classes
 * chase.c numbered them with. */
struct classes {
	char *name[MAX_CLASSES];
	uint32_t id[MAX_CLASSES]; /* 0: not seen yet */
	int n;
};

static int class_named(struct classes *cl, const char *name)
{
	for (int i = 0; i < cl->n; i++)
		if (!strcmp(cl->name[i], name))
			return i;
	if (cl->n == MAX_CLASSES)
		return -1;
	cl->name[cl->n] = xstrdup(name);
	cl->id[cl->n] = 0;
	return cl->n++;
}

/* Whether chase.c's class id is the one the name i stands for: the first
 * time, it becomes so, if no other name has it. */
static bool class_is(struct classes *cl, int i, uint32_t id)
{
	if (i < 0)
		return id == 0;
	if (!id)
		return false;
	if (!cl->id[i]) {
		for (int j = 0; j < cl->n; j++)
			if (cl->id[j] == id)
				return false;
		cl->id[i] = id;
	}
	return cl->id[i] == id;
}

/* The annotations of src by line: lines[n] for n < *nlines. */
static const char *const reg_names[16] = {"rax", "rcx", "rdx", "rbx", "rsp", "rbp", "rsi", "rdi",
					  "r8",  "r9",  "r10", "r11", "r12", "r13", "r14", "r15"};

static int reg_named(const char *w)
{
	for (int i = 0; i < 16; i++)
		if (!strcmp(w, reg_names[i]))
			return i;
	return -1;
}

static struct expect *read_expects(const char *src, struct classes *cl, size_t *nlines, unsigned *count)
{
	FILE *f = fopen(src, "r");
	if (!f) {
		perror(src);
		return NULL;
	}
	struct expect *e = NULL;
	size_t n = 0, cap = 0;
	char line[512];
	const char *bad = NULL;
	*count = 0;
	while (fgets(line, sizeof line, f)) {
		grow(&e, &cap, ++n, sizeof *e);
		struct expect *x = &e[n - 1];
		memset(x, 0, sizeof *x);
		x->follows = x->sets = -1;
		char *a = strstr(line, "# expect:");
		if (!a)
			continue;
		(*count)++;
		bool in_flags = false;
		uint16_t *in_regs = NULL;
		for (char *w = strtok(a + 9, " \t\n"); w; w = strtok(NULL, " \t\n")) {
			size_t i;
			int r = reg_named(w);
			if (in_regs && r >= 0) {
				*in_regs |= (uint16_t)(1u << r);
				continue;
			}
			in_regs = NULL;
			for (i = 0; in_flags && i < sizeof flag_names / sizeof *flag_names; i++)
				if (!strcmp(w, flag_names[i].name))
					break;
			if (in_flags && i < sizeof flag_names / sizeof *flag_names) {
				x->live |= flag_names[i].bit;
			} else if (!strcmp(w, "leader")) {
				x->what |= E_LEADER;
			} else if (!strcmp(w, "tail")) {
				x->what |= E_TAIL;
			} else if (!strcmp(w, "follows") || !strcmp(w, "sets")) {
				char *name = strtok(NULL, " \t\n");
				int i = name ? class_named(cl, name) : -1;
				if (i < 0) {
					bad = w;
					goto what;
				}
				*(w[0] == 'f' ? &x->follows : &x->sets) = i;
			} else if (!strcmp(w, "edge-to")) {
				char *l = strtok(NULL, " \t\n");
				if (!l || !(x->edge_to = (unsigned)atoi(l)) || !x->minus) {
					bad = w;
					goto what;
				}
			} else if (!strcmp(w, "count-of") || !strcmp(w, "minus")) {
				char *l = strtok(NULL, " \t\n");
				unsigned v = l ? (unsigned)atoi(l) : 0;
				if (!v || (w[0] == 'm' && !x->count_of)) {
					bad = w;
					goto what;
				}
				*(w[0] == 'c' ? &x->count_of : &x->minus) = v;
			} else if (!strcmp(w, "flow-of")) {
				size_t k = 0;
				for (char *l; k < PI_LIN_MAX && (l = strtok(NULL, " \t\n")) && (l[0] == '+' || l[0] == '-');) {
					bool raw = l[1] == '~';
					x->flow_of[k++] = flow_term((unsigned)atoi(l + 1 + raw), l[0] == '-', raw);
				}
				if (k < 2) {
					bad = w;
					goto what;
				}
				qsort(x->flow_of, k, sizeof(int), cmp_int);
			} else if (!strcmp(w, "stepped")) {
				char *r = strtok(NULL, " \t\n"), *b = strtok(NULL, " \t\n"), *by = strtok(NULL, " \t\n");
				x->stepped_reg = r ? reg_named(r) : -1;
				x->stepped_bits = b ? (unsigned)atoi(b) : 0;
				x->stepped_by = by ? atoi(by) : 0;
				if (x->stepped_reg < 0 || (x->stepped_bits != 32 && x->stepped_bits != 64) || !x->stepped_by) {
					bad = w;
					goto what;
				}
			} else if (!strcmp(w, "sum-of")) {
				size_t k = 0;
				for (char *l; k < MAX_SUM && (l = strtok(NULL, " \t\n")) && atoi(l) > 0;)
					x->sum_of[k++] = (unsigned)atoi(l);
				if (k < 2) {
					bad = w;
					goto what;
				}
				qsort(x->sum_of, k, sizeof(unsigned), cmp_unsigned);
			} else if (!strcmp(w, "loop")) {
				x->what |= E_LOOP;
			} else if (!strcmp(w, "resync")) {
				x->what |= E_RESYNC;
			} else if (!strcmp(w, "copied")) {
				x->what |= E_COPIED;
			} else if (!strcmp(w, "flags-live")) {
				in_flags = true;
			} else if (!strcmp(w, "regs-live") || !strcmp(w, "regs-dead")) {
				in_regs = w[5] == 'l' ? &x->regs_live : &x->regs_dead;
				in_flags = false;
			} else {
				fprintf(stderr, "%s:%zu: unknown word in an annotation: %s\n", src, n, w);
				free(e);
				fclose(f);
				return NULL;
			}
		}
	}
	fclose(f);
	*nlines = n;
	return e;
what: /* an annotation's word without what it needs after it */
	fprintf(stderr, "%s:%zu: %s what?\n", src, n, bad);
	free(e);
	fclose(f);
	return NULL;
}

/* The source line of the instruction at off of section sec, or 0. */
static uint32_t line_of(const struct line_table *lt, int sec, uint64_t off)
{
	uint32_t line = 0;
	for (size_t i = 0; i < lt->n; i++)
		if (lt->rows[i].sec == sec && lt->rows[i].off == off && lt->rows[i].line)
			line = lt->rows[i].line;
	return line;
}

static void flags_str(uint16_t live, char *out, size_t n)
{
	out[0] = 0;
	for (size_t i = 0; i < sizeof flag_names / sizeof *flag_names; i++)
		if (live & flag_names[i].bit)
			snprintf(out + strlen(out), n - strlen(out), " %s", flag_names[i].name);
	if (!out[0])
		snprintf(out, n, " none");
}

/* The line where block b - 1 starts (b 0: none, 0). */
static uint32_t block_line(const struct code *c, uint32_t b)
{
	if (!b)
		return 0;
	const struct block *bl = &c->blocks[b - 1];
	return line_of(&c->lines, c->texts[bl->ts].sec, c->texts[bl->ts].insns[bl->first].off);
}

/* Every instruction of c's functions against the annotations: the
 * number of mismatches, each said on stderr. */
static int check_code(const char *src, const struct code *c, struct expect *e, size_t nlines,
		      struct classes *cl)
{
	int bad = 0;
	bool *looped = xcalloc(c->nblocks + 1, sizeof(bool));
	int *fbad = xcalloc(c->nfuncs + 1, sizeof(int)); /* each function's failures */
	struct loops lp;
	loops_init(&lp, c);
	loops_mark_small(c, &lp, looped);
	loops_free(&lp);
	/* a function copied as it was is not decoded: its entry's line says */
	for (size_t fi = 0; fi < c->nfuncs; fi++) {
		const struct func *f = &c->funcs[fi];
		uint32_t line = line_of(&c->lines, c->texts[f->pieces[0].ts].sec, f->pieces[0].start);
		if (!line || line > nlines)
			continue; /* said below, instruction by instruction */
		struct expect *x = &e[line - 1];
		if (f->instrument == !!(x->what & E_COPIED)) {
			fprintf(stderr, "%s:%u: %s %s copied as it was\n", src, line, f->name,
				f->instrument ? "is not" : "is");
			fbad[fi]++;
		}
		if (!f->instrument)
			x->seen = true;
	}
	for (int ti = 0; ti < c->ntexts; ti++) {
		const struct text *t = &c->texts[ti];
		for (uint32_t k = 0; k < t->ninsns; k++) {
			if (t->fn[k] < 0 || !c->funcs[t->fn[k]].instrument)
				continue;
			const struct func *f = &c->funcs[t->fn[k]];
			uint32_t line = line_of(&c->lines, t->sec, t->insns[k].off);
			if (!line || line > nlines) {
				fprintf(stderr, "%s: %s+%#llx: no line\n", src, f->name,
					(unsigned long long)t->insns[k].off);
				fbad[t->fn[k]]++;
				continue;
			}
			struct expect *x = &e[line - 1];
			x->seen = true;
			bool leader = (t->mark[k] & MARK_LEADER) != 0, tail = (t->mark[k] & MARK_TAIL) != 0;
			if (leader != !!(x->what & E_LEADER)) {
				fprintf(stderr, "%s:%u: %s a leader\n", src, line, leader ? "is" : "is not");
				fbad[t->fn[k]]++;
			}
			if (tail != !!(x->what & E_TAIL)) {
				fprintf(stderr, "%s:%u: %s a tail call\n", src, line, tail ? "is" : "is not");
				fbad[t->fn[k]]++;
			}
			bool resync = (t->mark[k] & MARK_RESYNC) != 0;
			if (resync != !!(x->what & E_RESYNC)) {
				fprintf(stderr, "%s:%u: %s a resync point\n", src, line, resync ? "is" : "is not");
				fbad[t->fn[k]]++;
			}
			uint32_t word = t->chase ? t->chase[k] : 0;
			if (!class_is(cl, x->follows, word >> STUB_LOAD_WAIT_SHIFT & STUB_LOAD_SLOT_MASK) ||
			    !class_is(cl, x->sets, word & STUB_LOAD_SLOT_MASK)) {
				fprintf(stderr, "%s:%u: load stub word %#x: waits for class %u, sets class %u, "
					"not as annotated\n", src, line, word, word >> STUB_LOAD_WAIT_SHIFT & STUB_LOAD_SLOT_MASK,
					word & STUB_LOAD_SLOT_MASK);
				fbad[t->fn[k]]++;
			}
			if (!leader) {
				if (x->live || (x->what & E_LOOP) || x->count_of || x->sum_of[0] || x->flow_of[0]) {
					fprintf(stderr, "%s:%u: flags-live, loop or count-of on an instruction that starts "
						"no block\n", src, line);
					fbad[t->fn[k]]++;
				}
				continue;
			}
			if (looped[t->block[k]] != !!(x->what & E_LOOP)) {
				fprintf(stderr, "%s:%u: %s a small loop\n", src, line,
					looped[t->block[k]] ? "on" : "not on");
				fbad[t->fn[k]]++;
			}
			const struct block *kb = &c->blocks[t->block[k]];
			uint32_t same_line = block_line(c, kb->same ? kb->same : kb->plus);
			uint32_t minus_line = block_line(c, kb->minus);
			if (same_line != x->count_of || minus_line != x->minus) {
				fprintf(stderr, "%s:%u: its count is line %u's less line %u's (0: its own, none), "
					"expected line %u's less line %u's\n", src, line, same_line, minus_line,
					x->count_of, x->minus);
				fbad[t->fn[k]]++;
			}
			if (block_line(c, kb->eto) != x->edge_to) {
				fprintf(stderr, "%s:%u: its counter counts the edge to line %u (0: none), expected %u's\n",
					src, line, block_line(c, kb->eto), x->edge_to);
				fbad[t->fn[k]]++;
			}
			unsigned sum_lines[MAX_SUM] = {0};
			int flow[PI_LIN_MAX] = {0};
			if (kb->sum && (c->sums[kb->sum - 1] & PI_LIN_GROUP)) {
				const uint32_t *g = c->sums + kb->sum - 1;
				uint32_t nt = g[0] & ~PI_LIN_GROUP;
				for (uint32_t j = 0; j < nt && j < PI_LIN_MAX; j++)
					flow[j] = flow_term(block_line(c, g[1 + j] & PI_LIN_BLOCK), g[1 + j] & PI_LIN_MINUS,
							    g[1 + j] & PI_LIN_RAW);
				qsort(flow, nt < PI_LIN_MAX ? nt : PI_LIN_MAX, sizeof(int), cmp_int);
			} else if (kb->sum) {
				const uint32_t *g = c->sums + kb->sum - 1;
				for (uint32_t j = 0; j < g[0] && j < MAX_SUM; j++)
					sum_lines[j] = block_line(c, g[1 + j]);
				qsort(sum_lines, g[0] < MAX_SUM ? g[0] : MAX_SUM, sizeof(unsigned), cmp_unsigned);
			}
			if (memcmp(flow, x->flow_of, sizeof(flow))) {
				fprintf(stderr, "%s:%u: its count is the flow", src, line);
				for (int j = 0; j < PI_LIN_MAX && flow[j]; j++)
					fprintf(stderr, " %s", flow_name(flow[j]));
				fprintf(stderr, "%s, expected", flow[0] ? "" : " (none)");
				for (int j = 0; j < PI_LIN_MAX && x->flow_of[j]; j++)
					fprintf(stderr, " %s", flow_name(x->flow_of[j]));
				fprintf(stderr, "%s\n", x->flow_of[0] ? "" : " (none)");
				fbad[t->fn[k]]++;
			}
			if (memcmp(sum_lines, x->sum_of, sizeof(sum_lines))) {
				fprintf(stderr, "%s:%u: its count is the sum of lines", src, line);
				for (int j = 0; j < MAX_SUM && sum_lines[j]; j++)
					fprintf(stderr, " %u", sum_lines[j]);
				fprintf(stderr, "%s, expected", sum_lines[0] ? "'s" : " (none)");
				for (int j = 0; j < MAX_SUM && x->sum_of[j]; j++)
					fprintf(stderr, " %u", x->sum_of[j]);
				fprintf(stderr, "%s\n", x->sum_of[0] ? "'s" : " (none)");
				fbad[t->fn[k]]++;
			}
			int sreg = -1, sby = 0;
			unsigned sbits = 0;
			if (kb->stepped) {
				const struct stepped *st = &c->stepped[kb->stepped - 1];
				sreg = st->reg, sbits = st->bits, sby = (st->down ? -1 : 1) * (1 << st->shift);
			}
			if (sbits != x->stepped_bits || (sbits && (sreg != x->stepped_reg || sby != x->stepped_by))) {
				fprintf(stderr, "%s:%u: its counter is kept by %s%s %u %d, expected %s%s %u %d\n", src, line,
					sbits ? "%" : "", sbits ? reg_names[sreg] : "no register", sbits, sby,
					x->stepped_bits ? "%" : "", x->stepped_bits ? reg_names[x->stepped_reg] : "no register",
					x->stepped_bits, x->stepped_by);
				fbad[t->fn[k]]++;
			}
			uint16_t gl = c->blocks[t->block[k]].gpr_live;
			for (int r = 0; r < 16; r++) {
				if ((x->regs_live >> r & 1) && !(gl >> r & 1)) {
					fprintf(stderr, "%s:%u: %%%s dead, expected live\n", src, line, reg_names[r]);
					fbad[t->fn[k]]++;
				}
				if ((x->regs_dead >> r & 1) && (gl >> r & 1)) {
					fprintf(stderr, "%s:%u: %%%s live, expected dead\n", src, line, reg_names[r]);
					fbad[t->fn[k]]++;
				}
			}
			uint16_t live = c->blocks[t->block[k]].live_in & FLAGS_STATUS;
			if (live != x->live) {
				char got[64], want[64];
				flags_str(live, got, sizeof got);
				flags_str(x->live, want, sizeof want);
				fprintf(stderr, "%s:%u: flags live:%s, expected:%s\n", src, line, got, want);
				fbad[t->fn[k]]++;
			}
		}
	}
	free(looped);
	/* a case a function, in the order of the file's symbols */
	const char *base = strrchr(src, '/') ? strrchr(src, '/') + 1 : src;
	for (size_t fi = 0; fi < c->nfuncs; fi++) {
		tap_case("%s: %s", base, c->funcs[fi].name);
		if (fbad[fi])
			tap_fail("%d of its annotations do not hold (above)", fbad[fi]);
		bad += fbad[fi];
	}
	free(fbad);
	tap_case("%s: every annotation on an instruction of a function", base);
	for (size_t i = 0; i < nlines; i++) {
		if ((e[i].what || e[i].live || e[i].follows >= 0 || e[i].sets >= 0) && !e[i].seen) {
			tap_fail("%s:%zu: an annotation on no instruction of a function", src, i + 1);
			bad++;
		}
	}
	return bad;
}

/* The timing model a case names on a line "# model: NAME" (the C library
 * functions a cycle model costs are calls of another kind), else the
 * instructions model. */
static const char *file_model(const char *src)
{
	static char name[64];
	snprintf(name, sizeof(name), "instructions");
	FILE *f = fopen(src, "r");
	char line[256];
	while (f && fgets(line, sizeof(line), f))
		if (sscanf(line, "# model: %63s", name) == 1)
			break;
	if (f)
		fclose(f);
	return name;
}

static int check_file(const char *src)
{
	size_t nlines;
	unsigned count;
	struct classes cl = {.n = 0};
	tap_case("%s: read, assembled and analysed", strrchr(src, '/') ? strrchr(src, '/') + 1 : src);
	struct expect *e = read_expects(src, &cl, &nlines, &count);
	if (!e) {
		tap_fail("%s: cannot read it", src);
		return 1;
	}
	if (!count) {
		tap_fail("%s: no annotations", src);
		free(e);
		return 1;
	}
	struct object o;
	struct code c;
	int bad = 1;
	if (!unit_object(src, &o)) {
		/* --cache-sim's analysis too (chase.c) */
		/* and --counts' (reglive.c) */
		/* linked as a program: the functions it does not define are
		 * the C library's (not profinst -c's may-be-instrumented) */
		static const struct nameset none;
		struct rewrite_opts ro = {.model = model_find(file_model(src)), .cache_sim = true, .counting = true,
					  .defined = &none};
		if (!ro.model)
			tap_fail("%s: no timing model %s", src, file_model(src));
		else if (!code_analyse(&c, &o, &ro))
			bad = check_code(src, &c, e, nlines, &cl);
		else
			tap_fail("%s: the analysis failed", src);
		code_free(&c);
	} else {
		tap_fail("%s: cannot assemble or read it", src);
	}
	obj_free(&o);
	free(e);
	for (int i = 0; i < cl.n; i++)
		free(cl.name[i]);
	if (!bad)
		printf("# %s: %u annotations hold\n", src, count);
	return bad;
}

int main(int argc, char **argv)
{
	if (argc < 2) {
		fprintf(stderr, "usage: test_cfg CASE.s...\n");
		return 2;
	}
	pi_quiet = true; /* functions copied as they were are expected here */
	for (int i = 1; i < argc; i++)
		check_file(argv[i]);
	return tap_done();
}
