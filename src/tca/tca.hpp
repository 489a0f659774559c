// The tca SpMM method (TCA-SpMM, tca_format.hpp): fp16 and bf16 inputs, fp32 accumulation.
#pragma once

#include <memory>

#include "plan/method.hpp"
#include "tca/tca_tiles_format.hpp"

namespace tcsparse::tca {

/// fp16 / bf16 only (the registry has no fp32 / fp64 factories: UnsupportedError). Any n, B and
/// C row-major or column-major, C in the input type or fp32.
template <typename Value>
std::unique_ptr<detail::SpmmMethod<Value>> make_spmm(const CsrMatrix<Value, std::int32_t>& matrix,
                                                     std::int64_t n, const SpmmLayout& layout,
                                                     const detail::ParameterValues& parameters);

namespace testing {
/// kernel=tiles' layout for `shape` as a plan with build=device makes it on the GPU, downloaded
/// (the tests compare it with build_tile_layout's, word for word).
template <typename Value>
TileLayout tile_layout_built_on_device(const CsrMatrix<Value, std::int32_t>& matrix,
                                       const TilesShape& shape);
}  // namespace testing

}  // namespace tcsparse::tca
