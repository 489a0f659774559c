"""Run 225's crossover table behind tca's kernel=auto at n <= 16: rows' time over tiles' per
LLM weight at 80 / 90 / 95 % sparsity, with the tiles' nonzeros a stored tile and dense cuBLAS.
Usage: python3 summarize_crossover.py DIR [RUN] (the run's .jsonl or .jsonl.gz files, as the run wrote them or
as committed here, e.g. `. run225`)."""
import collections, glob, gzip, json, statistics, sys

R = sys.argv[1]
RUN = sys.argv[2] if len(sys.argv) > 2 else ''  # e.g. run225: that run's files only
times = collections.defaultdict(lambda: collections.defaultdict(list))
per_tile, kernel = {}, {}
for path in sorted(glob.glob(R + '/' + RUN + '*crossover-*.jsonl*')):
    for line in (gzip.open(path, 'rt') if path.endswith('.gz') else open(path)):
        r = json.loads(line)
        if r.get('error'):
            print('error', r['matrix'], r.get('variant'), r['error'][:200]); continue
        label = 'dense' if r['method'] == 'cublas_dense' else (r.get('variant') or 'auto')
        key = (r['matrix'], r['n'])
        times[key][label].append(r['median_ms'] * 1e3)
        d = r['details'] or {}
        if label == 'tiles': per_tile[key] = d.get('nonzeros_per_tile')
        if label == 'auto': kernel[key] = d.get('kernel')
med = {k: {l: statistics.median(v) for l, v in d.items()} for k, d in times.items()}
print('%-30s %3s %5s %6s %6s %6s %6s  rows/tiles  auto' % ('matrix', 'n', 'nz/t', 'dense', 'rows', 'tiles', 'auto'))
for (m, n), t in sorted(med.items(), key=lambda kv: (kv[0][1], kv[0][0].split(':')[2], kv[0][0])):
    print('%-30s %3d %5.1f %6.1f %6.1f %6.1f %6.1f  %.3f  %s' % (
        m, n, per_tile.get((m, n)) or 0, t.get('dense', 0), t.get('rows', 0), t.get('tiles', 0),
        t.get('auto', 0), t.get('rows', 0) / t.get('tiles', 1), kernel.get((m, n))))
for n in sorted({k[1] for k in med}):
    for s in sorted({k[0].split(':')[2] for k in med}):
        r = [med[k]['rows'] / med[k]['tiles'] for k in med if k[1] == n and k[0].split(':')[2] == s]
        print('n=%d %s: rows over tiles %.3f-%.3f' % (n, s, min(r), max(r)))
