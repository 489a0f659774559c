// CSR-Partial-Overlap (Electronics 2023) kernels: the batch-table build (§4.1.1, made parallel:
// csr_overlap_rules.hpp), the two-stage batch kernel (§4.1.2, §4.1.3) and the long-row kernels
// (§4.3). Included by csr_overlap.cu only.
//
// The matrix is the caller's CSR, uploaded as it is; the value and column arrays are allocated
// to a multiple of kCopyAlignElements (zeros after nnz) so that a copy rounded up never reads
// past them:
//
//   row_ptr  [rows + 1]            col_idx / values [round_up(nnz, 16)]
//   batches  [B] int2 {begin_row, end_row}
//   long_rows [L], long_task_ptr [L + 1], long_partials [long tasks] (Acc)
//
// Dynamic shared memory of the batch kernel, C = stage_capacity(M) = M + 32 elements a stage:
//
//   | values stage 0 (C x V) | values stage 1 (C x V) | cols stage 0 (C x int) | cols stage 1 |
//
// A batch of nonzeros [s, e) is copied from element s0 = s rounded down to 16 to e rounded up to
// 16; nonzero i of the batch sits at stage[i - s0].
#pragma once

#include <cooperative_groups.h>
#include <cuda/pipeline>
#include <cstdint>
#include <type_traits>

#include "arch/types.cuh"
#include "arch/warp.cuh"
#include "csr_overlap/csr_overlap_rules.hpp"

namespace tcsparse::csr_overlap::device {

// ---- value types (src/arch/types.cuh) -------------------------------------------------------

template <typename V>
using Acc = arch::acc_t<V>;

template <typename V>
__device__ __forceinline__ Acc<V> to_acc(V v) {
  return arch::ValueTraits<V>::to_acc(v);
}

template <typename V>
__device__ __forceinline__ V from_acc(Acc<V> v) {
  return arch::ValueTraits<V>::from_acc(v);
}

/// y = alpha * sum + beta * y; y not read when beta == 0.
template <typename V>
__device__ __forceinline__ void store_result(V* y, std::int64_t row, Acc<V> sum, Acc<V> alpha,
                                             Acc<V> beta) {
  const Acc<V> result = beta == Acc<V>(0) ? alpha * sum : alpha * sum + beta * to_acc(y[row]);
  y[row] = from_acc<V>(result);
}

// ---- batch table build ------------------------------------------------------------------------

/// Pass 1, one thread a position r in [0, rows]: flags[r] = row_flag (csr_overlap_rules.hpp).
__global__ void mark_rows_kernel(const std::int32_t* __restrict__ row_ptr, std::int64_t rows,
                                 PartitionRule rule, unsigned long long* __restrict__ flags) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t r = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       r <= rows; r += stride)
    flags[r] = row_flag(row_ptr, r, rows, rule);
}

/// Pass 2, one thread a position p in [0, rows], after the exclusive scan of the flags: writes
/// the starts, the ends and the long rows where scatter_writes says.
__global__ void scatter_batches_kernel(const std::int32_t* __restrict__ row_ptr, std::int64_t rows,
                                       PartitionRule rule,
                                       const unsigned long long* __restrict__ scanned,
                                       int2* __restrict__ batches,
                                       std::int32_t* __restrict__ long_rows) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t p = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       p <= rows; p += stride) {
    const ScatterWrites w = scatter_writes(row_ptr, p, rows, rule, scanned[p]);
    const auto row = static_cast<std::int32_t>(p);
    if (w.long_index >= 0) long_rows[w.long_index] = row;
    if (w.begin_index >= 0) batches[w.begin_index].x = row;
    if (w.end_index >= 0) batches[w.end_index].y = row;
  }
}

/// pieces[j] = the pieces of long row j for j < long_count, 0 at j == long_count (then an
/// exclusive scan gives long_task_ptr).
__global__ void long_row_pieces_kernel(const std::int32_t* __restrict__ row_ptr,
                                       const std::int32_t* __restrict__ long_rows,
                                       std::int64_t long_count, std::int32_t piece,
                                       std::int32_t* __restrict__ pieces) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       j <= long_count; j += stride)
    pieces[j] = j < long_count ? long_row_pieces(row_length(row_ptr, long_rows[j]), piece) : 0;
}

// ---- the batch kernel -------------------------------------------------------------------------

template <typename V>
struct BatchArguments {
  const std::int32_t* row_ptr;
  const std::int32_t* col_idx;  ///< allocated to a multiple of kCopyAlignElements
  const V* values;              ///< allocated to a multiple of kCopyAlignElements
  const int2* batches;
  std::int32_t batch_count;
  std::int32_t batches_per_block;
  std::int32_t stage_capacity;  ///< C, elements a stage
  VectorSizeRule vector_sizes;
};

