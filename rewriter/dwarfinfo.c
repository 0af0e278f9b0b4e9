/* SPDX-License-Identifier: MIT */
#include "dwarfinfo.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "cursor.h"
#include "util.h"

/* What is kept of a DIE that may name an inlined function, or is an
 * inlined call: enough to follow DW_AT_abstract_origin to a name. */
struct die {
	uint64_t off;       /* in .debug_info */
	const char *name, *linkage; /* in a string section, or NULL */
	uint64_t origin, spec;      /* DIE offsets, or UINT64_MAX */
};

struct abbrev {
	uint64_t code, tag;
	bool children;
	size_t first, n; /* its attributes in ctx.attrs */
};

struct attr_spec {
	uint64_t name, form;
	int64_t implicit;
};

/* An attribute's value as read: the form, the raw value and where its
 * field is in .debug_info (the relocation, if any, is on it). */
struct val {
	bool set;
	uint64_t form, u, field;
};

struct ctx {
	const struct object *o;
	const struct line_table *lt;
	struct inline_table *t;
	int info, abbrev, str, line_str, str_offsets, addr, ranges, rnglists;
	/* the unit being read */
	uint16_t ver;
	bool dwarf64;
	uint8_t asize;
	uint64_t unit_off;
	uint64_t str_offsets_base, addr_base, rnglists_base;
	uint64_t stmt_list;
	bool has_stmt;
	int base_sec; /* the unit's base address (DW_AT_low_pc), or -1 */
	uint64_t base_off;
	struct abbrev *abbrevs;
	size_t nabbrevs, abbrevcap;
	struct attr_spec *attrs;
	size_t nattrs, attrcap;
	struct die *dies;
	size_t ndies, diecap;
	uint64_t *frame_die; /* [nframes]: the frame's DIE offset */
	size_t nfd, fdcap;
};

/* The value of a field at off of section sec through its relocation:
 * symbol + addend, *tsec the symbol's section; without one the raw value,
 * *tsec -1 (an absolute address, which means nothing here). */
static uint64_t relocated(const struct ctx *x, int sec, uint64_t off, uint64_t raw, int *tsec)
{
	const struct object *o = x->o;
	*tsec = -1;
	if (sec <= 0 || !o->secs[sec].rela)
		return raw;
	const struct section *rs = &o->secs[o->secs[sec].rela];
	size_t i = rela_lower_bound(rs, off);
	if (i >= rs->nrelas || rs->relas[i].off != off || rs->relas[i].sym >= o->nsyms)
		return raw;
	const struct symbol *s = &o->syms[rs->relas[i].sym];
	if (s->shndx > 0 && s->shndx < SHN_LORESERVE && s->shndx < o->nsecs)
		*tsec = (int)s->shndx;
	return s->value + (uint64_t)rs->relas[i].addend;
}

/* A fixed-size field of section sec at off, relocated. */
static bool field_at(const struct ctx *x, int sec, uint64_t off, int size, uint64_t *v, int *tsec)
{
	const struct section *s = &x->o->secs[sec];
	if (sec <= 0 || !s->data || off > s->size || s->size - off < (uint64_t)size)
		return false;
	struct cursor c = {s->data, s->data + off, s->data + s->size, false};
	*v = relocated(x, sec, off, cur_fixed(&c, size), tsec);
	return true;
}

static const char *str_in(const struct ctx *x, int sec, uint64_t off)
{
	const struct section *s = sec > 0 ? &x->o->secs[sec] : NULL;
	if (!s || !s->data || off >= s->size || !memchr(s->data + off, 0, s->size - off))
		return NULL;
	return (const char *)s->data + off;
}

static int osize(const struct ctx *x)
{
	return x->dwarf64 ? 8 : 4;
}

