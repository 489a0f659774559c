// libFuzzer target: the Matrix Market reader (and the .smtx reader) on arbitrary bytes, plain
// or gzip (one or more members), read through the same TextReader as files are.
//
// Any tcsparse::Error is a correct answer to a bad input. Anything else is a bug: a crash, a
// sanitizer report, another exception, a hang, a matrix that fails validate(), or a result that
// changes with the number of threads and parse chunks.
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <string>
#include <string_view>

#include "core/file_io.hpp"
#include "core/matrix_market_parser.hpp"
#include "core/smtx_parser.hpp"
#include "tcsparse/csr.hpp"
#include "tcsparse/error.hpp"

namespace {

/// Largest row or column count a fuzz input may declare: a 30-byte file must not be able to
/// ask for a row_ptr of gigabytes (a valid request, but not one to make 10^5 times a second).
constexpr std::int64_t kMaxFuzzDimension = std::int64_t{1} << 20;

template <typename Value, typename Index>
bool same_matrix(const tcsparse::CsrMatrix<Value, Index>& a, const tcsparse::CsrMatrix<Value, Index>& b) {
  return a.rows == b.rows && a.cols == b.cols && a.row_ptr == b.row_ptr && a.col_idx == b.col_idx &&
         a.values.size() == b.values.size() &&
         (a.values.empty() ||
          std::memcmp(a.values.data(), b.values.data(), a.values.size() * sizeof(Value)) == 0);
}

template <typename Value, typename Index>
void fuzz_matrix_market(std::string_view text) {
  using tcsparse::detail::parse_matrix_market_text;
  tcsparse::ReadOptions parallel;
  parallel.threads = 2;
  tcsparse::detail::MatrixMarketTuning small_chunks;
  small_chunks.min_chunk_bytes = 8;  // many chunks even for tiny inputs: exercises the seams
  small_chunks.read_buffer_bytes = 256;  // and many pieces of text through the read buffer
  small_chunks.max_dimension = kMaxFuzzDimension;
  tcsparse::CsrMatrix<Value, Index> matrix;
  try {
    matrix = parse_matrix_market_text<Value, Index>(text, "fuzz.mtx", parallel, nullptr, small_chunks);
  } catch (const tcsparse::Error&) {  // a line longer than 256 bytes among them
    return;
  }
  matrix.validate();  // a ValidationError escaping here is a reader bug: libFuzzer reports it

  tcsparse::ReadOptions serial;
  serial.threads = 1;
  tcsparse::detail::MatrixMarketTuning one_chunk;
  one_chunk.min_chunk_bytes = std::size_t{1} << 30;
  one_chunk.read_buffer_bytes = std::size_t{1} << 20;
  one_chunk.max_dimension = kMaxFuzzDimension;
  const auto again = parse_matrix_market_text<Value, Index>(text, "fuzz.mtx", serial, nullptr, one_chunk);
  if (!same_matrix(matrix, again)) std::abort();  // depends on threads or chunking
}

template <typename Value, typename Index>
void fuzz_smtx(std::string_view bytes) {
  tcsparse::ReadOptions options;
  options.threads = 2;
  try {
    // As read_smtx reads a file: through the reader (gzip, the line-1 bound), then parsed.
    tcsparse::detail::TextReader reader(bytes, "fuzz.smtx", tcsparse::detail::kSmtxPrefixBytes);
    const auto text = reader.read_rest([](std::string_view prefix) {
      return tcsparse::detail::smtx_text_limit(prefix, "fuzz.smtx");
    });
    tcsparse::detail::parse_smtx_text<Value, Index>(text.view(), "fuzz.smtx", options).validate();
  } catch (const tcsparse::ParseError&) {
  } catch (const tcsparse::IndexOverflowError&) {
  }
}

}  // namespace

/// UBSan reports must stop the run (the fuzz preset compiles with recoverable checks).
extern "C" const char* __ubsan_default_options() { return "halt_on_error=1:print_stacktrace=1"; }

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  // Raw bytes: the readers inflate gzip input themselves (any number of members).
  const std::string_view bytes(reinterpret_cast<const char*>(data), size);
  fuzz_matrix_market<double, std::int32_t>(bytes);
  fuzz_matrix_market<tcsparse::half, std::int64_t>(bytes);
  fuzz_smtx<float, std::int32_t>(bytes);
  return 0;
}
