# One of each place the rewriter puts a stub (runtime/stub_abi.h), under
# --branch-sim and --cache-sim: entries, a return, a conditional jump, a
# load that waits for a load, a direct and an indirect tail call, a call
# out of the object, an indirect call, a rep string op, a system call, a
# call that ends the process image and one that returns twice; blocks
# that keep live flags, a call the model costs, a tail call out.
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

# flags live across a block's start: the block stub keeps them; and a
# function that reads flags it did not set enters through
# __profinst_enter_flags
	.globl	keeps_flags
	.type	keeps_flags, @function
keeps_flags:
	jmp	.Lread
.Lread:
	setb	%al
	cmpl	%esi, %edi
	jmp	.Lcarry
.Lcarry:
	adcl	$0, %eax
	ret
	.size	keeps_flags, .-keeps_flags

# a call the model costs (strlen: a fixed cost and one per byte), and
# tail jumps out of the object, which become calls: to a function the
# model costs (free, whose arguments are all in registers) and to one it
# does not (qsort)
	.globl	outside
	.type	outside, @function
outside:
	pushq	%rbx
	call	strlen
	popq	%rbx
	testq	%rax, %rax
	je	.Lsort
	jmp	free
.Lsort:
	jmp	qsort
	.size	outside, .-outside
