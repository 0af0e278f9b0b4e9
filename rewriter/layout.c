/* SPDX-License-Identifier: MIT */
#include "layout.h"
#include "derive.h"
#include "reglive.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "external.h"
#include "stub_abi.h"

/* --counts: an edge whose counter goes where its target starts
 * (block.eto): the target's first instruction, the jump, the block whose
 * counter counts it, and whether the jump falls into the target */
struct landing {
	uint32_t kt, kp;
	uint32_t slot;     /* block.eto's counter, or UINT32_MAX */
	uint32_t stepped;  /* the code.stepped_edges entry of a loop's register
			      (stepcount.h), or UINT32_MAX */
	bool fall;
};

struct emit {
	struct code *c;
	const struct addrmap *m;
	int ti;
	struct text *t;
	struct text_layout *tl; /* t's, in m */
	struct section *s;
	bool final;
	/* per instruction: its direct branch in its long form (rel32, or
	 * the sequence for a rel8-only one); branch_forms and relax */
	bool *wide;
	struct rela *relas; /* new relocations of this section (final pass) */
	size_t nrelas, cap;
	uint64_t *newval;   /* new symbol values (final pass) */
	uint32_t counted;   /* --counts: the instruction whose block's counter the
			       code after the call before it counted */
	int cur_reg;        /* --counts: a register that holds the current node
			       here (a counter put it there, in this block or
			       one that falls into it), or -1 (keeps_cur) */
	/* --counts, per instruction (settle_cur): */
	int8_t *edge_reg;   /* cur_reg where the instruction goes on to the
			       next block, by its jump or by falling (-1) */
	int8_t *assumed;    /* at a leader, the register every way in leaves
			       the current node in, as the pass before saw
			       it, or -1 */
	int8_t *seen;       /* (settle_cur's: the ways in found so far) */
	int8_t *fix;        /* at the last instruction of a block that jumps
			       or falls to one that assumes a register its
			       own way leaves otherwise: that register,
			       loaded before it goes (-1: none) */
	uint16_t *agree, *fixes; /* (settle_cur's: per leader, its ways in
			       that leave the node where it assumes it, and
			       the others, all to be fixed) */
	bool *never;        /* a leader whose assumption a pass broke */
	struct landing *landing; /* --counts: this text's, by target (the
			       fall first), and the next to emit */
	size_t nlanding, landcap, at_landing;
	uint32_t *pre_jump; /* --counts, per instruction: a jmp's code.stepped_edges
			       entry, whose stub goes before it, or UINT32_MAX */
	bool any_verbatim_func; /* a function of the object is left as it was */
	uint64_t to_store;  /* --counts: where a call past the entry stub (or
			       a pointer's to its kept function) jumps (rel32)
			       with the caller's node in %r11, to the code
			       after the call's store of it (emit_cinner,
			       emit_cptrcall; emit_cback), or 0 */
};

static uint64_t cur(const struct emit *e)
{
	return e->tl->out.len;
}

static void add_rela(struct emit *e, uint64_t off, uint32_t type, uint32_t sym, int64_t addend)
{
	if (!e->final)
		return;
	struct rela *r = VEC_PUSH(e->relas, e->nrelas, e->cap);
	r->off = off, r->type = type, r->sym = sym, r->addend = addend;
}

/* The new addend of relocation r (of this text section), now at new_field
 * in an instruction ending at new_end (was old_end). */
static int64_t remap_addend(struct emit *e, const struct rela *r, uint64_t old_end,
			    uint64_t new_field, uint64_t new_end, enum map_kind kind)
{
	struct code *c = e->c;
	int tsec;
	uint64_t toff;
	if (!e->final || !code_rel_target(c, e->t->sec, r, old_end, &tsec, &toff) ||
	    text_index(c, (int)(tsec)) < 0)
		return r->addend;
	/* addresses wrap, as they do for the linker: unsigned arithmetic */
	uint64_t nt = addrmap_lookup(e->m, text_index(c, (int)(tsec)), toff, kind);
	uint64_t a = nt - e->newval[r->sym];
	if (rel_is_pcrel(r->type))
		a -= new_end - new_field;
	return (int64_t)a;
}

/* Is a direct branch of instruction k (to tsec/toff) inside its function? */
static enum map_kind branch_kind(const struct emit *e, uint32_t k)
{
	return (e->t->mark[k] & MARK_TAIL) ? MAP_PLACE : MAP_BRANCH;
}

static const struct rela *rela_at(const struct emit *e, uint64_t off)
{
	return reloc_find(e->c->o, e->t->sec, off);
}

/* Copy instruction k (possibly modified in tmp[0..len)), moving its
 * relocations and fixing a RIP-relative displacement that has none.
 * skip: bytes of prefix dropped from the front of the original (negative:
 * bytes added). */
static void emit_copy(struct emit *e, uint32_t k, const uint8_t *tmp, size_t len, int64_t skip,
		      bool got_plain)
{
	const struct insn *in = &e->t->insns[k];
	uint64_t at = cur(e);
	buf_put(&e->tl->out, tmp, len);
	uint64_t old_end = in->off + in->len, new_end = at + len;
	if (in->rip_rel && !rela_at(e, in->off + in->disp_off) && e->final) {
		int32_t disp = (int32_t)rd32(e->s->data + in->off + in->disp_off);
		uint64_t target = old_end + (int64_t)disp;
		uint64_t nt = addrmap_lookup(e->m, e->ti, target, MAP_PLACE);
		wr32(e->tl->out.p + at + in->disp_off - skip, (uint32_t)(int32_t)(nt - new_end));
	}
	if (!e->s->rela || !e->final)
		return;
	const struct section *rs = &e->c->o->secs[e->s->rela];
	for (size_t i = rela_lower_bound(rs, in->off); i < rs->nrelas && rs->relas[i].off < old_end; i++) {
		const struct rela *r = &rs->relas[i];
		uint64_t nf = at + (r->off - in->off) - skip;
		uint32_t type = r->type;
		if (got_plain && (type == R_X86_64_GOTPCRELX || type == R_X86_64_REX_GOTPCRELX))
			type = R_X86_64_GOTPCREL;
		add_rela(e, nf, type, r->sym, remap_addend(e, r, old_end, nf, new_end, MAP_PLACE));
	}
}

/* Where instruction k's direct branch lands in the new layout: on its
 * edge's counter, where it has one (emit_landings), else at its target */
static uint64_t branch_dest(const struct emit *e, uint32_t k, enum map_kind kind)
{
	if (e->tl->edge_at[k] != UINT32_MAX)
		return e->tl->edge_at[k];
	return addrmap_lookup(e->m, e->ti, e->t->insns[k].target, kind);
}

/* A rel32 field at the end of the bytes just emitted, aimed where
 * instruction k's direct branch goes. lea: this is a lea for a tail stub. */
static void emit_rel32_to_target(struct emit *e, uint32_t k, enum map_kind kind, bool lea)
{
	const struct insn *in = &e->t->insns[k];
	uint64_t field = cur(e);
	buf_u32(&e->tl->out, 0);
	if (!e->final)
		return;
	uint64_t end = field + 4;
	const struct rela *r = rela_at(e, in->off + in->rel_off);
	if (r) {
		uint32_t type = r->type;
		if (lea && type != R_X86_64_PLT32)
			type = R_X86_64_PC32;
		add_rela(e, field, type, r->sym,
			 remap_addend(e, r, in->off + in->len, field, end, kind));
		return;
	}
	uint64_t nt = branch_dest(e, k, kind);
	wr32(e->tl->out.p + field, (uint32_t)(int32_t)(nt - end));
}

static bool rel8_reaches(int64_t d)
{
	return d >= -128 && d <= 127;
}

/* The rel8 field of instruction k's short branch, at the end of the bytes
 * just emitted. relax chose the short form only where the target is in
 * reach, in this very layout. */
static void emit_rel8_to_target(struct emit *e, uint32_t k)
{
	const struct insn *in = &e->t->insns[k];
	uint64_t field = cur(e);
	buf_u8(&e->tl->out, 0);
	if (!e->final)
		return;
	int64_t d = (int64_t)(branch_dest(e, k, branch_kind(e, k)) - (field + 1));
	if (!rel8_reaches(d)) {
		/* the final pass lays out what relax last checked: cannot happen */
		pi_error("internal error: the short branch at %#llx of %s is out of reach",
			 (unsigned long long)in->off, e->s->name);
		abort();
	}
	e->tl->out.p[field] = (uint8_t)(int8_t)d;
}

/* call (op 0xe8) or jmp (0xe9) sym */
static void emit_branch_sym(struct emit *e, uint8_t op, int sym)
{
	buf_u8(&e->tl->out, op);
	add_rela(e, cur(e), R_X86_64_PLT32, (uint32_t)sym, -4);
	buf_u32(&e->tl->out, 0);
}

static void emit_call_rt(struct emit *e, int sym)
{
	emit_branch_sym(e, 0xe8, sym);
}

static void emit_lea_r11_rec(struct emit *e, int sec, uint64_t off)
{
	static const uint8_t lea[] = {0x4c, 0x8d, 0x1d};
	buf_put(&e->tl->out, lea, sizeof(lea));
	add_rela(e, cur(e), R_X86_64_PC32, (uint32_t)obj_section_symbol(e->c->o, sec), (int64_t)off - 4);
	buf_u32(&e->tl->out, 0);
}

static void emit_lea_r11_funcrec(struct emit *e, const struct func *f)
{
	emit_lea_r11_rec(e, f->rec_sec, f->rec_off);
}

static const uint8_t PUSH_R11[] = {0x41, 0x53}, POP_R11[] = {0x41, 0x5b};
static const uint8_t LEA_RSP_M8[] = {0x48, 0x8d, 0x64, 0x24, 0xf8};
static const uint8_t LEA_RSP_P8[] = {0x48, 0x8d, 0x64, 0x24, 0x08};
static const uint8_t LEA_RSP_M128[] = {0x48, 0x8d, 0x64, 0x24, 0x80};
static const uint8_t LEA_RSP_P128[] = {0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00};

#define PUT(e, arr) buf_put(&(e)->tl->out, (arr), sizeof(arr))

/*
 * -shared (rewrite_opts.pic).  A shared object can hold neither a TLS
 * offset fixed at link time (R_X86_64_TPOFF32) nor a PC-relative reference
 * to data of the runtime, which another image (the program) brings.  Its
 * stubs read the thread block's offset from the GOT instead (the
 * initial-exec model: R_X86_64_GOTTPOFF, which the dynamic linker fills
 * from the runtime's __profinst_tls), into the register a load loads; a
 * store or a compare of %r11 takes %rax for it, pushed below the red zone.
 * What reads the frames' nodes (__profinst_frames) is left out: a shared
 * object's code after a call takes its node from the callee's.
 */
static bool pic(const struct emit *e)
{
	return e->c->opts->pic;
}

/* Stubs a shared object never holds: a bug if asked for. */
static void not_pic(const struct emit *e, const char *what)
{
	if (!pic(e))
		return;
	pi_error("internal error: %s: %s in a shared object's stubs", e->s->name, what);
	abort();
}

/* mov GOT(%rip),%r: sym's GOT entry (type: R_X86_64_GOTTPOFF, its TLS
 * offset; R_X86_64_GOTPCREL, its address) */
static void emit_got_load(struct emit *e, int r, uint32_t type, int sym)
{
	uint8_t b[] = {(uint8_t)(0x48 | (r >> 3) << 2), 0x8b, (uint8_t)(0x05 | (r & 7) << 3)};
	PUT(e, b);
	add_rela(e, cur(e), type, (uint32_t)sym, -4);
	buf_u32(&e->tl->out, 0);
}

/* mov __profinst_tls@gottpoff(%rip),%r: the thread block's TLS offset */
static void emit_tls_base(struct emit *e, int r)
{
	emit_got_load(e, r, R_X86_64_GOTTPOFF, e->c->sym_tls);
}

/* lea -128(%rsp),%rsp; push %rax; mov GOT(%rip),%rax: sym's entry, the
 * thread block's by default (flags kept) */
static void emit_pic_save_got(struct emit *e, uint32_t type, int sym)
{
	static const uint8_t b[] = {0x48, 0x8d, 0x64, 0x24, 0x80, 0x50};
	PUT(e, b);
	emit_got_load(e, 0, type, sym);
}

static void emit_pic_save(struct emit *e)
{
	emit_pic_save_got(e, R_X86_64_GOTTPOFF, e->c->sym_tls);
}

/* pop %rax; lea 128(%rsp),%rsp (flags kept) */
static void emit_pic_restore(struct emit *e)
{
	static const uint8_t b[] = {0x58, 0x48, 0x8d, 0xa4, 0x24, 0x80, 0x00, 0x00, 0x00};
	PUT(e, b);
}

/* OP %fs:off(%rax) with the ModRM's reg field reg (64 bits) */
static void emit_fs_rax(struct emit *e, uint8_t op, int reg, uint32_t off)
{
	uint8_t b[] = {0x64, (uint8_t)(0x48 | (reg >> 3) << 2), op, (uint8_t)(0x80 | (reg & 7) << 3)};
	PUT(e, b);
	buf_u32(&e->tl->out, off);
}

/* push %r11; lea rec(%rip),%r11; call __profinst_enter; pop %r11 */
static void emit_entry_stub(struct emit *e, const struct func *f)
{
	bool flags = e->c->blocks[f->first_block].live_in & FLAGS_STATUS;
	PUT(e, PUSH_R11);
	emit_lea_r11_funcrec(e, f);
	emit_call_rt(e, flags ? e->c->sym_enter_flags : e->c->sym_enter);
	PUT(e, POP_R11);
}

/* addq $imm, %fs:sym+addend */
static void emit_add_fs(struct emit *e, int sym, int64_t addend, uint32_t imm)
{
	not_pic(e, "a clock's or counter's add");
	static const uint8_t pfx[] = {0x64, 0x48};
	PUT(e, pfx);
	buf_u8(&e->tl->out, imm < 128 ? 0x83 : 0x81);
	buf_u8(&e->tl->out, 0x04);
	buf_u8(&e->tl->out, 0x25);
	add_rela(e, cur(e), R_X86_64_TPOFF32, (uint32_t)sym, addend);
	buf_u32(&e->tl->out, 0);
	if (imm < 128)
		buf_u8(&e->tl->out, (uint8_t)imm);
	else
		buf_u32(&e->tl->out, imm);
}

/* push $counter@tpoff: the TLS offset of the object's counter i
 * (format.h, pi_counters), sign-extended as TLS offsets are negative */
static void emit_push_counter(struct emit *e, uint64_t i)
{
	not_pic(e, "a counter's offset");
	buf_u8(&e->tl->out, 0x68);
	add_rela(e, cur(e), R_X86_64_TPOFF32, (uint32_t)obj_section_symbol(e->c->o, e->c->counts_sec),
		 (int64_t)(i * 8));
	buf_u32(&e->tl->out, 0);
}

static void emit_block_stub(struct emit *e, uint32_t b)
{
	const struct block *bl = &e->c->blocks[b];
	bool save = bl->live_in & FLAGS_STATUS;
	if (save) {
		/* lea -128(%rsp),%rsp; push %rax; lahf; seto %al */
		static const uint8_t pre[] = {0x50, 0x9f, 0x0f, 0x90, 0xc0};
		PUT(e, LEA_RSP_M128);
		PUT(e, pre);
	}
	/* to one of the clock's four words (stub_abi.h): consecutive
	 * blocks do not wait for each other's add */
	uint32_t part = b % STUB_CLOCK_PARTS;
	if (bl->cost)
		emit_add_fs(e, e->c->sym_tls, part ? STUB_TLS_CLOCKPART + 8 * (part - 1) : STUB_TLS_CLOCK, bl->cost);
	emit_add_fs(e, obj_section_symbol(e->c->o, e->c->counts_sec), (int64_t)b * 8, 1);
	if (save) {
		/* add $0x7f,%al (restores OF); sahf; pop %rax; lea 128(%rsp),%rsp */
		static const uint8_t post[] = {0x04, 0x7f, 0x9e, 0x58};
		PUT(e, post);
		PUT(e, LEA_RSP_P128);
	}
}

/* Tail call through a direct jump: tell the runtime where it goes. */
static void emit_tail_direct(struct emit *e, uint32_t k, const struct func *f)
{
	static const uint8_t lea_r11[] = {0x4c, 0x8d, 0x1d};
	static const uint8_t mov_r11[] = {0x4c, 0x89, 0x5c, 0x24, 0x08};
	PUT(e, LEA_RSP_M8);
	PUT(e, PUSH_R11);
	PUT(e, lea_r11);
	emit_rel32_to_target(e, k, MAP_PLACE, true);
	PUT(e, mov_r11);
	emit_lea_r11_funcrec(e, f);
	emit_call_rt(e, e->c->sym_tailexit);
	PUT(e, POP_R11);
	PUT(e, LEA_RSP_P8);
}

static size_t legacy_prefixes(const uint8_t *p, size_t len, size_t *keep_out, uint8_t *kept)
{
	size_t i = 0, keep = 0;
	while (i < len && (p[i] == 0xf2 || p[i] == 0x3e || p[i] == 0x2e || p[i] == 0x66 ||
			   p[i] == 0x67 || p[i] == 0xf3 || p[i] == 0x26 || p[i] == 0x36)) {
		if (p[i] == 0x67 || p[i] == 0x66)
			kept[keep++] = p[i];
		i++;
	}
	*keep_out = keep;
	return i;
}

static bool legacy_prefix(uint8_t b)
{
	return b == 0xf2 || b == 0x3e || b == 0x2e || b == 0x66 || b == 0x67 || b == 0xf3 || b == 0x26 ||
	       b == 0x36 || b == 0x64 || b == 0x65;
}

/* Tail call through jmp *reg or jmp *mem: push the target, then as above,
 * and jump where the helper leaves in its place (stub_abi.h). */
