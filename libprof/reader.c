/* SPDX-License-Identifier: MIT */
#include "reader.h"
#include "ctree.h"

#include "fail.h"
#include "image.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>

/* Functions by symbol name: a hash table of each name's first function,
 * and each function's next of its name. */
struct name_ix {
	uint32_t *slot; /* 1 + a name's first function, 0: free */
	uint32_t *next; /* [nfuncs]: the next of its name, or UINT32_MAX */
	size_t mask;
};

int prof_fail(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
	return -1;
}

static bool str_ok(const struct pi_map_hdr *m, uint32_t s)
{
	if (s >= m->str_size)
		return false;
	const char *str = (const char *)m + m->str_off;
	return memchr(str + s, 0, m->str_size - s) != NULL;
}

/* Line rows and inline rows both begin with (section, offset): one index
 * of rows by (section, offset, index) serves both.  qsort_r is a GNU
 * extension; the rows being sorted are reached through these instead (one
 * sort at a time: profview is single-threaded). */
static const uint8_t *sort_rows;
static size_t sort_stride;

static void row_key(const uint8_t *rows, size_t stride, uint32_t i, uint32_t *section, uint32_t *offset)
{
	memcpy(section, rows + i * stride, 4);
	memcpy(offset, rows + i * stride + 4, 4);
}

static int cmp_row_ix(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	uint32_t si, oi, sj, oj;
	row_key(sort_rows, sort_stride, i, &si, &oi);
	row_key(sort_rows, sort_stride, j, &sj, &oj);
	if (si != sj)
		return si < sj ? -1 : 1;
	if (oi != oj)
		return oi < oj ? -1 : 1;
	return (i > j) - (i < j);
}

static uint32_t *index_rows(const void *rows, uint32_t n, size_t stride)
{
	uint32_t *ix = malloc((n ? n : 1) * sizeof(uint32_t));
	if (!ix)
		return NULL;
	for (uint32_t i = 0; i < n; i++)
		ix[i] = i;
	sort_rows = rows;
	sort_stride = stride;
	qsort(ix, n, sizeof(uint32_t), cmp_row_ix);
	sort_rows = NULL;
	return ix;
}

/* The last row at or before (section, offset) of that section, or
 * UINT32_MAX. */
static uint32_t find_row(const void *rows, const uint32_t *ix, uint32_t n, size_t stride, uint32_t section,
			 uint32_t offset)
{
	uint32_t lo = 0, hi = n, s, o;
	while (lo < hi) {
		uint32_t mid = lo + (hi - lo) / 2;
		row_key(rows, stride, ix[mid], &s, &o);
		if (s < section || (s == section && o <= offset))
			lo = mid + 1;
		else
			hi = mid;
	}
	if (!lo)
		return UINT32_MAX;
	row_key(rows, stride, ix[lo - 1], &s, &o);
	return s == section ? ix[lo - 1] : UINT32_MAX;
}

const struct pi_map_line *prof_line(const struct prof_obj *o, uint32_t section, uint32_t offset)
{
	uint32_t i = find_row(o->lines, o->line_ix, o->map->nlines, sizeof(*o->lines), section, offset);
	return i != UINT32_MAX && o->lines[i].line ? &o->lines[i] : NULL;
}

const struct pi_map_inline *prof_inline(const struct prof_obj *o, uint32_t section, uint32_t offset)
{
	uint32_t i = find_row(o->inrows, o->inrow_ix, o->ninrows, sizeof(*o->inrows), section, offset);
	return i != UINT32_MAX && o->inrows[i].frame ? &o->inlines[o->inrows[i].frame - 1] : NULL;
}

const struct pi_map_inline *prof_inline_parent(const struct prof_obj *o, const struct pi_map_inline *f)
{
	return f->parent ? &o->inlines[f->parent - 1] : NULL;
}

_Static_assert(offsetof(struct pi_map_hdr, nrelocs) == PI_MAP_HDR_V3_SIZE, "a map without relocations ends there");
_Static_assert(offsetof(struct pi_map_hdr, ninlines) == PI_MAP_HDR_RELOCS_SIZE, "a map without inlines ends there");
_Static_assert(offsetof(struct pi_map_hdr, nsame) == PI_MAP_HDR_INLINES_SIZE, "a map without PI_MAP_SAME ends there");

/* Its relocation table (PI_MAP_RELOCS), or none in a map written before. */
static uint32_t map_nrelocs(const struct pi_map_hdr *m)
{
	return (m->reserved & PI_MAP_RELOCS) ? m->nrelocs : 0;
}

/* Its inline tables (PI_MAP_INLINES, which comes with PI_MAP_RELOCS), or
 * none in a map written before. */
static bool map_inlines(const struct pi_map_hdr *m)
{
	return (m->reserved & PI_MAP_INLINES) && (m->reserved & PI_MAP_RELOCS);
}

/* Its table of blocks counted as another (PI_MAP_SAME, which comes with
 * the inline tables), or none. */
static bool map_same(const struct pi_map_hdr *m)
{
	return (m->reserved & PI_MAP_SAME) && map_inlines(m);
}

/* Whether block x + 1 (0: none) is of block i's function and has a
 * count of its own in the tables (same, and diff, pairs, or NULL). */
static bool counted_root(const struct pi_map_hdr *m, const uint32_t *same, const uint32_t *diff, uint32_t x,
			 uint32_t i)
{
	const struct pi_map_block *b = (const void *)((const char *)m + m->blocks_off);
	return x && x <= m->nblocks && !same[x - 1] && (!diff || (!diff[2 * (x - 1)] && !diff[2 * (x - 1) + 1])) &&
	       b[x - 1].func == b[i].func;
}

/* Whether block x + 1 (0: none) is of block i's function and its count a
 * difference, with no same block of its own (PI_MAP_EDGES: a block
 * counted as it, or a difference after it, goes on from it) */
