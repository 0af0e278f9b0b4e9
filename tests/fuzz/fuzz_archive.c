/* libFuzzer target: the archive reader. */
#include <stdio.h>

#include "archive.h"
#include "util.h"

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	pi_silent = true;
	struct archive a;
	archive_read(&a, "fuzz.a", data, size);
	archive_free(&a);
	return 0;
}
