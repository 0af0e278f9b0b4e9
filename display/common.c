/* SPDX-License-Identifier: MIT */
#include "common.h"

#include <stdarg.h>
#include <stdlib.h>
#include <string.h>

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
	if (strncmp(n, "_Z", 2))
		return n;
	int st = 0;
	char *d = __cxa_demangle(n, NULL, NULL, &st);
	if (!d || st)
		return n;
	free(ring[next]);
	ring[next] = d;
	next = (next + 1) % 8;
	return d;
}

void pv_json_str(FILE *out, const char *s)
{
	fputc('"', out);
	for (; *s; s++) {
		unsigned char c = (unsigned char)*s;
		if (c == '"' || c == '\\')
			fprintf(out, "\\%c", c);
		else if (c < 0x20)
			fprintf(out, "\\u%04x", c);
		else
			fputc(c, out);
	}
	fputc('"', out);
}
