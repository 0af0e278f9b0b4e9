/* SPDX-License-Identifier: MIT */
/*
 * pprof's profile.proto, gzip-compressed, written by hand: samples per
 * calling-context node (its stack, leaf first, weighted by the node's self
 * cycles spread over its function's source lines, whole ones handed out
 * with prof_round so that they add up to the report's total, and its
 * calls), a location per (function, source line, inlined call) with a
 * Line per inline frame, innermost first, and a function per (function,
 * source file) and per (inlined function, source file), so that go tool
 * pprof -list shows the source and -traces the inline frames.
 * string_table[0] is "", ids start at 1.
 */
#include <stdlib.h>
#include <string.h>
#include <zlib.h>

#include "common.h"
#include "inlines.h"
#include "insncost.h"
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

/* The string table: a string per function name and file, in order of
 * first use. */
struct strs {
	const char **s;
	uint32_t n, cap;
	struct pv_strmap ids;
	int oom;
};

static uint64_t str_id(struct strs *t, const char *s)
{
	uint32_t id = pv_strmap_get(&t->ids, s);
	if (id != UINT32_MAX)
		return id;
	if (t->n == t->cap) {
		uint32_t nc = t->cap ? 2 * t->cap : 64;
		const char **ns = realloc(t->s, nc * sizeof(*t->s));
		if (!ns) {
			t->oom = 1;
			return 0;
		}
		t->s = ns;
		t->cap = nc;
	}
	if (pv_strmap_put(&t->ids, s, t->n)) {
		t->oom = 1;
		return 0;
	}
	t->s[t->n] = s;
	return t->n++;
}

/* A location: (function, source file, line, the innermost inlined call
 * the code is in or NULL); its id, and the id of the pprof function its
 * innermost line is of. */
struct loc {
	uint32_t g;
	const char *file;
	uint32_t line;
	const struct pi_map_inline *inl;
	uint32_t id, fid;
};

/* A pprof function: a profile's function g in a source file (name NULL),
 * or a function inlined into the code of object obj, by its (mangled)
 * name, in a file (inl: one of its inlined calls there).  Its id is its
 * index + 1. */
struct pfunc {
	uint32_t g, obj;
	const char *name;
	const char *file;
	const struct pi_map_inline *inl;
};

struct locs {
	struct loc *v;
	uint32_t n, cap;
	uint32_t *first;  /* per global function: its first location + 1 (0: none), */
	uint32_t *next;   /* then each location's next of the same function + 1 */
	struct pfunc *fn;
	uint32_t nfn, fncap;
	uint32_t *slots;  /* the functions by (g or obj, name, file): id, 0 empty */
	uint32_t nslots;  /* a power of two, at least twice nfn */
	int oom;
};

static uint32_t fn_hash(const struct pfunc *f)
{
	uint32_t h = 2166136261u ^ (f->name ? f->obj : f->g) ^ (f->name ? 0x80000000u : 0);
	for (int k = 0; k < 2; k++)
		for (const char *c = k ? f->file : f->name; c && *c; c++)
			h = (h ^ (uint8_t)*c) * 16777619u;
	return h;
}

static bool fn_same(const struct pfunc *a, const struct pfunc *b)
{
	if (!a->name != !b->name || strcmp(a->file, b->file))
		return false;
	return a->name ? a->obj == b->obj && !strcmp(a->name, b->name) : a->g == b->g;
}

/* The id of the pprof function of g (inl NULL) or of the function of
 * inlined call inl in g's object's code, in file; made if new. */
