/* SPDX-License-Identifier: MIT */
/* profview diff: per-function changes between two profiles, largest first. */
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const char diff_usage[] =
	"Usage: profview diff BEFORE AFTER [--format=text|json]\n"
	"\n"
	"Functions matched by name (a name several objects define, by name and\n"
	"source file, then object), so that the same code built into objects\n"
	"named otherwise still matches; self and self+descendants cycles and\n"
	"calls of each, and the change, sorted by the largest change of self\n"
	"cycles. Functions that ran in one profile only are included.\n";

struct row {
	const char *name, *object;
	const char *key;    /* what matches it: "" (its name), or its source file or object */
	const char *objs[2]; /* its object in each profile (NULL: not there) */
	uint32_t next;       /* the next row of its name, or UINT32_MAX */
	uint64_t self[2], incl[2], calls[2];
};

/* A profile's functions (not externals) by name, for "does another
 * object define this name too?" */
struct names {
	const struct profile *p;
	uint32_t *v; /* global functions, by (name, object index) */
	uint32_t n;
};

static const struct profile *sort_p;

static int by_name(const void *a, const void *b)
{
	const struct prof_gfunc *x = &sort_p->funcs[*(const uint32_t *)a], *y = &sort_p->funcs[*(const uint32_t *)b];
	int c = strcmp(x->name, y->name);
	return c ? c : (x->obj > y->obj) - (x->obj < y->obj);
}

static int names_init(struct names *ns, const struct profile *p)
{
	ns->p = p;
	ns->n = 0;
	ns->v = malloc((p->nfuncs ? p->nfuncs : 1) * sizeof(uint32_t));
	if (!ns->v)
		return -1;
	for (uint32_t g = 0; g < p->nfuncs; g++)
		if (!p->funcs[g].external)
			ns->v[ns->n++] = g;
	sort_p = p;
	qsort(ns->v, ns->n, sizeof(uint32_t), by_name);
	return 0;
}

/* Do two objects of the profile define name? */
static bool repeated(const struct names *ns, const char *name)
{
	uint32_t lo = 0, hi = ns->n;
	while (lo < hi) { /* the first at or after name */
		uint32_t mid = lo + (hi - lo) / 2;
		if (strcmp(ns->p->funcs[ns->v[mid]].name, name) < 0)
			lo = mid + 1;
		else
			hi = mid;
	}
	if (lo >= ns->n || strcmp(ns->p->funcs[ns->v[lo]].name, name))
		return false;
	uint32_t obj = ns->p->funcs[ns->v[lo]].obj;
	for (uint32_t i = lo + 1; i < ns->n && !strcmp(ns->p->funcs[ns->v[i]].name, name); i++)
		if (ns->p->funcs[ns->v[i]].obj != obj)
			return true;
	return false;
}

/* Function g's source file (the line table's, at its entry), or its object. */
static const char *source_of(const struct profile *p, uint32_t g)
{
	const struct prof_gfunc *gf = &p->funcs[g];
	const struct prof_obj *o = &p->objs[gf->obj];
	const struct pi_map_func *f = &o->funcs[gf->func];
	const struct pi_map_line *l = prof_line(o, f->section, f->offset);
	return l ? prof_str(o, l->file) : gf->object;
}

static int64_t delta(const struct row *r)
{
	return (int64_t)r->self[1] - (int64_t)r->self[0];
}

static int by_delta(const void *a, const void *b)
{
	int64_t x = llabs(delta(a)), y = llabs(delta(b));
	if (x != y)
		return x > y ? -1 : 1;
	int c = strcmp(((const struct row *)a)->name, ((const struct row *)b)->name);
	return c ? c : strcmp(((const struct row *)a)->object, ((const struct row *)b)->object);
}

