/* SPDX-License-Identifier: MIT */
/*
 * The contract between the stubs the rewriter inserts and the runtime.
 *
 * Thread-local block __profinst_tls (struct pi_tls in the runtime):
 *   +0  uint64_t clock    the thread's virtual cycle clock; a block stub adds
 *                         its cost with `addq $c, %fs:__profinst_tls@tpoff`
 *                         or to one of the clock's parts (+144, +152, +160:
 *                         STUB_TLS_CLOCKPART), by its block's index
 *   +8  uint64_t repsave  %rcx saved before a rep-prefixed string op
 *
 * Entry stub   push %r11; lea funcrec(%rip),%r11; call __profinst_enter; pop %r11
 *              -> in the helper: %r11 = struct pi_funcrec *, 16(%rsp) = the
 *                 function's return address.
 * Exit stub    call __profinst_exit, right before a ret
 *              -> 8(%rsp) = the function's return address.
 * Tail stub    [push target]; push %r11; lea funcrec(%rip),%r11;
 *              call __profinst_tailexit; pop %r11; lea 8(%rsp),%rsp; jmp ...
 *              -> %r11 = funcrec of the function leaving, 16(%rsp) = where
 *                 the jump goes, 24(%rsp) = the function's return address.
 *              Through a pointer (jmp *reg, jmp *mem), it ends
 *              pop %r11; pop %r11; jmp *%r11 instead: where the jump goes
 *              out of instrumented code, the helper puts there the thunk
 *              that times the target as an external (runtime/targets.c).
 * Rep stub     mov %rcx,%fs:repsave; REP OP;
 *              lea -128(%rsp),%rsp; push %r11; mov $kind,%r11d;
 *              call __profinst_rep; pop %r11; lea 128(%rsp),%rsp
 *
 * Resync     lea -128(%rsp),%rsp; call __profinst_resync; lea 128(%rsp),%rsp
 *              where control arrives without a call or return (the second
 *              return of setjmp, exception landing pads)
 *              -> 136(%rsp) is the %rsp of the code that resumes: frames
 *                 below it are dead.
 *
 * Flush      lea -128(%rsp),%rsp; call __profinst_flush; lea 128(%rsp),%rsp
 *              before a call or jump to _exit, _Exit, quick_exit or exec*:
 *              the profile is written, as the process image ends there.
 *
 * Branch     lea -128(%rsp),%rsp; push %r11; push $counter@tpoff;
 *              movabs $word,%r11; setCC %r11b; call __profinst_branch;
 *              lea 8(%rsp),%rsp; pop %r11; lea 128(%rsp),%rsp
 *              right before a conditional jump jCC, under --branch-sim:
 *              -> 8(%rsp) = the TLS offset of the block's count of
 *                 mispredictions (format.h, pi_counters);
 *                 %r11 = the word: bit 0 whether the jump is taken, bits
 *                 8-22 the model's mispredict cost (clock units), bit 23
 *                 whether the jump tests what a modelled external call
 *                 returned (a misprediction is the external's time,
 *                 rewriter/external.h), bits 24-63 the branch's address
 *                 as the predictor sees it.
 *
 * Load       lea -128(%rsp),%rsp; push %r11; lea ADDR,%r11; push $word;
 *              push $counter@tpoff; call __profinst_load;
 *              lea 16(%rsp),%rsp; pop %r11; lea 128(%rsp),%rsp
 *              right before a load that waits for another load, or that
 *              one waits for, or a store at an address computed from a
 *              load, under --cache-sim (rewriter/chase.h): ADDR is the
 *              access's memory operand (never %rsp-based).
 *              -> %r11 = the address loaded, 16(%rsp) = the word: bits
 *                 16-31 the slot of the loads it waits for, bits 0-15 the
 *                 slot its own completion goes to (0: none); 8(%rsp) =
 *                 the TLS offset of the block's memory waits.
 *
 * External call  lea extrec(%rip),%r11; call __profinst_ext_enter;
 *              CALL (as it was); call __profinst_ext_exit
 *              around a call that leaves instrumented code.  %r11 is free
 *              at a call (not an argument, clobbered by PLT code); the red
 *              zone is dead there.  -> in the enter helper, %r11 = the
 *              external's record, (%rsp) = the address of CALL, and
 *              %rsp is the callee's %rsp at its entry; in the exit helper
 *              %rsp + 8 is that %rsp again.  The exit helper keeps the
 *              return registers (%rax, %rdx; vector and x87 are never
 *              touched).
 *
 * Indirect call   mov TARGET,%r11; cmpl $SIG,4(%r11); je 1f;
 *              cmpl $SIG,(%r11); je 1f; call __profinst_icall;
 *              1: call *%r11
 *              in place of call *TARGET (a register or memory operand) in
 *              an instrumented function: a target that begins as an
 *              instrumented entry (STUB_ENTRY_SIG, after an endbr64 or
 *              not) is called at once, and its entry stub counts the
 *              call.  Otherwise the helper -> %r11 = the target, (%rsp) =
 *              the address of call *%r11; it returns in %r11 what to call:
 *              the target itself (instrumented after all, or not
 *              recorded), or a runtime thunk that calls the target as an
 *              external, timed (runtime/targets.c).  The status flags are
 *              dead at a call by the ABI.
 *
 * Syscall      lea -128(%rsp),%rsp; call __profinst_sys_enter;
 *              lea 128(%rsp),%rsp; syscall; lea -128(%rsp),%rsp;
 *              call __profinst_sys_exit; lea 128(%rsp),%rsp
 *              -> %rax (the system call's number) is read at enter.
 *
 * Under a model whose calls and returns are the runtime's (pi_objdesc's
 * call_bubble, ret_bubble), the entry helper adds a call's bubble to the
 * clock before the callee's frame opens (not where a tail call jumped in),
 * the exit helper a return's after the frame closes; but a function that
 * called others keeps both, its frame closing after the return's and its
 * entry moved back by the call's (runtime/frontend.c).
 *
 * Under --counts (runtime/counting.c) the stubs keep the calling-context
 * tree themselves, through the thread's current node (%fs:cur), and
 * count instead of adding to the clock.  Where %r11 may be live (the
 * object uses it anywhere), each stub keeps it below the red zone.
 * Entry      push %r11; cmp %rsp,%fs:nextsp; jne 1f; mov %fs:next,%r11;
 *              mov (%r11),%r11; test %r11,%r11; je 1f; mov %r11,%fs:cur;
 *              incq calls(%r11); [mov %rsp,sp(%r11)]; movq $0,%fs:nextsp;
 *              pop %r11; jmp 2f;
 *              1: lea funcrec(%rip),%r11; call __profinst_centry; pop %r11; 2:
 *              (flags saved with lahf/seto around it where the first block
 *              reads them, and __profinst_centry_flags; %rsp stored in
 *              the node by functions with resync points)
 * Block      mov %fs:cur,%R; incq counts+8*i(%R)  (i: the block's index
 *              in its function, R a register dead there, else %r11 kept
 *              below the red zone; the flags kept in %al with lahf/seto
 *              where live)
 * Call       mov %fs:cur,%r11; lea slot(%r11),%r11; mov %r11,%fs:next;
 *              lea -16(%rsp),%r11; mov %r11,%fs:nextsp; CALL;
 *              mov %fs:cur,%r11; mov fparent(%r11),%r11; mov %r11,%fs:cur
 *              for a direct call to an instrumented function (a direct
 *              tail jump: the same with -8, and nothing after).  Where
 *              %r11 is dead: mov %fs:cur,%r11; mov slot(%r11),%r11;
 *              test %r11,%r11; jz 1f; mov %r11,%fs:cur; incq calls(%r11);
 *              call past its entry stub (another object's function:
 *              NAME.pi_inner, hidden, defined there); jmp 2f;
 *              1: the above; 2: after
 * External   mov %fs:cur,%r11; lea slot(%r11),%r11; mov %r11,%fs:next;
 *              mov (%r11),%r11; test %r11,%r11; jnz 1f;
 *              lea extrec(%rip),%r11; call __profinst_cextnew;
 *              1: incq calls(%r11); [add %ARG,counts+8(%r11)];
 *              mov %r11,%fs:cur; [call __profinst_cmeas_start]; CALL;
 *              [call __profinst_cmeas_stop]; and the call's after
 *              (a call through a pointer: the same with %r11 = 0 for the
 *              record and no count, then lea -15(%rsp),%r11;
 *              mov %r11,%fs:nextsp, odd: the runtime settles the entry)
 * Resync     lea -128(%rsp),%rsp; lea funcrec(%rip),%r11;
 *              call __profinst_cresync; lea 128(%rsp),%rsp
 * A ret, and a jump out of instrumented code, have no stub.
 *
 * Every helper preserves every register.  The status flags are dead at a
 * function's entry and at its ret by the ABI, so __profinst_enter and
 * __profinst_exit may change them; where liveness shows a function reading
 * flags it did not set, its entry stub calls __profinst_enter_flags
 * instead.  The other helpers preserve the flags.
 */