/* Read one attribute's value of form at c; false on a form not known. */
static bool read_form(struct ctx *x, struct cursor *c, uint64_t form, int64_t implicit, struct val *v)
{
	v->set = true;
	v->form = form;
	v->field = (uint64_t)(c->p - c->base);
	v->u = 0;
	switch (form) {
	case 0x01: v->u = cur_fixed(c, x->asize); break;                         /* addr */
	case 0x0b: case 0x11: case 0x25: case 0x29: case 0x0c: v->u = cur_fixed(c, 1); break;
	case 0x05: case 0x12: case 0x26: case 0x2a: v->u = cur_fixed(c, 2); break;
	case 0x27: case 0x2b: v->u = cur_fixed(c, 3); break;                     /* strx3, addrx3 */
	case 0x06: case 0x13: case 0x28: case 0x2c: case 0x1c: v->u = cur_fixed(c, 4); break;
	case 0x07: case 0x14: case 0x20: case 0x24: v->u = cur_fixed(c, 8); break;
	case 0x0e: case 0x1f: case 0x17: case 0x1d: case 0x1f20: case 0x1f21:   /* offsets */
		v->u = cur_fixed(c, osize(x));
		break;
	case 0x10: v->u = cur_fixed(c, x->ver <= 2 ? x->asize : osize(x)); break; /* ref_addr */
	case 0x0d: v->u = (uint64_t)cur_sleb(c); break;
	case 0x0f: case 0x15: case 0x1a: case 0x1b: case 0x22: case 0x23: case 0x1f01: case 0x1f02:
		v->u = cur_uleb(c);
		break;
	case 0x08: cur_str(c); break;                                            /* string */
	case 0x19: break;                                                        /* flag_present */
	case 0x21: v->u = (uint64_t)implicit; break;
	case 0x1e: cur_skip(c, 16); break;
	case 0x0a: cur_skip(c, cur_fixed(c, 1)); break;
	case 0x03: cur_skip(c, cur_fixed(c, 2)); break;
	case 0x04: cur_skip(c, cur_fixed(c, 4)); break;
	case 0x09: case 0x18: cur_skip(c, cur_uleb(c)); break;
	case 0x16: {                                                             /* indirect */
		uint64_t f = cur_uleb(c);
		if (f == 0x16 || f == 0x21)
			return false;
		return read_form(x, c, f, 0, v);
	}
	default: return false;
	}
	return !c->bad;
}

/* An address by index in .debug_addr (DWARF 5's addrx forms). */
static bool addr_index(const struct ctx *x, uint64_t i, int *sec, uint64_t *off)
{
	if (!x->addr || i > (UINT64_MAX - x->addr_base) / x->asize)
		return false;
	*off = 0;
	return field_at(x, x->addr, x->addr_base + i * x->asize, x->asize, off, sec);
}

/* An address attribute: its section and offset, or false. */
static bool addr_of(const struct ctx *x, const struct val *v, int *sec, uint64_t *off)
{
	if (v->form == 0x01) {
		*off = relocated(x, x->info, v->field, v->u, sec);
		return *sec > 0;
	}
	if (v->form == 0x1b || (v->form >= 0x29 && v->form <= 0x2c) || v->form == 0x1f01)
		return addr_index(x, v->u, sec, off) && *sec > 0;
	return false;
}

static const char *str_of(const struct ctx *x, const struct val *v)
{
	if (!v->set)
		return NULL;
	int tsec;
	switch (v->form) {
	case 0x08: return (const char *)x->o->secs[x->info].data + v->field;
	case 0x0e: return str_in(x, x->str, relocated(x, x->info, v->field, v->u, &tsec));
	case 0x1f: return str_in(x, x->line_str, relocated(x, x->info, v->field, v->u, &tsec));
	case 0x1a: case 0x25: case 0x26: case 0x27: case 0x28: case 0x1f02: {
		uint64_t off;
		int n = osize(x);
		if (!x->str_offsets || v->u > (UINT64_MAX - x->str_offsets_base) / (uint64_t)n ||
		    !field_at(x, x->str_offsets, x->str_offsets_base + v->u * (uint64_t)n, n, &off, &tsec))
			return NULL;
		return str_in(x, x->str, off);
	}
	}
	return NULL;
}

/* A section offset attribute (DW_AT_stmt_list, DW_AT_ranges, the bases). */
static uint64_t offset_of(const struct ctx *x, const struct val *v)
{
	int tsec;
	return relocated(x, x->info, v->field, v->u, &tsec);
}

/* A reference to a DIE: its offset in .debug_info, or UINT64_MAX. */
static uint64_t ref_of(const struct ctx *x, const struct val *v)
{
	if (!v->set)
		return UINT64_MAX;
	switch (v->form) {
	case 0x11: case 0x12: case 0x13: case 0x14: case 0x15: return x->unit_off + v->u;
	case 0x10: return offset_of(x, v);
	}
	return UINT64_MAX;
}

static void add_range(struct ctx *x, int sec, uint64_t start, uint64_t end, uint32_t frame)
{
	if (sec <= 0 || end <= start || end - start > UINT32_MAX)
		return;
	struct inline_range *r = VEC_PUSH(x->t->ranges, x->t->nranges, x->t->rangecap);
	*r = (struct inline_range){sec, start, end, frame};
}

