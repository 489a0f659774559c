#!/usr/bin/env python3
"""Fits the rule of Method("auto") from the committed benchmark records and evaluates it.

    python3 bench/fit_auto_choice.py --tcsparse build/release/tools/tcsparse/tcsparse

Reads every bench/results/**/*.jsonl and *.jsonl.gz, keeps the records without a variant or
parameters whose check passed, and takes per (GPU, matrix, operation, precision, n, method) the
newest record (by its run's timestamp). A case is one (GPU, matrix, operation, precision, n) with
at least two methods timed that "auto" may take there (auto_may_choose); its target is the fastest
of them.

Features (the same as src/plan/auto_choice.cpp computes at plan time): the matrix features come
from `tcsparse info --json` on the matrix file (under --matrices) or generator spec, so they are
the C++ code's own; cached in bench/results/auto-choice/features.json (delete an entry, or the
file, to recompute). Per case: n, and x_over_l2 = cols * n * value bytes / the GPU's L2.

Model: per (operation, precision) one decision tree of depth <= --depth, greedy, each split
minimising the summed log(time of the leaf's method / best time) over the cases, a leaf's
method ranking the methods by that sum. A method not timed on a case is unknown there: a leaf
ranks the methods by their mean regret over the cases they were timed on, those timed on fewer
than a quarter of its cases (MIN_COVERAGE) or on fewer than --min-leaf cases last. SpMM trees
split only on SPLIT_FEATURES["spmm"] (density, max_row_length, n), which carry over from one
DLMC model to another; SpMV trees may split on every feature.

Evaluation: leave-one-family-out (a family: a SuiteSparse group, a DLMC model, a generator kind;
see family()), per (operation, precision): geomean of time(chosen) / time(best) and the share of
cases within 5 % of the best, against always-dasp and always-cusparse, over the held-out cases
on which the chosen method was timed; the others are counted ("rule's choice not timed"). Twice: for
the rule alone (PlanOptions::auto_measure false: the leaf's first candidate) and for the
measured choice that plans make by default (the fastest of the leaf's first MEASURED_CANDIDATES
candidates and cusparse, as src/plan/auto_measure.hpp times them on the matrix; simulated with
the records' times as the fastest of those timed on the case: a bound where one was not).

Writes src/plan/auto_choice_rule.inc (the rule fitted on every case), and under
bench/results/auto-choice/: evaluation.md, rule.json (the trees), features.json (the cache).
Standard library and numpy only.
"""
from __future__ import annotations

import argparse
import csv
import glob
import gzip
import hashlib
import json
import math
import os
import subprocess
import sys
from collections import defaultdict

import numpy as np

# Must match enum AutoFeature in src/plan/auto_choice.hpp (the names are the C++ enumerators).
FEATURES = [
    "rows", "cols", "nnz", "mean_row_length", "max_row_length", "row_length_cv",
    "long_row_share", "medium_row_share", "short_row_share", "empty_row_share", "density",
    "n", "x_over_l2",
]
VALUE_BYTES = {"fp64": 8, "fp32": 4, "fp16": 2, "bf16": 2}
# cudaDevAttrL2CacheSize of the GPUs the records come from (the records' fits_l2 agree: every
# record of min_bytes <= 13.3 MB fits, none of >= 104.9 MB does).
L2_BYTES = {"NVIDIA H200": 50 << 20, "NVIDIA H100 80GB HBM3": 50 << 20}
DEFAULT_L2_BYTES = 50 << 20  # kHostDefaultL2CacheBytes
WITHIN = 1.05                # "within 5 % of the best"
# Where "auto" may take cublas_dense (MethodDescriptor::auto_may_choose; kAutoDenseMaxBytes and
# kAutoDenseMinDensity in src/cublas_dense/cublas_dense_method.cpp): its records elsewhere are
# left out of the cases, as the choice could never take them.
AUTO_DENSE_MAX_BYTES = float(1 << 30)
AUTO_DENSE_MIN_DENSITY = 0.01
# The measured choice (src/plan/auto_choice.hpp kAutoMeasuredCandidates, auto_measure.hpp): the
# leaf's first MEASURED_CANDIDATES candidates and BASELINE are built and timed, the fastest kept.
MEASURED_CANDIDATES = 2
BASELINE = "cusparse"
# Methods that keep the matrix on the host (MethodDescriptor::matrix_stays_on_host): "auto"
# never takes them.
HOST_RESIDENT = {"csr_full_overlap"}


