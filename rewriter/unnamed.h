/* SPDX-License-Identifier: MIT */
/*
 * The search for code no symbol names: entries into the gaps between the
 * functions the symbols name (a static function under strip -x, a cold
 * part), each given a symbol so that it is found as a function like any
 * other in the next round of code_find_functions.
 */
#ifndef PI_UNNAMED_H
#define PI_UNNAMED_H

#include <stdbool.h>
#include <stddef.h>

#include "cfg.h"

/* The prefix of the names given to code without a symbol ("<static>@0x40",
 * "<static>@.text.name+0x40"), as Sun's analyzer names such code:
 * code_find_functions knows such a symbol by it. */
#define UNNAMED_PREFIX "<static>@"

/* Entries of code no symbol names (a static function under strip -x, a
 * cold part): each gets a symbol of c's object, to be found as a function
 * in a next round; how many.  warn: give none, say what stays as it was. */
size_t code_find_unnamed(struct code *c, bool warn);

#endif
