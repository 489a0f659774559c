#!/usr/bin/env python3
"""Turns the output of the DASP authors' SpMV programs into JSON lines, and puts them side by side
with `tcsparse bench` results (used by scripts/external-dasp.sh; see bench/external/README.md).

The authors' programs (github.com/SuperScientificSoftwareLaboratory/DASP, `spmv_double` and
`spmv_half`, built and run, never included here) take one Matrix Market path and print their
timings on stdout; each run also appends one comma-separated line to `data/spmv_f64_record.csv`
or `data/spmv_f16_record.csv` below its working directory. That line is read for the shape, the
row categories and the times with 6 decimals (stdout has 4); stdout is the fallback.

    dasp_side_by_side.py records --precision fp64 --matrix NAME --source PATH --stdout LOG \\
        --csv CSV --exit-code RC [--gpu NAME] [--cuda TEXT] [--authors-commit SHA]  >> authors.jsonl
    dasp_side_by_side.py table --authors authors.jsonl --ours tcsparse.jsonl  > comparison.md

Their timing (read in their code): 100 warm-up launches, then the wall-clock time (gettimeofday)
around 1000 back-to-back launches of the SpMV kernel on the default stream, plus 1000 launches of
the long-row reduction kernel when the matrix has long rows, divided by 1000: a mean per SpMV.
y stays in their sorted row order (no scatter back to the caller's order), x and every matrix
value are 1, and the result is not checked. Their cuSPARSE line is timed the same way.
"""

import argparse
import json
import math
import re
import sys
from collections import defaultdict

AUTHORS_METHOD = "dasp_authors"
AUTHORS_CUSPARSE = "cusparse_authors_harness"
TIMED_LAUNCHES = 1000
WARMUP_LAUNCHES = 100
TIMING = ("mean of 1000 back-to-back launches on the default stream, wall clock (gettimeofday) "
          "after 100 warm-up launches; DASP: plus the long-row reduction launches when there are "
          "long rows; y left in the sorted row order; x and values all 1; result not checked")

# The line spmv_all appends (both precisions): the file name and shape, then the row categories.
CSV_HEAD = ["filename", "rows", "cols", "nnz", "short_rows_1", "common_13", "short_rows_3",
            "short_rows_4", "short_rows_2", "long_rows", "row_block_rows", "nnz_short",
            "fill0_nnz_short", "nnz_long", "fill0_nnz_long", "nnz_regular",
            "fill0_nnz_regular", "nnz_irregular"]
# Then, per precision, DASP's part and main()'s cuSPARSE part of the same line.
CSV_TAIL = {
    "fp64": ["fill_ratio", "block_longest", "data_bytes", "dasp_ms", "dasp_gflops",
             "dasp_gbps_1", "dasp_gbps_2",
             "cusparse_data_bytes", "cusparse_ms", "cusparse_gflops", "cusparse_gbps_1",
             "cusparse_gbps_2"],
    "fp16": ["fill_ratio", "block_longest", "data_bytes", "dasp_preprocess_ms", "dasp_ms",
             "dasp_gflops", "dasp_cs_ms", "dasp_cs_gflops", "dasp_gbps_1", "dasp_gbps_2",
             "cusparse_data_bytes", "cusparse_preprocess_ms", "cusparse_ms", "cusparse_gflops",
             "cusparse_gbps_1", "cusparse_gbps_2"],
}
DETAIL_FIELDS = CSV_HEAD[4:] + ["fill_ratio", "block_longest"]

# stdout: "cusparse:  0.1234 ms, ...", "SpMV_X:  0.0709 ms, ...", fp16 also "SpMV_X2: ...".
STDOUT_TIME = re.compile(r"^\s*(cusparse|SpMV_X2|SpMV_X)\s*:\s*([0-9.eE+-]+)\s*ms", re.M)
# cuSPARSE's messages, e.g. " ** On entry to cusparseCreate(): CUDA context cannot be initialized".
LIBRARY_ERROR = re.compile(r"^\s*\*\* On entry to ", re.M)


def number(text):
    value = float(text)
    return int(value) if value.is_integer() and "." not in text else value


def parse_csv_line(line, precision):
    """The fields of one record line, named; None when the line does not have the expected
    number of fields (another version of their program)."""
    fields = line.rstrip("\n").split(",")
    names = CSV_HEAD + CSV_TAIL[precision]
    # The file name may contain commas: the numeric fields are counted from the end.
    numeric = len(names) - 1
    if len(fields) < numeric + 1:
        return None
    filename = ",".join(fields[:len(fields) - numeric])
    try:
        values = [number(f) for f in fields[len(fields) - numeric:]]
    except ValueError:
        return None
    return dict(zip(names, [filename] + values))


def parse_stdout(text):
    """{'cusparse': ms, 'SpMV_X': ms, 'SpMV_X2': ms} as printed (4 decimals)."""
    return {name: float(ms) for name, ms in STDOUT_TIME.findall(text)}


