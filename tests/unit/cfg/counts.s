# Blocks whose count another block's gives (rewriter/derive.c): no counter
# of their own under --counts.
	.text

# an if-else: the join runs once per run of the entry
	.globl	diamond
	.type	diamond, @function
diamond:
	cmpl	$3, %edi	# expect: leader
	jle	.Lelse
	movl	(%rsi), %eax	# expect: leader count-of 9 minus 15
	addl	$1, 4(%rsi)
	jmp	.Ljoin
.Lelse:
	movl	8(%rsi), %eax	# expect: leader
	subl	$1, 12(%rsi)
.Ljoin:
	addl	$5, %eax	# expect: leader count-of 9
	testb	$1, %al
	je	.Lskip
	addl	%eax, 16(%rsi)	# expect: leader count-of 9 minus 21 edge-to 24
.Lskip:
# the next join takes the entry's count too (the first join's is it)
	movl	%eax, 20(%rsi)	# expect: leader count-of 9
	ret
	.size	diamond, .-diamond

# a call in one arm may not return (exit, longjmp): the join counts
	.globl	with_call
	.type	with_call, @function
with_call:
	pushq	%rbx	# expect: leader
	movl	%edi, %ebx
	testl	%edi, %edi
	je	.Lc_join
	call	abort	# expect: leader count-of 32 minus 36 edge-to 38
.Lc_join:
	movl	%ebx, %eax	# expect: leader
	popq	%rbx
	ret
	.size	with_call, .-with_call

# a loop: the block after it runs once per run of the entry, but its
# dominator is the loop's head, which runs once per turn
	.globl	loop
	.type	loop, @function
loop:
	xorl	%eax, %eax	# expect: leader
.Lhead:
	cmpl	%edi, %eax	# expect: leader loop stepped rax 32 1
	jge	.Ldone
	addl	$1, %eax	# expect: leader loop count-of 50 minus 55
	jmp	.Lhead
.Ldone:
	ret	# expect: leader
	.size	loop, .-loop

# the inner diamond's join takes the test's count; the outer join is
# reached from the entry's other branch too, past the inner region,
# and takes the entry's
	.globl	nested
	.type	nested, @function
nested:
	testl	%edi, %edi	# expect: leader
	je	.Ln_out
	cmpl	$2, %esi	# expect: leader
	jle	.Ln_in
	addl	$1, %esi	# expect: leader
.Ln_in:
	addl	$3, %esi	# expect: leader count-of 66
	jmp	.Ln_join
.Ln_out:
	movl	$7, %esi	# expect: leader count-of 64 minus 66
.Ln_join:
	movl	%esi, %eax	# expect: leader count-of 64
	ret
	.size	nested, .-nested

# a join that another block jumps to from outside the region (a second
# entry's way) counts what flows in: the arm, its edge, the other block
	.globl	second_way
	.type	second_way, @function
second_way:
	testl	%edi, %edi	# expect: leader
	je	.Ls_join
	addl	$1, %esi	# expect: leader count-of 84 minus 86 edge-to 88
.Ls_join:
	movl	%esi, %eax	# expect: leader flow-of +86 +~86 +91
	ret
.Ls_other:
	movl	$9, %esi	# expect: leader
	jmp	.Ls_join
	.size	second_way, .-second_way
	.section	.data.rel.ro,"aw"
	.quad	.Ls_other
	.text

# a C library function the model costs returns and calls nothing back:
# the block after its call takes the call's block's count, and a join
# past an arm that calls it takes the entry's; a call of one the model
# does not cost (printf may call back, through a FILE's functions) counts
	.globl	with_memcpy
	.type	with_memcpy, @function
with_memcpy:
	pushq	%rbx		# expect: leader
	movq	%rdi, %rbx
	testq	%rsi, %rsi
	je	.Lm_join
	call	memcpy		# expect: leader
	addq	$1, %rbx	# expect: leader count-of 109
.Lm_join:
	movq	%rbx, %rdi	# expect: leader count-of 105
	call	printf
	movq	%rbx, %rax	# expect: leader
	popq	%rbx
	ret
	.size	with_memcpy, .-with_memcpy
# a block another function jumps into has a way in its own function does
# not see: no count of another block's (the join would be the entry's)
	.globl	entered
	.type	entered, @function
