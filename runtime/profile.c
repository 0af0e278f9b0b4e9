/* SPDX-License-Identifier: MIT */
/*
 * Writing the profile when the program ends: the maps of the instrumented
 * objects, where their functions landed, and per thread the block counters
 * and the calling-context tree (libprof/format.h).  Written to a temporary
 * file and renamed, so a reader never sees half a profile.
 */
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "rt.h"
#include "writer.h"

static struct pw w;

/* Preorder walk without recursion: the tree may be deep. */
static struct rt_node *next_node(struct rt_node *n, struct rt_node *root)
{
	if (n->first_child)
		return n->first_child;
	while (n != root) {
		if (n->next_sibling)
			return n->next_sibling;
		n = n->parent;
	}
	return NULL;
}

static void fn_ids(const struct pi_funcrec *fn, uint32_t *obj, uint32_t *func)
{
	if (!fn) {
		*obj = *func = UINT32_MAX;
		return;
	}
	*obj = fn->obj->index;
	*func = fn->index;
}

static void write_thread(struct rt_thread *th)
{
	uint32_t nnodes = 0, nrec = 0;
	for (struct rt_node *n = &th->root; n; n = next_node(n, &th->root)) {
		if (n->alias)
			nrec++;
		else
			n->index = nnodes++;
	}
	struct pi_prof_thread pt = {
		.index = th->index,
		.tid = th->tid,
		.nnodes = nnodes,
		.nrec = nrec,
		.clock = rt_to_cycles(th->final_clock),
	};
	uint64_t size = sizeof(pt) + (uint64_t)nnodes * sizeof(struct pi_prof_node) +
			(uint64_t)nrec * sizeof(struct pi_prof_recedge);
	pw_rec(&w, PI_REC_THREAD, size);
	pw_put(&w, &pt, sizeof(pt));
	for (struct rt_node *n = &th->root; n; n = next_node(n, &th->root)) {
		if (n->alias)
			continue;
		struct pi_prof_node pn = {
			.parent = n->parent ? n->parent->index : UINT32_MAX,
			.ret_addr = n->ra,
			.calls = n->calls,
			.rec_calls = n->rec_calls,
			.self = rt_to_cycles(n->self),
			.incl = rt_to_cycles(n->incl),
			.min_self = n->calls ? rt_to_cycles(n->min_self) : 0,
			.max_self = rt_to_cycles(n->max_self),
			.os = rt_to_cycles(n->os),
			.os_left = rt_to_cycles(n->os_left),
			.faults = n->faults,
		};
		fn_ids(n->fn, &pn.obj, &pn.func);
		pw_put(&w, &pn, sizeof(pn));
	}
	for (struct rt_node *n = &th->root; n; n = next_node(n, &th->root)) {
		if (!n->alias)
			continue;
		struct pi_prof_recedge re = {
			.node = n->alias->index,
			.ret_addr = n->ra,
			.calls = n->calls,
			.incl = rt_to_cycles(n->incl),
		};
		fn_ids(n->parent->fn, &re.caller_obj, &re.caller_func);
		re.caller_node = n->parent->index;
		pw_put(&w, &re, sizeof(re));
	}
	pw_pad(&w, size);
	/* block counters of every object, for this thread */
	uint64_t i = 0;
	for (const struct pi_objdesc *d = rt_objs_begin(); d < rt_objs_end(); d++) {
		uint32_t hdr[2] = {d->index, th->index};
		const uint64_t *c = th->saved_counts ? th->saved_counts + i
						     : (const uint64_t *)(th->tp + (int64_t)d->counts_tpoff);
		pw_rec(&w, PI_REC_COUNTS, 8 + 8ull * d->nblocks);
		pw_put(&w, hdr, sizeof(hdr));
		pw_put(&w, c, 8ull * d->nblocks);
		if (d->map->reserved & PI_MAP_SIMS) { /* the simulations' counters follow */
			pw_rec(&w, PI_REC_SIMCOUNTS, 8 + 16ull * d->nblocks);
			pw_put(&w, hdr, sizeof(hdr));
			pw_put(&w, c + d->nblocks, 16ull * d->nblocks);
		}
		i += pi_counters(d->map);
	}
}

