/* SPDX-License-Identifier: MIT */
/*
 * Runtime internals.  The runtime lives inside someone else's program: it
 * never exits, never calls malloc on the hot path (memory comes from mmap
 * arenas), preserves errno, and never profiles itself.
 */
#ifndef PI_RT_H
#define PI_RT_H

#include <errno.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format.h"

/* Calling-context tree node.  A node with alias != NULL is a recursive call
 * edge: activations through it are charged to the ancestor alias names. */
struct rt_node {
	const struct pi_funcrec *fn;
	uint64_t ra;
	struct rt_node *parent, *first_child, *next_sibling, *last_hit;
	struct rt_node *alias;
	uint64_t calls, rec_calls, self, incl, min_self, max_self;
	uint32_t faults;  /* page faults taken here (faults.c), saturating */
	uint32_t index;   /* when written */
	uint64_t os;      /* of self: measured, not modelled (an external's
			     own time, system calls), charged */
	uint64_t os_left; /* measured there but not charged (waits) */
};

/* What a node seldom needs (a function's system calls' time, its string
 * operations' units, where an outermost function returns, the nodes
 * entered from outside under it), made the first time it does
 * (rt_cnode_aux), so that each node of the tree is 40 bytes smaller. */
struct rt_caux {
	struct rt_cnode *outside; /* children entered from outside */
	uint64_t extra;   /* units the helpers added (string ops) */
	uint64_t os;      /* a function's system calls' time charged (units) */
	uint64_t os_left; /* and not charged */
	uint64_t root_ra; /* STUB_CN_OUTERMOST: a function entered from outside with
			     no instrumented frame below it, whose return
			     goes where it was going (root_ra, at sp + 8),
			     not through the trampoline */
};

/* An external's node's words (its counts): the calls that cost apart
 * (ext_cost), the bytes, its measured time (ticks) charged and not (its
 * waits), and when its wait started */
enum { RT_EXT_APART, RT_EXT_BYTES, RT_EXT_OS, RT_EXT_OS_LEFT, RT_EXT_WAIT_SP, RT_EXT_WORDS };

/* A calling context under --counts (counting.c): counters of its
 * function's blocks, then a slot per call site (the map's sites, then
 * its tail jumps) holding the callee's node. */
struct rt_cnode {
	const struct pi_funcrec *fn;
	struct rt_cnode *fparent; /* current again when its frame returns */
	struct rt_cnode *parent;
	uint64_t calls;
	struct rt_cnode *sibling; /* next in its parent's outside list or slot */
	uint64_t sp;      /* %rsp in its last activation (its entry's, less 8
			     or 16): where a longjmp or an exception lands
			     finds the frame it lands in by it; an
			     external's: its clock, while it runs */
	struct rt_caux *aux; /* NULL until needed */
	uint32_t slot;    /* in its parent, UINT32_MAX: entered from outside */
	uint32_t nblocks;
	uint16_t nslots;  /* (a record's are 16 bits) */
	uint8_t lost;     /* made for nothing (a race lost): in no list */
	uint8_t ptrsite;  /* 0, or STUB_CN_POINTER: the node of a call through a
			     pointer (fn NULL), whose counts[0] is the node of
			     the callee it called last (the callee's entry
			     stub takes it); STUB_CN_PTR_EXT: an external's
			     called through a pointer, whose clock the site
			     stops after the call; STUB_CN_OUTERMOST: see
			     root_ra */
	/* its index in the last encoding of its thread's tree (RT_CN_SKIP:
	 * not in the tree), 0 before one (encode_made in counting.c) */
	uint32_t windex;
	uint64_t counts[]; /* nblocks (an external's: RT_EXT_WORDS), then nslots */
};

/* n's aux, made if it has none (NULL: no memory); signal-safe (a
 * string operation's helper asks at each run: the made one inline) */
struct rt_caux *rt_cnode_aux_make(struct rt_cnode *n);
static inline struct rt_caux *rt_cnode_aux(struct rt_cnode *n)
{
	struct rt_caux *a = __atomic_load_n(&n->aux, __ATOMIC_ACQUIRE);
	return a ? a : rt_cnode_aux_make(n);
}
#define RT_CN_SKIP UINT32_MAX

/* A piece of a thread's arena: its nodes follow, in the order they were
 * made, up to size bytes from the piece's start or the first node all of
 * whose header is zero; the pieces are listed in the order they became
 * the arena. */
struct rt_piece {
	struct rt_piece *next;
	uint64_t size;
};

static inline struct rt_cnode **rt_cnode_slots(struct rt_cnode *n)
{
	return (struct rt_cnode **)(n->counts + n->nblocks);
}

/* Trampoline records: calls entered from outside, most recent last. */
struct rt_tramp {
	uint64_t ra;         /* where the function returns */
	uint64_t sp;         /* the function's %rsp at entry (its return address slot) */
	struct rt_cnode *cur; /* current node before the call */
	/* and the words of a call the code it interrupted (a signal
	 * handler's entry) was making: the slot it names, the callee's %rsp
	 * and a pointer's target */
	uint64_t next, nextsp, target;
	bool measured;        /* cur's clock (an external's) was stopped */
};

