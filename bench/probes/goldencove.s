# Probes of the core: hand-written blocks, each measured by bench/probes.py
# as bench/blocks.py measures the archives' blocks (steady state, unrolled,
# rdtsc calibrated by an add chain), beside profinst's cost.  What each
# shows on this machine's Golden Cove cores is the model's (rewriter/model.c,
# goldencove_u and goldencove_measured).  A probe starts at a `## name` line.

## immediate add to a 64-bit register: folded at rename
add $1,%rcx
## immediate add to a 32-bit register: executed (it zeroes the upper half)
add $1,%ecx
## lea disp(base) to a 64-bit register: folded
lea 1(%rcx),%rcx
## lea to a 32-bit register: executed
lea 1(%rcx),%ecx
## one load, the same address every time: 2 a cycle
mov (%rbx),%rax
## two loads of one line
mov (%rbx),%rax
mov 8(%rbx),%rdx
## three loads of one line, three banks: 3 a cycle
mov (%rbx),%rax
mov 8(%rbx),%rdx
mov 16(%rbx),%rsi
## five loads of one line
mov (%rbx),%rax
mov 4(%rbx),%edx
mov 12(%rbx),%esi
mov 0x10(%rbx),%rdi
mov 0x18(%rbx),%r8
## three loads of three lines, one 8-byte bank: 2 a cycle
mov (%rbx),%rax
mov 0x100(%rbx),%rdx
mov 0x200(%rbx),%rsi
## two loads of one bank, one line
mov (%rbx),%rax
mov 0x4(%rbx),%edx
## two loads of one bank, two lines
mov (%rbx),%rax
mov 0x40(%rbx),%rdx
## two loads of two banks, two lines
mov (%rbx),%rax
mov 0x48(%rbx),%rdx
## loads through two registers (two objects)
mov (%rbx),%rax
mov (%rbp),%rdx
## four loads of four stack lines, one bank
mov 0x8(%rsp),%rax
mov 0x48(%rsp),%rdx
mov 0x88(%rsp),%rsi
mov 0xc8(%rsp),%rdi
## one store: 2 a cycle
movq $0,64(%rcx)
## two stores to one line: 2 a cycle
mov %rax,64(%rcx)
mov %rax,72(%rcx)
## two stores to two lines: 1 a cycle
movq $0,64(%rcx)
movl $69,8(%rcx)
## stores to lines A, B, A: pairs only of consecutive stores to one line
mov %rax,(%rbx)
mov %rax,0x40(%rbx)
mov %rax,0x8(%rbx)
## store, reload, add: the reload is renamed to the stored register
mov %rax,8(%rbx)
mov 8(%rbx),%rax
add %rdx,%rax
## push, pop of one register: forwarded through memory, not renamed
push %rbx
pop %rbx
## push, pop into another register
push %rax
pop %rdx
## read-modify-write with a register source: a chain through memory
add %rdx,8(%rsp)
## read-modify-write with an immediate: renamed
addl $1,8(%rsp)
## load, add, store of one place: renamed
mov (%rbx),%eax
add $1,%eax
mov %eax,(%rbx)
## a load wider than the store before it: not forwarded, waits for the commit
mov 0x30(%rsp),%rsi
mov %r14d,0x30(%rsp)
## lea of a RIP-relative address: one a cycle
lea sym(%rip),%rax
lea sym(%rip),%rdx
## a long nop with a memory operand: nothing is read
nopw 0x0(%rax,%rax,1)
## an FP compare (port 0) and a jcc: the jcc goes to port 6
comisd %xmm1,%xmm0
jb 1f
1:
## shift by cl: 1 cycle of latency
shl %cl,%rax
## four shifts by cl of four registers: a chain through the flags they merge
shl %cl,%rax
shl %cl,%rdx
shl %cl,%rsi
shl %cl,%rdi
## shift by cl, then an add of its result: the flags do not hold it up
sar %cl,%edx
add %edx,%eax
## 64-bit divide, independent: throughput
xor %edx,%edx
mov %r8,%rax
div %rcx
## 64-bit divide in a chain through the quotient: latency + 1
xor %edx,%edx
mov %r8,%rax
div %rcx
add %rax,%r8
## 32-bit divide, independent
xor %edx,%edx
mov %r8d,%eax
div %ecx
## 32-bit divide in a chain
xor %edx,%edx
mov %r8d,%eax
div %ecx
add %eax,%r8d
## signed 64-bit divide in a chain
mov %r8,%rax
cqto
idiv %rcx
add %rax,%r8
## the calibration's unit: a register add chain
add %rdx,%rax
## floating-point add, a chain: Golden Cove's adders take 2 cycles
addsd %xmm1,%xmm0
## packed add, a chain
addpd %xmm1,%xmm0
## four independent adds: two adders
addsd %xmm1,%xmm2
addsd %xmm1,%xmm3
addsd %xmm1,%xmm4
addsd %xmm1,%xmm5
## floating-point multiply, a chain
mulsd %xmm1,%xmm0
## fused multiply-add, a chain
vfmadd231sd %xmm1,%xmm2,%xmm0
## floating-point divide, a chain
divsd %xmm1,%xmm0
## square root, a chain
sqrtsd %xmm0,%xmm0
## a dot product's loop body (bench/programs/loops.c)
movapd (%rdx),%xmm1
add    $0x10,%rax
sub    $0x10,%rdx
shufpd $0x1,%xmm1,%xmm1
mulpd  -0x10(%rax),%xmm1
addsd  %xmm1,%xmm0
unpckhpd %xmm1,%xmm1
addsd  %xmm1,%xmm0
cmp    %rcx,%rax
