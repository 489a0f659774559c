// 16-bit float conversions (round to nearest, ties to even) and precision names.
#include "tcsparse/types.hpp"

#include <algorithm>
#include <bit>
#include <cctype>
#include <string>

#include "tcsparse/error.hpp"

namespace tcsparse {

namespace {

// binary32: 1 sign bit, 8 exponent bits (bias 127), 23 mantissa bits.
// binary16: 1 sign bit, 5 exponent bits (bias 15), 10 mantissa bits.
constexpr std::uint32_t kFloatAbsMask = 0x7fffffffu;
constexpr std::uint32_t kFloatInfinity = 0x7f800000u;
constexpr int kFloatMantissaBits = 23;
constexpr int kHalfMantissaBits = 10;
constexpr int kMantissaShift = kFloatMantissaBits - kHalfMantissaBits;  // 13
constexpr std::uint32_t kExponentBiasDifference = 127 - 15;            // 112
constexpr std::uint16_t kHalfInfinity = 0x7c00u;
constexpr std::uint16_t kHalfQuietNanBit = 0x0200u;
constexpr std::uint16_t kHalfMantissaMask = 0x03ffu;
/// 65520 = (65504 + 65536) / 2: the midpoint above the largest finite half. Ties go to the even
/// neighbour, which is infinity (65504 has an odd mantissa), so everything from here on is Inf.
constexpr std::uint32_t kHalfOverflowThreshold = 0x477ff000u;
/// 2^-14, the smallest normal half.
constexpr std::uint32_t kHalfMinNormal = 0x38800000u;
/// 2^-25, half of the smallest subnormal half (2^-24): at or below it the result is zero
/// (exactly 2^-25 is a tie and goes to the even neighbour, zero).
constexpr std::uint32_t kHalfUnderflowThreshold = 0x33000000u;

/// Rounds `value >> shift` to nearest, ties to even.
constexpr std::uint32_t shift_right_round_even(std::uint32_t value, int shift) {
  const std::uint32_t kept = value >> shift;
  const std::uint32_t remainder = value & ((1u << shift) - 1u);
  const std::uint32_t halfway = 1u << (shift - 1);
  return kept + ((remainder > halfway || (remainder == halfway && (kept & 1u))) ? 1u : 0u);
}

std::string lowercase(std::string_view text) {
  std::string result(text);
  std::transform(result.begin(), result.end(), result.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return result;
}

}  // namespace

std::uint16_t half::from_float(float value) {
  const std::uint32_t bits32 = std::bit_cast<std::uint32_t>(value);
  const auto sign = static_cast<std::uint16_t>((bits32 >> 16) & 0x8000u);
  const std::uint32_t magnitude = bits32 & kFloatAbsMask;

  if (magnitude >= kFloatInfinity) {
    if (magnitude == kFloatInfinity) return static_cast<std::uint16_t>(sign | kHalfInfinity);
    // NaN: keep the top payload bits and make sure the result is a (quiet) NaN.
    const auto payload = static_cast<std::uint16_t>((magnitude >> kMantissaShift) & kHalfMantissaMask);
    return static_cast<std::uint16_t>(sign | kHalfInfinity | kHalfQuietNanBit | payload);
  }
  if (magnitude >= kHalfOverflowThreshold) return static_cast<std::uint16_t>(sign | kHalfInfinity);
  if (magnitude >= kHalfMinNormal) {
    const std::uint32_t rebased = magnitude - (kExponentBiasDifference << kFloatMantissaBits);
    // A carry out of the mantissa correctly bumps the exponent.
    return static_cast<std::uint16_t>(sign | shift_right_round_even(rebased, kMantissaShift));
  }
  if (magnitude <= kHalfUnderflowThreshold) return sign;
  // Subnormal half: the result counts units of 2^-24. A float 1.m * 2^(e-127) is
  // (2^23 + m) * 2^(e-150) = (2^23 + m) >> (126 - e) units; 126 - e lies in [14, 24].
  const int biased_exponent = static_cast<int>(magnitude >> kFloatMantissaBits);
  const std::uint32_t significand = (magnitude & 0x007fffffu) | 0x00800000u;
  return static_cast<std::uint16_t>(sign |
                                    shift_right_round_even(significand, 126 - biased_exponent));
}

float half::to_float(std::uint16_t bits) {
  const std::uint32_t sign = static_cast<std::uint32_t>(bits & 0x8000u) << 16;
  const std::uint32_t exponent = (bits >> kHalfMantissaBits) & 0x1fu;
  const std::uint32_t mantissa = bits & kHalfMantissaMask;
  if (exponent == 0x1fu)  // Inf or NaN (payload kept)
    return std::bit_cast<float>(sign | kFloatInfinity | (mantissa << kMantissaShift));
  if (exponent == 0) {
    // Zero or subnormal: mantissa * 2^-24, exact in float.
    const float magnitude = static_cast<float>(mantissa) * 0x1.0p-24f;
    return sign ? -magnitude : magnitude;
  }
  return std::bit_cast<float>(sign | ((exponent + kExponentBiasDifference) << kFloatMantissaBits) |
                              (mantissa << kMantissaShift));
}

std::uint16_t bfloat16::from_float(float value) {
  const std::uint32_t bits32 = std::bit_cast<std::uint32_t>(value);
  if ((bits32 & kFloatAbsMask) > kFloatInfinity) {
    // NaN: truncate the payload and set the quiet bit so that it stays a NaN.
    return static_cast<std::uint16_t>((bits32 >> 16) | 0x0040u);
  }
  // Round to nearest even on the 16 dropped bits; overflow carries into Inf as it should.
  const std::uint32_t rounding_bias = 0x7fffu + ((bits32 >> 16) & 1u);
  return static_cast<std::uint16_t>((bits32 + rounding_bias) >> 16);
}

std::string_view to_string(Precision precision) {
  switch (precision) {
    case Precision::fp64: return "fp64";
    case Precision::fp32: return "fp32";
    case Precision::fp16: return "fp16";
    case Precision::bf16: return "bf16";
  }
  return "unknown";
}

Precision parse_precision(std::string_view text) {
  const std::string name = lowercase(text);
  if (name == "fp64" || name == "double") return Precision::fp64;
  if (name == "fp32" || name == "float") return Precision::fp32;
  if (name == "fp16" || name == "half") return Precision::fp16;
  if (name == "bf16" || name == "bfloat16") return Precision::bf16;
  throw Error("unknown precision '" + std::string(text) +
              "': expected fp64, fp32, fp16 or bf16 (or double, float, half, bfloat16)");
}

}  // namespace tcsparse
