/* SPDX-License-Identifier: MIT */
/*
 * The counting runtime (profinst --counts): the calling-context tree kept
 * by the stubs themselves, without helper calls on the way in or out, and
 * counts instead of clocks.
 *
 * A node (struct rt_cnode) holds a counter per block of its function and a
 * slot per call site: the stubs find a callee's node in the caller's slot,
 * so a call costs a few loads and stores and nothing runs at ret.  The
 * thread's current node is pi_tls.cur.  A direct call makes the callee's
 * node current itself and calls past the callee's entry stub; where the
 * slot is still empty (or %r11 is not free), it names the slot
 * (pi_tls.next) and the callee's %rsp at entry (pi_tls.nextsp), and the
 * entry stub, seeing that the call is the site's, takes the node from the
 * slot or asks for one here.  After the call the caller makes the callee's
 * fparent current again.  Anything else, a
 * call from code that is not instrumented (main, a callback, a signal
 * handler, a thread's start) or through a pointer, enters here: its node
 * hangs under the current one, and its return goes through a trampoline
 * (__profinst_ctramp) that puts the current node back.
 *
 * Cycles are the counts times the map's block costs, added up by the
 * profile's reader (the profile holds the nodes as they are: encode_tree):
 * the profile is the same from run to run by construction.
 */
#include "rt.h"

#include <stddef.h>
#include <string.h>
#include <sys/syscall.h>

#include "stub_abi.h"

struct citer;

/* Room for a start (the tables grow) */
#define TRAMP_FIRST 256
#define PARK_FIRST 16
#define PIECE_FIRST (64u << 10)
#define FIRST_MADE (16u << 10)
/* (a little under 1 MiB: two pieces and the chunk's header fit in one
 * huge page, where two whole MiBs took a second huge page, 2 MB cleared,
 * for their last bytes) */
#define PIECE ((1u << 20) - 64)
/* (the least of a chunk's rest taken for a piece, and what is left
 * there for the small allocations) */
#define PIECE_MIN (64u << 10)
#define KEEP_RESERVE (128u << 10)
#define MEMO_BITS STUB_MEMO_BITS /* entries, in sets of MEMO_WAYS */
#define MEMO_WAYS STUB_MEMO_WAYS

/* A call through a pointer whose target is not the one its site's node
 * keeps asks pi_rt_cptr for the target's node: the target's record by its
 * entry (a hash probe), then its node in the pointer node's list (a walk
 * that a site calling many functions makes long: Lua's luaD_precall calls
 * every C function of its libraries there).  The thread remembers the
 * answers, a pointer's node and a target to the target's node and the
 * place past its entry stub, in a table of sets of four (a site that
 * reaches 256 functions in turn missed a quarter of the time in one
 * direct-mapped); a miss takes the long way and puts the answer first in
 * its set, the oldest going.  Nodes live as long as the thread, so
 * an entry stays right; the table is cleared for the next thread, whose
 * nodes take the same memory (and a hit is checked: the node's parent is
 * the pointer's node and its function the target, which only the right
 * node can be). */
struct ptr_memo {
	/* (the node's own parent and function's entry, kept here too so that
	 * a set is searched without reading the nodes of its other ways) */
	struct rt_cnode *parent;
	uint64_t target;
	struct rt_cnode *node;
	uint64_t inner; /* (inner_addr) */
};
/* (the layout __profinst_cptr's fast path reads: stub_abi.h) */
_Static_assert(sizeof(struct ptr_memo) == 32 && offsetof(struct ptr_memo, target) == 8 &&
		       offsetof(struct ptr_memo, node) == 16 && offsetof(struct ptr_memo, inner) == 24,
	       "a memo entry, four words");

/* Where a function's stubs count when no node of its own can be had (no
 * memory): as large as the largest function's node, never read, its
 * slots always empty (their calls come back to it, as does its
 * fparent).  Counts there are lost; nothing else is overwritten. */
static struct rt_cnode *sink;

/* The node of no function, where nothing else can be had: room for the
 * counters and slots of the largest function of the images from first
 * on (a larger one's image replaces it). */
static uint64_t sink_room;

static void make_sink(uint32_t first)
{
	uint64_t most = sink ? sink_room : RT_EXT_WORDS > STUB_PTR_WORDS ? RT_EXT_WORDS : STUB_PTR_WORDS;
	for (uint32_t i = first, n = rt_image_count(); i < n; i++)
		for (const struct pi_objdesc *d = rt_images[i].desc.objs; d < rt_images[i].desc.objs_end; d++)
			if (d->node_words > most)
				most = d->node_words;
	if (sink && most <= sink_room)
		return;
	struct rt_cnode *s = rt_alloc_keep(sizeof(*s) + 8 * most);
	if (!s)
		return;
	s->fparent = s;
	s->slot = UINT32_MAX;
	s->windex = RT_CN_SKIP;
	sink_room = most;
	__atomic_store_n(&sink, s, __ATOMIC_RELEASE);
}

bool rt_counts_in_nodes;

/* The functions by name (check_resolve) are made again when next asked
 * for, the new image's with them. */
static void names_stale(void);

void rt_counting_init(void)
{
	/* (no objects: the shared runtime, whose images are a shared
	 * object's, the counting runtime's) */
	const struct pi_map_hdr *first = rt_first_map();
	rt_counts_in_nodes = !first || (first->reserved & PI_MAP_COUNTING);
	make_sink(0);
	names_stale(); /* (made before, and an image came since) */
}

void rt_counting_add(const struct rt_image *im)
{
	make_sink((uint32_t)(im - rt_images));
	names_stale();
}

/* An external's clock: its node's sp holds where it started (an
 * external's node is no frame of instrumented code, so the landing
 * search passes it by), 0 while a callback from it runs.  No lfence
 * before the rdtsc: the caller's work still in flight and the
 * external's first instructions overlap the read either way, and the
 * fences, which wait for the pipeline to drain at each end, were what a
 * measured call cost most (Lua's 751 653 calls of __snprintf_chk: the
 * run 6 % faster without, their measured 297-366 cycles a call with the
 * fences and 299-322 without, over two runs each, on Emerald Rapids). */
static inline uint64_t ext_now(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi)::"memory");
	return (uint64_t)hi << 32 | lo;
}

