/* SPDX-License-Identifier: MIT */
/*
 * The branch predictor that --branch-sim simulates, one per thread: every
 * conditional jump of instrumented code reports its outcome here
 * (stub_abi.h, Branch), and a misprediction adds the model's penalty to the
 * thread's clock, so that it lands in the function, and the calling
 * context, where it happens.
 *
 * Which predictor: a block measurement says what a block costs when its
 * branches go the way they always go; what it misses is the branches that
 * go either way.  On random data no predictor beats the majority direction
 * (bench/probes/branch.c: Zen 5 mispredicts min(p, 1-p) of a random
 * branch), while patterns, loop exits and branches correlated with earlier
 * ones are learnt by the cores' TAGE-like predictors (the same probe: a
 * random sequence of period 16384 is learnt), which a per-branch counter
 * (callgrind's --branch-sim) cannot do: it gets interpreters' dispatch
 * wrong by a factor of several.  So this is a small TAGE (Seznec and
 * Michaud, "A case for (partially) TAgged GEometric history length branch
 * prediction", JILP 2006): a bimodal table and four tagged tables indexed
 * by the branch and 6 to 130 outcomes of global history.  Its size is the
 * core's capacity as measured: a branch on a random sequence repeated
 * with a period of 16384, 32768, 65536 is mispredicted 1, 16, 34 % of the
 * time on Zen 5 (timed natively), 3.5, 18, 36 % by 8192 entries a table;
 * 2048 a table learnt only a quarter of that (34 % at 16384).  That
 * matters where a program repeats the same work on the same data, as a
 * database sorting one table again does (144 KiB a thread).
 *
 * It is deterministic: the same run gives the same mispredictions (the
 * allocation's tie-break is a fixed sequence), so profiles stay exact.
 * Compiled -mgeneral-regs-only with the hot runtime; it runs between the
 * program's instructions, with its flags saved by the assembly half.
 * Indices are always masked, so a signal handler's branches landing in the
 * middle of an update cannot take it out of its tables.
 */
#include <stddef.h>
#include <stdint.h>

#include "rt.h"
#include "stub_abi.h"

#define BP_BASE_BITS 14
#define BP_TABLES 4
#define BP_TBITS 13
#define BP_TAG_BITS 10
#define BP_HIST 256 /* ring of outcomes, longer than the longest history */
#define BP_AGE_PERIOD (1u << 18) /* branches between halvings of the u bits */

static const unsigned hist_len[BP_TABLES] = {6, 16, 44, 130};

struct bp_entry {
	uint16_t tag;
	int8_t ctr; /* -4..3: taken when >= 0 */
	uint8_t u;  /* 0..3: how useful it has been */
};

/* Zeros (as mmap gives them) are the initial state, but for lfsr and fout
 * (state_new): counters weak, no history, nothing useful. */
struct rt_branch_state {
	int8_t base[1u << BP_BASE_BITS]; /* -2..1: taken when >= 0 */
	struct bp_entry t[BP_TABLES][1u << BP_TBITS];
	uint8_t hist[BP_HIST];
	uint32_t hpos;
	/* table i's history folded to its index's and its tag's widths */
	uint32_t fidx[BP_TABLES], ftag0[BP_TABLES], ftag1[BP_TABLES];
	/* where the outcome leaving each goes: hist_len % its width, set
	 * once, so that the hot path divides nothing (14 % of its
	 * instructions, callgrind on zlib) */
	uint8_t fout[BP_TABLES][3];
	uint32_t lfsr;    /* allocation tie-break */
	uint32_t age;     /* branches since the u bits were last halved */
	int8_t use_alt;   /* trust the alternative over a new entry when >= 0 */
};

/* A history of len outcomes folded to bits bits, one outcome in and the
 * one len back out (the JILP paper's circular shift register); shift is
 * len % bits. */
static uint32_t fold(uint32_t comp, uint32_t in, uint32_t out, unsigned shift, unsigned bits)
{
	comp = (comp << 1) | in;
	comp ^= out << shift;
	comp ^= comp >> bits;
	return comp & ((1u << bits) - 1);
}

static struct rt_branch_state *state_new(void)
{
	struct rt_branch_state *s = rt_mmap(sizeof *s);
	if (!s)
		return NULL;
	s->lfsr = 0xace1u;
	for (unsigned i = 0; i < BP_TABLES; i++) {
		s->fout[i][0] = (uint8_t)(hist_len[i] % BP_TBITS);
		s->fout[i][1] = (uint8_t)(hist_len[i] % BP_TAG_BITS);
		s->fout[i][2] = (uint8_t)(hist_len[i] % (BP_TAG_BITS - 1));
	}
	return s;
}

void rt_branch_free(struct pi_tls *t)
{
	t->branch = rt_drop_state(t->branch, sizeof(struct rt_branch_state));
}

static uint32_t index_of(const struct rt_branch_state *s, uint64_t pc, unsigned i)
{
	return (uint32_t)(pc ^ (pc >> (BP_TBITS - i)) ^ s->fidx[i]) & ((1u << BP_TBITS) - 1);
}

static uint16_t tag_of(const struct rt_branch_state *s, uint64_t pc, unsigned i)
{
	return (uint16_t)((pc ^ s->ftag0[i] ^ (s->ftag1[i] << 1)) & ((1u << BP_TAG_BITS) - 1));
}

static void ctr_update(int8_t *c, int taken, int lo, int hi)
{
	if (taken && *c < hi)
		(*c)++;
	else if (!taken && *c > lo)
		(*c)--;
}

