/* SPDX-License-Identifier: MIT */
#include "dwarfline.h"

#include <elf.h>
#include <stdlib.h>
#include <string.h>

#include "reloc.h"
#include "cursor.h"
#include "util.h"

struct ctx {
	const struct object *o;
	int dl;              /* .debug_line */
	const struct section *rela; /* its relocations, or NULL */
	int line_str, str;   /* .debug_line_str, .debug_str */
	struct line_table *t;
};

static const struct rela *rela_at_off(const struct ctx *x, uint64_t off)
{
	if (!x->rela)
		return NULL;
	size_t i = rela_lower_bound(x->rela, off);
	return i < x->rela->nrelas && x->rela->relas[i].off == off ? &x->rela->relas[i] : NULL;
}

/* A string in a string section, through the relocation on the field. */
static const char *strp(const struct ctx *x, int sec, uint64_t field_off, uint64_t raw)
{
	const struct rela *r = rela_at_off(x, field_off);
	uint64_t off = raw;
	if (r) {
		const struct symbol *s = &x->o->syms[r->sym];
		sec = (int)s->shndx;
		off = s->value + (uint64_t)r->addend;
	}
	if (sec <= 0 || (size_t)sec >= x->o->nsecs)
		return NULL;
	const struct section *ss = &x->o->secs[sec];
	if (!ss->data || off >= ss->size || !memchr(ss->data + off, 0, ss->size - off))
		return NULL;
	return (const char *)ss->data + off;
}

static const char *keep(struct line_table *t, const char *dir, const char *name)
{
	char *s;
	if (name[0] == '/' || !dir || !*dir)
		s = xstrdup(name);
	else
		s = xasprintf("%s/%s", dir, name);
	for (size_t i = 0; i < t->nfiles; i++)
		if (!strcmp(t->files[i], s)) {
			free(s);
			return t->files[i];
		}
	*VEC_PUSH(t->files, t->nfiles, t->filecap) = s;
	return s;
}

/* One DWARF 5 entry format list; returns false if a form is unknown. */
struct fmt {
	uint64_t type, form;
};

/* A DWARF 5 entry format list (at most 16 pairs of content type, form). */
static bool read_formats(struct cursor *u, struct fmt *f, size_t *n)
{
	*n = cur_fixed(u, 1);
	if (*n > 16)
		return false;
	for (size_t i = 0; i < *n; i++)
		f[i].type = cur_uleb(u), f[i].form = cur_uleb(u);
	return !u->bad;
}

static bool read_entry(struct ctx *x, struct cursor *r, const struct fmt *f, size_t nf, bool dwarf64,
		       const char **path, uint64_t *dir)
{
	*path = NULL;
	*dir = 0;
	for (size_t i = 0; i < nf; i++) {
		uint64_t field = (uint64_t)(r->p - r->base);
		uint64_t v = 0;
		const char *s = NULL;
		switch (f[i].form) {
		case 0x08: s = cur_str(r); break;                              /* string */
		case 0x1f: v = cur_fixed(r, dwarf64 ? 8 : 4); s = strp(x, x->line_str, field, v); break; /* line_strp */
		case 0x0e: v = cur_fixed(r, dwarf64 ? 8 : 4); s = strp(x, x->str, field, v); break;      /* strp */
		case 0x0f: v = cur_uleb(r); break;                             /* udata */
		case 0x0b: v = cur_fixed(r, 1); break;
		case 0x05: v = cur_fixed(r, 2); break;
		case 0x06: v = cur_fixed(r, 4); break;
		case 0x07: v = cur_fixed(r, 8); break;
		case 0x1e: cur_fixed(r, 8); cur_fixed(r, 8); break;                     /* data16 (MD5) */
		case 0x09: { uint64_t n = cur_uleb(r); if ((uint64_t)(r->end - r->p) < n) return false; r->p += n; break; }
		default: return false;
		}
		if (f[i].type == 1) /* DW_LNCT_path */
			*path = s;
		else if (f[i].type == 2) /* DW_LNCT_directory_index */
			*dir = v;
	}
	return !r->bad;
}

static void emit(struct ctx *x, int sec, uint64_t addr, const char *file, uint32_t line)
{
	if (sec <= 0)
		return;
	struct line_row *row = VEC_PUSH(x->t->rows, x->t->n, x->t->cap);
	row->sec = sec, row->off = addr, row->file = file, row->line = line;
}

