#include "harness.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstring>
#include <cstdlib>
#include <ctime>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <span>
#include <type_traits>
#include <utility>
#include <variant>
#include <vector>

#include "common/stopwatch.hpp"
#include "hbp/hbp.hpp"
#include "hbp/hbp_parameters.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/host_upload.hpp"
#include "runtime/stream_gate.hpp"
#include "tcsparse/device.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/generate.hpp"
#include "tcsparse/reference.hpp"
#include "tensor_core_peak.hpp"

#ifndef TCSPARSE_GIT_DESCRIBE
#define TCSPARSE_GIT_DESCRIBE "unknown"
#endif

namespace tcsparse::bench {
namespace {

using detail::CudaEvent;
using detail::CudaStream;
using detail::DeviceBuffer;
using detail::StreamGate;

// ---- timing constants (DESIGN.md, "Timing") ----
/// Warm-up: at least this many applies (and at least HarnessOptions::warmup_ms), so that clocks
/// and caches settle and lazy initialisation is out of the way.
constexpr int kMinWarmupApplies = 10;
/// A timed run lasts at least this long: cudaEventElapsedTime resolves about 0.5 us, so a run
/// of 0.05 ms is measured to 1 %. Tiny matrices batch several applies into one run.
constexpr double kMinTimedRunMs = 0.05;
/// Upper bound of a warm-up batch (a guard against a zero time estimate).
constexpr int kMaxBatchApplies = 100000;
/// 0xFF in every byte is a NaN in fp64, fp32, fp16 and bf16: the poison of outputs.
constexpr int kNanByte = 0xFF;
/// Bytes per stored index (32-bit column indices and row pointers).
constexpr std::int64_t kIndexBytes = 4;

std::string utc_timestamp() {
  const std::time_t now = std::chrono::system_clock::to_time_t(std::chrono::system_clock::now());
  std::tm utc{};
  gmtime_r(&now, &utc);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &utc);
  return text;
}

std::size_t value_bytes(Precision precision) {
  return dispatch_precision(precision, [](auto tag) { return sizeof(tag); });
}

void device_synchronize() { TCSPARSE_CUDA_CHECK(cudaDeviceSynchronize()); }

// ---- timing ----

struct Timing {
  double median_ms = 0.0, min_ms = 0.0, max_ms = 0.0;  ///< per apply
  int runs = 0;
  int applies_per_run = 1;
  double host_enqueue_ms = 0.0;  ///< per apply: what the host took to enqueue the timed runs
};

/// The longest a StreamGate holds the timed runs (see time_applies).
constexpr double kGateTimeoutMs = 50.0;
/// Applies enqueued behind one gate: within the launch queue for one-launch applies (on an H100,
/// one gate in front of 1000 applies filled the queue and was opened by its timeout).
constexpr int kAppliesPerGate = 128;

using ApplyOnce = std::function<void(cudaStream_t)>;

/// Milliseconds that `count` back-to-back applies take on `stream`.
double time_batch(const ApplyOnce& apply, cudaStream_t stream, int count) {
  CudaEvent start, stop;
  start.record(stream);
  for (int i = 0; i < count; ++i) apply(stream);
  stop.record(stream);
  stop.synchronize();
  return stop.elapsed_ms_since(start);
}

/// Warms up and returns the time of one apply, as the last warm-up batch measured it.
double warm_up(const ApplyOnce& apply, cudaStream_t stream, double min_warmup_ms) {
  int applied = 0;
  double elapsed_ms = 0.0;
  int batch = kMinWarmupApplies;
  for (;;) {
    const double batch_ms = time_batch(apply, stream, batch);
    applied += batch;
    elapsed_ms += batch_ms;
    const double per_apply_ms = std::max(batch_ms / batch, 1e-6);
    if (applied >= kMinWarmupApplies && elapsed_ms >= min_warmup_ms) return per_apply_ms;
    const double missing = std::ceil((min_warmup_ms - elapsed_ms) / per_apply_ms);
    batch = static_cast<int>(std::clamp(missing, 1.0, double{kMaxBatchApplies}));
  }
}

double median_of_sorted(const std::vector<double>& sorted) {
  const std::size_t middle = sorted.size() / 2;
  return sorted.size() % 2 ? sorted[middle] : 0.5 * (sorted[middle - 1] + sorted[middle]);
}

/// Warm-up, then `runs` timed runs, each between its own two CUDA events. The runs are enqueued
/// in batches of about kAppliesPerGate applies, each behind a closed StreamGate that is opened
/// once the batch is enqueued, so the GPU never waits for the host inside a run: a gate's wait
/// falls between two runs, outside both. The host's own enqueue time per apply is reported apart
/// (host_enqueue_ms).
Timing time_applies(const ApplyOnce& apply, cudaStream_t stream, const HarnessOptions& options) {
  const double per_apply_ms = warm_up(apply, stream, options.warmup_ms);
  Timing timing;
  timing.applies_per_run = static_cast<int>(
      std::clamp(std::ceil(kMinTimedRunMs / per_apply_ms), 1.0, double{kMaxBatchApplies}));
  const double run_ms = per_apply_ms * timing.applies_per_run;
  const int runs_in_budget = static_cast<int>(options.max_timing_ms / run_ms);
  timing.runs = std::max(1, std::min(options.runs, std::max(options.min_runs, runs_in_budget)));

  const auto runs = static_cast<std::size_t>(timing.runs);
  std::vector<CudaEvent> starts(runs), stops(runs);
  StreamGate gate;
  double enqueue_ms = 0.0;
  for (std::size_t run = 0; run < runs;) {
    gate.close(stream, kGateTimeoutMs);
    const detail::Stopwatch enqueue;
    int applies = 0;
    do {
      starts[run].record(stream);
      for (int i = 0; i < timing.applies_per_run; ++i) apply(stream);
      stops[run].record(stream);
      applies += timing.applies_per_run;
      ++run;
    } while (run < runs && applies + timing.applies_per_run <= kAppliesPerGate);
    enqueue_ms += enqueue.elapsed_ms();
    gate.open();
  }
  stops.back().synchronize();
  TCSPARSE_CUDA_CHECK(cudaGetLastError());
  timing.host_enqueue_ms =
      enqueue_ms / (static_cast<double>(timing.runs) * timing.applies_per_run);

  std::vector<double> per_apply(runs);
  for (std::size_t run = 0; run < runs; ++run)
    per_apply[run] =
        stops[run].elapsed_ms_since(starts[run]) / static_cast<double>(timing.applies_per_run);
  std::sort(per_apply.begin(), per_apply.end());
  timing.median_ms = median_of_sorted(per_apply);
  timing.min_ms = per_apply.front();
  timing.max_ms = per_apply.back();
  return timing;
}

// ---- inputs and reference results, per precision ----

/// The dense input (x, or B row-major), the output's initial contents (only when beta != 0)
/// and the reference result of one operation in one precision.
template <typename Value>
struct DenseOperands {
  bool ready = false;
  std::vector<Value> input;
  std::vector<Value> initial_output;
  std::vector<double> reference;
};

/// The matrix converted to one precision, and the operands of each (operation, n) run so far.
template <typename Value>
struct PrecisionProblem {
  CsrMatrix<Value, std::int32_t> converted;  ///< empty for double: the input matrix is used
  double value_scale = 1.0;                  ///< see BenchRecord::value_scale
  std::map<std::pair<Operation, std::int64_t>, DenseOperands<Value>> operands;
};

/// 1 / max |a_ij| (1 for an all-zero matrix): the scale that keeps 16-bit runs finite.
double unit_max_scale(const CsrMatrix<double, std::int32_t>& matrix) {
  double max_abs = 0.0;
  for (const double value : matrix.values) max_abs = std::max(max_abs, std::abs(value));
  return max_abs > 0.0 ? 1.0 / max_abs : 1.0;
}

CsrMatrix<double, std::int32_t> scaled(const CsrMatrix<double, std::int32_t>& matrix,
                                       double scale) {
  CsrMatrix<double, std::int32_t> result = matrix;
  for (double& value : result.values) value *= scale;
  return result;
}

using AnyProblem = std::variant<std::monostate, PrecisionProblem<double>, PrecisionProblem<float>,
                                PrecisionProblem<half>, PrecisionProblem<bfloat16>>;

}  // namespace