static struct rt_cthread *cthread(struct pi_tls *t)
{
	struct rt_thread *th = t->th ? t->th : rt_thread_init(t);
	if (!th)
		return NULL;
	if (!th->counting) {
		/* an ended thread's tables and arena (its nodes are in its
		 * rt_node tree now), or new ones */
		struct rt_cthread *ct = th->kit ? th->kit->counting : NULL;
		if (ct) {
			th->kit->counting = NULL;
			/* the first piece's nodes, zero again (the other pieces
			 * were fresh memory, and new_cnode does not clear) */
			char *a = ct->arena;
			uint64_t used = a >= ct->first_piece && a <= ct->first_piece + PIECE_FIRST
						? (uint64_t)(a - ct->first_piece) : PIECE_FIRST;
			if (ct->first_piece)
				rt_zero(ct->first_piece, used);
			rt_zero(&ct->root, sizeof(ct->root));
			rt_zero(&ct->root_aux, sizeof(ct->root_aux));
			if (ct->memo)
				rt_zero(ct->memo, sizeof(*ct->memo) << MEMO_BITS);
			ct->ntramp = ct->npark = ct->nnest = 0;
			ct->arena_end = NULL;
			ct->arena = ct->first_piece ? ct->first_piece + sizeof(struct rt_piece) : NULL;
			ct->arena_end = ct->first_piece ? ct->first_piece + PIECE_FIRST : NULL;
			ct->encodings = 0;
		} else {
			ct = rt_alloc_keep(sizeof(*ct));
			if (!ct)
				return NULL;
			ct->tramp = rt_alloc_keep(TRAMP_FIRST * sizeof(struct rt_tramp));
			ct->tcap = TRAMP_FIRST;
			ct->park = rt_alloc_keep(PARK_FIRST * sizeof(struct rt_tramp));
			ct->pcap = PARK_FIRST;
			ct->first_piece = rt_alloc_keep(PIECE_FIRST);
			ct->memo = rt_alloc_keep(sizeof(*ct->memo) << MEMO_BITS); /* (untouched until used) */
			if (!ct->tramp || !ct->park || !ct->first_piece)
				return NULL;
			ct->arena = ct->first_piece + sizeof(struct rt_piece);
			/* (its first pages made at once, as arena_more makes the
			 * rest: a thread that makes few nodes makes few pages) */
			rt_populate(ct->first_piece, FIRST_MADE);
			ct->arena_end = ct->first_piece + FIRST_MADE;
		}
		if (ct->first_piece) {
			ct->last_piece = (struct rt_piece *)ct->first_piece;
			*ct->last_piece = (struct rt_piece){.size = PIECE_FIRST};
		}
		ct->root.slot = UINT32_MAX;
		ct->root.aux = &ct->root_aux;
		th->counting = ct;
		t->memo = ct->memo;
	}
	return th->counting;
}

/* a node's room in its arena */
static inline uint64_t node_bytes(uint32_t nblocks, uint32_t nslots)
{
	return (sizeof(struct rt_cnode) + 8ull * (nblocks + nslots) + 15) & ~15ull;
}

/* Room for a node of size bytes where ct's arena's made pages end (at,
 * which the add took): at, where its piece goes on, its next pages made;
 * else the start of a new piece.  The pages are made MAKE_STEP at a time
 * as the nodes reach them (nodes are made one by one, and a slot is read
 * before it is written: a small page took a read fault and then a write
 * fault; a piece made whole at once made a last piece's unused pages
 * too). */
#define MAKE_STEP (256u << 10)

/* The pages from `from' to `to' (rounded up to a step, at most `limit')
 * made; where they end */
static char *make_pages(char *from, char *to, char *limit)
{
	char *end = (char *)(((uint64_t)to + MAKE_STEP - 1) & ~(uint64_t)(MAKE_STEP - 1));
	if (end > limit)
		end = limit;
	rt_populate(from, (uint64_t)(end - from));
	return end;
}

