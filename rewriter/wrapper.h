/* SPDX-License-Identifier: MIT */
/*
 * profinst as a compiler: `profinst cc ARGS...` (also gcc, clang, c++,
 * g++, clang++, a versioned or target-prefixed name, or a path to one)
 * runs the compiler as it is, except where the command links an
 * executable or a shared object: there its objects and archives are
 * instrumented and linked with the runtime (a shared object's, for the
 * program's runtime), sources on the same command line compiled first.  So
 * `make CC="profinst cc"` and CMake's CMAKE_C_LINKER_LAUNCHER=profinst
 * build an instrumented program without other changes to the build.
 *
 * This file only reads command lines; main.c runs them.
 */
#ifndef PI_WRAPPER_H
#define PI_WRAPPER_H

#include <stdbool.h>
#include <stddef.h>

/* Is arg the name of (or a path to) a C or C++ compiler driver? */
bool wrap_is_compiler(const char *arg);

/* What a compiler command (args[0] the compiler) does, for profinst. */
struct wrap {
	bool links;       /* links an executable or a shared object: instrument;
			     else run it as it is */
	bool shared;      /* -shared: a shared object */
	const char *out;  /* the executable (-o), "a.out" by default */
	/* the link's arguments in order, -o and its operand left out (the
	 * compiler not included): objects, archives, linker flags, and
	 * sources, which must be compiled first */
	char **link;
	bool *source;     /* per link argument: a source file */
	size_t nlink;
	/* the compiler and the flags a source on the command is compiled
	 * with: the command's, less its inputs, -o and link-only flags */
	char **compile;
	size_t ncompile;
	char **owned;     /* what wrap_free frees */
	size_t nowned;
};

/* Reads the command args[0..n); fills w (wrap_free frees it). */
void wrap_plan(char **args, size_t n, struct wrap *w);
void wrap_free(struct wrap *w);

#endif
