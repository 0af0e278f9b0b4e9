/* SPDX-License-Identifier: MIT */
/*
 * Helpers called by the stubs the rewriter inserts (see stub_abi.h).  Each
 * saves every general register and the flags, aligns the stack and calls
 * the C half, which is compiled with -mgeneral-regs-only so that vector
 * and x87 state are never touched.
 */
#include "rt_asm_offsets.h"
#include "stub_abi.h"

/* The thread block at a fixed offset from %fs: the program's runtime.
 * PI_PIC_RUNTIME: the shared runtime (libprofinst_rt_shared.so), for a program
 * profinst did not instrument that loads an instrumented shared object;
 * its thread block has no offset fixed at link time, so its helpers take
 * the C paths, which read it as C code does, and no TLS() stays in it
 * (the link of a shared object refuses R_X86_64_TPOFF32). */
#define TLS(off) %fs:__profinst_tls@tpoff+(off)

/* What the saves push: SAVE 11 quadwords (the flags, nine registers, %rbx,
 * which then holds %rsp), SAVE_LIGHT 9; past them is the helper's return
 * address. */
#define SAVED 88
#define SAVED_LIGHT 72
/* What a stub leaves above the helper's return address (stub_abi.h): the
 * entry stub its push of %r11 (the function's %rsp is 16 above the
 * helper's entry %rsp: ENTRY_STUB), the tail stub that push over the jump's
 * target (TAIL_TARGET, the function's %rsp at TAIL_STUB), the exit stub
 * nothing (RET_STUB), and the stubs below the red zone 128 bytes more
 * (RED_ZONE). */
#define ENTRY_STUB 16
#define RET_STUB 8
#define TAIL_TARGET 16
#define TAIL_STUB 24
#define RED_ZONE 128

	.weak __start_profinst_funcs
	.hidden __start_profinst_funcs
	.text

/* A helper the rewriter's stubs call (ENTRY) or one only this file
 * reaches (LOCAL), and its end. */
.macro ENTRY name
	.globl \name
	.type \name, @function
\name:
.endm
.macro LOCAL name
	.type \name, @function
\name:
.endm
.macro END name
	.size \name, .-\name
.endm

/* A push or pop that tells the unwinder about it. */
.macro CFI_PUSH reg
	push \reg
	.cfi_adjust_cfa_offset 8
.endm
.macro CFI_POP reg
	pop \reg
	.cfi_adjust_cfa_offset -8
.endm
.macro CFI_PUSHF
	pushfq
	.cfi_adjust_cfa_offset 8
.endm
.macro CFI_POPF
	popfq
	.cfi_adjust_cfa_offset -8
.endm

/* %rax = the time stamp counter, read after every earlier instruction
 * (lfence; rdtsc); %rdx is clobbered. */
.macro FENCED_TSC
	lfence
	rdtsc
	shl $32, %rdx
	or %rdx, %rax
.endm

/* The same without the fence (the counting runtime's externals' clocks,
 * as ext_now: the fence, which waits for the pipeline to drain, was most
 * of what a measured call cost). */
.macro TSC
	rdtsc
	shl $32, %rdx
	or %rdx, %rax
.endm

/* The clock's other parts into the clock (stub_abi.h, rt_clock_fold):
 * first in every helper that reads it.  Each part loses by one
 * instruction what was read of it, so that a signal handler's block stubs
 * adding to it meanwhile lose nothing.  Changes a, b, c and the flags. */
.macro FOLD_CLOCK a, b, c
#ifndef PI_PIC_RUNTIME
	mov TLS(TLS_CLOCKPART), \a
	mov TLS(TLS_CLOCKPART+8), \b
	mov TLS(TLS_CLOCKPART+16), \c
	sub \a, TLS(TLS_CLOCKPART)
	sub \b, TLS(TLS_CLOCKPART+8)
	sub \c, TLS(TLS_CLOCKPART+16)
	add \b, \a
	add \c, \a
	add \a, TLS(TLS_CLOCK)
#endif
.endm

/* The full save, for helpers that run where the flags may be live (after
 * a string op, at a landing pad): every register, the flags, and a stack
 * aligned for the C half. */
.macro SAVE
	.cfi_startproc
	CFI_PUSHF
	SAVE_GPRS
	FOLD_CLOCK %r8, %r9, %r10         /* no helper takes these as input */
	CFI_PUSH %rbx
	.cfi_rel_offset %rbx, 0
	mov %rsp, %rbx
	.cfi_def_cfa_register %rbx
	and $-16, %rsp
	cld
.endm

/* 88 = 11 saved quadwords: %rbx + 88 is the helper's entry %rsp */
.macro RESTORE
	mov %rbx, %rsp
	.cfi_def_cfa_register %rsp
	CFI_POP %rbx
	RESTORE_GPRS
	CFI_POPF
	ret
	.cfi_endproc
.endm

/* The light save, at function entry, ret and tail jumps, where the ABI says
 * the status flags are dead and DF is clear: only the registers the C half
 * (compiled -mgeneral-regs-only, so it needs no stack alignment) may
 * clobber.  %rsp + 72 is the helper's entry %rsp. */
/* For the C paths of the fast helpers, which fold the clock before they
 * jump there. */
.macro SAVE_LIGHT
	.cfi_startproc
	SAVE_GPRS
.endm

.macro RESTORE_LIGHT
	RESTORE_GPRS
	ret
	.cfi_endproc
.endm

/* The registers a C call may clobber, but for %rax and %r11, which the
 * helpers keep each their own way. */
.macro PUSH_ARGS
	CFI_PUSH %rcx
	CFI_PUSH %rdx
	CFI_PUSH %rsi
	CFI_PUSH %rdi
	CFI_PUSH %r8
	CFI_PUSH %r9
	CFI_PUSH %r10
.endm

.macro POP_ARGS
	CFI_POP %r10
	CFI_POP %r9
	CFI_POP %r8
	CFI_POP %rdi
	CFI_POP %rsi
	CFI_POP %rdx
	CFI_POP %rcx
.endm

.macro SAVE_GPRS
	CFI_PUSH %rax
	PUSH_ARGS
	CFI_PUSH %r11
.endm

.macro RESTORE_GPRS
	CFI_POP %r11
	POP_ARGS
	CFI_POP %rax
.endm

/* A jump to busy unless the thread is idle: busy and dead both clear.  Two
 * 32-bit loads, not one 64-bit load of the pair: busy was last written by
 * a 32-bit store (the previous helper's way out), and a load wider than
 * the store it follows cannot take its data from it, but waits for the
 * store to reach the cache (perf put half of the helpers' samples on it
 * in a program of small calls, on Zen 5; that program ran 4-12 % faster
 * without it, Lua and sqlite3 the same within the noise). */
.macro IDLE_OR busy
	cmpl $0, TLS(TLS_BUSY)
	jne \busy
	cmpl $0, TLS(TLS_DEAD)
	jne \busy
.endm

/* busy = 1, then dead read again: a thread that writes the profile sets
 * dead, makes every thread pass a memory barrier (rt_stop_threads), then
 * waits for busy to clear, so one of the two sees the other.  A thread
 * stopped meanwhile takes slow, which clears busy; the C path then does
 * nothing. */
.macro TAKE_BUSY slow
	movl $1, TLS(TLS_BUSY)
	cmpl $0, TLS(TLS_DEAD)
	jne \slow
.endm

/* \node = the current node, an external's, and \rec its record; else a
 * jump to \slow (no node, a pointer's, or an instrumented function's). */
.macro CUR_EXTERNAL node, rec, slow
	mov TLS(TLS_CUR), \node
	test \node, \node
	jz \slow
	mov CN_FN(\node), \rec
	test \rec, \rec
	jz \slow
	cmpw $0, FREC_NPIECES(\rec)
	jne \slow
.endm

/* \ct = the thread's tables under --counts (\th its thread); else a jump
 * to \slow (none yet: the C half makes them). */
.macro COUNTING_TABLES th, ct, slow
	mov TLS(TLS_TH), \th
	test \th, \th
	jz \slow
	mov TH_COUNTING(\th), \ct
	test \ct, \ct
	jz \slow
.endm

/* A jump to \slow if a trampoline record in [\rec, \end) is of this
 * stack below \bound, one drop_dead(ct, bound) would forget (its sp below
 * \bound by less than STACK_SPAN).  Changes \rec, \s, \d and the flags. */
.macro DEAD_RECORD rec, end, bound, s, d, slow
.Ldr_next\@:
	cmp \end, \rec
	je .Ldr_none\@
	mov TR_SP(\rec), \s
	cmp \bound, \s
	jae .Ldr_alive\@
	mov \bound, \d
	sub \s, \d
	cmp $STACK_SPAN, \d
	jb \slow
.Ldr_alive\@:
	add $TRAMP_SIZE, \rec
	jmp .Ldr_next\@
.Ldr_none\@:
.endm

/* Where the first test of busy and dead (one 64-bit word) found them set:
 * the call is not recorded (busy: a signal handler interrupted the
 * runtime; dead: the thread records nothing more), unless busy is clear
 * and dead holds nothing but RT_C_PATHS, the switch that sends every
 * helper to its C path (PROFINST_C_PATHS=1, rt.h): then the clock is
 * folded, as the fast path folds it before it gives up, and a jump to
 * slow.  Off the fast path, which only ever sees the word 0.  Changes a, b,
 * c and the flags. */
.macro C_PATHS slow, a, b, c
	cmpl $0, TLS(TLS_BUSY)
	jne .Lc_paths\@
	cmpl $RT_C_PATHS, TLS(TLS_DEAD)
	jne .Lc_paths\@
	FOLD_CLOCK \a, \b, \c
	jmp \slow
.Lc_paths\@:
.endm

/* th = this thread, frame = the slot the next frame takes; a jump to
 * miss if the thread has none yet, no frame (the C path decides) or no room. */
.macro NEW_FRAME th, frame, miss
	mov TLS(TLS_TH), \th
	test \th, \th
	jz \miss
	mov TH_DEPTH(\th), \frame
	test \frame, \frame
	jz \miss
	cmp TH_CAP(\th), \frame
	jae \miss
	imul $FRAME_SIZE, \frame, \frame
	add TH_STACK(\th), \frame
