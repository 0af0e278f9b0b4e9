/* SPDX-License-Identifier: MIT */
/*
 * profinst on-disk and in-memory formats, shared by the rewriter (which
 * emits the per-object map and descriptors), the runtime (which copies them
 * into the profile) and profview (which reads them back).
 *
 * All integers are little-endian, all structures naturally aligned, and no
 * structure contains a pointer except the run-time records in the
 * executable (pi_objdesc, pi_funcrec), whose pointers are filled in by the
 * linker through relocations the rewriter emits.
 *
 * See libprof/FORMAT.md for the prose description.
 */
#ifndef PROFINST_FORMAT_H
#define PROFINST_FORMAT_H

#include <stdint.h>

/* ----- The map: one blob per instrumented object, emitted by the rewriter
 * into the allocated section "profinst_map" and copied verbatim into the
 * profile by the runtime.  It describes the object as it was before
 * instrumentation, so that every figure can be shown at its original place. */

#define PI_MAP_MAGIC 0x50414d50u /* "PMAP" */
#define PI_MAP_VERSION 3

struct pi_map_hdr {
	uint32_t magic;
	uint32_t version;
	uint32_t size;       /* bytes of the whole blob, header included */
	uint32_t object;     /* string: "file.o" or "lib.a(member.o)" */
	uint32_t nfuncs;
	uint32_t nblocks;
	uint32_t nsites;
	uint32_t funcs_off;  /* -> struct pi_map_func[nfuncs] */
	uint32_t blocks_off; /* -> struct pi_map_block[nblocks] */
	uint32_t sites_off;  /* -> struct pi_map_site[nsites] */
	uint32_t str_off;    /* string table; a string is an offset into it */
	uint32_t str_size;
	uint32_t cpu;        /* string: the timing model's name */
	uint32_t nlines;
	uint32_t lines_off;  /* -> struct pi_map_line[nlines], sorted by (section, offset) */
	uint32_t code_off;   /* original bytes of the blocks (see pi_map_block.code) */
	uint32_t code_size;
	uint32_t reserved;   /* PI_MAP_* flags */
	uint32_t units;      /* block costs are in 1/units of a cycle (1: whole
				cycles or instructions); the runtime writes
				the profile's figures in object 0's units
				(PI_PROF_FEAT_UNITS) */
	uint32_t mispredict; /* --branch-sim: what a misprediction costs (units;
				0 in maps written before it was kept) */
	/* With PI_MAP_RELOCS only (maps written before it end at
	 * mispredict): the relocations of the blocks' original bytes, which
	 * name what their calls, jumps and data references reach. */
	uint32_t nrelocs;
	uint32_t relocs_off; /* -> struct pi_map_reloc[nrelocs], in block order */
	/* With PI_MAP_INLINES only (and PI_MAP_RELOCS; maps written before
	 * it end at relocs_off): the calls the compiler inlined. */
	uint32_t ninlines;
	uint32_t inlines_off; /* -> struct pi_map_inline[ninlines] */
	uint32_t ninrows;
	uint32_t inrows_off;  /* -> struct pi_map_inrow[ninrows], sorted by (section, offset) */
	/* With PI_MAP_SAME only (and PI_MAP_INLINES; maps written before it
	 * end at inrows_off): per block, the block whose count is its count,
	 * + 1 (a block that then has no counter of its own in a --counts
	 * node), or 0. */
	uint32_t nsame;       /* nblocks, or 0 */
	uint32_t same_off;    /* -> uint32_t[nsame]; with PI_MAP_DIFF, then
				 uint32_t[2 * nsame]: per block, two blocks
				 + 1 (or 0, 0) whose counts' difference is
				 its count, the first's less the second's (an
				 arm of a two-way branch: its branch's block's
				 less the other arm's); both have counts of
				 their own, and the block is in no other
				 block's place in either table; with
				 PI_MAP_SUM, then uint32_t nwords and nwords
				 words of groups: a count k, then k blocks
				 + 1 whose counts' sum is a block's count
				 (each with a count of its own), the block
				 whose pair is (0, the group's place + 1) */
};

