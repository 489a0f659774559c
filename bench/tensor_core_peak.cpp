#include "tensor_core_peak.hpp"

#include <algorithm>
#include <cctype>
#include <string>

namespace tcsparse::bench {
namespace {

// NVIDIA's datasheets give the fp16 tensor-core rate with 2:4 structured sparsity (marked "*
// with sparsity"); the dense rate, which an unstructured SpMM or a dense GEMM can reach at most,
// is half of it. bf16 has the same rate on these GPUs.
constexpr std::string_view kH100Datasheet =
    "NVIDIA H100 Tensor Core GPU datasheet: FP16 Tensor Core 1,979 (SXM) / 1,671 (NVL) / 1,513 "
    "(PCIe) TFLOPS with sparsity; dense = half";
constexpr std::string_view kH200Datasheet =
    "NVIDIA H200 Tensor Core GPU datasheet: FP16 Tensor Core 1,979 (SXM) / 1,671 (NVL) TFLOPS "
    "with sparsity; dense = half";
constexpr std::string_view kGh200Datasheet =
    "NVIDIA GH200 Grace Hopper Superchip datasheet: FP16 Tensor Core 1,979 TFLOPS with sparsity; "
    "dense = half";
constexpr std::string_view kA100Datasheet =
    "NVIDIA A100 Tensor Core GPU datasheet: FP16 Tensor Core 312 TFLOPS dense (624 with "
    "sparsity), SXM4 and PCIe";

std::string lower(std::string_view text) {
  std::string result(text);
  std::transform(result.begin(), result.end(), result.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return result;
}

}  // namespace

const std::vector<TensorCorePeak>& tensor_core_peaks() {
  // Device names as the CUDA runtime reports them: "NVIDIA H100 80GB HBM3" (SXM5),
  // "NVIDIA H100 PCIe", "NVIDIA H100 NVL", "NVIDIA H200", "NVIDIA H200 NVL",
  // "NVIDIA GH200 480GB", "NVIDIA A100-SXM4-80GB", "NVIDIA A100 80GB PCIe".
  static const std::vector<TensorCorePeak> table = {
      {"H100 PCIe", "H100 PCIe", 756.5, kH100Datasheet},
      {"H100 NVL", "H100 NVL", 835.5, kH100Datasheet},
      {"H200 NVL", "H200 NVL", 835.5, kH200Datasheet},
      {"GH200", "GH200", 989.5, kGh200Datasheet},
      {"H100", "H100 SXM", 989.5, kH100Datasheet},
      {"H200", "H200 SXM", 989.5, kH200Datasheet},
      {"A100", "A100", 312.0, kA100Datasheet},
  };
  return table;
}

std::optional<double> tensor_core_peak_tflops(std::string_view device_name) {
  const std::string name = lower(device_name);
  for (const TensorCorePeak& peak : tensor_core_peaks())
    if (name.find(lower(peak.name_contains)) != std::string::npos) return peak.dense_fp16_tflops;
  return std::nullopt;
}

}  // namespace tcsparse::bench
