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
 * c->texts[].r11_after for each call and each block's last instruction,
 * to a fixed point over the object's functions. */
void reg_liveness(struct code *c);

#endif
