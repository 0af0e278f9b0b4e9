/* SPDX-License-Identifier: MIT */
/*
 * Code analysis of one object: its executable sections decoded into
 * instructions, its functions (a function is an entry piece plus its
 * foo.cold pieces), basic blocks, and which status flags are live where a
 * stub goes.  Where the new layout puts them is apart (addrmap.h).
 */
#ifndef PI_CFG_H
#define PI_CFG_H

#include <stdbool.h>
#include <stdint.h>

#include "decode.h"
#include "external.h"
#include "dwarfinfo.h"
#include "dwarfline.h"
#include "format.h"
#include "insndesc.h"
#include "model.h"
#include "objfile.h"
#include "reloc.h"
#include "util.h"

#define NO_INSN UINT32_MAX

struct piece {
	int ts;          /* index into code.texts */
	uint64_t start;  /* original offsets [start, end) */
	uint64_t end;
};

struct func {
	char *name;
	int sym;            /* primary symbol */
	struct piece pieces[PI_MAX_PIECES];
	int npieces;
	bool instrument;    /* false: copied as it was */
	bool has_ind_targets; /* jump tables / computed goto inside */
	int group;          /* COMDAT group section, or 0 */
	uint32_t first_block, nblocks;
	uint32_t first_site, nsites;
	uint32_t nslots_counting; /* --counts: sites, then direct tail jumps */
	bool resyncs;       /* --counts: holds a resync point (setjmp's return, a landing pad) */
	uint16_t reads;     /* --counts: the general registers its entry reads
			       for itself, not what its callers keep through
			       it (reglive.h) */
	bool no_calls;      /* --counts: calls nothing (code_find_no_calls):
			       nothing in it reads its frame's node */
	uint16_t writes;    /* --counts: the scratch registers its entry
			       block writes whole before reading them, so
			       that it returns with its own values in them
			       (reglive.h: call_clobbers) */
	uint32_t ninsns;
	int rec_sec;        /* section of its pi_funcrec */
	uint64_t rec_off;
	bool warned;
	bool inferred;      /* no type or size: its extent was inferred */
	/* data found inside the function (a table after its code, bytes
	 * nothing reaches): where, and how it shows; it is then copied as it
	 * was (code_analyse) */
	const char *data_why;
	int data_ts;
	uint64_t data_off;
};

struct block {
	uint32_t fn;
	int ts;
	uint32_t first, n;  /* instruction indices in the text section */
	uint32_t cost;
	uint32_t ret_excess; /* a block ending in ret: what the return costs
				beyond cost, charged after the exit stub, to
				the caller (BLOCK_RET_AT_CALLER) */
	uint16_t live_in;   /* status flags live at the block's start, and
			       LIVE_R11 (--counts: reglive.h) */
	uint16_t gpr_live;  /* --counts: general registers maybe live there */
	uint8_t preds;      /* --counts: ways in from its own function, 2 for two
			       or more or not known (code_count_preds) */
	uint8_t edges;      /* --counts: the edges into it that its function's
			       blocks show, 2 for two or more: what preds is
			       before an unknown way in makes it 2 (a block
			       that is no jump's target but by its address,
			       MARK_ADDR, is entered only by these) */
	uint32_t same;      /* --counts: the block whose count this one's is,
			       + 1, or 0 (derive.h) */
	uint32_t plus, minus; /* --counts: the blocks whose counts' difference
			       is this one's, + 1, or 0 (derive.h) */
	uint32_t efrom, eto;  /* --counts: with minus this block itself, the
			       edge its counter counts: from its branch's
			       block to the other arm, + 1 each (derive.h) */
	uint32_t sum;       /* --counts: where code.sums lists the blocks whose
			       counts' sum is this one's, + 1, or 0 (derive.h) */
	uint32_t stepped;   /* --counts: the code.stepped entry that keeps its
			       counter, + 1, or 0 (stepcount.h) */
};

/* --counts: a block's counter kept by its loop's register (stepcount.h) */
struct stepped {
	uint32_t block;     /* the block */
	uint32_t keep;      /* the block whose counter slot keeps the register
			       as the loop was entered (a derived block's, which
			       no count reads) */
	uint8_t reg;        /* the register (REGN_GPR) */
	uint8_t bits;       /* its width: 32 or 64 */
	uint8_t shift;      /* it steps by 1 << shift */
	bool down;          /* ... down */
};

