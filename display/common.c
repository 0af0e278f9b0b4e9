/* SPDX-License-Identifier: MIT */
#include "common.h"
#include "decode.h"
#include "safefile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* From the C++ runtime: demangles Itanium ABI names. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

void pv_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("profview: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int pv_load(struct profile *p, const char *path)
{
	char err[1024]; /* (a message names paths: the profile, an image) */
	if (prof_load(p, path, err, sizeof(err))) {
		pv_error("%s: %s", path, err);
		prof_free(p);
		return -1;
	}
	return 0;
}

char *pv_demangle(const char *name)
{
	if (strncmp(name, "_Z", 2))
		return NULL;
	int st = 0;
	char *d = __cxa_demangle(name, NULL, NULL, &st);
	if (d && st) {
		free(d);
		d = NULL;
	}
	return d;
}

const char *pv_name(const struct profile *p, uint32_t g)
{
	if (g == UINT32_MAX)
		return "<root>";
	struct prof_gfunc *f = &p->funcs[g];
	if (f->shown)
		return f->shown;
	const char *n = f->name;
	char *d = pv_demangle(n);
	if (f->external && n[0] != '<') {
		/* code outside the program's instrumented objects (a name in
		 * angle brackets says what it is already: <unknown>) */
		size_t len = strlen(d ? d : n) + sizeof("<external:>");
		char *e = malloc(len);
		if (e)
			snprintf(e, len, "<external:%s>", d ? d : n);
		free(d);
		d = e;
	}
	/* kept with the profile: a name lives as long as it does */
	f->shown = d;
	return d ? d : n;
}

static void json_str(FILE *out, const char *s, bool html)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || (html && (c == '<' || c == '>' || c == '&')))
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

void pv_json_str(FILE *out, const char *s)
{
	json_str(out, s, false);
}

void pv_json_str_html(FILE *out, const char *s)
{
	json_str(out, s, true);
}

static size_t strmap_slot(const struct pv_strmap *m, const char *s)
{
	uint64_t h = 0xcbf29ce484222325ull; /* FNV-1a */
	for (const unsigned char *c = (const unsigned char *)s; *c; c++)
		h = (h ^ *c) * 0x100000001b3ull;
	size_t i = (size_t)(h ^ h >> 32) & (m->cap - 1);
	while (m->keys[i] && strcmp(m->keys[i], s))
		i = (i + 1) & (m->cap - 1);
	return i;
}

uint32_t pv_strmap_get(const struct pv_strmap *m, const char *s)
{
	if (!m->cap)
		return UINT32_MAX;
	size_t i = strmap_slot(m, s);
	return m->keys[i] ? m->vals[i] : UINT32_MAX;
}

int pv_strmap_put(struct pv_strmap *m, const char *s, uint32_t v)
{
	if (2 * (m->n + 1) > m->cap) {
		struct pv_strmap nm = {.cap = m->cap ? 2 * m->cap : 256, .n = m->n};
		nm.keys = calloc(nm.cap, sizeof(*nm.keys));
		nm.vals = malloc(nm.cap * sizeof(*nm.vals));
		if (!nm.keys || !nm.vals) {
			free(nm.keys), free(nm.vals);
			return -1;
		}
		for (size_t i = 0; i < m->cap; i++)
			if (m->keys[i]) {
				size_t k = strmap_slot(&nm, m->keys[i]);
				nm.keys[k] = m->keys[i];
				nm.vals[k] = m->vals[i];
			}
		pv_strmap_free(m);
		*m = nm;
	}
	size_t i = strmap_slot(m, s);
	if (!m->keys[i]) {
		m->keys[i] = s;
		m->n++;
	}
	m->vals[i] = v;
	return 0;
}

void pv_strmap_free(struct pv_strmap *m)
{
	free(m->keys), free(m->vals);
	memset(m, 0, sizeof(*m));
}

