/* The other object of tinycalls.c: leaf calls across objects and the
 * chain's third link, which calls back into tinycalls.c. */
#include <stdint.h>

#include "tinycalls.h"

NOINLINE uint32_t ext_step(uint32_t x) { return x >> 3; }
NOINLINE uint32_t ext_add(uint32_t a, uint32_t b) { return a + b * 3; }
NOINLINE uint32_t ext_chain3(uint32_t x) { return tc_leaf(x) >> 1; }