struct MatrixBenchmark::State {
  State(const MatrixInput& input_, const RunEnvironment& environment_,
        const HarnessOptions& options_)
      : input(input_), environment(environment_), options(options_) {}

  const MatrixInput& input;
  const RunEnvironment& environment;
  HarnessOptions options;
  AnyProblem problem;
  CudaStream stream;
  std::string last_skip_reason;

  template <typename Value>
  PrecisionProblem<Value>& problem_for() {
    if (!std::holds_alternative<PrecisionProblem<Value>>(problem)) {
      problem = std::monostate{};  // frees the previous precision first
      auto& fresh = problem.emplace<PrecisionProblem<Value>>();
      if constexpr (std::is_same_v<Value, half> || std::is_same_v<Value, bfloat16>) {
        fresh.value_scale = unit_max_scale(input.matrix);
        fresh.converted = convert_values<Value>(scaled(input.matrix, fresh.value_scale));
      } else if constexpr (!std::is_same_v<Value, double>) {
        fresh.converted = convert_values<Value>(input.matrix);
      }
    }
    return std::get<PrecisionProblem<Value>>(problem);
  }

  template <typename Value>
  const CsrMatrix<Value, std::int32_t>& matrix_for() {
    if constexpr (std::is_same_v<Value, double>)
      return input.matrix;
    else
      return problem_for<Value>().converted;
  }

  template <typename Value>
  const DenseOperands<Value>& operands_for(Operation operation, std::int64_t n);

  /// Builds the plan of one case, checks it and times it (fills `record`).
  template <typename Value>
  Timing measure(const CaseRequest& request, BenchRecord& record);
};

