// The GPU check of a DeviceCsrView and its copies (device_csr_view.hpp).
//
// The check is grid-stride kernels over the caller's arrays, writing into a CsrCheck (the row
// offsets' check and the columns' may run apart, as a plan checks the offsets while the columns
// are still on their way, or together with one download, validate_device_csr):
//   check_row_offsets_kernel         one thread per row r: row_ptr[r + 1] < row_ptr[r] ->
//                                    atomicMin of r; thread 0 also copies row_ptr[0] and
//                                    row_ptr[rows]
//   count_row_start_descents_kernel  one thread per row: counts the rows whose first entry's
//                                    column is <= the column stored before it (offsets outside
//                                    [0, nnz) skipped)
//   check_columns_kernel             one thread per entry k: column out of [0, cols) -> atomicMin
//                                    of 2k; counts the descents col_idx[k] <= col_idx[k - 1]
// With valid row offsets, nonempty rows start at distinct entries, so the row-start descents are
// among the descents, and the two counts are equal exactly when every descent is at a row start:
// the columns of every row strictly increase. Only when the columns fail (a range failure, or
// the counts differ) does the exact search run, which finds the first bad entry:
//   mark_row_starts_kernel           one thread per row: the bit of its first entry in a bitmap of
//                                    the entries
//   find_first_bad_entry_kernel      one thread per entry k: out of range -> code 2k, <= the
//                                    previous column while its bit is clear -> code 2k + 1;
//                                    atomicMin of the code.
// The smallest code is the first bad entry in storage order, which is the host's first bad row
// and, inside it, the host's first bad entry (a range failure precedes an order failure at the
// same entry, as on the host). Column results are read only when the row offsets passed.
#include "runtime/device_csr_view.hpp"

#include <cuda_runtime_api.h>

#include <cub/block/block_reduce.cuh>

#include <algorithm>
#include <cstddef>
#include <limits>
#include <string>

#include "arch/warp.cuh"
#include "common/stopwatch.hpp"
#include "core/csr_validation_messages.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_buffer.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::detail {

namespace {

constexpr int kCheckThreads = 256;
/// Enough blocks to fill any current GPU; the kernels stride over the rest.
constexpr std::int64_t kCheckMaxBlocks = 1 << 14;
constexpr unsigned long long kNothingFound = std::numeric_limits<unsigned long long>::max();

/// Column loads a thread has in flight in check_columns_kernel.
constexpr int kColumnLoadsInFlight = 4;

/// What the check kernels found. Up to `descents`, set to all ones (kNothingFound) before they
/// run; the counts, to zero (fresh_check).
struct CsrCheck {
  unsigned long long first_decreasing_row;
  unsigned long long first_bad_entry_code;  ///< 2k: column out of range; 2k + 1: not increasing
  long long first_offset;                   ///< row_ptr[0]
  long long last_offset;                    ///< row_ptr[rows]
  unsigned long long descents;              ///< entries k >= 1: col_idx[k] <= col_idx[k - 1]
  unsigned long long row_start_descents;    ///< of those, the first entries of rows
};

/// The entry that failed, for the message.
struct BadEntry {
  long long row;
  long long column;
  long long previous_column;  ///< column of entry k - 1 (meaningful for an order failure)
};

unsigned check_grid(std::int64_t items) {
  return static_cast<unsigned>(
      std::clamp<std::int64_t>((items + kCheckThreads - 1) / kCheckThreads, 1, kCheckMaxBlocks));
}

/// The counting kernels' grid: at most one wave of resident blocks, so that each block adds its
/// count to the one total once.
unsigned counting_grid(std::int64_t items) {
  constexpr int kResidentThreadsPerSm = 2048;  // sm_80 and sm_90
  const std::int64_t wave = std::int64_t{kResidentThreadsPerSm / kCheckThreads} *
                            current_device_attribute(cudaDevAttrMultiProcessorCount);
  return static_cast<unsigned>(
      std::clamp<std::int64_t>((items + kCheckThreads - 1) / kCheckThreads, 1, wave));
}

/// Adds every thread's `count` to `*total`: one atomic a block.
__device__ void add_block_count(unsigned long long count, unsigned long long* total) {
  using BlockSum = cub::BlockReduce<unsigned long long, kCheckThreads>;
  __shared__ typename BlockSum::TempStorage storage;
  const unsigned long long block_count = BlockSum(storage).Sum(count);
  if (threadIdx.x == 0 && block_count > 0) atomicAdd(total, block_count);
}

/// The row holding entry k (< row_ptr[rows]): the last r with row_ptr[r] <= k.
__device__ std::int64_t row_of_entry(const std::int32_t* row_ptr, std::int64_t rows,
                                     std::int64_t k) {
  std::int64_t low = 0, high = rows;  // row_ptr[low] <= k < row_ptr[high] when valid
  while (high - low > 1) {
    const std::int64_t middle = low + (high - low) / 2;
    if (row_ptr[middle] <= k) low = middle;
    else high = middle;
  }
  return low;
}

__global__ void check_row_offsets_kernel(const std::int32_t* row_ptr, std::int64_t rows,
                                         CsrCheck* check) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  const std::int64_t first = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
  if (first == 0) {
    check->first_offset = row_ptr[0];
    check->last_offset = row_ptr[rows];
  }
  for (std::int64_t row = first; row < rows; row += stride)
    if (row_ptr[row + 1] < row_ptr[row])
      atomicMin(&check->first_decreasing_row, static_cast<unsigned long long>(row));
}

