/* SPDX-License-Identifier: MIT */
#include "model.h"

#include <cpuid.h>
#include <stdlib.h>
#include <string.h>

#include "model/uarch_model.h"

#include "model/tables/icelake_server.inc"
#include "model/tables/skylake.inc"
#include "model/tables/znver3.inc"

#define N(a) (sizeof(a) / sizeof((a)[0]))

/* --cpu=instructions: every instruction costs one cycle, so a profile
 * counts instructions exactly as callgrind's Ir does. */
static uint32_t instructions_cost(const struct cpu_model *m, struct insn_descs *descs,
				  const struct x86_decoder *dx, const uint8_t *code, const struct insn *insns,
				  size_t n, unsigned ctx, struct model_stats *st)
{
	(void)m, (void)descs, (void)dx, (void)insns, (void)code, (void)ctx;
	if (st)
		st->insns += n;
	return (uint32_t)n;
}

/* The tables' ports by class (ALU, loads, store data, store addresses,
 * dividers): Skylake's P0-P7, DIV, FPDIV; Ice Lake's P0-P9, DIV, FPDIV and,
 * for Golden Cove, its fifth ALU and third load port (uarch_model.h). */
static const uint8_t skylake_class[UARCH_MAX_PORTS] = {1, 1, 2, 2, 3, 1, 1, 2, 5, 6, 7, 8, 9, 10, 11, 12};
static const uint8_t icelake_class[UARCH_MAX_PORTS] = {1, 1, 2, 2, 3, 1, 1, 4, 4, 3, 5, 6, 1, 2, 7, 8};

/* Machine parameters the tables do not hold: issue width (Intel's
 * optimization manual; AMD's software optimization guide), L1 load-use
 * latency, store-to-load forwarding (none where the core renames memory
 * operands: Golden Cove, Zen 3; measured on this machine's blocks for
 * Golden Cove), which renamer idioms the core has. */
/* The C library's costs on the models not measured here (no Skylake, Ice
 * Lake or Zen 3 machine at hand): derived from the nearest measured model
 * of the same vendor and core family, scaled where the models differ.
 * Skylake from goldencove_libc: fixed costs by the widths' ratio (4 to
 * 6: 1.5), a copy's or a fill's cost per KiB doubled (one 32-byte store a
 * cycle against two), a compare's or a search's by 1.5 (two loads a cycle
 * against three).  Ice Lake (server) from goldencove_libc: fixed costs by
 * 6/5, copies and fills as Golden Cove (two stores a cycle), compares and
 * searches by 1.5 (two loads). */
/* On every model, the C library's thread-local accessors (<ctype.h>'s
 * tables, errno) cost what strlen's fixed cost is: a call and a return
 * (bench/probes/libc.c measures them at strlen's on Zen 5). */
static const struct ext_fixed skylake_libc[] = {
	{"__memcpy_chk", 11, 32, 3, 0}, {"__memmove_chk", 11, 32, 3, 0}, {"__mempcpy_chk", 11, 32, 3, 0},
	{"__memset_chk", 11, 32, 3, 0}, {"__stpcpy_chk", 11, 0, 0, 0}, {"__strcat_chk", 18, 0, 0, 0},
	{"__strcpy_chk", 11, 0, 0, 0}, {"__strncpy_chk", 9, 36, 3, 0}, {"bcmp", 11, 12, 3, 0},
	{"calloc", 33, 96, 4, 0}, {"free", 17, 0, 0, 0}, {"malloc", 23, 0, 0, 0}, {"memchr", 8, 24, 3, 0},
	{"memcmp", 11, 12, 3, 0}, {"memcpy", 11, 32, 3, 0}, {"memmove", 11, 32, 3, 0},
	{"mempcpy", 11, 32, 3, 0}, {"memset", 11, 32, 3, 0}, {"realloc", 75, 0, 0, 23},
	{"stpcpy", 11, 0, 0, 0}, {"strcat", 18, 0, 0, 0}, {"strchr", 9, 0, 0, 0}, {"strcmp", 12, 0, 0, 0},
	{"strcpy", 11, 0, 0, 0}, {"strdup", 33, 0, 0, 0}, {"strlen", 9, 0, 0, 0}, {"strncmp", 8, 0, 0, 0},
	{"strncpy", 9, 36, 3, 0}, {"strnlen", 9, 0, 0, 0}, {"strrchr", 9, 0, 0, 0}, {"strcoll", 18, 0, 0, 0},
	{"strcspn", 15, 0, 0, 0}, {"strpbrk", 12, 0, 0, 0}, {"strspn", 11, 0, 0, 0},
	{"__ctype_b_loc", 9, 0, 0, 0}, {"__ctype_tolower_loc", 9, 0, 0, 0}, {"__ctype_toupper_loc", 9, 0, 0, 0},
	{"__errno_location", 9, 0, 0, 0},
};
static const struct ext_fixed icelake_libc[] = {
	{"__memcpy_chk", 8, 16, 3, 0}, {"__memmove_chk", 8, 16, 3, 0}, {"__mempcpy_chk", 8, 16, 3, 0},
	{"__memset_chk", 8, 16, 3, 0}, {"__stpcpy_chk", 8, 0, 0, 0}, {"__strcat_chk", 14, 0, 0, 0},
	{"__strcpy_chk", 8, 0, 0, 0}, {"__strncpy_chk", 7, 18, 3, 0}, {"bcmp", 8, 12, 3, 0},
	{"calloc", 26, 48, 4, 0}, {"free", 13, 0, 0, 0}, {"malloc", 18, 0, 0, 0}, {"memchr", 6, 24, 3, 0},
	{"memcmp", 8, 12, 3, 0}, {"memcpy", 8, 16, 3, 0}, {"memmove", 8, 16, 3, 0},
	{"mempcpy", 8, 16, 3, 0}, {"memset", 8, 16, 3, 0}, {"realloc", 60, 0, 0, 18},
	{"stpcpy", 8, 0, 0, 0}, {"strcat", 14, 0, 0, 0}, {"strchr", 7, 0, 0, 0}, {"strcmp", 10, 0, 0, 0},
	{"strcpy", 8, 0, 0, 0}, {"strdup", 26, 0, 0, 0}, {"strlen", 7, 0, 0, 0}, {"strncmp", 6, 0, 0, 0},
	{"strncpy", 7, 18, 3, 0}, {"strnlen", 7, 0, 0, 0}, {"strrchr", 7, 0, 0, 0}, {"strcoll", 14, 0, 0, 0},
	{"strcspn", 12, 0, 0, 0}, {"strpbrk", 10, 0, 0, 0}, {"strspn", 8, 0, 0, 0},
	{"__ctype_b_loc", 7, 0, 0, 0}, {"__ctype_tolower_loc", 7, 0, 0, 0}, {"__ctype_toupper_loc", 7, 0, 0, 0},
	{"__errno_location", 7, 0, 0, 0},
};