static bool diff_root(const struct pi_map_hdr *m, const uint32_t *same, const uint32_t *diff, uint32_t x, uint32_t i)
{
	const struct pi_map_block *b = (const void *)((const char *)m + m->blocks_off);
	return x && x <= m->nblocks && !same[x - 1] && diff[2 * (x - 1)] && b[x - 1].func == b[i].func;
}

/* Whether a pair (0, k) names a group of the flow into a join
 * (PI_MAP_LIN) */
static bool lin_group(const uint32_t *sums, uint32_t nsums, uint32_t k)
{
	return k - 1 < nsums && (sums[k - 1] & PI_LIN_GROUP);
}

/* Whether a term of block i's flow (PI_MAP_LIN) names a block of i's
 * function, not i, whose count is no flow; a raw one, a block whose
 * counter is a count of its own or an edge's (PI_MAP_EDGES) */
static bool flow_term_ok(const struct pi_map_hdr *m, const uint32_t *same, const uint32_t *diff,
			 const uint32_t *sums, uint32_t nsums, bool edges, uint32_t term, uint32_t i)
{
	const struct pi_map_block *b = (const void *)((const char *)m + m->blocks_off);
	uint32_t x = term & PI_LIN_BLOCK;
	if (!x || x > m->nblocks || x - 1 == i || b[x - 1].func != b[i].func)
		return false;
	const uint32_t *pair = diff + 2 * (x - 1);
	if (!pair[0] && pair[1] && lin_group(sums, nsums, pair[1]))
		return false; /* (a flow) */
	bool edge = edges && !same[x - 1] && pair[0] && pair[1] == x;
	return !(term & PI_LIN_RAW) || counted_root(m, same, diff, x, i) || edge;
}

/* The table of blocks counted as another: one per block, each naming a
 * block of its own function that has a count of its own; and with
 * PI_MAP_DIFF the differences: per block none, or two such blocks, and
 * then no block counted as it; with PI_MAP_SUM, a pair (0, k) names the
 * group of the sums (k - 1 its place), one or more such blocks. */
static int check_same(const struct pi_map_hdr *m, char *err, size_t n)
{
	if (!m->nsame)
		return 0;
	uint64_t words = (m->reserved & PI_MAP_DIFF) ? 3 : 1;
	if (m->nsame != m->nblocks || m->same_off % 4 ||
	    (uint64_t)m->same_off + (uint64_t)m->nsame * words * sizeof(uint32_t) > m->size)
		return prof_fail(err, n, "object map's counted blocks overrun the map");
	const uint32_t *same = (const void *)((const char *)m + m->same_off);
	const uint32_t *diff = (m->reserved & PI_MAP_DIFF) ? same + m->nsame : NULL;
	const uint32_t *sums = NULL;
	uint32_t nsums = 0;
	if (diff && (m->reserved & PI_MAP_SUM)) {
		uint64_t at = (uint64_t)m->same_off + (uint64_t)m->nsame * words * sizeof(uint32_t);
		if (at + sizeof(uint32_t) > m->size)
			return prof_fail(err, n, "object map's counted blocks overrun the map");
		nsums = same[words * m->nsame];
		sums = same + words * m->nsame + 1;
		if (at + sizeof(uint32_t) + (uint64_t)nsums * sizeof(uint32_t) > m->size)
			return prof_fail(err, n, "object map's counted blocks overrun the map");
	}
	bool edges = diff && (m->reserved & PI_MAP_EDGES);
	bool lin = sums && (m->reserved & PI_MAP_LIN);
	for (uint32_t i = 0; i < m->nsame; i++) {
		uint32_t x = same[i];
		if (x && !counted_root(m, same, diff, x, i) && !(edges && diff_root(m, same, diff, x, i)))
			return prof_fail(err, n, "bad counted block in object map");
		if (edges && diff[2 * i] && !same[i] &&
		    (diff[2 * i + 1] == i + 1 || !counted_root(m, same, diff, diff[2 * i], i))) {
			/* (PI_MAP_EDGES) less an edge's count, the block's own
			 * counter's, or another block's; from a block's count
			 * that is its own or a difference again, from a block
			 * before it */
			if (diff[2 * i + 1] != i + 1 && !counted_root(m, same, diff, diff[2 * i + 1], i))
				return prof_fail(err, n, "bad block count difference in object map");
			uint32_t depth = 1;
			x = diff[2 * i];
			while (!counted_root(m, same, diff, x, i)) {
				if (x > i || !diff_root(m, same, diff, x, i) || ++depth > PI_MAP_DIFF_DEPTH)
					return prof_fail(err, n, "bad block count difference in object map");
				x = diff[2 * (x - 1)];
			}
			continue;
		}
		if (lin && !diff[2 * i] && diff[2 * i + 1] && lin_group(sums, nsums, diff[2 * i + 1])) {
			/* (PI_MAP_LIN) the flow into a join: terms of its
			 * function's blocks, none such a sum, a raw one a
			 * counter's (a count of its own, or an edge's) */
			uint32_t g = diff[2 * i + 1] - 1, k = sums[g] & ~PI_LIN_GROUP;
			if (same[i] || !k || k > PI_LIN_MAX || k > nsums - g - 1)
				return prof_fail(err, n, "bad block count flow in object map");
			for (uint32_t j = 1; j <= k; j++)
				if (!flow_term_ok(m, same, diff, sums, nsums, edges, sums[g + j], i))
					return prof_fail(err, n, "bad block count flow in object map");
			continue;
		}
		if (diff && !diff[2 * i] && diff[2 * i + 1]) {
			uint32_t g = diff[2 * i + 1] - 1;
			if (same[i] || g >= nsums || !sums[g] || sums[g] > nsums - g - 1)
				return prof_fail(err, n, "bad block count sum in object map");
			for (uint32_t j = 1; j <= sums[g]; j++)
				if (!counted_root(m, same, diff, sums[g + j], i))
					return prof_fail(err, n, "bad block count sum in object map");
			continue;
		}
		if (diff && (diff[2 * i] || diff[2 * i + 1]) &&
		    (same[i] || !counted_root(m, same, diff, diff[2 * i], i) ||
		     !counted_root(m, same, diff, diff[2 * i + 1], i)))
			return prof_fail(err, n, "bad block count difference in object map");
	}
	return 0;
}

