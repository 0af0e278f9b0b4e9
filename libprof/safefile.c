/* SPDX-License-Identifier: MIT */
#include "safefile.h"

#include <errno.h>
#include <fcntl.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>

#ifndef GRND_NONBLOCK
#define GRND_NONBLOCK 1
#endif
#ifndef RENAME_EXCHANGE
#define RENAME_EXCHANGE (1 << 1)
#endif

/* Random bits for a name: getrandom where the kernel has it, otherwise
 * the time stamp counter and where this stack is (both vary run to run). */
static uint64_t random_bits(void)
{
	uint64_t r = 0;
	if (syscall(SYS_getrandom, &r, sizeof(r), GRND_NONBLOCK) == (long)sizeof(r))
		return r;
	uint32_t lo, hi;
	__asm__ volatile("rdtsc" : "=a"(lo), "=d"(hi));
	r = ((uint64_t)hi << 32 | lo) ^ (uint64_t)(uintptr_t)&r ^ ((uint64_t)getpid() << 40);
	return r * 0x9e3779b97f4a7c15ull;
}

/* strlen and a bounded copy, without the string functions a sanitizer or
 * a fortified libc might intercept: this runs in signal handlers. */
static size_t put(char *dst, size_t at, size_t cap, const char *s)
{
	while (*s && at + 1 < cap)
		dst[at++] = *s++;
	dst[at < cap ? at : cap - 1] = 0;
	return *s ? cap : at; /* cap: did not fit */
}

int pi_tmp_create(const char *path, const char *suffix, int mode, char *tmp, size_t tmpsize)
{
	static const char alphabet[] = "abcdefghijklmnopqrstuvwxyz0123456789";
	for (int attempt = 0; attempt < 100; attempt++) {
		size_t n = put(tmp, 0, tmpsize, path);
		n = n < tmpsize ? put(tmp, n, tmpsize, ".") : n;
		n = n < tmpsize ? put(tmp, n, tmpsize, suffix) : n;
		n = n < tmpsize ? put(tmp, n, tmpsize, ".") : n;
		if (n + 11 > tmpsize) {
			errno = ENAMETOOLONG;
			return -1;
		}
		uint64_t r = random_bits();
		for (int i = 0; i < 10; i++, r /= 36)
			tmp[n++] = alphabet[r % 36];
		tmp[n] = 0;
		int fd = open(tmp, O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC | O_NOCTTY, mode);
		if (fd >= 0 || errno != EEXIST)
			return fd;
	}
	return -1; /* EEXIST a hundred times: someone is guessing along */
}

static const char *kind_of(mode_t m)
{
	if (S_ISDIR(m))
		return "it is a directory";
	if (S_ISSOCK(m))
		return "it is a socket";
	if (S_ISBLK(m))
		return "it is a block device";
	if (S_ISLNK(m))
		return "it is a symbolic link";
	return "it is not a regular file";
}

int pi_out_replaceable(const char *path, const char **why)
{
	struct stat st;
	if (lstat(path, &st))
		return errno == ENOENT ? 0 : (*why = strerror(errno), -1);
	if (S_ISREG(st.st_mode))
		return 0;
	*why = kind_of(st.st_mode);
	return -1;
}

static int writable_in_place(mode_t m)
{
	return S_ISFIFO(m) || S_ISCHR(m);
}

int pi_out_open(struct pi_out *o, const char *path, int mode, const char **why)
{
	o->fd = -1;
	o->direct = 0;
	o->path = path;
	o->tmp[0] = 0;
	struct stat st;
	int exists = !lstat(path, &st);
	if (!exists && errno != ENOENT) {
		*why = strerror(errno);
		return -1;
	}
	if (exists && !S_ISREG(st.st_mode)) {
		/* A FIFO or a character device, even behind a link
		 * (/dev/stdout): written in place, never replaced. */
		struct stat target;
		if (S_ISLNK(st.st_mode) && (stat(path, &target) || !writable_in_place(target.st_mode))) {
			*why = "it is a symbolic link";
			return -1;
		}
		if (!S_ISLNK(st.st_mode) && !writable_in_place(st.st_mode)) {
			*why = kind_of(st.st_mode);
			return -1;
		}
		/* O_NONBLOCK: a FIFO nobody reads fails at once instead of
		 * holding the program at its exit */
		int fd = open(path, O_WRONLY | O_NONBLOCK | O_CLOEXEC | O_NOCTTY);
		if (fd < 0) {
			*why = errno == ENXIO ? "it is a FIFO nobody reads" : strerror(errno);
			return -1;
		}
		if (fstat(fd, &target) || !writable_in_place(target.st_mode)) {
			close(fd);
			*why = "it changed while it was opened";
			return -1;
		}
		int fl = fcntl(fd, F_GETFL);
		if (fl != -1)
			fcntl(fd, F_SETFL, fl & ~O_NONBLOCK);
		o->fd = fd;
		o->direct = 1;
		return 0;
	}
	o->fd = pi_tmp_create(path, "tmp", mode, o->tmp, sizeof(o->tmp));
	if (o->fd < 0) {
		*why = strerror(errno);
		return -1;
	}
	return 0;
}

/* rename(tmp, path); but a path that exists is exchanged with tmp, and the
 * old file removed under tmp's name after.  ext4 (auto_da_alloc) writes a
 * file renamed over another to the disk before rename returns: 3.5 ms
 * of the program's wall time for a profile of 2.6 MB, a third of what
 * OpenSSL's driver ran natively.  An exchange is not such a rename, and
 * keeps what rename promises: path names the old file or the new one,
 * never neither, never half. */
static int put_in_place(const char *tmp, const char *path)
{
	if (!syscall(SYS_renameat2, AT_FDCWD, tmp, AT_FDCWD, path, RENAME_EXCHANGE)) {
		unlink(tmp); /* (the old file now) */
		return 0;
	}
	/* ENOENT: nothing there yet; EINVAL, ENOSYS: a file system or a
	 * kernel without exchanges */
	return rename(tmp, path);
}

int pi_out_commit(struct pi_out *o, int ok, const char **why)
{
	int bad = !ok;
	*why = "a write failed";
	if (o->fd >= 0 && close(o->fd) && !bad) {
		bad = 1;
		*why = strerror(errno);
	}
	o->fd = -1;
	if (o->direct)
		return bad ? -1 : 0;
	if (!bad && pi_out_replaceable(o->path, why))
		bad = 1; /* it became something else meanwhile */
	if (!bad && put_in_place(o->tmp, o->path)) {
		bad = 1;
		*why = strerror(errno);
	}
	if (bad)
		unlink(o->tmp);
	o->tmp[0] = 0;
	return bad ? -1 : 0;
}

void pi_out_abort(struct pi_out *o)
{
	if (o->fd >= 0)
		close(o->fd);
	o->fd = -1;
	if (!o->direct && o->tmp[0])
		unlink(o->tmp);
	o->tmp[0] = 0;
}
