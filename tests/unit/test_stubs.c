/* SPDX-License-Identifier: MIT */
/*
 * Every stub the rewriter emits, decoded back: an object holding one of
 * each kind of site (unit/stubs/sites.s) is rewritten in-process with
 * --branch-sim and --cache-sim, its new code disassembled with the x86
 * layer, each relocation named by its symbol, and each stub compared,
 * instruction by instruction, with what runtime/stub_abi.h says it is.
 * Every stub must be found as many times as the object has sites for it
 * (under zen5, which costs strlen and free itself).
 * `test_stubs --list FILE` prints the disassembly.
 */
#include <regex.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "addrmap.h"
#include "instrument.h"
#include "stub_abi.h"
#include "tap.h"
#include "unit_obj.h"

/* One line per instruction of the new code: its AT&T text, then
 * " <SYMBOL>" for a relocation in its bytes. */
struct listing {
	char **line;
	size_t n, cap;
};

static void list_text(const struct code *c, const struct text *t, struct listing *l)
{
	const struct object *o = c->o;
	const struct section *s = &o->secs[t->sec];
	const struct section *rs = s->rela ? &o->secs[s->rela] : NULL;
	for (uint64_t off = 0; off < s->size;) {
		struct insn in;
		char text[160];
		if (!insn_decode(&c->dx, s->data + off, s->size - off, off, &in)) {
			snprintf(text, sizeof text, "(bad)");
			in.len = 1;
		} else {
			insn_format(&c->dx, s->data + off, in.len, off, text, sizeof text);
		}
		for (size_t i = 0; rs && i < rs->nrelas; i++) {
			const struct rela *r = &rs->relas[i];
			if (r->off >= off && r->off < off + in.len) {
				const struct symbol *y = &o->syms[r->sym];
				const char *name = y->name && *y->name ? y->name : o->secs[y->shndx].name;
				/* a PC-relative field's -4 is its distance from
				 * the instruction's end: not shown */
				if (r->addend && r->addend != -4)
					snprintf(text + strlen(text), sizeof text - strlen(text), " <%s%+lld>", name,
						 (long long)r->addend);
				else
					snprintf(text + strlen(text), sizeof text - strlen(text), " <%s>", name);
			}
		}
		grow(&l->line, &l->cap, ++l->n, sizeof *l->line);
		l->line[l->n - 1] = xstrdup(text);
		off += in.len;
	}
}

/* A stub as stub_abi.h gives it: its instructions, as extended regular
 * expressions over the listing's lines (Zydis' AT&T: an address
 * RIP-relative code names is printed as the address), in order. */
struct stub {
	const char *name;
	unsigned want; /* sites in unit/stubs/sites.s */
	const char *insn[24];
};

#define XSTR(x) #x
#define STR(x) XSTR(x)
#define SYM(s) "<" s ">$"
#define CALL(s) "^call 0x[0-9A-F]+ " SYM(s)
#define FUNCREC "^lea 0x[0-9A-F]+, %r11 <profinst_funcs[-+0-9]*>$"
#define TPOFF "<[^>]+>$" /* a counter of the object's, by its TLS offset */
#define RED_DOWN "^lea -0x80\\(%rsp\\), %rsp$"
#define RED_UP "^lea 0x80\\(%rsp\\), %rsp$"
/* -STUB_ENTRY_SIG as a 32-bit immediate, as the formatter prints it */
#define SIG "-0x72B3ACBF"
_Static_assert((uint32_t)-0x72B3ACBF == STUB_ENTRY_SIG, "the signature the pattern names");

/* the kinds, by where check_words finds their words */
enum { S_ENTRY, S_BLOCK, S_EXIT, S_TAIL, S_TAIL_PTR, S_JZ, S_JNZ, S_LOAD1, S_LOAD2, S_EXT, S_ICALL, S_REP, S_SYSCALL, S_FLUSH, S_RESYNC,
       S_ENTRY_FLAGS, S_BLOCK_FLAGS, S_EXT_FIXED, S_EXT_TAIL_FIXED, S_EXT_TAIL, S_COUNT };