#define PI_MAP_CHARGE_OS 0x1    /* the model charges time outside instrumented code */
#define PI_MAP_CHARGE_WAITS 0x2 /* --charge-waits */
#define PI_MAP_BRANCH_SIM 0x4   /* --branch-sim: mispredictions are in the cycles */
#define PI_MAP_CACHE_SIM 0x8    /* --cache-sim: dependent loads' misses are in the cycles */
#define PI_MAP_RELOCS 0x10      /* the header goes on with nrelocs and relocs_off */
#define PI_MAP_INLINES 0x20     /* and then with ninlines, inlines_off, ninrows, inrows_off */
#define PI_MAP_COUNTING 0x40    /* --counts: the stubs count per context (runtime/counting.c) */
#define PI_MAP_SAME 0x80        /* and then with nsame, same_off */
#define PI_MAP_DIFF 0x100       /* and the same table goes on with differences */
#define PI_MAP_SUM 0x200        /* and the differences go on with sums (with PI_MAP_DIFF) */
/* With PI_MAP_DIFF: a difference's second block may be the block itself,
 * whose counter then counts the other way out of its branch's block (an
 * edge: the block's own count is the difference); and its first may be
 * a block before it whose count is a difference too, to at most
 * PI_MAP_DIFF_DEPTH of them one after the other (each difference taken
 * from the first block's count as it comes, 0 rather than less); and a
 * block counted as another may be counted as such a difference. */
#define PI_MAP_EDGES 0x400
#define PI_MAP_DIFF_DEPTH 32
/* With PI_MAP_SUM: a group whose count word has PI_LIN_GROUP set is a
 * block's count as a signed sum (flow into a join, each way in its
 * source's count or a difference): each term is a block + 1 of the same
 * function, PI_LIN_MINUS to take it away, and PI_LIN_RAW for the
 * block's own counter as it is (an edge's, PI_MAP_EDGES) rather than its
 * count; no term's block is such a sum, and the result is 0 rather than
 * less. */
#define PI_MAP_LIN 0x800
#define PI_LIN_GROUP 0x80000000u
#define PI_LIN_MINUS 0x80000000u
#define PI_LIN_RAW 0x40000000u
#define PI_LIN_BLOCK 0x3fffffffu
#define PI_LIN_MAX 16

/* The header's size in a map without PI_MAP_RELOCS, in one without
 * PI_MAP_INLINES, and in one without PI_MAP_SAME. */
#define PI_MAP_HDR_V3_SIZE 80u
#define PI_MAP_HDR_RELOCS_SIZE 88u
#define PI_MAP_HDR_INLINES_SIZE 104u

/* An inlined call (DWARF's DW_TAG_inlined_subroutine): a function whose
 * code the compiler put in its caller's. */
struct pi_map_inline {
	uint32_t name;      /* string: the inlined function (mangled, as a symbol) */
	uint32_t call_file; /* string: the file of the call, "" if not known */
	uint32_t call_line; /* its line, 0 if not known */
	uint32_t parent;    /* the inlined call it is in: its index + 1, less
			       than its own index + 1; 0: directly in the
			       function whose code holds it */
};

/* A row of the inline table: from offset on (to the next row of the same
 * section), the code is of inlined call frame - 1, the innermost, and of
 * its parents; frame 0: the function's own code. */
struct pi_map_inrow {
	uint32_t section; /* string */
	uint32_t offset;
	uint32_t frame;
};

/* A relocation of a block's original bytes, as the object had it: the
 * field at (section, offset) holds symbol + addend, relative to the field
 * for a PC-relative type. */
struct pi_map_reloc {
	uint32_t section; /* string: the code's section */
	uint32_t offset;  /* of the field, in that section */
	uint32_t symbol;  /* string: the symbol; a section's name for a section
			     symbol (PI_RELOC_SECTION) */
	uint32_t type;    /* R_X86_64_*, | PI_RELOC_SECTION */
	int32_t addend;
};
#define PI_RELOC_SECTION 0x80000000u

/* An object's thread-local counters (pi_objdesc.counts_tpoff): each
 * block's executions, then, when a simulation runs (PI_MAP_BRANCH_SIM,
 * PI_MAP_CACHE_SIM), each block's mispredicted conditional jumps, then
 * what its loads' misses cost beyond its fixed cost (units). */
