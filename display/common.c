/* SPDX-License-Identifier: MIT */
#include "common.h"
#include "safefile.h"

#include <errno.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* From the C++ runtime: demangles Itanium ABI names. */
extern char *__cxa_demangle(const char *mangled, char *buf, size_t *len, int *status);

void pv_error(const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	fputs("profview: ", stderr);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

int pv_load(struct profile *p, const char *path)
{
	char err[256];
	if (prof_load(p, path, err, sizeof(err))) {
		pv_error("%s: %s", path, err);
		prof_free(p);
		return -1;
	}
	return 0;
}

const char *pv_name(const struct profile *p, uint32_t g)
{
	static char *ring[8];
	static int next;
	if (g == UINT32_MAX)
		return "<root>";
	const char *n = p->funcs[g].name;
	char *d = NULL;
	if (!strncmp(n, "_Z", 2)) {
		int st = 0;
		d = __cxa_demangle(n, NULL, NULL, &st);
		if (d && st) {
			free(d);
			d = NULL;
		}
	}
	if (p->funcs[g].external) {
		/* code outside the program's instrumented objects */
		size_t len = strlen(d ? d : n) + sizeof("<external:>");
		char *e = malloc(len);
		if (e)
			snprintf(e, len, "<external:%s>", d ? d : n);
		free(d);
		d = e;
	}
	if (!d)
		return n;
	free(ring[next]);
	ring[next] = d;
	next = (next + 1) % 8;
	return d;
}

static void json_str(FILE *out, const char *s, bool html)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20 || (html && (c == '<' || c == '>' || c == '&')))
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}

void pv_json_str(FILE *out, const char *s)
{
	json_str(out, s, false);
}

void pv_json_str_html(FILE *out, const char *s)
{
	json_str(out, s, true);
}

const char *pv_site_label(const struct profile *p, uint64_t ra, char *buf, size_t n)
{
	uint32_t g;
	const struct pi_map_site *s;
	if (!prof_find_site(p, ra, &g, &s)) {
		snprintf(buf, n, "from uninstrumented code");
		return buf;
	}
	const struct prof_gfunc *gf = &p->funcs[g];
	const struct prof_obj *o = &p->objs[gf->obj];
	const struct pi_map_func *f = &o->funcs[gf->func];
	int len;
	if (s->section == f->section && s->offset >= f->offset)
		len = snprintf(buf, n, "%s+0x%x", pv_name(p, g), s->offset - f->offset);
	else
		len = snprintf(buf, n, "%s:%s+0x%x", pv_name(p, g), prof_str(o, s->section), s->offset);
	const struct pi_map_line *l = prof_line(o, s->section, s->offset);
	if (l && len > 0 && (size_t)len < n) {
		const char *file = prof_str(o, l->file), *base = strrchr(file, '/');
		snprintf(buf + len, n - (size_t)len, " (%s:%u)", base ? base + 1 : file, l->line);
	}
	return buf;
}

uint32_t pv_lookup(const struct profile *p, const struct func_table *t, const char *name, uint32_t *out,
		   uint32_t max)
{
	uint32_t n = 0;
	for (uint32_t g = 0; g < p->nfuncs && n < max; g++) {
		if (!t->f[g].calls && !t->f[g].self)
			continue;
		if (!strcmp(p->funcs[g].name, name) || !strcmp(pv_name(p, g), name))
			out[n++] = g;
	}
	return n;
}

double pv_pct(uint64_t v, uint64_t total)
{
	return total ? 100.0 * (double)v / (double)total : 0.0;
}


int pv_open(struct profile *p, struct func_table *t, const char *path)
{
	if (pv_load(p, path))
		return 1;
	if (func_table_build(t, p)) {
		pv_error("out of memory");
		func_table_free(t);
		prof_free(p);
		return 1;
	}
	return 0;
}

void pv_close(struct profile *p, struct func_table *t)
{
	func_table_free(t);
	prof_free(p);
}

FILE *pv_out_open(const char *out, struct pi_out **handle)
{
	*handle = NULL;
	if (!strcmp(out, "-"))
		return stdout;
	struct pi_out *h = malloc(sizeof(*h));
	if (!h) {
		pv_error("out of memory");
		return NULL;
	}
	const char *why;
	if (pi_out_open(h, out, 0666, &why)) {
		pv_error("%s: cannot write: %s", out, why);
		free(h);
		return NULL;
	}
	FILE *o = fdopen(h->fd, "w");
	if (!o) {
		pv_error("%s: cannot write: %s", out, strerror(errno));
		pi_out_abort(h);
		free(h);
		return NULL;
	}
	h->fd = -1; /* the FILE closes it */
	*handle = h;
	return o;
}

