/* SPDX-License-Identifier: MIT */
#ifndef PV_GRAPH_H
#define PV_GRAPH_H

#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>

#include "reader.h"
#include "views.h"

struct graph_opts {
	const char *width; /* arcs: "none", "linear" or "log" (NULL: log) */
	double filter;     /* functions under this share of the time are left
			      out (percent); < 0: about 30 shown */
	uint32_t root;     /* the graph under this function, or UINT32_MAX */
	const uint32_t *url; /* per function: its node links to #f/url[f]
				(UINT32_MAX: none); NULL: no links */
};

/* The call graph of p as Graphviz DOT, or as SVG drawn by Graphviz's dot
 * (svg; o must have a file descriptor).  0, or 1 after a message. */
int graph_write(FILE *o, const struct profile *p, const struct func_table *t, const struct graph_opts *go, bool svg);

#endif
