// tcsparse_shared_x_probe: where x fits the L2 but is read at random, can a kernel that reads x
// from shared memory beat the L2's gather rate? (issue 10: HBP runs such matrices at 0.5-0.9x
// cuSPARSE, which itself runs at the L2 gather ceiling, ~127 G gathers/s on an H200.)
//
// The probe's layout (built on the host, no reordering): the rows cut into one contiguous range
// a thread block (as many blocks as run at once, equal nonzeros), the columns into stripes of W
// columns that two shared-memory stages hold beside the range's sums. Entries of a (range,
// stripe) in row order, each a 32-bit key (row in range << 16 | column in stripe) and a value:
//
//   range r (block r):   stripe 0 entries | stripe 1 entries | ... | stripe S-1 entries
//   shared memory:       [ 2 barriers ][ x stage 0: W ][ x stage 1: W ][ sums of the range's rows ]
//
//   stripe s: (optionally: one thread starts fetching stripe s + 1's entries into the L2)
//             wait for stage s % 2 (bulk copy, or with clusters of C blocks each block copies
//             1/C of the stripe to every block of its cluster: the L2 reads x once a cluster);
//             each warp takes 32 consecutive entries at a time (4 batches in flight): product
//             with x from shared memory, a segmented sum over its lanes by row, the last lane
//             of each row's run adds it to the row's sum (a shared-memory atomic: y is not
//             bitwise repeatable here); barrier; stripe s + 2 into the stage.
//   end:      y = alpha * sums + beta * y for the range's rows.
//
// For each matrix, fp64 and fp16: the median of 30 timed applies (CUDA events, 5 warm-up) of
// the library's cusparse and hbp methods and of this kernel (1, 2 or 4 blocks an SM, with and
// without the prefetch; clusters of 2 and 4 with it), each checked against cuSPARSE's y; with
// the x bytes the stripes' copies read from the L2. Results and what they say:
// bench/results/2026-11-29-2300-h200-shared-x-probe/README.md.
//
//   tcsparse_shared_x_probe [generator spec ...]
// Built for sm_90a only (the multicast bulk copy); a probe, not part of the library.
#include <cuda_runtime_api.h>

#include <algorithm>
#include <cmath>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <stdexcept>
#include <string>
#include <vector>

#include "arch/async_copy.cuh"
#include "arch/cluster.cuh"
#include "arch/launch.cuh"
#include "arch/load.cuh"
#include "arch/types.cuh"
#include "arch/warp.cuh"
#include "probe_support.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_buffer.hpp"
#include "tcsparse/csr.hpp"
#include "tcsparse/generate.hpp"
#include "tcsparse/plan.hpp"

namespace {

namespace arch = tcsparse::arch;
using tcsparse::bench::median_ms;
using tcsparse::detail::CudaStream;
using tcsparse::detail::DeviceBuffer;

constexpr int kThreadsPerSm = 1024;
constexpr int kBatches = 4;             // rounds of 32 entries a warp loads before using them
constexpr int kMaxStripeColumns = 65536;  // a column in its stripe in 16 bits
constexpr int kMaxRangeRows = 65535;      // a row in its range in 16 bits (0xffff: no entry)
constexpr int kBarrierBytes = 16;         // two mbarriers, at the start of shared memory

/// One bulk copy of `bytes` to the same shared-memory offset in every block of `mask`, each
/// block's barrier at `barrier`'s offset counting them (sm_90a).
__device__ __forceinline__ void bulk_copy_multicast(void* destination, const void* source,
                                                    unsigned bytes, std::uint64_t* barrier,
                                                    std::uint16_t mask) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  asm volatile(
      "cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes.multicast::cluster"
      " [%0], [%1], %2, [%3], %4;" ::"r"(arch::shared_address(destination)),
      "l"(arch::global_address(source)), "r"(bytes), "r"(arch::shared_address(barrier)), "h"(mask)
      : "memory");
#else
  __trap();
#endif
}

struct KernelArgs {
  int stripes;
  int stripe_columns;
  const std::int32_t* range_row_begin;  // ranges + 1
  const std::int64_t* entry_begin;      // ranges * stripes + 1
  const std::uint32_t* keys;
  const void* values;
  const void* x;  // stripes * stripe_columns values (zeros past the columns)
  void* y;
  double alpha, beta;
};

