#!/usr/bin/env bash
# Run 178: where a csr_overlap plan from device CSR spends its time. An experimental build
# (time points of the build printed to stderr with TCSPARSE_BUILD_TRACE set; not committed):
# 1. traced builds on four matrices of the default suite; 2. plan builds from device CSR of
# csr_overlap (auto, partition=row_vectors, partition=merge_path) and cuSPARSE on them.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run178.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
M="gen:stencil2d:nx=2000,ny=2000,seed=1 gen:banded:n=2000000,bandwidth=5,seed=6 gen:pruned:rows=16384,cols=16384,sparsity=0.9,seed=9 gen:rmat:scale=20,edge_factor=16,seed=3"
for p in bf16 fp64; do
  TCSPARSE_BUILD_TRACE=1 timeout 100 $b/tcsparse bench $M --methods csr_overlap --precisions $p \
    --from-device --plan-builds 20 --runs 5 --output $R/traced-$p.jsonl > /dev/null 2> $R/trace-$p.txt
  echo "traced $p rc $? [$SECONDS s]"
done
timeout 150 $b/tcsparse bench $M --methods cusparse,csr_overlap --precisions bf16,fp64 \
  --variant rv:partition=row_vectors --variant mp:partition=merge_path \
  --from-device --plan-builds 20 --runs 10 --output $R/builds.jsonl > /dev/null 2>&1
echo "builds rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, collections, statistics
R = sys.argv[1]
for p in ["bf16", "fp64"]:
    # a build's points: from plan.enter to plan.end; the median of each point's time over builds
    builds, cur = [], None
    for line in open(f"{R}/trace-{p}.txt"):
        if not line.startswith("trace "): continue
        _, name, us = line.split()
        if name == "plan.enter": cur = []; builds.append(cur)
        if cur is not None: cur.append((name, float(us)))
    print("##", p, len(builds), "traced builds (the warm-up and timed ones, four matrices in turn)")
    groups = collections.defaultdict(list)
    for b in builds: groups[tuple(n for n, _ in b)].append([t for _, t in b])
    for names, rows in groups.items():
        med = [statistics.median(c) for c in zip(*rows)]
        print(" ", len(rows), "builds:", " ".join(f"{n}={t:.0f}" for n, t in zip(names, med)))
for line in open(f"{R}/builds.jsonl"):
    r = json.loads(line)
    print(f"{r['matrix']:16s} {r['precision']:5s} {r['method']:12s} {r.get('variant',''):3s} build {r['plan_build_ms']:.3f} dev {r['device_preprocess_ms']:.3f} apply {r['median_ms']:.4f} ratio {r['plan_build_ms']/r['median_ms']:.2f}")
PY
cd $OUT && tar czf r.tgz r && rm -rf r
