/* SPDX-License-Identifier: MIT */
/*
 * Helpers called by the stubs the rewriter inserts (see stub_abi.h).  Each
 * saves every general register and the flags, aligns the stack and calls
 * the C half, which is compiled with -mgeneral-regs-only so that vector
 * and x87 state are never touched.
 */
	.text

.macro SAVE
	.cfi_startproc
	pushfq
	.cfi_adjust_cfa_offset 8
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
	pop %r11
	pop %r10
	pop %r9
	pop %r8
	pop %rdi
	pop %rsi
	pop %rdx
	pop %rcx
	pop %rax
	popfq
	ret
	.cfi_endproc
.endm

	.globl __profinst_enter
	.hidden __profinst_enter
	.type __profinst_enter, @function
__profinst_enter:
	SAVE
	mov %r11, %rdi            /* funcrec */
	lea 104(%rbx), %rsi       /* the function's %rsp at entry */
	mov (%rsi), %rdx          /* its return address */
	call pi_rt_enter
	RESTORE
	.size __profinst_enter, .-__profinst_enter

	.globl __profinst_exit
	.hidden __profinst_exit
	.type __profinst_exit, @function
__profinst_exit:
	SAVE
	lea 96(%rbx), %rdi        /* the function's %rsp at its ret */
	call pi_rt_exit
	RESTORE
	.size __profinst_exit, .-__profinst_exit

	.globl __profinst_tailexit
	.hidden __profinst_tailexit
	.type __profinst_tailexit, @function
__profinst_tailexit:
	SAVE
	mov %r11, %rdi            /* funcrec of the function leaving */
	lea 112(%rbx), %rsi       /* its %rsp: where its return address is */
	mov 104(%rbx), %rdx       /* where the jump goes */
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
