// The GPU check of a DeviceCsrView and its copies (device_csr_view.hpp).
//
// Two grid-stride kernels over the caller's arrays write into a CsrCheck, with a bitmap of the
// entries that begin a row between them (a bit per entry; nnz / 8 bytes; the CsrCheck and the
// bitmap are one allocation, zeroed by one memset). Each
// thread takes 4 consecutive rows or 8 consecutive entries, in 16-byte loads where the array is
// 16-byte aligned (the kernels are bound by instructions and loads in flight, not by bytes):
//   check_row_offsets_kernel  rows r: row_ptr[r + 1] < row_ptr[r] -> the smallest such r (an
//                             atomicMax of its complement, below); otherwise,
//                             when the row is nonempty and inside [0, nnz), the bit of its first
//                             entry (the thread ORs its rows' bits of one word together: one
//                             atomicOr a word it touches); thread 0 also copies row_ptr[0] and
//                             row_ptr[rows]
//   check_columns_kernel      entries k: column out of [0, cols) -> code 2k; column <= the
//                             column before it while k begins no row -> code 2k + 1; the warp's
//                             smallest code (an atomicMax of its complement)
//
//   a warp's 8 x 32 entries   lane 0: k0 .. k0+7 | lane 1: k0+8 .. k0+15 | ... (k0 % 256 == 0)
//   their bitmap words        row_starts[k0 / 32 .. k0 / 32 + 7], 4 lanes a word
//
// The smallest code is the first bad entry in storage order, which is the host's first bad row
// and, inside it, the host's first bad entry (a range failure precedes an order failure at the
// same entry, as on the host). The columns' answer is read only when the row offsets passed: with
// bad offsets the bitmap means nothing. So the whole check reads row_ptr and col_idx once each,
// and the bitmap twice.
#include "runtime/device_csr_view.hpp"

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstddef>
#include <cstdint>
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
constexpr unsigned long long kNothingFound = std::numeric_limits<unsigned long long>::max();

/// Rows a thread takes at a time in check_row_offsets_kernel (one 16-byte load of offsets).
constexpr int kPerThread = 4;
/// Entries a thread takes at a time in check_columns_kernel (two 16-byte loads), and groups of
/// them it has in flight: the kernel is bound by its instructions, which the per-group work
/// (bitmap word, shuffle, vote) adds to.
constexpr int kEntriesPerThread = 2 * kPerThread;
constexpr int kEntryGroupsInFlight = 2;

/// What the check kernels found, zeroed before they run. The smallest failing row and entry
/// code are kept as complements (~value, raised by atomicMax), so that the zeroed fields read
/// kNothingFound: one memset clears them and the bitmap together.
struct CsrCheck {
  unsigned long long first_decreasing_row_complement;
  unsigned long long first_bad_entry_code_complement;  ///< of 2k: out of range; 2k + 1: not increasing
  long long first_offset;                              ///< row_ptr[0]
  long long last_offset;                               ///< row_ptr[rows]
  unsigned long long first_decreasing_row() const { return ~first_decreasing_row_complement; }
  unsigned long long first_bad_entry_code() const { return ~first_bad_entry_code_complement; }
};

/// The entry that failed, for the message.
struct BadEntry {
  long long row;
  long long column;
  long long previous_column;  ///< column of entry k - 1 (meaningful for an order failure)
};

/// Blocks for `threads` threads, at most one wave of resident blocks (the kernels stride over
/// the rest), at least one.
unsigned check_grid(std::int64_t threads) {
  constexpr int kResidentThreadsPerSm = 2048;  // sm_80 and sm_90
  const std::int64_t wave = std::int64_t{kResidentThreadsPerSm / kCheckThreads} *
                            current_device_attribute(cudaDevAttrMultiProcessorCount);
  return static_cast<unsigned>(
      std::clamp<std::int64_t>((threads + kCheckThreads - 1) / kCheckThreads, 1, wave));
}

