/* SPDX-License-Identifier: MIT */
/* profview: read profiles written by programs instrumented with profinst. */
#include <string.h>

#include "common.h"

static const char usage[] =
	"Usage: profview COMMAND PROFILE [OPTION]...\n"
	"\n"
	"Commands:\n"
	"  report     the function list (calls, self, self+descendants, min/max)\n"
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
	if (!strcmp(argv[1], "report"))
		return cmd_report(argc - 2, argv + 2);
	pv_error("unknown command '%s' (see profview --help)", argv[1]);
	return 2;
}