/* "f+0x2a (file.c:12)": where site s of function g is. */
static int site_text(const struct profile *p, uint32_t g, const struct pi_map_site *s, char *buf, size_t n)
{
	const struct prof_gfunc *gf = &p->funcs[g];
	const struct prof_obj *o = &p->objs[gf->obj];
	const struct pi_map_func *f = &o->funcs[gf->func];
	int len;
	if (s->section == f->section && s->offset >= f->offset)
		len = snprintf(buf, n, "%s+0x%x", pv_name(p, g), s->offset - f->offset);
	else
		len = snprintf(buf, n, "%s:%s+0x%x", pv_name(p, g), prof_str(o, s->section), s->offset);
	const struct pi_map_line *l = prof_line(o, s->section, s->offset);
	if (l && len > 0 && (size_t)len < n) {
		const char *file = prof_str(o, l->file), *base = strrchr(file, '/');
		len += snprintf(buf + len, n - (size_t)len, " (%s:%u)", base ? base + 1 : file, l->line);
	}
	return len;
}

/* Is site s of object o a jump (a tail call to external code, which the
 * rewriter made a call), not a call instruction?  From the original bytes
 * of its block. */
static bool site_is_jump(const struct x86_decoder *dx, const struct prof_obj *o, const struct pi_map_site *s)
{
	if (s->block >= o->map->nblocks)
		return false;
	const struct pi_map_block *b = &o->blocks[s->block];
	if (b->section != s->section || s->offset < b->offset || s->offset >= b->offset + b->size)
		return false;
	struct insn in;
	uint32_t at = s->offset - b->offset;
	if (!insn_decode(dx, o->code + b->code + at, b->size - at, s->offset, &in))
		return false;
	return in.kind == INSN_JMP || in.kind == INSN_JMP_IND;
}

/* The C library's functions that deliver a signal to their own thread
 * before they return: what runs under them from outside is its handler. */
static bool raises_signals(const char *name)
{
	static const char *const names[] = {"raise", "kill", "killpg", "pthread_kill", "tgkill", "tkill",
					    "sigqueue", "pthread_sigqueue", "abort", "gsignal"};
	for (size_t i = 0; i < sizeof(names) / sizeof(names[0]); i++)
		if (!strcmp(name, names[i]))
			return true;
	return false;
}

/* The function named name, of object obj first, then of any object. */
static uint32_t func_named(const struct profile *p, uint32_t obj, const char *name)
{
	uint32_t other = UINT32_MAX;
	for (uint32_t g = prof_first_named(p, name); g != UINT32_MAX; g = prof_next_named(p, g)) {
		if (p->funcs[g].obj == obj && !p->funcs[g].external)
			return g;
		if (other == UINT32_MAX || p->funcs[other].external)
			other = g;
	}
	return other;
}

static void ref_text(const struct profile *p, struct pv_ref *r, const char *name, int64_t off, const char *suffix)
{
	if (r->g != UINT32_MAX && !p->funcs[r->g].external)
		name = pv_name(p, r->g);
	if (off)
		snprintf(r->text, sizeof(r->text), "%s%s0x%llx%s", name, off < 0 ? "-" : "+",
			 (unsigned long long)(off < 0 ? -(uint64_t)off : (uint64_t)off), suffix);
	else
		snprintf(r->text, sizeof(r->text), "%s%s", name, suffix);
}

