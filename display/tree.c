/* SPDX-License-Identifier: MIT */
/* profview tree: each thread's calling-context tree (Level, RL, Calls, Base, Cum). */
#include <stdlib.h>
#include <string.h>

#include "common.h"
#include "decode.h"

static const char tree_usage[] =
	"Usage: profview tree PROFILE [--prune=PCT] [--thread=N]\n"
	"\n"
	"The calling-context tree of each thread: Level (depth), RL (recursion\n"
	"level: 1 for a call to a function already running on the path, whose\n"
	"time is inside that activation), Calls, Base (self cycles), Cum\n"
	"(self+descendants cycles: Base plus the Cum of the rows under it), and\n"
	"the function, indented, with the call site it was called from.\n"
	"\n"
	"  --prune=PCT   hide subtrees whose Cum is under PCT%% of their parent's\n"
	"  --thread=N    only thread N (its index in the profile)\n";

struct kids {
	uint32_t *first, *next; /* child lists over node indices */
	uint32_t *rfirst, *rnext; /* recursive edges, by caller node */
	uint64_t *cum;          /* each node's subtree's self */
};

static void print_node(const struct profile *p, const struct x86_decoder *dx, const struct prof_thread *th,
		       const struct kids *k, uint32_t n, int level, double prune)
{
	const struct pi_prof_node *nd = &th->nodes[n];
	char site[512];
	uint32_t g = prof_gfunc(p, nd->obj, nd->func);
	printf("%5d %3d %12llu %14llu %14llu  %*s%s  [%s]\n", level, 0, (unsigned long long)(nd->calls - nd->rec_calls),
	       pv_cyc(p, nd->self), pv_cyc(p, k->cum[n]), 2 * (level - 1), "", pv_name(p, g),
	       pv_node_label(p, dx, th, n, site, sizeof(site)));
	for (uint32_t r = k->rfirst[n]; r != UINT32_MAX; r = k->rnext[r]) {
		const struct pi_prof_recedge *re = &th->recs[r];
		const struct pi_prof_node *tn = &th->nodes[re->node];
		printf("%5d %3d %12llu %14s %14s  %*s%s  [%s]\n", level + 1, 1, (unsigned long long)re->calls, "-",
		       "-", 2 * level, "", pv_name(p, prof_gfunc(p, tn->obj, tn->func)),
		       pv_call_label(p, dx, re->ret_addr, prof_gfunc(p, tn->obj, tn->func), g, &nd->ret_addr, site,
				     sizeof(site)));
	}
	for (uint32_t c = k->first[n]; c != UINT32_MAX; c = k->next[c]) {
		if (prune > 0 && (double)k->cum[c] * 100.0 < prune * (double)k->cum[n])
			continue;
		print_node(p, dx, th, k, c, level + 1, prune);
	}
}

int cmd_tree(int argc, char **argv)
{
	const char *path = NULL;
	double prune = 0;
	long only = -1;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(tree_usage, stdout);
			return 0;
		} else if (!strncmp(argv[i], "--prune=", 8)) {
			char *end;
			prune = strtod(argv[i] + 8, &end);
			if (*end || prune < 0 || prune > 100) {
				pv_error("--prune wants a percentage between 0 and 100");
				return 2;
			}
		} else if (!strncmp(argv[i], "--thread=", 9)) {
			only = atol(argv[i] + 9);
		} else if (pv_positional("tree", argv[i], &path)) {
			return 2;
		}
	}
	if (!path) {
		fputs(tree_usage, stderr);
		return 2;
	}
	struct profile p;
	if (pv_load(&p, path))
		return 1;
	struct x86_decoder dx; /* the call sites' instructions */
	x86_decoder_init(&dx);
	for (uint32_t ti = 0; ti < p.nthreads; ti++) {
		const struct prof_thread *th = &p.threads[ti];
		if (only >= 0 && th->hdr->index != (uint32_t)only)
			continue;
		uint32_t nn = th->hdr->nnodes, nr = th->hdr->nrec;
		struct kids k = {
			malloc(nn * sizeof(uint32_t)), malloc(nn * sizeof(uint32_t)),
			malloc(nn * sizeof(uint32_t)), malloc((nr ? nr : 1) * sizeof(uint32_t)),
			malloc(nn * sizeof(uint64_t)),
		};
		if (!k.first || !k.next || !k.rfirst || !k.rnext || !k.cum) {
			pv_error("out of memory");
			return 1;
		}
		memset(k.first, 0xff, nn * sizeof(uint32_t));
		memset(k.rfirst, 0xff, nn * sizeof(uint32_t));
		/* children in preorder: link from the end to keep the order */
		for (uint32_t n = nn; n-- > 1;) {
			uint32_t par = th->nodes[n].parent;
			k.next[n] = k.first[par];
			k.first[par] = n;
		}
		for (uint32_t r = nr; r-- > 0;) {
			uint32_t cn = th->recs[r].caller_node;
			k.rnext[r] = k.rfirst[cn];
			k.rfirst[cn] = r;
		}
		prof_subtree(th, k.cum);
		printf("Thread %u (tid %u): %llu %s\n", th->hdr->index, th->hdr->tid, pv_cyc(&p, k.cum[0]), pv_unit(&p));
		printf("%5s %3s %12s %14s %14s  %s\n", "Level", "RL", "Calls", "Base", "Cum", "Name  [call site]");
		for (uint32_t c = k.first[0]; c != UINT32_MAX; c = k.next[c])
			print_node(&p, &dx, th, &k, c, 1, prune);
		putchar('\n');
		free(k.first), free(k.next), free(k.rfirst), free(k.rnext), free(k.cum);
	}
	prof_free(&p);
	return 0;
}
