// Rounding sizes up to an alignment, for arrays laid out one after another in one allocation
// (csr_full_overlap's slots, tca's tile arrays).
#pragma once

#include <cstddef>

namespace tcsparse::detail {

/// `bytes` rounded up to a multiple of `alignment`.
constexpr std::size_t align_up(std::size_t bytes, std::size_t alignment) {
  return (bytes + alignment - 1) / alignment * alignment;
}

}  // namespace tcsparse::detail