/* One unit of .debug_line at r->p; false stops the whole table. */
static bool read_unit(struct ctx *x, struct cursor *r)
{
	uint64_t len = cur_fixed(r, 4);
	bool dwarf64 = false;
	if (len == 0xffffffff) {
		len = cur_fixed(r, 8);
		dwarf64 = true;
	}
	if (r->bad || len > (uint64_t)(r->end - r->p))
		return false;
	uint64_t unit_off = (uint64_t)(r->p - r->base) - (dwarf64 ? 12 : 4);
	const uint8_t *uend = r->p + len;
	struct cursor u = {r->base, r->p, uend, false};
	r->p = uend;
	uint16_t ver = (uint16_t)cur_fixed(&u, 2);
	if (ver < 2 || ver > 5)
		return true; /* skip what we do not know */
	if (ver >= 5) {
		if (cur_fixed(&u, 1) != 8)
			return true;
		cur_fixed(&u, 1);
	}
	uint64_t hlen = cur_fixed(&u, dwarf64 ? 8 : 4);
	const uint8_t *prog = u.p + hlen;
	if (u.bad || prog > uend)
		return true;
	uint8_t min_len = (uint8_t)cur_fixed(&u, 1);
	if (ver >= 4)
		cur_fixed(&u, 1);
	uint8_t def_stmt = (uint8_t)cur_fixed(&u, 1);
	(void)def_stmt;
	int8_t line_base = (int8_t)cur_fixed(&u, 1);
	uint8_t line_range = (uint8_t)cur_fixed(&u, 1);
	uint8_t op_base = (uint8_t)cur_fixed(&u, 1);
	if (u.bad || !line_range || !op_base)
		return true;
	uint8_t oplen[256] = {0};
	for (int i = 1; i < op_base; i++)
		oplen[i] = (uint8_t)cur_fixed(&u, 1);
	const char **dirs = NULL, **files = NULL;
	size_t ndirs = 0, dcap = 0, nfiles = 0, fcap = 0;
	bool ok = true;
	if (ver >= 5) {
		struct fmt df[16], ff[16];
		size_t ndf = 0, nff = 0;
		ok = read_formats(&u, df, &ndf);
		uint64_t nd = ok ? cur_uleb(&u) : 0;
		for (uint64_t i = 0; ok && i < nd && !u.bad; i++) {
			const char *path;
			uint64_t dummy;
			ok = read_entry(x, &u, df, ndf, dwarf64, &path, &dummy);
			*VEC_PUSH(dirs, ndirs, dcap) = path ? path : "";
		}
		ok = ok && read_formats(&u, ff, &nff);
		uint64_t nfl = ok ? cur_uleb(&u) : 0;
		for (uint64_t i = 0; ok && i < nfl && !u.bad; i++) {
			const char *path;
			uint64_t d;
			ok = read_entry(x, &u, ff, nff, dwarf64, &path, &d);
			const char *dir = d < ndirs ? dirs[d] : "";
			if (path && dir[0] != '/' && ndirs && d)
				dir = keep(x->t, dirs[0], dir); /* relative to the compilation directory */
			*VEC_PUSH(files, nfiles, fcap) = path ? keep(x->t, dir, path) : "";
		}
	} else {
		*VEC_PUSH(dirs, ndirs, dcap) = ""; /* the compilation directory: unknown here */
		for (;;) {
			const char *d = cur_str(&u);
			if (u.bad || !*d)
				break;
			*VEC_PUSH(dirs, ndirs, dcap) = d;
		}
		*VEC_PUSH(files, nfiles, fcap) = ""; /* files count from 1 */
		for (;;) {
			const char *f = cur_str(&u);
			if (u.bad || !*f)
				break;
			uint64_t d = cur_uleb(&u);
			cur_uleb(&u), cur_uleb(&u);
			*VEC_PUSH(files, nfiles, fcap) = keep(x->t, d < ndirs ? dirs[d] : "", f);
		}
	}
	if (!ok || u.bad) {
		free(dirs), free(files);
		return true;
	}
	struct line_unit *lu = VEC_PUSH(x->t->units, x->t->nunits, x->t->unitcap);
	lu->off = unit_off, lu->files = files, lu->nfiles = nfiles; /* (files now the unit's) */
	/* the program */
	struct cursor pr = {r->base, prog, uend, false};
	int sec = -1;
	uint64_t addr = 0, file = 1;
	int64_t line = 1;
	while (pr.p < pr.end && !pr.bad) {
		uint8_t op = (uint8_t)cur_fixed(&pr, 1);
		const char *fname = file < nfiles ? files[file] : "";
		if (op >= op_base) {
			uint8_t adj = op - op_base;
			addr += (uint64_t)(adj / line_range) * min_len;
			line = (int64_t)((uint64_t)line + (uint64_t)(line_base + adj % line_range)); /* wraps */
			emit(x, sec, addr, fname, (uint32_t)line);
			continue;
		}
		switch (op) {
		case 0: {
			uint64_t n = cur_uleb(&pr);
			const uint8_t *next = pr.p + n;
			if (n == 0 || n > (uint64_t)(pr.end - pr.p)) {
				pr.bad = true;
				break;
			}
			uint8_t sub = (uint8_t)cur_fixed(&pr, 1);
			if (sub == 1) { /* end_sequence */
				emit(x, sec, addr, "", 0);
				sec = -1, addr = 0, file = 1, line = 1;
			} else if (sub == 2 && n == 9) { /* set_address: which section? */
				uint64_t field = (uint64_t)(pr.p - pr.base);
				uint64_t v = cur_fixed(&pr, 8);
				const struct rela *rl = rela_at_off(x, field);
				if (rl) {
					const struct symbol *s = &x->o->syms[rl->sym];
					sec = s->shndx < SHN_LORESERVE ? (int)s->shndx : -1;
					addr = s->value + (uint64_t)rl->addend;
				} else {
					sec = -1, addr = v;
				}
			}
			pr.p = next;
			break;
		}
		case 1: emit(x, sec, addr, fname, (uint32_t)line); break;
		case 2: addr += cur_uleb(&pr) * min_len; break;
		case 3: line = (int64_t)((uint64_t)line + (uint64_t)cur_sleb(&pr)); break;
		case 4: file = cur_uleb(&pr); break;
		case 8: addr += (uint64_t)((255 - op_base) / line_range) * min_len; break;
		case 9: addr += cur_fixed(&pr, 2); break;
		default:
			for (int i = 0; i < oplen[op]; i++)
				cur_uleb(&pr);
		}
	}
	free(dirs);
	return true;
}

