/* SPDX-License-Identifier: MIT */
/*
 * The bounds of an image's own profinst sections and its ELF header, which
 * the linker defines in each image (the program, each instrumented shared
 * object): hidden, so that each image's code names its own.  Weak: an
 * image without instrumented objects has none.
 */
#ifndef PI_SECTIONS_H
#define PI_SECTIONS_H

#include "format.h"

extern const struct pi_objdesc __start_profinst_objs[] __attribute__((weak, visibility("hidden")));
extern const struct pi_objdesc __stop_profinst_objs[] __attribute__((weak, visibility("hidden")));
extern const struct pi_funcrec __start_profinst_funcs[] __attribute__((weak, visibility("hidden")));
extern const struct pi_funcrec __stop_profinst_funcs[] __attribute__((weak, visibility("hidden")));
extern const char __start_profinst_map[] __attribute__((weak, visibility("hidden")));
extern const char __ehdr_start[] __attribute__((weak, visibility("hidden")));

#endif