.endm

/* th = this thread, frame = its top frame; a jump to miss if there is none. */
.macro TOP_FRAME th, frame, miss
	mov TLS(TLS_TH), \th
	test \th, \th
	jz \miss
	mov TH_DEPTH(\th), \frame
	test \frame, \frame
	jz \miss
	imul $FRAME_SIZE, \frame, \frame
	add TH_STACK(\th), \frame
	sub $FRAME_SIZE, \frame
.endm

/* A frame of node closes after dur cycles, self of them its own: add self
 * to the node (and its min and max), end the function's activation, and
 * add dur to the node's incl if it was the function's only one.  Clobbers
 * self and tmp. */
.macro CHARGE_NODE node, dur, self, th, tmp
	add \self, ND_SELF(\node)
	cmp ND_MIN(\node), \self
	jae 1f
	mov \self, ND_MIN(\node)
1:	cmp ND_MAX(\node), \self
	jbe 2f
	mov \self, ND_MAX(\node)
2:	mov ND_FN(\node), \self
	lea __start_profinst_funcs(%rip), \tmp
	sub \tmp, \self
	shr $FUNCREC_SHIFT, \self          /* the function's index */
	mov TH_FNACTIVE(\th), \tmp
	decl (\tmp,\self,4)
	jnz 3f                            /* another activation still runs */
	add \dur, ND_INCL(\node)
3:
.endm

/* out = the child the entry cache holds for (parent node, function record,
 * return address), or a jump to miss (see rt_cache_index). */
.macro CACHED_CHILD parent, fn, ra, th, out, tmp, miss
	mov \parent, \out
	shr $3, \out
	xor \ra, \out
	xor \fn, \out
	movabs $0x9e3779b97f4a7c15, \tmp
	imul \tmp, \out
	shr $(64 - RT_CACHE_BITS), \out
	mov TH_CACHE(\th), \tmp
	test \tmp, \tmp
	jz \miss
	mov (\tmp,\out,8), \out
	test \out, \out
	jz \miss
	cmp \parent, ND_PARENT(\out)
	jne \miss
	cmp \ra, ND_RA(\out)
	jne \miss
	cmp \fn, ND_FN(\out)
	jne \miss
.endm

/* A call's or a return's bubble (frontend.c, rt_fe_event): with bubble
 * the variable holding it; a, b, c scratch registers.  Changes the flags. */
.macro FE_EVENT bubble, a, b, c
	mov \bubble(%rip), \a
	test \a, \a
	jz .Lfe_none\@
	mov TLS(TLS_CLOCK), \b
	mov TLS(TLS_FEPRED), \c
	sub rt_fe_window(%rip), \b       /* the earliest the bubble starts, */
	cmp \b, \c
	cmovl \b, \c                    /* or when the predictor is free */
	add \a, \c
	mov \c, TLS(TLS_FEPRED)
	add rt_fe_window(%rip), \b
	cmp \b, \c
	jle .Lfe_none\@                  /* over before the clock: hidden */
	mov \c, TLS(TLS_CLOCK)           /* the clock waits for its end */
.Lfe_none\@:
.endm

/* A jump to miss if the thread took page faults since it last looked
 * (faults.c): the C path charges them.  Changes tmp and the flags. */
.macro FAULTS_CHECK tmp, miss
	mov TLS(TLS_PFHEAD), \tmp
	mov (\tmp), \tmp
	cmp TLS(TLS_PFSEEN), \tmp
	jne \miss
.endm

/* Forget them (rt_faults_skip): a measured external's time holds them.
 * The tail the kernel reads follows its head. */
.macro FAULTS_SKIP ptr, head
	mov TLS(TLS_PFHEAD), \ptr
	mov (\ptr), \head
	mov \head, 8(\ptr)
	mov \head, TLS(TLS_PFSEEN)
.endm

/* Fill the frame being pushed (its %rsp and alias already set) for node,
 * count the call and the function's activation; fn: its record.  The caller
 * then completes the frame with depth++. */
.macro FILL_FRAME frame, node, fn, th, tmp, tmp2
	mov \node, FR_NODE(\frame)
	mov TLS(TLS_CLOCK), \tmp
	mov \tmp, FR_ENTRY(\frame)
	movq $0, FR_CHILD(\frame)
	movq $0, FR_TAIL(\frame)
	movq $0, FR_EXT(\frame)
	incq ND_CALLS(\node)
	lea __start_profinst_funcs(%rip), \tmp
	mov \fn, \tmp2
	sub \tmp, \tmp2
	shr $FUNCREC_SHIFT, \tmp2          /* the function's index */
	mov TH_FNACTIVE(\th), \tmp
	incl (\tmp,\tmp2,4)
.endm

#ifndef PI_PIC_RUNTIME
/*
 * Entry, fast path: the caller's frame is live above us, and the child of
 * its node for this (function, return address) is the one it called last
 * (a plain child, or a recursive edge back to an ancestor).
 * Pushes the frame without a call into C; anything else goes to the C path
 * (__profinst_enter_slow), with every register as it came.
 * In: %r11 = funcrec; after the six pushes the function's %rsp is
 * %rsp + 64 (stub's return, saved %r11, then the return address).
 */
ENTRY __profinst_enter
	.cfi_startproc
	cmpq $0, TLS(TLS_CBHINT)
	jne .Lenter_hint                  /* perhaps a callback from external code */
.Lenter_body:
	CFI_PUSH %rax
	CFI_PUSH %rcx
	CFI_PUSH %rdx
	CFI_PUSH %rsi
	CFI_PUSH %rdi
	CFI_PUSH %r8
	IDLE_OR .Lenter_skip
	/* A signal handler running instrumented code from here on is not
	 * recorded (its time goes to the function it interrupted), so it
	 * cannot see a half-built frame. */
	TAKE_BUSY .Lenter_slow
	FOLD_CLOCK %rcx, %rdx, %rsi
	NEW_FRAME %rcx, %rax, .Lenter_slow
	cmpq $0, FR_EXT-FRAME_SIZE(%rax)
	jne .Lenter_cb                    /* called from external code */
	FAULTS_CHECK %rdx, .Lenter_slow
	lea 6*8+ENTRY_STUB(%rsp), %rdx    /* the function's %rsp, past six pushes */
	cmp %rdx, FR_SP-FRAME_SIZE(%rax)
	ja 3f                             /* the caller's frame is live above */
	jne .Lenter_slow                  /* frames below us are dead */
	/* same %rsp: the top frame jumped here (a tail call), or is dead */
	cmpq $0, FR_TAIL-FRAME_SIZE(%rax)
	je .Lenter_slow
	lea FREC_ADDR(%r11), %rsi
	add (%rsi), %rsi                  /* fn's entry (addr[0]: from its word) */
	cmp %rsi, FR_TAIL_TARGET-FRAME_SIZE(%rax)
	jne .Lenter_slow
	mov FR_NODE-FRAME_SIZE(%rax), %rsi
	cmp %r11, ND_FN(%rsi)
	je .Lenter_slow                   /* a self tail call: the C path counts it */
3:
.Lenter_push:                             /* %rdx: the function's %rsp */
	mov %rdx, FR_SP(%rax)
	mov (%rdx), %rdx                  /* return address */
	mov FR_NODE-FRAME_SIZE(%rax), %rsi /* parent node */
	CACHED_CHILD %rsi, %r11, %rdx, %rcx, %r8, %rdi, .Lenter_slow
	mov %r8, %rsi
	mov ND_ALIAS(%rsi), %rdx
	test %rdx, %rdx
	jz 1f
	incq ND_CALLS(%rsi)               /* a recursive edge: count it, */
	incq ND_RECCALLS(%rdx)
	mov %rsi, FR_ALIAS(%rax)
	mov %rdx, %rsi                    /* and charge the ancestor */
	jmp 2f
1:	movq $0, FR_ALIAS(%rax)
2:	mov TLS(TLS_CLOCK), %rdx
	mov %rdx, FR_FECALL(%rax)         /* the clock before the call's bubble */
	mov FR_SP(%rax), %rdx
	cmp %rdx, FR_SP-FRAME_SIZE(%rax)
	je 7f                             /* a tail call: the jump has no bubble */
	cmpq $0, FR_EXT-FRAME_SIZE(%rax)
	jne .Lenter_cb_push               /* external code's calls neither: its time holds them */
	FE_EVENT rt_fe_call, %rdx, %rdi, %r8 /* the caller's time */
7:	FILL_FRAME %rax, %rsi, %r11, %rcx, %rdx, %rdi
	mov FR_ENTRY(%rax), %rdx
	sub FR_FECALL(%rax), %rdx
	mov %rdx, FR_FECALL(%rax)         /* what the bubble charged */
	incq TH_DEPTH(%rcx)               /* last: the frame is complete */
	movl $0, TLS(TLS_BUSY)
.Lenter_out:
	CFI_POP %r8
	CFI_POP %rdi
	CFI_POP %rsi
	CFI_POP %rdx
	CFI_POP %rcx
	CFI_POP %rax
	ret
.Lenter_cb:
	/* A callback: the external's clock paused at .Lenter_hint (cb_tsc
	 * later than where it last ran), else it pauses here.  Its time up
	 * to the pause is the external's, less what the stubs cost between
	 * the resumption after the callback before and the pause
	 * (rt_cb_overhead_ticks, measured by pi_rt_probe_callback), as
	 * rt_push takes it on the C path; a page fault since is in that
	 * time already.  The frame is then pushed as any other, without the
	 * call's bubble. */
	.cfi_adjust_cfa_offset 48
	mov TLS(TLS_CBTSC), %rdx
	cmp FR_EXT_START-FRAME_SIZE(%rax), %rdx
	ja 1f
	mov %rax, %rsi
	FENCED_TSC                        /* the external's work done, */
	mov %rax, TLS(TLS_CBTSC)
	mov %rsi, %rax
1:	testq $RT_EXT_FIXED, FR_EXT-FRAME_SIZE(%rax)
	jnz .Lenter_slow                  /* (from an external the model costs: rare) */
	lea 6*8+ENTRY_STUB(%rsp), %rdx    /* the function's %rsp, past six pushes */
	cmp %rdx, FR_SP-FRAME_SIZE(%rax)
	jbe .Lenter_slow                  /* the external's frame must be live above */
	jmp .Lenter_push