def make_records(precision, matrix, source, stdout_text, csv_text, exit_code, context):
    """The JSON records of one run of their program: their DASP (fp16: both kernels, as
    variants) and their harness's cuSPARSE; one record with "error" when the run failed."""
    base = {"matrix": matrix, "matrix_source": source, "precision": precision,
            "operation": "spmv", "n": 1, **context}
    csv_lines = [l for l in csv_text.splitlines() if l.strip() and not l.startswith("#")]
    fields = parse_csv_line(csv_lines[-1], precision) if csv_lines else None
    printed = parse_stdout(stdout_text)
    # Their programs check no CUDA return code; cuSPARSE's own messages are the only sign.
    library_errors = LIBRARY_ERROR.findall(stdout_text)
    if exit_code != 0 or library_errors or (fields is None and "SpMV_X" not in printed):
        if exit_code != 0:
            error = f"exit code {exit_code}"
        elif library_errors:
            error = f"the run printed {len(library_errors)} CUDA/cuSPARSE error messages"
        else:
            error = "no timing found in the output"
        distinct = list(dict.fromkeys(l.strip() for l in stdout_text.splitlines() if l.strip()))
        shown = [l for l in distinct if LIBRARY_ERROR.match(l)][:2] or distinct[-3:]
        return [{**base, "method": AUTHORS_METHOD, "error": error,
                 "output_tail": " | ".join(shown)}]

    if fields is not None:
        shape = {"rows": fields["rows"], "cols": fields["cols"], "nnz": fields["nnz"]}
        details = {k: fields[k] for k in DETAIL_FIELDS}
        times = {"dasp": fields["dasp_ms"], "cusparse": fields["cusparse_ms"]}
        if precision == "fp16":
            times["dasp_cs"] = fields["dasp_cs_ms"]
        time_source = "csv"
    else:
        shape, details = {}, {}
        times = {"dasp": printed.get("SpMV_X"), "cusparse": printed.get("cusparse")}
        if precision == "fp16":
            times["dasp_cs"] = printed.get("SpMV_X2")
        time_source = "stdout"

    def record(method, ms, variant=None, extra=None):
        out = {**base, **shape, "method": method}
        if variant:
            out["variant"] = variant
        out["mean_ms"] = ms
        if ms and shape.get("nnz") is not None:
            out["gflops"] = 2.0 * shape["nnz"] / (ms * 1e6)
        out.update({"runs": TIMED_LAUNCHES, "warmup_runs": WARMUP_LAUNCHES, "timing": TIMING,
                    "time_source": time_source})
        out.update(extra or {})
        return out

    dasp_extra = {"details": details} if details else {}
    if precision == "fp16" and fields is not None:
        dasp_extra["host_preprocess_ms"] = fields["dasp_preprocess_ms"]
    records = []
    if precision == "fp16":
        # SpMV_X: the kernel with plain loads; SpMV_X2: the same kernel with streaming (.cs)
        # loads and stores, the one their fp64 program runs.
        records.append(record(AUTHORS_METHOD, times["dasp"], "plain_loads", dasp_extra))
        records.append(record(AUTHORS_METHOD, times["dasp_cs"], "cs_loads", dasp_extra))
    else:
        records.append(record(AUTHORS_METHOD, times["dasp"], None, dasp_extra))
    records.append(record(AUTHORS_CUSPARSE, times["cusparse"]))
    return records


def read_jsonl(path):
    with open(path) as f:
        return [json.loads(line) for line in f if line.strip()]


def fmt_ms(ms):
    return "-" if ms is None else f"{ms:.4f}"


def fmt_ratio(value):
    return "-" if value is None else f"{value:.2f}x"


def ratio(numerator, denominator):
    if numerator is None or denominator is None or denominator <= 0:
        return None
    return numerator / denominator


def geomean(values):
    values = [v for v in values if v]
    return math.exp(sum(math.log(v) for v in values) / len(values)) if values else None