/// One thread per row (blockDim.x == kCheckThreads): counts the nonempty rows whose first entry
/// k (0 < k < nnz) has col_idx[k] <= col_idx[k - 1]. Offsets outside [0, nnz) are skipped, so
/// that it may run before the row offsets' check has answered (its counts then go unread).
__global__ void count_row_start_descents_kernel(const std::int32_t* __restrict__ row_ptr,
                                                const std::int32_t* __restrict__ col_idx,
                                                std::int64_t rows, std::int64_t nnz,
                                                CsrCheck* check) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  unsigned long long count = 0;
  for (std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       row < rows; row += stride) {
    const std::int64_t first = row_ptr[row];
    if (first > 0 && first < nnz && first < row_ptr[row + 1] &&
        col_idx[first] <= col_idx[first - 1])
      ++count;
  }
  add_block_count(count, &check->row_start_descents);
}

/// One thread per entry, a warp on 32 consecutive entries (blockDim.x == kCheckThreads):
/// columns out of [0, cols) -> atomicMin of code 2k; counts the descents col_idx[k] <=
/// col_idx[k - 1] among the others. Each lane takes the column before its own from the lane
/// below (lane 0 loads it).
__global__ void check_columns_kernel(const std::int32_t* __restrict__ col_idx, std::int64_t cols,
                                     std::int64_t nnz, CsrCheck* check) {
  const int lane = static_cast<int>(threadIdx.x % arch::kWarpSize);
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  unsigned long long count = 0;
  // warp-uniform loop: every lane shuffles, lanes past nnz check nothing
  for (std::int64_t base = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x - lane;
       base < nnz; base += kColumnLoadsInFlight * stride) {
    std::int32_t column[kColumnLoadsInFlight], before_warp[kColumnLoadsInFlight];
#pragma unroll
    for (int j = 0; j < kColumnLoadsInFlight; ++j) {  // every load issued before the first use
      const std::int64_t k = base + j * stride + lane;
      column[j] = k < nnz ? col_idx[k] : 0;
      before_warp[j] = lane == 0 && k > 0 && k < nnz ? col_idx[k - 1] : 0;
    }
#pragma unroll
    for (int j = 0; j < kColumnLoadsInFlight; ++j) {
      const std::int64_t k = base + j * stride + lane;
      std::int32_t previous = __shfl_up_sync(arch::kFullMask, column[j], 1);
      if (lane == 0) previous = before_warp[j];
      if (k >= nnz) continue;
      if (column[j] < 0 || column[j] >= cols)
        atomicMin(&check->first_bad_entry_code, static_cast<unsigned long long>(2 * k));
      else if (k > 0 && column[j] <= previous)
        ++count;
    }
  }
  add_block_count(count, &check->descents);
}