.Lenter_cb_push:                          /* its node found: nothing goes to the C path now */
	FAULTS_SKIP %rdx, %rdi
	mov TLS(TLS_CBTSC), %rdx
	sub FR_EXT_START-FRAME_SIZE(%rax), %rdx
	sub rt_cb_overhead_ticks(%rip), %rdx
	add %rdx, FR_EXT_TICKS-FRAME_SIZE(%rax)
	movq $0, TLS(TLS_CBTSC)
	jmp 7b
.Lenter_slow:
	movl $0, TLS(TLS_BUSY)
	CFI_POP %r8
	CFI_POP %rdi
	CFI_POP %rsi
	CFI_POP %rdx
	CFI_POP %rcx
	CFI_POP %rax
	jmp __profinst_enter_slow
.Lenter_skip:                             /* a call not recorded (PI_LOSS_NESTED) */
	.cfi_adjust_cfa_offset 48
	C_PATHS .Lenter_slow, %rcx, %rdx, %rsi
	incq TLS(TLS_SKIPPED)
	jmp .Lenter_out
	/* A measured external runs (cb_hint): this entry is most likely a
	 * callback from it, and the external's clock pauses here, before
	 * anything else, so that as little of the stubs' work as can be
	 * lands in the external's time; .Lenter_cb checks that it was a
	 * callback.  Not while the runtime is busy: a signal handler's
	 * entry there is not recorded. */
.Lenter_hint:
	.cfi_adjust_cfa_offset -48
	cmpl $0, TLS(TLS_BUSY)
	jne .Lenter_body
	CFI_PUSH %rax
	CFI_PUSH %rdx
	FENCED_TSC                        /* the external's work done, */
	mov %rax, TLS(TLS_CBTSC)
	movq $0, TLS(TLS_CBHINT)          /* its calls are plain calls */
	CFI_POP %rdx
	CFI_POP %rax
	jmp .Lenter_body
	.cfi_endproc
END __profinst_enter

LOCAL __profinst_enter_slow
	SAVE_LIGHT
	mov %r11, %rdi            /* funcrec */
	lea SAVED_LIGHT+ENTRY_STUB(%rsp), %rsi /* the function's %rsp at entry */
	mov (%rsi), %rdx          /* its return address */
	call pi_rt_enter
	RESTORE_LIGHT
END __profinst_enter_slow

/* The same, where the function's first block reads flags it did not set. */
ENTRY __profinst_enter_flags
	SAVE
	mov %r11, %rdi
	lea SAVED+ENTRY_STUB(%rbx), %rsi
	mov (%rsi), %rdx
	call pi_rt_enter
	RESTORE
END __profinst_enter_flags

/*
 * Exit, fast path: the top frame is this function's; closes it without a
 * call into C.  A tail-calling frame under it
 * (which must close too) is left to the C path.  After the five pushes the
 * function's %rsp is %rsp + 48.
 */
ENTRY __profinst_exit
	.cfi_startproc
	CFI_PUSH %rax
	CFI_PUSH %rcx
	CFI_PUSH %rdx
	CFI_PUSH %rsi
	CFI_PUSH %r11
	CFI_PUSH %rdi
	IDLE_OR .Lexit_busy
	TAKE_BUSY .Lexit_slow
	FOLD_CLOCK %rcx, %rdx, %rsi
	/* the loads the core ran ahead of (dcache.c) are done before the
	 * return: their wait is the function's */
	mov TLS(TLS_DCREADY), %rdx
	test %rdx, %rdx
	jz 8f
	movq $0, TLS(TLS_DCREADY)
	cmp TLS(TLS_CLOCK), %rdx
	jbe 8f
	mov %rdx, %rsi            /* the wait, to its load's block (rt_dcache_settle) */
	sub TLS(TLS_CLOCK), %rsi
	mov TLS(TLS_DCWAIT), %rdi
	add %rsi, (%rdi)
	mov %rdx, TLS(TLS_CLOCK)
8:	TOP_FRAME %rcx, %rax, .Lexit_slow
	FAULTS_CHECK %rdx, .Lexit_slow
	lea 6*8+RET_STUB(%rsp), %rdx      /* the function's %rsp, past six pushes */
	cmp %rdx, FR_SP(%rax)
	jne .Lexit_slow
	/* A function that called others has its call's bubble and its
	 * return's (frontend.c): its frame opens before the first and closes
	 * after the second.  busy = 2 tells the code at 4: below that the
	 * return's is charged already. */
	cmpq $0, FR_CHILD(%rax)
	je .Lexit_close
	cmpq $2, TH_DEPTH(%rcx)
	jb 7f
	cmpq $0, FR_EXT-FRAME_SIZE(%rax)
	jne .Lexit_close                  /* to external code: its time holds them */
7:	mov FR_FECALL(%rax), %rdx
	sub %rdx, FR_ENTRY(%rax)
	FE_EVENT rt_fe_ret, %rdx, %rsi, %r11
	movl $2, TLS(TLS_BUSY)
.Lexit_close:                             /* close the frame at %rax */
	mov TLS(TLS_CLOCK), %rdx
	sub FR_ENTRY(%rax), %rdx          /* duration */
	mov FR_NODE(%rax), %rsi
	mov %rdx, %r11
	sub FR_CHILD(%rax), %r11          /* self */
	CHARGE_NODE %rsi, %rdx, %r11, %rcx, %rdi
	mov FR_SP(%rax), %rdi             /* the function's %rsp */
	mov FR_ALIAS(%rax), %r11
	test %r11, %r11
	jz 5f
	add %rdx, ND_INCL(%r11)           /* the recursive edge's time */
5:	decq TH_DEPTH(%rcx)
	jz 4f
	add %rdx, FR_CHILD-FRAME_SIZE(%rax)
	cmpq $0, FR_EXT-FRAME_SIZE(%rax)
	jne 6f                            /* a callback returns to external code */
	cmpq $0, FR_TAIL-FRAME_SIZE(%rax)
	je 4f
	cmp %rdi, FR_SP-FRAME_SIZE(%rax)
	jne 4f
	sub $FRAME_SIZE, %rax             /* its tail caller returns with it */
	jmp .Lexit_close
4:	cmpl $1, TLS(TLS_BUSY)
	jne 9f                            /* charged before the frame closed */
	FE_EVENT rt_fe_ret, %rax, %rdx, %rsi /* a leaf's: the caller's time */
9:
	movl $0, TLS(TLS_BUSY)
.Lexit_out:
	CFI_POP %rdi
	CFI_POP %r11
	CFI_POP %rsi
	CFI_POP %rdx
	CFI_POP %rcx
	CFI_POP %rax
	ret
	/* a callback returns to external code: no return bubble (the
	 * external's time holds it), and the external's clock runs again,
	 * as late as can be (cbcost.c measures what follows) */
6:	.cfi_adjust_cfa_offset 48
	mov %rax, %rsi
	movq $1, TLS(TLS_CBHINT)          /* its next entry is a callback */
	CFI_POP %rdi
	CFI_POP %r11
	lfence                            /* the runtime's work done, */
	rdtsc
	lfence                            /* and none of the external's yet */
	shl $32, %rdx
	or %rdx, %rax
	mov %rax, FR_EXT_START-FRAME_SIZE(%rsi)
	movl $0, TLS(TLS_BUSY)
	CFI_POP %rsi
	CFI_POP %rdx
	CFI_POP %rcx
	CFI_POP %rax
	ret
.Lexit_slow:
	.cfi_adjust_cfa_offset 48
	movl $0, TLS(TLS_BUSY)
	CFI_POP %rdi
	CFI_POP %r11
	CFI_POP %rsi
	CFI_POP %rdx
	CFI_POP %rcx
	CFI_POP %rax
	jmp __profinst_exit_slow
.Lexit_busy:
	.cfi_adjust_cfa_offset 48
	C_PATHS .Lexit_slow, %rcx, %rdx, %rsi
	jmp .Lexit_out
	.cfi_endproc
END __profinst_exit

LOCAL __profinst_exit_slow
	SAVE_LIGHT
	lea SAVED_LIGHT+RET_STUB(%rsp), %rdi /* the function's %rsp at its ret */
	call pi_rt_exit
	RESTORE_LIGHT
END __profinst_exit_slow

/*
 * Tail exit, fast path: the top frame is the function leaving, and the jump
 * goes to an instrumented entry: mark the frame.  Preserves the flags (the
 * function jumped to may read them).  In: %r11 = funcrec; after pushfq and
 * the four pushes, the target is at %rsp + 56 and the function's %rsp is
 * %rsp + 64.
 */
ENTRY __profinst_tailexit
	.cfi_startproc
	CFI_PUSHF
	CFI_PUSH %rax
	CFI_PUSH %rcx
	CFI_PUSH %rdx
	CFI_PUSH %rsi
	IDLE_OR .Ltail_busy
	TAKE_BUSY .Ltail_slow
	FOLD_CLOCK %rcx, %rdx, %rsi
	TOP_FRAME %rcx, %rax, .Ltail_slow
	lea 5*8+TAIL_STUB(%rsp), %rdx     /* the function's %rsp, past five pushes */
	cmp %rdx, FR_SP(%rax)
	jne .Ltail_slow
	/* is the target an entry? rt_is_entry(), inline */
	mov rt_entry_tab(%rip), %rsi
	test %rsi, %rsi
	jz .Ltail_slow
	mov 5*8+TAIL_TARGET(%rsp), %rdx   /* target */
	CFI_PUSH %rdi
	CFI_PUSH %rdx
	movabs $0x9e3779b97f4a7c15, %rdi
	imul %rdi, %rdx
	mov rt_entry_shift(%rip), %rcx
	shr %cl, %rdx                     /* slot */
	pop %rdi                          /* target */
	.cfi_adjust_cfa_offset -8
1:	mov (%rsi,%rdx,8), %rcx
	cmp %rdi, %rcx
	je 2f
	test %rcx, %rcx
	jz 3f                             /* not an entry: the C path closes the frame */
	inc %rdx
	and rt_entry_mask(%rip), %rdx
	jmp 1b
