# Leaders of plain control flow: a function's entry, branch targets, what
# follows a branch, a call or a return; and which flags a block needs.
	.text
	.globl	count_down
	.type	count_down, @function
count_down:
	xorl	%eax, %eax		# expect: leader
.Lloop:
	addl	%edi, %eax		# expect: leader loop stepped rdi 32 -1
	subl	$1, %edi
	jne	.Lloop
	ret				# expect: leader
	.size	count_down, .-count_down

# a compare in one block and its jump in the next: ZF is live across
	.globl	split_compare
	.type	split_compare, @function
split_compare:
	cmpl	%esi, %edi		# expect: leader
	jmp	.Ltest
.Lfar:
	movl	$1, %eax		# expect: leader count-of 19 minus 26
	ret
.Ltest:
	je	.Lfar			# expect: leader flags-live ZF count-of 19
	xorl	%eax, %eax		# expect: leader
	ret
	.size	split_compare, .-split_compare

# a call ends a block, and the callee leaves the flags as it likes: the
# setb after it reads the callee's CF (live where its block starts), the
# compare before it is dead
	.globl	calls_between
	.type	calls_between, @function
calls_between:
	pushq	%rbx			# expect: leader
	cmpl	$3, %edi
	call	count_down
	setb	%bl			# expect: leader flags-live CF
	movzbl	%bl, %eax
	popq	%rbx
	ret
	.size	calls_between, .-calls_between

# setjmp returns twice: where it returns is reached again by longjmp,
# with frames on the shadow stack that are gone
	.globl	saves_context
	.type	saves_context, @function
saves_context:
	subq	$8, %rsp		# expect: leader
	call	_setjmp
	addq	$8, %rsp		# expect: leader resync
	ret
	.size	saves_context, .-saves_context
