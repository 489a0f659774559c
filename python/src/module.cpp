// tcsparse._tcsparse: the nanobind bindings of the C++ library, kept thin on purpose.
//
// Arrays cross this boundary as raw addresses (Python ints) with their element counts: the
// Python front (python/tcsparse/__init__.py) accepts NumPy, SciPy, CuPy, PyTorch, DLPack and
// __cuda_array_interface__ objects, checks shape, dtype, layout and device, and hands over the
// addresses of arrays it keeps alive for the duration of the call. What this file adds is the
// type erasure over the four value types (AnyPlan), the CPU reference as a plan, the translation
// of tcsparse's C++ errors into Python exceptions, the GIL released around long work, and the
// fast path of a plan call: arrays like those of a call the Python front already checked are
// applied here without its checks (Plan.apply_accepted, below).
#include <nanobind/nanobind.h>
#include <nanobind/ndarray.h>
#include <nanobind/stl/map.h>
#include <nanobind/stl/pair.h>
#include <nanobind/stl/string.h>
#include <nanobind/stl/unique_ptr.h>
#include <nanobind/stl/vector.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <type_traits>
#include <utility>
#include <vector>

#include <tcsparse/tcsparse.hpp>

namespace nb = nanobind;
using namespace nb::literals;

namespace {

using tcsparse::bfloat16;
using tcsparse::half;
using Index = std::int32_t;
template <typename Value>
using Csr = tcsparse::CsrMatrix<Value, Index>;
using Address = std::uintptr_t;  ///< a pointer as Python passes it (an int)

template <typename T>
T* pointer(Address address) {
  return reinterpret_cast<T*>(address);  // NOLINT(performance-no-int-to-ptr): Python hands ints
}

tcsparse::Stream stream_of(Address address) { return pointer<CUstream_st>(address); }

// ---- host arrays out: NumPy arrays owning the library's vectors (no copy) ----

template <typename T>
nb::ndarray<nb::numpy, T, nb::ndim<1>> numpy_owning(std::vector<T>&& values) {
  auto owned = std::make_unique<std::vector<T>>(std::move(values));
  const std::size_t size = owned->size();
  T* data = owned->data();
  nb::capsule owner(owned.get(), [](void* p) noexcept { delete static_cast<std::vector<T>*>(p); });
  owned.release();  // the capsule owns it now
  return nb::ndarray<nb::numpy, T, nb::ndim<1>>(data, {size}, owner);
}

/// (rows, cols, indptr, indices, data): what scipy.sparse.csr_array needs, without copies.
nb::tuple csr_tuple(Csr<double>&& matrix) {
  const auto rows = static_cast<std::int64_t>(matrix.rows);
  const auto cols = static_cast<std::int64_t>(matrix.cols);
  return nb::make_tuple(rows, cols, numpy_owning(std::move(matrix.row_ptr)),
                        numpy_owning(std::move(matrix.col_idx)),
                        numpy_owning(std::move(matrix.values)));
}

// ---- host arrays in: a validated CsrMatrix copied from the caller's int32 / Value arrays ----

template <typename Value>
Csr<Value> host_csr(std::int64_t rows, std::int64_t cols, std::int64_t nnz, Address row_ptr,
                    Address col_idx, Address values) {
  constexpr std::int64_t index_max = std::numeric_limits<Index>::max();
  if (rows < 0 || cols < 0 || nnz < 0)
    throw tcsparse::ValidationError("matrix shape (" + std::to_string(rows) + ", " +
                                    std::to_string(cols) + ") with " + std::to_string(nnz) +
                                    " nonzeros: sizes must not be negative");
  if (rows > index_max || cols > index_max || nnz > index_max)
    throw tcsparse::IndexOverflowError("matrix of shape (" + std::to_string(rows) + ", " +
                                       std::to_string(cols) + ") with " + std::to_string(nnz) +
                                       " nonzeros does not fit 32-bit indices");
  Csr<Value> matrix;
  matrix.rows = static_cast<Index>(rows);
  matrix.cols = static_cast<Index>(cols);
  const Index* offsets = pointer<const Index>(row_ptr);
  matrix.row_ptr.assign(offsets, offsets + rows + 1);
  if (nnz > 0) {
    matrix.col_idx.assign(pointer<const Index>(col_idx), pointer<const Index>(col_idx) + nnz);
    matrix.values.assign(pointer<const Value>(values), pointer<const Value>(values) + nnz);
  }
  matrix.validate();
  return matrix;
}

// ---- plans of any value type behind one interface ----

struct PlanStatsRecord {
  double host_preprocess_ms = 0, upload_ms = 0, device_preprocess_ms = 0;
  std::size_t device_bytes = 0;
  std::int64_t stored_values = 0;
  double padding_ratio = 0;
  std::string details_json = "{}";
};

/// The last call of a plan that passed the Python front's checks, as Plan.apply_accepted compares
/// later calls with it.
struct AcceptedCall {
  nb::object x_signature, y_signature;  ///< array_signature() of its x and y
  std::size_t x_bytes = 0, y_bytes = 0;  ///< the plan's operand sizes, for the overlap test
  nb::object current_stream;  ///< () -> cudaStream_t: the current stream of y's library, or None (0)
  bool takes_streams = true;  ///< false for the CPU reference: a stream makes the checks fail
};

/// A plan of any value type and operation: the GPU plans and the CPU reference alike.
/// Addresses are device pointers for a GPU plan, host pointers for the reference.
class AnyPlan {
 public:
  std::optional<AcceptedCall> accepted_call;  ///< none until a call has passed the checks