static const struct uarch skylake_u = {
	.forms = skylake_forms, .nforms = N(skylake_forms), .nports = 10, .port_class = skylake_class, .width = 4,
	.load_lat = 5, .fwd_lat = 5, .fwd_lat_slow = 5, .fwd_fail = 15, .alu = {0, 1, 5, 6}, .nalu = 4,
	.move_elim = true, .libc = skylake_libc, .nlibc = N(skylake_libc),
};
static const struct uarch icelake_u = {
	.forms = icelake_server_forms, .nforms = N(icelake_server_forms), .nports = 12,
	.port_class = icelake_class, .width = 5,
	.load_lat = 5, .fwd_lat = 5, .fwd_lat_slow = 5, .fwd_fail = 15, .alu = {0, 1, 5, 6}, .nalu = 4,
	.move_elim = false, .libc = icelake_libc, .nlibc = N(icelake_libc),
};
/* Golden Cove: the Ice Lake tables (LLVM 14 has no model of its own for
 * Sapphire Rapids: it falls back to Skylake's) with Golden Cove's width and
 * renamer, which eliminates moves and folds immediate adds. */
/* Forms whose cost on Golden Cove was measured on this machine with
 * bench/probes.py (bench/probes/goldencove.s: latency from a chain through
 * the result, reciprocal throughput from independent copies), where LLVM
 * 14's Ice Lake data are far off: its divides cost 76-102 cycles of latency
 * and 32-66 micro-ops (measured: 11-15 cycles, 6-10 apart); its shifts by
 * cl 3 cycles (measured: 1, through the flags they merge); divsd 14 and
 * sqrtsd 18 (measured: 13).  Sorted by form, in Ice Lake's port numbering
 * (the integer divider is on port 0, FPDIV is 11). */
static const struct form_cost goldencove_measured[] = {
	{"div r32", 11, 4, 600, {600}},
	{"div r64", 14, 4, 1000, {1000}},
	{"divsd x,x", 13, 1, 300, {100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 300}},
	{"idiv r32", 11, 4, 600, {600}},
	{"idiv r64", 14, 4, 1000, {1000}},
	{"lea rip", 1, 1, 100, {0, 100}}, /* lea of a RIP-relative address: one a cycle */
	{"rol r32,cl", 1, 2, 100, {100, 0, 0, 0, 0, 0, 100}},
	{"rol r64,cl", 1, 2, 100, {100, 0, 0, 0, 0, 0, 100}},
	{"ror r32,cl", 1, 2, 100, {100, 0, 0, 0, 0, 0, 100}},
	{"ror r64,cl", 1, 2, 100, {100, 0, 0, 0, 0, 0, 100}},
	{"sar r32,cl", 1, 2, 100, {100, 0, 0, 0, 0, 0, 100}},
	{"sar r64,cl", 1, 2, 100, {100, 0, 0, 0, 0, 0, 100}},
	{"shl r32,cl", 1, 2, 100, {100, 0, 0, 0, 0, 0, 100}},
	{"shl r64,cl", 1, 2, 100, {100, 0, 0, 0, 0, 0, 100}},
	{"shr r32,cl", 1, 2, 100, {100, 0, 0, 0, 0, 0, 100}},
	{"shr r64,cl", 1, 2, 100, {100, 0, 0, 0, 0, 0, 100}},
	{"sqrtsd x,x", 13, 1, 600, {100, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 600}},
};

/* Short C library functions the Golden Cove model costs instead of timing
 * each call: measured on a Sapphire Rapids machine by bench/probes/libc.c
 * (a loop calling each, its work overlapping the caller's as in a program;
 * timed, a call costs several times more, the clock's fences emptying the
 * pipeline around it).  memcpy and memset move about 64 bytes a cycle;
 * strings are taken as short.  memcmp's and strcmp's were measured on
 * buffers that differed at the first byte (the probe has been mended
 * since, on Zen 5: equal bytes cost memcmp 29 cycles a KiB there), so
 * their cost per KiB here is low.  realloc(NULL, n) is a malloc, and
 * costs one.  Those not measured there (calloc, strdup, the string copies,
 * searches and strncmp, memchr; bench/probes/libc.c measures them on
 * Zen 5) are zen5_libc's, scaled by the ratio of a sibling's costs on the
 * two cores (malloc's for calloc and strdup, strcmp's for strncmp and
 * strcoll, strlen's for the rest: strspn, strcspn, strpbrk too), and their
 * cost per KiB by memcpy's (a copy) or
 * memset's (a store or load stream).  pthread_mutex_lock and _unlock of
 * a free mutex while the process has one thread (PI_EXT_SOLO: glibc
 * then takes it without an atomic instruction), measured on an Emerald
 * Rapids machine (family 6, model 207: this model's cores) as a pair,
 * 15 cycles, split 8 and 7; a read-write lock's (PI_EXT_SOLO_RW: an
 * atomic instruction each), a read lock and unlock 61, a write lock and
 * unlock 80, the unlock taken as 30 after either; and pthread_once once
 * its initializer has run (PI_EXT_ONCE), 6; not measured on Zen 5, whose
 * model times them (zen3_libc's were measured on a Zen 3). */