static void emit_tail_indirect(struct emit *e, uint32_t k, const struct func *f)
{
	const struct insn *in = &e->t->insns[k];
	const uint8_t *orig = e->s->data + in->off;
	if (in->ind_reg) {
		uint8_t r = in->ind_reg - 1;
		if (r >= 8)
			buf_u8(&e->tl->out, 0x41);
		buf_u8(&e->tl->out, 0x50 + (r & 7));
	} else {
		/* FF /4 (jmp) becomes FF /6 (push) over the same operand */
		uint8_t tmp[16], kept[16];
		size_t keep;
		size_t np = legacy_prefixes(orig, in->len, &keep, kept);
		memcpy(tmp, kept, keep);
		memcpy(tmp + keep, orig + np, in->len - np);
		size_t modrm = in->modrm_off - np + keep;
		tmp[modrm] = (uint8_t)((tmp[modrm] & ~0x38) | (6 << 3));
		emit_copy(e, k, tmp, in->len - np + keep, np - keep, true);
	}
	PUT(e, PUSH_R11);
	emit_lea_r11_funcrec(e, f);
	emit_call_rt(e, e->c->sym_tailexit);
	PUT(e, POP_R11);
	/* pop %r11; [notrack] jmp *%r11: where the helper says, the target
	 * or (out of instrumented code) the thunk that times it */
	PUT(e, POP_R11);
	e->tl->pos[k] = (uint32_t)cur(e);
	for (size_t i = 0; i < in->len && legacy_prefix(orig[i]); i++)
		if (orig[i] == 0x3e) {
			buf_u8(&e->tl->out, 0x3e);
			break;
		}
	static const uint8_t jmp_r11[] = {0x41, 0xff, 0xe3};
	PUT(e, jmp_r11);
}

/*
 * A tail jump to external code becomes a call, so that the external's time
 * is measured and the function exits when it returns: the stack arguments
 * the external may read above the return address are copied below it
 * (EXT_TAIL_ARGS of them: a sibling call passes no more than the caller
 * received, and more than 8 stack arguments is unheard of; none for a C
 * library function the model costs, whose arguments are all in
 * registers), then
 *   call CALL (the jump's target); exit stub; ret.
 * The unwinder learns of the moved CFA from the rows ehframe.c inserts.
 */
#define EXT_TAIL_ARGS 8

static void cfa_row(struct emit *e, uint32_t off)
{
	if (!e->final)
		return;
	struct cfa_row *r = VEC_PUSH(e->tl->cfa_rows, e->tl->ncfa_rows, e->tl->cfa_cap);
	r->pos = cur(e);
	r->cfa_off = off;
}

static void emit_cnode(struct emit *e, const struct func *f, uint32_t slot, const struct external *x, bool current,
		       bool count);
static void emit_cback(struct emit *e, bool save, uint32_t k, const struct func *f);
static void emit_cmeas(struct emit *e, uint32_t k, int sym);

/* A tail jump to external code becomes a call of it, from a frame that
 * holds a copy of the stack arguments, and a return: its time and count
 * are then the jumping function's external call's.  Under --counts f is
 * the jumping function, whose slot the call takes. */
static void emit_ext_tail(struct emit *e, uint32_t k, const struct func *f)
{
	bool counting = e->c->opts->counting;
	const struct insn *in = &e->t->insns[k];
	struct buf *o = &e->tl->out;
	const struct external *x = &e->c->exts[e->t->ext[k]];
	uint32_t nargs = (x->flags & PI_EXT_FIXED) ? 0 : EXT_TAIL_ARGS;
	uint32_t bytes = 8 * nargs + 8; /* (keeps %rsp 16-aligned at the call) */
	const uint8_t lea_down[] = {0x48, 0x8d, 0x64, 0x24, (uint8_t)-bytes};
	const uint8_t lea_up[] = {0x48, 0x8d, 0x64, 0x24, (uint8_t)bytes};
	PUT(e, lea_down);
	cfa_row(e, bytes + 8);
	for (uint32_t i = 0; i < nargs; i++) {
		/* mov (bytes + 8 + 8i)(%rsp),%r11; mov %r11,8i(%rsp) */
		static const uint8_t ld[] = {0x4c, 0x8b, 0x9c, 0x24};
		PUT(e, ld);
		buf_u32(o, bytes + 8 + 8 * i);
		static const uint8_t st[] = {0x4c, 0x89, 0x5c, 0x24};
		PUT(e, st);
		buf_u8(o, (uint8_t)(8 * i));
	}
	bool measured = counting && ext_measured(x);
	if (counting) {
		emit_cnode(e, f, e->t->cslot[k], x, true, true);
		if (measured)
			emit_cmeas(e, k, e->c->sym_cmeas_start);
	} else {
		emit_lea_r11_rec(e, x->rec_sec, x->rec_off);
		emit_call_rt(e, e->c->sym_ext_enter);
	}
	e->tl->pos[k] = (uint32_t)cur(e);
	if (in->kind == INSN_JMP) {
		buf_u8(o, 0xe8);
		emit_rel32_to_target(e, k, MAP_PLACE, false);
	} else {
		/* jmp *GOT(%rip) (FF /4) becomes call *GOT(%rip) (FF /2) */
		uint8_t tmp[16];
		memcpy(tmp, e->s->data + in->off, in->len);
		tmp[in->modrm_off] = (uint8_t)((tmp[in->modrm_off] & ~0x38) | (2 << 3));
		emit_copy(e, k, tmp, in->len, 0, false);
	}
	if (counting) {
		if (measured)
			emit_cmeas(e, k, e->c->sym_cmeas_stop);
		emit_cback(e, false, k, NULL); /* (%rsp moved: by the callee's node) */
	} else
		emit_call_rt(e, (x->flags & PI_EXT_FIXED) ? e->c->sym_ext_exit_fixed : e->c->sym_ext_exit);
	PUT(e, lea_up);
	cfa_row(e, 8);
	if (!counting)
		emit_call_rt(e, e->c->sym_exit);
	buf_u8(o, 0xc3);
}

static void emit_rep_pre(struct emit *e)
{
	if (pic(e)) {
		emit_pic_save(e);
		emit_fs_rax(e, 0x89, 1, STUB_TLS_REPSAVE); /* mov %rcx,%fs:REPSAVE(%rax) */
		emit_pic_restore(e);
		return;
	}
	/* mov %rcx,%fs:__profinst_tls+REPSAVE */
	static const uint8_t mov[] = {0x64, 0x48, 0x89, 0x0c, 0x25};
	PUT(e, mov);
	add_rela(e, cur(e), R_X86_64_TPOFF32, (uint32_t)e->c->sym_tls, STUB_TLS_REPSAVE);
	buf_u32(&e->tl->out, 0);
}

static void emit_rep_post(struct emit *e, const struct insn *in)
{
	const struct cpu_model *m = e->c->model;
	uint32_t kind = (uint32_t)in->rep | (m->rep_counts_passes ? STUB_REP_PASSES : 0) |
			(model_rep_iter_cost(m, &e->c->dx, e->s->data + in->off, in->len) << STUB_REP_COST_SHIFT);
	PUT(e, LEA_RSP_M128);
	PUT(e, PUSH_R11);
	buf_u8(&e->tl->out, 0x41); /* mov $kind,%r11d */
	buf_u8(&e->tl->out, 0xbb);
	buf_u32(&e->tl->out, kind);
	emit_call_rt(e, e->c->sym_rep);
	PUT(e, POP_R11);
	PUT(e, LEA_RSP_P128);
}

/* Before the conditional jump k, under --branch-sim: tell the runtime's
 * branch predictor which branch this is and whether it is taken (setCC
 * reads the flags the jump reads; nothing here writes them).  The branch
 * is named by its function's name and offset, so that the predictor's
 * indices do not depend on where the linker puts the code. */
static void emit_branch_stub(struct emit *e, uint32_t k, const struct func *f)
{
	const struct insn *in = &e->t->insns[k];
	uint64_t site = str_hash(f->name) ^ in->off * 0x9e3779b97f4a7c15ull;
	uint64_t cost = e->c->model->mispredict;
	if (cost > STUB_BRANCH_COST_MAX)
		cost = STUB_BRANCH_COST_MAX;
	uint64_t word = (site << STUB_BRANCH_SITE_SHIFT) | (cost << STUB_BRANCH_COST_SHIFT);
	if (tests_external_result(e->c, e->t, k))
		word |= STUB_BRANCH_EXT_RESULT;
	PUT(e, LEA_RSP_M128);
	PUT(e, PUSH_R11);
	emit_push_counter(e, e->c->nblocks + e->t->block[k]); /* its block's mispredictions */
	buf_u8(&e->tl->out, 0x49); /* movabs $word,%r11 */
	buf_u8(&e->tl->out, 0xbb);
	buf_u32(&e->tl->out, (uint32_t)word);
	buf_u32(&e->tl->out, (uint32_t)(word >> 32));
	buf_u8(&e->tl->out, 0x41); /* setCC %r11b */
	buf_u8(&e->tl->out, 0x0f);
	buf_u8(&e->tl->out, (uint8_t)(0x90 | in->cc));
	buf_u8(&e->tl->out, 0xc3);
	emit_call_rt(e, e->c->sym_branch);
	PUT(e, LEA_RSP_P8);
	PUT(e, POP_R11);
	PUT(e, LEA_RSP_P128);
}

/* Before load k, under --cache-sim (rewriter/chase.h): the address it
 * loads from, computed again by a lea of its own base, index, scale and
 * displacement into %r11 (never %rsp-based, so the stub's pushes do not
 * move it; %r11 itself is still the program's when the lea reads it), and
 * the word, pushed: the runtime simulates the access and the wait. */
static void emit_load_stub(struct emit *e, uint32_t k)
{
	const struct insn *in = &e->t->insns[k];
	const struct insn_detail d = *code_detail(e->c, in);
	/* a relocated displacement (absolute addressing, as in non-PIC
	 * code) is relocated again in the lea; any other relocation in the
	 * load is in an immediate, which the lea does not have */
	const struct rela *rel = NULL;
	if (e->s->rela && d.mem.disp_size == 4) {
		rel = rela_at(e, in->off + d.mem.disp_at);
		if (rel && rel->type != R_X86_64_32S && rel->type != R_X86_64_32)
			return; /* not an address the lea can take */
	}
	int b = d.mem.base, x = d.mem.index;
	uint8_t rex = 0x4c; /* W, R: %r11 */
	if (x >= 8)
		rex |= 0x02;
	if (b >= 8)
		rex |= 0x01;
	uint8_t ss = d.mem.scale == 8 ? 3 : d.mem.scale == 4 ? 2 : d.mem.scale == 2 ? 1 : 0;
	uint8_t sib = (uint8_t)(ss << 6 | (x < 0 ? 4 : x & 7) << 3 | (b < 0 ? 5 : b & 7));
	PUT(e, LEA_RSP_M128);
	PUT(e, PUSH_R11);
	buf_u8(&e->tl->out, rex);
	buf_u8(&e->tl->out, 0x8d);
	/* with a base, mod 10 (disp32: %rbp and %r13 need one); without,
	 * mod 00 and SIB base 101 is disp32 alone */
	buf_u8(&e->tl->out, (uint8_t)((b < 0 ? 0x00 : 0x80) | 3 << 3 | 4));
	buf_u8(&e->tl->out, sib);
	if (rel)
		add_rela(e, cur(e), rel->type, rel->sym, rel->addend);
	buf_u32(&e->tl->out, (uint32_t)(int32_t)d.mem.disp);
	buf_u8(&e->tl->out, 0x68); /* push $word */
	buf_u32(&e->tl->out, e->t->chase[k]);
	emit_push_counter(e, 2 * (uint64_t)e->c->nblocks + e->t->block[k]); /* its block's waits */
	emit_call_rt(e, e->c->sym_load);
	static const uint8_t drop[] = {0x48, 0x8d, 0x64, 0x24, 0x10}; /* lea 16(%rsp),%rsp */
	PUT(e, drop);
	PUT(e, POP_R11);
	PUT(e, LEA_RSP_P128);
}

/* Is k an indirect call of an instrumented function whose target the
 * runtime looks at (stub_abi.h, "Indirect call")?  Not one wrapped as an
 * external already, nor the call of a TLS sequence, which the linker
 * rewrites by its bytes. */
static bool wraps_icall(const struct emit *e, uint32_t k)
{
	const struct text *t = e->t;
	const struct insn *in = &t->insns[k];
	if (e->c->opts->counting || in->kind != INSN_CALL_IND || (t->mark[k] & (MARK_EXT | MARK_NOCOST)) || t->fn[k] < 0 ||
	    !e->c->funcs[t->fn[k]].instrument)
		return false;
	const struct rela *r = rela_at(e, in->off);
	return !r || r->type != R_X86_64_TLSDESC_CALL;
}

static bool icall_notrack(const struct emit *e, uint32_t k)
{
	const struct insn *in = &e->t->insns[k];
	const uint8_t *p = e->s->data + in->off;
	for (size_t i = 0; i < in->len && legacy_prefix(p[i]); i++)
		if (p[i] == 0x3e)
			return true;
	return false;
}

/*
 * call *TARGET becomes (stub_abi.h):
 *   mov TARGET,%r11; cmpl $SIG,4(%r11); je 1f; cmpl $SIG,(%r11); je 1f;
 *   call __profinst_icall; 1: [notrack] call *%r11
 * so that a call of instrumented code costs two loads and compares more,
 * and one of anything else goes through the runtime, which times it as an
 * external under its caller.  One call instruction: the call site has one
 * return address, as before.
 */
/* mov TARGET,%r11: where the call through a pointer k goes */
static void emit_target_r11(struct emit *e, uint32_t k)
{
	const struct insn *in = &e->t->insns[k];
	const uint8_t *orig = e->s->data + in->off;
	struct buf *o = &e->tl->out;
	size_t i = 0, nk = 0;
	uint8_t tmp[32];
	/* a segment override and an address size say where the operand is:
	 * they stay on the mov; notrack goes on the call */
	while (i < in->len && legacy_prefix(orig[i])) {
		if (orig[i] == 0x64 || orig[i] == 0x65 || orig[i] == 0x67)
			tmp[nk++] = orig[i];
		i++;
	}
	uint8_t rex = (orig[i] & 0xf0) == 0x40 ? orig[i++] : 0;
	if (in->ind_reg) {
		uint8_t r = in->ind_reg - 1;
		if (r != 11) { /* mov %reg,%r11 */
			buf_u8(o, (uint8_t)(0x49 | (r >= 8 ? 0x04 : 0)));
			buf_u8(o, 0x89);
			buf_u8(o, (uint8_t)(0xc3 | (r & 7) << 3));
		}
	} else {
		/* FF /2 m64 becomes REX.WR 8B /3 m64: mov m64,%r11 (REX.X and
		 * REX.B as they were) */
		size_t n = nk;
		tmp[n++] = (uint8_t)(0x4c | (rex & 0x03));
		tmp[n++] = 0x8b;
		size_t modrm = n;
		memcpy(tmp + n, orig + i + 1, in->len - i - 1);
		n += in->len - i - 1;
		tmp[modrm] = (uint8_t)((tmp[modrm] & ~0x38) | (3 << 3));
		emit_copy(e, k, tmp, n, (int64_t)(i + 1) - (int64_t)modrm, true);
	}
}

/* [notrack] call *%r11 (or jmp: jump), the call k itself */
static void emit_call_r11(struct emit *e, uint32_t k, bool jump)
{
	e->tl->pos[k] = (uint32_t)cur(e);
	if (icall_notrack(e, k))
		buf_u8(&e->tl->out, 0x3e);
	const uint8_t call_r11[] = {0x41, 0xff, jump ? 0xe3 : 0xd3};
	PUT(e, call_r11);
}

static void emit_icall(struct emit *e, uint32_t k)
{
	struct buf *o = &e->tl->out;
	emit_target_r11(e, k);
	static const uint8_t cmp4[] = {0x41, 0x81, 0x7b, 0x04}, cmp0[] = {0x41, 0x81, 0x3b};
	PUT(e, cmp4);
	buf_u32(o, STUB_ENTRY_SIG);
	buf_u8(o, 0x74); /* je over the rest: cmp0 (7), je (2), call (5) */
	buf_u8(o, 14);
	PUT(e, cmp0);
	buf_u32(o, STUB_ENTRY_SIG);
	buf_u8(o, 0x74);
	buf_u8(o, 5);
	emit_call_rt(e, e->c->sym_icall);
	emit_call_r11(e, k, false);
}

/* The instruction itself, each direct branch in the form relax chose. */

/* ----- --counts (runtime/counting.c, stub_abi.h) */

/* Whether %r11 may be live at instruction k, a call or a jump that ends
 * its block, as reg_liveness found it: after a call (a call to a function
 * of this object lets it live through, so it is live before if live
 * after), at a tail jump (its callee returns to the function's caller). */
static bool r11_live_at(const struct emit *e, uint32_t k)
{
	return e->t->live_after ? e->t->live_after[k] & (1u << 11) : true;
}

static bool operand_uses_r11(const struct emit *e, uint32_t k)
{
	const struct insn_detail *d = code_detail(e->c, &e->t->insns[k]);
	return !d || ((d->rd | d->addr) & (1ull << 11));
}

/* A call or tail jump through a pointer from f that the counting stubs
 * handle (emit_cptrcall): not the call of a TLS descriptor, nor one whose
 * operand is %r11's, nor a jump where %r11 is live. */
static bool counted_ptrcall(const struct emit *e, uint32_t k)
{
	const struct text *t = e->t;
	const struct insn *in = &t->insns[k];
	bool tail = in->kind == INSN_JMP_IND && (t->mark[k] & MARK_TAIL);
	if (!e->c->opts->counting || (in->kind != INSN_CALL_IND && !tail) ||
	    (t->mark[k] & (MARK_EXT | MARK_NOCOST)) || t->fn[k] < 0 || !e->c->funcs[t->fn[k]].instrument ||
	    !t->cslot || t->cslot[k] == UINT32_MAX || operand_uses_r11(e, k) || (tail && r11_live_at(e, k)))
		return false;
	const struct rela *r = rela_at(e, in->off);
	return !r || r->type != R_X86_64_TLSDESC_CALL;
}

