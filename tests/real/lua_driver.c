/* Drives Debian's liblua5.4.a: runs a script exercising the interpreter,
 * the garbage collector, strings, tables, closures and coroutines. */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>

static const char script[] =
	"local function fib(n) if n < 2 then return n end return fib(n-1) + fib(n-2) end\n"
	"local t = {}\n"
	"for i = 1, 3000 do t[i] = string.format('%05d:%s', (i * 7919) % 10007, ('x'):rep(i % 7)) end\n"
	"table.sort(t)\n"
	"local words = {}\n"
	"for w in ('the quick brown fox jumps over the lazy dog the end'):gmatch('%a+') do\n"
	"  words[w] = (words[w] or 0) + 1 end\n"
	"local keys = {} for k in pairs(words) do keys[#keys + 1] = k end table.sort(keys)\n"
	"local parts = {} for _, k in ipairs(keys) do parts[#parts + 1] = k .. '=' .. words[k] end\n"
	"local co = coroutine.wrap(function() for i = 1, 5 do coroutine.yield(i * i) end end)\n"
	"local s = 0 for i = 1, 5 do s = s + co() end\n"
	"local acc = {} for i = 1, 2000 do acc[#acc + 1] = tostring(i):reverse() end\n"
	"print(fib(20), t[1], t[#t], table.concat(parts, ','), s, #table.concat(acc))\n"
	"print(string.format('%.3f', math.sqrt(2) * math.pi), ('%d items'):format(#t))\n";

int main(int argc, char **argv)
{
	/* argv[1]: repetitions of the script, for benchmarks */
	int reps = argc > 1 ? atoi(argv[1]) : 1;
	lua_State *L = luaL_newstate();
	luaL_openlibs(L);
	int rc = 0;
	for (int r = 0; r < reps && !rc; r++) {
		if (r == 1) /* only the first repetition prints */
			luaL_dostring(L, "print = function() end");
		rc = luaL_dostring(L, script);
	}
	if (rc)
		fprintf(stderr, "lua: %s\n", lua_tostring(L, -1));
	lua_close(L);
	return rc ? 1 : 0;
}