/* Entries from outside while the runtime is busy nest at most as deep as
 * signal handlers do. */
#define NEST_CAP 64
/* Stacks (a thread's, a signal stack, a context's) are far apart: records
 * within this of each other are of one stack. */
#define RT_STACK_SPAN (64ull << 20)

struct citer;
struct ptr_memo;

/* A thread's tree under --counts (counting.c; the entry helper's and the
 * trampoline's fast paths in stubs.S read the trampoline records). */
struct rt_cthread {
	struct rt_cnode root;
	struct rt_caux root_aux;
	struct rt_tramp *tramp;
	uint32_t ntramp, tcap;
	/* contexts switched away from (swapcontext): the call's %rsp and
	 * the node current there */
	struct rt_tramp *park;
	uint32_t npark, pcap;
	/* Entries from outside that came while the runtime was busy (a
	 * signal handler's, in the middle of the table above changing):
	 * newest last, a slot taken by one instruction before it is
	 * filled, so that a handler coming meanwhile takes the next. */
	struct rt_tramp nest[NEST_CAP];
	uint32_t nnest;
	char *arena, *arena_end;
	char *first_piece; /* the arena's first piece, again for the next thread */
	struct rt_piece *last_piece;
	uint32_t encodings; /* of this tree (its nodes' windex) */
	/* the tree walk's room and the encoding's (enc_made bytes of it
	 * populated), kept for the next profile and thread */
	struct citer *walk;
	uint64_t walk_cap;
	uint8_t *enc;
	uint64_t enc_cap, enc_made;
	struct ptr_memo *memo; /* 1 << MEMO_BITS entries (NULL: no memory) */
};


struct rt_frame {
	struct rt_node *node;  /* the node charged */
	struct rt_node *alias; /* the recursive edge taken, or NULL */
	uint64_t sp;           /* the function's %rsp at entry (its return address slot) */
	uint64_t entry_clock;
	uint64_t child;        /* cycles of its children */
	uint64_t tail_target;  /* where it tail-jumped, if tail */
	uint64_t tail;
	/* A call into external code (RT_EXT_* bits, 0 for instrumented code):
	 * its real time runs from ext_start, paused while a callback runs
	 * (instrumented code called from it), and adds up in ext_ticks. */
	uint64_t ext;
	uint64_t ext_start;
	uint64_t ext_ticks;
	uint64_t fe_call;      /* what its call's bubble charged the caller */
};

#define RT_EXT_ON 0x1     /* an external call's frame */
#define RT_EXT_CHARGE 0x2 /* its time goes into the cycles */
#define RT_EXT_SWITCH 0x4 /* a context switch: its time is other contexts' */
#define RT_EXT_FIXED 0x8  /* its cost is the model's, in the bits from
			     RT_EXT_COST_SHIFT up (PI_EXT_FIXED: no clock runs) */
#define RT_EXT_COST_SHIFT 8

/* Records for the targets of calls through pointers that leave
 * instrumented code, each with its thunk (targets.c, stubs.S). */
#define RT_TARGETS_BITS 8
#define RT_TARGETS (1 << RT_TARGETS_BITS)

/* The entry fast path's cache of calling-context children: direct-mapped
 * by (parent node, function, return address), see rt_cache_index. */
#define RT_CACHE_BITS 16

struct rt_thread {
	struct rt_frame *stack;
	uint64_t depth, cap;
	struct rt_node **cache; /* [1 << RT_CACHE_BITS] */
	/* activations running, per function (index of its record among
	 * rt_funcs_begin()..end()): a frame adds its time to its node's incl
	 * only if it is the function's only one, so that a function is never
	 * its own descendant even when recursion comes back by another path */
	uint32_t *fn_active;
	struct rt_node root;
	char *arena, *arena_end;
	uint64_t arena_size; /* of the current piece */
	/* children of every node, by (parent, fn, return address) */
	struct rt_node **hash;
	uint64_t hmask, hcount;
	struct rt_thread *next;
	uint64_t tp;          /* thread pointer, to reach its TLS counters */
	uint64_t *saved_counts; /* copy of the counters, once the thread ended */
	/* --counts: an ended thread's tree, encoded (rt_counting_keep) */
	const uint8_t *ctree;
	uint64_t ctree_len;
	uint32_t ctree_n;
	uint64_t final_clock;
	uint32_t tid;
	uint32_t index;
	int finished;
	int unstopped; /* still inside the runtime when the profile was written */
	uint64_t skipped; /* PI_LOSS_NESTED, once moved out of its TLS */
	uint64_t dropped; /* PI_LOSS_DROPPED */
	/* Contexts switched away from (swapcontext): their frames, off the
	 * shadow stack until the swapcontext that left returns. */
	struct rt_kit *kit; /* where stack, cache, fn_active and hash came from */
	struct rt_parked {
		uint64_t sp;        /* the swapcontext frame's %rsp: where it returns */
		uint64_t clock;     /* the thread's clock when it left */
		uint64_t n, cap;
		struct rt_frame *frames;
	} *parked;
	uint64_t nparked, parkcap;
	struct rt_cthread *counting; /* --counts: its tree (counting.c) */
};