/* Called by __profinst_branch (stubs.S) with the stub's word and the
 * TLS offset of its block's count of mispredictions. */
void pi_rt_branch(uint64_t word, int64_t counter)
{
	struct pi_tls *t = &__profinst_tls;
	if (t->dead & RT_HALTED)
		return;
	struct rt_branch_state *s = t->branch;
	if (!s) {
		s = state_new();
		if (!s)
			return; /* no memory: the run goes on without the simulation */
		s = t->branch = rt_keep_state(t->branch, s, sizeof *s);
	}
	int taken = (int)(word & 1);
	uint64_t pc = word >> STUB_BRANCH_SITE_SHIFT;

	uint32_t idx[BP_TABLES];
	uint16_t tag[BP_TABLES];
	int provider = -1, alt = -1;
	for (int i = BP_TABLES - 1; i >= 0; i--) {
		idx[i] = index_of(s, pc, (unsigned)i);
		tag[i] = tag_of(s, pc, (unsigned)i);
		if (s->t[i][idx[i]].tag == tag[i]) {
			if (provider < 0)
				provider = i;
			else if (alt < 0)
				alt = i;
		}
	}
	int8_t *b = &s->base[pc & ((1u << BP_BASE_BITS) - 1)];
	int base_pred = *b >= 0;
	int alt_pred = alt >= 0 ? s->t[alt][idx[alt]].ctr >= 0 : base_pred;
	int pred = base_pred, prov_pred = base_pred;
	struct bp_entry *pe = NULL;
	if (provider >= 0) {
		pe = &s->t[provider][idx[provider]];
		prov_pred = pe->ctr >= 0;
		/* a new entry (weak, never useful) is less sure than the
		 * alternative, as far as experience says */
		int weak = (pe->ctr == 0 || pe->ctr == -1) && pe->u == 0;
		pred = weak && s->use_alt >= 0 ? alt_pred : prov_pred;
		if (weak && prov_pred != alt_pred)
			ctr_update(&s->use_alt, alt_pred == taken, -8, 7);
	}

	if (pred != taken) {
		uint64_t cost = (word >> STUB_BRANCH_COST_SHIFT) & STUB_BRANCH_COST_MAX;
		t->clock += cost;
		/* the external's own branch mispredicted: its time, as the
		 * call's is (shadow.c), in its node's self and its caller's
		 * self+descendants; not from inside the runtime's own work
		 * on the stack, which a signal interrupted */
		struct rt_thread *th = t->th;
		struct rt_node *x = (struct rt_node *)t->ext_last;
		if ((word & STUB_BRANCH_EXT_RESULT) && !t->busy && th && th->depth && x &&
		    x->parent == th->stack[th->depth - 1].node) {
			th->stack[th->depth - 1].child += cost;
			x->self += cost;
			x->incl += cost;
		} else {
			++*rt_counter(counter);
		}
		/* a longer history might have known: allocate above the provider */
		int start = provider + 1;
		if (start < BP_TABLES) {
			int n = 0;
			for (int i = start; i < BP_TABLES; i++)
				n += s->t[i][idx[i]].u == 0;
			if (n) {
				/* among the free ones, the shortest usually, a
				 * longer one sometimes (a fixed sequence) */
				s->lfsr = (s->lfsr >> 1) ^ (-(s->lfsr & 1u) & 0xb400u);
				int skip = (s->lfsr & 3) == 0 && n > 1;
				for (int i = start; i < BP_TABLES; i++) {
					struct bp_entry *e = &s->t[i][idx[i]];
					if (e->u)
						continue;
					if (skip) {
						skip = 0;
						continue;
					}
					e->tag = tag[i];
					e->ctr = taken ? 0 : -1;
					e->u = 0;
					break;
				}
			} else {
				for (int i = start; i < BP_TABLES; i++)
					if (s->t[i][idx[i]].u)
						s->t[i][idx[i]].u--;
			}
		}
	}
	if (pe) {
		ctr_update(&pe->ctr, taken, -4, 3);
		if (prov_pred != alt_pred) {
			if (prov_pred == taken && pe->u < 3)
				pe->u++;
			else if (prov_pred != taken && pe->u > 0)
				pe->u--;
		}
	}
	/* the bimodal table learns where it predicts, and beside a new entry */
	if (!pe || (pe->u == 0 && alt < 0))
		ctr_update(b, taken, -2, 1);
	if (++s->age >= BP_AGE_PERIOD) {
		s->age = 0;
		for (unsigned i = 0; i < BP_TABLES; i++)
			for (uint32_t j = 0; j < (1u << BP_TBITS); j++)
				s->t[i][j].u >>= 1;
	}

	s->hpos++;
	s->hist[s->hpos & (BP_HIST - 1)] = (uint8_t)taken;
	for (unsigned i = 0; i < BP_TABLES; i++) {
		uint32_t out = s->hist[(s->hpos - hist_len[i]) & (BP_HIST - 1)];
		s->fidx[i] = fold(s->fidx[i], (uint32_t)taken, out, s->fout[i][0], BP_TBITS);
		s->ftag0[i] = fold(s->ftag0[i], (uint32_t)taken, out, s->fout[i][1], BP_TAG_BITS);
		s->ftag1[i] = fold(s->ftag1[i], (uint32_t)taken, out, s->fout[i][2], BP_TAG_BITS - 1);
	}
}