#define PI_MAP_SIMS (PI_MAP_BRANCH_SIM | PI_MAP_CACHE_SIM)
static inline uint64_t pi_counters(const struct pi_map_hdr *m)
{
	return (uint64_t)m->nblocks * ((m->reserved & PI_MAP_SIMS) ? 3 : 1);
}

/* A row of the original line table: from offset on (to the next row of the
 * same section), the code is of file:line. line 0: no line. */
struct pi_map_line {
	uint32_t section; /* string */
	uint32_t offset;
	uint32_t file;    /* string: path as the compiler recorded it, made absolute */
	uint32_t line;
};

#define PI_FUNC_COMDAT 0x1      /* defined in a COMDAT group: may be a discarded copy */
#define PI_FUNC_UNINSTRUMENTED 0x2 /* left as it was: no counts */
#define PI_FUNC_GLOBAL 0x4
/* Not code of the object: a function outside instrumented code (a shared
 * library's, reached through the PLT) that the object calls.  Its calls are
 * wrapped and timed; it has no blocks.  name is the symbol called; views
 * show it as <external:name>. */
#define PI_FUNC_EXTERNAL 0x8
#define PI_FUNC_WAIT 0x10       /* external that waits on the outside world */
/* --counts: the entry block has no counter of its own (it runs once per
 * call and only then, rewriter/cfg.h code_count_preds): its count is the
 * calls of the context's node. */
#define PI_FUNC_ENTRY_CALLS 0x20
/* --counts: the bits from here up are the bytes of its entry stub: a call
 * may enter at its address + these, past it (0: not) */
#define PI_FUNC_INNER_SHIFT 16

struct pi_map_func {
	uint32_t name;        /* string: symbol name (mangled) */
	uint32_t section;     /* string: original section name of the entry */
	uint32_t offset;      /* original offset of the entry in that section */
	uint32_t size;        /* original size of the entry piece */
	uint32_t first_block; /* blocks of a function are contiguous */
	uint32_t nblocks;
	uint32_t first_site;  /* call sites of a function are contiguous */
	uint32_t nsites;
	uint32_t flags;       /* PI_FUNC_* */
	uint32_t ninsns;      /* static instruction count, all pieces */
};

struct pi_map_block {
	uint32_t func;    /* index into funcs */
	uint32_t section; /* string: original section name */
	uint32_t offset;  /* original offset in that section */
	uint32_t size;    /* original bytes */
	uint32_t ninsns;
	uint32_t cost;    /* fixed cost of the block under the map's cpu model,
			     in 1/units of a cycle (see pi_map_hdr.units) */
	uint32_t code;    /* offset of its original bytes in the code blob */
};

/* A call site: a call instruction of the original object.  The runtime
 * records return addresses; profview finds the site by the piece and the
 * offset of the return address in the instrumented piece. */
struct pi_map_site {
	uint32_t func;
	uint32_t piece;   /* which piece of the function (0 = entry piece) */
	uint32_t ret_off; /* return address, as offset in the instrumented piece */
	uint32_t section; /* string: original section name */
	uint32_t offset;  /* original offset of the call instruction */
	uint32_t block;   /* block holding the call */
};

/* The map's tables. */
static inline const struct pi_map_func *pi_map_funcs(const struct pi_map_hdr *m)
{
	return (const struct pi_map_func *)((const char *)m + m->funcs_off);
}
static inline const struct pi_map_block *pi_map_blocks(const struct pi_map_hdr *m)
{
	return (const struct pi_map_block *)((const char *)m + m->blocks_off);
}
static inline const struct pi_map_site *pi_map_sites(const struct pi_map_hdr *m)
{
	return (const struct pi_map_site *)((const char *)m + m->sites_off);
}

/* ----- Run-time records, in the instrumented executable. */

#define PI_MAX_PIECES 4

