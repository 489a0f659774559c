// Character-level helpers of the text readers (private to src/core).
#pragma once

#include <algorithm>
#include <charconv>
#include <cstdint>
#include <cstring>
#include <string>
#include <string_view>
#include <system_error>

namespace tcsparse::detail {

/// Whitespace inside a line. '\r' counts, so CRLF files read like LF files.
constexpr bool is_blank(char c) {
  return c == ' ' || c == '\t' || c == '\r' || c == '\v' || c == '\f';
}

inline const char* skip_blanks(const char* p, const char* end) {
  while (p < end && is_blank(*p)) ++p;
  return p;
}

/// The start of the next line (just past the next '\n'), or end.
inline const char* next_line(const char* p, const char* end) {
  const void* newline = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
  return newline == nullptr ? end : static_cast<const char*>(newline) + 1;
}

/// The end of the line starting at or containing p (its '\n', or end).
inline const char* line_end(const char* p, const char* end) {
  const void* newline = std::memchr(p, '\n', static_cast<std::size_t>(end - p));
  return newline == nullptr ? end : static_cast<const char*>(newline);
}

/// The token at p (up to the next blank or newline), shortened for messages and with
/// unprintable bytes escaped.
inline std::string token_preview(const char* p, const char* end, std::size_t max_length = 40) {
  std::string result;
  for (; p < end && *p != '\n' && !is_blank(*p); ++p) {
    if (result.size() >= max_length) {
      result += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(*p);
    if (c >= 0x20 && c < 0x7f) {
      result += static_cast<char>(c);
    } else {
      constexpr char kHex[] = "0123456789abcdef";
      result += "\\x";
      result += kHex[c >> 4];
      result += kHex[c & 15];
    }
  }
  return result;
}

/// A whole line (without its '\n' and trailing blanks), shortened and escaped for messages.
inline std::string line_preview(std::string_view line, std::size_t max_length = 80) {
  while (!line.empty() && is_blank(line.back())) line.remove_suffix(1);
  std::string result;
  for (const char ch : line) {
    if (result.size() >= max_length) {
      result += "...";
      break;
    }
    const auto c = static_cast<unsigned char>(ch);
    if ((c >= 0x20 && c < 0x7f) || c == '\t') {
      result += ch;
    } else {
      constexpr char kHex[] = "0123456789abcdef";
      result += "\\x";
      result += kHex[c >> 4];
      result += kHex[c & 15];
    }
  }
  return result;
}

/// True when p ends a token: end of text, a blank or a newline.
inline bool at_token_end(const char* p, const char* end) {
  return p == end || *p == '\n' || is_blank(*p);
}

/// Parses a decimal integer that must fill its whole token. On success returns the pointer
/// past it; on failure returns nullptr and sets `overflow` when the digits were fine but too
/// many.
inline const char* parse_integer_token(const char* p, const char* end, std::int64_t& value,
                                       bool& overflow) {
  overflow = false;
  const auto [next, error] = std::from_chars(p, end, value);
  if (error == std::errc::result_out_of_range) {
    overflow = at_token_end(next, end);
    return nullptr;
  }
  if (error != std::errc{} || !at_token_end(next, end)) return nullptr;
  return next;
}

/// Lower-case copy.
inline std::string lowercase(std::string_view text) {
  std::string result(text);
  std::transform(result.begin(), result.end(), result.begin(), [](unsigned char c) {
    return static_cast<char>(c >= 'A' && c <= 'Z' ? c - 'A' + 'a' : c);
  });
  return result;
}

}  // namespace tcsparse::detail
