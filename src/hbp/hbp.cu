// HBP behind the SpmvMethod interface: the layout built on the host (hbp_format.cpp) and uploaded,
// then per apply a cudaMemsetAsync of the ticket, the SpMV kernel and, when some row has 0 or
// several slots, the combine kernel, all on the caller's stream (hbp_kernels.cuh).
//
// Apply is asynchronous, allocates nothing and synchronises nothing; the memset, the two kernels
// are graph-capturable. The ticket and the partial sums belong to the plan: one plan must not be
// applied on two streams at the same time.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <limits>
#include <memory>
#include <string>
#include <vector>

#include "arch/types.cuh"
#include "common/stopwatch.hpp"
#include "hbp/hbp.hpp"
#include "hbp/hbp_format.hpp"
#include "hbp/hbp_kernels.cuh"
#include "hbp/hbp_parameters.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_buffer.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::hbp {
namespace {

using detail::CudaEvent;
using detail::DeviceBuffer;

constexpr int kCombineThreads = 256;
/// Largest grid of the combine kernel (grid-stride above it).
constexpr std::int64_t kCombineMaxBlocks = 1 << 16;

template <typename Value>
class HbpSpmv final : public detail::SpmvMethod<Value> {
  using V = arch::device_value_t<Value>;
  using Acc = device::Acc<V>;
  static_assert(sizeof(V) == sizeof(Value));
  static_assert(std::is_same_v<Acc, scalar_t<Value>>);

 public:
  HbpSpmv(const CsrMatrix<Value, std::int32_t>& matrix, const HbpParameters& p, Json parameters)
      : parameters_(p) {
    const detail::Stopwatch host_work;
    const HbpLayout<Value> layout = build_layout(matrix, p, p.resolved_block_cols(sizeof(Value)));
    stats_.host_preprocess_ms = host_work.elapsed_ms();

    const detail::Stopwatch upload;
    task_block_begin_ = DeviceBuffer<std::int32_t>(layout.task_block_begin);
    task_col_ = DeviceBuffer<std::int32_t>(layout.task_col);
    task_shared_x_ = DeviceBuffer<std::int32_t>(layout.task_shared_x);
    block_group_begin_ = DeviceBuffer<std::int32_t>(layout.block_group_begin);
    group_slot_begin_ = DeviceBuffer<std::int32_t>(layout.group_slot_begin);
    begin_nnz_ = DeviceBuffer<std::int64_t>(layout.begin_nnz);
    col_add_sign_ = DeviceBuffer<std::uint32_t>(layout.col_add_sign);
    data_ = DeviceBuffer<Value>(layout.data);
    output_hash_ = DeviceBuffer<std::int32_t>(layout.output_hash);
    combine_rows_ = DeviceBuffer<std::int32_t>(layout.combine_rows);
    combine_begin_ = DeviceBuffer<std::int32_t>(layout.combine_begin);
    partials_ = DeviceBuffer<Acc>(static_cast<std::size_t>(layout.partials()));
    ticket_ = DeviceBuffer<unsigned>(1);
    ticket_.fill_bytes(0);
    stats_.upload_ms = upload.elapsed_ms();

    prepare_launch(layout);

    spmv_.task_block_begin = task_block_begin_.data();
    spmv_.task_col = task_col_.data();
    spmv_.task_shared_x = task_shared_x_.data();
    spmv_.task_count = static_cast<std::int32_t>(layout.tasks());
    spmv_.fixed_tasks = static_cast<std::int32_t>(schedule_.fixed_tasks);
    spmv_.block_group_begin = block_group_begin_.data();
    spmv_.group_slot_begin = group_slot_begin_.data();
    spmv_.begin_nnz = begin_nnz_.data();
    spmv_.col_add_sign = col_add_sign_.data();
    spmv_.data = reinterpret_cast<const V*>(data_.data());
    spmv_.output_hash = output_hash_.data();
    spmv_.partials = partials_.data();
    spmv_.ticket = ticket_.data();
    spmv_.cols = layout.cols;
    spmv_.block_cols = layout.block_cols;
    spmv_.warp_row_length = layout.warp_row_length;

    combine_.combine_rows = combine_rows_.data();
    combine_.combine_begin = combine_begin_.data();
    combine_.partials = partials_.data();
    combine_.count = static_cast<std::int32_t>(layout.combine_rows.size());

    stats_.device_bytes = device_bytes(layout, sizeof(Acc));
    stats_.stored_values = layout.nnz;
    stats_.padding_ratio = 0.0;
    stats_.details = layout_statistics(layout, sizeof(Acc));
    stats_.details["threads_per_block"] = threads_;
    stats_.details["grid"] = schedule_.grid;
    stats_.details["fixed_tasks"] = schedule_.fixed_tasks;
    stats_.details["shared_memory_bytes"] = shared_bytes_;
    stats_.details["blocks_per_sm"] = blocks_per_sm_;
    stats_.details["parameters"] = std::move(parameters);
  }