#ifndef PI_STUB_ABI_H
#define PI_STUB_ABI_H

#define STUB_TLS_SYMBOL "__profinst_tls"
#define STUB_ENTER_SYMBOL "__profinst_enter"
#define STUB_ENTER_FLAGS_SYMBOL "__profinst_enter_flags"
#define STUB_EXIT_SYMBOL "__profinst_exit"
#define STUB_TAILEXIT_SYMBOL "__profinst_tailexit"
#define STUB_REP_SYMBOL "__profinst_rep"
#define STUB_RESYNC_SYMBOL "__profinst_resync"
#define STUB_FLUSH_SYMBOL "__profinst_flush"
#define STUB_BRANCH_SYMBOL "__profinst_branch"
#define STUB_LOAD_SYMBOL "__profinst_load"
#define STUB_EXT_ENTER_SYMBOL "__profinst_ext_enter"
#define STUB_EXT_EXIT_SYMBOL "__profinst_ext_exit"
#define STUB_EXT_EXIT_FIXED_SYMBOL "__profinst_ext_exit_fixed" /* for PI_EXT_FIXED externals */
#define STUB_SYS_ENTER_SYMBOL "__profinst_sys_enter"
#define STUB_SYS_EXIT_SYMBOL "__profinst_sys_exit"
#define STUB_ICALL_SYMBOL "__profinst_icall"
/* What every instrumented entry begins with, after an endbr64 if it has
 * one: push %r11; lea ...(%rip),%r11 (41 53 4c 8d), as a little-endian
 * 32-bit word: the indirect-call stub compares the target's first bytes
 * with it. */
