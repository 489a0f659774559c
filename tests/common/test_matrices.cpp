// The shared catalogue of test matrices (see test_matrices.hpp).
#include "common/test_matrices.hpp"

#include <algorithm>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <map>
#include <sstream>
#include <stdexcept>

#include "tcsparse/generate.hpp"
#include "tcsparse/io.hpp"

namespace tcsparse::test {
namespace {

using Matrix = CsrMatrix<double, std::int32_t>;

/// splitmix64: a small deterministic generator, independent of the standard library's
/// distributions so that the catalogue is the same on every platform.
class SplitMix64 {
 public:
  explicit SplitMix64(std::uint64_t seed) : state_(seed) {}
  std::uint64_t next() {
    std::uint64_t z = (state_ += 0x9E3779B97F4A7C15ULL);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, bound).
  std::int64_t below(std::int64_t bound) {
    return static_cast<std::int64_t>(next() % static_cast<std::uint64_t>(bound));
  }
  double unit() { return static_cast<double>(next() >> 11) * 0x1.0p-53; }
  /// Uniform in [-1, -0.1] U [0.1, 1].
  double nonzero_value() {
    const double magnitude = 0.1 + 0.9 * unit();
    return (next() & 1U) ? magnitude : -magnitude;
  }

 private:
  std::uint64_t state_;
};

/// The same lengths in a random order (Fisher-Yates).
std::vector<std::int64_t> shuffled(std::vector<std::int64_t> lengths, std::uint64_t seed) {
  SplitMix64 rng(seed);
  for (std::size_t i = lengths.size(); i > 1; --i)
    std::swap(lengths[i - 1],
              lengths[static_cast<std::size_t>(rng.below(static_cast<std::int64_t>(i)))]);
  return lengths;
}

std::vector<NamedMatrix> build_edge_cases() {
  std::vector<NamedMatrix> cases;
  std::uint64_t seed = 1000;
  auto add = [&](std::string name, std::int64_t cols, const std::vector<std::int64_t>& lengths) {
    cases.push_back({std::move(name), with_row_lengths(cols, lengths, ++seed)});
  };

  // Empty shapes.
  cases.push_back({"empty_0x0", empty_matrix(0, 0)});
  cases.push_back({"empty_0x5", empty_matrix(0, 5)});
  cases.push_back({"empty_5x0", empty_matrix(5, 0)});
  cases.push_back({"all_rows_empty_7x7", empty_matrix(7, 7)});
  cases.push_back({"all_rows_empty_40x3", empty_matrix(40, 3)});

  // Single entries, single rows and columns.
  add("single_1x1", 1, {1});
  add("single_row_dense_1x1000", 1000, {1000});
  add("single_row_sparse_1x5000", 5000, {37});
  add("single_column_dense_1000x1", 1, std::vector<std::int64_t>(1000, 1));
  {
    std::vector<std::int64_t> lengths(1000, 1);
    for (std::size_t i = 0; i < lengths.size(); i += 3) lengths[i] = 0;
    add("single_column_with_empty_rows_1000x1", 1, lengths);
  }
  {
    std::vector<std::int64_t> lengths(64);
    for (std::size_t i = 0; i < lengths.size(); ++i) lengths[i] = 1;
    add("diagonal_like_64x64", 64, lengths);
  }

  // Rectangular, wide and tall.
  {
    SplitMix64 rng(17);
    std::vector<std::int64_t> wide(40), tall(3000);
    for (auto& length : wide) length = rng.below(61);
    for (auto& length : tall) length = rng.below(11);
    add("wide_40x3000", 3000, wide);
    add("tall_3000x40", 40, tall);
  }

  // Empty rows mixed in (every third row, and a run of 50 empty rows).
  {
    SplitMix64 rng(19);
    std::vector<std::int64_t> lengths(300);
    for (std::size_t i = 0; i < lengths.size(); ++i)
      lengths[i] = (i % 3 == 0 || (i >= 100 && i < 150)) ? 0 : 1 + rng.below(20);
    add("empty_rows_mixed_300x300", 300, lengths);
  }
  add("empty_first_and_last_rows_9x20", 20, {0, 3, 5, 1, 0, 8, 2, 4, 0});

  // Rows of exactly 1..5 entries (the short / medium boundary of DASP), each alone and mixed,
  // with row counts that do not fill an 8-row or a 32-row block.
  const std::int64_t row_counts[] = {1, 7, 9, 31, 33};
  for (std::int64_t length = 1; length <= 5; ++length)
    for (const std::int64_t count : row_counts)
      add("rows_of_" + std::to_string(length) + "_x" + std::to_string(count), 64,
          std::vector<std::int64_t>(static_cast<std::size_t>(count), length));
  for (const std::int64_t count : row_counts) {
    std::vector<std::int64_t> lengths;
    for (std::int64_t i = 0; i < count; ++i) lengths.push_back(1 + i % 5);
    add("rows_of_1_to_5_mixed_x" + std::to_string(count), 64, shuffled(lengths, seed));
  }
  {
    // Many rows of each short length, so that every pairing (1+3, 2+2, 4, 1) leaves remainders.
    std::vector<std::int64_t> lengths;
    for (std::int64_t length = 0; length <= 5; ++length)
      for (std::int64_t i = 0; i < 13 + 2 * length; ++i) lengths.push_back(length);
    add("rows_of_0_to_5_many_unbalanced", 200, shuffled(lengths, seed));
  }

  // Rows of exactly 256 and 257 entries (the medium / long boundary), alone and mixed.
  add("rows_of_256_x9", 1000, std::vector<std::int64_t>(9, 256));
  add("rows_of_257_x9", 1000, std::vector<std::int64_t>(9, 257));
  add("rows_of_255_to_258_mixed", 600,
      shuffled({255, 256, 257, 258, 256, 257, 255, 258, 257, 256, 4, 5, 0}, seed));

  // Long rows: exactly 64 long rows and 65 (a group of 64 and one more), of mixed lengths.
  {
    SplitMix64 rng(23);
    std::vector<std::int64_t> lengths(65);
    for (auto& length : lengths) length = 257 + rng.below(700);
    add("long_rows_x65", 2000, lengths);
    lengths.resize(64);
    add("long_rows_x64", 2000, lengths);
  }

  // One very long row (100 000 entries) among 2 000 short ones.
  {
    SplitMix64 rng(29);
    std::vector<std::int64_t> lengths(2000);
    for (auto& length : lengths) length = rng.below(5);
    lengths[1234] = 100000;
    add("one_row_of_100000_among_short", 150000, lengths);
  }

  // Every category at once: empty, short (1..4), medium (5..256) and long (> 256).
  {
    SplitMix64 rng(31);
    std::vector<std::int64_t> lengths;
    for (int i = 0; i < 37; ++i) lengths.push_back(0);
    for (int i = 0; i < 211; ++i) lengths.push_back(1 + rng.below(4));
    for (int i = 0; i < 157; ++i) lengths.push_back(5 + rng.below(252));
    for (int i = 0; i < 11; ++i) lengths.push_back(257 + rng.below(3000));
    add("every_length_category", 5000, shuffled(lengths, 37));
  }

  // Row lengths random in 0..300.
  {
    SplitMix64 rng(41);
    std::vector<std::int64_t> lengths(1000);
    for (auto& length : lengths) length = rng.below(301);
    add("random_lengths_0_to_300", 2000, lengths);
  }

  // Fully dense rows (length == cols) and a small fully dense matrix.
  add("dense_33x64", 64, std::vector<std::int64_t>(33, 64));

  // Dense 8x4 blocks on a block grid (what DASP keeps as mma blocks), with partly full blocks.
  {
    Matrix matrix;
    const std::int32_t block_rows = 8, block_cols = 4, grid = 12;
    matrix.rows = block_rows * grid + 3;
    matrix.cols = block_cols * grid * 2;
    SplitMix64 rng(43);
    for (std::int32_t row = 0; row < matrix.rows; ++row) {
      const std::int32_t block_row = row / block_rows;
      for (std::int32_t col = 0; col < matrix.cols; ++col) {
        const std::int32_t block_col = col / block_cols;
        const bool block_present = (block_row + 3 * block_col) % 5 == 0;
        const bool partial = (block_row + block_col) % 3 == 0;  // 3/4 or less of the block
        if (block_present && (!partial || (row + col) % 4 != 0)) {
          matrix.col_idx.push_back(col);
          matrix.values.push_back(rng.nonzero_value());
        }
      }
      matrix.row_ptr.push_back(static_cast<std::int32_t>(matrix.col_idx.size()));
    }
    cases.push_back({"dense_8x4_blocks_99x96", std::move(matrix)});
  }

  // More than one column block of 4096 and more than one row block of 512 (HBP's 2D partition).
  {
    SplitMix64 rng(47);
    std::vector<std::int64_t> lengths(1100);
    for (auto& length : lengths) length = rng.below(40);
    lengths[0] = 9000;
    add("multi_tile_1100x9000", 9000, lengths);
  }

  // Entries only in the first and the last column.
  {
    Matrix matrix;
    matrix.rows = 50;
    matrix.cols = 10000;
    SplitMix64 rng(53);
    for (std::int32_t row = 0; row < matrix.rows; ++row) {
      if (row % 2 == 0) {
        matrix.col_idx.push_back(0);
        matrix.values.push_back(rng.nonzero_value());
      }
      if (row % 3 == 0) {
        matrix.col_idx.push_back(matrix.cols - 1);
        matrix.values.push_back(rng.nonzero_value());
      }
      matrix.row_ptr.push_back(static_cast<std::int32_t>(matrix.col_idx.size()));
    }
    cases.push_back({"first_and_last_column_only_50x10000", std::move(matrix)});
  }
  return cases;
}

std::vector<NamedMatrix> build_generated() {
  std::vector<NamedMatrix> cases;
  cases.push_back({"stencil2d_5pt_120x100", generate_stencil_2d_5pt(120, 100, 1)});
  cases.push_back({"stencil3d_27pt_20x18x16", generate_stencil_3d_27pt(20, 18, 16, 2)});
  cases.push_back({"rmat_scale12_ef8", generate_rmat(12, 8, 3)});
  cases.push_back({"random_uniform_4000x3000_len0to40",
                   generate_random_rows(4000, 3000, RowLengthDistribution::uniform, 0, 40, 4)});
  cases.push_back({"random_normal_3000x5000_len10to90",
                   generate_random_rows(3000, 5000, RowLengthDistribution::normal, 10, 90, 5)});
  cases.push_back(
      {"random_power_law_5000x5000_len1to2000",
       generate_random_rows(5000, 5000, RowLengthDistribution::power_law, 1, 2000, 6, 2.0)});
  cases.push_back({"random_wide_500x20000_len50to150",
                   generate_random_rows(500, 20000, RowLengthDistribution::uniform, 50, 150, 7)});
  cases.push_back({"random_tall_30000x300_len0to4",
                   generate_random_rows(30000, 300, RowLengthDistribution::uniform, 0, 4, 8)});
  cases.push_back({"banded_5000_hb7", generate_banded(5000, 7, 9)});
  cases.push_back({"short_rows_20000x20000", generate_short_rows(20000, 20000, 10)});
  cases.push_back({"long_rows_100x4000_len1500", generate_long_rows(100, 4000, 1500, 11)});
  cases.push_back({"pruned_512x1024_s90", generate_pruned_weights(512, 1024, 0.9, 12)});
  cases.push_back({"pruned_256x2304_s98", generate_pruned_weights(256, 2304, 0.98, 13)});
  cases.push_back({"pruned_1024x256_s70", generate_pruned_weights(1024, 256, 0.7, 14)});
  cases.push_back(
      {"replicate_power_law_block_to_60000",
       generate_block_diagonal_replica(
           generate_random_rows(300, 400, RowLengthDistribution::power_law, 0, 300, 15, 1.5), 60000,
           16)});
  return cases;
}

std::filesystem::path directory_with_manifest(const char* text) {
  if (text == nullptr || *text == '\0') return {};
  std::filesystem::path dir(text);
  std::error_code error;
  if (!std::filesystem::is_regular_file(dir / "MANIFEST.tsv", error)) return {};
  return std::filesystem::absolute(dir, error).lexically_normal();
}

std::int64_t parse_count(const std::string& text) {
  try {
    return std::stoll(text);
  } catch (const std::exception&) {
    return -1;
  }
}

/// Up to `count` of `entries` (sorted by nnz) at evenly spaced ranks, first and last included.
void take_spread(const std::vector<RealMatrixEntry>& entries, std::size_t count,
                 std::vector<RealMatrixEntry>& out) {
  if (entries.empty() || count == 0) return;
  count = std::min(count, entries.size());
  if (count == 1) {
    out.push_back(entries[entries.size() / 2]);
    return;
  }
  for (std::size_t i = 0; i < count; ++i)
    out.push_back(entries[i * (entries.size() - 1) / (count - 1)]);
}

}  // namespace

Matrix empty_matrix(std::int32_t rows, std::int32_t cols) {
  Matrix matrix;
  matrix.rows = rows;
  matrix.cols = cols;
  matrix.row_ptr.assign(static_cast<std::size_t>(rows) + 1, 0);
  return matrix;
}

Matrix with_row_lengths(std::int64_t cols, const std::vector<std::int64_t>& lengths,
                        std::uint64_t seed) {
  Matrix matrix;
  matrix.rows = static_cast<std::int32_t>(lengths.size());
  matrix.cols = static_cast<std::int32_t>(cols);
  matrix.row_ptr.assign(lengths.size() + 1, 0);
  SplitMix64 rng(seed);
  std::vector<std::int32_t> row_columns;
  for (std::size_t row = 0; row < lengths.size(); ++row) {
    const std::int64_t length = lengths[row];
    if (length > cols) throw std::logic_error("test matrix: row longer than the matrix is wide");
    row_columns.clear();
    if (2 * length > cols) {
      // Dense row: keep each column with probability needed / remaining (selection sampling).
      std::int64_t needed = length;
      for (std::int64_t col = 0; col < cols && needed > 0; ++col) {
        if (rng.below(cols - col) < needed) {
          row_columns.push_back(static_cast<std::int32_t>(col));
          --needed;
        }
      }
    } else {
      while (static_cast<std::int64_t>(row_columns.size()) < length) {
        row_columns.push_back(static_cast<std::int32_t>(rng.below(cols)));
        if (static_cast<std::int64_t>(row_columns.size()) == length) {
          std::sort(row_columns.begin(), row_columns.end());
          row_columns.erase(std::unique(row_columns.begin(), row_columns.end()), row_columns.end());
        }
      }
    }
    for (const std::int32_t col : row_columns) {
      matrix.col_idx.push_back(col);
      matrix.values.push_back(rng.nonzero_value());
    }
    matrix.row_ptr[row + 1] = static_cast<std::int32_t>(matrix.col_idx.size());
  }
  return matrix;
}

void PrintTo(const NamedMatrix& named, std::ostream* out) {
  *out << named.name << " (" << named.matrix.rows << " x " << named.matrix.cols << ", "
       << named.matrix.col_idx.size() << " nonzeros)";
}

std::vector<NamedMatrix> edge_case_matrices() {
  static const std::vector<NamedMatrix> cases = build_edge_cases();
  return cases;
}

std::vector<NamedMatrix> generated_matrices() {
  static const std::vector<NamedMatrix> cases = build_generated();
  return cases;
}

std::vector<NamedMatrix> all_synthetic_matrices() {
  std::vector<NamedMatrix> cases = edge_case_matrices();
  for (auto& named : generated_matrices()) cases.push_back(std::move(named));
  return cases;
}

std::filesystem::path matrix_dir() {
  // A set TCSPARSE_MATRIX_DIR wins even when it names no matrix directory: setting it to a
  // nonexistent path is how a run leaves the real matrices out.
  if (const char* env = std::getenv("TCSPARSE_MATRIX_DIR"); env != nullptr && *env != '\0')
    return directory_with_manifest(env);
#ifdef TCSPARSE_DEFAULT_MATRIX_DIR
  return directory_with_manifest(TCSPARSE_DEFAULT_MATRIX_DIR);
#else
  return {};
#endif
}

std::vector<RealMatrixEntry> real_matrix_entries() {
  const std::filesystem::path dir = matrix_dir();
  if (dir.empty()) return {};
  std::ifstream manifest(dir / "MANIFEST.tsv");
  std::string line;
  std::map<std::string, std::size_t> column_of;
  std::vector<RealMatrixEntry> entries;
  while (std::getline(manifest, line)) {
    std::vector<std::string> fields;
    std::stringstream stream(line);
    for (std::string field; std::getline(stream, field, '\t');) fields.push_back(field);
    if (column_of.empty()) {  // the header line
      for (std::size_t i = 0; i < fields.size(); ++i) column_of[fields[i]] = i;
      if (!column_of.count("file") || !column_of.count("kind") || !column_of.count("rows") ||
          !column_of.count("cols") || !column_of.count("nnz_expanded"))
        return {};
      continue;
    }
    auto field = [&](const char* name) -> std::string {
      const std::size_t i = column_of[name];
      return i < fields.size() ? fields[i] : std::string();
    };
    RealMatrixEntry entry;
    entry.path = dir / field("file");
    entry.kind = field("kind");
    entry.rows = parse_count(field("rows"));
    entry.cols = parse_count(field("cols"));
    entry.nnz = parse_count(field("nnz_expanded"));
    std::error_code error;
    if (entry.nnz < 0 || !std::filesystem::is_regular_file(entry.path, error)) continue;
    entries.push_back(std::move(entry));
  }
  std::sort(entries.begin(), entries.end(), [](const auto& a, const auto& b) {
    return a.nnz != b.nnz ? a.nnz < b.nnz : a.path < b.path;
  });
  return entries;
}

std::vector<RealMatrixEntry> real_matrix_selection(std::size_t max_count) {
  std::map<std::string, std::vector<RealMatrixEntry>> by_kind;
  for (auto& entry : real_matrix_entries()) by_kind[entry.kind].push_back(std::move(entry));
  if (by_kind.empty() || max_count == 0) return {};

  // Shares: dlmc a quarter, other a sixth, suitesparse (the main group) the rest; every present
  // kind at least one while max_count allows.
  std::map<std::string, std::size_t> share;
  std::size_t assigned = 0;
  for (const auto& [kind, entries] : by_kind) {
    std::size_t wanted = kind == "dlmc" ? max_count / 4 : kind == "other" ? max_count / 6 : 0;
    wanted = std::min(std::max<std::size_t>(wanted, 1), entries.size());
    if (kind == "suitesparse") wanted = 0;  // takes what is left, below
    if (assigned + wanted > max_count) wanted = max_count - assigned;
    share[kind] = wanted;
    assigned += wanted;
  }
  if (by_kind.count("suitesparse"))
    share["suitesparse"] = std::min(max_count - assigned, by_kind["suitesparse"].size());

  std::vector<RealMatrixEntry> selection;
  for (const auto& [kind, entries] : by_kind) take_spread(entries, share[kind], selection);
  std::sort(selection.begin(), selection.end(), [](const auto& a, const auto& b) {
    return a.nnz != b.nnz ? a.nnz < b.nnz : a.path < b.path;
  });
  return selection;
}

std::vector<std::filesystem::path> real_matrix_files(std::size_t max_count) {
  std::vector<std::filesystem::path> files;
  for (const auto& entry : real_matrix_selection(max_count)) files.push_back(entry.path);
  return files;
}

std::string sanitized_name(const std::string& text) {
  std::string name;
  for (const char c : text) {
    const bool word = (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9');
    name.push_back(word ? c : '_');
  }
  return name;
}

NamedMatrix load_real_matrix(const std::filesystem::path& file) {
  return {real_matrix_name(file), read_matrix<double>(file)};
}

std::string real_matrix_name(const std::filesystem::path& file) {
  std::string stem = file.string();
  const std::filesystem::path dir = matrix_dir();
  if (!dir.empty()) {
    const std::string prefix = dir.string() + "/";
    if (stem.rfind(prefix, 0) == 0) stem = stem.substr(prefix.size());
  }
  for (const char* extension : {".mtx.gz", ".smtx.gz", ".mtx", ".smtx"}) {
    const std::string ext(extension);
    if (stem.size() > ext.size() && stem.compare(stem.size() - ext.size(), ext.size(), ext) == 0) {
      stem.resize(stem.size() - ext.size());
      break;
    }
  }
  return sanitized_name(stem);
}

CsrMatrix<double, std::int32_t> scaled_for_16_bit(CsrMatrix<double, std::int32_t> matrix) {
  double largest_row_sum = 0.0;
  for (std::int64_t row = 0; row < matrix.rows; ++row) {
    double sum = 0.0;
    for (std::int32_t k = matrix.row_ptr[static_cast<std::size_t>(row)];
         k < matrix.row_ptr[static_cast<std::size_t>(row) + 1]; ++k)
      sum += std::abs(matrix.values[static_cast<std::size_t>(k)]);
    largest_row_sum = std::max(largest_row_sum, sum);
  }
  if (largest_row_sum > kLargest16BitRowSum)
    for (double& value : matrix.values) value *= kLargest16BitRowSum / largest_row_sum;
  return matrix;
}

}  // namespace tcsparse::test
