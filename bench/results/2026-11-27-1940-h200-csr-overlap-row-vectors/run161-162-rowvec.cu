// Experiment (not in the repo): CSR-vector kernels reading global memory directly, several rows a
// vector in flight, against cuSPARSE in the same process. Which shape reaches the copy bandwidth
// on regular rows?
#include <cuda_fp16.h>
#include <cusparse.h>

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <vector>

#include "tcsparse/generate.hpp"
#include "tcsparse/io.hpp"

#define CK(x)                                                                              \
  do {                                                                                     \
    cudaError_t e_ = (x);                                                                  \
    if (e_ != cudaSuccess) {                                                               \
      std::printf("CUDA %s at %d: %s\n", #x, __LINE__, cudaGetErrorString(e_));          \
      std::exit(1);                                                                        \
    }                                                                                      \
  } while (0)
#define CS(x)                                                               \
  do {                                                                      \
    cusparseStatus_t s_ = (x);                                              \
    if (s_ != CUSPARSE_STATUS_SUCCESS) {                                    \
      std::printf("cuSPARSE %s at %d: %d\n", #x, __LINE__, int(s_));        \
      std::exit(1);                                                         \
    }                                                                       \
  } while (0)

template <typename T>
__device__ __forceinline__ T ldcs(const T* p) {
  return __ldcs(p);
}
template <typename T>
__device__ __forceinline__ T ldg(const T* p) {
  return __ldg(p);
}

// Vector of kVector lanes takes kRows consecutive rows; per round every lane has kRows products
// in flight (x kSteps rounds unrolled).
template <typename V>
using AccOf = std::conditional_t<sizeof(V) == 8, double, float>;
template <typename V, int kVector, int kRows, int kSteps, bool kInterleave>
__global__ void __launch_bounds__(256) rowvec_kernel(int rows, const int* __restrict__ row_ptr,
                                                     const int* __restrict__ cols,
                                                     const V* __restrict__ vals,
                                                     const V* __restrict__ x, V* __restrict__ y) {
  constexpr int kVectorsPerWarp = 32 / kVector;
  const int lane = threadIdx.x & 31;
  const int in_vec = lane % kVector;
  const long long gwarp = (static_cast<long long>(blockIdx.x) * blockDim.x + threadIdx.x) / 32;
  // interleaved: vector v of the warp takes rows base + v + r * vectors (a warp instruction
  // covers consecutive rows); else rows base + v * kRows + r
  const long long base = gwarp * kVectorsPerWarp * kRows;
  const int vec = lane / kVector;
  auto row_of = [&](int r) -> long long {
    return kInterleave ? base + vec + r * kVectorsPerWarp : base + vec * kRows + r;
  };
  int begin[kRows], end[kRows];
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const long long row = row_of(r);
    begin[r] = row < rows ? ldg(row_ptr + row) : 0;
    end[r] = row < rows ? ldg(row_ptr + row + 1) : 0;
  }
  int longest = 0;
#pragma unroll
  for (int r = 0; r < kRows; ++r) longest = max(longest, end[r] - begin[r]);
  // the whole warp loops the same trips
#pragma unroll
  for (int o = 16; o >= 1; o /= 2) longest = max(longest, __shfl_xor_sync(~0u, longest, o));
  AccOf<V> sum[kRows];
#pragma unroll
  for (int r = 0; r < kRows; ++r) sum[r] = 0;
  for (int k = in_vec; k - in_vec < longest; k += kVector * kSteps) {
    int c[kSteps][kRows];
    V v[kSteps][kRows];
#pragma unroll
    for (int s = 0; s < kSteps; ++s)
#pragma unroll
      for (int r = 0; r < kRows; ++r) {
        const int i = begin[r] + k + s * kVector;
        const bool p = i < end[r];
        c[s][r] = p ? ldcs(cols + i) : 0;
        v[s][r] = p ? ldcs(vals + i) : V(0);
      }
    V xv[kSteps][kRows];
#pragma unroll
    for (int s = 0; s < kSteps; ++s)
#pragma unroll
      for (int r = 0; r < kRows; ++r) xv[s][r] = ldg(x + c[s][r]);
#pragma unroll
    for (int s = 0; s < kSteps; ++s)
#pragma unroll
      for (int r = 0; r < kRows; ++r)
        sum[r] += static_cast<AccOf<V>>(v[s][r]) * static_cast<AccOf<V>>(xv[s][r]);
  }
#pragma unroll
  for (int r = 0; r < kRows; ++r)
#pragma unroll
    for (int o = kVector / 2; o >= 1; o /= 2) sum[r] += __shfl_xor_sync(~0u, sum[r], o);
#pragma unroll
  for (int r = 0; r < kRows; ++r) {
    const long long row = row_of(r);
    if (r % kVector == in_vec && row < rows) y[row] = static_cast<V>(sum[r]);
  }
}

struct Dev {
  int rows, cols, nnz;
  int *row_ptr, *col;
  void *val, *x, *y;
};

template <typename V>
float time_launches(cudaStream_t s, int reps, auto&& launch) {
  cudaEvent_t a, b;
  CK(cudaEventCreate(&a));
  CK(cudaEventCreate(&b));
  for (int i = 0; i < 5; ++i) launch();
  std::vector<float> t;
  for (int i = 0; i < reps; ++i) {
    CK(cudaEventRecord(a, s));
    launch();
    CK(cudaEventRecord(b, s));
    CK(cudaEventSynchronize(b));
    float ms;
    CK(cudaEventElapsedTime(&ms, a, b));
    t.push_back(ms);
  }
  CK(cudaGetLastError());
  std::sort(t.begin(), t.end());
  return t[t.size() / 2];
}

template <typename V>
double check(const tcsparse::CsrMatrix<double>& m, const std::vector<double>& x, const Dev& d) {
  std::vector<V> y(m.rows);
  CK(cudaMemcpy(y.data(), d.y, sizeof(V) * m.rows, cudaMemcpyDeviceToHost));
  double worst = 0, scale = 0;
  for (int r = 0; r < m.rows; ++r) {
    double s = 0, a = 0;
    for (int i = m.row_ptr[r]; i < m.row_ptr[r + 1]; ++i) {
      const double v = static_cast<double>(static_cast<V>(m.values[i]));
      const double xv = static_cast<double>(static_cast<V>(x[m.col_idx[i]]));
      s += v * xv;
      a += std::fabs(v * xv);
    }
    worst = std::max(worst, std::fabs(s - static_cast<double>(y[r])));
    scale = std::max(scale, a);
  }
  return worst / std::max(scale, 1e-300);
}

template <typename V>
struct Runner {
  const tcsparse::CsrMatrix<double>& m;
  std::string name;
  double copy_gbps;
  Dev d{};
  std::vector<double> hx;
  cudaStream_t s;
  double bytes;

  void setup() {
    d.rows = m.rows;
    d.cols = m.cols;
    d.nnz = m.nnz();
    CK(cudaMalloc(&d.row_ptr, 4 * (m.rows + 1)));
    CK(cudaMalloc(&d.col, 4 * (size_t)d.nnz));
    CK(cudaMalloc(&d.val, sizeof(V) * (size_t)d.nnz));
    CK(cudaMalloc(&d.x, sizeof(V) * m.cols));
    CK(cudaMalloc(&d.y, sizeof(V) * m.rows));
    CK(cudaMemcpy(d.row_ptr, m.row_ptr.data(), 4 * (m.rows + 1), cudaMemcpyHostToDevice));
    CK(cudaMemcpy(d.col, m.col_idx.data(), 4 * (size_t)d.nnz, cudaMemcpyHostToDevice));
    std::vector<V> hv(d.nnz);
    for (int i = 0; i < d.nnz; ++i) hv[i] = static_cast<V>(m.values[i]);
    CK(cudaMemcpy(d.val, hv.data(), sizeof(V) * (size_t)d.nnz, cudaMemcpyHostToDevice));
    hx.resize(m.cols);
    unsigned long long st = 12345;
    for (auto& v : hx) {
      st = st * 6364136223846793005ull + 1442695040888963407ull;
      v = ((st >> 33) % 2000) / 1000.0 - 1.0;
    }
    std::vector<V> hxv(m.cols);
    for (int i = 0; i < m.cols; ++i) hxv[i] = static_cast<V>(hx[i]);
    CK(cudaMemcpy(d.x, hxv.data(), sizeof(V) * m.cols, cudaMemcpyHostToDevice));
    CK(cudaStreamCreate(&s));
    bytes = 4.0 * (m.rows + 1) + (4.0 + sizeof(V)) * d.nnz + sizeof(V) * (double)(m.cols + m.rows);
  }
  void report(const char* what, float ms, double err) {
    std::printf("%-16s %-5s %-22s %8.2f us %7.0f GB/s %5.1f%% copy err %.1e\n", name.c_str(),
                sizeof(V) == 8 ? "fp64" : sizeof(V) == 4 ? "fp32" : "fp16", what, ms * 1e3, bytes / ms / 1e6,
                100.0 * bytes / ms / 1e6 / copy_gbps, err);
  }
  float cusparse(cusparseSpMVAlg_t alg, const char* label) {
    cusparseHandle_t h;
    CS(cusparseCreate(&h));
    CS(cusparseSetStream(h, s));
    const cudaDataType t = sizeof(V) == 8 ? CUDA_R_64F : sizeof(V) == 4 ? CUDA_R_32F : CUDA_R_16F;
    const cudaDataType ct = sizeof(V) == 8 ? CUDA_R_64F : CUDA_R_32F;
    cusparseSpMatDescr_t A;
    cusparseDnVecDescr_t X, Y;
    CS(cusparseCreateCsr(&A, d.rows, d.cols, d.nnz, d.row_ptr, d.col, d.val, CUSPARSE_INDEX_32I,
                         CUSPARSE_INDEX_32I, CUSPARSE_INDEX_BASE_ZERO, t));
    CS(cusparseCreateDnVec(&X, d.cols, d.x, t));
    CS(cusparseCreateDnVec(&Y, d.rows, d.y, t));
    AccOf<V> one = 1, zero = 0;
    size_t ws = 0;
    CS(cusparseSpMV_bufferSize(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, ct, alg,
                               &ws));
    void* buf = nullptr;
    CK(cudaMalloc(&buf, ws + 16));
    CS(cusparseSpMV_preprocess(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, ct, alg,
                               buf));
    CK(cudaMemset(d.y, 0xff, sizeof(V) * d.rows));
    const float ms = time_launches<V>(s, 30, [&] {
      CS(cusparseSpMV(h, CUSPARSE_OPERATION_NON_TRANSPOSE, &one, A, X, &zero, Y, ct, alg, buf));
    });
    CK(cudaDeviceSynchronize());
    report(label, ms, check<V>(m, hx, d));
    cusparseDestroySpMat(A);
    cusparseDestroyDnVec(X);
    cusparseDestroyDnVec(Y);
    cudaFree(buf);
    cusparseDestroy(h);
    return ms;
  }
  template <int kVector, int kRows, int kSteps, bool kInterleave = true>
  float rowvec(int threads = 256) {
    const long long rows_per_warp = (32 / kVector) * kRows;
    const long long warps = (d.rows + rows_per_warp - 1) / rows_per_warp;
    const long long blocks = (warps * 32 + threads - 1) / threads;
    CK(cudaMemset(d.y, 0xff, sizeof(V) * d.rows));
    const float ms = time_launches<V>(s, 30, [&] {
      rowvec_kernel<V, kVector, kRows, kSteps, kInterleave><<<blocks, threads, 0, s>>>(
          d.rows, d.row_ptr, d.col, (const V*)d.val, (const V*)d.x, (V*)d.y);
    });
    CK(cudaDeviceSynchronize());
    char label[64];
    std::snprintf(label, sizeof label, "rv v%d r%d s%d%s t%d", kVector, kRows, kSteps,
                  kInterleave ? "" : " blk", threads);
    report(label, ms, check<V>(m, hx, d));
    return ms;
  }
  void free_all() {
    cudaFree(d.row_ptr);
    cudaFree(d.col);
    cudaFree(d.val);
    cudaFree(d.x);
    cudaFree(d.y);
    cudaStreamDestroy(s);
  }
};

double copy_bandwidth() {
  const size_t n = size_t(512) << 20;
  void *a, *b;
  CK(cudaMalloc(&a, n));
  CK(cudaMalloc(&b, n));
  CK(cudaMemset(a, 1, n));
  const float ms = time_launches<char>(0, 20, [&] { CK(cudaMemcpyAsync(b, a, n, cudaMemcpyDeviceToDevice, 0)); });
  cudaFree(a);
  cudaFree(b);
  return 2.0 * n / ms / 1e6;
}

template <typename R, int kVector>
void sweep_vector(R& r) {
  r.template rowvec<kVector, 1, 1>();
  r.template rowvec<kVector, 2, 1>();
  r.template rowvec<kVector, 4, 1>();
  r.template rowvec<kVector, 8, 1>();
  r.template rowvec<kVector, 2, 2>();
  r.template rowvec<kVector, 4, 2>();
}

template <typename V>
void run_matrix(const std::string& name, const tcsparse::CsrMatrix<double>& m, double copy,
                const std::string& which) {
  Runner<V> r{m, name, copy};
  r.setup();
  r.cusparse(CUSPARSE_SPMV_ALG_DEFAULT, "cusparse default");
  auto has = [&](const char* v) { return (" " + which + " ").find(std::string(" ") + v + " ") != std::string::npos; };
  if (has("v32")) sweep_vector<Runner<V>, 32>(r);
  if (has("v16")) sweep_vector<Runner<V>, 16>(r);
  if (has("v8")) sweep_vector<Runner<V>, 8>(r);
  if (has("v4")) sweep_vector<Runner<V>, 4>(r);
  if (has("v2")) sweep_vector<Runner<V>, 2>(r);
  if (has("v1")) {
    sweep_vector<Runner<V>, 1>(r);
    r.template rowvec<1, 4, 1, false>();
  }
  if (has("long")) {
    r.template rowvec<32, 1, 2>();
    r.template rowvec<32, 1, 4>();
    r.template rowvec<32, 2, 4>();
  }
  r.free_all();
}

int main(int argc, char** argv) {
  const std::string mxdir = argc > 1 ? argv[1] : ".mx";
  const double copy = copy_bandwidth();
  std::printf("copy bandwidth %.0f GB/s\n", copy);
  struct Case {
    std::string name, spec, which;
  };
  const std::vector<Case> cases = {
      {"stencil3d_100", "stencil3d:nx=100,ny=100,nz=100,seed=2", "v32 v16 v8"},
      {"banded_2m", "banded:n=2000000,bandwidth=5,seed=6", "v16 v8 v4"},
      {"stencil2d_2000", "stencil2d:nx=2000,ny=2000,seed=1", "v8 v4 v2 v1"},
      {"random_uniform_1m", "random:rows=1000000,cols=1000000,dist=uniform,min=1,max=39,seed=4",
       "v32 v16 v8"},
      {"short_rows_5m", "short:rows=5000000,cols=5000000,seed=7", "v4 v2 v1"},
      {"replica_cage11", "replicate:file=" + mxdir + "/suitesparse/cage11.mtx.gz,target_nnz=20000000,seed=10",
       "v16 v8 v4"},
      {"rmat_20", "rmat:scale=20,edge_factor=16,seed=3", "v32 v16 v8"},
      {"random_powerlaw_2m", "random:rows=2000000,cols=2000000,dist=power_law,min=1,max=20000,exponent=2,seed=5", "v16 v8 v4"},
      {"long_rows_20k", "long:rows=20000,cols=1000000,length=1000,seed=8", "v32 long"},
      {"pruned_16k", "pruned:rows=16384,cols=16384,sparsity=0.9,seed=9", "v32 long"},
  };
  for (const auto& c : cases) {
    tcsparse::GeneratedMatrix m;
    try {
      m = tcsparse::generate(tcsparse::parse_generator_spec(c.spec));
    } catch (const std::exception& e) {
      std::printf("%s: %s\n", c.name.c_str(), e.what());
      continue;
    }
    std::printf("# %s rows %d nnz %d\n", c.name.c_str(), m.rows, m.nnz());
    run_matrix<double>(c.name, m, copy, c.which);
    run_matrix<float>(c.name, m, copy, c.which);
    run_matrix<__half>(c.name, m, copy, c.which);
    std::fflush(stdout);
  }
}