enum pi_heap_op { PI_HEAP_MALLOC = 1, PI_HEAP_FREE, PI_HEAP_REALLOC };
/* pi_objdesc.heap: what each path through the allocator costs (units) */
enum pi_heap_cost {
	PI_HC_MALLOC_CACHED, /* a malloc the thread's cache of free blocks serves */
	PI_HC_FREE_CACHED,   /* a free into that cache */
	PI_HC_FREE_BIN,      /* a free beyond it, of a fast, small, large block */
	PI_HC_MALLOC_BIN = PI_HC_FREE_BIN + 3, /* a malloc from the bins (refilling the
				cache), of a fast, small, large block */
	PI_HC_MALLOC_TOP = PI_HC_MALLOC_BIN + 3, /* a malloc with no free block */
	PI_HC_FREE_NULL = PI_HC_MALLOC_TOP + 3,
	PI_HC_REALLOC_SAME,  /* a realloc that keeps its block */
	PI_HC_COPY_KIB,      /* a KiB copied by a realloc that moves its block */
	PI_HC_COUNT
};

/* One per instrumented object, in section "profinst_objs". */
struct pi_objdesc {
	uint64_t magic;          /* PI_OBJDESC_MAGIC */
	int64_t map;             /* where its map is, from this word (pi_obj_map) */
	int32_t counts_tpoff;    /* TLS offset of uint64_t counts[pi_counters(map)] */
	uint32_t nblocks;
	uint32_t nfuncs;
	uint32_t unused;         /* (0; the runtime numbers the objects: rt_obj_index) */
	/* the map's header's size, flags (PI_MAP_*) and units, which the
	 * runtime reads here rather than in the map: a program of a thousand
	 * objects would fault in a page of its map section for each at its
	 * start and again at its exit (so for node_words) */
	uint32_t map_size, map_flags, map_units;
	/* --counts: the most words a node of one of its functions holds
	 * (the map's nblocks and the record's nslots) */
	uint32_t node_words;
	/* The model's front end, charged by the runtime at a call into and a
	 * return from instrumented code (units; all 0: the block costs hold
	 * it): a call's and a return's bubble, and how far (window) the
	 * branch predictor may run ahead of fetch, so that a bubble overlaps
	 * with up to that much work fetched before it. */
	uint32_t call_bubble, ret_bubble, fe_window;
	/* --cache-sim's data caches (all 0: not simulated): each level's
	 * capacity in 64-byte lines, and the latency of a load that misses
	 * the first level and hits in the second, the third level, or
	 * memory (units). */
	uint32_t cache_lines[3];
	uint32_t cache_latency[3];
	/* and its data TLBs: entries of each level (4 KiB pages), and what
	 * a miss of each adds to a load (units) */
	uint32_t tlb_entries[2];
	uint32_t tlb_latency[2];
	/* and its out-of-order window: how far (units) the core runs ahead of
	 * a load that waits for a miss, and how many such loads it keeps in
	 * flight, before it waits for them */
	uint32_t cache_window;
	uint32_t cache_mlp;
	/* the allocator's costs (enum pi_heap_cost, units; all 0: costs are
	 * fixed, PI_EXT_HEAP ignored) */
	uint32_t heap[PI_HC_COUNT];
	/* what a minor page fault costs the instruction that takes it (units;
	 * 0: faults are not charged; runtime/faults.c) */
	uint32_t page_fault;
	/* --cache-sim: how many misses that no followed load waits for (a
	 * read-modify-write, a store, a load whose value only arithmetic
	 * uses, at an address computed from a load) the core keeps in flight,
	 * by where they hit: the second level, the third, memory.  Such a
	 * miss costs its latency over this (0: nothing). */
	uint32_t cache_overlap[3];
	uint32_t unused2;
	/* its functions' shapes (pi_func_shape, by map index, an external's
	 * 0), from this word (pi_obj_shapes): what the runtime reads of a
	 * function's map entry each time it makes a node of it, dense (the
	 * map's entries lie 40 bytes apart among its other tables) */
	int64_t shapes;
};

struct pi_func_shape {
	uint32_t nblocks;   /* the map's (0: not instrumented) */
	uint32_t nsites;
};
#define PI_OBJDESC_MAGIC 0x334544504e495250ull /* "PRINPDE3" */

/* What a shared object profinst instrumented (profinst -shared) tells the
 * runtime of itself when it is loaded: its constructor passes this to
 * __profinst_image_add (runtime/image_so.c), which the program's runtime
 * defines and exports. */
