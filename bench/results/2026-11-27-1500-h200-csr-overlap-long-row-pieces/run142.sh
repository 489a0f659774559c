#!/usr/bin/env bash
# Run 142 (final code): run 140's code with long_row_piece=auto taking 1024 only where the mean
# row length is at most max_batch_size too (run 141: pruned_16k, all long rows of mean 1636, had
# 2585 rows split in two and the combine kernel launched, 2-3 % slower).
#  1. csr_overlap / csr_full_overlap GPU tests (8 shards, 300 s), memcheck of the long-row and
#     device-table tests;
#  2. the default suite (replica_cage11 included), every precision, cuSPARSE and csr_overlap, this
#     binary and the previous one (tcsparse-old, 377ee4f), alternated twice;
#  3. plans from device CSR (--from-device --plan-builds 5) on the default suite, both binaries.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run142.log) 2>&1
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
timeout 150 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='*CsrOverlap*Long*:*CsrOverlap*DeviceTable*:*CsrOverlap*Piece*:*FullOverlap*Long*:*PiecesNumberedAfterTheScan*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -4
SECONDS=0
for round in 1 2; do
  for bin in tcsparse tcsparse-old; do
    timeout 240 $b/$bin bench --suite default --matrix-dir .mx --methods cusparse,csr_overlap \
      --precisions fp64,fp32,fp16,bf16 --plan-builds 1 --runs 20 --output $R/default-$bin-$round.jsonl > /dev/null 2>&1
    echo "default $bin $round rc $? [$SECONDS s]"
  done
done
for bin in tcsparse tcsparse-old; do
  timeout 150 $b/$bin bench --suite default --matrix-dir .mx --methods csr_overlap --precisions fp64,fp32 \
    --from-device --plan-builds 5 --runs 10 --output $R/from-device-$bin.jsonl > /dev/null 2>&1
  echo "from-device $bin rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, os, collections, glob, math
R = sys.argv[1]
t = collections.defaultdict(dict)
for f in sorted(glob.glob(os.path.join(R, "default-*.jsonl"))):
    tag = os.path.basename(f)[8:-6]  # tcsparse-1, tcsparse-old-2
    bin, rnd = tag.rsplit("-", 1)
    for line in open(f):
        r = json.loads(line)
        if not r.get("check_passed"): print("CHECK FAILED", f, r["matrix"], r["method"])
        t[(r["matrix"][:20], r["precision"], r["nnz"])][(bin, rnd, r["method"])] = r["median_ms"]
print("csr_overlap speedup over cuSPARSE (same binary, same round): old r1, old r2 | new r1, new r2")
geo = collections.defaultdict(list)
for (m, p, nnz), v in sorted(t.items(), key=lambda kv: (kv[0][1], -kv[0][2])):
    row = []
    for bin in ["tcsparse-old", "tcsparse"]:
        for rnd in "12":
            c, o = v.get((bin, rnd, "cusparse")), v.get((bin, rnd, "csr_overlap"))
            s = c / o if c and o else float("nan")
            row.append(s)
            if nnz >= 10_000_000 and s == s: geo[(p, bin, "large")].append(s)
            if s == s: geo[(p, bin, "all")].append(s)
    print(f"{m:20s} {p} {nnz:>9d}", " ".join(f"{x:.3f}" for x in row))
for k, xs in sorted(geo.items()):
    print(k, "geomean %.3f min %.3f n %d" % (math.exp(sum(map(math.log, xs)) / len(xs)), min(xs), len(xs)))
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
