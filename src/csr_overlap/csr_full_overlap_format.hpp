// CSR-Full-Overlap (Zeng & Zou, Electronics 12 (2023) 3687, §4.2, Algorithm 8): the host side of
// the method. The matrix stays in host memory and every apply streams it to the GPU in big
// batches (runs of whole rows) on several streams, the big batch k + 1 copied while big batch k
// is computed by the csr_overlap batch kernel.
//
// A big batch occupies one slot of the device staging ring (slot = stream = k % streams) laid
// out as
//
//   | row_ptr (rows + 1, rebased to 0) | pad to 256 B | col_idx (round_up(nnz, 16)) | pad |
//   | values (round_up(nnz, 16)) |
//
// (BigBatch::*_offset, bytes), so that the batch kernel's 16-element copies stay inside the slot.
// In the plan-owned (copy) host mode the pinned host buffer holds each big batch exactly in this
// image, one cudaMemcpyAsync a big batch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string>
#include <vector>

#include "common/align.hpp"
#include "csr_overlap/csr_overlap_format.hpp"
#include "csr_overlap/csr_overlap_parameters.hpp"
#include "plan/parameters.hpp"
#include "tcsparse/csr.hpp"
#include "tcsparse/json.hpp"

namespace tcsparse::csr_overlap {

/// Where the streamed matrix lives on the host.
enum class HostMemoryMode {
  /// the plan copies the CSR into pinned memory it owns (in the slot image; row offsets rebased)
  copy,
  /// the plan cudaHostRegisters the caller's three arrays: they must outlive the plan
  register_arrays,
};

/// How the big batches' host-to-device copies are ordered.
enum class CopyOrder {
  /// each copy starts when the previous big batch's copy has landed (an event chains them), so
  /// one copy at a time holds the link and big batch k is computed while k + 1 is copied
  in_order,
  /// each stream copies its big batches on its own (Algorithm 8 as published): on a GPU with
  /// several copy engines the driver may run the streams' copies side by side, sharing the link,
  /// so that they land together and their kernels all run after the transfer
  per_stream,
};

/// What an apply streams of each big batch (csr_full_overlap_stream_image.hpp).
enum class StreamFormat {
  /// compact with host_memory=copy and an automatic device_memory_limit, else csr
  automatic,
  /// the slot image: int32 row offsets and columns, the values
  csr,
  /// row lengths and column offsets in 8 / 16 bits where the big batch allows, expanded on the
  /// GPU; needs host_memory=copy (the plan writes the image)
  compact,
};

/// The size of the last big batch.
enum class LastBigBatch {
  /// small from kSmallLastBigBatchMinBytes of slot image, else equal
  automatic,
  /// 1 / kLastBigBatchShareDivisor of the others: with the copies in order only the last big
  /// batch's kernels run after the transfer, so a small one leaves little computation exposed
  small,
  /// as large as the others (the paper's N_nz / 2 each)
  equal,
};
/// A small last big batch holds this share of the others' bytes.
inline constexpr std::size_t kLastBigBatchShareDivisor = 16;
/// last_big_batch=auto makes it small from this many bytes of slot image (the whole matrix's):
/// about 2.5 M fp64 nonzeros, where the last big batch's kernels take tens of microseconds, well
/// above the few microseconds an extra copy and launch cost.
inline constexpr std::size_t kSmallLastBigBatchMinBytes = std::size_t{32} << 20;

/// Streams (and device staging slots) of Algorithm 8: two in the paper (§4.2).
inline constexpr int kPaperStreams = 2;
inline constexpr int kLargestStreams = 16;
/// Big batches a matrix is cut into by default: the paper gives each of its two streams
/// N_nz / 2 nonzeros (§4.2). To be re-measured (more, smaller big batches hide more of the copy).
inline constexpr int kPaperBigBatches = 2;
/// The automatic device_memory_limit never exceeds this share of the GPU's free memory at plan
/// build (the rest stays for x, y and the caller).
inline constexpr double kAutoLimitShareOfFreeMemory = 0.5;
/// Alignment of the arrays inside a slot (and of the slots): 16-byte cp.async copies need 16;
/// 256 matches cudaMalloc's.
inline constexpr std::size_t kSlotAlignBytes = 256;

using detail::align_up;

/// Elements an array holds in a slot: `count` (at least one) widened to whole
/// kCopyAlignElements pieces, as the batch kernel's copies read them (csr_overlap_kernels.cuh).
inline std::size_t padded_elements(std::int64_t count) {
  const auto n = static_cast<std::size_t>(count > 1 ? count : 1);
  return align_up(n, static_cast<std::size_t>(kCopyAlignElements));
}

struct FullOverlapParameters {
  HostMemoryMode host_memory = HostMemoryMode::copy;
  CopyOrder copy_order = CopyOrder::in_order;
  LastBigBatch last_big_batch = LastBigBatch::automatic;
  StreamFormat stream_format = StreamFormat::automatic;
  int streams = kPaperStreams;
  int big_batches = kPaperBigBatches;
  /// Bytes of the device staging ring (all slots); 0: auto.
  std::int64_t device_memory_limit = 0;
  /// The batch kernel's parameters (csr_overlap's defaults).
  CsrOverlapParameters batch;
};

/// The parameter schema (MethodDescriptor::parameters).
std::span<const ParameterSpec> full_overlap_parameter_specs();
/// stream_format as it applies (automatic resolved); a ParameterError for compact with
/// host_memory=register.
StreamFormat resolved_stream_format(const FullOverlapParameters& p);
FullOverlapParameters full_overlap_parameters(const detail::ParameterValues& values);

/// Rows [begin_row, end_row) with nonzeros [begin_nnz, end_nnz), and where its arrays lie in a
/// slot.
struct BigBatch {
  std::int64_t begin_row = 0, end_row = 0;
  std::int64_t begin_nnz = 0, end_nnz = 0;
  std::size_t row_ptr_offset = 0, col_offset = 0, value_offset = 0;
  std::size_t bytes = 0;  ///< of its slot image (from 0 to the end of the padded values)

