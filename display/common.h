/* SPDX-License-Identifier: MIT */
#ifndef PV_COMMON_H
#define PV_COMMON_H

#include <stdbool.h>
#include <stdio.h>

#include "reader.h"
#include "views.h"

struct x86_decoder; /* decode.h */

/* Load a profile or print "profview: PATH: reason" and return -1. */
struct pi_out;

int pv_load(struct profile *p, const char *path);
/* pv_load, then the function table. 0, or 1 after a message. */
int pv_open(struct profile *p, struct func_table *t, const char *path);
void pv_close(struct profile *p, struct func_table *t);
/* Output to FILE ("-": standard output) through a temporary file renamed
 * by pv_out_close when everything was written (safefile.h: a FIFO or a
 * device is written in place, a link or a directory refused); NULL after
 * a message. */
FILE *pv_out_open(const char *out, struct pi_out **handle);
/* ok: the writer succeeded. Returns 0, or 1 after a message. */
int pv_out_close(FILE *o, struct pi_out *handle, const char *out, bool ok);
/* Open the profile at path and write it to out (pv_out_open) with
 * write(o, p, t, how), which returns 0 or -1 (it failed).  0, or 1
 * after a message. */
int pv_write(const char *path, const char *out,
	     int (*write)(FILE *o, const struct profile *p, const struct func_table *t, int how), int how);
/* Lines saying what the profile does not hold (calls not recorded, threads
 * not closed, a checkpoint), each starting with prefix; nothing if it
 * holds everything. */
void pv_print_losses(FILE *o, const struct profile *p, const char *prefix);
/* The same as JSON members ("lost": {...}, "checkpoint": ...), each
 * preceded by ",\n  ". */
void pv_json_losses(FILE *o, const struct profile *p);
/* Global function g's name as views show it: demangled, <external:NAME>
 * for code outside the instrumented objects, "<root>" for UINT32_MAX.  It
 * lives as long as the profile (kept in its function's entry). */
const char *pv_name(const struct profile *p, uint32_t g);
/* A symbol's name demangled (the Itanium C++ ABI's), malloc'd; NULL for a
 * name that is not mangled, or out of memory. */
char *pv_demangle(const char *name);
void pv_json_str(FILE *out, const char *s);
/* The same, that cannot end the HTML <script> element holding it (<, >
 * and & escaped too; the report's JSON keeps C++ names readable). */
void pv_json_str_html(FILE *out, const char *s);
void pv_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
/* --format=name: one of the comma-separated choices ("text,json").  0, or 2
 * after a message. */
int pv_format(const char *name, const char *choices, const char **format);
/* An argument that is none of the command's own options: its one profile,
 * or an unknown option.  0, or 2 after a message. */
int pv_positional(const char *cmd, const char *arg, const char **path);

/* "caller+0x2a (file.c:12)": the call instruction a return address follows. */
const char *pv_site_label(const struct profile *p, const struct x86_decoder *dx, uint64_t ra, char *buf, size_t n);
/* How function callee was reached from caller (global function, UINT32_MAX: the
 * thread's root) through return address ra, caller itself having been
 * reached through caller_ra (NULL: not known), the code read with dx:
 *   "main+0x2a (file.c:12)"            a call instruction
 *   "tail call from wrap+0x4 (f.c:9)"  a jump: a function that jumps to
 *                                      its callee (ra is then its own
 *                                      caller's, or the jump's own site);
 *                                      where, when one jump of the
 *                                      caller's reaches the callee
 *   "signal handler (interrupting f)"  a function no instrumented call
 *                                      reached, under an instrumented one
 *   "from uninstrumented code"         called from outside the program's
 *                                      instrumented code (main, a thread,
 *                                      a library's callback) */
const char *pv_call_label(const struct profile *p, const struct x86_decoder *dx, uint64_t ra, uint32_t callee,
			  uint32_t caller, const uint64_t *caller_ra, char *buf, size_t n);
/* pv_call_label of node n of thread th, from its parent node. */
const char *pv_node_label(const struct profile *p, const struct x86_decoder *dx, const struct prof_thread *th,
			  uint32_t n, char *buf, size_t len);
