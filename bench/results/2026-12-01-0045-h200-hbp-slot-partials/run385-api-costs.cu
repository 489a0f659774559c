// Host-side costs of the CUDA API calls a plan build makes (stream-ordered allocations, kernel
// launches, event records, waits), on a warm pool.
#include <cuda_runtime.h>
#include <chrono>
#include <cstdio>
#include <cstdint>
#include <vector>
__global__ void empty_kernel(int* p) { if (p && threadIdx.x == 1234567) *p = 1; }
__global__ void small_kernel(int* p, int n) { int i = blockIdx.x * blockDim.x + threadIdx.x; if (i < n) p[i] += 1; }
static double now_us() { return std::chrono::duration<double, std::micro>(std::chrono::steady_clock::now().time_since_epoch()).count(); }
int main() {
  cudaStream_t s; cudaStreamCreateWithFlags(&s, cudaStreamNonBlocking);
  cudaMemPool_t pool; cudaDeviceGetDefaultMemPool(&pool, 0);
  uint64_t threshold = UINT64_MAX; cudaMemPoolSetAttribute(pool, cudaMemPoolAttrReleaseThreshold, &threshold);
  int* buf; cudaMalloc(&buf, 64 << 20);
  // warm
  for (int i = 0; i < 100; ++i) { void* p; cudaMallocAsync(&p, 1 << 20, s); cudaFreeAsync(p, s); }
  cudaStreamSynchronize(s);
  const int n = 2000;
  for (size_t bytes : {size_t(4096), size_t(1) << 20, size_t(8) << 20}) {
    double t0 = now_us();
    for (int i = 0; i < n; ++i) { void* p; cudaMallocAsync(&p, bytes, s); cudaFreeAsync(p, s); }
    double t1 = now_us(); cudaStreamSynchronize(s);
    printf("mallocAsync+freeAsync %zu B: %.2f us a pair (host)\n", bytes, (t1 - t0) / n);
  }
  { // 30 live at once then freed (as a build holds several temporaries)
    std::vector<void*> ps(30);
    double t0 = now_us();
    for (int r = 0; r < 100; ++r) { for (auto& p : ps) cudaMallocAsync(&p, 1 << 20, s); for (auto p : ps) cudaFreeAsync(p, s); }
    double t1 = now_us(); cudaStreamSynchronize(s);
    printf("30 live 1 MiB: %.2f us a pair (host)\n", (t1 - t0) / 3000);
  }
  { double t0 = now_us(); for (int i = 0; i < n; ++i) empty_kernel<<<1, 32, 0, s>>>(nullptr); double t1 = now_us(); cudaStreamSynchronize(s); double t2 = now_us();
    printf("empty kernel launch: %.2f us (host), %.2f us each end to end\n", (t1 - t0) / n, (t2 - t0) / n); }
  { double t0 = now_us(); for (int i = 0; i < n; ++i) small_kernel<<<1400, 256, 0, s>>>(buf, 341000); double t1 = now_us(); cudaStreamSynchronize(s); double t2 = now_us();
    printf("341k-thread kernel: %.2f us (host), %.2f us each end to end\n", (t1 - t0) / n, (t2 - t0) / n); }
  { cudaEvent_t e; cudaEventCreate(&e); double t0 = now_us(); for (int i = 0; i < n; ++i) cudaEventRecord(e, s); double t1 = now_us(); cudaStreamSynchronize(s);
    printf("event record: %.2f us (host)\n", (t1 - t0) / n); }
  { double total = 0; int* host; cudaMallocHost(&host, 64);
    for (int i = 0; i < 200; ++i) { small_kernel<<<1400, 256, 0, s>>>(buf, 341000); double t0 = now_us(); cudaMemcpyAsync(host, buf, 16, cudaMemcpyDeviceToHost, s); cudaStreamSynchronize(s); total += now_us() - t0; }
    printf("kernel + 16 B download + wait: %.2f us\n", total / 200); }
  { double total = 0;
    for (int i = 0; i < 200; ++i) { double t0 = now_us(); cudaStreamSynchronize(s); total += now_us() - t0; }
    printf("idle stream wait: %.2f us\n", total / 200); }
  { // a chain: wait, then 10 launches; GPU idle gap before the first one runs
    cudaEvent_t a, b; cudaEventCreate(&a); cudaEventCreate(&b); float ms_sum = 0;
    for (int i = 0; i < 100; ++i) { cudaStreamSynchronize(s); cudaEventRecord(a, s); for (int k = 0; k < 10; ++k) small_kernel<<<1400, 256, 0, s>>>(buf, 341000); cudaEventRecord(b, s); cudaStreamSynchronize(s); float ms; cudaEventElapsedTime(&ms, a, b); ms_sum += ms; }
    printf("10 kernels of 341k threads after a wait: %.2f us GPU time between events\n", ms_sum * 1000 / 100); }
  printf("err %s\n", cudaGetErrorString(cudaGetLastError()));
}
