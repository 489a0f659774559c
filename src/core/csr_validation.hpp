// The part of CsrMatrix::validate() that costs O(1): for plans whose method checks the rest on
// the GPU after uploading the CSR (MethodDescriptor::checks_csr_on_device), so that the host does
// not read every row and column first.
#pragma once

#include "tcsparse/csr.hpp"

namespace tcsparse::detail {

/// Throws ValidationError, with validate()'s words, when rows or cols are negative, row_ptr does
/// not hold rows + 1 offsets, values and col_idx differ in size, or row_ptr[0] != 0: what the
/// upload of the arrays needs. The row offsets' order, their last entry and the columns are
/// validate()'s (or runtime/device_csr_view.hpp validate_device_csr's) to check.
template <typename Value, typename Index>
void validate_csr_shape(const CsrMatrix<Value, Index>& matrix);

}  // namespace tcsparse::detail
