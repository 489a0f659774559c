#!/usr/bin/env python3
"""Figures and a summary table from `tcsparse bench` result files (JSON lines).

For every (GPU, operation, n, precision) found in the results it writes one picture per
question, speedups over cuSPARSE (default algorithm, same precision), log scale:
  profile-<gpu>-<op>-<precision>.png    how often and by how much each method wins: its speedups
                                        sorted, against the share of matrices (a line at 1x and
                                        at 0.95x; geometric means and the count below 0.95x in
                                        the legend)
  speedup-vs-nnz-<gpu>-<op>-<precision>.png
                                        where it wins: speedup against nonzeros, one point a
                                        matrix, one colour a method
  speedup-<gpu>-<op>-<precision>.png    (only for at most MAX_NAMED_MATRICES matrices) bars per
                                        named matrix
  bandwidth-<gpu>-<op>-<precision>.png  achieved GB/s against nnz, one colour per method, a line
                                        at the measured copy bandwidth
and prints a markdown table to stdout: geometric-mean speedup per method x precision, min, max;
with --plan-build also the plan build of each matrix in SpMV-times (plan_build_ms / median_ms).

Records with an "error" are left out; records that failed their check against the CPU reference
are left out of the speedups (and counted in the table). When several files hold the same case,
the last one read wins.

    python3 bench/plot.py bench/results/2026-11-21-nvidia-h200-default.jsonl -o bench/results/plots
"""

import argparse
import gzip
import json
import math
import os
import re
import statistics
import sys
from collections import defaultdict

import matplotlib

matplotlib.use("Agg")  # files only, no display
import matplotlib.pyplot as plt  # noqa: E402
from matplotlib.ticker import FuncFormatter  # noqa: E402

BASELINE = "cusparse"
MAX_NAMED_MATRICES = 24  # bars with names only up to this; above, the profile and the scatter


def read_records(paths):
    """Every record of every file, keyed by case; the last one read wins."""
    cases = {}
    for path in paths:
        with (gzip.open(path, 'rt') if str(path).endswith('.gz') else open(path)) as f:
            for number, line in enumerate(f, 1):
                line = line.strip()
                if not line:
                    continue
                try:
                    record = json.loads(line)
                except json.JSONDecodeError as error:
                    print(f"{path}:{number}: not JSON ({error}); line skipped", file=sys.stderr)
                    continue
                if record.get("variant"):  # an experiment's variant: a method of its own
                    record["method"] = f'{record["method"]}[{record["variant"]}]'
                key = (record.get("gpu"), record.get("operation"), record.get("n", 1),
                       record.get("precision"), record.get("matrix"), record.get("method"))
                cases[key] = record
    return list(cases.values())


def group_key(record):
    return (record["gpu"], record["operation"], record.get("n", 1), record["precision"])


def group_label(key):
    gpu, operation, n, precision = key
    return f"{gpu} {operation}{f' n={n}' if operation == 'spmm' else ''} {precision}"


def file_stem(key):
    gpu, operation, n, precision = key
    slug = re.sub(r"[^a-z0-9]+", "-", gpu.lower()).strip("-")
    return f"{slug}-{operation}{f'-n{n}' if operation == 'spmm' else ''}-{precision}"


def timed(record):
    return "error" not in record and record.get("median_ms", 0) > 0


def usable(record):
    return timed(record) and record.get("check_passed", False)


def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


class Group:
    """The records of one (gpu, operation, n, precision)."""

    def __init__(self, key, records):
        self.key = key
        self.records = records
        self.by_case = {(r["matrix"], r["method"]): r for r in records}
        by_nnz = sorted({(r["nnz"], r["matrix"]) for r in records})
        self.matrices = [matrix for _, matrix in by_nnz]
        self.methods = sorted({r["method"] for r in records}, key=lambda m: (m != BASELINE, m))

    def speedups(self, method):
        """{matrix: speedup over the baseline} where both are timed and passed their check."""
        result = {}
        for matrix in self.matrices:
            base = self.by_case.get((matrix, BASELINE))
            other = self.by_case.get((matrix, method))
            if base and other and usable(base) and usable(other):
                result[matrix] = base["median_ms"] / other["median_ms"]
        return result

    def failed_checks(self, method):
        return sum(1 for r in self.records
                   if r["method"] == method and timed(r) and not r.get("check_passed", False))

    def copy_gbps(self):
        values = [r["copy_gbps"] for r in self.records if r.get("copy_gbps", 0) > 0]
        return statistics.median(values) if values else None