/* Same computation as the entry fast path in stubs.S. */
static inline uint64_t rt_cache_index(const struct rt_node *parent, const void *fn, uint64_t ra)
{
	uint64_t h = (ra ^ ((uint64_t)parent >> 3) ^ (uint64_t)fn) * 0x9e3779b97f4a7c15ull;
	return h >> (64 - RT_CACHE_BITS);
}

/* The thread-local block the stubs address (stub_abi.h). */
struct pi_tls {
	uint64_t clock;
	uint64_t repsave;
	struct rt_thread *th;
	uint32_t busy;
	uint32_t dead;
	uint64_t sys_start;  /* rdtsc at the system call running, or 0 */
	uint64_t sys_charge; /* whether its time is charged */
	struct rt_branch_state *branch; /* --branch-sim's predictor, or NULL */
	uint64_t fe_pred;    /* when the front end's predictor is done (clock
				units; frontend.c) */
	struct rt_dcache *dcache; /* --cache-sim's caches, or NULL */
	uint64_t dc_ready;   /* when the loads the core runs ahead of are all
				done (clock units), 0 if none (dcache.c) */
	struct rt_heap_state *heap; /* the allocator's shadow, or NULL (heap.c) */
	uint64_t *pf_head;   /* the kernel's count of this thread's page faults
				(the head of its ring), or rt_pf_none (faults.c) */
	uint64_t pf_seen;    /* where *pf_head was when last charged */
	struct perf_event_mmap_page *pf_page; /* the ring, or NULL */
	uint64_t cb_tsc;     /* rdtsc where a callback from external code
				entered (the entry helper's fast path paused
				the external's clock there; rt_push takes it),
				or 0 */
	const struct rt_node *ext_last; /* the node of the external call that
				closed last (a mispredicted jump on its result
				is its time: branch.c) */
	uint64_t cb_hint;    /* nonzero while a measured external runs (its
				clock set going, not yet paused or closed):
				an entry then is a callback, and the entry
				helper pauses the external's clock first of
				all, before its own work (stubs.S).  A hint:
				a stale one costs an rdtsc, a missing one a
				later pause; never a wrong count */
	uint64_t *dc_wait;   /* the counter of memory waits (format.h,
				pi_counters) of the block whose load dc_ready
				waits for last (dcache.c) */
	/* Three more parts of the clock (stub_abi.h): the block stubs add to
	 * clock or to one of these; rt_clock_fold moves them into clock. */
	uint64_t clock_part[3];
	uint64_t skipped;    /* calls not recorded: the thread was busy or
				stopped (PI_LOSS_NESTED) */
	/* --counts (counting.c): the current node; the slot a call site
	 * names for its call, and the callee's %rsp at entry (past its
	 * push of %r11) that says the entry is that call's */
	struct rt_cnode *cur;
	uint64_t next;
	uint64_t nextsp;
	uint64_t target;     /* where a call through a pointer goes */
	struct rt_cnode *cresume; /* a timed external a callback returns to:
				its clock runs again as the trampoline's
				last work (stubs.S) */
	uint8_t frames_off;  /* the frames' nodes are not kept (framenodes.c):
				the code after a call takes its node from the
				callee's */
	void *memo;          /* the thread's table of pointers' callees
				(counting.c, struct ptr_memo), or NULL: the
				pointer helper's fast path reads it */
};

/* Where the frames' nodes are (framenodes.c, stub_abi.h STUB_FRAMES_*): a
 * frame whose CFA is in [lo, lo + len) keeps its node at CFA + delta =
 * CFA - lo + base. */
struct pi_frames {
	uint64_t lo, len, base, delta;
};

/* The word of the frame whose CFA is cfa, or 0 (the thread's frames_off
 * then set); the mirror is made the first time. */
uint64_t pi_rt_cframe(uint64_t cfa);

extern __thread struct pi_tls __profinst_tls;

/* Clearing and copying for the runtime's C halves, never the C library's
 * memset and memcpy: those use vector registers (xmm0-15 where the CPU has
 * no AVX-512), which a helper does not save, and an entry's helper runs
 * while the function's floating-point arguments are in them (strcmp too).  (The hot
 * half is compiled -mgeneral-regs-only and without loop-to-call
 * patterns, so that these stay loops of general registers.) */
static inline void rt_zero(void *p, uint64_t n)
{
	char *c = p;
	uint64_t i = 0;
	if (!((uintptr_t)c & 7))
		for (; i + 8 <= n; i += 8)
			*(uint64_t *)(c + i) = 0;
	for (; i < n; i++)
		c[i] = 0;
}

