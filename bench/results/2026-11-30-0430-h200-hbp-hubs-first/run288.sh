#!/usr/bin/env bash
# Run 288: hbp's column_order (hubs_first: inside each column block the columns with most
# nonzeros first, x gathered into that order by each apply; auto: by the column counts'
# concentration) against the caller's order on the whole hbp suite, fp64 and fp16, beside DASP
# and cuSPARSE. Then the existing HBP GPU tests and DASP's row-order tests (the inverse of an
# order moved to runtime/permute).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run288.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
V="--variant hubs:column_order=hubs_first --variant auto:column_order=auto"
timeout 330 $b/tcsparse bench --suite hbp --matrix-dir .mx --methods hbp,dasp,cusparse --precisions fp64,fp16 \
  --plan-builds 1 --runs 20 $V --output $R/run288-hbp-suite.jsonl > /dev/null 2>$R/bench-err.txt; echo "bench rc $? [$SECONDS s]"
tail -3 $R/bench-err.txt
python3 - $R <<'PY'
import json, sys, glob, math
R = sys.argv[1]
rec = [json.loads(l) for f in glob.glob(f"{R}/*.jsonl") for l in open(f)]
t = {}
for r in rec:
    if "median_ms" not in r: continue
    m = r["method"] + (("[" + r["variant"] + "]") if r.get("variant") else "")
    t[(r["matrix"], r["precision"], m)] = r
bad = [k for k, r in t.items() if not r.get("check_passed", True)]
print("checks failed:", bad)
g = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float("nan")
for p in ("fp64", "fp16"):
    rows = []
    for m in sorted({k[0] for k in t if k[1] == p}):
        try:
            c, h, hh, ha, d = (t[(m, p, x)] for x in ("cusparse", "hbp", "hbp[hubs]", "hbp[auto]", "dasp"))
        except KeyError as e:
            print("missing", m, p, e); continue
        ms = lambda r: r["median_ms"]
        det = ha.get("details", {})
        rows.append((m, ms(c)/ms(h), ms(c)/ms(hh), ms(c)/ms(ha), ms(c)/ms(d)))
        ph = hh.get("details", {}).get("plan_phases_ms", {}).get("column_order", float("nan"))
        print(f"{m[:34]:34s} {p} cols {c.get('cols', 0):>9} cus {ms(c)*1e3:8.1f} us | hbp {ms(h)*1e3:8.1f} hubs {ms(hh)*1e3:8.1f} ({ms(h)/ms(hh):.3f}x) auto {det.get('column_order')} conc {det.get('column_count_concentration', float('nan')):8.2f} | dasp {ms(d)*1e3:8.1f} | build ms hbp {h.get('plan_build_ms', 0):.2f} hubs {hh.get('plan_build_ms', 0):.2f} (order {ph:.2f}) spmvs {hh.get('plan_build_ms',0)/ms(hh):.1f}")
    big = [r for r in rows if t[(r[0], p, 'cusparse')].get('cols', 0) >= 8_000_000]
    for name, sel in (("suite", rows), (">=8M cols", big)):
        print(f"{p} {name} ({len(sel)}): over cuSPARSE hbp {g([r[1] for r in sel]):.3f}x hubs {g([r[2] for r in sel]):.3f}x auto {g([r[3] for r in sel]):.3f}x dasp {g([r[4] for r in sel]):.3f}x; hubs over dasp {g([r[2]/r[4] for r in sel]):.3f}x")
PY
echo "[$SECONDS s] tests"
timeout 200 $b/tcsparse_gpu_tests --gtest_filter='Hbp*:DaspGpu.InternalRowOrder*:DaspGpu.*RowOrder*' --gtest_brief=1 > $R/run288-gpu-tests.txt 2>&1
echo "tests rc $?"; grep -E "^\[  (PASSED|FAILED)|FAILED  \]" $R/run288-gpu-tests.txt | head -20
cd $R && gzip *.jsonl run288-gpu-tests.txt && tar czf $OUT/run288.tgz run288* && cp run288.log $OUT/
echo "[$SECONDS s]"