  virtual ~AnyPlan() = default;
  virtual void apply(Address x, Address y, double alpha, double beta, Address stream) const = 0;
  virtual bool plan_row_order() const { return false; }
  virtual void permute(Address in, Address out, Address stream) const = 0;
  virtual void unpermute(Address in, Address out, Address stream) const = 0;
  virtual void update_values(Address values, bool on_device, Address stream) = 0;
  virtual bool can_update_values() const = 0;
  virtual std::string method() const = 0;
  virtual PlanStatsRecord stats() const = 0;
};

PlanStatsRecord record(const tcsparse::PlanStats& stats) {
  return {stats.host_preprocess_ms, stats.upload_ms,     stats.device_preprocess_ms,
          stats.device_bytes,       stats.stored_values, stats.padding_ratio,
          stats.details.dump()};
}

/// SpmvPlan<Value> or SpmmPlan<Value>.
template <typename Plan, typename Value>
class GpuPlan final : public AnyPlan {
  static constexpr bool is_spmv = std::is_same_v<Plan, tcsparse::SpmvPlan<Value>>;
  using Scalar = tcsparse::scalar_t<Value>;

 public:
  explicit GpuPlan(Plan&& plan) : plan_(std::move(plan)) {}

  void apply(Address x, Address y, double alpha, double beta, Address stream) const override {
    if constexpr (!is_spmv) {
      if (plan_.layout().output == tcsparse::SpmmOutput::fp32) {  // C in fp32 (fp16 / bf16 A)
        plan_.apply_fp32_output(pointer<const Value>(x), pointer<float>(y),
                                static_cast<float>(alpha), static_cast<float>(beta),
                                stream_of(stream));
        return;
      }
    }
    plan_.apply(pointer<const Value>(x), pointer<Value>(y), static_cast<Scalar>(alpha),
                static_cast<Scalar>(beta), stream_of(stream));
  }
  bool plan_row_order() const override {
    if constexpr (is_spmv) return plan_.plan_row_order();
    else return false;
  }
  void permute(Address in, Address out, Address stream) const override {
    if constexpr (is_spmv) plan_.permute(pointer<const Value>(in), pointer<Value>(out), stream_of(stream));
    else throw tcsparse::UnsupportedError("permute: an SpMM plan keeps the caller's row order");
  }
  void unpermute(Address in, Address out, Address stream) const override {
    if constexpr (is_spmv) plan_.unpermute(pointer<const Value>(in), pointer<Value>(out), stream_of(stream));
    else throw tcsparse::UnsupportedError("unpermute: an SpMM plan keeps the caller's row order");
  }
  void update_values(Address values, bool on_device, Address stream) override {
    if (on_device) {
      plan_.update_values(pointer<const Value>(values), stream_of(stream));
    } else {
      const std::span<const Value> host(pointer<const Value>(values),
                                        static_cast<std::size_t>(plan_.nnz()));
      nb::gil_scoped_release unlocked;  // uploads and waits for the stream
      plan_.update_values(host, stream_of(stream));
    }
  }
  bool can_update_values() const override { return plan_.can_update_values(); }
  std::string method() const override { return std::string(plan_.method().name()); }
  PlanStatsRecord stats() const override { return record(plan_.stats()); }