/* Read-modify-writes of what only this thread and its signal handlers
 * change (its arena, its tree's lists): one instruction, which a signal
 * cannot split, without the lock prefix (another CPU never writes there;
 * the prefix cost 20 cycles a node made, twice). */
static inline uint64_t rt_thread_fetch_add(uint64_t *p, uint64_t v)
{
	__asm__ volatile("xadd %0, %1" : "+r"(v), "+m"(*p) : : "memory");
	return v;
}

static inline bool rt_thread_cas(void **p, void **expect, void *want)
{
	bool ok;
	__asm__ volatile("cmpxchg %3, %1" : "=@ccz"(ok), "+m"(*p), "+a"(*expect) : "r"(want) : "memory");
	return ok;
}

static inline bool rt_streq(const char *a, const char *b)
{
	while (*a && *a == *b)
		a++, b++;
	return *a == *b;
}

static inline void rt_copy(void *to, const void *from, uint64_t n)
{
	char *d = to;
	const char *s = from;
	uint64_t i = 0;
	if (!(((uintptr_t)d | (uintptr_t)s) & 7))
		for (; i + 8 <= n; i += 8)
			*(uint64_t *)(d + i) = *(const uint64_t *)(s + i);
	for (; i < n; i++)
		d[i] = s[i];
}

/* t->dead's bits: the thread records nothing more (it ended, had no
 * memory, or the profile is written), or it is stopped for a moment while
 * another thread writes the profile (rt_stop_threads). */
#define RT_DEAD 1u
#define RT_STOPPED 2u
/* Not a state but a switch (PROFINST_C_PATHS=1): the helpers' assembly fast
 * paths all defer to their C paths, which ignore it; the two must give the
 * same profile (tests/lib/cpaths.py). */
#define RT_C_PATHS 4u
#define RT_HALTED (RT_DEAD | RT_STOPPED)

/* Enter the runtime on t's own thread: false if it is inside already (a
 * signal handler that interrupted it), dead or stopped.  busy is set before
 * dead is read again, so that rt_stop_threads, which sets dead before it
 * reads busy, and this never both go on (the assembly's TAKE_BUSY). */
static inline bool rt_enter(struct pi_tls *t)
{
	if (t->busy || (t->dead & RT_HALTED))
		return false;
	__atomic_store_n(&t->busy, 1, __ATOMIC_RELAXED);
	__atomic_signal_fence(__ATOMIC_SEQ_CST);
	if (__atomic_load_n(&t->dead, __ATOMIC_RELAXED) & RT_HALTED) {
		__atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
		return false;
	}
	return true;
}

/* Leave it: what was written inside is visible before busy clears. */
static inline void rt_leave(struct pi_tls *t)
{
	__atomic_store_n(&t->busy, 0, __ATOMIC_RELEASE);
}

/* ----- The C halves of the helpers in stubs.S (stub_abi.h says what
 * each stub passes), called with every register of the program saved, and
 * the assembly the C side calls. */
void pi_rt_enter(const struct pi_funcrec *fn, uint64_t sp, uint64_t ra);
void pi_rt_exit(uint64_t sp);
/* returns where the tail jump goes (targets.c: a thunk, for a target out
 * of instrumented code) */
uint64_t pi_rt_tailexit(const struct pi_funcrec *fn, uint64_t sp, uint64_t target, const uint8_t *stub);
void pi_rt_resync(uint64_t sp);
void pi_rt_rep(uint64_t kind, uint64_t rcx, uint64_t flags);
void pi_rt_flush(void);
void pi_rt_ext_enter(const struct pi_funcrec *rec, uint64_t sp, uint64_t pc, uint64_t arg0, uint64_t arg1,
		     uint64_t arg2);
void pi_rt_ext_exit(uint64_t sp);
void pi_rt_sys_enter(uint64_t nr, uint64_t arg0, uint64_t arg1);
void pi_rt_sys_exit(void);
/* returns what the indirect call calls: target, or its record's thunk */
uint64_t pi_rt_icall(uint64_t target);
void pi_rt_icall_enter(const struct pi_funcrec *rec, uint64_t sp, uint64_t ra);
void pi_rt_branch(uint64_t word, int64_t counter);
void pi_rt_load(uint64_t addr, uint32_t word, uint64_t sp, int64_t counter);
/* the stubs' own cost, in ticks: of an external call's window, and of
 * each callback's (run at start-up, external.c) */
uint64_t pi_rt_probe_window(void);
uint64_t pi_rt_probe_callback(void);
/* the same for the counting runtime's entry and trampoline */
uint64_t pi_rt_probe_ccallback(void);
extern uint64_t rt_ccb_overhead_ticks;

/* raw system calls: no libc on the hot path, no errno */
long rt_syscall6(long nr, long a, long b, long c, long d, long e, long f);

/* ----- Memory (memory.c) */

/* Fresh zeroed pages, or NULL. */
void *rt_mmap(uint64_t size);
/* The same, its pages made at once (MAP_POPULATE): for memory the runtime
 * is about to fill, which would take a fault a page otherwise */
