// Parameterised GPU tests over the real matrices (the first `count` files of the matrix
// directory's MANIFEST.tsv, test::real_matrix_files): one case a file, or one case that skips and
// says how to point the tests at a matrix directory when there is none.
//
//   class MyOnRealMatrices : public testing::OnRealMatrices {};
//   TEST_P(MyOnRealMatrices, ...) { const test::NamedMatrix real = test::load_real_matrix(GetParam().path); ... }
//   INSTANTIATE_TEST_SUITE_P(Real, MyOnRealMatrices, ::testing::ValuesIn(testing::real_cases(30)),
//                            testing::RealCaseName{});
#pragma once

#include <gtest/gtest.h>

#include <cstddef>
#include <filesystem>
#include <ostream>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "gpu/gpu_test.hpp"

namespace tcsparse::testing {

struct RealCase {
  std::filesystem::path path;  ///< empty: no matrix directory (the test skips and says so)
  std::string name;
};
inline void PrintTo(const RealCase& c, std::ostream* out) { *out << c.name; }

/// A test name from the matrix name (made a valid identifier) and the case's index.
struct RealCaseName {
  std::string operator()(const ::testing::TestParamInfo<RealCase>& info) const {
    return test::sanitized_name(info.param.name) + "_" + std::to_string(info.index);
  }
};

inline std::vector<RealCase> real_cases(std::size_t count) {
  std::vector<RealCase> cases;
  for (const std::filesystem::path& path : test::real_matrix_files(count))
    cases.push_back({path, test::real_matrix_name(path)});
  if (cases.empty()) cases.push_back({{}, "no_matrix_directory"});
  return cases;
}

/// Skipped without a GPU, and without a matrix directory (naming the default it looked in).
class OnRealMatrices : public GpuTestWithParam<RealCase> {
 protected:
  void SetUp() override {
    GpuTestWithParam<RealCase>::SetUp();
    if (IsSkipped()) return;
    if (GetParam().path.empty())
      GTEST_SKIP() << "no real matrices: set TCSPARSE_MATRIX_DIR to a directory with a "
                      "MANIFEST.tsv (default "
                   << TCSPARSE_DEFAULT_MATRIX_DIR << ")";
  }
};

}  // namespace tcsparse::testing