bool aligned_for_vector_loads(const void* array) {
  return reinterpret_cast<std::uintptr_t>(array) % sizeof(int4) == 0;
}

/// Words of the row-start bitmap of `nnz` entries.
std::size_t row_start_words(std::int64_t nnz) { return static_cast<std::size_t>(nnz / 32 + 1); }

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

/// array[first .. first + 3], those below `count` (the others 0): one 16-byte load when all four
/// are there and the array is 16-byte aligned (kAligned).
template <bool kAligned>
__device__ __forceinline__ void load_four(const std::int32_t* __restrict__ array,
                                          std::uint32_t first, std::uint32_t count,
                                          std::int32_t* out) {
  if (kAligned && first + kPerThread <= count) {
    const int4 v = *reinterpret_cast<const int4*>(array + first);
    out[0] = v.x, out[1] = v.y, out[2] = v.z, out[3] = v.w;
    return;
  }
#pragma unroll
  for (int i = 0; i < kPerThread; ++i) out[i] = first + i < count ? array[first + i] : 0;
}

/// Thread q takes rows 4q .. 4q + 3 (those below rows), a warp 128 consecutive rows; the offset
/// after its last row is the next lane's first (lane 31 loads it). With `row_starts` null, the
/// offsets only.
template <bool kAligned>
__global__ void check_row_offsets_kernel(const std::int32_t* __restrict__ row_ptr,
                                         std::int64_t rows, std::int64_t nnz, CsrCheck* check,
                                         unsigned* row_starts) {
  // 32-bit indices (rows < 2^31): the kernel is bound by its instructions
  const int lane = static_cast<int>(threadIdx.x % arch::kWarpSize);
  const std::uint32_t row_count = static_cast<std::uint32_t>(rows);
  const std::uint32_t entry_count = static_cast<std::uint32_t>(nnz);
  const std::uint32_t stride = gridDim.x * blockDim.x;
  const std::uint32_t first = blockIdx.x * blockDim.x + threadIdx.x;
  if (first == 0) {
    check->first_offset = row_ptr[0];
    check->last_offset = row_ptr[rows];
  }
  const std::uint32_t groups = (row_count + kPerThread - 1) / kPerThread;
  // warp-uniform loop: every lane shuffles
  for (std::uint32_t group = first; group - lane < groups; group += stride) {
    const std::uint32_t r0 = group * kPerThread;
    std::int32_t offset[kPerThread + 1];  // a group past the rows still loads row_ptr[rows]
    load_four<kAligned>(row_ptr, r0 <= row_count ? r0 : row_count + 1, row_count + 1, offset);
    offset[kPerThread] = __shfl_down_sync(arch::kFullMask, offset[0], 1);
    if (lane == arch::kWarpSize - 1 && r0 + kPerThread <= row_count)
      offset[kPerThread] = row_ptr[r0 + kPerThread];
    if (group >= groups) continue;
    const int here = row_count - r0 < kPerThread ? static_cast<int>(row_count - r0) : kPerThread;
    unsigned decreasing = 0;  // bit i: row r0 + i
#pragma unroll
    for (int i = 0; i < kPerThread; ++i)
      decreasing |= static_cast<unsigned>(i < here && offset[i + 1] < offset[i]) << i;
    if (decreasing != 0) {
      atomicMax(&check->first_decreasing_row_complement,
                ~static_cast<unsigned long long>(r0 + __ffs(decreasing) - 1));
      continue;  // the bitmap is not read when the offsets fail
    }
    if (row_starts == nullptr) continue;
    unsigned word = 0, bits = 0;  // bits of row starts in bitmap word `word`, not yet written
#pragma unroll
    for (int i = 0; i < kPerThread; ++i) {
      const std::int32_t begin = offset[i];
      if (i >= here || begin == offset[i + 1] || begin < 0 ||
          static_cast<std::uint32_t>(offset[i + 1]) > entry_count)
        continue;
      const unsigned begin_word = static_cast<unsigned>(begin) / 32;
      if (bits != 0 && begin_word != word) {
        atomicOr(&row_starts[word], bits);
        bits = 0;
      }
      word = begin_word;
      bits |= 1u << (begin % 32);
    }
    if (bits != 0) atomicOr(&row_starts[word], bits);
  }
}

