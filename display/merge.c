/* SPDX-License-Identifier: MIT */
/*
 * profview merge: several profiles into one: runs of one program, the
 * processes of a fork, or a whole process lineage (the images a process
 * exec'd, profinst.out.PID, profinst.out.PID.x1, ...).
 *
 * Profiles of one program share its objects: call-site addresses are
 * moved into the first such profile's address space (each run may load
 * the program elsewhere).  A profile of another program of the lineage
 * keeps its own objects, and its addresses move to a range of their own
 * (the k-th program's by k << 48, above any user address), so that no
 * return address of one image names a call site of another.
 *
 * The output lists every input's process images (PROCESS records, or
 * what its header says of a profile written before them), and a profile
 * given twice -- the same file, or the same process image -- is refused:
 * its figures would count twice.
 */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "common.h"
#include "safefile.h"
#include "writer.h"

static const char merge_usage[] =
	"Usage: profview merge PROFILE... -o OUTPUT\n"
	"\n"
	"Writes one profile holding every thread of the given profiles: runs of\n"
	"one program, or the process images of one lineage (profinst.out.PID,\n"
	"profinst.out.PID.x1, ...: a program and those it exec'd), each image\n"
	"keeping its own objects. The output lists every input's processes; a\n"
	"profile given twice is refused.\n";

static const char pack_usage[] =
	"Usage: profview pack PROFILE -o OUTPUT\n"
	"\n"
	"Writes a copy of PROFILE that holds its objects' maps (function names,\n"
	"blocks, call sites, line tables, code). A program writes its profile\n"
	"without them, naming its executable (and its build id) instead, where\n"
	"profview reads them; a packed profile is read without the executable,\n"
	"on another machine or after a rebuild. (PROFINST_SELF_CONTAINED=1 in\n"
	"the program's environment writes such profiles directly.)\n";

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

struct input {
	const char *path;
	struct profile p;
	uint32_t group;    /* the first input of the same program */
	uint32_t obj_base; /* its objects' first index in the output */
	int64_t bias;      /* its addresses less this are its group's first's */
	uint64_t shift;    /* then plus this: its program's range in the output */
	struct pi_prof_process *procs;
	uint32_t nprocs;
};

/* Its process images: its PROCESS records, or one from its header. */
static int input_procs(struct input *in)
{
	const struct profile *p = &in->p;
	in->nprocs = p->nprocs ? p->nprocs : 1;
	in->procs = calloc(in->nprocs, sizeof(*in->procs));
	if (!in->procs)
		return -1;
	if (p->nprocs) {
		memcpy(in->procs, p->procs, p->nprocs * sizeof(*in->procs));
		return 0;
	}
	struct pi_prof_process *pr = in->procs;
	pr->pid = p->hdr->pid;
	pr->flags = p->hdr->flags;
	snprintf(pr->lineage, sizeof(pr->lineage), "%u", p->hdr->pid);
	memcpy(pr->exe, p->hdr->exe, sizeof(pr->exe));
	pr->exe[sizeof(pr->exe) - 1] = 0;
	return 0;
}

/* The same process image: its pid, start, exec generation and executable
 * (a start of 0 is not known: then nothing says two are the same). */
static bool same_image(const struct pi_prof_process *a, const struct pi_prof_process *b)
{
	return a->start_time && a->pid == b->pid && a->start_time == b->start_time && a->exec_gen == b->exec_gen &&
	       a->fork_gen == b->fork_gen && !strcmp(a->exe, b->exe);
}

/* The same thread's record (its tid, final clock and every node's
 * figures; not its addresses, which a merge moves). */
static bool same_thread(const struct prof_thread *a, const struct prof_thread *b)
{
	if (a->hdr->tid != b->hdr->tid || a->hdr->clock != b->hdr->clock || a->hdr->nnodes != b->hdr->nnodes ||
	    a->hdr->nrec != b->hdr->nrec)
		return false;
	for (uint32_t n = 0; n < a->hdr->nnodes; n++) {
		const struct pi_prof_node *x = &a->nodes[n], *y = &b->nodes[n];
		if (x->parent != y->parent || x->func != y->func || x->calls != y->calls || x->self != y->self ||
		    x->incl != y->incl)
			return false;
	}
	return true;
}

