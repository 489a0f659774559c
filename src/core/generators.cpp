// Synthetic matrices (see generate.hpp).
//
// Every generator works in two parallel passes over independent rows: the row lengths first
// (from the stream (seed, row_lengths, row), or from a formula), then, after a prefix sum and an
// overflow check, the columns of each row and its values (streams (seed, row_columns, row) and
// (seed, row_values, row)). The result is therefore the same for any number of OpenMP threads.
// R-MAT, whose rows are not independent, draws its edges from one stream per block of 1024
// edges, then sorts them by row.
#include <omp.h>

#include <algorithm>
#include <cstdio>
#include <bit>
#include <charconv>
#include <cmath>
#include <cstdint>
#include <functional>
#include <limits>
#include <numeric>
#include <span>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "core/random.hpp"
#include "tcsparse/error.hpp"
#include "tcsparse/generate.hpp"
#include "tcsparse/io.hpp"

namespace tcsparse {
namespace {

using detail::Random;

/// The largest row, column or nonzero count a GeneratedMatrix (32-bit indices) can hold.
constexpr std::int64_t max_index = std::numeric_limits<std::int32_t>::max();

/// What a random stream is used for: one constant per use, so the streams are independent.
enum class Purpose : std::uint64_t {
  row_lengths = 1,
  row_columns = 2,
  row_values = 3,
  row_density = 4,
  rmat_edges = 5,
  rmat_labels = 6,
};

Random stream(std::uint64_t seed, Purpose purpose, std::int64_t index) {
  return Random(seed, static_cast<std::uint64_t>(purpose), static_cast<std::uint64_t>(index));
}

[[noreturn]] void fail(std::string_view generator, const std::string& message) {
  throw Error("generator " + std::string(generator) + ": " + message);
}

void require_non_negative(std::string_view generator, std::string_view name, std::int64_t value) {
  if (value < 0) fail(generator, std::string(name) + " must be >= 0, got " + std::to_string(value));
}

/// Throws IndexOverflowError when `value` (a row, column or nonzero count) exceeds 32 bits.
void require_fits_index(std::string_view generator, std::string_view what, std::int64_t value) {
  if (value > max_index)
    throw IndexOverflowError("generator " + std::string(generator) + ": " + std::string(what) +
                             " = " + std::to_string(value) +
                             " does not fit 32-bit indices (at most " + std::to_string(max_index) +
                             ")");
}

/// a * b, or IndexOverflowError naming `what` when it exceeds 32 bits (a, b >= 0).
std::int64_t checked_product(std::string_view generator, std::string_view what, std::int64_t a,
                             std::int64_t b) {
  if (a != 0 && b > max_index / a) {
    std::string factors = std::to_string(a) + " * " + std::to_string(b);
    throw IndexOverflowError("generator " + std::string(generator) + ": " + std::string(what) +
                             " = " + factors + " does not fit 32-bit indices (at most " +
                             std::to_string(max_index) + ")");
  }
  return a * b;
}

/// Builds the matrix from its row lengths: checks that the total fits, allocates, then calls
/// fill_row(row, columns) for every row in parallel, which must write lengths[row] sorted distinct
/// columns; values are drawn from the stream (seed, row_values, row).
template <typename FillRow>
GeneratedMatrix assemble(std::string_view generator, std::int64_t rows, std::int64_t cols,
                         const std::vector<std::int32_t>& lengths, std::uint64_t seed,
                         FillRow&& fill_row) {
  require_fits_index(generator, "rows", rows);
  require_fits_index(generator, "cols", cols);
  std::int64_t nnz = 0;
  for (const std::int32_t length : lengths) nnz += length;
  require_fits_index(generator, "nnz", nnz);

  GeneratedMatrix matrix;
  matrix.rows = static_cast<std::int32_t>(rows);
  matrix.cols = static_cast<std::int32_t>(cols);
  matrix.row_ptr.resize(static_cast<std::size_t>(rows) + 1);
  matrix.row_ptr[0] = 0;
  for (std::int64_t row = 0; row < rows; ++row)
    matrix.row_ptr[row + 1] = matrix.row_ptr[row] + lengths[row];
  matrix.col_idx.resize(static_cast<std::size_t>(nnz));
  matrix.values.resize(static_cast<std::size_t>(nnz));

  std::int32_t* const col_idx = matrix.col_idx.data();
  double* const values = matrix.values.data();
  const std::int32_t* const row_ptr = matrix.row_ptr.data();
#pragma omp parallel for schedule(dynamic, 256)
  for (std::int64_t row = 0; row < rows; ++row) {
    const std::int32_t begin = row_ptr[row];
    const std::int32_t length = row_ptr[row + 1] - begin;
    fill_row(row, std::span<std::int32_t>(col_idx + begin, static_cast<std::size_t>(length)));
    Random rng = stream(seed, Purpose::row_values, row);
    for (std::int32_t k = 0; k < length; ++k)
      values[begin + k] = detail::nonzero_value_from_bits(rng.next());
  }
  return matrix;
}

/// Row lengths from length_of(row), computed in parallel.
template <typename LengthOf>
std::vector<std::int32_t> row_lengths(std::int64_t rows, LengthOf&& length_of) {
  std::vector<std::int32_t> lengths(static_cast<std::size_t>(rows));
#pragma omp parallel for schedule(static)
  for (std::int64_t row = 0; row < rows; ++row) lengths[row] = length_of(row);
  return lengths;
}

/// Rows holding at least 1/bitmap_row_ratio of the width are sampled with a bitmap of the row
/// (scanned in cols/64 words, cheap next to the row itself); sparser rows by drawing columns,
/// sorting them and drawing again for repeats (few: the row is sparse).
constexpr std::int64_t bitmap_row_ratio = 256;

/// Writes columns.size() distinct columns of [0, cols), sorted, chosen uniformly.
void sample_sorted_columns(Random& rng, std::int64_t cols, std::span<std::int32_t> columns) {
  const auto length = static_cast<std::int64_t>(columns.size());
  if (length == 0) return;
  if (length == cols) {
    std::iota(columns.begin(), columns.end(), 0);
    return;
  }
  if (length * bitmap_row_ratio < cols) {
    std::size_t distinct = 0;
    while (distinct < columns.size()) {
      for (std::size_t k = distinct; k < columns.size(); ++k)
        columns[k] = static_cast<std::int32_t>(rng.below64(cols));
      std::sort(columns.begin(), columns.end());
      distinct =
          static_cast<std::size_t>(std::unique(columns.begin(), columns.end()) - columns.begin());
    }
    return;
  }
  // Bitmap of the row, one bit per column. More than half full: mark the columns left out
  // instead, so at most cols/2 distinct draws are needed (about 0.7*cols draws in all).
  const bool mark_left_out = 2 * length > cols;
  const std::int64_t to_mark = mark_left_out ? cols - length : length;
  const auto words = static_cast<std::size_t>((cols + 63) / 64);
  thread_local std::vector<std::uint64_t> bitmap;  // all zero between calls
  if (bitmap.size() < words) bitmap.resize(words, 0);
  for (std::int64_t marked = 0; marked < to_mark;) {
    const auto col = static_cast<std::uint64_t>(rng.below64(cols));
    const std::uint64_t bit = std::uint64_t{1} << (col % 64);
    std::uint64_t& word = bitmap[col / 64];
    if ((word & bit) == 0) {
      word |= bit;
      ++marked;
    }
  }
  std::size_t out = 0;
  for (std::size_t w = 0; w < words; ++w) {
    std::uint64_t bits = bitmap[w];
    bitmap[w] = 0;
    if (mark_left_out) {
      bits = ~bits;
      const std::int64_t valid = cols - static_cast<std::int64_t>(64 * w);
      if (valid < 64) bits &= (std::uint64_t{1} << valid) - 1;
    }
    while (bits != 0) {
      columns[out++] =
          static_cast<std::int32_t>(64 * w + static_cast<std::size_t>(std::countr_zero(bits)));
      bits &= bits - 1;
    }
  }
}

// ---- R-MAT ---------------------------------------------------------------------------------

/// R-MAT quadrant probabilities of the Graph500 Kronecker generator (A = 0.57,
/// B = C = 0.19, D = 1 - A - B - C = 0.05).
constexpr double rmat_a = 0.57, rmat_b = 0.19, rmat_c = 0.19;
/// Bits of randomness per recursion level (4 levels per 64-bit draw); quantises the
/// probabilities to 2^-16, far below their precision.
constexpr int rmat_bits_per_level = 16;
/// R-MAT edges drawn in order from one random stream (a stream start costs as much as an edge's
/// draws); the blocks of edges, not the threads, fix the streams, so the edges do not depend on
/// the number of threads.
constexpr std::int64_t rmat_edges_per_stream = 1024;
/// 2^30 vertices is the most whose row count fits 32-bit indices.
constexpr int rmat_max_scale = 30;
/// Edges are bucketed by blocks of 2^12 rows (the per-bucket row counts stay in L1/L2), in at most
/// 2^12 buckets (write streams of the bucketing pass).
constexpr int rmat_rows_per_bucket_log2 = 12;
constexpr int rmat_max_buckets_log2 = 12;

/// A bijection of [0, 2^scale) drawn from the seed: Graph500 relabels the vertices so that the
/// heavy ones are not all at small indices. Odd multiplications, additions and right xor-shifts
/// are each invertible modulo 2^scale.
class VertexScrambler {
 public:
  VertexScrambler(int scale, std::uint64_t seed)
      : mask_((std::uint64_t{1} << scale) - 1), shift_(std::max(1, (scale + 1) / 2)) {
    Random rng = stream(seed, Purpose::rmat_labels, 0);
    multiplier1_ = rng.next() | 1U;
    multiplier2_ = rng.next() | 1U;
    offset_ = rng.next();
  }
  std::uint64_t operator()(std::uint64_t vertex) const {
    if (mask_ == 0) return 0;
    std::uint64_t v = (vertex * multiplier1_) & mask_;
    v ^= v >> shift_;
    v = (v + offset_) & mask_;
    v = (v * multiplier2_) & mask_;
    v ^= v >> shift_;
    return v;
  }