template <typename Value>
const DenseOperands<Value>& MatrixBenchmark::State::operands_for(Operation operation,
                                                                 std::int64_t n) {
  auto& slot = problem_for<Value>().operands[{operation, n}];
  if (slot.ready) return slot;

  const auto& A = matrix_for<Value>();
  const auto input_size = static_cast<std::size_t>(A.cols) * static_cast<std::size_t>(n);
  const auto output_size = static_cast<std::size_t>(A.rows) * static_cast<std::size_t>(n);
  slot.input = random_vector<Value>(input_size, options.input_seed);
  slot.reference.assign(output_size, 0.0);
  if (options.beta != 0.0) {
    slot.initial_output = random_vector<Value>(output_size, options.input_seed + 1);
    std::transform(slot.initial_output.begin(), slot.initial_output.end(),
                   slot.reference.begin(), [](Value v) { return to_double(v); });
  }
  if (operation == Operation::spmv)
    spmv_reference<Value, std::int32_t>(A, slot.input, slot.reference, options.alpha,
                                        options.beta);
  else
    spmm_reference<Value, std::int32_t>(A, slot.input, n, slot.reference, options.alpha,
                                        options.beta);
  slot.ready = true;
  return slot;
}

namespace {

/// A host CSR copied to the GPU, for plans built from device CSR.
template <typename Value>
struct DeviceCsrCopy {
  DeviceBuffer<std::int32_t> row_ptr, col_idx;
  DeviceBuffer<Value> values;
  std::int64_t rows, cols;

