/* SPDX-License-Identifier: MIT */
/* The analytical block model over one microarchitecture's tables. */
#ifndef PI_UARCH_MODEL_H
#define PI_UARCH_MODEL_H

#include <stdbool.h>

#include "model.h"
#include "uarch.h"

/* A short C library function's cost, in cycles: fixed, plus per KiB of the
 * length argument arg (1-3: the first to third; 4: the product of the
 * first two, as calloc's; 0 none). */
struct ext_fixed {
	const char *name;
	uint32_t cycles, per_kib, arg;
	uint32_t null_cycles; /* when the first argument is NULL (0: cycles) */
};

struct uarch {
	const struct form_cost *forms;
	size_t nforms;
	const struct form_cost *measured; /* forms measured on the core itself,
					     which take the tables' place (sorted) */
	size_t nmeasured;
	unsigned nports;
	const uint8_t *port_class; /* ports of one class do the same kind of work
				      (a form's pressure spread evenly over a
				      class may go to any of them); NULL: none */
	unsigned width;          /* micro-ops issued per cycle */
	unsigned load_lat;       /* L1 load-use latency (fallback forms) */
	unsigned fwd_lat;        /* a load forwarded from an earlier plain store
				    (0 where the core renames memory) */
	unsigned fwd_lat_slow;   /* from a push to a pop, or into a read-modify-
				    write with a register source (not renamed) */
	unsigned fwd_fail;       /* a load partly in an earlier store waits for it
				    to be written to the cache: after its commit */
	bool fwd_dword;          /* the core matches loads to stores by aligned
				    4-byte chunks: a load that shares one with
				    a store but none of its bytes waits as
				    fwd_fail, and so does one inside a store
				    that starts neither where the store does
				    nor from its fifth byte on in a store of 8
				    bytes or more; a movzx is matched and
				    forwarded by bytes */
	unsigned fadd_lat;       /* latency of a floating-point add where it is
				    less than the table's (table_fadd_lat) */
	unsigned table_fadd_lat;
	unsigned vec_int_lat;    /* latency of a one-cycle (in the table) vector
				    integer operation, where the core takes
				    longer (0: as the table says) */
	unsigned fp_load_lat;    /* the load-use latency the tables' memory forms
				    with a vector register result include, where
				    not load_lat (0: load_lat) */
	unsigned table_load_lat; /* the load-use latency the tables' memory forms
				    include where it is more than load_lat
				    (0: the same) */
	const struct ext_fixed *libc; /* short C library functions' costs, or NULL */
	size_t nlibc;
	const uint32_t *heap;    /* the allocator's paths' costs (hundredths, in
				    enum pi_heap_cost's order: malloc, free and
				    realloc costed by runtime/heap.c), or NULL */
	unsigned page_fault;     /* cycles of user time a minor page fault costs
				    the instruction that takes it, charged by
				    the runtime from the kernel's count
				    (runtime/faults.c; 0: not charged) */
	unsigned taken_floor;    /* least cost of a block ending in a taken
				    branch, in hundredths, where the core
				    takes more than one a cycle (0: one a
				    cycle, and such a block issues in whole
				    cycles) */
	unsigned lea3_lat;       /* latency of a lea of base + index +
				    displacement, which the core runs on half
				    its ALUs (0: as the tables say) */
	bool lea_alu;            /* a lea (not lea3's) runs on the ALUs, where
				    the tables have it on the address
				    generators */
	unsigned stack_sync;     /* cycles of the micro-op that brings %rsp up
				    to date when an instruction names it after
				    push, pop, call or ret moved it in the
				    stack engine (0: none on the chain) */
	unsigned fe_window;      /* hundredths: 0, a block ending in a call or
				    ret costs at least its floor; else the
				    runtime charges the floors at the call
				    and the return, as bubbles overlapping
				    with up to this much work fetched before
				    them (a branch predictor running ahead
				    of fetch), and the block costs leave
				    them out */
	unsigned call_floor;     /* least cost of a block ending in a call, and */
	unsigned ret_floor;      /* in a return, in hundredths (0: a cycle) */
	unsigned load_bank;      /* loads of one 8-byte bank of the first level
				    cache served per cycle (0: no limit) */
	bool store_pairs;        /* stores commit two a cycle only to one line */
	bool flow_stores_queued; /* in flow, plain stores' port work overlaps
				    with the blocks around it (the store
				    queue): only a loop is bound by it */
	unsigned alu[8], nalu;   /* the integer ALU ports, for fallbacks */
	bool move_elim;          /* register moves eliminated at rename */
	bool imm_add_folded;     /* add/sub of an immediate folded at rename */
	uint8_t press_pct[UARCH_MAX_PORTS]; /* each port's pressure in the tables
				    scaled (percent; 0: as it is) where the
				    core has more units of its kind than
				    the tables' core: the same work spread
				    over more of them */
	uint8_t store_press_pct[UARCH_MAX_PORTS]; /* the same for a form that
				    stores, on the ports where the core's
				    stores take a smaller share of a unit
				    (0: press_pct's) */
	bool alu_cap;            /* work a form spreads evenly over the ALUs
				    is at most a cycle of one ALU a micro-op
				    (LLVM 14's Zen 3 model gives `mov r32,i`
				    half a cycle on each of four ALUs, `mov
				    r64,i` a cycle on each) */
	bool golden_cove_ports;  /* Ice Lake's table on Golden Cove's ports:
				    a fifth ALU, a third load port, a second
				    store-data and store-address port */
};

/* Golden Cove's fifth ALU and third load port, after Ice Lake's ports
 * (P0-P9, DIV, FPDIV). */
#define GC_ALU5 12
#define GC_LOAD3 13

/* Costs in 64ths of a cycle: a block's steady-state cost is often below a
 * cycle, and the blocks measured here differ by less than 1/16 (a fused
 * compare and branch alone 0.34 cycles, after a move 0.37); a block under 2
 * cycles keeps its stub increment in an imm8. */
#define UARCH_UNITS 64

uint32_t uarch_block_cost(const struct cpu_model *m, struct insn_descs *descs, const struct x86_decoder *dx,
			  const uint8_t *code, const struct insn *insns, size_t n, unsigned ctx,
			  struct model_stats *st);

#endif