 private:
  std::uint64_t mask_;
  int shift_;
  std::uint64_t multiplier1_ = 1, multiplier2_ = 1, offset_ = 0;
};

struct RmatEdge {
  std::uint32_t row, col;
};

class RmatEdgeGenerator {
 public:
  RmatEdgeGenerator(int scale, std::uint64_t seed)
      : scale_(scale), seed_(seed), scrambler_(scale, seed) {
    constexpr double levels = static_cast<double>(1U << rmat_bits_per_level);
    threshold_a_ = static_cast<std::uint32_t>(rmat_a * levels);
    threshold_ab_ = static_cast<std::uint32_t>((rmat_a + rmat_b) * levels);
    threshold_abc_ = static_cast<std::uint32_t>((rmat_a + rmat_b + rmat_c) * levels);
  }

  /// Calls visit(edge) for the edges of block `block` (edges block*rmat_edges_per_stream ..,
  /// below `edges`), all drawn from the block's one stream.
  template <typename Visit>
  void for_each_edge_in_block(std::int64_t block, std::int64_t edges, Visit&& visit) const {
    Random rng = stream(seed_, Purpose::rmat_edges, block);
    const std::int64_t end = std::min(edges, (block + 1) * rmat_edges_per_stream);
    for (std::int64_t edge = block * rmat_edges_per_stream; edge < end; ++edge) {
      std::uint64_t row = 0, col = 0, bits = 0;
      for (int level = 0; level < scale_; ++level) {
        if (level % (64 / rmat_bits_per_level) == 0) bits = rng.next();
        const auto r = static_cast<std::uint32_t>(bits & ((1U << rmat_bits_per_level) - 1));
        bits >>= rmat_bits_per_level;
        // Quadrant a: (0, 0), b: (0, 1), c: (1, 0), d: (1, 1); branch-free (the branches would
        // be mispredicted about half the time).
        const std::uint64_t past_a = r >= threshold_a_, past_ab = r >= threshold_ab_,
                            past_abc = r >= threshold_abc_;
        row = (row << 1) | past_ab;
        col = (col << 1) | (past_a ^ past_ab ^ past_abc);
      }
      visit(RmatEdge{static_cast<std::uint32_t>(scrambler_(row)),
                     static_cast<std::uint32_t>(scrambler_(col))});
    }
  }