def speedup_axis(ax, axis="y"):
    """Log scale with ticks written as 0.5x, 1x, 2x."""
    times = FuncFormatter(lambda value, _: f"{value:g}x")
    target = ax.yaxis if axis == "y" else ax.xaxis
    (ax.set_yscale if axis == "y" else ax.set_xscale)("log")
    target.set_major_formatter(times)
    target.set_minor_formatter(times)
    ax.tick_params(axis=axis, which="minor", labelsize=7)


def method_legend(method, values):
    below = sum(v < 0.95 for v in values)
    return f"{method}: geomean {geomean(values):.2f}x, {below} of {len(values)} below 0.95x"


def save(fig, out_dir, name, key):
    fig.tight_layout()
    path = os.path.join(out_dir, f"{name}-{file_stem(key)}.png")
    fig.savefig(path, dpi=120)
    plt.close(fig)
    return path


def plot_speedups(group, out_dir):
    """The sorted profile and the scatter against nonzeros; bars for a few named matrices."""
    methods = [m for m in group.methods if m != BASELINE]
    speedups = {m: group.speedups(m) for m in methods}
    if not any(speedups.values()):
        return []
    paths = []

    fig, ax = plt.subplots(figsize=(8, 5))
    for method in methods:
        values = sorted(speedups[method].values())
        if values:
            shares = [100.0 * (k + 0.5) / len(values) for k in range(len(values))]
            ax.plot(shares, values, marker="." if len(values) <= 60 else None,
                    label=method_legend(method, values))
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axhline(0.95, color="grey", linewidth=0.8, linestyle=":")
    speedup_axis(ax)
    ax.set_xlim(0, 100)
    ax.set_xlabel("share of matrices (%), each method's speedups sorted")
    ax.set_ylabel(f"speedup over {BASELINE} (log)")
    ax.set_title(f"{group_label(group.key)}: how often and by how much", fontsize=9)
    ax.legend(fontsize=8)
    paths.append(save(fig, out_dir, "profile", group.key))

    nnz = {r["matrix"]: r["nnz"] for r in group.records}
    fig, ax = plt.subplots(figsize=(8, 5))
    for method in methods:
        if speedups[method]:
            ax.scatter([nnz[m] for m in speedups[method]], list(speedups[method].values()), s=12,
                       alpha=0.7, label=method_legend(method, list(speedups[method].values())))
    ax.axhline(1.0, color="black", linewidth=0.8)
    ax.axhline(0.95, color="grey", linewidth=0.8, linestyle=":")
    speedup_axis(ax)
    ax.set_xscale("log")
    ax.set_xlabel("nonzeros (log)")
    ax.set_ylabel(f"speedup over {BASELINE} (log)")
    ax.set_title(f"{group_label(group.key)}: speedup against matrix size", fontsize=9)
    ax.legend(fontsize=8)
    paths.append(save(fig, out_dir, "speedup-vs-nnz", group.key))

    matrices = [m for m in group.matrices if any(m in s for s in speedups.values())]
    if len(matrices) <= MAX_NAMED_MATRICES:
        width = 0.8 / max(1, len(methods))
        fig, ax = plt.subplots(figsize=(max(8, 0.5 * len(matrices) * max(1, len(methods)) ** 0.5), 5))
        for i, method in enumerate(methods):
            xs = [j + i * width for j, m in enumerate(matrices) if m in speedups[method]]
            ys = [speedups[method][m] for m in matrices if m in speedups[method]]
            ax.bar(xs, ys, width=width, label=method_legend(method, ys))
        ax.axhline(1.0, color="black", linewidth=0.8)
        speedup_axis(ax)
        ax.set_ylabel(f"speedup over {BASELINE} (log)")
        ax.set_xticks([j + 0.4 - width / 2 for j in range(len(matrices))])
        ax.set_xticklabels(matrices, rotation=60, ha="right", fontsize=7)
        ax.set_title(f"{group_label(group.key)}: per matrix, by nonzeros", fontsize=9)
        ax.legend(fontsize=8)
        paths.append(save(fig, out_dir, "speedup", group.key))
    return paths


