// Entry point of the GPU tests. Without a CUDA device nothing runs: the program says why and
// exits with kSkipExitCode, which CTest reports as "Skipped" (never "Passed").
#include <gtest/gtest.h>

#include <cstdio>

#include "gpu/gpu_test.hpp"

namespace {
constexpr int kSkipExitCode = 77;  // SKIP_RETURN_CODE in tests/gpu/CMakeLists.txt
}

int main(int argc, char** argv) {
  ::testing::InitGoogleTest(&argc, argv);
  const std::string reason = tcsparse::testing::no_cuda_device_reason();
  if (!reason.empty() && !GTEST_FLAG_GET(list_tests)) {
    std::printf("SKIPPED: all %d GPU tests: no CUDA device: %s\n",
                ::testing::UnitTest::GetInstance()->total_test_count(), reason.c_str());
    return kSkipExitCode;
  }
  return RUN_ALL_TESTS();
}
