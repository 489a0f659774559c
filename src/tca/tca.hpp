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

/// From a CSR already on the GPU (checked by the plan), with no host round trip for
/// kernel=rows (a device-to-device copy) and for a tile layout built on the GPU (kernel=tiles,
/// and kernel=auto, which counts the stored tiles at decode widths by building it); kernel=paper
/// and a tile layout built on the host (build=host, or auto below kTilesDeviceBuildMinNonzeros)
/// download the CSR once. The plan owns what it reads: the caller's arrays may be freed after.
template <typename Value>
std::unique_ptr<detail::SpmmMethod<Value>> make_spmm_from_device(
    const DeviceCsrView<Value>& matrix, std::int64_t n, const SpmmLayout& layout,
    const detail::ParameterValues& parameters);

namespace testing {
/// kernel=tiles' layout for `shape` as a plan with build=device makes it on the GPU, downloaded
/// (the tests compare it with build_tile_layout's, word for word).
template <typename Value>
TileLayout tile_layout_built_on_device(const CsrMatrix<Value, std::int32_t>& matrix,
                                       const TilesShape& shape);
}  // namespace testing

}  // namespace tcsparse::tca
