#!/usr/bin/env python3
"""Tests of the `tcsparse` command-line program that need no GPU (run by CTest, one case each).

Usage: test_cli.py TCSPARSE_BINARY CASE [--matrix-dir DIR]
Exit code 0: passed, 77: skipped (with the reason on stdout), anything else: failed.
"""

import argparse
import gzip
import json
import os
import shutil
import subprocess
import sys
import tempfile

SKIP = 77


class Skip(Exception):
    pass


class Cli:
    def __init__(self, binary, workdir, matrix_dir):
        self.binary = binary
        self.workdir = workdir
        self.matrix_dir = matrix_dir

    def run(self, *args, expect_rc=0):
        """Runs tcsparse with args; asserts the exit code (None: any); returns the result."""
        result = subprocess.run([self.binary, *args], cwd=self.workdir, capture_output=True,
                                text=True, timeout=300)
        if expect_rc is not None and result.returncode != expect_rc:
            raise AssertionError(
                f"tcsparse {' '.join(args)}: exit code {result.returncode}, expected {expect_rc}\n"
                f"stdout:\n{result.stdout}\nstderr:\n{result.stderr}")
        return result

    def json(self, *args):
        return json.loads(self.run(*args).stdout)

    def path(self, name):
        return os.path.join(self.workdir, name)

    def real_matrix(self, relative):
        if not self.matrix_dir or not os.path.isfile(os.path.join(self.matrix_dir, relative)):
            raise Skip(f"real matrix {relative} not found (set TCSPARSE_MATRIX_DIR)")
        return os.path.join(self.matrix_dir, relative)

    def manifest_row(self, relative):
        with open(os.path.join(self.matrix_dir, "MANIFEST.tsv")) as manifest:
            header = manifest.readline().rstrip("\n").split("\t")
            for line in manifest:
                row = dict(zip(header, line.rstrip("\n").split("\t")))
                if row["file"] == relative:
                    return row
        raise Skip(f"{relative} is not in MANIFEST.tsv")


def check(condition, message):
    if not condition:
        raise AssertionError(message)


def gpu_present():
    nvidia_smi = shutil.which("nvidia-smi")
    if not nvidia_smi:
        return False
    result = subprocess.run([nvidia_smi, "-L"], capture_output=True, text=True)
    return result.returncode == 0 and "GPU" in result.stdout


STENCIL_10x10 = "gen:stencil2d:nx=10,ny=10,seed=3"
STENCIL_10x10_NNZ = 5 * 100 - 4 * 10  # each boundary side loses one neighbour per node


def check_info_shape(info, rows, cols, nnz):
    check((info["rows"], info["cols"], info["nnz"]) == (rows, cols, nnz),
          f"shape {info['rows']} x {info['cols']}, {info['nnz']} nonzeros; "
          f"expected {rows} x {cols}, {nnz}")
    lengths = info["row_lengths"]
    check(sum(lengths["log2_histogram"]) == rows, "the histogram does not count every row")
    check(len(lengths["log2_histogram"]) == len(lengths["log2_histogram_buckets"]),
          "histogram and bucket labels differ in length")
    check(abs(lengths["mean"] - nnz / rows) < 1e-9, "mean row length is not nnz / rows")


def check_info_methods(cli, info):
    names = [method["name"] for method in cli.json("methods", "--json") if not method["automatic"]]
    check(sorted(info["methods"]) == sorted(names),
          f"info lists methods {sorted(info['methods'])}, the library has {sorted(names)}")
    check(info["methods"]["cusparse"] is None, "cuSPARSE has no host format: expected null")
    choice = info["auto"]
    check(choice["chosen"] in names and choice["chosen"] != "csr_full_overlap",
          f"info's automatic choice {choice}")
    check(choice["features"]["nnz"] == info["nnz"] and choice["rule"], f"{choice}")
    dasp = info["methods"].get("dasp")
    if isinstance(dasp, dict) and "rows" in dasp:
        check(sum(dasp["rows"].values()) == info["rows"],
              f"DASP's row categories {dasp['rows']} do not add up to {info['rows']} rows")


# ---- the cases ----

