// The dense fp16/bf16 tensor-core peak of the GPUs the benchmarks run on, by device name, for the
// records' tensor_core_share (issue 11): how much of the GPU's matrix-multiply ceiling an SpMM
// reaches in useful flops (2 * nnz * N / t). Host code, no CUDA.
#pragma once

#include <optional>
#include <string_view>
#include <vector>

namespace tcsparse::bench {

/// One row of the table: a GPU whose device name contains `name_contains` (case-insensitive).
struct TensorCorePeak {
  std::string_view name_contains;  ///< e.g. "H100 PCIe"; rows are tried in order, first match wins
  std::string_view gpu;            ///< the product, as the datasheet names it
  double dense_fp16_tflops;        ///< dense (no 2:4 sparsity) fp16 / bf16 tensor-core TFLOP/s
  std::string_view source;         ///< where the number comes from
};

/// The table, most specific names first (H100 PCIe before H100).
const std::vector<TensorCorePeak>& tensor_core_peaks();

/// The dense fp16/bf16 tensor-core peak in TFLOP/s of the GPU named `device_name` (as
/// cudaGetDeviceProperties names it, e.g. "NVIDIA H100 80GB HBM3"); nullopt for a GPU not in
/// the table (then records carry no tensor_core_share).
std::optional<double> tensor_core_peak_tflops(std::string_view device_name);

}  // namespace tcsparse::bench
