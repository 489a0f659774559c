#!/usr/bin/env python3
"""Decode tables: per LLM weight and width, tca's kernels and dense cuBLAS (same run), speedup =
dense time / tca time; then geomeans per sparsity and width. Files: bench JSONL (gz or not)."""
import collections, gzip, json, math, sys

def records(path):
    opener = gzip.open if path.endswith('.gz') else open
    with opener(path, 'rt') as f:
        for line in f:
            if line.strip():
                yield json.loads(line)

times = collections.defaultdict(dict)   # (matrix, n, layout) -> label -> ms
for path in sys.argv[1:]:
    import os, re
    m = re.search(r'variant-([a-z0-9]+)', os.path.basename(path))
    tag = m.group(1) if m else ('old' if 'old' in path else '')
    for r in records(path):
        if r.get('median_ms') is None or r.get('check_passed') is False:
            continue
        label = r['method'] + (':' + r['variant'] if r.get('variant') else '')
        if tag: label = tag + ':' + label
        if r['method'] == 'tca' and not r.get('variant') and not tag:
            label = 'tca:auto=' + str(r.get('details', {}).get('kernel'))
        if 'sweep' in path: label = 'sweep:' + label
        times[(r['matrix'], r['n'], r.get('layout'))][label] = r['median_ms']

def geo(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else float('nan')

labels = sorted({l for v in times.values() for l in v})
print('case', *labels, sep='\t')
for key in sorted(times):
    v = times[key]
    print(f'{key[0]} n={key[1]} {key[2]}', *[f"{v[l]*1000:.1f}" if l in v else '-' for l in labels], sep='\t')
print()
print('speedup over dense cuBLAS (geomean, min-max) by layout, sparsity, n:')
groups = collections.defaultdict(lambda: collections.defaultdict(list))
for (m, n, layout), v in times.items():
    if 'cublas_dense' not in v: continue
    s = m.split(':')[2]
    for l, t in v.items():
        if l == 'cublas_dense' or l.startswith('sweep'): continue
        groups[(layout, s, n)][l.split('=')[0]].append(v['cublas_dense'] / t)
for key in sorted(groups):
    parts = [f"{l} {geo(xs):.2f}x ({min(xs):.2f}-{max(xs):.2f})" for l, xs in sorted(groups[key].items())]
    print(*key, *parts, sep='\t')
