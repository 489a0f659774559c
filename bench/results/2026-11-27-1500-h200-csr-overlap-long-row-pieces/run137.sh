#!/usr/bin/env bash
# Run 137: csr_overlap's table build in two scans with 8-byte items, and the long-row kernel a
# warp a piece (8 nonzeros in flight a lane) instead of a block a piece.
#  1. csr_overlap / full-overlap / conformance / device-CSR GPU tests (8 shards), memcheck of the
#     long-row and device-table tests;
#  2. matrices with long rows, fp64 / fp32: cuSPARSE, the new kernel at pieces 8192 (default) /
#     4096 / 2048 / 1024, and the previous binary (tcsparse-old, 377ee4f), alternated twice;
#  3. plans from device CSR (--from-device --plan-builds 5) on the default suite's large matrices,
#     both binaries.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run137.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='*CsrOverlap*:*csr_overlap*:*FullOverlap*:*full_overlap*:*Conformance*:*DeviceCsr*:*ApplyPromises*'
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 240 $b/tcsparse_gpu_tests --gtest_filter="$F" --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED|SKIPPED)" | sort | uniq -c
grep -h -E "^\[  FAILED  \]" $R/tests-*.txt | sort -u | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 150 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='*CsrOverlap*Long*:*CsrOverlap*DeviceTable*:*CsrOverlap*Piece*:*FullOverlap*Long*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -4
LONG="gen:rmat:scale=20,edge_factor=16,seed=3 gen:random:rows=2000000,cols=2000000,dist=power_law,min=1,max=20000,exponent=2,seed=5 gen:long:rows=20000,cols=1000000,length=1000,seed=8 gen:pruned:rows=16384,cols=16384,sparsity=0.9,seed=9 gen:random:rows=100000,cols=100000,dist=power_law,min=1,max=5000,exponent=2,seed=14 gen:rmat:scale=15,edge_factor=16,seed=13"
SECONDS=0
for round in 1 2; do
  timeout 200 $b/tcsparse bench $LONG --methods cusparse,csr_overlap --precisions fp64,fp32 \
    --variant p4096:long_row_piece=4096 --variant p2048:long_row_piece=2048 --variant p1024:long_row_piece=1024 \
    --plan-builds 1 --runs 20 --output $R/long-new-$round.jsonl > /dev/null 2>&1
  echo "new $round rc $? [$SECONDS s]"
  timeout 120 $b/tcsparse-old bench $LONG --methods cusparse,csr_overlap --precisions fp64,fp32 \
    --plan-builds 1 --runs 20 --output $R/long-old-$round.jsonl > /dev/null 2>&1
  echo "old $round rc $? [$SECONDS s]"
done
for bin in tcsparse tcsparse-old; do
  timeout 150 $b/$bin bench --suite default --matrix-dir .mx --max-nnz 100000000 --methods csr_overlap --precisions fp64,fp32 \
    --from-device --plan-builds 5 --runs 10 --output $R/from-device-$bin.jsonl > /dev/null 2>&1
  echo "from-device $bin rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, os, collections, glob
R = sys.argv[1]
t = collections.defaultdict(dict)
for f in sorted(glob.glob(os.path.join(R, "long-*.jsonl"))):
    tag = os.path.basename(f)[5:-6]  # new-1, old-2
    for line in open(f):
        r = json.loads(line)
        if not r.get("check_passed"): print("CHECK FAILED", f, r["matrix"], r["method"], r.get("variant"))
        m = r["method"] + (":" + r["variant"] if r.get("variant") else "")
        t[(r["matrix"][4:30], r["precision"], tag[-1])][tag[:3] + ":" + m] = r["median_ms"]
labels = ["old:csr_overlap", "new:csr_overlap", "new:csr_overlap:p4096", "new:csr_overlap:p2048", "new:csr_overlap:p1024"]
print("speedup over cuSPARSE (same binary's cuSPARSE)")
print("matrix prec round cus_us", *labels)
for k, v in sorted(t.items()):
    row = []
    for l in labels:
        c = v.get(l[:4] + "cusparse")
        row.append(f"{c / v[l]:.3f}" if l in v and c else "-")
    print(*k, round(v.get("new:cusparse", 0) * 1000, 1), *row)
print("plans from device CSR: build ms, SpMV ms, SpMV-times, device_preprocess_ms")
for bin in ["tcsparse-old", "tcsparse"]:
    f = os.path.join(R, f"from-device-{bin}.jsonl")
    if not os.path.exists(f): continue
    for line in open(f):
        r = json.loads(line)
        if r["nnz"] < 1_000_000: continue
        print(bin, r["matrix"][:20], r["precision"], r["nnz"], round(r["plan_build_ms"], 3), round(r["median_ms"], 4),
              round(r["plan_build_ms"] / r["median_ms"], 2), round(r["device_preprocess_ms"], 3), r["check_passed"])
PY
gzip -f $R/*.jsonl
cd $OUT && tar czf r.tgz r && rm -rf r
