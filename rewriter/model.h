/* SPDX-License-Identifier: MIT */
/*
 * Timing models: a basic block in, fixed cycles out.  A model also says
 * what one iteration of a repeated string instruction costs, which the
 * runtime multiplies by the iteration count it observes (instructions
 * whose cost depends on a count known only when they run).
 */
#ifndef PI_MODEL_H
#define PI_MODEL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>

#include "decode.h"
#include "format.h"

struct insn_descs; /* insndesc.h */

/* What the models did with the instructions they costed: how many were
 * found in the model's tables and how many fell back to their category
 * (with the forms that did, for --model-stats). */
struct model_stats {
	uint64_t insns, fallback;
	struct form_count {
		char form[48];
		uint64_t n;
	} *missing;
	size_t nmissing, cap;
};

/* Where a block runs, as flags: BLOCK_REPEATED (0) back to back with
 * itself (a loop of one block, and what bench/blocks.py measures);
 * BLOCK_IN_FLOW between other blocks, whose work the core overlaps with its
 * own; BLOCK_RET_AT_CALLER, for a block ending in ret, that what the
 * return costs beyond a taken jump is charged where it returns to, not
 * here (where the front end resumes after the return, as a sampling
 * profiler sees it). */
enum block_context {
	BLOCK_REPEATED = 0,
	BLOCK_IN_FLOW = 1,
	BLOCK_RET_AT_CALLER = 2,
};

/* A core's data caches as --cache-sim sees them: capacity of the first,
 * second and third level (KiB), and the load-to-use latency (cycles) of a
 * hit in each and of memory; and its data TLBs: entries of the first and
 * second level (4 KiB pages), and what a load's first-level miss costs
 * (a second-level hit) and a second-level miss (a page walk). */
struct cache_model {
	uint32_t kib[3];
	uint32_t latency[4];
	uint32_t tlb_entries[2];
	uint32_t tlb_latency[2];
	/* the out-of-order window: cycles of work the core runs ahead of a
	 * load waiting for a miss, and how many such loads it keeps in
	 * flight (runtime/dcache.c) */
	uint32_t window;
	uint32_t mlp;
	/* how many misses that nothing waits for it keeps in flight, by
	 * where they hit: the second level, the third, memory */
	uint32_t overlap[3];
};

struct cpu_model {
	const char *name;
	const char *description;
	/* Costs are in 1/units of a cycle. */
	uint32_t units;
	/* Fixed cost of a straight-line block, in 1/units of a cycle, where it
	 * runs as ctx (BLOCK_* flags) says.  code is the section the
	 * instructions' offsets (insn.off) point into; their descriptions are
	 * in descs (by insn.desc), where the model also keeps what it makes
	 * of them between blocks, or, with descs NULL, the model describes
	 * their bytes with dx.  st, when not NULL, is updated. */
	uint32_t (*block_cost)(const struct cpu_model *m, struct insn_descs *descs, const struct x86_decoder *dx,
			       const uint8_t *code, const struct insn *insns, size_t n, unsigned ctx,
			       struct model_stats *st);
	/* Cost of one iteration of a rep-prefixed string instruction (units):
	 * see model_rep_iter_cost. */
	uint32_t rep_iter_cost;
	/* Count executions as valgrind does: a rep instruction executes once
	 * per iteration plus once more when it stops on %rcx == 0. */
	int rep_counts_passes;
	/* Time measured in external code and system calls is added to the
	 * profile's cycles (not under the instructions model, whose "cycles"
	 * are instruction counts). */
	int charges_os;
	/* What a mispredicted conditional branch costs (units), charged by the
	 * runtime's branch predictor under --branch-sim; 0: the model cannot
	 * simulate branches (instructions). */
	uint32_t mispredict;
	/* The data caches --cache-sim simulates, or NULL: the model cannot. */
	const struct cache_model *cache;
	const void *uarch; /* the model's own data (struct uarch), or NULL */
};

