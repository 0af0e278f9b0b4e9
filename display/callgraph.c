/* SPDX-License-Identifier: MIT */
/*
 * profview callgraph: gprof-style stanzas, one per function: its callers
 * (parents), the function, its callees (children).  The numbers hold
 * a call graph's invariants exactly: the parents' calls, self and
 * self+descendants add up to the function's, and the children's
 * self+descendants add up to the function's minus its self.
 */
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const char callgraph_usage[] =
	"Usage: profview callgraph PROFILE [--format=text|json]\n"
	"\n"
	"For each function, ordered by self+descendants time: the callers it was\n"
	"called from, then the function, then the functions it called. Each line\n"
	"gives self cycles, children's cycles (self+descendants minus self) and\n"
	"calls (on this arc / in all). A call to a function already running\n"
	"(recursion) counts as a call with no time of its own: that time is in\n"
	"the activation it recursed into. Functions that call each other\n"
	"recursively form a cycle, shown as a whole as gprof does: its time\n"
	"comes in from the callers outside it and goes out to the callees\n"
	"outside it.\n";

static const struct func_table *g_t;

static int by_incl(const void *a, const void *b)
{
	const struct func_view *x = &g_t->f[*(const uint32_t *)a], *y = &g_t->f[*(const uint32_t *)b];
	if (x->incl != y->incl)
		return x->incl > y->incl ? -1 : 1;
	return (x->g > y->g) - (x->g < y->g);
}

static const struct cycle_table *g_ct;

/* "name <cycle N>" for members of a cycle */
static const char *cname(const struct profile *p, uint32_t g, char *buf, size_t n)
{
	if (g == UINT32_MAX)
		return "<spontaneous>";
	if (g_ct && g_ct->cycle_of[g])
		snprintf(buf, n, "%s <cycle %u>", pv_name(p, g), g_ct->cycle_of[g]);
	else
		snprintf(buf, n, "%s", pv_name(p, g));
	return buf;
}

/* ", \"self_cycles\": S, \"incl_cycles\": I" (exact) */
static void json_time(const struct profile *p, uint64_t self, uint64_t incl)
{
	printf(", \"self_cycles\": ");
	pv_json_cycles(stdout, p->units, self);
	printf(", \"incl_cycles\": ");
	pv_json_cycles(stdout, p->units, incl);
}

static void json_arcs(const struct profile *p, const struct arc *v, uint32_t n)
{
	for (uint32_t i = 0; i < n; i++) {
		printf("%s{\"name\": ", i ? ", " : "");
		pv_json_str(stdout, v[i].other == UINT32_MAX ? "<root>" : pv_name(p, v[i].other));
		printf(", \"calls\": %llu, \"recursive_calls\": %llu", (unsigned long long)v[i].calls,
		       (unsigned long long)v[i].rec_calls);
		json_time(p, v[i].self, v[i].incl);
		putchar('}');
	}
}

