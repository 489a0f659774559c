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

/// Why the GPU tests cannot run here, or an empty string when a device is present.
inline std::string no_cuda_device_reason() {
  if (cuda_device_available()) return {};
  try {
    require_cuda_device();
  } catch (const Error& error) {
    return error.what();
  }
  return "cuda_device_available() is false";
}

/// Skips the calling test when no CUDA device is present. For use in a SetUp().
#define TCSPARSE_SKIP_WITHOUT_GPU()                                                  \
  do {                                                                               \
    if (const std::string tcsparse_no_gpu_reason = ::tcsparse::testing::no_cuda_device_reason(); \
        !tcsparse_no_gpu_reason.empty())                                             \
      GTEST_SKIP() << "no CUDA device: " << tcsparse_no_gpu_reason;                  \
  } while (false)

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