/// The exact search, one thread per row: the bit of the row's first entry set in `row_starts` (a
/// bit per entry, zeroed first; offsets outside [0, nnz) skipped).
__global__ void mark_row_starts_kernel(const std::int32_t* row_ptr, std::int64_t rows,
                                       std::int64_t nnz, unsigned* row_starts) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t row = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x;
       row < rows; row += stride) {
    const std::int64_t first = row_ptr[row];
    if (first >= 0 && first < nnz && first < row_ptr[row + 1])
      atomicOr(&row_starts[first / 32], 1u << (first % 32));
  }
}

/// The exact search, one thread per entry k: the smallest code (2k: out of range; 2k + 1: not
/// above the column before it while not the first entry of its row).
__global__ void find_first_bad_entry_kernel(const std::int32_t* col_idx,
                                            const unsigned* row_starts, std::int64_t cols,
                                            std::int64_t nnz, CsrCheck* check) {
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x;
  for (std::int64_t k = static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x; k < nnz;
       k += stride) {
    const std::int32_t column = col_idx[k];
    if (column < 0 || column >= cols) {
      atomicMin(&check->first_bad_entry_code, static_cast<unsigned long long>(2 * k));
      continue;
    }
    if (k == 0 || column > col_idx[k - 1]) continue;
    if (!((row_starts[k / 32] >> (k % 32)) & 1u))  // not the first entry of its row
      atomicMin(&check->first_bad_entry_code, static_cast<unsigned long long>(2 * k + 1));
  }
}

__global__ void describe_entry_kernel(const std::int32_t* row_ptr, const std::int32_t* col_idx,
                                      std::int64_t rows, std::int64_t k, BadEntry* entry) {
  entry->row = row_of_entry(row_ptr, rows, k);
  entry->column = col_idx[k];
  entry->previous_column = k > 0 ? col_idx[k - 1] : -1;
}

std::string str(std::int64_t value) { return std::to_string(value); }

/// `pointer` must be device memory of the current device, or managed memory.
void require_device_pointer(const void* pointer, const char* name) {
  cudaPointerAttributes attributes{};
  const cudaError_t status = cudaPointerGetAttributes(&attributes, pointer);
  if (status == cudaErrorInvalidValue) {
    cudaGetLastError();  // an unknown pointer is an answer here, not an error to keep
    attributes.type = cudaMemoryTypeUnregistered;
  } else {
    TCSPARSE_CUDA_CHECK(status);
  }
  const std::string what = std::string("DeviceCsrView::") + name;
  switch (attributes.type) {
    case cudaMemoryTypeManaged: return;
    case cudaMemoryTypeDevice: {
      int current = 0;
      TCSPARSE_CUDA_CHECK(cudaGetDevice(&current));
      if (attributes.device == current) return;
      throw ValidationError(what + " is memory of CUDA device " + str(attributes.device) +
                            ", but the plan is built on device " + str(current) +
                            " (PlanOptions::device)");
    }
    case cudaMemoryTypeHost:
      throw ValidationError(what + " is pinned host memory: a DeviceCsrView needs device or "
                            "managed memory (build the plan from a CsrMatrix for host arrays)");
    case cudaMemoryTypeUnregistered:
    default:
      throw ValidationError(what + " is not GPU memory (a host pointer?): a DeviceCsrView needs "
                            "device or managed memory (build the plan from a CsrMatrix for host "
                            "arrays)");
  }
}

