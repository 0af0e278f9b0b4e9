#!/usr/bin/env bash
# Install what profinst needs (Debian 12), then configure and build it in
# build/ (and, with --sanitize, an ASan/UBSan build in build-san/).
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(gcc g++ clang binutils make meson ninja-build pkg-config python3
      libelf-dev libzydis-dev valgrind zlib1g-dev libsqlite3-dev liblua5.4-dev
      libbz2-dev libssl-dev golang-go graphviz cmake groff-base autoconf llvm-14)
missing=()
for p in "${pkgs[@]}"; do
	dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing+=("$p")
done
if [ ${#missing[@]} -gt 0 ]; then
	echo "bootstrap: installing ${missing[*]}" >&2
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	$sudo apt-get update -qq
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq "${missing[@]}" >/dev/null
fi

# node and npm, for validating exports against speedscope's schema and driving
# profview html's page in jsdom
if ! command -v node >/dev/null || ! command -v npm >/dev/null; then
	sudo=""
	[ "$(id -u)" -eq 0 ] || sudo="sudo"
	DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq nodejs npm >/dev/null
fi

# a build's output is shown only when it fails
quiet() {
	local log
	log=$(mktemp)
	if ! "$@" >"$log" 2>&1; then
		cat "$log" >&2
		rm -f "$log"
		echo "bootstrap: failed: $*" >&2
		return 1
	fi
	rm -f "$log"
}

[ -f build/build.ninja ] || quiet meson setup build
quiet meson compile -C build
for b in build build-san; do
	[ "$b" = build-san ] && [ "${1:-}" != "--sanitize" ] && continue
	if [ ! -d "$b/npm/node_modules/ajv" ] || [ ! -d "$b/npm/node_modules/jsdom" ]; then
		mkdir -p "$b/npm"
		npm install --silent --no-audit --no-fund --prefix "$b/npm" speedscope@1.25.0 ajv@8 jsdom@24 >/dev/null
	fi
done
if [ "${1:-}" = "--sanitize" ]; then
	[ -f build-san/build.ninja ] || quiet meson setup build-san -Db_sanitize=address,undefined -Db_lundef=false
	quiet meson compile -C build-san
	# the libFuzzer targets need clang
	[ -f build-fuzz/build.ninja ] || CC=clang quiet meson setup build-fuzz -Dfuzz=true \
		-Db_sanitize=address,undefined -Db_lundef=false
	quiet meson compile -C build-fuzz
fi
