/* wordfreq: count the words of a generated text and print the most common. */
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>

#include "hash.h"

static const char *vocabulary[] = {
	"the", "quick", "brown", "fox", "jumps", "over", "lazy", "dog", "profile",
	"cycle", "block", "function", "caller", "callee", "stack", "branch",
};

/* A deterministic text of n words, drawn with a linear congruential generator. */
static char *make_text(unsigned n)
{
	size_t cap = (size_t)n * 10 + 1, len = 0;
	char *s = malloc(cap);
	unsigned x = 42;
	for (unsigned i = 0; i < n; i++) {
		x = x * 1103515245u + 12345u;
		const char *w = vocabulary[(x >> 16) % (sizeof(vocabulary) / sizeof(*vocabulary))];
		while (*w)
			s[len++] = *w++;
		s[len++] = (x & 0x100) ? ' ' : '\n';
	}
	s[len] = 0;
	return s;
}

static void count_words(struct table *t, const char *s)
{
	while (*s) {
		while (*s && !isalpha((unsigned char)*s))
			s++;
		const char *start = s;
		while (isalpha((unsigned char)*s))
			s++;
		if (s > start)
			table_add(t, start, (size_t)(s - start));
	}
}

int main(int argc, char **argv)
{
	unsigned n = argc > 1 ? (unsigned)atoi(argv[1]) : 200000;
	char *text = make_text(n);
	struct table t;
	table_init(&t, 1024);
	count_words(&t, text);
	struct entry **v = table_sorted(&t);
	for (size_t i = 0; i < 5 && i < t.nentries; i++)
		printf("%8u %s\n", v[i]->count, v[i]->word);
	free(v);
	table_free(&t);
	free(text);
	return 0;
}
