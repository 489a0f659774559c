#!/usr/bin/env bash
# upload-1: DASP plan build, issue 8. Baseline (b4288b5) and patched builds; where plan-build time
# goes (probe + per-phase details), before/after on the default suite fp64/fp16; DASP/upload GPU tests.
source .run/common.sh
RES=$LOGS/results; mkdir -p "$RES"
deps=$top/.deps/root/usr
gen=(); command -v ninja >/dev/null && gen=(-G Ninja)
cfg() { cmake -S . -B "$1" "${gen[@]}" -DCMAKE_BUILD_TYPE=Release -DCMAKE_CUDA_ARCHITECTURES=90 \
  -DCMAKE_PREFIX_PATH="$deps;$deps/lib/x86_64-linux-gnu/cmake" -DZLIB_INCLUDE_DIR="$deps/include" \
  -DZLIB_LIBRARY="$deps/lib/x86_64-linux-gnu/libz.a" -DGTEST_ROOT="$deps" > "$LOGS/cfg-$(basename $1).log" 2>&1; }
say "host: $(nproc) cores, $(free -g | awk '/Mem/{print $2}') GiB; $(lscpu | grep 'Model name' | head -1)"
say "build baseline"
cfg build/base && timeout 200 cmake --build build/base -j"$(nproc)" --target tcsparse_cli > "$LOGS/build-base.log" 2>&1; echo "base build exit $?" | tee -a "$LOGS/run.log"
say "apply patch"
git apply .run/upload.patch 2>"$LOGS/apply.log" || patch -p1 < .run/upload.patch >> "$LOGS/apply.log" 2>&1; echo "apply exit $?" | tee -a "$LOGS/run.log"
say "build patched"
cfg build/device && timeout 240 cmake --build build/device -j"$(nproc)" --target tcsparse_cli tcsparse_upload_probe tcsparse_gpu_tests > "$LOGS/build.log" 2>&1; rc=$?
echo "build exit $rc" | tee -a "$LOGS/run.log"
[[ $rc == 0 ]] || { grep -E "error" -A3 "$LOGS/build.log" | head -40 | tee -a "$LOGS/run.log"; finish; exit 1; }
B=build/base/tools/tcsparse/tcsparse; N=build/device/tools/tcsparse/tcsparse
cp build/device/tests/gpu/tcsparse_gpu_tests "$BIN/"
say "probe"
timeout 80 build/device/bench/tcsparse_upload_probe 1024 gen:stencil2d:nx=2000,ny=2000,seed=1 \
  gen:long:rows=20000,cols=1000000,length=1000,seed=8 gen:pruned:rows=16384,cols=16384,sparsity=0.9,seed=9 \
  > "$RES/probe.jsonl" 2> "$LOGS/probe.err"; echo "probe exit $?" | tee -a "$LOGS/run.log"
say "before: default suite fp64,fp16 (baseline binary)"
timeout 100 "$B" bench --suite default --matrix-dir .matrices --methods dasp --precisions fp64,fp16 \
  --output "$RES/before-default.jsonl" > "$LOGS/before-default.md" 2>&1; echo "before exit $?" | tee -a "$LOGS/run.log"
say "after v1: default suite fp64,fp16 + variant upload=after"
timeout 130 "$N" bench --suite default --matrix-dir .matrices --methods dasp --precisions fp64,fp16 \
  --variant after:upload=after --output "$RES/after1-default.jsonl" > "$LOGS/after1-default.md" 2>&1; echo "after1 exit $?" | tee -a "$LOGS/run.log"
left=$(( 465 - $(elapsed) ))
say "GPU tests *Dasp*:*Upload* ($left s)"
(( left > 20 )) && gpu_tests_sharded 4 $left '*Dasp*:*Upload*'
finish
