/* SPDX-License-Identifier: MIT */
/*
 * Calls that leave instrumented code: a call to a function no input defines
 * (a shared library's, through the PLT), or to a function of the object left
 * as it was, and the syscall instruction.  Their real duration is measured
 * at run time (calls whose time cannot be known before they run); each external function
 * called gets a record (<external:name>) under which callbacks nest.
 */
#ifndef PI_EXTERNAL_H
#define PI_EXTERNAL_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

/* A set of names: the global functions the link's inputs define. */
struct nameset {
	char **slot;
	size_t n, cap; /* cap: a power of two, or 0 */
};

void nameset_add(struct nameset *s, const char *name);
bool nameset_has(const struct nameset *s, const char *name);
void nameset_free(struct nameset *s);

struct code;
struct external;
struct text;

/* Mark the calls of instrumented functions that leave instrumented code
 * (MARK_EXT), collect their externals in c->exts and say which each calls
 * (text.ext).  With no set of
 * defined names (-c), every undefined function is taken as external and the
 * runtime checks whether the target is instrumented after all. */
void find_external_calls(struct code *c);
/* Whether the direct call or jump k goes to an instrumented function's
 * entry (--counts: its node is in the caller's slot). */
bool calls_instrumented(const struct code *c, const struct text *t, uint32_t k);
/* Whether a call to x leaves the current node as it is (--counts): the
 * model costs it (a short C library function), it calls nothing of the
 * program's, returns, and neither sets a locale nor switches contexts;
 * its node only counts its calls and bytes. */
bool ext_transparent(const struct external *x);
/* Whether x's calls may be measured (its clock started and stopped around
 * them): one the model does not cost, or costs only in the C locale or
 * only as a lock in a process of one thread (PI_EXT_SOLO), or only once
 * done (pthread_once: PI_EXT_ONCE). */
bool ext_measured(const struct external *x);
/* The function of this object the direct call k goes to, or -1. */
int32_t local_callee(const struct code *c, const struct text *t, uint32_t k);
/* The same where the call enters the function at its start, else -1. */
int32_t local_entry_callee(const struct code *c, const struct text *t, uint32_t k);

/* Does the conditional jump k test what the external call just before its
 * block returned, the external being one the model costs (PI_EXT_FIXED)?
 * Such a function's own branches are not simulated, and the jump that
 * tests its result stands for them: memcmp's decides equal or not before
 * its caller's test of the result does, so a misprediction of that
 * decision is the external's time.  True when the jump's flags come from
 * %rax as the call left it, through the instructions before the jump in
 * its block. */
bool tests_external_result(const struct code *c, const struct text *t, uint32_t k);

#endif