/* --counts: an edge into or out of a loop whose register keeps a counter */
struct stepped_edge {
	uint32_t from, to;  /* blocks */
	uint32_t stepped;   /* its code.stepped entry */
	bool in;            /* into the loop: the register kept; out of it:
			       the turns added */
	int32_t add;        /* out: the runs of the block the way out has seen
			       beyond the steps taken */
};

/* One executable section. */
struct text {
	int sec;
	struct insn *insns;
	uint32_t ninsns;
	uint32_t *at;       /* [size+1]: instruction index starting at offset, or NO_INSN */
	int32_t *fn;        /* per instruction: function index or -1 */
	uint16_t *mark;     /* per instruction: MARK_* */
	int32_t *inner_sym; /* --counts: per call to another object's function, the
			       symbol past its entry stub (NAME.pi_inner), or -1 */
	uint16_t *live_after; /* --counts: per call, the general registers live
			       after it (bit n: register n), and at the last
			       instruction of each block (reglive.h) */
	uint8_t *set_up;    /* --counts: per call and jump through a pointer,
			       CHAIN_R10 and CHAIN_RAX where %r10, %rax may
			       have been written for it (reglive.h) */
	uint32_t *cslot;    /* --counts: per instruction, the call slot of a call
			       or direct tail jump (UINT32_MAX: none) */
	int32_t *cfa;       /* --counts: per call site or direct tail jump, where
			       its frame's CFA is, by the unwind table: > 0:
			       %rsp + cfa; < 0: %rbp - cfa; 0: not known */
	uint32_t *ext;      /* per instruction: the external a MARK_EXT call calls
			       (external.c), or NULL if the text calls none */
	uint32_t *block;    /* per instruction: block index (instrumented funcs) */
	uint64_t size;      /* original size */
	/* verbatim ranges: functions left as they were, and the gaps between
	 * functions (padding, or data such as asm constant tables) */
	struct vrange { uint64_t start, end; bool gap; } *vr;
	size_t nvr, vrcap;
	bool *rel_at;       /* per instruction: a relocation covers part of it */
	uint32_t *chase;    /* per instruction, under --cache-sim: the word of a
			       load stub before it, or 0 (chase.h); or NULL */
};

/* block.live_in: %r11, which gcc keeps across calls to functions of its
 * own unit that leave it alone (--counts: a stub may use it where not) */
#define LIVE_R11 0x8000u

#define MARK_LEADER   0x01
#define MARK_FSTART   0x02 /* first instruction of a function's entry piece */
#define MARK_ADDR     0x04 /* address taken by data or code (jump table, label) */
#define MARK_PSTART   0x08 /* first instruction of any piece */
#define MARK_TAIL     0x10 /* a jump that leaves the function (tail call) */
#define MARK_RESYNC   0x20 /* reached without call or return: setjmp's return, landing pad */
#define MARK_NOCOST   0x40 /* gone after linking: the call of a TLS local-dynamic pair */
#define MARK_FLUSH    0x80 /* a call or jump ending the process image (_exit, exec) */
#define MARK_EXT      0x100 /* a call leaving instrumented code, or a syscall: timed */
#define MARK_ENTERED  0x200 /* a jump from another function lands here (not its entry) */
#define MARK_CODEADDR 0x400 /* with MARK_ADDR: code takes the address (a lea), not only data (a jump
			     table's entry, a label's in a table of them) */

struct site {
	uint32_t fn, piece, block;
	int ts;
	uint64_t orig_off;
};

/* What the rewrite is told beyond the object itself. */
struct rewrite_opts {
	const struct cpu_model *model;
	struct model_stats *mstats;      /* or NULL */
	const struct nameset *defined;   /* functions the link's inputs define; NULL with -c */
	const struct nameset *left;      /* --counts: of those, the ones left as they
					    were (external to their callers) */
	const struct nameset *shared;    /* functions the instrumented shared objects
					    the link names define (external,
					    instrumented there) */
	bool charge_waits;               /* --charge-waits */
	bool branch_sim;                 /* --branch-sim: a stub before each jcc
					    (the model has a mispredict cost) */
	bool cache_sim;                  /* --cache-sim: a stub before each load
					    that waits for a load (chase.h; the
					    model has caches) */
	bool no_page_faults;             /* --no-page-faults: the runtime does
					    not charge them */
	bool counting;                   /* --counts: runtime/counting.c's stubs */
	bool pic;                        /* -shared: stubs a shared object can hold
					    (no TLS offset or runtime address
					    fixed at link time) */
	struct insn_descs *descs;        /* the instructions described so far,
					    shared by the objects of a run; NULL:
					    each analysis keeps its own */
};

