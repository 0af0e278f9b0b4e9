/* SPDX-License-Identifier: MIT */
/* profview report: the function list. */
#include <regex.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>

#include "common.h"

static const char report_usage[] =
	"Usage: profview report PROFILE [--sort=COL] [--filter=REGEX] [--format=text|json|csv] [--threads]\n"
	"\n"
	"The function list: calls, self cycles and their share of the total,\n"
	"self+descendants cycles and share, min and max self cycles per call,\n"
	"name and object. Only functions that ran are listed. A profile of\n"
	"profinst --cpu=instructions counts instructions instead of cycles; one\n"
	"counted (profinst's default; not --timed) has no min and max (\"-\",\n"
	"JSON null).\n"
	"\n"
	"  --sort=COL      self (default), incl, calls, min, max, name, object, os\n"
	"  --filter=REGEX  only functions whose name matches (POSIX extended)\n"
	"  --format=FMT    text (default), json or csv\n"
	"  --threads       per-thread totals instead of the function list\n";

enum sort_col { S_SELF, S_INCL, S_CALLS, S_MIN, S_MAX, S_NAME, S_OBJECT, S_OS };

struct sort_ctx {
	const struct profile *p;
	const struct func_table *t;
	enum sort_col col;
} sctx;

static int cmp_u64(uint64_t a, uint64_t b)
{
	return a > b ? -1 : a < b;
}

static int cmp_rows(const void *x, const void *y)
{
	const struct func_view *a = &sctx.t->f[*(const uint32_t *)x];
	const struct func_view *b = &sctx.t->f[*(const uint32_t *)y];
	int c = 0;
	switch (sctx.col) {
	case S_SELF: c = cmp_u64(a->self, b->self); break;
	case S_INCL: c = cmp_u64(a->incl, b->incl); break;
	case S_CALLS: c = cmp_u64(a->calls, b->calls); break;
	case S_MIN: c = cmp_u64(a->min_self, b->min_self); break;
	case S_OS: c = cmp_u64(a->os, b->os); break;
	case S_MAX: c = cmp_u64(a->max_self, b->max_self); break;
	case S_NAME: c = strcmp(sctx.p->funcs[a->g].name, sctx.p->funcs[b->g].name); break;
	case S_OBJECT: c = strcmp(sctx.p->funcs[a->g].object, sctx.p->funcs[b->g].object); break;
	}
	if (!c)
		c = cmp_u64(a->self, b->self);
	if (!c)
		c = strcmp(sctx.p->funcs[a->g].name, sctx.p->funcs[b->g].name);
	return c ? c : (a->g > b->g) - (a->g < b->g);
}

/* ", \"name\": exact cycles" */
static void jc(FILE *o, const struct func_table *t, const char *name, uint64_t u)
{
	fprintf(o, ", \"%s\": ", name);
	pv_json_cycles(o, t->units, u);
}

/* the same, or null for a figure the profile does not hold */
static void jc_opt(FILE *o, const struct func_table *t, const char *name, bool have, uint64_t u)
{
	if (have)
		jc(o, t, name, u);
	else
		fprintf(o, ", \"%s\": null", name);
}

/* MinSelf or MaxSelf as the text prints it: "-" where the profile holds none */
static const char *minmax_text(const struct profile *p, uint64_t u, char *buf, size_t n)
{
	if (!pv_has_minmax(p))
		return "-";
	snprintf(buf, n, "%llu", pv_cyc(p, u));
	return buf;
}

