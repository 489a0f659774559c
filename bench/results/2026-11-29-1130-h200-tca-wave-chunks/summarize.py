"""Run 223's tables: old (previous commit) and new tca tiles against dense cuBLAS, and the chunk
widths of 3-6 segments against the automatic one, per LLM weight and as geometric means.
Usage: python3 summarize.py DIR [RUN] (the run's .jsonl or .jsonl.gz files, as the run wrote them or
as committed here, e.g. `. run225`)."""
import collections, glob, gzip, json, math, statistics, sys

R = sys.argv[1]
RUN = sys.argv[2] if len(sys.argv) > 2 else ''  # e.g. run225: that run's files only
gm = lambda x: math.exp(sum(map(math.log, x)) / len(x))
times = collections.defaultdict(lambda: collections.defaultdict(list))  # (matrix, n) -> label -> ms
details = {}
for path in sorted(glob.glob(R + '/' + RUN + '*old-*.jsonl*') + glob.glob(R + '/' + RUN + '*new-*.jsonl*')):
    binary = 'old' if 'old-' in path.rsplit('/', 1)[-1] else 'new'
    for line in (gzip.open(path, 'rt') if path.endswith('.gz') else open(path)):
        r = json.loads(line)
        if r.get('error'):
            print('error', r['matrix'], r.get('variant'), r['error'][:200]); continue
        if r['method'] == 'cublas_dense': label = 'dense'
        else: label = binary if not r.get('variant') else r['variant']
        key = (r['matrix'], r['n'])
        times[key][label].append(r['median_ms'] * 1e3)
        if label in ('new', 'c768', 'c1024', 'c1280', 'c1536'):
            d = r['details'] or {}
            details[key, label] = (d.get('kernel'), d.get('chunks'), d.get('blocks_at_once'), d.get('split_k'))
med = {k: {l: statistics.median(v) for l, v in labels.items()} for k, labels in times.items()}
variants = ['plain', 'c768', 'c1024', 'c1280', 'c1536']
print('%-30s %3s %6s %6s %6s | %s | new/dense  chunks' % ('matrix', 'n', 'dense', 'old', 'new', ' '.join('%6s' % v for v in variants)))
for (m, n), t in sorted(med.items()):
    if n > 32: continue
    print('%-30s %3d %6.1f %6.1f %6.1f | %s | %.3f %s' % (
        m, n, t.get('dense', float('nan')), t.get('old', float('nan')), t.get('new', float('nan')),
        ' '.join('%6.1f' % t.get(v, float('nan')) for v in variants),
        t['dense'] / t['new'] if 'dense' in t and 'new' in t else float('nan'),
        [details.get(((m, n), l), (None, None))[1] for l in ['new'] + variants[1:]]))
for s in ('s0.70', 's0.90'):
    for n in sorted({k[1] for k in med}):
        keys = [k for k in med if k[1] == n and k[0].split(':')[2] == s and
                all(l in med[k] for l in ['dense', 'old', 'new']) and details.get((k, 'new'), ('',))[0] == 'tiles']
        if not keys: continue
        t = [med[k] for k in keys]
        line = '%s n=%2d (%d): new over old %.3f (%.3f-%.3f); over dense old %.3f (min %.3f) new %.3f (min %.3f)' % (
            s, n, len(keys), gm([x['old'] / x['new'] for x in t]), min(x['old'] / x['new'] for x in t),
            max(x['old'] / x['new'] for x in t), gm([x['dense'] / x['old'] for x in t]), min(x['dense'] / x['old'] for x in t),
            gm([x['dense'] / x['new'] for x in t]), min(x['dense'] / x['new'] for x in t))
        if all('plain' in x for x in t): line += '; plain over new %.3f' % gm([x['plain'] / x['new'] for x in t])
        chunked = [v for v in variants[1:] if all(v in x for x in t)]
        line += '; auto over chunks ' + ' '.join('%s %.3f' % (v, gm([x[v] / x['new'] for x in t])) for v in chunked)
        best = [min([x['new']] + [x[v] for v in chunked]) for x in t]
        line += '; best-of over dense %.3f (min %.3f)' % (gm([x['dense'] / b for x, b in zip(t, best)]), min(x['dense'] / b for x, b in zip(t, best)))
        print(line)