 private:
  int scale_;
  std::uint64_t seed_;
  VertexScrambler scrambler_;
  std::uint32_t threshold_a_ = 0, threshold_ab_ = 0, threshold_abc_ = 0;
};

// ---- generate() by name ----------------------------------------------------------------------

/// Default seed of generate() when the spec names none.
constexpr std::uint64_t default_seed = 1;

struct ParameterInfo {
  std::string name;
  std::string default_value;  ///< empty: required
};

/// The parameters of one generate() call: refuses unknown names up front, then converts values
/// on request with errors that name the generator, the parameter and what was expected.
class Parameters {
 public:
  Parameters(const GeneratorSpec& spec, std::vector<ParameterInfo> accepted)
      : kind_(spec.kind), values_(spec.parameters), accepted_(std::move(accepted)) {
    for (const auto& entry : values_) {
      const std::string& name = entry.first;
      const bool known = std::any_of(accepted_.begin(), accepted_.end(),
                                     [&](const ParameterInfo& p) { return p.name == name; });
      if (!known) fail(kind_, "unknown parameter '" + name + "'; accepted: " + accepted_list());
    }
  }

  std::int64_t integer(const std::string& name) const {
    const std::string text = value(name);
    std::int64_t result = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), result);
    if (error == std::errc() && end == text.data() + text.size()) return result;
    // Also accept integers written like 2e7 or 1000000.0.
    double real_value = 0.0;
    const auto [real_end, real_error] =
        std::from_chars(text.data(), text.data() + text.size(), real_value);
    if (real_error == std::errc() && real_end == text.data() + text.size() &&
        std::isfinite(real_value) && real_value == std::floor(real_value) &&
        std::fabs(real_value) < 0x1.0p62)
      return static_cast<std::int64_t>(real_value);
    fail(kind_, "parameter " + name + "=" + quoted(text) + " is not an integer");
  }

  std::uint64_t unsigned_integer(const std::string& name) const {
    const std::string text = value(name);
    std::uint64_t result = 0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), result);
    if (error != std::errc() || end != text.data() + text.size())
      fail(kind_, "parameter " + name + "=" + quoted(text) + " is not an unsigned 64-bit integer");
    return result;
  }

  double real(const std::string& name) const {
    const std::string text = value(name);
    double result = 0.0;
    const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), result);
    if (error != std::errc() || end != text.data() + text.size() || !std::isfinite(result))
      fail(kind_, "parameter " + name + "=" + quoted(text) + " is not a finite number");
    return result;
  }

  std::string text(const std::string& name) const { return value(name); }

  std::uint64_t seed() const { return unsigned_integer("seed"); }

 private:
  static std::string quoted(const std::string& text) { return "'" + text + "'"; }

  std::string accepted_list() const {
    std::string list;
    for (const auto& p : accepted_) {
      if (!list.empty()) list += ", ";
      list += p.name;
      if (!p.default_value.empty()) list += "[" + p.default_value + "]";
    }
    return list;
  }

  std::string value(const std::string& name) const {
    if (const auto it = values_.find(name); it != values_.end()) return it->second;
    for (const auto& p : accepted_)
      if (p.name == name && !p.default_value.empty()) return p.default_value;
    fail(kind_, "missing parameter '" + name + "'; accepted: " + accepted_list());
  }

  std::string kind_;
  std::map<std::string, std::string> values_;
  std::vector<ParameterInfo> accepted_;
};

struct GeneratorKind {
  std::string name;
  std::string help;
  std::vector<ParameterInfo> parameters;
  std::function<GeneratedMatrix(const Parameters&)> build;
};

RowLengthDistribution parse_distribution(const std::string& text) {
  if (text == "uniform") return RowLengthDistribution::uniform;
  if (text == "normal") return RowLengthDistribution::normal;
  if (text == "power_law" || text == "powerlaw" || text == "power-law")
    return RowLengthDistribution::power_law;
  fail("random", "parameter dist='" + text + "' is not a distribution; accepted: uniform, " +
                     "normal, power_law");
}

int to_int(std::string_view generator, std::string_view name, std::int64_t value) {
  if (value < std::numeric_limits<int>::min() || value > std::numeric_limits<int>::max())
    fail(generator, std::string(name) + " = " + std::to_string(value) + " is out of range");
  return static_cast<int>(value);
}

