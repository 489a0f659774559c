// tcsparse_gather_ceiling: how fast can any SpMV gather x at random?
//
// A stream of (value, column) pairs, 12 bytes each as in CSR fp64, every column drawn uniformly
// from [0, cols), summed as value * x[column] with the loads SpMV kernels use (matrix streamed
// with arch::load_streaming, x through arch::load_read_only). This is an SpMV with the row
// structure taken away, so no method that reads each x at random (random-column matrices:
// uniform or power-law rows, R-MAT) can beat it; their SpMV time over this one says how much is
// left to gain.
//
//   tcsparse_gather_ceiling [pairs]        (default 20 M pairs; x of 100 k, 1 M and 2 M values)
//
// Prints one line per x size: the median of 50 timed launches (CUDA events, after 20 warm-up
// launches), the bytes of the stream and x per second, and random gathers per second.
#include <cstdint>
#include <cstdio>
#include <exception>
#include <random>
#include <string>
#include <vector>

#include "arch/load.cuh"
#include "probe_support.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_buffer.hpp"

namespace {

namespace arch = tcsparse::arch;

constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 8;
constexpr int kWarmUpLaunches = 20;
constexpr int kTimedLaunches = 50;

/// Grid-stride over the pairs; each thread writes its partial sum (so nothing is optimised away).
__global__ void gather_kernel(const double* __restrict__ values, const int* __restrict__ cols,
                              const double* __restrict__ x, long long pairs,
                              double* __restrict__ partial_sums) {
  const long long first = static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x;
  const long long stride = static_cast<long long>(gridDim.x) * blockDim.x;
  double sum = 0.0;
  for (long long i = first; i < pairs; i += stride)
    sum += arch::load_streaming(values + i) * arch::load_read_only(x + arch::load_streaming(cols + i));
  partial_sums[first] = sum;
}

void measure(long long pairs, int cols, int sms) {
  std::vector<int> host_cols(static_cast<std::size_t>(pairs));
  std::mt19937_64 rng(20240611);
  std::uniform_int_distribution<int> column(0, cols - 1);
  for (int& c : host_cols) c = column(rng);
  using tcsparse::detail::DeviceBuffer;
  DeviceBuffer<double> values(host_cols.size());
  TCSPARSE_CUDA_CHECK(cudaMemset(values.data(), 0, values.bytes()));  // 0 * x: the sum is 0
  const DeviceBuffer<int> device_cols(host_cols);
  DeviceBuffer<double> x(static_cast<std::size_t>(cols));
  TCSPARSE_CUDA_CHECK(cudaMemset(x.data(), 0, x.bytes()));
  const int blocks = sms * kBlocksPerSm;
  DeviceBuffer<double> partial_sums(static_cast<std::size_t>(blocks) * kThreads);
  tcsparse::detail::CudaStream stream;
  const auto launch = [&] {
    gather_kernel<<<blocks, kThreads, 0, stream.get()>>>(values.data(), device_cols.data(),
                                                         x.data(), pairs, partial_sums.data());
    TCSPARSE_CUDA_CHECK_LAUNCH();
  };
  const double seconds =
      tcsparse::bench::median_ms(launch, stream.get(), kWarmUpLaunches, kTimedLaunches) * 1e-3;
  const double bytes = static_cast<double>(pairs) * 12.0 + static_cast<double>(cols) * 8.0;
  std::printf("pairs %lld  x %8d values: %8.1f us  %6.0f GB/s  %6.1f G gathers/s\n", pairs, cols,
              seconds * 1e6, bytes / seconds * 1e-9, static_cast<double>(pairs) / seconds * 1e-9);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    const long long pairs = argc > 1 ? std::stoll(argv[1]) : 20'000'000;
    if (pairs <= 0 || pairs > (1LL << 31) - 1) throw std::out_of_range("pairs");
    int sms = 0;
    if (!tcsparse::bench::announce_device("tcsparse_gather_ceiling", sms)) return 2;
    for (const int cols : {100'000, 1'000'000, 2'000'000}) measure(pairs, cols, sms);
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "tcsparse_gather_ceiling: error: %s (usage: tcsparse_gather_ceiling "
                 "[pairs, 1 .. 2^31-1])\n", error.what());
    return 1;
  }
}
