/* SPDX-License-Identifier: MIT */
#ifndef PV_CALLGRIND_H
#define PV_CALLGRIND_H

#include <stdio.h>

#include "reader.h"
#include "views.h"

struct x86_decoder; /* decode.h */

/* Write p in callgrind's format, costs on source lines. 0 or -1 (out of
 * memory). */
int callgrind_write(FILE *o, const struct profile *p, const struct x86_decoder *dx, const struct func_table *t);

#endif
