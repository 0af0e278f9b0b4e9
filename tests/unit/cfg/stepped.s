# Counters that a loop's own register keeps (rewriter/stepcount.c): a
# loop that calls nothing and steps a register once in all its code
# counts a block of its by the register's change, where the loop is
# entered and left.
	.text

# a loop of one block stepping two registers: the first found counts it
	.globl	one_block
	.type	one_block, @function
one_block:
	xorl	%eax, %eax	# expect: leader
.Lob:
	addl	(%rdi), %eax	# expect: leader loop stepped rsi 64 -1
	addq	$4, %rdi
	decq	%rsi
	jne	.Lob
	ret	# expect: leader
	.size	one_block, .-one_block

# a loop that calls: the call may not return (longjmp), and the
# register may not be kept through it: the head keeps its counter
	.globl	calls
	.type	calls, @function
calls:
	pushq	%rbx	# expect: leader
	movl	%edi, %ebx
.Lca:
	call	other	# expect: leader loop flow-of +25 +29 -31
	subl	$1, %ebx	# expect: leader loop
	jne	.Lca
	popq	%rbx	# expect: leader
	ret
	.size	calls, .-calls

# a register written twice in the loop, one 32-bit register stepped by 2
# (its turns are known modulo 2^31 only), one 64-bit register stepped by
# 12 (not a power of two): none counts
	.globl	unsteady
	.type	unsteady, @function
unsteady:
	xorl	%eax, %eax	# expect: leader
	xorl	%ecx, %ecx
.Lun:
	addl	$1, %eax	# expect: leader loop
	addl	$1, %eax
	addl	$2, %ecx
	addq	$12, %rdi
	cmpq	%rsi, %rdi
	jb	.Lun
	addl	%ecx, %eax	# expect: leader
	ret
	.size	unsteady, .-unsteady

# a pointer stepped by 8: the turns are its change shifted by 3
	.globl	by_eight
	.type	by_eight, @function
by_eight:
	xorl	%eax, %eax	# expect: leader
.Lbe:
	addq	(%rdi), %rax	# expect: leader loop stepped rdi 64 8
	leaq	8(%rdi), %rdi
	cmpq	%rsi, %rdi
	jne	.Lbe
	ret	# expect: leader
	.size	by_eight, .-by_eight

# a register stepped on some turns only counts the block it is stepped
# in, not the loop's head
	.globl	some_turns
	.type	some_turns, @function
some_turns:
	xorl	%ecx, %ecx	# expect: leader
.Lst:
	movl	(%rdi), %eax	# expect: leader loop
	testl	%eax, %eax
	je	.Lst_skip
	incl	%ecx	# expect: leader loop stepped rcx 32 1
.Lst_skip:
	leaq	4(%rdi,%rdx), %rdi	# expect: leader loop count-of 74
	cmpq	%rsi, %rdi
	jb	.Lst
	movl	%ecx, %eax	# expect: leader
	ret
	.size	some_turns, .-some_turns

# the status flags live where the loop is left (sete reads them): no
# stub may go there
	.globl	flags_out
	.type	flags_out, @function
flags_out:
	xorl	%eax, %eax	# expect: leader
.Lfo:
	addq	$1, %rax	# expect: leader loop
	cmpl	%esi, (%rdi,%rax,4)
	jne	.Lfo
	sete	%al	# expect: leader flags-live ZF
	ret
	.size	flags_out, .-flags_out

# a loop inside another: each loop's register counts its own last block
# (the outer loop's head takes the flow into it)
	.globl	nested
	.type	nested, @function
nested:
	xorl	%eax, %eax	# expect: leader
.Lne_row:
	movq	%rsi, %rcx	# expect: leader loop flow-of +105 +112 -115
.Lne_col:
	addl	(%rdi,%rcx,4), %eax	# expect: leader loop stepped rcx 64 -1
	subq	$1, %rcx
	jne	.Lne_col
	addq	$64, %rdi	# expect: leader loop stepped rdx 32 -1
	subl	$1, %edx
	jne	.Lne_row
	ret	# expect: leader
	.size	nested, .-nested

	.section	.note.GNU-stack,"",@progbits
