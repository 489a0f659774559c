// TCA-SpMM kernels: C = alpha * A * B + beta * C, fp16 / bf16, fp32 accumulate. kernel=paper
// (below, the paper's design, A in CSR as given), kernel=rows (tca_rows_kernel.cuh, CSR as given)
// or kernel=tiles (tca_tiles_kernel.cuh, A as 16 x 16 tiles of m16n8k16 fragment register pairs);
// tca_parameters.hpp chooses.
//
// kernel=paper:
// One thread block = 8 warps = 8 / W row groups of W warps (tca_format.hpp). Per output tile of
// kTileWidth columns and per chunk of 8 * W nonzeros of its row, a row group stages in shared
// memory (Algorithm 2 lines 16-20, Section 4.2.1):
//
//   sparse[g][k]      = value of nonzero k of the chunk (0 past the row)      8W values
//   columns[g][k]     = its column index                                       8W indices
//   rhs[g][c][k]      = B[columns[k]][tile + c]   (the compressed RHS buffer)  kTileWidth x 8W
//
// and each warp w of the group does the tile's MMAs q = w, w + W, ... (kTileWidth / 16 of them):
//
//   A (16 x 8, m16n8k8 left)  : A[m][k]  = rhs[g][q*G + m / s][(m % s) * 8 + k]   (s = W, G = 16/s)
//   B (8 x 8,  m16n8k8 right) : S[k][j]  = sparse[g][j * 8 + k] for j < s, else 0
//   D = A * S (fp32): output column q*G + i of the row = trace of the s x s diagonal block i,
//   sum_d D[i*s + d][d] (Figure 2b; Equation 2: 16 / s outputs per MMA).
//
// Long rows (> 64 nonzeros, W = 8) accumulate D over all their 64-nonzero chunks before the
// trace; each of their blocks owns a slice of the columns (Algorithm 3). The traces go to the
// output buffer in shared memory (Algorithm 3 lines 19-27) and the group writes the tile's
// outputs with consecutive threads on consecutive columns. Every warp of a block runs the same
// tile and chunk loops (blocks hold one row class), so the __syncthreads are uniform; idle slots
// (row -1) stage zeros and write nothing.
#include "tca/tca.hpp"

#include <cuda_bf16.h>
#include <cuda_fp16.h>
#include <cuda_runtime_api.h>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <limits>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "arch/mma.cuh"
#include "arch/types.cuh"
#include "common/align.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_algorithms.cuh"
#include "runtime/device_buffer.hpp"
#include "runtime/device_csr.hpp"
#include "runtime/device_csr_view.hpp"
#include "tca/tca_format.hpp"
#include "tca/tca_panels_format.hpp"
#include "tca/tca_panels_kernel.cuh"
#include "tca/tca_parameters.hpp"
#include "tca/tca_rows_kernel.cuh"
#include "tca/tca_tiles_format.hpp"
#include "tca/tca_tiles_kernel.cuh"
#include "tcsparse/error.hpp"

