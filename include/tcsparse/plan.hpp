// Plans: a sparse matrix prepared on the GPU for one method, then applied many times.
//
//   auto A    = tcsparse::read_matrix<double>("cant.mtx");  // host CSR, validated
//   auto plan = tcsparse::SpmvPlan<double>(A, "dasp");      // preprocessing + upload
//   plan.apply(d_x, d_y, 1.0, 0.0, stream);                 // device pointers, async
//   plan.stats();                                           // times, bytes, padding, details
//
//   tcsparse::DeviceCsrView<double> view{rows, cols, nnz, d_row_ptr, d_col_idx, d_values};
//   auto plan2 = tcsparse::SpmvPlan<double>(view, "csr_overlap"); // reads the view's arrays
//   auto plan3 = tcsparse::SpmvPlan<double>(A, "csr_overlap");
//   plan3.update_values(d_new_values, stream);              // same pattern, new values, async
//
// Every method implements the same interface (src/plan/method.hpp) and is listed by
// tcsparse::methods() (method.hpp): the CLI, the benchmarks and the tests treat them alike.
#pragma once

#include <cstdint>
#include <memory>
#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "tcsparse/csr.hpp"
#include "tcsparse/json.hpp"
#include "tcsparse/method.hpp"
#include "tcsparse/types.hpp"

struct CUstream_st;  // cudaStream_t is CUstream_st*: declared here so no CUDA header is needed