def test_info_generated_json(cli):
    info = cli.json("info", STENCIL_10x10, "--json")
    check_info_shape(info, 100, 100, STENCIL_10x10_NNZ)
    lengths = info["row_lengths"]
    check((lengths["min"], lengths["max"], lengths["empty_rows"]) == (3, 5, 0),
          f"5-point stencil rows hold 3..5 entries: got {lengths}")
    check_info_methods(cli, info)


def test_info_generated_text(cli):
    out = cli.run("info", STENCIL_10x10).stdout
    check(f"100 x 100, {STENCIL_10x10_NNZ} nonzeros" in out, f"shape line missing:\n{out}")
    check("row-length histogram" in out and "dasp" in out, f"sections missing:\n{out}")


def test_info_real_general_file(cli):
    relative = "suitesparse/west0067.mtx.gz"
    path = cli.real_matrix(relative)
    row = cli.manifest_row(relative)
    info = cli.json("info", path, "--json")
    check_info_shape(info, int(row["rows"]), int(row["cols"]), int(row["nnz_expanded"]))
    check(info["file"]["symmetry"] == "general" and info["file"]["field"] == "real",
          f"file header read as {info['file']}")
    check_info_methods(cli, info)


def test_info_real_symmetric_file(cli):
    relative = "suitesparse/bcsstk03.mtx.gz"
    path = cli.real_matrix(relative)
    row = cli.manifest_row(relative)
    info = cli.json("info", path, "--json")
    check_info_shape(info, int(row["rows"]), int(row["cols"]), int(row["nnz_expanded"]))
    check(info["file"]["entries_in_file"] == int(row["nnz_stored"]),
          "entries_in_file should count the stored triangle")


def test_info_smtx_file(cli):
    relative = "dlmc/rn50/magnitude_pruning/0.9/bottleneck_1_block_group1_1_1.smtx.gz"
    path = cli.real_matrix(relative)
    row = cli.manifest_row(relative)
    info = cli.json("info", path, "--json")
    check_info_shape(info, int(row["rows"]), int(row["cols"]), int(row["nnz_expanded"]))


def test_generate_convert_round_trip(cli):
    first, second, packed = cli.path("a.mtx"), cli.path("b.mtx"), cli.path("c.mtx.gz")
    cli.run("generate", "stencil3d", "nx=6", "ny=5", "nz=4", "seed=7", "-o", first)
    out = cli.run("convert", first, packed).stdout
    check("MB/s parsed" in out, f"convert does not report the parse speed:\n{out}")
    cli.run("convert", packed, second)
    with open(first) as a, open(second) as b:
        check(a.read() == b.read(), "mtx -> mtx.gz -> mtx changed the file")
    with gzip.open(packed, "rt") as c, open(first) as a:
        check(c.read() == a.read(), "the .mtx.gz holds other text than the .mtx")
    info = cli.json("info", second, "--json")
    check_info_shape(info, 120, 120, cli.json("info", "gen:stencil3d:nx=6,ny=5,nz=4,seed=7",
                                               "--json")["nnz"])


def test_generate_spec_equals_key_values(cli):
    by_keys, by_spec = cli.path("keys.mtx"), cli.path("spec.mtx")
    cli.run("generate", "random", "rows=50", "cols=40", "dist=power_law", "min=1", "max=30",
            "seed=5", "-o", by_keys)
    cli.run("generate", "gen:random:rows=50,cols=40,dist=power_law,min=1,max=30,seed=5",
            "-o", by_spec)
    with open(by_keys) as a, open(by_spec) as b:
        check(a.read() == b.read(), "KIND key=value and the spec string differ")


def test_generate_smtx_round_trip(cli):
    smtx = cli.path("band.smtx")
    cli.run("generate", "banded", "n=300", "bandwidth=2", "-o", smtx)
    info = cli.json("info", smtx, "--json")
    check_info_shape(info, 300, 300, 300 * 5 - 2 * 3)


