#ifndef WORDFREQ_HASH_H
#define WORDFREQ_HASH_H
#include <stddef.h>

struct entry {
	char *word;
	unsigned count;
	struct entry *next;
};

struct table {
	struct entry **slots;
	size_t nslots, nentries;
};

void table_init(struct table *t, size_t nslots);
void table_add(struct table *t, const char *word, size_t len);
struct entry **table_sorted(const struct table *t);
void table_free(struct table *t);
#endif
