#!/usr/bin/env bash
# Install what profinst needs (Debian 12), then configure and build it in
# build/ (and, with --sanitize, an ASan/UBSan build in build-san/).
set -euo pipefail
cd "$(dirname "$0")/.."

pkgs=(gcc g++ clang binutils make meson ninja-build pkg-config python3
      libelf-dev libzydis-dev valgrind zlib1g-dev libsqlite3-dev liblua5.4-dev
      libbz2-dev libssl-dev)
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

[ -f build/build.ninja ] || meson setup build >/dev/null
meson compile -C build >/dev/null
if [ "${1:-}" = "--sanitize" ]; then
	[ -f build-san/build.ninja ] || meson setup build-san -Db_sanitize=address,undefined -Db_lundef=false >/dev/null
	meson compile -C build-san >/dev/null
fi