void *rt_mmap_filled(uint64_t size);
void rt_munmap(void *p, uint64_t size);
/* Makes the pages of [p, p + size) at once, written (zero), rather than
 * a fault each as they are first touched, two where the first touch
 * reads: a mapping's, or a part of one, that will be used */
void rt_populate(void *p, uint64_t size);
/* Zeroed memory kept until the process ends (thread records, nodes, an
 * ended thread's counters), or NULL; lock-free and signal-safe. */
void *rt_alloc_keep(uint64_t size);
void *rt_alloc_keep_upto(uint64_t min, uint64_t max, uint64_t reserve, uint64_t *got);

/* What a running thread needs and an ended one gives to the next. */
struct rt_kit {
	struct rt_frame *stack;
	uint64_t cap;
	struct rt_node **cache; /* [1 << RT_CACHE_BITS], or NULL */
	uint32_t *fn_active;
	uint64_t fn_active_size;
	struct rt_node **hash;  /* or NULL */
	uint64_t hmask;
	struct rt_cthread *counting; /* --counts: its tables and arena, or NULL */
	struct rt_kit *next;
};
/* An ended thread's, emptied, or a new one; NULL without memory. */
struct rt_kit *rt_kit_get(void);
/* Empty it for the next thread (the caller copied the thread's current
 * stack and hash into it). */
void rt_kit_put(struct rt_kit *k);
void rt_kit_free(struct rt_kit *k);

struct rt_thread *rt_thread_init(struct pi_tls *t);
void rt_close_all(struct rt_thread *th, uint64_t now);
void rt_thread_finish(struct pi_tls *t);
/* Double th's shadow stack: 0, or -1 without memory. */
int rt_grow_stack(struct rt_thread *th);

/* The thread of t (made on its first call), with room on its shadow
 * stack for one more frame; NULL without memory (a call that finds no
 * room is counted as dropped).  Called inside the runtime (rt_enter). */
static inline struct rt_thread *rt_thread_for_call(struct pi_tls *t)
{
	struct rt_thread *th = t->th ? t->th : rt_thread_init(t);
	if (th && th->depth >= th->cap && rt_grow_stack(th)) {
		th->dropped++;
		return NULL;
	}
	return th;
}

/* Stop every thread but self's from recording, and wait until none is
 * inside the runtime: returns the list they were taken from (threads that
 * start later record on, in front of it).  A thread that stayed inside
 * for a second is marked unstopped; its figures are read as they are. */
struct rt_thread *rt_stop_threads(struct pi_tls *self);
/* Let them record again (after a checkpoint). */
void rt_resume_threads(struct rt_thread *head);
void rt_sleep_us(long us);

extern struct rt_thread *rt_threads;

/* The program's objects and function records, from the linker's
 * __start_/__stop_ (rt_images[0]; what only the program's stubs use, the
 * timed runtime's, goes by these) */
const struct pi_objdesc *rt_objs_begin(void);
const struct pi_objdesc *rt_objs_end(void);
const struct pi_funcrec *rt_funcs_begin(void);
const struct pi_funcrec *rt_funcs_end(void);

/* The instrumented images (images.c): the program's, first, then each
 * shared object's that registered (__profinst_image_add), in that order.
 * An object's index (rt_obj_index) and a record's (rt_func_index) count
 * through all of them, the program's first. */
struct rt_image {
	struct pi_image_desc desc;
	uint32_t obj_base;  /* the index of its first object */
	uint64_t func_base; /* the index of its first record */
};
#define RT_MAX_IMAGES 256
extern struct rt_image rt_images[RT_MAX_IMAGES];
/* how many images there are (each complete before it counts) */
uint32_t rt_image_count(void);
uint64_t rt_nobjs(void);
uint64_t rt_nfuncs(void);
/* a record's index among all images', or rt_nfuncs() if none holds it */
uint64_t rt_func_index_any(const struct pi_funcrec *f);
static inline uint64_t rt_func_index(const struct pi_funcrec *f)
{
	/* (the program's first: an encoding asks at every node) */
	if (f >= rt_images[0].desc.funcs && f < rt_images[0].desc.funcs_end)
		return (uint64_t)(f - rt_images[0].desc.funcs);
	return rt_func_index_any(f);
}
/* an object's index among all images' (the runtime's own object of
 * calls through pointers: the one it was given, rt_obj_index_set);
 * UINT32_MAX if none holds it */
uint32_t rt_obj_index_any(const struct pi_objdesc *d);
static inline uint32_t rt_obj_index(const struct pi_objdesc *d)
{
	if (d >= rt_images[0].desc.objs && d < rt_images[0].desc.objs_end)
		return (uint32_t)(d - rt_images[0].desc.objs);
	return rt_obj_index_any(d);
}
void rt_obj_index_set(const struct pi_objdesc *d, uint32_t index);
/* the first object's map among the images, or NULL */
const struct pi_map_hdr *rt_first_map(void);
/* The shared runtime defers to the program's where the program has one
 * (rt_init): nothing of it runs then. */
