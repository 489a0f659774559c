// tca kernel=panels on the host: the panels layout's promises (every nonzero once, in its chunk,
// chunk-major so that a panel is one contiguous range), the panel-height rule, the parameters,
// and the host model of the kernel (src/tca/tca_panels_format.hpp).
#include <gtest/gtest.h>

#include <cstdint>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "plan/parameters.hpp"
#include "tca/tca_panels_format.hpp"
#include "tca/tca_parameters.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/generate.hpp"
#include "tcsparse/reference.hpp"

namespace tcsparse::tca {
namespace {

TEST(PanelLayout, StoresEachRowsNonzerosOfAChunkAsColumnInThePanelAndValueBits) {
  // row 0: columns 1, 17, 40; row 1: none; row 2: 16, 39 (chunks of 16 columns: 3 chunks)
  CsrMatrix<half, std::int32_t> A;
  A.rows = 3;
  A.cols = 41;
  A.row_ptr = {0, 3, 3, 5};
  A.col_idx = {1, 17, 40, 16, 39};
  for (const double v : {1.0, 2.0, 3.0, 4.0, 5.0}) A.values.push_back(half(v));
  const PanelLayout layout = build_panel_layout(A, 16);
  EXPECT_EQ(layout.chunks, 3);
  // chunk-major offsets: (c0: r0 r1 r2) (c1: r0 r1 r2) (c2: r0 r1 r2), end
  EXPECT_EQ(layout.offsets, (std::vector<std::int32_t>{0, 1, 1, 1, 2, 2, 3, 4, 4, 5}));
  const auto word = [&](int column_in_panel, int k) {
    return static_cast<std::uint32_t>(column_in_panel) << 16 | A.values[k].bits;
  };
  EXPECT_EQ(layout.words, (std::vector<std::uint32_t>{word(1, 0), word(1, 1), word(0, 3),
                                                      word(8, 2), word(7, 4)}));
}

TEST(PanelLayout, HoldsEveryNonzeroOnceInItsChunkInColumnOrder) {
  for (const test::NamedMatrix& named : test::edge_case_matrices()) {
    SCOPED_TRACE(named.name);
    const auto A = test::with_values<half>(test::scaled_for_16_bit(named.matrix));
    for (const std::int64_t panel_columns : {16, 100, 1024}) {
      const PanelLayout layout = build_panel_layout(A, panel_columns);
      ASSERT_EQ(layout.offsets.size(), static_cast<std::size_t>(layout.chunks * A.rows + 1));
      EXPECT_EQ(layout.offsets.back(), A.nnz());
      for (std::int64_t r = 0; r < A.rows; ++r) {
        std::int64_t k = A.row_ptr[r];  // the row's nonzeros, met chunk after chunk
        for (std::int64_t c = 0; c < layout.chunks; ++c) {
          const std::size_t at = static_cast<std::size_t>(c * A.rows + r);
          for (std::int64_t w = layout.offsets[at]; w < layout.offsets[at + 1]; ++w, ++k) {
            ASSERT_LT(k, A.row_ptr[r + 1]);
            const std::uint32_t word = layout.words[static_cast<std::size_t>(w)];
            EXPECT_EQ(c * panel_columns + (word >> 16), A.col_idx[k]);
            EXPECT_EQ(word & 0xffffu, A.values[k].bits);
          }
        }
        EXPECT_EQ(k, A.row_ptr[r + 1]);
      }
    }
  }
}

TEST(PanelLayout, NoColumnsStillMakesOneChunk) {
  const auto A = test::with_values<half>(test::with_row_lengths(0, {0, 0, 0}, 1));
  const PanelLayout layout = build_panel_layout(A, 1024);
  EXPECT_EQ(layout.chunks, 1);
  EXPECT_EQ(layout.offsets, (std::vector<std::int32_t>{0, 0, 0, 0}));
  EXPECT_TRUE(layout.words.empty());
}

TEST(PanelShape, SlicesAre8ColumnsUpTo8And16Above) {
  EXPECT_EQ(panels_slice_columns(1), 8);
  EXPECT_EQ(panels_slice_columns(8), 8);
  EXPECT_EQ(panels_slice_columns(9), 16);
  EXPECT_EQ(panels_slice_columns(65), 16);
}

TEST(PanelShape, PanelRowsAreTheTallestWhoseAveragePanelFitsAndWhoseGridFillsTheGpu) {
  // 4096 x 4096 at 90 % sparsity in chunks of 1024: 102 nonzeros a row and chunk
  const std::int64_t rows = 4096, chunks = 4, nnz = 4096 * 4096 / 10;
  EXPECT_EQ(choose_panel_rows(rows, chunks, 1, nnz, 1 << 20, 1), 128);  // fits, 1 SM
  EXPECT_EQ(choose_panel_rows(rows, chunks, 1, nnz, 1 << 20, 132), 32);  // 512 blocks >= 264
  // a stage of 11,000 words holds 1.5 x 64 x 102 but not 1.5 x 128 x 102
  EXPECT_EQ(choose_panel_rows(rows, chunks, 1, nnz, 11000, 1), 64);
  EXPECT_EQ(choose_panel_rows(rows, chunks, 1, nnz, 100, 1), kPanelsMinRows);  // nothing fits
  EXPECT_EQ(choose_panel_rows(16, 1, 1, 10, 1 << 20, 132), kPanelsMinRows);    // a tiny grid
  EXPECT_EQ(choose_panel_rows(0, 1, 1, 0, 1 << 20, 132), kPanelsMinRows);
}

detail::ParameterValues tca_values(const std::vector<std::string>& given) {
  return detail::check_parameter_values("tca", parameter_specs(), given);
}

TEST(PanelParameters, BelongToKernelPanelsAndPanelRowsAreWholeWarps) {
  const TcaParameters p = tca_parameters(tca_values({"kernel=panels"}), 4096, 16);
  EXPECT_EQ(p.kernel, TcaKernel::panels);
  EXPECT_FALSE(p.kernel_is_auto);
  EXPECT_EQ(p.panel_columns, kPanelsDefaultColumns);
  EXPECT_EQ(p.panel_rows, 0);  // auto
  const TcaParameters fixed =
      tca_parameters(tca_values({"kernel=panels", "panel_columns=512", "panel_rows=64"}), 4096, 16);
  EXPECT_EQ(fixed.panel_columns, 512);
  EXPECT_EQ(fixed.panel_rows, 64);
  EXPECT_THROW(tca_parameters(tca_values({"kernel=tiles", "panel_columns=512"}), 4096, 16),
               ParameterError);
  EXPECT_THROW(tca_parameters(tca_values({"panel_rows=64"}), 4096, 16), ParameterError);
  EXPECT_THROW(tca_parameters(tca_values({"kernel=panels", "panel_rows=20"}), 4096, 16),
               ParameterError);
  EXPECT_THROW(tca_values({"kernel=panels", "panel_columns=8192"}), ParameterError);  // > 4096
  EXPECT_THROW(tca_parameters(tca_values({"kernel=panels", "column_index_bits=16"}), 4096, 16),
               ParameterError);
}

TEST(RowsParameters, LanesPerNonzeroBelongToTheRowsKernel) {
  EXPECT_EQ(tca_parameters(tca_values({}), 4096, 16).lanes_per_nonzero, 0);  // auto
  EXPECT_EQ(tca_parameters(tca_values({"kernel=rows", "lanes_per_nonzero=1"}), 4096, 16)
                .lanes_per_nonzero,
            1);
  EXPECT_EQ(tca_parameters(tca_values({"lanes_per_nonzero=2"}), 4096, 16).lanes_per_nonzero, 2);
  EXPECT_THROW(tca_parameters(tca_values({"kernel=tiles", "lanes_per_nonzero=2"}), 4096, 16),
               ParameterError);
  EXPECT_THROW(tca_values({"lanes_per_nonzero=4"}), ParameterError);
}

template <typename Value>
void expect_host_model_matches_reference(const CsrMatrix<double, std::int32_t>& exact,
                                         std::int64_t n, DenseLayout dense, test::Scalars scalars,
                                         std::int64_t panel_columns) {
  const double error = test::host_spmm_model_error<Value>(
      exact, n, dense, scalars,
      [&](const CsrMatrix<Value, std::int32_t>& matrix, const std::vector<Value>& B,
          std::vector<Value>& C) {
        panels_host_apply(build_panel_layout(matrix, panel_columns), B, C, n, dense,
                          static_cast<float>(scalars.alpha), static_cast<float>(scalars.beta));
      });
  EXPECT_LT(error, 1e-2) << "n = " << n << ", " << to_string(dense) << ", panels of "
                         << panel_columns << " columns";
}

TEST(PanelsHostModel, MatchesTheReferenceInBothLayoutsInOneChunkOrMany) {
  std::vector<test::NamedMatrix> matrices = test::edge_case_matrices();
  matrices.push_back(
      {"llm_95_skewed", generate_llm_weights(300, 1100, 0.95, LlmRowProfile::skewed, 2)});
  for (const test::NamedMatrix& named : matrices) {
    if (named.matrix.nnz() > 100000) continue;
    SCOPED_TRACE(named.name);
    const auto matrix = test::scaled_for_16_bit(named.matrix);
    for (const std::int64_t n : {1, 9, 16})
      for (const DenseLayout dense : {DenseLayout::row_major, DenseLayout::column_major})
        for (const std::int64_t panel_columns : {64, 4096})
          for (const test::Scalars scalars : test::kScalarCases) {
            expect_host_model_matches_reference<half>(matrix, n, dense, scalars, panel_columns);
            expect_host_model_matches_reference<bfloat16>(matrix, n, dense, scalars,
                                                          panel_columns);
          }
  }
}

}  // namespace
}  // namespace tcsparse::tca