#define STUB_ENTRY_SIG 0x8d4c5341u

#define STUB_TLS_CLOCK 0
#define STUB_TLS_REPSAVE 8
/* The clock is four words: STUB_TLS_CLOCK and three parts after this.  A
 * block stub adds its cost to the one of its block's index modulo 4, so
 * that blocks running one after another do not each wait for the last
 * one's add to memory (a chain of read-modify-writes through one word);
 * every helper that reads the clock adds the parts into it first. */
#define STUB_TLS_CLOCKPART 144
#define STUB_CLOCK_PARTS 4

/* --counts (runtime/counting.c): the thread's current node, the slot a
 * call site names, the callee's %rsp (past its push of %r11) at the
 * entry that is the site's call; and the node's fields the stubs use. */
#define STUB_TLS_CUR 176
#define STUB_TLS_NEXT 184
#define STUB_TLS_NEXTSP 192
#define STUB_TLS_TARGET 200 /* a call through a pointer's target */
/* Nonzero once a frame of the thread could not keep its node
 * (framenodes.c): a byte. */
#define STUB_TLS_FRAMES_OFF 216
/* The thread's table of pointers' callees (runtime/counting.c, struct
 * ptr_memo), which __profinst_cptr's fast path searches: 1 << BITS entries
 * of four words (a pointer's node, a target, the target's node under it,
 * the address past its entry stub), in sets of WAYS; a set is
 * ((node ^ target * MUL) * MUL) >> (64 - BITS), its ways aligned. */
