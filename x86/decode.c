/* SPDX-License-Identifier: MIT */
/* The one file that speaks Zydis (the x86 layer the rewriter and profview share). */
#include "decode.h"

#include <Zydis/Zydis.h>
#include <stdio.h>
#include <string.h>

/* What struct x86_decoder's opaque storage holds.  This file only hands
 * pointers into it to Zydis (and zeroes it as bytes), so the storage is
 * read and written as these types by Zydis alone. */
struct x86_state {
	ZydisDecoder dec;
	ZydisFormatter fmt;
};
_Static_assert(sizeof(struct x86_state) <= X86_DECODER_SIZE,
	       "X86_DECODER_SIZE (decode.h) is too small for this Zydis");
_Static_assert(_Alignof(struct x86_state) <= _Alignof(struct x86_decoder),
	       "struct x86_decoder (decode.h) is aligned too weakly for this Zydis");

/* What struct x86_decoded's opaque storage holds: one instruction as Zydis
 * decoded it, read by this file alone. */
struct x86_insn {
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
};
_Static_assert(sizeof(struct x86_insn) <= X86_DECODED_SIZE,
	       "X86_DECODED_SIZE (decode.h) is too small for this Zydis");
_Static_assert(_Alignof(struct x86_insn) <= _Alignof(struct x86_decoded),
	       "struct x86_decoded (decode.h) is aligned too weakly for this Zydis");

static const struct x86_state *state(const struct x86_decoder *d)
{
	return (const struct x86_state *)(const void *)d->opaque;
}

void x86_decoder_init(struct x86_decoder *d)
{
	struct x86_state *st = (struct x86_state *)(void *)d->opaque;
	memset(d, 0, sizeof(*d));
	ZydisDecoderInit(&st->dec, ZYDIS_MACHINE_MODE_LONG_64, ZYDIS_STACK_WIDTH_64);
	ZydisFormatterInit(&st->fmt, ZYDIS_FORMATTER_STYLE_ATT);
}

static bool is_shift_by_reg(const ZydisDecodedInstruction *in,
			    const ZydisDecodedOperand *ops)
{
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_SHL: case ZYDIS_MNEMONIC_SHR: case ZYDIS_MNEMONIC_SAR:
	case ZYDIS_MNEMONIC_ROL: case ZYDIS_MNEMONIC_ROR: case ZYDIS_MNEMONIC_RCL:
	case ZYDIS_MNEMONIC_RCR: case ZYDIS_MNEMONIC_SHLD: case ZYDIS_MNEMONIC_SHRD:
		break;
	default:
		return false;
	}
	/* A count of 0 leaves the flags alone: only a count in CL can be 0. */
	for (int i = 0; i < in->operand_count_visible; i++)
		if (ops[i].type == ZYDIS_OPERAND_TYPE_REGISTER && ops[i].reg.value == ZYDIS_REGISTER_CL)
			return true;
	return false;
}

static uint8_t classify(const ZydisDecodedInstruction *in, bool mem_read, bool mem_write)
{
	switch (in->meta.category) {
	case ZYDIS_CATEGORY_NOP: case ZYDIS_CATEGORY_WIDENOP:
		return ICLS_NOP;
	case ZYDIS_CATEGORY_COND_BR: case ZYDIS_CATEGORY_UNCOND_BR:
		return ICLS_BRANCH;
	case ZYDIS_CATEGORY_CALL:
		return ICLS_CALL;
	case ZYDIS_CATEGORY_RET:
		return ICLS_RET;
	case ZYDIS_CATEGORY_STRINGOP:
		return ICLS_STRING;
	case ZYDIS_CATEGORY_SYSCALL: case ZYDIS_CATEGORY_SYSTEM: case ZYDIS_CATEGORY_INTERRUPT:
		return ICLS_SYSTEM;
	case ZYDIS_CATEGORY_X87_ALU: case ZYDIS_CATEGORY_FCMOV:
		return ICLS_FP;
	case ZYDIS_CATEGORY_SSE: case ZYDIS_CATEGORY_AVX: case ZYDIS_CATEGORY_AVX2:
	case ZYDIS_CATEGORY_AVX512: case ZYDIS_CATEGORY_MMX: case ZYDIS_CATEGORY_AES:
	case ZYDIS_CATEGORY_PCLMULQDQ: case ZYDIS_CATEGORY_SHA:
		return ICLS_VEC;
	default:
		break;
	}
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_MUL: case ZYDIS_MNEMONIC_IMUL: case ZYDIS_MNEMONIC_MULX:
		return ICLS_MUL;
	case ZYDIS_MNEMONIC_DIV: case ZYDIS_MNEMONIC_IDIV:
		return ICLS_DIV;
	case ZYDIS_MNEMONIC_MOV: case ZYDIS_MNEMONIC_MOVZX: case ZYDIS_MNEMONIC_MOVSX:
	case ZYDIS_MNEMONIC_MOVSXD: case ZYDIS_MNEMONIC_LEA:
		if (mem_write)
			return ICLS_STORE;
		if (mem_read)
			return ICLS_LOAD;
		return ICLS_MOV;
	default:
		break;
	}
	if (mem_write)
		return ICLS_STORE;
	if (mem_read)
		return ICLS_LOAD;
	return ICLS_ALU;
}

