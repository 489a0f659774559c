#!/usr/bin/env bash
# Configures and builds tcsparse on the lent GPU machine (no package registry there): the
# dependencies come from .deps/ (scripts/fetch-device-deps.sh, carried with the run).
# Usage: scripts/device-build.sh [BUILD_DIR]   (default build/device)
set -euo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
build=${1:-$top/build/device}
deps="$top/.deps/root/usr"
mkdir -p "$build"
generator=()
command -v ninja >/dev/null && generator=(-G Ninja)
cmake -S "$top" -B "$build" "${generator[@]}" \
  -DCMAKE_BUILD_TYPE=Release \
  -DCMAKE_CUDA_ARCHITECTURES="80;90" \
  -DCMAKE_PREFIX_PATH="$deps;$deps/lib/x86_64-linux-gnu/cmake" \
  -DZLIB_INCLUDE_DIR="$deps/include" -DZLIB_LIBRARY="$deps/lib/x86_64-linux-gnu/libz.a" \
  -DGTEST_ROOT="$deps" >"$build/configure.log" 2>&1 || { cat "$build/configure.log"; exit 1; }
cmake --build "$build" -j "$(nproc)"