static int cmp_row(const void *a, const void *b)
{
	const struct line_row *x = a, *y = b;
	if (x->sec != y->sec)
		return x->sec - y->sec;
	if (x->off != y->off)
		return x->off < y->off ? -1 : 1;
	/* at one address, the last row of a sequence end goes first */
	return (x->line != 0) - (y->line != 0);
}

void line_table_read(struct line_table *t, const struct object *o)
{
	memset(t, 0, sizeof(*t));
	struct ctx x = {.o = o, .t = t, .dl = 0, .line_str = 0, .str = 0};
	for (size_t i = 1; i < o->nsecs; i++) {
		if (!strcmp(o->secs[i].name, ".debug_line"))
			x.dl = (int)i;
		else if (!strcmp(o->secs[i].name, ".debug_line_str"))
			x.line_str = (int)i;
		else if (!strcmp(o->secs[i].name, ".debug_str"))
			x.str = (int)i;
	}
	if (!x.dl || !o->secs[x.dl].data)
		return;
	if (o->secs[x.dl].rela)
		x.rela = &o->secs[o->secs[x.dl].rela];
	const struct section *s = &o->secs[x.dl];
	struct cursor r = {s->data, s->data, s->data + s->size, false};
	while (r.p < r.end && !r.bad)
		if (!read_unit(&x, &r))
			break;
	if (t->n)
		qsort(t->rows, t->n, sizeof(*t->rows), cmp_row);
}

void line_table_free(struct line_table *t)
{
	for (size_t i = 0; i < t->nfiles; i++)
		free(t->files[i]);
	free(t->files);
	free(t->rows);
	for (size_t i = 0; i < t->nunits; i++)
		free(t->units[i].files);
	free(t->units);
	memset(t, 0, sizeof(*t));
}

const char *line_table_file(const struct line_table *t, uint64_t unit, uint64_t i)
{
	for (size_t k = 0; k < t->nunits; k++)
		if (t->units[k].off == unit)
			return i < t->units[k].nfiles && *t->units[k].files[i] ? t->units[k].files[i] : NULL;
	return NULL;
}
