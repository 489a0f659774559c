// What the library knows about its methods without a GPU: names, operations and precisions, and
// the host-side statistics of a method's layout. Host-only (tcsparse_host).
#include <algorithm>
#include <array>
#include <string>
#include <vector>

#include "dasp/dasp.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/plan.hpp"

namespace tcsparse {

namespace {

constexpr std::array all_precisions = {Precision::fp64, Precision::fp32, Precision::fp16,
                                       Precision::bf16};

/// One method's capabilities, per operation.
struct Capabilities {
  Method method;
  std::string_view name;
  std::string_view description;
  std::vector<Precision> spmv;  ///< precisions of SpMV (empty: no SpMV)
  std::vector<Precision> spmm;  ///< precisions of SpMM (empty: no SpMM)
  bool is_baseline;
};

const std::vector<Capabilities>& capability_table() {
  static const std::vector<Capabilities> table = {
      {Method::cusparse, "cusparse",
       "cuSPARSE generic API, CSR, default algorithm (cusparseSpMV / cusparseSpMM)",
       {Precision::fp64, Precision::fp32, Precision::fp16, Precision::bf16},
       {Precision::fp64, Precision::fp32, Precision::fp16, Precision::bf16},
       true},
      // cuSPARSE computes fp16 / bf16 SpMM (mixed precision) with CUSPARSE_SPMM_CSR_ALG3 only.
      {Method::cusparse_alg2, "cusparse_alg2",
       "cuSPARSE generic API, CSR, CUSPARSE_SPMV_CSR_ALG2 / CUSPARSE_SPMM_CSR_ALG2",
       {Precision::fp64, Precision::fp32, Precision::fp16, Precision::bf16},
       {Precision::fp64, Precision::fp32},
       true},
      {Method::cusparse_alg3, "cusparse_alg3",
       "cuSPARSE generic API, CSR, CUSPARSE_SPMM_CSR_ALG3 (SpMM only)",
       {},
       {Precision::fp64, Precision::fp32, Precision::fp16, Precision::bf16},
       true},
      // DASP (SC'23) is defined for fp64 (mma.m8n8k4) and fp16 (the fp16 mma shapes); bf16 uses
      // the same fp16-shaped layout with bf16 mma.
      {Method::dasp, "dasp", "DASP tensor-core SpMV (SC'23): long / medium / short row parts",
       {Precision::fp64, Precision::fp16, Precision::bf16},
       {},
       false},
  };
  return table;
}

bool contains(const std::vector<Precision>& precisions, Precision precision) {
  return std::find(precisions.begin(), precisions.end(), precision) != precisions.end();
}

std::vector<MethodInfo> build_method_infos() {
  std::vector<MethodInfo> infos;
  for (const Capabilities& entry : capability_table()) {
    MethodInfo info;
    info.method = entry.method;
    info.name = entry.name;
    info.description = entry.description;
    info.spmv = !entry.spmv.empty();
    info.spmm = !entry.spmm.empty();
    for (const Precision precision : all_precisions)
      if (contains(entry.spmv, precision) || contains(entry.spmm, precision))
        info.precisions.push_back(precision);
    info.is_baseline = entry.is_baseline;
    infos.push_back(std::move(info));
  }
  return infos;
}

const Capabilities& capabilities(Method method) {
  for (const Capabilities& entry : capability_table())
    if (entry.method == method) return entry;
  throw Error("unknown tcsparse::Method value " + std::to_string(static_cast<int>(method)));
}

std::string known_method_names() {
  std::string names;
  for (const Capabilities& entry : capability_table()) {
    if (!names.empty()) names += ", ";
    names += entry.name;
  }
  return names;
}

}  // namespace

const std::vector<MethodInfo>& methods() {
  static const std::vector<MethodInfo> infos = build_method_infos();
  return infos;
}

const MethodInfo& method_info(Method method) {
  for (const MethodInfo& info : methods())
    if (info.method == method) return info;
  throw Error("unknown tcsparse::Method value " + std::to_string(static_cast<int>(method)));
}

std::string_view to_string(Method method) { return capabilities(method).name; }

Method parse_method(std::string_view name) {
  for (const Capabilities& entry : capability_table())
    if (entry.name == name) return entry.method;
  throw Error("unknown method '" + std::string(name) + "': known methods are " +
              known_method_names());
}

bool supports(Method method, Operation operation, Precision precision) {
  const Capabilities& entry = capabilities(method);
  return contains(operation == Operation::spmv ? entry.spmv : entry.spmm, precision);
}

std::string format_stats_json(Method method, const CsrMatrix<double, std::int32_t>& matrix) {
  switch (method) {
    case Method::dasp: return dasp::format_stats_json(matrix);
    case Method::cusparse:
    case Method::cusparse_alg2:
    case Method::cusparse_alg3: return "null";
  }
  throw Error("unknown tcsparse::Method value " + std::to_string(static_cast<int>(method)));
}

}  // namespace tcsparse