/// Thread q takes entries 8q .. 8q + 7 (those below nnz), a warp 256 consecutive entries and
/// the 8 bitmap words of them (the lane's 8 bits at (8 * lane) % 32), kEntryGroupsInFlight such
/// groups loaded before the first is checked. The column before a thread's first entry is the
/// previous lane's last (lane 0 loads it). A group is checked with 8-bit masks: out of range, not
/// above the column before, begins a row.
template <bool kAligned>
__global__ void check_columns_kernel(const std::int32_t* __restrict__ col_idx,
                                     const unsigned* __restrict__ row_starts, std::int64_t cols,
                                     std::int64_t nnz, CsrCheck* check) {
  // 32-bit indices (nnz < 2^31): the kernel is bound by its instructions
  constexpr int kGroups = kEntryGroupsInFlight;
  constexpr int kEntries = kEntriesPerThread;
  constexpr unsigned kAllEntries = (1u << kEntries) - 1;
  const int lane = static_cast<int>(threadIdx.x % arch::kWarpSize);
  const int bit_shift = (kEntries * lane) % 32;  // every group's k0 % 32
  const std::uint32_t stride = gridDim.x * blockDim.x;
  const std::uint32_t entry_count = static_cast<std::uint32_t>(nnz);
  const std::uint32_t groups = (entry_count + kEntries - 1) / kEntries;
  const auto column_count = static_cast<std::uint32_t>(cols);
  // warp-uniform loop: every lane shuffles, lanes past the end check nothing
  for (std::uint32_t base = blockIdx.x * blockDim.x + threadIdx.x - lane; base < groups;
       base += kGroups * stride) {
    std::int32_t column[kGroups][kEntries], before_warp[kGroups];
    unsigned starts[kGroups];
#pragma unroll
    for (int j = 0; j < kGroups; ++j) {  // every load issued before the first use
      const std::uint32_t k0 = (base + j * stride + lane) * kEntries;
#pragma unroll
      for (int half = 0; half < kEntries; half += kPerThread) {
        const std::uint32_t first = k0 + half;
        load_four<kAligned>(col_idx, first < entry_count ? first : entry_count, entry_count,
                            column[j] + half);
      }
      starts[j] = k0 < entry_count ? row_starts[k0 / 32] : 0;
      // entry 0 has no column before it: INT32_MIN, above which every column in range is
      before_warp[j] = lane != 0 ? 0 : k0 > 0 && k0 < entry_count ? col_idx[k0 - 1] : INT32_MIN;
    }
#pragma unroll
    for (int j = 0; j < kGroups; ++j) {
      const std::uint32_t k0 = (base + j * stride + lane) * kEntries;
      std::int32_t previous = __shfl_up_sync(arch::kFullMask, column[j][kEntries - 1], 1);
      if (lane == 0) previous = before_warp[j];
      unsigned out_of_range = 0, not_increasing = 0;  // bit i: entry k0 + i
#pragma unroll
      for (int i = 0; i < kEntries; ++i) {
        const std::int32_t c = column[j][i];
        out_of_range |= static_cast<unsigned>(static_cast<std::uint32_t>(c) >= column_count) << i;
        not_increasing |= static_cast<unsigned>(c <= (i == 0 ? previous : column[j][i - 1])) << i;
      }
      const unsigned row_begins = (starts[j] >> bit_shift) & kAllEntries;
      const std::uint32_t left = k0 < entry_count ? entry_count - k0 : 0;
      const unsigned present = left >= kEntries ? kAllEntries : (1u << left) - 1;
      const unsigned bad = (out_of_range | (not_increasing & ~row_begins)) & present;
      // the warp's entries ascend with the lane: its first failing lane has its smallest code
      const unsigned failing = __ballot_sync(arch::kFullMask, bad != 0);
      if (failing != 0 && lane == __ffs(failing) - 1) {
        const int i = __ffs(bad) - 1;
        atomicMax(&check->first_bad_entry_code_complement,
                  ~(2 * static_cast<unsigned long long>(k0 + i) + ((out_of_range >> i) & 1u ? 0 : 1)));
      }
    }
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
  if (found.first_decreasing_row() != kNothingFound) {
    const auto row = static_cast<std::int64_t>(found.first_decreasing_row());
    std::int32_t offsets[2] = {0, 0};
    TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(offsets, view.row_ptr + row, sizeof(offsets),
                                        cudaMemcpyDeviceToHost, stream));
    TCSPARSE_CUDA_CHECK(cudaStreamSynchronize(stream));
    throw ValidationError(message::decreasing_row_offsets(row, offsets[0], offsets[1]));
  }
  if (found.last_offset != view.nnz)
    throw ValidationError(message::last_row_offset(found.last_offset, view.nnz));
}