namespace tcsparse {

using Stream = CUstream_st*;  ///< a cudaStream_t; nullptr is the legacy default stream

/// What building a plan cost and what it holds.
struct PlanStats {
  double host_preprocess_ms = 0.0;    ///< CSR -> the method's layout, on the host
  double upload_ms = 0.0;             ///< host -> device copies
  double device_preprocess_ms = 0.0;  ///< e.g. cusparseSpMV_preprocess
  std::size_t device_bytes = 0;       ///< device memory the plan holds
  std::int64_t stored_values = 0;     ///< values stored on the device, padding included
  double padding_ratio = 0.0;         ///< (stored_values - nnz) / nnz
  /// Method-specific statistics as one JSON object (layout categories, algorithm, parameters as
  /// resolved, ...); the same fields as layout_statistics() where the method has a host layout.
  Json details = Json::object();
};

namespace detail {
template <typename Value>
class SpmvMethod;
template <typename Value>
class SpmmMethod;
}  // namespace detail

/// How a plan copies the caller's host arrays to the GPU (the one upload path of every method,
/// src/runtime/host_upload.hpp). Host memory that is already pinned (cudaMallocHost) or
/// registered (cudaHostRegister) is always copied directly.
enum class HostUpload {
  /// staged for pageable arrays of at least a few MiB, direct for small ones
  automatic,
  /// pageable -> a ring of pinned staging chunks -> device, host copy and DMA overlapped
  staged,
  /// cudaHostRegister the caller's array for the copy, then unregister it
  registered,
  /// one cudaMemcpy from wherever the array is (from pageable memory: the driver's own staging)
  direct,
};
/// "automatic", "staged", "register", "direct".
std::string_view to_string(HostUpload upload);
/// The inverse of to_string; anything else is a ParameterError listing the four words.
HostUpload parse_host_upload(std::string_view text);

/// How B and C of an SpMM are stored (both the same way). Row-major: element (i, j) at i * n + j;
/// column-major: at j * rows + i (B: cols rows, C: rows rows), as BLAS and PyTorch's weight.T
/// products hold them.
enum class DenseLayout { row_major, column_major };
/// "row_major", "column_major".
std::string_view to_string(DenseLayout layout);
/// The inverse of to_string ("row" and "col"/"column" too); anything else is a ParameterError.
DenseLayout parse_dense_layout(std::string_view text);

/// The type of C: the input type, or fp32 for fp16 / bf16 inputs (the fp32 accumulators written
/// as they are; SpmmPlan::apply_fp32_output). fp32 for fp32 inputs is the input type.
enum class SpmmOutput { input_type, fp32 };
/// "input", "fp32".
std::string_view to_string(SpmmOutput output);
/// The inverse of to_string; anything else is a ParameterError.
SpmmOutput parse_spmm_output(std::string_view text);

/// The dense operands of an SpMM plan. A method that cannot do a combination refuses it when the
/// plan is built with an UnsupportedError naming it (e.g. "tca does not support column-major B
/// and C"); `tcsparse methods` lists what each method does.
struct SpmmLayout {
  DenseLayout dense = DenseLayout::row_major;
  SpmmOutput output = SpmmOutput::input_type;
};
/// "row_major B and C, C in fp16" for messages.
std::string describe(const SpmmLayout& layout, Precision input);

/// Options every plan understands.
struct PlanOptions {
  int device = 0;  ///< CUDA device ordinal
  /// How the matrix reaches the GPU (PlanStats::upload_ms measures it).
  HostUpload host_upload = HostUpload::automatic;
  /// Under Method("auto"): true (default) builds the rule's few best-ranked methods and cuSPARSE
  /// and keeps the one whose applies, timed on this matrix at plan time, are fastest (a few dozen
  /// applies of each, plus their builds, join the plan's build); false builds the rule's first
  /// choice only, for plans built so often that the build dominates. Ignored for a named method,
  /// and under "auto" when parameters are given (they go to the rule's choice) or A has no
  /// nonzeros. PlanStats::details["auto"]["measured"] lists each candidate's times.
  bool auto_measure = true;
  /// Method-specific parameters as "key=value" pairs, e.g. {"max_medium_row_length=256"},
  /// checked against the method's schema (Method::parameters()): an unknown key or a value out of
  /// range is a ParameterError naming the method, the key and what it accepts.
  std::vector<std::string> parameters;
};

/// Plans from device CSR. `SpmvPlan(DeviceCsrView, method, options)` (and SpmmPlan's) take a CSR
/// whose arrays are already on the plan's GPU. The view is checked on the GPU before a plan exists
/// (the invariants of CsrMatrix::validate, with the same ValidationError messages naming the first
/// bad row or entry; a null, host or other-device pointer is a ValidationError too; csr_overlap
/// runs the check beside its own build and reads the check's answer first). The arrays must be
/// complete when it is called: it reads them on the legacy default stream, so work that writes
/// them on another stream must be synchronised first. Building may synchronise.
///   - csr_overlap borrows the arrays (parameter device_csr, default auto: when col_idx and values
///     are 16-byte aligned): nothing is copied, the arrays must outlive the plan, and values the
///     caller writes into them are what later applies multiply by (stats().details.device_csr =
///     "borrowed"); device_csr=copy keeps a device-to-device copy instead.
///   - Every other method keeps its own copy or layout: the caller's arrays may be freed or
///     changed once the constructor returns. The cuSPARSE baselines build from the device arrays
///     directly: a device-to-device copy and their device preprocessing, no host round trip
///     (PlanStats::upload_ms is then the device-to-device copy). dasp and hbp build their
///     layouts on the GPU from the caller's arrays (build=host downloads them first); so does
///     tca with kernel=tiles. tca's kernel=rows and cublas_dense copy the arrays device to device.
///   - The others (tca's kernel=paper, a tca tile layout built on the host: build=host, or
///     build=auto below 16384 nonzeros) download the CSR to the host once (rows + 1 offsets,
///     nnz columns and values; counted in the build time, not in upload_ms) and build as from a
///     CsrMatrix, uploading their layout.
///
/// New values, same pattern. `update_values(device_values, stream)` replaces the matrix's nnz
/// values (in the CSR order the plan was built from) and keeps its sparsity pattern and
/// everything built from it. It is asynchronous on `stream` and costs one device-to-device copy of
/// the values: applies queued on `stream` after it see the new values, applies before it the old
/// ones (order applies on other streams yourself, e.g. with events). The device array may be
/// freed once the copy ran. `update_values(host_values, stream)` uploads them first and returns
/// when the values are in place (it waits for `stream`). dasp, whose layout reorders and pads the
/// values, refills it on `stream` with its plan-time fill kernels (one pass over the layout's
/// values; it keeps the CSR's row offsets on the GPU for this, 4 bytes a row). Methods that
/// cannot (hbp, tca's kernel=tiles), and a csr_overlap plan that borrows a DeviceCsrView's
/// arrays, throw UnsupportedError naming the method and what to do instead.
/// host_values.size() != nnz is a ValidationError.

/// y = alpha * A * x + beta * y on the GPU. fp16 and bf16 accumulate in fp32.
/// Not copyable; movable. Throws NoDeviceError without a GPU, UnsupportedError for a precision
/// the method lacks, ParameterError for a bad parameter, ValidationError for an invalid matrix,
/// IndexOverflowError if a method-internal size overflows 32 bits, DeviceMemoryError when the
/// GPU's memory does not hold the plan.
template <typename Value>
class SpmvPlan {
 public:
  SpmvPlan(const CsrMatrix<Value, std::int32_t>& matrix, Method method,
           const PlanOptions& options = {});
  /// From a CSR already on the GPU (CuPy, PyTorch, ...): see "Plans from device CSR" below.
  SpmvPlan(const DeviceCsrView<Value>& matrix, Method method, const PlanOptions& options = {});
  ~SpmvPlan();
  SpmvPlan(SpmvPlan&&) noexcept;
  SpmvPlan& operator=(SpmvPlan&&) noexcept;

