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

#include <chrono>
#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>

#include "arch/cluster.cuh"
#include "arch/launch.cuh"
#include "arch/mma.cuh"
#include "arch/tensor_map.hpp"
#include "arch/types.cuh"
#include "common/align.hpp"
#include "common/stopwatch.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/device_csr.hpp"
#include "runtime/device_csr_view.hpp"
#include "runtime/host_upload.hpp"
#include "tca/tca_format.hpp"
#include "tca/tca_gather_format.hpp"
#include "tca/tca_gather_kernel.cuh"
#include "tca/tca_output.cuh"
#include "tca/tca_parameters.hpp"
#include "tca/tca_rows_kernel.cuh"
#include "tca/tca_tiles_device_build.hpp"
#include "tca/tca_tiles_format.hpp"
#include "tca/tca_tiles_kernel.cuh"
#include "tcsparse/error.hpp"

namespace tcsparse::tca {

namespace {

constexpr int kThreadsPerBlock = kWarpsPerBlock * 32;
constexpr int kMmasPerWarp = kTileWidth / kMmaRows;  ///< per tile and chunk, in every class
constexpr int kAccumulatorElements = kMmaRows * 8;   ///< one 16 x 8 fp32 D fragment

/// A layout array built on the host into an array of the plan's pool (DeviceBuffer::from_pool),
/// copied by the library's upload path (host_upload.hpp: staged through pinned memory from
/// 4 MiB) on the legacy stream, landed once `uploader` finishes: no cudaMalloc (on a matrix of a
/// few thousand nonzeros a cudaMalloc or a synchronous copy costs about what its kernel does).
/// H200, run 363: the gather layouts of 11008 x 4096 .. 14336 x 4096 at 90 % (15-24 MB) took
/// 3.2-5.0 ms as synchronous copies from pageable memory, 1.0-1.1 ms so.
template <typename Host, typename T>
void upload_to_pool(detail::HostUploader& uploader, const Host& host,
                    detail::DeviceBuffer<T>& device) {
  static_assert(std::is_same_v<typename Host::value_type, T>);
  device = detail::DeviceBuffer<T>::from_pool(host.size());
  if (!host.empty()) uploader.copy(device.data(), host.data(), host.size() * sizeof(T));
}

/// Whether the GPU has sm_90's thread-block clusters and programmatic dependent launch (the
/// split-K sums in clusters, the dependent launch and kernel=auto's gather need them).
bool gpu_has_sm90_features() {
  return detail::current_device_attribute(cudaDevAttrComputeCapabilityMajor) >= 9;
}

/// Two 16-bit elements at an even index of a shared array as one 32-bit mma operand register.
__device__ __forceinline__ unsigned pair_at(const std::uint16_t* array, int even_index) {
  return *reinterpret_cast<const unsigned*>(array + even_index);
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
        out = device::from_fp32<V, Out>(beta == 0.0f ? product
                                                     : product + beta * device::to_fp32<V, Out>(out));
      }
    }
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
    if (parameters_.kernel_is_auto &&
        auto_takes_gather(matrix.rows, matrix.cols, matrix.nnz(), n_, layout_.dense,
                          gpu_has_sm90_features()))
      parameters_.kernel = TcaKernel::gather;
    if (parameters_.kernel == TcaKernel::gather) {
      phases_.lap("choose");
      plan_gather(matrix, start);
      return;
    }
    if (parameters_.kernel_is_auto &&
        counts_tiles_on_device(matrix.rows, matrix.cols, matrix.nnz()) &&
        parameters_.builds_tiles_on_device(matrix.nnz())) {
      // either kernel needs the CSR on the GPU: upload it (one temporary allocation, as in
      // plan_tiles), count the tiles there; tiles keep their layout, rows a copy of the CSR
      stats_.host_preprocess_ms = std::chrono::duration<double, std::milli>(
                                      std::chrono::steady_clock::now() - start).count();
      phases_.lap("choose");
      const detail::TemporaryMemoryScope temporaries(cudaStreamLegacy);
      std::optional<detail::PackedDeviceCsr<Value>> csr =
          detail::upload_csr_temporary(matrix, stats_, cudaStreamLegacy);
      phases_.lap("upload");
      std::optional<DeviceTileLayout> tiles = choose_by_tiles_counted_on_device(csr->view());
      phases_.lap("device_build");
      if (!tiles) {
        matrix_ = detail::copy_device_csr(csr->view(), stats_);
        phases_.lap("copy");
      }
      csr.reset();
      phases_.lap("csr_free");
      if (tiles) finish_tiles(std::move(*tiles), matrix.nnz());
      else finish_csr_kernels();
      return;
    }
    if (parameters_.kernel_is_auto) {
      // Above kRowsKernelMaxColumns the rule asks only whether there is any tile (any nonzero):
      // the host pass over the nonzeros that counts them is for decode widths, and for matrices
      // whose tile layout is built on the host.
      const bool counts_tiles = n_ <= kRowsKernelMaxColumns;
      const std::int64_t stored_tiles =
          counts_tiles ? count_stored_tiles(matrix.rows, matrix.cols, matrix.row_ptr.data(),
                                            matrix.col_idx.data())
                       : std::min<std::int64_t>(matrix.nnz(), 1);
      parameters_.kernel =
          resolve_auto_kernel(matrix.nnz(), stored_tiles,
                              tiles_segment_slots(matrix.rows, matrix.cols), n_, layout_.dense);
      if (counts_tiles)
        stats_.details["auto_nonzeros_per_tile"] =
            stored_tiles > 0
                ? static_cast<double>(matrix.nnz()) / static_cast<double>(stored_tiles)
                : 0.0;
    }
    phases_.lap("choose");
    if (parameters_.kernel == TcaKernel::tiles) {
      plan_tiles(matrix, start);
      return;
    }
    TcaLayout work;
    if (parameters_.kernel == TcaKernel::paper) work = build_tca_layout(matrix, n);
    stats_.host_preprocess_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    phases_.lap("host_build");
    matrix_ = detail::upload_csr(matrix, stats_);
    phases_.lap("upload");
    if (parameters_.kernel == TcaKernel::paper) {
      block_count_ = static_cast<std::int64_t>(work.blocks.size());
      if (block_count_ > 0) {
        blocks_ = detail::DeviceBuffer<TcaBlock>(std::span<const TcaBlock>(work.blocks));
        rows_of_slot_ = detail::DeviceBuffer<std::int32_t>(work.rows_of_slot);
      }
      stats_.details = layout_details(work);
    }
    finish_csr_kernels();
  }

  /// From a checked CSR already on the GPU (make_spmm_from_device), with no host round trip:
  /// kernel=rows copies it device to device (and narrows its column indices there), kernel=tiles
  /// builds its layout on the GPU from the caller's arrays. kernel=auto at decode widths counts
  /// the stored tiles by building that layout, and keeps it where the rule takes tiles.
  /// kernel=paper, kernel=gather (also where auto takes it) and a tile layout built on the host
  /// go through the host instead (make_spmm_from_device). The plan owns what it reads: the
  /// caller's arrays may be freed once the constructor returns.
  TcaSpmm(const DeviceCsrView<Value>& matrix, std::int64_t n, const SpmmLayout& layout,
          const TcaParameters& parameters)
      : n_(n), layout_(layout), parameters_(parameters) {
    if (parameters_.kernel_is_auto) {
      if (counts_tiles_on_device(matrix.rows, matrix.cols, matrix.nnz)) {
        if (std::optional<DeviceTileLayout> tiles = choose_by_tiles_counted_on_device(matrix)) {
          phases_.lap("device_build");
          finish_tiles(std::move(*tiles), matrix.nnz);
          return;
        }
      } else {
        parameters_.kernel = resolve_auto_kernel(
            matrix.nnz, std::min<std::int64_t>(matrix.nnz, 1),
            tiles_segment_slots(matrix.rows, matrix.cols), n_, layout_.dense);
      }
    }
    phases_.lap("choose");
    if (parameters_.kernel == TcaKernel::tiles) {
      DeviceTileLayout layout = build_tiles_on_device(matrix);
      phases_.lap("device_build");
      finish_tiles(std::move(layout), matrix.nnz);
      return;
    }
    if (parameters_.kernel != TcaKernel::rows)
      throw Error("tca: a plan from device CSR builds kernel=rows or kernel=tiles only");
    matrix_ = detail::copy_device_csr(matrix, stats_);
    phases_.lap("copy");
    finish_csr_kernels();
  }

  void apply(const Value* B, void* C, scalar_t<Value> alpha, scalar_t<Value> beta,
             Stream stream) const override {
    const std::int64_t rows = parameters_.kernel == TcaKernel::tiles    ? tiles_.rows
                              : parameters_.kernel == TcaKernel::gather ? gather_.layout.rows
                                                                        : matrix_.rows;
    if (rows == 0 || n_ == 0) return;  // no C
    if (layout_.output == SpmmOutput::fp32)
      launch(B, static_cast<float*>(C), alpha, beta, stream);
    else
      launch(B, static_cast<V*>(C), alpha, beta, stream);
  }

  const PlanStats& stats() const override { return stats_; }
  bool can_update_values() const override {
    return parameters_.kernel != TcaKernel::tiles && parameters_.kernel != TcaKernel::gather;
  }
  std::string values_fixed_because() const override {
    return parameters_.kernel == TcaKernel::gather
               ? "kernel=gather stores the values by windows of rows in group order (build a new "
                 "plan, or use kernel=rows)"
               : "kernel=tiles stores the values tile by tile in fragment order (build a new "
                 "plan, or use kernel=rows)";
  }
  void update_values(const Value* values, Stream stream) override {
    detail::replace_values_async(matrix_, values, stream);
  }

 private:
  /// Whether kernel=auto counts the stored tiles (at decode widths) by building the tile layout
  /// on the GPU: not where the rule needs no count (no nonzeros, or more segment slots than
  /// nonzeros: rows).
  bool counts_tiles_on_device(std::int64_t rows, std::int64_t cols, std::int64_t nnz) const {
    return n_ <= kRowsKernelMaxColumns && nnz > 0 && tiles_segment_slots(rows, cols) <= nnz;
  }

  /// kernel=auto from the stored tiles that the tile layout built on the GPU from `csr` counts:
  /// the layout where the rule takes tiles, nothing (the layout freed, its GPU time counted in
  /// device_preprocess_ms) where it takes rows.
  std::optional<DeviceTileLayout> choose_by_tiles_counted_on_device(
      const DeviceCsrView<Value>& csr) {
    DeviceTileLayout tiles = build_tiles_on_device(csr);
    const std::int64_t stored_tiles = tiles.stored_tiles;
    parameters_.kernel = resolve_auto_kernel(
        csr.nnz, stored_tiles, tiles_segment_slots(csr.rows, csr.cols), n_, layout_.dense);
    stats_.details["auto_nonzeros_per_tile"] =
        stored_tiles > 0 ? static_cast<double>(csr.nnz) / static_cast<double>(stored_tiles)
                         : 0.0;
    if (parameters_.kernel == TcaKernel::tiles) return tiles;
    tiles_ = DeviceTiles{};
    return std::nullopt;
  }

  /// The plan's part after the CSR is on the GPU, for the kernels that read it as it is (rows,
  /// paper): the rows kernel's 16-bit column indices, the statistics.
  void finish_csr_kernels() {
    if (parameters_.kernel == TcaKernel::rows && parameters_.column_index_bits == 16)
      narrow_column_indices();
    stats_.stored_values = matrix_.nnz;
    stats_.padding_ratio = 0.0;
    stats_.device_bytes =
        matrix_.bytes() + narrow_columns_.bytes() + blocks_.bytes() + rows_of_slot_.bytes();
    stats_.details["kernel"] = kernel_name(parameters_.kernel);
    stats_.details["column_index_bits"] = parameters_.column_index_bits;
    stats_.details["layout"] = std::string(to_string(layout_.dense));
    stats_.details["output"] = std::string(to_string(layout_.output));
    record_phases();
  }

  /// details.plan_phases_ms: this build's phases (choose: kernel=auto's choice; host_build,
  /// upload, device_build, csr_free, copy: the layout's or the CSR's; kernel_setup: the
  /// kernel's attribute and occupancy queries; synchronize: the wait for the build's last work;
  /// finish: the statistics), each the milliseconds from the end of the one before on the host
  /// clock.
  void record_phases() {
    phases_.lap("finish");
    Json phases = Json::object();
    for (const auto& [phase, ms] : phases_.laps()) phases[phase] = ms;
    stats_.details["plan_phases_ms"] = std::move(phases);
  }

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

  /// kernel=tiles: the tile layout built on the GPU from the uploaded CSR (build=device, or auto
  /// from kTilesDeviceBuildMinNonzeros; tca_tiles_device_build.hpp; the CSR is then freed) or on
  /// the host and uploaded (build=host); the kernel instantiation, its shared memory and the
  /// split-K buffers fixed here, so that apply only launches.
  void plan_tiles(const CsrMatrix<Value, std::int32_t>& matrix,
                  std::chrono::steady_clock::time_point start) {
    if (parameters_.builds_tiles_on_device(matrix.nnz())) {
      stats_.host_preprocess_ms = std::chrono::duration<double, std::milli>(
                                      std::chrono::steady_clock::now() - start).count();
      // the CSR is read only here: one temporary allocation (from the pool for a small build:
      // upload_csr_temporary, is_small_build), given back on the legacy stream;
      // the scope gives the pool's excess back at the end
      const detail::TemporaryMemoryScope temporaries(cudaStreamLegacy);
      std::optional<detail::PackedDeviceCsr<Value>> csr =
          detail::upload_csr_temporary(matrix, stats_, cudaStreamLegacy);
      phases_.lap("upload");
      DeviceTileLayout layout = build_tiles_on_device(csr->view());
      phases_.lap("device_build");
      csr.reset();
      phases_.lap("csr_free");
      finish_tiles(std::move(layout), matrix.nnz());
      return;
    }
    choose_tiles_shape_for(matrix.rows, matrix.cols, false);
    const TilesShape& shape = tiles_.shape;
    const TileLayout tiles = build_tile_layout(matrix, shape);
    const auto built = std::chrono::steady_clock::now();
    stats_.host_preprocess_ms = std::chrono::duration<double, std::milli>(built - start).count();
    phases_.lap("host_build");
    DeviceTileLayout layout;
    detail::HostUploader uploader(detail::current_host_upload(), cudaStreamLegacy);
    upload_to_pool(uploader, tiles.segment_word_begin, layout.segment_word_begin);
    upload_to_pool(uploader, tiles.words, layout.words);
    uploader.finish();
    layout.stored_tiles = tiles.stored_tiles;
    layout.pairs = tiles.pairs;
    layout.longest_run_words = tiles_longest_run_words(tiles);
    phases_.lap("upload");
    finish_tiles(std::move(layout), matrix.nnz());
    stats_.upload_ms = std::chrono::duration<double, std::milli>(
                           std::chrono::steady_clock::now() - built).count();
  }

  /// The tiles kernel's shape for a rows x cols matrix at this plan's width and layout.
  void choose_tiles_shape_for(std::int64_t rows, std::int64_t cols, bool built_on_device) {
    const auto multiprocessors =
        static_cast<int>(detail::current_device_attribute(cudaDevAttrMultiProcessorCount));
    tiles_.shape = choose_tiles_shape(rows, cols, n_, layout_.dense, multiprocessors,
                                      parameters_.chunk_columns, parameters_.slice_columns);
    tiles_.rows = rows;
    tiles_.cols = cols;
    tiles_.built_on_device = built_on_device;
  }

  /// The shape, then the tile layout built on the GPU from `csr` (the plan's upload or the
  /// caller's arrays), its GPU time in device_preprocess_ms.
  DeviceTileLayout build_tiles_on_device(const DeviceCsrView<Value>& csr) {
    choose_tiles_shape_for(csr.rows, csr.cols, true);
    tiles_.small_build = detail::is_small_build<Value>(csr.rows, csr.nnz);
    detail::CudaEvent built_start, built_stop;
    built_start.record(nullptr);
    DeviceTileLayout layout = build_tile_layout_on_device(csr, tiles_.shape, nullptr);
    built_stop.record(nullptr);
    built_stop.synchronize();
    stats_.device_preprocess_ms = built_stop.elapsed_ms_since(built_start);
    return layout;
  }

  /// The plan's part after the layout, wherever it was built: the runs' stages, the split-K
  /// buffers (one allocation, the counters zeroed), the kernel's shared memory, the statistics.
  void finish_tiles(DeviceTileLayout layout, std::int64_t nnz) {
    const TilesShape& shape = tiles_.shape;
    tiles_.run_stage_words =
        device::tiles_stages_whole_runs(shape.slice_columns / 8)
            ? tiles_run_stage_words(layout.longest_run_words, run_stage_budget_bytes())
            : kSegmentMaskWords;
    tiles_.layout = std::move(layout);
    if (layout_.output == SpmmOutput::fp32) set_up_tiles_kernel<float>();
    else set_up_tiles_kernel<V>();
    phases_.lap("kernel_setup");
    // sm_90 code waits in griddepcontrol.wait; sm_80 code would not (arch/dependent_launch.cuh)
    tiles_.dependent_launch =
        parameters_.dependent_launch && gpu_has_sm90_features();
    if (shape.chunks > 1 && !tiles_.cluster_reduce) {
      constexpr std::size_t kArrayAlignBytes = 256;
      const auto arrivals =
          static_cast<std::size_t>(shape.row_blocks * std::max<std::int64_t>(shape.slices, 1));
      const std::size_t arrivals_at =
          detail::align_up(static_cast<std::size_t>(shape.partial_bytes), kArrayAlignBytes);
      tiles_.split_k = detail::DeviceBuffer<std::byte>::for_plan(
          arrivals_at + arrivals * sizeof(unsigned), tiles_.small_build);
      tiles_.partials = reinterpret_cast<float*>(tiles_.split_k.data());
      tiles_.arrivals = reinterpret_cast<unsigned*>(tiles_.split_k.data() + arrivals_at);
      TCSPARSE_CUDA_CHECK(
          cudaMemsetAsync(tiles_.arrivals, 0, arrivals * sizeof(unsigned), cudaStreamLegacy));
    }
    TCSPARSE_CUDA_CHECK(cudaDeviceSynchronize());
    phases_.lap("synchronize");
    const DeviceTileLayout& built = tiles_.layout;
    stats_.stored_values = nnz;
    stats_.padding_ratio = 0.0;
    stats_.device_bytes = built.bytes() + static_cast<std::int64_t>(tiles_.split_k.bytes());
    const Json details = tiles_details(shape, nnz, built.stored_tiles, built.pairs, built.bytes());
    for (const auto& [key, value] : details.items()) stats_.details[key] = value;
    stats_.details["longest_run_words"] = built.longest_run_words;
    stats_.details["run_stage_words"] = tiles_.run_stage_words;
    stats_.details["build"] = tiles_.built_on_device ? "device" : "host";
    stats_.details["blocks_at_once"] = tiles_.blocks_at_once;
    stats_.details["split_k"] = shape.chunks == 1       ? "none"
                                : tiles_.cluster_reduce ? "cluster"
                                                        : "global";
    stats_.details["dependent_launch"] = tiles_.dependent_launch;
    stats_.details["kernel"] = kernel_name(parameters_.kernel);
    stats_.details["layout"] = std::string(to_string(layout_.dense));
    stats_.details["output"] = std::string(to_string(layout_.output));
    record_phases();
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
  /// Shared memory the runs may take so that kTilesBlocksPerSm blocks share a
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
    for (int blocks = kTilesBlocksPerSm; blocks >= 1 && budget < kMaskBytes; --blocks)
      budget = std::min(per_sm / blocks - reserved, per_block) - tiles_fixed_shared_bytes();
    return budget;
  }

  /// The instantiation for output type Out: its shared memory attribute, how many of its blocks
  /// run at once, whether it sums the chunks in clusters.
  template <typename Out>
  void set_up_tiles_kernel() {
    allow_tiles_shared_memory<Out>();
    tiles_.blocks_at_once = tiles_blocks_at_once<Out>();
    tiles_.cluster_reduce = sums_chunks_in_clusters<Out>();
  }

  /// Lets the kernel take as much dynamic shared memory as a block may opt into. The attribute
  /// belongs to the kernel, not to the plan: set to this plan's own need, it would make an
  /// earlier plan of the same instantiation that needs more fail to launch.
  template <typename Out>
  void allow_tiles_shared_memory() const {
    const int most = detail::current_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
    if (tiles_shared_bytes() > most)
      throw Error("tca: internal: the tiles kernel's shared memory exceeds a block's");
    TCSPARSE_CUDA_CHECK(cudaFuncSetAttribute(
        tiles_kernel<Out>(), cudaFuncAttributeMaxDynamicSharedMemorySize, most));
  }

  /// The tiles kernel's grid: row groups x chunks (chunk fastest: a row group's chunks are
  /// consecutive blocks, one cluster under split_k=cluster), slices.
  dim3 tiles_grid() const {
    const TilesShape& shape = tiles_.shape;
    return dim3(static_cast<unsigned>(shape.row_groups() * shape.chunks),
                static_cast<unsigned>(shape.slices));
  }
  /// Blocks of the kernel the GPU runs at once (its shared memory attribute set).
  template <typename Out>
  std::int64_t tiles_blocks_at_once() const {
    int blocks_per_sm = 0;
    TCSPARSE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
        &blocks_per_sm, tiles_kernel<Out>(), device::kTilesThreadsPerBlock,
        static_cast<std::size_t>(tiles_shared_bytes())));
    return std::int64_t{blocks_per_sm} *
           detail::current_device_attribute(cudaDevAttrMultiProcessorCount);
  }

  /// split_k (tca_parameters.hpp): whether the chunks are summed in thread-block clusters. Only
  /// on sm_90 and later with 2 to kTilesMaxClusterChunks chunks; auto only with
  /// kTilesAutoClusterChunks chunks and where the clusters keep as many blocks running at once as
  /// single blocks do, where the grid has that many (cudaOccupancyMaxActiveClusters x chunks;
  /// both in the plan's details).
  template <typename Out>
  bool sums_chunks_in_clusters() {
    const TilesShape& shape = tiles_.shape;
    if (parameters_.split_k == TcaParameters::SplitK::global || shape.chunks < 2 ||
        shape.chunks > kTilesMaxClusterChunks || !gpu_has_sm90_features())
      return false;
    // the partials take the B stages (reduce_chunks_in_cluster)
    const std::int64_t partial_bytes =
        std::int64_t{kTilesWarpsPerBlock} * (shape.slice_columns / 8) * 32 * sizeof(float4);
    if (partial_bytes > 2 * shape.stage_bytes)
      throw Error("tca: internal: the split-K partials do not fit the B stages");
    const dim3 grid = tiles_grid();
    const int clusters = arch::max_active_clusters(
        tiles_kernel<Out>(), grid, dim3(device::kTilesThreadsPerBlock),
        static_cast<std::size_t>(tiles_shared_bytes()), static_cast<unsigned>(shape.chunks));
    const std::int64_t cluster_blocks_at_once = std::int64_t{clusters} * shape.chunks;
    stats_.details["cluster_blocks_at_once"] = cluster_blocks_at_once;
    if (clusters == 0) return false;
    if (parameters_.split_k == TcaParameters::SplitK::cluster) return true;
    if (shape.chunks != kTilesAutoClusterChunks) return false;
    const std::int64_t blocks = std::int64_t{grid.x} * grid.y;
    return cluster_blocks_at_once >= std::min(blocks, tiles_.blocks_at_once);
  }

  template <typename Out>
  void launch_tiles(const Value* B, Out* C, float alpha, float beta, Stream stream) const {
    const TilesShape& shape = tiles_.shape;
    device::TilesArguments<Out> args;
    args.segment_word_begin = tiles_.layout.segment_word_begin.data();
    args.words = tiles_.layout.words.data();
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
    args.cluster_reduce = tiles_.cluster_reduce;
    args.alpha = alpha;
    args.beta = beta;
    arch::LaunchOptions options;
    options.cluster_blocks = tiles_.cluster_reduce ? static_cast<unsigned>(shape.chunks) : 1u;
    options.dependent = tiles_.dependent_launch;
    TCSPARSE_CUDA_CHECK(arch::launch_kernel(
        tiles_kernel<Out>(), tiles_grid(), dim3(device::kTilesThreadsPerBlock),
        static_cast<std::size_t>(tiles_shared_bytes()), stream, options, args));
  }

  // ---- kernel=gather (tca_gather_format.hpp, tca_gather_kernel.cuh) ----

  void plan_gather(const CsrMatrix<Value, std::int32_t>& matrix,
                   std::chrono::steady_clock::time_point start) {
    GatherShape shape = choose_gather_shape(matrix.rows, matrix.cols, n_,
                                            parameters_.chunk_columns, parameters_.slice_columns);
    gather_.dependent_launch =
        parameters_.dependent_launch && gpu_has_sm90_features();
    if (layout_.output == SpmmOutput::fp32) shape = set_up_gather_kernel<float>(shape);
    else shape = set_up_gather_kernel<V>(shape);
    phases_.lap("kernel_setup");
    const GatherLayout layout = build_gather_layout(matrix, shape);
    const auto built = std::chrono::steady_clock::now();
    stats_.host_preprocess_ms = std::chrono::duration<double, std::milli>(built - start).count();
    phases_.lap("host_build");
    detail::HostUploader uploader(detail::current_host_upload(), cudaStreamLegacy);
    upload_to_pool(uploader, layout.warp_group_begin, gather_.warp_group_begin);
    upload_to_pool(uploader, layout.warp_first_window, gather_.warp_first_window);
    upload_to_pool(uploader, layout.window_group_begin, gather_.window_group_begin);
    upload_to_pool(uploader, layout.window_rows, gather_.window_rows);
    upload_to_pool(uploader, layout.groups, gather_.groups);
    uploader.finish();
    if (gather_.sum == device::GatherSum::global)
      gather_.partials = detail::DeviceBuffer<float>::from_pool(
          static_cast<std::size_t>(shape.partial_bytes() / 4));
    phases_.lap("upload");
    TCSPARSE_CUDA_CHECK(cudaDeviceSynchronize());
    phases_.lap("synchronize");
    stats_.upload_ms = std::chrono::duration<double, std::milli>(
                           std::chrono::steady_clock::now() - built).count();
    gather_.layout.rows = matrix.rows;
    gather_.layout.cols = matrix.cols;
    gather_.layout.nnz = matrix.nnz();
    gather_.layout.shape = shape;
    gather_.windows = layout.windows();
    stats_.stored_values = layout.group_count() * kGatherGroupNonzeros;
    stats_.padding_ratio =
        stats_.stored_values > 0
            ? static_cast<double>(stats_.stored_values - matrix.nnz()) /
                  static_cast<double>(stats_.stored_values)
            : 0.0;
    stats_.device_bytes = layout.bytes() + static_cast<std::int64_t>(gather_.partials.bytes());
    const Json details = gather_details(layout);
    for (const auto& [key, value] : details.items()) stats_.details[key] = value;
    stats_.details["split_k"] = gather_.sum == device::GatherSum::own       ? "none"
                                : gather_.sum == device::GatherSum::cluster ? "cluster"
                                                                            : "global";
    stats_.details["blocks_at_once"] = gather_.blocks_at_once;
    stats_.details["dependent_launch"] = gather_.dependent_launch;
    stats_.details["stage_b"] = gather_.stage_by_tensor ? "tensor" : "copies";
    stats_.details["kernel"] = kernel_name(parameters_.kernel);
    stats_.details["layout"] = std::string(to_string(layout_.dense));
    stats_.details["output"] = std::string(to_string(layout_.output));
    record_phases();
  }

  template <typename Out>
  using GatherKernel = void (*)(device::GatherArguments<Out>);

  /// Whether tensor copies can stage B's rows for `shape` (row-major B of a multiple of 8
  /// columns; its address is checked at each apply): in 128-byte lines, which must be B's rows
  /// (slices of 64 columns) or whole lines of B itself (B's rows are the slice's and its rows
  /// fill whole lines), and boxes starting at whole swizzle periods of 8 lines (a chunk of at
  /// most one box, or of a multiple of 8 lines). The TMA fetches a box row by row: boxes of B's
  /// rows narrower than 128 bytes ran slower than the threads' copies (H200, run 326).
  /// Column-major B: boxes of B^T's rows, transposed in shared memory
  /// (gather_transposed_copies_fit).
  bool gather_tensor_copies_fit(const GatherShape& shape) const {
    if (layout_.dense == DenseLayout::column_major) return gather_transposed_copies_fit(shape);
    const std::int64_t chunk_lines = shape.stage_lines();
    const bool whole_lines =
        shape.row_bytes() == kGatherLineBytes ||
        (n_ == shape.slice_columns && shape.cols * shape.row_bytes() % kGatherLineBytes == 0);
    return layout_.dense == DenseLayout::row_major && n_ % 8 == 0 && shape.cols > 0 &&
           whole_lines &&
           (chunk_lines <= kGatherTensorBoxLines || chunk_lines % kGatherSwizzleLines == 0);
  }

  /// f.template operator()<kSliceColumns, kRowMajor>() for the slice width (8, 16, 32, 64) and
  /// B's layout: the one place that maps them to the gather kernels' instantiations.
  template <typename F>
  decltype(auto) with_gather_slice(int slice_columns, F&& f) const {
    const bool row_major = layout_.dense == DenseLayout::row_major;
    const auto in_layout = [&]<int kSlice>() -> decltype(auto) {
      return row_major ? f.template operator()<kSlice, true>()
                       : f.template operator()<kSlice, false>();
    };
    switch (slice_columns) {
      case 8: return in_layout.template operator()<8>();
      case 16: return in_layout.template operator()<16>();
      case 32: return in_layout.template operator()<32>();
      default: return in_layout.template operator()<64>();
    }
  }

  template <typename Out>
  GatherKernel<Out> gather_kernel(int slice_columns) const {
    return with_gather_slice(slice_columns, [&]<int kSlice, bool kRowMajor>() -> GatherKernel<Out> {
      return device::tca_gather_kernel<V, Out, kSlice, kRowMajor>;
    });
  }

  /// How a range's blocks are summed, and the ranges that give one wave of the blocks (or clusters)
  /// that run at once. Narrower ranges need less shared memory (their output rows), so the ranges
  /// are cut for the most blocks an SM that then all fit (from what the narrowest ranges would
  /// allow down; with B's stage of up to 128 KiB that is mostly one), and cut again for the
  /// blocks or clusters the GPU then runs at once.
  template <typename Out>
  GatherShape set_up_gather_kernel(GatherShape shape) {
    const GatherKernel<Out> kernel = gather_kernel<Out>(shape.slice_columns);
    const int most = detail::current_device_attribute(cudaDevAttrMaxSharedMemoryPerBlockOptin);
    if (shape.shared_bytes() > most)
      throw Error("tca: internal: the gather kernel's shared memory exceeds a block's");
    TCSPARSE_CUDA_CHECK(
        cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, most));
    const auto multiprocessors =
        std::int64_t{detail::current_device_attribute(cudaDevAttrMultiProcessorCount)};
    const auto blocks_per_sm = [&](const GatherShape& s) {
      int blocks = 0;
      TCSPARSE_CUDA_CHECK(cudaOccupancyMaxActiveBlocksPerMultiprocessor(
          &blocks, kernel, device::kGatherThreadsPerBlock,
          static_cast<std::size_t>(s.shared_bytes())));
      return blocks;
    };
    const std::int64_t range_blocks = shape.range_blocks();
    for (int per_sm = blocks_per_sm(gather_with_ranges(shape, shape.rows)); per_sm > 1; --per_sm) {
      const GatherShape cut = gather_with_ranges(
          shape, std::max<std::int64_t>(1, per_sm * multiprocessors / range_blocks / shape.slices));
      if (blocks_per_sm(cut) >= per_sm) {
        shape = cut;
        break;
      }
    }
    gather_.blocks_at_once = std::int64_t{blocks_per_sm(shape)} * multiprocessors;
    std::int64_t units_at_once = gather_.blocks_at_once / range_blocks;  // ranges x slices
    gather_.sum = range_blocks == 1 ? device::GatherSum::own : device::GatherSum::global;
    const bool clusters_possible =
        range_blocks >= 2 && range_blocks <= kGatherMaxClusterBlocks &&
        parameters_.split_k != TcaParameters::SplitK::global && gpu_has_sm90_features();
    if (clusters_possible) {
      const auto cluster = static_cast<unsigned>(range_blocks);
      const int clusters = arch::max_active_clusters(
          kernel, dim3(cluster), dim3(device::kGatherThreadsPerBlock),
          static_cast<std::size_t>(shape.shared_bytes()), cluster);
      if (clusters > 0) {
        gather_.sum = device::GatherSum::cluster;
        units_at_once = clusters;
      }
    }
    // B's tensor copies
    gather_.box_lines = static_cast<int>(std::min(kGatherTensorBoxLines, shape.stage_lines()));
    gather_.boxes =
        layout_.dense == DenseLayout::column_major
            ? static_cast<int>(shape.chunk_columns / kGatherTransposeRows)
            : static_cast<int>((shape.stage_lines() + gather_.box_lines - 1) / gather_.box_lines);
    gather_.stage_by_tensor = parameters_.stage_b != TcaParameters::StageB::copies &&
                              gather_tensor_copies_fit(shape) && gpu_has_sm90_features() &&
                              arch::tensor_map_encoder() != nullptr;
    // (wider ranges where fewer clusters run at once, unless their output rows would then
    // keep a block an SM from running)
    const GatherShape wave =
        gather_with_ranges(shape, std::max<std::int64_t>(1, units_at_once / shape.slices));
    if (blocks_per_sm(wave) * multiprocessors >= gather_.blocks_at_once) shape = wave;
    if (gather_.sum == device::GatherSum::global && shape.partial_bytes() > kGatherMaxPartialBytes)
      throw UnsupportedError("tca: kernel=gather would hold " +
                             std::to_string(shape.partial_bytes()) +
                             " bytes of split-K partial sums; give a narrower slice_columns");
    return shape;
  }

  template <typename Out>
  void launch_gather(const Value* B, Out* C, float alpha, float beta, Stream stream) const {
    const GatherShape& shape = gather_.layout.shape;
    device::GatherArguments<Out> args;
    args.warp_group_begin = gather_.warp_group_begin.data();
    args.warp_first_window = gather_.warp_first_window.data();
    args.window_group_begin = gather_.window_group_begin.data();
    args.window_rows = gather_.window_rows.data();
    args.groups = reinterpret_cast<const uint4*>(gather_.groups.data());
    args.B = reinterpret_cast<const std::uint16_t*>(B);
    args.C = C;
    args.partials = gather_.partials.data();
    args.rows = gather_.layout.rows;
    args.cols = gather_.layout.cols;
    args.n = n_;
    args.chunk_columns = shape.chunk_columns;
    args.windows = gather_.windows;
    args.range_rows = static_cast<int>(shape.range_rows);
    args.ranges = shape.ranges;
    // 16-byte pieces of B's rows (row-major) or columns (column-major)
    args.vector_b = (layout_.dense == DenseLayout::row_major ? n_ : shape.cols) % 8 == 0 &&
                    reinterpret_cast<std::uintptr_t>(B) % 16 == 0;
    args.sum = gather_.sum;
    args.alpha = alpha;
    args.beta = beta;
    args.stage_by_tensor = gather_.stage_by_tensor && args.vector_b;
    if (args.stage_by_tensor) {
      args.box_lines = gather_.box_lines;
      args.boxes = gather_.boxes;
      // the array the boxes come from, in 16-bit elements: column-major B as B^T (n rows of
      // `cols`, boxes of kGatherTransposeRows of them x the slice); row-major B in lines of 64
      // elements, B's rows where they are that wide or wider (slices of 64), else B cut into
      // lines (its rows are the slice's: gather_tensor_copies_fit), boxes of box_lines lines
      constexpr std::int64_t kLineElements = kGatherLineBytes / 2;
      std::int64_t columns = shape.cols, rows = n_, stride = shape.cols;
      std::int64_t box_columns = kGatherTransposeRows, box_rows = shape.slice_columns;
      if (layout_.dense == DenseLayout::row_major) {
        const bool rows_are_lines = shape.slice_columns * 2 == kGatherLineBytes;
        columns = rows_are_lines ? n_ : kLineElements;
        rows = rows_are_lines ? shape.cols : shape.cols * n_ / kLineElements;
        stride = rows_are_lines ? n_ : kLineElements;
        box_columns = kLineElements;
        box_rows = gather_.box_lines;
      }
      // column-major B whose rows (B^T's columns) come in whole boxes: B^T as groups of
      // box_columns columns, a stage's boxes in one copy
      args.boxes_in_one_copy = layout_.dense == DenseLayout::column_major &&
                               shape.cols % kGatherTransposeRows == 0 &&
                               gather_.boxes <= kGatherMaxBoxGroups;
      const CUresult encoded =
          args.boxes_in_one_copy
              ? arch::encode_column_groups_16bit(
                    args.b_map, B, static_cast<std::uint64_t>(columns),
                    static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(stride),
                    static_cast<std::uint32_t>(box_columns), static_cast<std::uint32_t>(box_rows),
                    static_cast<std::uint32_t>(gather_.boxes), arch::TensorSwizzle::bytes128)
              : arch::encode_row_major_16bit(
                    args.b_map, B, static_cast<std::uint64_t>(columns),
                    static_cast<std::uint64_t>(rows), static_cast<std::uint64_t>(stride),
                    static_cast<std::uint32_t>(box_columns), static_cast<std::uint32_t>(box_rows),
                    arch::TensorSwizzle::bytes128);
      if (encoded != CUDA_SUCCESS)
        throw Error("tca: kernel=gather: the driver did not encode B's tensor map (CUresult " +
                    std::to_string(static_cast<int>(encoded)) + "); stage_b=copies avoids it");
    }
    arch::LaunchOptions options;
    options.cluster_blocks = gather_.sum == device::GatherSum::cluster
                                 ? static_cast<unsigned>(shape.range_blocks())
                                 : 1u;
    options.dependent = gather_.dependent_launch;
    const dim3 grid(static_cast<unsigned>(shape.range_blocks()), static_cast<unsigned>(shape.ranges),
                    static_cast<unsigned>(shape.slices));
    TCSPARSE_CUDA_CHECK(arch::launch_kernel(gather_kernel<Out>(shape.slice_columns), grid,
                                            dim3(device::kGatherThreadsPerBlock),
                                            static_cast<std::size_t>(shape.shared_bytes()), stream,
                                            options, args));
    if (gather_.sum != device::GatherSum::global) return;
    constexpr int kSumThreads = 256;
    const std::int64_t elements = shape.rows * n_;
    const auto blocks = static_cast<unsigned>(
        std::min<std::int64_t>((elements + kSumThreads - 1) / kSumThreads, 4096));
    with_gather_slice(shape.slice_columns, [&]<int kSlice, bool kRowMajor>() {
      device::tca_gather_sum_kernel<V, Out, kSlice, kRowMajor>
          <<<blocks, kSumThreads, 0, stream>>>(args, shape.range_blocks(), shape.slices);
      TCSPARSE_CUDA_CHECK_LAUNCH();
    });
  }

  template <typename Out>
  void launch(const Value* B, Out* C, float alpha, float beta, Stream stream) const {
    if (parameters_.kernel == TcaKernel::gather) {
      launch_gather(B, C, alpha, beta, stream);
      return;
    }
    if (parameters_.kernel == TcaKernel::tiles) {
      launch_tiles(B, C, alpha, beta, stream);
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
  detail::PhaseTimes phases_;  ///< of the plan's build (record_phases)
  detail::DeviceCsr<Value> matrix_;
  detail::DeviceBuffer<std::uint16_t> narrow_columns_;  ///< rows kernel, 16-bit indices
  detail::DeviceBuffer<TcaBlock> blocks_;               ///< paper kernel
  detail::DeviceBuffer<std::int32_t> rows_of_slot_;     ///< paper kernel
  std::int64_t block_count_ = 0;
  struct DeviceTiles {  ///< kernel=tiles (then matrix_ stays empty)
    TilesShape shape;
    std::int64_t rows = 0, cols = 0;
    int run_stage_words = 0;  ///< words of a run a warp stages in shared memory
    bool built_on_device = false;
    bool small_build = true;  ///< detail::is_small_build: split_k from the pool
    DeviceTileLayout layout;
    std::int64_t blocks_at_once = 0;  ///< of the kernel on this GPU
    bool cluster_reduce = false;      ///< split-K summed in thread-block clusters (no scratch)
    bool dependent_launch = false;    ///< a programmatic dependent launch
    // Written by every apply (scratch of the global split-K sum): such a plan must not run on two
    // streams at once.
    detail::DeviceBuffer<std::byte> split_k;  ///< partials, then arrivals (global split-K)
    float* partials = nullptr;     ///< global split-K sums
    unsigned* arrivals = nullptr;  ///< global split-K counters, zero between applies
  } tiles_;
  struct DeviceGather {  ///< kernel=gather (then matrix_ stays empty)
    GatherLayout layout;  ///< the shape and sizes only (its arrays are on the GPU below)
    detail::DeviceBuffer<std::uint32_t> warp_group_begin, warp_first_window, window_group_begin;
    detail::DeviceBuffer<std::uint16_t> window_rows, groups;
    std::int64_t windows = 0;  ///< of the layout
    device::GatherSum sum = device::GatherSum::own;
    std::int64_t blocks_at_once = 0;  ///< of the kernel on this GPU
    bool dependent_launch = false;
    bool stage_by_tensor = false;  ///< B by tensor copies (at applies whose B allows them)
    int box_lines = 0, boxes = 0;  ///< of those copies, a block's stage
    // Written by every apply with GatherSum::global: such a plan must not run on two streams at
    // once.
    mutable detail::DeviceBuffer<float> partials;
  } gather_;
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

template <typename Value>
std::unique_ptr<detail::SpmmMethod<Value>> make_spmm_from_device(
    const DeviceCsrView<Value>& matrix, std::int64_t n, const SpmmLayout& layout,
    const detail::ParameterValues& parameters) {
  static_assert(sizeof(Value) == 2, "tca runs fp16 and bf16 only");
  if (n < 0) throw ValidationError("tca: n must not be negative, got " + std::to_string(n));
  const TcaParameters checked = tca_parameters(parameters, matrix.cols, n);
  // through the host: the paper and gather kernels' layouts (gather also where auto takes it),
  // and a tile layout built there (build=host, or auto below kTilesDeviceBuildMinNonzeros, where
  // the download is small)
  const bool rows_only = !checked.kernel_is_auto && checked.kernel == TcaKernel::rows;
  const bool auto_gather =
      checked.kernel_is_auto &&
      auto_takes_gather(matrix.rows, matrix.cols, matrix.nnz, n, layout.dense,
                        gpu_has_sm90_features());
  if (checked.kernel == TcaKernel::paper || checked.kernel == TcaKernel::gather || auto_gather ||
      (!rows_only && !checked.builds_tiles_on_device(matrix.nnz)))
    return make_spmm(detail::download_device_csr(matrix), n, layout, parameters);
  return std::make_unique<TcaSpmm<Value>>(matrix, n, layout, checked);
}

template std::unique_ptr<detail::SpmmMethod<half>> make_spmm<half>(
    const CsrMatrix<half, std::int32_t>&, std::int64_t, const SpmmLayout&,
    const detail::ParameterValues&);
template std::unique_ptr<detail::SpmmMethod<bfloat16>> make_spmm<bfloat16>(
    const CsrMatrix<bfloat16, std::int32_t>&, std::int64_t, const SpmmLayout&,
    const detail::ParameterValues&);

template std::unique_ptr<detail::SpmmMethod<half>> make_spmm_from_device<half>(
    const DeviceCsrView<half>&, std::int64_t, const SpmmLayout&, const detail::ParameterValues&);
template std::unique_ptr<detail::SpmmMethod<bfloat16>> make_spmm_from_device<bfloat16>(
    const DeviceCsrView<bfloat16>&, std::int64_t, const SpmmLayout&,
    const detail::ParameterValues&);

}  // namespace tcsparse::tca
