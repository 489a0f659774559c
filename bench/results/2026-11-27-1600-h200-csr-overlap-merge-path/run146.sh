#!/usr/bin/env bash
# Run 146: 1. plans from device CSR, this binary against the previous one (4aee443, the rows
# partition only), alternated twice (run 145 had the rows path's builds 0.05-0.15 ms longer than
# run 142, on another machine); 2. merge_items=7 against the default 5 on the default suite;
# 3. Nsight Compute sections of the merge-path tile kernel and cuSPARSE on rmat_20 fp64.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run146.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/tcsparse.xz .device-bin/tcsparse-prev.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
for round in 1 2; do
  for bin in tcsparse tcsparse-prev; do
    timeout 150 $b/$bin bench --suite default --matrix-dir .mx --methods csr_overlap --precisions fp64,fp32 \
      --from-device --plan-builds 5 --runs 10 --output $R/from-device-$bin-$round.jsonl > /dev/null 2>&1
    echo "from-device $bin $round rc $? [$SECONDS s]"
  done
done
timeout 200 $b/tcsparse bench --suite default --matrix-dir .mx --methods cusparse,csr_overlap --variant items7:merge_items=7 \
  --precisions fp64,fp32,fp16,bf16 --plan-builds 1 --runs 20 --output $R/items7.jsonl > /dev/null 2>&1
echo "items7 rc $? [$SECONDS s]"
for k in "csr_overlap:regex:merge_tile_kernel" "cusparse:regex:csrmv"; do
  m=${k%%:*}; f=${k#*:}
  timeout 90 ncu --clock-control none --section SpeedOfLight --section Occupancy --section WarpStateStats --section SchedulerStats --section MemoryWorkloadAnalysis \
    -k "$f" -c 1 $b/tcsparse bench --methods $m --precisions fp64 --runs 1 --warmup-ms 0 --plan-builds 1 --output /tmp/n.jsonl gen:rmat:scale=20,edge_factor=16,seed=3 > $R/ncu-rmat_20-fp64-$m.txt 2>&1
  echo "ncu $m rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, os, collections, glob, math
R = sys.argv[1]
b = collections.defaultdict(list); s = {}
for f in sorted(glob.glob(os.path.join(R, "from-device-*.jsonl"))):
    bin = "prev" if "prev" in f else "new"
    for line in open(f):
        r = json.loads(line)
        if r["nnz"] < 1_000_000 or not r.get("check_passed"): continue
        b[(r["matrix"][:18], r["precision"], bin)].append((r["plan_build_ms"], r["median_ms"], r["device_preprocess_ms"]))
print("from device CSR: build ms / SpMV-times, each round; new vs prev")
keys = sorted({(m, p) for (m, p, _) in b})
for m, p in keys:
    row = []
    for bin in ["prev", "new"]:
        row.append(" ".join("%.3f/%.2f" % (x[0], x[0] / x[1]) for x in b[(m, p, bin)]))
    print(f"{m:18s} {p}  prev {row[0]}  new {row[1]}")
t = collections.defaultdict(dict)
for line in open(os.path.join(R, "items7.jsonl")):
    r = json.loads(line)
    lab = r["method"] + ("/" + r["variant"] if r.get("variant") else "")
    if r.get("check_passed"): t[(r["matrix"][:18], r["precision"], r["nnz"])][lab] = (r["median_ms"], (r.get("details") or {}).get("partition", ""))
print("merge_items 5 (auto) vs 7: speedup over cuSPARSE, merge-path matrices")
for (m, p, nnz), v in sorted(t.items()):
    if v.get("csr_overlap", (0, ""))[1] != "merge_path" or "cusparse" not in v: continue
    c = v["cusparse"][0]
    print(f"{m:18s} {p} {nnz:>9d} items5 {c / v['csr_overlap'][0]:.3f} items7 {c / v['csr_overlap/items7'][0]:.3f}")
PY
grep -h -E "Duration|Achieved Occupancy|Registers Per|Issued Ipc|No Eligible|Warp Cycles Per Issued|Memory Throughput|L2 Hit|Stall|Eligible Warps" $R/ncu-*.txt | head -60
gzip -f $R/*.jsonl $R/*.txt
cd $OUT && tar czf r.tgz r && rm -rf r