  /// x: cols values, y: rows values, both device pointers. Asynchronous on `stream`.
  /// beta == 0 ignores y's old contents (NaN included). A matrix without nonzeros costs one
  /// y = beta * y (a memset for beta == 0, nothing for beta == 1), whatever the method.
  void apply(const Value* x, Value* y, scalar_t<Value> alpha, scalar_t<Value> beta,
             Stream stream = nullptr) const;

  /// Whether apply works in the plan's own row order (e.g. DASP's "row_order=plan"): y, and for
  /// a square matrix x too (the plan applies P A P^T), hold at index p the row of plan position
  /// p, not row p. A solver iterates in that order and converts at the ends:
  ///   plan.permute(x, xp); loop { plan.apply(xp, yp, ...); ... } plan.unpermute(yp, y);
  /// A non-square matrix's x stays in the caller's order (its columns are not rows).
  bool plan_row_order() const;
  /// plan_order[p] = caller_order[row of plan position p]: rows() values, device pointers,
  /// asynchronous on `stream`, not overlapping. A plain copy for a plan in the caller's order.
  void permute(const Value* caller_order, Value* plan_order, Stream stream = nullptr) const;
  /// The inverse of permute: caller_order[r] = plan_order[plan position of r].
  void unpermute(const Value* plan_order, Value* caller_order, Stream stream = nullptr) const;
  /// See "New values, same pattern" below.
  void update_values(const Value* device_values, Stream stream = nullptr);
  void update_values(std::span<const Value> host_values, Stream stream = nullptr);
  /// Whether update_values works for this plan's method.
  bool can_update_values() const;

  Method method() const { return method_; }
  std::int64_t rows() const { return rows_; }
  std::int64_t cols() const { return cols_; }
  std::int64_t nnz() const { return nnz_; }
  const PlanStats& stats() const;

 private:
  /// out = in gathered through `index` (a plan-order array), or copied when there is none.
  void reorder(const Value* in, Value* out, const std::int32_t* index, Stream stream) const;

  Method method_;
  std::int64_t rows_ = 0, cols_ = 0, nnz_ = 0;
  std::unique_ptr<detail::SpmvMethod<Value>> impl_;
};

/// C = alpha * A * B + beta * C on the GPU with B (cols x n) and C (rows x n), device pointers,
/// stored as `layout` says (default: both row-major, C in the input type). fp16 and bf16
/// accumulate in fp32. beta == 0 ignores C's old contents (NaN included).
template <typename Value>
class SpmmPlan {
 public:
  SpmmPlan(const CsrMatrix<Value, std::int32_t>& matrix, std::int64_t n, Method method,
           const PlanOptions& options = {}, const SpmmLayout& layout = {});
  /// From a CSR already on the GPU: as SpmvPlan's.
  SpmmPlan(const DeviceCsrView<Value>& matrix, std::int64_t n, Method method,
           const PlanOptions& options = {}, const SpmmLayout& layout = {});
  ~SpmmPlan();
  SpmmPlan(SpmmPlan&&) noexcept;
  SpmmPlan& operator=(SpmmPlan&&) noexcept;

  /// For a plan with C in the input type (SpmmOutput::input_type); else an Error. A matrix
  /// without nonzeros costs one C = beta * C, whatever the method.
  void apply(const Value* B, Value* C, scalar_t<Value> alpha, scalar_t<Value> beta,
             Stream stream = nullptr) const;
  /// For a plan with SpmmOutput::fp32 (fp16 / bf16 inputs; for fp32 inputs the same as apply);
  /// else an Error.
  void apply_fp32_output(const Value* B, float* C, float alpha, float beta,
                         Stream stream = nullptr) const;

  /// As SpmvPlan's.
  void update_values(const Value* device_values, Stream stream = nullptr);
  void update_values(std::span<const Value> host_values, Stream stream = nullptr);
  bool can_update_values() const;

  Method method() const { return method_; }
  std::int64_t rows() const { return rows_; }
  std::int64_t cols() const { return cols_; }
  std::int64_t n() const { return n_; }
  std::int64_t nnz() const { return nnz_; }
  const SpmmLayout& layout() const { return layout_; }
  const PlanStats& stats() const;

 private:
  void check_operands(const void* B, const void* C) const;

  Method method_;
  std::int64_t rows_ = 0, cols_ = 0, n_ = 0, nnz_ = 0;
  SpmmLayout layout_;
  std::unique_ptr<detail::SpmmMethod<Value>> impl_;
};

}  // namespace tcsparse
