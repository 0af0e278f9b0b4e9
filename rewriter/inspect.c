/* SPDX-License-Identifier: MIT */
#include "inspect.h"

#include <stdlib.h>
#include <string.h>

#include "cfg.h"
#include "cost.h"
#include "instrument.h"
#include "util.h"

static struct form_seen *form_slot(struct inspect *in, const char *form)
{
	if (2 * (in->nseen + 1) > in->cap) {
		size_t ncap = in->cap ? 2 * in->cap : 1024;
		struct form_seen *n = xcalloc(ncap, sizeof(*n));
		for (size_t i = 0; i < in->cap; i++) {
			if (!in->seen[i].n)
				continue;
			size_t j = str_hash(in->seen[i].form) & (ncap - 1);
			while (n[j].n)
				j = (j + 1) & (ncap - 1);
			n[j] = in->seen[i];
		}
		free(in->seen);
		in->seen = n;
		in->cap = ncap;
	}
	size_t j = str_hash(form) & (in->cap - 1);
	while (in->seen[j].n && strcmp(in->seen[j].form, form))
		j = (j + 1) & (in->cap - 1);
	if (!in->seen[j].n) {
		snprintf(in->seen[j].form, sizeof(in->seen[j].form), "%s", form);
		in->nseen++;
	}
	return &in->seen[j];
}

static void dump_block(struct inspect *in, const struct code *c, const struct block *bl)
{
	const struct text *t = &c->texts[bl->ts];
	const struct section *s = &c->o->secs[t->sec];
	const struct func *f = &c->funcs[bl->fn];
	const struct insn *first = &t->insns[bl->first];
	uint64_t fstart = f->pieces[0].start;
	for (int p = 0; p < f->npieces; p++)
		if (f->pieces[p].ts == bl->ts && first->off >= f->pieces[p].start &&
		    first->off < f->pieces[p].end)
			fstart = f->pieces[p].start;
	fprintf(in->blocks, "%s\t%s+0x%llx\t%u\t%.4g\t", c->o->name, f->name,
		(unsigned long long)(first->off - fstart), bl->n, (double)bl->cost / c->model->units);
	for (uint32_t k = bl->first; k < bl->first + bl->n; k++)
		for (uint8_t b = 0; b < t->insns[k].len; b++)
			fprintf(in->blocks, "%02x", s->data[t->insns[k].off + b]);
	/* and its cost as a measurement of the block alone runs it: without a
	 * final jump, call or return, and with a final jcc not taken (the
	 * model takes a jcc back to an earlier instruction as taken) */
	const struct insn *last = &t->insns[bl->first + bl->n - 1];
	uint32_t body;
	if (bl->n > 1 && (last->kind == INSN_JMP || last->kind == INSN_JMP_IND || last->kind == INSN_CALL ||
			  last->kind == INSN_CALL_IND || last->kind == INSN_RET)) {
		body = c->model->block_cost(c->model, c->descs, &c->dx, s->data, first, bl->n - 1, BLOCK_REPEATED, NULL);
	} else if (last->kind == INSN_JCC && last->target <= last->off) {
		struct insn *v = xmalloc(bl->n * sizeof(*v));
		memcpy(v, first, bl->n * sizeof(*v));
		v[bl->n - 1].target = last->off + last->len; /* falls through */
		body = c->model->block_cost(c->model, c->descs, &c->dx, s->data, v, bl->n, BLOCK_REPEATED, NULL);
		free(v);
	} else {
		body = cost_block(c, bl, BLOCK_REPEATED, NULL);
	}
	fprintf(in->blocks, "\t%.4g\n", (double)body / c->model->units);
}

int inspect_object(struct inspect *in, struct object *o)
{
	if (obj_is_lto(o))
		return 0;
	struct code c;
	struct rewrite_opts ro = {.model = in->model, .mstats = &in->ms};
	if (code_analyse(&c, o, &ro)) {
		code_free(&c);
		return -1;
	}
	for (size_t b = 0; b < c.nblocks; b++) {
		const struct block *bl = &c.blocks[b];
		if (in->blocks)
			dump_block(in, &c, bl);
		if (!in->forms)
			continue;
		const struct text *t = &c.texts[bl->ts];
		const uint8_t *data = c.o->secs[t->sec].data;
		for (uint32_t k = bl->first; k < bl->first + bl->n; k++) {
			const struct insn *ins = &t->insns[k];
			struct form_seen *fs = form_slot(in, code_detail(&c, ins)->form);
			if (!fs->n++) {
				insn_format(&c.dx, data + ins->off, ins->len, 0, fs->example, sizeof(fs->example));
				fs->len = ins->len;
				memcpy(fs->bytes, data + ins->off, ins->len);
			}
		}
	}
	code_free(&c);
	return 0;
}

static int by_count(const void *a, const void *b)
{
	const struct form_seen *x = a, *y = b;
	if (x->n != y->n)
		return x->n < y->n ? 1 : -1;
	return strcmp(x->form, y->form);
}

void inspect_finish(struct inspect *in, FILE *out)
{
	if (in->forms && in->nseen) {
		size_t n = 0;
		for (size_t i = 0; i < in->cap; i++)
			if (in->seen[i].n)
				in->seen[n++] = in->seen[i];
		qsort(in->seen, n, sizeof(*in->seen), by_count);
		for (size_t i = 0; i < n; i++) {
			fprintf(out, "%s\t%llu\t%s\t", in->seen[i].form, (unsigned long long)in->seen[i].n,
				in->seen[i].example);
			for (uint8_t b = 0; b < in->seen[i].len; b++)
				fprintf(out, "%02x", in->seen[i].bytes[b]);
			fputc('\n', out);
		}
	}
	free(in->seen);
	in->seen = NULL;
	in->nseen = in->cap = 0;
}
