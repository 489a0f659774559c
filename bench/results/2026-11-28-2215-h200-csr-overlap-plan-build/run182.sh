#!/usr/bin/env bash
# Run 182: as run 181, with the counting pass on a side stream beside the check (it waits for
# the view's arrays, not for the check), still with run 179's time points. 1. GPU tests of plans from device CSR and of the
# device table (16 shards); 2. memcheck and racecheck of the
# table tests; 3. traced builds; 4. plans from device CSR on the default suite, every precision;
# 5. Nsight Compute's duration of each kernel of one build on pruned_16k and stencil2d_2000 bf16.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run182.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='*DeviceCsrView*:*FromDevice*:*from_device*:*DeviceTable*:*AutoTakes*:*Borrow*:*TablesOfMoreTiles*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 330 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED|SKIPPED)" | sort | uniq -c
grep -h -E "^\[  FAILED  \]" $R/tests-*.txt | sort -u | head -20
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
T='*CsrOverlapGpuOnCatalogue.DeviceTableEqualsHostModel/*:CsrOverlapGpu.StatsDescribe*:CsrOverlapGpu.AutoTakes*:CsrOverlapGpu.APlanFromDeviceCsrBorrows*'
timeout 240 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter="$T" --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -4
timeout 200 compute-sanitizer --tool racecheck $b/tcsparse_gpu_tests --gtest_filter='*CsrOverlapGpuOnCatalogue.DeviceTableEqualsHostModel/*' --gtest_brief=1 > $R/racecheck.txt 2>&1
echo "racecheck rc $? [$SECONDS s]"; grep -E "RACECHECK SUMMARY|ERROR SUMMARY|PASSED|FAILED" $R/racecheck.txt | tail -4
SECONDS=0
M="gen:stencil2d:nx=2000,ny=2000,seed=1 gen:banded:n=2000000,bandwidth=5,seed=6 gen:pruned:rows=16384,cols=16384,sparsity=0.9,seed=9 gen:rmat:scale=20,edge_factor=16,seed=3"
TCSPARSE_BUILD_TRACE=1 timeout 100 $b/tcsparse bench $M --methods csr_overlap --precisions bf16 \
  --from-device --plan-builds 20 --runs 5 --output $R/traced-bf16.jsonl > /dev/null 2> $R/trace-bf16.txt
echo "traced rc $? [$SECONDS s]"
timeout 150 $b/tcsparse bench --suite default --methods csr_overlap --precisions fp64,fp32,fp16,bf16 \
  --from-device --plan-builds 5 --runs 10 --output $R/from-device.jsonl > /dev/null 2>&1
echo "from-device rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, collections, statistics
R = sys.argv[1]
builds, cur = [], None
for line in open(f"{R}/trace-bf16.txt"):
    if not line.startswith("trace "): continue
    _, name, us = line.split()
    if name == "plan.enter": cur = []; builds.append(cur)
    if cur is not None: cur.append((name, float(us)))
print("## bf16", len(builds), "traced builds")
groups = collections.defaultdict(list)
for b in builds: groups[tuple(n for n, _ in b)].append([t for _, t in b])
for names, rows in groups.items():
    med = [statistics.median(c) for c in zip(*rows)]
    print(" ", len(rows), "builds:", " ".join(f"{n}={t:.0f}" for n, t in zip(names, med)))
print("## plans from device CSR, matrices of 1 M nonzeros or more: build / fastest apply")
worst = []
for line in open(f"{R}/from-device.jsonl"):
    r = json.loads(line)
    if not r.get("check_passed", True): print("CHECK FAILED", r["matrix"], r["precision"])
    if r["nnz"] < 1e6: continue
    t = r["plan_build_ms"] / r["median_ms"]
    worst.append(t)
    print(f"{r['matrix']:20s} {r['precision']:5s} {r['details'].get('partition','rows'):12s} build {r['plan_build_ms']:.3f} dev {r['device_preprocess_ms']:.3f} apply {r['median_ms']:.4f} ratio {t:.2f}")
print("max ratio", max(worst))
PY
for m in gen:pruned:rows=16384,cols=16384,sparsity=0.9,seed=9 gen:stencil2d:nx=2000,ny=2000,seed=1; do
  timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum \
    -k "regex:check_|classify|scatter_table" -c 12 \
    $b/tcsparse bench $m --methods csr_overlap --precisions bf16 --runs 1 --warmup-ms 0 \
    --from-device --plan-builds 1 --output /tmp/n.jsonl > $R/ncu-$(echo $m | cut -d: -f2).txt 2>&1
  echo "ncu $m rc $? [$SECONDS s]"
done
grep -h -E "void|duration" $R/ncu-*.txt | sed -e 's/(tcsparse::[^)]*)//g' -e 's/tcsparse:://g' | cut -c1-100 | tail -24
cd $OUT && tar czf r.tgz r && rm -rf r