const std::vector<GeneratorKind>& kinds() {
  const std::string seed_default = std::to_string(default_seed);
  static const std::vector<GeneratorKind> table = {
      {"stencil2d",
       "2D Poisson 5-point stencil on an nx x ny grid (nx*ny rows)",
       {{"nx", ""}, {"ny", ""}, {"seed", seed_default}},
       [](const Parameters& p) {
         return generate_stencil_2d_5pt(p.integer("nx"), p.integer("ny"), p.seed());
       }},
      {"stencil3d",
       "3D 27-point stencil on an nx x ny x nz grid (nx*ny*nz rows)",
       {{"nx", ""}, {"ny", ""}, {"nz", ""}, {"seed", seed_default}},
       [](const Parameters& p) {
         return generate_stencil_3d_27pt(p.integer("nx"), p.integer("ny"), p.integer("nz"),
                                         p.seed());
       }},
      {"poisson3d",
       "3D Poisson 7-point Laplacian (6 on the diagonal, -1 off; SPD, fixed values), nx*ny*nz rows",
       {{"nx", ""}, {"ny", "nx"}, {"nz", "nx"}},
       [](const Parameters& p) {
         const std::int64_t nx = p.integer("nx");
         const auto or_nx = [&](const char* name) {
           return p.text(name) == "nx" ? nx : p.integer(name);
         };
         return generate_poisson_3d(nx, or_nx("ny"), or_nx("nz"));
       }},
      {"rmat",
       "R-MAT power-law graph (Graph500 a=.57 b=.19 c=.19), 2^scale rows",
       {{"scale", ""}, {"edge_factor", "16"}, {"seed", seed_default}},
       [](const Parameters& p) {
         return generate_rmat(to_int("rmat", "scale", p.integer("scale")),
                              to_int("rmat", "edge_factor", p.integer("edge_factor")), p.seed());
       }},
      {"random",
       "random rows, lengths uniform|normal|power_law in [min, max]",
       {{"rows", ""},
        {"cols", ""},
        {"dist", "uniform"},
        {"min", ""},
        {"max", ""},
        {"exponent", "2"},
        {"seed", seed_default}},
       [](const Parameters& p) {
         return generate_random_rows(p.integer("rows"), p.integer("cols"),
                                     parse_distribution(p.text("dist")), p.integer("min"),
                                     p.integer("max"), p.seed(), p.real("exponent"));
       }},
      {"banded",
       "n x n band |i - j| <= bandwidth (full band)",
       {{"n", ""}, {"bandwidth", ""}, {"seed", seed_default}},
       [](const Parameters& p) {
         return generate_banded(p.integer("n"), p.integer("bandwidth"), p.seed());
       }},
      {"short",
       "rows of 1..4 entries (uniform), the short-row case",
       {{"rows", ""}, {"cols", ""}, {"seed", seed_default}},
       [](const Parameters& p) {
         return generate_short_rows(p.integer("rows"), p.integer("cols"), p.seed());
       }},
      {"long",
       "rows of exactly `length` entries each (long, dense-ish rows)",
       {{"rows", ""}, {"cols", ""}, {"length", ""}, {"seed", seed_default}},
       [](const Parameters& p) {
         return generate_long_rows(p.integer("rows"), p.integer("cols"), p.integer("length"),
                                   p.seed());
       }},
      {"pruned",
       "DLMC-like pruned weights, entries kept with probability 1 - sparsity",
       {{"rows", ""}, {"cols", ""}, {"sparsity", ""}, {"seed", seed_default}},
       [](const Parameters& p) {
         return generate_pruned_weights(p.integer("rows"), p.integer("cols"), p.real("sparsity"),
                                        p.seed());
       }},
      {"llm",
       "pruned LLM weights: every row (1 - sparsity) * cols entries (uniform) or ~4x skewed",
       {{"rows", ""}, {"cols", ""}, {"sparsity", ""}, {"profile", "uniform"},
        {"seed", seed_default}},
       [](const Parameters& p) {
         const std::string profile = p.text("profile");
         if (profile != "uniform" && profile != "skewed")
           fail("llm", "profile must be uniform or skewed, got '" + profile + "'");
         return generate_llm_weights(
             p.integer("rows"), p.integer("cols"), p.real("sparsity"),
             profile == "skewed" ? LlmRowProfile::skewed : LlmRowProfile::uniform, p.seed());
       }},
      {"replicate",
       "a real matrix file repeated block-diagonally `copies` times or to at least target_nnz",
       {{"file", ""}, {"target_nnz", "0"}, {"copies", "0"}, {"seed", seed_default}},
       [](const Parameters& p) {
         const std::int64_t copies = p.integer("copies"), target_nnz = p.integer("target_nnz");
         if ((copies > 0) == (target_nnz > 0))
           fail("replicate", "give exactly one of copies and target_nnz (both positive)");
         const std::string file = p.text("file");
         const auto block = read_matrix<double>(file);
         // `copies` copies: the target is their nonzeros (the count rounds up to exactly them)
         return generate_block_diagonal_replica(
             block, copies > 0 ? checked_product("replicate", "nnz", copies, block.nnz()) : target_nnz,
             p.seed());
       }},
  };
  return table;
}

std::string trimmed(std::string_view text) {
  const auto is_space = [](char c) { return c == ' ' || c == '\t' || c == '\n' || c == '\r'; };
  while (!text.empty() && is_space(text.front())) text.remove_prefix(1);
  while (!text.empty() && is_space(text.back())) text.remove_suffix(1);
  return std::string(text);
}

}  // namespace

// ---- generators ------------------------------------------------------------------------------

GeneratedMatrix generate_stencil_2d_5pt(std::int64_t nx, std::int64_t ny, std::uint64_t seed) {
  constexpr std::string_view name = "stencil2d";
  require_non_negative(name, "nx", nx);
  require_non_negative(name, "ny", ny);
  const std::int64_t rows = checked_product(name, "rows (nx*ny)", nx, ny);
  // Row (x, y) is x + nx*y; its neighbours in increasing column order: (x, y-1), (x-1, y),
  // (x, y), (x+1, y), (x, y+1).
  const auto lengths = row_lengths(rows, [&](std::int64_t row) {
    const std::int64_t x = row % nx, y = row / nx;
    return static_cast<std::int32_t>(1 + (x > 0) + (x < nx - 1) + (y > 0) + (y < ny - 1));
  });
  return assemble(
      name, rows, rows, lengths, seed, [&](std::int64_t row, std::span<std::int32_t> columns) {
        const std::int64_t x = row % nx, y = row / nx;
        std::size_t k = 0;
        const auto add = [&](std::int64_t col) { columns[k++] = static_cast<std::int32_t>(col); };
        if (y > 0) add(row - nx);
        if (x > 0) add(row - 1);
        add(row);
        if (x < nx - 1) add(row + 1);
        if (y < ny - 1) add(row + nx);
      });
}

GeneratedMatrix generate_stencil_3d_27pt(std::int64_t nx, std::int64_t ny, std::int64_t nz,
                                         std::uint64_t seed) {
  constexpr std::string_view name = "stencil3d";
  require_non_negative(name, "nx", nx);
  require_non_negative(name, "ny", ny);
  require_non_negative(name, "nz", nz);
  const std::int64_t rows =
      checked_product(name, "rows (nx*ny*nz)", checked_product(name, "nx*ny", nx, ny), nz);
  // Row (x, y, z) is x + nx*(y + ny*z): looping dz, dy, dx each over -1, 0, 1 visits the
  // neighbours in increasing column order.
  const auto neighbours = [](std::int64_t i, std::int64_t n) { return 1 + (i > 0) + (i < n - 1); };
  const auto lengths = row_lengths(rows, [&](std::int64_t row) {
    const std::int64_t x = row % nx, y = (row / nx) % ny, z = row / (nx * ny);
    return static_cast<std::int32_t>(neighbours(x, nx) * neighbours(y, ny) * neighbours(z, nz));
  });
  return assemble(name, rows, rows, lengths, seed,
                  [&](std::int64_t row, std::span<std::int32_t> columns) {
                    const std::int64_t x = row % nx, y = (row / nx) % ny, z = row / (nx * ny);
                    std::size_t k = 0;
                    for (std::int64_t dz = -1; dz <= 1; ++dz) {
                      if (z + dz < 0 || z + dz >= nz) continue;
                      for (std::int64_t dy = -1; dy <= 1; ++dy) {
                        if (y + dy < 0 || y + dy >= ny) continue;
                        for (std::int64_t dx = -1; dx <= 1; ++dx) {
                          if (x + dx < 0 || x + dx >= nx) continue;
                          columns[k++] = static_cast<std::int32_t>(row + dx + nx * (dy + ny * dz));
                        }
                      }
                    }
                  });
}