def test_malformed_file_is_a_clear_error(cli):
    bad = cli.path("bad.mtx")
    with open(bad, "w") as f:
        f.write("%%MatrixMarket matrix coordinate real general\n3 3 2\n1 1 1.0\n2 x 1.0\n")
    result = cli.run("info", bad, expect_rc=None)
    check(result.returncode not in (0, 2), f"exit code {result.returncode} for a malformed file")
    check(result.stderr.startswith("tcsparse: error: ") and f"{bad}:4" in result.stderr,
          f"expected 'tcsparse: error: {bad}:4: ...', got:\n{result.stderr}")


def test_missing_file_is_a_clear_error(cli):
    result = cli.run("info", cli.path("missing.mtx"), expect_rc=None)
    check(result.returncode == 1 and result.stderr.startswith("tcsparse: error: "),
          f"exit code {result.returncode}, stderr:\n{result.stderr}")


def test_bad_generator_spec_is_a_clear_error(cli):
    result = cli.run("info", "gen:nosuchkind:n=3", expect_rc=None)
    check(result.returncode == 1 and "nosuchkind" in result.stderr,
          f"exit code {result.returncode}, stderr:\n{result.stderr}")


def test_gpu_commands_without_gpu_exit_2(cli):
    if gpu_present():
        raise Skip("a GPU is present: the no-device path cannot be tested here")
    for args in (["spmv", STENCIL_10x10, "--method", "cusparse"],
                 ["spmm", STENCIL_10x10, "-n", "4"],
                 ["bench", "--suite", "small", "--output", cli.path("r.jsonl")]):
        result = cli.run(*args, expect_rc=2)
        check(result.stderr.startswith("tcsparse: error: no CUDA device found: "),
              f"tcsparse {' '.join(args)}: stderr:\n{result.stderr}")
        # Not CUDA's "driver version is insufficient": what is missing and what works instead.
        check("--device cpu" in result.stderr and "insufficient" not in result.stderr,
              f"tcsparse {' '.join(args)}: stderr:\n{result.stderr}")


def test_spmv_on_cpu(cli):
    for precision in ("fp64", "fp32", "fp16", "bf16"):
        out = cli.run("spmv", STENCIL_10x10, "--device", "cpu", "--precision", precision,
                      "--runs", "3").stdout
        check("passed" in out and "GFLOP/s" in out, f"{precision}:\n{out}")


def test_spmm_on_cpu_with_beta(cli):
    out = cli.run("spmm", "gen:rmat:scale=8,edge_factor=4,seed=2", "-n", "5", "--device", "cpu",
                  "--alpha", "0.5", "--beta", "2", "--runs", "2").stdout
    check("passed" in out and "n=5" in out, out)


def test_unknown_precision_is_a_clear_error(cli):
    result = cli.run("spmv", STENCIL_10x10, "--device", "cpu", "--precision", "fp8",
                     expect_rc=1)
    check("fp8" in result.stderr, result.stderr)


def test_methods_lists_capabilities(cli):
    methods = {m["name"]: m for m in cli.json("methods", "--json")}
    check("cusparse" in methods and methods["cusparse"]["baseline"], f"{methods}")
    check(all(m["spmv"] or m["spmm"] for m in methods.values()), "a method with no operation")
    text = cli.run("methods").stdout
    check(all(name in text for name in methods), text)


def test_small_suite_matrices_are_small(cli):
    lines = cli.run("bench", "--suite", "small", "--list").stdout.splitlines()
    check(len(lines) >= 9, f"the small suite lists {len(lines)} matrices")
    for line in lines:
        name, spec = line.split("\t")
        info = cli.json("info", spec, "--json")
        check(0 < info["nnz"] < 200_000, f"{name}: {info['nnz']} nonzeros (should be < 200 k)")


def test_bench_lists_directory_recursively(cli):
    os.makedirs(cli.path("dir/sub"))
    cli.run("generate", STENCIL_10x10, "-o", cli.path("dir/a.mtx"))
    cli.run("generate", STENCIL_10x10, "-o", cli.path("dir/sub/b.smtx"))
    with open(cli.path("dir/notes.txt"), "w") as f:
        f.write("not a matrix\n")
    lines = cli.run("bench", cli.path("dir"), "--list").stdout.splitlines()
    check([line.split("\t")[0] for line in lines] == ["a", "sub/b"], f"listed {lines}")


