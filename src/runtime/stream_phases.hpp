// The steps of a plan build on the GPU timed by CUDA events on its stream, so that timing them
// does not make the host wait for the stream between steps (a wait costs as much as a small
// step's kernels). Read laps() once the stream has finished the build.
#pragma once

#include <cuda_runtime_api.h>

#include <string>
#include <utility>
#include <vector>

#include "runtime/device_buffer.hpp"

namespace tcsparse::detail {

class StreamPhaseTimes {
 public:
  /// The first step starts with the stream's work enqueued from now on.
  explicit StreamPhaseTimes(cudaStream_t stream) : stream_(stream) {
    marks_.emplace_back().record(stream_);
  }

  /// The step `name` ends with the stream's work enqueued so far: its time on the stream is from
  /// the previous step's end (its kernels, copies and the gaps while the host enqueued them).
  void lap(std::string name) {
    names_.push_back(std::move(name));
    marks_.emplace_back().record(stream_);
  }

  /// (step, milliseconds) of every lap; waits for the last one.
  std::vector<std::pair<std::string, double>> laps() const {
    std::vector<std::pair<std::string, double>> times;
    if (names_.empty()) return times;
    marks_.back().synchronize();
    for (std::size_t i = 0; i < names_.size(); ++i)
      times.emplace_back(names_[i], marks_[i + 1].elapsed_ms_since(marks_[i]));
    return times;
  }

 private:
  cudaStream_t stream_;
  std::vector<CudaEvent> marks_;
  std::vector<std::string> names_;
};

}  // namespace tcsparse::detail
