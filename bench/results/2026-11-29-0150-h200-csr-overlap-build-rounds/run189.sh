#!/usr/bin/env bash
# Run 189: csr_overlap plans from device CSR on the default suite, every precision, five builds a
# case, four rounds in one call (the code of stop 41: run 187's one round put stencil2d_2000 bf16
# at 3.78 SpMV-times; how often does a build pass issue 9's bound of 3?).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run189.log) 2>&1
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version,clocks.sm,clocks.max.sm --format=csv,noheader
nproc; grep -m1 "model name" /proc/cpuinfo
SECONDS=0
for round in 1 2 3 4; do
  timeout 120 $b/tcsparse bench --suite default --methods csr_overlap --precisions fp64,fp32,fp16,bf16 \
    --from-device --plan-builds 5 --runs 10 --output $R/from-device-$round.jsonl > /dev/null 2>&1
  echo "from-device round $round rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys
R = sys.argv[1]
for rnd in (1, 2, 3, 4):
    rows = []
    for line in open(f"{R}/from-device-{rnd}.jsonl"):
        r = json.loads(line)
        if not r.get("check_passed", True): print("CHECK FAILED", r["matrix"], r["precision"])
        if r["nnz"] < 1e6: continue
        rows.append((r["plan_build_ms"] / r["median_ms"], r["matrix"], r["precision"], r["plan_build_ms"], r["median_ms"], [round(x, 3) for x in r["details"].get("plan_builds_ms", [])]))
    rows.sort()
    print(f"## round {rnd}: {len(rows)} cases, over 3: {sum(1 for x in rows if x[0] > 3)}; the highest four")
    for x in rows[-4:]: print(f"  {x[1]:16s} {x[2]:5s} {x[0]:.2f} build {x[3]:.3f} apply {x[4]:.4f} builds {x[5]}")
PY
cd $OUT && tar czf r.tgz r && rm -rf r
