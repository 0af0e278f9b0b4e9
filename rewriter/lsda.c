/* SPDX-License-Identifier: MIT */
#include "lsda.h"

#include <elf.h>
#include <string.h>

#include "cursor.h"
#include "addrmap.h"

#define PE_OMIT 0xff
#define PE_ULEB 0x01
#define PE_UDATA4 0x03

/* A call-site field: gcc and clang use uleb128 or udata4. */
static uint64_t cs_value(struct cursor *c, uint8_t enc)
{
	switch (enc & 0x0f) {
	case PE_ULEB: return cur_uleb(c);
	case 0x02: return cur_fixed(c, 2);
	case PE_UDATA4: return cur_fixed(c, 4);
	case 0x04: return cur_fixed(c, 8);
	default: c->bad = true; return 0;
	}
}

struct lsda {
	uint8_t ttype_enc, cs_enc;
	uint64_t ttbase;         /* section offset, 0 if no type table */
	uint64_t cs_start, cs_end;
};

static bool parse(const struct section *s, uint64_t off, struct lsda *l)
{
	if (!s->data || off >= s->size)
		return false;
	struct cursor c = {NULL, s->data + off, s->data + s->size, false};
	uint8_t lpstart_enc = (uint8_t)cur_fixed(&c, 1);
	if (lpstart_enc != PE_OMIT)
		return false; /* landing pads relative to something else: not emitted by gcc/clang */
	l->ttype_enc = (uint8_t)cur_fixed(&c, 1);
	l->ttbase = 0;
	if (l->ttype_enc != PE_OMIT) {
		uint64_t t = cur_uleb(&c);
		l->ttbase = (uint64_t)(c.p - s->data) + t;
		if (l->ttbase > s->size)
			return false;
	}
	l->cs_enc = (uint8_t)cur_fixed(&c, 1);
	uint64_t len = cur_uleb(&c);
	l->cs_start = (uint64_t)(c.p - s->data);
	l->cs_end = l->cs_start + len;
	return !c.bad && l->cs_end <= s->size && (!l->ttbase || l->ttbase >= l->cs_end);
}

void lsda_mark_landing_pads(struct code *c, int sec, uint64_t off, int ti, uint64_t fstart)
{
	const struct section *s = &c->o->secs[sec];
	struct lsda l;
	if (!parse(s, off, &l))
		return;
	struct text *t = &c->texts[ti];
	uint64_t tsize = c->o->secs[t->sec].size;
	struct cursor cu = {NULL, s->data + l.cs_start, s->data + l.cs_end, false};
	while (cu.p < cu.end && !cu.bad) {
		cs_value(&cu, l.cs_enc);
		cs_value(&cu, l.cs_enc);
		uint64_t lp = cs_value(&cu, l.cs_enc);
		cur_uleb(&cu);
		if (cu.bad || !lp || fstart + lp >= tsize)
			continue;
		uint32_t k = t->at[fstart + lp];
		if (k != NO_INSN)
			t->mark[k] |= MARK_LEADER | MARK_RESYNC;
	}
}

/* End of the action table when there is no type table: follow the chains
 * of every call site's action. */
static uint64_t actions_end(const struct section *s, const struct lsda *l)
{
	uint64_t end = l->cs_end;
	struct cursor cu = {NULL, s->data + l->cs_start, s->data + l->cs_end, false};
	while (cu.p < cu.end && !cu.bad) {
		cs_value(&cu, l->cs_enc), cs_value(&cu, l->cs_enc), cs_value(&cu, l->cs_enc);
		uint64_t a = cur_uleb(&cu);
		for (uint64_t rec = a ? l->cs_end + a - 1 : 0; rec && rec < s->size;) {
			struct cursor ac = {NULL, s->data + rec, s->data + s->size, false};
			cur_sleb(&ac);
			const uint8_t *dispat = ac.p;
			int64_t disp = cur_sleb(&ac);
			if (ac.bad)
				break;
			uint64_t e = (uint64_t)(ac.p - s->data);
			if (e > end)
				end = e;
			if (!disp)
				break;
			uint64_t next = (uint64_t)(dispat - s->data) + (uint64_t)disp;
			if (next <= rec)
				break; /* chains go forward in gcc's and clang's tables */
			rec = next;
		}
	}
	return end;
}

static size_t uleb_len(uint64_t v)
{
	size_t n = 1;
	while (v >>= 7)
		n++;
	return n;
}

bool lsda_rewrite(struct code *c, const struct addrmap *m, int sec, uint64_t off, int ti, uint64_t fstart,
		  uint64_t nfstart, uint64_t *noff)
{
	struct section *s = &c->o->secs[sec];
	struct lsda l;
	if (!parse(s, off, &l))
		return false;
	uint64_t rest_end = l.ttbase ? l.ttbase : actions_end(s, &l);
	/* The call-site table for the new layout, in the original encoding
	 * where it is uleb128 (gcc's), so that the personality routine does
	 * the same work as before; udata4 otherwise. */
	uint8_t enc = (l.cs_enc & 0x0f) == PE_ULEB ? PE_ULEB : PE_UDATA4;
	struct buf cs = {0};
	struct cursor cu = {NULL, s->data + l.cs_start, s->data + l.cs_end, false};
	while (cu.p < cu.end && !cu.bad) {
		uint64_t start = cs_value(&cu, l.cs_enc);
		uint64_t len = cs_value(&cu, l.cs_enc);
		uint64_t lp = cs_value(&cu, l.cs_enc);
		uint64_t act = cur_uleb(&cu);
		uint64_t ns = addrmap_lookup(m, ti, fstart + start, MAP_PLACE);
		uint64_t ne = addrmap_lookup(m, ti, fstart + start + len, MAP_PLACE);
		uint64_t v[3] = {ns - nfstart, ne - ns, lp ? addrmap_lookup(m, ti, fstart + lp, MAP_PLACE) - nfstart : 0};
		for (int i = 0; i < 3; i++) {
			if (enc == PE_ULEB)
				buf_uleb(&cs, v[i]);
			else
				buf_u32(&cs, (uint32_t)v[i]);
		}
		buf_uleb(&cs, act);
	}
	if (cu.bad) {
		buf_free(&cs);
		return false;
	}
	uint64_t rest = rest_end - l.cs_end;
	struct buf n = {0};
	buf_u8(&n, PE_OMIT);
	buf_u8(&n, l.ttype_enc);
	if (l.ttype_enc != PE_OMIT)
		buf_uleb(&n, 1 + uleb_len(cs.len) + cs.len + rest);
	buf_u8(&n, enc);
	buf_uleb(&n, cs.len);
	buf_put(&n, cs.p, cs.len);
	uint64_t rest_at = n.len;
	buf_put(&n, s->data + l.cs_end, rest);
	/* append, 4-aligned */
	uint64_t at = (s->size + 3) & ~3ull;
	s->data = xrealloc(s->data, at + n.len);
	memset(s->data + s->size, 0, at - s->size);
	memcpy(s->data + at, n.p, n.len);
	s->size = at + n.len;
	/* the type table's relocations come along */
	if (s->rela) {
		struct section *rs = &c->o->secs[s->rela];
		size_t first = rela_lower_bound(rs, l.cs_end), last = rela_lower_bound(rs, rest_end);
		for (size_t i = first; i < last; i++) {
			struct rela r = rs->relas[i];
			r.off = at + rest_at + (r.off - l.cs_end);
			*VEC_PUSH(rs->relas, rs->nrelas, rs->relcap) = r;
		}
	}
	buf_free(&cs);
	buf_free(&n);
	*noff = at;
	return true;
}
