# Frames' nodes (--counts, rewriter/layout.c): only the code after a call
# reads a frame's word, so a function that calls nothing has it stored by
# neither its entry stub nor a site of this object going past that stub.
# Each function's name ends with how many words its entry stub stores,
# then how many its sites store for their callees:
#  - leaf_0_0 calls nothing;
#  - calls_leaf_1_0 calls leaf_0_0 past its stub, storing nothing for it;
#  - calls_both_1_1 calls leaf_0_0, then calls_leaf_1_0, whose word it
#    stores (the code after that function's call reads it).
	.text
	.globl	leaf_0_0
	.type	leaf_0_0, @function
leaf_0_0:
	.cfi_startproc
	leaq	1(%rdi), %rax
	ret
	.cfi_endproc
	.size	leaf_0_0, .-leaf_0_0

	.globl	calls_leaf_1_0
	.type	calls_leaf_1_0, @function
calls_leaf_1_0:
	.cfi_startproc
	pushq	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset 3, -16
	movq	%rdi, %rbx
	call	leaf_0_0
	addq	%rbx, %rax
	popq	%rbx
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	calls_leaf_1_0, .-calls_leaf_1_0

	.globl	calls_both_1_1
	.type	calls_both_1_1, @function
calls_both_1_1:
	.cfi_startproc
	pushq	%rbx
	.cfi_def_cfa_offset 16
	.cfi_offset 3, -16
	call	leaf_0_0
	movq	%rax, %rbx
	movq	%rax, %rdi
	call	calls_leaf_1_0
	addq	%rbx, %rax
	popq	%rbx
	.cfi_def_cfa_offset 8
	ret
	.cfi_endproc
	.size	calls_both_1_1, .-calls_both_1_1

	.section	.note.GNU-stack,"",@progbits
