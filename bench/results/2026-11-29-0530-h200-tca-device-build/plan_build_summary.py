"""tca's plan build in SpMM-times (plan_build_ms / median_ms, the median of a record's builds) by
build (plain tca records: the default build, `default`; variants `host`, `device`), matrix family
and n; and the SpMM times of the builds, which must agree.

    python3 plan_build_summary.py run.jsonl[.gz] ...
"""
import collections
import gzip
import json
import statistics
import sys


def records(paths):
    for path in paths:
        opener = gzip.open if path.endswith(".gz") else open
        with opener(path, "rt") as f:
            for line in f:
                yield json.loads(line)


def family(matrix):
    return matrix.split(":")[0] if matrix.startswith("llm:") else matrix.split("/")[0]


def main(paths):
    groups = collections.defaultdict(lambda: collections.defaultdict(list))
    failed = 0
    for r in records(paths):
        if not r.get("check_passed", True):
            failed += 1
            print("CHECK FAILED", r["matrix"], r["method"], r.get("variant"), r["n"])
        if r["method"] != "tca":
            continue
        d = r.get("details", {})
        builds = d.get("plan_builds_ms") or [r["plan_build_ms"]]
        build = statistics.median(builds)
        label = r.get("variant", "default")
        key = (family(r["matrix"]), r["n"])
        groups[key][label].append((build / r["median_ms"], build, r["median_ms"], d.get("kernel"),
                                   r.get("host_preprocess_ms", 0), r.get("upload_ms", 0),
                                   r.get("device_preprocess_ms", 0)))
    print(f"checks failed: {failed}")
    print("family n build: SpMM-times median (min-max) | plan ms median | SpMM ms median | host / "
          "upload / device ms medians | within 10 SpMM-times")
    for (fam, n), by_label in sorted(groups.items()):
        for label, rows in sorted(by_label.items()):
            times = [x[0] for x in rows]
            med = lambda i: statistics.median(x[i] for x in rows)
            kernels = ",".join(sorted({str(x[3]) for x in rows}))
            within = sum(1 for t in times if t <= 10)
            print(f"{fam:16s} n={n:<5d} {label:6s} {statistics.median(times):7.1f} "
                  f"({min(times):.1f}-{max(times):.1f}) | {med(1):.3f} | {med(2):.4f} | "
                  f"{med(4):.3f} / {med(5):.3f} / {med(6):.3f} | {within}/{len(rows)} [{kernels}]")


if __name__ == "__main__":
    main(sys.argv[1:])