/* Does one of a's process images appear in b?  The same image by its
 * start; where a start is not known (a profile written before PROCESS
 * records), the same pid and executable and one thread recorded alike. */
static bool shares_image(const struct input *a, const struct input *b)
{
	bool maybe = false;
	for (uint32_t i = 0; i < a->nprocs; i++)
		for (uint32_t j = 0; j < b->nprocs; j++) {
			const struct pi_prof_process *x = &a->procs[i], *y = &b->procs[j];
			if (same_image(x, y))
				return true;
			if ((!x->start_time || !y->start_time) && x->pid == y->pid && !strcmp(x->exe, y->exe))
				maybe = true;
		}
	for (uint32_t i = 0; maybe && i < a->p.nthreads; i++)
		for (uint32_t j = 0; j < b->p.nthreads; j++)
			if (same_thread(&a->p.threads[i], &b->p.threads[j]))
				return true;
	return false;
}

/* The pid a lineage starts from: its name up to the first '.'. */
static uint64_t lineage_root(const struct pi_prof_process *pr)
{
	return strtoull(pr->lineage, NULL, 10);
}

/* Is input b of the lineage of input a (every image of b's starts from
 * a pid an image of a's starts from)? */
static bool same_lineage(const struct input *a, const struct input *b)
{
	for (uint32_t j = 0; j < b->nprocs; j++) {
		bool found = false;
		for (uint32_t i = 0; i < a->nprocs && !found; i++)
			found = lineage_root(&a->procs[i]) == lineage_root(&b->procs[j]);
		if (!found)
			return false;
	}
	return true;
}

/* Checks input i against those before it and places it: 0, or 1 after
 * a message. */
static int place(struct input *in, int i, uint32_t *nobjs, uint32_t *ngroups)
{
	struct input *x = &in[i];
	for (int j = 0; j < i; j++) {
		const struct input *y = &in[j];
		bool dup = (x->p.size == y->p.size && !memcmp(x->p.data, y->p.data, x->p.size)) || shares_image(x, y);
		if (dup) {
			pv_error("merge: %s is the same profile as %s (pid %u, %s): merging it would count it twice",
				 x->path, y->path, x->procs[0].pid, x->procs[0].exe);
			return 1;
		}
	}
	for (int j = 0; j < i; j++) {
		if ((int)in[j].group != j || !same_program(&in[j].p, &x->p))
			continue;
		if (bias_of(&in[j].p, &x->p, &x->bias)) {
			pv_error("%s: its functions did not move together (not the same executable?)", x->path);
			return 1;
		}
		x->group = (uint32_t)j;
		x->obj_base = in[j].obj_base;
		x->shift = in[j].shift;
		return 0;
	}
	if (i && !same_lineage(&in[0], x)) {
		pv_error("%s: not a profile of the same program as %s, nor of its process lineage", x->path, in[0].path);
		return 1;
	}
	/* another program: its own objects, and its own range of addresses */
	x->group = (uint32_t)i;
	x->obj_base = *nobjs;
	x->shift = (uint64_t)(*ngroups)++ << 48;
	*nobjs += x->p.nobjs;
	return 0;
}

/* One profile merged with nothing else: what it was, its maps in it (the
 * writer below always writes them). */
int cmd_pack(int argc, char **argv)
{
	int nin = 0, out = 0;
	for (int i = 0; i < argc; i++) {
		if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
			fputs(pack_usage, stdout);
			return 0;
		} else if (!strcmp(argv[i], "-o") && i + 1 < argc) {
			out = 1;
			i++;
		} else if (argv[i][0] == '-') {
			pv_error("pack: unknown option %s", argv[i]);
			return 2;
		} else {
			nin++;
		}
	}
	if (nin != 1 || !out) {
		fputs(pack_usage, stderr);
		return 2;
	}
	return cmd_merge(argc, argv);
}