namespace tcsparse::tca {

namespace {

constexpr int kThreadsPerBlock = kWarpsPerBlock * 32;
constexpr std::int64_t kMaxGridY = 65535;
constexpr int kMmasPerWarp = kTileWidth / kMmaRows;  ///< per tile and chunk, in every class
constexpr int kAccumulatorElements = kMmaRows * 8;   ///< one 16 x 8 fp32 D fragment

/// Two 16-bit elements at an even index of a shared array as one 32-bit mma operand register.
__device__ __forceinline__ unsigned pair_at(const std::uint16_t* array, int even_index) {
  return *reinterpret_cast<const unsigned*>(array + even_index);
}

template <typename V, typename Out>
__device__ __forceinline__ Out from_fp32(float value) {
  if constexpr (std::is_same_v<Out, float>) return value;
  else return arch::ValueTraits<V>::from_acc(value);
}
template <typename V, typename Out>
__device__ __forceinline__ float to_fp32(Out value) {
  if constexpr (std::is_same_v<Out, float>) return value;
  else return arch::ValueTraits<V>::to_acc(value);
}

/// V: __half or __nv_bfloat16 (the mma type); Out: V or float; kRowMajor: B and C layout.
/// Values and B are read as their 16-bit patterns (zero bits are +0 in both types).
template <typename V, typename Out, bool kRowMajor>
__global__ void __launch_bounds__(kThreadsPerBlock)
    tca_spmm_kernel(const TcaBlock* __restrict__ blocks,
                    const std::int32_t* __restrict__ rows_of_slot,
                    const std::int32_t* __restrict__ row_ptr,
                    const std::int32_t* __restrict__ col_idx,
                    const std::uint16_t* __restrict__ values, const std::uint16_t* __restrict__ B,
                    Out* __restrict__ C, std::int64_t rows, std::int64_t cols, std::int64_t n,
                    float alpha, float beta) {
  __shared__ __align__(16) std::uint16_t rhs[kTileWidth * kNonzerosPerMma];
  __shared__ __align__(16) std::uint16_t sparse[kNonzerosPerMma];
  __shared__ std::int32_t columns[kNonzerosPerMma];
  __shared__ float scratch[kWarpsPerBlock][kAccumulatorElements];
  __shared__ float output_buffer[kWarpsPerBlock * kTileWidth];

  const TcaBlock block = blocks[blockIdx.x];
  const int W = block.warps_per_row;  // warps per row = segments per MMA (s)
  const int s = W, G = kMmaRows / s, chunk_width = kNonzerosPerSegment * W;
  const int warp = static_cast<int>(threadIdx.x) / 32, lane = static_cast<int>(threadIdx.x) % 32;
  const int g = warp / W, w = warp % W;             // row group, warp within it
  const int thread_in_group = w * 32 + lane, group_threads = 32 * W;
  const int lane_group = lane / 4, lane_pair = 2 * (lane % 4);  // mma fragment coordinates

  const std::int32_t row = rows_of_slot[block.first_slot + g];
  const std::int64_t row_begin = row >= 0 ? row_ptr[row] : 0;
  const std::int64_t row_end = row >= 0 ? row_ptr[row + 1] : 0;
  // Block-uniform: W = 8 blocks hold one row (all groups share it); shorter rows fit one chunk.
  const std::int64_t chunks =
      W == kWarpsPerBlock && row_end > row_begin
          ? (row_end - row_begin + chunk_width - 1) / chunk_width
          : std::int64_t{1};

  std::uint16_t* group_rhs = rhs + g * kTileWidth * chunk_width;
  std::uint16_t* group_sparse = sparse + g * chunk_width;
  std::int32_t* group_columns = columns + g * chunk_width;
  float* group_output = output_buffer + g * kTileWidth;
  float* warp_scratch = scratch[warp];

  for (std::int64_t tile = block.col_begin; tile < block.col_end; tile += kTileWidth) {
    float accumulators[kMmasPerWarp][arch::kM16n8k8AccumulatorsPerLane] = {};
    for (std::int64_t chunk = 0; chunk < chunks; ++chunk) {
      __syncthreads();  // the previous chunk's readers of sparse / columns / rhs are done
      for (int k = thread_in_group; k < chunk_width; k += group_threads) {
        const std::int64_t nz = row_begin + chunk * chunk_width + k;
        const bool present = nz < row_end;
        group_sparse[k] = present ? values[nz] : std::uint16_t{0};
        group_columns[k] = present ? col_idx[nz] : -1;
      }
      __syncthreads();
      // The compressed RHS buffer; consecutive threads on consecutive columns of B (row-major
      // B: contiguous) or consecutive nonzeros (column-major B: a gather either way).
      for (int index = thread_in_group; index < kTileWidth * chunk_width;
           index += group_threads) {
        const int c = kRowMajor ? index % kTileWidth : index / chunk_width;
        const int k = kRowMajor ? index / kTileWidth : index % chunk_width;
        const std::int64_t column = tile + c;
        const std::int32_t b_row = group_columns[k];
        std::uint16_t value = 0;
        if (b_row >= 0 && column < block.col_end)
          value = kRowMajor ? B[b_row * n + column] : B[column * cols + b_row];
        group_rhs[c * chunk_width + k] = value;
      }
      __syncthreads();
      const unsigned b01 =
          lane_group < s ? pair_at(group_sparse, lane_group * kNonzerosPerSegment + lane_pair)
                         : 0u;
#pragma unroll
      for (int i = 0; i < kMmasPerWarp; ++i) {
        const int c0 = (w + i * W) * G;
        const int m_low = lane_group, m_high = lane_group + 8;
        const unsigned a01 = pair_at(
            group_rhs, (c0 + m_low / s) * chunk_width + (m_low % s) * kNonzerosPerSegment + lane_pair);
        const unsigned a23 = pair_at(
            group_rhs, (c0 + m_high / s) * chunk_width + (m_high % s) * kNonzerosPerSegment + lane_pair);
        arch::mma_m16n8k8<V>(accumulators[i], a01, a23, b01);
      }
    }
    // Trace of the s x s diagonal blocks through the warp's scratch (D in row-major 16 x 8).
#pragma unroll
    for (int i = 0; i < kMmasPerWarp; ++i) {
      const int c0 = (w + i * W) * G;
      warp_scratch[lane_group * 8 + lane_pair] = accumulators[i][0];
      warp_scratch[lane_group * 8 + lane_pair + 1] = accumulators[i][1];
      warp_scratch[(lane_group + 8) * 8 + lane_pair] = accumulators[i][2];
      warp_scratch[(lane_group + 8) * 8 + lane_pair + 1] = accumulators[i][3];
      __syncwarp();
      if (lane < G) {
        float sum = 0.0f;
        for (int d = 0; d < s; ++d) sum += warp_scratch[(lane * s + d) * 8 + d];
        group_output[c0 + lane] = sum;
      }
      __syncwarp();
    }
    __syncthreads();
    if (row >= 0) {
      for (int c = thread_in_group; c < kTileWidth; c += group_threads) {
        const std::int64_t column = tile + c;
        if (column >= block.col_end) continue;
        Out& out = kRowMajor ? C[row * n + column] : C[column * rows + row];
        const float product = alpha * group_output[c];
        out = from_fp32<V, Out>(beta == 0.0f ? product : product + beta * to_fp32<V, Out>(out));
      }
    }
  }
}

/// kernel=panels' layout (tca_panels_format.hpp) from a CSR on the device into `offsets`
/// (chunks * rows + 1) and `words` (nnz), on the scratch's stream: the count and start of each
/// (chunk, row) by binary search, their scan, each nonzero to its word.
template <typename Value>
void build_panels_on_device(const DeviceCsrView<Value>& csr, std::int64_t panel_columns,
                            std::int64_t chunks, std::int32_t* offsets, std::uint32_t* words,
                            detail::DeviceScratch& scratch) {
  using V = arch::device_value_t<Value>;
  const cudaStream_t stream = scratch.stream();
  const std::int64_t entries = chunks * csr.rows + 1;
  auto counts =
      detail::DeviceBuffer<std::int32_t>::on_stream(static_cast<std::size_t>(entries), stream);
  auto row_chunk_begin =
      detail::DeviceBuffer<std::int32_t>::on_stream(static_cast<std::size_t>(entries), stream);
  TCSPARSE_CUDA_CHECK(
      cudaMemsetAsync(counts.data() + entries - 1, 0, sizeof(std::int32_t), stream));
  constexpr int kThreads = 256;
  const auto blocks_for = [](std::int64_t threads) {
    return static_cast<unsigned>((threads + kThreads - 1) / kThreads);
  };
  if (entries > 1) {
    device::panels_count_kernel<<<blocks_for(entries - 1), kThreads, 0, stream>>>(
        csr.row_ptr, csr.col_idx, csr.rows, chunks, panel_columns, counts.data(),
        row_chunk_begin.data());
    TCSPARSE_CUDA_CHECK_LAUNCH();
  }
  detail::exclusive_sum(scratch, counts.data(), offsets, entries, "(chunk, row) offsets");
  if (csr.nnz > 0) {
    device::panels_scatter_kernel<V><<<blocks_for(csr.rows * 32), kThreads, 0, stream>>>(
        csr.row_ptr, csr.col_idx, reinterpret_cast<const std::uint16_t*>(csr.values), csr.rows,
        panel_columns, offsets, row_chunk_begin.data(), words);
    TCSPARSE_CUDA_CHECK_LAUNCH();
  }
}

template <typename Value>
class TcaSpmm final : public detail::SpmmMethod<Value> {
  using V = arch::device_value_t<Value>;