def auto_may_choose(method, features, precision):
    if method != "cublas_dense":
        return True
    dense_bytes = features["rows"] * features["cols"] * VALUE_BYTES[precision]
    return dense_bytes <= AUTO_DENSE_MAX_BYTES and features["density"] >= AUTO_DENSE_MIN_DENSITY
OPERATIONS = ["spmv", "spmm"]
# The features a tree may split on, per operation. SpMM is fitted on DLMC models (and generated
# LLM weights) only, and leave-one-family-out trains on one model to predict the other: the row
# length distribution shares and cv differ per model and pruning and do not carry over, while
# density (sparse against dense), max_row_length (cusparse_alg3's imbalance) and n do.
SPLIT_FEATURES = {"spmv": FEATURES, "spmm": ["density", "max_row_length", "n"]}
PRECISIONS = ["fp64", "fp32", "fp16", "bf16"]


# ---- records --------------------------------------------------------------------------------

def result_files(results_dir):
    files = glob.glob(os.path.join(results_dir, "**", "*.jsonl"), recursive=True)
    files += glob.glob(os.path.join(results_dir, "**", "*.jsonl.gz"), recursive=True)
    return sorted(f for f in files if os.sep + "auto-choice" + os.sep not in f)


def read_records(path):
    opener = gzip.open if path.endswith(".gz") else open
    with opener(path, "rt") as stream:
        for line in stream:
            if line.strip():
                yield json.loads(line)


def newest_records(files):
    """The newest usable record per (gpu, matrix, operation, precision, n, method), and the files
    that contributed at least one."""
    newest = {}
    for path in files:
        for r in read_records(path):
            if r.get("variant") or r.get("parameters") or r.get("method") == "auto":
                continue
            if r.get("build"):  # an experimental build of the library (its results' README)
                continue
            # the rule is for the default SpMM layout and output (row-major, the input type);
            # other plan options, and plans built from device CSR, are other experiments
            if r.get("layout", "row_major") != "row_major" or r.get("output", "input") != "input":
                continue
            if r.get("plan_from", "host") != "host" or r.get("host_upload", "automatic") != "automatic":
                continue
            if not r.get("check_passed") or not r.get("median_ms") or r.get("error"):
                continue
            n = r["n"] if r["operation"] == "spmm" else 1
            key = (r["gpu"], r["matrix"], r["operation"], r["precision"], n, r["method"])
            stamp = (r["timestamp"], path)
            if key not in newest or stamp >= newest[key][0]:
                newest[key] = (stamp, r, path)
    used = sorted({path for _, _, path in newest.values()})
    return {k: r for k, (_, r, _) in newest.items()}, used


# ---- matrices: where they come from, their family, their features ---------------------------

def manifest(matrices_dir):
    table = {}
    path = os.path.join(matrices_dir, "MANIFEST.tsv")
    if os.path.exists(path):
        with open(path, newline="") as stream:
            for row in csv.DictReader(stream, delimiter="\t"):
                name = row["file"]
                for ext in (".mtx.gz", ".smtx.gz", ".mtx", ".smtx"):
                    if name.endswith(ext):
                        name = name[: -len(ext)]
                table[name] = row
    return table


def local_source(source, matrices_dir):
    """The record's matrix_source on this machine: files (and generator specs naming files) are
    found under matrices_dir by their path below the run's `.matrices/`."""
    marker = ".matrices/"
    if source.startswith("gen:"):
        if marker in source:
            head, tail = source.split(marker, 1)
            prefix = head[: head.rfind("=") + 1]
            return prefix + os.path.join(matrices_dir, tail)
        return source
    if marker in source:
        return os.path.join(matrices_dir, source.split(marker, 1)[1])
    return source


