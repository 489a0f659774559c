// tcsparse_upload_probe: what a plan's upload and checks cost on this host (issue 8). Prints one
// JSON object a line:
//   pinned_copy        a cudaMemcpy from cudaHostAlloc'd memory (the reference, ~55 GB/s)
//   pageable_direct    a cudaMemcpy from pageable memory (the driver's own staging)
//   registered         cudaHostRegister + copy + cudaHostUnregister of the pageable array, each timed
//   staged_cold        HostUploader staged with an empty staging pool (pays cudaHostAlloc)
//   staged             HostUploader staged by chunk size x ring depth x copy threads (pool warm)
//   host_copy          copy_host_in_parallel pageable -> pinned, by threads (no DMA)
//   host_alloc         cudaHostAlloc of one staging ring, cold
//   validate           CsrMatrix::validate() of each generator spec given (gen:... or kind:...)
//   upload_csr         the upload of that matrix as a plan makes it (fp64, PlanStats::upload_ms:
//                      the copies), and staged_same_bytes, one staged copy of as many bytes
// Usage: tcsparse_upload_probe [MiB] [generator specs...]   (default 1024 MiB)
// Environment: TCSPARSE_PROBE_QUICK (staged with the default ring only, all threads and one
// fewer), TCSPARSE_PROBE_SERIAL_FILL (the source written by one thread, not all).
#include <cuda_runtime_api.h>
#include <omp.h>

#include <algorithm>
#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

#include "common/stopwatch.hpp"
#include "common/uninitialized_vector.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/device_csr.hpp"
#include "runtime/host_upload.hpp"
#include "tcsparse/generate.hpp"
#include "tcsparse/json.hpp"

namespace {

using namespace tcsparse;
using detail::Stopwatch;

constexpr int kRepeats = 3;

void print(Json record) { std::printf("%s\n", record.dump().c_str()); std::fflush(stdout); }

/// Best and median of kRepeats runs of `run` (milliseconds).
template <typename Run>
std::pair<double, double> time_runs(Run run) {
  std::vector<double> ms;
  for (int r = 0; r < kRepeats; ++r) {
    const Stopwatch watch;
    run();
    ms.push_back(watch.elapsed_ms());
  }
  std::sort(ms.begin(), ms.end());
  return {ms.front(), ms[ms.size() / 2]};
}

Json record(const char* what, std::size_t bytes, std::pair<double, double> ms) {
  Json j;
  j["what"] = what;
  j["bytes"] = bytes;
  j["best_ms"] = ms.first;
  j["median_ms"] = ms.second;
  j["best_gbps"] = static_cast<double>(bytes) / (ms.first * 1e6);
  j["median_gbps"] = static_cast<double>(bytes) / (ms.second * 1e6);
  return j;
}

}  // namespace

