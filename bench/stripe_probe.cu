// tcsparse_stripe_probe: does cutting x into column stripes that fit the L2 pay, before any
// format? (issue 10: HBP's 2D partition, src/hbp/README.md "Stripes of x".)
//
// For each matrix (fp64), the median of 30 timed applies (CUDA events, after 5 warm-up ones) of
//   cusparse      the library's cusparse method (CSR, default algorithm)
//   S stripes     the columns cut into S stripes of equal width, one CSR per stripe (the rows
//                 kept, global column indices), applied stripe by stripe: y = A_0 x, then
//                 y += A_s x for s = 1 .. S-1, one launch each, a few lanes a row (as many as the
//                 stripe's mean row length, 1 to 32); S = 1 is the same kernel on the whole CSR.
// and the stripe's x bytes. Each striped y is checked against cuSPARSE's (largest relative
// difference). No layout work beyond the split: what the partition alone is worth, and what a
// kernel that streams the stripes' CSR at the GPU's rate could reach.
//
//   tcsparse_stripe_probe [generator spec ...]     (default: uniform 4-12 nonzeros a row,
//                                                   16 M x 16 M, x of 128 MB)
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>
#include <tuple>
#include <vector>

#include "arch/load.cuh"
#include "probe_support.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_buffer.hpp"
#include "tcsparse/generate.hpp"
#include "tcsparse/plan.hpp"