static void expand_path(char *out, size_t n, const char *pattern)
{
	size_t o = 0;
	for (const char *p = pattern; *p && o + 1 < n; p++) {
		if (p[0] == '%' && p[1] == 'p') {
			o += (size_t)snprintf(out + o, n - o, "%d", (int)getpid());
			p++;
		} else if (p[0] == '%' && p[1] == '%') {
			out[o++] = '%';
			p++;
		} else {
			out[o++] = *p;
		}
		if (o >= n)
			o = n - 1;
	}
	out[o] = 0;
}

static int written;

void rt_profile_reset(void)
{
	written = 0;
}

/* Threads still running: their open frames are charged up to now. They
 * may be running still, so they are stopped from recording first. */
static void close_threads(void)
{
	struct pi_tls *self = &__profinst_tls;
	for (struct rt_thread *th = rt_threads; th; th = th->next) {
		if (th->finished)
			continue;
		struct pi_tls *t = th == self->th ? self : rt_tls_of(th);
		__atomic_store_n(&t->dead, 1, __ATOMIC_SEQ_CST);
		rt_clock_fold(t); /* (another thread's blocks: what they add after is not counted) */
		rt_dcache_settle(t);
		rt_close_all(th, t->clock);
		th->final_clock = t->clock;
	}
}

void rt_write_profile(int sig)
{
	struct pi_tls *t = &__profinst_tls;
	if (__atomic_exchange_n(&written, 1, __ATOMIC_SEQ_CST) || !rt_threads)
		return;
	int saved_errno = errno;
	uint32_t busy = t->busy;
	t->busy = 1;
	close_threads();
	const char *pat = getenv("PROFINST_OUTPUT");
	char path[4096], tmp[4200];
	expand_path(path, sizeof(path), pat && *pat ? pat : "profinst.out.%p");
	snprintf(tmp, sizeof(tmp), "%s.tmp.%d", path, (int)getpid());
	int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
	if (fd < 0) {
		char msg[4400];
		int n = snprintf(msg, sizeof(msg), "profinst: cannot write profile %s: %s\n", tmp,
				 strerror(errno));
		if (write(2, msg, (size_t)n) < 0) {
		}
		goto out;
	}
	pw_init(&w, fd);
	struct pi_prof_hdr h;
	memset(&h, 0, sizeof(h));
	memcpy(h.magic, PI_PROF_MAGIC, 8);
	h.version = PI_PROF_VERSION;
	h.hdr_size = sizeof(h);
	h.pid = (uint32_t)getpid();
	h.tsc_per_kcycle = rt_tsc_per_kcycle();
	if (sig) {
		h.flags |= PI_PROF_ENDED_BY_SIGNAL;
		h.signal = (uint32_t)sig;
	}
	ssize_t n = readlink("/proc/self/exe", h.exe, sizeof(h.exe) - 1);
	if (n < 0)
		h.exe[0] = 0;
	pw_put(&w, &h, sizeof(h));
	for (const struct pi_objdesc *d = rt_objs_begin(); d < rt_objs_end(); d++) {
		uint32_t hdr[2] = {d->index, 0};
		pw_rec(&w, PI_REC_OBJECT, 8 + d->map->size);
		pw_put(&w, hdr, sizeof(hdr));
		pw_put(&w, d->map, d->map->size);
		pw_pad(&w, 8 + d->map->size);
	}
	uint64_t nf = (uint64_t)(rt_funcs_end() - rt_funcs_begin());
	pw_rec(&w, PI_REC_FUNCREC, nf * sizeof(struct pi_prof_funcrec));
	for (const struct pi_funcrec *f = rt_funcs_begin(); f < rt_funcs_end(); f++) {
		struct pi_prof_funcrec pf;
		memset(&pf, 0, sizeof(pf));
		pf.obj = f->obj->index;
		pf.func = f->index;
		pf.npieces = f->npieces;
		for (uint32_t i = 0; i < f->npieces && i < PI_MAX_PIECES; i++) {
			pf.addr[i] = f->addr[i];
			pf.size[i] = f->size[i];
		}
		pw_put(&w, &pf, sizeof(pf));
	}
	for (struct rt_thread *th = rt_threads; th; th = th->next)
		write_thread(th);
	pw_rec(&w, PI_REC_END, 0);
	int bad = pw_flush(&w);
	if (close(fd))
		bad = 1;
	if (bad || rename(tmp, path)) {
		char msg[4400];
		int m = snprintf(msg, sizeof(msg), "profinst: cannot write profile %s\n", path);
		if (write(2, msg, (size_t)m) < 0) {
		}
		unlink(tmp);
	}
out:
	t->busy = busy;
	t->dead = 1;
	errno = saved_errno;
}
