// TCA-SpMM's work decomposition (row classes, blocks, column slices) and its host model, which
// walks the device layout exactly as the kernel does (src/tca/tca_format.hpp).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "tca/tca_format.hpp"
#include "tca/tca_parameters.hpp"
#include "tca/tca_tiles_format.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/generate.hpp"
#include "tcsparse/reference.hpp"

namespace tcsparse::tca {
namespace {

TEST(TcaRowClass, FollowsThePapersWarpCountsPerNonzeroCount) {
  EXPECT_EQ(row_class(0), RowClass::short_1);
  EXPECT_EQ(row_class(8), RowClass::short_1);
  EXPECT_EQ(row_class(9), RowClass::short_2);
  EXPECT_EQ(row_class(16), RowClass::short_2);
  EXPECT_EQ(row_class(17), RowClass::short_4);
  EXPECT_EQ(row_class(32), RowClass::short_4);
  EXPECT_EQ(row_class(33), RowClass::short_8);
  EXPECT_EQ(row_class(64), RowClass::short_8);
  EXPECT_EQ(row_class(65), RowClass::long_row);
  EXPECT_EQ(warps_per_row(RowClass::short_1), 1);
  EXPECT_EQ(warps_per_row(RowClass::short_2), 2);
  EXPECT_EQ(warps_per_row(RowClass::short_4), 4);
  EXPECT_EQ(warps_per_row(RowClass::short_8), 8);
}

CsrMatrix<double, std::int32_t> every_class_matrix() {
  // rows of 0, 1, 8, 9, 16, 17, 32, 33, 64, 65, 128, 3000 nonzeros, several of some
  return test::with_row_lengths(4000, {0, 1, 8, 9, 64, 65, 3000, 16, 17, 32, 33, 128, 0, 5, 5, 5,
                                       12, 20, 40, 1, 1, 1, 1, 1, 1, 1, 1, 2},
                                3);
}

TEST(TcaLayout, CoversEveryRowAndColumnExactlyOnceWithBlocksOfOneClass) {
  const auto matrix = every_class_matrix();
  for (const std::int64_t n : {1, 7, 8, 16, 65, 256, 1000}) {
    const TcaLayout layout = build_tca_layout(matrix, n);
    std::vector<int> covered(static_cast<std::size_t>(matrix.rows * n), 0);
    for (const TcaBlock& block : layout.blocks) {
      const int W = block.warps_per_row;
      ASSERT_TRUE(W == 1 || W == 2 || W == 4 || W == 8);
      ASSERT_LE(0, block.col_begin);
      ASSERT_LT(block.col_begin, block.col_end);
      ASSERT_LE(block.col_end, n);
      if (block.col_end < n) {
        EXPECT_EQ((block.col_end - block.col_begin) % kLongSliceAlignment, 0);
      }
      for (int g = 0; g < kWarpsPerBlock / W; ++g) {
        const std::int32_t row = layout.rows_of_slot[block.first_slot + g];
        if (row < 0) continue;
        EXPECT_EQ(warps_per_row(row_class(matrix.row_length(row))), W) << "row " << row;
        for (std::int64_t c = block.col_begin; c < block.col_end; ++c) ++covered[row * n + c];
      }
    }
    for (std::size_t i = 0; i < covered.size(); ++i) {
      ASSERT_EQ(covered[i], 1) << "n = " << n << ", row " << i / n << ", column " << i % n;
    }
  }
}

TEST(TcaLayout, GivesLongRowsOneBlockPer64NonzerosWhileColumnsLast) {
  const auto matrix = test::with_row_lengths(5000, {3000}, 5);  // 47 chunks of 64
  // 47 wanted; slices of ceil(2048 / 47) = 44 columns rounded up to 48 (a multiple of 16): 43
  EXPECT_EQ(build_tca_layout(matrix, 2048).blocks.size(), 43u);
  EXPECT_EQ(build_tca_layout(matrix, 64).blocks.size(), 4u);  // at most one per 16 columns
  EXPECT_EQ(build_tca_layout(matrix, 1).blocks.size(), 1u);
}

TEST(TcaLayout, PacksShortRowsIntoFullBlocksAndCountsIdleSlots) {
  const auto matrix = test::with_row_lengths(100, std::vector<std::int64_t>(10, 3), 5);
  const TcaLayout layout = build_tca_layout(matrix, 32);
  EXPECT_EQ(layout.blocks.size(), 2u);  // 8 rows + 2 rows
  EXPECT_EQ(layout.idle_slots, 6);
  EXPECT_EQ(layout.rows_in_class[0], 10);
}

TEST(TcaLayout, IsEmptyForNoColumnsOrNoRows) {
  EXPECT_TRUE(build_tca_layout(every_class_matrix(), 0).blocks.empty());
  EXPECT_TRUE(build_tca_layout(test::with_row_lengths(10, {}, 1), 16).blocks.empty());
}

template <typename Value>
void expect_host_model_matches_reference(const CsrMatrix<double, std::int32_t>& exact,
                                         std::int64_t n, DenseLayout dense, double alpha,
                                         double beta) {
  const double error = test::host_spmm_model_error<Value>(
      exact, n, dense, {alpha, beta},
      [&](const CsrMatrix<Value, std::int32_t>& matrix, const std::vector<Value>& B,
          std::vector<Value>& C) {
        host_apply(build_tca_layout(matrix, n), matrix, B, C, dense, static_cast<float>(alpha),
                   static_cast<float>(beta));
      });
  EXPECT_LT(error, 1e-2) << "n = " << n << ", " << to_string(dense) << ", alpha " << alpha
                         << ", beta " << beta;
}

TEST(TcaHostModel, MatchesTheReferenceForEveryRowClassWidthLayoutAndScalars) {
  const auto matrix = test::scaled_for_16_bit(every_class_matrix());
  for (const std::int64_t n : {1, 7, 8, 65, 256})
    for (const DenseLayout dense : {DenseLayout::row_major, DenseLayout::column_major})
      for (const test::Scalars scalars : test::kScalarCases) {
        expect_host_model_matches_reference<half>(matrix, n, dense, scalars.alpha, scalars.beta);
        expect_host_model_matches_reference<bfloat16>(matrix, n, dense, scalars.alpha,
                                                      scalars.beta);
      }
}

TEST(TcaHostModel, MatchesTheReferenceOnEdgeCaseMatrices) {
  for (const test::NamedMatrix& named : test::edge_case_matrices()) {
    if (named.matrix.nnz() > 200000) continue;
    SCOPED_TRACE(named.name);
    expect_host_model_matches_reference<half>(test::scaled_for_16_bit(named.matrix), 9,
                                              DenseLayout::row_major, 1.0, 0.0);
  }
}

TEST(TcaHostModel, IsExactInFloatForSmallIntegers) {
  // Values and B small integers: every product and sum is exact in fp32, so the model (and
  // the kernel) must give the reference exactly.
  auto matrix = test::with_row_lengths(300, {0, 3, 9, 70, 200}, 9);
  for (double& v : matrix.values) v = std::round(v * 4.0);
  const auto A = test::with_values<float>(matrix);
  const std::int64_t n = 20;
  std::vector<float> B(static_cast<std::size_t>(300 * n));
  for (std::size_t i = 0; i < B.size(); ++i) B[i] = static_cast<float>(static_cast<int>(i % 7) - 3);
  std::vector<float> C(static_cast<std::size_t>(matrix.rows * n),
                       std::numeric_limits<float>::quiet_NaN());
  std::vector<double> expected(C.size(), 0.0);
  spmm_reference(A, std::span<const float>(B), n, std::span<double>(expected), 1.0, 0.0);
  host_apply(build_tca_layout(A, n), A, B, C, DenseLayout::row_major, 1.0f, 0.0f);
  for (std::size_t i = 0; i < C.size(); ++i) ASSERT_EQ(C[i], expected[i]) << i;
}

detail::ParameterValues tca_values(const std::vector<std::string>& key_values) {
  return detail::check_parameter_values("tca", parameter_specs(), key_values);
}

TEST(TcaParameters, AutoIsResolvedByTheNonzerosPerStoredTile) {
  for (const std::int64_t n : {1, 16, 64, 65, 1024})
    EXPECT_TRUE(tca_parameters(tca_values({}), 4096, n).kernel_is_auto) << n;
  EXPECT_EQ(tca_parameters(tca_values({"kernel=paper"}), 4096, 16).kernel, TcaKernel::paper);
  EXPECT_EQ(tca_parameters(tca_values({"kernel=rows"}), 4096, 1024).kernel, TcaKernel::rows);
  EXPECT_EQ(tca_parameters(tca_values({"kernel=tiles"}), 4096, 16).kernel, TcaKernel::tiles);
  EXPECT_FALSE(tca_parameters(tca_values({"kernel=rows"}), 4096, 16).kernel_is_auto);
  EXPECT_FALSE(tca_parameters(tca_values({"column_index_bits=16"}), 4096, 16).kernel_is_auto);
  // up to 16 columns: tiles from 40 nonzeros a stored tile on average with row-major B up to 8
  // columns, from 20 at 9-16 columns, from 8 with column-major B (which the rows kernel gathers
  // element by element); above 16 columns tiles; no tile at all, or more (row block, segment)
  // slots than nonzeros: rows
  constexpr auto row = DenseLayout::row_major, column = DenseLayout::column_major;
  EXPECT_EQ(resolve_auto_kernel(4000, 100, 10, 8, row), TcaKernel::tiles);
  EXPECT_EQ(resolve_auto_kernel(3999, 100, 10, 8, row), TcaKernel::rows);
  EXPECT_EQ(resolve_auto_kernel(2000, 100, 10, 9, row), TcaKernel::tiles);
  EXPECT_EQ(resolve_auto_kernel(1999, 100, 10, 16, row), TcaKernel::rows);
  EXPECT_EQ(resolve_auto_kernel(800, 100, 10, 16, column), TcaKernel::tiles);
  EXPECT_EQ(resolve_auto_kernel(799, 100, 10, 1, column), TcaKernel::rows);
  EXPECT_EQ(resolve_auto_kernel(100, 100, 10, 17, row), TcaKernel::tiles);
  EXPECT_EQ(resolve_auto_kernel(100, 100, 10, 17, column), TcaKernel::tiles);
  EXPECT_EQ(resolve_auto_kernel(100, 100, 100, 17, row), TcaKernel::tiles);
  EXPECT_EQ(resolve_auto_kernel(100, 100, 101, 17, row), TcaKernel::rows);
  EXPECT_EQ(resolve_auto_kernel(0, 0, 10, 256, row), TcaKernel::rows);
  // a 2^20-square graph of 4 nonzeros a row: 2^16 x 2^12 slots, 2^22 nonzeros
  EXPECT_EQ(tiles_segment_slots(1 << 20, 1 << 20), std::int64_t{1} << 28);
  EXPECT_EQ(resolve_auto_kernel(std::int64_t{4} << 20, std::int64_t{4} << 20,
                                tiles_segment_slots(1 << 20, 1 << 20), 64, row),
            TcaKernel::rows);
}

TEST(TcaParameters, AutoTakesGatherUpTo32ColumnsOfBOnWeightsOfAtMostElevenPercentNonzeros) {
  constexpr auto row = DenseLayout::row_major;
  const std::int64_t at_90 = 11008LL * 4096 / 10;  // 4.5 M nonzeros
  EXPECT_TRUE(auto_takes_gather(11008, 4096, at_90, 8, row, true));
  EXPECT_TRUE(auto_takes_gather(11008, 4096, at_90, 1, row, true));
  EXPECT_TRUE(auto_takes_gather(11008, 4096, at_90, 16, row, true));
  EXPECT_TRUE(auto_takes_gather(11008, 4096, at_90, 32, row, true));       // two blocks a range
  EXPECT_FALSE(auto_takes_gather(11008, 4096, at_90, 33, row, true));      // n = 64: tiles
  EXPECT_FALSE(auto_takes_gather(11008, 4096, at_90, 8, row, false));      // no clusters
  // column-major B: from 2^21 nonzeros (or at <= 6 % nonzero), where B^T's rows come in whole
  // 64-row boxes
  constexpr auto column = DenseLayout::column_major;
  for (const std::int64_t n : {1, 8, 16, 32})
    EXPECT_TRUE(auto_takes_gather(11008, 4096, at_90, n, column, true)) << n;
  EXPECT_FALSE(auto_takes_gather(11008, 4096, at_90, 8, column, false));     // no clusters
  EXPECT_FALSE(auto_takes_gather(4096, 4096, 4096 * 4096 / 10, 16, column, true));  // 1.7 M
  for (const std::int64_t n : {8, 16, 32})  // 95 %: 0.84 M at 5 %
    EXPECT_TRUE(auto_takes_gather(4096, 4096, 4096 * 4096 / 20, n, column, true)) << n;
  EXPECT_FALSE(auto_takes_gather(2048, 4096, 2048 * 4096 / 20, 16, column, true));  // 0.42 M
  EXPECT_TRUE(auto_takes_gather(4096, 11008, 4096LL * 11008 / 10, 16, column, true));
  EXPECT_FALSE(auto_takes_gather(4096, 11008, 4096LL * 11008 / 10, 32, column, true))
      << "6 blocks of 1840 rows of B: not whole boxes";
  EXPECT_FALSE(auto_takes_gather(11008, 4096, 3 * at_90, 8, row, true));  // 70 %
  const std::int64_t long_k = 4096LL * 11008 / 10;
  EXPECT_TRUE(auto_takes_gather(4096, 11008, long_k, 16, row, true));  // 4 blocks a range
  EXPECT_TRUE(auto_takes_gather(4096, 11008, long_k, 32, row, true));  // 6 blocks a range
  const std::int64_t longer_k = 4096LL * 14336 / 10;
  EXPECT_FALSE(auto_takes_gather(4096, 14336, longer_k, 32, row, true));  // 7 blocks a range
  EXPECT_TRUE(auto_takes_gather(4096, 4096, 4096 * 4096 / 10, 8, row, true));    // 90 %: 1.7 M
  EXPECT_TRUE(auto_takes_gather(4096, 4096, 4096 * 4096 / 20, 32, row, true));   // 95 %: 0.84 M
  EXPECT_FALSE(auto_takes_gather(2048, 4096, 2048 * 4096 / 10, 8, row, true));   // 90 %: 0.84 M
  EXPECT_FALSE(auto_takes_gather(1024, 1024, 1024 * 1024 / 20, 16, row, true));  // 52 k
}

TEST(TcaParameters, ChunkColumnsAndIndexWidthsBelongToTheirKernels) {
  EXPECT_EQ(tca_parameters(tca_values({"kernel=tiles", "chunk_columns=512"}), 4096, 16)
                .chunk_columns,
            512);
  EXPECT_EQ(tca_parameters(tca_values({"kernel=tiles"}), 4096, 16).chunk_columns, 0);  // auto
  EXPECT_THROW(tca_parameters(tca_values({"chunk_columns=512"}), 4096, 16), ParameterError);
  EXPECT_THROW(tca_parameters(tca_values({"kernel=rows", "chunk_columns=512"}), 4096, 16),
               ParameterError);
  EXPECT_THROW(tca_parameters(tca_values({"kernel=tiles", "column_index_bits=16"}), 4096, 16),
               ParameterError);
  EXPECT_THROW(tca_values({"kernel=tiles", "chunk_columns=8"}), ParameterError);  // below 16
}

TEST(TcaParameters, SplitKBelongsToTheTilesKernelAndIsAutoUntilGiven) {
  using SplitK = TcaParameters::SplitK;
  EXPECT_EQ(tca_parameters(tca_values({"kernel=tiles"}), 4096, 16).split_k, SplitK::automatic);
  EXPECT_EQ(tca_parameters(tca_values({"kernel=tiles", "split_k=global"}), 4096, 16).split_k,
            SplitK::global);
  EXPECT_EQ(tca_parameters(tca_values({"kernel=tiles", "split_k=cluster"}), 4096, 16).split_k,
            SplitK::cluster);
  // with kernel=auto it applies where auto takes tiles
  EXPECT_EQ(tca_parameters(tca_values({"split_k=cluster"}), 4096, 16).split_k, SplitK::cluster);
  EXPECT_THROW(tca_parameters(tca_values({"kernel=rows", "split_k=global"}), 4096, 16),
               ParameterError);
  EXPECT_THROW(tca_parameters(tca_values({"kernel=paper", "split_k=cluster"}), 4096, 16),
               ParameterError);
  EXPECT_THROW(tca_values({"kernel=tiles", "split_k=shared"}), ParameterError);
}

TEST(TcaParameters, DependentLaunchIsTheTilesKernelsAndOnUntilTurnedOff) {
  EXPECT_TRUE(tca_parameters(tca_values({"kernel=tiles"}), 4096, 16).dependent_launch);
  EXPECT_FALSE(
      tca_parameters(tca_values({"kernel=tiles", "dependent_launch=off"}), 4096, 16).dependent_launch);
  EXPECT_TRUE(tca_parameters(tca_values({"dependent_launch=on"}), 4096, 16).dependent_launch);
  EXPECT_THROW(tca_parameters(tca_values({"kernel=rows", "dependent_launch=on"}), 4096, 16),
               ParameterError);
}

TEST(TcaParameters, StageBIsTheGatherKernelsAndAutoUntilGiven) {
  using StageB = TcaParameters::StageB;
  EXPECT_EQ(tca_parameters(tca_values({"kernel=gather"}), 4096, 16).stage_b, StageB::automatic);
  EXPECT_EQ(tca_parameters(tca_values({"kernel=gather", "stage_b=copies"}), 4096, 16).stage_b,
            StageB::copies);
  EXPECT_EQ(tca_parameters(tca_values({"kernel=gather", "stage_b=tensor"}), 4096, 16).stage_b,
            StageB::tensor);
  // with kernel=auto it applies where auto takes gather; only the gather kernel stages B's rows
  EXPECT_EQ(tca_parameters(tca_values({"stage_b=copies"}), 4096, 16).stage_b, StageB::copies);
  EXPECT_THROW(tca_parameters(tca_values({"kernel=tiles", "stage_b=tensor"}), 4096, 16),
               ParameterError);
  EXPECT_THROW(tca_parameters(tca_values({"kernel=rows", "stage_b=copies"}), 4096, 16),
               ParameterError);
  EXPECT_THROW(tca_values({"kernel=gather", "stage_b=bulk"}), ParameterError);
}

TEST(TcaParameters, SliceColumnsAreTheTilesKernelsAndAutoUntilGiven) {
  EXPECT_EQ(tca_parameters(tca_values({"kernel=tiles"}), 4096, 256).slice_columns, 0);
  EXPECT_EQ(tca_parameters(tca_values({"kernel=tiles", "slice_columns=16"}), 4096, 256)
                .slice_columns,
            16);
  EXPECT_EQ(tca_parameters(tca_values({"slice_columns=8"}), 4096, 256).slice_columns, 8);
  EXPECT_THROW(tca_parameters(tca_values({"kernel=rows", "slice_columns=16"}), 4096, 16),
               ParameterError);
  EXPECT_THROW(tca_values({"kernel=tiles", "slice_columns=24"}), ParameterError);
}

TEST(TcaParameters, TheTilesLayoutIsBuiltOnTheGpuFrom16384NonzerosOrWhereBuildSays) {
  const TcaParameters automatic = tca_parameters(tca_values({}), 4096, 256);
  EXPECT_FALSE(automatic.builds_tiles_on_device(kTilesDeviceBuildMinNonzeros - 1));
  EXPECT_TRUE(automatic.builds_tiles_on_device(kTilesDeviceBuildMinNonzeros));
  const TcaParameters device = tca_parameters(tca_values({"kernel=tiles", "build=device"}), 4096, 256);
  EXPECT_TRUE(device.builds_tiles_on_device(1));
  const TcaParameters host = tca_parameters(tca_values({"build=host"}), 4096, 256);
  EXPECT_FALSE(host.builds_tiles_on_device(std::int64_t{1} << 30));
  EXPECT_THROW(tca_parameters(tca_values({"kernel=rows", "build=host"}), 4096, 16),
               ParameterError);
  EXPECT_THROW(tca_values({"build=gpu"}), ParameterError);
}

TEST(TcaParameters, SixteenBitColumnIndicesOnlyWhenAskedAndEveryColumnFits) {
  EXPECT_EQ(tca_parameters(tca_values({}), 4096, 16).column_index_bits, kDefaultColumnIndexBits);
  EXPECT_EQ(tca_parameters(tca_values({"column_index_bits=16"}), 65536, 16).column_index_bits, 16);
  EXPECT_EQ(tca_parameters(tca_values({"kernel=paper"}), 4096, 16).column_index_bits, 32);
  EXPECT_EQ(tca_parameters(tca_values({"column_index_bits=32"}), 4096, 16).column_index_bits, 32);
  EXPECT_THROW(tca_parameters(tca_values({"column_index_bits=16"}), 65537, 16), ParameterError);
  EXPECT_THROW(tca_parameters(tca_values({"column_index_bits=16", "kernel=paper"}), 4096, 16),
               ParameterError);
  EXPECT_THROW(tca_values({"kernel=fast"}), ParameterError);
}

}  // namespace
}  // namespace tcsparse::tca

