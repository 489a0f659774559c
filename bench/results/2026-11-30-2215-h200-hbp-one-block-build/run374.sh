#!/usr/bin/env bash
# Run 374: (1) the GPU tests of tca's pool trim after a GPU tiles build (PlanBuild.TcaBuildsKeep...,
# run 372's patch) and of hbp's one-column-block build path (steps 1-2 from row_ptr alone), with
# PlanBuild, hbp, tca, AutoPlan and conformance, 16 shards; memcheck on the hbp build tests;
# (2) hbp GPU builds in SpMV-times on the hbp suite up to 25 M nonzeros, the new binary and the
# old (before the one-block path) alternating, 2 rounds of 5 builds; (3) ncu: every kernel of one
# rajat01-replica build, new binary.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run374.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='PlanBuild.*:HbpGpuBuild*:HbpGpu*:*Hbp*:*hbp*:SpmmLayouts.Tca*:*Conformance*tca*:AutoPlan.*:*ApplyPromises*:*FromDeviceCsr*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)" | sort | uniq -c
cat $R/tests-*.txt | grep -c "^\[       OK"
grep -h "OK \] PlanBuild" $R/tests-*.txt
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt | gzip -c > $OUT/run374-gpu-tests.txt.gz
timeout 240 compute-sanitizer --tool memcheck --leak-check full $b/tcsparse_gpu_tests \
  --gtest_filter='HbpGpuBuild.EdgeShapes*:HbpGpuBuild.RowsCutIntoChunks*:PlanBuild.Tca*' > $OUT/run374-memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; tail -3 $OUT/run374-memcheck.txt
for round in 1 2; do
  for bin in tcsparse tcsparse_old; do
    timeout 200 $b/$bin bench --suite hbp --matrix-dir .mx --max-nnz 25000000 --methods hbp \
      --precisions fp64,fp16 --plan-builds 5 --output $R/build-$bin-$round.jsonl > /dev/null 2>&1
    echo "bench $bin round $round rc $? [$SECONDS s]"
  done
done
python3 - $R <<'PY'
import json, sys, glob, collections
rows = collections.defaultdict(dict)
for f in sorted(glob.glob(sys.argv[1] + "/build-*.jsonl")):
    tag = f.split("build-")[1].rsplit("-", 1)[0]
    for l in open(f):
        r = json.loads(l)
        if r.get("method") != "hbp": continue
        k = (r["matrix"][:60], r["precision"])
        rows[k].setdefault(tag, []).append((r["device_preprocess_ms"], r["median_ms"], r["nnz"]))
print(f"{'matrix':60s} prec  nnz        new build ms / x SpMV     old build ms / x SpMV")
for k, v in rows.items():
    line = f"{k[0]:60s} {k[1]:5s}"
    nnz = None
    for tag in ("tcsparse", "tcsparse_old"):
        for build, spmv, nnz in v.get(tag, []):
            line += f"  {build:7.3f} / {build / spmv:5.1f}"
        line += "   |"
    print(f"{line} nnz {nnz}")
PY
timeout 120 ncu --clock-control none --metrics gpu__time_duration.sum --csv --print-units base \
  $b/tcsparse bench gen:replicate:file=.mx/suitesparse/rajat01.mtx.gz,copies=50 --methods hbp \
  --precisions fp64 --plan-builds 1 --runs 1 --warmup-ms 0 --output $R/ncu.jsonl > $R/ncu.csv 2> $R/ncu.err
echo "ncu rc $? [$SECONDS s]"
python3 - $R/ncu.csv <<'PY'
import csv, sys, collections
rows = [r for r in csv.reader(open(sys.argv[1])) if len(r) > 10]
head = rows[0]; rows = rows[1:]
ki = head.index("Kernel Name"); vi = head.index("Metric Value")
total = collections.defaultdict(float); count = collections.Counter()
for r in rows:
    name = r[ki].split("(")[0].split("<")[0]
    total[name] += float(r[vi].replace(",", "")) / 1e3; count[name] += 1
print("kernels:", sum(count.values()), "GPU us total:", round(sum(total.values()), 1))
for n, t in sorted(total.items(), key=lambda x: -x[1])[:45]:
    print(f"  {t:9.1f} us  x{count[n]:3d}  {n}")
PY
cd $R && tar czf $OUT/run374-records.tar.gz build-*.jsonl ncu.csv ncu.jsonl
echo "done [$SECONDS s]"
