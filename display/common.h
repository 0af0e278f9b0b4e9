/* SPDX-License-Identifier: MIT */
#ifndef PV_COMMON_H
#define PV_COMMON_H

#include <stdbool.h>
#include <stdio.h>

#include "reader.h"
#include "views.h"

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
/* Demangled display name of global function g (static buffer rotation). */
/* Lines saying what the profile does not hold (calls not recorded, threads
 * not closed, a checkpoint), each starting with prefix; nothing if it
 * holds everything. */
void pv_print_losses(FILE *o, const struct profile *p, const char *prefix);
/* The same as JSON members ("lost": {...}, "checkpoint": ...), each
 * preceded by ",\n  ". */
void pv_json_losses(FILE *o, const struct profile *p);
const char *pv_name(const struct profile *p, uint32_t g);
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
const char *pv_site_label(const struct profile *p, uint64_t ra, char *buf, size_t n);
/* Global functions whose name (demangled or symbol) is name. */
uint32_t pv_lookup(const struct profile *p, const struct func_table *t, const char *name, uint32_t *out,
		   uint32_t max);
double pv_pct(uint64_t v, uint64_t total);
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

int cmd_report(int argc, char **argv);
int cmd_tree(int argc, char **argv);
int cmd_callgraph(int argc, char **argv);
int cmd_detail(int argc, char **argv);
int cmd_export(int argc, char **argv);
int cmd_graph(int argc, char **argv);
int cmd_merge(int argc, char **argv);
int cmd_diff(int argc, char **argv);
int cmd_annotate(int argc, char **argv);
int cmd_html(int argc, char **argv);

#endif
