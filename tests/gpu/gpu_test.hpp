// Base fixture of every GPU test: without a CUDA device the test is SKIPPED (never passed), with
// the runtime's reason in the message.
//
//   class MyKernelTest : public tcsparse::testing::GpuTest {};
//   TEST_F(MyKernelTest, ...) { ... }          // skipped on a machine without a GPU
//
// For parameterised tests derive from GpuTestWithParam<Param>.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "tcsparse/device.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::testing {

/// Why the GPU tests cannot run here (the runtime's reason), or "" when a device is present.
inline std::string no_cuda_device_reason() {
  if (cuda_device_available()) return {};
  try {
    require_cuda_device();
  } catch (const Error& error) {
    std::string reason = error.what();
    const std::string prefix = "no CUDA device found: ";
    if (reason.rfind(prefix, 0) == 0) reason.erase(0, prefix.size());
    return reason;
  }
  return "cuda_device_available() is false";
}

/// Skips the calling test when no CUDA device is present. For use in a SetUp() or a TEST body.
#define TCSPARSE_SKIP_WITHOUT_GPU()                                                 \
  do {                                                                              \
    const std::string tcsparse_no_gpu_reason =                                      \
        ::tcsparse::testing::no_cuda_device_reason();                               \
    if (!tcsparse_no_gpu_reason.empty())                                            \
      GTEST_SKIP() << "no CUDA device: " << tcsparse_no_gpu_reason;                 \
  } while (false)

/// A fixture that overrides SetUp() must call the base first and stop when it skipped:
///   void SetUp() override { GpuTest::SetUp(); if (IsSkipped()) return; ... }
class GpuTest : public ::testing::Test {
 protected:
  void SetUp() override { TCSPARSE_SKIP_WITHOUT_GPU(); }
};

template <typename Param>
class GpuTestWithParam : public ::testing::TestWithParam<Param> {
 protected:
  void SetUp() override { TCSPARSE_SKIP_WITHOUT_GPU(); }
};

}  // namespace tcsparse::testing