/// A CsrCheck set to "nothing found" and, for `entries` > 0, the row-start bitmap of that many
/// entries after it with no bit set: one allocation on `stream`, one memset.
struct CheckScratch {
  DeviceBuffer<std::byte> memory;
  CsrCheck* check = nullptr;
  unsigned* row_starts = nullptr;  ///< null without entries
};

CheckScratch fresh_check(std::int64_t entries, cudaStream_t stream) {
  constexpr std::size_t kBitmapOffset = 256;  // the allocator's alignment
  static_assert(sizeof(CsrCheck) <= kBitmapOffset);
  const std::size_t bytes =
      kBitmapOffset + (entries > 0 ? row_start_words(entries) * sizeof(unsigned) : 0);
  CheckScratch scratch;
  scratch.memory = DeviceBuffer<std::byte>::on_stream(bytes, stream);
  TCSPARSE_CUDA_CHECK(cudaMemsetAsync(scratch.memory.data(), 0, bytes, stream));
  scratch.check = reinterpret_cast<CsrCheck*>(scratch.memory.data());
  if (entries > 0)
    scratch.row_starts = reinterpret_cast<unsigned*>(scratch.memory.data() + kBitmapOffset);
  return scratch;
}

/// The row offsets' check into `check` and, unless `row_starts` is null, the row-start bitmap
/// (zeroed by fresh_check).
template <typename Value>
void launch_row_offsets_check(const DeviceCsrView<Value>& view, CsrCheck* check,
                              unsigned* row_starts, cudaStream_t stream) {
  const auto kernel = aligned_for_vector_loads(view.row_ptr) ? &check_row_offsets_kernel<true>
                                                             : &check_row_offsets_kernel<false>;
  kernel<<<check_grid(view.rows / kPerThread + 1), kCheckThreads, 0, stream>>>(
      view.row_ptr, view.rows, view.nnz, check, row_starts);
  TCSPARSE_CUDA_CHECK_LAUNCH();
}

template <typename Value>
void launch_column_check(const DeviceCsrView<Value>& view, const unsigned* row_starts,
                         CsrCheck* check, cudaStream_t stream) {
  const auto kernel = aligned_for_vector_loads(view.col_idx) ? &check_columns_kernel<true>
                                                             : &check_columns_kernel<false>;
  const std::int64_t threads = view.nnz / (kEntriesPerThread * kEntryGroupsInFlight) + 1;
  kernel<<<check_grid(threads), kCheckThreads, 0, stream>>>(view.col_idx, row_starts, view.cols,
                                                           view.nnz, check);
  TCSPARSE_CUDA_CHECK_LAUNCH();
}