/* mov %fs:__profinst_tls+off,%r11 (op 0x8b) or mov %r11,%fs:... (0x89) */
static void emit_fs_r11(struct emit *e, uint8_t op, uint32_t off)
{
	if (pic(e) && op == 0x8b) {
		emit_tls_base(e, 11);
		static const uint8_t b[] = {0x64, 0x4d, 0x8b, 0x9b}; /* mov %fs:off(%r11),%r11 */
		PUT(e, b);
		buf_u32(&e->tl->out, off);
		return;
	}
	if (pic(e)) {
		emit_pic_save(e);
		emit_fs_rax(e, op, 11, off);
		emit_pic_restore(e);
		return;
	}
	uint8_t b[] = {0x64, 0x4c, op, 0x1c, 0x25};
	PUT(e, b);
	add_rela(e, cur(e), R_X86_64_TPOFF32, (uint32_t)e->c->sym_tls, off);
	buf_u32(&e->tl->out, 0);
}

/* OP disp32(%base) with the ModRM's reg field reg, under rex (base
 * neither %rsp nor %r12) */
static void emit_r11m_reg(struct emit *e, uint8_t rex, uint8_t op, uint8_t reg, uint8_t base, uint32_t disp)
{
	uint8_t b[] = {rex, op, (uint8_t)(0x80 | (reg & 7) << 3 | (base & 7))};
	PUT(e, b);
	buf_u32(&e->tl->out, disp);
}

/* OP disp32(%r11) */
static void emit_r11m(struct emit *e, uint8_t rex, uint8_t op, uint8_t reg, uint32_t disp)
{
	emit_r11m_reg(e, rex, op, reg, 11, disp);
}

/* mov disp(current node),%r11: from the register that holds the node
 * where one does (emit.cur_reg, which nothing since may have written),
 * else by the TLS word */
static void emit_cur_field_r11(struct emit *e, uint32_t disp, bool by_reg)
{
	int r = by_reg ? e->cur_reg : -1;
	if (r < 0) {
		emit_fs_r11(e, 0x8b, STUB_TLS_CUR);
		r = 11;
	}
	emit_r11m_reg(e, (uint8_t)(r >= 8 ? 0x4d : 0x4c), 0x8b, 3, (uint8_t)r, disp);
}

/* lea disp(%rsp),%r11 */
static void emit_lea_rsp_r11(struct emit *e, int32_t disp)
{
	static const uint8_t b[] = {0x4c, 0x8d, 0x9c, 0x24};
	PUT(e, b);
	buf_u32(&e->tl->out, (uint32_t)disp);
}

static void emit_fs_zero(struct emit *e, uint32_t off)
{
	if (pic(e)) {
		emit_pic_save(e);
		emit_fs_rax(e, 0xc7, 0, off); /* movq $0,%fs:off(%rax) */
		buf_u32(&e->tl->out, 0);
		emit_pic_restore(e);
		return;
	}
	static const uint8_t b[] = {0x64, 0x48, 0xc7, 0x04, 0x25};
	PUT(e, b);
	add_rela(e, cur(e), R_X86_64_TPOFF32, (uint32_t)e->c->sym_tls, off);
	buf_u32(&e->tl->out, 0);
	buf_u32(&e->tl->out, 0);
}

static const uint8_t TEST_R11[] = {0x4d, 0x85, 0xdb};

/* OP frames.field(%rip),%r11 (runtime/framenodes.c's struct pi_frames) */
static void emit_frames_r11(struct emit *e, uint8_t op, uint32_t field)
{
	not_pic(e, "the frames' nodes");
	uint8_t b[] = {0x4c, op, 0x1d};
	PUT(e, b);
	add_rela(e, cur(e), R_X86_64_PC32, (uint32_t)e->c->sym_frames, (int64_t)field - 4);
	buf_u32(&e->tl->out, 0);
}

/* cmpb $0,%fs:frames_off */
static void emit_frames_off_cmp(struct emit *e)
{
	not_pic(e, "the frames' nodes");
	static const uint8_t b[] = {0x64, 0x80, 0x3c, 0x25};
	PUT(e, b);
	add_rela(e, cur(e), R_X86_64_TPOFF32, (uint32_t)e->c->sym_tls, STUB_TLS_FRAMES_OFF);
	buf_u32(&e->tl->out, 0);
	buf_u8(&e->tl->out, 0x00);
}

/* cmpb $0,%fs:frames_off; jne (jcc 0x75) or je (0x74), rel8 patched:
 * where the thread keeps no frame nodes, or does.  The rel8's offset. */
static uint64_t emit_frames_off_jcc(struct emit *e, uint8_t jcc)
{
	emit_frames_off_cmp(e);
	uint8_t j[] = {jcc, 0x00};
	PUT(e, j);
	return cur(e) - 1;
}

/* the same with a 32-bit jne: where the rel32 field is */
static uint64_t emit_frames_off_jne32(struct emit *e)
{
	emit_frames_off_cmp(e);
	static const uint8_t j[] = {0x0f, 0x85};
	PUT(e, j);
	uint64_t at = cur(e);
	buf_u32(&e->tl->out, 0);
	return at;
}

static uint64_t emit_frames_off_jne(struct emit *e)
{
	return emit_frames_off_jcc(e, 0x75);
}

/* Whether f keeps its frame's node (runtime/framenodes.c): its entry
 * stub stores it, unless the function reads flags at entry (the store
 * changes them). */
static bool keeps_frame(const struct emit *e, const struct func *f)
{
	return !pic(e) && !(e->c->blocks[f->first_block].live_in & FLAGS_STATUS);
}

/* Whether the call or tail jump k of f finds f's frame's node by its CFA
 * (the unwind table says where the CFA is there). */
static bool site_frame(const struct emit *e, uint32_t k, const struct func *f)
{
	return f && e->t->cfa && e->t->cfa[k] && keeps_frame(e, f);
}

/* lea CFA+extra,%r at k (extra: what %rsp moved since; not for a CFA
 * from %rbp) */
static void emit_lea_cfa(struct emit *e, uint32_t k, int32_t extra, int r)
{
	uint8_t hi = (uint8_t)(r >> 3), lo = (uint8_t)(r & 7);
	int32_t cfa = e->t->cfa[k];
	if (cfa > 0) {
		uint8_t lea[] = {(uint8_t)(0x48 | hi << 2), 0x8d, (uint8_t)(0x84 | lo << 3), 0x24}; /* lea disp32(%rsp),%r */
		PUT(e, lea);
		buf_u32(&e->tl->out, (uint32_t)(cfa + extra));
		return;
	}
	uint8_t lea[] = {(uint8_t)(0x48 | hi << 2), 0x8d, (uint8_t)(0x85 | lo << 3)}; /* lea disp32(%rbp),%r */
	PUT(e, lea);
	buf_u32(&e->tl->out, (uint32_t)-cfa);
}

static void emit_lea_cfa_r11(struct emit *e, uint32_t k, int32_t extra)
{
	emit_lea_cfa(e, k, extra, 11);
}

/* A scratch register the call k may take besides %r11 and those in taken
 * (a mask), to store its callee's frame node (frame_reg) or hold what the
 * call through a pointer's fast way needs, -1 if none: one dead after the
 * call (gcc's
 * interprocedural allocation may keep any register live through a call
 * to a function of its unit: reglive.h) that the callee does not read at
 * entry (callee: a function of this object, whose entry's liveness says;
 * -1: another object's or a pointer's, which by the ABI reads no %r10, a
 * nested function's chain, but may read every argument and %rax, a
 * variadic call's vector count).  Scratch registers only: a landing pad
 * may read a callee-saved register the normal return does not. */
/* The first of %r10, %rax, %r9, %r8, %rcx, %rdx, %rsi, %rdi (scratch
 * registers a stub may address through: not %r11, the stubs' own) not in
 * busy (a mask), -1 if none */
static int scratch_reg(uint32_t busy)
{
	static const int order[] = {10, 0, 9, 8, 1, 2, 6, 7};
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (!(busy & 1u << order[i]))
			return order[i];
	return -1;
}

static int free_reg(const struct emit *e, uint32_t k, uint32_t taken)
{
	if (!e->t->live_after)
		return -1;
	/* (what is live after the call in a register it clobbers is the
	 * callee's, its result) */
	uint32_t after = e->t->live_after[k] & ~(uint32_t)call_clobbers(e->c, e->t, k);
	return scratch_reg(after | 1u << 11 | call_reads(e->c, e->t, k) | taken);
}

/* (a call's only: what is live at a tail jump is its callee's arguments,
 * not what is live after it) */
static int frame_reg(const struct emit *e, uint32_t k)
{
	enum insn_kind kind = e->t->insns[k].kind;
	return kind == INSN_CALL || kind == INSN_CALL_IND ? free_reg(e, k, 0) : -1;
}

/* add delta(%rip),%r; mov %v,(%r): node v stored as the frame's whose
 * CFA %r holds */
static void emit_frame_word_at(struct emit *e, int r, int v)
{
	not_pic(e, "the frames' nodes");
	uint8_t hi = (uint8_t)(r >> 3), lo = (uint8_t)(r & 7);
	uint8_t add[] = {(uint8_t)(0x48 | hi << 2), 0x03, (uint8_t)(0x05 | lo << 3)}; /* add delta(%rip),%r */
	PUT(e, add);
	add_rela(e, cur(e), R_X86_64_PC32, (uint32_t)e->c->sym_frames, (int64_t)STUB_FRAMES_DELTA - 4);
	buf_u32(&e->tl->out, 0);
	uint8_t st[] = {(uint8_t)(0x48 | (v >> 3) << 2 | hi), 0x89, (uint8_t)((v & 7) << 3 | lo)}; /* mov %v,(%r) */
	PUT(e, st);
}

/* mov %rsp,%r; then the store: node v stored as the frame's whose CFA is
 * our %rsp (a call's callee's) */
static void emit_frame_word(struct emit *e, int r, int v)
{
	uint8_t hi = (uint8_t)(r >> 3), lo = (uint8_t)(r & 7);
	uint8_t mov[] = {(uint8_t)(0x48 | hi), 0x89, (uint8_t)(0xe0 | lo)}; /* mov %rsp,%r */
	PUT(e, mov);
	emit_frame_word_at(e, r, v);
}

/* The callee's frame node (%r11) stored where a call through a pointer
 * that goes past its callee's entry stub and its start's store
 * (PI_FUNC_INNER_SHIFT), or a call into the middle of a function, calls
 * or jumps (k): at its CFA, our %rsp for a call, our CFA for a tail
 * jump.  With a scratch register r (a call's frame_reg, a tail jump's
 * tail_target_reg): mov %rsp,%r or lea CFA,%r, then the store; else push
 * %r11; lea CFA,%r11; add delta(%rip),%r11; pop (%r11), whose push and
 * pop through the stack cost the small-call program 8 % of its time. */
static void emit_callee_frame(struct emit *e, uint32_t k, bool jump, int r)
{
	if (r >= 0 && jump) {
		emit_lea_cfa(e, k, 0, r);
		emit_frame_word_at(e, r, 11);
		return;
	}
	if (r >= 0) {
		emit_frame_word(e, r, 11);
		return;
	}
	int32_t cfa = e->t->cfa[k];
	PUT(e, PUSH_R11);
	if (cfa > 0) /* (an unwinder may start here: a signal, a cancellation) */
		cfa_row(e, (uint32_t)cfa + 8);
	if (jump)
		emit_lea_cfa_r11(e, k, 8);
	else
		emit_lea_rsp_r11(e, 8);
	emit_frames_r11(e, 0x03, STUB_FRAMES_DELTA);
	static const uint8_t pop[] = {0x41, 0x8f, 0x03};
	PUT(e, pop);
	if (cfa > 0)
		cfa_row(e, (uint32_t)cfa);
}

/* The frame node's store at the end of an entry stub (%r11 pushed): the
 * current node goes to the word of the frame whose CFA is %rsp + 16, when
 * the frames' nodes are where they were last (__profinst_cframe finds
 * them, or turns them off for the thread, the first time and on another
 * stack). */
static void emit_frame_store(struct emit *e)
{
	not_pic(e, "the frames' nodes");
	emit_lea_rsp_r11(e, 16);
	emit_frames_r11(e, 0x2b, STUB_FRAMES_LO);  /* sub lo(%rip),%r11 */
	emit_frames_r11(e, 0x3b, STUB_FRAMES_LEN); /* cmp len(%rip),%r11 */
	buf_u8(&e->tl->out, 0x73);                 /* jae miss */
	uint64_t j_miss = cur(e);
	buf_u8(&e->tl->out, 0);
	emit_frames_r11(e, 0x03, STUB_FRAMES_BASE); /* add base(%rip),%r11 */
	uint64_t write = cur(e);
	static const uint8_t push[] = {0x64, 0xff, 0x34, 0x25}; /* push %fs:cur */
	PUT(e, push);
	add_rela(e, cur(e), R_X86_64_TPOFF32, (uint32_t)e->c->sym_tls, STUB_TLS_CUR);
	buf_u32(&e->tl->out, 0);
	cfa_row(e, 24);
	static const uint8_t pop[] = {0x41, 0x8f, 0x03}; /* pop (%r11) */
	PUT(e, pop);
	cfa_row(e, 16);
	buf_u8(&e->tl->out, 0xeb); /* jmp out */
	uint64_t j_out = cur(e);
	buf_u8(&e->tl->out, 0);
	e->tl->out.p[j_miss] = (uint8_t)(cur(e) - j_miss - 1);
	emit_call_rt(e, e->c->sym_cframe);
	PUT(e, TEST_R11);
	buf_u8(&e->tl->out, 0x75); /* jne write */
	buf_u8(&e->tl->out, (uint8_t)(write - cur(e) - 1));
	e->tl->out.p[j_out] = (uint8_t)(cur(e) - j_out - 1);
}

/* Whether f's start stores its frame's node for a call that went past
 * its entry stub (NAME.pi_inner, MAP_INNER): the site leaves the node in
 * %r11.  Not in a function that calls nothing (no code of it reads the
 * word), nor in one that keeps no frame node; a call through a pointer
 * goes past this store too (PI_FUNC_INNER_SHIFT), storing the word
 * itself. */
static bool inner_store(const struct emit *e, const struct func *f)
{
	return e->c->opts->counting && keeps_frame(e, f) && !f->no_calls;
}

/* The register f's code finds its node in where it starts (e->cur_reg),
 * every way in leaving it there, so that its first counters need no load
 * of the thread's word (which the site's store just before the call
 * makes a store-to-load forwarding's wait); or -1.  A call past the
 * entry stub (emit_cinner, MAP_INNER) leaves it in %r11; the entry stub's
 * way loads it after its pop of %r11, and so does a call through a
 * pointer that goes past the stub (MAP_BRANCH, PI_FUNC_INNER_SHIFT: it
 * comes with its target in %r11), which goes in at that load.  %r11
 * where it is dead at f's start: f does not read it there, and no caller
 * in the object keeps a value in it through f (reglive.h), so that the
 * entry stub may leave the node in it.  Else another scratch register
 * dead there (the stub keeps %r11 for the callers), which a call past
 * the stub copies %r11 to: the one f's code writes least, not in its
 * first block, or none.  Not where f's code jumps back to its start (that
 * way in brings no node), where the store of its frame's node has no
 * register of its own to take (a push and a pop of %r11), nor where a
 * function of the object is left as it was (whose calls keep what gcc's
 * allocation keeps, which the liveness does not see). */
static int entry_reg(const struct emit *e, const struct func *f)
{
	const struct code *c = e->c;
	const struct block *b = &c->blocks[f->first_block];
	if (!c->opts->counting || !keeps_frame(e, f) || e->any_verbatim_func || b->preds || f->resyncs ||
	    (inner_store(e, f) && scratch_reg(b->gpr_live) < 0))
		return -1;
	if (!(b->gpr_live & 1u << 11))
		return 11;
	/* the scratch registers' writes in f (a call writes them all) */
	static const int order[] = {10, 9, 8, 7, 6, 2, 1, 0};
	uint32_t writes[16] = {0};
	uint16_t first = 0;
	for (int p = 0; p < f->npieces; p++) {
		const struct text *t = &c->texts[f->pieces[p].ts];
		uint32_t k0 = t->at[f->pieces[p].start];
		for (uint32_t k = k0; k0 != NO_INSN && k < t->ninsns && t->insns[k].off < f->pieces[p].end; k++) {
			const struct insn *in = &t->insns[k];
			const struct insn_detail *d = code_detail(c, in);
			bool call = in->kind == INSN_CALL || in->kind == INSN_CALL_IND || in->kind == INSN_SYSCALL;
			for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
				int r = order[i];
				if (call || !in->desc || in->rep || (d->wr & 1ull << r)) {
					writes[r]++;
					if (t->block[k] == f->first_block)
						first |= (uint16_t)(1u << r);
				}
			}
		}
	}
	int best = -1;
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++) {
		int r = order[i];
		if (!(b->gpr_live & 1u << r) && !(first & 1u << r) && (best < 0 || writes[r] < writes[best]))
			best = r;
	}
	return best;
}

/* The store of the frame's node (%r11) at f's start, where the CFA is
 * %rsp + 8: lea 8(%rsp),%r; add delta(%rip),%r; mov %r11,(%r), %r a
 * scratch register dead at f's entry (its callers', what gcc's
 * interprocedural allocation keeps included); else push %r11; lea
 * 16(%rsp),%r11; add delta(%rip),%r11; pop (%r11). */
static void emit_inner_store(struct emit *e, const struct func *f)
{
	int r = scratch_reg(e->c->blocks[f->first_block].gpr_live);
	if (r < 0) {
		PUT(e, PUSH_R11);
		cfa_row(e, 16);
		emit_lea_rsp_r11(e, 16);
		emit_frames_r11(e, 0x03, STUB_FRAMES_DELTA);
		static const uint8_t pop[] = {0x41, 0x8f, 0x03};
		PUT(e, pop);
		cfa_row(e, 8);
		return;
	}
	uint8_t hi = (uint8_t)(r >> 3), lo = (uint8_t)(r & 7);
	uint8_t lea[] = {(uint8_t)(0x48 | hi << 2), 0x8d, (uint8_t)(0x44 | lo << 3), 0x24, 0x08}; /* lea 8(%rsp),%r */
	PUT(e, lea);
	emit_frame_word_at(e, r, 11);
}

/* Where a node of f keeps the callee's node of its call slot slot */
static uint32_t slot_disp(const struct func *f, uint32_t slot)
{
	return STUB_CN_COUNTS + 8 * (f->nblocks + slot);
}