 public:
  TcaSpmm(const CsrMatrix<Value, std::int32_t>& matrix, std::int64_t n, const SpmmLayout& layout,
          const TcaParameters& parameters)
      : n_(n), layout_(layout), parameters_(parameters) {
    const auto start = std::chrono::steady_clock::now();
    if (parameters_.kernel_is_auto) {
      const std::int64_t stored_tiles = count_stored_tiles(
          matrix.rows, matrix.cols, matrix.row_ptr.data(), matrix.col_idx.data());
      parameters_.kernel =
          resolve_auto_kernel(matrix.nnz(), stored_tiles,
                              tiles_segment_slots(matrix.rows, matrix.cols), n_, layout_.dense);
      stats_.details["auto_nonzeros_per_tile"] =
          stored_tiles > 0
              ? static_cast<double>(matrix.nnz()) / static_cast<double>(stored_tiles)
              : 0.0;
    }
    if (parameters_.kernel == TcaKernel::tiles) {
      plan_tiles(matrix, start);
      return;
    }
    if (parameters_.kernel == TcaKernel::panels) {
      stats_.host_preprocess_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      const detail::DeviceCsr<Value> csr = detail::upload_csr(matrix, stats_);
      plan_panels(csr.view());
      return;
    }
    TcaLayout work;
    if (parameters_.kernel == TcaKernel::paper) work = build_tca_layout(matrix, n);
    stats_.host_preprocess_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    matrix_ = detail::upload_csr(matrix, stats_);
    if (parameters_.kernel == TcaKernel::paper) {
      block_count_ = static_cast<std::int64_t>(work.blocks.size());
      if (block_count_ > 0) {
        blocks_ = detail::DeviceBuffer<TcaBlock>(std::span<const TcaBlock>(work.blocks));
        rows_of_slot_ = detail::DeviceBuffer<std::int32_t>(work.rows_of_slot);
      }
      stats_.details = layout_details(work);
    } else if (parameters_.column_index_bits == 16) {
      narrow_column_indices();
    }
    stats_.stored_values = matrix_.nnz;
    stats_.padding_ratio = 0.0;
    stats_.device_bytes =
        matrix_.bytes() + narrow_columns_.bytes() + blocks_.bytes() + rows_of_slot_.bytes();
    stats_.details["kernel"] = kernel_name(parameters_.kernel);
    stats_.details["column_index_bits"] = parameters_.column_index_bits;
    if (parameters_.kernel == TcaKernel::rows)  // 2 when B is also 16-byte aligned at apply
      stats_.details["lanes_per_nonzero"] =
          layout_.dense == DenseLayout::row_major && n_ > 8 && n_ % 8 == 0 &&
                  parameters_.lanes_per_nonzero != 1
              ? 2
              : 1;
    stats_.details["layout"] = std::string(to_string(layout_.dense));
    stats_.details["output"] = std::string(to_string(layout_.output));
  }

  void apply(const Value* B, void* C, scalar_t<Value> alpha, scalar_t<Value> beta,
             Stream stream) const override {
    const std::int64_t rows = parameters_.kernel == TcaKernel::tiles    ? tiles_.rows
                              : parameters_.kernel == TcaKernel::panels ? panels_.rows
                                                                        : matrix_.rows;
    if (rows == 0 || n_ == 0) return;  // no C
    if (layout_.output == SpmmOutput::fp32)
      launch(B, static_cast<float*>(C), alpha, beta, stream);
    else
      launch(B, static_cast<V*>(C), alpha, beta, stream);
  }

  const PlanStats& stats() const override { return stats_; }
  bool can_update_values() const override {
    return parameters_.kernel != TcaKernel::tiles && parameters_.kernel != TcaKernel::panels;
  }
  std::string values_fixed_because() const override {
    return parameters_.kernel == TcaKernel::tiles
               ? "kernel=tiles stores the values tile by tile in fragment order (build a new "
                 "plan, or use kernel=rows)"
               : "kernel=panels stores the values panel by panel beside their columns (build a "
                 "new plan, or use kernel=rows)";
  }
  void update_values(const Value* values, Stream stream) override {
    detail::replace_values_async(matrix_, values, stream);
  }

