/* SPDX-License-Identifier: MIT */
/*
 * Writing an output file where someone else may have planted something.
 *
 * A file is written to a temporary created next to it with O_EXCL and
 * O_NOFOLLOW at an unpredictable name, then renamed over it (exchanged
 * with it where one exists, then removed: a file system may write a file
 * renamed over another to disk at once), so that a reader never sees
 * half a file and a planted symbolic link is never followed.  An output that exists and is not a regular file is never
 * replaced: a FIFO or a character device (/dev/null, a terminal) is
 * written in place; a symbolic link, a directory, a socket or a block
 * device is refused.
 *
 * Used by the runtime inside the profiled program: everything here is
 * async-signal-safe (open, lstat, fstat, rename, renameat2, unlink and
 * getrandom, no allocation) and preserves nothing but what it says.
 */
#ifndef PI_SAFEFILE_H
#define PI_SAFEFILE_H

#include <stddef.h>

#define PI_OUT_PATH_MAX 4096

struct pi_out {
	int fd;                          /* open for writing, or -1 */
	int direct;                      /* written in place: nothing to rename */
	const char *path;                /* the output, as given */
	char tmp[PI_OUT_PATH_MAX + 32];  /* the temporary, unless direct */
};

/* Open path for writing (mode: of a new file, before the umask).  Returns
 * 0, or -1 with *why saying why in a few words (a static string; errno's
 * text where errno says it) and nothing created. */
int pi_out_open(struct pi_out *o, const char *path, int mode, const char **why);

/* Close, and put the temporary in place of the output.  ok: whether what
 * was written is complete; if not, or if anything fails, the temporary is
 * removed and the output left as it was.  Returns 0 on success, -1 with
 * *why set otherwise. */
int pi_out_commit(struct pi_out *o, int ok, const char **why);

/* Close and remove the temporary: nothing is written. */
void pi_out_abort(struct pi_out *o);

/* May path be replaced by a file renamed over it?  0 if it does not exist
 * or is a regular file; -1 with *why set otherwise (a symbolic link, a
 * directory, a device, ...). */
int pi_out_replaceable(const char *path, const char **why);

/* Create a new file in the directory of path, at an unpredictable name
 * (path, ".", suffix, ".", random); the name is written to tmp.  Returns
 * its descriptor (O_CLOEXEC) or -1 with errno set. */
int pi_tmp_create(const char *path, const char *suffix, int mode, char *tmp, size_t tmpsize);

#endif