def family(matrix, source, table):
    """Leave-one-out groups: generated matrices by generator kind, DLMC by model, SuiteSparse by
    its group (from the MANIFEST notes), other files by the collection they came from."""
    if source.startswith("gen:"):
        return "gen:" + source.split(":")[1]
    if matrix.startswith("dlmc/"):
        return "dlmc:" + matrix.split("/")[1]
    row = table.get(matrix)
    notes = row["notes"] if row else ""
    for prefix, label in (("SuiteSparse ", "ss:"), ("SJSU Singular Matrix Database ", "sjsu:")):
        if notes.startswith(prefix) and "/" in notes:
            return label + notes[len(prefix):].split("/")[0]
    if row:
        return "repo:" + row["source_repo"]
    return "other:" + matrix.split("/")[0]


def matrix_features(tcsparse, source):
    out = subprocess.run([tcsparse, "info", "--json", source], check=True, capture_output=True,
                         text=True)
    info = json.loads(out.stdout)
    return info["auto"]["features"]


def load_features(records, matrices_dir, tcsparse, cache_path):
    cache = {}
    if os.path.exists(cache_path):
        with open(cache_path) as stream:
            cache = json.load(stream)
    sources = {}
    for r in records.values():
        sources[r["matrix"]] = local_source(r["matrix_source"], matrices_dir)
    missing = [m for m in sorted(sources) if m not in cache]
    for k, m in enumerate(missing):
        if not tcsparse:
            sys.exit(f"features of {m} are not cached: pass --tcsparse")
        print(f"[{k + 1}/{len(missing)}] tcsparse info {sources[m]}", file=sys.stderr)
        try:
            cache[m] = matrix_features(tcsparse, sources[m])
        except subprocess.CalledProcessError as error:
            print(f"  skipped: {error.stderr.strip()}", file=sys.stderr)
    if missing:
        os.makedirs(os.path.dirname(cache_path), exist_ok=True)
        with open(cache_path, "w") as stream:
            json.dump(cache, stream, indent=0, sort_keys=True)
            stream.write("\n")
    return cache, sources


# ---- cases ----------------------------------------------------------------------------------

class Case:
    def __init__(self, gpu, matrix, operation, precision, n, times, features, family, stamps=None):
        self.gpu, self.matrix, self.operation, self.precision, self.n = gpu, matrix, operation, precision, n
        self.times = times  # method -> median ms
        self.stamps = stamps or {}  # method -> timestamp of its record
        self.best = min(times.values())
        self.family = family
        self.x = np.array([features[f] for f in FEATURES], dtype=float)


def build_cases(records, features, sources, table):
    grouped, stamps = defaultdict(dict), defaultdict(dict)
    for (gpu, matrix, operation, precision, n, method), r in records.items():
        grouped[(gpu, matrix, operation, precision, n)][method] = r["median_ms"]
        stamps[(gpu, matrix, operation, precision, n)][method] = r["timestamp"]
    cases = []
    for key, times in sorted(grouped.items()):
        gpu, matrix, operation, precision, n = key
        if matrix not in features:
            continue
        times = {m: t for m, t in times.items() if auto_may_choose(m, features[matrix], precision)}
        if len(times) < 2:
            continue
        f = dict(features[matrix])
        f["n"] = n
        f["x_over_l2"] = f["cols"] * n * VALUE_BYTES[precision] / L2_BYTES.get(gpu, DEFAULT_L2_BYTES)
        cases.append(Case(gpu, matrix, operation, precision, n, times, f,
                          family(matrix, sources[matrix], table), stamps[key]))
    return cases


def cost_matrix(cases, methods):
    """log(time / best) per case and method; NaN where the method was not timed on the case
    (another GPU's records, a method added later): unknown, not counted against the method."""
    c = np.full((len(cases), len(methods)), np.nan)
    for i, case in enumerate(cases):
        for j, m in enumerate(methods):
            if m in case.times:
                c[i, j] = math.log(case.times[m] / case.best)
    return c


# ---- the tree -------------------------------------------------------------------------------

