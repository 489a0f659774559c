// Conjugate gradient on the GPU with a tcsparse SpMV plan: the plan's apply does A*p, a few small
// kernels in this file do the dot products and vector updates, all on one stream. A self-contained
// example: it uses only the public API (include/tcsparse) and the CUDA runtime.
//
//   cg MATRIX [--precision fp64|fp32] [--tol 1e-8] [--max-iter 2000] [--method auto]
//             [--check-every 10] [--repeats 3]
//
// MATRIX is a Matrix Market / .smtx file of a symmetric positive definite matrix (e.g. a
// SuiteSparse SPD matrix) or poisson3d:N, the 7-point 3D Laplacian on an N x N x N grid.
// The right-hand side is b = A * ones, so the exact solution is all ones; x starts at zero.
//
// It prints the iterations, the final relative residual ||b - A x|| / ||b|| (recomputed, not the
// recurrence's), the plan build time, the time per iteration (CUDA events, median of --repeats
// solves after a warm-up solve), and the same for a plan of method "cusparse", with the number of
// iterations after which the faster apply pays for the slower build:
//   break-even = (build_ms(method) - build_ms(cusparse))
//                / (ms_per_iter(cusparse) - ms_per_iter(method)).
//
// Exit codes: 0 converged, 1 error or no convergence (bad arguments, unreadable or non-symmetric
// matrix, CG breakdown), 2 no CUDA device.
#include <cuda_runtime.h>

#include <algorithm>
#include <chrono>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <string_view>
#include <tuple>
#include <type_traits>
#include <utility>
#include <vector>

#include "tcsparse/tcsparse.hpp"

namespace {

constexpr int kExitNoDevice = 2;

// ---- CUDA runtime: return codes and RAII -------------------------------------------------------

void check(cudaError_t status, const char* what) {
  if (status != cudaSuccess)
    throw std::runtime_error(std::string(what) + ": " + cudaGetErrorName(status) + " (" +
                             cudaGetErrorString(status) + ")");
}

/// A device array of `size` elements (cudaMalloc / cudaFree).
template <typename T>
class DeviceArray {
 public:
  explicit DeviceArray(std::size_t size) : size_(size) {
    void* pointer = nullptr;
    if (size > 0) check(cudaMalloc(&pointer, size * sizeof(T)), "cudaMalloc");
    data_.reset(static_cast<T*>(pointer));
  }
  T* get() const { return data_.get(); }
  std::size_t size() const { return size_; }

 private:
  struct Free {
    void operator()(T* pointer) const { cudaFree(pointer); }
  };
  std::unique_ptr<T, Free> data_;
  std::size_t size_;
};

/// Pinned host memory (cudaMallocHost / cudaFreeHost), for asynchronous copies back.
template <typename T>
class PinnedArray {
 public:
  explicit PinnedArray(std::size_t size) {
    void* pointer = nullptr;
    check(cudaMallocHost(&pointer, std::max<std::size_t>(size, 1) * sizeof(T)), "cudaMallocHost");
    data_.reset(static_cast<T*>(pointer));
  }
  T* get() const { return data_.get(); }
  T& operator[](std::size_t i) const { return data_.get()[i]; }

 private:
  struct Free {
    void operator()(T* pointer) const { cudaFreeHost(pointer); }
  };
  std::unique_ptr<T, Free> data_;
};

class CudaStream {
 public:
  CudaStream() {
    check(cudaStreamCreateWithFlags(&stream_, cudaStreamNonBlocking), "cudaStreamCreate");
  }
  ~CudaStream() { cudaStreamDestroy(stream_); }
  CudaStream(const CudaStream&) = delete;
  CudaStream& operator=(const CudaStream&) = delete;
  cudaStream_t get() const { return stream_; }

 private:
  cudaStream_t stream_ = nullptr;
};

class CudaEvent {
 public:
  CudaEvent() { check(cudaEventCreate(&event_), "cudaEventCreate"); }
  ~CudaEvent() { cudaEventDestroy(event_); }
  CudaEvent(const CudaEvent&) = delete;
  CudaEvent& operator=(const CudaEvent&) = delete;
  void record(cudaStream_t stream) const {
    check(cudaEventRecord(event_, stream), "cudaEventRecord");
  }
  /// Milliseconds from `start` to this event (both recorded; waits for this one).
  float since(const CudaEvent& start) const {
    check(cudaEventSynchronize(event_), "cudaEventSynchronize");
    float ms = 0.0f;
    check(cudaEventElapsedTime(&ms, start.event_, event_), "cudaEventElapsedTime");
    return ms;
  }