 private:
  Plan plan_;
};

/// The CPU reference (double accumulation) on host arrays, as a plan. n == 0: SpMV. An SpMM
/// plan's B and C are stored as `layout` says (the reference itself works row-major), C in fp32
/// where layout.output is fp32.
template <typename Value>
class ReferencePlan final : public AnyPlan {
 public:
  ReferencePlan(Csr<Value>&& matrix, std::int64_t n, const tcsparse::SpmmLayout& layout)
      : matrix_(std::move(matrix)), n_(n), dense_(layout.dense),
        fp32_output_(layout.output == tcsparse::SpmmOutput::fp32) {}

  void apply(Address x, Address y, double alpha, double beta, Address) const override {
    const std::size_t columns = n_ == 0 ? 1 : static_cast<std::size_t>(n_);
    const std::size_t x_size = static_cast<std::size_t>(matrix_.cols) * columns;
    const std::size_t y_size = static_cast<std::size_t>(matrix_.rows) * columns;
    const Value* in = pointer<const Value>(x);
    Value* out = pointer<Value>(y);
    nb::gil_scoped_release unlocked;
    // element (i, j) of a (rows x columns) operand: at i * columns + j row-major, else j * rows + i
    const bool column_major = dense_ == tcsparse::DenseLayout::column_major;
    auto at = [&](std::size_t index, std::size_t rows) {
      return column_major ? index % columns * rows + index / columns : index;
    };
    std::vector<Value> in_rows(x_size);
    for (std::size_t i = 0; i < x_size; ++i) in_rows[i] = in[at(i, matrix_.cols)];
    std::vector<double> accumulated(y_size, 0.0);
    if (beta != 0.0)
      for (std::size_t i = 0; i < y_size; ++i) {
        const std::size_t j = at(i, matrix_.rows);
        accumulated[i] = fp32_output_ ? pointer<const float>(y)[j] : tcsparse::to_double(out[j]);
      }
    if (n_ == 0) tcsparse::spmv_reference<Value, Index>(matrix_, in_rows, accumulated, alpha, beta);
    else tcsparse::spmm_reference<Value, Index>(matrix_, in_rows, n_, accumulated, alpha, beta);
    for (std::size_t i = 0; i < y_size; ++i) {
      const std::size_t j = at(i, matrix_.rows);
      if (fp32_output_) pointer<float>(y)[j] = static_cast<float>(accumulated[i]);
      else out[j] = tcsparse::from_double<Value>(accumulated[i]);
    }
  }
  void permute(Address in, Address out, Address) const override { copy_rows(in, out); }
  void unpermute(Address in, Address out, Address) const override { copy_rows(in, out); }
  void update_values(Address values, bool on_device, Address) override {
    if (on_device)
      throw tcsparse::UnsupportedError("update_values: a device='cpu' plan takes host values");
    const Value* first = pointer<const Value>(values);
    std::copy(first, first + matrix_.values.size(), matrix_.values.begin());
  }
  bool can_update_values() const override { return true; }
  std::string method() const override { return "reference"; }
  PlanStatsRecord stats() const override {
    PlanStatsRecord stats;
    stats.stored_values = matrix_.nnz();
    stats.details_json = R"({"method":"reference","accumulation":"double"})";
    return stats;
  }

 private:
  void copy_rows(Address in, Address out) const {
    const Value* first = pointer<const Value>(in);
    std::copy(first, first + matrix_.rows, pointer<Value>(out));
  }