static const uint8_t FLAGS_SAVE[] = {0x50, 0x9f, 0x0f, 0x90, 0xc0};  /* push %rax; lahf; seto %al */
static const uint8_t FLAGS_RESTORE[] = {0x04, 0x7f, 0x9e, 0x58};     /* add $0x7f,%al; sahf; pop %rax */

/* The entry: the call a site set up finds its node in the slot; a call
 * through a pointer whose site called this function last time takes the
 * node the site's node keeps for it; anything else asks the runtime
 * (__profinst_centry). */
static void emit_centry(struct emit *e, const struct func *f)
{
	/* a function that reads flags it did not set keeps them (and asks
	 * the runtime for a pointer's call) */
	bool flags = e->c->blocks[f->first_block].live_in & FLAGS_STATUS;
	PUT(e, PUSH_R11);
	cfa_row(e, 16); /* (the stub's every push, for an unwinder) */
	if (pic(e)) {
		/* (a shared object's: a helper does it all, the site's slot
		 * or the pointer's node too) */
		emit_lea_r11_funcrec(e, f);
		emit_call_rt(e, flags ? e->c->sym_centry_flags : e->c->sym_pentry);
		PUT(e, POP_R11);
		cfa_row(e, 8);
		return;
	}
	if (flags) {
		PUT(e, FLAGS_SAVE);
		cfa_row(e, 24);
		static const uint8_t lea[] = {0x4c, 0x8d, 0x5c, 0x24, 0x08}; /* lea 8(%rsp),%r11 */
		PUT(e, lea);
		static const uint8_t cmp[] = {0x64, 0x4c, 0x39, 0x1c, 0x25}; /* cmp %r11,%fs: */
		PUT(e, cmp);
	} else {
		static const uint8_t cmp[] = {0x64, 0x48, 0x39, 0x24, 0x25}; /* cmp %rsp,%fs: */
		PUT(e, cmp);
	}
	add_rela(e, cur(e), R_X86_64_TPOFF32, (uint32_t)e->c->sym_tls, STUB_TLS_NEXTSP);
	buf_u32(&e->tl->out, 0);
	uint64_t to_slow[5];
	int nslow = 0;
	buf_u8(&e->tl->out, 0x75); /* jne pointer (or slow) */
	uint64_t j_ptr = cur(e);
	buf_u8(&e->tl->out, 0);
	emit_fs_r11(e, 0x8b, STUB_TLS_NEXT);
	static const uint8_t load[] = {0x4d, 0x8b, 0x1b}; /* mov (%r11),%r11 */
	PUT(e, load);
	PUT(e, TEST_R11);
	buf_u8(&e->tl->out, 0x74); /* je slow */
	to_slow[nslow++] = cur(e);
	buf_u8(&e->tl->out, 0);
	uint64_t take = cur(e);
	emit_fs_r11(e, 0x89, STUB_TLS_CUR);
	static const uint8_t inc[] = {0x49, 0xff, 0x43, STUB_CN_CALLS}; /* incq calls(%r11) */
	PUT(e, inc);
	emit_fs_zero(e, STUB_TLS_NEXTSP);
	if (flags) {
		PUT(e, FLAGS_RESTORE);
		cfa_row(e, 16);
		PUT(e, POP_R11);
		cfa_row(e, 8);
	}
	/* (without flags: to the frame node's store, the runtime's way's too) */
	buf_u8(&e->tl->out, 0xeb);
	uint64_t j_done = cur(e);
	buf_u8(&e->tl->out, 0);
	e->tl->out.p[j_ptr] = (uint8_t)(cur(e) - j_ptr - 1);
	if (!flags) {
		/* nextsp one past our %rsp: the site's node (a pointer's) is
		 * current; its first count, if this function's node */
		static const uint8_t lea[] = {0x4c, 0x8d, 0x5c, 0x24, 0x01}; /* lea 1(%rsp),%r11 */
		PUT(e, lea);
		static const uint8_t cmp[] = {0x64, 0x4c, 0x39, 0x1c, 0x25}; /* cmp %r11,%fs:nextsp */
		PUT(e, cmp);
		add_rela(e, cur(e), R_X86_64_TPOFF32, (uint32_t)e->c->sym_tls, STUB_TLS_NEXTSP);
		buf_u32(&e->tl->out, 0);
		buf_u8(&e->tl->out, 0x75);
		to_slow[nslow++] = cur(e);
		buf_u8(&e->tl->out, 0);
		emit_fs_r11(e, 0x8b, STUB_TLS_CUR);
		static const uint8_t ptr[] = {0x41, 0x80, 0x7b, STUB_CN_PTRSITE, STUB_CN_POINTER}; /* cmpb $POINTER,ptrsite(%r11) */
		PUT(e, ptr);
		buf_u8(&e->tl->out, 0x75);
		to_slow[nslow++] = cur(e);
		buf_u8(&e->tl->out, 0);
		static const uint8_t last[] = {0x4d, 0x8b, 0x5b, STUB_CN_COUNTS}; /* mov counts(%r11),%r11 */
		PUT(e, last);
		PUT(e, TEST_R11);
		buf_u8(&e->tl->out, 0x74);
		to_slow[nslow++] = cur(e);
		buf_u8(&e->tl->out, 0);
		static const uint8_t lea_rax[] = {0x50, 0x48, 0x8d, 0x05}; /* push %rax; lea rec(%rip),%rax */
		PUT(e, lea_rax);
		add_rela(e, cur(e), R_X86_64_PC32, (uint32_t)obj_section_symbol(e->c->o, f->rec_sec),
			 (int64_t)f->rec_off - 4);
		buf_u32(&e->tl->out, 0);
		static const uint8_t cmp_fn[] = {0x49, 0x39, 0x43, STUB_CN_FN, 0x58}; /* cmp %rax,fn(%r11); pop %rax */
		PUT(e, cmp_fn);
		buf_u8(&e->tl->out, 0x74); /* je take */
		buf_u8(&e->tl->out, (uint8_t)(take - cur(e) - 1));
	}
	for (int i = 0; i < nslow; i++)
		e->tl->out.p[to_slow[i]] = (uint8_t)(cur(e) - to_slow[i] - 1);
	if (flags) {
		cfa_row(e, 24);
		PUT(e, FLAGS_RESTORE);
		cfa_row(e, 16);
	} else
		cfa_row(e, 16);
	emit_lea_r11_funcrec(e, f);
	emit_call_rt(e, flags ? e->c->sym_centry_flags : e->c->sym_centry);
	if (flags) {
		PUT(e, POP_R11);
		cfa_row(e, 8);
		e->tl->out.p[j_done] = (uint8_t)(cur(e) - j_done - 1);
		return;
	}
	e->tl->out.p[j_done] = (uint8_t)(cur(e) - j_done - 1);
	if (!f->no_calls)
		emit_frame_store(e); /* (which only the code after a call reads) */
	PUT(e, POP_R11);
	cfa_row(e, 8);
}

/* The first register of mask in the order stubs take them, %r11 first,
 * or -1 */
static int first_reg(uint16_t mask)
{
	static const int order[] = {11, 10, 9, 8, 7, 6, 2, 1, 0, 3, 5, 13, 14, 15};
	for (size_t i = 0; i < sizeof(order) / sizeof(order[0]); i++)
		if (mask >> order[i] & 1)
			return order[i];
	return -1;
}

/* A register dead at the block's start (stub_free_regs), -1 if none */
static int dead_reg(const struct block *bl, bool not_rax)
{
	return first_reg((uint16_t)(stub_free_regs(bl) & (not_rax ? ~1u : 0xffffu)));
}

/* mov %fs:cur,%r */
static void emit_load_cur(struct emit *e, int r)
{
	if (pic(e)) {
		/* mov __profinst_tls@gottpoff(%rip),%r; mov %fs:cur(%r),%r
		 * (r neither %rsp nor %r12: dead_reg) */
		emit_tls_base(e, r);
		uint8_t b[] = {0x64, (uint8_t)(0x48 | (r >> 3) << 2 | r >> 3), 0x8b, (uint8_t)(0x80 | (r & 7) << 3 | (r & 7))};
		PUT(e, b);
		buf_u32(&e->tl->out, STUB_TLS_CUR);
		return;
	}
	uint8_t mov[] = {0x64, (uint8_t)(r >= 8 ? 0x4c : 0x48), 0x8b, (uint8_t)(0x04 | (r & 7) << 3), 0x25};
	PUT(e, mov);
	add_rela(e, cur(e), R_X86_64_TPOFF32, (uint32_t)e->c->sym_tls, STUB_TLS_CUR);
	buf_u32(&e->tl->out, 0);
}

/* incq counts+8*i(%r): block b's counter in the node %r holds */
static void emit_count(struct emit *e, int r, uint32_t b, const struct func *f)
{
	emit_r11m_reg(e, (uint8_t)(r >= 8 ? 0x49 : 0x48), 0xff, 0, (uint8_t)r, STUB_CN_COUNTS + 8 * (b - f->first_block));
}

/* Block slot's counter (of f's node) incremented where block bl starts,
 * through the current node loaded into a register dead there (r, where r
 * is one, else the first dead_reg), the status flags kept where they are
 * live: in %al (lahf; seto), in %rax where it is dead, else with %rax
 * pushed below the red zone, as %r11 is where no register is dead.  The
 * register that holds the node after it, or -1. */
static int emit_load_count(struct emit *e, const struct block *bl, int r, uint32_t slot, const struct func *f)
{
	bool flags = bl->live_in & FLAGS_STATUS;
	bool push_rax = flags && (bl->gpr_live & 1);
	if (r < 0 || (flags && r == 0))
		r = dead_reg(bl, flags);
	bool push_r11 = r < 0;
	if (push_r11)
		r = 11;
	if (push_rax || push_r11)
		PUT(e, LEA_RSP_M128);
	if (push_rax)
		buf_u8(&e->tl->out, 0x50);
	if (flags) {
		static const uint8_t keep[] = {0x9f, 0x0f, 0x90, 0xc0}; /* lahf; seto %al */
		PUT(e, keep);
	}
	if (push_r11)
		PUT(e, PUSH_R11);
	emit_load_cur(e, r);
	emit_count(e, r, slot, f);
	if (push_r11)
		PUT(e, POP_R11);
	if (flags) {
		static const uint8_t back[] = {0x04, 0x7f, 0x9e}; /* add $0x7f,%al; sahf */
		PUT(e, back);
	}
	if (push_rax)
		buf_u8(&e->tl->out, 0x58);
	if (push_rax || push_r11)
		PUT(e, LEA_RSP_P128);
	return push_r11 ? -1 : r; /* (r is not %rax where the flags go there) */
}

static void emit_cblock(struct emit *e, uint32_t b, const struct func *f)
{
	const struct block *bl = &e->c->blocks[b];
	if (e->cur_reg >= 0 && !(bl->live_in & FLAGS_STATUS)) {
		emit_count(e, e->cur_reg, b, f);
		return;
	}
	e->cur_reg = emit_load_count(e, bl, -1, b, f);
}

/* OP disp32(%base) with reg, 64 bits wide if w (base neither %rsp nor %r12) */
static void emit_rm(struct emit *e, bool w, uint8_t op, int reg, int base, uint32_t disp)
{
	uint8_t rex = (uint8_t)(0x40 | (w ? 8 : 0) | (reg >= 8 ? 4 : 0) | (base >= 8 ? 1 : 0));
	if (rex != 0x40)
		buf_u8(&e->tl->out, rex);
	uint8_t b[] = {op, (uint8_t)(0x80 | (reg & 7) << 3 | (base & 7))};
	PUT(e, b);
	buf_u32(&e->tl->out, disp);
}

/* OP %src,%dst, 64 bits wide if w */
static void emit_rr(struct emit *e, bool w, uint8_t op, int src, int dst)
{
	uint8_t rex = (uint8_t)(0x40 | (w ? 8 : 0) | (src >= 8 ? 4 : 0) | (dst >= 8 ? 1 : 0));
	if (rex != 0x40)
		buf_u8(&e->tl->out, rex);
	uint8_t b[] = {op, (uint8_t)(0xc0 | (src & 7) << 3 | (dst & 7))};
	PUT(e, b);
}

/* The stub of a way into or out of a loop whose register keeps block
 * s->block's counter (stepcount.h), on the edge into bl: in, the
 * register kept in the node; out, the turns since added to the counter
 * (the status flags are dead there), and the place cleared.  Through the
 * node in have (>= 0), else loaded into want or a free register; with a
 * second free register for the turns, but not avoid.  The register that
 * holds the node after it. */
static int emit_cstep(struct emit *e, const struct block *bl, const struct stepped_edge *se, int have, int want,
		      int avoid, const struct func *f)
{
	const struct stepped *s = &e->c->stepped[se->stepped];
	int r = s->reg;
	bool w = s->bits == 64;
	uint16_t free_regs = (uint16_t)(stub_free_regs(bl) & ~(1u << r));
	uint32_t keep = STUB_CN_COUNTS + 8 * (s->keep - f->first_block);
	uint32_t cnt = STUB_CN_COUNTS + 8 * (s->block - f->first_block);
	int rn = have >= 0 && have != r ? have : -1;
	if (rn < 0) {
		rn = want >= 0 && want != r && (free_regs >> want & 1) ? want : first_reg(free_regs);
		if (rn < 0) { /* (stepcount.c found one) */
			pi_error("internal error: %s: no register for a loop's stub", f->name);
			abort();
		}
		emit_load_cur(e, rn);
	}
	if (se->in) {
		emit_rm(e, w, 0x89, r, rn, keep); /* mov %r,keep(%rn) */
		return rn;
	}
	int rt = first_reg((uint16_t)(free_regs & ~(1u << rn) & (avoid >= 0 ? ~(1u << avoid) : 0xffff)));
	if (rt < 0) { /* (stepcount.c found three) */
		pi_error("internal error: %s: no register for a loop's stub", f->name);
		abort();
	}
	if (s->down) {
		emit_rm(e, w, 0x8b, rt, rn, keep); /* mov keep(%rn),%rt */
		emit_rr(e, w, 0x29, r, rt);        /* sub %r,%rt */
	} else {
		emit_rr(e, w, 0x89, r, rt);        /* mov %r,%rt */
		emit_rm(e, w, 0x2b, rt, rn, keep); /* sub keep(%rn),%rt */
	}
	if (s->shift) { /* shr $shift,%rt */
		uint8_t b[] = {(uint8_t)(0x48 | (rt >= 8 ? 1 : 0)), 0xc1, (uint8_t)(0xe8 | (rt & 7)), s->shift};
		PUT(e, b);
	}
	if (se->add) /* lea add(%rt),%rt */
		emit_rm(e, true, 0x8d, rt, rt, (uint32_t)se->add);
	emit_rm(e, true, 0x01, rt, rn, cnt); /* add %rt,cnt(%rn) */
	emit_rm(e, w, 0xc7, 0, rn, keep);    /* movl $0,keep(%rn) */
	buf_u32(&e->tl->out, 0);
	return rn;
}

/* The stubs of an edge into the block that instruction kt starts, from
 * the jump l->kp: a loop's register's (emit_cstep), then the counter of
 * block l->slot, which counts the edge (block.eto): where the edge's jump
 * lands, before that block's label, so that its registers and flags are
 * the block's.  Through the register the jump leaves the current node
 * in, if it does (as the pass saw it, before: a jump back's is not known
 * yet); it leaves the node where the block assumes it.  avoid: a
 * register that holds the node for the block, which stays so. */
static void emit_cedge(struct emit *e, uint32_t kt, const struct landing *l, int avoid, const struct func *f)
{
	const struct block *bl = &e->c->blocks[e->t->block[kt]];
	int want = e->assumed ? e->assumed[kt] : -1;
	int have = e->edge_reg && l->kp < kt ? e->edge_reg[l->kp] : -1;
	if (l->stepped != UINT32_MAX)
		have = emit_cstep(e, bl, &e->c->stepped_edges[l->stepped], have, want, avoid, f);
	if (l->slot != UINT32_MAX && have >= 0 && !(bl->live_in & FLAGS_STATUS))
		emit_count(e, have, l->slot, f);
	else if (l->slot != UINT32_MAX)
		have = emit_load_count(e, bl, want, l->slot, f);
	if (want >= 0 && want != have && have >= 0) {
		/* mov %have,%want */
		uint8_t mov[] = {(uint8_t)(0x48 | (have >= 8 ? 4 : 0) | (want >= 8 ? 1 : 0)), 0x89,
				 (uint8_t)(0xc0 | (have & 7) << 3 | (want & 7))};
		PUT(e, mov);
	} else if (want >= 0 && have < 0)
		emit_load_cur(e, want);
}

/* jmp rel32, to be aimed later: its field's offset */
static uint64_t emit_jmp_later(struct emit *e)
{
	buf_u8(&e->tl->out, 0xe9);
	uint64_t field = cur(e);
	buf_u32(&e->tl->out, 0);
	return field;
}

/* Before the label of instruction k (of f), the counters of the edges into
 * its block that have one (block.eto): the one its jump falls into first,
 * then those jumped to (edge_at), each going on to the label, as the
 * instruction before, if it falls, does.  Where the block starts, for the
 * unwind rows and the line table, is before them (pre): the state on each
 * edge is the block's.  True if there were any. */
static bool emit_landings(struct emit *e, uint32_t k, const struct func *f)
{
	size_t i = e->at_landing, end = i;
	while (end < e->nlanding && e->landing[end].kt == k)
		end++;
	if (end == i)
		return false;
	e->at_landing = end;
	const struct text *t = e->t;
	bool falls_in = false;
	if (k && t->insns[k - 1].off + t->insns[k - 1].len == t->insns[k].off && t->fn[k - 1] == t->fn[k]) {
		enum insn_kind pk = t->insns[k - 1].kind;
		falls_in = pk != INSN_JMP && pk != INSN_JMP_IND && pk != INSN_RET && pk != INSN_TRAP;
	}
	uint64_t *later = xmalloc((end - i + 1) * sizeof(*later));
	size_t nlater = 0;
	int keep = e->cur_reg;
	e->cur_reg = -1;
	bool fall = e->landing[i].fall;
	if (fall)
		emit_cedge(e, k, &e->landing[i], keep, f), i++;
	if (i < end && (fall || falls_in)) /* (past the jumps' counters) */
		later[nlater++] = emit_jmp_later(e);
	for (; i < end; i++) {
		e->tl->edge_at[e->landing[i].kp] = (uint32_t)cur(e);
		emit_cedge(e, k, &e->landing[i], -1, f);
		if (i + 1 < end)
			later[nlater++] = emit_jmp_later(e);
	}
	for (size_t j = 0; j < nlater; j++)
		wr32(e->tl->out.p + later[j], (uint32_t)(cur(e) - later[j] - 4));
	e->cur_reg = keep;
	free(later);
	return true;
}