int pv_out_close(FILE *o, struct pi_out *h, const char *out, bool ok)
{
	if (o == stdout)
		return fflush(stdout) || !ok;
	int bad = fclose(o) || !ok;
	const char *why;
	if (pi_out_commit(h, !bad, &why)) {
		if (ok)
			pv_error("%s: cannot write: %s", out, why);
		bad = 1;
	}
	free(h);
	return bad;
}

int pv_write(const char *path, const char *out,
	     int (*write)(FILE *o, const struct profile *p, const struct func_table *t, int how), int how)
{
	struct profile p;
	struct func_table t;
	if (pv_open(&p, &t, path))
		return 1;
	struct pi_out *tmp;
	FILE *o = pv_out_open(out, &tmp);
	if (!o) {
		pv_close(&p, &t);
		return 1;
	}
	int rc = write(o, &p, &t, how);
	if (rc)
		pv_error("%s: cannot write", out);
	rc = pv_out_close(o, tmp, out, rc == 0);
	pv_close(&p, &t);
	return rc;
}

int pv_format(const char *name, const char *choices, const char **format)
{
	size_t n = strlen(name);
	for (const char *c = choices; *c;) {
		const char *e = strchr(c, ',');
		size_t len = e ? (size_t)(e - c) : strlen(c);
		if (len == n && !strncmp(c, name, n)) {
			*format = name;
			return 0;
		}
		c += len + (e ? 1 : 0);
	}
	char list[128];
	size_t k = 0;
	for (const char *c = choices; *c && k + 3 < sizeof(list); c++) {
		list[k++] = *c;
		if (*c == ',')
			list[k++] = ' ';
	}
	list[k] = 0;
	pv_error("unknown format '%s' (%s)", name, list);
	return 2;
}

int pv_positional(const char *cmd, const char *arg, const char **path)
{
	if (arg[0] == '-' && arg[1]) {
		pv_error("%s: unknown option %s", cmd, arg);
		return 2;
	}
	if (*path) {
		pv_error("%s: one profile at a time", cmd);
		return 2;
	}
	*path = arg;
	return 0;
}

void pv_print_losses(FILE *o, const struct profile *p, const char *prefix)
{
	const uint64_t *l = p->lost;
	if (p->hdr->flags & PI_PROF_CHECKPOINT)
		fprintf(o, "%sWritten when the program called exec or _exit: if it went on, its later profile "
			   "replaces this one (an image exec'd writes its own, PID.x1, ...)\n", prefix);
	if (l[PI_LOSS_NESTED])
		fprintf(o, "%sNot recorded: %llu call%s made while the runtime was busy (a signal handler that "
			   "interrupted it, or while the profile was being written); their time is in their callers'\n",
			prefix, (unsigned long long)l[PI_LOSS_NESTED], l[PI_LOSS_NESTED] == 1 ? "" : "s");
	if (l[PI_LOSS_DROPPED])
		fprintf(o, "%sNot recorded: %llu call%s given no frame for want of memory; their time is in their "
			   "callers'\n",
			prefix, (unsigned long long)l[PI_LOSS_DROPPED], l[PI_LOSS_DROPPED] == 1 ? "" : "s");
	if (l[PI_LOSS_RUNNING])
		fprintf(o, "%sNot closed: %llu thread%s still inside the runtime when the profile was written: "
			   "their open calls are not charged\n",
			prefix, (unsigned long long)l[PI_LOSS_RUNNING], l[PI_LOSS_RUNNING] == 1 ? " was" : "s were");
}

void pv_json_losses(FILE *o, const struct profile *p)
{
	fprintf(o, ",\n  \"checkpoint\": %s", (p->hdr->flags & PI_PROF_CHECKPOINT) ? "true" : "false");
	fprintf(o, ",\n  \"lost\": {\"nested_calls\": %llu, \"dropped_calls\": %llu, \"running_threads\": %llu}",
		(unsigned long long)p->lost[PI_LOSS_NESTED], (unsigned long long)p->lost[PI_LOSS_DROPPED],
		(unsigned long long)p->lost[PI_LOSS_RUNNING]);
}
