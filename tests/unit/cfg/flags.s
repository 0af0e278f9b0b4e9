# Status flags live where a block starts, per flag: read by adc, sbb,
# cmov, setcc and jcc in a later block, and killed by what writes them.
	.text
	.globl	carry
	.type	carry, @function
carry:
	addq	%rsi, %rdi		# expect: leader
	jmp	.Ladd
.Ladd:
	adcq	$0, %rdi		# expect: leader flags-live CF
	movq	%rdi, %rax
	ret
	.size	carry, .-carry

# the sign and overflow flags of a signed compare, through a block
	.globl	signed_less
	.type	signed_less, @function
signed_less:
	cmpl	%esi, %edi		# expect: leader
	jmp	.Lset
.Lset:
	setl	%al			# expect: leader flags-live SF OF
	movzbl	%al, %eax
	ret
	.size	signed_less, .-signed_less

# written again before it is read: nothing live at the block
	.globl	rewritten
	.type	rewritten, @function
rewritten:
	cmpl	%esi, %edi		# expect: leader
	jmp	.Lagain
.Lagain:
	testl	%edi, %edi		# expect: leader
	cmovel	%esi, %edi
	movl	%edi, %eax
	ret
	.size	rewritten, .-rewritten

# flags live on both paths into a join: the block where each path starts
# needs what the join reads (ja: CF and ZF)
	.globl	join
	.type	join, @function
join:
	cmpl	%esi, %edi		# expect: leader
	jns	.Lright
	movl	$1, %eax		# expect: leader flags-live CF ZF count-of 45 minus 50
	jmp	.Ljoin
.Lright:
	movl	$2, %eax		# expect: leader flags-live CF ZF
.Ljoin:
	ja	.Lbig			# expect: leader flags-live CF ZF count-of 45
	ret				# expect: leader count-of 45 minus 55
.Lbig:
	addl	$10, %eax		# expect: leader
	ret
	.size	join, .-join