entered:
	testl	%edi, %edi	# expect: leader
	je	.Le_else
	movl	$1, %eax	# expect: leader count-of 123 minus 128
	jmp	.Le_join
.Le_else:
	movl	$2, %eax	# expect: leader
.Le_join:
	addl	$3, %eax	# expect: leader
	ret
	.size	entered, .-entered

	.globl	enters
	.type	enters, @function
enters:
	xorl	%eax, %eax	# expect: leader
	jmp	.Le_join	# expect: tail
	.size	enters, .-enters

# a loop whose head is entered by falling out of the entry and by a jump
# back from its body, each going nowhere else: the head runs as often as
# they do together (its arms have other ways in: no difference)
	.globl	sum_loop
	.type	sum_loop, @function
sum_loop:
	xorl	%eax, %eax	# expect: leader
.Lsl_head:
	cmpl	%esi, %eax	# expect: leader loop sum-of 147 153
	jge	.Lsl_done
	testl	%eax, (%rdi)	# expect: leader loop stepped rax 32 1
	js	.Lsl_done
	addl	$1, %eax	# expect: leader loop
	jmp	.Lsl_head
.Lsl_done:
	ret	# expect: leader flow-of +149 -153
	.size	sum_loop, .-sum_loop

# the same loop with two ways back, one of them an arm whose count is a
# difference: the head keeps its counter (a sum takes counts of their own);
# the tests that leave the loop count their ways out, and the arm takes
# its count from the second's, a difference itself
	.globl	sum_not
	.type	sum_not, @function
sum_not:
	xorl	%eax, %eax	# expect: leader
.Lsn_head:
	cmpl	%esi, %eax	# expect: leader loop
	jge	.Lsn_done
	testl	%eax, (%rdi)	# expect: leader loop count-of 168 minus 170 edge-to 180
	js	.Lsn_done
	testl	$1, %eax	# expect: leader loop count-of 170 minus 172 edge-to 180
	je	.Lsn_v
	addl	$3, %eax	# expect: leader loop count-of 172 minus 177
	jmp	.Lsn_head
.Lsn_v:
	addl	$1, %eax	# expect: leader loop
	jmp	.Lsn_head
.Lsn_done:
	ret	# expect: leader flow-of +~170 +~172
	.size	sum_not, .-sum_not

# a loop's arm that the compiler aligned: the padding after the jump
# before it falls into it but never runs, so the arm is entered from its
# branch only and takes the branch's count less the other arm's
	.globl	padded_arm
	.type	padded_arm, @function
padded_arm:
	xorl	%eax, %eax	# expect: leader
	jmp	.Lpa_head
	nopl	0(%rax)	# expect: leader flags-live SF
.Lpa_back:
	js	.Lpa_done	# expect: leader loop flags-live SF count-of 196 minus 198
	addl	$2, %eax	# expect: leader loop
.Lpa_head:
	cmpl	%esi, %eax	# expect: leader loop
	jne	.Lpa_back
	addl	$1, %eax	# expect: leader loop
	jmp	.Lpa_head
.Lpa_done:
	ret	# expect: leader
	.size	padded_arm, .-padded_arm

# of two arms that could take their counts as a difference, the one the
# flags are live into does (its counter would have to keep them)
	.globl	flags_arm
	.type	flags_arm, @function
flags_arm:
	cmpl	$3, %edi	# expect: leader
	jne	.Lfa_flags
	movl	$1, %eax	# expect: leader
	ret
.Lfa_flags:
	jl	.Lfa_neg	# expect: leader flags-live SF OF count-of 209 minus 211
	movl	$2, %eax	# expect: leader
	ret
.Lfa_neg:
	movl	$3, %eax	# expect: leader
	ret
	.size	flags_arm, .-flags_arm

# a chain of tests that return as soon as one differs, all through one
# return (bzip2's mainGtU): each next test runs as often as the one before
# less the edge to the return, which that test's own counter counts, by
# the jump or by the fall; the second's count from the first's and so on
	.globl	chain
	.type	chain, @function
chain:
	movzbl	(%rdi), %eax	# expect: leader
	cmpb	(%rsi), %al
	jne	.Lch_ret
	movzbl	1(%rdi), %eax	# expect: leader count-of 229 minus 232 edge-to 236
	cmpb	1(%rsi), %al
	je	.Lch_3
.Lch_ret:
	setb	%al	# expect: leader flags-live CF flow-of +~232 +~239 +~242
	ret