GeneratedMatrix generate_poisson_3d(std::int64_t nx, std::int64_t ny, std::int64_t nz) {
  constexpr std::string_view name = "poisson3d";
  require_non_negative(name, "nx", nx);
  require_non_negative(name, "ny", ny);
  require_non_negative(name, "nz", nz);
  const std::int64_t rows =
      checked_product(name, "rows (nx*ny*nz)", checked_product(name, "nx*ny", nx, ny), nz);
  const std::int64_t plane = nx * ny;
  // Row (x, y, z) is x + nx*(y + ny*z); its neighbours in increasing column order:
  // (z-1), (y-1), (x-1), itself, (x+1), (y+1), (z+1).
  const auto lengths = row_lengths(rows, [&](std::int64_t row) {
    const std::int64_t x = row % nx, y = (row / nx) % ny, z = row / plane;
    return static_cast<std::int32_t>(1 + (x > 0) + (x < nx - 1) + (y > 0) + (y < ny - 1) +
                                     (z > 0) + (z < nz - 1));
  });
  GeneratedMatrix matrix = assemble(
      name, rows, rows, lengths, /*seed=*/0,
      [&](std::int64_t row, std::span<std::int32_t> columns) {
        const std::int64_t x = row % nx, y = (row / nx) % ny, z = row / plane;
        std::size_t k = 0;
        const auto add = [&](std::int64_t col) { columns[k++] = static_cast<std::int32_t>(col); };
        if (z > 0) add(row - plane);
        if (y > 0) add(row - nx);
        if (x > 0) add(row - 1);
        add(row);
        if (x < nx - 1) add(row + 1);
        if (y < ny - 1) add(row + nx);
        if (z < nz - 1) add(row + plane);
      });
  // The Laplacian's values replace the drawn ones: 6 on the diagonal, -1 for each neighbour.
  constexpr double diagonal = 6.0, neighbour = -1.0;
  const std::int32_t* const row_ptr = matrix.row_ptr.data();
  const std::int32_t* const col_idx = matrix.col_idx.data();
  double* const values = matrix.values.data();
#pragma omp parallel for schedule(static)
  for (std::int64_t row = 0; row < rows; ++row)
    for (std::int32_t k = row_ptr[row]; k < row_ptr[row + 1]; ++k)
      values[k] = col_idx[k] == row ? diagonal : neighbour;
  return matrix;
}

GeneratedMatrix generate_rmat(int scale, int edge_factor, std::uint64_t seed) {
  constexpr std::string_view name = "rmat";
  if (scale < 0) fail(name, "scale must be >= 0, got " + std::to_string(scale));
  if (edge_factor < 1) fail(name, "edge_factor must be >= 1, got " + std::to_string(edge_factor));
  if (scale > rmat_max_scale)
    throw IndexOverflowError("generator rmat: 2^" + std::to_string(scale) +
                             " rows do not fit 32-bit indices (scale at most " +
                             std::to_string(rmat_max_scale) + ")");
  const std::int64_t vertices = std::int64_t{1} << scale;
  // Edges before merging: the buffer that collects them is indexed with 32 bits too.
  const std::int64_t edges = checked_product(
      name, "edges before merging duplicates (edge_factor * 2^scale)", edge_factor, vertices);
  const RmatEdgeGenerator edge_at(scale, seed);

  // The edges are sorted by row in two cache-friendly steps, without atomics: first into buckets
  // of consecutive rows (each of a fixed number of edge chunks counts its edges per bucket, then
  // writes them, regenerated, to its own slots of each bucket), then each bucket by row on its
  // own. A row's columns end up sorted with repeats merged, so the order of the writes does not
  // matter and the matrix does not depend on the number of threads.
  const int bucket_bits = std::clamp(scale - rmat_rows_per_bucket_log2, 0, rmat_max_buckets_log2);
  const std::int64_t buckets = std::int64_t{1} << bucket_bits;
  const int row_bits_in_bucket = scale - bucket_bits;
  const std::int64_t rows_per_bucket = std::int64_t{1} << row_bits_in_bucket;
  const std::int64_t chunks = std::max(1, omp_get_max_threads());
  const std::int64_t blocks = (edges + rmat_edges_per_stream - 1) / rmat_edges_per_stream;
  const auto chunk_begin = [&](std::int64_t chunk) { return blocks * chunk / chunks; };

  // cursor[chunk * buckets + bucket]: the next slot of that chunk's edges in that bucket.
  std::vector<std::int64_t> cursor(static_cast<std::size_t>(chunks * buckets), 0);
#pragma omp parallel for schedule(static, 1)
  for (std::int64_t chunk = 0; chunk < chunks; ++chunk) {
    std::int64_t* const count = cursor.data() + chunk * buckets;
    for (std::int64_t block = chunk_begin(chunk); block < chunk_begin(chunk + 1); ++block)
      edge_at.for_each_edge_in_block(
          block, edges, [&](const RmatEdge& e) { ++count[e.row >> row_bits_in_bucket]; });
  }
  std::vector<std::int64_t> bucket_begin(static_cast<std::size_t>(buckets) + 1, 0);
  std::int64_t running = 0;
  for (std::int64_t bucket = 0; bucket < buckets; ++bucket) {
    bucket_begin[bucket] = running;
    for (std::int64_t chunk = 0; chunk < chunks; ++chunk) {
      const std::int64_t count = cursor[chunk * buckets + bucket];
      cursor[chunk * buckets + bucket] = running;
      running += count;
    }
  }
  bucket_begin[buckets] = running;

  // packed_edges[i] = row << 32 | column, grouped by bucket.
  std::vector<std::uint64_t> packed_edges(static_cast<std::size_t>(edges));
#pragma omp parallel for schedule(static, 1)
  for (std::int64_t chunk = 0; chunk < chunks; ++chunk) {
    std::int64_t* const slot = cursor.data() + chunk * buckets;
    for (std::int64_t block = chunk_begin(chunk); block < chunk_begin(chunk + 1); ++block)
      edge_at.for_each_edge_in_block(block, edges, [&](const RmatEdge& e) {
        packed_edges[slot[e.row >> row_bits_in_bucket]++] = std::uint64_t{e.row} << 32 | e.col;
      });
  }

  // Each bucket by row (counting sort), then each row's columns sorted and merged.
  std::vector<std::int32_t> edge_columns(static_cast<std::size_t>(edges));
  std::vector<std::int32_t> segment_begin(static_cast<std::size_t>(vertices));
  std::vector<std::int32_t> lengths(static_cast<std::size_t>(vertices));
#pragma omp parallel for schedule(dynamic, 1)
  for (std::int64_t bucket = 0; bucket < buckets; ++bucket) {
    const std::int64_t first_row = bucket * rows_per_bucket;
    std::vector<std::int32_t> next(static_cast<std::size_t>(rows_per_bucket), 0);
    for (std::int64_t i = bucket_begin[bucket]; i < bucket_begin[bucket + 1]; ++i)
      ++next[static_cast<std::int64_t>(packed_edges[i] >> 32) - first_row];
    auto start = static_cast<std::int32_t>(bucket_begin[bucket]);
    for (std::int64_t local = 0; local < rows_per_bucket; ++local) {
      const std::int32_t count = next[local];
      segment_begin[first_row + local] = start;
      next[local] = start;
      start += count;
    }
    for (std::int64_t i = bucket_begin[bucket]; i < bucket_begin[bucket + 1]; ++i) {
      const std::uint64_t packed = packed_edges[i];
      edge_columns[next[static_cast<std::int64_t>(packed >> 32) - first_row]++] =
          static_cast<std::int32_t>(packed & 0xFFFFFFFFU);
    }
    for (std::int64_t local = 0; local < rows_per_bucket; ++local) {
      auto* const begin = edge_columns.data() + segment_begin[first_row + local];
      auto* const end = edge_columns.data() + next[local];
      std::sort(begin, end);
      lengths[first_row + local] = static_cast<std::int32_t>(std::unique(begin, end) - begin);
    }
  }
  std::vector<std::uint64_t>().swap(packed_edges);  // freed before the matrix is allocated

  return assemble(name, vertices, vertices, lengths, seed,
                  [&](std::int64_t row, std::span<std::int32_t> columns) {
                    std::copy_n(edge_columns.data() + segment_begin[row], columns.size(),
                                columns.begin());
                  });
}

