#!/usr/bin/env bash
# Run 105 (final code): copy=direct loading the next batch's first round ahead for 16-bit values
# only (tcsparse) against a4a63df (tcsparse_base), default suite in every precision, alternated
# twice; then the GPU tests (csr_overlap, full overlap, conformance, apply promises, device CSR)
# and memcheck of the direct tests.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run105.log) 2>&1
b=/tmp/bin; mkdir -p $b
for n in tcsparse_base tcsparse tcsparse_gpu_tests; do xz -dc .device-bin/$n.xz > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
for round in 1 2; do for bin in tcsparse_base tcsparse; do
timeout 100 $b/$bin bench --suite default --methods cusparse,csr_overlap --precisions fp64,fp32,fp16,bf16 \
  --plan-builds 1 --runs 20 --output $R/$bin-$round.jsonl > /dev/null 2>&1
echo "bench $bin $round rc $? [$SECONDS s]"
done; done
python3 - $R <<'PY'
import json, sys, math, collections, os
t = collections.defaultdict(dict)
for bin in ["tcsparse_base", "tcsparse"]:
    for rnd in ["1", "2"]:
        for line in open(os.path.join(sys.argv[1], f"{bin}-{rnd}.jsonl")):
            r = json.loads(line)
            if not r.get("check_passed"): print("CHECK FAILED", bin, r["matrix"], r["method"]); continue
            t[(r["matrix"][:20], r["precision"], r["nnz"])][(r["method"], bin, rnd)] = (r["median_ms"], r.get("bandwidth_share"))
agg = collections.defaultdict(list)
print("matrix precision | over cusparse of the same run: base 1, new 1, base 2, new 2 | bandwidth share base, new (round 2)")
for k, v in sorted(t.items(), key=lambda kv: (kv[0][1], -kv[0][2])):
    sp = []
    for rnd in ["1", "2"]:
        for bin in ["tcsparse_base", "tcsparse"]:
            x = v[("cusparse", bin, rnd)][0] / v[("csr_overlap", bin, rnd)][0]; sp.append(x)
            agg[(k[1], "large" if k[2] >= 10_000_000 else "small", bin)].append(x)
    print(*k[:2], "|", " ".join("%.3f" % x for x in sp), "| %.3f %.3f" % (v[("csr_overlap", "tcsparse_base", "2")][1], v[("csr_overlap", "tcsparse", "2")][1]))
for key, xs in sorted(agg.items()):
    print(*key, "geomean %.3f min %.3f" % (math.exp(sum(map(math.log, xs)) / len(xs)), min(xs)))
PY
gzip -f $R/*.jsonl
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_filter='*CsrOverlap*:*csr_overlap*:*FullOverlap*:*Conformance*:*ApplyPromises*:*DeviceCsr*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "PASSED|FAILED|SKIPPED" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
SECONDS=0
timeout 150 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='CsrOverlapGpu.Direct*:AllSynthetic/CsrOverlapGpuOnCatalogue.DirectRead*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; tail -3 $R/memcheck.txt
