/* A chained hash table of words. */
#include "hash.h"

#include <stdlib.h>
#include <string.h>

static unsigned long hash(const char *s, size_t n)
{
	unsigned long h = 5381;
	for (size_t i = 0; i < n; i++)
		h = h * 33 + (unsigned char)s[i];
	return h;
}

void table_init(struct table *t, size_t nslots)
{
	t->slots = calloc(nslots, sizeof(*t->slots));
	t->nslots = nslots;
	t->nentries = 0;
}

void table_add(struct table *t, const char *word, size_t len)
{
	struct entry **slot = &t->slots[hash(word, len) % t->nslots];
	for (struct entry *e = *slot; e; e = e->next)
		if (!strncmp(e->word, word, len) && e->word[len] == 0) {
			e->count++;
			return;
		}
	struct entry *e = malloc(sizeof(*e));
	e->word = strndup(word, len);
	e->count = 1;
	e->next = *slot;
	*slot = e;
	t->nentries++;
}

static int by_count(const void *a, const void *b)
{
	const struct entry *x = *(const struct entry *const *)a, *y = *(const struct entry *const *)b;
	if (x->count != y->count)
		return x->count < y->count ? 1 : -1;
	return strcmp(x->word, y->word);
}

struct entry **table_sorted(const struct table *t)
{
	struct entry **v = malloc(t->nentries * sizeof(*v));
	size_t n = 0;
	for (size_t i = 0; i < t->nslots; i++)
		for (struct entry *e = t->slots[i]; e; e = e->next)
			v[n++] = e;
	qsort(v, n, sizeof(*v), by_count);
	return v;
}

void table_free(struct table *t)
{
	for (size_t i = 0; i < t->nslots; i++) {
		struct entry *e = t->slots[i];
		while (e) {
			struct entry *next = e->next;
			free(e->word);
			free(e);
			e = next;
		}
	}
	free(t->slots);
}