def test_bench_variants_are_listed_and_checked(cli):
    result = cli.run("bench", "--suite", "small", "--list", "--methods", "dasp",
                     "--variant", "lg4:long_groups_per_warp=4,blocks_in_flight=2")
    check("variants: lg4(long_groups_per_warp=4,blocks_in_flight=2)" in result.stderr,
          result.stderr)
    for bad in ["no_label_here", ":long_groups_per_warp=4", "x:long_groups_per_warp",
                "x:a=1,,b=2", "bad label:a=1"]:
        result = cli.run("bench", "--list", "--variant", bad, expect_rc=1)
        check(f"--variant '{bad}'" in result.stderr and "LABEL:KEY=VALUE" in result.stderr,
              f"{bad}: {result.stderr}")


def test_methods_list_their_parameter_schemas(cli):
    methods = {m["name"]: m for m in cli.json("methods", "--json")}
    dasp = {p["name"]: p for p in methods["dasp"]["parameters"]}
    check(dasp["blocks_in_flight"]["default"] == "auto", f"{dasp['blocks_in_flight']}")
    check(dasp["blocks_in_flight"]["words"] == ["auto", "1", "2", "4"], f"{dasp['blocks_in_flight']}")
    check(dasp["regular_block_min_fill"]["range"] == [0, 1], f"{dasp['regular_block_min_fill']}")
    check(all(p["help"] for p in dasp.values()), "a parameter without help")
    check(methods["cusparse"]["parameters"] == [], f"{methods['cusparse']}")
    text = cli.run("methods").stdout
    check("blocks_in_flight=auto" in text, text)


def test_parameters_are_checked_before_anything_runs(cli):
    # spmv checks them before it looks for a GPU: the same answer with or without one
    result = cli.run("spmv", STENCIL_10x10, "--method", "dasp", "--param", "no_such_key=1",
                     expect_rc=1)
    check("method 'dasp' has no parameter 'no_such_key'" in result.stderr
          and "blocks_in_flight" in result.stderr, result.stderr)
    result = cli.run("spmv", STENCIL_10x10, "--method", "dasp", "--param", "blocks_in_flight=3",
                     expect_rc=1)
    check("blocks_in_flight=3" in result.stderr and "one of auto, 1, 2, 4" in result.stderr,
          result.stderr)
    result = cli.run("bench", "--suite", "small", "--list", "--methods", "cusparse",
                     "--param", "blocks_in_flight=2", expect_rc=1)
    check("no selected method has the parameter 'blocks_in_flight'" in result.stderr,
          result.stderr)
    for bad, rc in [("foo", 105), ("=4", 105), ("long_groups_per_warp=0", 1)]:
        result = cli.run("bench", "--suite", "small", "--list", "--param", bad, expect_rc=rc)
        check(bad in result.stderr, f"{bad}: {result.stderr}")
    result = cli.run("bench", "--suite", "small", "--list", "--methods", "dasp",
                     "--variant", "x:no_such_key=1", expect_rc=1)
    check("--variant x" in result.stderr and "no_such_key" in result.stderr, result.stderr)
    cli.run("bench", "--suite", "small", "--list", "--param", "blocks_in_flight=4")


def test_auto_measure_is_a_boolean_option_of_runs_and_bench(cli):
    for value in ("true", "false", "0", "1"):
        cli.run("bench", "--suite", "small", "--list", "--methods", "auto", "--auto-measure", value)
    for command in (["bench", "--suite", "small", "--list"], ["spmv", STENCIL_10x10]):
        result = cli.run(*command, "--auto-measure", "sometimes", expect_rc=104)  # CLI11: conversion
        check("--auto-measure" in result.stderr and "sometimes" in result.stderr, result.stderr)


def test_info_reports_layout_statistics_as_json(cli):
    info = cli.json("info", STENCIL_10x10, "--json")
    dasp = info["methods"]["dasp"]
    rows = dasp["rows"]
    check(rows["long"] + rows["medium"] + rows["short"] + rows["empty"] == info["rows"], f"{dasp}")
    check(info["methods"]["cusparse"] is None, f"{info['methods']}")