  explicit DeviceCsrCopy(const CsrMatrix<Value, std::int32_t>& matrix)
      : row_ptr(matrix.row_ptr), col_idx(matrix.col_idx), values(matrix.values),
        rows(matrix.rows), cols(matrix.cols) {}
  DeviceCsrView<Value> view() const {
    return {rows, cols, static_cast<std::int64_t>(col_idx.size()), row_ptr.data(), col_idx.data(),
            values.data()};
  }
};

void copy_plan_stats(const PlanStats& stats, double plan_build_ms, BenchRecord& record) {
  record.plan_build_ms = plan_build_ms;
  record.host_preprocess_ms = stats.host_preprocess_ms;
  record.upload_ms = stats.upload_ms;
  record.device_preprocess_ms = stats.device_preprocess_ms;
  record.device_bytes = static_cast<std::int64_t>(stats.device_bytes);
  record.padding_ratio = stats.padding_ratio;
  record.details = stats.details;
}

void add_throughput(const Timing& timing, const RunEnvironment& environment,
                    BenchRecord& record) {
  record.median_ms = timing.median_ms;
  record.min_ms = timing.min_ms;
  record.max_ms = timing.max_ms;
  record.runs = timing.runs;
  record.applies_per_run = timing.applies_per_run;
  record.host_enqueue_ms = timing.host_enqueue_ms;
  const double seconds = timing.median_ms * 1e-3;
  const double flops = 2.0 * static_cast<double>(record.nnz) * static_cast<double>(record.n);
  record.gflops = seconds > 0 ? flops / seconds / 1e9 : 0.0;
  record.gbps = seconds > 0 ? static_cast<double>(record.min_bytes) / seconds / 1e9 : 0.0;
  record.copy_gbps = environment.copy_gbps;
  record.bandwidth_share = environment.copy_gbps > 0 ? record.gbps / environment.copy_gbps : 0.0;
  record.fits_l2 = static_cast<std::size_t>(record.min_bytes) <= environment.l2_cache_bytes;
  if (record.operation == operation_name(Operation::spmm)) {
    record.tflops = record.gflops / 1e3;
    const bool sixteen_bit = record.precision == to_string(Precision::fp16) ||
                             record.precision == to_string(Precision::bf16);
    if (sixteen_bit && environment.tensor_core_peak_tflops && *environment.tensor_core_peak_tflops > 0)
      record.tensor_core_share = record.tflops / *environment.tensor_core_peak_tflops;
  }
}

void require_dense_size_within(std::int64_t elements, std::int64_t limit) {
  if (elements > limit)
    throw Error("dense operand of " + std::to_string(elements) +
                " elements exceeds the harness limit of " + std::to_string(limit) +
                " (HarnessOptions::max_dense_elements)");
}

/// Checks one apply of `plan` against the reference (into `record`), then times it.
template <typename Value, typename Plan>
Timing check_and_time(const Plan& plan, const DenseOperands<Value>& operands,
                      std::size_t output_size, const HarnessOptions& options,
                      cudaStream_t stream, BenchRecord& record) {
  const auto alpha = static_cast<scalar_t<Value>>(options.alpha);
  const auto beta = static_cast<scalar_t<Value>>(options.beta);
  DeviceBuffer<Value> input(operands.input);
  DeviceBuffer<Value> output(output_size);
  if (options.beta == 0.0)
    output.fill_bytes(kNanByte);  // beta == 0 must ignore it
  else
    output.upload(operands.initial_output);
  device_synchronize();  // the copies above ran on the legacy stream

  // A plan in its own row order (DASP "row_order=plan") is timed in that order, as a solver
  // iterating in it would run it: x (square matrices) and y permuted once, outside the timing,
  // and y brought back to the caller's order for the check.
  bool plan_order = false;
  if constexpr (std::is_same_v<Plan, SpmvPlan<Value>>) {
    plan_order = plan.plan_row_order();
    if (plan_order) {
      if (plan.rows() == plan.cols()) {
        const DeviceBuffer<Value> caller_order(operands.input);
        plan.permute(caller_order.data(), input.data(), stream);
      }
      if (options.beta != 0.0) {
        const DeviceBuffer<Value> caller_order(operands.initial_output);
        plan.permute(caller_order.data(), output.data(), stream);
      }
      TCSPARSE_CUDA_CHECK(cudaStreamSynchronize(stream));
    }
  }

  plan.apply(input.data(), output.data(), alpha, beta, stream);
  TCSPARSE_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<Value> result;
  if constexpr (std::is_same_v<Plan, SpmvPlan<Value>>) {
    if (plan_order) {
      DeviceBuffer<Value> caller_order(output_size);
      plan.unpermute(output.data(), caller_order.data(), stream);
      TCSPARSE_CUDA_CHECK(cudaStreamSynchronize(stream));
      result = caller_order.download();
    }
  }
  if (!plan_order) result = output.download();
  record.rel_error = relative_error<Value>(result, operands.reference);
  record.check_passed = record.rel_error < record.error_threshold;

  const ApplyOnce apply = [&](cudaStream_t s) {
    plan.apply(input.data(), output.data(), alpha, beta, s);
  };
  return time_applies(apply, stream, options);
}

/// A rows x cols row-major array in column-major order (element (i, j) at j * rows + i), or the
/// other way round with rows and cols swapped.
template <typename T>
std::vector<T> transposed(const std::vector<T>& row_major, std::int64_t rows, std::int64_t cols) {
  std::vector<T> result(row_major.size());
  for (std::int64_t i = 0; i < rows; ++i)
    for (std::int64_t j = 0; j < cols; ++j)
      result[static_cast<std::size_t>(j * rows + i)] =
          row_major[static_cast<std::size_t>(i * cols + j)];
  return result;
}

/// SpMM: checks one apply of `plan` against the reference (into `record`), then times it. B and
/// C are stored as the plan's layout says (the operands and the reference are row-major: a
/// column-major B is uploaded transposed and C transposed back for the check, outside the
/// timing); C holds `Output` (Value, or float for SpmmOutput::fp32).
template <typename Value, typename Output>
Timing check_and_time_spmm(const SpmmPlan<Value>& plan, const DenseOperands<Value>& operands,
                           const HarnessOptions& options, cudaStream_t stream,
                           BenchRecord& record) {
  const std::int64_t rows = plan.rows(), cols = plan.cols(), n = plan.n();
  const bool column_major = plan.layout().dense == DenseLayout::column_major;
  const auto stored = [&](const auto& row_major, std::int64_t height) {
    return column_major ? transposed(row_major, height, n) : row_major;
  };
  DeviceBuffer<Value> B(stored(operands.input, cols));
  DeviceBuffer<Output> C(static_cast<std::size_t>(rows * n));
  if (options.beta == 0.0) {
    C.fill_bytes(kNanByte);  // beta == 0 must ignore it
  } else {
    std::vector<Output> initial(operands.initial_output.size());
    std::transform(operands.initial_output.begin(), operands.initial_output.end(),
                   initial.begin(),
                   [](Value v) { return static_cast<Output>(to_double(v)); });  // exact
    C.upload(stored(initial, rows));
  }
  device_synchronize();  // the copies above ran on the legacy stream

  const ApplyOnce apply = [&](cudaStream_t s) {
    if constexpr (std::is_same_v<Output, Value>)
      plan.apply(B.data(), C.data(), static_cast<scalar_t<Value>>(options.alpha),
                 static_cast<scalar_t<Value>>(options.beta), s);
    else
      plan.apply_fp32_output(B.data(), C.data(), static_cast<float>(options.alpha),
                             static_cast<float>(options.beta), s);
  };
  apply(stream);
  TCSPARSE_CUDA_CHECK(cudaStreamSynchronize(stream));
  std::vector<Output> result = C.download();
  if (column_major) result = transposed(result, n, rows);
  record.rel_error = relative_error<Output>(result, operands.reference);
  record.check_passed = record.rel_error < record.error_threshold;
  return time_applies(apply, stream, options);
}

/// Median milliseconds (CUDA events) of `copy(stream)`, a host-to-device transfer, after two
/// warm-up runs.
template <typename Copy>
double median_copy_ms(Copy&& copy, cudaStream_t stream) {
  constexpr int kWarmupCopies = 2, kTimedCopies = 11;
  std::vector<double> ms;
  for (int run = 0; run < kWarmupCopies + kTimedCopies; ++run) {
    detail::CudaEvent start, stop;
    start.record(stream);
    copy(stream);
    stop.record(stream);
    stop.synchronize();
    if (run >= kWarmupCopies) ms.push_back(stop.elapsed_ms_since(start));
  }
  std::sort(ms.begin(), ms.end());
  return median_of_sorted(ms);
}

/// Median milliseconds of a host-to-device copy of `bytes` from a pinned buffer of its own.
double pinned_copy_ms(std::size_t bytes, cudaStream_t stream) {
  if (bytes == 0) return 0.0;
  detail::PinnedHostBuffer<std::byte> host(bytes);
  std::memset(host.data(), 0x3C, bytes);
  DeviceBuffer<std::byte> device(bytes);
  return median_copy_ms(
      [&](cudaStream_t s) {
        TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(device.data(), host.data(), bytes,
                                            cudaMemcpyHostToDevice, s));
      },
      stream);
}

