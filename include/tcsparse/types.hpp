// Value and index types of tcsparse, and the precisions they stand for.
//
// Public headers carry no CUDA types: `half` and `bfloat16` here are 16-bit host storage types
// with the same bit layout as CUDA's `__half` and `__nv_bfloat16`, so a device kernel may
// reinterpret a buffer of one as a buffer of the other.
#pragma once

#include <bit>
#include <cstdint>
#include <string_view>
#include <type_traits>

namespace tcsparse {

/// IEEE 754 binary16, stored as its bits. Conversions round to nearest, ties to even.
struct half {
  std::uint16_t bits = 0;

  half() = default;
  explicit half(float value) : bits(from_float(value)) {}
  explicit half(double value) : half(static_cast<float>(value)) {}
  explicit operator float() const { return to_float(bits); }
  explicit operator double() const { return to_float(bits); }

  static std::uint16_t from_float(float value);
  static float to_float(std::uint16_t bits);
};

/// bfloat16 (the upper half of a binary32), stored as its bits. Round to nearest, ties to even.
struct bfloat16 {
  std::uint16_t bits = 0;

  bfloat16() = default;
  explicit bfloat16(float value) : bits(from_float(value)) {}
  explicit bfloat16(double value) : bfloat16(static_cast<float>(value)) {}
  explicit operator float() const { return std::bit_cast<float>(std::uint32_t{bits} << 16); }
  explicit operator double() const { return static_cast<float>(*this); }

  static std::uint16_t from_float(float value);
};

static_assert(sizeof(half) == 2 && sizeof(bfloat16) == 2);

/// The precisions a product can run in. fp16 and bf16 inputs are always accumulated in fp32.
enum class Precision { fp64, fp32, fp16, bf16 };

std::string_view to_string(Precision precision);
/// Parses "fp64", "fp32", "fp16", "bf16" (also "double", "float", "half", "bfloat16").
/// Throws tcsparse::Error naming the accepted spellings otherwise.
Precision parse_precision(std::string_view text);

template <typename Value>
inline constexpr bool is_value_type_v =
    std::is_same_v<Value, double> || std::is_same_v<Value, float> ||
    std::is_same_v<Value, half> || std::is_same_v<Value, bfloat16>;

template <typename Index>
inline constexpr bool is_index_type_v =
    std::is_same_v<Index, std::int32_t> || std::is_same_v<Index, std::int64_t>;

template <typename Value>
constexpr Precision precision_of() {
  static_assert(is_value_type_v<Value>);
  if constexpr (std::is_same_v<Value, double>) return Precision::fp64;
  else if constexpr (std::is_same_v<Value, float>) return Precision::fp32;
  else if constexpr (std::is_same_v<Value, half>) return Precision::fp16;
  else return Precision::bf16;
}

/// The type of alpha, beta and of the accumulator on the GPU: double for fp64, float otherwise.
template <typename Value>
using scalar_t = std::conditional_t<std::is_same_v<Value, double>, double, float>;

/// Converts any value type to double / from double, for references and generators.
template <typename Value>
constexpr double to_double(Value v) {
  return static_cast<double>(v);
}
template <typename Value>
constexpr Value from_double(double v) {
  if constexpr (std::is_same_v<Value, half> || std::is_same_v<Value, bfloat16>)
    return Value(static_cast<float>(v));
  else
    return static_cast<Value>(v);
}

/// Calls `f(Value{})` with the value type that `precision` names.
template <typename F>
decltype(auto) dispatch_precision(Precision precision, F&& f) {
  switch (precision) {
    case Precision::fp64: return f(double{});
    case Precision::fp32: return f(float{});
    case Precision::fp16: return f(half{});
    case Precision::bf16: break;
  }
  return f(bfloat16{});
}

}  // namespace tcsparse
