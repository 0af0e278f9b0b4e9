/* Under an address-space limit, the program gets about as much memory as
 * it would natively: the runtime reserves little. Prints the MiB it got to
 * standard error. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

int main(void)
{
	long got = 0;
	for (;;) {
		char *p = malloc(1 << 20);
		if (!p)
			break;
		memset(p, 1, 4096);
		got++;
	}
	printf("done\n");
	fprintf(stderr, "mib %ld\n", got);
	return 0;
}
