/* SPDX-License-Identifier: MIT */
/*
 * Where %r11 is live (--counts: the counting stubs use it as scratch where
 * it is not, and keep it below the red zone where it may be).
 *
 * The ABI makes %r11 a scratch register that no call preserves, but gcc's
 * interprocedural register allocation keeps a value in it across a call
 * to a function of its own unit that it knows leaves %r11 alone: such a
 * function, and everything it calls in the unit, must keep %r11 as it
 * came.  So a call to a function of this object lets %r11 live through
 * it, and makes the callee keep it if it is live after the call; a call
 * anywhere else clobbers it.
 */
#ifndef PI_R11LIVE_H
#define PI_R11LIVE_H

#include "cfg.h"

/* Sets LIVE_R11 in each instrumented block's live_in where %r11 may be
 * live, and c->texts[].r11_after for each call, to a fixed point over the
 * object's functions. */
void r11_liveness(struct code *c);

#endif