/// Median milliseconds of a host-to-device copy of the matrix's own three arrays, pinned where
/// they lie (registered here, or already registered by a plan that streams them): the same bytes
/// from the same physical pages as csr_full_overlap's host_memory=register. (Two pinned buffers
/// of one size copy at speeds a few per cent apart, so a copy from another buffer is a noisier
/// reference.)
template <typename Value>
double matrix_arrays_copy_ms(const CsrMatrix<Value, std::int32_t>& matrix, cudaStream_t stream) {
  const std::span<const std::byte> arrays[] = {std::as_bytes(std::span(matrix.row_ptr)),
                                               std::as_bytes(std::span(matrix.col_idx)),
                                               std::as_bytes(std::span(matrix.values))};
  std::vector<detail::HostRegistration> registrations;
  std::size_t bytes = 0;
  for (const auto& array : arrays) {
    if (array.empty()) continue;
    registrations.push_back(detail::HostRegistration::try_register(array.data(), array.size()));
    if (!registrations.back().registered() &&
        (!detail::is_pinned_host_memory(array.data()) ||
         !detail::is_pinned_host_memory(array.data() + array.size() - 1)))
      return 0.0;  // neither registrable nor pinned already: no such reference
    bytes += array.size();
  }
  if (bytes == 0) return 0.0;
  DeviceBuffer<std::byte> device(bytes);
  return median_copy_ms(
      [&](cudaStream_t s) {
        std::size_t offset = 0;
        for (const auto& array : arrays) {
          if (array.empty()) continue;
          TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(device.data() + offset, array.data(), array.size(),
                                              cudaMemcpyHostToDevice, s));
          offset += array.size();
        }
      },
      stream);
}

/// csr_full_overlap's record (issue 9): pinned_copy_ms (a plain pinned copy of the CSR's bytes),
/// oneshot_over_copy = median_ms / pinned_copy_ms, arrays_copy_ms and oneshot_over_arrays_copy
/// (the same from the matrix's own arrays, pinned: matrix_arrays_copy_ms), and the paper's Eq. 2
/// (§5.3):
/// (t_cuSPARSE - t_Full) / t_Partial + 1, with t_cuSPARSE = cuSPARSE's SpMV plus its own transfer
/// of column indices and values (timed here as a pinned copy, the fastest it can be),
/// t_Full = our one-shot time (median_ms), t_Partial = csr_overlap's SpMV on the device-resident
/// matrix. The parts are recorded too.
template <typename Value>
void add_full_overlap_details(const CsrMatrix<Value, std::int32_t>& matrix,
                              const DenseOperands<Value>& operands, const Timing& timing,
                              const HarnessOptions& options, cudaStream_t stream,
                              BenchRecord& record) {
  const std::size_t index_bytes = sizeof(std::int32_t);
  const std::size_t nonzero_bytes = matrix.col_idx.size() * (index_bytes + sizeof(Value));
  const std::size_t csr_bytes = matrix.row_ptr.size() * index_bytes + nonzero_bytes;
  const double copy_ms = pinned_copy_ms(csr_bytes, stream);
  record.details["pinned_copy_ms"] = copy_ms;
  record.details["oneshot_over_copy"] = copy_ms > 0 ? timing.median_ms / copy_ms : 0.0;
  const double own_copy_ms = matrix_arrays_copy_ms(matrix, stream);
  record.details["arrays_copy_ms"] = own_copy_ms;
  record.details["oneshot_over_arrays_copy"] = own_copy_ms > 0 ? timing.median_ms / own_copy_ms : 0.0;

  HarnessOptions plain = options;
  plain.plan.parameters.clear();
  DeviceBuffer<Value> input(operands.input);
  DeviceBuffer<Value> output(static_cast<std::size_t>(matrix.rows));
  device_synchronize();
  const auto alpha = static_cast<scalar_t<Value>>(options.alpha);
  const auto beta = static_cast<scalar_t<Value>>(options.beta);
  const auto time_method = [&](const char* name) {
    const SpmvPlan<Value> plan(matrix, name, plain.plan);
    const ApplyOnce apply = [&](cudaStream_t s) {
      plan.apply(input.data(), output.data(), alpha, beta, s);
    };
    return time_applies(apply, stream, plain).median_ms;
  };
  const double cusparse_ms = time_method("cusparse");
  const double partial_ms = time_method("csr_overlap");
  const double transfer_ms = pinned_copy_ms(nonzero_bytes, stream);
  record.details["eq2_cusparse_ms"] = cusparse_ms;
  record.details["eq2_cusparse_transfer_ms"] = transfer_ms;
  record.details["eq2_csr_overlap_ms"] = partial_ms;
  record.details["eq2_speedup"] =
      partial_ms > 0 ? (cusparse_ms + transfer_ms - timing.median_ms) / partial_ms + 1.0 : 0.0;
}

