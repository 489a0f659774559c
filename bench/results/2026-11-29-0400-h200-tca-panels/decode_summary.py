"""Speedup of each tca variant over dense cuBLAS (same run, same matrix, n and layout) at decode
widths, by sparsity and n: geomean (min-max) over the LLM weights of the records given.

    python3 decode_summary.py run.jsonl[.gz] ...
"""
import collections
import gzip
import json
import math
import sys


def records(paths):
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            for line in f:
                yield json.loads(line)


def main(paths):
    dense, tca = {}, collections.defaultdict(dict)
    failed = 0
    for r in records(paths):
        if not r.get("check_passed", True):
            failed += 1
            print("CHECK FAILED", r["matrix"], r["method"], r.get("variant"), r["n"])
        key = (r["matrix"], r["n"], r["details"].get("layout", r.get("layout", "")))
        if r["method"] == "cublas_dense":
            dense[key] = r["median_ms"]
        elif r["method"] == "tca":
            label = r.get("variant", "auto")
            tca[label][key] = (r["median_ms"], r["details"].get("kernel", "?"))
    print(f"checks failed: {failed}")
    for label, times in sorted(tca.items()):
        groups = collections.defaultdict(list)
        for (matrix, n, layout), (ms, kernel) in times.items():
            if (matrix, n, layout) not in dense:
                continue
            sparsity = matrix.split(":")[2] if matrix.startswith("llm:") else "other"
            profile = matrix.split(":")[3] if matrix.startswith("llm:") else ""
            groups[(layout, n, sparsity, profile)].append(
                (dense[(matrix, n, layout)] / ms, matrix, kernel, ms))
        print(f"\n## {label}: speedup over dense cuBLAS, geomean (min-max) [kernels]")
        for (layout, n, sparsity, profile), values in sorted(groups.items()):
            s = [v[0] for v in values]
            g = math.exp(sum(math.log(x) for x in s) / len(s))
            kernels = ",".join(sorted({v[2] for v in values}))
            print(f"  {layout:12s} n={n:<3d} {sparsity} {profile:8s} {g:5.2f}x "
                  f"({min(s):.2f}-{max(s):.2f}) [{kernels}] "
                  + " ".join(f"{v[3]*1000:.1f}us" for v in sorted(values, key=lambda v: v[1])))


if __name__ == "__main__":
    main(sys.argv[1:])