  std::int64_t rows() const { return end_row - begin_row; }
  std::int64_t nnz() const { return end_nnz - begin_nnz; }
};

/// Lays out a big batch of `rows` rows and `nnz` nonzeros in a slot (offsets and bytes).
BigBatch slot_layout(std::int64_t begin_row, std::int64_t end_row, std::int64_t begin_nnz,
                     std::int64_t end_nnz, std::size_t value_bytes);

struct BigBatchPartition {
  std::vector<BigBatch> batches;
  int slots = 0;                 ///< = streams (fewer when there are fewer big batches)
  std::size_t slot_bytes = 0;    ///< each slot, a multiple of kSlotAlignBytes
  std::size_t device_memory_limit = 0;  ///< as resolved (given, or auto)
};

/// Cuts the rows into big batches of about 1 / big_batches of the matrix's slot bytes each (with
/// a small last one, 1 / kLastBigBatchShareDivisor of that, where last_big_batch says), never
/// splitting a row, each fitting a slot of device_memory_limit / streams bytes when the limit is
/// given (auto: the largest big batch, bounded by kAutoLimitShareOfFreeMemory x
/// free_device_bytes). A row whose slot image alone exceeds a slot is a ParameterError naming the
/// row, its nonzeros and the limit.
BigBatchPartition partition_big_batches(std::span<const std::int32_t> row_ptr,
                                        std::size_t value_bytes,
                                        const FullOverlapParameters& parameters,
                                        std::size_t free_device_bytes);

/// The row offsets of a big batch rebased to its first nonzero (rows + 1 entries, from 0).
std::vector<std::int32_t> rebased_row_ptr(std::span<const std::int32_t> row_ptr,
                                          const BigBatch& batch);

/// y = alpha A x + beta y by streaming big batches exactly as the GPU does (each big batch's
/// batch table over its rebased rows, csr_overlap::host_apply on it), in double. For tests.
template <typename Value>
void full_overlap_host_apply(const CsrMatrix<Value, std::int32_t>& matrix,
                             const BigBatchPartition& partition,
                             const CsrOverlapParameters& batch_parameters,
                             std::span<const Value> x, std::span<double> y, double alpha,
                             double beta);

/// Statistics of a partition (PlanStats::details, layout_statistics).
Json partition_statistics(const BigBatchPartition& partition, const FullOverlapParameters& p);

}  // namespace tcsparse::csr_overlap