/* DWARF 2-4: a list of .debug_ranges at off; false if malformed. */
static bool read_ranges(struct ctx *x, uint64_t off, uint32_t frame)
{
	const struct section *s = x->ranges ? &x->o->secs[x->ranges] : NULL;
	if (!s || !s->data || off > s->size)
		return false;
	struct cursor c = {s->data, s->data + off, s->data + s->size, false};
	int bsec = x->base_sec;
	uint64_t boff = x->base_off;
	for (;;) {
		uint64_t f = (uint64_t)(c.p - c.base);
		uint64_t a = cur_fixed(&c, x->asize), b = cur_fixed(&c, x->asize);
		if (c.bad)
			return false;
		int asec, bsec2;
		uint64_t ra = relocated(x, x->ranges, f, a, &asec), rb = relocated(x, x->ranges, f + x->asize, b, &bsec2);
		if (asec < 0 && bsec2 < 0 && !a && !b)
			return true;
		if (asec < 0 && a == (x->asize == 8 ? UINT64_MAX : UINT32_MAX)) {
			bsec = bsec2, boff = rb; /* a base address selection */
			continue;
		}
		if (asec < 0)
			asec = bsec, ra += boff;
		if (bsec2 < 0)
			rb += asec == bsec ? boff : 0;
		add_range(x, asec, ra, rb, frame);
	}
}

/* DWARF 5: a list of .debug_rnglists at off; false if malformed. */
static bool read_rnglist(struct ctx *x, uint64_t off, uint32_t frame)
{
	const struct section *s = x->rnglists ? &x->o->secs[x->rnglists] : NULL;
	if (!s || !s->data || off > s->size)
		return false;
	struct cursor c = {s->data, s->data + off, s->data + s->size, false};
	int bsec = x->base_sec, sec;
	uint64_t boff = x->base_off, a, b;
	for (;;) {
		uint8_t kind = (uint8_t)cur_fixed(&c, 1);
		uint64_t f = (uint64_t)(c.p - c.base);
		if (c.bad)
			return false;
		switch (kind) {
		case 0: return true; /* end_of_list */
		case 1:              /* base_addressx */
			if (!addr_index(x, cur_uleb(&c), &bsec, &boff))
				bsec = -1;
			break;
		case 2: /* startx_endx */
			a = cur_uleb(&c), b = cur_uleb(&c);
			if (addr_index(x, a, &sec, &a) && addr_index(x, b, &bsec, &b))
				add_range(x, sec, a, b, frame);
			break;
		case 3: /* startx_length */
			a = cur_uleb(&c), b = cur_uleb(&c);
			if (addr_index(x, a, &sec, &a))
				add_range(x, sec, a, a + b, frame);
			break;
		case 4: /* offset_pair */
			a = cur_uleb(&c), b = cur_uleb(&c);
			add_range(x, bsec, boff + a, boff + b, frame);
			break;
		case 5: /* base_address */
			boff = relocated(x, x->rnglists, f, cur_fixed(&c, x->asize), &bsec);
			break;
		case 6: /* start_end */
			a = relocated(x, x->rnglists, f, cur_fixed(&c, x->asize), &sec);
			b = cur_fixed(&c, x->asize);
			b = relocated(x, x->rnglists, f + x->asize, b, &(int){0});
			add_range(x, sec, a, b, frame);
			break;
		case 7: /* start_length */
			a = relocated(x, x->rnglists, f, cur_fixed(&c, x->asize), &sec);
			add_range(x, sec, a, a + cur_uleb(&c), frame);
			break;
		default: return false;
		}
		if (c.bad)
			return false;
	}
}

/* The abbreviations of the unit, from offset off of .debug_abbrev. */
static bool read_abbrevs(struct ctx *x, uint64_t off)
{
	x->nabbrevs = x->nattrs = 0;
	const struct section *s = &x->o->secs[x->abbrev];
	if (!s->data || off >= s->size)
		return false;
	struct cursor c = {s->data, s->data + off, s->data + s->size, false};
	for (;;) {
		uint64_t code = cur_uleb(&c);
		if (c.bad)
			return false;
		if (!code)
			return true;
		struct abbrev *a = VEC_PUSH(x->abbrevs, x->nabbrevs, x->abbrevcap);
		a->code = code;
		a->tag = cur_uleb(&c);
		a->children = cur_fixed(&c, 1) != 0;
		a->first = x->nattrs;
		for (;;) {
			uint64_t name = cur_uleb(&c), form = cur_uleb(&c);
			if (c.bad)
				return false;
			if (!name && !form)
				break;
			struct attr_spec *as = VEC_PUSH(x->attrs, x->nattrs, x->attrcap);
			as->name = name, as->form = form;
			as->implicit = form == 0x21 ? cur_sleb(&c) : 0;
		}
		a->n = x->nattrs - a->first;
	}
}