static const struct ext_fixed goldencove_libc[] = {
	{"__memcpy_chk", 7, 16, 3, 0}, {"__memmove_chk", 7, 16, 3, 0}, {"__mempcpy_chk", 7, 16, 3, 0},
	{"__memset_chk", 7, 16, 3, 0}, {"__stpcpy_chk", 7, 0, 0, 0}, {"__strcat_chk", 12, 0, 0, 0},
	{"__strcpy_chk", 7, 0, 0, 0}, {"__strncpy_chk", 6, 18, 3, 0}, {"bcmp", 7, 8, 3, 0},
	{"calloc", 22, 48, 4, 0}, {"free", 11, 0, 0, 0}, {"malloc", 15, 0, 0, 0}, {"memchr", 5, 16, 3, 0},
	{"memcmp", 7, 8, 3, 0}, {"memcpy", 7, 16, 3, 0}, {"memmove", 7, 16, 3, 0},
	{"mempcpy", 7, 16, 3, 0}, {"memset", 7, 16, 3, 0}, {"realloc", 50, 0, 0, 15},
	{"stpcpy", 7, 0, 0, 0}, {"strcat", 12, 0, 0, 0}, {"strchr", 6, 0, 0, 0}, {"strcmp", 8, 0, 0, 0},
	{"strcpy", 7, 0, 0, 0}, {"strdup", 22, 0, 0, 0}, {"strlen", 6, 0, 0, 0}, {"strncmp", 5, 0, 0, 0},
	{"strncpy", 6, 18, 3, 0}, {"strnlen", 6, 0, 0, 0}, {"strrchr", 6, 0, 0, 0}, {"strcoll", 12, 0, 0, 0},
	{"strcspn", 10, 0, 0, 0}, {"strpbrk", 8, 0, 0, 0}, {"strspn", 7, 0, 0, 0},
	{"__ctype_b_loc", 6, 0, 0, 0}, {"__ctype_tolower_loc", 6, 0, 0, 0}, {"__ctype_toupper_loc", 6, 0, 0, 0},
	{"__errno_location", 6, 0, 0, 0}, {"pthread_mutex_lock", 8, 0, 0, 0}, {"pthread_mutex_unlock", 7, 0, 0, 0},
	{"pthread_once", 6, 0, 0, 0}, {"pthread_rwlock_rdlock", 31, 0, 0, 0},
	{"pthread_rwlock_wrlock", 50, 0, 0, 0}, {"pthread_rwlock_unlock", 30, 0, 0, 0},
};

static const struct uarch goldencove_u = {
	.forms = icelake_server_forms, .nforms = N(icelake_server_forms),
	.measured = goldencove_measured, .nmeasured = N(goldencove_measured), .nports = 14,
	.port_class = icelake_class, .width = 6,
	.load_lat = 5, .fwd_lat = 0, .fwd_lat_slow = 5, .alu = {0, 1, 5, 6}, .nalu = 4, .move_elim = true,
	.imm_add_folded = true, .golden_cove_ports = true, .load_bank = 2, .fwd_fail = 15, .store_pairs = true,
	.fadd_lat = 2, .table_fadd_lat = 4, /* Golden Cove's fast adders */
	.libc = goldencove_libc, .nlibc = N(goldencove_libc),
	.call_floor = 200, .ret_floor = 175, /* a call and return: 3.3-3.9 cycles (bench/probes/callret.c) */
};

/* Short C library functions on Zen 5, measured as goldencove_libc's were
 * (bench/probes/libc.c, on an EPYC of family 1Ah): a malloc and free 44
 * cycles as a heap of mixed sizes and lifetimes sees them (16 to 144
 * bytes; 21 when the same block is taken and given back over and over,
 * split 12 to 9, as here), memcpy about 45 bytes a cycle, memset 64,
 * memcmp of equal bytes 35; strings are taken as short.  memcmp of bytes that differ at a random
 * place costs about as much (4-7 cycles up to 128 bytes: where they differ
 * is not what its branches decide).
 * realloc(NULL, n) is a malloc: with a free, as malloc's.  (malloc, free
 * and realloc: where runtime/heap.c cannot follow the allocator, which
 * zen5_heap costs by path.)  free(NULL): 4.  calloc and free 32 cycles
 * as the same block (calloc 36 as malloc's mixed heap sees it), with 48 a
 * KiB of nmemb * size (arg 4: the product of the first two); strdup as
 * calloc without the clearing; strcpy 6, strncpy 5 and 25 a KiB of its
 * length (it pads), strchr 5, strncmp 4 on short strings, memchr 4 and 16
 * a KiB of its length.  strcat, not measured: strlen and strcpy.  strcoll
 * 9 in the C locale (strcmp's and a look at the locale; in another, its
 * time is measured: PI_EXT_C_LOCALE); strspn 6, strcspn 8 and strpbrk 7
 * over 8 bytes, taken as short too (their scans cost about 0.2 cycles a
 * byte more, and no argument says how far they go). */
static const struct ext_fixed zen5_libc[] = {
	{"__memcpy_chk", 5, 22, 3, 0}, {"__memmove_chk", 5, 22, 3, 0}, {"__mempcpy_chk", 5, 22, 3, 0},
	{"__memset_chk", 4, 16, 3, 0}, {"__stpcpy_chk", 6, 0, 0, 0}, {"__strcat_chk", 10, 0, 0, 0},
	{"__strcpy_chk", 6, 0, 0, 0}, {"__strncpy_chk", 5, 25, 3, 0}, {"bcmp", 6, 29, 3, 0},
	{"calloc", 36, 48, 4, 0}, {"free", 19, 0, 0, 4}, {"malloc", 25, 0, 0, 0}, {"memchr", 4, 16, 3, 0},
	{"memcmp", 6, 29, 3, 0}, {"memcpy", 5, 22, 3, 0}, {"memmove", 5, 22, 3, 0},
	{"mempcpy", 5, 22, 3, 0}, {"memset", 4, 16, 3, 0}, {"realloc", 50, 0, 0, 25},
	{"stpcpy", 6, 0, 0, 0}, {"strcat", 10, 0, 0, 0}, {"strchr", 5, 0, 0, 0}, {"strcmp", 6, 0, 0, 0},
	{"strcpy", 6, 0, 0, 0}, {"strdup", 36, 0, 0, 0}, {"strlen", 5, 0, 0, 0}, {"strncmp", 4, 0, 0, 0},
	{"strncpy", 5, 25, 3, 0}, {"strnlen", 5, 0, 0, 0}, {"strrchr", 5, 0, 0, 0}, {"strcoll", 9, 0, 0, 0},
	{"strcspn", 8, 0, 0, 0}, {"strpbrk", 7, 0, 0, 0}, {"strspn", 6, 0, 0, 0},
	{"__ctype_b_loc", 5, 0, 0, 0}, {"__ctype_tolower_loc", 5, 0, 0, 0}, {"__ctype_toupper_loc", 5, 0, 0, 0},
	{"__errno_location", 5, 0, 0, 0},
};

