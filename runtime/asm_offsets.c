/* SPDX-License-Identifier: MIT */
/*
 * The numbers stubs.S needs from the C side: structure offsets and sizes,
 * flag bits, table sizes.  Compiled to assembly only (never linked);
 * runtime/gen_asm_offsets.py turns each "->NAME VALUE" line into a
 * #define of rt_asm_offsets.h, as Linux's asm-offsets does, so that the
 * assembly cannot disagree with the structures it walks.
 */
#include <stddef.h>

#include "rt.h"
#include "stub_abi.h"

#define DEFINE(sym, val) __asm__ volatile("\n.ascii \"->" #sym " %c0\"" : : "i"((long)(val)))
#define OFFSET(sym, type, field) DEFINE(sym, offsetof(type, field))

_Static_assert((sizeof(struct pi_funcrec) & (sizeof(struct pi_funcrec) - 1)) == 0,
	       "a function record's size is a power of two (the helpers shift by it)");
_Static_assert(offsetof(struct pi_tls, clock) == STUB_TLS_CLOCK &&
		       offsetof(struct pi_tls, repsave) == STUB_TLS_REPSAVE &&
		       offsetof(struct pi_tls, clock_part) == STUB_TLS_CLOCKPART,
	       "the block stubs' TLS words (stub_abi.h)");
_Static_assert(offsetof(struct pi_tls, cur) == STUB_TLS_CUR && offsetof(struct pi_tls, next) == STUB_TLS_NEXT &&
		       offsetof(struct pi_tls, nextsp) == STUB_TLS_NEXTSP &&
		       offsetof(struct pi_tls, target) == STUB_TLS_TARGET &&
		       offsetof(struct pi_tls, frames_off) == STUB_TLS_FRAMES_OFF &&
		       offsetof(struct pi_tls, memo) == STUB_TLS_MEMO &&
		       offsetof(struct pi_frames, lo) == STUB_FRAMES_LO &&
		       offsetof(struct pi_frames, len) == STUB_FRAMES_LEN &&
		       offsetof(struct pi_frames, base) == STUB_FRAMES_BASE &&
		       offsetof(struct pi_frames, delta) == STUB_FRAMES_DELTA &&
		       offsetof(struct pi_funcrec, addr) == STUB_FR_ADDR0 &&
		       offsetof(struct rt_cnode, fparent) == STUB_CN_FPARENT &&
		       offsetof(struct rt_cnode, fn) == STUB_CN_FN &&
		       offsetof(struct rt_cnode, ptrsite) == STUB_CN_PTRSITE &&
		       offsetof(struct rt_cnode, calls) == STUB_CN_CALLS && offsetof(struct rt_cnode, sp) == STUB_CN_SP &&
		       offsetof(struct rt_cnode, counts) + 8 * RT_EXT_WAIT_SP == STUB_CN_WAIT_SP &&
		       offsetof(struct rt_cnode, counts) == STUB_CN_COUNTS,
	       "the counting stubs' words (stub_abi.h)");
_Static_assert(offsetof(struct pi_tls, dead) == offsetof(struct pi_tls, busy) + 4,
	       "busy and dead, one 64-bit word (the helpers test both at once)");