template <typename Value>
void check_shape_and_pointers(const DeviceCsrView<Value>& view) {
  namespace message = csr_message;
  if (view.rows < 0) throw ValidationError(message::negative_rows(view.rows));
  if (view.cols < 0) throw ValidationError(message::negative_cols(view.cols));
  if (view.nnz < 0) throw ValidationError("negative number of nonzeros: " + str(view.nnz));
  constexpr std::int64_t kIndexMax = std::numeric_limits<std::int32_t>::max();
  const auto require_int32 = [](std::int64_t count, const char* what) {
    if (count > kIndexMax)
      throw IndexOverflowError("DeviceCsrView: " + str(count) + " " + what +
                               " do not fit int32 indices");
  };
  require_int32(view.rows, "rows");
  require_int32(view.cols, "columns");
  require_int32(view.nnz, "nonzeros");
  if (view.row_ptr == nullptr)
    throw ValidationError("DeviceCsrView::row_ptr is null, expected rows + 1 = " +
                          str(view.rows + 1) + " offsets");
  require_device_pointer(view.row_ptr, "row_ptr");
  if (view.nnz == 0) return;
  if (view.col_idx == nullptr)
    throw ValidationError("DeviceCsrView::col_idx is null, expected nnz = " + str(view.nnz) +
                          " column indices");
  if (view.values == nullptr)
    throw ValidationError("DeviceCsrView::values is null, expected nnz = " + str(view.nnz) +
                          " values");
  require_device_pointer(view.col_idx, "col_idx");
  require_device_pointer(view.values, "values");
}

template <typename T>
std::size_t bytes_of(std::int64_t count) {
  return static_cast<std::size_t>(count) * sizeof(T);
}

/// Throws what the row offsets' check found wrong, if anything.
template <typename Value>
void report_row_offsets(const CsrCheck& found, const DeviceCsrView<Value>& view,
                        cudaStream_t stream) {
  namespace message = csr_message;
  if (found.first_offset != 0) throw ValidationError(message::first_row_offset(found.first_offset));
  if (found.first_decreasing_row != kNothingFound) {
    const auto row = static_cast<std::int64_t>(found.first_decreasing_row);
    std::int32_t offsets[2] = {0, 0};
    TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(offsets, view.row_ptr + row, sizeof(offsets),
                                        cudaMemcpyDeviceToHost, stream));
    TCSPARSE_CUDA_CHECK(cudaStreamSynchronize(stream));
    throw ValidationError(message::decreasing_row_offsets(row, offsets[0], offsets[1]));
  }
  if (found.last_offset != view.nnz)
    throw ValidationError(message::last_row_offset(found.last_offset, view.nnz));
}

/// A CsrCheck on `stream`, set to "nothing found" and zero counts.
DeviceBuffer<CsrCheck> fresh_check(cudaStream_t stream) {
  auto check = DeviceBuffer<CsrCheck>::on_stream(1, stream);
  constexpr std::size_t kFound = offsetof(CsrCheck, descents);
  auto* bytes = reinterpret_cast<unsigned char*>(check.data());
  TCSPARSE_CUDA_CHECK(cudaMemsetAsync(bytes, 0xFF, kFound, stream));
  TCSPARSE_CUDA_CHECK(cudaMemsetAsync(bytes + kFound, 0, sizeof(CsrCheck) - kFound, stream));
  return check;
}

/// The columns' check into `check`: range failures and the two descent counts.
template <typename Value>
void launch_column_check(const DeviceCsrView<Value>& view, CsrCheck* check, cudaStream_t stream) {
  count_row_start_descents_kernel<<<counting_grid(view.rows), kCheckThreads, 0, stream>>>(
      view.row_ptr, view.col_idx, view.rows, view.nnz, check);
  TCSPARSE_CUDA_CHECK_LAUNCH();
  check_columns_kernel<<<counting_grid(view.nnz), kCheckThreads, 0, stream>>>(
      view.col_idx, view.cols, view.nnz, check);
  TCSPARSE_CUDA_CHECK_LAUNCH();
}

/// The code of the first bad entry (CsrCheck::first_bad_entry_code), by the exact search on
/// `stream` (waits for it): only after the columns' check failed.
template <typename Value>
unsigned long long first_bad_entry_code(const DeviceCsrView<Value>& view, cudaStream_t stream) {
  auto check = fresh_check(stream);
  auto row_starts = DeviceBuffer<unsigned>::on_stream(static_cast<std::size_t>(view.nnz / 32 + 1),
                                                      stream);
  TCSPARSE_CUDA_CHECK(cudaMemsetAsync(row_starts.data(), 0, row_starts.bytes(), stream));
  mark_row_starts_kernel<<<check_grid(view.rows), kCheckThreads, 0, stream>>>(
      view.row_ptr, view.rows, view.nnz, row_starts.data());
  TCSPARSE_CUDA_CHECK_LAUNCH();
  find_first_bad_entry_kernel<<<check_grid(view.nnz), kCheckThreads, 0, stream>>>(
      view.col_idx, row_starts.data(), view.cols, view.nnz, check.data());
  TCSPARSE_CUDA_CHECK_LAUNCH();
  return download_one(check.data(), stream).first_bad_entry_code;
}

