# The current node kept in a register across blocks (--counts,
# rewriter/layout.c settle_cur): each function names how many times its
# blocks' new code loads the node from the thread's word (mov %fs:cur,%R)
# past its call.  Each calls a function of another object first: the
# code after the call finds the caller's node and leaves it in %r11.
#  - kept_loop_0: the loop's head, entered by falling out of the block
#    after the call and by the loop's own jump back, both leaving the
#    node in %r11, takes it from there;
#  - lost_loop_2: the same loop, but its body writes %r11 after the
#    head's counter: the head loads the node, and so does the block
#    after the loop;
#  - kept_join_0: a block entered by two jumps, from a loop's head and
#    from the block before the loop, each leaving the node in %r11;
#  - fixed_loop_1: a loop whose head is entered by the jump back from the
#    body's end, which leaves the node in %r11, and by falling from the
#    block before it, which writes %r11: that block loads the node again
#    as it leaves, and nothing inside the loop loads it (the test looks);
#  - table_0: the cases of a switch, reached only by the jump through its
#    table (in .rodata: only data takes their addresses), take the node
#    from the register the jump leaves it in;
#  - coded_1: a block the function's indirect jump reaches, whose address
#    code takes (a lea, as a hand-written return address would be): it
#    loads the node, for it may be entered ways no edge shows.
# And from the start, past the entry stub, to the end (layout.c,
# entry_reg: every way in leaves the node in a register):
#  - entry_free_0: a function whose counter takes the node from %r11,
#    which is dead where it starts: no load;
#  - entry_other_0: the same code, but its caller in this object (keeper)
#    keeps a value in %r11 through it, as gcc's interprocedural
#    allocation may: the entry stub keeps %r11, and the node comes in
#    another scratch register, which the code does not write: no load;
#  - entry_none_1: the same again, but its first block writes every
#    other scratch register: no register to take, and its counter loads
#    the node.
# (The loops shift their registers rather than step them: a loop that
# steps a register keeps its counter in it, with no stub inside the
# loop at all: rewriter/stepcount.h.)
	.text
	.globl	kept_loop_0
	.type	kept_loop_0, @function
kept_loop_0:
	pushq	%rbx
	movl	%edi, %ebx
	call	other@PLT
	xorl	%eax, %eax
.L1head:
	addl	%ebx, %eax
	shrl	%ebx
	jne	.L1head
	popq	%rbx
	ret
	.size	kept_loop_0, .-kept_loop_0

	.globl	lost_loop_2
	.type	lost_loop_2, @function
lost_loop_2:
	pushq	%rbx
	movl	%edi, %ebx
	call	other@PLT
	xorl	%eax, %eax
.L2head:
	addl	%ebx, %eax
	movq	$1, %r11
	addl	%r11d, %eax
	shrl	%ebx
	jne	.L2head
	popq	%rbx
	ret
	.size	lost_loop_2, .-lost_loop_2

	.globl	kept_join_0
	.type	kept_join_0, @function
kept_join_0:
	pushq	%rbx
	movl	%edi, %ebx
	call	other@PLT
	xorl	%eax, %eax
	testl	%ebx, %ebx
	js	.L3join
.L3head:
	addl	%ebx, %eax
	cmpl	$100, %eax
	jg	.L3join
	shrl	%ebx
	jne	.L3head
	popq	%rbx
	ret
.L3join:
	negl	%eax
	popq	%rbx
	ret
	.size	kept_join_0, .-kept_join_0

	.globl	fixed_loop_1
	.type	fixed_loop_1, @function
fixed_loop_1:
	pushq	%rbx
	movl	%edi, %ebx
	call	other@PLT
	xorl	%eax, %eax
	movq	$7, %r11
	addl	%r11d, %eax
.L4head:
	testl	%ebx, %ebx
	je	.L4out
	addl	%ebx, %eax
	shrl	%ebx
	jmp	.L4head
.L4out:
	popq	%rbx
	ret
	.size	fixed_loop_1, .-fixed_loop_1

	.globl	table_0
	.type	table_0, @function
table_0:
	pushq	%rbx
	movl	%edi, %ebx
	call	other@PLT
	andl	$3, %ebx
	leaq	.L5tab(%rip), %rdx
	movslq	(%rdx,%rbx,4), %rax
	addq	%rdx, %rax
	jmp	*%rax
.L5a:
	movl	$1, %eax
	popq	%rbx
	ret
.L5b:
	movl	$2, %eax
	popq	%rbx
	ret
.L5c:
	movl	$3, %eax
	popq	%rbx
	ret
.L5d:
	movl	$4, %eax
	popq	%rbx
	ret
	.size	table_0, .-table_0
	.section	.rodata
	.align	4
.L5tab:
	.long	.L5a-.L5tab
	.long	.L5b-.L5tab
	.long	.L5c-.L5tab
	.long	.L5d-.L5tab
	.text

	.globl	coded_1
	.type	coded_1, @function
coded_1:
	pushq	%rbx
	movl	%edi, %ebx
	call	other@PLT
	leaq	.L6x(%rip), %rax
	testl	%ebx, %ebx
	je	.L6y
	jmp	*%rax
.L6x:
	movl	$1, %eax
	popq	%rbx
	ret
.L6y:
	movl	$2, %eax
	popq	%rbx
	ret
	.size	coded_1, .-coded_1

	.globl	entry_free_0
	.type	entry_free_0, @function
entry_free_0:
	testl	%edi, %edi
	je	.L7b
	leal	1(%rdi), %eax
	ret
.L7b:
	movl	$7, %eax
	ret
	.size	entry_free_0, .-entry_free_0

	.type	entry_other_0, @function
entry_other_0:
	testl	%edi, %edi
	je	.L8b
	leal	1(%rdi), %eax
	ret
.L8b:
	movl	$7, %eax
	ret
	.size	entry_other_0, .-entry_other_0

	.type	entry_none_1, @function
entry_none_1:
	xorl	%eax, %eax
	xorl	%ecx, %ecx
	xorl	%edx, %edx
	xorl	%esi, %esi
	xorl	%r8d, %r8d
	xorl	%r9d, %r9d
	xorl	%r10d, %r10d
	testl	%edi, %edi
	je	.L9b
	leal	1(%rdi), %eax
	ret
.L9b:
	movl	$7, %eax
	ret
	.size	entry_none_1, .-entry_none_1

	.globl	keeper
	.type	keeper, @function
keeper:
	pushq	%rbx
	movl	%edi, %ebx
	movq	%rdi, %r11
	call	entry_other_0
	movl	%ebx, %edi
	call	entry_none_1
	addq	%r11, %rax
	popq	%rbx
	ret
	.size	keeper, .-keeper
	.section	.note.GNU-stack,"",@progbits
