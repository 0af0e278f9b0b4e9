/* SPDX-License-Identifier: MIT */
/*
 * The counting runtime's frame nodes: each frame of instrumented code
 * keeps its node at a fixed distance from its CFA, in a mirror of the
 * stacks, so that the code after a call finds its own node again by one
 * load from an address it computes from %rsp, instead of following the
 * callee's node to its parent (a chain of loads and stores through the
 * thread's current-node word, call after call).
 *
 * The mirror is one reservation, made once: the CFAs from MIRROR_LO up to
 * the top of the user address space (where Linux puts the main stack, the
 * threads' stacks, the mappings and a PIE program's heap) have their words
 * MIRROR_SHIFT bytes below, in memory that is never touched but for the
 * frames' words.  A frame whose CFA lies elsewhere (a stack in the lower
 * addresses), or a process where the reservation could not be made (an
 * address-space limit), turns the thread's frame nodes off
 * (pi_tls.frames_off): its code then finds its node as before, through
 * the callee's node.
 *
 * The stubs add the distance (a 64-bit word, __profinst_frames.delta) to
 * %rsp themselves.  A %gs base of -MIRROR_SHIFT would fold that into one
 * instruction (mov %r11,%gs:disp(%rsp)), but the mirror lies below the
 * stacks and arch_prctl(ARCH_SET_GS) takes user addresses only; a mirror
 * above the stacks would be above the user address space.
 */
#include <stddef.h>
#include <stdint.h>
#include <sys/mman.h>
#include <sys/syscall.h>

#include "rt.h"
#include "stub_abi.h"

#define MIRROR_LO 0x510000000000ull   /* above the address sanitizer's shadow */
#define MIRROR_HI 0x800000000000ull   /* the end of the user address space */
/* Not a multiple of 4 KiB: the word of a frame whose CFA is c lies 2 KiB
 * from c within its page.  At a whole number of pages, the word shares
 * c's low 12 bits, and a Zen 3 takes the load of a caller's word after a
 * call, near the stores of the call's return address and the callee's
 * pushes in those bits, for one that depends on them: a small-call
 * program ran 4.2 times its native time where it runs 1.7 times this way
 * (bench/programs/tinycalls.c, AMD EPYC family 25 model 1). */
#define MIRROR_SHIFT (0x400000000000ull - 0x800)
_Static_assert(MIRROR_SHIFT % 4096 >= 256 && MIRROR_SHIFT % 4096 <= 4096 - 256,
	       "a frame's word far from its CFA in their pages' low bits");

/* Only len changes (from 0, once the mirror is made): an entry that reads
 * the words in any order finds either no range or the whole of it. */
struct pi_frames __profinst_frames __attribute__((visibility("default"))) = {
	.lo = MIRROR_LO,
	.base = MIRROR_LO - MIRROR_SHIFT,
	.delta = -MIRROR_SHIFT,
};

static uint32_t state; /* 0 not tried, 1 being made, 2 made, 3 failed */

static void mirror_make(void)
{
	uint32_t s = 0;
	if (!__atomic_compare_exchange_n(&state, &s, 1, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return;
	/* the words of the CFAs from MIRROR_LO to MIRROR_HI, in whole pages */
	uint64_t base = (MIRROR_LO - MIRROR_SHIFT) & ~4095ull, len = MIRROR_HI - MIRROR_LO + 4096;
	/* (a kernel before 4.17 takes MAP_FIXED_NOREPLACE as a hint) */
	long p = rt_syscall6(SYS_mmap, (long)base, (long)len, PROT_READ | PROT_WRITE,
			     MAP_PRIVATE | MAP_ANONYMOUS | MAP_NORESERVE | MAP_FIXED_NOREPLACE, -1, 0);
	if (p != (long)base) {
		if (!(p < 0 && p > -4096))
			rt_munmap((void *)p, len);
		__atomic_store_n(&state, 3, __ATOMIC_RELEASE);
		return;
	}
	/* a word now and then, far apart: no huge pages, and nothing in a
	 * core dump */
	rt_syscall6(SYS_madvise, p, (long)len, MADV_NOHUGEPAGE, 0, 0, 0);
	rt_syscall6(SYS_madvise, p, (long)len, MADV_DONTDUMP, 0, 0, 0);
	__atomic_store_n(&__profinst_frames.len, MIRROR_HI - MIRROR_LO, __ATOMIC_RELEASE);
	__atomic_store_n(&state, 2, __ATOMIC_RELEASE);
}

uint64_t pi_rt_cframe(uint64_t cfa)
{
	if (__atomic_load_n(&state, __ATOMIC_ACQUIRE) == 0)
		mirror_make();
	const struct pi_frames *f = &__profinst_frames;
	uint64_t len = __atomic_load_n(&f->len, __ATOMIC_ACQUIRE);
	if (cfa - f->lo < len)
		return cfa - f->lo + f->base;
	__profinst_tls.frames_off = 1;
	return 0;
}