/// Throws what the columns' check found wrong, if anything (the row offsets passed).
template <typename Value>
void report_columns(const CsrCheck& found, const DeviceCsrView<Value>& view,
                    cudaStream_t stream) {
  namespace message = csr_message;
  if (found.first_bad_entry_code == kNothingFound && found.descents == found.row_start_descents)
    return;
  const unsigned long long code = first_bad_entry_code(view, stream);
  if (code == kNothingFound)
    throw Error("DeviceCsrView check: the column counts disagree (" +
                str(static_cast<std::int64_t>(found.descents)) + " descents, " +
                str(static_cast<std::int64_t>(found.row_start_descents)) +
                " at row starts) but no bad entry was found: a bug, please report it");
  const auto k = static_cast<std::int64_t>(code / 2);
  const bool out_of_range = code % 2 == 0;
  auto described = DeviceBuffer<BadEntry>::on_stream(1, stream);
  describe_entry_kernel<<<1, 1, 0, stream>>>(view.row_ptr, view.col_idx, view.rows, k,
                                             described.data());
  TCSPARSE_CUDA_CHECK_LAUNCH();
  const BadEntry entry = download_one(described.data(), stream);
  if (out_of_range)
    throw ValidationError(message::column_out_of_range(entry.row, entry.column, view.cols));
  if (entry.column == entry.previous_column)
    throw ValidationError(message::duplicate_column(entry.row, entry.column));
  throw ValidationError(message::unsorted_column(entry.row, entry.column, entry.previous_column));
}

}  // namespace

template <typename Value>
void validate_device_row_offsets(const DeviceCsrView<Value>& view, cudaStream_t stream) {
  check_shape_and_pointers(view);
  TemporaryMemoryScope temporaries(stream);  // first: outlives the temporaries
  auto check = fresh_check(stream);
  check_row_offsets_kernel<<<check_grid(view.rows), kCheckThreads, 0, stream>>>(
      view.row_ptr, view.rows, check.data());
  TCSPARSE_CUDA_CHECK_LAUNCH();
  report_row_offsets(download_one(check.data(), stream), view, stream);
}

template <typename Value>
void validate_device_columns(const DeviceCsrView<Value>& view, cudaStream_t stream) {
  if (view.nnz == 0) return;
  TemporaryMemoryScope temporaries(stream);  // first: outlives the temporaries
  auto check = fresh_check(stream);
  launch_column_check(view, check.data(), stream);
  report_columns(download_one(check.data(), stream), view, stream);
}

/// Both checks in one pass: every kernel, then one download (the row offsets' answer first:
/// with bad offsets the columns' answer is not read).
template <typename Value>
void validate_device_csr(const DeviceCsrView<Value>& view) {
  check_shape_and_pointers(view);
  const cudaStream_t stream = nullptr;
  TemporaryMemoryScope temporaries(stream);  // first: outlives the temporaries
  auto check = fresh_check(stream);
  check_row_offsets_kernel<<<check_grid(view.rows), kCheckThreads, 0, stream>>>(
      view.row_ptr, view.rows, check.data());
  TCSPARSE_CUDA_CHECK_LAUNCH();
  if (view.nnz > 0) launch_column_check(view, check.data(), stream);
  const CsrCheck found = download_one(check.data(), stream);
  report_row_offsets(found, view, stream);
  report_columns(found, view, stream);
}