/// Starts fetching [address, address + bytes) into the L2 (one bulk prefetch; sm_90). The range
/// is widened to 16-byte bounds (the arrays are padded for it).
__device__ __forceinline__ void bulk_prefetch_to_l2(const void* address, long long bytes) {
#if defined(__CUDA_ARCH__) && __CUDA_ARCH__ >= 900
  const auto begin = reinterpret_cast<std::uintptr_t>(address) & ~std::uintptr_t{15};
  const auto end = (reinterpret_cast<std::uintptr_t>(address) + static_cast<std::uintptr_t>(bytes) + 15) &
                   ~std::uintptr_t{15};
  for (std::uintptr_t at = begin; at < end; at += (1u << 20)) {
    const unsigned piece = static_cast<unsigned>(end - at < (1u << 20) ? end - at : (1u << 20));
    asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(at), "r"(piece) : "memory");
  }
#endif
}

template <typename V, int kCluster, int kBlocksPerSm, bool kPrefetch>
__global__ void __launch_bounds__(kThreadsPerSm / kBlocksPerSm, kBlocksPerSm) shared_x_kernel(KernelArgs args) {
  constexpr int kThreads = kThreadsPerSm / kBlocksPerSm;
  constexpr int kStages = 2;
  using Acc = arch::acc_t<V>;
  using Traits = arch::ValueTraits<V>;
  extern __shared__ __align__(16) unsigned char shared[];
  const int width = args.stripe_columns;
  // the same offsets in every block: a multicast copy lands at its issuer's offsets
  auto* const barriers = reinterpret_cast<std::uint64_t*>(shared);
  V* const stages = reinterpret_cast<V*>(shared + kBarrierBytes);  // stage k at k * width
  Acc* const sums = reinterpret_cast<Acc*>(shared + kBarrierBytes + 2 * width * sizeof(V));
  const int range = static_cast<int>(blockIdx.x);
  const std::int32_t first_row = args.range_row_begin[range];
  const int rows = args.range_row_begin[range + 1] - first_row;
  const V* const x = static_cast<const V*>(args.x);
  const V* const values = static_cast<const V*>(args.values);
  const int lane = arch::lane_id();
  const int warp = static_cast<int>(threadIdx.x) / arch::kWarpSize;
  const unsigned stripe_bytes = static_cast<unsigned>(width * sizeof(V));

  if (threadIdx.x == 0) {
    for (int k = 0; k < kStages; ++k) arch::barrier_init(&barriers[k], 1);
  }
  for (int i = static_cast<int>(threadIdx.x); i < rows; i += kThreads) sums[i] = Acc(0);
  if constexpr (kCluster > 1) arch::cluster_sync();
  else __syncthreads();

  unsigned rank = 0;
  if constexpr (kCluster > 1) rank = arch::cluster_block_rank();
  auto issue = [&](int s) {
    std::uint64_t* barrier = &barriers[s % kStages];
    arch::barrier_arrive_expect_bytes(barrier, stripe_bytes);
    const V* source = x + static_cast<std::int64_t>(s) * width;
    if constexpr (kCluster > 1) {
      const unsigned slice = stripe_bytes / kCluster;
      bulk_copy_multicast(reinterpret_cast<unsigned char*>((stages + (s % kStages) * width)) + rank * slice,
                          reinterpret_cast<const unsigned char*>(source) + rank * slice, slice,
                          barrier, static_cast<std::uint16_t>((1u << kCluster) - 1));
    } else {
      arch::bulk_copy_to_shared((stages + (s % kStages) * width), source, stripe_bytes, barrier);
    }
  };
  if (threadIdx.x == 0) {
    for (int k = 0; k < kStages && k < args.stripes; ++k) issue(k);
  }

  const std::int64_t* const entry_begin = args.entry_begin + static_cast<std::int64_t>(range) * args.stripes;
  auto prefetch = [&](int s) {
    const std::int64_t from = entry_begin[s], count = entry_begin[s + 1] - from;
    bulk_prefetch_to_l2(args.keys + from, count * 4);
    bulk_prefetch_to_l2(values + from, count * static_cast<long long>(sizeof(V)));
  };
  if (kPrefetch && threadIdx.x == 0) prefetch(0);
  for (int s = 0; s < args.stripes; ++s) {
    if (kPrefetch && threadIdx.x == 0 && s + 1 < args.stripes) prefetch(s + 1);
    arch::barrier_wait(&barriers[s % kStages], static_cast<unsigned>((s / kStages) & 1));
    const V* const xs = (stages + (s % kStages) * width);
    const std::int64_t begin = entry_begin[s];
    const std::int64_t end = entry_begin[s + 1];
    for (std::int64_t base = begin + static_cast<std::int64_t>(warp) * arch::kWarpSize * kBatches;
         base < end; base += static_cast<std::int64_t>(kThreads) * kBatches) {
      std::uint32_t key[kBatches];
      V value[kBatches];
#pragma unroll
      for (int b = 0; b < kBatches; ++b) {
        const std::int64_t e = base + b * arch::kWarpSize + lane;
        key[b] = e < end ? arch::load_streaming(args.keys + e) : 0xffffffffu;
        value[b] = e < end ? arch::load_streaming(values + e) : Traits::from_acc(Acc(0));
      }
#pragma unroll
      for (int b = 0; b < kBatches; ++b) {
        const unsigned row = key[b] >> 16;
        Acc sum = row != 0xffffu ? Traits::to_acc(value[b]) * Traits::to_acc(xs[key[b] & 0xffffu])
                                 : Acc(0);
#pragma unroll
        for (int d = 1; d < arch::kWarpSize; d *= 2) {
          const Acc other = __shfl_up_sync(arch::kFullMask, sum, d);
          const unsigned other_row = __shfl_up_sync(arch::kFullMask, row, d);
          if (lane >= d && other_row == row) sum += other;
        }
        const unsigned next_row = __shfl_down_sync(arch::kFullMask, row, 1);
        if (row != 0xffffu && (lane == arch::kWarpSize - 1 || next_row != row))
          atomicAdd(&sums[row], sum);
      }
    }
    if constexpr (kCluster > 1) arch::cluster_sync();  // every block is done with stripe s
    else __syncthreads();
    if (threadIdx.x == 0 && s + 2 < args.stripes) {
      arch::fence_shared_before_bulk_copy();
      issue(s + 2);
    }
  }
  V* const y = static_cast<V*>(args.y) + first_row;
  for (int i = static_cast<int>(threadIdx.x); i < rows; i += kThreads) {
    Acc out = static_cast<Acc>(args.alpha) * sums[i];
    if (args.beta != 0.0) out += static_cast<Acc>(args.beta) * Traits::to_acc(y[i]);
    y[i] = Traits::from_acc(out);
  }
  if constexpr (kCluster > 1) arch::cluster_sync();  // no block leaves while others read it
}