  Csr<Value> matrix_;
  std::int64_t n_;
  tcsparse::DenseLayout dense_;
  bool fp32_output_;  ///< C in fp32 (fp16 / bf16 inputs)
};

/// Builds a plan. operation "spmv" (n, layout and output ignored) or "spmm" (layout: B's and C's,
/// "row_major" or "column_major"; output: C's type, "input" or "fp32"); device "cpu" (the reference: method must be "reference") or
/// "cuda" (on_device: the arrays are the caller's device CSR, else host arrays copied into a
/// CsrMatrix and uploaded). Runs without the GIL.
std::unique_ptr<AnyPlan> build_plan(const std::string& operation, const std::string& precision,
                                    std::int64_t rows, std::int64_t cols, std::int64_t nnz,
                                    std::int64_t n, Address row_ptr, Address col_idx,
                                    Address values, const std::string& device, bool on_device,
                                    int ordinal, const std::string& method,
                                    const std::vector<std::string>& parameters,
                                    bool auto_measure, const std::string& layout,
                                    const std::string& output) {
  const bool spmm = operation == "spmm";
  if (!spmm && operation != "spmv") throw tcsparse::Error("operation must be spmv or spmm");
  if (spmm && n < 1) throw tcsparse::ValidationError("SpmmPlan: n must be at least 1");
  const tcsparse::SpmmLayout spmm_layout{tcsparse::parse_dense_layout(layout),
                                         tcsparse::parse_spmm_output(output)};
  nb::gil_scoped_release unlocked;
  return tcsparse::dispatch_precision(
      tcsparse::parse_precision(precision), [&]<typename Value>(Value) -> std::unique_ptr<AnyPlan> {
        if (device == "cpu") {
          tcsparse::SpmmLayout reference_layout = spmm_layout;  // as SpmmPlan normalises it
          if (spmm && spmm_layout.output == tcsparse::SpmmOutput::fp32) {
            if constexpr (std::is_same_v<Value, double>)
              throw tcsparse::UnsupportedError(
                  "SpmmPlan: C in fp32 is for fp16 / bf16 inputs, not fp64");
            if constexpr (std::is_same_v<Value, float>)
              reference_layout.output = tcsparse::SpmmOutput::input_type;
          }
          return std::make_unique<ReferencePlan<Value>>(
              host_csr<Value>(rows, cols, nnz, row_ptr, col_idx, values), spmm ? n : 0,
              reference_layout);
        }
        tcsparse::PlanOptions options;
        options.device = ordinal;
        options.parameters = parameters;
        options.auto_measure = auto_measure;
        const tcsparse::Method chosen(method);
        auto make = [&](const auto& matrix) -> std::unique_ptr<AnyPlan> {
          if (spmm)
            return std::make_unique<GpuPlan<tcsparse::SpmmPlan<Value>, Value>>(
                tcsparse::SpmmPlan<Value>(matrix, n, chosen, options, spmm_layout));
          return std::make_unique<GpuPlan<tcsparse::SpmvPlan<Value>, Value>>(
              tcsparse::SpmvPlan<Value>(matrix, chosen, options));
        };
        if (on_device) {
          const tcsparse::DeviceCsrView<Value> view{rows, cols, nnz, pointer<const Index>(row_ptr),
                                                    pointer<const Index>(col_idx),
                                                    pointer<const Value>(values)};
          return make(view);
        }
        tcsparse::require_cuda_device();  // before copying a large matrix for nothing
        return make(host_csr<Value>(rows, cols, nnz, row_ptr, col_idx, values));
      });
}

// ---- the fast path of a plan call ----
//
// The Python front checks every array of a call (tcsparse._Plan._checked_apply), which takes
// microseconds of Python. What the checks read of an array, less its address, is its signature:
// its type, dtype, shape, strides, layout and device. Arrays with equal signatures pass the same
// checks, so once a call has passed them the front tells the plan the signatures of its arrays
// (Plan.accept); a later call whose arrays have the same signatures is applied by
// Plan.apply_accepted without the checks (only the overlap of x and y, which depends on their
// addresses, is tested), and any other call goes back to the front. Signatures are read anew on
// every call, never remembered by identity or address: an array can change in place (a.shape =,
// t.set_()), and a new array can take a freed one's address. They are read here, in C++, for the
// types whose attributes tcsparse/_arrays.py reads (torch tensors and CuPy arrays; it names them
// with learn_array_type as it meets them, and keeps its readers in step with these).

enum class ArrayLibrary { torch, cupy };

/// The array types learnt so far and their library: a handful at most, searched in order.
std::vector<std::pair<PyTypeObject*, ArrayLibrary>>& learnt_array_types() {
  static auto* types = new std::vector<std::pair<PyTypeObject*, ArrayLibrary>>;  // never freed
  return *types;
}

void learn_array_type(nb::handle type, const std::string& library) {
  if (!PyType_Check(type.ptr())) throw nb::type_error("learn_array_type: expected a type");
  if (library != "torch" && library != "cupy")
    throw nb::value_error("learn_array_type: library must be 'torch' or 'cupy'");
  auto* type_object = reinterpret_cast<PyTypeObject*>(type.inc_ref().ptr());  // kept for good
  auto& types = learnt_array_types();
  types.erase(std::remove_if(types.begin(), types.end(),
                             [&](const auto& entry) { return entry.first == type_object; }),
              types.end());
  types.emplace_back(type_object, library == "torch" ? ArrayLibrary::torch : ArrayLibrary::cupy);
}

/// The attribute names read, made once (a name made at each lookup costs about what it does).
struct AttributeNames {
  nb::str data_ptr{"data_ptr"}, layout{"layout"}, dtype{"dtype"}, device{"device"}, shape{"shape"},
      is_contiguous{"is_contiguous"}, stride{"stride"}, data{"data"}, ptr{"ptr"},
      strides{"strides"}, device_id{"device_id"};
};

const AttributeNames& names() {
  static const auto* names = new AttributeNames;  // never freed: may outlive the interpreter
  return *names;
}

/// Reads attributes and calls methods of Python objects until one raises; after that it reads
/// nothing more (a Python error is pending) and failed() says so.
class AttributeReader {
 public:
  nb::object attribute(nb::handle object, const nb::str& name) {
    if (failed_) return {};
    return checked(PyObject_GetAttr(object.ptr(), name.ptr()));
  }
  nb::object call(nb::handle object, const nb::str& method) {
    if (failed_) return {};
    PyObject* arguments[] = {object.ptr()};
    return checked(PyObject_VectorcallMethod(method.ptr(), arguments,
                                             1 | PY_VECTORCALL_ARGUMENTS_OFFSET, nullptr));
  }
  bool failed() const { return failed_; }