extern int rt_secondary;
bool rt_program_has_runtime(void);
/* no image added meanwhile (1; 0: the lock could not be had) */
int rt_images_lock(void);
void rt_images_unlock(void);
/* whether rt_init ran: an image added later is added to its tables by
 * these */
bool rt_initialized(void);
void rt_entries_add(void);
void rt_externals_add(const struct rt_image *im);
void rt_counting_add(const struct rt_image *im);
void pi_rt_cresume(void);
/* the path of the file mapped at addr (targets.c): its length, 0 if
 * none, or it does not fit out[n] */
size_t rt_mapping_path(uint64_t addr, char *out, size_t n);

#define RT_EACH_OBJ(d)                                                                       \
	for (uint32_t im_ = 0, nim_ = rt_image_count(); im_ < nim_; im_++)                    \
		for (const struct pi_objdesc *d = rt_images[im_].desc.objs; d < rt_images[im_].desc.objs_end; d++)
#define RT_EACH_FUNC(f)                                                                      \
	for (uint32_t im_ = 0, nim_ = rt_image_count(); im_ < nim_; im_++)                    \
		for (const struct pi_funcrec *f = rt_images[im_].desc.funcs; f < rt_images[im_].desc.funcs_end; f++)

/* A thread's simulation state, made lazily on the thread: made, a new one
 * of size bytes, unless the thread has one already (cur: a signal
 * handler's call made it while this one made its own), in which case made
 * is unmapped.  Returns the one to keep. */
static inline void *rt_keep_state(void *cur, void *made, uint64_t size)
{
	if (!cur)
		return made;
	rt_munmap(made, size);
	return cur;
}

/* Unmap a thread's simulation state of size bytes, if it has one; returns
 * NULL, what its field holds then. */
static inline void *rt_drop_state(void *state, uint64_t size)
{
	if (state)
		rt_munmap(state, size);
	return NULL;
}

/* ----- The front end's bubbles at calls and returns (frontend.c) */

/* the model's bubbles and window (units; 0: none), from the objects */
extern uint64_t rt_fe_call, rt_fe_ret, rt_fe_window;
void rt_frontend_init(void);
/* A call's or a return's bubble: the clock waits for it, beyond what it
 * overlaps with. */
void rt_fe_event(struct pi_tls *t, uint64_t bubble);
void rt_fe_free(struct pi_tls *t);

/* ----- Page faults (faults.c) */

/* The model's cost of a fault (units; 0: faults are not charged), from the
 * objects. */
extern uint64_t rt_pf_cost;
extern uint64_t rt_pf_none[2];
void rt_faults_init(void);
/* Open t's ring (on t's thread), or point t at rt_pf_none. */
void rt_faults_open(struct pi_tls *t);
void rt_faults_close(struct pi_tls *t);
/* What the faults t took since it last looked cost (units); they are
 * counted once, in the node of t's top frame. */
uint64_t rt_faults_take(struct pi_tls *t);
/* Forget the faults t took since it last looked (an external call whose
 * time was measured holds them). */
void rt_faults_skip(struct pi_tls *t);

/* ----- The branch predictor of --branch-sim (branch.c) */

/* Unmap t's predictor, at the end of its thread, on that thread. */
void rt_branch_free(struct pi_tls *t);

/* ----- The allocator's costs (heap.c) */
/* The costs of its paths, from the objects (none: fixed costs). */
void rt_heap_init(void);
/* Unmap t's shadow of the allocator, at the end of its thread, on it. */
void rt_heap_free(struct pi_tls *t);
/* What the heap function op (PI_HEAP_*) costs (units, in *cost) with these
 * first two arguments, on t's allocator as the shadow sees it; false where
 * the model has no costs for the allocator or the shadow no memory. */
bool rt_heap_cost(struct pi_tls *t, unsigned op, uint64_t arg0, uint64_t arg1, uint64_t *cost);

/* ----- The data caches of --cache-sim (dcache.c) */

/* The caches' sizes and costs, from the objects (none: not simulated). */
void rt_dcache_init(void);
/* Unmap t's caches, at the end of its thread, on that thread. */
void rt_dcache_free(struct pi_tls *t);
/* Move the clock's other parts into t->clock (stub_abi.h), as the
 * assembly helpers do first (FOLD_CLOCK): for code that reads the clock
 * outside them.  Each part loses by one instruction what was read of it,
 * so a block stub adding to it meanwhile (a signal handler's) loses
 * nothing. */
static inline void rt_clock_fold(struct pi_tls *t)
{
	for (int i = 0; i < 3; i++) {
		uint64_t v = __atomic_load_n(&t->clock_part[i], __ATOMIC_RELAXED);
		__asm__ volatile("subq %1, %0" : "+m"(t->clock_part[i]) : "r"(v));
		t->clock += v;
	}
}

/* This thread's counter at TLS offset tpoff (an object's, format.h
 * pi_counters), as a stub passes it. */
