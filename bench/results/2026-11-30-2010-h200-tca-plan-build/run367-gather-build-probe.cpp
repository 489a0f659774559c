#include <chrono>
#include <cstdio>
#include "tcsparse/generate.hpp"
#include "tca/tca_gather_format.hpp"
using namespace tcsparse;
int main() {
  for (auto [r, c] : {std::pair{14336, 4096}, std::pair{4096, 11008}}) {
    auto g = generate_llm_weights(r, c, 0.9, LlmRowProfile::uniform, 1);
    auto m = convert_values<half>(g);
    auto shape = tca::gather_with_ranges(tca::choose_gather_shape(m.rows, m.cols, 16, 0, 0), 132);
    for (int i = 0; i < 4; ++i) {
      auto t0 = std::chrono::steady_clock::now();
      auto l = tca::build_gather_layout(m, shape);
      auto t1 = std::chrono::steady_clock::now();
      std::printf("%dx%d build %.2f ms\n", r, c, std::chrono::duration<double, std::milli>(t1 - t0).count());
    }
  }
}
