// Parsing and resolution of the tca parameters (tca_parameters.hpp).
#include "tca/tca_parameters.hpp"

#include <string>
#include <vector>

#include "tcsparse/error.hpp"

namespace tcsparse::tca {

std::span<const ParameterSpec> parameter_specs() {
  using Type = ParameterSpec::Type;
  static const std::vector<ParameterSpec> specs = {
      {"kernel", Type::choice, "auto", 0, 0, {"auto", "paper", "rows"},
       "paper: m16n8k8 on matricised rows (the paper); rows: a warp a row, 16 columns of C at a "
       "time; auto: rows (measured 29-90x faster at n = 8-64)"},
      {"column_index_bits", Type::choice, "auto", 0, 0, {"auto", "16", "32"},
       "width of the column indices the rows kernel streams (16: cols <= 65536 only); auto: 32 "
       "(16 measured no faster)"},
  };
  return specs;
}

TcaParameters tca_parameters(const detail::ParameterValues& values, std::int64_t cols,
                             std::int64_t /*n*/) {
  TcaParameters p;
  if (values.is("kernel", "paper")) p.kernel = TcaKernel::paper;
  else if (values.is("kernel", "rows")) p.kernel = TcaKernel::rows;
  else p.kernel = kDefaultKernel;

  const bool fits_16_bits = cols <= kMaxColumnsOf16BitIndices;
  if (values.is("column_index_bits", "16")) {
    if (!fits_16_bits)
      throw ParameterError("method 'tca': parameter column_index_bits=16 is not accepted: the "
                           "matrix has " + std::to_string(cols) +
                           " columns, 16-bit indices hold at most 65536");
    if (p.kernel == TcaKernel::paper)
      throw ParameterError("method 'tca': parameter column_index_bits=16 is not accepted with "
                           "kernel=paper (it reads 32-bit indices)");
    p.column_index_bits = 16;
  } else if (values.is("column_index_bits", "32")) {
    p.column_index_bits = 32;
  } else {
    p.column_index_bits = p.kernel == TcaKernel::rows ? kDefaultColumnIndexBits : 32;
  }
  return p;
}

const char* kernel_name(TcaKernel kernel) { return kernel == TcaKernel::rows ? "rows" : "paper"; }

}  // namespace tcsparse::tca