namespace {

namespace arch = tcsparse::arch;
using tcsparse::bench::median_ms;
using tcsparse::detail::CudaStream;
using tcsparse::detail::DeviceBuffer;

constexpr int kThreads = 256;
constexpr int kBlocksPerSm = 8;
constexpr int kStripeCounts[] = {1, 2, 3, 4, 6, 8, 16};

/// y[r] (+)= sum over the stripe's row r of value * x[column]; kLanes lanes a row (grid-stride
/// over rows), their sums added by shuffles. accumulate: add to y (stripes after the first).
template <int kLanes>
__global__ void stripe_kernel(std::int64_t rows, const std::int32_t* __restrict__ row_ptr,
                              const std::int32_t* __restrict__ col_idx,
                              const double* __restrict__ values, const double* __restrict__ x,
                              double* __restrict__ y, bool accumulate) {
  const std::int64_t first = (static_cast<std::int64_t>(blockIdx.x) * blockDim.x + threadIdx.x) / kLanes;
  const std::int64_t stride = static_cast<std::int64_t>(gridDim.x) * blockDim.x / kLanes;
  const int lane = static_cast<int>(threadIdx.x % kLanes);
  for (std::int64_t r = first; r < rows; r += stride) {
    const std::int32_t begin = arch::load_streaming(row_ptr + r);
    const std::int32_t end = arch::load_streaming(row_ptr + r + 1);
    double sum = 0.0;
    for (std::int32_t j = begin + lane; j < end; j += kLanes)
      sum += arch::load_streaming(values + j) * arch::load_read_only(x + arch::load_streaming(col_idx + j));
#pragma unroll
    for (int offset = kLanes / 2; offset > 0; offset /= 2)
      sum += __shfl_down_sync(0xffffffffu, sum, offset, kLanes);
    if (lane == 0) y[r] = accumulate ? y[r] + sum : sum;
  }
}

struct Stripe {
  DeviceBuffer<std::int32_t> row_ptr, col_idx;
  DeviceBuffer<double> values;
  double mean_row_length = 0.0;
};

/// The stripe [first_col, end_col) of `a`, rows kept, on the device.
Stripe make_stripe(const tcsparse::GeneratedMatrix& a, std::int32_t first_col, std::int32_t end_col) {
  std::vector<std::int32_t> row_ptr(static_cast<std::size_t>(a.rows) + 1, 0), col_idx;
  std::vector<double> values;
  for (std::int32_t r = 0; r < a.rows; ++r) {
    row_ptr[static_cast<std::size_t>(r)] = static_cast<std::int32_t>(col_idx.size());
    const auto row_begin = a.col_idx.begin() + a.row_ptr[static_cast<std::size_t>(r)];
    const auto row_end = a.col_idx.begin() + a.row_ptr[static_cast<std::size_t>(r) + 1];
    for (auto it = std::lower_bound(row_begin, row_end, first_col);
         it != row_end && *it < end_col; ++it) {
      col_idx.push_back(*it);
      values.push_back(a.values[static_cast<std::size_t>(it - a.col_idx.begin())]);
    }
  }
  row_ptr.back() = static_cast<std::int32_t>(col_idx.size());
  const double mean = a.rows > 0 ? static_cast<double>(col_idx.size()) / a.rows : 0.0;
  return {DeviceBuffer<std::int32_t>(row_ptr), DeviceBuffer<std::int32_t>(col_idx),
          DeviceBuffer<double>(values), mean};
}

void launch_stripe(const Stripe& s, std::int64_t rows, const double* x, double* y, bool accumulate,
                   int sms, cudaStream_t stream) {
  const auto args = std::make_tuple(rows, s.row_ptr.data(), s.col_idx.data(), s.values.data(), x, y,
                                    accumulate);
  const dim3 grid(static_cast<unsigned>(sms * kBlocksPerSm));
  auto go = [&](auto kernel) {
    std::apply([&](auto... a) { kernel<<<grid, kThreads, 0, stream>>>(a...); }, args);
  };
  const double mean = s.mean_row_length;
  if (mean < 1.5) go(stripe_kernel<1>);
  else if (mean < 3) go(stripe_kernel<2>);
  else if (mean < 6) go(stripe_kernel<4>);
  else if (mean < 12) go(stripe_kernel<8>);
  else if (mean < 24) go(stripe_kernel<16>);
  else go(stripe_kernel<32>);
  TCSPARSE_CUDA_CHECK_LAUNCH();
}

void probe(const std::string& name, const tcsparse::GeneratedMatrix& a, int sms) {
  std::vector<double> host_x(static_cast<std::size_t>(a.cols));
  for (std::size_t i = 0; i < host_x.size(); ++i) host_x[i] = 1.0 + static_cast<double>(i % 7) * 0.125;
  const DeviceBuffer<double> x(host_x);
  DeviceBuffer<double> y_cusparse(static_cast<std::size_t>(a.rows)), y(static_cast<std::size_t>(a.rows));
  CudaStream stream;
  const tcsparse::SpmvPlan<double> plan(a, tcsparse::Method("cusparse"));
  const double cusparse_ms =
      median_ms([&] { plan.apply(x.data(), y_cusparse.data(), 1.0, 0.0, stream.get()); }, stream.get());
  const std::vector<double> reference = y_cusparse.download();
  std::printf("%s: %d x %d, %lld nonzeros, x %.1f MB; cusparse %.3f ms\n", name.c_str(), a.rows,
              a.cols, static_cast<long long>(a.nnz()), a.cols * 8e-6, cusparse_ms);
  for (const int count : kStripeCounts) {
    const std::int64_t width = (static_cast<std::int64_t>(a.cols) + count - 1) / count;
    std::vector<Stripe> stripes;
    for (int s = 0; s < count; ++s)
      stripes.push_back(make_stripe(a, static_cast<std::int32_t>(std::min<std::int64_t>(a.cols, s * width)),
                                    static_cast<std::int32_t>(std::min<std::int64_t>(a.cols, (s + 1) * width))));
    const double ms = median_ms(
        [&] {
          for (int s = 0; s < count; ++s)
            launch_stripe(stripes[static_cast<std::size_t>(s)], a.rows, x.data(), y.data(), s > 0,
                          sms, stream.get());
        },
        stream.get());
    const std::vector<double> striped = y.download();
    double difference = 0.0;
    for (std::size_t r = 0; r < striped.size(); ++r)
      difference = std::max(difference, std::abs(striped[r] - reference[r]) / (1.0 + std::abs(reference[r])));
    std::printf("  %2d stripes (x stripe %6.1f MB): %8.3f ms  %5.2fx cusparse  (difference %.1e)\n",
                count, static_cast<double>(width) * 8e-6, ms, cusparse_ms / ms, difference);
  }
}

}  // namespace

int main(int argc, char** argv) {
  try {
    int sms = 0;
    if (!tcsparse::bench::announce_device("tcsparse_stripe_probe", sms)) return 2;
    std::vector<std::string> specs(argv + 1, argv + argc);
    if (specs.empty()) specs = {"random:rows=16000000,cols=16000000,dist=uniform,min=4,max=12,seed=42"};
    for (std::string spec : specs) {
      if (spec.rfind("gen:", 0) == 0) spec = spec.substr(4);
      probe(spec, tcsparse::generate(tcsparse::parse_generator_spec(spec)), sms);
    }
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "tcsparse_stripe_probe: error: %s (usage: tcsparse_stripe_probe "
                 "[generator spec ...])\n", error.what());
    return 1;
  }
}
