/* SPDX-License-Identifier: MIT */
/* profview: read profiles written by programs instrumented with profinst. */
#include <string.h>

#include "common.h"

static const char usage[] =
	"Usage: profview COMMAND PROFILE [OPTION]...\n"
	"\n"
	"Commands:\n"
	"  report     the function list (calls, self, self+descendants, min/max)\n"
	"  detail     one function: callers, callees, call sites\n"
	"  annotate   source lines or disassembly with their cycles\n"
	"  tree       the calling-context tree of each thread\n"
	"  callgraph  gprof-style call graph stanzas\n"
	"  export     callgrind, folded stacks, speedscope, Chrome trace or pprof files\n"
	"  graph      the call graph, as Graphviz DOT or SVG\n"
	"  merge      several profiles of one program into one\n"
	"  pack       a profile that holds its maps, readable without its executable\n"
	"  diff       per-function changes between two profiles\n"
	"  html       the profile as one interactive HTML page\n"
	"\n"
	"'profview COMMAND --help' describes a command's options.\n";

int main(int argc, char **argv)
{
	if (argc < 2 || !strcmp(argv[1], "-h") || !strcmp(argv[1], "--help")) {
		fputs(usage, argc < 2 ? stderr : stdout);
		return argc < 2 ? 2 : 0;
	}
	if (!strcmp(argv[1], "--version")) {
		puts("profview 0.1");
		return 0;
	}
	static const struct {
		const char *name;
		int (*fn)(int, char **);
	} cmds[] = {
		{"report", cmd_report},
		{"detail", cmd_detail},
		{"tree", cmd_tree},
		{"callgraph", cmd_callgraph},
		{"export", cmd_export},
		{"graph", cmd_graph},
		{"merge", cmd_merge},
		{"pack", cmd_pack},
		{"diff", cmd_diff},
		{"annotate", cmd_annotate},
		{"html", cmd_html},
	};
	for (size_t i = 0; i < sizeof(cmds) / sizeof(cmds[0]); i++)
		if (!strcmp(argv[1], cmds[i].name))
			return cmds[i].fn(argc - 2, argv + 2);
	pv_error("unknown command '%s' (see profview --help)", argv[1]);
	return 2;
}
