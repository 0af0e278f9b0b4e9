/* SPDX-License-Identifier: MIT */
/*
 * What the rewriter's unit tests share: a source (.s, .c or .cc) made
 * into a relocatable object at test time, by the same tools a user has
 * (as, cc, c++), and read into the rewriter's model of it.
 */
#ifndef PI_UNIT_OBJ_H
#define PI_UNIT_OBJ_H

#include <stddef.h>
#include <stdint.h>

#include "objfile.h"

/* src assembled (`as -g`) or compiled (`cc -O2 -g -c`, `c++` for .cc)
 * and read into o (obj_free frees it, whatever the result).  0, or -1
 * after one line on stderr. */
int unit_object(const char *src, struct object *o);

#endif
