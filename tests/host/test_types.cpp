// half / bfloat16 conversions (round to nearest, ties to even; Inf, NaN, subnormals) and the
// precision names.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include "tcsparse/error.hpp"
#include "tcsparse/types.hpp"

namespace tcsparse {
namespace {

std::uint16_t half_bits(float value) { return half::from_float(value); }
std::uint16_t bf16_bits(float value) { return bfloat16::from_float(value); }

bool half_is_nan(std::uint16_t bits) { return (bits & 0x7c00u) == 0x7c00u && (bits & 0x03ffu) != 0; }
bool bf16_is_nan(std::uint16_t bits) { return (bits & 0x7f80u) == 0x7f80u && (bits & 0x007fu) != 0; }

// ---- half ---------------------------------------------------------------------------------------

TEST(Half, ExactValuesConvertExactly) {
  EXPECT_EQ(half_bits(1.0f), 0x3c00u);
  EXPECT_EQ(half_bits(-2.0f), 0xc000u);
  EXPECT_EQ(half_bits(0.5f), 0x3800u);
  EXPECT_EQ(half_bits(65504.0f), 0x7bffu);  // largest finite half
  EXPECT_EQ(half_bits(0.0f), 0x0000u);
  EXPECT_EQ(half_bits(-0.0f), 0x8000u);
}

TEST(Half, InexactValueRoundsToNearest) {
  EXPECT_EQ(half_bits(0.1f), 0x2e66u);                 // 0.0999755859375
  EXPECT_EQ(half_bits(1.0f + 0x1.8p-11f), 0x3c01u);    // 0.75 ulp above 1: rounds up
  EXPECT_EQ(half_bits(1.0f + 0x1.0p-12f), 0x3c00u);    // 0.25 ulp above 1: rounds down
}

TEST(Half, TiesRoundToEven) {
  EXPECT_EQ(half_bits(1.0f + 0x1.0p-11f), 0x3c00u);        // between 0x3c00 (even) and 0x3c01
  EXPECT_EQ(half_bits(1.0f + 3 * 0x1.0p-11f), 0x3c02u);    // between 0x3c01 and 0x3c02 (even)
  EXPECT_EQ(half_bits(-(1.0f + 0x1.0p-11f)), 0xbc00u);
}

TEST(Half, MantissaCarryBumpsTheExponent) {
  EXPECT_EQ(half_bits(2.0f - 0x1.0p-12f), 0x4000u);  // 1.11111111111|1 rounds up to 2
}

TEST(Half, OverflowGoesToInfinityFromTheMidpointAbove65504) {
  EXPECT_EQ(half_bits(65519.0f), 0x7bffu);
  EXPECT_EQ(half_bits(65520.0f), 0x7c00u);  // tie with an odd 65504: to even, i.e. Inf
  EXPECT_EQ(half_bits(1e10f), 0x7c00u);
  EXPECT_EQ(half_bits(-1e10f), 0xfc00u);
}

TEST(Half, InfinityAndNanArePreserved) {
  EXPECT_EQ(half_bits(std::numeric_limits<float>::infinity()), 0x7c00u);
  EXPECT_EQ(half_bits(-std::numeric_limits<float>::infinity()), 0xfc00u);
  EXPECT_TRUE(half_is_nan(half_bits(std::numeric_limits<float>::quiet_NaN())));
  // A NaN whose payload sits only in the low bits must not become Inf.
  EXPECT_TRUE(half_is_nan(half_bits(std::bit_cast<float>(0x7f800001u))));
  EXPECT_TRUE(std::isnan(half::to_float(0x7e00u)));
  EXPECT_TRUE(std::isinf(half::to_float(0xfc00u)));
}

TEST(Half, SubnormalsRoundToNearestEven) {
  EXPECT_EQ(half_bits(0x1.0p-24f), 0x0001u);                 // smallest subnormal
  EXPECT_EQ(half_bits(0x1.0p-25f), 0x0000u);                 // half of it: tie to even 0
  EXPECT_EQ(half_bits(0x1.000002p-25f), 0x0001u);            // just above the tie
  EXPECT_EQ(half_bits(3 * 0x1.0p-25f), 0x0002u);             // 1.5 units: tie to even 2
  EXPECT_EQ(half_bits(5 * 0x1.0p-25f), 0x0002u);             // 2.5 units: tie to even 2
  EXPECT_EQ(half_bits(0x1.0p-14f - 0x1.0p-25f), 0x0400u);    // rounds up into the normals
  EXPECT_EQ(half_bits(0x1.0p-30f), 0x0000u);
  EXPECT_EQ(half_bits(-0x1.0p-24f), 0x8001u);
}

TEST(Half, ToFloatDecodesNormalsAndSubnormals) {
  EXPECT_EQ(half::to_float(0x0001u), 0x1.0p-24f);
  EXPECT_EQ(half::to_float(0x03ffu), 1023 * 0x1.0p-24f);
  EXPECT_EQ(half::to_float(0x7bffu), 65504.0f);
  EXPECT_EQ(half::to_float(0x3555u), 0.333251953125f);
  EXPECT_TRUE(std::signbit(half::to_float(0x8000u)));
}

TEST(Half, EveryNonNanHalfSurvivesARoundTripThroughFloat) {
  for (std::uint32_t bits = 0; bits <= 0xffffu; ++bits) {
    const auto h = static_cast<std::uint16_t>(bits);
    if (half_is_nan(h)) continue;
    ASSERT_EQ(half::from_float(half::to_float(h)), h) << "bits 0x" << std::hex << bits;
  }
}

TEST(Half, RandomFloatsRoundToTheNearestHalf) {
  std::mt19937 random(1234);
  std::uniform_real_distribution<float> exponent(-26.0f, 15.9f);  // below 65504
  for (int i = 0; i < 200000; ++i) {
    const float value = std::exp2(exponent(random)) * (i % 2 ? 1.0f : -1.0f);
    const std::uint16_t h = half::from_float(value);
    const double rounded = half::to_float(h);
    // Neither neighbour (one step towards and away from zero) is strictly closer; on a tie the
    // chosen one is even.
    for (const int step : {-1, 1}) {
      const auto neighbour_bits = static_cast<std::uint16_t>(h + step);
      if ((h & 0x7fffu) == 0 && step < 0) continue;
      if ((neighbour_bits & 0x7c00u) == 0x7c00u) continue;  // beyond the finite range
      const double neighbour = half::to_float(neighbour_bits);
      const double error = std::abs(rounded - value), other = std::abs(neighbour - value);
      ASSERT_LE(error, other) << value;
      if (error == other) {
        ASSERT_EQ(h & 1u, 0u) << "tie not to even for " << value;
      }
    }
  }
}

TEST(Half, ConstructorsAndConversionOperatorsAgree) {
  EXPECT_EQ(half(0.1).bits, half(0.1f).bits);
  EXPECT_EQ(static_cast<double>(half(3.0f)), 3.0);
  EXPECT_EQ(to_double(from_double<half>(-0.25)), -0.25);
}

// ---- bfloat16 -----------------------------------------------------------------------------------

TEST(Bfloat16, ExactValuesConvertExactly) {
  EXPECT_EQ(bf16_bits(1.0f), 0x3f80u);
  EXPECT_EQ(bf16_bits(-2.0f), 0xc000u);
  EXPECT_EQ(bf16_bits(0.0f), 0x0000u);
  EXPECT_EQ(bf16_bits(-0.0f), 0x8000u);
}

TEST(Bfloat16, RoundsToNearestWithTiesToEven) {
  EXPECT_EQ(bf16_bits(1.0f + 0x1.0p-8f), 0x3f80u);                // tie: to even 0x3f80
  EXPECT_EQ(bf16_bits(1.0f + 3 * 0x1.0p-8f), 0x3f82u);            // tie: to even 0x3f82
  EXPECT_EQ(bf16_bits(1.0f + 0x1.0p-8f + 0x1.0p-20f), 0x3f81u);   // just above the tie
  EXPECT_EQ(bf16_bits(1.0f + 0x1.0p-9f), 0x3f80u);                // below the tie
}

TEST(Bfloat16, OverflowRoundsToInfinity) {
  EXPECT_EQ(bf16_bits(std::numeric_limits<float>::max()), 0x7f80u);
  EXPECT_EQ(bf16_bits(-std::numeric_limits<float>::max()), 0xff80u);
  EXPECT_EQ(bf16_bits(std::numeric_limits<float>::infinity()), 0x7f80u);
}

TEST(Bfloat16, NanStaysNanEvenWithALowPayload) {
  EXPECT_TRUE(bf16_is_nan(bf16_bits(std::numeric_limits<float>::quiet_NaN())));
  EXPECT_TRUE(bf16_is_nan(bf16_bits(std::bit_cast<float>(0x7f800001u))));
  EXPECT_TRUE(std::isnan(static_cast<float>(bfloat16(std::numeric_limits<float>::quiet_NaN()))));
}

TEST(Bfloat16, SubnormalsRoundLikeNormals) {
  EXPECT_EQ(bf16_bits(std::bit_cast<float>(0x00008000u)), 0x0000u);  // tie to even 0
  EXPECT_EQ(bf16_bits(std::bit_cast<float>(0x00018000u)), 0x0002u);  // tie to even 2
  EXPECT_EQ(bf16_bits(std::bit_cast<float>(0x00008001u)), 0x0001u);
}

TEST(Bfloat16, EveryNonNanValueSurvivesARoundTripThroughFloat) {
  for (std::uint32_t bits = 0; bits <= 0xffffu; ++bits) {
    const auto b = static_cast<std::uint16_t>(bits);
    if (bf16_is_nan(b)) continue;
    bfloat16 value;
    value.bits = b;
    ASSERT_EQ(bfloat16::from_float(static_cast<float>(value)), b) << "bits 0x" << std::hex << bits;
  }
}

// ---- precision names ----------------------------------------------------------------------------

TEST(Precision, NamesRoundTrip) {
  for (const Precision p : {Precision::fp64, Precision::fp32, Precision::fp16, Precision::bf16})
    EXPECT_EQ(parse_precision(to_string(p)), p);
  EXPECT_EQ(to_string(Precision::fp64), "fp64");
  EXPECT_EQ(to_string(Precision::bf16), "bf16");
}

TEST(Precision, TypeNamesAreAcceptedAsAliases) {
  EXPECT_EQ(parse_precision("double"), Precision::fp64);
  EXPECT_EQ(parse_precision("float"), Precision::fp32);
  EXPECT_EQ(parse_precision("half"), Precision::fp16);
  EXPECT_EQ(parse_precision("bfloat16"), Precision::bf16);
  EXPECT_EQ(parse_precision("FP16"), Precision::fp16);
}

TEST(Precision, UnknownNameIsAnErrorListingTheAcceptedOnes) {
  try {
    parse_precision("fp8");
    FAIL() << "no exception";
  } catch (const Error& error) {
    const std::string what = error.what();
    EXPECT_NE(what.find("'fp8'"), std::string::npos) << what;
    EXPECT_NE(what.find("fp64, fp32, fp16 or bf16"), std::string::npos) << what;
  }
}

TEST(Precision, PrecisionOfMatchesTheValueType) {
  static_assert(precision_of<double>() == Precision::fp64);
  static_assert(precision_of<half>() == Precision::fp16);
  EXPECT_EQ(precision_of<float>(), Precision::fp32);
  EXPECT_EQ(precision_of<bfloat16>(), Precision::bf16);
}

}  // namespace
}  // namespace tcsparse
