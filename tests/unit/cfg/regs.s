# General registers live where a block starts (--counts: a counting stub
# takes a dead one as scratch).  gcc keeps a value in a scratch register
# across a call to a function of its own unit that leaves it alone: that
# function must keep it too.  A call may read any argument register.

# called by keeps_r11 with %r11 live across the call: %r11 is kept here
	.text
	.type	leaves_r11, @function
leaves_r11:
	leaq	1(%rdi), %rax		# expect: leader regs-live r11 rdi rbx rbp r12 r13 r14 r15 regs-dead rsi r8 r9 rcx
	ret
	.size	leaves_r11, .-leaves_r11

	.globl	keeps_r11
	.type	keeps_r11, @function
keeps_r11:
	movq	%rsi, %r11		# expect: leader regs-live rdi rsi rcx r8 r9 regs-dead r11
	call	leaves_r11
	addq	%r11, %rax		# expect: leader regs-live rax r11 regs-dead rdi rsi rcx r8 r9 r10
	ret
	.size	keeps_r11, .-keeps_r11

# a call to a function elsewhere clobbers every scratch register: nothing
# kept in one across it
	.globl	calls_out
	.type	calls_out, @function
calls_out:
	movq	%rsi, %r11		# expect: leader regs-live rdi rsi
	call	elsewhere
	jmp	.Lafter			# expect: leader regs-live rax regs-dead r11 rcx rsi rdi
.Lafter:
	movq	%rax, %rcx		# expect: leader regs-live rax regs-dead r11 rcx rsi rdi r8 r9 r10 count-of 30
	addq	%rcx, %rax
	ret
	.size	calls_out, .-calls_out

# a register written before it is read is dead; one read is live
	.globl	written_first
	.type	written_first, @function
written_first:
	movl	$3, %edx		# expect: leader regs-live rdi regs-dead rdx r11
	jmp	.Lread
.Lread:
	leaq	(%rdi,%rdx), %rax	# expect: leader regs-live rdi rdx regs-dead rax r11
	ret
	.size	written_first, .-written_first

# a static function of another section (gcc puts main in .text.startup):
# the call names it by its section's symbol, and it must keep %r11 all the
# same
	.section .text.unlikely,"ax",@progbits
	.type	leaves_r11_far, @function
leaves_r11_far:
	leaq	2(%rdi), %rax		# expect: leader regs-live r11 rdi rbx rbp r12 r13 r14 r15 regs-dead rsi r8 r9 rcx
	ret
	.size	leaves_r11_far, .-leaves_r11_far

	.section .text.startup,"ax",@progbits
	.globl	keeps_r11_far
	.type	keeps_r11_far, @function
keeps_r11_far:
	movq	%rsi, %r11		# expect: leader regs-live rdi rsi rcx r8 r9 regs-dead r11
	call	leaves_r11_far
	addq	%r11, %rax		# expect: leader regs-live rax r11 regs-dead rdi rsi rcx r8 r9 r10
	ret
	.size	keeps_r11_far, .-keeps_r11_far
