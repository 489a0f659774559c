// The runtime layer: device detection, properties, copy bandwidth, allocation failures and the
// messages of CUDA / cuSPARSE errors.
#include <cuda_runtime_api.h>
#include <cusparse.h>
#include <gtest/gtest.h>

#include <algorithm>
#include <array>
#include <cstddef>
#include <cstdint>
#include <string>
#include <thread>
#include <vector>

#include "gpu/gpu_test.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/host_upload.hpp"
#include "tcsparse/device.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse {
namespace {

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// ---- no GPU needed ------------------------------------------------------------------------------

TEST(DeviceDetection, AvailabilityAgreesWithRequireCudaDevice) {
  bool available = false;
  ASSERT_NO_THROW(available = cuda_device_available());
  if (available) {
    EXPECT_NO_THROW(require_cuda_device());
  } else {
    try {
      require_cuda_device();
      FAIL() << "require_cuda_device() returned although no device is available";
    } catch (const NoDeviceError& error) {
      EXPECT_TRUE(contains(error.what(), "no CUDA device found: ")) << error.what();
    }
  }
}

TEST(CudaErrorMessage, NamesTheCallTheSourceLineAndTheStatus) {
  try {
    detail::throw_cuda_error(cudaErrorMemoryAllocation, "cudaMalloc(&pointer, bytes)",
                             "/home/build/tcsparse/src/dasp/dasp.cu", 12);
    FAIL() << "throw_cuda_error returned";
  } catch (const CudaError& error) {
    EXPECT_EQ(error.code(), static_cast<int>(cudaErrorMemoryAllocation));
    EXPECT_EQ(std::string(error.what()),
              std::string("cudaMalloc(&pointer, bytes) failed at src/dasp/dasp.cu:12: ") +
                  cudaGetErrorString(cudaErrorMemoryAllocation) + " (cudaErrorMemoryAllocation)");
  }
}

TEST(CudaErrorMessage, NoDeviceStatusBecomesNoDeviceError) {
  EXPECT_THROW(detail::throw_cuda_error(cudaErrorNoDevice, "cudaSetDevice(0)", "src/x.cpp", 1),
               NoDeviceError);
}

TEST(CusparseErrorMessage, NamesTheCallTheSourceLineAndTheStatus) {
  try {
    detail::throw_cusparse_error(CUSPARSE_STATUS_NOT_SUPPORTED, "cusparseSpMV(handle, ...)",
                                 "/work/tcsparse/src/cusparse/cusparse_spmv.cpp", 77);
    FAIL() << "throw_cusparse_error returned";
  } catch (const CusparseError& error) {
    EXPECT_EQ(error.code(), static_cast<int>(CUSPARSE_STATUS_NOT_SUPPORTED));
    const std::string message = error.what();
    const std::string expected_start =
        "cusparseSpMV(handle, ...) failed at src/cusparse/cusparse_spmv.cpp:77: ";
    EXPECT_EQ(message.rfind(expected_start, 0), 0u) << message;
    EXPECT_TRUE(contains(message, "(CUSPARSE_STATUS_NOT_SUPPORTED)")) << message;
  }
}

TEST(FormatBytes, UsesBinaryUnitsWithOneDecimal) {
  EXPECT_EQ(detail::format_bytes(0), "0 B");
  EXPECT_EQ(detail::format_bytes(512), "512 B");
  EXPECT_EQ(detail::format_bytes(1536), "1.5 KiB");
  EXPECT_EQ(detail::format_bytes(std::size_t{12} << 30), "12.0 GiB");
  EXPECT_EQ(detail::format_bytes(std::size_t{1} << 50), "1.0 PiB");
}

// ---- on the GPU ---------------------------------------------------------------------------------

class DeviceTest : public testing::GpuTest {};

TEST_F(DeviceTest, QueryDeviceDescribesARealGpu) {
  const DeviceInfo info = query_device(0);
  EXPECT_EQ(info.ordinal, 0);
  EXPECT_FALSE(info.name.empty());
  EXPECT_GE(info.compute_capability_major, 7);
  EXPECT_GT(info.multiprocessors, 0);
  EXPECT_GE(info.global_memory_bytes, std::size_t{1} << 30);
  EXPECT_GT(info.l2_cache_bytes, 0u);
  EXPECT_GE(info.shared_memory_per_block_optin, std::size_t{48} << 10);
  EXPECT_GT(info.memory_bus_width_bits, 0);
  EXPECT_TRUE(contains(info.driver_version, ".")) << info.driver_version;
  EXPECT_TRUE(contains(info.runtime_version, ".")) << info.runtime_version;
}

TEST_F(DeviceTest, QueryDeviceRefusesAnOrdinalThatDoesNotExist) {
  EXPECT_THROW(query_device(-1), NoDeviceError);
  EXPECT_THROW(query_device(1 << 20), NoDeviceError);
}

TEST_F(DeviceTest, CopyBandwidthIsPositiveAndPhysicallyPlausible) {
  const double gbps = measure_copy_bandwidth_gbps(0, std::size_t{256} << 20);
  // Every GPU this library targets (sm_80+) copies at well over 100 GB/s; none at 100 TB/s.
  EXPECT_GT(gbps, 100.0);
  EXPECT_LT(gbps, 100000.0);
}

TEST_F(DeviceTest, CopyBandwidthRefusesZeroBytes) {
  EXPECT_THROW(measure_copy_bandwidth_gbps(0, 0), Error);
}

TEST_F(DeviceTest, AbsurdAllocationThrowsDeviceMemoryErrorNamingTheSizes) {
  const std::size_t one_pebibyte = std::size_t{1} << 50;
  try {
    detail::DeviceBuffer<std::byte> buffer(one_pebibyte);
    FAIL() << "allocated 1 PiB on the GPU";
  } catch (const DeviceMemoryError& error) {
    const std::string message = error.what();
    EXPECT_EQ(error.requested_bytes(), one_pebibyte);
    EXPECT_GT(error.free_bytes(), 0u);
    EXPECT_TRUE(contains(message, "cannot allocate 1.0 PiB on the GPU: ")) << message;
    EXPECT_TRUE(contains(message, " free of ")) << message;
    EXPECT_TRUE(contains(message, "GiB")) << message;
  }
}

TEST_F(DeviceTest, AllocationStillWorksAfterAnOutOfMemoryError) {
  EXPECT_THROW(detail::DeviceBuffer<std::byte>(std::size_t{1} << 50), DeviceMemoryError);
  EXPECT_EQ(cudaGetLastError(), cudaSuccess);
  detail::DeviceBuffer<int> buffer(std::vector<int>{3, 1, 4, 1, 5});
  EXPECT_EQ(buffer.download(), (std::vector<int>{3, 1, 4, 1, 5}));
}

TEST_F(DeviceTest, FreedTemporariesAreKeptForReuseUntilReleased) {
  constexpr std::size_t kBytes = std::size_t{64} << 20;
  detail::CudaStream stream;
  detail::release_unused_temporary_memory();
  ASSERT_EQ(detail::temporary_memory_reserved_bytes(), 0u);
  std::byte* first = nullptr;
  {
    auto buffer = detail::DeviceBuffer<std::byte>::on_stream(kBytes, stream.get());
    first = buffer.data();
  }  // freed in stream order
  stream.synchronize();
  EXPECT_GE(detail::temporary_memory_reserved_bytes(), kBytes);  // kept across the wait
  {
    auto again = detail::DeviceBuffer<std::byte>::on_stream(kBytes, stream.get());
    EXPECT_EQ(again.data(), first);  // the same memory, not a new mapping
  }
  stream.synchronize();
  detail::release_unused_temporary_memory();
  EXPECT_EQ(detail::temporary_memory_reserved_bytes(), 0u);
}

TEST_F(DeviceTest, SmallDownloadsHandEveryValueToItsPlaceAfterOneWait) {
  detail::CudaStream stream;
  const detail::DeviceBuffer<std::int32_t> counts(std::vector<std::int32_t>{7, -2, 40});
  const detail::DeviceBuffer<std::int64_t> wide(std::vector<std::int64_t>{std::int64_t{1} << 40});
  const detail::DeviceBuffer<unsigned long long> histogram(
      std::vector<unsigned long long>{5, 0, 9, 11});
  std::int32_t last = 0;
  std::int64_t big = 0;
  std::array<unsigned long long, 4> bins{};
  detail::SmallDownloads downloads(stream.get());
  downloads.add(counts.data() + 2, &last);
  downloads.add(wide.data(), &big);  // aligned after a 4-byte value
  downloads.add(histogram.data(), bins.data(), bins.size());
  EXPECT_EQ(last, 0);  // nothing is handed over before the wait
  downloads.wait();
  EXPECT_EQ(last, 40);
  EXPECT_EQ(big, std::int64_t{1} << 40);
  EXPECT_EQ(bins, (std::array<unsigned long long, 4>{5, 0, 9, 11}));
  // reusable after the wait
  downloads.add(counts.data() + 1, &last);
  downloads.wait();
  EXPECT_EQ(last, -2);
}

TEST_F(DeviceTest, DownloadBouncesOutliveTheirThreadsAndAreReservedAhead) {
  // a thread's two pinned bounces come from a process-wide pool and go back to it when the thread
  // ends, so the next thread (a plan build's worker is a new one each build) pins nothing; after
  // reserve_download_bounces a new thread's pair is already pinned (taken from the pool)
  auto bounces_of_a_new_thread = [] {
    std::array<void*, 2> pointers{};
    std::thread([&] {
      pointers[0] = detail::download_bounce(detail::DownloadSlot::download_one);
      pointers[1] = detail::download_bounce(detail::DownloadSlot::check_in_flight);
      EXPECT_EQ(detail::download_bounce(detail::DownloadSlot::download_one), pointers[0]);
    }).join();
    return pointers;
  };
  const std::array<void*, 2> first = bounces_of_a_new_thread();
  ASSERT_NE(first[0], nullptr);
  ASSERT_NE(first[0], first[1]);
  EXPECT_TRUE(detail::is_pinned_host_memory(first[0]));
  std::array<void*, 2> second = bounces_of_a_new_thread();
  std::sort(second.begin(), second.end());
  std::array<void*, 2> first_sorted = first;
  std::sort(first_sorted.begin(), first_sorted.end());
  EXPECT_EQ(second, first_sorted) << "the same two buffers, given back and taken again";
  detail::reserve_download_bounces();
  detail::reserve_download_bounces();  // idempotent: the pool already holds a pair
  std::array<void*, 2> third = bounces_of_a_new_thread();
  std::sort(third.begin(), third.end());
  EXPECT_EQ(third, first_sorted) << "no new pinning for a pair the pool holds";
  // a bounce in use by this thread stays this thread's until it ends
  void* mine = detail::download_bounce(detail::DownloadSlot::download_one);
  const std::array<void*, 2> other = bounces_of_a_new_thread();
  EXPECT_NE(other[0], mine);
  EXPECT_NE(other[1], mine);
}

TEST_F(DeviceTest, SmallDownloadsRefuseMoreThanTheBounceHolds) {
  detail::CudaStream stream;
  const detail::DeviceBuffer<std::byte> device(detail::kDownloadBounceBytes + 1);
  std::vector<std::byte> host(detail::kDownloadBounceBytes + 1);
  detail::SmallDownloads downloads(stream.get());
  EXPECT_THROW(downloads.add(device.data(), host.data(), host.size()), Error);
  downloads.add(device.data(), host.data(), detail::kDownloadBounceBytes);  // exactly fits
  EXPECT_THROW(downloads.add(device.data(), host.data(), 1), Error);
  downloads.wait();
}

}  // namespace
}  // namespace tcsparse
