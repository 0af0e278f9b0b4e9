/* Many short threads, one after another: what each leaves behind must not
 * add up (address space, mappings, resident memory). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

__attribute__((noinline)) static long work(long x)
{
	return x * 3 + 1;
}

static void *run(void *arg)
{
	long s = 0;
	for (long i = 0; i < 10; i++)
		s += work((long)arg + i);
	return (void *)s;
}

static long status_kb(const char *key)
{
	FILE *f = fopen("/proc/self/status", "r");
	char line[256];
	long v = -1;
	while (f && fgets(line, sizeof(line), f))
		if (!strncmp(line, key, strlen(key)))
			v = atol(line + strlen(key));
	if (f)
		fclose(f);
	return v;
}

static long maps(void)
{
	FILE *f = fopen("/proc/self/maps", "r");
	long n = 0;
	int c;
	while (f && (c = fgetc(f)) != EOF)
		n += c == '\n';
	if (f)
		fclose(f);
	return n;
}

int main(int argc, char **argv)
{
	long n = argc > 1 ? atol(argv[1]) : 20000, sum = 0;
	for (long i = 0; i < n; i++) {
		pthread_t t;
		void *r;
		if (pthread_create(&t, NULL, run, (void *)i) || pthread_join(t, &r))
			return 1;
		sum += (long)r;
	}
	printf("%ld\n", sum);
	fprintf(stderr, "rss_kb %ld maps %ld\n", status_kb("VmRSS:"), maps());
	return 0;
}
