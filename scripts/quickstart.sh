#!/usr/bin/env bash
# One command on a fresh Debian machine with the CUDA toolkit: installs the dependencies, builds
# tcsparse (release preset) and runs its main job, `tcsparse bench` on the built-in default suite.
# Extra arguments go to `tcsparse bench` (e.g. a folder of .mtx files). On a machine without a
# GPU (or without the NVIDIA driver) it runs a CPU reference product instead and says how to run
# the benchmark on a GPU.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/install-deps.sh
command -v nvcc >/dev/null || export PATH=/usr/local/cuda/bin:$PATH
cmake --preset release >/dev/null
cmake --build --preset release -j "$(nproc)"
tcsparse=build/release/tools/tcsparse/tcsparse
if command -v nvidia-smi >/dev/null && nvidia-smi -L 2>/dev/null | grep -q GPU; then
  exec "$tcsparse" bench "$@"
fi
echo "== no NVIDIA GPU or driver found: built $tcsparse; running a CPU reference product instead"
"$tcsparse" spmv gen:stencil3d:nx=64,ny=64,nz=64,seed=1 --device cpu --runs 10
echo "== on a machine with an NVIDIA GPU (sm_80 or sm_90) and its driver, run the benchmark with:"
echo "   $tcsparse bench $*"
