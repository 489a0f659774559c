// Values for files that carry none (Matrix Market pattern files, DLMC .smtx), private to
// src/core: a pure function of (seed, entry number), so a reader gives the same matrix whatever
// its thread count.
#pragma once

#include <cstdint>

namespace tcsparse::detail {

/// splitmix64's finaliser (Steele, Lea, Flood: "Fast splittable pseudorandom number
/// generators", OOPSLA 2014): a bijective mix of 64 bits.
constexpr std::uint64_t mix64(std::uint64_t z) {
  z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
  z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
  return z ^ (z >> 31);
}

/// Smallest magnitude of a generated value: values lie in [-1, -0.1] U [0.1, 1], never zero
/// (the band the test and benchmark vectors use too).
inline constexpr double kPatternMinMagnitude = 0.1;

/// The value of the `entry`-th stored entry (0-based, in file order) for `seed`.
constexpr double pattern_value(std::uint64_t seed, std::uint64_t entry) {
  constexpr std::uint64_t kGolden = 0x9e3779b97f4a7c15ull;
  const std::uint64_t bits = mix64(mix64(seed + kGolden) ^ (entry * kGolden + 1));
  const double unit = static_cast<double>(bits >> 11) * 0x1.0p-53;  // [0, 1), 53 bits
  const double magnitude = kPatternMinMagnitude + (1.0 - kPatternMinMagnitude) * unit;
  return (bits & 1u) != 0 ? -magnitude : magnitude;
}

}  // namespace tcsparse::detail
