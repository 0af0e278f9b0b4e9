/* libFuzzer target: the archive reader, and what profinst does with the
 * members of an archive before and after instrumenting them: the global
 * symbols each defines (read straight from its bytes, for the link's set
 * of defined names and the archive's index) and the archive written
 * back. */
#include <stdio.h>
#include <stdlib.h>
#include <sys/uio.h>

#include "archive.h"
#include "util.h"

static void count(const char *name, void *arg)
{
	(*(size_t *)arg) += name[0] != 0;
}

int LLVMFuzzerTestOneInput(const unsigned char *data, size_t size)
{
	pi_silent = true;
	struct archive a;
	if (!archive_read(&a, "fuzz.a", data, size)) {
		size_t n = 0;
		for (size_t i = 0; i < a.n; i++)
			elf_defined_globals(a.m[i].data, a.m[i].size, count, &n);
		struct buf head = {0};
		struct iovec *parts = NULL;
		size_t nparts = 0;
		if (!archive_image(&a, "fuzz.a", &head, &parts, &nparts)) {
			/* every part readable, as writev would read it */
			volatile unsigned char sink = 0;
			for (size_t i = 0; i < nparts; i++)
				for (size_t j = 0; j < parts[i].iov_len; j++)
					sink ^= ((const unsigned char *)parts[i].iov_base)[j];
			(void)sink;
		}
		free(parts);
		buf_free(&head);
	}
	archive_free(&a);
	return 0;
}
