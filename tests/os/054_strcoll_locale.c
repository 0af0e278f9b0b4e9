/* strcoll, which every timing model costs as the C locale's (strcmp's and a
 * look at the locale), before and after the program sets a locale: from
 * then on its time is measured (tests/lib/exttime.py, os/strcoll_locale).
 *   054_strcoll_locale set|ask|none
 * set: setlocale(LC_ALL, "C.UTF-8") between the two loops; ask: only asks
 * (setlocale(LC_ALL, NULL)), which changes nothing; none: neither. */
#include <locale.h>
#include <stdio.h>
#include <string.h>

static const char *volatile a = "profile", *volatile b = "profiler";

__attribute__((noinline, noipa)) static int before(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += strcoll(a, b) < 0;
	return s;
}

__attribute__((noinline, noipa)) static int after(int n)
{
	int s = 0;
	for (int i = 0; i < n; i++)
		s += strcoll(b, a) > 0;
	return s;
}

int main(int argc, char **argv)
{
	int s = before(1000);
	if (argc > 1 && !strcmp(argv[1], "set") && !setlocale(LC_ALL, "C.UTF-8"))
		return 2;
	if (argc > 1 && !strcmp(argv[1], "ask"))
		s += setlocale(LC_ALL, NULL) != NULL;
	s += after(1000);
	printf("%d\n", s);
	return 0;
}
