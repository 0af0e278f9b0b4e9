# A switch through a table of addresses: every case the table names is a
# leader, and the indirect jump, with a table to go to, stays inside.
	.text
	.globl	dispatch
	.type	dispatch, @function
dispatch:
	cmpl	$2, %edi		# expect: leader
	ja	.Ldefault
	movl	%edi, %edi		# expect: leader count-of 7 minus 21
	jmp	*.Ltable(,%rdi,8)
.Lcase0:
	movl	$10, %eax		# expect: leader
	ret
.Lcase1:
	movl	$11, %eax		# expect: leader
	ret
.Lcase2:
	movl	$12, %eax		# expect: leader
	ret
.Ldefault:
	xorl	%eax, %eax		# expect: leader
	ret
	.size	dispatch, .-dispatch

	.section .rodata
	.align 8
.Ltable:
	.quad	.Lcase0
	.quad	.Lcase1
	.quad	.Lcase2

# data inside a function's extent: copied as it was
	.text
	.globl	with_data
	.type	with_data, @function
with_data:
	leaq	.Lconst(%rip), %rax	# expect: copied
	movl	(%rax), %eax
	ret
.Lconst:
	.long	0x12345678
	.size	with_data, .-with_data