void asm_offsets(void);
void asm_offsets(void)
{
	/* struct pi_tls: the thread's block, %fs-relative */
	OFFSET(TLS_CLOCK, struct pi_tls, clock);
	OFFSET(TLS_TH, struct pi_tls, th);
	OFFSET(TLS_BUSY, struct pi_tls, busy);
	OFFSET(TLS_DEAD, struct pi_tls, dead);
	OFFSET(TLS_FEPRED, struct pi_tls, fe_pred);
	OFFSET(TLS_DCREADY, struct pi_tls, dc_ready);
	OFFSET(TLS_PFHEAD, struct pi_tls, pf_head);
	OFFSET(TLS_PFSEEN, struct pi_tls, pf_seen);
	OFFSET(TLS_CBTSC, struct pi_tls, cb_tsc);
	OFFSET(TLS_EXTLAST, struct pi_tls, ext_last);
	OFFSET(TLS_CBHINT, struct pi_tls, cb_hint);
	OFFSET(TLS_DCWAIT, struct pi_tls, dc_wait);
	OFFSET(TLS_CLOCKPART, struct pi_tls, clock_part);
	OFFSET(TLS_SKIPPED, struct pi_tls, skipped);
	OFFSET(TLS_CRESUME, struct pi_tls, cresume);
	OFFSET(TLS_NEXTSP, struct pi_tls, nextsp);
	OFFSET(CN_SP, struct rt_cnode, sp);
	OFFSET(CN_FN, struct rt_cnode, fn);
	OFFSET(CN_PARENT, struct rt_cnode, parent);
	OFFSET(CN_CALLS, struct rt_cnode, calls);
	DEFINE(CN_EXT_OS, offsetof(struct rt_cnode, counts) + 8 * RT_EXT_OS);
	OFFSET(CN_AUX, struct rt_cnode, aux);
	OFFSET(AUX_OUTSIDE, struct rt_caux, outside);
	OFFSET(CN_SIBLING, struct rt_cnode, sibling);
	DEFINE(CN_OUTERMOST, STUB_CN_OUTERMOST);
	OFFSET(TH_COUNTING, struct rt_thread, counting);
	OFFSET(CT_TRAMP, struct rt_cthread, tramp);
	OFFSET(CT_NTRAMP, struct rt_cthread, ntramp);
	OFFSET(CT_TCAP, struct rt_cthread, tcap);
	OFFSET(CT_NNEST, struct rt_cthread, nnest);
	DEFINE(TRAMP_SIZE, sizeof(struct rt_tramp));
	OFFSET(TR_RA, struct rt_tramp, ra);
	OFFSET(TR_SP, struct rt_tramp, sp);
	OFFSET(TR_CUR, struct rt_tramp, cur);
	OFFSET(TR_NEXT, struct rt_tramp, next);
	OFFSET(TR_NEXTSP, struct rt_tramp, nextsp);
	OFFSET(TR_TARGET, struct rt_tramp, target);
	OFFSET(TR_MEASURED, struct rt_tramp, measured);
	DEFINE(STACK_SPAN, RT_STACK_SPAN);
	OFFSET(TLS_NEXT, struct pi_tls, next);
	OFFSET(CN_PTRSITE, struct rt_cnode, ptrsite);
	OFFSET(CN_COUNTS, struct rt_cnode, counts);
	OFFSET(TLS_CUR, struct pi_tls, cur);
	OFFSET(TLS_TARGET, struct pi_tls, target);
	OFFSET(TLS_FRAMES_OFF, struct pi_tls, frames_off);
	OFFSET(TLS_MEMO, struct pi_tls, memo);
	OFFSET(FRAMES_DELTA, struct pi_frames, delta);
	DEFINE(CN_POINTER, STUB_CN_POINTER);
	DEFINE(PTR_CALLEE, STUB_PTR_CALLEE);
	DEFINE(PTR_ENTRY, STUB_PTR_ENTRY);
	DEFINE(PTR_INNER, STUB_PTR_INNER);
	DEFINE(PTR_CALLEE2, STUB_PTR_CALLEE2);
	DEFINE(PTR_ENTRY2, STUB_PTR_ENTRY2);
	DEFINE(PTR_INNER2, STUB_PTR_INNER2);
	DEFINE(MEMO_BITS, STUB_MEMO_BITS);
	DEFINE(MEMO_WAYS, STUB_MEMO_WAYS);
	DEFINE(RT_DEAD, RT_DEAD);
	DEFINE(RT_C_PATHS, RT_C_PATHS);

	/* struct pi_funcrec (libprof/format.h) */
	OFFSET(FREC_ADDR, struct pi_funcrec, addr);
	OFFSET(FREC_NPIECES, struct pi_funcrec, npieces);
	OFFSET(FREC_TARGET, struct pi_funcrec, addr[1]);
	OFFSET(FREC_EXTFLAGS, struct pi_funcrec, size[0]);
	OFFSET(FREC_EXTFIXED, struct pi_funcrec, size[1]);
	OFFSET(FREC_EXTPERBYTE, struct pi_funcrec, size[2]);
	OFFSET(FREC_EXTARG, struct pi_funcrec, size[3]);
	DEFINE(FUNCREC_SHIFT, __builtin_ctzl(sizeof(struct pi_funcrec)));

	/* an external record's PI_EXT_* flags */
	DEFINE(PI_EXT_CHARGE, PI_EXT_CHARGE);
	DEFINE(PI_EXT_WAIT, PI_EXT_WAIT);
	DEFINE(PI_EXT_TTYREAD, PI_EXT_TTYREAD);
	DEFINE(PI_EXT_CHARGE_WAITS, PI_EXT_CHARGE_WAITS);
	DEFINE(PI_EXT_CHECK, PI_EXT_CHECK);
	DEFINE(PI_EXT_SWITCH, PI_EXT_SWITCH);
	DEFINE(PI_EXT_SETCTX, PI_EXT_SETCTX);
	DEFINE(PI_EXT_FIXED, PI_EXT_FIXED);
	DEFINE(PI_EXT_C_LOCALE, PI_EXT_C_LOCALE);
	DEFINE(PI_EXT_LOCALE, PI_EXT_LOCALE);
	DEFINE(PI_EXT_SOLO, PI_EXT_SOLO);
	DEFINE(PI_EXT_ONCE, PI_EXT_ONCE);
	DEFINE(PI_EXT_HEAP_MASK, PI_EXT_HEAP_MASK);

	/* struct rt_thread */
	OFFSET(TH_STACK, struct rt_thread, stack);
	OFFSET(TH_DEPTH, struct rt_thread, depth);
	OFFSET(TH_CAP, struct rt_thread, cap);
	OFFSET(TH_CACHE, struct rt_thread, cache);
	OFFSET(TH_FNACTIVE, struct rt_thread, fn_active);
	DEFINE(RT_CACHE_BITS, RT_CACHE_BITS);

	/* struct rt_frame, and an external frame's RT_EXT_* bits */
	DEFINE(FRAME_SIZE, sizeof(struct rt_frame));
	OFFSET(FR_NODE, struct rt_frame, node);
	OFFSET(FR_ALIAS, struct rt_frame, alias);
	OFFSET(FR_SP, struct rt_frame, sp);
	OFFSET(FR_ENTRY, struct rt_frame, entry_clock);
	OFFSET(FR_CHILD, struct rt_frame, child);
	OFFSET(FR_TAIL_TARGET, struct rt_frame, tail_target);
	OFFSET(FR_TAIL, struct rt_frame, tail);
	OFFSET(FR_EXT, struct rt_frame, ext);
	OFFSET(FR_EXT_START, struct rt_frame, ext_start);
	OFFSET(FR_EXT_TICKS, struct rt_frame, ext_ticks);
	OFFSET(FR_FECALL, struct rt_frame, fe_call);
	DEFINE(RT_EXT_ON, RT_EXT_ON);
	DEFINE(RT_EXT_CHARGE, RT_EXT_CHARGE);
	DEFINE(RT_EXT_FIXED, RT_EXT_FIXED);
	DEFINE(RT_EXT_COST_SHIFT, RT_EXT_COST_SHIFT);

	/* struct rt_node */
	OFFSET(ND_FN, struct rt_node, fn);
	OFFSET(ND_RA, struct rt_node, ra);
	OFFSET(ND_PARENT, struct rt_node, parent);
	OFFSET(ND_LAST_HIT, struct rt_node, last_hit);
	OFFSET(ND_ALIAS, struct rt_node, alias);
	OFFSET(ND_CALLS, struct rt_node, calls);
	OFFSET(ND_RECCALLS, struct rt_node, rec_calls);
	OFFSET(ND_SELF, struct rt_node, self);
	OFFSET(ND_INCL, struct rt_node, incl);
	OFFSET(ND_MIN, struct rt_node, min_self);
	OFFSET(ND_MAX, struct rt_node, max_self);
	OFFSET(ND_OS, struct rt_node, os);
	OFFSET(ND_OS_LEFT, struct rt_node, os_left);

	/* the thunks of calls through pointers (targets.c) */
	DEFINE(RT_TARGETS, RT_TARGETS);
}