static const struct abbrev *abbrev_of(const struct ctx *x, uint64_t code)
{
	if (code - 1 < x->nabbrevs && x->abbrevs[code - 1].code == code)
		return &x->abbrevs[code - 1];
	for (size_t i = 0; i < x->nabbrevs; i++)
		if (x->abbrevs[i].code == code)
			return &x->abbrevs[i];
	return NULL;
}

/* The attributes of a DIE this reader looks at. */
struct die_vals {
	struct val name, linkage, origin, spec, low, high, ranges, call_file, call_line;
	struct val stmt, str_base, addr_base, rng_base;
};

static struct val *slot(struct die_vals *d, uint64_t at)
{
	switch (at) {
	case 0x03: return &d->name;
	case 0x6e: case 0x2007: return &d->linkage;
	case 0x31: return &d->origin;
	case 0x47: return &d->spec;
	case 0x11: return &d->low;
	case 0x12: return &d->high;
	case 0x55: return &d->ranges;
	case 0x58: return &d->call_file;
	case 0x59: return &d->call_line;
	case 0x10: return &d->stmt;
	case 0x72: return &d->str_base;
	case 0x73: return &d->addr_base;
	case 0x74: return &d->rng_base;
	}
	return NULL;
}

/* An inlined call's frame and its code ranges. */
static bool add_frame(struct ctx *x, const struct die_vals *d, int32_t parent)
{
	uint32_t fi = (uint32_t)x->t->nframes;
	struct inline_frame *f = VEC_PUSH(x->t->frames, x->t->nframes, x->t->framecap);
	f->name = NULL;
	f->parent = parent;
	f->call_line = d->call_line.set ? (uint32_t)d->call_line.u : 0;
	f->call_file = d->call_file.set && x->has_stmt ? line_table_file(x->lt, x->stmt_list, d->call_file.u) : NULL;
	*VEC_PUSH(x->frame_die, x->nfd, x->fdcap) = ref_of(x, &d->origin);
	int sec;
	uint64_t lo;
	if (d->low.set && addr_of(x, &d->low, &sec, &lo)) {
		uint64_t hi = 0;
		int hsec = sec;
		if (d->high.form == 0x01 || d->high.form == 0x1b || (d->high.form >= 0x29 && d->high.form <= 0x2c)) {
			if (!addr_of(x, &d->high, &hsec, &hi))
				hsec = -1;
		} else if (d->high.set) {
			hi = lo + d->high.u;
		}
		if (hsec == sec)
			add_range(x, sec, lo, hi, fi);
	} else if (d->ranges.set) {
		if (x->ver >= 5) {
			uint64_t roff;
			if (d->ranges.form == 0x23) {
				int n = osize(x), tsec;
				if (!field_at(x, x->rnglists, x->rnglists_base + d->ranges.u * (uint64_t)n, n, &roff, &tsec))
					return false;
				roff += x->rnglists_base;
			} else {
				roff = offset_of(x, &d->ranges);
			}
			return read_rnglist(x, roff, fi);
		}
		return read_ranges(x, offset_of(x, &d->ranges), fi);
	}
	return true;
}