static void print_json(const struct profile *p, const struct func_table *t, const uint32_t *rows, uint32_t n)
{
	FILE *o = stdout;
	/* exact: every *_cycles figure adds up (units: their denominator);
	 * they hold the profile's unit (instructions under
	 * --cpu=instructions): "unit" says which */
	fprintf(o, "{\n  \"cycle_units\": %u,\n  \"unit\": \"%s\"", t->units, pv_unit(p));
	jc(o, t, "total_cycles", t->total_self);
	/* os: measured, not modelled, and charged; os_left (wait_cycles):
	 * measured and left out, time spent blocked */
	jc(o, t, "os_cycles", t->total_os);
	jc(o, t, "os_left_cycles", t->total_os_left);
	jc(o, t, "wait_cycles", t->total_os_left);
	fprintf(o, ",\n  \"os_charged\": %s,\n  \"tsc_per_kcycle\": %llu,\n", prof_charges_os(p) ? "true" : "false",
		(unsigned long long)p->hdr->tsc_per_kcycle);
	fprintf(o, "  \"pid\": %u,\n  \"exe\": ", p->hdr->pid);
	pv_json_str(o, p->hdr->exe);
	/* the process images: a merge's every input's */
	fprintf(o, ",\n  \"processes\": [");
	for (uint32_t i = 0; i < p->nprocs; i++) {
		const struct pi_prof_process *pr = &p->procs[i];
		fprintf(o, "%s{\"pid\": %u, \"ppid\": %u, \"lineage\": ", i ? ", " : "", pr->pid, pr->ppid);
		pv_json_str(o, pr->lineage);
		fprintf(o, ", \"exec_gen\": %u, \"fork_gen\": %u, \"exe\": ", pr->exec_gen, pr->fork_gen);
		pv_json_str(o, pr->exe);
		fputc('}', o);
	}
	fputc(']', o);
	fprintf(o, ",\n  \"cpu\": ");
	pv_json_str(o, p->nobjs ? prof_str(&p->objs[0], p->objs[0].map->cpu) : "");
	fprintf(o, ",\n  \"branch_sim\": %s", prof_branch_sim(p) ? "true" : "false");
	fprintf(o, ",\n  \"cache_sim\": %s", prof_cache_sim(p) ? "true" : "false");
	fprintf(o, ",\n  \"page_faults\": %llu", (unsigned long long)t->total_faults);
	pv_json_losses(o, p);
	const struct pi_prof_process *pr = prof_process(p);
	if (pr) {
		fprintf(o, ",\n  \"process\": {\"pid\": %u, \"ppid\": %u, \"start_time\": %llu, \"exec_gen\": %u, "
			   "\"fork_gen\": %u, \"lineage\": ",
			pr->pid, pr->ppid, (unsigned long long)pr->start_time, pr->exec_gen, pr->fork_gen);
		pv_json_str(o, pr->lineage);
		fprintf(o, "}");
	}
	fprintf(o, ",\n  \"threads\": %u,\n  \"ended_by_signal\": %u,\n  \"functions\": [", p->nthreads,
		(p->hdr->flags & PI_PROF_ENDED_BY_SIGNAL) ? p->hdr->signal : 0);
	for (uint32_t i = 0; i < n; i++) {
		const struct func_view *v = &t->f[rows[i]];
		fprintf(o, "%s\n    {\"name\": ", i ? "," : "");
		pv_json_str(o, pv_name(p, v->g));
		fprintf(o, ", \"symbol\": ");
		pv_json_str(o, p->funcs[v->g].name);
		fprintf(o, ", \"object\": ");
		pv_json_str(o, p->funcs[v->g].object);
		fprintf(o, ", \"calls\": %llu", (unsigned long long)v->calls);
		jc(o, t, "self_cycles", v->self);
		jc(o, t, "incl_cycles", v->incl);
		/* null: a counted profile's (profinst's default) per-call min and
		 * max are not known */
		jc_opt(o, t, "min_self_cycles", pv_has_minmax(p), v->min_self);
		jc_opt(o, t, "max_self_cycles", pv_has_minmax(p), v->max_self);
		jc(o, t, "block_cycles", v->block_cycles);
		jc(o, t, "os_cycles", v->os);
		jc(o, t, "os_left_cycles", v->os_left);
		jc(o, t, "wait_cycles", v->os_left);
		fprintf(o, ", \"measured\": %s, \"page_faults\": %llu, \"mispredicts\": %llu",
			v->os || v->os_left ? "true" : "false", (unsigned long long)v->faults,
			(unsigned long long)v->mispredicts);
		jc(o, t, "mispredict_cycles", v->mispredict_cycles);
		jc(o, t, "mem_wait_cycles", v->mem_wait_cycles);
		fprintf(o, ", \"external\": %s, \"callers\": [", p->funcs[v->g].external ? "true" : "false");
		for (uint32_t c = 0; c < v->ncallers; c++) {
			const struct arc *cr = &v->callers[c];
			fprintf(o, "%s{\"name\": ", c ? ", " : "");
			pv_json_str(o, cr->other == UINT32_MAX ? "<root>" : pv_name(p, cr->other));
			/* a recursive call's time is in the activation it recursed into */
			fprintf(o, ", \"calls\": %llu, \"recursive_calls\": %llu", (unsigned long long)cr->calls,
				(unsigned long long)cr->rec_calls);
			jc(o, t, "incl_cycles", cr->incl);
			fputc('}', o);
		}
		fprintf(o, "]}");
	}
	fprintf(o, "\n  ]\n}\n");
}