/* glibc's allocator on Zen 5 (bench/probes/heap.c, glibc 2.36, on an EPYC
 * of family 1Ah; hundredths of a cycle), by the path a call takes
 * (runtime/heap.c follows which): a malloc and a free of a block the
 * thread's cache (tcache: 7 blocks of each size up to 1032 bytes) serves or
 * takes, 20.0 the pair, split as the Sapphire Rapids probe split it; a
 * free beyond the cache (to a fast bin, blocks up to 128 bytes; to the
 * unsorted bin, up to 1040; a large block) and a malloc from the bins,
 * which refills the cache (the first of a run of small blocks also sorts
 * the unsorted bin: 160); a malloc with no free block of its size (the top
 * of the heap); free(NULL); a realloc that keeps its block, and what one
 * that moves it copies, at memcpy's rate. */
static const uint32_t zen5_heap[PI_HC_COUNT] = {
	[PI_HC_MALLOC_CACHED] = 1120, [PI_HC_FREE_CACHED] = 880,
	[PI_HC_FREE_BIN] = 1610, 2940, 2800,
	[PI_HC_MALLOC_BIN] = 3030, 16000, 2610,
	[PI_HC_MALLOC_TOP] = 2990, 3100, 2610,
	[PI_HC_FREE_NULL] = 400, [PI_HC_REALLOC_SAME] = 1500, [PI_HC_COPY_KIB] = 2200,
};

/* Zen 3's, not measured here: zen5_libc's and zen5_heap's (the same
 * family, the same six micro-ops a cycle for one thread), with a copy's
 * cost per KiB by the stores' rate (a 32-byte store a cycle where Zen 5
 * copies 45 bytes a cycle: 22 to 31), a fill's doubled (64 bytes a cycle
 * to 32), a compare's or a search's by 4/3 (three load pipes to four);
 * the allocator's paths as Zen 5's, its copies at Zen 3's rate.  But the
 * locks, measured on an EPYC of family 19h, model 1 (bench/probes/libc.c,
 * the least of six runs), as goldencove_libc's were: a plain mutex's lock
 * and unlock in a process of one thread (PI_EXT_SOLO) 19.5 cycles the
 * pair, 10 and 10; a read-write lock's read lock and unlock 20.2, write
 * lock and unlock 21.9, the unlock 10 after either; pthread_once once its
 * initializer has run (PI_EXT_ONCE), 7.  Without them every such call is
 * timed, two clock reads and the runtime's helpers around each (sqlite3's
 * driver locks and unlocks a mutex 73 000 times at argument 40). */
static const struct ext_fixed zen3_libc[] = {
	{"__memcpy_chk", 5, 31, 3, 0}, {"__memmove_chk", 5, 31, 3, 0}, {"__mempcpy_chk", 5, 31, 3, 0},
	{"__memset_chk", 4, 32, 3, 0}, {"__stpcpy_chk", 6, 0, 0, 0}, {"__strcat_chk", 10, 0, 0, 0},
	{"__strcpy_chk", 6, 0, 0, 0}, {"__strncpy_chk", 5, 35, 3, 0}, {"bcmp", 6, 39, 3, 0},
	{"calloc", 36, 96, 4, 0}, {"free", 19, 0, 0, 4}, {"malloc", 25, 0, 0, 0}, {"memchr", 4, 21, 3, 0},
	{"memcmp", 6, 39, 3, 0}, {"memcpy", 5, 31, 3, 0}, {"memmove", 5, 31, 3, 0},
	{"mempcpy", 5, 31, 3, 0}, {"memset", 4, 32, 3, 0}, {"realloc", 50, 0, 0, 25},
	{"stpcpy", 6, 0, 0, 0}, {"strcat", 10, 0, 0, 0}, {"strchr", 5, 0, 0, 0}, {"strcmp", 6, 0, 0, 0},
	{"strcpy", 6, 0, 0, 0}, {"strdup", 36, 0, 0, 0}, {"strlen", 5, 0, 0, 0}, {"strncmp", 4, 0, 0, 0},
	{"strncpy", 5, 35, 3, 0}, {"strnlen", 5, 0, 0, 0}, {"strrchr", 5, 0, 0, 0}, {"strcoll", 9, 0, 0, 0},
	{"strcspn", 8, 0, 0, 0}, {"strpbrk", 7, 0, 0, 0}, {"strspn", 6, 0, 0, 0},
	{"__ctype_b_loc", 5, 0, 0, 0}, {"__ctype_tolower_loc", 5, 0, 0, 0}, {"__ctype_toupper_loc", 5, 0, 0, 0},
	{"__errno_location", 5, 0, 0, 0}, {"pthread_mutex_lock", 10, 0, 0, 0}, {"pthread_mutex_unlock", 10, 0, 0, 0},
	{"pthread_once", 7, 0, 0, 0}, {"pthread_rwlock_rdlock", 10, 0, 0, 0},
	{"pthread_rwlock_wrlock", 12, 0, 0, 0}, {"pthread_rwlock_unlock", 10, 0, 0, 0},
};
static const uint32_t zen3_heap[PI_HC_COUNT] = {
	[PI_HC_MALLOC_CACHED] = 1120, [PI_HC_FREE_CACHED] = 880,
	[PI_HC_FREE_BIN] = 1610, 2940, 2800,
	[PI_HC_MALLOC_BIN] = 3030, 16000, 2610,
	[PI_HC_MALLOC_TOP] = 2990, 3100, 2610,
	[PI_HC_FREE_NULL] = 400, [PI_HC_REALLOC_SAME] = 1500, [PI_HC_COPY_KIB] = 3100,
};
static const struct uarch zen3_u = {
	.forms = znver3_forms, .nforms = N(znver3_forms), .nports = 16, .width = 6,
	.load_lat = 4, .fwd_lat = 0, .fwd_fail = 15, .alu = {0, 1, 2, 3}, .nalu = 4, .move_elim = true,
	.alu_cap = true, .libc = zen3_libc, .nlibc = N(zen3_libc), .heap = zen3_heap,
};