static const struct stub stubs[S_COUNT] = {
	/* leaf, other, outside */
	[S_ENTRY] = {"entry", 3, {"^push %r11$", FUNCREC, CALL(STUB_ENTER_SYMBOL), "^pop %r11$"}},
	/* every block: its cost to the clock (or a part of it), one to its count */
	[S_BLOCK] = {"block", 16, {"^addq \\$0x[0-9A-F]+, %fs:0x0+ <" STUB_TLS_SYMBOL "(\\+[0-9]+)?>$", "^addq \\$0x01, %fs:0x0+ " TPOFF}},
	/* the rets of leaf, keeps_flags, and outside's tail calls made calls */
	[S_EXIT] = {"exit", 4, {CALL(STUB_EXIT_SYMBOL), "^ret$"}},
	/* leaf's jmp other: the target pushed ([push target]: %r11 kept, the
	 * target stored above it), then as stub_abi.h says */
	[S_TAIL] = {"tail", 1,
	 {"^lea -0x08\\(%rsp\\), %rsp$", "^push %r11$", "^lea 0x[0-9A-F]+, %r11$", "^mov %r11, 0x08\\(%rsp\\)$", FUNCREC,
	  CALL(STUB_TAILEXIT_SYMBOL), "^pop %r11$", "^lea 0x08\\(%rsp\\), %rsp$", "^jmp 0x[0-9A-F]+$"}},
	/* other's jmp *%rax: through the slot the helper fills */
	[S_TAIL_PTR] = {"tail through a pointer", 1,
	 {"^push %rax$", "^push %r11$", FUNCREC, CALL(STUB_TAILEXIT_SYMBOL), "^pop %r11$", "^pop %r11$", "^jmp %r11$"}},
	/* je (two) and jne, each with the setCC of its own condition */
	[S_JZ] = {"branch on zero", 2,
	 {RED_DOWN, "^push %r11$", "^push \\$0x00 " TPOFF, "^mov \\$-?0x[0-9A-F]+, %r11$", "^setz %r11b$",
	  CALL(STUB_BRANCH_SYMBOL), "^lea 0x08\\(%rsp\\), %rsp$", "^pop %r11$", RED_UP, "^jz "}},
	[S_JNZ] = {"branch on not zero", 1,
	 {RED_DOWN, "^push %r11$", "^push \\$0x00 " TPOFF, "^mov \\$-?0x[0-9A-F]+, %r11$", "^setnz %r11b$",
	  CALL(STUB_BRANCH_SYMBOL), "^lea 0x08\\(%rsp\\), %rsp$", "^pop %r11$", RED_UP, "^jnz "}},
	/* leaf's two loads: the first one the second waits for, each with
	 * ADDR its own memory operand */
	[S_LOAD1] = {"load (%rdi)", 1,
	 {RED_DOWN, "^push %r11$", "^lea \\(%rdi\\), %r11$", "^push \\$-?0x[0-9A-F]+$", "^push \\$0x00 " TPOFF,
	  CALL(STUB_LOAD_SYMBOL), "^lea 0x10\\(%rsp\\), %rsp$", "^pop %r11$", RED_UP, "^mov \\(%rdi\\), %rax$"}},
	[S_LOAD2] = {"load (%rax)", 1,
	 {RED_DOWN, "^push %r11$", "^lea \\(%rax\\), %r11$", "^push \\$-?0x[0-9A-F]+$", "^push \\$0x00 " TPOFF,
	  CALL(STUB_LOAD_SYMBOL), "^lea 0x10\\(%rsp\\), %rsp$", "^pop %r11$", RED_UP, "^mov \\(%rax\\), %rax$"}},
	/* call puts: out of the object (as with profinst -c) */
	[S_EXT] = {"external call", 1,
	 {FUNCREC, CALL(STUB_EXT_ENTER_SYMBOL), CALL("puts"), CALL(STUB_EXT_EXIT_SYMBOL)}},
	/* call *%rbx */
	[S_ICALL] = {"indirect call", 1,
	 {"^mov %rbx, %r11$", "^cmpl \\$" SIG ", 0x04\\(%r11\\)$", "^jz ", "^cmpl \\$" SIG ", \\(%r11\\)$", "^jz ",
	  CALL(STUB_ICALL_SYMBOL), "^call %r11$"}},
	/* rep movsb: %rcx saved at repsave */
	[S_REP] = {"rep", 1,
	 {"^mov %rcx, %fs:0x0+ <" STUB_TLS_SYMBOL "\\+" STR(STUB_TLS_REPSAVE) ">$", "^rep movsb$", RED_DOWN,
	  "^push %r11$", "^mov \\$0x[0-9A-F]+, %r11d$", CALL(STUB_REP_SYMBOL), "^pop %r11$", RED_UP}},
	[S_SYSCALL] = {"syscall", 1,
	 {RED_DOWN, CALL(STUB_SYS_ENTER_SYMBOL), RED_UP, "^syscall$", RED_DOWN, CALL(STUB_SYS_EXIT_SYMBOL),
	  RED_UP}},
	/* before call _exit */
	[S_FLUSH] = {"flush", 1, {RED_DOWN, CALL(STUB_FLUSH_SYMBOL), RED_UP, CALL("_exit")}},
	/* after _setjmp returns */
	[S_RESYNC] = {"resync", 1, {CALL("_setjmp"), RED_DOWN, CALL(STUB_RESYNC_SYMBOL), RED_UP}},
	/* keeps_flags reads a flag it did not set */
	[S_ENTRY_FLAGS] = {"entry keeping flags", 1, {"^push %r11$", FUNCREC, CALL(STUB_ENTER_FLAGS_SYMBOL), "^pop %r11$"}},
	/* its three blocks, each with a flag live where it starts: the
	 * block stub between lahf; seto %al and add $0x7f,%al; sahf, below
	 * the red zone */
	[S_BLOCK_FLAGS] = {"block keeping flags", 3,
	 {RED_DOWN, "^push %rax$", "^lahf$", "^seto %al$", "^addq \\$0x[0-9A-F]+, %fs:0x0+ <" STUB_TLS_SYMBOL,
	  "^addq \\$0x01, %fs:0x0+ " TPOFF, "^add \\$0x7F, %al$", "^sahf$", "^pop %rax$", RED_UP}},
	/* call strlen: a cost the model fixes, charged at the exit */
	[S_EXT_FIXED] = {"external call the model costs", 1,
	 {FUNCREC, CALL(STUB_EXT_ENTER_SYMBOL), CALL("strlen"), CALL(STUB_EXT_EXIT_FIXED_SYMBOL)}},
	/* jmp free: a call from a frame that keeps %rsp aligned (free has
	 * no stack arguments), then the exit stub and a return */
	[S_EXT_TAIL_FIXED] = {"external tail call the model costs", 1,
	 {"^lea -0x08\\(%rsp\\), %rsp$", FUNCREC, CALL(STUB_EXT_ENTER_SYMBOL), CALL("free"),
	  CALL(STUB_EXT_EXIT_FIXED_SYMBOL), "^lea 0x08\\(%rsp\\), %rsp$", CALL(STUB_EXIT_SYMBOL), "^ret$"}},
	/* jmp qsort: a call, the eight words above the return address
	 * copied below it (the stack arguments qsort would see), then the
	 * exit stub and a return */
	[S_EXT_TAIL] = {"external tail call", 1,
	 {"^lea -0x48\\(%rsp\\), %rsp$", "^mov 0x50\\(%rsp\\), %r11$", "^mov %r11, \\(%rsp\\)$",
	  "^mov 0x58\\(%rsp\\), %r11$", "^mov %r11, 0x08\\(%rsp\\)$", "^mov 0x60\\(%rsp\\), %r11$",
	  "^mov %r11, 0x10\\(%rsp\\)$", "^mov 0x68\\(%rsp\\), %r11$", "^mov %r11, 0x18\\(%rsp\\)$",
	  "^mov 0x70\\(%rsp\\), %r11$", "^mov %r11, 0x20\\(%rsp\\)$", "^mov 0x78\\(%rsp\\), %r11$",
	  "^mov %r11, 0x28\\(%rsp\\)$", "^mov 0x80\\(%rsp\\), %r11$", "^mov %r11, 0x30\\(%rsp\\)$",
	  "^mov 0x88\\(%rsp\\), %r11$", "^mov %r11, 0x38\\(%rsp\\)$", FUNCREC, CALL(STUB_EXT_ENTER_SYMBOL),
	  CALL("qsort"), CALL(STUB_EXT_EXIT_SYMBOL), "^lea 0x48\\(%rsp\\), %rsp$", CALL(STUB_EXIT_SYMBOL),
	  "^ret$"}},
};

