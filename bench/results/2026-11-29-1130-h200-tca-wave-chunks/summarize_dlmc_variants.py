"""Run 229's table: tca on the DLMC matrices with variants against its defaults and dense cuBLAS,
geomeans by n and by the defaults' split-K (none / global / cluster), and per matrix shape.
Usage: python3 summarize_dlmc_variants.py DIR [RUN] (the run's .jsonl or .jsonl.gz files)."""
import collections, glob, gzip, json, math, statistics, sys

R = sys.argv[1]
RUN = sys.argv[2] if len(sys.argv) > 2 else ''
gm = lambda x: math.exp(sum(map(math.log, x)) / len(x))
times = collections.defaultdict(dict)
info, split = {}, {}
for path in sorted(glob.glob(R + '/' + RUN + '*dlmc*.jsonl*')):
    for line in (gzip.open(path, 'rt') if path.endswith('.gz') else open(path)):
        r = json.loads(line)
        if r.get('error'):
            print('error', r['matrix'], r.get('variant'), r['error'][:200]); continue
        label = 'dense' if r['method'] == 'cublas_dense' else (r.get('variant') or 'auto')
        key = (r['matrix'], r['n'])
        times[key][label] = r['median_ms'] * 1e3
        info[key] = (r['rows'], r['cols'])
        if label == 'auto':
            d = r['details'] or {}
            split[key] = (d.get('split_k'), d.get('slice_columns'), d.get('chunks'))
variants = sorted({l for v in times.values() for l in v} - {'auto', 'dense'})
for n in sorted({k[1] for k in times}):
    keys = [k for k in times if k[1] == n and all(l in times[k] for l in ['auto', 'dense'] + variants)]
    for part in ['all'] + sorted({split[k][0] for k in keys}):
        sel = [k for k in keys if part == 'all' or split[k][0] == part]
        t = [times[k] for k in sel]
        print('n=%d %s (%d): auto over dense %.3f; variant over auto %s; best-of over dense %.3f' % (
            n, part, len(sel), gm([x['dense'] / x['auto'] for x in t]),
            ' '.join('%s %.3f' % (v, gm([x['auto'] / x[v] for x in t])) for v in variants),
            gm([x['dense'] / min(x[l] for l in ['auto'] + variants) for x in t])))
    shapes = collections.defaultdict(list)
    for k in keys: shapes[info[k]].append(k)
    for shape, ks in sorted(shapes.items(), key=lambda kv: kv[0][0] * kv[0][1]):
        m = {l: statistics.median(times[k][l] for k in ks) for l in ['dense', 'auto'] + variants}
        print('  %5d x %-5d (%3d) %s  %s' % (shape[0], shape[1], len(ks), split[ks[0]],
                                            ' '.join('%s %.1f' % (l, m[l]) for l in m)))