struct pi_image_desc {
	uint64_t magic;                  /* PI_IMAGE_MAGIC */
	const struct pi_objdesc *objs, *objs_end;   /* its profinst_objs */
	const struct pi_funcrec *funcs, *funcs_end; /* its profinst_funcs */
	const char *map;                 /* its profinst_map section */
	const char *ehdr;                /* its ELF header (__ehdr_start) */
};

#define PI_IMAGE_MAGIC 0x31474d494e495250ull /* "PRINIMG1" */

/* One per function, in a section "profinst_funcs" that joins the
 * function's COMDAT group, so that a discarded copy takes its record along.
 * The entry stub passes its address to the runtime: it is the function's
 * identity at run time.  Its words that point (and its object's
 * descriptor's) hold the distance from themselves, which the static link
 * settles: a program's loader relocates none of them and the runtime
 * writes none, so that their pages stay the file's until read (OpenSSL's
 * 10 000 records and 700 descriptors were 20 000 relocations and 190
 * pages copied at every start).
 *
 * An external's record (npieces = 0) passes to the external-call stubs:
 * size[0] holds PI_EXT_* flags (size[1..3] a PI_EXT_FIXED one's cost);
 * the runtime gives the externals of one name one record (the first),
 * which it keeps apart (rt_ext_shared). */
struct pi_funcrec {
	int64_t obj;             /* its object's descriptor, from this word (pi_rec_obj) */
	uint32_t index;          /* into the object's map funcs */
	uint16_t npieces;
	uint16_t nslots;         /* --counts: its nodes' call slots (the map's
				    sites, then its tail jumps) */
	int64_t addr[PI_MAX_PIECES]; /* each piece's instrumented address, from
					its word (pi_rec_addr) */
	uint32_t size[PI_MAX_PIECES]; /* instrumented size of each piece */
};

static inline const struct pi_objdesc *pi_rec_obj(const struct pi_funcrec *f)
{
	return (const struct pi_objdesc *)(const void *)((const char *)&f->obj + f->obj);
}

static inline uint64_t pi_rec_addr(const struct pi_funcrec *f, int piece)
{
	return (uint64_t)&f->addr[piece] + (uint64_t)f->addr[piece];
}

static inline const struct pi_map_hdr *pi_obj_map(const struct pi_objdesc *d)
{
	return (const struct pi_map_hdr *)(const void *)((const char *)&d->map + d->map);
}

static inline const struct pi_func_shape *pi_obj_shapes(const struct pi_objdesc *d)
{
	return (const struct pi_func_shape *)(const void *)((const char *)&d->shapes + d->shapes);
}

/* a word that points, as these hold it: to, from the word at */
static inline int64_t pi_rel(const void *at, const void *to)
{
	return (int64_t)((uint64_t)to - (uint64_t)at);
}

/* An external's record: addr[PI_EXT_NAME_AT] is where its name is,
 * relative to that word (a string of a section the linker merges, so
 * that the runtime reads the names from a few pages, not the maps) */
#define PI_EXT_NAME_AT 2
#define PI_EXT_CHARGE 0x1   /* add its time to the thread's clock (a cycle model) */
#define PI_EXT_WAIT 0x2     /* waits on the outside world: not charged by default */
#define PI_EXT_TTYREAD 0x4  /* a read: a wait when its descriptor is a pipe,
				 a socket or a terminal, and blocks; size[3]
				 says where the descriptor is (PI_READ_*) */
#define PI_EXT_CHARGE_WAITS 0x8 /* --charge-waits: charge waits too */
#define PI_EXT_SWITCH 0x20  /* swapcontext: the stack switches to another context */
#define PI_EXT_SETCTX 0x40  /* setcontext: the context calling it ends */
#define PI_EXT_CHECK 0x10   /* may be instrumented after all (profinst -c):
				 the runtime looks at the call's target */
#define PI_EXT_FIXED 0x80   /* the model costs it (a short C library function):
				 size[1] + size[2] * n / 256 units, n the
				 argument size[3]'s low byte names (0 none, 1-3
				 the first to third, 4 the product of the first
				 two), instead of timing it; but
				 size[3] >> 8 units when that is not 0 and the
				 first argument is NULL (realloc(NULL, n): a
				 malloc) */