/* Whether the register that holds the current node before instruction k,
 * a leader of f, still does at k: k's block is entered only from the
 * instruction before it, which falls into it (a block after a call too:
 * the code after the call counts it through %r11), and no other way
 * (not an entry, a resync point, an address taken).  The instructions
 * between kill it as they write it (keep_cur_after). */
static bool keeps_cur(const struct emit *e, uint32_t k)
{
	const struct text *t = e->t;
	if (!k || (t->mark[k] & (MARK_FSTART | MARK_PSTART | MARK_RESYNC | MARK_ADDR | MARK_ENTERED)) ||
	    t->fn[k - 1] != t->fn[k] ||
	    t->insns[k - 1].off + t->insns[k - 1].len != t->insns[k].off || e->c->blocks[t->block[k]].edges != 1)
		return false;
	enum insn_kind pk = t->insns[k - 1].kind;
	return pk != INSN_JMP && pk != INSN_JMP_IND && pk != INSN_RET && pk != INSN_TRAP;
}

/* Whether instruction k, the last of its block, goes on to one block of
 * its function only, by a direct jump or by falling (a call returns
 * there), so that a load of the current node can go last in it: before
 * the jump, or after all the code that follows a call. */
static bool fixable(const struct emit *e, uint32_t k)
{
	if (e->t->mark[k] & (MARK_TAIL | MARK_EXT | MARK_FLUSH))
		return false;
	switch (e->t->insns[k].kind) {
	case INSN_JMP: case INSN_OTHER: case INSN_CALL: case INSN_CALL_IND:
		return true;
	default:
		return false;
	}
}

/* After instruction k of f (its body; before the code after a call): the
 * register that holds the current node, if k leaves it alone.  A call, a
 * system call or any jump (a conditional tail jump's stub takes %r11)
 * ends it. */
static void keep_cur_after(struct emit *e, uint32_t k)
{
	if (e->cur_reg < 0)
		return;
	const struct insn *in = &e->t->insns[k];
	const struct insn_detail *d = code_detail(e->c, in);
	bool jumps = in->kind != INSN_OTHER &&
		     !((in->kind == INSN_JCC || in->kind == INSN_LOOP) && !(e->t->mark[k] & MARK_TAIL));
	if (jumps || in->rep || !d || (d->wr & (1ull << e->cur_reg)))
		e->cur_reg = -1;
}

/* Name the slot for the call or jump coming: next = its address,
 * nextsp = the callee's %rsp past its entry's push (sp_at_entry: the
 * callee's %rsp at entry relative to ours; odd: a call through a pointer,
 * which the runtime settles). */
static void emit_cset(struct emit *e, const struct func *f, uint32_t slot, int32_t sp_at_entry, bool save)
{
	int32_t shift = save ? 136 : 0;
	if (save) {
		PUT(e, LEA_RSP_M128);
		PUT(e, PUSH_R11);
	}
	emit_fs_r11(e, 0x8b, STUB_TLS_CUR);
	emit_r11m(e, 0x4d, 0x8d, 3, slot_disp(f, slot)); /* lea slot(%r11),%r11 */
	emit_fs_r11(e, 0x89, STUB_TLS_NEXT);
	emit_lea_rsp_r11(e, sp_at_entry - 8 + shift);
	emit_fs_r11(e, 0x89, STUB_TLS_NEXTSP);
	if (save) {
		PUT(e, POP_R11);
		PUT(e, LEA_RSP_P128);
	}
}

/* After call k of f: the current node is the caller's again, the one its
 * frame keeps where the unwind table says where its CFA is, else the
 * callee's node's parent.  (Both give the same node; the first is one
 * load from an address %rsp gives, the second a chain through the
 * current node that each call and return in turn waits for.) */
static void emit_cback(struct emit *e, bool save, uint32_t k, const struct func *f)
{
	if (save) {
		PUT(e, LEA_RSP_M128);
		PUT(e, PUSH_R11);
	}
	/* the frame's way falls through: cmpb; je 1f; the parent's; jmp 2f;
	 * 1: the frame's; 2: */
	uint64_t j_frame = site_frame(e, k, f) ? emit_frames_off_jcc(e, 0x74) : 0, j_store = 0;
	emit_fs_r11(e, 0x8b, STUB_TLS_CUR);
	emit_r11m(e, 0x4d, 0x8b, 3, STUB_CN_FPARENT);
	if (j_frame) {
		buf_u8(&e->tl->out, 0xeb); /* jmp store */
		j_store = cur(e);
		buf_u8(&e->tl->out, 0);
		e->tl->out.p[j_frame] = (uint8_t)(cur(e) - j_frame - 1);
		emit_lea_cfa_r11(e, k, save ? 136 : 0);
		emit_frames_r11(e, 0x03, STUB_FRAMES_DELTA); /* add delta(%rip),%r11 */
		static const uint8_t load[] = {0x4d, 0x8b, 0x1b}; /* mov (%r11),%r11 */
		PUT(e, load);
		e->tl->out.p[j_store] = (uint8_t)(cur(e) - j_store - 1);
	}
	if (e->to_store) {
		wr32(e->tl->out.p + e->to_store, (uint32_t)(cur(e) - e->to_store - 4));
		e->to_store = 0;
	}
	emit_fs_r11(e, 0x89, STUB_TLS_CUR);
	if (save) {
		PUT(e, POP_R11);
		PUT(e, LEA_RSP_P128);
	} else
		e->cur_reg = 11; /* (for the block it falls into: keeps_cur) */
}

/* What an external the model costs takes per call, in its node (%r11)
 * (runtime/counting.c, ext_cost): a call with a NULL first argument where
 * that has a cost of its own (realloc(NULL, n), free(NULL)) counts in
 * counts[0] instead; the bytes of the argument the cost is per byte of
 * (calloc's: the product of two) add up in counts[1]. */
static void emit_cext_cost(struct emit *e, const struct external *x)
{
	if (!(x->flags & PI_EXT_FIXED))
		return;
	static const uint8_t argreg[] = {0, 7, 6, 2}; /* %rdi, %rsi, %rdx */
	uint32_t arg = x->cost.arg & 0xff;
	uint64_t over = 0;
	if (x->cost.null_units) {
		static const uint8_t test[] = {0x48, 0x85, 0xff, 0x75, 0x06}; /* test %rdi,%rdi; jnz +6 */
		PUT(e, test);
		static const uint8_t inc[] = {0x49, 0xff, 0x43, STUB_CN_COUNTS, 0xeb}; /* incq counts(%r11); jmp */
		PUT(e, inc);
		over = cur(e);
		buf_u8(&e->tl->out, 0);
	}
	if (arg >= 1 && arg <= 3) /* add %reg, bytes(%r11) */
		emit_r11m(e, 0x49, 0x01, argreg[arg], STUB_CN_COUNTS + 8);
	else if (arg == 4) {
		/* push %rax; mov %rdi,%rax; imul %rsi,%rax; jo 1f; add %rax,bytes(%r11); 1: pop %rax
		 * (calloc's nmemb * size; one that overflows fails at once) */
		static const uint8_t mul[] = {0x50, 0x48, 0x89, 0xf8, 0x48, 0x0f, 0xaf, 0xc6, 0x70, 0x07};
		PUT(e, mul);
		emit_r11m(e, 0x49, 0x01, 0, STUB_CN_COUNTS + 8);
		buf_u8(&e->tl->out, 0x58);
	}
	if (over)
		e->tl->out.p[over] = (uint8_t)(cur(e) - over - 1);
}

/* The node in the slot, made by the runtime the first time (rec: the
 * external's record; none: a call through a pointer's node), made
 * current for the call unless not current (a transparent external's,
 * ext_transparent: the caller's stays current, and nothing restores it
 * after the call); an external's call counted there if count (a tail
 * jump's: a call's count is its block's, runtime/counting.c). */
static void emit_cnode(struct emit *e, const struct func *f, uint32_t slot, const struct external *x, bool current,
		       bool count)
{
	/* (a call's site: nothing of the stubs before it wrote the register
	 * that holds the current node) */
	emit_cur_field_r11(e, slot_disp(f, slot), !count && x); /* mov slot(node),%r11 */
	PUT(e, TEST_R11);
	buf_u8(&e->tl->out, 0x75); /* jnz have */
	uint64_t j = cur(e);
	buf_u8(&e->tl->out, 0);
	/* the runtime's way: the slot named in next */
	emit_fs_r11(e, 0x8b, STUB_TLS_CUR);
	emit_r11m(e, 0x4d, 0x8d, 3, slot_disp(f, slot));
	emit_fs_r11(e, 0x89, STUB_TLS_NEXT);
	if (x)
		emit_lea_r11_rec(e, x->rec_sec, x->rec_off);
	else {
		static const uint8_t zero[] = {0x45, 0x31, 0xdb}; /* xor %r11d,%r11d */
		PUT(e, zero);
	}
	emit_call_rt(e, e->c->sym_cextnew);
	e->tl->out.p[j] = (uint8_t)(cur(e) - j - 1);
	if (x && count) {
		static const uint8_t inc[] = {0x49, 0xff, 0x43, STUB_CN_CALLS};
		PUT(e, inc);
	}
	if (x)
		emit_cext_cost(e, x);
	if (current)
		emit_fs_r11(e, 0x89, STUB_TLS_CUR);
	if (x && (x->flags & PI_EXT_CHECK)) {
		/* (profinst -c) it may be instrumented after all: then the
		 * slot's node is a pointer's, and its entry takes the call
		 * as one through a pointer */
		emit_lea_rsp_r11(e, -8 - 8 + 1);
		emit_fs_r11(e, 0x89, STUB_TLS_NEXTSP);
	}
}

/* Whether instruction k is a call or jump the counting stubs handle, and
 * emit what goes before it.  *after: emit_cback after it. */
static void emit_body(struct emit *e, uint32_t k, const struct func *f);

/* A direct call or tail jump to an instrumented function, where %r11 is
 * free: the caller finds the callee's node itself and goes past its entry
 * stub (emit_cinner).  In this object the callee must not read flags at
 * entry (the stub's test leaves its own); another object's reads none, by
 * the ABI. */
static bool inner_call(const struct emit *e, uint32_t k)
{
	/* the caller reads its own frame's node at once after the call:
	 * where its own frame's is known to be */
	if (r11_live_at(e, k) || !site_frame(e, k, &e->c->funcs[e->t->fn[k]]))
		return false;
	if (e->t->inner_sym && e->t->inner_sym[k] >= 0)
		return true;
	int32_t g = local_callee(e->c, e->t, k);
	return g >= 0 && e->c->funcs[g].instrument &&
	       !(e->c->blocks[e->c->funcs[g].first_block].live_in & FLAGS_STATUS);
}

/* After a call that went past its callee's entry stub, frame nodes on:
 * the caller's node from its frame's word (lea CFA,%r11; add
 * delta(%rip),%r11; mov (%r11),%r11), then jmp to the store of the code
 * after the call (e->to_store, which emit_cback patches). */
static void emit_frame_return(struct emit *e, uint32_t k)
{
	emit_lea_cfa_r11(e, k, 0);
	emit_frames_r11(e, 0x03, STUB_FRAMES_DELTA); /* add delta(%rip),%r11 */
	static const uint8_t load[] = {0x4d, 0x8b, 0x1b, 0xe9}; /* mov (%r11),%r11; jmp */
	PUT(e, load);
	e->to_store = cur(e);
	buf_u32(&e->tl->out, 0);
}

/* mov %fs:cur,%r11; mov slot(%r11),%r11; test; jz 1f; mov %r11,%fs:cur;
 * (a jump's) incq calls(%r11); call (or jmp) past the callee's entry stub
 * (MAP_INNER, NAME.pi_inner), whose start stores %r11 as its frame's node;
 * (a call's) the caller's node from its frame's word, jmp to the store of
 * the code after the call (emit_cback);
 * 1: the call or jump as any other (the callee's entry makes its node).
 * (A tail jump's node was made with the caller's fparent as its own:
 * the callee returns to the caller's caller.) */
static void emit_cinner(struct emit *e, uint32_t k, const struct func *f, uint32_t slot)
{
	bool jump = e->t->insns[k].kind != INSN_CALL;
	uint64_t j0 = emit_frames_off_jne(e);
	emit_cur_field_r11(e, slot_disp(f, slot), true);
	PUT(e, TEST_R11);
	static const uint8_t jz[] = {0x0f, 0x84};
	PUT(e, jz);
	uint64_t j1 = cur(e);
	buf_u32(&e->tl->out, 0);
	emit_fs_r11(e, 0x89, STUB_TLS_CUR);
	if (jump) { /* (a call's count is its block's) */
		static const uint8_t inc[] = {0x49, 0xff, 0x43, STUB_CN_CALLS};
		PUT(e, inc);
	}
	/* (the callee's start stores its frame's node, %r11: MAP_INNER; a
	 * call into the middle of a function of this object, which has no
	 * such start, stores it here) */
	bool sym = e->t->inner_sym && e->t->inner_sym[k] >= 0;
	if (!sym && local_entry_callee(e->c, e->t, k) < 0)
		emit_callee_frame(e, k, jump, frame_reg(e, k));
	if (sym)
		emit_branch_sym(e, jump ? 0xe9 : 0xe8, e->t->inner_sym[k]);
	else {
		buf_u8(&e->tl->out, jump ? 0xe9 : 0xe8);
		emit_rel32_to_target(e, k, MAP_INNER, false);
	}
	if (!jump) {
		/* the caller's node from its frame's word at once: frame nodes
		 * were on for this thread here (they are never turned on
		 * again once off), so its entry, or the site that went past
		 * it, stored the word; then to the store (emit_cback), past
		 * the test the other call's return takes */
		emit_frame_return(e, k);
	}
	wr32(e->tl->out.p + j1, (uint32_t)(cur(e) - j1 - 4));
	e->tl->out.p[j0] = (uint8_t)(cur(e) - j0 - 1);
	emit_cset(e, f, slot, jump ? 0 : -8, false);
	if (e->t->insns[k].kind == INSN_JCC) { /* (the jump's condition held) */
		buf_u8(&e->tl->out, 0xe9);
		emit_rel32_to_target(e, k, MAP_PLACE, false);
		return;
	}
	e->tl->pos[k] = (uint32_t)cur(e);
	emit_body(e, k, f);
}

/* OP disp(%base) with the ModRM's reg field reg, 64 bits (base neither
 * %rsp nor %r12, whose addressing takes a SIB byte) */
static void emit_rm64(struct emit *e, uint8_t op, int reg, int base, uint32_t disp)
{
	emit_r11m_reg(e, (uint8_t)(0x48 | (reg >> 3) << 2 | base >> 3), op, (uint8_t)reg, (uint8_t)base, disp);
}

/* A rel32 field at `at' aimed at here */
static void patch_rel32_here(struct emit *e, uint64_t at)
{
	wr32(e->tl->out.p + at, (uint32_t)(cur(e) - at - 4));
}

/* A rel8 field at `at' aimed at here (the stubs' own short jumps, which
 * never pass a few dozen bytes: checked all the same) */
static void patch_rel8_here(struct emit *e, uint64_t at)
{
	uint64_t d = cur(e) - at - 1;
	if (d > 127) {
		pi_error("internal error: %s: a stub's short jump of %llu bytes", e->s->name, (unsigned long long)d);
		abort();
	}
	e->tl->out.p[at] = (uint8_t)d;
}

/* The kept callee's entry work by registers, its words at inner and
 * callee (emit_kept_call) */
static void emit_kept_words(struct emit *e, uint32_t k, int r1, int r2, int inner, int callee)
{
	emit_rm64(e, 0x8b, 11, r1, STUB_CN_COUNTS + 8 * inner); /* mov inner(%r1),%r11 */
	if (r2 < 0) {
		/* the callee's node by %r11, the target by its TLS word */
		emit_fs_r11(e, 0x89, STUB_TLS_TARGET);
		emit_rm64(e, 0x8b, 11, r1, STUB_CN_COUNTS + 8 * callee);
		emit_fs_r11(e, 0x89, STUB_TLS_CUR);
		static const uint8_t inc[] = {0x49, 0xff, 0x43, STUB_CN_CALLS};
		PUT(e, inc);
		emit_callee_frame(e, k, e->t->insns[k].kind == INSN_JMP_IND, r1);
		return;
	}
	emit_rm64(e, 0x8b, r1, r1, STUB_CN_COUNTS + 8 * callee); /* mov callee(%r1),%r1 */
	uint8_t st[] = {0x64, (uint8_t)(0x48 | (r1 >> 3) << 2), 0x89, (uint8_t)(0x04 | (r1 & 7) << 3), 0x25};
	PUT(e, st); /* mov %r1,%fs:cur */
	add_rela(e, cur(e), R_X86_64_TPOFF32, (uint32_t)e->c->sym_tls, STUB_TLS_CUR);
	buf_u32(&e->tl->out, 0);
	emit_rm64(e, 0xff, 0, r1, STUB_CN_CALLS); /* incq calls(%r1) */
	emit_frame_word(e, r2, r1);
}

/* The call through a pointer's fast way where the site has a scratch
 * register r1 and maybe a second, r2 (free_reg; else -1), and the target
 * in %r11:
 *   cmpb $0,%fs:frames_off; jne general; mov %fs:cur,%r1;
 *   mov slot(%r1),%r1; test %r1,%r1; jz general; cmp entry(%r1),%r11;
 *   je 1f; cmp entry2(%r1),%r11; jne general; the second's words; jmp 2f;
 *   1: mov inner(%r1),%r11; mov callee(%r1),%r1;
 *   mov %r1,%fs:cur; incq calls(%r1); the frame's word (%r2 its address)
 *   2:
 * which leaves the address past the kept function's entry stub in %r11,
 * for the caller's call; without r2, the callee's node goes by %r11 and
 * the address by %fs:target (to load again before the call).  What the
 * slower way keeps in TLS words (the target, the pointer's node made
 * current) stays in registers: none of its loads waits for a store just
 * made.  *general: the three jumps (rel32) to the slower way. */