/// hbp's record (issue 10): the SpMV part and the combine part of one apply timed apart
/// (spmv_ms, combine_ms: each between its own events, median of 20 after a warm-up, alpha 1,
/// beta 0; hbp::testing::time_parts), with the parameters of the timed plan.
template <typename Value>
void add_hbp_part_details(const CsrMatrix<Value, std::int32_t>& matrix,
                          const DenseOperands<Value>& operands,
                          const std::vector<std::string>& parameters, BenchRecord& record) {
  constexpr int kPartRuns = 20;
  const auto method = hbp::make_spmv<Value>(
      matrix, detail::check_parameter_values("hbp", hbp::parameter_specs(), parameters));
  DeviceBuffer<Value> input(operands.input);
  DeviceBuffer<Value> output(static_cast<std::size_t>(matrix.rows));
  const hbp::testing::PartTimes parts =
      hbp::testing::time_parts(*method, input.data(), output.data(), kPartRuns);
  record.details["spmv_ms"] = parts.spmv_ms;
  record.details["combine_ms"] = parts.combine_ms;
}

/// The process's one-time costs of a kind of plan, paid before its first timed build (as the
/// applies are warmed up before they are timed): kernel modules load on their first launch, and
/// the upload path's pinned staging chunks are allocated once a process (StagingPool). A plan of
/// a small matrix holding rows of every length category, with the same method, precision,
/// operation, options and source (host or device CSR), is built and discarded once.
template <typename Value>
void warm_up_plan_build(const CaseRequest& request, const PlanOptions& plan_options,
                        bool from_device, std::int64_t n, const SpmmLayout& layout) {
  static std::set<std::string> warmed;
  const std::string key = std::string(request.method.name()) + "/" +
                          std::string(to_string(precision_of<Value>())) + "/" +
                          std::string(operation_name(request.operation)) + "/" +
                          (from_device ? "device" : "host");
  if (!warmed.insert(key).second) return;
  {
    auto chunks = detail::StagingPool::acquire(detail::kStagingChunkBytes, detail::kStagingChunks);
    detail::StagingPool::release(std::move(chunks), detail::kStagingChunkBytes);
  }
  const auto small = convert_values<Value>(
      generate_random_rows(4096, 4096, RowLengthDistribution::power_law, 0, 600, 1));
  std::optional<DeviceCsrCopy<Value>> device_copy;
  if (from_device) device_copy.emplace(small);
  if (request.operation == Operation::spmv) {
    if (device_copy) SpmvPlan<Value>(device_copy->view(), request.method, plan_options);
    else SpmvPlan<Value>(small, request.method, plan_options);
  } else {
    if (device_copy) SpmmPlan<Value>(device_copy->view(), n, request.method, plan_options, layout);
    else SpmmPlan<Value>(small, n, request.method, plan_options, layout);
  }
  device_synchronize();
}

/// details.update_values_ms: the median time of one update_values with the matrix's own values
/// from the device (so the plan keeps its results), timed as applies are, for a plan that takes
/// new values.
template <typename Plan, typename Value>
void add_update_values_time(Plan& plan, const CsrMatrix<Value, std::int32_t>& matrix,
                            const HarnessOptions& options, cudaStream_t stream,
                            BenchRecord& record) {
  if (matrix.nnz() == 0 || !plan.can_update_values()) return;
  const DeviceBuffer<Value> values(matrix.values);
  const ApplyOnce update = [&](cudaStream_t s) { plan.update_values(values.data(), s); };
  record.details["update_values_ms"] = time_applies(update, stream, options).median_ms;
}

}  // namespace

