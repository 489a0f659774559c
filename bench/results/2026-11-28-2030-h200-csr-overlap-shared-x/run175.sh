#!/usr/bin/env bash
# Run 175: run 174's binaries. The long-row kernel's block size (threads_per_block, which only
# the long-row kernel uses on matrices whose rows are all long): 64 / 128 (default) / 256 / 512 /
# 1024 threads a task, x from global memory, on pruned_16k and the pruned LLM weights as SpMV;
# then plans from device CSR on the default suite (issue 9's build goal, re-measured).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run175.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
V=""
for t in 64 256 512 1024; do V="$V --variant t$t:threads_per_block=$t"; done
M="gen:pruned:rows=16384,cols=16384,sparsity=0.9,seed=9 gen:long:rows=20000,cols=1000000,length=1000,seed=8"
for w in 4096,4096,0.5,uniform 4096,4096,0.7,uniform 4096,4096,0.7,skewed 11008,4096,0.7,skewed 4096,11008,0.7,uniform 14336,4096,0.5,skewed 14336,4096,0.7,uniform; do
  IFS=, read r c sp pr <<< "$w"
  M="$M gen:llm:rows=$r,cols=$c,sparsity=$sp,profile=$pr,seed=1"
done
timeout 300 $b/tcsparse bench $M --methods cusparse,csr_overlap --precisions fp64,fp32,fp16,bf16 --runs 20 \
  --param long_row_x=global --param partition=rows $V --output $R/threads.jsonl > /dev/null 2>&1
echo "threads rc $? [$SECONDS s]"
timeout 150 $b/tcsparse bench --suite default --methods csr_overlap --precisions fp64,fp32,fp16,bf16 \
  --from-device --plan-builds 5 --runs 10 --output $R/from-device.jsonl > /dev/null 2>&1
echo "from-device rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, os
R = sys.argv[1]
t = {}
for line in open(f"{R}/threads.jsonl"):
    r = json.loads(line)
    if not r.get("check_passed", True): print("CHECK FAILED", r["matrix"], r["precision"], r["method"], r.get("variant"))
    t[(r["matrix"], r["precision"], r["method"], r.get("variant", ""))] = r
print("## speedup over cusparse, threads a long-row task: 128 (default) | 64 | 256 | 512 | 1024")
for (m, p, me, v), r in sorted(t.items()):
    if me != "csr_overlap" or v: continue
    c = t[(m, p, "cusparse", "")]["median_ms"]
    cells = [c / r["median_ms"]] + [c / t[(m, p, me, f"t{n}")]["median_ms"] if (m, p, me, f"t{n}") in t else 0 for n in (64, 256, 512, 1024)]
    print(f'{m[:40]:40s} {p} {r["nnz"]:9d} ' + " | ".join(f"{x:.3f}" for x in cells) + f'  cus {c*1000:.1f}us lr {r["details"].get("long_rows")}')
print("## from device: build / apply")
for line in open(f"{R}/from-device.jsonl"):
    r = json.loads(line)
    if r["nnz"] < 1_000_000: continue
    print(f'{r["matrix"][:20]:20s} {r["precision"]} {r["plan_build_ms"]/r["median_ms"]:.2f} build {r["plan_build_ms"]*1000:.0f}us apply {r["median_ms"]*1000:.1f}us {r["details"].get("partition")}')
PY
gzip -f $R/*.jsonl
cd $OUT && tar czf r.tgz r && rm -rf r