int cmd_diff(int argc, char **argv)
{
	const char *path[2] = {NULL, NULL}, *format = "text";
	int np = 0;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(diff_usage, stdout);
			return 0;
		} else if (!strncmp(argv[i], "--format=", 9)) {
			if (pv_format(argv[i] + 9, "text,json", &format))
				return 2;
		} else if (argv[i][0] == '-') {
			pv_error("diff: unknown option %s", argv[i]);
			return 2;
		} else if (np < 2) {
			path[np++] = argv[i];
		} else {
			pv_error("diff: two profiles");
			return 2;
		}
	}
	if (np != 2) {
		fputs(diff_usage, stderr);
		return 2;
	}
	struct profile p[2];
	struct func_table t[2];
	if (pv_open(&p[0], &t[0], path[0]))
		return 1;
	if (pv_open(&p[1], &t[1], path[1])) {
		pv_close(&p[0], &t[0]);
		return 1;
	}
	/* both in one unit, exactly: 1/L of a cycle, L the units' lcm */
	uint64_t L = t[0].units, a = t[0].units, b = t[1].units;
	while (b) {
		uint64_t r = a % b;
		a = b;
		b = r;
	}
	L = L / a * t[1].units;
	uint64_t k[2] = {L / t[0].units, L / t[1].units}, total[2] = {t[0].total_self * k[0], t[1].total_self * k[1]};
	struct row *rows = NULL;
	size_t n = 0, cap = 0;
	struct names ns[2];
	if (names_init(&ns[0], &p[0]) || names_init(&ns[1], &p[1])) {
		pv_error("out of memory");
		free(ns[0].v);
		pv_close(&p[0], &t[0]);
		pv_close(&p[1], &t[1]);
		return 1;
	}
	struct pv_strmap by_name = {0}; /* a name's first row */
	for (int s = 0; s < 2; s++) {
		for (uint32_t g = 0; g < t[s].n; g++) {
			const struct func_view *v = &t[s].f[g];
			if (!v->calls && !v->self)
				continue;
			const char *name = p[s].funcs[g].name, *obj = p[s].funcs[g].object;
			/* an external is one row whoever calls it; a function by
			 * its name, where no profile has two of that name */
			const char *key = "";
			if (!p[s].funcs[g].external && (repeated(&ns[0], name) || repeated(&ns[1], name)))
				key = source_of(&p[s], g);
			/* the first row that matches, of those of its name */
			uint32_t i = pv_strmap_get(&by_name, name), last = UINT32_MAX;
			for (; i != UINT32_MAX; last = i, i = rows[i].next)
				if (!strcmp(rows[i].key, key) &&
				    (!rows[i].objs[s] || !strcmp(rows[i].objs[s], obj) || p[s].funcs[g].external))
					break;
			if (i == UINT32_MAX) {
				if (n == cap) {
					size_t nc = cap ? 2 * cap : 256;
					struct row *nr = realloc(rows, nc * sizeof(*rows));
					if (!nr)
						goto oom;
					rows = nr;
					cap = nc;
				}
				i = (uint32_t)n++;
				memset(&rows[i], 0, sizeof(rows[i]));
				rows[i].name = name;
				rows[i].object = p[s].funcs[g].external ? "external" : obj;
				rows[i].key = key;
				rows[i].next = UINT32_MAX;
				if (last != UINT32_MAX)
					rows[last].next = i;
				else if (pv_strmap_put(&by_name, name, i))
					goto oom;
			}
			if (!rows[i].objs[s])
				rows[i].objs[s] = p[s].funcs[g].external ? "external" : obj;
			rows[i].self[s] += v->self * k[s];
			rows[i].incl[s] += v->incl * k[s];
			rows[i].calls[s] += v->calls;
		}
	}
	pv_strmap_free(&by_name);
	if (n)
		qsort(rows, n, sizeof(*rows), by_delta);
	bool json = !strcmp(format, "json");
	if (json) {
		printf("{\"total_cycles\": [");
		pv_json_cycles(stdout, (uint32_t)L, total[0]);
		printf(", ");
		pv_json_cycles(stdout, (uint32_t)L, total[1]);
		printf("], \"unit\": [\"%s\", \"%s\"], \"functions\": [", pv_unit(&p[0]), pv_unit(&p[1]));
	} else {
		printf("Total: %llu -> %llu %s (%+.2f%%)\n\n", (unsigned long long)prof_cycles((uint32_t)L, total[0]),
		       (unsigned long long)prof_cycles((uint32_t)L, total[1]), pv_unit(&p[1]),
		       pv_pct((double)total[1] - (double)total[0], (double)total[0]));
		printf("%14s %14s %14s %8s %12s %12s  %s\n", "Self before", "Self after", "Change", "Change%", "Calls before",
		       "Calls after", "Function [object]");
	}
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		int64_t d = delta(r);
		double pct = pv_pct((double)d, (double)r->self[0]);
		if (json) {
			printf("%s\n  {\"name\": ", i ? "," : "");
			pv_json_str(stdout, r->name);
			printf(", \"object\": ");
			pv_json_str(stdout, r->objs[1] ? r->objs[1] : r->objs[0]);
			printf(", \"objects\": [");
			pv_json_str(stdout, r->objs[0] ? r->objs[0] : "");
			printf(", ");
			pv_json_str(stdout, r->objs[1] ? r->objs[1] : "");
			printf("]");
			printf(", \"self_cycles\": [");
			pv_json_cycles(stdout, (uint32_t)L, r->self[0]);
			printf(", ");
			pv_json_cycles(stdout, (uint32_t)L, r->self[1]);
			printf("], \"incl_cycles\": [");
			pv_json_cycles(stdout, (uint32_t)L, r->incl[0]);
			printf(", ");
			pv_json_cycles(stdout, (uint32_t)L, r->incl[1]);
			printf("], \"calls\": [%llu, %llu], \"self_change\": %s", (unsigned long long)r->calls[0],
			       (unsigned long long)r->calls[1], d < 0 ? "-" : "");
			pv_json_cycles(stdout, (uint32_t)L, (uint64_t)llabs(d));
			putchar('}');
		} else {
			char pc[16];
			if (r->self[0])
				snprintf(pc, sizeof(pc), "%+.1f%%", pct);
			else if (!r->objs[0])
				snprintf(pc, sizeof(pc), "new"); /* did not run before */
			else
				snprintf(pc, sizeof(pc), "-"); /* no self time before: no ratio */
			char obj[512];
			if (r->objs[0] && r->objs[1] && strcmp(r->objs[0], r->objs[1]))
				snprintf(obj, sizeof(obj), "%s -> %s", r->objs[0], r->objs[1]);
			else
				snprintf(obj, sizeof(obj), "%s", r->objs[1] ? r->objs[1] : r->objs[0]);
			/* each rounded once; the change too */
			long long dc = (long long)prof_cycles((uint32_t)L, (uint64_t)llabs(d));
			printf("%14llu %14llu %+14lld %8s %12llu %12llu  %s [%s]\n",
			       (unsigned long long)prof_cycles((uint32_t)L, r->self[0]),
			       (unsigned long long)prof_cycles((uint32_t)L, r->self[1]), d < 0 ? -dc : dc, pc,
			       (unsigned long long)r->calls[0], (unsigned long long)r->calls[1], r->name, obj);
		}
	}
	if (json)
		printf("\n]}\n");
	free(rows);
	free(ns[0].v);
	free(ns[1].v);
	pv_close(&p[0], &t[0]);
	pv_close(&p[1], &t[1]);
	return 0;
oom:
	pv_error("out of memory");
	pv_strmap_free(&by_name);
	free(rows);
	free(ns[0].v);
	free(ns[1].v);
	pv_close(&p[0], &t[0]);
	pv_close(&p[1], &t[1]);
	return 1;
}
