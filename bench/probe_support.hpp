// What the stand-alone probes of bench/ (tcsparse_gather_ceiling, tcsparse_stripe_probe,
// tcsparse_shared_x_probe) share: finding the GPU, and timing a piece of GPU work the way the
// harness does (CUDA events around each run, after warm-up runs; the median).
//
//   int sms = 0;
//   if (!tcsparse::bench::announce_device("tcsparse_stripe_probe", sms)) return 2;
//   const double ms = tcsparse::bench::median_ms([&] { plan.apply(...); }, stream);
#pragma once

#include <cuda_runtime_api.h>

#include <algorithm>
#include <cstdio>
#include <vector>

#include "runtime/cuda_check.hpp"
#include "runtime/device_buffer.hpp"

namespace tcsparse::bench {

inline constexpr int kProbeWarmUpRuns = 5;
inline constexpr int kProbeTimedRuns = 30;

/// Prints device 0's name, SM count and L2 size and sets `sms`; without a CUDA device, says so
/// on stderr naming `tool` and returns false (the probe then exits 2, as `tcsparse bench` does).
inline bool announce_device(const char* tool, int& sms) {
  int devices = 0;
  if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
    std::fprintf(stderr, "%s: no CUDA device found\n", tool);
    return false;
  }
  int l2 = 0;
  TCSPARSE_CUDA_CHECK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
  TCSPARSE_CUDA_CHECK(cudaDeviceGetAttribute(&l2, cudaDevAttrL2CacheSize, 0));
  cudaDeviceProp properties{};
  TCSPARSE_CUDA_CHECK(cudaGetDeviceProperties(&properties, 0));
  std::printf("%s, %d SMs, L2 %.1f MB\n", properties.name, sms, l2 * 1e-6);
  return true;
}

/// Median milliseconds of `timed_runs` of `run` (GPU work enqueued on `stream`), each timed alone
/// between two events, after `warm_up_runs` untimed ones.
template <typename Run>
double median_ms(Run&& run, cudaStream_t stream, int warm_up_runs = kProbeWarmUpRuns,
                 int timed_runs = kProbeTimedRuns) {
  for (int i = 0; i < warm_up_runs; ++i) run();
  std::vector<double> ms;
  for (int i = 0; i < timed_runs; ++i) {
    detail::CudaEvent start, stop;
    start.record(stream);
    run();
    stop.record(stream);
    stop.synchronize();
    ms.push_back(stop.elapsed_ms_since(start));
  }
  std::nth_element(ms.begin(), ms.begin() + timed_runs / 2, ms.end());
  return ms[static_cast<std::size_t>(timed_runs / 2)];
}

}  // namespace tcsparse::bench