GeneratedMatrix generate_random_rows(std::int64_t rows, std::int64_t cols,
                                     RowLengthDistribution distribution, std::int64_t min_length,
                                     std::int64_t max_length, std::uint64_t seed,
                                     double power_law_exponent) {
  constexpr std::string_view name = "random";
  require_non_negative(name, "rows", rows);
  require_non_negative(name, "cols", cols);
  require_non_negative(name, "min", min_length);
  require_fits_index(name, "rows", rows);
  require_fits_index(name, "cols", cols);
  if (max_length < min_length)
    fail(name,
         "max = " + std::to_string(max_length) + " is below min = " + std::to_string(min_length));
  if (max_length > cols)
    fail(name, "max = " + std::to_string(max_length) + " exceeds cols = " + std::to_string(cols) +
                   " (a row holds each column at most once)");
  if (distribution == RowLengthDistribution::power_law &&
      (!std::isfinite(power_law_exponent) || power_law_exponent < 0))
    fail(name, "exponent must be a finite number >= 0, got " + std::to_string(power_law_exponent));

  const double low = static_cast<double>(min_length), high = static_cast<double>(max_length);
  // Power law: a continuous v with density ~ v^-exponent on [min, max + 1), length floor(v).
  // A minimum of 0 is shifted by one (v on [1, max + 2), length floor(v) - 1) so that v > 0.
  const double shift = min_length == 0 ? 1.0 : 0.0;
  const double v_low = low + shift, v_high = high + 1.0 + shift;
  const double one_minus_exponent = 1.0 - power_law_exponent;
  const double pow_low = std::pow(v_low, one_minus_exponent);
  const double pow_high = std::pow(v_high, one_minus_exponent);

  const auto lengths = row_lengths(rows, [&](std::int64_t row) {
    Random rng = stream(seed, Purpose::row_lengths, row);
    std::int64_t length = min_length;
    switch (distribution) {
      case RowLengthDistribution::uniform:
        length = min_length + rng.below64(max_length - min_length + 1);
        break;
      case RowLengthDistribution::normal: {
        const double mean = 0.5 * (low + high), stddev = (high - low) / 6.0;
        length = std::llround(mean + stddev * rng.normal());
        break;
      }
      case RowLengthDistribution::power_law: {
        const double u = rng.unit();
        const double v =
            std::fabs(one_minus_exponent) < 1e-12
                ? v_low * std::pow(v_high / v_low, u)
                : std::pow(pow_low + u * (pow_high - pow_low), 1.0 / one_minus_exponent);
        length = static_cast<std::int64_t>(std::floor(v - shift));
        break;
      }
    }
    return static_cast<std::int32_t>(std::clamp(length, min_length, max_length));
  });
  return assemble(name, rows, cols, lengths, seed,
                  [&](std::int64_t row, std::span<std::int32_t> columns) {
                    Random rng = stream(seed, Purpose::row_columns, row);
                    sample_sorted_columns(rng, cols, columns);
                  });
}

GeneratedMatrix generate_banded(std::int64_t n, std::int64_t half_bandwidth, std::uint64_t seed) {
  constexpr std::string_view name = "banded";
  require_non_negative(name, "n", n);
  require_non_negative(name, "bandwidth", half_bandwidth);
  require_fits_index(name, "n", n);
  const std::int64_t h = std::min(half_bandwidth, std::max<std::int64_t>(n - 1, 0));
  // nnz = n*(2h+1) - h*(h+1), checked before the row lengths are allocated.
  require_fits_index(name, "nnz", n * (2 * h + 1) - h * (h + 1));
  const auto lengths = row_lengths(n, [&](std::int64_t row) {
    return static_cast<std::int32_t>(std::min(row + h, n - 1) - std::max<std::int64_t>(row - h, 0) +
                                     1);
  });
  return assemble(name, n, n, lengths, seed,
                  [&](std::int64_t row, std::span<std::int32_t> columns) {
                    std::iota(columns.begin(), columns.end(),
                              static_cast<std::int32_t>(std::max<std::int64_t>(row - h, 0)));
                  });
}