# A method timed on fewer than this share of a node's cases, or on fewer than min_leaf of them, is
# ranked after those timed on more: its mean regret over a handful of cases says little. (A
# quarter, not a half: some methods were timed on one GPU only, e.g. SpMM cublas_dense on the H200,
# and where they were timed their mean regret over dozens of cases is as good as any.)
MIN_COVERAGE = 0.25


def node_regret(cost_sum, timed, cases, min_timed):
    """Regret of each method over a node's cases: its mean regret where it was timed, scaled to
    the node's case count; infinite where it was timed on too few of them."""
    with np.errstate(divide="ignore", invalid="ignore"):
        mean = cost_sum / timed
    enough = (timed >= MIN_COVERAGE * cases) & (timed >= min_timed)
    return np.where(enough, mean * cases, np.inf)


def leaf(cost, methods, min_timed):
    cases = cost.shape[0]
    timed = (~np.isnan(cost)).sum(axis=0)
    totals = node_regret(np.nansum(cost, axis=0), timed, cases, min_timed)
    with np.errstate(divide="ignore", invalid="ignore"):
        fallback_order = np.nan_to_num(np.nansum(cost, axis=0) / timed, nan=np.inf)
    order = sorted(range(len(methods)), key=lambda j: (totals[j], fallback_order[j]))
    return {"methods": [methods[j] for j in order], "cases": int(cases),
            "regret": float(totals[order[0]])}


def best_split(x, cost, min_leaf, features, max_thresholds=64):
    """(regret, feature, threshold) of the split on one of `features` with the least summed
    regret, or None."""
    best = None
    count = x.shape[0]
    timed = ~np.isnan(cost)
    known = np.nan_to_num(cost, nan=0.0)
    for f in range(x.shape[1]):
        if FEATURES[f] not in features:
            continue
        order = np.argsort(x[:, f], kind="stable")
        values = x[order, f]
        prefix = np.cumsum(known[order], axis=0)
        prefix_timed = np.cumsum(timed[order], axis=0)
        total, total_timed = prefix[-1], prefix_timed[-1]
        # a split after position k (k cases below) where the value changes
        positions = np.nonzero(values[1:] > values[:-1])[0] + 1
        positions = positions[(positions >= min_leaf) & (positions <= count - min_leaf)]
        if positions.size == 0:
            continue
        if positions.size > max_thresholds:
            positions = positions[np.linspace(0, positions.size - 1, max_thresholds).astype(int)]
        cases_below = positions[:, None]
        below = node_regret(prefix[positions - 1], prefix_timed[positions - 1], cases_below,
                            min_leaf).min(axis=1)
        above = node_regret(total - prefix[positions - 1], total_timed - prefix_timed[positions - 1],
                            count - cases_below, min_leaf).min(axis=1)
        k = int(np.argmin(below + above))
        regret = float(below[k] + above[k])
        if not math.isfinite(regret):
            continue
        p = positions[k]
        threshold = float((values[p - 1] + values[p]) / 2)
        if best is None or regret < best[0]:
            best = (regret, FEATURES[f], threshold)
    return best


def fit_tree(x, cost, methods, depth, min_leaf, min_gain, features=FEATURES):
    node = leaf(cost, methods, min_leaf)
    if depth == 0 or x.shape[0] < 2 * min_leaf:
        return node
    split = best_split(x, cost, min_leaf, features)
    if split is None or node["regret"] - split[0] < min_gain:
        return node
    _, feature, threshold = split
    mask = x[:, FEATURES.index(feature)] < threshold
    return {"feature": feature, "threshold": threshold, "cases": int(x.shape[0]),
            "below": fit_tree(x[mask], cost[mask], methods, depth - 1, min_leaf, min_gain, features),
            "at_or_above": fit_tree(x[~mask], cost[~mask], methods, depth - 1, min_leaf, min_gain,
                                    features)}


def walk(tree, x):
    while "feature" in tree:
        below = x[FEATURES.index(tree["feature"])] < tree["threshold"]
        tree = tree["below"] if below else tree["at_or_above"]
    return tree["methods"]