template <typename Value>
Timing MatrixBenchmark::State::measure(const CaseRequest& request, BenchRecord& record) {
  const std::int64_t n = record.n;
  require_dense_size_within(std::max(record.rows, record.cols) * n, options.max_dense_elements);
  const auto& operands = operands_for<Value>(request.operation, n);
  const auto& matrix = matrix_for<Value>();
  record.value_scale = problem_for<Value>().value_scale;
  const auto output_size = static_cast<std::size_t>(record.rows * n);
  PlanOptions plan_options = options.plan;
  plan_options.parameters.insert(plan_options.parameters.end(), request.parameters.begin(),
                                 request.parameters.end());
  // The plan's source: the host CSR, or (plan_from_device) its copy on the GPU, uploaded before the
  // build's clock starts, as a CuPy or PyTorch user would hold it.
  std::optional<DeviceCsrCopy<Value>> device_copy;
  if (options.plan_from_device) {
    device_copy.emplace(matrix);
    device_synchronize();
    record.plan_from = "device";
  }
  try {
    warm_up_plan_build<Value>(request, plan_options, options.plan_from_device, n,
                              options.spmm_layout);
  } catch (const Error&) {
    // the timed build below meets the same refusal and reports it
  }
  // plan_build_ms: the median of options.plan_builds builds (the last one is kept and timed)
  // device_preprocess_ms is the kept plan's; details.device_preprocess_builds_ms lists every
  // build's, whose median a build goal in SpMV-times is read from (one build varies by 10-30 %)
  const auto build = [&](auto make_plan) {
    std::vector<double> builds_ms, device_builds_ms;
    for (int b = 1; b < options.plan_builds; ++b) {
      const detail::Stopwatch build_time;
      auto discarded = make_plan();
      builds_ms.push_back(build_time.elapsed_ms());  // not the destruction of the plan
      device_builds_ms.push_back(discarded.stats().device_preprocess_ms);
    }
    const detail::Stopwatch build_time;
    auto plan = make_plan();
    builds_ms.push_back(build_time.elapsed_ms());  // before stats(), which may do work
    std::vector<double> sorted = builds_ms;
    std::sort(sorted.begin(), sorted.end());
    copy_plan_stats(plan.stats(), sorted[sorted.size() / 2], record);
    device_builds_ms.push_back(record.device_preprocess_ms);
    if (builds_ms.size() > 1) {
      record.details["plan_builds_ms"] = builds_ms;
      record.details["device_preprocess_builds_ms"] = device_builds_ms;
    }
    return plan;
  };
  if (request.operation == Operation::spmv) {
    auto plan = build([&] {
      return device_copy ? SpmvPlan<Value>(device_copy->view(), request.method, plan_options)
                         : SpmvPlan<Value>(matrix, request.method, plan_options);
    });
    const Timing timing =
        check_and_time<Value>(plan, operands, output_size, options, stream.get(), record);
    add_update_values_time(plan, matrix, options, stream.get(), record);
    if (request.method.name() == "csr_full_overlap")
      add_full_overlap_details<Value>(matrix, operands, timing, options, stream.get(), record);
    if (request.method.name() == "hbp" && !options.plan_from_device)
      add_hbp_part_details<Value>(matrix, operands, plan_options.parameters, record);
    return timing;
  }
  const SpmmLayout& layout = options.spmm_layout;
  auto plan = build([&] {
    return device_copy
               ? SpmmPlan<Value>(device_copy->view(), n, request.method, plan_options, layout)
               : SpmmPlan<Value>(matrix, n, request.method, plan_options, layout);
  });
  // What the plan holds (fp32 output of fp32 inputs is the input type).
  record.layout = std::string(to_string(plan.layout().dense));
  record.output = std::string(to_string(plan.layout().output));
  const Timing timing = [&] {
    if constexpr (!std::is_same_v<Value, double>)
      if (plan.layout().output == SpmmOutput::fp32)
        return check_and_time_spmm<Value, float>(plan, operands, options, stream.get(), record);
    return check_and_time_spmm<Value, Value>(plan, operands, options, stream.get(), record);
  }();
  add_update_values_time(plan, matrix, options, stream.get(), record);
  return timing;
}

// ---- public functions ----

std::string_view operation_name(Operation operation) { return to_string(operation); }

std::string source_commit() {
  if (const char* from_env = std::getenv("TCSPARSE_COMMIT"); from_env && *from_env)
    return from_env;
  return TCSPARSE_GIT_DESCRIBE;
}

RunEnvironment RunEnvironment::detect(int device, CopyBandwidth copy) {
  require_cuda_device();
  const DeviceInfo info = query_device(device);
  RunEnvironment environment;
  environment.device = device;
  environment.gpu = info.name;
  environment.driver = info.driver_version;
  environment.cuda = info.runtime_version;
  environment.commit = source_commit();
  environment.l2_cache_bytes = info.l2_cache_bytes;
  environment.tensor_core_peak_tflops = ::tcsparse::bench::tensor_core_peak_tflops(info.name);
  if (copy == CopyBandwidth::measure) environment.copy_gbps = measure_copy_bandwidth_gbps(device);
  return environment;
}

double error_threshold(Precision precision) {
  switch (precision) {
    case Precision::fp64: return 1e-12;
    case Precision::fp32: return 1e-5;
    case Precision::fp16:
    case Precision::bf16: break;
  }
  return 1e-2;
}

std::int64_t minimum_bytes(std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                           Precision precision, Operation operation, std::int64_t n,
                           bool reads_y, SpmmOutput output_type) {
  const auto value = static_cast<std::int64_t>(value_bytes(precision));
  const bool spmm = operation == Operation::spmm;
  const std::int64_t dense_columns = spmm ? n : 1;
  const std::int64_t output_value =
      spmm && output_type == SpmmOutput::fp32 ? std::int64_t{sizeof(float)} : value;
  const std::int64_t matrix = nnz * value + nnz * kIndexBytes + (rows + 1) * kIndexBytes;
  const std::int64_t input = cols * dense_columns * value;
  const std::int64_t output = rows * dense_columns * output_value * (reads_y ? 2 : 1);
  return matrix + input + output;
}

