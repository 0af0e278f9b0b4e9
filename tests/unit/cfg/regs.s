# General registers live where a block starts (--counts: a counting stub
# takes a dead one as scratch).  gcc keeps a value in a scratch register
# across a call to a function of its own unit that leaves it alone: that
# function must keep it too.  A call may read any argument register, %rax
# and, through a pointer, %r10; a call to a function of this object's
# start reads what that function's entry does.

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
	movq	%rsi, %r11		# expect: leader regs-live rdi rsi regs-dead r11 rcx r8 r9 r10
	call	leaves_r11
	addq	%r11, %rax		# expect: leader regs-live rax r11 regs-dead rdi rsi rcx r8 r9 r10
	ret
	.size	keeps_r11, .-keeps_r11

# a function of this object whose entry block writes %r10 and %rax
# before it reads them returns with its own values there: no caller keeps
# anything in them across a call to it, so they are free before the call
	.type	writes_r10, @function
writes_r10:
	movq	%rsi, %r10		# expect: leader regs-live rdi rsi regs-dead r10 rax
	leaq	(%r10,%rdi), %rax
	ret
	.size	writes_r10, .-writes_r10

	.globl	calls_writer
	.type	calls_writer, @function
calls_writer:
	movq	%rdx, %rsi		# expect: leader regs-live rdi rdx regs-dead r10 rax
	call	writes_r10
	addq	%r10, %rax		# expect: leader regs-live rax r10
	ret
	.size	calls_writer, .-calls_writer

# a call to a function elsewhere clobbers every scratch register: nothing
# kept in one across it
	.globl	calls_out
	.type	calls_out, @function
calls_out:
	movq	%rsi, %r11		# expect: leader regs-live rdi rsi
	call	elsewhere
	jmp	.Lafter			# expect: leader regs-live rax regs-dead r11 rcx rsi rdi
.Lafter:
	movq	%rax, %rcx		# expect: leader regs-live rax regs-dead r11 rcx rsi rdi r8 r9 r10 count-of 51
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
	movq	%rsi, %r11		# expect: leader regs-live rdi rsi regs-dead r11 rcx r8 r9 r10
	call	leaves_r11_far
	addq	%r11, %rax		# expect: leader regs-live rax r11 regs-dead rdi rsi rcx r8 r9 r10
	ret
	.size	keeps_r11_far, .-keeps_r11_far

# what a function of this object reads at entry is what a call to it
# reads: %rcx here, through two calls (its ret is a leader: calls_middle
# calls there)
	.text
	.type	reads_rcx, @function
reads_rcx:
	leaq	(%rcx,%rdi), %rax	# expect: leader regs-live rcx rdi regs-dead rsi r8 r9 r10 r11
	ret				# expect: leader
	.size	reads_rcx, .-reads_rcx

	.type	passes_rcx, @function
passes_rcx:
	call	reads_rcx		# expect: leader regs-live rcx rdi regs-dead rsi r8 r9 r10 r11
	ret				# expect: leader
	.size	passes_rcx, .-passes_rcx

	.globl	calls_passes
	.type	calls_passes, @function
calls_passes:
	movl	$1, %ecx		# expect: leader regs-live rdi regs-dead rcx rsi r8 r9 r10 r11
	call	passes_rcx
	ret				# expect: leader
	.size	calls_passes, .-calls_passes

# a call into a function's middle, through a pointer or to another
# object's function reads every argument register, and %rax where it was
# written since the function's entry or its last call (a variadic call's
# count); a pointer's %r10 too where it was written (a closure's), a call
# into a function of the unit's always (a nested function's chain may be
# its caller's own)
	.globl	calls_middle
	.type	calls_middle, @function
calls_middle:
	movl	$1, %ecx		# expect: leader regs-live rdi rsi rdx r8 r9 rax r10 regs-dead rcx r11
	call	reads_rcx+4
	ret				# expect: leader
	.size	calls_middle, .-calls_middle

	.globl	calls_pointer
	.type	calls_pointer, @function
