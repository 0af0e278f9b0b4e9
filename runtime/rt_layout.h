/* SPDX-License-Identifier: MIT */
/*
 * Offsets of the runtime's structures, for the assembly fast paths in
 * stubs.S.  shadow.c checks every one of them against the C definitions
 * at compile time.
 */
#ifndef PI_RT_LAYOUT_H
#define PI_RT_LAYOUT_H

/* struct pi_tls */
#define TLS_CLOCK 0
#define TLS_TH 16
#define TLS_BUSY 24 /* busy and dead, two uint32_t: one 64-bit test */
#define TLS_FEPRED 56
#define TLS_DCREADY 72
#define TLS_PFHEAD 88
#define TLS_PFSEEN 96
#define TLS_CBTSC 112
#define TLS_EXTLAST 120
#define TLS_SPARE 128 /* unused[0]: pi_rt_probe_callback's stores */
#define TLS_DCWAIT 136
#define TLS_CLOCKPART 144
#define TLS_SKIPPED 168

/* struct pi_funcrec (libprof/format.h) */
#define FREC_ADDR 16
#define FREC_EXTFLAGS 48 /* size[0]: an external's PI_EXT_* flags */
#define FREC_EXTFIXED 52 /* size[1..3]: a PI_EXT_FIXED external's cost */
#define FREC_EXTPERBYTE 56
#define FREC_EXTARG 60
#define FREC_TARGET 24  /* addr[1]: a target record's target (targets.c) */

/* records for the targets of calls through pointers (targets.c) */
#define RT_TARGETS_BITS 8
#define RT_TARGETS 256

/* struct rt_thread */
#define TH_STACK 0
#define TH_DEPTH 8
#define TH_CAP 16
#define TH_CACHE 24
#define TH_FNACTIVE 32

/* struct rt_frame */
#define FRAME_SIZE 88
#define FR_NODE 0
#define FR_ALIAS 8
#define FR_SP 16
#define FR_ENTRY 24
#define FR_CHILD 32
#define FR_TAIL_TARGET 40
#define FR_TAIL 48
#define FR_EXT 56
#define FR_EXT_START 64
#define FR_EXT_TICKS 72
#define FR_FECALL 80

/* struct rt_node */
#define ND_FN 0
#define ND_PARENT 16
#define ND_RA 8
#define ND_LAST_HIT 40
#define ND_ALIAS 48
#define ND_CALLS 56
#define ND_RECCALLS 64
#define ND_SELF 72
#define ND_INCL 80
#define ND_MIN 88
#define ND_MAX 96
#define ND_OS 112
#define ND_OS_LEFT 120
#define FUNCREC_SHIFT 6 /* sizeof(struct pi_funcrec) == 64 */

#endif


#define RT_CACHE_BITS_ASM 16
