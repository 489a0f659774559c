// Holds a stream while the host enqueues a timed batch, so that the batch's applies run back to
// back at the GPU's pace rather than at the pace the host enqueues them: the bench harness's timed
// runs and the trials of a measured "auto" choice (plan/auto_measure.hpp).
#pragma once

#include <cuda_runtime.h>

#include "runtime/host_upload.hpp"

namespace tcsparse::detail {

/// A counter in pinned host memory and a one-thread kernel that spins on it: close() puts a kernel
/// waiting for the next count on the stream, open() writes that count. A gate can be closed again
/// at once: each close waits for its own count, so a kernel still spinning for an earlier one is
/// not held back. Without it, a host slowed by other work (the bench's own CPU reference threads,
/// another process) leaves the GPU idle between applies, and the events time the host: a 4 us
/// apply of a tiny matrix read 33 us in some runs. The kernel gives up after
/// `timeout_ms` (the host may block while enqueueing when the launch queue is full, before it can
/// open the gate), so a stream is never held for longer than that.
class StreamGate {
 public:
  StreamGate();
  /// The stream waits at this point until open() or `timeout_ms`.
  void close(cudaStream_t stream, double timeout_ms);
  /// Lets the stream go on.
  void open();

 private:
  PinnedHostBuffer<unsigned> opened_;  ///< the last count opened
  unsigned closed_ = 0;                         ///< the last count a kernel waits for
};

}  // namespace tcsparse::detail
