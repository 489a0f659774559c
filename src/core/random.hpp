// Deterministic random numbers for the generators and the reference's random vectors.
//
// Every stream is a splitmix64 sequence whose start is a hash of (seed, purpose, index): a row's
// entries come from the stream of (seed, purpose, row), so a matrix is the same whatever the
// number of OpenMP threads that filled it, and rows can be generated in any order.
#pragma once

#include <cmath>
#include <cstdint>

namespace tcsparse::detail {

/// The splitmix64 finaliser: a bijective 64-bit mix with good avalanche.
constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
  return z ^ (z >> 31);
}

/// Weyl increment of splitmix64 (the golden ratio in 64 bits).
inline constexpr std::uint64_t golden_gamma = 0x9E3779B97F4A7C15ULL;

/// The start of the stream for `index` of `purpose` (a constant per use, so that e.g. row lengths
/// and row contents drawn from one seed are independent).
constexpr std::uint64_t stream_key(std::uint64_t seed, std::uint64_t purpose, std::uint64_t index) {
  return mix64(mix64(seed ^ mix64(purpose + golden_gamma)) + index * golden_gamma);
}

/// A splitmix64 generator: 64 random bits per call, a few cycles each.
class Random {
 public:
  constexpr explicit Random(std::uint64_t key) : state_(key) {}
  Random(std::uint64_t seed, std::uint64_t purpose, std::uint64_t index)
      : state_(stream_key(seed, purpose, index)) {}

  constexpr std::uint64_t next() { return mix64(state_ += golden_gamma); }

  /// Uniform in [0, 1) with 53 random bits.
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }

  /// Uniform in [0, bound) for 0 < bound <= 2^32 (Lemire's multiply-shift; bias below 2^-32
  /// per draw, negligible for test data).
  std::uint32_t below(std::uint64_t bound) {
    return static_cast<std::uint32_t>(((next() >> 32) * bound) >> 32);
  }

  /// Uniform in [0, bound) for any 0 < bound < 2^63 (modulo above 2^32: bias below 2^-31).
  std::int64_t below64(std::int64_t bound) {
    const auto b = static_cast<std::uint64_t>(bound);
    if (b <= (std::uint64_t{1} << 32)) return below(b);
    return static_cast<std::int64_t>(next() % b);
  }

  /// Standard normal (Box-Muller, one of the pair).
  double normal() {
    const double u1 = 1.0 - unit();  // (0, 1]: log is finite
    const double u2 = unit();
    return std::sqrt(-2.0 * std::log(u1)) * std::cos(6.283185307179586 * u2);
  }

 private:
  std::uint64_t state_;
};

/// Smallest magnitude of a generated value: values are uniform in [-1, -0.1] U [0.1, 1], so
/// never zero, never all equal, and well inside the range of fp16 / bf16.
inline constexpr double min_value_magnitude = 0.1;

/// A value uniform in [-1, -0.1] U [0.1, 1] from 64 random bits (the top bit gives the sign).
constexpr double nonzero_value_from_bits(std::uint64_t bits) {
  const double unit = static_cast<double>((bits << 1) >> 11) * 0x1.0p-53;
  const double magnitude = min_value_magnitude + (1.0 - min_value_magnitude) * unit;
  return (bits >> 63) ? -magnitude : magnitude;
}

}  // namespace tcsparse::detail