2:	movq $1, FR_TAIL(%rax)
	mov %rdi, FR_TAIL_TARGET(%rax)
	CFI_POP %rdi
	movl $0, TLS(TLS_BUSY)
.Ltail_out:
	CFI_POP %rsi
	CFI_POP %rdx
	CFI_POP %rcx
	CFI_POP %rax
	CFI_POPF
	ret
3:	.cfi_adjust_cfa_offset 8
	CFI_POP %rdi
.Ltail_slow:
	movl $0, TLS(TLS_BUSY)
	CFI_POP %rsi
	CFI_POP %rdx
	CFI_POP %rcx
	CFI_POP %rax
	CFI_POPF
	jmp __profinst_tailexit_slow
.Ltail_busy:
	.cfi_adjust_cfa_offset 40
	C_PATHS .Ltail_slow, %rcx, %rdx, %rsi
	jmp .Ltail_out
	.cfi_endproc
END __profinst_tailexit

LOCAL __profinst_tailexit_slow
	SAVE                      /* the function jumped to may read the flags */
	mov %r11, %rdi            /* funcrec of the function leaving */
	lea SAVED+TAIL_STUB(%rbx), %rsi /* its %rsp: where its return address is */
	mov SAVED+TAIL_TARGET(%rbx), %rdx /* where the jump goes */
	mov SAVED(%rbx), %rcx     /* the stub's code after the call */
	call pi_rt_tailexit
	mov %rax, SAVED+TAIL_TARGET(%rbx) /* where it goes now (targets.c) */
	RESTORE
END __profinst_tailexit_slow


/*
 * The simulations' helpers (--branch-sim, --cache-sim) run C between any
 * two of the program's instructions: SIM_ENTER saves %rax, the flags and
 * the argument registers (9 pushes), SIM_LEAVE restores them and returns.
 * The flags are kept with lahf/seto and restored with add/sahf, as the
 * block stubs keep them: popfq is slow.
 */
.macro SIM_ENTER
	CFI_PUSH %rax
	lahf
	seto %al
	CFI_PUSH %rax
	PUSH_ARGS
	FOLD_CLOCK %r8, %r9, %r10
.endm

.macro SIM_LEAVE
	POP_ARGS
	CFI_POP %rax
	add $0x7f, %al            /* OF again */
	sahf
	CFI_POP %rax
	ret
.endm

/*
 * Before a conditional jump, under --branch-sim (stub_abi.h): %r11 holds
 * the word, saved by the stub.
 */
ENTRY __profinst_branch
	.cfi_startproc
	SIM_ENTER
	mov %r11, %rdi
	movslq 80(%rsp), %rsi     /* the counter: past 9 pushes and the return address */
	call pi_rt_branch
	SIM_LEAVE
	.cfi_endproc
END __profinst_branch

/*
 * Before a load that waits for a load, or that one waits for, under
 * --cache-sim (stub_abi.h): %r11 holds the address, saved by the stub,
 * and the word is above the return address.
 */
ENTRY __profinst_load
	.cfi_startproc
	SIM_ENTER
	mov %r11, %rdi
	mov 88(%rsp), %esi        /* the word: past 9 pushes, the return address, the counter */
	mov %rsp, %rdx            /* below the program's stack */
	movslq 80(%rsp), %rcx     /* the counter */
	call pi_rt_load
	SIM_LEAVE
	.cfi_endproc
END __profinst_load

/*
 * Around a call into external code (see stub_abi.h).  The enter helper's
 * %rsp at entry is the callee's %rsp at its entry, and its return address
 * is the call instruction's address.
 */
ENTRY __profinst_ext_enter
	.cfi_startproc
	CFI_PUSH %rax
	PUSH_ARGS
	IDLE_OR .Lxe_skip
	movl FREC_EXTFLAGS(%r11), %r9d
	FOLD_CLOCK %rcx, %rdx, %rsi       /* for the C path too */
	test $(PI_EXT_CHECK | PI_EXT_TTYREAD | PI_EXT_SWITCH | PI_EXT_SETCTX | PI_EXT_HEAP_MASK | PI_EXT_LOCALE | PI_EXT_SOLO | PI_EXT_ONCE), %r9d /* the C path's */
	jnz .Lxe_slow
	test $PI_EXT_C_LOCALE, %r9d
	jz 1f
	cmpl $0, rt_locale_set(%rip)
	je 1f
	and $~PI_EXT_FIXED, %r9d          /* another locale than C: measured */
1:
	TAKE_BUSY .Lxe_slow_busy
	NEW_FRAME %rcx, %rax, .Lxe_slow_busy
	FAULTS_CHECK %rdx, .Lxe_slow_busy
	lea 8*8(%rsp), %rdx               /* the callee's %rsp: this helper's at entry, past eight pushes */
	cmp %rdx, FR_SP-FRAME_SIZE(%rax)
	jbe .Lxe_slow_busy                /* frames below are dead: the C path closes them */
	cmpq $0, FR_EXT-FRAME_SIZE(%rax)
	jne .Lxe_slow_busy
	mov (%rdx), %rsi                  /* the call instruction */
	cmpb $0xe8, (%rsi)
	jne .Lxe_slow_busy
	add $5, %rsi                      /* its return address */
	mov FREC_ADDR(%r11), %rdi         /* the word of the record all externals */
	test %rdi, %rdi                   /* of the name share (0: a target's) */
	jz .Lxe_own
	mov FREC_ADDR(%r11,%rdi), %rdi
.Lxe_own:
	test %rdi, %rdi
	cmovz %r11, %rdi
	mov FR_NODE-FRAME_SIZE(%rax), %r8 /* parent node */
	mov %rdx, FR_SP(%rax)             /* (the frame is not live before depth++) */
	CACHED_CHILD %r8, %rdi, %rsi, %rcx, %r10, %rdx, .Lxe_slow_busy
	cmpq $0, ND_ALIAS(%r10)
	jne .Lxe_slow_busy
	movq $0, FR_ALIAS(%rax)
	FILL_FRAME %rax, %r10, %rdi, %rcx, %rdx, %r8
	movq $0, FR_EXT_TICKS(%rax)
	movq $0, FR_FECALL(%rax)          /* no bubble: the external's time has the call */
	/* charged: PI_EXT_CHARGE, and not a wait unless PI_EXT_CHARGE_WAITS */
	mov $RT_EXT_ON, %edx
	test $PI_EXT_CHARGE, %r9d
	jz 2f
	test $PI_EXT_WAIT, %r9d
	jz 3f
	test $PI_EXT_CHARGE_WAITS, %r9d
	jz 2f
3:	or $RT_EXT_CHARGE, %edx
2:	test $PI_EXT_FIXED, %r9d          /* the model's cost, no clock */
	jz 2f
	/* cost = size[1] + size[2] * n / 256 (units), n the argument
	 * size[3]'s low byte names: 0 none, 1 %rdi, 2 %rsi, 3 %rdx (saved
	 * above), 4 %rdi * %rsi; or size[3] >> 8 if that is not 0 and %rdi
	 * is NULL */
	xor %edi, %edi
	movzbl FREC_EXTARG(%r11), %esi
	cmp $1, %esi
	jne 4f
	mov 24(%rsp), %rdi
4:	cmp $2, %esi
	jne 4f
	mov 32(%rsp), %rdi
4:	cmp $3, %esi
	jne 4f
	mov 40(%rsp), %rdi
4:	cmp $4, %esi                      /* 4: %rdi * %rsi (calloc's) */
	jne 4f
	mov 24(%rsp), %rdi
	imul 32(%rsp), %rdi
	jno 4f
	xor %edi, %edi                    /* it fails at once */
4:	mov FREC_EXTPERBYTE(%r11), %esi
	imul %rsi, %rdi
	shr $8, %rdi
	mov FREC_EXTFIXED(%r11), %esi
	add %rsi, %rdi
	mov FREC_EXTARG(%r11), %esi
	shr $8, %esi
	jz 5f
	cmpq $0, 24(%rsp)
	cmovz %rsi, %rdi
5:	shl $RT_EXT_COST_SHIFT, %rdi
	or $RT_EXT_FIXED, %edx            /* its cost above */
	or %rdi, %rdx
2:	mov %rdx, FR_EXT(%rax)
	incq TH_DEPTH(%rcx)
	movl $0, TLS(TLS_BUSY)
	test $PI_EXT_FIXED, %r9d
	jnz .Lxe_out                      /* no clock to start */
	mov %rax, %r8
	movq $1, TLS(TLS_CBHINT)          /* an entry now is a callback */
	FENCED_TSC                        /* the runtime's work done; last: the external's time starts here */
	mov %rax, FR_EXT_START(%r8)
.Lxe_out:
	POP_ARGS
	CFI_POP %rax
	ret
.Lxe_slow_busy:
	.cfi_adjust_cfa_offset 64
	movl $0, TLS(TLS_BUSY)
.Lxe_slow:
	POP_ARGS
	CFI_POP %rax
	jmp __profinst_ext_enter_slow
.Lxe_skip:                                /* a call not recorded (PI_LOSS_NESTED) */
	.cfi_adjust_cfa_offset 64
	C_PATHS .Lxe_slow, %rcx, %rdx, %rsi
	incq TLS(TLS_SKIPPED)
	jmp .Lxe_out
	.cfi_endproc
END __profinst_ext_enter

LOCAL __profinst_ext_enter_slow
	SAVE_LIGHT                /* (%rax, then %rcx, just under the callee's %rsp: read_fd) */
	mov %rsi, %r8             /* the call's second argument */
	mov %rdx, %r9             /* and third */
	mov %rdi, %rcx            /* the call's first argument */
	mov %r11, %rdi            /* the external's record */
	lea SAVED_LIGHT(%rsp), %rsi /* the callee's %rsp: the helper's at entry */
	mov (%rsi), %rdx          /* the call instruction */
	call pi_rt_ext_enter
	RESTORE_LIGHT
END __profinst_ext_enter_slow

