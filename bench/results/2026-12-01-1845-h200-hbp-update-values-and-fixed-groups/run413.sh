#!/usr/bin/env bash
# Run 413: compute-sanitizer memcheck of the new HBP GPU tests (update_values=on, the fixed part
# of groups in the repeated applies); then the hbp suite with a fixed share of the groups handed
# out at launch (fixed_group_share 0.5 / 0.8 / 0.95) beside the default (every group by ticket)
# and cuSPARSE, fp64 and fp16, two passes alternating.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run413.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
timeout 170 compute-sanitizer --tool memcheck --error-exitcode 9 $b/tcsparse_gpu_tests --gtest_brief=1 \
  --gtest_filter='HbpGpu.UpdateValues*:HbpGpu.RepeatedApplies*' > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|^\[  (PASSED|FAILED)|FAILED  \]" $R/memcheck.txt | head
for pass in 1 2; do
  timeout 190 $b/tcsparse bench --suite hbp --matrix-dir .mx --methods hbp,cusparse --precisions fp64,fp16 \
    --runs 20 --plan-builds 1 --variant f50:fixed_group_share=0.5 --variant f80:fixed_group_share=0.8 \
    --variant f95:fixed_group_share=0.95 --output $R/run413-$pass.jsonl > $R/bench-$pass.txt 2>&1
  echo "pass $pass rc $? [$SECONDS s]"; tail -2 $R/bench-$pass.txt
done
python3 - $R <<'PY'
import json, sys, glob, statistics, collections, math
t = collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(sys.argv[1] + "/run413-*.jsonl")):
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: continue
        d = r.get("details", {})
        t[(r["precision"], r["matrix"])][r.get("variant") or r["method"]].append((r["median_ms"] * 1e3, d.get("kernel", "")))
geo = collections.defaultdict(list)
for k, by in sorted(t.items()):
    med = {lab: statistics.median(x[0] for x in xs) for lab, xs in by.items()}
    kern = by["hbp"][0][1] if "hbp" in by else ""
    print(k[0], f"{k[1]:22s} {kern:6s}", "  ".join(f"{lab} {v:8.1f}" for lab, v in sorted(med.items())),
          " ", "  ".join(f"{lab}/hbp {med['hbp']/med[lab]:.3f}" for lab in ("f50", "f80", "f95") if lab in med))
    if kern == "groups":
        for lab in ("f50", "f80", "f95"):
            if lab in med: geo[(k[0], lab)].append(med["hbp"] / med[lab])
for (p, lab), v in sorted(geo.items()):
    print(p, lab, "over default (groups kernel matrices) geomean", round(math.exp(sum(map(math.log, v)) / len(v)), 3), "min", round(min(v), 3), "max", round(max(v), 3), len(v))
PY
cd $R && gzip -f *.jsonl && echo "[$SECONDS s]"