 private:
  /// The rows kernel's 16-bit column indices, made on the GPU from the uploaded 32-bit ones,
  /// which are then freed.
  void narrow_column_indices() {
    narrow_columns_ = detail::DeviceBuffer<std::uint16_t>(matrix_.col_idx.size());
    if (matrix_.nnz > 0) {
      device::narrow_column_indices_kernel<<<256, 256>>>(matrix_.col_idx.data(),
                                                         narrow_columns_.data(), matrix_.nnz);
      TCSPARSE_CUDA_CHECK_LAUNCH();
      TCSPARSE_CUDA_CHECK(cudaDeviceSynchronize());
    }
    matrix_.col_idx = detail::DeviceBuffer<std::int32_t>();
  }

  /// kernel=tiles: the tile layout built on the host and uploaded; the kernel instantiation, its
  /// shared memory and the split-K buffers fixed here, so that apply only launches.
  void plan_tiles(const CsrMatrix<Value, std::int32_t>& matrix,
                  std::chrono::steady_clock::time_point start) {
    const auto multiprocessors =
        static_cast<int>(detail::current_device_attribute(cudaDevAttrMultiProcessorCount));
    const TilesShape shape = choose_tiles_shape(matrix.rows, matrix.cols, n_, layout_.dense,
                                                multiprocessors, parameters_.chunk_columns);
    const TileLayout tiles = build_tile_layout(matrix, shape);
    const auto built = std::chrono::steady_clock::now();
    stats_.host_preprocess_ms = std::chrono::duration<double, std::milli>(built - start).count();
    tiles_.shape = shape;
    tiles_.rows = matrix.rows;
    tiles_.cols = matrix.cols;
    const std::int64_t longest_run = tiles_longest_run_words(tiles);
    tiles_.run_stage_words =
        device::tiles_stages_whole_runs(shape.slice_columns / 8)
            ? tiles_run_stage_words(longest_run, run_stage_budget_bytes())
            : kSegmentMaskWords;
    // One allocation and one synchronisation for every array (on a matrix of a few thousand
    // nonzeros each cudaMalloc and each synchronous copy costs about what its kernel does), each
    // array at a multiple of cudaMalloc's alignment.
    constexpr std::size_t kArrayAlignBytes = 256;
    const std::size_t arrivals =
        shape.chunks > 1
            ? static_cast<std::size_t>(shape.row_blocks * std::max<std::int64_t>(shape.slices, 1))
            : 0;
    const std::size_t partials =
        shape.chunks > 1 ? static_cast<std::size_t>(shape.partial_bytes / 4) : 0;
    const auto at = [](std::size_t bytes) { return detail::align_up(bytes, kArrayAlignBytes); };
    const std::size_t words_at = at(tiles.segment_word_begin.size() * sizeof(std::int32_t));
    const std::size_t partials_at = words_at + at(tiles.words.size() * sizeof(std::uint32_t));
    const std::size_t arrivals_at = partials_at + at(partials * sizeof(float));
    tiles_.storage = detail::DeviceBuffer<std::byte>(arrivals_at + arrivals * sizeof(unsigned));
    std::byte* base = tiles_.storage.data();
    tiles_.segment_word_begin = reinterpret_cast<std::int32_t*>(base);
    tiles_.words = reinterpret_cast<std::uint32_t*>(base + words_at);
    tiles_.partials = partials ? reinterpret_cast<float*>(base + partials_at) : nullptr;
    tiles_.arrivals = arrivals ? reinterpret_cast<unsigned*>(base + arrivals_at) : nullptr;
    const auto copy = [&](std::size_t offset, const auto& from) {
      if (!from.empty())
        TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(base + offset, from.data(),
                                            from.size() * sizeof(from[0]),
                                            cudaMemcpyHostToDevice, cudaStreamLegacy));
    };
    copy(0, tiles.segment_word_begin);
    copy(words_at, tiles.words);
    if (arrivals)
      TCSPARSE_CUDA_CHECK(
          cudaMemsetAsync(tiles_.arrivals, 0, arrivals * sizeof(unsigned), cudaStreamLegacy));
    TCSPARSE_CUDA_CHECK(cudaDeviceSynchronize());
    stats_.upload_ms = std::chrono::duration<double, std::milli>(
                           std::chrono::steady_clock::now() - built).count();
    if (layout_.output == SpmmOutput::fp32) allow_tiles_shared_memory<float>();
    else allow_tiles_shared_memory<V>();
    stats_.stored_values = matrix.nnz();
    stats_.padding_ratio = 0.0;
    stats_.device_bytes = static_cast<std::int64_t>(tiles_.storage.bytes());
    const Json details = tiles_details(tiles);
    for (const auto& [key, value] : details.items()) stats_.details[key] = value;
    stats_.details["longest_run_words"] = longest_run;
    stats_.details["run_stage_words"] = tiles_.run_stage_words;
    stats_.details["kernel"] = kernel_name(parameters_.kernel);
    stats_.details["layout"] = std::string(to_string(layout_.dense));
    stats_.details["output"] = std::string(to_string(layout_.output));
  }