template <typename Value>
struct Layout {
  int ranges = 0, stripes = 0, stripe_columns = 0, max_range_rows = 0;
  std::vector<std::int32_t> range_row_begin;
  std::vector<std::int64_t> entry_begin;
  std::vector<std::uint32_t> keys;
  std::vector<Value> values;
};

/// Rows cut into `ranges` contiguous ranges of about equal nonzeros (a row counted as one more),
/// columns into stripes as wide as shared memory allows beside the largest range's sums.
template <typename Value, typename Acc>
Layout<Value> build_layout(const tcsparse::CsrMatrix<Value>& a, int ranges, int shared_bytes, int stages) {
  Layout<Value> layout;
  layout.ranges = ranges;
  const auto& row_ptr = a.row_ptr;
  const auto& col_idx = a.col_idx;
  const auto& vals = a.values;
  const double total = static_cast<double>(a.nnz()) + a.rows;
  layout.range_row_begin.assign(static_cast<std::size_t>(ranges) + 1, a.rows);
  layout.range_row_begin[0] = 0;
  int r = 1;
  for (std::int32_t row = 0; row < a.rows && r < ranges; ++row) {
    const double done = static_cast<double>(row_ptr[static_cast<std::size_t>(row)]) + row;
    if (done >= total * r / ranges) layout.range_row_begin[static_cast<std::size_t>(r++)] = row;
  }
  for (int i = 0; i < ranges; ++i)
    layout.max_range_rows = std::max(layout.max_range_rows,
                                     layout.range_row_begin[static_cast<std::size_t>(i) + 1] -
                                         layout.range_row_begin[static_cast<std::size_t>(i)]);
  if (layout.max_range_rows > kMaxRangeRows)
    throw std::runtime_error("a range holds more than 65535 rows");
  const long long for_x = shared_bytes - kBarrierBytes -
                          static_cast<long long>(layout.max_range_rows) * static_cast<long long>(sizeof(Acc));
  long long width = for_x / (stages * static_cast<long long>(sizeof(Value)));
  width = std::min<long long>({width / 64 * 64, kMaxStripeColumns, (a.cols + 63) / 64 * 64});
  if (width < 1024) throw std::runtime_error("the range's sums leave less than 1024 columns a stage");
  layout.stripe_columns = static_cast<int>(width);
  layout.stripes = static_cast<int>((a.cols + width - 1) / width);
  const auto cells = static_cast<std::size_t>(ranges) * static_cast<std::size_t>(layout.stripes);
  layout.entry_begin.assign(cells + 1, 0);
  for (int range = 0; range < ranges; ++range)
    for (std::int32_t row = layout.range_row_begin[static_cast<std::size_t>(range)];
         row < layout.range_row_begin[static_cast<std::size_t>(range) + 1]; ++row)
      for (auto j = row_ptr[static_cast<std::size_t>(row)]; j < row_ptr[static_cast<std::size_t>(row) + 1]; ++j)
        ++layout.entry_begin[static_cast<std::size_t>(range) * layout.stripes +
                             static_cast<std::size_t>(col_idx[static_cast<std::size_t>(j)] / width) + 1];
  for (std::size_t i = 0; i < cells; ++i) layout.entry_begin[i + 1] += layout.entry_begin[i];
  layout.keys.resize(static_cast<std::size_t>(a.nnz()));
  layout.values.resize(static_cast<std::size_t>(a.nnz()));
  std::vector<std::int64_t> cursor(layout.entry_begin.begin(), layout.entry_begin.end() - 1);
  for (int range = 0; range < ranges; ++range) {
    const std::int32_t first = layout.range_row_begin[static_cast<std::size_t>(range)];
    for (std::int32_t row = first; row < layout.range_row_begin[static_cast<std::size_t>(range) + 1]; ++row)
      for (auto j = row_ptr[static_cast<std::size_t>(row)]; j < row_ptr[static_cast<std::size_t>(row) + 1]; ++j) {
        const std::int32_t col = col_idx[static_cast<std::size_t>(j)];
        const auto at = static_cast<std::size_t>(
            cursor[static_cast<std::size_t>(range) * layout.stripes + static_cast<std::size_t>(col / width)]++);
        layout.keys[at] = static_cast<std::uint32_t>(row - first) << 16 |
                          static_cast<std::uint32_t>(col % width);
        layout.values[at] = vals[static_cast<std::size_t>(j)];
      }
  }
  return layout;
}