/* The inline tables: strings, parents before their children, rows'
 * frames. */
static int check_inlines(const struct pi_map_hdr *m, char *err, size_t n)
{
	uint64_t sz = m->size;
	if ((uint64_t)m->inlines_off + (uint64_t)m->ninlines * sizeof(struct pi_map_inline) > sz ||
	    (uint64_t)m->inrows_off + (uint64_t)m->ninrows * sizeof(struct pi_map_inrow) > sz ||
	    m->inlines_off % 4 || m->inrows_off % 4)
		return prof_fail(err, n, "object map tables overrun the map");
	const struct pi_map_inline *f = (const void *)((const char *)m + m->inlines_off);
	for (uint32_t i = 0; i < m->ninlines; i++)
		if (!str_ok(m, f[i].name) || !str_ok(m, f[i].call_file) || f[i].parent > i)
			return prof_fail(err, n, "bad inlined call in object map");
	const struct pi_map_inrow *r = (const void *)((const char *)m + m->inrows_off);
	for (uint32_t i = 0; i < m->ninrows; i++)
		if (!str_ok(m, r[i].section) || r[i].frame > m->ninlines)
			return prof_fail(err, n, "bad inline row in object map");
	return 0;
}

static int check_map(const struct pi_map_hdr *m, uint64_t avail, char *err, size_t n)
{
	if (avail < PI_MAP_HDR_V3_SIZE || m->magic != PI_MAP_MAGIC)
		return prof_fail(err, n, "bad object map");
	if (m->version != PI_MAP_VERSION)
		return prof_fail(err, n, "object map version %u not supported", m->version);
	uint64_t hdr = map_same(m)			 ? sizeof(*m)
		       : map_inlines(m)			 ? PI_MAP_HDR_INLINES_SIZE
		       : (m->reserved & PI_MAP_RELOCS) ? PI_MAP_HDR_RELOCS_SIZE
						       : PI_MAP_HDR_V3_SIZE;
	if (m->size > avail || m->size < hdr)
		return prof_fail(err, n, "object map overruns its record");
	if (m->units == 0 || m->units > 1024)
		return prof_fail(err, n, "object map: bad cost unit %u", m->units);
	uint64_t sz = m->size;
	if ((uint64_t)m->funcs_off + (uint64_t)m->nfuncs * sizeof(struct pi_map_func) > sz ||
	    (uint64_t)m->blocks_off + (uint64_t)m->nblocks * sizeof(struct pi_map_block) > sz ||
	    (uint64_t)m->sites_off + (uint64_t)m->nsites * sizeof(struct pi_map_site) > sz ||
	    (uint64_t)m->str_off + m->str_size > sz || m->str_size == 0 ||
	    (uint64_t)m->lines_off + (uint64_t)m->nlines * sizeof(struct pi_map_line) > sz ||
	    (uint64_t)m->code_off + m->code_size > sz ||
	    (map_nrelocs(m) && (uint64_t)m->relocs_off + (uint64_t)m->nrelocs * sizeof(struct pi_map_reloc) > sz) ||
	    m->funcs_off % 4 || m->blocks_off % 4 || m->sites_off % 4 || m->lines_off % 4 ||
	    (map_nrelocs(m) && m->relocs_off % 4))
		return prof_fail(err, n, "object map tables overrun the map");
	const char *str = (const char *)m + m->str_off;
	if (str[m->str_size - 1] != 0)
		return prof_fail(err, n, "object map string table is not terminated");
	if (!str_ok(m, m->object) || !str_ok(m, m->cpu))
		return prof_fail(err, n, "bad string in object map");
	const struct pi_map_func *f = (const void *)((const char *)m + m->funcs_off);
	for (uint32_t i = 0; i < m->nfuncs; i++) {
		if (!str_ok(m, f[i].name) || !str_ok(m, f[i].section))
			return prof_fail(err, n, "bad function name in object map");
		if ((uint64_t)f[i].first_block + f[i].nblocks > m->nblocks ||
		    (uint64_t)f[i].first_site + f[i].nsites > m->nsites)
			return prof_fail(err, n, "bad function in object map");
	}
	const struct pi_map_block *b = (const void *)((const char *)m + m->blocks_off);
	for (uint32_t i = 0; i < m->nblocks; i++)
		if (b[i].func >= m->nfuncs || !str_ok(m, b[i].section) ||
		    (uint64_t)b[i].code + b[i].size > m->code_size)
			return prof_fail(err, n, "bad block in object map");
	const struct pi_map_line *l = (const void *)((const char *)m + m->lines_off);
	for (uint32_t i = 0; i < m->nlines; i++)
		if (!str_ok(m, l[i].section) || !str_ok(m, l[i].file))
			return prof_fail(err, n, "bad line row in object map");
	const struct pi_map_reloc *rl = (const void *)((const char *)m + m->relocs_off);
	for (uint32_t i = 0; i < map_nrelocs(m); i++)
		if (!str_ok(m, rl[i].section) || !str_ok(m, rl[i].symbol))
			return prof_fail(err, n, "bad relocation in object map");
	const struct pi_map_site *s = (const void *)((const char *)m + m->sites_off);
	for (uint32_t i = 0; i < m->nsites; i++)
		if (s[i].func >= m->nfuncs || !str_ok(m, s[i].section) || s[i].piece >= PI_MAX_PIECES)
			return prof_fail(err, n, "bad call site in object map");
	int r = map_inlines(m) ? check_inlines(m, err, n) : 0;
	return r ? r : map_same(m) ? check_same(m, err, n) : 0;
}

