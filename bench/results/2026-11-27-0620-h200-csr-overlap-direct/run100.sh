#!/usr/bin/env bash
# Run 100: copy=direct with pointers advanced a round at a time (immediate offsets) against the
# run-99 binary (tcsparse_prev), default suite fp64 / fp32, twice alternated; the direct tests.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run100.log) 2>&1
b=/tmp/bin; mkdir -p $b
for n in tcsparse tcsparse_prev tcsparse_gpu_tests; do xz -dc .device-bin/$n.xz > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
for round in 1 2; do for bin in tcsparse_prev tcsparse; do
timeout 100 $b/$bin bench --suite default --methods cusparse,csr_overlap --precisions fp64,fp32 \
  --plan-builds 1 --runs 20 --output $R/$bin-$round.jsonl > /dev/null 2>&1
echo "bench $bin $round rc $? [$SECONDS s]"
done; done
python3 - $R <<'PY'
import json, sys, math, collections, os
t = collections.defaultdict(dict)
for bin in ["tcsparse_prev", "tcsparse"]:
    for rnd in ["1", "2"]:
        for line in open(os.path.join(sys.argv[1], f"{bin}-{rnd}.jsonl")):
            r = json.loads(line)
            if not r.get("check_passed"): print("CHECK FAILED", r["matrix"], r["method"]); continue
            t[(r["matrix"][:20], r["precision"], r["nnz"])][(r["method"], bin, rnd)] = r["median_ms"]
agg = collections.defaultdict(list)
print("matrix precision | speedup over cusparse of the same run: prev 1, new 1, prev 2, new 2")
for k, v in sorted(t.items(), key=lambda kv: (kv[0][1], -kv[0][2])):
    sp = []
    for rnd in ["1", "2"]:
        for bin in ["tcsparse_prev", "tcsparse"]:
            x = v[("cusparse", bin, rnd)] / v[("csr_overlap", bin, rnd)]; sp.append(x)
            agg[(k[1], "large" if k[2] >= 10_000_000 else "small", bin)].append(x)
    print(*k[:2], "|", " ".join("%.3f" % x for x in sp))
for key, xs in sorted(agg.items()):
    print(*key, "geomean %.3f min %.3f" % (math.exp(sum(map(math.log, xs)) / len(xs)), min(xs)))
PY
gzip -f $R/*.jsonl
SECONDS=0
timeout 200 $b/tcsparse_gpu_tests --gtest_filter='*CsrOverlap*Direct*:*CsrOverlapGpu.Borrow*' --gtest_brief=1 > $R/direct-tests.txt 2>&1
echo "tests rc $? [$SECONDS s]"; grep -E "PASSED|FAILED|SKIPPED" $R/direct-tests.txt
grep -h -B2 -A12 "Failure" $R/direct-tests.txt | head -30
SECONDS=0
timeout 100 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='CsrOverlapGpu.Direct*:AllSynthetic/CsrOverlapGpuOnCatalogue.DirectReadsMatch*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; tail -3 $R/memcheck.txt
