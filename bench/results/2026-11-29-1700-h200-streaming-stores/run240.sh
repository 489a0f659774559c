#!/usr/bin/env bash
# Run 240 (`run240.sh measure`: steps 1, 2 and 4's timings; `run240.sh tests`: steps 3 and 4's
# tests): the staging team writes the pinned chunks with non-temporal (streaming) stores instead
# of memcpy's cached stores. 1. tcsparse_upload_probe, the new binary (streaming by default; its
# host_copy and staged records measure both stores) and tcsparse_upload_probe_old (commit
# 1dffdbb: memcpy), alternating, three rounds, on the plan-build goal's worst cases and a
# random-column matrix. 2. DASP plan builds, tcsparse (new) against tcsparse_old (1dffdbb),
# alternating, three rounds: the default suite (with .mx/cage11dir: replica_cage11) and cage11 x 35,
# fp64 / fp16 / bf16, 5 plan builds a case. 3. The GPU tests of the upload path and of every
# method's build and conformance, then memcheck of the upload path. 4. tca's tiles kernel with the
# second segment's run found once (a mend, no change intended): its GPU tests, memcheck and
# racecheck, and decode at n = 8 / 16 on the four LLM weights at 70 %, both layouts, new against
# old, alternating.
set -u
OUT=${OUT:-/tmp/out}; mkdir -p $OUT
R=$OUT/r; mkdir -p $R
part=${1:-measure}
exec > >(tee -a $OUT/run240-$part.log) 2>&1
b=/tmp/bin; mkdir -p $b
for f in .device-bin/*.xz; do n=$(basename $f .xz); xz -dc $f > $b/$n; done; chmod +x $b/*
nvidia-smi --query-gpu=name,driver_version --format=csv,noheader
nproc; lscpu | grep -E "Model name|Socket|NUMA node\(s\)|L3"
if [ $part = measure ]; then
SECONDS=0
for round in 1 2 3; do
  for v in old new; do
    probe=$b/tcsparse_upload_probe; [ $v = old ] && probe=$b/tcsparse_upload_probe_old
    TCSPARSE_PROBE_QUICK=1 timeout 200 $probe 256 \
      stencil3d:nx=100,ny=100,nz=100,seed=2 \
      replicate:file=.mx/cage11dir/cage11.mtx.gz,copies=35,seed=10 \
      banded:n=2000000,bandwidth=5,seed=6 \
      random:rows=4000000,cols=4000000,min=4,max=12,seed=3 > $R/probe-$v-$round.jsonl
    echo "probe $v round $round rc $? [$SECONDS s]"
  done
done
python3 - $R <<'PY'
import json,sys,glob,collections
R=sys.argv[1]
rows=collections.defaultdict(list)
for f in sorted(glob.glob(R+'/probe-*.jsonl')):
    v=f.split('-')[-2]
    for line in open(f):
        r=json.loads(line)
        if r['what'] in ('staged','host_copy','upload_csr','staged_same_bytes','pinned_copy','pageable_direct'):
            key=(r['what'], r.get('matrix','')[:24], r.get('values',''), str(r.get('copy_threads', r.get('threads',''))), r.get('stores','-' if v=='new' else 'cached'))
            rows[key].append('%s %.1f' % (v, r['median_gbps']))
print('probe: what, matrix, values, threads, stores (old binary: memcpy) -> median GB/s per run')
for k,v in sorted(rows.items()): print('%-17s %-24s %-5s %-3s %-9s' % k, ' | '.join(v))
PY
timeout 150 $b/tcsparse_upload_probe 256 > $R/sweep-new.jsonl
echo "probe sweep (streaming stores) rc $? [$SECONDS s]"
python3 - $R/sweep-new.jsonl <<'PY'
import json,sys
for line in open(sys.argv[1]):
    r=json.loads(line)
    if r['what']=='staged':
        print('staged %5.0f MiB x %d, %2d threads, %-9s %6.1f GB/s' % (r['chunk_mib'], r['chunks'], r['copy_threads'], r['stores'], r['median_gbps']))
PY
gzip -c $R/sweep-new.jsonl > $OUT/run240-sweep-new.jsonl.gz
SECONDS=0
CAGE=gen:replicate:file=.mx/cage11dir/cage11.mtx.gz,copies=35,seed=10
for round in 1 2 3; do
  for v in old new; do
    bin=$b/tcsparse; [ $v = old ] && bin=$b/tcsparse_old
    timeout 100 $bin bench --suite default --matrix-dir .mx/cage11dir --methods dasp \
      --precisions fp64,fp16,bf16 --plan-builds 5 --runs 20 --output $R/default-$v-$round.jsonl > /dev/null 2>&1
    echo "default $v round $round rc $? [$SECONDS s]"
    timeout 60 $bin bench $CAGE --methods dasp,cusparse --precisions fp64,fp16,bf16 --plan-builds 5 --runs 20 \
      --output $R/cagex35-$v-$round.jsonl > /dev/null 2>&1
    echo "cage x35 $v round $round rc $? [$SECONDS s]"
  done
done
python3 - $R <<'PY'
import json,sys,glob,collections,statistics
R=sys.argv[1]
rows=collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(R+'/default-*-*.jsonl'))+sorted(glob.glob(R+'/cagex35-*-*.jsonl')):
    v=f.split('-')[-2]
    for line in open(f):
        r=json.loads(line)
        if r.get('nnz',0)<1e6: continue
        b=r['details'].get('plan_builds_ms') or [r['plan_build_ms']]
        rows[(r['matrix'][:18],r['method'],r['precision'])][v].append((statistics.median(b)/r['median_ms'], r['details'].get('csr_upload_ms', 0)))
print('case: median of the 5 builds in SpMV-times per round (the last build\'s csr_upload_ms)')
for k,vals in rows.items():
    print('%-18s %-8s %-5s' % k, '  '.join('%s %s' % (v, ' '.join('%4.0f(%4.2f)' % x for x in vals[v])) for v in ('old','new')))
PY
(cd $R && for f in probe-*.jsonl default-*.jsonl cagex35-*.jsonl; do gzip -c $f > $OUT/run240-$f.gz; done)
SECONDS=0
W="llm:4096x4096:s0.70:uniform llm:11008x4096:s0.70:uniform llm:4096x11008:s0.70:uniform llm:14336x4096:s0.70:uniform"
for round in 1 2; do
  for v in old new; do
    bin=$b/tcsparse; [ $v = old ] && bin=$b/tcsparse_old
    for layout in row_major column_major; do
      timeout 100 $bin bench $W --methods tca,cublas_dense --precisions fp16 --spmm-n 8,16 --layout $layout \
        --plan-builds 1 --runs 50 --output $R/tca-$layout-$v-$round.jsonl > /dev/null 2>&1
      echo "tca $layout $v round $round rc $? [$SECONDS s]"
    done
  done
done
python3 - $R <<'PY'
import json,sys,glob,collections
R=sys.argv[1]
rows=collections.defaultdict(lambda: collections.defaultdict(list))
for f in sorted(glob.glob(R+'/tca-*-*-*.jsonl')):
    v=f.split('-')[-2]
    for line in open(f):
        r=json.loads(line)
        rows[(r['matrix'][:28], r.get('layout',''), r.get('n'), r['method'])][v].append(r['median_ms']*1e3)
print('tca decode: median us per round')
for k,vals in sorted(rows.items(), key=lambda kv: [str(x) for x in kv[0]]):
    print('%-28s %-12s n=%-3s %-12s' % k, '  '.join('%s %s' % (v, ' '.join('%6.2f' % x for x in vals[v])) for v in ('old','new')))
PY
(cd $R && for f in tca-*.jsonl; do gzip -c $f > $OUT/run240-$f.gz; done)
fi
if [ $part = tests ]; then
SECONDS=0
F='PlanBuild.*:HostUploadTest.*:SpmmLayouts.*:ArchClusterTest.*:DaspGpu*:*Conformance*:*ApplyPromises*:*FromDeviceCsr*:CsrOverlapGpu*:CsrFullOverlapTest.*:DeviceCsrViewValidation.*:DeviceTest.*:HbpGpu*'
pids=()
for s in $(seq 0 15); do
  GTEST_TOTAL_SHARDS=16 GTEST_SHARD_INDEX=$s timeout 280 $b/tcsparse_gpu_tests --gtest_filter="$F" > $R/tests-$s.txt 2>&1 &
  pids+=($!)
done
for p in "${pids[@]}"; do wait $p; echo -n "shard rc $? "; done; echo
cat $R/tests-*.txt | grep -E "^\[  (PASSED|FAILED)|FAILED  \]" | sort | uniq -c | head -20
cat $R/tests-*.txt | gzip > $OUT/run240-gpu-tests.txt.gz
echo "gpu tests [$SECONDS s]"
timeout 150 compute-sanitizer --tool memcheck --leak-check full $b/tcsparse_gpu_tests \
  --gtest_filter='HostUploadTest.*:DaspGpu.LayoutIsTheSameWhereverItIsBuiltUnderEveryUploadPolicy:PlanBuild.*' --gtest_brief=1 > $R/memcheck.txt 2>&1
echo "memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/memcheck.txt | tail -4
cp $R/memcheck.txt $OUT/run240-memcheck.txt
timeout 90 compute-sanitizer --tool memcheck $b/tcsparse_gpu_tests --gtest_filter='SpmmLayouts.TcaTiles*:SpmmLayouts.TcaAuto*' --gtest_brief=1 > $R/tca-memcheck.txt 2>&1
echo "tca memcheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|PASSED|FAILED" $R/tca-memcheck.txt | tail -3
timeout 90 compute-sanitizer --tool racecheck $b/tcsparse_gpu_tests --gtest_filter='SpmmLayouts.TcaTiles*' --gtest_brief=1 > $R/tca-racecheck.txt 2>&1
echo "tca racecheck rc $? [$SECONDS s]"; grep -E "ERROR SUMMARY|RACECHECK SUMMARY|PASSED|FAILED" $R/tca-racecheck.txt | tail -3
cat $R/tca-memcheck.txt $R/tca-racecheck.txt | gzip > $OUT/run240-tca-sanitizers.txt.gz
fi
