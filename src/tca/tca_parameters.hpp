// The tca parameters (PlanOptions::parameters, "key=value"): which kernel, and the width of the
// column indices it streams.
#pragma once

#include <cstdint>
#include <span>

#include "plan/parameters.hpp"

namespace tcsparse::tca {

/// kernel=...:
///  - paper: the paper's design (tca.cu): each row's dot products matricised into m16n8k8, 1/2/4/8
///    warps a row by its length, the compressed right-hand side staged in shared memory;
///  - rows: a warp a row, its lanes over the row's nonzeros, B gathered through the read-only
///    cache, 16 columns of C at a time in fp32 registers (tca_rows_kernel.cuh; not in the paper).
///    It streams the matrix once per 16 columns of B.
enum class TcaKernel { paper, rows };

/// kernel=auto takes rows for every n: measured on an H100 (16 LLM weights, n = 8-64,
/// src/tca/README.md) 29-90x faster than paper; the paper kernel stays as a variant.
inline constexpr TcaKernel kDefaultKernel = TcaKernel::rows;

/// column_index_bits=16 stores 16-bit column indices, which needs every column to fit: cols <=
/// 65536 (issue 11: 1.2 instead of 1.8 bytes a weight at 70 % sparsity); rows kernel only (the
/// paper kernel reads the CSR's 32-bit indices). auto = 32: measured on an H100 the 16-bit
/// indices were no faster (n = 8: 5-45 % slower at 70 % sparsity; n = 16: within +-10 %), the
/// kernel being bound by its B gathers rather than by the matrix stream.
inline constexpr std::int64_t kMaxColumnsOf16BitIndices = std::int64_t{1} << 16;
inline constexpr int kDefaultColumnIndexBits = 32;

struct TcaParameters {
  TcaKernel kernel = TcaKernel::rows;
  int column_index_bits = 32;  ///< 16 or 32 (rows kernel); 32 for paper
};

/// The schema (the registry's MethodDescriptor::parameters).
std::span<const ParameterSpec> parameter_specs();

/// The parameters of checked values for a plan of `cols` columns and width `n`: auto resolved;
/// ParameterError for column_index_bits=16 with more than 65536 columns or with kernel=paper.
TcaParameters tca_parameters(const detail::ParameterValues& values, std::int64_t cols,
                             std::int64_t n);

const char* kernel_name(TcaKernel kernel);

}  // namespace tcsparse::tca