nlohmann::ordered_json BenchRecord::to_json() const {
  nlohmann::ordered_json j;
  j["gpu"] = gpu;
  j["driver"] = driver;
  j["cuda"] = cuda;
  j["commit"] = commit;
  j["timestamp"] = timestamp;
  j["matrix"] = matrix;
  j["matrix_source"] = matrix_source;
  j["rows"] = rows;
  j["cols"] = cols;
  j["nnz"] = nnz;
  j["method"] = method;
  if (!variant.empty()) j["variant"] = variant;
  if (!parameters.empty()) j["parameters"] = parameters;
  j["precision"] = precision;
  j["operation"] = operation;
  j["n"] = n;
  if (!layout.empty()) j["layout"] = layout;
  if (!output.empty()) j["output"] = output;
  j["alpha"] = alpha;
  j["beta"] = beta;
  if (error) {
    j["error"] = *error;
    return j;
  }
  j["median_ms"] = median_ms;
  j["min_ms"] = min_ms;
  j["max_ms"] = max_ms;
  j["runs"] = runs;
  j["applies_per_run"] = applies_per_run;
  j["host_enqueue_ms"] = host_enqueue_ms;
  j["gflops"] = gflops;
  if (operation == operation_name(Operation::spmm)) j["tflops"] = tflops;
  if (tensor_core_share) j["tensor_core_share"] = *tensor_core_share;
  j["gbps"] = gbps;
  j["min_bytes"] = min_bytes;
  j["copy_gbps"] = copy_gbps;
  j["bandwidth_share"] = bandwidth_share;
  j["rel_error"] = std::isfinite(rel_error) ? nlohmann::ordered_json(rel_error)
                                            : nlohmann::ordered_json("inf");
  j["error_threshold"] = error_threshold;
  j["check_passed"] = check_passed;
  j["plan_build_ms"] = plan_build_ms;
  j["plan_from"] = plan_from;
  j["host_preprocess_ms"] = host_preprocess_ms;
  j["upload_ms"] = upload_ms;
  if (host_upload != "automatic") j["host_upload"] = host_upload;
  j["device_preprocess_ms"] = device_preprocess_ms;
  j["device_bytes"] = device_bytes;
  j["padding_ratio"] = padding_ratio;
  j["fits_l2"] = fits_l2;
  j["value_scale"] = value_scale;
  j["details"] = details;
  return j;
}

std::string BenchRecord::method_label() const {
  return variant.empty() ? method : method + "[" + variant + "]";
}

MatrixBenchmark::MatrixBenchmark(const MatrixInput& input, const RunEnvironment& environment,
                                 const HarnessOptions& options)
    : state_(std::make_unique<State>(input, environment, options)) {}

MatrixBenchmark::~MatrixBenchmark() = default;

namespace {

BenchRecord describe_case(const MatrixInput& input, const RunEnvironment& environment,
                          const HarnessOptions& options, const CaseRequest& request) {
  BenchRecord record;
  record.gpu = environment.gpu;
  record.driver = environment.driver;
  record.cuda = environment.cuda;
  record.commit = environment.commit;
  record.timestamp = utc_timestamp();
  record.matrix = input.name;
  record.matrix_source = input.source;
  record.rows = input.matrix.rows;
  record.cols = input.matrix.cols;
  record.nnz = input.matrix.nnz();
  record.method = std::string(to_string(request.method));
  record.variant = request.variant;
  record.parameters = request.parameters;
  record.precision = std::string(to_string(request.precision));
  record.operation = operation_name(request.operation);
  record.n = request.operation == Operation::spmv ? 1 : request.n;
  record.alpha = options.alpha;
  record.beta = options.beta;
  record.host_upload = std::string(to_string(options.plan.host_upload));
  record.error_threshold = error_threshold(request.precision);
  const bool fp32_output = request.operation == Operation::spmm &&
                           options.spmm_layout.output == SpmmOutput::fp32 &&
                           (request.precision == Precision::fp16 ||
                            request.precision == Precision::bf16);
  if (request.operation == Operation::spmm) {  // as requested; the plan's own once it is built
    record.layout = std::string(to_string(options.spmm_layout.dense));
    record.output = std::string(
        to_string(fp32_output ? SpmmOutput::fp32 : SpmmOutput::input_type));
  }
  record.min_bytes = minimum_bytes(record.rows, record.cols, record.nnz, request.precision,
                                   request.operation, record.n, options.beta != 0.0,
                                   fp32_output ? SpmmOutput::fp32 : SpmmOutput::input_type);
  return record;
}


}  // namespace

std::optional<BenchRecord> MatrixBenchmark::run(const CaseRequest& request) {
  State& state = *state_;
  if (!supports(request.method, request.operation, request.precision)) {
    state.last_skip_reason = std::string(to_string(request.method)) + " does not support " +
                             std::string(operation_name(request.operation)) + " in " +
                             std::string(to_string(request.precision));
    return std::nullopt;
  }
  BenchRecord record = describe_case(state.input, state.environment, state.options, request);
  Timing timing;
  try {
    timing = dispatch_precision(request.precision, [&](auto tag) {
      return state.measure<decltype(tag)>(request, record);
    });
  } catch (const UnsupportedError& unsupported) {
    state.last_skip_reason = unsupported.what();
    return std::nullopt;
  } catch (const std::exception& error) {
    record.error = error.what();
    return record;
  }
  add_throughput(timing, state.environment, record);
  return record;
}

const std::string& MatrixBenchmark::last_skip_reason() const { return state_->last_skip_reason; }

}  // namespace tcsparse::bench
