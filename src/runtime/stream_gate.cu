// StreamGate's kernel: stream_gate.hpp.
#include "runtime/stream_gate.hpp"

#include <cstdint>

#include "runtime/cuda_check.hpp"

namespace tcsparse::detail {
namespace {

__device__ std::uint64_t global_timer_ns() {
  std::uint64_t now = 0;
  asm volatile("mov.u64 %0, %%globaltimer;" : "=l"(now));
  return now;
}

/// Spins (sleeping 1 us between reads of host memory) until *opened >= count or timeout_ns passed.
__global__ void wait_until_opened(const volatile unsigned* opened, unsigned count,
                                  std::uint64_t timeout_ns) {
  const std::uint64_t start = global_timer_ns();
  while (*opened < count && global_timer_ns() - start < timeout_ns) __nanosleep(1000);
}

}  // namespace

StreamGate::StreamGate() : opened_(1) { opened_.data()[0] = 0; }

void StreamGate::close(cudaStream_t stream, double timeout_ms) {
  ++closed_;
  wait_until_opened<<<1, 1, 0, stream>>>(opened_.data(), closed_,
                                         static_cast<std::uint64_t>(timeout_ms * 1e6));
  TCSPARSE_CUDA_CHECK_LAUNCH();
}

void StreamGate::open() { *static_cast<volatile unsigned*>(opened_.data()) = closed_; }

}  // namespace tcsparse::detail
