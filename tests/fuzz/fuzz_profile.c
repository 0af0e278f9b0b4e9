/* libFuzzer target: the profile reader, and the views built on what it
 * accepts. */
#include "reader.h"
#include "views.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	struct profile p;
	char err[256];
	if (!prof_parse(&p, data, size, err, sizeof(err))) {
		struct func_table t;
		if (!func_table_build(&t, &p)) {
			struct cycle_table ct;
			if (!cycles_build(&ct, &p, &t))
				cycles_free(&ct);
			func_table_free(&t);
		}
		/* the line tables, as annotate and the exports look them up */
		for (uint32_t i = 0; i < p.nobjs; i++)
			for (uint32_t b = 0; b < p.objs[i].map->nblocks && b < 256; b++)
				prof_line(&p.objs[i], p.objs[i].blocks[b].section, p.objs[i].blocks[b].offset);
		uint32_t g;
		const struct pi_map_site *s;
		for (uint32_t i = 0; i < p.nthreads; i++)
			for (uint32_t n = 1; n < p.threads[i].hdr->nnodes && n < 64; n++)
				prof_find_site(&p, p.threads[i].nodes[n].ret_addr, &g, &s);
	}
	prof_free(&p);
	return 0;
}