def side_by_side(authors, ours):
    """Markdown tables, one per precision: our DASP and cuSPARSE (median of event-timed runs)
    next to the authors' DASP and their harness's cuSPARSE (means, see TIMING)."""
    ours_ms = {}
    ours_check = {}
    for r in ours:
        if r.get("error") or r.get("variant") or r.get("operation", "spmv") != "spmv":
            continue
        ours_ms[(r["matrix"], r["precision"], r["method"])] = r["median_ms"]
        ours_check[(r["matrix"], r["precision"], r["method"])] = r.get("check_passed")
    theirs = defaultdict(dict)   # (matrix, precision) -> {column: ms}
    errors = []
    nnz = {}
    for r in authors:
        key = (r["matrix"], r["precision"])
        if r.get("error"):
            errors.append(f"- {r['matrix']} {r['precision']}: {r['error']} {r.get('output_tail', '')}")
            continue
        column = r["method"] + (f"[{r['variant']}]" if r.get("variant") else "")
        theirs[key][column] = r.get("mean_ms")
        if r.get("nnz") is not None:
            nnz[r["matrix"]] = r["nnz"]
    for r in ours:
        nnz.setdefault(r["matrix"], r.get("nnz"))

    lines = ["# DASP side by side: tcsparse and the authors' code", "",
             "ours: `tcsparse bench` median per apply (CUDA events, caller-order y, checked); "
             "authors: mean of 1000 launches, wall clock, y in their sorted order, unchecked. "
             "`authors/ours` > 1: ours is faster. `normalised` divides each side by the cuSPARSE "
             "time of its own harness, which cancels the difference between the two timings.", ""]
    precisions = sorted({p for _, p in theirs} | {k[1] for k in ours_ms},
                        key=lambda p: ["fp64", "fp32", "fp16", "bf16"].index(p)
                        if p in ["fp64", "fp32", "fp16", "bf16"] else 9)
    for precision in precisions:
        matrices = sorted({m for m, p in theirs if p == precision} |
                          {k[0] for k in ours_ms if k[1] == precision},
                          key=lambda m: (nnz.get(m) or 0, m))
        columns = sorted({c for (m, p), cols in theirs.items() if p == precision for c in cols
                          if c.startswith(AUTHORS_METHOD)})
        header = ["matrix", "nnz", "ours dasp ms", "ours cusparse ms"]
        for c in columns:
            header += [f"{c} ms", "authors/ours", "normalised"]
        header += ["their cusparse ms", "their/our cusparse"]
        lines += [f"## {precision}", "", "| " + " | ".join(header) + " |",
                  "|" + "---|" * len(header)]
        summary = defaultdict(list)
        for m in matrices:
            our_dasp = ours_ms.get((m, precision, "dasp"))
            our_cusparse = ours_ms.get((m, precision, "cusparse"))
            their_cusparse = theirs[(m, precision)].get(AUTHORS_CUSPARSE)
            mark = "" if ours_check.get((m, precision, "dasp"), True) is not False else " !"
            row = [m, str(nnz.get(m, "-")), fmt_ms(our_dasp) + mark, fmt_ms(our_cusparse)]
            for c in columns:
                their_dasp = theirs[(m, precision)].get(c)
                speed = ratio(their_dasp, our_dasp)
                normalised = ratio(ratio(their_dasp, their_cusparse), ratio(our_dasp, our_cusparse))
                summary[c].append(speed)
                summary[c + " normalised"].append(normalised)
                row += [fmt_ms(their_dasp), fmt_ratio(speed), fmt_ratio(normalised)]
            harness = ratio(their_cusparse, our_cusparse)
            summary["cusparse"].append(harness)
            row += [fmt_ms(their_cusparse), fmt_ratio(harness)]
            lines.append("| " + " | ".join(row) + " |")
        geo = ["geomean", "", "", ""]
        for c in columns:
            geo += ["", fmt_ratio(geomean(summary[c])), fmt_ratio(geomean(summary[c + " normalised"]))]
        geo += ["", fmt_ratio(geomean(summary["cusparse"]))]
        lines += ["| " + " | ".join(geo) + " |", ""]
    if errors:
        lines += ["## Failed runs of the authors' programs", ""] + errors + [""]
    return "\n".join(lines)


def main(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    sub = parser.add_subparsers(dest="command", required=True)
    rec = sub.add_parser("records", help="JSON lines of one run of spmv_double / spmv_half")
    rec.add_argument("--precision", choices=sorted(CSV_TAIL), required=True)
    rec.add_argument("--matrix", required=True, help="the name used in tcsparse's records")
    rec.add_argument("--source", required=True, help="the matrix file as given")
    rec.add_argument("--stdout", required=True, help="their program's stdout and stderr")
    rec.add_argument("--csv", required=True, help="the record file the run appended to")
    rec.add_argument("--exit-code", type=int, required=True)
    rec.add_argument("--gpu", default="")
    rec.add_argument("--cuda", default="")
    rec.add_argument("--authors-commit", default="")
    rec.add_argument("--build-flags", default="")
    tab = sub.add_parser("table", help="markdown tables of both sides")
    tab.add_argument("--authors", required=True)
    tab.add_argument("--ours", required=True)
    args = parser.parse_args(argv)

    if args.command == "records":
        with open(args.stdout, errors="replace") as f:
            stdout_text = f.read()
        try:
            with open(args.csv, errors="replace") as f:
                csv_text = f.read()
        except FileNotFoundError:
            csv_text = ""
        context = {k: v for k, v in {"gpu": args.gpu, "cuda": args.cuda,
                                     "authors_commit": args.authors_commit,
                                     "build_flags": args.build_flags}.items() if v}
        for record in make_records(args.precision, args.matrix, args.source, stdout_text,
                                   csv_text, args.exit_code, context):
            print(json.dumps(record))
        return 0
    authors = read_jsonl(args.authors)
    ours = read_jsonl(args.ours)
    print(side_by_side(authors, ours))
    return 0


if __name__ == "__main__":
    sys.exit(main())
