// tcsparse_upload_probe: what a plan's upload and checks cost on this host (issue 8). Prints one
// JSON object a line:
//   pinned_copy        a cudaMemcpy from cudaHostAlloc'd memory (the reference, ~55 GB/s)
//   pageable_direct    a cudaMemcpy from pageable memory (the driver's own staging)
//   registered         cudaHostRegister + copy + cudaHostUnregister of the pageable array, each timed
//   staged_cold        HostUploader staged with an empty staging pool (pays cudaHostAlloc)
//   staged             HostUploader staged by chunk size x ring depth x copy threads (pool warm)
//   host_copy          copy_host_in_parallel pageable -> pinned, by threads (no DMA)
//   host_alloc         cudaHostAlloc of one staging ring, cold; host_register(_touched): its bytes
//                      pinned by cudaHostRegister of page-aligned memory (written first);
//                      pool_acquire_cold: StagingPool::acquire of a ring with the pool empty
//   validate           CsrMatrix::validate() of each generator spec given (gen:... or kind:...)
//   upload_csr         the upload of that matrix as a plan makes it (fp64, PlanStats::upload_ms:
//                      the copies), and staged_same_bytes, one staged copy of as many bytes
//   beside             with TCSPARSE_PROBE_BESIDE, the matrix in fp16: upload_csr, then
//                      upload_csr_beside (as DASP's device build uploads)
//                      by ring depth, by what runs beside it on the worker thread (`work`:
//                      nothing; a GPU round trip after another, as a build that downloads its
//                      counts; device allocations and frees; stream-ordered ones) and whether
//                      tcsparse's pool already holds that memory; then whole DASP plans
//                      (dasp_plan: plan build and its details.csr_upload_ms)
//   bisect             with TCSPARSE_PROBE_BISECT (instead of TCSPARSE_PROBE_BESIDE), the matrix
//                      in fp16: upload_csr_beside with DASP's device build on the worker cut
//                      after each step (nothing; the row offsets' check; + the index build; +
//                      the columns' check; + the values' storage), 5 rounds alternating, and
//                      the DASP plan itself: which step slows the upload beside it
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
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/stopwatch.hpp"
#include "common/uninitialized_vector.hpp"
#include "dasp/dasp_device_build.hpp"
#include "dasp/dasp_format.hpp"
#include "dasp/dasp_parameters.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/device_csr.hpp"
#include "runtime/device_csr_view.hpp"
#include "runtime/host_upload.hpp"
#include "tcsparse/generate.hpp"
#include "tcsparse/json.hpp"
#include "tcsparse/plan.hpp"

