/* SPDX-License-Identifier: MIT */
/*
 * profview merge: several profiles of one program (runs, or processes of a
 * fork) into one.  Their objects must be the same; call-site addresses are
 * moved into the first profile's address space (each run may load the
 * program elsewhere).
 */
#include <errno.h>
#include <fcntl.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "safefile.h"
#include "writer.h"

static const char merge_usage[] =
	"Usage: profview merge PROFILE... -o OUTPUT\n"
	"\n"
	"Writes one profile holding every thread of the given profiles, which\n"
	"must come from the same program.\n";

/* Load bias of q relative to p, from the functions both placed. */
static int bias_of(const struct profile *p, const struct profile *q, int64_t *bias)
{
	bool have = false;
	for (uint32_t i = 0; i < q->nrecs; i++) {
		const struct pi_prof_funcrec *r = &q->recs[i];
		const struct prof_gfunc *g = &p->funcs[p->objs[r->obj].first_gfunc + r->func];
		if (!g->rec || !r->npieces || !g->rec->npieces)
			continue;
		int64_t b = (int64_t)(r->addr[0] - g->rec->addr[0]);
		if (have && b != *bias)
			return -1;
		*bias = b;
		have = true;
	}
	if (!have)
		*bias = 0;
	return 0;
}

static bool same_program(const struct profile *p, const struct profile *q)
{
	if (p->nobjs != q->nobjs)
		return false;
	for (uint32_t i = 0; i < p->nobjs; i++)
		if (p->objs[i].map->size != q->objs[i].map->size ||
		    memcmp(p->objs[i].map, q->objs[i].map, p->objs[i].map->size))
			return false;
	return true;
}

int cmd_merge(int argc, char **argv)
{
	const char *out = NULL;
	const char **in = calloc((size_t)argc + 1, sizeof(char *));
	int nin = 0;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(merge_usage, stdout);
			free(in);
			return 0;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = argv[++i];
		} else if (argv[i][0] == '-') {
			pv_error("merge: unknown option %s", argv[i]);
			free(in);
			return 2;
		} else {
			in[nin++] = argv[i];
		}
	}
	if (!nin || !out) {
		fputs(merge_usage, stderr);
		free(in);
		return 2;
	}
	struct profile *ps = calloc((size_t)nin, sizeof(*ps));
	int64_t *bias = calloc((size_t)nin, sizeof(int64_t));
	int rc = 1, loaded = 0;
	for (int i = 0; i < nin; i++, loaded++) {
		if (pv_load(&ps[i], in[i]))
			goto out;
		if (i && !same_program(&ps[0], &ps[i])) {
			pv_error("%s: not a profile of the same program as %s", in[i], in[0]);
			loaded++;
			goto out;
		}
		if (i && ps[i].units != ps[0].units) {
			/* figures in different units (one written by an older runtime) */
			pv_error("%s: its figures are in 1/%u of a cycle, %s's in 1/%u: not merged", in[i], ps[i].units,
				 in[0], ps[0].units);
			loaded++;
			goto out;
		}
		if (i && bias_of(&ps[0], &ps[i], &bias[i])) {
			pv_error("%s: its functions did not move together (not the same executable?)", in[i]);
			loaded++;
			goto out;
		}
	}
	struct pi_out po;
	const char *why;
	if (pi_out_open(&po, out, 0666, &why)) {
		pv_error("%s: cannot write: %s", out, why);
		goto out;
	}
	int fd = po.fd;
	static struct pw w;
	pw_init(&w, fd);
	struct pi_prof_hdr h = *ps[0].hdr;
	h.hdr_size = sizeof(h);
	h.flags = 0;
	h.signal = 0;
	pw_put(&w, &h, sizeof(h));
	for (uint32_t i = 0; i < ps[0].nobjs; i++) {
		const struct pi_map_hdr *m = ps[0].objs[i].map;
		uint32_t hdr[2] = {i, 0};
		pw_rec(&w, PI_REC_OBJECT, 8 + m->size);
		pw_put(&w, hdr, 8);
		pw_put(&w, m, m->size);
		pw_pad(&w, 8 + m->size);
	}
	pw_rec(&w, PI_REC_FUNCREC, (uint64_t)ps[0].nrecs * sizeof(struct pi_prof_funcrec));
	pw_put(&w, ps[0].recs, (uint64_t)ps[0].nrecs * sizeof(struct pi_prof_funcrec));
	uint32_t tindex = 0;
	for (int i = 0; i < nin; i++) {
		const struct profile *p = &ps[i];
		for (uint32_t ti = 0; ti < p->nthreads; ti++) {
			const struct prof_thread *th = &p->threads[ti];
			struct pi_prof_thread t = *th->hdr;
			uint32_t old = t.index;
			t.index = tindex;
			uint64_t size = sizeof(t) + (uint64_t)t.nnodes * sizeof(struct pi_prof_node) +
					(uint64_t)t.nrec * sizeof(struct pi_prof_recedge);
			pw_rec(&w, PI_REC_THREAD, size);
			pw_put(&w, &t, sizeof(t));
			for (uint32_t n = 0; n < t.nnodes; n++) {
				struct pi_prof_node nd = th->nodes[n];
				if (n)
					nd.ret_addr -= (uint64_t)bias[i];
				pw_put(&w, &nd, sizeof(nd));
			}
			for (uint32_t r = 0; r < t.nrec; r++) {
				struct pi_prof_recedge re = th->recs[r];
				re.ret_addr -= (uint64_t)bias[i];
				pw_put(&w, &re, sizeof(re));
			}
			pw_pad(&w, size);
			for (size_t c = 0; c < p->ncounts; c++) {
				const struct pi_prof_rec *r = (const void *)p->counts_recs[c];
				uint32_t hdr[2];
				memcpy(hdr, p->counts_recs[c] + sizeof(*r), 8);
				if (hdr[1] != old)
					continue;
				hdr[1] = tindex;
				pw_rec(&w, r->tag, r->size); /* COUNTS or SIMCOUNTS */
				pw_put(&w, hdr, 8);
				pw_put(&w, p->counts_recs[c] + sizeof(*r) + 8, r->size - 8);
				pw_pad(&w, r->size);
			}
			tindex++;
		}
	}
	/* what the inputs did not record, summed (their thread indices are
	 * gone: UINT32_MAX, the whole) */
	struct pi_prof_loss loss[PI_LOSS_KINDS];
	uint32_t nloss = 0;
	for (uint32_t k = 1; k < PI_LOSS_KINDS; k++) {
		uint64_t sum = 0;
		for (int i = 0; i < nin; i++)
			sum = sum + ps[i].lost[k] < sum ? UINT64_MAX : sum + ps[i].lost[k];
		if (sum)
			loss[nloss++] = (struct pi_prof_loss){.kind = k, .thread = UINT32_MAX, .count = sum};
	}
	if (nloss) {
		pw_rec(&w, PI_REC_LOSS, nloss * sizeof(loss[0]));
		pw_put(&w, loss, nloss * sizeof(loss[0]));
	}
	pw_rec(&w, PI_REC_END, 0);
	int bad = pw_flush(&w);
	if (pi_out_commit(&po, !bad, &why))
		pv_error("%s: cannot write: %s", out, why);
	else
		rc = 0;
out:
	for (int i = 0; i < loaded && i < nin; i++)
		prof_free(&ps[i]);
	free(ps);
	free(bias);
	free(in);
	return rc;
}
