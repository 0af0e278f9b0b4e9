/* The functions tinycalls.c and tinycalls_ext.c call across the two. */
#include <stdint.h>

#define NOINLINE __attribute__((noinline, noipa))

uint32_t tc_leaf(uint32_t x);
uint32_t ext_step(uint32_t x);
uint32_t ext_add(uint32_t a, uint32_t b);
uint32_t ext_chain3(uint32_t x);