/* struct insn from Zydis's decoding of the instruction at section offset
 * off. */
static void insn_from(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops, uint64_t off,
		      struct insn *out)
{
	out->len = in->length;
	out->mnemonic = (uint16_t)in->mnemonic;
	out->nops = in->operand_count_visible;
	if (in->cpu_flags) {
		uint32_t w = in->cpu_flags->modified | in->cpu_flags->set_0 |
			     in->cpu_flags->set_1 | in->cpu_flags->undefined;
		out->flags_read = (uint16_t)(in->cpu_flags->tested & FLAGS_STATUS);
		out->flags_written = (uint16_t)(w & FLAGS_STATUS);
	}
	if (is_shift_by_reg(in, ops))
		out->flags_written = 0;
	for (int i = 0; i < in->operand_count; i++) {
		if (ops[i].type != ZYDIS_OPERAND_TYPE_MEMORY)
			continue;
		if (ops[i].mem.base == ZYDIS_REGISTER_RIP) {
			out->rip_rel = true;
			out->disp_off = in->raw.disp.offset;
		}
		if (ops[i].mem.type == ZYDIS_MEMOP_TYPE_AGEN)
			continue;
		if (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_READ)
			out->mem_read = true;
		if (ops[i].actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)
			out->mem_write = true;
	}
	out->cls = classify(in, out->mem_read, out->mem_write);
	if (in->meta.category == ZYDIS_CATEGORY_STRINGOP) {
		if (in->attributes & ZYDIS_ATTRIB_HAS_REPE)
			out->rep = REP_REPE;
		else if (in->attributes & ZYDIS_ATTRIB_HAS_REPNE)
			out->rep = REP_REPNE;
		else if (in->attributes & ZYDIS_ATTRIB_HAS_REP)
			out->rep = REP_REP;
		/* With a count of zero a repeated string op writes no flag. */
		if (out->rep)
			out->flags_written = 0;
	}
	out->endbr = in->mnemonic == ZYDIS_MNEMONIC_ENDBR64;
	if (in->raw.disp.size)
		out->disp_at = in->raw.disp.offset, out->disp_len = in->raw.disp.size / 8;
	if (in->raw.imm[0].size)
		out->imm_at = in->raw.imm[0].offset, out->imm_len = in->raw.imm[0].size / 8;
	if (in->raw.imm[1].size)
		out->imm2_at = in->raw.imm[1].offset, out->imm2_len = in->raw.imm[1].size / 8;