  void apply(const Value* x, Value* y, scalar_t<Value> alpha, scalar_t<Value> beta,
             Stream stream) const override {
    launch_spmv(reinterpret_cast<const V*>(x), reinterpret_cast<V*>(y), alpha, beta, stream);
    launch_combine(reinterpret_cast<V*>(y), alpha, beta, stream);
  }

  const PlanStats& stats() const override { return stats_; }

  /// SpMV and combine timed apart (testing::time_parts).
  testing::PartTimes time_parts(const Value* x, Value* y, int repeats) const {
    const cudaStream_t stream = nullptr;
    CudaEvent start, middle, stop;
    std::vector<double> spmv, combine;
    for (int r = -1; r < std::max(1, repeats); ++r) {
      start.record(stream);
      launch_spmv(reinterpret_cast<const V*>(x), reinterpret_cast<V*>(y), Acc(1), Acc(0), stream);
      middle.record(stream);
      launch_combine(reinterpret_cast<V*>(y), Acc(1), Acc(0), stream);
      stop.record(stream);
      stop.synchronize();
      if (r < 0) continue;  // warm-up
      spmv.push_back(middle.elapsed_ms_since(start));
      combine.push_back(stop.elapsed_ms_since(middle));
    }
    auto median = [](std::vector<double>& v) {
      std::nth_element(v.begin(), v.begin() + static_cast<std::ptrdiff_t>(v.size() / 2), v.end());
      return v[v.size() / 2];
    };
    return {median(spmv), median(combine)};
  }

  Schedule schedule() const { return schedule_; }

 private:
  void launch_spmv(const V* x, V* y, Acc alpha, Acc beta, cudaStream_t stream) const {
    if (spmv_.task_count == 0) return;
    TCSPARSE_CUDA_CHECK(cudaMemsetAsync(spmv_.ticket, 0, sizeof(unsigned), stream));
    device::spmv_kernel<V><<<static_cast<unsigned>(schedule_.grid), static_cast<unsigned>(threads_),
                             shared_bytes_, stream>>>(spmv_, x, y, alpha, beta);
    TCSPARSE_CUDA_CHECK_LAUNCH();
  }

  void launch_combine(V* y, Acc alpha, Acc beta, cudaStream_t stream) const {
    if (combine_.count == 0) return;
    const auto blocks = std::min<std::int64_t>(
        (combine_.count + kCombineThreads - 1) / kCombineThreads, kCombineMaxBlocks);
    device::combine_kernel<V><<<static_cast<unsigned>(blocks), kCombineThreads, 0, stream>>>(
        combine_, y, alpha, beta);
    TCSPARSE_CUDA_CHECK_LAUNCH();
  }