/* Exit, fast path: the top frame is the external's, called from an
 * instrumented frame; closes it and charges its time without a call into
 * C.  Keeps %rax and %rdx, the return registers.  EXT_EXIT name, 0: the
 * external's measured time; EXT_EXIT name, 1: for an external the model
 * costs (PI_EXT_FIXED), the cost the enter helper put in its frame. */
/* The exit helpers' seven pushes undone, last first. */
.macro EXT_EXIT_POPS
	CFI_POP %r11
	CFI_POP %r8
	CFI_POP %rdi
	CFI_POP %rsi
	CFI_POP %rcx
	CFI_POP %rdx
	CFI_POP %rax
.endm

.macro EXT_EXIT name, fixed
ENTRY \name
	.cfi_startproc
	CFI_PUSH %rax
	CFI_PUSH %rdx
.if \fixed == 0
	FENCED_TSC                        /* the external's work done; first: the external's time ends here */
	movq $0, TLS(TLS_CBHINT)          /* entries from here on are plain calls */
.endif
	CFI_PUSH %rcx
	CFI_PUSH %rsi
	CFI_PUSH %rdi
	CFI_PUSH %r8
	CFI_PUSH %r11
	IDLE_OR .L\name\()_busy
	TAKE_BUSY .L\name\()_slow_busy
	FOLD_CLOCK %rcx, %rsi, %rdi       /* (%rax holds the time) */
	TOP_FRAME %rcx, %rsi, .L\name\()_slow_busy
.if \fixed
	FAULTS_CHECK %rdx, .L\name\()_slow_busy /* the C path adds them to its cost */
.endif
	cmpq $2, TH_DEPTH(%rcx)
	jb .L\name\()_slow_busy           /* its caller's frame must be there */
	lea 7*8(%rsp), %rdx               /* the callee's %rsp: this helper's at entry, past seven pushes */
	cmp %rdx, FR_SP(%rsi)
	jne .L\name\()_slow_busy
	mov FR_EXT(%rsi), %rdi
	test %rdi, %rdi
	jz .L\name\()_slow_busy
	cmpq $0, FR_ALIAS(%rsi)
	jne .L\name\()_slow_busy
	cmpq $0, FR_EXT-FRAME_SIZE(%rsi)
	jne .L\name\()_slow_busy
	test $RT_EXT_FIXED, %edi
.if \fixed
	jz .L\name\()_measured          /* measured after all (PI_EXT_C_LOCALE) */
	mov %rdi, %rax
	shr $RT_EXT_COST_SHIFT, %rax      /* its cost, in the clock's units */
.else
	jnz .L\name\()_slow_busy
	sub FR_EXT_START(%rsi), %rax
	add FR_EXT_TICKS(%rsi), %rax      /* ticks, callbacks left out */
	sub rt_ext_overhead_ticks(%rip), %rax /* less the stubs' own */
	jns 0f                            /* (callbacks' stubs were taken off too) */
	xor %eax, %eax
0:
	mulq rt_cycles_per_tick_q32(%rip)
	shrd $32, %rdx, %rax              /* cycles: rt_ticks_to_cycles() */
.endif
	/* its time is its own node's self (shadow.c, close_external), a
	 * measured one's in its os too; a wait's left out, in os_left */
	mov FR_NODE(%rsi), %r11           /* the external's node */
	mov %r11, TLS(TLS_EXTLAST)
	test $RT_EXT_CHARGE, %edi
	jz 1f
	add %rax, TLS(TLS_CLOCK)
.if \fixed == 0
	add %rax, ND_OS(%r11)
.endif
	jmp 2f
1:	add %rax, ND_OS_LEFT(%r11)
2:	mov TLS(TLS_CLOCK), %rdx
.if \fixed == 0
	mov %rdx, %rax                    /* measured: the front end starts */
	sub rt_fe_window(%rip), %rax      /* afresh (frontend.c, rt_fe_free) */
	mov %rax, TLS(TLS_FEPRED)
.endif
	sub FR_ENTRY(%rsi), %rdx          /* duration, its own time in it */
	mov %rdx, %rdi
	sub FR_CHILD(%rsi), %rdi          /* self */
	CHARGE_NODE %r11, %rdx, %rdi, %rcx, %rax
	decq TH_DEPTH(%rcx)
	add %rdx, FR_CHILD-FRAME_SIZE(%rsi)
.if \fixed == 0
	FAULTS_SKIP %rdi, %r11
.endif
	movl $0, TLS(TLS_BUSY)
.L\name\()_out:
	EXT_EXIT_POPS
	ret
.L\name\()_slow_busy:
	.cfi_adjust_cfa_offset 56
	movl $0, TLS(TLS_BUSY)
	EXT_EXIT_POPS
	jmp __profinst_ext_exit_slow
.L\name\()_busy:
	.cfi_adjust_cfa_offset 56
	C_PATHS .L\name\()_slow_busy, %rcx, %rsi, %rdi
	jmp .L\name\()_out
.if \fixed
	/* An external the model costs in the C locale only, called after the
	 * program set another: its clock runs (PI_EXT_C_LOCALE), and the
	 * measured exit stops it, a few instructions late. */
.L\name\()_measured:
	movl $0, TLS(TLS_BUSY)
	EXT_EXIT_POPS
	jmp __profinst_ext_exit
.endif
	.cfi_endproc
END \name
.endm

	EXT_EXIT __profinst_ext_exit, 0
	EXT_EXIT __profinst_ext_exit_fixed, 1

LOCAL __profinst_ext_exit_slow
	SAVE_LIGHT
	lea SAVED_LIGHT(%rsp), %rdi /* the callee's %rsp, as it was at its entry */
	call pi_rt_ext_exit
	RESTORE_LIGHT
END __profinst_ext_exit_slow

/*
 * An indirect call whose target does not begin as an instrumented entry
 * (stub_abi.h, "Indirect call"): %r11 = the target, (%rsp) = the address
 * of the call *%r11 that follows.  Returns in %r11 what that call calls
 * (pi_rt_icall): the target, or the thunk of its record.  Every other
 * register is kept; the flags are dead at a call.
 */
ENTRY __profinst_icall
	SAVE_LIGHT
	mov %r11, %rdi            /* the target */
	call pi_rt_icall
	mov %rax, (%rsp)          /* the saved %r11: what to call */
	RESTORE_LIGHT
END __profinst_icall

/*
 * The thunks of the targets' records (targets.c): thunk i, 16 bytes, is
 * what a call through a pointer to target i calls instead (the second
 * table: what a tail jump through a pointer jumps to); it names the record
 * in %r11, so that nothing a signal handler does between the helper's
 * answer and the call can change where the call goes.
 */
.macro THUNKS name, tramp
	.p2align 4
	.globl \name
	.hidden \name
\name:
	.set .Lthunk_i, 0
	.rept RT_TARGETS
	endbr64
	lea rt_targets+.Lthunk_i*64(%rip), %r11
	jmp \tramp
	.p2align 4
	.set .Lthunk_i, .Lthunk_i+1
	.endr
	.size \name, .-\name
.endm
	THUNKS rt_target_thunks, __profinst_icall_tramp
	THUNKS rt_target_tail_thunks, __profinst_itail_tramp

/*
 * A call through a pointer out of instrumented code, reached through its
 * target's thunk: %r11 = the target's record, (%rsp) = the return address
 * of the program's call.  Timed as a direct external call is: the eight
 * stack words above the return address are copied below it (a call passes
 * no more stack arguments than that in practice, as for a tail call made a
 * call, layout.c), so that the target finds its arguments where it would;
 * then the enter helper, the call, and the external-call exit helper, which
 * closes the frame as it closes a direct external's.  Reached by a tail
 * jump (tail = 1), the function that jumped returns after it: its exit
 * helper closes its frame.
 */
.macro ICALL_TRAMP name, tail
LOCAL \name
	.cfi_startproc
	lea -72(%rsp), %rsp
	.cfi_adjust_cfa_offset 72
	CFI_PUSH %r11
	.irp i, 0, 1, 2, 3, 4, 5, 6, 7
	mov 88+8*\i(%rsp), %r11
	mov %r11, 8+8*\i(%rsp)
	.endr
	CFI_POP %r11
	call __profinst_icall_enter
	call *FREC_TARGET(%r11)
	call __profinst_ext_exit
	lea 72(%rsp), %rsp
	.cfi_adjust_cfa_offset -72
.if \tail
	call __profinst_exit
.endif
	ret
	.cfi_endproc
END \name
.endm
	ICALL_TRAMP __profinst_icall_tramp, 0
	ICALL_TRAMP __profinst_itail_tramp, 1

/* %r11 = the record; the helper's %rsp at entry is the target's at its
 * entry, and 80 bytes above it is the program's return address. */
LOCAL __profinst_icall_enter
	SAVE_LIGHT
	mov %r11, %rdi            /* the target's record */
	lea SAVED_LIGHT(%rsp), %rsi /* the target's %rsp at its entry */
	mov 80(%rsi), %rdx        /* the return address of the program's call */
	call pi_rt_icall_enter
	RESTORE_LIGHT
END __profinst_icall_enter

#else
/* The timed runtime's helpers, which a shared object's stubs never call
 * (-shared is the counting runtime's): a trap if one did. */
.irp name, __profinst_enter, __profinst_enter_flags, __profinst_exit, __profinst_tailexit, \
	__profinst_branch, __profinst_load, __profinst_ext_enter, __profinst_ext_exit, __profinst_ext_exit_fixed, \
	__profinst_icall, __profinst_ext_enter_slow
ENTRY \name
	ud2
END \name
.endr
.macro NO_THUNKS name
	.p2align 4
	.globl \name
	.hidden \name
\name:
	.fill 16 * RT_TARGETS, 1, 0xcc
	.size \name, .-\name
.endm
	NO_THUNKS rt_target_thunks
	NO_THUNKS rt_target_tail_thunks
#endif

ENTRY __profinst_rep
	SAVE
	mov %r11, %rdi            /* kind */
	mov %rcx, %rsi            /* %rcx after the string op */
	mov SAVED-8(%rbx), %rdx   /* the flags it left: SAVE's first push */
	call pi_rt_rep
	RESTORE
END __profinst_rep