static void emit_kept_call(struct emit *e, uint32_t k, const struct func *f, uint32_t slot, int r1, int r2,
			   uint64_t general[3])
{
	not_pic(e, "a kept pointer's call");
	general[0] = emit_frames_off_jne32(e);
	emit_load_cur(e, r1);
	emit_rm64(e, 0x8b, r1, r1, slot_disp(f, slot));
	uint8_t test[] = {(uint8_t)(0x48 | (r1 >> 3) << 2 | r1 >> 3), 0x85, (uint8_t)(0xc0 | (r1 & 7) << 3 | (r1 & 7))};
	PUT(e, test);
	static const uint8_t jz[] = {0x0f, 0x84};
	PUT(e, jz);
	general[1] = cur(e);
	buf_u32(&e->tl->out, 0);
	emit_rm64(e, 0x3b, 11, r1, STUB_CN_COUNTS + 8 * STUB_PTR_ENTRY); /* cmp entry(%r1),%r11 */
	static const uint8_t je[] = {0x74, 0x00};
	PUT(e, je);
	uint64_t to_first = cur(e) - 1;
	emit_rm64(e, 0x3b, 11, r1, STUB_CN_COUNTS + 8 * STUB_PTR_ENTRY2); /* cmp entry2(%r1),%r11 */
	static const uint8_t jne[] = {0x0f, 0x85};
	PUT(e, jne);
	general[2] = cur(e);
	buf_u32(&e->tl->out, 0);
	emit_kept_words(e, k, r1, r2, STUB_PTR_INNER2, STUB_PTR_CALLEE2);
	static const uint8_t jmp[] = {0xeb, 0x00};
	PUT(e, jmp);
	uint64_t to_end = cur(e) - 1;
	patch_rel8_here(e, to_first);
	emit_kept_words(e, k, r1, r2, STUB_PTR_INNER, STUB_PTR_CALLEE);
	patch_rel8_here(e, to_end);
}

/* The register a tail jump through a pointer k leaves free once its
 * target is in %r11, or -1: %rax, which the liveness keeps live at a
 * tail jump (a variadic callee's count of vector registers), where the
 * jump takes its target from it (pointer_target_rax), or where nothing
 * wrote it since the function's entry or its last call (text.set_up: a
 * count is set up for the call it goes with, as call_reads takes it). */
static int tail_target_reg(const struct emit *e, uint32_t k)
{
	if (e->t->insns[k].kind != INSN_JMP_IND)
		return -1;
	return pointer_target_rax(e->c, e->t, k) || (e->t->set_up && !(e->t->set_up[k] & CHAIN_RAX)) ? 0 : -1;
}

/*
 * A call (or tail jump) through a pointer k from f, slot its slot:
 *   mov TARGET,%r11; mov %r11,%fs:target; the slot's node (a pointer's)
 *   current; mov counts(%r11),%r11; test; jz 1f; mov fn(%r11),%r11;
 *   lea addr(%r11),%r11; add (%r11),%r11; cmp %fs:target,%r11; jne 1f;
 *   lea -15(%rsp),%r11; mov %r11,%fs:nextsp; jmp 2f;
 *   1: call __profinst_cptr; 2: mov %fs:target,%r11; call *%r11;
 *   mov %fs:cur,%r11; cmpb $2,ptrsite(%r11); jne 3f;
 *   call __profinst_cmeas_stop; 3:
 * The function the site called last (its node the pointer's node keeps)
 * is called at once, and its entry takes that node; before that, where
 * frames keep their nodes, the last two functions the site kept are
 * tried by their entries, and called past their stubs; any other target
 * goes by the runtime first, which names an instrumented function's
 * node for its entry, and makes any other's, an external's, current and
 * starts its clock, which the code after the call stops.  A tail jump's
 * callee enters at our %rsp, and returns to our caller, whose node is
 * current after it: an external's is counted, not timed.  A call with a
 * scratch register to spare tries the kept function first by registers
 * (emit_kept_call), and takes the rest of this way when it is not the
 * target.
 */
static void emit_cptrcall(struct emit *e, uint32_t k, const struct func *f, uint32_t slot)
{
	bool jump = e->t->insns[k].kind == INSN_JMP_IND;
	emit_target_r11(e, k);
	uint64_t to_keep = 0, to_call_fast[2] = {0, 0};
	bool kept_first = false;
	uint64_t to_general[3];
	int r1 = !site_frame(e, k, f) ? -1 : jump ? tail_target_reg(e, k) : frame_reg(e, k);
	int r2 = r1 >= 0 && !jump ? free_reg(e, k, 1u << r1) : -1;
	if (r1 >= 0) {
		/* a scratch register: the kept function's call by registers
		 * (emit_kept_call), a call of its own (the one the site's
		 * return address names is the other's); after it the
		 * caller's node from its frame's word at once, as after a
		 * call past the entry stub (emit_cinner): an instrumented
		 * function was called, with frame nodes on, and no external's
		 * clock runs.  A tail jump's, its jump of its own. */
		emit_kept_call(e, k, f, slot, r1, r2, to_general);
		if (r2 < 0)
			emit_fs_r11(e, 0x8b, STUB_TLS_TARGET);
		if (icall_notrack(e, k))
			buf_u8(&e->tl->out, 0x3e);
		const uint8_t call_r11[] = {0x41, 0xff, jump ? 0xe3 : 0xd3};
		PUT(e, call_r11);
		if (!jump)
			emit_frame_return(e, k);
		kept_first = true;
		for (int i = 0; i < 3; i++)
			patch_rel32_here(e, to_general[i]);
	}
	emit_fs_r11(e, 0x89, STUB_TLS_TARGET);
	emit_cnode(e, f, slot, NULL, true, false);
	if (site_frame(e, k, f) && !kept_first) {
		/* the function the pointer's node keeps, where it may be
		 * entered past its stub: the site does the entry's work (its
		 * node current, its call counted, its frame's node stored)
		 * and calls past the stub */
		to_keep = emit_frames_off_jne32(e);
		/* the one it kept last, then the one before (32-bit jumps to
		 * the call: the second's words and the general way lie
		 * between) */
		static const int words[2][3] = {{STUB_PTR_ENTRY, STUB_PTR_INNER, STUB_PTR_CALLEE},
						{STUB_PTR_ENTRY2, STUB_PTR_INNER2, STUB_PTR_CALLEE2}};
		for (int w = 0; w < 2; w++) {
			if (w)
				emit_fs_r11(e, 0x8b, STUB_TLS_CUR); /* the pointer's node again */
			emit_r11m(e, 0x4d, 0x8b, 3, STUB_CN_COUNTS + 8 * words[w][0]); /* mov entry,%r11 */
			emit_fs_r11(e, 0x3b, STUB_TLS_TARGET);                       /* cmp %fs:target,%r11 */
			buf_u8(&e->tl->out, 0x75);
			uint64_t to_next = cur(e);
			buf_u8(&e->tl->out, 0);
			emit_fs_r11(e, 0x8b, STUB_TLS_CUR);
			emit_r11m(e, 0x4d, 0x8b, 3, STUB_CN_COUNTS + 8 * words[w][1]);
			emit_fs_r11(e, 0x89, STUB_TLS_TARGET); /* where the call goes */
			emit_fs_r11(e, 0x8b, STUB_TLS_CUR);
			emit_r11m(e, 0x4d, 0x8b, 3, STUB_CN_COUNTS + 8 * words[w][2]);
			emit_fs_r11(e, 0x89, STUB_TLS_CUR);
			static const uint8_t inc[] = {0x49, 0xff, 0x43, STUB_CN_CALLS};
			PUT(e, inc);
			emit_callee_frame(e, k, jump, frame_reg(e, k));
			buf_u8(&e->tl->out, 0xe9); /* jmp call */
			to_call_fast[w] = cur(e);
			buf_u32(&e->tl->out, 0);
			patch_rel8_here(e, to_next);
		}
		emit_fs_r11(e, 0x8b, STUB_TLS_CUR); /* the pointer's node again */
		patch_rel32_here(e, to_keep);
	}
	static const uint8_t last[] = {0x4d, 0x8b, 0x5b, STUB_CN_COUNTS}; /* mov counts(%r11),%r11 */
	PUT(e, last);
	PUT(e, TEST_R11);
	uint64_t to_rt[2];
	buf_u8(&e->tl->out, 0x74);
	to_rt[0] = cur(e);
	buf_u8(&e->tl->out, 0);
	static const uint8_t addr[] = {0x4d, 0x8b, 0x5b, STUB_CN_FN,     /* mov fn(%r11),%r11 */
				       0x4d, 0x8d, 0x5b, STUB_FR_ADDR0,  /* lea addr[0](%r11),%r11 */
				       0x4d, 0x03, 0x1b};                /* add (%r11),%r11: its entry */
	PUT(e, addr);
	emit_fs_r11(e, 0x3b, STUB_TLS_TARGET); /* cmp %fs:target,%r11 */
	buf_u8(&e->tl->out, 0x75);
	to_rt[1] = cur(e);
	buf_u8(&e->tl->out, 0);
	emit_lea_rsp_r11(e, (jump ? 0 : -8) - 8 + 1);
	emit_fs_r11(e, 0x89, STUB_TLS_NEXTSP);
	buf_u8(&e->tl->out, 0xeb);
	uint64_t to_call = cur(e);
	buf_u8(&e->tl->out, 0);
	for (int i = 0; i < 2; i++)
		e->tl->out.p[to_rt[i]] = (uint8_t)(cur(e) - to_rt[i] - 1);
	emit_call_rt(e, jump ? e->c->sym_cptr_tail : e->c->sym_cptr);
	e->tl->out.p[to_call] = (uint8_t)(cur(e) - to_call - 1);
	for (int w = 0; w < 2; w++)
		if (to_call_fast[w])
			patch_rel32_here(e, to_call_fast[w]);
	emit_fs_r11(e, 0x8b, STUB_TLS_TARGET);
	emit_call_r11(e, k, jump);
	if (jump)
		return;
	emit_fs_r11(e, 0x8b, STUB_TLS_CUR);
	static const uint8_t ext[] = {0x41, 0x80, 0x7b, STUB_CN_PTRSITE, STUB_CN_PTR_EXT, 0x75, 0x05}; /* cmpb $PTR_EXT; jne +5 */
	PUT(e, ext);
	emit_call_rt(e, e->c->sym_cmeas_stop);
}

/* The external call k's clock starts or stops (sym): an external the model
 * costs as the C locale's is measured only once the program has set a
 * locale (cmpl $0,rt_locale_set(%rip); je over the call).  A mutex's lock
 * or unlock (PI_EXT_SOLO) only where the process has had more than one
 * thread, or the mutex (%rdi) is not a plain one of its own, as
 * runtime/external.c, rt_ext_solo_measured, says:
 *   mov rt_solo_word(%rip),%r11; cmpb $0,(%r11); je 1f; test %rdi,%rdi;
 *   je 1f; testb $0xf0,16(%rdi); je 2f; 1: call start; 2:
 * (a read-write lock's, PI_EXT_SOLO_RW: cmpb $0,28(%rdi) for the testb)
 * pthread_once (PI_EXT_ONCE) only before its control word says done:
 *   test %rdi,%rdi; je 1f; testb $2,(%rdi); jne 2f; 1: call start; 2:
 * and their clocks stop where they run (the argument is not at hand then):
 *   mov %fs:cur,%r11; cmpq $0,sp(%r11); jne 1f; cmpq $0,wait_sp(%r11);
 *   je 2f; 1: call stop; 2: */
static void emit_cmeas(struct emit *e, uint32_t k, int sym)
{
	const struct external *x = &e->c->exts[e->t->ext[k]];
	if ((x->flags & PI_EXT_FIXED) && (x->flags & PI_EXT_C_LOCALE) && pic(e)) {
		/* mov rt_locale_set@gotpcrel(%rip),%rax; cmpl $0,(%rax) */
		emit_pic_save_got(e, R_X86_64_GOTPCREL, e->c->sym_locale);
		static const uint8_t cmp[] = {0x83, 0x38, 0x00};
		PUT(e, cmp);
		emit_pic_restore(e);
		static const uint8_t je[] = {0x74, 0x05}; /* over the call */
		PUT(e, je);
	} else if ((x->flags & PI_EXT_FIXED) && (x->flags & PI_EXT_C_LOCALE)) {
		static const uint8_t cmp[] = {0x83, 0x3d};
		PUT(e, cmp);
		add_rela(e, cur(e), R_X86_64_PC32, (uint32_t)e->c->sym_locale, -5);
		buf_u32(&e->tl->out, 0);
		static const uint8_t je[] = {0x00, 0x74, 0x05}; /* $0; je over the call */
		PUT(e, je);
	} else if ((x->flags & PI_EXT_FIXED) && (x->flags & PI_EXT_SOLO) && sym == e->c->sym_cmeas_start) {
		static const uint8_t ld[] = {0x4c, 0x8b, 0x1d}; /* mov rt_solo_word(%rip),%r11 */
		PUT(e, ld);
		add_rela(e, cur(e), pic(e) ? R_X86_64_GOTPCREL : R_X86_64_PC32, (uint32_t)e->c->sym_solo, -4);
		buf_u32(&e->tl->out, 0);
		if (pic(e)) {
			static const uint8_t deref[] = {0x4d, 0x8b, 0x1b}; /* (its GOT slot) mov (%r11),%r11 */
			PUT(e, deref);
		}
		/* (the jumps: to the call, 11 and 6 on; over it, 5) */
		static const uint8_t test[] = {0x41, 0x80, 0x3b, 0x00, 0x74, 11,       /* cmpb $0,(%r11); je 1f */
					       0x48, 0x85, 0xff, 0x74, 6,              /* test %rdi,%rdi; je 1f */
					       0xf6, 0x47, 0x10, 0xf0, 0x74, 0x05};    /* testb $0xf0,16(%rdi); je 2f */
		static const uint8_t test_rw[] = {0x41, 0x80, 0x3b, 0x00, 0x74, 11,    /* cmpb $0,(%r11); je 1f */
						  0x48, 0x85, 0xff, 0x74, 6,           /* test %rdi,%rdi; je 1f */
						  0x80, 0x7f, 0x1c, 0x00, 0x74, 0x05}; /* cmpb $0,28(%rdi); je 2f */
		_Static_assert(sizeof(test) == sizeof(test_rw), "the same jumps");
		if (x->flags & PI_EXT_SOLO_RW)
			PUT(e, test_rw);
		else
			PUT(e, test);
	} else if ((x->flags & PI_EXT_FIXED) && (x->flags & PI_EXT_ONCE) && sym == e->c->sym_cmeas_start) {
		/* (the jumps: to the call, 5; over it, 5) */
		static const uint8_t test[] = {0x48, 0x85, 0xff, 0x74, 5,        /* test %rdi,%rdi; je 1f */
					       0xf6, 0x07, 0x02, 0x75, 0x05};    /* testb $2,(%rdi); jne 2f */
		PUT(e, test);
	} else if ((x->flags & PI_EXT_FIXED) && (x->flags & (PI_EXT_SOLO | PI_EXT_ONCE))) {
		emit_fs_r11(e, 0x8b, STUB_TLS_CUR);
		static const uint8_t test[] = {0x49, 0x83, 0x7b, STUB_CN_SP, 0x00, 0x75, 7, /* cmpq $0,sp(%r11); jne 1f */
					       0x49, 0x83, 0x7b, STUB_CN_WAIT_SP, 0x00, 0x74, 0x05}; /* cmpq $0,wait_sp(%r11); je 2f */
		PUT(e, test);
	}
	emit_call_rt(e, sym);
}

static void emit_cbefore(struct emit *e, uint32_t k, const struct func *f, bool *after, bool *save_after,
			 bool *measured, uint32_t *inner)
{
	const struct text *t = e->t;
	const struct insn *in = &t->insns[k];
	uint32_t slot = t->cslot ? t->cslot[k] : UINT32_MAX;
	*after = false;
	*save_after = false;
	*measured = false;
	*inner = 0;
	if (slot == UINT32_MAX || (t->mark[k] & MARK_NOCOST))
		return;
	bool ext = t->mark[k] & MARK_EXT;
	if (in->kind == INSN_CALL && !ext) {
		if (!calls_instrumented(e->c, t, k))
			return; /* setjmp, __tls_get_addr...: left as they are */
		if (inner_call(e, k)) {
			*after = true;
			*inner = slot + 1;
			return;
		}
		emit_cset(e, f, slot, -8, r11_live_at(e, k));
		*after = true;
		*save_after = r11_live_at(e, k);
	} else if (in->kind == INSN_CALL && ext) {
		const struct external *x = &e->c->exts[t->ext[k]];
		bool keep = ext_transparent(x);
		emit_cnode(e, f, slot, x, !keep, false);
		*after = !keep;
		*measured = ext_measured(x);
	} else if (in->kind == INSN_CALL_IND && !ext) {
		if (!counted_ptrcall(e, k))
			return;
		*after = true;
		*inner = slot + 1; /* emit_cptrcall */
	} else if (in->kind == INSN_CALL_IND && ext) {
		const struct external *x = &e->c->exts[t->ext[k]];
		bool keep = ext_transparent(x);
		emit_cnode(e, f, slot, x, !keep, false);
		*after = !keep;
		*measured = ext_measured(x);
	} else if (in->kind == INSN_JMP_IND && (t->mark[k] & MARK_TAIL) && !ext) {
		/* through a pointer, as a call's (else the callee, if
		 * instrumented, enters as from outside) */
		if (counted_ptrcall(e, k))
			*inner = slot + 1; /* emit_cptrcall */
	} else if (in->kind == INSN_JMP && (t->mark[k] & MARK_TAIL) && calls_instrumented(e->c, t, k)) {
		if (inner_call(e, k))
			*inner = slot + 1;
		else
			emit_cset(e, f, slot, 0, r11_live_at(e, k));
	}
}

