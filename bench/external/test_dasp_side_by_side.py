#!/usr/bin/env python3
"""Tests of dasp_side_by_side.py on outputs shaped like the authors' programs' (made up here,
numbers included): records from their record line and stdout, failures, and the table.
Run by CTest (scripts.external_dasp_side_by_side); exit code 0 when every test passes."""

import json
import os
import sys
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import dasp_side_by_side as sbs  # noqa: E402

# One record line per precision: 18 shape/category fields, then DASP's and cuSPARSE's parts.
HEAD = "/tmp/m/cage11_x35.mtx,1367870,1367870,19590270,0,0,35,0,0,0,1367835,105,128,0,0,19000000,19100000,590165,"
FP64_LINE = HEAD + "0.012000,256,300000000,0.070912,552.514000,1.0,2.0," + "250000000,0.101234,387.000000,3.0,4.0\n"
FP16_LINE = (HEAD + "0.012000,256,150000000,5321.500000,0.051000,768.000000,0.048500,807.000000,1.0,2.0,"
             + "120000000,12.300000,0.080000,489.000000,3.0,4.0\n")
FP64_STDOUT = ("\n===/tmp/m/cage11_x35.mtx===\n\nINIT DONE\n"
               "cusparse:  0.1012 ms, 387.0000 Gflop/s, 3.0 GB/s, 4.0 GB/s\n"
               "SpMV_X:    0.0709 ms, 552.5140 GFlop/s, 1.0 GB/s, 2.0 GB/s\n\n")
FP16_STDOUT = ("cusparse:  0.0800 ms, 489.0 Gflop/s, 3.0 GB/s, 4.0 GB/s\n"
               "SpMV_X:    0.0510 ms, 768.0 GFlop/s, 1.0 GB/s, 2.0 GB/s\n"
               "SpMV_X2:   0.0485 ms, 807.0 GFlop/s, 1.0 GB/s, 2.0 GB/s\n")


def records(precision, stdout, csv, exit_code=0):
    return sbs.make_records(precision, "cage11_x35", "/tmp/m/cage11_x35.mtx", stdout, csv,
                            exit_code, {"gpu": "NVIDIA H200"})


class Records(unittest.TestCase):
    def test_fp64_gives_their_dasp_and_their_cusparse_from_the_record_line(self):
        dasp, cusparse = records("fp64", FP64_STDOUT, FP64_LINE)
        self.assertEqual(dasp["method"], "dasp_authors")
        self.assertNotIn("variant", dasp)
        self.assertEqual((dasp["rows"], dasp["cols"], dasp["nnz"]), (1367870, 1367870, 19590270))
        self.assertAlmostEqual(dasp["mean_ms"], 0.070912)
        self.assertNotIn("median_ms", dasp)  # theirs is a mean, named so
        self.assertAlmostEqual(dasp["gflops"], 2 * 19590270 / 0.070912e6)
        self.assertEqual(dasp["time_source"], "csv")
        self.assertEqual(dasp["details"]["row_block_rows"], 1367835)
        self.assertEqual(dasp["details"]["block_longest"], 256)
        self.assertEqual(dasp["gpu"], "NVIDIA H200")
        self.assertEqual(cusparse["method"], "cusparse_authors_harness")
        self.assertAlmostEqual(cusparse["mean_ms"], 0.101234)

    def test_fp16_gives_both_kernels_as_variants_and_the_preprocessing_time(self):
        plain, cs, cusparse = records("fp16", FP16_STDOUT, FP16_LINE)
        self.assertEqual((plain["variant"], cs["variant"]), ("plain_loads", "cs_loads"))
        self.assertAlmostEqual(plain["mean_ms"], 0.051)
        self.assertAlmostEqual(cs["mean_ms"], 0.0485)
        self.assertAlmostEqual(plain["host_preprocess_ms"], 5321.5)
        self.assertAlmostEqual(cusparse["mean_ms"], 0.08)

    def test_without_the_record_line_the_printed_times_are_used(self):
        dasp, cusparse = records("fp64", FP64_STDOUT, "")
        self.assertAlmostEqual(dasp["mean_ms"], 0.0709)
        self.assertEqual(dasp["time_source"], "stdout")
        self.assertNotIn("nnz", dasp)
        self.assertAlmostEqual(cusparse["mean_ms"], 0.1012)

    def test_a_record_line_of_another_shape_falls_back_to_stdout(self):
        dasp, _ = records("fp64", FP64_STDOUT, "a,b,c\n")
        self.assertEqual(dasp["time_source"], "stdout")

    def test_a_crash_is_one_error_record(self):
        [failed] = records("fp64", "INIT DONE\n", "", exit_code=139)
        self.assertEqual(failed["error"], "exit code 139")
        self.assertNotIn("mean_ms", failed)

    def test_cusparse_error_messages_make_the_run_a_failure(self):
        stdout = " ** On entry to cusparseCreate(): CUDA context cannot be initialized\n" + FP64_STDOUT
        [failed] = records("fp64", stdout, FP64_LINE)
        self.assertIn("1 CUDA/cuSPARSE error", failed["error"])
        self.assertIn("cannot be initialized", failed["output_tail"])

    def test_no_timing_at_all_is_an_error(self):
        [failed] = records("fp16", "INIT DONE\n", "")
        self.assertIn("no timing", failed["error"])


def ours(precision, method, ms, check_passed=True):
    return {"matrix": "cage11_x35", "nnz": 19590270, "precision": precision, "method": method,
            "operation": "spmv", "median_ms": ms, "check_passed": check_passed}


class Table(unittest.TestCase):
    def test_ratios_and_the_harness_normalised_ratio(self):
        authors = records("fp64", FP64_STDOUT, FP64_LINE)
        table = sbs.side_by_side(authors, [ours("fp64", "dasp", 0.0853),
                                           ours("fp64", "cusparse", 0.1100)])
        row = next(l for l in table.splitlines() if l.startswith("| cage11_x35"))
        cells = [c.strip() for c in row.strip("|").split("|")]
        self.assertEqual(cells[:4], ["cage11_x35", "19590270", "0.0853", "0.1100"])
        self.assertEqual(cells[4:7], ["0.0709", f"{0.070912 / 0.0853:.2f}x",
                                      f"{(0.070912 / 0.101234) / (0.0853 / 0.11):.2f}x"])
        self.assertEqual(cells[7:], ["0.1012", f"{0.101234 / 0.11:.2f}x"])

    def test_fp16_has_a_column_group_per_kernel_and_marks_failed_checks(self):
        authors = records("fp16", FP16_STDOUT, FP16_LINE)
        table = sbs.side_by_side(authors, [ours("fp16", "dasp", 0.05, check_passed=False),
                                           ours("fp16", "cusparse", 0.09)])
        self.assertIn("dasp_authors[cs_loads] ms", table)
        self.assertIn("dasp_authors[plain_loads] ms", table)
        self.assertIn("0.0500 !", table)

    def test_failed_runs_are_listed_and_missing_sides_are_dashes(self):
        failed = records("fp64", "", "", exit_code=124)
        table = sbs.side_by_side(failed, [ours("fp64", "dasp", 0.0853)])
        self.assertIn("cage11_x35 fp64: exit code 124", table)
        self.assertIn("| cage11_x35 | 19590270 | 0.0853 | - |", table)

    def test_records_round_trip_through_json(self):
        for record in records("fp16", FP16_STDOUT, FP16_LINE):
            self.assertEqual(json.loads(json.dumps(record)), record)


if __name__ == "__main__":
    unittest.main(verbosity=1)