template <typename Value>
DeviceCsr<Value> copy_device_csr(const DeviceCsrView<Value>& view, PlanStats& stats,
                                 std::size_t nonzero_multiple) {
  const auto nnz = static_cast<std::size_t>(view.nnz);
  const std::size_t capacity =
      nonzero_multiple <= 1
          ? nnz
          : std::max<std::size_t>(1, (nnz + nonzero_multiple - 1) / nonzero_multiple) *
                nonzero_multiple;
  DeviceCsr<Value> device;
  device.rows = view.rows;
  device.cols = view.cols;
  device.nnz = view.nnz;
  device.row_ptr = DeviceBuffer<std::int32_t>(static_cast<std::size_t>(view.rows) + 1);
  device.col_idx = DeviceBuffer<std::int32_t>(capacity);
  device.values = DeviceBuffer<Value>(capacity);

  const cudaStream_t stream = nullptr;
  CudaEvent start, stop;
  start.record(stream);
  TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(device.row_ptr.data(), view.row_ptr, device.row_ptr.bytes(),
                                      cudaMemcpyDeviceToDevice, stream));
  if (nnz > 0) {
    TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(device.col_idx.data(), view.col_idx,
                                        bytes_of<std::int32_t>(view.nnz), cudaMemcpyDeviceToDevice,
                                        stream));
    TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(device.values.data(), view.values, bytes_of<Value>(view.nnz),
                                        cudaMemcpyDeviceToDevice, stream));
  }
  if (capacity > nnz) {
    const auto tail = static_cast<std::int64_t>(capacity - nnz);
    TCSPARSE_CUDA_CHECK(cudaMemsetAsync(device.col_idx.data() + nnz, 0,
                                        bytes_of<std::int32_t>(tail), stream));
    TCSPARSE_CUDA_CHECK(
        cudaMemsetAsync(device.values.data() + nnz, 0, bytes_of<Value>(tail), stream));
  }
  stop.record(stream);
  stop.synchronize();
  stats.upload_ms += stop.elapsed_ms_since(start);
  return device;
}

template <typename Value>
CsrMatrix<Value, std::int32_t> download_device_csr(const DeviceCsrView<Value>& view) {
  CsrMatrix<Value, std::int32_t> matrix;
  matrix.rows = static_cast<std::int32_t>(view.rows);
  matrix.cols = static_cast<std::int32_t>(view.cols);
  matrix.row_ptr.resize(static_cast<std::size_t>(view.rows) + 1);
  matrix.col_idx.resize(static_cast<std::size_t>(view.nnz));
  matrix.values.resize(static_cast<std::size_t>(view.nnz));
  TCSPARSE_CUDA_CHECK(cudaMemcpy(matrix.row_ptr.data(), view.row_ptr,
                                 bytes_of<std::int32_t>(view.rows + 1), cudaMemcpyDeviceToHost));
  if (view.nnz > 0) {
    TCSPARSE_CUDA_CHECK(cudaMemcpy(matrix.col_idx.data(), view.col_idx,
                                   bytes_of<std::int32_t>(view.nnz), cudaMemcpyDeviceToHost));
    TCSPARSE_CUDA_CHECK(cudaMemcpy(matrix.values.data(), view.values, bytes_of<Value>(view.nnz),
                                   cudaMemcpyDeviceToHost));
  }
  return matrix;
}

#define TCSPARSE_INSTANTIATE_DEVICE_CSR_VIEW(Value)                                           \
  template void validate_device_csr(const DeviceCsrView<Value>&);                            \
  template void validate_device_row_offsets(const DeviceCsrView<Value>&, cudaStream_t);      \
  template void validate_device_columns(const DeviceCsrView<Value>&, cudaStream_t);          \
  template DeviceCsr<Value> copy_device_csr(const DeviceCsrView<Value>&, PlanStats&,          \
                                            std::size_t);                                     \
  template CsrMatrix<Value, std::int32_t> download_device_csr(const DeviceCsrView<Value>&);
TCSPARSE_INSTANTIATE_DEVICE_CSR_VIEW(double)
TCSPARSE_INSTANTIATE_DEVICE_CSR_VIEW(float)
TCSPARSE_INSTANTIATE_DEVICE_CSR_VIEW(half)
TCSPARSE_INSTANTIATE_DEVICE_CSR_VIEW(bfloat16)
#undef TCSPARSE_INSTANTIATE_DEVICE_CSR_VIEW

}  // namespace tcsparse::detail
