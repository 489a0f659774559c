#!/usr/bin/env bash
# Run 157: as run 156, with 32-bit indices in the check and table kernels, and csr_overlap's
# plans from device CSR checking the CSR beside their table build (DeviceCsrCheck in flight).
# 1. memcheck of the check and table tests; 2. from-device builds of the default suite in every
# precision, this binary against tcsparse-prev (c3b06de), alternated twice; 3. Nsight Compute
# durations and instructions of one stencil2d_2000 fp16 from-device build; 4. GPU tests of the
# device CSR check, the plans from device CSR, DASP, csr_overlap and csr_full_overlap (8 shards).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run157.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
shards() {  # filter, tag
  local pids=()
  for s in 0 1 2 3 4 5 6 7; do
    GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 330 $b/tcsparse_gpu_tests --gtest_filter="$1" --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
    pids+=($!)
  done
  for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
  echo "tests $2 [$SECONDS s]"
  cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED|SKIPPED)" | sort | uniq -c
  grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
  cat $R/tests-*.txt > $R/gpu-tests-$2.txt; rm $R/tests-*.txt
}
SECONDS=0
timeout 200 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='DeviceCsrViewValidation.*:*CsrOverlapGpuOnCatalogue.DeviceTableEqualsHostModel*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -4
SECONDS=0
for round in 1 2; do
  for bin in tcsparse tcsparse-prev; do
    timeout 200 $b/$bin bench --suite default --matrix-dir .mx --methods csr_overlap --precisions fp64,fp32,fp16,bf16 \
      --from-device --plan-builds 5 --runs 10 --output $R/from-device-$bin-$round.jsonl > /dev/null 2>&1
    echo "from-device $bin $round rc $? [$SECONDS s]"
  done
done
timeout 120 ncu --clock-control none -c 40 --metrics gpu__time_duration.sum,smsp__inst_executed.sum \
  $b/tcsparse bench --methods csr_overlap --precisions fp16 --from-device --plan-builds 1 --runs 1 --warmup-ms 0 --output /tmp/n.jsonl "gen:stencil2d:nx=2000,ny=2000,seed=1" > $R/ncu-build-stencil2d.txt 2>&1
echo "ncu rc $?"
grep -E "Context 1|duration|inst_executed" $R/ncu-build-stencil2d.txt | sed -E 's/ +/ /g; s/\((const|csr_overlap::Table).*\) \(/ (/; s/, Context.*//; s/\(T1.*//' | paste - - - | cut -c1-190 | head -12
python3 - $R <<'PY'
import json, sys, os, collections, glob, math
R = sys.argv[1]
t = collections.defaultdict(dict)
for f in sorted(glob.glob(os.path.join(R, "from-device-*.jsonl"))):
    tag = os.path.basename(f)[12:-6]; bin, rnd = tag.rsplit("-", 1)
    for line in open(f):
        r = json.loads(line)
        if not r.get("check_passed"): print("CHECK FAILED", f, r["matrix"], r["precision"]); continue
        t[(r["matrix"][:18], r["precision"], r["nnz"])][(bin, rnd)] = (r["plan_build_ms"], r["median_ms"])
print("plans from device CSR, >= 1 M nonzeros: build ms (SpMV-times) prev r1 r2 | new r1 r2")
worst = collections.defaultdict(float)
for (m, p, nnz), v in sorted(t.items(), key=lambda kv: (kv[0][1], -kv[0][2])):
    if nnz < 1_000_000: continue
    row = []
    for bin in ["tcsparse-prev", "tcsparse"]:
        for rnd in "12":
            b_ms, s_ms = v.get((bin, rnd), (float("nan"), float("nan")))
            row.append("%.3f (%.2f)" % (b_ms, b_ms / s_ms)); worst[(bin, p)] = max(worst[(bin, p)], b_ms / s_ms)
    print(f"{m:18s} {p} {nnz:>9d}", " | ".join(row))
for k, w in sorted(worst.items()): print(k, "worst SpMV-times %.2f" % w)
PY
SECONDS=0
shards '*DeviceCsrView*:*FromDevice*:*from_device*:DaspGpu*:*DaspGpuOnCatalogue*:*DaspGpuOnRowCounts*:*CsrOverlap*:*csr_overlap*:*FullOverlap*:*full_overlap*' check-dasp-csr-overlap
gzip -f $R/*.jsonl $R/*.txt
cd $OUT && tar czf r.tgz r && rm -rf r
