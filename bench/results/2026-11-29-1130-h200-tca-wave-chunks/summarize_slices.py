"""Run 227's tables: tca tiles with slices of 8 / 16 / 32 columns against the automatic width
(64 at n > 64) and dense cuBLAS, by matrix size, as geometric means.
Usage: python3 summarize_slices.py DIR [RUN] (the run's .jsonl or .jsonl.gz files)."""
import collections, glob, gzip, json, math, statistics, sys

R = sys.argv[1]
RUN = sys.argv[2] if len(sys.argv) > 2 else ''
gm = lambda x: math.exp(sum(map(math.log, x)) / len(x))
times = collections.defaultdict(lambda: collections.defaultdict(list))
info = {}
for path in sorted(glob.glob(R + '/' + RUN + '*slices-*.jsonl*')):
    suite = 'dlmc' if 'dlmc' in path else 'llm'
    for line in (gzip.open(path, 'rt') if path.endswith('.gz') else open(path)):
        r = json.loads(line)
        if r.get('error'):
            print('error', r['matrix'], r.get('variant'), r['error'][:200]); continue
        label = 'dense' if r['method'] == 'cublas_dense' else (r.get('variant') or 'auto')
        key = (suite, r['matrix'], r['n'])
        times[key][label].append(r['median_ms'] * 1e3)
        info[key] = (r['rows'], r['cols'], r['nnz'])
med = {k: {l: statistics.median(v) for l, v in d.items()} for k, d in times.items()}
labels = ['auto', 's8', 's16', 's32']
for suite in ('dlmc', 'llm'):
    for n in sorted({k[2] for k in med if k[0] == suite}):
        keys = [k for k in med if k[0] == suite and k[2] == n and all(l in med[k] for l in labels + ['dense'])]
        if not keys: continue
        # by size: rows x cols below / above the median
        sizes = sorted(info[k][0] * info[k][1] for k in keys)
        for part, sel in (('all', keys), ('smaller half', [k for k in keys if info[k][0] * info[k][1] <= sizes[len(sizes) // 2]]),
                          ('larger half', [k for k in keys if info[k][0] * info[k][1] > sizes[len(sizes) // 2]])):
            if not sel: continue
            t = [med[k] for k in sel]
            best = [min(x[l] for l in labels) for x in t]
            print('%s n=%d %s (%d): over dense %s; best-of %.3f (min %.3f); auto over width %s' % (
                suite, n, part, len(sel), ' '.join('%s %.3f' % (l, gm([x['dense'] / x[l] for x in t])) for l in labels),
                gm([x['dense'] / b for x, b in zip(t, best)]), min(x['dense'] / b for x, b in zip(t, best)),
                ' '.join('%s %.3f' % (l, gm([x['auto'] / x[l] for x in t])) for l in labels[1:])))
        if suite == 'llm':
            for k in sorted(keys):
                print('  %-30s n=%d dense %.1f %s' % (k[1], n, med[k]['dense'], ' '.join('%s %.1f' % (l, med[k][l]) for l in labels)))