  /// kernel=panels: the layout built on the GPU from `csr` (tca_panels_kernel.cuh), the panel
  /// height, the shared memory of a block and the split-K buffers fixed here, so that apply only
  /// launches. The CSR is not kept.
  void plan_panels(const DeviceCsrView<Value>& csr) {
    const cudaStream_t stream = nullptr;
    detail::CudaEvent built_start, built_stop;
    built_start.record(stream);
    PanelsPlan& p = panels_;
    p.rows = csr.rows;
    p.cols = csr.cols;
    p.panel_columns = parameters_.panel_columns;
    p.chunks = panel_chunks(csr.cols, p.panel_columns);
    p.slice_columns = panels_slice_columns(n_);
    p.slices = (n_ + p.slice_columns - 1) / p.slice_columns;
    if (p.slices > kMaxGridY)
      throw UnsupportedError("tca kernel=panels: n = " + std::to_string(n_) + " needs " +
                             std::to_string(p.slices) + " slices of " +
                             std::to_string(p.slice_columns) + " columns, more than a grid's " +
                             std::to_string(kMaxGridY) + " (use kernel=tiles)");
    const std::int64_t entries = p.chunks * p.rows + 1;
    if (entries > std::numeric_limits<std::int32_t>::max())
      throw IndexOverflowError("tca kernel=panels: " + std::to_string(entries) +
                               " (chunk, row) offsets exceed 32-bit indices (raise "
                               "panel_columns)");
    // B's stage holds the chunk's rows (no more than the matrix has columns).
    p.stage_rows = std::max<std::int64_t>(1, std::min(p.panel_columns, p.cols));
    const std::int64_t stage_bytes = p.stage_rows * p.slice_columns * 2;
    const auto attribute = [](cudaDeviceAttr which) {
      return std::int64_t{detail::current_device_attribute(which)};
    };
    const auto offsets_bytes = [](std::int64_t panel_rows) {
      return (panel_rows + 1 + 3) / 4 * 16;
    };
    // kPanelsBlocksPerSm blocks an SM, or fewer where B's stage leaves them no room for words
    // (panels of 4096 columns: a 128 KiB stage at 16 columns)
    std::int64_t per_block = 0;
    for (int blocks = kPanelsBlocksPerSm; blocks >= 1; --blocks) {
      per_block =
          std::min(attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor) / blocks -
                       attribute(cudaDevAttrReservedSharedMemoryPerBlock),
                   attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin));
      if (per_block - stage_bytes - offsets_bytes(kPanelsMaxRows) >= kPanelsMinWordStageBytes)
        break;
    }
    const std::int64_t word_budget =
        std::max<std::int64_t>(0, per_block - stage_bytes - offsets_bytes(kPanelsMaxRows)) / 16 *
        4;
    p.panel_rows =
        parameters_.panel_rows > 0
            ? parameters_.panel_rows
            : choose_panel_rows(p.rows, p.chunks, p.slices, csr.nnz, word_budget,
                                static_cast<int>(
                                    attribute(cudaDevAttrMultiProcessorCount)));
    p.row_groups = (p.rows + p.panel_rows - 1) / p.panel_rows;

    // One allocation for the arrays an apply reads and writes (each at a 256-byte boundary).
    constexpr std::size_t kArrayAlignBytes = 256;
    const auto at = [](std::size_t bytes) { return detail::align_up(bytes, kArrayAlignBytes); };
    const bool split = p.chunks > 1;
    const std::size_t partials =
        split ? static_cast<std::size_t>(p.slices * p.chunks * p.rows * p.slice_columns) : 0;
    if (static_cast<std::int64_t>(partials * sizeof(float)) > kTilesMaxPartialBytes)
      throw UnsupportedError("tca kernel=panels: split-K partial sums of " +
                             std::to_string(partials * sizeof(float)) +
                             " bytes exceed the plan's bound of " +
                             std::to_string(kTilesMaxPartialBytes) +
                             " (raise panel_columns, or use kernel=tiles)");
    const std::size_t arrivals = split ? static_cast<std::size_t>(p.slices * p.row_groups) : 0;
    const std::size_t words_at = at(static_cast<std::size_t>(entries) * sizeof(std::int32_t));
    const std::size_t partials_at =
        words_at + at(static_cast<std::size_t>(csr.nnz) * sizeof(std::uint32_t));
    const std::size_t arrivals_at = partials_at + at(partials * sizeof(float));
    p.storage = detail::DeviceBuffer<std::byte>(arrivals_at + arrivals * sizeof(unsigned));
    std::byte* base = p.storage.data();
    auto* offsets = reinterpret_cast<std::int32_t*>(base);
    auto* words = reinterpret_cast<std::uint32_t*>(base + words_at);
    p.offsets = offsets;
    p.words = words;
    p.partials = partials ? reinterpret_cast<float*>(base + partials_at) : nullptr;
    p.arrivals = arrivals ? reinterpret_cast<unsigned*>(base + arrivals_at) : nullptr;
    if (arrivals)
      TCSPARSE_CUDA_CHECK(cudaMemsetAsync(p.arrivals, 0, arrivals * sizeof(unsigned), stream));

    detail::DeviceScratch scratch(stream);
    build_panels_on_device(csr, p.panel_columns, p.chunks, offsets, words, scratch);
    // The longest panel sizes the words' stage (a panel starts up to 3 words before its first
    // word: the copies' 16-byte alignment).
    std::int64_t longest = 0;
    if (p.rows > 0) {
      const std::int64_t panels = p.row_groups * p.chunks;
      auto panel_words =
          detail::DeviceBuffer<std::int32_t>::on_stream(static_cast<std::size_t>(panels), stream);
      device::panels_words_kernel<<<static_cast<unsigned>((panels + 255) / 256), 256, 0,
                                    stream>>>(offsets, p.rows, p.chunks, p.panel_rows,
                                              panel_words.data());
      TCSPARSE_CUDA_CHECK_LAUNCH();
      longest = detail::reduce_max(scratch, panel_words.data(), panels, "panels");
    }
    built_stop.record(stream);
    built_stop.synchronize();
    stats_.device_preprocess_ms = built_stop.elapsed_ms_since(built_start);
    const std::int64_t budget_after_offsets = std::max<std::int64_t>(
        0, (per_block - stage_bytes - offsets_bytes(p.panel_rows)) / 16 * 4);
    p.word_stage = static_cast<int>(std::min((longest + 3 + 3) / 4 * 4, budget_after_offsets));
    p.shared_bytes = stage_bytes + offsets_bytes(p.panel_rows) + std::int64_t{p.word_stage} * 4;
    if (layout_.output == SpmmOutput::fp32) allow_panels_shared_memory<float>();
    else allow_panels_shared_memory<V>();