	bool rel = (in->attributes & ZYDIS_ATTRIB_IS_RELATIVE) && in->raw.imm[0].is_relative;
	if (in->meta.branch_type == ZYDIS_BRANCH_TYPE_FAR) {
		out->kind = INSN_BAD; /* far jmp/call: cannot be moved */
		return;
	}
	const ZydisDecodedOperand *op0 = &ops[0];
	switch (in->meta.category) {
	case ZYDIS_CATEGORY_UNCOND_BR:
		if (in->mnemonic != ZYDIS_MNEMONIC_JMP) {
			out->kind = INSN_BAD;
			return;
		}
		if (rel)
			out->kind = INSN_JMP;
		else if (op0->type == ZYDIS_OPERAND_TYPE_REGISTER || op0->type == ZYDIS_OPERAND_TYPE_MEMORY)
			out->kind = INSN_JMP_IND;
		else
			out->kind = INSN_BAD; /* far jump */
		break;
	case ZYDIS_CATEGORY_COND_BR:
		switch (in->mnemonic) {
		case ZYDIS_MNEMONIC_LOOP: case ZYDIS_MNEMONIC_LOOPE: case ZYDIS_MNEMONIC_LOOPNE:
		case ZYDIS_MNEMONIC_JCXZ: case ZYDIS_MNEMONIC_JECXZ: case ZYDIS_MNEMONIC_JRCXZ:
			out->kind = INSN_LOOP;
			break;
		default:
			out->kind = INSN_JCC;
			out->cc = in->opcode & 0xf;
		}
		break;
	case ZYDIS_CATEGORY_CALL:
		if (rel)
			out->kind = INSN_CALL;
		else if (in->mnemonic == ZYDIS_MNEMONIC_CALL &&
			 (op0->type == ZYDIS_OPERAND_TYPE_REGISTER || op0->type == ZYDIS_OPERAND_TYPE_MEMORY) &&
			 !(op0->type == ZYDIS_OPERAND_TYPE_MEMORY && op0->mem.segment != ZYDIS_REGISTER_DS &&
			   op0->mem.segment != ZYDIS_REGISTER_SS && op0->mem.segment != ZYDIS_REGISTER_NONE &&
			   in->operand_width != 64))
			out->kind = INSN_CALL_IND;
		else
			out->kind = INSN_BAD;
		break;
	case ZYDIS_CATEGORY_RET:
		out->kind = in->mnemonic == ZYDIS_MNEMONIC_RET ? INSN_RET : INSN_BAD;
		break;
	case ZYDIS_CATEGORY_SYSCALL:
		out->kind = in->mnemonic == ZYDIS_MNEMONIC_SYSCALL ? INSN_SYSCALL : INSN_BAD;
		break;
	default:
		switch (in->mnemonic) {
		case ZYDIS_MNEMONIC_UD0: case ZYDIS_MNEMONIC_UD1: case ZYDIS_MNEMONIC_UD2:
		case ZYDIS_MNEMONIC_HLT: case ZYDIS_MNEMONIC_INT3:
			out->kind = INSN_TRAP;
			break;
		case ZYDIS_MNEMONIC_IRET: case ZYDIS_MNEMONIC_IRETD: case ZYDIS_MNEMONIC_IRETQ:
		case ZYDIS_MNEMONIC_SYSRET: case ZYDIS_MNEMONIC_SYSEXIT:
		case ZYDIS_MNEMONIC_XBEGIN:
			out->kind = INSN_BAD;
			break;
		default:
			out->kind = INSN_OTHER;
		}
	}
	if (rel && out->kind != INSN_BAD) {
		out->rel_off = in->raw.imm[0].offset;
		out->rel_size = in->raw.imm[0].size / 8;
		out->target = off + in->length + (uint64_t)in->raw.imm[0].value.s;
	}
	if (out->kind == INSN_JMP_IND || out->kind == INSN_CALL_IND) {
		if (op0->type == ZYDIS_OPERAND_TYPE_REGISTER) {
			out->ind_reg = (uint8_t)(1 + ZydisRegisterGetId(op0->reg.value));
			if (ZydisRegisterGetWidth(ZYDIS_MACHINE_MODE_LONG_64, op0->reg.value) != 64)
				out->kind = INSN_BAD;
		} else {
			out->modrm_off = in->raw.modrm.offset;
			if (op0->mem.segment == ZYDIS_REGISTER_FS || op0->mem.segment == ZYDIS_REGISTER_GS)
				out->kind = INSN_BAD;
		}
	}
}

bool insn_decode_kept(const struct x86_decoder *dx, const uint8_t *buf, size_t avail, uint64_t off,
		      struct insn *out, struct x86_decoded *z)
{
	struct x86_insn *zi = (struct x86_insn *)(void *)z->opaque;
	memset(out, 0, sizeof(*out));
	out->off = off;
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&state(dx)->dec, buf, avail, &zi->in, zi->ops)))
		return false;
	insn_from(&zi->in, zi->ops, off, out);
	return true;
}

