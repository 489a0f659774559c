// `tcsparse spmv FILE ...` and `tcsparse spmm FILE -n N ...`: one product, checked against the
// CPU reference and timed. On the GPU through the benchmark harness; with --device cpu, the CPU
// reference itself (timed with a host clock, checked against a plain serial loop; no GPU needed).
#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include <fmt/core.h>
#include <nlohmann/json.hpp>

#include "commands.hpp"
#include "common/stopwatch.hpp"
#include "harness.hpp"
#include "matrix_source.hpp"
#include "tcsparse/device.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/memory.hpp"
#include "tcsparse/reference.hpp"

namespace tcsparse::cli {
namespace {

struct RunOptions {
  Operation operation = Operation::spmv;
  std::string file;
  std::string method = "auto";
  std::string precision = "fp64";
  std::int64_t n = 1;
  double alpha = 1.0;
  double beta = 0.0;
  int runs = 100;
  std::string device = "gpu";
  std::vector<std::string> parameters;
  std::string host_upload = "automatic";  ///< PlanOptions::host_upload
  bool auto_measure = true;               ///< PlanOptions::auto_measure
  bool json = false;
  bool copy_bandwidth = false;  ///< measure the copy bandwidth (about a second) for the share
  const CLI::Option* method_option = nullptr;  ///< to tell --method given from its default
};

std::string human_bytes(double bytes) {
  constexpr const char* kUnits[] = {"B", "KB", "MB", "GB", "TB"};
  int unit = 0;
  while (bytes >= 1000.0 && unit < 4) {
    bytes /= 1000.0;
    ++unit;
  }
  return fmt::format("{:.1f} {}", bytes, kUnits[unit]);
}

// ---- on the GPU ----

void print_gpu_record(const bench::BenchRecord& r) {
  fmt::print("matrix     {}  {} x {}, {} nonzeros\n", r.matrix, r.rows, r.cols, r.nnz);
  fmt::print("case       {} {} {}{}  on {}\n", r.operation, r.method, r.precision,
             r.operation == "spmm" ? fmt::format(" n={}", r.n) : std::string(), r.gpu);
  if (r.details.contains("auto")) {
    const Json& choice = r.details["auto"];
    fmt::print("auto       chose {} ({}; {})\n", choice["chosen"].get<std::string>(),
               choice["leaf"].get<std::string>(), choice.value("choice", "rule"));
    for (const Json& trial : choice.value("measured", Json::array()))
      if (trial.contains("apply_ms"))
        fmt::print("           {:<14} apply {:.4f} ms, built in {:.2f} ms\n",
                   trial["method"].get<std::string>(), trial["apply_ms"].get<double>(),
                   trial["build_ms"].get<double>());
      else
        fmt::print("           {:<14} skipped: {}\n", trial["method"].get<std::string>(),
                   trial["skipped"].get<std::string>());
  }
  fmt::print("plan       host {:.3f} ms, upload {:.3f} ms, device {:.3f} ms; {} on the GPU, "
             "padding {:.1f} %\n",
             r.host_preprocess_ms, r.upload_ms, r.device_preprocess_ms,
             human_bytes(static_cast<double>(r.device_bytes)), 100.0 * r.padding_ratio);
  fmt::print("time       median {:.4f} ms (min {:.4f}, max {:.4f}; {} runs x {} applies){}\n",
             r.median_ms, r.min_ms, r.max_ms, r.runs, r.applies_per_run,
             r.fits_l2 ? "  [fits in L2]" : "");
  if (r.copy_gbps > 0)
    fmt::print("speed      {:.1f} GFLOP/s, {:.1f} GB/s = {:.1f} % of the {:.0f} GB/s copy "
               "bandwidth\n",
               r.gflops, r.gbps, 100.0 * r.bandwidth_share, r.copy_gbps);
  else
    fmt::print("speed      {:.1f} GFLOP/s, {:.1f} GB/s (--copy-bandwidth: as a share of the "
               "measured copy bandwidth)\n",
               r.gflops, r.gbps);
  fmt::print("check      relative error {:.3g} (threshold {:.0e}): {}\n", r.rel_error,
             r.error_threshold, r.check_passed ? "passed" : "FAILED");
}

int run_on_gpu(const RunOptions& options) {
  const Method method = parse_method(options.method);
  const Precision precision = parse_precision(options.precision);
  // "auto" hands the parameters to the method it chooses, which checks them then
  if (!method.is_automatic()) check_parameters(method, options.parameters);
  require_cuda_device();  // before loading a large matrix for nothing
  const bench::MatrixInput input = load_matrix(options.file);
  const auto bandwidth = options.copy_bandwidth ? bench::CopyBandwidth::measure
                                                : bench::CopyBandwidth::skip;
  const bench::RunEnvironment environment = bench::RunEnvironment::detect(0, bandwidth);

  bench::HarnessOptions harness;
  harness.alpha = options.alpha;
  harness.beta = options.beta;
  harness.runs = harness.min_runs = std::max(1, options.runs);  // exactly what was asked
  harness.plan.parameters = options.parameters;
  harness.plan.host_upload = parse_host_upload(options.host_upload);
  harness.plan.auto_measure = options.auto_measure;
  bench::MatrixBenchmark benchmark(input, environment, harness);
  bench::CaseRequest request;
  request.method = method;
  request.precision = precision;
  request.operation = options.operation;
  request.n = options.n;
  const auto record = benchmark.run(request);
  if (!record) throw UnsupportedError(benchmark.last_skip_reason());
  if (record->error) throw Error(*record->error);

  if (options.json)
    fmt::print("{}\n", record->to_json().dump());
  else
    print_gpu_record(*record);
  if (!record->check_passed) {
    fmt::print(stderr, "tcsparse: CHECK FAILED: relative error {:.3g} >= {:.0e}\n",
               record->rel_error, record->error_threshold);
    return kExitCheckFailed;
  }
  return kExitOk;
}

// ---- on the CPU ----

/// C = alpha * A * B + beta * C0 with one plain loop per entry: what the OpenMP reference is
/// checked against. B is cols x n and C rows x n, row-major.
template <typename Value>
std::vector<double> serial_product(const CsrMatrix<Value, std::int32_t>& A,
                                   const std::vector<Value>& B, std::int64_t n,
                                   const std::vector<Value>& C0, double alpha, double beta) {
  std::vector<double> C(static_cast<std::size_t>(A.rows * n), 0.0);
  for (std::int64_t row = 0; row < A.rows; ++row)
    for (std::int64_t j = 0; j < n; ++j) {
      double sum = 0.0;
      for (std::int32_t k = A.row_ptr[row]; k < A.row_ptr[row + 1]; ++k)
        sum += to_double(A.values[k]) * to_double(B[A.col_idx[k] * n + j]);
      const auto out = static_cast<std::size_t>(row * n + j);
      C[out] = alpha * sum + (beta != 0.0 ? beta * to_double(C0[out]) : 0.0);
    }
  return C;
}

struct CpuResult {
  std::vector<double> times_ms;
  double rel_error = 0.0;
};

template <typename Value>
CpuResult run_reference(const CsrMatrix<double, std::int32_t>& matrix, const RunOptions& options) {
  const auto A = convert_values<Value>(matrix);
  const std::int64_t n = options.operation == Operation::spmv ? 1 : options.n;
  const auto output_size = static_cast<std::size_t>(A.rows * n);
  // The dense operands: input, initial output, output and the serial check (in double).
  const auto operand_bytes = static_cast<std::uint64_t>(A.cols * n) * sizeof(Value) +
                             static_cast<std::uint64_t>(output_size) * (sizeof(Value) + 2 * sizeof(double));
  require_host_memory(operand_bytes, (n > 1 ? "spmm -n " + std::to_string(n) : std::string("spmv")) +
                                         " on the " + std::to_string(A.rows) + " x " +
                                         std::to_string(A.cols) + " matrix");
  const bench::HarnessOptions defaults;
  const auto input = random_vector<Value>(static_cast<std::size_t>(A.cols * n), defaults.input_seed);
  const auto initial = options.beta != 0.0 ? random_vector<Value>(output_size, defaults.input_seed + 1)
                                           : std::vector<Value>(output_size);
  std::vector<double> output(output_size);
  CpuResult result;
  for (int run = 0; run < std::max(1, options.runs); ++run) {
    if (options.beta == 0.0)
      std::fill(output.begin(), output.end(), std::numeric_limits<double>::quiet_NaN());
    else
      std::transform(initial.begin(), initial.end(), output.begin(),
                     [](Value v) { return to_double(v); });
    const detail::Stopwatch stopwatch;
    if (options.operation == Operation::spmv)
      spmv_reference<Value, std::int32_t>(A, input, output, options.alpha, options.beta);
    else
      spmm_reference<Value, std::int32_t>(A, input, n, output, options.alpha, options.beta);
    result.times_ms.push_back(stopwatch.elapsed_ms());
  }
  const auto expected = serial_product(A, input, n, initial, options.alpha, options.beta);
  result.rel_error = relative_error<double>(output, expected);
  return result;
}

int run_on_cpu(const RunOptions& options) {
  const Precision precision = parse_precision(options.precision);
  const bench::MatrixInput input = load_matrix(options.file);
  CpuResult result = dispatch_precision(precision, [&](auto tag) {
    return run_reference<decltype(tag)>(input.matrix, options);
  });
  std::sort(result.times_ms.begin(), result.times_ms.end());
  const double median_ms = result.times_ms[result.times_ms.size() / 2];
  const std::int64_t n = options.operation == Operation::spmv ? 1 : options.n;
  const std::int64_t nnz = input.matrix.nnz();
  const auto bytes = bench::minimum_bytes(input.matrix.rows, input.matrix.cols, nnz, precision,
                                          options.operation, n, options.beta != 0.0);
  const double seconds = median_ms * 1e-3;
  const double threshold = bench::error_threshold(Precision::fp64);  // both sum in double
  const bool passed = result.rel_error < threshold;
  const double gflops = seconds > 0 ? 2.0 * static_cast<double>(nnz * n) / seconds / 1e9 : 0.0;
  const double gbps = seconds > 0 ? static_cast<double>(bytes) / seconds / 1e9 : 0.0;
  if (options.json) {
    const nlohmann::json record = {
        {"matrix", input.name},          {"rows", input.matrix.rows},
        {"cols", input.matrix.cols},     {"nnz", nnz},
        {"operation", bench::operation_name(options.operation)},
        {"method", "cpu_reference"},     {"precision", to_string(precision)},
        {"n", n},                        {"runs", result.times_ms.size()},
        {"median_ms", median_ms},        {"min_ms", result.times_ms.front()},
        {"max_ms", result.times_ms.back()}, {"gflops", gflops},
        {"gbps", gbps},                  {"rel_error", result.rel_error},
        {"error_threshold", threshold},  {"check_passed", passed}};
    fmt::print("{}\n", record.dump());
    return passed ? kExitOk : kExitCheckFailed;
  }
  fmt::print("matrix     {}  {} x {}, {} nonzeros\n", input.name, input.matrix.rows,
             input.matrix.cols, nnz);
  fmt::print("case       {} cpu-reference {}{}\n", bench::operation_name(options.operation),
             to_string(precision), n > 1 ? fmt::format(" n={}", n) : std::string());
  fmt::print("time       median {:.4f} ms (min {:.4f}, max {:.4f}; {} runs, host clock)\n",
             median_ms, result.times_ms.front(), result.times_ms.back(), result.times_ms.size());
  fmt::print("speed      {:.2f} GFLOP/s, {:.2f} GB/s\n", gflops, gbps);
  fmt::print("check      relative error vs a serial loop {:.3g} (threshold {:.0e}): {}\n",
             result.rel_error, threshold, passed ? "passed" : "FAILED");
  return passed ? kExitOk : kExitCheckFailed;
}

int run_product(const RunOptions& options) {
  if (options.operation == Operation::spmm && options.n < 1)
    throw Error("-n must be at least 1 (got " + std::to_string(options.n) + ")");
  if (options.device == "cpu") {
    // The CPU reference is one method with no parameters: a --method or --param would be
    // silently ignored, so it is refused.
    if (options.method_option != nullptr && options.method_option->count() > 0)
      throw Error("--method " + options.method +
                  " cannot be used with --device cpu: the CPU run is the reference itself (drop "
                  "--method, or run on the GPU)");
    if (!options.parameters.empty())
      throw Error("--param cannot be used with --device cpu: the CPU reference has no "
                  "parameters");
    return run_on_cpu(options);
  }
  return run_on_gpu(options);
}

/// Bounds of the numeric options (a mistyped huge value is refused, not attempted).
constexpr int kMaxRuns = 1'000'000;
constexpr std::int64_t kMaxColumns = std::int64_t{1} << 31;

Command add_product_command(CLI::App& app, Operation operation) {
  auto options = std::make_shared<RunOptions>();
  options->operation = operation;
  const bool spmm = operation == Operation::spmm;
  CLI::App* sub = app.add_subcommand(
      spmm ? "spmm" : "spmv",
      spmm ? "Run C = alpha*A*B + beta*C once: check against the reference, time it"
           : "Run y = alpha*A*x + beta*y once: check against the reference, time it");
  sub->add_option("FILE", options->file, "Matrix file or generator spec (gen:KIND:key=value,...)")
      ->required();
  options->method_option =
      sub->add_option("-m,--method", options->method, "Method (see `tcsparse methods`; auto: chosen for the matrix; GPU only)")
          ->capture_default_str();
  sub->add_option("-p,--precision", options->precision, "fp64, fp32, fp16 or bf16")
      ->capture_default_str();
  if (spmm)
    sub->add_option("-n", options->n, "Columns of B and C")
        ->required()
        ->check(CLI::Range(std::int64_t{1}, kMaxColumns));
  sub->add_option("--alpha", options->alpha, "alpha (finite)")
      ->check(finite_number())
      ->capture_default_str();
  sub->add_option("--beta", options->beta, "beta (finite; 0: the old output is ignored)")
      ->check(finite_number())
      ->capture_default_str();
  sub->add_option("--runs", options->runs, "Timed runs")
      ->check(CLI::Range(1, kMaxRuns))
      ->capture_default_str();
  sub->add_option("--device", options->device, "gpu, or cpu for the CPU reference alone")
      ->check(CLI::IsMember({"gpu", "cpu"}))
      ->capture_default_str();
  sub->add_option("--param", options->parameters,
                  "Method parameter key=value (repeatable), e.g. max_medium_row_length=256 (GPU "
                  "only)")
      ->check(key_value())
      ->allow_extra_args(false);
  sub->add_option("--host-upload", options->host_upload,
                  "How the plan copies the matrix to the GPU: automatic, staged, register, direct")
      ->check(CLI::IsMember({"automatic", "staged", "register", "direct"}))
      ->capture_default_str();
  sub->add_option("--auto-measure", options->auto_measure,
                  "Under --method auto: time the rule's best-ranked methods and cuSPARSE on the "
                  "matrix and keep the fastest (true), or build the rule's first choice (false)")
      ->capture_default_str();
  sub->add_flag("--json", options->json, "Print the result as one JSON object");
  sub->add_flag("--copy-bandwidth", options->copy_bandwidth,
                "Also measure the GPU's copy bandwidth (about a second) and report the share");
  return {sub, [options] { return run_product(*options); }};
}

}  // namespace

Command add_spmv_command(CLI::App& app) { return add_product_command(app, Operation::spmv); }
Command add_spmm_command(CLI::App& app) { return add_product_command(app, Operation::spmm); }

}  // namespace tcsparse::cli
