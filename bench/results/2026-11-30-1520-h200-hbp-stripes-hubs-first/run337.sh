#!/usr/bin/env bash
# Run 337: the kept change (block_cols=auto: stripes of a fifth of the L2 where x is read hubs
# first in fp64). The HBP, plan-build, conformance and auto-choice GPU tests (8 shards); the whole
# hbp suite with hbp, DASP and cuSPARSE, fp64 and fp16; the R-MAT graphs and kron_like_21 in fp64
# against the stripes the third gave (variant `third`, block_cols as auto chose before).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $R/run337.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_filter='*Hbp*:*hbp*:PlanBuild.*:*Conformance*:*AutoChoice*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/run337-gpu-tests.txt; rm $R/tests-*.txt
echo "[$SECONDS s] bench"
timeout 330 $b/tcsparse bench --suite hbp --matrix-dir .mx --methods hbp,dasp,cusparse --precisions fp64,fp16 \
  --plan-builds 1 --runs 20 --output $R/run337-hbp-suite.jsonl > $R/run337-hbp-suite.txt 2>&1; echo "bench rc $? [$SECONDS s]"
third() { local name=$1 spec=$2 cols=$3; timeout 120 $b/tcsparse bench $spec --methods hbp --precisions fp64 --plan-builds 1 --runs 20 \
  --variant third:block_cols=$cols --output $R/run337-third-$name.jsonl > /dev/null 2>&1; echo "$name rc $? [$SECONDS s]"; }
third rmat23 gen:rmat:scale=23,edge_factor=16,seed=44 2097152
third rmat24 gen:rmat:scale=24,edge_factor=16,seed=45 2396752
third kron21 gen:rmat:scale=21,edge_factor=48,seed=66 2097152
python3 - $R <<'PY'
import json, sys, glob, math
R = sys.argv[1]
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
rec = [json.loads(l) for l in open(f"{R}/run337-hbp-suite.jsonl")]
t = {}
for r in rec:
    if "median_ms" not in r: continue
    t[(r["matrix"], r["precision"], r["method"])] = r
print("checks failed:", [k for k, r in t.items() if not r.get("check_passed", True)])
for p in ("fp64", "fp16"):
    rows = []
    for m in sorted({k[0] for k in t if k[1] == p}):
        try: c, h, d = (t[(m, p, x)] for x in ("cusparse", "hbp", "dasp"))
        except KeyError as e: print("missing", m, p, e); continue
        ms = lambda r: r["median_ms"]; det = h.get("details", {})
        rows.append((m, c["cols"], ms(c)/ms(h), ms(c)/ms(d)))
        print(f"{m[:24]:24s} {p} cus {ms(c)*1e3:8.1f} us | hbp {ms(h)*1e3:8.1f} ({det.get('column_order')}, block_cols {det.get('block_cols')}) | dasp {ms(d)*1e3:8.1f} | hbp/cus {ms(c)/ms(h):.3f}x hbp/dasp {ms(d)/ms(h):.3f}x | build {h['device_preprocess_ms']:.2f} ms = {h['device_preprocess_ms']/ms(h):.1f} SpMVs")
    big = [r for r in rows if r[1] >= 8_000_000]
    for name, sel in (("suite", rows), (">=8M cols", big)):
        print(f"{p} {name} ({len(sel)}): over cuSPARSE hbp {g([r[2] for r in sel]):.3f}x dasp {g([r[3] for r in sel]):.3f}x; hbp over dasp {g([r[2]/r[3] for r in sel]):.3f}x")
for f in sorted(glob.glob(f"{R}/run337-third-*.jsonl")):
    t = {}
    for l in open(f):
        r = json.loads(l)
        if "median_ms" in r: t[r.get("variant") or "auto"] = r
    a, th = t["auto"], t["third"]
    print(f"{a['matrix'][:40]:40s} fp64 auto {a['median_ms']*1e3:8.1f} us (block_cols {a['details'].get('block_cols')}) third {th['median_ms']*1e3:8.1f} us (block_cols {th['details'].get('block_cols')}): {th['median_ms']/a['median_ms']:.3f}x")
PY
cd $R && gzip -f *.jsonl run337-gpu-tests.txt && tar czf $OUT/run337.tgz run337* && cp run337.log $OUT/
echo "[$SECONDS s]"
