#!/usr/bin/env bash
# Run 106 (final code): the loads-ahead path for 16-bit values only, the fp32/fp64 path the same
# loop as a4a63df (tcsparse_base). Default suite fp64 / fp32 / fp16 / bf16, base then new; the
# direct, borrow, auto-rule and apply-promise tests; memcheck of the direct tests.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run106.log) 2>&1
b=/tmp/bin; mkdir -p $b
for n in tcsparse_base tcsparse tcsparse_gpu_tests; do xz -dc .device-bin/$n.xz > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
timeout 100 $b/tcsparse_gpu_tests --gtest_filter='*CsrOverlap*Direct*:CsrOverlapGpu.Borrow*:CsrOverlapGpu.APlanFromDevice*:CsrOverlapGpu.AutoGives*:*ApplyPromises*csr_overlap*:*Conformance*csr_overlap*' --gtest_brief=1 > $R/gpu-tests.txt 2>&1
echo "tests rc $? [$SECONDS s]"; grep -E "PASSED|FAILED|SKIPPED" $R/gpu-tests.txt
grep -h -B2 -A12 "Failure" $R/gpu-tests.txt | head -30
SECONDS=0
timeout 100 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='CsrOverlapGpu.Direct*:AllSynthetic/CsrOverlapGpuOnCatalogue.DirectRead*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; tail -3 $R/memcheck.txt
SECONDS=0
for bin in tcsparse_base tcsparse; do
timeout 100 $b/$bin bench --suite default --methods cusparse,csr_overlap --precisions fp64,fp32,fp16,bf16 \
  --plan-builds 1 --runs 20 --output $R/$bin.jsonl > /dev/null 2>&1
echo "bench $bin rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, math, collections, os
t = collections.defaultdict(dict)
for bin in ["tcsparse_base", "tcsparse"]:
    for line in open(os.path.join(sys.argv[1], f"{bin}.jsonl")):
        r = json.loads(line)
        if not r.get("check_passed"): print("CHECK FAILED", bin, r["matrix"], r["method"]); continue
        t[(r["matrix"][:20], r["precision"], r["nnz"])][(r["method"], bin)] = r["median_ms"]
agg = collections.defaultdict(list)
print("matrix precision | over cusparse of the same run: base, new")
for k, v in sorted(t.items(), key=lambda kv: (kv[0][1], -kv[0][2])):
    sp = [v[("cusparse", bin)] / v[("csr_overlap", bin)] for bin in ["tcsparse_base", "tcsparse"]]
    for bin, x in zip(["base", "new"], sp): agg[(k[1], "large" if k[2] >= 10_000_000 else "small", bin)].append(x)
    print(*k[:2], "|", " ".join("%.3f" % x for x in sp))
for key, xs in sorted(agg.items()):
    print(*key, "geomean %.3f min %.3f" % (math.exp(sum(map(math.log, xs)) / len(xs)), min(xs)))
PY
gzip -f $R/*.jsonl
