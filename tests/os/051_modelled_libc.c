/* Calls only C library functions every timing model costs itself
 * (rewriter/model.c, the *_libc tables): its profile is the same in every
 * run (tests/lib/exttime.py, os/modelled_libc).  Nothing is printed: the
 * exit status says whether the work came out right. */
#include <ctype.h>
#include <errno.h>
#include <stdlib.h>
#include <string.h>

static char buf[4096], other[4096];
static volatile size_t len = 100, big = 3000;

/* (through volatile pointers: the compiler would fold calls on constants) */
static const char *volatile base = "profile", *volatile odd = "-odd", *volatile even = "-even",
			    *volatile x = "x", *volatile pre = "prof";

__attribute__((noinline)) static unsigned strings(int n)
{
	unsigned s = 0;
	char word[64];
	for (int i = 0; i < n; i++) {
		strcpy(word, base);
		strcat(word, i & 1 ? odd : even);
		s += (unsigned)strlen(word) + (strcmp(word, base) > 0) + (strncmp(word, pre, 4) == 0);
		s += strchr(word, '-') != NULL;
		s += strrchr(word, 'e') != NULL;
		char *d = strdup(word);
		s += (unsigned)strnlen(d, 8);
		free(d);
		strncpy(word, x, 16);
		s += word[0] == 'x';
		s += strcoll(word, base) != 0; /* (the C locale's: strcmp's) */
		s += (unsigned)strspn(word, x) + (unsigned)strcspn(base, odd) + (strpbrk(base, even) != NULL);
	}
	return s;
}

__attribute__((noinline)) static unsigned memory(int n)
{
	unsigned s = 0;
	for (int i = 0; i < n; i++) {
		memset(buf, i & 0x7f, big);
		memcpy(other, buf, big);
		memmove(other + 1, other, len);
		s += memcmp(buf, other + 2, len) == 0;
		s += memchr(buf, 0x80, big) == NULL;
	}
	return s;
}

__attribute__((noinline)) static unsigned heap(int n)
{
	unsigned s = 0;
	for (int i = 0; i < n; i++) {
		char *p = malloc(len + (size_t)(i & 15) * 8);
		int *q = calloc(len, sizeof(int));
		p = realloc(p, big);
		p[0] = 1;
		s += (unsigned)p[0] + (unsigned)q[len - 1];
		free(q);
		free(p);
	}
	return s;
}

/* <ctype.h>'s classes and errno: calls of the C library's thread-local
 * accessors (__ctype_b_loc, __ctype_tolower_loc, __errno_location) */
__attribute__((noinline)) static unsigned classes(int n)
{
	unsigned s = 0;
	for (int i = 0; i < n; i++) {
		s += isalpha((unsigned char)base[i & 3]) != 0;
		s += tolower('A' + (i & 7)) == 'a' + (i & 7);
		errno = i;
		s += errno == i;
	}
	return s;
}

int main(void)
{
	unsigned s = strings(1000) + memory(1000) + heap(1000) + classes(1000);
	/* a word of 11 or 12 letters, the tests true, 8 of its letters,
	 * "x" collated apart (1), spanned (1), "profile" up to its 'o' (2)
	 * and to an 'e' (1) (29 or 30); a copy, a move and a search (2); 1
	 * from the heap; a letter, its lower case, errno (3) */
	return s == 500 * 29 + 500 * 30 + 2000 + 1000 + 3000 ? 0 : 1;
}