/* A function outside instrumented code that the object calls. */
struct external {
	char *name;
	uint32_t flags;    /* PI_EXT_* */
	struct ext_cost cost; /* PI_EXT_FIXED: the model's cost of a call */
	uint32_t map_index; /* its pi_map_func: after the object's functions */
	uint64_t name_off;  /* its name's place in code.extnames_sec */
	int rec_sec;
	uint64_t rec_off;
};

struct code {
	struct object *o;
	struct x86_decoder dx; /* what every pass decodes o's code with */
	struct insn_descs *descs; /* the texts' instructions described (insn.desc):
				     the run's (rewrite_opts), or own_descs */
	struct insn_descs *own_descs;
	const struct cpu_model *model;
	struct model_stats *mstats; /* or NULL */
	const struct rewrite_opts *opts;
	struct external *exts;
	size_t nexts, extcap;
	struct text *texts;
	int ntexts;
	int *text_of_sec;   /* [nsecs at analysis] -> text index or -1: use text_index() */
	size_t nsecs0;
	struct func *funcs;
	size_t nfuncs, funccap;
	struct block *blocks;
	size_t nblocks, blockcap;
	uint32_t *sums;     /* --counts: groups of a count, then that many
			       blocks (+ 1) whose counts add up to a block's
			       (block.sum) */
	size_t nsums, sumcap;
	struct stepped *stepped; /* --counts: stepcount.h */
	size_t nstepped, steppedcap;
	struct stepped_edge *stepped_edges;
	size_t nstepped_edges, stepped_edgecap;
	struct site *sites;
	size_t nsites, sitecap;
	/* per symbol: function whose entry it names, or -1 */
	int32_t *func_of_sym;
	/* data-section offsets that code takes the address of (jump table bases) */
	struct base { int sec; uint64_t off; } *bases;
	size_t nbases, basecap;
	/* new symbols for stubs */
	int sym_tls, sym_enter, sym_enter_flags, sym_exit, sym_tailexit, sym_rep, sym_resync, sym_flush, sym_branch,
	    sym_load;
	int sym_ext_enter, sym_ext_exit, sym_ext_exit_fixed, sym_sys_enter, sym_sys_exit, sym_icall;
	size_t inner_first, inner_end; /* --counts: the NAME.pi_inner symbols this object defines */
	int sym_centry, sym_centry_flags, sym_cextnew, sym_cptr, sym_cptr_tail, sym_locale, sym_solo, sym_cresync, sym_cmeas_start, sym_cmeas_stop, sym_frames, sym_cframe, sym_cpark,
	    sym_cunpark, sym_pentry;
	int counts_sec, desc_sec, map_sec;
	int extnames_sec;   /* the externals' names (meta.c), or 0 */
	int shared_sec;     /* a word an external, where the runtime keeps the
			       record its name shares (meta.c), or 0 */
	uint32_t nwarn;
	/* kept from before the rewrite, for the map: line tables, and the
	 * original bytes of each block */
	struct line_table lines;
	struct inline_table inlines; /* the inlined calls in that code */
	struct buf code;
	uint32_t *block_code; /* [nblocks]: offset in code */
	/* the relocations of those bytes, in block order (the map's) */
	struct kept_rela {
		int sec;
		uint64_t off;
		char *symbol;   /* the symbol's name, or its section's */
		bool secsym;
		uint32_t type;
		int64_t addend;
	} *kept_relas;
	size_t nkept, keptcap;
};

/* What insn_describe says of in, an instruction of one of c's texts. */
static inline const struct insn_detail *code_detail(const struct code *c, const struct insn *in)
{
	return insn_descs_get(c->descs, in->desc);
}

