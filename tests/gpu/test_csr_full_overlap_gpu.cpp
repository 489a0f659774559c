// The one upload path (src/runtime/host_upload.hpp) and CSR-Full-Overlap (Electronics 2023 §4.2)
// on the GPU, against the CPU reference (double accumulation; outputs poisoned when beta == 0).
//
// Upload: pageable, pinned (cudaMallocHost) and already-registered sources land byte for byte
// under every policy, for 0, 1 byte, below / at / above one staging chunk and many chunks; a plan
// built under each policy applies correctly.
// csr_full_overlap: every precision; limits forcing 1, 2 and many big batches (a limit ten times
// smaller than the matrix); a limit below one row's data is a ParameterError; both host-memory
// modes (register streams the caller's arrays: a change of their values shows in the next
// apply); the copies chained in big-batch order (copy_order=in_order) or per stream (paper Alg.
// 8); a small last big batch; the compact stream (bitwise the csr stream's product); repeated applies bitwise identical; graph capture. The catalogue, stream order and
// graph capture with the defaults are also the conformance suite's.
#include <cuda_runtime_api.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <numeric>
#include <string>
#include <vector>

#include "common/test_matrices.hpp"
#include "csr_overlap/csr_full_overlap_format.hpp"
#include "gpu/gpu_test.hpp"
#include "gpu/plan_runner.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/host_upload.hpp"
#include "tcsparse/device.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/generate.hpp"
#include "tcsparse/plan.hpp"
#include "tcsparse/reference.hpp"