def choose(tree, case):
    """The first ranked method timed on the case, and whether it was not the leaf's first."""
    ranked = walk(tree, case.x)
    for k, m in enumerate(ranked):
        if m in case.times:
            return m, k > 0
    return min(case.times, key=case.times.get), True


def trial_methods(tree, case):
    """What a measured choice builds and times (AutoChoice::trial_methods), in the leaf's order:
    its first MEASURED_CANDIDATES methods other than BASELINE that "auto" may take for this
    matrix, and BASELINE (last if the leaf does not rank it)."""
    features = dict(zip(FEATURES, case.x))
    trials, others = [], 0
    for m in walk(tree, case.x):
        if m in HOST_RESIDENT or not auto_may_choose(m, features, case.precision):
            continue
        if m == BASELINE or others < MEASURED_CANDIDATES:
            trials.append(m)
            others += m != BASELINE
    return trials + ([BASELINE] if BASELINE not in trials else [])


def choose_measured(tree, case):
    """The fastest trial method timed on the case (None if none was), and whether every trial
    was. With a trial not timed, the plan's choice can only be that one if it is faster still:
    the ratio to the best is then no better than the plan would get (a bound, not a guess)."""
    trials = trial_methods(tree, case)
    timed = [m for m in trials if m in case.times]
    if not timed:
        return None, False
    return min(timed, key=lambda m: case.times[m]), len(timed) == len(trials)


def fit(cases, args):
    methods = sorted({m for c in cases for m in c.times})
    x = np.array([c.x for c in cases])
    features = SPLIT_FEATURES[cases[0].operation]
    return fit_tree(x, cost_matrix(cases, methods), methods, args.depth, args.min_leaf,
                    args.min_gain, features)


# ---- evaluation -----------------------------------------------------------------------------

def geomean(values):
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else float("nan")


def summarize(ratios):
    if not ratios:
        return "n/a", "n/a", 0
    within = sum(r <= WITHIN for r in ratios) / len(ratios)
    return f"{geomean(ratios):.3f}", f"{100 * within:.1f} %", len(ratios)


def evaluate(groups, args):
    """The table's rows, and every held-out case whose choice ran below 0.95x cuSPARSE (a list of
    (operation label, precision, ratio, case, chosen method))."""
    lines, below = [], []
    for (operation, precision), cases in groups.items():
        families = sorted({c.family for c in cases})
        auto, fallbacks, dasp, cusparse, rule_below = [], 0, [], [], 0
        measured, measured_untimed, worst = [], 0, []
        for held_out in families:
            train = [c for c in cases if c.family != held_out]
            test = [c for c in cases if c.family == held_out]
            tree = fit(train, args) if train else {"methods": [BASELINE]}
            for c in test:
                m, fallback = choose(tree, c)
                if fallback:  # the method the rule chose was not timed here: nothing to compare
                    fallbacks += 1
                else:
                    auto.append(c.times[m] / c.best)
                    if "cusparse" in c.times and c.times[m] / c.times["cusparse"] > 1 / 0.95:
                        rule_below += 1
                m, every_trial_timed = choose_measured(tree, c)
                measured_untimed += not every_trial_timed
                if m is None:
                    continue
                measured.append(c.times[m] / c.best)
                if BASELINE in c.times:
                    worst.append((c.times[m] / c.times[BASELINE], c.matrix, c.gpu, m))
                    if c.times[m] / c.times[BASELINE] > 1 / 0.95:
                        below.append((c.times[BASELINE] / c.times[m], c, m))
        for c in cases:
            if "dasp" in c.times:
                dasp.append(c.times["dasp"] / c.best)
            if "cusparse" in c.times:
                cusparse.append(c.times["cusparse"] / c.best)
        label = operation + (" n=" + "/".join(sorted({str(c.n) for c in cases})) if operation == "spmm" else "")
        a, me = summarize(auto), summarize(measured)
        d, cu = summarize(dasp), summarize(cusparse)
        slow = sorted(worst, reverse=True)[:3]
        measured_below = sum(r > 1 / 0.95 for r, *_ in worst)
        lines.append(f"| {label} | {precision} | {len(cases)} | {len(families)} | {me[0]} | {me[1]} | "
                     f"{measured_untimed} | {measured_below} | {a[0]} | {a[1]} | {fallbacks} | "
                     f"{rule_below} | {d[0]} | {d[1]} | {cu[0]} | {cu[1]} | "
                     + "; ".join(f"{mx} ({g.split()[1]}, {m}) {1 / r:.2f}x" for r, mx, g, m in slow) + " |")
    return lines, below