.Lch_3:
	movzbl	2(%rdi), %eax	# expect: leader count-of 232 minus 239 edge-to 236
	cmpb	2(%rsi), %al
	jne	.Lch_ret
	xorl	%eax, %eax	# expect: leader count-of 239 minus 242 edge-to 236
	ret
	.size	chain, .-chain

# a loop's test that leaves it for code that goes on (not a return), which
# another way reaches too: the block after the test, in the loop, counts
# the way out instead; a test whose other way is the loop's head does not
	.globl	leave_loop
	.type	leave_loop, @function
leave_loop:
	xorl	%eax, %eax	# expect: leader
	testq	%rdi, %rdi
	je	.Lll_out
.Lll_head:
	movl	(%rdi), %ecx	# expect: leader loop stepped rdi 64 4
	testl	%ecx, %ecx
	je	.Lll_out
	addq	$4, %rdi	# expect: leader loop count-of 256 minus 259 edge-to 265
	cmpl	$7, %ecx
	jne	.Lll_head
	addl	$1, %eax	# expect: leader loop
	jmp	.Lll_head
.Lll_out:
	addl	$2, %eax	# expect: leader count-of 252
	ret
	.size	leave_loop, .-leave_loop

# a block that takes the count of a test counting its way to the return
# (the join after the test's if): the join's count is that difference too
	.globl	same_edge
	.type	same_edge, @function
same_edge:
	xorl	%eax, %eax	# expect: leader
	testl	%edi, %edi
	je	.Lse_ret
	cmpl	$3, %esi	# expect: leader count-of 274 minus 277 edge-to 283
	jle	.Lse_join
	addl	$1, %eax	# expect: leader
.Lse_join:
	addl	%esi, %eax	# expect: leader count-of 277
.Lse_ret:
	ret	# expect: leader count-of 274
	.size	same_edge, .-same_edge

# a loop left from two tests and entered at its last test from before it
# (zlib's longest_match): the last test keeps its counter, the top is its
# arm, the second test the top's less the edge out that its counter
# counts, and the exit takes the flow into it: that edge, and the second
# test's count less what goes on to the last test (the last test's count
# less its way in from before the loop)
	.globl	chain_loop
	.type	chain_loop, @function
chain_loop:
	xorl	%eax, %eax	# expect: leader
	jmp	.Lcl_in
.Lcl_top:
	movl	(%rdi,%rdx,4), %eax	# expect: leader loop count-of 304 minus 306
	cmpl	%esi, %eax
	jae	.Lcl_out
	subl	$1, %edx	# expect: leader loop count-of 298 minus 301 edge-to 309
	je	.Lcl_out
.Lcl_in:
	cmpl	$7, %eax	# expect: leader loop stepped rdx 32 -1
	jne	.Lcl_top
	movl	%edx, %eax	# expect: leader
	ret
.Lcl_out:
	ret	# expect: leader flow-of +295 +301 +~301 -304
	.size	chain_loop, .-chain_loop

# a block whose ways in come from two-way branches whose other ways go to
# a join entered from both (no flow in that the tables can give), which
# goes on only to a loop's head that an arm's difference keeps counted:
# its count is the head's less the head's other ways in
	.globl	flow_out
	.type	flow_out, @function
flow_out:
	xorl	%eax, %eax	# expect: leader
	testl	%edi, %edi
	js	.Lfo_neg
	cmpl	$5, %esi	# expect: leader count-of 319 minus 337
	jg	.Lfo_k
.Lfo_j:
	addl	$1, %eax	# expect: leader flow-of +327 -340 -332 +335
.Lfo_d:
	testl	$1, %esi	# expect: leader loop
	je	.Lfo_y
	addl	$2, %eax	# expect: leader count-of 327 minus 332
	ret
.Lfo_y:
	addl	$3, %eax	# expect: leader loop
	shrl	%esi
	jne	.Lfo_d
	ret	# expect: leader
.Lfo_neg:
	cmpl	$7, %esi	# expect: leader
	jle	.Lfo_j
.Lfo_k:
	movl	$9, %edx	# expect: leader
	jmp	.Lfo_d
	.size	flow_out, .-flow_out

	.section	.note.GNU-stack,"",@progbits
# model: zen3 (a cycle model costs memcpy: its calls are of another kind)
