#!/usr/bin/env bash
# Run 149: direct warps with products of 4 bytes take batches of 1024 nonzeros and 256 rows on
# matrices whose rows average 4 to 64 (kDirectWideMaxBatchSize). 1. csr_overlap /
# csr_full_overlap GPU tests (8 shards), memcheck of the direct-warp and large-matrix tests;
# 2. the default suite, every precision, this binary against tcsparse-prev (fb045b7), alternated
# twice; 3. plans from device CSR, both binaries.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run149.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
F='*CsrOverlap*:*csr_overlap*:*FullOverlap*:*full_overlap*'
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_filter="$F" --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED|SKIPPED)" | sort | uniq -c
grep -h -E "^\[  FAILED  \]" $R/tests-*.txt | sort -u | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 200 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='*CsrOverlapGpu.AutoGivesDirect*:*CsrOverlapGpu.LargeGenerated*:*DirectReads*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -4
SECONDS=0
for round in 1 2; do
  for bin in tcsparse tcsparse-prev; do
    timeout 200 $b/$bin bench --suite default --matrix-dir .mx --methods cusparse,csr_overlap \
      --precisions fp64,fp32,fp16,bf16 --plan-builds 1 --runs 20 --output $R/default-$bin-$round.jsonl > /dev/null 2>&1
    echo "default $bin $round rc $? [$SECONDS s]"
  done
done
for bin in tcsparse tcsparse-prev; do
  timeout 150 $b/$bin bench --suite default --matrix-dir .mx --methods csr_overlap --precisions fp32,fp16 \
    --from-device --plan-builds 5 --runs 10 --output $R/from-device-$bin.jsonl > /dev/null 2>&1
  echo "from-device $bin rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, os, collections, glob, math
R = sys.argv[1]
def g(v): return math.exp(sum(map(math.log, v)) / len(v)) if v else float("nan")
t = collections.defaultdict(dict)
for f in sorted(glob.glob(os.path.join(R, "default-*.jsonl"))):
    tag = os.path.basename(f)[8:-6]; bin, rnd = tag.rsplit("-", 1)
    for line in open(f):
        r = json.loads(line)
        if not r.get("check_passed"): print("CHECK FAILED", f, r["matrix"], r["method"], r["precision"]); continue
        t[(r["matrix"][:18], r["precision"], r["nnz"])][(bin, rnd, r["method"])] = (r["median_ms"], (r.get("details") or {}).get("max_batch_size", ""))
print("speedup over cuSPARSE (same binary, same round): prev r1 r2 | new r1 r2 (new max_batch_size)")
geo = collections.defaultdict(list)
for (m, p, nnz), v in sorted(t.items(), key=lambda kv: (kv[0][1], -kv[0][2])):
    row = []
    for bin in ["tcsparse-prev", "tcsparse"]:
        for rnd in "12":
            c, o = v.get((bin, rnd, "cusparse")), v.get((bin, rnd, "csr_overlap"))
            s = c[0] / o[0] if c and o else float("nan"); row.append(s)
            if s == s: geo[(p, bin, nnz >= 10_000_000)].append(s)
    print(f"{m:18s} {p} {nnz:>9d}", " ".join("%.3f" % x for x in row), v.get(("tcsparse", "1", "csr_overlap"), (0, ""))[1])
for k, xs in sorted(geo.items()): print(k, "geomean %.3f min %.3f n %d" % (g(xs), min(xs), len(xs)))
print("plans from device CSR: build ms / SpMV-times")
for bin in ["tcsparse-prev", "tcsparse"]:
    for line in open(os.path.join(R, f"from-device-{bin}.jsonl")):
        r = json.loads(line)
        if r["nnz"] < 1_000_000 or not r.get("check_passed"): continue
        print(bin, r["matrix"][:18], r["precision"], "%.3f %.2f" % (r["plan_build_ms"], r["plan_build_ms"] / r["median_ms"]))
PY
gzip -f $R/*.jsonl
cd $OUT && tar czf r.tgz r && rm -rf r
