/* SPDX-License-Identifier: MIT */
/*
 * profview export: the profile in the formats other tools read.  Every
 * format is derived from the calling-context trees, so totals agree with
 * the report exactly: the formats of whole numbers hand out whole cycles
 * with prof_round over the nodes, in order, so that their cycles add up to
 * the report's total rounded (each node's off by less than one).
 *   callgrind   KCachegrind / callgrind_annotate (cost: model cycles, by
 *               source line; callgrind.c)
 *   folded      one line per calling context, "a;b;c CYCLES" (flame graphs)
 *   speedscope  speedscope's file format, one sampled profile per thread
 *   chrome      Trace Event Format: each context as a complete event, its
 *               children laid out one after another inside it -- a
 *               call-tree layout, not a timeline, and labelled so
 *   pprof       profile.proto, gzip-compressed (go tool pprof)
 */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "callgrind.h"
#include "common.h"
#include "decode.h"
#include "pprof.h"

static const char export_usage[] =
	"Usage: profview export PROFILE --format=FMT -o FILE\n"
	"\n"
	"Formats: callgrind, folded, speedscope, chrome, pprof (gzip'd profile.proto).\n"
	"Costs are cycles of the profile's model (instructions under profinst\n"
	"--cpu=instructions); -o - writes to standard output.\n";

/* Children lists of one thread's tree. */
struct tree {
	const struct prof_thread *th;
	uint32_t *first, *next;
};

static int tree_init(struct tree *t, const struct prof_thread *th)
{
	uint32_t nn = th->hdr->nnodes;
	t->th = th;
	t->first = malloc(nn * sizeof(uint32_t));
	t->next = malloc(nn * sizeof(uint32_t));
	if (!t->first || !t->next)
		return -1;
	memset(t->first, 0xff, nn * sizeof(uint32_t));
	for (uint32_t n = nn; n-- > 1;) {
		t->next[n] = t->first[th->nodes[n].parent];
		t->first[th->nodes[n].parent] = n;
	}
	return 0;
}

static void tree_free(struct tree *t)
{
	free(t->first);
	free(t->next);
}

static uint32_t node_g(const struct profile *p, const struct prof_thread *th, uint32_t n)
{
	return prof_gfunc(p, th->nodes[n].obj, th->nodes[n].func);
}

/* A name safe for the folded format: no ';', no newline. */
static void folded_name(FILE *o, const char *s)
{
	for (; *s; s++)
		fputc(*s == ';' ? ':' : *s == '\n' ? ' ' : *s, o);
}

static void export_folded(FILE *o, const struct profile *p)
{
	struct prof_round r;
	prof_round_init(&r, p->units);
	for (uint32_t ti = 0; ti < p->nthreads; ti++) {
		const struct prof_thread *th = &p->threads[ti];
		uint32_t *path = malloc(th->hdr->nnodes * sizeof(uint32_t));
		for (uint32_t n = 1; n < th->hdr->nnodes; n++) {
			const struct pi_prof_node *nd = &th->nodes[n];
			uint64_t cycles = prof_round(&r, nd->self);
			if (!cycles)
				continue;
			uint32_t d = 0;
			for (uint32_t k = n; k; k = th->nodes[k].parent)
				path[d++] = k;
			if (p->nthreads > 1)
				fprintf(o, "thread %u;", th->hdr->index);
			while (d--) {
				folded_name(o, pv_name(p, node_g(p, th, path[d])));
				if (d)
					fputc(';', o);
			}
			fprintf(o, " %llu\n", (unsigned long long)cycles);
		}
		free(path);
	}
}

