// Plans: a sparse matrix prepared on the GPU for one method, then applied many times.
//
//   auto A    = tcsparse::read_matrix<double>("cant.mtx");             // host CSR, validated
//   auto plan = tcsparse::SpmvPlan<double>(A, tcsparse::Method::dasp); // preprocessing + upload
//   plan.apply(d_x, d_y, 1.0, 0.0, stream);                            // device pointers, async
//   plan.stats();                                                      // times, bytes, padding
//
// Every method implements the same interface (src/plan/method.hpp): the CLI, the benchmarks and
// the tests treat them alike.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "tcsparse/csr.hpp"
#include "tcsparse/types.hpp"

struct CUstream_st;  // cudaStream_t is CUstream_st*: declared here so no CUDA header is needed

namespace tcsparse {

using Stream = CUstream_st*;  ///< a cudaStream_t; nullptr is the legacy default stream

enum class Method {
  cusparse,       ///< cusparseSpMV / cusparseSpMM, CSR, their default algorithm
  cusparse_alg2,  ///< cusparseSpMV CUSPARSE_SPMV_CSR_ALG2 / cusparseSpMM CUSPARSE_SPMM_CSR_ALG2
  cusparse_alg3,  ///< cusparseSpMM CUSPARSE_SPMM_CSR_ALG3 (SpMM only)
  dasp,           ///< DASP tensor-core SpMV (SC'23)
};

enum class Operation { spmv, spmm };

std::string_view to_string(Method method);
/// Parses a method name as to_string prints it; throws Error listing the known names otherwise.
Method parse_method(std::string_view name);

/// What is known about a method without a GPU.
struct MethodInfo {
  Method method;
  std::string_view name;
  std::string_view description;
  bool spmv = false;
  bool spmm = false;
  std::vector<Precision> precisions;  ///< precisions it runs in
  bool is_baseline = false;           ///< true for the cuSPARSE methods
};

/// Every method the library has, in a fixed order (baselines first).
const std::vector<MethodInfo>& methods();
const MethodInfo& method_info(Method method);
bool supports(Method method, Operation operation, Precision precision);

/// A method's host-side preprocessing statistics as a JSON object (no GPU needed), e.g. for DASP
/// {"rows": {"long": .., "medium": .., "short": .., "empty": ..}, "nnz": {..}, ...}.
/// Returns "null" for a method without a host format (cuSPARSE).
std::string format_stats_json(Method method, const CsrMatrix<double, std::int32_t>& matrix);

/// What building a plan cost and what it holds.
struct PlanStats {
  double host_preprocess_ms = 0.0;    ///< CSR -> the method's layout, on the host
  double upload_ms = 0.0;             ///< host -> device copies
  double device_preprocess_ms = 0.0;  ///< e.g. cusparseSpMV_preprocess
  std::size_t device_bytes = 0;       ///< device memory the plan holds
  std::int64_t stored_values = 0;     ///< values stored on the device, padding included
  double padding_ratio = 0.0;         ///< (stored_values - nnz) / nnz
  std::string details_json = "null";  ///< method-specific statistics (as format_stats_json)
};

namespace detail {
template <typename Value>
class SpmvMethod;
template <typename Value>
class SpmmMethod;
}  // namespace detail

/// Options every plan understands; methods ignore what does not apply to them.
struct PlanOptions {
  int device = 0;  ///< CUDA device ordinal
  /// Method-specific parameters as "key=value" pairs, e.g. {"max_medium_row_length=256"}.
  /// Unknown keys are an error (UnsupportedError naming the key and the known ones).
  std::vector<std::string> parameters;
};

/// y = alpha * A * x + beta * y on the GPU. fp16 and bf16 accumulate in fp32.
/// Not copyable; movable. Throws NoDeviceError without a GPU, UnsupportedError for a precision
/// the method lacks, IndexOverflowError if a method-internal size overflows 32 bits.
template <typename Value>
class SpmvPlan {
 public:
  SpmvPlan(const CsrMatrix<Value, std::int32_t>& matrix, Method method,
           const PlanOptions& options = {});
  ~SpmvPlan();
  SpmvPlan(SpmvPlan&&) noexcept;
  SpmvPlan& operator=(SpmvPlan&&) noexcept;

  /// x: cols values, y: rows values, both device pointers. Asynchronous on `stream`.
  /// beta == 0 ignores y's old contents (NaN included).
  void apply(const Value* x, Value* y, scalar_t<Value> alpha, scalar_t<Value> beta,
             Stream stream = nullptr) const;

  Method method() const { return method_; }
  std::int64_t rows() const { return rows_; }
  std::int64_t cols() const { return cols_; }
  std::int64_t nnz() const { return nnz_; }
  const PlanStats& stats() const;

 private:
  Method method_;
  std::int64_t rows_ = 0, cols_ = 0, nnz_ = 0;
  std::unique_ptr<detail::SpmvMethod<Value>> impl_;
};

/// C = alpha * A * B + beta * C on the GPU with B (cols x n) and C (rows x n) row-major,
/// device pointers. fp16 and bf16 accumulate in fp32.
template <typename Value>
class SpmmPlan {
 public:
  SpmmPlan(const CsrMatrix<Value, std::int32_t>& matrix, std::int64_t n, Method method,
           const PlanOptions& options = {});
  ~SpmmPlan();
  SpmmPlan(SpmmPlan&&) noexcept;
  SpmmPlan& operator=(SpmmPlan&&) noexcept;

  void apply(const Value* B, Value* C, scalar_t<Value> alpha, scalar_t<Value> beta,
             Stream stream = nullptr) const;

  Method method() const { return method_; }
  std::int64_t rows() const { return rows_; }
  std::int64_t cols() const { return cols_; }
  std::int64_t n() const { return n_; }
  std::int64_t nnz() const { return nnz_; }
  const PlanStats& stats() const;

 private:
  Method method_;
  std::int64_t rows_ = 0, cols_ = 0, n_ = 0, nnz_ = 0;
  std::unique_ptr<detail::SpmmMethod<Value>> impl_;
};

}  // namespace tcsparse