static uint32_t func_id(struct locs *l, const struct profile *p, uint32_t g, const struct pi_map_inline *inl,
			const char *file)
{
	const struct prof_obj *o = &p->objs[p->funcs[g].obj];
	struct pfunc key = {g, p->funcs[g].obj, inl ? prof_str(o, inl->name) : NULL, file, inl};
	if (2 * (l->nfn + 1) > l->nslots) {
		uint32_t ns = l->nslots ? 2 * l->nslots : 1024;
		uint32_t *nv = calloc(ns, sizeof(uint32_t));
		if (!nv) {
			l->oom = 1;
			return 1;
		}
		for (uint32_t i = 0; i < l->nfn; i++) {
			uint32_t h = fn_hash(&l->fn[i]) & (ns - 1);
			while (nv[h])
				h = (h + 1) & (ns - 1);
			nv[h] = i + 1;
		}
		free(l->slots);
		l->slots = nv;
		l->nslots = ns;
	}
	uint32_t h = fn_hash(&key) & (l->nslots - 1);
	for (; l->slots[h]; h = (h + 1) & (l->nslots - 1))
		if (fn_same(&l->fn[l->slots[h] - 1], &key))
			return l->slots[h];
	if (l->nfn == l->fncap) {
		uint32_t nc = l->fncap ? 2 * l->fncap : 256;
		void *nv = realloc(l->fn, nc * sizeof(*l->fn));
		if (!nv) {
			l->oom = 1;
			return 1;
		}
		l->fn = nv;
		l->fncap = nc;
	}
	l->fn[l->nfn] = key;
	l->slots[h] = ++l->nfn;
	return l->nfn;
}

/* The id of g's location at file:line in inlined call inl (or NULL),
 * made if new. */
static uint32_t loc_id(struct locs *l, const struct profile *p, uint32_t g, const char *file, uint32_t line,
		       const struct pi_map_inline *inl)
{
	for (uint32_t k = l->first[g]; k; k = l->next[k - 1]) {
		const struct loc *x = &l->v[k - 1];
		if (x->line == line && x->inl == inl && !strcmp(x->file, file))
			return x->id;
	}
	if (l->n == l->cap) {
		uint32_t nc = l->cap ? 2 * l->cap : 256;
		void *nv = realloc(l->v, nc * sizeof(*l->v)), *nn = realloc(l->next, nc * sizeof(uint32_t));
		if (nv)
			l->v = nv;
		if (nn)
			l->next = nn;
		if (!nv || !nn) {
			l->oom = 1;
			return 1;
		}
		l->cap = nc;
	}
	uint32_t fid = func_id(l, p, g, inl, file);
	struct loc *x = &l->v[l->n];
	*x = (struct loc){g, file, line, inl, l->n + 1, fid};
	l->next[l->n] = l->first[g];
	l->first[g] = ++l->n;
	return x->id;
}

/* The line of the call a return address follows, in function g (its
 * caller), and the inlined call it is in, or g's first line (a tail
 * call's, which has none there). */
static const char *call_line(const struct profile *p, uint32_t g, uint64_t ra, uint32_t *line,
			     const struct pi_map_inline **inl)
{
	uint32_t sg;
	const struct pi_map_site *s;
	*inl = NULL;
	if (prof_find_site(p, ra, &sg, &s) && sg == g) {
		const struct prof_obj *o = &p->objs[p->funcs[g].obj];
		const struct pi_map_line *l = prof_line(o, s->section, s->offset);
		if (l) {
			*line = l->line;
			*inl = prof_inline(o, s->section, s->offset);
			return prof_str(o, l->file);
		}
	}
	return pv_entry_line(p, g, line);
}

/* Location x: its Line entries, innermost first (profile.proto): its own
 * line, then each inlined call's, in the function it was inlined into. */
static void put_lines(struct pb *m, struct pb *inner, struct locs *L, const struct profile *p, const struct loc *x)
{
	const struct prof_obj *o = &p->objs[p->funcs[x->g].obj];
	pb_uint(inner, 1, x->fid);
	pb_uint(inner, 2, x->line);
	pb_bytes(m, 4, inner->p, inner->len);
	inner->len = 0;
	for (const struct pi_map_inline *f = x->inl; f; f = prof_inline_parent(o, f)) {
		const struct pi_map_inline *up = prof_inline_parent(o, f);
		const char *file = *prof_str(o, f->call_file) ? prof_str(o, f->call_file) : pv_unknown_file;
		pb_uint(inner, 1, func_id(L, p, x->g, up, file));
		pb_uint(inner, 2, f->call_line);
		pb_bytes(m, 4, inner->p, inner->len);
		inner->len = 0;
	}
}