/* Global functions whose name (demangled or symbol) is name. */
uint32_t pv_lookup(const struct profile *p, const struct func_table *t, const char *name, uint32_t *out,
		   uint32_t max);
/* The functions that ran named name: exactly (every one of that name:
 * statics of several objects), else up to a compiler's suffix ("match"
 * for match.constprop.0, .isra.N, .part.N, .cold; C++'s "[clone ...]"),
 * which must then name one function.  Returns how many (at most max) are
 * in out: 0 (no message), or PV_AMBIGUOUS after a message listing the
 * candidates, each on a line of its own. */
uint32_t pv_find_functions(const struct profile *p, const struct func_table *t, const char *path,
			   const char *name, uint32_t *out, uint32_t max);
#define PV_AMBIGUOUS UINT32_MAX
/* The unit of the profile's figures: "instructions" when its model counts
 * instructions (profinst --cpu=instructions), else "cycles". */
const char *pv_unit(const struct profile *p);
bool pv_counts_instructions(const struct profile *p);
/* Whether the profile keeps each function's least and greatest self per
 * call: not when any of its objects was counted (profinst --counts, a
 * merge with such a profile), whose figures are counts times costs, summed
 * per calling context.  Where it does not, every view shows them as
 * absent ("-", JSON null), never as 0. */
bool pv_has_minmax(const struct profile *p);
/* part as a percentage of total (0 where total is 0): the one share every
 * view prints.  In doubles, so that annotate's sums over a line and diff's
 * signed changes are shares too. */
double pv_pct(double part, double total);
/* A time figure (1/units of a cycle, views.h) as whole cycles: the one
 * rounding of a printed figure. */
static inline unsigned long long pv_cyc(const struct profile *p, uint64_t u)
{
	return (unsigned long long)prof_cycles(p->units, u);
}
/* The same, unrounded (for the figures printed with decimals). */
static inline double pv_cyc_f(const struct profile *p, uint64_t u)
{
	return (double)u / (double)(p->units ? p->units : 1);
}
/* A time figure as an exact JSON number of cycles ("1234", "1234.515625"):
 * machine-readable output keeps every digit, so that its figures add up
 * exactly.  (A unit that no power of ten divides gets 9 decimals.) */
void pv_json_cycles(FILE *o, uint32_t units, uint64_t u);

/* What an instruction's relocated field or direct branch names, from the
 * map's relocations and functions: "leaf", "leaf+0x4", "puts",
 * ".rodata.str1.1+0x8", "x@GOTPCREL".  g: the function of the profile it
 * is in (UINT32_MAX: none), off: the offset in it. */
struct pv_ref {
	char text[256];
	uint32_t g, off;
	bool branch; /* a call's or jump's target (else a data reference) */
};
/* The references of the instruction of object obj at section offset
 * `at` (section sec, one of the object's strings), bytes code[len]
 * decoded with dx: how many (at most max) are in out. */
uint32_t pv_insn_refs(const struct profile *p, const struct x86_decoder *dx, uint32_t obj, uint32_t sec, uint32_t at,
		      const uint8_t *code, uint32_t len, struct pv_ref *out, uint32_t max);

/* A hash map from strings to indices, where a list would be searched
 * once per function.  The strings are kept, not copied: they must outlive
 * the map (a profile's, say). */
struct pv_strmap {
	const char **keys; /* NULL: a free slot */
	uint32_t *vals;
	size_t cap, n;     /* cap: a power of two, at least twice n */
};
/* The index kept for s, or UINT32_MAX. */
uint32_t pv_strmap_get(const struct pv_strmap *m, const char *s);
/* Keeps index v for s, replacing any kept.  0, or -1 out of memory. */
int pv_strmap_put(struct pv_strmap *m, const char *s, uint32_t v);
void pv_strmap_free(struct pv_strmap *m);

int cmd_report(int argc, char **argv);
int cmd_tree(int argc, char **argv);
int cmd_callgraph(int argc, char **argv);
int cmd_detail(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_pack(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_html(int argc, char **argv);

#endif