#define GROW(arr, len, cap)                                                          \
	do {                                                                         \
		if ((len) == (cap)) {                                                \
			(cap) = (cap) ? 2 * (cap) : 8;                               \
			void *np_ = realloc((arr), (cap) * sizeof(*(arr)));          \
			if (!np_)                                                    \
				return prof_fail(err, errsz, "out of memory");            \
			(arr) = np_;                                                 \
		}                                                                    \
	} while (0)

/* Object idx's map m, size bytes (validated here): the next object. */
static int add_object(struct profile *p, uint32_t idx, const struct pi_map_hdr *m, uint64_t size, size_t *objcap,
		      char *err, size_t errsz)
{
	if (idx != p->nobjs)
		return prof_fail(err, errsz, "object records out of order");
	if (check_map(m, size, err, errsz))
		return -1;
	size_t objcap_ = *objcap;
	GROW(p->objs, p->nobjs, objcap_);
	*objcap = objcap_;
	struct prof_obj *o = &p->objs[p->nobjs++];
	memset(o, 0, sizeof(*o));
	o->map = m;
	o->funcs = (const void *)((const char *)m + m->funcs_off);
	o->blocks = (const void *)((const char *)m + m->blocks_off);
	o->sites = (const void *)((const char *)m + m->sites_off);
	o->lines = (const void *)((const char *)m + m->lines_off);
	o->code = (const uint8_t *)m + m->code_off;
	o->nrelocs = map_nrelocs(m);
	o->relocs = (const void *)((const char *)m + (o->nrelocs ? m->relocs_off : 0));
	o->str = (const char *)m + m->str_off;
	o->counts = calloc(m->nblocks ? m->nblocks : 1, sizeof(uint64_t));
	if (m->reserved & PI_MAP_SIMS) {
		o->mispredicts = calloc(m->nblocks ? m->nblocks : 1, sizeof(uint64_t));
		o->mem_waits = calloc(m->nblocks ? m->nblocks : 1, sizeof(uint64_t));
		if (!o->mispredicts || !o->mem_waits)
			return prof_fail(err, errsz, "out of memory");
	}
	if (!o->counts)
		return prof_fail(err, errsz, "out of memory");
	if (map_inlines(m)) {
		o->inlines = (const void *)((const char *)m + m->inlines_off);
		o->ninlines = m->ninlines;
		o->inrows = (const void *)((const char *)m + m->inrows_off);
		o->ninrows = m->ninrows;
	}
	o->line_ix = index_rows(o->lines, m->nlines, sizeof(*o->lines));
	o->inrow_ix = index_rows(o->inrows, o->ninrows, sizeof(*o->inrows));
	o->inline_shown = calloc(o->ninlines ? o->ninlines : 1, sizeof(char *));
	if (!o->line_ix || !o->inrow_ix || !o->inline_shown)
		return prof_fail(err, errsz, "out of memory");
	return 0;
}

