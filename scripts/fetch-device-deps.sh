#!/usr/bin/env bash
# Fetches, on a machine with Debian's package registry, the build dependencies that the lent GPU
# machine lacks (it reaches no registry), unpacked under .deps/ for `device run --carry .deps`.
# scripts/device-build.sh points CMake at them. .deps/ is ignored by git (.git/info/exclude).
set -euo pipefail
top=$(git rev-parse --show-toplevel)
deps="$top/.deps"
rm -rf "$deps" && mkdir -p "$deps/debs" "$deps/root"
cd "$deps/debs"
apt-get download libgtest-dev googletest libcli11-dev nlohmann-json3-dev libfmt-dev libfmt9 zlib1g-dev >/dev/null
for deb in *.deb; do dpkg -x "$deb" "$deps/root"; done
rm -rf "$deps/debs" "$deps/root/usr/share/doc" "$deps/root/usr/src"
du -sh "$deps"