def plot_bandwidth(group, out_dir):
    points = [r for r in group.records if timed(r)]
    if not points:
        return None
    fig, ax = plt.subplots(figsize=(8, 5))
    for method in group.methods:
        mine = [r for r in points if r["method"] == method]
        if mine:
            ax.scatter([r["nnz"] for r in mine], [r["gbps"] for r in mine], s=14, label=method,
                       alpha=0.8)
    copy = group.copy_gbps()
    if copy:
        ax.axhline(copy, color="black", linestyle="--", linewidth=1,
                   label=f"copy bandwidth {copy:.0f} GB/s")
    ax.set_xscale("log")
    ax.set_xlabel("nonzeros")
    ax.set_ylabel("achieved GB/s (minimum bytes / median time)")
    ax.set_title(f"{group_label(group.key)}: bandwidth", fontsize=9)
    ax.legend(fontsize=8)
    return save(fig, out_dir, "bandwidth", group.key)


def summary_table(groups):
    lines = ["| gpu | operation | precision | method | matrices | geomean speedup | min | max "
             "| failed checks |",
             "|---|---|---|---|---:|---:|---:|---:|---:|"]
    for group in groups:
        gpu, operation, n, precision = group.key
        op = f"{operation} n={n}" if operation == "spmm" else operation
        for method in group.methods:
            if method == BASELINE:
                continue
            values = list(group.speedups(method).values())
            cells = (f"{geomean(values):.2f}x | {min(values):.2f}x | {max(values):.2f}x"
                     if values else "- | - | -")
            lines.append(f"| {gpu} | {op} | {precision} | {method} | {len(values)} | {cells} "
                         f"| {group.failed_checks(method)} |")
    return "\n".join(lines)


def plan_build_table(groups, min_nnz):
    """Markdown tables of the plan build in SpMV-times (plan_build_ms / median_ms of the same
    record), one per group, matrices of at least min_nnz nonzeros, with the largest per method."""
    lines = []
    for group in groups:
        records = [r for r in group.records if r.get("nnz", 0) >= min_nnz and r.get("median_ms")]
        methods = sorted({r["method"] for r in records})
        if not records:
            continue
        lines += ["", f"### {group_label(group.key)}: plan build in SpMV-times (ms)", "",
                  "| matrix | nnz | " + " | ".join(methods) + " |",
                  "|---|---:|" + "---:|" * len(methods)]
        by_matrix = defaultdict(dict)
        for r in records:
            by_matrix[(r["nnz"], r["matrix"])][r["method"]] = r
        worst = defaultdict(float)
        for (nnz, matrix), per_method in sorted(by_matrix.items()):
            cells = []
            for m in methods:
                r = per_method.get(m)
                if r is None:
                    cells.append("")
                    continue
                times = r["plan_build_ms"] / r["median_ms"]
                worst[m] = max(worst[m], times)
                cells.append(f"{times:.0f} ({r['plan_build_ms']:.2f})")
            lines.append(f"| {matrix} | {nnz} | " + " | ".join(cells) + " |")
        lines.append("| largest | | " + " | ".join(f"{worst[m]:.0f}" for m in methods) + " |")
    return "\n".join(lines)


def main():
    parser = argparse.ArgumentParser(
        description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("results", nargs="+", help="JSON-lines files written by tcsparse bench (.jsonl or .jsonl.gz)")
    parser.add_argument("-o", "--output-dir", default="bench/results/plots",
                        help="where the PNGs go (default: %(default)s)")
    parser.add_argument("--no-plots", action="store_true", help="only print the summary table")
    parser.add_argument("--plan-build", action="store_true",
                        help="also print the plan build in SpMV-times per matrix and method")
    parser.add_argument("--min-nnz", type=int, default=0,
                        help="--plan-build: only matrices of at least this many nonzeros")
    args = parser.parse_args()

    records = read_records(args.results)
    errors = [r for r in records if "error" in r]
    grouped = defaultdict(list)
    for record in records:
        if "error" not in record:
            grouped[group_key(record)].append(record)
    groups = [Group(key, grouped[key]) for key in sorted(grouped, key=str)]

    if not args.no_plots:
        os.makedirs(args.output_dir, exist_ok=True)
        for group in groups:
            for path in plot_speedups(group, args.output_dir) + [plot_bandwidth(group, args.output_dir)]:
                if path:
                    print(f"wrote {path}", file=sys.stderr)

    print(summary_table(groups))
    if args.plan_build:
        print(plan_build_table(groups, args.min_nnz))
    if errors:
        print(f"\n{len(errors)} records with errors left out, e.g. {errors[0]['matrix']} "
              f"{errors[0]['method']} {errors[0]['precision']}: {errors[0]['error']}")


if __name__ == "__main__":
    main()