uint32_t pv_insn_refs(const struct profile *p, const struct x86_decoder *dx, uint32_t obj, uint32_t sec, uint32_t at,
		      const uint8_t *code, uint32_t len, struct pv_ref *out, uint32_t max)
{
	const struct prof_obj *o = &p->objs[obj];
	struct insn in;
	if (!max || !insn_decode(dx, code, len, at, &in))
		return 0;
	bool branch = in.kind == INSN_CALL || in.kind == INSN_JMP || in.kind == INSN_JCC;
	const char *secname = prof_str(o, sec);
	uint32_t n = 0;
	bool branch_named = false;
	for (uint32_t i = 0; i < o->nrelocs && n < max; i++) {
		const struct pi_map_reloc *rl = &o->relocs[i];
		if (rl->offset < at || rl->offset >= at + in.len || strcmp(prof_str(o, rl->section), secname))
			continue;
		uint32_t type = rl->type & ~PI_RELOC_SECTION;
		const char *sym = prof_str(o, rl->symbol), *suffix = "";
		/* a PC-relative field: what it reaches is symbol + addend + the
		 * bytes from the field to the instruction's end */
		int64_t value = rl->addend;
		switch (type) {
		case 2: case 4: /* R_X86_64_PC32, PLT32 */
			value += at + in.len - rl->offset;
			break;
		case 9: case 41: case 42: /* GOTPCREL, GOTPCRELX, REX_GOTPCRELX */
			value += at + in.len - rl->offset;
			suffix = "@GOTPCREL";
			break;
		case 22: suffix = "@GOTTPOFF"; value += at + in.len - rl->offset; break;
		case 19: suffix = "@TLSGD"; value += at + in.len - rl->offset; break;
		case 20: suffix = "@TLSLD"; value += at + in.len - rl->offset; break;
		case 21: suffix = "@DTPOFF"; break;
		case 23: suffix = "@TPOFF"; break;
		default: break; /* absolute: symbol + addend */
		}
		struct pv_ref *r = &out[n++];
		r->branch = branch && rl->offset == at + in.rel_off;
		branch_named |= r->branch;
		r->g = UINT32_MAX;
		r->off = 0;
		uint32_t off = 0;
		if (rl->type & PI_RELOC_SECTION)
			r->g = prof_func_at(p, obj, sym, value, &off);
		else if ((r->g = func_named(p, obj, sym)) != UINT32_MAX)
			off = (uint32_t)value;
		if (r->g != UINT32_MAX && !p->funcs[r->g].external) {
			r->off = off;
			ref_text(p, r, sym, off, suffix);
		} else {
			ref_text(p, r, sym, value, suffix);
		}
	}
	if (branch && !branch_named && n < max) {
		/* a branch the assembler resolved: within its section */
		struct pv_ref *r = &out[n];
		uint32_t off;
		r->branch = true;
		r->g = prof_func_at(p, obj, secname, (int64_t)in.target, &off);
		r->off = off;
		if (r->g != UINT32_MAX) {
			ref_text(p, r, "", off, "");
			n++;
		}
	}
	return n;
}

/* Where function caller jumps to callee's entry: its offset in caller,
 * when one jump does. */
static bool tail_jump(const struct profile *p, const struct x86_decoder *dx, uint32_t caller, uint32_t callee,
		      const struct pi_map_block **blk, uint32_t *at)
{
	const struct prof_gfunc *gf = &p->funcs[caller];
	uint32_t found = 0;
	struct prof_blocks w;
	for (prof_blocks_init(&w, p, caller); prof_blocks_next(&w);) {
		const struct prof_obj *o = w.o;
		const struct pi_map_block *bl = w.bl;
		for (uint32_t off = 0; off < bl->size;) {
			struct insn in;
			if (!insn_decode(dx, o->code + bl->code + off, bl->size - off, bl->offset + off, &in))
				break;
			if (in.kind == INSN_JMP || in.kind == INSN_JCC) {
				struct pv_ref r[2];
				uint32_t n = pv_insn_refs(p, dx, gf->obj, bl->section, bl->offset + off,
							  o->code + bl->code + off, bl->size - off, r, 2);
				for (uint32_t i = 0; i < n; i++)
					if (r[i].branch && r[i].g == callee && !r[i].off && !found++) {
						*blk = bl;
						*at = bl->offset + off;
					}
			}
			off += in.len;
		}
	}
	return found == 1;
}

const char *pv_site_label(const struct profile *p, const struct x86_decoder *dx, uint64_t ra, char *buf, size_t n)
{
	return pv_call_label(p, dx, ra, UINT32_MAX, UINT32_MAX - 1, NULL, buf, n);
}

/* "tail call from f+0x6 (file.c:9)", or "tail call from f" where no one
 * jump of f's to callee is known. */
