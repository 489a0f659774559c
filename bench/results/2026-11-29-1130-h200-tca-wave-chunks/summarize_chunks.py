"""Run 224's tables: tca tiles with automatic chunks against fixed chunk widths, per LLM weight
(70 %, n <= 32) and as geometric means, with dense cuBLAS.
Usage: python3 summarize_chunks.py DIR [RUN] (the run's .jsonl or .jsonl.gz files, as the run wrote them or
as committed here, e.g. `. run225`)."""
import collections, glob, gzip, json, math, statistics, sys

R = sys.argv[1]
RUN = sys.argv[2] if len(sys.argv) > 2 else ''  # e.g. run225: that run's files only
gm = lambda x: math.exp(sum(map(math.log, x)) / len(x))
times = collections.defaultdict(lambda: collections.defaultdict(list))
chunks = {}
for path in sorted(glob.glob(R + '/' + RUN + '*chunks-*.jsonl*')):
    for line in (gzip.open(path, 'rt') if path.endswith('.gz') else open(path)):
        r = json.loads(line)
        if r.get('error'):
            print('error', r['matrix'], r.get('variant'), r['error'][:200]); continue
        label = 'dense' if r['method'] == 'cublas_dense' else (r.get('variant') or 'auto')
        times[(r['matrix'], r['n'])][label].append(r['median_ms'] * 1e3)
        chunks[(r['matrix'], r['n']), label] = (r['details'] or {}).get('chunks')
med = {k: {l: statistics.median(v) for l, v in labels.items()} for k, labels in times.items()}
widths = ['c768', 'c1024', 'c1280', 'c1536', 'c1792', 'c2048']
print('%-30s %3s %6s %6s | %s | best' % ('matrix', 'n', 'dense', 'tiles', ' '.join('%6s' % w for w in widths)))
for (m, n), t in sorted(med.items()):
    if n > 32: continue
    best = min(['tiles'] + widths, key=lambda l: t.get(l, 1e9))
    print('%-30s %3d %6.1f %6.1f | %s | %s (%s chunks) %.3f of tiles, %.3f over dense' % (
        m, n, t['dense'], t['tiles'], ' '.join('%6.1f' % t.get(w, float('nan')) for w in widths), best,
        chunks.get(((m, n), best)), t[best] / t['tiles'], t['dense'] / t[best]))
for s in ('s0.70', 's0.90'):
    for n in sorted({k[1] for k in med}):
        keys = [k for k in med if k[1] == n and k[0].split(':')[2] == s and all(l in med[k] for l in ['dense', 'tiles'] + widths)]
        if not keys: continue
        t = [med[k] for k in keys]
        print('%s n=%2d: tiles over dense %.3f (min %.3f); tiles over width %s; best over dense %.3f (min %.3f)' % (
            s, n, gm([x['dense'] / x['tiles'] for x in t]), min(x['dense'] / x['tiles'] for x in t),
            ' '.join('%s %.3f' % (w, gm([x[w] / x['tiles'] for x in t])) for w in widths),
            gm([x['dense'] / min(x[l] for l in ['tiles'] + widths) for x in t]),
            min(x['dense'] / min(x[l] for l in ['tiles'] + widths) for x in t)))
