// The tensor-core peak table behind the bench records' tensor_core_share (bench/tensor_core_peak).
#include <gtest/gtest.h>

#include "tensor_core_peak.hpp"

namespace tcsparse::bench {
namespace {

TEST(TensorCorePeak, DenseFp16RateOfEachGpuByItsCudaDeviceName) {
  EXPECT_DOUBLE_EQ(*tensor_core_peak_tflops("NVIDIA H100 80GB HBM3"), 989.5);  // SXM5
  EXPECT_DOUBLE_EQ(*tensor_core_peak_tflops("NVIDIA H200"), 989.5);
  EXPECT_DOUBLE_EQ(*tensor_core_peak_tflops("NVIDIA A100-SXM4-80GB"), 312.0);
  EXPECT_DOUBLE_EQ(*tensor_core_peak_tflops("NVIDIA A100 80GB PCIe"), 312.0);
}

TEST(TensorCorePeak, PcieAndNvlBoardsAreNotTakenForSxm) {
  EXPECT_DOUBLE_EQ(*tensor_core_peak_tflops("NVIDIA H100 PCIe"), 756.5);
  EXPECT_DOUBLE_EQ(*tensor_core_peak_tflops("NVIDIA H100 NVL"), 835.5);
  EXPECT_DOUBLE_EQ(*tensor_core_peak_tflops("NVIDIA H200 NVL"), 835.5);
  EXPECT_DOUBLE_EQ(*tensor_core_peak_tflops("NVIDIA GH200 480GB"), 989.5);
}

TEST(TensorCorePeak, UnknownGpuHasNoPeak) {
  EXPECT_FALSE(tensor_core_peak_tflops("NVIDIA GeForce RTX 4090").has_value());
  EXPECT_FALSE(tensor_core_peak_tflops("").has_value());
}

TEST(TensorCorePeak, EveryRowNamesItsSourceAndIsHalfTheSparseDatasheetRate) {
  for (const TensorCorePeak& peak : tensor_core_peaks()) {
    EXPECT_FALSE(peak.source.empty()) << peak.gpu;
    EXPECT_GT(peak.dense_fp16_tflops, 100.0) << peak.gpu;
    EXPECT_LT(peak.dense_fp16_tflops, 1000.0) << peak.gpu;
  }
}

}  // namespace
}  // namespace tcsparse::bench