    stats_.stored_values = csr.nnz;
    stats_.padding_ratio = 0.0;
    stats_.device_bytes = static_cast<std::int64_t>(p.storage.bytes());
    stats_.details["kernel"] = kernel_name(parameters_.kernel);
    stats_.details["panel_columns"] = p.panel_columns;
    stats_.details["panel_rows"] = p.panel_rows;
    stats_.details["chunks"] = p.chunks;
    stats_.details["slice_columns"] = p.slice_columns;
    stats_.details["slices"] = p.slices;
    stats_.details["longest_panel_words"] = longest;
    stats_.details["word_stage"] = p.word_stage;
    stats_.details["panels_staged"] = longest + 3 <= p.word_stage ? "all" : "those that fit";
    stats_.details["shared_bytes"] = p.shared_bytes;
    stats_.details["layout"] = std::string(to_string(layout_.dense));
    stats_.details["output"] = std::string(to_string(layout_.output));
  }

  template <typename Out>
  using PanelsKernel = void (*)(device::PanelsArguments<Out>);

  template <typename Out>
  PanelsKernel<Out> panels_kernel() const {
    const bool row_major = layout_.dense == DenseLayout::row_major;
    if (panels_.slice_columns == 8)
      return row_major ? device::tca_panels_kernel<V, Out, 8, true>
                       : device::tca_panels_kernel<V, Out, 8, false>;
    return row_major ? device::tca_panels_kernel<V, Out, 16, true>
                     : device::tca_panels_kernel<V, Out, 16, false>;
  }

  template <typename Out>
  void allow_panels_shared_memory() const {
    TCSPARSE_CUDA_CHECK(cudaFuncSetAttribute(panels_kernel<Out>(),
                                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(panels_.shared_bytes)));
  }

  template <typename Out>
  void launch_panels(const Value* B, Out* C, float alpha, float beta, Stream stream) const {
    const PanelsPlan& p = panels_;
    device::PanelsArguments<Out> args;
    args.offsets = p.offsets;
    args.words = p.words;
    args.B = reinterpret_cast<const std::uint16_t*>(B);
    args.C = C;
    args.partials = p.partials;
    args.arrivals = p.arrivals;
    args.rows = p.rows;
    args.cols = p.cols;
    args.n = n_;
    args.chunks = p.chunks;
    args.panel_columns = p.panel_columns;
    args.stage_rows = p.stage_rows;
    args.panel_rows = p.panel_rows;
    args.row_groups = p.row_groups;
    args.word_stage = p.word_stage;
    args.vector_b = layout_.dense == DenseLayout::row_major && n_ % 8 == 0 &&
                    reinterpret_cast<std::uintptr_t>(B) % 16 == 0;
    args.alpha = alpha;
    args.beta = beta;
    const dim3 grid(static_cast<unsigned>(p.row_groups * p.chunks),
                    static_cast<unsigned>(p.slices));
    panels_kernel<Out>()<<<grid, device::kPanelsThreadsPerBlock,
                           static_cast<std::size_t>(p.shared_bytes), stream>>>(args);
    TCSPARSE_CUDA_CHECK_LAUNCH();
  }

  template <typename Out>
  using TilesKernel = void (*)(device::TilesArguments<Out>);

  /// The instantiation for this plan's slice width and layout.
  template <typename Out>
  TilesKernel<Out> tiles_kernel() const {
    const bool row_major = layout_.dense == DenseLayout::row_major;
    switch (tiles_.shape.slice_columns) {
      case 8: return row_major ? device::tca_tiles_kernel<V, Out, 1, true>
                               : device::tca_tiles_kernel<V, Out, 1, false>;
      case 16: return row_major ? device::tca_tiles_kernel<V, Out, 2, true>
                                : device::tca_tiles_kernel<V, Out, 2, false>;
      case 32: return row_major ? device::tca_tiles_kernel<V, Out, 4, true>
                                : device::tca_tiles_kernel<V, Out, 4, false>;
      default: return row_major ? device::tca_tiles_kernel<V, Out, 8, true>
                                : device::tca_tiles_kernel<V, Out, 8, false>;
    }
  }

  /// Two stages of B and the warps' tables (tca_tiles_kernel.cuh): the shared memory of a block
  /// before the runs.
  std::int64_t tiles_fixed_shared_bytes() const {
    return 2 * tiles_.shape.stage_bytes + device::kTilesTableBytes;
  }
  /// ... and with its warps' two stages of runs each.
  std::int64_t tiles_shared_bytes() const {
    return tiles_fixed_shared_bytes() + std::int64_t{2} * kTilesWarpsPerBlock *
                                            tiles_.run_stage_words * sizeof(unsigned);
  }
  /// Shared memory the runs may take so that device::kTilesBlocksPerSm blocks share a
  /// multiprocessor, or fewer where B's stages leave the runs less than their mask words.
  std::int64_t run_stage_budget_bytes() const {
    const auto attribute = [](cudaDeviceAttr which) {
      return std::int64_t{detail::current_device_attribute(which)};
    };
    const std::int64_t per_sm = attribute(cudaDevAttrMaxSharedMemoryPerMultiprocessor);
    const std::int64_t reserved = attribute(cudaDevAttrReservedSharedMemoryPerBlock);
    const std::int64_t per_block = attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
    constexpr std::int64_t kMaskBytes =
        std::int64_t{2} * kTilesWarpsPerBlock * kSegmentMaskWords * sizeof(unsigned);
    std::int64_t budget = 0;
    for (int blocks = device::kTilesBlocksPerSm; blocks >= 1 && budget < kMaskBytes; --blocks)
      budget = std::min(per_sm / blocks - reserved, per_block) - tiles_fixed_shared_bytes();
    return budget;
  }

  template <typename Out>
  void allow_tiles_shared_memory() const {
    TCSPARSE_CUDA_CHECK(cudaFuncSetAttribute(tiles_kernel<Out>(),
                                             cudaFuncAttributeMaxDynamicSharedMemorySize,
                                             static_cast<int>(tiles_shared_bytes())));
  }

  template <typename Out>
  void launch_tiles(const Value* B, Out* C, float alpha, float beta, Stream stream) const {
    const TilesShape& shape = tiles_.shape;
    device::TilesArguments<Out> args;
    args.segment_word_begin = tiles_.segment_word_begin;
    args.words = tiles_.words;
    args.B = reinterpret_cast<const std::uint16_t*>(B);
    args.C = C;
    args.partials = tiles_.partials;
    args.arrivals = tiles_.arrivals;
    args.rows = tiles_.rows;
    args.cols = tiles_.cols;
    args.n = n_;
    args.row_blocks = shape.row_blocks;
    args.segments = shape.segments;
    args.chunks = shape.chunks;
    args.chunk_segments = shape.chunk_segments;
    args.slices = shape.slices;
    args.stage_elements = shape.stage_bytes / 2;
    args.run_stage_words = tiles_.run_stage_words;
    const std::int64_t contiguous = layout_.dense == DenseLayout::row_major ? n_ : tiles_.cols;
    args.vector_b = contiguous % 8 == 0 && reinterpret_cast<std::uintptr_t>(B) % 16 == 0;
    args.alpha = alpha;
    args.beta = beta;
    const auto row_groups = (shape.row_blocks + kTilesWarpsPerBlock - 1) / kTilesWarpsPerBlock;
    const dim3 grid(static_cast<unsigned>(row_groups * shape.chunks),
                    static_cast<unsigned>(shape.slices));
    tiles_kernel<Out>()<<<grid, device::kTilesThreadsPerBlock,
                          static_cast<std::size_t>(tiles_shared_bytes()), stream>>>(args);
    TCSPARSE_CUDA_CHECK_LAUNCH();
  }

  template <typename Out>
  void launch(const Value* B, Out* C, float alpha, float beta, Stream stream) const {
    if (parameters_.kernel == TcaKernel::tiles) {
      launch_tiles(B, C, alpha, beta, stream);
      return;
    }
    if (parameters_.kernel == TcaKernel::panels) {
      launch_panels(B, C, alpha, beta, stream);
      return;
    }
    if (parameters_.kernel == TcaKernel::paper) {
      launch_paper(B, C, alpha, beta, stream);
      return;
    }
    const auto* dense_b = reinterpret_cast<const V*>(B);
    const bool vector_b = layout_.dense == DenseLayout::row_major && n_ % 8 == 0 &&
                          reinterpret_cast<std::uintptr_t>(B) % 16 == 0;
    if (parameters_.column_index_bits == 16)
      launch_rows(narrow_columns_.data(), dense_b, C, vector_b, alpha, beta, stream);
    else
      launch_rows(matrix_.col_idx.data(), dense_b, C, vector_b, alpha, beta, stream);
  }

  template <typename Column, typename Out>
  void launch_rows(const Column* columns, const V* B, Out* C, bool vector_b, float alpha,
                   float beta, Stream stream) const {
    using device::BAccess;
    const auto blocks = static_cast<unsigned>(
        (matrix_.rows + device::kRowsWarpsPerBlock - 1) / device::kRowsWarpsPerBlock);
    const auto* values = reinterpret_cast<const V*>(matrix_.values.data());
    const auto run = [&](auto kernel) {
      kernel<<<blocks, device::kRowsThreadsPerBlock, 0, stream>>>(
          matrix_.row_ptr.data(), columns, values, B, C, matrix_.rows, matrix_.cols, n_, alpha,
          beta);
      TCSPARSE_CUDA_CHECK_LAUNCH();
    };
    if (layout_.dense == DenseLayout::column_major)
      run(device::tca_rows_kernel<V, Out, Column, BAccess::column_major>);
    else if (vector_b && n_ > 8 && parameters_.lanes_per_nonzero != 1)
      run(device::tca_rows_pairs_kernel<V, Out, Column>);
    else if (vector_b)
      run(device::tca_rows_kernel<V, Out, Column, BAccess::row_major_vector>);
    else
      run(device::tca_rows_kernel<V, Out, Column, BAccess::row_major>);
  }

  template <typename Out>
  void launch_paper(const Value* B, Out* C, float alpha, float beta, Stream stream) const {
    if (block_count_ == 0) return;  // no rows or no columns of C
    const auto* values = reinterpret_cast<const std::uint16_t*>(matrix_.values.data());
    const auto* dense_b = reinterpret_cast<const std::uint16_t*>(B);
    const dim3 grid(static_cast<unsigned>(block_count_)), threads(kThreadsPerBlock);
    if (layout_.dense == DenseLayout::row_major)
      tca_spmm_kernel<V, Out, true><<<grid, threads, 0, stream>>>(
          blocks_.data(), rows_of_slot_.data(), matrix_.row_ptr.data(), matrix_.col_idx.data(),
          values, dense_b, C, matrix_.rows, matrix_.cols, n_, alpha, beta);
    else
      tca_spmm_kernel<V, Out, false><<<grid, threads, 0, stream>>>(
          blocks_.data(), rows_of_slot_.data(), matrix_.row_ptr.data(), matrix_.col_idx.data(),
          values, dense_b, C, matrix_.rows, matrix_.cols, n_, alpha, beta);
    TCSPARSE_CUDA_CHECK_LAUNCH();
  }

  std::int64_t n_ = 0;
  SpmmLayout layout_;
  TcaParameters parameters_;
  PlanStats stats_;
  detail::DeviceCsr<Value> matrix_;
  detail::DeviceBuffer<std::uint16_t> narrow_columns_;  ///< rows kernel, 16-bit indices
  detail::DeviceBuffer<TcaBlock> blocks_;               ///< paper kernel
  detail::DeviceBuffer<std::int32_t> rows_of_slot_;     ///< paper kernel
  std::int64_t block_count_ = 0;
  struct DeviceTiles {  ///< kernel=tiles (then matrix_ stays empty)
    TilesShape shape;
    std::int64_t rows = 0, cols = 0;
    int run_stage_words = 0;  ///< words of a run a warp stages in shared memory
    detail::DeviceBuffer<std::byte> storage;  ///< the arrays below, each at a 256-byte boundary
    const std::int32_t* segment_word_begin = nullptr;
    const std::uint32_t* words = nullptr;  ///< the runs, at a 256-byte boundary
    // Written by every apply (scratch of the split-K sum): one plan must not run on two streams
    // at once.
    float* partials = nullptr;     ///< split-K sums, chunks > 1
    unsigned* arrivals = nullptr;  ///< split-K counters, zero between applies, chunks > 1
  } tiles_;
  struct PanelsPlan {  ///< kernel=panels (then matrix_ stays empty)
    std::int64_t rows = 0, cols = 0;
    std::int64_t panel_columns = 0, chunks = 1, panel_rows = 0, row_groups = 0;
    std::int64_t stage_rows = 0;  ///< rows of B a block stages: min(panel_columns, cols)
    int slice_columns = 16;
    std::int64_t slices = 0;
    int word_stage = 0;  ///< words of a panel a block stages (a multiple of 4)
    std::int64_t shared_bytes = 0;
    detail::DeviceBuffer<std::byte> storage;  ///< the arrays below, each at a 256-byte boundary
    const std::int32_t* offsets = nullptr;
    const std::uint32_t* words = nullptr;
    // Written by every apply (split-K scratch): one plan must not run on two streams at once.
    float* partials = nullptr;
    unsigned* arrivals = nullptr;
  } panels_;
};

}  // namespace