double to_double(double v) { return v; }
double to_double(tcsparse::half v) { return static_cast<double>(v); }

template <typename Value>
double largest_difference(const std::vector<Value>& y, const std::vector<Value>& reference) {
  double difference = 0.0;
  for (std::size_t i = 0; i < y.size(); ++i) {
    const double a = to_double(y[i]), b = to_double(reference[i]);
    difference = std::max(difference, std::abs(a - b) / (1.0 + std::abs(b)));
  }
  return difference;
}

template <typename Value, int kCluster, int kBlocksPerSm, bool kPrefetch>
void probe_kernel(const tcsparse::CsrMatrix<Value>& a, const DeviceBuffer<Value>& x_padded,
                  const std::vector<Value>& reference, double cusparse_ms, int sms,
                  CudaStream& stream) {
  using V = arch::device_value_t<Value>;
  using Acc = arch::acc_t<V>;
  constexpr int kThreads = kThreadsPerSm / kBlocksPerSm;
  auto* kernel = shared_x_kernel<V, kCluster, kBlocksPerSm, kPrefetch>;
  int shared_limit = 0, shared_per_sm = 0;
  TCSPARSE_CUDA_CHECK(cudaDeviceGetAttribute(&shared_limit, cudaDevAttrMaxSharedMemoryPerBlockOptin, 0));
  TCSPARSE_CUDA_CHECK(cudaDeviceGetAttribute(&shared_per_sm, cudaDevAttrMaxSharedMemoryPerMultiprocessor, 0));
  // the driver reserves 1 KiB a block
  shared_limit = std::min(shared_limit, shared_per_sm / kBlocksPerSm - 1024);
  TCSPARSE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeMaxDynamicSharedMemorySize, shared_limit));
  if (kCluster > 1)
    TCSPARSE_CUDA_CHECK(cudaFuncSetAttribute(kernel, cudaFuncAttributeNonPortableClusterSizeAllowed, 1));
  int ranges = sms * kBlocksPerSm;
  if (kCluster > 1) {
    const int clusters = arch::max_active_clusters(kernel, dim3(static_cast<unsigned>(ranges)), dim3(kThreads),
                                                   static_cast<std::size_t>(shared_limit), kCluster);
    if (clusters == 0) {
      std::printf("    clusters of %d, %d a SM: none fits\n", kCluster, kBlocksPerSm);
      return;
    }
    ranges = clusters * kCluster;
  }
  Layout<Value> layout;
  try {
    layout = build_layout<Value, Acc>(a, ranges, shared_limit, 2);
  } catch (const std::exception& error) {
    std::printf("    clusters of %d, %d a SM: %s\n", kCluster, kBlocksPerSm, error.what());
    return;
  }
  if (static_cast<std::int64_t>(layout.stripes) * layout.stripe_columns > static_cast<std::int64_t>(x_padded.size()))
    throw std::runtime_error("x not padded enough");
  const DeviceBuffer<std::int32_t> range_row_begin(layout.range_row_begin);
  const DeviceBuffer<std::int64_t> entry_begin(layout.entry_begin);
  layout.keys.resize(layout.keys.size() + 16);  // the prefetch's 16-byte bounds
  layout.values.resize(layout.values.size() + 16, Value(0.0));
  const DeviceBuffer<std::uint32_t> keys(layout.keys);
  const DeviceBuffer<Value> values(layout.values);
  DeviceBuffer<Value> y(static_cast<std::size_t>(a.rows));
  const KernelArgs args{layout.stripes, layout.stripe_columns, range_row_begin.data(), entry_begin.data(),
                        keys.data(), values.data(), x_padded.data(), y.data(), 1.0, 0.0};
  arch::LaunchOptions options;
  options.cluster_blocks = kCluster;
  const double ms = median_ms(
      [&] {
        TCSPARSE_CUDA_CHECK(arch::launch_kernel(kernel, dim3(static_cast<unsigned>(ranges)), dim3(kThreads),
                                                static_cast<std::size_t>(shared_limit), stream.get(), options, args));
      },
      stream.get());
  const double difference = largest_difference(y.download(), reference);
  const double x_bytes = static_cast<double>(ranges) / kCluster * layout.stripes * layout.stripe_columns * sizeof(Value);
  const double matrix_bytes = static_cast<double>(a.nnz()) * (4 + sizeof(Value));
  std::int64_t most_entries = 0;
  for (int r = 0; r < ranges; ++r)
    most_entries = std::max(most_entries, layout.entry_begin[static_cast<std::size_t>(r + 1) * layout.stripes] -
                                              layout.entry_begin[static_cast<std::size_t>(r) * layout.stripes]);
  std::printf("    clusters of %d, %d a SM%s: %4d ranges (<= %5d rows, most entries %.2fx the mean), %3d stripes "
              "of %5d: %8.4f ms %5.2fx cusparse"
              "  (x from L2 %.0f MB, matrix %.0f MB, %.2f TB/s of both; difference %.1e)\n",
              kCluster, kBlocksPerSm, kPrefetch ? ", entries prefetched" : "", ranges, layout.max_range_rows,
              static_cast<double>(most_entries) * ranges / std::max<std::int64_t>(1, a.nnz()),
              layout.stripes, layout.stripe_columns, ms,
              cusparse_ms / ms, x_bytes * 1e-6, matrix_bytes * 1e-6, (x_bytes + matrix_bytes) / ms * 1e-9,
              difference);
  std::fflush(stdout);
}