/* where a PI_EXT_TTYREAD external's descriptor is: an argument (the
 * first), a FILE * in the first to fourth argument, or stdin's */
enum pi_read_at { PI_READ_FD = 1, PI_READ_FILE1, PI_READ_FILE2, PI_READ_FILE3, PI_READ_FILE4, PI_READ_STDIN };
/* with PI_EXT_FIXED: the model's cost is the C locale's (strcoll's
 * collation is strcmp's there); once the program has set a locale
 * (PI_EXT_LOCALE), its time is measured instead */
#define PI_EXT_C_LOCALE 0x800
/* setlocale, uselocale: a call that sets a locale (its locale argument,
 * the first or second as size[3] says, not NULL) ends the C locale's
 * costs (PI_EXT_C_LOCALE) for the rest of the run */
#define PI_EXT_LOCALE 0x1000
/* with PI_EXT_FIXED: pthread_mutex_lock and pthread_mutex_unlock (and the
 * read-write lock's, PI_EXT_SOLO_RW), whose
 * cost is the model's while the process has one thread (glibc's
 * __libc_single_threaded: no thread was ever made) and the mutex is a
 * plain one of the process's own (no PTHREAD_PROCESS_SHARED, robust,
 * priority-inheriting or -protecting kind); then no one else can hold
 * it or wait for it, and taking it is a few instructions.  Any other
 * call is measured instead, as a PI_EXT_C_LOCALE one is, a lock's as a
 * wait (PI_EXT_WAIT). */
#define PI_EXT_SOLO 0x2000
/* with PI_EXT_FIXED: pthread_once, whose cost is the model's once its
 * control word says the initializer has run (glibc's __PTHREAD_ONCE_DONE,
 * 2: the call only looks); the calls before, which run it, are measured,
 * as a PI_EXT_C_LOCALE one's are */
#define PI_EXT_ONCE 0x4000
/* with PI_EXT_SOLO: pthread_rwlock_rdlock, _wrlock and _unlock, on the
 * same terms, the lock being the process's own when glibc's
 * pthread_rwlock_t says it is not shared between processes (its
 * __shared word, at 28, is 0) */
#define PI_EXT_SOLO_RW 0x8000
#define PI_EXT_HEAP_SHIFT 8
#define PI_EXT_HEAP_MASK 0x700 /* with PI_EXT_FIXED: a heap function whose
				 cost the runtime's model of the allocator gives
				 (runtime/heap.c, pi_objdesc.heap), one of
				 PI_HEAP_*; size[1..3] its fixed cost where the
				 model cannot run */

/* ----- The profile file. */

#define PI_PROF_MAGIC "PROFINST"
#define PI_PROF_VERSION 2

/* The figures of the nodes, recursive edges and thread clocks (self,
 * incl, min_self, max_self, os, os_left, clock) are in 1/units of a cycle,
 * units being object 0's map's (the unit the runtime's clock counts in, and
 * the blocks' costs are given in): exact, so that every view adds them up
 * and rounds once.  Without it (older runtimes), whole cycles, each figure
 * rounded on its own. */
#define PI_PROF_FEAT_UNITS 0x1

#define PI_PROF_ENDED_BY_SIGNAL 0x1
/* written while the program went on (before an exec or _exit): if it
 * goes on, the same image's later profile replaces this one (an image an
 * exec puts in its place writes a profile of its own: pi_prof_process) */
#define PI_PROF_CHECKPOINT 0x2

struct pi_prof_hdr {
	char magic[8];
	uint32_t version;
	uint32_t hdr_size;  /* sizeof(struct pi_prof_hdr) when written */
	uint64_t features;  /* PI_PROF_FEAT_* */
	uint64_t flags;     /* PI_PROF_* */
	uint32_t pid;
	uint32_t signal;    /* the fatal signal, when ENDED_BY_SIGNAL */
	uint64_t tsc_per_kcycle; /* rdtsc ticks per 1000 model cycles; 0 = unknown */
	char exe[256];      /* path of the executable, NUL-terminated */
};