int main(int argc, char** argv) {
  const std::size_t mib = argc > 1 ? std::stoul(argv[1]) : 1024;
  const std::size_t bytes = mib << 20;
  const int all_threads = omp_get_max_threads();
  {
    Json j;
    j["what"] = "host";
    j["omp_threads"] = all_threads;
    print(j);
  }
  TCSPARSE_CUDA_CHECK(cudaFree(nullptr));  // the context, outside every timing
  detail::UninitializedVector<std::byte> source(bytes);
  // TCSPARSE_PROBE_SERIAL_FILL set: the source written by one thread, as a reader or generator
  // writes a matrix (its pages then lie where that thread ran); else by all threads
  const bool serial_fill = std::getenv("TCSPARSE_PROBE_SERIAL_FILL") != nullptr;
#pragma omp parallel for schedule(static) if (!serial_fill)
  for (std::size_t i = 0; i < bytes; ++i) source[i] = static_cast<std::byte>(i * 131 + 7);
  detail::DeviceBuffer<std::byte> device(bytes);

  {  // the reference: from pinned memory
    detail::PinnedHostBuffer<std::byte> pinned(bytes);
    detail::copy_host_in_parallel(pinned.data(), source.data(), bytes);
    print(record("pinned_copy", bytes, time_runs([&] {
      TCSPARSE_CUDA_CHECK(cudaMemcpy(device.data(), pinned.data(), bytes, cudaMemcpyHostToDevice));
    })));
    for (const int threads : {1, 2, 4, 6, 8, 12, 16, 24, 32}) {
      if (threads > all_threads) break;
      Json j = record("host_copy", bytes, time_runs([&] {
        detail::copy_host_in_parallel(pinned.data(), source.data(), bytes, threads);
      }));
      j["threads"] = threads;
      print(j);
    }
  }
  print(record("pageable_direct", bytes, time_runs([&] {
    TCSPARSE_CUDA_CHECK(cudaMemcpy(device.data(), source.data(), bytes, cudaMemcpyHostToDevice));
  })));
  {
    double register_ms = 0, copy_ms = 0, unregister_ms = 0;
    const auto total = time_runs([&] {
      Stopwatch watch;
      TCSPARSE_CUDA_CHECK(cudaHostRegister(source.data(), bytes, cudaHostRegisterDefault));
      register_ms = watch.elapsed_ms();
      watch.restart();
      TCSPARSE_CUDA_CHECK(cudaMemcpy(device.data(), source.data(), bytes, cudaMemcpyHostToDevice));
      copy_ms = watch.elapsed_ms();
      watch.restart();
      TCSPARSE_CUDA_CHECK(cudaHostUnregister(source.data()));
      unregister_ms = watch.elapsed_ms();
    });
    Json j = record("registered", bytes, total);
    j["last_register_ms"] = register_ms;
    j["last_copy_ms"] = copy_ms;
    j["last_unregister_ms"] = unregister_ms;
    print(j);
  }
  {
    detail::StagingPool::clear();
    const Stopwatch watch;
    detail::PinnedHostBuffer<std::byte> ring(detail::kStagingChunkBytes * detail::kStagingChunks);
    Json j;
    j["what"] = "host_alloc";
    j["bytes"] = ring.bytes();
    j["ms"] = watch.elapsed_ms();
    print(j);
  }
  auto staged = [&](detail::StagingConfig config) {
    detail::HostUploader uploader(HostUpload::staged, nullptr, config);
    uploader.copy(device.data(), source.data(), bytes);
    uploader.finish();
  };
  {
    detail::StagingPool::clear();
    const Stopwatch watch;
    staged({});
    Json j = record("staged_cold", bytes, {watch.elapsed_ms(), watch.elapsed_ms()});
    print(j);
  }
  auto staged_record = [&](detail::StagingConfig config) {
    staged(config);  // the pool holds this chunk size from now on
    Json j = record("staged", bytes, time_runs([&] { staged(config); }));
    j["chunk_mib"] = static_cast<double>(config.chunk_bytes) / (1 << 20);
    j["chunks"] = config.chunks;
    j["copy_threads"] = config.copy_threads ? config.copy_threads : all_threads;
    print(j);
  };
  if (std::getenv("TCSPARSE_PROBE_QUICK")) {  // the default ring, all threads and one fewer
    staged_record({});
    staged_record({detail::kStagingChunkBytes, detail::kStagingChunks, all_threads - 1});
  } else {
    for (const std::size_t chunk_mib : {1, 2, 4, 8, 16, 32, 64})
      for (const int chunks : {2, 3, 4, 6})
        staged_record({chunk_mib << 20, chunks, 0});
    for (const int threads : {1, 2, 4, 6, 8, 10, 12, 16})
      if (threads <= all_threads)
        for (const std::size_t chunk_mib : {4, 8, 16})
          staged_record({chunk_mib << 20, detail::kStagingChunks, threads});
  }
  // a check of the bytes that arrived (the last staged copy)
  {
    const std::vector<std::byte> back = device.download();
    Json j;
    j["what"] = "staged_bytes_exact";
    j["ok"] = std::memcmp(back.data(), source.data(), bytes) == 0;
    print(j);
  }
  for (int a = 2; a < argc; ++a) {
    std::string spec = argv[a];
    if (spec.rfind("gen:", 0) == 0) spec = spec.substr(4);
    const GeneratedMatrix matrix = generate(parse_generator_spec(spec));
    Json j = record("validate", matrix.col_idx.size() * 12 + matrix.row_ptr.size() * 4,
                    time_runs([&] { matrix.validate(); }));
    j["matrix"] = argv[a];
    j["rows"] = matrix.rows;
    j["nnz"] = matrix.nnz();
    print(j);
    // the matrix's own upload, as a plan makes it (upload_csr: three arrays through the ring),
    // against one staged copy of as many bytes from the probe's source
    const CsrMatrix<double, std::int32_t>& csr = matrix;
    const std::size_t csr_bytes = csr.row_ptr.size() * 4 + csr.col_idx.size() * 12;
    std::vector<double> upload_ms;  // PlanStats::upload_ms: the copies, not the allocations
    for (int r = 0; r < kRepeats; ++r) {
      PlanStats stats;
      const detail::DeviceCsr<double> on_device = detail::upload_csr(csr, stats);
      upload_ms.push_back(stats.upload_ms);
    }
    std::sort(upload_ms.begin(), upload_ms.end());
    Json upload =
        record("upload_csr", csr_bytes, {upload_ms.front(), upload_ms[upload_ms.size() / 2]});
    upload["matrix"] = argv[a];
    print(upload);
    if (csr_bytes <= bytes) {
      Json copy = record("staged_same_bytes", csr_bytes, time_runs([&] {
        detail::HostUploader uploader(HostUpload::staged);
        uploader.copy(device.data(), source.data(), csr_bytes);
        uploader.finish();
      }));
      copy["matrix"] = argv[a];
      print(copy);
    }
  }
  return 0;
}
