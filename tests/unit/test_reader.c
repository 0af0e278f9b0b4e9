/* The profile reader refuses damaged profiles with a message, never
 * crashes: every truncation and every single-bit flip of a small valid
 * profile is fed to it (run under ASan/UBSan in CI). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reader.h"
#include "views.h"

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: test_reader PROFILE\n");
		return 2;
	}
	struct profile p;
	char err[256];
	if (prof_load(&p, argv[1], err, sizeof(err))) {
		fprintf(stderr, "test_reader: %s: %s\n", argv[1], err);
		return 1;
	}
	size_t size = p.size;
	unsigned char *orig = malloc(size);
	memcpy(orig, p.data, size);
	prof_free(&p);
	size_t refused = 0, accepted = 0;
	/* truncations */
	for (size_t n = 0; n < size; n += (n < 4096 ? 1 : 97)) {
		if (prof_parse(&p, orig, n, err, sizeof(err)) == 0) {
			fprintf(stderr, "test_reader: truncated to %zu bytes and accepted\n", n);
			return 1;
		}
		prof_free(&p);
		refused++;
	}
	/* bit flips: accepted or refused, but whatever is accepted can be used */
	unsigned char *buf = malloc(size);
	size_t step = size > 200000 ? size / 200000 : 1;
	for (size_t i = 0; i < size; i += step) {
		for (int bit = 0; bit < 8; bit++) {
			memcpy(buf, orig, size);
			buf[i] ^= (unsigned char)(1u << bit);
			if (prof_parse(&p, buf, size, err, sizeof(err)) == 0) {
				struct func_table t;
				if (func_table_build(&t, &p) == 0)
					func_table_free(&t);
				accepted++;
			} else {
				refused++;
			}
			prof_free(&p);
		}
	}
	free(buf);
	free(orig);
	printf("test_reader: %zu damaged profiles refused, %zu bit flips accepted and used\n", refused, accepted);
	return 0;
}
