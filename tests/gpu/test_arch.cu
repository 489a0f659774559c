// The shared device layer src/arch/ on the GPU: warp sums against host sums, each mma wrapper
// against a host product of one fragment-sized problem (which also checks the fragment layouts
// written in arch/mma.cuh; m16n8k16 with its operands loaded by ldmatrix, plain and transposed), cp.async copies through shared memory (sizes that are not multiples
// of 16 included), the sm_90 bulk copy with its mbarrier, and thread-block clusters reading each
// other's shared memory (both skipped below compute 9.0).
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <cmath>
#include <cstdint>
#include <cstring>
#include <ostream>
#include <random>
#include <vector>

#include "arch/async_copy.cuh"
#include "arch/cluster.cuh"
#include "arch/mma.cuh"
#include "arch/types.cuh"
#include "arch/warp.cuh"
#include "gpu/gpu_test.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_buffer.hpp"

namespace tcsparse {
namespace {

using detail::DeviceBuffer;

constexpr int kWarp = arch::kWarpSize;

void synchronize_after_launch() {
  TCSPARSE_CUDA_CHECK_LAUNCH();
  TCSPARSE_CUDA_CHECK(cudaDeviceSynchronize());
}

/// Random multiples of 1/4 in [-2, 2]: exact in fp16 and bf16, and the products and sums of one
/// mma of them are exact in fp32, so the tensor-core result must equal the host one.
std::vector<float> quarter_values(std::size_t count, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<int> quarters(-8, 8);
  std::vector<float> values(count);
  for (float& v : values) v = static_cast<float>(quarters(rng)) / 4.0f;
  return values;
}

// ---- warp sums ------------------------------------------------------------------------------

template <typename T>
__global__ void warp_sums_kernel(const T* values, T* warp_sums, T* sums_of_4, T* sums_of_8) {
  const int lane = arch::lane_id();
  const T v = values[lane];
  warp_sums[lane] = arch::warp_sum(v);
  sums_of_4[lane] = arch::group_sum<4>(v);
  sums_of_8[lane] = arch::group_sum<8>(v);
}

template <typename T>
void check_warp_sums(const std::vector<T>& values) {
  const DeviceBuffer<T> d_values(values);
  DeviceBuffer<T> warp_sums(kWarp), sums_of_4(kWarp), sums_of_8(kWarp);
  warp_sums_kernel<T><<<1, kWarp>>>(d_values.data(), warp_sums.data(), sums_of_4.data(),
                                    sums_of_8.data());
  synchronize_after_launch();
  const auto host_group_sum = [&](int lane, int lanes) {
    T sum = 0;
    for (int l = lane / lanes * lanes; l < (lane / lanes + 1) * lanes; ++l) sum += values[l];
    return sum;
  };
  const std::vector<T> got_warp = warp_sums.download(), got_4 = sums_of_4.download(),
                       got_8 = sums_of_8.download();
  for (int lane = 0; lane < kWarp; ++lane) {
    EXPECT_EQ(got_warp[lane], host_group_sum(lane, kWarp)) << "lane " << lane;
    EXPECT_EQ(got_4[lane], host_group_sum(lane, 4)) << "lane " << lane;
    EXPECT_EQ(got_8[lane], host_group_sum(lane, 8)) << "lane " << lane;
  }
}

class ArchWarpTest : public testing::GpuTest {};

TEST_F(ArchWarpTest, WarpAndGroupSumsEqualHostSums) {
  std::vector<int> ints(kWarp);
  std::vector<double> doubles(kWarp);  // small integers: every order of additions is exact
  for (int lane = 0; lane < kWarp; ++lane) {
    ints[lane] = lane * lane - 7 * lane + 3;
    doubles[lane] = static_cast<double>(ints[lane]) * 0.5;
  }
  check_warp_sums(ints);
  check_warp_sums(doubles);
}

// ---- mma ------------------------------------------------------------------------------------

/// D = A B + C with one m8n8k4: A 8x4, B 4x8, C and D 8x8, all row-major in memory; each lane
/// loads its own fragment elements (lane 4g + t: A[g][t], B[t][g], C[g][2t..2t+1]).
__global__ void mma_m8n8k4_kernel(const double* a, const double* b, const double* c, double* d) {
  const int lane = arch::lane_id(), g = lane / 4, t = lane % 4;
  double acc[arch::kM8n8k4AccumulatorsPerLane] = {c[g * 8 + 2 * t], c[g * 8 + 2 * t + 1]};
  arch::mma_m8n8k4_f64(acc, a[g * 4 + t], b[t * 8 + g]);
  d[g * 8 + 2 * t] = acc[0];
  d[g * 8 + 2 * t + 1] = acc[1];
}

/// Two values as V in one 32-bit register, `low` in the low 16 bits.
template <typename V>
__device__ unsigned pack_pair(float low, float high) {
  const V low_value = arch::ValueTraits<V>::from_acc(low);
  const V high_value = arch::ValueTraits<V>::from_acc(high);
  unsigned short low_bits, high_bits;
  memcpy(&low_bits, &low_value, sizeof low_bits);
  memcpy(&high_bits, &high_value, sizeof high_bits);
  return unsigned{low_bits} | (unsigned{high_bits} << 16);
}

/// D = A B + C with one m16n8k8 on V inputs: A 16x8, B 8x8, C and D 16x8, all row-major floats
/// in memory (A and B exact in V); lane 4g + t: A[g][2t..], A[g+8][2t..], B[2t..][g],
/// C[g][2t..] and C[g+8][2t..].
template <typename V>
__global__ void mma_m16n8k8_kernel(const float* a, const float* b, const float* c, float* d) {
  const int lane = arch::lane_id(), g = lane / 4, t = lane % 4;
  const unsigned a01 = pack_pair<V>(a[g * 8 + 2 * t], a[g * 8 + 2 * t + 1]);
  const unsigned a23 = pack_pair<V>(a[(g + 8) * 8 + 2 * t], a[(g + 8) * 8 + 2 * t + 1]);
  const unsigned b01 = pack_pair<V>(b[2 * t * 8 + g], b[(2 * t + 1) * 8 + g]);
  const int top = g * 8 + 2 * t, bottom = (g + 8) * 8 + 2 * t;
  float acc[arch::kM16n8k8AccumulatorsPerLane] = {c[top], c[top + 1], c[bottom], c[bottom + 1]};
  arch::mma_m16n8k8<V>(acc, a01, a23, b01);
  d[top] = acc[0];
  d[top + 1] = acc[1];
  d[bottom] = acc[2];
  d[bottom + 1] = acc[3];
}

/// Row-major D = A B + C (A m x k, B k x n), accumulated in double.
template <typename T>
std::vector<double> host_product(const std::vector<T>& a, const std::vector<T>& b,
                                 const std::vector<T>& c, int m, int n, int k) {
  std::vector<double> d(static_cast<std::size_t>(m) * n);
  for (int i = 0; i < m; ++i)
    for (int j = 0; j < n; ++j) {
      double sum = c[i * n + j];
      for (int p = 0; p < k; ++p) sum += static_cast<double>(a[i * k + p]) * b[p * n + j];
      d[i * n + j] = sum;
    }
  return d;
}

class ArchMmaTest : public testing::GpuTest {};

TEST_F(ArchMmaTest, M8n8k4F64EqualsHostProduct) {
  std::mt19937_64 rng(13);
  std::uniform_real_distribution<double> uniform(-1.0, 1.0);
  std::vector<double> a(8 * 4), b(4 * 8), c(8 * 8);
  for (auto* matrix : {&a, &b, &c})
    for (double& v : *matrix) v = uniform(rng);
  const DeviceBuffer<double> d_a(a), d_b(b), d_c(c);
  DeviceBuffer<double> d_d(8 * 8);
  d_d.fill_bytes(0xFF);
  mma_m8n8k4_kernel<<<1, kWarp>>>(d_a.data(), d_b.data(), d_c.data(), d_d.data());
  synchronize_after_launch();
  const std::vector<double> got = d_d.download();
  const std::vector<double> expected = host_product(a, b, c, 8, 8, 4);
  for (int i = 0; i < 8 * 8; ++i)
    EXPECT_NEAR(got[i], expected[i], 1e-14) << "D[" << i / 8 << "][" << i % 8 << "]";
}

template <typename V>
void check_m16n8k8(std::uint64_t seed) {
  const std::vector<float> a = quarter_values(16 * 8, seed), b = quarter_values(8 * 8, seed + 1),
                           c = quarter_values(16 * 8, seed + 2);
  const DeviceBuffer<float> d_a(a), d_b(b), d_c(c);
  DeviceBuffer<float> d_d(16 * 8);
  d_d.fill_bytes(0xFF);
  mma_m16n8k8_kernel<V><<<1, kWarp>>>(d_a.data(), d_b.data(), d_c.data(), d_d.data());
  synchronize_after_launch();
  const std::vector<float> got = d_d.download();
  const std::vector<double> expected = host_product(a, b, c, 16, 8, 8);
  for (int i = 0; i < 16 * 8; ++i)  // exact: see quarter_values
    EXPECT_EQ(static_cast<double>(got[i]), expected[i]) << "D[" << i / 8 << "][" << i % 8 << "]";
}

TEST_F(ArchMmaTest, M16n8k8F16EqualsHostProduct) { check_m16n8k8<__half>(21); }

TEST_F(ArchMmaTest, M16n8k8Bf16EqualsHostProduct) { check_m16n8k8<__nv_bfloat16>(31); }

/// D = A B + C with m16n8k16 on V inputs, the operands read from shared memory by ldmatrix as
/// tca's tiles kernel reads them: A 16 x 16 row-major (plain x4: a0..a3), B 16 x kN (kN = 8: x2,
/// kN = 16: x4 giving two n-tiles), stored as rows of k (row-major, .trans) or rows of n
/// (column-major, plain). C and D 16 x kN row-major floats.
template <typename V, int kN, bool kBRowMajor>
__global__ void mma_m16n8k16_from_shared_kernel(const float* a, const float* b, const float* c,
                                                float* d) {
  __shared__ __align__(16) std::uint16_t a_tile[16 * 16];
  __shared__ __align__(16) std::uint16_t b_tile[16 * kN];
  const int lane = arch::lane_id(), g = lane / 4, t = lane % 4;
  for (int i = lane; i < 16 * 16; i += kWarp)
    a_tile[i] = static_cast<std::uint16_t>(pack_pair<V>(a[i], 0.0f));
  for (int i = lane; i < 16 * kN; i += kWarp) {  // i = k * kN + j in b
    const int k = i / kN, j = i % kN;
    b_tile[kBRowMajor ? i : j * 16 + k] = static_cast<std::uint16_t>(pack_pair<V>(b[i], 0.0f));
  }
  __syncwarp();
  unsigned fragment_a[4];
  arch::load_matrix_x4<false>(fragment_a, a_tile + 16 * (lane & 15) + 8 * (lane >> 4));
  unsigned fragment_b[2 * (kN / 8)];
  if constexpr (kN == 8) {
    unsigned pair[2];
    arch::load_matrix_x2<kBRowMajor>(pair, kBRowMajor ? b_tile + 8 * (lane & 15)
                                                      : b_tile + 16 * (lane & 7) + 8 * ((lane >> 3) & 1));
    fragment_b[0] = pair[0];
    fragment_b[1] = pair[1];
  } else {
    const int n_tile = lane >> 4;  // lanes 16-31 address the second n-tile
    arch::load_matrix_x4<kBRowMajor>(
        fragment_b, kBRowMajor ? b_tile + kN * (lane & 15) + 8 * n_tile
                               : b_tile + 16 * (8 * n_tile + (lane & 7)) + 8 * ((lane >> 3) & 1));
  }
#pragma unroll
  for (int n_tile = 0; n_tile < kN / 8; ++n_tile) {
    const int top = g * kN + 8 * n_tile + 2 * t, bottom = (g + 8) * kN + 8 * n_tile + 2 * t;
    float acc[arch::kM16n8k8AccumulatorsPerLane] = {c[top], c[top + 1], c[bottom], c[bottom + 1]};
    arch::mma_m16n8k16<V>(acc, fragment_a, fragment_b[2 * n_tile], fragment_b[2 * n_tile + 1]);
    d[top] = acc[0];
    d[top + 1] = acc[1];
    d[bottom] = acc[2];
    d[bottom + 1] = acc[3];
  }
}

template <typename V, int kN, bool kBRowMajor>
void check_m16n8k16_from_shared(std::uint64_t seed) {
  const std::vector<float> a = quarter_values(16 * 16, seed), b = quarter_values(16 * kN, seed + 1),
                           c = quarter_values(16 * kN, seed + 2);
  const DeviceBuffer<float> d_a(a), d_b(b), d_c(c);
  DeviceBuffer<float> d_d(16 * kN);
  d_d.fill_bytes(0xFF);
  mma_m16n8k16_from_shared_kernel<V, kN, kBRowMajor>
      <<<1, kWarp>>>(d_a.data(), d_b.data(), d_c.data(), d_d.data());
  synchronize_after_launch();
  const std::vector<float> got = d_d.download();
  const std::vector<double> expected = host_product(a, b, c, 16, kN, 16);
  for (int i = 0; i < 16 * kN; ++i)  // exact: see quarter_values
    EXPECT_EQ(static_cast<double>(got[i]), expected[i])
        << "D[" << i / kN << "][" << i % kN << "], n = " << kN << (kBRowMajor ? ", B row-major" : ", B column-major");
}

TEST_F(ArchMmaTest, M16n8k16WithLdmatrixOperandsEqualsHostProduct) {
  check_m16n8k16_from_shared<__half, 8, true>(41);
  check_m16n8k16_from_shared<__half, 8, false>(43);
  check_m16n8k16_from_shared<__half, 16, true>(45);
  check_m16n8k16_from_shared<__half, 16, false>(47);
  check_m16n8k16_from_shared<__nv_bfloat16, 8, true>(51);
  check_m16n8k16_from_shared<__nv_bfloat16, 16, false>(53);
}

// ---- cp.async ----------------------------------------------------------------------------------

constexpr unsigned char kSharedPoison = 0xAB;
constexpr int kCopyThreads = 128;

int round_up_to_chunk(int bytes) {
  return (bytes + arch::kAsyncCopyChunkBytes - 1) / arch::kAsyncCopyChunkBytes *
         arch::kAsyncCopyChunkBytes;
}

/// Copies `bytes` into shared memory with async_copy_bytes (over poisoned shared memory) and
/// writes the shared buffer, rounded up to 16 bytes, to `copied`.
__global__ void async_copy_bytes_kernel(const unsigned char* source, int bytes, int padded_bytes,
                                        unsigned char* copied) {
  extern __shared__ __align__(16) unsigned char tile[];
  for (int i = threadIdx.x; i < padded_bytes; i += blockDim.x) tile[i] = kSharedPoison;
  __syncthreads();
  arch::async_copy_bytes(tile, source, bytes, static_cast<int>(threadIdx.x),
                         static_cast<int>(blockDim.x));
  arch::async_copy_commit();
  arch::async_copy_wait<0>();
  __syncthreads();
  for (int i = threadIdx.x; i < padded_bytes; i += blockDim.x) copied[i] = tile[i];
}

class ArchAsyncCopyTest : public testing::GpuTestWithParam<int> {};

TEST_P(ArchAsyncCopyTest, BytesArriveInSharedMemoryAndTheLastChunkIsZeroFilled) {
  const int bytes = GetParam();
  const int padded = round_up_to_chunk(bytes);
  std::vector<unsigned char> source(static_cast<std::size_t>(bytes));
  for (int i = 0; i < bytes; ++i) source[i] = static_cast<unsigned char>(i * 7 + 1);
  const DeviceBuffer<unsigned char> d_source(source);
  DeviceBuffer<unsigned char> copied(static_cast<std::size_t>(padded));
  async_copy_bytes_kernel<<<1, kCopyThreads, padded>>>(d_source.data(), bytes, padded,
                                                       copied.data());
  synchronize_after_launch();
  const std::vector<unsigned char> got = copied.download();
  for (int i = 0; i < bytes; ++i) ASSERT_EQ(got[i], source[i]) << "byte " << i;
  for (int i = bytes; i < padded; ++i) ASSERT_EQ(got[i], 0) << "zero fill, byte " << i;
}

INSTANTIATE_TEST_SUITE_P(Sizes, ArchAsyncCopyTest,
                         ::testing::Values(16, 4096, 1, 15, 17, 100, 4096 + 7,
                                           kCopyThreads * 16 * 3 + 5));

/// Each thread copies elements thread, thread + blockDim.x, ... with one 4-byte (int) and one
/// 8-byte (int2) cp.async each, in two groups: the 4-byte group is waited for with one group
/// still in flight, then all.
__global__ void async_copy_4_and_8_kernel(const int* source4, const int2* source8, int count,
                                          int* copied4, int2* copied8) {
  extern __shared__ __align__(16) int2 shared8[];
  int* shared4 = reinterpret_cast<int*>(shared8 + count);
  for (int i = threadIdx.x; i < count; i += blockDim.x)
    arch::async_copy<4>(shared4 + i, source4 + i);
  arch::async_copy_commit();
  for (int i = threadIdx.x; i < count; i += blockDim.x)
    arch::async_copy<8>(shared8 + i, source8 + i);
  arch::async_copy_commit();
  arch::async_copy_wait<1>();  // the 4-byte group is done
  for (int i = threadIdx.x; i < count; i += blockDim.x) copied4[i] = shared4[i];  // own copies
  arch::async_copy_wait_all();
  for (int i = threadIdx.x; i < count; i += blockDim.x) copied8[i] = shared8[i];
}

class ArchAsyncCopyGroupsTest : public testing::GpuTest {};

TEST_F(ArchAsyncCopyGroupsTest, FourAndEightByteCopiesWithGroups) {
  constexpr int kCount = 1000;
  std::vector<int> source4(kCount);
  std::vector<int2> source8(kCount);
  for (int i = 0; i < kCount; ++i) {
    source4[i] = 3 * i - 1000;
    source8[i] = int2{i, -i - 1};
  }
  const DeviceBuffer<int> d_source4(source4);
  const DeviceBuffer<int2> d_source8(source8);
  DeviceBuffer<int> copied4(kCount);
  DeviceBuffer<int2> copied8(kCount);
  const std::size_t shared_bytes = kCount * (sizeof(int) + sizeof(int2));
  async_copy_4_and_8_kernel<<<1, kCopyThreads, shared_bytes>>>(
      d_source4.data(), d_source8.data(), kCount, copied4.data(), copied8.data());
  synchronize_after_launch();
  const std::vector<int> got4 = copied4.download();
  const std::vector<int2> got8 = copied8.download();
  for (int i = 0; i < kCount; ++i) {
    ASSERT_EQ(got4[i], source4[i]) << "element " << i;
    ASSERT_EQ(got8[i].x, source8[i].x) << "element " << i;
    ASSERT_EQ(got8[i].y, source8[i].y) << "element " << i;
  }
}

// ---- bulk copy (sm_90) ------------------------------------------------------------------------

/// Copies `batches` consecutive batches of `batch_values` doubles through one shared tile with
/// the bulk copy, one phase of the mbarrier a batch, and writes each to `copied`. Sets
/// *used_bulk_copy where the sm_90 path was compiled in (else copies nothing).
__global__ void bulk_copy_kernel(const double* source, int batch_values, int batches,
                                 double* copied, int* used_bulk_copy) {
  extern __shared__ __align__(16) double batch_tile[];
  __shared__ std::uint64_t barrier;
  if constexpr (arch::kHasBulkCopy) {
    const unsigned batch_bytes = static_cast<unsigned>(batch_values) * sizeof(double);
    if (threadIdx.x == 0) arch::barrier_init(&barrier, 1);
    __syncthreads();
    unsigned phase = 0;
    for (int batch = 0; batch < batches; ++batch) {
      if (threadIdx.x == 0) {
        arch::barrier_arrive_expect_bytes(&barrier, batch_bytes);
        arch::bulk_copy_to_shared(batch_tile, source + static_cast<long long>(batch) * batch_values,
                                  batch_bytes, &barrier);
      }
      arch::barrier_wait(&barrier, phase);
      phase ^= 1;
      for (int i = threadIdx.x; i < batch_values; i += blockDim.x)
        copied[static_cast<long long>(batch) * batch_values + i] = batch_tile[i];
      __syncthreads();  // every thread is done with the tile before the next batch overwrites it
    }
    if (threadIdx.x == 0) *used_bulk_copy = 1;
  }
}

struct BulkCopyCase {
  int batch_values;  // even: a batch is a multiple of 16 bytes
  int batches;
  friend std::ostream& operator<<(std::ostream& out, const BulkCopyCase& c) {
    return out << c.batches << " batches of " << c.batch_values << " doubles";
  }
};

class ArchBulkCopyTest : public testing::GpuTestWithParam<BulkCopyCase> {
 protected:
  void SetUp() override {
    GpuTestWithParam::SetUp();
    if (IsSkipped()) return;
    int major = 0;
    TCSPARSE_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
    if (major < 9) GTEST_SKIP() << "the bulk copy needs compute capability 9.0, device has " << major;
  }
};

TEST_P(ArchBulkCopyTest, BatchesArriveThroughTheBarrierPhases) {
  const BulkCopyCase p = GetParam();
  const std::size_t total = static_cast<std::size_t>(p.batch_values) * p.batches;
  std::vector<double> source(total);
  for (std::size_t i = 0; i < total; ++i) source[i] = static_cast<double>(i) * 0.25 - 3.0;
  const DeviceBuffer<double> d_source(source);
  DeviceBuffer<double> copied(total);
  copied.fill_bytes(0xFF);
  DeviceBuffer<int> used_bulk_copy(1);
  used_bulk_copy.fill_bytes(0);
  bulk_copy_kernel<<<1, kCopyThreads, p.batch_values * sizeof(double)>>>(
      d_source.data(), p.batch_values, p.batches, copied.data(), used_bulk_copy.data());
  synchronize_after_launch();
  ASSERT_EQ(used_bulk_copy.download()[0], 1) << "the kernel ran without the sm_90 path";
  const std::vector<double> got = copied.download();
  for (std::size_t i = 0; i < total; ++i) ASSERT_EQ(got[i], source[i]) << "value " << i;
}

INSTANTIATE_TEST_SUITE_P(Batches, ArchBulkCopyTest,
                         ::testing::Values(BulkCopyCase{2, 1}, BulkCopyCase{512, 3},
                                           BulkCopyCase{4096, 4}));

/// Each block of a cluster writes (block id, thread) into its shared memory; after the cluster
/// barrier thread t reads block (rank + 1) % cluster's entry t and writes it out.
__global__ void cluster_neighbour_kernel(unsigned cluster_blocks, int* out, unsigned* ranks) {
  __shared__ int mine[64];
  if constexpr (arch::kHasClusters) {
    mine[threadIdx.x] = static_cast<int>(blockIdx.x * 1000 + threadIdx.x);
    const unsigned rank = arch::cluster_block_rank();
    arch::cluster_sync();
    const int* neighbour = arch::cluster_shared(mine, (rank + 1) % cluster_blocks);
    out[blockIdx.x * blockDim.x + threadIdx.x] = neighbour[threadIdx.x];
    if (threadIdx.x == 0) ranks[blockIdx.x] = rank;
    arch::cluster_sync();
  }
}

class ArchClusterTest : public testing::GpuTest {
 protected:
  void SetUp() override {
    GpuTest::SetUp();
    if (IsSkipped()) return;
    int major = 0;
    TCSPARSE_CUDA_CHECK(cudaDeviceGetAttribute(&major, cudaDevAttrComputeCapabilityMajor, 0));
    if (major < 9) GTEST_SKIP() << "clusters need compute capability 9.0, device has " << major;
  }
};

TEST_F(ArchClusterTest, BlocksOfAClusterReadEachOthersSharedMemory) {
  for (const unsigned cluster_blocks : {2u, 4u, 8u}) {
    SCOPED_TRACE(cluster_blocks);
    constexpr unsigned kThreads = 64, kClusters = 5;
    const unsigned blocks = kClusters * cluster_blocks;
    EXPECT_GT(arch::max_active_clusters(cluster_neighbour_kernel, dim3(blocks), dim3(kThreads), 0,
                                        cluster_blocks),
              0);
    DeviceBuffer<int> out(blocks * kThreads);
    DeviceBuffer<unsigned> ranks(blocks);
    arch::LaunchOptions options;
    options.cluster_blocks = cluster_blocks;
    TCSPARSE_CUDA_CHECK(arch::launch_kernel(cluster_neighbour_kernel, dim3(blocks), dim3(kThreads),
                                            0, nullptr, options, cluster_blocks, out.data(),
                                            ranks.data()));
    synchronize_after_launch();
    const std::vector<int> got = out.download();
    const std::vector<unsigned> got_ranks = ranks.download();
    for (unsigned b = 0; b < blocks; ++b) {
      ASSERT_EQ(got_ranks[b], b % cluster_blocks) << "block " << b;
      const unsigned neighbour = b - b % cluster_blocks + (b + 1) % cluster_blocks;
      for (unsigned t = 0; t < kThreads; ++t)
        ASSERT_EQ(got[b * kThreads + t], static_cast<int>(neighbour * 1000 + t))
            << "block " << b << ", thread " << t;
    }
  }
}

}  // namespace
}  // namespace tcsparse