static inline uint64_t *rt_counter(int64_t tpoff)
{
	uint64_t tp;
	__asm__("mov %%fs:0, %0" : "=r"(tp));
	return (uint64_t *)(tp + (uint64_t)tpoff);
}

/* The clock waits for the loads the core ran ahead of (as the exit
 * helper does before a return). */
static inline void rt_dcache_settle(struct pi_tls *t)
{
	if (t->dc_ready > t->clock) {
		*t->dc_wait += t->dc_ready - t->clock;
		t->clock = t->dc_ready;
	}
	t->dc_ready = 0;
}

/* The profile, written once, when the process ends (every thread's
 * recording stops); a signal handler's call waits for another thread's
 * write to end. */
void rt_write_profile(int signal);
/* A profile of the process as it is, which goes on recording. */
void rt_write_checkpoint(void);
void rt_profile_reset(void);          /* a forked child may write again */
/* This image's place in its lineage (pid, start time; forked: one fork
 * deeper than its parent's image), read again in a fork's child. */
void rt_lineage_init(int forked);
void rt_process_init(void);
/* Whether the switch name is set to 1 in the environment (a setuid or
 * setgid program's environment switches nothing on). */
bool rt_env_on(const char *name);
int rt_in_profiled_process(void);
void rt_reset_for_child(struct pi_tls *t);
struct pi_tls *rt_tls_of(const struct rt_thread *th); /* another thread's block */

/* ----- Time outside instrumented code (external.c) */

/* rdtsc ticks to the clock's units (1/rt_units of a core cycle), by the
 * ratio measured at start-up (0 before). */
uint64_t rt_ticks_to_cycles(uint64_t ticks);
extern uint64_t rt_units;
/* what the external-call stubs themselves add to a call's measured ticks */
extern uint64_t rt_ext_overhead_ticks;
/* and what a callback's stubs add to it, each time external code calls
 * instrumented code (from the exit helper's resumption of the external's
 * clock to the entry helper's pause of it) */
extern uint64_t rt_cb_overhead_ticks;
/* the clock's units to whole cycles, for the profile */
static inline uint64_t rt_to_cycles(uint64_t u)
{
	return (u + rt_units / 2) / rt_units;
}
static inline uint64_t rt_rdtsc(void)
{
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	return (uint64_t)hi << 32 | lo;
}
/* A measured external's clock starts, or runs again after a callback:
 * last thing, fenced on both sides, so that neither the runtime's own
 * work nor the external's falls on the wrong side of it (stubs.S does
 * the same where a callback returns; its external-call fast path starts
 * the clock with the first fence only, as pi_rt_probe_window measures);
 * and an entry from here on is a callback (pi_tls.cb_hint). */
static inline void rt_ext_clock_run(struct pi_tls *t, struct rt_frame *f)
{
	uint32_t lo, hi;
	t->cb_hint = 1;
	__asm__ volatile("lfence\n\trdtsc\n\tlfence" : "=a"(lo), "=d"(hi)::"memory");
	f->ext_start = (uint64_t)hi << 32 | lo;
}
/* Measure the ratio, and give the externals of one name one record. */
void rt_externals_init(void);
/* rdtsc ticks per 1000 cycles, for the profile's header; 0 if unknown. */
uint64_t rt_tsc_per_kcycle(void);
static inline int rt_is_external(const struct pi_funcrec *fn)
{
	return fn->npieces == 0;
}
/* The record every external of r's name shares (rt_externals_init), in
 * the word r's addr[0] names; NULL before, or for a record of the
 * runtime's own (a target's) */
static inline const struct pi_funcrec *rt_ext_shared(const struct pi_funcrec *r)
{
	return r->addr[0] ? *(const struct pi_funcrec *const *)pi_rec_addr(r, 0) : NULL;
}

/* ----- Calls through pointers out of instrumented code (targets.c) */

/* --counts: the record of a call through a pointer's target, which is not
 * instrumented code (NULL: the table is full, and the call is counted as
 * lost); whether its measured time is charged (a cycle model's). */
struct pi_funcrec *rt_target_record(uint64_t target);
bool rt_target_charged(void);

/* a record per distinct target, in profinst_funcs */
extern struct pi_funcrec rt_targets[] __attribute__((visibility("hidden")));
static inline int rt_is_target(const struct pi_funcrec *fn)
{
	return fn >= rt_targets && fn < rt_targets + RT_TARGETS;
}
/* The thunk a tail jump to target (not instrumented) goes through
 * instead, or 0 (the table is full: counted as lost). */
uint64_t rt_target_tail_thunk(uint64_t target);
struct pw;
/* Name the targets, give their records the (object, function) their
 * nodes are written as, and write the object that holds the names called
 * only through pointers (numbered index, if any), the TARGETS record and
 * what the table could not hold (LOSS). */
void rt_targets_write(struct pw *w, uint32_t index);

/* Close the top frame of th at virtual time now (shadow.c); returns the
 * cycles the frame's external call added to the thread's clock. */
