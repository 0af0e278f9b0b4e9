/* SPDX-License-Identifier: MIT */
/*
 * pprof's profile.proto, gzip-compressed, written by hand: a sample per
 * calling-context node (its stack, leaf first, weighted by the node's self
 * cycles, whole ones handed out with prof_round so that they add up to the
 * report's total, and calls), a location and a function per profiled function.
 * string_table[0] is "", ids start at 1.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common.h"
#include "pprof.h"

struct pb {
	uint8_t *p;
	size_t len, cap;
	int oom;
};

static void pb_put(struct pb *b, const void *d, size_t n)
{
	if (b->len + n > b->cap) {
		size_t nc = b->cap ? b->cap * 2 : 4096;
		while (nc < b->len + n)
			nc *= 2;
		uint8_t *np = realloc(b->p, nc);
		if (!np) {
			b->oom = 1;
			return;
		}
		b->p = np;
		b->cap = nc;
	}
	memcpy(b->p + b->len, d, n);
	b->len += n;
}

static void pb_varint(struct pb *b, uint64_t v)
{
	uint8_t t[10];
	size_t n = 0;
	do {
		t[n++] = (uint8_t)((v & 0x7f) | (v > 0x7f ? 0x80 : 0));
		v >>= 7;
	} while (v);
	pb_put(b, t, n);
}

static void pb_key(struct pb *b, unsigned field, unsigned wire)
{
	pb_varint(b, (uint64_t)field << 3 | wire);
}

static void pb_uint(struct pb *b, unsigned field, uint64_t v)
{
	pb_key(b, field, 0);
	pb_varint(b, v);
}

static void pb_bytes(struct pb *b, unsigned field, const void *d, size_t n)
{
	pb_key(b, field, 2);
	pb_varint(b, n);
	pb_put(b, d, n);
}

static void pb_msg(struct pb *b, unsigned field, struct pb *m)
{
	pb_bytes(b, field, m->p, m->len);
	m->len = 0;
}

struct strs {
	const char **s;
	uint32_t n, cap;
};

static uint64_t str_id(struct strs *t, const char *s)
{
	for (uint32_t i = 0; i < t->n; i++) /* few distinct strings: names */
		if (!strcmp(t->s[i], s))
			return i;
	if (t->n == t->cap) {
		t->cap = t->cap ? 2 * t->cap : 64;
		t->s = realloc(t->s, t->cap * sizeof(*t->s));
	}
	t->s[t->n] = s;
	return t->n++;
}

int pprof_write(FILE *o, const struct profile *p, const struct func_table *t)
{
	struct pb out = {0}, m = {0}, inner = {0};
	struct strs st = {0};
	char **names = calloc(p->nfuncs ? p->nfuncs : 1, sizeof(char *));
	str_id(&st, "");
	/* sample types: cycles and calls */
	pb_uint(&m, 1, str_id(&st, "cycles"));
	pb_uint(&m, 2, str_id(&st, "count"));
	pb_msg(&out, 1, &m);
	pb_uint(&m, 1, str_id(&st, "calls"));
	pb_uint(&m, 2, str_id(&st, "count"));
	pb_msg(&out, 1, &m);
	/* samples */
	struct prof_round r;
	prof_round_init(&r, p->units);
	for (uint32_t ti = 0; ti < p->nthreads; ti++) {
		const struct prof_thread *th = &p->threads[ti];
		for (uint32_t n = 1; n < th->hdr->nnodes; n++) {
			const struct pi_prof_node *nd = &th->nodes[n];
			uint64_t cycles = prof_round(&r, nd->self);
			if (!cycles && !nd->calls)
				continue;
			for (uint32_t k = n; k; k = th->nodes[k].parent) /* leaf first */
				pb_varint(&inner, 1 + prof_gfunc(p, th->nodes[k].obj, th->nodes[k].func));
			pb_bytes(&m, 1, inner.p, inner.len);
			inner.len = 0;
			pb_varint(&inner, cycles);
			pb_varint(&inner, nd->calls);
			pb_bytes(&m, 2, inner.p, inner.len);
			inner.len = 0;
			pb_msg(&out, 2, &m);
		}
	}
	/* locations and functions: one each per function that ran */
	for (uint32_t g = 0; g < t->n; g++) {
		if (!t->f[g].calls && !t->f[g].self)
			continue;
		names[g] = strdup(pv_name(p, g));
		const struct pi_prof_funcrec *r = p->funcs[g].rec;
		pb_uint(&m, 1, g + 1);
		if (r && r->npieces)
			pb_uint(&m, 3, r->addr[0]);
		pb_uint(&inner, 1, g + 1);
		pb_bytes(&m, 4, inner.p, inner.len);
		inner.len = 0;
		pb_msg(&out, 4, &m);
		pb_uint(&m, 1, g + 1);
		pb_uint(&m, 2, str_id(&st, names[g]));
		pb_uint(&m, 3, str_id(&st, p->funcs[g].name));
		pb_uint(&m, 4, str_id(&st, p->funcs[g].object));
		pb_msg(&out, 5, &m);
	}
	for (uint32_t i = 0; i < st.n; i++)
		pb_bytes(&out, 6, st.s[i], strlen(st.s[i]));
	/* period: one cycle */
	pb_uint(&m, 1, str_id(&st, "cycles"));
	pb_uint(&m, 2, str_id(&st, "count"));
	int rc = out.oom || m.oom || inner.oom ? -1 : 0;
	/* period_type's strings were added above already: no new ids */
	pb_msg(&out, 11, &m);
	pb_uint(&out, 12, 1);
	pb_uint(&out, 14, str_id(&st, "cycles")); /* default_sample_type */
	if (!rc) {
		/* gzip */
		z_stream z;
		memset(&z, 0, sizeof(z));
		if (deflateInit2(&z, 6, Z_DEFLATED, 15 + 16, 8, Z_DEFAULT_STRATEGY) != Z_OK) {
			rc = -1;
		} else {
			uint8_t buf[65536];
			z.next_in = out.p;
			z.avail_in = (uInt)out.len;
			int zr;
			do {
				z.next_out = buf;
				z.avail_out = sizeof(buf);
				zr = deflate(&z, Z_FINISH);
				fwrite(buf, 1, sizeof(buf) - z.avail_out, o);
			} while (zr == Z_OK);
			if (zr != Z_STREAM_END)
				rc = -1;
			deflateEnd(&z);
		}
	}
	for (uint32_t g = 0; g < p->nfuncs; g++)
		free(names[g]);
	free(names);
	free(st.s);
	free(out.p);
	free(m.p);
	free(inner.p);
	return rc;
}
