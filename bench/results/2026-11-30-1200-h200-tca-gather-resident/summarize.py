"""tca kernel=gather against dense cuBLAS and tca's other kernels: per LLM weight, width and
variant the median time (us) and the speedup over dense cuBLAS, then the geomean of each
variant's speedup per (sparsity, n). Usage: python3 summarize.py DIR [PREFIX] (the .jsonl or
.jsonl.gz files a run wrote, e.g. `. run312-m4`), or python3 summarize.py ARCHIVE.tar.gz
[PREFIX] (the records inside a run's archive, e.g. `run316-records.tar.gz new-`)."""
import collections, glob, gzip, io, json, math, statistics, sys, tarfile

R = sys.argv[1]
PREFIX = sys.argv[2] if len(sys.argv) > 2 else ''


def record_files():
    if R.endswith('.tar.gz'):
        with tarfile.open(R) as archive:
            for member in sorted(archive.getmembers(), key=lambda m: m.name):
                if member.name.startswith(PREFIX) and member.name.endswith('.jsonl'):
                    yield io.TextIOWrapper(archive.extractfile(member))
        return
    for path in sorted(glob.glob(R + '/' + PREFIX + '*.jsonl*')):
        yield gzip.open(path, 'rt') if path.endswith('.gz') else open(path)


times = collections.defaultdict(lambda: collections.defaultdict(list))
shape = {}
for records in record_files():
    for line in records:
        r = json.loads(line)
        label = 'dense' if r['method'] == 'cublas_dense' else (r.get('variant') or 'auto')
        if r.get('error'):
            print('error', r['matrix'], r.get('n'), label, r['error'][:200]); continue
        if not r.get('check_passed', True):
            print('CHECK FAILED', r['matrix'], r['n'], label, r.get('rel_error'))
        key = (r['matrix'], r['n'])
        times[key][label].append(r['median_ms'] * 1e3)
        d = r.get('details') or {}
        if d.get('kernel') == 'gather' and label == 'gather' and r['n'] == 16:
            shape[key + (label,)] = 'chunks %s of %s, ranges %s, %s, pad %.2f conf %.2f' % (
                d.get('chunks'), d.get('chunk_columns'), d.get('ranges'), d.get('split_k'),
                d.get('padding_ratio', 0), d.get('octet_conflicts', 0) / max(1, 2 * d.get('groups', 1)))
med = {k: {l: statistics.median(v) for l, v in d.items()} for k, d in times.items()}
labels = sorted({l for d in med.values() for l in d} - {'dense'})
print('%-30s %3s %7s ' % ('matrix', 'n', 'dense') + ' '.join('%14s' % l for l in labels))
for (m, n), t in sorted(med.items(), key=lambda kv: (kv[0][1], kv[0][0].split(':')[2], kv[0][0])):
    d = t.get('dense')
    print('%-30s %3d %7.1f ' % (m, n, d or 0) + ' '.join(
        '%7.1f %5.2fx' % (t[l], d / t[l]) if l in t and d else '%14s' % '-' for l in labels))
for key in sorted(shape): print('  shape', key, shape[key])
print('geomean speedup over dense cuBLAS (min-max):')
for n in sorted({k[1] for k in med}):
    for s in sorted({k[0].split(':')[2] for k in med}):
        keys = [k for k in med if k[1] == n and k[0].split(':')[2] == s and 'dense' in med[k]]
        row = []
        for l in labels:
            x = [med[k]['dense'] / med[k][l] for k in keys if l in med[k]]
            if x: row.append('%s %.3fx (%.2f-%.2f)' % (l, math.exp(sum(map(math.log, x)) / len(x)), min(x), max(x)))
        print('n=%d %s [%d]: %s' % (n, s, len(keys), '; '.join(row)))
