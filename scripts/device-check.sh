#!/usr/bin/env bash
# The whole GPU check in one call on the lent GPU machine: build, GPU tests, compute-sanitizer on
# the DASP kernels, and benchmarks. Everything it writes lands in $OUT (at most 8 files).
#
#   device run --carry .deps .matrices -- scripts/device-check.sh [tests|bench|all]
#
# .deps: scripts/fetch-device-deps.sh; .matrices: a copy of ../shared/matrices (the GPU machine
# sees only the checkout).
set -uo pipefail
top=$(cd "$(dirname "$0")/.." && pwd)
cd "$top"
what=${1:-all}
out=${OUT:-$top/out}
mkdir -p "$out"
export TCSPARSE_MATRIX_DIR=$top/.matrices
export TCSPARSE_COMMIT=${TCSPARSE_COMMIT:-$(git rev-parse --short HEAD 2>/dev/null || echo unknown)}
build=$top/build/device
log=$out/check.log
: >"$log"
step() { echo "== $*" | tee -a "$log"; }

step "device"
nvidia-smi --query-gpu=name,driver_version,memory.total,clocks.max.sm --format=csv | tee -a "$log"

step "build"
start=$(date +%s)
if ! scripts/device-build.sh "$build" >>"$log" 2>&1; then
  tail -40 "$log"; exit 1
fi
echo "build took $(( $(date +%s) - start )) s" | tee -a "$log"

if [[ $what == tests || $what == all ]]; then
  step "GPU tests"
  "$build/tests/gpu/tcsparse_gpu_tests" --gtest_brief=1 >"$out/gpu-tests.log" 2>&1
  echo "gpu tests exit code $?" | tee -a "$log"
  tail -5 "$out/gpu-tests.log" | tee -a "$log"
  step "host tests"
  "$build/tests/host/tcsparse_host_tests" --gtest_brief=1 2>&1 | tail -3 | tee -a "$log"
  step "compute-sanitizer (memcheck, racecheck) on the DASP kernels"
  for tool in memcheck racecheck; do
    compute-sanitizer --tool "$tool" --error-exitcode 9 \
      "$build/tests/gpu/tcsparse_gpu_tests" --gtest_filter='Dasp*EdgeCase*:Dasp*Category*' \
      --gtest_brief=1 >"$out/sanitizer-$tool.log" 2>&1
    echo "$tool exit code $? ($(grep -c 'ERROR SUMMARY: 0 errors' "$out/sanitizer-$tool.log") clean summaries)" | tee -a "$log"
    tail -3 "$out/sanitizer-$tool.log" | tee -a "$log"
  done
fi

if [[ $what == bench || $what == all ]]; then
  gpu=$(nvidia-smi --query-gpu=name --format=csv,noheader | head -1 | tr ' ' '-')
  step "bench: default suite"
  "$build/tools/tcsparse/tcsparse" bench --suite default --output "$out/default-$gpu.jsonl" \
    >"$out/bench-default.txt" 2>>"$log"
  tail -30 "$out/bench-default.txt" | tee -a "$log"
  step "bench: ../shared/matrices (SuiteSparse, other, DLMC)"
  "$build/tools/tcsparse/tcsparse" bench "$TCSPARSE_MATRIX_DIR" --output "$out/matrices-$gpu.jsonl" \
    >"$out/bench-matrices.txt" 2>>"$log"
  tail -30 "$out/bench-matrices.txt" | tee -a "$log"
fi
step "done"