  /// The x segment's shared memory (let the kernel use the device's opt-in limit), the resident
  /// blocks and the persistent grid with its fixed part.
  void prepare_launch(const HbpLayout<Value>& layout) {
    threads_ = parameters_.warps_per_block * arch::kWarpSize;
    const std::int64_t segment_values =
        std::min<std::int64_t>(layout.block_cols, std::max<std::int64_t>(layout.cols, 1));
    shared_bytes_ = (static_cast<std::size_t>(segment_values) * sizeof(V) + 15) / 16 * 16;
    const auto kernel = &device::spmv_kernel<V>;
    cudaFuncAttributes attributes{};
    TCSPARSE_CUDA_CHECK(cudaFuncGetAttributes(&attributes, kernel));
    const auto optin = static_cast<std::size_t>(
        detail::current_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin));
    const std::size_t dynamic_limit =
        optin > attributes.sharedSizeBytes ? optin - attributes.sharedSizeBytes : 0;
    if (shared_bytes_ > dynamic_limit)
      throw UnsupportedError("hbp: block_cols=" + std::to_string(layout.block_cols) + " needs " +
                             std::to_string(shared_bytes_) +
                             " bytes of shared memory for the x segment; this GPU allows " +
                             std::to_string(dynamic_limit));
    TCSPARSE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(dynamic_limit)));
    int resident = 0;
    TCSPARSE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(&resident, kernel, threads_,
                                                                      shared_bytes_));
    if (resident < 1)
      throw UnsupportedError("hbp: no block of " + std::to_string(threads_) + " threads and " +
                             std::to_string(shared_bytes_) + " bytes of shared memory fits an SM");
    blocks_per_sm_ = parameters_.blocks_per_sm > 0 ? parameters_.blocks_per_sm : resident;
    const std::int64_t sm_count = detail::current_device_attribute(cudaDevAttrMultiProcessorCount);
    schedule_ = make_schedule(layout.tasks(), sm_count * blocks_per_sm_, parameters_.fixed_share);
  }

  HbpParameters parameters_;
  PlanStats stats_;
  Schedule schedule_;
  int threads_ = 0;
  int blocks_per_sm_ = 0;
  std::size_t shared_bytes_ = 0;
  DeviceBuffer<std::int32_t> task_block_begin_, task_col_, task_shared_x_, block_group_begin_,
      group_slot_begin_;
  DeviceBuffer<std::int64_t> begin_nnz_;
  DeviceBuffer<std::uint32_t> col_add_sign_;
  DeviceBuffer<Value> data_;
  DeviceBuffer<std::int32_t> output_hash_, combine_rows_, combine_begin_;
  DeviceBuffer<Acc> partials_;
  DeviceBuffer<unsigned> ticket_;
  device::SpmvArguments<V> spmv_{};
  device::CombineArguments<V> combine_{};
};

template <typename Value>
const HbpSpmv<Value>& as_hbp(const detail::SpmvMethod<Value>& method) {
  const auto* hbp = dynamic_cast<const HbpSpmv<Value>*>(&method);
  if (hbp == nullptr) throw Error("hbp::testing: the method is not an hbp plan");
  return *hbp;
}

}  // namespace

template <typename Value>
std::unique_ptr<detail::SpmvMethod<Value>> make_spmv(const CsrMatrix<Value, std::int32_t>& matrix,
                                                     const detail::ParameterValues& parameters) {
  return std::make_unique<HbpSpmv<Value>>(matrix, hbp_parameters(parameters), parameters.to_json());
}

namespace testing {

template <typename Value>
PartTimes time_parts(const detail::SpmvMethod<Value>& method, const Value* x, Value* y,
                     int repeats) {
  return as_hbp(method).time_parts(x, y, repeats);
}

template <typename Value>
Schedule launch_schedule(const detail::SpmvMethod<Value>& method) {
  return as_hbp(method).schedule();
}

}  // namespace testing

#define TCSPARSE_HBP_INSTANTIATE(Value)                                                         \
  template std::unique_ptr<detail::SpmvMethod<Value>> make_spmv(                                \
      const CsrMatrix<Value, std::int32_t>&, const detail::ParameterValues&);                   \
  template testing::PartTimes testing::time_parts(const detail::SpmvMethod<Value>&,             \
                                                  const Value*, Value*, int);                   \
  template Schedule testing::launch_schedule(const detail::SpmvMethod<Value>&);
TCSPARSE_HBP_INSTANTIATE(double)
TCSPARSE_HBP_INSTANTIATE(float)
TCSPARSE_HBP_INSTANTIATE(half)
TCSPARSE_HBP_INSTANTIATE(bfloat16)
#undef TCSPARSE_HBP_INSTANTIATE

}  // namespace tcsparse::hbp