namespace tcsparse {
namespace {

using Matrix = CsrMatrix<double, std::int32_t>;
using detail::CudaStream;
using detail::DeviceBuffer;
using testing::options_of;
using testing::run_spmv;

// ---- the upload path ------------------------------------------------------------------------

class HostUploadTest : public testing::GpuTest {};

std::vector<std::byte> pattern(std::size_t bytes) {
  std::vector<std::byte> data(bytes);
  for (std::size_t i = 0; i < bytes; ++i) data[i] = static_cast<std::byte>((i * 131 + 7) % 251);
  return data;
}

std::vector<std::size_t> upload_sizes() {
  const std::size_t chunk = detail::kStagingChunkBytes;
  return {0, 1, 4095, chunk - 1, chunk, chunk + 1, 5 * chunk + 12345};
}

constexpr HostUpload kPolicies[] = {HostUpload::automatic, HostUpload::staged,
                                    HostUpload::registered, HostUpload::direct};

void expect_upload_exact(const std::byte* source, std::size_t bytes, HostUpload policy,
                         const std::string& what) {
  DeviceBuffer<std::byte> device(bytes + 1);
  device.fill_bytes(0xEE);
  detail::upload_bytes(device.data(), source, bytes, policy);
  const std::vector<std::byte> back = device.download();
  EXPECT_EQ(std::memcmp(back.data(), source, bytes), 0)
      << what << ", " << bytes << " bytes, " << to_string(policy);
  EXPECT_EQ(back[bytes], std::byte{0xEE}) << what << ": wrote past the end";
}

TEST_F(HostUploadTest, PageableSourceArrivesExactlyUnderEveryPolicy) {
  for (const std::size_t bytes : upload_sizes()) {
    const std::vector<std::byte> source = pattern(bytes);
    EXPECT_FALSE(bytes > 0 && detail::is_pinned_host_memory(source.data()));
    for (const HostUpload policy : kPolicies)
      expect_upload_exact(source.data(), bytes, policy, "pageable");
  }
}

TEST_F(HostUploadTest, PinnedSourceArrivesExactlyUnderEveryPolicy) {
  for (const std::size_t bytes : upload_sizes()) {
    detail::PinnedHostBuffer<std::byte> pinned(bytes);
    const std::vector<std::byte> source = pattern(bytes);
    if (bytes) std::memcpy(pinned.data(), source.data(), bytes);
    if (bytes) {
      EXPECT_TRUE(detail::is_pinned_host_memory(pinned.data()));
    }
    for (const HostUpload policy : kPolicies)
      expect_upload_exact(pinned.data(), bytes, policy, "pinned");
  }
}

TEST_F(HostUploadTest, AlreadyRegisteredSourceArrivesExactlyUnderEveryPolicy) {
  for (const std::size_t bytes : upload_sizes()) {
    if (bytes == 0) continue;
    const std::vector<std::byte> source = pattern(bytes);
    const detail::HostRegistration registration(source.data(), bytes);
    EXPECT_TRUE(registration.registered());
    EXPECT_TRUE(detail::is_pinned_host_memory(source.data()));
    for (const HostUpload policy : kPolicies)
      expect_upload_exact(source.data(), bytes, policy, "registered");
  }
}

TEST_F(HostUploadTest, StagedCopiesThroughASmallRingLandExactlyOneAfterAnother) {
  // chunks of 4 KiB, rings of 1-3, 1 and 4 copy threads: the ring goes on from copy to copy, so
  // every size lands across chunk boundaries at a different place of the ring
  constexpr std::size_t chunk = 4096;
  const std::vector<std::size_t> sizes = {0, 1, chunk - 1, chunk, chunk + 1, 5 * chunk + 123};
  for (const int chunks : {1, 2, 3})
    for (const int threads : {1, 4})
      for (const char* source_kind : {"pageable", "pinned", "registered"}) {
        std::vector<std::vector<std::byte>> sources;
        std::vector<detail::PinnedHostBuffer<std::byte>> pinned;
        std::vector<detail::HostRegistration> registrations;
        std::vector<DeviceBuffer<std::byte>> devices;
        detail::HostUploader uploader(HostUpload::staged, nullptr, {chunk, chunks, threads});
        for (const std::size_t bytes : sizes) {
          sources.push_back(pattern(bytes + 7));  // a different pattern a copy
          const std::byte* from = sources.back().data() + 7;
          if (std::string(source_kind) == "pinned") {
            pinned.emplace_back(bytes);
            if (bytes) std::memcpy(pinned.back().data(), from, bytes);
            from = pinned.back().data();
          } else if (std::string(source_kind) == "registered" && bytes) {
            registrations.push_back(detail::HostRegistration::try_register(from, bytes));
          }
          devices.emplace_back(bytes + 1);
          devices.back().fill_bytes(0xEE);
          ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
          uploader.copy(devices.back().data(), from, bytes);
        }
        uploader.finish();
        for (std::size_t i = 0; i < sizes.size(); ++i) {
          const std::vector<std::byte> back = devices[i].download();
          EXPECT_EQ(std::memcmp(back.data(), sources[i].data() + 7, sizes[i]), 0)
              << source_kind << ", " << sizes[i] << " bytes, ring of " << chunks << ", "
              << threads << " threads";
          EXPECT_EQ(back[sizes[i]], std::byte{0xEE}) << "wrote past the end";
        }
      }
}

TEST_F(HostUploadTest, StagingChunksArePooledAndReused) {
  detail::StagingPool::clear();
  EXPECT_EQ(detail::StagingPool::pooled_chunks(), 0u);
  const std::vector<std::byte> source = pattern(detail::kStagingChunkBytes * 2 + 5);
  expect_upload_exact(source.data(), source.size(), HostUpload::staged, "pageable");
  EXPECT_EQ(detail::StagingPool::pooled_chunks(), static_cast<std::size_t>(detail::kStagingChunks));
  expect_upload_exact(source.data(), source.size(), HostUpload::staged, "pageable, pooled ring");
  EXPECT_EQ(detail::StagingPool::pooled_chunks(), static_cast<std::size_t>(detail::kStagingChunks));
  detail::StagingPool::clear();
  EXPECT_EQ(detail::StagingPool::pooled_chunks(), 0u);
}

TEST_F(HostUploadTest, RegistrationEndsWithItsOwner) {
  const std::vector<std::byte> source = pattern(1 << 20);
  {
    const detail::HostRegistration registration(source.data(), source.size());
    EXPECT_TRUE(detail::is_pinned_host_memory(source.data()));
  }
  EXPECT_FALSE(detail::is_pinned_host_memory(source.data()));
}

TEST_F(HostUploadTest, PlanBuiltUnderEveryPolicyAppliesCorrectly) {
  const Matrix matrix = generate_stencil_3d_27pt(40, 40, 40, 1);  // ~1.7 M nonzeros: staged
  const std::vector<double> x = test::make_x<double>(matrix);
  std::vector<double> expected(static_cast<std::size_t>(matrix.rows));
  spmv_reference<double, std::int32_t>(matrix, x, expected, 1.0, 0.0);
  for (const char* method : {"cusparse", "csr_overlap", "dasp"})
    for (const HostUpload policy : kPolicies) {
      PlanOptions options;
      options.host_upload = policy;
      const SpmvPlan<double> plan(matrix, method, options);
      EXPECT_GT(plan.stats().upload_ms, 0.0);
      DeviceBuffer<double> dx(x);
      DeviceBuffer<double> dy(test::make_poisoned<double>(expected.size()));
      plan.apply(dx.data(), dy.data(), 1.0, 0.0);
      ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
      const std::vector<double> y = dy.download();
      EXPECT_LT(relative_error<double>(y, expected), 1e-12) << method << " " << to_string(policy);
    }
}

// ---- csr_full_overlap ----------------------------------------------------------------------

class CsrFullOverlapTest : public testing::GpuTest {};



template <typename Value>
void expect_matches_reference(const Matrix& matrix64, const PlanOptions& options,
                              const std::string& what, std::int64_t min_big_batches = 1) {
  const CsrMatrix<Value, std::int32_t> matrix = test::with_values<Value>(matrix64);
  const SpmvPlan<Value> plan(matrix, "csr_full_overlap", options);
  EXPECT_GE(plan.stats().details.value("big_batches", 0), min_big_batches) << what;
  const std::vector<Value> x = test::make_x<Value>(matrix64);
  const std::vector<Value> y0 = test::make_y<Value>(matrix64);
  for (const test::Scalars s : test::kScalarCases) {
    const std::vector<Value> y = run_spmv(plan, x, y0, s);
    std::vector<double> expected(y0.size());
    for (std::size_t i = 0; i < y0.size(); ++i) expected[i] = to_double(y0[i]);
    spmv_reference<Value, std::int32_t>(matrix, x, expected, s.alpha, s.beta);
    EXPECT_LT(relative_error<Value>(y, expected), test::tolerance<Value>())
        << what << " alpha=" << s.alpha << " beta=" << s.beta;
  }
}

std::size_t matrix_bytes(const Matrix& m, std::size_t value_bytes) {
  return m.row_ptr.size() * 4 + m.col_idx.size() * (4 + value_bytes);
}

TEST_F(CsrFullOverlapTest, EveryPrecisionWithTheDefaults) {
  const Matrix matrix = generate_stencil_2d_5pt(300, 200, 3);
  expect_matches_reference<double>(matrix, {}, "fp64", 2);
  expect_matches_reference<float>(matrix, {}, "fp32", 2);
  expect_matches_reference<half>(test::scaled_for_16_bit(matrix), {}, "fp16", 2);
  expect_matches_reference<bfloat16>(test::scaled_for_16_bit(matrix), {}, "bf16", 2);
}

TEST_F(CsrFullOverlapTest, LimitsForceOneTwoAndManyBigBatches) {
  const Matrix matrix = generate_rmat(14, 12, 5);  // power-law rows, long rows included
  const std::size_t bytes = matrix_bytes(matrix, sizeof(double));
  expect_matches_reference<double>(
      matrix, options_of({"streams=1", "big_batches=1",
                          "device_memory_limit=" + std::to_string(2 * bytes)}),
      "one big batch");
  expect_matches_reference<double>(
      matrix, options_of({"streams=2", "big_batches=2",
                          "device_memory_limit=" + std::to_string(2 * bytes)}),
      "two big batches", 2);
  for (const char* streams : {"streams=2", "streams=3"})
    expect_matches_reference<double>(
        matrix, options_of({streams, "device_memory_limit=" + std::to_string(bytes / 10)}),
        std::string("limit a tenth of the matrix, ") + streams, 10);
  expect_matches_reference<float>(
      matrix, options_of({"host_memory=register", "device_memory_limit=" + std::to_string(bytes / 10)}),
      "fp32, registered, a tenth", 10);
  expect_matches_reference<double>(
      matrix, options_of({"copy_order=per_stream", "streams=3",
                          "device_memory_limit=" + std::to_string(bytes / 10)}),
      "copies per stream, a tenth", 10);
  expect_matches_reference<double>(matrix, options_of({"last_big_batch=small", "big_batches=3"}),
                                   "a small last big batch", 4);
}

/// Whether the host-to-device copies that one apply records into a CUDA graph are totally
/// ordered by the graph's dependencies: each copy reachable from the one before it.
bool copies_form_one_chain(const SpmvPlan<double>& plan, const double* x, double* y) {
  const CudaStream stream;
  cudaGraph_t graph = nullptr;
  EXPECT_EQ(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeThreadLocal), cudaSuccess);
  plan.apply(x, y, 1.0, 0.0, stream.get());
  EXPECT_EQ(cudaStreamEndCapture(stream.get(), &graph), cudaSuccess);
  std::size_t node_count = 0, edge_count = 0;
  EXPECT_EQ(cudaGraphGetNodes(graph, nullptr, &node_count), cudaSuccess);
  std::vector<cudaGraphNode_t> nodes(node_count);
  EXPECT_EQ(cudaGraphGetNodes(graph, nodes.data(), &node_count), cudaSuccess);
  EXPECT_EQ(cudaGraphGetEdges(graph, nullptr, nullptr, nullptr, &edge_count), cudaSuccess);
  std::vector<cudaGraphNode_t> from(edge_count), to(edge_count);
  EXPECT_EQ(cudaGraphGetEdges(graph, from.data(), to.data(), nullptr, &edge_count), cudaSuccess);
  const auto index_of = [&](cudaGraphNode_t node) {
    return static_cast<std::size_t>(std::find(nodes.begin(), nodes.end(), node) - nodes.begin());
  };
  // reaches[i][j]: node j depends on node i, directly or not (the graph is small)
  std::vector<std::vector<bool>> reaches(node_count, std::vector<bool>(node_count, false));
  for (std::size_t e = 0; e < edge_count; ++e) reaches[index_of(from[e])][index_of(to[e])] = true;
  for (std::size_t k = 0; k < node_count; ++k)
    for (std::size_t i = 0; i < node_count; ++i)
      if (reaches[i][k])
        for (std::size_t j = 0; j < node_count; ++j)
          if (reaches[k][j]) reaches[i][j] = true;
  std::vector<std::size_t> copies;
  for (std::size_t i = 0; i < node_count; ++i) {
    cudaGraphNodeType type{};
    EXPECT_EQ(cudaGraphNodeGetType(nodes[i], &type), cudaSuccess);
    if (type == cudaGraphNodeTypeMemcpy) copies.push_back(i);
  }
  EXPECT_EQ(cudaGraphDestroy(graph), cudaSuccess);
  EXPECT_GE(copies.size(), 2u);
  for (const std::size_t a : copies)
    for (const std::size_t b : copies)
      if (a != b && !reaches[a][b] && !reaches[b][a]) return false;
  return true;
}

TEST_F(CsrFullOverlapTest, InOrderCopiesHoldTheLinkOneAtATime) {
  const Matrix matrix = generate_rmat(12, 8, 4);
  const std::vector<double> x = test::make_x<double>(matrix);
  const DeviceBuffer<double> dx(x);
  DeviceBuffer<double> dy(static_cast<std::size_t>(matrix.rows));
  for (const char* streams : {"streams=2", "streams=3"}) {
    for (const char* memory : {"host_memory=copy", "host_memory=register"}) {
      // (one plan at a time: a second plan registering the same arrays would find them taken)
      EXPECT_TRUE(copies_form_one_chain(
          SpmvPlan<double>(matrix, "csr_full_overlap", options_of({streams, memory, "big_batches=6"})),
          dx.data(), dy.data())) << streams << " " << memory;
      // Algorithm 8 as published: each stream's copies follow only that stream's kernels
      EXPECT_FALSE(copies_form_one_chain(
          SpmvPlan<double>(matrix, "csr_full_overlap",
                           options_of({streams, memory, "big_batches=6", "copy_order=per_stream"})),
          dx.data(), dy.data())) << streams << " " << memory;
    }
  }
}

/// y = A x (alpha 1, beta 0) by a csr_full_overlap plan with `parameters`.
template <typename Value>
std::vector<Value> product_of(const Matrix& matrix64, const CsrMatrix<Value, std::int32_t>& matrix,
                              const std::vector<std::string>& parameters) {
  const SpmvPlan<Value> plan(matrix, "csr_full_overlap", options_of(parameters));
  const std::vector<Value> x = test::make_x<Value>(matrix64);
  const std::vector<Value> y0 = test::make_y<Value>(matrix64);
  return run_spmv(plan, x, y0, {1.0, 0.0});
}

/// The compact stream changes the bytes on the link, not the product: bitwise the csr stream's y.
template <typename Value>
void expect_compact_gives_the_csr_product(const Matrix& matrix64,
                                          const std::vector<std::string>& common,
                                          const std::string& what) {
  const CsrMatrix<Value, std::int32_t> matrix = test::with_values<Value>(matrix64);
  std::vector<std::string> compact = common, csr = common;
  compact.push_back("stream_format=compact");
  csr.push_back("stream_format=csr");
  const SpmvPlan<Value> plan(matrix, "csr_full_overlap", options_of(compact));
  EXPECT_GT(plan.stats().details.value("compact_rows", 0) +
                plan.stats().details.value("compact_columns", 0), 0) << what;
  EXPECT_LT(plan.stats().details.value("streamed_bytes_per_apply", 0.0),
            plan.stats().details.value("csr_bytes_per_apply", 0.0)) << what;
  const std::vector<Value> from_compact = product_of(matrix64, matrix, compact);
  const std::vector<Value> from_csr = product_of(matrix64, matrix, csr);
  ASSERT_EQ(from_compact.size(), from_csr.size());
  EXPECT_EQ(std::memcmp(from_compact.data(), from_csr.data(), from_csr.size() * sizeof(Value)), 0)
      << what;
}

TEST_F(CsrFullOverlapTest, CompactStreamGivesTheCsrStreamsProductBitForBit) {
  const Matrix stencil = generate_stencil_2d_5pt(300, 200, 3);  // 8-bit rows, 16-bit columns
  expect_compact_gives_the_csr_product<double>(stencil, {}, "stencil fp64");
  expect_compact_gives_the_csr_product<float>(stencil, {"big_batches=5"}, "stencil fp32");
  expect_compact_gives_the_csr_product<half>(test::scaled_for_16_bit(stencil), {}, "stencil fp16");
  expect_compact_gives_the_csr_product<bfloat16>(test::scaled_for_16_bit(stencil),
                                                 {"last_big_batch=small"}, "stencil bf16");
  // power-law rows (16-bit lengths where a long row is in the big batch, 32-bit columns),
  // long rows taken by the long-row kernels, many big batches through a small ring
  const Matrix rmat = generate_rmat(14, 12, 5);
  const std::size_t bytes = matrix_bytes(rmat, sizeof(double));
  expect_compact_gives_the_csr_product<double>(
      rmat, {"streams=3", "device_memory_limit=" + std::to_string(bytes / 10)}, "rmat, a tenth");
  expect_compact_gives_the_csr_product<double>(rmat, {"copy=cp_async", "big_batches=3"}, "rmat");
  // a row longer than 2^16 (32-bit offsets) whose sorted columns fit 16-bit chunk offsets
  const Matrix long_row = test::with_row_lengths(70'000, {66'000}, 4);
  expect_compact_gives_the_csr_product<double>(long_row, {"big_batches=1"}, "a row of 66000");
}

