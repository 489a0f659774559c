#!/usr/bin/env bash
# Run 362: where a tca plan's build time goes (issue 11: plan build <= 10 SpMM-times at N = 256).
# The build of 8148b1b+ (details.plan_phases_ms: the phases on the host clock) on the 150 DLMC
# matrices at 90 % (rn50, transformer), fp16, n = 256, 5 builds a case, from host and from device
# CSR; and the gather plans of the LLM weights at n = 16, 90 %, column-major.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=/tmp/r; mkdir -p $R
exec > >(tee -a $OUT/run362.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
for from in host device; do
  flag=""; [ $from = device ] && flag="--from-device"
  SECONDS=0
  timeout 200 $b/tcsparse_base bench .mx/dlmc --methods tca --precisions fp16 --spmm-n 256 \
    --runs 20 --plan-builds 5 $flag --output $R/dlmc-$from.jsonl > $R/dlmc-$from.txt 2>&1
  echo "dlmc from $from rc $? [$SECONDS s]"
done
SECONDS=0
L=""; for s in 4096x4096 11008x4096 4096x11008 14336x4096; do L="$L llm:$s:s0.90:uniform"; done
timeout 150 $b/tcsparse_base bench $L --methods tca --precisions fp16 --spmm-n 16 --layout column_major \
  --runs 20 --plan-builds 3 --output $R/llm.jsonl > $R/llm.txt 2>&1
echo "llm rc $? [$SECONDS s]"
python3 - $R <<'PY'
import json, sys, statistics, collections
R = sys.argv[1]
for name in ("dlmc-host", "dlmc-device", "llm"):
    rs = [json.loads(l) for l in open(f"{R}/{name}.jsonl")]
    bad = [r["matrix"] for r in rs if not r.get("check_passed", True)]
    print(f"== {name}: {len(rs)} records, failed checks {bad}")
    ph = collections.defaultdict(list); times = []; rest = []
    for r in rs:
        p = r["details"].get("plan_phases_ms", {})
        for k, v in p.items(): ph[k].append(v)
        times.append((r["plan_build_ms"] / r["median_ms"], r["plan_build_ms"], r["median_ms"] * 1000))
        rest.append(r["plan_build_ms"] - sum(p.values()))
    s = sorted(t[0] for t in times)
    print(f"SpMM-times median {statistics.median(s):.1f} (min {s[0]:.1f} max {s[-1]:.1f}); build ms median "
          f"{statistics.median(t[1] for t in times):.3f}; SpMM us median {statistics.median(t[2] for t in times):.1f}")
    for k, v in ph.items():
        print(f"  phase {k:14s} median {statistics.median(v):.4f} ms  max {max(v):.4f}  (n={len(v)})")
    print(f"  outside the phases  median {statistics.median(rest):.4f} ms")
    up = [r.get("upload_ms", 0) for r in rs]; dp = [r.get("device_preprocess_ms", 0) for r in rs]
    print(f"  upload_ms median {statistics.median(up):.4f}; device_preprocess_ms median {statistics.median(dp):.4f}")
PY
cd $R && tar czf $OUT/run362-records.tar.gz *.jsonl *.txt
