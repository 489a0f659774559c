#!/usr/bin/env bash
# Run 402: the packed index upload (run 297's patch, on the tree since the bounce-buffer fix of
# runs 298-301) again: the upload probe (indices and whole CSRs, staged against packed), then the
# default suite's DASP plan builds, --host-upload staged / automatic (packed) alternating, twice.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run402.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
TCSPARSE_PROBE_QUICK=1 timeout 120 $b/tcsparse_upload_probe 256 gen:stencil3d:nx=100,ny=100,nz=100,seed=2 \
  gen:banded:n=2000000,bandwidth=5,seed=6 gen:random:rows=1000000,cols=1000000,dist=uniform,min=10,max=30,seed=3 \
  > $R/run402-upload-probe.jsonl 2>&1; echo "probe rc $? [$SECONDS s]"
grep -E '"what":"(indices|upload_csr_by_policy|staged|pinned_copy)"' $R/run402-upload-probe.jsonl | cut -c1-230
for pass in 1 2; do
  for upload in staged automatic; do
    timeout 110 $b/tcsparse bench --suite default --matrix-dir .mx --methods dasp --precisions fp64,fp16,bf16 \
      --plan-builds 3 --runs 20 --host-upload $upload --output $R/run402-default-$upload-$pass.jsonl > /dev/null 2>&1
    echo "$upload pass $pass rc $? [$SECONDS s]"
  done
done
python3 - $R <<'PY'
import json, sys, glob, statistics
R = sys.argv[1]
rows = {}
for f in sorted(glob.glob(f"{R}/run402-default-*.jsonl")):
    upload = f.split("default-")[1].split("-")[0]
    for l in open(f):
        r = json.loads(l)
        if "median_ms" not in r or r.get("nnz", 0) < 1e6: continue
        rows.setdefault((r["matrix"], r["precision"]), {}).setdefault(upload, []).append(r)
for (m, p), by in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][0])):
    out = f"{m:20s} {p}"
    for upload in ("staged", "automatic"):
        rs = by.get(upload, [])
        if not rs: continue
        builds = [b for r in rs for b in (r["details"].get("plan_builds_ms") or [r["plan_build_ms"]])]
        spmv = statistics.median(r["median_ms"] for r in rs)
        up = statistics.median(r["upload_ms"] for r in rs)
        share = rs[0]["details"].get("csr_indices_packed_share", 0)
        out += f" | {upload[:4]}: {statistics.median(builds):5.2f} ms = {statistics.median(builds)/spmv:5.1f} x max {max(builds)/spmv:5.1f} (up {up:4.2f}, p {share:.2f})"
    print(out)
PY
cd $R && gzip *.jsonl && tar czf $OUT/run402.tgz -C $R . && echo "[$SECONDS s]"
