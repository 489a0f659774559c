#!/usr/bin/env bash
# Run 291: the final build (column_order=auto: hubs_first from 2^22 nonzeros and a concentration
# of 30; hub_min_count=auto: 2 x the mean count). The hbp suite with hbp (default and
# column_order=caller), DASP and cuSPARSE side by side, fp64 and fp16; then the GPU tests of DASP,
# HBP, the plan builds, the conformance suite and the automatic choice (8 shards).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run291.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
timeout 330 $b/tcsparse bench --suite hbp --matrix-dir .mx --methods hbp,dasp,cusparse --precisions fp64,fp16 \
  --plan-builds 1 --runs 20 --variant caller:column_order=caller --output $R/run291-hbp-suite.jsonl > /dev/null 2>&1; echo "bench rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, glob, math
R = sys.argv[1]
rec = [json.loads(l) for f in glob.glob(f"{R}/run291-*.jsonl") for l in open(f)]
t = {}
for r in rec:
    if "median_ms" not in r: continue
    t[(r["matrix"], r["precision"], r["method"] + (("[" + r["variant"] + "]") if r.get("variant") else ""))] = r
print("checks failed:", [k for k, r in t.items() if not r.get("check_passed", True)])
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
for p in ("fp64", "fp16"):
    rows = []
    for m in sorted({k[0] for k in t if k[1] == p}):
        try: c, h, hc, d = (t[(m, p, x)] for x in ("cusparse", "hbp", "hbp[caller]", "dasp"))
        except KeyError as e: print("missing", m, p, e); continue
        ms = lambda r: r["median_ms"]; det = h.get("details", {})
        rows.append((m, c["cols"], ms(c)/ms(h), ms(c)/ms(hc), ms(c)/ms(d)))
        print(f"{m[:24]:24s} {p} cus {ms(c)*1e3:8.1f} us | hbp {ms(h)*1e3:8.1f} ({det.get('column_order')}, conc {det.get('column_count_concentration', float('nan')):6.1f}, hubs >= {det.get('hub_min_count', '-')}) caller {ms(hc)*1e3:8.1f} | dasp {ms(d)*1e3:8.1f} | hbp/cus {ms(c)/ms(h):.3f}x hbp/dasp {ms(d)/ms(h):.3f}x | build {h['device_preprocess_ms']:.2f} ms = {h['device_preprocess_ms']/ms(h):.1f} SpMVs (caller {hc['device_preprocess_ms']/ms(hc):.1f})")
    big = [r for r in rows if r[1] >= 8_000_000]
    for name, sel in (("suite", rows), (">=8M cols", big)):
        print(f"{p} {name} ({len(sel)}): over cuSPARSE hbp {g([r[2] for r in sel]):.3f}x (caller order {g([r[3] for r in sel]):.3f}x) dasp {g([r[4] for r in sel]):.3f}x; hbp over dasp {g([r[2]/r[4] for r in sel]):.3f}x")
PY
echo "[$SECONDS s] tests"
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 300 $b/tcsparse_gpu_tests --gtest_filter='*Dasp*:*dasp*:*Hbp*:*hbp*:PlanBuild.*:*Conformance*:*AutoChoice*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]|SKIPPED \]" | sort | uniq -c | head -20
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/run291-gpu-tests.txt; rm $R/tests-*.txt
cd $R && gzip *.jsonl run291-gpu-tests.txt && tar czf $OUT/run291.tgz run291* && cp run291.log $OUT/
echo "[$SECONDS s]"