/* Forms measured on Zen 5 (bench/probes.py and bench/blocks.py on an EPYC
 * of family 1Ah) where Zen 3's table is far off: divides (Zen 3's table:
 * 17-20 cycles of latency), conditional jumps not taken, 0.35 cycles
 * each (Zen 3's table: 0.5; bench/probes/zen5.s: a fused compare and branch
 * alone 0.34-0.35, after a move 0.36-0.37), and floating-point compares, two a cycle
 * (one), in Zen 3's port numbering (the divider is on ALU0, branches on
 * ALU0 and BRU1, FP compares on FP0 and FP1). */
static const struct form_cost zen5_measured[] = {
	{"comisd x,m64", 11, 2, 50, {0, 0, 0, 0, 0, 0, 0, 0, 33, 0, 50, 50}},
	{"comisd x,x", 4, 2, 50, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 50, 50}},
	{"comiss x,x", 4, 2, 50, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 50, 50}},
	{"div r32", 10, 2, 600, {600}},
	{"div r64", 10, 2, 700, {700}},
	{"idiv r32", 10, 2, 600, {600}},
	{"idiv r64", 10, 2, 700, {700}},
	{"jb rel", 1, 1, 35, {35, 0, 0, 0, 35}},
	{"jbe rel", 1, 1, 35, {35, 0, 0, 0, 35}},
	{"jl rel", 1, 1, 35, {35, 0, 0, 0, 35}},
	{"jle rel", 1, 1, 35, {35, 0, 0, 0, 35}},
	{"jnb rel", 1, 1, 35, {35, 0, 0, 0, 35}},
	{"jnbe rel", 1, 1, 35, {35, 0, 0, 0, 35}},
	{"jnl rel", 1, 1, 35, {35, 0, 0, 0, 35}},
	{"jnle rel", 1, 1, 35, {35, 0, 0, 0, 35}},
	{"jno rel", 1, 1, 35, {35, 0, 0, 0, 35}},
	{"jnp rel", 1, 1, 35, {35, 0, 0, 0, 35}},
	{"jns rel", 1, 1, 35, {35, 0, 0, 0, 35}},
	{"jnz rel", 1, 1, 35, {35, 0, 0, 0, 35}},
	{"jo rel", 1, 1, 35, {35, 0, 0, 0, 35}},
	{"jp rel", 1, 1, 35, {35, 0, 0, 0, 35}},
	{"js rel", 1, 1, 35, {35, 0, 0, 0, 35}},
	{"jz rel", 1, 1, 35, {35, 0, 0, 0, 35}},
	{"ucomisd x,m64", 11, 2, 50, {0, 0, 0, 0, 0, 0, 0, 0, 33, 0, 50, 50}},
	{"ucomisd x,x", 4, 2, 50, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 50, 50}},
	{"ucomiss x,x", 4, 2, 50, {0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 50, 50}},
};

/* Zen 5 (family 1Ah): Zen 3's tables on Zen 5's wider core, which has 6
 * integer ALUs (Zen 3: 4), 4 address generators (3) and 4 load pipes (3),
 * and stores 2 a cycle (AMD's Software Optimization Guide for the AMD Zen5
 * Microarchitecture).  It dispatches 8 macro-ops a cycle, but one thread's
 * blocks measured here issue 6 (bench/data/blocks-measured-zen5.tsv: 8
 * leaves them 11 % under their measured cost).  LLVM 14 has no model of
 * Zen 4 or 5. */
/* Measured here (bench/probes/chase.c, a pointer chase over random lines
 * of a working set): 4.2 cycles a load up to 32 KiB, 15 from 64 to 256
 * KiB, 52-63 from 1 to 4 MiB, 230 at 8 MiB and 540-910 beyond 16 MiB.
 * The second level is Zen 5's 1 MiB; the third is what this core gets of
 * its CCD's shared 32 MiB, about 8 MiB (at 8 MiB two loads in three still
 * hit). */
static const struct cache_model zen5_cache = {
	.kib = {48, 1024, 8192},
	.latency = {4, 15, 56, 600},
	/* bench/probes/chase.c's pages: a line a page, cycles a load, 4.2 up
	 * to 64 pages, 11.6 from 128 to 512 (with the lines in the first
	 * level), 208 at 8192 pages (lines in the second level, 15): Zen 5's
	 * 96 and 4096 entries, a second-level hit 7 cycles, a walk 186 (in a
	 * virtual machine, two-dimensional) */
	.tlb_entries = {96, 4096},
	.tlb_latency = {7, 186},
	/* the out-of-order window: a 448-entry reorder buffer is some 128
	 * cycles of work at 3 to 4 instructions a cycle; and
	 * bench/probes/gather.c's gather through 128 MiB by a streamed index
	 * takes 68.6 cycles a step where the chase through the same lines
	 * takes 712 (a miss, a TLB miss and a walk): a dozen misses overlap.
	 * With these the simulation gives 67.2, and 2.4 against 1.9 at
	 * 256 KiB, 6.5 against 7.9 at 2 MiB */
	.window = 128,
	.mlp = 12,
	/* misses nothing waits for: bench/probes/scatter.c's histogram (a
	 * read-modify-write a step, at an index read from a stream) and
	 * scatter (a store a step), at random places of a table, cost 2.0-2.2
	 * cycles a step through 256 KiB (second-level hits), 3.3-3.4 through
	 * 4 MiB (third-level hits, first-level TLB misses), 10.6-13.8 through
	 * 32 MiB (memory and walks), against the 1.0 of their blocks: a dozen
	 * such misses in flight from the second level, two dozen from the
	 * third, four dozen from memory.  With these the simulation gives
	 * 2.0, 3.4, 13.7 (and 16.7 through 128 MiB, where they take 26-30:
	 * walks that miss too) */
	.overlap = {12, 24, 48},
};

