// read_matrix / write_matrix: the format chosen by the file name's extension.
#include <string>

#include "core/file_io.hpp"
#include "core/smtx_parser.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/io.hpp"

namespace tcsparse {

namespace {

enum class FileFormat { matrix_market, smtx };

constexpr const char* kReadableExtensions = ".mtx, .mtx.gz, .smtx or .smtx.gz";

FileFormat format_from_name(const std::filesystem::path& path, const char* action) {
  const std::string name = detail::lowercase_file_name(path);
  // ".smtx" names never end in ".mtx" (the character before "mtx" is "s"), so order is free.
  if (detail::ends_with(name, ".smtx") || detail::ends_with(name, ".smtx.gz")) return FileFormat::smtx;
  if (detail::ends_with(name, ".mtx") || detail::ends_with(name, ".mtx.gz"))
    return FileFormat::matrix_market;
  throw Error(std::string("cannot ") + action + " '" + path.string() +
              "': unknown file type; expected a name ending in " + kReadableExtensions);
}

}  // namespace

template <typename Value, typename Index>
CsrMatrix<Value, Index> read_matrix(const std::filesystem::path& path, const ReadOptions& options,
                                    ReadReport* report) {
  switch (format_from_name(path, "read")) {
    case FileFormat::smtx: return read_smtx<Value, Index>(path, options, report);
    case FileFormat::matrix_market: break;
  }
  return read_matrix_market<Value, Index>(path, options, report);
}

template <typename Value, typename Index>
void write_matrix(const std::filesystem::path& path, const CsrMatrix<Value, Index>& matrix) {
  switch (format_from_name(path, "write")) {
    case FileFormat::smtx: detail::write_smtx(path, matrix); return;
    case FileFormat::matrix_market: break;
  }
  write_matrix_market(path, matrix);
}

#define TCSPARSE_INSTANTIATE_READ_MATRIX(Value, Index)                                         \
  template CsrMatrix<Value, Index> read_matrix<Value, Index>(const std::filesystem::path&,     \
                                                             const ReadOptions&, ReadReport*); \
  template void write_matrix(const std::filesystem::path&, const CsrMatrix<Value, Index>&);

TCSPARSE_INSTANTIATE_READ_MATRIX(double, std::int32_t)
TCSPARSE_INSTANTIATE_READ_MATRIX(double, std::int64_t)
TCSPARSE_INSTANTIATE_READ_MATRIX(float, std::int32_t)
TCSPARSE_INSTANTIATE_READ_MATRIX(float, std::int64_t)
TCSPARSE_INSTANTIATE_READ_MATRIX(half, std::int32_t)
TCSPARSE_INSTANTIATE_READ_MATRIX(half, std::int64_t)
TCSPARSE_INSTANTIATE_READ_MATRIX(bfloat16, std::int32_t)
TCSPARSE_INSTANTIATE_READ_MATRIX(bfloat16, std::int64_t)

}  // namespace tcsparse
