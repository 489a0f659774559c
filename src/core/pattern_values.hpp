// Values for files that carry none (Matrix Market pattern files, DLMC .smtx), private to
// src/core: a pure function of (seed, entry number), so a reader gives the same matrix whatever
// its thread count. Values lie in [-1, -0.1] U [0.1, 1], like every generated value (random.hpp).
#pragma once

#include <cstdint>

#include "core/random.hpp"

namespace tcsparse::detail {

/// The purpose key of pattern values in stream_key (random.hpp): independent of generator streams.
inline constexpr std::uint64_t kPatternValuePurpose = 0x7061747465726eULL;  // "pattern"

/// The value of the `entry`-th stored entry (0-based, in file order) for `seed`.
constexpr double pattern_value(std::uint64_t seed, std::uint64_t entry) {
  return nonzero_value_from_bits(stream_key(seed, kPatternValuePurpose, entry));
}

}  // namespace tcsparse::detail