static bool match(const char *re, const char *line)
{
	regex_t r;
	if (regcomp(&r, re, REG_EXTENDED | REG_NOSUB)) {
		fprintf(stderr, "test_stubs: bad pattern %s\n", re);
		exit(2);
	}
	bool ok = !regexec(&r, line, 0, NULL, 0);
	regfree(&r);
	return ok;
}

/* Where the stub's instructions follow one another in l: how many times,
 * the line each begins at in at[] (up to 16). */
static unsigned find_stub(const struct stub *s, const struct listing *l, size_t at[16])
{
	size_t n = 0;
	while (n < sizeof s->insn / sizeof *s->insn && s->insn[n])
		n++;
	unsigned found = 0;
	for (size_t i = 0; i + n <= l->n; i++) {
		size_t j = 0;
		while (j < n && match(s->insn[j], l->line[i + j]))
			j++;
		if (j == n && found < 16)
			at[found] = i;
		found += j == n;
	}
	return found;
}

/* The immediate of a line ("push $-0x1F", "mov $0x10, %r11"), or 0. */
static uint64_t imm(const char *line)
{
	const char *p = strchr(line, '$');
	return p ? (uint64_t)strtoll(p + 1, NULL, 0) : 0;
}

/* The addend a line's relocation shows (<sym+N>), or 0. */
static int64_t addend(const char *line)
{
	const char *p = strrchr(line, '<');
	const char *q = p ? strpbrk(p, "+-") : NULL;
	return q ? strtoll(q, NULL, 10) : 0;
}

