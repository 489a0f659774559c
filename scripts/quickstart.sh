#!/usr/bin/env bash
# One command on a fresh Debian machine with the CUDA toolkit: installs the dependencies, builds
# tcsparse (release preset) and runs its main job, `tcsparse bench` on the built-in default suite.
# Extra arguments go to `tcsparse bench` (e.g. a folder of .mtx files).
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
exec build/release/tools/tcsparse/tcsparse bench "$@"
