# Loads that wait for loads (chase.h), and small loops (loops.h): a
# `follows P` load's address comes from a load of class P, a `sets Q`
# load's value is what loads of class Q wait for.
	.text
# a list walked: each step's pointer comes from the step before; the
# value summed is read at an address from that pointer, and nothing
# waits for it
	.globl	walk
	.type	walk, @function
walk:
	xorl	%eax, %eax		# expect: leader
	testq	%rdi, %rdi
	je	.Ldone
.Lnext:
	addl	8(%rdi), %eax		# expect: leader loop follows list
	movq	(%rdi), %rdi		# expect: follows list sets list
	testq	%rdi, %rdi
	jne	.Lnext
.Ldone:
	ret				# expect: leader count-of 11
	.size	walk, .-walk

# a lookup through a table of indices: the index's load is what the
# lookup waits for, and the index's own address comes from no load
	.globl	lookup
	.type	lookup, @function
lookup:
	movslq	(%rdi), %rax		# expect: leader sets index
	movl	(%rsi,%rax,4), %eax	# expect: follows index
	ret
	.size	lookup, .-lookup

# not followed: loads from the stack and RIP-relative ones, which hit the
# first level.  But the pointer a RIP-relative load gives is followed, and
# a callee-saved register keeps what a load gave it across a call: the
# load after the call still waits for it (done long before, as a rule:
# the runtime sees the call's time pass)
	.globl	not_followed
	.type	not_followed, @function
not_followed:
	pushq	%rbx			# expect: leader
	movq	counter(%rip), %rax
	movq	(%rax), %rbx		# expect: sets kept
	movq	8(%rsp), %rcx
	call	walk
	movq	(%rbx), %rax		# expect: leader follows kept
	popq	%rbx
	ret
	.size	not_followed, .-not_followed

	.data
counter:
	.quad	0