static void export_speedscope(FILE *o, const struct profile *p)
{
	/* frames: every global function that appears */
	uint32_t *frame = malloc((p->nfuncs ? p->nfuncs : 1) * sizeof(uint32_t)), nframes = 0;
	memset(frame, 0xff, (p->nfuncs ? p->nfuncs : 1) * sizeof(uint32_t));
	fprintf(o, "{\"$schema\": \"https://www.speedscope.app/file-format-schema.json\",\n");
	fprintf(o, " \"exporter\": \"profview\", \"name\": ");
	pv_json_str(o, p->hdr->exe);
	fprintf(o, ", \"activeProfileIndex\": 0,\n \"shared\": {\"frames\": [");
	for (uint32_t ti = 0; ti < p->nthreads; ti++) {
		const struct prof_thread *th = &p->threads[ti];
		for (uint32_t n = 1; n < th->hdr->nnodes; n++) {
			uint32_t g = node_g(p, th, n);
			if (frame[g] != UINT32_MAX)
				continue;
			frame[g] = nframes;
			fprintf(o, "%s\n  {\"name\": ", nframes++ ? "," : "");
			pv_json_str(o, pv_name(p, g));
			fprintf(o, ", \"file\": ");
			pv_json_str(o, p->funcs[g].object);
			fputc('}', o);
		}
	}
	fprintf(o, "]},\n \"profiles\": [");
	struct prof_round r;
	prof_round_init(&r, p->units);
	for (uint32_t ti = 0; ti < p->nthreads; ti++) {
		const struct prof_thread *th = &p->threads[ti];
		/* whole cycles, handed out over every thread's nodes in turn */
		uint64_t *w = malloc(th->hdr->nnodes * sizeof(uint64_t)), total = 0;
		if (!w)
			break;
		for (uint32_t n = 1; n < th->hdr->nnodes; n++)
			total += w[n] = prof_round(&r, th->nodes[n].self);
		fprintf(o, "%s\n  {\"type\": \"sampled\", \"name\": \"thread %u (tid %u)\", \"unit\": \"none\", "
			   "\"startValue\": 0, \"endValue\": %llu, \"samples\": [",
			ti ? "," : "", th->hdr->index, th->hdr->tid, (unsigned long long)total);
		uint32_t *path = malloc(th->hdr->nnodes * sizeof(uint32_t));
		bool first = true;
		for (uint32_t n = 1; n < th->hdr->nnodes; n++) {
			if (!w[n])
				continue;
			uint32_t d = 0;
			for (uint32_t k = n; k; k = th->nodes[k].parent)
				path[d++] = k;
			fprintf(o, "%s[", first ? "" : ",");
			first = false;
			for (uint32_t i = d; i-- > 0;)
				fprintf(o, "%u%s", frame[node_g(p, th, path[i])], i ? "," : "");
			fputc(']', o);
		}
		fprintf(o, "], \"weights\": [");
		first = true;
		for (uint32_t n = 1; n < th->hdr->nnodes; n++) {
			if (!w[n])
				continue;
			fprintf(o, "%s%llu", first ? "" : ",", (unsigned long long)w[n]);
			first = false;
		}
		fprintf(o, "]}");
		free(path);
		free(w);
	}
	fprintf(o, "]}\n");
	free(frame);
}

/* Complete events, a child's span inside its parent's: a context lasts
 * its subtree's self, its own time first, then its children one after
 * another.  Laid out exactly (in the profile's unit) and then rounded to
 * whole cycles at both ends, so that spans nest and the last ends at the
 * thread's total. */
struct chrome {
	const struct profile *p;
	const struct tree *t;
	const uint64_t *cum;
	bool first;
};

static void chrome_node(FILE *o, struct chrome *c, uint32_t n, uint64_t at)
{
	const struct profile *p = c->p;
	const struct pi_prof_node *nd = &c->t->th->nodes[n];
	uint64_t ts = prof_cycles(p->units, at), end = prof_cycles(p->units, at + c->cum[n]);
	fprintf(o, "%s\n {\"name\": ", c->first ? "" : ",");
	c->first = false;
	pv_json_str(o, pv_name(p, node_g(p, c->t->th, n)));
	fprintf(o, ", \"cat\": \"function\", \"ph\": \"X\", \"ts\": %llu, \"dur\": %llu, \"pid\": %u, \"tid\": %u, "
		   "\"args\": {\"calls\": %llu, \"self\": ",
		(unsigned long long)ts, (unsigned long long)(end - ts), p->hdr->pid, c->t->th->hdr->tid,
		(unsigned long long)nd->calls);
	pv_json_cycles(o, p->units, nd->self);
	fprintf(o, ", \"incl\": ");
	pv_json_cycles(o, p->units, c->cum[n]);
	fprintf(o, "}}");
	at += nd->self;
	for (uint32_t k = c->t->first[n]; k != UINT32_MAX; k = c->t->next[k]) {
		chrome_node(o, c, k, at);
		at += c->cum[k];
	}
}

