// HBP behind the SpmvMethod interface: the layout built on the GPU from the uploaded CSR or the
// caller's device CSR (build=device, hbp_device_build.cu) or on the host (build=host,
// hbp_format.cpp) and uploaded,
// then, where every slot writes its own partial sum (slot_output=, hbp_slot_partials.hpp), its
// combine lists rewritten on the GPU; then per apply, in the hubs-first column order
// (column_order, hbp_column_order.hpp) a gather of x into the plan's order, the SpMV kernel
// (its ticket resets itself at the end of each launch) and, when some row has 0 or several slots
// (every row with slot_output=partial), the combine kernel, a programmatic dependent launch where
// the GPU runs sm_90 code; all on the caller's stream (hbp_kernels.cuh).
//
// Apply is asynchronous, allocates nothing and synchronises nothing; the gather and the two
// kernels are graph-capturable. The gathered x, the ticket and the partial sums belong to
// the plan: one plan must not be applied on two streams at the same time.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <memory>
#include <span>
#include <string>
#include <vector>

#include "arch/dependent_launch.cuh"
#include "arch/types.cuh"
#include "common/for_each_value.hpp"
#include "common/stopwatch.hpp"
#include "hbp/hbp.hpp"
#include "hbp/hbp_column_order.hpp"
#include "hbp/hbp_device_build.hpp"
#include "hbp/hbp_format.hpp"
#include "hbp/hbp_kernels.cuh"
#include "hbp/hbp_parameters.hpp"
#include "hbp/hbp_slot_partials.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/device_csr.hpp"
#include "runtime/device_csr_view.hpp"
#include "runtime/permute.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::hbp {
namespace {

using detail::CudaEvent;
using detail::DeviceBuffer;

constexpr int kCombineThreads = 256;
/// Largest grid of the combine kernel (grid-stride above it).
constexpr std::int64_t kCombineMaxBlocks = 1 << 16;
constexpr int kCombineWarpsPerBlock = kCombineThreads / arch::kWarpSize;

template <typename Value>
/// The sizes size_statistics reports, of a layout on the device.
LayoutSizes sizes_of(const DeviceLayout<Value>& layout) {
  LayoutSizes sizes;
  sizes.rows = layout.rows;
  sizes.cols = layout.cols;
  sizes.nnz = layout.nnz;
  sizes.block_rows = layout.block_rows;
  sizes.block_cols = layout.block_cols;
  sizes.reorder = layout.reorder;
  sizes.hash = layout.hash;
  sizes.blocks = layout.blocks;
  sizes.groups = layout.groups;
  sizes.slots = layout.slots;
  sizes.tasks = layout.tasks;
  sizes.partials = layout.partials;
  sizes.combine_rows = layout.combine_row_count;
  sizes.value_bytes = sizeof(Value);
  sizes.device_bytes = layout.plan_bytes(sizeof(scalar_t<Value>));
  return sizes;
}

/// block_cols as a plan on the current GPU resolves it (auto: stripes of its L2; narrower where
/// x is read hubs first).
std::int32_t block_cols_on_this_gpu(const HbpParameters& p, std::size_t value_bytes,
                                    std::int64_t cols, bool hubs_first) {
  return p.resolved_block_cols(value_bytes, cols,
                               detail::current_device_attribute(cudaDevAttrL2CacheSize),
                               hubs_first);
}

template <typename Value>
class HbpSpmv final : public detail::SpmvMethod<Value> {
  using V = arch::device_value_t<Value>;
  using Acc = device::Acc<V>;
  static_assert(sizeof(V) == sizeof(Value));
  static_assert(std::is_same_v<Acc, scalar_t<Value>>);
  using SpmvKernel = void (*)(device::SpmvArguments<V>, const V*, V*, Acc, Acc);