static const struct uarch zen5_u = {
	.forms = znver3_forms, .nforms = N(znver3_forms), .nports = 16, .width = 6,
	.measured = zen5_measured, .nmeasured = N(zen5_measured),
	.fadd_lat = 2, .table_fadd_lat = 3, /* measured: Zen 5's adders take 2 cycles */
	.vec_int_lat = 2, /* measured: a chain of paddq, or of punpckhdq, 2 cycles each */
	/* a chain of loads measured here: 4 cycles each (Zen 3's table: 5) */
	.load_lat = 4, .table_load_lat = 5, .fwd_lat = 0, .fwd_lat_slow = 0, .fwd_fail = 15,
	.fwd_dword = true, /* bench/probes/zen5.s: "a byte next to a stored byte" */
	/* Lua's luaD_precall, six pushes and a CallInfo's fill: 11.6
	 * cycles a call with the stores' ports, 9.3 without, perf 8.6 */
	.flow_stores_queued = true,
	.fp_load_lat = 7, /* Zen 3's table: 7 for a load into a vector register */
	.alu = {0, 1, 2, 3}, .nalu = 4, .move_elim = true, .alu_cap = true,
	/* ALU0-3, BRU1, AGU0-2, LSU, ST: 4 -> 6 ALUs, 3 -> 4 AGUs and load
	 * pipes, 1 -> 2 stores a cycle */
	.press_pct = {67, 67, 67, 67, 0, 75, 75, 75, 75, 50},
	/* Zen 3's table has a store take two thirds of a cycle of its three
	 * load-store pipes (LSU 67), a load a third; Zen 5's four pipes take
	 * a store as a load, a quarter (bench/probes/zen5.s: 3 byte loads and
	 * 3 byte stores in 1.5 cycles); its other ports as press_pct */
	.store_press_pct = {[8] = 37},
	/* measured here (bench/probes/callret.c): a taken jump 0.6 cycles, a
	 * call and its return 4, overlapping with the work around them: 12
	 * ALU operations before the call take no longer, 24 add 0.6 cycles,
	 * and 48 before two calls and returns take 9.1 cycles where the
	 * floors of the blocks would give 14.2.  So the runtime charges them,
	 * as bubbles of a branch predictor that runs ahead of fetch by up to
	 * 12 cycles (the same probe's pattern: 8 gives 40.2 cycles to its 96
	 * operations and 8 calls, 16 gives 32.2; it takes 35.4) */
	.taken_floor = 60, .call_floor = 200, .ret_floor = 200, .fe_window = 1200,
	/* measured: add $8,%rsp; pop; pop in a loop take 2 cycles, push;
	 * push; sub $8,%rsp too (bench/data/blocks-measured-zen5.tsv) */
	.stack_sync = 1,
	/* measured: lea 1(%rax,%rbx) takes 2 cycles, two a cycle */
	.lea3_lat = 2,
	/* measured: 24 independent lea (%rsi,%rdi) in 4 cycles, six a cycle on
	 * the ALUs (bench/probes/callret.c; Zen 3's table: on the three
	 * address generators) */
	.lea_alu = true,
	.libc = zen5_libc, .nlibc = N(zen5_libc), .heap = zen5_heap,
	/* measured here (bench/probes/pagefault.c): the first touch of a
	 * fresh page takes 4.5-4.8 us of user time besides the kernel's
	 * 6 us, 15 500-17 800 cycles; bzip2's decompression, 16 700 a
	 * fault by perf's samples on its stores to new pages */
	.page_fault = 16000,
};

/* Mispredict penalties: zen5's is measured by bench/probes/branch.c (25-27
 * cycles on an EPYC of family 1Ah); the others are LLVM 14's
 * MispredictPenalty for the core (SchedMachineModel), not measured here. */
static const struct cpu_model models[] = {
	{
		.name = "instructions",
		.description = "every instruction costs 1 cycle (counts match callgrind's Ir)",
		.units = 1,
		.block_cost = instructions_cost,
		.rep_iter_cost = 1,
		.rep_counts_passes = 1,
	},
	{
		.name = "skylake",
		.description = "Intel Skylake (client): LLVM 14's scheduling tables, 4-wide",
		.units = UARCH_UNITS, .block_cost = uarch_block_cost, .rep_iter_cost = UARCH_UNITS, .charges_os = 1, .mispredict = 14 * UARCH_UNITS, .uarch = &skylake_u,
	},
	{
		.name = "icelake",
		.description = "Intel Ice Lake (server): LLVM 14's scheduling tables, 5-wide",
		.units = UARCH_UNITS, .block_cost = uarch_block_cost, .rep_iter_cost = UARCH_UNITS, .charges_os = 1, .mispredict = 14 * UARCH_UNITS, .uarch = &icelake_u,
	},
	{
		.name = "goldencove",
		.description = "Intel Golden Cove (Sapphire Rapids, Alder Lake P): Ice Lake's tables, 6-wide, moves and immediate adds resolved at rename",
		.units = UARCH_UNITS, .block_cost = uarch_block_cost, .rep_iter_cost = UARCH_UNITS, .charges_os = 1, .mispredict = 14 * UARCH_UNITS, .uarch = &goldencove_u,
	},
	{
		.name = "zen3",
		.description = "AMD Zen 3 (and the nearest model for Zen 4): LLVM 14's znver3 tables, 6-wide",
		.units = UARCH_UNITS, .block_cost = uarch_block_cost, .rep_iter_cost = UARCH_UNITS, .charges_os = 1, .mispredict = 17 * UARCH_UNITS, .uarch = &zen3_u,
	},
	{
		.name = "zen5",
		.description = "AMD Zen 5 (EPYC 9005, Ryzen 9000): Zen 3's tables, 6-wide, 6 ALUs, 4 loads a cycle; glibc's allocator costed by path",
		.units = UARCH_UNITS, .block_cost = uarch_block_cost, .rep_iter_cost = UARCH_UNITS, .charges_os = 1, .mispredict = 25 * UARCH_UNITS, .cache = &zen5_cache, .uarch = &zen5_u,
	},
};

