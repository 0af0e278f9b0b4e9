# Frames' nodes (--counts, rewriter/layout.c): only the code after a call
# reads a frame's word.  A call that goes past its callee's entry stub
# leaves the callee's node in %r11, and the callee's start stores it (the
# stub stores it for a call that goes through); a call through a pointer
# to a function its site kept (the last two it called) stores it itself,
# and enters past that.
# So a function that calls nothing has it stored nowhere.  Each function's
# name ends with how many words its entry stub stores, how many its start
# does, then how many its sites store for their callees:
#  - leaf_0_0_0 calls nothing;
#  - calls_leaf_1_1_0 calls leaf_0_0_0 past its stub;
#  - calls_both_1_1_0 calls leaf_0_0_0, then calls_leaf_1_1_0, whose
#    start stores its word;
#  - calls_pointer_1_1_2 calls through a pointer: the site stores the
#    word for either of the two functions it keeps;
#  - tails_pointer_0_0_2 jumps through a pointer (a tail call): likewise,
#    at its own CFA, through %rax, which held the target.
	.text
	.globl	leaf_0_0_0
	.type	leaf_0_0_0, @function
leaf_0_0_0:
	.cfi_startproc
	leaq	1(%rdi), %rax
	ret
	.cfi_endproc
	.size	leaf_0_0_0, .-leaf_0_0_0

	.globl	calls_leaf_1_1_0
	.type	calls_leaf_1_1_0, @function
calls_leaf_1_1_0:
	.cfi_startproc
	pushq	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset 3, -16
	movq	%rdi, %rbx
	call	leaf_0_0_0
	addq	%rbx, %rax
	popq	%rbx
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	calls_leaf_1_1_0, .-calls_leaf_1_1_0

	.globl	calls_both_1_1_0
	.type	calls_both_1_1_0, @function
calls_both_1_1_0:
	.cfi_startproc
	pushq	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset 3, -16
	call	leaf_0_0_0
	movq	%rax, %rbx
	movq	%rax, %rdi
	call	calls_leaf_1_1_0
	addq	%rbx, %rax
	popq	%rbx
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	calls_both_1_1_0, .-calls_both_1_1_0

	.globl	calls_pointer_1_1_2
	.type	calls_pointer_1_1_2, @function
calls_pointer_1_1_2:
	.cfi_startproc
	subq	$8, %rsp
	.cfi_def_cfa_offset 16
	call	*%rdi
	addq	$8, %rsp
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	calls_pointer_1_1_2, .-calls_pointer_1_1_2

	.globl	tails_pointer_0_0_2
	.type	tails_pointer_0_0_2, @function
tails_pointer_0_0_2:
	.cfi_startproc
	movq	%rdi, %rax
	movq	%rsi, %rdi
	jmp	*%rax
	.cfi_endproc
	.size	tails_pointer_0_0_2, .-tails_pointer_0_0_2

	.section	.note.GNU-stack,"",@progbits
