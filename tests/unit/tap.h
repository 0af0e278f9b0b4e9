/* SPDX-License-Identifier: MIT */
/*
 * The unit tests' report in the Test Anything Protocol, which `meson test`
 * reads (protocol 'tap') and counts case by case: each case one line on
 * stdout, "ok N - name" or "not ok N - name", and the plan ("1..N") at
 * the end.  A case runs from tap_case() to the next one or to tap_done();
 * tap_fail() counts a failure against it and says why on stderr (meson
 * keeps it in its log).  Header-only: each test is one program.
 */
#ifndef PI_TAP_H
#define PI_TAP_H

#include <stdarg.h>
#include <stdio.h>

static struct {
	int cases, failed;
	int open, cur_failures;
	char cur[256];
} tap;

static inline void tap_close(void)
{
	if (!tap.open)
		return;
	tap.open = 0;
	tap.failed += tap.cur_failures != 0;
	printf("%sok %d - %s\n", tap.cur_failures ? "not " : "", ++tap.cases, tap.cur);
	fflush(stdout);
}

/* Ends the case before (if any) and begins the one named. */
__attribute__((format(printf, 1, 2))) static inline void tap_case(const char *fmt, ...)
{
	tap_close();
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(tap.cur, sizeof tap.cur, fmt, ap);
	va_end(ap);
	tap.open = 1;
	tap.cur_failures = 0;
}

/* A failure of the current case (of a case "setup" if none is open), and
 * why, on stderr. */
__attribute__((format(printf, 1, 2))) static inline void tap_fail(const char *fmt, ...)
{
	if (!tap.open)
		tap_case("setup");
	tap.cur_failures++;
	va_list ap;
	va_start(ap, fmt);
	fprintf(stderr, "%s: ", tap.cur);
	vfprintf(stderr, fmt, ap);
	fputc('\n', stderr);
	va_end(ap);
}

/* Whether the current case has failed so far. */
static inline int tap_failing(void)
{
	return tap.open && tap.cur_failures;
}

/* Ends the last case and prints the plan; the program's exit status. */
static inline int tap_done(void)
{
	tap_close();
	printf("1..%d\n", tap.cases);
	return tap.failed != 0 || tap.cases == 0;
}

#endif
