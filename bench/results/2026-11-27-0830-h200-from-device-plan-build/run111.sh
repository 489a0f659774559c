#!/usr/bin/env bash
# Run 111 (final code): plan builds from device CSR. The device CSR check counts descents (the
# bitmap search runs only to name a bad entry) with its predecessor loads in flight; csr_overlap's
# whole table (batches, long rows, their tasks) is one CUB inclusive scan whose prefix carries
# the row kind (each row classified once, one 32-bit modulo a test) into arrays allocated at bounds
# from the pool, with one wait; download_one reads through pinned memory. Previous binary
# (0c6080d) against the new one, alternated; cusparse and dasp from device; the GPU tests of
# csr_overlap, full overlap, conformance, device CSR and apply promises; memcheck.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $OUT/run111.log) 2>&1
b=/tmp/bin; mkdir -p $b
for n in tcsparse_prev tcsparse tcsparse_gpu_tests; do xz -dc .device-bin/$n.xz > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
SECONDS=0
for round in 1 2; do for bin in tcsparse_prev tcsparse; do
  timeout 150 $b/$bin bench --suite default --methods csr_overlap --precisions fp64,fp32 --from-device \
    --plan-builds 5 --runs 10 --output $R/$bin-csr_overlap-$round.jsonl > /dev/null 2>&1
  echo "from-device $bin round $round rc $? [$SECONDS s]"
done; done
for bin in tcsparse; do
  timeout 200 $b/$bin bench --suite default --methods cusparse,dasp --precisions fp64,fp32 --from-device \
    --plan-builds 5 --runs 5 --output $R/$bin-others.jsonl > /dev/null 2>&1
  echo "from-device others $bin rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json, sys, os, glob, collections, statistics
rows = collections.defaultdict(list)
for f in sorted(glob.glob(os.path.join(sys.argv[1], "*.jsonl"))):
    bin = os.path.basename(f).split("-")[0]
    for line in open(f):
        r = json.loads(line)
        if not r.get("check_passed"): print("CHECK FAILED", f, r["matrix"], r["method"])
        if r["nnz"] < 1_000_000: continue
        rows[(r["method"], r["precision"], r["matrix"][:20])].append((bin, r["plan_build_ms"], r["median_ms"], r.get("device_preprocess_ms")))
print("method precision matrix | prev: build ms (SpMV-times) ... | new: build ms (SpMV-times) ... | device ms prev/new")
for k, v in sorted(rows.items()):
    def fmt(bin):
        return " ".join("%.3f (%.2f)" % (b, b / m) for n, b, m, d in v if n == bin)
    dev = "/".join("%.3f" % d for n, b, m, d in v if d is not None)
    print(*k, "|", fmt("tcsparse_prev"), "|", fmt("tcsparse"), "|", dev)
PY
gzip -f $R/*.jsonl
SECONDS=0
timeout 200 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='DeviceCsrViewValidation.*:AllSynthetic/CsrOverlapGpuOnCatalogue.DeviceTable*:CsrOverlapGpu.ARowLongerThanABlock*:CsrOverlapGpu.RepeatedAppliesWithLongRowPieces*:AllSynthetic/CsrOverlapGpuOnCatalogue.DirectReadsMatch*:CsrOverlapGpu.Borrow*:CsrOverlapGpu.EmptyShapes*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; tail -3 $R/memcheck.txt
SECONDS=0
pids=()
for s in 0 1 2 3 4 5 6 7; do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 330 $b/tcsparse_gpu_tests --gtest_filter='*CsrOverlap*:*csr_overlap*:*FullOverlap*:*Conformance*:*ApplyPromises*:*DeviceCsr*:*Validation*' --gtest_brief=1 > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo "shard rc $?"; done
echo "tests [$SECONDS s]"
cat $R/tests-*.txt | grep -E "PASSED|FAILED|SKIPPED" | sort | uniq -c
grep -h -B2 -A12 "Failure" $R/tests-*.txt | head -40
cat $R/tests-*.txt > $R/gpu-tests.txt; rm $R/tests-*.txt