/* What one iteration of the rep-prefixed string instruction at code costs:
 * the model's rep_iter_cost, except that under a cycle model moves and
 * stores go at the fast-string rate (32 bytes a cycle) and compares and
 * scans at a cycle an element. */
uint32_t model_rep_iter_cost(const struct cpu_model *m, const struct x86_decoder *dx, const uint8_t *code,
			     size_t len);

/* The front end's bubbles (units) at a call into and a return from
 * instrumented code, and the window of work fetched before a bubble that
 * it overlaps with, for the runtime to charge (pi_objdesc); all 0 where
 * the model leaves them in the block costs (a block ending in a call or
 * return costs at least its floor). */
struct frontend_costs {
	uint32_t call, ret, window;
};
struct frontend_costs model_frontend(const struct cpu_model *m);

/* The runtime's view of m's caches (pi_objdesc.cache_lines, cache_latency,
 * tlb_entries, tlb_latency): each level's capacity in 64-byte lines, and
 * the latency of a hit in the second and third level and of memory
 * (units): a load that waits for a first-level hit waits for nothing the
 * block costs do not hold already; the TLBs' entries and what their
 * misses add (units); and the out-of-order window (units, and loads).
 * All 0 if m has none. */
struct cache_costs {
	uint32_t lines[3], latency[3];
	uint32_t tlb_entries[2], tlb_latency[2];
	uint32_t window, mlp;
	uint32_t overlap[3];
};
struct cache_costs model_cache(const struct cpu_model *m);

/* What a call of a short C library function costs under a model that
 * fixes it (calls whose cost their arguments determine), in the model's units:
 * units + per_byte_q8 * n / 256, n the argument arg names (0: none; 1, 2,
 * 3: the first, second, third). */
struct ext_cost {
	uint32_t units;
	uint32_t per_byte_q8;
	uint32_t arg;
	uint32_t null_units; /* the cost when the first argument is NULL (0: units) */
	uint32_t heap;       /* a PI_HEAP_* op the runtime's allocator model
				costs instead, or 0 (model_heap) */
	bool c_locale;       /* the cost holds in the C locale only
				(PI_EXT_C_LOCALE) */
};

/* Whether model m fixes the cost of the external function name; if so,
 * fills *out. */
bool model_ext_cost(const struct cpu_model *m, const char *name, struct ext_cost *out);

/* The costs of the allocator's paths (units, enum pi_heap_cost) that the
 * runtime's model of it charges malloc, free and realloc (runtime/heap.c);
 * false, and all 0, if m fixes their costs instead. */
bool model_heap(const struct cpu_model *m, uint32_t out[PI_HC_COUNT]);

/* What a minor page fault costs (units), charged by the runtime to the
 * function that takes it; 0 if m does not charge faults. */
uint32_t model_page_fault(const struct cpu_model *m);

/* What CPUID says of a processor: vendor string, family and model (with
 * their extended parts), and whether it has a feature only Golden Cove
 * class Intel cores have (AVX512-FP16, AMX, a hybrid part). */
struct cpu_id {
	char vendor[13];
	unsigned family, model;
	bool golden_cove_features;
};

/* The name of the model closest to the processor id describes. */
const char *model_for_cpu(const struct cpu_id *id);

/* The model called name, "host" for the one closest to this machine, or
 * NULL. */
const struct cpu_model *model_find(const char *name);
void model_list(FILE *out);
/* Print what m fixes (its width, latencies and penalties, caches, and the
 * costs of the C library functions and allocator paths it charges), a
 * line each: a name, its value in cycles, what it is. */
void model_describe(const struct cpu_model *m, FILE *out);

/* Whether every model's form tables are sorted for bsearch (the generated
 * ones and those measured by hand); names the first out of order on err. */
bool model_tables_sorted(FILE *err);

/* Count one instruction of form that fell back (for --model-stats). */
void model_stats_missing(struct model_stats *st, const char *form);
void model_stats_print(const struct model_stats *st, const struct cpu_model *m, FILE *out);
void model_stats_free(struct model_stats *st);

#endif