/* Around a syscall instruction: the flags may be live across it. */
ENTRY __profinst_sys_enter
	SAVE
	mov %rsi, %rdx            /* its second argument */
	mov %rdi, %rsi            /* its first */
	mov %rax, %rdi            /* its number */
	call pi_rt_sys_enter
	RESTORE
END __profinst_sys_enter

ENTRY __profinst_sys_exit
	SAVE
	call pi_rt_sys_exit
	RESTORE
END __profinst_sys_exit

#ifndef PI_PIC_RUNTIME
/*
 * What the external-call stubs add to the time they measure, with nothing
 * to measure: from the enter helper's rdtsc (then its eight pops and ret)
 * through a call into a PLT-like jump to an empty function, to the exit
 * helper's two pushes and rdtsc.  Returns the ticks; the runtime measures
 * it at start-up and subtracts it from every external call.
 */
ENTRY pi_rt_probe_window
	.cfi_startproc
	CFI_PUSH %rbx
	lea -64(%rsp), %rsp
	.cfi_adjust_cfa_offset 64
	FENCED_TSC
	mov %rax, %rbx
	mov %rax, 56(%rsp)
	pop %rcx
	pop %rdx
	pop %rsi
	pop %rdi
	pop %r8
	pop %r9
	pop %r10
	pop %r11
	.cfi_adjust_cfa_offset -64
	call 1f                           /* the enter helper's return */
	call 2f                           /* the call of the external, through its PLT entry */
	CFI_PUSH %rax
	CFI_PUSH %rdx
	FENCED_TSC
	sub %rbx, %rax
	lea 16(%rsp), %rsp
	.cfi_adjust_cfa_offset -16
	CFI_POP %rbx
	ret
1:	ret
2:	jmp *probe_target(%rip)
	.cfi_endproc
END pi_rt_probe_window
probe_empty:
	ret
	.section .data.rel.ro.profinst,"aw"
	.p2align 3
probe_target:
	.quad probe_empty
	.text

/* The end of a callback probe: the entry helper's pause of the
 * external's clock (two pushes, lfence, rdtsc), and the ticks since %rbx
 * returned, the stack as the probe found it. */
.macro PROBE_PAUSED clock=FENCED_TSC
	CFI_PUSH %rax
	CFI_PUSH %rdx
	\clock                            /* the external's clock pauses */
	sub %rbx, %rax
	movq $0, TLS(TLS_CBHINT)
	lea 40(%rsp), %rsp                /* two pushes, the stubs' return addresses, %r11 */
	.cfi_adjust_cfa_offset -40
	CFI_POP %rbx
	ret
.endm

/*
 * What a callback's stubs add to the external's measured time, each time
 * external code calls instrumented code: from the exit helper's resumption
 * of the external's clock (its rdtsc, its store and four pops and ret, and
 * the callback's ret into the external) through the external's indirect
 * call of the callback, the callback's entry stub and the entry helper's
 * first checks, to its pause (.Lenter_hint: two pushes, lfence, rdtsc).
 * The helpers' loads and stores are of this thread's block, as theirs
 * are.  Returns the ticks; the runtime measures it at start-up and
 * subtracts it for every callback.
 */
ENTRY pi_rt_probe_callback
	.cfi_startproc
	CFI_PUSH %rbx
	call 1f                           /* the external calls the callback */
	/* the external again, after the callback returned */
	lea 3f(%rip), %rax
	call *%rax                        /* and calls it again */
	ud2
1:	.cfi_adjust_cfa_offset 8          /* the callback */
	call 2f                           /* its exit stub */
	ret                               /* its ret */
2:	.cfi_adjust_cfa_offset 8          /* the exit helper */
	CFI_PUSH %rax
	CFI_PUSH %rcx
	CFI_PUSH %rdx
	CFI_PUSH %rsi
	CFI_PUSH %r11
	CFI_PUSH %rdi
	lea probe_frame(%rip), %rsi
	movq $1, TLS(TLS_CBHINT)
	CFI_POP %rdi
	CFI_POP %r11
	lfence
	rdtsc                             /* the external's clock runs again */
	lfence
	shl $32, %rdx
	or %rdx, %rax
	mov %rax, %rbx
	mov %rax, (%rsi)                  /* (the frame's ext_start) */
	movl $0, 8(%rsi)                  /* (busy) */
	CFI_POP %rsi
	CFI_POP %rdx
	CFI_POP %rcx
	CFI_POP %rax
	ret
3:	.cfi_adjust_cfa_offset -8         /* the callback, entered again */
	CFI_PUSH %r11                     /* its entry stub */
	lea probe_target(%rip), %r11
	call 4f
	ud2
4:	.cfi_adjust_cfa_offset 8          /* the entry helper */
	cmpq $0, TLS(TLS_CBHINT)
	jne 5f
5:	cmpl $0, TLS(TLS_BUSY)            /* (0 here, as there) */
	jne 5f
5:	PROBE_PAUSED
	.cfi_endproc
END pi_rt_probe_callback
	.bss
	.p2align 4
probe_frame:
	.zero 16
	.text

/*
 * The same for the counting runtime: from the trampoline's resumption of
 * the external's clock (its rdtsc, its store, nine pops and ret) through
 * the external's indirect call of the callback, the callback's entry stub
 * (the two tests of nextsp that fail) and the entry helper's first test,
 * to its pause (two pushes, rdtsc: neither clock is fenced here).
 */
ENTRY pi_rt_probe_ccallback
	.cfi_startproc
	CFI_PUSH %rbx
	movq $1, TLS(TLS_CBHINT)
	call 1f                           /* the trampoline returns here, */
	lea 3f(%rip), %rax
	call *%rax                        /* and the external calls the callback */
	ud2
1:	.cfi_adjust_cfa_offset 8          /* the trampoline, its nine saves */
	push %rax
	push %rcx
	push %rdx
	push %rsi
	push %rdi
	push %r8
	push %r9
	push %r10
	push %r11
	.cfi_adjust_cfa_offset 72
	lea probe_cnode(%rip), %rcx
	TSC                               /* the external's clock runs again */
	mov %rax, %rbx
	mov %rax, CN_SP(%rcx)
	pop %r11
	pop %r10
	pop %r9
	pop %r8
	pop %rdi
	pop %rsi
	pop %rdx
	pop %rcx
	pop %rax
	.cfi_adjust_cfa_offset -72
	ret
3:	.cfi_adjust_cfa_offset -8         /* the callback's entry stub */
	CFI_PUSH %r11
	cmp %rsp, TLS(TLS_NEXTSP)
	jne 4f
4:	lea 1(%rsp), %r11
	cmp %r11, TLS(TLS_NEXTSP)
	jne 5f
5:	lea probe_target(%rip), %r11
	call 6f
	ud2
6:	.cfi_adjust_cfa_offset 8          /* the entry helper */
	cmpq $0, TLS(TLS_CBHINT)
	je 7f
7:	PROBE_PAUSED TSC
	.cfi_endproc
END pi_rt_probe_ccallback
	.bss
	.p2align 4
probe_cnode:                              /* (an rt_cnode's sp is written) */
	.zero CN_SP + 8
	.text

#else
/* (the shared runtime measures no stubs' share: its helpers take the
 * C paths, which time as they go) */
.irp name, pi_rt_probe_window, pi_rt_probe_callback, pi_rt_probe_ccallback
ENTRY \name
	xor %eax, %eax
	ret
END \name
.endr
#endif

/* Before _exit, _Exit, quick_exit and exec: write the profile now. */
ENTRY __profinst_flush
	SAVE
	call pi_rt_flush
	RESTORE
END __profinst_flush

ENTRY __profinst_resync
	SAVE
	lea SAVED+RET_STUB+RED_ZONE(%rbx), %rdi /* %rsp of the code resuming */
	call pi_rt_resync
	RESTORE
END __profinst_resync

/*
 * --counts (counting.c).  The entry stub's slow way: %r11 = the function's
 * record; after the nine pushes, the function's %rsp at entry is
 * %rsp + 88 (the stub's push of %r11 and this call's return between).
 */
/* (While a timed external runs, an entry is its callback: its clock
 * pauses first of all, here; pi_rt_probe_ccallback measures what of the
 * stubs' work is still inside it.)
 *
 * A callback from an external whose clock runs (qsort's comparison) is
 * done here, as pi_rt_centry does it: the external's node is current and
 * no site named this call (nextsp is not the function's), the function
 * has a node among the external's children from outside, the thread's
 * trampoline table has room and holds nothing of this stack below the
 * call (drop_dead), no entry nests (a signal handler's while the runtime
 * was busy).  The external's clock stops (less the stubs' share, as
 * there), a record of the return goes in the table, the return address
 * becomes the trampoline, and the node is current.  Anything else, a new
 * node too, goes to the C half; busy is held throughout, so a handler
 * coming meanwhile nests. */
ENTRY __profinst_centry
#ifdef PI_PIC_RUNTIME
.Lcentry_c_path:
	SAVE_LIGHT
	mov %r11, %rdi
	lea SAVED_LIGHT+16(%rsp), %rsi
	call pi_rt_centry
	RESTORE_LIGHT
#else
	.cfi_startproc
	cmpq $0, TLS(TLS_CBHINT)
	je 1f
	CFI_PUSH %rax
	CFI_PUSH %rdx
	TSC
	mov %rax, TLS(TLS_CBTSC)
	CFI_POP %rdx
	CFI_POP %rax