namespace {

using namespace tcsparse;
using detail::Stopwatch;
/// tcsparse's 16-bit float (CUDA's headers declare a `half` of their own).
using Half = tcsparse::half;

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

/// Milliseconds of `ms`: best and median.
std::pair<double, double> best_and_median(std::vector<double> ms) {
  std::sort(ms.begin(), ms.end());
  return {ms.front(), ms[ms.size() / 2]};
}

/// What runs on upload_csr_beside's worker thread.
using BesideWork = std::function<void(const DeviceCsrView<Half>&, detail::UploadLanded)>;

/// Bytes of each allocation the probe's workers make beside the upload.
constexpr std::size_t kBesideAllocationBytes = std::size_t{8} << 20;

/// A worker that waits for row_ptr's copy, runs `between` on its stream, waits for col_idx's,
/// then runs `after` (either may be empty): the shape of DASP's build beside the upload.
BesideWork beside_work(std::function<void(cudaStream_t)> between,
                       std::function<void()> after = {}) {
  return [between, after](const DeviceCsrView<Half>&, detail::UploadLanded landed) {
    const detail::CudaStream stream;
    landed.row_ptr(stream.get());
    if (between) between(stream.get());
    landed.col_idx(stream.get());
    TCSPARSE_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    if (after) after();
  };
}

/// 16 stream-ordered allocations from tcsparse's pool, freed, twice.
void allocate_in_stream_order_twice(cudaStream_t stream) {
  for (int round = 0; round < 2; ++round) {
    std::vector<detail::DeviceBuffer<std::byte>> buffers;
    for (int i = 0; i < 16; ++i)
      buffers.push_back(detail::DeviceBuffer<std::byte>::on_stream(kBesideAllocationBytes, stream));
    TCSPARSE_CUDA_CHECK(cudaStreamSynchronize(stream));
  }
}

/// What upload_csr_beside costs in a plan: `csr` (fp16) allocated and uploaded alone, then beside
/// each kind of work by ring depth and pool state; then DASP plans of it (TCSPARSE_PROBE_BESIDE).
void probe_upload_beside(const CsrMatrix<Half, std::int32_t>& csr, const std::string& name,
                         int all_threads) {
  const std::size_t csr_bytes = csr.row_ptr.size() * 4 + csr.col_idx.size() * 6;
  auto emit = [&](const char* what, std::vector<double> ms, Json extra) {
    Json j = record(what, csr_bytes, best_and_median(std::move(ms)));
    j["matrix"] = name;
    for (const auto& [key, value] : extra.items()) j[key] = value;
    print(j);
  };
  constexpr int kBesideRepeats = 5;
  {  // the device CSR's allocations and frees: three arrays, and one of their total
    std::vector<double> three_allocate, three_free, one_allocate, one_free;
    for (int r = 0; r < kBesideRepeats; ++r) {
      Stopwatch watch;
      auto row_ptr = std::make_optional<detail::DeviceBuffer<std::int32_t>>(csr.row_ptr.size());
      auto col_idx = std::make_optional<detail::DeviceBuffer<std::int32_t>>(csr.col_idx.size());
      auto values = std::make_optional<detail::DeviceBuffer<std::uint16_t>>(csr.values.size());
      three_allocate.push_back(watch.elapsed_ms());
      watch.restart();
      row_ptr.reset();
      col_idx.reset();
      values.reset();
      three_free.push_back(watch.elapsed_ms());
      watch.restart();
      auto all = std::make_optional<detail::DeviceBuffer<std::byte>>(csr_bytes);
      one_allocate.push_back(watch.elapsed_ms());
      watch.restart();
      all.reset();
      one_free.push_back(watch.elapsed_ms());
    }
    emit("allocate_three", three_allocate,
         {{"free_median_ms", best_and_median(three_free).second}});
    emit("allocate_one", one_allocate, {{"free_median_ms", best_and_median(one_free).second}});
  }
  {
    std::vector<double> ms;
    for (int r = 0; r < kBesideRepeats; ++r) {
      PlanStats stats;
      const detail::DeviceCsr<Half> on_device = detail::upload_csr(csr, stats);
      ms.push_back(stats.upload_ms);
    }
    emit("beside", ms, {{"work", "alone (upload_csr)"}, {"copy_threads", all_threads}});
  }
  const std::vector<std::pair<const char*, BesideWork>> works = {
      {"nothing", beside_work({})},
      {"round trips (400 memset + synchronize)",
       beside_work([](cudaStream_t stream) {
         detail::DeviceBuffer<int> word(1);
         for (int i = 0; i < 400; ++i) {
           TCSPARSE_CUDA_CHECK(cudaMemsetAsync(word.data(), 0, sizeof(int), stream));
           TCSPARSE_CUDA_CHECK(cudaStreamSynchronize(stream));
         }
       })},
      {"cudaMalloc + cudaFree (16 x 8 MiB, twice)",
       beside_work([](cudaStream_t) {
         for (int round = 0; round < 2; ++round) {
           std::vector<detail::DeviceBuffer<std::byte>> buffers;
           for (int i = 0; i < 16; ++i) buffers.emplace_back(kBesideAllocationBytes);
         }
       })},
      {"stream-ordered (16 x 8 MiB, twice)",
       beside_work(allocate_in_stream_order_twice,
                   [] { detail::release_unused_temporary_memory(); })},  // beside the values
      {"stream-ordered, the pool trimmed after the upload",
       beside_work(allocate_in_stream_order_twice)},
  };
  for (const auto& [label, work] : works)
    for (const int chunks : {detail::kStagingChunks, 2 * detail::kStagingChunks})
      for (const bool pregrown : {false, true}) {
        std::vector<double> ms, work_ms;
        for (int r = 0; r < kBesideRepeats; ++r) {
          // pregrown: the pool holds (mapped, unused) what the work allocates, before the upload
          detail::release_unused_temporary_memory();
          if (pregrown) {
            const detail::CudaStream stream;
            { auto grown = detail::DeviceBuffer<std::byte>::on_stream(std::size_t{160} << 20,
                                                                      stream.get()); }
            TCSPARSE_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
          }
          detail::UploadBesideTimes times;
          const detail::PackedDeviceCsr<Half> on_device = detail::upload_csr_beside<Half>(
              csr, HostUpload::automatic, work, times,
              {detail::kStagingChunkBytes, chunks, 0});
          ms.push_back(times.upload_ms);
          work_ms.push_back(times.work_ms);
        }
        emit("beside", ms,
             {{"work", label},
              {"chunks", chunks},
              {"pool_pregrown", pregrown},
              {"copy_threads", all_threads - 1},
              {"median_work_ms", best_and_median(work_ms).second}});
      }
  std::vector<double> build_ms, upload_ms;
  Json last;
  for (int r = 0; r < kBesideRepeats; ++r) {
    const Stopwatch watch;
    const SpmvPlan<Half> plan(csr, Method("dasp"));
    build_ms.push_back(watch.elapsed_ms());
    upload_ms.push_back(plan.stats().details.value("csr_upload_ms", 0.0));
    last = plan.stats().details;
  }
  Json extra = {{"work", "dasp plan"},
                {"median_build_ms", best_and_median(build_ms).second},
                {"builds_ms", build_ms}};
  if (last.contains("plan_phases_ms")) extra["last_plan_phases_ms"] = last["plan_phases_ms"];
  for (const char* key : {"csr_allocate_ms", "index_build_ms", "upload_waited_for_build_ms"})
    if (last.contains(key)) extra[key] = last[key];
  emit("dasp_plan", upload_ms, extra);
}

/// TCSPARSE_PROBE_BISECT: which part of DASP's device build, run beside the upload as the plan
/// runs it, slows the upload. Each work adds one step to the one before; the rounds alternate
/// the works so that drift spreads over all of them.
void probe_dasp_build_beside(const CsrMatrix<Half, std::int32_t>& csr, const std::string& name) {
  const std::size_t csr_bytes = csr.row_ptr.size() * 4 + csr.col_idx.size() * 6;
  const dasp::DaspParameters parameters = dasp::parse_parameters({});
  enum Step { nothing, rows_checked, index_built, columns_checked, storage_allocated };
  auto work_until = [&](Step last) -> BesideWork {
    return [&, last](const DeviceCsrView<Half>& view, detail::UploadLanded landed) {
      const detail::CudaStream stream;
      landed.row_ptr(stream.get());
      std::optional<dasp::DaspDeviceIndex> index;
      if (last >= rows_checked) detail::validate_device_row_offsets(view, stream.get());
      if (last >= index_built)
        index.emplace(dasp::build_index_on_device(view.row_ptr, view.rows, view.cols, view.nnz,
                                                  parameters, dasp::default_block_shape<Half>(),
                                                  2, nullptr, stream.get()));
      landed.col_idx(stream.get());
      if (last >= columns_checked) detail::validate_device_columns(view, stream.get());
      std::optional<detail::DeviceBuffer<std::byte>> storage;
      if (last >= storage_allocated)  // as DeviceLayout's values: from the pool, in order
        storage.emplace(detail::DeviceBuffer<std::byte>::from_pool(
            static_cast<std::size_t>(view.nnz) * 2 * 11 / 10, stream.get()));
      TCSPARSE_CUDA_CHECK(cudaStreamSynchronize(stream.get()));
    };
  };
  const std::pair<const char*, Step> works[] = {
      {"nothing", nothing},
      {"row offsets checked", rows_checked},
      {"+ index built", index_built},
      {"+ columns checked", columns_checked},
      {"+ values' storage from the pool", storage_allocated}};
  constexpr int kRounds = 5;
  std::vector<std::vector<double>> upload_ms(std::size(works)), work_ms(std::size(works));
  std::vector<double> plan_upload_ms, plan_build_ms;
  for (int round = 0; round < kRounds; ++round) {
    for (std::size_t w = 0; w < std::size(works); ++w) {
      detail::UploadBesideTimes times;
      {
        const detail::PackedDeviceCsr<Half> on_device = detail::upload_csr_beside<Half>(
            csr, HostUpload::automatic, work_until(works[w].second), times);
      }
      detail::release_unused_temporary_memory(detail::kTemporaryMemoryKeptBetweenBuilds);
      upload_ms[w].push_back(times.upload_ms);
      work_ms[w].push_back(times.work_ms);
    }
    const Stopwatch watch;
    const SpmvPlan<Half> plan(csr, Method("dasp"));
    plan_build_ms.push_back(watch.elapsed_ms());
    plan_upload_ms.push_back(plan.stats().details.value("csr_upload_ms", 0.0));
  }
  for (std::size_t w = 0; w < std::size(works); ++w) {
    Json j = record("bisect", csr_bytes, best_and_median(upload_ms[w]));
    j["matrix"] = name;
    j["work"] = works[w].first;
    j["median_work_ms"] = best_and_median(work_ms[w]).second;
    print(j);
  }
  Json j = record("bisect", csr_bytes, best_and_median(plan_upload_ms));
  j["matrix"] = name;
  j["work"] = "dasp plan";
  j["median_build_ms"] = best_and_median(plan_build_ms).second;
  print(j);
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
  // the same ring's bytes pinned by registering page-aligned memory, untouched or written first,
  // and the pool's own cold ring (StagingPool::acquire), each three times from fresh memory
  for (const char* how : {"host_register", "host_register_touched", "pool_acquire_cold"}) {
    const std::size_t ring_bytes = detail::kStagingChunkBytes * detail::kStagingChunks;
    std::vector<double> pin_ms, unpin_ms;
    for (int r = 0; r < kRepeats; ++r) {
      detail::StagingPool::clear();
      if (std::string(how) == "pool_acquire_cold") {
        Stopwatch watch;
        auto chunks = detail::StagingPool::acquire(detail::kStagingChunkBytes,
                                                   detail::kStagingChunks);
        pin_ms.push_back(watch.elapsed_ms());
        watch.restart();
        chunks.clear();
        unpin_ms.push_back(watch.elapsed_ms());
        continue;
      }
      const std::unique_ptr<void, void (*)(void*)> memory(std::aligned_alloc(4096, ring_bytes),
                                                          std::free);
      Stopwatch watch;
      if (std::string(how) == "host_register_touched") std::memset(memory.get(), 0, ring_bytes);
      TCSPARSE_CUDA_CHECK(cudaHostRegister(memory.get(), ring_bytes, cudaHostRegisterPortable));
      pin_ms.push_back(watch.elapsed_ms());
      watch.restart();
      TCSPARSE_CUDA_CHECK(cudaHostUnregister(memory.get()));
      unpin_ms.push_back(watch.elapsed_ms());
    }
    Json j = record(how, ring_bytes, best_and_median(pin_ms));
    j["unpin_median_ms"] = best_and_median(unpin_ms).second;
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
    if (std::getenv("TCSPARSE_PROBE_BISECT")) {
      probe_dasp_build_beside(convert_values<Half>(csr), argv[a]);
      continue;
    }
    if (std::getenv("TCSPARSE_PROBE_BESIDE"))
      probe_upload_beside(convert_values<Half>(csr), argv[a], all_threads);
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
