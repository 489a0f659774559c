// CSR-Partial-Overlap (Electronics 2023) parameters: the constants the paper fixes, each named for
// what it means with the section that set it, and the "key=value" parameters that override them
// (for experiments with `tcsparse bench --variant`).
#pragma once

#include <array>
#include <cstdint>
#include <span>
#include <vector>

#include "csr_overlap/csr_overlap_rules.hpp"
#include "plan/parameters.hpp"

namespace tcsparse::csr_overlap {

/// max_batch_size (§4.1.1, §4.1.2): nonzeros a batch holds at most; longer rows are extra-long
/// rows (§4.3). The paper states no value, only that batches are even "when max_batch_size is
/// larger than 1024" and that a stage holds max_batch_size x (sizeof value + 4) bytes (48 KB of
/// shared memory on its A40). 4096: two stages of fp64 take 2 x 4128 x 12 B = 97 KiB, two blocks
/// on one Hopper SM (228 KB). Not measured yet on an H100 / H200.
inline constexpr std::int32_t kDefaultMaxBatchSize = 4096;

/// Switch points of the vector size (Table 2, §5.2, measured on an A40 in fp32 with random
/// matrices): a batch whose mean row length is in [0, 17) takes vector size 1, [17, 34) 2,
/// [34, 64) 4, [64, 122) 8, [122, 216) 16, [216, inf) 32. SWITCH_POINT_1 .. SWITCH_POINT_16 of
/// Alg. 6. To be re-measured on an H200 (`tcsparse bench --variant vs4:vector_size=4 ...`).
inline constexpr std::array<std::int32_t, kSwitchPoints> kPaperSwitchPoints = {17, 34, 64, 122,
                                                                                216};

/// Threads per block. The paper (§4.1.2) sets T to the CUDA cores of one SM (128 on its A40 and
/// on Hopper). 256 here: with two fp64 blocks per SM, 128 threads leave 8 warps an SM to gather x.
/// Not measured yet.
inline constexpr int kDefaultThreadsPerBlock = 256;

/// Nonzeros of a long row one block takes (a "piece"); longer rows are spread over several blocks
/// whose partial sums a second kernel adds in order (deterministic). The paper (Alg. 9) gives a
/// whole row to one block. 8192: a block of 256 threads does 32 products a thread. Not measured.
inline constexpr std::int32_t kDefaultLongRowPiece = 8192;

/// Largest max_batch_size accepted by the schema (a plan also checks the device's shared memory).
inline constexpr std::int32_t kLargestMaxBatchSize = 1 << 16;

struct CsrOverlapParameters {
  std::int32_t max_batch_size = kDefaultMaxBatchSize;
  /// 0: auto (= max_batch_size).
  std::int32_t max_batch_rows = 0;
  std::array<std::int32_t, kSwitchPoints> switch_points = kPaperSwitchPoints;
  /// 0: by the mean row length of each batch; else 1, 2, 4, 8, 16 or 32 for every batch.
  std::int32_t vector_size = 0;
  int threads_per_block = kDefaultThreadsPerBlock;
  /// 0: as many as fit one SM (cudaOccupancyMaxActiveBlocksPerMultiprocessor).
  int blocks_per_sm = 0;
  std::int32_t long_row_piece = kDefaultLongRowPiece;

  PartitionRule partition_rule() const {
    return {max_batch_size, max_batch_rows > 0 ? max_batch_rows : max_batch_size};
  }
  VectorSizeRule vector_size_rule() const {
    VectorSizeRule rule;
    for (int k = 0; k < kSwitchPoints; ++k) rule.switch_points[k] = switch_points[k];
    rule.fixed = vector_size;
    return rule;
  }
};

/// The parameter schema (the registry's MethodDescriptor::parameters), in a fixed order.
std::span<const ParameterSpec> parameter_specs();

/// The parameters of checked values (detail::check_parameter_values against parameter_specs()).
/// Throws ParameterError for what the schema cannot say: max_batch_size not a multiple of 32,
/// switch points that decrease.
CsrOverlapParameters csr_overlap_parameters(const detail::ParameterValues& values);

/// Checks "key=value" strings against parameter_specs() and returns the parameters.
CsrOverlapParameters parse_parameters(const std::vector<std::string>& key_values);

}  // namespace tcsparse::csr_overlap
