// The DLMC .smtx parser behind read_smtx, on text already in memory, and the .smtx writer
// (private to src/core).
#pragma once

#include <cstddef>
#include <filesystem>
#include <string>
#include <string_view>

#include "tcsparse/csr.hpp"
#include "tcsparse/io.hpp"

namespace tcsparse::detail {

/// Parses a whole .smtx file held in `text`; `name` is used in the messages. With
/// `header_only`, checks line 1 alone and returns an empty matrix.
template <typename Value, typename Index>
CsrMatrix<Value, Index> parse_smtx_text(std::string_view text, const std::string& name,
                                        const ReadOptions& options, ReadReport* report = nullptr,
                                        bool header_only = false);

/// The first bytes of a .smtx file read before its line 1 bounds the rest.
inline constexpr std::size_t kSmtxPrefixBytes = std::size_t{64} << 10;

/// The most bytes a .smtx text whose first bytes are `prefix` may have, from the sizes on its
/// line 1 (ParseError when line 1 does not end in `prefix`).
std::size_t smtx_text_limit(std::string_view prefix, const std::string& name);

/// Writes a .smtx file: the topology only (values are not stored). Gzip-compressed when the
/// name ends in .gz.
template <typename Value, typename Index>
void write_smtx(const std::filesystem::path& path, const CsrMatrix<Value, Index>& matrix);

}  // namespace tcsparse::detail