1:	SAVE_GPRS
	IDLE_OR .Lce_c
	TAKE_BUSY .Lce_c_busy
	CUR_EXTERNAL %r8, %rax, .Lce_c_busy
	testl $(PI_EXT_SWITCH | PI_EXT_SETCTX), FREC_EXTFLAGS(%rax)
	jnz .Lce_c_busy
	cmpq $0, CN_SP(%r8)               /* its clock runs */
	je .Lce_c_busy
	cmpb $CN_OUTERMOST, CN_PTRSITE(%r8)
	je .Lce_c_busy
	lea SAVED_LIGHT+16(%rsp), %rsi    /* the function's %rsp at entry */
	mov TLS(TLS_NEXTSP), %rax
	and $-2, %rax
	lea -8(%rsi), %rdi
	cmp %rdi, %rax
	je .Lce_c_busy                    /* a site's call */
	lea __profinst_ctramp(%rip), %rdi
	cmp %rdi, (%rsi)
	je .Lce_c_busy
	COUNTING_TABLES %rax, %rcx, .Lce_c_busy
	cmpl $0, CT_NNEST(%rcx)
	jne .Lce_c_busy
	mov CT_NTRAMP(%rcx), %eax
	cmp CT_TCAP(%rcx), %eax
	jae .Lce_c_busy
	imul $TRAMP_SIZE, %rax, %r9
	add CT_TRAMP(%rcx), %r9           /* the new record's place */
	mov CT_TRAMP(%rcx), %rdi          /* a record of this stack below: C */
	lea 1(%rsi), %r10
	DEAD_RECORD %rdi, %r9, %r10, %rax, %rdx, .Lce_c_busy
	mov CN_AUX(%r8), %rdi
	test %rdi, %rdi
	jz .Lce_c_busy
	mov AUX_OUTSIDE(%rdi), %rdi       /* the function's node there */
5:	test %rdi, %rdi
	jz .Lce_c_busy
	cmp %r11, CN_FN(%rdi)
	je 6f
	mov CN_SIBLING(%rdi), %rdi
	jmp 5b
6:	mov TLS(TLS_CBTSC), %rax          /* the external's clock stops */
	movq $0, TLS(TLS_CBTSC)
	movq $0, TLS(TLS_CBHINT)
	test %rax, %rax
	jnz 7f
	rdtsc                             /* (no pause above: ext_now) */
	shl $32, %rdx
	or %rdx, %rax
	xor %edx, %edx
	jmp 8f
7:	mov rt_ccb_overhead_ticks(%rip), %rdx
8:	sub CN_SP(%r8), %rax              /* what ran, 0 if nothing */
	jbe 9f
	sub %rdx, %rax                    /* less the stubs' share */
	jbe 9f
	add %rax, CN_EXT_OS(%r8)
9:	movq $0, CN_SP(%r8)
	mov (%rsi), %rax                  /* the record */
	mov %rax, TR_RA(%r9)
	mov %rsi, TR_SP(%r9)
	mov %r8, TR_CUR(%r9)
	mov TLS(TLS_NEXT), %rax
	mov %rax, TR_NEXT(%r9)
	mov TLS(TLS_NEXTSP), %rax
	mov %rax, TR_NEXTSP(%r9)
	mov TLS(TLS_TARGET), %rax
	mov %rax, TR_TARGET(%r9)
	movb $1, TR_MEASURED(%r9)
	incl CT_NTRAMP(%rcx)
	lea __profinst_ctramp(%rip), %rax
	mov %rax, (%rsi)
	incq CN_CALLS(%rdi)
	lea -8(%rsi), %rax
	mov %rax, CN_SP(%rdi)
	mov %rdi, TLS(TLS_CUR)
	movq $0, TLS(TLS_NEXTSP)
	movl $0, TLS(TLS_BUSY)
	.cfi_remember_state
	RESTORE_GPRS
	ret
	.cfi_restore_state
.Lce_c_busy:
	movl $0, TLS(TLS_BUSY)
.Lce_c:
	mov %r11, %rdi
	lea SAVED_LIGHT+16(%rsp), %rsi
	call pi_rt_centry
	RESTORE_LIGHT
#endif
END __profinst_centry

/*
 * A shared object's entry stub (push %r11; lea record(%rip),%r11; call
 * here; pop %r11), which holds no TLS offset of its own (-shared): the
 * work a program's entry stub does inline, here where the thread block
 * is at a fixed offset.  A site's call takes the node from its slot; a
 * call through a pointer whose site called this function last time, the
 * node the site's node keeps for it; anything else goes on to
 * __profinst_centry with the stack as the stub left it.  The function's
 * %rsp at entry is %rsp + 16; flags are the function's to lose (a
 * function that reads them at entry calls __profinst_centry_flags).
 */
ENTRY __profinst_pentry
	.cfi_startproc
	CFI_PUSH %rax
#ifdef PI_PIC_RUNTIME
	/* (the shared runtime's: the thread block's offset from the GOT) */
	CFI_PUSH %rcx
	mov __profinst_tls@gottpoff(%rip), %rcx
#define PTLS(off) %fs:off(%rcx)
#define PENTRY_PUSHES 16
#else
#define PTLS(off) TLS(off)
#define PENTRY_PUSHES 8
#endif
.macro PENTRY_POPS
#ifdef PI_PIC_RUNTIME
	CFI_POP %rcx
#endif
	CFI_POP %rax
.endm
	lea PENTRY_PUSHES+8(%rsp), %rax   /* the callee's %rsp past its push of %r11 */
	cmp %rax, PTLS(TLS_NEXTSP)
	jne 2f
	mov PTLS(TLS_NEXT), %rax          /* a site's call: its slot */
	mov (%rax), %rax
	test %rax, %rax
	jz 3f
1:	mov %rax, PTLS(TLS_CUR)
	incq CN_CALLS(%rax)
	movq $0, PTLS(TLS_NEXTSP)
	.cfi_remember_state
	PENTRY_POPS
	ret
	.cfi_restore_state
2:	inc %rax                          /* one past: a call through a pointer */
	cmp %rax, PTLS(TLS_NEXTSP)
	jne 3f
	mov PTLS(TLS_CUR), %rax
	cmpb $CN_POINTER, CN_PTRSITE(%rax)
	jne 3f
	mov CN_COUNTS+8*PTR_CALLEE(%rax), %rax
	test %rax, %rax
	jz 3f
	cmp %r11, CN_FN(%rax)
	je 1b
3:	PENTRY_POPS
#ifdef PI_PIC_RUNTIME
	jmp .Lcentry_c_path               /* (no jump to a symbol another may take) */
#else
	jmp __profinst_centry
#endif
	.cfi_endproc
#undef PTLS
#undef PENTRY_PUSHES
END __profinst_pentry

/* The same, where the function's first block reads flags it did not set. */
ENTRY __profinst_centry_flags
	SAVE
	mov %r11, %rdi
	lea SAVED+16(%rbx), %rsi
	call pi_rt_centry
	RESTORE
END __profinst_centry_flags

/* Where control lands without a return (setjmp's second return, a landing
 * pad), below the red zone (lea -128(%rsp),%rsp first). */
ENTRY __profinst_cresync
	SAVE_LIGHT
	lea SAVED_LIGHT+8+128(%rsp), %rdi
	mov %r11, %rsi            /* the function's record */
	call pi_rt_cresync
	RESTORE_LIGHT
END __profinst_cresync

/* An entry whose frame's CFA is not where the frames' nodes were last
 * found (the first entry, or one on another stack): %r11 = the frame's
 * word (framenodes.c), or 0 if it has none.  The entry stub's %rsp is its
 * CFA - 16 (the return address and its push of %r11). */
ENTRY __profinst_cframe
	SAVE_LIGHT
	lea SAVED_LIGHT+8+16(%rsp), %rdi
	call pi_rt_cframe
	mov %rax, (%rsp)          /* the %r11 RESTORE_LIGHT takes back */
	RESTORE_LIGHT
END __profinst_cframe

/* Around swapcontext: the context leaving keeps its node (the %rsp of the
 * call names it), the one coming back takes it again. */
ENTRY __profinst_cpark
	SAVE_LIGHT
	lea SAVED_LIGHT+8(%rsp), %rdi
	call pi_rt_cpark
	RESTORE_LIGHT
END __profinst_cpark

ENTRY __profinst_cunpark
	SAVE_LIGHT
	lea SAVED_LIGHT+8(%rsp), %rdi
	call pi_rt_cunpark
	RESTORE_LIGHT
END __profinst_cunpark

/* Around a call to an external the model does not cost: its clock starts
 * (the current node is its node), and stops after it.  Every register is
 * kept; the flags are dead at a call and after it.  The plain case is
 * done here, as pi_rt_cmeas_start and pi_rt_cmeas_stop do it: an
 * external's node, none of whose flags asks about its arguments or counts
 * its calls apart (a locale's, a lock's, a once-call's, a wait's, a
 * read's), whose clock starts in its sp and stops into its os.  Anything
 * else, or busy or dead set (the C paths' switch), goes to the C half. */
#define CMEAS_APART (PI_EXT_LOCALE | PI_EXT_C_LOCALE | PI_EXT_SOLO | PI_EXT_ONCE | PI_EXT_WAIT | PI_EXT_TTYREAD)

ENTRY __profinst_cmeas_start
#ifndef PI_PIC_RUNTIME
	.cfi_startproc
	CFI_PUSH %rax
	CFI_PUSH %rdx
	CFI_PUSH %r11
	IDLE_OR .Lms_slow
	CUR_EXTERNAL %r11, %rax, .Lms_slow
	testl $CMEAS_APART, FREC_EXTFLAGS(%rax)
	jnz .Lms_slow
	rdtsc                             /* (ext_now: no fence) */
	shl $32, %rdx
	or %rdx, %rax
	mov %rax, CN_SP(%r11)
	movq $1, TLS(TLS_CBHINT)          /* an entry now is its callback */
	CFI_POP %r11
	CFI_POP %rdx
	CFI_POP %rax
	ret
.Lms_slow:
	CFI_POP %r11
	CFI_POP %rdx
	CFI_POP %rax
	.cfi_endproc
#endif
	SAVE_LIGHT
	call pi_rt_cmeas_start
	RESTORE_LIGHT
END __profinst_cmeas_start

ENTRY __profinst_cmeas_stop
#ifndef PI_PIC_RUNTIME
	.cfi_startproc
	CFI_PUSH %rax
	CFI_PUSH %rdx
	CFI_PUSH %r11
	rdtsc
	IDLE_OR .Lme_slow
	shl $32, %rdx
	or %rdx, %rax
	CUR_EXTERNAL %r11, %rdx, .Lme_slow
	mov CN_SP(%r11), %rdx             /* 0: a wait's clock ran (wait_sp) */
	test %rdx, %rdx
	jz .Lme_slow
	movq $0, TLS(TLS_CBHINT)
	sub %rdx, %rax
	add %rax, CN_EXT_OS(%r11)
	movq $0, CN_SP(%r11)
	CFI_POP %r11
	CFI_POP %rdx
	CFI_POP %rax
	ret