bool insn_decode(const struct x86_decoder *dx, const uint8_t *buf, size_t avail, uint64_t off,
		 struct insn *out)
{
	struct x86_decoded z;
	return insn_decode_kept(dx, buf, avail, off, out, &z);
}

void insn_format(const struct x86_decoder *dx, const uint8_t *buf, size_t len, uint64_t addr,
		 char *out, size_t outsz)
{
	const struct x86_state *st = state(dx);
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&st->dec, buf, len, &in, ops)) ||
	    !ZYAN_SUCCESS(ZydisFormatterFormatInstruction(&st->fmt, &in, ops, in.operand_count_visible,
							  out, outsz, addr, NULL)))
		snprintf(out, outsz, "(bad)");
}

/* ----- detail for the timing models */

static int regn(ZydisRegister r)
{
	switch (ZydisRegisterGetClass(r)) {
	case ZYDIS_REGCLASS_GPR8: case ZYDIS_REGCLASS_GPR16: case ZYDIS_REGCLASS_GPR32:
	case ZYDIS_REGCLASS_GPR64: {
		ZydisRegister big = ZydisRegisterGetLargestEnclosing(ZYDIS_MACHINE_MODE_LONG_64, r);
		return REGN_GPR + ZydisRegisterGetId(big);
	}
	case ZYDIS_REGCLASS_XMM: case ZYDIS_REGCLASS_YMM: case ZYDIS_REGCLASS_ZMM:
		return REGN_VEC + ZydisRegisterGetId(r);
	case ZYDIS_REGCLASS_MASK:
		return REGN_K + ZydisRegisterGetId(r);
	case ZYDIS_REGCLASS_FLAGS:
		return REGN_FLAGS;
	case ZYDIS_REGCLASS_X87:
		return REGN_X87;
	case ZYDIS_REGCLASS_IP:
		return -1; /* rip: known at decode, no dependency */
	case ZYDIS_REGCLASS_INVALID:
		return -1;
	default:
		return REGN_OTHER;
	}
}

static const char *reg_form(ZydisRegister r)
{
	if (r == ZYDIS_REGISTER_CL)
		return "cl";
	switch (ZydisRegisterGetClass(r)) {
	case ZYDIS_REGCLASS_GPR8: return "r8";
	case ZYDIS_REGCLASS_GPR16: return "r16";
	case ZYDIS_REGCLASS_GPR32: return "r32";
	case ZYDIS_REGCLASS_GPR64: return "r64";
	case ZYDIS_REGCLASS_XMM: return "x";
	case ZYDIS_REGCLASS_YMM: return "y";
	case ZYDIS_REGCLASS_ZMM: return "z";
	case ZYDIS_REGCLASS_MASK: return "k";
	case ZYDIS_REGCLASS_MMX: return "mm";
	case ZYDIS_REGCLASS_X87: return "st";
	case ZYDIS_REGCLASS_SEGMENT: return "seg";
	default: return "reg";
	}
}

/* Appends s to the form f (of sz bytes), cut to fit as snprintf would cut
 * it (a copy: every instruction the models cost is described, and
 * snprintf was most of that). */
static void form_add(char *f, size_t sz, const char *s)
{
	size_t n = strlen(f), m = strlen(s);
	if (n + 1 >= sz)
		return;
	if (m > sz - n - 1)
		m = sz - n - 1;
	memcpy(f + n, s, m);
	f[n + m] = '\0';
}

/* What describes nothing: no form, no register, no memory operand. */
static void describe_none(struct insn_detail *d)
{
	memset(d, 0, sizeof(*d));
	d->mem.base = d->mem.index = -1;
	d->step_reg = -1;
}

/* A register stepped by a constant (insn_detail.step_reg): what counts a
 * loop's turns by the register's change (rewriter/stepcount.c) */
