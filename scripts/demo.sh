#!/usr/bin/env bash
# Set up everything, instrument examples/wordfreq, run it, print its profile
# and write it as an HTML page.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh
out=build/demo
mkdir -p "$out"
for f in examples/wordfreq/*.c; do
	cc -O2 -g -c "$f" -o "$out/$(basename "${f%.c}").o"
done
build/rewriter/profinst "$out"/main.o "$out"/hash.o -o "$out"/wordfreq.prof
rm -f "$out"/wordfreq.*.pf
PROFINST_OUTPUT="$out/wordfreq.%p.pf" "$out"/wordfreq.prof 100000
echo
build/display/profview report "$out"/wordfreq.*.pf
build/display/profview html "$out"/wordfreq.*.pf -o "$out"/wordfreq.html
echo
echo "The same profile as a page for a browser: $out/wordfreq.html"