static int parse(struct profile *p, char *err, size_t errsz)
{
	const uint8_t *d = p->data;
	size_t size = p->size;
	if (size < 16 || memcmp(d, PI_PROF_MAGIC, 8))
		return prof_fail(err, errsz, "not a profinst profile");
	const struct pi_prof_hdr *h = (const void *)d;
	if (size < sizeof(*h))
		return prof_fail(err, errsz, "truncated profile header");
	if (h->version != PI_PROF_VERSION)
		return prof_fail(err, errsz, "profile version %u not supported (this profview reads %u)",
			    h->version, PI_PROF_VERSION);
	if (h->hdr_size < sizeof(*h) || h->hdr_size > size || h->hdr_size % 8)
		return prof_fail(err, errsz, "bad profile header size");
	p->hdr = h;
	size_t objcap = 0, thcap = 0, nctrees = 0;
	bool ended = false;
	const struct pi_prof_image *image = NULL;
	uint64_t off = h->hdr_size;
	/* counts records are applied after all objects are known */
	while (off < size) {
		if (size - off < sizeof(struct pi_prof_rec))
			return prof_fail(err, errsz, "truncated record at offset %llu", (unsigned long long)off);
		const struct pi_prof_rec *r = (const void *)(d + off);
		uint64_t body = off + sizeof(*r);
		if (r->size > size - body)
			return prof_fail(err, errsz, "truncated record at offset %llu", (unsigned long long)off);
		const uint8_t *pl = d + body;
		switch (r->tag) {
		case PI_REC_OBJECT: {
			if (r->size < 8)
				return prof_fail(err, errsz, "bad object record");
			uint32_t idx;
			memcpy(&idx, pl, 4);
			if (add_object(p, idx, (const void *)(pl + 8), r->size - 8, &objcap, err, errsz))
				return -1;
			break;
		}
		case PI_REC_IMAGE:
			if (r->size < sizeof(struct pi_prof_image))
				return prof_fail(err, errsz, "bad image record");
			image = (const void *)pl;
			break;
		case PI_REC_OBJREF: {
			struct pi_prof_objref ref;
			if (r->size < sizeof(ref) || !image)
				return prof_fail(err, errsz, "bad object reference");
			memcpy(&ref, pl, sizeof(ref));
			if (!p->image_maps) {
				if (!memchr(h->exe, 0, sizeof(h->exe)))
					return prof_fail(err, errsz, "bad executable path");
				if (image_read_maps(h->exe, "executable", image->build_id, image->build_id_size,
						    &p->image_maps, &p->image_size, err, errsz))
					return -1;
			}
			if (ref.offset > p->image_size || ref.size > p->image_size - ref.offset || ref.offset % 8)
				return prof_fail(err, errsz, "an object's map is out of the executable's maps");
			if (add_object(p, ref.index, (const void *)(p->image_maps + ref.offset), ref.size, &objcap, err,
				       errsz))
				return -1;
			break;
		}
		case PI_REC_SHLIB: {
			/* a shared object's objects: header, refs, path */
			struct pi_prof_shlib sl;
			if (r->size < sizeof(sl))
				return prof_fail(err, errsz, "bad shared object record");
			memcpy(&sl, pl, sizeof(sl));
			uint64_t refs = sizeof(sl) + (uint64_t)sl.nrefs * sizeof(struct pi_prof_objref);
			const char *path = (const char *)pl + refs;
			if (refs >= r->size || !memchr(path, 0, r->size - refs))
				return prof_fail(err, errsz, "bad shared object record");
			uint8_t *maps;
			uint64_t msize;
			if (image_read_maps(path, "shared object", sl.build_id, sl.build_id_size, &maps, &msize, err,
					    errsz))
				return -1;
			GROW(p->shlib_maps, p->nshlibs, p->shlibcap);
			p->shlib_maps[p->nshlibs++] = maps;
			for (uint32_t i = 0; i < sl.nrefs; i++) {
				struct pi_prof_objref ref;
				memcpy(&ref, pl + sizeof(sl) + (uint64_t)i * sizeof(ref), sizeof(ref));
				if (ref.offset > msize || ref.size > msize - ref.offset || ref.offset % 8)
					return prof_fail(err, errsz, "an object's map is out of %s's maps", path);
				if (add_object(p, ref.index, (const void *)(maps + ref.offset), ref.size, &objcap, err,
					       errsz))
					return -1;
			}
			break;
		}
		case PI_REC_COUNTS:
		case PI_REC_SIMCOUNTS:
			GROW(p->counts_recs, p->ncounts, p->countcap);
			p->counts_recs[p->ncounts++] = d + off;
			break;
		case PI_REC_FUNCREC:
			if (r->size % sizeof(struct pi_prof_funcrec))
				return prof_fail(err, errsz, "bad function record table");
			p->recs = (const void *)pl;
			p->nrecs = (uint32_t)(r->size / sizeof(struct pi_prof_funcrec));
			break;
		case PI_REC_THREAD: {
			const struct pi_prof_thread *t = (const void *)pl;
			if (r->size < sizeof(*t) ||
			    r->size != sizeof(*t) + (uint64_t)t->nnodes * sizeof(struct pi_prof_node) +
					       (uint64_t)t->nrec * sizeof(struct pi_prof_recedge) ||
			    t->nnodes == 0)
				return prof_fail(err, errsz, "bad thread record");
			GROW(p->threads, p->nthreads, thcap);
			p->threads[p->nthreads++] = (struct prof_thread){
				.hdr = t,
				.nodes = (const void *)(pl + sizeof(*t)),
				.recs = (const void *)(pl + sizeof(*t) + (uint64_t)t->nnodes * sizeof(struct pi_prof_node)),
			};
			break;
		}
		case PI_REC_CTHREAD: {
			/* (made a THREAD once the objects and functions are known) */
			if (r->size < sizeof(struct pi_prof_cthread))
				return prof_fail(err, errsz, "bad counting tree record");
			GROW(p->threads, p->nthreads, thcap);
			p->threads[p->nthreads++] = (struct prof_thread){.ctree = pl, .ctree_size = r->size};
			nctrees++;
			break;
		}
		case PI_REC_LOSS:
			if (r->size % sizeof(struct pi_prof_loss))
				return prof_fail(err, errsz, "bad loss record");
			for (uint64_t i = 0; i < r->size / sizeof(struct pi_prof_loss); i++) {
				struct pi_prof_loss l;
				memcpy(&l, pl + i * sizeof(l), sizeof(l));
				if (l.kind < PI_LOSS_KINDS)
					p->lost[l.kind] = p->lost[l.kind] + l.count < l.count ? UINT64_MAX
											: p->lost[l.kind] + l.count;
			}
			break;
		case PI_REC_PROCESS: {
			/* one per process image (several in a merged profile);
			 * profiles written before it have none */
			if (r->size % sizeof(struct pi_prof_process) || p->procs)
				return prof_fail(err, errsz, "bad process record");
			const struct pi_prof_process *pr = (const void *)pl;
			uint64_t n = r->size / sizeof(*pr);
			for (uint64_t i = 0; i < n; i++)
				if (!memchr(pr[i].lineage, 0, sizeof(pr[i].lineage)) ||
				    !memchr(pr[i].exe, 0, sizeof(pr[i].exe)))
					return prof_fail(err, errsz, "bad process record");
			p->procs = pr;
			p->nprocs = (uint32_t)(n < UINT32_MAX ? n : UINT32_MAX);
			break;
		}
		case PI_REC_END:
			ended = true;
			break;
		default:
			break; /* unknown: skip */
		}
		if (ended)
			break;
		off = body + ((r->size + 7) & ~7ull);
	}
	if (!ended)
		return prof_fail(err, errsz, "truncated profile (no end record)");
	p->units = (h->features & PI_PROF_FEAT_UNITS) && p->nobjs ? p->objs[0].map->units : 1;
	/* global functions */
	for (uint32_t i = 0; i < p->nobjs; i++) {
		p->objs[i].first_gfunc = p->nfuncs;
		if (p->nfuncs + (uint64_t)p->objs[i].map->nfuncs > UINT32_MAX / 2)
			return prof_fail(err, errsz, "too many functions");
		p->nfuncs += p->objs[i].map->nfuncs;
	}
	p->funcs = calloc(p->nfuncs ? p->nfuncs : 1, sizeof(*p->funcs));
	if (!p->funcs)
		return prof_fail(err, errsz, "out of memory");
	for (uint32_t i = 0; i < p->nobjs; i++) {
		const struct prof_obj *o = &p->objs[i];
		for (uint32_t f = 0; f < o->map->nfuncs; f++) {
			struct prof_gfunc *g = &p->funcs[o->first_gfunc + f];
			g->obj = i;
			g->func = f;
			g->name = prof_str(o, o->funcs[f].name);
			g->object = prof_str(o, o->map->object);
			g->external = (o->funcs[f].flags & PI_FUNC_EXTERNAL) != 0;
		}
	}
	for (uint32_t i = 0; i < p->nrecs; i++) {
		const struct pi_prof_funcrec *r = &p->recs[i];
		if (r->obj >= p->nobjs || r->func >= p->objs[r->obj].map->nfuncs || r->npieces > PI_MAX_PIECES)
			return prof_fail(err, errsz, "bad function record");
		p->funcs[p->objs[r->obj].first_gfunc + r->func].rec = r;
	}
	if (nctrees && !(p->ctrees = calloc(nctrees, sizeof(*p->ctrees))))
		return prof_fail(err, errsz, "out of memory");
	for (uint32_t i = 0; i < p->nthreads; i++) {
		struct prof_thread *t = &p->threads[i];
		if (!t->ctree)
			continue;
		struct ctree_out *o = &p->ctrees[p->nctrees++];
		if (ctree_convert(p, t->ctree, t->ctree_size, t, o, err, errsz))
			return -1;
		for (uint64_t k = 0; k < o->ncounts; k++) {
			GROW(p->counts_recs, p->ncounts, p->countcap);
			p->counts_recs[p->ncounts++] = o->counts[k];
		}
	}
	for (size_t i = 0; i < p->ncounts; i++) {
		const struct pi_prof_rec *r = (const void *)p->counts_recs[i];
		const uint8_t *pl = p->counts_recs[i] + sizeof(*r);
		uint32_t obj;
		memcpy(&obj, pl, 4);
		const uint64_t *c = (const void *)(pl + 8);
		if (r->size < 8 || obj >= p->nobjs)
			return prof_fail(err, errsz, "bad block counter record");
		struct prof_obj *o = &p->objs[obj];
		uint32_t n = o->map->nblocks;
		if (r->tag == PI_REC_COUNTS) {
			if (r->size - 8 != 8ull * n)
				return prof_fail(err, errsz, "bad block counter record");
			for (uint32_t b = 0; b < n; b++)
				o->counts[b] += c[b];
		} else {
			if (r->size - 8 != 16ull * n || !o->mispredicts)
				return prof_fail(err, errsz, "bad simulation counter record");
			for (uint32_t b = 0; b < n; b++) {
				o->mispredicts[b] += c[b];
				o->mem_waits[b] += c[n + b];
			}
		}
	}
	for (uint32_t i = 0; i < p->nthreads; i++) {
		const struct prof_thread *t = &p->threads[i];
		for (uint32_t n = 0; n < t->hdr->nnodes; n++) {
			const struct pi_prof_node *nd = &t->nodes[n];
			if (n == 0 ? nd->parent != UINT32_MAX : nd->parent >= n)
				return prof_fail(err, errsz, "bad calling-context tree");
			if (n && prof_gfunc(p, nd->obj, nd->func) == UINT32_MAX)
				return prof_fail(err, errsz, "calling-context node names an unknown function");
		}
		for (uint32_t k = 0; k < t->hdr->nrec; k++) {
			const struct pi_prof_recedge *re = &t->recs[k];
			if (re->node == 0 || re->node >= t->hdr->nnodes || re->caller_node >= t->hdr->nnodes ||
			    prof_gfunc(p, re->caller_obj, re->caller_func) == UINT32_MAX)
				return prof_fail(err, errsz, "bad recursive edge");
		}
	}
	return 0;
}

