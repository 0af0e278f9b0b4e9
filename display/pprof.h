/* SPDX-License-Identifier: MIT */
#ifndef PV_PPROF_H
#define PV_PPROF_H

#include <stdio.h>

#include "reader.h"
#include "views.h"

struct x86_decoder; /* decode.h */

/* Write p as a gzip-compressed profile.proto. 0 or -1. */
int pprof_write(FILE *o, const struct profile *p, const struct x86_decoder *dx, const struct func_table *t);

#endif
