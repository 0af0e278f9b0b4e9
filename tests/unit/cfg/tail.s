# Tail calls: a jump out of its function, a jump to its own entry, an
# indirect jump in a function without jump tables; not a jump inside.
	.text
	.globl	callee
	.type	callee, @function
callee:
	leal	1(%rdi), %eax		# expect: leader
	ret
	.size	callee, .-callee

	.globl	sibling
	.type	sibling, @function
sibling:
	testl	%edi, %edi		# expect: leader
	je	.Lzero
	addl	$2, %edi		# expect: leader count-of 14 minus 19
	jmp	callee			# expect: tail
.Lzero:
	jmp	.Lout			# expect: leader
.Lout:
	xorl	%eax, %eax		# expect: leader count-of 19
	ret
	.size	sibling, .-sibling

# a jump back to its own entry is a new call of itself; its block runs
# again at once, so it is costed as a loop's
	.globl	self_loop
	.type	self_loop, @function
self_loop:
	subl	$1, %edi		# expect: leader loop
	jg	self_loop		# expect: tail
	movl	%edi, %eax		# expect: leader
	ret
	.size	self_loop, .-self_loop

# through a pointer, with nothing in the function to go to
	.globl	through_pointer
	.type	through_pointer, @function
through_pointer:
	movq	%rsi, %rax		# expect: leader
	jmp	*%rax			# expect: tail
	.size	through_pointer, .-through_pointer

# a jump to an external symbol (the assembler leaves a relocation)
	.globl	to_external
	.type	to_external, @function
to_external:
	movl	$5, %edi		# expect: leader
	jmp	abort			# expect: tail
	.size	to_external, .-to_external