#define STUB_TLS_MEMO 224
#define STUB_MEMO_BITS 11
#define STUB_MEMO_WAYS 4
#define STUB_MEMO_MUL 0x9e3779b97f4a7c15
/* struct pi_frames (rt.h): where each frame keeps its node. */
#define STUB_FRAMES_SYMBOL "__profinst_frames"
#define STUB_FRAMES_LO 0
#define STUB_FRAMES_LEN 8
#define STUB_FRAMES_BASE 16
#define STUB_FRAMES_DELTA 24
#define STUB_CFRAME_SYMBOL "__profinst_cframe"
#define STUB_CN_FN 0
#define STUB_CN_FPARENT 8
#define STUB_CN_CALLS 24
#define STUB_CN_PTRSITE 67 /* 8 bits, what kind of node (rt.h, rt_cnode.ptrsite): */
#define STUB_CN_POINTER 1  /* a call through a pointer's, whose first count is
			      its last callee's node */
#define STUB_CN_PTR_EXT 2  /* an external's called through a pointer, timed */
#define STUB_CN_OUTERMOST 3 /* a function's entered with nothing instrumented
			       below it (rt_cnode.root_ra) */
/* A pointer's node's words (its counts): the node of the function its
 * site called last; the entry of that function and the address past its
 * entry stub, where the site may call it itself (0: it may not) */
#define STUB_PTR_CALLEE 0
#define STUB_PTR_ENTRY 2
#define STUB_PTR_INNER 3
/* and the one it called before that (a site alternating between two
 * functions, a merge's comparison and another's, calls both itself) */
#define STUB_PTR_CALLEE2 4
#define STUB_PTR_ENTRY2 5
#define STUB_PTR_INNER2 6
#define STUB_PTR_WORDS 7
#define STUB_CN_SP 40
#define STUB_CN_WAIT_SP 104 /* an external's counts[4]: its clock, when it runs as a wait */
#define STUB_CN_COUNTS 72
#define STUB_FR_ADDR0 16 /* struct pi_funcrec's addr[0]: the entry */
#define STUB_CENTRY_SYMBOL "__profinst_centry"
#define STUB_CENTRY_FLAGS_SYMBOL "__profinst_centry_flags"
#define STUB_PENTRY_SYMBOL "__profinst_pentry" /* a shared object's entry (-shared) */
#define STUB_CEXTNEW_SYMBOL "__profinst_cextnew"
#define STUB_CPTR_SYMBOL "__profinst_cptr"
#define STUB_CPTR_TAIL_SYMBOL "__profinst_cptr_tail"
/* a 32-bit word, nonzero once the program set a locale (PI_EXT_LOCALE) */
#define STUB_LOCALE_SET_SYMBOL "rt_locale_set"
/* a pointer to a byte, nonzero while the process has one thread
 * (PI_EXT_SOLO) */
#define STUB_SOLO_WORD_SYMBOL "rt_solo_word"
#define STUB_CRESYNC_SYMBOL "__profinst_cresync"
#define STUB_CPARK_SYMBOL "__profinst_cpark"
#define STUB_CUNPARK_SYMBOL "__profinst_cunpark"
#define STUB_CMEAS_START_SYMBOL "__profinst_cmeas_start"
#define STUB_CMEAS_STOP_SYMBOL "__profinst_cmeas_stop"

/* kind passed to __profinst_rep: bits 0-1 enum rep_kind (1 rep, 2 repe,
 * 3 repne), bit 2 count passes as valgrind does, bits 8-31 per-iteration
 * cost in cycles. */
#define STUB_REP_PASSES 0x4
#define STUB_BRANCH_COST_SHIFT 8
#define STUB_BRANCH_COST_MAX 0x7fff
#define STUB_BRANCH_EXT_RESULT (1u << 23)
#define STUB_BRANCH_SITE_SHIFT 24
#define STUB_REP_COST_SHIFT 8
/* the word pushed before __profinst_load */
#define STUB_LOAD_WAIT_SHIFT 16
#define STUB_LOAD_SLOT_MASK 0xffffu

#endif