template <typename Value>
std::unique_ptr<detail::SpmmMethod<Value>> make_spmm(const CsrMatrix<Value, std::int32_t>& matrix,
                                                     std::int64_t n, const SpmmLayout& layout,
                                                     const detail::ParameterValues& parameters) {
  static_assert(sizeof(Value) == 2, "tca runs fp16 and bf16 only");
  if (n < 0) throw ValidationError("tca: n must not be negative, got " + std::to_string(n));
  return std::make_unique<TcaSpmm<Value>>(matrix, n, layout,
                                          tca_parameters(parameters, matrix.cols, n));
}

template std::unique_ptr<detail::SpmmMethod<half>> make_spmm<half>(
    const CsrMatrix<half, std::int32_t>&, std::int64_t, const SpmmLayout&,
    const detail::ParameterValues&);
template std::unique_ptr<detail::SpmmMethod<bfloat16>> make_spmm<bfloat16>(
    const CsrMatrix<bfloat16, std::int32_t>&, std::int64_t, const SpmmLayout&,
    const detail::ParameterValues&);

namespace testing {

template <typename Value>
PanelLayout panel_layout_built_on_device(const CsrMatrix<Value, std::int32_t>& matrix,
                                         std::int64_t panel_columns) {
  PlanStats stats;
  const detail::DeviceCsr<Value> csr = detail::upload_csr(matrix, stats);
  PanelLayout layout;
  layout.rows = matrix.rows;
  layout.cols = matrix.cols;
  layout.nnz = matrix.nnz();
  layout.panel_columns = panel_columns;
  layout.chunks = panel_chunks(matrix.cols, panel_columns);
  detail::DeviceBuffer<std::int32_t> offsets(
      static_cast<std::size_t>(layout.chunks * matrix.rows + 1));
  detail::DeviceBuffer<std::uint32_t> words(static_cast<std::size_t>(matrix.nnz()));
  {
    detail::DeviceScratch scratch(nullptr);
    build_panels_on_device(csr.view(), panel_columns, layout.chunks, offsets.data(),
                           words.data(), scratch);
    scratch.synchronize();
  }
  layout.offsets = offsets.download();
  layout.words = words.download();
  return layout;
}

template PanelLayout panel_layout_built_on_device<half>(const CsrMatrix<half, std::int32_t>&,
                                                        std::int64_t);
template PanelLayout panel_layout_built_on_device<bfloat16>(
    const CsrMatrix<bfloat16, std::int32_t>&, std::int64_t);

}  // namespace testing

}  // namespace tcsparse::tca
