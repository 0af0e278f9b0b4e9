/* SPDX-License-Identifier: MIT */
#ifndef PV_COMMON_H
#define PV_COMMON_H

#include <stdio.h>

#include "reader.h"
#include "views.h"

/* Load a profile or print "profview: PATH: reason" and return -1. */
int pv_load(struct profile *p, const char *path);
/* Demangled display name of global function g (static buffer rotation). */
const char *pv_name(const struct profile *p, uint32_t g);
void pv_json_str(FILE *out, const char *s);
void pv_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

int cmd_report(int argc, char **argv);

#endif