TEST_F(CsrFullOverlapTest, CompactStreamNeedsThePlansOwnHostImage) {
  const Matrix matrix = generate_stencil_2d_5pt(30, 20, 3);
  EXPECT_THROW(SpmvPlan<double>(matrix, "csr_full_overlap",
                                options_of({"host_memory=register", "stream_format=compact"})),
               ParameterError);
  // auto: compact where the plan writes the image and sizes the ring, csr elsewhere
  const auto format_of = [&](const std::vector<std::string>& parameters) {
    return SpmvPlan<double>(matrix, "csr_full_overlap", options_of(parameters))
        .stats().details.value("stream_format", std::string());
  };
  EXPECT_EQ(format_of({}), "compact");
  EXPECT_EQ(format_of({"host_memory=register"}), "csr");
  EXPECT_EQ(format_of({"device_memory_limit=1000000"}), "csr");
  EXPECT_EQ(format_of({"device_memory_limit=1000000", "stream_format=compact"}), "compact");
}

TEST_F(CsrFullOverlapTest, BulkCopyInEveryPrecisionAndWithManyBigBatches) {
  // copy=bulk (sm_90): the batch kernel's bulk copies read each big batch's slot
  const DeviceInfo device = query_device(0);
  if (device.compute_capability_major < 9)
    GTEST_SKIP() << "copy=bulk needs sm_90 or later; this GPU has compute capability "
                 << device.compute_capability_major << "." << device.compute_capability_minor;
  const Matrix stencil = generate_stencil_2d_5pt(300, 200, 3);
  expect_matches_reference<double>(stencil, options_of({"copy=bulk"}), "fp64 bulk", 2);
  expect_matches_reference<float>(stencil, options_of({"copy=bulk"}), "fp32 bulk", 2);
  expect_matches_reference<half>(test::scaled_for_16_bit(stencil), options_of({"copy=bulk"}),
                                 "fp16 bulk", 2);
  expect_matches_reference<bfloat16>(test::scaled_for_16_bit(stencil),
                                     options_of({"copy=bulk"}), "bf16 bulk", 2);
  const Matrix rmat = generate_rmat(14, 12, 5);  // power-law rows, long rows included
  const std::size_t bytes = matrix_bytes(rmat, sizeof(double));
  expect_matches_reference<double>(
      rmat, options_of({"copy=bulk", "streams=3", "device_memory_limit=" + std::to_string(bytes / 10)}),
      "bulk, many big batches", 10);
}