int cmd_callgraph(int argc, char **argv)
{
	const char *path = NULL, *format = "text";
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(callgraph_usage, stdout);
			return 0;
		} else if (!strncmp(argv[i], "--format=", 9)) {
			if (pv_format(argv[i] + 9, "text,json", &format))
				return 2;
		} else if (pv_positional("callgraph", argv[i], &path)) {
			return 2;
		}
	}
	if (!path) {
		fputs(callgraph_usage, stderr);
		return 2;
	}
	struct profile p;
	struct func_table t;
	if (pv_open(&p, &t, path))
		return 1;
	uint32_t *order = malloc((t.n ? t.n : 1) * sizeof(uint32_t)), n = 0;
	uint32_t *index = calloc(t.n ? t.n : 1, sizeof(uint32_t));
	for (uint32_t g = 0; g < t.n; g++)
		if (t.f[g].calls)
			order[n++] = g;
	g_t = &t;
	qsort(order, n, sizeof(*order), by_incl);
	for (uint32_t i = 0; i < n; i++)
		index[order[i]] = i + 1;
	struct cycle_table ct;
	if (cycles_build(&ct, &p, &t)) {
		pv_error("out of memory");
		return 1;
	}
	g_ct = &ct;
	bool json = !strcmp(format, "json");
	if (json) {
		printf("{\"cycle_units\": %u, \"total_cycles\": ", t.units);
		pv_json_cycles(stdout, t.units, t.total_self);
		printf(", \"functions\": [");
	} else {
		printf("%-7s %6s %14s %14s %21s  %s\n", "index", "%time", "self", "children", "called", "name");
	}
	for (uint32_t i = 0; i < n; i++) {
		const struct func_view *v = &t.f[order[i]];
		if (json) {
			printf("%s\n  {\"name\": ", i ? "," : "");
			pv_json_str(stdout, pv_name(&p, v->g));
			printf(", \"cycle\": %u, \"calls\": %llu", ct.cycle_of[v->g], (unsigned long long)v->calls);
			json_time(&p, v->self, v->incl);
			printf(", \"parents\": [");
			json_arcs(&p, v->callers, v->ncallers);
			printf("], \"children\": [");
			json_arcs(&p, v->callees, v->ncallees);
			printf("]}");
			continue;
		}
		for (uint32_t k = 0; k < v->ncallers; k++) {
			const struct arc *a = &v->callers[k];
			char called[64], name[512];
			snprintf(called, sizeof(called), "%llu/%llu", (unsigned long long)a->calls,
				 (unsigned long long)v->calls);
			char cn[512];
			if (a->other == UINT32_MAX)
				snprintf(name, sizeof(name), "<spontaneous>");
			else
				snprintf(name, sizeof(name), "%s [%u]", cname(&p, a->other, cn, sizeof(cn)),
					 index[a->other]);
			printf("%-7s %6s %14llu %14llu %21s      %s\n", "", "", pv_cyc(&p, a->self),
			       pv_cyc(&p, a->incl - a->self), called, name);
		}
		char idx[32], called[64];
		snprintf(idx, sizeof(idx), "[%u]", i + 1);
		if (v->rec_calls)
			snprintf(called, sizeof(called), "%llu+%llu", (unsigned long long)(v->calls - v->rec_calls),
				 (unsigned long long)v->rec_calls);
		else
			snprintf(called, sizeof(called), "%llu", (unsigned long long)v->calls);
		char cn[512];
		printf("%-7s %6.1f %14llu %14llu %21s  %s [%u]\n", idx, pv_pct(v->incl, t.total_self),
		       pv_cyc(&p, v->self), pv_cyc(&p, v->incl - v->self), called,
		       cname(&p, v->g, cn, sizeof(cn)), i + 1);
		for (uint32_t k = 0; k < v->ncallees; k++) {
			const struct arc *a = &v->callees[k];
			char c2[64];
			snprintf(c2, sizeof(c2), "%llu/%llu", (unsigned long long)a->calls,
				 (unsigned long long)t.f[a->other].calls);
			printf("%-7s %6s %14llu %14llu %21s      %s [%u]\n", "", "", pv_cyc(&p, a->self),
			       pv_cyc(&p, a->incl - a->self), c2, cname(&p, a->other, cn, sizeof(cn)),
			       index[a->other]);
		}
		puts("-----------------------------------------------");
	}
	/* the cycles, as wholes */
	if (json)
		printf("\n], \"cycles\": [");
	for (uint32_t k = 0; k < ct.n; k++) {
		const struct cycle *cy = &ct.c[k];
		if (json) {
			printf("%s\n  {\"cycle\": %u, \"members\": [", k ? "," : "", k + 1);
			for (uint32_t m = 0; m < cy->nmembers; m++) {
				printf("%s", m ? ", " : "");
				pv_json_str(stdout, pv_name(&p, cy->members[m]));
			}
			printf("], \"calls\": %llu, \"internal_calls\": %llu", (unsigned long long)cy->calls,
			       (unsigned long long)cy->internal);
			json_time(&p, cy->self, cy->incl);
			printf(", \"parents\": [");
			json_arcs(&p, cy->parents, cy->nparents);
			printf("], \"children\": [");
			json_arcs(&p, cy->children, cy->nchildren);
			printf("]}");
			continue;
		}
		char cn[512], called[64], name[600];
		for (uint32_t m = 0; m < cy->nparents; m++) {
			const struct arc *a = &cy->parents[m];
			snprintf(called, sizeof(called), "%llu/%llu", (unsigned long long)a->calls,
				 (unsigned long long)cy->calls);
			printf("%-7s %6s %14llu %14llu %21s      %s\n", "", "", pv_cyc(&p, a->self),
			       pv_cyc(&p, a->incl - a->self), called, cname(&p, a->other, cn, sizeof(cn)));
		}
		snprintf(called, sizeof(called), "%llu+%llu", (unsigned long long)cy->calls,
			 (unsigned long long)cy->internal);
		snprintf(name, sizeof(name), "<cycle %u as a whole>", k + 1);
		printf("%-7s %6.1f %14llu %14llu %21s  %s\n", "", pv_pct(cy->incl, t.total_self),
		       pv_cyc(&p, cy->self), pv_cyc(&p, cy->incl - cy->self), called, name);
		for (uint32_t m = 0; m < cy->nmembers; m++)
			printf("%-7s %6s %14llu %14s %21llu      %s [%u]\n", "", "",
			       pv_cyc(&p, t.f[cy->members[m]].self), "", (unsigned long long)t.f[cy->members[m]].calls,
			       cname(&p, cy->members[m], cn, sizeof(cn)), index[cy->members[m]]);
		for (uint32_t m = 0; m < cy->nchildren; m++) {
			const struct arc *a = &cy->children[m];
			snprintf(called, sizeof(called), "%llu/%llu", (unsigned long long)a->calls,
				 (unsigned long long)t.f[a->other].calls);
			printf("%-7s %6s %14llu %14llu %21s      %s [%u]\n", "", "", pv_cyc(&p, a->self),
			       pv_cyc(&p, a->incl - a->self), called, cname(&p, a->other, cn, sizeof(cn)),
			       index[a->other]);
		}
		puts("-----------------------------------------------");
	}
	if (json)
		printf("\n]}\n");
	cycles_free(&ct);
	free(order);
	free(index);
	pv_close(&p, &t);
	return 0;
}
