// DMA probe: host-to-device copy speed from pinned buffers allocated in different ways.
#include <cuda_runtime.h>
#include <sys/mman.h>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <vector>
#include <algorithm>
#define CK(x) do { cudaError_t e = (x); if (e != cudaSuccess) { printf("%s: %s\n", #x, cudaGetErrorString(e)); exit(1);} } while (0)

static double time_copy(void* dst, const void* src, size_t bytes, cudaStream_t s, int chunks) {
  cudaEvent_t a, b; CK(cudaEventCreate(&a)); CK(cudaEventCreate(&b));
  std::vector<float> ms;
  for (int r = 0; r < 7; ++r) {
    CK(cudaEventRecord(a, s));
    size_t piece = bytes / chunks;
    for (int c = 0; c < chunks; ++c)
      CK(cudaMemcpyAsync((char*)dst + c * piece, (const char*)src + c * piece, c == chunks - 1 ? bytes - c * piece : piece, cudaMemcpyHostToDevice, s));
    CK(cudaEventRecord(b, s)); CK(cudaEventSynchronize(b));
    float t; CK(cudaEventElapsedTime(&t, a, b)); if (r >= 2) ms.push_back(t);
  }
  std::sort(ms.begin(), ms.end());
  cudaEventDestroy(a); cudaEventDestroy(b);
  return bytes / (ms[ms.size() / 2] * 1e6);
}

int main(int argc, char** argv) {
  size_t bytes = (argc > 1 ? atol(argv[1]) : 256) << 20;
  void* dev; CK(cudaMalloc(&dev, bytes));
  cudaStream_t s; CK(cudaStreamCreate(&s));
  for (int trial = 0; trial < 4; ++trial) {
    void* h; CK(cudaHostAlloc(&h, bytes, cudaHostAllocDefault)); memset(h, 1, bytes);
    printf("cudaHostAlloc     trial %d: %.1f GB/s (1 copy) %.1f GB/s (8 copies)\n", trial, time_copy(dev, h, bytes, s, 1), time_copy(dev, h, bytes, s, 8));
    CK(cudaFreeHost(h));
  }
  for (int trial = 0; trial < 4; ++trial) {
    void* h; CK(cudaMallocHost(&h, bytes)); memset(h, 1, bytes);
    printf("cudaMallocHost    trial %d: %.1f GB/s\n", trial, time_copy(dev, h, bytes, s, 1));
    CK(cudaFreeHost(h));
  }
  for (int huge = 0; huge < 2; ++huge)
    for (int trial = 0; trial < 4; ++trial) {
      size_t align = 2 << 20, len = (bytes + align - 1) / align * align;
      void* h = mmap(nullptr, len, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (h == MAP_FAILED) { printf("mmap failed\n"); return 1; }
      if (huge) madvise(h, len, MADV_HUGEPAGE); else madvise(h, len, MADV_NOHUGEPAGE);
      memset(h, 1, len);
      CK(cudaHostRegister(h, len, cudaHostRegisterDefault));
      printf("mmap+register %s trial %d: %.1f GB/s (1 copy) %.1f GB/s (8 copies)\n", huge ? "THP  " : "4KiB ", trial, time_copy(dev, h, bytes, s, 1), time_copy(dev, h, bytes, s, 8));
      CK(cudaHostUnregister(h)); munmap(h, len);
    }
  return 0;
}
