// The measured choice of Method("auto") (PlanOptions::auto_measure): the rule's trial methods
// (AutoChoice::trial_methods) are built one after the other, each is timed on the matrix with a
// few applies on a private stream, and the fastest is kept. At most two method objects are alive
// at once (the fastest so far and the one being timed), so the peak memory is about twice one
// plan's.
//
//   build(method) -> object      timer(object) -> ms per apply
//   ┌─────────────┐   ┌────────────────────────────────────────────────┐
//   │ candidate k │ → │ warm-up │ round 1 │ ... │ round kAutoTrialRounds │ → kept if fastest
//   └─────────────┘   └────────────────────────────────────────────────┘
//
// A candidate that cannot take the request (UnsupportedError: e.g. tca and column-major B and
// C) or does not fit the GPU (DeviceMemoryError) is skipped and noted, under the rule-only choice
// too (the next candidate is built instead); if none can be built, the first such error is
// thrown. Any other error (an invalid matrix, a CUDA failure) ends the build at once.
#pragma once

#include <algorithm>
#include <chrono>
#include <cmath>
#include <exception>
#include <limits>
#include <memory>
#include <optional>
#include <string>

#include "plan/auto_choice.hpp"
#include "runtime/cuda_check.hpp"
#include "runtime/device_buffer.hpp"
#include "runtime/stream_gate.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::detail {

/// Warm-up per candidate: applies until this much GPU time has passed (and at least two), so
/// that caches and a method's lazy set-up are out of the way of the rounds.
inline constexpr double kAutoTrialWarmupMs = 0.25;
/// Timed rounds per candidate; the fastest round counts (a neighbour's burst or a clock step
/// only ever makes a round slower).
inline constexpr int kAutoTrialRounds = 5;
/// A round lasts at least this long: CUDA events resolve about 0.5 us, so a round is timed to
/// 1 %; a small matrix batches applies until it lasts that long (the bench's kMinTimedRunMs).
inline constexpr double kAutoTrialRoundMs = 0.05;
/// Most applies in one round: all of them are enqueued behind a closed StreamGate before it
/// opens, which the launch queue holds (the bench harness's kAppliesPerGate).
inline constexpr int kAutoTrialMaxApplies = 128;
/// The longest a round's gate holds the stream (it opens as soon as the round is enqueued).
inline constexpr double kAutoTrialGateTimeoutMs = 50.0;

/// Per-apply milliseconds of `apply(stream)` on the GPU: a warm-up, then the fastest of
/// kAutoTrialRounds rounds, each enqueued behind `gate` so that the events time the GPU's
/// applies back to back, not the host enqueueing them. Synchronises `stream`.
template <typename Apply>
double fastest_apply_ms(const Apply& apply, cudaStream_t stream, StreamGate& gate) {
  CudaEvent start, stop;
  const auto round_ms = [&](int applies) {
    gate.close(stream, kAutoTrialGateTimeoutMs);
    start.record(stream);
    for (int k = 0; k < applies; ++k) apply(stream);
    stop.record(stream);
    gate.open();
    stop.synchronize();
    return static_cast<double>(stop.elapsed_ms_since(start)) / applies;
  };
  double warmed_ms = 0.0, per_apply_ms = 0.0;
  for (int applies = 1, done = 0; done < 2 || warmed_ms < kAutoTrialWarmupMs; done += applies) {
    per_apply_ms = std::max(round_ms(applies), 1e-6);
    warmed_ms += per_apply_ms * applies;
    applies = std::min(2 * applies, kAutoTrialMaxApplies);
  }
  const int applies = static_cast<int>(std::clamp(std::ceil(kAutoTrialRoundMs / per_apply_ms), 1.0,
                                                  double{kAutoTrialMaxApplies}));
  double fastest = std::numeric_limits<double>::infinity();
  for (int round = 0; round < kAutoTrialRounds; ++round) fastest = std::min(fastest, round_ms(applies));
  return fastest;
}

/// Times a method object's applies on zeroed operands of the plan's shape, y = 1 * A x + 0 * y
/// (C = 1 * A B + 0 * C), on its own stream behind its own gate: the `timer` of
/// build_auto_choice. Object: SpmvMethod<Input> or SpmmMethod<Input>.
template <typename Object, typename Input, typename Output>
struct TrialTimer {
  TrialTimer(std::size_t input_count, std::size_t output_count)
      : input(input_count), output(output_count) {
    input.fill_bytes(0);
    output.fill_bytes(0);
  }
  double operator()(const Object& method) {
    return fastest_apply_ms(
        [&](cudaStream_t s) {
          method.apply(input.data(), output.data(), scalar_t<Input>(1), scalar_t<Input>(0), s);
        },
        stream.get(), gate);
  }

  DeviceBuffer<Input> input;
  DeviceBuffer<Output> output;
  CudaStream stream;
  StreamGate gate;
};

/// The method object "auto" keeps and the method it is.
template <typename Object>
struct AutoBuilt {
  std::unique_ptr<Object> object;
  Method method;
};

/// Builds `choice`'s trial methods with `build(method)` and keeps the one `timer(object)` finds
/// fastest (ties: the rule's rank); with `measure` false, the first that builds. Appends to
/// `measured` one {"method", "build_ms", "apply_ms", "trial_ms"} (trial_ms: the wall time of its
/// timing) or {"method", "skipped"} per candidate tried.
template <typename Object, typename Build, typename MakeTimer>
AutoBuilt<Object> build_auto_choice(const AutoChoice& choice, bool measure, Build&& build,
                                    MakeTimer&& make_timer, Json& measured) {
  using Clock = std::chrono::steady_clock;
  AutoBuilt<Object> best{nullptr, choice.chosen};
  double best_ms = std::numeric_limits<double>::infinity();
  std::exception_ptr first_error;
  std::optional<decltype(make_timer())> timer;  // its buffers: made once, when first needed
  for (const Method method : choice.trial_methods) {
    Json entry{{"method", std::string(method.name())}};
    std::unique_ptr<Object> object;
    const auto started = Clock::now();
    try {
      object = build(method);
      TCSPARSE_CUDA_CHECK(cudaDeviceSynchronize());  // the build complete before any timing
    } catch (const UnsupportedError& error) {
      if (!first_error) first_error = std::current_exception();
      entry["skipped"] = error.what();
    } catch (const DeviceMemoryError& error) {
      if (!first_error) first_error = std::current_exception();
      entry["skipped"] = error.what();
    }
    if (!object) {
      if (measure) measured.push_back(std::move(entry));
      continue;
    }
    if (!measure) return {std::move(object), method};
    const auto built = Clock::now();
    entry["build_ms"] = std::chrono::duration<double, std::milli>(built - started).count();
    if (!timer) timer.emplace(make_timer());
    const double apply_ms = (*timer)(*object);
    entry["apply_ms"] = apply_ms;
    entry["trial_ms"] = std::chrono::duration<double, std::milli>(Clock::now() - built).count();
    measured.push_back(std::move(entry));
    if (apply_ms < best_ms) {
      best_ms = apply_ms;
      best = {std::move(object), method};
    }
  }
  if (!best.object) {
    if (first_error) std::rethrow_exception(first_error);
    throw Error("method 'auto': no candidate method to build");
  }
  return best;
}

}  // namespace tcsparse::detail
