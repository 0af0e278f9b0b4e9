/* SPDX-License-Identifier: MIT */
/* profview diff: per-function changes between two profiles, largest first. */
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const char diff_usage[] =
	"Usage: profview diff BEFORE AFTER [--format=text|json]\n"
	"\n"
	"Functions matched by name and object; self and self+descendants cycles\n"
	"and calls of each, and the change, sorted by the largest change of self\n"
	"cycles. Functions that ran in one profile only are included.\n";

struct row {
	const char *name, *object;
	uint64_t self[2], incl[2], calls[2];
};

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
	for (int s = 0; s < 2; s++) {
		for (uint32_t g = 0; g < t[s].n; g++) {
			const struct func_view *v = &t[s].f[g];
			if (!v->calls && !v->self)
				continue;
			const char *name = p[s].funcs[g].name, *obj = p[s].funcs[g].object;
			size_t i;
			for (i = 0; i < n; i++)
				if (!strcmp(rows[i].name, name) && !strcmp(rows[i].object, obj))
					break;
			if (i == n) {
				if (n == cap) {
					cap = cap ? 2 * cap : 256;
					rows = realloc(rows, cap * sizeof(*rows));
				}
				memset(&rows[n], 0, sizeof(rows[n]));
				rows[n].name = name;
				rows[n].object = obj;
				n++;
			}
			rows[i].self[s] += v->self * k[s];
			rows[i].incl[s] += v->incl * k[s];
			rows[i].calls[s] += v->calls;
		}
	}
	if (n)
		qsort(rows, n, sizeof(*rows), by_delta);
	bool json = !strcmp(format, "json");
	if (json) {
		printf("{\"total_cycles\": [");
		pv_json_cycles(stdout, (uint32_t)L, total[0]);
		printf(", ");
		pv_json_cycles(stdout, (uint32_t)L, total[1]);
		printf("], \"functions\": [");
	} else {
		printf("Total: %llu -> %llu cycles (%+.2f%%)\n\n", (unsigned long long)prof_cycles((uint32_t)L, total[0]),
		       (unsigned long long)prof_cycles((uint32_t)L, total[1]),
		       total[0] ? 100.0 * ((double)total[1] - (double)total[0]) / (double)total[0] : 0.0);
		printf("%14s %14s %14s %8s %12s %12s  %s\n", "Self before", "Self after", "Change", "Change%", "Calls before",
		       "Calls after", "Function [object]");
	}
	for (size_t i = 0; i < n; i++) {
		const struct row *r = &rows[i];
		int64_t d = delta(r);
		double pct = r->self[0] ? 100.0 * (double)d / (double)r->self[0] : 0.0;
		if (json) {
			printf("%s\n  {\"name\": ", i ? "," : "");
			pv_json_str(stdout, r->name);
			printf(", \"object\": ");
			pv_json_str(stdout, r->object);
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
			else
				snprintf(pc, sizeof(pc), "new");
			/* each rounded once; the change too */
			long long dc = (long long)prof_cycles((uint32_t)L, (uint64_t)llabs(d));
			printf("%14llu %14llu %+14lld %8s %12llu %12llu  %s [%s]\n",
			       (unsigned long long)prof_cycles((uint32_t)L, r->self[0]),
			       (unsigned long long)prof_cycles((uint32_t)L, r->self[1]), d < 0 ? -dc : dc, pc, (unsigned long long)r->calls[0],
			       (unsigned long long)r->calls[1], r->name, r->object);
		}
	}
	if (json)
		printf("\n]}\n");
	free(rows);
	pv_close(&p[0], &t[0]);
	pv_close(&p[1], &t[1]);
	return 0;
}