/* The DIEs of one unit (cursor u over it, after its header). */
static bool read_dies(struct ctx *x, struct cursor *u)
{
	int32_t *scope = NULL; /* per nesting level: the innermost frame open there */
	size_t depth = 0, cap = 0;
	bool ok = true, first = true;
	*VEC_PUSH(scope, depth, cap) = -1;
	while (u->p < u->end && ok) {
		uint64_t off = (uint64_t)(u->p - u->base);
		uint64_t code = cur_uleb(u);
		if (u->bad)
			break;
		if (!code) { /* the end of a DIE's children */
			if (depth > 1)
				depth--;
			continue;
		}
		const struct abbrev *a = abbrev_of(x, code);
		if (!a || depth > 4096) {
			ok = false;
			break;
		}
		struct die_vals d;
		memset(&d, 0, sizeof(d));
		for (size_t i = 0; i < a->n && ok; i++) {
			const struct attr_spec *as = &x->attrs[a->first + i];
			struct val tmp, *v = slot(&d, as->name);
			ok = read_form(x, u, as->form, as->implicit, v ? v : &tmp);
		}
		if (!ok)
			break;
		if (first) { /* the unit's DIE: its bases, then its base address */
			first = false;
			x->str_offsets_base = d.str_base.set ? offset_of(x, &d.str_base) : 8;
			x->addr_base = d.addr_base.set ? offset_of(x, &d.addr_base) : 8;
			x->rnglists_base = d.rng_base.set ? offset_of(x, &d.rng_base) : 12;
			x->has_stmt = d.stmt.set;
			x->stmt_list = d.stmt.set ? offset_of(x, &d.stmt) : 0;
			x->base_sec = -1;
			x->base_off = 0;
			if (d.low.set && !addr_of(x, &d.low, &x->base_sec, &x->base_off))
				x->base_sec = -1;
		}
		int32_t frame = scope[depth - 1];
		if (a->tag == 0x1d) { /* DW_TAG_inlined_subroutine */
			frame = (int32_t)x->t->nframes;
			ok = add_frame(x, &d, scope[depth - 1]);
		}
		if (d.name.set || d.linkage.set || d.origin.set || d.spec.set) {
			struct die *e = VEC_PUSH(x->dies, x->ndies, x->diecap);
			e->off = off;
			e->name = str_of(x, &d.name);
			e->linkage = str_of(x, &d.linkage);
			e->origin = ref_of(x, &d.origin);
			e->spec = ref_of(x, &d.spec);
		}
		if (a->children)
			*VEC_PUSH(scope, depth, cap) = frame;
	}
	free(scope);
	return ok && !u->bad;
}

static const struct die *die_at(const struct ctx *x, uint64_t off)
{
	size_t lo = 0, hi = x->ndies;
	while (lo < hi) {
		size_t mid = lo + (hi - lo) / 2;
		if (x->dies[mid].off < off)
			lo = mid + 1;
		else
			hi = mid;
	}
	return lo < x->ndies && x->dies[lo].off == off ? &x->dies[lo] : NULL;
}

/* The name of the function DIE off is (of): its linkage name if linkage
 * and it has one, else its name, through its origin and specification. */
static const char *name_of(const struct ctx *x, uint64_t off, bool linkage, int hops)
{
	const struct die *d = die_at(x, off);
	if (!d || hops > 8)
		return NULL;
	const char *n = linkage ? d->linkage : d->name;
	if (n && *n)
		return n;
	if (d->origin != UINT64_MAX && (n = name_of(x, d->origin, linkage, hops + 1)))
		return n;
	if (d->spec != UINT64_MAX)
		return name_of(x, d->spec, linkage, hops + 1);
	return NULL;
}

/* All units of .debug_info; false if malformed. */
static bool read_units(struct ctx *x)
{
	const struct section *s = &x->o->secs[x->info];
	struct cursor r = {s->data, s->data, s->data + s->size, false};
	while (r.p < r.end) {
		x->unit_off = (uint64_t)(r.p - r.base);
		uint64_t len = cur_fixed(&r, 4);
		x->dwarf64 = len == 0xffffffff;
		if (x->dwarf64)
			len = cur_fixed(&r, 8);
		if (r.bad || len > (uint64_t)(r.end - r.p) || len < 8)
			return false;
		struct cursor u = {r.base, r.p, r.p + len, false};
		r.p += len;
		x->ver = (uint16_t)cur_fixed(&u, 2);
		uint64_t abbrev_field, abbrev;
		int tsec;
		if (x->ver >= 2 && x->ver <= 4) {
			abbrev_field = (uint64_t)(u.p - u.base);
			abbrev = cur_fixed(&u, osize(x));
			x->asize = (uint8_t)cur_fixed(&u, 1);
		} else if (x->ver == 5) {
			uint8_t type = (uint8_t)cur_fixed(&u, 1);
			x->asize = (uint8_t)cur_fixed(&u, 1);
			abbrev_field = (uint64_t)(u.p - u.base);
			abbrev = cur_fixed(&u, osize(x));
			if (type != 1 && type != 3) /* DW_UT_compile, DW_UT_partial: others hold no code */
				continue;
		} else {
			continue; /* a version not known: no inline frames from it */
		}
		if (u.bad || (x->asize != 4 && x->asize != 8))
			return false;
		abbrev = relocated(x, x->info, abbrev_field, abbrev, &tsec);
		if (!read_abbrevs(x, abbrev) || !read_dies(x, &u))
			return false;
	}
	return true;
}