/// One batch from shared memory (paper Alg. 5), vector size kVector: vector v = threadIdx.x /
/// kVector takes rows begin + v, begin + v + vectors, ...; lane l of it the row's nonzeros l,
/// l + kVector, ... . The row loop runs per warp (its condition is the same for every lane of a
/// warp), so every lane reaches the shuffles.
template <int kVector, typename V>
__device__ __forceinline__ void compute_batch(const std::int32_t* __restrict__ row_ptr,
                                              std::int32_t begin_row, std::int32_t end_row,
                                              std::int32_t copy_first,
                                              const V* __restrict__ stage_values,
                                              const std::int32_t* __restrict__ stage_cols,
                                              const V* __restrict__ x, V* __restrict__ y,
                                              Acc<V> alpha, Acc<V> beta) {
  constexpr int kVectorsPerWarp = 32 / kVector;
  const int vectors = static_cast<int>(blockDim.x) / kVector;
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane_in_warp = static_cast<int>(threadIdx.x) % 32;
  const int lane = lane_in_warp % kVector;
  const int vector_in_warp = lane_in_warp / kVector;
  for (std::int32_t first = begin_row + warp * kVectorsPerWarp; first < end_row;
       first += vectors) {
    const std::int32_t row = first + vector_in_warp;
    Acc<V> sum = 0;
    if (row < end_row) {
      const std::int32_t end = row_ptr[row + 1] - copy_first;
      for (std::int32_t i = row_ptr[row] - copy_first + lane; i < end; i += kVector)
        sum += to_acc(stage_values[i]) * to_acc(x[stage_cols[i]]);
    }
    sum = arch::group_sum<kVector>(sum);
    if (row < end_row && lane == 0) store_result(y, row, sum, alpha, beta);
  }
}

extern __shared__ __align__(16) unsigned char csr_overlap_shared[];

/// Paper Alg. 4: block k takes batches [k * batches_per_block, ...) in order through a two-stage
/// pipeline: the values and columns of batch n + 1 are copied to shared memory (cp.async through
/// cuda::memcpy_async) while batch n is computed. Launched with blockDim.x a multiple of 32 and
/// 2 * C * (sizeof(V) + 4) bytes of dynamic shared memory (two stages).
template <typename V>
__global__ void __launch_bounds__(1024)
    batch_kernel(const BatchArguments<V> a, const V* __restrict__ x, V* __restrict__ y,
                 Acc<V> alpha, Acc<V> beta) {
  const std::int64_t first_batch = static_cast<std::int64_t>(blockIdx.x) * a.batches_per_block;
  const std::int64_t remaining = static_cast<std::int64_t>(a.batch_count) - first_batch;
  if (remaining <= 0) return;  // the whole block: before any barrier
  const int count = static_cast<int>(remaining < a.batches_per_block ? remaining
                                                                     : a.batches_per_block);
  const std::int32_t capacity = a.stage_capacity;
  V* const shared_values = reinterpret_cast<V*>(csr_overlap_shared);
  std::int32_t* const shared_cols = reinterpret_cast<std::int32_t*>(
      csr_overlap_shared + 2 * static_cast<std::size_t>(capacity) * sizeof(V));

  // Shared variables are never initialised by their constructor (warning 20054): make_pipeline
  // initialises the stage barriers itself (thread 0, then a block sync), as the CUDA guide does.
#pragma nv_diag_suppress 20054
  __shared__ cuda::pipeline_shared_state<cuda::thread_scope_block, 2> pipeline_state;
#pragma nv_diag_default 20054
  const auto block = cooperative_groups::this_thread_block();
  auto pipeline = cuda::make_pipeline(block, &pipeline_state);

  int fetch = 0;
  for (int compute = 0; compute < count; ++compute) {
    // stage 1: issue the copies of up to two batches ahead of the one computed
    for (; fetch < count && fetch < compute + 2; ++fetch) {
      const int2 batch = a.batches[first_batch + fetch];
      const std::int64_t begin = copy_begin(a.row_ptr[batch.x]);
      const std::int64_t elements = copy_end(a.row_ptr[batch.y]) - begin;
      if (elements > capacity) __trap();  // a partition bug: never overrun the stage
      const int stage = fetch % 2;
      pipeline.producer_acquire();
      cuda::memcpy_async(block, shared_values + static_cast<std::size_t>(stage) * capacity,
                         a.values + begin,
                         cuda::aligned_size_t<16>(static_cast<std::size_t>(elements) * sizeof(V)),
                         pipeline);
      cuda::memcpy_async(block, shared_cols + static_cast<std::size_t>(stage) * capacity,
                         a.col_idx + begin,
                         cuda::aligned_size_t<16>(static_cast<std::size_t>(elements) *
                                                  sizeof(std::int32_t)),
                         pipeline);
      pipeline.producer_commit();
    }
    // stage 2: compute the oldest batch in flight
    pipeline.consumer_wait();
    __syncthreads();  // every thread's copies of this stage visible to every thread (paper: block.sync())
    const int2 batch = a.batches[first_batch + compute];
    const std::int32_t first_nonzero = a.row_ptr[batch.x];
    const auto copy_first = static_cast<std::int32_t>(copy_begin(first_nonzero));
    const int stage = compute % 2;
    const V* values = shared_values + static_cast<std::size_t>(stage) * capacity;
    const std::int32_t* cols = shared_cols + static_cast<std::size_t>(stage) * capacity;
    const int vector = vector_size_for(a.row_ptr[batch.y] - first_nonzero, batch.y - batch.x,
                                       a.vector_sizes);
    switch (vector) {
      case 1: compute_batch<1>(a.row_ptr, batch.x, batch.y, copy_first, values, cols, x, y, alpha, beta); break;
      case 2: compute_batch<2>(a.row_ptr, batch.x, batch.y, copy_first, values, cols, x, y, alpha, beta); break;
      case 4: compute_batch<4>(a.row_ptr, batch.x, batch.y, copy_first, values, cols, x, y, alpha, beta); break;
      case 8: compute_batch<8>(a.row_ptr, batch.x, batch.y, copy_first, values, cols, x, y, alpha, beta); break;
      case 16: compute_batch<16>(a.row_ptr, batch.x, batch.y, copy_first, values, cols, x, y, alpha, beta); break;
      default: compute_batch<32>(a.row_ptr, batch.x, batch.y, copy_first, values, cols, x, y, alpha, beta); break;
    }
    __syncthreads();  // nobody still reads this stage when the next copy into it is issued
    pipeline.consumer_release();
  }
}