/* Records follow the header: a pi_prof_rec then size bytes of payload,
 * padded to 8.  Unknown tags are skipped by readers. */
struct pi_prof_rec {
	uint32_t tag;
	uint32_t reserved;
	uint64_t size;
};

enum {
	PI_REC_OBJECT = 1,  /* u32 index, u32 pad, then the map blob */
	PI_REC_COUNTS = 2,  /* u32 object, u32 thread, then uint64_t[nblocks] */
	PI_REC_FUNCREC = 3, /* struct pi_prof_funcrec[] */
	PI_REC_THREAD = 4,  /* struct pi_prof_thread, then pi_prof_node[] */
	PI_REC_SIMCOUNTS = 5, /* u32 object, u32 thread, then uint64_t[2 * nblocks]:
				 each block's mispredictions, then its loads'
				 waits beyond its fixed cost (1/units of a cycle) */
	PI_REC_LOSS = 6,    /* struct pi_prof_loss[]: what was not recorded */
	PI_REC_TARGETS = 7, /* struct pi_prof_target[]: where calls through a
				 pointer out of instrumented code went */
	PI_REC_PROCESS = 8, /* struct pi_prof_process[]: the process image(s)
				 the figures are of; a merged profile lists
				 every input's */
	PI_REC_IMAGE = 9,   /* struct pi_prof_image: the executable the
				 OBJREF records' maps are in (before them) */
	PI_REC_OBJREF = 10, /* struct pi_prof_objref: an object whose map is
				 in the executable, not in the profile */
	PI_REC_SHLIB = 11,  /* struct pi_prof_shlib: a shared object's
				 objects, whose maps are in it */
	PI_REC_CTHREAD = 12, /* struct pi_prof_cthread, then its nodes as the
				 counting runtime kept them (FORMAT.md):
				 readers cost them into a THREAD's and its
				 COUNTS */
	PI_REC_END = 0xffff,
};

/* The executable that wrote the profile (the header's exe), by its GNU
 * build id: a reader takes the maps the OBJREF records name from its
 * profinst_map section, and refuses an executable with another id (one
 * built again since). */
struct pi_prof_image {
	uint32_t build_id_size; /* bytes of build_id used, 1 to 64 */
	uint32_t reserved;
	uint8_t build_id[64];
};

/* In place of an OBJECT record: the object's map is the size bytes at
 * offset in the executable's profinst_map section. */
struct pi_prof_objref {
	uint32_t index;   /* as an OBJECT record's */
	uint32_t reserved;
	uint64_t offset;
	uint64_t size;
};

/* The objects of an instrumented shared object the program loaded
 * (profinst -shared), whose maps are in its profinst_map section: its GNU
 * build id, then nrefs pi_prof_objref (offsets in that section), then the
 * path it was loaded from, NUL-terminated. */
struct pi_prof_shlib {
	uint32_t build_id_size; /* bytes of build_id used, 1 to 64 */
	uint32_t nrefs;
	uint8_t build_id[64];
};

/* A figure that is not exact says so: what a thread did not record. */
struct pi_prof_loss {
	uint32_t kind;   /* PI_LOSS_* */
	uint32_t thread; /* its index */
	uint64_t count;
};

enum {
	/* calls made while the thread was inside the runtime (a signal
	 * handler that interrupted a stub) or stopped while another thread
	 * wrote the profile: neither counted nor timed, their time is their
	 * interrupted caller's */
	PI_LOSS_NESTED = 1,
	/* calls not given a frame: the shadow stack or the tree could not
	 * grow (no memory); their time is their caller's */
	PI_LOSS_DROPPED = 2,
	/* the thread was inside the runtime when the profile was written and
	 * did not come out within a second: its open frames are not closed */
	PI_LOSS_RUNNING = 3,
	/* calls through a pointer out of instrumented code neither counted
	 * nor timed: they went to more distinct places than the runtime has
	 * records for (runtime/targets.c); their time is their caller's */
	PI_LOSS_TARGETS = 4,
	PI_LOSS_KINDS
};

