// The benchmark harness: one runner for every method, so that every number in a result file was
// measured the same way (DESIGN.md, "Numbers everyone uses").
//
// For one matrix x method x precision x operation it
//   1. builds the plan (PlanStats: host preprocessing, upload and device preprocessing apart),
//   2. draws random inputs (never all zeros or ones), poisons the output with NaN, applies once
//      and compares with the CPU reference (relative error, per-precision threshold),
//   3. warms up, then times many runs with CUDA events (median, min, max per apply),
//   4. returns a BenchRecord, written as one JSON line.
//
//   tcsparse::bench::RunEnvironment env = tcsparse::bench::RunEnvironment::detect();
//   tcsparse::bench::MatrixBenchmark benchmark(input, env, options);
//   if (auto record = benchmark.run({Method("dasp"), Precision::fp64, Operation::spmv}))
//     out << record->to_json().dump() << '\n';
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "tcsparse/csr.hpp"
#include "tcsparse/plan.hpp"
#include "tcsparse/types.hpp"

namespace tcsparse::bench {

/// A matrix to benchmark: always held in fp64 and converted to each precision as needed.
struct MatrixInput {
  std::string name;    ///< short label, e.g. "cage11" or "stencil3d_100"
  std::string source;  ///< file path or generator spec ("gen:stencil3d:nx=100,...")
  CsrMatrix<double, std::int32_t> matrix;
};

/// Whether RunEnvironment::detect measures the device-to-device copy bandwidth (about a second,
/// 1 GiB copied): a benchmark run needs it for bandwidth_share, a single product need not.
enum class CopyBandwidth { measure, skip };

/// What is the same for every record of a run: the machine, the software, the ceiling.
struct RunEnvironment {
  int device = 0;
  std::string gpu;          ///< e.g. "NVIDIA H200"
  std::string driver;       ///< driver version as the runtime reports it
  std::string cuda;         ///< CUDA runtime version
  std::string commit;       ///< git describe of the source tree (env TCSPARSE_COMMIT overrides)
  std::size_t l2_cache_bytes = 0;
  double copy_gbps = 0.0;   ///< device-to-device copy bandwidth, measured once per run; 0: not
  /// Dense fp16/bf16 tensor-core peak of the GPU (bench/tensor_core_peak.cpp); nullopt: not in
  /// the table, and records carry no tensor_core_share.
  std::optional<double> tensor_core_peak_tflops;

