/* SPDX-License-Identifier: MIT */
#include "cleanup.h"

#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>

#define SLOTS 16

/* A slot is filled, then marked used: a signal handler that sees it used
 * sees its path whole. */
static struct {
	char path[PATH_MAX];
	volatile sig_atomic_t used;
	int is_dir;
} slots[SLOTS];

volatile pid_t cleanup_child;
static pid_t owner; /* a forked child (before its exec) removes nothing */

struct linux_dirent64 {
	uint64_t d_ino;
	int64_t d_off;
	unsigned short d_reclen;
	unsigned char d_type;
	char d_name[];
};

/* Empty the directory open as fd, depth levels deep at most (what profinst
 * creates is two deep; the linker's own temporaries one more). Only system
 * calls: this runs in signal handlers. */
static void empty_dir(int fd, int depth)
{
	char buf[4096] __attribute__((aligned(8)));
	bool removed = true;
	while (removed) {
		removed = false;
		if (lseek(fd, 0, SEEK_SET) < 0)
			return;
		long n;
		while ((n = syscall(SYS_getdents64, fd, buf, sizeof(buf))) > 0) {
			for (long at = 0; at < n;) {
				struct linux_dirent64 *d = (void *)(buf + at);
				at += d->d_reclen;
				const char *nm = d->d_name;
				if (nm[0] == '.' && (!nm[1] || (nm[1] == '.' && !nm[2])))
					continue;
				if (!unlinkat(fd, nm, 0)) {
					removed = true;
					continue;
				}
				if ((errno != EISDIR && errno != EPERM) || depth <= 0)
					continue;
				int sub = openat(fd, nm, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
				if (sub < 0)
					continue;
				empty_dir(sub, depth - 1);
				close(sub);
				if (!unlinkat(fd, nm, AT_REMOVEDIR))
					removed = true;
			}
		}
	}
}

void remove_tree(const char *dir)
{
	int fd = open(dir, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
	if (fd >= 0) {
		empty_dir(fd, 6);
		close(fd);
	}
	rmdir(dir);
}

static void remove_slot(int i)
{
	if (!slots[i].used)
		return;
	if (slots[i].is_dir)
		remove_tree(slots[i].path);
	else
		unlink(slots[i].path);
	slots[i].used = 0;
}

static void remove_all(void)
{
	if (getpid() != owner)
		return;
	for (int i = 0; i < SLOTS; i++)
		remove_slot(i);
}

static const int ending[] = {SIGHUP, SIGINT, SIGQUIT, SIGTERM, SIGPIPE, SIGALRM, SIGXCPU, SIGXFSZ,
			     SIGUSR1, SIGUSR2, SIGABRT};
static const int faults[] = {SIGSEGV, SIGBUS, SIGFPE, SIGILL};
static struct sigaction old_fault[sizeof(faults) / sizeof(faults[0])];

static void on_signal(int sig)
{
	int saved = errno;
	if (getpid() == owner) {
		pid_t child = cleanup_child;
		if (child > 0) {
			kill(child, SIGTERM);
			while (waitpid(child, NULL, 0) < 0 && errno == EINTR)
				;
		}
		remove_all();
	}
	signal(sig, SIG_DFL);
	errno = saved;
	raise(sig);
}

/* A fault: remove, then give the signal back to whoever handled it before
 * (a sanitizer reports it); the instruction faults again on return. */
static void on_fault(int sig)
{
	remove_all();
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++)
		if (faults[i] == sig)
			sigaction(sig, &old_fault[i], NULL);
}

void cleanup_init(void)
{
	owner = getpid();
	atexit(remove_all);
	struct sigaction sa;
	memset(&sa, 0, sizeof(sa));
	sigemptyset(&sa.sa_mask);
	for (size_t i = 0; i < sizeof(ending) / sizeof(ending[0]); i++)
		sigaddset(&sa.sa_mask, ending[i]);
	for (size_t i = 0; i < sizeof(ending) / sizeof(ending[0]); i++) {
		struct sigaction old;
		/* a signal ignored when profinst started stays ignored */
		if (sigaction(ending[i], NULL, &old) || old.sa_handler == SIG_IGN)
			continue;
		sa.sa_handler = on_signal;
		sigaction(ending[i], &sa, NULL);
	}
	for (size_t i = 0; i < sizeof(faults) / sizeof(faults[0]); i++) {
		sa.sa_handler = on_fault;
		sa.sa_flags = SA_NODEFER;
		sigaction(faults[i], &sa, &old_fault[i]);
	}
}

static sigset_t held_old;

void cleanup_hold(void)
{
	sigset_t set;
	sigemptyset(&set);
	for (size_t i = 0; i < sizeof(ending) / sizeof(ending[0]); i++)
		sigaddset(&set, ending[i]);
	sigprocmask(SIG_BLOCK, &set, &held_old);
}

void cleanup_release(void)
{
	sigprocmask(SIG_SETMASK, &held_old, NULL);
}

int cleanup_add(const char *path, int is_dir)
{
	size_t n = strlen(path);
	if (n >= PATH_MAX)
		return -1;
	for (int i = 0; i < SLOTS; i++)
		if (!slots[i].used) {
			memcpy(slots[i].path, path, n + 1);
			slots[i].is_dir = is_dir;
			slots[i].used = 1;
			return i;
		}
	return -1;
}

void cleanup_remove(int slot)
{
	if (slot >= 0 && slot < SLOTS)
		remove_slot(slot);
}

void cleanup_forget(int slot)
{
	if (slot >= 0 && slot < SLOTS)
		slots[slot].used = 0;
}
