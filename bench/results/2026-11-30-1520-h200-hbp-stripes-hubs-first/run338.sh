#!/usr/bin/env bash
# Run 338: the combine loading 4 of a row's partial sums at once (kCombineBatch) against run 337's
# binary (one at a time, `prev`), alternating twice, on the hbp suite's matrices of >= 8 M columns
# and kron_like_21, fp64 and fp16, with cuSPARSE and DASP; the HBP GPU tests (8 shards).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $R/run338.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 250 $b/tcsparse_gpu_tests --gtest_filter='*Hbp*:*hbp*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/run338-gpu-tests.txt; rm $R/tests-*.txt
echo "[$SECONDS s] bench"
M="gen:rmat:scale=23,edge_factor=16,seed=44 gen:rmat:scale=24,edge_factor=16,seed=45
  gen:random:rows=16000000,cols=16000000,dist=power_law,min=1,max=20000,exponent=2,seed=46
  gen:random:rows=16000000,cols=16000000,dist=uniform,min=4,max=12,seed=42
  gen:banded:n=24000000,bandwidth=1,seed=68 gen:rmat:scale=21,edge_factor=48,seed=66"
for pass in 1 2; do
  for bin in tcsparse tcsparse_prev; do
    methods=hbp; [ $pass = 1 ] && [ $bin = tcsparse ] && methods=hbp,dasp,cusparse
    timeout 200 $b/$bin bench $M --methods $methods --precisions fp64,fp16 --plan-builds 1 --runs 20 \
      --output $R/run338-$bin-$pass.jsonl > /dev/null 2>&1; echo "$bin pass $pass rc $? [$SECONDS s]"
  done
done
python3 - $R <<'PY'
import json, sys, glob, math, statistics
R = sys.argv[1]
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
t = {}
for f in glob.glob(f"{R}/run338-*.jsonl"):
    binary = "new" if "/run338-tcsparse-" in f else "prev"
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: continue
        if not r.get("check_passed", True): print("CHECK FAILED", f, r["matrix"], r["precision"], r["method"])
        key = (r["matrix"], r["precision"], r["method"] if r["method"] != "hbp" else "hbp-" + binary)
        t.setdefault(key, []).append(r)
for p in ("fp64", "fp16"):
    rows = []
    for m in sorted({k[0] for k in t if k[1] == p}):
        get = lambda x: t.get((m, p, x))
        c, n, o, d = get("cusparse"), get("hbp-new"), get("hbp-prev"), get("dasp")
        if not (c and n and o and d): print("missing", m, p); continue
        ms = lambda rs: statistics.median(r["median_ms"] for r in rs)
        part = lambda rs, k: statistics.median(r["details"].get(k, float("nan")) for r in rs)
        rows.append((m, ms(c)/ms(n), ms(c)/ms(o), ms(c)/ms(d), c[0]["cols"]))
        print(f"{m[:40]:40s} {p} cus {ms(c)*1e3:8.1f} | new {ms(n)*1e3:8.1f} (combine {part(n,'combine_ms')*1e3:6.1f}) | prev {ms(o)*1e3:8.1f} (combine {part(o,'combine_ms')*1e3:6.1f}) | dasp {ms(d)*1e3:8.1f} | new/prev {ms(o)/ms(n):.3f}x")
    big = [r for r in rows if r[4] >= 8_000_000]
    print(f"{p} >=8M cols ({len(big)}): over cuSPARSE new {g([r[1] for r in big]):.3f}x prev {g([r[2] for r in big]):.3f}x dasp {g([r[3] for r in big]):.3f}x; new over dasp {g([r[1]/r[3] for r in big]):.3f}x")
PY
cd $R && gzip -f *.jsonl run338-gpu-tests.txt && tar czf $OUT/run338.tgz run338* && cp run338.log $OUT/
echo "[$SECONDS s]"