template <typename Value>
void probe(const std::string& name, const tcsparse::CsrMatrix<Value>& a, int sms, const char* precision) {
  std::vector<Value> host_x(static_cast<std::size_t>(a.cols + kMaxStripeColumns), Value(0.0));
  for (std::int64_t i = 0; i < a.cols; ++i) host_x[static_cast<std::size_t>(i)] = Value(1.0 + static_cast<double>(i % 7) * 0.125);
  const DeviceBuffer<Value> x(host_x);
  DeviceBuffer<Value> y(static_cast<std::size_t>(a.rows));
  CudaStream stream;
  const tcsparse::SpmvPlan<Value> cusparse(a, tcsparse::Method("cusparse"));
  const double cusparse_ms = median_ms([&] { cusparse.apply(x.data(), y.data(), 1.0, 0.0, stream.get()); }, stream.get());
  const std::vector<Value> reference = y.download();
  const tcsparse::SpmvPlan<Value> hbp(a, tcsparse::Method("hbp"));
  const double hbp_ms = median_ms([&] { hbp.apply(x.data(), y.data(), 1.0, 0.0, stream.get()); }, stream.get());
  std::printf("%s %s: %d x %d, %lld nonzeros (%.1f a column); cusparse %.4f ms (%.0f G nonzeros/s), hbp %.4f ms "
              "(%.2fx; difference %.1e)\n",
              name.c_str(), precision, static_cast<int>(a.rows), static_cast<int>(a.cols),
              static_cast<long long>(a.nnz()), static_cast<double>(a.nnz()) / std::max<std::int64_t>(1, a.cols),
              cusparse_ms, static_cast<double>(a.nnz()) / cusparse_ms * 1e-6, hbp_ms, cusparse_ms / hbp_ms,
              largest_difference(y.download(), reference));
  std::fflush(stdout);
  // (clusters, blocks an SM, prefetch): the variants of the README's table
  probe_kernel<Value, 1, 1, false>(a, x, reference, cusparse_ms, sms, stream);
  probe_kernel<Value, 1, 1, true>(a, x, reference, cusparse_ms, sms, stream);
  probe_kernel<Value, 1, 2, false>(a, x, reference, cusparse_ms, sms, stream);
  probe_kernel<Value, 1, 2, true>(a, x, reference, cusparse_ms, sms, stream);
  probe_kernel<Value, 1, 4, true>(a, x, reference, cusparse_ms, sms, stream);
  probe_kernel<Value, 2, 1, true>(a, x, reference, cusparse_ms, sms, stream);
  probe_kernel<Value, 4, 1, true>(a, x, reference, cusparse_ms, sms, stream);
}

}  // namespace

int main(int argc, char** argv) {
  try {
    int sms = 0;
    if (!tcsparse::bench::announce_device("tcsparse_shared_x_probe", sms)) return 2;
    std::vector<std::string> specs(argv + 1, argv + argc);
    if (specs.empty()) specs = {"rmat:scale=18,edge_factor=48,seed=63"};
    for (std::string spec : specs) {
      if (spec.rfind("gen:", 0) == 0) spec = spec.substr(4);
      const tcsparse::GeneratedMatrix a = tcsparse::generate(tcsparse::parse_generator_spec(spec));
      probe(spec, a, sms, "fp64");
      probe(spec, tcsparse::convert_values<tcsparse::half>(a), sms, "fp16");
    }
    return 0;
  } catch (const std::exception& error) {
    std::fprintf(stderr, "tcsparse_shared_x_probe: error: %s (usage: tcsparse_shared_x_probe "
                 "[generator spec ...])\n", error.what());
    return 1;
  }
}