TEST_F(CsrFullOverlapTest, EdgeShapes) {
  for (const test::NamedMatrix& named : test::edge_case_matrices()) {
    const std::int64_t min_big_batches = named.matrix.rows == 0 ? 0 : 1;  // no rows: nothing to stream
    expect_matches_reference<double>(named.matrix, {}, named.name, min_big_batches);
    expect_matches_reference<double>(
        named.matrix, options_of({"host_memory=register", "streams=3", "big_batches=5"}),
        named.name + " registered", min_big_batches);
  }
}

TEST_F(CsrFullOverlapTest, LimitBelowOneRowIsAClearError) {
  const Matrix matrix = test::with_row_lengths(20000, {5, 12000, 3}, 1);
  try {
    const SpmvPlan<double> plan(matrix, "csr_full_overlap",
                                options_of({"device_memory_limit=65536"}));
    FAIL() << "expected a ParameterError";
  } catch (const ParameterError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("row 1"), std::string::npos) << message;
    EXPECT_NE(message.find("device_memory_limit=65536"), std::string::npos) << message;
  }
}

TEST_F(CsrFullOverlapTest, CopyModeOwnsItsHostMemory) {
  auto matrix = std::make_unique<Matrix>(generate_stencil_2d_5pt(100, 100, 2));
  const std::vector<double> x = test::make_x<double>(*matrix);
  std::vector<double> expected(static_cast<std::size_t>(matrix->rows));
  spmv_reference<double, std::int32_t>(*matrix, x, expected, 1.0, 0.0);
  const SpmvPlan<double> plan(*matrix, "csr_full_overlap", options_of({"big_batches=4"}));
  matrix.reset();  // the plan keeps its own pinned copy
  const std::vector<double> y = run_spmv(plan, x, std::vector<double>(expected.size()), {1.0, 0.0});
  EXPECT_LT(relative_error<double>(y, expected), 1e-12);
}

