// Uses the installed library the way a user would: read a matrix, run the CPU reference, and
// build a GPU plan when a device is present.
#include <tcsparse/tcsparse.hpp>

#include <cstdio>
#include <vector>

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s FILE.mtx\n", argv[0]);
    return 2;
  }
  try {
    const auto A = tcsparse::read_matrix<double>(argv[1]);
    const auto x = tcsparse::random_vector<double>(static_cast<std::size_t>(A.cols), 1);
    std::vector<double> y(static_cast<std::size_t>(A.rows), 0.0);
    tcsparse::spmv_reference(A, std::span<const double>(x), std::span<double>(y), 1.0, 0.0);
    std::printf("read %d x %d with %d nonzeros; GPU present: %s; methods:", A.rows, A.cols,
                A.nnz(), tcsparse::cuda_device_available() ? "yes" : "no");
    for (const tcsparse::Method method : tcsparse::methods())
      std::printf(" %.*s", static_cast<int>(method.name().size()), method.name().data());
    std::printf("\n");
    if (tcsparse::cuda_device_available()) {
      tcsparse::SpmvPlan<double> plan(A, "cusparse");
      std::printf("cuSPARSE plan built: %zu device bytes\n", plan.stats().device_bytes);
    }
    return 0;
  } catch (const tcsparse::Error& error) {
    std::fprintf(stderr, "tcsparse_consumer: %s\n", error.what());
    return 1;
  }
}