namespace tcsparse {
namespace {

TEST(LlmWeights, UniformRowsAllKeepTheSameShare) {
  const auto weights = generate_llm_weights(512, 1000, 0.7, LlmRowProfile::uniform, 1);
  weights.validate();
  for (std::int32_t r = 0; r < weights.rows; ++r) ASSERT_EQ(weights.row_length(r), 300);
}

TEST(LlmWeights, SkewedRowsVaryAboutFourTimesAroundTheSameMean) {
  const auto weights = generate_llm_weights(4096, 4096, 0.9, LlmRowProfile::skewed, 2);
  weights.validate();
  std::int64_t shortest = weights.cols, longest = 0;
  for (std::int32_t r = 0; r < weights.rows; ++r) {
    shortest = std::min<std::int64_t>(shortest, weights.row_length(r));
    longest = std::max<std::int64_t>(longest, weights.row_length(r));
  }
  const double ratio = static_cast<double>(longest) / static_cast<double>(shortest);
  EXPECT_GT(ratio, 3.5);
  EXPECT_LT(ratio, 4.2);
  EXPECT_NEAR(static_cast<double>(weights.nnz()) / (4096.0 * 4096.0), 0.1, 0.003);
}

TEST(LlmWeights, NamesParseAndPrintBack) {
  const LlmWeightsName name = parse_llm_weights_name("llm:11008x4096:s0.95:skewed");
  EXPECT_EQ(name.rows, 11008);
  EXPECT_EQ(name.cols, 4096);
  EXPECT_DOUBLE_EQ(name.sparsity, 0.95);
  EXPECT_EQ(name.profile, LlmRowProfile::skewed);
  EXPECT_EQ(llm_weights_name(name), "llm:11008x4096:s0.95:skewed");
  for (const char* bad : {"llm:4096:s0.5:uniform", "llm:4x4:s1.5:uniform", "llm:4x4:s0.5:dense",
                          "llm:4x4:s0.5:uniformx", "pruned:4x4:s0.5:uniform"})
    EXPECT_THROW(parse_llm_weights_name(bad), Error) << bad;
}

}  // namespace
}  // namespace tcsparse
