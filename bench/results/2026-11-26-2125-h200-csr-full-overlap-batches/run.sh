#!/usr/bin/env bash
# Run C: csr_full_overlap's open measurements (issue 9): big_batches / streams / host_memory
# variants against the defaults on the default suite, and device_memory_limit at 1/8 of the
# matrix's bytes on four large matrices.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run54.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse && chmod +x $b/*
SECONDS=0
timeout 330 $b/tcsparse bench --suite default --methods csr_full_overlap --precisions fp64,fp32 \
  --variant b4:big_batches=4 --variant b8:big_batches=8 --variant b16:big_batches=16 --variant b32:big_batches=32 \
  --variant s3b12:streams=3,big_batches=12 --variant s4b16:streams=4,big_batches=16 --variant reg:host_memory=register \
  --plan-builds 1 --runs 10 --output $R/full-overlap-variants.jsonl > $R/full-overlap-variants.txt 2>&1
echo "variants rc $? [$SECONDS s]"
for spec in gen:stencil3d:nx=100,ny=100,nz=100,seed=2 gen:rmat:scale=20,edge_factor=16,seed=3 \
            gen:random:rows=1000000,cols=1000000,dist=uniform,min=1,max=39,seed=4 gen:pruned:rows=16384,cols=16384,sparsity=0.9,seed=9; do
  read rows nnz < <($b/tcsparse info --json $spec | python3 -c 'import json,sys; d=json.load(sys.stdin); print(d["rows"], d["nnz"])')
  for p in fp64:8 fp32:4; do
    prec=${p%%:*}; vb=${p##*:}
    limit=$(( ((rows + 1) * 4 + nnz * (4 + vb)) / 8 ))
    timeout 60 $b/tcsparse bench $spec --methods csr_full_overlap --precisions $prec --param device_memory_limit=$limit \
      --plan-builds 1 --runs 10 --output $R/limit-eighth.jsonl > /dev/null 2>&1
    echo "$spec $prec rows=$rows nnz=$nnz limit=$limit rc $? [$SECONDS s]"
  done
done
python3 - $R/limit-eighth.jsonl <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line); d = r.get("details", {})
    print(r["matrix"][:40], r["precision"], r.get("parameters"), "ms", round(r["median_ms"], 3),
          "copy", round(d.get("pinned_copy_ms", 0), 3), "over", round(d.get("oneshot_over_copy", 0), 3),
          "big_batches", d.get("big_batches"), "GB/s", round(d.get("streamed_bytes_per_apply", 0) / r["median_ms"] / 1e6, 1),
          "copy GB/s", round(d.get("streamed_bytes_per_apply", 0) / max(d.get("pinned_copy_ms", 1e-9), 1e-9) / 1e6, 1),
          "check", r.get("check_passed"))
PY
gzip -f $R/*.jsonl
# the auto GPU tests on the final rule (fit_auto_choice-c6f29ac5f9f4)
xz -dc .device-bin/tcsparse_gpu_tests.xz > $b/t && chmod +x $b/t
pids=()
for s in 0 1 2 3; do
  GTEST_TOTAL_SHARDS=4 GTEST_SHARD_INDEX=$s timeout 150 $b/t --gtest_filter='*auto*:*Auto*' --gtest_brief=1 > $R/auto-tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
cat $R/auto-tests-*.txt | grep -E "PASSED|FAILED|tests ran" | sort | uniq -c
grep -h -A8 Failure $R/auto-tests-*.txt | head -20
rm -f $R/auto-tests-*.txt
echo "[$SECONDS s]"
