/* SPDX-License-Identifier: MIT */
/*
 * Linked into each shared object profinst instruments (profinst -shared,
 * libprofinst_so.a): its first constructor hands the object's own
 * sections to the runtime of the program that loads it, which numbers
 * its objects and functions after those it has, and writes them in the
 * profile.  The runtime is the program's (it exports
 * __profinst_image_add and what the object's stubs call), so such an
 * object loads into an instrumented program only.
 */
#include "format.h"
#include "sections.h"

void __profinst_image_add(const struct pi_image_desc *d);

static const struct pi_image_desc self = {
	.magic = PI_IMAGE_MAGIC,
	.objs = __start_profinst_objs,
	.objs_end = __stop_profinst_objs,
	.funcs = __start_profinst_funcs,
	.funcs_end = __stop_profinst_funcs,
	.map = __start_profinst_map,
	.ehdr = __ehdr_start,
};

/* (before the object's own constructors, which may run its code) */
__attribute__((constructor(101))) static void profinst_image_add(void)
{
	__profinst_image_add(&self);
}