def below_cusparse_table(below):
    """Markdown rows of the held-out cases below 0.95x cuSPARSE, slowest first, with the dates of
    the two records compared (an old record may predate a change of the chosen method)."""
    rows = ["| operation | precision | matrix | GPU | chosen | against cusparse | chosen's record | "
            "cusparse's record |", "|---|---|---|---|---|---:|---|---|"]
    for ratio, c, m in sorted(below, key=lambda entry: entry[0]):
        label = c.operation + (f" n={c.n}" if c.operation == "spmm" else "")
        rows.append(f"| {label} | {c.precision} | {c.matrix} | {c.gpu} | {m} | {ratio:.2f}x | "
                    f"{c.stamps.get(m, '?')[:16]} | {c.stamps.get('cusparse', '?')[:16]} |")
    return rows


# ---- output ---------------------------------------------------------------------------------

def tree_text(tree, indent=""):
    if "feature" not in tree:
        return f"{indent}-> {' '.join(tree['methods'])}  ({tree['cases']} cases)\n"
    return (f"{indent}{tree['feature']} < {tree['threshold']:.6g}  ({tree['cases']} cases)\n"
            + tree_text(tree["below"], indent + "    ")
            + f"{indent}{tree['feature']} >= {tree['threshold']:.6g}\n"
            + tree_text(tree["at_or_above"], indent + "    "))


def flatten(tree, nodes):
    index = len(nodes)
    nodes.append(None)
    if "feature" not in tree:
        nodes[index] = ("none", 0.0, -1, -1, " ".join(tree["methods"]))
        return index
    below = flatten(tree["below"], nodes)
    above = flatten(tree["at_or_above"], nodes)
    nodes[index] = (tree["feature"], tree["threshold"], below, above, "")
    return index