static uint32_t frame_depth(const struct inline_table *t, uint32_t f)
{
	uint32_t d = 1;
	for (int32_t p = t->frames[f].parent; p >= 0; p = t->frames[p].parent)
		d++;
	return d;
}

static const struct inline_table *sort_t;

static int cmp_range(const void *a, const void *b)
{
	const struct inline_range *x = a, *y = b;
	if (x->sec != y->sec)
		return x->sec - y->sec;
	if (x->start != y->start)
		return x->start < y->start ? -1 : 1;
	uint32_t dx = frame_depth(sort_t, x->frame), dy = frame_depth(sort_t, y->frame);
	if (dx != dy)
		return dx < dy ? -1 : 1;
	return (x->end < y->end) - (x->end > y->end);
}

static void row(struct inline_table *t, int sec, uint64_t off, int32_t frame)
{
	struct inline_row *last = t->nrows ? &t->rows[t->nrows - 1] : NULL;
	if (last && last->sec == sec && last->off >= off) {
		last->frame = frame;
		return;
	}
	if (last && last->sec == sec && last->frame == frame)
		return;
	*VEC_PUSH(t->rows, t->nrows, t->rowcap) = (struct inline_row){sec, off, frame};
}

/* The ranges flattened into rows, each offset in the innermost frame
 * whose ranges hold it (DWARF nests them). */
static void make_rows(struct inline_table *t)
{
	if (!t->nranges)
		return;
	sort_t = t;
	qsort(t->ranges, t->nranges, sizeof(*t->ranges), cmp_range);
	sort_t = NULL;
	const struct inline_range **stack = xcalloc(t->nranges, sizeof(*stack));
	size_t n = 0;
	for (size_t i = 0; i <= t->nranges; i++) {
		const struct inline_range *r = i < t->nranges ? &t->ranges[i] : NULL;
		/* close what ends before r (all, at a section's end) */
		while (n && (!r || r->sec != stack[n - 1]->sec || stack[n - 1]->end <= r->start)) {
			const struct inline_range *e = stack[--n];
			row(t, e->sec, e->end, n ? (int32_t)stack[n - 1]->frame : -1);
		}
		if (r) {
			stack[n++] = r;
			row(t, r->sec, r->start, (int32_t)r->frame);
		}
	}
	free(stack);
}

bool inline_table_read(struct inline_table *t, const struct object *o, const struct line_table *lt)
{
	memset(t, 0, sizeof(*t));
	struct ctx x = {.o = o, .lt = lt, .t = t};
	static const struct {
		const char *name;
		size_t at;
	} secs[] = {
		{".debug_info", offsetof(struct ctx, info)},       {".debug_abbrev", offsetof(struct ctx, abbrev)},
		{".debug_str", offsetof(struct ctx, str)},         {".debug_line_str", offsetof(struct ctx, line_str)},
		{".debug_str_offsets", offsetof(struct ctx, str_offsets)}, {".debug_addr", offsetof(struct ctx, addr)},
		{".debug_ranges", offsetof(struct ctx, ranges)},   {".debug_rnglists", offsetof(struct ctx, rnglists)},
	};
	for (size_t i = 1; i < o->nsecs; i++)
		for (size_t k = 0; k < sizeof(secs) / sizeof(secs[0]); k++)
			if (!strcmp(o->secs[i].name, secs[k].name) && o->secs[i].data)
				*(int *)((char *)&x + secs[k].at) = (int)i;
	if (!x.info || !x.abbrev)
		return true;
	bool ok = read_units(&x);
	for (size_t i = 0; ok && i < t->nframes; i++) {
		const char *n = name_of(&x, x.frame_die[i], true, 0);
		if (!n)
			n = name_of(&x, x.frame_die[i], false, 0);
		t->frames[i].name = xstrdup(n ? n : "??");
	}
	free(x.abbrevs), free(x.attrs), free(x.dies), free(x.frame_die);
	if (!ok) {
		inline_table_free(t);
		return false;
	}
	make_rows(t);
	return true;
}

void inline_table_free(struct inline_table *t)
{
	for (size_t i = 0; i < t->nframes; i++)
		free(t->frames[i].name);
	free(t->frames), free(t->ranges), free(t->rows);
	memset(t, 0, sizeof(*t));
}