int pprof_write(FILE *o, const struct profile *p, const struct x86_decoder *dx, const struct func_table *t)
{
	struct pb out = {0}, m = {0}, inner = {0};
	struct strs st = {0};
	struct locs L = {.first = calloc(p->nfuncs ? p->nfuncs : 1, sizeof(uint32_t))};
	/* each function's self on its lines, by global function, made once */
	struct pv_lines *lines = calloc(p->nfuncs ? p->nfuncs : 1, sizeof(*lines));
	if (!L.first || !lines) {
		free(L.first);
		free(lines);
		return -1;
	}
	str_id(&st, "");
	/* sample types: cycles (instructions, a --cpu=instructions profile's
	 * unit) and calls */
	const char *unit = pv_unit(p);
	pb_uint(&m, 1, str_id(&st, unit));
	pb_uint(&m, 2, str_id(&st, "count"));
	pb_msg(&out, 1, &m);
	pb_uint(&m, 1, str_id(&st, "calls"));
	pb_uint(&m, 2, str_id(&st, "count"));
	pb_msg(&out, 1, &m);
	/* samples: a node's self spread over its function's lines as the
	 * function's is (pv_function_lines), its callers' frames at the
	 * lines of their calls; its calls on the first; whole cycles handed
	 * out by one running rounding, so that they add up to the total */
	int rc = 0;
	struct pv_lines outside = {0};
	/* each function's external calls, found once (not a walk of the
	 * trees per function) */
	struct pv_ext_calls ec;
	if (pv_ext_calls_build(p, &ec))
		rc = -1;
	uint32_t *stack = NULL;
	size_t stackcap = 0;
	struct prof_round r;
	prof_round_init(&r, p->units);
	for (uint32_t ti = 0; ti < p->nthreads && !rc; ti++) {
		const struct prof_thread *th = &p->threads[ti];
		for (uint32_t n = 1; n < th->hdr->nnodes && !rc; n++) {
			const struct pi_prof_node *nd = &th->nodes[n];
			if (!nd->self && !nd->calls)
				continue;
			uint32_t g = prof_gfunc(p, nd->obj, nd->func);
			struct pv_lines *ls = &lines[g];
			ls->inlines = true;
			if (!ls->v) {
				/* its time outside its code on the lines that spent it */
				if (t->f[g].os && pv_outside_lines(p, dx, g, ec.v + ec.first[g],
								   ec.first[g + 1] - ec.first[g], &outside))
					rc = -1;
				if (rc || pv_function_lines_os(p, dx, g, t->f[g].self, t->f[g].os, &outside, ls)) {
					rc = -1;
					break;
				}
				outside.n = 0;
				if (!ls->v) /* (no lines: made once all the same) */
					ls->v = calloc(1, sizeof(*ls->v));
			}
			/* the callers' frames, leaf's caller first */
			size_t depth = 0;
			for (uint32_t k = n; th->nodes[k].parent; k = th->nodes[k].parent) {
				const struct pi_prof_node *pa = &th->nodes[th->nodes[k].parent];
				uint32_t pg = prof_gfunc(p, pa->obj, pa->func), line;
				const struct pi_map_inline *inl;
				const char *file = call_line(p, pg, th->nodes[k].ret_addr, &line, &inl);
				if (depth == stackcap) {
					stackcap = stackcap ? 2 * stackcap : 64;
					uint32_t *ns = realloc(stack, stackcap * sizeof(uint32_t));
					if (!ns) {
						rc = -1;
						break;
					}
					stack = ns;
				}
				stack[depth++] = loc_id(&L, p, pg, file, line, inl);
			}
			uint64_t total = 0, given = 0;
			for (size_t i = 0; i < ls->n; i++)
				total += ls->v[i].cycles;
			unsigned __int128 cum = 0;
			bool first = true;
			for (size_t i = 0; i <= ls->n && !rc; i++) {
				uint64_t v;
				const char *file;
				uint32_t line;
				const struct pi_map_inline *inl = NULL;
				if (i < ls->n) {
					/* the node's share of the line's cycles */
					cum += ls->v[i].cycles;
					uint64_t upto = total ? (uint64_t)(cum * nd->self / total) : 0;
					v = upto - given;
					given = upto;
					file = ls->v[i].file;
					line = ls->v[i].line;
					inl = ls->v[i].inl;
				} else {
					if (!first || nd->self != given)
						break; /* (its calls had a line) */
					v = nd->self - given; /* no lines: its first */
					file = pv_entry_line(p, g, &line);
				}
				uint64_t whole = prof_round(&r, v);
				if (!whole && !(first && nd->calls))
					continue;
				pb_varint(&inner, loc_id(&L, p, g, file, line, inl));
				for (size_t d = 0; d < depth; d++)
					pb_varint(&inner, stack[d]);
				pb_bytes(&m, 1, inner.p, inner.len);
				inner.len = 0;
				pb_varint(&inner, whole);
				pb_varint(&inner, first ? nd->calls : 0);
				pb_bytes(&m, 2, inner.p, inner.len);
				inner.len = 0;
				pb_msg(&out, 2, &m);
				first = false;
			}
		}
	}
	free(stack);
	free(outside.v);
	pv_ext_calls_free(&ec);
	/* locations: a line of a function each, and of the calls inlined
	 * there; functions: a (name, source file) each, so that go tool
	 * pprof -list finds the source */
	for (uint32_t i = 0; i < L.n && !rc; i++) {
		pb_uint(&m, 1, L.v[i].id);
		put_lines(&m, &inner, &L, p, &L.v[i]);
		pb_msg(&out, 4, &m);
	}
	for (uint32_t i = 0; i < L.nfn && !rc; i++) {
		const struct pfunc *f = &L.fn[i];
		uint32_t start = 0;
		const char *entry = f->name ? NULL : pv_entry_line(p, f->g, &start);
		pb_uint(&m, 1, i + 1);
		if (f->name) {
			pb_uint(&m, 2, str_id(&st, pv_inline_name(&p->objs[f->obj], f->inl)));
			pb_uint(&m, 3, str_id(&st, f->name));
		} else {
			pb_uint(&m, 2, str_id(&st, pv_name(p, f->g)));
			pb_uint(&m, 3, str_id(&st, p->funcs[f->g].name));
		}
		/* code without line information: its object names where it is */
		pb_uint(&m, 4, str_id(&st, strcmp(f->file, pv_unknown_file) ? f->file : p->funcs[f->g].object));
		if (entry && !strcmp(entry, f->file))
			pb_uint(&m, 5, start);
		pb_msg(&out, 5, &m);
	}
	for (uint32_t i = 0; i < st.n; i++)
		pb_bytes(&out, 6, st.s[i], strlen(st.s[i]));
	/* period: one cycle */
	pb_uint(&m, 1, str_id(&st, unit));
	pb_uint(&m, 2, str_id(&st, "count"));
	if (out.oom || m.oom || inner.oom || L.oom || st.oom)
		rc = -1;
	/* period_type's strings were added above already: no new ids */
	pb_msg(&out, 11, &m);
	pb_uint(&out, 12, 1);
	pb_uint(&out, 14, str_id(&st, unit)); /* default_sample_type */
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
		free(lines[g].v);
	free(lines);
	free(L.fn);
	free(L.slots);
	free(L.v);
	free(L.next);
	free(L.first);
	free(st.s);
	pv_strmap_free(&st.ids);
	free(out.p);
	free(m.p);
	free(inner.p);
	return rc;
}
