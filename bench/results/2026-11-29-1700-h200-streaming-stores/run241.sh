#!/usr/bin/env bash
# Run 241: 1. why the streaming stores lost in run 240: tcsparse_upload_probe (run 240's new
# binary) host_copy and staged records, both stores, twice. 2. tca's tiles kernel with the second
# segment's run found once (run 240's binaries): the tca GPU tests, memcheck and racecheck.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
exec > >(tee -a $R/run241.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
SECONDS=0
for round in 1 2; do
  TCSPARSE_PROBE_QUICK=1 timeout 60 $b/tcsparse_upload_probe 256 > $R/probe-$round.jsonl
  echo "probe round $round rc $? [$SECONDS s]"
done
python3 - $R <<'PY'
import json,sys,glob,collections
rows=collections.defaultdict(list)
for f in sorted(glob.glob(sys.argv[1]+'/probe-*.jsonl')):
    for line in open(f):
        r=json.loads(line)
        if r['what'] in ('host_copy','staged','pinned_copy'):
            rows[(r['what'], str(r.get('threads', r.get('copy_threads',''))), r.get('stores',''))].append('%.1f' % r['median_gbps'])
for k,v in sorted(rows.items(), key=lambda kv: (kv[0][0], kv[0][2], int(kv[0][1] or 0))): print('%-11s %-3s %-9s' % k, ' '.join(v), 'GB/s')
PY
F='SpmmLayouts.*:ArchClusterTest.*:*Conformance*tca*:*ApplyPromises*tca*:*FromDeviceCsr*tca*'
pids=()
for s in $(seq 0 7); do
  GTEST_TOTAL_SHARDS=8 GTEST_SHARD_INDEX=$s timeout 200 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]" | sort | uniq -c | head -20
echo "gpu tests [$SECONDS s]"
timeout 120 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='SpmmLayouts.TcaTiles*:SpmmLayouts.TcaAuto*' --gtest_brief=1 > $R/tca-memcheck.txt 2>&1
echo "tca memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/tca-memcheck.txt | tail -3
timeout 120 compute-sanitizer --tool racecheck $b/tcsparse_gpu_tests --gtest_filter='SpmmLayouts.TcaTiles*' --gtest_brief=1 > $R/tca-racecheck.txt 2>&1
echo "tca racecheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/tca-racecheck.txt | tail -3
timeout 100 compute-sanitizer --tool synccheck $b/tcsparse_gpu_tests --gtest_filter='SpmmLayouts.TcaTiles*' --gtest_brief=1 > $R/tca-synccheck.txt 2>&1
echo "tca synccheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/tca-synccheck.txt | tail -3
cd $R && gzip tests-*.txt tca-*.txt && tar czf $OUT/run241.tgz .
