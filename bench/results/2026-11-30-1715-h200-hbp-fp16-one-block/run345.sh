#!/usr/bin/env bash
# Run 345: hbp in fp16 with x in one column block where it fits the L2 (block_cols = the
# columns: no partial sums, no combine) against auto (stripes of at most a third of the L2: two
# for the 16 M-column matrices and R-MAT 24, three for the band), on the hbp suite's matrices of
# >= 8 M columns; cuSPARSE and DASP in the same run. 905bc14's tcsparse.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run345.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
bench() { local name=$1; shift; timeout 200 $b/tcsparse bench "$@" --methods hbp,dasp,cusparse --precisions fp16 \
  --plan-builds 1 --runs 20 --output $R/run345-$name.jsonl > $R/run345-$name.txt 2>&1; echo "$name rc $? [$SECONDS s]"; }
bench rmat24 gen:rmat:scale=24,edge_factor=16,seed=45 --variant one:block_cols=16777216
bench rows16m gen:random:rows=16000000,cols=16000000,dist=power_law,min=1,max=20000,exponent=2,seed=46 \
  gen:random:rows=16000000,cols=16000000,dist=uniform,min=4,max=12,seed=42 --variant one:block_cols=16000000
bench band24m gen:banded:n=24000000,bandwidth=1,seed=68 --variant one:block_cols=24000000
python3 - $R <<'PY'
import json, sys, glob
for f in sorted(glob.glob(sys.argv[1] + "/run345-*.jsonl")):
    by = {}
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r: continue
        by.setdefault(r["matrix"], {})[r["method"] + (("[" + r["variant"] + "]") if r.get("variant") else "")] = r
    for m, t in by.items():
        c = t["cusparse"]["median_ms"]
        print(m[:70])
        for k, r in sorted(t.items(), key=lambda kv: kv[1]["median_ms"]):
            d = r.get("details", {})
            print(f"   {k:12s} {r['median_ms']*1e3:8.1f} us  {c / r['median_ms']:.3f}x cusparse"
                  f"  block_cols {d.get('block_cols')} combine_ms {d.get('combine_ms')} check {r['check_passed']}")
PY
cd $R && gzip -f run345-*.jsonl && cp run345-*.jsonl.gz run345-*.txt $OUT/