 private:
  cudaEvent_t event_ = nullptr;
};

// ---- the CG kernels ----------------------------------------------------------------------------
//
// Vectors are plain device arrays of n values in the plan's order. Dot products are reduced in
// double (also for fp32 vectors) in two deterministic passes: every block of a grid-stride kernel
// writes one partial sum to partials[blockIdx.x], then one block adds the partials up and updates
// the scalars of CG, which stay on the device (no host round trip per iteration).

constexpr int kThreads = 256;          ///< threads per block of every kernel here
constexpr int kMaxBlocks = 1024;       ///< partial sums per reduction (grid-stride beyond that)
constexpr int kWarpSize = 32;

/// CG's scalars, on the device.
struct CgScalars {
  double rr = 0.0;     ///< r.r of the current residual
  double alpha = 0.0;  ///< rr / p.Ap
  double beta = 0.0;   ///< rr_new / rr_old
  int breakdown = 0;   ///< 1 + the iteration where p.Ap <= 0 or not finite (not SPD), else 0
};

/// The sum of `value` over the block, valid in thread 0. Every thread of the block must call it.
__device__ double block_sum(double value) {
  __shared__ double warp_sums[kThreads / kWarpSize];
  for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
    value += __shfl_down_sync(0xffffffffu, value, offset);
  const int lane = threadIdx.x % kWarpSize, warp = threadIdx.x / kWarpSize;
  if (lane == 0) warp_sums[warp] = value;
  __syncthreads();
  double total = 0.0;
  if (warp == 0) {
    total = lane < kThreads / kWarpSize ? warp_sums[lane] : 0.0;
    for (int offset = kWarpSize / 2; offset > 0; offset /= 2)
      total += __shfl_down_sync(0xffffffffu, total, offset);
  }
  return total;
}

/// partials[block] = the block's share of sum_i a[i] * b[i].
template <typename Value>
__global__ void __launch_bounds__(kThreads)
    dot_partials(const Value* __restrict__ a, const Value* __restrict__ b, std::int64_t n,
                 double* __restrict__ partials) {
  double sum = 0.0;
  const std::int64_t stride = std::int64_t{gridDim.x} * kThreads;
  for (std::int64_t i = std::int64_t{blockIdx.x} * kThreads + threadIdx.x; i < n; i += stride)
    sum += static_cast<double>(a[i]) * static_cast<double>(b[i]);
  sum = block_sum(sum);
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

/// The sum of partials[0 .. count), valid in thread 0 (one block of kThreads threads).
__device__ double sum_partials(const double* partials, int count) {
  double sum = 0.0;
  for (int i = threadIdx.x; i < count; i += kThreads) sum += partials[i];
  return block_sum(sum);
}

/// rr = r.r (initial residual). One block.
__global__ void __launch_bounds__(kThreads)
    finish_initial_rr(const double* partials, int count, CgScalars* scalars, double* rr_history) {
  const double rr = sum_partials(partials, count);
  if (threadIdx.x == 0) {
    scalars->rr = rr;
    scalars->breakdown = 0;
    rr_history[0] = rr;
  }
}

/// alpha = rr / p.Ap, or 0 (and breakdown recorded once) when p.Ap is not positive and finite
/// while the residual is not zero yet. One block.
__global__ void __launch_bounds__(kThreads)
    finish_alpha(const double* partials, int count, CgScalars* scalars, int iteration) {
  const double pAp = sum_partials(partials, count);
  if (threadIdx.x == 0) {
    const bool positive = pAp > 0.0 && isfinite(pAp);
    scalars->alpha = positive ? scalars->rr / pAp : 0.0;
    if (!positive && scalars->rr > 0.0 && scalars->breakdown == 0)
      scalars->breakdown = iteration + 1;
  }
}

/// x += alpha p; r -= alpha Ap; partials[block] = the block's share of the new r.r.
template <typename Value>
__global__ void __launch_bounds__(kThreads)
    update_x_r(Value* __restrict__ x, Value* __restrict__ r, const Value* __restrict__ p,
               const Value* __restrict__ Ap, std::int64_t n, const CgScalars* __restrict__ scalars,
               double* __restrict__ partials) {
  const auto alpha = static_cast<Value>(scalars->alpha);
  double sum = 0.0;
  const std::int64_t stride = std::int64_t{gridDim.x} * kThreads;
  for (std::int64_t i = std::int64_t{blockIdx.x} * kThreads + threadIdx.x; i < n; i += stride) {
    x[i] += alpha * p[i];
    const Value ri = r[i] - alpha * Ap[i];
    r[i] = ri;
    sum += static_cast<double>(ri) * static_cast<double>(ri);
  }
  sum = block_sum(sum);
  if (threadIdx.x == 0) partials[blockIdx.x] = sum;
}

/// beta = rr_new / rr_old (0 once the residual is exactly zero); rr = rr_new, also written to
/// rr_history[iteration + 1] for the host's convergence checks. One block.
__global__ void __launch_bounds__(kThreads)
    finish_beta(const double* partials, int count, CgScalars* scalars, double* rr_history,
                int iteration) {
  const double rr_new = sum_partials(partials, count);
  if (threadIdx.x == 0) {
    scalars->beta = scalars->rr > 0.0 ? rr_new / scalars->rr : 0.0;
    scalars->rr = rr_new;
    rr_history[iteration + 1] = rr_new;
  }
}

/// p = r + beta p.
template <typename Value>
__global__ void __launch_bounds__(kThreads)
    update_p(Value* __restrict__ p, const Value* __restrict__ r, std::int64_t n,
             const CgScalars* __restrict__ scalars) {
  const auto beta = static_cast<Value>(scalars->beta);
  const std::int64_t stride = std::int64_t{gridDim.x} * kThreads;
  for (std::int64_t i = std::int64_t{blockIdx.x} * kThreads + threadIdx.x; i < n; i += stride)
    p[i] = r[i] + beta * p[i];
}

/// y[i] = value.
template <typename Value>
__global__ void __launch_bounds__(kThreads) fill(Value* y, std::int64_t n, Value value) {
  const std::int64_t stride = std::int64_t{gridDim.x} * kThreads;
  for (std::int64_t i = std::int64_t{blockIdx.x} * kThreads + threadIdx.x; i < n; i += stride)
    y[i] = value;
}

/// y[i] = a[i] - b[i].
template <typename Value>
__global__ void __launch_bounds__(kThreads)
    difference(const Value* __restrict__ a, const Value* __restrict__ b, Value* __restrict__ y,
               std::int64_t n) {
  const std::int64_t stride = std::int64_t{gridDim.x} * kThreads;
  for (std::int64_t i = std::int64_t{blockIdx.x} * kThreads + threadIdx.x; i < n; i += stride)
    y[i] = a[i] - b[i];
}

int blocks_for(std::int64_t n) {
  return static_cast<int>(std::clamp<std::int64_t>((n + kThreads - 1) / kThreads, 1, kMaxBlocks));
}

void check_launch(const char* kernel) { check(cudaGetLastError(), kernel); }

// ---- the solver --------------------------------------------------------------------------------

struct Options {
  std::string matrix;
  std::string precision = "fp64";
  double tolerance = 1e-8;
  int max_iterations = 2000;
  std::string method = "auto";
  int check_every = 10;
  int repeats = 3;
};

struct Solve {
  int iterations = 0;            ///< first iteration whose residual met the tolerance (or max)
  int iterations_run = 0;        ///< iterations executed (up to the next convergence check)
  bool converged = false;
  double recurrence_residual = 0.0;  ///< sqrt(rr) / ||b|| at `iterations`
  double ms = 0.0;               ///< CUDA events around the whole solve
};

/// CG for the plan's matrix; vectors of n values. Reusable for several solves.
template <typename Value>
class ConjugateGradient {
 public:
  ConjugateGradient(const tcsparse::SpmvPlan<Value>& plan, cudaStream_t stream,
                    int max_iterations)
      : plan_(plan), stream_(stream), n_(plan.rows()), blocks_(blocks_for(n_)),
        x_(n_), r_(n_), p_(n_), Ap_(n_), b_(n_), partials_(kMaxBlocks), scalars_(1),
        rr_history_(static_cast<std::size_t>(max_iterations) + 1),
        rr_host_(static_cast<std::size_t>(max_iterations) + 1) {
    // b = A * ones: the exact solution is all ones (in the plan's order too: a permutation of
    // ones is ones, and the plan applies P A P^T when it works in its own row order).
    fill<Value><<<blocks_, kThreads, 0, stream_>>>(x_.get(), n_, Value(1));
    check_launch("fill");
    plan_.apply(x_.get(), b_.get(), 1, 0, stream_);
    b_norm_ = std::sqrt(dot(b_.get(), b_.get()));
    if (!(b_norm_ > 0.0) || !std::isfinite(b_norm_))
      throw std::runtime_error("b = A * ones has norm " + std::to_string(b_norm_) +
                               ": not a usable right-hand side (rows summing to zero?)");
  }

  double b_norm() const { return b_norm_; }

  Solve solve(double tolerance, int max_iterations, int check_every) {
    CudaEvent start, stop;
    start.record(stream_);
    // x = 0, r = b, p = r, rr = r.r
    check(cudaMemsetAsync(x_.get(), 0, n_ * sizeof(Value), stream_), "cudaMemsetAsync");
    const std::size_t bytes = static_cast<std::size_t>(n_) * sizeof(Value);
    check(cudaMemcpyAsync(r_.get(), b_.get(), bytes, cudaMemcpyDeviceToDevice, stream_),
          "cudaMemcpyAsync");
    check(cudaMemcpyAsync(p_.get(), b_.get(), bytes, cudaMemcpyDeviceToDevice, stream_),
          "cudaMemcpyAsync");
    dot_partials<Value><<<blocks_, kThreads, 0, stream_>>>(r_.get(), r_.get(), n_, partials_.get());
    check_launch("dot_partials");
    finish_initial_rr<<<1, kThreads, 0, stream_>>>(partials_.get(), blocks_, scalars_.get(),
                                                  rr_history_.get());
    check_launch("finish_initial_rr");

    // Relative residual sqrt(rr) / ||b|| <= tolerance  <=>  rr <= threshold.
    const double threshold = tolerance * tolerance * b_norm_ * b_norm_;
    Solve result;
    int checked = 0;  // rr_history[0 .. checked) is known on the host
    for (int k = 0; k < max_iterations && !result.converged; ++k) {
      iterate(k);
      result.iterations_run = k + 1;
      if ((k + 1) % check_every == 0 || k + 1 == max_iterations)
        checked = read_back(checked, k + 2, threshold, result);
    }
    stop.record(stream_);
    result.ms = stop.since(start);
    if (!result.converged) {
      result.iterations = result.iterations_run;
      result.recurrence_residual = std::sqrt(rr_host_[result.iterations]) / b_norm_;
    }
    return result;
  }

  /// ||b - A x|| / ||b|| recomputed from x, and max |x_i - 1| (the exact solution is all ones).
  std::pair<double, double> true_residual_and_error() {
    plan_.apply(x_.get(), Ap_.get(), 1, 0, stream_);
    difference<Value><<<blocks_, kThreads, 0, stream_>>>(b_.get(), Ap_.get(), r_.get(), n_);
    check_launch("difference");
    const double residual = std::sqrt(dot(r_.get(), r_.get())) / b_norm_;
    std::vector<Value> x(static_cast<std::size_t>(n_));
    check(cudaMemcpyAsync(x.data(), x_.get(), n_ * sizeof(Value), cudaMemcpyDeviceToHost, stream_),
          "cudaMemcpyAsync");
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    double error = 0.0;
    for (const Value xi : x) error = std::max(error, std::fabs(static_cast<double>(xi) - 1.0));
    return {residual, error};
  }

 private:
  /// One CG iteration, k = 0, 1, ...: all on the stream, no host round trip.
  void iterate(int k) {
    plan_.apply(p_.get(), Ap_.get(), 1, 0, stream_);
    dot_partials<Value>
        <<<blocks_, kThreads, 0, stream_>>>(p_.get(), Ap_.get(), n_, partials_.get());
    check_launch("dot_partials");
    finish_alpha<<<1, kThreads, 0, stream_>>>(partials_.get(), blocks_, scalars_.get(), k);
    check_launch("finish_alpha");
    update_x_r<Value><<<blocks_, kThreads, 0, stream_>>>(x_.get(), r_.get(), p_.get(), Ap_.get(),
                                                         n_, scalars_.get(), partials_.get());
    check_launch("update_x_r");
    finish_beta<<<1, kThreads, 0, stream_>>>(partials_.get(), blocks_, scalars_.get(),
                                            rr_history_.get(), k);
    check_launch("finish_beta");
    update_p<Value><<<blocks_, kThreads, 0, stream_>>>(p_.get(), r_.get(), n_, scalars_.get());
    check_launch("update_p");
  }

  /// Copies rr_history[from .. to) to the host (waits for the stream), checks for a breakdown and
  /// finds the first iteration that met the threshold. Returns `to`.
  int read_back(int from, int to, double threshold, Solve& result) {
    check(cudaMemcpyAsync(&rr_host_[from], rr_history_.get() + from, (to - from) * sizeof(double),
                          cudaMemcpyDeviceToHost, stream_),
          "cudaMemcpyAsync");
    check(cudaMemcpyAsync(&breakdown_host_, &scalars_.get()->breakdown, sizeof(int),
                          cudaMemcpyDeviceToHost, stream_),
          "cudaMemcpyAsync");
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    for (int k = from; k < to; ++k) {
      if (!std::isfinite(rr_host_[k]))
        throw std::runtime_error("CG broke down: the residual is not finite at iteration " +
                                 std::to_string(k) + " (is the matrix SPD, the precision enough?)");
      if (rr_host_[k] <= threshold) {
        result.converged = true;
        result.iterations = k;
        result.recurrence_residual = std::sqrt(rr_host_[k]) / b_norm_;
        return to;
      }
    }
    if (breakdown_host_ != 0)
      throw std::runtime_error("CG broke down at iteration " + std::to_string(breakdown_host_ - 1) +
                               ": p^T A p <= 0, so the matrix is not positive definite");
    return to;
  }

  double dot(const Value* a, const Value* b) {
    dot_partials<Value><<<blocks_, kThreads, 0, stream_>>>(a, b, n_, partials_.get());
    check_launch("dot_partials");
    std::vector<double> partials(static_cast<std::size_t>(blocks_));
    check(cudaMemcpyAsync(partials.data(), partials_.get(), blocks_ * sizeof(double),
                          cudaMemcpyDeviceToHost, stream_),
          "cudaMemcpyAsync");
    check(cudaStreamSynchronize(stream_), "cudaStreamSynchronize");
    double sum = 0.0;
    for (const double partial : partials) sum += partial;
    return sum;
  }

  const tcsparse::SpmvPlan<Value>& plan_;
  cudaStream_t stream_;
  std::int64_t n_;
  int blocks_;
  DeviceArray<Value> x_, r_, p_, Ap_, b_;
  DeviceArray<double> partials_;
  DeviceArray<CgScalars> scalars_;
  DeviceArray<double> rr_history_;
  PinnedArray<double> rr_host_;
  int breakdown_host_ = 0;
  double b_norm_ = 0.0;
};

struct Measurement {
  std::string method;        ///< as resolved (auto -> the method it chose)
  double build_ms = 0.0;     ///< wall clock of the plan constructor, device work finished
  tcsparse::PlanStats stats;
  Solve solve;               ///< the median solve
  double ms_per_iteration = 0.0;
  double true_residual = 0.0, max_error = 0.0;
};

template <typename Value>
Measurement measure(const tcsparse::CsrMatrix<Value, std::int32_t>& A, const std::string& method,
                    const Options& options, const CudaStream& stream) {
  Measurement m;
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  const auto begin = std::chrono::steady_clock::now();
  const tcsparse::SpmvPlan<Value> plan(A, method);
  check(cudaDeviceSynchronize(), "cudaDeviceSynchronize");
  m.build_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - begin).count();
  m.method = std::string(plan.method().name());
  m.stats = plan.stats();

  ConjugateGradient<Value> cg(plan, stream.get(), options.max_iterations);
  cg.solve(options.tolerance, options.max_iterations, options.check_every);  // warm-up
  std::vector<Solve> solves;
  for (int i = 0; i < options.repeats; ++i)
    solves.push_back(cg.solve(options.tolerance, options.max_iterations, options.check_every));
  const auto per_iteration = [](const Solve& s) { return s.ms / std::max(s.iterations_run, 1); };
  std::sort(solves.begin(), solves.end(),
            [&](const Solve& a, const Solve& b) { return per_iteration(a) < per_iteration(b); });
  m.solve = solves[solves.size() / 2];
  m.ms_per_iteration = per_iteration(m.solve);
  std::tie(m.true_residual, m.max_error) = cg.true_residual_and_error();
  return m;
}

void print(const Measurement& m, const Options& options) {
  std::printf("method %s\n", m.method.c_str());
  std::printf("  plan build      %.3f ms (host preprocess %.3f, upload %.3f, "
              "device preprocess %.3f)\n",
              m.build_ms, m.stats.host_preprocess_ms, m.stats.upload_ms,
              m.stats.device_preprocess_ms);
  std::printf("  iterations      %d%s (tolerance %.3g)\n", m.solve.iterations,
              m.solve.converged ? "" : " (NOT converged: max iterations reached)",
              options.tolerance);
  std::printf("  relative residual %.3e (recurrence %.3e), max |x - 1| %.3e\n", m.true_residual,
              m.solve.recurrence_residual, m.max_error);
  std::printf("  time per iteration %.4f ms (median of %d solves, %d iterations run, "
              "convergence read back every %d)\n",
              m.ms_per_iteration, options.repeats, m.solve.iterations_run, options.check_every);
}

/// (build_ms - build_ms_baseline) / (ms_per_iter_baseline - ms_per_iter): the iterations after
/// which the plan's faster iterations have paid for its slower build.
void print_break_even(const Measurement& m, const Measurement& baseline) {
  const double extra_build = m.build_ms - baseline.build_ms;
  const double saved_per_iteration = baseline.ms_per_iteration - m.ms_per_iteration;
  std::printf("break-even against %s: ", baseline.method.c_str());
  if (saved_per_iteration <= 0.0)
    std::printf("never (%s is not faster per iteration: %.4f vs %.4f ms)\n", m.method.c_str(),
                m.ms_per_iteration, baseline.ms_per_iteration);
  else if (extra_build <= 0.0)
    std::printf("from the first iteration (%s builds faster too)\n", m.method.c_str());
  else
    std::printf("%.0f iterations ((%.3f - %.3f) ms / (%.4f - %.4f) ms)\n",
                std::ceil(extra_build / saved_per_iteration), m.build_ms, baseline.build_ms,
                baseline.ms_per_iteration, m.ms_per_iteration);
}

/// Throws when A is not square or not symmetric (pattern and values): CG needs an SPD matrix.
template <typename Value>
void require_symmetric(const tcsparse::CsrMatrix<Value, std::int32_t>& A) {
  if (A.rows != A.cols)
    throw std::runtime_error("the matrix is " + std::to_string(A.rows) + " x " +
                             std::to_string(A.cols) + ": CG needs a square SPD matrix");
  // The transpose by counting sort; a canonical CSR's transpose has sorted columns too.
  std::vector<std::int32_t> t_ptr(static_cast<std::size_t>(A.cols) + 1, 0);
  for (const std::int32_t c : A.col_idx) ++t_ptr[c + 1];
  for (std::int32_t c = 0; c < A.cols; ++c) t_ptr[c + 1] += t_ptr[c];
  std::vector<std::int32_t> t_col(A.col_idx.size()), next(t_ptr.begin(), t_ptr.end() - 1);
  std::vector<Value> t_val(A.values.size());
  for (std::int32_t i = 0; i < A.rows; ++i)
    for (std::int32_t k = A.row_ptr[i]; k < A.row_ptr[i + 1]; ++k) {
      const std::int32_t slot = next[A.col_idx[k]]++;
      t_col[slot] = i;
      t_val[slot] = A.values[k];
    }
  if (t_ptr != A.row_ptr || t_col != A.col_idx || t_val != A.values)
    throw std::runtime_error("the matrix is not symmetric: CG needs a symmetric positive "
                             "definite matrix");
}

/// poisson3d:N, or a file.
tcsparse::CsrMatrix<double, std::int32_t> load(const std::string& source) {
  constexpr std::string_view prefix = "poisson3d:";
  if (source.rfind(prefix, 0) == 0) {
    const std::string size = source.substr(prefix.size());
    char* end = nullptr;
    const long long n = std::strtoll(size.c_str(), &end, 10);
    if (size.empty() || *end != '\0' || n < 1)
      throw std::runtime_error("'" + source + "': expected poisson3d:N with N >= 1 (grid N^3)");
    return tcsparse::generate_poisson_3d(n, n, n);
  }
  return tcsparse::read_matrix<double>(source);
}

template <typename Value>
int run(const Options& options) {
  auto A64 = load(options.matrix);
  require_symmetric(A64);
  if (A64.rows == 0) throw std::runtime_error("the matrix is empty: nothing to solve");
  tcsparse::CsrMatrix<Value, std::int32_t> A;
  if constexpr (std::is_same_v<Value, double>) A = std::move(A64);
  else A = tcsparse::convert_values<Value>(A64);
  std::printf("matrix %s: %d x %d, %d nonzeros, %s\n", options.matrix.c_str(), A.rows, A.cols,
              A.nnz(), options.precision.c_str());

  CudaStream stream;
  const Measurement m = measure(A, options.method, options, stream);
  print(m, options);
  if (m.method != "cusparse") {
    const Measurement baseline = measure(A, "cusparse", options, stream);
    print(baseline, options);
    print_break_even(m, baseline);
  }
  return m.solve.converged ? 0 : 1;
}

[[noreturn]] void usage(const std::string& problem) {
  if (!problem.empty()) std::fprintf(stderr, "cg: error: %s\n", problem.c_str());
  std::fprintf(stderr,
               "usage: cg MATRIX [--precision fp64|fp32] [--tol T] [--max-iter N] [--method M]\n"
               "                 [--check-every N] [--repeats N]\n"
               "  MATRIX  an SPD matrix file (.mtx, .mtx.gz, .smtx) or poisson3d:N (N^3 rows)\n"
               "  defaults: fp64, tol 1e-8, max-iter 2000, method auto, check-every 10,\n"
               "            repeats 3\n");
  std::exit(problem.empty() ? 0 : 1);
}

Options parse(int argc, char** argv) {
  Options options;
  std::vector<std::string> args(argv + 1, argv + argc);
  const auto number = [](const std::string& flag, const std::string& text, double lowest,
                         double highest) {
    char* end = nullptr;
    const double value = std::strtod(text.c_str(), &end);
    if (text.empty() || *end != '\0' || !(value >= lowest && value <= highest))
      usage(flag + " " + text + ": expected a number in [" + std::to_string(lowest) + ", " +
            std::to_string(highest) + "]");
    return value;
  };
  const auto integer = [&](const std::string& flag, const std::string& text, int lowest,
                           int highest) {
    const double value = number(flag, text, lowest, highest);
    if (value != std::floor(value)) usage(flag + " " + text + ": expected an integer");
    return static_cast<int>(value);
  };
  for (std::size_t i = 0; i < args.size(); ++i) {
    const std::string& arg = args[i];
    if (arg == "-h" || arg == "--help") usage("");
    if (arg.rfind("--", 0) == 0) {
      if (i + 1 >= args.size()) usage(arg + " needs a value");
      const std::string& value = args[++i];
      if (arg == "--precision") options.precision = value;
      else if (arg == "--tol") options.tolerance = number(arg, value, 0.0, 1.0);
      else if (arg == "--max-iter") options.max_iterations = integer(arg, value, 1, 1000000);
      else if (arg == "--method") options.method = value;
      else if (arg == "--check-every") options.check_every = integer(arg, value, 1, 1000000);
      else if (arg == "--repeats") options.repeats = integer(arg, value, 1, 1000);
      else usage("unknown option " + arg);
    } else if (options.matrix.empty()) {
      options.matrix = arg;
    } else {
      usage("more than one matrix given ('" + options.matrix + "', '" + arg + "')");
    }
  }
  if (options.matrix.empty()) usage("no matrix given");
  if (options.precision == "double") options.precision = "fp64";
  if (options.precision == "float") options.precision = "fp32";
  if (options.precision != "fp64" && options.precision != "fp32")
    usage("--precision " + options.precision + ": CG runs in fp64 or fp32");
  return options;
}

}  // namespace

int main(int argc, char** argv) {
  const Options options = parse(argc, argv);
  try {
    // An unknown method name is an Error listing the registered ones.
    static_cast<void>(tcsparse::Method(options.method));
    // Before reading a large file: a clear message on a machine without a GPU.
    if (!tcsparse::cuda_device_available()) {
      std::fprintf(stderr, "cg: no CUDA device found: this example needs an NVIDIA GPU\n");
      return kExitNoDevice;
    }
    return options.precision == "fp64" ? run<double>(options) : run<float>(options);
  } catch (const tcsparse::NoDeviceError& error) {
    std::fprintf(stderr, "cg: %s\n", error.what());
    return kExitNoDevice;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "cg: error: %s\n", error.what());
    return 1;
  }
}
