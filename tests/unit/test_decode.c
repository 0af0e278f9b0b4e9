/* Unit tests of the rewriter's instruction vocabulary (x86/decode.c). */
#include <stdio.h>
#include <string.h>

#include "decode.h"
#include "tap.h"

#define CHECK(cond)                                                                   \
	do {                                                                          \
		if (!(cond))                                                          \
			tap_fail("%s:%d: CHECK(%s) failed", __FILE__, __LINE__, #cond); \
	} while (0)

struct want {
	const char *name;
	const char *bytes;
	size_t len;
	int kind;
	int rel_size;
	uint64_t target; /* at offset 0x100 */
};

static const struct want cases[] = {
	{"jmp rel8", "\xeb\x10", 2, INSN_JMP, 1, 0x112},
	{"jmp rel32", "\xe9\x00\x01\x00\x00", 5, INSN_JMP, 4, 0x205},
	{"jne rel8", "\x75\xfe", 2, INSN_JCC, 1, 0x100},
	{"jg rel32", "\x0f\x8f\x10\x00\x00\x00", 6, INSN_JCC, 4, 0x116},
	{"loop", "\xe2\xf0", 2, INSN_LOOP, 1, 0xf2},
	{"jrcxz", "\xe3\x05", 2, INSN_LOOP, 1, 0x107},
	{"call rel32", "\xe8\x00\x00\x00\x00", 5, INSN_CALL, 4, 0x105},
	{"ret", "\xc3", 1, INSN_RET, 0, 0},
	{"ret imm16", "\xc2\x08\x00", 3, INSN_RET, 0, 0},
	{"jmp *%rax", "\xff\xe0", 2, INSN_JMP_IND, 0, 0},
	{"notrack jmp *%rax", "\x3e\xff\xe0", 3, INSN_JMP_IND, 0, 0},
	{"jmp *8(%rdi)", "\xff\x67\x08", 3, INSN_JMP_IND, 0, 0},
	{"call *%rdx", "\xff\xd2", 2, INSN_CALL_IND, 0, 0},
	{"syscall", "\x0f\x05", 2, INSN_SYSCALL, 0, 0},
	{"ud2", "\x0f\x0b", 2, INSN_TRAP, 0, 0},
	{"hlt", "\xf4", 1, INSN_TRAP, 0, 0},
	{"add", "\x48\x01\xd8", 3, INSN_OTHER, 0, 0},
	{"ljmp *(%rax)", "\xff\x28", 2, INSN_BAD, 0, 0},
};

int main(void)
{
	struct x86_decoder dx;
	x86_decoder_init(&dx);
	for (size_t i = 0; i < sizeof(cases) / sizeof(cases[0]); i++) {
		const struct want *w = &cases[i];
		tap_case("decode %s", w->name);
		struct insn in;
		CHECK(insn_decode(&dx, (const uint8_t *)w->bytes, w->len, 0x100, &in));
		CHECK(in.len == w->len);
		CHECK(in.kind == w->kind);
		CHECK(in.rel_size == w->rel_size);
		if (w->rel_size)
			CHECK(in.target == w->target);
	}
	struct insn in;
	tap_case("flags: cmp writes all status flags, reads none");
	CHECK(insn_decode(&dx, (const uint8_t *)"\x48\x39\xd8", 3, 0, &in));
	CHECK(in.flags_written == FLAGS_STATUS && in.flags_read == 0);
	tap_case("flags: adc reads CF");
	CHECK(insn_decode(&dx, (const uint8_t *)"\x48\x11\xd8", 3, 0, &in));
	CHECK(in.flags_read & 1);
	tap_case("flags: inc leaves CF alone");
	CHECK(insn_decode(&dx, (const uint8_t *)"\x48\xff\xc0", 3, 0, &in));
	CHECK(!(in.flags_written & 1) && (in.flags_written & 0x40));
	tap_case("flags: a shift by %%cl may shift by 0 and keep every flag, so kills none");
	CHECK(insn_decode(&dx, (const uint8_t *)"\x48\xd3\xe0", 3, 0, &in));
	CHECK(in.flags_written == 0);
	tap_case("rep movsb");
	CHECK(insn_decode(&dx, (const uint8_t *)"\xf3\xa4", 2, 0, &in));
	CHECK(in.rep == REP_REP && in.flags_written == 0);
	tap_case("repe cmpsb");
	CHECK(insn_decode(&dx, (const uint8_t *)"\xf3\xa6", 2, 0, &in));
	CHECK(in.rep == REP_REPE);
	tap_case("repne scasb");
	CHECK(insn_decode(&dx, (const uint8_t *)"\xf2\xae", 2, 0, &in));
	CHECK(in.rep == REP_REPNE);
	tap_case("rep ret is a ret");
	CHECK(insn_decode(&dx, (const uint8_t *)"\xf3\xc3", 2, 0, &in));
	CHECK(in.kind == INSN_RET && in.rep == REP_NONE);
	tap_case("endbr64");
	CHECK(insn_decode(&dx, (const uint8_t *)"\xf3\x0f\x1e\xfa", 4, 0, &in));
	CHECK(in.endbr);
	tap_case("lea of a RIP-relative address: its displacement's place");
	CHECK(insn_decode(&dx, (const uint8_t *)"\x48\x8d\x05\x10\x00\x00\x00", 7, 0, &in));
	CHECK(in.rip_rel && in.disp_off == 3);
	static const struct {
		const char *name, *bytes;
		size_t len;
		int reg, bits, step;
	} steps[] = {
		{"sub $1,%edi", "\x83\xef\x01", 3, 7, 32, -1},
		{"add $8,%rsi", "\x48\x83\xc6\x08", 4, 6, 64, 8},
		{"dec %r9", "\x49\xff\xc9", 3, 9, 64, -1},
		{"inc %eax", "\xff\xc0", 2, 0, 32, 1},
		{"lea -16(%rbx),%rbx", "\x48\x8d\x5b\xf0", 4, 3, 64, -16},
		{"lea 1(%rdx),%edx (the low half)", "\x8d\x52\x01", 3, 2, 32, 1},
		{"sub $0x1000,%r12", "\x49\x81\xec\x00\x10\x00\x00", 7, 12, 64, -0x1000},
		/* not a register stepped in itself */
		{"lea 1(%rsi),%rdi", "\x48\x8d\x7e\x01", 4, -1, 0, 0},
		{"lea 1(%eax),%rax (a 32-bit address)", "\x67\x48\x8d\x40\x01", 5, -1, 0, 0},
		{"lea 1(%rax,%rcx),%rax", "\x48\x8d\x44\x08\x01", 5, -1, 0, 0},
		{"add %rcx,%rax", "\x48\x01\xc8", 3, -1, 0, 0},
		{"sub $1,%ax (16 bits)", "\x66\x83\xe8\x01", 4, -1, 0, 0},
		{"addq $1,(%rax) (memory)", "\x48\x83\x00\x01", 4, -1, 0, 0},
		{"add $0,%rax", "\x48\x83\xc0\x00", 4, -1, 0, 0},
	};
	for (size_t i = 0; i < sizeof(steps) / sizeof(steps[0]); i++) {
		tap_case("a register's step: %s", steps[i].name);
		struct insn_detail d;
		CHECK(insn_describe(&dx, (const uint8_t *)steps[i].bytes, steps[i].len, &d));
		CHECK(d.step_reg == steps[i].reg);
		if (steps[i].reg >= 0)
			CHECK(d.step_bits == steps[i].bits && d.step == steps[i].step);
	}
	tap_case("salc: invalid in 64-bit mode");
	CHECK(!insn_decode(&dx, (const uint8_t *)"\xd6", 1, 0, &in));
	tap_case("a truncated instruction");
	CHECK(!insn_decode(&dx, (const uint8_t *)"\x0f", 1, 0, &in));
	return tap_done();
}