# ---- hardening (issue 14): hostile files and argument mistakes ---------------------------------

GENERAL_3x3 = ("%%MatrixMarket matrix coordinate real general\n% comment\n3 3 4\n"
               "1 1 1.5\n2 2 -2\n3 1 4e-3\n3 3 7\n")


def write(cli, name, text):
    path = cli.path(name)
    mode = "wb" if isinstance(text, bytes) else "w"
    with open(path, mode) as f:
        f.write(text)
    return path


def timed_run(cli, *args, expect_rc=0, env=None, seconds=1.0):
    """Runs tcsparse, checks the exit code and that it took under `seconds`."""
    import time
    start = time.monotonic()
    result = subprocess.run([cli.binary, *args], cwd=cli.workdir, capture_output=True, text=True,
                            timeout=300, env={**os.environ, **(env or {})})
    elapsed = time.monotonic() - start
    check(result.returncode == expect_rc,
          f"tcsparse {' '.join(args)}: exit code {result.returncode}, expected {expect_rc}\n"
          f"stderr:\n{result.stderr}")
    check(elapsed < seconds, f"tcsparse {' '.join(args)} took {elapsed:.2f} s (limit {seconds} s)")
    return result


def test_two_member_gzip_reads_like_the_plain_file(cli):
    # Text more than 4x the compressed size, split over two members (cat a.gz b.gz, bgzip).
    head = "%%MatrixMarket matrix coordinate real general\n%" + "x" * 300000 + "\n"
    body = GENERAL_3x3.split("\n", 1)[1]
    gz = write(cli, "two.mtx.gz", gzip.compress(head.encode()) + gzip.compress(body.encode()))
    plain = write(cli, "plain.mtx", head + body)
    info_gz = cli.json("info", gz, "--json")
    info_plain = cli.json("info", plain, "--json")
    check_info_shape(info_gz, 3, 3, 4)
    check(info_gz["row_lengths"] == info_plain["row_lengths"], "two-member gzip reads differently")
    out_gz = cli.run("spmv", gz, "--device", "cpu", "--json", "--runs", "1").stdout
    check(json.loads(out_gz)["check_passed"], out_gz)


