// Helpers of the reader tests (test_matrix_market.cpp, test_smtx.cpp): scratch files, error
// checks, and the real-matrix manifest.
#pragma once

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <functional>
#include <sstream>
#include <string>
#include <vector>

#include "core/file_io.hpp"
#include "tcsparse/error.hpp"

namespace tcsparse::test {

/// A fresh directory under the system temp dir, removed with everything in it at the end.
class ScratchDir {
 public:
  ScratchDir() {
    static std::atomic<int> counter{0};
    path_ = std::filesystem::temp_directory_path() /
            ("tcsparse-io-test-" + std::to_string(::getpid()) + "-" + std::to_string(counter++));
    std::filesystem::create_directories(path_);
  }
  ~ScratchDir() {
    std::error_code ignored;
    std::filesystem::remove_all(path_, ignored);
  }
  ScratchDir(const ScratchDir&) = delete;
  ScratchDir& operator=(const ScratchDir&) = delete;

  std::filesystem::path file(const std::string& name) const { return path_ / name; }

  /// Writes `bytes` as they are (gzip-compressed when the name ends in .gz).
  std::filesystem::path write(const std::string& name, std::string_view bytes) const {
    const auto path = file(name);
    detail::OutputFile out(path);
    out.write(bytes);
    out.close();
    return path;
  }

 private:
  std::filesystem::path path_;
};

inline std::string read_bytes(const std::filesystem::path& path) {
  std::ifstream in(path, std::ios::binary);
  std::ostringstream text;
  text << in.rdbuf();
  return text.str();
}

/// Runs `read` and checks that it throws a ParseError for `file` at `line` whose message holds
/// `fragment`; what() must start with "file:line: ".
inline void expect_parse_error(const std::function<void()>& read, const std::string& file,
                               std::int64_t line, const std::string& fragment) {
  try {
    read();
    ADD_FAILURE() << "expected a ParseError at " << file << ":" << line << " containing '"
                  << fragment << "', but nothing was thrown";
  } catch (const ParseError& error) {
    const std::string what = error.what();
    EXPECT_EQ(error.file(), file) << what;
    EXPECT_EQ(error.line(), line) << what;
    EXPECT_EQ(what.rfind(file + ":" + std::to_string(line) + ": ", 0), 0u) << what;
    EXPECT_NE(what.find(fragment), std::string::npos)
        << "message '" << what << "' lacks '" << fragment << "'";
  }
}

/// The real-matrix directory: $TCSPARSE_MATRIX_DIR, else TCSPARSE_DEFAULT_MATRIX_DIR; empty when
/// neither holds a MANIFEST.tsv.
inline std::filesystem::path real_matrix_dir() {
  std::vector<std::filesystem::path> candidates;
  if (const char* env = std::getenv("TCSPARSE_MATRIX_DIR"); env != nullptr && *env != '\0')
    candidates.emplace_back(env);
#ifdef TCSPARSE_DEFAULT_MATRIX_DIR
  candidates.emplace_back(TCSPARSE_DEFAULT_MATRIX_DIR);
#endif
  for (const auto& dir : candidates)
    if (std::filesystem::exists(dir / "MANIFEST.tsv")) return dir;
  return {};
}

/// One line of MANIFEST.tsv.
struct ManifestEntry {
  std::string file;      ///< relative to the matrix directory
  std::string kind;      ///< suitesparse, other, dlmc
  std::int64_t rows = 0, cols = 0, nnz_stored = 0, nnz_expanded = 0;
  std::string symmetry;  ///< e.g. "general", "symmetric;pattern", "general;complex"
};

inline std::vector<ManifestEntry> read_manifest(const std::filesystem::path& dir) {
  std::vector<ManifestEntry> entries;
  std::ifstream in(dir / "MANIFEST.tsv");
  std::string line;
  std::getline(in, line);  // column names
  while (std::getline(in, line)) {
    std::vector<std::string> fields;
    std::stringstream stream(line);
    std::string field;
    while (std::getline(stream, field, '\t')) fields.push_back(field);
    if (fields.size() < 8) continue;
    ManifestEntry entry;
    entry.file = fields[0];
    entry.kind = fields[2];
    entry.rows = std::stoll(fields[3]);
    entry.cols = std::stoll(fields[4]);
    entry.nnz_stored = std::stoll(fields[5]);
    entry.nnz_expanded = std::stoll(fields[6]);
    entry.symmetry = fields[7];
    if (std::filesystem::exists(dir / entry.file)) entries.push_back(entry);
  }
  return entries;
}

}  // namespace tcsparse::test