/* A conditional tail jump's slot, between the inverted jump and the jump;
 * true if the jump itself was emitted (emit_cinner) */
static bool emit_ctail(struct emit *e, uint32_t k, const struct func *f)
{
	uint32_t slot = e->t->cslot ? e->t->cslot[k] : UINT32_MAX;
	if (slot == UINT32_MAX || !calls_instrumented(e->c, e->t, k))
		return false;
	if (inner_call(e, k)) {
		emit_cinner(e, k, f, slot);
		return true;
	}
	emit_cset(e, f, slot, 0, r11_live_at(e, k));
	return false;
}

static void emit_body(struct emit *e, uint32_t k, const struct func *f)
{
	const struct insn *in = &e->t->insns[k];
	const uint8_t *orig = e->s->data + in->off;
	switch (in->kind) {
	case INSN_JMP:
		if (!e->wide[k]) {
			buf_u8(&e->tl->out, 0xeb);
			emit_rel8_to_target(e, k);
			return;
		}
		buf_u8(&e->tl->out, 0xe9);
		emit_rel32_to_target(e, k, branch_kind(e, k), false);
		return;
	case INSN_CALL:
		if (rela_at(e, in->off + in->rel_off)) {
			/* byte-exact: the linker pattern-matches TLS calls
			 * (data16 data16 rex.W call __tls_get_addr) */
			emit_copy(e, k, orig, in->len, 0, false);
			return;
		}
		buf_u8(&e->tl->out, 0xe8);
		emit_rel32_to_target(e, k, MAP_PLACE, false);
		return;
	case INSN_JCC:
		if (f && (e->t->mark[k] & MARK_TAIL)) {
			/* j!cc over: tail stub; jmp target */
			buf_u8(&e->tl->out, 0x0f);
			buf_u8(&e->tl->out, (uint8_t)(0x80 | (in->cc ^ 1)));
			uint64_t field = cur(e);
			buf_u32(&e->tl->out, 0);
			bool jumped = false;
			if (e->c->opts->counting)
				jumped = emit_ctail(e, k, f);
			else
				emit_tail_direct(e, k, f);
			if (!jumped) {
				buf_u8(&e->tl->out, 0xe9);
				emit_rel32_to_target(e, k, MAP_PLACE, false);
			}
			wr32(e->tl->out.p + field, (uint32_t)(cur(e) - field - 4));
			return;
		}
		if (!e->wide[k]) {
			buf_u8(&e->tl->out, (uint8_t)(0x70 | in->cc));
			emit_rel8_to_target(e, k);
			return;
		}
		buf_u8(&e->tl->out, 0x0f);
		buf_u8(&e->tl->out, (uint8_t)(0x80 | in->cc));
		emit_rel32_to_target(e, k, branch_kind(e, k), false);
		return;
	case INSN_LOOP: {
		if (!e->wide[k]) {
			buf_put(&e->tl->out, orig, in->len - 1);
			emit_rel8_to_target(e, k);
			return;
		}
		/* loop +2; jmp +5; jmp rel32 target */
		buf_put(&e->tl->out, orig, in->len - 1);
		static const uint8_t seq[] = {0x02, 0xeb, 0x05, 0xe9};
		PUT(e, seq);
		emit_rel32_to_target(e, k, branch_kind(e, k), false);
		return;
	}
	default:
		emit_copy(e, k, orig, in->len, 0, false);
	}
}

/* Bytes the instruction k takes in the new layout (calls only; from
 * pos[k], where the call itself is). */
static uint64_t call_len(const struct emit *e, uint32_t k)
{
	const struct insn *in = &e->t->insns[k];
	if (in->kind == INSN_CALL && !rela_at(e, in->off + in->rel_off))
		return 5;
	if (wraps_icall(e, k) || (in->kind == INSN_CALL_IND && counted_ptrcall(e, k)))
		return icall_notrack(e, k) ? 4 : 3; /* [notrack] call *%r11 */
	return in->len;
}

/* Whether the block after call k, which follows it in f, is entered only
 * from the call's return and reads no flags: the code after the call,
 * which has the caller's node in %r11, counts it. */
static bool counts_after_call(const struct emit *e, uint32_t k, const struct func *f)
{
	const struct text *t = e->t;
	uint32_t n = k + 1;
	if (n >= t->ninsns || t->fn[n] != t->fn[k] || t->insns[n].off != t->insns[k].off + t->insns[k].len ||
	    !(t->mark[n] & MARK_LEADER) ||
	    (t->mark[n] & (MARK_PSTART | MARK_FSTART | MARK_RESYNC | MARK_ADDR | MARK_ENTERED)) || t->insns[n].endbr)
		return false;
	const struct block *b = &e->c->blocks[t->block[n]];
	return t->block[n] != t->block[k] && b->first == n && b->edges == 1 && !(b->live_in & FLAGS_STATUS) &&
	       t->block[n] > f->first_block && !block_derived(b) && !b->stepped;
}

static void emit_insn(struct emit *e, uint32_t k)
{
	struct text *t = e->t;
	struct text_layout *tl = e->tl;
	const struct insn *in = &t->insns[k];
	const struct func *f = t->fn[k] >= 0 && e->c->funcs[t->fn[k]].instrument
				       ? &e->c->funcs[t->fn[k]] : NULL;
	uint64_t start = cur(e);
	bool done = false;
	tl->pre[k] = (uint32_t)start;
	tl->entry[k] = (uint32_t)start;
	if (f && in->endbr && (t->mark[k] & (MARK_FSTART | MARK_LEADER))) {
		/* endbr64 stays the first instruction of an indirect target */
		tl->pos[k] = (uint32_t)start;
		buf_put(&tl->out, e->s->data + in->off, in->len);
		done = true;
	}
	bool counting = e->c->opts->counting;
	if (!f)
		e->cur_reg = -1;
	else if ((t->mark[k] & MARK_LEADER) && !keeps_cur(e, k))
		e->cur_reg = e->assumed ? e->assumed[k] : -1;
	bool fstart = f && (t->mark[k] & MARK_FSTART);
	if (fstart)
		counting ? emit_centry(e, f) : emit_entry_stub(e, f);
	tl->inner[k] = (uint32_t)(fstart ? cur(e) : start);
	/* past the stub: a call past it stores the frame's node (the stub
	 * stored it itself, and jumps past that store); where f's code finds
	 * its node in a register (entry_reg), the stub's way and a pointer's
	 * load it first, then jump past the store and the copy of %r11 a
	 * call past the stub makes, which goes in 16-aligned, as the stub's
	 * size left it before this load (a fetch block's start) */
	int wreg = fstart && !(t->mark[k] & MARK_RESYNC) ? entry_reg(e, f) : -1;
	bool with_cur = wreg >= 0, store = fstart && inner_store(e, f);
	uint64_t branch_at = cur(e), j = 0;
	if (with_cur)
		emit_load_cur(e, wreg);
	if (store || (with_cur && (wreg != 11 || cur(e) % 16))) {
		buf_u8(&tl->out, 0xeb);
		j = cur(e);
		buf_u8(&tl->out, 0);
		while (with_cur && cur(e) % 16)
			buf_u8(&tl->out, 0xcc);
	}
	if (fstart)
		tl->inner[k] = (uint32_t)cur(e);
	if (store)
		emit_inner_store(e, f);
	if (with_cur && wreg != 11)
		emit_rr(e, true, 0x89, 11, wreg); /* mov %r11,%R */
	if (j)
		patch_rel8_here(e, j);
	bool landed = !fstart && f && e->nlanding && emit_landings(e, k, f);
	tl->lab[k] = (uint32_t)(with_cur ? branch_at : fstart || landed ? cur(e) : start);
	if (with_cur)
		e->cur_reg = wreg;
	if (counting && fstart && f->resyncs) {
		/* where a longjmp or an exception lands in it finds its node:
		 * push %r11; mov %fs:cur,%r11; mov %rsp,sp(%r11); pop %r11 (every
		 * way in comes here, a call past the entry stub too) */
		PUT(e, PUSH_R11);
		emit_fs_r11(e, 0x8b, STUB_TLS_CUR);
		static const uint8_t sp[] = {0x49, 0x89, 0x63, STUB_CN_SP};
		PUT(e, sp);
		PUT(e, POP_R11);
	}
	if (f && (t->mark[k] & MARK_RESYNC)) {
		/* before the block stub: its cost belongs to the code resuming */
		PUT(e, LEA_RSP_M128);
		if (counting) /* (%r11 is dead where a call returns or an exception lands) */
			emit_lea_r11_funcrec(e, f);
		emit_call_rt(e, counting ? e->c->sym_cresync : e->c->sym_resync);
		PUT(e, LEA_RSP_P128);
	}
	if (f && (t->mark[k] & MARK_LEADER) && !counting)
		emit_block_stub(e, t->block[k]);
	else if (f && (t->mark[k] & MARK_LEADER) && e->counted != k && !block_derived(&e->c->blocks[t->block[k]]) &&
		 !e->c->blocks[t->block[k]].stepped &&
		 !(t->block[k] == f->first_block && code_entry_by_calls(e->c, f)))
		emit_cblock(e, t->block[k], f);
	if (f && (t->mark[k] & MARK_FLUSH)) {
		PUT(e, LEA_RSP_M128);
		emit_call_rt(e, e->c->sym_flush);
		PUT(e, LEA_RSP_P128);
	}
	bool ext = f && (t->mark[k] & MARK_EXT);
	bool cafter = false, csave = false, cmeasured = false, cswitch = false;
	uint32_t cinner = 0;
	if (counting && f && ext && (in->kind == INSN_JMP || in->kind == INSN_JMP_IND) && t->ext &&
	    t->cslot && t->cslot[k] != UINT32_MAX) {
		emit_ext_tail(e, k, f);
		return;
	}
	if (counting && f) {
		/* calls and tail jumps name their slot; a return does nothing;
		 * a jump out of instrumented code is a plain jump (the caller's
		 * node is current again after its call); an external the model
		 * does not cost is timed */
		emit_cbefore(e, k, f, &cafter, &csave, &cmeasured, &cinner);
		cswitch = ext && t->ext && (e->c->exts[t->ext[k]].flags & (PI_EXT_SWITCH | PI_EXT_SETCTX));
		if (cswitch) /* another context runs on: this one's node waits for it */
			emit_call_rt(e, e->c->sym_cpark);
		if (cmeasured)
			emit_cmeas(e, k, e->c->sym_cmeas_start);
		if (ext && in->kind != INSN_SYSCALL)
			ext = false;
	} else if (ext && (in->kind == INSN_JMP || in->kind == INSN_JMP_IND)) {
		emit_ext_tail(e, k, f);
		return;
	}
	if (f && counting) {
		if (in->rep)
			emit_rep_pre(e);
	} else if (f) {
		if (in->kind == INSN_RET) {
			emit_call_rt(e, e->c->sym_exit);
			/* the frame is closed: this is the caller's time (the
			 * flags are dead at a ret) */
			uint32_t excess = e->c->blocks[t->block[k]].ret_excess;
			if (excess)
				emit_add_fs(e, e->c->sym_tls, STUB_TLS_CLOCK, excess);
		}
		else if (in->kind == INSN_JMP && (t->mark[k] & MARK_TAIL))
			emit_tail_direct(e, k, f);
		else if (in->kind == INSN_JMP_IND && (t->mark[k] & MARK_TAIL)) {
			emit_tail_indirect(e, k, f); /* the jump too */
			done = true;
		}
		if (in->rep)
			emit_rep_pre(e);
		if (in->kind == INSN_JCC && e->c->opts->branch_sim)
			emit_branch_stub(e, k, f);
		if (e->t->chase && e->t->chase[k])
			emit_load_stub(e, k);
	}
	if (ext && in->kind == INSN_SYSCALL) {
		PUT(e, LEA_RSP_M128);
		emit_call_rt(e, e->c->sym_sys_enter);
		PUT(e, LEA_RSP_P128);
	} else if (ext) {
		const struct external *x = &e->c->exts[t->ext[k]];
		emit_lea_r11_rec(e, x->rec_sec, x->rec_off);
		emit_call_rt(e, e->c->sym_ext_enter);
	}
	if (cinner && (in->kind == INSN_CALL_IND || in->kind == INSN_JMP_IND)) {
		emit_cptrcall(e, k, f, cinner - 1);
		done = true;
	} else if (cinner) {
		emit_cinner(e, k, f, cinner - 1); /* the call itself, twice */
		done = true;
	}
	if (!done && f && in->kind == INSN_JMP && e->pre_jump && e->pre_jump[k] != UINT32_MAX) {
		/* a loop's register's stub of the jump's edge: what the
		 * registers and flags are at the jump they are where it goes.
		 * The node's register stays what it was, as if no stub were
		 * here: a loop's head that came to assume the register of its
		 * way in would make its ways back load it every turn (fix). */
		const struct stepped_edge *se = &e->c->stepped_edges[e->pre_jump[k]];
		emit_cstep(e, &e->c->blocks[se->to], se, e->cur_reg, -1, -1, f);
	}
	int natural = e->cur_reg; /* (a jump's way out, before its fix) */
	if (!done && f && e->fix && e->fix[k] >= 0 && in->kind == INSN_JMP && fixable(e, k)) {
		emit_load_cur(e, e->fix[k]);
		e->cur_reg = e->fix[k];
	}
	if (!done) {
		tl->pos[k] = (uint32_t)cur(e);
		if (f && wraps_icall(e, k))
			emit_icall(e, k);
		else
			emit_body(e, k, f);
	}
	if (ext && in->kind == INSN_SYSCALL) {
		PUT(e, LEA_RSP_M128);
		emit_call_rt(e, e->c->sym_sys_exit);
		PUT(e, LEA_RSP_P128);
	} else if (ext) {
		const struct external *x = &e->c->exts[t->ext[k]];
		emit_call_rt(e, (x->flags & PI_EXT_FIXED) ? e->c->sym_ext_exit_fixed : e->c->sym_ext_exit);
	}
	if (f && in->rep)
		emit_rep_post(e, in);
	if (counting && f)
		keep_cur_after(e, k);
	if (cmeasured)
		emit_cmeas(e, k, e->c->sym_cmeas_stop);
	if (cswitch)
		emit_call_rt(e, e->c->sym_cunpark);
	if (cafter)
		emit_cback(e, csave, k, f);
	if (e->to_store) {
		/* a fast way's jump that no store took: cannot happen */
		pi_error("internal error: the call at %#llx of %s has no code after it", (unsigned long long)in->off,
			 e->s->name);
		abort();
	}
	if (cafter && !csave && counts_after_call(e, k, f)) {
		/* the caller's node is in %r11: count the next block there */
		emit_count(e, 11, t->block[k + 1], f);
		e->counted = k + 1;
		e->cur_reg = 11;
	}
	if (e->edge_reg && f) {
		/* the way out as this block's code leaves it, before any fix */
		if (in->kind != INSN_JMP && in->kind != INSN_JMP_IND)
			natural = e->cur_reg;
		e->edge_reg[k] = (int8_t)natural;
		if (e->fix[k] >= 0 && fixable(e, k) && in->kind != INSN_JMP) {
			emit_load_cur(e, e->fix[k]); /* (falling into its block) */
			e->cur_reg = e->fix[k];
		}
	}
}

static void emit_verbatim(struct emit *e, const struct vrange *v)
{
	uint64_t nstart = cur(e);
	e->tl->vr_start[v - e->t->vr] = nstart;
	buf_put(&e->tl->out, e->s->data + v->start, v->end - v->start);
	if (!e->s->rela || !e->final)
		return;
	const struct section *rs = &e->c->o->secs[e->s->rela];
	for (size_t i = rela_lower_bound(rs, v->start); i < rs->nrelas && rs->relas[i].off < v->end; i++) {
		const struct rela *r = &rs->relas[i];
		uint64_t nf = nstart + (r->off - v->start);
		/* A PC-relative field: in a function kept as it was, assume it
		 * ends its instruction; between functions it is data, relative to
		 * its table's base (as in a data section). */
		uint64_t k = (uint64_t)rel_size(r->type);
		if (v->gap)
			k = -(r->off - data_pcrel_base(e->c, e->t->sec, r->off));
		add_rela(e, nf, r->type, r->sym, remap_addend(e, r, r->off + k, nf, nf + k, MAP_PLACE));
	}
}

/* Keep a function's alignment, for speed: the largest power of two
 * dividing its original offset, up to the section's. Padding is nops, in
 * case code falls into it. */
static void align_region(struct emit *e, uint64_t off)
{
	uint64_t a = e->s->addralign ? e->s->addralign : 1;
	if (off)
		while (a > 1 && off % a)
			a /= 2;
	if (a > 4096)
		a = 4096;
	while (cur(e) % a)
		buf_u8(&e->tl->out, 0x90);
}

/* A range copied as it was keeps its offset modulo the section's
 * alignment, so everything inside it (a table at +0x40 of a gap) keeps
 * its alignment too. */
static void align_congruent(struct emit *e, uint64_t off)
{
	uint64_t a = e->s->addralign ? e->s->addralign : 1;
	if (a > 4096)
		a = 4096;
	while (cur(e) % a != off % a)
		buf_u8(&e->tl->out, 0x90);
}

static void emit_text(struct emit *e)
{
	struct text *t = e->t;
	struct text_layout *tl = e->tl;
	tl->out.len = 0;
	e->counted = UINT32_MAX;
	e->cur_reg = -1;
	e->at_landing = 0;
	if (e->edge_reg)
		memset(e->edge_reg, -1, t->ninsns);
	size_t v = 0;
	uint64_t size = e->s->size;
	uint32_t k = 0;
	for (uint64_t off = 0; off < size;) {
		if (k < t->ninsns && t->insns[k].off == off) {
			if (t->mark[k] & MARK_PSTART)
				align_region(e, off);
			emit_insn(e, k);
			off += t->insns[k].len;
			k++;
		} else if (v < t->nvr && t->vr[v].start == off) {
			align_congruent(e, off);
			emit_verbatim(e, &t->vr[v]);
			off = t->vr[v].end;
			v++;
		} else {
			/* cannot happen: regions tile the section */
			buf_u8(&tl->out, e->s->data[off]);
			off++;
		}
	}
	tl->nsize = tl->out.len;
}

