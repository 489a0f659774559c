// The words of a CSR validation failure, shared by CsrMatrix::validate (host, csr.cpp) and the GPU
// check of a DeviceCsrView (runtime/device_csr_view.cu), so that both name a problem alike.
#pragma once

#include <cstdint>
#include <string>

namespace tcsparse::detail::csr_message {

inline std::string str(std::int64_t value) { return std::to_string(value); }

inline std::string negative_rows(std::int64_t rows) {
  return "negative number of rows: " + str(rows);
}
inline std::string negative_cols(std::int64_t cols) {
  return "negative number of columns: " + str(cols);
}
inline std::string first_row_offset(std::int64_t first) {
  return "row_ptr[0] is " + str(first) + ", expected 0";
}
inline std::string decreasing_row_offsets(std::int64_t row, std::int64_t begin, std::int64_t end) {
  return "row_ptr decreases at row " + str(row) + ": row_ptr[" + str(row) + "] = " + str(begin) +
         " > row_ptr[" + str(row + 1) + "] = " + str(end);
}
inline std::string last_row_offset(std::int64_t last, std::int64_t nnz) {
  return "row_ptr[rows] = " + str(last) + ", expected nnz = " + str(nnz) +
         " (the size of col_idx)";
}
inline std::string column_out_of_range(std::int64_t row, std::int64_t column, std::int64_t cols) {
  return "row " + str(row) + ": column " + str(column) + " is out of range [0, " + str(cols) + ")";
}
inline std::string duplicate_column(std::int64_t row, std::int64_t column) {
  return "row " + str(row) + ": column " + str(column) +
         " appears twice (duplicate entries are not allowed)";
}
inline std::string unsorted_column(std::int64_t row, std::int64_t column, std::int64_t previous) {
  return "row " + str(row) + ": column " + str(column) + " follows column " + str(previous) +
         " (columns must be sorted within a row)";
}

}  // namespace tcsparse::detail::csr_message