calls_pointer:
	movq	%rdi, %r11		# expect: leader regs-live rdi rsi rdx rcx r8 r9 regs-dead rax r10 r11
	call	*%r11
	ret				# expect: leader
	.size	calls_pointer, .-calls_pointer

	.globl	calls_pointer_set
	.type	calls_pointer_set, @function
calls_pointer_set:
	movq	%rdi, %r11		# expect: leader regs-dead rax r10
	movl	$2, %eax
	leaq	8(%rsp), %r10
	testl	%esi, %esi
	je	.Lcps_call
	addl	$1, %edx		# expect: leader regs-live rax r10 rdx
.Lcps_call:
	call	*%r11			# expect: leader regs-live rax r10 rdi rsi rdx count-of 138
	call	*%r11			# expect: leader regs-live rdi rsi rdx regs-dead rax r10
	ret				# expect: leader
	.size	calls_pointer_set, .-calls_pointer_set

	.globl	calls_other
	.type	calls_other, @function
calls_other:
	call	elsewhere		# expect: leader regs-live rdi rsi rdx rcx r8 r9 regs-dead rax r10 r11
	ret				# expect: leader
	.size	calls_other, .-calls_other

# a register one caller keeps through a function is not read by a call to
# it: %r11 is live in kept_through (keeper keeps it), dead before
# other_caller's call
	.text
	.type	kept_through, @function
kept_through:
	leaq	1(%rdi), %rax		# expect: leader regs-live rdi r11 regs-dead rsi rcx r8 r9 r10
	ret
	.size	kept_through, .-kept_through

	.globl	keeper
	.type	keeper, @function
keeper:
	movq	%rsi, %r11		# expect: leader regs-live rdi rsi regs-dead r11
	call	kept_through
	addq	%r11, %rax		# expect: leader regs-live rax r11
	ret
	.size	keeper, .-keeper

	.globl	other_caller
	.type	other_caller, @function
other_caller:
	movq	%rsi, %rdi		# expect: leader regs-live rsi regs-dead rdi r11 r10
	call	kept_through
	ret				# expect: leader
	.size	other_caller, .-other_caller

# gcc's allocation knows what a function of its unit clobbers: a scratch
# register it writes anywhere.  No caller keeps a value there through it,
# whatever the caller's own liveness says (here a tail call after the
# call, whose arguments are live, %rcx among them): %rcx is dead at
# writes_rcx's return; the arguments it never writes are kept
	.text
	.type	writes_rcx, @function
writes_rcx:
	movl	(%rdi), %ecx		# expect: leader regs-live rdi rsi
	leaq	(%rcx,%rsi), %rax
	jmp	.Lwr_ret
.Lwr_ret:
	ret				# expect: leader regs-live rax rdx rdi rsi r8 r9 r10 regs-dead rcx r11
	.size	writes_rcx, .-writes_rcx

	.globl	tail_after_writer
	.type	tail_after_writer, @function
tail_after_writer:
	call	writes_rcx		# expect: leader regs-live rdi rsi
	jmp	elsewhere		# expect: leader tail regs-live rdi rsi rdx rcx r8 r9
	.size	tail_after_writer, .-tail_after_writer

# ... but a register a function reads from its entry before it writes it
# is one it may keep for its callers (a push and a pop of its own): %rcx
# stays live at keeps_rcx_itself's return, which keeps_rcx_caller keeps
# it through
	.type	keeps_rcx_itself, @function
keeps_rcx_itself:
	pushq	%rcx			# expect: leader regs-live rcx rdi
	movl	(%rdi), %ecx
	leaq	1(%rcx), %rax
	popq	%rcx
	jmp	.Lkri_ret
.Lkri_ret:
	ret				# expect: leader regs-live rax rcx
	.size	keeps_rcx_itself, .-keeps_rcx_itself

	.globl	keeps_rcx_caller
	.type	keeps_rcx_caller, @function
keeps_rcx_caller:
	movq	%rsi, %rcx		# expect: leader regs-live rdi rsi
	call	keeps_rcx_itself
	addq	%rcx, %rax		# expect: leader regs-live rax rcx
	ret
	.size	keeps_rcx_caller, .-keeps_rcx_caller