/* A block's way out, to each block it goes on to: the register it leaves
 * the current node in, and the block's last instruction */
struct way_in {
	struct emit *e;
	int reg;      /* -1 none, -2 not known (another text's block) */
	uint32_t k;   /* (in e's text) */
	int step;     /* settle_cur's: 0 votes, 1 tallies, 2 fixes */
	const int8_t *want; /* (step 2: the register each leader takes) */
	int fix;      /* (step 2: the load its way out needs, or -1) */
};

#define SEEN_NONE ((int8_t)-3) /* (seen: no vote yet) */
#define FIXES_NO UINT16_MAX   /* (fixes: a way in that no load can fix) */

static void note_way_in(void *ctx, const struct block *succ)
{
	struct way_in *w = ctx;
	struct emit *e = w->e;
	if (succ->ts != e->ti)
		return; /* (its own text's passes see this way in) */
	uint32_t i = succ->first;
	if (w->step == 0) {
		/* one vote (a majority's: Boyer and Moore), unless the leader
		 * holds to what it assumes */
		if (w->reg < 0 || e->assumed[i] >= 0)
			return;
		if (!e->agree[i])
			e->seen[i] = (int8_t)w->reg, e->agree[i] = 1;
		else if (e->seen[i] == w->reg)
			e->agree[i]++;
		else
			e->agree[i]--;
	} else if (w->step == 1) {
		if (e->seen[i] >= 0 && w->reg == e->seen[i])
			e->agree[i]++;
		else if (w->reg != -2 && fixable(e, w->k) && e->fixes[i] != FIXES_NO)
			e->fixes[i]++;
		else
			e->fixes[i] = FIXES_NO;
	} else if (w->reg != -2 && w->want[i] >= 0 && w->reg != w->want[i])
		w->fix = w->want[i];
}
/* Each way out of f's blocks into e's text (note_way_in's step) */
static bool each_way_out(struct emit *e, const struct func *f, int step, const int8_t *want)
{
	struct code *c = e->c;
	bool unseen = false;
	for (uint32_t b = f->first_block; b < f->first_block + f->nblocks; b++) {
		const struct block *bl = &c->blocks[b];
		uint32_t last = bl->first + bl->n - 1;
		struct way_in w = {.e = e, .reg = bl->ts == e->ti ? e->edge_reg[last] : -2, .k = last,
				   .step = step, .want = want, .fix = -1};
		if (code_block_flow(c, f, bl, note_way_in, &w) & FLOW_UNSEEN)
			unseen = true;
		if (step == 2 && bl->ts == e->ti)
			e->seen[last] = (int8_t)w.fix; /* (the fix each block's end needs) */
	}
	return unseen;
}

/*
 * --counts: after a pass over e's text, at which leaders the next pass
 * may take the current node as in a register (e->assumed), and which
 * blocks load it into that register last (e->fix).  A leader takes the
 * register most of its ways in (by a jump or by falling, from its
 * function's blocks) leave the node in (edge_reg, as their own code
 * leaves it), where each other way in is a block that only jumps or
 * falls there, which then loads it last, and there are no more of
 * those than of the others: the head of a loop, the join after an
 * if-else, an interpreter's dispatch that its cases jump back to.  Those
 * loads run no more often than the leader's own would (each run of the
 * leader comes by one way in), and mostly far less.  A block entered
 * otherwise (a function's or a piece's start, an address taken, a
 * resync point, a jump from another function) takes none, nor does one
 * of a function with a jump whose target is not known; keeps_cur already
 * covers a block entered only by falling into it.  Taking a register
 * changes the block's code, so what leaves it: a leader whose register
 * changes never takes one again (e->never), and the passes end.  Returns
 * whether any leader's register or any block's load changed; with check,
 * none may (the final pass, which must emit what the last one laid out).
 */
static bool settle_cur(struct emit *e, bool check)
{
	struct code *c = e->c;
	const struct text *t = e->t;
	bool changed = false;
	for (uint32_t k = 0; k < t->ninsns;) {
		int fi = t->fn[k];
		uint32_t end = k + 1;
		while (end < t->ninsns && t->fn[end] == fi)
			end++;
		const struct func *f = fi >= 0 && c->funcs[fi].instrument ? &c->funcs[fi] : NULL;
		if (!f || !f->nblocks) {
			k = end;
			continue;
		}
		/* the register each leader takes: one vote a way in, then a
		 * tally of those that leave it there and of those to fix */
		for (uint32_t i = k; i < end; i++) {
			e->seen[i] = e->assumed[i] >= 0 ? e->assumed[i] : SEEN_NONE;
			e->agree[i] = 0;
		}
		bool unseen = each_way_out(e, f, 0, NULL);
		for (uint32_t i = k; i < end; i++)
			e->agree[i] = e->fixes[i] = 0;
		each_way_out(e, f, 1, NULL);
		for (uint32_t i = k; i < end; i++) {
			if (!(t->mark[i] & MARK_LEADER) || keeps_cur(e, i))
				continue;
			int want = -1;
			if (!unseen && !e->never[i] && e->seen[i] >= 0 && e->agree[i] && e->fixes[i] <= e->agree[i] &&
			    !(t->mark[i] & (MARK_FSTART | MARK_PSTART | MARK_RESYNC | MARK_CODEADDR | MARK_ENTERED)))
				want = e->seen[i];
			if (want == e->assumed[i] || (e->assumed[i] < 0 && e->never[i]))
				continue;
			changed = true;
			if (check)
				continue;
			if (e->assumed[i] >= 0) {
				/* it changes: for good */
				e->never[i] = true;
				e->assumed[i] = -1;
			} else
				e->assumed[i] = (int8_t)want;
		}
		/* the loads at the ends of the ways in that the leaders take
		 * them by (seen: each block end's, for the moment) */
		for (uint32_t i = k; i < end; i++)
			e->seen[i] = -1;
		each_way_out(e, f, 2, e->assumed);
		for (uint32_t i = k; i < end; i++) {
			int fix = e->seen[i];
			if (fix == e->fix[i])
				continue;
			changed = true;
			if (!check)
				e->fix[i] = (int8_t)fix;
		}
		k = end;
	}
	return changed;
}

/*
 * Branch relaxation, as an assembler does it: a direct branch that was
 * rel8 in the original starts short, the text is laid out, and every short
 * one whose target is then out of reach grows to its long form; again,
 * until none grows.  Growing only (a long branch never shrinks back)
 * bounds the rounds by the number of branches, and the last layout, in
 * which every short branch reaches, is the one the final pass emits.
 * Widening every branch instead costs time and code even without stubs.
 * A branch that was rel32 stays rel32: compilers' assemblers relax
 * already, so it needed it, or was written so on purpose.  Long for good:
 * a branch through a relocation or out of its section (the linker places
 * its target), and a tail call (a jump to another function, or with a
 * stub around it).
 */
static bool *branch_forms(const struct emit *e)
{
	const struct text *t = e->t;
	bool *wide = xcalloc((size_t)t->ninsns + 1, sizeof(*wide));
	for (uint32_t k = 0; k < t->ninsns; k++) {
		const struct insn *in = &t->insns[k];
		bool branch = in->kind == INSN_JMP || in->kind == INSN_JCC || in->kind == INSN_LOOP;
		wide[k] = !branch || in->rel_size != 1 || (t->mark[k] & (MARK_TAIL | MARK_EXT)) ||
			  in->target >= t->size || rela_at(e, in->off + in->rel_off);
	}
	return wide;
}

/* After a pass over e's text: widen each short branch out of reach in
 * it; did any grow? */
static bool relax(struct emit *e)
{
	const struct text *t = e->t;
	bool grew = false;
	for (uint32_t k = 0; k < t->ninsns; k++) {
		if (e->wide[k])
			continue;
		const struct insn *in = &t->insns[k];
		uint64_t end = e->tl->pos[k] + (in->kind == INSN_LOOP ? in->len : 2);
		int64_t d = (int64_t)(branch_dest(e, k, branch_kind(e, k)) - end);
		if (!rel8_reaches(d))
			e->wide[k] = grew = true;
	}
	return grew;
}

/* New value of every symbol, from the first pass's positions. */
static uint64_t *new_symbol_values(struct code *c, const struct addrmap *m)
{
	struct object *o = c->o;
	uint64_t *nv = xcalloc(o->nsyms + 1, sizeof(*nv));
	for (size_t i = 0; i < o->nsyms; i++) {
		struct symbol *s = &o->syms[i];
		nv[i] = s->value;
		if (s->shndx == SHN_UNDEF || s->shndx >= SHN_LORESERVE || text_index(c, (int)(s->shndx)) < 0)
			continue;
		if (ELF64_ST_TYPE(s->info) == STT_SECTION)
			continue;
		/* (NAME.pi_inner: past the entry stub, at the store of the
		 * frame's node) */
		enum map_kind kind = i >= c->inner_first && i < c->inner_end ? MAP_INNER : MAP_PLACE;
		nv[i] = addrmap_lookup(m, text_index(c, (int)(s->shndx)), s->value, kind);
	}
	return nv;
}

static void update_symbols(struct code *c, const struct addrmap *m, const uint64_t *nv)
{
	struct object *o = c->o;
	for (size_t i = 0; i < o->nsyms; i++) {
		struct symbol *s = &o->syms[i];
		if (s->shndx == SHN_UNDEF || s->shndx >= SHN_LORESERVE || text_index(c, (int)(s->shndx)) < 0 ||
		    ELF64_ST_TYPE(s->info) == STT_SECTION)
			continue;
		int ti = text_index(c, (int)(s->shndx));
		if (s->size) {
			uint64_t end = addrmap_lookup(m, ti, s->value + s->size, MAP_PLACE);
			s->size = end - nv[i];
		}
		s->value = nv[i];
	}
}

/* Relocations in sections other than code that name code. */
static void remap_data_relocs(struct code *c, const struct addrmap *m, const uint64_t *nv)
{
	struct object *o = c->o;
	for (size_t si = 1; si < o->nsecs; si++) {
		struct section *rs = &o->secs[si];
		if (rs->type != SHT_RELA || text_index(c, (int)(rs->info)) >= 0)
			continue;
		if (!strcmp(o->secs[rs->info].name, ".eh_frame"))
			continue;
		for (size_t i = 0; i < rs->nrelas; i++) {
			struct rela *r = &rs->relas[i];
			int tsec;
			uint64_t toff;
			if (!code_rel_target(c, (int)rs->info, r, 0, &tsec, &toff) || text_index(c, (int)(tsec)) < 0)
				continue;
			uint64_t nt = addrmap_lookup(m, text_index(c, (int)(tsec)), toff, MAP_PLACE);
			uint64_t a = nt - nv[r->sym];
			if (rel_is_pcrel(r->type))
				a += r->off - data_pcrel_base(c, (int)rs->info, r->off);
			r->addend = (int64_t)a;
		}
	}
}

static int landing_order(const void *a, const void *b)
{
	const struct landing *x = a, *y = b;
	if (x->kt != y->kt)
		return x->kt < y->kt ? -1 : 1;
	if (x->fall != y->fall)
		return x->fall ? -1 : 1;
	return x->kp < y->kp ? -1 : x->kp > y->kp;
}

/* Whether instruction kp reaches kt by falling into it (not by its jump) */
static bool landing_falls(const struct emit *e, uint32_t kp, uint32_t kt)
{
	const struct insn *in = &e->t->insns[kp];
	return !(in->kind == INSN_JMP || in->kind == INSN_JCC) || in->target != e->t->insns[kt].off;
}

/* The edges of e's text that have counters (block.eto) or a loop's
 * register's stubs (code.stepped_edges), by target */
static void find_landings(struct emit *e)
{
	const struct code *c = e->c;
	for (size_t b = 0; b < c->nblocks; b++) {
		const struct block *sb = &c->blocks[b];
		if (!sb->eto || sb->ts != e->ti)
			continue;
		const struct block *pb = &c->blocks[sb->efrom - 1], *tb = &c->blocks[sb->eto - 1];
		uint32_t kp = pb->first + pb->n - 1;
		struct landing *l = VEC_PUSH(e->landing, e->nlanding, e->landcap);
		*l = (struct landing){tb->first, kp, (uint32_t)b, UINT32_MAX, landing_falls(e, kp, tb->first)};
	}
	for (size_t i = 0; i < c->nstepped_edges; i++) {
		const struct stepped_edge *se = &c->stepped_edges[i];
		const struct block *pb = &c->blocks[se->from], *tb = &c->blocks[se->to];
		if (tb->ts != e->ti)
			continue;
		uint32_t kp = pb->first + pb->n - 1;
		if (e->t->insns[kp].kind == INSN_JMP) {
			e->pre_jump[kp] = (uint32_t)i;
			continue;
		}
		struct landing *l = VEC_PUSH(e->landing, e->nlanding, e->landcap);
		*l = (struct landing){tb->first, kp, UINT32_MAX, (uint32_t)i, landing_falls(e, kp, tb->first)};
	}
	if (!e->nlanding)
		return;
	qsort(e->landing, e->nlanding, sizeof(*e->landing), landing_order);
	/* an edge with both: one landing (stepcount.c puts one loop's stub on an edge at most) */
	size_t n = 1;
	for (size_t i = 1; i < e->nlanding; i++) {
		struct landing *p = &e->landing[n - 1], *l = &e->landing[i];
		if (l->kt == p->kt && l->kp == p->kp && l->fall == p->fall) {
			if (l->slot != UINT32_MAX)
				p->slot = l->slot;
			if (l->stepped != UINT32_MAX)
				p->stepped = l->stepped;
			continue;
		}
		e->landing[n++] = *l;
	}
	e->nlanding = n;
}

void layout_object(struct code *c, struct layout *l)
{
	struct object *o = c->o;
	struct addrmap *m = &l->map;
	addrmap_init(m, c);
	struct emit *es = xcalloc((size_t)c->ntexts + 1, sizeof(*es));
	bool any_verbatim_func = false;
	for (size_t fi = 0; fi < c->nfuncs; fi++)
		if (!c->funcs[fi].instrument)
			any_verbatim_func = true;
	for (int ti = 0; ti < c->ntexts; ti++) {
		es[ti] = (struct emit){.c = c, .m = m, .ti = ti, .t = &c->texts[ti], .tl = &m->texts[ti],
				       .s = &o->secs[c->texts[ti].sec]};
		es[ti].wide = branch_forms(&es[ti]);
		es[ti].any_verbatim_func = any_verbatim_func;
		if (c->opts->counting) {
			size_t n = (size_t)es[ti].t->ninsns + 1;
			es[ti].edge_reg = xmalloc(n);
			es[ti].seen = xmalloc(n);
			es[ti].assumed = xmalloc(n);
			memset(es[ti].assumed, -1, n);
			es[ti].fix = xmalloc(n);
			memset(es[ti].fix, -1, n);
			es[ti].agree = xcalloc(n, sizeof(uint16_t));
			es[ti].fixes = xcalloc(n, sizeof(uint16_t));
			es[ti].never = xcalloc(n, sizeof(bool));
			es[ti].pre_jump = xmalloc(n * sizeof(uint32_t));
			memset(es[ti].pre_jump, 0xff, n * sizeof(uint32_t));
			find_landings(&es[ti]);
		}
		/* a branch's reach is inside its text: each text on its own;
		 * until no branch grows and the leaders' registers hold */
		bool again;
		do {
			emit_text(&es[ti]);
			again = es[ti].edge_reg && settle_cur(&es[ti], false);
			again |= relax(&es[ti]);
		} while (again);
	}
	uint64_t *nv = new_symbol_values(c, m);
	for (int ti = 0; ti < c->ntexts; ti++) {
		es[ti].final = true;
		es[ti].newval = nv;
		emit_text(&es[ti]);
		if (es[ti].edge_reg && settle_cur(&es[ti], true)) {
			pi_error("internal error: %s: the final layout's current-node registers differ from the last pass's",
				 es[ti].s->name);
			abort();
		}
		free(es[ti].edge_reg);
		free(es[ti].seen);
		free(es[ti].assumed);
		free(es[ti].fix);
		free(es[ti].agree);
		free(es[ti].fixes);
		free(es[ti].never);
		es[ti].edge_reg = es[ti].seen = es[ti].assumed = es[ti].fix = NULL;
		es[ti].agree = es[ti].fixes = NULL;
		es[ti].never = NULL;
		free(es[ti].landing);
		es[ti].landing = NULL;
		free(es[ti].pre_jump);
		es[ti].pre_jump = NULL;
		es[ti].nlanding = 0;
	}
	/* call sites' return addresses, per piece */
	for (size_t i = 0; i < c->nsites; i++) {
		struct site *s = &c->sites[i];
		struct text *t = &c->texts[s->ts];
		uint32_t k = t->at[s->orig_off];
		uint64_t ret = m->texts[s->ts].pos[k] + call_len(&es[s->ts], k);
		const struct func *f = &c->funcs[s->fn];
		m->ret_off[i] = (uint32_t)(ret - addrmap_lookup(m, s->ts, f->pieces[s->piece].start, MAP_PLACE));
	}
	l->es = es;
	l->newval = nv;
}

void layout_finish(struct code *c, struct layout *l)
{
	struct object *o = c->o;
	struct emit *es = l->es;
	uint64_t *nv = l->newval;
	const struct addrmap *m = &l->map;
	remap_data_relocs(c, m, nv);
	for (int ti = 0; ti < c->ntexts; ti++) {
		struct text *t = &c->texts[ti];
		const struct text_layout *tl = &m->texts[ti];
		struct section *s = &o->secs[t->sec];
		free(s->data);
		s->data = xmalloc(tl->out.len);
		memcpy(s->data, tl->out.p, tl->out.len);
		s->size = tl->out.len;
		if (s->rela || es[ti].nrelas) {
			int ri = obj_rela_section(o, t->sec); /* may move o->secs */
			struct section *rs = &o->secs[ri];
			free(rs->relas);
			rs->relas = es[ti].relas;
			rs->nrelas = es[ti].nrelas;
			rs->relcap = es[ti].cap;
			es[ti].relas = NULL;
		}
		free(es[ti].relas);
		free(es[ti].wide);
	}
	update_symbols(c, m, nv);
	free(nv);
	free(es);
	l->es = NULL;
	l->newval = NULL;
}