/* A process image: which process, and where it stands in its lineage
 * (as a Sun analyzer experiment's _x1 names the first image exec'd).  A
 * profile written by the runtime has one, as its first record. */
struct pi_prof_process {
	uint32_t pid;
	uint32_t ppid;
	uint64_t start_time; /* the process's start, in clock ticks after boot
				(/proc/PID/stat's 22nd field): with pid, it names
				the process across its exec'd images */
	uint32_t exec_gen;   /* 0: the first image of the process, n: the n-th
				exec'd after it */
	uint32_t fork_gen;   /* fork depth from the first instrumented ancestor
				(an exec'd image keeps its process's) */
	uint64_t flags;      /* its profile's PI_PROF_* */
	char lineage[64];    /* "1234", "1234.x1": what the default profile
				name adds after "profinst.out." (a fork's
				child has a pid of its own); NUL-terminated */
	char exe[256];       /* NUL-terminated */
};

/* A place a call through a pointer went to, out of instrumented code: its
 * calls are those of the node's function (obj, func) under their caller,
 * an external (PI_FUNC_EXTERNAL): the executable's name for it (its GOT
 * or PLT), the symbol of the file mapped there, file+0xoffset, or
 * "<unknown>" in no file's mapping (code made at run time). */
struct pi_prof_target {
	uint64_t addr;       /* as called */
	uint64_t map_start;  /* the mapping it was in when the profile was
				written (0, 0: none) */
	uint64_t map_end;
	uint64_t map_offset; /* the file offset of map_start */
	uint32_t obj, func;
};

struct pi_prof_funcrec {
	uint32_t obj;
	uint32_t func;
	uint32_t npieces;
	uint32_t pad;
	uint64_t addr[PI_MAX_PIECES];
	uint32_t size[PI_MAX_PIECES];
};

struct pi_prof_thread {
	uint32_t index;
	uint32_t tid;
	uint32_t nnodes;
	uint32_t nrec;      /* recursive-call edges, after the nodes */
	uint64_t clock;     /* the thread's final virtual clock */
};

/* A thread's calling-context tree under --counts, as the stubs left it:
 * nnodes nodes after its root (node 0, which is not written), each a
 * sequence of unsigned LEB128 numbers (FORMAT.md, "Counting trees").  A
 * reader derives every block's count from the map and costs it, which
 * the program's exit does not. */
struct pi_prof_cthread {
	uint32_t index;
	uint32_t tid;
	uint32_t nnodes;
	uint32_t reserved;  /* 0 */
};

/* A counting node's flags */
#define PI_CN_EXTERNAL 0x1  /* a function outside the instrumented code: no
			       blocks; its cost is calls * per_call + add */
#define PI_CN_UNTRACKED 0x2 /* not a function recursion is looked for
			       (a target of calls through pointers) */

/* Calling-context tree node; nodes are written parents first. Node 0 is the
 * thread's root, which has no function (obj = func = UINT32_MAX). */
struct pi_prof_node {
	uint32_t parent;
	uint32_t obj;
	uint32_t func;
	uint32_t faults;      /* page faults taken here, charged in self
				 (saturating) */
	uint64_t ret_addr;    /* raw return address of the call (instrumented) */
	uint64_t calls;       /* activations, recursive ones included */
	uint64_t rec_calls;   /* of which recursive (collapsed into this node) */
	uint64_t self;        /* cycles (1/units of one: PI_PROF_FEAT_UNITS) */
	uint64_t incl;        /* cycles, outermost activations only (views
				 derive self+descendants from the selves:
				 FORMAT.md) */
	uint64_t min_self;
	uint64_t max_self;
	uint64_t os;          /* of self: cycles in external code and system
				 calls made from here, charged */
	uint64_t os_left;     /* cycles measured there but not charged: waits,
				 or all of it under the instructions model */
};

/* A recursive call collapsed into an ancestor node: who called (caller
 * node's function) and from where. */
struct pi_prof_recedge {
	uint32_t node;        /* the callee's node */
	uint32_t caller_obj;
	uint32_t caller_func;
	uint32_t caller_node; /* the node the call was made from */
	uint64_t ret_addr;
	uint64_t calls;
	uint64_t incl;
};

#endif