/// Throws what the columns' check found wrong, if anything (the row offsets passed).
template <typename Value>
void report_columns(const CsrCheck& found, const DeviceCsrView<Value>& view,
                    cudaStream_t stream) {
  namespace message = csr_message;
  const unsigned long long code = found.first_bad_entry_code();
  if (code == kNothingFound) return;
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
  const CheckScratch scratch = fresh_check(0, stream);
  launch_row_offsets_check(view, scratch.check, nullptr, stream);
  report_row_offsets(download_one(scratch.check, stream), view, stream);
}

/// The row starts are marked again (a second read of row_ptr, whose answer is not read).
template <typename Value>
void validate_device_columns(const DeviceCsrView<Value>& view, cudaStream_t stream) {
  if (view.nnz == 0) return;
  TemporaryMemoryScope temporaries(stream);  // first: outlives the temporaries
  const CheckScratch scratch = fresh_check(view.nnz, stream);
  launch_row_offsets_check(view, scratch.check, scratch.row_starts, stream);
  launch_column_check(view, scratch.row_starts, scratch.check, stream);
  report_columns(download_one(scratch.check, stream), view, stream);
}

namespace {
/// One check in flight a thread: its answer's pinned slot is the thread's.
thread_local bool check_in_flight = false;
static_assert(sizeof(CsrCheck) <= kDownloadBounceBytes);
}  // namespace

template <typename Value>
struct DeviceCsrCheck<Value>::InFlight {
  DeviceCsrView<Value> view;
  TemporaryMemoryScope temporaries{nullptr};  // first: outlives the temporaries
  CheckScratch scratch;
  CudaEvent arrays_ready{cudaEventDisableTiming};
  CudaEvent answered{cudaEventDisableTiming};
  CsrCheck* answer = nullptr;  ///< pinned
  bool finished = false;
};

/// Both checks in one pass: both kernels, then one download (the row offsets' answer first:
/// with bad offsets the columns' answer is not read).
template <typename Value>
DeviceCsrCheck<Value>::DeviceCsrCheck(const DeviceCsrView<Value>& view) {
  check_shape_and_pointers(view);
  if (check_in_flight) throw Error("DeviceCsrCheck: a check is in flight on this thread already");
  const cudaStream_t stream = nullptr;
  in_flight_ = std::make_unique<InFlight>();
  in_flight_->view = view;
  in_flight_->arrays_ready.record(stream);
  const CheckScratch& scratch = in_flight_->scratch = fresh_check(view.nnz, stream);
  launch_row_offsets_check(view, scratch.check, scratch.row_starts, stream);
  if (view.nnz > 0) launch_column_check(view, scratch.row_starts, scratch.check, stream);
  in_flight_->answer = static_cast<CsrCheck*>(download_bounce(DownloadSlot::check_in_flight));
  TCSPARSE_CUDA_CHECK(cudaMemcpyAsync(in_flight_->answer, scratch.check,
                                      sizeof(CsrCheck), cudaMemcpyDeviceToHost, stream));
  in_flight_->answered.record(stream);
  check_in_flight = true;
}

template <typename Value>
DeviceCsrCheck<Value>::~DeviceCsrCheck() {
  // the temporaries' scope waits for the legacy stream: the answer's copy is done before its
  // pinned slot may serve the thread's next check
  if (in_flight_ && !in_flight_->finished) check_in_flight = false;
}

template <typename Value>
void DeviceCsrCheck<Value>::finish() {
  if (in_flight_->finished) return;
  in_flight_->finished = true;
  check_in_flight = false;
  in_flight_->answered.synchronize();
  const CsrCheck found = *in_flight_->answer;
  report_row_offsets(found, in_flight_->view, nullptr);
  report_columns(found, in_flight_->view, nullptr);
}

template <typename Value>
cudaEvent_t DeviceCsrCheck<Value>::arrays_ready() const {
  return in_flight_->arrays_ready.get();
}

template <typename Value>
void validate_device_csr(const DeviceCsrView<Value>& view) {
  DeviceCsrCheck<Value>(view).finish();
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
  template class DeviceCsrCheck<Value>;                                                      \
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