static void csv_str(const char *s)
{
	putchar('"');
	for (; *s; s++) {
		if (*s == '"')
			putchar('"');
		putchar(*s);
	}
	putchar('"');
}

static void print_csv(const struct profile *p, const struct func_table *t, const uint32_t *rows, uint32_t n)
{
	puts("name,symbol,object,calls,self_cycles,self_pct,incl_cycles,incl_pct,min_self_cycles,max_self_cycles,"
	     "os_cycles");
	for (uint32_t i = 0; i < n; i++) {
		const struct func_view *v = &t->f[rows[i]];
		csv_str(pv_name(p, v->g));
		putchar(',');
		csv_str(p->funcs[v->g].name);
		putchar(',');
		csv_str(p->funcs[v->g].object);
		/* exact, as the JSON */
		printf(",%llu,", (unsigned long long)v->calls);
		pv_json_cycles(stdout, t->units, v->self);
		printf(",%.4f,", pv_pct(v->self, t->total_self));
		pv_json_cycles(stdout, t->units, v->incl);
		printf(",%.4f,", pv_pct(v->incl, t->total_self));
		/* empty where not known (a counted profile) */
		if (pv_has_minmax(p))
			pv_json_cycles(stdout, t->units, v->min_self);
		putchar(',');
		if (pv_has_minmax(p))
			pv_json_cycles(stdout, t->units, v->max_self);
		putchar(',');
		pv_json_cycles(stdout, t->units, v->os);
		putchar('\n');
	}
}

