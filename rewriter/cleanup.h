/* SPDX-License-Identifier: MIT */
/*
 * What profinst creates on the way to its output (a temporary next to it,
 * a private directory for the link, the compiler stand-in's objects) is
 * removed on every way out: a return from main, exit, and the signals that
 * end a process (an interrupt, a hang-up, a file size limit, a crash:
 * these remove what is registered, then take their usual course).
 */
#ifndef PI_CLEANUP_H
#define PI_CLEANUP_H

#include <sys/types.h>

/* Install the handlers (once, early in main). */
void cleanup_init(void);

/* Register path (a file, or a directory removed with all it holds) for
 * removal; returns a slot, or -1 (too many: the caller fails). */
int cleanup_add(const char *path, int is_dir);

/* Hold the ending signals back while a file is created and registered,
 * so that none comes between the two. */
void cleanup_hold(void);
void cleanup_release(void);

/* Remove what slot names now, and forget it. */
void cleanup_remove(int slot);

/* Forget slot without removing anything (it was renamed into place, or
 * is to be kept). */
void cleanup_forget(int slot);

/* The child running now (the linker, a compiler), stopped and waited for
 * before the files are removed on a signal; 0 when none. */
extern volatile pid_t cleanup_child;

/* Remove dir and everything under it (async-signal-safe). */
void remove_tree(const char *dir);

#endif