// ---- the long-row kernels ---------------------------------------------------------------------

template <typename V>
struct LongRowArguments {
  const std::int32_t* row_ptr;
  const std::int32_t* col_idx;
  const V* values;
  const std::int32_t* long_rows;
  const std::int32_t* long_task_ptr;  ///< long_count + 1
  std::int32_t long_count;
  std::int32_t task_count;
  std::int32_t piece;
  Acc<V>* partials;  ///< one a task; written for rows of several pieces
};

/// Paper Alg. 9 with rows cut in pieces: block-stride over the tasks; thread t of a block takes
/// nonzeros t, t + blockDim.x, ... of its piece; warp sums, then warp 0 sums the warp sums. A row
/// of one piece is written to y here; the pieces of a longer row go to partials and
/// combine_long_rows_kernel adds them in order (no atomics: repeated applies are bitwise equal).
template <typename V>
__global__ void __launch_bounds__(1024)
    long_row_kernel(const LongRowArguments<V> a, const V* __restrict__ x, V* __restrict__ y,
                    Acc<V> alpha, Acc<V> beta) {
  __shared__ Acc<V> warp_sums[32];
  const int warp = static_cast<int>(threadIdx.x) / 32;
  const int lane = static_cast<int>(threadIdx.x) % 32;
  const int warps = static_cast<int>(blockDim.x) / 32;
  for (std::int32_t task = blockIdx.x; task < a.task_count; task += gridDim.x) {
    // the long row of this task: the last j with long_task_ptr[j] <= task
    std::int32_t low = 0, high = a.long_count - 1;
    while (low < high) {
      const std::int32_t middle = low + (high - low + 1) / 2;
      if (a.long_task_ptr[middle] <= task)
        low = middle;
      else
        high = middle - 1;
    }
    const std::int32_t row = a.long_rows[low];
    const std::int32_t piece = task - a.long_task_ptr[low];
    const std::int32_t pieces = a.long_task_ptr[low + 1] - a.long_task_ptr[low];
    const std::int64_t row_end = a.row_ptr[row + 1];
    const std::int64_t start = a.row_ptr[row] + static_cast<std::int64_t>(piece) * a.piece;
    const std::int64_t end = start + a.piece < row_end ? start + a.piece : row_end;
    Acc<V> sum = 0;
    for (std::int64_t i = start + threadIdx.x; i < end; i += blockDim.x)
      sum += to_acc(a.values[i]) * to_acc(x[a.col_idx[i]]);
    sum = arch::group_sum<32>(sum);
    if (lane == 0) warp_sums[warp] = sum;
    __syncthreads();
    if (warp == 0) {
      Acc<V> total = lane < warps ? warp_sums[lane] : Acc<V>(0);
      total = arch::group_sum<32>(total);
      if (lane == 0) {
        if (pieces == 1)
          store_result(y, row, total, alpha, beta);
        else
          a.partials[task] = total;
      }
    }
    __syncthreads();  // warp_sums free for the next task
  }
}

/// One thread a long row of several pieces: the pieces' partial sums in order, then y.
template <typename V>
__global__ void combine_long_rows_kernel(const LongRowArguments<V> a, V* __restrict__ y,
                                         Acc<V> alpha, Acc<V> beta) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t j = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       j < a.long_count; j += stride) {
    const std::int32_t begin = a.long_task_ptr[j], end = a.long_task_ptr[j + 1];
    if (end - begin < 2) continue;
    Acc<V> sum = 0;
    for (std::int32_t t = begin; t < end; ++t) sum += a.partials[t];
    store_result(y, a.long_rows[j], sum, alpha, beta);
  }
}

}  // namespace tcsparse::csr_overlap::device