uint32_t prof_gfunc(const struct profile *p, uint32_t obj, uint32_t func)
{
	if (obj >= p->nobjs || func >= p->objs[obj].map->nfuncs)
		return UINT32_MAX;
	return p->objs[obj].first_gfunc + func;
}

int prof_parse(struct profile *p, const void *data, size_t size, char *err, size_t errsz)
{
	memset(p, 0, sizeof(*p));
	/* aligned copy: records are 8-aligned relative to the start */
	p->data = malloc(size ? size : 1);
	if (!p->data)
		return prof_fail(err, errsz, "out of memory");
	memcpy(p->data, data, size);
	p->size = size;
	return parse(p, err, errsz);
}

int prof_load(struct profile *p, const char *path, char *err, size_t errsz)
{
	memset(p, 0, sizeof(*p));
	FILE *f = fopen(path, "rb");
	if (!f)
		return prof_fail(err, errsz, "%s", strerror(errno));
	/* a regular file is mapped, not copied: a large profile's pages are
	 * the page cache's (its writer renames a new file into place, never
	 * truncates one being read) */
	struct stat st;
	if (!fstat(fileno(f), &st) && S_ISREG(st.st_mode) && st.st_size > 0 && (uint64_t)st.st_size < SIZE_MAX) {
		uint8_t *m = mmap(NULL, (size_t)st.st_size, PROT_READ, MAP_PRIVATE, fileno(f), 0);
		if (m != MAP_FAILED) {
			fclose(f);
			p->data = m;
			p->size = (size_t)st.st_size;
			p->mapped = true;
			return parse(p, err, errsz);
		}
	}
	size_t cap = 1 << 16, len = 0;
	uint8_t *buf = malloc(cap);
	size_t n;
	while (buf && (n = fread(buf + len, 1, cap - len, f)) > 0) {
		len += n;
		if (len == cap) {
			uint8_t *nb = realloc(buf, cap *= 2);
			if (!nb) {
				free(buf);
				buf = NULL;
			}
			buf = nb;
		}
	}
	int rerr = ferror(f);
	fclose(f);
	if (!buf)
		return prof_fail(err, errsz, "out of memory");
	if (rerr) {
		free(buf);
		return prof_fail(err, errsz, "read error");
	}
	p->data = buf;
	p->size = len;
	return parse(p, err, errsz);
}