  /// The SpMV kernel of `kernel` (tasks or groups, the latter without fixed rounds until
  /// prepare_launch knows them) and walk_unroll (its rounds loaded at once, a template parameter).
  static SpmvKernel spmv_kernel_for(Kernel kernel, int walk_unroll) {
    if (kernel == Kernel::groups) return groups_kernel_for(walk_unroll, false);
    switch (walk_unroll) {
      case 1: return &device::spmv_kernel<V, 1>;
      case 2: return &device::spmv_kernel<V, 2>;
      case 4: return &device::spmv_kernel<V, 4>;
      case 8: return &device::spmv_kernel<V, 8>;
      default: break;
    }
    throw_walk_unroll(walk_unroll);
  }
  /// kernel=groups with or without fixed rounds of tickets (a template parameter: without them
  /// the round counter is not held across the walk).
  static SpmvKernel groups_kernel_for(int walk_unroll, bool fixed_rounds) {
    switch (walk_unroll) {
      case 1: return fixed_rounds ? &device::spmv_groups_kernel<V, 1, true>
                                  : &device::spmv_groups_kernel<V, 1, false>;
      case 2: return fixed_rounds ? &device::spmv_groups_kernel<V, 2, true>
                                  : &device::spmv_groups_kernel<V, 2, false>;
      case 4: return fixed_rounds ? &device::spmv_groups_kernel<V, 4, true>
                                  : &device::spmv_groups_kernel<V, 4, false>;
      case 8: return fixed_rounds ? &device::spmv_groups_kernel<V, 8, true>
                                  : &device::spmv_groups_kernel<V, 8, false>;
      default: break;
    }
    throw_walk_unroll(walk_unroll);
  }
  [[noreturn]] static void throw_walk_unroll(int walk_unroll) {
    throw ParameterError("method 'hbp': walk_unroll=" + std::to_string(walk_unroll) +
                         " is not accepted: expected 1, 2, 4 or 8");
  }

 public:
  /// From host CSR: build=host builds the layout on the host and uploads it; build=device uploads
  /// the CSR (upload_ms) and builds the layout on the GPU (device_preprocess_ms).
  HbpSpmv(const CsrMatrix<Value, std::int32_t>& matrix, const HbpParameters& p, Json parameters)
      : parameters_(p) {
    Json statistics;
    if (p.build == Build::host) {
      const detail::Stopwatch host_work;
      const std::span<const std::int32_t> columns(matrix.col_idx);
      if (parameters_.counts_columns(matrix.nnz()))
        column_concentration_ = estimated_column_count_concentration(
            matrix.cols, matrix.nnz(), sampled_column_counts(matrix));
      const std::int32_t block_cols = choose_kernel(matrix.cols, matrix.nnz());
      std::vector<std::int32_t> plan_to_caller;
      if (hubs_first(matrix.nnz()))
        plan_to_caller = hubs_first_column_order(
            columns, matrix.cols, block_cols, p.resolved_hub_min_count(matrix.nnz(), matrix.cols));
      HbpLayout<Value> layout =
          plan_to_caller.empty() ? build_layout(matrix, p, block_cols)
                                 : build_layout(with_plan_columns(matrix, plan_to_caller), p,
                                                block_cols);
      if (partial_per_slot(layout.cols, layout.block_cols, layout.slots(), layout.partials()))
        give_every_slot_a_partial(layout);  // the host model of the GPU's rewrite
      stats_.host_preprocess_ms = host_work.elapsed_ms();
      const detail::Stopwatch upload;
      layout_ = upload_layout(layout);
      if (!plan_to_caller.empty()) plan_to_caller_ = DeviceBuffer<std::int32_t>(plan_to_caller);
      stats_.upload_ms = upload.elapsed_ms();
      statistics = layout_statistics(layout, sizeof(Acc));
    } else {
      detail::DeviceCsr<Value> csr = detail::upload_csr(matrix, stats_);
      statistics = build_on_device(csr.view(), csr.col_idx.data());
    }
    finish(std::move(statistics), std::move(parameters));
  }

  /// From a checked CSR already on the GPU (build=device, no host round trip): the layout is
  /// built from the caller's arrays and keeps its own copy of the values, so they are not read
  /// after the build.
  HbpSpmv(const DeviceCsrView<Value>& matrix, const HbpParameters& p, Json parameters)
      : parameters_(p) {
    Json statistics = build_on_device(matrix);
    finish(std::move(statistics), std::move(parameters));
  }