/* What the stubs' immediates and offsets must hold, beyond their form. */
static int check_words(const char *src, const struct code *c, const struct listing *l, size_t at[][16])
{
	int bad = 0;
	/* block i adds to the clock's part i % 4 (STUB_TLS_CLOCKPART) and
	 * to its own count, the next word of the object's counters */
	tap_case("block stubs: each block's clock part and count");
	for (unsigned i = 0; i < stubs[S_BLOCK].want; i++) {
		int64_t part = addend(l->line[at[S_BLOCK][i]]), count = addend(l->line[at[S_BLOCK][i] + 1]);
		int64_t want = i % STUB_CLOCK_PARTS ? STUB_TLS_CLOCKPART + 8 * (int64_t)(i % STUB_CLOCK_PARTS - 1) : 0;
		if (part != want || count - addend(l->line[at[S_BLOCK][0] + 1]) != 8 * (int64_t)i) {
			tap_fail("%s: block %u adds to %%fs:clock%+lld and count %+lld", src, i, (long long)part,
				 (long long)count);
			bad++;
		}
	}
	/* a branch's word: the model's mispredict cost, no outcome (setCC
	 * writes it), not an external's result here */
	for (int b = S_JZ; b <= S_JNZ; b++) {
		tap_case("%s stub: its word holds the model's mispredict cost", stubs[b].name);
		uint64_t w = imm(l->line[at[b][0] + 3]);
		uint64_t cost = (w >> STUB_BRANCH_COST_SHIFT) & STUB_BRANCH_COST_MAX;
		uint64_t want = c->model->mispredict < STUB_BRANCH_COST_MAX ? c->model->mispredict : STUB_BRANCH_COST_MAX;
		if ((w & 0xff) || cost != want || !want || (w & STUB_BRANCH_EXT_RESULT)) {
			tap_fail("%s: %s: word %#llx, cost %llu, want %llu", src, stubs[b].name,
				 (unsigned long long)w, (unsigned long long)cost, (unsigned long long)want);
			bad++;
		}
	}
	/* the second load waits for the slot the first one completes */
	uint64_t w1 = imm(l->line[at[S_LOAD1][0] + 3]), w2 = imm(l->line[at[S_LOAD2][0] + 3]);
	uint64_t done1 = w1 & STUB_LOAD_SLOT_MASK, wait1 = w1 >> STUB_LOAD_WAIT_SHIFT & STUB_LOAD_SLOT_MASK;
	uint64_t wait2 = w2 >> STUB_LOAD_WAIT_SHIFT & STUB_LOAD_SLOT_MASK;
	tap_case("load stubs: the second load waits for the slot the first completes");
	if (!done1 || wait1 || wait2 != done1) {
		tap_fail("%s: loads' words %#llx, %#llx: the second does not wait for the first", src,
			 (unsigned long long)w1, (unsigned long long)w2);
		bad++;
	}
	return bad;
}