/* The profile records no time at which anything ran: the events are
 * the calling-context tree laid out, each context as long as its
 * self+descendants figure.  The file says so where a viewer shows it:
 * in otherData, the process's name and each thread's. */
static int export_chrome(FILE *o, const struct profile *p)
{
	const char *unit = pv_counts_instructions(p) ? "instructions" : "model cycles";
	fprintf(o, "{\"displayTimeUnit\": \"ns\", \"otherData\": {\"unit\": \"%s\", \"layout\": \"call tree: "
		   "each calling context lasts its self+descendants %s, its callees one after another inside it; "
		   "not a timeline (the profile records no timestamps)\"}, \"traceEvents\": [",
		unit, unit);
	fprintf(o, "\n {\"name\": \"process_name\", \"ph\": \"M\", \"pid\": %u, \"args\": {\"name\": ", p->hdr->pid);
	char label[512];
	snprintf(label, sizeof(label), "%s: call-tree layout, not a timeline (%s)", p->hdr->exe, unit);
	pv_json_str(o, label);
	fprintf(o, "}}");
	bool first = false;
	for (uint32_t ti = 0; ti < p->nthreads; ti++) {
		struct tree t = {0};
		uint64_t *cum = malloc(p->threads[ti].hdr->nnodes * sizeof(uint64_t));
		if (!cum || tree_init(&t, &p->threads[ti])) {
			free(cum);
			tree_free(&t);
			return -1;
		}
		fprintf(o, ",\n {\"name\": \"thread_name\", \"ph\": \"M\", \"pid\": %u, \"tid\": %u, \"args\": "
			   "{\"name\": \"thread %u: call tree (no timestamps)\"}}",
			p->hdr->pid, t.th->hdr->tid, t.th->hdr->index);
		prof_subtree(t.th, cum);
		struct chrome c = {p, &t, cum, first};
		uint64_t at = 0;
		for (uint32_t k = t.first[0]; k != UINT32_MAX; k = t.next[k]) {
			chrome_node(o, &c, k, at);
			at += cum[k];
		}
		first = c.first;
		tree_free(&t);
		free(cum);
	}
	fprintf(o, "\n]}\n");
	return 0;
}

static int write_format(FILE *o, const struct profile *p, const struct func_table *t, int f)
{
	struct x86_decoder dx; /* for the line-level formats: the code's instructions */
	x86_decoder_init(&dx);
	switch (f) {
	case 0: return callgrind_write(o, p, &dx, t);
	case 1: export_folded(o, p); return 0;
	case 2: export_speedscope(o, p); return 0;
	case 3: return export_chrome(o, p);
	default: return pprof_write(o, p, &dx, t);
	}
}

int cmd_export(int argc, char **argv)
{
	const char *path = NULL, *format = NULL, *out = NULL;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(export_usage, stdout);
			return 0;
		} else if (!strncmp(argv[i], "--format=", 9)) {
			format = argv[i] + 9;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (pv_positional("export", argv[i], &path)) {
			return 2;
		}
	}
	if (!path || !format || !out) {
		fputs(export_usage, stderr);
		return 2;
	}
	static const char *formats[] = {"callgrind", "folded", "speedscope", "chrome", "pprof"};
	int f = -1;
	for (int i = 0; i < 5; i++)
		if (!strcmp(format, formats[i]))
			f = i;
	if (f < 0) {
		pv_error("unknown export format '%s' (callgrind, folded, speedscope, chrome, pprof)", format);
		return 2;
	}
	return pv_write(path, out, write_format, f);
}
