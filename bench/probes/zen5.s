# Probes of Zen 5's rules (bench/probes.py --cpu zen5, on an EPYC of family
# 1Ah): what the zen5 model takes from measurements rather than from LLVM's
# Zen 3 table.  Each block after a `## name` line is measured in a loop of
# itself, beside the model's cost.
## immediate add to a 64-bit register: executed (1 cycle), not folded
add $1,%rax
## lea (%rax,%rbx): a chain of 4, a cycle each
lea (%rax,%rbx),%rax
lea (%rax,%rbx),%rax
lea (%rax,%rbx),%rax
lea (%rax,%rbx),%rax
## lea 1(%rax,%rbx): base + index + displacement, 2 cycles each
lea 1(%rax,%rbx),%rax
lea 1(%rax,%rbx),%rax
lea 1(%rax,%rbx),%rax
lea 1(%rax,%rbx),%rax
## 8 independent lea 1(%rax,%rbx): two a cycle
lea 1(%rax,%rbx),%rcx
lea 1(%rax,%rbx),%rdx
lea 1(%rax,%rbx),%rsi
lea 1(%rax,%rbx),%rdi
lea 1(%rax,%rbx),%r8
lea 1(%rax,%rbx),%r9
lea 1(%rax,%rbx),%r10
lea 1(%rax,%rbx),%r11
## cmov chain of 4: the destination is read
cmp %rbx,%rcx
cmovb %rbx,%rax
cmovb %rbx,%rax
cmovb %rbx,%rax
cmovb %rbx,%rax
## a chain of loads: 4 cycles each
mov (%rdi),%rdi
mov (%rdi),%rdi
mov (%rdi),%rdi
## compare and branch, not taken: 0.34-0.35 cycles
cmp %rdi,%rdi
jne 1f
1:
## a move, compare and branch: 0.36-0.37 cycles
mov %rax,%rbx
test %rax,%rax
je 1f
1:
## a move with an immediate before a compare with one and a branch: 0.5 (unmodelled)
mov $1,%ebx
cmp $7,%eax
jbe 1f
1:
## the same with the move after the branch: 0.35
cmp $7,%eax
jbe 1f
1:
mov $1,%ebx
## comisd; ja: two a cycle
comisd %xmm1,%xmm0
ja 1f
1:
## add $8,%rsp; pop; pop: the stack engine's sync and the add, 2 cycles
add $16,%rsp
pop %rbx
pop %rbp
## push; push; sub $8,%rsp: the same
push %rbp
push %rbx
sub $8,%rsp
## 12 independent adds: six ALUs
add %rax,%rax
add %rbx,%rbx
add %rcx,%rcx
add %rdx,%rdx
add %rsi,%rsi
add %rdi,%rdi
add %r8,%r8
add %r9,%r9
add %r10,%r10
add %r11,%r11
add %r12,%r12
add %r13,%r13
## 64-bit divide in a chain through the quotient: latency + 1
xor %edx,%edx
mov %r8,%rax
div %rcx
add %rax,%r8
## floating-point add, a chain: 2 cycles
addsd %xmm1,%xmm0
addsd %xmm1,%xmm0
## 6 adds, 4 loads, 2 stores, independent: 12 micro-ops in 2 cycles (6 a cycle, not 8)
add %rax,%rax
add %rbx,%rbx
add %rcx,%rcx
add %rdx,%rdx
add %r8,%r8
add %r9,%r9
mov (%rsi),%r10
mov 8(%rsi),%r11
mov 16(%rdi),%r12
mov 24(%rdi),%r13
mov %r14,64(%rsi)
mov %r15,72(%rsi)
## 3 byte loads and 3 byte stores: four load-store pipes, 1.5 cycles
movzbl 0xc(%rcx),%edi
mov %dil,0xc(%r10)
movzbl 0xd(%rcx),%esi
mov %sil,0xd(%r10)
movzbl 0xe(%rcx),%r9d
mov %r9b,0xe(%r10)
## 12 independent lea 8(%rdi): six a cycle on the ALUs, 2 cycles
lea 8(%rdi),%rax
lea 8(%rdi),%rcx
lea 8(%rdi),%rdx
lea 8(%rdi),%rsi
lea 8(%rdi),%r8
lea 8(%rdi),%r9
lea 8(%rdi),%r10
lea 8(%rdi),%r11
lea 8(%rdi),%rbx
lea 8(%rdi),%rbp
lea 8(%rdi),%r12
lea 8(%rdi),%r13
## a chain closing every second pass (bench/programs/loops.c's int_mix): 7 cycles over two, 3.5
mov    %rdx,%rsi
shr    $0x3,%rsi
xor    %rcx,%rsi
add    %rsi,%rax
lea    (%rdx,%rdx,4),%rsi
movzbl %r8b,%edx
add    %rsi,%rdx
lea    (%rax,%rcx,4),%rsi
add    $0x1,%rcx
xor    %rsi,%r8
cmp    %rcx,%rdi
jne    1f
1:
## paddq, a chain: 2 cycles each (Zen 3's table: 1)
paddq %xmm0,%xmm1
paddq %xmm0,%xmm1
## two chains of punpckhdq: 2 cycles
punpckhdq %xmm2,%xmm0
punpckhdq %xmm2,%xmm3
## a byte next to a stored byte (sqlite3BtreeNext): cmpb waits for the store's commit, 8-13 cycles
andb $0xf9,1(%rdi)
cmpb $0,(%rdi)
## a byte stored, the next compared: 8-9 cycles (loads and stores meet by aligned 4-byte chunks)
movb $1,1(%rdi)
cmpb $0,(%rdi)
## a byte stored, one in the next 4-byte chunk compared: apart, under 1
movb $1,1(%rdi)
cmpb $0,4(%rdi)
## a word stored, its second byte compared: 14 cycles (not at the store's first byte)
movw %ax,(%rdi)
cmpb $0,1(%rdi)
## a word stored, its second byte loaded by movzx: forwarded, under 1
movw %ax,(%rdi)
movzbl 1(%rdi),%esi
## the same loaded by movsbl: 14-23 cycles
movw %ax,(%rdi)
movsbl 1(%rdi),%esi
## 8 bytes stored, the sixth compared: forwarded from the upper half, under 1
movq %rax,(%rdi)
cmpb $0,5(%rdi)
## 4 bytes stored, the second compared: 14-18 cycles
movl %eax,(%rdi)
cmpb $0,1(%rdi)
## 16 bytes stored, the second 8 loaded: forwarded, under 1 (sqlite3Select)
movups %xmm0,(%rdi)
mov 8(%rdi),%rax