  /// Queries the device and (by default) measures the copy bandwidth. Throws NoDeviceError
  /// without a GPU.
  static RunEnvironment detect(int device = 0, CopyBandwidth copy = CopyBandwidth::measure);
};

/// The commit the records name: env TCSPARSE_COMMIT if set, else the configure-time
/// `git describe`, else "unknown".
std::string source_commit();

/// "spmv" or "spmm".
std::string_view operation_name(Operation operation);

/// One case of the cross product.
struct CaseRequest {
  Method method = Method("cusparse");
  Precision precision = Precision::fp64;
  Operation operation = Operation::spmv;
  std::int64_t n = 1;  ///< columns of the dense operand (SpMM); 1 for SpMV
  /// The method's parameters for this case ("key=value", added to HarnessOptions::plan's), and
  /// for an experiment's variant of the method its label (recorded). Empty label: no variant.
  std::string variant;
  std::vector<std::string> parameters;
};

struct HarnessOptions {
  /// Used for the correctness check and for the timed applies. Benchmarks keep beta = 0.
  double alpha = 1.0;
  double beta = 0.0;
  /// Warm-up: at least 10 applies and at least this long.
  double warmup_ms = 10.0;
  /// Timed runs wanted; fewer when they would take longer than max_timing_ms (never < min_runs).
  int runs = 100;
  int min_runs = 10;
  double max_timing_ms = 2000.0;
  /// Seed of the random input vectors / matrices (the same for every method of a precision).
  std::uint64_t input_seed = 20240611;
  /// SpMM cases whose dense operands hold more elements than this are recorded as errors
  /// instead of exhausting host memory for the reference.
  std::int64_t max_dense_elements = std::int64_t{1} << 30;
  /// Build every plan from a CSR already on the GPU (a DeviceCsrView of arrays uploaded before the
  /// build, outside its time) instead of the host CsrMatrix: plan_build_ms is then the build from
  /// device CSR (`tcsparse bench --from-device`).
  bool plan_from_device = false;
  /// Plans built per case: plan_build_ms is the median of their build times (a one-off stall of
  /// the host moves one build several-fold), details.plan_builds_ms lists them; the last plan is
  /// the one checked and timed. At least 1.
  int plan_builds = 3;
  PlanOptions plan;
  /// How SpMM cases store B and C and the type of C (`tcsparse bench --layout --spmm-output`).
  SpmmLayout spmm_layout;
};

/// One JSON line of a result file. Fields as in bench/README.md.
struct BenchRecord {
  // where and what
  std::string gpu, driver, cuda, commit, timestamp;
  std::string matrix, matrix_source;
  std::int64_t rows = 0, cols = 0, nnz = 0;
  std::string method, precision, operation;
  std::string variant;                  ///< CaseRequest::variant ("" = none, not written)
  std::vector<std::string> parameters;  ///< CaseRequest::parameters (written when not empty)
  std::int64_t n = 1;
  /// SpMM only (written for spmm records): "row_major" / "column_major" B and C, and C's type
  /// ("input" or "fp32") as the plan holds them (fp32 output of fp32 inputs is "input").
  std::string layout, output;
  double alpha = 1.0, beta = 0.0;
  // timing (per apply)
  double median_ms = 0.0, min_ms = 0.0, max_ms = 0.0;
  int runs = 0;
  int applies_per_run = 1;  ///< > 1 when each timed run is a batch of applies (tiny matrices)
  /// Per apply: the host's time to enqueue the timed runs (held behind a StreamGate, so it is not
  /// in median_ms; above median_ms, a plain loop of applies would be bound by the host).
  double host_enqueue_ms = 0.0;
  double gflops = 0.0, gbps = 0.0, copy_gbps = 0.0, bandwidth_share = 0.0;
  /// SpMM: useful TFLOP/s, 2 nnz n / median (written for spmm records).
  double tflops = 0.0;
  /// SpMM in fp16 / bf16 on a GPU of the peak table: tflops / its dense tensor-core peak.
  std::optional<double> tensor_core_share;
  std::int64_t min_bytes = 0;
  bool fits_l2 = false;  ///< matrix + x + y fit in L2: repeated runs hit the cache
  /// fp16/bf16 runs multiply the matrix by this (1 / max |a_ij|) before converting it, so that
  /// real matrices with entries beyond fp16's range (65504) stay finite; 1 otherwise.
  double value_scale = 1.0;
  // correctness
  double rel_error = 0.0, error_threshold = 0.0;
  bool check_passed = false;
  // plan
  double plan_build_ms = 0.0;  ///< wall-clock time of the plan constructor
  std::string plan_from = "host";  ///< "host": from the CsrMatrix; "device": from a DeviceCsrView
  double host_preprocess_ms = 0.0, upload_ms = 0.0, device_preprocess_ms = 0.0;
  std::string host_upload = "automatic";  ///< PlanOptions::host_upload (written when not automatic)
  std::int64_t device_bytes = 0;
  double padding_ratio = 0.0;
  Json details = Json::object();  ///< PlanStats::details
  /// Set when the case failed (anything but UnsupportedError); the other results are then 0.
  std::optional<std::string> error;

  nlohmann::ordered_json to_json() const;
  /// The method as tables name it: "dasp", or "dasp[VARIANT]" for a variant.
  std::string method_label() const;
};

/// The relative-error threshold of a precision (DESIGN.md): fp64 1e-12, fp32 1e-5, fp16/bf16
/// (fp32 accumulation) 1e-2.
double error_threshold(Precision precision);

/// The least bytes a product must move: values + column indices + row pointers + x + y
/// (SpMM: + B + C instead of x + y), sizeof(Value) per value and 4 bytes per index; y (or C) is
/// counted twice when beta != 0 (read and written). SpMM with SpmmOutput::fp32 counts 4 bytes
/// per element of C.
std::int64_t minimum_bytes(std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                           Precision precision, Operation operation, std::int64_t n, bool reads_y,
                           SpmmOutput output = SpmmOutput::input_type);

/// Runs the cases of one matrix. Converted matrices, inputs and reference outputs are kept for
/// the precision last used, so run the cases precision by precision.
class MatrixBenchmark {
 public:
  MatrixBenchmark(const MatrixInput& input, const RunEnvironment& environment,
                  const HarnessOptions& options);
  ~MatrixBenchmark();
  MatrixBenchmark(const MatrixBenchmark&) = delete;
  MatrixBenchmark& operator=(const MatrixBenchmark&) = delete;

  /// The record of one case, or nullopt when the method does not support it (per the method
  /// table or by throwing UnsupportedError). Any other failure gives a record with `error` set.
  std::optional<BenchRecord> run(const CaseRequest& request);
  /// Why the last run() returned nullopt (the method table's answer or UnsupportedError::what).
  const std::string& last_skip_reason() const;

 private:
  struct State;
  std::unique_ptr<State> state_;
};

}  // namespace tcsparse::bench
