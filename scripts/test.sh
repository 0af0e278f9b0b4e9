#!/usr/bin/env bash
# Build (with sanitizers on the rewriter and profview) and run every test.
# Extra arguments go to tests/run.py (-k PATTERN: only the tests it names;
# --keep).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/bootstrap.sh --sanitize
export ASAN_OPTIONS=detect_leaks=1:abort_on_error=0
export UBSAN_OPTIONS=print_stacktrace=1:halt_on_error=1
exec python3 tests/run.py --build build-san --full "$@"
