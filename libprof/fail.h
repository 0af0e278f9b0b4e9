/* SPDX-License-Identifier: MIT */
/* The readers' one way to fail: a one-line message into err (n bytes). */
#ifndef PI_FAIL_H
#define PI_FAIL_H

#include <stddef.h>

/* Returns -1. */
int prof_fail(char *err, size_t n, const char *fmt, ...) __attribute__((format(printf, 3, 4)));

#endif
