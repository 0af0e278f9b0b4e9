/* SPDX-License-Identifier: MIT */
/*
 * Our own small instruction vocabulary, shared by the rewriter and
 * profview (the x86 layer, libx86).  decode.c is the only file that knows
 * Zydis: it turns bytes into struct insn, which says what the layout, CFG,
 * liveness and timing model need and nothing more, describes an
 * instruction for the timing model, and formats one for disassembly.
 *
 * The layer keeps no state of its own: every call is given the decoder
 * context (struct x86_decoder) its caller owns.
 */
#ifndef PI_DECODE_H
#define PI_DECODE_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/*
 * The decoder's context: Zydis's 64-bit decoder and its AT&T formatter,
 * set up by x86_decoder_init and only read after that, so that one context
 * serves any number of calls.  The caller owns it, by value, inside a
 * context of its own (the rewriter's struct code, profview's per command).
 *
 * Its bytes are Zydis's, which only decode.c may name: the header gives
 * storage enough for them (Zydis 4's take about 610 bytes), and decode.c
 * checks at compile time that they fit, so that this header needs no
 * Zydis and the caller has nothing to allocate or free.
 */
#define X86_DECODER_SIZE 768
struct x86_decoder {
	_Alignas(16) unsigned char opaque[X86_DECODER_SIZE];
};

/* Make d ready for the calls below (x86-64, 64-bit stack, AT&T syntax).
 * It holds no resource: nothing to release. */
void x86_decoder_init(struct x86_decoder *d);

enum insn_kind {
	INSN_OTHER,
	INSN_JMP,      /* direct jmp rel8/rel32 */
	INSN_JCC,      /* direct conditional jump rel8/rel32 */
	INSN_LOOP,     /* loop/loope/loopne/jrcxz: rel8 only */
	INSN_CALL,     /* direct call rel32 */
	INSN_RET,
	INSN_JMP_IND,  /* jmp through a register or memory */
	INSN_CALL_IND,
	INSN_SYSCALL,
	INSN_TRAP,     /* ud2, hlt, int3: control does not fall through */
	INSN_BAD,      /* privileged or far control transfer we cannot move */
};

/* Status flags as in RFLAGS: CF PF AF ZF SF OF. */
#define FLAGS_STATUS 0x8d5u

enum rep_kind { REP_NONE, REP_REP, REP_REPE, REP_REPNE };

enum insn_class {
	/* coarse categories for the timing models */
	ICLS_ALU, ICLS_MOV, ICLS_LOAD, ICLS_STORE, ICLS_MUL, ICLS_DIV,
	ICLS_BRANCH, ICLS_CALL, ICLS_RET, ICLS_NOP, ICLS_FP, ICLS_VEC,
	ICLS_STRING, ICLS_SYSTEM, ICLS_OTHER,
};

struct insn {
	uint64_t off;       /* offset in its section */
	uint64_t target;    /* INSN_JMP/JCC/LOOP/CALL: section offset of target
			       (meaningless when the field carries a relocation) */
	uint16_t mnemonic;  /* Zydis mnemonic, for the timing models */
	uint8_t len;
	uint8_t kind;       /* enum insn_kind */
	uint8_t rel_off;    /* offset of the branch displacement in the insn */
	uint8_t rel_size;   /* 1 or 4; 0 if none */
	uint8_t disp_off;   /* offset of a RIP-relative disp32, 0 if none */
	uint8_t rep;        /* enum rep_kind, for string instructions */
	uint8_t cls;        /* enum insn_class */
	uint8_t nops;       /* decoded operand count (explicit) */
	uint16_t flags_read;    /* status flags tested */
	uint16_t flags_written; /* status flags certainly written */
	bool endbr;
	bool rip_rel;       /* has a RIP-relative memory operand */
	bool mem_read, mem_write;
	uint8_t cc;         /* JCC: condition code 0..15 */
	uint8_t ind_reg;    /* INSN_JMP_IND/CALL_IND through a register: 1+reg (0..15), else 0 */
	uint8_t modrm_off;  /* INSN_JMP_IND through memory: offset of ModRM */
	/* the fields a relocation may patch: the displacement and the
	 * immediates (the branch's included), offset and bytes; 0 bytes if
	 * none */
	uint8_t disp_at, disp_len, imm_at, imm_len, imm2_at, imm2_len;
	/* the caller's: the rewriter's number of its description (insndesc.h),
	 * 0 for none; insn_decode leaves it 0 */
	uint32_t desc;
};

/* Decode one instruction at buf[0..avail), at offset off of its section
 * (what its branch target is relative to), into out.  Returns false if the
 * bytes are not a valid x86-64 instruction (out then holds nothing but off). */
bool insn_decode(const struct x86_decoder *dx, const uint8_t *buf, size_t avail, uint64_t off,
		 struct insn *out);

/*
 * An instruction as Zydis decoded it, kept by the caller (by value, as
 * struct x86_decoder is) so that it can also be described without decoding
 * its bytes again: describing is for each distinct instruction, and the
 * decoding was half of it.  decode.c checks at compile time that Zydis's
 * instruction and operands fit.
 */
#define X86_DECODED_SIZE 1152
struct x86_decoded {
	_Alignas(16) unsigned char opaque[X86_DECODED_SIZE];
};

/* insn_decode, keeping Zydis's decoding in *z for insn_describe_decoded. */
bool insn_decode_kept(const struct x86_decoder *dx, const uint8_t *buf, size_t avail, uint64_t off,
		      struct insn *out, struct x86_decoded *z);

/*
 * What a timing model needs beyond struct insn: the instruction's form (the
 * key of the per-CPU tables, e.g. "add r64,m64", "vpaddd y,y,y",
 * "shl r32,cl", "lea r64,a"), the registers it reads and writes, and the
 * registers its memory address is made of.  Registers are numbered by
 * REGN_*: bit n of a mask is register n.
 */
enum {
	REGN_GPR = 0,     /* rax..r15: 0..15 */
	REGN_VEC = 16,    /* xmm/ymm/zmm 0..31: 16..47 */
	REGN_K = 48,      /* k0..k7 */
	REGN_FLAGS = 56,  /* the status flags */
	REGN_X87 = 57,    /* the x87 stack, as one register */
	REGN_OTHER = 58,  /* segment, control, mxcsr...: serialising enough */
};

struct insn_detail {
	char form[48];
	uint64_t rd, wr;     /* registers read / written (not address registers) */
	uint64_t merge;      /* of rd: read only to merge a partial write into */
	uint64_t addr;       /* registers of the memory address (base, index) */
	bool load, store;    /* memory read / written */
	uint64_t mem_key;    /* the memory operand's address as written (base, index,
				scale, displacement), hashed; 0 if none */
	bool zero_idiom;     /* result independent of the inputs: xor %eax,%eax */
	bool move_reg;       /* register-to-register move (eliminable at rename) */
	bool imm_add;        /* a 64-bit register plus a constant (add/sub/inc/dec
				of an immediate, lea disp(base)): foldable at rename */
	int64_t imm;         /* imm_add's constant */
	/* a general register plus a constant into itself, 32 or 64 bits
	 * wide (add or sub of an immediate, inc, dec, lea disp(itself)):
	 * the register (REGN_GPR) and width, and the constant; step_reg -1
	 * for any other instruction */
	int8_t step_reg;
	uint8_t step_bits;
	int32_t step;
	bool partial_write;  /* writes 8 or 16 bits of a GPR: merges with the old value */
	bool lea_rip;        /* lea of a RIP-relative address */
	bool lea3;           /* lea of base + index + displacement */
	bool flags_merge;    /* its flags merge the old flags (shift by cl), its
				other results do not wait for them */
	bool plain_move;     /* mov/movzx/movsx and vector moves: a load or store that
				only moves data (what memory renaming forwards) */
	bool zext_load;      /* movzx from memory: a load zero-extended into a
				general register */
	/* the memory operand read or written (the stack slot of push, pop,
	 * call and ret included): base and index as REGN_ numbers or -1, the
	 * displacement from the base as it was before the instruction */
	struct {
		int8_t base, index;
		uint8_t scale;
		bool other_seg;  /* fs/gs: another address space */
		bool rip;        /* RIP-relative: a place of its own */
		bool addr32;     /* 32-bit addressing (the 0x67 prefix) */
		uint8_t disp_at; /* offset of the displacement in the instruction */
		uint8_t disp_size; /* its bytes, 0 if none */
		uint16_t size;   /* bytes accessed (0: not known) */
		int64_t disp;
	} mem;
	int32_t rsp_move;    /* what the instruction adds to rsp, when known */
};

/* Describe the instruction at buf[0..len) into d.  False if it does not
 * decode (d then says no memory operand and nothing else). */
bool insn_describe(const struct x86_decoder *dx, const uint8_t *buf, size_t len,
		   struct insn_detail *d);
/* What insn_describe says of the instruction insn_decode_kept decoded
 * into z (and returned true for). */
void insn_describe_decoded(const struct x86_decoded *z, struct insn_detail *d);

/* Format the instruction at buf[0..len), at address addr (what its branch
 * targets are shown relative to), in AT&T syntax into out[0..outsz),
 * NUL-terminated, for annotated disassembly: "(bad)" if it does not
 * decode. */
void insn_format(const struct x86_decoder *dx, const uint8_t *buf, size_t len, uint64_t addr,
		 char *out, size_t outsz);

#endif
