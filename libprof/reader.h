/* SPDX-License-Identifier: MIT */
/*
 * Reading a profile.  prof_load validates everything it hands out: record
 * bounds, map offsets, string offsets, node parents, object and function
 * indices.  A profile that fails any check is refused with a message; the
 * rest of profview can trust what it gets.
 */
#ifndef PI_READER_H
#define PI_READER_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "format.h"

struct prof_obj {
	const struct pi_map_hdr *map;
	const struct pi_map_func *funcs;
	const struct pi_map_block *blocks;
	const struct pi_map_site *sites;
	const struct pi_map_line *lines; /* each section's rows together, by offset */
	const uint8_t *code;
	/* the blocks' relocations (none in a map written before they were kept) */
	const struct pi_map_reloc *relocs;
	uint32_t nrelocs;
	const char *str;
	uint64_t *counts;      /* [nblocks], summed over threads */
	/* under a simulation (map->reserved & PI_MAP_SIMS), else NULL: each
	 * block's mispredicted jumps, and its loads' waits beyond its fixed
	 * cost (1/map->units of a cycle), summed over threads */
	uint64_t *mispredicts, *mem_waits;
	uint32_t *line_ix;     /* [nlines]: lines by (section, offset, index), for prof_line */
	/* the inlined calls and the rows saying which code each holds (none
	 * in a map written before they were kept) */
	const struct pi_map_inline *inlines;
	uint32_t ninlines;
	const struct pi_map_inrow *inrows;
	uint32_t ninrows;
	uint32_t *inrow_ix;    /* [ninrows], by (section, offset, index), for prof_inline */
	char **inline_shown;   /* [ninlines]: each one's name as a viewer shows
				 it (demangled), made by it on first use, or
				 NULL; freed with the profile */
	uint32_t first_gfunc;  /* global index of its function 0 */
	/* for prof_func_at, built on first use: its functions (not externals)
	 * by (section name, offset), and the furthest end of each and those
	 * before it in its section */
	uint32_t *at_ix, nat;
	uint64_t *at_end;
};

struct prof_thread {
	const struct pi_prof_thread *hdr;
	const struct pi_prof_node *nodes;
	const struct pi_prof_recedge *recs;
	/* a PI_REC_CTHREAD's payload, which hdr, nodes and recs were made of
	 * (ctrees), or NULL */
	const uint8_t *ctree;
	uint64_t ctree_size;
};

/* A function of the whole program: (object, index in its map). */
struct prof_gfunc {
	uint32_t obj, func;
	const char *name;     /* as in the symbol table */
	const char *object;   /* the object it is in; for an external, the object calling it */
	const struct pi_prof_funcrec *rec; /* where it landed, if linked */
	bool external;        /* not instrumented code: <external:name> */
	char *shown;          /* the name as a viewer shows it (demangled,
				 <external:name>), made by it on first use, or
				 NULL; freed with the profile */
};

struct ctree_out;

struct profile {
	uint8_t *data;
	size_t size;
	bool mapped;         /* data is a mapping of the file (else malloc'd) */
	const struct pi_prof_hdr *hdr;
	struct prof_obj *objs;
	uint32_t nobjs;
	const struct pi_prof_funcrec *recs;
	uint32_t nrecs;
	struct prof_thread *threads;
	uint32_t nthreads;
	struct prof_gfunc *funcs;
	uint32_t nfuncs;
	/* the figures of nodes, recursive edges and thread clocks are in
	 * 1/units of a cycle (PI_PROF_FEAT_UNITS: object 0's map's; 1 for a
	 * profile in whole cycles) */
	uint32_t units;
	struct piece_ix *pieces; /* lazily built index for prof_find_site */
	size_t npieces;
	struct name_ix *names;   /* lazily built index for prof_first_named */
	/* what was not recorded, by PI_LOSS_* kind, over all threads */
	uint64_t lost[PI_LOSS_KINDS];
	/* the process images the figures are of (PI_REC_PROCESS): one in a
	 * profile the runtime wrote, one per input in a merged profile, none
	 * in a profile written before the record existed.  lineage and exe
	 * are NUL-terminated (checked). */
	const struct pi_prof_process *procs;
	uint32_t nprocs;
	const uint8_t **counts_recs; /* COUNTS and SIMCOUNTS records, in order */
	/* the executable's profinst_map section, where OBJREF records' maps
	 * are (read at the first), or NULL */
	uint8_t *image_maps;
	uint64_t image_size;
	/* the shared objects' profinst_map sections (SHLIB records) */
	uint8_t **shlib_maps;
	size_t nshlibs, shlibcap;
	size_t ncounts, countcap;
	struct ctree_out *ctrees; /* what the counting trees (PI_REC_CTHREAD) became */
	size_t nctrees;
};

