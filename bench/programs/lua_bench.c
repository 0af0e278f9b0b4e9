/* Drives Debian's liblua5.4.a for bench/programs.py: a compute script
 * (recursion, integer and float loops, a sieve over a table, closures,
 * method calls on small objects, a little string work), run REPS times in
 * one state.
 *
 *   lua_bench [REPS] */
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <stdio.h>
#include <stdlib.h>

static const char script[] =
	"local function fib(n) if n < 2 then return n end return fib(n-1) + fib(n-2) end\n"
	"local function sieve(n)\n"
	"  local p, c = {}, 0\n"
	"  for i = 2, n do p[i] = true end\n"
	"  for i = 2, n do if p[i] then c = c + 1 for j = i * i, n, i do p[j] = false end end end\n"
	"  return c end\n"
	"local function mandel(w)\n"
	"  local n = 0\n"
	"  for y = 0, w - 1 do local ci = 2 * y / w - 1\n"
	"    for x = 0, w - 1 do local cr = 2.5 * x / w - 2 local zr, zi, k = 0.0, 0.0, 0\n"
	"      while k < 50 and zr * zr + zi * zi < 4 do zr, zi = zr * zr - zi * zi + cr, 2 * zr * zi + ci k = k + 1 end\n"
	"      n = n + k end end\n"
	"  return n end\n"
	"local Vec = {} Vec.__index = Vec\n"
	"function Vec.new(x, y) return setmetatable({x = x, y = y}, Vec) end\n"
	"function Vec:add(o) return Vec.new(self.x + o.x, self.y + o.y) end\n"
	"function Vec:dot(o) return self.x * o.x + self.y * o.y end\n"
	"local function vecs(n) local a, s = Vec.new(0, 0), 0\n"
	"  for i = 1, n do a = a:add(Vec.new(i % 7, i % 3)) s = s + a:dot(a) % 1000 end return s end\n"
	"local function closures(n) local acc = 0\n"
	"  local function mk(k) return function(v) return v * k + 1 end end\n"
	"  local fs = {} for i = 1, 16 do fs[i] = mk(i) end\n"
	"  for i = 1, n do acc = (acc + fs[i % 16 + 1](i)) % 1000003 end return acc end\n"
	"local function strs(n) local t = {}\n"
	"  for i = 1, n do t[#t + 1] = tostring(i * 17 % 1000) end\n"
	"  local s = table.concat(t, ',') local c = 0 for _ in s:gmatch('%d+') do c = c + 1 end return c end\n"
	"result = fib(24) + sieve(60000) + mandel(80) + vecs(40000) + closures(100000) + strs(5000)\n";

int main(int argc, char **argv)
{
	int reps = argc > 1 ? atoi(argv[1]) : 1;
	lua_State *L = luaL_newstate();
	luaL_openlibs(L);
	int rc = 0;
	for (int r = 0; r < reps && !rc; r++)
		rc = luaL_dostring(L, script);
	if (rc) {
		fprintf(stderr, "lua: %s\n", lua_tostring(L, -1));
		return 1;
	}
	lua_getglobal(L, "result");
	printf("result %.0f\n", lua_tonumber(L, -1));
	lua_close(L);
	return 0;
}