static void print_text(const struct profile *p, const struct func_table *t, const uint32_t *rows, uint32_t n)
{
	bool bsim = prof_branch_sim(p), csim = prof_cache_sim(p);
	if (p->nprocs > 1)
		printf("Profile of %u processes", p->nprocs); /* a merge: listed below */
	else
		printf("Profile of %s (pid %u)", p->hdr->exe, p->hdr->pid);
	printf(", %u thread%s, model %s%s%s%s\n", p->nthreads,
	       p->nthreads == 1 ? "" : "s", p->nobjs ? prof_str(&p->objs[0], p->objs[0].map->cpu) : "?",
	       bsim || csim ? " with " : "", bsim ? "branch prediction" : "",
	       bsim && csim ? " and data caches simulated" : csim ? "data caches simulated" : bsim ? " simulated" : "");
	/* a merge's inputs, one a line */
	for (uint32_t i = 0; p->nprocs > 1 && i < p->nprocs; i++)
		printf("  pid %u (%s): %s\n", p->procs[i].pid, p->procs[i].lineage, p->procs[i].exe);
	/* where the image stands in its process's lineage, when it is not
	 * simply the process's first */
	const struct pi_prof_process *pr = p->nprocs == 1 ? prof_process(p) : NULL;
	if (pr && (pr->exec_gen || pr->fork_gen)) {
		printf("Process: pid %u, image %u of its process (%s), parent %u", pr->pid, pr->exec_gen + 1,
		       pr->exec_gen ? "exec'd" : "its first", pr->ppid);
		if (pr->fork_gen)
			printf(", forked (generation %u)", pr->fork_gen);
		printf("\n");
	}
	if (p->hdr->flags & PI_PROF_ENDED_BY_SIGNAL)
		printf("The program ended on signal %u (%s)\n", p->hdr->signal, strsignal((int)p->hdr->signal));
	pv_print_losses(stdout, p, "");
	printf("Total: %llu %s\n", pv_cyc(p, t->total_self), pv_unit(p));
	/* Under a cycle model, the time of external code the model does not
	 * cost and of system calls is measured (the OS column: the part of
	 * Self measured, not modelled; all of an external's); waits are
	 * measured and left out (the Wait column).  Under the instructions
	 * model nothing measured is charged, so nothing that varies from run
	 * to run is printed. */
	bool os = prof_charges_os(p), wait = os && t->total_os_left;
	if (os) {
		printf("Of which in external code and system calls: %llu cycles (%.1f%%), measured, not modelled\n",
		       pv_cyc(p, t->total_os), pv_pct(t->total_os, t->total_self));
		if (t->total_os_left)
			printf("Left out: %llu cycles waited, blocked (locks, conditions, barriers, pipe, socket "
			       "and terminal reads, sleeps, polls, child processes and threads; the Wait column; "
			       "profinst --charge-waits charges them)\n",
			       pv_cyc(p, t->total_os_left));
	}
	if (t->total_faults)
		printf("Page faults: %llu, charged in the cycles of the functions that took them "
		       "(profview detail)\n", (unsigned long long)t->total_faults);
	/* what a cycle model's blocks leave out, unless simulated: a reader
	 * comparing with a sampling profiler should know */
	if (os && !(bsim && csim))
		printf("Not in the cycles: %s%s%s%s\n", bsim ? "" : "mispredicted branches (profinst --branch-sim)",
		       bsim || csim ? "" : ", ", csim ? "" : "cache misses (profinst --cache-sim)",
		       prof_counted(p) ? ", call and return bubbles, page faults (profinst --timed)" : "");
	if (prof_counted(p))
		printf("Counted per calling context: %s are the blocks' counts times the model's costs; "
		       "no per-call minimum and maximum (MinSelf, MaxSelf: -; profinst --timed keeps them)\n",
		       pv_unit(p));
	putchar('\n');
	printf("%12s %14s %6s %14s %6s %10s %10s ", "Calls", "Self", "Self%", "Incl", "Incl%", "MinSelf", "MaxSelf");
	if (os)
		printf("%12s ", "OS");
	if (wait)
		printf("%12s ", "Wait");
	printf(" %s\n", "Function [object]");
	/* the nominal root: the whole program, every thread */
	printf("%12s %14s %6s %14llu %5.1f%% %10s %10s ", "", "", "", pv_cyc(p, t->total_self), 100.0, "", "");
	if (os)
		printf("%12llu ", pv_cyc(p, t->total_os));
	if (wait)
		printf("%12llu ", pv_cyc(p, t->total_os_left));
	printf(" %s\n", "<Total>");
	for (uint32_t i = 0; i < n; i++) {
		const struct func_view *v = &t->f[rows[i]];
		char lo[24], hi[24];
		printf("%12llu %14llu %5.1f%% %14llu %5.1f%% %10s %10s ", (unsigned long long)v->calls,
		       pv_cyc(p, v->self), pv_pct(v->self, t->total_self), pv_cyc(p, v->incl), pv_pct(v->incl, t->total_self),
		       minmax_text(p, v->min_self, lo, sizeof(lo)), minmax_text(p, v->max_self, hi, sizeof(hi)));
		if (os)
			printf("%12llu ", pv_cyc(p, v->os));
		if (wait)
			printf("%12llu ", pv_cyc(p, v->os_left));
		if (p->funcs[v->g].external)
			printf(" %s\n", pv_name(p, v->g));
		else
			printf(" %s [%s]\n", pv_name(p, v->g), p->funcs[v->g].object);
	}
}

