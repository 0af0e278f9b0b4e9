/* SPDX-License-Identifier: MIT */
#include "instrument.h"

#include "cfg.h"
#include "layout.h"
#include "meta.h"

int instrument_object(struct object *o, const struct rewrite_opts *opts, struct istats *st)
{
	const char *what;
	if (obj_is_instrumented(o, &what)) {
		/* its stubs would be counted as code, its functions twice */
		pi_error("%s: already instrumented by profinst (it has %s); give the original object",
			 o->name, what);
		return -1;
	}
	if (obj_is_lto(o)) {
		pi_error("%s: LTO object holds no machine code (build without -flto, or with -ffat-lto-objects)",
			 o->name);
		return -1;
	}
	if (obj_drop_lto(o))
		return -1;
	struct code c;
	struct rewrite_opts ro = *opts;
	ro.mstats = st ? &st->model : NULL;
	if (code_analyse(&c, o, &ro)) {
		code_free(&c);
		return -1;
	}
	if (!c.nfuncs) {
		/* data only, or code without symbols: nothing to count */
		code_free(&c);
		return 0;
	}
	meta_prepare(&c);
	int rc = layout_object(&c);
	if (!rc)
		meta_finish(&c);
	if (st) {
		st->objects++;
		st->functions += c.nfuncs;
		st->blocks += c.nblocks;
		for (size_t i = 0; i < c.nfuncs; i++) {
			st->insns += c.funcs[i].ninsns;
			st->uninstrumented += !c.funcs[i].instrument;
		}
		st->externals += c.nexts;
	}
	code_free(&c);
	return rc;
}
