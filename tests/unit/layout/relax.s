# Branch relaxation (rewriter/layout.c): each function says by its name
# what the rewrite must leave of its direct branches, which were all
# rel8 here.
#  - short_*: every branch still rel8 (a jcc over a small block, a loop
#    back, a jmp forward, a loop instruction in reach);
#  - grows: the first jcc pushed out of rel8 by the stubs of the blocks it
#    jumps over grows to rel32; the last ones stay short;
#  - loop_far: a loop pushed out of reach becomes `loop; jmp; jmp rel32`.
# Every branch, short or long, must land where the layout put its target.
	.text
	.globl	short_skip
	.type	short_skip, @function
short_skip:
	xorl	%eax, %eax
	testl	%edi, %edi
	je	.Lskip
	incl	%eax
.Lskip:
	ret
	.size	short_skip, .-short_skip

	.globl	short_loop
	.type	short_loop, @function
short_loop:
	xorl	%eax, %eax
.Lagain:
	addl	%edi, %eax
	decl	%esi
	jne	.Lagain
	jmp	.Lout
	nop
.Lout:
	movl	%esi, %ecx
.Lcount:
	incl	%eax
	loop	.Lcount
	ret
	.size	short_loop, .-short_loop

	.globl	grows
	.type	grows, @function
grows:
	xorl	%eax, %eax
	testl	%edi, %edi
	je	.Lend
	.irp	n, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
	cmpl	$\n, %esi
	je	.Lend
	.endr
	incl	%eax
.Lend:
	ret
	.size	grows, .-grows

	.globl	loop_far
	.type	loop_far, @function
loop_far:
	movl	%esi, %ecx
	xorl	%eax, %eax
.Lfar:
	.irp	n, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12
	cmpl	$\n, %edi
	je	.Lhit\n
	incl	%eax
.Lhit\n:
	.endr
	loop	.Lfar
	ret
	.size	loop_far, .-loop_far