int cmd_merge(int argc, char **argv)
{
	const char *out = NULL;
	struct input *in = calloc((size_t)argc + 1, sizeof(*in));
	int nin = 0;
	if (!in) {
		pv_error("out of memory");
		return 1;
	}
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
			in[nin++].path = argv[i];
		}
	}
	if (!nin || !out) {
		fputs(merge_usage, stderr);
		free(in);
		return 2;
	}
	int rc = 1, loaded = 0;
	uint32_t nobjs = 0, ngroups = 0, nprocs = 0;
	for (int i = 0; i < nin; i++) {
		if (pv_load(&in[i].p, in[i].path))
			goto out;
		loaded++;
		if (input_procs(&in[i])) {
			pv_error("out of memory");
			goto out;
		}
		if (i && in[i].p.units != in[0].p.units) {
			/* figures in different units (one written by an older runtime) */
			pv_error("%s: its figures are in 1/%u of a cycle, %s's in 1/%u: not merged", in[i].path,
				 in[i].p.units, in[0].path, in[0].p.units);
			goto out;
		}
		if (place(in, i, &nobjs, &ngroups))
			goto out;
		nprocs += in[i].nprocs;
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
	struct pi_prof_hdr h = *in[0].p.hdr;
	h.hdr_size = sizeof(h);
	h.flags = 0;
	h.signal = 0;
	pw_put(&w, &h, sizeof(h));
	uint64_t nrecs = 0;
	for (int g = 0; g < nin; g++) {
		if ((int)in[g].group != g)
			continue;
		const struct profile *p = &in[g].p;
		for (uint32_t i = 0; i < p->nobjs; i++) {
			const struct pi_map_hdr *m = p->objs[i].map;
			uint32_t hdr[2] = {in[g].obj_base + i, 0};
			pw_rec(&w, PI_REC_OBJECT, 8 + m->size);
			pw_put(&w, hdr, 8);
			pw_put(&w, m, m->size);
			pw_pad(&w, 8 + m->size);
		}
		nrecs += p->nrecs;
	}
	pw_rec(&w, PI_REC_FUNCREC, nrecs * sizeof(struct pi_prof_funcrec));
	for (int g = 0; g < nin; g++) {
		if ((int)in[g].group != g)
			continue;
		for (uint32_t i = 0; i < in[g].p.nrecs; i++) {
			struct pi_prof_funcrec r = in[g].p.recs[i];
			r.obj += in[g].obj_base;
			for (uint32_t k = 0; k < r.npieces && k < PI_MAX_PIECES; k++)
				r.addr[k] += in[g].shift;
			pw_put(&w, &r, sizeof(r));
		}
	}
	uint32_t tindex = 0;
	for (int i = 0; i < nin; i++) {
		const struct profile *p = &in[i].p;
		uint64_t move = in[i].shift - (uint64_t)in[i].bias;
		uint32_t base = in[i].obj_base;
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
				if (n) {
					nd.ret_addr += move;
					nd.obj += base;
				}
				pw_put(&w, &nd, sizeof(nd));
			}
			for (uint32_t r = 0; r < t.nrec; r++) {
				struct pi_prof_recedge re = th->recs[r];
				re.ret_addr += move;
				re.caller_obj += base;
				pw_put(&w, &re, sizeof(re));
			}
			pw_pad(&w, size);
			for (size_t c = 0; c < p->ncounts; c++) {
				const struct pi_prof_rec *r = (const void *)p->counts_recs[c];
				uint32_t hdr[2];
				memcpy(hdr, p->counts_recs[c] + sizeof(*r), 8);
				if (hdr[1] != old)
					continue;
				hdr[0] += base;
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
			sum = sum + in[i].p.lost[k] < sum ? UINT64_MAX : sum + in[i].p.lost[k];
		if (sum)
			loss[nloss++] = (struct pi_prof_loss){.kind = k, .thread = UINT32_MAX, .count = sum};
	}
	if (nloss) {
		pw_rec(&w, PI_REC_LOSS, nloss * sizeof(loss[0]));
		pw_put(&w, loss, nloss * sizeof(loss[0]));
	}
	/* every input's process images, in the order given */
	pw_rec(&w, PI_REC_PROCESS, (uint64_t)nprocs * sizeof(struct pi_prof_process));
	for (int i = 0; i < nin; i++)
		pw_put(&w, in[i].procs, in[i].nprocs * sizeof(struct pi_prof_process));
	pw_rec(&w, PI_REC_END, 0);
	int bad = pw_flush(&w);
	if (pi_out_commit(&po, !bad, &why))
		pv_error("%s: cannot write: %s", out, why);
	else
		rc = 0;
out:
	for (int i = 0; i < loaded; i++)
		prof_free(&in[i].p);
	for (int i = 0; i < nin; i++)
		free(in[i].procs);
	free(in);
	return rc;
}