/// Row lengths of generate_short_rows: uniform in 1..4 (DASP's short rows, section 3.3).
constexpr std::int64_t max_short_row_length = 4;

GeneratedMatrix generate_short_rows(std::int64_t rows, std::int64_t cols, std::uint64_t seed) {
  constexpr std::string_view name = "short";
  require_non_negative(name, "rows", rows);
  require_non_negative(name, "cols", cols);
  require_fits_index(name, "rows", rows);
  require_fits_index(name, "cols", cols);
  if (rows > 0 && cols == 0) fail(name, "rows of 1..4 entries need cols >= 1");
  // Upper bound 4*rows checked before the lengths are allocated.
  require_fits_index(name, "nnz (at most 4*rows)", max_short_row_length * rows);
  const std::int64_t longest = std::min(max_short_row_length, cols);
  const auto lengths = row_lengths(rows, [&](std::int64_t row) {
    Random rng = stream(seed, Purpose::row_lengths, row);
    return static_cast<std::int32_t>(1 + rng.below64(longest));
  });
  return assemble(name, rows, cols, lengths, seed,
                  [&](std::int64_t row, std::span<std::int32_t> columns) {
                    Random rng = stream(seed, Purpose::row_columns, row);
                    sample_sorted_columns(rng, cols, columns);
                  });
}

GeneratedMatrix generate_long_rows(std::int64_t rows, std::int64_t cols, std::int64_t row_length,
                                   std::uint64_t seed) {
  constexpr std::string_view name = "long";
  require_non_negative(name, "rows", rows);
  require_non_negative(name, "cols", cols);
  require_non_negative(name, "length", row_length);
  require_fits_index(name, "rows", rows);
  require_fits_index(name, "cols", cols);
  if (row_length > cols)
    fail(name, "length = " + std::to_string(row_length) + " exceeds cols = " +
                   std::to_string(cols) + " (a row holds each column at most once)");
  checked_product(name, "nnz (rows*length)", rows, row_length);
  const std::vector<std::int32_t> lengths(static_cast<std::size_t>(rows),
                                          static_cast<std::int32_t>(row_length));
  return assemble(name, rows, cols, lengths, seed,
                  [&](std::int64_t row, std::span<std::int32_t> columns) {
                    Random rng = stream(seed, Purpose::row_columns, row);
                    sample_sorted_columns(rng, cols, columns);
                  });
}

/// Spread of the per-row density of generate_pruned_weights. Global magnitude pruning leaves rows
/// of unequal density: each row's kept fraction (below one half; else its pruned fraction) is
/// multiplied by exp(sigma*Z - sigma^2/2), of mean 1, so the expected sparsity is unchanged and
/// sparsity 0 stays dense. sigma = 0.25: rows differ by about +-25 %, the order of the spread
/// in the DLMC magnitude-pruned ResNet-50 and Transformer weights.
constexpr double pruned_row_density_sigma = 0.25;

GeneratedMatrix generate_pruned_weights(std::int64_t rows, std::int64_t cols, double sparsity,
                                        std::uint64_t seed) {
  constexpr std::string_view name = "pruned";
  require_non_negative(name, "rows", rows);
  require_non_negative(name, "cols", cols);
  require_fits_index(name, "rows", rows);
  require_fits_index(name, "cols", cols);
  if (!(sparsity >= 0.0 && sparsity <= 1.0))
    fail(name, "sparsity must be in [0, 1], got " + std::to_string(sparsity));
  const double density = 1.0 - sparsity;
  // The expected nnz, with a 10 % margin for the per-row variation, is checked before the row
  // lengths are allocated; the exact count is checked again in assemble().
  if (static_cast<double>(rows) * static_cast<double>(cols) * density >
      1.1 * static_cast<double>(max_index))
    throw IndexOverflowError(
        "generator pruned: about " +
        std::to_string(static_cast<double>(rows) * static_cast<double>(cols) * density) +
        " nonzeros do not fit 32-bit indices");
  const double width = static_cast<double>(cols);
  const auto lengths = row_lengths(rows, [&](std::int64_t row) {
    Random rng = stream(seed, Purpose::row_density, row);
    const double factor = std::exp(pruned_row_density_sigma * rng.normal() -
                                   0.5 * pruned_row_density_sigma * pruned_row_density_sigma);
    const double row_density =
        std::clamp(density <= 0.5 ? density * factor : 1.0 - sparsity * factor, 0.0, 1.0);
    // Binomial(cols, row_density) by its normal approximation.
    const double mean = width * row_density;
    const double stddev = std::sqrt(width * row_density * (1.0 - row_density));
    const std::int64_t length = std::llround(mean + stddev * rng.normal());
    return static_cast<std::int32_t>(std::clamp<std::int64_t>(length, 0, cols));
  });
  return assemble(name, rows, cols, lengths, seed,
                  [&](std::int64_t row, std::span<std::int32_t> columns) {
                    Random rng = stream(seed, Purpose::row_columns, row);
                    sample_sorted_columns(rng, cols, columns);
                  });
}

GeneratedMatrix generate_llm_weights(std::int64_t rows, std::int64_t cols, double sparsity,
                                     LlmRowProfile profile, std::uint64_t seed) {
  constexpr std::string_view name = "llm";
  require_non_negative(name, "rows", rows);
  require_non_negative(name, "cols", cols);
  require_fits_index(name, "rows", rows);
  require_fits_index(name, "cols", cols);
  if (!(sparsity >= 0.0 && sparsity <= 1.0))
    fail(name, "sparsity must be in [0, 1], got " + std::to_string(sparsity));
  // Skewed rows: density factor uniform in [kLow, kHigh], mean 1, longest / shortest row = 4
  // (about what magnitude pruning of a transformer layer gives, issue 11).
  constexpr double kSkewLow = 0.4, kSkewHigh = 1.6;
  const double density = 1.0 - sparsity;
  const double width = static_cast<double>(cols);
  if (static_cast<double>(rows) * width * density * (profile == LlmRowProfile::skewed ? 1.1 : 1.0) >
      1.1 * static_cast<double>(max_index))
    throw IndexOverflowError("generator llm: about " +
                             std::to_string(static_cast<double>(rows) * width * density) +
                             " nonzeros do not fit 32-bit indices");
  const auto lengths = row_lengths(rows, [&](std::int64_t row) {
    double factor = 1.0;
    if (profile == LlmRowProfile::skewed) {
      Random rng = stream(seed, Purpose::row_density, row);
      factor = kSkewLow + (kSkewHigh - kSkewLow) * rng.unit();
    }
    const std::int64_t length = std::llround(width * density * factor);
    return static_cast<std::int32_t>(std::clamp<std::int64_t>(length, 0, cols));
  });
  return assemble(name, rows, cols, lengths, seed,
                  [&](std::int64_t row, std::span<std::int32_t> columns) {
                    Random rng = stream(seed, Purpose::row_columns, row);
                    sample_sorted_columns(rng, cols, columns);
                  });
}