static struct rt_cnode *arena_more(struct rt_cthread *ct, char *at, uint64_t size)
{
	uint64_t hdr = sizeof(struct rt_piece);
	struct rt_piece *pc = __atomic_load_n(&ct->last_piece, __ATOMIC_RELAXED);
	char *was = __atomic_load_n(&ct->arena_end, __ATOMIC_RELAXED);
	if (pc && was && at >= (char *)pc + hdr && at + size <= (char *)pc + pc->size) {
		char *end = make_pages(at, at + size, (char *)pc + pc->size);
		/* (a handler's entry that moved the end meanwhile, or took a
		 * piece, keeps its own) */
		__atomic_compare_exchange_n(&ct->arena_end, &was, end, false, __ATOMIC_RELAXED, __ATOMIC_RELAXED);
		return (struct rt_cnode *)at;
	}
	uint64_t most = size + hdr > PIECE ? size + hdr : PIECE, piece;
	char *p = rt_alloc_keep_upto(size + hdr > PIECE_MIN ? size + hdr : PIECE_MIN, most, KEEP_RESERVE, &piece);
	if (!p)
		return NULL;
	char *end = make_pages(p, p + hdr + size, p + piece);
	/* no end first: a handler's entry meanwhile takes a piece of its
	 * own (lost room, never shared room) */
	__atomic_store_n(&ct->arena_end, NULL, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&ct->arena, p + hdr + size, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	__atomic_store_n(&ct->arena_end, end, __ATOMIC_RELAXED);
	/* listed after: a handler's piece, taken meanwhile, comes first, and
	 * so do its nodes; one that comes between the two stores below lists
	 * its own after this one, whose nodes it may be the parent of (the
	 * encoding then walks the tree instead) */
	struct rt_piece *npc = (struct rt_piece *)p;
	npc->size = piece;
	struct rt_piece *prev = __atomic_exchange_n(&ct->last_piece, npc, __ATOMIC_RELAXED);
	if (prev)
		__atomic_store_n(&prev->next, npc, __ATOMIC_RELAXED);
	return (struct rt_cnode *)(p + hdr);
}

static struct rt_cnode *new_cnode(struct rt_cthread *ct, const struct pi_funcrec *fn, struct rt_cnode *parent,
				  uint32_t slot, struct rt_cnode *fparent)
{
	/* an external's calls and bytes; a pointer's last callee (and, for
	 * an external's site, room for its stub's bytes) */
	uint32_t nblocks = fn ? RT_EXT_WORDS : STUB_PTR_WORDS, nslots = 0;
	if (fn && !rt_is_external(fn)) {
		nblocks = pi_obj_shapes(pi_rec_obj(fn))[fn->index].nblocks;
		nslots = fn->nslots;
	}
	uint64_t size = node_bytes(nblocks, nslots);
	/* One add takes the room, so that a signal handler's entry, which
	 * may come in the middle of this, takes other room; a piece that is
	 * full is left (the process's allocator is lock-free). */
	struct rt_cnode *n = NULL;
	if (ct) {
		char *at = (char *)rt_thread_fetch_add((uint64_t *)&ct->arena, size);
		char *end = __atomic_load_n(&ct->arena_end, __ATOMIC_RELAXED);
		if (at && end && at + size <= end && at >= end - PIECE - size)
			n = (struct rt_cnode *)at;
		else if (!(n = arena_more(ct, at, size)))
			return NULL;
	} else if ((n = rt_alloc_keep(size)))
		n->windex = RT_CN_SKIP; /* (in no arena: its tree's encoding
					   walks around it) */
	else
		return NULL;
	/* (zero: fresh memory, or the first piece cleared for this thread) */
	n->fn = fn;
	n->parent = parent;
	n->fparent = fparent;
	n->slot = slot;
	n->nblocks = nblocks;
	n->nslots = nslots;
	n->ptrsite = fn ? 0 : STUB_CN_POINTER;
	return n;
}

/* The node for fn in the list at *head, added if it is not there: first
 * if the list is empty, else second (the first of a slot is the one the
 * stubs read, and stays).  The add is one compare-and-swap, and the
 * search starts again when it fails: a signal handler's entry that comes
 * in the middle may add to the same list, and neither add is lost. */
static struct rt_cnode *list_child(struct rt_cthread *ct, struct rt_cnode **head, struct rt_cnode *parent,
				   uint32_t slot, const struct pi_funcrec *fn, struct rt_cnode *fparent)
{
	struct rt_cnode *c = NULL;
	for (;;) {
		struct rt_cnode *first = __atomic_load_n(head, __ATOMIC_ACQUIRE);
		for (struct rt_cnode *x = first; x; x = __atomic_load_n(&x->sibling, __ATOMIC_ACQUIRE))
			if (x->fn == fn) {
				if (c)
					c->lost = 1; /* (lost room, which the encoding passes) */
				return x;
			}
		if (!c && !(c = new_cnode(ct, fn, parent, slot, fparent)))
			return NULL;
		struct rt_cnode **at = first ? &first->sibling : head;
		struct rt_cnode *expect = __atomic_load_n(at, __ATOMIC_ACQUIRE);
		if (!first && expect)
			continue; /* (a first came meanwhile) */
		c->sibling = expect;
		if (rt_thread_cas((void **)at, (void **)&expect, c))
			return c;
	}
}

/* The child of parent in slot (a call site's) for fn: a direct call's
 * slot holds one function; a call through a pointer may find others
 * there, chained (the stubs read the first). */
static struct rt_cnode *slot_child(struct rt_cthread *ct, struct rt_cnode *parent, uint32_t slot,
				   const struct pi_funcrec *fn, bool tail)
{
	if (parent == sink)
		return sink;
	return list_child(ct, rt_cnode_slots(parent) + slot, parent, slot, fn, tail ? parent->fparent : parent);
}

static struct rt_cnode *outside_child(struct rt_cthread *ct, struct rt_cnode *parent, const struct pi_funcrec *fn,
				     struct rt_cnode *fparent)
{
	if (parent == sink)
		return sink;
	struct rt_caux *aux = rt_cnode_aux(parent);
	return aux ? list_child(ct, &aux->outside, parent, UINT32_MAX, fn, fparent) : NULL;
}

/* Whether the word at addr is v, read by the kernel: addr may be a stack
 * that is gone (a signal stack unmapped since), which reads as not v. */
static bool word_is(uint64_t addr, uint64_t v)
{
	uint64_t w = 0;
	struct {
		void *base;
		uint64_t len;
	} local = {&w, 8}, remote = {(void *)addr, 8};
	long pid = rt_syscall6(SYS_getpid, 0, 0, 0, 0, 0, 0);
	return rt_syscall6(SYS_process_vm_readv, pid, (long)&local, 1, (long)&remote, 1, 0) == 8 && w == v;
}

/* Forget the records of sp's stack below sp: their functions are gone
 * (a longjmp or an exception went past their returns).  The others keep
 * their order. */
static void drop_dead(struct rt_cthread *ct, uint64_t sp)
{
	uint32_t k = 0;
	for (uint32_t m = 0; m < ct->ntramp; m++) {
		uint64_t s = ct->tramp[m].sp;
		if (!(s < sp && sp - s < RT_STACK_SPAN))
			ct->tramp[k++] = ct->tramp[m];
	}
	ct->ntramp = k;
	/* and the nest's newest, of handlers a longjmp left */
	for (uint32_t i; (i = __atomic_load_n(&ct->nnest, __ATOMIC_RELAXED)) > 0;) {
		uint64_t s = ct->nest[i - 1].sp;
		if (!(s < sp && sp - s < RT_STACK_SPAN))
			break;
		__atomic_fetch_sub(&ct->nnest, 1, __ATOMIC_RELAXED);
	}
}

static bool grow_tramp(struct rt_cthread *ct)
{
	struct rt_tramp *n = rt_alloc_keep(2ull * ct->tcap * sizeof(*n));
	if (!n)
		return false;
	rt_copy(n, ct->tramp, ct->ntramp * sizeof(*n));
	ct->tramp = n;
	ct->tcap *= 2;
	return true;
}

/* The slot a call site named: its index in parent's slots, or -1. */
static int64_t slot_index(const struct rt_cnode *parent, uint64_t slotaddr)
{
	uint64_t base = (uint64_t)rt_cnode_slots((struct rt_cnode *)parent);
	if (slotaddr < base || slotaddr >= base + 8ull * parent->nslots || (slotaddr - base) % 8)
		return -1;
	return (int64_t)((slotaddr - base) / 8);
}

/* A pointer's node p keeps n, fn's node, as its last callee's
 * (counts[0]), for the entry stub of fn to take; and, where the thread's
 * frames keep their nodes and fn can be entered past its entry stub, fn's
 * entry and the address past its stub (counts[2], counts[3]): the site
 * then does the entry's work itself and calls past the stub (layout.c,
 * emit_cptrcall).  The callee kept before moves to the second words
 * (counts[4..6]), which the site tries next.  Each entry goes last, so
 * that a signal handler between never finds the other words of another
 * function (the same function kept in both meanwhile is right in both). */
static void keep_callee_at(struct pi_tls *t, struct rt_cnode *p, struct rt_cnode *n, uint64_t entry, uint64_t inner)
{
	uint64_t *w = p->counts;
	if (w[STUB_PTR_CALLEE] != (uint64_t)n) {
		w[STUB_PTR_ENTRY2] = 0;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		w[STUB_PTR_CALLEE2] = w[STUB_PTR_CALLEE];
		w[STUB_PTR_INNER2] = w[STUB_PTR_INNER];
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		w[STUB_PTR_ENTRY2] = w[STUB_PTR_ENTRY];
	}
	w[STUB_PTR_ENTRY] = 0;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	w[STUB_PTR_CALLEE] = (uint64_t)n;
	if (!inner || t->frames_off)
		return;
	w[STUB_PTR_INNER] = inner;
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	w[STUB_PTR_ENTRY] = entry;
}

/* The address past fn's entry stub, 0 where it cannot be entered there */
static uint64_t inner_addr(const struct pi_funcrec *fn)
{
	if (rt_is_external(fn))
		return 0;
	uint32_t inner = pi_map_funcs(pi_obj_map(pi_rec_obj(fn)))[fn->index].flags >> PI_FUNC_INNER_SHIFT;
	return inner ? pi_rec_addr(fn, 0) + inner : 0;
}

static void keep_callee(struct pi_tls *t, struct rt_cnode *p, struct rt_cnode *n, const struct pi_funcrec *fn)
{
	keep_callee_at(t, p, n, pi_rec_addr(fn, 0), inner_addr(fn));
}

/*
 * A function's entry that its stub could not settle: fn's record, sp its
 * %rsp at entry (the return address's slot).  Either a site set the call
 * up (nextsp == sp) and its slot is empty or holds another function (a
 * call through a pointer), or the call came from outside.
 */
void pi_rt_centry(const struct pi_funcrec *fn, uint64_t sp)
{
	struct pi_tls *t = &__profinst_tls;
	/* where a timed external's clock paused (__profinst_centry), if this
	 * is its callback */
	uint64_t paused_at = t->cb_tsc;
	t->cb_tsc = 0;
	t->cb_hint = 0;
	/* the call words as the code this entry may interrupt left them */
	uint64_t was_next = t->next, was_nextsp = t->nextsp, was_target = t->target;
	/* The function's code counts in the current node as soon as this
	 * returns: it must be one of fn's, or the sink, even where this
	 * interrupts the runtime (a signal handler's entry: entered false,
	 * and the trampoline table may be in the middle of a change). */
	bool entered = rt_enter(t);
	struct rt_cthread *ct = entered ? cthread(t) : t->th ? t->th->counting : NULL;
	if (!ct) {
		/* no thread's tree yet, or no memory (the runtime code this
		 * interrupts, if any, sets the current node when it ends) */
		struct rt_cnode *n = new_cnode(NULL, fn, t->cur, UINT32_MAX, t->cur);
		if (n)
			n->calls++;
		if (n || sink)
			t->cur = n ? n : sink;
		t->nextsp = 0;
		goto out;
	}
	struct rt_cnode *parent = t->cur ? t->cur : &ct->root;
	struct rt_cnode *n = NULL;
	if ((t->nextsp & ~1ull) == sp - 8 && t->cur) {
		int64_t s = t->nextsp & 1 ? -1 : slot_index(parent, t->next);
		if (t->nextsp & 1) {
			/* through a pointer: under the site's node for it; the
			 * site's stub makes the caller current after the call,
			 * from this node or, if the target was not
			 * instrumented, from the site's */
			if (!parent->fn && (n = outside_child(ct, parent, fn, parent->fparent)) &&
			    parent->ptrsite == STUB_CN_POINTER)
				keep_callee(t, parent, n, fn); /* the next call to fn takes it at entry */
		} else if (s >= 0) {
			uint32_t nsites = pi_obj_shapes(pi_rec_obj(parent->fn))[parent->fn->index].nsites;
			n = slot_child(ct, parent, (uint32_t)s, fn, (uint64_t)s >= nsites);
		}
	}
	t->nextsp = 0;
	if (n) {
		n->calls++;
		n->sp = sp - 8;
		t->cur = n;
		goto out;
	}
	/* A function entered with nothing instrumented below it returned
	 * without a trampoline: its node stays current until an entry from
	 * outside finds its frame gone (the entry is not below it, or its
	 * return address is not there any more).  So does what ran under it,
	 * left by an exception or a longjmp into code that is not
	 * instrumented (a program's catch around a shared object's call):
	 * an external's node, whose call never returned, is current still,
	 * and the nearest such function above it is the one to look at. */
	for (;;) {
		struct rt_cnode *o = parent;
		if (o->fn && rt_is_external(o->fn))
			while (o != &ct->root && o->ptrsite != STUB_CN_OUTERMOST && o->fparent)
				o = o->fparent;
		if (o->ptrsite != STUB_CN_OUTERMOST || (sp < o->sp + 8 && o->aux && word_is(o->sp + 8, o->aux->root_ra)))
			break;
		parent = o->fparent ? o->fparent : &ct->root;
	}
	/* from outside: under the current node, back through the trampoline;
	 * an external's clock stops while its callback runs */
	bool paused = parent->fn && rt_is_external(parent->fn) && parent->sp;
	if (paused) {
		/* less the stubs' own share of the time since it ran again
		 * (pi_rt_probe_ccallback) */
		uint64_t at = paused_at ? paused_at : ext_now();
		uint64_t ran = at > parent->sp ? at - parent->sp : 0;
		if (paused_at)
			ran = ran > rt_ccb_overhead_ticks ? ran - rt_ccb_overhead_ticks : 0;
		parent->counts[RT_EXT_OS] += ran;
		parent->sp = 0;
	}
	/* a context's first function (makecontext), entered from a
	 * swapcontext or setcontext: a root of its own, as the timed
	 * runtime has it */
	struct rt_cnode *under = parent;
	if (parent->fn && rt_is_external(parent->fn) && (parent->fn->size[0] & (PI_EXT_SWITCH | PI_EXT_SETCTX)))
		under = &ct->root;
	n = outside_child(ct, under, fn, under);
	if (!n) {
		if (sink)
			t->cur = sink; /* (no memory) */
		goto out;
	}
	struct rt_tramp rec = {.ra = *(uint64_t *)sp, .sp = sp, .cur = t->cur, .next = was_next,
			       .nextsp = was_nextsp, .target = was_target, .measured = paused};
	struct rt_caux *aux = under == &ct->root && parent == &ct->root && rec.ra != (uint64_t)__profinst_ctramp
				      ? rt_cnode_aux(n) : NULL;
	if (aux) {
		/* Nothing instrumented below: no node to give back at its
		 * return, which then goes where it was going, so that an
		 * unwinder (backtrace() in main) finds its caller.  (No
		 * memory for its aux: the trampoline's way.) */
		aux->root_ra = rec.ra;
		n->ptrsite = STUB_CN_OUTERMOST;
	} else if (rec.ra != (uint64_t)__profinst_ctramp && !entered) {
		/* (a function entered from outside that jumped here: its
		 * record stands) */
		/* the table may be changing under us: the nest's next slot,
		 * taken in one instruction, then filled */
		uint32_t i = __atomic_fetch_add(&ct->nnest, 1, __ATOMIC_RELAXED);
		if (i >= NEST_CAP) {
			__atomic_fetch_sub(&ct->nnest, 1, __ATOMIC_RELAXED);
			if (sink)
				t->cur = sink; /* (deeper than signal handlers go) */
			goto out;
		}
		ct->nest[i] = rec;
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		*(uint64_t *)sp = (uint64_t)__profinst_ctramp;
	} else if (rec.ra != (uint64_t)__profinst_ctramp) {
		drop_dead(ct, sp + 1); /* this stack's below us: a longjmp went past their returns */
		if (ct->ntramp == ct->tcap && !grow_tramp(ct)) {
			if (sink)
				t->cur = sink; /* (no memory) */
			goto out;
		}
		ct->tramp[ct->ntramp] = rec;
		ct->ntramp++;
		*(uint64_t *)sp = (uint64_t)__profinst_ctramp;
	}
	n->calls++;
	n->sp = sp - 8;
	t->cur = n;
out:
	if (entered)
		rt_leave(t);
}

static uint64_t tramp_back(struct pi_tls *t, struct rt_tramp r)
{
	t->cur = r.cur;
	t->next = r.next;
	t->nextsp = r.nextsp;
	t->target = r.target;
	if (r.cur && r.cur->fn && rt_is_external(r.cur->fn) && r.measured)
		t->cresume = r.cur; /* its clock runs again, as the trampoline's last work */
	return r.ra;
}

/* A function entered from outside returns (sp: its %rsp after the ret):
 * the current node goes back, and the real return address comes back. */
uint64_t pi_rt_ctramp(uint64_t sp)
{
	struct pi_tls *t = &__profinst_tls;
	struct rt_cthread *ct = t->th ? t->th->counting : NULL;
	if (!ct)
		__builtin_trap(); /* a return the runtime did not divert: nowhere to go */
	/* The nest's newest first: it is a handler's that came while the
	 * runtime was busy, returning before the code it interrupted
	 * resumes.  Read, then let go in one instruction. */
	uint32_t i = __atomic_load_n(&ct->nnest, __ATOMIC_RELAXED);
	if (i && ct->nest[i - 1].sp + 8 == sp) {
		struct rt_tramp r = ct->nest[i - 1];
		__atomic_signal_fence(__ATOMIC_SEQ_CST);
		__atomic_fetch_sub(&ct->nnest, 1, __ATOMIC_RELAXED);
		return tramp_back(t, r);
	}
	/* The table, inside the runtime (a handler coming now goes to the
	 * nest); busy or not, the return must go where it belongs: the
	 * newest record of its %rsp (other stacks' records may be newer). */
	bool entered = rt_enter(t);
	for (uint32_t j = ct->ntramp; j-- > 0;) {
		if (ct->tramp[j].sp + 8 != sp)
			continue;
		struct rt_tramp r = ct->tramp[j];
		ct->tramp[j] = ct->tramp[ct->ntramp - 1];
		ct->ntramp--;
		drop_dead(ct, sp); /* and this stack's below it */
		uint64_t ra = tramp_back(t, r);
		if (entered)
			rt_leave(t);
		return ra;
	}
	__builtin_trap(); /* a return the runtime did not divert: nowhere to go */
}

/*
 * Before a call through a pointer (the site's node, a pointer's, is
 * current, pi_tls.target where it goes; sp: the %rsp of the call) to a
 * function it did not call last time: an instrumented one's node is the
 * pointer node's to hand to its entry stub; anything else is an external
 * under the caller, current for the call, its clock going (the site
 * stops it after the call; a tail jump's is counted, not timed: no code
 * of the site runs after it).
 */
void pi_rt_cptr(uint64_t sp, int tail)
{
	struct pi_tls *t = &__profinst_tls;
	uint64_t target = t->target;
	struct rt_cnode *p = t->cur;
	bool entered = rt_enter(t);
	struct rt_cthread *ct = entered ? cthread(t) : t->th ? t->th->counting : NULL;
	t->nextsp = 0;
	if (!ct || !p || p->ptrsite != STUB_CN_POINTER)
		goto out; /* (no node: its entry, if any, asks for one) */
	/* (only outside a signal handler's nest: the table is the thread's
	 * own, changed by no one else meanwhile) */
	struct ptr_memo *set = NULL;
	if (entered && ct->memo) {
		uint64_t h = ((uint64_t)p ^ target * STUB_MEMO_MUL) * STUB_MEMO_MUL;
		set = &ct->memo[(h >> (64 - MEMO_BITS)) & ~(uint64_t)(MEMO_WAYS - 1)];
		for (int w = 0; w < MEMO_WAYS; w++) {
			struct rt_cnode *n = set[w].node;
			if (set[w].parent == p && set[w].target == target && n->parent == p && n->fn &&
			    pi_rec_addr(n->fn, 0) == target) {
				keep_callee_at(t, p, n, target, set[w].inner);
				t->nextsp = sp - (tail ? 8 : 16) + 1;
				goto out;
			}
		}
	}
	const struct pi_funcrec *fn = rt_entry_rec(target);
	if (fn) {
		struct rt_cnode *n = outside_child(ct, p, fn, p->fparent);
		if (n && n != sink) {
			uint64_t inner = inner_addr(fn);
			keep_callee_at(t, p, n, target, inner);
			t->nextsp = sp - (tail ? 8 : 16) + 1; /* the pointer's call, to its entry stub */
			if (set) {
				for (int w = MEMO_WAYS - 1; w > 0; w--)
					set[w] = set[w - 1];
				set[0] = (struct ptr_memo){p, target, n, inner};
			}
		}
		goto out;
	}
	struct pi_funcrec *x = rt_target_record(target);
	struct rt_cnode *n = x ? outside_child(ct, p, x, p->fparent) : NULL;
	if (!n || n == sink)
		goto out;
	n->calls++;
	t->cur = n;
	if (!tail) {
		n->ptrsite = STUB_CN_PTR_EXT;
		n->sp = ext_now();
		t->cb_hint = 1;
	}
out:
	if (entered)
		rt_leave(t);
}

void rt_counting_end(struct pi_tls *t, struct rt_thread *th)
{
	if (sink)
		t->cur = sink;
	if (th->kit && th->counting)
		th->kit->counting = th->counting;
	th->counting = NULL;
	t->memo = NULL; /* (the next thread's, soon) */
}

/* The instrumented global functions by name, for the externals that may
 * be instrumented after all (PI_EXT_CHECK: objects of profinst -c, and
 * calls between the program and its instrumented shared objects): made
 * on the first such call, and again on the first after a shared object
 * came (names_stale); a handler, or a thread that finds another making
 * it, finds none. */
struct names {
	uint64_t mask;
	const struct pi_funcrec *tab[];
};
static struct names *by_name;
static int by_name_state; /* 0 none (or stale), 1 making, 2 made */

static void names_stale(void)
{
	__atomic_store_n(&by_name_state, 0, __ATOMIC_RELEASE);
}

static const char *rec_name(const struct pi_funcrec *f)
{
	const struct pi_map_hdr *m = pi_obj_map(pi_rec_obj(f));
	return (const char *)m + m->str_off + pi_map_funcs(m)[f->index].name;
}

static uint64_t name_hash(const char *s)
{
	uint64_t h = 1469598103934665603ull;
	while (*s)
		h = (h ^ (uint8_t)*s++) * 1099511628211ull;
	return h;
}

static void make_names(void)
{
	uint64_t n = rt_nfuncs(), cap = 16;
	while (cap < 2 * n)
		cap *= 2;
	struct names *nm = rt_alloc_keep(sizeof(*nm) + cap * sizeof(nm->tab[0]));
	if (!nm)
		return;
	nm->mask = cap - 1;
	RT_EACH_FUNC(f) {
		if (rt_is_external(f) || !(pi_map_funcs(pi_obj_map(pi_rec_obj(f)))[f->index].flags & PI_FUNC_GLOBAL))
			continue;
		uint64_t i = name_hash(rec_name(f)) & nm->mask;
		while (nm->tab[i])
			i = (i + 1) & nm->mask;
		nm->tab[i] = f;
	}
	__atomic_store_n(&by_name, nm, __ATOMIC_RELEASE);
}

static const struct pi_funcrec *check_resolve(const struct pi_funcrec *x)
{
	int st = __atomic_load_n(&by_name_state, __ATOMIC_ACQUIRE);
	if (st == 0 && __atomic_compare_exchange_n(&by_name_state, &st, 1, false, __ATOMIC_ACQ_REL,
						   __ATOMIC_ACQUIRE)) {
		make_names();
		/* (stale again if an image came meanwhile) */
		st = 1;
		__atomic_compare_exchange_n(&by_name_state, &st, 2, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE);
	}
	const struct names *nm = __atomic_load_n(&by_name, __ATOMIC_ACQUIRE);
	if (!nm)
		return NULL;
	const char *name = rec_name(x);
	for (uint64_t i = name_hash(name) & nm->mask; nm->tab[i]; i = (i + 1) & nm->mask)
		if (rt_streq(rec_name(nm->tab[i]), name))
			return nm->tab[i];
	return NULL;
}

/* An external call's node, first time in this context: slot named by
 * pi_tls.next, parent the current node, x the external's record (NULL: a
 * call's or a tail jump's through a pointer). */
struct rt_cnode *pi_rt_cextnew(const struct pi_funcrec *x)
{
	struct pi_tls *t = &__profinst_tls;
	const struct pi_funcrec *shared = x ? rt_ext_shared(x) : NULL;
	if (shared)
		x = shared; /* the record all externals of the name share */
	/* Where no node can be had (inside the runtime already, or no
	 * memory), one that is not kept, which gives the current node back
	 * after the call. */
	static __thread struct {
		struct rt_cnode n;
		/* (a pointer's: words the site reads; an external's) */
		uint64_t counts[STUB_PTR_WORDS > RT_EXT_WORDS ? STUB_PTR_WORDS : RT_EXT_WORDS];
	} lost __attribute__((tls_model("initial-exec")));
	lost.n.fparent = t->cur;
	lost.n.nblocks = RT_EXT_WORDS;
	lost.n.windex = RT_CN_SKIP;
	bool entered = rt_enter(t);
	struct rt_cthread *ct = entered ? cthread(t) : t->th ? t->th->counting : NULL;
	struct rt_cnode *n = NULL;
	if (x && (x->size[0] & PI_EXT_CHECK) && check_resolve(x))
		x = NULL; /* (profinst -c) instrumented after all: a pointer's node */
	if (ct && t->cur && t->cur->fn) {
		int64_t s = slot_index(t->cur, t->next);
		/* a tail jump's slot (after the sites): its node returns to
		 * where the jumping function's caller is current */
		uint32_t nsites = pi_obj_shapes(pi_rec_obj(t->cur->fn))[t->cur->fn->index].nsites;
		if (s >= 0)
			n = slot_child(ct, t->cur, (uint32_t)s, x, (uint64_t)s >= nsites);
	}
	if (entered)
		rt_leave(t);
	return n ? n : &lost.n;
}

/* The shared runtime's trampoline, after pi_rt_ctramp (stubs.S): a timed
 * external the callback returns to runs again, its clock from now, as
 * the program's runtime's trampoline does it in assembly. */
void pi_rt_cresume(void)
{
	struct pi_tls *t = &__profinst_tls;
	struct rt_cnode *n = t->cresume;
	if (!n)
		return;
	t->cresume = NULL;
	t->cb_hint = 1;
	n->sp = ext_now();
}

/* An external the model does not cost (or costs as the C locale's, or as
 * a lock's in a process of one thread) is called (a0..a2: its first
 * arguments): its clock starts, a wait's apart (os_left); a C-locale cost
 * applies until a locale is set, after which the calls are measured and
 * counted in counts[0]; a lock's or unlock's call (PI_EXT_SOLO), or
 * pthread_once's (PI_EXT_ONCE), comes here only when its site found it
 * measured (rt_ext_solo_measured), and is counted there too. */
void pi_rt_cmeas_start(uint64_t a0, uint64_t a1, uint64_t a2)
{
	struct rt_cnode *n = __profinst_tls.cur;
	if (!n || !n->fn || !rt_is_external(n->fn))
		return;
	bool measure = rt_ext_locale(n->fn, a0, a1);
	if (n->fn->size[0] & PI_EXT_C_LOCALE) {
		if (!measure)
			return;
		n->counts[0]++;
	} else if (n->fn->size[0] & (PI_EXT_SOLO | PI_EXT_ONCE))
		n->counts[0]++;
	if (rt_ext_waits(n->fn, a0, a1, a2))
		n->counts[RT_EXT_WAIT_SP] = ext_now();
	else {
		n->sp = ext_now();
		__profinst_tls.cb_hint = 1; /* an entry now is its callback */
	}
}

void pi_rt_cmeas_stop(void)
{
	uint64_t now = ext_now();
	struct rt_cnode *n = __profinst_tls.cur;
	__profinst_tls.cb_hint = 0;
	if (!n || !n->fn || !rt_is_external(n->fn))
		return;
	if (n->sp) {
		n->counts[RT_EXT_OS] += now - n->sp;
		n->sp = 0;
	} else if (n->counts[RT_EXT_WAIT_SP]) {
		n->counts[RT_EXT_OS_LEFT] += now - n->counts[RT_EXT_WAIT_SP];
		n->counts[RT_EXT_WAIT_SP] = 0;
	}
}

void rt_counting_sys(struct pi_tls *t, uint64_t cyc, bool charged)
{
	struct rt_cnode *n = t->cur;
	if (!n || n == sink || !n->fn || rt_is_external(n->fn))
		return; /* (an external's system calls are its measured time) */
	struct rt_caux *aux = rt_cnode_aux(n);
	if (aux && charged)
		aux->os += cyc;
	else if (aux)
		aux->os_left += cyc;
}

struct rt_caux *rt_cnode_aux_make(struct rt_cnode *n)
{
	struct rt_caux *a, *none = NULL;
	/* (zero, from the allocator every thread and handler may call; a
	 * handler's that comes meanwhile is the one kept, this one lost) */
	if (!(a = rt_alloc_keep(sizeof(*a))))
		return NULL;
	if (!__atomic_compare_exchange_n(&n->aux, &none, a, false, __ATOMIC_ACQ_REL, __ATOMIC_ACQUIRE))
		return none;
	return a;
}

/* Before a swapcontext or setcontext call (sp: the caller's %rsp there):
 * when a switch comes back to this context, the call returns at that
 * %rsp and its node must be current again. */
void pi_rt_cpark(uint64_t sp)
{
	struct pi_tls *t = &__profinst_tls;
	if (!rt_enter(t))
		return;
	struct rt_cthread *ct = cthread(t);
	if (ct) {
		uint32_t i = 0;
		while (i < ct->npark && ct->park[i].sp != sp)
			i++; /* (the same context switching again) */
		if (i == ct->pcap) {
			struct rt_tramp *n = rt_alloc_keep(2ull * ct->pcap * sizeof(*n));
			if (n) {
				rt_copy(n, ct->park, ct->npark * sizeof(*n));
				ct->park = n;
				ct->pcap *= 2;
			}
		}
		if (i < ct->pcap) {
			ct->park[i] = (struct rt_tramp){.sp = sp, .cur = t->cur};
			if (i == ct->npark)
				ct->npark++;
		}
	}
	rt_leave(t);
}

void pi_rt_cunpark(uint64_t sp)
{
	struct pi_tls *t = &__profinst_tls;
	struct rt_cthread *ct = t->th ? t->th->counting : NULL;
	bool entered = rt_enter(t);
	for (uint32_t i = 0; ct && i < ct->npark; i++)
		if (ct->park[i].sp == sp) {
			t->cur = ct->park[i].cur;
			ct->park[i] = ct->park[--ct->npark];
			break;
		}
	if (entered)
		rt_leave(t);
}

/* Where control lands without a return (a longjmp's second return of
 * setjmp, an exception's landing pad) in fn, sp the code's %rsp: the node
 * of the frame it lands in is current again, the first of fn's up the
 * path from the current one whose last activation's %rsp (stored by the
 * entry stub of a function with such places) is above the frames that
 * are gone (a frame calls at most 8 below the %rsp it stored, and its
 * callees store theirs at least 16 below that). */
void pi_rt_cresync(uint64_t sp, const struct pi_funcrec *fn)
{
	struct pi_tls *t = &__profinst_tls;
	struct rt_cthread *ct = t->th ? t->th->counting : NULL;
	if (!ct)
		return;
	struct rt_cnode *n = t->cur;
	while (n && n != sink && !(n->fn == fn && n->sp > sp - 16))
		n = n->fparent;
	if (n && n != sink)
		t->cur = n;
	/* returns it went past (inside the runtime: a signal handler's
	 * entry meanwhile goes to the nest) */
	if (rt_enter(t)) {
		drop_dead(ct, sp);
		rt_leave(t);
	}
}

/* ----- the profile: the tree as the stubs left it */

/*
 * The profile holds each thread's nodes as they are (PI_REC_CTHREAD):
 * their raw counters, which the reader turns into every block's count
 * with the map's tables and costs with the map's costs.  The program's
 * exit reads no map and builds no other tree: it writes what it kept.
 * What only the runtime knows goes with each node, in units: what its
 * helpers added, the measured time it charges and the time it does not,
 * and an external's model cost but for its per-call part, whose calls
 * the reader knows only from its caller's counts.
 */

/* An external's model cost: per_call for each call, plus rest (modulo
 * 2^64, as the reader adds them) */
static void ext_cost(const struct rt_cnode *n, uint64_t *per_call, uint64_t *rest)
{
	const struct pi_funcrec *x = n->fn;
	*per_call = *rest = 0;
	if (!(x->size[0] & PI_EXT_FIXED))
		return;
	/* counts[0]: the calls that cost size[3] >> 8 instead (a NULL first
	 * argument's; a C-locale cost's calls, a lock's or a once-call's,
	 * measured instead, at none); counts[1]: the bytes */
	*per_call = x->size[1];
	*rest = n->counts[0] * ((uint64_t)(x->size[3] >> 8) - x->size[1]) + n->counts[1] * x->size[2] / 256;
}

/* A node's measured time in units: charged (an external's calls under a
 * cycle model, its waits too with --charge-waits; a function's system
 * calls the timed runtime would charge) and not. */
static void measured(const struct rt_cnode *n, uint64_t *charged, uint64_t *left)
{
	if (!rt_is_external(n->fn)) {
		*charged = n->aux ? n->aux->os : 0;
		*left = n->aux ? n->aux->os_left : 0;
		return;
	}
	uint32_t f = n->fn->size[0];
	bool charge = rt_is_target(n->fn) ? rt_target_charged() : (f & PI_EXT_CHARGE) != 0;
	uint64_t run = rt_ticks_to_cycles(n->counts[RT_EXT_OS]), wait = rt_ticks_to_cycles(n->counts[RT_EXT_OS_LEFT]);
	*charged = (charge ? run : 0) + (charge && (f & PI_EXT_CHARGE_WAITS) ? wait : 0);
	*left = run + wait - *charged;
}

/* Children of n, in no particular order: slots (and their chains), then
 * those entered from outside. */
struct citer {
	const struct rt_cnode *n;
	uint32_t slot;
	const struct rt_cnode *c;
	int outside;
	uint64_t index; /* n's, as written */
};

static const struct rt_cnode *cnext(struct citer *it)
{
	for (;;) {
		if (it->c) {
			const struct rt_cnode *r = it->c;
			it->c = r->sibling;
			return r;
		}
		if (it->outside)
			return NULL;
		if (it->slot < it->n->nslots) {
			it->c = rt_cnode_slots((struct rt_cnode *)it->n)[it->slot++];
			continue;
		}
		it->outside = 1;
		it->c = it->n->aux ? it->n->aux->outside : NULL;
	}
}

/* The walk's stack (ct's), with room for n levels. */
static struct citer *walk_room(struct rt_cthread *ct, uint64_t n)
{
	if (n <= ct->walk_cap)
		return ct->walk;
	uint64_t cap = ct->walk_cap ? 2 * ct->walk_cap : 256;
	/* (a mapping of its own: the bump allocator's next bytes may be a
	 * huge page not touched yet, 2 MB cleared at exit for these) */
	struct citer *w = rt_mmap(cap * sizeof(*w));
	if (!w)
		return NULL;
	if (ct->walk) {
		rt_copy(w, ct->walk, ct->walk_cap * sizeof(*w));
		rt_munmap(ct->walk, ct->walk_cap * sizeof(*w));
	}
	ct->walk = w;
	ct->walk_cap = cap;
	return w;
}

void rt_counting_zero(struct rt_thread *th)
{
	struct rt_cthread *ct = th->counting;
	uint64_t depth = 1;
	struct citer *st = ct ? walk_room(ct, 1) : NULL;
	th->ctree = NULL; /* (an ended thread's is not the child's) */
	th->ctree_len = th->ctree_n = 0;
	if (!st)
		return;
	st[0] = (struct citer){.n = &ct->root};
	while (depth) {
		if (!(st = walk_room(ct, depth + 1)))
			return;
		struct rt_cnode *c = (struct rt_cnode *)cnext(&st[depth - 1]);
		if (!c) {
			depth--;
			continue;
		}
		c->calls = 0;
		if (c->aux)
			c->aux->extra = c->aux->os = c->aux->os_left = 0;
		rt_zero(c->counts, 8ull * c->nblocks);
		st[depth++] = (struct citer){.n = c};
	}
}

/* The encoding's buffer (ct's, kept for the next profile and thread):
 * room for n more bytes, in fresh mappings, so that the program's own
 * heap is never touched.  Its pages are made 64 KiB at a time as the
 * encoding reaches them (a fault a page costs more; a buffer made whole
 * and doubled made and copied twice what it kept), and its first
 * mapping is as large as the nodes' pieces suggest (a node takes more
 * room than its encoding: OpenSSL's, 4.2 MB of nodes, encode in 0.4 MB). */
struct enc {
	uint8_t *p;
	uint64_t len, cap, made, hint;
};

#define ENC_STEP (64u << 10)

static bool enc_room(struct enc *e, uint64_t n)
{
	if (e->len + n <= e->made)
		return true;
	if (e->len + n > e->cap) {
		uint64_t cap = e->cap ? 2 * e->cap : e->hint > ENC_STEP ? e->hint : ENC_STEP;
		while (cap < e->len + n)
			cap *= 2;
		uint8_t *q = rt_mmap(cap);
		if (!q)
			return false;
		if (e->p) {
			rt_copy(q, e->p, e->len);
			rt_munmap(e->p, e->cap);
		}
		e->p = q;
		e->cap = cap;
		e->made = e->len & ~4095ull; /* (the copy made these) */
	}
	uint64_t to = (e->len + n + ENC_STEP - 1) & ~(uint64_t)(ENC_STEP - 1);
	if (to > e->cap)
		to = e->cap;
	if (to > e->made)
		rt_populate(e->p + e->made, to - e->made);
	e->made = to;
	return true;
}

/* an unsigned LEB128 number at q (room taken before): past it */
static inline uint8_t *put_u(uint8_t *q, uint64_t v)
{
	while (v >= 0x80) {
		*q++ = (uint8_t)(v | 0x80);
		v >>= 7;
	}
	*q++ = (uint8_t)v;
	return q;
}

/* The functions some node is of, by object and function: their records
 * are the ones a counting profile needs (each node's call site is found
 * by its parent's), so FUNCREC holds those only (rt_counting_needs).
 * Made at each writing, while the other threads are stopped: the live
 * trees mark as they are encoded, the ended ones' are read back
 * (mark_kept_tree). */
static uint64_t *needed;   /* a bit a function, from func_base[object] on */
static uint64_t *func_base; /* by object index */
static uint64_t needed_objs, needed_n;

static inline void mark_needed(uint64_t obj, uint64_t func)
{
	if (needed && obj < needed_objs && func_base[obj] + func < needed_n)
		needed[(func_base[obj] + func) / 64] |= 1ull << ((func_base[obj] + func) % 64);
}

bool rt_counting_needs(const struct pi_funcrec *f)
{
	uint64_t obj = rt_obj_index(pi_rec_obj(f));
	if (!needed || obj >= needed_objs || func_base[obj] + f->index >= needed_n)
		return true;
	uint64_t g = func_base[obj] + f->index;
	return needed[g / 64] >> (g % 64) & 1;
}

/* One node, up places after its parent (FORMAT.md, "Counting trees") */
static bool encode_node(struct enc *e, const struct rt_cnode *c, uint64_t up, uint64_t nfuncs)
{
	const struct pi_funcrec *fn = c->fn;
	bool ext = fn && rt_is_external(fn);
	uint64_t nb = fn && !ext ? c->nblocks : 0;
	if (!enc_room(e, 11 * 10 + 20 * nb))
		return false;
	/* (the bytes through a local pointer: e's words stay in registers) */
	uint8_t *q = put_u(e->p + e->len, up);
	uint64_t slot1 = c->slot == UINT32_MAX ? 0 : (uint64_t)c->slot + 1;
	if (!fn) { /* a call through a pointer's: only its place */
		q = put_u(put_u(q, 0), slot1);
		e->len = (uint64_t)(q - e->p);
		return true;
	}
	uint32_t obj = rt_obj_index(pi_rec_obj(fn));
	q = put_u(put_u(put_u(q, (uint64_t)obj + 1), fn->index), slot1);
	mark_needed(obj, fn->index);
	q = put_u(q, (ext ? PI_CN_EXTERNAL : 0) | (rt_func_index(fn) >= nfuncs ? PI_CN_UNTRACKED : 0));
	uint64_t charged, left, per_call = 0, rest = 0;
	measured(c, &charged, &left);
	if (ext)
		ext_cost(c, &per_call, &rest);
	q = put_u(q, c->calls);
	q = put_u(q, rest + (c->aux ? c->aux->extra : 0) + charged);
	q = put_u(put_u(put_u(q, per_call), charged), left);
	if (nb) {
		/* the counters that counted, each its distance from the last + 1 */
		uint64_t last = 0;
		for (uint64_t i = 0; i < nb; i++)
			if (c->counts[i]) {
				q = put_u(put_u(q, i + 1 - last), c->counts[i]);
				last = i + 1;
			}
		q = put_u(q, 0);
	}
	e->len = (uint64_t)(q - e->p);
	return true;
}

/* The nodes of ct's arena, in the order they were made: ct's pieces read
 * from start to end.  A walk of the tree reads them in another order, a
 * cache miss a node (OpenSSL's one-round run: 22 000 nodes, 1.6 ms).
 * A node comes after its parent, which was made first, but for one made
 * in a piece that a signal handler listed before its own (new_cnode):
 * then -1, and the tree is walked instead.  Each node's windex is its
 * index; those of no tree (lost ones, and those under a node that is in
 * no arena) are passed.  0: no memory. */
static int encode_made(struct rt_cthread *ct, struct enc *e, uint32_t *nnodes)
{
	struct rt_piece *first = (struct rt_piece *)ct->first_piece;
	uint64_t k = 0, nfuncs = rt_nfuncs();
	if (!first)
		return -1;
	/* (an encoding before left its indices) */
	bool clear = ct->encodings++ > 0;
	for (int pass = clear ? 0 : 1; pass < 2; pass++)
		for (struct rt_piece *pc = first; pc; pc = __atomic_load_n(&pc->next, __ATOMIC_RELAXED)) {
			char *at = (char *)pc + sizeof(*pc), *end = (char *)pc + pc->size;
			char *arena = __atomic_load_n(&ct->arena, __ATOMIC_RELAXED);
			if (arena > at && arena < end)
				end = arena;
			while (at + sizeof(struct rt_cnode) <= end) {
				struct rt_cnode *c = (struct rt_cnode *)at;
				if (!c->fn && !c->ptrsite)
					break; /* (the piece's room not taken) */
				at += node_bytes(c->nblocks, c->nslots);
				if (!pass) {
					c->windex = 0;
					continue;
				}
				const struct rt_cnode *p = c->parent;
				uint64_t pk = 0;
				if (c->lost || !p || (p != &ct->root && p->windex == RT_CN_SKIP)) {
					c->windex = RT_CN_SKIP;
					continue;
				}
				if (p != &ct->root && !(pk = p->windex))
					return -1; /* (its parent comes after it) */
				if (k + 1 >= RT_CN_SKIP || !encode_node(e, c, k + 1 - pk, nfuncs))
					return 0;
				c->windex = (uint32_t)++k;
			}
		}
	*nnodes = (uint32_t)k;
	return 1;
}

/* The same, in the order of a walk from its root */
static bool encode_walk(struct rt_cthread *ct, struct enc *e, uint32_t *nnodes)
{
	uint64_t depth = 1, next = 1, nfuncs = rt_nfuncs();
	struct citer *st = walk_room(ct, 1);
	if (!st)
		return false;
	st[0] = (struct citer){.n = &ct->root, .index = 0};
	while (depth) {
		if (!(st = walk_room(ct, depth + 1)))
			return false;
		const struct rt_cnode *c = cnext(&st[depth - 1]);
		if (!c) {
			depth--;
			continue;
		}
		if (next > UINT32_MAX || !encode_node(e, c, next - st[depth - 1].index, nfuncs))
			return false;
		st[depth++] = (struct citer){.n = c, .index = next++};
	}
	*nnodes = (uint32_t)(next - 1);
	return true;
}

/* th's tree (FORMAT.md, "Counting trees"), into ct's buffer; false if
 * there is no memory for it (a profile without it) */
static bool encode_tree(struct rt_cthread *ct, uint64_t *len, uint32_t *nnodes)
{
	uint64_t pieces = 0; /* (the nodes' room: the encoding's first size) */
	for (const struct rt_piece *pc = (const struct rt_piece *)ct->first_piece; pc; pc = pc->next)
		pieces += pc->size;
	struct enc e = {ct->enc, 0, ct->enc_cap, ct->enc_made, (pieces / 8 + ENC_STEP - 1) & ~(uint64_t)(ENC_STEP - 1)};
	int made = encode_made(ct, &e, nnodes);
	if (made < 0) {
		e.len = 0;
		made = encode_walk(ct, &e, nnodes);
	}
	ct->enc = e.p;
	ct->enc_cap = e.cap;
	ct->enc_made = e.made;
	*len = e.len;
	return made > 0;
}

/* an unsigned LEB128 number of a tree encode_tree made */
static uint64_t dec_u(const uint8_t **at, const uint8_t *end)
{
	uint64_t v = 0;
	for (unsigned shift = 0; *at < end && shift < 64; shift += 7) {
		uint8_t b = *(*at)++;
		v |= (uint64_t)(b & 0x7f) << shift;
		if (!(b & 0x80))
			break;
	}
	return v;
}

/* The functions of a tree encoded before (an ended thread's), marked:
 * its nodes read back as encode_node wrote them */
static void mark_kept_tree(const uint8_t *at, uint64_t len, uint32_t n)
{
	const uint8_t *end = at + len;
	for (uint32_t k = 0; k < n && at < end; k++) {
		dec_u(&at, end); /* up */
		uint64_t obj1 = dec_u(&at, end);
		if (!obj1) {
			dec_u(&at, end); /* slot + 1 */
			continue;
		}
		mark_needed(obj1 - 1, dec_u(&at, end));
		dec_u(&at, end); /* slot + 1 */
		uint64_t flags = dec_u(&at, end);
		for (int i = 0; i < 5; i++) /* calls, add, per_call, os, os_left */
			dec_u(&at, end);
		if (flags & PI_CN_EXTERNAL)
			continue;
		while (at < end && dec_u(&at, end)) /* (gap, count) pairs, then 0 */
			dec_u(&at, end);
	}
}

void rt_counting_begin_writing(struct rt_thread *head)
{
	uint64_t nobjs = rt_nobjs(), n = 0;
	/* mappings of their own: the bump allocator's next bytes may be a
	 * huge page not touched yet, 2 MB cleared at exit for these few
	 * (OpenSSL's one-round run: 1.4 % of its samples).  A profile
	 * written before leaves its own mapped: a thread that ends may be
	 * marking in them. */
	needed = NULL; /* (every record written, where there is no memory) */
	needed_objs = nobjs;
	func_base = rt_mmap((nobjs + 1) * sizeof(*func_base));
	if (!func_base)
		return;
	RT_EACH_OBJ(d) {
		uint32_t i = rt_obj_index(d);
		if (i < nobjs)
			func_base[i] = n;
		n += d->nfuncs;
	}
	needed_n = n;
	needed = rt_mmap((n / 64 + 1) * 8);
	for (struct rt_thread *th = head; th; th = th->next)
		if (th->ctree)
			mark_kept_tree(th->ctree, th->ctree_len, th->ctree_n);
}

const uint8_t *rt_counting_tree(struct rt_thread *th, uint64_t *len, uint32_t *nnodes)
{
	*len = 0;
	*nnodes = 0;
	if (th->ctree) {
		*len = th->ctree_len;
		*nnodes = th->ctree_n;
		return th->ctree;
	}
	struct rt_cthread *ct = th->counting;
	if (!ct || !encode_tree(ct, len, nnodes)) {
		*len = *nnodes = 0;
		return NULL;
	}
	return ct->enc;
}

void rt_counting_keep(struct rt_thread *th)
{
	uint64_t len;
	uint32_t n;
	const uint8_t *t = rt_counting_tree(th, &len, &n);
	uint8_t *kept = t ? rt_alloc_keep(len ? len : 1) : NULL;
	if (!kept)
		return; /* (its nodes are lost: the profile has its root only) */
	rt_copy(kept, t, len);
	th->ctree = kept;
	th->ctree_len = len;
	th->ctree_n = n;
}