.Lme_slow:
	CFI_POP %r11
	CFI_POP %rdx
	CFI_POP %rax
	.cfi_endproc
#endif
	SAVE_LIGHT
	call pi_rt_cmeas_stop
	RESTORE_LIGHT
END __profinst_cmeas_stop

/* A slot's first external (or call through a pointer, %r11 = 0) node:
 * %r11 = the external's record; returns the node in %r11. */
ENTRY __profinst_cextnew
	.cfi_startproc
	CFI_PUSH %rax
	PUSH_ARGS
	mov %r11, %rdi
	call pi_rt_cextnew
	mov %rax, %r11
	POP_ARGS
	CFI_POP %rax
	ret
	.cfi_endproc
END __profinst_cextnew

/* Before a call (or tail jump) through a pointer to a function other
 * than its site's last (pi_rt_cptr); %r11 is free. */
.macro CPTR tail
	.cfi_startproc
	CFI_PUSH %rax
	PUSH_ARGS
	lea 72(%rsp), %rdi        /* %rsp of the call */
	mov $\tail, %esi
	call pi_rt_cptr
	POP_ARGS
	CFI_POP %rax
	ret
	.cfi_endproc
.endm

/*
 * A call through a pointer whose target the thread's table names (the
 * pointer's node current, %fs:target the target; counting.c, struct
 * ptr_memo): the site keeps that callee, as pi_rt_cptr would make it,
 * and the callee's entry is done here, its node current, its call counted
 * and its frame's node stored, so that the site calls past its entry stub
 * (%fs:target becomes that address).  Anything else (a miss, a table or
 * frames' nodes not there, the runtime busy) goes by pi_rt_cptr.  Four
 * registers saved, %r11 free; the flags are dead.
 */
ENTRY __profinst_cptr
#ifdef PI_PIC_RUNTIME
	CPTR 0
#else
	.cfi_startproc
	CFI_PUSH %rax
	CFI_PUSH %rcx
	CFI_PUSH %rdx
	CFI_PUSH %rsi
	cmpq $0, TLS(TLS_BUSY)            /* busy and dead, one word */
	jne .Lcp_slow
	mov TLS(TLS_MEMO), %rcx
	test %rcx, %rcx
	jz .Lcp_slow
	cmpb $0, TLS(TLS_FRAMES_OFF)
	jne .Lcp_slow
	mov TLS(TLS_CUR), %rax            /* the pointer's node */
	test %rax, %rax
	jz .Lcp_slow
	cmpb $CN_POINTER, CN_PTRSITE(%rax)
	jne .Lcp_slow
	TAKE_BUSY .Lcp_slow_busy          /* (a handler meanwhile leaves the table alone) */
	mov TLS(TLS_TARGET), %rdx
	movabs $STUB_MEMO_MUL, %rsi
	mov %rdx, %r11
	imul %rsi, %r11
	xor %rax, %r11
	imul %rsi, %r11
	shr $(64 - MEMO_BITS), %r11
	and $-MEMO_WAYS, %r11
	shl $5, %r11                      /* four words an entry */
	add %r11, %rcx                    /* the set */
	lea 32*MEMO_WAYS(%rcx), %rsi
1:	cmp %rax, (%rcx)
	jne 2f
	cmp %rdx, 8(%rcx)
	je 3f
2:	add $32, %rcx
	cmp %rsi, %rcx
	jne 1b
	jmp .Lcp_slow_busy
3:	mov 16(%rcx), %r11                /* the callee's node */
	mov 24(%rcx), %rcx                /* past its entry stub, or 0 */
	test %rcx, %rcx
	jz .Lcp_slow_busy
	cmp %rax, CN_PARENT(%r11)         /* (only the right node has this */
	jne .Lcp_slow_busy                /* parent and function: pi_rt_cptr) */
	mov CN_FN(%r11), %rsi
	test %rsi, %rsi
	jz .Lcp_slow_busy
	lea FREC_ADDR(%rsi), %rsi
	add (%rsi), %rsi                  /* its entry (addr[0]: from its word) */
	cmp %rdx, %rsi
	jne .Lcp_slow_busy
	/* the site keeps it, in keep_callee_at's order, the one it kept
	 * before second */
	mov CN_COUNTS+8*PTR_CALLEE(%rax), %rsi
	cmp %rsi, %r11
	je .Lcp_same
	movq $0, CN_COUNTS+8*PTR_ENTRY2(%rax)
	mov %rsi, CN_COUNTS+8*PTR_CALLEE2(%rax)
	mov CN_COUNTS+8*PTR_INNER(%rax), %rsi
	mov %rsi, CN_COUNTS+8*PTR_INNER2(%rax)
	mov CN_COUNTS+8*PTR_ENTRY(%rax), %rsi
	mov %rsi, CN_COUNTS+8*PTR_ENTRY2(%rax)
.Lcp_same:
	movq $0, CN_COUNTS+8*PTR_ENTRY(%rax)
	mov %r11, CN_COUNTS+8*PTR_CALLEE(%rax)
	mov %rcx, CN_COUNTS+8*PTR_INNER(%rax)
	mov %rdx, CN_COUNTS+8*PTR_ENTRY(%rax)
	mov %r11, TLS(TLS_CUR)
	incq CN_CALLS(%r11)
	lea 5*8(%rsp), %rsi               /* the site's %rsp: the callee's CFA */
	add __profinst_frames+FRAMES_DELTA(%rip), %rsi
	mov %r11, (%rsi)
	mov %rcx, TLS(TLS_TARGET)
	movq $0, TLS(TLS_NEXTSP)
	movl $0, TLS(TLS_BUSY)
	.cfi_remember_state
	CFI_POP %rsi
	CFI_POP %rdx
	CFI_POP %rcx
	CFI_POP %rax
	ret
	.cfi_restore_state
.Lcp_slow_busy:
	movl $0, TLS(TLS_BUSY)
.Lcp_slow:
	CFI_POP %rsi
	CFI_POP %rdx
	CFI_POP %rcx
	PUSH_ARGS
	lea 72(%rsp), %rdi                /* %rsp of the call */
	xor %esi, %esi
	call pi_rt_cptr
	POP_ARGS
	CFI_POP %rax
	ret
	.cfi_endproc
#endif
END __profinst_cptr

ENTRY __profinst_cptr_tail
	CPTR 1
END __profinst_cptr_tail

/* Where a function entered from outside returns: the current node goes
 * back, and the return goes on to where it was going. */
ENTRY __profinst_ctramp
	.cfi_startproc
	.cfi_undefined rip
	sub $8, %rsp
	CFI_PUSH %rax
	PUSH_ARGS
	CFI_PUSH %r11
	lea 80(%rsp), %rdi        /* %rsp after the function's ret */
#ifdef PI_PIC_RUNTIME
	call pi_rt_ctramp
	mov %rax, 72(%rsp)
	call pi_rt_cresume        /* (as below) */
#else
	/* The newest record's return, with no nest and nothing of this stack
	 * below it among the others (drop_dead), is taken here, as
	 * pi_rt_ctramp takes it; anything else there. */
	IDLE_OR .Ltr_c
	TAKE_BUSY .Ltr_c_busy
	COUNTING_TABLES %rax, %rcx, .Ltr_c_busy
	cmpl $0, CT_NNEST(%rcx)
	jne .Ltr_c_busy
	mov CT_NTRAMP(%rcx), %edx
	test %edx, %edx
	jz .Ltr_c_busy
	dec %edx
	imul $TRAMP_SIZE, %rdx, %rsi
	add CT_TRAMP(%rcx), %rsi          /* the newest record */
	mov TR_SP(%rsi), %rax
	add $8, %rax
	cmp %rdi, %rax
	jne .Ltr_c_busy
	mov CT_TRAMP(%rcx), %r8
	DEAD_RECORD %r8, %rsi, %rdi, %rax, %r9, .Ltr_c_busy
	mov %edx, CT_NTRAMP(%rcx)         /* it goes; back to before the call */
	mov TR_CUR(%rsi), %rax
	mov %rax, TLS(TLS_CUR)
	mov TR_NEXT(%rsi), %r8
	mov %r8, TLS(TLS_NEXT)
	mov TR_NEXTSP(%rsi), %r8
	mov %r8, TLS(TLS_NEXTSP)
	mov TR_TARGET(%rsi), %r8
	mov %r8, TLS(TLS_TARGET)
	cmpb $0, TR_MEASURED(%rsi)
	je 4f
	test %rax, %rax
	jz 4f
	mov CN_FN(%rax), %r8
	test %r8, %r8
	jz 4f
	cmpw $0, FREC_NPIECES(%r8)
	jne 4f
	mov %rax, TLS(TLS_CRESUME)        /* its clock runs again, below */
4:	mov TR_RA(%rsi), %rax
	movl $0, TLS(TLS_BUSY)
	jmp 5f
.Ltr_c_busy:
	movl $0, TLS(TLS_BUSY)
.Ltr_c:
	call pi_rt_ctramp
5:	mov %rax, 72(%rsp)
	/* back into a timed external: its clock runs again, last of all */
	mov TLS(TLS_CRESUME), %rcx
	test %rcx, %rcx
	jz 1f
	movq $0, TLS(TLS_CRESUME)
	movq $1, TLS(TLS_CBHINT)
	TSC
	mov %rax, CN_SP(%rcx)
1:
#endif
	CFI_POP %r11
	POP_ARGS
	CFI_POP %rax
	ret
	.cfi_endproc
END __profinst_ctramp

	.section .note.GNU-stack,"",@progbits

/* The helpers are only reached by direct calls and return normally: they
 * keep indirect-branch tracking and shadow stacks valid, and say so, so
 * that the linker keeps a CET program's property. */
	.section .note.gnu.property,"a"
	.p2align 3
	.long 4                   /* name size */
	.long 16                  /* descriptor size */
	.long 5                   /* NT_GNU_PROPERTY_TYPE_0 */
	.asciz "GNU"
	.long 0xc0000002          /* GNU_PROPERTY_X86_FEATURE_1_AND */
	.long 4
	.long 3                   /* IBT | SHSTK */
	.p2align 3