/* The text index of section sec, or -1 (also for sections added later). */
static inline int text_index(const struct code *c, int sec)
{
	return sec > 0 && (size_t)sec < c->nsecs0 ? c->text_of_sec[sec] : -1;
}

/* Is section sec one of c's texts? */
static inline bool is_text(const struct code *c, int sec)
{
	return text_index(c, sec) >= 0;
}

/*
 * The passes of the analysis, each a question answered for the whole
 * object; code_analyse (instrument.h) runs them, in the order it states
 * with the reason for each.
 */

/* c for object o: its executable sections (c->texts), nothing found in
 * them yet.  code_free releases it. */
void code_init(struct code *c, struct object *o, const struct rewrite_opts *opts);
void code_free(struct code *c);
/* The functions o's symbols name (c->funcs, c->func_of_sym): one per
 * distinct start, aliases sharing it, foo.cold pieces joined to foo, each
 * up to its size or the next function. */
void code_find_functions(struct code *c);
/* The extent of each function without a size (assembly without .size, code
 * without a symbol): what its entry reaches; one whose extent is not clear
 * is left as it was, said once.  verbatim[sym]: functions known to stay
 * as they were. */
void code_infer_extents(struct code *c, const bool *verbatim);
/* Decode every function of every text (insns, at, fn), but those verbatim
 * names and those that do not decode (said once): those, and the gaps
 * between functions, are copied as they were (vr). */
void code_decode(struct code *c, const bool *verbatim);
/* Leaders (MARK_LEADER, MARK_FSTART, MARK_PSTART, MARK_ADDR): piece starts,
 * branch targets, what follows a transfer, every place a relocation or a
 * RIP-relative operand names in code; the data addresses code takes
 * (c->bases: the tables of offsets); tail calls (MARK_TAIL). */
void code_find_leaders(struct code *c);
/* setjmp's second return (MARK_RESYNC) and calls that end the process image
 * (MARK_FLUSH). */
void code_find_resync_points(struct code *c);
/* The call of a TLS local-dynamic pair, which the linker removes
 * (MARK_NOCOST). */
void code_find_vanishing_calls(struct code *c);
/* Data inside functions (a table after the code, a constant read there):
 * such a function gets data_why, and is to be copied as it was. */
void code_find_data_in_functions(struct code *c);
/* The basic blocks of the instrumented functions (c->blocks, text.block),
 * cut at every leader. */
void code_build_blocks(struct code *c);
/* The status flags live at each block's start (block.live_in). */
void code_liveness(struct code *c);
/* Every call site of the instrumented functions, and every tail jump to
 * external code (c->sites). */
void code_find_sites(struct code *c);
/* Each block's original bytes and the relocations in them (c->code,
 * c->block_code, c->kept_relas), for the map: before the layout replaces
 * them. */
void code_keep_blocks(struct code *c);

/* The blocks of its own function that block b may go to next (a taken
 * branch's target, its own start included, and the next block it falls
 * into; not indirect jumps' targets): how many, at most 2, in out. */
unsigned code_block_succs(const struct code *c, uint32_t b, uint32_t out[2]);
/* What may follow block b of f, for a backward analysis: each block of f
 * it may go on to is passed to each (an indirect jump's: every
 * address-taken block of f), and the other ways it may end are returned:
 * FLOW_RET a return, FLOW_TAIL a jump to another function (a tail call),
 * FLOW_OUT a jump or fall to code the analysis does not see,
 * FLOW_OUT_AFTER_CALL a fall out of the function after a call (that does
 * not return), FLOW_UNSEEN a jump whose target is not known; 0 for a
 * trap. */
#define FLOW_RET 1u
#define FLOW_TAIL 2u
#define FLOW_OUT 4u
#define FLOW_OUT_AFTER_CALL 8u
#define FLOW_UNSEEN 16u
/* Visit f's blocks last to first, again until no visit says its block's
 * facts grew: a backward analysis's fixed point (liveness). */
void code_backward_fixpoint(struct code *c, const struct func *f,
			    bool (*visit)(struct code *c, const struct func *f, struct block *b, void *ctx), void *ctx);
unsigned code_block_flow(const struct code *c, const struct func *f, const struct block *b,
			 void (*each)(void *ctx, const struct block *succ), void *ctx);

