# Blocks the rewriter costs as repeated (on a cycle of at most 8 blocks of
# their function: the chain they carry binds) or in flow (it overlaps with
# the blocks around).  Each block follows a pointer (mov (%rdi),%rdi: 5
# cycles of load-use latency on Golden Cove), so a repeated one costs 5 and
# more, one in flow under 2.  A loop of several blocks is costed as one
# body, a pass's cost shared among its blocks.  tests/run.py (feature/loops)
# assembles this, runs profinst --cpu=goldencove --dump-blocks and checks
# each `# expect FUNC+OFF[,FUNC+OFF...] OP CYCLES` line against the cost it
# prints (the blocks' sum where several are named).
	.text

# a loop of one block
	.globl	chase
	.type	chase, @function
chase:
# expect chase+0x0 >= 5
1:	mov	(%rdi), %rdi
	test	%rdi, %rdi
	jnz	1b
# expect chase+0x8 < 2
	mov	(%rdi), %rdi
	ret
	.size	chase, .-chase

# a loop after a prologue, as compilers lay them out
	.globl	inner
	.type	inner, @function
inner:
# expect inner+0x0 < 2
	push	%rbx
	mov	(%rdi), %rdi
	xor	%eax, %eax
# expect inner+0x6 >= 5
1:	mov	(%rdi), %rdi
	add	$1, %eax
	test	%rdi, %rdi
	jnz	1b
	pop	%rbx
	ret
	.size	inner, .-inner

# a loop of three blocks: the pointer is followed in the first, whose
# share of a pass is most of it
	.globl	three
	.type	three, @function
three:
# expect three+0x0,three+0x8,three+0x13 >= 5
# expect three+0x0 >= 3
1:	mov	(%rdi), %rdi
	test	%rdi, %rdi
	jz	2f
# expect three+0x8 < 2
	add	%rsi, %rax
	cmp	%rax, %rdx
	jb	3f
	add	%rsi, %rcx
3:	jmp	1b
2:	ret
	.size	three, .-three

# a loop of two blocks whose chain runs through both: each follows the
# pointer the other loaded, so neither carries a chain alone, but a pass
# takes two loads one after the other
	.globl	cross
	.type	cross, @function
cross:
# expect cross+0x0,cross+0x8 >= 10
1:	mov	(%rdi), %rsi
	test	%rsi, %rsi
	jz	2f
	mov	(%rsi), %rdi
	jmp	1b
2:	ret
	.size	cross, .-cross

# a loop of two blocks with a chain each, side by side: a pass takes the
# longer (the load's 5), not their sum (and the multiply's 3)
	.globl	parallel
	.type	parallel, @function
parallel:
# expect parallel+0x0,parallel+0x8 >= 5
# expect parallel+0x0,parallel+0x8 < 7
1:	mov	(%rdi), %rdi
	test	%rdi, %rdi
	jz	2f
	imul	%rax, %rax
	jmp	1b
2:	ret
	.size	parallel, .-parallel

# straight-line code: no block repeats
	.globl	straight
	.type	straight, @function
straight:
# expect straight+0x0 < 2
	mov	(%rdi), %rdi
	mov	(%rdi), %rdi
	test	%rdi, %rdi
	jz	1f
# expect straight+0xb < 2
	mov	(%rdi), %rdi
1:	ret
	.size	straight, .-straight

# a cycle of nine blocks: longer than a small loop
	.globl	long_cycle
	.type	long_cycle, @function
long_cycle:
# expect long_cycle+0x0 < 2
1:	mov	(%rdi), %rdi
	jz	2f
	add	$1, %rax
	jz	2f
	add	$1, %rax
	jz	2f
	add	$1, %rax
	jz	2f
	add	$1, %rax
	jz	2f
	add	$1, %rax
	jz	2f
	add	$1, %rax
	jz	2f
	add	$1, %rax
	jz	2f
	jmp	1b
2:	ret
	.size	long_cycle, .-long_cycle

# an indirect jump's targets are not followed: an interpreter's handlers
# are not a loop through its dispatch
	.globl	dispatch
	.type	dispatch, @function
dispatch:
# expect dispatch+0x0 < 2
1:	mov	(%rdi), %rdi
	jmp	*%rdi
	.size	dispatch, .-dispatch

# nor is the way around a switch's table, its bounds check's jump to the
# values the table does not cover, though it comes back to the dispatch at
# once (sqlite3VdbeExec's default case): the dispatch and the default run
# between the handlers' work
	.globl	switch_default
	.type	switch_default, @function
switch_default:
# expect switch_default+0x0 < 2
1:	mov	(%rdi), %rdi
	cmp	$1, %rsi
	ja	2f
	lea	4f(%rip), %rdx
	movslq	(%rdx,%rsi,4), %rax
	add	%rdx, %rax
	jmp	*%rax
# expect switch_default+0x19 < 2
2:	mov	(%rdi), %rdi
	jmp	1b
3:	ret
	.section .rodata
	.p2align 2
4:	.long	3b-4b
	.long	3b-4b
	.text
	.size	switch_default, .-switch_default
