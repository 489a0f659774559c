// The host cost of the CUDA runtime calls a plan build makes, each timed over many calls on an
// idle GPU (run 179). Build: nvcc -O2 -arch=sm_90 api_costs.cu -o api_costs
#include <cuda_runtime.h>

#include <chrono>
#include <cstdio>
#include <functional>
#include <vector>

__global__ void empty_kernel(int* p) {
  if (p && threadIdx.x == 1024) *p = 0;
}

static void check(cudaError_t e, const char* what) {
  if (e != cudaSuccess) {
    std::printf("%s: %s\n", what, cudaGetErrorString(e));
    std::exit(1);
  }
}

static void time_call(const char* name, int reps, const std::function<void(int)>& call) {
  for (int i = 0; i < 10; ++i) call(i);
  cudaDeviceSynchronize();
  const auto start = std::chrono::steady_clock::now();
  for (int i = 0; i < reps; ++i) call(i);
  const double us =
      std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now() - start).count();
  cudaDeviceSynchronize();
  std::printf("%-44s %8.2f us a call\n", name, us / reps);
}

int main() {
  int* d = nullptr;
  check(cudaMalloc(&d, 64 << 20), "cudaMalloc");
  int* pinned = nullptr;
  check(cudaMallocHost(&pinned, 256), "cudaMallocHost");
  cudaMemPool_t pool;
  check(cudaDeviceGetDefaultMemPool(&pool, 0), "pool");
  unsigned long long threshold = ~0ull;
  cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
  const int n = 2000;
  time_call("cudaGetDevice", n, [](int) { int dev; cudaGetDevice(&dev); });
  time_call("cudaDeviceGetAttribute (SM count)", n, [](int) {
    int v;
    cudaDeviceGetAttribute(&v, cudaDevAttrMultiProcessorCount, 0);
  });
  time_call("cudaPointerGetAttributes", n, [&](int) {
    cudaPointerAttributes a;
    cudaPointerGetAttributes(&a, d + 16);
  });
  time_call("kernel launch <<<1000, 256>>> + cudaGetLastError", n, [&](int) {
    empty_kernel<<<1000, 256>>>(d);
    cudaGetLastError();
  });
  time_call("kernel launch, then cudaStreamSynchronize", 500, [&](int) {
    empty_kernel<<<1000, 256>>>(d);
    cudaStreamSynchronize(nullptr);
  });
  time_call("cudaMemsetAsync 4 B", n, [&](int) { cudaMemsetAsync(d, 0, 4, nullptr); });
  time_call("cudaMemcpyAsync D2H 32 B pinned", n,
            [&](int) { cudaMemcpyAsync(pinned, d, 32, cudaMemcpyDeviceToHost, nullptr); });
  time_call("cudaMemcpyAsync D2H 32 B pinned + sync", 500, [&](int) {
    cudaMemcpyAsync(pinned, d, 32, cudaMemcpyDeviceToHost, nullptr);
    cudaStreamSynchronize(nullptr);
  });
  time_call("cudaStreamSynchronize (idle)", n, [](int) { cudaStreamSynchronize(nullptr); });
  time_call("cudaDeviceSynchronize (idle)", n, [](int) { cudaDeviceSynchronize(); });
  time_call("cudaEventCreate + cudaEventDestroy", n, [](int) {
    cudaEvent_t e;
    cudaEventCreate(&e);
    cudaEventDestroy(e);
  });
  time_call("the same, cudaEventDisableTiming", n, [](int) {
    cudaEvent_t e;
    cudaEventCreateWithFlags(&e, cudaEventDisableTiming);
    cudaEventDestroy(e);
  });
  cudaEvent_t timing, plain;
  cudaEventCreate(&timing);
  cudaEventCreateWithFlags(&plain, cudaEventDisableTiming);
  time_call("cudaEventRecord (timing)", n, [&](int) { cudaEventRecord(timing, nullptr); });
  time_call("cudaEventRecord (no timing)", n, [&](int) { cudaEventRecord(plain, nullptr); });
  time_call("cudaEventRecord + cudaEventSynchronize", 500, [&](int) {
    cudaEventRecord(plain, nullptr);
    cudaEventSynchronize(plain);
  });
  time_call("cudaMallocFromPoolAsync + cudaFreeAsync 4 MB", n, [&](int) {
    void* p;
    cudaMallocFromPoolAsync(&p, 4 << 20, pool, nullptr);
    cudaFreeAsync(p, nullptr);
  });
  time_call("cudaMallocAsync + cudaFreeAsync 64 B", n, [&](int) {
    void* p;
    cudaMallocAsync(&p, 64, nullptr);
    cudaFreeAsync(p, nullptr);
  });
  time_call("cudaMemPoolTrimTo (nothing to trim)", n,
            [&](int) { cudaMemPoolTrimTo(pool, 32 << 20); });
  time_call("cudaFuncGetAttributes", n, [](int) {
    cudaFuncAttributes a;
    cudaFuncGetAttributes(&a, empty_kernel);
  });
  time_call("cudaFuncSetAttribute (carveout)", n, [](int i) {
    cudaFuncSetAttribute(empty_kernel, cudaFuncAttributePreferredSharedMemoryCarveout, 50 + i % 2);
  });
  time_call("cudaOccupancyMaxActiveBlocksPerMultiprocessor", n, [](int) {
    int b;
    cudaOccupancyMaxActiveBlocksPerMultiprocessor(&b, empty_kernel, 256, 0);
  });
  for (int chain : {1, 2, 3, 4, 6}) {
    char name[64];
    std::snprintf(name, sizeof name, "%d launches <<<4, 256>>>, memcpy D2H, sync", chain);
    time_call(name, 300, [&](int) {
      for (int k = 0; k < chain; ++k) empty_kernel<<<4, 256>>>(d);
      cudaMemcpyAsync(pinned, d, 32, cudaMemcpyDeviceToHost, nullptr);
      cudaStreamSynchronize(nullptr);
    });
  }
  cudaStream_t side;
  cudaStreamCreateWithFlags(&side, cudaStreamNonBlocking);
  time_call("cudaEventRecord + cudaStreamWaitEvent", n, [&](int) {
    cudaEventRecord(plain, nullptr);
    cudaStreamWaitEvent(side, plain, 0);
  });
  time_call("cudaStreamCreate + Destroy (non-blocking)", 500, [](int) {
    cudaStream_t s;
    cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
    cudaStreamDestroy(s);
  });
  return 0;
}
