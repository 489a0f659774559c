// The DLMC .smtx parser behind read_smtx, on text already in memory, and the .smtx writer
// (private to src/core).
#pragma once

#include <filesystem>
#include <string>
#include <string_view>

#include "tcsparse/csr.hpp"
#include "tcsparse/io.hpp"

namespace tcsparse::detail {

/// Parses a whole .smtx file held in `text`; `name` is used in the messages.
template <typename Value, typename Index>
CsrMatrix<Value, Index> parse_smtx_text(std::string_view text, const std::string& name,
                                        const ReadOptions& options, ReadReport* report = nullptr);

/// Writes a .smtx file: the topology only (values are not stored). Gzip-compressed when the
/// name ends in .gz.
template <typename Value, typename Index>
void write_smtx(const std::filesystem::path& path, const CsrMatrix<Value, Index>& matrix);

}  // namespace tcsparse::detail