LlmWeightsName parse_llm_weights_name(const std::string& name) {
  const auto bad = [&]() -> Error {
    return Error("'" + name +
                 "' is not an LLM weight name llm:<rows>x<cols>:s<sparsity>:<uniform|skewed> "
                 "(e.g. llm:4096x4096:s0.70:uniform)");
  };
  LlmWeightsName weights;
  long long rows = 0, cols = 0;
  double sparsity = 0.0;
  char profile[16] = {};
  int consumed = 0;
  if (name.size() > 64 ||
      std::sscanf(name.c_str(), "llm:%lldx%lld:s%lf:%15[a-z]%n", &rows, &cols, &sparsity, profile,
                  &consumed) != 4 ||
      consumed != static_cast<int>(name.size()))
    throw bad();
  if (rows < 0 || cols < 0 || !(sparsity >= 0.0 && sparsity <= 1.0)) throw bad();
  const std::string profile_text = profile;
  if (profile_text == "uniform") weights.profile = LlmRowProfile::uniform;
  else if (profile_text == "skewed") weights.profile = LlmRowProfile::skewed;
  else throw bad();
  weights.rows = rows;
  weights.cols = cols;
  weights.sparsity = sparsity;
  return weights;
}

std::string llm_weights_name(const LlmWeightsName& weights) {
  char sparsity[32];
  std::snprintf(sparsity, sizeof sparsity, "%.2f", weights.sparsity);
  return "llm:" + std::to_string(weights.rows) + "x" + std::to_string(weights.cols) + ":s" +
         sparsity + ":" + (weights.profile == LlmRowProfile::skewed ? "skewed" : "uniform");
}

GeneratedMatrix generate_block_diagonal_replica(const GeneratedMatrix& block,
                                                std::int64_t target_nnz, std::uint64_t seed) {
  constexpr std::string_view name = "replicate";
  block.validate();
  require_non_negative(name, "target_nnz", target_nnz);
  const std::int64_t block_nnz = block.nnz();
  if (block_nnz == 0)
    fail(name, "the block has no nonzeros, so no number of copies reaches target_nnz");
  const std::int64_t copies = std::max<std::int64_t>(1, (target_nnz + block_nnz - 1) / block_nnz);
  const std::int64_t rows = checked_product(name, "rows (copies * block rows)", copies, block.rows);
  const std::int64_t cols = checked_product(name, "cols (copies * block cols)", copies, block.cols);
  checked_product(name, "nnz (copies * block nnz)", copies, block_nnz);
  const std::int64_t block_rows = block.rows;
  const auto lengths = row_lengths(rows, [&](std::int64_t row) {
    return block.row_length(static_cast<std::int32_t>(row % block_rows));
  });
  return assemble(name, rows, cols, lengths, seed,
                  [&](std::int64_t row, std::span<std::int32_t> columns) {
                    const std::int64_t copy = row / block_rows;
                    const auto offset = static_cast<std::int32_t>(copy * block.cols);
                    const std::int32_t begin = block.row_ptr[row % block_rows];
                    for (std::size_t k = 0; k < columns.size(); ++k)
                      columns[k] = block.col_idx[begin + static_cast<std::int32_t>(k)] + offset;
                  });
}

// ---- generate() by name ----------------------------------------------------------------------

GeneratedMatrix generate(const GeneratorSpec& spec) {
  for (const auto& kind : kinds())
    if (kind.name == spec.kind) return kind.build(Parameters(spec, kind.parameters));
  std::string known;
  for (const auto& kind : kinds()) known += (known.empty() ? "" : ", ") + kind.name;
  throw Error("unknown generator kind '" + spec.kind + "'; known kinds: " + known);
}

GeneratorSpec parse_generator_spec(const std::string& text) {
  const auto bad = [&](const std::string& why) {
    return Error("generator spec '" + text + "': " + why +
                 " (expected kind:key=value,key=value, e.g. stencil2d:nx=1000,ny=1000,seed=1)");
  };
  GeneratorSpec spec;
  const std::size_t colon = text.find(':');
  spec.kind = trimmed(std::string_view(text).substr(0, colon));
  if (spec.kind.empty()) throw bad("no kind before ':'");
  if (colon == std::string::npos) return spec;
  std::string_view rest = std::string_view(text).substr(colon + 1);
  if (trimmed(rest).empty()) return spec;
  while (true) {
    const std::size_t comma = rest.find(',');
    const std::string_view item = rest.substr(0, comma);
    const std::size_t equals = item.find('=');
    if (equals == std::string_view::npos) throw bad("'" + trimmed(item) + "' has no '='");
    const std::string key = trimmed(item.substr(0, equals));
    const std::string value = trimmed(item.substr(equals + 1));
    if (key.empty()) throw bad("a parameter has no name before '='");
    if (value.empty()) throw bad("parameter '" + key + "' has no value");
    if (!spec.parameters.emplace(key, value).second)
      throw bad("parameter '" + key + "' is given twice");
    if (comma == std::string_view::npos) break;
    rest = rest.substr(comma + 1);
  }
  return spec;
}

std::vector<std::pair<std::string, std::string>> generator_kinds() {
  std::vector<std::pair<std::string, std::string>> result;
  for (const auto& kind : kinds()) {
    std::string help = kind.help + "; parameters:";
    for (const auto& p : kind.parameters)
      help += " " + p.name + (p.default_value.empty() ? "" : "[" + p.default_value + "]");
    result.emplace_back(kind.name, help);
  }
  return result;
}

}  // namespace tcsparse
