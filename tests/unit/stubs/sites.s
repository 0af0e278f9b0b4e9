# One of each place the rewriter puts a stub (runtime/stub_abi.h), under
# --branch-sim and --cache-sim: entries, a return, a conditional jump, a
# load that waits for a load, a direct and an indirect tail call, a call
# out of the object, an indirect call, a rep string op, a system call, a
# call that ends the process image and one that returns twice.
	.text
	.globl	leaf
	.type	leaf, @function
leaf:
	movq	(%rdi), %rax
	movq	(%rax), %rax
	testq	%rax, %rax
	je	.Lzero
	ret
.Lzero:
	jmp	other
	.size	leaf, .-leaf

	.globl	other
	.type	other, @function
other:
	pushq	%rbx
	movq	%rdi, %rbx
	call	puts
	call	*%rbx
	movq	%rbx, %rdi
	movl	$16, %ecx
	rep movsb
	movl	$39, %eax
	syscall
	movq	%rbx, %rdi
	call	_setjmp
	testl	%eax, %eax
	jne	.Lexit
	popq	%rbx
	jmp	*%rax
.Lexit:
	xorl	%edi, %edi
	call	_exit
	.size	other, .-other