 private:
  nb::object checked(PyObject* result) {
    failed_ = result == nullptr;
    return nb::steal(result);
  }
  bool failed_ = false;
};

/// A Python int as an address; false (no error pending) for anything else or a negative one.
bool to_address(nb::handle value, Address& address) {
  if (!PyLong_Check(value.ptr())) return false;
  const unsigned long long number = PyLong_AsUnsignedLongLong(value.ptr());
  if (number == static_cast<unsigned long long>(-1) && PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  address = static_cast<Address>(number);
  return true;
}

struct ArraySignature {
  Address address = 0;
  /// A tuple: (type, layout, dtype, device, shape, True) of a contiguous tensor (torch's
  /// contiguity is the checks' C order; is_contiguous() costs less than stride()) and (type,
  /// layout, dtype, device, shape, stride()) of any other (column-major B and C), and
  /// (type, dtype, shape, strides, data.device_id) of a CuPy array.
  nb::object signature;
};

/// The address and signature of a tensor or CuPy array of a learnt type; nothing for any other
/// object, or one whose attributes raise (the front's checks then say what is wrong with it).
std::optional<ArraySignature> read_signature(nb::handle array) {
  PyTypeObject* type = Py_TYPE(array.ptr());
  const auto& types = learnt_array_types();
  const auto learnt = std::find_if(types.begin(), types.end(),
                                   [&](const auto& entry) { return entry.first == type; });
  if (learnt == types.end()) return std::nullopt;
  const AttributeNames& name = names();
  AttributeReader read;
  nb::object address;
  ArraySignature result;
  if (learnt->second == ArrayLibrary::torch) {
    address = read.call(array, name.data_ptr);
    nb::object layout = read.attribute(array, name.layout);
    nb::object dtype = read.attribute(array, name.dtype);
    nb::object device = read.attribute(array, name.device);
    nb::object shape = read.attribute(array, name.shape);
    // True, or (as _arrays._TorchFastPath.view) the strides of a tensor that is not contiguous
    nb::object order = read.call(array, name.is_contiguous);
    if (!read.failed() && order.ptr() != Py_True) order = read.call(array, name.stride);
    if (!read.failed())
      result.signature = nb::make_tuple(nb::handle(reinterpret_cast<PyObject*>(type)), layout,
                                        dtype, device, shape, order);
  } else {
    nb::object memory = read.attribute(array, name.data);
    address = read.attribute(memory, name.ptr);
    nb::object dtype = read.attribute(array, name.dtype);
    nb::object shape = read.attribute(array, name.shape);
    nb::object strides = read.attribute(array, name.strides);
    nb::object device_id = read.attribute(memory, name.device_id);
    if (!read.failed())
      result.signature = nb::make_tuple(nb::handle(reinterpret_cast<PyObject*>(type)), dtype,
                                        shape, strides, device_id);
  }
  if (read.failed()) {
    PyErr_Clear();
    return std::nullopt;
  }
  if (!to_address(address, result.address)) return std::nullopt;
  return result;
}

/// (address, signature) of an array of a learnt type, else None.
nb::object array_signature(nb::handle array) {
  const auto read = read_signature(array);
  if (!read) return nb::none();
  return nb::make_tuple(read->address, read->signature);
}

bool same_signature(const nb::object& signature, const nb::object& accepted) {
  const int equal = PyObject_RichCompareBool(signature.ptr(), accepted.ptr(), Py_EQ);
  if (equal < 0) PyErr_Clear();
  return equal == 1;
}

/// A Python number as a double (a float, int or anything with __float__); false, no error
/// pending, for anything else.
bool to_double(nb::handle value, double& number) {
  number = PyFloat_AsDouble(value.ptr());
  if (number == -1.0 && PyErr_Occurred()) {
    PyErr_Clear();
    return false;
  }
  return true;
}

/// Applies `plan` if x and y have the signatures of the last accepted call and do not overlap,
/// alpha and beta are numbers and the stream is None or an int (a GPU plan); returns whether it
/// did. False: the front checks the call (and raises what is wrong).
bool apply_accepted(AnyPlan& plan, nb::handle x, nb::handle y, nb::handle alpha, nb::handle beta,
                    nb::handle stream) {
  if (!plan.accepted_call) return false;
  // A copy: reading an array may run Python code that lets another thread accept another call.
  const AcceptedCall accepted = *plan.accepted_call;
  const auto x_read = read_signature(x);
  if (!x_read || !same_signature(x_read->signature, accepted.x_signature)) return false;
  const auto y_read = read_signature(y);
  if (!y_read || !same_signature(y_read->signature, accepted.y_signature)) return false;
  const bool apart = x_read->address >= y_read->address + accepted.y_bytes ||
                     y_read->address >= x_read->address + accepted.x_bytes;
  double alpha_value = 0, beta_value = 0;
  if (!apart || !to_double(alpha, alpha_value) || !to_double(beta, beta_value)) return false;
  Address stream_address = 0;
  if (stream.is_none()) {
    if (accepted.current_stream.is_valid() && !accepted.current_stream.is_none() &&
        !to_address(accepted.current_stream(), stream_address))
      return false;
  } else if (!accepted.takes_streams || !to_address(stream, stream_address)) {
    return false;
  }
  plan.apply(x_read->address, y_read->address, alpha_value, beta_value, stream_address);
  return true;
}

// ---- the registry as plain data ----

nb::list method_table() {
  nb::list table;
  for (const tcsparse::Method& method : tcsparse::methods()) {
    nb::dict entry;
    entry["name"] = std::string(method.name());
    entry["description"] = std::string(method.description());
    entry["baseline"] = method.is_baseline();
    for (const auto operation : {tcsparse::Operation::spmv, tcsparse::Operation::spmm}) {
      nb::list precisions;
      for (const auto precision : method.precisions(operation))
        precisions.append(std::string(tcsparse::to_string(precision)));
      entry[nb::str(std::string(tcsparse::to_string(operation)).c_str())] = precisions;
    }
    nb::list parameters;
    for (const auto& spec : method.parameters()) {
      nb::dict p;
      p["name"] = std::string(spec.name);
      p["type"] = std::string(tcsparse::to_string(spec.type));
      p["default"] = std::string(spec.default_value);
      p["accepted"] = spec.accepted_values();
      p["help"] = std::string(spec.help);
      parameters.append(p);
    }
    entry["parameters"] = parameters;
    table.append(entry);
  }
  return table;
}

/// Reads a file (.mtx[.gz], .smtx[.gz]) without the GIL; the reader's notices become warnings.
nb::tuple read_matrix(const std::string& path, std::uint64_t pattern_seed) {
  std::vector<std::string> notices;
  Csr<double> matrix;
  {
    nb::gil_scoped_release unlocked;
    tcsparse::ReadOptions options;
    options.pattern_seed = pattern_seed;
    options.on_notice = [&](const std::string& notice) { notices.push_back(notice); };
    matrix = tcsparse::read_matrix<double, Index>(path, options);
  }
  nb::object warn = nb::module_::import_("warnings").attr("warn");
  for (const auto& notice : notices) warn(notice, nb::handle(PyExc_UserWarning), 2);
  return csr_tuple(std::move(matrix));
}

nb::tuple generate(const std::string& kind, const std::map<std::string, std::string>& parameters) {
  Csr<double> matrix;
  {
    nb::gil_scoped_release unlocked;
    matrix = tcsparse::generate(tcsparse::GeneratorSpec{kind, parameters});
  }
  return csr_tuple(std::move(matrix));
}

nb::tuple parse_generator_spec(const std::string& text) {
  const tcsparse::GeneratorSpec spec = tcsparse::parse_generator_spec(text);
  return nb::make_tuple(spec.kind, spec.parameters);
}

/// (address, shape, strides in elements, DLPack dtype code, bits, lanes, device type, device id)
/// of any DLPack producer or buffer-protocol object, imported without a copy.
nb::tuple dlpack_info(const nb::ndarray<>& array) {
  nb::list shape, strides;
  for (std::size_t i = 0; i < array.ndim(); ++i) {
    shape.append(array.shape(i));
    strides.append(array.stride(i));
  }
  const nb::dlpack::dtype dtype = array.dtype();
  return nb::make_tuple(reinterpret_cast<Address>(array.data()), nb::tuple(shape),
                        nb::tuple(strides), dtype.code, dtype.bits, dtype.lanes,
                        array.device_type(), array.device_id());
}

}  // namespace

NB_MODULE(_tcsparse, m) {
  m.doc() = "tcsparse's C++ library (use the tcsparse package, not this module)";
  m.attr("__version__") = tcsparse::kVersion;

  // Errors: the C++ hierarchy of include/tcsparse/error.hpp, the C++ message as the text.
  // Registered base first: nanobind tries the translators registered last first.
  auto error = nb::exception<tcsparse::Error>(m, "Error", PyExc_RuntimeError);
  nb::exception<tcsparse::ParseError>(m, "ParseError", error);
  nb::exception<tcsparse::ValidationError>(m, "ValidationError", error);
  nb::exception<tcsparse::IndexOverflowError>(m, "IndexOverflowError", error);
  nb::exception<tcsparse::HostMemoryError>(m, "HostMemoryError", error);
  nb::exception<tcsparse::UnsupportedError>(m, "UnsupportedError", error);
  nb::exception<tcsparse::ParameterError>(m, "ParameterError", error);
  nb::exception<tcsparse::NoDeviceError>(m, "NoDeviceError", error);
  auto cuda_error = nb::exception<tcsparse::CudaError>(m, "CudaError", error);
  nb::exception<tcsparse::DeviceMemoryError>(m, "DeviceMemoryError", cuda_error);
  nb::exception<tcsparse::CusparseError>(m, "CusparseError", error);

  m.def("read_matrix", &read_matrix, "path"_a, "pattern_seed"_a = 42,
        "Reads a .mtx[.gz] or .smtx[.gz] file: (rows, cols, indptr, indices, data), float64.");
  m.def("generate", &generate, "kind"_a, "parameters"_a,
        "Generates a matrix: (rows, cols, indptr, indices, data), float64.");
  m.def("parse_generator_spec", &parse_generator_spec, "text"_a,
        "'kind:key=value,...' -> (kind, {key: value}).");
  m.def("generator_kinds", &tcsparse::generator_kinds, "(kind, help) of every generator.");
  m.def("dlpack_info", &dlpack_info, "array"_a,
        "(address, shape, strides, dtype code, bits, lanes, device type, device id) of a "
        "DLPack or buffer-protocol array, without copying it.");
  m.def("method_table", &method_table, "Every registered method as a dict.");
  m.def("check_parameters",
        [](const std::string& method, const std::vector<std::string>& parameters) {
          tcsparse::check_parameters(tcsparse::Method(method), parameters);
        },
        "method"_a, "parameters"_a, "Checks 'key=value' parameters against a method's schema.");
  m.def("cuda_device_available", &tcsparse::cuda_device_available,
        "True when the CUDA runtime finds a device. Never raises.");
  m.def("require_cuda_device", &tcsparse::require_cuda_device,
        "Raises NoDeviceError naming the reason when there is no CUDA device.");

  nb::class_<PlanStatsRecord>(m, "PlanStats")
      .def_ro("host_preprocess_ms", &PlanStatsRecord::host_preprocess_ms)
      .def_ro("upload_ms", &PlanStatsRecord::upload_ms)
      .def_ro("device_preprocess_ms", &PlanStatsRecord::device_preprocess_ms)
      .def_ro("device_bytes", &PlanStatsRecord::device_bytes)
      .def_ro("stored_values", &PlanStatsRecord::stored_values)
      .def_ro("padding_ratio", &PlanStatsRecord::padding_ratio)
      .def_ro("details_json", &PlanStatsRecord::details_json);

  nb::class_<AnyPlan>(m, "Plan", "A built plan (GPU or CPU reference) over raw addresses.")
      .def("apply", &AnyPlan::apply, "x"_a, "y"_a, "alpha"_a, "beta"_a, "stream"_a)
      .def("plan_row_order", &AnyPlan::plan_row_order)
      .def("permute", &AnyPlan::permute, "caller_order"_a, "plan_order"_a, "stream"_a)
      .def("unpermute", &AnyPlan::unpermute, "plan_order"_a, "caller_order"_a, "stream"_a)
      .def("update_values", &AnyPlan::update_values, "values"_a, "on_device"_a, "stream"_a)
      .def("can_update_values", &AnyPlan::can_update_values)
      .def("method", &AnyPlan::method)
      .def("stats", &AnyPlan::stats)
      .def("accept",
           [](AnyPlan& plan, nb::object x_signature, nb::object y_signature, std::size_t x_bytes,
              std::size_t y_bytes, nb::object current_stream, bool takes_streams) {
             plan.accepted_call = AcceptedCall{std::move(x_signature), std::move(y_signature),
                                               x_bytes, y_bytes, std::move(current_stream),
                                               takes_streams};
           },
           "x_signature"_a, "y_signature"_a, "x_bytes"_a, "y_bytes"_a,
           "current_stream"_a.none(), "takes_streams"_a,
           "Lets apply_accepted apply calls whose arrays have these signatures (the front has "
           "checked such arrays). current_stream: () -> the stream for stream=None, or None (0).")
      .def("apply_accepted", &apply_accepted, "x"_a.none(), "y"_a.none(), "alpha"_a.none(),
           "beta"_a.none(), "stream"_a.none(),
           "Applies the plan to x and y if they have the accepted signatures and do not overlap, "
           "alpha and beta are numbers and stream is None or an int; returns whether it did.");
  m.def("learn_array_type", &learn_array_type, "type"_a, "library"_a,
        "Reads the signatures of arrays of `type` as those of `library` ('torch', 'cupy').");
  m.def("array_signature", &array_signature, "array"_a.none(),
        "(address, signature) of an array of a learnt type, else None.");

  m.def("build_plan", &build_plan, "operation"_a, "precision"_a, "rows"_a, "cols"_a, "nnz"_a,
        "n"_a, "row_ptr"_a, "col_idx"_a, "values"_a, "device"_a, "on_device"_a, "ordinal"_a,
        "method"_a, "parameters"_a, "auto_measure"_a, "layout"_a = "row_major",
        "output"_a = "input",
        "Builds a plan from CSR arrays given by address (the GIL is released while it builds).");
}
