/* SPDX-License-Identifier: MIT */
/*
 * Where each general register is live (--counts: a counting stub takes a
 * register that is not as scratch, and keeps %r11 below the red zone
 * where none is free).
 *
 * The ABI makes %rax, %rcx, %rdx, %rsi, %rdi and %r8-%r11 scratch
 * registers no call preserves, but gcc's interprocedural register
 * allocation keeps values in them across calls to functions of its own
 * unit that it knows leave them alone: such a function, and everything it
 * calls in the unit, must keep them as they came.  So a call to a
 * function of this object lets every register live through it (and makes
 * the callee keep the scratch registers live after the call); a call
 * anywhere else clobbers the scratch registers.
 */
#ifndef PI_REGLIVE_H
#define PI_REGLIVE_H

#include "cfg.h"

/* Sets each instrumented block's gpr_live (bit n: register n, as
 * REGN_GPR numbers them) and LIVE_R11 in its live_in, and
 * c->texts[].live_after for each call and each block's last instruction,
 * to a fixed point over the object's functions. */
void reg_liveness(struct code *c);

/* The general registers call k may read (bit n: register n): the
 * arguments' and %rax (a variadic call's vector count) and, through a
 * pointer, %r10 (a nested function's or a closure's chain); where it goes
 * to the start of an instrumented function of this object, what that
 * function's entry reads, as reg_liveness found (its own reads, and what
 * its callers keep through it).  %r10 is left out of a direct call to
 * another object's function (a nested function is local to its unit);
 * %rax from a call where nothing wrote it since the function's entry or
 * its last call (text.set_up), and %r10 from a call through a pointer
 * where nothing wrote it: a variadic call's count, a chain (a pointer to
 * a nested function is a trampoline that sets its own) or a closure is
 * set up for the call it goes with. */
uint16_t call_reads(const struct code *c, const struct text *t, uint32_t k);

/* Bit 0 (%rax) where the call or jump through a pointer k takes its
 * target from %rax (call *%rax) or its address from it (call *8(%rax)):
 * then %rax is no variadic callee's count of vector registers, which is
 * set up apart from the target (a count is not a pointer), and the call
 * does not read it; else 0. */
uint16_t pointer_target_rax(const struct code *c, const struct text *t, uint32_t k);

/* The scratch registers call k clobbers, by the ABI (bit n: register n):
 * all of them for a call anywhere but into a function of this object;
 * for one into it (its callers may keep values in them through it: the
 * file's comment), those its entry block writes before it reads them
 * (func.writes): every way through the function writes them, and none
 * can give back what they held (gcc's allocation knows the function
 * clobbers them, so no caller keeps a value there). */
uint16_t call_clobbers(const struct code *c, const struct text *t, uint32_t k);

/* The general registers a stub may take as scratch where block b starts:
 * those not live there, but %rsp and %r12 (whose addressing takes a SIB
 * byte). */
uint16_t stub_free_regs(const struct block *b);

/* text.set_up's bits */
#define CHAIN_R10 1
#define CHAIN_RAX 2

#endif
