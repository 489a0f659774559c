#!/usr/bin/env bash
# Run 72: csr_full_overlap one-shot against a copy of the matrix's own arrays (arrays_copy_ms),
# copy and register host memory, copies in order / per stream, 2 and 8 big batches. Memcheck of
# the chain test (one registering plan at a time now).
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run72.log) 2>&1
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
b=/tmp/bin; mkdir -p $b
xz -dc .device-bin/tcsparse.xz > $b/tcsparse; xz -dc .device-bin/tcsparse_gpu_tests.xz > $b/t; chmod +x $b/*
SECONDS=0
timeout 90 compute-sanitizer --tool memcheck $b/t --gtest_filter='CsrFullOverlapTest.*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $?"; tail -3 $R/memcheck.txt
echo "[$SECONDS s]"
timeout 400 $b/tcsparse bench --suite default --methods csr_full_overlap --precisions fp64,fp32 \
  --variant per:copy_order=per_stream --variant reg:host_memory=register \
  --variant regper:host_memory=register,copy_order=per_stream \
  --variant reg8:host_memory=register,big_batches=8 \
  --variant regper8:host_memory=register,copy_order=per_stream,big_batches=8 \
  --plan-builds 1 --runs 10 --output $R/own-copy.jsonl > $R/own-copy.txt 2>&1
echo "bench rc $? [$SECONDS s]"
tail -3 $R/own-copy.txt
python3 - $R/own-copy.jsonl <<'PY'
import json, sys, math, collections
rows = collections.defaultdict(dict)
for line in open(sys.argv[1]):
    r = json.loads(line); d = r.get("details", {})
    label = r.get("variant") or "default"
    rows[(r["matrix"][:22], r["precision"], r["nnz"])][label] = (d.get("oneshot_over_arrays_copy", 0), d.get("oneshot_over_copy", 0), r["min_ms"] / max(d.get("arrays_copy_ms", 1e-9), 1e-9), r.get("check_passed"))
labels = ["default", "per", "reg", "regper", "reg8", "regper8"]
print("matrix precision nnz | one-shot / own arrays' copy: " + " ".join(labels) + " | over fresh-buffer copy: default reg")
agg = collections.defaultdict(list)
for k, v in sorted(rows.items(), key=lambda kv: (kv[0][1], kv[0][2])):
    print(*k, "|", *[f"{v[l][0]:.3f}" if l in v else "-" for l in labels], "|",
          *[f"{v[l][1]:.3f}" if l in v else "-" for l in ("default", "reg")],
          "" if all(x[3] for x in v.values()) else "CHECK FAILED")
    for l in labels:
        if l in v: agg[l].append(v[l][0]); agg["min-" + l].append(v[l][2])
for l, xs in agg.items():
    print(l, "n", len(xs), "geomean", round(math.exp(sum(math.log(max(x, 1e-9)) for x in xs) / len(xs)), 3), "max", round(max(xs), 3))
PY
gzip -f $R/*.jsonl
echo "[$SECONDS s]"