/* Per thread: its calls, cycles and share, and where its time went most. */
static void print_threads(const struct profile *p, const struct func_table *t, bool json)
{
	if (json) {
		printf("{\"cycle_units\": %u, \"unit\": \"%s\", \"total_cycles\": ", t->units, pv_unit(p));
		pv_json_cycles(stdout, t->units, t->total_self);
		printf(", \"threads\": [");
	} else {
		printf("%6s %8s %14s %14s %6s  %s\n", "Thread", "Tid", "Calls",
		       pv_counts_instructions(p) ? "Instructions" : "Cycles", "Share", "Top function");
	}
	for (uint32_t i = 0; i < p->nthreads; i++) {
		const struct prof_thread *th = &p->threads[i];
		uint64_t cycles = t->thread_self[i], calls = 0, best = 0;
		uint32_t top = UINT32_MAX;
		for (uint32_t n = 1; n < th->hdr->nnodes; n++) {
			const struct pi_prof_node *nd = &th->nodes[n];
			calls += nd->calls;
			if (nd->self > best) {
				best = nd->self;
				top = prof_gfunc(p, nd->obj, nd->func);
			}
		}
		if (json) {
			printf("%s\n  {\"index\": %u, \"tid\": %u, \"calls\": %llu, \"cycles\": ", i ? "," : "",
			       th->hdr->index, th->hdr->tid, (unsigned long long)calls);
			pv_json_cycles(stdout, t->units, cycles);
			printf(", \"top\": ");
			pv_json_str(stdout, top == UINT32_MAX ? "" : pv_name(p, top));
			putchar('}');
		} else {
			printf("%6u %8u %14llu %14llu %5.1f%%  %s\n", th->hdr->index, th->hdr->tid, (unsigned long long)calls,
			       pv_cyc(p, cycles), pv_pct(cycles, t->total_self), top == UINT32_MAX ? "" : pv_name(p, top));
		}
	}
	if (json)
		printf("\n]}\n");
}

int cmd_report(int argc, char **argv)
{
	const char *path = NULL, *filter = NULL, *format = "text";
	bool threads = false;
	enum sort_col col = S_SELF;
	for (int i = 0; i < argc; i++) {
		const char *a = argv[i];
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
			fputs(report_usage, stdout);
			return 0;
		} else if (!strncmp(a, "--sort=", 7)) {
			static const char *names[] = {"self", "incl", "calls", "min", "max", "name", "object", "os"};
			int k = -1;
			for (int j = 0; j < 8; j++)
				if (!strcmp(a + 7, names[j]))
					k = j;
			if (k < 0) {
				pv_error("unknown sort column '%s' (self, incl, calls, min, max, name, object, os)", a + 7);
				return 2;
			}
			col = (enum sort_col)k;
		} else if (!strcmp(a, "--threads")) {
			threads = true;
		} else if (!strncmp(a, "--filter=", 9)) {
			filter = a + 9;
		} else if (!strncmp(a, "--format=", 9)) {
			if (pv_format(a + 9, "text,json,csv", &format))
				return 2;
		} else if (pv_positional("report", a, &path)) {
			return 2;
		}
	}
	if (!path) {
		fputs(report_usage, stderr);
		return 2;
	}
	regex_t re;
	if (filter && regcomp(&re, filter, REG_EXTENDED | REG_NOSUB)) {
		pv_error("bad --filter regular expression '%s'", filter);
		return 2;
	}
	struct profile p;
	struct func_table t;
	if (pv_open(&p, &t, path)) {
		if (filter)
			regfree(&re);
		return 1;
	}
	if (threads) {
		print_threads(&p, &t, !strcmp(format, "json"));
		pv_close(&p, &t);
		if (filter)
			regfree(&re);
		return 0;
	}
	uint32_t *rows = malloc((t.n ? t.n : 1) * sizeof(uint32_t));
	uint32_t n = 0;
	for (uint32_t g = 0; g < t.n; g++) {
		if (!t.f[g].calls && !t.f[g].self)
			continue;
		if (filter && regexec(&re, pv_name(&p, g), 0, NULL, 0))
			continue;
		rows[n++] = g;
	}
	sctx = (struct sort_ctx){&p, &t, col};
	qsort(rows, n, sizeof(*rows), cmp_rows);
	if (!strcmp(format, "json"))
		print_json(&p, &t, rows, n);
	else if (!strcmp(format, "csv"))
		print_csv(&p, &t, rows, n);
	else
		print_text(&p, &t, rows, n);
	free(rows);
	pv_close(&p, &t);
	if (filter)
		regfree(&re);
	return 0;
}