struct frontend_costs model_frontend(const struct cpu_model *m)
{
	struct frontend_costs f = {0, 0, 0};
	const struct uarch *u = m->uarch;
	if (u && u->fe_window) {
		f.call = u->call_floor * m->units / 100;
		f.ret = u->ret_floor * m->units / 100;
		f.window = u->fe_window * m->units / 100;
	}
	return f;
}

struct cache_costs model_cache(const struct cpu_model *m)
{
	struct cache_costs c = {{0, 0, 0}, {0, 0, 0}, {0, 0}, {0, 0}, 0, 0, {0, 0, 0}};
	const struct cache_model *k = m->cache;
	if (!k)
		return c;
	for (int i = 0; i < 3; i++) {
		c.lines[i] = k->kib[i] * 1024 / 64;
		c.latency[i] = k->latency[i + 1] * m->units;
	}
	for (int i = 0; i < 2; i++) {
		c.tlb_entries[i] = k->tlb_entries[i];
		c.tlb_latency[i] = k->tlb_latency[i] * m->units;
	}
	c.window = k->window * m->units;
	c.mlp = k->mlp;
	for (int i = 0; i < 3; i++)
		c.overlap[i] = k->overlap[i];
	return c;
}

uint32_t model_rep_iter_cost(const struct cpu_model *m, const struct x86_decoder *dx, const uint8_t *code,
			     size_t len)
{
	struct insn_detail d;
	if (m->units == 1 || !insn_describe(dx, code, len, &d))
		return m->rep_iter_cost;
	const char *mn = strchr(d.form, ' '); /* after "rep " */
	mn = mn ? mn + 1 : d.form;
	if (strncmp(mn, "movs", 4) && strncmp(mn, "stos", 4))
		return m->units;
	unsigned bytes = 1;
	switch (mn[4]) {
	case 'w': bytes = 2; break;
	case 'd': bytes = 4; break;
	case 'q': bytes = 8; break;
	default: break;
	}
	uint32_t c = m->units * bytes / 32;
	return c ? c : 1;
}

const char *model_for_cpu(const struct cpu_id *id)
{
	if (!strcmp(id->vendor, "AuthenticAMD") || !strcmp(id->vendor, "HygonGenuine"))
		return id->family >= 0x1a ? "zen5" : "zen3"; /* 1Ah Zen 5; 19h Zen 3 and 4; older: nearest Zen 3 */
	if (strcmp(id->vendor, "GenuineIntel") || id->family != 6)
		return "goldencove";
	/* virtual machines may report another model number: Golden Cove's
	 * features tell (AVX512-FP16, AMX, or a hybrid part) */
	if (id->golden_cove_features)
		return "goldencove";
	switch (id->model) {
	case 0x4e: case 0x5e: case 0x55: case 0x8e: case 0x9e: case 0xa5: case 0xa6:
		return "skylake"; /* Skylake, Kaby/Coffee/Comet Lake, Cascade Lake */
	case 0x6a: case 0x6c: case 0x7d: case 0x7e: case 0x8c: case 0x8d: case 0xa7:
		return "icelake"; /* Ice Lake, Tiger Lake, Rocket Lake */
	default:
		return "goldencove"; /* Sapphire/Emerald Rapids, Alder/Raptor Lake, and newer */
	}
}

/* The model closest to the CPU running profinst, by CPUID. */
static const char *host_model(void)
{
	struct cpu_id id = {{0}, 0, 0, false};
	unsigned a, b, c, d;
	if (!__get_cpuid(0, &a, &b, &c, &d))
		return "goldencove";
	memcpy(id.vendor, &b, 4), memcpy(id.vendor + 4, &d, 4), memcpy(id.vendor + 8, &c, 4);
	if (__get_cpuid(1, &a, &b, &c, &d)) {
		id.family = (a >> 8) & 0xf;
		id.model = (a >> 4) & 0xf;
		if (id.family == 0xf)
			id.family += (a >> 20) & 0xff;
		if (id.family == 6 || id.family >= 0xf)
			id.model |= ((a >> 16) & 0xf) << 4;
	}
	unsigned a7, b7, c7, d7;
	id.golden_cove_features = __get_cpuid_count(7, 0, &a7, &b7, &c7, &d7) &&
				  (d7 & (1u << 23 | 1u << 24 | 1u << 15));
	return model_for_cpu(&id);
}

const struct cpu_model *model_find(const char *name)
{
	if (!strcmp(name, "host"))
		name = host_model();
	for (size_t i = 0; i < N(models); i++)
		if (!strcmp(models[i].name, name))
			return &models[i];
	return NULL;
}

static bool sorted(const struct form_cost *f, size_t n, const char *what, FILE *err)
{
	for (size_t i = 1; i < n; i++)
		if (strcmp(f[i - 1].form, f[i].form) >= 0) {
			fprintf(err, "%s: \"%s\" before \"%s\"\n", what, f[i - 1].form, f[i].form);
			return false;
		}
	return true;
}

bool model_tables_sorted(FILE *err)
{
	return sorted(skylake_forms, N(skylake_forms), "skylake", err) &
	       sorted(icelake_server_forms, N(icelake_server_forms), "icelake_server", err) &
	       sorted(znver3_forms, N(znver3_forms), "znver3", err) &
	       sorted(goldencove_measured, N(goldencove_measured), "goldencove_measured", err) &
	       sorted(zen5_measured, N(zen5_measured), "zen5_measured", err);
}

/* strcoll collates as strcmp in the C locale, which a program is in until
 * it sets another: its fixed cost holds until then (PI_EXT_C_LOCALE) */
static bool c_locale_only(const char *name)
{
	return !strcmp(name, "strcoll");
}