uint64_t rt_close_top(struct rt_thread *th, uint64_t now);
/* Push a frame for fn (struct rt_frame * or NULL when out of memory). */
struct rt_frame *rt_push(struct rt_thread *th, const struct pi_funcrec *fn, uint64_t sp, uint64_t ra,
			 uint64_t now);
/* Frames parked by swapcontext: put back the context whose swapcontext
 * returns at sp (1), or nothing is parked there (0); close all of them,
 * when the thread ends. */
int rt_unpark(struct rt_thread *th, uint64_t sp);
void rt_close_parked(struct rt_thread *th);
uint64_t rt_unwind_to(struct rt_thread *th, uint64_t sp, uint64_t now); /* the clock after */

/* Is addr the entry of an instrumented function? (sorted table built at
 * start-up; false before it exists) */
int rt_is_entry(uint64_t addr);
/* The record of the instrumented function whose entry is addr, or NULL. */
const struct pi_funcrec *rt_entry_rec(uint64_t addr);
void rt_entries_init(void);

/* ----- Signals (signals.c) */

/* Handle the fatal signals the program left at their default (the profile
 * is written, then the signal has its usual effect), and give the main
 * thread an alternate stack; the program sees neither. */
void rt_signals_init(void);
/* Give the calling thread an alternate signal stack, unless it has one
 * (a stack overflow writes the profile too); take it back as the thread
 * ends. */
void rt_altstack_open(void);
void rt_altstack_close(void);

/* ----- The counting runtime (counting.c) */

/* A system call's time (units) under --counts: the current node's,
 * charged or not. */
void rt_counting_sys(struct pi_tls *t, uint64_t cyc, bool charged);
/* A call of the external rec with these first arguments: a setlocale
 * that sets one is noted (PI_EXT_LOCALE); true if rec's cost is the C
 * locale's (PI_EXT_C_LOCALE) and a locale was set, so that the call is
 * measured instead. */
bool rt_ext_locale(const struct pi_funcrec *rec, uint64_t a0, uint64_t a1);
/* Whether a call of the external rec (a mutex's lock or unlock:
 * PI_EXT_SOLO; the mutex a0) is measured instead of costed: the process
 * has (or had) more than one thread, or the mutex is not a plain one of
 * its own (shared with other processes, robust, priority-aware); or a
 * pthread_once (PI_EXT_ONCE) whose control word a0 is not yet done. */
bool rt_ext_solo_measured(const struct pi_funcrec *rec, uint64_t a0);
/* Whether a call of the external rec with these first arguments waits on
 * the outside world (PI_EXT_WAIT, or a read that blocks). */
bool rt_ext_waits(const struct pi_funcrec *rec, uint64_t a0, uint64_t a1, uint64_t a2);
/* The sink counting stubs count in where no node can be had; before any
 * thread's first count. */
void rt_counting_init(void);
/* --counts: the block counts are in the nodes; the objects have no
 * counters in TLS (their section there is one word) */
extern bool rt_counts_in_nodes;
/* An ended thread's (kept) counting tables and arena go to its kit,
 * for the next thread; its stubs count in the sink from now on. */
void rt_counting_end(struct pi_tls *t, struct rt_thread *th);
/* th's counting tree as a PI_REC_CTHREAD's nodes: *len bytes, *nnodes
 * nodes after the root; an ended thread's (rt_counting_keep), or encoded
 * now, into memory the next call reuses.  NULL (0, 0) where there is no
 * tree or no memory to encode it. */
const uint8_t *rt_counting_tree(struct rt_thread *th, uint64_t *len, uint32_t *nnodes);
/* Before a counting profile's trees are encoded: what marks the
 * functions they hold (the ended threads' at once), for
 * rt_counting_needs; the other threads stopped */
void rt_counting_begin_writing(struct rt_thread *head);
/* Whether the profile needs f's record: a node of some tree written is
 * f's (true for all before rt_counting_begin_writing, or without memory) */
bool rt_counting_needs(const struct pi_funcrec *f);
/* An ending thread's tree, encoded into memory kept to the end, before
 * its nodes go to the next thread (lost if there is no memory) */
void rt_counting_keep(struct rt_thread *th);
/* Zero th's counting nodes (a fork's child counts its own); the nodes
 * and the trampolines stay, as the frames do. */
void rt_counting_zero(struct rt_thread *th);
/* called from stubs.S */
void pi_rt_centry(const struct pi_funcrec *fn, uint64_t sp);
uint64_t pi_rt_ctramp(uint64_t sp);
struct rt_cnode *pi_rt_cextnew(const struct pi_funcrec *x);
void pi_rt_cptr(uint64_t sp, int tail);
void pi_rt_cresync(uint64_t sp, const struct pi_funcrec *fn);
void pi_rt_cmeas_start(uint64_t a0, uint64_t a1, uint64_t a2);
void pi_rt_cpark(uint64_t sp);
void pi_rt_cunpark(uint64_t sp);
void pi_rt_cmeas_stop(void);
void __profinst_ctramp(void);

#endif