int main(int argc, char **argv)
{
	bool list = argc == 3 && !strcmp(argv[1], "--list");
	if (argc != 2 && !list) {
		fprintf(stderr, "usage: test_stubs [--list] sites.s\n");
		return 2;
	}
	const char *src = argv[argc - 1];
	struct object o;
	struct code c;
	int failures = 0;
	if (!list)
		tap_case("%s: assembled, analysed and rewritten under --branch-sim --cache-sim", src);
	if (unit_object(src, &o)) {
		obj_free(&o);
		if (!list)
			tap_fail("cannot assemble or read it");
		return list ? 1 : tap_done();
	}
	struct rewrite_opts ro = {.model = model_find("zen5"), .branch_sim = true, .cache_sim = true};
	struct listing l = {0};
	if (code_analyse(&c, &o, &ro)) {
		failures++;
	} else {
		struct addrmap map;
		if (code_rewrite(&c, &map)) {
			failures++;
		} else {
			for (int ti = 0; ti < c.ntexts; ti++)
				list_text(&c, &c.texts[ti], &l);
		}
		addrmap_free(&map);
	}
	if (list)
		for (size_t i = 0; i < l.n; i++)
			puts(l.line[i]);
	size_t at[sizeof stubs / sizeof *stubs][16];
	bool analysed = !failures;
	if (!list && !analysed)
		tap_fail("the analysis or the rewrite failed");
	for (size_t i = 0; !list && analysed && i < sizeof stubs / sizeof *stubs; i++) {
		tap_case("the %s stub as stub_abi.h gives it, at each of its %u sites", stubs[i].name, stubs[i].want);
		unsigned got = find_stub(&stubs[i], &l, at[i]);
		if (got != stubs[i].want) {
			tap_fail("%s: %u found, %u sites", src, got, stubs[i].want);
			failures++;
		}
	}
	if (!list && !failures)
		failures += check_words(src, &c, &l, at);
	for (size_t i = 0; i < l.n; i++)
		free(l.line[i]);
	free(l.line);
	code_free(&c);
	obj_free(&o);
	return list ? failures != 0 : tap_done();
}