/* Load and validate path. Returns 0, or -1 with a one-line message in err. */
int prof_load(struct profile *p, const char *path, char *err, size_t errsz);
/* Same, from memory (the buffer is copied). */
int prof_parse(struct profile *p, const void *data, size_t size, char *err, size_t errsz);
void prof_free(struct profile *p);

/* String s of object o (validated). */
static inline const char *prof_str(const struct prof_obj *o, uint32_t s)
{
	return o->str + s;
}

/* Global function index of (obj, func), or UINT32_MAX. */
uint32_t prof_gfunc(const struct profile *p, uint32_t obj, uint32_t func);

/* The first function (global index) whose symbol is name, or UINT32_MAX;
 * prof_next_named(p, g), the next after g of g's name, or UINT32_MAX: the
 * functions of a name in index order.  O(1) a step (an index built on
 * first use; a scan of the functions where there is no memory for it). */
uint32_t prof_first_named(const struct profile *p, const char *name);
uint32_t prof_next_named(const struct profile *p, uint32_t g);

/* The function of object obj (not an external) whose extent in the
 * section named sec holds offset off, the first in the map's order where
 * several do, and the offset in it; UINT32_MAX if none.  O(log n) (an
 * index built on first use; a scan of the object's functions where there
 * is no memory for it). */
uint32_t prof_func_at(const struct profile *p, uint32_t obj, const char *sec, int64_t off, uint32_t *in);

/* The call site a return address belongs to: its caller function and the
 * site in its map, or false. */
bool prof_find_site(const struct profile *p, uint64_t ret_addr, uint32_t *gfunc,
		    const struct pi_map_site **site);

/* The line-table row of o that covers (section, offset): the last row of
 * that section at or before offset, or NULL if none or it has no line.
 * O(log nlines). */
const struct pi_map_line *prof_line(const struct prof_obj *o, uint32_t section, uint32_t offset);

/* The innermost inlined call whose code (section, offset) of o is, or
 * NULL where it is the function's own.  O(log ninrows). */
const struct pi_map_inline *prof_inline(const struct prof_obj *o, uint32_t section, uint32_t offset);

/* The inlined call f is in, or NULL where f is directly in the function. */
const struct pi_map_inline *prof_inline_parent(const struct prof_obj *o, const struct pi_map_inline *f);

/* The process image a profile the runtime wrote is of (its pid, parent,
 * start time, exec and fork generations, lineage name: format.h), or NULL
 * if it has no process record (written before there was one). */
const struct pi_prof_process *prof_process(const struct profile *p);

/* Does the profile's model charge the time measured in external code and
 * system calls (a cycle model), or only record it (instructions)? */
bool prof_charges_os(const struct profile *p);

/* Was an object of the profile instrumented with --branch-sim (its
 * mispredictions are in the cycles)? */
bool prof_branch_sim(const struct profile *p);

/* Was an object of the profile instrumented with --cache-sim (the misses
 * of its loads that wait for loads are in the cycles)? */
bool prof_cache_sim(const struct profile *p);
/* Instrumented with --counts: the cycles are block counts times the
 * model's costs, without call and return bubbles, page faults or per-call
 * minimum and maximum. */
bool prof_counted(const struct profile *p);

#endif