void prof_free(struct profile *p)
{
	for (uint32_t i = 0; i < p->nobjs; i++) {
		free(p->objs[i].counts);
		free(p->objs[i].mispredicts);
		free(p->objs[i].mem_waits);
		free(p->objs[i].line_ix);
		free(p->objs[i].at_ix);
		free(p->objs[i].at_end);
		free(p->objs[i].inrow_ix);
		for (uint32_t k = 0; p->objs[i].inline_shown && k < p->objs[i].ninlines; k++)
			free(p->objs[i].inline_shown[k]);
		free(p->objs[i].inline_shown);
	}
	free(p->objs);
	free(p->threads);
	for (uint32_t g = 0; p->funcs && g < p->nfuncs; g++)
		free(p->funcs[g].shown);
	free(p->funcs);
	free(p->pieces);
	if (p->names) {
		free(p->names->slot);
		free(p->names->next);
		free(p->names);
	}
	free(p->counts_recs);
	for (size_t i = 0; i < p->nctrees; i++)
		ctree_free(&p->ctrees[i]);
	free(p->ctrees);
	free(p->image_maps);
	for (size_t i = 0; i < p->nshlibs; i++)
		free(p->shlib_maps[i]);
	free(p->shlib_maps);
	if (p->mapped)
		munmap(p->data, p->size);
	else
		free(p->data);
	memset(p, 0, sizeof(*p));
}

struct piece_ix {
	uint64_t addr, end;
	uint32_t rec, piece;
};

static int cmp_piece(const void *a, const void *b)
{
	const struct piece_ix *x = a, *y = b;
	return x->addr < y->addr ? -1 : x->addr > y->addr;
}

/* Pieces sorted by address, built on first use. */
static const struct piece_ix *pieces(const struct profile *p, size_t *n)
{
	struct profile *mp = (struct profile *)p;
	if (!mp->pieces) {
		size_t cnt = 0;
		for (uint32_t i = 0; i < p->nrecs; i++)
			cnt += p->recs[i].npieces;
		struct piece_ix *v = calloc(cnt ? cnt : 1, sizeof(*v));
		if (!v)
			return NULL;
		size_t k = 0;
		for (uint32_t i = 0; i < p->nrecs; i++)
			for (uint32_t j = 0; j < p->recs[i].npieces; j++)
				v[k++] = (struct piece_ix){p->recs[i].addr[j], p->recs[i].addr[j] + p->recs[i].size[j], i, j};
		if (cnt)
			qsort(v, cnt, sizeof(*v), cmp_piece);
		mp->pieces = v;
		mp->npieces = cnt;
	}
	*n = mp->npieces;
	return mp->pieces;
}

bool prof_find_site(const struct profile *p, uint64_t ra, uint32_t *gfunc, const struct pi_map_site **site)
{
	size_t n;
	const struct piece_ix *v = pieces(p, &n);
	if (!v)
		return false;
	size_t lo = 0, hi = n;
	while (lo < hi) { /* last piece starting at or before ra */
		size_t mid = (lo + hi) / 2;
		if (v[mid].addr <= ra)
			lo = mid + 1;
		else
			hi = mid;
	}
	/* a return address may sit at the very end of a piece (a call last) */
	for (size_t i = lo; i-- > 0 && i + 4 > lo;) {
		const struct pi_prof_funcrec *r = &p->recs[v[i].rec];
		uint32_t k = v[i].piece;
		if (ra < r->addr[k] || ra > r->addr[k] + r->size[k])
			continue;
		const struct prof_obj *o = &p->objs[r->obj];
		const struct pi_map_func *f = &o->funcs[r->func];
		for (uint32_t s = f->first_site; s < f->first_site + f->nsites; s++)
			if (o->sites[s].piece == k && o->sites[s].ret_off == ra - r->addr[k]) {
				*gfunc = o->first_gfunc + r->func;
				*site = &o->sites[s];
				return true;
			}
	}
	return false;
}

static size_t name_hash(const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		h = (h ^ *c) * 0x100000001b3ull;
	return (size_t)(h ^ h >> 32);
}

/* name's slot: the one holding its first function, or the free one where
 * it would go */
static size_t name_slot(const struct profile *p, const struct name_ix *ix, const char *name)
{
	size_t i = name_hash(name) & ix->mask;
	while (ix->slot[i] && strcmp(p->funcs[ix->slot[i] - 1].name, name))
		i = (i + 1) & ix->mask;
	return i;
}

static const struct name_ix *names(const struct profile *p)
{
	struct profile *mp = (struct profile *)p;
	if (mp->names)
		return mp->names;
	struct name_ix *ix = malloc(sizeof(*ix));
	size_t cap = 16;
	while (cap < 2 * (size_t)p->nfuncs)
		cap *= 2;
	uint32_t *slot = calloc(cap, sizeof(uint32_t)), *next = malloc((p->nfuncs ? p->nfuncs : 1) * sizeof(uint32_t));
	uint32_t *last = malloc((p->nfuncs ? p->nfuncs : 1) * sizeof(uint32_t)); /* a name's last so far */
	if (!ix || !slot || !next || !last) {
		free(ix), free(slot), free(next), free(last);
		return NULL;
	}
	*ix = (struct name_ix){slot, next, cap - 1};
	for (uint32_t g = 0; g < p->nfuncs; g++) {
		size_t i = name_slot(p, ix, p->funcs[g].name);
		next[g] = UINT32_MAX;
		if (!slot[i])
			slot[i] = g + 1;
		else
			next[last[slot[i] - 1]] = g;
		last[slot[i] - 1] = g;
	}
	free(last);
	mp->names = ix;
	return ix;
}