/* Each block's preds: the edges into it from its function's blocks (a
 * call's block falling into the next one is one), 2 for two or more.
 * Ways in that no edge shows make it 2: an address taken (but the entry's
 * own, whose callers all pass the entry stub), a resync point, and in a
 * function with an indirect jump of its own or a jump whose target is not
 * known, every block.  The entry of a function is not counted: an entry
 * block with 0 is run once per call, and only then.  And its edges, the
 * count before those: an indirect jump goes where an address was taken
 * (a jump table's entries, a label's), so that a block not so marked
 * (MARK_ADDR), nor a resync point or a block entered from elsewhere, is
 * entered by its edges only (derive.c takes them so too). */
void code_count_preds(struct code *c);
/* --counts: sets func.no_calls of each instrumented function none of
 * whose instructions is a call (direct or through a pointer): the code
 * after a call is what reads a frame's node (layout.c), so such a
 * function's needs storing by neither its entry stub nor its start.  (A
 * function it tail-jumps to stores its own, at the same CFA.) */
void code_find_no_calls(struct code *c);
/* --counts: f's entry block keeps no counter; the calls of f's node count
 * it (PI_FUNC_ENTRY_CALLS). */
bool code_entry_by_calls(const struct code *c, const struct func *f);

/*
 * Questions about the decoded code that the passes in files of their own
 * ask too (the search for code without a symbol, unnamed.h).
 */

/* What code entered at start of text ts reaches by falling through and by
 * its direct jumps, up to end, ending with its last instruction there
 * (what follows, data or padding, stays as it is): its end in *lastp.
 * 0, or -1 with *why when it cannot be known safely: an indirect jump (to
 * where?), bytes that do not decode on the way, a jump into the middle of
 * an instruction, or bytes between its pieces of code that are not
 * padding.  owner: *back says whether it jumps into that function; *fell
 * (if not NULL) whether a path runs into end. */
int code_reach_extent(struct code *c, int ts, uint64_t start, uint64_t end, uint64_t *lastp, const char **why,
		      const struct func *owner, bool *back, bool *fell);
/* Where the direct branch, instruction k of t, goes: (sec, off), or false
 * if outside this object. */
bool code_branch_target(const struct code *c, const struct text *t, uint32_t k, int *tsec, uint64_t *toff);
/* Each place in code or data that a relocation of data names (a jump
 * table's entry, a function pointer, a table of them), through fn: the
 * relocations of allocated sections other than code, .eh_frame and debug
 * information.  pcrel: also those relative to a table's base
 * (data_pcrel_base), which a round that has not found every base may read
 * wrong. */
void code_each_data_address(struct code *c, bool pcrel, void (*fn)(void *arg, int tsec, uint64_t toff),
			    void *arg);
/* Instruction k of t puts an address in a register: does the code after
 * it, before a jump or before the register changes, read or write memory
 * through that register?  Then the address is of data (a table's base). */
bool code_used_as_base(const struct code *c, const struct text *t, uint32_t k);
/* The instruction of t whose bytes hold offset off, or NO_INSN. */
uint32_t text_insn_containing(const struct text *t, uint64_t off);
/* Does relocation r sit on a field of instruction in, as an assembler
 * puts it: a displacement or an immediate, no larger than the field? */
bool insn_rel_on_field(const struct insn *in, const struct rela *r);
/* Padding an assembler or compiler puts between pieces of code (a nop, a
 * trap): nothing need reach it. */
bool insn_is_padding(const struct insn *in);

/* Calls the CFG treats specially, by the name called. */
bool returns_twice(const char *name);
bool ends_image(const char *name);

/* The place (section, offset) relocation r of section sec names
 * (reloc_place), a PC-relative one taken relative to the end of its
 * instruction, insn_end, in code, and to the base of its table in data
 * (data_pcrel_base).  False if it is not in a section of c's object. */
bool code_rel_target(const struct code *c, int sec, const struct rela *r, uint64_t insn_end,
		     int *tsec, uint64_t *toff);
/* The base of the table of offsets holding the field at offset field of
 * data section sec: the nearest address before it that code takes (found
 * with the leaders), or field itself. */
uint64_t data_pcrel_base(const struct code *c, int sec, uint64_t field);

#endif