TEST_F(CsrFullOverlapTest, RegisterModeStreamsTheCallersArraysAtEveryApply) {
  Matrix matrix = generate_stencil_2d_5pt(100, 100, 2);
  const std::vector<double> x = test::make_x<double>(matrix);
  const SpmvPlan<double> plan(matrix, "csr_full_overlap",
                              options_of({"host_memory=register", "big_batches=4"}));
  for (double& v : matrix.values) v *= 2.0;  // same arrays, new contents
  std::vector<double> expected(static_cast<std::size_t>(matrix.rows));
  spmv_reference<double, std::int32_t>(matrix, x, expected, 1.0, 0.0);
  const std::vector<double> y = run_spmv(plan, x, std::vector<double>(expected.size()), {1.0, 0.0});
  EXPECT_LT(relative_error<double>(y, expected), 1e-12);
}

// A plan from device arrays streams its own pinned copy of the download; register mode would
// keep pointers into that temporary download, so it is refused.
TEST_F(CsrFullOverlapTest, FromDeviceCsrCopiesAndRefusesRegisterMode) {
  const Matrix matrix = generate_stencil_2d_5pt(100, 100, 2);
  const DeviceBuffer<std::int32_t> row_ptr(matrix.row_ptr);
  const DeviceBuffer<std::int32_t> col_idx(matrix.col_idx);
  const DeviceBuffer<double> values(matrix.values);
  const DeviceCsrView<double> view{matrix.rows,    matrix.cols,    matrix.nnz(),
                                   row_ptr.data(), col_idx.data(), values.data()};
  const SpmvPlan<double> plan(view, "csr_full_overlap", options_of({"big_batches=4"}));
  const std::vector<double> x = test::make_x<double>(matrix);
  std::vector<double> expected(static_cast<std::size_t>(matrix.rows));
  spmv_reference<double, std::int32_t>(matrix, x, expected, 1.0, 0.0);
  const std::vector<double> y = run_spmv(plan, x, std::vector<double>(expected.size()), {1.0, 0.0});
  EXPECT_LT(relative_error<double>(y, expected), 1e-12);
  EXPECT_THROW(SpmvPlan<double>(view, "csr_full_overlap", options_of({"host_memory=register"})),
               UnsupportedError);
}