uint32_t prof_first_named(const struct profile *p, const char *name)
{
	const struct name_ix *ix = names(p);
	if (!ix) {
		for (uint32_t g = 0; g < p->nfuncs; g++)
			if (!strcmp(p->funcs[g].name, name))
				return g;
		return UINT32_MAX;
	}
	size_t i = name_slot(p, ix, name);
	return ix->slot[i] ? ix->slot[i] - 1 : UINT32_MAX;
}

uint32_t prof_next_named(const struct profile *p, uint32_t g)
{
	const struct name_ix *ix = names(p);
	if (ix)
		return ix->next[g];
	for (uint32_t h = g + 1; h < p->nfuncs; h++)
		if (!strcmp(p->funcs[h].name, p->funcs[g].name))
			return h;
	return UINT32_MAX;
}

static const struct prof_obj *sort_obj; /* (as sort_rows) */

static int cmp_func_at(const void *a, const void *b)
{
	uint32_t i = *(const uint32_t *)a, j = *(const uint32_t *)b;
	const struct pi_map_func *x = &sort_obj->funcs[i], *y = &sort_obj->funcs[j];
	int c = strcmp(prof_str(sort_obj, x->section), prof_str(sort_obj, y->section));
	if (c)
		return c;
	if (x->offset != y->offset)
		return x->offset < y->offset ? -1 : 1;
	return (i > j) - (i < j);
}

static int index_func_at(struct prof_obj *o)
{
	uint32_t n = 0, nf = o->map->nfuncs;
	o->at_ix = malloc((nf ? nf : 1) * sizeof(uint32_t));
	o->at_end = malloc((nf ? nf : 1) * sizeof(uint64_t));
	if (!o->at_ix || !o->at_end) {
		free(o->at_ix), free(o->at_end);
		o->at_ix = NULL, o->at_end = NULL;
		return -1;
	}
	for (uint32_t f = 0; f < nf; f++)
		if (!(o->funcs[f].flags & PI_FUNC_EXTERNAL))
			o->at_ix[n++] = f;
	sort_obj = o;
	qsort(o->at_ix, n, sizeof(uint32_t), cmp_func_at);
	sort_obj = NULL;
	for (uint32_t k = 0; k < n; k++) {
		const struct pi_map_func *f = &o->funcs[o->at_ix[k]];
		uint64_t end = (uint64_t)f->offset + f->size;
		if (k && o->at_end[k - 1] > end &&
		    !strcmp(prof_str(o, o->funcs[o->at_ix[k - 1]].section), prof_str(o, f->section)))
			end = o->at_end[k - 1];
		o->at_end[k] = end;
	}
	o->nat = n;
	return 0;
}

uint32_t prof_func_at(const struct profile *p, uint32_t obj, const char *sec, int64_t off, uint32_t *in)
{
	struct prof_obj *o = &((struct profile *)p)->objs[obj];
	uint32_t best = UINT32_MAX;
	if (!o->at_ix && index_func_at(o)) {
		for (uint32_t f = 0; f < o->map->nfuncs && best == UINT32_MAX; f++) {
			const struct pi_map_func *mf = &o->funcs[f];
			if (!(mf->flags & PI_FUNC_EXTERNAL) && off >= mf->offset && off < (int64_t)mf->offset + mf->size &&
			    !strcmp(prof_str(o, mf->section), sec))
				best = f;
		}
	} else {
		/* the last at or before (sec, off); then back through those
		 * whose section's extents reach past off */
		uint32_t lo = 0, hi = o->nat;
		while (lo < hi) {
			uint32_t mid = lo + (hi - lo) / 2;
			const struct pi_map_func *f = &o->funcs[o->at_ix[mid]];
			int c = strcmp(prof_str(o, f->section), sec);
			if (c < 0 || (c == 0 && (int64_t)f->offset <= off))
				lo = mid + 1;
			else
				hi = mid;
		}
		for (uint32_t k = lo; k-- > 0 && (int64_t)o->at_end[k] > off;) {
			const struct pi_map_func *f = &o->funcs[o->at_ix[k]];
			if (strcmp(prof_str(o, f->section), sec))
				break;
			if (off >= f->offset && off < (int64_t)f->offset + f->size && o->at_ix[k] < best)
				best = o->at_ix[k];
		}
	}
	if (best == UINT32_MAX)
		return UINT32_MAX;
	*in = (uint32_t)(off - o->funcs[best].offset);
	return o->first_gfunc + best;
}

static bool any_obj_has(const struct profile *p, uint32_t flag)
{
	for (uint32_t i = 0; i < p->nobjs; i++)
		if (p->objs[i].map->reserved & flag)
			return true;
	return false;
}

const struct pi_prof_process *prof_process(const struct profile *p)
{
	return p->nprocs ? &p->procs[0] : NULL;
}

bool prof_branch_sim(const struct profile *p)
{
	return any_obj_has(p, PI_MAP_BRANCH_SIM);
}

bool prof_cache_sim(const struct profile *p)
{
	return any_obj_has(p, PI_MAP_CACHE_SIM);
}

bool prof_counted(const struct profile *p)
{
	return any_obj_has(p, PI_MAP_COUNTING);
}

bool prof_charges_os(const struct profile *p)
{
	for (uint32_t i = 0; i < p->nobjs; i++)
		if (p->objs[i].map->reserved & PI_MAP_CHARGE_OS)
			return true;
	return false;
}