static void describe_step(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops, struct insn_detail *d)
{
	if (in->operand_count_visible < 1 || ops[0].type != ZYDIS_OPERAND_TYPE_REGISTER)
		return;
	ZydisRegisterClass k = ZydisRegisterGetClass(ops[0].reg.value);
	if (k != ZYDIS_REGCLASS_GPR64 && k != ZYDIS_REGCLASS_GPR32)
		return;
	int64_t step;
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_ADD: case ZYDIS_MNEMONIC_SUB:
		if (in->operand_count_visible != 2 || ops[1].type != ZYDIS_OPERAND_TYPE_IMMEDIATE)
			return;
		step = in->mnemonic == ZYDIS_MNEMONIC_ADD ? ops[1].imm.value.s : -ops[1].imm.value.s;
		break;
	case ZYDIS_MNEMONIC_INC: case ZYDIS_MNEMONIC_DEC:
		if (in->operand_count_visible != 1)
			return;
		step = in->mnemonic == ZYDIS_MNEMONIC_INC ? 1 : -1;
		break;
	case ZYDIS_MNEMONIC_LEA:
		/* lea disp(%r),%r: a 64-bit one of a 64-bit address (a 32-bit
		 * one keeps the low half of either) */
		if (regn(ops[1].mem.base) != regn(ops[0].reg.value) || ops[1].mem.index != ZYDIS_REGISTER_NONE ||
		    (k == ZYDIS_REGCLASS_GPR64 && ZydisRegisterGetClass(ops[1].mem.base) != ZYDIS_REGCLASS_GPR64) ||
		    (ops[1].mem.segment != ZYDIS_REGISTER_DS && ops[1].mem.segment != ZYDIS_REGISTER_NONE))
			return;
		step = ops[1].mem.disp.value;
		break;
	default:
		return;
	}
	if (step == 0 || step < INT32_MIN || step > INT32_MAX)
		return;
	d->step_reg = (int8_t)regn(ops[0].reg.value);
	d->step_bits = k == ZYDIS_REGCLASS_GPR64 ? 64 : 32;
	d->step = (int32_t)step;
}

/* Describe into d, which describes nothing yet, the instruction Zydis
 * decoded as in and ops. */