TEST_F(CsrFullOverlapTest, RepeatedAppliesAreBitwiseIdentical) {
  const Matrix matrix = generate_rmat(13, 16, 9);
  const std::size_t bytes = matrix_bytes(matrix, sizeof(double));
  const SpmvPlan<double> plan(matrix, "csr_full_overlap",
                              options_of({"streams=3", "device_memory_limit=" + std::to_string(bytes / 4)}));
  const std::vector<double> x = test::make_x<double>(matrix);
  const std::vector<double> y0(static_cast<std::size_t>(matrix.rows), 0.0);
  const std::vector<double> first = run_spmv(plan, x, y0, {1.0, 0.0});
  for (int repeat = 0; repeat < 5; ++repeat)
    EXPECT_EQ(std::memcmp(run_spmv(plan, x, y0, {1.0, 0.0}).data(), first.data(),
                          first.size() * sizeof(double)), 0) << "repeat " << repeat;
}

TEST_F(CsrFullOverlapTest, ApplyCapturesIntoACudaGraph) {
  const Matrix matrix = generate_rmat(12, 8, 4);
  const std::size_t bytes = matrix_bytes(matrix, sizeof(float));
  for (const char* mode : {"host_memory=copy", "host_memory=register"}) {
    const CsrMatrix<float, std::int32_t> m32 = test::with_values<float>(matrix);
    const SpmvPlan<float> plan(m32, "csr_full_overlap",
                               options_of({mode, "device_memory_limit=" + std::to_string(bytes / 5)}));
    const std::vector<float> x = test::make_x<float>(matrix);
    DeviceBuffer<float> dx(x);
    DeviceBuffer<float> dy(test::make_poisoned<float>(static_cast<std::size_t>(matrix.rows)));
    ASSERT_EQ(cudaDeviceSynchronize(), cudaSuccess);
    const CudaStream stream;
    cudaGraph_t graph = nullptr;
    ASSERT_EQ(cudaStreamBeginCapture(stream.get(), cudaStreamCaptureModeGlobal), cudaSuccess);
    plan.apply(dx.data(), dy.data(), 1.0f, 0.0f, stream.get());
    ASSERT_EQ(cudaStreamEndCapture(stream.get(), &graph), cudaSuccess) << mode;
    cudaGraphExec_t exec = nullptr;
    ASSERT_EQ(cudaGraphInstantiate(&exec, graph, 0), cudaSuccess);
    ASSERT_EQ(cudaGraphLaunch(exec, stream.get()), cudaSuccess);
    stream.synchronize();
    std::vector<double> expected(static_cast<std::size_t>(matrix.rows));
    spmv_reference<float, std::int32_t>(m32, x, expected, 1.0, 0.0);
    const std::vector<float> y = dy.download();
    EXPECT_LT(relative_error<float>(y, expected), 1e-5) << mode;
    cudaGraphExecDestroy(exec);
    cudaGraphDestroy(graph);
  }
}

}  // namespace
}  // namespace tcsparse