static const char *tail_label(const struct profile *p, const struct x86_decoder *dx, uint32_t caller, uint32_t callee,
			      char *buf, size_t n)
{
	const struct pi_map_block *bl;
	uint32_t at;
	if (callee >= p->nfuncs || !tail_jump(p, dx, caller, callee, &bl, &at)) {
		snprintf(buf, n, "tail call from %s", pv_name(p, caller));
		return buf;
	}
	struct pi_map_site s = {.func = p->funcs[caller].func, .section = bl->section, .offset = at};
	int len = snprintf(buf, n, "tail call from ");
	if (len > 0 && (size_t)len < n)
		site_text(p, caller, &s, buf + len, n - (size_t)len);
	return buf;
}

const char *pv_call_label(const struct profile *p, const struct x86_decoder *dx, uint64_t ra, uint32_t callee,
			  uint32_t caller, const uint64_t *caller_ra, char *buf, size_t n)
{
	uint32_t g;
	const struct pi_map_site *s;
	bool known = caller < p->nfuncs;
	bool instrumented_caller = known && !p->funcs[caller].external;
	/* A function that jumped to its callee left its own return address
	 * on the stack: the callee's is its caller's.  (With no site there,
	 * in a signal handler that jumped, say, it is still a tail call.) */
	bool tail = instrumented_caller && caller_ra && *caller_ra == ra;
	if (!prof_find_site(p, ra, &g, &s)) {
		if (tail)
			tail_label(p, dx, caller, callee, buf, n);
		else if (instrumented_caller)
			/* every call instrumented code makes has a site: what
			 * reached it from there interrupted it */
			snprintf(buf, n, "signal handler (interrupting %s)", pv_name(p, caller));
		else if (known && raises_signals(p->funcs[caller].name))
			snprintf(buf, n, "signal handler (signal sent by %s)", p->funcs[caller].name);
		else
			snprintf(buf, n, "from uninstrumented code");
		return buf;
	}
	if (site_is_jump(dx, &p->objs[p->funcs[g].obj], s)) {
		int len = snprintf(buf, n, "tail call from ");
		if (len > 0 && (size_t)len < n)
			site_text(p, g, s, buf + len, n - (size_t)len);
		return buf;
	}
	if (instrumented_caller && (tail || g != caller))
		return tail_label(p, dx, caller, callee, buf, n); /* the site is the caller's caller's */
	site_text(p, g, s, buf, n);
	return buf;
}

const char *pv_node_label(const struct profile *p, const struct x86_decoder *dx, const struct prof_thread *th,
			  uint32_t n, char *buf, size_t len)
{
	const struct pi_prof_node *nd = &th->nodes[n];
	const struct pi_prof_node *pa = &th->nodes[nd->parent];
	uint32_t caller = nd->parent ? prof_gfunc(p, pa->obj, pa->func) : UINT32_MAX;
	return pv_call_label(p, dx, nd->ret_addr, prof_gfunc(p, nd->obj, nd->func), caller,
			     nd->parent ? &pa->ret_addr : NULL, buf, len);
}

uint32_t pv_lookup(const struct profile *p, const struct func_table *t, const char *name, uint32_t *out,
		   uint32_t max)
{
	uint32_t n = 0;
	for (uint32_t g = 0; g < p->nfuncs && n < max; g++) {
		if (!t->f[g].calls && !t->f[g].self)
			continue;
		if (!strcmp(p->funcs[g].name, name) || !strcmp(pv_name(p, g), name))
			out[n++] = g;
	}
	return n;
}

/* Is s name followed by a compiler's suffix: "name.constprop.0",
 * "name.isra.0", "name.cold", or C++'s "name(int) [clone .cold]"? */
static bool up_to_suffix(const char *s, const char *name)
{
	size_t k = strlen(name);
	return !strncmp(s, name, k) && (s[k] == '.' || !strncmp(s + k, " [clone .", 9));
}