static void describe(const ZydisDecodedInstruction *in, const ZydisDecodedOperand *ops, struct insn_detail *d)
{
	char *f = d->form;
	if (in->attributes & ZYDIS_ATTRIB_HAS_LOCK)
		form_add(f, sizeof(d->form), "lock ");
	if (in->meta.category == ZYDIS_CATEGORY_STRINGOP) {
		if (in->attributes & (ZYDIS_ATTRIB_HAS_REPE | ZYDIS_ATTRIB_HAS_REPNE))
			form_add(f, sizeof(d->form), "repcc ");
		else if (in->attributes & ZYDIS_ATTRIB_HAS_REP)
			form_add(f, sizeof(d->form), "rep ");
	}
	form_add(f, sizeof(d->form), ZydisMnemonicGetString(in->mnemonic));
	for (int i = 0; i < in->operand_count_visible; i++) {
		const ZydisDecodedOperand *op = &ops[i];
		char tmp[16];
		const char *s = "?";
		switch (op->type) {
		case ZYDIS_OPERAND_TYPE_REGISTER:
			s = reg_form(op->reg.value);
			break;
		case ZYDIS_OPERAND_TYPE_MEMORY:
			if (op->mem.type == ZYDIS_MEMOP_TYPE_AGEN)
				s = "a";
			else {
				snprintf(tmp, sizeof(tmp), "m%u", op->size);
				s = tmp;
			}
			break;
		case ZYDIS_OPERAND_TYPE_IMMEDIATE:
			s = op->imm.is_relative ? "rel" : "i";
			break;
		case ZYDIS_OPERAND_TYPE_POINTER:
			s = "ptr";
			break;
		default:
			break;
		}
		form_add(f, sizeof(d->form), i ? "," : " ");
		form_add(f, sizeof(d->form), s);
	}

	/* registers: every operand, hidden ones included (rdx:rax of mul, rcx
	 * of rep), except the stack pointer that push, pop, call and ret
	 * move: the cores' stack engine does that at decode, without a
	 * dependency */
	bool stack_engine = in->mnemonic == ZYDIS_MNEMONIC_PUSH || in->mnemonic == ZYDIS_MNEMONIC_POP ||
			    in->mnemonic == ZYDIS_MNEMONIC_CALL || in->mnemonic == ZYDIS_MNEMONIC_RET;
	for (int i = 0; i < in->operand_count; i++) {
		const ZydisDecodedOperand *op = &ops[i];
		if (stack_engine && op->visibility == ZYDIS_OPERAND_VISIBILITY_HIDDEN &&
		    ((op->type == ZYDIS_OPERAND_TYPE_REGISTER && op->reg.value == ZYDIS_REGISTER_RSP) ||
		     (op->type == ZYDIS_OPERAND_TYPE_MEMORY && op->mem.base == ZYDIS_REGISTER_RSP))) {
			if (op->type == ZYDIS_OPERAND_TYPE_MEMORY) {
				if (op->actions & ZYDIS_OPERAND_ACTION_MASK_READ)
					d->load = true;
				if (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)
					d->store = true;
				if (d->mem.base < 0) /* an explicit operand wins */
					d->mem.base = (int8_t)regn(ZYDIS_REGISTER_RSP), d->mem.scale = 1,
					d->mem.disp = in->mnemonic == ZYDIS_MNEMONIC_PUSH ||
						      in->mnemonic == ZYDIS_MNEMONIC_CALL ? -8 : 0,
					d->mem.size = 8;
			}
			continue;
		}
		if (op->type == ZYDIS_OPERAND_TYPE_REGISTER) {
			int n = regn(op->reg.value);
			if (n < 0)
				continue;
			/* a register written only if a condition holds (cmov's
			 * destination) keeps its old value otherwise: read (not
			 * the flags, which a shift by %cl keeps when the count is
			 * 0: flags_merge has them) */
			if ((op->actions & ZYDIS_OPERAND_ACTION_MASK_READ) ||
			    ((op->actions & ZYDIS_OPERAND_ACTION_CONDWRITE) && n < REGN_K))
				d->rd |= 1ull << n;
			if (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE) {
				d->wr |= 1ull << n;
				ZydisRegisterClass k = ZydisRegisterGetClass(op->reg.value);
				if ((k == ZYDIS_REGCLASS_GPR8 || k == ZYDIS_REGCLASS_GPR16) &&
				    !(op->actions & ZYDIS_OPERAND_ACTION_MASK_READ)) {
					d->partial_write = true;
					d->merge |= 1ull << n;
				}
			}
		} else if (op->type == ZYDIS_OPERAND_TYPE_MEMORY) {
			int b = regn(op->mem.base), x = regn(op->mem.index);
			if (b >= 0)
				d->addr |= 1ull << b;
			if (x >= 0)
				d->addr |= 1ull << x;
			if (op->mem.type == ZYDIS_MEMOP_TYPE_AGEN)
				continue;
			d->mem.base = (int8_t)b, d->mem.index = (int8_t)x, d->mem.scale = op->mem.scale;
			d->mem.disp = op->mem.disp.value;
			d->mem.rip = op->mem.base == ZYDIS_REGISTER_RIP;
			d->mem.size = (uint16_t)(op->size / 8);
			d->mem.other_seg = op->mem.segment == ZYDIS_REGISTER_FS || op->mem.segment == ZYDIS_REGISTER_GS;
			d->mem.addr32 = in->address_width == 32;
			d->mem.disp_at = in->raw.disp.offset;
			d->mem.disp_size = (uint8_t)(in->raw.disp.size / 8);
			if (op->mem.base != ZYDIS_REGISTER_RIP) {
				/* addresses written alike are the same address while
				 * their registers do not change: what store-to-load
				 * forwarding needs */
				uint64_t k = ((uint64_t)op->mem.base * 131 + op->mem.index) * 17 + op->mem.scale;
				k = (k * 0x9e3779b97f4a7c15ull) ^ (uint64_t)op->mem.disp.value;
				d->mem_key = k | 1;
			}
			if (op->actions & ZYDIS_OPERAND_ACTION_MASK_READ)
				d->load = true;
			if (op->actions & ZYDIS_OPERAND_ACTION_MASK_WRITE)
				d->store = true;
		}
	}
	/* a shift or rotate by cl leaves the flags as they were when the count
	 * is 0: its flags merge the old ones (a chain through the flags alone;
	 * measured here) */
	bool by_cl = in->operand_count_visible == 2 && ops[1].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		     ops[1].reg.value == ZYDIS_REGISTER_CL;
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_SHL: case ZYDIS_MNEMONIC_SHR: case ZYDIS_MNEMONIC_SAR:
	case ZYDIS_MNEMONIC_ROL: case ZYDIS_MNEMONIC_ROR:
		d->flags_merge = by_cl;
		break;
	default:
		break;
	}
	if (in->cpu_flags) {
		if (in->cpu_flags->tested & FLAGS_STATUS)
			d->rd |= 1ull << REGN_FLAGS;
		if ((in->cpu_flags->modified | in->cpu_flags->set_0 | in->cpu_flags->set_1 |
		     in->cpu_flags->undefined) & FLAGS_STATUS)
			d->wr |= 1ull << REGN_FLAGS;
	}

	/* idioms the renamer resolves without executing a dependency */
	bool two_regs = in->operand_count_visible >= 2 && ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
			ops[1].type == ZYDIS_OPERAND_TYPE_REGISTER;
	bool same = two_regs && ops[0].reg.value == ops[1].reg.value;
	bool three_same = in->operand_count_visible >= 3 && two_regs &&
			  ops[2].type == ZYDIS_OPERAND_TYPE_REGISTER && ops[1].reg.value == ops[2].reg.value;
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_XOR: case ZYDIS_MNEMONIC_SUB: case ZYDIS_MNEMONIC_PXOR:
	case ZYDIS_MNEMONIC_XORPS: case ZYDIS_MNEMONIC_XORPD: case ZYDIS_MNEMONIC_PSUBB:
	case ZYDIS_MNEMONIC_PSUBD: case ZYDIS_MNEMONIC_PSUBQ: case ZYDIS_MNEMONIC_PCMPGTD:
		d->zero_idiom = same && ZydisRegisterGetClass(ops[0].reg.value) != ZYDIS_REGCLASS_GPR8 &&
				ZydisRegisterGetClass(ops[0].reg.value) != ZYDIS_REGCLASS_GPR16;
		break;
	case ZYDIS_MNEMONIC_VPXOR: case ZYDIS_MNEMONIC_VXORPS: case ZYDIS_MNEMONIC_VXORPD:
	case ZYDIS_MNEMONIC_VPXORD: case ZYDIS_MNEMONIC_VPXORQ: case ZYDIS_MNEMONIC_VPSUBD:
		d->zero_idiom = three_same;
		break;
	case ZYDIS_MNEMONIC_MOV: case ZYDIS_MNEMONIC_MOVAPS: case ZYDIS_MNEMONIC_MOVAPD:
	case ZYDIS_MNEMONIC_MOVDQA: case ZYDIS_MNEMONIC_MOVDQU: case ZYDIS_MNEMONIC_MOVUPS:
	case ZYDIS_MNEMONIC_VMOVAPS: case ZYDIS_MNEMONIC_VMOVDQA: case ZYDIS_MNEMONIC_VMOVDQU:
	case ZYDIS_MNEMONIC_VMOVUPS:
		d->move_reg = two_regs && !same &&
			      ZydisRegisterGetClass(ops[0].reg.value) != ZYDIS_REGCLASS_GPR8 &&
			      ZydisRegisterGetClass(ops[0].reg.value) != ZYDIS_REGCLASS_GPR16;
		break;
	default:
		break;
	}
	/* a 64-bit register plus a constant: the renamer can keep the
	 * constant beside the register (measured here: 32-bit forms, which
	 * zero the upper half, are executed) */
	bool r64 = in->operand_count_visible >= 1 && ops[0].type == ZYDIS_OPERAND_TYPE_REGISTER &&
		   ZydisRegisterGetClass(ops[0].reg.value) == ZYDIS_REGCLASS_GPR64;
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_ADD: case ZYDIS_MNEMONIC_SUB:
		if (r64 && in->operand_count_visible == 2 && ops[1].type == ZYDIS_OPERAND_TYPE_IMMEDIATE) {
			d->imm_add = true;
			d->imm = in->mnemonic == ZYDIS_MNEMONIC_ADD ? ops[1].imm.value.s : -ops[1].imm.value.s;
		}
		break;
	case ZYDIS_MNEMONIC_INC: case ZYDIS_MNEMONIC_DEC:
		if (r64 && in->operand_count_visible == 1) {
			d->imm_add = true;
			d->imm = in->mnemonic == ZYDIS_MNEMONIC_INC ? 1 : -1;
		}
		break;
	case ZYDIS_MNEMONIC_LEA:
		if (r64 && ops[1].mem.index == ZYDIS_REGISTER_NONE &&
		    ZydisRegisterGetClass(ops[1].mem.base) == ZYDIS_REGCLASS_GPR64) {
			d->imm_add = true;
			d->imm = ops[1].mem.disp.value;
		}
		break;
	default:
		break;
	}
	describe_step(in, ops, d);
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_MOV: case ZYDIS_MNEMONIC_MOVZX: case ZYDIS_MNEMONIC_MOVSX:
	case ZYDIS_MNEMONIC_MOVSXD: case ZYDIS_MNEMONIC_MOVD: case ZYDIS_MNEMONIC_MOVQ:
	case ZYDIS_MNEMONIC_MOVSD: case ZYDIS_MNEMONIC_MOVSS: case ZYDIS_MNEMONIC_MOVAPS:
	case ZYDIS_MNEMONIC_MOVUPS: case ZYDIS_MNEMONIC_MOVDQA: case ZYDIS_MNEMONIC_MOVDQU:
	case ZYDIS_MNEMONIC_MOVAPD: case ZYDIS_MNEMONIC_MOVUPD: case ZYDIS_MNEMONIC_VMOVDQU:
	case ZYDIS_MNEMONIC_VMOVDQA: case ZYDIS_MNEMONIC_VMOVUPS: case ZYDIS_MNEMONIC_VMOVAPS:
		d->plain_move = true;
		d->zext_load = in->mnemonic == ZYDIS_MNEMONIC_MOVZX && d->load;
		break;
	default:
		break;
	}
	switch (in->mnemonic) {
	case ZYDIS_MNEMONIC_PUSH: case ZYDIS_MNEMONIC_CALL: d->rsp_move = -8; break;
	case ZYDIS_MNEMONIC_POP: case ZYDIS_MNEMONIC_RET: d->rsp_move = 8; break;
	default:
		if (d->imm_add && ops[0].reg.value == ZYDIS_REGISTER_RSP && in->mnemonic != ZYDIS_MNEMONIC_LEA)
			d->rsp_move = (int32_t)d->imm;
		break;
	}
	if (in->mnemonic == ZYDIS_MNEMONIC_NOP) {
		/* a long nop's operands are padding: nothing is read */
		d->load = d->store = false;
		d->rd = d->wr = d->addr = d->merge = d->mem_key = 0;
		d->mem.base = d->mem.index = -1;
	}
	if (in->mnemonic == ZYDIS_MNEMONIC_LEA && ops[1].mem.base == ZYDIS_REGISTER_RIP)
		d->lea_rip = true;
	if (in->mnemonic == ZYDIS_MNEMONIC_LEA && ops[1].mem.base != ZYDIS_REGISTER_NONE &&
	    ops[1].mem.base != ZYDIS_REGISTER_RIP && ops[1].mem.index != ZYDIS_REGISTER_NONE &&
	    ops[1].mem.disp.value != 0)
		d->lea3 = true;
	d->merge &= ~d->rd; /* read for their own sake too: a full dependency */
	if (d->zero_idiom)
		d->rd = d->merge = 0;
}

bool insn_describe(const struct x86_decoder *dx, const uint8_t *buf, size_t len,
		   struct insn_detail *d)
{
	ZydisDecodedInstruction in;
	ZydisDecodedOperand ops[ZYDIS_MAX_OPERAND_COUNT];
	describe_none(d);
	if (!ZYAN_SUCCESS(ZydisDecoderDecodeFull(&state(dx)->dec, buf, len, &in, ops)))
		return false;
	describe(&in, ops, d);
	return true;
}

void insn_describe_decoded(const struct x86_decoded *z, struct insn_detail *d)
{
	const struct x86_insn *zi = (const struct x86_insn *)(const void *)z->opaque;
	describe_none(d);
	describe(&zi->in, zi->ops, d);
}
