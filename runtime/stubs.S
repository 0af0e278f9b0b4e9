/* SPDX-License-Identifier: MIT */
/*
 * Helpers called by the stubs the rewriter inserts (see stub_abi.h).  Each
 * saves every general register and the flags, aligns the stack and calls
 * the C half, which is compiled with -mgeneral-regs-only so that vector
 * and x87 state are never touched.
 */
	.text

/* The full save, for helpers that run where the flags may be live (after
 * a string op, at a landing pad): every register, the flags, and a stack
 * aligned for the C half. */
.macro SAVE
	.cfi_startproc
	pushfq
	.cfi_adjust_cfa_offset 8
	SAVE_GPRS
	push %rbx
	.cfi_adjust_cfa_offset 8
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
	pop %rbx
	.cfi_adjust_cfa_offset -8
	RESTORE_GPRS
	popfq
	.cfi_adjust_cfa_offset -8
	ret
	.cfi_endproc
.endm

/* The light save, at function entry, ret and tail jumps, where the ABI says
 * the status flags are dead and DF is clear: only the registers the C half
 * (compiled -mgeneral-regs-only, so it needs no stack alignment) may
 * clobber.  %rsp + 72 is the helper's entry %rsp. */
.macro SAVE_LIGHT
	.cfi_startproc
	SAVE_GPRS
.endm

.macro RESTORE_LIGHT
	RESTORE_GPRS
	ret
	.cfi_endproc
.endm

.macro SAVE_GPRS
	push %rax
	.cfi_adjust_cfa_offset 8
	push %rcx
	.cfi_adjust_cfa_offset 8
	push %rdx
	.cfi_adjust_cfa_offset 8
	push %rsi
	.cfi_adjust_cfa_offset 8
	push %rdi
	.cfi_adjust_cfa_offset 8
	push %r8
	.cfi_adjust_cfa_offset 8
	push %r9
	.cfi_adjust_cfa_offset 8
	push %r10
	.cfi_adjust_cfa_offset 8
	push %r11
	.cfi_adjust_cfa_offset 8
.endm

.macro RESTORE_GPRS
	pop %r11
	.cfi_adjust_cfa_offset -8
	pop %r10
	.cfi_adjust_cfa_offset -8
	pop %r9
	.cfi_adjust_cfa_offset -8
	pop %r8
	.cfi_adjust_cfa_offset -8
	pop %rdi
	.cfi_adjust_cfa_offset -8
	pop %rsi
	.cfi_adjust_cfa_offset -8
	pop %rdx
	.cfi_adjust_cfa_offset -8
	pop %rcx
	.cfi_adjust_cfa_offset -8
	pop %rax
	.cfi_adjust_cfa_offset -8
.endm

	.globl __profinst_enter
	.hidden __profinst_enter
	.type __profinst_enter, @function
__profinst_enter:
	SAVE_LIGHT
	mov %r11, %rdi            /* funcrec */
	lea 88(%rsp), %rsi        /* the function's %rsp at entry (72 + 16) */
	mov (%rsi), %rdx          /* its return address */
	call pi_rt_enter
	RESTORE_LIGHT
	.size __profinst_enter, .-__profinst_enter

/* The same, where the function's first block reads flags it did not set. */
	.globl __profinst_enter_flags
	.hidden __profinst_enter_flags
	.type __profinst_enter_flags, @function
__profinst_enter_flags:
	SAVE
	mov %r11, %rdi
	lea 104(%rbx), %rsi       /* 88 + 16 */
	mov (%rsi), %rdx
	call pi_rt_enter
	RESTORE
	.size __profinst_enter_flags, .-__profinst_enter_flags

	.globl __profinst_exit
	.hidden __profinst_exit
	.type __profinst_exit, @function
__profinst_exit:
	SAVE_LIGHT
	lea 80(%rsp), %rdi        /* the function's %rsp at its ret (72 + 8) */
	call pi_rt_exit
	RESTORE_LIGHT
	.size __profinst_exit, .-__profinst_exit

	.globl __profinst_tailexit
	.hidden __profinst_tailexit
	.type __profinst_tailexit, @function
__profinst_tailexit:
	SAVE                      /* the function jumped to may read the flags */
	mov %r11, %rdi            /* funcrec of the function leaving */
	lea 112(%rbx), %rsi       /* its %rsp: where its return address is (88 + 24) */
	mov 104(%rbx), %rdx       /* where the jump goes (88 + 16) */
	call pi_rt_tailexit
	RESTORE
	.size __profinst_tailexit, .-__profinst_tailexit

	.globl __profinst_rep
	.hidden __profinst_rep
	.type __profinst_rep, @function
__profinst_rep:
	SAVE
	mov %r11, %rdi            /* kind */
	mov %rcx, %rsi            /* %rcx after the string op */
	mov 80(%rbx), %rdx        /* the flags it left */
	call pi_rt_rep
	RESTORE
	.size __profinst_rep, .-__profinst_rep

	.globl __profinst_resync
	.hidden __profinst_resync
	.type __profinst_resync, @function
__profinst_resync:
	SAVE
	lea 224(%rbx), %rdi       /* %rsp of the code resuming */
	call pi_rt_resync
	RESTORE
	.size __profinst_resync, .-__profinst_resync

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