def test_huge_declared_shape_fails_under_a_memory_limit(cli):
    path = write(cli, "huge.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                  "2000000000 2000000000 1\n1 1 1\n")
    result = timed_run(cli, "info", path, expect_rc=1, env={"TCSPARSE_MEMORY_LIMIT": "1G"})
    check(f"{path}:2:" in result.stderr and "needs about 16.0 GB" in result.stderr
          and "available" in result.stderr, result.stderr)
    result = timed_run(cli, "spmv", path, "--device", "cpu", expect_rc=1,
                       env={"TCSPARSE_MEMORY_LIMIT": "1G"})
    check("needs about" in result.stderr, result.stderr)


def test_spmm_with_huge_n_is_a_memory_error(cli):
    result = timed_run(cli, "spmm", STENCIL_10x10, "-n", "2000000000", "--device", "cpu",
                       expect_rc=1, env={"TCSPARSE_MEMORY_LIMIT": "1G"})
    check("spmm -n 2000000000" in result.stderr and "needs about" in result.stderr, result.stderr)


def test_device_files_are_refused_at_once(cli):
    for name in ("zero.mtx", "zero.mtx.gz", "zero.smtx"):
        link = cli.path(name)
        os.symlink("/dev/zero", link)
        result = timed_run(cli, "info", link, expect_rc=1)
        check(result.stderr.startswith(f"tcsparse: error: {link}:1: "), result.stderr)
    # A gzip bomb of zeros: refused at the banner, not inflated to the end.
    bomb = write(cli, "bomb.mtx.gz", gzip.compress(bytes(200 << 20), compresslevel=9))
    result = timed_run(cli, "info", bomb, expect_rc=1)
    check(f"{bomb}:1: expected the banner" in result.stderr, result.stderr)


def test_gzip_of_comments_reads_with_a_bounded_buffer(cli):
    # 1.2 GB of comment text (12 MB compressed) before a small matrix, read under ulimit -v:
    # only the fixed read buffer holds text at any time.
    comment = ("%" + "c" * 98 + "\n") * 10000
    path = cli.path("comments.mtx.gz")
    with gzip.open(path, "wt", compresslevel=6) as f:
        f.write("%%MatrixMarket matrix coordinate real general\n")
        for _ in range(1200):
            f.write(comment)
        f.write(GENERAL_3x3.split("\n", 1)[1])
    # The limit: what the program needs for a 3 x 3 matrix (its libraries' mappings: CUDA,
    # cuSPARSE, cuBLAS) plus 256 MB, far below the 1.2 GB of text.
    small = write(cli, "small.mtx", "%%MatrixMarket matrix coordinate real general\n" +
                  GENERAL_3x3.split("\n", 1)[1])

    def info_under(limit_kb, matrix):
        return subprocess.run(["bash", "-c", f'ulimit -v {limit_kb}; exec "$0" info "$1" --json',
                               cli.binary, matrix], capture_output=True, text=True, timeout=300)

    low, high = 64 * 1024, 64 * 1024 * 1024  # kB: fails, works
    check(info_under(high, small).returncode == 0, "info of a 3 x 3 matrix fails under 64 GB")
    while high - low > 16 * 1024:
        middle = (low + high) // 2
        if info_under(middle, small).returncode == 0:
            high = middle
        else:
            low = middle
    limit_kb = high + 256 * 1024
    result = info_under(limit_kb, path)
    check(result.returncode == 0, f"exit code {result.returncode}:\n{result.stderr}")
    check_info_shape(json.loads(result.stdout), 3, 3, 4)


def test_symmetric_entry_and_its_mirror_is_refused(cli):
    path = write(cli, "both.mtx", "%%MatrixMarket matrix coordinate real symmetric\n"
                                  "2 2 3\n2 1 5\n1 1 1\n1 2 5\n")
    result = cli.run("info", path, expect_rc=1)
    check(f"{path}:5:" in result.stderr and "line 3" in result.stderr
          and "line 5" in result.stderr, result.stderr)


def test_symmetric_upper_triangle_is_announced(cli):
    path = write(cli, "upper.mtx", "%%MatrixMarket matrix coordinate real symmetric\n"
                                   "2 2 2\n1 1 1\n1 2 5\n")
    result = cli.run("info", path, "--json")
    check_info_shape(json.loads(result.stdout), 2, 2, 3)
    check("tcsparse: note:" in result.stderr and f"{path}:4:" in result.stderr
          and "above the diagonal" in result.stderr, result.stderr)


def test_non_finite_values_are_counted_and_compared_by_position(cli):
    path = write(cli, "nan.mtx", "%%MatrixMarket matrix coordinate real general\n"
                                 "3 3 4\n1 1 nan\n2 2 inf\n3 3 1\n3 1 -inf\n")
    info = cli.json("info", path, "--json")
    check(info["non_finite_values"] == 3, f"non_finite_values {info['non_finite_values']}")
    for operation in (["spmv"], ["spmm", "-n", "3"]):
        out = json.loads(cli.run(*operation, path, "--device", "cpu", "--json", "--runs", "1").stdout)
        check(out["check_passed"], f"{operation}: {out}")


def test_cpu_run_refuses_method_and_param_and_prints_json(cli):
    result = cli.run("spmv", STENCIL_10x10, "--device", "cpu", "--method", "dasp", expect_rc=1)
    check("--method" in result.stderr and "--device cpu" in result.stderr, result.stderr)
    result = cli.run("spmv", STENCIL_10x10, "--device", "cpu", "--param", "a=1", expect_rc=1)
    check("--param" in result.stderr, result.stderr)
    record = cli.json("spmm", STENCIL_10x10, "-n", "2", "--device", "cpu", "--json", "--runs", "2")
    check(record["method"] == "cpu_reference" and record["n"] == 2 and record["runs"] == 2
          and record["check_passed"], str(record))


USAGE_ERROR = 105  # CLI11's exit code for a value its validator refuses


def test_numeric_options_are_range_checked(cli):
    spmv = ["spmv", STENCIL_10x10, "--device", "cpu"]
    cases = [(spmv + ["--runs", "0"], "--runs"), (spmv + ["--runs", "-5"], "--runs"),
             (spmv + ["--alpha", "nan"], "--alpha"), (spmv + ["--beta", "inf"], "--beta"),
             (["spmm", STENCIL_10x10, "--device", "cpu", "-n", "0"], "-n"),
             (["spmm", STENCIL_10x10, "--device", "cpu", "-n", "-3"], "-n"),
             (spmv + ["--param", "foo"], "--param"),
             (["bench", "--list", "--runs", "-1"], "--runs"),
             (["bench", "--list", "--warmup-ms", "-5"], "--warmup-ms"),
             (["bench", "--list", "--warmup-ms", "nan"], "--warmup-ms"),
             (["bench", "--list", "--spmm-n", "-1"], "--spmm-n"),
             (["bench", "--list", "--max-nnz", "-1"], "--max-nnz"),
             (["bench", "--list", "--param", "foo"], "--param")]
    for args, option in cases:
        result = cli.run(*args, expect_rc=USAGE_ERROR)
        check(result.stderr.startswith(option + ":"), f"{' '.join(args)}:\n{result.stderr}")


def test_convert_checks_the_output_first_and_notes_dropped_values(cli):
    src = write(cli, "m.mtx", GENERAL_3x3)
    result = cli.run("convert", src, cli.path("out.txt"), expect_rc=1)
    check("out.txt" in result.stderr and "unknown file type" in result.stderr, result.stderr)
    check("read " not in result.stdout, "the input was parsed before the output was checked")
    result = cli.run("convert", src, cli.path("out.smtx"))
    check("values" in result.stderr and "not written" in result.stderr, result.stderr)


LLM_SHAPES = ["4096x4096", "11008x4096", "4096x11008", "14336x4096"]
LLM_SPARSITIES = ["0.50", "0.70", "0.80", "0.90", "0.95"]
LLM_WIDTHS = "8,16,32,64,128,256,1024,2048,4096"


def bench_list(cli, *args):
    """`tcsparse bench --list ARGS`: the listed rows (split at tabs) and the summary line."""
    result = cli.run("bench", "--list", *args)
    return [line.split("\t") for line in result.stdout.splitlines()], result.stderr


def test_spmm_suite_lists_dlmc_and_llm_weights_with_their_widths(cli):
    rows, summary = bench_list(cli, "--suite", "spmm", "--matrix-dir", cli.matrix_dir or cli.workdir)
    llm = [row for row in rows if row[0].startswith("llm:")]
    expected = {f"llm:{shape}:s{s}:{profile}" for shape in LLM_SHAPES for s in LLM_SPARSITIES
                for profile in ["uniform", "skewed"]}
    check({row[0] for row in llm} == expected and len(llm) == 40, f"LLM weights: {llm}")
    for row in llm:
        check(row[1].startswith("gen:llm:") and row[2:] == [f"spmm_n={LLM_WIDTHS}", "spmm_only"],
              f"{row}")
    dlmc = [row for row in rows if not row[0].startswith("llm:")]
    for row in dlmc:
        check(row[0].startswith("dlmc:") and row[1].endswith((".smtx", ".smtx.gz"))
              and row[2:] == ["spmm_n=256,2048", "spmm_only"], f"{row}")
    if cli.matrix_dir and os.path.isdir(os.path.join(cli.matrix_dir, "dlmc")):
        check(len(dlmc) > 0, "no DLMC matrix listed from the matrix directory")
    pairs = 2 * len(dlmc) + 9 * 40
    check(f"{len(rows)} matrices; {pairs} SpMM (matrix x n);" in summary, summary)
    check("precisions: fp16;" in summary or summary.rstrip().endswith("precisions: fp16")
          or "precisions: fp16" in summary, summary)
    check("spmm layout: row_major, output: input" in summary, summary)
    # fp16 SpMM only, every method that has it but auto: cublas_dense and cusparse among them
    methods = summary.split("methods:")[1].split(";")[0].split()
    check("cublas_dense" in methods and "cusparse" in methods and "tca" in methods
          and "auto" not in methods, summary)
    capable = [m for m in cli.json("methods", "--json")
               if m["name"] in methods and "fp16" in (m["spmm"] or [])]
    cases = int(summary.split(" cases;")[0].split()[-1])
    check(cases == pairs * len(capable), f"{cases} cases for {pairs} pairs x {len(capable)} "
          f"fp16 SpMM methods: {summary}")


def test_spmm_suite_generates_its_llm_weights_from_their_names(cli):
    info = cli.json("info", "llm:4096x11008:s0.90:skewed", "--json")
    check((info["rows"], info["cols"]) == (4096, 11008), f"{info['rows']} x {info['cols']}")
    check(abs(info["nnz"] / (4096 * 11008) - 0.10) < 0.01, f"density {info['nnz']}")
    rows, _ = bench_list(cli, "--suite", "spmm", "--matrix-dir", cli.workdir)
    spec = dict((row[0], row[1]) for row in rows)["llm:4096x11008:s0.90:skewed"]
    check(cli.json("info", spec, "--json")["nnz"] == info["nnz"],
          "the suite's spec and the name give different matrices")
    result = cli.run("info", "llm:4096x4096:s1.5:uniform", expect_rc=1)
    check("llm:<rows>x<cols>:s<sparsity>:<uniform|skewed>" in result.stderr, result.stderr)


def test_bench_spmm_widths_layout_and_output_are_options(cli):
    rows, summary = bench_list(cli, STENCIL_10x10, "llm:64x64:s0.50:uniform",
                               "--spmm-n", "7,65", "--layout", "column", "--spmm-output", "fp32",
                               "--precisions", "fp16")
    check([row[2:] for row in rows] == [["spmm_n=7,65"], ["spmm_n=7,65"]], f"{rows}")
    check("2 matrices; 4 SpMM (matrix x n);" in summary
          and "spmm layout: column_major, output: fp32" in summary, summary)
    # --spmm-n replaces the suite's widths; the suite's matrices still run SpMM only
    rows, summary = bench_list(cli, "--suite", "spmm", "--matrix-dir", cli.workdir,
                               "--spmm-n", "16", "--precisions", "fp16,bf16")
    check(all(row[2:] == ["spmm_n=16", "spmm_only"] for row in rows), f"{rows[:3]}")
    check("precisions: fp16 bf16" in summary, summary)
    # explicit methods: no baseline is added
    _, summary = bench_list(cli, "--suite", "spmm", "--matrix-dir", cli.workdir,
                            "--methods", "tca")
    check("methods: tca;" in summary and "40 matrices; 360 SpMM (matrix x n); 360 cases" in summary,
          summary)
    # the default suite keeps every precision and SpMV
    rows, summary = bench_list(cli, "--suite", "small")
    check("precisions: fp64 fp32 fp16 bf16" in summary and "spmm layout" not in summary, summary)
    check(all(len(row) == 2 for row in rows), f"{rows}")
    for bad, option in [(["--layout", "diagonal"], "--layout"),
                        (["--spmm-output", "fp64"], "--spmm-output"),
                        (["--spmm-n", "16,0"], "--spmm-n")]:
        result = cli.run("bench", "--list", *bad, expect_rc=USAGE_ERROR)
        check(result.stderr.startswith(option + ":"), f"{bad}: {result.stderr}")


CASES = {name[len("test_"):]: f for name, f in globals().items() if name.startswith("test_")}


def main():
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("binary")
    parser.add_argument("case", choices=sorted(CASES))
    parser.add_argument("--matrix-dir", default="")
    args = parser.parse_args()
    matrix_dir = os.environ.get("TCSPARSE_MATRIX_DIR") or args.matrix_dir
    with tempfile.TemporaryDirectory(prefix="tcsparse-cli-") as workdir:
        try:
            CASES[args.case](Cli(os.path.abspath(args.binary), workdir, matrix_dir))
        except Skip as reason:
            print(f"SKIPPED: {reason}")
            return SKIP
        except AssertionError as failure:
            print(f"FAILED: {failure}")
            return 1
    print("passed")
    return 0


if __name__ == "__main__":
    sys.exit(main())