  void apply(const Value* x, Value* y, scalar_t<Value> alpha, scalar_t<Value> beta,
             Stream stream) const override {
    launch_spmv(x_in_plan_order(x, stream), reinterpret_cast<V*>(y), alpha, beta, stream);
    launch_combine(reinterpret_cast<V*>(y), alpha, beta, stream);
  }

  const PlanStats& stats() const override { return stats_; }

  /// update_values=on: the layout knows each stored value's CSR index (value_source).
  bool can_update_values() const override { return parameters_.update_values; }
  std::string values_fixed_because() const override {
    return "its layout holds the values in its own order: build the plan with update_values=on "
           "(4 bytes a nonzero more on the device) to replace them, or build a new plan";
  }
  /// data[k] = values[value_source[k]]: one gather on `stream` (no sync, no allocation).
  void update_values(const Value* values, Stream stream) override {
    detail::gather_async(values, layout_.value_source.data(), layout_.data.data(), layout_.nnz,
                         stream);
  }

  /// SpMV and combine timed apart (testing::time_parts).
  testing::PartTimes time_parts(const Value* x, Value* y, int repeats) const {
    const cudaStream_t stream = nullptr;
    CudaEvent start, middle, stop;
    std::vector<double> spmv, combine;
    for (int r = -1; r < std::max(1, repeats); ++r) {
      start.record(stream);
      launch_spmv(x_in_plan_order(x, stream), reinterpret_cast<V*>(y), Acc(1), Acc(0), stream);
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
  /// block_cols on this GPU for a matrix of `cols` columns and `nnz` nonzeros (once
  /// column_concentration_ is known: hubs_first), and the SpMV kernel for it.
  std::int32_t choose_kernel(std::int64_t cols, std::int64_t nnz) {
    const std::int32_t block_cols =
        block_cols_on_this_gpu(parameters_, sizeof(Value), cols, hubs_first(nnz));
    kind_ = parameters_.resolved_kernel(block_cols, sizeof(Value));
    kernel_ = spmv_kernel_for(kind_, parameters_.walk_unroll);
    return block_cols;
  }

  /// Whether the plan reads x in the hubs-first order (once column_concentration_ is known).
  bool hubs_first(std::int64_t nnz) const {
    return parameters_.counts_columns(nnz) && parameters_.hubs_first(column_concentration_);
  }

  /// build=device: the layout built on the GPU from `csr` (device_preprocess_ms), with its columns
  /// in the hubs-first order where the plan takes it (column_order): renumbered in place when the
  /// plan owns them (`owned_col_idx`, csr's own columns: the uploaded CSR), else into a temporary
  /// copy; block_cols and the kernel chosen once the order is known (choose_kernel). Its size
  /// statistics and the build's steps.
  Json build_on_device(const DeviceCsrView<Value>& csr, std::int32_t* owned_col_idx = nullptr) {
    const cudaStream_t stream = nullptr;
    // the column order's temporaries (the renumbered columns live through the layout's build)
    // given back at the end, as the layout's own are
    const detail::TemporaryMemoryScope temporaries(stream);
    CudaEvent start, counted, ordered, built, stop;
    start.record(stream);
    DeviceCsrView<Value> plan_csr = csr;
    DeviceBuffer<std::int32_t> plan_columns;
    if (parameters_.counts_columns(csr.nnz)) {
      if (parameters_.column_order == ColumnOrder::automatic)
        column_concentration_ = estimated_column_count_concentration_on_device(csr, stream);
      counted.record(stream);
    }
    const std::int32_t block_cols = choose_kernel(csr.cols, csr.nnz);
    if (hubs_first(csr.nnz)) {
      const DeviceColumnCounts counts =
          count_columns_on_device(csr.col_idx, csr.nnz, csr.cols, stream);
      plan_to_caller_ = hubs_first_column_order_on_device(
          counts, block_cols, parameters_.resolved_hub_min_count(csr.nnz, csr.cols), stream);
      std::int32_t* plan_col_idx = owned_col_idx;
      if (plan_col_idx == nullptr) {
        plan_columns =
            DeviceBuffer<std::int32_t>::on_stream(static_cast<std::size_t>(csr.nnz), stream);
        plan_col_idx = plan_columns.data();
      }
      renumber_columns_on_device(csr.col_idx, csr.nnz, plan_to_caller_, plan_col_idx, stream);
      plan_csr.col_idx = plan_col_idx;
    }
    ordered.record(stream);
    layout_ = build_layout_on_device(plan_csr, parameters_, block_cols, stream);
    plan_columns = {};
    built.record(stream);
    const bool rewritten = rewrite_slot_outputs(stream);
    stop.record(stream);
    stop.synchronize();
    stats_.device_preprocess_ms = stop.elapsed_ms_since(start);
    Json statistics = size_statistics(sizes_of(layout_));
    statistics["layout_memory"] = layout_.arrays_from_pool ? "pool" : "allocate";
    Json phases = Json::object();
    if (parameters_.counts_columns(csr.nnz)) {  // auto's sample (and its download), the order
      phases["column_sample"] = counted.elapsed_ms_since(start);
      phases["column_order"] = ordered.elapsed_ms_since(counted);
    }
    for (const auto& [step, ms] : layout_.build_phases_ms) phases[step] = ms;
    if (rewritten) phases["slot_partials"] = stop.elapsed_ms_since(built);
    statistics["plan_phases_ms"] = std::move(phases);
    return statistics;
  }

  /// Whether a layout of `cols` columns in blocks of `block_cols`, `slots` slots and `partials`
  /// partial sums (before any rewrite) writes a partial sum a slot (slot_output=partial, or auto's
  /// choice, HbpParameters::partial_per_slot).
  bool partial_per_slot(std::int64_t cols, std::int32_t block_cols, std::int64_t slots,
                        std::int64_t partials) const {
    const std::int64_t column_blocks = (cols + block_cols - 1) / block_cols;
    return slots > 0 && parameters_.partial_per_slot(column_blocks, slots, partials);
  }

  /// build=device: the layout rewritten on the GPU where every slot writes its own partial sum
  /// (partial_per_slot). Whether it was.
  bool rewrite_slot_outputs(cudaStream_t stream) {
    if (!partial_per_slot(layout_.cols, layout_.block_cols, layout_.slots, layout_.partials))
      return false;
    give_every_slot_a_partial_on_device(layout_, stream);
    return true;
  }

  /// x as the kernels read it: the caller's, or gathered into the plan's column order.
  const V* x_in_plan_order(const Value* x, cudaStream_t stream) const {
    if (plan_to_caller_.empty()) return reinterpret_cast<const V*>(x);
    detail::gather_async(x, plan_to_caller_.data(), plan_x_.data(),
                         static_cast<std::int64_t>(plan_to_caller_.size()), stream);
    return reinterpret_cast<const V*>(plan_x_.data());
  }

  /// The launch and the plan's statistics, once the layout is on the device.
  void finish(Json statistics, Json parameters) {
    const HbpParameters& p = parameters_;
    layout_.release_block_indices();  // the kernels do not read them
    partials_ = DeviceBuffer<Acc>(static_cast<std::size_t>(layout_.partials));
    ticket_ = DeviceBuffer<unsigned>(1);
    ticket_.fill_bytes(0);  // once: each launch leaves it at 0 for the next (release_ticket)

    prepare_launch();

    spmv_.task_block_begin = layout_.task_block_begin.data();
    spmv_.task_col = layout_.task_col.data();
    spmv_.task_shared_x = layout_.task_shared_x.data();
    spmv_.task_count = static_cast<std::int32_t>(layout_.tasks);
    spmv_.fixed_tasks = static_cast<std::int32_t>(schedule_.fixed_tasks);
    spmv_.block_group_begin = layout_.block_group_begin.data();
    spmv_.group_slot_begin = layout_.group_slot_begin.data();
    spmv_.group_col = layout_.group_col.data();
    spmv_.group_count = layout_.groups;
    spmv_.groups_per_ticket = groups_per_ticket_;
    spmv_.fixed_rounds = schedule_.fixed_rounds;
    spmv_.begin_nnz = layout_.begin_nnz.data();
    spmv_.col_add_sign = layout_.col_add_sign.data();
    spmv_.data = reinterpret_cast<const V*>(layout_.data.data());
    spmv_.output_hash = layout_.output_hash.data();
    spmv_.slot_last_round = layout_.slot_last_round.data();
    spmv_.partials = partials_.data();
    spmv_.ticket = ticket_.data();
    spmv_.last_ticket = last_ticket();
    spmv_.cols = layout_.cols;
    spmv_.block_cols = layout_.block_cols;
    spmv_.warp_row_length = layout_.warp_row_length;

    combine_.combine_rows = layout_.combine_rows.data();
    combine_.combine_begin = layout_.combine_begin.data();
    combine_.combine_partials = layout_.combine_partials.data();
    combine_.partials = partials_.data();
    combine_.count = static_cast<std::int32_t>(layout_.combine_row_count);
    combine_.warp_partials = p.combine_warp_partials;
    cudaFuncAttributes combine_attributes{};
    TCSPARSE_CUDA_CHECK(cudaFuncGetAttributes(&combine_attributes, &device::combine_kernel<V>));
    combine_dependent_ = arch::runs_sm90_code(combine_attributes);

    if (!plan_to_caller_.empty())
      plan_x_ = DeviceBuffer<Value>(plan_to_caller_.size());
    stats_.device_bytes = layout_.plan_bytes(sizeof(Acc)) + plan_to_caller_.bytes() +
                          plan_x_.bytes();
    stats_.stored_values = layout_.nnz;
    stats_.padding_ratio = 0.0;
    stats_.details = std::move(statistics);
    stats_.details["build"] = std::string(to_string(p.build));
    stats_.details["kernel"] = std::string(to_string(kind_));
    stats_.details["groups_per_ticket"] = groups_per_ticket_;
    if (kind_ == Kernel::groups) {
      stats_.details["fixed_group_share"] = p.fixed_group_share;
      stats_.details["fixed_groups"] = fixed_groups();
    }
    stats_.details["threads_per_block"] = threads_;
    stats_.details["grid"] = schedule_.grid;
    stats_.details["fixed_tasks"] = schedule_.fixed_tasks;
    stats_.details["shared_memory_bytes"] = shared_bytes_;
    stats_.details["blocks_per_sm"] = blocks_per_sm_;
    stats_.details["walk_unroll"] = p.walk_unroll;
    stats_.details["combine_warp_partials"] = p.combine_warp_partials;
    stats_.details["combine_by_warps"] = schedule_.combine_by_warps;
    stats_.details["combine_dependent_launch"] = combine_dependent_;
    if (kind_ == Kernel::tasks)
      stats_.details["fixed_share"] = p.resolved_fixed_share(layout_.block_cols, sizeof(V));
    stats_.details["max_slot_length"] = p.max_slot_length;
    stats_.details["update_values"] = p.update_values ? "on" : "off";
    stats_.details["slot_output"] =
        layout_.output_hash.empty() && layout_.slots > 0 ? "partial" : "hash";
    stats_.details["column_order"] = plan_to_caller_.empty() ? "caller" : "hubs_first";
    if (!plan_to_caller_.empty())
      stats_.details["hub_min_count"] = p.resolved_hub_min_count(layout_.nnz, layout_.cols);
    if (parameters_.counts_columns(layout_.nnz) && column_concentration_ >= 0.0)
      stats_.details["column_count_concentration"] = column_concentration_;
    stats_.details["parameters"] = std::move(parameters);
  }

  void launch_spmv(const V* x, V* y, Acc alpha, Acc beta, cudaStream_t stream) const {
    if (spmv_.task_count == 0) return;  // no nonzeros: no task and no group
    kernel_<<<static_cast<unsigned>(schedule_.grid), static_cast<unsigned>(threads_), shared_bytes_,
              stream>>>(spmv_, x, y, alpha, beta);
    TCSPARSE_CUDA_CHECK_LAUNCH();
  }

  void launch_combine(V* y, Acc alpha, Acc beta, cudaStream_t stream) const {
    if (combine_.count == 0) return;
    if (schedule_.combine_by_warps) {  // a warp a row (count <= combine_warp_rows)
      const auto blocks = (combine_.count + kCombineWarpsPerBlock - 1) / kCombineWarpsPerBlock;
      TCSPARSE_CUDA_CHECK(arch::launch_dependent(
          combine_dependent_, &device::combine_by_warps_kernel<V>, static_cast<unsigned>(blocks),
          kCombineThreads, stream, combine_, y, alpha, beta));
      return;
    }
    const auto blocks = std::min<std::int64_t>(
        (combine_.count + kCombineThreads - 1) / kCombineThreads, kCombineMaxBlocks);
    TCSPARSE_CUDA_CHECK(arch::launch_dependent(combine_dependent_, &device::combine_kernel<V>,
                                               static_cast<unsigned>(blocks), kCombineThreads,
                                               stream, combine_, y, alpha, beta));
  }

  /// kernel=groups: the groups of the fixed rounds (each warp one run of groups_per_ticket a round).
  std::int64_t fixed_groups() const {
    return static_cast<std::int64_t>(schedule_.fixed_rounds) * schedule_.grid *
           parameters_.warps_per_block * groups_per_ticket_;
  }

  /// The SpMV kernel's last ticket (SpmvArguments::last_ticket): its tickets with work, then one
  /// past the work for each taker (a warp of kernel=groups, a thread block of kernel=tasks).
  unsigned last_ticket() const {
    if (kind_ == Kernel::groups) {
      const std::int64_t ticketed = layout_.groups - fixed_groups();
      const std::int64_t tickets = (ticketed + groups_per_ticket_ - 1) / groups_per_ticket_;
      return static_cast<unsigned>(tickets + schedule_.grid * parameters_.warps_per_block - 1);
    }
    return static_cast<unsigned>(layout_.tasks - schedule_.fixed_tasks + schedule_.grid - 1);
  }

  /// The x segment's shared memory (let the kernel use the device's opt-in limit; none when
  /// the blocks are too wide for any task to stage its segment, task_shares_x), the resident
  /// blocks and the persistent grid with its fixed part.
  void prepare_launch() {
    const DeviceLayout<Value>& layout = layout_;
    threads_ = parameters_.warps_per_block * arch::kWarpSize;
    const std::int64_t segment_values =
        std::min<std::int64_t>(layout.block_cols, std::max<std::int64_t>(layout.cols, 1));
    const bool segments_in_shared_memory =
        kind_ == Kernel::tasks && segment_fits_shared_memory(layout.block_cols, sizeof(V));
    shared_bytes_ = segments_in_shared_memory
                        ? (static_cast<std::size_t>(segment_values) * sizeof(V) + 15) / 16 * 16
                        : 0;
    const SpmvKernel kernel = kernel_;
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
    if (kind_ == Kernel::groups) {  // a persistent grid of warps taking runs of groups
      schedule_.grid = std::max<std::int64_t>(1, sm_count * blocks_per_sm_);
      schedule_.fixed_tasks = 0;
      const std::int64_t warps = schedule_.grid * parameters_.warps_per_block;
      groups_per_ticket_ =
          parameters_.groups_per_ticket > 0
              ? parameters_.groups_per_ticket
              : static_cast<std::int32_t>(std::clamp<std::int64_t>(
                    (layout.groups + warps * kTicketsPerWarp - 1) / (warps * kTicketsPerWarp), 1,
                    kLargestGroupsPerTicket));
      // whole rounds of W tickets, each with work: at most the share of the groups
      schedule_.fixed_rounds = static_cast<std::int32_t>(
          std::floor(parameters_.fixed_group_share * static_cast<double>(layout.groups) /
                     static_cast<double>(warps * groups_per_ticket_)));
      // with fixed rounds, the instantiation that holds the round counter; the grid stays the
      // plain kernel's (at a larger cap, kGroupsMaxRegisters, fewer of its blocks may fit an SM:
      // the rest start later, no warp waits for another)
      kernel_ = groups_kernel_for(parameters_.walk_unroll, schedule_.fixed_rounds > 0);
    } else {
      schedule_ = make_schedule(layout.tasks, sm_count * blocks_per_sm_,
                                parameters_.resolved_fixed_share(layout.block_cols, sizeof(V)));
    }
    schedule_.combine_warp_partials = parameters_.combine_warp_partials;
    schedule_.combine_by_warps = parameters_.combines_by_warps(layout.combine_row_count);
  }

  HbpParameters parameters_;
  Kernel kind_ = Kernel::tasks;
  SpmvKernel kernel_ = nullptr;
  std::int32_t groups_per_ticket_ = 1;
  PlanStats stats_;
  Schedule schedule_;
  /// The combine kernels are programmatic dependent launches (they run sm_90 code).
  bool combine_dependent_ = false;
  int threads_ = 0;
  int blocks_per_sm_ = 0;
  std::size_t shared_bytes_ = 0;
  DeviceLayout<Value> layout_;
  DeviceBuffer<Acc> partials_;
  DeviceBuffer<unsigned> ticket_;
  /// column_order=hubs_first: the caller's column at each plan column, and x in that order (the
  /// plan's own, written by each apply); empty in the caller's order.
  DeviceBuffer<std::int32_t> plan_to_caller_;
  mutable DeviceBuffer<Value> plan_x_;
  /// column_count_concentration, where column_order=auto measured it (else -1).
  double column_concentration_ = -1.0;
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

template <typename Value>
std::unique_ptr<detail::SpmvMethod<Value>> make_spmv_from_device(
    const DeviceCsrView<Value>& matrix, const detail::ParameterValues& parameters) {
  const HbpParameters p = hbp_parameters(parameters);
  if (p.build == Build::host)  // the host build needs the CSR on the host: one round trip
    return make_spmv(detail::download_device_csr(matrix), parameters);
  return std::make_unique<HbpSpmv<Value>>(matrix, p, parameters.to_json());
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

template <typename Value>
HbpLayout<Value> build_on_device(const CsrMatrix<Value, std::int32_t>& matrix,
                                 const HbpParameters& p) {
  PlanStats stats;
  const detail::DeviceCsr<Value> csr = detail::upload_csr(matrix, stats);
  DeviceLayout<Value> layout = build_layout_on_device(
      csr.view(), p, block_cols_on_this_gpu(p, sizeof(Value), matrix.cols, false), nullptr);
  if (p.slot_output == SlotOutput::partial && layout.slots > 0)
    give_every_slot_a_partial_on_device(layout, nullptr);
  return download_layout(layout);
}

}  // namespace testing

#define TCSPARSE_HBP_INSTANTIATE(Value)                                                         \
  template std::unique_ptr<detail::SpmvMethod<Value>> make_spmv(                                \
      const CsrMatrix<Value, std::int32_t>&, const detail::ParameterValues&);                   \
  template std::unique_ptr<detail::SpmvMethod<Value>> make_spmv_from_device(                    \
      const DeviceCsrView<Value>&, const detail::ParameterValues&);                             \
  template testing::PartTimes testing::time_parts(const detail::SpmvMethod<Value>&,             \
                                                  const Value*, Value*, int);                   \
  template Schedule testing::launch_schedule(const detail::SpmvMethod<Value>&);                  \
  template HbpLayout<Value> testing::build_on_device(const CsrMatrix<Value, std::int32_t>&,     \
                                                     const HbpParameters&);
TCSPARSE_FOR_EACH_VALUE(TCSPARSE_HBP_INSTANTIATE)
#undef TCSPARSE_HBP_INSTANTIATE

}  // namespace tcsparse::hbp