uint32_t pv_find_functions(const struct profile *p, const struct func_table *t, const char *path,
			   const char *name, uint32_t *out, uint32_t max)
{
	uint32_t n = pv_lookup(p, t, name, out, max);
	if (n)
		return n;
	uint32_t cand = 0, first = UINT32_MAX;
	for (uint32_t g = 0; g < p->nfuncs; g++) {
		if (!t->f[g].calls && !t->f[g].self)
			continue;
		if (up_to_suffix(p->funcs[g].name, name) || up_to_suffix(pv_name(p, g), name)) {
			if (!cand++)
				first = g;
			if (cand == 2) {
				pv_error("%s: '%s' names several functions; one of:", path, name);
				fprintf(stderr, "  %s [%s]\n", pv_name(p, first), p->funcs[first].object);
			}
			if (cand >= 2)
				fprintf(stderr, "  %s [%s]\n", pv_name(p, g), p->funcs[g].object);
		}
	}
	if (cand == 1 && max) {
		out[0] = first;
		return 1;
	}
	return cand ? UINT32_MAX : 0;
}

bool pv_counts_instructions(const struct profile *p)
{
	if (!p->nobjs)
		return false;
	for (uint32_t i = 0; i < p->nobjs; i++)
		if (strcmp(prof_str(&p->objs[i], p->objs[i].map->cpu), "instructions"))
			return false;
	return true;
}

bool pv_has_minmax(const struct profile *p)
{
	return !prof_counted(p);
}

const char *pv_unit(const struct profile *p)
{
	return pv_counts_instructions(p) ? "instructions" : "cycles";
}

double pv_pct(double part, double total)
{
	return total != 0 ? 100.0 * part / total : 0.0;
}

void pv_json_cycles(FILE *o, uint32_t units, uint64_t u)
{
	if (units <= 1) {
		fprintf(o, "%llu", (unsigned long long)u);
		return;
	}
	uint64_t whole = u / units, rem = u % units, scale = 1;
	int digits = 0;
	/* the fraction rem/units exactly in decimals, if 10^digits is a
	 * multiple of units (units = 2^a 5^b) */
	while (digits < 9 && (scale * rem) % units) {
		scale *= 10;
		digits++;
	}
	if (!rem) {
		fprintf(o, "%llu", (unsigned long long)whole);
		return;
	}
	uint64_t frac = scale * rem / units;
	fprintf(o, "%llu.%0*llu", (unsigned long long)whole, digits, (unsigned long long)frac);
}


int pv_open(struct profile *p, struct func_table *t, const char *path)
{
	if (pv_load(p, path))
		return 1;
	if (func_table_build(t, p)) {
		pv_error("out of memory");
		func_table_free(t);
		prof_free(p);
		return 1;
	}
	return 0;
}

void pv_close(struct profile *p, struct func_table *t)
{
	func_table_free(t);
	prof_free(p);
}

FILE *pv_out_open(const char *out, struct pi_out **handle)
{
	*handle = NULL;
	if (!strcmp(out, "-"))
		return stdout;
	struct pi_out *h = malloc(sizeof(*h));
	if (!h) {
		pv_error("out of memory");
		return NULL;
	}
	const char *why;
	if (pi_out_open(h, out, 0666, &why)) {
		pv_error("%s: cannot write: %s", out, why);
		free(h);
		return NULL;
	}
	FILE *o = fdopen(h->fd, "w");
	if (!o) {
		pv_error("%s: cannot write: %s", out, strerror(errno));
		pi_out_abort(h);
		free(h);
		return NULL;
	}
	h->fd = -1; /* the FILE closes it */
	*handle = h;
	return o;
}

int pv_out_close(FILE *o, struct pi_out *h, const char *out, bool ok)
{
	if (o == stdout)
		return fflush(stdout) || !ok;
	int bad = fclose(o) || !ok;
	const char *why;
	if (pi_out_commit(h, !bad, &why)) {
		if (ok)
			pv_error("%s: cannot write: %s", out, why);
		bad = 1;
	}
	free(h);
	return bad;
}