bool model_ext_cost(const struct cpu_model *m, const char *name, struct ext_cost *out)
{
	const struct uarch *u = m->uarch;
	for (size_t i = 0; u && i < u->nlibc; i++)
		if (!strcmp(u->libc[i].name, name)) {
			out->units = u->libc[i].cycles * m->units;
			/* units per byte, times 256 */
			out->per_byte_q8 = u->libc[i].per_kib * m->units / 4;
			out->arg = u->libc[i].arg;
			out->null_units = u->libc[i].null_cycles * m->units;
			out->heap = 0;
			out->c_locale = c_locale_only(name);
			if (u->heap)
				out->heap = !strcmp(name, "malloc")    ? PI_HEAP_MALLOC
					    : !strcmp(name, "free")    ? PI_HEAP_FREE
					    : !strcmp(name, "realloc") ? PI_HEAP_REALLOC
								       : 0;
			return true;
		}
	return false;
}

bool model_heap(const struct cpu_model *m, uint32_t out[PI_HC_COUNT])
{
	const struct uarch *u = m->uarch;
	for (int i = 0; i < PI_HC_COUNT; i++)
		out[i] = u && u->heap ? (u->heap[i] * m->units + 50) / 100 : 0;
	return u && u->heap;
}

uint32_t model_page_fault(const struct cpu_model *m)
{
	const struct uarch *u = m->uarch;
	return u ? u->page_fault * m->units : 0;
}

/* (enum pi_heap_cost's order) */
static const char *const heap_names[PI_HC_COUNT] = {
	"malloc_cached", "free_cached", "free_bin_fast", "free_bin_small", "free_bin_large",
	"malloc_bin_fast", "malloc_bin_small", "malloc_bin_large", "malloc_top_fast", "malloc_top_small",
	"malloc_top_large", "free_null", "realloc_same", "realloc_copy_kib",
};

void model_describe(const struct cpu_model *m, FILE *out)
{
	const struct uarch *u = m->uarch;
	double units = m->units;
	fprintf(out, "# %s: %s\n", m->name, m->description);
	fprintf(out, "# what the model fixes: a name, its value in cycles, what it is\n");
	if (u) {
		fprintf(out, "width %u micro-ops issued a cycle\n", u->width);
		fprintf(out, "load_latency %u a load's result after its address (a first-level hit)\n", u->load_lat);
		fprintf(out, "forward_fail %u a load a store before it cannot forward to: after the store's commit\n",
			u->fwd_fail);
	}
	if (m->mispredict)
		fprintf(out, "mispredict %.2f a mispredicted branch (--branch-sim)\n", m->mispredict / units);
	struct frontend_costs f = model_frontend(m);
	if (f.call || f.ret) {
		fprintf(out, "call_bubble %.2f the front end's, at a call\n", f.call / units);
		fprintf(out, "ret_bubble %.2f the front end's, at a return (the caller's)\n", f.ret / units);
		fprintf(out, "frontend_window %.2f the work fetched before a bubble that it overlaps with\n",
			f.window / units);
	}
	const struct cache_model *k = m->cache;
	for (int i = 0; k && i < 3; i++)
		fprintf(out, "cache_l%d %u a load waiting for a hit in this level of %u KiB (--cache-sim)\n", i + 1,
			k->latency[i], k->kib[i]);
	if (k) {
		fprintf(out, "memory %u a load waiting for memory (--cache-sim)\n", k->latency[3]);
		fprintf(out, "tlb_l1_miss %u and its %u entries of 4 KiB pages\n", k->tlb_latency[0],
			k->tlb_entries[0]);
		fprintf(out, "tlb_l2_miss %u a page walk, past the second level's %u entries\n", k->tlb_latency[1],
			k->tlb_entries[1]);
		fprintf(out, "cache_window %u the work the core goes on with while loads wait for misses\n",
			k->window);
		fprintf(out, "cache_mlp %u loads that wait for misses in flight before the core waits for them\n",
			k->mlp);
		static const char *const where[3] = {"l2", "l3", "memory"};
		for (int i = 0; i < 3; i++)
			if (k->overlap[i])
				fprintf(out, "cache_overlap_%s %u misses in flight that nothing waits for, hitting "
					"there: each costs its latency over this\n", where[i], k->overlap[i]);
	}
	for (size_t i = 0; u && i < u->nlibc; i++) {
		const struct ext_fixed *e = &u->libc[i];
		fprintf(out, "libc.%s %u a call", e->name, e->cycles);
		if (e->per_kib)
			fprintf(out, e->arg == 4 ? ", and %u a KiB of arguments 1 and 2's product"
						 : ", and %u a KiB of argument %u", e->per_kib, e->arg);
		if (e->null_cycles)
			fprintf(out, "; %u with a NULL pointer", e->null_cycles);
		if (c_locale_only(e->name))
			fputs(" in the C locale (after the program sets another: measured)", out);
		if (!strncmp(e->name, "pthread_mutex_", 14))
			fputs(" of a plain mutex while the process has one thread (else measured)", out);
		if (!strncmp(e->name, "pthread_rwlock_", 15))
			fputs(" of a read-write lock of the process's own while it has one thread (else measured)",
			      out);
		if (!strcmp(e->name, "pthread_once"))
			fputs(" once its initializer has run (before: measured)", out);
		fputc('\n', out);
	}
	uint32_t heap[PI_HC_COUNT];
	if (model_heap(m, heap))
		for (int i = 0; i < PI_HC_COUNT; i++)
			fprintf(out, "heap.%s %.2f a path through the allocator\n", heap_names[i], heap[i] / units);
	if (model_page_fault(m))
		fprintf(out, "page_fault %.0f a minor page fault: the user time of the instruction that takes it\n",
			model_page_fault(m) / units);
}

void model_list(FILE *out)
{
	for (size_t i = 0; i < N(models); i++) {
		fprintf(out, "%-14s %s", models[i].name, models[i].description);
		const struct cache_model *k = models[i].cache;
		if (k)
			fprintf(out, "; caches for --cache-sim: %u KiB, %u KiB, %u KiB", k->kib[0], k->kib[1],
				k->kib[2]);
		fputc('\n', out);
	}
	fprintf(out, "%-14s the model closest to this machine's CPU (default; here: %s)\n", "host",
		host_model());
}
