#!/usr/bin/env python3
"""DLMC: tca (this build and the previous one, 'old' in the file name) against cuSPARSE and dense
cuBLAS in the same run, per n: geomean (min-max) speedups; and tca's plan build in SpMM-times."""
import collections, gzip, json, math, statistics, sys
t = collections.defaultdict(dict)
builds = collections.defaultdict(list)
for path in sys.argv[1:]:
    tag = 'old:' if 'old' in path else ''
    op = gzip.open if path.endswith('.gz') else open
    for line in op(path, 'rt'):
        r = json.loads(line)
        if r.get('median_ms') is None or r.get('check_passed') is False: continue
        t[(r['matrix'], r['n'])][tag + r['method']] = r['median_ms']
        if r['method'] == 'tca' and r.get('plan_build_ms'):
            builds[(tag, r['n'])].append(r['plan_build_ms'] / r['median_ms'])
geo = lambda xs: math.exp(sum(map(math.log, xs)) / len(xs)) if xs else float('nan')
for n in sorted({k[1] for k in t}):
    print(f'n = {n}:')
    for num, den in [('cusparse', 'tca'), ('cusparse', 'old:tca'), ('old:tca', 'tca'),
                     ('cublas_dense', 'tca'), ('cublas_dense', 'old:tca')]:
        xs = [v[num] / v[den] for (m, nn), v in t.items() if nn == n and num in v and den in v]
        if xs: print(f'  {num} / {den}: geomean {geo(xs):.2f}x ({min(xs):.2f}-{max(xs):.2f}) over {len(xs)}')
    for tag in ('', 'old:'):
        xs = builds.get((tag, n))
        if xs:
            within = sum(1 for x in xs if x <= 10)
            print(f'  {tag}tca plan build in SpMM-times: median {statistics.median(xs):.1f}, '
                  f'{within} of {len(xs)} within 10')
