// Test access to a DASP plan's device arrays (GPU tests compare the GPU-built index arrays and
// the GPU-filled values with the host build of dasp_format.hpp). Not for use outside tests.
#pragma once

#include <cstdint>
#include <vector>

#include "dasp/dasp_format.hpp"
#include "plan/method.hpp"

namespace tcsparse::dasp::testing {

/// The value and column arrays of a DASP layout as the device holds them.
template <typename Value>
struct DaspValueArrays {
  std::vector<Value> long_values, regular_values, irregular_values, short_values;
  std::vector<std::int32_t> long_cols, regular_cols, irregular_cols, short_cols;
};

/// Copies them back from a method made by dasp::make_spmv (synchronous). Throws Error for
/// another method.
template <typename Value>
DaspValueArrays<Value> download_value_arrays(const detail::SpmvMethod<Value>& method);

/// The method's index arrays and layout scalars copied back into a host layout without values
/// (empty for a matrix without nonzeros), to compare with build_dasp_layout(...,
/// DaspFill::index_only). Throws Error for another method.
template <typename Value>
DaspLayout<Value> download_index_arrays(const detail::SpmvMethod<Value>& method);

}  // namespace tcsparse::dasp::testing