def write_rule_inc(path, trees, rule_id, files):
    nodes, roots = [], []
    for (operation, precision), tree in trees.items():
        roots.append((operation, precision, flatten(tree, nodes)))
    out = ["// Generated by bench/fit_auto_choice.py: do not edit; rerun it (README: automatic",
           "// choice). The fitted rule of Method(\"auto\"), included by src/plan/auto_choice.cpp.",
           f"// Rule {rule_id}, fitted on the newest record per GPU, matrix, operation, precision,",
           "// n and method of these result files (variants and parameter runs left out):"]
    out += [f"//   {f}" for f in files]
    out += [f'inline constexpr std::string_view kAutoRuleId = "{rule_id}";',
            "// {feature, threshold, below, at_or_above, leaf methods best first}",
            "inline constexpr AutoRuleNode kAutoRuleNodes[] = {"]
    for k, (feature, threshold, below, above, methods) in enumerate(nodes):
        out.append(f'    {{AutoFeature::{feature}, {threshold!r}, {below}, {above}, "{methods}"}},  // {k}')
    out.append("};")
    out.append("inline constexpr AutoRuleTree kAutoRuleTrees[] = {")
    for operation, precision, root in roots:
        out.append(f"    {{Operation::{operation}, Precision::{precision}, {root}}},")
    out.append("};")
    with open(path, "w") as stream:
        stream.write("\n".join(out) + "\n")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--tcsparse", help="the tcsparse CLI, for features not yet cached")
    parser.add_argument("--results", default="bench/results")
    parser.add_argument("--matrices", default="../shared/matrices",
                        help="the real matrices (MANIFEST.tsv), found by their path below .matrices/")
    parser.add_argument("--out-dir", default="bench/results/auto-choice")
    parser.add_argument("--rule", default="src/plan/auto_choice_rule.inc")
    parser.add_argument("--depth", type=int, default=3)
    parser.add_argument("--min-leaf", type=int, default=12,
                        help="fewest cases in a leaf, and fewest a method must be timed on to rank")
    parser.add_argument("--min-gain", type=float, default=0.5,
                        help="least drop of the summed log regret for a split")
    args = parser.parse_args()

    files = result_files(args.results)
    records, used = newest_records(files)
    table = manifest(args.matrices)
    features, sources = load_features(records, args.matrices, args.tcsparse,
                                      os.path.join(args.out_dir, "features.json"))
    cases = build_cases(records, features, sources, table)
    groups = defaultdict(list)
    for c in cases:
        groups[(c.operation, c.precision)].append(c)
    groups = {k: groups[k] for k in sorted(groups, key=lambda k: (OPERATIONS.index(k[0]), PRECISIONS.index(k[1])))}

    trees = {k: fit(v, args) for k, v in groups.items()}
    named = {f"{o}/{p}": t for (o, p), t in trees.items()}
    digest = hashlib.sha256(json.dumps(named, sort_keys=True).encode()).hexdigest()[:12]
    rule_id = f"fit_auto_choice-{digest}"
    write_rule_inc(args.rule, trees, rule_id, used)
    os.makedirs(args.out_dir, exist_ok=True)
    with open(os.path.join(args.out_dir, "rule.json"), "w") as stream:
        json.dump({"id": rule_id, "features": FEATURES, "files": used,
                   "trees": named}, stream, indent=1)
        stream.write("\n")

    rows, below = evaluate(groups, args)
    md = [f"# Automatic choice: rule {rule_id}", "",
          "Generated by `bench/fit_auto_choice.py` (README, \"Automatic choice\"): do not edit.", "",
          f"Cases: one per (GPU, matrix, operation, precision, n) with at least two methods timed "
          "that \"auto\" may take there (cublas_dense: small, not too sparse matrices), "
          f"{len(cases)} in all, from the newest record per method of {len(used)} result files "
          "(listed in rule.json and the header of src/plan/auto_choice_rule.inc).", "",
          "## Held-out evaluation (leave one matrix family out)", "",
          "Each family (SuiteSparse group, DLMC model, generator kind, other collection) is "
          "predicted by a rule fitted without it. Ratio: time of the choice / time of the fastest "
          "method timed on that case (1.000 = always the fastest).", "",
          "- measured (the default, PlanOptions::auto_measure): the plan builds the leaf's first "
          f"{MEASURED_CANDIDATES} candidates and {BASELINE}, times them on the matrix and keeps "
          "the fastest; simulated here with the records' times as the fastest of the trial "
          "methods timed on the case (\"trials not all timed\" counts the cases where one was "
          "not: the plan could only take it if it were faster still, so their ratio is a bound).",
          "- rule: the leaf's first candidate alone (auto_measure false).", "",
          "| operation | precision | cases | families | measured geomean | measured within 5 % | "
          "trials not all timed | measured < 0.95x cusparse | rule geomean | rule within 5 % | "
          "rule's choice not timed | rule < 0.95x cusparse | always dasp geomean | within 5 % | "
          "always cusparse geomean | within 5 % | measured: slowest against cusparse |",
          "|---|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---|"] + rows + [
          "", "\"rule's choice not timed\": held-out cases on which the method the rule chose "
          "was not timed (records of older runs, of another GPU, or of fewer methods); they are "
          "left out of the rule's columns, which compare measured times only. \"always dasp\" "
          "counts only the cases dasp ran (SpMV).", "",
          f"## Held-out cases where the measured choice is below 0.95x cuSPARSE ({len(below)})",
          ""] + below_cusparse_table(below) + [
          "", "## The rule fitted on every case", ""]
    for (o, p), t in trees.items():
        md += [f"### {o} {p}", "", "```", tree_text(t).rstrip(), "```", ""]
    with open(os.path.join(args.out_dir, "evaluation.md"), "w") as stream:
        stream.write("\n".join(md) + "\n")
    print("\n".join(rows))


if __name__ == "__main__":
    main()
