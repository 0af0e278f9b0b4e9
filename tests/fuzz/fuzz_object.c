/* libFuzzer target: an object file through the whole rewrite (read,
 * analyse, lay out, describe) and back out as ELF. */
#include <stdio.h>
#include <stdlib.h>

#include "instrument.h"
#include "model.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	pi_quiet = true;
	pi_silent = true; /* one line per refused input would drown the log */
	struct object o;
	if (!obj_read(&o, "fuzz.o", data, size)) {
		struct istats st = {0};
		/* a cycle model, so that its analysis of the blocks is fuzzed too,
		 * and the simulations' stubs (the loads' data flow, chase.c); no
		 * set of defined names, as with profinst -c */
		struct rewrite_opts ro = {.model = model_find("zen5"), .branch_sim = true, .cache_sim = true};
		if (!instrument_object(&o, &ro, &st)) {
			struct buf out = {0};
			obj_write_image(&o, &out);
			buf_free(&out);
		}
		model_stats_free(&st.model);
	}
	obj_free(&o);
	return 0;
}