int pv_write(const char *path, const char *out,
	     int (*write)(FILE *o, const struct profile *p, const struct func_table *t, int how), int how)
{
	struct profile p;
	struct func_table t;
	if (pv_open(&p, &t, path))
		return 1;
	struct pi_out *tmp;
	FILE *o = pv_out_open(out, &tmp);
	if (!o) {
		pv_close(&p, &t);
		return 1;
	}
	int rc = write(o, &p, &t, how);
	if (rc)
		pv_error("%s: cannot write", out);
	rc = pv_out_close(o, tmp, out, rc == 0);
	pv_close(&p, &t);
	return rc;
}

int pv_format(const char *name, const char *choices, const char **format)
{
	size_t n = strlen(name);
	for (const char *c = choices; *c;) {
		const char *e = strchr(c, ',');
		size_t len = e ? (size_t)(e - c) : strlen(c);
		if (len == n && !strncmp(c, name, n)) {
			*format = name;
			return 0;
		}
		c += len + (e ? 1 : 0);
	}
	char list[128];
	size_t k = 0;
	for (const char *c = choices; *c && k + 3 < sizeof(list); c++) {
		list[k++] = *c;
		if (*c == ',')
			list[k++] = ' ';
	}
	list[k] = 0;
	pv_error("unknown format '%s' (%s)", name, list);
	return 2;
}

int pv_positional(const char *cmd, const char *arg, const char **path)
{
	if (arg[0] == '-' && arg[1]) {
		pv_error("%s: unknown option %s", cmd, arg);
		return 2;
	}
	if (*path) {
		pv_error("%s: one profile at a time", cmd);
		return 2;
	}
	*path = arg;
	return 0;
}

void pv_print_losses(FILE *o, const struct profile *p, const char *prefix)
{
	const uint64_t *l = p->lost;
	if (p->hdr->flags & PI_PROF_CHECKPOINT)
		fprintf(o, "%sWritten when the program called exec or _exit: if it went on, its later profile "
			   "replaces this one (an image exec'd writes its own, PID.x1, ...)\n", prefix);
	if (l[PI_LOSS_NESTED])
		fprintf(o, "%sNot recorded: %llu call%s made while the runtime was busy (a signal handler that "
			   "interrupted it, or while the profile was being written); their time is in their callers'\n",
			prefix, (unsigned long long)l[PI_LOSS_NESTED], l[PI_LOSS_NESTED] == 1 ? "" : "s");
	if (l[PI_LOSS_DROPPED])
		fprintf(o, "%sNot recorded: %llu call%s given no frame for want of memory; their time is in their "
			   "callers'\n",
			prefix, (unsigned long long)l[PI_LOSS_DROPPED], l[PI_LOSS_DROPPED] == 1 ? "" : "s");
	if (l[PI_LOSS_TARGETS])
		fprintf(o, "%sNot recorded: %llu call%s through a pointer out of instrumented code, to more "
			   "places than the runtime keeps records for; their time is in their callers'\n",
			prefix, (unsigned long long)l[PI_LOSS_TARGETS], l[PI_LOSS_TARGETS] == 1 ? "" : "s");
	if (l[PI_LOSS_RUNNING])
		fprintf(o, "%sNot closed: %llu thread%s still inside the runtime when the profile was written: "
			   "their open calls are not charged\n",
			prefix, (unsigned long long)l[PI_LOSS_RUNNING], l[PI_LOSS_RUNNING] == 1 ? " was" : "s were");
}

void pv_json_losses(FILE *o, const struct profile *p)
{
	fprintf(o, ",\n  \"checkpoint\": %s", (p->hdr->flags & PI_PROF_CHECKPOINT) ? "true" : "false");
	fprintf(o, ",\n  \"lost\": {\"nested_calls\": %llu, \"dropped_calls\": %llu, \"running_threads\": %llu}",
		(unsigned long long)p->lost[PI_LOSS_NESTED], (unsigned long long)p->lost[PI_LOSS_DROPPED],
		(unsigned long long)p->lost[PI_LOSS_RUNNING]);
}
