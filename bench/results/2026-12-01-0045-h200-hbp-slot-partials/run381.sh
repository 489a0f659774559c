#!/usr/bin/env bash
# Run 381: combine=ranked (auto's choice where x is cut into stripes) against combine=list as a
# variant in the same run, on the hbp suite's matrices of >= 8 M columns and kron_like_21, fp64
# and fp16, with cuSPARSE and DASP, two passes; the HBP GPU tests (8 shards) and memcheck of the
# new tests.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r381; mkdir -p $R
exec > >(tee -a $R/run381.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin381; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 250 $b/tcsparse_gpu_tests --gtest_filter='*Hbp*:*hbp*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -60
cat $R/tests-*.txt > $R/run381-gpu-tests.txt; rm $R/tests-*.txt
echo "[$SECONDS s] memcheck"
timeout 150 compute-sanitizer --tool memcheck --leak-check full $b/tcsparse_gpu_tests \
  --gtest_filter='HbpGpu.RankedCombineMatchesTheReferenceInEveryPrecision:HbpGpu.AutoCombinesByRank*:HbpGpu.MemsetSpmvAndCombineCapture*' \
  --gtest_brief=1 > $R/run381-memcheck.txt 2>&1; echo "memcheck rc $?"
tail -4 $R/run381-memcheck.txt
echo "[$SECONDS s] bench"
M="gen:rmat:scale=23,edge_factor=16,seed=44 gen:rmat:scale=24,edge_factor=16,seed=45
  gen:random:rows=16000000,cols=16000000,dist=power_law,min=1,max=20000,exponent=2,seed=46
  gen:random:rows=16000000,cols=16000000,dist=uniform,min=4,max=12,seed=42
  gen:banded:n=24000000,bandwidth=1,seed=68 gen:rmat:scale=21,edge_factor=48,seed=66"
for pass in 1 2; do
  methods=hbp; [ $pass = 1 ] && methods=hbp,dasp,cusparse
  timeout 200 $b/tcsparse bench $M --methods $methods --precisions fp64,fp16 --plan-builds 1 --runs 20 \
    --variant list:combine=list --output $R/run381-$pass.jsonl > /dev/null 2>&1; echo "pass $pass rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, glob, math, statistics
R = sys.argv[1]
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
t = {}
for f in sorted(glob.glob(f"{R}/run381-*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: continue
        if not r.get("check_passed", True): print("CHECK FAILED", f, r["matrix"], r["precision"], r["method"])
        key = (r["matrix"], r["precision"], r["method"] + ("[" + r["variant"] + "]" if r.get("variant") else ""))
        t.setdefault(key, []).append(r)
for p in ("fp64", "fp16"):
    rows = []
    for m in sorted({k[0] for k in t if k[1] == p}):
        get = lambda x: t.get((m, p, x))
        c, n, o, d = get("cusparse"), get("hbp"), get("hbp[list]"), get("dasp")
        if not (c and n and o and d): print("missing", m, p); continue
        ms = lambda rs: statistics.median(r["median_ms"] for r in rs)
        part = lambda rs, k: statistics.median(r["details"].get(k, float("nan")) for r in rs)
        top = lambda rs, k: statistics.median(r.get(k, float("nan")) for r in rs)
        rows.append((m, ms(c)/ms(n), ms(c)/ms(o), ms(c)/ms(d), c[0]["cols"]))
        print(f"{m[:40]:40s} {p} cus {ms(c)*1e3:8.1f} | ranked {ms(n)*1e3:8.1f} (spmv {part(n,'spmv_ms')*1e3:7.1f} combine {part(n,'combine_ms')*1e3:6.1f}, {n[0]['details'].get('combine')}) | list {ms(o)*1e3:8.1f} (spmv {part(o,'spmv_ms')*1e3:7.1f} combine {part(o,'combine_ms')*1e3:6.1f}) | dasp {ms(d)*1e3:8.1f} | ranked/list {ms(o)/ms(n):.3f}x | build {top(n,'device_preprocess_ms'):.2f} / {top(o,'device_preprocess_ms'):.2f} ms, rank {n[0]['details'].get('plan_phases_ms',{}).get('rank_partials',0):.2f} ms, MB {n[0]['device_bytes']/1e6:.0f} / {o[0]['device_bytes']/1e6:.0f}, rows ranked {n[0]['details'].get('ranked_combine_rows')} listed {n[0]['details'].get('listed_combine_rows')}")
    big = [r for r in rows if r[4] >= 8_000_000]
    print(f"{p} >=8M cols ({len(big)}): over cuSPARSE ranked {g([r[1] for r in big]):.3f}x list {g([r[2] for r in big]):.3f}x dasp {g([r[3] for r in big]):.3f}x; ranked over dasp {g([r[1]/r[3] for r in big]):.3f}x, list over dasp {g([r[2]/r[3] for r in big]):.3f}x")
PY
cd $R && gzip -f *.jsonl run381-gpu-tests.txt && cp run381-*.gz run381-memcheck.txt run381.log $OUT/
echo "[$SECONDS s]"
