#!/usr/bin/env bash
# upload-2: final DASP plan build (issue 8): device build (sm_80+sm_90), default suite fp64/fp16
# (+ variant upload=overlapped), large suite up to 70 M nonzeros, then the DASP/upload/conformance GPU tests.
source .run/common.sh
RES=$LOGS/results; mkdir -p "$RES"
say "apply patch"
git apply .run/upload.patch 2>"$LOGS/apply.log" || patch -p1 < .run/upload.patch >> "$LOGS/apply.log" 2>&1; echo "apply exit $?" | tee -a "$LOGS/run.log"
say "build (scripts/device-build.sh, 80;90)"
timeout 260 scripts/device-build.sh build/device > "$LOGS/build.log" 2>&1; rc=$?
echo "build exit $rc" | tee -a "$LOGS/run.log"
[[ $rc == 0 ]] || { grep -E "error" -A3 "$LOGS/build.log" | head -40 | tee -a "$LOGS/run.log"; finish; exit 1; }
N=build/device/tools/tcsparse/tcsparse
cp build/device/tests/gpu/tcsparse_gpu_tests "$BIN/"
say "after: default suite fp64,fp16 + variant upload=overlapped"
timeout 80 "$N" bench --suite default --matrix-dir .matrices --methods dasp --precisions fp64,fp16 \
  --variant overlapped:upload=overlapped --output "$RES/after-default.jsonl" > "$LOGS/after-default.md" 2>&1; echo "after exit $?" | tee -a "$LOGS/run.log"
say "after: large suite <= 70 M nonzeros fp64,fp16"
timeout 110 "$N" bench --suite large --matrix-dir .matrices --methods dasp --precisions fp64,fp16 --max-nnz 70000000 \
  --output "$RES/after-large.jsonl" > "$LOGS/after-large.md" 2>&1; echo "large exit $?" | tee -a "$LOGS/run.log"
left=$(( 468 - $(elapsed) ))
say "GPU tests *Dasp*:*Upload*:*Conformance* ($left s)"
(( left > 20 )) && gpu_tests_sharded 4 $left '*Dasp*:*Upload*:*Conformance*'
finish
